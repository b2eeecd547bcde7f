/*
** ggml_x86_avx2.c: the AVX2 + F16C path's ggml block-format kernels
** (sq_ggml_kernels_avx2).  ggml_x86.h holds what both x86 paths share and
** states the rules; here is what AVX2 does its own way:
**   1. dequantize q4_0 q4_1 q5_0 q5_1 q2_K q3_K q4_K q5_K: each weight is
**      computed with ggml's operations in ggml's order (separate mul, add,
**      sub: never FMA): codes are unpacked as integers (widened bytes,
**      masks and shifts; q5_0/q5_1 as 32 bytes with the fifth bits expanded
**      by a byte shuffle), converted exactly, then multiplied by d or by the
**      sub-block's factor.  The factors (d * sc, dmin * m, d * (sc - 32))
**      are computed once per block with the same single rounding as scalar
**      and broadcast.  q3_K's eight values per sub-block are a vpermps
**      lookup in a table computed with the same multiply (dl * (k - 4));
**   2. quantize: a block's 32 codes narrow by saturating packs (every code
**      is in range: no saturation happens) and ggml's byte clamps (MIN on
**      int8), the fifth bits by a byte movemask.
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq.h"
#include "kernels/ggml_iq2.h"
#include "kernels/ggml_kquants.h"
#include "kernels/ggml_blocks.h"
#include "kernels/ggml_fp4_body.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 8
#include "kernels/x86_width.h"
#include "kernels/ggml_x86.h"

/* q * d and q * d + m in that operand order. */
SQ_AI vfloat qd(vint q, vfloat d) { return _mm256_mul_ps(vi_to_f(q), d); }
SQ_AI vfloat qdm(vint q, vfloat d, vfloat m) { return _mm256_add_ps(_mm256_mul_ps(vi_to_f(q), d), m); }
/* dl * q - ml */
SQ_AI vfloat dqm_avx2(vfloat dl, vint q, vfloat ml) { return _mm256_sub_ps(_mm256_mul_ps(dl, vi_to_f(q)), ml); }

/* ---- legacy blocks of 32 -------------------------------------------------- */

/* Byte j of the result is 16 when bit j of the 32-bit plane qh is set,
** else 0: the fifth bits of a legacy block, in weight order. */
SQ_AI vint fifth32(uint32_t qh) {
  const vint pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                   2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const vint bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
  vint v = _mm256_and_si256(_mm256_shuffle_epi8(vi_set1((int)qh), pick), bit);
  return _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(16));
}

/* The 32 nibble codes of 16 bytes in weight order: low nibbles, then high. */
SQ_AI vint nibbles32(sq_cb qs) {
  __m128i q = _mm_loadu_si128((const __m128i *)(const void *)qs), m = _mm_set1_epi8(15);
  return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), m), _mm_and_si128(q, m));
}

/* 32 byte codes (signed, or unsigned below 128) as four int32 vectors. */
SQ_AI void widen32(vint v, vint w[4]) {
  __m128i a = _mm256_castsi256_si128(v), c = _mm256_extracti128_si256(v, 1);
  w[0] = _mm256_cvtepi8_epi32(a);
  w[1] = _mm256_cvtepi8_epi32(_mm_unpackhi_epi64(a, a));
  w[2] = _mm256_cvtepi8_epi32(c);
  w[3] = _mm256_cvtepi8_epi32(_mm_unpackhi_epi64(c, c));
}

SQ_AI void dq_block_q4_0_avx2(sq_cb b, sq_b o) {
  vfloat d = half_avx2(b);
  vint a = vi_load_u8(b + SQ_Q4_0_QS), c = vi_load_u8(b + SQ_Q4_0_QS + 8);
  const vint m15 = vi_set1(15), e8 = vi_set1(8);
  vf_store(o, qd(_mm256_sub_epi32(_mm256_and_si256(a, m15), e8), d));
  vf_store(o + 32, qd(_mm256_sub_epi32(_mm256_and_si256(c, m15), e8), d));
  vf_store(o + 64, qd(_mm256_sub_epi32(_mm256_srli_epi32(a, 4), e8), d));
  vf_store(o + 96, qd(_mm256_sub_epi32(_mm256_srli_epi32(c, 4), e8), d));
}

