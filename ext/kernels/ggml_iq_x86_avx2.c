/*
** ggml_iq_x86_avx2.c: the iq2_xxs, iq2_xs, iq2_s, iq1_s and iq1_m
** dequantizers on AVX2 (ggml_iq_x86.h's template at 8 lanes; the avx512
** path has its own, ggml_iq_x86_avx512.c), and the iq3_xxs, iq3_s, iq4_nl
** and iq4_xs dequantizers on AVX2 (docs/NUMERICS.md#ggml).  The avx2 and avx512 paths both run them:
** eight weights per instruction are enough to keep up with memory, and a
** 512-bit version would write the same bytes.
**
** Each weight is the scalar kernel's (ggml_iq3.c, ggml_iq4.c) operation for
** operation: the per-(sub-)block scale is computed by the same scalar code,
** then scale * (float)value in one multiply per lane, and iq3's sign as a
** flip of the sign bit.  x86's vector arithmetic follows the same NaN rules
** as its scalar arithmetic, so non-finite scales give the same bits too.
*/
#include <string.h>
#include "kernels/ggml_iq.h"
#include "kernels/ggml_iq2.h"
#include "kernels/ggml_blocks.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 8
#include "kernels/x86_width.h"

/* The eight int8 values of v's low 8 bytes as floats, times d. */
SQ_AI __m256 iq_scaled8_avx2(__m128i v, __m256 d) {
  return _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)));
}

/* Weights 8l..8l+7 of an iq3 sub-block: the magnitudes in bytes 8l..8l+7 of
** g (grid bytes in weight order), times db, bit j of s a minus sign. */
SQ_AI __m256 iq3_8_avx2(__m256i g, int l, __m256 db, unsigned s) {
  __m128i half = l < 2 ? _mm256_castsi256_si128(g) : _mm256_extracti128_si256(g, 1);
  if (l & 1) half = _mm_srli_si128(half, 8);
  __m256 v = _mm256_mul_ps(db, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(half)));
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  __m256i neg = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)s), bit), bit);
  return _mm256_xor_ps(v, _mm256_castsi256_ps(_mm256_slli_epi32(neg, 31)));
}

static void dq_iq3_xxs_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  float *out = y;
  for (size_t i = 0; i < n / 256; i++, b += 98) {
    float d = sq_iq_half(b);
    for (int ib = 0; ib < 8; ib++) {
      uint32_t aux = sq_load_u32(b + 66 + 4 * ib);
      __m256 db = _mm256_set1_ps(d * (0.5f + (float)(aux >> 28)) * 0.5f);
      __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(b + 2 + 8 * ib)));
      __m256i g = _mm256_i32gather_epi32((const int *)(const void *)sq_iq3xxs_grid, idx, 4);
      for (int l = 0; l < 4; l++) {
        unsigned s = (aux >> (7 * l)) & 127u;
        s |= (unsigned)__builtin_parity(s) << 7;
        _mm256_storeu_ps(out + 8 * l, iq3_8_avx2(g, l, db, s));
      }
      out += 32;
    }
  }
}

static void dq_iq3_s_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  float *out = y;
  const __m256i shift = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t i = 0; i < n / 256; i++, b += 110) {
    float d = sq_iq_half(b);
    sq_cb qs = b + 2, qh = b + 66, sg = b + 74, sc = b + 106;
    for (int ib = 0; ib < 8; ib++, qs += 8, sg += 4) {
      unsigned s4 = ib & 1 ? sc[ib / 2] >> 4 : sc[ib / 2] & 0xfu;
      __m256 db = _mm256_set1_ps(d * (float)(1 + 2 * (int)s4));
      __m256i lo = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)qs));
      __m256i hi = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(qh[ib]), shift),
                                    _mm256_set1_epi32(1));
      __m256i idx = _mm256_or_si256(lo, _mm256_slli_epi32(hi, 8));
      __m256i g = _mm256_i32gather_epi32((const int *)(const void *)sq_iq3s_grid, idx, 4);
      for (int l = 0; l < 4; l++) _mm256_storeu_ps(out + 8 * l, iq3_8_avx2(g, l, db, sg[l]));
      out += 32;
    }
  }
}

