/*
** x86_avx512.c: the AVX-512 (F, BW, VL, DQ) + F16C kernel path
** (sq_kernels_avx512).
**
** Same contract and the same rules as x86_avx2.c (read its header comment);
** what differs here:
**   1. tails are masked loads and stores (no fault, no access past the end),
**      so only a few shapes still go to scalar;
**   2. quantize rounds with embedded rounding ({rn-sae}: round to nearest
**      even, whatever MXCSR says) and narrows with vpmovdb/vpmovdw, which
**      truncate exactly like scalar's c & 0xff / c & 0xffff;
**   3. a NaN in a vector is located with its compare mask: the lanes before it
**      are stored and its index returned, so the output equals scalar's;
**   4. minmax peels a scalar head up to a 64-byte boundary (64-byte loads
**      straddling cache lines halved its speed from memory);
**   5. quantize_interleaved and minmax_interleaved are the AVX2 kernels
**      (measured faster; see the note above minmax_interleaved_avx512), and
**      so is minmax_blocks for blocks under 64 floats;
**   6. error_sums keeps its eight accumulators (two per sum) in registers;
**      minmax_blocks reduces 16 blocks at a time.
** Compiled with a target pragma, never -mavx512f: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(                                                \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c"))), \
    apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")
#endif

/* GCC re-reads a loaded vector from memory for each use when the use takes
** it as the register operand (min_ps(x, acc)): 12 loads instead of 4 per
** iteration.  An empty asm pins the loaded value to a register. */
#if defined(__GNUC__) && !defined(__clang__)
#define SQ_KEEP(v) __asm__("" : "+v"(v))
#else
#define SQ_KEEP(v) ((void)0)
#endif



SQ_AI __m512 ldf_avx512(sq_cb p) { return _mm512_loadu_ps((const void *)p); }
SQ_AI void stf_avx512(sq_b p, __m512 v) { _mm512_storeu_ps((void *)p, v); }
SQ_AI __m512 ldf_m(sq_cb p, __mmask16 k) { return _mm512_maskz_loadu_ps(k, (const void *)p); }
SQ_AI void stf_m(sq_b p, __mmask16 k, __m512 v) { _mm512_mask_storeu_ps((void *)p, k, v); }
SQ_AI __mmask16 mask16(size_t rem) {
  return rem >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << rem) - 1u);
}

/* ---- min / max ---------------------------------------------------------- */





static size_t minmax_avx512(const void *x, size_t n, float *mn, float *mx) {
  sq_cb p = x;
  if (n == 0) return 0;
  if (_mm_getcsr() & 0x40) return sq_kernels_scalar.minmax(x, n, mn, mx);
  /* A scalar head up to a 64-byte boundary: 64-byte loads that straddle two
  ** cache lines halve this loop's speed from memory. */
  size_t h = 0, i;
  if (((uintptr_t)p & 3) == 0) h = ((64 - ((uintptr_t)p & 63)) & 63) / 4;
  if (h > n) h = n;
  float lo = 0.0f, hi = 0.0f;
  int have = 0;
  for (i = 0; i < h; i++)
    if (!sq_fold1(p, i, &have, &lo, &hi)) return i;
  sq_cb pv = p + 4 * h;                 /* the vector part: [h, h + nv) */
  size_t nv = (n - h) & ~(size_t)15;
  if (nv) {
    __m512 a0 = _mm512_set1_ps(sq_load_f32(pv)), a1 = a0, a2 = a0, a3 = a0;
    __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    const __m512 ninf = _mm512_set1_ps(-__builtin_inff());
    const __m512 pinf = _mm512_set1_ps(__builtin_inff());
    for (size_t blk = 0; blk < nv; blk += SQ_MM_BLOCK) {
      size_t end = nv - blk > SQ_MM_BLOCK ? blk + SQ_MM_BLOCK : nv;
      __mmask16 bad = 0;
      for (i = blk; i + 64 <= end; i += 64) {
        sq_cb s = pv + 4 * i;
        __m512 x0 = ldf_avx512(s), x1 = ldf_avx512(s + 64),
               x2 = ldf_avx512(s + 128), x3 = ldf_avx512(s + 192);
        SQ_KEEP(x0);
        SQ_KEEP(x1);
        SQ_KEEP(x2);
        SQ_KEEP(x3);
        a0 = _mm512_min_ps(x0, a0);
        a1 = _mm512_min_ps(x1, a1);
        a2 = _mm512_min_ps(x2, a2);
        a3 = _mm512_min_ps(x3, a3);
        b0 = _mm512_max_ps(x0, b0);
        b1 = _mm512_max_ps(x1, b1);
        b2 = _mm512_max_ps(x2, b2);
        b3 = _mm512_max_ps(x3, b3);
        bad |= (__mmask16)(_mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q) |
                           _mm512_cmp_ps_mask(x2, x3, _CMP_UNORD_Q));
      }
      for (; i < end; i += 16) {
        __m512 v = ldf_avx512(pv + 4 * i);
        a0 = _mm512_min_ps(v, a0);
        b0 = _mm512_max_ps(v, b0);
        bad |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      }
      __m512 l = _mm512_min_ps(_mm512_min_ps(a0, a1), _mm512_min_ps(a2, a3));
      __m512 u = _mm512_max_ps(_mm512_max_ps(b0, b1), _mm512_max_ps(b2, b3));
      bad |= (__mmask16)(_mm512_cmp_ps_mask(l, ninf, _CMP_EQ_OQ) |
                         _mm512_cmp_ps_mask(u, pinf, _CMP_EQ_OQ));
      if (bad) return h + blk + sq_first_nonfinite(pv + 4 * blk, end - blk);
    }
    float la[64], ha[64];
    _mm512_storeu_ps(la, a0);
    _mm512_storeu_ps(la + 16, a1);
    _mm512_storeu_ps(la + 32, a2);
    _mm512_storeu_ps(la + 48, a3);
    _mm512_storeu_ps(ha, b0);
    _mm512_storeu_ps(ha + 16, b1);
    _mm512_storeu_ps(ha + 32, b2);
    _mm512_storeu_ps(ha + 48, b3);
    /* first occurrences within the vector part; the head came before it */
    float vlo = sq_pick_extreme(la, 64, 0, pv, nv), vhi = sq_pick_extreme(ha, 64, 1, pv, nv);
    if (!have) {
      lo = vlo;
      hi = vhi;
      have = 1;
    }
    if (vlo < lo) lo = vlo;
    if (vhi > hi) hi = vhi;
  }
  for (i = h + nv; i < n; i++)
    if (!sq_fold1(p, i, &have, &lo, &hi)) return i;
  *mn = lo;
  *mx = hi;
  return n;
}

