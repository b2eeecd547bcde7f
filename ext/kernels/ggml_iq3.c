/*
** ggml_iq3.c: ggml's 3-bit lattice formats iq3_xxs and iq3_s, the scalar
** kernels (docs/NUMERICS.md#ggml).
**
** Layouts (ggml-common.h; fp16 and uint32 fields little-endian):
**   iq3_xxs  98 bytes per 256 weights: d; 64 grid indices (one per 4
**            weights); 8 uint32, one per sub-block of 32: four 7-bit sign
**            fields (field l for weights 8l..8l+7; the eighth sign is the
**            parity of the seven, so every group of 8 has an even number of
**            minus signs) and the sub-block scale s in the top 4 bits.
**            Weight = d * (0.5 + s) * 0.5 * grid byte * sign.
**   iq3_s    110 bytes per 256 weights: d; 64 low index bytes; 8 qh bytes
**            (bit k of qh[ib]: the ninth index bit of group k of sub-block
**            ib); 32 sign bytes (bit j of byte l: weight 8l + j); 4 scale
**            bytes (two 4-bit scales s each, low nibble first).
**            Weight = d * (1 + 2 s) * grid byte * sign.
**
** Quantizing is ggml's quantize_row_iq3_xxs_impl / quantize_row_iq3_s_impl
** (ggml's _ref and its quantize_<type>(..., NULL) are the same there):
** per sub-block of 32, the magnitudes are fitted to the lattice at 31 (iq3_s:
** 19) trial scales; a group of four whose rounded levels are off the grid
** takes the nearest-listed entry that minimises the weighted error; the best
** trial by sum(w x q)^2 / sum(w q^2) wins and its off-grid groups are refitted
** at the winning scale.  Same float operations in the same order as ggml
** (the build never fuses a*b+c), so the same bytes on every host.
**
** Where ggml has no answer this file chooses one (and tests do not compare):
** ggml aborts (GGML_ASSERT) when every listed neighbour's weighted distance
** is infinite or NaN (squares of |x| beyond about 1.8e19, or huge importance)
** and when a sub-block's scale comes out NaN.  Here the first listed
** neighbour is taken, and a NaN scale is kept (its fp16 is x86's NaN).
**
** Two quirks of ggml's iq3_s are kept because they are its bytes: a sub-block
** of 32 zeros writes no indices or signs and the following sub-blocks' move
** up (qh and the scales stay in place), and a super-block whose scales are
** all zero keeps the indices and signs its sub-blocks wrote, with d = 0.
*/
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq.h"

#define QK_K 256

/* ---- the lattice ---------------------------------------------------------- */

static sq_iq3_lattice *sq_lattice[2];

/* The nearest grid entries of level combination u (not on the grid), as
** ggml lists them: every entry at one of the nwant smallest squared
** distances, by distance then entry number.  Writes them to out unless NULL;
** returns how many. */
static int iq3_nearest(const sq_iq3_lattice *l, int u, int nwant, uint16_t *out) {
  int d2[512], pos[4];
  for (int k = 0; k < 4; k++) pos[k] = 2 * ((u >> (3 * k)) & 7) + 1;
  for (int j = 0; j < l->size; j++) {
    int s = 0;
    for (int k = 0; k < 4; k++) {
      int d = (2 * l->level[j][k] + 1) - pos[k];
      s += d * d;
    }
    d2[j] = s;
  }
  int count = 0, last = -1;
  for (int have = 0; have < nwant; have++) {
    int next = INT32_MAX;
    for (int j = 0; j < l->size; j++)
      if (d2[j] > last && d2[j] < next) next = d2[j];
    if (next == INT32_MAX) break;
    for (int j = 0; j < l->size; j++)
      if (d2[j] == next) {
        if (out) out[count] = (uint16_t)j;
        count++;
      }
    last = next;
  }
  return count;
}

