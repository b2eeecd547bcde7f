/*
** arm_neon.c: the aarch64 AdvSIMD kernel path (sq_kernels_neon), little-endian
** only (dispatch.c uses scalar on big-endian aarch64).
**
** Same contract as the x86 paths: exactly scalar's bytes and return values.
** What is particular to NEON:
**   1. quantize rounds with FCVTNS (vcvtnq_s32_f32: nearest, ties to even,
**      whatever FPCR says) and narrows with XTN, which truncates like scalar's
**      c & 0xff; 32-bit codes round with FRINTN and clamp in double;
**   2. minmax accumulates with FMIN/FMAX, which propagate NaN (so non-finite
**      values show up in the accumulators, checked once per block) and order
**      -0 below +0: a zero extreme is therefore settled from the lanes only
**      when they prove every zero of the data has one sign, else by finding
**      the first zero.  With FPCR.FZ/FIZ/AH set FMIN/FMAX would differ from
**      scalar's compares (flushed or reordered operands), so those modes use
**      scalar; minmax_interleaved uses compare + select, which follows the
**      same FPCR rules as scalar's compares;
**   3. f16 uses FCVTL/FCVTN only when FPCR is in its default state (round to
**      nearest, no flush, IEEE half format, NaN propagation); otherwise an
**      integer conversion that equals scalar's, so results never depend on
**      the rounding mode (docs/NUMERICS.md#determinism, rule 3).  bf16 is always integer;
**   4. no masked loads: tails (under 4 or 16 elements) go to the scalar
**      table on offset pointers;
**   5. error_sums and minmax_blocks: as on x86 (see x86_kernels.h), the first
**      in two passes over L1-sized chunks to stay within 32 registers, the
**      second with pairwise FMINP/FMAXP over four blocks at a time.
*/
#include "kernels/kernels_internal.h"

#if defined(__aarch64__) && !defined(SQ_SCALAR_ONLY) && !SQ_BIG_ENDIAN

#include <arm_neon.h>


/* FPCR bits that change what FCVT, FMIN and FMAX return: AHP (26), DN (25),
** FZ (24), RMode (23:22), FZ16 (19), AH (1), FIZ (0). */
#define SQ_FPCR_CVT ((1u << 26) | (1u << 25) | (1u << 24) | (3u << 22) | \
                     (1u << 19) | (1u << 1) | 1u)
#define SQ_FPCR_MINMAX ((1u << 24) | (1u << 1) | 1u)

SQ_AI float32x4_t ldf_neon(sq_cb p) { return vreinterpretq_f32_u8(vld1q_u8(p)); }
SQ_AI void stf_neon(sq_b p, float32x4_t v) { vst1q_u8(p, vreinterpretq_u8_f32(v)); }
SQ_AI uint32x4_t ldu(sq_cb p) { return vreinterpretq_u32_u8(vld1q_u8(p)); }
SQ_AI void stu(sq_b p, uint32x4_t v) { vst1q_u8(p, vreinterpretq_u8_u32(v)); }

/* ---- min / max ---------------------------------------------------------- */




static size_t minmax_neon(const void *x, size_t n, float *mn, float *mx) {
  sq_cb p = x;
  if (n == 0) return 0;
  if (sq_fpcr() & SQ_FPCR_MINMAX) return sq_kernels_scalar.minmax(x, n, mn, mx);
  size_t nv = n & ~(size_t)15;
  float lo, hi;
  if (nv) {
    float32x4_t a0 = vdupq_n_f32(sq_load_f32(p)), a1 = a0, a2 = a0, a3 = a0;
    float32x4_t b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    const float32x4_t ninf = vdupq_n_f32(-__builtin_inff());
    const float32x4_t pinf = vdupq_n_f32(__builtin_inff());
    for (size_t blk = 0; blk < nv; blk += SQ_MM_BLOCK) {
      size_t end = nv - blk > SQ_MM_BLOCK ? blk + SQ_MM_BLOCK : nv;
      for (size_t i = blk; i < end; i += 16) {
        sq_cb s = p + 4 * i;
        float32x4_t x0 = ldf_neon(s), x1 = ldf_neon(s + 16),
                    x2 = ldf_neon(s + 32), x3 = ldf_neon(s + 48);
        a0 = vminq_f32(a0, x0);
        a1 = vminq_f32(a1, x1);
        a2 = vminq_f32(a2, x2);
        a3 = vminq_f32(a3, x3);
        b0 = vmaxq_f32(b0, x0);
        b1 = vmaxq_f32(b1, x1);
        b2 = vmaxq_f32(b2, x2);
        b3 = vmaxq_f32(b3, x3);
      }
      /* NaN propagated into the accumulators; infinities too. */
      float32x4_t l = vminq_f32(vminq_f32(a0, a1), vminq_f32(a2, a3));
      float32x4_t h = vmaxq_f32(vmaxq_f32(b0, b1), vmaxq_f32(b2, b3));
      uint32x4_t ok = vandq_u32(vcgtq_f32(l, ninf), vcltq_f32(h, pinf));
      if (vminvq_u32(ok) == 0) return blk + sq_first_nonfinite(p + 4 * blk, end - blk);
    }
    float la[16], ha[16];
    vst1q_f32(la, a0);
    vst1q_f32(la + 4, a1);
    vst1q_f32(la + 8, a2);
    vst1q_f32(la + 12, a3);
    vst1q_f32(ha, b0);
    vst1q_f32(ha + 4, b1);
    vst1q_f32(ha + 8, b2);
    vst1q_f32(ha + 12, b3);
    lo = sq_pick_extreme(la, 16, 0, p, nv);
    hi = sq_pick_extreme(ha, 16, 1, p, nv);
  } else {
    lo = hi = sq_load_f32(p);
  }
  for (size_t i = nv; i < n; i++) {
    uint32_t u = sq_load_u32(p + 4 * i);
    if ((u & 0x7f800000u) == 0x7f800000u) return i;
    float v;
    memcpy(&v, &u, 4);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  *mn = lo;
  *mx = hi;
  return n;
}

SQ_AI uint32x4_t nonfinite(float32x4_t v) {
  const uint32x4_t e = vdupq_n_u32(0x7f800000u);
  return vceqq_u32(vandq_u32(vreinterpretq_u32_f32(v), e), e);
}

/* Compare + select: "if (v < mn) mn = v" lane by lane, ties and NaN seeds
** included. */
SQ_AI void fold4(float32x4_t v, float *mn, float *mx) {
  float32x4_t a = vld1q_f32(mn), b = vld1q_f32(mx);
  vst1q_f32(mn, vbslq_f32(vcltq_f32(v, a), v, a));
  vst1q_f32(mx, vbslq_f32(vcgtq_f32(v, b), v, b));
}

static size_t minmax_interleaved_neon(const void *x, size_t rows,
                                      size_t channels, float *mn, float *mx) {
  sq_cb p = x;
  if (channels < 4)
    return sq_kernels_scalar.minmax_interleaved(x, rows, channels, mn, mx);
  for (size_t r = 0; r < rows; r++) {
    sq_cb row = p + 4 * r * channels;
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
      sq_cb s = row + 4 * c;
      float32x4_t x0 = ldf_neon(s), x1 = ldf_neon(s + 16),
                  x2 = ldf_neon(s + 32), x3 = ldf_neon(s + 48);
      uint32x4_t bad = vorrq_u32(vorrq_u32(nonfinite(x0), nonfinite(x1)),
                                 vorrq_u32(nonfinite(x2), nonfinite(x3)));
      if (vmaxvq_u32(bad)) break;
      fold4(x0, mn + c, mx + c);
      fold4(x1, mn + c + 4, mx + c + 4);
      fold4(x2, mn + c + 8, mx + c + 8);
      fold4(x3, mn + c + 12, mx + c + 12);
    }
    for (; c + 4 <= channels; c += 4) {
      float32x4_t v = ldf_neon(row + 4 * c);
      if (vmaxvq_u32(nonfinite(v))) break;
      fold4(v, mn + c, mx + c);
    }
    if (c < channels) {
      size_t k = sq_kernels_scalar.minmax_interleaved(row + 4 * c, 1,
                                                      channels - c, mn + c,
                                                      mx + c);
      if (k < channels - c) return r * channels + c + k;
    }
  }
  return rows * channels;
}

