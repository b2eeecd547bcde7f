/*
** float8_x86.h: the float8 code kernels for one x86 width (x86_width.h's
** vocabulary), included by x86_avx2.c and x86_avx512.c.
**
** The lanes do what float8.c's sq_f8_encode and sq_f8_decode do, in 32-bit
** integers: the division by the scale is the same IEEE division, the
** rounding the same additions and shifts (the shift by lane where t is
** below the smallest normal), the special values the same selections; so
** every lane gives scalar's byte.  A run's last SQ_W - 1 elements, and rows
** narrower than a vector, go to the scalar loops.
*/

/* The format's constants (float8.c's table, spelled as the lanes use them). */
typedef struct SQ_FN(sq_f8c) {
  int mbits, bias, maxc, fnuz, has_inf, fmt;
} SQ_FN(sq_f8c);

SQ_AI SQ_FN(sq_f8c) SQ_FN(f8_consts)(int fmt) {
  SQ_FN(sq_f8c) c;
  c.fmt = fmt;
  c.mbits = fmt == SQ_F8_E5M2 || fmt == SQ_F8_E5M2FNUZ ? 2 : 3;
  c.bias = fmt == SQ_F8_E4M3FN ? 7 : fmt == SQ_F8_E4M3FNUZ ? 8
           : fmt == SQ_F8_E5M2 ? 15 : 16;
  c.maxc = fmt == SQ_F8_E4M3FN ? 0x7e : fmt == SQ_F8_E5M2 ? 0x7b : 0x7f;
  c.fnuz = fmt == SQ_F8_E4M3FNUZ || fmt == SQ_F8_E5M2FNUZ;
  c.has_inf = fmt == SQ_F8_E5M2;
  return c;
}

/* float32 bits u to codes (one per lane, 0..255). */
SQ_AI vint SQ_FN(f8_encode)(vint u, const SQ_FN(sq_f8c) *c, int sat) {
  const vint one = vi_set1(1);
  const int shift = 23 - c->mbits, emin = 128 - c->bias;
  vint sign = vi_and(vi_srli(u, 24), vi_set1(0x80));
  vint a = vi_and(u, vi_set1(0x7fffffff));
  vint e = vi_srli(a, 23);
  /* normal: round on the bits, then rebias */
  vint qn = vi_add(vi_add(a, vi_set1((1 << (shift - 1)) - 1)),
                   vi_and(vi_srli(a, shift), one));
  qn = vi_sub(vi_srli(qn, shift), vi_set1((127 - c->bias) << c->mbits));
  /* below the smallest normal: the significand shifted by s (capped at 31,
  ** where every such significand rounds to 0 as it does from 25 on) */
  vint m = vi_or(vi_and(a, vi_set1(0x7fffff)), vi_set1(0x800000));
  vint s = vi_min(vi_sub(vi_set1(shift + emin), e), vi_set1(31));
  vint qs = vi_add(vi_add(m, vi_sub(vi_sllv(one, vi_sub(s, one)), one)),
                   vi_and(vi_srlv(m, s), one));
  qs = vi_srlv(qs, s);
  vint q = vi_blend(qs, qn, vi_cmpgt(e, vi_set1(emin - 1)));
  q = vi_clear(vi_cmpeq(e, vi_set1(0)), q);       /* float32 subnormals: 0 */
  vint nan = c->fnuz ? vi_set1(0x80) : vi_or(sign, vi_set1(0x7f));
  vint over = sat ? vi_or(sign, vi_set1(c->maxc))
              : c->has_inf ? vi_or(sign, vi_set1(0x7c)) : nan;
  if (!sat && c->fmt == SQ_F8_E4M3FN)             /* 480 <= |t| < 496: 448 */
    over = vi_blend(over, vi_or(sign, vi_set1(0x7e)),
                    vm_and(vi_cmpgt(a, vi_set1(0x43f00000 - 1)),
                           vi_cmpgt(vi_set1(0x43f80000), a)));
  if (!sat && c->fmt == SQ_F8_E5M2)               /* |t| < 2^16: NaN */
    over = vi_blend(over, vi_or(sign, vi_set1(0x7f)),
                    vi_cmpgt(vi_set1(0x47800000), a));
  vint r = vi_or(sign, q);
  if (c->fnuz) r = vi_clear(vi_cmpeq(q, vi_set1(0)), r);
  r = vi_blend(r, over, vi_cmpgt(q, vi_set1(c->maxc)));
  return vi_blend(r, nan, vi_cmpgt(a, vi_set1(0x7f800000)));
}

/* Codes (0..255 per lane) to float32 values times scale; NaN codes keep
** their bits. */
SQ_AI vfloat SQ_FN(f8_decode)(vint code, const SQ_FN(sq_f8c) *c, vfloat scale) {
  vint sign = vi_slli(vi_and(code, vi_set1(0x80)), 24);
  vint mag = vi_and(code, vi_set1(0x7f));
  vint ex = vi_srli(mag, c->mbits);
  vint m = vi_and(mag, vi_set1((1 << c->mbits) - 1));
  vint nb = vi_add(vi_slli(mag, 23 - c->mbits), vi_set1((127 - c->bias) << 23));
  /* subnormal m * 2^(1 - bias - mbits), exact */
  vint sb = vi_bits(vf_mul(vi_to_f(m),
                           vf_of_bits(vi_set1((128 - c->bias - c->mbits) << 23))));
  vint bits = vi_or(sign, vi_blend(sb, nb, vi_cmpgt(ex, vi_set1(0))));
  vmask isnan;
  if (c->fnuz) {
    isnan = vi_cmpeq(code, vi_set1(0x80));
    bits = vi_blend(bits, vi_set1((int)0xffc00000u), isnan);
  } else if (c->has_inf) {
    isnan = vi_cmpgt(mag, vi_set1(0x7c));
    bits = vi_blend(bits, vi_or(sign, vi_set1(0x7fc00000)), isnan);
    bits = vi_blend(bits, vi_or(sign, vi_set1(0x7f800000)),
                    vi_cmpeq(mag, vi_set1(0x7c)));
  } else {
    isnan = vi_cmpeq(mag, vi_set1(0x7f));
    bits = vi_blend(bits, vi_or(sign, vi_set1(0x7fc00000)), isnan);
  }
  vfloat y = vf_mul(vf_of_bits(bits), scale);
  return vf_blend(y, vf_of_bits(bits), isnan);
}

