/*
** ggml_x86_avx512.c: the AVX-512 (F, BW, VL, DQ) path's ggml block-format
** kernels (sq_ggml_kernels_avx512).  ggml_x86.h holds what both x86 paths
** share and states the rules; here is what AVX-512 does its own way:
**   1. dequantize q4_0 q4_1 q5_0 q5_1 q2_K q3_K q4_K q5_K: a sub-block (or
**      a legacy block) has at most 32 possible values, so its weights are a
**      table lookup: the values (code - 8) * d, code * d + m, dl * code -
**      ml, dl * (k - 4) are computed in a vector of 16 with ggml's
**      operations in ggml's order, and VPERMPS (VPERMT2PS for 32 entries)
**      picks one per weight by the low bits of its widened code byte
**      (tables repeat where the index carries bits above the code).  The
**      scales are unpacked in vectors (q3_K's and q4_K/q5_K's 6-bit packing,
**      q3_K's 12 bytes by a masked load so that nothing past the block is
**      read);
**   2. quantize: a block's codes are clamped as int32 (ggml's MIN) and
**      narrow with VPMOVDB (truncation, as scalar's low byte); the fifth
**      bits come from a mask register.
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq.h"
#include "kernels/ggml_iq2.h"
#include "kernels/ggml_kquants.h"
#include "kernels/ggml_blocks.h"
#include "kernels/ggml_fp4_body.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 16
#include "kernels/x86_width.h"
#include "kernels/ggml_x86.h"

SQ_AI vfloat lut(vint idx, vfloat t) { return _mm512_permutexvar_ps(idx, t); }
/* k, k + 1, ..., k + 15 as floats, and (i & m) + k for lane i: constant
** vectors (folded at compile time: computed in the block bodies, they must
** not cost a conversion per block). */
SQ_AI vfloat iota(float k) {
  return _mm512_setr_ps(k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6, k + 7, k + 8,
                        k + 9, k + 10, k + 11, k + 12, k + 13, k + 14, k + 15);
}
SQ_AI vfloat iota_and(int m, float k) {
  return _mm512_setr_ps((float)(0 & m) + k, (float)(1 & m) + k, (float)(2 & m) + k,
                        (float)(3 & m) + k, (float)(4 & m) + k, (float)(5 & m) + k,
                        (float)(6 & m) + k, (float)(7 & m) + k, (float)(8 & m) + k,
                        (float)(9 & m) + k, (float)(10 & m) + k, (float)(11 & m) + k,
                        (float)(12 & m) + k, (float)(13 & m) + k, (float)(14 & m) + k,
                        (float)(15 & m) + k);
}
/* dl * q - ml */
SQ_AI vfloat dqm_avx512(vfloat dl, vfloat q, vfloat ml) { return _mm512_sub_ps(_mm512_mul_ps(dl, q), ml); }

/* ---- legacy blocks of 32 --------------------------------------------------
** A nibble block has 16 (or, with the fifth bit, 32) possible codes, so its
** 32 weights are a table lookup: the table holds code * d (+ m) computed with
** the scalar operations, and vpermps picks by the low four bits of each
** widened byte (the high nibble after a shift); the fifth bit chooses
** between two tables through a lane mask taken straight from qh. */

SQ_AI void dq_block_q4_0_avx512(sq_cb b, sq_b o) {
  const vfloat codes = iota(-8);
  vfloat t = _mm512_mul_ps(codes, half_avx512(b));
  vint v = vi_load_u8(b + SQ_Q4_0_QS);
  vf_store(o, lut(v, t));
  vf_store(o + 64, lut(_mm512_srli_epi32(v, 4), t));
}

SQ_AI void dq_block_q4_1_avx512(sq_cb b, sq_b o) {
  const vfloat codes = iota(0);
  vfloat t = _mm512_add_ps(_mm512_mul_ps(codes, half_avx512(b)), half_avx512(b + SQ_Q4_1_M));
  vint v = vi_load_u8(b + SQ_Q4_1_QS);
  vf_store(o, lut(v, t));
  vf_store(o + 64, lut(_mm512_srli_epi32(v, 4), t));
}

