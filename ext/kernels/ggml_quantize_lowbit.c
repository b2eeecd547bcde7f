/*
** ggml_quantize_lowbit.c: the scalar quantizers of ggml's sign, ternary and
** FP4 formats: q1_0, q2_0, tq1_0, tq2_0, mxfp4 and nvfp4
** (docs/NUMERICS.md#ggml), and the shared-exponent rules of the MX producers
** for mxfp4's layout (docs/NUMERICS.md#mx-shared-exponent-rules).
**
** ggml quantizes all six with its reference code whether or not importance
** weights are given (quantize_<type> ignores them), so the importance
** argument is accepted and unused here too.  The bytes must equal what ggml
** 0.25.1 writes on x86-64, on every host:
**   - float operations in ggml's order, each rounded once (no contraction);
**   - ggml's conversions of floats to integers are done as x86-64 and glibc
**     do them, also where the float is infinite or NaN (a subnormal absmax
**     makes 1 / absmax infinite): roundf then a C cast (q2_0) truncates to
**     INT32_MIN; lroundf (tq1_0, tq2_0) returns LONG_MIN, of which ggml keeps
**     the low 32 bits plus one;
**   - mxfp4's exponent is floorf(log2f(amax)) with glibc's log2f, whose
**     rounding to nearest lifts the floor by one for some values just below
**     a power of two (floor_log2f below).
**
** Block layouts (ggml-common.h), fp16 fields little-endian:
**   q1_0  (128)  d, qs[16]: bit j of the row of bits = weight j >= 0
**   q2_0  (64)   d, qs[16]: 2-bit code j at bits 2(j%4) of byte j/4
**   tq1_0 (256)  qs[48] (five trits a byte), qh[4] (four), d
**   tq2_0 (256)  qs[64] (2-bit codes), d
**   mxfp4 (32)   e (E8M0), qs[16]: code j low nibble of byte j, code j+16
**                high nibble
**   nvfp4 (64)   d[4] (UE4M3, one per 16), qs[32]: in sub-block s, code j
**                low nibble of byte 8s + j, code j + 8 its high nibble
*/
#include <math.h>
#include "kernels/ggml_blocks.h"
#include "kernels/ggml_internal.h"
#include "kernels/ggml_lowbit.h"
#include "kernels/ggml_fp4_body.h"

/* ---- integer conversions as x86-64 with glibc makes them ------------------ */

/* Round half away from zero (roundf, lroundf) for |f| < 2^23; the caller
** handles the rest. */
static inline int32_t round_away_small(float f) {
  int32_t t = (int32_t)f;
  float frac = f - (float)t;
  return t + (frac >= 0.5f) - (frac <= -0.5f);
}

/* ggml's `int xi = lroundf(f) + 1`: glibc's lroundf on x86-64 returns a
** 64-bit long, LONG_MIN for NaN, infinities and values outside long; ggml
** adds one and keeps the low 32 bits. */
static inline int lroundf_plus1(float f) {
  float a = fabsf(f);
  if (a < 8388608.0f) return round_away_small(f) + 1;
  if (a < 9223372036854775808.0f)
    return (int)(int32_t)(uint32_t)((uint64_t)(int64_t)f + 1u);
  return (int)(int32_t)(uint32_t)((uint64_t)INT64_MIN + 1u); /* 1 */
}

/* ---- q1_0 and q2_0: one row driver, blocks in groups ------------------------
**
** Both formats are an fp16 d and 16 bytes of codes, code j at bits
** bits * (j % per_byte) of byte j / per_byte.  They differ in the block
** (128 one-bit signs, 64 two-bit codes), in the statistic d comes from and
** in the code rule.  The row is read in groups of up to SQ_LOWBIT_GROUP
** blocks: q1_0's d is a chain of 128 float additions (ggml adds |x| from the
** first weight to the last, and that order is the contract), and the chains
** of different blocks are independent, so a group runs them side by side
** (inner loop over the group's blocks) instead of one after another.  Each
** block's chain is still its own 128 additions in ggml's order: the bytes
** do not depend on how the row falls into groups. */
#define SQ_LOWBIT_GROUP 8

/* A loop unrolled n times (GCC and clang both read GCC's pragma; another
** compiler ignores it). */
#define SQ_PRAGMA(x) _Pragma(#x)
#if defined(__GNUC__)
#define SQ_UNROLL(n) SQ_PRAGMA(GCC unroll n)
#else
#define SQ_UNROLL(n)
#endif

enum { LOWBIT_Q1_0, LOWBIT_Q2_0 };

