/*
** ggml_x86_avx512.c: the AVX-512 (F, BW, VL, DQ) path's ggml block-format
** kernels (sq_ggml_kernels_avx512).
**
** Every function writes exactly the bytes the scalar kernels write
** (ggml_dequantize.c, ggml_quantize_legacy.c), for every input.  How, kernel
** by kernel:
**   1. dequantize, every type: a block whose fp16 fields are not all finite
**      goes to the scalar routine (which writes x86's NaN bits); in every
**      other block no step gives a NaN, an infinity or a subnormal, so IEEE
**      arithmetic fixes each bit.  Where a sub-block (or a legacy block) has
**      at most 32 possible values they are a table lookup: the values
**      (code - 8) * d, code * d + m, dl * code - ml, dl * (k - 4) are
**      computed in a vector of 16 with ggml's operations in ggml's order,
**      and VPERMPS (VPERMT2PS for 32 entries) picks one per weight by the
**      low bits of its widened code byte (tables repeat where the index
**      carries bits above the code).  q8_0 and q6_K are unpacked as
**      integers, converted exactly and multiplied in ggml's order (d * sc
**      first, then * q).  The scales are unpacked in vectors (q3_K's and
**      q4_K/q5_K's 6-bit packing, q3_K's 12 bytes by a masked load so that
**      nothing past the block is read);
**   2. quantize, q4_0 q4_1 q5_0 q5_1 q8_0 without importance (with it they
**      are scalar's; the K-quants are ggml_kquants_x86_avx512.c's):
**      as in ggml_x86_avx2.c, with sixteen blocks per pass, VPMOVDB
**      narrowing (truncation, as scalar's low byte)
**      and mask registers for the fifth bits.  The same rules make it exact:
**      ggml's first extreme settled from the max and min or by the scalar
**      routine, blocks with subnormal or infinite d and the MXCSR.DAZ mode
**      to scalar, codes in range otherwise;
**   3. tails (fewer than sixteen blocks) go to the scalar routine.
** Compiled with a target pragma, never -mavx512f: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_kquants.h"
#include "kernels/ggml_blocks.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(                                                \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c"))), \
    apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")
#endif

typedef __m512i vi16;
typedef __m512 vf16;

/* Loops over registers and sub-blocks unroll, so that vectors stay in
** registers and shift counts and masks become constants. */
#define SQ_PRAGMA(x) _Pragma(#x)
#define SQ_UNROLL(n) SQ_PRAGMA(GCC unroll n)

/* 16 bytes at p widened to int32 lanes. */
SQ_AI vi16 u8x16(sq_cb p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)); }
SQ_AI vi16 i8x16(sq_cb p) { return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)); }
SQ_AI vi16 k32_avx512(int v) { return _mm512_set1_epi32(v); }
SQ_AI vf16 cvt_avx512(vi16 v) { return _mm512_cvtepi32_ps(v); }
SQ_AI void st_avx512(sq_b p, vf16 v) { _mm512_storeu_ps((void *)p, v); }
SQ_AI vf16 lut(vi16 idx, vf16 t) { return _mm512_permutexvar_ps(idx, t); }
/* The fp16 at p (F16C: exact, as sq_ggml_half for the finite values the
** fast paths see). */
SQ_AI float half1_avx512(sq_cb p) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(sq_load_u16(p))));
}
SQ_AI vf16 half16(sq_cb p) { return _mm512_set1_ps(half1_avx512(p)); }
/* 0, 1, ..., 15 as floats, and shifted by k. */
SQ_AI vf16 iota(int k) {
  return cvt_avx512(_mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), k32_avx512(k)));
}
/* dl * q - ml */
SQ_AI vf16 dqm_avx512(vf16 dl, vf16 q, vf16 ml) { return _mm512_sub_ps(_mm512_mul_ps(dl, q), ml); }

