/*
** ggml_arm_neon.c: the aarch64 AdvSIMD path's ggml block-format kernels
** (sq_ggml_kernels_neon), little-endian only.
**
** Every function writes exactly the bytes the scalar kernels write
** (ggml_dequantize.c, ggml_quantize_legacy.c), for every input.  How:
**   dequantize: a block whose fp16 fields are not all finite goes to the
**     scalar routine (which writes x86-64's NaN bits on every host).  The
**     fp16 fields of the others are widened by the scalar conversion (exact,
**     whatever FPCR says).  Codes are assembled 16 at a time in byte lanes
**     (masks, shifts, TST for the high bits), widened to int32 (SXTL), then
**     converted exactly (SCVTF) and multiplied, added or subtracted lane for
**     lane in ggml's order with separate FMUL/FADD/FSUB (never FMLA).
**     Per-sub-block factors (d * sc, dmin * m) are computed once per block
**     with the same single rounding and duplicated.  No value is NaN,
**     infinite or subnormal on this path, so neither operand order nor
**     FPCR.FZ/DN can change a bit; the rounding mode applies as in scalar;
**   quantize, q4_0 q4_1 q5_0 q5_1 without importance and q8_0 with or
**     without it (ggml ignores q8_0's; the others' weighted searches, and
**     the K-quants, are scalar's): one block per step.  FMAXV/FMINV give the
**     block's max and min (of |x| for q8_0); ggml's first extreme follows
**     from them as on x86 (ggml_x86.h: the signed extreme of q4_0/q5_0
**     or the scalar routine on a +a/-a tie; a zero extreme of q4_1/q5_1
**     takes the sign of the block's first zero), and d, id and the fp16
**     fields are computed in scalar code with scalar's operations.  When |d|
**     is zero or normal every code is in range: FCVTZS truncates as scalar's
**     conversion does, FCVTAS rounds half away from zero (C's roundf, for
**     q8_0), XTN narrows and UMIN is ggml's clamp.  Blocks whose d is
**     subnormal or infinite go to the scalar routine (FCVTZS saturates where
**     x86, and so scalar, gives INT32_MIN).  Under FPCR.FZ/FIZ/AH FMAXV and
**     FMINV flush subnormal operands where scalar's compares keep their
**     bits, so those modes use scalar throughout.
*/
#include <math.h>
#include "kernels/ggml_internal.h"
#include "kernels/ggml_blocks.h"

#if defined(__aarch64__) && !defined(SQ_SCALAR_ONLY) && !SQ_BIG_ENDIAN

#include <arm_neon.h>

typedef float32x4_t vf;

/* Loops over registers and sub-blocks unroll, so that vectors stay in
** registers and shift counts and masks become constants. */
#define SQ_PRAGMA(x) _Pragma(#x)
#define SQ_UNROLL(n) SQ_PRAGMA(GCC unroll n)

SQ_AI void st(sq_b p, vf v) { vst1q_u8(p, vreinterpretq_u8_f32(v)); }
SQ_AI vf dup_neon(float f) { return vdupq_n_f32(f); }

/* The 16 signed codes q as four float vectors (exact). */
SQ_AI void widen(int8x16_t q, vf f[4]) {
  int16x8_t a = vmovl_s8(vget_low_s8(q)), b = vmovl_high_s8(q);
  f[0] = vcvtq_f32_s32(vmovl_s16(vget_low_s16(a)));
  f[1] = vcvtq_f32_s32(vmovl_high_s16(a));
  f[2] = vcvtq_f32_s32(vmovl_s16(vget_low_s16(b)));
  f[3] = vcvtq_f32_s32(vmovl_high_s16(b));
}
/* o[0..15] = q * d */
SQ_AI void put_qd(sq_b o, int8x16_t q, vf d) {
  vf f[4];
  widen(q, f);
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) st(o + 16 * k, vmulq_f32(f[k], d));
}
/* o[0..15] = q * d + m */
SQ_AI void put_qdm(sq_b o, int8x16_t q, vf d, vf m) {
  vf f[4];
  widen(q, f);
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) st(o + 16 * k, vaddq_f32(vmulq_f32(f[k], d), m));
}
/* o[0..15] = dl * q - ml */
SQ_AI void put_dqm(sq_b o, vf dl, int8x16_t q, vf ml) {
  vf f[4];
  widen(q, f);
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) st(o + 16 * k, vsubq_f32(vmulq_f32(dl, f[k]), ml));
}
/* o[0..15] = ds * q */
SQ_AI void put_dq(sq_b o, vf ds, int8x16_t q) {
  vf f[4];
  widen(q, f);
  SQ_UNROLL(4)
  for (int k = 0; k < 4; k++) st(o + 16 * k, vmulq_f32(ds, f[k]));
}
SQ_AI int8x16_t s8(uint8x16_t v) { return vreinterpretq_s8_u8(v); }