SQ_AI void dq_block_q4_1_avx2(sq_cb b, sq_b o) {
  vfloat d = half_avx2(b), m = half_avx2(b + SQ_Q4_1_M);
  vint a = vi_load_u8(b + SQ_Q4_1_QS), c = vi_load_u8(b + SQ_Q4_1_QS + 8);
  const vint m15 = vi_set1(15);
  vf_store(o, qdm(_mm256_and_si256(a, m15), d, m));
  vf_store(o + 32, qdm(_mm256_and_si256(c, m15), d, m));
  vf_store(o + 64, qdm(_mm256_srli_epi32(a, 4), d, m));
  vf_store(o + 96, qdm(_mm256_srli_epi32(c, 4), d, m));
}

/* q5_0 and q5_1: the five-bit codes assembled as 32 bytes (nibbles | fifth
** bits), then widened. */
SQ_AI void dq_block_q5_0_avx2(sq_cb b, sq_b o) {
  vfloat d = half_avx2(b);
  vint q = _mm256_or_si256(nibbles32(b + SQ_Q5_0_QS), fifth32(sq_load_u32(b + SQ_Q5_0_QH)));
  vint w[4];
  widen32(_mm256_sub_epi8(q, _mm256_set1_epi8(16)), w);
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) vf_store(o + 32 * k, qd(w[k], d));
}

SQ_AI void dq_block_q5_1_avx2(sq_cb b, sq_b o) {
  vfloat d = half_avx2(b), m = half_avx2(b + SQ_Q5_1_M);
  vint q = _mm256_or_si256(nibbles32(b + SQ_Q5_1_QS), fifth32(sq_load_u32(b + SQ_Q5_1_QH)));
  vint w[4];
  widen32(q, w);
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) vf_store(o + 32 * k, qdm(w[k], d, m));
}

/* ---- K-quants ------------------------------------------------------------- */

/* dl[k] = d * (float)(s[k] & 15), ml[k] = dmin * (float)(s[k] >> 4) for the
** 16 scale bytes of q2_K. */
SQ_AI void q2k_scales(sq_cb s, float d, float dmin, float *dl, float *ml) {
  vfloat vd = _mm256_set1_ps(d), vm = _mm256_set1_ps(dmin);
  SQ_UNROLL(16)
  for (int k = 0; k < 16; k += 8) {
    vint v = vi_load_u8(s + k);
    _mm256_storeu_ps(dl + k, _mm256_mul_ps(vd, vi_to_f(_mm256_and_si256(v, vi_set1(15)))));
    _mm256_storeu_ps(ml + k, _mm256_mul_ps(vm, vi_to_f(_mm256_srli_epi32(v, 4))));
  }
}

SQ_AI void dq_block_q2_K_avx2(sq_cb b, sq_b o) {
  float dl[16], ml[16];
  q2k_scales(b + SQ_Q2_K_SC, half1_avx2(b + SQ_Q2_K_D), half1_avx2(b + SQ_Q2_K_DMIN), dl, ml);
  SQ_UNROLL(2)
  for (int h = 0; h < 2; h++)
    SQ_UNROLL(2)
    for (int s = 0; s < 2; s++) {
      sq_cb q = b + SQ_Q2_K_QS + 32 * h + 16 * s;
      vint a = vi_load_u8(q), c = vi_load_u8(q + 8);
      SQ_UNROLL(4)
      for (int g = 0; g < 4; g++) {
        int k = 8 * h + 2 * g + s;
        vfloat vdl = _mm256_broadcast_ss(dl + k), vml = _mm256_broadcast_ss(ml + k);
        sq_b out = o + 4 * (128 * h + 32 * g + 16 * s);
        vf_store(out, dqm_avx2(vdl, _mm256_and_si256(_mm256_srli_epi32(a, 2 * g), vi_set1(3)), vml));
        vf_store(out + 32, dqm_avx2(vdl, _mm256_and_si256(_mm256_srli_epi32(c, 2 * g), vi_set1(3)), vml));
      }
    }
}

