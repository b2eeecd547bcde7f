/*
** ggml_iq_quantize.c: the scalar quantizers of ggml's lattice types
** iq2_xxs, iq2_xs, iq2_s and iq1_s (docs/NUMERICS.md#ggml), equal to
** ggml's quantize_<type>(x, blocks, 1, n, importance): the weighted
** searches of quantize_row_<type>_impl, operation for operation.  iq2_s
** also takes no importance (ggml's NULL: weights from the data);
** iq2_xxs, iq2_xs and iq1_s are never called without it by the SQL layer
** (ggml refuses, and so does q_ggml_quantize: needs_importance in
** ext/catalogue.toml); the kernel tests that do get unit importance.
**
** The steps, per super-block of 256 weights (sigma2 = sum of squares / 256,
** twice that for iq2_s, iq1_s and iq1_m):
**   iq2_*   per group of 32 (iq2_xxs) or 16: weights qw * sqrt(sigma2 + x^2);
**           |x| with signs aside (iq2_xxs, iq2_xs: an even number of minus
**           signs per eight, the cheapest weight flipped if odd); scales
**           tried on a ladder of 13 or 19 steps; each eight rounded to a code
**           word, and a word that is no grid entry replaced by its best
**           neighbour (ggml_iq_index.c); the best scale refined once; the
**           group scales quantized to 4 bits against max / 31.
**   iq1_*   per group of 32 (iq1_s) or 16 (iq1_m): every split of the sorted
**           weights into three levels -1, 0, 1 shifted by +-1/8 (iq1_m: a
**           shift per eight), off-grid words to their best neighbour, then
**           3-bit group scales against max / 15, iq1_m's super-block scale
**           refitted by least squares.
** ggml aborts where a search finds no candidate (every distance NaN or
** infinite: overflowing data or importance); here the first candidate is
** kept, so such rows still give bytes, the same on every path.
*/
#include <float.h>
#include <math.h>
#include <string.h>
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq2.h"

#define QK_K 256

static inline float iq_max(float a, float b) { return a > b ? a : b; }

static void iq_load(const unsigned char *p, int n, float *out) {
  for (int i = 0; i < n; i++) out[i] = sq_load_f32(p + 4 * i);
}

static float iq_sum_sq(const float *x) {
  float s = 0;
  for (int i = 0; i < QK_K; i++) s += x[i] * x[i];
  return s;
}

/* The code word of eight digits (each 0..2 by construction, or anything
** after a NaN: such a word is clamped to entry 0, where ggml aborts). */
static unsigned iq_word(const int8_t *L) {
  unsigned u = 0;
  for (int i = 0; i < 8; i++) u |= ((unsigned)L[i] & 0xffu) << (2 * i);
  return u & 0xffffu;
}
static int iq_entry(const sq_iq_index *ix, unsigned u) {
  return u < SQ_IQ_WORDS ? ix->map[u] : 0;
}
static const uint16_t *iq_list(const sq_iq_index *ix, int m) {
  return ix->neighbours + (-(int64_t)m - 1);
}

/* The searches' context: the grid's index and the path's inner loops. */
typedef struct iq_ctx {
  const sq_iq_index *ix;
  const sq_iq_ops *ops;
} iq_ctx;

/* The entry of list nb nearest to xval at `scale` in weighted squared
** distance, the levels of the digits lv[d] = scale * level(d); its digits
** into L. */
static int iq_best_neighbour(const iq_ctx *c, const uint16_t *nb,
                             const float *xval, const float *w,
                             const float *lv, int8_t *L) {
  int g = c->ops->nearest(c->ix, nb, xval, w, lv);
  uint32_t code = c->ix->code3[g];
  for (int i = 0; i < 8; i++) L[i] = (int8_t)((code >> (3 * i)) & 3u);
  return g;
}

/* ---- the scalar inner loops (sq_iq_ops_scalar) -------------------------------
** nearest: the three values each weight's term can take are computed once
** per call (the same operations as ggml's loop over the neighbours, which
** recomputes them for every entry), then each entry's sum adds its eight
** terms in ggml's order. */

static int iq_nearest_scalar(const sq_iq_index *ix, const uint16_t *nb,
                             const float *x, const float *w, const float *lv) {
  float t[4][8];
  for (int d = 0; d < 3; d++)
    for (int i = 0; i < 8; i++) {
      float diff = lv[d] - x[i];
      t[d][i] = w[i] * diff * diff;
    }
  float best = FLT_MAX;
  int g = -1;
  for (int j = 1; j <= nb[0]; j++) {
    uint32_t code = ix->code3[nb[j]];
    float d2 = 0;
    for (int i = 0; i < 8; i++) d2 += t[(code >> (3 * i)) & 3u][i];
    if (d2 < best) {
      best = d2;
      g = nb[j];
    }
  }
  return g < 0 ? nb[1] : g;
}

