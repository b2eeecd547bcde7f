/*
** scalar.c: the reference implementation of every kernel.
**
** This file *is* the numeric contract (docs/NUMERICS.md#quantize,
** docs/NUMERICS.md#dequantize and docs/NUMERICS.md#determinism): the vector
** paths must return exactly what these loops return, for every input.
** Rules it follows, and that the others copy:
**   1. quantize: NaN check, y = x*inv (or x/scale) + add, clamp y in float
**      to [lo, hi], round half to even, add zp - (int32_t)add as an integer
**      (add is 0, lo = qmin-zp and hi = qmax-zp, except under
**      rounding=tutorial: docs/NUMERICS.md#the-tutorials-formula);
**      32-bit codes round, then add zp and clamp in double;
**   2. rounding to an integer never consults the FPU rounding mode
**      (sq_round_even below is built from truncation and comparisons);
**   3. no FMA: the build uses -ffp-contract=off.
*/
#include <math.h>
#include "kernels/kernels_internal.h"

static inline int sq_is_finite_bits(uint32_t u) {
  return (u & 0x7f800000u) != 0x7f800000u;
}

/* Round half to even without the FPU rounding mode.  Values of magnitude
** 2^23 or more are already integers (or infinite) and pass through. */
static inline float sq_round_even(float y) {
  if (!(y < 0x1p23f && y > -0x1p23f)) return y;
  int32_t i = (int32_t)y;               /* truncation toward zero: exact */
  float d = y - (float)i;               /* exact, |d| < 1 */
  int odd = i & 1;
  /* Comparisons as 0/1 values rather than branches: rounding directions are
  ** data-dependent and would mispredict. */
  i += (d > 0.5f) | ((d == 0.5f) & odd);
  i -= (d < -0.5f) | ((d == -0.5f) & odd);
  return (float)i;
}

/* Clamped and rounded code before the zero point, for codes up to 16 bits:
** lo and hi are integers, so clamping before rounding equals clamping after.
** Adding add = +0.0f (every rounding but the tutorial's) changes nothing: y
** is not NaN, y + 0 is y exactly, and -0 + 0 = +0 rounds to the same code. */
static inline int32_t sq_code_small(float v, float scale, float inv, float add,
                                    float lo, float hi, int divide) {
  float y = (divide ? v / scale : v * inv) + add;
  if (y < lo) y = lo;
  if (y > hi) y = hi;
  return (int32_t)sq_round_even(y);
}

/* 32-bit codes: round in float, add the zero point and clamp in double so that
** every representable code is exact (docs/NUMERICS.md#quantize). */
static inline int32_t sq_code_i32(float v, float scale, float inv, int32_t zp,
                                  int32_t qmin, int32_t qmax, int divide) {
  float y = divide ? v / scale : v * inv;
  double d = (double)sq_round_even(y) + (double)zp;
  if (d < (double)qmin) d = (double)qmin;
  if (d > (double)qmax) d = (double)qmax;
  return (int32_t)d;
}

static void sq_store_i8(void *q, size_t i, int32_t c) {
  ((unsigned char *)q)[i] = (unsigned char)(c & 0xff);
}
static void sq_store_i16(void *q, size_t i, int32_t c) {
  sq_store_u16((unsigned char *)q + 2 * i, (uint16_t)(c & 0xffff));
}
static void sq_store_i32(void *q, size_t i, int32_t c) {
  sq_store_u32((unsigned char *)q + 4 * i, (uint32_t)c);
}

/* ---- min / max ---------------------------------------------------------- */

