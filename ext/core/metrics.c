/*
** metrics.c: how far a tensor b (e.g. a round trip) is from a reference a.
** Definitions (torch.ao.ns.fx.utils), accumulated in double:
**   mse       = sum (a-b)^2 / n
**   sqnr_db   = 20*log10(||a|| / ||a-b||) = 10*log10(sum a^2 / sum (a-b)^2),
**               +inf when a == b
**   max_error = max |a-b|
**   cosine    = sum a*b / (max(||a||, eps) * max(||b||, eps)), eps = 1e-8
**               (PyTorch 1.13 cosine_similarity clamps each norm)
** NaN or inf in either tensor is an error naming the element.
*/
#include <math.h>
#include "core/metrics.h"
#include "kernels/byteorder.h"

/* Fails naming the first non-finite element of t, if there is one. */
static int sq_check_finite(const sq_tensor *t, const char *name,
                           sq_status *st) {
  const unsigned char *p = t->data;
  size_t bad = 0;
  while (bad < t->n && (sq_load_u32(p + 4 * bad) & 0x7f800000u) != 0x7f800000u)
    bad++;
  if (bad >= t->n) return SQ_OK;
  float v = sq_load_f32(p + 4 * bad);
  return sq_fail(st, "element %zu of %s is %s", bad, name,
                 v != v ? "NaN" : v > 0 ? "inf" : "-inf");
}

int sq_error_between(const sq_kernels *k, const sq_tensor *a,
                     const sq_tensor *b, sq_error_sums *e, sq_status *st) {
  if (a->n != b->n)
    return sq_fail(st, "a has %zu elements but b has %zu", a->n, b->n);
  if (a->n == 0) return sq_fail(st, "a is an empty tensor");
  k->error_sums(a->data, b->data, a->n, e);
  /* Float inputs cannot overflow these double sums: a non-finite sum means a
  ** non-finite input, found and named by a second look. */
  if (!isfinite(e->sum_a2 + e->sum_b2 + e->sum_d2)) {
    if (sq_check_finite(a, "a", st)) return st->code;
    if (sq_check_finite(b, "b", st)) return st->code;
  }
  return SQ_OK;
}

double sq_sqnr_db(double sum_a2, double sum_d2) {
  if (sum_d2 == 0.0) return HUGE_VAL;
  return 10.0 * log10(sum_a2 / sum_d2);
}

double sq_cosine(const sq_error_sums *e) {
  const double eps = 1e-8;
  double na = sqrt(e->sum_a2), nb = sqrt(e->sum_b2);
  /* One square root of the product when no clamp applies: cos(a, a) is then
  ** exactly 1. */
  if (na > eps && nb > eps) return e->sum_ab / sqrt(e->sum_a2 * e->sum_b2);
  return e->sum_ab / ((na > eps ? na : eps) * (nb > eps ? nb : eps));
}
