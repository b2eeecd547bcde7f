/*
** bnb4.h: bitsandbytes' 4-bit formats, NF4 and FP4 (docs/NUMERICS.md#bitsandbytes-nf4-and-fp4).
**
** A tensor of n float32 (little-endian) is cut into blocks of `block`
** weights (a power of two, 32..4096), the last block possibly shorter; each
** block stores its absmax (float32) and every weight one 4-bit code, two
** codes a byte, the first in the high nibble (ONNX Runtime's MatMulBnb4
** layout); an odd count ends with a padding nibble.  The absmax can itself
** be stored nested (bitsandbytes' compress_statistics): an offset, and an
** 8-bit code of (absmax - offset) per weight block under one float32 scale
** per 256 of them.  Scalar only: the loops are the reference, and every
** kernel path runs them (bench_kernels --only bnb4 measures them).
*/
#ifndef SQ_BNB4_H
#define SQ_BNB4_H

#include <stddef.h>

/* Values are ONNX Runtime's quant_type attribute of MatMulBnb4. */
typedef enum { SQ_BNB4_FP4 = 0, SQ_BNB4_NF4 = 1 } sq_bnb4_type;

#define SQ_BNB4_MIN_BLOCK 32
#define SQ_BNB4_MAX_BLOCK 4096
#define SQ_BNB4_NESTED_BLOCK 256

/* The value of code c (0..15) of type t. */
float sq_bnb4_value(sq_bnb4_type t, unsigned c);

/* codes[0 .. (n + 1) / 2) and absmax[0 .. ceil(n / block)) of x[0..n), n > 0,
** every element finite.  absmax may be NULL. */
void sq_bnb4_quantize(sq_bnb4_type t, const void *x, size_t n, size_t block,
                      void *codes, void *absmax);
/* Only the absmax, as sq_bnb4_quantize stores it. */
void sq_bnb4_absmax(const void *x, size_t n, size_t block, void *absmax);
/* out[0..n) from codes and absmax as sq_bnb4_quantize lays them out. */
void sq_bnb4_dequantize(sq_bnb4_type t, const void *codes, const void *absmax,
                        size_t n, size_t block, void *out);

/* The nested form of m absmax values: sq_bnb4_nested_size(m) bytes, an
** offset, ceil(m / 256) scales (float32) and m uint8 codes. */
size_t sq_bnb4_nested_size(size_t m);
/* The m that a nested BLOB of `bytes` bytes holds, or 0 when none does. */
size_t sq_bnb4_nested_count(size_t bytes);
/* absmax[0..m), m > 0, every value finite, nested into out. */
void sq_bnb4_nest(const void *absmax, size_t m, void *out);
/* The m absmax values of a nested BLOB back (offset + code * scale). */
void sq_bnb4_unnest(const void *nested, size_t m, void *out);

#endif