/* dl[k] = d * (scale k - 32) for the 16 packed 6-bit scales of q3_K at s:
** low four bits from the nibbles of bytes 0-7, top two bits from the
** crumbs of bytes 8-11 (see sq_ggml_q3k_scale). */
SQ_AI void q3k_scales_avx2(sq_cb s, vfloat d, float *dl) {
  vint lo = vi_load_u8(s);
  vint top = vi_set1((int)sq_load_u32(s + 8));
  vint h0 = _mm256_and_si256(_mm256_srlv_epi32(top, _mm256_setr_epi32(0, 8, 16, 24, 2, 10, 18, 26)), vi_set1(3));
  vint h1 = _mm256_and_si256(_mm256_srlv_epi32(top, _mm256_setr_epi32(4, 12, 20, 28, 6, 14, 22, 30)), vi_set1(3));
  vint s0 = _mm256_or_si256(_mm256_and_si256(lo, vi_set1(15)), _mm256_slli_epi32(h0, 4));
  vint s1 = _mm256_or_si256(_mm256_srli_epi32(lo, 4), _mm256_slli_epi32(h1, 4));
  _mm256_storeu_ps(dl, _mm256_mul_ps(d, vi_to_f(_mm256_sub_epi32(s0, vi_set1(32)))));
  _mm256_storeu_ps(dl + 8, _mm256_mul_ps(d, vi_to_f(_mm256_sub_epi32(s1, vi_set1(32)))));
}

/* q3_K: a weight is dl * v with v = code - 4 (high bit clear) or code (set),
** eight possible values per sub-block of 16: a vpermps lookup in the table
** dl * (k - 4), k = code | high bit << 2, computed with scalar's multiply. */
SQ_AI void dq_block_q3_K_avx2(sq_cb b, sq_b o) {
  const vfloat kv = _mm256_setr_ps(-4.0f, -3.0f, -2.0f, -1.0f, 0.0f, 1.0f, 2.0f, 3.0f);
  float dl[16];
  q3k_scales_avx2(b + SQ_Q3_K_SC, half_avx2(b + SQ_Q3_K_D), dl);
  SQ_UNROLL(2)
  for (int s = 0; s < 2; s++) {
    sq_cb hm = b + SQ_Q3_K_HM + 16 * s;
    vint ha = vi_load_u8(hm), hc = vi_load_u8(hm + 8);
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++) {
      sq_cb q = b + SQ_Q3_K_QS + 32 * h + 16 * s;
      vint a = vi_load_u8(q), c = vi_load_u8(q + 8);
      SQ_UNROLL(4)
      for (int g = 0; g < 4; g++) {
        int bit = 4 * h + g;
        vfloat t = _mm256_mul_ps(_mm256_broadcast_ss(dl + 8 * h + 2 * g + s), kv);
        /* the high bit moved to bit 2 of the index */
        vint hb_a = bit >= 2 ? _mm256_srli_epi32(ha, bit - 2) : _mm256_slli_epi32(ha, 2 - bit);
        vint hb_c = bit >= 2 ? _mm256_srli_epi32(hc, bit - 2) : _mm256_slli_epi32(hc, 2 - bit);
        vint ia = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(a, 2 * g), vi_set1(3)),
                                _mm256_and_si256(hb_a, vi_set1(4)));
        vint ic = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(c, 2 * g), vi_set1(3)),
                                _mm256_and_si256(hb_c, vi_set1(4)));
        sq_b out = o + 4 * (128 * h + 32 * g + 16 * s);
        vf_store(out, _mm256_permutevar8x32_ps(t, ia));
        vf_store(out + 32, _mm256_permutevar8x32_ps(t, ic));
      }
    }
  }
}

