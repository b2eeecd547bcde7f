/*
** ggml_kquants_x86_avx512.c: the K-quant sub-block searches on AVX-512,
** sixteen sub-blocks side by side (docs/NUMERICS.md#ggml).
**
** The AVX2 file's method (ggml_kquants_x86_avx2.c) with sixteen lanes: lane
** k of every vector is sub-block k of a batch (a q2_K, q3_K or q6_K
** super-block has 16 sub-blocks; q4_K and q5_K batches of two super-blocks
** have 16), and every lane does the scalar search's float operations in the
** scalar order, so every lane's result is ggml's.  Branches become mask
** registers: a flat or all-zero sub-block keeps its early answer, a
** candidate is accepted per lane, make_q3_quants repeats a pass while any
** lane changed (a lane that changed nothing would change nothing again).
** Comparisons use the predicates of C's operators (ordered for <, >, <=,
** ==; unordered for !=).  A batch with fewer than 16 sub-blocks (the last
** super-block of a row with an odd count) fills the spare lanes with copies
** of sub-block 0 and writes only the real ones.
** Under MXCSR.DAZ the scalar searches run instead (min_ps/max_ps flush a
** denormal operand that the scalar compare-and-assign keeps).
**
** Compiled with a target pragma, never -mavx512f: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/ggml_kquants.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(                                               \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c"))), \
    apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")
#endif

typedef __m512 vf16;
typedef __m512i vi16;
typedef __mmask16 vm16;
#define LANES 16
#define EPS_ZERO 1e-15f /* ggml's all-zero threshold (GROUP_MAX_EPS) */