/* ---- legacy blocks of 32 --------------------------------------------------
** A nibble block has 16 (or, with the fifth bit, 32) possible codes, so its
** 32 weights are a table lookup: the table holds code * d (+ m) computed with
** the scalar operations, and vpermps picks by the low four bits of each
** widened byte (the high nibble after a shift); the fifth bit chooses
** between two tables through a lane mask taken straight from qh. */

static void dq_q8_0_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 34, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q8_0(b, 32, o);
      continue;
    }
    vf16 d = half16(b);
    st_avx512(o, _mm512_mul_ps(cvt_avx512(i8x16(b + SQ_Q8_0_QS)), d));
    st_avx512(o + 64, _mm512_mul_ps(cvt_avx512(i8x16(b + SQ_Q8_0_QS + 16)), d));
  }
}

static void dq_q4_0_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  const vf16 codes = iota(-8);
  for (size_t i = 0; i < n / 32; i++, b += 18, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q4_0(b, 32, o);
      continue;
    }
    vf16 t = _mm512_mul_ps(codes, half16(b));
    vi16 v = u8x16(b + SQ_Q4_0_QS);
    st_avx512(o, lut(v, t));
    st_avx512(o + 64, lut(_mm512_srli_epi32(v, 4), t));
  }
}

static void dq_q4_1_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  const vf16 codes = iota(0);
  for (size_t i = 0; i < n / 32; i++, b += 20, o += 128) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + SQ_Q4_1_M)) {
      sq_ggml_dequantize_q4_1(b, 32, o);
      continue;
    }
    vf16 t = _mm512_add_ps(_mm512_mul_ps(codes, half16(b)), half16(b + SQ_Q4_1_M));
    vi16 v = u8x16(b + SQ_Q4_1_QS);
    st_avx512(o, lut(v, t));
    st_avx512(o + 64, lut(_mm512_srli_epi32(v, 4), t));
  }
}

/* Weights j of a fifth-bit block from tables t0 (bit clear) and t1 (set). */
SQ_AI void q5_store(sq_b o, vi16 v, uint32_t qh, vf16 t0, vf16 t1) {
  /* index = nibble | fifth bit << 4 into the 32 entries t0:t1 */
  const vi16 c16 = k32_avx512(16);
  vi16 lo = _mm512_and_si512(v, k32_avx512(15)), hi = _mm512_srli_epi32(v, 4);
  lo = _mm512_mask_or_epi32(lo, (__mmask16)(qh & 0xffffu), lo, c16);
  hi = _mm512_mask_or_epi32(hi, (__mmask16)(qh >> 16), hi, c16);
  st_avx512(o, _mm512_permutex2var_ps(t0, lo, t1));
  st_avx512(o + 64, _mm512_permutex2var_ps(t0, hi, t1));
}

static void dq_q5_0_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  const vf16 c0 = iota(-16), c1 = iota(0);
  for (size_t i = 0; i < n / 32; i++, b += 22, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q5_0(b, 32, o);
      continue;
    }
    vf16 d = half16(b);
    q5_store(o, u8x16(b + SQ_Q5_0_QS), sq_load_u32(b + SQ_Q5_0_QH),
             _mm512_mul_ps(c0, d), _mm512_mul_ps(c1, d));
  }
}

static void dq_q5_1_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  const vf16 c0 = iota(0), c1 = iota(16);
  for (size_t i = 0; i < n / 32; i++, b += 24, o += 128) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + SQ_Q5_1_M)) {
      sq_ggml_dequantize_q5_1(b, 32, o);
      continue;
    }
    vf16 d = half16(b), m = half16(b + SQ_Q5_1_M);
    q5_store(o, u8x16(b + SQ_Q5_1_QS), sq_load_u32(b + SQ_Q5_1_QH),
             _mm512_add_ps(_mm512_mul_ps(c0, d), m),
             _mm512_add_ps(_mm512_mul_ps(c1, d), m));
  }
}

/* ---- K-quants ------------------------------------------------------------- */