const float sq_iq1_shifted[2][3] = {{-1 + 0.125f, 0.125f, 1 + 0.125f},
                                    {-1 - 0.125f, -0.125f, 1 - 0.125f}};
#define iq1_xp sq_iq1_shifted[0]
#define iq1_xm sq_iq1_shifted[1]

/* iq1_s: every split i1 <= i2 of the sorted weights into the levels
** 0 | 1 | 2, each with the shift +1/8 (m = 0) and -1/8, in that order. */
static void iq1_split32_scalar(const sq_iq1_sums *s, sq_iq1_best *b) {
  const float *sumx = s->x, *sumw = s->w;
  for (int i1 = 0; i1 <= 32; i1++)
    for (int i2 = i1; i2 <= 32; i2++) {
      for (int m = 0; m < 2; m++) {
        const float *xs = m ? iq1_xm : iq1_xp;
        float a = sumx[i1] - sumx[0], bb = sumx[i2] - sumx[i1], c = sumx[32] - sumx[i2];
        float wa = sumw[i1] - sumw[0], wb = sumw[i2] - sumw[i1], wc = sumw[32] - sumw[i2];
        float sumqx = a * xs[0] + bb * xs[1] + c * xs[2];
        float sumq2 = wa * xs[0] * xs[0] + wb * xs[1] * xs[1] + wc * xs[2] * xs[2];
        if (sumq2 > 0 && sumqx * sumqx > b->best * sumq2) {
          b->scale = sumqx / sumq2;
          b->best = b->scale * sumqx;
          b->b1 = i1;
          b->b2 = i2;
          b->shift = m ? -1 : 1;
        }
      }
    }
}

/* iq1_m: every split of the 16 sorted weights, each with the four shift
** patterns k (bit 1 the first half's sign, bit 0 the second's), scored
** from the prefix sums per half as ggml 0.25.1 does (iq1_m_block). */
static void iq1_split16_scalar(const sq_iq1_sums *s, sq_iq1_best *b) {
  for (int i1 = 0; i1 <= 16; i1++) {
    float a[2][2];
    for (int m = 0; m < 2; m++)
      for (int h = 0; h < 2; h++) a[m][h] = s->d01[m] * s->hw[h][i1] + s->tw[m][h];
    for (int i2 = i1; i2 <= 16; i2++) {
      float qx[2][2], q2[2][2];
      for (int m = 0; m < 2; m++)
        for (int h = 0; h < 2; h++) {
          qx[m][h] = s->tx[m][h] - (s->hx[h][i2] + s->hx[h][i1]);
          q2[m][h] = s->d12[m] * s->hw[h][i2] + a[m][h];
        }
      for (int k = 0; k < 4; k++) {
        float sqx = qx[k >> 1][0] + qx[k & 1][1];
        float sq2 = q2[k >> 1][0] + q2[k & 1][1];
        if (sq2 > 0 && sqx * sqx > b->best * sq2) {
          b->scale = sqx / sq2;
          b->best = b->scale * sqx;
          b->b1 = i1;
          b->b2 = i2;
          b->shift = k;
        }
      }
    }
  }
}

/* Digits of the eight values at inverse scale id, clamped to 0..2. */
static void iq2_round(const float *xval, float id, int8_t *L) {
  for (int i = 0; i < 8; i++)
    L[i] = (int8_t)sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * xval[i] - 1)), 0, 2);
}

static void iq2_digits_scalar(const float *x, int n8, int tries, const float *id,
                              int8_t (*Ls)[32], uint32_t (*words)[4]) {
  for (int t = 0; t < tries; t++)
    for (int k = 0; k < n8; k++) {
      iq2_round(x + 8 * k, id[t], Ls[t] + 8 * k);
      words[t][k] = iq_word(Ls[t] + 8 * k);
    }
}

const sq_iq_ops sq_iq_ops_scalar = {iq_nearest_scalar, iq2_digits_scalar,
                                    iq1_split32_scalar, iq1_split16_scalar};


