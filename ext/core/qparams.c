/*
** qparams.c: scale and zero point (docs/NUMERICS.md#choosing-parameters,
** docs/NUMERICS.md#the-tutorials-formula and
** docs/NUMERICS.md#argument-checks).
**
**   1. the observed range holds 0 (include_zero=1, the default): min_neg =
**      min(min, 0), max_pos = max(max, 0); under include_zero=0 they are the
**      data's own min and max, unless min == max, which is widened as under
**      include_zero=1 (the formula would divide by a zero width);
**   2. affine: scale = max((max_pos - min_neg) / (float)(qmax - qmin), eps),
**      zp = clamp(qmin - round_half_even(min_neg / scale), qmin, qmax);
**   3. symmetric: scale = max(max(-min_neg, max_pos) / ((float)(qmax - qmin) / 2),
**      eps); zp = 0 for signed dtypes, 128 for uint8 on its default range,
**      else (qmin + qmax) / 2; include_zero does not change it (a symmetric
**      range [-a, a] holds 0 by construction);
**   4. eps = 2^-23 (FLT_EPSILON); every step is float32, as PyTorch's
**      observers compute it;
**   5. params=double (the tutorial): rules 2-3 in double from the float32
**      min_neg and max_pos, without eps (a zero width still gets eps):
**      affine zp = clamp(round_half_even(qmin - min_neg / scale), qmin,
**      qmax) with the double scale; the scale is then rounded to float32;
**   6. a scale (given, or chosen by rules 2-5) must be a finite float32 > 0
**      whose reciprocal is a finite normal float32 (so scales lie in about
**      [2^-128, 2^126]); a zero point must lie in [qmin, qmax];
**   7. kernel parameters (sq_qparams_make) follow the rounding: torch
**      multiplies by 1/scale, onnx divides, tutorial divides and adds the
**      zero point in float32 before rounding (add = zp, lo = qmin, hi = qmax).
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/qparams.h"
#include "kernels/byteorder.h"

/* round_half_even(d) clamped to [lo, hi] (integers), for any finite d:
** clamping first keeps the conversion to an integer defined, and equals
** clamping after because lo and hi are integers. */
static int64_t sq_round_even_clamp(double d, int64_t lo, int64_t hi) {
  if (d <= (double)lo) return lo;
  if (d >= (double)hi) return hi;
  double t = trunc(d);
  double frac = d - t;
  int64_t r = (int64_t)t;
  if (frac > 0.5 || (frac == 0.5 && (r & 1))) r++;
  else if (frac < -0.5 || (frac == -0.5 && (r & 1))) r--;
  return r;
}

/* The symmetric zero point (rule 3). */
static int sq_symmetric_zp(const sq_range *r, int64_t *z, sq_status *st) {
  if (r->dtype->is_signed)
    *z = 0;
  else if (r->dtype->bits == 8 && r->is_default)
    *z = 128;
  else
    *z = (r->qmin + r->qmax) / 2;
  if (*z < r->qmin || *z > r->qmax)
    return sq_fail(st, "symmetric zero point %lld is outside the range %lld..%lld",
                   (long long)*z, (long long)r->qmin, (long long)r->qmax);
  return SQ_OK;
}

