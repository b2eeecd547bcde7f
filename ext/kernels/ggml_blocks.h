/*
** ggml_blocks.h: where each field of ggml's blocks sits, and the small
** unpacking steps that the scalar dequantizer (ggml_dequantize.c) and the
** vector paths (ggml_x86_avx2.c, ggml_x86_avx512.c, ggml_arm_neon.c) share,
** so that every path reads a block the same way.  Offsets are those of
** ggml's block_<type> structs (ggml-common.h), which have no padding.
*/
#ifndef SQ_GGML_BLOCKS_H
#define SQ_GGML_BLOCKS_H

#include <stdint.h>
#include "kernels/byteorder.h"

/* Legacy blocks of 32: d (fp16), then m (fp16, the _1 types), then qh (4
** bytes, bit i = the fifth bit of weight i, the _5 types), then 16 bytes of
** nibbles: byte j holds weight j (low nibble) and weight j + 16 (high). */
enum {
  SQ_Q4_0_QS = 2,
  SQ_Q4_1_M = 2, SQ_Q4_1_QS = 4,
  SQ_Q5_0_QH = 2, SQ_Q5_0_QS = 6,
  SQ_Q5_1_M = 2, SQ_Q5_1_QH = 4, SQ_Q5_1_QS = 8,
  SQ_Q8_0_QS = 2
};

/* K-quant super-blocks of 256. */
enum {
  /* q2_K: 16 scale bytes (low nibble scale, high nibble min), 64 bytes of
  ** 2-bit codes, d, dmin. */
  SQ_Q2_K_SC = 0, SQ_Q2_K_QS = 16, SQ_Q2_K_D = 80, SQ_Q2_K_DMIN = 82,
  /* q3_K: 32 bytes of high bits, 64 bytes of 2-bit codes, 12 bytes of 16
  ** packed 6-bit scales, d. */
  SQ_Q3_K_HM = 0, SQ_Q3_K_QS = 32, SQ_Q3_K_SC = 96, SQ_Q3_K_D = 108,
  /* q4_K: d, dmin, 12 bytes of eight 6-bit scales and mins, 128 bytes of
  ** nibbles. */
  SQ_Q4_K_D = 0, SQ_Q4_K_DMIN = 2, SQ_Q4_K_SC = 4, SQ_Q4_K_QS = 16,
  /* q5_K: as q4_K with 32 bytes of fifth bits before the nibbles. */
  SQ_Q5_K_D = 0, SQ_Q5_K_DMIN = 2, SQ_Q5_K_SC = 4, SQ_Q5_K_QH = 16,
  SQ_Q5_K_QS = 48,
  /* q6_K: 128 bytes of low nibbles, 64 bytes of 2-bit high parts, 16 signed
  ** 8-bit scales, d. */
  SQ_Q6_K_QL = 0, SQ_Q6_K_QH = 128, SQ_Q6_K_SC = 192, SQ_Q6_K_D = 208
};

/* The sign, ternary and FP4 formats (ggml_quantize_lowbit.c has their
** layouts): where the fp16 scale of the ternary blocks sits, and the codes
** of the others. */
enum {
  SQ_Q1_0_QS = 2, SQ_Q2_0_QS = 2,
  SQ_TQ1_0_QS = 0, SQ_TQ1_0_QH = 48, SQ_TQ1_0_D = 52,
  SQ_TQ2_0_QS = 0, SQ_TQ2_0_D = 64,
  SQ_MXFP4_E = 0, SQ_MXFP4_QS = 1,
  SQ_NVFP4_D = 0, SQ_NVFP4_QS = 4
};

/* 1 when the fp16 at p is neither infinite nor NaN.  A block whose fp16
** fields are all finite dequantizes without a NaN or an infinity anywhere
** (every product and sum is far below FLT_MAX), so plain IEEE arithmetic
** gives the same bits on every host; other blocks take the slow path. */
static inline int sq_ggml_half_finite(const unsigned char *p) {
  return (sq_load_u16(p) & 0x7c00u) != 0x7c00u;
}

/* Sub-block j (0..7) of the 12 packed bytes of q4_K/q5_K: a 6-bit scale and
** a 6-bit min.  Sub-blocks 0-3 keep both in the low six bits of bytes j and
** j + 4; sub-blocks 4-7 have their low four bits in byte j + 4 (scale in the
** low nibble, min in the high one) and their top two bits in the spare top
** bits of bytes j - 4 (scale) and j (min). */
static inline void sq_ggml_k4_scale_min(int j, const unsigned char *s,
                                        unsigned *sc, unsigned *mn) {
  if (j < 4) {
    *sc = s[j] & 63u;
    *mn = s[j + 4] & 63u;
  } else {
    *sc = (s[j + 4] & 0xfu) | ((unsigned)(s[j - 4] >> 6) << 4);
    *mn = (unsigned)(s[j + 4] >> 4) | ((unsigned)(s[j] >> 6) << 4);
  }
}

/* Scale i (0..15) of q3_K, already minus 32 (so -32..31): the low four bits
** are the low nibble of byte i (i < 8) or the high nibble of byte i - 8; the
** top two bits are field i / 4 (two bits each, lowest first) of byte
** 8 + i % 4. */
static inline int sq_ggml_q3k_scale(int i, const unsigned char *s) {
  unsigned lo = i < 8 ? (s[i] & 0xfu) : (unsigned)(s[i - 8] >> 4);
  unsigned hi = (unsigned)(s[8 + (i & 3)] >> (2 * (i >> 2))) & 3u;
  return (int)(lo | (hi << 4)) - 32;
}

#endif