/* q4_K and q5_K (qh NULL for q4_K). */
SQ_AI void dq_k4_block_avx2(sq_cb b, sq_cb qs, sq_cb qh, sq_b o) {
  float d = half1_avx2(b), dmin = half1_avx2(b + 2);
  vint hb[4];
  if (qh)
    SQ_UNROLL(4)
    for (int c = 0; c < 4; c++) hb[c] = vi_load_u8(qh + 8 * c);
  SQ_UNROLL(4)
  for (int g = 0; g < 4; g++) {
    vint q[4];
    SQ_UNROLL(4)
    for (int c = 0; c < 4; c++) q[c] = vi_load_u8(qs + 32 * g + 8 * c);
    SQ_UNROLL(2)
    for (int hi = 0; hi < 2; hi++) {
      unsigned sc, mn;
      sq_ggml_k4_scale_min(2 * g + hi, b + SQ_Q4_K_SC, &sc, &mn);
      vfloat vdl = _mm256_set1_ps(d * (float)sc), vml = _mm256_set1_ps(dmin * (float)mn);
      SQ_UNROLL(4)
      for (int c = 0; c < 4; c++) {
        vint v = hi ? _mm256_srli_epi32(q[c], 4) : _mm256_and_si256(q[c], vi_set1(15));
        if (qh) {
          int bit = 2 * g + hi;
          v = _mm256_or_si256(v, _mm256_slli_epi32(
                  _mm256_and_si256(_mm256_srli_epi32(hb[c], bit), vi_set1(1)), 4));
        }
        vf_store(o + 4 * (64 * g + 32 * hi + 8 * c), dqm_avx2(vdl, v, vml));
      }
    }
  }
}

SQ_AI void dq_block_q4_K_avx2(sq_cb b, sq_b o) {
  dq_k4_block_avx2(b, b + SQ_Q4_K_QS, NULL, o);
}

SQ_AI void dq_block_q5_K_avx2(sq_cb b, sq_b o) {
  dq_k4_block_avx2(b, b + SQ_Q5_K_QS, b + SQ_Q5_K_QH, o);
}

/* ---- sign, ternary and FP4 formats ------------------------------------------
** q1_0 is d's bits with the sign flipped where a bit is clear (an integer
** select, as scalar's); q2_0, tq1_0 and tq2_0 have the four values
** (q - 1) * d, q = 0..3 (tq1_0's trits use 0..2), computed with scalar's
** multiply and picked by vpermps on the code (the table repeats every four
** entries, so the bits above the code do not matter); the FP4 formats'
** sixteen values v * scale are two tables of eight, picked by the low three
** bits of a code and chosen between by its top bit (blendv on the sign). */

SQ_AI void dq_block_q1_0_avx2(sq_cb b, sq_b o) {
  /* bit k of the byte to bit 31 of lane k */
  const vint sh = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);
  const vint sign = vi_set1((int)0x80000000u);
  vint pd = vi_bits(half_avx2(b));
  SQ_UNROLL(16)
  for (int i = 0; i < 16; i++) {
    vint v = vi_set1(b[SQ_Q1_0_QS + i]);
    vint flip = _mm256_andnot_si256(_mm256_sllv_epi32(v, sh), sign);
    vf_store(o + 32 * i, vf_of_bits(_mm256_xor_si256(pd, flip)));
  }
}

/* (q - 1) * d for q = 0..3, twice: scalar's (float)(q - 1) * d. */
SQ_AI vfloat q2_table_avx2(sq_cb d) {
  return _mm256_mul_ps(_mm256_setr_ps(-1, 0, 1, 2, -1, 0, 1, 2), half_avx2(d));
}

SQ_AI void dq_block_q2_0_avx2(sq_cb b, sq_b o) {
  const vint sh = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  vfloat t = q2_table_avx2(b);
  SQ_UNROLL(8)
  for (int i = 0; i < 8; i++) {
    /* weight 8i + k: bits 2k, 2k + 1 of bytes 2i, 2i + 1 (little-endian) */
    vint v = _mm256_srlv_epi32(vi_set1((int)sq_load_u16(b + SQ_Q2_0_QS + 2 * i)), sh);
    vf_store(o + 32 * i, _mm256_permutevar8x32_ps(t, v));
  }
}

