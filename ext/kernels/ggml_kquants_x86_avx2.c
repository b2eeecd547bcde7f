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

typedef __m256 vf;
typedef __m256i vi;
#define LANES 8
#define EPS_ZERO 1e-15f /* ggml's all-zero threshold (GROUP_MAX_EPS) */

SQ_AI vf k(float f) { return _mm256_set1_ps(f); }
SQ_AI vf add(vf a, vf b) { return _mm256_add_ps(a, b); }
SQ_AI vf sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
SQ_AI vf mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
SQ_AI vf dvd(vf a, vf b) { return _mm256_div_ps(a, b); }
SQ_AI vf vabs(vf a) { return _mm256_andnot_ps(k(-0.0f), a); }
SQ_AI vf neg(vf a) { return _mm256_xor_ps(k(-0.0f), a); }
/* a where mask is clear, b where it is set. */
SQ_AI vf pick(vf a, vf b, vf mask) { return _mm256_blendv_ps(a, b, mask); }
SQ_AI vf gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
SQ_AI vf lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
SQ_AI vf and_(vf a, vf b) { return _mm256_and_ps(a, b); }
SQ_AI vf andnot(vf notme, vf b) { return _mm256_andnot_ps(notme, b); }
SQ_AI int any(vf mask) { return _mm256_movemask_ps(mask) != 0; }

/* ggml's nearest_int in every lane: round half to even through the
** mantissa of f + 1.5 * 2^23. */
SQ_AI vi nearest(vf f) {
  vi i = _mm256_castps_si256(add(f, k(12582912.f)));
  return _mm256_sub_epi32(_mm256_and_si256(i, _mm256_set1_epi32(0x007fffff)),
                          _mm256_set1_epi32(0x00400000));
}
/* nearest_int(f) clamped to [lo, hi], as an exact float. */
SQ_AI vi level_i(vf f, int lo, int hi) {
  return _mm256_min_epi32(_mm256_max_epi32(nearest(f), _mm256_set1_epi32(lo)),
                          _mm256_set1_epi32(hi));
}
SQ_AI vf level(vf f, int lo, int hi) {
  return _mm256_cvtepi32_ps(level_i(f, lo, hi));
}

