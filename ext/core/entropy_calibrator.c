/*
** entropy_calibrator.c: method=entropy, ONNX Runtime's entropy (KL)
** calibrator (HistogramCollector with method='entropy', as
** EntropyCalibrater runs it), docs/NUMERICS.md#calibration.
**
**   1. Each row is one collect() batch.  The first row histograms its values
**      into `bins` (default 128) bins over (-T, T), T = max(|min|, |max|)
**      of the row (T = 0 gives numpy's (-0.5, 0.5)).
**   2. A later row with threshold t <= T is binned over the same range and
**      added bin by bin.  If T = 0 the new row's own range (-t, t) is used
**      and the old counts are added bin by bin.  Otherwise the histogram
**      grows: stride = 2T/bins, h = floor((t - T) / stride) + 1 bins are
**      added on each side, T becomes h*stride + T (a float64 from then on,
**      as in numpy), the row is binned over the new range and the old counts
**      are added to the middle bins unchanged (not re-binned).
**   3. Binning is numpy 1.24's np.histogram for uniform bins, step by step:
**      edges from linspace in double rounded to float32, the index from
**      float32 (x - first) * float32(bins / width) (in double when bins /
**      width is past float32's range, numpy's value-based casting), one correction step
**      down or up against the edges, the last bin closed, values outside
**      [first, last] (in float32) dropped.
**   4. range(): ORT's get_entropy_threshold.  For i from quantized_bins/2 to
**      bins/2, the candidate [edge[c-i], edge[min(c+i+1, bins)]] (c =
**      bins/2) is scored by the KL divergence between p (the slice, outliers
**      folded into its end bins) and q (the slice merged into quantized_bins
**      bins, spread back as the integer part of count / nonzeros, ORT's
**      int64 q array), both smoothed (quant_utils.smooth_distribution, eps
**      1e-4, float32) and normalised as scipy.stats.entropy does, with every
**      term rel_entr computed in double and rounded to float32 and float32
**      sums in numpy's pairwise order.  The first smallest wins; the range is
**      then clipped to the observed min and max.  ORT ignores its symmetric
**      flag here: the scheme only shapes the parameters chosen from the range.
**   5. Limits (docs/NUMERICS.md#limits): bins >= quantized_bins (the search
**      has no candidate otherwise), at most SQ_ENTROPY_MAX_BINS bins at any
**      time (the search is quadratic in bins), a range whose float32 width
**      overflows is refused, and so is a histogram ORT's smoothing asserts
**      on (more than 10000 empty bins per full one).
*/
#include <float.h>
#include <math.h>
#include <string.h>
#include "core/row_method.h"
#include "kernels/byteorder.h"

#define SQ_ENTROPY_DEFAULT_BINS 128
#define SQ_ENTROPY_DEFAULT_QUANTIZED 128
#define SQ_ENTROPY_MAX_BINS 16384

typedef struct sq_entropy {
  int64_t *hist;            /* nb counts */
  float *edges;             /* nb + 1 edges of the current histogram */
  size_t nb, quantized;
  double thr;               /* T */
  int thr64;                /* T is a float64 in numpy's typing (rule 2) */
  int rows;
  float mn, mx;             /* over every row */
} sq_entropy;

static void *sq_entropy_create(const sq_options *o, const sq_range *r,
                               int symmetric, sq_status *st) {
  (void)r;
  (void)symmetric;
  int64_t bins = o->bins ? o->bins : SQ_ENTROPY_DEFAULT_BINS;
  int64_t qb = o->quantized_bins ? o->quantized_bins : SQ_ENTROPY_DEFAULT_QUANTIZED;
  if (bins > SQ_ENTROPY_MAX_BINS) {
    sq_fail(st, "method=entropy needs bins <= %d, got %lld", SQ_ENTROPY_MAX_BINS,
            (long long)bins);
    return NULL;
  }
  if (bins < qb) {
    sq_fail(st, "method=entropy needs quantized_bins <= bins, got bins=%lld "
            "quantized_bins=%lld", (long long)bins, (long long)qb);
    return NULL;
  }
  sq_entropy *e = sq_alloc(st, 1, sizeof *e);
  if (!e) return NULL;
  memset(e, 0, sizeof *e);
  e->nb = (size_t)bins;
  e->quantized = (size_t)qb;
  return e;
}