SQ_AI vf16 k_avx512(float f) { return _mm512_set1_ps(f); }
SQ_AI vi16 ki(int v) { return _mm512_set1_epi32(v); }
SQ_AI vf16 add_avx512(vf16 a, vf16 b) { return _mm512_add_ps(a, b); }
SQ_AI vf16 sub_avx512(vf16 a, vf16 b) { return _mm512_sub_ps(a, b); }
SQ_AI vf16 mul_avx512(vf16 a, vf16 b) { return _mm512_mul_ps(a, b); }
SQ_AI vf16 dvd_avx512(vf16 a, vf16 b) { return _mm512_div_ps(a, b); }
SQ_AI vf16 vabs_avx512(vf16 a) { return _mm512_abs_ps(a); }
SQ_AI vf16 neg_avx512(vf16 a) { return _mm512_xor_ps(k_avx512(-0.0f), a); }
/* a where mask is clear, b where it is set. */
SQ_AI vf16 pick_avx512(vf16 a, vf16 b, vm16 mask) { return _mm512_mask_blend_ps(mask, a, b); }
SQ_AI vm16 gt_avx512(vf16 a, vf16 b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
SQ_AI vm16 lt_avx512(vf16 a, vf16 b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
SQ_AI vm16 but_not(vm16 a, vm16 b) { return (vm16)(a & ~b); }

/* ggml's nearest_int in every lane: round half to even through the
** mantissa of f + 1.5 * 2^23. */
SQ_AI vi16 nearest_avx512(vf16 f) {
  vi16 i = _mm512_castps_si512(add_avx512(f, k_avx512(12582912.f)));
  return _mm512_sub_epi32(_mm512_and_si512(i, ki(0x007fffff)), ki(0x00400000));
}
/* nearest_int(f) clamped to [lo, hi]; as an exact float. */
SQ_AI vi16 level_i_avx512(vf16 f, int lo, int hi) {
  return _mm512_min_epi32(_mm512_max_epi32(nearest_avx512(f), ki(lo)), ki(hi));
}
SQ_AI vf16 level_avx512(vf16 f, int lo, int hi) {
  return _mm512_cvtepi32_ps(level_i_avx512(f, lo, hi));
}

/* Transposes the 8x8 matrix of floats r[0..7] in place (pure moves). */
SQ_AI void transpose8_avx512(__m256 *r) {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; i++) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

/* Element i of the nsub (8 or 16) sub-blocks at x (len values each, one
** after another) into lane k of v[i], eight elements of eight sub-blocks
** per 8x8 transpose; with 8 sub-blocks the upper lanes repeat them. */
static void to_lanes_avx512(const float *x, int len, int nsub, vf16 *v) {
  const float *upper = x + (nsub > 8 ? 8 * len : 0);
  for (int c = 0; c < len; c += 8) {
    __m256 lo[8], hi[8];
    for (int l = 0; l < 8; l++) {
      lo[l] = _mm256_loadu_ps(x + len * l + c);
      hi[l] = _mm256_loadu_ps(upper + len * l + c);
    }
    transpose8_avx512(lo);
    transpose8_avx512(hi);
    for (int i = 0; i < 8; i++)
      v[c + i] = _mm512_insertf32x8(_mm512_castps256_ps512(lo[i]), hi[i], 1);
  }
}

/* Levels (0..255) back from lanes into the nsub (8 or 16) sub-blocks of
** len bytes. */
static void from_lanes_avx512(const vi16 *v, int len, int nsub, unsigned char *L) {
  for (int c = 0; c < len; c += 8) {
    for (int half = 0; half < nsub / 8; half++) {
      __m256 r[8];
      for (int i = 0; i < 8; i++)
        r[i] = _mm256_castsi256_ps(half ? _mm512_extracti32x8_epi32(v[c + i], 1)
                                        : _mm512_castsi512_si256(v[c + i]));
      transpose8_avx512(r);
      for (int l = 0; l < 8; l++) {
        __m128i b = _mm256_cvtepi32_epi8(_mm256_castps_si256(r[l]));
        _mm_storel_epi64((__m128i *)(void *)(L + len * (8 * half + l) + c), b);
      }
    }
  }
}

SQ_AI vm16 lanes(int nsub) { return (vm16)((1u << nsub) - 1u); }

/* ---- make_qkx2_quants / make_qkx3_quants -------------------------------------- */

/* Weighted error of X against scale*L + min (absolute or squared). */
SQ_AI vf16 affine_error_avx512(int n, const vf16 *X, const vf16 *W, const vf16 *L, vf16 scale,
                      vf16 min, int use_mad) {
  vf16 err = k_avx512(0);
  for (int i = 0; i < n; i++) {
    vf16 diff = sub_avx512(add_avx512(mul_avx512(scale, L[i]), min), X[i]);
    diff = use_mad ? vabs_avx512(diff) : mul_avx512(diff, diff);
    err = add_avx512(err, mul_avx512(W[i], diff));
  }
  return err;
}

static void affine16(const sq_kq_affine *a, int nsub, const float *x,
                     const float *w, float *scales, float *mins,
                     uint8_t *Lout) {
  const int n = a->len, nmax = a->nmax;
  vf16 X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes_avx512(x, n, nsub, X);
  to_lanes_avx512(w, n, nsub, W);

  vf16 min = X[0], max = X[0], sum_w = W[0], sum_x = mul_avx512(W[0], X[0]);
  for (int i = 1; i < n; i++) {
    min = _mm512_min_ps(X[i], min);  /* x < min ? x : min */
    max = _mm512_max_ps(X[i], max);  /* x > max ? x : max */
    sum_w = add_avx512(sum_w, W[i]);
    sum_x = add_avx512(sum_x, mul_avx512(W[i], X[i]));
  }
  min = pick_avx512(min, k_avx512(0), gt_avx512(min, k_avx512(0)));
  const vm16 flat = a->flat_if_le ? _mm512_cmp_ps_mask(max, min, _CMP_LE_OQ)
                                : _mm512_cmp_ps_mask(max, min, _CMP_EQ_OQ);

  vf16 iscale = dvd_avx512(k_avx512((float)nmax), sub_avx512(max, min));
  vf16 scale = dvd_avx512(k_avx512(1), iscale);
  for (int i = 0; i < n; i++)
    Lv[i] = level_avx512(mul_avx512(iscale, sub_avx512(X[i], min)), 0, nmax);
  vf16 best = affine_error_avx512(n, X, W, Lv, scale, min, a->use_mad);
  /* The inverse scale and minimum the kept levels were made with. */
  vf16 best_iscale = iscale, best_lmin = min;

  for (int step = 0; step <= a->nstep; step++) {
    const float num = a->rmin + a->rdelta * (float)step + (float)nmax;
    const vf16 try_iscale = dvd_avx512(k_avx512(num), sub_avx512(max, min));
    vf16 sum_l = k_avx512(0), sum_l2 = k_avx512(0), sum_xl = k_avx512(0);
    for (int i = 0; i < n; i++) {
      Lv[i] = level_avx512(mul_avx512(try_iscale, sub_avx512(X[i], min)), 0, nmax);
      vf16 wl = mul_avx512(W[i], Lv[i]);
      sum_l = add_avx512(sum_l, wl);
      sum_l2 = add_avx512(sum_l2, mul_avx512(wl, Lv[i]));
      sum_xl = add_avx512(sum_xl, mul_avx512(wl, X[i]));
    }
    vf16 D = sub_avx512(mul_avx512(sum_w, sum_l2), mul_avx512(sum_l, sum_l));
    vm16 fit = but_not(gt_avx512(D, k_avx512(0)), flat);
    if (!fit) continue;
    vf16 this_scale =
        dvd_avx512(sub_avx512(mul_avx512(sum_w, sum_xl), mul_avx512(sum_x, sum_l)), D);
    vf16 this_min = dvd_avx512(sub_avx512(mul_avx512(sum_l2, sum_x), mul_avx512(sum_l, sum_xl)), D);
    vm16 positive = gt_avx512(this_min, k_avx512(0));
    this_min = pick_avx512(this_min, k_avx512(0), positive);
    this_scale = pick_avx512(this_scale, dvd_avx512(sum_xl, sum_l2), positive);
    vf16 err = affine_error_avx512(n, X, W, Lv, this_scale, this_min, a->use_mad);
    vm16 take = (vm16)(fit & lt_avx512(err, best));
    best = pick_avx512(best, err, take);
    scale = pick_avx512(scale, this_scale, take);
    best_iscale = pick_avx512(best_iscale, try_iscale, take);
    best_lmin = pick_avx512(best_lmin, min, take);
    min = pick_avx512(min, this_min, take);
  }

  vi16 Li[SQ_KQ_MAX_LEN];
  for (int i = 0; i < n; i++)
    Li[i] = _mm512_maskz_mov_epi32(
        (vm16)~flat,
        level_i_avx512(mul_avx512(best_iscale, sub_avx512(X[i], best_lmin)), 0, nmax));
  from_lanes_avx512(Li, n, nsub, Lout);
  _mm512_mask_storeu_ps(scales, lanes(nsub), _mm512_maskz_mov_ps((vm16)~flat, scale));
  _mm512_mask_storeu_ps(mins, lanes(nsub), neg_avx512(min));
}

static void affine_avx512(const sq_kq_affine *a, int nsub, const float *x,
                          const float *w, float *scales, float *mins,
                          uint8_t *L) {
  for (int j = 0; j < nsub; j += LANES) {
    size_t o = (size_t)a->len * (size_t)j;
    int m = nsub - j < LANES ? nsub - j : LANES;
    affine16(a, m, x + o, w + o, scales + j, mins + j, L + o);
  }
}

/* ---- the element of largest magnitude (symmetric searches) -------------------- */

/* Per lane: the signed element of largest magnitude (the first on ties)
** and the lanes whose magnitude is below ggml's zero threshold. */
SQ_AI vf16 signed_abs_max_avx512(int n, const vf16 *X, vm16 *zero) {
  vf16 amax = k_avx512(0), max = k_avx512(0);
  for (int i = 0; i < n; i++) {
    vf16 ax = vabs_avx512(X[i]);
    vm16 bigger = gt_avx512(ax, amax);
    amax = pick_avx512(amax, ax, bigger);
    max = pick_avx512(max, X[i], bigger);
  }
  *zero = lt_avx512(amax, k_avx512(EPS_ZERO));
  return max;
}

/* ---- make_qx_quants (rmse_type 1) --------------------------------------------- */

/* sum (w*x)*l and sum (w*l)*l for the levels under iscale. */
SQ_AI void qx_sums_avx512(int n, int nmax, const vf16 *X, const vf16 *W, vf16 iscale,
                   vf16 *sumlx, vf16 *suml2) {
  vf16 slx = k_avx512(0), sl2 = k_avx512(0);
  for (int i = 0; i < n; i++) {
    vf16 l = level_avx512(mul_avx512(iscale, X[i]), -nmax, nmax - 1);
    slx = add_avx512(slx, mul_avx512(mul_avx512(W[i], X[i]), l));
    sl2 = add_avx512(sl2, mul_avx512(mul_avx512(W[i], l), l));
  }
  *sumlx = slx;
  *suml2 = sl2;
}

static void symmetric16(int n, int nmax, int nsub, const float *x,
                        const float *w, float *scales, int8_t *Lout) {
  vf16 X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN];
  to_lanes_avx512(x, n, nsub, X);
  if (w)
    to_lanes_avx512(w, n, nsub, W);
  else
    for (int i = 0; i < n; i++) W[i] = mul_avx512(X[i], X[i]);

  vm16 zero;
  const vf16 max = signed_abs_max_avx512(n, X, &zero);
  vf16 iscale = dvd_avx512(k_avx512((float)-nmax), max);
  vf16 sumlx, suml2;
  qx_sums_avx512(n, nmax, X, W, iscale, &sumlx, &suml2);
  vf16 scale = _mm512_maskz_div_ps(
      _mm512_cmp_ps_mask(suml2, k_avx512(0), _CMP_NEQ_UQ), sumlx, suml2);
  vf16 best = mul_avx512(scale, sumlx);
  vf16 best_iscale = iscale;
  for (int step = -9; step <= 9; step++) {
    if (step == 0) continue;
    const vf16 try_iscale = dvd_avx512(k_avx512(-((float)nmax + 0.1f * (float)step)), max);
    qx_sums_avx512(n, nmax, X, W, try_iscale, &sumlx, &suml2);
    vm16 take = (vm16)(gt_avx512(suml2, k_avx512(0)) &
                       gt_avx512(mul_avx512(sumlx, sumlx), mul_avx512(best, suml2)));
    vf16 this_scale = dvd_avx512(sumlx, suml2);
    scale = pick_avx512(scale, this_scale, take);
    best = pick_avx512(best, mul_avx512(this_scale, sumlx), take);
    best_iscale = pick_avx512(best_iscale, try_iscale, take);
  }

  vi16 Li[SQ_KQ_MAX_LEN];
  for (int i = 0; i < n; i++)
    Li[i] = _mm512_maskz_add_epi32(
        (vm16)~zero, level_i_avx512(mul_avx512(best_iscale, X[i]), -nmax, nmax - 1),
        ki(nmax));
  from_lanes_avx512(Li, n, nsub, (unsigned char *)Lout);
  _mm512_mask_storeu_ps(scales, lanes(nsub), _mm512_maskz_mov_ps((vm16)~zero, scale));
}

static void symmetric_avx512(int nsub, int len, int nmax, const float *x,
                             const float *w, float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j += LANES) {
    size_t o = (size_t)len * (size_t)j;
    int m = nsub - j < LANES ? nsub - j : LANES;
    symmetric16(len, nmax, m, x + o, w ? w + o : NULL, scales + j, L + o);
  }
}

