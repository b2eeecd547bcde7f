/*
** ggml_dequantize.c: the scalar reference of ggml's dequantize_row_<type>
** for the ten block formats (docs/NUMERICS.md#ggml).  The vector paths
** (ggml_x86_avx2.c, ggml_x86_avx512.c, ggml_arm_neon.c) must write exactly
** these bytes.
**
** Each weight is computed with ggml's operations in ggml's order, each
** rounded to float32 (no FMA: -ffp-contract=off):
**   q4_0, q5_0, q8_0   (float)q * d                  q = code - 8, - 16, int8
**   q4_1, q5_1         (float)q * d + m
**   q2_K               (d * sc) * (float)q - (dmin * mn)      sc, mn 4-bit
**   q3_K               (d * (float)sc) * (float)q   sc 6-bit - 32, q -4..3
**   q4_K, q5_K         (d * sc) * (float)q - (dmin * mn)      sc, mn 6-bit
**   q6_K               (d * (float)sc) * (float)q   sc int8, q -32..31
** The int-to-float conversions are exact; d, m and dmin are the blocks' fp16
** fields widened exactly.  Field offsets and the unpacking of packed scales
** are in ggml_blocks.h, shared with the vector paths.
**
** A block whose fp16 fields are all finite produces no NaN, infinity or
** subnormal at any step (every magnitude is 0 or between 2^-24 and 2^28),
** so IEEE arithmetic fixes every bit, whatever flush-to-zero mode is set.  A field that is infinite or
** NaN (random bytes give one often) makes NaNs whose bits depend on the CPU:
** x86 propagates the first NaN operand and makes 0xffc00000 for inf * 0,
** ARM and s390x make 0x7fc00000.  Such blocks are computed with x86-64's
** rules spelled out (sq_x86_nan, ggml_internal.h), the bits ggml gives on
** x86-64, so every host and every path agrees (the vector paths hand such
** blocks to these functions).  The row loop (SQ_DQ_ROW) is ggml_internal.h's
** too, shared with the lattice types' ggml_iq_dequantize.c.
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_blocks.h"
#include "kernels/ggml_lowbit.h"

/* Arithmetic of one block: plain when its fields are finite (slow == 0),
** with x86's NaN rules otherwise.  Always inlined with a constant `slow`, so
** each block routine is compiled once for each case. */
SQ_AI float mul(float a, float b, int slow) {
  float r = a * b;
  return slow ? sq_x86_nan(a, b, r) : r;
}
SQ_AI float add(float a, float b, int slow) {
  float r = a + b;
  return slow ? sq_x86_nan(a, b, r) : r;
}
SQ_AI float sub(float a, float b, int slow) {
  float r = a - b;
  return slow ? sq_x86_nan(a, b, r) : r;
}

static inline void put(sq_b y, size_t i, float v) { sq_store_f32(y + 4 * i, v); }

/* ---- legacy blocks of 32 -------------------------------------------------- */

/* Code j (0..31) of a nibble block: byte j's low nibble for the first half,
** byte j - 16's high nibble for the second. */
static inline unsigned nib(sq_cb qs, int j) {
  return j < 16 ? (qs[j] & 0xfu) : (unsigned)(qs[j - 16] >> 4);
}

SQ_AI void dq_q4_0(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b);
  for (int j = 0; j < 32; j++)
    put(y, j, mul((float)((int)nib(b + SQ_Q4_0_QS, j) - 8), d, slow));
}

SQ_AI void dq_q4_1(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b), m = sq_ggml_half(b + SQ_Q4_1_M);
  for (int j = 0; j < 32; j++)
    put(y, j, add(mul((float)nib(b + SQ_Q4_1_QS, j), d, slow), m, slow));
}

SQ_AI void dq_q5_0(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b);
  uint32_t qh = sq_load_u32(b + SQ_Q5_0_QH);
  for (int j = 0; j < 32; j++) {
    int q = (int)(nib(b + SQ_Q5_0_QS, j) | (((qh >> j) & 1u) << 4)) - 16;
    put(y, j, mul((float)q, d, slow));
  }
}