/* ---- legacy blocks of 32 -------------------------------------------------- */

/* The fifth bits of weights 16w..16w+15 as 16 (set) or 0 byte lanes. */
SQ_AI uint8x16_t fifth(uint32_t qh, int w) {
  static const uint8_t bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8x8_t two = vcreate_u8((uint64_t)((qh >> (16 * w)) & 0xffffu));
  /* byte j: qh byte 2w + j / 8 */
  uint8x16_t rep = vcombine_u8(vdup_lane_u8(two, 0), vdup_lane_u8(two, 1));
  return vandq_u8(vtstq_u8(rep, vld1q_u8(bit)), vdupq_n_u8(16));
}

static void dq_q8_0_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 34, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q8_0(b, 32, o);
      continue;
    }
    vf d = dup_neon(sq_ggml_half(b));
    put_qd(o, vld1q_s8((const int8_t *)(b + SQ_Q8_0_QS)), d);
    put_qd(o + 64, vld1q_s8((const int8_t *)(b + SQ_Q8_0_QS + 16)), d);
  }
}

static void dq_q4_0_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 18, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q4_0(b, 32, o);
      continue;
    }
    vf d = dup_neon(sq_ggml_half(b));
    uint8x16_t q = vld1q_u8(b + SQ_Q4_0_QS);
    int8x16_t e8 = vdupq_n_s8(8);
    put_qd(o, vsubq_s8(s8(vandq_u8(q, vdupq_n_u8(15))), e8), d);
    put_qd(o + 64, vsubq_s8(s8(vshrq_n_u8(q, 4)), e8), d);
  }
}

static void dq_q4_1_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 20, o += 128) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + SQ_Q4_1_M)) {
      sq_ggml_dequantize_q4_1(b, 32, o);
      continue;
    }
    vf d = dup_neon(sq_ggml_half(b)), m = dup_neon(sq_ggml_half(b + SQ_Q4_1_M));
    uint8x16_t q = vld1q_u8(b + SQ_Q4_1_QS);
    put_qdm(o, s8(vandq_u8(q, vdupq_n_u8(15))), d, m);
    put_qdm(o + 64, s8(vshrq_n_u8(q, 4)), d, m);
  }
}

static void dq_q5_0_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 22, o += 128) {
    if (!sq_ggml_half_finite(b)) {
      sq_ggml_dequantize_q5_0(b, 32, o);
      continue;
    }
    vf d = dup_neon(sq_ggml_half(b));
    uint32_t qh = sq_load_u32(b + SQ_Q5_0_QH);
    uint8x16_t q = vld1q_u8(b + SQ_Q5_0_QS);
    int8x16_t e16 = vdupq_n_s8(16);
    put_qd(o, vsubq_s8(s8(vorrq_u8(vandq_u8(q, vdupq_n_u8(15)), fifth(qh, 0))), e16), d);
    put_qd(o + 64, vsubq_s8(s8(vorrq_u8(vshrq_n_u8(q, 4), fifth(qh, 1))), e16), d);
  }
}