/* ---- quantize ------------------------------------------------------------ */

SQ_AI float32x4_t scale_y_neon(float32x4_t v, float32x4_t m, int divide) {
  return divide ? vdivq_f32(v, m) : vmulq_f32(v, m);
}

/* Codes up to 16 bits.  FMAX/FMIN differ from scalar's compares only on the
** sign of a zero, which the conversion to an integer erases. */
SQ_AI int32x4_t code_small_neon(float32x4_t v, float32x4_t m, float32x4_t add,
                           float32x4_t lo, float32x4_t hi, int32x4_t zp,
                           int divide, int with_add) {
  /* zp is the caller's zp - (int32_t)add */
  float32x4_t y = scale_y_neon(v, m, divide);
  if (with_add) y = vaddq_f32(y, add);
  y = vminq_f32(hi, vmaxq_f32(lo, y));
  return vaddq_s32(vcvtnq_s32_f32(y), zp);
}

SQ_AI int32x2_t code_i32_half_neon(float64x2_t r, float64x2_t zpd, float64x2_t qmin,
                              float64x2_t qmax) {
  float64x2_t d = vaddq_f64(r, zpd);
  d = vminq_f64(qmax, vmaxq_f64(qmin, d));
  return vmovn_s64(vcvtq_s64_f64(d));
}
SQ_AI int32x4_t code_i32_neon(float32x4_t v, float32x4_t m, float64x2_t zlo,
                         float64x2_t zhi, float64x2_t qmin, float64x2_t qmax,
                         int divide) {
  float32x4_t r = vrndnq_f32(scale_y_neon(v, m, divide));
  return vcombine_s32(
      code_i32_half_neon(vcvt_f64_f32(vget_low_f32(r)), zlo, qmin, qmax),
      code_i32_half_neon(vcvt_high_f64_f32(r), zhi, qmin, qmax));
}

/* Store 4 or 16 codes, truncating (XTN). */
SQ_AI void st_4(sq_b d, int32x4_t c, int bits) {
  if (bits == 8) {
    uint8x8_t b = vmovn_u16(vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(c)),
                                         vdup_n_u16(0)));
    uint32_t w = vget_lane_u32(vreinterpret_u32_u8(b), 0);
    memcpy(d, &w, 4);
  } else if (bits == 16) {
    vst1_u8(d, vreinterpret_u8_u16(vmovn_u32(vreinterpretq_u32_s32(c))));
  } else {
    vst1q_u8(d, vreinterpretq_u8_s32(c));
  }
}
SQ_AI void st_16(sq_b d, int32x4_t c0, int32x4_t c1, int32x4_t c2,
                 int32x4_t c3, int bits) {
  if (bits == 8) {
    int16x8_t a = vcombine_s16(vmovn_s32(c0), vmovn_s32(c1));
    int16x8_t b = vcombine_s16(vmovn_s32(c2), vmovn_s32(c3));
    vst1q_u8(d, vreinterpretq_u8_s8(vcombine_s8(vmovn_s16(a), vmovn_s16(b))));
  } else if (bits == 16) {
    vst1q_u8(d, vreinterpretq_u8_s16(vcombine_s16(vmovn_s32(c0), vmovn_s32(c1))));
    vst1q_u8(d + 16, vreinterpretq_u8_s16(vcombine_s16(vmovn_s32(c2), vmovn_s32(c3))));
  } else {
    vst1q_u8(d, vreinterpretq_u8_s32(c0));
    vst1q_u8(d + 16, vreinterpretq_u8_s32(c1));
    vst1q_u8(d + 32, vreinterpretq_u8_s32(c2));
    vst1q_u8(d + 48, vreinterpretq_u8_s32(c3));
  }
}

