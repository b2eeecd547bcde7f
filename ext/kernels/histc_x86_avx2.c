/*
** histc_x86_avx2.c: torch.histc binning with AVX2, 8 lanes (histc.c states
** the rules).
*/
#include "kernels/histc_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), \
                             apply_to = function)
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
  SQ_HISTC_COPY_PTRS(c, counts, bins);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps((const float *)(const void *)(p + 4 * i));
    __m256 in = _mm256_and_ps(_mm256_cmp_ps(v, vlo, _CMP_GE_OQ),
                              _mm256_cmp_ps(v, vhi, _CMP_LE_OQ));
    __m256 q = _mm256_div_ps(_mm256_mul_ps(_mm256_sub_ps(v, vlo), fb), w);
    __m256i b = _mm256_cvttps_epi32(_mm256_min_ps(q, last));
    b = _mm256_blendv_epi8(none, b, _mm256_castps_si256(in));
    _mm256_storeu_si256((__m256i *)(void *)idx, b);
    SQ_HISTC_COUNT(c, idx, 8);
  }
  sq_histc_tail(p, i, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