/* Interleaved min/max and quantize: the 256-bit kernels of x86_avx2.c.  With
** 64-byte vectors every row adds masked head/tail accesses, and loads and
** stores of the caller's (rarely 64-byte aligned) parameter and mn/mx arrays
** straddle cache lines; measured on a Zen 5 from memory, the 512-bit versions
** ran 1.4x to 5x slower than the AVX2 ones (dispatch.c only enables this path
** when AVX2 is present). */
static size_t minmax_interleaved_avx512(const void *x, size_t rows,
                                        size_t channels, float *mn, float *mx) {
  return sq_kernels_avx2.minmax_interleaved(x, rows, channels, mn, mx);
}

/* ---- quantize ------------------------------------------------------------ */

SQ_AI __m512 scale_y_avx512(__m512 v, __m512 m, int divide) {
  return divide ? _mm512_div_ps(v, m) : _mm512_mul_ps(v, m);
}

/* As avx2's: zp is the caller's zp - (int32_t)add. */
SQ_AI __m512i code_small_avx512(__m512 v, __m512 m, __m512 add, __m512 lo, __m512 hi,
                         __m512i zp, int divide, int with_add) {
  __m512 y = scale_y_avx512(v, m, divide);
  if (with_add) y = _mm512_add_ps(y, add);
  y = _mm512_max_ps(lo, y);
  y = _mm512_min_ps(hi, y);
  return _mm512_add_epi32(_mm512_cvt_roundps_epi32(y, SQ_RNE), zp);
}

SQ_AI __m256i code_i32_half_avx512(__m256 r, __m512d zpd, __m512d qmin, __m512d qmax) {
  __m512d d = _mm512_add_pd(_mm512_cvtps_pd(r), zpd);
  d = _mm512_max_pd(qmin, d);
  d = _mm512_min_pd(qmax, d);
  return _mm512_cvttpd_epi32(d);
}
SQ_AI __m512i code_i32_avx512(__m512 v, __m512 m, __m512d zlo, __m512d zhi,
                       __m512d qmin, __m512d qmax, int divide) {
  __m512 r = _mm512_roundscale_ps(scale_y_avx512(v, m, divide), SQ_RNE);
  __m256i l = code_i32_half_avx512(_mm512_castps512_ps256(r), zlo, qmin, qmax);
  __m256i h = code_i32_half_avx512(_mm512_extractf32x8_ps(r, 1), zhi, qmin, qmax);
  return _mm512_inserti64x4(_mm512_castsi256_si512(l), h, 1);
}

