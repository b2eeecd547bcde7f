/*
** sql_each.c: q_each(blob [, dtype [, count]]), a table-valued function with
** one row per element: i (0-based index) and value.
**
**   1. dtype as in q_json (default f32); floats are REAL, codes INTEGER;
**   2. unlike q_json it shows every value: inf as Inf, NaN as NULL (SQLite
**      has no NaN REAL);
**   3. a NULL argument gives no rows; bad arguments are errors.
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
  return sq_vtab_connect(
      db, "CREATE TABLE x(i INTEGER, value, x HIDDEN, dtype HIDDEN, count HIDDEN)",
      vt);
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

static int sq_each_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  return sq_vtab_best_index(v, info, SQ_EACH_X, 3, 1,
                            "q_each: the first argument (a blob) is required");
}

/* argv holds x, then dtype and count when given (idxNum of them in all). */
static int sq_each_filter(sqlite3_vtab_cursor *cur, int idxNum,
                          const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)idxNum;
  sq_each_cursor *c = (sq_each_cursor *)cur;
  sq_each_reset(c);
  if (sq_any_null(argc, argv)) return SQLITE_OK;
  sq_status st;
  sq_vtab_begin(cur, &st);
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 1, 1, &sq_dtype_f32, &st);
  int64_t count = -1;
  if (dt && argc > 2 && !sq_arg_int(argv[2], "count", &count, &st) && count < 0)
    sq_fail(&st, "count must not be negative, got %lld", (long long)count);
  if (!st.code) {
    /* A protected copy: the argument does not outlive this call. */
    if (!(c->x = sqlite3_value_dup(argv[0]))) return SQLITE_NOMEM;
    sq_elements_from_value(sq_kernels_active(), c->x, "blob", dt, count, &c->e,
                           &st);
  }
  if (!st.code) return SQLITE_OK;
  sq_each_reset(c);
  return sq_vtab_fail(cur, "q_each", &st);
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
  .xDisconnect = sq_vtab_disconnect,
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