static void dq_q2_K_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  const vf16 c4 = cvt_avx512(_mm512_and_si512(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), k32_avx512(3)));
  for (size_t i = 0; i < n / 256; i++, b += 84, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q2_K_D) || !sq_ggml_half_finite(b + SQ_Q2_K_DMIN)) {
      sq_ggml_dequantize_q2_K(b, 256, o);
      continue;
    }
    /* dl[k] = d * (sc_k & 15), ml[k] = dmin * (sc_k >> 4) */
    float dl[16], ml[16];
    vi16 s = u8x16(b + SQ_Q2_K_SC);
    _mm512_storeu_ps(dl, _mm512_mul_ps(half16(b + SQ_Q2_K_D), cvt_avx512(_mm512_and_si512(s, k32_avx512(15)))));
    _mm512_storeu_ps(ml, _mm512_mul_ps(half16(b + SQ_Q2_K_DMIN), cvt_avx512(_mm512_srli_epi32(s, 4))));
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++)
      SQ_UNROLL(2)
      for (int sb = 0; sb < 2; sb++) {
        vi16 v = u8x16(b + SQ_Q2_K_QS + 32 * h + 16 * sb);
        SQ_UNROLL(4)
        for (int g = 0; g < 4; g++) {
          /* a lookup in dl * (k & 3) - ml by bits 2g.. of each byte (the
          ** table repeats every four entries, so the bits above the code
          ** do not matter) */
          int k = 8 * h + 2 * g + sb;
          vf16 t = dqm_avx512(_mm512_set1_ps(dl[k]), c4, _mm512_set1_ps(ml[k]));
          st_avx512(o + 4 * (128 * h + 32 * g + 16 * sb), lut(_mm512_srli_epi32(v, 2 * g), t));
        }
      }
  }
}

/* The 16 scales of q3_K minus 32, times d (ggml's d_all * (scale - 32)). */
SQ_AI void q3k_scales_avx512(sq_cb s, vf16 d, float *dl) {
  vi16 v = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(0x0fff, s));
  /* low four bits: byte i & 15 (i < 8), byte i - 8 >> 4 (i >= 8) */
  vi16 lo = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7), v);
  lo = _mm512_and_si512(_mm512_srlv_epi32(lo, _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4)), k32_avx512(15));
  /* top two bits: field i / 4 of byte 8 + i % 4 */
  vi16 hi = _mm512_permutexvar_epi32(_mm512_setr_epi32(8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11), v);
  hi = _mm512_and_si512(_mm512_srlv_epi32(hi, _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6)), k32_avx512(3));
  vi16 sc = _mm512_sub_epi32(_mm512_or_si512(lo, _mm512_slli_epi32(hi, 4)), k32_avx512(32));
  _mm512_storeu_ps(dl, _mm512_mul_ps(d, cvt_avx512(sc)));
}

/* q3_K: a weight is dl * v, v = code - 4 (high bit clear) or code (set):
** a lookup in dl * ((k & 7) - 4) by k = code | high bit << 2. */
static void dq_q3_K_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  const vf16 c8 = cvt_avx512(_mm512_sub_epi32(_mm512_and_si512(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), k32_avx512(7)), k32_avx512(4)));
  for (size_t i = 0; i < n / 256; i++, b += 110, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q3_K_D)) {
      sq_ggml_dequantize_q3_K(b, 256, o);
      continue;
    }
    float dl[16];
    q3k_scales_avx512(b + SQ_Q3_K_SC, half16(b + SQ_Q3_K_D), dl);
    SQ_UNROLL(2)
    for (int sb = 0; sb < 2; sb++) {
      vi16 hm = u8x16(b + SQ_Q3_K_HM + 16 * sb);
      SQ_UNROLL(2)
      for (int h = 0; h < 2; h++) {
        vi16 v = u8x16(b + SQ_Q3_K_QS + 32 * h + 16 * sb);
        SQ_UNROLL(4)
        for (int g = 0; g < 4; g++) {
          /* index: the code in bits 0-1, the high bit moved to bit 2 (bit
          ** 3 is whatever the shift brings: the table repeats every 8) */
          int bit = 4 * h + g;
          vi16 hb = bit >= 2 ? _mm512_srli_epi32(hm, bit - 2) : _mm512_slli_epi32(hm, 2 - bit);
          vi16 idx = _mm512_ternarylogic_epi32(k32_avx512(3), _mm512_srli_epi32(v, 2 * g), hb, 0xca);
          vf16 t = _mm512_mul_ps(_mm512_set1_ps(dl[8 * h + 2 * g + sb]), c8);
          st_avx512(o + 4 * (128 * h + 32 * g + 16 * sb), lut(idx, t));
        }
      }
    }
  }
}

