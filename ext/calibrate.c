/*
** calibrate.c: the range a tensor is quantized with (SPEC 2.4 method=).
**
**   1. minmax: the observed min and max;
**   2. percentile (percentile=P, default 99.99): the range is clipped to the
**      P-th and (100-P)-th percentiles of the values (symmetric: the P-th
**      percentile of |x|).  Percentile definition: linear interpolation
**      between closest ranks, numpy's default: pos = P/100 * (n-1),
**      v = x[floor(pos)] + frac(pos) * (x[floor(pos)+1] - x[floor(pos)]) over
**      the sorted values, in double, rounded once to float32.  The ranks are
**      found exactly: groups of up to 2048 values sort a copy, larger ones
**      use a radix select of two passes over x for all ranks together;
**   3. mse: the range [a*min, a*max] for the a in {1.00, 0.99, ..., 0.21} whose
**      round trip has the smallest mean squared error.  Candidates are ranked
**      by an estimate from a 2048-bin histogram (one pass over x); then the
**      best candidate and the minmax range are both measured exactly and the
**      better one is kept (ties keep minmax), so mse is never worse than
**      minmax.  Cost: about four passes over x.  Deterministic: the same
**      arithmetic in the same order on every kernel path.
** The range returned always holds 0 once SPEC 3.3 widens it.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "kernels/kernels_internal.h"

/* Groups up to this size (a block, a small channel) are calibrated on their
** values directly: sorting for percentiles, exact errors for mse. */
#define SQ_SMALL_GROUP 2048
#define SQ_HIST_BINS 2048
#define SQ_MSE_CANDIDATES 80 /* a = 1.00, 0.99, ..., 0.21 */