/* ---- make_q3_quants (do_rmse) ------------------------------------------------- */

static void q3_16(int n, int nmax, int nsub, const float *x, float *scales,
                  int8_t *Lout) {
  vf16 X[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes_avx512(x, n, nsub, X);
  vm16 zero;
  const vf16 max = signed_abs_max_avx512(n, X, &zero);
  const vf16 iscale = dvd_avx512(k_avx512((float)-nmax), max);

  vf16 sumlx = k_avx512(0), suml2 = k_avx512(0);
  for (int i = 0; i < n; i++) {
    Lv[i] = level_avx512(mul_avx512(iscale, X[i]), -nmax, nmax - 1);
    vf16 w = mul_avx512(X[i], X[i]);
    sumlx = add_avx512(sumlx, mul_avx512(mul_avx512(w, X[i]), Lv[i]));
    suml2 = add_avx512(suml2, mul_avx512(mul_avx512(w, Lv[i]), Lv[i]));
  }
  /* Move one level at a time to where the fit of the others puts it. */
  for (int pass = 0; pass < 5; pass++) {
    vm16 moved = 0;
    for (int i = 0; i < n; i++) {
      vf16 w = mul_avx512(X[i], X[i]);
      vf16 wx = mul_avx512(w, X[i]);
      vf16 slx = sub_avx512(sumlx, mul_avx512(wx, Lv[i]));
      vf16 sl2 = sub_avx512(suml2, mul_avx512(mul_avx512(w, Lv[i]), Lv[i]));
      vf16 new_l = level_avx512(dvd_avx512(mul_avx512(X[i], sl2), slx), -nmax, nmax - 1);
      vm16 changed = _mm512_cmp_ps_mask(new_l, Lv[i], _CMP_NEQ_UQ);
      vf16 slx2 = add_avx512(slx, mul_avx512(wx, new_l));
      vf16 sl22 = add_avx512(sl2, mul_avx512(mul_avx512(w, new_l), new_l));
      vm16 better = (vm16)(gt_avx512(sl22, k_avx512(0)) &
                           gt_avx512(mul_avx512(mul_avx512(slx2, slx2), suml2),
                                     mul_avx512(mul_avx512(sumlx, sumlx), sl22)));
      vm16 take = but_not((vm16)(gt_avx512(slx, k_avx512(0)) & changed & better), zero);
      /* Moves are rare: branching around them lets the next elements'
      ** work start before this one's division is done. */
      if (!take) continue;
      Lv[i] = pick_avx512(Lv[i], new_l, take);
      sumlx = pick_avx512(sumlx, slx2, take);
      suml2 = pick_avx512(suml2, sl22, take);
      moved = (vm16)(moved | take);
    }
    if (!moved) break;
  }

  vi16 Li[SQ_KQ_MAX_LEN];
  for (int i = 0; i < n; i++)
    Li[i] = _mm512_maskz_add_epi32((vm16)~zero, _mm512_cvtps_epi32(Lv[i]), ki(nmax));
  from_lanes_avx512(Li, n, nsub, (unsigned char *)Lout);
  vf16 scale = _mm512_maskz_div_ps(but_not(gt_avx512(suml2, k_avx512(0)), zero), sumlx, suml2);
  _mm512_mask_storeu_ps(scales, lanes(nsub), scale);
}

static void q3_avx512(int nsub, int len, int nmax, const float *x,
                      float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j += LANES) {
    size_t o = (size_t)len * (size_t)j;
    int m = nsub - j < LANES ? nsub - j : LANES;
    q3_16(len, nmax, m, x + o, scales + j, L + o);
  }
}

