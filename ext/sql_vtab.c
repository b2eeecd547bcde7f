/*
** sql_vtab.c: what the table-valued functions (q_each, q_channels, q_compare)
** share.  Each is an eponymous virtual table whose arguments are HIDDEN
** columns after its result columns, given left to right as in any function
** call: the first `required` must be there, later ones are optional.
*/
#include <string.h>
#include "sql.h"

/* The table remembers its connection: a call's size limit is that
** connection's SQLITE_LIMIT_LENGTH, as for scalar functions. */
typedef struct sq_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} sq_vtab;

int sq_vtab_connect(sqlite3 *db, const char *schema, sqlite3_vtab **vt) {
  int rc = sqlite3_declare_vtab(db, schema);
  if (rc != SQLITE_OK) return rc;
  sq_vtab *v = sqlite3_malloc64(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->db = db;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *vt = &v->base;
  return SQLITE_OK;
}

void sq_vtab_begin(sqlite3_vtab_cursor *cur, sq_status *st) {
  sq_status_begin(st, ((sq_vtab *)cur->pVtab)->db);
}

int sq_vtab_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

int sq_vtab_best_index(sqlite3_vtab *v, sqlite3_index_info *info, int first,
                       int count, int required, const char *missing) {
  int slot[SQ_VTAB_MAX_ARGS];
  for (int j = 0; j < count; j++) slot[j] = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    if (k->iColumn < first || k->iColumn >= first + count) continue;
    /* An argument SQLite cannot supply yet: ask for another plan. */
    if (!k->usable) return SQLITE_CONSTRAINT;
    if (k->op == SQLITE_INDEX_CONSTRAINT_EQ) slot[k->iColumn - first] = i;
  }
  int nargs = 0;
  while (nargs < count && slot[nargs] >= 0) nargs++;
  if (nargs < required) {
    sqlite3_free(v->zErrMsg);
    v->zErrMsg = sqlite3_mprintf("%s", missing);
    /* Without its message the error would read "SQL logic error". */
    return v->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  for (int j = 0; j < nargs; j++) {
    info->aConstraintUsage[slot[j]].argvIndex = j + 1;
    info->aConstraintUsage[slot[j]].omit = 1;
  }
  info->idxNum = nargs;
  info->estimatedCost = 1000.0;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

int sq_vtab_fail(sqlite3_vtab_cursor *cur, const char *name,
                 const sq_status *st) {
  if (st->code == SQ_NOMEM) return SQLITE_NOMEM;
  if (st->code == SQ_TOOBIG) return SQLITE_TOOBIG;
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("%s: %s", name, st->msg);
  return cur->pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}
