/*
** ggml_quantize_kquants.c: the scalar K-quant quantizers, q2_K .. q6_K
** (docs/NUMERICS.md#ggml).
**
** A row is quantized one super-block of 256 weights at a time, copied out
** of the little-endian input into a native float array.  Without importance
** each super-block goes through ggml's reference quantizer
** (quantize_row_<type>_ref); with importance through ggml's weighted one
** (quantize_<type> with an imatrix).  Both search every sub-block (through
** a path's search table, ggml_kquants.h: ggml's searches one sub-block at a
** time here, side by side in lanes on the vector paths), quantize the
** sub-block scales against one fp16 super-block scale, and then requantize
** every weight against the scales as they will be decoded: the fp16 value
** read back, not the float the search returned.  The bytes are written one
** field at a time in ggml's block layout, fp16 little-endian, so every host
** writes the same bytes.
**
** Integers that ggml stores into uint8_t/int8_t fields are narrowed here
** with explicit modular conversions (a negative sub-scale, which ggml's
** casts wrap, wraps the same way), and shifts are done on unsigned values:
** no step relies on implementation-defined or undefined behaviour.
*/
#include <math.h>
#include "kernels/ggml_kquants.h"

#define QK_K 256

/* ---- shared steps ------------------------------------------------------------ */

/* n little-endian floats (weights or importance) into a native array. */
static void load_floats(const unsigned char *p, int n, float *out) {
  for (int i = 0; i < n; i++) out[i] = sq_load_f32(p + 4 * i);
}

/* Writes f as ggml's fp16 at p (a NaN as x86 makes it, see
** sq_ggml_fp16_searched) and returns the value a reader decodes. */
static float put_half(unsigned char *p, float f) {
  sq_store_u16(p, sq_ggml_fp16_searched(f));
  return sq_ggml_half(p);
}

/* int -> int8_t as two's complement truncation (ggml's casts on every host
** it runs on), without implementation-defined conversion. */
static inline int wrap_s8(int v) {
  int b = (int)((unsigned)v & 0xffu);
  return b >= 128 ? b - 256 : b;
}
static inline uint8_t low_byte(int v) { return (uint8_t)((unsigned)v & 0xffu); }
/* The low byte of v << s, as x86's shift gives it for any int v. */
static inline uint8_t shl_byte(int v, int s) {
  return (uint8_t)(((unsigned)v << s) & 0xffu);
}

/* Sum of squares over the super-block, first to last: the scale of ggml's
** weighted searches (sigma2) is a multiple of it. */
static float superblock_sum_sq(const float *x) {
  float s = 0;
  for (int i = 0; i < QK_K; i++) s += x[i] * x[i];
  return s;
}

/* The importance-derived search weights of nblk >= 1 super-blocks:
** qw * sqrt(sigma2 + x^2), sigma2 = factor * sum(x^2) / 256 over each
** super-block (factor 1 for q2_K, 2 for the others; 1 * s is s exactly). */
static void imatrix_weights(int nblk, const float *x, const float *qw,
                            float factor, float *w) {
  int b = 0;
  do {  /* at least once: the compiler sees every w written */
    const float *xb = x + QK_K * b, *qb = qw + QK_K * b;
    const float sigma2 = factor * superblock_sum_sq(xb) / QK_K;
    for (int i = 0; i < QK_K; i++)
      w[QK_K * b + i] = qb[i] * sqrtf(sigma2 + xb[i] * xb[i]);
  } while (++b < nblk);
}

static float sum_floats(int n, const float *v) {
  float s = 0;
  for (int i = 0; i < n; i++) s += v[i];
  return s;
}

/* Decoded sub-block scales d*sc (and minimums dmin*m) for requantization. */
static void decoded_scales(int nsub, float d, const int *sc, float *ds) {
  for (int j = 0; j < nsub; j++) ds[j] = d * (float)sc[j];
}

/* 256 two-bit levels into 64 bytes: byte 32*h + l holds the levels
** 128*h + l + 32*k at bits 2k (q2_K and q3_K). */
static void pack_2bit(const uint8_t *L, unsigned char *qs) {
  for (int h = 0; h < 2; h++)
    for (int l = 0; l < 32; l++) {
      const uint8_t *s = L + 128 * h + l;
      qs[32 * h + l] = (unsigned char)(s[0] | (s[32] << 2) | (s[64] << 4) | (s[96] << 6));
    }
}

