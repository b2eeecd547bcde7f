/*
** float8.c: float32 to and from the four float8 codes, as ONNX
** QuantizeLinear / DequantizeLinear (opset 19 and later) compute them in
** ONNX Runtime 1.30 (docs/NUMERICS.md#float8-codes).
**
**   1. quantize: t = x / scale in float32 (one IEEE division), then t to the
**      format rounding to nearest, ties to even, on t's float32 bits;
**      float32 subnormals give zero; NaN gives the format's NaN;
**   2. saturate=1 sends every finite value above the largest finite code,
**      and infinity, to the largest finite code of t's sign; saturate=0
**      sends them to infinity (e5m2) or NaN (the others), with ONNX
**      Runtime's two exceptions: e4m3fn keeps 448 for 480 <= |t| < 496,
**      e5m2 gives NaN for 61440 <= |t| < 65536;
**   3. the fnuz formats have one zero and one NaN (0x80): a negative value
**      that rounds to zero is +0;
**   4. dequantize: the code's exact float32 value times scale (one float32
**      rounding); a NaN code gives the quiet NaN 0x7FC00000 with the code's
**      sign bit (fnuz: 0xFFC00000).
** Integers only but the division and the product, so every host and path
** agrees bit for bit.
*/
#include "kernels/kernels_internal.h"

typedef struct sq_f8_format {
  unsigned mbits;           /* mantissa bits */
  int bias;
  unsigned maxc;            /* magnitude code of the largest finite value */
  int fnuz;                 /* one zero, NaN 0x80, no infinity */
  int has_inf;              /* 0x7C is infinity (e5m2) */
} sq_f8_format;

static const sq_f8_format sq_f8_formats[SQ_F8_NFORMATS] = {
  {3, 7, 0x7E, 0, 0},       /* SQ_F8_NONE: unused */
  {3, 7, 0x7E, 0, 0},       /* e4m3fn: max 448 */
  {3, 8, 0x7F, 1, 0},       /* e4m3fnuz: max 240 */
  {2, 15, 0x7B, 0, 1},      /* e5m2: max 57344 */
  {2, 16, 0x7F, 1, 0},      /* e5m2fnuz: max 57344 */
};

/* float32 bits to the code: a magnitude rounded on its bits, then the
** overflow and the special values. */
uint8_t sq_f8_encode(uint32_t u, int fmt, int saturate) {
  const sq_f8_format *f = &sq_f8_formats[fmt];
  uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
  uint32_t nan = f->fnuz ? 0x80u : sign | 0x7fu;
  if (a > 0x7f800000u) return (uint8_t)nan;
  uint32_t over = saturate ? sign | f->maxc : f->has_inf ? sign | 0x7cu : nan;
  if (a == 0x7f800000u) return (uint8_t)over;
  uint32_t e = a >> 23, q;
  /* the float32 biased exponent of the format's smallest normal */
  uint32_t emin = (uint32_t)(128 - f->bias), shift = 23 - f->mbits;
  if (e == 0) {
    q = 0;
  } else if (e >= emin) {
    q = (a + (1u << (shift - 1)) - 1u + ((a >> shift) & 1u)) >> shift;
    q -= (uint32_t)(127 - f->bias) << f->mbits;
  } else {
    /* below the smallest normal: the 24-bit significand, shifted further */
    uint32_t m = (a & 0x7fffffu) | 0x800000u, s = shift + (emin - e);
    q = s > 24 ? 0 : (m + (1u << (s - 1)) - 1u + ((m >> s) & 1u)) >> s;
  }
  if (q > f->maxc) {
    if (!saturate && fmt == SQ_F8_E4M3FN && a >= 0x43f00000u &&
        a < 0x43f80000u)                                     /* 480..496 */
      return (uint8_t)(sign | 0x7eu);
    if (!saturate && fmt == SQ_F8_E5M2 && a < 0x47800000u)   /* |t| < 2^16 */
      return (uint8_t)(sign | 0x7fu);
    return (uint8_t)over;
  }
  if (q == 0 && f->fnuz) return 0;
  return (uint8_t)(sign | q);
}

/* The code's value as float32 bits (exact: every code is a float32). */
uint32_t sq_f8_decode(uint8_t c, int fmt) {
  const sq_f8_format *f = &sq_f8_formats[fmt];
  uint32_t sign = (uint32_t)(c & 0x80u) << 24, mag = c & 0x7fu;
  if (f->fnuz) {
    if (c == 0x80) return 0xffc00000u;
  } else if (f->has_inf) {
    if (mag > 0x7cu) return sign | 0x7fc00000u;
    if (mag == 0x7cu) return sign | 0x7f800000u;
  } else if (mag == 0x7fu) {
    return sign | 0x7fc00000u;
  }
  uint32_t ex = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1u);
  if (ex)
    return sign | ((ex + (uint32_t)(127 - f->bias)) << 23) |
           (m << (23 - f->mbits));
  if (!m) return sign;
  /* subnormal m * 2^(1 - bias - mbits): normalise m */
  uint32_t e = (uint32_t)(127 + 1 - f->bias) - f->mbits;
  while (!(m & (1u << f->mbits))) {
    m <<= 1;
    e--;
  }
  return sign | ((e + f->mbits) << 23) | ((m & ((1u << f->mbits) - 1u)) << (23 - f->mbits));
}

/* One element: x / scale to the code. */
static inline uint8_t sq_f8_quantize1(sq_cb x, float scale, int fmt, int sat) {
  return sq_f8_encode(sq_f32_bits(sq_load_f32(x) / scale), fmt, sat);
}

/* One code back: NaN codes keep their bits through the product. */
static inline void sq_f8_dequantize1(uint8_t c, float scale, int fmt, sq_b y) {
  uint32_t u = sq_f8_decode(c, fmt);
  if ((u & 0x7fffffffu) > 0x7f800000u) sq_store_u32(y, u);
  else sq_store_f32(y, sq_bits_f32(u) * scale);
}

void sq_f8_quantize_scalar(const void *x, size_t n, float scale, int fmt,
                           int saturate, void *q) {
  sq_cb src = x;
  sq_b dst = q;
  for (size_t i = 0; i < n; i++)
    dst[i] = sq_f8_quantize1(src + 4 * i, scale, fmt, saturate);
}

void sq_f8_quantize_il_scalar(const void *x, size_t rows, size_t channels,
                              const float *scale, int fmt, int saturate,
                              void *q) {
  sq_cb src = x;
  sq_b dst = q;
  for (size_t r = 0, i = 0; r < rows; r++)
    for (size_t c = 0; c < channels; c++, i++)
      dst[i] = sq_f8_quantize1(src + 4 * i, scale[c], fmt, saturate);
}

void sq_f8_dequantize_scalar(const void *q, size_t n, float scale, int fmt,
                             void *y) {
  sq_cb src = q;
  sq_b dst = y;
  for (size_t i = 0; i < n; i++) sq_f8_dequantize1(src[i], scale, fmt, dst + 4 * i);
}

void sq_f8_dequantize_il_scalar(const void *q, size_t rows, size_t channels,
                                const float *scale, int fmt, void *y) {
  sq_cb src = q;
  sq_b dst = y;
  for (size_t r = 0, i = 0; r < rows; r++)
    for (size_t c = 0; c < channels; c++, i++)
      sq_f8_dequantize1(src[i], scale[c], fmt, dst + 4 * i);
}