static void dq_q5_1_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 32; i++, b += 24, o += 128) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + SQ_Q5_1_M)) {
      sq_ggml_dequantize_q5_1(b, 32, o);
      continue;
    }
    vf d = dup_neon(sq_ggml_half(b)), m = dup_neon(sq_ggml_half(b + SQ_Q5_1_M));
    uint32_t qh = sq_load_u32(b + SQ_Q5_1_QH);
    uint8x16_t q = vld1q_u8(b + SQ_Q5_1_QS);
    put_qdm(o, s8(vorrq_u8(vandq_u8(q, vdupq_n_u8(15)), fifth(qh, 0))), d, m);
    put_qdm(o + 64, s8(vorrq_u8(vshrq_n_u8(q, 4), fifth(qh, 1))), d, m);
  }
}

/* ---- K-quants ------------------------------------------------------------- */

/* (v >> 2g) & 3 in every byte lane. */
SQ_AI uint8x16_t crumb(uint8x16_t v, int g) {
  uint8x16_t s;
  switch (g) {
    case 0: s = v; break;
    case 1: s = vshrq_n_u8(v, 2); break;
    case 2: s = vshrq_n_u8(v, 4); break;
    default: s = vshrq_n_u8(v, 6); break;
  }
  return vandq_u8(s, vdupq_n_u8(3));
}

static void dq_q2_K_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 84, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q2_K_D) || !sq_ggml_half_finite(b + SQ_Q2_K_DMIN)) {
      sq_ggml_dequantize_q2_K(b, 256, o);
      continue;
    }
    float d = sq_ggml_half(b + SQ_Q2_K_D), dmin = sq_ggml_half(b + SQ_Q2_K_DMIN);
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++)
      SQ_UNROLL(2)
      for (int s = 0; s < 2; s++) {
        uint8x16_t v = vld1q_u8(b + SQ_Q2_K_QS + 32 * h + 16 * s);
        SQ_UNROLL(4)
        for (int g = 0; g < 4; g++) {
          unsigned sc = b[SQ_Q2_K_SC + 8 * h + 2 * g + s];
          vf dl = dup_neon(d * (float)(sc & 15u)), ml = dup_neon(dmin * (float)(sc >> 4));
          put_dqm(o + 4 * (128 * h + 32 * g + 16 * s), dl, s8(crumb(v, g)), ml);
        }
      }
  }
}

static void dq_q3_K_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 110, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q3_K_D)) {
      sq_ggml_dequantize_q3_K(b, 256, o);
      continue;
    }
    float d = sq_ggml_half(b + SQ_Q3_K_D);
    SQ_UNROLL(2)
    for (int s = 0; s < 2; s++) {
      uint8x16_t hm = vld1q_u8(b + SQ_Q3_K_HM + 16 * s);
      SQ_UNROLL(2)
      for (int h = 0; h < 2; h++) {
        uint8x16_t v = vld1q_u8(b + SQ_Q3_K_QS + 32 * h + 16 * s);
        SQ_UNROLL(4)
        for (int g = 0; g < 4; g++) {
          /* code | 4 where the high bit is set, then - 4 */
          uint8x16_t hb = vandq_u8(vtstq_u8(hm, vdupq_n_u8((uint8_t)(1u << (4 * h + g)))), vdupq_n_u8(4));
          int8x16_t q = vsubq_s8(s8(vorrq_u8(crumb(v, g), hb)), vdupq_n_s8(4));
          int sc = sq_ggml_q3k_scale(8 * h + 2 * g + s, b + SQ_Q3_K_SC);
          put_dq(o + 4 * (128 * h + 32 * g + 16 * s), dup_neon(d * (float)sc), q);
        }
      }
    }
  }
}

