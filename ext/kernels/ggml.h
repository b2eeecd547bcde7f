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
#include "kernels/catalogue.h"

/* ggml's types in the order of its type ids, as ext/catalogue.toml lists
** them (kernels/catalogue.h). */
#define SQ_GGML_ENUM(t, T, ...) SQ_GGML_##T,
typedef enum sq_ggml_type {
  SQ_CATALOGUE_GGML_TYPES(SQ_GGML_ENUM)
  SQ_GGML_NTYPES
} sq_ggml_type;
#undef SQ_GGML_ENUM

typedef struct sq_ggml_format {
  const char *name;     /* as ggml spells it: "q4_0", "q4_K" */
  int ggml_id;          /* ggml's enum ggml_type, as GGUF files store it */
  size_t block;         /* weights per block: 32, or 256 for the K-quants */
  size_t bytes;         /* bytes per block */
  int affine;           /* the block stores a minimum (scheme affine) */
  int fp16[2];          /* offsets of the fp16 fields (d, m or dmin), -1: none */
  /* The kernel paths (SQ_KERNEL_PATH_* bits) whose tables have their own
  ** entry for the type; the others run the scalar one. */
  unsigned quantize_paths, dequantize_paths;
  /* ggml refuses to quantize the type without importance weights
  ** (ggml_quantize_requires_imatrix: its searches need them), and so do
  ** the kernels' callers; the kernel is never called with NULL. */
  int needs_importance;
} sq_ggml_format;

extern const sq_ggml_format sq_ggml_formats[SQ_GGML_NTYPES];

/* One row: n > 0 floats, a multiple of the type's block, all finite, into
** n / block blocks.  importance is NULL (ggml's reference quantizer) or n
** little-endian float32 weights >= 0, finite (llama.cpp's imatrix entries
** for the row's columns).  Some weighted searches depend on the whole row
** (its mean square), so with importance a row is never split across
** calls; without it every type quantizes each block (or super-block) on
** its own, and a row may be fed in pieces of whole blocks
** (tests/kernel_test.c checks the bytes are the same). */
typedef void (*sq_ggml_quantize_fn)(const void *x, size_t n,
                                    const void *importance, void *blocks);
/* The same, for x that may hold NaN or infinities: returns n when every
** element is finite, with the bytes sq_ggml_quantize_fn writes; otherwise
** the index of the first that is not (the blocks are then unspecified, and
** no non-finite value reached the quantizer).  The check rides on the
** quantizer's own loads, so that a caller need not read x twice. */
typedef size_t (*sq_ggml_quantize_checked_fn)(const void *x, size_t n,
                                              const void *importance,
                                              void *blocks);
/* n floats (a multiple of the block) from n / block blocks. */
typedef void (*sq_ggml_dequantize_fn)(const void *blocks, size_t n, void *y);

/* A path's own ggml kernels, by type: designated entries
** ([SQ_GGML_Q4_0] = ...), NULL for a type the path does not specialise.
** Callers never index these: sq_ggml_quantizer and sq_ggml_dequantizer
** (kernels.h) give the path's entry or, where it has none, the scalar
** one, as ggml falls back to its generic code per architecture. */
typedef struct sq_ggml_kernels {
  sq_ggml_quantize_fn own_quantize[SQ_GGML_NTYPES];
  sq_ggml_dequantize_fn own_dequantize[SQ_GGML_NTYPES];
  /* The own_quantize entries that also check x (NULL: none), read through
  ** sq_ggml_checked_quantizer. */
  sq_ggml_quantize_checked_fn own_quantize_checked[SQ_GGML_NTYPES];
} sq_ggml_kernels;

#endif