/* The block's d statistic, per block of the group xb (g blocks of blk). */
SQ_AI void lowbit_stats(int fmt, const float *xb, int blk, int g, float *st) {
  if (fmt == LOWBIT_Q1_0) {
    float sum[SQ_LOWBIT_GROUP];
    for (int k = 0; k < g; k++) sum[k] = 0.0f;
    for (int j = 0; j < blk; j++) {
      /* Unrolled, the group's sums stay in registers. */
      SQ_UNROLL(8)
      for (int k = 0; k < g; k++) sum[k] += fabsf(xb[k * blk + j]);
    }
    for (int k = 0; k < g; k++) st[k] = sum[k] / 128.0f; /* the mean |x| */
  } else {
    for (int k = 0; k < g; k++) st[k] = sq_absmax8(xb + k * blk, blk);
  }
}

/* The codes of one block from its statistic st. */
SQ_AI void lowbit_codes(int fmt, const float *xb, int blk, float st,
                        int32_t *q) {
  if (fmt == LOWBIT_Q1_0) {
    /* x >= 0 is true for -0.0 too: a zero weight dequantizes to +d. */
    for (int j = 0; j < blk; j++) q[j] = xb[j] >= 0.0f;
    return;
  }
  /* q2_0: the codes use the float32 scale; only the stored one is fp16.
  ** With a finite 1/amax, |x / amax| <= 1 + 2^-23, so roundf gives -1, 0
  ** or 1 and the code is 1 + (v >= 0.5) - (v <= -0.5) (NaN cannot occur).
  ** An infinite 1/amax gives x86's INT32_MIN for every weight (inf, or
  ** NaN for 0 * inf): code 0 after the clamp. */
  float id = st > 0.0f ? 1.0f / st : 0.0f;
  if (id - id == 0.0f) {
    for (int j = 0; j < blk; j++) {
      float v = xb[j] * id;
      q[j] = 1 + (v >= 0.5f) - (v <= -0.5f);
    }
  } else {
    for (int j = 0; j < blk; j++) q[j] = 0;
  }
}

SQ_AI void lowbit_row(int fmt, const void *x, size_t n, void *blocks) {
  const int blk = fmt == LOWBIT_Q1_0 ? 128 : 64;
  const int bits = fmt == LOWBIT_Q1_0 ? 1 : 2, per = 8 / bits;
  sq_cb src = x;
  sq_b dst = blocks;
  size_t nb = n / (size_t)blk;
  while (nb > 0) {
    int g = nb >= SQ_LOWBIT_GROUP ? SQ_LOWBIT_GROUP : (int)nb;
    float xb[SQ_LOWBIT_GROUP * 128], st[SQ_LOWBIT_GROUP];
    for (int j = 0; j < g * blk; j++) xb[j] = sq_load_f32(src + 4 * j);
    /* A full group with a constant count, so that its chains are unrolled
    ** into registers. */
    if (g == SQ_LOWBIT_GROUP) lowbit_stats(fmt, xb, blk, SQ_LOWBIT_GROUP, st);
    else lowbit_stats(fmt, xb, blk, g, st);
    for (int k = 0; k < g; k++, dst += 18) {
      int32_t q[128];
      lowbit_codes(fmt, xb + k * blk, blk, st[k], q);
      sq_store_u16(dst, sq_ggml_fp16(st[k]));
      for (int b = 0; b < 16; b++) {
        unsigned byte = 0;
        SQ_UNROLL(8)
        for (int i = 0; i < per; i++)
          byte |= (unsigned)q[per * b + i] << (bits * i);
        dst[2 + b] = (unsigned char)byte;
      }
    }
    src += 4 * (size_t)(g * blk);
    nb -= (size_t)g;
  }
}

void sq_ggml_quantize_q1_0(const void *x, size_t n, const void *importance,
                           void *blocks) {
  (void)importance;
  lowbit_row(LOWBIT_Q1_0, x, n, blocks);
}

void sq_ggml_quantize_q2_0(const void *x, size_t n, const void *importance,
                           void *blocks) {
  (void)importance;
  lowbit_row(LOWBIT_Q2_0, x, n, blocks);
}

/* ---- tq1_0, tq2_0: ternary over 256 ---------------------------------------- */

