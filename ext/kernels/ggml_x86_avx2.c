/*
** ggml_x86_avx2.c: the AVX2 + F16C path's ggml block-format kernels
** (sq_ggml_kernels_avx2).
**
** Every function writes exactly the bytes the scalar kernels write
** (ggml_dequantize.c, ggml_quantize_legacy.c), for every input.  How:
**   dequantize: a block whose fp16 fields are not all finite goes to the
**     scalar routine (x86's NaN rules written out); every other block
**     computes each weight with the scalar operations, lane for lane: codes
**     are unpacked as integers (widened bytes, masks and shifts, the fifth
**     and high bits by variable shifts), converted exactly, then multiplied
**     (and added or subtracted) in ggml's order with separate mul/add
**     instructions.  Per-sub-block factors (d * sc, dmin * m) are computed
**     once per block, in vectors or in scalar, with the same single
**     rounding, and broadcast.  No result can be NaN or infinite here, so the
**     operand order of the commutative operations cannot change a bit.
** Compiled with a target pragma, never -mavx2: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/ggml_internal.h"
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

typedef __m256i vi;
typedef __m256 vf;

/* 8 bytes at p widened to int32 lanes, zero- or sign-extended. */
SQ_AI vi u8x8(sq_cb p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)); }
SQ_AI vi i8x8(sq_cb p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)); }
SQ_AI vi k32(int v) { return _mm256_set1_epi32(v); }
SQ_AI vf cvt(vi v) { return _mm256_cvtepi32_ps(v); }
SQ_AI void st(sq_b p, vf v) { _mm256_storeu_ps((float *)(void *)p, v); }
/* The fp16 at p in every lane (F16C: exact, as sq_ggml_half for finite
** values, the only ones the fast paths see). */
SQ_AI vf half8(sq_cb p) {
  return _mm256_broadcastss_ps(_mm_cvtph_ps(_mm_cvtsi32_si128(sq_load_u16(p))));
}
SQ_AI float half1(sq_cb p) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(sq_load_u16(p))));
}
/* q * d and q * d + m in that operand order. */
SQ_AI vf qd(vi q, vf d) { return _mm256_mul_ps(cvt(q), d); }
SQ_AI vf qdm(vi q, vf d, vf m) { return _mm256_add_ps(_mm256_mul_ps(cvt(q), d), m); }
/* dl * q - ml */
SQ_AI vf dqm(vf dl, vi q, vf ml) { return _mm256_sub_ps(_mm256_mul_ps(dl, cvt(q)), ml); }

/* ---- legacy blocks of 32 -------------------------------------------------- */

/* Lane j of bitpos(j0) is (qh >> (j0 + j)) & 1, times 16: the fifth bit of
** weight j0 + j. */
SQ_AI vi fifth(vi qh, int j0) {
  const vi sh = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  vi b = _mm256_and_si256(_mm256_srlv_epi32(qh, _mm256_add_epi32(sh, k32(j0))), k32(1));
  return _mm256_slli_epi32(b, 4);
}

static void dq_q8_0_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 34, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q8_0(b, 32, o);
      continue;
    }
    vf d = half8(b);
    for (int k = 0; k < 4; k++) st(o + 32 * k, qd(i8x8(b + SQ_Q8_0_QS + 8 * k), d));
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
    vf d = half8(b);
    vi a = u8x8(b + SQ_Q4_0_QS), c = u8x8(b + SQ_Q4_0_QS + 8);
    const vi m15 = k32(15), e8 = k32(8);
    st(o, qd(_mm256_sub_epi32(_mm256_and_si256(a, m15), e8), d));
    st(o + 32, qd(_mm256_sub_epi32(_mm256_and_si256(c, m15), e8), d));
    st(o + 64, qd(_mm256_sub_epi32(_mm256_srli_epi32(a, 4), e8), d));
    st(o + 96, qd(_mm256_sub_epi32(_mm256_srli_epi32(c, 4), e8), d));
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
    vf d = half8(b), m = half8(b + SQ_Q4_1_M);
    vi a = u8x8(b + SQ_Q4_1_QS), c = u8x8(b + SQ_Q4_1_QS + 8);
    const vi m15 = k32(15);
    st(o, qdm(_mm256_and_si256(a, m15), d, m));
    st(o + 32, qdm(_mm256_and_si256(c, m15), d, m));
    st(o + 64, qdm(_mm256_srli_epi32(a, 4), d, m));
    st(o + 96, qdm(_mm256_srli_epi32(c, 4), d, m));
  }
}