/* The eight 6-bit scales (lanes 0-7) and mins (8-15) of q4_K/q5_K, times d
** and dmin: lane j of the result is d * sc_j, lane 8 + j is dmin * mn_j. */
SQ_AI void k4_scales(sq_cb s, float d, float dmin, float *dm) {
  vi16 v = u8x16(s);   /* bytes 0..11 are the scales; 12..15 the codes after */
  /* sc_j: byte j & 63 (j < 4), byte j + 4 & 15 | (byte j - 4 >> 6) << 4;
  ** mn_j: byte j + 4 & 63 (j < 4), byte j + 4 >> 4 | (byte j >> 6) << 4 */
  vi16 a = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11), v);
  a = _mm512_and_si512(_mm512_srlv_epi32(a, _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4)),
                       _mm512_setr_epi32(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 15, 15, 15, 15));
  vi16 t = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 4, 5, 6, 7), v);
  t = _mm512_maskz_slli_epi32(0xf0f0, _mm512_srli_epi32(t, 6), 4);
  vf16 f = _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(d), _mm512_set1_ps(dmin));
  _mm512_storeu_ps(dm, _mm512_mul_ps(f, cvt_avx512(_mm512_or_si512(a, t))));
}

/* q4_K and q5_K (qh NULL for q4_K): each sub-block of 32 weights is a lookup
** in dl * code - ml, computed for the 16 (or 32) codes with the scalar
** operations. */
SQ_AI void dq_k4_block_avx512(sq_cb b, sq_cb qs, sq_cb qh, sq_b o) {
  float dm[16];
  k4_scales(b + SQ_Q4_K_SC, half1_avx512(b), half1_avx512(b + 2), dm);
  const vf16 c0 = iota(0), c1 = iota(16);
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
    vi16 v0 = u8x16(qs + 32 * g), v1 = u8x16(qs + 32 * g + 16);
    SQ_UNROLL(2)
    for (int hi = 0; hi < 2; hi++) {
      int j = 2 * g + hi;
      vf16 dl = _mm512_set1_ps(dm[j]), ml = _mm512_set1_ps(dm[8 + j]);
      vf16 t0 = dqm_avx512(dl, c0, ml);
      vi16 w0 = hi ? _mm512_srli_epi32(v0, 4) : v0, w1 = hi ? _mm512_srli_epi32(v1, 4) : v1;
      vf16 r0 = lut(w0, t0), r1 = lut(w1, t0);
      if (qh) {
        vf16 t1 = dqm_avx512(dl, c1, ml);
        r0 = _mm512_mask_permutexvar_ps(r0, hbits[0][j], w0, t1);
        r1 = _mm512_mask_permutexvar_ps(r1, hbits[1][j], w1, t1);
      }
      st_avx512(o + 4 * (64 * g + 32 * hi), r0);
      st_avx512(o + 4 * (64 * g + 32 * hi + 16), r1);
    }
  }
}

static void dq_q4_K_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 144, o += 1024) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + 2)) {
      sq_ggml_dequantize_q4_K(b, 256, o);
      continue;
    }
    dq_k4_block_avx512(b, b + SQ_Q4_K_QS, NULL, o);
  }
}

static void dq_q5_K_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 176, o += 1024) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + 2)) {
      sq_ggml_dequantize_q5_K(b, 256, o);
      continue;
    }
    dq_k4_block_avx512(b, b + SQ_Q5_K_QS, b + SQ_Q5_K_QH, o);
  }
}