static sq_iq3_lattice *iq3_build(int g) {
  int size = g == SQ_IQ3_S_GRID ? 512 : 256, nwant = g == SQ_IQ3_S_GRID ? 3 : 2;
  const unsigned char(*bytes)[4] = g == SQ_IQ3_S_GRID ? sq_iq3s_grid : sq_iq3xxs_grid;
  const unsigned char *levels = g == SQ_IQ3_S_GRID ? sq_iq3s_levels : sq_iq3xxs_levels;
  sq_iq3_lattice *l = malloc(sizeof *l);
  if (!l) return NULL;
  l->size = size;
  for (int u = 0; u < 4096; u++) l->map[u] = -1;
  for (int e = 0; e < size; e++) {
    int u = 0;
    for (int k = 0; k < 4; k++) {
      int lv = 0;
      while (lv < 7 && levels[lv] != bytes[e][k]) lv++;
      l->level[e][k] = (unsigned char)lv;
      l->pos[e][k] = (float)(2 * lv + 1);
      u |= lv << (3 * k);
    }
    l->map[u] = e;
  }
  size_t total = 0;
  for (int u = 0; u < 4096; u++)
    if (l->map[u] < 0) total += 1 + (size_t)iq3_nearest(l, u, nwant, NULL);
  sq_iq3_lattice *grown = realloc(l, sizeof *l + total * sizeof(uint16_t));
  if (!grown) {
    free(l);
    return NULL;
  }
  l = grown;
  size_t at = 0, chunks = 0;
  for (int u = 0; u < 4096; u++) {
    l->soa_at[u] = 0;
    if (l->map[u] >= 0) continue;
    int c = iq3_nearest(l, u, nwant, l->neighbours + at + 1);
    l->neighbours[at] = (uint16_t)c;
    l->map[u] = -1 - (int32_t)at;
    at += 1 + (size_t)c;
    chunks += ((size_t)c + 3) / 4;
  }
  float *soa = malloc(chunks * 16 * sizeof(float));
  if (!soa) {
    free(l);
    return NULL;
  }
  size_t f = 0;
  for (int u = 0; u < 4096; u++) {
    if (l->map[u] >= 0) continue;
    const uint16_t *nb = l->neighbours + (-1 - l->map[u]);
    l->soa_at[u] = (uint32_t)f;
    for (int c = 0; c < (nb[0] + 3) / 4; c++, f += 16)
      for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
          soa[f + 4 * i + k] = 4 * c + k < nb[0] ? l->pos[nb[1 + 4 * c + k]][i] : NAN;
  }
  l->soa = soa;
  return l;
}

static void iq3_lattice_free(sq_iq3_lattice *l) {
  if (!l) return;
  free((void *)l->soa);
  free(l);
}

const sq_iq3_lattice *sq_iq3_lattice_get(int g) {
  sq_iq3_lattice *l = __atomic_load_n(&sq_lattice[g], __ATOMIC_ACQUIRE);
  if (l) return l;
  /* Threads that meet here each build one (a few milliseconds, once); the
  ** first to publish wins and the others free theirs. */
  l = iq3_build(g);
  if (!l) return NULL;
  sq_iq3_lattice *expected = NULL;
  if (!__atomic_compare_exchange_n(&sq_lattice[g], &expected, l, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    iq3_lattice_free(l);
    l = expected;
  }
  return l;
}

/* At dlclose (sqlite3's extension unload, or process exit). */
__attribute__((destructor)) static void sq_iq3_lattice_free(void) {
  for (int g = 0; g < 2; g++) {
    iq3_lattice_free(sq_lattice[g]);
    sq_lattice[g] = NULL;
  }
}

/* ---- the search ------------------------------------------------------------ */

static inline float iq3_maxf(float a, float b) { return a > b ? a : b; }  /* ggml's MAX */

/* ggml's iq3_find_best_neighbour: the listed entry nearest to xval at scale
** (weighted by w), its levels into L; the first listed when none compares
** below FLT_MAX (where ggml aborts).  ggml scans the list with a running
** strict minimum, so the winner is the first entry of least distance; here
** four candidates' distances are computed side by side (each with ggml's
** operations in ggml's order: d2 = 0, then d2 += w_i * diff_i * diff_i for
** i = 0..3), each lane keeps its own first least, and the lanes' least
** (distance, position) wins: the same entry. */
typedef float sq_v4f __attribute__((vector_size(16)));
typedef int32_t sq_v4i __attribute__((vector_size(16)));

SQ_AI int iq3_best_neighbour(const sq_iq3_lattice *l, int32_t m, int u,
                          const float *xval, const float *w, float scale,
                          int8_t *L) {
  const uint16_t *nb = l->neighbours + (-1 - m);
  const float *p = l->soa + l->soa_at[u];
  sq_v4f best = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX};
  sq_v4i at = {-1, -1, -1, -1}, pos = {0, 1, 2, 3};
  for (int c = 0; c < (nb[0] + 3) / 4; c++, p += 16, pos += 4) {
    sq_v4f d2 = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
      sq_v4f q;
      memcpy(&q, p + 4 * i, sizeof q);
      sq_v4f diff = scale * q - xval[i];
      d2 += w[i] * diff * diff;
    }
    sq_v4i better = d2 < best;
    best = (sq_v4f)((better & (sq_v4i)d2) | (~better & (sq_v4i)best));
    at = (better & pos) | (~better & at);
  }
  /* The lanes' least (distance, position): a distance is +0 or more, so
  ** its bits order as the floats do. */
  uint64_t key = UINT64_MAX;
  for (int k = 0; k < 4; k++) {
    uint64_t kk = at[k] >= 0 ? (uint64_t)sq_f32_bits(best[k]) << 32 | (uint32_t)at[k] : UINT64_MAX;
    key = kk < key ? kk : key;
  }
  int j = key == UINT64_MAX ? 0 : (int)(uint32_t)key;
  int e = nb[1 + j];
  for (int i = 0; i < 4; i++) L[i] = (int8_t)l->level[e][i];
  return e;
}

