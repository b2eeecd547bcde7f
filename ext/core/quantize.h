/*
** quantize.h: quantize, dequantize and fake-quantize under any granularity
** (docs/NUMERICS.md#quantize and docs/NUMERICS.md#dequantize).
*/
#ifndef SQ_QUANTIZE_H
#define SQ_QUANTIZE_H

#include "core/granularity.h"
#include "core/qparams.h"

/* Codes of x (sq_dtype_bytes(r->dtype, n) bytes, 4-bit and 2-bit packed);
** NaN is an error naming the element, but for float8 codes (a NaN code). */
int sq_quantize(const sq_kernels *k, const sq_tensor *x, const sq_granularity *g,
                const sq_range *r, const sq_param_set *ps, void *codes,
                sq_status *st);
/* Float32 of the codes of dtype dt (one per element of g). */
int sq_dequantize(const sq_kernels *k, const void *codes, const sq_granularity *g,
                  const sq_dtype *dt, const sq_param_set *ps, void *out,
                  sq_status *st);
/* out = dequantize(quantize(x)), bit for bit, in one pass over x. */
int sq_fake_quantize(const sq_kernels *k, const sq_tensor *x,
                     const sq_granularity *g, const sq_range *r,
                     const sq_param_set *ps, void *out, sq_status *st);
/* The error sums of x against sq_fake_quantize's output, without that
** output: each piece (at most SQ_CHUNK elements, or one interleaved row) is
** fake-quantized into a temporary that stays in cache and added to acc from
** its own lane (kernels' error_lanes), so acc totals exactly what
** error_sums over the whole round trip gives. acc starts at zeros. */
int sq_fake_quantize_errors(const sq_kernels *k, const sq_tensor *x,
                            const sq_granularity *g, const sq_range *r,
                            const sq_param_set *ps, sq_error_lanes *acc,
                            sq_status *st);
/* Per group: the sum of x^2 and of (x - y)^2, in double, accumulated in
** element order within each run. */
int sq_group_errors(const sq_tensor *x, const void *y, const sq_granularity *g,
                    double *sum_x2, double *sum_d2, sq_status *st);

/* 4-bit codes, one per byte, packed into (or unpacked from) storage from
** element `first` on, which may start mid-byte: what a walk over pieces
** needs (core/log2.c uses them too). */
void sq_pack4_at(const sq_kernels *k, const unsigned char *codes, size_t n,
                 size_t first, unsigned char *packed);
void sq_unpack4_at(const sq_kernels *k, const unsigned char *packed,
                   size_t first, size_t n, int is_signed, unsigned char *codes);
/* The same for 2-bit codes, four per byte (element 4i in the low bits);
** unpack sign-extends when is_signed. */
void sq_pack2_at(const unsigned char *codes, size_t n, size_t first,
                 unsigned char *packed);
void sq_unpack2_at(const unsigned char *packed, size_t first, size_t n,
                   int is_signed, unsigned char *codes);

#endif
