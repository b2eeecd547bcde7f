/*
** crc32_x86_avx512.c: the "vpclmul" CRC-32 path: the folding of
** crc32_x86_pclmul.c on AVX-512 registers, each 64-byte register four
** 16-byte blocks side by side (VPCLMULQDQ multiplies every 128-bit lane by
** the same constant pair).  Four registers, 256 bytes per step; then into
** one register, its four lanes into one block, and the pclmul path's end
** (sq_crc32_pclmul_end).  Under 256 bytes the pclmul path does it all.
*/
#include "kernels/crc32_internal.h"

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(SQ_SCALAR_ONLY)

#define SQ_CRC_TARGET                                                      \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,"  \
                        "pclmul")))
/* Every lane of x moved D bits on (k: D's pair in every lane), XORed into
** b (one three-way XOR: ternary-logic table 0x96). */
#define SQ_CRC_FOLD512(x, k, b)                                            \
  _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128((x), (k), 0x00),      \
                            _mm512_clmulepi64_epi128((x), (k), 0x11), (b), \
                            0x96)

SQ_CRC_TARGET
uint32_t sq_crc32_vpclmul(uint32_t crc, const unsigned char *p, size_t n) {
  if (n < 256) return sq_crc32_pclmul(crc, p, n);
  __m512i z0 = _mm512_xor_si512(
      _mm512_loadu_si512(p),
      _mm512_inserti32x4(_mm512_setzero_si512(),
                         _mm_cvtsi32_si128((int)~crc), 0));
  __m512i z1 = _mm512_loadu_si512(p + 64), z2 = _mm512_loadu_si512(p + 128),
          z3 = _mm512_loadu_si512(p + 192);
  p += 256;
  n -= 256;
  const __m512i k16 = _mm512_broadcast_i32x4(SQ_CRC_K128(SQ_CRC_D2048));
  for (; n >= 256; p += 256, n -= 256) {
    z0 = SQ_CRC_FOLD512(z0, k16, _mm512_loadu_si512(p));
    z1 = SQ_CRC_FOLD512(z1, k16, _mm512_loadu_si512(p + 64));
    z2 = SQ_CRC_FOLD512(z2, k16, _mm512_loadu_si512(p + 128));
    z3 = SQ_CRC_FOLD512(z3, k16, _mm512_loadu_si512(p + 192));
  }
  /* Four consecutive registers: each 512 bits on, into the next; then whole
  ** 64-byte steps while they last. */
  const __m512i k4 = _mm512_broadcast_i32x4(SQ_CRC_K128(SQ_CRC_D512));
  z1 = SQ_CRC_FOLD512(z0, k4, z1);
  z2 = SQ_CRC_FOLD512(z1, k4, z2);
  z3 = SQ_CRC_FOLD512(z2, k4, z3);
  for (; n >= 64; p += 64, n -= 64)
    z3 = SQ_CRC_FOLD512(z3, k4, _mm512_loadu_si512(p));
  /* The lanes are four consecutive blocks: lane j moves 128 (3 - j) bits
  ** on, onto lane 3. */
  __m128i l0 = _mm512_castsi512_si128(z3),
          l1 = _mm512_extracti32x4_epi32(z3, 1),
          l2 = _mm512_extracti32x4_epi32(z3, 2),
          l3 = _mm512_extracti32x4_epi32(z3, 3);
  __m128i x = SQ_CRC_FOLD128(l2, SQ_CRC_K128(SQ_CRC_D128), l3);
  x = SQ_CRC_FOLD128(l1, SQ_CRC_K128(SQ_CRC_D256), x);
  x = SQ_CRC_FOLD128(l0, SQ_CRC_K128(SQ_CRC_D384), x);
  return sq_crc32_pclmul_end(x, p, n);
}

#undef SQ_CRC_TARGET
#undef SQ_CRC_FOLD512
#endif