SQ_AI void dq_q5_1(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b), m = sq_ggml_half(b + SQ_Q5_1_M);
  uint32_t qh = sq_load_u32(b + SQ_Q5_1_QH);
  for (int j = 0; j < 32; j++) {
    unsigned q = nib(b + SQ_Q5_1_QS, j) | (((qh >> j) & 1u) << 4);
    put(y, j, add(mul((float)q, d, slow), m, slow));
  }
}

SQ_AI void dq_q8_0(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b);
  for (int j = 0; j < 32; j++)
    put(y, j, mul((float)(int8_t)b[SQ_Q8_0_QS + j], d, slow));
}

SQ_DQ_ROW(q4_0, 32, 18, sq_ggml_half_finite(b))
SQ_DQ_ROW(q4_1, 32, 20, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + 2))
SQ_DQ_ROW(q5_0, 32, 22, sq_ggml_half_finite(b))
SQ_DQ_ROW(q5_1, 32, 24, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + 2))
SQ_DQ_ROW(q8_0, 32, 34, sq_ggml_half_finite(b))

/* ---- K-quants: super-blocks of 256 ------------------------------------------
** q2_K, q3_K and q6_K run over two halves of 128 weights; in each half, the
** 2-bit fields of one 32-byte run of codes give four groups of 32 weights
** (bits 0-1, 2-3, 4-5, 6-7), each group two sub-blocks of 16 with their own
** scale.  q4_K and q5_K run over four groups of 64 weights: the low
** nibbles of 32 bytes, then their high nibbles, each with a scale and a
** min. */

SQ_AI void dq_q2_K(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b + SQ_Q2_K_D), dmin = sq_ggml_half(b + SQ_Q2_K_DMIN);
  for (int h = 0; h < 2; h++)
    for (int g = 0; g < 4; g++)
      for (int s = 0; s < 2; s++) {
        unsigned sc = b[SQ_Q2_K_SC + 8 * h + 2 * g + s];
        float dl = mul(d, (float)(sc & 0xfu), slow);
        float ml = mul(dmin, (float)(sc >> 4), slow);
        sq_cb q = b + SQ_Q2_K_QS + 32 * h + 16 * s;
        for (int l = 0; l < 16; l++) {
          float v = (float)((q[l] >> (2 * g)) & 3u);
          put(y, 128 * h + 32 * g + 16 * s + l, sub(mul(dl, v, slow), ml, slow));
        }
      }
}

SQ_AI void dq_q3_K(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b + SQ_Q3_K_D);
  for (int h = 0; h < 2; h++)
    for (int g = 0; g < 4; g++)
      for (int s = 0; s < 2; s++) {
        int sc = sq_ggml_q3k_scale(8 * h + 2 * g + s, b + SQ_Q3_K_SC);
        float dl = mul(d, (float)sc, slow);
        sq_cb q = b + SQ_Q3_K_QS + 32 * h + 16 * s;
        sq_cb hm = b + SQ_Q3_K_HM + 16 * s;
        unsigned bit = 1u << (4 * h + g);
        for (int l = 0; l < 16; l++) {
          /* The high bit set means the code stands as is; clear, minus 4. */
          int v = (int)((q[l] >> (2 * g)) & 3u) - ((hm[l] & bit) ? 0 : 4);
          put(y, 128 * h + 32 * g + 16 * s + l, mul(dl, (float)v, slow));
        }
      }
}

/* q4_K and q5_K: the fifth bit plane is NULL for q4_K. */
SQ_AI void dq_k4(sq_cb b, sq_cb qs, sq_cb qh, sq_b y, int slow) {
  float d = sq_ggml_half(b), dmin = sq_ggml_half(b + 2);
  for (int g = 0; g < 4; g++)
    for (int hi = 0; hi < 2; hi++) {
      unsigned sc, mn;
      sq_ggml_k4_scale_min(2 * g + hi, b + SQ_Q4_K_SC, &sc, &mn);
      float dl = mul(d, (float)sc, slow), ml = mul(dmin, (float)mn, slow);
      unsigned bit = 1u << (2 * g + hi);
      for (int l = 0; l < 32; l++) {
        unsigned q = hi ? (unsigned)(qs[32 * g + l] >> 4) : (qs[32 * g + l] & 0xfu);
        if (qh && (qh[l] & bit)) q += 16;
        put(y, 64 * g + 32 * hi + l, sub(mul(dl, (float)q, slow), ml, slow));
      }
    }
}
SQ_AI void dq_q4_K(sq_cb b, sq_b y, int slow) {
  dq_k4(b, b + SQ_Q4_K_QS, NULL, y, slow);
}
SQ_AI void dq_q5_K(sq_cb b, sq_b y, int slow) {
  dq_k4(b, b + SQ_Q5_K_QS, b + SQ_Q5_K_QH, y, slow);
}

