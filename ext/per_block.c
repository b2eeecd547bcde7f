/*
** per_block.c: group-wise quantization, ONNX opset 21 blocked semantics.
**
** Along `axis` (length A), element i belongs to block floor(i / block_size);
** the last block may be short.  The parameter tensor is the input shape with
** A replaced by nblocks = ceil(A / block_size), row-major: the element at
** (outer o, axis index i, inner e) uses parameter (o*nblocks + i/bs)*inner + e.
** Two walks, as for channels:
**   - inner == 1 (blocks along the last axis, the LLM layout): each block is a
**     contiguous run and the per-tensor kernels run on it;
**   - inner > 1: each axis index is a row of `inner` elements whose
**     parameters are `inner` consecutive entries: the interleaved kernels run
**     on it with the parameter arrays offset to the block.
*/
#include <string.h>
#include "core.h"
#include "kernels/kernels_internal.h"

int sq_block_layout_make(const sq_shape *s, sqlite3_int64 axis,
                         sqlite3_int64 block_size, sq_block_layout *b,
                         sq_status *st) {
  sq_layout l;
  if (sq_layout_make(s, axis, &l, st)) return st->code;
  if (block_size < 1)
    return sq_fail(st, "block_size must be a positive integer, got %lld",
                   (long long)block_size);
  b->outer = l.outer;
  b->len = l.channels;
  b->inner = l.inner;
  b->axis = l.axis;
  b->block = (uint64_t)block_size > b->len ? b->len : (size_t)block_size;
  b->nblocks = (b->len + b->block - 1) / b->block;
  b->nparams = b->outer * b->nblocks * b->inner;
  return SQ_OK;
}

/* Parameters of the row at (o, i) for the interleaved kernels. */
static sq_channel_params sq_row_params(const sq_channel_set *cs, size_t off,
                                       size_t inner) {
  sq_channel_params p = cs->p;
  p.channels = inner;
  p.scale += off;
  p.inv += off;
  p.lo += off;
  p.hi += off;
  p.zp += off;
  return p;
}

int sq_block_ranges(const sq_kernels *k, const sq_tensor *x,
                    const sq_block_layout *b, const sq_range *r, int symmetric,
                    const sq_options *o, float *mn, float *mx, sq_status *st) {
  const unsigned char *p = x->data;
  for (size_t j = 0; j < b->nparams; j++) {
    mn[j] = __builtin_inff();
    mx[j] = -__builtin_inff();
  }
  if (b->inner == 1 && o->method == SQ_METHOD_MINMAX) {
    /* Blocks along the last axis: one kernel call per row of blocks. */
    for (size_t oi = 0; oi < b->outer; oi++) {
      size_t base = oi * b->len;
      size_t bad = k->minmax_blocks(p + 4 * base, b->len, b->block,
                                    mn + oi * b->nblocks, mx + oi * b->nblocks);
      if (bad < b->len) {
        float lo, hi;
        return sq_tensor_minmax(k, p + 4 * (base + bad), 1, base + bad, &lo,
                                &hi, st);
      }
    }
    return SQ_OK;
  }
  unsigned char *gather = NULL;
  if (o->method != SQ_METHOD_MINMAX && b->inner > 1 &&
      !(gather = sq_alloc(st, b->block, 4)))
    return st->code;
  for (size_t oi = 0; oi < b->outer && !st->code; oi++) {
    for (size_t blk = 0; blk < b->nblocks && !st->code; blk++) {
      size_t first = blk * b->block;
      size_t len = b->len - first < b->block ? b->len - first : b->block;
      size_t pbase = (oi * b->nblocks + blk) * b->inner;
      size_t ebase = (oi * b->len + first) * b->inner;
      if (b->inner == 1) {
        sq_tensor run = {p + 4 * ebase, len, NULL};
        sq_calibrate(k, &run, ebase, r, symmetric, o, &mn[pbase], &mx[pbase], st);
        continue;
      }
      for (size_t i = 0; i < len && !st->code; i++) {
        size_t e = ebase + i * b->inner;
        size_t bad = k->minmax_interleaved(p + 4 * e, 1, b->inner, mn + pbase,
                                           mx + pbase);
        if (bad < b->inner) {
          float lo, hi;
          sq_tensor_minmax(k, p + 4 * e, b->inner, e, &lo, &hi, st);
        }
      }
      if (o->method == SQ_METHOD_MINMAX) continue;
      for (size_t in = 0; in < b->inner && !st->code; in++) {
        for (size_t i = 0; i < len; i++)
          memcpy(gather + 4 * i, p + 4 * (ebase + i * b->inner + in), 4);
        sq_tensor g = {gather, len, NULL};
        sq_calibrate(k, &g, 0, r, symmetric, o, &mn[pbase + in], &mx[pbase + in],
                     st);
      }
    }
  }
  sqlite3_free(gather);
  return st->code;
}

