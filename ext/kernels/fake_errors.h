/*
** fake_errors.h: the squared errors of one small group's round trip under
** many parameter sets at once (docs/NUMERICS.md#calibration: method=mse's
** exact search of groups up to 2048 values).
**
**   1. sum[c] is exactly the sum_d2 that quantize[code], dequantize[code]
**      and error_sums (any path) give for x under q[c]: the same float32
**      steps per element, element i in lane i % SQ_ERROR_LANES, the lanes
**      added in sq_lanes_total's order;
**   2. it handles codes up to 16 bits, every q[c].add == 0 and one divide
**      flag for all, at most SQ_FE_MAX sets; it returns 1 when it filled
**      sum, 0 otherwise (the caller then takes the kernels);
**   3. x holds n finite float32 values (the caller has checked them);
**   4. k is the kernel path in use: its instruction set is used (same bits).
*/
#ifndef SQ_FAKE_ERRORS_H
#define SQ_FAKE_ERRORS_H

#include "kernels/kernels.h"

#define SQ_FE_MAX 80

int sq_fake_sq_errors(const sq_kernels *k, const void *x, size_t n,
                      sq_code_type code, const sq_qparams *q, int count,
                      double *sum);

/* The x86 paths' bodies (fake_errors_x86.h, one per width): sum[0..count)
** for the n floats at px, every q[c].add 0 and one divide flag. */
void sq_fe_avx2(const unsigned char *px, size_t n, const sq_qparams *q,
                int count, double *sum);
void sq_fe_avx512(const unsigned char *px, size_t n, const sq_qparams *q,
                  int count, double *sum);

#endif
