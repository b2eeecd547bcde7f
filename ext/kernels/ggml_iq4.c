/*
** ggml_iq4.c: ggml's 4-bit non-linear formats iq4_nl and iq4_xs, the scalar
** kernels (docs/NUMERICS.md#ggml).
**
** Both store 4-bit codes into ggml's 16-value table kvalues_iq4nl
** (sq_iq4nl_values, read back from ggml by tests/ggml/gen_iq_tables.py);
** code j of a block of 32 goes to the low nibble of byte j (j < 16) or the
** high nibble of byte j - 16.  Layouts (fp16 and uint16 little-endian):
**   iq4_nl   18 bytes per 32 weights: d, 16 code bytes.
**            Weight = d * value.
**   iq4_xs   136 bytes per 256: d, scales_h (uint16: 2 high bits of the
**            6-bit scale of sub-block ib at bits 2ib), scales_l[4] (the low
**            4 bits, sub-block 2i in the low nibble of byte i), 128 code
**            bytes.  Weight = d * (scale - 32) * value.
**
** Quantizing is ggml's quantize_row_iq4_nl_impl: per sub-block of 32, the
** scale max / value[0] and then (with ntry = 7) the 15 trial scales
** (itry + value[0]) / max, keeping the best sum(w x q)^2 / sum(w q^2) (the
** trials' sums are computed side by side, each in ggml's order, then
** compared in ggml's order);
** iq4_xs then rounds the sub-block scales to 6 bits of -max_scale / 32 and
** re-picks every code at its rounded scale.  Same float operations in the
** same order as ggml, so the same bytes on every host.
**
** ggml has two answers without importance for iq4_nl only:
**   quantize_row_iq4_nl_ref   one scale (ntry = -1), the codes of the first
**                             iq4_fit (sq_ggml_quantize_iq4_nl);
**   quantize_iq4_nl(.., NULL) the 7-step search with weights x^2, then every
**                             code re-picked at the final scale
**                             (sq_ggml_quantize_iq4_nl_unweighted); this is
**                             what llama.cpp's quantizer writes without an
**                             imatrix (llama_model_quantize ->
**                             ggml_quantize_chunk -> quantize_iq4_nl).
** For iq4_xs the two are the same function in ggml.
**
** A block of 32 below 1e-15 in magnitude: ggml's _ref leaves its codes
** uninitialised (they are whatever its stack held; only d = 0 is defined);
** here they are code 8 (value 1, nearest to 0), which is what
** quantize_iq4_nl writes for the same block.  Either decodes to zeros.
*/
#include <math.h>
#include <string.h>
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq.h"

#define QK_K 256

/* ggml's best_index_int8 over the 16 values is the nearest value's code,
** the lower one on a tie only when strictly nearer.  ggml bisects with
** branches; here (codes32, trial_sums) the same code comes without them:
** lo, hi the values either side of x (the last value <= x, found by
** comparing with values 1..14, and the next one), then ggml's comparison of
** the two distances x - lo < hi - x.  x at or below value 0 or at or above
** value 15 lands on them through the same comparison; a NaN x is code 15,
** where ggml's bisection ends for it. */

#define NTRY 7
/* The sums of ggml's 2 * NTRY + 1 trial scales id[t] over one sub-block,
** each in ggml's order (element 0 to 31), four trials in the lanes of a
** 4-float vector (GCC's generic vectors: SSE, NEON or s390x's own
** instructions, IEEE operations lane by lane). */
typedef float sq_v4f __attribute__((vector_size(16)));
typedef int32_t sq_v4i __attribute__((vector_size(16)));
#define SQ_SEL(m, a, b) ((sq_v4f)(((m) & (sq_v4i)(a)) | (~(m) & (sq_v4i)(b))))
#define SQ_SEL_I(m, a, b) (((m) & (a)) | (~(m) & (b)))

static void iq4_trial_sums(const float *xb, const float *w, const float *id,
                       float *sumqx, float *sumq2) {
  const signed char *v = sq_iq4nl_values;
  float idp[16] = {0}, sa[16], sb[16];
  sq_v4f val[16];
  memcpy(idp, id, (2 * NTRY + 1) * sizeof(float));
  for (int k = 0; k < 16; k++) val[k] = (sq_v4f){v[k], v[k], v[k], v[k]};
  for (int g = 0; g < 16; g += 4) {
    sq_v4f vid, a = {0, 0, 0, 0}, b = {0, 0, 0, 0};
    memcpy(&vid, idp + g, sizeof vid);
    for (int j = 0; j < 32; j++) {
      sq_v4f x = vid * xb[j];
      sq_v4f lo = val[0], hi = val[1];
      for (int k = 1; k < 15; k++) {
        sq_v4i ge = x >= val[k];
        lo = SQ_SEL(ge, val[k], lo);
        hi = SQ_SEL(ge, val[k + 1], hi);
      }
      sq_v4f q = SQ_SEL(x - lo < hi - x, lo, hi);
      q = SQ_SEL(x != x, val[15], q);
      sq_v4f wq = w[j] * q;
      a += wq * xb[j];
      b += wq * q;
    }
    memcpy(sa + g, &a, sizeof a);
    memcpy(sb + g, &b, sizeof b);
  }
  memcpy(sumqx, sa, (2 * NTRY + 1) * sizeof(float));
  memcpy(sumq2, sb, (2 * NTRY + 1) * sizeof(float));
}