/* ---- the scalar search table: ggml's searches, one sub-block at a time ---- */

static void affine_scalar(const sq_kq_affine *a, int nsub, const float *x,
                          const float *w, float *scales, float *mins,
                          uint8_t *L) {
  uint8_t Laux[SQ_KQ_MAX_LEN];
  for (int j = 0; j < nsub; j++) {
    size_t o = (size_t)a->len * (size_t)j;
    scales[j] = a->flat_if_le
      ? sq_ggml_make_qkx3_quants(a->len, a->nmax, x + o, w + o, L + o, &mins[j],
                                 Laux, a->rmin, a->rdelta, a->nstep, a->use_mad)
      : sq_ggml_make_qkx2_quants(a->len, a->nmax, x + o, w + o, L + o, &mins[j],
                                 Laux, a->rmin, a->rdelta, a->nstep, a->use_mad);
  }
}

static void symmetric_scalar(int nsub, int len, int nmax, const float *x,
                             const float *w, float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j++)
    scales[j] = sq_ggml_make_qx_quants(len, nmax, x + len * j, L + len * j,
                                       w ? w + len * j : NULL);
}

static void q3_scalar(int nsub, int len, int nmax, const float *x,
                      float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j++)
    scales[j] = sq_ggml_make_q3_quants(len, nmax, x + len * j, L + len * j);
}

static void requantize_scalar(int nsub, int len, const float *x,
                              const float *ds, const float *dm, int lo, int hi,
                              unsigned char *L) {
  for (int j = 0; j < nsub; j++) {
    if (ds[j] == 0) continue;
    for (int i = len * j; i < len * j + len; i++) {
      float v = dm ? (x[i] + dm[j]) / ds[j] : x[i] / ds[j];
      L[i] = (unsigned char)(sq_ggml_clamp_int(sq_ggml_nearest_int(v), lo, hi) - lo);
    }
  }
}

const sq_kq_search sq_kq_search_scalar = {affine_scalar, symmetric_scalar,
                                          q3_scalar, requantize_scalar};

/* ---- q4_K / q5_K scale packing ------------------------------------------------ */

