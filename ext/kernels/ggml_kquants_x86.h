/*
** ggml_kquants_x86.h: the K-quant sub-block searches, SQ_W sub-blocks side
** by side (docs/NUMERICS.md#ggml), the template of ggml_kquants_x86_avx2.c
** (8 lanes) and ggml_kquants_x86_avx512.c (16), written in x86_width.h's
** words (no include guard: read once per width).
**
** ggml's searches (ggml_search.c) treat each sub-block on its own, and a
** super-block has 8 or 16 of them, so lane k of every vector here is
** sub-block k of a batch: the values are transposed to "element i of SQ_W
** sub-blocks" vectors and each search runs once for all of them.  Per lane,
** every float operation is the scalar one in the scalar order (separate mul
** and add, no FMA; ggml's nearest_int by the same add-and-mask), so every
** lane's result is the scalar search's, bit for bit.  Where the scalar
** search branches, the lanes compute both ways and keep their own with a
** blend by a mask:
**   - a flat or all-zero sub-block (which returns early in scalar) keeps
**     its early answer through the mask;
**   - a candidate scale is accepted per lane (compare, then blend the
**     search state); the winning levels are recomputed at the end from the
**     winning inverse scale and minimum, which gives the levels scalar kept;
**   - make_q3_quants repeats its refinement pass while any lane changed: a
**     pass that changes nothing in a lane leaves that lane's state as it
**     was, so repeating it changes nothing either, exactly as scalar's
**     early exit.
** Comparisons use the predicates of C's operators (ordered for <, >, <=,
** ==; unordered for !=), so NaN sums from infinite weights steer each lane
** as they steer the scalar code.  A batch with fewer sub-blocks than lanes
** (AVX-512: the last super-block of a row with an odd count) fills the
** spare lanes with copies and writes only the real ones.  Everything else
** of the quantizers is ggml_quantize_kquants.c's (ggml_quantize_legacy.c's
** for the weighted legacy types, whose search weights are computed here).
** Under MXCSR.DAZ the scalar searches run instead (min_ps/max_ps flush a
** denormal operand that the scalar compare-and-assign keeps).
**
** Each ISA file supplies, after this header (the transpose is here):
**   to_lanes_P(x, len, nsub, v)    element i of the nsub sub-blocks of len
**                                  floats at x into lane k of v[i];
**   from_lanes_P(v, len, nsub, L)  the levels (0..255) in the lanes back
**                                  into the nsub sub-blocks of len bytes;
**   store_bytes_P(p, v)            the SQ_W lanes of v, each 0..255, as
**                                  SQ_W bytes at p.
*/
#define SQ_KQ_EPS_ZERO 1e-15f /* ggml's all-zero threshold (GROUP_MAX_EPS) */

static void SQ_FN(to_lanes)(const float *x, int len, int nsub, vfloat *v);
SQ_AI void SQ_FN(store_bytes)(unsigned char *p, vint v);
static void SQ_FN(from_lanes)(const vint *v, int len, int nsub,
                              unsigned char *L);

/* ggml's nearest_int in every lane: round half to even through the
** mantissa of f + 1.5 * 2^23. */
SQ_AI vint SQ_FN(nearest)(vfloat f) {
  vint i = vi_bits(vf_add(f, vf_set1(12582912.f)));
  return vi_sub(vi_and(i, vi_set1(0x007fffff)), vi_set1(0x00400000));
}
/* nearest_int(f) clamped to [lo, hi]; as an exact float. */
SQ_AI vint SQ_FN(level_i)(vfloat f, int lo, int hi) {
  return vi_min(vi_max(SQ_FN(nearest)(f), vi_set1(lo)), vi_set1(hi));
}
SQ_AI vfloat SQ_FN(level)(vfloat f, int lo, int hi) {
  return vi_to_f(SQ_FN(level_i)(f, lo, hi));
}

