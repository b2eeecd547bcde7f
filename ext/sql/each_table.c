/*
** each_table.c: q_each(blob [, dtype [, count]]), a table-valued function with
** one row per element: i (0-based index) and value; and
** q_each_group(scales, zero_points), one row per group of per-channel or
** per-block parameters: i, scale, zero_point.
**
**   1. dtype as in q_json (default f32); floats are REAL, codes INTEGER;
**   2. unlike q_json it shows every value: inf as Inf, NaN as NULL (SQLite
**      has no NaN REAL);
**   3. a NULL argument gives no rows; bad arguments are errors;
**   4. q_each_group's row i is q_each(scales)'s row i beside
**      q_each(zero_points, 'int32')'s row i, value for value; the two must
**      hold as many entries.  It reads each BLOB once: joining the two
**      q_each scans on i instead rescans the second for every row of the
**      first (SQLite has no index on a table-valued function's rows), which
**      is quadratic in the group count.
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

/* ---- q_each_group ---------------------------------------------------------- */

enum { SQ_GROUP_I, SQ_GROUP_SCALE, SQ_GROUP_ZP, SQ_GROUP_SCALES, SQ_GROUP_ZPS };

typedef struct sq_group_cursor {
  sq_cursor base;
  sqlite3_value *scales, *zps;  /* protected copies, as for q_each */
  sq_elements s, z;
} sq_group_cursor;

static int sq_group_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                            sq_status *st);
static void sq_group_reset(sq_cursor *cur);
static void sq_group_column(const sq_cursor *cur, sqlite3_context *ctx,
                            int col);

const sq_table sq_each_group_table = {
  "q_each_group",
  "CREATE TABLE x(i INTEGER, scale REAL, zero_point INTEGER, "
  "scales HIDDEN, zero_points HIDDEN)",
  SQ_GROUP_SCALES, 2, 2, "q_each_group: scales and zero_points are required",
  sizeof(sq_group_cursor), sq_group_compute, sq_group_reset, sq_group_column,
  SQ_VALUES,
};

/* argv holds scales and zero_points, both given (required = nargs). */
static int sq_group_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                            sq_status *st) {
  (void)argc;
  sq_group_cursor *c = (sq_group_cursor *)cur;
  const sq_dtype *i32 = sq_dtype_find("int32", SQ_DTYPES_CODES, st);
  if (!i32) return st->code;
  if (!(c->scales = sqlite3_value_dup(argv[0])) ||
      !(c->zps = sqlite3_value_dup(argv[1])))
    return sq_nomem(st);
  const sq_kernels *k = sq_kernels_active();
  if (sq_arg_elements(k, c->scales, "scales", &sq_dtype_f32, -1, &c->s, st) ||
      sq_arg_elements(k, c->zps, "zero_points", i32, -1, &c->z, st))
    return st->code;
  if (c->z.n != c->s.n)
    return sq_fail(st, "zero_points has %zu entr%s, expected %zu (one per scale)",
                   c->z.n, c->z.n == 1 ? "y" : "ies", c->s.n);
  cur->n = c->s.n;
  return SQ_OK;
}

static void sq_group_reset(sq_cursor *cur) {
  sq_group_cursor *c = (sq_group_cursor *)cur;
  sq_elements_free(&c->s);
  sq_elements_free(&c->z);
  memset(&c->s, 0, sizeof c->s);
  memset(&c->z, 0, sizeof c->z);
  sqlite3_value_free(c->scales);
  sqlite3_value_free(c->zps);
  c->scales = c->zps = NULL;
}

static void sq_group_column(const sq_cursor *cur, sqlite3_context *ctx, int col) {
  const sq_group_cursor *c = (const sq_group_cursor *)cur;
  if (col == SQ_GROUP_I)
    sqlite3_result_int64(ctx, (sqlite3_int64)cur->i);
  else if (col == SQ_GROUP_SCALE)
    sqlite3_result_double(ctx, (double)sq_element_float(&c->s, cur->i));
  else if (col == SQ_GROUP_ZP)
    sqlite3_result_int64(ctx, sq_element_code(&c->z, cur->i));
}