/* The block's absmax and the trits t = lroundf(x / amax) + 1 (0, 1, 2 for
** finite scales; an infinite 1 / amax gives ggml's 1 everywhere). */
static float ternary_trits(sq_cb src, int *trit) {
  float xb[256];
  for (int j = 0; j < 256; j++) xb[j] = sq_load_f32(src + 4 * j);
  float amax = sq_absmax8(xb, 256);
  float id = amax != 0.0f ? 1.0f / amax : 0.0f;
  /* With a finite 1/amax, |x / amax| <= 1 + 2^-23: lroundf gives -1, 0 or 1,
  ** so the trit is 1 + (v >= 0.5) - (v <= -0.5).  An infinite 1/amax makes
  ** every product infinite or NaN: lroundf's LONG_MIN, trit 1. */
  if (id - id == 0.0f) {
    for (int j = 0; j < 256; j++) {
      float v = xb[j] * id;
      trit[j] = 1 + (v >= 0.5f) - (v <= -0.5f);
    }
  } else {
    for (int j = 0; j < 256; j++) trit[j] = lroundf_plus1(xb[j] * id);
  }
  return amax;
}

/* Five (or four, then times 3) trits t0..t4 as the byte ceil(v * 256 / 243),
** v = t0 * 81 + t1 * 27 + ... + t4, each step kept to 8 bits as ggml's
** uint8_t accumulator does. */
static unsigned char pack_trits(const int *t, size_t stride, int count) {
  uint8_t q = 0;
  for (int k = 0; k < count; k++) q = (uint8_t)(q * 3 + t[(size_t)k * stride]);
  if (count == 4) q = (uint8_t)(q * 3);
  return (unsigned char)(((unsigned)q * 256u + 242u) / 243u);
}

void sq_ggml_quantize_tq1_0(const void *x, size_t n, const void *importance,
                            void *blocks) {
  (void)importance;
  sq_cb src = x;
  sq_b dst = blocks;
  for (size_t ib = 0; ib < n / 256; ib++, src += 4 * 256, dst += 54) {
    int t[256];
    float amax = ternary_trits(src, t);
    /* qs[0..31]: weights m + 32k (k = 0..4) of the first 160; qs[32..47]:
    ** weights 160 + m + 16k of the next 80; qh[0..3]: weights 240 + j + 4k
    ** (k = 0..3). */
    for (int m = 0; m < 32; m++) dst[m] = pack_trits(t + m, 32, 5);
    for (int m = 0; m < 16; m++) dst[32 + m] = pack_trits(t + 160 + m, 16, 5);
    for (int j = 0; j < 4; j++) dst[48 + j] = pack_trits(t + 240 + j, 4, 4);
    sq_store_u16(dst + SQ_TQ1_0_D, sq_ggml_fp16(amax));
  }
}

void sq_ggml_quantize_tq2_0(const void *x, size_t n, const void *importance,
                            void *blocks) {
  (void)importance;
  sq_cb src = x;
  sq_b dst = blocks;
  for (size_t ib = 0; ib < n / 256; ib++, src += 4 * 256, dst += 66) {
    int t[256];
    float amax = ternary_trits(src, t);
    /* Byte 32h + m: weights 128h + m + 32k at bits 2k (k = 0..3). */
    for (int h = 0; h < 2; h++)
      for (int m = 0; m < 32; m++) {
        unsigned byte = 0;
        for (int k = 0; k < 4; k++)
          byte += ((unsigned)t[128 * h + m + 32 * k] & 3u) << (2 * k);
        dst[32 * h + m] = (unsigned char)byte;
      }
    sq_store_u16(dst + SQ_TQ2_0_D, sq_ggml_fp16(amax));
  }
}

/* ---- FP4: mxfp4 and nvfp4 --------------------------------------------------- */

/* The E2M1 value of code c, doubled (so an integer): sign bit 3, exponent
** bits 2-1, mantissa bit 0; exponent 0 is subnormal (m / 2), else
** 2^(e-1) * (1 + m / 2).  Doubled: m for e = 0, (2 + m) << (e - 1) else. */
#define E2M1X2_MAG(c) \
  (((c) >> 1 & 3) ? (2 + ((c) & 1)) << (((c) >> 1 & 3) - 1) : ((c) & 1))
#define E2M1X2(c) ((float)(((c) & 8) ? -E2M1X2_MAG(c) : E2M1X2_MAG(c)))
const float sq_e2m1x2[16] = {
  E2M1X2(0), E2M1X2(1), E2M1X2(2), E2M1X2(3), E2M1X2(4), E2M1X2(5),
  E2M1X2(6), E2M1X2(7), E2M1X2(8), E2M1X2(9), E2M1X2(10), E2M1X2(11),
  E2M1X2(12), E2M1X2(13), E2M1X2(14), E2M1X2(15),
};

