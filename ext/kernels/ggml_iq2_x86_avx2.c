/*
** ggml_iq2_x86_avx2.c: the lattice searches of iq2_xxs, iq2_xs, iq2_s,
** iq1_s and iq1_m on AVX2, eight candidates side by side
** (docs/NUMERICS.md#ggml; ggml_iq2_x86.h is the body and states the
** rules).  Here: the lookups of a weight's term by digit (vpermps over one
** 256-bit table) and the choice among the lanes' winners.
*/
#include <float.h>
#include <string.h>
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq2.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 8
#include "kernels/x86_width.h"

SQ_AI __m256 iq_wide_avx2(__m256 t) { return t; }
SQ_AI __m256 iq_perm_avx2(__m256 tab, __m256i idx) {
  return _mm256_permutevar8x32_ps(tab, idx);
}
SQ_AI __m256i iq_lanes_avx2(void) { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
SQ_AI int iq_argmin_avx2(__m256 v, __m256i at) {
  __m256 m = _mm256_min_ps(v, _mm256_permute2f128_ps(v, v, 1));
  m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, 0x4e));
  m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, 0xb1));
  if (_mm256_cvtss_f32(m) == FLT_MAX) return -1;
  __m256i c = _mm256_blendv_epi8(_mm256_set1_epi32(INT32_MAX), at,
                                 _mm256_castps_si256(_mm256_cmp_ps(v, m, _CMP_EQ_OQ)));
  __m128i h = _mm_min_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
  h = _mm_min_epi32(h, _mm_shuffle_epi32(h, 0x4e));
  h = _mm_min_epi32(h, _mm_shuffle_epi32(h, 0xb1));
  return _mm_cvtsi128_si32(h);
}

#include "kernels/ggml_iq2_x86.h"
#include "kernels/x86_width_end.h"

#endif