/* Weights j of a fifth-bit block from tables t0 (bit clear) and t1 (set). */
SQ_AI void q5_store(sq_b o, vint v, uint32_t qh, vfloat t0, vfloat t1) {
  /* index = nibble | fifth bit << 4 into the 32 entries t0:t1 */
  const vint c16 = vi_set1(16);
  vint lo = _mm512_and_si512(v, vi_set1(15)), hi = _mm512_srli_epi32(v, 4);
  lo = _mm512_mask_or_epi32(lo, (__mmask16)(qh & 0xffffu), lo, c16);
  hi = _mm512_mask_or_epi32(hi, (__mmask16)(qh >> 16), hi, c16);
  vf_store(o, _mm512_permutex2var_ps(t0, lo, t1));
  vf_store(o + 64, _mm512_permutex2var_ps(t0, hi, t1));
}

SQ_AI void dq_block_q5_0_avx512(sq_cb b, sq_b o) {
  const vfloat c0 = iota(-16), c1 = iota(0);
  vfloat d = half_avx512(b);
  q5_store(o, vi_load_u8(b + SQ_Q5_0_QS), sq_load_u32(b + SQ_Q5_0_QH),
           _mm512_mul_ps(c0, d), _mm512_mul_ps(c1, d));
}

SQ_AI void dq_block_q5_1_avx512(sq_cb b, sq_b o) {
  const vfloat c0 = iota(0), c1 = iota(16);
  vfloat d = half_avx512(b), m = half_avx512(b + SQ_Q5_1_M);
  q5_store(o, vi_load_u8(b + SQ_Q5_1_QS), sq_load_u32(b + SQ_Q5_1_QH),
           _mm512_add_ps(_mm512_mul_ps(c0, d), m),
           _mm512_add_ps(_mm512_mul_ps(c1, d), m));
}

/* ---- K-quants ------------------------------------------------------------- */

SQ_AI void dq_block_q2_K_avx512(sq_cb b, sq_b o) {
  const vfloat c4 = iota_and(3, 0);
  /* dl[k] = d * (sc_k & 15), ml[k] = dmin * (sc_k >> 4) */
  float dl[16], ml[16];
  vint s = vi_load_u8(b + SQ_Q2_K_SC);
  _mm512_storeu_ps(dl, _mm512_mul_ps(half_avx512(b + SQ_Q2_K_D), vi_to_f(_mm512_and_si512(s, vi_set1(15)))));
  _mm512_storeu_ps(ml, _mm512_mul_ps(half_avx512(b + SQ_Q2_K_DMIN), vi_to_f(_mm512_srli_epi32(s, 4))));
  SQ_UNROLL(2)
  for (int h = 0; h < 2; h++)
    SQ_UNROLL(2)
    for (int sb = 0; sb < 2; sb++) {
      vint v = vi_load_u8(b + SQ_Q2_K_QS + 32 * h + 16 * sb);
      SQ_UNROLL(4)
      for (int g = 0; g < 4; g++) {
        /* a lookup in dl * (k & 3) - ml by bits 2g.. of each byte (the
        ** table repeats every four entries, so the bits above the code
        ** do not matter) */
        int k = 8 * h + 2 * g + sb;
        vfloat t = dqm_avx512(_mm512_set1_ps(dl[k]), c4, _mm512_set1_ps(ml[k]));
        vf_store(o + 4 * (128 * h + 32 * g + 16 * sb), lut(_mm512_srli_epi32(v, 2 * g), t));
      }
    }
}

/* The 16 scales of q3_K minus 32, times d (ggml's d_all * (scale - 32)). */
SQ_AI void q3k_scales_avx512(sq_cb s, vfloat d, float *dl) {
  vint v = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(0x0fff, s));
  /* low four bits: byte i & 15 (i < 8), byte i - 8 >> 4 (i >= 8) */
  vint lo = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7), v);
  lo = _mm512_and_si512(_mm512_srlv_epi32(lo, _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4)), vi_set1(15));
  /* top two bits: field i / 4 of byte 8 + i % 4 */
  vint hi = _mm512_permutexvar_epi32(_mm512_setr_epi32(8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11), v);
  hi = _mm512_and_si512(_mm512_srlv_epi32(hi, _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6)), vi_set1(3));
  vint sc = _mm512_sub_epi32(_mm512_or_si512(lo, _mm512_slli_epi32(hi, 4)), vi_set1(32));
  _mm512_storeu_ps(dl, _mm512_mul_ps(d, vi_to_f(sc)));
}