SQ_AI uint32x4_t notnan(float32x4_t v) { return vceqq_f32(v, v); }

SQ_AI sq_code_type code_of(int bits) {
  return bits == 8 ? SQ_CODE_I8 : bits == 16 ? SQ_CODE_I16 : SQ_CODE_I32;
}

SQ_AI size_t q_body_neon(sq_cb src, size_t n, const sq_qparams *p, sq_b dst,
                    int bits, int divide, int with_add) {
  const size_t es = (size_t)bits / 8;
  const float32x4_t m = vdupq_n_f32(divide ? p->scale : p->inv);
  const float32x4_t lo = vdupq_n_f32(p->lo), hi = vdupq_n_f32(p->hi);
  const float32x4_t add = vdupq_n_f32(with_add ? p->add : 0.0f);
  const int32x4_t zp = vdupq_n_s32(with_add ? p->zp - (int32_t)p->add : p->zp);
  const float64x2_t zpd = vdupq_n_f64((double)p->zp);
  const float64x2_t qmin = vdupq_n_f64((double)p->qmin);
  const float64x2_t qmax = vdupq_n_f64((double)p->qmax);
#define SQ_CODE(v)                                                            \
  (bits == 32 ? code_i32_neon(v, m, zpd, zpd, qmin, qmax, divide)                  \
              : code_small_neon(v, m, add, lo, hi, zp, divide, with_add))
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    sq_cb s = src + 4 * i;
    float32x4_t x0 = ldf_neon(s), x1 = ldf_neon(s + 16),
                x2 = ldf_neon(s + 32), x3 = ldf_neon(s + 48);
    uint32x4_t ok = vandq_u32(vandq_u32(notnan(x0), notnan(x1)),
                              vandq_u32(notnan(x2), notnan(x3)));
    if (vminvq_u32(ok) == 0) break;
    st_16(dst + es * i, SQ_CODE(x0), SQ_CODE(x1), SQ_CODE(x2), SQ_CODE(x3), bits);
  }
  for (; i + 4 <= n; i += 4) {
    float32x4_t v = ldf_neon(src + 4 * i);
    if (vminvq_u32(notnan(v)) == 0) break;
    st_4(dst + es * i, SQ_CODE(v), bits);
  }
#undef SQ_CODE
  return i + sq_kernels_scalar.quantize[code_of(bits)](src + 4 * i, n - i, p,
                                                       dst + es * i);
}

SQ_QUANTIZE_ENTRIES(neon)

/* ---- interleaved (per-channel, last axis) -------------------------------- */




/* The parameter arrays, copied out of sq_channel_params: stores through the
** byte pointers may alias *p, so reading p->lo in the loop would reload it
** after every store. */
typedef struct sq_il {
  const float *m, *lo, *hi, *add;
  const int32_t *zp;
  float64x2_t qmin, qmax;
} sq_il;

SQ_AI sq_il il_of(const sq_channel_params *p, int divide) {
  sq_il a;
  a.m = divide ? p->scale : p->inv;
  a.lo = p->lo;
  a.hi = p->hi;
  a.add = p->add;
  a.zp = p->zp;
  a.qmin = vdupq_n_f64((double)p->qmin);
  a.qmax = vdupq_n_f64((double)p->qmax);
  return a;
}

SQ_AI int32x4_t code_il(float32x4_t v, const sq_il *a, size_t c, int bits,
                        int divide, int with_add) {
  float32x4_t m = vld1q_f32(a->m + c);
  int32x4_t z = vld1q_s32(a->zp + c);
  if (bits == 32) {
    float64x2_t zlo = vcvtq_f64_s64(vmovl_s32(vget_low_s32(z)));
    float64x2_t zhi = vcvtq_f64_s64(vmovl_high_s32(z));
    return code_i32_neon(v, m, zlo, zhi, a->qmin, a->qmax, divide);
  }
  float32x4_t lo = vld1q_f32(a->lo + c), hi = vld1q_f32(a->hi + c);
  if (!with_add) return code_small_neon(v, m, lo, lo, hi, z, divide, 0);
  /* add holds integers below 2^24 in magnitude: truncation is exact. */
  float32x4_t ad = vld1q_f32(a->add + c);
  return code_small_neon(v, m, ad, lo, hi, vsubq_s32(z, vcvtq_s32_f32(ad)), divide, 1);
}

SQ_AI size_t qi_body_neon(sq_cb src, size_t rows, const sq_channel_params *p,
                     sq_b dst, int bits, int divide, int with_add) {
  const size_t es = (size_t)bits / 8, ch = p->channels;
  const sq_code_type t = code_of(bits);
  if (ch < 4) return sq_kernels_scalar.quantize_interleaved[t](src, rows, p, dst);
  const sq_il a = il_of(p, divide);
  for (size_t r = 0; r < rows; r++) {
    sq_cb s = src + 4 * r * ch;
    sq_b d = dst + es * r * ch;
    size_t c = 0;
    for (; c + 16 <= ch; c += 16) {
      sq_cb sc = s + 4 * c;
      float32x4_t x0 = ldf_neon(sc), x1 = ldf_neon(sc + 16),
                  x2 = ldf_neon(sc + 32), x3 = ldf_neon(sc + 48);
      uint32x4_t ok = vandq_u32(vandq_u32(notnan(x0), notnan(x1)),
                                vandq_u32(notnan(x2), notnan(x3)));
      if (vminvq_u32(ok) == 0) break;
      st_16(d + es * c, code_il(x0, &a, c, bits, divide, with_add),
            code_il(x1, &a, c + 4, bits, divide, with_add),
            code_il(x2, &a, c + 8, bits, divide, with_add),
            code_il(x3, &a, c + 12, bits, divide, with_add), bits);
    }
    for (; c + 4 <= ch; c += 4) {
      float32x4_t v = ldf_neon(s + 4 * c);
      if (vminvq_u32(notnan(v)) == 0) break;
      st_4(d + es * c, code_il(v, &a, c, bits, divide, with_add), bits);
    }
    if (c < ch) {
      sq_channel_params sp = sq_sub_params(p, c, ch - c);
      size_t k = sq_kernels_scalar.quantize_interleaved[t](s + 4 * c, 1, &sp,
                                                           d + es * c);
      if (k < ch - c) return r * ch + c + k;
    }
  }
  return rows * ch;
}

