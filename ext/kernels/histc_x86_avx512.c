/*
** histc_x86_avx512.c: torch.histc binning with AVX-512, 16 lanes (histc.c
** states the rules).
*/
#include "kernels/histc_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#include <immintrin.h>

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
  SQ_HISTC_COPY_PTRS(c, counts, bins);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(p + 4 * i);
    __mmask16 in = _mm512_cmp_ps_mask(v, vlo, _CMP_GE_OQ) &
                   _mm512_cmp_ps_mask(v, vhi, _CMP_LE_OQ);
    __m512 q = _mm512_div_ps(_mm512_mul_ps(_mm512_sub_ps(v, vlo), fb), w);
    __m512i b = _mm512_cvttps_epi32(_mm512_min_ps(q, last));
    b = _mm512_mask_blend_epi32(in, none, b);
    _mm512_storeu_si512(idx, b);
    SQ_HISTC_COUNT(c, idx, 16);
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