/* Order-preserving map of float32 bits to unsigned keys. */
static inline uint32_t sq_sort_key(uint32_t u, int absolute) {
  if (absolute) u &= 0x7fffffffu;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static inline float sq_key_float(uint32_t k) {
  uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static int sq_key_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The values of `count` (at most 4) ranks (0-based) among x's n values.
** Small inputs sort a copy of their keys.  Large ones use a radix select:
** one pass histograms the top 16 bits of every key, which places each rank
** in a bin; a second pass histograms the low 16 bits of the keys in those
** (at most 4) bins.  Two passes whatever the count. */
static int sq_select_ranks(const unsigned char *x, size_t n, int absolute,
                           const size_t *rank, int count, float *out,
                           sq_status *st) {
  if (n <= SQ_SMALL_GROUP) {
    uint32_t keys[SQ_SMALL_GROUP];
    for (size_t i = 0; i < n; i++) keys[i] = sq_sort_key(sq_load_u32(x + 4 * i), absolute);
    qsort(keys, n, sizeof keys[0], sq_key_cmp);
    for (int j = 0; j < count; j++) out[j] = sq_key_float(keys[rank[j]]);
    return SQ_OK;
  }
  uint32_t *hist = sq_alloc(st, 5 * 65536, sizeof *hist);
  if (!hist) return st->code;
  memset(hist, 0, 65536 * sizeof *hist);
  for (size_t i = 0; i < n; i++)
    hist[sq_sort_key(sq_load_u32(x + 4 * i), absolute) >> 16]++;
  /* Each rank's top bin, and its rank within that bin. */
  uint32_t top[4], bins[4];
  size_t within[4];
  int nbins = 0, bin_of[4];
  for (int j = 0; j < count; j++) {
    uint32_t t = 0;
    size_t below = 0;
    while (below + hist[t] <= rank[j]) below += hist[t++];
    top[j] = t;
    within[j] = rank[j] - below;
    int b = 0;
    while (b < nbins && bins[b] != t) b++;
    if (b == nbins) bins[nbins++] = t;
    bin_of[j] = b;
  }
  uint32_t *low = hist + 65536;
  memset(low, 0, (size_t)nbins * 65536 * sizeof *low);
  for (size_t i = 0; i < n; i++) {
    uint32_t k = sq_sort_key(sq_load_u32(x + 4 * i), absolute);
    for (int b = 0; b < nbins; b++)
      if (k >> 16 == bins[b]) low[(size_t)b * 65536 + (k & 0xffff)]++;
  }
  for (int j = 0; j < count; j++) {
    const uint32_t *h = low + (size_t)bin_of[j] * 65536;
    uint32_t l = 0;
    size_t below = 0;
    while (below + h[l] <= within[j]) below += h[l++];
    out[j] = sq_key_float((top[j] << 16) | l);
  }
  sqlite3_free(hist);
  return SQ_OK;
}

/* Percentiles p[0..count) (count <= 2) of x, by linear interpolation
** between closest ranks; all ranks selected together. */
static int sq_percentiles(const unsigned char *x, size_t n, int absolute,
                          const double *p, int count, float *out,
                          sq_status *st) {
  size_t rank[4] = {0};
  double frac[2];
  for (int j = 0; j < count; j++) {
    double pos = p[j] / 100.0 * (double)(n - 1);
    size_t i = (size_t)pos;
    frac[j] = pos - (double)i;
    rank[2 * j] = i;
    rank[2 * j + 1] = i + 1 < n ? i + 1 : i;
  }
  float v[4] = {0};
  if (sq_select_ranks(x, n, absolute, rank, 2 * count, v, st)) return st->code;
  for (int j = 0; j < count; j++) {
    double lo = (double)v[2 * j], hi = (double)v[2 * j + 1];
    out[j] = frac[j] == 0.0 ? v[2 * j] : (float)(lo + frac[j] * (hi - lo));
  }
  return SQ_OK;
}

/* Exact round-trip MSE of x under the parameters chosen for [lo, hi];
** scratch holds x->n floats. */
static int sq_exact_mse(const sq_kernels *k, const sq_tensor *x,
                        const sq_range *r, int symmetric, int divide, float lo,
                        float hi, void *scratch, double *mse, sq_status *st) {
  float scale;
  int32_t zp;
  sq_qparams p;
  if (sq_choose_qparams(lo, hi, r, symmetric, &scale, &zp, st)) return st->code;
  sq_qparams_make(scale, zp, r, divide, &p);
  if (sq_fake_quantize(k, x, r, &p, scratch, st)) return st->code;
  sq_error_sums e;
  k->error_sums(x->data, scratch, x->n, &e);
  *mse = e.sum_d2 / (double)x->n;
  return SQ_OK;
}

/* Small groups: every candidate measured exactly, the first best kept. */
static int sq_mse_range_exact(const sq_kernels *k, const sq_tensor *x,
                              const sq_range *r, int symmetric, int divide,
                              float min_neg, float max_pos, float *lo,
                              float *hi, sq_status *st) {
  unsigned char scratch[4 * SQ_SMALL_GROUP];
  double best = HUGE_VAL;
  for (int c = 0; c < SQ_MSE_CANDIDATES; c++) {
    float a = 1.0f - (float)c / 100.0f;
    double mse = 0.0;
    float l = c ? min_neg * a : *lo, h = c ? max_pos * a : *hi;
    if (sq_exact_mse(k, x, r, symmetric, divide, l, h, scratch, &mse, st))
      return st->code;
    if (mse < best) {
      best = mse;
      *lo = l;
      *hi = h;
    }
  }
  return SQ_OK;
}


static int sq_mse_range(const sq_kernels *k, const sq_tensor *x,
                        const sq_range *r, int symmetric, int divide, float mn,
                        float mx, float *lo, float *hi, sq_status *st) {
  float min_neg = mn < 0.0f ? mn : 0.0f, max_pos = mx > 0.0f ? mx : 0.0f;
  double width = (double)max_pos - (double)min_neg;
  *lo = mn;
  *hi = mx;
  if (width == 0.0) return SQ_OK;
  if (x->n <= SQ_SMALL_GROUP)
    return sq_mse_range_exact(k, x, r, symmetric, divide, min_neg, max_pos, lo,
                              hi, st);
  double *hist = sq_alloc(st, SQ_HIST_BINS * 3, sizeof *hist);
  if (!hist) return st->code;
  memset(hist, 0, SQ_HIST_BINS * 3 * sizeof *hist);
  const unsigned char *p = x->data;
  double per_bin = SQ_HIST_BINS / width;
  for (size_t i = 0; i < x->n; i++) {
    double v = (double)sq_load_f32(p + 4 * i);
    double pos = (v - (double)min_neg) * per_bin;
    size_t b = pos <= 0.0 ? 0 : pos >= SQ_HIST_BINS ? SQ_HIST_BINS - 1 : (size_t)pos;
    hist[3 * b] += 1.0;
    hist[3 * b + 1] += v;
    hist[3 * b + 2] += v * v;
  }
  /* Estimate: every value of a bin lands on the code of the bin's mean, which
  ** is exact for bins that no rounding boundary crosses. */
  int best = 0;
  double best_err = HUGE_VAL;
  for (int c = 0; c < SQ_MSE_CANDIDATES; c++) {
    float a = 1.0f - (float)c / 100.0f;
    float scale;
    int32_t zp;
    if (sq_choose_qparams(min_neg * a, max_pos * a, r, symmetric, &scale, &zp, st))
      break;
    double err = 0.0, inv = 1.0 / (double)scale;
    for (int b = 0; b < SQ_HIST_BINS; b++) {
      double cnt = hist[3 * b];
      if (cnt == 0.0) continue;
      double mean = hist[3 * b + 1] / cnt;
      double q = nearbyint(mean * inv) + zp;
      if (q < (double)r->qmin) q = (double)r->qmin;
      if (q > (double)r->qmax) q = (double)r->qmax;
      double y = (q - zp) * (double)scale;
      err += hist[3 * b + 2] - 2.0 * y * hist[3 * b + 1] + cnt * y * y;
    }
    if (err < best_err) {
      best_err = err;
      best = c;
    }
  }
  sqlite3_free(hist);
  if (st->code) return st->code;
  if (best == 0) return SQ_OK;
  float a = 1.0f - (float)best / 100.0f;
  double mse_minmax, mse_best;
  void *scratch = sq_alloc(st, x->n, 4);
  if (!scratch) return st->code;
  if (sq_exact_mse(k, x, r, symmetric, divide, mn, mx, scratch, &mse_minmax, st) ||
      sq_exact_mse(k, x, r, symmetric, divide, min_neg * a, max_pos * a, scratch,
                   &mse_best, st)) {
    sqlite3_free(scratch);
    return st->code;
  }
  sqlite3_free(scratch);
  if (mse_best < mse_minmax) {
    *lo = min_neg * a;
    *hi = max_pos * a;
  }
  return SQ_OK;
}

int sq_calibrate(const sq_kernels *k, const sq_tensor *x, size_t index_base,
                 const sq_range *r, int symmetric, const sq_options *o,
                 float *lo, float *hi, sq_status *st) {
  if (x->n == 0) return sq_fail(st, "x is an empty tensor");
  if (sq_tensor_minmax(k, x->data, x->n, index_base, lo, hi, st))
    return st->code;
  if (o->method == SQ_METHOD_PERCENTILE) {
    if (symmetric) {
      float a = 0.0f;
      if (sq_percentiles(x->data, x->n, 1, &o->percentile, 1, &a, st))
        return st->code;
      *lo = -a;
      *hi = a;
      return SQ_OK;
    }
    double p[2] = {100.0 - o->percentile, o->percentile};
    float v[2] = {0.0f, 0.0f};
    if (sq_percentiles(x->data, x->n, 0, p, 2, v, st)) return st->code;
    *lo = v[0];
    *hi = v[1];
    return SQ_OK;
  }
  if (o->method == SQ_METHOD_MSE)
    return sq_mse_range(k, x, r, symmetric, o->rounding_onnx, *lo, *hi, lo, hi,
                        st);
  return SQ_OK;
}
