/*
** sql_per_tensor.c: one scale and zero point for a whole tensor (SPEC 2.2).
**
**   q_scale(x [, dtype [, scheme [, options]]])         -> REAL
**   q_zero_point(x [, dtype [, scheme [, options]]])    -> INTEGER
**   quantize_blob(x, scale, zero_point [, dtype [, options]])  -> codes
**   dequantize_blob(q, scale, zero_point [, dtype [, count]])  -> float32
**   q_fake_quantize(x, scale, zero_point [, dtype [, options]]) -> float32
**
** Rules: NULL in any argument gives NULL; an empty tensor has no parameters
** (error) but quantizes to an empty blob; NaN anywhere is an error naming the
** element; scale and zero point are checked as SPEC 3.5 says.
*/
#include "sql.h"

enum { SQ_WANT_SCALE, SQ_WANT_ZERO_POINT };

static void sq_qparams_func(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  if (sq_any_null(argc, argv)) return;
  sq_tensor x;
  sq_options o;
  sq_range r;
  int symmetric;
  float mn, mx, scale;
  int32_t zp;
  if (sq_tensor_from_value(argv[0], "x", &x, &st)) goto done;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 1, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_scheme(argc, argv, 2, &symmetric, &st) ||
      sq_arg_options(argc, argv, 3, SQ_OPTS_CALIBRATE, &o, &st) ||
      sq_range_resolve(dt, &o, &r, &st))
    goto done;
  if (sq_calibrate(sq_kernels_active(), &x, 0, &r, symmetric, &o, &mn, &mx,
                   &st) ||
      sq_choose_qparams(mn, mx, &r, symmetric, &scale, &zp, &st))
    goto done;
  if (fn->variant == SQ_WANT_SCALE)
    sqlite3_result_double(ctx, (double)scale);
  else
    sqlite3_result_int64(ctx, zp);
done:
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, name, &st);
}

/* Decodes (x, scale, zero_point [, dtype [, options]]) into kernel parameters. */
static int sq_quantize_args(int argc, sqlite3_value **argv, sq_tensor *x,
                            sq_range *r, sq_qparams *p, sq_status *st) {
  sq_options o;
  double scale_arg;
  int64_t zp;
  float scale;
  if (sq_tensor_from_value(argv[0], "x", x, st)) return st->code;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 3, 0, &sq_dtype_int8, st);
  if (!dt || sq_arg_options(argc, argv, 4, SQ_OPTS_QUANTIZE, &o, st) ||
      sq_range_resolve(dt, &o, r, st) ||
      sq_arg_double(argv[1], "scale", &scale_arg, st) ||
      sq_check_scale(scale_arg, NULL, 0, &scale, st) ||
      sq_arg_int(argv[2], "zero_point", &zp, st) ||
      sq_check_zero_point(zp, r, NULL, 0, st))
    return st->code;
  sq_qparams_make(scale, (int32_t)zp, r, o.rounding_onnx, p);
  return SQ_OK;
}

static void sq_quantize_func(sqlite3_context *ctx, int argc,
                             sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sq_any_null(argc, argv)) return;
  sq_tensor x;
  sq_range r;
  sq_qparams p;
  void *out = NULL;
  uint64_t nbytes = 0;
  if (sq_quantize_args(argc, argv, &x, &r, &p, &st)) goto done;
  nbytes = sq_dtype_bytes(r.dtype, x.n);
  if (!(out = sq_alloc(&st, nbytes, 1)) ||
      sq_quantize(sq_kernels_active(), &x, &r, &p, out, &st))
    goto done;
  sq_result_blob(ctx, out, nbytes, &st);
  out = NULL;
done:
  sqlite3_free(out);
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, name, &st);
}

static void sq_fake_quantize_func(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sq_any_null(argc, argv)) return;
  sq_tensor x;
  sq_range r;
  sq_qparams p;
  void *out = NULL;
  uint64_t nbytes = 0;
  if (sq_quantize_args(argc, argv, &x, &r, &p, &st)) goto done;
  nbytes = (uint64_t)x.n * 4;
  if (!(out = sq_alloc(&st, x.n, 4)) ||
      sq_fake_quantize(sq_kernels_active(), &x, &r, &p, out, &st))
    goto done;
  sq_result_blob(ctx, out, nbytes, &st);
  out = NULL;
done:
  sqlite3_free(out);
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, name, &st);
}

static void sq_dequantize_func(sqlite3_context *ctx, int argc,
                               sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sq_any_null(argc, argv)) return;
  const void *codes;
  size_t nbytes, n;
  double scale_arg;
  float scale;
  int64_t zp, count = -1;
  sq_range r;
  sq_options none;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 3, 0, &sq_dtype_int8, &st);
  if (!dt || sq_arg_codes(argv[0], "q", dt, &codes, &nbytes, &st) ||
      (argc > 4 && sq_arg_int(argv[4], "count", &count, &st)))
    goto done;
  if (argc > 4 && count < 0) {
    sq_fail(&st, "count must not be negative, got %lld", (long long)count);
    goto done;
  }
  if (sq_codes_count(dt, nbytes, count, &n, &st) ||
      sq_options_parse(NULL, 0, &none, &st) ||
      sq_range_resolve(dt, &none, &r, &st) ||
      sq_arg_double(argv[1], "scale", &scale_arg, &st) ||
      sq_check_scale(scale_arg, NULL, 0, &scale, &st) ||
      sq_arg_int(argv[2], "zero_point", &zp, &st) ||
      sq_check_zero_point(zp, &r, NULL, 0, &st))
    goto done;
  void *out = sq_alloc(&st, n, 4);
  if (!out) goto done;
  sq_dequantize(sq_kernels_active(), codes, n, dt, scale, (int32_t)zp, out);
  sq_result_blob(ctx, out, (uint64_t)n * 4, &st);
done:
  if (st.code) sq_result_status(ctx, name, &st);
}

static const sq_fn_def sq_per_tensor_defs[] = {
  {{"q_scale", SQ_WANT_SCALE}, 1, 4, sq_qparams_func},
  {{"q_zero_point", SQ_WANT_ZERO_POINT}, 1, 4, sq_qparams_func},
  {{"quantize_blob", 0}, 3, 5, sq_quantize_func},
  {{"dequantize_blob", 0}, 3, 5, sq_dequantize_func},
  {{"q_fake_quantize", 0}, 3, 5, sq_fake_quantize_func},
};

int sq_register_per_tensor_functions(sqlite3 *db) {
  return sq_register_table(db, sq_per_tensor_defs,
                           sizeof sq_per_tensor_defs / sizeof sq_per_tensor_defs[0]);
}