/* Transposes the 8x8 matrix of floats r[0..7] in place (pure moves). */
SQ_AI void SQ_FN(transpose8)(__m256 *r) {
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

/* ---- make_qkx2_quants / make_qkx3_quants -------------------------------------- */

/* Weighted error of X against scale*L + min (absolute or squared). */
SQ_AI vfloat SQ_FN(affine_error)(int n, const vfloat *X, const vfloat *W,
                                 const vfloat *L, vfloat scale, vfloat min,
                                 int use_mad) {
  vfloat err = vf_set1(0);
  for (int i = 0; i < n; i++) {
    vfloat diff = vf_sub(vf_add(vf_mul(scale, L[i]), min), X[i]);
    diff = use_mad ? vf_abs(diff) : vf_mul(diff, diff);
    err = vf_add(err, vf_mul(W[i], diff));
  }
  return err;
}

static void SQ_FN(affine_lanes)(const sq_kq_affine *a, int nsub,
                                const float *x, const float *w, float *scales,
                                float *mins, uint8_t *Lout) {
  const int n = a->len, nmax = a->nmax;
  const vfloat zero = vf_set1(0);
  vfloat X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  SQ_FN(to_lanes)(x, n, nsub, X);
  SQ_FN(to_lanes)(w, n, nsub, W);

  vfloat min = X[0], max = X[0], sum_w = W[0], sum_x = vf_mul(W[0], X[0]);
  for (int i = 1; i < n; i++) {
    min = vf_min(X[i], min);  /* x < min ? x : min */
    max = vf_max(X[i], max);  /* x > max ? x : max */
    sum_w = vf_add(sum_w, W[i]);
    sum_x = vf_add(sum_x, vf_mul(W[i], X[i]));
  }
  min = vf_blend(min, zero, vf_cmp(min, zero, _CMP_GT_OQ));
  const vmask flat = a->flat_if_le ? vf_cmp(max, min, _CMP_LE_OQ)
                                   : vf_cmp(max, min, _CMP_EQ_OQ);

  vfloat iscale = vf_div(vf_set1((float)nmax), vf_sub(max, min));
  vfloat scale = vf_div(vf_set1(1), iscale);
  for (int i = 0; i < n; i++)
    Lv[i] = SQ_FN(level)(vf_mul(iscale, vf_sub(X[i], min)), 0, nmax);
  vfloat best = SQ_FN(affine_error)(n, X, W, Lv, scale, min, a->use_mad);
  /* The inverse scale and minimum the kept levels were made with. */
  vfloat best_iscale = iscale, best_lmin = min;

  for (int step = 0; step <= a->nstep; step++) {
    const float num = a->rmin + a->rdelta * (float)step + (float)nmax;
    const vfloat try_iscale = vf_div(vf_set1(num), vf_sub(max, min));
    vfloat sum_l = zero, sum_l2 = zero, sum_xl = zero;
    for (int i = 0; i < n; i++) {
      Lv[i] = SQ_FN(level)(vf_mul(try_iscale, vf_sub(X[i], min)), 0, nmax);
      vfloat wl = vf_mul(W[i], Lv[i]);
      sum_l = vf_add(sum_l, wl);
      sum_l2 = vf_add(sum_l2, vf_mul(wl, Lv[i]));
      sum_xl = vf_add(sum_xl, vf_mul(wl, X[i]));
    }
    vfloat D = vf_sub(vf_mul(sum_w, sum_l2), vf_mul(sum_l, sum_l));
    vmask fit = vm_andnot(flat, vf_cmp(D, zero, _CMP_GT_OQ));
    if (!vm_any(fit)) continue;
    vfloat this_scale =
        vf_div(vf_sub(vf_mul(sum_w, sum_xl), vf_mul(sum_x, sum_l)), D);
    vfloat this_min =
        vf_div(vf_sub(vf_mul(sum_l2, sum_x), vf_mul(sum_l, sum_xl)), D);
    vmask positive = vf_cmp(this_min, zero, _CMP_GT_OQ);
    this_min = vf_blend(this_min, zero, positive);
    this_scale = vf_blend(this_scale, vf_div(sum_xl, sum_l2), positive);
    vfloat err = SQ_FN(affine_error)(n, X, W, Lv, this_scale, this_min, a->use_mad);
    vmask take = vm_and(fit, vf_cmp(err, best, _CMP_LT_OQ));
    best = vf_blend(best, err, take);
    scale = vf_blend(scale, this_scale, take);
    best_iscale = vf_blend(best_iscale, try_iscale, take);
    best_lmin = vf_blend(best_lmin, min, take);
    min = vf_blend(min, this_min, take);
  }

  vint Li[SQ_KQ_MAX_LEN];
  for (int i = 0; i < n; i++)
    Li[i] = vi_clear(flat, SQ_FN(level_i)(vf_mul(best_iscale, vf_sub(X[i], best_lmin)),
                                          0, nmax));
  SQ_FN(from_lanes)(Li, n, nsub, Lout);
  vf_store_lanes(scales, vf_clear(flat, scale), nsub);
  vf_store_lanes(mins, vf_neg(min), nsub);
}

static void SQ_FN(affine)(const sq_kq_affine *a, int nsub, const float *x,
                          const float *w, float *scales, float *mins,
                          uint8_t *L) {
  for (int j = 0; j < nsub; j += SQ_W) {
    size_t o = (size_t)a->len * (size_t)j;
    int m = nsub - j < SQ_W ? nsub - j : SQ_W;
    SQ_FN(affine_lanes)(a, m, x + o, w + o, scales + j, mins + j, L + o);
  }
}

/* ---- the element of largest magnitude (symmetric searches) -------------------- */

/* Per lane: the signed element of largest magnitude (the first on ties)
** and the lanes whose magnitude is below ggml's zero threshold. */
SQ_AI vfloat SQ_FN(signed_abs_max)(int n, const vfloat *X, vmask *zero) {
  vfloat amax = vf_set1(0), max = vf_set1(0);
  for (int i = 0; i < n; i++) {
    vfloat ax = vf_abs(X[i]);
    vmask bigger = vf_cmp(ax, amax, _CMP_GT_OQ);
    amax = vf_blend(amax, ax, bigger);
    max = vf_blend(max, X[i], bigger);
  }
  *zero = vf_cmp(amax, vf_set1(SQ_KQ_EPS_ZERO), _CMP_LT_OQ);
  return max;
}

/* ---- make_qx_quants (rmse_type 1) --------------------------------------------- */

/* sum (w*x)*l and sum (w*l)*l for the levels under iscale. */
SQ_AI void SQ_FN(qx_sums)(int n, int nmax, const vfloat *X, const vfloat *W,
                          vfloat iscale, vfloat *sumlx, vfloat *suml2) {
  vfloat slx = vf_set1(0), sl2 = vf_set1(0);
  for (int i = 0; i < n; i++) {
    vfloat l = SQ_FN(level)(vf_mul(iscale, X[i]), -nmax, nmax - 1);
    slx = vf_add(slx, vf_mul(vf_mul(W[i], X[i]), l));
    sl2 = vf_add(sl2, vf_mul(vf_mul(W[i], l), l));
  }
  *sumlx = slx;
  *suml2 = sl2;
}

static void SQ_FN(symmetric_lanes)(int n, int nmax, int nsub, const float *x,
                                   const float *w, float *scales,
                                   int8_t *Lout) {
  const vfloat zero_f = vf_set1(0);
  vfloat X[SQ_KQ_MAX_LEN], W[SQ_KQ_MAX_LEN];
  SQ_FN(to_lanes)(x, n, nsub, X);
  if (w)
    SQ_FN(to_lanes)(w, n, nsub, W);
  else
    for (int i = 0; i < n; i++) W[i] = vf_mul(X[i], X[i]);

  vmask zero;
  const vfloat max = SQ_FN(signed_abs_max)(n, X, &zero);
  vfloat iscale = vf_div(vf_set1((float)-nmax), max);
  vfloat sumlx, suml2;
  SQ_FN(qx_sums)(n, nmax, X, W, iscale, &sumlx, &suml2);
  vfloat scale = vf_keep(vf_cmp(suml2, zero_f, _CMP_NEQ_UQ), vf_div(sumlx, suml2));
  vfloat best = vf_mul(scale, sumlx);
  vfloat best_iscale = iscale;
  for (int step = -9; step <= 9; step++) {
    if (step == 0) continue;
    const vfloat try_iscale = vf_div(vf_set1(-((float)nmax + 0.1f * (float)step)), max);
    SQ_FN(qx_sums)(n, nmax, X, W, try_iscale, &sumlx, &suml2);
    vmask take = vm_and(vf_cmp(suml2, zero_f, _CMP_GT_OQ),
                        vf_cmp(vf_mul(sumlx, sumlx), vf_mul(best, suml2), _CMP_GT_OQ));
    vfloat this_scale = vf_div(sumlx, suml2);
    scale = vf_blend(scale, this_scale, take);
    best = vf_blend(best, vf_mul(this_scale, sumlx), take);
    best_iscale = vf_blend(best_iscale, try_iscale, take);
  }

  vint Li[SQ_KQ_MAX_LEN];
  const vint off = vi_set1(nmax);
  for (int i = 0; i < n; i++)
    Li[i] = vi_clear(zero, vi_add(SQ_FN(level_i)(vf_mul(best_iscale, X[i]), -nmax, nmax - 1),
                                  off));
  SQ_FN(from_lanes)(Li, n, nsub, (unsigned char *)Lout);
  vf_store_lanes(scales, vf_clear(zero, scale), nsub);
}

static void SQ_FN(symmetric)(int nsub, int len, int nmax, const float *x,
                             const float *w, float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j += SQ_W) {
    size_t o = (size_t)len * (size_t)j;
    int m = nsub - j < SQ_W ? nsub - j : SQ_W;
    SQ_FN(symmetric_lanes)(len, nmax, m, x + o, w ? w + o : NULL, scales + j, L + o);
  }
}