/* Store 16 codes (the lanes of k) of the given width, truncating. */
SQ_AI void st_codes(sq_b d, __mmask16 k, __m512i c, int bits) {
  if (k == 0xffff) {
    if (bits == 8) _mm_storeu_si128((__m128i *)(void *)d, _mm512_cvtepi32_epi8(c));
    else if (bits == 16) _mm256_storeu_si256((__m256i *)(void *)d, _mm512_cvtepi32_epi16(c));
    else _mm512_storeu_si512((void *)d, c);
  } else {
    /* narrow in a register, then a masked vmovdqu: vpmovdb/vpmovdw with a
    ** masked memory destination are microcoded and slow on AMD */
    if (bits == 8) _mm_mask_storeu_epi8((void *)d, k, _mm512_cvtepi32_epi8(c));
    else if (bits == 16) _mm256_mask_storeu_epi16((void *)d, k, _mm512_cvtepi32_epi16(c));
    else _mm512_mask_storeu_epi32((void *)d, k, c);
  }
}

SQ_AI size_t q_body_avx512(sq_cb src, size_t n, const sq_qparams *p, sq_b dst,
                    int bits, int divide, int with_add) {
  const size_t es = (size_t)bits / 8;
  const __m512 m = _mm512_set1_ps(divide ? p->scale : p->inv);
  const __m512 lo = _mm512_set1_ps(p->lo), hi = _mm512_set1_ps(p->hi);
  const __m512 add = _mm512_set1_ps(with_add ? p->add : 0.0f);
  const __m512i zp = _mm512_set1_epi32(with_add ? p->zp - (int32_t)p->add : p->zp);
  const __m512d zpd = _mm512_set1_pd((double)p->zp);
  const __m512d qmin = _mm512_set1_pd((double)p->qmin);
  const __m512d qmax = _mm512_set1_pd((double)p->qmax);
#define SQ_CODE(v)                                                            \
  (bits == 32 ? code_i32_avx512(v, m, zpd, zpd, qmin, qmax, divide)                  \
              : code_small_avx512(v, m, add, lo, hi, zp, divide, with_add))
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    sq_cb s = src + 4 * i;
    __m512 x0 = ldf_avx512(s), x1 = ldf_avx512(s + 64),
           x2 = ldf_avx512(s + 128), x3 = ldf_avx512(s + 192);
    if (_mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q) |
        _mm512_cmp_ps_mask(x2, x3, _CMP_UNORD_Q))
      break;
    sq_b d = dst + es * i;
    st_codes(d, 0xffff, SQ_CODE(x0), bits);
    st_codes(d + 16 * es, 0xffff, SQ_CODE(x1), bits);
    st_codes(d + 32 * es, 0xffff, SQ_CODE(x2), bits);
    st_codes(d + 48 * es, 0xffff, SQ_CODE(x3), bits);
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512 v = ldf_m(src + 4 * i, k);           /* masked-off lanes are 0 */
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    __m512i c = SQ_CODE(v);
    if (nan) {
      unsigned j = (unsigned)__builtin_ctz((unsigned)nan);
      st_codes(dst + es * i, (__mmask16)((1u << j) - 1u), c, bits);
      return i + j;
    }
    st_codes(dst + es * i, k, c, bits);
  }
#undef SQ_CODE
  return n;
}

SQ_QUANTIZE_ENTRIES(avx512)

/* ---- interleaved (per-channel, last axis) -------------------------------- */



static size_t quantize_i8_il_avx512(const void *x, size_t rows,
                                    const sq_channel_params *p, void *q) {
  return sq_kernels_avx2.quantize_interleaved[SQ_CODE_I8](x, rows, p, q);
}
static size_t quantize_i16_il_avx512(const void *x, size_t rows,
                                     const sq_channel_params *p, void *q) {
  return sq_kernels_avx2.quantize_interleaved[SQ_CODE_I16](x, rows, p, q);
}
static size_t quantize_i32_il_avx512(const void *x, size_t rows,
                                     const sq_channel_params *p, void *q) {
  return sq_kernels_avx2.quantize_interleaved[SQ_CODE_I32](x, rows, p, q);
}

/* ---- dequantize ---------------------------------------------------------- */


/* Sixteen codes of type t at element i (lanes of k), as int32. */
SQ_AI __m512i ld_codes_avx512(sq_cb q, size_t i, __mmask16 k, sq_code_type t) {
  const void *a = q + sq_esize[t] * i;
  int full = k == 0xffff;
  switch (t) {
    case SQ_CODE_I8:
      return _mm512_cvtepi8_epi32(full ? _mm_loadu_si128((const __m128i *)a)
                                       : _mm_maskz_loadu_epi8(k, a));
    case SQ_CODE_U8:
      return _mm512_cvtepu8_epi32(full ? _mm_loadu_si128((const __m128i *)a)
                                       : _mm_maskz_loadu_epi8(k, a));
    case SQ_CODE_I16:
      return _mm512_cvtepi16_epi32(full ? _mm256_loadu_si256((const __m256i *)a)
                                        : _mm256_maskz_loadu_epi16(k, a));
    case SQ_CODE_U16:
      return _mm512_cvtepu16_epi32(full ? _mm256_loadu_si256((const __m256i *)a)
                                        : _mm256_maskz_loadu_epi16(k, a));
    default:
      return full ? _mm512_loadu_si512(a) : _mm512_maskz_loadu_epi32(k, a);
  }
}