/* q6_K: in half h, weight 32g + l (groups g = 0..3, l = 0..31) takes its
** low four bits from ql byte l + 32 * (g & 1) (low nibble for g < 2, high
** for g >= 2), its top two bits from field g of qh byte l, and scale
** l / 16 + 2g of the half's eight signed scales. */
SQ_AI void dq_q6_K(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b + SQ_Q6_K_D);
  for (int h = 0; h < 2; h++) {
    sq_cb ql = b + SQ_Q6_K_QL + 64 * h, qh = b + SQ_Q6_K_QH + 32 * h;
    const unsigned char *sc = b + SQ_Q6_K_SC + 8 * h;
    for (int g = 0; g < 4; g++)
      for (int l = 0; l < 32; l++) {
        unsigned lo = ql[l + 32 * (g & 1)];
        lo = g < 2 ? (lo & 0xfu) : (lo >> 4);
        int q = (int)(lo | (((qh[l] >> (2 * g)) & 3u) << 4)) - 32;
        float ds = mul(d, (float)(int8_t)sc[l / 16 + 2 * g], slow);
        put(y, 128 * h + 32 * g + l, mul(ds, (float)q, slow));
      }
  }
}

SQ_DQ_ROW(q2_K, 256, 84,
          sq_ggml_half_finite(b + SQ_Q2_K_D) && sq_ggml_half_finite(b + SQ_Q2_K_DMIN))
SQ_DQ_ROW(q3_K, 256, 110, sq_ggml_half_finite(b + SQ_Q3_K_D))
SQ_DQ_ROW(q4_K, 256, 144, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + 2))
SQ_DQ_ROW(q5_K, 256, 176, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + 2))
SQ_DQ_ROW(q6_K, 256, 210, sq_ggml_half_finite(b + SQ_Q6_K_D))

/* ---- sign, ternary and FP4 formats -------------------------------------------
**   q1_0          bit ? d : -d      (no arithmetic: d's bits, or its sign
**                                    flipped, NaN included)
**   q2_0, tq*_0   (float)(q - 1) * d                q the 2-bit code, trit
**   mxfp4         (float)v * 2^(e-128)              v the doubled E2M1 value
**   nvfp4         (float)v * ue4m3(d_s) / 2
** The FP4 scales are never infinite or NaN (E8M0 255 is 2^127 here, as ggml
** reads it), so those blocks have no slow path: a product may overflow to
** infinity, identically everywhere. */

SQ_AI void dq_q1_0(sq_cb b, sq_b y, int slow) {
  (void)slow;
  /* The bits of d or of -d (its sign flipped), selected as integers. */
  uint32_t pd = sq_f32_bits(sq_ggml_half(b)), nd = pd ^ 0x80000000u;
  uint32_t o[128];
  for (int i = 0; i < 16; i++)
    for (int k = 0; k < 8; k++) {
      uint32_t m = 0u - ((uint32_t)(b[SQ_Q1_0_QS + i] >> k) & 1u);
      o[8 * i + k] = (pd & m) | (nd & ~m);
    }
  for (int j = 0; j < 128; j++) sq_store_u32(y + 4 * j, o[j]);
}

SQ_AI void dq_q2_0(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b), o[64];
  for (int i = 0; i < 16; i++)
    for (int k = 0; k < 4; k++) {
      int q = (int)((b[SQ_Q2_0_QS + i] >> (2 * k)) & 3u) - 1;
      o[4 * i + k] = mul((float)q, d, slow);
    }
  for (int j = 0; j < 64; j++) put(y, j, o[j]);
}

