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

typedef __m512 vf;
typedef __m512i vi;
typedef __mmask16 vm;
#define LANES 16
#define EPS_ZERO 1e-15f /* ggml's all-zero threshold (GROUP_MAX_EPS) */

SQ_AI vf k(float f) { return _mm512_set1_ps(f); }
SQ_AI vi ki(int v) { return _mm512_set1_epi32(v); }
SQ_AI vf add(vf a, vf b) { return _mm512_add_ps(a, b); }
SQ_AI vf sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
SQ_AI vf mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
SQ_AI vf dvd(vf a, vf b) { return _mm512_div_ps(a, b); }
SQ_AI vf vabs(vf a) { return _mm512_abs_ps(a); }
SQ_AI vf neg(vf a) { return _mm512_xor_ps(k(-0.0f), a); }
/* a where mask is clear, b where it is set. */
SQ_AI vf pick(vf a, vf b, vm mask) { return _mm512_mask_blend_ps(mask, a, b); }
SQ_AI vm gt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
SQ_AI vm lt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
SQ_AI vm but_not(vm a, vm b) { return (vm)(a & ~b); }

/* ggml's nearest_int in every lane: round half to even through the
** mantissa of f + 1.5 * 2^23. */
SQ_AI vi nearest(vf f) {
  vi i = _mm512_castps_si512(add(f, k(12582912.f)));
  return _mm512_sub_epi32(_mm512_and_si512(i, ki(0x007fffff)), ki(0x00400000));
}
/* nearest_int(f) clamped to [lo, hi]; as an exact float. */
SQ_AI vi level_i(vf f, int lo, int hi) {
  return _mm512_min_epi32(_mm512_max_epi32(nearest(f), ki(lo)), ki(hi));
}
SQ_AI vf level(vf f, int lo, int hi) {
  return _mm512_cvtepi32_ps(level_i(f, lo, hi));
}

