/*
** x86_avx2.c: the AVX2 + F16C kernel path (sq_kernels_avx2).
**
** Every function returns exactly the bytes and the value scalar.c returns, for
** every input.  How, kernel by kernel:
**   1. quantize: NaN test on x (one unordered compare per two vectors, one
**      branch per 32 elements; on a hit the scalar kernel redoes the rest, so
**      the index and the bytes written before it are scalar's), y = x*inv or
**      x/scale, clamp with max_ps(lo, y) / min_ps(hi, y) (the same operand
**      order as scalar's "if (y < lo) y = lo"), round with an explicit
**      round-to-nearest-even immediate, convert, add zp as an integer, narrow
**      by truncation (and + packus, then a permute to undo the lane
**      interleave).  32-bit codes: round in float, add zp and clamp in double;
**   2. dequantize: 8/16-bit codes widen to int32, subtract zp (the call falls
**      back to scalar when zp is so extreme that q - zp could overflow int32),
**      convert (one rounding, as scalar's int64 -> float); 32-bit codes
**      subtract in double (exact; an exact zero forced to +0, as the integer
**      subtraction gives in every rounding mode) and convert to float once;
**   3. minmax: a scalar head up to an aligned address, then lane
**      accumulators min_ps(x, acc) that keep the first occurrence of
**      their extreme, exactly as scalar's strict compare; non-finite values
**      are caught per block and located by a scalar scan of that block; a
**      zero extreme whose lanes disagree on the sign is settled by finding the
**      first zero in the data.  Under MXCSR.DAZ min_ps returns flushed zeros
**      where scalar keeps the denormal's bits, so that mode uses scalar;
**   4. f16 via F16C with immediate rounding 0 (its NaN and subnormal results
**      equal scalar's, and it ignores DAZ/FTZ); bf16 by integer rounding;
**   5. tails and odd shapes go to the scalar table on offset pointers;
**   6. error_sums: lane l of 16 gets elements 16k + l in order, as in scalar
**      (four vectors of doubles per block, exact conversions, multiply then
**      add), on the caller's lanes (error_lanes: scalar's head up to lane 0
**      and tail, sq_error_lanes_scalar; error_sums is error_lanes from lane
**      0, totalled): the same additions in the same order, so the same bits;
**   7. minmax_blocks: eight blocks of 8 floats or more at a time, each folded
**      lane-wise (its last vector may overlap the one before), the eight
**      reduced together by shuffles; non-finite values as in minmax, and a
**      zero extreme is the first zero of its block, as scalar's first
**      occurrence.  Narrower blocks are scalar's.
** Compiled with a target pragma, never -mavx2: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
#endif

/* GCC may re-read a loaded vector from memory for each use that takes it as
** the register operand (min_ps(x, acc)); an empty asm pins it to a register. */
#if defined(__GNUC__) && !defined(__clang__)
#define SQ_KEEP(v) __asm__("" : "+x"(v))
#else
#define SQ_KEEP(v) ((void)0)
#endif