static void sq_entropy_destroy(void *state) {
  sq_entropy *e = state;
  if (!e) return;
  sqlite3_free(e->hist);
  sqlite3_free(e->edges);
  sqlite3_free(e);
}

/* numpy's float64 floor division (npy_divmod) for b > 0. */
static double sq_py_floordiv(double a, double b) {
  double mod = fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && (b < 0) != (mod < 0)) div -= 1.0;
  if (div == 0.0) return copysign(0.0, a / b);
  double f = floor(div);
  if (div - f > 0.5) f += 1.0;
  return f;
}

/* Rule 3: np.histogram(x, nb, range=(-T, T)) added into out[0..nb), with
** edges[0..nb] set.  thr64 says whether T is a float64 or a float32 scalar
** to numpy (it changes only how the bin width is rounded). */
static int sq_entropy_bin(const sq_tensor *x, double thr, int thr64, size_t nb,
                          int64_t *out, float *edges, sq_status *st) {
  double first = -thr, last = thr;
  if (first == last) {      /* numpy widens an empty range */
    first -= 0.5;
    last += 0.5;
  }
  float ff = (float)first, fl = (float)last;
  float width32 = fl - ff;
  if (!isfinite(width32))
    return sq_fail(st, "method=entropy cannot histogram the range [%g, %g]: "
                   "its width overflows float32", first, last);
  double norm = (double)nb / (thr64 ? last - first : (double)width32);
  /* numpy multiplies the float32 differences by norm in float32, unless
  ** norm is past float32's range (tiny ranges), then in double */
  int wide = norm > (double)FLT_MAX;
  float normf = wide ? 0.0f : (float)norm;
  double step = (last - first) / (double)nb;
  for (size_t k = 0; k < nb; k++) {
    double y = (double)k * step;
    edges[k] = (float)(y + first);
  }
  edges[nb] = fl;
  const unsigned char *p = x->data;
  for (size_t i = 0; i < x->n; i++) {
    float v = sq_load_f32(p + 4 * i);
    if (!(v >= ff && v <= fl)) continue;
    float d = v - ff;
    double fi = wide ? (double)d * norm : (double)(d * normf);
    size_t b = (size_t)fi;  /* 0 <= fi <= nb * (1 + 2^-22) */
    if (b >= nb) b = nb - 1;
    if (v < edges[b]) b--;
    else if (b != nb - 1 && v >= edges[b + 1]) b++;
    out[b]++;
  }
  return SQ_OK;
}

static int sq_entropy_grow(sq_entropy *e, size_t nb, sq_status *st) {
  int64_t *h = sq_alloc(st, nb, sizeof *h);
  float *ed = h ? sq_alloc(st, nb + 1, sizeof *ed) : NULL;
  if (!ed) {
    sqlite3_free(h);
    return st->code;
  }
  memset(h, 0, nb * sizeof *h);
  sqlite3_free(e->hist);
  sqlite3_free(e->edges);
  e->hist = h;
  e->edges = ed;
  e->nb = nb;
  return SQ_OK;
}

