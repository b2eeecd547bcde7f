/*
** histogram_observer.c: method=histogram, PyTorch 1.13's HistogramObserver
** (torch/ao/quantization/observer.py) as a row method (row_method.h),
** docs/NUMERICS.md#method-histogram.  Each group keeps torch's state: a
** float32 histogram of `bins` bins (bins=N, default 2048) over [mn, mx].
**
**   1. A row is one forward(x).  The first row, and any row after the state
**      saw min == max, replaces the state: mn, mx = the row's min and max,
**      histogram = histc(row, trunc(mn), trunc(mx)).  Earlier rows are then
**      forgotten, as in torch.
**   2. Later rows widen [mn, mx] on torch's grid (_adjust_min_max, all
**      float32): hbw = (mx - mn) / (float)(bins * 128), cmin = min(row min,
**      mn), cmax = max(row max, mx), ds = ceil((cmax - cmin) / ((float)bins *
**      hbw)), cmax += (float)ds * ((float)bins * hbw) - (cmax - cmin),
**      start = round_half_even((mn - cmin) / hbw).  The row's histogram is
**      histc(row, trunc(cmin), trunc(cmax)); when [cmin, cmax] is [mn, mx]
**      the old histogram is added (float32), otherwise the old one is
**      upsampled 128 times, laid at cell `start` of bins * ds cells, summed
**      in double in cell order, sampled every ds cells (I[j]), and bin j
**      gains (float)((I[j] - (double)(float)I[j-1]) / 128) (torch keeps the
**      shifted sums in a float32 tensor).  Only the 128 * bins cells that
**      hold data are visited, so a large ds costs nothing (torch allocates
**      bins * ds floats); ds above 2^40 is refused.
**   3. histc(x, lo, hi) (torch.histc on CPU): when lo == hi the row's own
**      min and max are used, and when those are equal too lo - 1 and
**      hi + 1 (in double); then the bounds are rounded to float32 and the
**      kernel bins the row (kernels.h, histc).  Values outside [lo, hi] are
**      not counted (trunc() of the bounds leaves values out).  Counts are
**      exact integers; torch's float32 counts agree while a bin of one row
**      holds at most 2^24 values.
**   4. range() is _non_linear_param_search: cSum is the cumulative sum in
**      double rounded to float32 per bin (torch's CPU cumsum); total is the
**      histogram's sum in double rounded to float32 (torch sums float32 in
**      its own order); cSum[l] < alpha * total compares in float32 (the
**      double product rounded), alpha and beta step by 1e-5 in double; the
**      error of a candidate is _compute_quantization_error, element by
**      element in float32 from the double bin widths exactly as torch's
**      tensor expressions round, and the 2048 (bins) terms are summed in
**      double and rounded to float32 (torch sums in an order that depends
**      on its vector width; see docs for the bound).  new_min = mn +
**      bw * start, new_max = mn + bw * (end + 1) with bw = (mx - mn) /
**      (float)bins, float32.  A state with mn == mx returns [mn, mx]
**      (torch's bin width is 0 and so is every step).
**   5. dst_nbins = 2^bits of the dtype: 256 for 8-bit codes, 16 for 4-bit,
**      65536 for 16-bit, 2^32 for 32-bit (torch only has 8-bit and 32-bit
**      observer dtypes; quant_min/quant_max and reduce_range do not change
**      it, as in torch).
*/
#include <math.h>
#include <string.h>
#include "core/row_method.h"
#include "kernels/byteorder.h"

#define SQ_HIST_DEFAULT_BINS 2048
#define SQ_HIST_UPSAMPLE 128

typedef struct sq_hist {
  size_t bins;
  double dst_nbins;
  int have;                 /* a row has been added */
  float mn, mx;
  float *hist;              /* bins */
  /* During add() only (one buffer, freed before add returns, so that a
  ** state holds just its histogram): */
  float *row;               /* bins: the current row's histc */
  uint32_t *counts;         /* SQ_HISTC_COPIES * (bins + 1) */
} sq_hist;

static void sq_hist_destroy(void *state) {
  sq_hist *h = state;
  if (!h) return;
  sqlite3_free(h->hist);
  sqlite3_free(h);
}

static void *sq_hist_create(const sq_options *o, const sq_range *r,
                            int symmetric, sq_status *st) {
  (void)symmetric;
  int64_t bins = o->bins ? o->bins : SQ_HIST_DEFAULT_BINS;
  sq_hist *h = sq_alloc(st, 1, sizeof *h);
  if (!h) return NULL;
  memset(h, 0, sizeof *h);
  h->bins = (size_t)bins;
  h->dst_nbins = ldexp(1.0, r->dtype->bits);
  if (!(h->hist = sq_alloc(st, h->bins, sizeof(float)))) {
    sq_hist_destroy(h);
    return NULL;
  }
  return h;
}