int sq_choose_qparams(float mn, float mx, const sq_range *r, int symmetric,
                      float *scale, int32_t *zp, sq_status *st) {
  /* Rule 1: the range is widened to hold 0 unless include_zero=0 asks for
  ** the data's own, and a zero-width range is widened either way. */
  int widen = r->include_zero || !(mn < mx);
  float min_neg = !widen ? mn : mn < 0.0f ? mn : 0.0f;
  float max_pos = !widen ? mx : mx > 0.0f ? mx : 0.0f;
  float s;
  int64_t z;
  if (r->params_double) {
    /* Rule 5: the tutorial's arithmetic, in double. */
    double levels = (double)(r->qmax - r->qmin), sd;
    if (symmetric) {
      double amax = -(double)min_neg > (double)max_pos ? -(double)min_neg
                                                       : (double)max_pos;
      sd = amax / (levels / 2.0);
      if (sq_symmetric_zp(r, &z, st)) return st->code;
    } else {
      sd = ((double)max_pos - (double)min_neg) / levels;
      z = sd > 0.0 ? sq_round_even_clamp((double)r->qmin - (double)min_neg / sd,
                                         r->qmin, r->qmax)
                   : r->qmin;
    }
    if (sd == 0.0) sd = (double)FLT_EPSILON;
    if (sd > (double)FLT_MAX)
      return sq_fail(st, "range %g..%g overflows float32", (double)mn, (double)mx);
    s = (float)sd;
    if (!(s > 0.0f) || isinf(1.0f / s))
      return sq_fail(st, "range %g..%g is too narrow for codes %lld..%lld (the "
                         "scale %.9g has no float32 reciprocal)",
                     (double)mn, (double)mx, (long long)r->qmin,
                     (long long)r->qmax, sd);
  } else if (symmetric) {
    float levels = (float)(r->qmax - r->qmin);
    float amax = -min_neg > max_pos ? -min_neg : max_pos;
    s = amax / (levels / 2.0f);
    if (s < FLT_EPSILON) s = FLT_EPSILON;
    if (sq_symmetric_zp(r, &z, st)) return st->code;
  } else {
    float levels = (float)(r->qmax - r->qmin);
    s = (max_pos - min_neg) / levels;
    if (s < FLT_EPSILON) s = FLT_EPSILON;
    if (isinf(s))
      return sq_fail(st, "range %g..%g overflows float32", (double)mn, (double)mx);
    /* min_neg / s is float32, rounded, then subtracted from qmin (PyTorch's
    ** order): qmin - round(v), not round(qmin - v), which differ at ties
    ** when qmin is odd. */
    float v = min_neg / s;
    z = r->qmin - sq_round_even_clamp((double)v, r->qmin - r->qmax, 0);
  }
  if (1.0f / s < FLT_MIN)
    return sq_fail(st, "range %g..%g is too wide for codes %lld..%lld (the "
                       "scale's reciprocal would be subnormal)",
                   (double)mn, (double)mx, (long long)r->qmin, (long long)r->qmax);
  *scale = s;
  *zp = (int32_t)z;
  return SQ_OK;
}

/* " of channel 3" / " of block 3", or "" for a per-tensor parameter. */
static void sq_group_suffix(char *buf, size_t size, const char *unit,
                            int64_t index) {
  if (!unit) buf[0] = 0;
  else snprintf(buf, size, " of %s %lld", unit, (long long)index);
}

int sq_check_scale(double scale, const char *unit, int64_t index, float *out,
                   sq_status *st) {
  float f = scale > 0.0 && scale <= (double)FLT_MAX ? (float)scale : 0.0f;
  if (f > 0.0f && !isinf(1.0f / f) && 1.0f / f >= FLT_MIN) {
    *out = f;
    return SQ_OK;
  }
  /* Only a failure pays for formatting the group's name. */
  char of[48];
  sq_group_suffix(of, sizeof of, unit, index);
  if (scale != scale) return sq_fail(st, "scale%s is NaN", of);
  if (!(scale > 0.0))
    return sq_fail(st, "scale%s must be greater than 0, got %.9g", of, scale);
  if (scale > (double)FLT_MAX)
    return sq_fail(st, "scale%s must be a finite float32, got %.9g", of, scale);
  if (!(f > 0.0f))
    return sq_fail(st, "scale %.9g%s rounds to 0 in float32", scale, of);
  if (isinf(1.0f / f))
    return sq_fail(st, "scale %.9g%s is too small (its float32 reciprocal overflows)",
                   scale, of);
  /* A reciprocal below FLT_MIN is subnormal: a CPU that flushes subnormals
  ** would turn it into 0, and inf * 0 into NaN.  No real scale is this big. */
  return sq_fail(st, "scale %.9g%s is too large (its float32 reciprocal is subnormal)",
                 scale, of);
}

int sq_check_zero_point(int64_t zp, const sq_range *r, const char *unit,
                        int64_t index, sq_status *st) {
  if (r->dtype->kind == SQ_FMT_FLOAT8 ? zp == 0
                                      : zp >= r->qmin && zp <= r->qmax)
    return SQ_OK;
  char of[48];
  sq_group_suffix(of, sizeof of, unit, index);
  if (r->dtype->kind == SQ_FMT_FLOAT8)
    return sq_fail(st, "zero_point%s must be 0 for %s codes, got %lld", of,
                   r->dtype->name, (long long)zp);
  return sq_fail(st, "zero_point %lld%s is out of range for %s (%lld..%lld)",
                 (long long)zp, of, r->dtype->name, (long long)r->qmin,
                 (long long)r->qmax);
}