/* q3_K: a weight is dl * v, v = code - 4 (high bit clear) or code (set):
** a lookup in dl * ((k & 7) - 4) by k = code | high bit << 2. */
SQ_AI void dq_block_q3_K_avx512(sq_cb b, sq_b o) {
  const vfloat c8 = iota_and(7, -4);
  float dl[16];
  q3k_scales_avx512(b + SQ_Q3_K_SC, half_avx512(b + SQ_Q3_K_D), dl);
  SQ_UNROLL(2)
  for (int sb = 0; sb < 2; sb++) {
    vint hm = vi_load_u8(b + SQ_Q3_K_HM + 16 * sb);
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++) {
      vint v = vi_load_u8(b + SQ_Q3_K_QS + 32 * h + 16 * sb);
      SQ_UNROLL(4)
      for (int g = 0; g < 4; g++) {
        /* index: the code in bits 0-1, the high bit moved to bit 2 (bit
        ** 3 is whatever the shift brings: the table repeats every 8) */
        int bit = 4 * h + g;
        vint hb = bit >= 2 ? _mm512_srli_epi32(hm, bit - 2) : _mm512_slli_epi32(hm, 2 - bit);
        vint idx = _mm512_ternarylogic_epi32(vi_set1(3), _mm512_srli_epi32(v, 2 * g), hb, 0xca);
        vfloat t = _mm512_mul_ps(_mm512_set1_ps(dl[8 * h + 2 * g + sb]), c8);
        vf_store(o + 4 * (128 * h + 32 * g + 16 * sb), lut(idx, t));
      }
    }
  }
}

/* The eight 6-bit scales (lanes 0-7) and mins (8-15) of q4_K/q5_K, times d
** and dmin: lane j of the result is d * sc_j, lane 8 + j is dmin * mn_j. */
SQ_AI void k4_scales(sq_cb s, float d, float dmin, float *dm) {
  vint v = vi_load_u8(s);   /* bytes 0..11 are the scales; 12..15 the codes after */
  /* sc_j: byte j & 63 (j < 4), byte j + 4 & 15 | (byte j - 4 >> 6) << 4;
  ** mn_j: byte j + 4 & 63 (j < 4), byte j + 4 >> 4 | (byte j >> 6) << 4 */
  vint a = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11), v);
  a = _mm512_and_si512(_mm512_srlv_epi32(a, _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4)),
                       _mm512_setr_epi32(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 15, 15, 15, 15));
  vint t = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 4, 5, 6, 7), v);
  t = _mm512_maskz_slli_epi32(0xf0f0, _mm512_srli_epi32(t, 6), 4);
  vfloat f = _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(d), _mm512_set1_ps(dmin));
  _mm512_storeu_ps(dm, _mm512_mul_ps(f, vi_to_f(_mm512_or_si512(a, t))));
}

/* q4_K and q5_K (qh NULL for q4_K): each sub-block of 32 weights is a lookup
** in dl * code - ml, computed for the 16 (or 32) codes with the scalar
** operations. */
SQ_AI void dq_k4_block_avx512(sq_cb b, sq_cb qs, sq_cb qh, sq_b o) {
  float dm[16];
  k4_scales(b + SQ_Q4_K_SC, half1_avx512(b), half1_avx512(b + 2), dm);
  const vfloat c0 = iota(0), c1 = iota(16);
  __mmask16 hbits[2][8];
  if (qh) {
    /* bit j of lane l of plane p: qh byte 16p + l, bit j */
    SQ_UNROLL(2)
    for (int p = 0; p < 2; p++) {
      __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(qh + 16 * p));
      SQ_UNROLL(8)
      for (int j = 0; j < 8; j++)
        hbits[p][j] = _mm_test_epi8_mask(h, _mm_set1_epi8((char)(1 << j)));
    }
  }
  SQ_UNROLL(4)
  for (int g = 0; g < 4; g++) {
    vint v0 = vi_load_u8(qs + 32 * g), v1 = vi_load_u8(qs + 32 * g + 16);
    SQ_UNROLL(2)
    for (int hi = 0; hi < 2; hi++) {
      int j = 2 * g + hi;
      vfloat dl = _mm512_set1_ps(dm[j]), ml = _mm512_set1_ps(dm[8 + j]);
      vfloat t0 = dqm_avx512(dl, c0, ml);
      vint w0 = hi ? _mm512_srli_epi32(v0, 4) : v0, w1 = hi ? _mm512_srli_epi32(v1, 4) : v1;
      vfloat r0 = lut(w0, t0), r1 = lut(w1, t0);
      if (qh) {
        vfloat t1 = dqm_avx512(dl, c1, ml);
        r0 = _mm512_mask_permutexvar_ps(r0, hbits[0][j], w0, t1);
        r1 = _mm512_mask_permutexvar_ps(r1, hbits[1][j], w1, t1);
      }
      vf_store(o + 4 * (64 * g + 32 * hi), r0);
      vf_store(o + 4 * (64 * g + 32 * hi + 16), r1);
    }
  }
}