/* Digits of eight values, then the grid: on it, or its best neighbour
** (L replaced).  Returns whether the word was on the grid. */
static int iq2_snap(const iq_ctx *c, const float *xval, const float *waux,
                    float id, float scale, int8_t *L, int *entry) {
  iq2_round(xval, id, L);
  int m = iq_entry(c->ix, iq_word(L));
  if (m >= 0) {
    *entry = m;
    return 1;
  }
  /* ggml's grid coordinates 1, 3, 5, times the scale */
  const float lv[3] = {scale * 1.0f, scale * 3.0f, scale * 5.0f};
  *entry = iq_best_neighbour(c, iq_list(c->ix, m), xval, waux, lv, L);
  return 0;
}

/* What each weight adds to a scale's sums, per digit d (q = 2d + 1):
** (w * x) * q and (w * q) * q, the operations of ggml's sums, computed once
** per group instead of once per scale tried. */
typedef struct iq2_terms {
  float qx[3][32], q2[3][32];
} iq2_terms;

static void iq2_terms_of(int n, const float *w, const float *xval, iq2_terms *t) {
  for (int d = 0; d < 3; d++) {
    float q = (float)(2 * d + 1);
    for (int i = 0; i < n; i++) {
      t->qx[d][i] = w[i] * xval[i] * q;
      t->q2[d][i] = w[i] * q * q;
    }
  }
}

/* The scales a group tries, at most (iq2_xs and iq2_s: 19, iq2_xxs: 13). */
#define IQ2_TRIES 19

/* The n values (n / 8 eights) at each of the `tries` inverse scales
** id[t]: their digits into Ls[t] (n each), every eight on the grid or
** replaced by its best neighbour at scale 1 / id[t]; on[t][k]: whether
** eight k was on the grid.  What iq2_snap does for each, with every
** rounding first, then the look-ups, then the neighbour searches: those
** are independent of each other, so the processor overlaps them. */
static void iq2_try(const iq_ctx *c, int n, int tries, const float *xval,
                    const float *waux, const float *id, int8_t (*Ls)[32],
                    uint8_t (*on)[4]) {
  uint32_t words[IQ2_TRIES][4];
  c->ops->digits(xval, n / 8, tries, id, Ls, words);
  int32_t m[IQ2_TRIES][4];
  for (int t = 0; t < tries; t++)
    for (int k = 0; k < n / 8; k++) {
      m[t][k] = iq_entry(c->ix, words[t][k]);
      on[t][k] = m[t][k] >= 0;
    }
  for (int t = 0; t < tries; t++) {
    float scale = 1 / id[t];
    const float lv[3] = {scale * 1.0f, scale * 3.0f, scale * 5.0f};
    for (int k = 0; k < n / 8; k++)
      if (m[t][k] < 0)
        iq_best_neighbour(c, iq_list(c->ix, m[t][k]), xval + 8 * k, waux + 8 * k,
                          lv, Ls[t] + 8 * k);
  }
}

/* sum w * x * q and sum w * q^2 over the n digits L (each 0..2), in
** order. */
static void iq2_sums(int n, const iq2_terms *t, const int8_t *L, float *sumqx,
                     float *sumq2) {
  float a = 0, b = 0;
  for (int i = 0; i < n; i++) {
    a += t->qx[L[i]][i];
    b += t->q2[L[i]][i];
  }
  *sumqx = a;
  *sumq2 = b;
}

/* |x| of eight weights and their sign bits; with `even`, an odd count of
** minus signs is made even by flipping the weight of least w * x^2. */
static unsigned iq2_signs(const float *x, const float *w, float *xval, int even) {
  unsigned s = 0;
  int nflip = 0;
  for (int i = 0; i < 8; i++) {
    if (x[i] >= 0) {
      xval[i] = x[i];
    } else {
      xval[i] = -x[i];
      nflip++;
      s |= 1u << i;
    }
  }
  if (even && nflip % 2) {
    int imin = 0;
    float min = w[0] * x[0] * x[0];
    for (int i = 1; i < 8; i++) {
      float ax = w[i] * x[i] * x[i];
      if (ax < min) {
        min = ax;
        imin = i;
      }
    }
    xval[imin] = -xval[imin];
    s ^= 1u << imin;
  }
  return even ? s & 127u : s & 255u;
}

/* ---- iq2_xxs ------------------------------------------------------------------ */