static void dq_q5_0_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 22, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q5_0(b, 32, o);
      continue;
    }
    vf d = half8(b);
    vi qh = k32((int)sq_load_u32(b + SQ_Q5_0_QH));
    vi a = u8x8(b + SQ_Q5_0_QS), c = u8x8(b + SQ_Q5_0_QS + 8);
    const vi m15 = k32(15), e16 = k32(16);
    vi w0 = _mm256_or_si256(_mm256_and_si256(a, m15), fifth(qh, 0));
    vi w1 = _mm256_or_si256(_mm256_and_si256(c, m15), fifth(qh, 8));
    vi w2 = _mm256_or_si256(_mm256_srli_epi32(a, 4), fifth(qh, 16));
    vi w3 = _mm256_or_si256(_mm256_srli_epi32(c, 4), fifth(qh, 24));
    st(o, qd(_mm256_sub_epi32(w0, e16), d));
    st(o + 32, qd(_mm256_sub_epi32(w1, e16), d));
    st(o + 64, qd(_mm256_sub_epi32(w2, e16), d));
    st(o + 96, qd(_mm256_sub_epi32(w3, e16), d));
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
    vf d = half8(b), m = half8(b + SQ_Q5_1_M);
    vi qh = k32((int)sq_load_u32(b + SQ_Q5_1_QH));
    vi a = u8x8(b + SQ_Q5_1_QS), c = u8x8(b + SQ_Q5_1_QS + 8);
    const vi m15 = k32(15);
    st(o, qdm(_mm256_or_si256(_mm256_and_si256(a, m15), fifth(qh, 0)), d, m));
    st(o + 32, qdm(_mm256_or_si256(_mm256_and_si256(c, m15), fifth(qh, 8)), d, m));
    st(o + 64, qdm(_mm256_or_si256(_mm256_srli_epi32(a, 4), fifth(qh, 16)), d, m));
    st(o + 96, qdm(_mm256_or_si256(_mm256_srli_epi32(c, 4), fifth(qh, 24)), d, m));
  }
}

/* ---- K-quants ------------------------------------------------------------- */

/* dl[k] = d * (float)(s[k] & 15), ml[k] = dmin * (float)(s[k] >> 4) for the
** 16 scale bytes of q2_K. */
SQ_AI void q2k_scales(sq_cb s, float d, float dmin, float *dl, float *ml) {
  vf vd = _mm256_set1_ps(d), vm = _mm256_set1_ps(dmin);
  for (int k = 0; k < 16; k += 8) {
    vi v = u8x8(s + k);
    _mm256_storeu_ps(dl + k, _mm256_mul_ps(vd, cvt(_mm256_and_si256(v, k32(15)))));
    _mm256_storeu_ps(ml + k, _mm256_mul_ps(vm, cvt(_mm256_srli_epi32(v, 4))));
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
    q2k_scales(b + SQ_Q2_K_SC, half1(b + SQ_Q2_K_D), half1(b + SQ_Q2_K_DMIN), dl, ml);
    for (int h = 0; h < 2; h++)
      for (int s = 0; s < 2; s++) {
        sq_cb q = b + SQ_Q2_K_QS + 32 * h + 16 * s;
        vi a = u8x8(q), c = u8x8(q + 8);
        for (int g = 0; g < 4; g++) {
          int k = 8 * h + 2 * g + s;
          vf vdl = _mm256_broadcast_ss(dl + k), vml = _mm256_broadcast_ss(ml + k);
          sq_b out = o + 4 * (128 * h + 32 * g + 16 * s);
          st(out, dqm(vdl, _mm256_and_si256(_mm256_srli_epi32(a, 2 * g), k32(3)), vml));
          st(out + 32, dqm(vdl, _mm256_and_si256(_mm256_srli_epi32(c, 2 * g), k32(3)), vml));
        }
      }
  }
}

static void dq_q3_K_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 110, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q3_K_D)) {
      sq_ggml_dequantize_q3_K(b, 256, o);
      continue;
    }
    float d = half1(b + SQ_Q3_K_D), dl[16];
    for (int k = 0; k < 16; k++) dl[k] = d * (float)sq_ggml_q3k_scale(k, b + SQ_Q3_K_SC);
    for (int s = 0; s < 2; s++) {
      sq_cb hm = b + SQ_Q3_K_HM + 16 * s;
      vi ha = u8x8(hm), hc = u8x8(hm + 8);
      for (int h = 0; h < 2; h++) {
        sq_cb q = b + SQ_Q3_K_QS + 32 * h + 16 * s;
        vi a = u8x8(q), c = u8x8(q + 8);
        for (int g = 0; g < 4; g++) {
          int bit = 4 * h + g;
          vf vdl = _mm256_broadcast_ss(dl + 8 * h + 2 * g + s);
          /* code | 4 when the high bit is set, then - 4 */
          vi qa = _mm256_and_si256(_mm256_srli_epi32(a, 2 * g), k32(3));
          vi qc = _mm256_and_si256(_mm256_srli_epi32(c, 2 * g), k32(3));
          vi ba = _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(ha, bit), k32(1)), 2);
          vi bc = _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(hc, bit), k32(1)), 2);
          sq_b out = o + 4 * (128 * h + 32 * g + 16 * s);
          st(out, _mm256_mul_ps(vdl, cvt(_mm256_sub_epi32(_mm256_or_si256(qa, ba), k32(4)))));
          st(out + 32, _mm256_mul_ps(vdl, cvt(_mm256_sub_epi32(_mm256_or_si256(qc, bc), k32(4)))));
        }
      }
    }
  }
}

