/*
** calibrate.c: the range each group is quantized with, by method=
** (docs/NUMERICS.md#calibration), under any granularity.
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
**      round trip has the smallest mean squared error.  Groups above 2048
**      values rank candidates by an estimate from an 8192-bin count
**      histogram (one pass over x, values taken at bin centers); then the
**      best candidate and the minmax range are both measured exactly in one
**      more pass, chunk by chunk, and the better one is kept (ties keep
**      minmax), so mse is never worse than minmax.  Cost: three passes over
**      x (minmax, histogram, exact).  Deterministic: the same arithmetic in
**      the same order on every kernel path.
** The range returned holds 0 once parameters are chosen from it
** (docs/NUMERICS.md#choosing-parameters), unless include_zero=0
** (docs/NUMERICS.md#the-tutorials-formula).  Every method first folds every
** group's min and max in one walk, which finds NaN and inf in element order;
** the others then look at each group's values, in place when they are one
** run, gathered into one buffer otherwise.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/calibrate.h"
#include "core/quantize.h"
#include "core/row_method.h"
#include "kernels/byteorder.h"
#include "kernels/fake_errors.h"

/* Groups up to this size (a block, a small channel) are calibrated on their
** values directly: sorting for percentiles, exact errors for mse. */
#define SQ_SMALL_GROUP 2048
#define SQ_MSE_CANDIDATES 80 /* a = 1.00, 0.99, ..., 0.21 */

