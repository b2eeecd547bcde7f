/*
** calibrate.h: the range each group's parameters are chosen from
** (docs/NUMERICS.md#calibration).
*/
#ifndef SQ_CALIBRATE_H
#define SQ_CALIBRATE_H

#include "core/granularity.h"
#include "core/options.h"
#include "kernels/kernels.h"

/* Every group's observed min and max (g->groups entries each); NaN or inf
** is an error naming the first such element; an empty tensor is an error. */
int sq_group_minmax(const sq_kernels *k, const sq_tensor *x,
                    const sq_granularity *g, float *mn, float *mx,
                    sq_status *st);
/* Every group's range by o->method (minmax, percentile, mse). */
int sq_ranges(const sq_kernels *k, const sq_tensor *x, const sq_granularity *g,
              const sq_range *r, int symmetric, const sq_options *o, float *mn,
              float *mx, sq_status *st);

#endif