/* ggml's best_index_int8(id * xb[j]) for j < 32 into L (and the values into q unless
** NULL), four at a time as trial_sums does it. */
static void iq4_codes32(float id, const float *xb, uint8_t *L, float *q) {
  const signed char *v = sq_iq4nl_values;
  sq_v4f val[16];
  for (int k = 0; k < 16; k++) val[k] = (sq_v4f){v[k], v[k], v[k], v[k]};
  for (int j = 0; j < 32; j += 4) {
    sq_v4f x;
    memcpy(&x, xb + j, sizeof x);
    x = id * x;
    sq_v4f lo = val[0], hi = val[1];
    sq_v4i ml = {0, 0, 0, 0};
    for (int k = 1; k < 15; k++) {
      sq_v4i ge = x >= val[k];
      lo = SQ_SEL(ge, val[k], lo);
      hi = SQ_SEL(ge, val[k + 1], hi);
      ml -= ge;
    }
    sq_v4i up = ~(x - lo < hi - x) | (x != x);
    sq_v4i c = SQ_SEL_I(x != x, ((sq_v4i){15, 15, 15, 15}), ml - up);
    for (int i = 0; i < 4; i++) L[j + i] = (uint8_t)c[i];
    if (q) {
      sq_v4f qq = SQ_SEL(up, hi, lo);
      qq = SQ_SEL(x != x, val[15], qq);
      memcpy(q + j, &qq, sizeof qq);
    }
  }
}

/* One sub-block of 32 at xb: its scale, the codes of the first fit into L;
** *tiny = 1 (scale 0, L untouched) when it is below 1e-15 in magnitude.
** w: the weights; ntry as ggml's (-1 or NTRY). */
static float iq4_fit(const float *xb, const float *w, int ntry, uint8_t *L,
                 int *tiny) {
  const signed char *values = sq_iq4nl_values;
  float amax = 0, max = 0;
  for (int j = 0; j < 32; j++) {
    float ax = fabsf(xb[j]);
    if (ax > amax) {
      amax = ax;
      max = xb[j];
    }
  }
  *tiny = amax < 1e-15f;
  if (*tiny) return 0;
  float d = ntry > 0 ? -max / values[0] : max / values[0];
  float id = 1 / d;
  float sumqx = 0, sumq2 = 0, qv[32];
  iq4_codes32(id, xb, L, qv);
  for (int j = 0; j < 32; j++) {
    float q = qv[j];
    sumqx += w[j] * q * xb[j];
    sumq2 += w[j] * q * q;
  }
  d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
  if (ntry <= 0) return d;
  float best = d * sumqx;
  float ids[2 * NTRY + 1], sqx[2 * NTRY + 1], sq2[2 * NTRY + 1];
  for (int itry = -NTRY; itry <= NTRY; itry++)
    ids[itry + NTRY] = (float)(itry + values[0]) / max;
  iq4_trial_sums(xb, w, ids, sqx, sq2);
  for (int t = 0; t < 2 * NTRY + 1; t++) {
    if (sq2[t] > 0 && sqx[t] * sqx[t] > best * sq2[t]) {
      d = sqx[t] / sq2[t];
      best = d * sqx[t];
    }
  }
  return d;
}

static void iq4_weights(const float *xb, sq_cb imp, float sigma2, float *w) {
  for (int j = 0; j < 32; j++)
    w[j] = imp ? sq_load_f32(imp + 4 * j) * sqrtf(sigma2 + xb[j] * xb[j])
               : xb[j] * xb[j];
}

static void iq4_pack(const uint8_t *L, sq_b q4) {
  for (int j = 0; j < 16; j++) q4[j] = (unsigned char)(L[j] | (L[16 + j] << 4));
}

/* ---- iq4_nl ----------------------------------------------------------------- */

/* ntry -1: ggml's _ref (no importance); 7: quantize_iq4_nl. */
static void iq4_nl_row(sq_cb src, size_t n, sq_cb imp, int ntry, sq_b out) {
  for (size_t ib = 0; ib < n / 32; ib++, out += 18) {
    float xb[32], w[32];
    uint8_t L[32];
    for (int j = 0; j < 32; j++) xb[j] = sq_load_f32(src + 4 * (32 * ib + j));
    float sigma2 = 0;
    for (int j = 0; j < 32; j++) sigma2 += xb[j] * xb[j];
    sigma2 *= 2.f / 32;
    iq4_weights(xb, imp ? imp + 4 * 32 * ib : NULL, sigma2, w);
    int tiny;
    float d = iq4_fit(xb, w, ntry, L, &tiny);
    sq_store_u16(out, sq_ggml_fp16_searched(d));
    if (tiny && ntry < 0) memset(L, 8, 32);  /* see the header */
    if (ntry > 0) {
      float id = d ? 1 / d : 0;
      iq4_codes32(id, xb, L, NULL);
    }
    iq4_pack(L, out + 2);
  }
}

