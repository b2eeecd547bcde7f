/*
** x86_width.h: the vector vocabulary that the x86 kernel templates are
** written in, for one width (docs/ARCHITECTURE.md#kernel-paths).
**
** An x86 kernel file defines SQ_W (8: AVX2 + F16C, the avx2 path; 16:
** AVX-512 F/BW/VL/DQ, the avx512 path), includes this header, then the
** templates of its algorithms (histc_x86.h, ...), then x86_width_end.h.
** The rules:
**   1. this header switches the compiler's target to the path's instruction
**      sets (a pragma, never -mavx2: only dispatch.c decides what may run);
**      x86_width_end.h switches it back and removes every name below;
**   2. every word is a macro (never a function: several files of one width
**      read this header into the amalgamation) over one intrinsic, or a
**      fixed composition of them, so that a template compiles to the
**      instructions a body written for that width would have: the same
**      operations per lane in the same order.  Where the widths need
**      different instructions for one result (a blend by a vector mask or
**      by a mask register, a masked store of the first lanes) the word hides
**      the difference; where they need a different algorithm (tails,
**      narrowing, lane transposes), the template calls a helper of each ISA
**      file by its suffixed name (SQ_FN);
**   3. no include guard: the amalgamation reads every ISA file into one
**      translation unit, so this header is read once per ISA file
**      (tools/amalgamate.py inlines a header without a guard at every
**      #include);
**   4. float comparisons take the predicates of C's operators (_CMP_GT_OQ
**      for >, _CMP_NEQ_UQ for !=, ...), so NaN steers the lanes as it steers
**      scalar code.
** The types: vfloat (SQ_W floats), vint (SQ_W int32), vdouble (SQ_W / 2
** doubles), vhalf and vihalf (half a vfloat, half a vint), vmask (one flag
** per lane: all-ones lanes of a vfloat on AVX2, a mask register on
** AVX-512).
*/
#if !defined(SQ_W) || (SQ_W != 8 && SQ_W != 16)
#error "define SQ_W as 8 (AVX2) or 16 (AVX-512) before including x86_width.h"
#endif

#include <immintrin.h>
#include "kernels/kernels_internal.h"

#if SQ_W == 8
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
#endif
#else
#if defined(__clang__)
#pragma clang attribute push(                                                \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c"))), \
    apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")
#endif
#endif

/* SQ_FN(name): name_avx2 or name_avx512, the path's name for a function a
** template defines (every path's functions share one translation unit in the
** amalgamation). */
#define SQ_FN_PASTE(name, path) name##_##path
#define SQ_FN_EXPAND(name, path) SQ_FN_PASTE(name, path)
#define SQ_FN(name) SQ_FN_EXPAND(name, SQ_PATH)

/* Loops over registers and sub-blocks unroll, so that vectors stay in
** registers and shift counts and masks become constants. */
#define SQ_PRAGMA(x) _Pragma(#x)
#define SQ_UNROLL(n) SQ_PRAGMA(GCC unroll n)

#if SQ_W == 8

#define SQ_PATH avx2
#define vfloat __m256
#define vint __m256i
#define vdouble __m256d
#define vhalf __m128
#define vihalf __m128i
#define vmask __m256

/* GCC may re-read a loaded vector from memory for each use that takes it as
** the register operand (min_ps(x, acc)); an empty asm pins it to a
** register. */
#if defined(__GNUC__) && !defined(__clang__)
#define SQ_KEEP(v) __asm__("" : "+x"(v))
#else
#define SQ_KEEP(v) ((void)0)
#endif