/* Levels of xval[0..3] at inverse scale id, clamped to 0..7: their
** combination number, the levels into L. */
static inline int iq3_round_group(const float *xval, float id, int8_t *L) {
  int u = 0;
  for (int i = 0; i < 4; i++) {
    int v = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * xval[i] - 1)), 0, 7);
    L[i] = (int8_t)v;
    u |= v << (3 * i);
  }
  return u;
}

static void iq3_sums(const float *xval, const float *weight, const int8_t *L,
                 float *sumqx, float *sumq2) {
  float a = 0, b = 0;
  for (int i = 0; i < 32; i++) {
    float w = weight[i], q = (float)(2 * L[i] + 1);
    a += w * xval[i] * q;
    b += w * q * q;
  }
  *sumqx = a;
  *sumq2 = b;
}

/* The scale and levels L[32] of one sub-block of magnitudes xval (max its
** largest, > 0): ggml's trial scales is = -steps..steps, then the refit of
** the groups still off the grid (all groups when refit_all; iq3_xxs starts
** with every group counted as on the grid, iq3_s with none). */
static float iq3_search(const sq_iq3_lattice *l, const float *xval,
                    const float *weight, const float *waux, float max,
                    int steps, int xxs, int8_t *L) {
  enum { MAXT = 32 };
  int ntr = 2 * steps + 1;
  int8_t La[MAXT][32];
  int on[8], ona[MAXT][8];
  float ids[MAXT], ts[MAXT], sqx[MAXT], sq2[MAXT];
  float best = 0, scale = max / 15;
  memset(L, 0, 32);
  for (int k = 0; k < 8; k++) on[k] = xxs;
  for (int t = 0; t < MAXT; t++) {
    int is = t < ntr ? t - steps : 0;
    ids[t] = (15 + is * 0.2f) / max;
    ts[t] = 1 / ids[t];
  }
  /* The trials' levels, four trials per vector. */
  for (int g = 0; g < ntr; g += 4) {
    sq_v4f id;
    memcpy(&id, ids + g, sizeof id);
    for (int i = 0; i < 32; i++) {
      sq_v4f v = 0.5f * (id * xval[i] - 1) + 12582912.f;
      sq_v4i n = ((sq_v4i)v & 0x007fffff) - 0x00400000;
      n &= ~(n < 0);
      sq_v4i hi = n > 7;
      n = (n & ~hi) | (7 & hi);
      for (int k = 0; k < 4; k++) La[g + k][i] = (int8_t)n[k];
    }
  }
  /* Off-grid groups: the nearest listed grid point at the trial's scale. */
  for (int t = 0; t < ntr; t++)
    for (int k = 0; k < 8; k++) {
      int8_t *Lk = La[t] + 4 * k;
      int u = Lk[0] | Lk[1] << 3 | Lk[2] << 6 | Lk[3] << 9;
      int32_t m = l->map[u];
      ona[t][k] = m >= 0;
      if (m < 0) iq3_best_neighbour(l, m, u, xval + 4 * k, waux + 4 * k, ts[t], Lk);
    }
  /* The trials' sums, four trials per vector, each in ggml's order. */
  for (int g = 0; g < ntr; g += 4) {
    sq_v4f a = {0, 0, 0, 0}, b = {0, 0, 0, 0};
    for (int i = 0; i < 32; i++) {
      float w = weight[i], wx = w * xval[i];
      sq_v4f q = {(float)(2 * La[g][i] + 1), (float)(2 * La[g + 1][i] + 1),
                  (float)(2 * La[g + 2][i] + 1), (float)(2 * La[g + 3][i] + 1)};
      a += wx * q;
      b += w * q * q;
    }
    memcpy(sqx + g, &a, sizeof a);
    memcpy(sq2 + g, &b, sizeof b);
  }
  /* ggml's choice, in its order. */
  for (int t = 0; t < ntr; t++) {
    float sumqx = sqx[t], sumq2 = sq2[t];
    if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
      scale = sumqx / sumq2;
      best = scale * sumqx;
      memcpy(L, La[t], 32);
      memcpy(on, ona[t], sizeof on);
    }
  }
  int off = 0;
  for (int k = 0; k < 8; k++) off += !on[k];
  if (off > 0 && scale > 0) {
    float id = 1 / scale;
    for (int k = 0; k < 8; k++) {
      if (xxs && on[k]) continue;
      int8_t Lk[4];
      int u = iq3_round_group(xval + 4 * k, id, Lk);
      int32_t e = l->map[u];
      if (e < 0) e = iq3_best_neighbour(l, e, u, xval + 4 * k, waux + 4 * k, scale, Lk);
      for (int i = 0; i < 4; i++) L[4 * k + i] = (int8_t)l->level[e][i];
    }
    float sumqx, sumq2;
    iq3_sums(xval, weight, L, &sumqx, &sumq2);
    if (sumq2 > 0) scale = sumqx / sumq2;
  }
  return scale;
}