int sq_floor_log2f(float a) {
  uint32_t u = sq_f32_bits(a);
  int bexp = (int)(u >> 23);
  uint32_t man = u & 0x7fffffu;
  int e; /* floor(log2 a), exactly */
  /* A normal a more than 256 float steps below the next power of two is
  ** far from it (the closest that rounds up is 88 steps below 2^128). */
  if (bexp != 0 && man < 0x7fff00u) return bexp - 127;
  if (bexp == 0) {
    e = -150;
    for (uint32_t m = man; m; m >>= 1) e++;
  } else {
    e = bexp - 127;
  }
  /* log2 a lies in [e, e + 1); glibc's log2f returns the nearest float,
  ** which is e + 1 when log2 a is within half a float spacing of it.  Only
  ** a within 2^-16 (relative) of 2^(e+1) can be that close. */
  int k = e + 1;
  double p = ldexp(1.0, k), delta = (p - (double)a) / p; /* exact */
  if (delta > 0x1p-15) return e;
  /* Spacing of floats next to k on the side of log2 a (below k when k > 0,
  ** beyond it when k < 0): 2^(exponent of |k|, or of |k| - 1 when k is a
  ** positive power of two) - 23. */
  if (k == 0) return e;
  int mag = k > 0 ? k - 1 : -k; /* |log2 a| just short of / past |k| */
  int top = 0;
  while ((mag >> top) > 1) top++;
  if (k > 0 && mag == 0) return e; /* k = 1: log2 a in [0, 1) */
  double half = ldexp(1.0, top - 24);
  /* -log2(1 - delta) = delta / ln 2 * (1 + delta / 2 + ...): rounds up to
  ** k when it is at most half (never equal: ln 2 is irrational, and the
  ** nearest case is 9% of a step away, far beyond these terms' error). */
  double dist = delta * (1.0 + delta * 0.5) / 0.69314718055994530942;
  return dist <= half ? k : e;
}

/* ---- MX shared-exponent rules (docs/NUMERICS.md#mx-shared-exponent-rules) --- */

/* The float32 fields of a: biased exponent and mantissa. */
static inline unsigned f32_field(float a) { return (sq_f32_bits(a) >> 23) & 0xffu; }
static inline uint32_t f32_mant(float a) { return sq_f32_bits(a) & 0x7fffffu; }

/* e limited to E8M0's exponents -127..hi, biased. */
static inline unsigned e8m0_biased(int e, int hi) {
  return (unsigned)(sq_ggml_clamp_int(e, -127, hi) + 127);
}

/* round(log2 s), ties to even, for s > 0 finite, with log2 s rounded to the
** nearest float first (as a float32 log2 returns it).  The integer part is
** the exponent; the fraction decides against 2^(e + 1/2), where the float
** rounding of log2 matters only within half a float step of e + 1/2. */
static int rint_log2f(float s) {
  double l = log2((double)s);     /* within an ulp of double: far finer */
  float f = (float)l;             /* than the float steps that matter */
  float r = f - floorf(f);
  int fl = (int)floorf(f);
  if (r > 0.5f) return fl + 1;
  if (r < 0.5f) return fl;
  return (fl & 1) ? fl + 1 : fl;  /* exactly e + 1/2: to even */
}

/* MLX's unbiased exponent: rint(log2(amax / 6)), 0 for a zero scale. */
static int mlx_exponent(float amax) {
  float s = amax / 6.0f;
  return s == 0.0f ? 0 : rint_log2f(s);
}