SQ_AI __m256 ldf_avx2(sq_cb p) { return _mm256_loadu_ps((const float *)(const void *)p); }
SQ_AI void stf_avx2(sq_b p, __m256 v) { _mm256_storeu_ps((float *)(void *)p, v); }
SQ_AI __m256i ldi(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
SQ_AI void sti(void *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
SQ_AI __m128i ldi128(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
SQ_AI void sti128(void *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }

/* ---- min / max ---------------------------------------------------------- */





static size_t minmax_avx2(const void *x, size_t n, float *mn, float *mx) {
  sq_cb p = x;
  if (n == 0) return 0;
  if (_mm_getcsr() & 0x40) return sq_kernels_scalar.minmax(x, n, mn, mx);
  /* A scalar head up to a 32-byte boundary keeps the loads within cache
  ** lines; its elements come first, so they win ties as in scalar. */
  size_t h = 0, i;
  if (((uintptr_t)p & 3) == 0) h = ((32 - ((uintptr_t)p & 31)) & 31) / 4;
  if (h > n) h = n;
  float lo = 0.0f, hi = 0.0f;
  int have = 0;
  for (i = 0; i < h; i++)
    if (!sq_fold1(p, i, &have, &lo, &hi)) return i;
  sq_cb pv = p + 4 * h;                 /* the vector part: [h, h + nv) */
  size_t nv = (n - h) & ~(size_t)31;
  if (nv) {
    __m256 a0 = _mm256_set1_ps(sq_load_f32(pv)), a1 = a0, a2 = a0, a3 = a0;
    __m256 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    const __m256 ninf = _mm256_set1_ps(-__builtin_inff());
    const __m256 pinf = _mm256_set1_ps(__builtin_inff());
    for (size_t blk = 0; blk < nv; blk += SQ_MM_BLOCK) {
      size_t end = nv - blk > SQ_MM_BLOCK ? blk + SQ_MM_BLOCK : nv;
      __m256 bad = _mm256_setzero_ps();
      for (i = blk; i < end; i += 32) {
        sq_cb s = pv + 4 * i;
        __m256 x0 = ldf_avx2(s), x1 = ldf_avx2(s + 32),
               x2 = ldf_avx2(s + 64), x3 = ldf_avx2(s + 96);
        SQ_KEEP(x0);
        SQ_KEEP(x1);
        SQ_KEEP(x2);
        SQ_KEEP(x3);
        a0 = _mm256_min_ps(x0, a0);
        a1 = _mm256_min_ps(x1, a1);
        a2 = _mm256_min_ps(x2, a2);
        a3 = _mm256_min_ps(x3, a3);
        b0 = _mm256_max_ps(x0, b0);
        b1 = _mm256_max_ps(x1, b1);
        b2 = _mm256_max_ps(x2, b2);
        b3 = _mm256_max_ps(x3, b3);
        bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_cmp_ps(x0, x1, _CMP_UNORD_Q),
                                             _mm256_cmp_ps(x2, x3, _CMP_UNORD_Q)));
      }
      /* NaN was never taken into an accumulator; an infinity was. */
      __m256 l = _mm256_min_ps(_mm256_min_ps(a0, a1), _mm256_min_ps(a2, a3));
      __m256 u = _mm256_max_ps(_mm256_max_ps(b0, b1), _mm256_max_ps(b2, b3));
      bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_cmp_ps(l, ninf, _CMP_EQ_OQ),
                                           _mm256_cmp_ps(u, pinf, _CMP_EQ_OQ)));
      if (_mm256_movemask_ps(bad))
        return h + blk + sq_first_nonfinite(pv + 4 * blk, end - blk);
    }
    float la[32], ha[32];
    _mm256_storeu_ps(la, a0);
    _mm256_storeu_ps(la + 8, a1);
    _mm256_storeu_ps(la + 16, a2);
    _mm256_storeu_ps(la + 24, a3);
    _mm256_storeu_ps(ha, b0);
    _mm256_storeu_ps(ha + 8, b1);
    _mm256_storeu_ps(ha + 16, b2);
    _mm256_storeu_ps(ha + 24, b3);
    /* first occurrences within the vector part; the head came before it */
    float vlo = sq_pick_extreme(la, 32, 0, pv, nv), vhi = sq_pick_extreme(ha, 32, 1, pv, nv);
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

/* Non-finite lanes of x: |x| > FLT_MAX or unordered. */
SQ_AI __m256 nonfinite(__m256 v) {
  const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  return _mm256_cmp_ps(_mm256_and_ps(v, absm), _mm256_set1_ps(3.40282347e38f),
                       _CMP_NLE_UQ);
}

/* One column block of a row: mn = min_ps(x, mn) keeps the old value on ties
** and ignores a NaN seed's replacement exactly like scalar's "if (v < mn)". */
SQ_AI void fold8(sq_cb s, float *mn, float *mx) {
  __m256 v = ldf_avx2(s);
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
          _mm256_or_ps(nonfinite(ldf_avx2(s)), nonfinite(ldf_avx2(s + 32))),
          _mm256_or_ps(nonfinite(ldf_avx2(s + 64)), nonfinite(ldf_avx2(s + 96))));
      if (_mm256_movemask_ps(bad)) break;
      fold8(s, mn + c, mx + c);
      fold8(s + 32, mn + c + 8, mx + c + 8);
      fold8(s + 64, mn + c + 16, mx + c + 16);
      fold8(s + 96, mn + c + 24, mx + c + 24);
    }
    for (; c + 8 <= channels; c += 8) {
      if (_mm256_movemask_ps(nonfinite(ldf_avx2(row + 4 * c)))) break;
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

SQ_AI __m256 scale_y_avx2(__m256 v, __m256 m, int divide) {
  return divide ? _mm256_div_ps(v, m) : _mm256_mul_ps(v, m);
}

/* Codes up to 16 bits: add `add` (when with_add), clamp in float, round
** half to even, add zp (the caller's zp - (int32_t)add). */
SQ_AI __m256i code_small_avx2(__m256 v, __m256 m, __m256 add, __m256 lo, __m256 hi,
                         __m256i zp, int divide, int with_add) {
  __m256 y = scale_y_avx2(v, m, divide);
  if (with_add) y = _mm256_add_ps(y, add);
  y = _mm256_max_ps(lo, y);
  y = _mm256_min_ps(hi, y);
  y = _mm256_round_ps(y, SQ_RNE);
  return _mm256_add_epi32(_mm256_cvttps_epi32(y), zp);
}

/* 32-bit codes: round in float, then add zp and clamp in double. */
SQ_AI __m128i code_i32_half_avx2(__m128 r, __m256d zpd, __m256d qmin, __m256d qmax) {
  __m256d d = _mm256_add_pd(_mm256_cvtps_pd(r), zpd);
  d = _mm256_max_pd(qmin, d);
  d = _mm256_min_pd(qmax, d);
  return _mm256_cvttpd_epi32(d);
}
SQ_AI __m256i code_i32_avx2(__m256 v, __m256 m, __m256d zlo, __m256d zhi,
                       __m256d qmin, __m256d qmax, int divide) {
  __m256 r = _mm256_round_ps(scale_y_avx2(v, m, divide), SQ_RNE);
  __m128i l = code_i32_half_avx2(_mm256_castps256_ps128(r), zlo, qmin, qmax);
  __m128i h = code_i32_half_avx2(_mm256_extractf128_ps(r, 1), zhi, qmin, qmax);
  return _mm256_set_m128i(h, l);
}

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
SQ_AI void st_32(sq_b d, __m256i c0, __m256i c1, __m256i c2, __m256i c3,
                 int bits) {
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

SQ_AI size_t q_body_avx2(sq_cb src, size_t n, const sq_qparams *p, sq_b dst,
                    int bits, int divide, int with_add) {
  const size_t es = (size_t)bits / 8;
  const __m256 m = _mm256_set1_ps(divide ? p->scale : p->inv);
  const __m256 lo = _mm256_set1_ps(p->lo), hi = _mm256_set1_ps(p->hi);
  const __m256 add = _mm256_set1_ps(with_add ? p->add : 0.0f);
  const __m256i zp = _mm256_set1_epi32(with_add ? p->zp - (int32_t)p->add : p->zp);
  const __m256d zpd = _mm256_set1_pd((double)p->zp);
  const __m256d qmin = _mm256_set1_pd((double)p->qmin);
  const __m256d qmax = _mm256_set1_pd((double)p->qmax);
#define SQ_CODE(v)                                                            \
  (bits == 32 ? code_i32_avx2(v, m, zpd, zpd, qmin, qmax, divide)                  \
              : code_small_avx2(v, m, add, lo, hi, zp, divide, with_add))
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    sq_cb s = src + 4 * i;
    __m256 x0 = ldf_avx2(s), x1 = ldf_avx2(s + 32), x2 = ldf_avx2(s + 64), x3 = ldf_avx2(s + 96);
    if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(x0, x1, _CMP_UNORD_Q),
                                        _mm256_cmp_ps(x2, x3, _CMP_UNORD_Q))))
      break;
    st_32(dst + es * i, SQ_CODE(x0), SQ_CODE(x1), SQ_CODE(x2), SQ_CODE(x3),
          bits);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 v = ldf_avx2(src + 4 * i);
    if (has_nan2(v, v)) break;
    st_8(dst + es * i, SQ_CODE(v), bits);
  }