SQ_AI size_t qi_run_neon(sq_cb src, size_t rows, const sq_channel_params *p,
                     sq_b dst, int bits) {
  if (bits != 32 && p->divide && sq_any_add(p))
    return p->divide ? qi_body_neon(src, rows, p, dst, bits, 1, 1)
                     : qi_body_neon(src, rows, p, dst, bits, 0, 1);
  return p->divide ? qi_body_neon(src, rows, p, dst, bits, 1, 0)
                   : qi_body_neon(src, rows, p, dst, bits, 0, 0);
}


SQ_DEFINE_QI_ENTRY(neon, 4)
SQ_QUANTIZE_IL_ENTRIES(neon)

/* ---- dequantize ---------------------------------------------------------- */


/* Four codes of type t at element i, as int32. */
SQ_AI int32x4_t ld_codes_neon(sq_cb q, size_t i, sq_code_type t) {
  uint64_t w = 0;
  switch (t) {
    case SQ_CODE_I8:
      memcpy(&w, q + i, 4);
      return vmovl_s16(vget_low_s16(vmovl_s8(vcreate_s8(w))));
    case SQ_CODE_U8:
      memcpy(&w, q + i, 4);
      return vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(vcreate_u8(w)))));
    case SQ_CODE_I16:
      memcpy(&w, q + 2 * i, 8);
      return vmovl_s16(vcreate_s16(w));
    case SQ_CODE_U16:
      memcpy(&w, q + 2 * i, 8);
      return vreinterpretq_s32_u32(vmovl_u16(vcreate_u16(w)));
    default:
      return vreinterpretq_s32_u8(vld1q_u8(q + 4 * i));
  }
}

/* (float)(q - zp): int32 for small codes, exact int64 -> double -> one
** rounding to float for 32-bit codes. */
SQ_AI float32x4_t dq_conv_neon(int32x4_t v, int32x4_t zp, sq_code_type t) {
  if (t != SQ_CODE_I32) return vcvtq_f32_s32(vsubq_s32(v, zp));
  float64x2_t l = vcvtq_f64_s64(vsubl_s32(vget_low_s32(v), vget_low_s32(zp)));
  float64x2_t h = vcvtq_f64_s64(vsubl_high_s32(v, zp));
  return vcvt_high_f32_f64(vcvt_f32_f64(l), h);
}

SQ_AI void dq_body_neon(sq_cb q, size_t n, float scale, int32_t zp, sq_b y,
                   sq_code_type t) {
  const size_t es = sq_esize[t];
  if (t != SQ_CODE_I32 && !sq_zp_small_ok(zp)) {
    sq_kernels_scalar.dequantize[t](q, n, scale, zp, y);
    return;
  }
  const float32x4_t s = vdupq_n_f32(scale);
  const int32x4_t z = vdupq_n_s32(zp);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    float32x4_t f0 = dq_conv_neon(ld_codes_neon(q, i, t), z, t);
    float32x4_t f1 = dq_conv_neon(ld_codes_neon(q, i + 4, t), z, t);
    float32x4_t f2 = dq_conv_neon(ld_codes_neon(q, i + 8, t), z, t);
    float32x4_t f3 = dq_conv_neon(ld_codes_neon(q, i + 12, t), z, t);
    stf_neon(y + 4 * i, vmulq_f32(f0, s));
    stf_neon(y + 4 * i + 16, vmulq_f32(f1, s));
    stf_neon(y + 4 * i + 32, vmulq_f32(f2, s));
    stf_neon(y + 4 * i + 48, vmulq_f32(f3, s));
  }
  for (; i + 4 <= n; i += 4)
    stf_neon(y + 4 * i, vmulq_f32(dq_conv_neon(ld_codes_neon(q, i, t), z, t), s));
  if (i < n) sq_kernels_scalar.dequantize[t](q + es * i, n - i, scale, zp, y + 4 * i);
}


SQ_AI void dqi_body_neon(sq_cb q, size_t rows, const sq_channel_params *p, sq_b y,
                    sq_code_type t) {
  const size_t es = sq_esize[t], ch = p->channels;
  int ok = ch >= 4;
  for (size_t c = 0; ok && t != SQ_CODE_I32 && c < ch; c++)
    ok = sq_zp_small_ok(p->zp[c]);
  if (!ok) {
    sq_kernels_scalar.dequantize_interleaved[t](q, rows, p, y);
    return;
  }
  const float *sc = p->scale;       /* locals: stores may alias *p */
  const int32_t *zp = p->zp;
  for (size_t r = 0; r < rows; r++) {
    sq_cb qr = q + es * r * ch;
    sq_b yr = y + 4 * r * ch;
    size_t c = 0;
    for (; c + 4 <= ch; c += 4) {
      float32x4_t f = dq_conv_neon(ld_codes_neon(qr, c, t), vld1q_s32(zp + c), t);
      stf_neon(yr + 4 * c, vmulq_f32(f, vld1q_f32(sc + c)));
    }
    if (c < ch) {
      sq_channel_params sp = sq_sub_params(p, c, ch - c);
      sq_kernels_scalar.dequantize_interleaved[t](qr + es * c, 1, &sp, yr + 4 * c);
    }
  }
}