SQ_AI void dq_block_tq2_0_avx2(sq_cb b, sq_b o) {
  vfloat t = q2_table_avx2(b + SQ_TQ2_0_D);
  SQ_UNROLL(2)
  for (int h = 0; h < 2; h++)
    SQ_UNROLL(4)
    for (int c = 0; c < 4; c++) {
      vint v = vi_load_u8(b + SQ_TQ2_0_QS + 32 * h + 8 * c);
      SQ_UNROLL(4)
      for (int l = 0; l < 4; l++)
        vf_store(o + 4 * (128 * h + 32 * l + 8 * c),
                 _mm256_permutevar8x32_ps(t, _mm256_srli_epi32(v, 2 * l)));
    }
}

/* The index 0..2 of trit n of bytes v (below 256, one per lane) whose
** multiplier 3^n is m: ((v * 3^n) mod 256) * 3 >> 8.  v * 3^n < 2^16, so a
** 16-bit multiply of each lane's low half is exact (the high halves are 0). */
SQ_AI vint trit_avx2(vint v, vint m) {
  vint q = _mm256_and_si256(_mm256_mullo_epi16(v, m), vi_set1(255));
  return _mm256_srli_epi32(_mm256_add_epi32(q, _mm256_slli_epi32(q, 1)), 8);
}

SQ_AI void dq_block_tq1_0_avx2(sq_cb b, sq_b o) {
  static const int pow3[5] = {1, 3, 9, 27, 81};
  vfloat t = q2_table_avx2(b + SQ_TQ1_0_D);
  /* weights 0..159: five trits of bytes 0..31, 32 weights per trit */
  SQ_UNROLL(4)
  for (int c = 0; c < 4; c++) {
    vint v = vi_load_u8(b + SQ_TQ1_0_QS + 8 * c);
    SQ_UNROLL(5)
    for (int n = 0; n < 5; n++)
      vf_store(o + 4 * (32 * n + 8 * c), _mm256_permutevar8x32_ps(t, trit_avx2(v, vi_set1(pow3[n]))));
  }
  /* weights 160..239: bytes 32..47, 16 weights per trit */
  SQ_UNROLL(2)
  for (int c = 0; c < 2; c++) {
    vint v = vi_load_u8(b + SQ_TQ1_0_QS + 32 + 8 * c);
    SQ_UNROLL(5)
    for (int n = 0; n < 5; n++)
      vf_store(o + 4 * (160 + 16 * n + 8 * c), _mm256_permutevar8x32_ps(t, trit_avx2(v, vi_set1(pow3[n]))));
  }
  /* weights 240..255: weight 240 + 4n + j is trit n of qh byte j */
  vint q4 = _mm256_cvtepu8_epi32(_mm_set1_epi32((int)sq_load_u32(b + SQ_TQ1_0_QH)));
  vf_store(o + 4 * 240, _mm256_permutevar8x32_ps(t, trit_avx2(q4, _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3))));
  vf_store(o + 4 * 248, _mm256_permutevar8x32_ps(t, trit_avx2(q4, _mm256_setr_epi32(9, 9, 9, 9, 27, 27, 27, 27))));
}

/* The value of each code in i (bits 0-3; bits above ignored) from the
** tables lo (codes 0-7) and hi (8-15): top is i shifted so that bit 3 of
** the code is the lane's sign bit. */
SQ_AI vfloat fp4_pick_avx2(vint i, vint top, vfloat lo, vfloat hi) {
  return _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, i), _mm256_permutevar8x32_ps(hi, i),
                          _mm256_castsi256_ps(top));
}

SQ_AI void dq_block_mxfp4_avx2(sq_cb b, sq_b o) {
  /* scalar's sq_e2m1x2[c] * scale */
  vfloat s = _mm256_set1_ps(sq_e8m0_half(b[SQ_MXFP4_E]));
  vfloat lo = _mm256_mul_ps(_mm256_loadu_ps(sq_e2m1x2), s);
  vfloat hi = _mm256_mul_ps(_mm256_loadu_ps(sq_e2m1x2 + 8), s);
  SQ_UNROLL(2)
  for (int c = 0; c < 2; c++) {
    vint v = vi_load_u8(b + SQ_MXFP4_QS + 8 * c);
    vf_store(o + 32 * c, fp4_pick_avx2(v, _mm256_slli_epi32(v, 28), lo, hi));
    vf_store(o + 64 + 32 * c,
             fp4_pick_avx2(_mm256_srli_epi32(v, 4), _mm256_slli_epi32(v, 24), lo, hi));
  }
}