static void dq_q6_K_avx512(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 210, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q6_K_D)) {
      sq_ggml_dequantize_q6_K(b, 256, o);
      continue;
    }
    /* ds[k] = d * (float)scale k, as ggml's d * sc[is] */
    float ds[16];
    _mm512_storeu_ps(ds, _mm512_mul_ps(half16(b + SQ_Q6_K_D), cvt_avx512(i8x16(b + SQ_Q6_K_SC))));
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++) {
      sq_cb ql = b + SQ_Q6_K_QL + 64 * h, qh = b + SQ_Q6_K_QH + 32 * h;
      SQ_UNROLL(2)
      for (int c = 0; c < 2; c++) {
        vi16 la = u8x16(ql + 16 * c), lb = u8x16(ql + 32 + 16 * c), hv = u8x16(qh + 16 * c);
        const vi16 m15 = k32_avx512(15), m48 = k32_avx512(48), e32 = k32_avx512(32);
        vi16 q1 = _mm512_or_si512(_mm512_and_si512(la, m15), _mm512_and_si512(_mm512_slli_epi32(hv, 4), m48));
        vi16 q2 = _mm512_or_si512(_mm512_and_si512(lb, m15), _mm512_and_si512(_mm512_slli_epi32(hv, 2), m48));
        vi16 q3 = _mm512_or_si512(_mm512_srli_epi32(la, 4), _mm512_and_si512(hv, m48));
        vi16 q4 = _mm512_or_si512(_mm512_srli_epi32(lb, 4), _mm512_and_si512(_mm512_srli_epi32(hv, 2), m48));
        const float *sc = ds + 8 * h + c;
        sq_b out = o + 4 * (128 * h + 16 * c);
        st_avx512(out, _mm512_mul_ps(_mm512_set1_ps(sc[0]), cvt_avx512(_mm512_sub_epi32(q1, e32))));
        st_avx512(out + 128, _mm512_mul_ps(_mm512_set1_ps(sc[2]), cvt_avx512(_mm512_sub_epi32(q2, e32))));
        st_avx512(out + 256, _mm512_mul_ps(_mm512_set1_ps(sc[4]), cvt_avx512(_mm512_sub_epi32(q3, e32))));
        st_avx512(out + 384, _mm512_mul_ps(_mm512_set1_ps(sc[6]), cvt_avx512(_mm512_sub_epi32(q4, e32))));
      }
    }
  }
}

/* ---- quantize, legacy types without importance -----------------------------
** As in ggml_x86_avx2.c, with sixteen blocks (512 weights) per pass: pass 1
** folds each block's two vectors into lane-wise max and min, a
** transpose-reduce gives lane b = block b's extreme, and d, id and the fp16
** fields of the sixteen blocks are one vector each, computed with scalar's
** divisions.  ggml's choice of extreme: q4_0/q5_0 take the max when it
** exceeds -min, the min when -min exceeds the max, +0 for an all-zero block,
** and send a tie between +a and -a (a > 0) to the scalar routine, which
** scans; q4_1/q5_1 give a zero extreme the sign of the block's first zero.
** With |d| zero or normal every code is in range, so the truncating
** conversion and the clamps give scalar's bytes; blocks whose d is subnormal
** or infinite go to the scalar routine.  Codes narrow with VPMOVDB
** (truncation, as scalar's low byte). */

/* lane b = the max (is_max) or min of the sixteen lanes of v[b] */
SQ_AI vf16 reduce16(vf16 v[16], int is_max) {
#define SQ_RED(a, b) (is_max ? _mm512_max_ps(a, b) : _mm512_min_ps(a, b))
  vf16 r[8], s[4], t[2];
  SQ_UNROLL(8)
  for (int k = 0; k < 8; k++)
    r[k] = SQ_RED(_mm512_unpacklo_ps(v[2 * k], v[2 * k + 1]),
                  _mm512_unpackhi_ps(v[2 * k], v[2 * k + 1]));
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) {
    __m512d a = _mm512_castps_pd(r[2 * k]), c = _mm512_castps_pd(r[2 * k + 1]);
    s[k] = SQ_RED(_mm512_castpd_ps(_mm512_unpacklo_pd(a, c)),
                  _mm512_castpd_ps(_mm512_unpackhi_pd(a, c)));
  }
  SQ_UNROLL(2)
  for (int k = 0; k < 2; k++)
    t[k] = SQ_RED(_mm512_shuffle_f32x4(s[2 * k], s[2 * k + 1], 0x88),
                  _mm512_shuffle_f32x4(s[2 * k], s[2 * k + 1], 0xdd));
  return SQ_RED(_mm512_shuffle_f32x4(t[0], t[1], 0x88),
                _mm512_shuffle_f32x4(t[0], t[1], 0xdd));