static int sq_entropy_add(void *state, const sq_kernels *k, const sq_tensor *row,
                          float mn, float mx, sq_status *st) {
  (void)k;
  sq_entropy *e = state;
  float amn = fabsf(mn), amx = fabsf(mx);
  float t = amn >= amx ? amn : amx;
  if (e->rows == 0) {
    e->mn = mn;
    e->mx = mx;
    if (sq_entropy_grow(e, e->nb, st)) return st->code;
    e->thr = t;
    e->thr64 = 0;
    e->rows = 1;
    return sq_entropy_bin(row, e->thr, 0, e->nb, e->hist, e->edges, st);
  }
  if (mn < e->mn) e->mn = mn;
  if (mx > e->mx) e->mx = mx;
  e->rows++;
  if ((double)t <= e->thr) {   /* same range, counts added */
    /* the edges recomputed from the same T are the same edges */
    return sq_entropy_bin(row, e->thr, e->thr64, e->nb, e->hist, e->edges, st);
  }
  int64_t *old = e->hist;
  size_t old_nb = e->nb, half = 0;
  double thr = t;
  int thr64 = 0;
  if (e->thr != 0.0) {
    double stride = 2.0 * e->thr / (double)old_nb;
    double gap = e->thr64 ? (double)t - e->thr : (double)(t - (float)e->thr);
    double h = sq_py_floordiv(gap, stride) + 1.0;
    if (h > (double)SQ_ENTROPY_MAX_BINS)
      return sq_fail(st, "method=entropy: the histogram would grow past %d bins",
                     SQ_ENTROPY_MAX_BINS);
    half = (size_t)h;
    thr = (double)half * stride + e->thr;
    thr64 = 1;
  }
  size_t nb = old_nb + 2 * half;
  if (nb > SQ_ENTROPY_MAX_BINS)
    return sq_fail(st, "method=entropy: the histogram would grow past %d bins",
                   SQ_ENTROPY_MAX_BINS);
  e->hist = NULL;
  if (sq_entropy_grow(e, nb, st)) {
    e->hist = old;
    return st->code;
  }
  e->thr = thr;
  e->thr64 = thr64;
  if (!sq_entropy_bin(row, thr, thr64, nb, e->hist, e->edges, st))
    for (size_t b = 0; b < old_nb; b++) e->hist[half + b] += old[b];
  sqlite3_free(old);
  return st->code;
}

/* numpy's pairwise float32 sum (the order np.sum uses on a contiguous
** float32 array): blocks of up to 128 in 8 lanes, halves above. */
static float sq_pairwise_f32(const float *a, size_t n) {
  if (n < 8) {
    float r = 0.0f;
    for (size_t i = 0; i < n; i++) r += a[i];
    return r;
  }
  if (n <= 128) {
    float r[8];
    size_t i;
    for (int j = 0; j < 8; j++) r[j] = a[j];
    for (i = 8; i < n - n % 8; i += 8)
      for (int j = 0; j < 8; j++) r[j] += a[i + j];
    float s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) s += a[i];
    return s;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return sq_pairwise_f32(a, n2) + sq_pairwise_f32(a + n2, n - n2);
}

/* quant_utils.smooth_distribution into out: 0 done, 1 all zero (ORT's -1),
** -1 ORT's assertions fail. */
static int sq_smooth(const int64_t *v, size_t n, float *out) {
  size_t zeros = 0;
  for (size_t i = 0; i < n; i++) zeros += v[i] == 0;
  size_t nonzeros = n - zeros;
  if (nonzeros == 0) return 1;
  double eps1 = 0.0001 * (double)zeros / (double)nonzeros;
  if (!(eps1 < 1.0)) return -1;
  float add_zero = (float)0.0001, add_nonzero = (float)-eps1;
  for (size_t i = 0; i < n; i++) {
    out[i] = v[i] == 0 ? add_zero : (float)v[i] + add_nonzero;
    if (!(out[i] > 0.0f)) return -1;
  }
  return 0;
}

/* scipy.stats.entropy(p, q) on float32 p and q (both > 0 after smoothing):
** each normalised by its float32 pairwise sum, each term rel_entr in double
** rounded to float32, then the float32 pairwise sum of the terms. */
static float sq_kl(float *p, float *q, float *term, size_t n) {
  float sp = sq_pairwise_f32(p, n), sqs = sq_pairwise_f32(q, n);
  for (size_t i = 0; i < n; i++) {
    p[i] = p[i] / sp;
    q[i] = q[i] / sqs;
    double x = p[i], y = q[i];
    double t;
    if (x > 0.0 && y > 0.0) t = x * log(x / y);
    else if (x == 0.0 && y >= 0.0) t = 0.0;
    else t = HUGE_VAL;
    term[i] = (float)t;
  }
  return sq_pairwise_f32(term, n);
}

