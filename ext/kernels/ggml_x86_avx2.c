/*
** ggml_x86_avx2.c: the AVX2 + F16C path's ggml block-format kernels
** (sq_ggml_kernels_avx2).
**
** Every function writes exactly the bytes the scalar kernels write
** (ggml_dequantize.c, ggml_quantize_legacy.c), for every input.  How, kernel
** by kernel:
**   1. dequantize, every type: a block whose fp16 fields are not all finite
**      goes to the scalar routine (which writes x86's NaN bits).  In every
**      other block no step can give a NaN, an infinity or a subnormal, so
**      IEEE arithmetic fixes each bit and the operand order of commutative
**      operations is free.  Each weight is computed with ggml's operations
**      in ggml's order (separate mul, add, sub: never FMA): codes are
**      unpacked as integers (widened bytes, masks and shifts; q5_0/q5_1 as
**      32 bytes with the fifth bits expanded by a byte shuffle), converted
**      exactly, then multiplied by d or by the sub-block's factor.  The
**      factors (d * sc, dmin * m, d * (sc - 32)) are computed once per block
**      with the same single rounding as scalar and broadcast.  q3_K's eight
**      values per sub-block are a vpermps lookup in a table computed with
**      the same multiply (dl * (k - 4)).  fp16 fields are widened by F16C
**      (exact for finite values);
**   2. quantize, q4_0 q4_1 q5_0 q5_1 q8_0 without importance (with it they
**      are scalar's; the K-quants are ggml_kquants_x86_avx2.c's):
**      eight blocks per pass.  The extremes are folded lane-wise and
**      transpose-reduced; d, id = 1/d (a division) and
**      the fp16 fields (F16C, rounding immediate 0 = scalar's rounding) are
**      computed for the eight blocks in one vector each.  ggml's extreme is
**      the first in scan order: for q4_0/q5_0 the signed extreme is the max
**      when it exceeds -min, the min when -min exceeds the max, +0 for an
**      all-zero block, and a tie between +a and -a goes to the scalar
**      routine; for q4_1/q5_1 a zero extreme takes the sign of the block's
**      first zero.  When |d| is zero or normal every x * id is within the
**      code range plus a rounding, so the truncating conversion (q8_0:
**      truncate, then step away from zero on an exact fraction >= 1/2, C's
**      roundf), the saturating packs and the byte clamps (ggml's MIN on
**      int8) give scalar's bytes; a block whose d is subnormal or infinite
**      goes to the scalar routine, which spells out x86's conversion of
**      out-of-range values.  Under MXCSR.DAZ max_ps/min_ps return flushed
**      zeros where scalar's compares keep the operand's bits, so that mode
**      uses scalar;
**   3. tails (fewer than eight blocks) go to the scalar routine on offset
**      pointers.
** Compiled with a target pragma, never -mavx2: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_kquants.h"
#include "kernels/ggml_blocks.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
#endif

typedef __m256i vi8;
typedef __m256 vf8;

/* Loops over registers and sub-blocks unroll, so that vectors stay in
** registers and shift counts and masks become constants. */
#define SQ_PRAGMA(x) _Pragma(#x)
#define SQ_UNROLL(n) SQ_PRAGMA(GCC unroll n)

/* 8 bytes at p widened to int32 lanes, zero- or sign-extended. */
SQ_AI vi8 u8x8(sq_cb p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)); }
SQ_AI vi8 i8x8(sq_cb p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)); }
SQ_AI vi8 k32_avx2(int v) { return _mm256_set1_epi32(v); }
SQ_AI vf8 cvt_avx2(vi8 v) { return _mm256_cvtepi32_ps(v); }
SQ_AI void st_avx2(sq_b p, vf8 v) { _mm256_storeu_ps((float *)(void *)p, v); }
/* The fp16 at p in every lane (F16C: exact, as sq_ggml_half for finite
** values, the only ones the fast paths see). */
SQ_AI vf8 half8(sq_cb p) {
  return _mm256_broadcastss_ps(_mm_cvtph_ps(_mm_cvtsi32_si128(sq_load_u16(p))));
}
SQ_AI float half1_avx2(sq_cb p) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(sq_load_u16(p))));
}
/* q * d and q * d + m in that operand order. */
SQ_AI vf8 qd(vi8 q, vf8 d) { return _mm256_mul_ps(cvt_avx2(q), d); }
SQ_AI vf8 qdm(vi8 q, vf8 d, vf8 m) { return _mm256_add_ps(_mm256_mul_ps(cvt_avx2(q), d), m); }
/* dl * q - ml */
SQ_AI vf8 dqm_avx2(vf8 dl, vi8 q, vf8 ml) { return _mm256_sub_ps(_mm256_mul_ps(dl, cvt_avx2(q)), ml); }