/* ---- make_q3_quants (do_rmse) ------------------------------------------------- */

static void SQ_FN(q3_lanes)(int n, int nmax, int nsub, const float *x,
                            float *scales, int8_t *Lout) {
  const vfloat zero_f = vf_set1(0);
  vfloat X[SQ_KQ_MAX_LEN], Lv[SQ_KQ_MAX_LEN];
  SQ_FN(to_lanes)(x, n, nsub, X);
  vmask zero;
  const vfloat max = SQ_FN(signed_abs_max)(n, X, &zero);
  const vfloat iscale = vf_div(vf_set1((float)-nmax), max);

  vfloat sumlx = zero_f, suml2 = zero_f;
  for (int i = 0; i < n; i++) {
    Lv[i] = SQ_FN(level)(vf_mul(iscale, X[i]), -nmax, nmax - 1);
    vfloat w = vf_mul(X[i], X[i]);
    sumlx = vf_add(sumlx, vf_mul(vf_mul(w, X[i]), Lv[i]));
    suml2 = vf_add(suml2, vf_mul(vf_mul(w, Lv[i]), Lv[i]));
  }
  /* Move one level at a time to where the fit of the others puts it. */
  for (int pass = 0; pass < 5; pass++) {
    vmask moved = vm_none();
    for (int i = 0; i < n; i++) {
      vfloat w = vf_mul(X[i], X[i]);
      vfloat wx = vf_mul(w, X[i]);
      vfloat slx = vf_sub(sumlx, vf_mul(wx, Lv[i]));
      vfloat sl2 = vf_sub(suml2, vf_mul(vf_mul(w, Lv[i]), Lv[i]));
      vfloat new_l = SQ_FN(level)(vf_div(vf_mul(X[i], sl2), slx), -nmax, nmax - 1);
      vmask changed = vf_cmp(new_l, Lv[i], _CMP_NEQ_UQ);
      vfloat slx2 = vf_add(slx, vf_mul(wx, new_l));
      vfloat sl22 = vf_add(sl2, vf_mul(vf_mul(w, new_l), new_l));
      vmask better = vm_and(vf_cmp(sl22, zero_f, _CMP_GT_OQ),
                            vf_cmp(vf_mul(vf_mul(slx2, slx2), suml2),
                                   vf_mul(vf_mul(sumlx, sumlx), sl22), _CMP_GT_OQ));
      vmask take = vm_andnot(zero, vm_and(vm_and(vf_cmp(slx, zero_f, _CMP_GT_OQ), changed),
                                          better));
      /* Moves are rare: branching around them lets the next elements'
      ** work start before this one's division is done. */
      if (!vm_any(take)) continue;
      Lv[i] = vf_blend(Lv[i], new_l, take);
      sumlx = vf_blend(sumlx, slx2, take);
      suml2 = vf_blend(suml2, sl22, take);
      moved = vm_or(moved, take);
    }
    if (!vm_any(moved)) break;
  }

  vint Li[SQ_KQ_MAX_LEN];
  const vint off = vi_set1(nmax);
  for (int i = 0; i < n; i++) Li[i] = vi_clear(zero, vi_add(vi_cvt(Lv[i]), off));
  SQ_FN(from_lanes)(Li, n, nsub, (unsigned char *)Lout);
  vmask fit = vm_andnot(zero, vf_cmp(suml2, zero_f, _CMP_GT_OQ));
  vf_store_lanes(scales, vf_keep(fit, vf_div(sumlx, suml2)), nsub);
}

