/*
** log2_x86_avx2.c: the log2 code kernels for x86-64 with AVX2
** (sq_log2_kernels_avx2; the AVX-512 path uses them too).
**
** Rules (each function returns exactly scalar's bytes and value):
**   1. quantize: eight floats at a time with integer operations only, as
**      sq_log2_code does: |x| bits, subnormals converted exactly to the
**      float of their integer bits (cvtepi32_ps of a value below 2^23 is
**      exact, so neither the rounding mode nor DAZ/FTZ matters), the
**      exponent after adding SQ_LOG2_ROUND_ADD, k = emax + 1 - e clamped as
**      scalar clamps it, the sign applied with sign_epi32 and the int32
**      lanes narrowed with saturating packs (|k| <= 127, so nothing
**      saturates).  A block holding a NaN is redone by scalar from its
**      start, so the returned index and the bytes before it are scalar's;
**   2. dequantize: eight codes widened to int32, n = emax + 1 - |q|, the
**      normal power (n + 127) << 23 or the subnormal one 1 << (n + 149)
**      (sllv gives 0 for a negative count, which is the rounding of 2^-150
**      and below to zero), zero for q = 0, the sign bit for q < 0;
**   3. the interleaved layouts and tails are scalar's.
** Compiled with a target pragma, never -mavx2: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

static size_t sq_log2_quantize_avx2(const void *x, size_t n, int32_t emax,
                                    int32_t kmax, void *q) {
  sq_cb src = x;
  sq_b dst = q;
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
  const __m256i inf = _mm256_set1_epi32(0x7f800000);
  const __m256i min_normal = _mm256_set1_epi32(0x00800000);
  const __m256i round_add = _mm256_set1_epi32((int32_t)SQ_LOG2_ROUND_ADD);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256i sub_bias = _mm256_set1_epi32(149);
  const __m256i top = _mm256_set1_epi32(emax + 1);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i kmaxv = _mm256_set1_epi32(kmax);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i u = _mm256_loadu_si256((const __m256i *)(src + 4 * i));
    __m256i a = _mm256_and_si256(u, abs_mask);
    if (!_mm256_testz_si256(_mm256_cmpgt_epi32(a, inf), _mm256_cmpgt_epi32(a, inf))) {
      size_t bad = sq_log2_kernels_scalar.quantize(src + 4 * i, n - i, emax, kmax,
                                                   dst + i);
      return i + bad;
    }
    __m256i sub = _mm256_cmpgt_epi32(min_normal, a);
    __m256i af = _mm256_castps_si256(_mm256_cvtepi32_ps(a));
    __m256i b = _mm256_blendv_epi8(a, af, sub);
    __m256i e = _mm256_sub_epi32(
        _mm256_srli_epi32(_mm256_add_epi32(b, round_add), 23), bias);
    e = _mm256_sub_epi32(e, _mm256_and_si256(sub, sub_bias));
    __m256i k = _mm256_max_epi32(_mm256_sub_epi32(top, e), one);
    k = _mm256_andnot_si256(_mm256_cmpgt_epi32(k, kmaxv), k);
    k = _mm256_sign_epi32(k, u);
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(k),
                                _mm256_extracti128_si256(k, 1));
    _mm_storel_epi64((__m128i *)(dst + i), _mm_packs_epi16(w, w));
  }
  if (i < n) return i + sq_log2_kernels_scalar.quantize(src + 4 * i, n - i, emax,
                                                        kmax, dst + i);
  return n;
}

static void sq_log2_dequantize_avx2(const void *q, size_t n, int32_t emax,
                                    void *y) {
  sq_cb src = q;
  sq_b dst = y;
  const __m256i top = _mm256_set1_epi32(emax + 1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256i sub_bias = _mm256_set1_epi32(149);
  const __m256i below_normal = _mm256_set1_epi32(-127);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i c = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(src + i)));
    __m256i e = _mm256_sub_epi32(top, _mm256_abs_epi32(c));
    __m256i normal = _mm256_slli_epi32(_mm256_add_epi32(e, bias), 23);
    __m256i tiny = _mm256_sllv_epi32(one, _mm256_add_epi32(e, sub_bias));
    __m256i bits = _mm256_blendv_epi8(tiny, normal, _mm256_cmpgt_epi32(e, below_normal));
    bits = _mm256_andnot_si256(_mm256_cmpeq_epi32(c, zero), bits);
    bits = _mm256_or_si256(bits, _mm256_slli_epi32(_mm256_srai_epi32(c, 31), 31));
    _mm256_storeu_si256((__m256i *)(dst + 4 * i), bits);
  }
  if (i < n) sq_log2_kernels_scalar.dequantize(src + i, n - i, emax, dst + 4 * i);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#define SQ_LOG2_AVX2                                                          \
  {sq_log2_quantize_avx2, sq_log2_quantize_il_scalar, sq_log2_dequantize_avx2, \
   sq_log2_dequantize_il_scalar}
const sq_log2_kernels sq_log2_kernels_avx2 = SQ_LOG2_AVX2;
const sq_log2_kernels sq_log2_kernels_avx512 = SQ_LOG2_AVX2;

#endif