SQ_AI void dq_block_nvfp4_avx2(sq_cb b, sq_b o) {
  vfloat e0 = _mm256_loadu_ps(sq_e2m1x2), e1 = _mm256_loadu_ps(sq_e2m1x2 + 8);
  SQ_UNROLL(4)
  for (int s = 0; s < 4; s++) {
    vfloat sc = _mm256_set1_ps(sq_ue4m3_half(b[SQ_NVFP4_D + s]));
    vfloat lo = _mm256_mul_ps(e0, sc), hi = _mm256_mul_ps(e1, sc);
    vint v = vi_load_u8(b + SQ_NVFP4_QS + 8 * s);
    vf_store(o + 64 * s, fp4_pick_avx2(v, _mm256_slli_epi32(v, 28), lo, hi));
    vf_store(o + 64 * s + 32,
             fp4_pick_avx2(_mm256_srli_epi32(v, 4), _mm256_slli_epi32(v, 24), lo, hi));
  }
}

/* ---- quantize: a block's codes as bytes ------------------------------------ */

SQ_AI void store_codes_avx2(sq_b o, sq_ggml_type t, const vint *c, size_t qs,
                            size_t qh) {
  /* the 32 codes as bytes, in order (every code fits: no saturation) */
  const vint order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  if (t == SQ_GGML_Q8_0) {
    vint a = _mm256_packs_epi32(c[0], c[1]), e = _mm256_packs_epi32(c[2], c[3]);
    vint r = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(a, e), order);
    _mm256_storeu_si256((__m256i *)(void *)(o + SQ_Q8_0_QS), r);
    return;
  }
  vint a = _mm256_packus_epi32(c[0], c[1]), e = _mm256_packus_epi32(c[2], c[3]);
  vint q = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a, e), order);
  /* ggml's MIN(15 or 31, code) */
  if (t == SQ_GGML_Q4_0 || t == SQ_GGML_Q4_1) q = _mm256_min_epu8(q, _mm256_set1_epi8(15));
  if (t == SQ_GGML_Q5_0) q = _mm256_min_epu8(q, _mm256_set1_epi8(31));
  if (t == SQ_GGML_Q5_0 || t == SQ_GGML_Q5_1) {
    /* bit 4 of each code to its byte's top bit (codes are below 32) */
    sq_store_u32(o + qh, (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(q, 3)));
    q = _mm256_and_si256(q, _mm256_set1_epi8(15));
  }
  /* code j in the low nibble, code j + 16 in the high one (16-bit shift:
  ** every byte is below 16, so nothing crosses into the next byte) */
  __m128i nib = _mm_or_si128(_mm256_castsi256_si128(q),
                             _mm_slli_epi16(_mm256_extracti128_si256(q, 1), 4));
  _mm_storeu_si128((__m128i *)(void *)(o + qs), nib);
}

/* mxfp4 and nvfp4: the scalar bodies (ggml_fp4_body.h), whose code search
** the compiler vectorizes with this path's registers. */
static void q_mxfp4_avx2(const void *x, size_t n, const void *importance,
                        void *blocks) {
  (void)importance;
  sq_fp4_mxfp4_row(x, n, blocks);
}
static void q_nvfp4_avx2(const void *x, size_t n, const void *importance,
                        void *blocks) {
  (void)importance;
  sq_fp4_nvfp4_row(x, n, blocks);
}

#include "kernels/x86_width_end.h"

