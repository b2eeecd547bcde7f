/*
** crc32_internal.h: what the CRC-32 paths share (kernels/crc32.h): the
** slicing tables and the folding constants, both computed once by
** sq_crc32_prepare (dispatch.c calls it before any path is handed out), and
** the scalar code the vector paths finish with.
**
** The folding constants, derived (docs/PERFORMANCE.md#crc-32 has the
** argument at more length).  Over GF(2), with P(x) = x^32 + 0x04C11DB7's
** polynomial, the raw CRC (no initial value, no final XOR) of a message
** M(x) of L bits is M(x) x^32 mod P.  The zip CRC is reflected: byte 0's
** bit 0 is the message's highest-degree coefficient.  A 16-byte block loaded
** little-endian into a 128-bit register R therefore holds the polynomial
** A(x) = sum R_k x^(127-k): the low 64 bits are the high half H (bit k is
** x^(63-k) of H) and the high 64 bits the low half L, A = H x^64 + L.
** Moving A forward over D more bits of message (A x^D) only matters mod P:
**     A x^D = H x^(D+64) + L x^D == H (x^(D+63) mod P) x + L (x^(D-1) mod P) x.
** PCLMULQDQ multiplies two 64-bit operands as polynomials with bit k the
** coefficient of x^k.  Given two reflected 64-bit operands (bit k is
** x^(63-k)), its 127-bit product has bit k = coefficient of x^(126-k) of
** the product: reflected in a 128-bit frame (bit k = x^(127-k)) it is the
** product times x.  So, with the constant K_hi = x^(D+63) mod P and
** K_lo = x^(D-1) mod P stored reflected in 64 bits (x^j at bit 63 - j),
**     clmul(R.lo, K_hi) xor clmul(R.hi, K_lo)
** is a 128-bit register whose polynomial is congruent to A x^D, placed as
** the block D bits later is: XOR it into that block ("folding").  Folding
** never changes the CRC, and at the end one register A with no bits after
** it remains, whose CRC is the raw CRC of its 16 bytes (A x^32 mod P): the
** slicing code reduces it, then continues over the last bytes (< 16).
** The initial value enters as the table code takes it: XORed into the
** first four bytes of the message.
*/
#ifndef SQ_CRC32_INTERNAL_H
#define SQ_CRC32_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "kernels/crc32.h"

/* t[k][i]: the raw CRC register after byte i followed by k zero bytes. */
extern uint32_t sq_crc32_table[16][256];

/* The folding distances D (bits) the vector paths use, and for each the
** pair {K_hi, K_lo} in the order a 128-bit register holds them (K_hi in the
** low 64 bits, which multiply the low half of the data register). */
enum { SQ_CRC_D128, SQ_CRC_D256, SQ_CRC_D384, SQ_CRC_D512, SQ_CRC_D2048,
       SQ_CRC_ND };
extern uint64_t sq_crc32_fold[SQ_CRC_ND][2];

/* Computes the tables and constants (idempotent; dispatch.c calls it once,
** before any CRC path is reachable). */
void sq_crc32_prepare(void);

/* Slicing by 16 on the raw register (no inversions): what every path uses
** for short inputs and the last bytes. */
uint32_t sq_crc32_raw(uint32_t reg, const unsigned char *p, size_t n);

uint32_t sq_crc32_scalar(uint32_t crc, const unsigned char *p, size_t n);
/* The AArch64 path exists (crc32_arm.c says when). */
#if defined(__aarch64__) && !defined(SQ_SCALAR_ONLY) && \
    !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) && \
    (defined(__ARM_FEATURE_CRC32) || (defined(__GNUC__) && !defined(__clang__)))
#define SQ_CRC32_ARMV8 1
uint32_t sq_crc32_armv8(uint32_t crc, const unsigned char *p, size_t n);
#else
#define SQ_CRC32_ARMV8 0
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(SQ_SCALAR_ONLY)
#include <immintrin.h>
uint32_t sq_crc32_pclmul(uint32_t crc, const unsigned char *p, size_t n);
uint32_t sq_crc32_vpclmul(uint32_t crc, const unsigned char *p, size_t n);
/* The end both x86 paths share (crc32_x86_pclmul.c): x is the raw register
** of the blocks so far; folds the 16-byte blocks of p[0..n) into it, reduces
** it and continues over the last n % 16 bytes.  Returns the final CRC. */
uint32_t sq_crc32_pclmul_end(__m128i x, const unsigned char *p, size_t n);

/* The constant pair for distance d as a 128-bit register. */
#define SQ_CRC_K128(d) \
  _mm_set_epi64x((long long)sq_crc32_fold[d][1], (long long)sq_crc32_fold[d][0])
/* x moved D bits on (k: D's pair), XORed into the block b found there (in
** functions whose target has PCLMULQDQ). */
#define SQ_CRC_FOLD128(x, k, b)                                           \
  _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128((x), (k), 0x00),       \
                              _mm_clmulepi64_si128((x), (k), 0x11)),      \
                (b))
#endif

#endif
