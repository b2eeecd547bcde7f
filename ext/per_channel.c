/*
** per_channel.c: one scale and zero point per index along an axis (SPEC 3.4).
**
** A row-major tensor around `axis` is outer x channels x inner.  Two walks,
** neither of which transposes:
**   - inner > 1 (e.g. axis 0 of a conv weight): each (outer, channel) pair is
**     a contiguous run of `inner` elements with one set of parameters, so the
**     per-tensor kernels run on it directly;
**   - inner == 1 (the last axis): the tensor is an outer x channels matrix
**     and the interleaved kernels vectorise across channels.
** 4-bit codes are produced as 8-bit codes in a temporary and packed in one
** pass at the end (runs can start on an odd element, mid-byte).
*/
#include <string.h>
#include "core.h"
#include "kernels/kernels_internal.h"

int sq_channel_set_make(const void *scales, const void *zps, size_t channels,
                        const char *unit, const sq_range *r, int divide,
                        sq_channel_set *cs, sq_status *st) {
  memset(cs, 0, sizeof *cs);
  unsigned char *mem = sq_alloc(st, channels, 5 * 4 + sizeof(sq_qparams));
  if (!mem) return st->code;
  cs->mem = mem;
  cs->each = (sq_qparams *)mem;
  float *scale = (float *)(cs->each + channels);
  float *inv = scale + channels, *lo = inv + channels, *hi = lo + channels;
  int32_t *zp = (int32_t *)(hi + channels);
  for (size_t c = 0; c < channels; c++) {
    float s;
    int32_t z = (int32_t)sq_load_u32((const unsigned char *)zps + 4 * c);
    if (sq_check_scale((double)sq_load_f32((const unsigned char *)scales + 4 * c),
                       unit, (int64_t)c, &s, st) ||
        sq_check_zero_point(z, r, unit, (int64_t)c, st))
      return st->code;
    sq_qparams_make(s, z, r, divide, &cs->each[c]);
    scale[c] = s;
    inv[c] = cs->each[c].inv;
    lo[c] = cs->each[c].lo;
    hi[c] = cs->each[c].hi;
    zp[c] = z;
  }
  cs->p = (sq_channel_params){channels, scale, inv, lo, hi, zp,
                              (int32_t)r->qmin, (int32_t)r->qmax, divide};
  return SQ_OK;
}

void sq_channel_set_free(sq_channel_set *cs) {
  sqlite3_free(cs->mem);
  cs->mem = NULL;
}

int sq_channel_minmax(const sq_kernels *k, const sq_tensor *x,
                      const sq_layout *l, float *mn, float *mx,
                      sq_status *st) {
  const unsigned char *p = x->data;
  size_t C = l->channels;
  for (size_t c = 0; c < C; c++) {
    mn[c] = __builtin_inff();
    mx[c] = -__builtin_inff();
  }
  if (l->inner == 1) {
    size_t bad = k->minmax_interleaved(p, l->outer, C, mn, mx);
    if (bad < x->n) return sq_tensor_minmax(k, p, x->n, 0, mn, mx, st);
    return SQ_OK;
  }
  for (size_t o = 0; o < l->outer; o++) {
    for (size_t c = 0; c < C; c++) {
      size_t base = (o * C + c) * l->inner;
      float lo, hi;
      if (sq_tensor_minmax(k, p + 4 * base, l->inner, base, &lo, &hi, st))
        return st->code;
      if (lo < mn[c]) mn[c] = lo;
      if (hi > mx[c]) mx[c] = hi;
    }
  }
  return SQ_OK;
}

/* Codes of every element as whole bytes/words (4-bit: one byte each). */
static int sq_quantize_unpacked(const sq_kernels *k, const sq_tensor *x,
                                const sq_layout *l, sq_code_type code,
                                const sq_channel_set *cs, void *dst,
                                size_t code_size, sq_status *st) {
  const unsigned char *p = x->data;
  unsigned char *q = dst;
  size_t C = l->channels, bad = x->n;
  if (l->inner == 1) {
    bad = k->quantize_interleaved[code](p, l->outer, &cs->p, q);
  } else {
    for (size_t o = 0; o < l->outer && bad == x->n; o++) {
      for (size_t c = 0; c < C; c++) {
        size_t base = (o * C + c) * l->inner;
        size_t b = k->quantize[code](p + 4 * base, l->inner, &cs->each[c],
                                     q + code_size * base);
        if (b < l->inner) {
          bad = base + b;
          break;
        }
      }
    }
  }
  if (bad < x->n) return sq_fail(st, "element %zu is NaN", bad);
  return SQ_OK;
}