#undef SQ_CODE
  /* The tail, or everything from the vector holding the first NaN. */
  return i + sq_kernels_scalar.quantize[code_of(bits)](src + 4 * i, n - i, p,
                                                       dst + es * i);
}

SQ_QUANTIZE_ENTRIES(avx2)

/* ---- interleaved (per-channel, last axis) helpers ------------------------ */




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
      __m256 x0 = ldf_avx2(sc), x1 = ldf_avx2(sc + 32),
             x2 = ldf_avx2(sc + 64), x3 = ldf_avx2(sc + 96);
      if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(x0, x1, _CMP_UNORD_Q),
                                          _mm256_cmp_ps(x2, x3, _CMP_UNORD_Q))))
        break;
      st_32(d + es * c, code_il(x0, &a, c, bits, divide, with_add),
            code_il(x1, &a, c + 8, bits, divide, with_add),
            code_il(x2, &a, c + 16, bits, divide, with_add),
            code_il(x3, &a, c + 24, bits, divide, with_add), bits);
    }
    for (; c + 8 <= ch; c += 8) {
      __m256 v = ldf_avx2(s + 4 * c);
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

/* For 8/16-bit codes q - zp fits int32 (and converts with the same single
** rounding as scalar's int64 -> float) unless zp is within 65536 of the int32
** limits; such a zero point is out of every small dtype's range anyway, and
** goes to scalar. */

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

SQ_AI void dq_body_avx2(sq_cb q, size_t n, float scale, int32_t zp, sq_b y,
                   sq_code_type t) {
  const size_t es = sq_esize[t];
  if (t != SQ_CODE_I32 && !sq_zp_small_ok(zp)) {
    sq_kernels_scalar.dequantize[t](q, n, scale, zp, y);
    return;
  }
  const __m256 s = _mm256_set1_ps(scale);
  const __m256i z = _mm256_set1_epi32(zp);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 f0 = dq_conv_avx2(ld_codes_avx2(q, i, t), z, t);
    __m256 f1 = dq_conv_avx2(ld_codes_avx2(q, i + 8, t), z, t);
    __m256 f2 = dq_conv_avx2(ld_codes_avx2(q, i + 16, t), z, t);
    __m256 f3 = dq_conv_avx2(ld_codes_avx2(q, i + 24, t), z, t);
    stf_avx2(y + 4 * i, _mm256_mul_ps(f0, s));
    stf_avx2(y + 4 * i + 32, _mm256_mul_ps(f1, s));
    stf_avx2(y + 4 * i + 64, _mm256_mul_ps(f2, s));
    stf_avx2(y + 4 * i + 96, _mm256_mul_ps(f3, s));
  }
  for (; i + 8 <= n; i += 8)
    stf_avx2(y + 4 * i, _mm256_mul_ps(dq_conv_avx2(ld_codes_avx2(q, i, t), z, t), s));
  if (i < n) sq_kernels_scalar.dequantize[t](q + es * i, n - i, scale, zp, y + 4 * i);
}


