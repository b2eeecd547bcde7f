/*
** qparams.h: scales and zero points (docs/NUMERICS.md#choosing-parameters
** and docs/NUMERICS.md#argument-checks).
*/
#ifndef SQ_QPARAMS_H
#define SQ_QPARAMS_H

#include "core/options.h"
#include "kernels/kernels.h"

/* Scale and zero point from a float range, under the range's include_zero
** and params_double (see qparams.c's rules). */
int sq_choose_qparams(float mn, float mx, const sq_range *r, int symmetric,
                      float *scale, int32_t *zp, sq_status *st);

/* Checks on a user-given scale and zero point.  unit and index name the
** group in messages ("channel", 3); unit is NULL for a per-tensor one. */
int sq_check_scale(double scale, const char *unit, int64_t index, float *out,
                   sq_status *st);
int sq_check_zero_point(int64_t zp, const sq_range *r, const char *unit,
                        int64_t index, sq_status *st);
/* The kernels' parameters for one checked scale and zero point; rounding is
** SQ_ROUNDING_* (o->rounding, not o->divide: tutorial also sets add). */
void sq_qparams_make(float scale, int32_t zp, const sq_range *r, int rounding,
                     sq_qparams *p);

/* Checked parameters of every group, in both layouts the kernels take:
** arrays for the interleaved kernels, one struct per group for runs. */
typedef struct sq_param_set {
  sq_channel_params p;
  sq_qparams *each;
  void *mem;
} sq_param_set;

/* scales: little-endian float32, zps: little-endian int32, `groups` each;
** unit names a group in messages ("channel", "block"). */
int sq_param_set_make(const void *scales, const void *zps, size_t groups,
                      const char *unit, const sq_range *r, int rounding,
                      sq_param_set *ps, sq_status *st);
/* Parameters chosen for `groups` ranges (mn[g], mx[g]). */
int sq_param_set_choose(const float *mn, const float *mx, size_t groups,
                        const sq_range *r, int symmetric, int rounding,
                        sq_param_set *ps, sq_status *st);
void sq_param_set_free(sq_param_set *ps);

/* One group's checked parameters held in place, without allocating (per
** tensor calls, calibration's trial round trips).  set points into the
** struct itself: make it where it is used and do not copy it. */
typedef struct sq_param_one {
  sq_param_set set;
  sq_qparams q;
  float scale, inv, lo, hi, add;
  int32_t zp;
} sq_param_one;
void sq_param_one_make(float scale, int32_t zp, const sq_range *r, int rounding,
                       sq_param_one *one);

/* sq_choose_qparams then sq_qparams_make for count ranges [mn[i], mx[i]]
** (the same results, one call: the compiler overlaps their divisions); stops
** at the first range that fails. */
int sq_choose_qparams_many(const float *mn, const float *mx, size_t count,
                           const sq_range *r, int symmetric, int rounding,
                           sq_qparams *out, sq_status *st);

#endif