/* Order-preserving map of float32 bits to unsigned keys. */
static inline uint32_t sq_sort_key(uint32_t u, int absolute) {
  /* Without branches: signs are random in real data and would mispredict.
  ** Negative: every bit flipped; otherwise the sign bit set. */
  u &= absolute ? 0x7fffffffu : 0xffffffffu;
  return u ^ ((uint32_t)-(int32_t)(u >> 31) | 0x80000000u);
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

/* Radix select (docs/NUMERICS.md#calibration): exact ranks of large groups
** in two passes over x, both cheap enough to run at memory speed.
**   1. A histogram of each key's top SQ_TOP_BITS bits: 2048 counters (8 KB)
**      that stay in L1, kept as SQ_SUB_HISTS copies fed in turn so that runs
**      of equal bins (most of a bell curve falls in a few) do not wait on one
**      counter; it places every rank in a top bin.
**   2. The keys of the (at most 4) top bins that hold a rank are copied into
**      one buffer, a segment per bin (a 2048-entry table maps a top bin to
**      its segment or to none).
** Each segment, usually a small fraction of x, is then searched alone: sorted
** when small, else two more histogram passes over it (the next 11 bits, then
** the last 10 among keys with the chosen 11).  Keys are the same on every
** path, so is every result. */
#define SQ_TOP_BITS 11
#define SQ_TOP_BINS (1u << SQ_TOP_BITS)
#define SQ_SUB_HISTS 4

/* Ranks rank[0..count) (ascending within the segment) of the m keys k. */
static void sq_select_in_segment(uint32_t *k, size_t m, const size_t *rank,
                                 int count, uint32_t *hist, uint32_t *out) {
  if (m <= SQ_SMALL_GROUP) {
    qsort(k, m, sizeof *k, sq_key_cmp);
    for (int j = 0; j < count; j++) out[j] = k[rank[j]];
    return;
  }
  /* bits 20..10 of the keys (all share bits 31..21) */
  memset(hist, 0, SQ_TOP_BINS * sizeof *hist);
  for (size_t i = 0; i < m; i++) hist[(k[i] >> 10) & (SQ_TOP_BINS - 1)]++;
  uint32_t mid[4];
  size_t within[4];
  for (int j = 0; j < count; j++) {
    uint32_t t = 0;
    size_t below = 0;
    while (below + hist[t] <= rank[j]) below += hist[t++];
    mid[j] = t;
    within[j] = rank[j] - below;
  }
  /* bits 9..0 among the keys of each rank's middle bin */
  for (int j = 0; j < count; j++) {
    if (j && mid[j] == mid[j - 1] && within[j] == within[j - 1]) {
      out[j] = out[j - 1];
      continue;
    }
    memset(hist, 0, 1024 * sizeof *hist);
    for (size_t i = 0; i < m; i++)
      if (((k[i] >> 10) & (SQ_TOP_BINS - 1)) == mid[j]) hist[k[i] & 1023]++;
    uint32_t l = 0;
    size_t below = 0;
    while (below + hist[l] <= within[j]) below += hist[l++];
    out[j] = (k[0] & ~((SQ_TOP_BINS << 10) - 1)) | (mid[j] << 10) | l;
  }
}

/* The values of `count` (at most 4, ascending) ranks (0-based) among x's n
** values. */
static int sq_select_sorted_ranks(const unsigned char *x, size_t n, int absolute,
                           const size_t *rank, int count, float *out,
                           sq_status *st) {
  if (n <= SQ_SMALL_GROUP) {
    uint32_t keys[SQ_SMALL_GROUP];
    for (size_t i = 0; i < n; i++) keys[i] = sq_sort_key(sq_load_u32(x + 4 * i), absolute);
    qsort(keys, n, sizeof keys[0], sq_key_cmp);
    for (int j = 0; j < count; j++) out[j] = sq_key_float(keys[rank[j]]);
    return SQ_OK;
  }
  uint32_t *hist = sq_alloc(st, (SQ_SUB_HISTS + 1) * SQ_TOP_BINS, sizeof *hist);
  if (!hist) return st->code;
  memset(hist, 0, SQ_SUB_HISTS * SQ_TOP_BINS * sizeof *hist);
  size_t i = 0;
  for (; i + SQ_SUB_HISTS <= n; i += SQ_SUB_HISTS)
    for (int h = 0; h < SQ_SUB_HISTS; h++)
      hist[h * SQ_TOP_BINS +
           (sq_sort_key(sq_load_u32(x + 4 * (i + h)), absolute) >> 21)]++;
  for (; i < n; i++) hist[sq_sort_key(sq_load_u32(x + 4 * i), absolute) >> 21]++;
  for (uint32_t b = 0; b < SQ_TOP_BINS; b++)
    for (int h = 1; h < SQ_SUB_HISTS; h++) hist[b] += hist[h * SQ_TOP_BINS + b];
  /* Each rank's top bin and rank within it; the distinct bins, ascending,
  ** are the segments. */
  uint32_t bins[4];
  size_t within[4], seg_start[5], seg_count[4];
  int nseg = 0, seg_of[4];
  for (int j = 0; j < count; j++) {
    uint32_t t = 0;
    size_t below = 0;
    while (below + hist[t] <= rank[j]) below += hist[t++];
    within[j] = rank[j] - below;
    if (!nseg || bins[nseg - 1] != t) {
      bins[nseg] = t;
      seg_count[nseg++] = hist[t];
    }
    seg_of[j] = nseg - 1;
  }
  seg_start[0] = 0;
  for (int s = 0; s < nseg; s++) seg_start[s + 1] = seg_start[s] + seg_count[s];
  uint32_t *keys = sq_alloc(st, seg_start[nseg], sizeof *keys);
  if (!keys) {
    sqlite3_free(hist);
    return st->code;
  }
  unsigned char *slot = (unsigned char *)(hist + SQ_SUB_HISTS * SQ_TOP_BINS);
  memset(slot, nseg, SQ_TOP_BINS);           /* nseg: no segment */
  size_t cursor[4];
  for (int s = 0; s < nseg; s++) {
    slot[bins[s]] = (unsigned char)s;
    cursor[s] = seg_start[s];
  }
  for (i = 0; i < n; i++) {
    uint32_t k = sq_sort_key(sq_load_u32(x + 4 * i), absolute);
    unsigned s = slot[k >> 21];
    /* A branch: the selected bins are usually a small share of x (tails),
    ** and an unconditional store would chain every element through one
    ** cursor in memory. */
    if (s != (unsigned)nseg) keys[cursor[s]++] = k;
  }
  uint32_t got[4];
  for (int s = 0; s < nseg; s++) {
    size_t r[4];
    int c = 0, first = -1;
    for (int j = 0; j < count; j++)
      if (seg_of[j] == s) {
        if (first < 0) first = j;
        r[c++] = within[j];
      }
    sq_select_in_segment(keys + seg_start[s], seg_count[s], r, c, hist,
                         got + first);
  }
  for (int j = 0; j < count; j++) out[j] = sq_key_float(got[j]);
  sqlite3_free(keys);
  sqlite3_free(hist);
  return SQ_OK;
}

/* The values of `count` (at most 4) ranks (0-based) among x's n values, in
** any order: selected in ascending order, returned in the caller's. */
static int sq_select_ranks(const unsigned char *x, size_t n, int absolute,
                           const size_t *rank, int count, float *out,
                           sq_status *st) {
  int order[4];
  size_t sorted[4] = {0};
  float v[4] = {0};
  for (int j = 0; j < count; j++) {          /* insertion sort of indices */
    int at = j;
    while (at > 0 && rank[order[at - 1]] > rank[j]) {
      order[at] = order[at - 1];
      at--;
    }
    order[at] = j;
  }
  for (int j = 0; j < count; j++) sorted[j] = rank[order[j]];
  if (sq_select_sorted_ranks(x, n, absolute, sorted, count, v, st))
    return st->code;
  for (int j = 0; j < count; j++) out[order[j]] = v[j];
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

/* Exact round-trip squared errors, chunk by chunk: the fake-quantized
** values of a chunk stay in a stack buffer, never a tensor-sized scratch.
** Each chunk's sum is the error_sums kernel's (the same bits on every path)
** and chunk sums are added in order; the chunk is a multiple of the kernel's
** lanes, so a group of up to one chunk gets exactly the kernel's sum. */
#define SQ_MSE_CHUNK SQ_SMALL_GROUP

/* The sum of squared round-trip errors of x under each of the count (at most
** 2) ranges [lo[c], hi[c]], in one pass over x. */
static int sq_exact_sq_errors(const sq_kernels *k, const sq_tensor *x,
                              const sq_range *r, int symmetric, int rounding,
                              const float *lo, const float *hi, int count,
                              double *sum, sq_status *st) {
  sq_qparams q[2];
  for (int c = 0; c < count; c++) {
    float scale;
    int32_t zp;
    if (sq_choose_qparams(lo[c], hi[c], r, symmetric, &scale, &zp, st))
      return st->code;
    sq_qparams_make(scale, zp, r, rounding, &q[c]);
    sum[c] = 0.0;
  }
  sq_code_type code = r->dtype->code;
  unsigned char codes[4 * SQ_MSE_CHUNK], y[4 * SQ_MSE_CHUNK];
  const unsigned char *p = x->data;
  for (size_t at = 0; at < x->n; at += SQ_MSE_CHUNK) {
    size_t len = x->n - at < SQ_MSE_CHUNK ? x->n - at : SQ_MSE_CHUNK;
    for (int c = 0; c < count; c++) {
      size_t bad = k->quantize[code](p + 4 * at, len, &q[c], codes);
      if (bad < len) return sq_fail(st, "element %zu is NaN", at + bad);
      k->dequantize[code](codes, len, q[c].scale, q[c].zp, y);
      sq_error_sums e;
      k->error_sums(p + 4 * at, y, len, &e);
      sum[c] += e.sum_d2;
    }
  }
  return SQ_OK;
}

/* The candidates' a = 1.0f - (float)c / 100.0f, folded by the compiler (the
** same float32 operations, done once). */
#define SQ_A(c) (1.0f - (float)(c) / 100.0f)
#define SQ_A10(c) SQ_A(c), SQ_A(c + 1), SQ_A(c + 2), SQ_A(c + 3), SQ_A(c + 4), \
    SQ_A(c + 5), SQ_A(c + 6), SQ_A(c + 7), SQ_A(c + 8), SQ_A(c + 9)
static const float sq_mse_a[SQ_MSE_CANDIDATES] = {
    SQ_A10(0), SQ_A10(10), SQ_A10(20), SQ_A10(30),
    SQ_A10(40), SQ_A10(50), SQ_A10(60), SQ_A10(70)};

/* Small groups: every candidate measured exactly, the first best kept.  All
** 80 in one pass (kernels/fake_errors.h, the kernels' bits), or candidate by
** candidate through the kernels for what that pass does not handle. */
static int sq_mse_range_exact(const sq_kernels *k, const sq_tensor *x,
                              const sq_range *r, int symmetric, int rounding,
                              float min_neg, float max_pos, float *lo,
                              float *hi, sq_status *st) {
  float l[SQ_MSE_CANDIDATES], h[SQ_MSE_CANDIDATES];
  sq_qparams q[SQ_MSE_CANDIDATES];
  double sum[SQ_MSE_CANDIDATES];
  for (int c = 0; c < SQ_MSE_CANDIDATES; c++) {
    l[c] = c ? min_neg * sq_mse_a[c] : *lo;
    h[c] = c ? max_pos * sq_mse_a[c] : *hi;
  }
  if (sq_choose_qparams_many(l, h, SQ_MSE_CANDIDATES, r, symmetric, rounding, q, st))
    return st->code;
  if (!sq_fake_sq_errors(k, x->data, x->n, r->dtype->code, q, SQ_MSE_CANDIDATES, sum))
    for (int c = 0; c < SQ_MSE_CANDIDATES; c++)
      if (sq_exact_sq_errors(k, x, r, symmetric, rounding, &l[c], &h[c], 1, &sum[c], st))
        return st->code;
  double best = HUGE_VAL;
  for (int c = 0; c < SQ_MSE_CANDIDATES; c++) {
    double mse = sum[c] / (double)x->n;
    if (mse < best) {
      best = mse;
      *lo = l[c];
      *hi = h[c];
    }
  }
  return SQ_OK;
}

/* The estimate's histogram: counts only (a 32 KB table in L1), the bin of
** x computed in float32, (int)((x - min_neg) * (SQ_EST_BINS / width)) clamped
** to the table; fine enough that a bin is a small part of any 8-bit step.
** Plain C on every path, so the counts are the same everywhere. */
#define SQ_EST_BINS 8192

/* The bin of one value: pos >= 0 (x >= min_neg, and float subtraction keeps
** the order); the top edge, x = max_pos, gives SQ_EST_BINS and is clamped. */
static inline int32_t sq_est_bin(float v, float min_neg, float per_bin) {
  float pos = (v - min_neg) * per_bin;
  return (int32_t)(pos < (float)(SQ_EST_BINS - 1) ? pos : (float)(SQ_EST_BINS - 1));
}

static void sq_mse_histogram(const sq_tensor *x, float min_neg, float per_bin,
                             uint32_t *hist) {
  enum { RUN = 256 };
  const unsigned char *p = x->data;
  memset(hist, 0, SQ_EST_BINS * sizeof *hist);
  size_t i = 0;
  /* runs of bins first (a loop the compiler vectorizes), then the counts */
  for (; i + RUN <= x->n; i += RUN) {
    int32_t bin[RUN];
    for (int j = 0; j < RUN; j++)
      bin[j] = sq_est_bin(sq_load_f32(p + 4 * (i + j)), min_neg, per_bin);
    for (int j = 0; j < RUN; j++) hist[bin[j]]++;
  }
  for (; i < x->n; i++) hist[sq_est_bin(sq_load_f32(p + 4 * i), min_neg, per_bin)]++;
}

/* Round half to even in double without the FPU rounding mode (as the
** kernels round: docs/NUMERICS.md#determinism). */
static inline double sq_round_even_d(double y) {
  if (!(y < 0x1p52 && y > -0x1p52)) return y;
  int64_t i = (int64_t)y;
  double d = y - (double)i;
  int odd = (int)(i & 1);
  i += (d > 0.5) | ((d == 0.5) & odd);
  i -= (d < -0.5) | ((d == -0.5) & odd);
  return (double)i;
}

static int sq_mse_range(const sq_kernels *k, const sq_tensor *x,
                        const sq_range *r, int symmetric, int rounding, float mn,
                        float mx, float *lo, float *hi, sq_status *st) {
  float min_neg = mn < 0.0f ? mn : 0.0f, max_pos = mx > 0.0f ? mx : 0.0f;
  double width = (double)max_pos - (double)min_neg;
  *lo = mn;
  *hi = mx;
  if (width == 0.0) return SQ_OK;
  if (x->n <= SQ_SMALL_GROUP)
    return sq_mse_range_exact(k, x, r, symmetric, rounding, min_neg, max_pos, lo,
                              hi, st);
  /* the histogram, then its nonempty bins as (center, count) pairs: small
  ** groups fill few of the 8192 bins, and 80 candidates walk them */
  uint32_t *hist = sq_alloc(st, SQ_EST_BINS, sizeof *hist + 2 * sizeof(double));
  if (!hist) return st->code;
  double *center = (double *)(hist + SQ_EST_BINS), *count = center + SQ_EST_BINS;
  float per_bin = (float)(SQ_EST_BINS / width);
  sq_mse_histogram(x, min_neg, per_bin, hist);
  double bin_w = width / SQ_EST_BINS;
  int used = 0;
  for (int b = 0; b < SQ_EST_BINS; b++)
    if (hist[b]) {
      center[used] = (double)min_neg + ((double)b + 0.5) * bin_w;
      count[used++] = (double)hist[b];
    }
  /* Estimate: every value of a bin sits at the bin's center c, and lands on
  ** c's code; the error is count * (c - round trip of c)^2, in double.  The
  ** spread within a bin adds the same to every candidate, so it is left
  ** out. */
  int best = 0;
  double best_err = HUGE_VAL;
  for (int c = 0; c < SQ_MSE_CANDIDATES; c++) {
    float a = 1.0f - (float)c / 100.0f;
    float scale;
    int32_t zp;
    if (sq_choose_qparams(min_neg * a, max_pos * a, r, symmetric, &scale, &zp, st))
      break;
    double err = 0.0, inv = 1.0 / (double)scale;
    double qlo = (double)r->qmin - zp, qhi = (double)r->qmax - zp;
    for (int u = 0; u < used; u++) {
      double q = sq_round_even_d(center[u] * inv);
      if (q < qlo) q = qlo;
      if (q > qhi) q = qhi;
      double d = center[u] - q * (double)scale;
      err += count[u] * (d * d);
    }
    if (err < best_err) {
      best_err = err;
      best = c;
    }
  }
  sqlite3_free(hist);
  if (st->code) return st->code;
  if (best == 0) return SQ_OK;
  /* minmax and the best candidate, measured exactly in one pass */
  float a = 1.0f - (float)best / 100.0f;
  float l[2] = {mn, min_neg * a}, h[2] = {mx, max_pos * a};
  double sum[2];
  if (sq_exact_sq_errors(k, x, r, symmetric, rounding, l, h, 2, sum, st))
    return st->code;
  if (sum[1] < sum[0]) {
    *lo = l[1];
    *hi = h[1];
  }
  return SQ_OK;
}

/* The range of one group's finite values by o->method; *lo and *hi come in
** as their observed min and max. */
static int sq_calibrate_group(const sq_kernels *k, const sq_tensor *x,
                              const sq_range *r, int symmetric,
                              const sq_options *o, float *lo, float *hi,
                              sq_status *st) {
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
    return sq_mse_range(k, x, r, symmetric, o->rounding, *lo, *hi, lo, hi,
                        st);
  const sq_row_method *m = sq_row_method_find(o->method);
  if (m) {                  /* one tensor is one row */
    void *state = m->create(o, r, symmetric, st);
    if (!state) return st->code;
    if (!m->add(state, k, x, *lo, *hi, st)) m->range(state, lo, hi, st);
    m->destroy(state);
    return st->code;
  }
  return SQ_OK;
}

typedef struct sq_minmax_walk {
  const sq_kernels *k;
  const unsigned char *x;
  float *mn, *mx;
} sq_minmax_walk;

static int sq_minmax_piece(void *ctx, const sq_piece *p, sq_status *st) {
  sq_minmax_walk *w = ctx;
  const unsigned char *src = w->x + 4 * p->first;
  size_t n = p->rows * p->cols, bad;
  if (p->block == 1) {
    bad = w->k->minmax_interleaved(src, p->rows, p->cols, w->mn + p->group,
                                   w->mx + p->group);
  } else if (p->block == p->cols) {
    float lo, hi;
    if (sq_tensor_minmax(w->k, src, n, p->first, &lo, &hi, st)) return st->code;
    if (lo < w->mn[p->group]) w->mn[p->group] = lo;
    if (hi > w->mx[p->group]) w->mx[p->group] = hi;
    return SQ_OK;
  } else {                  /* whole blocks whose groups no other piece has */
    bad = w->k->minmax_blocks(src, n, p->block, w->mn + p->group,
                              w->mx + p->group);
  }
  if (bad < n) return sq_fail_nonfinite(src + 4 * bad, p->first + bad, st);
  return SQ_OK;
}

int sq_group_minmax(const sq_kernels *k, const sq_tensor *x,
                    const sq_granularity *g, float *mn, float *mx,
                    sq_status *st) {
  if (sq_granularity_count(g) == 0) return sq_fail(st, "x is an empty tensor");
  for (size_t i = 0; i < g->groups; i++) {
    mn[i] = __builtin_inff();
    mx[i] = -__builtin_inff();
  }
  sq_minmax_walk w = {k, x->data, mn, mx};
  return sq_granularity_walk(g, 0, sq_minmax_piece, &w, st);
}

/* Which elements group gi holds: outer indices [o0, o1), blocks [b0, b1)
** along the axis, inner indices [e0, e1) (see granularity.h). */
typedef struct sq_group_span {
  size_t o0, o1, b0, b1, e0, e1;
} sq_group_span;

static sq_group_span sq_group_span_of(const sq_granularity *g, size_t gi) {
  /* Along each dimension a nonzero stride picks one index (peeled off gi
  ** outermost first); a zero stride means the group spans all of them. */
  const size_t stride[3] = {g->stride_outer, g->stride_block, g->stride_inner};
  const size_t extent[3] = {g->outer, g->nblocks, g->inner};
  size_t lo[3], hi[3], rem = gi;
  for (int d = 0; d < 3; d++) {
    lo[d] = stride[d] ? rem / stride[d] : 0;
    hi[d] = stride[d] ? lo[d] + 1 : extent[d];
    if (stride[d]) rem %= stride[d];
  }
  return (sq_group_span){lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
}

/* Whether every group's values are one run of the tensor (per tensor, per
** block along the last axis, per channel along the first axis of a
** matrix); the structure is the same for every group. */
static int sq_groups_are_runs(const sq_granularity *g) {
  sq_group_span s = sq_group_span_of(g, 0);
  int whole_rows = s.e0 == 0 && s.e1 == g->inner;
  return whole_rows && (s.o1 - s.o0 == 1 || (s.b0 == 0 && s.b1 == g->nblocks));
}

/* Elements in the largest group, for values that are not one run. */
static size_t sq_group_size_max(const sq_granularity *g) {
  return (g->stride_outer ? 1 : g->outer) * (g->stride_block ? g->block : g->len) *
         (g->stride_inner ? 1 : g->inner);
}

/* Group gi's values: in place when they are one run, else copied to buf. */
static sq_tensor sq_group_values(const sq_granularity *g, const unsigned char *x,
                                 size_t gi, unsigned char *buf) {
  sq_group_span s = sq_group_span_of(g, gi);
  size_t i0 = s.b0 * g->block;
  size_t i1 = s.b1 * g->block < g->len ? s.b1 * g->block : g->len;
  if (!buf)
    return (sq_tensor){x + 4 * ((s.o0 * g->len + i0) * g->inner),
                       (s.o1 - s.o0) * (i1 - i0) * g->inner, NULL};
  size_t n = 0;
  for (size_t o = s.o0; o < s.o1; o++) {
    for (size_t i = i0; i < i1; i++) {
      size_t base = (o * g->len + i) * g->inner;
      memcpy(buf + 4 * n, x + 4 * (base + s.e0), 4 * (s.e1 - s.e0));
      n += s.e1 - s.e0;
    }
  }
  return (sq_tensor){buf, n, NULL};
}

int sq_ranges(const sq_kernels *k, const sq_tensor *x, const sq_granularity *g,
              const sq_range *r, int symmetric, const sq_options *o, float *mn,
              float *mx, sq_status *st) {
  if (sq_group_minmax(k, x, g, mn, mx, st)) return st->code;
  if (o->method == SQ_METHOD_MINMAX) return SQ_OK;
  size_t most = sq_group_size_max(g);
  unsigned char *buf = NULL;
  if (!sq_groups_are_runs(g) && !(buf = sq_alloc(st, most, 4))) return st->code;
  for (size_t gi = 0; gi < g->groups && !st->code; gi++) {
    sq_tensor t = sq_group_values(g, x->data, gi, buf);
    sq_calibrate_group(k, &t, r, symmetric, o, &mn[gi], &mx[gi], st);
  }
  sqlite3_free(buf);
  return st->code;
}

/* Every row method; each lives in a file of its own. */
static const sq_row_method *const sq_row_methods[] = {
  &sq_row_method_histogram,
  &sq_row_method_entropy,
  NULL
};

const sq_row_method *sq_row_method_find(int method) {
  for (size_t i = 0; sq_row_methods[i]; i++)
    if (sq_row_methods[i]->method == method) return sq_row_methods[i];
  return NULL;
}

int sq_row_states_init(sq_row_states *rs, const sq_row_method *m, size_t groups,
                       const sq_options *o, const sq_range *r, int symmetric,
                       sq_status *st) {
  memset(rs, 0, sizeof *rs);
  uint64_t total;
  if (sq_size(st, groups, m->max_bytes(o), &total)) return st->code;
  void **state = sq_alloc(st, groups, sizeof *state);
  if (!state) return st->code;
  memset(state, 0, groups * sizeof *state);
  rs->m = m;
  rs->state = state;
  for (size_t gi = 0; gi < groups; gi++) {
    if (!(state[gi] = m->create(o, r, symmetric, st))) break;
    rs->groups = gi + 1;
  }
  if (st->code) sq_row_states_free(rs);
  return st->code;
}

int sq_row_states_add(sq_row_states *rs, const sq_kernels *k, const sq_tensor *x,
                      const sq_granularity *g, const float *mn, const float *mx,
                      sq_status *st) {
  size_t most = sq_group_size_max(g);
  unsigned char *buf = NULL;
  if (!sq_groups_are_runs(g) && !(buf = sq_alloc(st, most, 4))) return st->code;
  for (size_t gi = 0; gi < rs->groups && !st->code; gi++) {
    sq_tensor t = sq_group_values(g, x->data, gi, buf);
    rs->m->add(rs->state[gi], k, &t, mn[gi], mx[gi], st);
  }
  sqlite3_free(buf);
  return st->code;
}

int sq_row_states_range(sq_row_states *rs, float *mn, float *mx, sq_status *st) {
  for (size_t gi = 0; gi < rs->groups && !st->code; gi++)
    rs->m->range(rs->state[gi], &mn[gi], &mx[gi], st);
  return st->code;
}

void sq_row_states_free(sq_row_states *rs) {
  if (rs->state)
    for (size_t gi = 0; gi < rs->groups; gi++) rs->m->destroy(rs->state[gi]);
  sqlite3_free(rs->state);
  memset(rs, 0, sizeof *rs);
}
