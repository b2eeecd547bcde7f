/*
** ggml_kquants_x86_avx2.c: the K-quant sub-block searches on AVX2, eight
** sub-blocks side by side (docs/NUMERICS.md#ggml).
**
** ggml's searches (ggml_search.c) treat each sub-block on its own, and a
** super-block has 8 or 16 of them, so lane k of every vector here is
** sub-block k: the values are transposed to "element i of eight sub-blocks"
** vectors and each search runs once for all eight.  Per lane, every float
** operation is the scalar one in the scalar order (separate mul and add,
** no FMA; ggml's nearest_int by the same add-and-mask), so every lane's
** result is the scalar search's, bit for bit.  Where the scalar search
** branches, the lanes compute both ways and keep their own with a blend:
**   - a flat or all-zero sub-block (which returns early in scalar) keeps
**     its early answer through a mask;
**   - a candidate scale is accepted per lane (compare, then blend the
**     search state); the winning levels are recomputed at the end from the
**     winning inverse scale and minimum, which gives the levels scalar kept;
**   - make_q3_quants repeats its refinement pass while any lane changed: a
**     pass that changes nothing in a lane leaves that lane's state as it
**     was, so repeating it changes nothing either, exactly as scalar's
**     early exit.
** Comparisons use the predicates of C's operators (ordered for <, >, <=,
** ==; unordered for !=), so NaN sums from infinite weights steer each lane
** as they steer the scalar code.  Everything else of the quantizers is
** ggml_quantize_kquants.c's.
** Under MXCSR.DAZ the scalar searches run instead (min_ps/max_ps flush a
** denormal operand that the scalar compare-and-assign keeps).
**
** Compiled with a target pragma, never -mavx2: only dispatch.c decides
** whether these functions may run.
*/
#include "kernels/ggml_kquants.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

typedef __m256 vf8;
typedef __m256i vi8;
#define LANES 8
#define EPS_ZERO 1e-15f /* ggml's all-zero threshold (GROUP_MAX_EPS) */

