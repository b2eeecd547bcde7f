/*
** ggml_kquants.h: the K-quant quantizers' sub-block searches as a table
** each kernel path fills in (docs/NUMERICS.md#ggml).
**
** Nearly all of a K-quant quantizer's time goes into ggml's scale searches,
** and a super-block's sub-blocks are searched independently of each other.
** The scalar table runs ggml's searches (ggml_search.c) on one sub-block
** after another; a vector table runs the sub-blocks side by side, one per
** lane, every lane doing the scalar search's float operations in the
** scalar order, so the results are the same bits.  Everything around the
** searches (weights, the scales of the scales, requantization, packing) is
** ggml_quantize_kquants.c's, shared by every path.  The weighted legacy
** quantizers (q4_0 .. q5_1 with importance) use the same tables, a block of
** 32 as one sub-block (ggml_quantize_legacy.c).
*/
#ifndef SQ_GGML_KQUANTS_H
#define SQ_GGML_KQUANTS_H

#include "kernels/ggml_internal.h"

/* Longest sub-block a search table must handle. */
#define SQ_KQ_MAX_LEN 32
/* Super-blocks searched together: 16 sub-blocks of q4_K/q5_K for the 16
** lanes of AVX-512, 32 of q2_K/q3_K/q6_K. */
#define SQ_KQ_BATCH 2

/* The constants of one affine search (make_qkx2_quants when flat_if_le is 0,
** make_qkx3_quants when 1; see ggml_search.c). */
typedef struct sq_kq_affine {
  int len, nmax;
  float rmin, rdelta;
  int nstep, use_mad, flat_if_le;
} sq_kq_affine;

/* Each function searches nsub sub-blocks of len <= SQ_KQ_MAX_LEN values
** (nsub a multiple of 8, at most 16 * SQ_KQ_BATCH), stored one after another in x (and w); sub-block j
** gets scales[j] (and mins[j]: the_min) and the levels L[len*j .. len*j+len). */
typedef struct sq_kq_search {
  /* make_qkx2/qkx3_quants(len, nmax, x_j, w_j, L_j, &mins[j], ...). */
  void (*affine)(const sq_kq_affine *a, int nsub, const float *x,
                 const float *w, float *scales, float *mins, uint8_t *L);
  /* make_qx_quants(len, nmax, x_j, L_j, 1, w ? w_j : NULL). */
  void (*symmetric)(int nsub, int len, int nmax, const float *x,
                    const float *w, float *scales, int8_t *L);
  /* make_q3_quants(len, nmax, x_j, L_j, 1). */
  void (*q3)(int nsub, int len, int nmax, const float *x, float *scales,
             int8_t *L);
  /* Requantization against the decoded sub-block scales ds[j] (and
  ** minimums dm[j]; NULL for the symmetric types): unless ds[j] == 0,
  ** L_j[i] = clamp(nearest_int((x_j[i] + dm[j]) / ds[j]), lo, hi) - lo, or
  ** nearest_int(x_j[i] / ds[j]) without minimums.  A sub-block whose ds is
  ** zero keeps the search's levels. */
  void (*requantize)(int nsub, int len, const float *x, const float *ds,
                     const float *dm, int lo, int hi, unsigned char *L);
} sq_kq_search;

extern const sq_kq_search sq_kq_search_scalar;

/* A K-quant row (type q2_K .. q6_K) as sq_ggml_kernels.quantize specifies,
** with the searches of table s. */
void sq_ggml_kquant_row(sq_ggml_type type, const sq_kq_search *s,
                        const void *x, size_t n, const void *importance,
                        void *blocks);

/* The count floats of x (little-endian) into xb and the search weights of
** ggml's weighted legacy quantizers into w: imp[j] * sqrt(sigma2 + x[j]^2),
** one rounding per operation (count is a multiple of 32). */
typedef void (*sq_legacy_weigh_fn)(const unsigned char *x,
                                   const unsigned char *imp, float sigma2,
                                   size_t count, float *xb, float *w);

/* The weighted legacy quantizers (q4_0, q4_1, q5_0, q5_1 with importance,
** as sq_ggml_kernels.quantize specifies) with the searches of table s and
** the weights of weigh (NULL: the scalar loop): a legacy block of 32 is
** searched as one sub-block (ggml_quantize_legacy.c). */
void sq_ggml_legacy_weighted_row(sq_ggml_type type, const sq_kq_search *s,
                                 sq_legacy_weigh_fn weigh, const void *x,
                                 size_t n, const void *importance,
                                 void *blocks);
/* The same with the vector paths' searches (scalar's under MXCSR.DAZ). */
void sq_ggml_legacy_weighted_avx2(sq_ggml_type type, const void *x, size_t n,
                                  const void *importance, void *blocks);
void sq_ggml_legacy_weighted_avx512(sq_ggml_type type, const void *x, size_t n,
                                    const void *importance, void *blocks);

/* The vector paths' K-quant entry points (sq_ggml_kernels.quantize). */
#define SQ_KQ_DECLARE_PATH(T, P)                                               \
  void sq_ggml_quantize_##T##_##P(const void *x, size_t n,                     \
                                  const void *importance, void *blocks);
#define SQ_KQ_DECLARE_PATHS(T) SQ_KQ_DECLARE_PATH(T, avx2) SQ_KQ_DECLARE_PATH(T, avx512)
SQ_KQ_DECLARE_PATHS(q2_K)
SQ_KQ_DECLARE_PATHS(q3_K)
SQ_KQ_DECLARE_PATHS(q4_K)
SQ_KQ_DECLARE_PATHS(q5_K)
SQ_KQ_DECLARE_PATHS(q6_K)
#undef SQ_KQ_DECLARE_PATHS
#undef SQ_KQ_DECLARE_PATH

#endif