/* A run of n codes: one scale (scales NULL) or one per element. */
SQ_AI void SQ_FN(f8_q_run)(sq_cb x, size_t n, float scale, const float *scales,
                           int fmt, int sat, sq_b q) {
  const SQ_FN(sq_f8c) c = SQ_FN(f8_consts)(fmt);
  const vfloat vs = vf_set1(scale);
  size_t i = 0;
  for (; i + SQ_W <= n; i += SQ_W) {
    vfloat s = scales ? vf_load(scales + i) : vs;
    vi_store_u8(q + i, SQ_FN(f8_encode)(vi_bits(vf_div(vf_load(x + 4 * i), s)), &c, sat));
  }
  for (; i < n; i++)
    q[i] = sq_f8_encode(sq_f32_bits(sq_load_f32(x + 4 * i) / (scales ? scales[i] : scale)),
                        fmt, sat);
}

SQ_AI void SQ_FN(f8_dq_run)(sq_cb q, size_t n, float scale, const float *scales,
                            int fmt, sq_b y) {
  const SQ_FN(sq_f8c) c = SQ_FN(f8_consts)(fmt);
  const vfloat vs = vf_set1(scale);
  size_t i = 0;
  for (; i + SQ_W <= n; i += SQ_W) {
    vfloat s = scales ? vf_load(scales + i) : vs;
    vf_store(y + 4 * i, SQ_FN(f8_decode)(vi_load_u8(q + i), &c, s));
  }
  if (i < n) {
    if (scales) sq_f8_dequantize_il_scalar(q + i, 1, n - i, scales + i, fmt, y + 4 * i);
    else sq_f8_dequantize_scalar(q + i, n - i, scale, fmt, y + 4 * i);
  }
}

/* The entry points: each format and saturate value a body of its own (the
** constants fold). */
#define SQ_F8_CASES(CALL)                                                     \
  switch (fmt) {                                                              \
    case SQ_F8_E4M3FN: CALL(SQ_F8_E4M3FN); break;                             \
    case SQ_F8_E4M3FNUZ: CALL(SQ_F8_E4M3FNUZ); break;                         \
    case SQ_F8_E5M2: CALL(SQ_F8_E5M2); break;                                 \
    default: CALL(SQ_F8_E5M2FNUZ); break;                                     \
  }

static void SQ_FN(f8_quantize)(const void *x, size_t n, float scale, int fmt,
                               int saturate, void *q) {
#define SQ_F8_Q(F)                                                            \
  (saturate ? SQ_FN(f8_q_run)(x, n, scale, NULL, F, 1, q)                    \
            : SQ_FN(f8_q_run)(x, n, scale, NULL, F, 0, q))
  SQ_F8_CASES(SQ_F8_Q)
#undef SQ_F8_Q
}

static void SQ_FN(f8_quantize_il)(const void *x, size_t rows, size_t channels,
                                  const float *scale, int fmt, int saturate,
                                  void *q) {
  if (channels < SQ_W) {
    sq_f8_quantize_il_scalar(x, rows, channels, scale, fmt, saturate, q);
    return;
  }
  sq_cb src = x;
  sq_b dst = q;
  for (size_t r = 0; r < rows; r++) {
    sq_cb xr = src + 4 * r * channels;
    sq_b qr = dst + r * channels;
#define SQ_F8_QI(F)                                                           \
  (saturate ? SQ_FN(f8_q_run)(xr, channels, 0.0f, scale, F, 1, qr)           \
            : SQ_FN(f8_q_run)(xr, channels, 0.0f, scale, F, 0, qr))
    SQ_F8_CASES(SQ_F8_QI)
#undef SQ_F8_QI
  }
}

static void SQ_FN(f8_dequantize)(const void *q, size_t n, float scale, int fmt,
                                 void *y) {
#define SQ_F8_DQ(F) SQ_FN(f8_dq_run)(q, n, scale, NULL, F, y)
  SQ_F8_CASES(SQ_F8_DQ)
#undef SQ_F8_DQ
}

static void SQ_FN(f8_dequantize_il)(const void *q, size_t rows, size_t channels,
                                    const float *scale, int fmt, void *y) {
  if (channels < SQ_W) {
    sq_f8_dequantize_il_scalar(q, rows, channels, scale, fmt, y);
    return;
  }
  sq_cb src = q;
  sq_b dst = y;
  for (size_t r = 0; r < rows; r++) {
    sq_cb qr = src + r * channels;
    sq_b yr = dst + 4 * r * channels;
#define SQ_F8_DQI(F) SQ_FN(f8_dq_run)(qr, channels, 0.0f, scale, F, yr)
    SQ_F8_CASES(SQ_F8_DQI)
#undef SQ_F8_DQI
  }
}
#undef SQ_F8_CASES