static int sq_entropy_range(void *state, float *lo, float *hi, sq_status *st) {
  sq_entropy *e = state;
  size_t nb = e->nb, nq = e->quantized, zero = nb / 2, nhq = nq / 2;
  /* scratch: p, q (int64, nb each), quantized counts (nq), three float
  ** arrays of nb, and prefix sums of the histogram (nb + 1) */
  int64_t *ibuf = sq_alloc(st, 3 * (uint64_t)nb + nq + 1, sizeof *ibuf);
  float *fbuf = ibuf ? sq_alloc(st, 3 * (uint64_t)nb, sizeof *fbuf) : NULL;
  if (!fbuf) {
    sqlite3_free(ibuf);
    return st->code;
  }
  int64_t *p = ibuf, *q = p + nb, *qbin = q + nb, *prefix = qbin + nq;
  float *fp = fbuf, *fq = fp + nb, *term = fq + nb;
  const int64_t *h = e->hist;
  prefix[0] = 0;
  for (size_t b = 0; b < nb; b++) prefix[b + 1] = prefix[b] + h[b];
  size_t best_start = 0, best_end = nb;
  double best = 0.0;
  for (size_t i = nhq; i <= zero && !st->code; i++) {
    size_t start = zero - i;
    size_t end = zero + i + 1 <= nb ? zero + i + 1 : nb;
    size_t size = end - start, merged = size / nq;
    memcpy(p, h + start, size * sizeof *p);
    p[0] += prefix[start];
    p[size - 1] += prefix[nb] - prefix[end];
    for (size_t j = 0; j < nq; j++)
      qbin[j] = prefix[start + (j + 1) * merged] - prefix[start + j * merged];
    qbin[nq - 1] += prefix[end] - prefix[start + nq * merged];
    memset(q, 0, size * sizeof *q);
    for (size_t j = 0; j < nq; j++) {
      size_t a = j * merged, b = a + merged, norm = 0;
      for (size_t m = a; m < b; m++) norm += p[m] != 0;
      if (norm == 0) continue;
      int64_t v = (int64_t)((double)qbin[j] / (double)norm);
      for (size_t m = a; m < b; m++) q[m] = v;
    }
    int sp = sq_smooth(p, size, fp), sq = sq_smooth(q, size, fq);
    if (sp != 0 || sq < 0) {
      sq_fail(st, "method=entropy cannot smooth a histogram of %zu bins with so "
              "few nonzero bins (ONNX Runtime's smooth_distribution asserts)", size);
      break;
    }
    double kl = sq == 1 ? HUGE_VAL : (double)sq_kl(fp, fq, term, size);
    if (i == nhq || kl < best) {
      best = kl;
      best_start = start;
      best_end = end;
    }
  }
  sqlite3_free(ibuf);
  sqlite3_free(fbuf);
  if (st->code) return st->code;
  *lo = e->edges[best_start];
  *hi = e->edges[best_end];
  if (*lo < e->mn) *lo = e->mn;
  if (*hi > e->mx) *hi = e->mx;
  return SQ_OK;
}

/* A state's counts and edges at the most bins growth allows. */
static uint64_t sq_entropy_max_bytes(const sq_options *o) {
  (void)o;
  return sizeof(sq_entropy) +
         (uint64_t)SQ_ENTROPY_MAX_BINS * (sizeof(int64_t) + sizeof(float)) + 4;
}

const sq_row_method sq_row_method_entropy = {
  SQ_METHOD_ENTROPY, "entropy", sq_entropy_create, sq_entropy_add,
  sq_entropy_range, sq_entropy_destroy, sq_entropy_max_bytes,
};
