/*
** ggml_search.c: the scale searches behind ggml's K-quants and weighted
** legacy quantizers (docs/NUMERICS.md#ggml).
**
** Each search picks, for one small group of values, a scale (and for the
** affine formats a minimum) and the integer levels L that go with it.  The
** bytes a quantizer writes depend on every rounding inside the search, so
** each function here performs ggml's float operations in ggml's order, one
** by one: a product a*b*c is (a*b)*c with integer factors converted to
** float where ggml converts them, sums run from the first element to the
** last, and comparisons keep their operand order (a NaN weight or scale
** must steer the search the way it steers ggml's).  The build uses
** -ffp-contract=off, so no product-sum is fused.
**
** Inputs are native floats; the callers copy them out of the little-endian
** row first.  Integers that ggml narrows into int8_t/uint8_t arrays are
** narrowed here with the same (modular, well-defined) conversions.
*/
#include <math.h>
#include "kernels/ggml_internal.h"

/* ggml treats a group whose largest magnitude is below this as all zero. */
#define SQ_GGML_GROUP_EPS 1e-15f

/* The element of largest magnitude, signed (the first one on ties), and its
** magnitude.  The symmetric searches scale so that this element lands on
** the most negative level, which has one more step than the positive side. */
static float signed_abs_max(int n, const float *x, float *amax_out) {
  float amax = 0, max = 0;
  for (int i = 0; i < n; i++) {
    float ax = fabsf(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  *amax_out = amax;
  return max;
}

/* ---- symmetric levels: make_qx_quants ------------------------------------- */

/* The weight of x[i] in the least-squares fit: the caller's weights, or
** x^2 (ggml's rmse_type 1, the only one its K-quants and weighted legacy
** quantizers use; the others are left out, as nothing here could test them
** against ggml). */
static inline float qx_weight(const float *qw, int i, float xi) {
  return qw ? qw[i] : xi * xi;
}

/* Level of x under inverse scale iscale, in [-nmax, nmax - 1]. */
static inline int qx_level(float iscale, float xi, int nmax) {
  return sq_ggml_clamp_int(sq_ggml_nearest_int(iscale * xi), -nmax, nmax - 1);
}

/* The weighted sums of x*l and l*l for the levels under iscale, as ggml
** accumulates them: (w*x)*l and (w*l)*l. */
static void qx_sums(int n, int nmax, const float *x, const float *qw,
                    float iscale, float *sumlx, float *suml2) {
  float slx = 0, sl2 = 0;
  for (int i = 0; i < n; i++) {
    float l = (float)qx_level(iscale, x[i], nmax);
    float w = qx_weight(qw, i, x[i]);
    slx += w * x[i] * l;
    sl2 += w * l * l;
  }
  *sumlx = slx;
  *suml2 = sl2;
}

static void qx_store_levels(int n, int nmax, const float *x, float iscale,
                            int8_t *L) {
  for (int i = 0; i < n; i++)
    L[i] = (int8_t)(nmax + qx_level(iscale, x[i], nmax));
}

/* Symmetric scale for n values on 2*nmax levels (stored offset by nmax):
** the least-squares scale for the levels of the scale that maps the largest
** magnitude to -nmax, then 18 nearby starting scales (nmax +- 0.1 .. 0.9)
** each refitted, keeping the best weighted error. */
float sq_ggml_make_qx_quants(int n, int nmax, const float *x, int8_t *L,
                             const float *qw) {
  float amax;
  float max = signed_abs_max(n, x, &amax);
  if (amax < SQ_GGML_GROUP_EPS) {
    memset(L, 0, (size_t)n);
    return 0.f;
  }
  float iscale = -nmax / max;
  float sumlx, suml2;
  qx_store_levels(n, nmax, x, iscale, L);
  qx_sums(n, nmax, x, qw, iscale, &sumlx, &suml2);
  float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;

  /* The fit's weighted error is sum(w x^2) - sumlx^2/suml2: comparing
  ** sumlx^2/suml2 against the best so far picks the smallest error. */
  float best = scale * sumlx;
  for (int step = -9; step <= 9; step++) {
    if (step == 0) continue;
    float try_iscale = -(nmax + 0.1f * step) / max;
    qx_sums(n, nmax, x, qw, try_iscale, &sumlx, &suml2);
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      qx_store_levels(n, nmax, x, try_iscale, L);
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

/* ---- symmetric levels, coordinate descent: make_q3_quants ------------------- */

/* Levels for x under the scale that maps the largest magnitude to -nmax,
** then up to five passes that move single levels to where the x^2 weighted
** least-squares fit of the others puts them, keeping a move only if it
** improves the fit (ggml's do_rmse, the way q3_K calls it).  Levels are
** stored offset by nmax. */
float sq_ggml_make_q3_quants(int n, int nmax, const float *x, int8_t *L) {
  float amax;
  float max = signed_abs_max(n, x, &amax);
  if (amax < SQ_GGML_GROUP_EPS) {
    memset(L, 0, (size_t)n);
    return 0.f;
  }
  float iscale = -nmax / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; i++) {
    int l = qx_level(iscale, x[i], nmax);
    L[i] = (int8_t)l;
    float w = x[i] * x[i];
    sumlx += w * x[i] * (float)l;
    suml2 += w * (float)l * (float)l;
  }
  for (int pass = 0; pass < 5; pass++) {
    int moved = 0;
    for (int i = 0; i < n; i++) {
      float w = x[i] * x[i];
      float li = (float)L[i];
      /* The sums without element i. */
      float slx = sumlx - w * x[i] * li;
      if (!(slx > 0)) continue;
      float sl2 = suml2 - w * li * li;
      int nl = sq_ggml_clamp_int(sq_ggml_nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
      if (nl == L[i]) continue;
      slx += w * x[i] * (float)nl;
      sl2 += w * (float)nl * (float)nl;
      /* Better fit: slx^2/sl2 > sumlx^2/suml2, cross-multiplied. */
      if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
        L[i] = (int8_t)nl;
        sumlx = slx;
        suml2 = sl2;
        moved++;
      }
    }
    if (!moved) break;
  }
  for (int i = 0; i < n; i++) L[i] = (int8_t)(L[i] + nmax);
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/* ---- affine levels: make_qkx2_quants and make_qkx3_quants ------------------- */

/* Weighted error of x against scale*L + min: sum of w*|diff| (use_mad) or
** w*diff^2, diff = (scale*L + min) - x. */
static float affine_error(int n, const float *x, const float *weights,
                          const uint8_t *L, float scale, float min,
                          int use_mad) {
  float err = 0;
  for (int i = 0; i < n; i++) {
    float diff = scale * (float)L[i] + min - x[i];
    diff = use_mad ? fabsf(diff) : diff * diff;
    float w = weights ? weights[i] : x[i] * x[i];
    err += w * diff;
  }
  return err;
}

/* Levels 0..nmax for x - min under inverse scale iscale. */
static inline int affine_level(float iscale, float xi, float min, int nmax) {
  return sq_ggml_clamp_int(sq_ggml_nearest_int(iscale * (xi - min)), 0, nmax);
}

/* The search both variants share: levels 0..nmax for x ~ scale*L + min with
** min <= 0.  Start from the range [min(x, 0), max(x)] mapped onto the
** levels; then for nstep + 1 inverse scales (rmin + rdelta*k + nmax)/range
** fit scale and min to the levels by weighted least squares (min clamped to
** 0, refitting the scale alone) and keep the one of smallest weighted error.
** weights NULL means x^2.  flat_if_le: treat max <= min as flat (qkx3) or
** only max == min (qkx2); they differ only for NaN input. */
static float affine_search(int n, int nmax, const float *x,
                           const float *weights, uint8_t *L, float *the_min,
                           uint8_t *Laux, float rmin, float rdelta, int nstep,
                           int use_mad, int flat_if_le) {
  float min = x[0], max = x[0];
  float sum_w = weights ? weights[0] : x[0] * x[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; i++) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    float w = weights ? weights[i] : x[i] * x[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (flat_if_le ? max <= min : max == min) {
    memset(L, 0, (size_t)n);
    *the_min = -min;
    return 0.f;
  }

  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  for (int i = 0; i < n; i++) L[i] = (uint8_t)affine_level(iscale, x[i], min, nmax);
  float best_error = affine_error(n, x, weights, L, scale, min, use_mad);
  for (int step = 0; step <= nstep; step++) {
    float try_iscale = (rmin + rdelta * (float)step + nmax) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; i++) {
      int l = affine_level(try_iscale, x[i], min, nmax);
      Laux[i] = (uint8_t)l;
      float fl = (float)l;
      float w = weights ? weights[i] : x[i] * x[i];
      sum_l += w * fl;
      sum_l2 += w * fl * fl;
      sum_xl += w * fl * x[i];
    }
    /* Normal equations of the 2x2 weighted fit; D is their determinant. */
    float D = sum_w * sum_l2 - sum_l * sum_l;
    if (!(D > 0)) continue;
    float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
    float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
    if (this_min > 0) {
      this_min = 0;
      this_scale = sum_xl / sum_l2;
    }
    float err = affine_error(n, x, weights, Laux, this_scale, this_min, use_mad);
    if (err < best_error) {
      memcpy(L, Laux, (size_t)n);
      best_error = err;
      scale = this_scale;
      min = this_min;
    }
  }
  *the_min = -min;
  return scale;
}

/* weights must not be NULL. */
float sq_ggml_make_qkx2_quants(int n, int nmax, const float *x,
                               const float *weights, uint8_t *L,
                               float *the_min, uint8_t *Laux, float rmin,
                               float rdelta, int nstep, int use_mad) {
  return affine_search(n, nmax, x, weights, L, the_min, Laux, rmin, rdelta,
                       nstep, use_mad, 0);
}

/* weights NULL means x^2. */
float sq_ggml_make_qkx3_quants(int n, int nmax, const float *x,
                               const float *weights, uint8_t *L,
                               float *the_min, uint8_t *Laux, float rmin,
                               float rdelta, int nstep, int use_mad) {
  return affine_search(n, nmax, x, weights, L, the_min, Laux, rmin, rdelta,
                       nstep, use_mad, 1);
}

/* ---- non-negative levels: make_qp_quants ------------------------------------ */

/* Scale for n values >= 0 (a super-block's sub-scales or sub-mins) on levels
** 0..nmax: of nine starting scales (nmax + 0.1*k for k in -4..4) keep the
** one of smallest weighted squared error, then up to five passes of single
** level moves as in make_q3_quants, and return the least-squares scale.
** A level that comes out negative is stored modulo 256, as ggml's uint8_t
** array stores it, while the sums use the int. */
float sq_ggml_make_qp_quants(int n, int nmax, const float *x, uint8_t *L,
                             const float *quant_weights) {
  const float *w = quant_weights;
  float max = 0;
  for (int i = 0; i < n; i++) max = max > x[i] ? max : x[i];
  if (max < SQ_GGML_GROUP_EPS) {
    memset(L, 0, (size_t)n);
    return 0.f;
  }

  float iscale = nmax / max;
  for (int i = 0; i < n; i++) L[i] = (uint8_t)sq_ggml_nearest_int(iscale * x[i]);
  float scale = 1 / iscale;
  float best_mse = 0;
  for (int i = 0; i < n; i++) {
    float diff = x[i] - scale * (float)L[i];
    best_mse += w[i] * diff * diff;
  }
  for (int step = -4; step <= 4; step++) {
    if (step == 0) continue;
    float try_iscale = (0.1f * (float)step + nmax) / max;
    float try_scale = 1 / try_iscale;
    float mse = 0;
    for (int i = 0; i < n; i++) {
      int l = sq_ggml_nearest_int(try_iscale * x[i]);
      if (l > nmax) l = nmax;
      float diff = x[i] - try_scale * (float)l;
      mse += w[i] * diff * diff;
    }
    if (mse < best_mse) {
      best_mse = mse;
      iscale = try_iscale;
    }
  }

  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; i++) {
    int l = sq_ggml_nearest_int(iscale * x[i]);
    if (l > nmax) l = nmax;
    L[i] = (uint8_t)l;
    sumlx += w[i] * x[i] * (float)l;
    suml2 += w[i] * (float)l * (float)l;
  }
  for (int pass = 0; pass < 5; pass++) {
    int moved = 0;
    for (int i = 0; i < n; i++) {
      float li = (float)L[i];
      float slx = sumlx - w[i] * x[i] * li;
      float sl2 = suml2 - w[i] * li * li;
      if (!(slx > 0 && sl2 > 0)) continue;
      int nl = sq_ggml_nearest_int(x[i] * sl2 / slx);
      if (nl > nmax) nl = nmax;
      if (nl == L[i]) continue;
      slx += w[i] * x[i] * (float)nl;
      sl2 += w[i] * (float)nl * (float)nl;
      if (slx * slx * suml2 > sumlx * sumlx * sl2) {
        L[i] = (uint8_t)nl;
        sumlx = slx;
        suml2 = sl2;
        moved++;
      }
    }
    if (!moved) break;
  }
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}
