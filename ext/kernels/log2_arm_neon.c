/*
** log2_arm_neon.c: the log2 code kernels for aarch64 AdvSIMD
** (sq_log2_kernels_neon), little-endian only, as arm_neon.c.
**
** Rules (each function returns exactly scalar's bytes and value):
**   1. quantize: eight floats at a time (two vectors) with integer
**      operations, as sq_log2_code does; subnormal magnitudes go through
**      vcvtq_f32_u32 of their integer bits, exact below 2^23 whatever FPCR
**      says; a block holding a NaN is redone by scalar from its start, so
**      the returned index and the bytes before it are scalar's;
**   2. dequantize: eight codes widened to int32; the normal power
**      (n + 127) << 23 or the subnormal one 1 << (n + 149), where vshlq's
**      right shift for a negative count gives the 0 that 2^-150 and below
**      round to; zero for q = 0, the sign bit for q < 0;
**   3. the interleaved layouts and tails are scalar's.
*/
#include "kernels/kernels_internal.h"

#if defined(__aarch64__) && !defined(SQ_SCALAR_ONLY) && !SQ_BIG_ENDIAN

#include <arm_neon.h>

/* The codes of four floats at p (none NaN). */
static inline int32x4_t sq_log2_codes4(sq_cb p, int32x4_t top, int32x4_t kmaxv) {
  uint32x4_t u = vreinterpretq_u32_u8(vld1q_u8(p));
  uint32x4_t a = vandq_u32(u, vdupq_n_u32(0x7fffffffu));
  uint32x4_t sub = vcltq_u32(a, vdupq_n_u32(0x00800000u));
  uint32x4_t af = vreinterpretq_u32_f32(vcvtq_f32_u32(a));
  uint32x4_t b = vbslq_u32(sub, af, a);
  int32x4_t e = vreinterpretq_s32_u32(
      vshrq_n_u32(vaddq_u32(b, vdupq_n_u32(SQ_LOG2_ROUND_ADD)), 23));
  e = vsubq_s32(e, vdupq_n_s32(127));
  e = vsubq_s32(e, vreinterpretq_s32_u32(vandq_u32(sub, vdupq_n_u32(149))));
  int32x4_t k = vmaxq_s32(vsubq_s32(top, e), vdupq_n_s32(1));
  k = vbicq_s32(k, vreinterpretq_s32_u32(vcgtq_s32(k, kmaxv)));
  uint32x4_t neg = vcltq_s32(vreinterpretq_s32_u32(u), vdupq_n_s32(0));
  return vbslq_s32(neg, vnegq_s32(k), k);
}

static size_t sq_log2_quantize_neon(const void *x, size_t n, int32_t emax,
                                    int32_t kmax, void *q) {
  sq_cb src = x;
  int8_t *dst = q;
  const int32x4_t top = vdupq_n_s32(emax + 1), kmaxv = vdupq_n_s32(kmax);
  const uint32x4_t abs_mask = vdupq_n_u32(0x7fffffffu), inf = vdupq_n_u32(0x7f800000u);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint32x4_t a0 = vandq_u32(vreinterpretq_u32_u8(vld1q_u8(src + 4 * i)), abs_mask);
    uint32x4_t a1 = vandq_u32(vreinterpretq_u32_u8(vld1q_u8(src + 4 * i + 16)), abs_mask);
    if (vmaxvq_u32(vorrq_u32(vcgtq_u32(a0, inf), vcgtq_u32(a1, inf))) != 0)
      return i + sq_kernels_scalar.log2->quantize(src + 4 * i, n - i, emax, kmax,
                                                  dst + i);
    int32x4_t k0 = sq_log2_codes4(src + 4 * i, top, kmaxv);
    int32x4_t k1 = sq_log2_codes4(src + 4 * i + 16, top, kmaxv);
    vst1_s8(dst + i, vmovn_s16(vcombine_s16(vmovn_s32(k0), vmovn_s32(k1))));
  }
  if (i < n)
    return i + sq_kernels_scalar.log2->quantize(src + 4 * i, n - i, emax, kmax,
                                                dst + i);
  return n;
}

/* The float32 bits of four codes. */
static inline uint32x4_t sq_log2_bits4(int32x4_t c, int32x4_t top) {
  int32x4_t e = vsubq_s32(top, vabsq_s32(c));
  uint32x4_t normal = vreinterpretq_u32_s32(vshlq_n_s32(vaddq_s32(e, vdupq_n_s32(127)), 23));
  uint32x4_t tiny = vshlq_u32(vdupq_n_u32(1), vaddq_s32(e, vdupq_n_s32(149)));
  uint32x4_t bits = vbslq_u32(vcgtq_s32(e, vdupq_n_s32(-127)), normal, tiny);
  bits = vbicq_u32(bits, vceqq_s32(c, vdupq_n_s32(0)));
  return vorrq_u32(bits, vandq_u32(vcltq_s32(c, vdupq_n_s32(0)),
                                   vdupq_n_u32(0x80000000u)));
}

static void sq_log2_dequantize_neon(const void *q, size_t n, int32_t emax,
                                    void *y) {
  const int8_t *src = q;
  sq_b dst = y;
  const int32x4_t top = vdupq_n_s32(emax + 1);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    int16x8_t c = vmovl_s8(vld1_s8(src + i));
    vst1q_u8(dst + 4 * i, vreinterpretq_u8_u32(sq_log2_bits4(vmovl_s16(vget_low_s16(c)), top)));
    vst1q_u8(dst + 4 * i + 16,
             vreinterpretq_u8_u32(sq_log2_bits4(vmovl_s16(vget_high_s16(c)), top)));
  }
  if (i < n) sq_kernels_scalar.log2->dequantize(src + i, n - i, emax, dst + 4 * i);
}

const sq_log2_kernels sq_log2_kernels_neon = {
  sq_log2_quantize_neon, sq_log2_quantize_il_scalar, sq_log2_dequantize_neon,
  sq_log2_dequantize_il_scalar,
};

#endif
