/*
** granularity.c: the one granularity model and its walk (granularity.h).
**
** The walk turns a granularity into the pieces the kernels take, without
** transposing anything:
**   - inner == 1 and a group per axis index (per channel along the last
**     axis): the tensor is an outer x len matrix with a group per column,
**     one piece for the interleaved kernels;
**   - inner == 1 otherwise: one piece per outer row, each a run of blocks
**     (per tensor: one block; per block: the kernels' block-wise min/max);
**   - inner > 1 and one group across inner (per channel): each (outer,
**     index) run of inner elements is contiguous and shares a group;
**   - inner > 1 and a group per inner index (per block): the rows of a
**     block share a row of groups, one piece for the interleaved kernels.
*/
#include "core/granularity.h"

/* The tensor around an axis: outer x len x inner. */
static int sq_around_axis(const sq_shape *s, int64_t axis, sq_granularity *g,
                          sq_status *st) {
  if (axis < -s->ndim || axis >= s->ndim)
    return sq_fail(st, "axis %lld is out of range for a %d-d shape (expected %d..%d)",
                   (long long)axis, s->ndim, -s->ndim, s->ndim - 1);
  int a = (int)(axis < 0 ? axis + s->ndim : axis);
  g->axis = a;
  g->outer = g->inner = 1;
  for (int i = 0; i < a; i++) g->outer *= (size_t)s->dim[i];
  g->len = (size_t)s->dim[a];
  for (int i = a + 1; i < s->ndim; i++) g->inner *= (size_t)s->dim[i];
  return SQ_OK;
}

void sq_granularity_tensor(size_t n, sq_granularity *g) {
  *g = (sq_granularity){SQ_GRAN_TENSOR, 1, n, 1, n ? n : 1, n ? 1 : 0, 1,
                        0, 0, 0, 0};
}

int sq_granularity_channel(const sq_shape *s, int64_t axis, sq_granularity *g,
                           sq_status *st) {
  if (sq_around_axis(s, axis, g, st)) return st->code;
  g->kind = SQ_GRAN_CHANNEL;
  g->block = 1;
  g->nblocks = g->groups = g->len;
  g->stride_outer = g->stride_inner = 0;
  g->stride_block = 1;
  return SQ_OK;
}

int sq_granularity_block(const sq_shape *s, int64_t axis, int64_t block_size,
                         sq_granularity *g, sq_status *st) {
  if (sq_around_axis(s, axis, g, st)) return st->code;
  if (block_size < 1)
    return sq_fail(st, "block_size must be a positive integer, got %lld",
                   (long long)block_size);
  g->kind = SQ_GRAN_BLOCK;
  g->block = (uint64_t)block_size > g->len ? g->len : (size_t)block_size;
  g->nblocks = (g->len + g->block - 1) / g->block;
  g->groups = g->outer * g->nblocks * g->inner;
  g->stride_outer = g->nblocks * g->inner;
  g->stride_block = g->inner;
  g->stride_inner = 1;
  return SQ_OK;
}

size_t sq_granularity_count(const sq_granularity *g) {
  return g->outer * g->len * g->inner;
}

/* Hands p to fn, split to at most `chunk` elements when chunk > 0. */
static int sq_emit(const sq_piece *p, size_t chunk, sq_piece_fn fn, void *ctx,
                   sq_status *st) {
  if (chunk == 0 || p->rows * p->cols <= chunk) return fn(ctx, p, st);
  sq_piece q = *p;
  if (p->block == 1) {                  /* interleaved: whole rows */
    size_t per = chunk / p->cols ? chunk / p->cols : 1;
    for (size_t r = 0; r < p->rows; r += per) {
      q.rows = p->rows - r < per ? p->rows - r : per;
      q.first = p->first + r * p->cols;
      if (fn(ctx, &q, st)) return st->code;
    }
    return SQ_OK;
  }
  /* A run (rows == 1): as many whole blocks as fit, or parts of one block. */
  if (p->block <= chunk) {
    size_t step = chunk / p->block * p->block;
    for (size_t c = 0; c < p->cols; c += step) {
      q.first = p->first + c;
      q.cols = p->cols - c < step ? p->cols - c : step;
      q.group = p->group + c / p->block;
      q.block = p->block < q.cols ? p->block : q.cols;
      if (fn(ctx, &q, st)) return st->code;
    }
    return SQ_OK;
  }
  for (size_t b = 0; b < p->cols; b += p->block) {
    size_t len = p->cols - b < p->block ? p->cols - b : p->block;
    for (size_t c = 0; c < len; c += chunk) {
      q.first = p->first + b + c;
      q.cols = q.block = len - c < chunk ? len - c : chunk;
      q.group = p->group + b / p->block;
      if (fn(ctx, &q, st)) return st->code;
    }
  }
  return SQ_OK;
}

int sq_granularity_walk(const sq_granularity *g, size_t chunk, sq_piece_fn fn,
                        void *ctx, sq_status *st) {
  if (sq_granularity_count(g) == 0) return SQ_OK;
  if (g->inner == 1) {
    if (g->block == 1 && g->stride_outer == 0) {
      sq_piece p = {0, g->outer, g->len, 1, 0};
      return sq_emit(&p, chunk, fn, ctx, st);
    }
    for (size_t o = 0; o < g->outer; o++) {
      sq_piece p = {o * g->len, 1, g->len, g->block, o * g->stride_outer};
      if (g->block > p.cols) p.block = p.cols;
      if (sq_emit(&p, chunk, fn, ctx, st)) return st->code;
    }
    return SQ_OK;
  }
  for (size_t o = 0; o < g->outer; o++) {
    for (size_t b = 0; b < g->nblocks; b++) {
      size_t rows = g->len - b * g->block < g->block ? g->len - b * g->block
                                                     : g->block;
      sq_piece p = {(o * g->len + b * g->block) * g->inner, rows, g->inner, 1,
                    o * g->stride_outer + b * g->stride_block};
      if (g->stride_inner == 0) {       /* one group across the run */
        p.rows = 1;
        p.cols = rows * g->inner;
        p.block = p.cols;
      }
      if (sq_emit(&p, chunk, fn, ctx, st)) return st->code;
    }
  }
  return SQ_OK;
}

size_t sq_granularity_piece_max(const sq_granularity *g, size_t chunk) {
  size_t n = sq_granularity_count(g), widest = chunk;
  if (g->inner == 1 && g->block == 1) {
    if (g->len > widest) widest = g->len;
  } else if (g->inner > 1 && g->stride_inner == 1) {
    if (g->inner > widest) widest = g->inner;
  }
  return widest < n ? widest : n;
}