static void SQ_FN(q3)(int nsub, int len, int nmax, const float *x,
                      float *scales, int8_t *L) {
  for (int j = 0; j < nsub; j += SQ_W) {
    size_t o = (size_t)len * (size_t)j;
    int m = nsub - j < SQ_W ? nsub - j : SQ_W;
    SQ_FN(q3_lanes)(len, nmax, m, x + o, scales + j, L + o);
  }
}

/* ---- requantization ------------------------------------------------------------ */

/* SQ_W consecutive weights of one sub-block per vector, its scale (and
** minimum) broadcast: the scalar loop's operations, SQ_W at a time. */
static void SQ_FN(requantize)(int nsub, int len, const float *x,
                              const float *ds, const float *dm, int lo, int hi,
                              unsigned char *L) {
  const vint base = vi_set1(lo);
  for (int j = 0; j < nsub; j++) {
    if (ds[j] == 0) continue;
    const vfloat d = vf_set1(ds[j]), m = vf_set1(dm ? dm[j] : 0);
    for (int i = len * j; i < len * j + len; i += SQ_W) {
      vfloat v = vf_load(x + i);
      v = dm ? vf_div(vf_add(v, m), d) : vf_div(v, d);
      SQ_FN(store_bytes)(L + i, vi_sub(SQ_FN(level_i)(v, lo, hi), base));
    }
  }
}