/* (float)(q - zp): int32 for small codes; for 32-bit codes the difference
** in int64 (exact, and +0 for q == zp in every rounding mode) converted to
** float with one rounding (vcvtqq2ps), as scalar's int64 -> float. */
SQ_AI __m256 i64_to_f32(__m256i q, __m256i zp) {
  return _mm512_cvtepi64_ps(
      _mm512_sub_epi64(_mm512_cvtepi32_epi64(q), _mm512_cvtepi32_epi64(zp)));
}
SQ_AI __m512 dq_conv_avx512(__m512i v, __m512i zp, sq_code_type t) {
  if (t != SQ_CODE_I32) return _mm512_cvtepi32_ps(_mm512_sub_epi32(v, zp));
  __m256 l = i64_to_f32(_mm512_castsi512_si256(v), _mm512_castsi512_si256(zp));
  __m256 h = i64_to_f32(_mm512_extracti64x4_epi64(v, 1),
                        _mm512_extracti64x4_epi64(zp, 1));
  return _mm512_insertf32x8(_mm512_castps256_ps512(l), h, 1);
}

SQ_AI void dq_body_avx512(sq_cb q, size_t n, float scale, int32_t zp, sq_b y,
                   sq_code_type t) {
  if (t != SQ_CODE_I32 && !sq_zp_small_ok(zp)) {
    sq_kernels_scalar.dequantize[t](q, n, scale, zp, y);
    return;
  }
  const __m512 s = _mm512_set1_ps(scale);
  const __m512i z = _mm512_set1_epi32(zp);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512 f0 = dq_conv_avx512(ld_codes_avx512(q, i, 0xffff, t), z, t);
    __m512 f1 = dq_conv_avx512(ld_codes_avx512(q, i + 16, 0xffff, t), z, t);
    __m512 f2 = dq_conv_avx512(ld_codes_avx512(q, i + 32, 0xffff, t), z, t);
    __m512 f3 = dq_conv_avx512(ld_codes_avx512(q, i + 48, 0xffff, t), z, t);
    stf_avx512(y + 4 * i, _mm512_mul_ps(f0, s));
    stf_avx512(y + 4 * i + 64, _mm512_mul_ps(f1, s));
    stf_avx512(y + 4 * i + 128, _mm512_mul_ps(f2, s));
    stf_avx512(y + 4 * i + 192, _mm512_mul_ps(f3, s));
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    stf_m(y + 4 * i, k, _mm512_mul_ps(dq_conv_avx512(ld_codes_avx512(q, i, k, t), z, t), s));
  }
}


SQ_AI void dqi_body_avx512(sq_cb q, size_t rows, const sq_channel_params *p, sq_b y,
                    sq_code_type t) {
  const size_t es = sq_esize[t], ch = p->channels;
  int ok = 1;
  for (size_t c = 0; t != SQ_CODE_I32 && c < ch; c++)
    if (!sq_zp_small_ok(p->zp[c])) ok = 0;
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
    for (; c + 16 <= ch; c += 16) {
      __m512i z = _mm512_loadu_si512((const void *)(zp + c));
      __m512 f = dq_conv_avx512(ld_codes_avx512(qr, c, 0xffff, t), z, t);
      stf_avx512(yr + 4 * c, _mm512_mul_ps(f, _mm512_loadu_ps((const void *)(sc + c))));
    }
    if (c < ch) {
      __mmask16 k = mask16(ch - c);
      __m512i z = _mm512_maskz_loadu_epi32(k, (const void *)(zp + c));
      __m512 f = dq_conv_avx512(ld_codes_avx512(qr, c, k, t), z, t);
      stf_m(yr + 4 * c, k, _mm512_mul_ps(f, ldf_m((sq_cb)(sc + c), k)));
    }
  }
}

SQ_DEFINE_DQI_ENTRY(avx512, 16)

SQ_DEQUANTIZE_ENTRIES(avx512)

/* ---- 4-bit packing ------------------------------------------------------- */

SQ_AI __mmask64 mask64(size_t rem) {
  return rem >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << rem) - 1);
}