/* Trit n (0 = the most significant) of a byte holding ceil(v * 256 / 243):
** the top of 3 * (byte * 3^n mod 256), as ggml reads it. */
static inline int trit(unsigned byte, unsigned pow3) {
  uint8_t q = (uint8_t)(byte * pow3);
  return (int)(((unsigned)q * 3u) >> 8) - 1;
}

/* tq1_0, tq2_0: each weight (float)(t - 1) * d computed in place, the
** innermost loop over 32 (or 16) neighbouring bytes so that the compiler
** vectorizes the plain case. */
SQ_AI void dq_tq1_0(sq_cb b, sq_b y, int slow) {
  static const unsigned pow3[5] = {1, 3, 9, 27, 81};
  float d = sq_ggml_half(b + SQ_TQ1_0_D), o[256];
  for (int n = 0; n < 5; n++)
    for (int m = 0; m < 32; m++)
      o[32 * n + m] = mul((float)trit(b[SQ_TQ1_0_QS + m], pow3[n]), d, slow);
  for (int n = 0; n < 5; n++)
    for (int m = 0; m < 16; m++)
      o[160 + 16 * n + m] = mul((float)trit(b[SQ_TQ1_0_QS + 32 + m], pow3[n]), d, slow);
  for (int n = 0; n < 4; n++)
    for (int j = 0; j < 4; j++)
      o[240 + 4 * n + j] = mul((float)trit(b[SQ_TQ1_0_QH + j], pow3[n]), d, slow);
  for (int j = 0; j < 256; j++) put(y, j, o[j]);
}

SQ_AI void dq_tq2_0(sq_cb b, sq_b y, int slow) {
  float d = sq_ggml_half(b + SQ_TQ2_0_D), o[256];
  for (int h = 0; h < 2; h++)
    for (int l = 0; l < 4; l++)
      for (int m = 0; m < 32; m++) {
        int q = (int)((b[SQ_TQ2_0_QS + 32 * h + m] >> (2 * l)) & 3u) - 1;
        o[128 * h + 32 * l + m] = mul((float)q, d, slow);
      }
  for (int j = 0; j < 256; j++) put(y, j, o[j]);
}

/* The 16 values v * d of a scale, each the one product ggml computes, so
** that a weight is a table lookup. */
SQ_AI void fp4_table(float d, float *t) {
  for (int c = 0; c < 16; c++) t[c] = sq_e2m1x2[c] * d;
}

SQ_AI void dq_mxfp4(sq_cb b, sq_b y, int slow) {
  (void)slow;
  float t[16], o[32];
  fp4_table(sq_e8m0_half(b[SQ_MXFP4_E]), t);
  for (int j = 0; j < 16; j++) {
    unsigned q = b[SQ_MXFP4_QS + j];
    o[j] = t[q & 15u];
    o[j + 16] = t[q >> 4];
  }
  for (int j = 0; j < 32; j++) put(y, j, o[j]);
}

SQ_AI void dq_nvfp4(sq_cb b, sq_b y, int slow) {
  (void)slow;
  float t[16], o[64];
  for (int s = 0; s < 4; s++) {
    fp4_table(sq_ue4m3_half(b[SQ_NVFP4_D + s]), t);
    for (int j = 0; j < 8; j++) {
      unsigned q = b[SQ_NVFP4_QS + 8 * s + j];
      o[16 * s + j] = t[q & 15u];
      o[16 * s + j + 8] = t[q >> 4];
    }
  }
  for (int j = 0; j < 64; j++) put(y, j, o[j]);
}

SQ_DQ_ROW(q1_0, 128, 18, 1)
SQ_DQ_ROW(q2_0, 64, 18, sq_ggml_half_finite(b))
SQ_DQ_ROW(tq1_0, 256, 54, sq_ggml_half_finite(b + SQ_TQ1_0_D))
SQ_DQ_ROW(tq2_0, 256, 66, sq_ggml_half_finite(b + SQ_TQ2_0_D))
SQ_DQ_ROW(mxfp4, 32, 17, 1)
SQ_DQ_ROW(nvfp4, 64, 36, 1)
