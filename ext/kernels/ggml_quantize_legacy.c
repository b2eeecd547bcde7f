/*
** ggml_quantize_legacy.c: the scalar quantizers of ggml's 32-weight block
** formats q4_0, q4_1, q5_0, q5_1 and q8_0 (docs/NUMERICS.md#ggml).
**
** The bytes must equal what ggml writes on x86-64, on every host.  Without
** importance weights that is ggml's quantize_row_<type>_ref; with them it is
** ggml's weighted search (quantize_<type> with an imatrix), except for q8_0,
** which ggml always quantizes with its reference code.  Hence:
**   - float operations happen in ggml's order, one rounding each (the build
**     forbids contraction and excess precision);
**   - the scale is computed and used in float32 and only stored as fp16;
**   - every float -> integer conversion ggml writes as a C cast is done as
**     x86-64's truncating conversion (sq_ggml_trunc_i32): ggml's casts can be
**     out of range (x * id with id = inf when the scale is subnormal), where C
**     is undefined and other CPUs would saturate instead;
**   - ggml's 8-bit casts keep the low byte of that 32-bit result, and its
**     clamps compare signed bytes, so the same is done here;
**   - ggml finds a block's extremes with one running comparison; here they
**     are reduced in independent lanes (the chain was the slow part) and
**     ggml's choice among equal candidates (the first one, which decides
**     the sign of a zero or of a tied magnitude) is restored exactly;
**   - the weighted searches are ggml_search.c's, taken from a K-quant
**     search table (ggml_kquants.h) so that the x86 paths run 8 or 16
**     blocks side by side with the same results; a NaN scale they return
**     is stored as x86's NaN (see searched_scale_fp16).
**
** Block layouts (ggml-common.h), fp16 fields little-endian:
**   q4_0: d, qs[16]             q4_1: d, m, qs[16]
**   q5_0: d, qh[4], qs[16]      q5_1: d, m, qh[4], qs[16]
**   q8_0: d, qs[32] (int8)
** Code j of a block goes to the low nibble of qs[j], code j + 16 to its high
** nibble; for q5 bit 4 of code j is bit j of qh read as a little-endian
** uint32.
*/
#include <math.h>
#include "kernels/ggml_blocks.h"
#include "kernels/ggml_internal.h"
#include "kernels/ggml_kquants.h"

#define QK 32 /* weights per block in every format of this file */

/* Native copy of the 32 little-endian floats of one block. */
static void load_block(const unsigned char *src, float *dst) {
  for (int j = 0; j < QK; j++) dst[j] = sq_load_f32(src + 4 * j);
}

/* The low byte of x86-64's truncating conversion (INT32_MIN out of range or
** for NaN): ggml's (uint8_t)f and, read as signed, its (int8_t)f. */
static inline uint8_t trunc_u8(float f) {
  return (uint8_t)((uint32_t)sq_ggml_trunc_i32(f) & 0xffu);
}

/* ggml's MIN(hi, (int8_t)f) stored into a uint8_t, from the byte b: the clamp
** compares signed bytes, so bytes 0x80..0xff (negative) pass unchanged.
** The quantizers convert all 32 codes first and clamp them in a second pass:
** on bytes the compiler's vector code is several times shorter. */
static inline uint8_t clamp_s8(uint8_t b, uint8_t hi) {
  return (b > hi && b < 0x80u) ? hi : b;
}

/* C's roundf (half away from zero) followed by x86-64's truncating
** conversion, without calling libm (ggml calls roundf per weight).  Below
** 2^23 the fraction f - trunc(f) is exact, so comparing it with 1/2 is
** exact; from 2^23 on (and for inf, NaN) f is already integral or out of
** range, and the conversion alone gives x86's answer. */
static inline int32_t round_away_i32(float f) {
  if (!(fabsf(f) < 8388608.0f)) return sq_ggml_trunc_i32(f);
  int32_t t = (int32_t)f;
  float frac = f - (float)t;
  return t + (frac >= 0.5f) - (frac <= -0.5f);
}

#define LANES 8 /* independent accumulators: the reductions below are chains */

/* Largest magnitude of a block (ggml's running amax, as a value). */
SQ_AI float block_absmax(const float *xb) {
  float acc[LANES];
  for (int k = 0; k < LANES; k++) acc[k] = fabsf(xb[k]);
  for (int j = LANES; j < QK; j += LANES)
    for (int k = 0; k < LANES; k++) {
      float a = fabsf(xb[j + k]);
      acc[k] = acc[k] > a ? acc[k] : a;
    }
  float amax = 0.0f;
  for (int k = 0; k < LANES; k++) amax = amax > acc[k] ? amax : acc[k];
  return amax;
}

