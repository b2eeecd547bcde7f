/*
** crc32_x86.c: the CRC-32 by carry-less multiplication (crc32_internal.h
** derives the folding and its constants): "pclmul" folds four 16-byte
** registers at a time (64 bytes per step, four independent multiply
** chains), "vpclmul" four 64-byte AVX-512 registers (256 bytes per step).
** Both end in one 16-byte register and the slicing code (crc32_scalar.c)
** for its reduction and the last < 16 bytes, so every path's result is the
** scalar one by construction of the algebra, not by a second algorithm.
** The instruction sets are named per function (target attributes), never
** by a compiler flag: only dispatch.c decides what may run.
*/
#include "kernels/crc32_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#include <immintrin.h>

#define SQ_CRC_TARGET_128 __attribute__((target("pclmul,sse4.1")))
#define SQ_CRC_TARGET_512 \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmul,sse4.1")))

/* The constant pair for distance d as a 128-bit register. */
#define SQ_CRC_K128(d) \
  _mm_set_epi64x((long long)sq_crc32_fold[d][1], (long long)sq_crc32_fold[d][0])

/* x moved D bits on (k: D's pair), XORed into the block b found there. */
#define SQ_CRC_FOLD128(x, k, b)                                           \
  _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128((x), (k), 0x00),       \
                              _mm_clmulepi64_si128((x), (k), 0x11)),      \
                (b))
#define SQ_CRC_FOLD512(x, k, b)                                           \
  _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128((x), (k), 0x00),     \
                            _mm512_clmulepi64_epi128((x), (k), 0x11), (b), \
                            0x96)

/* Below this many bytes the fold's setup costs more than slicing. */
#define SQ_CRC_MIN_128 64
#define SQ_CRC_MIN_512 256

/* The raw register x (one 16-byte block, nothing after it) reduced, then
** continued over the n < 16 bytes at p; returns the final CRC. */
SQ_CRC_TARGET_128 static uint32_t sq_crc_finish(__m128i x,
                                                const unsigned char *p,
                                                size_t n) {
  unsigned char b[16];
  _mm_storeu_si128((__m128i *)b, x);
  return ~sq_crc32_raw(sq_crc32_raw(0, b, 16), p, n);
}

/* Folds 16-byte blocks into x while at least 16 bytes remain. */
#define SQ_CRC_TAIL16(x, p, n)                                            \
  do {                                                                    \
    const __m128i k1_ = SQ_CRC_K128(SQ_CRC_D128);                         \
    for (; (n) >= 16; (p) += 16, (n) -= 16)                               \
      (x) = SQ_CRC_FOLD128((x), k1_,                                      \
                           _mm_loadu_si128((const __m128i *)(p)));        \
  } while (0)

SQ_CRC_TARGET_128
uint32_t sq_crc32_pclmul(uint32_t crc, const unsigned char *p, size_t n) {
  if (n < SQ_CRC_MIN_128) return sq_crc32_scalar(crc, p, n);
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
  /* x0..x3 are four consecutive blocks: each folded 128 bits into the
  ** next. */
  const __m128i k1 = SQ_CRC_K128(SQ_CRC_D128);
  x1 = SQ_CRC_FOLD128(x0, k1, x1);
  x2 = SQ_CRC_FOLD128(x1, k1, x2);
  x3 = SQ_CRC_FOLD128(x2, k1, x3);
  SQ_CRC_TAIL16(x3, p, n);
  return sq_crc_finish(x3, p, n);
}

SQ_CRC_TARGET_512
uint32_t sq_crc32_vpclmul(uint32_t crc, const unsigned char *p, size_t n) {
  if (n < SQ_CRC_MIN_512) return sq_crc32_pclmul(crc, p, n);
  __m512i z0 = _mm512_xor_si512(
      _mm512_loadu_si512(p),
      _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)~crc)));
  __m512i z1 = _mm512_loadu_si512(p + 64), z2 = _mm512_loadu_si512(p + 128),
          z3 = _mm512_loadu_si512(p + 192);
  p += 256;
  n -= 256;
  /* Each 128-bit lane holds its own block: the same pair in every lane. */
  const __m512i k16 = _mm512_broadcast_i32x4(SQ_CRC_K128(SQ_CRC_D2048));
  for (; n >= 256; p += 256, n -= 256) {
    z0 = SQ_CRC_FOLD512(z0, k16, _mm512_loadu_si512(p));
    z1 = SQ_CRC_FOLD512(z1, k16, _mm512_loadu_si512(p + 64));
    z2 = SQ_CRC_FOLD512(z2, k16, _mm512_loadu_si512(p + 128));
    z3 = SQ_CRC_FOLD512(z3, k16, _mm512_loadu_si512(p + 192));
  }
  const __m512i k4 = _mm512_broadcast_i32x4(SQ_CRC_K128(SQ_CRC_D512));
  z1 = SQ_CRC_FOLD512(z0, k4, z1);
  z2 = SQ_CRC_FOLD512(z1, k4, z2);
  z3 = SQ_CRC_FOLD512(z2, k4, z3);
  for (; n >= 64; p += 64, n -= 64)
    z3 = SQ_CRC_FOLD512(z3, k4, _mm512_loadu_si512(p));
  /* The four lanes are four consecutive blocks: lane j moves 128 (3 - j)
  ** bits on, onto lane 3. */
  __m128i l0 = _mm512_castsi512_si128(z3),
          l1 = _mm512_extracti32x4_epi32(z3, 1),
          l2 = _mm512_extracti32x4_epi32(z3, 2),
          l3 = _mm512_extracti32x4_epi32(z3, 3);
  __m128i x = SQ_CRC_FOLD128(l0, SQ_CRC_K128(SQ_CRC_D384),
                             SQ_CRC_FOLD128(l1, SQ_CRC_K128(SQ_CRC_D256),
                                            SQ_CRC_FOLD128(l2, SQ_CRC_K128(SQ_CRC_D128),
                                                           l3)));
  SQ_CRC_TAIL16(x, p, n);
  return sq_crc_finish(x, p, n);
}
/* File-local (the amalgamation reads the files that follow). */
#undef SQ_CRC_TARGET_128
#undef SQ_CRC_TARGET_512
#undef SQ_CRC_K128
#undef SQ_CRC_FOLD128
#undef SQ_CRC_FOLD512
#undef SQ_CRC_MIN_128
#undef SQ_CRC_MIN_512
#undef SQ_CRC_TAIL16
#endif
