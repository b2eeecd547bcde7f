/*
** ggml.h: ggml's block formats, the kernels that write and read them
** (docs/NUMERICS.md#ggml).
**
** A row of n weights (n a whole number of blocks) becomes n / block blocks of
** `bytes` each, laid out exactly as ggml lays out block_<type>: fp16 fields
** little-endian, nibbles, high-bit planes and packed 6-bit scales in ggml's
** order.  Quantizing equals ggml's quantize_<type>(x, blocks, 1, n, imatrix):
** quantize_row_<type>_ref without importance weights, ggml's weighted search
** with them.  Dequantizing equals dequantize_row_<type>.  Same conventions as
** kernels.h: float buffers are little-endian float32 of any alignment, and
** every path writes the same bytes.
*/
#ifndef SQ_GGML_H
#define SQ_GGML_H

#include <stddef.h>

/* In the order of ggml's type ids. */
typedef enum sq_ggml_type {
  SQ_GGML_Q4_0, SQ_GGML_Q4_1, SQ_GGML_Q5_0, SQ_GGML_Q5_1, SQ_GGML_Q8_0,
  SQ_GGML_Q2_K, SQ_GGML_Q3_K, SQ_GGML_Q4_K, SQ_GGML_Q5_K, SQ_GGML_Q6_K,
  SQ_GGML_NTYPES
} sq_ggml_type;

typedef struct sq_ggml_format {
  const char *name;     /* as ggml spells it: "q4_0", "q4_K" */
  int ggml_id;          /* ggml's enum ggml_type, as GGUF files store it */
  size_t block;         /* weights per block: 32, or 256 for the K-quants */
  size_t bytes;         /* bytes per block */
} sq_ggml_format;

extern const sq_ggml_format sq_ggml_formats[SQ_GGML_NTYPES];

typedef struct sq_ggml_kernels {
  /* One row: n > 0 floats, a multiple of the type's block, all finite, into
  ** n / block blocks.  importance is NULL (ggml's reference quantizer) or
  ** n little-endian float32 weights >= 0, finite (llama.cpp's imatrix entries
  ** for the row's columns).  Some weighted searches depend on the whole row
  ** (its mean square), so a row is never split across calls. */
  void (*quantize[SQ_GGML_NTYPES])(const void *x, size_t n,
                                   const void *importance, void *blocks);
  /* n floats (a multiple of the block) from n / block blocks. */
  void (*dequantize[SQ_GGML_NTYPES])(const void *blocks, size_t n, void *y);
} sq_ggml_kernels;

#endif