/* ggml's q4_0/q5_0 loop keeps the first element of largest magnitude, with
** its sign (and +0 for an all-zero block).  Equal magnitudes are +amax or
** -amax, so it is enough to know which of the two comes first. */
SQ_AI float signed_absmax(const float *xb) {
  float amax = block_absmax(xb);
  int first_pos = QK, first_neg = QK;
  for (int j = 0; j < QK; j++) {
    int p = xb[j] == amax ? j : QK, q = xb[j] == -amax ? j : QK;
    first_pos = p < first_pos ? p : first_pos;
    first_neg = q < first_neg ? q : first_neg;
  }
  return first_neg < first_pos ? -amax : amax;
}

/* ggml's running min and max, each the first element reaching the extreme.
** Equal values have equal bits except for zeros, so only a zero extreme
** needs to be looked up by position. */
static float first_equal(const float *xb, float v) {
  int j = 0;
  while (j < QK - 1 && xb[j] != v) j++; /* v is one of the block's values */
  return xb[j];
}

SQ_AI void block_min_max(const float *xb, float *mn, float *mx) {
  float lo[LANES], hi[LANES];
  for (int k = 0; k < LANES; k++) lo[k] = hi[k] = xb[k];
  for (int j = LANES; j < QK; j += LANES)
    for (int k = 0; k < LANES; k++) {
      float v = xb[j + k];
      lo[k] = v < lo[k] ? v : lo[k];
      hi[k] = v > hi[k] ? v : hi[k];
    }
  float l = lo[0], h = hi[0];
  for (int k = 1; k < LANES; k++) {
    l = lo[k] < l ? lo[k] : l;
    h = hi[k] > h ? hi[k] : h;
  }
  *mn = l == 0.0f ? first_equal(xb, l) : l;
  *mx = h == 0.0f ? first_equal(xb, h) : h;
}

/* 4-bit codes into 16 bytes, as ggml's q4 packers write them:
** code[j] | code[j + 16] << 4, the low code unmasked (codes are 0..15, but
** this keeps ggml's bytes whatever they are). */
SQ_AI void pack_q4(const uint8_t *code, unsigned char *qs) {
  for (int j = 0; j < QK / 2; j++)
    qs[j] = (unsigned char)((code[j] | (code[j + QK / 2] << 4)) & 0xffu);
}

/* 5-bit codes: the low nibbles of code j and j + 16 into qs[j], bit 4 of
** code j into bit j of the little-endian 32-bit plane qh. */
SQ_AI void pack_q5(const uint8_t *code, unsigned char *qh, unsigned char *qs) {
  uint32_t plane = 0;
  for (int j = 0; j < QK; j++) plane |= (uint32_t)((code[j] >> 4) & 1u) << j;
  sq_store_u32(qh, plane);
  for (int j = 0; j < QK / 2; j++)
    qs[j] = (unsigned char)((code[j] & 0x0fu) | ((code[j + QK / 2] & 0x0fu) << 4));
}

/* ---- reference quantizers (no importance) --------------------------------- */

/* Symmetric formats: d = (signed extreme) / -(2^(bits-1)), so the extreme
** maps to code 0 and the codes are trunc(x * (1/d) + offset + 0.5) clamped
** to 2^bits - 1.  An all-zero block gives d = -0.0 and id = 0: every code is
** the offset, and the stored scale is the fp16 -0.0 (0x8000). */
static void ref_block_q4_0(const float *xb, unsigned char *out) {
  float d = signed_absmax(xb) / -8.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  uint8_t code[QK];
  for (int j = 0; j < QK; j++) code[j] = trunc_u8(xb[j] * id + 8.5f);
  for (int j = 0; j < QK; j++) code[j] = clamp_s8(code[j], 15);
  sq_store_u16(out, sq_ggml_fp16(d));
  pack_q4(code, out + SQ_Q4_0_QS);
}

static void ref_block_q5_0(const float *xb, unsigned char *out) {
  float d = signed_absmax(xb) / -16.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  uint8_t code[QK];
  for (int j = 0; j < QK; j++) code[j] = trunc_u8(xb[j] * id + 16.5f);
  for (int j = 0; j < QK; j++) code[j] = clamp_s8(code[j], 31);
  sq_store_u16(out, sq_ggml_fp16(d));
  pack_q5(code, out + SQ_Q5_0_QH, out + SQ_Q5_0_QS);
}