#undef SQ_RED
}

SQ_AI vf16 ldx_avx512(sq_cb p) { return _mm512_loadu_ps((const void *)p); }

/* The sign bit of the first zero among the 32 floats at p (one exists). */
static uint32_t first_zero_sign_avx512(sq_cb p) {
  vf16 a = ldx_avx512(p), c = ldx_avx512(p + 64);
  uint32_t z = (uint32_t)_mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_EQ_OQ) |
               (uint32_t)_mm512_cmp_ps_mask(c, _mm512_setzero_ps(), _CMP_EQ_OQ) << 16;
  uint32_t s = (uint32_t)_mm512_movepi32_mask(_mm512_castps_si512(a)) |
               (uint32_t)_mm512_movepi32_mask(_mm512_castps_si512(c)) << 16;
  return ((s >> __builtin_ctz(z)) & 1u) << 31;
}

/* C's roundf of t (|t| < 2^23) as int32: truncate, then step away from zero
** when the exact fraction is at least one half. */
SQ_AI vi16 round_away_avx512(vf16 t) {
  vi16 i = _mm512_cvttps_epi32(t);
  vf16 f = _mm512_sub_ps(t, cvt_avx512(i));
  i = _mm512_mask_add_epi32(i, _mm512_cmp_ps_mask(f, _mm512_set1_ps(0.5f), _CMP_GE_OQ), i, k32_avx512(1));
  return _mm512_mask_sub_epi32(i, _mm512_cmp_ps_mask(f, _mm512_set1_ps(-0.5f), _CMP_LE_OQ), i, k32_avx512(1));
}

typedef void (*sq_qfn)(const void *, size_t, const void *, void *);

