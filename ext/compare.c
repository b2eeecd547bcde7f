/*
** compare.c: evaluates one quantization scheme on a tensor (for q_compare).
**
** A scheme is dtype x {affine, symmetric} x {tensor, channel along an axis,
** blocks of B along the last axis} x calibration method.  Its result is the
** round trip's error sums and what it costs to store:
**   bits_per_weight = (n * code_bits + groups * param_bits) / n, where a group
**   stores a float32 scale and, for affine schemes, a zero point in the code
**   dtype (symmetric signed zero points are implied 0 and cost nothing);
**   bytes = ceil(n * code_bits / 8) + groups * 4 + affine ? ceil(groups * code_bits / 8) : 0.
*/
#include <string.h>
#include "core.h"
#include "kernels/kernels_internal.h"

size_t sq_scheme_groups(const sq_shape *shape, const sq_scheme *s) {
  sq_status st = {0};
  sq_layout l;
  sq_block_layout b;
  if (s->granularity == SQ_GRAN_TENSOR) return 1;
  if (s->granularity == SQ_GRAN_CHANNEL)
    return sq_layout_make(shape, s->axis, &l, &st) ? 0 : l.channels;
  return sq_block_layout_make(shape, -1, s->block, &b, &st) ? 0 : b.nparams;
}

int sq_scheme_ranges(const sq_kernels *k, const sq_tensor *x,
                     const sq_shape *shape, const sq_scheme *s,
                     const sq_range *r, const sq_options *o, float *mn,
                     float *mx, sq_status *st) {
  sq_layout l;
  sq_block_layout b;
  if (s->granularity == SQ_GRAN_TENSOR)
    return sq_calibrate(k, x, 0, r, s->symmetric, o, mn, mx, st);
  if (s->granularity == SQ_GRAN_CHANNEL)
    return sq_layout_make(shape, s->axis, &l, st) ||
           sq_channel_ranges(k, x, &l, r, s->symmetric, o, mn, mx, st);
  return sq_block_layout_make(shape, -1, s->block, &b, st) ||
         sq_block_ranges(k, x, &b, r, s->symmetric, o, mn, mx, st);
}

int sq_scheme_eval(const sq_kernels *k, const sq_tensor *x, const sq_shape *shape,
                   const sq_scheme *s, const sq_options *o, const float *ranges,
                   void *scratch, sq_scheme_result *res, sq_status *st) {
  sq_range r;
  sq_options so = *o;
  so.method = s->method;
  if (sq_range_resolve(s->dtype, &so, &r, st)) return st->code;
  size_t groups;
  sq_layout l;
  sq_block_layout b;
  if (s->granularity == SQ_GRAN_TENSOR) {
    groups = 1;
  } else if (s->granularity == SQ_GRAN_CHANNEL) {
    if (sq_layout_make(shape, s->axis, &l, st)) return st->code;
    groups = l.channels;
  } else {
    if (sq_block_layout_make(shape, -1, s->block, &b, st)) return st->code;
    groups = b.nparams;
  }
  float *mm = sq_alloc(st, groups, 8);
  unsigned char *params = mm ? sq_alloc(st, groups, 8) : NULL;
  sq_channel_set cs = {0};
  if (!params) goto done;
  int sym = s->symmetric;
  if (ranges)
    memcpy(mm, ranges, groups * 8);
  else if (sq_scheme_ranges(k, x, shape, s, &r, &so, mm, mm + groups, st))
    goto done;
  for (size_t g = 0; g < groups; g++) {
    float scale;
    int32_t zp;
    if (sq_choose_qparams(mm[g], mm[groups + g], &r, sym, &scale, &zp, st))
      goto done;
    sq_store_f32(params + 4 * g, scale);
    sq_store_u32(params + 4 * (groups + g), (uint32_t)zp);
  }
  if (sq_channel_set_make(params, params + 4 * groups, groups, "group", &r,
                          so.rounding_onnx, &cs, st))
    goto done;
  int rc;
  if (s->granularity == SQ_GRAN_TENSOR)
    rc = sq_fake_quantize(k, x, &r, &cs.each[0], scratch, st);
  else if (s->granularity == SQ_GRAN_CHANNEL)
    rc = sq_fake_quantize_channels(k, x, &l, &r, &cs, scratch, st);
  else
    rc = sq_fake_quantize_blocks(k, x, &b, &r, &cs, scratch, st);
  if (rc) goto done;
  k->error_sums(x->data, scratch, x->n, &res->sums);
  int bits = s->dtype->bits;
  int affine = !sym;
  double n = (double)x->n;
  res->groups = groups;
  res->bits_per_weight =
      (n * bits + (double)groups * (32 + (affine ? bits : 0))) / n;
  res->bytes = ((uint64_t)x->n * (uint64_t)bits + 7) / 8 + (uint64_t)groups * 4 +
               (affine ? ((uint64_t)groups * (uint64_t)bits + 7) / 8 : 0);
done:
  sq_channel_set_free(&cs);
  sqlite3_free(mm);
  sqlite3_free(params);
  return st->code;
}