/* Asymmetric formats: d = (max - min) / (2^bits - 1), codes trunc((x - min)
** * (1/d) + 0.5); q4_1 clamps to 15 as a signed byte, q5_1 does not clamp at
** all (its codes cannot exceed 31).  When 1/d is inf (a tiny subnormal d) or
** x - min overflows, the products are inf or NaN and the conversion's
** INT32_MIN makes the byte 0. */
static void ref_block_q4_1(const float *xb, unsigned char *out) {
  float mn, mx;
  block_min_max(xb, &mn, &mx);
  float d = (mx - mn) / 15.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  uint8_t code[QK];
  for (int j = 0; j < QK; j++) code[j] = trunc_u8((xb[j] - mn) * id + 0.5f);
  for (int j = 0; j < QK; j++) code[j] = clamp_s8(code[j], 15);
  sq_store_u16(out, sq_ggml_fp16(d));
  sq_store_u16(out + SQ_Q4_1_M, sq_ggml_fp16(mn));
  pack_q4(code, out + SQ_Q4_1_QS);
}

static void ref_block_q5_1(const float *xb, unsigned char *out) {
  float mn, mx;
  block_min_max(xb, &mn, &mx);
  float d = (mx - mn) / 31.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  uint8_t code[QK];
  for (int j = 0; j < QK; j++) code[j] = trunc_u8((xb[j] - mn) * id + 0.5f);
  sq_store_u16(out, sq_ggml_fp16(d));
  sq_store_u16(out + SQ_Q5_1_M, sq_ggml_fp16(mn));
  pack_q5(code, out + SQ_Q5_1_QH, out + SQ_Q5_1_QS);
}

/* q8_0: d = absmax / 127, codes roundf(x / d) as int8 bytes. */
static void ref_block_q8_0(const float *xb, unsigned char *out) {
  float d = block_absmax(xb) / 127.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  sq_store_u16(out, sq_ggml_fp16(d));
  for (int j = 0; j < QK; j++)
    out[SQ_Q8_0_QS + j] = (unsigned char)((uint32_t)round_away_i32(xb[j] * id) & 0xffu);
}

typedef void (*ref_block_fn)(const float *xb, unsigned char *out);

static void quantize_ref(const void *x, size_t n, void *blocks,
                         sq_ggml_type t, ref_block_fn block) {
  const unsigned char *src = x;
  unsigned char *dst = blocks;
  size_t bytes = sq_ggml_formats[t].bytes;
  float xb[QK];
  for (size_t ib = 0; ib < n / QK; ib++) {
    load_block(src + 4 * QK * ib, xb);
    block(xb, dst + bytes * ib);
  }
}

/* ---- weighted quantizers (importance) -------------------------------------- */

/* ggml's weighted legacy quantizers search each block for the scale (and
** min) of least weighted squared error, weighting x[j] by
** importance[j] * sqrt(sigma2 + x[j]^2), where sigma2 is the mean square of
** the whole row: summed in float from the first weight to the last, then
** divided by the row length converted to float. */
static float row_sigma2(const unsigned char *x, size_t n) {
  float sum = 0.0f;
  for (size_t j = 0; j < n; j++) {
    float v = sq_load_f32(x + 4 * j);
    sum += v * v;
  }
  return sum / (float)n;
}

/* Blocks searched per call of the table: two AVX-512 batches of 16 lanes. */
#define BATCH 32

/* The stored scale and codes of block j of a batch from the search's
** results: q4_0/q5_0 store the scale as searched (a NaN as x86's NaN), q4_1
** and q5_1 also the min, m = -(the search's negated min). */
static void pack_weighted(sq_ggml_type t, float d, float neg_min,
                          const uint8_t *code, unsigned char *out) {
  switch (t) {
    case SQ_GGML_Q4_0:
      sq_store_u16(out, sq_ggml_fp16_searched(d));
      pack_q4(code, out + SQ_Q4_0_QS);
      break;
    case SQ_GGML_Q5_0:
      sq_store_u16(out, sq_ggml_fp16_searched(d));
      pack_q5(code, out + SQ_Q5_0_QH, out + SQ_Q5_0_QS);
      break;
    case SQ_GGML_Q4_1:
      sq_store_u16(out, sq_ggml_fp16(d));
      sq_store_u16(out + SQ_Q4_1_M, sq_ggml_fp16(-neg_min));
      pack_q4(code, out + SQ_Q4_1_QS);
      break;
    default: /* SQ_GGML_Q5_1 */
      sq_store_u16(out, sq_ggml_fp16(d));
      sq_store_u16(out + SQ_Q5_1_M, sq_ggml_fp16(-neg_min));
      pack_q5(code, out + SQ_Q5_1_QH, out + SQ_Q5_1_QS);
      break;
  }
}