SQ_DEFINE_DQI_ENTRY(neon, 4)

SQ_DEQUANTIZE_ENTRIES(neon)

/* ---- 4-bit packing ------------------------------------------------------- */

static void pack4_neon(const void *codes, size_t n, void *packed) {
  sq_cb c = codes;
  sq_b d = packed;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint8x16x2_t v = vld2q_u8(c + i);      /* even codes, odd codes */
    /* keep the even code's low nibble, insert the odd code's above it */
    vst1q_u8(d + i / 2, vsliq_n_u8(v.val[0], v.val[1], 4));
  }
  if (i < n) sq_kernels_scalar.pack4(c + i, n - i, d + i / 2);
}

static void unpack4_neon(const void *packed, size_t n, int is_signed,
                         void *codes) {
  sq_cb s = packed;
  sq_b d = codes;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint8x16_t b = vld1q_u8(s + i / 2);
    uint8x16x2_t v;
    if (is_signed) {      /* arithmetic shifts sign-extend each nibble */
      int8x16_t sb = vreinterpretq_s8_u8(b);
      v.val[0] = vreinterpretq_u8_s8(vshrq_n_s8(vshlq_n_s8(sb, 4), 4));
      v.val[1] = vreinterpretq_u8_s8(vshrq_n_s8(sb, 4));
    } else {
      v.val[0] = vandq_u8(b, vdupq_n_u8(0x0f));
      v.val[1] = vshrq_n_u8(b, 4);
    }
    vst2q_u8(d + i, v);
  }
  if (i < n) sq_kernels_scalar.unpack4(s + i / 2, n - i, is_signed, d + i);
}

/* ---- half formats -------------------------------------------------------- */

/* Scalar's f16 -> f32 in integer lanes (any FPCR). */
SQ_AI uint32x4_t f16_widen_int(uint16x4_t h16) {
  uint32x4_t h = vmovl_u16(h16);
  uint32x4_t sign = vshlq_n_u32(vandq_u32(h, vdupq_n_u32(0x8000)), 16);
  uint32x4_t em = vandq_u32(h, vdupq_n_u32(0x7fff));
  uint32x4_t e = vandq_u32(h, vdupq_n_u32(0x7c00));
  uint32x4_t man = vandq_u32(h, vdupq_n_u32(0x03ff));
  /* normal: rebias by adding (127 - 15) << 23 */
  uint32x4_t normal = vaddq_u32(vshlq_n_u32(em, 13), vdupq_n_u32(0x38000000));
  /* inf / NaN: exponent all ones, NaN made quiet */
  uint32x4_t isnan = vmvnq_u32(vceqzq_u32(man));
  uint32x4_t special = vorrq_u32(
      vorrq_u32(vshlq_n_u32(man, 13), vdupq_n_u32(0x7f800000)),
      vandq_u32(isnan, vdupq_n_u32(0x00400000)));
  /* subnormal: man = 1..1023, leading zeros lz = 22..31; the value is
  ** 2^(31 - lz - 24) * 1.f: exponent 134 - lz, mantissa man << (lz - 8) */
  int32x4_t lz = vreinterpretq_s32_u32(vclzq_u32(man));
  uint32x4_t sub = vaddq_u32(
      vshlq_n_u32(vreinterpretq_u32_s32(vsubq_s32(vdupq_n_s32(133), lz)), 23),
      vshlq_u32(man, vsubq_s32(lz, vdupq_n_s32(8))));
  uint32x4_t r = vbslq_u32(vceqq_u32(e, vdupq_n_u32(0x7c00)), special, normal);
  r = vbslq_u32(vceqzq_u32(e), sub, r);
  r = vbslq_u32(vceqzq_u32(em), vdupq_n_u32(0), r);
  return vorrq_u32(r, sign);
}

/* Scalar's f32 -> f16 in integer lanes (any FPCR), as 32-bit lanes. */
SQ_AI uint32x4_t f16_round_int(uint32x4_t x) {
  uint32x4_t sign = vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x8000));
  uint32x4_t ax = vandq_u32(x, vdupq_n_u32(0x7fffffff));
  uint32x4_t nanr = vorrq_u32(vdupq_n_u32(0x7e00),
                              vandq_u32(vshrq_n_u32(ax, 13), vdupq_n_u32(0x3ff)));
  /* normal range: rebias, round half to even on bit 13 */
  uint32x4_t r = vsubq_u32(ax, vdupq_n_u32(0x38000000));
  r = vaddq_u32(r, vaddq_u32(vdupq_n_u32(0xfff),
                             vandq_u32(vshrq_n_u32(r, 13), vdupq_n_u32(1))));
  r = vshrq_n_u32(r, 13);
  /* subnormal range: m >> (126 - e), half to even:
  ** (m + half - 1 + ((m >> sh) & 1)) >> sh */
  int32x4_t sh = vsubq_s32(vdupq_n_s32(126),
                           vreinterpretq_s32_u32(vshrq_n_u32(ax, 23)));
  sh = vminq_s32(vmaxq_s32(sh, vdupq_n_s32(1)), vdupq_n_s32(31));
  uint32x4_t m = vorrq_u32(vandq_u32(ax, vdupq_n_u32(0x7fffff)),
                           vdupq_n_u32(0x800000));
  int32x4_t nsh = vnegq_s32(sh);
  uint32x4_t odd = vandq_u32(vshlq_u32(m, nsh), vdupq_n_u32(1));
  uint32x4_t halfm1 = vsubq_u32(vshlq_u32(vdupq_n_u32(1),
                                          vsubq_s32(sh, vdupq_n_s32(1))),
                                vdupq_n_u32(1));
  uint32x4_t sub = vshlq_u32(vaddq_u32(vaddq_u32(m, halfm1), odd), nsh);
  uint32x4_t res = vbslq_u32(vcgeq_u32(ax, vdupq_n_u32(0x38800000)), r, sub);
  res = vbslq_u32(vcleq_u32(ax, vdupq_n_u32(0x33000000)), vdupq_n_u32(0), res);
  res = vbslq_u32(vcgeq_u32(ax, vdupq_n_u32(0x477ff000)), vdupq_n_u32(0x7c00), res);
  res = vbslq_u32(vcgtq_u32(ax, vdupq_n_u32(0x7f800000)), nanr, res);
  return vorrq_u32(res, sign);
}

