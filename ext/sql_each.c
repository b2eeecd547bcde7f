/*
** sql_each.c: q_each(blob [, dtype [, count]]), a table-valued function with
** one row per element: i (0-based index) and value.
**
**   1. dtype as in q_json (default f32); floats are REAL, codes INTEGER;
**   2. unlike q_json it shows every value: inf as Inf, NaN as NULL (SQLite
**      has no NaN REAL);
**   3. a NULL blob gives no rows; bad arguments are errors.
*/
#include <string.h>
#include "sql.h"

enum { SQ_EACH_I, SQ_EACH_VALUE, SQ_EACH_X, SQ_EACH_DTYPE, SQ_EACH_COUNT };

typedef struct sq_each_cursor {
  sqlite3_vtab_cursor base;
  sqlite3_value *x;         /* a protected copy: the argument outlives xFilter */
  sq_elements e;
  size_t i;
} sq_each_cursor;

static int sq_each_connect(sqlite3 *db, void *aux, int argc,
                           const char *const *argv, sqlite3_vtab **vt,
                           char **err) {
  (void)aux;
  (void)argc;
  (void)argv;
  (void)err;
  int rc = sqlite3_declare_vtab(
      db, "CREATE TABLE x(i INTEGER, value, x HIDDEN, dtype HIDDEN, count HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *vt = v;
  return SQLITE_OK;
}

static int sq_each_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int sq_each_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cur) {
  (void)v;
  sq_each_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *cur = &c->base;
  return SQLITE_OK;
}

static void sq_each_reset(sq_each_cursor *c) {
  sq_elements_free(&c->e);
  memset(&c->e, 0, sizeof c->e);
  sqlite3_value_free(c->x);
  c->x = NULL;
  c->i = 0;
}

static int sq_each_close(sqlite3_vtab_cursor *cur) {
  sq_each_reset((sq_each_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* The hidden arguments arrive in idxNum's bits: 1 x, 2 dtype, 4 count. */
static int sq_each_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  int slot[3] = {-1, -1, -1};
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    if (k->iColumn < SQ_EACH_X) continue;
    if (!k->usable) return SQLITE_CONSTRAINT;
    if (k->op == SQLITE_INDEX_CONSTRAINT_EQ) slot[k->iColumn - SQ_EACH_X] = i;
  }
  if (slot[0] < 0) {
    sqlite3_free(v->zErrMsg);
    v->zErrMsg = sqlite3_mprintf("q_each: the first argument (a blob) is required");
    return SQLITE_ERROR;
  }
  int argv_index = 1;
  info->idxNum = 0;
  for (int j = 0; j < 3; j++) {
    if (slot[j] < 0) continue;
    info->aConstraintUsage[slot[j]].argvIndex = argv_index++;
    info->aConstraintUsage[slot[j]].omit = 1;
    info->idxNum |= 1 << j;
  }
  info->estimatedCost = 1000.0;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

static int sq_each_filter(sqlite3_vtab_cursor *cur, int idxNum,
                          const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  sq_each_cursor *c = (sq_each_cursor *)cur;
  sq_each_reset(c);
  sq_status st = {0};
  st.max_bytes = 0x7fffffff;
  int a = 0;
  sqlite3_value *x = argv[a++];
  const sq_dtype *dt = &sq_dtype_f32;
  int64_t count = -1;
  if (idxNum & 2) {
    sqlite3_value *d = argv[a++];
    if (sqlite3_value_type(d) == SQLITE_NULL) return SQLITE_OK;
    const char *s = sq_arg_text(d, "dtype", &st);
    dt = s ? sq_dtype_find(s, 1, &st) : NULL;
  }
  if (dt && (idxNum & 4)) {
    sqlite3_value *n = argv[a++];
    if (sqlite3_value_type(n) == SQLITE_NULL) return SQLITE_OK;
    if (!sq_arg_int(n, "count", &count, &st) && count < 0)
      sq_fail(&st, "count must not be negative, got %lld", (long long)count);
  }
  if (!st.code && sqlite3_value_type(x) != SQLITE_NULL) {
    c->x = sqlite3_value_dup(x);
    if (!c->x) return SQLITE_NOMEM;
    sq_elements_from_value(sq_kernels_active(), c->x, "blob", dt, count, &c->e,
                           &st);
  }
  if (st.code == SQ_NOMEM) return SQLITE_NOMEM;
  if (st.code == SQ_TOOBIG) return SQLITE_TOOBIG;
  if (st.code) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("q_each: %s", st.msg);
    sq_each_reset(c);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

static int sq_each_next(sqlite3_vtab_cursor *cur) {
  ((sq_each_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int sq_each_eof(sqlite3_vtab_cursor *cur) {
  sq_each_cursor *c = (sq_each_cursor *)cur;
  return c->e.dt == NULL || c->i >= c->e.n;
}

static int sq_each_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                          int col) {
  sq_each_cursor *c = (sq_each_cursor *)cur;
  if (col == SQ_EACH_I) {
    sqlite3_result_int64(ctx, (sqlite3_int64)c->i);
  } else if (col == SQ_EACH_VALUE) {
    if (c->e.dt->kind == SQ_FMT_FLOAT)
      sqlite3_result_double(ctx, (double)sq_element_float(&c->e, c->i));
    else
      sqlite3_result_int64(ctx, sq_element_code(&c->e, c->i));
  }
  return SQLITE_OK;
}

static int sq_each_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((sq_each_cursor *)cur)->i;
  return SQLITE_OK;
}

static sqlite3_module sq_each_module = {
  .iVersion = 0,
  .xConnect = sq_each_connect,
  .xBestIndex = sq_each_best_index,
  .xDisconnect = sq_each_disconnect,
  .xOpen = sq_each_open,
  .xClose = sq_each_close,
  .xFilter = sq_each_filter,
  .xNext = sq_each_next,
  .xEof = sq_each_eof,
  .xColumn = sq_each_column,
  .xRowid = sq_each_rowid,
};

int sq_register_each(sqlite3 *db) {
  return sqlite3_create_module(db, "q_each", &sq_each_module, NULL);
}