/* ---- legacy blocks of 32 -------------------------------------------------- */

/* Byte j of the result is 16 when bit j of the 32-bit plane qh is set,
** else 0: the fifth bits of a legacy block, in weight order. */
SQ_AI vi8 fifth32(uint32_t qh) {
  const vi8 pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                   2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const vi8 bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
  vi8 v = _mm256_and_si256(_mm256_shuffle_epi8(k32_avx2((int)qh), pick), bit);
  return _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(16));
}

/* The 32 nibble codes of 16 bytes in weight order: low nibbles, then high. */
SQ_AI vi8 nibbles32(sq_cb qs) {
  __m128i q = _mm_loadu_si128((const __m128i *)(const void *)qs), m = _mm_set1_epi8(15);
  return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), m), _mm_and_si128(q, m));
}

/* 32 byte codes (signed, or unsigned below 128) as four int32 vectors. */
SQ_AI void widen32(vi8 v, vi8 w[4]) {
  __m128i a = _mm256_castsi256_si128(v), c = _mm256_extracti128_si256(v, 1);
  w[0] = _mm256_cvtepi8_epi32(a);
  w[1] = _mm256_cvtepi8_epi32(_mm_unpackhi_epi64(a, a));
  w[2] = _mm256_cvtepi8_epi32(c);
  w[3] = _mm256_cvtepi8_epi32(_mm_unpackhi_epi64(c, c));
}

static void dq_q8_0_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 34, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q8_0(b, 32, o);
      continue;
    }
    vf8 d = half8(b);
    SQ_UNROLL(4)
    for (int k = 0; k < 4; k++) st_avx2(o + 32 * k, qd(i8x8(b + SQ_Q8_0_QS + 8 * k), d));
  }
}

static void dq_q4_0_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 18, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q4_0(b, 32, o);
      continue;
    }
    vf8 d = half8(b);
    vi8 a = u8x8(b + SQ_Q4_0_QS), c = u8x8(b + SQ_Q4_0_QS + 8);
    const vi8 m15 = k32_avx2(15), e8 = k32_avx2(8);
    st_avx2(o, qd(_mm256_sub_epi32(_mm256_and_si256(a, m15), e8), d));
    st_avx2(o + 32, qd(_mm256_sub_epi32(_mm256_and_si256(c, m15), e8), d));
    st_avx2(o + 64, qd(_mm256_sub_epi32(_mm256_srli_epi32(a, 4), e8), d));
    st_avx2(o + 96, qd(_mm256_sub_epi32(_mm256_srli_epi32(c, 4), e8), d));
  }
}

static void dq_q4_1_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 20, o += 128) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + SQ_Q4_1_M)) {
      sq_ggml_dequantize_q4_1(b, 32, o);
      continue;
    }
    vf8 d = half8(b), m = half8(b + SQ_Q4_1_M);
    vi8 a = u8x8(b + SQ_Q4_1_QS), c = u8x8(b + SQ_Q4_1_QS + 8);
    const vi8 m15 = k32_avx2(15);
    st_avx2(o, qdm(_mm256_and_si256(a, m15), d, m));
    st_avx2(o + 32, qdm(_mm256_and_si256(c, m15), d, m));
    st_avx2(o + 64, qdm(_mm256_srli_epi32(a, 4), d, m));
    st_avx2(o + 96, qdm(_mm256_srli_epi32(c, 4), d, m));
  }
}

/* q5_0 and q5_1: the five-bit codes assembled as 32 bytes (nibbles | fifth
** bits), then widened. */
static void dq_q5_0_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 22, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q5_0(b, 32, o);
      continue;
    }
    vf8 d = half8(b);
    vi8 q = _mm256_or_si256(nibbles32(b + SQ_Q5_0_QS), fifth32(sq_load_u32(b + SQ_Q5_0_QH)));
    vi8 w[4];
    widen32(_mm256_sub_epi8(q, _mm256_set1_epi8(16)), w);
    SQ_UNROLL(4)
    for (int k = 0; k < 4; k++) st_avx2(o + 32 * k, qd(w[k], d));
  }
}

