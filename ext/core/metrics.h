/*
** metrics.h: how far a tensor b is from a reference a
** (docs/NUMERICS.md#metrics).
*/
#ifndef SQ_METRICS_H
#define SQ_METRICS_H

#include "core/tensor.h"
#include "kernels/kernels.h"

/* Sums of a against b (same length, at least 1, all finite).  Messages name
** the argument: "a has 3 elements but b has 4", "element 2 of b is NaN". */
int sq_error_between(const sq_kernels *k, const sq_tensor *a,
                     const sq_tensor *b, sq_error_sums *e, sq_status *st);
/* SQNR in dB from the sums: +inf for an exact match. */
double sq_sqnr_db(double sum_a2, double sum_d2);
/* Cosine similarity, each norm clamped to eps 1e-8 (torch.ao.ns). */
double sq_cosine(const sq_error_sums *e);

#endif