SQ_AI void dqi_body_avx2(sq_cb q, size_t rows, const sq_channel_params *p, sq_b y,
                    sq_code_type t) {
  const size_t es = sq_esize[t], ch = p->channels;
  int ok = ch >= 8;
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
    for (; c + 8 <= ch; c += 8) {
      __m256 f = dq_conv_avx2(ld_codes_avx2(qr, c, t), ldi(zp + c), t);
      stf_avx2(yr + 4 * c, _mm256_mul_ps(f, _mm256_loadu_ps(sc + c)));
    }
    if (c < ch) {
      sq_channel_params sp = sq_sub_params(p, c, ch - c);
      sq_kernels_scalar.dequantize_interleaved[t](qr + es * c, 1, &sp, yr + 4 * c);
    }
  }
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

/* ---- half formats -------------------------------------------------------- */

static void f16_to_f32_avx2(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m128i a = ldi128(s + 2 * i), b = ldi128(s + 2 * i + 16);
    __m128i c = ldi128(s + 2 * i + 32), e = ldi128(s + 2 * i + 48);
    stf_avx2(d + 4 * i, _mm256_cvtph_ps(a));
    stf_avx2(d + 4 * i + 32, _mm256_cvtph_ps(b));
    stf_avx2(d + 4 * i + 64, _mm256_cvtph_ps(c));
    stf_avx2(d + 4 * i + 96, _mm256_cvtph_ps(e));
  }
  for (; i + 8 <= n; i += 8) stf_avx2(d + 4 * i, _mm256_cvtph_ps(ldi128(s + 2 * i)));
  if (i < n) sq_kernels_scalar.f16_to_f32(s + 2 * i, n - i, d + 4 * i);
}

static void f32_to_f16_avx2(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m128i a = _mm256_cvtps_ph(ldf_avx2(s + 4 * i), 0);
    __m128i b = _mm256_cvtps_ph(ldf_avx2(s + 4 * i + 32), 0);
    __m128i c = _mm256_cvtps_ph(ldf_avx2(s + 4 * i + 64), 0);
    __m128i e = _mm256_cvtps_ph(ldf_avx2(s + 4 * i + 96), 0);
    sti128(d + 2 * i, a);
    sti128(d + 2 * i + 16, b);
    sti128(d + 2 * i + 32, c);
    sti128(d + 2 * i + 48, e);
  }
  for (; i + 8 <= n; i += 8) sti128(d + 2 * i, _mm256_cvtps_ph(ldf_avx2(s + 4 * i), 0));
  if (i < n) sq_kernels_scalar.f32_to_f16(s + 4 * i, n - i, d + 2 * i);
}