static void dq_q5_1_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 24, o += 128) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + SQ_Q5_1_M)) {
      sq_ggml_dequantize_q5_1(b, 32, o);
      continue;
    }
    vf8 d = half8(b), m = half8(b + SQ_Q5_1_M);
    vi8 q = _mm256_or_si256(nibbles32(b + SQ_Q5_1_QS), fifth32(sq_load_u32(b + SQ_Q5_1_QH)));
    vi8 w[4];
    widen32(q, w);
    SQ_UNROLL(4)
    for (int k = 0; k < 4; k++) st_avx2(o + 32 * k, qdm(w[k], d, m));
  }
}

/* ---- K-quants ------------------------------------------------------------- */

/* dl[k] = d * (float)(s[k] & 15), ml[k] = dmin * (float)(s[k] >> 4) for the
** 16 scale bytes of q2_K. */
SQ_AI void q2k_scales(sq_cb s, float d, float dmin, float *dl, float *ml) {
  vf8 vd = _mm256_set1_ps(d), vm = _mm256_set1_ps(dmin);
  SQ_UNROLL(16)
  for (int k = 0; k < 16; k += 8) {
    vi8 v = u8x8(s + k);
    _mm256_storeu_ps(dl + k, _mm256_mul_ps(vd, cvt_avx2(_mm256_and_si256(v, k32_avx2(15)))));
    _mm256_storeu_ps(ml + k, _mm256_mul_ps(vm, cvt_avx2(_mm256_srli_epi32(v, 4))));
  }
}

static void dq_q2_K_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 84, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q2_K_D) || !sq_ggml_half_finite(b + SQ_Q2_K_DMIN)) {
      sq_ggml_dequantize_q2_K(b, 256, o);
      continue;
    }
    float dl[16], ml[16];
    q2k_scales(b + SQ_Q2_K_SC, half1_avx2(b + SQ_Q2_K_D), half1_avx2(b + SQ_Q2_K_DMIN), dl, ml);
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++)
      SQ_UNROLL(2)
      for (int s = 0; s < 2; s++) {
        sq_cb q = b + SQ_Q2_K_QS + 32 * h + 16 * s;
        vi8 a = u8x8(q), c = u8x8(q + 8);
        SQ_UNROLL(4)
        for (int g = 0; g < 4; g++) {
          int k = 8 * h + 2 * g + s;
          vf8 vdl = _mm256_broadcast_ss(dl + k), vml = _mm256_broadcast_ss(ml + k);
          sq_b out = o + 4 * (128 * h + 32 * g + 16 * s);
          st_avx2(out, dqm_avx2(vdl, _mm256_and_si256(_mm256_srli_epi32(a, 2 * g), k32_avx2(3)), vml));
          st_avx2(out + 32, dqm_avx2(vdl, _mm256_and_si256(_mm256_srli_epi32(c, 2 * g), k32_avx2(3)), vml));
        }
      }
  }
}

/* dl[k] = d * (scale k - 32) for the 16 packed 6-bit scales of q3_K at s:
** low four bits from the nibbles of bytes 0-7, top two bits from the
** crumbs of bytes 8-11 (see sq_ggml_q3k_scale). */
SQ_AI void q3k_scales_avx2(sq_cb s, vf8 d, float *dl) {
  vi8 lo = u8x8(s);
  vi8 top = k32_avx2((int)sq_load_u32(s + 8));
  vi8 h0 = _mm256_and_si256(_mm256_srlv_epi32(top, _mm256_setr_epi32(0, 8, 16, 24, 2, 10, 18, 26)), k32_avx2(3));
  vi8 h1 = _mm256_and_si256(_mm256_srlv_epi32(top, _mm256_setr_epi32(4, 12, 20, 28, 6, 14, 22, 30)), k32_avx2(3));
  vi8 s0 = _mm256_or_si256(_mm256_and_si256(lo, k32_avx2(15)), _mm256_slli_epi32(h0, 4));
  vi8 s1 = _mm256_or_si256(_mm256_srli_epi32(lo, 4), _mm256_slli_epi32(h1, 4));
  _mm256_storeu_ps(dl, _mm256_mul_ps(d, cvt_avx2(_mm256_sub_epi32(s0, k32_avx2(32)))));
  _mm256_storeu_ps(dl + 8, _mm256_mul_ps(d, cvt_avx2(_mm256_sub_epi32(s1, k32_avx2(32)))));
}