/* The grid entry of levels L[0..3] (always on the grid after the search). */
static inline int iq3_entry(const sq_iq3_lattice *l, const int8_t *L) {
  int u = 0;
  for (int i = 0; i < 4; i++) u |= L[i] << (3 * i);
  return l->map[u];
}

/* One super-block's weights: x^2, or importance * sqrt(sigma2 + x^2) with
** sigma2 = 2 * mean(x^2); waux their square roots. */
static void iq3_weights(const float *xb, const unsigned char *imp, float sigma2,
                    float *weight, float *waux) {
  for (int i = 0; i < 32; i++) {
    weight[i] = imp ? sq_load_f32(imp + 4 * i) * sqrtf(sigma2 + xb[i] * xb[i])
                    : xb[i] * xb[i];
    waux[i] = sqrtf(weight[i]);
  }
}

static float iq3_sigma2_of(const float *xbl) {
  float sumx2 = 0;
  for (int i = 0; i < QK_K; i++) sumx2 += xbl[i] * xbl[i];
  return 2 * sumx2 / QK_K;
}

static float iq3_max_of(const float *xval) {
  float max = xval[0];
  for (int i = 1; i < 32; i++) max = iq3_maxf(max, xval[i]);
  return max;
}

/* ---- iq3_xxs ---------------------------------------------------------------- */

