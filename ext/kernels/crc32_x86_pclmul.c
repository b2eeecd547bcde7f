/*
** crc32_x86_pclmul.c: the "pclmul" CRC-32 path (crc32_internal.h derives
** the folding and its constants): four 16-byte registers folded at a time,
** 64 bytes per step in four independent multiply chains, then into one
** register, and the slicing code (crc32_scalar.c) for its reduction and the
** last < 16 bytes, so the result is the scalar one by the algebra, not by a
** second algorithm.  PCLMULQDQ and SSE only (no VEX encoding: isa.test
** holds this file to plain x86-64 plus PCLMULQDQ), enabled per function by a
** target attribute, never a compiler flag: only dispatch.c decides what may
** run.  crc32_x86_avx512.c ends through sq_crc32_pclmul_end too.
*/
#include "kernels/crc32_internal.h"

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(SQ_SCALAR_ONLY)

#define SQ_CRC_TARGET __attribute__((target("pclmul")))

SQ_CRC_TARGET
uint32_t sq_crc32_pclmul_end(__m128i x, const unsigned char *p, size_t n) {
  const __m128i k1 = SQ_CRC_K128(SQ_CRC_D128);
  for (; n >= 16; p += 16, n -= 16)
    x = SQ_CRC_FOLD128(x, k1, _mm_loadu_si128((const __m128i *)p));
  unsigned char b[16];
  _mm_storeu_si128((__m128i *)b, x);
  /* The raw CRC of x's 16 bytes (nothing after them) is x's remainder. */
  return ~sq_crc32_raw(sq_crc32_raw(0, b, 16), p, n);
}

SQ_CRC_TARGET
uint32_t sq_crc32_pclmul(uint32_t crc, const unsigned char *p, size_t n) {
  /* Below 64 bytes the setup costs more than slicing. */
  if (n < 64) return sq_crc32_scalar(crc, p, n);
  const __m128i *v = (const __m128i *)p;
  __m128i x0 = _mm_xor_si128(_mm_loadu_si128(v),
                             _mm_cvtsi32_si128((int)~crc));
  __m128i x1 = _mm_loadu_si128(v + 1), x2 = _mm_loadu_si128(v + 2),
          x3 = _mm_loadu_si128(v + 3);
  p += 64;
  n -= 64;
  const __m128i k4 = SQ_CRC_K128(SQ_CRC_D512);
  for (; n >= 64; p += 64, n -= 64) {
    v = (const __m128i *)p;
    x0 = SQ_CRC_FOLD128(x0, k4, _mm_loadu_si128(v));
    x1 = SQ_CRC_FOLD128(x1, k4, _mm_loadu_si128(v + 1));
    x2 = SQ_CRC_FOLD128(x2, k4, _mm_loadu_si128(v + 2));
    x3 = SQ_CRC_FOLD128(x3, k4, _mm_loadu_si128(v + 3));
  }
  /* x0..x3 are four consecutive blocks: each folded 128 bits on, into the
  ** next. */
  const __m128i k1 = SQ_CRC_K128(SQ_CRC_D128);
  x1 = SQ_CRC_FOLD128(x0, k1, x1);
  x2 = SQ_CRC_FOLD128(x1, k1, x2);
  x3 = SQ_CRC_FOLD128(x2, k1, x3);
  return sq_crc32_pclmul_end(x3, p, n);
}

#undef SQ_CRC_TARGET
#endif