/* q4_K and q5_K (qh NULL for q4_K). */
SQ_AI void dq_k4_block(sq_cb b, sq_cb qs, sq_cb qh, sq_b o) {
  float d = sq_ggml_half(b), dmin = sq_ggml_half(b + 2);
  uint8x16_t h0 = vdupq_n_u8(0), h1 = h0;
  if (qh) {
    h0 = vld1q_u8(qh);
    h1 = vld1q_u8(qh + 16);
  }
  SQ_UNROLL(4)
  for (int g = 0; g < 4; g++) {
    uint8x16_t v0 = vld1q_u8(qs + 32 * g), v1 = vld1q_u8(qs + 32 * g + 16);
    SQ_UNROLL(2)
    for (int hi = 0; hi < 2; hi++) {
      unsigned sc, mn;
      sq_ggml_k4_scale_min(2 * g + hi, b + SQ_Q4_K_SC, &sc, &mn);
      vf dl = dup_neon(d * (float)sc), ml = dup_neon(dmin * (float)mn);
      uint8x16_t w0 = hi ? vshrq_n_u8(v0, 4) : vandq_u8(v0, vdupq_n_u8(15));
      uint8x16_t w1 = hi ? vshrq_n_u8(v1, 4) : vandq_u8(v1, vdupq_n_u8(15));
      if (qh) {
        uint8x16_t bit = vdupq_n_u8((uint8_t)(1u << (2 * g + hi))), e16 = vdupq_n_u8(16);
        w0 = vorrq_u8(w0, vandq_u8(vtstq_u8(h0, bit), e16));
        w1 = vorrq_u8(w1, vandq_u8(vtstq_u8(h1, bit), e16));
      }
      put_dqm(o + 4 * (64 * g + 32 * hi), dl, s8(w0), ml);
      put_dqm(o + 4 * (64 * g + 32 * hi + 16), dl, s8(w1), ml);
    }
  }
}

static void dq_q4_K_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 144, o += 1024) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + 2)) {
      sq_ggml_dequantize_q4_K(b, 256, o);
      continue;
    }
    dq_k4_block(b, b + SQ_Q4_K_QS, NULL, o);
  }
}

static void dq_q5_K_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 176, o += 1024) {
    if (!sq_ggml_half_finite(b) || !sq_ggml_half_finite(b + 2)) {
      sq_ggml_dequantize_q5_K(b, 256, o);
      continue;
    }
    dq_k4_block(b, b + SQ_Q5_K_QS, b + SQ_Q5_K_QH, o);
  }
}

static void dq_q6_K_neon(const void *blocks, size_t n, void *y) {
  sq_cb b = blocks;
  sq_b o = y;
  for (size_t i = 0; i < n / 256; i++, b += 210, o += 1024) {
    if (!sq_ggml_half_finite(b + SQ_Q6_K_D)) {
      sq_ggml_dequantize_q6_K(b, 256, o);
      continue;
    }
    float d = sq_ggml_half(b + SQ_Q6_K_D);
    const int8_t *sc = (const int8_t *)(b + SQ_Q6_K_SC);
    SQ_UNROLL(2)
    for (int h = 0; h < 2; h++) {
      sq_cb ql = b + SQ_Q6_K_QL + 64 * h, qh = b + SQ_Q6_K_QH + 32 * h;
      SQ_UNROLL(2)
      for (int c = 0; c < 2; c++) {
        uint8x16_t la = vld1q_u8(ql + 16 * c), lb = vld1q_u8(ql + 32 + 16 * c);
        uint8x16_t hv = vld1q_u8(qh + 16 * c);
        uint8x16_t m15 = vdupq_n_u8(15), m48 = vdupq_n_u8(48);
        int8x16_t e32 = vdupq_n_s8(32);
        int8x16_t q1 = vsubq_s8(s8(vorrq_u8(vandq_u8(la, m15), vandq_u8(vshlq_n_u8(hv, 4), m48))), e32);
        int8x16_t q2 = vsubq_s8(s8(vorrq_u8(vandq_u8(lb, m15), vandq_u8(vshlq_n_u8(hv, 2), m48))), e32);
        int8x16_t q3 = vsubq_s8(s8(vorrq_u8(vshrq_n_u8(la, 4), vandq_u8(hv, m48))), e32);
        int8x16_t q4 = vsubq_s8(s8(vorrq_u8(vshrq_n_u8(lb, 4), vandq_u8(vshrq_n_u8(hv, 2), m48))), e32);
        /* ggml's d * sc[is], is = l / 16 = c, then * q */
        const int8_t *s = sc + 8 * h + c;
        sq_b out = o + 4 * (128 * h + 16 * c);
        put_dq(out, dup_neon(d * (float)s[0]), q1);
        put_dq(out + 128, dup_neon(d * (float)s[2]), q2);
        put_dq(out + 256, dup_neon(d * (float)s[4]), q3);
        put_dq(out + 384, dup_neon(d * (float)s[6]), q4);
      }
    }
  }
}

