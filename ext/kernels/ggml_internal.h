/*
** ggml_internal.h: what the ggml block-format kernel files share
** (docs/NUMERICS.md#ggml).  No SQLite, no allocation.
**
** The searches work on one block (or sub-block) at a time, copied into a
** native float array first, so they read plain float pointers.  Their
** operation order is ggml's, operation for operation: the bytes depend on
** it (the build uses -ffp-contract=off, so a*b+c is never fused).
*/
#ifndef SQ_GGML_INTERNAL_H
#define SQ_GGML_INTERNAL_H

#include <stdint.h>
#include "kernels/ggml.h"
#include "kernels/kernels_internal.h"

/* The scalar entry points of every type of the catalogue (see
** sq_ggml_quantize_fn for the contract): a type added to
** ext/catalogue.toml is declared here and tabulated in ggml_formats.c, so
** the build fails until its scalar kernels exist. */
#define SQ_GGML_DECLARE_SCALAR(T, ...)                                         \
  void sq_ggml_quantize_##T(const void *x, size_t n, const void *importance,   \
                            void *blocks);                                     \
  void sq_ggml_dequantize_##T(const void *blocks, size_t n, void *y);
SQ_CATALOGUE_GGML_TYPES(SQ_GGML_DECLARE_SCALAR)
#undef SQ_GGML_DECLARE_SCALAR

/* fp16 as ggml converts it: round to nearest even, overflow to infinity. */
static inline uint16_t sq_ggml_fp16(float f) { return sq_f32_to_f16_scalar(f); }
static inline float sq_ggml_half(const unsigned char *p) {
  return sq_f16_to_f32_scalar(sq_load_u16(p));
}

/* The fp16 of a scale a search computed.  With infinite weights (huge
** importance, or sums of squares that overflow) a search's sums become
** inf - inf and its scale NaN.  Every such NaN comes from an invalid
** operation and is never negated; x86's invalid-operation NaN is negative,
** so ggml stores 0xfe00, while ARM and s390x make a positive NaN: storing
** x86's bits keeps every host's bytes equal. */
static inline uint16_t sq_ggml_fp16_searched(float f) {
  return f != f ? (uint16_t)0xfe00u : sq_ggml_fp16(f);
}

/* The scalar dequantizers (ggml_dequantize.c, ggml_iq_dequantize.c).
** sq_x86_nan(a, b, r): the result x86-64 SSE gives for a op b, whose IEEE
** value is r: the first NaN operand made quiet, else x86's default NaN for
** an invalid operation, else r. */
static inline float sq_x86_nan(float a, float b, float r) {
  uint32_t ua = sq_f32_bits(a), ub = sq_f32_bits(b);
  if ((ua & 0x7fffffffu) > 0x7f800000u) return sq_bits_f32(ua | 0x00400000u);
  if ((ub & 0x7fffffffu) > 0x7f800000u) return sq_bits_f32(ub | 0x00400000u);
  if ((sq_f32_bits(r) & 0x7fffffffu) > 0x7f800000u) return sq_bits_f32(0xffc00000u);
  return r;
}

/* The row loop of every scalar dequantizer: sq_ggml_dequantize_NAME runs
** dq_NAME(block, out, slow) over the n / BLOCK blocks of BYTES bytes, the
** plain version (slow 0) when FINITE, a test of the block at b (its fp16
** fields finite), holds, else the one with x86's NaN rules (slow 1). */
#define SQ_DQ_ROW(NAME, BLOCK, BYTES, FINITE)                                 \
  void sq_ggml_dequantize_##NAME(const void *blocks, size_t n, void *y) {     \
    sq_cb b = blocks;                                                         \
    sq_b out = y;                                                             \
    for (size_t i = 0; i < n / (BLOCK); i++, b += (BYTES),                    \
                out += 4 * (BLOCK)) {                                         \
      if (FINITE)                                                             \
        dq_##NAME(b, out, 0);                                                 \
      else                                                                    \
        dq_##NAME(b, out, 1);                                                 \
    }                                                                         \
  }

/* ggml's nearest_int: round half to even through the float mantissa, valid
** for |f| <= 4194303 (ggml asserts it; outside, the bits are still defined
** and identical on every host). */
static inline int sq_ggml_nearest_int(float f) {
  float v = f + 12582912.f;
  int32_t i = (int32_t)sq_f32_bits(v);
  return (i & 0x007fffff) - 0x00400000;
}

/* v limited to [lo, hi]: the level clamp of every ggml search. */
static inline int sq_ggml_clamp_int(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/* C's (int)f as x86-64's cvttss2si computes it, on every host: truncation,
** and INT32_MIN for NaN or anything outside int32 (ggml's reference code
** casts floats that can be out of range, e.g. x / d for a subnormal d;
** in C that is undefined, and other CPUs saturate differently). */
static inline int32_t sq_ggml_trunc_i32(float f) {
  if (!(f > -2147483904.0f && f < 2147483648.0f)) return INT32_MIN;
  return (int32_t)f;
}

/* ggml's searches (ggml-quants.c), same operation order, with the arguments
** ggml's K-quants and weighted legacy quantizers pass: make_qx_quants as
** rmse_type 1 (qw NULL means x^2), make_q3_quants with do_rmse, nstep >= 1
** for the affine searches. */
float sq_ggml_make_qx_quants(int n, int nmax, const float *x, int8_t *L,
                             const float *qw);
float sq_ggml_make_q3_quants(int n, int nmax, const float *x, int8_t *L);
float sq_ggml_make_qkx2_quants(int n, int nmax, const float *x,
                               const float *weights, uint8_t *L,
                               float *the_min, uint8_t *Laux, float rmin,
                               float rdelta, int nstep, int use_mad);
float sq_ggml_make_qkx3_quants(int n, int nmax, const float *x,
                               const float *weights, uint8_t *L,
                               float *the_min, uint8_t *Laux, float rmin,
                               float rdelta, int nstep, int use_mad);
float sq_ggml_make_qp_quants(int n, int nmax, const float *x, uint8_t *L,
                             const float *quant_weights);

#endif
