/*
** ggml_quant.h: ggml's block formats over a tensor (docs/NUMERICS.md#ggml).
**
** A ggml tensor is rows along its last dimension, each a whole number of the
** type's blocks: the per-block granularity along the last axis with ggml's
** block size, where each block's parameters live inside its bytes.  Rows are
** walked as the granularity's pieces and each goes to the path's kernel in
** one call (weighted searches look at the whole row).
*/
#ifndef SQ_GGML_QUANT_H
#define SQ_GGML_QUANT_H

#include "core/granularity.h"
#include "core/tensor.h"
#include "kernels/ggml.h"

/* The type named by text (as ggml spells it, any case); else an error. */
int sq_ggml_type_parse(const char *text, size_t len, sq_ggml_type *t,
                       sq_status *st);
/* Adds every type's name to a message's list (core/text.h). */
struct sq_names;
void sq_ggml_type_names(struct sq_names *l);
/* Bits of storage per weight: 8 * bytes / block. */
double sq_ggml_bits_per_weight(sq_ggml_type t);

/* The granularity of type t over shape s (NULL: one row of n elements):
** rows along the last dimension, which must hold whole blocks. */
int sq_ggml_granularity(sq_ggml_type t, const sq_shape *s, size_t n,
                        sq_granularity *g, sq_status *st);
/* Bytes of the blocks of g (checked against the length limit). */
int sq_ggml_size(sq_ggml_type t, const sq_granularity *g, uint64_t *bytes,
                 sq_status *st);
/* Importance weights for rows of `cols`: one per column, finite, >= 0. */
int sq_ggml_check_importance(const sq_tensor *w, size_t cols, sq_status *st);

/* Blocks of x (finite: NaN or inf is an error naming the element), with
** importance w (NULL, or checked by sq_ggml_check_importance). */
int sq_ggml_quantize(const sq_kernels *k, sq_ggml_type t, const sq_tensor *x,
                     const sq_granularity *g, const sq_tensor *w, void *blocks,
                     sq_status *st);
/* mxfp4 blocks of x under a shared-exponent rule (SQ_MX_*; SQ_MX_GGML is
** sq_ggml_quantize's). */
int sq_ggml_quantize_mx(const sq_kernels *k, int rule, const sq_tensor *x,
                        const sq_granularity *g, void *blocks, sq_status *st);
/* Blocks of x as ggml's quantize_<type>(x, .., NULL) writes them, which is
** llama.cpp's quantizer without an imatrix; the same as sq_ggml_quantize
** without importance for every type but iq4_nl (kernels.h). */
int sq_ggml_quantize_unweighted(const sq_kernels *k, sq_ggml_type t,
                                const sq_tensor *x, const sq_granularity *g,
                                void *blocks, sq_status *st);
/* n float32 from the blocks (n a whole number of blocks). */
void sq_ggml_dequantize(const sq_kernels *k, sq_ggml_type t, const void *blocks,
                        size_t n, void *out);
/* The weights a blob of nbytes holds; an error unless whole blocks, and
** unless it equals count when count >= 0. */
int sq_ggml_count(sq_ggml_type t, size_t nbytes, int64_t count, size_t *n,
                  sq_status *st);
/* Is s a shape the n weights of type t's blocks were quantized with: n
** elements, in rows of whole blocks?  Its granularity into g. */
int sq_ggml_check_shape(sq_ggml_type t, const sq_shape *s, size_t n,
                        sq_granularity *g, sq_status *st);

#endif
