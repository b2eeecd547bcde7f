/*
** channels_table.c: q_channels(x, shape, axis [, dtype [, scheme [, options]]]),
** one row per channel: channel, min, max, scale, zero_point, mse, sqnr_db.
**
**   1. min and max are the channel's observed range; scale and zero point are
**      q_per_channel_scales / q_per_channel_zero_points for the same arguments;
**   2. mse and sqnr_db measure that channel's round trip through the codes:
**      mse = mean((x - x')^2), sqnr_db = 10*log10(sum x^2 / sum (x - x')^2),
**      +Inf when the round trip is exact;
**   3. x, shape and axis are required; a NULL argument gives no rows.
*/
#include <math.h>
#include <string.h>
#include "sql/sql.h"

enum {
  SQ_CH_CHANNEL, SQ_CH_MIN, SQ_CH_MAX, SQ_CH_SCALE, SQ_CH_ZP, SQ_CH_MSE,
  SQ_CH_SQNR, SQ_CH_ARG0 /* x, shape, axis, dtype, scheme, options */
};
#define SQ_CH_NARGS 6

/* The schema next to its column numbers, which must agree. */
static int sq_channels_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                               sq_status *st);
static void sq_channels_column(const sq_cursor *cur, sqlite3_context *ctx,
                               int col);

const sq_table sq_channels_table = {
  "q_channels",
  "CREATE TABLE x(channel INTEGER, min REAL, max REAL, scale REAL, "
  "zero_point INTEGER, mse REAL, sqnr_db REAL, x HIDDEN, shape HIDDEN, "
  "axis HIDDEN, dtype HIDDEN, scheme HIDDEN, options HIDDEN)",
  SQ_CH_ARG0, SQ_CH_NARGS, 3, "q_channels: x, shape and axis are required",
  sizeof(sq_cursor), sq_channels_compute, NULL,
  sq_channels_column, SQ_VALUES,
};

typedef struct sq_channel_row {
  float min, max, scale;
  int32_t zp;
  double mse, sqnr_db;
} sq_channel_row;

static int sq_channels_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                               sq_status *st) {
  sq_tensor x = {0};
  sq_granularity g;
  sq_options o;
  sq_range r;
  sq_param_set ps = {0};
  sq_channel_row *rows;
  int symmetric;
  float *mm = NULL, *fake = NULL;
  int32_t *emax = NULL;             /* the log2 scheme's exponents */
  double *sums = NULL;
  const sq_dtype *dt;
  const sq_kernels *k = sq_kernels_active();
  if (sq_arg_tensor(argv[0], "x", &x, st)) goto done;
  {
    sq_shape shape;
    int64_t axis;
    if (sq_arg_shape(argv[1], &shape, st) ||
        sq_arg_int(argv[2], "axis", &axis, st) ||
        sq_granularity_channel(&shape, axis, &g, st) ||
        sq_shape_check_count(&shape, x.n, st))
      goto done;
  }
  if (!(dt = sq_arg_dtype(argc, argv, 3, SQ_DTYPES_CODES, &sq_dtype_int8, st)) ||
      sq_arg_scheme(argc, argv, 4, &symmetric, st) ||
      (symmetric == SQ_SCHEME_LOG2 && sq_log2_dtype_check(dt, st)) ||
      sq_arg_options(argc, argv, 5, SQ_OPTS_CALIBRATE, &o, st) ||
      sq_range_resolve(dt, &o, &r, st))
    goto done;
  size_t C = g.groups;
  /* mm: the observed min and max (the min and max columns), then the
  ** calibrated range the parameters come from (the same unless method=
  ** clips it; minmax takes the observed one without a second pass). */
  if (!(mm = sq_alloc(st, C, 4 * sizeof *mm)) ||
      !(sums = sq_alloc(st, C, 2 * sizeof *sums)) ||
      !(fake = sq_alloc(st, x.n, 4)) ||
      !(cur->rows = rows = sq_alloc(st, C, sizeof *rows)))
    goto done;
  float *lohi = mm + 2 * C;
  if (sq_group_minmax(k, &x, &g, mm, mm + C, st)) goto done;
  if (o.method == SQ_METHOD_MINMAX)
    memcpy(lohi, mm, 2 * C * sizeof *mm);
  else if (sq_ranges(k, &x, &g, &r, symmetric, &o, lohi, lohi + C, st))
    goto done;
  if (symmetric == SQ_SCHEME_LOG2) {     /* docs/NUMERICS.md#logarithmic-log2 */
    if (!(emax = sq_alloc(st, C, sizeof *emax))) goto done;
    for (size_t ch = 0; ch < C; ch++) emax[ch] = sq_log2_emax(lohi[ch], lohi[C + ch]);
    if (sq_log2_fake_quantize(k, &x, &g, dt, emax, fake, st)) goto done;
  } else if (sq_param_set_choose(lohi, lohi + C, C, &r, symmetric, o.rounding,
                                 &ps, st) ||
             sq_fake_quantize(k, &x, &g, &r, &ps, fake, st)) {
    goto done;
  }
  if (sq_group_errors(&x, fake, &g, sums, sums + C, st)) goto done;
  double per_channel = (double)(g.outer * g.inner);
  for (size_t ch = 0; ch < C; ch++) {
    sq_channel_row *row = &rows[ch];
    double sx = sums[ch], sd = sums[C + ch];
    row->min = mm[ch];
    row->max = mm[C + ch];
    row->scale = emax ? sq_log2_scale(emax[ch]) : ps.p.scale[ch];
    row->zp = emax ? 0 : ps.p.zp[ch];
    row->mse = sd / per_channel;
    row->sqnr_db = sd == 0.0 ? HUGE_VAL : 10.0 * log10(sx / sd);
  }
  cur->n = C;
done:
  sq_param_set_free(&ps);
  sqlite3_free(emax);
  sqlite3_free(mm);
  sqlite3_free(sums);
  sqlite3_free(fake);
  sq_tensor_free(&x);
  return st->code;
}

static void sq_channels_column(const sq_cursor *cur, sqlite3_context *ctx,
                               int col) {
  const sq_channel_row *row = &((const sq_channel_row *)cur->rows)[cur->i];
  switch (col) {
    case SQ_CH_CHANNEL: sqlite3_result_int64(ctx, (sqlite3_int64)cur->i); break;
    case SQ_CH_MIN: sqlite3_result_double(ctx, (double)row->min); break;
    case SQ_CH_MAX: sqlite3_result_double(ctx, (double)row->max); break;
    case SQ_CH_SCALE: sqlite3_result_double(ctx, (double)row->scale); break;
    case SQ_CH_ZP: sqlite3_result_int64(ctx, row->zp); break;
    case SQ_CH_MSE: sqlite3_result_double(ctx, row->mse); break;
    case SQ_CH_SQNR: sqlite3_result_double(ctx, row->sqnr_db); break;
    default: break;
  }
}