SQ_AI void q_group_avx512(sq_cb x, sq_b out, sq_ggml_type t, size_t bytes, sq_qfn scalar) {
  const int sym = t == SQ_GGML_Q4_0 || t == SQ_GGML_Q5_0;
  const int asym = t == SQ_GGML_Q4_1 || t == SQ_GGML_Q5_1;
  vf16 mx[16], mn[16];
  SQ_UNROLL(16)
  for (int b = 0; b < 16; b++) {
    /* the hardware prefetcher alone leaves this loop waiting on memory
    ** (prefetches never fault: addresses past the end are fine; computed as
    ** integers, since C has no pointer past one-past-the-end) */
    _mm_prefetch((const char *)((uintptr_t)x + 4096 + 128 * b), _MM_HINT_T0);
    _mm_prefetch((const char *)((uintptr_t)x + 4096 + 128 * b + 64), _MM_HINT_T0);
    vf16 v0 = ldx_avx512(x + 128 * b), v1 = ldx_avx512(x + 128 * b + 64);
    if (t == SQ_GGML_Q8_0) {
      v0 = _mm512_abs_ps(v0);
      v1 = _mm512_abs_ps(v1);
    } else {
      mn[b] = _mm512_min_ps(v0, v1);
    }
    mx[b] = _mm512_max_ps(v0, v1);
  }
  vf16 hi = reduce16(mx, 1), lo = t == SQ_GGML_Q8_0 ? hi : reduce16(mn, 0);
  const vf16 zero = _mm512_setzero_ps();
  __mmask16 bad = 0;
  vf16 d, m = zero;
  if (t == SQ_GGML_Q8_0) {
    d = _mm512_div_ps(hi, _mm512_set1_ps(127.0f));
  } else if (sym) {
    vf16 neglo = _mm512_sub_ps(zero, lo);
    __mmask16 pos = _mm512_cmp_ps_mask(hi, neglo, _CMP_GT_OQ);   /* the max wins */
    __mmask16 tie = _mm512_cmp_ps_mask(hi, neglo, _CMP_EQ_OQ);
    __mmask16 allz = _mm512_cmp_ps_mask(hi, zero, _CMP_EQ_OQ) &
                     _mm512_cmp_ps_mask(lo, zero, _CMP_EQ_OQ);
    bad = tie & (__mmask16)~allz;
    vf16 ext = _mm512_maskz_mov_ps((__mmask16)~allz, _mm512_mask_blend_ps(pos, lo, hi));
    d = _mm512_div_ps(ext, _mm512_set1_ps(t == SQ_GGML_Q4_0 ? -8.0f : -16.0f));
  } else {
    __mmask16 z = _mm512_cmp_ps_mask(hi, zero, _CMP_EQ_OQ) |
                  _mm512_cmp_ps_mask(lo, zero, _CMP_EQ_OQ);
    if (z) {
      float h[16], l[16];
      _mm512_storeu_ps(h, hi);
      _mm512_storeu_ps(l, lo);
      for (int b = 0; b < 16; b++)
        if (z >> b & 1) {
          float s = sq_bits_f32(first_zero_sign_avx512(x + 128 * b));
          if (h[b] == 0.0f) h[b] = s;
          if (l[b] == 0.0f) l[b] = s;
        }
      hi = _mm512_loadu_ps(h);
      lo = _mm512_loadu_ps(l);
    }
    m = lo;
    d = _mm512_div_ps(_mm512_sub_ps(hi, lo), _mm512_set1_ps(t == SQ_GGML_Q4_1 ? 15.0f : 31.0f));
  }
  /* id = d ? 1/d : 0; d must be 0 or normal */
  __mmask16 dz = _mm512_cmp_ps_mask(d, zero, _CMP_EQ_OQ);
  vf16 id = _mm512_maskz_div_ps((__mmask16)~dz, _mm512_set1_ps(1.0f), d);
  vf16 ad = _mm512_abs_ps(d);
  __mmask16 ok = _mm512_cmp_ps_mask(ad, _mm512_set1_ps(1.17549435e-38f), _CMP_GE_OQ) &
                 _mm512_cmp_ps_mask(ad, _mm512_set1_ps(3.40282347e38f), _CMP_LE_OQ);
  bad |= (__mmask16)~(ok | dz);
  float idv[16], mv[16];
  uint16_t dh[16], mh[16];
  _mm512_storeu_ps(idv, id);
  _mm512_storeu_ps(mv, m);
  _mm256_storeu_si256((__m256i *)(void *)dh, _mm512_cvtps_ph(d, 0));
  _mm256_storeu_si256((__m256i *)(void *)mh, _mm512_cvtps_ph(m, 0));
  SQ_UNROLL(16)
  for (int b = 0; b < 16; b++) {
    sq_cb p = x + 128 * b;
    sq_b o = out + bytes * b;
    if (bad >> b & 1) {
      scalar(p, 32, NULL, o);
      continue;
    }
    vf16 vid = _mm512_set1_ps(idv[b]), vm = _mm512_set1_ps(mv[b]);
    vi16 c[2];
    SQ_UNROLL(2)
    for (int k = 0; k < 2; k++) {
      vf16 v = ldx_avx512(p + 64 * k);
      if (t == SQ_GGML_Q8_0) {
        c[k] = round_away_avx512(_mm512_mul_ps(v, vid));
      } else if (sym) {
        vf16 off = _mm512_set1_ps(t == SQ_GGML_Q4_0 ? 8.5f : 16.5f);
        c[k] = _mm512_cvttps_epi32(_mm512_add_ps(_mm512_mul_ps(v, vid), off));
      } else {
        c[k] = _mm512_cvttps_epi32(_mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(v, vm), vid),
                                                 _mm512_set1_ps(0.5f)));
      }
      if (t == SQ_GGML_Q4_0 || t == SQ_GGML_Q4_1) c[k] = _mm512_min_epi32(c[k], k32_avx512(15));
      if (t == SQ_GGML_Q5_0) c[k] = _mm512_min_epi32(c[k], k32_avx512(31));
    }
    sq_store_u16(o, dh[b]);
    if (t == SQ_GGML_Q8_0) {
      _mm_storeu_si128((__m128i *)(void *)(o + SQ_Q8_0_QS), _mm512_cvtepi32_epi8(c[0]));
      _mm_storeu_si128((__m128i *)(void *)(o + SQ_Q8_0_QS + 16), _mm512_cvtepi32_epi8(c[1]));
      continue;
    }
    if (asym) sq_store_u16(o + 2, mh[b]);
    vi16 c0 = c[0], c1 = c[1];
    if (t == SQ_GGML_Q5_0 || t == SQ_GGML_Q5_1) {
      c0 = _mm512_and_si512(c0, k32_avx512(15));   /* q4 codes are clamped to 15 */
      c1 = _mm512_and_si512(c1, k32_avx512(15));
    }
    vi16 q = _mm512_or_si512(c0, _mm512_slli_epi32(c1, 4));
    size_t qs = t == SQ_GGML_Q4_0 ? SQ_Q4_0_QS : t == SQ_GGML_Q4_1 ? SQ_Q4_1_QS
              : t == SQ_GGML_Q5_0 ? SQ_Q5_0_QS : SQ_Q5_1_QS;
    _mm_storeu_si128((__m128i *)(void *)(o + qs), _mm512_cvtepi32_epi8(q));
    if (t == SQ_GGML_Q5_0 || t == SQ_GGML_Q5_1) {
      uint32_t qh = (uint32_t)_mm512_test_epi32_mask(c[0], k32_avx512(16)) |
                    (uint32_t)_mm512_test_epi32_mask(c[1], k32_avx512(16)) << 16;
      sq_store_u32(o + (t == SQ_GGML_Q5_0 ? SQ_Q5_0_QH : SQ_Q5_1_QH), qh);
    }
  }
}