/* float lanes; loads and stores take a pointer to any type, any alignment */
#define vf_load(p) _mm256_loadu_ps((const float *)(const void *)(p))
#define vf_store(p, v) _mm256_storeu_ps((float *)(void *)(p), v)
#define vf_set1(f) _mm256_set1_ps(f)
/* the float at p in every lane, loaded so (a vbroadcastss from memory: GCC
** would otherwise shuffle it out of a register it just stored) */
#define vf_load1(p) _mm256_broadcast_ss(p)
#define vf_zero() _mm256_setzero_ps()
#define vf_add(a, b) _mm256_add_ps(a, b)
#define vf_sub(a, b) _mm256_sub_ps(a, b)
#define vf_mul(a, b) _mm256_mul_ps(a, b)
#define vf_div(a, b) _mm256_div_ps(a, b)
#define vf_sqrt(a) _mm256_sqrt_ps(a)
#define vf_min(a, b) _mm256_min_ps(a, b)
#define vf_max(a, b) _mm256_max_ps(a, b)
#define vf_abs(a) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a)
#define vf_neg(a) _mm256_xor_ps(_mm256_set1_ps(-0.0f), a)
/* round half to even by the instruction's mode, whatever MXCSR says */
#define vf_round(a) _mm256_round_ps(a, SQ_RNE)
/* SQ_W fp16 at p as floats (F16C: exact) */
#define vf_from_f16(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define vf_cmp(a, b, pred) _mm256_cmp_ps(a, b, pred)
/* a where m is clear, b where it is set */
#define vf_blend(a, b, m) _mm256_blendv_ps(a, b, m)
/* v where m is set, else 0; v where m is clear, else 0 */
#define vf_keep(m, v) _mm256_and_ps(m, v)
#define vf_clear(m, v) _mm256_andnot_ps(m, v)
/* the first lanes of v into p: all SQ_W of them (AVX2's callers always
** have whole vectors) */
#define vf_store_lanes(p, v, lanes) ((void)(lanes), vf_store(p, v))
#define vf_lo(v) _mm256_castps256_ps128(v)
#define vf_hi(v) _mm256_extractf128_ps(v, 1)
/* the sign bits; the lanes as fp16 at p (F16C, rounding immediate 0: to
** nearest even, as scalar's conversion) */
#define vf_signs(v) ((unsigned)_mm256_movemask_ps(v))
#define vf_store_f16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm256_cvtps_ph(v, 0))
/* lane shuffles for transpose-reductions of two vectors a, b: within each
** 128-bit lane, floats 0 and 1 of a and b interleaved (unpacklo) or 2 and 3
** (unpackhi); the same for pairs of floats (unpacklo2, unpackhi2); the
** even-numbered 128-bit lanes of a, then of b (even128), or the odd ones */
#define vf_unpacklo(a, b) _mm256_unpacklo_ps(a, b)
#define vf_unpackhi(a, b) _mm256_unpackhi_ps(a, b)
#define vf_unpacklo2(a, b) \
  _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)))
#define vf_unpackhi2(a, b) \
  _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)))
#define vf_shuffle(a, b, imm) _mm256_shuffle_ps(a, b, imm)
#define vf_even128(a, b) _mm256_permute2f128_ps(a, b, 0x20)
#define vf_odd128(a, b) _mm256_permute2f128_ps(a, b, 0x31)

/* masks */
#define vm_and(a, b) _mm256_and_ps(a, b)
#define vm_or(a, b) _mm256_or_ps(a, b)
/* ~a & b, as the andnot instructions */
#define vm_andnot(a, b) _mm256_andnot_ps(a, b)
#define vm_none() _mm256_setzero_ps()
#define vm_not(m) _mm256_xor_ps(m, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))
#define vm_any(m) (_mm256_movemask_ps(m) != 0)
/* bit j: lane j */
#define vm_bits(m) ((unsigned)_mm256_movemask_ps(m))

/* int32 lanes */
#define vi_load(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define vi_store(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define vi_set1(i) _mm256_set1_epi32(i)
#define vi_add(a, b) _mm256_add_epi32(a, b)
#define vi_sub(a, b) _mm256_sub_epi32(a, b)
#define vi_min(a, b) _mm256_min_epi32(a, b)
#define vi_max(a, b) _mm256_max_epi32(a, b)
#define vi_and(a, b) _mm256_and_si256(a, b)
#define vi_or(a, b) _mm256_or_si256(a, b)
#define vi_slli(a, n) _mm256_slli_epi32(a, n)
#define vi_srli(a, n) _mm256_srli_epi32(a, n)
/* SQ_W bytes at p widened, zero- or sign-extended */
#define vi_load_u8(p) _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
#define vi_load_i8(p) _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
/* v + 1, v - 1 where m is set (an all-ones lane is -1) */
#define vi_inc(m, v) _mm256_sub_epi32(v, _mm256_castps_si256(m))
#define vi_dec(m, v) _mm256_add_epi32(v, _mm256_castps_si256(m))
#define vi_blend(a, b, m) _mm256_blendv_epi8(a, b, _mm256_castps_si256(m))
#define vi_clear(m, v) _mm256_andnot_si256(_mm256_castps_si256(m), v)
/* a | b in the lanes of m, a elsewhere */
#define vi_or_where(m, a, b) _mm256_or_si256(a, _mm256_and_si256(_mm256_castps_si256(m), b))
#define vi_cmpgt(a, b) _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b))
/* float -> int32 truncating, or by MXCSR's rounding; int32 -> float */
#define vi_trunc(f) _mm256_cvttps_epi32(f)
#define vi_cvt(f) _mm256_cvtps_epi32(f)
/* float -> int32 rounding half to even by the instruction's mode */
#define vi_round(f) _mm256_cvttps_epi32(_mm256_round_ps(f, SQ_RNE))
#define vi_to_f(i) _mm256_cvtepi32_ps(i)
#define vi_bits(f) _mm256_castps_si256(f)
/* the halves of v, and back; SQ_W 16-bit values in a vihalf widened */
#define vi_lo(v) _mm256_castsi256_si128(v)
#define vi_hi(v) _mm256_extracti128_si256(v, 1)
#define vi_join(lo, hi) _mm256_set_m128i(hi, lo)
#define vi_from_u16(h) _mm256_cvtepu16_epi32(h)
/* float8 (float8_x86.h): shifts by lane, equality, the float of int bits,
** and the low byte of each lane stored as SQ_W bytes */
#define vi_srlv(a, n) _mm256_srlv_epi32(a, n)
#define vi_sllv(a, n) _mm256_sllv_epi32(a, n)
#define vi_cmpeq(a, b) _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))
#define vf_of_bits(i) _mm256_castsi256_ps(i)
#define vi_store_u8(p, v)                                                    \
  _mm_storel_epi64((__m128i *)(void *)(p),                                   \
                   _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(       \
                       _mm256_shuffle_epi8(v, _mm256_set1_epi32(0x0c080400)), \
                       _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0))))

