/*
** ggml_kquants_x86_avx2.c: the K-quant sub-block searches on AVX2, eight
** sub-blocks side by side (docs/NUMERICS.md#ggml; ggml_kquants_x86.h is the
** body and states the rules).  Here: the moves between sub-blocks and
** lanes, one 8x8 transpose per eight elements.
*/
#include "kernels/ggml_kquants.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 8
#include "kernels/x86_width.h"
#include "kernels/ggml_kquants_x86.h"

SQ_AI void store_bytes_avx2(unsigned char *p, __m256i v) {
  __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64((__m128i *)(void *)p, _mm_packus_epi16(w, w));
}

/* Element i of sub-blocks 0..7 (len values each, one after another) into
** lane k of v[i] (nsub is always 8 here). */
static void to_lanes_avx2(const float *x, int len, int nsub, __m256 *v) {
  (void)nsub;
  for (int c = 0; c < len; c += 8) {
    for (int l = 0; l < 8; l++) v[c + l] = _mm256_loadu_ps(x + len * l + c);
    transpose8_avx2(v + c);
  }
}

/* Levels (0..255) back from lanes into eight sub-blocks of len bytes. */
static void from_lanes_avx2(const __m256i *v, int len, int nsub,
                            unsigned char *L) {
  (void)nsub;
  for (int c = 0; c < len; c += 8) {
    __m256 r[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_castsi256_ps(v[c + i]);
    transpose8_avx2(r);
    for (int l = 0; l < 8; l++)
      store_bytes_avx2(L + len * l + c, _mm256_castps_si256(r[l]));
  }
}

#include "kernels/x86_width_end.h"
#endif
