/*
** ggml_iq_dequantize.c: the scalar reference of ggml's dequantize_row_<type>
** for the lattice types (docs/NUMERICS.md#ggml).  Each weight is ggml's
** operations in ggml's order, rounded to float32 at each step:
**   iq2_xxs, iq2_xs, iq2_s   ((d * (0.5f + s)) * 0.25f * g), its sign bit
**                            flipped for a minus sign (as ggml's build does,
**                            NaNs included); s the 4-bit scale, g the grid
**                            value (8, 25, 43)
**   iq1_s, iq1_m             (d * (float)(2 * s + 1)) * (g + delta)
**                            s the 3-bit scale, g -1, 0 or 1, delta +-0.125f
** With a finite fp16 d nothing overflows or is subnormal, so the bits are
** IEEE's on every host.  A d that is
** infinite or NaN takes x86-64's NaN rules, spelled out (as
** ggml_dequantize.c does for the other types).
**
** Layouts (ggml-common.h's block_<type>, no padding):
**   iq2_xxs  66 B  d, then per 32 weights 8 bytes: four grid indices
**                  (bytes), then a little-endian u32: four 7-bit sign
**                  patterns and the 4-bit scale on top
**   iq2_xs   74 B  d, 32 little-endian u16 (9-bit index, 7-bit signs),
**                  8 bytes of two 4-bit scales (per 16 weights)
**   iq2_s    82 B  d, 32 index low bytes, 32 sign bytes, 8 bytes of the
**                  indices' top two bits, 8 bytes of 4-bit scales
**   iq1_s    50 B  d, 32 index low bytes, 8 little-endian u16 per 32
**                  weights: four 3-bit index tops, 3-bit scale, delta sign
**   iq1_m    56 B  32 index low bytes, 16 bytes (per 16 weights: two 3-bit
**                  index tops and two delta signs), 8 bytes = four u16 of
**                  four 3-bit scales each, whose top nibbles form the fp16 d
** The sign patterns of iq2_xxs and iq2_xs are 7 bits: the eighth sign makes
** the count of minus signs even.
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_blocks.h"
#include "kernels/ggml_iq2.h"

/* a * b, with x86-64's NaN rules spelled out when slow (sq_x86_nan). */
SQ_AI float iq_mul(float a, float b, int slow) {
  float r = a * b;
  return slow ? sq_x86_nan(a, b, r) : r;
}
static inline void iq_put(sq_b y, size_t i, float v) { sq_store_f32(y + 4 * i, v); }

/* The 8-bit sign mask of a 7-bit pattern: bit 7 set when bits 0..6 have an
** odd count. */
static inline unsigned iq_ksigns(unsigned s) {
  unsigned p = s ^ (s >> 4);
  p ^= p >> 2;
  p ^= p >> 1;
  return s | ((p & 1u) << 7);
}

/* Eight weights of grid entry g (iq2 grids) at scale db, signs bits. */
SQ_AI void iq2_eight(sq_b y, const uint8_t *g, float db, unsigned signs,
                     int slow) {
  /* ggml's build applies the sign as a sign-bit flip (NaNs included), so
  ** the product's bits are flipped, never multiplied by -1. */
  for (int j = 0; j < 8; j++)
    sq_store_u32(y + 4 * j, sq_f32_bits(iq_mul(db, (float)g[j], slow)) ^
                                (((signs >> j) & 1u) << 31));
}

SQ_AI float iq2_db(float d, unsigned s, int slow) {
  return iq_mul(iq_mul(d, 0.5f + (float)s, slow), 0.25f, slow);
}

SQ_AI void dq_iq2_xxs(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b);
  for (int ib = 0; ib < 8; ib++) {
    sq_cb q = b + 2 + 8 * ib;
    uint32_t a1 = sq_load_u32(q + 4);
    float db = iq2_db(d, a1 >> 28, slow);
    for (int l = 0; l < 4; l++)
      iq2_eight(y + 4 * (32 * ib + 8 * l), sq_iq2xxs_grid[q[l]], db,
                iq_ksigns((a1 >> (7 * l)) & 127u), slow);
  }
}

