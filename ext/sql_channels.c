/*
** sql_channels.c: q_channels(x, shape, axis [, dtype [, scheme [, options]]]),
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
#include "sql.h"
#include "kernels/kernels_internal.h"

enum {
  SQ_CH_CHANNEL, SQ_CH_MIN, SQ_CH_MAX, SQ_CH_SCALE, SQ_CH_ZP, SQ_CH_MSE,
  SQ_CH_SQNR, SQ_CH_ARG0 /* x, shape, axis, dtype, scheme, options */
};
#define SQ_CH_NARGS 6

typedef struct sq_channel_row {
  float min, max, scale;
  int32_t zp;
  double mse, sqnr_db;
} sq_channel_row;

typedef struct sq_channels_cursor {
  sqlite3_vtab_cursor base;
  sq_channel_row *rows;
  size_t n, i;
} sq_channels_cursor;

static int sq_channels_connect(sqlite3 *db, void *aux, int argc,
                               const char *const *argv, sqlite3_vtab **vt,
                               char **err) {
  (void)aux;
  (void)argc;
  (void)argv;
  (void)err;
  return sq_vtab_connect(
      db, "CREATE TABLE x(channel INTEGER, min REAL, max REAL, scale REAL, "
          "zero_point INTEGER, mse REAL, sqnr_db REAL, x HIDDEN, shape HIDDEN, "
          "axis HIDDEN, dtype HIDDEN, scheme HIDDEN, options HIDDEN)",
      vt);
}

static int sq_channels_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cur) {
  (void)v;
  sq_channels_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *cur = &c->base;
  return SQLITE_OK;
}

static int sq_channels_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(((sq_channels_cursor *)cur)->rows);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int sq_channels_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  return sq_vtab_best_index(v, info, SQ_CH_ARG0, SQ_CH_NARGS, 3,
                            "q_channels: x, shape and axis are required");
}

static int sq_channels_compute(sq_channels_cursor *c, int argc,
                               sqlite3_value **argv, sq_status *st) {
  sq_tensor x = {0};
  sq_shape shape;
  sq_layout l;
  sq_options o;
  sq_range r;
  sq_channel_set cs = {0};
  int symmetric;
  int64_t axis;
  float *mm = NULL, *fake = NULL;
  double *sums = NULL;
  unsigned char *params = NULL;
  const sq_dtype *dt;
  if (sq_tensor_from_value(argv[0], "x", &x, st) ||
      sq_shape_from_value(argv[1], &shape, st) ||
      sq_arg_int(argv[2], "axis", &axis, st) ||
      sq_layout_make(&shape, axis, &l, st))
    goto done;
  if (shape.count != x.n) {
    sq_fail(st, "shape holds %llu elements but x has %zu",
            (unsigned long long)shape.count, x.n);
    goto done;
  }
  if (!(dt = sq_arg_dtype(argc, argv, 3, 0, &sq_dtype_int8, st)) ||
      sq_arg_scheme(argc, argv, 4, &symmetric, st) ||
      sq_arg_options(argc, argv, 5, SQ_OPTS_CALIBRATE, &o, st) ||
      sq_range_resolve(dt, &o, &r, st))
    goto done;
  size_t C = l.channels;
  float *lohi = NULL;
  if (!(mm = sq_alloc(st, C, 2 * sizeof *mm)) ||
      !(lohi = sq_alloc(st, C, 2 * sizeof *lohi)) ||
      !(params = sq_alloc(st, C, 8)) ||
      !(sums = sq_alloc(st, C, 2 * sizeof *sums)) ||
      !(fake = sq_alloc(st, x.n, 4)) ||
      !(c->rows = sq_alloc(st, C, sizeof *c->rows))) {
    sqlite3_free(lohi);
    goto done;
  }
  const sq_kernels *k = sq_kernels_active();
  /* min and max columns show the observed range; the parameters come from
  ** the calibrated one (the same unless method= clips it). */
  /* minmax calibrates from the observed range itself: one pass, not two. */
  int failed = sq_channel_minmax(k, &x, &l, mm, mm + C, st);
  if (!failed && o.method == SQ_METHOD_MINMAX)
    memcpy(lohi, mm, (size_t)C * 8);
  else if (!failed)
    failed = sq_channel_ranges(k, &x, &l, &r, symmetric, &o, lohi, lohi + C, st);
  if (failed) {
    sqlite3_free(lohi);
    goto done;
  }
  for (size_t ch = 0; ch < C && !st->code; ch++) {
    sq_channel_row *row = &c->rows[ch];
    row->min = mm[ch];
    row->max = mm[C + ch];
    sq_choose_qparams(lohi[ch], lohi[C + ch], &r, symmetric, &row->scale,
                      &row->zp, st);
    /* Parameter arrays are little-endian on every host. */
    sq_store_f32(params + 4 * ch, row->scale);
    sq_store_u32(params + 4 * (C + ch), (uint32_t)row->zp);
  }
  sqlite3_free(lohi);
  if (st->code) goto done;
  if (sq_channel_set_make(params, params + 4 * C, C, "channel", &r,
                          o.rounding_onnx, &cs,
                          st) ||
      sq_fake_quantize_channels(k, &x, &l, &r, &cs, fake, st))
    goto done;
  sq_channel_errors(x.data, fake, &l, sums, sums + C);
  double per_channel = (double)(l.outer * l.inner);
  for (size_t ch = 0; ch < C; ch++) {
    double sx = sums[ch], sd = sums[C + ch];
    c->rows[ch].mse = sd / per_channel;
    c->rows[ch].sqnr_db = sd == 0.0 ? HUGE_VAL : 10.0 * log10(sx / sd);
  }
  c->n = C;
done:
  sq_channel_set_free(&cs);
  sqlite3_free(mm);
  sqlite3_free(params);
  sqlite3_free(sums);
  sqlite3_free(fake);
  sq_tensor_free(&x);
  return st->code;
}