static int sq_quantize_blocks_unpacked(const sq_kernels *k, const sq_tensor *x,
                                       const sq_block_layout *b,
                                       sq_code_type code,
                                       const sq_channel_set *cs, void *dst,
                                       size_t size, sq_status *st) {
  const unsigned char *p = x->data;
  unsigned char *q = dst;
  for (size_t oi = 0; oi < b->outer; oi++) {
    for (size_t blk = 0; blk < b->nblocks; blk++) {
      size_t first = blk * b->block;
      size_t len = b->len - first < b->block ? b->len - first : b->block;
      size_t pbase = (oi * b->nblocks + blk) * b->inner;
      size_t ebase = (oi * b->len + first) * b->inner;
      if (b->inner == 1) {
        size_t bad = k->quantize[code](p + 4 * ebase, len, &cs->each[pbase],
                                       q + size * ebase);
        if (bad < len) return sq_fail(st, "element %zu is NaN", ebase + bad);
        continue;
      }
      sq_channel_params rp = sq_row_params(cs, pbase, b->inner);
      for (size_t i = 0; i < len; i++) {
        size_t e = ebase + i * b->inner;
        size_t bad = k->quantize_interleaved[code](p + 4 * e, 1, &rp, q + size * e);
        if (bad < b->inner) return sq_fail(st, "element %zu is NaN", e + bad);
      }
    }
  }
  return SQ_OK;
}

static void sq_dequantize_blocks_unpacked(const sq_kernels *k,
                                          const unsigned char *q,
                                          const sq_block_layout *b,
                                          sq_code_type code, size_t size,
                                          const sq_channel_set *cs,
                                          unsigned char *out) {
  for (size_t oi = 0; oi < b->outer; oi++) {
    for (size_t blk = 0; blk < b->nblocks; blk++) {
      size_t first = blk * b->block;
      size_t len = b->len - first < b->block ? b->len - first : b->block;
      size_t pbase = (oi * b->nblocks + blk) * b->inner;
      size_t ebase = (oi * b->len + first) * b->inner;
      if (b->inner == 1) {
        k->dequantize[code](q + size * ebase, len, cs->p.scale[pbase],
                            cs->p.zp[pbase], out + 4 * ebase);
        continue;
      }
      sq_channel_params rp = sq_row_params(cs, pbase, b->inner);
      for (size_t i = 0; i < len; i++) {
        size_t e = ebase + i * b->inner;
        k->dequantize_interleaved[code](q + size * e, 1, &rp, out + 4 * e);
      }
    }
  }
}

static size_t sq_code_size(const sq_dtype *dt) {
  return dt->bits == 4 ? 1 : (size_t)dt->bits / 8;
}

int sq_quantize_blocks(const sq_kernels *k, const sq_tensor *x,
                       const sq_block_layout *b, const sq_range *r,
                       const sq_channel_set *cs, void *codes, sq_status *st) {
  const sq_dtype *dt = r->dtype;
  if (dt->bits != 4)
    return sq_quantize_blocks_unpacked(k, x, b, dt->code, cs, codes,
                                       sq_code_size(dt), st);
  unsigned char *tmp = sq_alloc(st, x->n, 1);
  if (!tmp) return st->code;
  int rc = sq_quantize_blocks_unpacked(k, x, b, dt->code, cs, tmp, 1, st);
  if (!rc) k->pack4(tmp, x->n, codes);
  sqlite3_free(tmp);
  return rc;
}

int sq_dequantize_blocks(const sq_kernels *k, const void *codes,
                         const sq_block_layout *b, const sq_dtype *dt,
                         const sq_channel_set *cs, void *out, sq_status *st) {
  size_t n = b->outer * b->len * b->inner;
  if (dt->bits != 4) {
    sq_dequantize_blocks_unpacked(k, codes, b, dt->code, sq_code_size(dt), cs, out);
    return SQ_OK;
  }
  unsigned char *tmp = sq_alloc(st, n, 1);
  if (!tmp) return st->code;
  k->unpack4(codes, n, dt->is_signed, tmp);
  sq_dequantize_blocks_unpacked(k, tmp, b, dt->code, 1, cs, out);
  sqlite3_free(tmp);
  return SQ_OK;
}

int sq_fake_quantize_blocks(const sq_kernels *k, const sq_tensor *x,
                            const sq_block_layout *b, const sq_range *r,
                            const sq_channel_set *cs, void *out, sq_status *st) {
  size_t size = sq_code_size(r->dtype);
  unsigned char *tmp = sq_alloc(st, x->n, size);
  if (!tmp) return st->code;
  int rc = sq_quantize_blocks_unpacked(k, x, b, r->dtype->code, cs, tmp, size, st);
  if (!rc) sq_dequantize_blocks_unpacked(k, tmp, b, r->dtype->code, size, cs, out);
  sqlite3_free(tmp);
  return rc;
}