/* bf16 -> f32: shift into place, set the quiet bit of NaNs. */
SQ_AI __m256i bf16_widen_avx2(__m128i h) {
  __m256i b = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
  __m256i ax = _mm256_and_si256(b, _mm256_set1_epi32(0x7fffffff));
  __m256i nan = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7f800000));
  return _mm256_or_si256(b, _mm256_and_si256(nan, _mm256_set1_epi32(0x00400000)));
}

static void bf16_to_f32_avx2(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i v = ldi(s + 2 * i);
    sti(d + 4 * i, bf16_widen_avx2(_mm256_castsi256_si128(v)));
    sti(d + 4 * i + 32, bf16_widen_avx2(_mm256_extracti128_si256(v, 1)));
  }
  for (; i + 8 <= n; i += 8) sti(d + 4 * i, bf16_widen_avx2(ldi128(s + 2 * i)));
  if (i < n) sq_kernels_scalar.bf16_to_f32(s + 2 * i, n - i, d + 4 * i);
}

/* f32 -> bf16 as 32-bit lanes holding the 16-bit result:
** (x + 0x7fff + ((x >> 16) & 1)) >> 16, NaN -> (x >> 16) | 0x40. */
SQ_AI __m256i bf16_round_avx2(__m256i x) {
  __m256i ax = _mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff));
  __m256i nan = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7f800000));
  __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_add_epi32(x, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff)));
  r = _mm256_srli_epi32(r, 16);
  __m256i qn = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(r, qn, nan);
}

static void f32_to_bf16_avx2(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i a = bf16_round_avx2(ldi(s + 4 * i)), b = bf16_round_avx2(ldi(s + 4 * i + 32));
    sti(d + 2 * i, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
  }
  for (; i + 8 <= n; i += 8) {
    __m256i a = bf16_round_avx2(ldi(s + 4 * i));
    sti128(d + 2 * i, _mm_packus_epi32(_mm256_castsi256_si128(a),
                                       _mm256_extracti128_si256(a, 1)));
  }
  if (i < n) sq_kernels_scalar.f32_to_bf16(s + 4 * i, n - i, d + 2 * i);
}

/* ---- error sums ---------------------------------------------------------- */

/* Lane l of the SQ_ERROR_LANES gets elements 16k + l in order, exactly as in
** scalar: a 16-element block is four vectors of doubles (lanes 0-3, 4-7, 8-11,
** 12-15), each converted exactly from four floats, and every sum adds its
** product (multiply, then add: no FMA) to the vector holding those lanes.
** The head, tail and lane totals are scalar's (sq_error_lanes_scalar,
** sq_error_lanes_total).  max |a-b|
** is a max of |d| (sign cleared), exact for finite inputs in any order.
** The 16 accumulators and their operands do not all fit the 16 ymm registers,
** so a few live on the stack (load, add, store): measured from memory that
** beat two passes over L1-sized chunks (lanes 0-7, then 8-15), 0.67x against
** 0.85x memcpy of the 8n bytes.  One max accumulator, not two: the register
** it frees took clang from 22 to 32 bytes/ns in cache (GCC: 32 either way;
** the FP add pipes bound it there, 28 adds, converts and max per block). */
SQ_AI __m256d cvt4(sq_cb p) {
  return _mm256_cvtps_pd(_mm_loadu_ps((const float *)(const void *)p));
}

SQ_AI void es_add_avx2(__m256d u, __m256d v, __m256d *a2, __m256d *b2, __m256d *ab,
                  __m256d *d2, __m256d *mx, __m256d sign) {
  __m256d d = _mm256_sub_pd(u, v);
  *a2 = _mm256_add_pd(*a2, _mm256_mul_pd(u, u));
  *b2 = _mm256_add_pd(*b2, _mm256_mul_pd(v, v));
  *ab = _mm256_add_pd(*ab, _mm256_mul_pd(u, v));
  *d2 = _mm256_add_pd(*d2, _mm256_mul_pd(d, d));
  *mx = _mm256_max_pd(*mx, _mm256_andnot_pd(sign, d));
}