/* 32 weights of one iq4 block of codes at qs, times d. */
SQ_AI void iq4_32_avx2(sq_cb qs, __m256 d, __m128i table, float *out) {
  __m128i q = _mm_loadu_si128((const __m128i *)(const void *)qs);
  __m128i lo = _mm_shuffle_epi8(table, _mm_and_si128(q, _mm_set1_epi8(15)));
  __m128i hi = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(q, 4), _mm_set1_epi8(15)));
  _mm256_storeu_ps(out, iq_scaled8_avx2(lo, d));
  _mm256_storeu_ps(out + 8, iq_scaled8_avx2(_mm_srli_si128(lo, 8), d));
  _mm256_storeu_ps(out + 16, iq_scaled8_avx2(hi, d));
  _mm256_storeu_ps(out + 24, iq_scaled8_avx2(_mm_srli_si128(hi, 8), d));
}

static void dq_iq4_nl_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  float *out = y;
  __m128i table = _mm_loadu_si128((const __m128i *)(const void *)sq_iq4nl_values);
  for (size_t i = 0; i < n / 32; i++, b += 18, out += 32)
    iq4_32_avx2(b + 2, _mm256_set1_ps(sq_iq_half(b)), table, out);
}

static void dq_iq4_xs_avx2(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  float *out = y;
  __m128i table = _mm_loadu_si128((const __m128i *)(const void *)sq_iq4nl_values);
  for (size_t i = 0; i < n / 256; i++, b += 136) {
    float d = sq_iq_half(b);
    unsigned sh = sq_load_u16(b + 2);
    for (int ib = 0; ib < 8; ib++, out += 32) {
      int ls = (int)(((b[4 + ib / 2] >> (4 * (ib % 2))) & 0xf) | (((sh >> (2 * ib)) & 3) << 4));
      float dl = d * (float)(ls - 32);
      if (dl != dl && d == d) dl = sq_bits_f32(0xffc00000u);  /* as ggml_iq4.c */
      iq4_32_avx2(b + 8 + 16 * ib, _mm256_set1_ps(dl), table, out);
    }
  }
}

/* ---- iq2_xxs, iq2_xs, iq2_s, iq1_s, iq1_m: ggml_iq_x86.h's helpers -------- */

/* The 8 bytes of grid entry g0, widened (one entry per vector: g1 unused). */
SQ_AI vint grid_u8_avx2(const void *g0, const void *g1) {
  (void)g1;
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)g0));
}
SQ_AI vint grid_i8_avx2(const void *g0, const void *g1) {
  (void)g1;
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)g0));
}
/* Bit j of s moved to the sign bit of lane j, then flipped into v. */
SQ_AI vfloat flip_avx2(vfloat v, unsigned s) {
  const __m256i up = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);
  __m256i m = _mm256_and_si256(_mm256_sllv_epi32(_mm256_set1_epi32((int)s), up),
                               _mm256_set1_epi32(INT32_MIN));
  return _mm256_xor_ps(v, _mm256_castsi256_ps(m));
}
SQ_AI vfloat pair_avx2(float a, float b) {
  (void)b;
  return _mm256_set1_ps(a);
}
SQ_AI void stream_avx2(void *p, vfloat v) { _mm256_stream_ps((float *)p, v); }

#include "kernels/ggml_iq_x86.h"

#include "kernels/x86_width_end.h"

void sq_ggml_dequantize_iq3_xxs_avx2(const void *blocks, size_t n, void *y) {
  dq_iq3_xxs_avx2(blocks, n, y);
}
void sq_ggml_dequantize_iq3_s_avx2(const void *blocks, size_t n, void *y) {
  dq_iq3_s_avx2(blocks, n, y);
}
void sq_ggml_dequantize_iq4_nl_avx2(const void *blocks, size_t n, void *y) {
  dq_iq4_nl_avx2(blocks, n, y);
}
void sq_ggml_dequantize_iq4_xs_avx2(const void *blocks, size_t n, void *y) {
  dq_iq4_xs_avx2(blocks, n, y);
}

#else
typedef int sq_unused_ggml_iq_avx2;
#endif
