/*
** sql_per_channel.c: per-channel quantization (SPEC 2.3, 3.4).
**
**   q_per_channel_scales(x, shape, axis [, dtype [, scheme [, options]]])  f32 BLOB
**   q_per_channel_zero_points(x, shape, axis [, ...])                      i32 BLOB
**   quantize_per_channel_blob(x, scales, zero_points, shape, axis [, dtype [, options]])
**   dequantize_per_channel_blob(q, scales, zero_points, shape, axis [, dtype])
**   q_fake_quantize_per_channel(x, scales, zero_points, shape, axis [, dtype [, options]])
**
** Rules: shape is a JSON array whose product equals the element count; axis
** may be negative; scales and zero_points have exactly shape[axis] entries
** (BLOB or JSON); every channel's scale and zero point is checked as SPEC 3.5
** says, and an error names the channel.
*/
#include <string.h>
#include "sql.h"

/* x, shape and axis at argv[ix], argv[ishape], argv[iaxis]. */
static int sq_pc_tensor(sqlite3_value **argv, int ix, int ishape, int iaxis,
                        sq_tensor *x, sq_shape *shape, sq_layout *l,
                        sq_status *st) {
  int64_t axis;
  if (sq_tensor_from_value(argv[ix], "x", x, st) ||
      sq_shape_from_value(argv[ishape], shape, st) ||
      sq_arg_int(argv[iaxis], "axis", &axis, st) ||
      sq_layout_make(shape, axis, l, st))
    return st->code;
  if (shape->count != x->n)
    return sq_fail(st, "shape holds %llu elements but x has %zu",
                   (unsigned long long)shape->count, x->n);
  return SQ_OK;
}

/* Scales and zero points at argv[is], argv[iz]: one per channel. */
static int sq_pc_params(sqlite3_value **argv, int is, int iz, const sq_layout *l,
                        const sq_range *r, int divide, sq_tensor *scales,
                        sq_tensor *zps, sq_channel_set *cs, sq_status *st) {
  char expected[48];
  sqlite3_snprintf(sizeof expected, expected, "shape[%d]", l->axis);
  return sq_arg_param_set(argv[is], argv[iz], l->channels, "channel", expected,
                          r, divide,
                          scales, zps, cs, st);
}

enum { SQ_WANT_SCALES, SQ_WANT_ZERO_POINTS };

static void sq_pc_qparams_func(sqlite3_context *ctx, int argc,
                               sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  if (sq_any_null(argc, argv)) return;
  sq_tensor x;
  sq_shape shape;
  sq_layout l;
  sq_options o;
  sq_range r;
  int symmetric;
  float *mm = NULL;
  if (sq_pc_tensor(argv, 0, 1, 2, &x, &shape, &l, &st)) goto done;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 3, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_scheme(argc, argv, 4, &symmetric, &st) ||
      sq_arg_options(argc, argv, 5, SQ_OPTS_CALIBRATE, &o, &st) ||
      sq_range_resolve(dt, &o, &r, &st))
    goto done;
  if (!(mm = sq_alloc(&st, l.channels, 8))) goto done;
  if (sq_channel_ranges(sq_kernels_active(), &x, &l, &r, symmetric, &o, mm,
                        mm + l.channels, &st))
    goto done;
  sq_result_params(ctx, mm, mm + l.channels, l.channels, &r, symmetric,
                   fn->variant == SQ_WANT_SCALES, &st);
done:
  sqlite3_free(mm);
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, name, &st);
}

enum { SQ_PC_QUANTIZE, SQ_PC_FAKE };