/* ---- quantize, legacy types without importance -----------------------------
** One block of 32 at a time: FMAXV/FMINV give the block's max and min (max
** |x| for q8_0); ggml's choice of extreme and the scale follow in scalar
** code with scalar's operations (see ggml_x86.h: q4_0/q5_0 take the
** max when it exceeds -min, the min when -min exceeds the max, +0 for an
** all-zero block, and send a tie between +a and -a to the scalar routine;
** q4_1/q5_1 give a zero extreme the sign of the block's first zero).  With
** |d| zero or normal every code is in range: FCVTZS (truncation) equals
** scalar's conversion, FCVTAS is roundf for q8_0, and XTN narrows; blocks
** whose d is subnormal or infinite go to the scalar routine.  FMAXV and
** FMINV flush subnormals under FPCR.FZ/FIZ/AH, where scalar's compares keep
** the operand's bits, so those modes use the scalar routines throughout. */

#define SQ_FPCR_FLUSH ((1u << 24) | (1u << 1) | 1u)

SQ_AI vf ldx(sq_cb p) { return vreinterpretq_f32_u8(vld1q_u8(p)); }

/* The sign bit of the first zero among the 32 floats at p (one exists). */
static uint32_t first_zero_sign(sq_cb p) {
  for (int j = 0; j < 32; j++) {
    uint32_t u = sq_load_u32(p + 4 * j);
    if ((u & 0x7fffffffu) == 0) return u & 0x80000000u;
  }
  return 0;
}

/* The 32 codes of c[0..7] as bytes (each is 0..255 or, for q8_0, -128..127). */
SQ_AI void narrow32(const int32x4_t c[8], uint8x16_t *lo, uint8x16_t *hi) {
  int16x8_t a = vcombine_s16(vmovn_s32(c[0]), vmovn_s32(c[1]));
  int16x8_t b = vcombine_s16(vmovn_s32(c[2]), vmovn_s32(c[3]));
  int16x8_t e = vcombine_s16(vmovn_s32(c[4]), vmovn_s32(c[5]));
  int16x8_t f = vcombine_s16(vmovn_s32(c[6]), vmovn_s32(c[7]));
  *lo = vreinterpretq_u8_s8(vcombine_s8(vmovn_s16(a), vmovn_s16(b)));
  *hi = vreinterpretq_u8_s8(vcombine_s8(vmovn_s16(e), vmovn_s16(f)));
}

/* Bit 4 of each of 16 bytes (codes below 32), as 16 bits in lane order. */
SQ_AI uint32_t fifth_bits(uint8x16_t q) {
  static const int8_t sh[16] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  uint8x16_t b = vshlq_u8(vshrq_n_u8(q, 4), vld1q_s8(sh));
  return (uint32_t)vaddv_u8(vget_low_u8(b)) | (uint32_t)vaddv_u8(vget_high_u8(b)) << 8;
}

typedef void (*sq_qfn)(const void *, size_t, const void *, void *);