static void iq2_xxs_block(const iq_ctx *c, const float *xbl,
                          const float *qwbl, unsigned char *out) {
  const sq_iq_index *ix = c->ix;
  float scales[8], weight[32], xval[32], waux[32];
  int8_t L[32];
  unsigned signs[4];
  uint32_t q2[16];
  memset(q2, 0, sizeof q2);
  memset(out, 0, 66);
  float max_scale = 0;
  float sigma2 = iq_sum_sq(xbl) / QK_K;
  for (int ib = 0; ib < 8; ib++) {
    const float *xb = xbl + 32 * ib, *qw = qwbl + 32 * ib;
    for (int i = 0; i < 32; i++) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
    for (int i = 0; i < 32; i++) waux[i] = sqrtf(weight[i]);
    for (int k = 0; k < 4; k++)
      signs[k] = iq2_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k, 1);
    float max = xval[0];
    for (int i = 1; i < 32; i++) max = iq_max(max, xval[i]);
    if (max < 1e-15f) {
      scales[ib] = 0;
      continue;
    }
    float scale = sq_ggml_make_qp_quants(32, 4, xval, (uint8_t *)L, weight);
    float eff_max = scale * 3;
    if (eff_max <= 0) {
      scales[ib] = 0;
      continue;
    }
    iq2_terms terms;
    iq2_terms_of(32, weight, xval, &terms);
    float best = 0, ids[IQ2_TRIES];
    int8_t Ls[IQ2_TRIES][32];
    uint8_t on[IQ2_TRIES][4];
    for (int t = 0; t < 13; t++) ids[t] = (5 + (float)(t - 6) * 0.1f) / eff_max;
    iq2_try(c, 32, 13, xval, waux, ids, Ls, on);
    for (int t = 0; t < 13; t++) {
      float sumqx, sumq2;
      iq2_sums(32, &terms, Ls[t], &sumqx, &sumq2);
      if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
        scale = sumqx / sumq2;
        best = scale * sumqx;
        memcpy(L, Ls[t], 32);
      }
    }
    if (scale > 0) {
      float id = 1 / scale;
      for (int k = 0; k < 4; k++) {
        int e;
        iq2_snap(c, xval + 8 * k, waux + 8 * k, id, scale, L + 8 * k, &e);
        for (int i = 0; i < 8; i++) L[8 * k + i] = (int8_t)((ix->pos[e][i] - 1) / 2);
      }
      float sumqx, sumq2;
      iq2_sums(32, &terms, L, &sumqx, &sumq2);
      if (sumq2 > 0) scale = sumqx / sumq2;
    }
    if (scale < 0) {
      scale = -scale;
      for (int k = 0; k < 4; k++) signs[k] = ~signs[k] & 127u;
    }
    for (int k = 0; k < 4; k++) {
      int e = iq_entry(ix, iq_word(L + 8 * k));
      if (e < 0) e = 0;
      q2[2 * ib] |= (uint32_t)e << (8 * k);
      q2[2 * ib + 1] |= signs[k] << (7 * k);
    }
    scales[ib] = scale;
    max_scale = iq_max(max_scale, scale);
  }
  if (!max_scale) return;
  float d = max_scale / 31;
  sq_store_u16(out, sq_ggml_fp16_searched(d));
  float id = 1 / d;
  for (int ib = 0; ib < 8; ib++) {
    int l = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * scales[ib] - 1)), 0, 15);
    q2[2 * ib + 1] |= (uint32_t)l << 28;
  }
  for (int i = 0; i < 16; i++) sq_store_u32(out + 2 + 4 * i, q2[i]);
}

/* ---- iq2_xs and iq2_s: groups of 16 ------------------------------------------- */

