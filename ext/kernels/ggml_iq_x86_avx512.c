/*
** ggml_iq_x86_avx512.c: the iq2_xxs, iq2_xs, iq2_s, iq1_s and iq1_m
** dequantizers on AVX-512 (docs/NUMERICS.md#ggml): ggml_iq_x86.h's
** template at 16 lanes, two grid entries per vector, the signs a mask
** register.  (iq3_xxs, iq3_s, iq4_nl and iq4_xs run ggml_iq_x86_avx2.c's on
** this path too.)
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq2.h"
#include "kernels/ggml_blocks.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 16
#include "kernels/x86_width.h"

/* The 8 bytes of grid entry g0 in lanes 0..7 and of g1 in 8..15, widened. */
SQ_AI __m128i grid16_avx512(const void *g0, const void *g1) {
  return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)g0),
                            _mm_loadl_epi64((const __m128i *)g1));
}
SQ_AI vint grid_u8_avx512(const void *g0, const void *g1) {
  return _mm512_cvtepu8_epi32(grid16_avx512(g0, g1));
}
SQ_AI vint grid_i8_avx512(const void *g0, const void *g1) {
  return _mm512_cvtepi8_epi32(grid16_avx512(g0, g1));
}
/* The sign bit flipped in the lanes of mask s. */
SQ_AI vfloat flip_avx512(vfloat v, unsigned s) {
  __m512i i = _mm512_castps_si512(v);
  return _mm512_castsi512_ps(
      _mm512_mask_xor_epi32(i, (__mmask16)s, i, _mm512_set1_epi32(INT32_MIN)));
}
SQ_AI vfloat pair_avx512(float a, float b) {
  return _mm512_mask_blend_ps((__mmask16)0xff00u, _mm512_set1_ps(a), _mm512_set1_ps(b));
}
SQ_AI void stream_avx512(void *p, vfloat v) { _mm512_stream_ps((float *)p, v); }

#include "kernels/ggml_iq_x86.h"

#include "kernels/x86_width_end.h"

#else
typedef int sq_unused_ggml_iq_avx512;
#endif
