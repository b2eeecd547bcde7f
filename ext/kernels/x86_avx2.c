/*
** x86_avx2.c: the AVX2 + F16C kernel path (sq_kernels_avx2).
**
** x86_kernels.h holds the algorithms both x86 paths share and states how
** each kernel returns exactly scalar.c's bytes and value.  What is AVX2's
** own:
**   1. tails: whole vectors, then the scalar table on offset pointers; a
**      NaN in quantize's last vectors sends the rest to scalar, which
**      finds it;
**   2. codes narrow by truncation with and + packus, then a permute to undo
**      packus's per-128-bit-lane interleave;
**   3. dequantize's 32-bit codes subtract in double (exact; an exact zero
**      forced to +0, as the integer subtraction gives in every rounding
**      mode) and convert to float once;
**   4. minmax_interleaved and quantize_interleaved (the AVX-512 path uses
**      these too): per-channel parameters loaded as vectors, a row's last
**      channels scalar's;
**   5. 4-bit packing by byte shifts and packus.
** Only dispatch.c decides whether these functions may run.
*/
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 8
#include "kernels/x86_width.h"
#include "kernels/x86_kernels.h"

SQ_AI __m256i ldi(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
SQ_AI void sti(void *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
SQ_AI __m128i ldi128(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
SQ_AI void sti128(void *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }

/* ---- min / max per channel ---------------------------------------------- */

/* Non-finite lanes of x: |x| > FLT_MAX or unordered. */
SQ_AI __m256 nonfinite(__m256 v) {
  const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  return _mm256_cmp_ps(_mm256_and_ps(v, absm), _mm256_set1_ps(3.40282347e38f),
                       _CMP_NLE_UQ);
}

/* One column block of a row: mn = min_ps(x, mn) keeps the old value on ties
** and ignores a NaN seed's replacement exactly like scalar's "if (v < mn)". */
SQ_AI void fold8(sq_cb s, float *mn, float *mx) {
  __m256 v = vf_load(s);
  _mm256_storeu_ps(mn, _mm256_min_ps(v, _mm256_loadu_ps(mn)));
  _mm256_storeu_ps(mx, _mm256_max_ps(v, _mm256_loadu_ps(mx)));
}

static size_t minmax_interleaved_avx2(const void *x, size_t rows,
                                      size_t channels, float *mn, float *mx) {
  sq_cb p = x;
  if (channels < 8 || (_mm_getcsr() & 0x40))
    return sq_kernels_scalar.minmax_interleaved(x, rows, channels, mn, mx);
  for (size_t r = 0; r < rows; r++) {
    sq_cb row = p + 4 * r * channels;
    size_t c = 0;
    for (; c + 32 <= channels; c += 32) {
      sq_cb s = row + 4 * c;
      __m256 bad = _mm256_or_ps(
          _mm256_or_ps(nonfinite(vf_load(s)), nonfinite(vf_load(s + 32))),
          _mm256_or_ps(nonfinite(vf_load(s + 64)), nonfinite(vf_load(s + 96))));
      if (_mm256_movemask_ps(bad)) break;
      fold8(s, mn + c, mx + c);
      fold8(s + 32, mn + c + 8, mx + c + 8);
      fold8(s + 64, mn + c + 16, mx + c + 16);
      fold8(s + 96, mn + c + 24, mx + c + 24);
    }
    for (; c + 8 <= channels; c += 8) {
      if (_mm256_movemask_ps(nonfinite(vf_load(row + 4 * c)))) break;
      fold8(row + 4 * c, mn + c, mx + c);
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

/* Narrowing by truncation (scalar stores c & 0xff / c & 0xffff).  packus on
** 256-bit vectors works per 128-bit lane, hence the permutes. */
SQ_AI void st_b32(sq_b d, __m256i c0, __m256i c1, __m256i c2, __m256i c3) {
  const __m256i m = _mm256_set1_epi32(0xff);
  __m256i a = _mm256_packus_epi32(_mm256_and_si256(c0, m), _mm256_and_si256(c1, m));
  __m256i b = _mm256_packus_epi32(_mm256_and_si256(c2, m), _mm256_and_si256(c3, m));
  __m256i r = _mm256_packus_epi16(a, b);
  r = _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  sti(d, r);
}
SQ_AI void st_b8(sq_b d, __m256i c) {
  c = _mm256_and_si256(c, _mm256_set1_epi32(0xff));
  __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(c),
                               _mm256_extracti128_si256(c, 1));
  _mm_storeu_si64(d, _mm_packus_epi16(w, w));
}
SQ_AI void st_w16(sq_b d, __m256i c0, __m256i c1) {
  const __m256i m = _mm256_set1_epi32(0xffff);
  __m256i r = _mm256_packus_epi32(_mm256_and_si256(c0, m), _mm256_and_si256(c1, m));
  sti(d, _mm256_permute4x64_epi64(r, 0xd8));
}
SQ_AI void st_w8(sq_b d, __m256i c) {
  c = _mm256_and_si256(c, _mm256_set1_epi32(0xffff));
  sti128(d, _mm_packus_epi32(_mm256_castsi256_si128(c),
                             _mm256_extracti128_si256(c, 1)));
}

SQ_AI int has_nan2(__m256 a, __m256 b) {
  return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q));
}

SQ_AI sq_code_type code_of(int bits) {
  return bits == 8 ? SQ_CODE_I8 : bits == 16 ? SQ_CODE_I16 : SQ_CODE_I32;
}

/* Store 8 codes of the given width. */
SQ_AI void st_8(sq_b d, __m256i c, int bits) {
  if (bits == 8) st_b8(d, c);
  else if (bits == 16) st_w8(d, c);
  else sti(d, c);
}
/* Store 32 codes. */
SQ_AI void st_codes4_avx2(sq_b d, __m256i c0, __m256i c1, __m256i c2,
                         __m256i c3, int bits) {
  if (bits == 8) {
    st_b32(d, c0, c1, c2, c3);
  } else if (bits == 16) {
    st_w16(d, c0, c1);
    st_w16(d + 32, c2, c3);
  } else {
    sti(d, c0);
    sti(d + 32, c1);
    sti(d + 64, c2);
    sti(d + 96, c3);
  }
}

SQ_AI size_t q_tail_avx2(sq_cb src, size_t i, size_t n, const sq_qparams *p,
                        sq_b dst, const sq_qv_avx2 *c, int bits, int divide,
                        int with_add) {
  const size_t es = (size_t)bits / 8;
  for (; i + 8 <= n; i += 8) {
    __m256 v = vf_load(src + 4 * i);
    if (has_nan2(v, v)) break;
    st_8(dst + es * i, q_code_avx2(v, c, bits, divide, with_add), bits);
  }
  /* the rest, or everything from the vector holding the first NaN */
  return i + sq_kernels_scalar.quantize[code_of(bits)](src + 4 * i, n - i, p,
                                                       dst + es * i);
}

SQ_QUANTIZE_ENTRIES(avx2)

/* ---- interleaved (per-channel, last axis) quantize ----------------------- */

/* The parameter arrays, copied out of sq_channel_params: stores through the
** byte pointers may alias *p, so reading p->lo in the loop would reload it
** after every store. */
typedef struct sq_il {
  const float *m, *lo, *hi, *add;
  const int32_t *zp;
  __m256d qmin, qmax;
} sq_il;

SQ_AI sq_il il_of(const sq_channel_params *p, int divide) {
  sq_il a;
  a.m = divide ? p->scale : p->inv;
  a.lo = p->lo;
  a.hi = p->hi;
  a.add = p->add;
  a.zp = p->zp;
  a.qmin = _mm256_set1_pd((double)p->qmin);
  a.qmax = _mm256_set1_pd((double)p->qmax);
  return a;
}

SQ_AI __m256i code_il(__m256 v, const sq_il *a, size_t c, int bits, int divide,
                      int with_add) {
  __m256 m = _mm256_loadu_ps(a->m + c);
  __m256i z = ldi(a->zp + c);
  if (bits == 32) {
    __m256d zlo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(z));
    __m256d zhi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(z, 1));
    return code_i32_avx2(v, m, zlo, zhi, a->qmin, a->qmax, divide);
  }
  __m256 lo = _mm256_loadu_ps(a->lo + c), hi = _mm256_loadu_ps(a->hi + c);
  if (!with_add) return code_small_avx2(v, m, lo, lo, hi, z, divide, 0);
  /* add holds integers below 2^24 in magnitude: truncation is exact. */
  __m256 ad = _mm256_loadu_ps(a->add + c);
  return code_small_avx2(v, m, ad, lo, hi,
                    _mm256_sub_epi32(z, _mm256_cvttps_epi32(ad)), divide, 1);
}

/* Bytes ahead of the loads that qi_body_avx2 prefetches. */
#define SQ_IL_PREFETCH 4096

SQ_AI size_t qi_body_avx2(sq_cb src, size_t rows, const sq_channel_params *p,
                     sq_b dst, int bits, int divide, int with_add) {
  const size_t es = (size_t)bits / 8, ch = p->channels;
  const sq_code_type t = code_of(bits);
  if (ch < 8) return sq_kernels_scalar.quantize_interleaved[t](src, rows, p, dst);
  const sq_il a = il_of(p, divide);
  for (size_t r = 0; r < rows; r++) {
    sq_cb s = src + 4 * r * ch;
    sq_b d = dst + es * r * ch;
    size_t c = 0;
    for (; c + 32 <= ch; c += 32) {
      sq_cb sc = s + 4 * c;
      /* The next page of floats, asked for now: the parameter
      ** arrays (16-20 bytes a channel) miss L1 once a row passes about
      ** 1500 channels, and their misses crowd out the hardware's own
      ** prefetch of the data stream.  4 KB ahead measured best: at 4096
      ** channels the kernel went from about 0.7x to 0.97x the speed of a
      ** memcpy of its input, and 256 channels got faster too
      ** (docs/PERFORMANCE.md).  A prefetch past the end of the input does
      ** not fault. */
      _mm_prefetch((const char *)sc + SQ_IL_PREFETCH, _MM_HINT_T0);
      _mm_prefetch((const char *)sc + SQ_IL_PREFETCH + 64, _MM_HINT_T0);
      __m256 x0 = vf_load(sc), x1 = vf_load(sc + 32),
             x2 = vf_load(sc + 64), x3 = vf_load(sc + 96);
      if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(x0, x1, _CMP_UNORD_Q),
                                          _mm256_cmp_ps(x2, x3, _CMP_UNORD_Q))))
        break;
      st_codes4_avx2(d + es * c, code_il(x0, &a, c, bits, divide, with_add),
                     code_il(x1, &a, c + 8, bits, divide, with_add),
                     code_il(x2, &a, c + 16, bits, divide, with_add),
                     code_il(x3, &a, c + 24, bits, divide, with_add), bits);
    }
    for (; c + 8 <= ch; c += 8) {
      __m256 v = vf_load(s + 4 * c);
      if (has_nan2(v, v)) break;
      st_8(d + es * c, code_il(v, &a, c, bits, divide, with_add), bits);
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

SQ_AI size_t qi_run_avx2(sq_cb src, size_t rows, const sq_channel_params *p,
                     sq_b dst, int bits) {
  if (bits != 32 && p->divide && sq_any_add(p))
    return p->divide ? qi_body_avx2(src, rows, p, dst, bits, 1, 1)
                     : qi_body_avx2(src, rows, p, dst, bits, 0, 1);
  return p->divide ? qi_body_avx2(src, rows, p, dst, bits, 1, 0)
                   : qi_body_avx2(src, rows, p, dst, bits, 0, 0);
}


SQ_DEFINE_QI_ENTRY(avx2, 8)
SQ_QUANTIZE_IL_ENTRIES(avx2)

/* ---- dequantize ---------------------------------------------------------- */

/* Eight codes of type t at element i, as int32. */
SQ_AI __m256i ld_codes_avx2(sq_cb q, size_t i, sq_code_type t) {
  switch (t) {
    case SQ_CODE_I8: return _mm256_cvtepi8_epi32(_mm_loadu_si64(q + i));
    case SQ_CODE_U8: return _mm256_cvtepu8_epi32(_mm_loadu_si64(q + i));
    case SQ_CODE_I16: return _mm256_cvtepi16_epi32(ldi128(q + 2 * i));
    case SQ_CODE_U16: return _mm256_cvtepu16_epi32(ldi128(q + 2 * i));
    default: return ldi(q + 4 * i);
  }
}

/* q - zp in double: exact (|q - zp| < 2^33), but an exact zero difference
** is -0 when rounding downward, where scalar's int64 gives +0: the mask
** clears that sign. */
SQ_AI __m256d sub_exact(__m128i q, __m128i zp) {
  __m256d a = _mm256_cvtepi32_pd(q), b = _mm256_cvtepi32_pd(zp);
  return _mm256_and_pd(_mm256_sub_pd(a, b), _mm256_cmp_pd(a, b, _CMP_NEQ_OQ));
}

/* (float)(q - zp): int32 for small codes, exact double for 32-bit codes,
** then one rounding to float, as scalar's int64 -> float. */
SQ_AI __m256 dq_conv_avx2(__m256i v, __m256i zp, sq_code_type t) {
  if (t != SQ_CODE_I32) return _mm256_cvtepi32_ps(_mm256_sub_epi32(v, zp));
  __m256d l = sub_exact(_mm256_castsi256_si128(v), _mm256_castsi256_si128(zp));
  __m256d h = sub_exact(_mm256_extracti128_si256(v, 1),
                        _mm256_extracti128_si256(zp, 1));
  return _mm256_set_m128(_mm256_cvtpd_ps(h), _mm256_cvtpd_ps(l));
}

SQ_AI void dq_tail_avx2(sq_cb q, size_t i, size_t n, float scale, int32_t zp,
                        sq_b y, sq_code_type t) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256i z = _mm256_set1_epi32(zp);
  for (; i + 8 <= n; i += 8)
    vf_store(y + 4 * i, _mm256_mul_ps(dq_conv_avx2(ld_codes_avx2(q, i, t), z, t), s));
  if (i < n)
    sq_kernels_scalar.dequantize[t](q + sq_esize[t] * i, n - i, scale, zp, y + 4 * i);
}