/* One group of 16 of iq2_xs (s == 0) or iq2_s (s == 1): its scale, and
** its two grid entries and sign bytes. */
static float iq2_16(const iq_ctx *c, int s, const float *xb,
                    const float *weight, int *entry, unsigned *signs) {
  const sq_iq_index *ix = c->ix;
  float xval[16], waux[16];
  int8_t L[16];
  int on[2];
  for (int i = 0; i < 16; i++) waux[i] = sqrtf(weight[i]);
  for (int k = 0; k < 2; k++)
    signs[k] = iq2_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k, !s);
  float max = xval[0];
  for (int i = 1; i < 16; i++) max = iq_max(max, xval[i]);
  entry[0] = entry[1] = -1;
  if (max < (s ? 1e-8f : 1e-15f)) return 0;
  memset(L, 0, 16);
  iq2_terms terms;
  iq2_terms_of(16, weight, xval, &terms);
  float best = 0;
  float scale = max / 5;
  on[0] = on[1] = 1;
  float ids[IQ2_TRIES];
  int8_t Ls[IQ2_TRIES][32];
  uint8_t ons[IQ2_TRIES][4];
  for (int t = 0; t < 19; t++) ids[t] = (5 + (float)(t - 9) * 0.1f) / max;
  iq2_try(c, 16, 19, xval, waux, ids, Ls, ons);
  for (int t = 0; t < 19; t++) {
    float sumqx, sumq2;
    iq2_sums(16, &terms, Ls[t], &sumqx, &sumq2);
    if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
      scale = sumqx / sumq2;
      best = scale * sumqx;
      memcpy(L, Ls[t], 16);
      on[0] = ons[t][0];
      on[1] = ons[t][1];
    }
  }
  if ((!on[0] || !on[1]) && scale > 0) {
    float id = 1 / scale;
    for (int k = 0; k < 2; k++) {
      if (on[k]) continue;
      int e;
      iq2_snap(c, xval + 8 * k, waux + 8 * k, id, scale, L + 8 * k, &e);
    }
    float sumqx, sumq2;
    iq2_sums(16, &terms, L, &sumqx, &sumq2);
    if (sumq2 > 0) scale = sumqx / sumq2;
  }
  if (scale < 0) {
    scale = -scale;
    for (int k = 0; k < 2; k++) signs[k] = ~signs[k] & (s ? 255u : 127u);
  }
  for (int k = 0; k < 2; k++) {
    int e = iq_entry(ix, iq_word(L + 8 * k));
    entry[k] = e < 0 ? 0 : e;
  }
  return scale;
}

static void iq2_xs_block(const iq_ctx *c, int s, const float *xbl,
                         const float *qwbl, unsigned char *out) {
  float scales[16], weight[16];
  int entry[2];
  unsigned signs[2];
  memset(out, 0, s ? 82 : 74);
  float max_scale = 0;
  float sigma2 = s ? 2 * iq_sum_sq(xbl) / QK_K : iq_sum_sq(xbl) / QK_K;
  for (int ib = 0; ib < 16; ib++) {
    const float *xb = xbl + 16 * ib;
    if (qwbl) {
      const float *qw = qwbl + 16 * ib;
      for (int i = 0; i < 16; i++) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
    } else {
      for (int i = 0; i < 16; i++) weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
    }
    scales[ib] = iq2_16(c, s, xb, weight, entry, signs);
    if (entry[0] < 0) continue;
    for (int k = 0; k < 2; k++) {
      int i8 = 2 * ib + k;
      if (s) {
        out[2 + i8] = (unsigned char)(entry[k] & 255);
        out[66 + i8 / 4] |= (unsigned char)((entry[k] >> 8) << (2 * (i8 % 4)));
        out[34 + i8] = (unsigned char)signs[k];
      } else {
        sq_store_u16(out + 2 + 2 * i8, (uint16_t)(entry[k] | (signs[k] << 9)));
      }
    }
    max_scale = iq_max(max_scale, scales[ib]);
  }
  if (!max_scale) {
    if (s) return;
    memset(out + 2, 0, 64);
    return;
  }
  float d = max_scale / 31;
  sq_store_u16(out, sq_ggml_fp16_searched(s ? d * 0.9875f : d));
  float id = 1 / d;
  unsigned char *sc = out + (s ? 74 : 66);
  for (int ib = 0; ib < 16; ib++) {
    int l = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * scales[ib] - 1)), 0, 15);
    if (ib % 2 == 0)
      sc[ib / 2] = (unsigned char)l;
    else
      sc[ib / 2] |= (unsigned char)(l << 4);
  }
}

/* ---- iq1_s and iq1_m ------------------------------------------------------------ */

/* The n values in increasing order, stably (their positions into idx), as
** ggml's qsort on this glibc orders them (a merge sort: equal values keep
** their order). */
static void iq1_sort(int n, const float *x, int *idx) {
  float v[32];
  for (int j = 0; j < n; j++) {
    float t = x[j];
    int p = j;
    while (p > 0 && v[p - 1] > t) {
      v[p] = v[p - 1];
      idx[p] = idx[p - 1];
      p--;
    }
    v[p] = t;
    idx[p] = j;
  }
}

/* The levels of the n sorted weights from the split b1, b2 (0 below b1, 1
** below b2, else 2) into L in weight order; when the scale is negative,
** every level flipped (2 - level) and the scale made positive: returns
** whether. */
static int iq1_levels(int n, const int *idx, sq_iq1_best *b, int8_t *L) {
  for (int j = 0; j < n; j++) L[idx[j]] = (int8_t)(j < b->b1 ? 0 : j < b->b2 ? 1 : 2);
  if (!(b->scale < 0)) return 0;
  for (int j = 0; j < n; j++) L[j] = (int8_t)(2 - L[j]);
  b->scale = -b->scale;
  return 1;
}