/* Eight 6-bit scales and mins into 12 bytes: sub-blocks 0-3 whole in bytes
** 0-3 (scales) and 4-7 (mins); sub-blocks 4-7 as nibbles in bytes 8-11
** with their top two bits in the top bits of bytes 0-7.  Levels above 63
** (only a wrapped negative from the weighted search) lose their high bits
** exactly as ggml's uint8_t stores lose them. */
static void pack_scale_min_k4(const uint8_t *ls, const uint8_t *lm,
                              unsigned char *s) {
  for (int j = 0; j < 8; j++) {
    if (j < 4) {
      s[j] = ls[j];
      s[j + 4] = lm[j];
    } else {
      s[j + 4] = (unsigned char)((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
      s[j - 4] = low_byte(s[j - 4] | ((ls[j] >> 4) << 6));
      s[j] = low_byte(s[j] | ((lm[j] >> 4) << 6));
    }
  }
}

/* The scale and min of sub-block j as a decoder reads them. */
static void scale_min_k4(int j, const unsigned char *s, int *sc, int *m) {
  if (j < 4) {
    *sc = s[j] & 63;
    *m = s[j + 4] & 63;
  } else {
    *sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
    *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

/* Requantizes the eight sub-blocks of 32 against the packed scales and the
** fp16 d and dmin as decoded. */
static void requantize_k4(const sq_kq_search *s, const float *x,
                          const unsigned char *scales, float d, float dmin,
                          int nmax, uint8_t *L) {
  int sc[8], m[8];
  float ds[8], dm[8];
  for (int j = 0; j < 8; j++) scale_min_k4(j, scales, &sc[j], &m[j]);
  decoded_scales(8, d, sc, ds);
  decoded_scales(8, dmin, m, dm);
  s->requantize(8, 32, x, ds, dm, 0, nmax, L);
}

/* Sub-scales and sub-mins of the reference quantizers as 6-bit levels of
** max/63, clamped to 63. */
static void k4_levels_ref(const float *scales, const float *mins,
                          float max_scale, float max_min, uint8_t *ls,
                          uint8_t *lm) {
  float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  for (int j = 0; j < 8; j++) {
    uint8_t a = low_byte(sq_ggml_nearest_int(inv_scale * scales[j]));
    uint8_t b = low_byte(sq_ggml_nearest_int(inv_min * mins[j]));
    ls[j] = a < 63 ? a : 63;
    lm[j] = b < 63 ? b : 63;
  }
}

/* ---- q2_K: 16 x 16, 2-bit affine, 4-bit scales and mins -------------------------
** bytes: scales[16] (scale nibble low, min nibble high), qs[64], d, dmin. */

static void q2_K_finish(const sq_kq_search *s, const float *x,
                        unsigned char *out, uint8_t *L) {
  int sc[16], m[16];
  float ds[16], dm[16];
  for (int j = 0; j < 16; j++) {
    sc[j] = out[j] & 0xF;
    m[j] = out[j] >> 4;
  }
  decoded_scales(16, sq_ggml_half(out + 80), sc, ds);
  decoded_scales(16, sq_ggml_half(out + 82), m, dm);
  s->requantize(16, 16, x, ds, dm, 0, 3, L);
  pack_2bit(L, out + 16);
}

/* The reference header: scales and mins as 4-bit levels of their maxima
** over 15; a negative scale level wraps into its byte as ggml's store wraps
** it, then the min level is or-ed in above. */
static void q2_K_header_ref(const float *scales, const float *mins,
                            unsigned char *out) {
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 16; j++) {
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  if (max_scale > 0) {
    float iscale = 15.f / max_scale;
    for (int j = 0; j < 16; j++)
      out[j] = low_byte(sq_ggml_nearest_int(iscale * scales[j]));
    put_half(out + 80, max_scale / 15.f);
  } else {
    memset(out, 0, 16);
    put_half(out + 80, 0.f);
  }
  if (max_min > 0) {
    float iscale = 15.f / max_min;
    for (int j = 0; j < 16; j++)
      out[j] = (uint8_t)(out[j] | shl_byte(sq_ggml_nearest_int(iscale * mins[j]), 4));
    put_half(out + 82, max_min / 15.f);
  } else {
    put_half(out + 82, 0.f);
  }
}

/* The reference search weights |x| of nblk >= 1 super-blocks. */
static void abs_weights(int nblk, const float *x, float *w) {
  int i = 0;
  do w[i] = fabsf(x[i]); while (++i < QK_K * nblk);  /* as imatrix_weights */
}

static void q2_K_blocks_ref(const sq_kq_search *s, int nblk, const float *x,
                            unsigned char *out) {
  static const sq_kq_affine search = {16, 3, -0.5f, 0.1f, 15, 1, 0};
  uint8_t L[SQ_KQ_BATCH * QK_K];
  float w[SQ_KQ_BATCH * QK_K], scales[SQ_KQ_BATCH * 16], mins[SQ_KQ_BATCH * 16];
  abs_weights(nblk, x, w);
  s->affine(&search, 16 * nblk, x, w, scales, mins, L);
  for (int b = 0; b < nblk; b++) {
    q2_K_header_ref(scales + 16 * b, mins + 16 * b, out + 84 * b);
    q2_K_finish(s, x + QK_K * b, out + 84 * b, L + QK_K * b);
  }
}

static void q2_K_blocks_weighted(const sq_kq_search *s, int nblk,
                                 const float *x, const float *qw,
                                 unsigned char *out) {
  static const sq_kq_affine search = {16, 3, -0.9f, 0.05f, 36, 0, 1};
  uint8_t L[SQ_KQ_BATCH * QK_K], Ls[16], Lm[16];
  float w[SQ_KQ_BATCH * QK_K], scales[SQ_KQ_BATCH * 16], mins[SQ_KQ_BATCH * 16];
  imatrix_weights(nblk, x, qw, 1, w);
  s->affine(&search, 16 * nblk, x, w, scales, mins, L);
  for (int b = 0; b < nblk; b++) {
    unsigned char *o = out + 84 * b;
    float sw[16];
    for (int j = 0; j < 16; j++) sw[j] = sum_floats(16, w + QK_K * b + 16 * j);
    float dm = sq_ggml_make_qp_quants(16, 15, scales + 16 * b, Ls, sw);
    float mm = sq_ggml_make_qp_quants(16, 15, mins + 16 * b, Lm, sw);
    put_half(o + 80, dm);
    put_half(o + 82, mm);
    for (int j = 0; j < 16; j++) o[j] = low_byte(Ls[j] | (Lm[j] << 4));
    q2_K_finish(s, x + QK_K * b, o, L + QK_K * b);
  }
}

/* ---- q3_K: 16 x 16, 3-bit symmetric, 6-bit signed scales ------------------------
** bytes: hmask[32], qs[64], scales[12], d.  Scale j's low nibble is in byte
** j (j < 8) or the high nibble of byte j - 8; its top two bits in byte
** 8 + j % 4 at bit 2 * (j / 4). */

static void q3_K_pack_scales(const int *l6, unsigned char *s) {
  memset(s, 0, 12);
  for (int j = 0; j < 16; j++) {
    int l = l6[j];
    if (j < 8)
      s[j] = (unsigned char)(l & 0xF);
    else
      s[j - 8] = low_byte(s[j - 8] | ((l & 0xF) << 4));
    s[8 + j % 4] = low_byte(s[8 + j % 4] | ((unsigned)(l >> 4) << (2 * (j / 4))));
  }
}

static int q3_K_scale(int j, const unsigned char *s) {
  int lo = j < 8 ? s[j] & 0xF : s[j - 8] >> 4;
  int hi = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
  return wrap_s8(lo | (hi << 4)) - 32;
}

/* Requantizes against the decoded scales, then splits the 3-bit levels into
** the high-bit mask (bit k of byte m: level 32k + m) and two low bits. */
static void q3_K_finish(const sq_kq_search *s, const float *x,
                        unsigned char *out, int8_t *L) {
  int sc[16];
  float ds[16];
  for (int j = 0; j < 16; j++) sc[j] = q3_K_scale(j, out + 96);
  decoded_scales(16, sq_ggml_half(out + 108), sc, ds);
  s->requantize(16, 16, x, ds, NULL, -4, 3, (unsigned char *)L);
  uint8_t low[QK_K];
  for (int m = 0; m < 32; m++) {
    unsigned bits = 0;
    for (int b = 0; b < 8; b++) {
      int l = L[32 * b + m];
      int high = l > 3;  /* levels 0..7: the third bit */
      bits |= (unsigned)high << b;
      low[32 * b + m] = low_byte(l - 4 * high);
    }
    out[m] = (unsigned char)bits;
  }
  pack_2bit(low, out + 32);
}

/* The reference header: the scale of largest magnitude maps to -32, the
** rest onto 6 bits; d is its inverse. */
static void q3_K_header_ref(const float *scales, unsigned char *out) {
  float max_scale = 0, amax = 0;
  for (int j = 0; j < 16; j++) {
    float a = fabsf(scales[j]);
    if (a > amax) {
      amax = a;
      max_scale = scales[j];
    }
  }
  if (max_scale != 0) {
    float iscale = -32.f / max_scale;
    int l6[16];
    for (int j = 0; j < 16; j++)
      l6[j] = sq_ggml_clamp_int(wrap_s8(sq_ggml_nearest_int(iscale * scales[j])), -32, 31) + 32;
    q3_K_pack_scales(l6, out + 96);
    put_half(out + 108, 1 / iscale);
  } else {
    memset(out + 96, 0, 12);
    put_half(out + 108, 0.f);
  }
}

static void q3_K_blocks_ref(const sq_kq_search *s, int nblk, const float *x,
                            unsigned char *out) {
  int8_t L[SQ_KQ_BATCH * QK_K];
  float scales[SQ_KQ_BATCH * 16];
  s->q3(16 * nblk, 16, 4, x, scales, L);
  for (int b = 0; b < nblk; b++) {
    q3_K_header_ref(scales + 16 * b, out + 110 * b);
    q3_K_finish(s, x + QK_K * b, out + 110 * b, L + QK_K * b);
  }
}

static void q3_K_blocks_weighted(const sq_kq_search *s, int nblk,
                                 const float *x, const float *qw,
                                 unsigned char *out) {
  int8_t L[SQ_KQ_BATCH * QK_K], Ls[16];
  float w[SQ_KQ_BATCH * QK_K], scales[SQ_KQ_BATCH * 16];
  imatrix_weights(nblk, x, qw, 2, w);
  s->symmetric(16 * nblk, 16, 4, x, w, scales, L);
  for (int b = 0; b < nblk; b++) {
    unsigned char *o = out + 110 * b;
    float sw[16];
    for (int j = 0; j < 16; j++) sw[j] = sum_floats(16, w + QK_K * b + 16 * j);
    /* The sub-block scales themselves by make_qx_quants on 6 bits. */
    float d_block = sq_ggml_make_qx_quants(16, 32, scales + 16 * b, Ls, sw);
    int l6[16];
    for (int j = 0; j < 16; j++) l6[j] = Ls[j];
    q3_K_pack_scales(l6, o + 96);
    put_half(o + 108, d_block);
    q3_K_finish(s, x + QK_K * b, o, L + QK_K * b);
  }
}

/* ---- q4_K and q5_K: 8 x 32 affine, 6-bit scales and mins ------------------------
** q4_K bytes: d, dmin, scales[12] (pack_scale_min_k4), qs[128]: byte 32*h + l
** holds level 64*h + l (low nibble) and 64*h + 32 + l (high nibble).
** q5_K bytes: d, dmin, scales[12], qh[32], qs[128]; low nibbles as q4_K, the
** fifth bit of levels 64*h + l and 64*h + 32 + l in bits 2h and 2h + 1 of
** qh[l]. */

/* The reference search weights of nblk >= 1 super-blocks: for each
** sub-block of 32, its rms plus |x|. */
static void rms_plus_abs_weights(int nblk, const float *x, float *w) {
  int j = 0;
  do {  /* as imatrix_weights */
    const float *xj = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; l++) sum_x2 += xj[l] * xj[l];
    float av_x = sqrtf(sum_x2 / 32);
    for (int l = 0; l < 32; l++) w[32 * j + l] = av_x + fabsf(xj[l]);
  } while (++j < 8 * nblk);
}

/* The reference header: scales and mins as 6-bit levels of their maxima. */
static void k4_header_ref(const float *scales, const float *mins,
                          unsigned char *out) {
  uint8_t ls[8], lm[8];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; j++) {
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  k4_levels_ref(scales, mins, max_scale, max_min, ls, lm);
  pack_scale_min_k4(ls, lm, out + 4);
  put_half(out, max_scale / 63.f);
  put_half(out + 2, max_min / 63.f);
}

/* The weighted header: scales and mins quantized by make_qp_quants, weighted
** by each sub-block's total weight.  clamp63: q5_K clamps the levels to 63,
** q4_K does not. */
static void k4_header_weighted(const float *scales, const float *mins,
                               const float *w, int clamp63,
                               unsigned char *out) {
  uint8_t ls[8], lm[8];
  float sw[8];
  for (int j = 0; j < 8; j++) sw[j] = sum_floats(32, w + 32 * j);
  float d_block = sq_ggml_make_qp_quants(8, 63, scales, ls, sw);
  float m_block = sq_ggml_make_qp_quants(8, 63, mins, lm, sw);
  if (clamp63)
    for (int j = 0; j < 8; j++) {
      if (ls[j] > 63) ls[j] = 63;
      if (lm[j] > 63) lm[j] = 63;
    }
  pack_scale_min_k4(ls, lm, out + 4);
  put_half(out, d_block);
  put_half(out + 2, m_block);
}

static void q4_K_finish(const sq_kq_search *s, const float *x,
                        unsigned char *out, uint8_t *L) {
  requantize_k4(s, x, out + 4, sq_ggml_half(out), sq_ggml_half(out + 2), 15, L);
  unsigned char *q = out + 16;
  for (int h = 0; h < 4; h++)
    for (int l = 0; l < 32; l++)
      q[32 * h + l] = (unsigned char)(L[64 * h + l] | (L[64 * h + 32 + l] << 4));
}

static void q5_K_finish(const sq_kq_search *s, const float *x,
                        unsigned char *out, uint8_t *L) {
  requantize_k4(s, x, out + 4, sq_ggml_half(out), sq_ggml_half(out + 2), 31, L);
  unsigned char *qh = out + 16, *qs = out + 48;
  for (int l = 0; l < 32; l++) {
    unsigned bits = 0;
    for (int h = 0; h < 4; h++) {
      int lo = L[64 * h + l], hi = L[64 * h + 32 + l];  /* levels 0..31 */
      int lo5 = lo > 15, hi5 = hi > 15;
      bits |= (unsigned)lo5 << (2 * h) | (unsigned)hi5 << (2 * h + 1);
      qs[32 * h + l] = low_byte((lo - 16 * lo5) | ((hi - 16 * hi5) << 4));
    }
    qh[l] = (unsigned char)bits;
  }
}

/* q4_K (nmax 15) or q5_K (31), both modes: the weights, one search over
** every sub-block of the batch, then each block's header and levels. */
static void k4_blocks(const sq_kq_search *s, int nblk, const float *x,
                      const float *qw, unsigned char *out, int q5) {
  const int nmax = q5 ? 31 : 15;
  const size_t bytes = q5 ? 176 : 144;
  const sq_kq_affine ref = {32, nmax, q5 ? -0.5f : -1.f, 0.1f, q5 ? 15 : 20, 0, 0};
  const sq_kq_affine weighted = {32, nmax, -0.9f, 0.05f, 36, 0, 1};
  uint8_t L[SQ_KQ_BATCH * QK_K];
  float w[SQ_KQ_BATCH * QK_K], scales[SQ_KQ_BATCH * 8], mins[SQ_KQ_BATCH * 8];
  if (qw)
    imatrix_weights(nblk, x, qw, 2, w);
  else
    rms_plus_abs_weights(nblk, x, w);
  s->affine(qw ? &weighted : &ref, 8 * nblk, x, w, scales, mins, L);
  for (int b = 0; b < nblk; b++) {
    unsigned char *o = out + bytes * b;
    if (qw)
      k4_header_weighted(scales + 8 * b, mins + 8 * b, w + QK_K * b, q5, o);
    else
      k4_header_ref(scales + 8 * b, mins + 8 * b, o);
    (q5 ? q5_K_finish : q4_K_finish)(s, x + QK_K * b, o, L + QK_K * b);
  }
}

static void q4_K_blocks_ref(const sq_kq_search *s, int nblk, const float *x,
                            unsigned char *out) {
  k4_blocks(s, nblk, x, NULL, out, 0);
}
static void q4_K_blocks_weighted(const sq_kq_search *s, int nblk,
                                 const float *x, const float *qw,
                                 unsigned char *out) {
  k4_blocks(s, nblk, x, qw, out, 0);
}
static void q5_K_blocks_ref(const sq_kq_search *s, int nblk, const float *x,
                            unsigned char *out) {
  k4_blocks(s, nblk, x, NULL, out, 1);
}
static void q5_K_blocks_weighted(const sq_kq_search *s, int nblk,
                                 const float *x, const float *qw,
                                 unsigned char *out) {
  k4_blocks(s, nblk, x, qw, out, 1);
}

/* ---- q6_K: 16 x 16, 6-bit symmetric, 8-bit signed scales ------------------------
** bytes: ql[128], qh[64], scales[16] (int8), d.  For each half h of 128
** levels: ql[64h + l] holds levels 128h + l | 128h + 64 + l (nibbles),
** ql[64h + 32 + l] levels 128h + 32 + l | 128h + 96 + l, and qh[32h + l]
** the top two bits of levels 128h + l + 32k at bits 2k. */

static void q6_K_pack(const int8_t *L, unsigned char *out) {
  unsigned char *ql = out, *qh = out + 128;
  for (int h = 0; h < 2; h++)
    for (int l = 0; l < 32; l++) {
      const int8_t *s = L + 128 * h + l;
      ql[64 * h + l] = (unsigned char)((s[0] & 0xF) | ((s[64] & 0xF) << 4));
      ql[64 * h + 32 + l] = (unsigned char)((s[32] & 0xF) | ((s[96] & 0xF) << 4));
      qh[32 * h + l] = (unsigned char)((s[0] >> 4) | ((s[32] >> 4) << 2) |
                                       ((s[64] >> 4) << 4) | ((s[96] >> 4) << 6));
    }
}

/* One block from its sub-block scales and search levels: the scale of
** largest magnitude maps to -128, the rest onto int8, d is its inverse. */
static void q6_K_finish(const sq_kq_search *s, const float *x,
                        const float *scales, unsigned char *out, int8_t *L) {
  float max_scale = 0, max_abs = 0;
  for (int j = 0; j < 16; j++) {
    float a = fabsf(scales[j]);
    if (a > max_abs) {
      max_abs = a;
      max_scale = scales[j];
    }
  }
  if (max_abs < 1e-15f) {  /* ggml's all-zero threshold */
    memset(out, 0, 210);
    return;
  }
  float iscale = -128.f / max_scale;
  const float d = put_half(out + 208, 1 / iscale);
  int sc[16];
  float ds[16];
  for (int j = 0; j < 16; j++) {
    int l = sq_ggml_nearest_int(iscale * scales[j]);
    out[192 + j] = low_byte(l < 127 ? l : 127);
    sc[j] = wrap_s8(out[192 + j]);
  }
  decoded_scales(16, d, sc, ds);
  s->requantize(16, 16, x, ds, NULL, -32, 31, (unsigned char *)L);
  q6_K_pack(L, out);
}

/* qw NULL: the reference quantizer (x^2 weighted search); otherwise the
** importance weights as they are, without the sigma2 term. */
static void q6_K_blocks(const sq_kq_search *s, int nblk, const float *x,
                        const float *qw, unsigned char *out) {
  int8_t L[SQ_KQ_BATCH * QK_K];
  float scales[SQ_KQ_BATCH * 16];
  s->symmetric(16 * nblk, 16, 32, x, qw, scales, L);
  for (int b = 0; b < nblk; b++)
    q6_K_finish(s, x + QK_K * b, scales + 16 * b, out + 210 * b, L + QK_K * b);
}

static void q6_K_blocks_ref(const sq_kq_search *s, int nblk, const float *x,
                            unsigned char *out) {
  q6_K_blocks(s, nblk, x, NULL, out);
}

static void q6_K_blocks_weighted(const sq_kq_search *s, int nblk,
                                 const float *x, const float *qw,
                                 unsigned char *out) {
  q6_K_blocks(s, nblk, x, qw, out);
}

/* ---- entry points ------------------------------------------------------------- */

/* nblk (1..SQ_KQ_BATCH) consecutive super-blocks of x (and qw) into nblk
** consecutive blocks at out. */
typedef void sq_blocks_ref_fn(const sq_kq_search *s, int nblk, const float *x,
                              unsigned char *out);
typedef void sq_blocks_weighted_fn(const sq_kq_search *s, int nblk,
                                   const float *x, const float *qw,
                                   unsigned char *out);

static const struct {
  size_t bytes;
  sq_blocks_ref_fn *ref;
  sq_blocks_weighted_fn *weighted;
} kquant_types[] = {
  [SQ_GGML_Q2_K] = {84, q2_K_blocks_ref, q2_K_blocks_weighted},
  [SQ_GGML_Q3_K] = {110, q3_K_blocks_ref, q3_K_blocks_weighted},
  [SQ_GGML_Q4_K] = {144, q4_K_blocks_ref, q4_K_blocks_weighted},
  [SQ_GGML_Q5_K] = {176, q5_K_blocks_ref, q5_K_blocks_weighted},
  [SQ_GGML_Q6_K] = {210, q6_K_blocks_ref, q6_K_blocks_weighted},
};

/* Super-blocks go to the searches SQ_KQ_BATCH at a time (the last batch may
** be smaller): a vector path fills its lanes with sub-blocks of several. */
void sq_ggml_kquant_row(sq_ggml_type type, const sq_kq_search *s,
                        const void *x, size_t n, const void *importance,
                        void *blocks) {
  const unsigned char *px = x, *pw = importance;
  unsigned char *out = blocks;
  const size_t bytes = kquant_types[type].bytes, nb = n / QK_K;
  float xb[SQ_KQ_BATCH * QK_K], wb[SQ_KQ_BATCH * QK_K];
  for (size_t b = 0; b < nb; b += SQ_KQ_BATCH) {
    const int nblk = nb - b < SQ_KQ_BATCH ? (int)(nb - b) : SQ_KQ_BATCH;
    load_floats(px + 4 * QK_K * b, QK_K * nblk, xb);
    if (pw) {
      load_floats(pw + 4 * QK_K * b, QK_K * nblk, wb);
      kquant_types[type].weighted(s, nblk, xb, wb, out + bytes * b);
    } else {
      kquant_types[type].ref(s, nblk, xb, out + bytes * b);
    }
  }
}

#define SQ_KQUANT_ENTRY(T, TYPE)                                               \
  void sq_ggml_quantize_##T(const void *x, size_t n, const void *importance,   \
                            void *blocks) {                                    \
    sq_ggml_kquant_row(TYPE, &sq_kq_search_scalar, x, n, importance, blocks);  \
  }
SQ_KQUANT_ENTRY(q2_K, SQ_GGML_Q2_K)
SQ_KQUANT_ENTRY(q3_K, SQ_GGML_Q3_K)
SQ_KQUANT_ENTRY(q4_K, SQ_GGML_Q4_K)
SQ_KQUANT_ENTRY(q5_K, SQ_GGML_Q5_K)
SQ_KQUANT_ENTRY(q6_K, SQ_GGML_Q6_K)