/* double lanes, and the two halves of a vfloat widened */
#define vd_load(p) _mm256_loadu_pd((const double *)(const void *)(p))
#define vd_store(p, v) _mm256_storeu_pd((double *)(void *)(p), v)
#define vd_set1(d) _mm256_set1_pd(d)
#define vd_zero() _mm256_setzero_pd()
#define vd_add(a, b) _mm256_add_pd(a, b)
#define vd_sub(a, b) _mm256_sub_pd(a, b)
#define vd_mul(a, b) _mm256_mul_pd(a, b)
#define vd_max(a, b) _mm256_max_pd(a, b)
#define vd_min(a, b) _mm256_min_pd(a, b)
#define vd_abs(a) _mm256_andnot_pd(_mm256_set1_pd(-0.0), a)
#define vd_of(h) _mm256_cvtps_pd(h)
/* SQ_W / 2 floats at p, widened (exact) */
#define vd_load_f(p) _mm256_cvtps_pd(_mm_loadu_ps((const float *)(const void *)(p)))
/* double -> int32 truncating */
#define vd_trunc(a) _mm256_cvttpd_epi32(a)

#else /* SQ_W == 16 */

#define SQ_PATH avx512
#define vfloat __m512
#define vint __m512i
#define vdouble __m512d
#define vhalf __m256
#define vihalf __m256i
#define vmask __mmask16

/* See the AVX2 definition; "v" reaches zmm16-31. */
#if defined(__GNUC__) && !defined(__clang__)
#define SQ_KEEP(v) __asm__("" : "+v"(v))
#else
#define SQ_KEEP(v) ((void)0)
#endif

#define vf_load(p) _mm512_loadu_ps((const void *)(p))
#define vf_store(p, v) _mm512_storeu_ps((void *)(p), v)
#define vf_set1(f) _mm512_set1_ps(f)
#define vf_load1(p) _mm512_set1_ps(*(p))
#define vf_zero() _mm512_setzero_ps()
#define vf_add(a, b) _mm512_add_ps(a, b)
#define vf_sub(a, b) _mm512_sub_ps(a, b)
#define vf_mul(a, b) _mm512_mul_ps(a, b)
#define vf_div(a, b) _mm512_div_ps(a, b)
#define vf_sqrt(a) _mm512_sqrt_ps(a)
#define vf_min(a, b) _mm512_min_ps(a, b)
#define vf_max(a, b) _mm512_max_ps(a, b)
#define vf_abs(a) _mm512_abs_ps(a)
#define vf_neg(a) _mm512_xor_ps(_mm512_set1_ps(-0.0f), a)
#define vf_round(a) _mm512_roundscale_ps(a, SQ_RNE)
#define vf_from_f16(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define vf_cmp(a, b, pred) _mm512_cmp_ps_mask(a, b, pred)
#define vf_blend(a, b, m) _mm512_mask_blend_ps(m, a, b)
#define vf_keep(m, v) _mm512_maskz_mov_ps(m, v)
#define vf_clear(m, v) _mm512_maskz_mov_ps((__mmask16)~(m), v)
/* the first `lanes` (1..16) lanes of v into p, nothing past them */
#define vf_store_lanes(p, v, lanes) \
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << (lanes)) - 1u), v)
#define vf_lo(v) _mm512_castps512_ps256(v)
#define vf_hi(v) _mm512_extractf32x8_ps(v, 1)
#define vf_signs(v) ((unsigned)_mm512_movepi32_mask(_mm512_castps_si512(v)))
#define vf_store_f16(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvtps_ph(v, 0))
#define vf_unpacklo(a, b) _mm512_unpacklo_ps(a, b)
#define vf_unpackhi(a, b) _mm512_unpackhi_ps(a, b)
#define vf_unpacklo2(a, b) \
  _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)))