/* q4_K and q5_K (qh NULL for q4_K). */
SQ_AI void dq_k4_block(sq_cb b, sq_cb qs, sq_cb qh, sq_b o) {
  float d = half1(b), dmin = half1(b + 2);
  vi hb[4];
  if (qh)
    for (int c = 0; c < 4; c++) hb[c] = u8x8(qh + 8 * c);
  for (int g = 0; g < 4; g++) {
    vi q[4];
    for (int c = 0; c < 4; c++) q[c] = u8x8(qs + 32 * g + 8 * c);
    for (int hi = 0; hi < 2; hi++) {
      unsigned sc, mn;
      sq_ggml_k4_scale_min(2 * g + hi, b + SQ_Q4_K_SC, &sc, &mn);
      vf vdl = _mm256_set1_ps(d * (float)sc), vml = _mm256_set1_ps(dmin * (float)mn);
      for (int c = 0; c < 4; c++) {
        vi v = hi ? _mm256_srli_epi32(q[c], 4) : _mm256_and_si256(q[c], k32(15));
        if (qh) {
          int bit = 2 * g + hi;
          v = _mm256_or_si256(v, _mm256_slli_epi32(
                  _mm256_and_si256(_mm256_srli_epi32(hb[c], bit), k32(1)), 4));
        }
        st(o + 4 * (64 * g + 32 * hi + 8 * c), dqm(vdl, v, vml));
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
    dq_k4_block(b, b + SQ_Q4_K_QS, NULL, o);
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
    dq_k4_block(b, b + SQ_Q5_K_QS, b + SQ_Q5_K_QH, o);
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
    vf d = half8(b + SQ_Q6_K_D);
    _mm256_storeu_ps(ds, _mm256_mul_ps(d, cvt(i8x8(b + SQ_Q6_K_SC))));
    _mm256_storeu_ps(ds + 8, _mm256_mul_ps(d, cvt(i8x8(b + SQ_Q6_K_SC + 8))));
    for (int h = 0; h < 2; h++) {
      sq_cb ql = b + SQ_Q6_K_QL + 64 * h, qh = b + SQ_Q6_K_QH + 32 * h;
      for (int c = 0; c < 4; c++) {
        vi la = u8x8(ql + 8 * c), lb = u8x8(ql + 32 + 8 * c), hv = u8x8(qh + 8 * c);
        const vi m15 = k32(15), m48 = k32(48), e32 = k32(32);
        vi q1 = _mm256_or_si256(_mm256_and_si256(la, m15), _mm256_and_si256(_mm256_slli_epi32(hv, 4), m48));
        vi q2 = _mm256_or_si256(_mm256_and_si256(lb, m15), _mm256_and_si256(_mm256_slli_epi32(hv, 2), m48));
        vi q3 = _mm256_or_si256(_mm256_srli_epi32(la, 4), _mm256_and_si256(hv, m48));
        vi q4 = _mm256_or_si256(_mm256_srli_epi32(lb, 4), _mm256_and_si256(_mm256_srli_epi32(hv, 2), m48));
        const float *sc = ds + 8 * h + c / 2;
        sq_b out = o + 4 * (128 * h + 8 * c);
        st(out, _mm256_mul_ps(_mm256_broadcast_ss(sc), cvt(_mm256_sub_epi32(q1, e32))));
        st(out + 128, _mm256_mul_ps(_mm256_broadcast_ss(sc + 2), cvt(_mm256_sub_epi32(q2, e32))));
        st(out + 256, _mm256_mul_ps(_mm256_broadcast_ss(sc + 4), cvt(_mm256_sub_epi32(q3, e32))));
        st(out + 384, _mm256_mul_ps(_mm256_broadcast_ss(sc + 6), cvt(_mm256_sub_epi32(q4, e32))));
      }
    }
  }
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const sq_ggml_kernels sq_ggml_kernels_avx2 = {
  .quantize = {SQ_GGML_TYPES(SQ_GGML_ENTRY_Q)},
  .dequantize = {dq_q4_0_avx2, dq_q4_1_avx2, dq_q5_0_avx2, dq_q5_1_avx2,
                 dq_q8_0_avx2, dq_q2_K_avx2, dq_q3_K_avx2, dq_q4_K_avx2,
                 dq_q5_K_avx2, dq_q6_K_avx2},
};

#else
typedef int sq_unused_ggml_avx2;
#endif