/* error_lanes: scalar's head up to lane 0, then error_sums' blocks with the
** accumulators loaded from and stored back to acc (the same additions in the
** same order per lane), then scalar's tail. */
static void error_lanes_avx2(const void *a, const void *b, size_t n,
                             size_t lane, sq_error_lanes *acc) {
  size_t head = sq_error_lanes_head(a, b, n, lane, acc);
  sq_cb pa = (sq_cb)a + 4 * head, pb = (sq_cb)b + 4 * head;
  const __m256d sign = _mm256_set1_pd(-0.0);
  size_t full = (n - head) / SQ_ERROR_LANES;
  if (full) {
    __m256d A0 = _mm256_loadu_pd(acc->a2), A1 = _mm256_loadu_pd(acc->a2 + 4),
            A2 = _mm256_loadu_pd(acc->a2 + 8), A3 = _mm256_loadu_pd(acc->a2 + 12);
    __m256d B0 = _mm256_loadu_pd(acc->b2), B1 = _mm256_loadu_pd(acc->b2 + 4),
            B2 = _mm256_loadu_pd(acc->b2 + 8), B3 = _mm256_loadu_pd(acc->b2 + 12);
    __m256d C0 = _mm256_loadu_pd(acc->ab), C1 = _mm256_loadu_pd(acc->ab + 4),
            C2 = _mm256_loadu_pd(acc->ab + 8), C3 = _mm256_loadu_pd(acc->ab + 12);
    __m256d D0 = _mm256_loadu_pd(acc->d2), D1 = _mm256_loadu_pd(acc->d2 + 4),
            D2 = _mm256_loadu_pd(acc->d2 + 8), D3 = _mm256_loadu_pd(acc->d2 + 12);
    __m256d M = _mm256_setzero_pd();
    for (size_t k = 0; k < full; k++) {
      sq_cb sa = pa + 64 * k, sb = pb + 64 * k;
      es_add_avx2(cvt4(sa), cvt4(sb), &A0, &B0, &C0, &D0, &M, sign);
      es_add_avx2(cvt4(sa + 16), cvt4(sb + 16), &A1, &B1, &C1, &D1, &M, sign);
      es_add_avx2(cvt4(sa + 32), cvt4(sb + 32), &A2, &B2, &C2, &D2, &M, sign);
      es_add_avx2(cvt4(sa + 48), cvt4(sb + 48), &A3, &B3, &C3, &D3, &M, sign);
    }
    _mm256_storeu_pd(acc->a2, A0), _mm256_storeu_pd(acc->a2 + 4, A1);
    _mm256_storeu_pd(acc->a2 + 8, A2), _mm256_storeu_pd(acc->a2 + 12, A3);
    _mm256_storeu_pd(acc->b2, B0), _mm256_storeu_pd(acc->b2 + 4, B1);
    _mm256_storeu_pd(acc->b2 + 8, B2), _mm256_storeu_pd(acc->b2 + 12, B3);
    _mm256_storeu_pd(acc->ab, C0), _mm256_storeu_pd(acc->ab + 4, C1);
    _mm256_storeu_pd(acc->ab + 8, C2), _mm256_storeu_pd(acc->ab + 12, C3);
    _mm256_storeu_pd(acc->d2, D0), _mm256_storeu_pd(acc->d2 + 4, D1);
    _mm256_storeu_pd(acc->d2 + 8, D2), _mm256_storeu_pd(acc->d2 + 12, D3);
    double m4[4];
    _mm256_storeu_pd(m4, M);
    for (int j = 0; j < 4; j++)
      if (m4[j] > acc->max_abs_d) acc->max_abs_d = m4[j];
  }
  size_t done = head + full * SQ_ERROR_LANES;
  sq_error_lanes_scalar(a, b, done, n, lane, acc);
}

/* error_sums is error_lanes from lane 0 on zeroed lanes, totalled: the same
** additions in the same order as scalar's. */
static void error_sums_avx2(const void *a, const void *b, size_t n,
                            sq_error_sums *out) {
  sq_error_lanes acc;
  memset(&acc, 0, sizeof acc);
  error_lanes_avx2(a, b, n, 0, &acc);
  sq_error_lanes_total(&acc, out);
}

/* ---- per-block min / max ------------------------------------------------- */

/* Bytes ahead of the loads that minmax_blocks prefetches.  The compiler
** interleaves the loads of a group's blocks, and the hardware prefetchers then
** fell behind: from memory, blocks of 64 to 256 floats ran at 1.0x to 1.5x
** memcpy without it, 0.45x to 0.7x with it (Zen 4; 8 KB was the best of 4, 8
** and 16 KB for every block size). */
#define SQ_PF_DIST 8192

