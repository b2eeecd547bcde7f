/*
** ggml_kquants_x86_avx512.c: the K-quant sub-block searches on AVX-512,
** sixteen sub-blocks side by side (docs/NUMERICS.md#ggml;
** ggml_kquants_x86.h is the body and states the rules).  Here: the moves
** between sub-blocks and lanes, two 8x8 transposes per eight elements (lanes
** 0-7 and 8-15).
*/
#include "kernels/ggml_kquants.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 16
#include "kernels/x86_width.h"
#include "kernels/ggml_kquants_x86.h"

SQ_AI void store_bytes_avx512(unsigned char *p, __m512i v) {
  _mm_storeu_si128((__m128i *)(void *)p, _mm512_cvtepi32_epi8(v));
}

/* Element i of the nsub (8 or 16) sub-blocks at x (len values each, one
** after another) into lane k of v[i]; with 8 sub-blocks the upper lanes
** repeat them. */
static void to_lanes_avx512(const float *x, int len, int nsub, __m512 *v) {
  const float *upper = x + (nsub > 8 ? 8 * len : 0);
  for (int c = 0; c < len; c += 8) {
    __m256 lo[8], hi[8];
    for (int l = 0; l < 8; l++) {
      lo[l] = _mm256_loadu_ps(x + len * l + c);
      hi[l] = _mm256_loadu_ps(upper + len * l + c);
    }
    transpose8_avx512(lo);
    transpose8_avx512(hi);
    for (int i = 0; i < 8; i++)
      v[c + i] = _mm512_insertf32x8(_mm512_castps256_ps512(lo[i]), hi[i], 1);
  }
}

/* Levels (0..255) back from lanes into the nsub (8 or 16) sub-blocks of
** len bytes. */
static void from_lanes_avx512(const __m512i *v, int len, int nsub,
                              unsigned char *L) {
  for (int c = 0; c < len; c += 8) {
    for (int half = 0; half < nsub / 8; half++) {
      __m256 r[8];
      for (int i = 0; i < 8; i++)
        r[i] = _mm256_castsi256_ps(half ? _mm512_extracti32x8_epi32(v[c + i], 1)
                                        : _mm512_castsi512_si256(v[c + i]));
      transpose8_avx512(r);
      for (int l = 0; l < 8; l++) {
        __m128i b = _mm256_cvtepi32_epi8(_mm256_castps_si256(r[l]));
        _mm_storel_epi64((__m128i *)(void *)(L + len * (8 * half + l) + c), b);
      }
    }
  }
}

#include "kernels/x86_width_end.h"
#endif