SQ_AI vf8 k_avx2(float f) { return _mm256_set1_ps(f); }
SQ_AI vf8 add_avx2(vf8 a, vf8 b) { return _mm256_add_ps(a, b); }
SQ_AI vf8 sub_avx2(vf8 a, vf8 b) { return _mm256_sub_ps(a, b); }
SQ_AI vf8 mul_avx2(vf8 a, vf8 b) { return _mm256_mul_ps(a, b); }
SQ_AI vf8 dvd_avx2(vf8 a, vf8 b) { return _mm256_div_ps(a, b); }
SQ_AI vf8 vabs_avx2(vf8 a) { return _mm256_andnot_ps(k_avx2(-0.0f), a); }
SQ_AI vf8 neg_avx2(vf8 a) { return _mm256_xor_ps(k_avx2(-0.0f), a); }
/* a where mask is clear, b where it is set. */
SQ_AI vf8 pick_avx2(vf8 a, vf8 b, vf8 mask) { return _mm256_blendv_ps(a, b, mask); }
SQ_AI vf8 gt_avx2(vf8 a, vf8 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
SQ_AI vf8 lt_avx2(vf8 a, vf8 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
SQ_AI vf8 and_(vf8 a, vf8 b) { return _mm256_and_ps(a, b); }
SQ_AI vf8 andnot(vf8 notme, vf8 b) { return _mm256_andnot_ps(notme, b); }
SQ_AI int any(vf8 mask) { return _mm256_movemask_ps(mask) != 0; }

/* ggml's nearest_int in every lane: round half to even through the
** mantissa of f + 1.5 * 2^23. */
SQ_AI vi8 nearest_avx2(vf8 f) {
  vi8 i = _mm256_castps_si256(add_avx2(f, k_avx2(12582912.f)));
  return _mm256_sub_epi32(_mm256_and_si256(i, _mm256_set1_epi32(0x007fffff)),
                          _mm256_set1_epi32(0x00400000));
}
/* nearest_int(f) clamped to [lo, hi], as an exact float. */
SQ_AI vi8 level_i_avx2(vf8 f, int lo, int hi) {
  return _mm256_min_epi32(_mm256_max_epi32(nearest_avx2(f), _mm256_set1_epi32(lo)),
                          _mm256_set1_epi32(hi));
}
SQ_AI vf8 level_avx2(vf8 f, int lo, int hi) {
  return _mm256_cvtepi32_ps(level_i_avx2(f, lo, hi));
}

/* Transposes the 8x8 matrix of floats r[0..7] in place (pure moves). */
SQ_AI void transpose8_avx2(vf8 *r) {
  vf8 t[8], u[8];
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

/* Eight int32 lanes holding 0..255 as eight bytes at p. */
SQ_AI void store_bytes8(vi8 v, unsigned char *p) {
  __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64((__m128i *)(void *)p, _mm_packus_epi16(w, w));
}

/* Element i of sub-blocks 0..7 (len values each, one after another) into
** lane k of v[i]: one 8x8 transpose per eight elements. */
static void to_lanes_avx2(const float *x, int len, vf8 *v) {
  for (int c = 0; c < len; c += 8) {
    for (int l = 0; l < 8; l++) v[c + l] = _mm256_loadu_ps(x + len * l + c);
    transpose8_avx2(v + c);
  }
}

/* Levels (0..255) back from lanes into eight sub-blocks of len bytes. */
static void from_lanes_avx2(const vi8 *v, int len, unsigned char *L) {
  for (int c = 0; c < len; c += 8) {
    vf8 r[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_castsi256_ps(v[c + i]);
    transpose8_avx2(r);
    for (int l = 0; l < 8; l++) store_bytes8(_mm256_castps_si256(r[l]), L + len * l + c);
  }
}

/* ---- make_qkx2_quants / make_qkx3_quants -------------------------------------- */

/* Weighted error of X against scale*L + min (absolute or squared). */
SQ_AI vf8 affine_error_avx2(int n, const vf8 *X, const vf8 *W, const vf8 *L, vf8 scale,
                      vf8 min, int use_mad) {
  vf8 err = k_avx2(0);
  for (int i = 0; i < n; i++) {
    vf8 diff = sub_avx2(add_avx2(mul_avx2(scale, L[i]), min), X[i]);
    diff = use_mad ? vabs_avx2(diff) : mul_avx2(diff, diff);
    err = add_avx2(err, mul_avx2(W[i], diff));
  }
  return err;
}

static void affine8(const sq_kq_affine *a, const float *x, const float *w,
                    float *scales, float *mins, uint8_t *Lout) {
  const int n = a->len, nmax = a->nmax;
  vf8 X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes_avx2(x, n, X);
  to_lanes_avx2(w, n, W);

  vf8 min = X[0], max = X[0], sum_w = W[0], sum_x = mul_avx2(W[0], X[0]);
  for (int i = 1; i < n; i++) {
    min = _mm256_min_ps(X[i], min);  /* x < min ? x : min */
    max = _mm256_max_ps(X[i], max);  /* x > max ? x : max */
    sum_w = add_avx2(sum_w, W[i]);
    sum_x = add_avx2(sum_x, mul_avx2(W[i], X[i]));
  }
  min = pick_avx2(min, k_avx2(0), gt_avx2(min, k_avx2(0)));
  const vf8 flat = a->flat_if_le ? _mm256_cmp_ps(max, min, _CMP_LE_OQ)
                                : _mm256_cmp_ps(max, min, _CMP_EQ_OQ);

  vf8 iscale = dvd_avx2(k_avx2((float)nmax), sub_avx2(max, min));
  vf8 scale = dvd_avx2(k_avx2(1), iscale);
  for (int i = 0; i < n; i++) Lv[i] = level_avx2(mul_avx2(iscale, sub_avx2(X[i], min)), 0, nmax);
  vf8 best = affine_error_avx2(n, X, W, Lv, scale, min, a->use_mad);
  /* The inverse scale and minimum the kept levels were made with. */
  vf8 best_iscale = iscale, best_lmin = min;

  for (int step = 0; step <= a->nstep; step++) {
    const float num = a->rmin + a->rdelta * (float)step + (float)nmax;
    const vf8 try_iscale = dvd_avx2(k_avx2(num), sub_avx2(max, min));
    vf8 sum_l = k_avx2(0), sum_l2 = k_avx2(0), sum_xl = k_avx2(0);
    for (int i = 0; i < n; i++) {
      Lv[i] = level_avx2(mul_avx2(try_iscale, sub_avx2(X[i], min)), 0, nmax);
      vf8 wl = mul_avx2(W[i], Lv[i]);
      sum_l = add_avx2(sum_l, wl);
      sum_l2 = add_avx2(sum_l2, mul_avx2(wl, Lv[i]));
      sum_xl = add_avx2(sum_xl, mul_avx2(wl, X[i]));
    }
    vf8 D = sub_avx2(mul_avx2(sum_w, sum_l2), mul_avx2(sum_l, sum_l));
    vf8 fit = andnot(flat, gt_avx2(D, k_avx2(0)));
    if (!any(fit)) continue;
    vf8 this_scale = dvd_avx2(sub_avx2(mul_avx2(sum_w, sum_xl), mul_avx2(sum_x, sum_l)), D);
    vf8 this_min = dvd_avx2(sub_avx2(mul_avx2(sum_l2, sum_x), mul_avx2(sum_l, sum_xl)), D);
    vf8 positive = gt_avx2(this_min, k_avx2(0));
    this_min = pick_avx2(this_min, k_avx2(0), positive);
    this_scale = pick_avx2(this_scale, dvd_avx2(sum_xl, sum_l2), positive);
    vf8 err = affine_error_avx2(n, X, W, Lv, this_scale, this_min, a->use_mad);
    vf8 take = and_(fit, lt_avx2(err, best));
    best = pick_avx2(best, err, take);
    scale = pick_avx2(scale, this_scale, take);
    best_iscale = pick_avx2(best_iscale, try_iscale, take);
    best_lmin = pick_avx2(best_lmin, min, take);
    min = pick_avx2(min, this_min, take);
  }

  vi8 Li[SQ_KQ_MAX_LEN];
  const vi8 keep = _mm256_castps_si256(flat);
  for (int i = 0; i < n; i++)
    Li[i] = _mm256_andnot_si256(
        keep, level_i_avx2(mul_avx2(best_iscale, sub_avx2(X[i], best_lmin)), 0, nmax));
  from_lanes_avx2(Li, n, Lout);
  _mm256_storeu_ps(scales, andnot(flat, scale));
  _mm256_storeu_ps(mins, neg_avx2(min));
}

static void affine_avx2(const sq_kq_affine *a, int nsub, const float *x,
                        const float *w, float *scales, float *mins,
                        uint8_t *L) {
  for (int j = 0; j < nsub; j += LANES) {
    size_t o = (size_t)a->len * (size_t)j;
    affine8(a, x + o, w + o, scales + j, mins + j, L + o);
  }
}

/* ---- the element of largest magnitude (symmetric searches) -------------------- */

/* Per lane: the signed element of largest magnitude (the first on ties)
** and a mask of the lanes whose magnitude is below ggml's zero threshold. */
SQ_AI vf8 signed_abs_max_avx2(int n, const vf8 *X, vf8 *zero) {
  vf8 amax = k_avx2(0), max = k_avx2(0);
  for (int i = 0; i < n; i++) {
    vf8 ax = vabs_avx2(X[i]);
    vf8 bigger = gt_avx2(ax, amax);
    amax = pick_avx2(amax, ax, bigger);
    max = pick_avx2(max, X[i], bigger);
  }
  *zero = lt_avx2(amax, k_avx2(EPS_ZERO));
  return max;
}

/* ---- make_qx_quants (rmse_type 1) --------------------------------------------- */

/* sum (w*x)*l and sum (w*l)*l for the levels under iscale. */
SQ_AI void qx_sums_avx2(int n, int nmax, const vf8 *X, const vf8 *W, vf8 iscale,
                   vf8 *sumlx, vf8 *suml2) {
  vf8 slx = k_avx2(0), sl2 = k_avx2(0);
  for (int i = 0; i < n; i++) {
    vf8 l = level_avx2(mul_avx2(iscale, X[i]), -nmax, nmax - 1);
    slx = add_avx2(slx, mul_avx2(mul_avx2(W[i], X[i]), l));
    sl2 = add_avx2(sl2, mul_avx2(mul_avx2(W[i], l), l));
  }
  *sumlx = slx;
  *suml2 = sl2;
}

static void symmetric8(int n, int nmax, const float *x, const float *w,
                       float *scales, int8_t *Lout) {
  vf8 X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN];
  to_lanes_avx2(x, n, X);
  if (w)
    to_lanes_avx2(w, n, W);
  else
    for (int i = 0; i < n; i++) W[i] = mul_avx2(X[i], X[i]);

  vf8 zero;
  const vf8 max = signed_abs_max_avx2(n, X, &zero);
  vf8 iscale = dvd_avx2(k_avx2((float)-nmax), max);
  vf8 sumlx, suml2;
  qx_sums_avx2(n, nmax, X, W, iscale, &sumlx, &suml2);
  vf8 scale = and_(_mm256_cmp_ps(suml2, k_avx2(0), _CMP_NEQ_UQ), dvd_avx2(sumlx, suml2));
  vf8 best = mul_avx2(scale, sumlx);
  vf8 best_iscale = iscale;
  for (int step = -9; step <= 9; step++) {
    if (step == 0) continue;
    const vf8 try_iscale = dvd_avx2(k_avx2(-((float)nmax + 0.1f * (float)step)), max);
    qx_sums_avx2(n, nmax, X, W, try_iscale, &sumlx, &suml2);
    vf8 take = and_(gt_avx2(suml2, k_avx2(0)),
                    gt_avx2(mul_avx2(sumlx, sumlx), mul_avx2(best, suml2)));
    vf8 this_scale = dvd_avx2(sumlx, suml2);
    scale = pick_avx2(scale, this_scale, take);
    best = pick_avx2(best, mul_avx2(this_scale, sumlx), take);
    best_iscale = pick_avx2(best_iscale, try_iscale, take);
  }

  vi8 Li[SQ_KQ_MAX_LEN];
  const vi8 keep = _mm256_castps_si256(zero), off = _mm256_set1_epi32(nmax);
  for (int i = 0; i < n; i++)
    Li[i] = _mm256_andnot_si256(
        keep, _mm256_add_epi32(level_i_avx2(mul_avx2(best_iscale, X[i]), -nmax, nmax - 1), off));
  from_lanes_avx2(Li, n, (unsigned char *)Lout);
  _mm256_storeu_ps(scales, andnot(zero, scale));
}

static void symmetric_avx2(int nsub, int len, int nmax, const float *x,
                           const float *w, float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j += LANES) {
    size_t o = (size_t)len * (size_t)j;
    symmetric8(len, nmax, x + o, w ? w + o : NULL, scales + j, L + o);
  }
}

/* ---- make_q3_quants (do_rmse) ------------------------------------------------- */

static void q3_8(int n, int nmax, const float *x, float *scales,
                 int8_t *Lout) {
  vf8 X[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes_avx2(x, n, X);
  vf8 zero;
  const vf8 max = signed_abs_max_avx2(n, X, &zero);
  const vf8 iscale = dvd_avx2(k_avx2((float)-nmax), max);

  vf8 sumlx = k_avx2(0), suml2 = k_avx2(0);
  for (int i = 0; i < n; i++) {
    Lv[i] = level_avx2(mul_avx2(iscale, X[i]), -nmax, nmax - 1);
    vf8 w = mul_avx2(X[i], X[i]);
    sumlx = add_avx2(sumlx, mul_avx2(mul_avx2(w, X[i]), Lv[i]));
    suml2 = add_avx2(suml2, mul_avx2(mul_avx2(w, Lv[i]), Lv[i]));
  }
  /* Move one level at a time to where the fit of the others puts it. */
  for (int pass = 0; pass < 5; pass++) {
    vf8 moved = k_avx2(0);
    for (int i = 0; i < n; i++) {
      vf8 w = mul_avx2(X[i], X[i]);
      vf8 wx = mul_avx2(w, X[i]);
      vf8 slx = sub_avx2(sumlx, mul_avx2(wx, Lv[i]));
      vf8 sl2 = sub_avx2(suml2, mul_avx2(mul_avx2(w, Lv[i]), Lv[i]));
      vf8 new_l = level_avx2(dvd_avx2(mul_avx2(X[i], sl2), slx), -nmax, nmax - 1);
      vf8 changed = _mm256_cmp_ps(new_l, Lv[i], _CMP_NEQ_UQ);
      vf8 slx2 = add_avx2(slx, mul_avx2(wx, new_l));
      vf8 sl22 = add_avx2(sl2, mul_avx2(mul_avx2(w, new_l), new_l));
      vf8 better = and_(gt_avx2(sl22, k_avx2(0)),
                       gt_avx2(mul_avx2(mul_avx2(slx2, slx2), suml2),
                               mul_avx2(mul_avx2(sumlx, sumlx), sl22)));
      vf8 take = andnot(zero, and_(and_(gt_avx2(slx, k_avx2(0)), changed), better));
      /* Moves are rare: branching around them lets the next elements'
      ** work start before this one's division is done. */
      if (!any(take)) continue;
      Lv[i] = pick_avx2(Lv[i], new_l, take);
      sumlx = pick_avx2(sumlx, slx2, take);
      suml2 = pick_avx2(suml2, sl22, take);
      moved = _mm256_or_ps(moved, take);
    }
    if (!any(moved)) break;
  }

  vi8 Li[SQ_KQ_MAX_LEN];
  const vi8 keep = _mm256_castps_si256(zero), off = _mm256_set1_epi32(nmax);
  for (int i = 0; i < n; i++)
    Li[i] = _mm256_andnot_si256(keep, _mm256_add_epi32(_mm256_cvtps_epi32(Lv[i]), off));
  from_lanes_avx2(Li, n, (unsigned char *)Lout);
  vf8 scale = and_(gt_avx2(suml2, k_avx2(0)), dvd_avx2(sumlx, suml2));
  _mm256_storeu_ps(scales, andnot(zero, scale));
}

static void q3_avx2(int nsub, int len, int nmax, const float *x,
                    float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j += LANES) {
    size_t o = (size_t)len * (size_t)j;
    q3_8(len, nmax, x + o, scales + j, L + o);
  }
}

/* ---- requantization ------------------------------------------------------------ */

/* Eight consecutive weights of one sub-block per vector, its scale (and
** minimum) broadcast: the scalar loop's operations, eight at a time. */
static void requantize_avx2(int nsub, int len, const float *x, const float *ds,
                            const float *dm, int lo, int hi, unsigned char *L) {
  const vi8 base = _mm256_set1_epi32(lo);
  for (int j = 0; j < nsub; j++) {
    if (ds[j] == 0) continue;
    const vf8 d = k_avx2(ds[j]), m = k_avx2(dm ? dm[j] : 0);
    for (int i = len * j; i < len * j + len; i += LANES) {
      vf8 v = _mm256_loadu_ps(x + i);
      v = dm ? dvd_avx2(add_avx2(v, m), d) : dvd_avx2(v, d);
      store_bytes8(_mm256_sub_epi32(level_i_avx2(v, lo, hi), base), L + i);
    }
  }
}

static const sq_kq_search search_avx2 = {affine_avx2, symmetric_avx2, q3_avx2,
                                         requantize_avx2};

/* Under MXCSR.DAZ min_ps/max_ps return a denormal operand flushed to zero
** where the scalar compare-and-assign keeps its bits: that mode uses the
** scalar searches. */
static const sq_kq_search *searches_avx2(void) {
  return (_mm_getcsr() & 0x40) ? &sq_kq_search_scalar : &search_avx2;
}

#define SQ_KQUANT_AVX2(T, TYPE)                                                \
  void sq_ggml_quantize_##T##_avx2(const void *x, size_t n,                    \
                                   const void *importance, void *blocks) {     \
    sq_ggml_kquant_row(TYPE, searches_avx2(), x, n, importance, blocks);          \
  }
SQ_KQUANT_AVX2(q2_K, SQ_GGML_Q2_K)
SQ_KQUANT_AVX2(q3_K, SQ_GGML_Q3_K)
SQ_KQUANT_AVX2(q4_K, SQ_GGML_Q4_K)
SQ_KQUANT_AVX2(q5_K, SQ_GGML_Q5_K)
SQ_KQUANT_AVX2(q6_K, SQ_GGML_Q6_K)

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
