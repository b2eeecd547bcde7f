/*
** ggml_lowbit.h: what the quantizers (ggml_quantize_lowbit.c) and the
** dequantizers (ggml_dequantize.c) of ggml's sign, ternary and FP4 formats
** share, and the MX shared-exponent rules
** (docs/NUMERICS.md#mx-shared-exponent-rules).
*/
#ifndef SQ_GGML_LOWBIT_H
#define SQ_GGML_LOWBIT_H

#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include "kernels/byteorder.h"

/* The E2M1 values of the 16 FP4 codes, doubled (0, 1, 2, 3, 4, 6, 8, 12,
** then the same negated; code 8 is +0 as ggml's table has it), computed
** from the format's definition. */
extern const float sq_e2m1x2[16];

/* ggml's 0.5 * 2^(e - 127) of an E8M0 byte (GGML_E8M0_TO_FP32_HALF): the
** half compensates the doubled E2M1 values; e = 0 and 1 give the
** subnormals 2^-128 and 2^-127. */
static inline float sq_e8m0_half(unsigned e) {
  return e < 2 ? sq_bits_f32(0x00200000u << e) : sq_bits_f32((e - 1u) << 23);
}

/* ggml's half of a UE4M3 byte (ggml_ue4m3_to_fp32): bit 7 ignored, 0 and
** 0x7f are zero, exponent 0 is m * 2^-9, else (1 + m/8) * 2^(exp - 7);
** halved.  Every result is exact in float32. */
static inline float sq_ue4m3_half(unsigned u) {
  if (u == 0 || u == 0x7fu) return 0.0f;
  unsigned ex = (u >> 3) & 15u, m = u & 7u;
  float raw = ex == 0 ? (float)m * 0x1p-9f
                      : (1.0f + (float)m / 8.0f) * sq_bits_f32((ex - 7u + 127u) << 23);
  return raw * 0.5f;
}

/* The largest |x| of n floats (n a multiple of 8), in 8 independent lanes:
** ggml's running maximum is a chain of n comparisons; the maximum of
** magnitudes (never NaN, all >= +0) is the same value in any order. */
static inline float sq_absmax8(const float *x, int n) {
  float acc[8];
  for (int k = 0; k < 8; k++) acc[k] = fabsf(x[k]);
  for (int j = 8; j < n; j += 8)
    for (int k = 0; k < 8; k++) {
      float a = fabsf(x[j + k]);
      acc[k] = acc[k] > a ? acc[k] : a;
    }
  float m = acc[0];
  for (int k = 1; k < 8; k++) m = m > acc[k] ? m : acc[k];
  return m;
}

/* floorf(log2f(a)) for a > 0 finite, as glibc's correctly rounding log2f
** gives it (for a few values just below a power of two log2f rounds up to
** the integer), without libm. */
int sq_floor_log2f(float a);

/* The MX shared-exponent rules, as the mx_exponent= option names them. */
enum {
  SQ_MX_GGML = 0,      /* ggml: floorf(log2f(amax)) - 2 */
  SQ_MX_OCP,           /* OCP MX v1.0 (and torchao FLOOR): exact floor - 2 */
  SQ_MX_TORCHAO_RCEIL, /* torchao RCEIL: ceil to a power of two of amax / 6 */
  SQ_MX_TORCHAO_CEIL,  /* torchao CEIL */
  SQ_MX_TORCHAO_EVEN,  /* torchao EVEN */
  SQ_MX_MLX,           /* MLX: rint(log2(amax / 6)) */
  SQ_MX_NRULES
};

/* The E8M0 byte of a block of absmax amax (>= 0, finite) under rule. */
unsigned sq_mx_exponent(int rule, float amax);
/* n (a multiple of 32) little-endian floats as mxfp4 blocks under rule. */
void sq_mx_quantize(int rule, const void *x, size_t n, void *blocks);

#endif
