/*
** ggml_iq2_x86_avx2.c: the lattice searches of iq2_xxs, iq2_xs, iq2_s,
** iq1_s and iq1_m on AVX2, eight candidates side by side
** (docs/NUMERICS.md#ggml; ggml_iq2_x86.h is the body and states the
** rules).  Here: the lookups of a weight's term by digit (vpermps over one
** 256-bit table) and the loads of the neighbour lists.
*/
#include <float.h>
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
SQ_AI __m256i iq_entries_avx2(const uint16_t *p) {
  return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
}
SQ_AI __m256i iq_gather_avx2(const uint32_t *t, __m256i idx) {
  return _mm256_i32gather_epi32((const int *)(const void *)t, idx, 4);
}

#include "kernels/ggml_iq2_x86.h"
#include "kernels/x86_width_end.h"

#endif