/* Designated: a type not named here runs the scalar kernel
** (sq_ggml_quantizer); ext/catalogue.toml lists the paths of each. */
const sq_ggml_kernels sq_ggml_kernels_avx2 = {
  .own_quantize = {
    [SQ_GGML_Q4_0] = q_q4_0_avx2,
    [SQ_GGML_Q4_1] = q_q4_1_avx2,
    [SQ_GGML_Q5_0] = q_q5_0_avx2,
    [SQ_GGML_Q5_1] = q_q5_1_avx2,
    [SQ_GGML_Q8_0] = q_q8_0_avx2,
    [SQ_GGML_Q2_K] = sq_ggml_quantize_q2_K_avx2,
    [SQ_GGML_Q3_K] = sq_ggml_quantize_q3_K_avx2,
    [SQ_GGML_Q4_K] = sq_ggml_quantize_q4_K_avx2,
    [SQ_GGML_Q5_K] = sq_ggml_quantize_q5_K_avx2,
    [SQ_GGML_Q6_K] = sq_ggml_quantize_q6_K_avx2,
    [SQ_GGML_MXFP4] = q_mxfp4_avx2,
    [SQ_GGML_NVFP4] = q_nvfp4_avx2,
    [SQ_GGML_IQ2_XXS] = sq_ggml_quantize_iq2_xxs_avx2,
    [SQ_GGML_IQ2_XS] = sq_ggml_quantize_iq2_xs_avx2,
    [SQ_GGML_IQ2_S] = sq_ggml_quantize_iq2_s_avx2,
    [SQ_GGML_IQ1_S] = sq_ggml_quantize_iq1_s_avx2,
    [SQ_GGML_IQ1_M] = sq_ggml_quantize_iq1_m_avx2,
  },
  .own_dequantize = {
    [SQ_GGML_Q4_0] = dq_q4_0_avx2,
    [SQ_GGML_Q4_1] = dq_q4_1_avx2,
    [SQ_GGML_Q5_0] = dq_q5_0_avx2,
    [SQ_GGML_Q5_1] = dq_q5_1_avx2,
    [SQ_GGML_Q8_0] = dq_q8_0_avx2,
    [SQ_GGML_Q2_K] = dq_q2_K_avx2,
    [SQ_GGML_Q3_K] = dq_q3_K_avx2,
    [SQ_GGML_Q4_K] = dq_q4_K_avx2,
    [SQ_GGML_Q5_K] = dq_q5_K_avx2,
    [SQ_GGML_Q6_K] = dq_q6_K_avx2,
    [SQ_GGML_Q1_0] = dq_q1_0_avx2,
    [SQ_GGML_Q2_0] = dq_q2_0_avx2,
    [SQ_GGML_TQ1_0] = dq_tq1_0_avx2,
    [SQ_GGML_TQ2_0] = dq_tq2_0_avx2,
    [SQ_GGML_MXFP4] = dq_mxfp4_avx2,
    [SQ_GGML_NVFP4] = dq_nvfp4_avx2,
    [SQ_GGML_IQ3_XXS] = sq_ggml_dequantize_iq3_xxs_avx2,
    [SQ_GGML_IQ4_NL] = sq_ggml_dequantize_iq4_nl_avx2,
    [SQ_GGML_IQ3_S] = sq_ggml_dequantize_iq3_s_avx2,
    [SQ_GGML_IQ4_XS] = sq_ggml_dequantize_iq4_xs_avx2,
    [SQ_GGML_IQ2_XXS] = sq_ggml_dequantize_iq2_xxs_avx2,
    [SQ_GGML_IQ2_XS] = sq_ggml_dequantize_iq2_xs_avx2,
    [SQ_GGML_IQ2_S] = sq_ggml_dequantize_iq2_s_avx2,
    [SQ_GGML_IQ1_S] = sq_ggml_dequantize_iq1_s_avx2,
    [SQ_GGML_IQ1_M] = sq_ggml_dequantize_iq1_m_avx2,
  },
  .own_quantize_checked = {
    [SQ_GGML_Q4_0] = qc_q4_0_avx2,
    [SQ_GGML_Q4_1] = qc_q4_1_avx2,
    [SQ_GGML_Q5_0] = qc_q5_0_avx2,
    [SQ_GGML_Q5_1] = qc_q5_1_avx2,
    [SQ_GGML_Q8_0] = qc_q8_0_avx2,
  },
};


#else
typedef int sq_unused_ggml_avx2;
#endif