/* q3_K: a weight is dl * v with v = code - 4 (high bit clear) or code (set),
** eight possible values per sub-block of 16: a vpermps lookup in the table
** dl * (k - 4), k = code | high bit << 2, computed with scalar's multiply. */
static void dq_q3_K_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  const vf8 kv = _mm256_setr_ps(-4.0f, -3.0f, -2.0f, -1.0f, 0.0f, 1.0f, 2.0f, 3.0f);
  for (size_t i = 0; i < n / 256; i++, b += 110, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q3_K_D)) {
      sq_ggml_dequantize_q3_K(b, 256, o);
      continue;
    }
    float dl[16];
    q3k_scales_avx2(b + SQ_Q3_K_SC, half8(b + SQ_Q3_K_D), dl);
    SQ_UNROLL(2)
    for (int s = 0; s < 2; s++) {
      sq_cb hm = b + SQ_Q3_K_HM + 16 * s;
      vi8 ha = u8x8(hm), hc = u8x8(hm + 8);
      SQ_UNROLL(2)
      for (int h = 0; h < 2; h++) {
        sq_cb q = b + SQ_Q3_K_QS + 32 * h + 16 * s;
        vi8 a = u8x8(q), c = u8x8(q + 8);
        SQ_UNROLL(4)
        for (int g = 0; g < 4; g++) {
          int bit = 4 * h + g;
          vf8 t = _mm256_mul_ps(_mm256_broadcast_ss(dl + 8 * h + 2 * g + s), kv);
          /* the high bit moved to bit 2 of the index */
          vi8 hb_a = bit >= 2 ? _mm256_srli_epi32(ha, bit - 2) : _mm256_slli_epi32(ha, 2 - bit);
          vi8 hb_c = bit >= 2 ? _mm256_srli_epi32(hc, bit - 2) : _mm256_slli_epi32(hc, 2 - bit);
          vi8 ia = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(a, 2 * g), k32_avx2(3)),
                                  _mm256_and_si256(hb_a, k32_avx2(4)));
          vi8 ic = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(c, 2 * g), k32_avx2(3)),
                                  _mm256_and_si256(hb_c, k32_avx2(4)));
          sq_b out = o + 4 * (128 * h + 32 * g + 16 * s);
          st_avx2(out, _mm256_permutevar8x32_ps(t, ia));
          st_avx2(out + 32, _mm256_permutevar8x32_ps(t, ic));
        }
      }
    }
  }
}

/* q4_K and q5_K (qh NULL for q4_K). */
SQ_AI void dq_k4_block_avx2(sq_cb b, sq_cb qs, sq_cb qh, sq_b o) {
  float d = half1_avx2(b), dmin = half1_avx2(b + 2);
  vi8 hb[4];
  if (qh)
    SQ_UNROLL(4)
    for (int c = 0; c < 4; c++) hb[c] = u8x8(qh + 8 * c);
  SQ_UNROLL(4)
  for (int g = 0; g < 4; g++) {
    vi8 q[4];
    SQ_UNROLL(4)
    for (int c = 0; c < 4; c++) q[c] = u8x8(qs + 32 * g + 8 * c);
    SQ_UNROLL(2)
    for (int hi = 0; hi < 2; hi++) {
      unsigned sc, mn;
      sq_ggml_k4_scale_min(2 * g + hi, b + SQ_Q4_K_SC, &sc, &mn);
      vf8 vdl = _mm256_set1_ps(d * (float)sc), vml = _mm256_set1_ps(dmin * (float)mn);
      SQ_UNROLL(4)
      for (int c = 0; c < 4; c++) {
        vi8 v = hi ? _mm256_srli_epi32(q[c], 4) : _mm256_and_si256(q[c], k32_avx2(15));
        if (qh) {
          int bit = 2 * g + hi;
          v = _mm256_or_si256(v, _mm256_slli_epi32(
                  _mm256_and_si256(_mm256_srli_epi32(hb[c], bit), k32_avx2(1)), 4));
        }
        st_avx2(o + 4 * (64 * g + 32 * hi + 8 * c), dqm_avx2(vdl, v, vml));
      }
    }
  }
}

