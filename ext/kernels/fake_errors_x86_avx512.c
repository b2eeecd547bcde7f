/*
** fake_errors_x86_avx512.c: sq_fake_sq_errors' avx512 body, 16 parameter
** sets per step (fake_errors_x86.h states what it computes).
** Compiled with a target pragma, never -mavx512: only dispatch.c decides
** whether the avx512 path, and so this function, may run.
*/
#include "kernels/fake_errors_x86.h"
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2")
#endif

#define SQ_ROUND(y) _mm512_roundscale_ps(y, SQ_RNE)
#define SQ_LOWPD(b) _mm512_cvtps_pd(_mm512_castps512_ps256(b))
#define SQ_HIGHPD(b) _mm512_cvtps_pd(_mm512_extractf32x8_ps(b, 1))
SQ_FE_X86(sq_fe_avx512, 16, __m512, __m512d, _mm512_set1_ps, _mm512_set1_pd,
          _mm512_setzero_pd(), _mm512_loadu_ps, _mm512_loadu_pd, _mm512_storeu_pd,
          _mm512_mul_ps, _mm512_div_ps, _mm512_max_ps, _mm512_min_ps, SQ_ROUND,
          SQ_LOWPD, SQ_HIGHPD, _mm512_sub_pd, _mm512_mul_pd, _mm512_add_pd)

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif


/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef SQ_ROUND
#undef SQ_LOWPD
#undef SQ_HIGHPD

#else
typedef int sq_unused_fe_avx512;
#endif