static const sq_kq_search SQ_FN(search) = {SQ_FN(affine), SQ_FN(symmetric),
                                           SQ_FN(q3), SQ_FN(requantize)};

/* Under MXCSR.DAZ min_ps/max_ps return a denormal operand flushed to zero
** where the scalar compare-and-assign keeps its bits: that mode uses the
** scalar searches. */
static const sq_kq_search *SQ_FN(searches)(void) {
  return (_mm_getcsr() & 0x40) ? &sq_kq_search_scalar : &SQ_FN(search);
}

/* ggml's legacy search weights, SQ_W at a time: the scalar loop's
** multiply, add, square root (correctly rounded in both) and multiply. */
static void SQ_FN(legacy_weigh)(const unsigned char *x, const unsigned char *imp,
                                float sigma2, size_t count, float *xb, float *w) {
  const vfloat s2 = vf_set1(sigma2);
  for (size_t j = 0; j < count; j += SQ_W) {
    vfloat v = vf_load(x + 4 * j);
    vf_store(xb + j, v);
    vf_store(w + j, vf_mul(vf_load(imp + 4 * j), vf_sqrt(vf_add(s2, vf_mul(v, v)))));
  }
}

void SQ_FN(sq_ggml_legacy_weighted)(sq_ggml_type type, const void *x, size_t n,
                                    const void *importance, void *blocks) {
  sq_ggml_legacy_weighted_row(type, SQ_FN(searches)(), SQ_FN(legacy_weigh), x, n,
                              importance, blocks);
}

#define SQ_KQ_ENTRY(T, TYPE)                                                  \
  void SQ_FN(sq_ggml_quantize_##T)(const void *x, size_t n,                   \
                                   const void *importance, void *blocks) {    \
    sq_ggml_kquant_row(TYPE, SQ_FN(searches)(), x, n, importance, blocks);    \
  }
SQ_KQ_ENTRY(q2_K, SQ_GGML_Q2_K)
SQ_KQ_ENTRY(q3_K, SQ_GGML_Q3_K)
SQ_KQ_ENTRY(q4_K, SQ_GGML_Q4_K)
SQ_KQ_ENTRY(q5_K, SQ_GGML_Q5_K)
SQ_KQ_ENTRY(q6_K, SQ_GGML_Q6_K)
#undef SQ_KQ_ENTRY
#undef SQ_KQ_EPS_ZERO