/* The nk eights of L onto the grid: each its entry, or the neighbour of
** least weighted squared error at `scale` with the levels xx[k] of eight k
** (L replaced); if any was replaced, the scale refitted by least squares
** over all of them.  The entries into index; returns the scale. */
static float iq1_snap(const iq_ctx *c, int nk, const float *xb,
                      const float *weight, const float *const *xx,
                      float scale, int8_t *L, uint16_t *index) {
  const sq_iq_index *ix = c->ix;
  int all_on = 1;
  for (int k = 0; k < nk; k++) {
    int m = iq_entry(ix, iq_word(L + 8 * k));
    if (m < 0) {
      all_on = 0;
      const float lv[3] = {scale * xx[k][0], scale * xx[k][1], scale * xx[k][2]};
      m = iq_best_neighbour(c, iq_list(ix, m), xb + 8 * k, weight + 8 * k, lv,
                            L + 8 * k);
    }
    index[k] = (uint16_t)m;
  }
  if (!all_on) {
    float sumqx = 0, sumq2 = 0;
    for (int k = 0; k < nk; k++) {
      const int8_t *pg = ix->pos[index[k]];
      for (int j = 0; j < 8; j++) {
        float w = weight[8 * k + j];
        float q = xx[k][(pg[j] - 1) / 2];
        sumqx += w * q * xb[8 * k + j];
        sumq2 += w * q * q;
      }
    }
    if (sumqx > 0 && sumq2 > 0) scale = sumqx / sumq2;
  }
  return scale;
}

static void iq1_s_block(const iq_ctx *c, const float *xbl, const float *qwbl,
                        unsigned char *out) {
  float scales[8], weight[32];
  sq_iq1_sums sums;
  int8_t L[32];
  int idx[32], shifts[8];
  uint16_t index[4];
  memset(out, 0, 50);
  memset(&sums, 0, sizeof sums);
  float max_scale = 0;
  float sigma2 = 2 * iq_sum_sq(xbl) / QK_K;
  for (int ib = 0; ib < 8; ib++) {
    const float *xb = xbl + 32 * ib, *qw = qwbl + 32 * ib;
    for (int i = 0; i < 32; i++) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
    float max = fabsf(xb[0]);
    for (int i = 1; i < 32; i++) max = iq_max(max, fabsf(xb[i]));
    shifts[ib] = 1;
    scales[ib] = 0;
    if (max < 1e-12f) continue;
    iq1_sort(32, xb, idx);
    for (int j = 0; j < 32; j++) {
      int i = idx[j];
      sums.x[j + 1] = sums.x[j] + weight[i] * xb[i];
      sums.w[j + 1] = sums.w[j] + weight[i];
    }
    sq_iq1_best b = {-FLT_MAX, max, -1, -1, 0};
    c->ops->split32(&sums, &b);
    if (b.b1 < 0 || b.b2 < 0 || b.shift == 0) continue;
    if (iq1_levels(32, idx, &b, L)) b.shift = -b.shift;
    const float *xx = b.shift == 1 ? iq1_xp : iq1_xm;
    const float *const levels[4] = {xx, xx, xx, xx};
    float scale = iq1_snap(c, 4, xb, weight, levels, b.scale, L, index);
    unsigned h = 0;
    for (int k = 0; k < 4; k++) {
      out[2 + 4 * ib + k] = (unsigned char)(index[k] & 255);
      h |= (unsigned)(index[k] >> 8) << (3 * k);
    }
    sq_store_u16(out + 34 + 2 * ib, (uint16_t)h);
    scales[ib] = scale;
    shifts[ib] = b.shift;
    max_scale = iq_max(max_scale, scale);
  }
  if (!max_scale) return;
  float d = max_scale / 15;
  sq_store_u16(out, sq_ggml_fp16_searched(d * 1.125f));
  float id = 1 / d;
  for (int ib = 0; ib < 8; ib++) {
    int l = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * scales[ib] - 1)), 0, 7);
    if (shifts[ib] == -1) l |= 8;
    unsigned h = sq_load_u16(out + 34 + 2 * ib);
    sq_store_u16(out + 34 + 2 * ib, (uint16_t)(h | ((unsigned)l << 12)));
  }
}

/* iq1_m's levels of eight k (0, 1) of a group whose shift pattern is sk:
** bit 1 of sk for the first eight, bit 0 for the second (0: +1/8). */
static const float *iq1_m_levels(int sk, int k) {
  return (k == 0 ? sk < 2 : sk % 2 == 0) ? iq1_xp : iq1_xm;
}