static int sq_channels_filter(sqlite3_vtab_cursor *cur, int idxNum,
                              const char *idxStr, int argc,
                              sqlite3_value **argv) {
  (void)idxStr;
  (void)idxNum;
  sq_channels_cursor *c = (sq_channels_cursor *)cur;
  sqlite3_free(c->rows);
  c->rows = NULL;
  c->n = c->i = 0;
  if (sq_any_null(argc, argv)) return SQLITE_OK;
  sq_status st;
  sq_vtab_begin(cur, &st);
  if (sq_channels_compute(c, argc, argv, &st) == SQ_OK) return SQLITE_OK;
  sqlite3_free(c->rows);
  c->rows = NULL;
  c->n = 0;
  return sq_vtab_fail(cur, "q_channels", &st);
}

static int sq_channels_next(sqlite3_vtab_cursor *cur) {
  ((sq_channels_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int sq_channels_eof(sqlite3_vtab_cursor *cur) {
  sq_channels_cursor *c = (sq_channels_cursor *)cur;
  return c->i >= c->n;
}

static int sq_channels_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                              int col) {
  sq_channels_cursor *c = (sq_channels_cursor *)cur;
  const sq_channel_row *row = &c->rows[c->i];
  switch (col) {
    case SQ_CH_CHANNEL: sqlite3_result_int64(ctx, (sqlite3_int64)c->i); break;
    case SQ_CH_MIN: sqlite3_result_double(ctx, (double)row->min); break;
    case SQ_CH_MAX: sqlite3_result_double(ctx, (double)row->max); break;
    case SQ_CH_SCALE: sqlite3_result_double(ctx, (double)row->scale); break;
    case SQ_CH_ZP: sqlite3_result_int64(ctx, row->zp); break;
    case SQ_CH_MSE: sqlite3_result_double(ctx, row->mse); break;
    case SQ_CH_SQNR: sqlite3_result_double(ctx, row->sqnr_db); break;
    default: break;
  }
  return SQLITE_OK;
}

static int sq_channels_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((sq_channels_cursor *)cur)->i;
  return SQLITE_OK;
}

static sqlite3_module sq_channels_module = {
  .iVersion = 0,
  .xConnect = sq_channels_connect,
  .xBestIndex = sq_channels_best_index,
  .xDisconnect = sq_vtab_disconnect,
  .xOpen = sq_channels_open,
  .xClose = sq_channels_close,
  .xFilter = sq_channels_filter,
  .xNext = sq_channels_next,
  .xEof = sq_channels_eof,
  .xColumn = sq_channels_column,
  .xRowid = sq_channels_rowid,
};

int sq_register_channels(sqlite3 *db) {
  return sqlite3_create_module(db, "q_channels", &sq_channels_module, NULL);
}