SQ_AI void q_row_avx512(const void *x, size_t n, const void *importance, void *blocks,
                 sq_ggml_type t, size_t bytes, sq_qfn scalar) {
  /* MXCSR.DAZ: max_ps/min_ps return flushed zeros where scalar's compares
  ** keep the operand's bits, so that mode uses scalar (as in minmax) */
  if (importance || (_mm_getcsr() & 0x40)) {
    scalar(x, n, importance, blocks);
    return;
  }
  sq_cb p = x;
  sq_b o = blocks;
  size_t nb = n / 32, i = 0;
  for (; i + 16 <= nb; i += 16) q_group_avx512(p + 128 * i, o + bytes * i, t, bytes, scalar);
  if (i < nb) scalar(p + 128 * i, 32 * (nb - i), NULL, o + bytes * i);
}

static void q_q4_0_avx512(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx512(x, n, imp, blocks, SQ_GGML_Q4_0, 18, sq_ggml_quantize_q4_0);
}
static void q_q4_1_avx512(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx512(x, n, imp, blocks, SQ_GGML_Q4_1, 20, sq_ggml_quantize_q4_1);
}
static void q_q5_0_avx512(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx512(x, n, imp, blocks, SQ_GGML_Q5_0, 22, sq_ggml_quantize_q5_0);
}
static void q_q5_1_avx512(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx512(x, n, imp, blocks, SQ_GGML_Q5_1, 24, sq_ggml_quantize_q5_1);
}
static void q_q8_0_avx512(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx512(x, n, imp, blocks, SQ_GGML_Q8_0, 34, sq_ggml_quantize_q8_0);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

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
  },
};


/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef SQ_PRAGMA
#undef SQ_UNROLL

#else
typedef int sq_unused_ggml_avx512;
#endif