/* Vector k of a block of `block` >= 8 floats at s: at 8k, the last one at
** block - 8, where it may overlap the one before it (an element seen twice
** changes neither min nor max, and nothing outside the block is read). */
SQ_AI sq_cb blk_vec_avx2(sq_cb s, size_t block, size_t k) {
  return s + 4 * (8 * k + 8 < block ? 8 * k : block - 8);
}

/* Lane-wise min and max of one block of `block` >= 8 floats at s, its
** vectors loaded in address order.  NaN lanes are or-ed into *nan
** (min_ps/max_ps may drop a NaN; an infinity they keep).  With pf,
** prefetches SQ_PF_DIST ahead, once per 64 bytes loaded. */
SQ_AI void blk_fold_avx2(sq_cb s, size_t block, int pf, __m256 *lo, __m256 *hi,
                    __m256 *nan) {
  const size_t m = (block + 7) / 8;
  if (pf) _mm_prefetch((const char *)(s + SQ_PF_DIST), _MM_HINT_T0);
  __m256 x0 = ldf_avx2(s);
  SQ_KEEP(x0);
  if (m == 1) {
    *lo = *hi = x0;
    *nan = _mm256_or_ps(*nan, _mm256_cmp_ps(x0, x0, _CMP_UNORD_Q));
    return;
  }
  __m256 x1 = ldf_avx2(blk_vec_avx2(s, block, 1));
  SQ_KEEP(x1);
  __m256 l0 = x0, h0 = x0, l1 = x1, h1 = x1;
  __m256 bad = _mm256_cmp_ps(x0, x1, _CMP_UNORD_Q);
  size_t k = 2;
  for (; k + 2 <= m; k += 2) {
    if (pf) _mm_prefetch((const char *)(s + 32 * k + SQ_PF_DIST), _MM_HINT_T0);
    x0 = ldf_avx2(blk_vec_avx2(s, block, k));
    x1 = ldf_avx2(blk_vec_avx2(s, block, k + 1));
    SQ_KEEP(x0);
    SQ_KEEP(x1);
    l0 = _mm256_min_ps(x0, l0);
    l1 = _mm256_min_ps(x1, l1);
    h0 = _mm256_max_ps(x0, h0);
    h1 = _mm256_max_ps(x1, h1);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(x0, x1, _CMP_UNORD_Q));
  }
  if (k < m) {
    x0 = ldf_avx2(blk_vec_avx2(s, block, k));
    SQ_KEEP(x0);
    l0 = _mm256_min_ps(x0, l0);
    h0 = _mm256_max_ps(x0, h0);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(x0, x0, _CMP_UNORD_Q));
  }
  *lo = _mm256_min_ps(l0, l1);
  *hi = _mm256_max_ps(h0, h1);
  *nan = _mm256_or_ps(*nan, bad);
}

/* Two blocks folded, then their lanes paired: lanes (0, 2, 4, 6) of the
** result hold block 0's partial extremes, lanes (1, 3, 5, 7) block 1's. */
SQ_AI void fold_pair_avx2(sq_cb s, size_t block, int pf, __m256 *lo,
                     __m256 *hi, __m256 *nan) {
  __m256 l0, h0, l1, h1;
  blk_fold_avx2(s, block, pf, &l0, &h0, nan);
  blk_fold_avx2(s + 4 * block, block, pf, &l1, &h1, nan);
  *lo = _mm256_min_ps(_mm256_unpacklo_ps(l0, l1), _mm256_unpackhi_ps(l0, l1));
  *hi = _mm256_max_ps(_mm256_unpacklo_ps(h0, h1), _mm256_unpackhi_ps(h0, h1));
}

/* Four blocks: lane 4h + j holds block j's extreme over half h. */
SQ_AI void fold_quad_avx2(sq_cb s, size_t block, int pf, __m256 *lo,
                     __m256 *hi, __m256 *nan) {
  __m256 al, ah, bl, bh;
  fold_pair_avx2(s, block, pf, &al, &ah, nan);
  fold_pair_avx2(s + 8 * block, block, pf, &bl, &bh, nan);
  *lo = _mm256_min_ps(_mm256_shuffle_ps(al, bl, 0x44), _mm256_shuffle_ps(al, bl, 0xee));
  *hi = _mm256_max_ps(_mm256_shuffle_ps(ah, bh, 0x44), _mm256_shuffle_ps(ah, bh, 0xee));
}