static void dq_q4_K_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 144, o += 1024) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + 2)) {
      sq_ggml_dequantize_q4_K(b, 256, o);
      continue;
    }
    dq_k4_block_avx2(b, b + SQ_Q4_K_QS, NULL, o);
  }
}

static void dq_q5_K_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 176, o += 1024) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + 2)) {
      sq_ggml_dequantize_q5_K(b, 256, o);
      continue;
    }
    dq_k4_block_avx2(b, b + SQ_Q5_K_QS, b + SQ_Q5_K_QH, o);
  }
}

static void dq_q6_K_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 210, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q6_K_D)) {
      sq_ggml_dequantize_q6_K(b, 256, o);
      continue;
    }
    /* ds[k] = d * (float)scale k, as ggml's d * sc[is] */
    float ds[16];
    vf8 d = half8(b + SQ_Q6_K_D);
    _mm256_storeu_ps(ds, _mm256_mul_ps(d, cvt_avx2(i8x8(b + SQ_Q6_K_SC))));
    _mm256_storeu_ps(ds + 8, _mm256_mul_ps(d, cvt_avx2(i8x8(b + SQ_Q6_K_SC + 8))));
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++) {
      sq_cb ql = b + SQ_Q6_K_QL + 64 * h, qh = b + SQ_Q6_K_QH + 32 * h;
      SQ_UNROLL(4)
      for (int c = 0; c < 4; c++) {
        vi8 la = u8x8(ql + 8 * c), lb = u8x8(ql + 32 + 8 * c), hv = u8x8(qh + 8 * c);
        const vi8 m15 = k32_avx2(15), m48 = k32_avx2(48), e32 = k32_avx2(32);
        vi8 q1 = _mm256_or_si256(_mm256_and_si256(la, m15), _mm256_and_si256(_mm256_slli_epi32(hv, 4), m48));
        vi8 q2 = _mm256_or_si256(_mm256_and_si256(lb, m15), _mm256_and_si256(_mm256_slli_epi32(hv, 2), m48));
        vi8 q3 = _mm256_or_si256(_mm256_srli_epi32(la, 4), _mm256_and_si256(hv, m48));
        vi8 q4 = _mm256_or_si256(_mm256_srli_epi32(lb, 4), _mm256_and_si256(_mm256_srli_epi32(hv, 2), m48));
        const float *sc = ds + 8 * h + c / 2;
        sq_b out = o + 4 * (128 * h + 8 * c);
        st_avx2(out, _mm256_mul_ps(_mm256_broadcast_ss(sc), cvt_avx2(_mm256_sub_epi32(q1, e32))));
        st_avx2(out + 128, _mm256_mul_ps(_mm256_broadcast_ss(sc + 2), cvt_avx2(_mm256_sub_epi32(q2, e32))));
        st_avx2(out + 256, _mm256_mul_ps(_mm256_broadcast_ss(sc + 4), cvt_avx2(_mm256_sub_epi32(q3, e32))));
        st_avx2(out + 384, _mm256_mul_ps(_mm256_broadcast_ss(sc + 6), cvt_avx2(_mm256_sub_epi32(q4, e32))));
      }
    }
  }
}

/* ---- quantize, legacy types without importance -----------------------------
** Eight blocks (256 weights) at a time.  Pass 1 folds each block's 32 floats
** into per-lane max and min (max of |x| for q8_0), then a transpose-reduce
** gives lane b = block b's extreme, and d, id, and the fp16 fields of the
** eight blocks are computed in one vector each, with scalar's operations
** (divisions, not reciprocals).  Pass 2 writes each block's codes.
**
** Which element is ggml's extreme: q8_0 needs only the value of max |x|.
** q4_0 and q5_0 want the first element of largest |x|, with its sign: that
** is the block max when it exceeds -min, the block min when -min exceeds the
** max, +0 for an all-zero block, and a tie between +a and -a (a > 0) goes to
** the scalar routine, which scans.  q4_1 and q5_1 want the first occurrence
** of the min and of the max, which differ from the vector's value only in
** the sign of a zero: a zero extreme takes the sign of the block's first
** zero.
**
** Codes: when |d| is 0 or a normal float, every x * id is within the code
** range plus a rounding (|x * id| <= 2^bits (1 + 2^-22)), so the truncating
** conversion, the clamp and the saturating packs all give scalar's bytes.
** A block whose d is subnormal or infinite (id huge, infinite, or 0 against
** an infinite x - min) goes to the scalar routine, which spells out x86's
** conversion of out-of-range values. */

