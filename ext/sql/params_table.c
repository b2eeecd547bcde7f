/*
** params_table.c: a scale and its zero point from one calibration
** (docs/reference/per-tensor.md#q_paramsx--dtype--scheme--options).
**
**   q_params(x [, dtype [, scheme [, options]]])
**       one row: scale, zero_point, range_min, range_max
**   q_per_channel_params(x, shape, axis [, dtype [, scheme [, options]]])
**       one row per channel: channel, scale, zero_point, range_min, range_max
**   q_block_params(x, shape, axis, block_size [, dtype [, scheme [, options]]])
**       one row per block: block, scale, zero_point, range_min, range_max
**
** q_scale and q_zero_point each run the whole calibration (a histogram or an
** MSE search over x), so asking for both costs twice; these run it once.
**
**   1. the arguments are q_scale's, q_per_channel_scales' and
**      q_block_scales'; scale and zero_point are exactly what q_scale and
**      q_zero_point (per channel and per block: the entries of their BLOBs,
**      in the same order) return for them, and the errors are theirs under
**      this function's name: both go through sq_arg_param_ranges;
**   2. range_min and range_max are the range the parameters were chosen
**      from: the observed min and max under method=minmax, the calibrated
**      (clipped) range under the other methods;
**   3. a NULL argument gives no rows (vtab.c), where the scalar functions
**      give NULL.
*/
#include <string.h>
#include "sql/sql.h"

/* Columns of the per-channel and per-block tables; q_params has no index
** column, so its column k is column k + 1 here. */
enum { SQ_PR_INDEX, SQ_PR_SCALE, SQ_PR_ZP, SQ_PR_MIN, SQ_PR_MAX };

typedef struct sq_param_row {
  float scale, lo, hi;
  int32_t zp;
} sq_param_row;

/* Every group's row, chosen as sq_params_func (quantize_functions.c)
** chooses the scalar functions' results. */
static int sq_params_rows(sq_granularity_kind kind, sq_cursor *cur, int argc,
                          sqlite3_value **argv, sq_status *st) {
  sq_param_ranges p;
  sq_param_row *rows;
  if (sq_arg_param_ranges(kind, argc, argv, &p, st) ||
      (p.symmetric == SQ_SCHEME_LOG2 && sq_log2_dtype_check(p.dt, st)) ||
      !(cur->rows = rows = sq_alloc(st, p.g.groups, sizeof *rows)))
    goto done;
  size_t n = p.g.groups;
  for (size_t i = 0; i < n; i++) {
    sq_param_row *row = &rows[i];
    row->lo = p.mm[i];
    row->hi = p.mm[n + i];
    if (p.symmetric == SQ_SCHEME_LOG2) {     /* docs/NUMERICS.md#logarithmic-log2 */
      row->scale = sq_log2_scale(sq_log2_emax(row->lo, row->hi));
      row->zp = 0;
    } else if (sq_choose_qparams(row->lo, row->hi, &p.r, p.symmetric,
                                 &row->scale, &row->zp, st)) {
      goto done;
    }
  }
  cur->n = n;
done:
  sq_param_ranges_free(&p);
  return st->code;
}

static int sq_params_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                             sq_status *st) {
  return sq_params_rows(SQ_GRAN_TENSOR, cur, argc, argv, st);
}

static int sq_per_channel_params_compute(sq_cursor *cur, int argc,
                                         sqlite3_value **argv, sq_status *st) {
  return sq_params_rows(SQ_GRAN_CHANNEL, cur, argc, argv, st);
}

static int sq_block_params_compute(sq_cursor *cur, int argc,
                                   sqlite3_value **argv, sq_status *st) {
  return sq_params_rows(SQ_GRAN_BLOCK, cur, argc, argv, st);
}

static void sq_param_row_column(const sq_cursor *cur, sqlite3_context *ctx,
                                int col) {
  const sq_param_row *row = &((const sq_param_row *)cur->rows)[cur->i];
  switch (col) {
    case SQ_PR_INDEX: sqlite3_result_int64(ctx, (sqlite3_int64)cur->i); break;
    case SQ_PR_SCALE: sqlite3_result_double(ctx, (double)row->scale); break;
    case SQ_PR_ZP: sqlite3_result_int64(ctx, row->zp); break;
    case SQ_PR_MIN: sqlite3_result_double(ctx, (double)row->lo); break;
    case SQ_PR_MAX: sqlite3_result_double(ctx, (double)row->hi); break;
    default: break;           /* the HIDDEN arguments */
  }
}

static void sq_params_column(const sq_cursor *cur, sqlite3_context *ctx,
                             int col) {
  sq_param_row_column(cur, ctx, col + 1);
}

const sq_table sq_params_table = {
  "q_params",
  "CREATE TABLE x(scale REAL, zero_point INTEGER, range_min REAL, "
  "range_max REAL, x HIDDEN, dtype HIDDEN, scheme HIDDEN, options HIDDEN)",
  SQ_PR_MAX, 4, 1, "q_params: x is required",
  sizeof(sq_cursor), sq_params_compute, NULL, sq_params_column, SQ_VALUES,
};

const sq_table sq_per_channel_params_table = {
  "q_per_channel_params",
  "CREATE TABLE x(channel INTEGER, scale REAL, zero_point INTEGER, "
  "range_min REAL, range_max REAL, x HIDDEN, shape HIDDEN, axis HIDDEN, "
  "dtype HIDDEN, scheme HIDDEN, options HIDDEN)",
  SQ_PR_MAX + 1, 6, 3, "q_per_channel_params: x, shape and axis are required",
  sizeof(sq_cursor), sq_per_channel_params_compute, NULL, sq_param_row_column,
  SQ_VALUES,
};

const sq_table sq_block_params_table = {
  "q_block_params",
  "CREATE TABLE x(block INTEGER, scale REAL, zero_point INTEGER, "
  "range_min REAL, range_max REAL, x HIDDEN, shape HIDDEN, axis HIDDEN, "
  "block_size HIDDEN, dtype HIDDEN, scheme HIDDEN, options HIDDEN)",
  SQ_PR_MAX + 1, 7, 4,
  "q_block_params: x, shape, axis and block_size are required",
  sizeof(sq_cursor), sq_block_params_compute, NULL, sq_param_row_column,
  SQ_VALUES,
};
