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
**   3. interleaved rows of 8 or more channels: whole vectors of channels
**      with each lane's own exponent, the row's last channels (and rows of
**      fewer channels, and a vector holding a NaN) by scalar; tails are
**      scalar's.
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

/* The int8 codes of eight floats u (none NaN) under per-lane top = emax + 1,
** stored at dst. */
static inline void sq_log2_codes8(__m256i u, __m256i top, __m256i kmaxv,
                                  int8_t *dst) {
  __m256i a = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  __m256i sub = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), a);
  __m256i af = _mm256_castps_si256(_mm256_cvtepi32_ps(a));
  __m256i b = _mm256_blendv_epi8(a, af, sub);
  __m256i e = _mm256_sub_epi32(
      _mm256_srli_epi32(_mm256_add_epi32(b, _mm256_set1_epi32((int32_t)SQ_LOG2_ROUND_ADD)), 23),
      _mm256_set1_epi32(127));
  e = _mm256_sub_epi32(e, _mm256_and_si256(sub, _mm256_set1_epi32(149)));
  __m256i k = _mm256_max_epi32(_mm256_sub_epi32(top, e), _mm256_set1_epi32(1));
  k = _mm256_andnot_si256(_mm256_cmpgt_epi32(k, kmaxv), k);
  k = _mm256_sign_epi32(k, u);
  __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(k),
                              _mm256_extracti128_si256(k, 1));
  _mm_storel_epi64((__m128i *)dst, _mm_packs_epi16(w, w));
}

/* Whether any of eight floats u is NaN. */
static inline int sq_log2_any_nan8(__m256i u) {
  __m256i bad = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                   _mm256_set1_epi32(0x7f800000));
  return !_mm256_testz_si256(bad, bad);
}

/* The float32 bits of eight codes c (int32 lanes) under per-lane top. */
static inline __m256i sq_log2_bits8(__m256i c, __m256i top) {
  __m256i e = _mm256_sub_epi32(top, _mm256_abs_epi32(c));
  __m256i normal = _mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23);
  __m256i tiny = _mm256_sllv_epi32(_mm256_set1_epi32(1),
                                   _mm256_add_epi32(e, _mm256_set1_epi32(149)));
  __m256i bits = _mm256_blendv_epi8(tiny, normal,
                                    _mm256_cmpgt_epi32(e, _mm256_set1_epi32(-127)));
  bits = _mm256_andnot_si256(_mm256_cmpeq_epi32(c, _mm256_setzero_si256()), bits);
  return _mm256_or_si256(bits, _mm256_slli_epi32(_mm256_srai_epi32(c, 31), 31));
}

static size_t sq_log2_quantize_avx2(const void *x, size_t n, int32_t emax,
                                    int32_t kmax, void *q) {
  sq_cb src = x;
  int8_t *dst = q;
  const __m256i top = _mm256_set1_epi32(emax + 1), kmaxv = _mm256_set1_epi32(kmax);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i u = _mm256_loadu_si256((const __m256i *)(src + 4 * i));
    if (sq_log2_any_nan8(u))
      return i + sq_log2_kernels_scalar.quantize(src + 4 * i, n - i, emax, kmax,
                                                 dst + i);
    sq_log2_codes8(u, top, kmaxv, dst + i);
  }
  if (i < n) return i + sq_log2_kernels_scalar.quantize(src + 4 * i, n - i, emax,
                                                        kmax, dst + i);
  return n;
}

/* Rows of `channels` >= 8 groups: whole vectors of channels per row, the
** row's last channels by scalar. */
static size_t sq_log2_quantize_il_avx2(const void *x, size_t rows,
                                       size_t channels, const int32_t *emax,
                                       int32_t kmax, void *q) {
  if (channels < 8)
    return sq_log2_quantize_il_scalar(x, rows, channels, emax, kmax, q);
  sq_cb src = x;
  int8_t *dst = q;
  const __m256i kmaxv = _mm256_set1_epi32(kmax), one = _mm256_set1_epi32(1);
  for (size_t r = 0; r < rows; r++) {
    size_t base = r * channels, c = 0;
    for (; c + 8 <= channels; c += 8) {
      __m256i u = _mm256_loadu_si256((const __m256i *)(src + 4 * (base + c)));
      if (sq_log2_any_nan8(u))
        break;
      __m256i top = _mm256_add_epi32(
          _mm256_loadu_si256((const __m256i *)(emax + c)), one);
      sq_log2_codes8(u, top, kmaxv, dst + base + c);
    }
    if (c < channels) {
      size_t done = sq_log2_quantize_il_scalar(src + 4 * (base + c), 1,
                                               channels - c, emax + c, kmax,
                                               dst + base + c);
      if (done < channels - c) return base + c + done;
    }
  }
  return rows * channels;
}

static void sq_log2_dequantize_avx2(const void *q, size_t n, int32_t emax,
                                    void *y) {
  const int8_t *src = q;
  sq_b dst = y;
  const __m256i top = _mm256_set1_epi32(emax + 1);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i c = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(src + i)));
    _mm256_storeu_si256((__m256i *)(dst + 4 * i), sq_log2_bits8(c, top));
  }
  if (i < n) sq_log2_kernels_scalar.dequantize(src + i, n - i, emax, dst + 4 * i);
}

static void sq_log2_dequantize_il_avx2(const void *q, size_t rows,
                                       size_t channels, const int32_t *emax,
                                       void *y) {
  if (channels < 8) {
    sq_log2_dequantize_il_scalar(q, rows, channels, emax, y);
    return;
  }
  const int8_t *src = q;
  sq_b dst = y;
  const __m256i one = _mm256_set1_epi32(1);
  for (size_t r = 0; r < rows; r++) {
    size_t base = r * channels, c = 0;
    for (; c + 8 <= channels; c += 8) {
      __m256i v = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(src + base + c)));
      __m256i top = _mm256_add_epi32(
          _mm256_loadu_si256((const __m256i *)(emax + c)), one);
      _mm256_storeu_si256((__m256i *)(dst + 4 * (base + c)), sq_log2_bits8(v, top));
    }
    if (c < channels)
      sq_log2_dequantize_il_scalar(src + base + c, 1, channels - c, emax + c,
                                   dst + 4 * (base + c));
  }
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#define SQ_LOG2_AVX2                                                          \
  {sq_log2_quantize_avx2, sq_log2_quantize_il_avx2, sq_log2_dequantize_avx2,  \
   sq_log2_dequantize_il_avx2}
const sq_log2_kernels sq_log2_kernels_avx2 = SQ_LOG2_AVX2;
const sq_log2_kernels sq_log2_kernels_avx512 = SQ_LOG2_AVX2;

#endif