/* Transposes the 8x8 matrix of floats r[0..7] in place (pure moves). */
SQ_AI void transpose8(vf *r) {
  vf t[8], u[8];
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
SQ_AI void store_bytes8(vi v, unsigned char *p) {
  __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64((__m128i *)(void *)p, _mm_packus_epi16(w, w));
}

/* Element i of sub-blocks 0..7 (len values each, one after another) into
** lane k of v[i]: one 8x8 transpose per eight elements. */
static void to_lanes(const float *x, int len, vf *v) {
  for (int c = 0; c < len; c += 8) {
    for (int l = 0; l < 8; l++) v[c + l] = _mm256_loadu_ps(x + len * l + c);
    transpose8(v + c);
  }
}

/* Levels (0..255) back from lanes into eight sub-blocks of len bytes. */
static void from_lanes(const vi *v, int len, unsigned char *L) {
  for (int c = 0; c < len; c += 8) {
    vf r[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_castsi256_ps(v[c + i]);
    transpose8(r);
    for (int l = 0; l < 8; l++) store_bytes8(_mm256_castps_si256(r[l]), L + len * l + c);
  }
}

/* ---- make_qkx2_quants / make_qkx3_quants -------------------------------------- */

/* Weighted error of X against scale*L + min (absolute or squared). */
SQ_AI vf affine_error(int n, const vf *X, const vf *W, const vf *L, vf scale,
                      vf min, int use_mad) {
  vf err = k(0);
  for (int i = 0; i < n; i++) {
    vf diff = sub(add(mul(scale, L[i]), min), X[i]);
    diff = use_mad ? vabs(diff) : mul(diff, diff);
    err = add(err, mul(W[i], diff));
  }
  return err;
}

static void affine8(const sq_kq_affine *a, const float *x, const float *w,
                    float *scales, float *mins, uint8_t *Lout) {
  const int n = a->len, nmax = a->nmax;
  vf X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes(x, n, X);
  to_lanes(w, n, W);

  vf min = X[0], max = X[0], sum_w = W[0], sum_x = mul(W[0], X[0]);
  for (int i = 1; i < n; i++) {
    min = _mm256_min_ps(X[i], min);  /* x < min ? x : min */
    max = _mm256_max_ps(X[i], max);  /* x > max ? x : max */
    sum_w = add(sum_w, W[i]);
    sum_x = add(sum_x, mul(W[i], X[i]));
  }
  min = pick(min, k(0), gt(min, k(0)));
  const vf flat = a->flat_if_le ? _mm256_cmp_ps(max, min, _CMP_LE_OQ)
                                : _mm256_cmp_ps(max, min, _CMP_EQ_OQ);

  vf iscale = dvd(k((float)nmax), sub(max, min));
  vf scale = dvd(k(1), iscale);
  for (int i = 0; i < n; i++) Lv[i] = level(mul(iscale, sub(X[i], min)), 0, nmax);
  vf best = affine_error(n, X, W, Lv, scale, min, a->use_mad);
  /* The inverse scale and minimum the kept levels were made with. */
  vf best_iscale = iscale, best_lmin = min;

  for (int step = 0; step <= a->nstep; step++) {
    const float num = a->rmin + a->rdelta * (float)step + (float)nmax;
    const vf try_iscale = dvd(k(num), sub(max, min));
    vf sum_l = k(0), sum_l2 = k(0), sum_xl = k(0);
    for (int i = 0; i < n; i++) {
      Lv[i] = level(mul(try_iscale, sub(X[i], min)), 0, nmax);
      vf wl = mul(W[i], Lv[i]);
      sum_l = add(sum_l, wl);
      sum_l2 = add(sum_l2, mul(wl, Lv[i]));
      sum_xl = add(sum_xl, mul(wl, X[i]));
    }
    vf D = sub(mul(sum_w, sum_l2), mul(sum_l, sum_l));
    vf fit = andnot(flat, gt(D, k(0)));
    if (!any(fit)) continue;
    vf this_scale = dvd(sub(mul(sum_w, sum_xl), mul(sum_x, sum_l)), D);
    vf this_min = dvd(sub(mul(sum_l2, sum_x), mul(sum_l, sum_xl)), D);
    vf positive = gt(this_min, k(0));
    this_min = pick(this_min, k(0), positive);
    this_scale = pick(this_scale, dvd(sum_xl, sum_l2), positive);
    vf err = affine_error(n, X, W, Lv, this_scale, this_min, a->use_mad);
    vf take = and_(fit, lt(err, best));
    best = pick(best, err, take);
    scale = pick(scale, this_scale, take);
    best_iscale = pick(best_iscale, try_iscale, take);
    best_lmin = pick(best_lmin, min, take);
    min = pick(min, this_min, take);
  }

  vi Li[SQ_KQ_MAX_LEN];
  const vi keep = _mm256_castps_si256(flat);
  for (int i = 0; i < n; i++)
    Li[i] = _mm256_andnot_si256(keep, level_i(mul(best_iscale, sub(X[i], best_lmin)), 0, nmax));
  from_lanes(Li, n, Lout);
  _mm256_storeu_ps(scales, andnot(flat, scale));
  _mm256_storeu_ps(mins, neg(min));
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
SQ_AI vf signed_abs_max(int n, const vf *X, vf *zero) {
  vf amax = k(0), max = k(0);
  for (int i = 0; i < n; i++) {
    vf ax = vabs(X[i]);
    vf bigger = gt(ax, amax);
    amax = pick(amax, ax, bigger);
    max = pick(max, X[i], bigger);
  }
  *zero = lt(amax, k(EPS_ZERO));
  return max;
}

/* ---- make_qx_quants (rmse_type 1) --------------------------------------------- */

/* sum (w*x)*l and sum (w*l)*l for the levels under iscale. */
SQ_AI void qx_sums(int n, int nmax, const vf *X, const vf *W, vf iscale,
                   vf *sumlx, vf *suml2) {
  vf slx = k(0), sl2 = k(0);
  for (int i = 0; i < n; i++) {
    vf l = level(mul(iscale, X[i]), -nmax, nmax - 1);
    slx = add(slx, mul(mul(W[i], X[i]), l));
    sl2 = add(sl2, mul(mul(W[i], l), l));
  }
  *sumlx = slx;
  *suml2 = sl2;
}

static void symmetric8(int n, int nmax, const float *x, const float *w,
                       float *scales, int8_t *Lout) {
  vf X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN];
  to_lanes(x, n, X);
  if (w)
    to_lanes(w, n, W);
  else
    for (int i = 0; i < n; i++) W[i] = mul(X[i], X[i]);

  vf zero;
  const vf max = signed_abs_max(n, X, &zero);
  vf iscale = dvd(k((float)-nmax), max);
  vf sumlx, suml2;
  qx_sums(n, nmax, X, W, iscale, &sumlx, &suml2);
  vf scale = and_(_mm256_cmp_ps(suml2, k(0), _CMP_NEQ_UQ), dvd(sumlx, suml2));
  vf best = mul(scale, sumlx);
  vf best_iscale = iscale;
  for (int step = -9; step <= 9; step++) {
    if (step == 0) continue;
    const vf try_iscale = dvd(k(-((float)nmax + 0.1f * (float)step)), max);
    qx_sums(n, nmax, X, W, try_iscale, &sumlx, &suml2);
    vf take = and_(gt(suml2, k(0)), gt(mul(sumlx, sumlx), mul(best, suml2)));
    vf this_scale = dvd(sumlx, suml2);
    scale = pick(scale, this_scale, take);
    best = pick(best, mul(this_scale, sumlx), take);
    best_iscale = pick(best_iscale, try_iscale, take);
  }

  vi Li[SQ_KQ_MAX_LEN];
  const vi keep = _mm256_castps_si256(zero), off = _mm256_set1_epi32(nmax);
  for (int i = 0; i < n; i++)
    Li[i] = _mm256_andnot_si256(
        keep, _mm256_add_epi32(level_i(mul(best_iscale, X[i]), -nmax, nmax - 1), off));
  from_lanes(Li, n, (unsigned char *)Lout);
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
  vf X[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes(x, n, X);
  vf zero;
  const vf max = signed_abs_max(n, X, &zero);
  const vf iscale = dvd(k((float)-nmax), max);

  vf sumlx = k(0), suml2 = k(0);
  for (int i = 0; i < n; i++) {
    Lv[i] = level(mul(iscale, X[i]), -nmax, nmax - 1);
    vf w = mul(X[i], X[i]);
    sumlx = add(sumlx, mul(mul(w, X[i]), Lv[i]));
    suml2 = add(suml2, mul(mul(w, Lv[i]), Lv[i]));
  }
  /* Move one level at a time to where the fit of the others puts it. */
  for (int pass = 0; pass < 5; pass++) {
    vf moved = k(0);
    for (int i = 0; i < n; i++) {
      vf w = mul(X[i], X[i]);
      vf wx = mul(w, X[i]);
      vf slx = sub(sumlx, mul(wx, Lv[i]));
      vf sl2 = sub(suml2, mul(mul(w, Lv[i]), Lv[i]));
      vf new_l = level(dvd(mul(X[i], sl2), slx), -nmax, nmax - 1);
      vf changed = _mm256_cmp_ps(new_l, Lv[i], _CMP_NEQ_UQ);
      vf slx2 = add(slx, mul(wx, new_l));
      vf sl22 = add(sl2, mul(mul(w, new_l), new_l));
      vf better = and_(gt(sl22, k(0)),
                       gt(mul(mul(slx2, slx2), suml2), mul(mul(sumlx, sumlx), sl22)));
      vf take = andnot(zero, and_(and_(gt(slx, k(0)), changed), better));
      /* Moves are rare: branching around them lets the next elements'
      ** work start before this one's division is done. */
      if (!any(take)) continue;
      Lv[i] = pick(Lv[i], new_l, take);
      sumlx = pick(sumlx, slx2, take);
      suml2 = pick(suml2, sl22, take);
      moved = _mm256_or_ps(moved, take);
    }
    if (!any(moved)) break;
  }

  vi Li[SQ_KQ_MAX_LEN];
  const vi keep = _mm256_castps_si256(zero), off = _mm256_set1_epi32(nmax);
  for (int i = 0; i < n; i++)
    Li[i] = _mm256_andnot_si256(keep, _mm256_add_epi32(_mm256_cvtps_epi32(Lv[i]), off));
  from_lanes(Li, n, (unsigned char *)Lout);
  vf scale = and_(gt(suml2, k(0)), dvd(sumlx, suml2));
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
  const vi base = _mm256_set1_epi32(lo);
  for (int j = 0; j < nsub; j++) {
    if (ds[j] == 0) continue;
    const vf d = k(ds[j]), m = k(dm ? dm[j] : 0);
    for (int i = len * j; i < len * j + len; i += LANES) {
      vf v = _mm256_loadu_ps(x + i);
      v = dm ? dvd(add(v, m), d) : dvd(v, d);
      store_bytes8(_mm256_sub_epi32(level_i(v, lo, hi), base), L + i);
    }
  }
}

static const sq_kq_search search_avx2 = {affine_avx2, symmetric_avx2, q3_avx2,
                                         requantize_avx2};

/* Under MXCSR.DAZ min_ps/max_ps return a denormal operand flushed to zero
** where the scalar compare-and-assign keeps its bits: that mode uses the
** scalar searches. */
static const sq_kq_search *searches(void) {
  return (_mm_getcsr() & 0x40) ? &sq_kq_search_scalar : &search_avx2;
}

#define SQ_KQUANT_AVX2(T, TYPE)                                                \
  void sq_ggml_quantize_##T##_avx2(const void *x, size_t n,                    \
                                   const void *importance, void *blocks) {     \
    sq_ggml_kquant_row(TYPE, searches(), x, n, importance, blocks);          \
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

#endif