static size_t minmax_scalar(const void *x, size_t n, float *mn, float *mx) {
  const unsigned char *p = x;
  if (n == 0) return 0;
  float lo = sq_load_f32(p), hi = lo;
  for (size_t i = 0; i < n; i++) {
    uint32_t u = sq_load_u32(p + 4 * i);
    if (!sq_is_finite_bits(u)) return i;
    float v;
    memcpy(&v, &u, 4);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  *mn = lo;
  *mx = hi;
  return n;
}

static size_t minmax_interleaved_scalar(const void *x, size_t rows,
                                        size_t channels, float *mn, float *mx) {
  const unsigned char *p = x;
  for (size_t r = 0; r < rows; r++) {
    for (size_t c = 0; c < channels; c++) {
      size_t i = r * channels + c;
      uint32_t u = sq_load_u32(p + 4 * i);
      if (!sq_is_finite_bits(u)) return i;
      float v;
      memcpy(&v, &u, 4);
      if (v < mn[c]) mn[c] = v;
      if (v > mx[c]) mx[c] = v;
    }
  }
  return rows * channels;
}

/* ---- quantize ------------------------------------------------------------ */

#define SQ_DEFINE_QUANTIZE_SMALL(CODE, STORE)                                  \
  static size_t quantize_##CODE##_scalar(const void *x, size_t n,              \
                                         const sq_qparams *p, void *q) {       \
    const unsigned char *src = x;                                              \
    for (size_t i = 0; i < n; i++) {                                           \
      float v = sq_load_f32(src + 4 * i);                                      \
      if (v != v) return i;                                                    \
      STORE(q, i, sq_code_small(v, p->scale, p->inv, p->add, p->lo, p->hi,     \
                                p->divide) + p->zp - (int32_t)p->add);         \
    }                                                                          \
    return n;                                                                  \
  }                                                                            \
  static size_t quantize_##CODE##_il_scalar(const void *x, size_t rows,         \
                                   const sq_channel_params *p, void *q) {      \
    const unsigned char *src = x;                                              \
    size_t i = 0;                                                              \
    for (size_t r = 0; r < rows; r++) {                                        \
      for (size_t c = 0; c < p->channels; c++, i++) {                          \
        float v = sq_load_f32(src + 4 * i);                                    \
        if (v != v) return i;                                                  \
        STORE(q, i, sq_code_small(v, p->scale[c], p->inv[c], p->add[c],        \
                                  p->lo[c], p->hi[c], p->divide) + p->zp[c] -  \
                                  (int32_t)p->add[c]);                         \
      }                                                                        \
    }                                                                          \
    return i;                                                                  \
  }

SQ_DEFINE_QUANTIZE_SMALL(i8, sq_store_i8)
SQ_DEFINE_QUANTIZE_SMALL(i16, sq_store_i16)

static size_t quantize_i32_scalar(const void *x, size_t n, const sq_qparams *p,
                                  void *q) {
  const unsigned char *src = x;
  for (size_t i = 0; i < n; i++) {
    float v = sq_load_f32(src + 4 * i);
    if (v != v) return i;
    sq_store_i32(q, i, sq_code_i32(v, p->scale, p->inv, p->zp, p->qmin,
                                   p->qmax, p->divide));
  }
  return n;
}

static size_t quantize_i32_il_scalar(const void *x, size_t rows,
                                              const sq_channel_params *p,
                                              void *q) {
  const unsigned char *src = x;
  size_t i = 0;
  for (size_t r = 0; r < rows; r++) {
    for (size_t c = 0; c < p->channels; c++, i++) {
      float v = sq_load_f32(src + 4 * i);
      if (v != v) return i;
      sq_store_i32(q, i, sq_code_i32(v, p->scale[c], p->inv[c], p->zp[c],
                                     p->qmin, p->qmax, p->divide));
    }
  }
  return i;
}

/* ---- dequantize ---------------------------------------------------------- */

static inline int32_t sq_load_code(const unsigned char *q, size_t i,
                                   sq_code_type t) {
  switch (t) {
    case SQ_CODE_I8: return (int8_t)q[i];
    case SQ_CODE_U8: return q[i];
    case SQ_CODE_I16: return (int16_t)sq_load_u16(q + 2 * i);
    case SQ_CODE_U16: return sq_load_u16(q + 2 * i);
    default: return (int32_t)sq_load_u32(q + 4 * i);
  }
}

/* (q - zp) is formed in 64 bits: for 32-bit codes it can exceed int32. */
static inline float sq_dequant_one(int32_t code, float scale, int32_t zp) {
  return (float)((int64_t)code - zp) * scale;
}

#define SQ_DEFINE_DEQUANTIZE(CODE, TYPE)                                       \
  static void dequantize_##CODE##_scalar(const void *q, size_t n, float scale, \
                                         int32_t zp,                           \
                   void *y) {                                                  \
    unsigned char *dst = y;                                                    \
    for (size_t i = 0; i < n; i++)                                             \
      sq_store_f32(dst + 4 * i, sq_dequant_one(sq_load_code(q, i, TYPE),       \
                                               scale, zp));                    \
  }                                                                            \
  static void dequantize_##CODE##_il_scalar(const void *q, size_t rows,       \
                                 const sq_channel_params *p, void *y) {        \
    unsigned char *dst = y;                                                    \
    size_t i = 0;                                                              \
    for (size_t r = 0; r < rows; r++)                                          \
      for (size_t c = 0; c < p->channels; c++, i++)                            \
        sq_store_f32(dst + 4 * i,                                              \
                     sq_dequant_one(sq_load_code(q, i, TYPE), p->scale[c],     \
                                    p->zp[c]));                                \
  }

