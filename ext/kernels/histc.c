/*
** histc.c: torch.histc's binning on every path (kernels.h, histc), the one
** pass over the data that method=histogram makes
** (docs/NUMERICS.md#calibration).
**
**   1. an element x counts when lo <= x <= hi (float32 compares);
**   2. its bin is q = ((x - lo) * (float)bins) / (hi - lo), each operation
**      rounded to float32 (no FMA: there is no add after the multiply, and
**      the division follows it), then min(q, bins - 1) truncated toward
**      zero: torch's LINEAR_INTERPOLATION rule, where q == bins (x == hi)
**      goes to the last bin.  q > bins cannot happen for a finite width;
**      the min also keeps a value the caller did not guard inside the
**      counts;
**   3. element i goes to sub-histogram i % SQ_HISTC_COPIES (entries
**      [c * (bins + 1), c * (bins + 1) + bins]); uncounted elements go to
**      each copy's extra entry `bins`, so vector paths never branch; the
**      copies are added into the first at the end;
**   4. every path computes q with the same IEEE operations in the same
**      order, so the counts are identical (tests/kernel_test.c compares
**      them).
*/
#include "kernels/kernels_internal.h"

/* Adds copies 1.. into copy 0. */
static void sq_histc_merge(uint32_t *counts, size_t bins) {
  for (size_t c = 1; c < SQ_HISTC_COPIES; c++)
    for (size_t b = 0; b < bins; b++) counts[b] += counts[c * (bins + 1) + b];
}

/* Rule 2 for one element; `bins` when it does not count. */
static inline size_t sq_histc_bin(float v, float lo, float hi, float fb,
                                  float w, float last, size_t bins) {
  if (!(v >= lo && v <= hi)) return bins;
  float q = (v - lo) * fb / w;
  return (size_t)(int32_t)(q < last ? q : last);
}

/* Elements [from, n) one by one (the vector paths' tails). */
static void sq_histc_tail(const unsigned char *p, size_t from, size_t n,
                          float lo, float hi, size_t bins, uint32_t *counts) {
  const float fb = (float)bins, w = hi - lo, last = (float)(bins - 1);
  for (size_t i = from; i < n; i++)
    counts[(i % SQ_HISTC_COPIES) * (bins + 1) +
           sq_histc_bin(sq_load_f32(p + 4 * i), lo, hi, fb, w, last, bins)]++;
}

void sq_histc_scalar(const void *x, size_t n, float lo, float hi, size_t bins,
                     uint32_t *counts) {
  sq_histc_tail(x, 0, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}

/* Counts the bins of one vector's lanes, lane j into copy j % COPIES. */
#define SQ_HISTC_COUNT(idx, lanes, i0)                                        \
  for (size_t j = 0; j < (lanes); j++)                                        \
    counts[(((i0) + j) % SQ_HISTC_COPIES) * (bins + 1) + (uint32_t)(idx)[j]]++

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
void sq_histc_avx2(const void *x, size_t n, float lo, float hi, size_t bins,
                   uint32_t *counts) {
  const unsigned char *p = x;
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  const __m256 fb = _mm256_set1_ps((float)bins), w = _mm256_set1_ps(hi - lo);
  const __m256 last = _mm256_set1_ps((float)(bins - 1));
  const __m256i none = _mm256_set1_epi32((int32_t)bins);
  int32_t idx[8];
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps((const float *)(const void *)(p + 4 * i));
    __m256 in = _mm256_and_ps(_mm256_cmp_ps(v, vlo, _CMP_GE_OQ),
                              _mm256_cmp_ps(v, vhi, _CMP_LE_OQ));
    __m256 q = _mm256_div_ps(_mm256_mul_ps(_mm256_sub_ps(v, vlo), fb), w);
    __m256i b = _mm256_cvttps_epi32(_mm256_min_ps(q, last));
    b = _mm256_blendv_epi8(none, b, _mm256_castps_si256(in));
    _mm256_storeu_si256((__m256i *)(void *)idx, b);
    SQ_HISTC_COUNT(idx, 8, i);
  }
  sq_histc_tail(p, i, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
void sq_histc_avx512(const void *x, size_t n, float lo, float hi, size_t bins,
                     uint32_t *counts) {
  const unsigned char *p = x;
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  const __m512 fb = _mm512_set1_ps((float)bins), w = _mm512_set1_ps(hi - lo);
  const __m512 last = _mm512_set1_ps((float)(bins - 1));
  const __m512i none = _mm512_set1_epi32((int32_t)bins);
  int32_t idx[16];
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(p + 4 * i);
    __mmask16 in = _mm512_cmp_ps_mask(v, vlo, _CMP_GE_OQ) &
                   _mm512_cmp_ps_mask(v, vhi, _CMP_LE_OQ);
    __m512 q = _mm512_div_ps(_mm512_mul_ps(_mm512_sub_ps(v, vlo), fb), w);
    __m512i b = _mm512_cvttps_epi32(_mm512_min_ps(q, last));
    b = _mm512_mask_blend_epi32(in, none, b);
    _mm512_storeu_si512(idx, b);
    SQ_HISTC_COUNT(idx, 16, i);
  }
  sq_histc_tail(p, i, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif /* x86-64 */

#if defined(__aarch64__) && !defined(SQ_SCALAR_ONLY) && !SQ_BIG_ENDIAN
#include <arm_neon.h>
void sq_histc_neon(const void *x, size_t n, float lo, float hi, size_t bins,
                   uint32_t *counts) {
  const unsigned char *p = x;
  const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
  const float32x4_t fb = vdupq_n_f32((float)bins), w = vdupq_n_f32(hi - lo);
  const float32x4_t last = vdupq_n_f32((float)(bins - 1));
  const int32x4_t none = vdupq_n_s32((int32_t)bins);
  int32_t idx[4];
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t v = vreinterpretq_f32_u8(vld1q_u8(p + 4 * i));
    uint32x4_t in = vandq_u32(vcgeq_f32(v, vlo), vcleq_f32(v, vhi));
    float32x4_t q = vdivq_f32(vmulq_f32(vsubq_f32(v, vlo), fb), w);
    /* vminq_f32 and a plain compare agree here: q is never NaN for an
    ** element that counts, and the others are replaced. */
    int32x4_t b = vcvtq_s32_f32(vminq_f32(q, last));
    vst1q_s32(idx, vbslq_s32(in, b, none));
    SQ_HISTC_COUNT(idx, 4, i);
  }
  sq_histc_tail(p, i, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}
#endif
