/*
** log2.h: the logarithmic (log2) code kernels (docs/NUMERICS.md#logarithmic-log2).
**
** Rules every path keeps (same conventions as kernels.h):
**   1. a code is one signed byte q = sign(x) * k, k in 0..kmax (kmax is 127
**      for int8, 7 for int4, whose nibbles the caller packs); k = 0 is zero,
**      k >= 1 stands for |x| = 2^(emax + 1 - k);
**   2. a group's parameter is its exponent emax in [-126, 127] (scale 2^emax,
**      the largest magnitude a code holds);
**   3. quantize: +-0 -> 0; +-inf -> +-1; finite x -> e = sq_rlog2(|x|),
**      k = emax + 1 - e, then k < 1 -> 1 (saturate) and k > kmax -> 0
**      (underflow to zero).  Returns n, or the index of the first NaN;
**   4. dequantize: 0 -> +0.0f; else sign(q) * 2^(emax + 1 - |q|), built from
**      bits (|q| may be 128 for a byte the quantizer never writes): powers
**      below 2^-149 round to nearest even, so 2^-150 and below give a zero
**      that keeps the code's sign, as a float32 multiply would;
**   5. only integer operations on the bits: every path and host agrees.
*/
#ifndef SQ_LOG2_H
#define SQ_LOG2_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The fraction bits of the smallest float32 mantissa >= sqrt(2):
** 1 + 0x3504F3 / 2^23 < sqrt(2) < 1 + 0x3504F4 / 2^23. */
#define SQ_LOG2_SQRT2_FRAC 0x3504F4u
/* Added to the bits of a normal |x|, it carries into the exponent exactly
** when the fraction is >= SQ_LOG2_SQRT2_FRAC. */
#define SQ_LOG2_ROUND_ADD (0x800000u - SQ_LOG2_SQRT2_FRAC)

/* rlog2 of the magnitude whose float32 bits are a (sign cleared, not NaN):
** the exponent of v = m * 2^E, 1 <= m < 2, plus 1 when m >= sqrt(2).
** Subnormals are normalised (their integer bits convert exactly to a float
** 2^149 times larger); +inf gives 128; zero gives -276, below every
** exponent a code can reach. */
static inline int32_t sq_rlog2_bits(uint32_t a) {
  if (a < 0x800000u) {
    float f = (float)(int32_t)a;
    uint32_t b;
    memcpy(&b, &f, 4);
    return (int32_t)((b + SQ_LOG2_ROUND_ADD) >> 23) - 127 - 149;
  }
  return (int32_t)((a + SQ_LOG2_ROUND_ADD) >> 23) - 127;
}

/* The float32 bits of 2^n for n <= 127, rounded to nearest even below the
** subnormals (2^-150 is a tie and goes to zero). */
static inline uint32_t sq_pow2_bits(int32_t n) {
  if (n >= -126) return (uint32_t)(n + 127) << 23;
  if (n >= -149) return 1u << (n + 149);
  return 0;
}

/* The code of one float (its bits u, not NaN). */
static inline int8_t sq_log2_code(uint32_t u, int32_t emax, int32_t kmax) {
  int32_t k = emax + 1 - sq_rlog2_bits(u & 0x7fffffffu);
  if (k < 1) k = 1;
  if (k > kmax) k = 0;
  return (int8_t)(u >> 31 ? -k : k);
}

/* The float32 bits of one code. */
static inline uint32_t sq_log2_value_bits(int8_t q, int32_t emax) {
  if (q == 0) return 0;
  int32_t m = q < 0 ? -(int32_t)q : q;
  return sq_pow2_bits(emax + 1 - m) | (q < 0 ? 0x80000000u : 0);
}

typedef struct sq_log2_kernels {
  /* n floats to n codes with one exponent. */
  size_t (*quantize)(const void *x, size_t n, int32_t emax, int32_t kmax,
                     void *q);
  /* rows x channels floats (row-major), element (r, c) with emax[c]; returns
  ** rows * channels or the flat index of the first NaN. */
  size_t (*quantize_interleaved)(const void *x, size_t rows, size_t channels,
                                 const int32_t *emax, int32_t kmax, void *q);
  void (*dequantize)(const void *q, size_t n, int32_t emax, void *y);
  void (*dequantize_interleaved)(const void *q, size_t rows, size_t channels,
                                 const int32_t *emax, void *y);
} sq_log2_kernels;

#endif
