/*
** granularity.h: one description of how parameter groups cover a tensor.
**
** Around `axis` a row-major tensor is outer x len x inner.  Along the axis,
** every `block` consecutive indices share a group (the last block may be
** short), and element (o, i, e) belongs to group
**     o * stride_outer + (i / block) * stride_block + e * stride_inner.
** The three granularities are three settings of these numbers:
**     per tensor   outer 1, inner 1, block len   strides 0, 0, 0      1 group
**     per channel  block 1                       strides 0, 1, 0      len groups
**     per block    block B                       strides nblocks*inner, inner, 1
** (docs/NUMERICS.md#per-channel and docs/NUMERICS.md#per-block).  Every
** operation (ranges, quantize, dequantize, fake quantize, per-group errors)
** walks this description, so a new granularity is new numbers here, not new
** loops; docs/ARCHITECTURE.md#granularities shows how to add one.
*/
#ifndef SQ_GRANULARITY_H
#define SQ_GRANULARITY_H

#include <stddef.h>
#include "core/status.h"
#include "core/tensor.h"

typedef enum sq_granularity_kind {
  SQ_GRAN_TENSOR, SQ_GRAN_CHANNEL, SQ_GRAN_BLOCK
} sq_granularity_kind;

typedef struct sq_granularity {
  sq_granularity_kind kind;
  size_t outer, len, inner;
  size_t block, nblocks;    /* block clipped to len; nblocks = ceil(len/block) */
  size_t groups;
  size_t stride_outer, stride_block, stride_inner;
  int axis;                 /* normalised, 0 <= axis < ndim */
} sq_granularity;

/* One group over n elements. */
void sq_granularity_tensor(size_t n, sq_granularity *g);
/* One group per index along axis (negative counts from the end). */
int sq_granularity_channel(const sq_shape *s, int64_t axis, sq_granularity *g,
                           sq_status *st);
/* Blocks of block_size along axis (ONNX blocked quantization). */
int sq_granularity_block(const sq_shape *s, int64_t axis, int64_t block_size,
                         sq_granularity *g, sq_status *st);
/* Elements in the tensor. */
size_t sq_granularity_count(const sq_granularity *g);

/* A piece of the walk: rows x cols consecutive elements starting at element
** `first`; along a row every `block` elements share a group, the first
** element's being `group`.  So block == cols is one group for the piece
** (rows is then 1), block == 1 is one group per column (rows may be more:
** the interleaved kernels' layout), and anything between is a run of whole
** blocks, each group of which occurs in no other piece. */
typedef struct sq_piece {
  size_t first, rows, cols, block, group;
} sq_piece;

typedef int (*sq_piece_fn)(void *ctx, const sq_piece *p, sq_status *st);

/* Calls fn for every piece, in element order, covering every element once.
** chunk > 0 splits pieces so that each holds at most max(chunk, cols of an
** interleaved row) elements (temporaries then stay small); 0 leaves them
** whole.  Stops at fn's first error. */
int sq_granularity_walk(const sq_granularity *g, size_t chunk, sq_piece_fn fn,
                        void *ctx, sq_status *st);
/* The largest piece sq_granularity_walk(g, chunk) makes. */
size_t sq_granularity_piece_max(const sq_granularity *g, size_t chunk);

#endif