/* One block; returns 0 when the scalar routine must write it. */
SQ_AI int q_block(sq_cb p, sq_b o, sq_ggml_type t) {
  const int sym = t == SQ_GGML_Q4_0 || t == SQ_GGML_Q5_0;
  const int asym = t == SQ_GGML_Q4_1 || t == SQ_GGML_Q5_1;
  vf v[8];
  SQ_UNROLL(8)
  for (int k = 0; k < 8; k++) v[k] = ldx(p + 16 * k);
  float d, id, m = 0.0f;
  if (t == SQ_GGML_Q8_0) {
    vf a = vmaxq_f32(vmaxq_f32(vmaxq_f32(vabsq_f32(v[0]), vabsq_f32(v[1])),
                               vmaxq_f32(vabsq_f32(v[2]), vabsq_f32(v[3]))),
                     vmaxq_f32(vmaxq_f32(vabsq_f32(v[4]), vabsq_f32(v[5])),
                               vmaxq_f32(vabsq_f32(v[6]), vabsq_f32(v[7]))));
    d = vmaxvq_f32(a) / 127.0f;
  } else {
    vf a = vmaxq_f32(vmaxq_f32(vmaxq_f32(v[0], v[1]), vmaxq_f32(v[2], v[3])),
                     vmaxq_f32(vmaxq_f32(v[4], v[5]), vmaxq_f32(v[6], v[7])));
    vf b = vminq_f32(vminq_f32(vminq_f32(v[0], v[1]), vminq_f32(v[2], v[3])),
                     vminq_f32(vminq_f32(v[4], v[5]), vminq_f32(v[6], v[7])));
    float hi = vmaxvq_f32(a), lo = vminvq_f32(b);
    if (sym) {
      float ext;
      if (hi > -lo) ext = hi;
      else if (-lo > hi) ext = lo;
      else if (hi == 0.0f) ext = 0.0f;        /* all zero: ggml keeps +0 */
      else return 0;                          /* +a and -a: scalar scans */
      d = ext / (t == SQ_GGML_Q4_0 ? -8.0f : -16.0f);
    } else {
      if (hi == 0.0f || lo == 0.0f) {
        float s = sq_bits_f32(first_zero_sign(p));
        if (hi == 0.0f) hi = s;
        if (lo == 0.0f) lo = s;
      }
      m = lo;
      d = (hi - lo) / (t == SQ_GGML_Q4_1 ? 15.0f : 31.0f);
    }
  }
  float ad = fabsf(d);
  if (!(d == 0.0f || (ad >= 1.17549435e-38f && ad <= 3.40282347e38f))) return 0;
  id = d != 0.0f ? 1.0f / d : 0.0f;
  vf vid = vdupq_n_f32(id), vm = vdupq_n_f32(m);
  int32x4_t c[8];
  SQ_UNROLL(8)
  for (int k = 0; k < 8; k++) {
    if (t == SQ_GGML_Q8_0)
      c[k] = vcvtaq_s32_f32(vmulq_f32(v[k], vid));
    else if (sym)
      c[k] = vcvtq_s32_f32(vaddq_f32(vmulq_f32(v[k], vid),
                                     vdupq_n_f32(t == SQ_GGML_Q4_0 ? 8.5f : 16.5f)));
    else
      c[k] = vcvtq_s32_f32(vaddq_f32(vmulq_f32(vsubq_f32(v[k], vm), vid), vdupq_n_f32(0.5f)));
  }
  uint8x16_t lo8, hi8;
  narrow32(c, &lo8, &hi8);
  sq_store_u16(o, sq_ggml_fp16(d));
  if (t == SQ_GGML_Q8_0) {
    vst1q_u8(o + SQ_Q8_0_QS, lo8);
    vst1q_u8(o + SQ_Q8_0_QS + 16, hi8);
    return 1;
  }
  if (asym) sq_store_u16(o + 2, sq_ggml_fp16(m));
  /* ggml's MIN(15 or 31, code) */
  if (t == SQ_GGML_Q4_0 || t == SQ_GGML_Q4_1) {
    lo8 = vminq_u8(lo8, vdupq_n_u8(15));
    hi8 = vminq_u8(hi8, vdupq_n_u8(15));
  }
  if (t == SQ_GGML_Q5_0) {
    lo8 = vminq_u8(lo8, vdupq_n_u8(31));
    hi8 = vminq_u8(hi8, vdupq_n_u8(31));
  }
  if (t == SQ_GGML_Q5_0 || t == SQ_GGML_Q5_1) {
    sq_store_u32(o + (t == SQ_GGML_Q5_0 ? SQ_Q5_0_QH : SQ_Q5_1_QH),
                 fifth_bits(lo8) | fifth_bits(hi8) << 16);
  }
  size_t qs = t == SQ_GGML_Q4_0 ? SQ_Q4_0_QS : t == SQ_GGML_Q4_1 ? SQ_Q4_1_QS
            : t == SQ_GGML_Q5_0 ? SQ_Q5_0_QS : SQ_Q5_1_QS;
  /* code j in the low nibble, code j + 16 in the high one */
  vst1q_u8(o + qs, vsliq_n_u8(vandq_u8(lo8, vdupq_n_u8(15)), hi8, 4));
  return 1;
}