void sq_ggml_quantize_iq4_nl(const void *x, size_t n, const void *importance,
                             void *blocks) {
  iq4_nl_row(x, n, importance, importance ? 7 : -1, blocks);
}

void sq_ggml_quantize_iq4_nl_unweighted(const void *x, size_t n,
                                        const void *importance, void *blocks) {
  (void)importance;
  iq4_nl_row(x, n, NULL, 7, blocks);
}

/* ---- iq4_xs ----------------------------------------------------------------- */

void sq_ggml_quantize_iq4_xs(const void *x, size_t n, const void *importance,
                             void *blocks) {
  sq_cb src = x, imp = importance;
  sq_b out = blocks;
  for (size_t ibl = 0; ibl < n / QK_K; ibl++, out += 136) {
    float xbl[QK_K], scales[8], w[32];
    uint8_t L[QK_K];
    for (int i = 0; i < QK_K; i++) xbl[i] = sq_load_f32(src + 4 * (QK_K * ibl + i));
    float sigma2 = 0;
    for (int i = 0; i < QK_K; i++) sigma2 += xbl[i] * xbl[i];
    sigma2 *= 2.f / QK_K;
    float max_scale = 0, amax_scale = 0;
    for (int ib = 0; ib < 8; ib++) {
      iq4_weights(xbl + 32 * ib, imp ? imp + 4 * (QK_K * ibl + 32 * ib) : NULL, sigma2, w);
      int tiny;
      float d = iq4_fit(xbl + 32 * ib, w, 7, L + 32 * ib, &tiny);
      scales[ib] = d;
      float abs_d = fabsf(d);
      if (abs_d > amax_scale) {
        amax_scale = abs_d;
        max_scale = d;
      }
    }
    float d = -max_scale / 32;
    sq_store_u16(out, sq_ggml_fp16(d));
    float id = d ? 1 / d : 0.f;
    unsigned scales_h = 0;
    unsigned char scales_l[4] = {0};
    for (int ib = 0; ib < 8; ib++) {
      int l = sq_ggml_clamp_int(sq_ggml_nearest_int(id * scales[ib]), -32, 31);
      float dl = d * l;
      float idl = dl ? 1 / dl : 0.f;
      iq4_codes32(idl, xbl + 32 * ib, L + 32 * ib, NULL);
      l += 32;
      scales_l[ib / 2] |= (unsigned char)((l & 0xf) << (4 * (ib % 2)));
      scales_h |= (unsigned)(l >> 4) << (2 * ib);
    }
    sq_store_u16(out + 2, (uint16_t)scales_h);
    memcpy(out + 4, scales_l, 4);
    for (int i = 0; i < 8; i++) iq4_pack(L + 32 * i, out + 8 + 16 * i);
  }
}

/* ---- dequantizing ----------------------------------------------------------- */

/* Every weight is d (or d * (scale - 32)) times a non-zero value: finite
** fields give finite products, an infinite d gives infinities (and x86's NaN
** for iq4_xs' scale 32: inf * 0), a NaN d its own NaN made quiet, which the
** products carry unchanged on every host. */

void sq_ggml_dequantize_iq4_nl(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b out = y;
  for (size_t i = 0; i < n / 32; i++, b += 18, out += 128) {
    float d = sq_iq_half(b);
    for (int j = 0; j < 16; j++) {
      sq_store_f32(out + 4 * j, d * (float)sq_iq4nl_values[b[2 + j] & 0xf]);
      sq_store_f32(out + 4 * (j + 16), d * (float)sq_iq4nl_values[b[2 + j] >> 4]);
    }
  }
}

void sq_ggml_dequantize_iq4_xs(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b out = y;
  for (size_t i = 0; i < n / QK_K; i++, b += 136) {
    float d = sq_iq_half(b);
    unsigned sh = sq_load_u16(b + 2);
    for (int ib = 0; ib < 8; ib++, out += 128) {
      int ls = (int)(((b[4 + ib / 2] >> (4 * (ib % 2))) & 0xf) | (((sh >> (2 * ib)) & 3) << 4));
      float dl = d * (float)(ls - 32);
      /* d infinite and ls 32: inf * 0, x86's NaN (ARM and s390x make a
      ** positive one). */
      if (dl != dl && d == d) dl = sq_bits_f32(0xffc00000u);
      sq_cb qs = b + 8 + 16 * ib;
      for (int j = 0; j < 16; j++) {
        sq_store_f32(out + 4 * j, dl * (float)sq_iq4nl_values[qs[j] & 0xf]);
        sq_store_f32(out + 4 * (j + 16), dl * (float)sq_iq4nl_values[qs[j] >> 4]);
      }
    }
  }
}

#undef QK_K
#undef NTRY
#undef SQ_SEL
#undef SQ_SEL_I
