/*
** ggml_fp4_body.h: the bodies of the mxfp4 and nvfp4 quantizers (ggml's
** rule), inlined into the scalar path (ggml_quantize_lowbit.c) and into
** the x86 paths (ggml_x86_avx2.c, ggml_x86_avx512.c), where the compiler
** vectorizes the code search with the wider registers.  The operations are
** the same C float operations on every path (no contraction, no
** reassociation), so every path writes the same bytes.
*/
#ifndef SQ_GGML_FP4_BODY_H
#define SQ_GGML_FP4_BODY_H

#include <math.h>
#include "kernels/ggml_internal.h"
#include "kernels/ggml_lowbit.h"

/* The code of least |value * d - x|, computed in float as ggml does, the
** first (lowest) code among equal errors: codes are tried in order for
** every weight of xb at once (lanes are weights). */
SQ_AI void sq_fp4_codes(const float *xb, int n, float d, uint8_t *code) {
  /* The search over the 16 codes in order keeps the first code of least
  ** error.  For x >= 0 a negative code's error |-v*d - x| = v*d + x is never
  ** below the positive one's |v*d - x| (rounding is monotone), so it never
  ** replaces it.  For x < 0 (or -0) likewise a positive code never beats
  ** its negative, and code 0 comes before code 8 (-0) and any tie.  So
  ** the search over the magnitudes 0..7 of |x|, with the sign bit added to
  ** a nonzero code for a negative x, keeps the same code with half the
  ** work.  Lanes are weights (plain 32-bit lanes, branch-free selects) so
  ** that the compiler keeps them in vector registers. */
  float best[32], ax[32];
  int32_t idx[32];
  for (int j = 0; j < n; j++) {
    ax[j] = fabsf(xb[j]);
    best[j] = fabsf(sq_e2m1x2[0] * d - ax[j]);
    idx[j] = 0;
  }
  for (int c = 1; c < 8; c++) {
    float v = sq_e2m1x2[c] * d;
    for (int j = 0; j < n; j++) {
      float err = fabsf(v - ax[j]);
      int32_t better = -(int32_t)(err < best[j]);
      best[j] = err < best[j] ? err : best[j];
      idx[j] = (idx[j] & ~better) | (c & better);
    }
  }
  for (int j = 0; j < n; j++) {
    int32_t neg = (int32_t)(sq_f32_bits(xb[j]) >> 31) & (idx[j] != 0);
    code[j] = (uint8_t)(idx[j] | neg << 3);
  }
}

/* ggml's running absmax (`if (amax < |v|) amax = |v|`), as a value. */
SQ_AI float sq_fp4_absmax(const float *xb, int n) { return sq_absmax8(xb, n); }

/* ggml's UE4M3 of a scale s >= 0 (4 exponent bits, bias 7, 3 mantissa
** bits, no sign): nonpositive and NaN give 0, above 448 clamps, subnormals
** round x * 512 + 0.5 down, normals round the mantissa half up on its
** fourth bit, exponents 15 and beyond give 0x7e. */
SQ_AI unsigned sq_ue4m3_from(float s) {
  if (!(s > 0.0f)) return 0;
  if (s > 448.0f) s = 448.0f;
  uint32_t u = sq_f32_bits(s);
  int ex = (int)((u >> 23) & 0xffu) - 127 + 7;
  if (ex <= 0) {
    int m = sq_ggml_trunc_i32(s * 512.0f + 0.5f);
    if (m > 7) m = 7;
    return m < 1 ? 0u : (unsigned)m;
  }
  if (ex >= 15) return 0x7eu;
  unsigned man = ((u >> 20) & 7u) + ((u >> 19) & 1u);
  if (man > 7) {
    man = 0;
    if (++ex >= 15) return 0x7eu;
  }
  return (unsigned)ex << 3 | man;
}

/* n little-endian floats (a multiple of 32) as mxfp4 blocks, ggml's rule. */
SQ_AI void sq_fp4_mxfp4_row(const void *x, size_t n, void *blocks) {
  sq_cb src = x;
  sq_b dst = blocks;
  for (size_t ib = 0; ib < n / 32; ib++, src += 4 * 32, dst += 17) {
    float xb[32];
    uint8_t code[32];
    for (int j = 0; j < 32; j++) xb[j] = sq_load_f32(src + 4 * j);
    float amax = sq_fp4_absmax(xb, 32);
    /* (uint8_t)(floorf(log2f(amax)) - 2 + 127), 0 for amax 0; the cast an
    ** x86 truncation keeping the low byte. */
    unsigned e = amax > 0.0f ? (unsigned)(sq_floor_log2f(amax) + 125) & 0xffu : 0u;
    dst[0] = (unsigned char)e;
    sq_fp4_codes(xb, 32, sq_e8m0_half(e), code);
    for (int j = 0; j < 16; j++)
      dst[1 + j] = (unsigned char)(code[j] | code[j + 16] << 4);
  }
}

/* n little-endian floats (a multiple of 64) as nvfp4 blocks. */
SQ_AI void sq_fp4_nvfp4_row(const void *x, size_t n, void *blocks) {
  sq_cb src = x;
  sq_b dst = blocks;
  for (size_t ib = 0; ib < n / 64; ib++, src += 4 * 64, dst += 36)
    for (int s = 0; s < 4; s++) {
      float xb[16];
      uint8_t code[16];
      for (int j = 0; j < 16; j++) xb[j] = sq_load_f32(src + 4 * (16 * s + j));
      unsigned ue = sq_ue4m3_from(sq_fp4_absmax(xb, 16) / 6.0f);
      dst[s] = (unsigned char)ue;
      sq_fp4_codes(xb, 16, sq_ue4m3_half(ue), code);
      for (int j = 0; j < 8; j++)
        dst[4 + 8 * s + j] = (unsigned char)(code[j] | code[j + 8] << 4);
    }
}

#endif
