/*
** vtab.c: the one virtual-table module behind every table-valued function
** (q_each, q_channels, q_compare).
**
** Each is an eponymous virtual table whose arguments are HIDDEN columns
** after its result columns, given left to right as in any function call:
** the first `required` must be there, later ones are optional.  A NULL
** argument gives no rows.  xFilter hands the arguments to the table's
** compute function, which prepares n rows; the cursor then walks them.  A
** table file says only what differs: its schema, how to compute its rows,
** how to free them, and what each column holds (sq_table in sql.h).
*/
#include <string.h>
#include "sql/sql.h"

/* The table remembers its connection (a call's size limit is that
** connection's SQLITE_LIMIT_LENGTH, as for scalar functions) and what it
** is. */
typedef struct sq_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  const sq_table *table;
} sq_vtab;

static const sq_table *sq_table_of(sqlite3_vtab_cursor *cur) {
  return ((sq_vtab *)cur->pVtab)->table;
}

/* Tables that read files (SQ_PATHS) are SQLITE_VTAB_DIRECTONLY: SQLite
** refuses them in views, triggers and schemas ("unsafe use of ..."). */
static int sq_vtab_connect(sqlite3 *db, void *aux, int argc,
                           const char *const *argv, sqlite3_vtab **vt,
                           char **err) {
  (void)argc;
  (void)argv;
  (void)err;
  const sq_table *t = aux;
  int rc = sqlite3_declare_vtab(db, t->schema);
  if (rc != SQLITE_OK) return rc;
  sq_vtab *v = sqlite3_malloc64(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->db = db;
  v->table = t;
  sq_vtab_declare_reach(db, t->reach);
  *vt = &v->base;
  return SQLITE_OK;
}

static int sq_vtab_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

/* idxNum of a plan that lacks a required argument. */
#define SQ_VTAB_MISSING_ARGS (-1)

static int sq_vtab_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  const sq_table *t = ((sq_vtab *)v)->table;
  int slot[SQ_TABLE_MAX_ARGS];
  for (int j = 0; j < t->nargs; j++) slot[j] = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    if (k->iColumn < t->first_arg || k->iColumn >= t->first_arg + t->nargs)
      continue;
    /* An argument SQLite cannot supply yet: ask for another plan. */
    if (!k->usable) return SQLITE_CONSTRAINT;
    if (k->op == SQLITE_INDEX_CONSTRAINT_EQ) slot[k->iColumn - t->first_arg] = i;
  }
  int nargs = 0;
  while (nargs < t->nargs && slot[nargs] >= 0) nargs++;
  if (nargs < t->required) {
    /* SQLite may offer constraint sets without the arguments while it
    ** weighs other plans (the terms of an OR, say): price this one out of
    ** reach rather than fail the statement, and let xFilter say what is
    ** missing if SQLite has no other plan. */
    info->idxNum = SQ_VTAB_MISSING_ARGS;
    info->estimatedCost = 1e300;
    info->estimatedRows = 2147483647;
    return SQLITE_OK;
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

static int sq_vtab_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cur) {
  sq_cursor *c = sqlite3_malloc64(((sq_vtab *)v)->table->cursor_size);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, ((sq_vtab *)v)->table->cursor_size);
  *cur = &c->base;
  return SQLITE_OK;
}

/* Frees what the last compute made; the cursor then has no rows. */
static void sq_cursor_reset(sqlite3_vtab_cursor *cur) {
  sq_cursor *c = (sq_cursor *)cur;
  if (sq_table_of(cur)->reset) sq_table_of(cur)->reset(c);
  sqlite3_free(c->rows);
  c->rows = NULL;
  c->n = c->i = 0;
}

static int sq_vtab_close(sqlite3_vtab_cursor *cur) {
  sq_cursor_reset(cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* argv holds the arguments given, left to right (idxNum of them). */
static int sq_vtab_filter(sqlite3_vtab_cursor *cur, int idxNum,
                          const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  const sq_table *t = sq_table_of(cur);
  sq_cursor_reset(cur);
  if (idxNum == SQ_VTAB_MISSING_ARGS) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("%s", t->missing);
    return cur->pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (sq_any_null(argc, argv)) return SQLITE_OK;
  sq_status st;
  sq_status_begin(&st, ((sq_vtab *)cur->pVtab)->db);
  if (t->compute((sq_cursor *)cur, argc, argv, &st) == SQ_OK) return SQLITE_OK;
  sq_cursor_reset(cur);
  if (st.code == SQ_NOMEM) return SQLITE_NOMEM;
  if (st.code == SQ_TOOBIG) return SQLITE_TOOBIG;
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("%s: %s", t->name, st.msg);
  return cur->pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

static int sq_vtab_next(sqlite3_vtab_cursor *cur) {
  ((sq_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int sq_vtab_eof(sqlite3_vtab_cursor *cur) {
  sq_cursor *c = (sq_cursor *)cur;
  return c->i >= c->n;
}

static int sq_vtab_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                          int col) {
  sq_table_of(cur)->column((sq_cursor *)cur, ctx, col);
  return SQLITE_OK;
}

static int sq_vtab_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((sq_cursor *)cur)->i;
  return SQLITE_OK;
}

static sqlite3_module sq_table_module = {
  .iVersion = 0,
  .xConnect = sq_vtab_connect,
  .xBestIndex = sq_vtab_best_index,
  .xDisconnect = sq_vtab_disconnect,
  .xOpen = sq_vtab_open,
  .xClose = sq_vtab_close,
  .xFilter = sq_vtab_filter,
  .xNext = sq_vtab_next,
  .xEof = sq_vtab_eof,
  .xColumn = sq_vtab_column,
  .xRowid = sq_vtab_rowid,
};

int sq_register_table_function(sq_registry *r, const sq_table *t) {
  return sq_create_module(r, t->reach, t->name, &sq_table_module, (void *)t,
                          NULL);
}
