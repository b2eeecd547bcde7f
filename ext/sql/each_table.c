/*
** each_table.c: q_each(blob [, dtype [, count]]), a table-valued function with
** one row per element: i (0-based index) and value.
**
**   1. dtype as in q_json (default f32); floats are REAL, codes INTEGER;
**   2. unlike q_json it shows every value: inf as Inf, NaN as NULL (SQLite
**      has no NaN REAL);
**   3. a NULL argument gives no rows; bad arguments are errors.
*/
#include <string.h>
#include "sql/sql.h"

enum { SQ_EACH_I, SQ_EACH_VALUE, SQ_EACH_X, SQ_EACH_DTYPE, SQ_EACH_COUNT };

typedef struct sq_each_cursor {
  sq_cursor base;
  sqlite3_value *x;         /* a protected copy: the argument outlives xFilter */
  sq_elements e;
} sq_each_cursor;

/* The schema next to its column numbers, which must agree. */
static int sq_each_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                           sq_status *st);
static void sq_each_reset(sq_cursor *cur);
static void sq_each_column(const sq_cursor *cur, sqlite3_context *ctx,
                           int col);

const sq_table sq_each_table = {
  "q_each",
  "CREATE TABLE x(i INTEGER, value, x HIDDEN, dtype HIDDEN, count HIDDEN)",
  SQ_EACH_X, 3, 1, "q_each: the first argument (a blob) is required",
  sizeof(sq_each_cursor), sq_each_compute, sq_each_reset, sq_each_column,
  SQ_VALUES,
};

/* argv holds x, then dtype and count when given. */
static int sq_each_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                           sq_status *st) {
  sq_each_cursor *c = (sq_each_cursor *)cur;
  if (!(c->x = sqlite3_value_dup(argv[0]))) return sq_nomem(st);
  if (sq_arg_blob_elements(argc, argv, c->x, &c->e, st)) return st->code;
  cur->n = c->e.n;
  return SQ_OK;
}

static void sq_each_reset(sq_cursor *cur) {
  sq_each_cursor *c = (sq_each_cursor *)cur;
  sq_elements_free(&c->e);
  memset(&c->e, 0, sizeof c->e);
  sqlite3_value_free(c->x);
  c->x = NULL;
}

static void sq_each_column(const sq_cursor *cur, sqlite3_context *ctx, int col) {
  const sq_each_cursor *c = (const sq_each_cursor *)cur;
  if (col == SQ_EACH_I) {
    sqlite3_result_int64(ctx, (sqlite3_int64)cur->i);
  } else if (col == SQ_EACH_VALUE) {
    if (c->e.dt->kind == SQ_FMT_FLOAT)
      sqlite3_result_double(ctx, (double)sq_element_float(&c->e, cur->i));
    else
      sqlite3_result_int64(ctx, sq_element_code(&c->e, cur->i));
  }
}
