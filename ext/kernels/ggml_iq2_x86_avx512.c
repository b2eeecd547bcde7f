/*
** ggml_iq2_x86_avx512.c: the lattice searches of iq2_xxs, iq2_xs, iq2_s,
** iq1_s and iq1_m on AVX-512, sixteen candidates side by side
** (docs/NUMERICS.md#ggml; ggml_iq2_x86.h is the body and states the
** rules).  Here: the lookups of a weight's term by digit (vpermps over a
** 512-bit table whose halves are the same 256-bit one, so that the
** index's fourth bit does not matter) and the choice among the lanes'
** winners.
*/
#include <float.h>
#include <string.h>
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq2.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 16
#include "kernels/x86_width.h"

SQ_AI __m512 iq_wide_avx512(__m256 t) {
  return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(t)));
}
SQ_AI __m512 iq_perm_avx512(__m512 tab, __m512i idx) {
  return _mm512_permutexvar_ps(idx, tab);
}
SQ_AI __m512i iq_lanes_avx512(void) {
  return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
SQ_AI int iq_argmin_avx512(__m512 v, __m512i at) {
  float m = _mm512_reduce_min_ps(v);
  if (m == FLT_MAX) return -1;
  __mmask16 eq = _mm512_cmp_ps_mask(v, _mm512_set1_ps(m), _CMP_EQ_OQ);
  return _mm512_mask_reduce_min_epi32(eq, at);
}

#include "kernels/ggml_iq2_x86.h"
#include "kernels/x86_width_end.h"

#endif
