/*
** tensor.h: float tensors, their JSON text form, and shapes
** (docs/NUMERICS.md#float-tensors and docs/NUMERICS.md#shapes).
*/
#ifndef SQ_TENSOR_H
#define SQ_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "kernels/kernels.h"

/* A float32 tensor: n little-endian floats at data (any alignment). */
typedef struct sq_tensor {
  const void *data;
  size_t n;
  void *owned;              /* sqlite3_free'd by sq_tensor_free */
} sq_tensor;

void sq_tensor_free(sq_tensor *t);

/* min/max of n floats at x; NaN or inf is an error naming the element
** (index_base + its index). */
int sq_tensor_minmax(const sq_kernels *k, const void *x, size_t n,
                     size_t index_base, float *mn, float *mx, sq_status *st);
/* The error for the non-finite float at x, element `index`. */
int sq_fail_nonfinite(const void *x, size_t index, sq_status *st);

/* JSON arrays of numbers, flattened.  out receives sqlite3_malloc'd
** little-endian float32; *n the count.  argname names the argument in
** messages. */
int sq_json_parse_floats(const char *text, size_t len, const char *argname,
                         void **out, size_t *n, sq_status *st);
/* The same for integers that fit int32 (little-endian int32 out). */
int sq_json_parse_ints(const char *text, size_t len, const char *argname,
                       void **out, size_t *n, sq_status *st);
/* Writes the shortest decimal that reads back as the same float32 into buf
** (at least 32 bytes); returns its length. */
int sq_format_f32(float f, char *buf);
/* The same for a float64 (buf at least 40 bytes). */
int sq_format_f64(double d, char *buf);

/* Stored bytes in a model file's dtype as float32 (core/stored_convert.c,
** docs/FORMATS.md#converting-to-float32): dtype[0..len) is any name the
** readers give (f32 f16 bf16 f64, the integers, bool, f8_e4m3fn f8_e5m2, the
** big-endian "...be" forms, ggml's block types); nbytes must be whole
** elements (blocks).  sq_stored_dtype_known says whether a name is one;
** sq_stored_dtype_element whether it is one of the element dtypes (not a
** ggml block type, not a "...be" form), exactly as spelled; and
** sq_stored_dtype_names adds the element dtypes' names to a message's list
** (core/text.h), in the catalogue's order. */
int sq_stored_dtype_known(const char *dtype, size_t len);
int sq_stored_dtype_element(const char *dtype);
struct sq_names;
void sq_stored_dtype_names(struct sq_names *l);
int sq_f32_from_stored(const sq_kernels *k, const char *dtype, size_t len,
                       const unsigned char *src, uint64_t nbytes,
                       const char *argname, sq_tensor *t, sq_status *st);
/* The subtype (core/dtype.h) of a model file's bytes stored as
** dtype[0..len): its dtype's own, a ggml block type's own (sq_ggml_subtype),
** SQ_SUBTYPE_STORED for the rest. */
unsigned sq_stored_dtype_subtype(const char *dtype, size_t len);
/* Whether a raw float32 BLOB's n bytes look like float64 data. */
int sq_f32_looks_like_f64(const void *data, size_t n);
/* Whether each of count little-endian float64 at data is a float32 value
** exactly (NaN and infinities included); else *bad is the first that is
** not. */
int sq_f64_fits_f32(const void *data, size_t count, size_t *bad);

#define SQ_MAX_DIMS 32
typedef struct sq_shape {
  int ndim;
  int64_t dim[SQ_MAX_DIMS];
  uint64_t count;           /* product of dims */
} sq_shape;

/* A shape's text, read by its length: a JSON array of positive integers
** whose product is at most 2 * st->max_bytes; flags 0 or: */
enum {
  SQ_SHAPE_ZERO_DIMS = 1  /* dims may be 0: an empty array, count 0 (the
                          ** file writers; quantization needs elements) */
};
int sq_shape_parse(const char *text, size_t len, unsigned flags, sq_shape *s,
                   sq_status *st);
/* "shape holds N elements but x has M" unless the counts agree. */
int sq_shape_check_count(const sq_shape *s, size_t n, sq_status *st);

#endif
