/*
** log2_compare.c: q_compare's log2 candidates (docs/NUMERICS.md#scheme-costs
** and docs/NUMERICS.md#logarithmic-log2).
**
** Rules:
**   1. a candidate's groups are its granularity's (sq_scheme_granularity);
**      each group's range is the shared observed min and max when given,
**      else the method's range (searched as for the symmetric scheme), and
**      its exponent is sq_log2_emax of that range;
**   2. the round trip is sq_log2_fake_quantize into scratch, then the
**      kernels' error sums against x;
**   3. cost: n codes of the dtype's bits and a float32 scale per group, no
**      zero point: bits_per_weight = (n * bits + 32 * groups) / n, bytes =
**      ceil(n * bits / 8) + 4 * groups.
*/
#include "core/calibrate.h"
#include "core/compare.h"
#include "core/log2.h"

int sq_log2_scheme_eval(const sq_kernels *k, const sq_tensor *x,
                        const sq_shape *shape, const sq_scheme *s,
                        const sq_options *o, const float *minmax, void *scratch,
                        sq_scheme_result *res, sq_status *st) {
  sq_range r;
  sq_options so = *o;
  sq_granularity g;
  so.method = s->method;
  if (sq_log2_dtype_check(s->dtype, st) ||
      sq_range_resolve(s->dtype, &so, &r, st) ||
      sq_scheme_granularity(shape, x->n, s, &g, st))
    return st->code;
  size_t groups = g.groups;
  float *mm = NULL;
  int32_t *emax = NULL;
  const float *ranges = minmax;
  if (!(emax = sq_alloc(st, groups, sizeof *emax))) goto done;
  if (!ranges) {
    if (!(mm = sq_alloc(st, groups, 2 * sizeof *mm)) ||
        sq_ranges(k, x, &g, &r, 1, &so, mm, mm + groups, st))
      goto done;
    ranges = mm;
  }
  for (size_t i = 0; i < groups; i++)
    emax[i] = sq_log2_emax(ranges[i], ranges[groups + i]);
  if (sq_log2_fake_quantize(k, x, &g, s->dtype, emax, scratch, st)) goto done;
  k->error_sums(x->data, scratch, x->n, &res->sums);
  int bits = s->dtype->bits;
  double n = (double)x->n;
  res->groups = groups;
  res->bits_per_weight = (n * bits + (double)groups * 32) / n;
  res->bytes = ((uint64_t)x->n * (uint64_t)bits + 7) / 8 + (uint64_t)groups * 4;
done:
  sqlite3_free(emax);
  sqlite3_free(mm);
  return st->code;
}
