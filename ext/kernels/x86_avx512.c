/*
** x86_avx512.c: the AVX-512 (F, BW, VL, DQ) + F16C kernel path
** (sq_kernels_avx512).
**
** x86_kernels.h holds the algorithms both x86 paths share and states how
** each kernel returns exactly scalar.c's bytes and value.  What is
** AVX-512's own:
**   1. tails are masked loads and stores (no fault, no access past the end),
**      so only a few shapes still go to scalar;
**   2. quantize rounds with embedded rounding ({rn-sae}: round to nearest
**      even, whatever MXCSR says) and narrows with vpmovdb/vpmovdw, which
**      truncate exactly like scalar's c & 0xff / c & 0xffff;
**   3. a NaN in a tail vector is located with its compare mask: the lanes
**      before it are stored and its index returned, so the output equals
**      scalar's;
**   4. dequantize's 32-bit codes subtract in int64 (exact, and +0 for
**      q == zp in every rounding mode), converted with one rounding;
**   5. quantize_interleaved and minmax_interleaved are the AVX2 kernels
**      (measured faster; see the note above minmax_interleaved_avx512);
**   6. 4-bit packing by masked byte loads and vpmovwb.
** Only dispatch.c decides whether these functions may run.
*/
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 16
#include "kernels/x86_width.h"
#include "kernels/x86_kernels.h"

SQ_AI __m512 ldf_m(sq_cb p, __mmask16 k) { return _mm512_maskz_loadu_ps(k, (const void *)p); }
SQ_AI void stf_m(sq_b p, __mmask16 k, __m512 v) { _mm512_mask_storeu_ps((void *)p, k, v); }
SQ_AI __mmask16 mask16(size_t rem) {
  return rem >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << rem) - 1u);
}

/* ---- min / max per channel ---------------------------------------------- */

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

SQ_AI void st_codes4_avx512(sq_b d, __m512i c0, __m512i c1, __m512i c2,
                           __m512i c3, int bits) {
  const size_t es = (size_t)bits / 8;
  st_codes(d, 0xffff, c0, bits);
  st_codes(d + 16 * es, 0xffff, c1, bits);
  st_codes(d + 32 * es, 0xffff, c2, bits);
  st_codes(d + 48 * es, 0xffff, c3, bits);
}

SQ_AI size_t q_tail_avx512(sq_cb src, size_t i, size_t n, const sq_qparams *p,
                           sq_b dst, const sq_qv_avx512 *c, int bits,
                           int divide, int with_add) {
  const size_t es = (size_t)bits / 8;
  (void)p;
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512 v = ldf_m(src + 4 * i, k);           /* masked-off lanes are 0 */
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    __m512i q = q_code_avx512(v, c, bits, divide, with_add);
    if (nan) {
      unsigned j = (unsigned)__builtin_ctz((unsigned)nan);
      st_codes(dst + es * i, (__mmask16)((1u << j) - 1u), q, bits);
      return i + j;
    }
    st_codes(dst + es * i, k, q, bits);
  }
  return n;
}

SQ_QUANTIZE_ENTRIES(avx512)

/* ---- interleaved (per-channel, last axis) quantize ----------------------- */

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
SQ_AI __m512i ld_codes_m(sq_cb q, size_t i, __mmask16 k, sq_code_type t) {
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

/* All sixteen. */
SQ_AI __m512i ld_codes_avx512(sq_cb q, size_t i, sq_code_type t) {
  return ld_codes_m(q, i, 0xffff, t);
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

SQ_AI void dq_tail_avx512(sq_cb q, size_t i, size_t n, float scale,
                          int32_t zp, sq_b y, sq_code_type t) {
  const __m512 s = _mm512_set1_ps(scale);
  const __m512i z = _mm512_set1_epi32(zp);
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    stf_m(y + 4 * i, k, _mm512_mul_ps(dq_conv_avx512(ld_codes_m(q, i, k, t), z, t), s));
  }
}

SQ_AI void dqi_tail_avx512(sq_cb q, size_t c, size_t ch, const float *sc,
                           const int32_t *zp, const sq_channel_params *p,
                           sq_b y, sq_code_type t) {
  (void)p;
  __mmask16 k = mask16(ch - c);
  __m512i z = _mm512_maskz_loadu_epi32(k, (const void *)(zp + c));
  __m512 f = dq_conv_avx512(ld_codes_m(q, c, k, t), z, t);
  stf_m(y + 4 * c, k, _mm512_mul_ps(f, ldf_m((sq_cb)(sc + c), k)));
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

/* ---- half formats: the tails, masked ------------------------------------ */

SQ_AI void f16_tail_avx512(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    stf_m(d + 4 * i, k, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, s + 2 * i)));
  }
}

SQ_AI void f32_to_f16_tail_avx512(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    _mm256_mask_storeu_epi16(d + 2 * i, k, _mm512_cvtps_ph(ldf_m(s + 4 * i, k), 0));
  }
}

SQ_AI void bf16_tail_avx512(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    _mm512_mask_storeu_epi32(d + 4 * i, k,
                             bf16_widen_avx512(_mm256_maskz_loadu_epi16(k, s + 2 * i)));
  }
}

SQ_AI void st_bf16x2_avx512(sq_b d, __m512i a, __m512i b) {
  _mm256_storeu_si256((__m256i *)(void *)d, _mm512_cvtepi32_epi16(a));
  _mm256_storeu_si256((__m256i *)(void *)(d + 32), _mm512_cvtepi32_epi16(b));
}

SQ_AI void f32_to_bf16_tail_avx512(sq_cb s, size_t i, size_t n, sq_b d) {
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512i x = _mm512_maskz_loadu_epi32(k, s + 4 * i);
    _mm512_mask_cvtepi32_storeu_epi16(d + 2 * i, k, bf16_round_avx512(x));
  }
}

#include "kernels/float8_x86.h"
#include "kernels/x86_width_end.h"

const sq_kernels sq_kernels_avx512 = SQ_KERNEL_TABLE(avx512);

#else
typedef int sq_unused_avx512;
#endif
