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
**      round trip has the smallest mean squared error.  Candidates are ranked
**      by an estimate from a 2048-bin histogram (one pass over x); then the
**      best candidate and the minmax range are both measured exactly and the
**      better one is kept (ties keep minmax), so mse is never worse than
**      minmax.  Cost: about four passes over x.  Deterministic: the same
**      arithmetic in the same order on every kernel path.
** The range returned always holds 0 once parameters are chosen from it
** (docs/NUMERICS.md#choosing-parameters).  Every method first folds every
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
  sq_param_one p;
  sq_granularity whole;
  if (sq_choose_qparams(lo, hi, r, symmetric, &scale, &zp, st)) return st->code;
  sq_param_one_make(scale, zp, r, divide, &p);
  sq_granularity_tensor(x->n, &whole);
  if (sq_fake_quantize(k, x, &whole, r, &p.set, scratch, st)) return st->code;
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
    return sq_mse_range(k, x, r, symmetric, o->divide, *lo, *hi, lo, hi,
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