/* Eight blocks of 8 floats or more at s, into mn[0..8) and mx[0..8): each
** folded lane-wise, the eight reduced together (lane j of rmin is block j's
** minimum).  Only the value: a zero extreme is scalar's first occurrence,
** the first zero of its block.  Returns 0, or 1 if a value is not finite
** (mn and mx then untouched). */
SQ_AI int mmb_group_avx2(sq_cb s, size_t block, int pf, float *mn, float *mx) {
  const __m256 zero = _mm256_setzero_ps();
  __m256 l0, h0, l1, h1, nan = zero;
  fold_quad_avx2(s, block, pf, &l0, &h0, &nan);
  fold_quad_avx2(s + 16 * block, block, pf, &l1, &h1, &nan);
  __m256 rmin = _mm256_min_ps(_mm256_permute2f128_ps(l0, l1, 0x20),
                              _mm256_permute2f128_ps(l0, l1, 0x31));
  __m256 rmax = _mm256_max_ps(_mm256_permute2f128_ps(h0, h1, 0x20),
                              _mm256_permute2f128_ps(h0, h1, 0x31));
  __m256 inf = _mm256_or_ps(
      _mm256_cmp_ps(rmin, _mm256_set1_ps(-__builtin_inff()), _CMP_EQ_OQ),
      _mm256_cmp_ps(rmax, _mm256_set1_ps(__builtin_inff()), _CMP_EQ_OQ));
  if (_mm256_movemask_ps(_mm256_or_ps(nan, inf))) return 1;
  _mm256_storeu_ps(mn, rmin);
  _mm256_storeu_ps(mx, rmax);
  unsigned zl = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(rmin, zero, _CMP_EQ_OQ));
  unsigned zh = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(rmax, zero, _CMP_EQ_OQ));
  for (unsigned z = zl | zh; z; z &= z - 1) {
    unsigned j = (unsigned)__builtin_ctz(z);
    float f = sq_first_zero(s + 4 * j * block, block);
    if (zl >> j & 1) mn[j] = f;
    if (zh >> j & 1) mx[j] = f;
  }
  return 0;
}

/* Blocks 8 at a time: with prefetching while SQ_PF_DIST ahead is still in
** the input, then without.  Returns the index of the first non-finite
** element, or n; *done is the number of blocks written. */
SQ_AI size_t mmb_body_avx2(sq_cb p, size_t n, size_t block, float *mn, float *mx,
                      size_t *done) {
  size_t nb = n / block, g = 0;
  size_t gb = 32 * block;                       /* bytes per group */
  for (; g + 8 <= nb && 4 * g * block + gb + SQ_PF_DIST <= 4 * n; g += 8)
    if (mmb_group_avx2(p + 4 * g * block, block, 1, mn + g, mx + g))
      return g * block + sq_first_nonfinite(p + 4 * g * block, 8 * block);
  for (; g + 8 <= nb; g += 8)
    if (mmb_group_avx2(p + 4 * g * block, block, 0, mn + g, mx + g))
      return g * block + sq_first_nonfinite(p + 4 * g * block, 8 * block);
  *done = g;
  return n;
}

static size_t minmax_blocks_avx2(const void *x, size_t n, size_t block,
                                 float *mn, float *mx) {
  sq_cb p = x;
  /* Blocks narrower than a vector: scalar's loop beat one vector minmax call
  ** per block (block 4 from memory: 3.2x against 11.8x memcpy). */
  if (block < 8 || (_mm_getcsr() & 0x40))
    return sq_kernels_scalar.minmax_blocks(x, n, block, mn, mx);
  /* the common widths with a constant vector count, fully unrolled */
  size_t b = 0, r;
  switch (block) {
    case 8: r = mmb_body_avx2(p, n, 8, mn, mx, &b); break;
    case 16: r = mmb_body_avx2(p, n, 16, mn, mx, &b); break;
    case 32: r = mmb_body_avx2(p, n, 32, mn, mx, &b); break;
    case 64: r = mmb_body_avx2(p, n, 64, mn, mx, &b); break;
    default: r = mmb_body_avx2(p, n, block, mn, mx, &b); break;
  }
  if (r < n) return r;
  /* the last (fewer than 8) blocks, and the short one, one minmax each */
  for (size_t start = b * block; start < n; start += block, b++) {
    size_t len = n - start < block ? n - start : block;
    size_t bad = minmax_avx2(p + 4 * start, len, &mn[b], &mx[b]);
    if (bad < len) return start + bad;
  }
  return n;
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const sq_kernels sq_kernels_avx2 = SQ_KERNEL_TABLE(avx2);


/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef SQ_KEEP
#undef SQ_PF_DIST

#else
typedef int sq_unused_avx2;
#endif