SQ_DEFINE_DEQUANTIZE(i8, SQ_CODE_I8)
SQ_DEFINE_DEQUANTIZE(u8, SQ_CODE_U8)
SQ_DEFINE_DEQUANTIZE(i16, SQ_CODE_I16)
SQ_DEFINE_DEQUANTIZE(u16, SQ_CODE_U16)
SQ_DEFINE_DEQUANTIZE(i32, SQ_CODE_I32)

/* ---- 4-bit packing ------------------------------------------------------- */

static void pack4_scalar(const void *codes, size_t n, void *packed) {
  const unsigned char *c = codes;
  unsigned char *dst = packed;
  for (size_t i = 0; i + 1 < n; i += 2)
    dst[i / 2] = (unsigned char)((c[i] & 0x0f) | ((c[i + 1] & 0x0f) << 4));
  if (n & 1) dst[n / 2] = (unsigned char)(c[n - 1] & 0x0f);
}

static void unpack4_scalar(const void *packed, size_t n, int is_signed,
                           void *codes) {
  const unsigned char *src = packed;
  unsigned char *c = codes;
  for (size_t i = 0; i < n; i++) {
    unsigned nib = (src[i / 2] >> ((i & 1) * 4)) & 0x0f;
    c[i] = (unsigned char)(is_signed && nib >= 8 ? nib | 0xf0 : nib);
  }
}

/* ---- half formats -------------------------------------------------------- */

float sq_f16_to_f32_scalar(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0x1f) {                      /* inf, or NaN made quiet */
    bits = sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0);
  } else if (exp != 0) {                  /* normal: rebias 15 -> 127 */
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {                                /* subnormal: normalise */
    uint32_t e = 113;
    while (!(man & 0x400u)) {
      man <<= 1;
      e--;
    }
    bits = sign | (e << 23) | ((man & 0x3ffu) << 13);
  }
  return sq_bits_f32(bits);
}

uint16_t sq_f32_to_f16_scalar(float f) {
  uint32_t x = sq_f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u)                   /* NaN: quiet, top payload bits */
    return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u)                  /* >= 65520 rounds to inf */
    return (uint16_t)(sign | 0x7c00u);
  if (ax >= 0x38800000u) {                /* f16 normal range */
    uint32_t r = ax - 0x38000000u;        /* rebias 127 -> 15 */
    r += 0xfffu + ((r >> 13) & 1u);       /* round half to even */
    return (uint16_t)(sign | (r >> 13));
  }
  if (ax <= 0x33000000u) return sign;     /* <= 2^-25 rounds to zero */
  uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - e;              /* 14..24 */
  uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) q++;
  return (uint16_t)(sign | q);
}

float sq_bf16_to_f32_scalar(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  if ((bits & 0x7fffffffu) > 0x7f800000u) bits |= 0x00400000u;
  return sq_bits_f32(bits);
}

uint16_t sq_f32_to_bf16_scalar(float f) {
  uint32_t x = sq_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u);
  x += 0x7fffu + ((x >> 16) & 1u);        /* round half to even */
  return (uint16_t)(x >> 16);
}

/* Whole arrays through the element conversions above. */
#define SQ_DEFINE_WIDEN(NAME, ELEMENT)                                         \
  static void NAME(const void *h, size_t n, void *f) {                         \
    for (size_t i = 0; i < n; i++)                                             \
      sq_store_f32((unsigned char *)f + 4 * i,                                 \
                   ELEMENT(sq_load_u16((const unsigned char *)h + 2 * i)));    \
  }
#define SQ_DEFINE_NARROW(NAME, ELEMENT)                                        \
  static void NAME(const void *f, size_t n, void *h) {                         \
    for (size_t i = 0; i < n; i++)                                             \
      sq_store_u16((unsigned char *)h + 2 * i,                                 \
                   ELEMENT(sq_load_f32((const unsigned char *)f + 4 * i)));    \
  }