SQ_AI void dq_block_q4_K_avx512(sq_cb b, sq_b o) {
  dq_k4_block_avx512(b, b + SQ_Q4_K_QS, NULL, o);
}

SQ_AI void dq_block_q5_K_avx512(sq_cb b, sq_b o) {
  dq_k4_block_avx512(b, b + SQ_Q5_K_QS, b + SQ_Q5_K_QH, o);
}

/* ---- sign, ternary and FP4 formats ------------------------------------------
** q1_0: 16 weights are d or -d (d's bits, sign flipped: an integer select,
** as scalar's) by a mask register loaded straight from two bytes; q2_0,
** tq1_0 and tq2_0: a lookup in (q - 1) * d, q = 0..3 (tq1_0's trits use
** 0..2), computed with scalar's multiply (the table repeats every four
** entries, so the bits above the code do not matter); the FP4 formats: a
** lookup in the sixteen values v * scale. */

SQ_AI void dq_block_q1_0_avx512(sq_cb b, sq_b o) {
  vfloat pd = half_avx512(b), nd = vf_neg(pd);
  SQ_UNROLL(8)
  for (int k = 0; k < 8; k++)
    vf_store(o + 64 * k,
             _mm512_mask_blend_ps((__mmask16)sq_load_u16(b + SQ_Q1_0_QS + 2 * k), nd, pd));
}

/* (q - 1) * d for q = 0..3, four times: scalar's (float)(q - 1) * d. */
SQ_AI vfloat q2_table_avx512(sq_cb d) {
  return _mm512_mul_ps(_mm512_setr_ps(-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2),
                       half_avx512(d));
}

SQ_AI void dq_block_q2_0_avx512(sq_cb b, sq_b o) {
  const vint sh = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  vfloat t = q2_table_avx512(b);
  SQ_UNROLL(4)
  for (int i = 0; i < 4; i++) {
    /* weight 16i + k: bits 2k, 2k + 1 of bytes 4i..4i + 3 (little-endian) */
    vint v = _mm512_srlv_epi32(vi_set1((int)sq_load_u32(b + SQ_Q2_0_QS + 4 * i)), sh);
    vf_store(o + 64 * i, lut(v, t));
  }
}

SQ_AI void dq_block_tq2_0_avx512(sq_cb b, sq_b o) {
  vfloat t = q2_table_avx512(b + SQ_TQ2_0_D);
  SQ_UNROLL(2)
  for (int h = 0; h < 2; h++)
    SQ_UNROLL(2)
    for (int c = 0; c < 2; c++) {
      vint v = vi_load_u8(b + SQ_TQ2_0_QS + 32 * h + 16 * c);
      SQ_UNROLL(4)
      for (int l = 0; l < 4; l++)
        vf_store(o + 4 * (128 * h + 32 * l + 16 * c), lut(_mm512_srli_epi32(v, 2 * l), t));
    }
}

/* The index 0..2 of trit n of bytes v (below 256, one per lane) whose
** multiplier 3^n is m: ((v * 3^n) mod 256) * 3 >> 8.  v * 3^n < 2^16, so a
** 16-bit multiply of each lane's low half is exact (the high halves are 0). */
SQ_AI vint trit_avx512(vint v, vint m) {
  vint q = _mm512_and_si512(_mm512_mullo_epi16(v, m), vi_set1(255));
  return _mm512_srli_epi32(_mm512_add_epi32(q, _mm512_slli_epi32(q, 1)), 8);
}

SQ_AI void dq_block_tq1_0_avx512(sq_cb b, sq_b o) {
  static const int pow3[5] = {1, 3, 9, 27, 81};
  vfloat t = q2_table_avx512(b + SQ_TQ1_0_D);
  /* weights 0..159: five trits of bytes 0..31, 32 weights per trit */
  SQ_UNROLL(2)
  for (int c = 0; c < 2; c++) {
    vint v = vi_load_u8(b + SQ_TQ1_0_QS + 16 * c);
    SQ_UNROLL(5)
    for (int n = 0; n < 5; n++)
      vf_store(o + 4 * (32 * n + 16 * c), lut(trit_avx512(v, vi_set1(pow3[n])), t));
  }
  /* weights 160..239: bytes 32..47, 16 weights per trit */
  vint v = vi_load_u8(b + SQ_TQ1_0_QS + 32);
  SQ_UNROLL(5)
  for (int n = 0; n < 5; n++)
    vf_store(o + 4 * (160 + 16 * n), lut(trit_avx512(v, vi_set1(pow3[n])), t));
  /* weights 240..255: weight 240 + 4n + j is trit n of qh byte j */
  vint q4 = _mm512_cvtepu8_epi32(_mm_set1_epi32((int)sq_load_u32(b + SQ_TQ1_0_QH)));
  const vint m = _mm512_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27);
  vf_store(o + 4 * 240, lut(trit_avx512(q4, m), t));
}