static void f16_to_f32_neon(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  if (sq_fpcr() & SQ_FPCR_CVT) {
    for (; i + 8 <= n; i += 8) {
      uint16x8_t v = vreinterpretq_u16_u8(vld1q_u8(s + 2 * i));
      stu(d + 4 * i, f16_widen_int(vget_low_u16(v)));
      stu(d + 4 * i + 16, f16_widen_int(vget_high_u16(v)));
    }
  } else {
    for (; i + 16 <= n; i += 16) {
      float16x8_t a = vreinterpretq_f16_u8(vld1q_u8(s + 2 * i));
      float16x8_t b = vreinterpretq_f16_u8(vld1q_u8(s + 2 * i + 16));
      stf_neon(d + 4 * i, vcvt_f32_f16(vget_low_f16(a)));
      stf_neon(d + 4 * i + 16, vcvt_high_f32_f16(a));
      stf_neon(d + 4 * i + 32, vcvt_f32_f16(vget_low_f16(b)));
      stf_neon(d + 4 * i + 48, vcvt_high_f32_f16(b));
    }
  }
  if (i < n) sq_kernels_scalar.f16_to_f32(s + 2 * i, n - i, d + 4 * i);
}

static void f32_to_f16_neon(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  if (sq_fpcr() & SQ_FPCR_CVT) {
    for (; i + 8 <= n; i += 8) {
      uint16x8_t r = vcombine_u16(vmovn_u32(f16_round_int(ldu(s + 4 * i))),
                                  vmovn_u32(f16_round_int(ldu(s + 4 * i + 16))));
      vst1q_u8(d + 2 * i, vreinterpretq_u8_u16(r));
    }
  } else {
    for (; i + 16 <= n; i += 16) {
      float16x8_t a = vcvt_high_f16_f32(vcvt_f16_f32(ldf_neon(s + 4 * i)),
                                        ldf_neon(s + 4 * i + 16));
      float16x8_t b = vcvt_high_f16_f32(vcvt_f16_f32(ldf_neon(s + 4 * i + 32)),
                                        ldf_neon(s + 4 * i + 48));
      vst1q_u8(d + 2 * i, vreinterpretq_u8_f16(a));
      vst1q_u8(d + 2 * i + 16, vreinterpretq_u8_f16(b));
    }
  }
  if (i < n) sq_kernels_scalar.f32_to_f16(s + 4 * i, n - i, d + 2 * i);
}

SQ_AI uint32x4_t bf16_widen_neon(uint16x4_t h) {
  uint32x4_t b = vshll_n_u16(h, 16);
  uint32x4_t nan = vcgtq_u32(vandq_u32(b, vdupq_n_u32(0x7fffffff)),
                             vdupq_n_u32(0x7f800000));
  return vorrq_u32(b, vandq_u32(nan, vdupq_n_u32(0x00400000)));
}

static void bf16_to_f32_neon(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint16x8_t a = vreinterpretq_u16_u8(vld1q_u8(s + 2 * i));
    uint16x8_t b = vreinterpretq_u16_u8(vld1q_u8(s + 2 * i + 16));
    stu(d + 4 * i, bf16_widen_neon(vget_low_u16(a)));
    stu(d + 4 * i + 16, bf16_widen_neon(vget_high_u16(a)));
    stu(d + 4 * i + 32, bf16_widen_neon(vget_low_u16(b)));
    stu(d + 4 * i + 48, bf16_widen_neon(vget_high_u16(b)));
  }
  if (i < n) sq_kernels_scalar.bf16_to_f32(s + 2 * i, n - i, d + 4 * i);
}

SQ_AI uint16x4_t bf16_round_neon(uint32x4_t x) {
  uint32x4_t nan = vcgtq_u32(vandq_u32(x, vdupq_n_u32(0x7fffffff)),
                             vdupq_n_u32(0x7f800000));
  uint32x4_t odd = vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(1));
  uint32x4_t r = vshrq_n_u32(vaddq_u32(x, vaddq_u32(odd, vdupq_n_u32(0x7fff))), 16);
  uint32x4_t qn = vorrq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x40));
  return vmovn_u32(vbslq_u32(nan, qn, r));
}

static void f32_to_bf16_neon(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint16x8_t a = vcombine_u16(bf16_round_neon(ldu(s + 4 * i)),
                                bf16_round_neon(ldu(s + 4 * i + 16)));
    uint16x8_t b = vcombine_u16(bf16_round_neon(ldu(s + 4 * i + 32)),
                                bf16_round_neon(ldu(s + 4 * i + 48)));
    vst1q_u8(d + 2 * i, vreinterpretq_u8_u16(a));
    vst1q_u8(d + 2 * i + 16, vreinterpretq_u8_u16(b));
  }
  if (i < n) sq_kernels_scalar.f32_to_bf16(s + 4 * i, n - i, d + 2 * i);
}

/* ---- error sums ---------------------------------------------------------- */