SQ_DEFINE_WIDEN(f16_to_f32_scalar, sq_f16_to_f32_scalar)
SQ_DEFINE_NARROW(f32_to_f16_scalar, sq_f32_to_f16_scalar)
SQ_DEFINE_WIDEN(bf16_to_f32_scalar, sq_bf16_to_f32_scalar)
SQ_DEFINE_NARROW(f32_to_bf16_scalar, sq_f32_to_bf16_scalar)

/* ---- error sums ------------------------------------------------------------ */

/* Adds elements [from, n) into lane arrays (lane = index % SQ_ERROR_LANES),
** then totals every sum in the fixed order into out. */
static void sq_error_sums_finish(const void *a, const void *b, size_t from,
                                 size_t n, double *a2, double *b2, double *ab,
                                 double *d2, double mx, sq_error_sums *out) {
  const unsigned char *pa = a, *pb = b;
  for (size_t i = from; i < n; i++) {
    size_t l = i % SQ_ERROR_LANES;
    double u = (double)sq_load_f32(pa + 4 * i);
    double v = (double)sq_load_f32(pb + 4 * i);
    double d = u - v;
    a2[l] += u * u;
    b2[l] += v * v;
    ab[l] += u * v;
    d2[l] += d * d;
    /* fabs, not a branch (mispredicts on random signs); mx starts at +0 and
    ** -0 never replaces it, so the result is the same. */
    double ad = fabs(d);
    if (ad > mx) mx = ad;
  }
  out->sum_a2 = sq_lanes_total(a2);
  out->sum_b2 = sq_lanes_total(b2);
  out->sum_ab = sq_lanes_total(ab);
  out->sum_d2 = sq_lanes_total(d2);
  out->max_abs_d = mx;
}

static size_t minmax_blocks_scalar(const void *x, size_t n, size_t block,
                                   float *mn, float *mx) {
  const unsigned char *p = x;
  if (block == 0) return 0;                 /* no block holds anything */
  for (size_t start = 0, b = 0; start < n; start += block, b++) {
    size_t len = n - start < block ? n - start : block;
    size_t bad = minmax_scalar(p + 4 * start, len, &mn[b], &mx[b]);
    if (bad < len) return start + bad;
  }
  return n;
}

/* Error sums (see sq_error_sums); a and b hold n float32 each.  Non-finite
** inputs give non-finite sums; callers check. */
static void error_sums_scalar(const void *a, const void *b, size_t n,
                              sq_error_sums *out) {
  double a2[SQ_ERROR_LANES] = {0}, b2[SQ_ERROR_LANES] = {0},
         ab[SQ_ERROR_LANES] = {0}, d2[SQ_ERROR_LANES] = {0};
  sq_error_sums_finish(a, b, 0, n, a2, b2, ab, d2, 0.0, out);
}

/* ---- error sums in lanes ----------------------------------------------- */

/* The same additions as sq_error_sums_finish, in lanes offset by `lane`. */
void sq_error_lanes_scalar(const void *a, const void *b, size_t from, size_t n,
                           size_t lane, sq_error_lanes *acc) {
  const unsigned char *pa = a, *pb = b;
  double mx = acc->max_abs_d;
  for (size_t i = from; i < n; i++) {
    size_t l = (lane + i) % SQ_ERROR_LANES;
    double u = (double)sq_load_f32(pa + 4 * i);
    double v = (double)sq_load_f32(pb + 4 * i);
    double d = u - v;
    acc->a2[l] += u * u;
    acc->b2[l] += v * v;
    acc->ab[l] += u * v;
    acc->d2[l] += d * d;
    double ad = fabs(d);
    if (ad > mx) mx = ad;
  }
  acc->max_abs_d = mx;
}

static void error_lanes_scalar(const void *a, const void *b, size_t n,
                               size_t lane, sq_error_lanes *acc) {
  sq_error_lanes_scalar(a, b, 0, n, lane, acc);
}

void sq_error_lanes_total(const sq_error_lanes *acc, sq_error_sums *out) {
  out->sum_a2 = sq_lanes_total(acc->a2);
  out->sum_b2 = sq_lanes_total(acc->b2);
  out->sum_ab = sq_lanes_total(acc->ab);
  out->sum_d2 = sq_lanes_total(acc->d2);
  out->max_abs_d = acc->max_abs_d;
}

const sq_kernels sq_kernels_scalar = SQ_KERNEL_TABLE(scalar);