SQ_AI void dqi_tail_avx2(sq_cb q, size_t c, size_t ch, const float *sc,
                         const int32_t *zp, const sq_channel_params *p,
                         sq_b y, sq_code_type t) {
  (void)sc;
  (void)zp;
  sq_channel_params sp = sq_sub_params(p, c, ch - c);
  sq_kernels_scalar.dequantize_interleaved[t](q + sq_esize[t] * c, 1, &sp, y + 4 * c);
}

SQ_DEFINE_DQI_ENTRY(avx2, 8)
SQ_DEQUANTIZE_ENTRIES(avx2)

/* ---- 4-bit packing ------------------------------------------------------- */

/* 32 codes -> 16 bytes: in each 16-bit pair, low byte | high byte << 4. */
SQ_AI __m256i pack_pairs(__m256i v) {
  __m256i w = _mm256_and_si256(v, _mm256_set1_epi8(0x0f));
  w = _mm256_or_si256(w, _mm256_srli_epi16(w, 4));
  return _mm256_and_si256(w, _mm256_set1_epi16(0x00ff));
}

static void pack4_avx2(const void *codes, size_t n, void *packed) {
  sq_cb c = codes;
  sq_b d = packed;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = pack_pairs(ldi(c + i)), b = pack_pairs(ldi(c + i + 32));
    sti(d + i / 2, _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8));
  }
  if (i < n) sq_kernels_scalar.pack4(c + i, n - i, d + i / 2);
}

