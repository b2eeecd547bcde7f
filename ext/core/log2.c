/*
** log2.c: logarithmic quantization under any granularity
** (docs/NUMERICS.md#logarithmic-log2).
**
** Rules:
**   1. codes are int8 or int4 (sign and magnitude 0..K, K = 127 or 7); any
**      other dtype is an error naming it;
**   2. a group's parameter is an exponent emax (scale 2^emax, zero point
**      0): from a range, rlog2 of its absolute max clamped to the normal
**      exponents [-126, 127] (a zero range gives 0); from the user, a scale
**      that is a normal float32 power of two, else an error naming the
**      group;
**   3. quantize, dequantize and fake quantize walk the granularity's pieces
**      as core/quantize.c does and hand each run or interleaved row to the
**      log2 kernels; int4 codes are made a byte each in a small temporary
**      and packed piece by piece, so no tensor-sized temporary is needed.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include "core/log2.h"
#include "core/quantize.h"
#include "kernels/byteorder.h"

#define SQ_LOG2_CHUNK 4096

int sq_log2_dtype_ok(const sq_dtype *dt) {
  return dt->kind == SQ_FMT_CODE && dt->is_signed && (dt->bits == 8 || dt->bits == 4);
}

int sq_log2_dtype_check(const sq_dtype *dt, sq_status *st) {
  if (sq_log2_dtype_ok(dt)) return SQ_OK;
  return sq_fail(st, "log2 codes need dtype int8 or int4, got %s", dt->name);
}

/* K: the largest code magnitude, 2^(bits-1) - 1. */
static int32_t sq_log2_kmax(const sq_dtype *dt) {
  return dt->bits == 4 ? 7 : 127;
}

int32_t sq_log2_emax(float lo, float hi) {
  float a = fabsf(lo) > fabsf(hi) ? fabsf(lo) : fabsf(hi);
  uint32_t u;
  memcpy(&u, &a, 4);
  if (u == 0) return 0;
  int32_t e = sq_rlog2_bits(u);
  return e < -126 ? -126 : e > 127 ? 127 : e;
}

