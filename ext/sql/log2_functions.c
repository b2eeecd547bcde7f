/*
** log2_functions.c: logarithmic (log2) codes, per tensor, per channel and
** per block (docs/NUMERICS.md#logarithmic-log2).
**
**   quantize_log2_blob(x, scale [, dtype])                           codes
**   dequantize_log2_blob(q, scale [, dtype [, count]])                float32
**   q_fake_quantize_log2(x, scale [, dtype])                          float32
**   per channel: x (or q), scales, shape, axis [, dtype]:
**     quantize_per_channel_log2_blob, dequantize_per_channel_log2_blob,
**     q_fake_quantize_per_channel_log2
**   per block: x (or q), scales, shape, axis, block_size [, dtype]:
**     quantize_per_block_log2_blob, dequantize_per_block_log2_blob,
**     q_fake_quantize_per_block_log2
** The parameters come from q_scale, q_per_channel_scales and
** q_block_scales with the scheme 'log2' (sq_result_log2_params).
**
** Rules:
**   1. NULL in any argument gives NULL;
**   2. dtype is int8 (the default) or int4, else an error naming it;
**   3. a scale is a normal float32 power of two, else an error naming the
**      channel or block; a scales list has exactly one entry per group;
**   4. NaN in x is an error naming the element; an empty x gives an empty
**      blob;
**   5. there is no zero point: log2 codes are symmetric about zero.
*/
#include <string.h>
#include "sql/sql.h"
#include "core/elements.h"
#include "kernels/byteorder.h"

enum { SQ_L2_QUANTIZE, SQ_L2_FAKE, SQ_L2_DEQUANTIZE };
#define SQ_L2_VARIANT(op, kind) ((op) + 8 * (kind))

void sq_result_log2_params(sqlite3_context *ctx, const float *mn,
                           const float *mx, size_t count, int per_tensor,
                           const sq_dtype *dt, int want_scale, sq_status *st) {
  if (sq_log2_dtype_check(dt, st)) return;
  if (per_tensor) {
    if (want_scale)
      sqlite3_result_double(ctx, (double)sq_log2_scale(sq_log2_emax(mn[0], mx[0])));
    else
      sqlite3_result_int64(ctx, 0);
    return;
  }
  unsigned char *out = sq_alloc(st, count, 4);
  if (!out) return;
  for (size_t c = 0; c < count; c++) {
    if (want_scale) sq_store_f32(out + 4 * c, sq_log2_scale(sq_log2_emax(mn[c], mx[c])));
    else sq_store_u32(out + 4 * c, 0);
  }
  sq_result_typed(ctx, out, (uint64_t)count * 4,
                  want_scale ? SQ_SUBTYPE_F32 : SQ_SUBTYPE_INT32, st);
}

/* Every group's exponent from the scale argument at argv[1]. */
static int32_t *sq_arg_log2_scales(sq_granularity_kind kind, sqlite3_value **argv,
                                   const sq_granularity *g, int32_t *one,
                                   sq_status *st) {
  if (kind == SQ_GRAN_TENSOR) {
    double scale = 0;
    if (sq_arg_double(argv[1], "scale", &scale, st) ||
        sq_log2_check_scale(scale, NULL, 0, one, st))
      return NULL;
    return one;
  }
  sq_tensor t = {0};
  int32_t *emax = NULL;
  if (sq_arg_tensor(argv[1], "scales", &t, st)) goto done;
  if (t.n != g->groups) {
    char expected[48];
    if (kind == SQ_GRAN_CHANNEL) sqlite3_snprintf(sizeof expected, expected, "shape[%d]", g->axis);
    else sqlite3_snprintf(sizeof expected, expected, "one per block");
    sq_fail(st, "scales has %zu entr%s, expected %zu (%s)", t.n,
            t.n == 1 ? "y" : "ies", g->groups, expected);
    goto done;
  }
  if ((emax = sq_alloc(st, g->groups, sizeof *emax)) &&
      sq_log2_check_scales(t.data, t.n, kind == SQ_GRAN_CHANNEL ? "channel" : "block",
                           emax, st)) {
    sqlite3_free(emax);
    emax = NULL;
  }
done:
  sq_tensor_free(&t);
  return emax;
}

/* quantize_log2_blob, q_fake_quantize_log2 and their per-channel and
** per-block twins: x, scales, the layout, dtype. */
static void sq_log2_quantize_func(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_granularity_kind kind = (sq_granularity_kind)(fn->variant / 8);
  int fake = fn->variant % 8 == SQ_L2_FAKE;
  int opt = 2 + sq_layout_args(kind);
  sq_tensor x = {0};
  sq_granularity g;
  int32_t one, *emax = NULL;
  void *out = NULL;
  const sq_dtype *dt;
  if (sq_arg_x(kind, argv, 2, &x, &g, &st) ||
      !(dt = sq_arg_dtype(argc, argv, opt, SQ_DTYPES_CODES, &sq_dtype_int8, &st)) ||
      sq_log2_dtype_check(dt, &st) ||
      !(emax = sq_arg_log2_scales(kind, argv, &g, &one, &st)))
    goto done;
  const sq_kernels *k = sq_kernels_active();
  uint64_t nbytes = fake ? (uint64_t)x.n * 4 : sq_dtype_bytes(dt, x.n);
  if ((out = sq_alloc(&st, nbytes, 1)) &&
      !(fake ? sq_log2_fake_quantize(k, &x, &g, dt, emax, out, &st)
             : sq_log2_quantize(k, &x, &g, dt, emax, out, &st))) {
    sq_result_typed(ctx, out, nbytes,
                    fake ? SQ_SUBTYPE_F32 : sq_dtype_subtype(dt), &st);
    out = NULL;
  }
done:
  sqlite3_free(out);
  if (emax != &one) sqlite3_free(emax);
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

/* dequantize_log2_blob(q, scale [, dtype [, count]]) and the per-channel
** and per-block ones: q, scales, the layout, dtype. */
static void sq_log2_dequantize_func(sqlite3_context *ctx, int argc,
                                    sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_granularity_kind kind = (sq_granularity_kind)(fn->variant / 8);
  int opt = 2 + sq_layout_args(kind);
  sq_granularity g;
  int32_t one, *emax = NULL;
  void *out = NULL;
  const void *codes;
  const sq_dtype *dt = sq_arg_dtype_of(argc, argv, opt, SQ_DTYPES_CODES,
                                       &sq_dtype_int8, argv[0], "q", &st);
  if (!dt || sq_log2_dtype_check(dt, &st) ||
      sq_arg_codes_layout(kind, argc, argv, 2, opt + 1, dt, &codes, &g, &st))
    goto done;
  size_t n = sq_granularity_count(&g);
  if ((emax = sq_arg_log2_scales(kind, argv, &g, &one, &st)) &&
      (out = sq_alloc(&st, n, 4)) &&
      !sq_log2_dequantize(sq_kernels_active(), codes, &g, dt, emax, out, &st)) {
    sq_result_typed(ctx, out, (uint64_t)n * 4, SQ_SUBTYPE_F32, &st);
    out = NULL;
  }
done:
  sqlite3_free(out);
  if (emax != &one) sqlite3_free(emax);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

/* The family's functions of ext/catalogue.toml (sql/catalogue.h). */
static const sq_fn_def sq_log2_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_LOG2(SQ_FN_DEF)
};

int sq_register_log2_functions(sq_registry *r) {
  return sq_register_table(r, sq_log2_defs,
                           sizeof sq_log2_defs / sizeof sq_log2_defs[0]);
}
