/*
** log2.h: logarithmic quantization, sign and power-of-two exponent codes
** (docs/NUMERICS.md#logarithmic-log2).
*/
#ifndef SQ_CORE_LOG2_H
#define SQ_CORE_LOG2_H

#include "core/dtype.h"
#include "core/granularity.h"
#include "core/qparams.h"

/* The value the scheme arguments give for "log2" (0 affine, 1 symmetric). */
#define SQ_SCHEME_LOG2 2

/* int8 or int4: 1 when so; the check is an error naming the dtype. */
int sq_log2_dtype_ok(const sq_dtype *dt);
int sq_log2_dtype_check(const sq_dtype *dt, sq_status *st);
/* A group's exponent from its range: rlog2(max(|lo|, |hi|)) clamped to
** [-126, 127]; 0 for a zero range. */
int32_t sq_log2_emax(float lo, float hi);
/* 2^emax as a float32 (emax in [-126, 127]). */
float sq_log2_scale(int32_t emax);
/* A user-given scale: a finite positive normal float32 power of two; unit
** and index name the group as in sq_check_scale. */
int sq_log2_check_scale(double scale, const char *unit, int64_t index,
                        int32_t *emax, sq_status *st);
/* Every group's exponent from n little-endian float32 scales. */
int sq_log2_check_scales(const void *scales, size_t n, const char *unit,
                         int32_t *emax, sq_status *st);

/* Codes of x (sq_dtype_bytes(dt, n) bytes, int4 packed); NaN is an error
** naming the element.  emax holds one exponent per group of g. */
int sq_log2_quantize(const sq_kernels *k, const sq_tensor *x,
                     const sq_granularity *g, const sq_dtype *dt,
                     const int32_t *emax, void *codes, sq_status *st);
/* Float32 of codes (one per element of g). */
int sq_log2_dequantize(const sq_kernels *k, const void *codes,
                       const sq_granularity *g, const sq_dtype *dt,
                       const int32_t *emax, void *out, sq_status *st);
/* out = dequantize(quantize(x)), bit for bit. */
int sq_log2_fake_quantize(const sq_kernels *k, const sq_tensor *x,
                          const sq_granularity *g, const sq_dtype *dt,
                          const int32_t *emax, void *out, sq_status *st);

/* q_compare's log2 candidates (compare.h; log2_compare.c): the round trip
** of x under scheme s, whose symmetric field is SQ_SCHEME_LOG2, into
** scratch, with its error sums and cost: codes plus a float32 scale per
** group, no zero point (docs/NUMERICS.md#scheme-costs). */
struct sq_scheme;
struct sq_scheme_result;
int sq_log2_scheme_eval(const sq_kernels *k, const sq_tensor *x,
                        const sq_shape *shape, const struct sq_scheme *s,
                        const sq_options *o, const float *minmax, void *scratch,
                        struct sq_scheme_result *res, sq_status *st);

#endif