void sq_ggml_quantize_iq3_xxs(const void *x, size_t n, const void *importance,
                              void *blocks) {
  const sq_iq3_lattice *l = sq_iq3_lattice_get(SQ_IQ3_XXS_GRID);
  sq_cb src = x, imp = importance;
  sq_b out = blocks;
  if (!l) {  /* callers prepare the lattice first (sq_ggml_prepare) */
    memset(out, 0, n / QK_K * 98);
    return;
  }
  for (size_t ibl = 0; ibl < n / QK_K; ibl++, out += 98) {
    float xbl[QK_K], scales[8], max_scale = 0;
    unsigned char qs[64] = {0};
    uint32_t sas[8] = {0};
    for (int i = 0; i < QK_K; i++) xbl[i] = sq_load_f32(src + 4 * (QK_K * ibl + i));
    float sigma2 = iq3_sigma2_of(xbl);
    for (int ib = 0; ib < 8; ib++) {
      const float *xb = xbl + 32 * ib;
      float weight[32], waux[32], xval[32];
      int8_t L[32];
      unsigned signs[4];
      iq3_weights(xb, imp ? imp + 4 * (QK_K * ibl + 32 * ib) : NULL, sigma2, weight, waux);
      for (int k = 0; k < 4; k++) {
        int nflip = 0;
        unsigned s = 0;
        for (int i = 0; i < 8; i++) {
          float v = xb[8 * k + i];
          if (v >= 0) xval[8 * k + i] = v;
          else {
            xval[8 * k + i] = -v;
            nflip++;
            s |= 1u << i;
          }
        }
        if (nflip % 2) {
          /* An odd count: flip the weight that costs least. */
          int imin = 0;
          float min = weight[8 * k] * xb[8 * k] * xb[8 * k];
          for (int i = 1; i < 8; i++) {
            float ax = weight[8 * k + i] * xb[8 * k + i] * xb[8 * k + i];
            if (ax < min) {
              min = ax;
              imin = i;
            }
          }
          xval[8 * k + imin] = -xval[8 * k + imin];
          s ^= 1u << imin;
        }
        signs[k] = s & 127;
      }
      float max = iq3_max_of(xval);
      if (max < 1e-8f) {
        scales[ib] = 0;
        continue;
      }
      float scale = iq3_search(l, xval, weight, waux, max, 15, 1, L);
      if (scale < 0) {
        scale = -scale;
        for (int k = 0; k < 4; k++) signs[k] = ~signs[k] & 127;
      }
      for (int k = 0; k < 8; k++) qs[8 * ib + k] = (unsigned char)iq3_entry(l, L + 4 * k);
      sas[ib] = signs[0] | signs[1] << 7 | signs[2] << 14 | signs[3] << 21;
      scales[ib] = scale;
      max_scale = iq3_maxf(max_scale, scale);
    }
    if (!max_scale) {
      memset(out, 0, 98);
      continue;
    }
    float d = max_scale / 31;
    sq_store_u16(out, sq_ggml_fp16_searched(d * 1.0125f));
    float id = 1 / d;
    for (int ib = 0; ib < 8; ib++) {
      int s = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * scales[ib] - 1)), 0, 15);
      sas[ib] |= (uint32_t)s << 28;
    }
    memcpy(out + 2, qs, 64);
    for (int ib = 0; ib < 8; ib++) sq_store_u32(out + 66 + 4 * ib, sas[ib]);
  }
}

/* ---- iq3_s ------------------------------------------------------------------ */