SQ_AI void dq_iq2_xs(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b);
  for (int ib = 0; ib < 8; ib++) {
    unsigned sc = b[66 + ib];
    float db[2] = {iq2_db(d, sc & 0xfu, slow), iq2_db(d, sc >> 4, slow)};
    for (int l = 0; l < 4; l++) {
      unsigned v = sq_load_u16(b + 2 + 2 * (4 * ib + l));
      iq2_eight(y + 4 * (32 * ib + 8 * l), sq_iq2xs_grid[v & 511u], db[l / 2],
                iq_ksigns(v >> 9), slow);
    }
  }
}

SQ_AI void dq_iq2_s(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b);
  sq_cb qs = b + 2, signs = b + 34, qh = b + 66, scales = b + 74;
  for (int ib = 0; ib < 8; ib++) {
    float db[2] = {iq2_db(d, scales[ib] & 0xfu, slow),
                   iq2_db(d, (unsigned)scales[ib] >> 4, slow)};
    for (int l = 0; l < 4; l++) {
      unsigned g = qs[4 * ib + l] | (((unsigned)qh[ib] << (8 - 2 * l)) & 0x300u);
      iq2_eight(y + 4 * (32 * ib + 8 * l), sq_iq2s_grid[g], db[l / 2],
                signs[4 * ib + l], slow);
    }
  }
}

/* Eight weights of iq1_s's grid entry g: dl * (value + delta). */
SQ_AI void iq1_eight(sq_b y, const int8_t *g, float dl, float delta, int slow) {
  for (int j = 0; j < 8; j++) iq_put(y, j, iq_mul(dl, (float)g[j] + delta, slow));
}

SQ_AI void dq_iq1_s(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b);
  for (int ib = 0; ib < 8; ib++) {
    unsigned qh = sq_load_u16(b + 34 + 2 * ib);
    float dl = iq_mul(d, (float)(2 * ((qh >> 12) & 7u) + 1), slow);
    float delta = qh & 0x8000u ? -0.125f : 0.125f;
    for (int l = 0; l < 4; l++) {
      unsigned g = b[2 + 4 * ib + l] | (((qh >> (3 * l)) & 7u) << 8);
      iq1_eight(y + 4 * (32 * ib + 8 * l), sq_iq1s_grid[g], dl, delta, slow);
    }
  }
}

SQ_AI void dq_iq1_m(sq_cb b, sq_b y, int slow) {
  float d = sq_f16_to_f32_scalar(sq_iq1_m_d_bits(b));
  sq_cb qs = b, qh = b + 32;
  for (int ib = 0; ib < 8; ib++) {
    unsigned sc = sq_load_u16(b + 48 + 2 * (ib / 2));
    unsigned sh = 6u * (unsigned)(ib % 2);
    float dl1 = iq_mul(d, (float)(2 * ((sc >> sh) & 7u) + 1), slow);
    float dl2 = iq_mul(d, (float)(2 * ((sc >> (sh + 3)) & 7u) + 1), slow);
    unsigned h0 = qh[2 * ib], h1 = qh[2 * ib + 1];
    unsigned idx[4] = {qs[4 * ib] | ((h0 << 8) & 0x700u),
                       qs[4 * ib + 1] | ((h0 << 4) & 0x700u),
                       qs[4 * ib + 2] | ((h1 << 8) & 0x700u),
                       qs[4 * ib + 3] | ((h1 << 4) & 0x700u)};
    float delta[4] = {h0 & 0x08u ? -0.125f : 0.125f, h0 & 0x80u ? -0.125f : 0.125f,
                      h1 & 0x08u ? -0.125f : 0.125f, h1 & 0x80u ? -0.125f : 0.125f};
    for (int l = 0; l < 4; l++)
      iq1_eight(y + 4 * (32 * ib + 8 * l), sq_iq1s_grid[idx[l]], l < 2 ? dl1 : dl2,
                delta[l], slow);
  }
}

SQ_DQ_ROW(iq2_xxs, 256, 66, sq_ggml_half_finite(b))
SQ_DQ_ROW(iq2_xs, 256, 74, sq_ggml_half_finite(b))
SQ_DQ_ROW(iq2_s, 256, 82, sq_ggml_half_finite(b))
SQ_DQ_ROW(iq1_s, 256, 50, sq_ggml_half_finite(b))
SQ_DQ_ROW(iq1_m, 256, 56, sq_iq1_m_d_finite(b))