static void sq_pc_quantize_func(sqlite3_context *ctx, int argc,
                                sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  if (sq_any_null(argc, argv)) return;
  sq_tensor x, scales = {0}, zps = {0};
  sq_shape shape;
  sq_layout l;
  sq_options o;
  sq_range r;
  sq_channel_set cs = {0};
  void *out = NULL;
  uint64_t nbytes = 0;
  if (sq_pc_tensor(argv, 0, 3, 4, &x, &shape, &l, &st)) goto done;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 5, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_options(argc, argv, 6, SQ_OPTS_QUANTIZE, &o, &st) ||
      sq_range_resolve(dt, &o, &r, &st) ||
      sq_pc_params(argv, 1, 2, &l, &r, o.rounding_onnx, &scales, &zps, &cs, &st))
    goto done;
  const sq_kernels *k = sq_kernels_active();
  if (fn->variant == SQ_PC_QUANTIZE) {
    nbytes = sq_dtype_bytes(dt, x.n);
    if (!(out = sq_alloc(&st, nbytes, 1)) ||
        sq_quantize_channels(k, &x, &l, &r, &cs, out, &st))
      goto done;
  } else {
    nbytes = (uint64_t)x.n * 4;
    if (!(out = sq_alloc(&st, x.n, 4)) ||
        sq_fake_quantize_channels(k, &x, &l, &r, &cs, out, &st))
      goto done;
  }
  sq_result_blob(ctx, out, nbytes, &st);
  out = NULL;
done:
  sqlite3_free(out);
  sq_channel_set_free(&cs);
  sq_tensor_free(&zps);
  sq_tensor_free(&scales);
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, name, &st);
}

static void sq_pc_dequantize_func(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sq_any_null(argc, argv)) return;
  sq_tensor scales = {0}, zps = {0};
  sq_shape shape;
  sq_layout l;
  sq_options none;
  sq_range r;
  sq_channel_set cs = {0};
  const void *codes;
  size_t nbytes;
  int64_t axis;
  void *out = NULL;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 5, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_codes(argv[0], "q", dt, &codes, &nbytes, &st) ||
      sq_shape_from_value(argv[3], &shape, &st) ||
      sq_arg_int(argv[4], "axis", &axis, &st) ||
      sq_layout_make(&shape, axis, &l, &st))
    goto done;
  if (sq_dtype_bytes(dt, shape.count) != nbytes) {
    sq_fail(&st, "q has %zu bytes but the shape needs %llu for %s",
            nbytes, (unsigned long long)sq_dtype_bytes(dt, shape.count),
            dt->name);
    goto done;
  }
  if (sq_options_parse(NULL, 0, &none, &st) || sq_range_resolve(dt, &none, &r, &st) ||
      sq_pc_params(argv, 1, 2, &l, &r, 0, &scales, &zps, &cs, &st) ||
      !(out = sq_alloc(&st, shape.count, 4)) ||
      sq_dequantize_channels(sq_kernels_active(), codes, &l, dt, &cs, out, &st))
    goto done;
  sq_result_blob(ctx, out, shape.count * 4, &st);
  out = NULL;
done:
  sqlite3_free(out);
  sq_channel_set_free(&cs);
  sq_tensor_free(&zps);
  sq_tensor_free(&scales);
  if (st.code) sq_result_status(ctx, name, &st);
}

static const sq_fn_def sq_per_channel_defs[] = {
  {{"q_per_channel_scales", SQ_WANT_SCALES}, 3, 6, sq_pc_qparams_func},
  {{"q_per_channel_zero_points", SQ_WANT_ZERO_POINTS}, 3, 6, sq_pc_qparams_func},
  {{"quantize_per_channel_blob", SQ_PC_QUANTIZE}, 5, 7, sq_pc_quantize_func},
  {{"q_fake_quantize_per_channel", SQ_PC_FAKE}, 5, 7, sq_pc_quantize_func},
  {{"dequantize_per_channel_blob", 0}, 5, 6, sq_pc_dequantize_func},
};

int sq_register_per_channel_functions(sqlite3 *db) {
  return sq_register_table(db, sq_per_channel_defs,
                           sizeof sq_per_channel_defs / sizeof sq_per_channel_defs[0]);
}