static void pack4_avx512(const void *codes, size_t n, void *packed) {
  sq_cb c = codes;
  sq_b d = packed;
  const __m512i lowm = _mm512_set1_epi8(0x0f);
  for (size_t i = 0; i < n; i += 64) {
    size_t rem = n - i;
    __m512i v = rem >= 64 ? _mm512_loadu_si512((const void *)(c + i))
                          : _mm512_maskz_loadu_epi8(mask64(rem), c + i);
    __m512i w = _mm512_and_si512(v, lowm);
    w = _mm512_or_si512(w, _mm512_srli_epi16(w, 4));
    if (rem >= 64) {
      _mm256_storeu_si256((__m256i *)(void *)(d + i / 2), _mm512_cvtepi16_epi8(w));
    } else {           /* an odd count leaves 0 in the last high nibble */
      size_t nb = (rem + 1) / 2;
      _mm512_mask_cvtepi16_storeu_epi8(d + i / 2, (__mmask32)(((uint64_t)1 << nb) - 1), w);
    }
  }
}

static void unpack4_avx512(const void *packed, size_t n, int is_signed,
                           void *codes) {
  sq_cb s = packed;
  sq_b d = codes;
  const __m512i lowm = _mm512_set1_epi16(0x0f), highm = _mm512_set1_epi16(0xf0);
  const __m512i eight = _mm512_set1_epi8(8);
  for (size_t i = 0; i < n; i += 64) {
    size_t rem = n - i;
    __m256i b;
    if (rem >= 64) {
      b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i / 2));
    } else {
      size_t nb = (rem + 1) / 2;
      b = _mm256_maskz_loadu_epi8((__mmask32)(((uint64_t)1 << nb) - 1), s + i / 2);
    }
    __m512i w = _mm512_cvtepu8_epi16(b);
    /* each 16-bit lane: low nibble in its low byte, high nibble in its high */
    w = _mm512_or_si512(_mm512_and_si512(w, lowm),
                        _mm512_slli_epi16(_mm512_and_si512(w, highm), 4));
    if (is_signed) w = _mm512_sub_epi8(_mm512_xor_si512(w, eight), eight);
    if (rem >= 64) _mm512_storeu_si512((void *)(d + i), w);
    else _mm512_mask_storeu_epi8(d + i, mask64(rem), w);
  }
}

/* ---- half formats -------------------------------------------------------- */

static void f16_to_f32_avx512(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * i + 32));
    __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * i + 64));
    __m256i e = _mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * i + 96));
    stf_avx512(d + 4 * i, _mm512_cvtph_ps(a));
    stf_avx512(d + 4 * i + 64, _mm512_cvtph_ps(b));
    stf_avx512(d + 4 * i + 128, _mm512_cvtph_ps(c));
    stf_avx512(d + 4 * i + 192, _mm512_cvtph_ps(e));
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    stf_m(d + 4 * i, k, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, s + 2 * i)));
  }
}

static void f32_to_f16_avx512(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm512_cvtps_ph(ldf_avx512(s + 4 * i), 0);
    __m256i b = _mm512_cvtps_ph(ldf_avx512(s + 4 * i + 64), 0);
    __m256i c = _mm512_cvtps_ph(ldf_avx512(s + 4 * i + 128), 0);
    __m256i e = _mm512_cvtps_ph(ldf_avx512(s + 4 * i + 192), 0);
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i), a);
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i + 32), b);
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i + 64), c);
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i + 96), e);
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    _mm256_mask_storeu_epi16(d + 2 * i, k, _mm512_cvtps_ph(ldf_m(s + 4 * i, k), 0));
  }
}

SQ_AI __m512i bf16_widen_avx512(__m256i h) {
  __m512i b = _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
  __m512i ax = _mm512_and_si512(b, _mm512_set1_epi32(0x7fffffff));
  __mmask16 nan = _mm512_cmpgt_epi32_mask(ax, _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_or_epi32(b, nan, b, _mm512_set1_epi32(0x00400000));
}

static void bf16_to_f32_avx512(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512i v = _mm512_loadu_si512((const void *)(s + 2 * i));
    _mm512_storeu_si512((void *)(d + 4 * i), bf16_widen_avx512(_mm512_castsi512_si256(v)));
    _mm512_storeu_si512((void *)(d + 4 * i + 64),
                        bf16_widen_avx512(_mm512_extracti64x4_epi64(v, 1)));
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    _mm512_mask_storeu_epi32(d + 4 * i, k,
                             bf16_widen_avx512(_mm256_maskz_loadu_epi16(k, s + 2 * i)));
  }
}

SQ_AI __m512i bf16_round_avx512(__m512i x) {
  SQ_KEEP(x);                  /* one load, not one per use (see SQ_KEEP) */
  __m512i ax = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
  __mmask16 nan = _mm512_cmpgt_epi32_mask(ax, _mm512_set1_epi32(0x7f800000));
  __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_add_epi32(x, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
  r = _mm512_srli_epi32(r, 16);
  __m512i qn = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x40));
  return _mm512_mask_blend_epi32(nan, r, qn);
}