SQ_AI void dq_block_mxfp4_avx512(sq_cb b, sq_b o) {
  /* scalar's sq_e2m1x2[c] * scale */
  vfloat t = _mm512_mul_ps(_mm512_loadu_ps(sq_e2m1x2), _mm512_set1_ps(sq_e8m0_half(b[SQ_MXFP4_E])));
  vint v = vi_load_u8(b + SQ_MXFP4_QS);
  vf_store(o, lut(v, t));
  vf_store(o + 64, lut(_mm512_srli_epi32(v, 4), t));
}

SQ_AI void dq_block_nvfp4_avx512(sq_cb b, sq_b o) {
  const vint sh = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4);
  vfloat e = _mm512_loadu_ps(sq_e2m1x2);
  SQ_UNROLL(4)
  for (int s = 0; s < 4; s++) {
    vfloat t = _mm512_mul_ps(e, _mm512_set1_ps(sq_ue4m3_half(b[SQ_NVFP4_D + s])));
    /* lanes 0-7: the low nibbles of the sub-block's 8 bytes, 8-15: the high */
    __m128i q = _mm_loadl_epi64((const __m128i *)(const void *)(b + SQ_NVFP4_QS + 8 * s));
    vint v = _mm512_srlv_epi32(_mm512_cvtepu8_epi32(_mm_unpacklo_epi64(q, q)), sh);
    vf_store(o + 64 * s, lut(v, t));
  }
}

/* ---- quantize: a block's codes as bytes ------------------------------------ */

SQ_AI void store_codes_avx512(sq_b o, sq_ggml_type t, const vint *c,
                              size_t qs, size_t qh) {
  vint c0 = c[0], c1 = c[1];
  if (t == SQ_GGML_Q8_0) {
    _mm_storeu_si128((__m128i *)(void *)(o + SQ_Q8_0_QS), _mm512_cvtepi32_epi8(c0));
    _mm_storeu_si128((__m128i *)(void *)(o + SQ_Q8_0_QS + 16), _mm512_cvtepi32_epi8(c1));
    return;
  }
  /* ggml's MIN(15 or 31, code) */
  if (t == SQ_GGML_Q4_0 || t == SQ_GGML_Q4_1) {
    c0 = _mm512_min_epi32(c0, vi_set1(15));
    c1 = _mm512_min_epi32(c1, vi_set1(15));
  }
  if (t == SQ_GGML_Q5_0) {
    c0 = _mm512_min_epi32(c0, vi_set1(31));
    c1 = _mm512_min_epi32(c1, vi_set1(31));
  }
  vint n0 = c0, n1 = c1;
  if (t == SQ_GGML_Q5_0 || t == SQ_GGML_Q5_1) {
    n0 = _mm512_and_si512(c0, vi_set1(15));   /* q4 codes are clamped to 15 */
    n1 = _mm512_and_si512(c1, vi_set1(15));
  }
  vint q = _mm512_or_si512(n0, _mm512_slli_epi32(n1, 4));
  _mm_storeu_si128((__m128i *)(void *)(o + qs), _mm512_cvtepi32_epi8(q));
  if (t == SQ_GGML_Q5_0 || t == SQ_GGML_Q5_1)
    sq_store_u32(o + qh, (uint32_t)_mm512_test_epi32_mask(c0, vi_set1(16)) |
                             (uint32_t)_mm512_test_epi32_mask(c1, vi_set1(16)) << 16);
}

/* mxfp4 and nvfp4: the scalar bodies (ggml_fp4_body.h), whose code search
** the compiler vectorizes with this path's registers. */
static void q_mxfp4_avx512(const void *x, size_t n, const void *importance,
                        void *blocks) {
  (void)importance;
  sq_fp4_mxfp4_row(x, n, blocks);
}
static void q_nvfp4_avx512(const void *x, size_t n, const void *importance,
                        void *blocks) {
  (void)importance;
  sq_fp4_nvfp4_row(x, n, blocks);
}