static void iq1_m_weights(const float *xb, const float *qw, float sigma2,
                          float *weight) {
  if (qw) {
    for (int i = 0; i < 16; i++) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
  } else {
    for (int i = 0; i < 16; i++) weight[i] = xb[i] * xb[i];
  }
}

static void iq1_m_block(const iq_ctx *c, const float *xbl, const float *qwbl,
                        unsigned char *out) {
  static const unsigned char masks[4] = {0x00, 0x80, 0x08, 0x88};
  float scales[16], weight[16];
  sq_iq1_sums sums;
  int8_t L[16];
  int idx[16], shifts[16];
  uint16_t index[2];
  memset(out, 0, 56);
  memset(&sums, 0, sizeof sums);
  float max_scale = 0;
  float sigma2 = 2 * iq_sum_sq(xbl) / QK_K;
  for (int ib = 0; ib < 16; ib++) {
    const float *xb = xbl + 16 * ib;
    iq1_m_weights(xb, qwbl ? qwbl + 16 * ib : NULL, sigma2, weight);
    float max = fabsf(xb[0]);
    for (int i = 1; i < 16; i++) max = iq_max(max, fabsf(xb[i]));
    scales[ib] = 0;
    shifts[ib] = 0;
    if (max < 1e-7f) continue;
    iq1_sort(16, xb, idx);
    /* Prefix sums over the sorted order, one pair per half of the group
    ** (the half decides which shift a weight gets): hx[h][j], hw[h][j] of
    ** w * x and w over the first j sorted weights that fall in half h.
    ** ggml 0.25.1 scores each split from these, as
    **   sumqx = (X_h * c2 - (hx[h][i2] + hx[h][i1])), summed over both halves
    **   sumq2 = hw[h][i2] * (c1^2 - c2^2) + (hw[h][i1] * (c0^2 - c1^2)
    **           + W_h * c2 * c2), likewise
    ** (levels c0, c1, c2; c0 - c1 = c1 - c2 = -1), and that float order is
    ** what decides its near-ties (constant, zero or tied weights). */
    for (int j = 0; j < 16; j++) {
      int i = idx[j], h = i >= 8;
      sums.hx[h][j + 1] = sums.hx[h][j] + xb[i] * weight[i];
      sums.hw[h][j + 1] = sums.hw[h][j] + weight[i];
      sums.hx[1 - h][j + 1] = sums.hx[1 - h][j];
      sums.hw[1 - h][j + 1] = sums.hw[1 - h][j];
    }
    /* Per shift sign m (0: +1/8, 1: -1/8) and half h. */
    for (int m = 0; m < 2; m++) {
      const float *cl = m ? iq1_xm : iq1_xp;
      sums.d01[m] = cl[0] * cl[0] - cl[1] * cl[1];
      sums.d12[m] = cl[1] * cl[1] - cl[2] * cl[2];
      for (int h = 0; h < 2; h++) {
        sums.tx[m][h] = sums.hx[h][16] * cl[2];
        sums.tw[m][h] = sums.hw[h][16] * cl[2] * cl[2];
      }
    }
    sq_iq1_best b = {-FLT_MAX, max, -1, -1, -1};
    c->ops->split16(&sums, &b);
    if (b.b1 < 0 || b.b2 < 0 || b.shift < 0) continue;
    if (iq1_levels(16, idx, &b, L)) b.shift = 3 - b.shift;
    const float *const levels[2] = {iq1_m_levels(b.shift, 0), iq1_m_levels(b.shift, 1)};
    float scale = iq1_snap(c, 2, xb, weight, levels, b.scale, L, index);
    out[2 * ib] = (unsigned char)(index[0] & 255);
    out[2 * ib + 1] = (unsigned char)(index[1] & 255);
    out[32 + ib] = (unsigned char)((index[0] >> 8) | ((index[1] >> 8) << 4));
    scales[ib] = scale;
    shifts[ib] = b.shift;
    max_scale = iq_max(max_scale, scale);
  }
  if (!max_scale) return;
  const sq_iq_index *ix = c->ix;
  unsigned sc[4] = {0, 0, 0, 0};
  float d = max_scale / 15;
  float id = 1 / d;
  float sumqx = 0, sumq2 = 0;
  for (int ib = 0; ib < 16; ib++) {
    int l = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * scales[ib] - 1)), 0, 7);
    sc[ib / 4] |= (unsigned)l << (3 * (ib % 4));
    out[32 + ib] |= masks[shifts[ib]];
    const float *xb = xbl + 16 * ib;
    iq1_m_weights(xb, qwbl ? qwbl + 16 * ib : NULL, sigma2, weight);
    for (int k = 0; k < 2; k++) {
      const float *xx = iq1_m_levels(shifts[ib], k);
      unsigned g = out[2 * ib + k] | (((unsigned)out[32 + ib] << (8 - 4 * k)) & 0x700u);
      const int8_t *pg = ix->pos[g];
      for (int j = 0; j < 8; j++) {
        float w = weight[8 * k + j];
        float q = xx[(pg[j] - 1) / 2] * (float)(2 * l + 1);
        sumqx += w * q * xb[8 * k + j];
        sumq2 += w * q * q;
      }
    }
  }
  if (sumq2 > 0) d = sumqx / sumq2;
  unsigned s = sq_ggml_fp16_searched(d * 1.1125f);
  sc[0] |= (s & 0x000fu) << 12;
  sc[1] |= (s & 0x00f0u) << 8;
  sc[2] |= (s & 0x0f00u) << 4;
  sc[3] |= s & 0xf000u;
  for (int i = 0; i < 4; i++) sq_store_u16(out + 48 + 2 * i, (uint16_t)sc[i]);
}