static void f32_to_bf16_avx512(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a = _mm512_cvtepi32_epi16(
        bf16_round_avx512(_mm512_loadu_si512((const void *)(s + 4 * i))));
    __m256i b = _mm512_cvtepi32_epi16(
        bf16_round_avx512(_mm512_loadu_si512((const void *)(s + 4 * i + 64))));
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i), a);
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i + 32), b);
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512i x = _mm512_maskz_loadu_epi32(k, s + 4 * i);
    _mm512_mask_cvtepi32_storeu_epi16(d + 2 * i, k, bf16_round_avx512(x));
  }
}

/* ---- error sums ---------------------------------------------------------- */

/* As in x86_avx2.c: lane l of the SQ_ERROR_LANES gets elements 16k + l in
** order; here a 16-element block is two vectors of doubles (lanes 0-7 and
** 8-15), so the eight accumulators of the four sums stay in registers.
** Multiply, then add (no FMA); the tail and the totals are scalar's. */
SQ_AI __m512d cvt8(sq_cb p) {
  return _mm512_cvtps_pd(_mm256_loadu_ps((const float *)(const void *)p));
}

SQ_AI void es_add_avx512(__m512d u, __m512d v, __m512d *a2, __m512d *b2, __m512d *ab,
                  __m512d *d2, __m512d *mx) {
  __m512d d = _mm512_sub_pd(u, v);
  *a2 = _mm512_add_pd(*a2, _mm512_mul_pd(u, u));
  *b2 = _mm512_add_pd(*b2, _mm512_mul_pd(v, v));
  *ab = _mm512_add_pd(*ab, _mm512_mul_pd(u, v));
  *d2 = _mm512_add_pd(*d2, _mm512_mul_pd(d, d));
  *mx = _mm512_max_pd(*mx, _mm512_abs_pd(d));
}

/* error_lanes: as x86_avx2.c's, with error_sums' two blocks of 8 lanes. */
static void error_lanes_avx512(const void *a, const void *b, size_t n,
                               size_t lane, sq_error_lanes *acc) {
  size_t head = sq_error_lanes_head(a, b, n, lane, acc);
  sq_cb pa = (sq_cb)a + 4 * head, pb = (sq_cb)b + 4 * head;
  size_t full = (n - head) / SQ_ERROR_LANES;
  if (full) {
    __m512d A0 = _mm512_loadu_pd(acc->a2), A1 = _mm512_loadu_pd(acc->a2 + 8);
    __m512d B0 = _mm512_loadu_pd(acc->b2), B1 = _mm512_loadu_pd(acc->b2 + 8);
    __m512d C0 = _mm512_loadu_pd(acc->ab), C1 = _mm512_loadu_pd(acc->ab + 8);
    __m512d D0 = _mm512_loadu_pd(acc->d2), D1 = _mm512_loadu_pd(acc->d2 + 8);
    __m512d M0 = _mm512_setzero_pd(), M1 = M0;
    for (size_t k = 0; k < full; k++) {
      sq_cb sa = pa + 64 * k, sb = pb + 64 * k;
      es_add_avx512(cvt8(sa), cvt8(sb), &A0, &B0, &C0, &D0, &M0);
      es_add_avx512(cvt8(sa + 32), cvt8(sb + 32), &A1, &B1, &C1, &D1, &M1);
    }
    _mm512_storeu_pd(acc->a2, A0), _mm512_storeu_pd(acc->a2 + 8, A1);
    _mm512_storeu_pd(acc->b2, B0), _mm512_storeu_pd(acc->b2 + 8, B1);
    _mm512_storeu_pd(acc->ab, C0), _mm512_storeu_pd(acc->ab + 8, C1);
    _mm512_storeu_pd(acc->d2, D0), _mm512_storeu_pd(acc->d2 + 8, D1);
    double m8[8];
    _mm512_storeu_pd(m8, _mm512_max_pd(M0, M1));
    for (int j = 0; j < 8; j++)
      if (m8[j] > acc->max_abs_d) acc->max_abs_d = m8[j];
  }
  sq_error_lanes_scalar(a, b, head + full * SQ_ERROR_LANES, n, lane, acc);
}

/* error_sums is error_lanes from lane 0 on zeroed lanes, totalled: the same
** additions in the same order as scalar's. */
static void error_sums_avx512(const void *a, const void *b, size_t n,
                              sq_error_sums *out) {
  sq_error_lanes acc;
  memset(&acc, 0, sizeof acc);
  error_lanes_avx512(a, b, n, 0, &acc);
  sq_error_lanes_total(&acc, out);
}

/* ---- per-block min / max ------------------------------------------------- */

/* Bytes ahead of the loads that minmax_blocks prefetches (see x86_avx2.c). */
#define SQ_PF_DIST 8192