/* torch.histc(row, bins, min=lo, max=hi) into h->row (rule 3). */
static int sq_hist_histc(sq_hist *h, const sq_kernels *k, const sq_tensor *x,
                         double lo, double hi, float row_mn, float row_mx,
                         sq_status *st) {
  if (lo == hi) {
    lo = row_mn;
    hi = row_mx;
  }
  if (lo == hi) {
    lo -= 1.0;
    hi += 1.0;
  }
  float flo = (float)lo, fhi = (float)hi;
  memset(h->row, 0, h->bins * sizeof(float));
  /* A constant beyond 2^24 (lo - 1 == hi + 1 in float32): its bins never
  ** matter (rule 4) */
  if (!(flo < fhi)) return SQ_OK;
  if (isinf(fhi - flo))
    return sq_fail(st, "method=histogram: range %g..%g overflows float32",
                   (double)flo, (double)fhi);
  memset(h->counts, 0, (h->bins + 1) * SQ_HISTC_COPIES * sizeof(uint32_t));
  k->histc(x->data, x->n, flo, fhi, h->bins, h->counts);
  for (size_t b = 0; b < h->bins; b++) h->row[b] = (float)h->counts[b];
  return SQ_OK;
}

/* _combine_histograms: h->row gains the old histogram upsampled onto the
** grid of ds * bins cells starting at cell `start` (rule 2). */
static void sq_hist_combine(sq_hist *h, uint64_t ds, uint64_t start) {
  const size_t bins = h->bins;
  const uint64_t cells = (uint64_t)bins * ds;
  uint64_t end = start + (uint64_t)bins * SQ_HIST_UPSAMPLE;
  if (end > cells) end = cells;  /* torch raises on a shape mismatch here */
  double cum = 0.0, prev = 0.0;  /* prev: I[j-1] as torch's float32 keeps it */
  size_t j = 0;
  uint64_t sample = ds - 1;      /* the cell whose running sum is I[j] */
  for (uint64_t c = start; c < end && j < bins; c++) {
    cum += (double)h->hist[(c - start) / SQ_HIST_UPSAMPLE];
    /* samples before start */
    for (; j < bins && sample < c; j++, sample += ds) {
      h->row[j] += (float)((0.0 - prev) / SQ_HIST_UPSAMPLE);
      prev = 0.0;
    }
    if (j < bins && sample == c) {
      h->row[j] += (float)((cum - prev) / SQ_HIST_UPSAMPLE);
      prev = (double)(float)cum;
      j++;
      sample += ds;
    }
  }
  for (; j < bins; j++) {          /* samples after the data: cum stays */
    h->row[j] += (float)((cum - prev) / SQ_HIST_UPSAMPLE);
    prev = (double)(float)cum;
  }
}

static int sq_hist_add_row(sq_hist *h, const sq_kernels *k,
                           const sq_tensor *x, float mn, float mx,
                           sq_status *st) {
  if (!h->have || h->mn == h->mx) {                 /* rule 1 */
    if (sq_hist_histc(h, k, x, trunc((double)mn), trunc((double)mx), mn, mx,
                      st))
      return st->code;
    h->mn = mn;
    h->mx = mx;
    h->have = 1;
  } else {                                           /* rule 2 */
    float cmin = mn < h->mn ? mn : h->mn, cmax = mx > h->mx ? mx : h->mx;
    float hbw = (h->mx - h->mn) / (float)(h->bins * SQ_HIST_UPSAMPLE);
    float grid = (float)h->bins * hbw, span = cmax - cmin;
    float dsf = ceilf(span / grid);
    if (!(dsf >= 1.0f && dsf <= 0x1p40f))
      return sq_fail(st, "method=histogram: a row's range %g..%g is too wide "
                         "to combine with %g..%g",
                     (double)mn, (double)mx, (double)h->mn, (double)h->mx);
    uint64_t ds = (uint64_t)dsf;
    float e = (float)ds * grid - span;
    cmax = cmax + e;
    float startf = nearbyintf((h->mn - cmin) / hbw);
    uint64_t start = startf > 0.0f ? (uint64_t)startf : 0;
    if (sq_hist_histc(h, k, x, trunc((double)cmin), trunc((double)cmax), mn,
                      mx, st))
      return st->code;
    if (cmin == h->mn && cmax == h->mx) {
      for (size_t b = 0; b < h->bins; b++) h->row[b] = h->row[b] + h->hist[b];
    } else {
      sq_hist_combine(h, ds, start);
    }
    h->mn = cmin;
    h->mx = cmax;
  }
  memcpy(h->hist, h->row, h->bins * sizeof(float));  /* the row is the state */
  return SQ_OK;
}

