/*
** dtype.h: element formats (docs/NUMERICS.md#codes and
** docs/NUMERICS.md#half-formats).
*/
#ifndef SQ_DTYPE_H
#define SQ_DTYPE_H

#include <stdint.h>
#include "core/status.h"
#include "kernels/kernels.h"

typedef enum sq_format_kind { SQ_FMT_CODE, SQ_FMT_FLOAT } sq_format_kind;

typedef struct sq_dtype {
  const char *name;         /* canonical name: int8, uint4, f32, ... */
  const char *alias;        /* PyTorch name, or NULL */
  sq_format_kind kind;
  int bits;                 /* 4, 8, 16, 32 or 64 */
  int is_signed;
  int64_t qmin, qmax;       /* code range (codes only) */
  sq_code_type code;        /* storage the kernels write (4-bit: I8/U8) */
  int input_only;           /* a float format only q_f32 reads (f64) */
} sq_dtype;

extern const sq_dtype sq_dtype_int8, sq_dtype_f32;

/* Which names an argument accepts. */
enum { SQ_DTYPES_CODES = 0, SQ_DTYPES_ANY = 1, SQ_DTYPES_FLOATS = 2 };

/* Looks a dtype up by name, ignoring ASCII case, among the family's names
** (codes; the float formats but the input-only ones, then codes; every
** float format).  An unknown name is an error that lists the family, in
** that order. */
const sq_dtype *sq_dtype_find(const char *name, int family, sq_status *st);
/* Bytes of n elements (4-bit: ceil(n/2)).  n comes from a checked shape or
** blob, so this cannot overflow (docs/NUMERICS.md#shapes). */
uint64_t sq_dtype_bytes(const sq_dtype *dt, uint64_t n);
/* Bytes of one element as the kernels write it unpacked (4-bit: 1). */
size_t sq_dtype_code_size(const sq_dtype *dt);

#endif