/* lane b = the max (is_max) or min of the eight lanes of v[b] */
SQ_AI vf8 reduce8(vf8 v[8], int is_max) {
#define SQ_RED(a, b) (is_max ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b))
  vf8 r[4], s[2];
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++)
    r[k] = SQ_RED(_mm256_unpacklo_ps(v[2 * k], v[2 * k + 1]),
                  _mm256_unpackhi_ps(v[2 * k], v[2 * k + 1]));
  SQ_UNROLL(2)
  for (int k = 0; k < 2; k++) {
    __m256d a = _mm256_castps_pd(r[2 * k]), c = _mm256_castps_pd(r[2 * k + 1]);
    s[k] = SQ_RED(_mm256_castpd_ps(_mm256_unpacklo_pd(a, c)),
                  _mm256_castpd_ps(_mm256_unpackhi_pd(a, c)));
  }
  return SQ_RED(_mm256_permute2f128_ps(s[0], s[1], 0x20),
                _mm256_permute2f128_ps(s[0], s[1], 0x31));
#undef SQ_RED
}

SQ_AI vf8 ldx_avx2(sq_cb p) { return _mm256_loadu_ps((const float *)(const void *)p); }

/* The sign bit of the first zero among the 32 floats at p (one exists). */
static uint32_t first_zero_sign_avx2(sq_cb p) {
  uint32_t z = 0, s = 0;
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) {
    vf8 v = ldx_avx2(p + 32 * k);
    z |= (uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_EQ_OQ)) << (8 * k);
    s |= (uint32_t)_mm256_movemask_ps(v) << (8 * k);
  }
  return ((s >> __builtin_ctz(z)) & 1u) << 31;
}

/* C's roundf of t (|t| < 2^23) as int32: truncate, then step away from zero
** when the exact fraction is at least one half. */
SQ_AI vi8 round_away_avx2(vf8 t) {
  vi8 i = _mm256_cvttps_epi32(t);
  vf8 f = _mm256_sub_ps(t, cvt_avx2(i));
  vi8 up = _mm256_castps_si256(_mm256_cmp_ps(f, _mm256_set1_ps(0.5f), _CMP_GE_OQ));
  vi8 dn = _mm256_castps_si256(_mm256_cmp_ps(f, _mm256_set1_ps(-0.5f), _CMP_LE_OQ));
  return _mm256_add_epi32(_mm256_sub_epi32(i, up), dn);
}

typedef void (*sq_qfn)(const void *, size_t, const void *, void *);