SQ_AI void pf64(sq_cb p, int pf) {
  if (pf) _mm_prefetch((const char *)(p + SQ_PF_DIST), _MM_HINT_T0);
}

/* Vector k of a block of `block` >= 16 floats at s: at 16k, the last one at
** block - 16, where it may overlap the one before it (see x86_avx2.c). */
SQ_AI sq_cb blk_vec_avx512(sq_cb s, size_t block, size_t k) {
  return s + 4 * (16 * k + 16 < block ? 16 * k : block - 16);
}

/* Lane-wise min and max of one block of `block` >= 16 floats at s, its
** vectors loaded in address order (measured faster than taking the last one
** early).  NaN lanes are or-ed into *nan.  With pf, prefetches SQ_PF_DIST
** ahead of every vector. */
SQ_AI void blk_fold_avx512(sq_cb s, size_t block, int pf, __m512 *lo, __m512 *hi,
                    __mmask16 *nan) {
  const size_t m = (block + 15) / 16;
  pf64(s, pf);
  __m512 x0 = ldf_avx512(s);
  SQ_KEEP(x0);
  if (m == 1) {
    *lo = *hi = x0;
    *nan |= _mm512_cmp_ps_mask(x0, x0, _CMP_UNORD_Q);
    return;
  }
  pf64(s + 64, pf);
  __m512 x1 = ldf_avx512(blk_vec_avx512(s, block, 1));
  SQ_KEEP(x1);
  __m512 l0 = x0, h0 = x0, l1 = x1, h1 = x1;
  __mmask16 bad = _mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q);
  size_t k = 2;
  for (; k + 2 <= m; k += 2) {
    pf64(s + 64 * k, pf);
    pf64(s + 64 * k + 64, pf);
    x0 = ldf_avx512(blk_vec_avx512(s, block, k));
    x1 = ldf_avx512(blk_vec_avx512(s, block, k + 1));
    SQ_KEEP(x0);
    SQ_KEEP(x1);
    l0 = _mm512_min_ps(x0, l0);
    l1 = _mm512_min_ps(x1, l1);
    h0 = _mm512_max_ps(x0, h0);
    h1 = _mm512_max_ps(x1, h1);
    bad |= _mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q);
  }
  if (k < m) {
    pf64(s + 64 * k, pf);
    x0 = ldf_avx512(blk_vec_avx512(s, block, k));
    SQ_KEEP(x0);
    l0 = _mm512_min_ps(x0, l0);
    h0 = _mm512_max_ps(x0, h0);
    bad |= _mm512_cmp_ps_mask(x0, x0, _CMP_UNORD_Q);
  }
  *lo = _mm512_min_ps(l0, l1);
  *hi = _mm512_max_ps(h0, h1);
  *nan |= bad;
}

/* Sixteen blocks reduced together in four steps, each halving the lanes per
** block: unpack (pairs), shuffle_ps (quads), shuffle_f32x4 twice. */
SQ_AI void fold_pair_avx512(sq_cb s, size_t block, int pf, __m512 *lo,
                     __m512 *hi, __mmask16 *nan) {
  __m512 l0, h0, l1, h1;
  blk_fold_avx512(s, block, pf, &l0, &h0, nan);
  blk_fold_avx512(s + 4 * block, block, pf, &l1, &h1, nan);
  *lo = _mm512_min_ps(_mm512_unpacklo_ps(l0, l1), _mm512_unpackhi_ps(l0, l1));
  *hi = _mm512_max_ps(_mm512_unpacklo_ps(h0, h1), _mm512_unpackhi_ps(h0, h1));
}

/* Lane 4L + j: block j's extreme over 128-bit lane L. */
SQ_AI void fold_quad_avx512(sq_cb s, size_t block, int pf, __m512 *lo,
                     __m512 *hi, __mmask16 *nan) {
  __m512 al, ah, bl, bh;
  fold_pair_avx512(s, block, pf, &al, &ah, nan);
  fold_pair_avx512(s + 8 * block, block, pf, &bl, &bh, nan);
  *lo = _mm512_min_ps(_mm512_shuffle_ps(al, bl, 0x44), _mm512_shuffle_ps(al, bl, 0xee));
  *hi = _mm512_max_ps(_mm512_shuffle_ps(ah, bh, 0x44), _mm512_shuffle_ps(ah, bh, 0xee));
}

/* Eight blocks: lanes 0-3 blocks 0-3 over 128-bit lanes {0, 1}, 4-7 over
** {2, 3}; lanes 8-15 the same for blocks 4-7. */
SQ_AI void fold_oct(sq_cb s, size_t block, int pf, __m512 *lo,
                    __m512 *hi, __mmask16 *nan) {
  __m512 al, ah, bl, bh;
  fold_quad_avx512(s, block, pf, &al, &ah, nan);
  fold_quad_avx512(s + 16 * block, block, pf, &bl, &bh, nan);
  *lo = _mm512_min_ps(_mm512_shuffle_f32x4(al, bl, 0x88), _mm512_shuffle_f32x4(al, bl, 0xdd));
  *hi = _mm512_max_ps(_mm512_shuffle_f32x4(ah, bh, 0x88), _mm512_shuffle_f32x4(ah, bh, 0xdd));
}