void sq_ggml_quantize_iq3_s(const void *x, size_t n, const void *importance,
                            void *blocks) {
  const sq_iq3_lattice *l = sq_iq3_lattice_get(SQ_IQ3_S_GRID);
  sq_cb src = x, imp = importance;
  sq_b out = blocks;
  memset(out, 0, n / QK_K * 110);
  if (!l) return;  /* callers prepare the lattice first (sq_ggml_prepare) */
  for (size_t ibl = 0; ibl < n / QK_K; ibl++, out += 110) {
    float xbl[QK_K], scales[8], max_scale = 0;
    sq_b qs = out + 2, qh = out + 66, sg = out + 74, sc = out + 106;
    for (int i = 0; i < QK_K; i++) xbl[i] = sq_load_f32(src + 4 * (QK_K * ibl + i));
    float sigma2 = iq3_sigma2_of(xbl);
    for (int ib = 0; ib < 8; ib++) {
      const float *xb = xbl + 32 * ib;
      float weight[32], waux[32], xval[32];
      int8_t L[32];
      unsigned char signs[4];
      iq3_weights(xb, imp ? imp + 4 * (QK_K * ibl + 32 * ib) : NULL, sigma2, weight, waux);
      for (int k = 0; k < 4; k++) {
        unsigned s = 0;
        for (int i = 0; i < 8; i++) {
          float v = xb[8 * k + i];
          if (v >= 0) xval[8 * k + i] = v;
          else {
            xval[8 * k + i] = -v;
            s |= 1u << i;
          }
        }
        signs[k] = (unsigned char)s;
      }
      float max = iq3_max_of(xval);
      if (!max) {
        scales[ib] = 0;
        continue;  /* ggml's quirk: qs and signs do not advance */
      }
      float scale = iq3_search(l, xval, weight, waux, max, 9, 0, L);
      if (scale < 0) {
        scale = -scale;
        for (int k = 0; k < 4; k++) signs[k] = (unsigned char)~signs[k];
      }
      for (int k = 0; k < 8; k++) {
        int e = iq3_entry(l, L + 4 * k);
        qs[k] = (unsigned char)(e & 255);
        qh[ib] |= (unsigned char)((e >> 8) << k);
      }
      qs += 8;
      memcpy(sg, signs, 4);
      sg += 4;
      scales[ib] = scale;
      max_scale = iq3_maxf(max_scale, scale);
    }
    if (!max_scale) continue;
    float d = max_scale / 31;
    sq_store_u16(out, sq_ggml_fp16_searched(d * 1.033f));
    float id = 1 / d;
    for (int ib = 0; ib < 8; ib += 2) {
      int l1 = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * scales[ib] - 1)), 0, 15);
      int l2 = sq_ggml_clamp_int(sq_ggml_nearest_int(0.5f * (id * scales[ib + 1] - 1)), 0, 15);
      sc[ib / 2] = (unsigned char)(l1 | (l2 << 4));
    }
  }
}

/* ---- dequantizing ----------------------------------------------------------- */

/* ggml's v * (+1 or -1), which its x86-64 build applies as a sign flip: a
** NaN's sign flips too (checked against the library: d = 0x7d01 with every
** sign set dequantizes to 0xffe02000). */
static inline float iq3_signed_by(float v, int minus) { return minus ? -v : v; }

void sq_ggml_dequantize_iq3_xxs(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b out = y;
  for (size_t i = 0; i < n / QK_K; i++, b += 98) {
    float d = sq_iq_half(b);
    sq_cb qs = b + 2;
    for (int ib = 0; ib < 8; ib++, qs += 8) {
      uint32_t aux = sq_load_u32(b + 66 + 4 * ib);
      float db = d * (0.5f + (float)(aux >> 28)) * 0.5f;
      for (int l = 0; l < 4; l++) {
        unsigned s = (aux >> (7 * l)) & 127u;
        s |= (unsigned)__builtin_parity(s) << 7;
        const unsigned char *g1 = sq_iq3xxs_grid[qs[2 * l]], *g2 = sq_iq3xxs_grid[qs[2 * l + 1]];
        for (int j = 0; j < 4; j++) {
          sq_store_f32(out, iq3_signed_by(db * (float)g1[j], (s >> j) & 1));
          sq_store_f32(out + 16, iq3_signed_by(db * (float)g2[j], (s >> (j + 4)) & 1));
          out += 4;
        }
        out += 16;
      }
    }
  }
}

void sq_ggml_dequantize_iq3_s(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b out = y;
  for (size_t i = 0; i < n / QK_K; i++, b += 110) {
    float d = sq_iq_half(b);
    sq_cb qs = b + 2, qh = b + 66, sg = b + 74, sc = b + 106;
    for (int ib = 0; ib < 8; ib++, qs += 8, sg += 4) {
      unsigned s4 = ib & 1 ? sc[ib / 2] >> 4 : sc[ib / 2] & 0xfu;
      float db = d * (float)(1 + 2 * (int)s4);
      for (int k = 0; k < 8; k++) {
        const unsigned char *g = sq_iq3s_grid[qs[k] | (((unsigned)qh[ib] >> k & 1u) << 8)];
        unsigned s = sg[k / 2] >> (4 * (k & 1));
        for (int j = 0; j < 4; j++) {
          sq_store_f32(out, iq3_signed_by(db * (float)g[j], (s >> j) & 1));
          out += 4;
        }
      }
    }
  }
}

#undef QK_K