/* Lane l of the SQ_ERROR_LANES gets elements 16k + l in order, exactly as in
** scalar: a 16-element block is eight float64x2 (lanes 2j, 2j + 1), widened
** exactly with FCVTL/FCVTL2, and every sum adds its product (FMUL then FADD,
** never FMLA) to the vector holding those lanes.  The head, tail and lane
** totals are scalar's (sq_error_lanes_scalar, sq_error_lanes_total).  The FPCR applies to scalar and
** AdvSIMD arithmetic alike (rounding, FZ), so every mode gives scalar's bits.
**
** The 32 accumulators of a whole block would fill the register file, and
** GCC then kept about half of them on the stack (52 loads and stores per
** block against 104 arithmetic instructions).  So the blocks are taken in
** chunks that stay in L1, each twice: lanes 0-7, then lanes 8-15 (the order
** of the additions within each lane is unchanged), with 16 accumulators and
** no spills.  Not measured on aarch64 hardware (qemu only). */
#define SQ_ES_CHUNK 64          /* blocks per chunk: 4 KB of each input */

SQ_AI void es_add_neon(float64x2_t u, float64x2_t v, float64x2_t *a2,
                  float64x2_t *b2, float64x2_t *ab, float64x2_t *d2,
                  float64x2_t *mx) {
  float64x2_t d = vsubq_f64(u, v);
  *a2 = vaddq_f64(*a2, vmulq_f64(u, u));
  *b2 = vaddq_f64(*b2, vmulq_f64(v, v));
  *ab = vaddq_f64(*ab, vmulq_f64(u, v));
  *d2 = vaddq_f64(*d2, vmulq_f64(d, d));
  *mx = vmaxq_f64(*mx, vabsq_f64(d));
}