/* Sixteen blocks of 16 floats or more at s; see mmb_group_avx2 in x86_avx2.c. */
SQ_AI int mmb_group_avx512(sq_cb s, size_t block, int pf, float *mn, float *mx) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 l0, h0, l1, h1;
  __mmask16 nan = 0;
  fold_oct(s, block, pf, &l0, &h0, &nan);
  fold_oct(s + 32 * block, block, pf, &l1, &h1, &nan);
  __m512 rmin = _mm512_min_ps(_mm512_shuffle_f32x4(l0, l1, 0x88),
                              _mm512_shuffle_f32x4(l0, l1, 0xdd));
  __m512 rmax = _mm512_max_ps(_mm512_shuffle_f32x4(h0, h1, 0x88),
                              _mm512_shuffle_f32x4(h0, h1, 0xdd));
  nan |= (__mmask16)(
      _mm512_cmp_ps_mask(rmin, _mm512_set1_ps(-__builtin_inff()), _CMP_EQ_OQ) |
      _mm512_cmp_ps_mask(rmax, _mm512_set1_ps(__builtin_inff()), _CMP_EQ_OQ));
  if (nan) return 1;
  _mm512_storeu_ps(mn, rmin);
  _mm512_storeu_ps(mx, rmax);
  unsigned zl = _mm512_cmp_ps_mask(rmin, zero, _CMP_EQ_OQ);
  unsigned zh = _mm512_cmp_ps_mask(rmax, zero, _CMP_EQ_OQ);
  for (unsigned z = zl | zh; z; z &= z - 1) {
    unsigned j = (unsigned)__builtin_ctz(z);
    float f = sq_first_zero(s + 4 * j * block, block);
    if (zl >> j & 1) mn[j] = f;
    if (zh >> j & 1) mx[j] = f;
  }
  return 0;
}

/* Blocks 16 at a time; see mmb_body_avx2 in x86_avx2.c. */
SQ_AI size_t mmb_body_avx512(sq_cb p, size_t n, size_t block, float *mn, float *mx,
                      size_t *done) {
  size_t nb = n / block, g = 0;
  size_t gb = 64 * block;                       /* bytes per group */
  for (; g + 16 <= nb && 4 * g * block + gb + SQ_PF_DIST <= 4 * n; g += 16)
    if (mmb_group_avx512(p + 4 * g * block, block, 1, mn + g, mx + g))
      return g * block + sq_first_nonfinite(p + 4 * g * block, 16 * block);
  for (; g + 16 <= nb; g += 16)
    if (mmb_group_avx512(p + 4 * g * block, block, 0, mn + g, mx + g))
      return g * block + sq_first_nonfinite(p + 4 * g * block, 16 * block);
  *done = g;
  return n;
}

static size_t minmax_blocks_avx512(const void *x, size_t n, size_t block,
                                   float *mn, float *mx) {
  sq_cb p = x;
  /* Blocks under 64 floats: the AVX2 kernel (scalar's under 8).  With one or
  ** two 64-byte vectors per block, the 16-block reduction (512-bit shuffles,
  ** split loads on unaligned data) cost more than AVX2's: block 32 from
  ** memory ran at 0.61x-0.69x memcpy here against 0.42x-0.48x for AVX2's
  ** (Zen 4); from 64 floats up this kernel was as fast or faster (0.47x
  ** against 0.65x at 64). */
  if (block < 64 || (_mm_getcsr() & 0x40))
    return sq_kernels_avx2.minmax_blocks(x, n, block, mn, mx);
  size_t b = 0, r;
  switch (block) {
    case 64: r = mmb_body_avx512(p, n, 64, mn, mx, &b); break;
    case 128: r = mmb_body_avx512(p, n, 128, mn, mx, &b); break;
    default: r = mmb_body_avx512(p, n, block, mn, mx, &b); break;
  }
  if (r < n) return r;
  /* the last (fewer than 16) blocks, and the short one, one minmax each */
  for (size_t start = b * block; start < n; start += block, b++) {
    size_t len = n - start < block ? n - start : block;
    size_t bad = minmax_avx512(p + 4 * start, len, &mn[b], &mx[b]);
    if (bad < len) return start + bad;
  }
  return n;
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const sq_kernels sq_kernels_avx512 = SQ_KERNEL_TABLE(avx512);


/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef SQ_KEEP
#undef SQ_PF_DIST

#else
typedef int sq_unused_avx512;
#endif
