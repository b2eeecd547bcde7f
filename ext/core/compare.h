/*
** compare.h: quantization schemes and what each costs and loses, for
** q_compare (docs/NUMERICS.md#scheme-costs).
*/
#ifndef SQ_COMPARE_H
#define SQ_COMPARE_H

#include "core/granularity.h"
#include "core/options.h"
#include "kernels/kernels.h"

/* A scheme is either a code dtype with a granularity, or (ggml != 0) one of
** ggml's block formats, type ggml - 1, whose parameters live in its blocks
** (dtype NULL, granularity SQ_GRAN_BLOCK).  Blocks run along the rows of
** the flattened view sq_scheme_rows (docs/NUMERICS.md#scheme-costs). */
typedef struct sq_scheme {
  const sq_dtype *dtype;
  int ggml;
  int bnb4;                 /* 1 + sq_bnb4_type: bitsandbytes' NF4 or FP4 in
                            ** blocks of `block` over the flat tensor */
  int symmetric;
  sq_granularity_kind granularity;
  int64_t axis;             /* channel axis */
  int64_t block;            /* effective block size along a row */
  int method;               /* SQ_METHOD_* */
  int whole_row;            /* the block is a whole row */
  int mx;                   /* mxfp4's shared-exponent rule, SQ_MX_* (0: ggml's) */
} sq_scheme;

typedef struct sq_scheme_result {
  sq_error_sums sums;
  size_t groups;            /* parameter sets stored */
  double bits_per_weight;
  uint64_t bytes;
} sq_scheme_result;

/* The candidates the options' lists ask for (dtypes x granularities x
** schemes x methods, then the ggml types), in a table sized for exactly
** them.  A list that names
** the same thing twice is an error; block sizes that clip to the same
** effective size give one candidate, and ggml types whose block does not
** divide the row give none (*count may be 0).  Free *out with sqlite3_free. */
int sq_scheme_candidates(const sq_options *o, const sq_shape *shape,
                         int64_t axis, sq_scheme **out, size_t *count,
                         sq_status *st);
/* How a scheme's groups cover a tensor of this shape. */
int sq_scheme_granularity(const sq_shape *shape, size_t n, const sq_scheme *s,
                          sq_granularity *g, sq_status *st);
/* Round trip of x under scheme s, as error sums; scratch holds x->n floats
** for a ggml scheme and is not used (may be NULL) for the others.  minmax, when
** not NULL, holds the groups' observed mins then maxes, computed before
** (they do not depend on the dtype or scheme, so q_compare shares them). */
int sq_scheme_eval(const sq_kernels *k, const sq_tensor *x, const sq_shape *shape,
                   const sq_scheme *s, const sq_options *o, const float *minmax,
                   void *scratch, sq_scheme_result *res, sq_status *st);

#endif