void sq_qparams_make(float scale, int32_t zp, const sq_range *r, int rounding,
                     sq_qparams *p) {
  /* Rule 7.  sq_range_resolve refused tutorial for codes over 16 bits, so
  ** (float)zp, qmin and qmax are exact here; add = +0.0f otherwise changes
  ** no code (see the kernels' sq_code_small). */
  int tutorial = rounding == SQ_ROUNDING_TUTORIAL && r->dtype->bits <= 16;
  p->scale = scale;
  p->inv = 1.0f / scale;
  p->zp = zp;
  p->qmin = (int32_t)r->qmin;
  p->qmax = (int32_t)r->qmax;
  p->add = tutorial ? (float)zp : 0.0f;
  p->lo = tutorial ? (float)r->qmin : (float)(r->qmin - zp);
  p->hi = tutorial ? (float)r->qmax : (float)(r->qmax - zp);
  p->divide = rounding != SQ_ROUNDING_TORCH;
}

int sq_param_set_make(const void *scales, const void *zps, size_t groups,
                      const char *unit, const sq_range *r, int rounding,
                      sq_param_set *ps, sq_status *st) {
  memset(ps, 0, sizeof *ps);
  unsigned char *mem = sq_alloc(st, groups, 6 * 4 + sizeof(sq_qparams));
  if (!mem) return st->code;
  ps->mem = mem;
  ps->each = (sq_qparams *)mem;
  float *scale = (float *)(ps->each + groups);
  float *inv = scale + groups, *lo = inv + groups, *hi = lo + groups;
  float *add = hi + groups;
  int32_t *zp = (int32_t *)(add + groups);
  for (size_t g = 0; g < groups; g++) {
    float s;
    int32_t z = (int32_t)sq_load_u32((const unsigned char *)zps + 4 * g);
    if (sq_check_scale((double)sq_load_f32((const unsigned char *)scales + 4 * g),
                       unit, (int64_t)g, &s, st) ||
        sq_check_zero_point(z, r, unit, (int64_t)g, st))
      return st->code;
    sq_qparams_make(s, z, r, rounding, &ps->each[g]);
    scale[g] = s;
    inv[g] = ps->each[g].inv;
    lo[g] = ps->each[g].lo;
    hi[g] = ps->each[g].hi;
    add[g] = ps->each[g].add;
    zp[g] = z;
  }
  ps->p = (sq_channel_params){groups, scale, inv, lo, hi, zp,
                              (int32_t)r->qmin, (int32_t)r->qmax,
                              rounding != SQ_ROUNDING_TORCH, add};
  return SQ_OK;
}

int sq_param_set_choose(const float *mn, const float *mx, size_t groups,
                        const sq_range *r, int symmetric, int rounding,
                        sq_param_set *ps, sq_status *st) {
  memset(ps, 0, sizeof *ps);
  unsigned char *raw = sq_alloc(st, groups, 8);
  if (!raw) return st->code;
  for (size_t g = 0; g < groups; g++) {
    float scale;
    int32_t zp;
    if (sq_choose_qparams(mn[g], mx[g], r, symmetric, &scale, &zp, st)) {
      sqlite3_free(raw);
      return st->code;
    }
    sq_store_f32(raw + 4 * g, scale);
    sq_store_u32(raw + 4 * (groups + g), (uint32_t)zp);
  }
  int rc = sq_param_set_make(raw, raw + 4 * groups, groups, "group", r,
                             rounding, ps, st);
  sqlite3_free(raw);
  return rc;
}

void sq_param_one_make(float scale, int32_t zp, const sq_range *r, int rounding,
                       sq_param_one *one) {
  sq_qparams_make(scale, zp, r, rounding, &one->q);
  one->scale = scale;
  one->inv = one->q.inv;
  one->lo = one->q.lo;
  one->hi = one->q.hi;
  one->zp = zp;
  one->add = one->q.add;
  one->set.each = &one->q;
  one->set.mem = NULL;
  one->set.p = (sq_channel_params){1, &one->scale, &one->inv, &one->lo, &one->hi,
                                   &one->zp, (int32_t)r->qmin, (int32_t)r->qmax,
                                   one->q.divide, &one->add};
}

void sq_param_set_free(sq_param_set *ps) {
  sqlite3_free(ps->mem);
  ps->mem = NULL;
}

/* flatten: both calls inlined, so consecutive ranges' divisions overlap */
__attribute__((flatten))
int sq_choose_qparams_many(const float *mn, const float *mx, size_t count,
                           const sq_range *r, int symmetric, int rounding,
                           sq_qparams *out, sq_status *st) {
  for (size_t i = 0; i < count; i++) {
    float scale = 0.0f;
    int32_t zp = 0;
    if (sq_choose_qparams(mn[i], mx[i], r, symmetric, &scale, &zp, st))
      return st->code;
    sq_qparams_make(scale, zp, r, rounding, &out[i]);
  }
  return SQ_OK;
}
