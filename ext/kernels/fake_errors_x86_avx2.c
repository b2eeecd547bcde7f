/*
** fake_errors_x86_avx2.c: sq_fake_sq_errors' avx2 body, 8 parameter
** sets per step (fake_errors_x86.h states what it computes).
** Compiled with a target pragma, never -mavx2: only dispatch.c decides
** whether the avx2 path, and so this function, may run.
*/
#include "kernels/fake_errors_x86.h"
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#define SQ_ROUND(y) _mm256_round_ps(y, SQ_RNE)
#define SQ_LOWPD(b) _mm256_cvtps_pd(_mm256_castps256_ps128(b))
#define SQ_HIGHPD(b) _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1))
SQ_FE_X86(sq_fe_avx2, 8, __m256, __m256d, _mm256_set1_ps, _mm256_set1_pd,
          _mm256_setzero_pd(), _mm256_loadu_ps, _mm256_loadu_pd, _mm256_storeu_pd,
          _mm256_mul_ps, _mm256_div_ps, _mm256_max_ps, _mm256_min_ps, SQ_ROUND,
          SQ_LOWPD, SQ_HIGHPD, _mm256_sub_pd, _mm256_mul_pd, _mm256_add_pd)

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
typedef int sq_unused_fe_avx2;
#endif