/* Four elements at (sa + 16 J, sb + 16 J) into accumulators L and H of each
** sum (named variables: arrays of vectors were kept in memory by GCC). */
#define SQ_ES_QUAD(J, L, H)                                                   \
  do {                                                                        \
    float32x4_t xa = ldf_neon(sa + 16 * (J)), xb = ldf_neon(sb + 16 * (J));             \
    es_add_neon(vcvt_f64_f32(vget_low_f32(xa)), vcvt_f64_f32(vget_low_f32(xb)),    \
           &A##L, &B##L, &C##L, &D##L, &M);                                   \
    es_add_neon(vcvt_high_f64_f32(xa), vcvt_high_f64_f32(xb), &A##H, &B##H, &C##H, \
           &D##H, &M);                                                        \
  } while (0)
#define SQ_ES_LD(L)                                                           \
  float64x2_t A##L = vld1q_f64(a2 + off + 2 * (L)),                           \
              B##L = vld1q_f64(b2 + off + 2 * (L)),                           \
              C##L = vld1q_f64(ab + off + 2 * (L)),                           \
              D##L = vld1q_f64(d2 + off + 2 * (L))
#define SQ_ES_ST(L)                                                           \
  do {                                                                        \
    vst1q_f64(a2 + off + 2 * (L), A##L);                                      \
    vst1q_f64(b2 + off + 2 * (L), B##L);                                      \
    vst1q_f64(ab + off + 2 * (L), C##L);                                      \
    vst1q_f64(d2 + off + 2 * (L), D##L);                                      \
  } while (0)

/* Lanes [off, off + 8) of blocks [k0, k1) into the lane arrays. */
SQ_AI void es_half(sq_cb pa, sq_cb pb, size_t k0, size_t k1, size_t off,
                   double *a2, double *b2, double *ab, double *d2,
                   float64x2_t *mx) {
  SQ_ES_LD(0);
  SQ_ES_LD(1);
  SQ_ES_LD(2);
  SQ_ES_LD(3);
  float64x2_t M = *mx;
  for (size_t k = k0; k < k1; k++) {
    sq_cb sa = pa + 64 * k + 4 * off, sb = pb + 64 * k + 4 * off;
    SQ_ES_QUAD(0, 0, 1);
    SQ_ES_QUAD(1, 2, 3);
  }
  SQ_ES_ST(0);
  SQ_ES_ST(1);
  SQ_ES_ST(2);
  SQ_ES_ST(3);
  *mx = M;
}
#undef SQ_ES_QUAD
#undef SQ_ES_LD
#undef SQ_ES_ST

/* error_lanes: scalar's head up to lane 0, error_sums' chunked halves on
** acc's own lane arrays (the same additions in the same order per lane),
** scalar's tail. */
static void error_lanes_neon(const void *a, const void *b, size_t n,
                             size_t lane, sq_error_lanes *acc) {
  size_t head = sq_error_lanes_head(a, b, n, lane, acc);
  sq_cb pa = (sq_cb)a + 4 * head, pb = (sq_cb)b + 4 * head;
  size_t full = (n - head) / SQ_ERROR_LANES;
  float64x2_t mx = vdupq_n_f64(0.0);
  for (size_t k0 = 0; k0 < full; k0 += SQ_ES_CHUNK) {
    size_t k1 = full - k0 > SQ_ES_CHUNK ? k0 + SQ_ES_CHUNK : full;
    es_half(pa, pb, k0, k1, 0, acc->a2, acc->b2, acc->ab, acc->d2, &mx);
    es_half(pa, pb, k0, k1, 8, acc->a2, acc->b2, acc->ab, acc->d2, &mx);
  }
  double m2[2];
  vst1q_f64(m2, mx);
  for (int j = 0; j < 2; j++)
    if (m2[j] > acc->max_abs_d) acc->max_abs_d = m2[j];
  sq_error_lanes_scalar(a, b, head + full * SQ_ERROR_LANES, n, lane, acc);
}

/* error_sums is error_lanes from lane 0 on zeroed lanes, totalled: the same
** additions in the same order as scalar's. */
static void error_sums_neon(const void *a, const void *b, size_t n,
                            sq_error_sums *out) {
  sq_error_lanes acc;
  memset(&acc, 0, sizeof acc);
  error_lanes_neon(a, b, n, 0, &acc);
  sq_error_lanes_total(&acc, out);
}

/* ---- per-block min / max ------------------------------------------------- */

/* Vector k of a block of `block` >= 4 floats at s: at 4k, the last one at
** block - 4, where it may overlap the one before it (an element seen twice
** changes neither min nor max, and nothing outside the block is read). */
SQ_AI sq_cb blk_vec_neon(sq_cb s, size_t block, size_t k) {
  return s + 4 * (4 * k + 4 < block ? 4 * k : block - 4);
}

/* Lane-wise FMIN/FMAX of one block of `block` >= 4 floats at s, its vectors
** loaded in address order (NaN and infinities propagate into the
** results). */
SQ_AI void blk_fold_neon(sq_cb s, size_t block, float32x4_t *lo, float32x4_t *hi) {
  const size_t m = (block + 3) / 4;
  float32x4_t x0 = ldf_neon(s);
  if (m == 1) {
    *lo = *hi = x0;
    return;
  }
  float32x4_t x1 = ldf_neon(blk_vec_neon(s, block, 1));
  float32x4_t l0 = x0, h0 = x0, l1 = x1, h1 = x1;
  size_t k = 2;
  for (; k + 2 <= m; k += 2) {
    x0 = ldf_neon(blk_vec_neon(s, block, k));
    x1 = ldf_neon(blk_vec_neon(s, block, k + 1));
    l0 = vminq_f32(l0, x0);
    l1 = vminq_f32(l1, x1);
    h0 = vmaxq_f32(h0, x0);
    h1 = vmaxq_f32(h1, x1);
  }
  if (k < m) {
    x0 = ldf_neon(blk_vec_neon(s, block, k));
    l0 = vminq_f32(l0, x0);
    h0 = vmaxq_f32(h0, x0);
  }
  *lo = vminq_f32(l0, l1);
  *hi = vmaxq_f32(h0, h1);
}

/* Blocks of 4 floats or more, 4 at a time: each folded lane-wise, the four reduced
** together with pairwise FMINP/FMAXP (lane j of rmin is block j's minimum).
** FMIN/FMAX propagate NaN, so one compare of the results finds a non-finite
** value.  Only the value is kept: a zero extreme is scalar's first
** occurrence, the first zero of its block.  Returns the index of the first
** non-finite element, or n; *done is the number of blocks written. */
SQ_AI size_t mmb_body_neon(sq_cb p, size_t n, size_t block, float *mn,
                      float *mx, size_t *done) {
  const float32x4_t ninf = vdupq_n_f32(-__builtin_inff());
  const float32x4_t pinf = vdupq_n_f32(__builtin_inff());
  size_t nb = n / block, g = 0;
  for (; g + 4 <= nb; g += 4) {
    sq_cb s = p + 4 * g * block;
    float32x4_t l0, h0, l1, h1, l2, h2, l3, h3;
    blk_fold_neon(s, block, &l0, &h0);
    blk_fold_neon(s + 4 * block, block, &l1, &h1);
    blk_fold_neon(s + 8 * block, block, &l2, &h2);
    blk_fold_neon(s + 12 * block, block, &l3, &h3);
    float32x4_t rmin = vpminq_f32(vpminq_f32(l0, l1), vpminq_f32(l2, l3));
    float32x4_t rmax = vpmaxq_f32(vpmaxq_f32(h0, h1), vpmaxq_f32(h2, h3));
    uint32x4_t ok = vandq_u32(vcgtq_f32(rmin, ninf), vcltq_f32(rmax, pinf));
    uint32x4_t zero = vorrq_u32(vceqzq_f32(rmin), vceqzq_f32(rmax));
    vst1q_f32(mn + g, rmin);
    vst1q_f32(mx + g, rmax);
    if (vmaxvq_u32(vorrq_u32(vmvnq_u32(ok), zero))) {
      if (vminvq_u32(ok) == 0) return g * block + sq_first_nonfinite(s, 4 * block);
      for (size_t j = 0; j < 4; j++) {
        if (mn[g + j] == 0.0f) mn[g + j] = sq_first_zero(s + 4 * j * block, block);
        if (mx[g + j] == 0.0f) mx[g + j] = sq_first_zero(s + 4 * j * block, block);
      }
    }
  }
  *done = g;
  return n;
}

static size_t minmax_blocks_neon(const void *x, size_t n, size_t block,
                                 float *mn, float *mx) {
  sq_cb p = x;
  /* blocks narrower than a vector: scalar's loop (see x86_avx2.c) */
  if (block < 4 || (sq_fpcr() & SQ_FPCR_MINMAX))
    return sq_kernels_scalar.minmax_blocks(x, n, block, mn, mx);
  /* the common widths with a constant vector count, fully unrolled */
  size_t b = 0, r;
  switch (block) {
    case 4: r = mmb_body_neon(p, n, 4, mn, mx, &b); break;
    case 8: r = mmb_body_neon(p, n, 8, mn, mx, &b); break;
    case 16: r = mmb_body_neon(p, n, 16, mn, mx, &b); break;
    case 32: r = mmb_body_neon(p, n, 32, mn, mx, &b); break;
    default: r = mmb_body_neon(p, n, block, mn, mx, &b); break;
  }
  if (r < n) return r;
  /* the last (fewer than 4) blocks, and the short one, one minmax each */
  for (size_t start = b * block; start < n; start += block, b++) {
    size_t len = n - start < block ? n - start : block;
    size_t bad = minmax_neon(p + 4 * start, len, &mn[b], &mx[b]);
    if (bad < len) return start + bad;
  }
  return n;
}

const sq_kernels sq_kernels_neon = SQ_KERNEL_TABLE(neon);

#else
typedef int sq_unused_neon;
#endif