/* The searches, on blocks one after another (the table runs them side by
** side on the vector paths; each block's result is the scalar search's):
**   q4_0, q5_0: symmetric levels 0 .. 2*nmax - 1 from make_qx_quants (the
**     least-squares fit, rmse_type 1, with the weights above);
**   q4_1, q5_1: affine levels 0 .. nmax from make_qkx3_quants with ggml's
**     search grid (rmin -0.9, rdelta 0.05, 36 steps, no MAD).  Their scale
**     and min are never NaN: a candidate replaces the starting fit only
**     when its error compares smaller, which a NaN error never does.
** A vector table takes whole groups of 8 blocks, so a batch with fewer is
** padded with copies of its last block, whose results are not written. */
static void weigh_scalar(const unsigned char *x, const unsigned char *imp,
                         float sigma2, size_t count, float *xb, float *w) {
  for (size_t j = 0; j < count; j++) {
    xb[j] = sq_load_f32(x + 4 * j);
    w[j] = sq_load_f32(imp + 4 * j);
    w[j] = w[j] * sqrtf(sigma2 + xb[j] * xb[j]);
  }
}

void sq_ggml_legacy_weighted_row(sq_ggml_type t, const sq_kq_search *s,
                                 sq_legacy_weigh_fn weigh, const void *x,
                                 size_t n, const void *importance,
                                 void *blocks) {
  static const sq_kq_affine q4_1 = {QK, 15, -0.9f, 0.05f, 36, 0, 1};
  static const sq_kq_affine q5_1 = {QK, 31, -0.9f, 0.05f, 36, 0, 1};
  const int symmetric = t == SQ_GGML_Q4_0 || t == SQ_GGML_Q5_0;
  const int nmax = t == SQ_GGML_Q4_0 ? 8 : 16;
  const unsigned char *src = x, *imp = importance;
  unsigned char *dst = blocks;
  size_t bytes = sq_ggml_formats[t].bytes, nb = n / QK;
  float sigma2 = row_sigma2(src, n);
  float xb[BATCH * QK], w[BATCH * QK], d[BATCH], neg_min[BATCH];
  uint8_t code[BATCH * QK];
  for (size_t b = 0; b < nb; b += BATCH) {
    int m = nb - b < BATCH ? (int)(nb - b) : BATCH;
    int padded = (m + 7) / 8 * 8;
    (weigh ? weigh : weigh_scalar)(src + 4 * QK * b, imp + 4 * QK * b, sigma2,
                                   (size_t)m * QK, xb, w);
    for (int j = m * QK; j < padded * QK; j++) {
      xb[j] = xb[j - QK];
      w[j] = w[j - QK];
    }
    if (symmetric)
      s->symmetric(padded, QK, nmax, xb, w, d, (int8_t *)code);
    else
      s->affine(t == SQ_GGML_Q4_1 ? &q4_1 : &q5_1, padded, xb, w, d, neg_min,
                code);
    for (int j = 0; j < m; j++)
      pack_weighted(t, d[j], symmetric ? 0.0f : neg_min[j], code + QK * j,
                    dst + bytes * (b + (size_t)j));
  }
}

/* ---- entry points ----------------------------------------------------------- */

void sq_ggml_quantize_q4_0(const void *x, size_t n, const void *importance,
                           void *blocks) {
  if (importance)
    sq_ggml_legacy_weighted_row(SQ_GGML_Q4_0, &sq_kq_search_scalar, NULL, x, n,
                                importance, blocks);
  else
    quantize_ref(x, n, blocks, SQ_GGML_Q4_0, ref_block_q4_0);
}

void sq_ggml_quantize_q4_1(const void *x, size_t n, const void *importance,
                           void *blocks) {
  if (importance)
    sq_ggml_legacy_weighted_row(SQ_GGML_Q4_1, &sq_kq_search_scalar, NULL, x, n,
                                importance, blocks);
  else
    quantize_ref(x, n, blocks, SQ_GGML_Q4_1, ref_block_q4_1);
}

void sq_ggml_quantize_q5_0(const void *x, size_t n, const void *importance,
                           void *blocks) {
  if (importance)
    sq_ggml_legacy_weighted_row(SQ_GGML_Q5_0, &sq_kq_search_scalar, NULL, x, n,
                                importance, blocks);
  else
    quantize_ref(x, n, blocks, SQ_GGML_Q5_0, ref_block_q5_0);
}

void sq_ggml_quantize_q5_1(const void *x, size_t n, const void *importance,
                           void *blocks) {
  if (importance)
    sq_ggml_legacy_weighted_row(SQ_GGML_Q5_1, &sq_kq_search_scalar, NULL, x, n,
                                importance, blocks);
  else
    quantize_ref(x, n, blocks, SQ_GGML_Q5_1, ref_block_q5_1);
}

/* ggml ignores the importance weights for q8_0 (quantize_q8_0 calls the
** reference quantizer), so the bytes are the reference's either way. */
void sq_ggml_quantize_q8_0(const void *x, size_t n, const void *importance,
                           void *blocks) {
  (void)importance;
  quantize_ref(x, n, blocks, SQ_GGML_Q8_0, ref_block_q8_0);
}

/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef LANES
#undef BATCH