int sq_quantize_channels(const sq_kernels *k, const sq_tensor *x,
                         const sq_layout *l, const sq_range *r,
                         const sq_channel_set *cs, void *codes,
                         sq_status *st) {
  const sq_dtype *dt = r->dtype;
  if (dt->bits != 4)
    return sq_quantize_unpacked(k, x, l, dt->code, cs, codes,
                                (size_t)dt->bits / 8, st);
  unsigned char *tmp = sq_alloc(st, x->n, 1);
  if (!tmp) return st->code;
  int rc = sq_quantize_unpacked(k, x, l, dt->code, cs, tmp, 1, st);
  if (!rc) k->pack4(tmp, x->n, codes);
  sqlite3_free(tmp);
  return rc;
}

static void sq_dequantize_unpacked(const sq_kernels *k, const unsigned char *q,
                                   const sq_layout *l, sq_code_type code,
                                   size_t code_size, const sq_channel_set *cs,
                                   unsigned char *out) {
  size_t C = l->channels;
  if (l->inner == 1) {
    k->dequantize_interleaved[code](q, l->outer, &cs->p, out);
    return;
  }
  for (size_t o = 0; o < l->outer; o++) {
    for (size_t c = 0; c < C; c++) {
      size_t base = (o * C + c) * l->inner;
      k->dequantize[code](q + code_size * base, l->inner, cs->p.scale[c],
                          cs->p.zp[c], out + 4 * base);
    }
  }
}

int sq_dequantize_channels(const sq_kernels *k, const void *codes,
                           const sq_layout *l, const sq_dtype *dt,
                           const sq_channel_set *cs, void *out,
                           sq_status *st) {
  size_t n = l->outer * l->channels * l->inner;
  if (dt->bits != 4) {
    sq_dequantize_unpacked(k, codes, l, dt->code, (size_t)dt->bits / 8, cs, out);
    return SQ_OK;
  }
  unsigned char *tmp = sq_alloc(st, n, 1);
  if (!tmp) return st->code;
  k->unpack4(codes, n, dt->is_signed, tmp);
  sq_dequantize_unpacked(k, tmp, l, dt->code, 1, cs, out);
  sqlite3_free(tmp);
  return SQ_OK;
}

/* Quantize into a code-sized temporary, then dequantize it: bit for bit the
** two-step route, without packing 4-bit codes in between. */
int sq_fake_quantize_channels(const sq_kernels *k, const sq_tensor *x,
                              const sq_layout *l, const sq_range *r,
                              const sq_channel_set *cs, void *out,
                              sq_status *st) {
  const sq_dtype *dt = r->dtype;
  size_t size = dt->bits == 4 ? 1 : (size_t)dt->bits / 8;
  unsigned char *tmp = sq_alloc(st, x->n, size);
  if (!tmp) return st->code;
  int rc = sq_quantize_unpacked(k, x, l, dt->code, cs, tmp, size, st);
  if (!rc) sq_dequantize_unpacked(k, tmp, l, dt->code, size, cs, out);
  sqlite3_free(tmp);
  return rc;
}

/* Sum of x^2 and of (x - y)^2 per channel, in double, for q_channels. */
void sq_channel_errors(const void *x, const void *y, const sq_layout *l,
                       double *sum_x2, double *sum_d2) {
  const unsigned char *a = x, *b = y;
  size_t C = l->channels, i = 0;
  for (size_t c = 0; c < C; c++) sum_x2[c] = sum_d2[c] = 0.0;
  for (size_t o = 0; o < l->outer; o++) {
    for (size_t c = 0; c < C; c++) {
      double sx = 0.0, sd = 0.0;
      for (size_t e = 0; e < l->inner; e++, i++) {
        double u = (double)sq_load_f32(a + 4 * i);
        double d = u - (double)sq_load_f32(b + 4 * i);
        sx += u * u;
        sd += d * d;
      }
      sum_x2[c] += sx;
      sum_d2[c] += sd;
    }
  }
}

int sq_channel_ranges(const sq_kernels *k, const sq_tensor *x,
                      const sq_layout *l, const sq_range *r, int symmetric,
                      const sq_options *o, float *mn, float *mx,
                      sq_status *st) {
  if (sq_channel_minmax(k, x, l, mn, mx, st)) return st->code;
  if (o->method == SQ_METHOD_MINMAX) return SQ_OK;
  /* Other methods look at one channel's values at a time: gather them. */
  size_t per = l->outer * l->inner;
  unsigned char *buf = sq_alloc(st, per, 4);
  if (!buf) return st->code;
  const unsigned char *p = x->data;
  for (size_t c = 0; c < l->channels && !st->code; c++) {
    for (size_t o2 = 0; o2 < l->outer; o2++)
      memcpy(buf + 4 * o2 * l->inner, p + 4 * (o2 * l->channels + c) * l->inner,
             4 * l->inner);
    sq_tensor t = {buf, per, NULL};
    sq_calibrate(k, &t, 0, r, symmetric, o, &mn[c], &mx[c], st);
  }
  sqlite3_free(buf);
  return st->code;
}