/* Transposes the 8x8 matrix of floats r[0..7] in place (pure moves). */
SQ_AI void transpose8(__m256 *r) {
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
static void to_lanes(const float *x, int len, int nsub, vf *v) {
  const float *upper = x + (nsub > 8 ? 8 * len : 0);
  for (int c = 0; c < len; c += 8) {
    __m256 lo[8], hi[8];
    for (int l = 0; l < 8; l++) {
      lo[l] = _mm256_loadu_ps(x + len * l + c);
      hi[l] = _mm256_loadu_ps(upper + len * l + c);
    }
    transpose8(lo);
    transpose8(hi);
    for (int i = 0; i < 8; i++)
      v[c + i] = _mm512_insertf32x8(_mm512_castps256_ps512(lo[i]), hi[i], 1);
  }
}

/* Levels (0..255) back from lanes into the nsub (8 or 16) sub-blocks of
** len bytes. */
static void from_lanes(const vi *v, int len, int nsub, unsigned char *L) {
  for (int c = 0; c < len; c += 8) {
    for (int half = 0; half < nsub / 8; half++) {
      __m256 r[8];
      for (int i = 0; i < 8; i++)
        r[i] = _mm256_castsi256_ps(half ? _mm512_extracti32x8_epi32(v[c + i], 1)
                                        : _mm512_castsi512_si256(v[c + i]));
      transpose8(r);
      for (int l = 0; l < 8; l++) {
        __m128i b = _mm256_cvtepi32_epi8(_mm256_castps_si256(r[l]));
        _mm_storel_epi64((__m128i *)(void *)(L + len * (8 * half + l) + c), b);
      }
    }
  }
}

SQ_AI vm lanes(int nsub) { return (vm)((1u << nsub) - 1u); }

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

static void affine16(const sq_kq_affine *a, int nsub, const float *x,
                     const float *w, float *scales, float *mins,
                     uint8_t *Lout) {
  const int n = a->len, nmax = a->nmax;
  vf X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes(x, n, nsub, X);
  to_lanes(w, n, nsub, W);

  vf min = X[0], max = X[0], sum_w = W[0], sum_x = mul(W[0], X[0]);
  for (int i = 1; i < n; i++) {
    min = _mm512_min_ps(X[i], min);  /* x < min ? x : min */
    max = _mm512_max_ps(X[i], max);  /* x > max ? x : max */
    sum_w = add(sum_w, W[i]);
    sum_x = add(sum_x, mul(W[i], X[i]));
  }
  min = pick(min, k(0), gt(min, k(0)));
  const vm flat = a->flat_if_le ? _mm512_cmp_ps_mask(max, min, _CMP_LE_OQ)
                                : _mm512_cmp_ps_mask(max, min, _CMP_EQ_OQ);

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
    vm fit = but_not(gt(D, k(0)), flat);
    if (!fit) continue;
    vf this_scale = dvd(sub(mul(sum_w, sum_xl), mul(sum_x, sum_l)), D);
    vf this_min = dvd(sub(mul(sum_l2, sum_x), mul(sum_l, sum_xl)), D);
    vm positive = gt(this_min, k(0));
    this_min = pick(this_min, k(0), positive);
    this_scale = pick(this_scale, dvd(sum_xl, sum_l2), positive);
    vf err = affine_error(n, X, W, Lv, this_scale, this_min, a->use_mad);
    vm take = (vm)(fit & lt(err, best));
    best = pick(best, err, take);
    scale = pick(scale, this_scale, take);
    best_iscale = pick(best_iscale, try_iscale, take);
    best_lmin = pick(best_lmin, min, take);
    min = pick(min, this_min, take);
  }

  vi Li[SQ_KQ_MAX_LEN];
  for (int i = 0; i < n; i++)
    Li[i] = _mm512_maskz_mov_epi32((vm)~flat,
                                   level_i(mul(best_iscale, sub(X[i], best_lmin)), 0, nmax));
  from_lanes(Li, n, nsub, Lout);
  _mm512_mask_storeu_ps(scales, lanes(nsub), _mm512_maskz_mov_ps((vm)~flat, scale));
  _mm512_mask_storeu_ps(mins, lanes(nsub), neg(min));
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
SQ_AI vf signed_abs_max(int n, const vf *X, vm *zero) {
  vf amax = k(0), max = k(0);
  for (int i = 0; i < n; i++) {
    vf ax = vabs(X[i]);
    vm bigger = gt(ax, amax);
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

static void symmetric16(int n, int nmax, int nsub, const float *x,
                        const float *w, float *scales, int8_t *Lout) {
  vf X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN];
  to_lanes(x, n, nsub, X);
  if (w)
    to_lanes(w, n, nsub, W);
  else
    for (int i = 0; i < n; i++) W[i] = mul(X[i], X[i]);

  vm zero;
  const vf max = signed_abs_max(n, X, &zero);
  vf iscale = dvd(k((float)-nmax), max);
  vf sumlx, suml2;
  qx_sums(n, nmax, X, W, iscale, &sumlx, &suml2);
  vf scale = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(suml2, k(0), _CMP_NEQ_UQ), sumlx, suml2);
  vf best = mul(scale, sumlx);
  vf best_iscale = iscale;
  for (int step = -9; step <= 9; step++) {
    if (step == 0) continue;
    const vf try_iscale = dvd(k(-((float)nmax + 0.1f * (float)step)), max);
    qx_sums(n, nmax, X, W, try_iscale, &sumlx, &suml2);
    vm take = (vm)(gt(suml2, k(0)) & gt(mul(sumlx, sumlx), mul(best, suml2)));
    vf this_scale = dvd(sumlx, suml2);
    scale = pick(scale, this_scale, take);
    best = pick(best, mul(this_scale, sumlx), take);
    best_iscale = pick(best_iscale, try_iscale, take);
  }

  vi Li[SQ_KQ_MAX_LEN];
  for (int i = 0; i < n; i++)
    Li[i] = _mm512_maskz_add_epi32((vm)~zero, level_i(mul(best_iscale, X[i]), -nmax, nmax - 1),
                                   ki(nmax));
  from_lanes(Li, n, nsub, (unsigned char *)Lout);
  _mm512_mask_storeu_ps(scales, lanes(nsub), _mm512_maskz_mov_ps((vm)~zero, scale));
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
  vf X[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  to_lanes(x, n, nsub, X);
  vm zero;
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
    vm moved = 0;
    for (int i = 0; i < n; i++) {
      vf w = mul(X[i], X[i]);
      vf wx = mul(w, X[i]);
      vf slx = sub(sumlx, mul(wx, Lv[i]));
      vf sl2 = sub(suml2, mul(mul(w, Lv[i]), Lv[i]));
      vf new_l = level(dvd(mul(X[i], sl2), slx), -nmax, nmax - 1);
      vm changed = _mm512_cmp_ps_mask(new_l, Lv[i], _CMP_NEQ_UQ);
      vf slx2 = add(slx, mul(wx, new_l));
      vf sl22 = add(sl2, mul(mul(w, new_l), new_l));
      vm better = (vm)(gt(sl22, k(0)) &
                       gt(mul(mul(slx2, slx2), suml2), mul(mul(sumlx, sumlx), sl22)));
      vm take = but_not((vm)(gt(slx, k(0)) & changed & better), zero);
      /* Moves are rare: branching around them lets the next elements'
      ** work start before this one's division is done. */
      if (!take) continue;
      Lv[i] = pick(Lv[i], new_l, take);
      sumlx = pick(sumlx, slx2, take);
      suml2 = pick(suml2, sl22, take);
      moved = (vm)(moved | take);
    }
    if (!moved) break;
  }

  vi Li[SQ_KQ_MAX_LEN];
  for (int i = 0; i < n; i++)
    Li[i] = _mm512_maskz_add_epi32((vm)~zero, _mm512_cvtps_epi32(Lv[i]), ki(nmax));
  from_lanes(Li, n, nsub, (unsigned char *)Lout);
  vf scale = _mm512_maskz_div_ps(but_not(gt(suml2, k(0)), zero), sumlx, suml2);
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
    const vf d = k(ds[j]), m = k(dm ? dm[j] : 0);
    for (int i = len * j; i < len * j + len; i += LANES) {
      vf v = _mm512_loadu_ps(x + i);
      v = dm ? dvd(add(v, m), d) : dvd(v, d);
      vi l = _mm512_sub_epi32(level_i(v, lo, hi), ki(lo));
      _mm_storeu_si128((__m128i *)(void *)(L + i), _mm512_cvtepi32_epi8(l));
    }
  }
}

static const sq_kq_search search_avx512 = {affine_avx512, symmetric_avx512,
                                           q3_avx512, requantize_avx512};

/* Under MXCSR.DAZ min_ps/max_ps return a denormal operand flushed to zero
** where the scalar compare-and-assign keeps its bits: that mode uses the
** scalar searches. */
static const sq_kq_search *searches(void) {
  return (_mm_getcsr() & 0x40) ? &sq_kq_search_scalar : &search_avx512;
}

#define SQ_KQUANT_AVX512(T, TYPE)                                              \
  void sq_ggml_quantize_##T##_avx512(const void *x, size_t n,                  \
                                     const void *importance, void *blocks) {   \
    sq_ggml_kquant_row(TYPE, searches(), x, n, importance, blocks);        \
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

#endif