float sq_log2_scale(int32_t emax) {
  uint32_t u = sq_pow2_bits(emax);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

int sq_log2_check_scale(double scale, const char *unit, int64_t index,
                        int32_t *emax, sq_status *st) {
  /* Converted only when in range (an out-of-range conversion is undefined). */
  float f = scale >= (double)FLT_MIN && scale <= (double)FLT_MAX ? (float)scale
                                                                  : 0.0f;
  uint32_t u;
  memcpy(&u, &f, 4);
  /* A normal float32 power of two: fraction bits zero, exponent 1..254,
  ** and the double itself exactly that float. */
  if (f != 0.0f && (double)f == scale && (u & 0x7fffffu) == 0) {
    *emax = (int32_t)(u >> 23) - 127;
    return SQ_OK;
  }
  char of[48] = "";
  if (unit) snprintf(of, sizeof of, " of %s %lld", unit, (long long)index);
  return sq_fail(st, "scale%s must be a power of two for log2, got %.9g", of,
                 scale);
}

int sq_log2_check_scales(const void *scales, size_t n, const char *unit,
                         int32_t *emax, sq_status *st) {
  const unsigned char *p = scales;
  for (size_t i = 0; i < n; i++)
    if (sq_log2_check_scale((double)sq_load_f32(p + 4 * i), unit, (int64_t)i,
                            &emax[i], st))
      return st->code;
  return SQ_OK;
}

/* What a walk carries from piece to piece. */
typedef struct sq_log2_walk {
  const sq_log2_kernels *lk;
  const sq_kernels *k;
  const sq_dtype *dt;
  const unsigned char *x, *codes_in;
  unsigned char *codes_out, *y, *tmp;
  const int32_t *emax;
} sq_log2_walk;

/* Codes of piece p into dst (a byte each); the index within the piece of
** the first NaN, or its element count. */
static size_t sq_log2_piece_codes(const sq_log2_walk *w, const sq_piece *p,
                                  unsigned char *dst) {
  const unsigned char *src = w->x + 4 * p->first;
  int32_t kmax = sq_log2_kmax(w->dt);
  if (p->block == 1)
    return w->lk->quantize_interleaved(src, p->rows, p->cols, w->emax + p->group,
                                       kmax, dst);
  for (size_t c = 0; c < p->cols; c += p->block) {
    size_t len = p->cols - c < p->block ? p->cols - c : p->block;
    size_t bad = w->lk->quantize(src + 4 * c, len,
                                 w->emax[p->group + c / p->block], kmax, dst + c);
    if (bad < len) return c + bad;
  }
  return p->cols;
}

/* Float32 of piece p's codes (a byte each, at src) into the output. */
static void sq_log2_piece_values(const sq_log2_walk *w, const sq_piece *p,
                                 const unsigned char *src) {
  unsigned char *dst = w->y + 4 * p->first;
  if (p->block == 1) {
    w->lk->dequantize_interleaved(src, p->rows, p->cols, w->emax + p->group, dst);
    return;
  }
  for (size_t c = 0; c < p->cols; c += p->block) {
    size_t len = p->cols - c < p->block ? p->cols - c : p->block;
    w->lk->dequantize(src + c, len, w->emax[p->group + c / p->block], dst + 4 * c);
  }
}

static int sq_log2_walk_run(const sq_granularity *g, sq_log2_walk *w, int tmp,
                            sq_piece_fn fn, sq_status *st) {
  if (!tmp) return sq_granularity_walk(g, 0, fn, w, st);
  unsigned char local[SQ_LOG2_CHUNK];
  size_t n = sq_granularity_piece_max(g, SQ_LOG2_CHUNK);
  w->tmp = n <= sizeof local ? local : sq_alloc(st, n, 1);
  if (!w->tmp) return st->code;
  int rc = sq_granularity_walk(g, SQ_LOG2_CHUNK, fn, w, st);
  if (w->tmp != local) sqlite3_free(w->tmp);
  return rc;
}

static int sq_log2_quantize_piece(void *ctx, const sq_piece *p, sq_status *st) {
  sq_log2_walk *w = ctx;
  int packed = w->dt->bits == 4;
  unsigned char *dst = packed ? w->tmp : w->codes_out + p->first;
  size_t n = p->rows * p->cols;
  size_t bad = sq_log2_piece_codes(w, p, dst);
  if (bad < n) return sq_fail(st, "element %zu is NaN", p->first + bad);
  if (packed) sq_pack4_at(w->k, w->tmp, n, p->first, w->codes_out);
  return SQ_OK;
}

int sq_log2_quantize(const sq_kernels *k, const sq_tensor *x,
                     const sq_granularity *g, const sq_dtype *dt,
                     const int32_t *emax, void *codes, sq_status *st) {
  sq_log2_walk w = {k->log2, k, dt, x->data, NULL, codes, NULL, NULL, emax};
  return sq_log2_walk_run(g, &w, dt->bits == 4, sq_log2_quantize_piece, st);
}

static int sq_log2_dequantize_piece(void *ctx, const sq_piece *p,
                                    sq_status *st) {
  (void)st;
  sq_log2_walk *w = ctx;
  const unsigned char *src = w->codes_in + p->first;
  if (w->dt->bits == 4) {
    sq_unpack4_at(w->k, w->codes_in, p->first, p->rows * p->cols, 1, w->tmp);
    src = w->tmp;
  }
  sq_log2_piece_values(w, p, src);
  return SQ_OK;
}

int sq_log2_dequantize(const sq_kernels *k, const void *codes,
                       const sq_granularity *g, const sq_dtype *dt,
                       const int32_t *emax, void *out, sq_status *st) {
  sq_log2_walk w = {k->log2, k, dt, NULL, codes, NULL, out, NULL, emax};
  return sq_log2_walk_run(g, &w, dt->bits == 4, sq_log2_dequantize_piece, st);
}

static int sq_log2_fake_piece(void *ctx, const sq_piece *p, sq_status *st) {
  sq_log2_walk *w = ctx;
  size_t n = p->rows * p->cols;
  size_t bad = sq_log2_piece_codes(w, p, w->tmp);
  if (bad < n) return sq_fail(st, "element %zu is NaN", p->first + bad);
  sq_log2_piece_values(w, p, w->tmp);
  return SQ_OK;
}

int sq_log2_fake_quantize(const sq_kernels *k, const sq_tensor *x,
                          const sq_granularity *g, const sq_dtype *dt,
                          const int32_t *emax, void *out, sq_status *st) {
  sq_log2_walk w = {k->log2, k, dt, x->data, NULL, NULL, out, NULL, emax};
  return sq_log2_walk_run(g, &w, 1, sq_log2_fake_piece, st);
}