/* ---- rows --------------------------------------------------------------------- */

/* A row of n / 256 super-blocks.  `unit`: a type ggml quantizes only with
** importance; its callers never pass NULL (needs_importance), and should
** one, every weight counts 1 (defined bytes, not ggml's: ggml refuses). */
void sq_iq_quantize_row(int t, const sq_iq_ops *ops, const void *x, size_t n,
                        const void *importance, void *blocks) {
  int grid = sq_iq_grid_of(t == SQ_GGML_IQ1_M ? SQ_GGML_IQ1_S : t);
  if (grid < 0) return;
  const int unit = t != SQ_GGML_IQ2_S && t != SQ_GGML_IQ1_M;
  const size_t bytes = sq_ggml_formats[t].bytes;
  const iq_ctx c = {sq_iq_index_get((sq_iq_grid)grid), ops};
  const unsigned char *px = x, *pw = importance;
  unsigned char *out = blocks;
  float xb[QK_K], wb[QK_K];
  if (!pw && unit)
    for (int i = 0; i < QK_K; i++) wb[i] = 1.0f;
  const float *qw = pw || unit ? wb : NULL;
  for (size_t b = 0; b < n / QK_K; b++) {
    iq_load(px + 4 * QK_K * b, QK_K, xb);
    if (pw) iq_load(pw + 4 * QK_K * b, QK_K, wb);
    unsigned char *o = out + bytes * b;
    switch (t) {
      case SQ_GGML_IQ2_XXS: iq2_xxs_block(&c, xb, qw, o); break;
      case SQ_GGML_IQ2_XS: iq2_xs_block(&c, 0, xb, qw, o); break;
      case SQ_GGML_IQ2_S: iq2_xs_block(&c, 1, xb, qw, o); break;
      case SQ_GGML_IQ1_S: iq1_s_block(&c, xb, qw, o); break;
      default: iq1_m_block(&c, xb, qw, o); break;
    }
  }
}

void sq_ggml_quantize_iq2_xxs(const void *x, size_t n, const void *importance,
                              void *blocks) {
  sq_iq_quantize_row(SQ_GGML_IQ2_XXS, &sq_iq_ops_scalar, x, n, importance, blocks);
}
void sq_ggml_quantize_iq2_xs(const void *x, size_t n, const void *importance,
                             void *blocks) {
  sq_iq_quantize_row(SQ_GGML_IQ2_XS, &sq_iq_ops_scalar, x, n, importance, blocks);
}
void sq_ggml_quantize_iq2_s(const void *x, size_t n, const void *importance,
                            void *blocks) {
  sq_iq_quantize_row(SQ_GGML_IQ2_S, &sq_iq_ops_scalar, x, n, importance, blocks);
}
void sq_ggml_quantize_iq1_s(const void *x, size_t n, const void *importance,
                            void *blocks) {
  sq_iq_quantize_row(SQ_GGML_IQ1_S, &sq_iq_ops_scalar, x, n, importance, blocks);
}
void sq_ggml_quantize_iq1_m(const void *x, size_t n, const void *importance,
                            void *blocks) {
  sq_iq_quantize_row(SQ_GGML_IQ1_M, &sq_iq_ops_scalar, x, n, importance, blocks);
}

#undef QK_K
#undef iq1_xp
#undef iq1_xm