static int sq_hist_add(void *state, const sq_kernels *k, const sq_tensor *x,
                       float mn, float mx, sq_status *st) {
  sq_hist *h = state;
  /* bins <= 2^20 (options.h), so the sum cannot overflow */
  float *work = sq_alloc(st, (uint64_t)h->bins * (1 + SQ_HISTC_COPIES) +
                                 SQ_HISTC_COPIES, 4);
  if (!work) return st->code;
  h->row = work;
  h->counts = (uint32_t *)(void *)(work + h->bins);
  sq_hist_add_row(h, k, x, mn, mx, st);
  sqlite3_free(work);
  h->row = NULL;
  h->counts = NULL;
  return st->code;
}

/* torch.div(a, b, rounding_mode='floor') on float32, b > 0. */
static float sq_floor_div(float a, float b) {
  float mod = fmodf(a, b);
  float div = (a - mod) / b;
  if (mod != 0.0f && (b < 0.0f) != (mod < 0.0f)) div -= 1.0f;
  if (div == 0.0f) return copysignf(0.0f, a / b);
  float f = floorf(div);
  if (div - f > 0.5f) f += 1.0f;
  return f;
}

static float sq_clampf(float v, float lo, float hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* _compute_quantization_error(ns, ne) as the double torch's .item() gives. */
static double sq_hist_error(const sq_hist *h, size_t ns, size_t ne) {
  double bwd = ((double)h->mx - (double)h->mn) / (double)h->bins;
  double dbw = bwd * (double)(ne - ns + 1) / h->dst_nbins;
  if (dbw == 0.0) return 0.0;
  const float bw = (float)bwd, dw = (float)dbw, half = (float)(dbw / 2);
  const float nhalf = (float)(-dbw / 2), top = (float)(h->dst_nbins - 1);
  const float half3 = half * half * half, nhalf3 = nhalf * nhalf * nhalf;
  const float mid = (half3 - nhalf3) / 3.0f;
  double sum = 0.0;
  for (size_t i = 0; i < h->bins; i++) {
    float begin = (float)((double)i - (double)ns) * bw;
    float end = begin + bw;
    float dob = sq_clampf(sq_floor_div(begin, dw), 0.0f, top);
    float doe = sq_clampf(sq_floor_div(end, dw), 0.0f, top);
    float density = h->hist[i] / bw;
    float db = begin - (dob + 0.5f) * dw;
    float norm = 0.0f + density * ((half3 - db * db * db) / 3.0f);
    norm = norm + (doe - dob - 1.0f) * (density * mid);
    float de = end - (doe * dw + half);
    norm = norm + density * ((de * de * de - nhalf3) / 3.0f);
    sum += (double)norm;
  }
  return (double)(float)sum;
}

static int sq_hist_range(void *state, float *lo, float *hi, sq_status *st) {
  sq_hist *h = state;
  const size_t bins = h->bins;
  if (h->mn == h->mx) {
    *lo = h->mn;
    *hi = h->mx;
    return SQ_OK;
  }
  float *csum = sq_alloc(st, bins, sizeof(float));
  if (!csum) return st->code;
  double run = 0.0;
  for (size_t b = 0; b < bins; b++) {
    run += (double)h->hist[b];
    csum[b] = (float)run;
  }
  const double total = (double)(float)run;
  double alpha = 0.0, beta = 1.0, norm_min = HUGE_VAL;
  size_t start = 0, end = bins - 1;
  while (alpha < beta) {
    double next_alpha = alpha + 1e-5, next_beta = beta - 1e-5;
    const float ta = (float)(next_alpha * total);
    const float tb = (float)(next_beta * total);
    size_t l = start, r = end;
    while (l < end && csum[l] < ta) l++;
    while (r > start && csum[r] > tb) r--;
    size_t next_start = start, next_end = end;
    if (l - start > end - r) {
      next_start = l;
      alpha = next_alpha;
    } else {
      next_end = r;
      beta = next_beta;
    }
    if (next_start == start && next_end == end) continue;
    double norm = sq_hist_error(h, next_start, next_end);
    if (norm > norm_min) break;
    norm_min = norm;
    start = next_start;
    end = next_end;
  }
  sqlite3_free(csum);
  float bw = (h->mx - h->mn) / (float)bins;
  *lo = h->mn + bw * (float)start;
  *hi = h->mn + bw * (float)(end + 1);
  return SQ_OK;
}

/* A state keeps its histogram between rows (add's buffers are freed). */
static uint64_t sq_hist_max_bytes(const sq_options *o) {
  return sizeof(sq_hist) + (uint64_t)(o->bins ? o->bins : SQ_HIST_DEFAULT_BINS) * 4;
}

const sq_row_method sq_row_method_histogram = {
  SQ_METHOD_HISTOGRAM, "histogram", sq_hist_create, sq_hist_add, sq_hist_range,
  sq_hist_destroy, sq_hist_max_bytes,
};