static void unpack4_avx2(const void *packed, size_t n, int is_signed,
                         void *codes) {
  sq_cb s = packed;
  sq_b d = codes;
  const __m128i lowm = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m128i b = ldi128(s + i / 2);
    __m128i lo = _mm_and_si128(b, lowm);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), lowm);
    __m128i u0 = _mm_unpacklo_epi8(lo, hi), u1 = _mm_unpackhi_epi8(lo, hi);
    if (is_signed) {      /* sign-extend the nibble: (v ^ 8) - 8 */
      u0 = _mm_sub_epi8(_mm_xor_si128(u0, eight), eight);
      u1 = _mm_sub_epi8(_mm_xor_si128(u1, eight), eight);
    }
    sti128(d + i, u0);
    sti128(d + i + 16, u1);
  }
  if (i < n) sq_kernels_scalar.unpack4(s + i / 2, n - i, is_signed, d + i);
}

/* ---- half formats: the tails -------------------------------------------- */

SQ_AI void f16_tail_avx2(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i + 8 <= n; i += 8) vf_store(d + 4 * i, _mm256_cvtph_ps(ldi128(s + 2 * i)));
  if (i < n) sq_kernels_scalar.f16_to_f32(s + 2 * i, n - i, d + 4 * i);
}

SQ_AI void f32_to_f16_tail_avx2(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i + 8 <= n; i += 8) sti128(d + 2 * i, _mm256_cvtps_ph(vf_load(s + 4 * i), 0));
  if (i < n) sq_kernels_scalar.f32_to_f16(s + 4 * i, n - i, d + 2 * i);
}

SQ_AI void bf16_tail_avx2(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i + 8 <= n; i += 8) sti(d + 4 * i, bf16_widen_avx2(ldi128(s + 2 * i)));
  if (i < n) sq_kernels_scalar.bf16_to_f32(s + 2 * i, n - i, d + 4 * i);
}

SQ_AI void st_bf16x2_avx2(sq_b d, __m256i a, __m256i b) {
  sti(d, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
}

SQ_AI void f32_to_bf16_tail_avx2(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i + 8 <= n; i += 8) {
    __m256i a = bf16_round_avx2(ldi(s + 4 * i));
    sti128(d + 2 * i, _mm_packus_epi32(_mm256_castsi256_si128(a),
                                       _mm256_extracti128_si256(a, 1)));
  }
  if (i < n) sq_kernels_scalar.f32_to_bf16(s + 4 * i, n - i, d + 2 * i);
}

#include "kernels/float8_x86.h"
#include "kernels/x86_width_end.h"

const sq_kernels sq_kernels_avx2 = SQ_KERNEL_TABLE(avx2);

#else
typedef int sq_unused_avx2;
#endif