SQ_AI void q_row(const void *x, size_t n, const void *importance, void *blocks,
                 sq_ggml_type t, size_t bytes, sq_qfn scalar) {
  /* ggml's quantize_q8_0 ignores the importance weights: q8_0 keeps this
  ** path with them (the other types' weighted searches are scalar's) */
  if (t == SQ_GGML_Q8_0) importance = NULL;
  if (importance || (sq_fpcr() & SQ_FPCR_FLUSH)) {
    scalar(x, n, importance, blocks);
    return;
  }
  sq_cb p = x;
  sq_b o = blocks;
  for (size_t i = 0; i < n / 32; i++, p += 128, o += bytes)
    if (!q_block(p, o, t)) scalar(p, 32, NULL, o);
}

static void q_q4_0_neon(const void *x, size_t n, const void *imp, void *blocks) {
  q_row(x, n, imp, blocks, SQ_GGML_Q4_0, 18, sq_ggml_quantize_q4_0);
}
static void q_q4_1_neon(const void *x, size_t n, const void *imp, void *blocks) {
  q_row(x, n, imp, blocks, SQ_GGML_Q4_1, 20, sq_ggml_quantize_q4_1);
}
static void q_q5_0_neon(const void *x, size_t n, const void *imp, void *blocks) {
  q_row(x, n, imp, blocks, SQ_GGML_Q5_0, 22, sq_ggml_quantize_q5_0);
}
static void q_q5_1_neon(const void *x, size_t n, const void *imp, void *blocks) {
  q_row(x, n, imp, blocks, SQ_GGML_Q5_1, 24, sq_ggml_quantize_q5_1);
}
static void q_q8_0_neon(const void *x, size_t n, const void *imp, void *blocks) {
  q_row(x, n, imp, blocks, SQ_GGML_Q8_0, 34, sq_ggml_quantize_q8_0);
}

/* Designated: a type not named here runs the scalar kernel
** (sq_ggml_quantizer), as the K-quants' quantizers do on NEON;
** ext/catalogue.toml lists the paths of each type. */
const sq_ggml_kernels sq_ggml_kernels_neon = {
  .own_quantize = {
    [SQ_GGML_Q4_0] = q_q4_0_neon,
    [SQ_GGML_Q4_1] = q_q4_1_neon,
    [SQ_GGML_Q5_0] = q_q5_0_neon,
    [SQ_GGML_Q5_1] = q_q5_1_neon,
    [SQ_GGML_Q8_0] = q_q8_0_neon,
  },
  .own_dequantize = {
    [SQ_GGML_Q4_0] = dq_q4_0_neon,
    [SQ_GGML_Q4_1] = dq_q4_1_neon,
    [SQ_GGML_Q5_0] = dq_q5_0_neon,
    [SQ_GGML_Q5_1] = dq_q5_1_neon,
    [SQ_GGML_Q8_0] = dq_q8_0_neon,
    [SQ_GGML_Q2_K] = dq_q2_K_neon,
    [SQ_GGML_Q3_K] = dq_q3_K_neon,
    [SQ_GGML_Q4_K] = dq_q4_K_neon,
    [SQ_GGML_Q5_K] = dq_q5_K_neon,
    [SQ_GGML_Q6_K] = dq_q6_K_neon,
  },
};


/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef SQ_PRAGMA
#undef SQ_UNROLL

#else
typedef int sq_unused_ggml_neon;
#endif