unsigned sq_mx_exponent(int rule, float amax) {
  switch (rule) {
    case SQ_MX_OCP: {
      /* floor(log2 amax) - 2, exactly (from the bits), in -127..127; 0 for
      ** amax = 0.  A subnormal amax is below 2^-126: always the floor. */
      if (!(amax > 0.0f)) return 0;
      int e = f32_field(amax) == 0 ? -127 : (int)f32_field(amax) - 127;
      return e8m0_biased(e - 2, 127);
    }
    case SQ_MX_TORCHAO_CEIL: {
      /* torchao CEIL: the exponent field, plus one when any mantissa bit is
      ** set, minus 127 + 2, in -127..128. */
      int e = (int)f32_field(amax) - 127 + (f32_mant(amax) != 0);
      return e8m0_biased(e - 2, 128);
    }
    case SQ_MX_TORCHAO_EVEN: {
      /* torchao EVEN: amax rounded to FP4's one mantissa bit first (its bits
      ** plus 2^21, mantissa cleared), then as the floor; a carry out of
      ** the largest exponent makes the rounded amax infinite: the NaN scale
      ** 0xff. */
      uint32_t r = (sq_f32_bits(amax) + (1u << 21)) & 0xff800000u;
      if ((r >> 23) == 0xffu) return 0xffu;
      return e8m0_biased((int)(r >> 23) - 127 - 2, 128);
    }
    case SQ_MX_TORCHAO_RCEIL: {
      /* torchao RCEIL (cuBLAS's rule): descale = amax * float(1/6) rounded up
      ** to a power of two: its exponent field, plus one when a normal has
      ** any mantissa bit or a subnormal exceeds 2^-127. */
      float descale = amax * (float)(1.0 / 6.0);
      unsigned f = f32_field(descale);
      uint32_t m = f32_mant(descale);
      return f + (f == 0 ? m > 0x400000u : m != 0);
    }
    case SQ_MX_MLX: {
      /* MLX (mx.quantize, mode "mxfp4"): scale = amax / 6, exponent
      ** rint(log2 scale), 0 for a zero scale, plus 127 kept to 8 bits (no
      ** clamp). */
      return (unsigned)(mlx_exponent(amax) + 127) & 0xffu;
    }
    default:
      /* ggml: (uint8_t)(floorf(log2f(amax)) - 2 + 127), 0 for amax = 0; the
      ** cast an x86 truncation keeping the low byte (amax < 2^-125 wraps). */
      if (!(amax > 0.0f)) return 0;
      return (unsigned)(sq_floor_log2f(amax) + 125) & 0xffu;
  }
}

/* OCP and torchao: y = x * 2^(127 - e) (exact: a power of two, but for the
** rounding of a subnormal product), rounded to the nearest E2M1 value, ties
** to the even code, |y| >= 6 saturating to 6, the sign kept (-0 is code 8). */
static uint8_t e2m1_rne(float y) {
  static const float mid[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  float a = fabsf(y);
  unsigned c = 0;
  for (int i = 0; i < 7; i++) c += (a > mid[i]) | ((a == mid[i]) & (i & 1));
  return (uint8_t)(c | ((sq_f32_bits(y) >> 28) & 8u));
}

/* mxfp4 blocks with the E8M0 byte each block's absmax gives under rule, and
** the rule's codes: ggml's and MLX's search (the first code of least error),
** the others' round to nearest even. */
void sq_mx_quantize(int rule, const void *x, size_t n, void *blocks) {
  sq_cb src = x;
  sq_b dst = blocks;
  for (size_t ib = 0; ib < n / 32; ib++, src += 4 * 32, dst += 17) {
    float xb[32];
    uint8_t code[32];
    for (int j = 0; j < 32; j++) xb[j] = sq_load_f32(src + 4 * j);
    float amax = sq_fp4_absmax(xb, 32);
    unsigned e = sq_mx_exponent(rule, amax);
    dst[0] = (unsigned char)e;
    if (rule == SQ_MX_GGML) {
      sq_fp4_codes(xb, 32, sq_e8m0_half(e), code);
    } else if (rule == SQ_MX_MLX) {
      /* x / 2^(e - 127) against the E2M1 values: the doubled ones times 1/2. */
      float scale = ldexpf(1.0f, mlx_exponent(amax)); /* before the wrap */
      for (int j = 0; j < 32; j++) xb[j] = xb[j] / scale;
      sq_fp4_codes(xb, 32, 0.5f, code);
    } else if (e == 0xffu) {
      /* torchao's NaN scale: its bit arithmetic on the NaN products gives
      ** code 3 (x86-64's NaN, positive). */
      for (int j = 0; j < 32; j++) code[j] = 3;
    } else {
      float inv = ldexpf(1.0f, 127 - (int)e);
      for (int j = 0; j < 32; j++) code[j] = e2m1_rne(xb[j] * inv);
    }
    for (int j = 0; j < 16; j++)
      dst[1 + j] = (unsigned char)(code[j] | code[j + 16] << 4);
  }
}

void sq_ggml_quantize_mxfp4(const void *x, size_t n, const void *importance,
                            void *blocks) {
  (void)importance;
  sq_fp4_mxfp4_row(x, n, blocks);
}

void sq_ggml_quantize_nvfp4(const void *x, size_t n, const void *importance,
                            void *blocks) {
  (void)importance;
  sq_fp4_nvfp4_row(x, n, blocks);
}

#undef SQ_UNROLL
#undef SQ_PRAGMA