SQ_AI void q_group_avx2(sq_cb x, sq_b out, sq_ggml_type t, size_t bytes, sq_qfn scalar) {
  const int sym = t == SQ_GGML_Q4_0 || t == SQ_GGML_Q5_0;
  const int asym = t == SQ_GGML_Q4_1 || t == SQ_GGML_Q5_1;
  const vf8 absm = _mm256_castsi256_ps(k32_avx2(0x7fffffff));
  vf8 mx[8], mn[8];
  SQ_UNROLL(8)
  for (int b = 0; b < 8; b++) {
    sq_cb p = x + 128 * b;
    /* the hardware prefetcher alone leaves this loop waiting on memory
    ** (prefetches never fault: addresses past the end are fine; computed as
    ** integers, since C has no pointer past one-past-the-end) */
    _mm_prefetch((const char *)((uintptr_t)p + 4096), _MM_HINT_T0);
    _mm_prefetch((const char *)((uintptr_t)p + 4096 + 64), _MM_HINT_T0);
    vf8 v0 = ldx_avx2(p), v1 = ldx_avx2(p + 32), v2 = ldx_avx2(p + 64), v3 = ldx_avx2(p + 96);
    if (t == SQ_GGML_Q8_0) {
      v0 = _mm256_and_ps(v0, absm);
      v1 = _mm256_and_ps(v1, absm);
      v2 = _mm256_and_ps(v2, absm);
      v3 = _mm256_and_ps(v3, absm);
    } else {
      mn[b] = _mm256_min_ps(_mm256_min_ps(v0, v1), _mm256_min_ps(v2, v3));
    }
    mx[b] = _mm256_max_ps(_mm256_max_ps(v0, v1), _mm256_max_ps(v2, v3));
  }
  vf8 hi = reduce8(mx, 1), lo = t == SQ_GGML_Q8_0 ? hi : reduce8(mn, 0);
  const vf8 zero = _mm256_setzero_ps();
  int bad = 0;
  vf8 d, m = zero;
  if (t == SQ_GGML_Q8_0) {
    d = _mm256_div_ps(hi, _mm256_set1_ps(127.0f));
  } else if (sym) {
    vf8 neglo = _mm256_sub_ps(zero, lo);
    vf8 pos = _mm256_cmp_ps(hi, neglo, _CMP_GT_OQ);      /* the max wins */
    vf8 tie = _mm256_cmp_ps(hi, neglo, _CMP_EQ_OQ);
    vf8 allz = _mm256_and_ps(_mm256_cmp_ps(hi, zero, _CMP_EQ_OQ), _mm256_cmp_ps(lo, zero, _CMP_EQ_OQ));
    bad = _mm256_movemask_ps(_mm256_andnot_ps(allz, tie));
    vf8 ext = _mm256_blendv_ps(lo, hi, pos);
    ext = _mm256_andnot_ps(allz, ext);                  /* +0 for all-zero */
    d = _mm256_div_ps(ext, _mm256_set1_ps(t == SQ_GGML_Q4_0 ? -8.0f : -16.0f));
  } else {
    int z = _mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(hi, zero, _CMP_EQ_OQ),
                                            _mm256_cmp_ps(lo, zero, _CMP_EQ_OQ)));
    if (z) {
      float h[8], l[8];
      _mm256_storeu_ps(h, hi);
      _mm256_storeu_ps(l, lo);
      for (int b = 0; b < 8; b++)
        if (z >> b & 1) {
          float s = sq_bits_f32(first_zero_sign_avx2(x + 128 * b));
          if (h[b] == 0.0f) h[b] = s;
          if (l[b] == 0.0f) l[b] = s;
        }
      hi = _mm256_loadu_ps(h);
      lo = _mm256_loadu_ps(l);
    }
    m = lo;
    d = _mm256_div_ps(_mm256_sub_ps(hi, lo), _mm256_set1_ps(t == SQ_GGML_Q4_1 ? 15.0f : 31.0f));
  }
  (void)asym;
  /* id = d ? 1/d : 0; d must be 0 or normal */
  vf8 dz = _mm256_cmp_ps(d, zero, _CMP_EQ_OQ);
  vf8 id = _mm256_andnot_ps(dz, _mm256_div_ps(_mm256_set1_ps(1.0f), d));
  vf8 ad = _mm256_and_ps(d, absm);
  vf8 ok = _mm256_and_ps(_mm256_cmp_ps(ad, _mm256_set1_ps(1.17549435e-38f), _CMP_GE_OQ),
                        _mm256_cmp_ps(ad, _mm256_set1_ps(3.40282347e38f), _CMP_LE_OQ));
  bad |= _mm256_movemask_ps(_mm256_andnot_ps(_mm256_or_ps(ok, dz), _mm256_castsi256_ps(k32_avx2(-1))));
  float idv[8], mv[8];
  uint16_t dh[8], mh[8];
  _mm256_storeu_ps(idv, id);
  _mm256_storeu_ps(mv, m);
  _mm_storeu_si128((__m128i *)(void *)dh, _mm256_cvtps_ph(d, 0));
  _mm_storeu_si128((__m128i *)(void *)mh, _mm256_cvtps_ph(m, 0));
  SQ_UNROLL(8)
  for (int b = 0; b < 8; b++) {
    sq_cb p = x + 128 * b;
    sq_b o = out + bytes * b;
    if (bad >> b & 1) {
      scalar(p, 32, NULL, o);
      continue;
    }
    vf8 vid = _mm256_broadcast_ss(idv + b), vm = _mm256_broadcast_ss(mv + b);
    vi8 c[4];
    SQ_UNROLL(4)
    for (int k = 0; k < 4; k++) {
      vf8 v = ldx_avx2(p + 32 * k);
      if (t == SQ_GGML_Q8_0) {
        c[k] = round_away_avx2(_mm256_mul_ps(v, vid));
      } else if (sym) {
        vf8 off = _mm256_set1_ps(t == SQ_GGML_Q4_0 ? 8.5f : 16.5f);
        c[k] = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(v, vid), off));
      } else {
        c[k] = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v, vm), vid),
                                                 _mm256_set1_ps(0.5f)));
      }
    }
    sq_store_u16(o, dh[b]);
    /* the 32 codes as bytes, in order (every code fits: no saturation) */
    const vi8 order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    if (t == SQ_GGML_Q8_0) {
      vi8 a = _mm256_packs_epi32(c[0], c[1]), e = _mm256_packs_epi32(c[2], c[3]);
      vi8 r = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(a, e), order);
      _mm256_storeu_si256((__m256i *)(void *)(o + SQ_Q8_0_QS), r);
      continue;
    }
    vi8 a = _mm256_packus_epi32(c[0], c[1]), e = _mm256_packus_epi32(c[2], c[3]);
    vi8 q = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a, e), order);
    /* ggml's MIN(15 or 31, code) */
    if (t == SQ_GGML_Q4_0 || t == SQ_GGML_Q4_1) q = _mm256_min_epu8(q, _mm256_set1_epi8(15));
    if (t == SQ_GGML_Q5_0) q = _mm256_min_epu8(q, _mm256_set1_epi8(31));
    if (asym) sq_store_u16(o + 2, mh[b]);
    if (t == SQ_GGML_Q5_0 || t == SQ_GGML_Q5_1) {
      /* bit 4 of each code to its byte's top bit (codes are below 32) */
      uint32_t qh = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(q, 3));
      sq_store_u32(o + (t == SQ_GGML_Q5_0 ? SQ_Q5_0_QH : SQ_Q5_1_QH), qh);
      q = _mm256_and_si256(q, _mm256_set1_epi8(15));
    }
    /* code j in the low nibble, code j + 16 in the high one (16-bit shift:
    ** every byte is below 16, so nothing crosses into the next byte) */
    __m128i nib = _mm_or_si128(_mm256_castsi256_si128(q),
                               _mm_slli_epi16(_mm256_extracti128_si256(q, 1), 4));
    size_t qs = t == SQ_GGML_Q4_0 ? SQ_Q4_0_QS : t == SQ_GGML_Q4_1 ? SQ_Q4_1_QS
              : t == SQ_GGML_Q5_0 ? SQ_Q5_0_QS : SQ_Q5_1_QS;
    _mm_storeu_si128((__m128i *)(void *)(o + qs), nib);
  }
}

