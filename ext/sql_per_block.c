/*
** sql_per_block.c: group-wise quantization (ONNX opset 21 blocked).
**
**   q_block_scales(x, shape, axis, block_size [, dtype [, scheme [, options]]])
**   q_block_zero_points(x, shape, axis, block_size [, ...])
**   quantize_per_block_blob(x, scales, zero_points, shape, axis, block_size
**                           [, dtype [, options]])
**   dequantize_per_block_blob(q, scales, zero_points, shape, axis, block_size
**                             [, dtype])
**   q_fake_quantize_per_block(x, scales, zero_points, shape, axis, block_size
**                             [, dtype [, options]])
**
** Parameters are row-major with shape[axis] replaced by ceil(shape[axis] /
** block_size); the last block along the axis may be short.  Per block, SPEC
** 3.3 chooses the parameters and SPEC 3.1 quantizes (both roundings).
*/
#include "sql.h"

/* shape, axis and block_size at argv[i], argv[i+1], argv[i+2]. */
static int sq_pb_layout(sqlite3_value **argv, int i, sq_shape *shape,
                        sq_block_layout *b, sq_status *st) {
  int64_t axis, block;
  if (sq_shape_from_value(argv[i], shape, st) ||
      sq_arg_int(argv[i + 1], "axis", &axis, st) ||
      sq_arg_int(argv[i + 2], "block_size", &block, st))
    return st->code;
  return sq_block_layout_make(shape, axis, block, b, st);
}

static int sq_pb_check_count(const sq_shape *shape, const sq_tensor *x,
                             sq_status *st) {
  if (shape->count != x->n)
    return sq_fail(st, "shape holds %llu elements but x has %zu",
                   (unsigned long long)shape->count, x->n);
  return SQ_OK;
}

static int sq_pb_params(sqlite3_value **argv, int is, int iz,
                        const sq_block_layout *b, const sq_range *r, int divide,
                        sq_tensor *scales, sq_tensor *zps, sq_channel_set *cs,
                        sq_status *st) {
  return sq_arg_param_set(argv[is], argv[iz], b->nparams, "block",
                          "one per block", r, divide,
                          scales, zps, cs, st);
}

enum { SQ_WANT_SCALES, SQ_WANT_ZERO_POINTS };

static void sq_pb_qparams_func(sqlite3_context *ctx, int argc,
                               sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  if (sq_any_null(argc, argv)) return;
  sq_tensor x;
  sq_shape shape;
  sq_block_layout b;
  sq_options o;
  sq_range r;
  int symmetric;
  float *mm = NULL;
  if (sq_tensor_from_value(argv[0], "x", &x, &st) ||
      sq_pb_layout(argv, 1, &shape, &b, &st) ||
      sq_pb_check_count(&shape, &x, &st))
    goto done;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 4, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_scheme(argc, argv, 5, &symmetric, &st) ||
      sq_arg_options(argc, argv, 6, SQ_OPTS_CALIBRATE, &o, &st) ||
      sq_range_resolve(dt, &o, &r, &st))
    goto done;
  if (!(mm = sq_alloc(&st, b.nparams, 8))) goto done;
  if (sq_block_ranges(sq_kernels_active(), &x, &b, &r, symmetric, &o, mm,
                      mm + b.nparams, &st))
    goto done;
  sq_result_params(ctx, mm, mm + b.nparams, b.nparams, &r, symmetric,
                   fn->variant == SQ_WANT_SCALES, &st);
done:
  sqlite3_free(mm);
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, name, &st);
}

enum { SQ_PB_QUANTIZE, SQ_PB_FAKE };

static void sq_pb_quantize_func(sqlite3_context *ctx, int argc,
                                sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  if (sq_any_null(argc, argv)) return;
  sq_tensor x, scales = {0}, zps = {0};
  sq_shape shape;
  sq_block_layout b;
  sq_options o;
  sq_range r;
  sq_channel_set cs = {0};
  void *out = NULL;
  uint64_t nbytes = 0;
  if (sq_tensor_from_value(argv[0], "x", &x, &st) ||
      sq_pb_layout(argv, 3, &shape, &b, &st) ||
      sq_pb_check_count(&shape, &x, &st))
    goto done;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 6, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_options(argc, argv, 7, SQ_OPTS_QUANTIZE, &o, &st) ||
      sq_range_resolve(dt, &o, &r, &st) ||
      sq_pb_params(argv, 1, 2, &b, &r, o.rounding_onnx, &scales, &zps, &cs, &st))
    goto done;
  const sq_kernels *k = sq_kernels_active();
  if (fn->variant == SQ_PB_QUANTIZE) {
    nbytes = sq_dtype_bytes(dt, x.n);
    if (!(out = sq_alloc(&st, nbytes, 1)) ||
        sq_quantize_blocks(k, &x, &b, &r, &cs, out, &st))
      goto done;
  } else {
    nbytes = (uint64_t)x.n * 4;
    if (!(out = sq_alloc(&st, x.n, 4)) ||
        sq_fake_quantize_blocks(k, &x, &b, &r, &cs, out, &st))
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

static void sq_pb_dequantize_func(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sq_any_null(argc, argv)) return;
  sq_tensor scales = {0}, zps = {0};
  sq_shape shape;
  sq_block_layout b;
  sq_options none;
  sq_range r;
  sq_channel_set cs = {0};
  const void *codes;
  size_t nbytes;
  void *out = NULL;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 6, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_codes(argv[0], "q", dt, &codes, &nbytes, &st) ||
      sq_pb_layout(argv, 3, &shape, &b, &st))
    goto done;
  if (sq_dtype_bytes(dt, shape.count) != nbytes) {
    sq_fail(&st, "q has %zu bytes but the shape needs %llu for %s",
            nbytes, (unsigned long long)sq_dtype_bytes(dt, shape.count),
            dt->name);
    goto done;
  }
  if (sq_options_parse(NULL, 0, &none, &st) ||
      sq_range_resolve(dt, &none, &r, &st) ||
      sq_pb_params(argv, 1, 2, &b, &r, 0, &scales, &zps, &cs, &st) ||
      !(out = sq_alloc(&st, shape.count, 4)) ||
      sq_dequantize_blocks(sq_kernels_active(), codes, &b, dt, &cs, out, &st))
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

static const sq_fn_def sq_per_block_defs[] = {
  {{"q_block_scales", SQ_WANT_SCALES}, 4, 7, sq_pb_qparams_func},
  {{"q_block_zero_points", SQ_WANT_ZERO_POINTS}, 4, 7, sq_pb_qparams_func},
  {{"quantize_per_block_blob", SQ_PB_QUANTIZE}, 6, 8, sq_pb_quantize_func},
  {{"q_fake_quantize_per_block", SQ_PB_FAKE}, 6, 8, sq_pb_quantize_func},
  {{"dequantize_per_block_blob", 0}, 6, 7, sq_pb_dequantize_func},
};

int sq_register_per_block_functions(sqlite3 *db) {
  return sq_register_table(db, sq_per_block_defs,
                           sizeof sq_per_block_defs / sizeof sq_per_block_defs[0]);
}