#include "kernels/x86_width_end.h"

/* Designated: a type not named here runs the scalar kernel
** (sq_ggml_quantizer); ext/catalogue.toml lists the paths of each. */
const sq_ggml_kernels sq_ggml_kernels_avx512 = {
  .own_quantize = {
    [SQ_GGML_Q4_0] = q_q4_0_avx512,
    [SQ_GGML_Q4_1] = q_q4_1_avx512,
    [SQ_GGML_Q5_0] = q_q5_0_avx512,
    [SQ_GGML_Q5_1] = q_q5_1_avx512,
    [SQ_GGML_Q8_0] = q_q8_0_avx512,
    [SQ_GGML_Q2_K] = sq_ggml_quantize_q2_K_avx512,
    [SQ_GGML_Q3_K] = sq_ggml_quantize_q3_K_avx512,
    [SQ_GGML_Q4_K] = sq_ggml_quantize_q4_K_avx512,
    [SQ_GGML_Q5_K] = sq_ggml_quantize_q5_K_avx512,
    [SQ_GGML_Q6_K] = sq_ggml_quantize_q6_K_avx512,
    [SQ_GGML_MXFP4] = q_mxfp4_avx512,
    [SQ_GGML_NVFP4] = q_nvfp4_avx512,
    [SQ_GGML_IQ2_XXS] = sq_ggml_quantize_iq2_xxs_avx512,
    [SQ_GGML_IQ2_XS] = sq_ggml_quantize_iq2_xs_avx512,
    [SQ_GGML_IQ2_S] = sq_ggml_quantize_iq2_s_avx512,
    [SQ_GGML_IQ1_S] = sq_ggml_quantize_iq1_s_avx512,
    [SQ_GGML_IQ1_M] = sq_ggml_quantize_iq1_m_avx512,
  },
  .own_dequantize = {
    [SQ_GGML_Q4_0] = dq_q4_0_avx512,
    [SQ_GGML_Q4_1] = dq_q4_1_avx512,
    [SQ_GGML_Q5_0] = dq_q5_0_avx512,
    [SQ_GGML_Q5_1] = dq_q5_1_avx512,
    [SQ_GGML_Q8_0] = dq_q8_0_avx512,
    [SQ_GGML_Q2_K] = dq_q2_K_avx512,
    [SQ_GGML_Q3_K] = dq_q3_K_avx512,
    [SQ_GGML_Q4_K] = dq_q4_K_avx512,
    [SQ_GGML_Q5_K] = dq_q5_K_avx512,
    [SQ_GGML_Q6_K] = dq_q6_K_avx512,
    [SQ_GGML_Q1_0] = dq_q1_0_avx512,
    [SQ_GGML_Q2_0] = dq_q2_0_avx512,
    [SQ_GGML_TQ1_0] = dq_tq1_0_avx512,
    [SQ_GGML_TQ2_0] = dq_tq2_0_avx512,
    [SQ_GGML_MXFP4] = dq_mxfp4_avx512,
    [SQ_GGML_NVFP4] = dq_nvfp4_avx512,
    [SQ_GGML_IQ3_XXS] = sq_ggml_dequantize_iq3_xxs_avx2,
    [SQ_GGML_IQ4_NL] = sq_ggml_dequantize_iq4_nl_avx2,
    [SQ_GGML_IQ3_S] = sq_ggml_dequantize_iq3_s_avx2,
    [SQ_GGML_IQ4_XS] = sq_ggml_dequantize_iq4_xs_avx2,
    [SQ_GGML_IQ2_XXS] = sq_ggml_dequantize_iq2_xxs_avx512,
    [SQ_GGML_IQ2_XS] = sq_ggml_dequantize_iq2_xs_avx512,
    [SQ_GGML_IQ2_S] = sq_ggml_dequantize_iq2_s_avx512,
    [SQ_GGML_IQ1_S] = sq_ggml_dequantize_iq1_s_avx512,
    [SQ_GGML_IQ1_M] = sq_ggml_dequantize_iq1_m_avx512,
  },
  .own_quantize_checked = {
    [SQ_GGML_Q4_0] = qc_q4_0_avx512,
    [SQ_GGML_Q4_1] = qc_q4_1_avx512,
    [SQ_GGML_Q5_0] = qc_q5_0_avx512,
    [SQ_GGML_Q5_1] = qc_q5_1_avx512,
    [SQ_GGML_Q8_0] = qc_q8_0_avx512,
  },
};


#else
typedef int sq_unused_ggml_avx512;
#endif