SQ_AI void q_row_avx2(const void *x, size_t n, const void *importance, void *blocks,
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
  for (; i + 8 <= nb; i += 8) q_group_avx2(p + 128 * i, o + bytes * i, t, bytes, scalar);
  if (i < nb) scalar(p + 128 * i, 32 * (nb - i), NULL, o + bytes * i);
}

static void q_q4_0_avx2(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx2(x, n, imp, blocks, SQ_GGML_Q4_0, 18, sq_ggml_quantize_q4_0);
}
static void q_q4_1_avx2(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx2(x, n, imp, blocks, SQ_GGML_Q4_1, 20, sq_ggml_quantize_q4_1);
}
static void q_q5_0_avx2(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx2(x, n, imp, blocks, SQ_GGML_Q5_0, 22, sq_ggml_quantize_q5_0);
}
static void q_q5_1_avx2(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx2(x, n, imp, blocks, SQ_GGML_Q5_1, 24, sq_ggml_quantize_q5_1);
}
static void q_q8_0_avx2(const void *x, size_t n, const void *imp, void *blocks) {
  q_row_avx2(x, n, imp, blocks, SQ_GGML_Q8_0, 34, sq_ggml_quantize_q8_0);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

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
  },
};


/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef SQ_PRAGMA
#undef SQ_UNROLL

#else
typedef int sq_unused_ggml_avx2;
#endif