/* ---- requantization ------------------------------------------------------------ */

/* Sixteen consecutive weights of one sub-block per vector, its scale (and
** minimum) broadcast: the scalar loop's operations, sixteen at a time. */
static void requantize_avx512(int nsub, int len, const float *x,
                              const float *ds, const float *dm, int lo,
                              int hi, unsigned char *L) {
  for (int j = 0; j < nsub; j++) {
    if (ds[j] == 0) continue;
    const vf16 d = k_avx512(ds[j]), m = k_avx512(dm ? dm[j] : 0);
    for (int i = len * j; i < len * j + len; i += LANES) {
      vf16 v = _mm512_loadu_ps(x + i);
      v = dm ? dvd_avx512(add_avx512(v, m), d) : dvd_avx512(v, d);
      vi16 l = _mm512_sub_epi32(level_i_avx512(v, lo, hi), ki(lo));
      _mm_storeu_si128((__m128i *)(void *)(L + i), _mm512_cvtepi32_epi8(l));
    }
  }
}

static const sq_kq_search search_avx512 = {affine_avx512, symmetric_avx512,
                                           q3_avx512, requantize_avx512};

/* Under MXCSR.DAZ min_ps/max_ps return a denormal operand flushed to zero
** where the scalar compare-and-assign keeps its bits: that mode uses the
** scalar searches. */
static const sq_kq_search *searches_avx512(void) {
  return (_mm_getcsr() & 0x40) ? &sq_kq_search_scalar : &search_avx512;
}

#define SQ_KQUANT_AVX512(T, TYPE)                                              \
  void sq_ggml_quantize_##T##_avx512(const void *x, size_t n,                  \
                                     const void *importance, void *blocks) {   \
    sq_ggml_kquant_row(TYPE, searches_avx512(), x, n, importance, blocks);        \
  }
SQ_KQUANT_AVX512(q2_K, SQ_GGML_Q2_K)
SQ_KQUANT_AVX512(q3_K, SQ_GGML_Q3_K)
SQ_KQUANT_AVX512(q4_K, SQ_GGML_Q4_K)
SQ_KQUANT_AVX512(q5_K, SQ_GGML_Q5_K)
SQ_KQUANT_AVX512(q6_K, SQ_GGML_Q6_K)

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* The macros above are this file's own (sqlite-quant.c, the amalgamation,
** reads every source into one translation unit). */
#undef LANES
#undef EPS_ZERO

#endif