#define vf_unpackhi2(a, b) \
  _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)))
#define vf_shuffle(a, b, imm) _mm512_shuffle_ps(a, b, imm)
#define vf_even128(a, b) _mm512_shuffle_f32x4(a, b, 0x88)
#define vf_odd128(a, b) _mm512_shuffle_f32x4(a, b, 0xdd)

#define vm_and(a, b) ((__mmask16)((a) & (b)))
#define vm_or(a, b) ((__mmask16)((a) | (b)))
#define vm_andnot(a, b) ((__mmask16)(~(a) & (b)))
#define vm_none() ((__mmask16)0)
#define vm_not(m) ((__mmask16)~(m))
#define vm_any(m) ((m) != 0)
#define vm_bits(m) ((unsigned)(m))

#define vi_load(p) _mm512_loadu_si512((const void *)(p))
#define vi_store(p, v) _mm512_storeu_si512((void *)(p), v)
#define vi_set1(i) _mm512_set1_epi32(i)
#define vi_add(a, b) _mm512_add_epi32(a, b)
#define vi_sub(a, b) _mm512_sub_epi32(a, b)
#define vi_min(a, b) _mm512_min_epi32(a, b)
#define vi_max(a, b) _mm512_max_epi32(a, b)
#define vi_and(a, b) _mm512_and_si512(a, b)
#define vi_or(a, b) _mm512_or_si512(a, b)
#define vi_slli(a, n) _mm512_slli_epi32(a, n)
#define vi_srli(a, n) _mm512_srli_epi32(a, n)
#define vi_load_u8(p) _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define vi_load_i8(p) _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define vi_inc(m, v) _mm512_mask_add_epi32(v, m, v, _mm512_set1_epi32(1))
#define vi_dec(m, v) _mm512_mask_sub_epi32(v, m, v, _mm512_set1_epi32(1))
#define vi_blend(a, b, m) _mm512_mask_blend_epi32(m, a, b)
#define vi_clear(m, v) _mm512_maskz_mov_epi32((__mmask16)~(m), v)
#define vi_or_where(m, a, b) _mm512_mask_or_epi32(a, m, a, b)
#define vi_cmpgt(a, b) _mm512_cmpgt_epi32_mask(a, b)
#define vi_trunc(f) _mm512_cvttps_epi32(f)
#define vi_cvt(f) _mm512_cvtps_epi32(f)
#define vi_round(f) _mm512_cvt_roundps_epi32(f, SQ_RNE)
#define vi_to_f(i) _mm512_cvtepi32_ps(i)
#define vi_bits(f) _mm512_castps_si512(f)
#define vi_lo(v) _mm512_castsi512_si256(v)
#define vi_hi(v) _mm512_extracti64x4_epi64(v, 1)
#define vi_join(lo, hi) _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1)
#define vi_from_u16(h) _mm512_cvtepu16_epi32(h)
#define vi_srlv(a, n) _mm512_srlv_epi32(a, n)
#define vi_sllv(a, n) _mm512_sllv_epi32(a, n)
#define vi_cmpeq(a, b) _mm512_cmpeq_epi32_mask(a, b)
#define vf_of_bits(i) _mm512_castsi512_ps(i)
#define vi_store_u8(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm512_cvtepi32_epi8(v))

#define vd_load(p) _mm512_loadu_pd((const void *)(p))
#define vd_store(p, v) _mm512_storeu_pd((void *)(p), v)
#define vd_set1(d) _mm512_set1_pd(d)
#define vd_zero() _mm512_setzero_pd()
#define vd_add(a, b) _mm512_add_pd(a, b)
#define vd_sub(a, b) _mm512_sub_pd(a, b)
#define vd_mul(a, b) _mm512_mul_pd(a, b)
#define vd_max(a, b) _mm512_max_pd(a, b)
#define vd_min(a, b) _mm512_min_pd(a, b)
#define vd_abs(a) _mm512_abs_pd(a)
#define vd_of(h) _mm512_cvtps_pd(h)
#define vd_load_f(p) _mm512_cvtps_pd(_mm256_loadu_ps((const float *)(const void *)(p)))
#define vd_trunc(a) _mm512_cvttpd_epi32(a)

#endif
