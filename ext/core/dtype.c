/*
** dtype.c: the element formats (docs/NUMERICS.md#codes and
** docs/NUMERICS.md#half-formats).
**
**   1. code dtypes: int8 (qint8), uint8 (quint8), int16, uint16, int32
**      (qint32), int4, uint4 (quint4x2); 4-bit codes are packed two per byte,
**      element 2i in the low nibble;
**   2. float formats: f32, f16, bf16 (and f64 as an input to q_f32);
**   3. names are case-insensitive; an unknown name is an error listing the
**      valid ones for the argument.
*/
#include <string.h>
#include "core/dtype.h"
#include "core/text.h"

#define CODE(name, alias, bits, sgn, lo, hi, code) \
  {name, alias, SQ_FMT_CODE, bits, sgn, lo, hi, code}
#define FLOAT(name, bits) {name, NULL, SQ_FMT_FLOAT, bits, 1, 0, 0, SQ_CODE_I8}

static const sq_dtype sq_dtypes[] = {
  CODE("int8", "qint8", 8, 1, -128, 127, SQ_CODE_I8),
  CODE("uint8", "quint8", 8, 0, 0, 255, SQ_CODE_U8),
  CODE("int16", NULL, 16, 1, -32768, 32767, SQ_CODE_I16),
  CODE("uint16", NULL, 16, 0, 0, 65535, SQ_CODE_U16),
  CODE("int32", "qint32", 32, 1, INT32_MIN, INT32_MAX, SQ_CODE_I32),
  CODE("int4", NULL, 4, 1, -8, 7, SQ_CODE_I8),
  CODE("uint4", "quint4x2", 4, 0, 0, 15, SQ_CODE_U8),
  FLOAT("f32", 32),
  FLOAT("f16", 16),
  FLOAT("bf16", 16),
  FLOAT("f64", 64),
};
#define SQ_NDTYPES (sizeof sq_dtypes / sizeof sq_dtypes[0])

const sq_dtype sq_dtype_int8 = CODE("int8", "qint8", 8, 1, -128, 127, SQ_CODE_I8);
const sq_dtype sq_dtype_f32 = FLOAT("f32", 32);

static int sq_name_eq(const char *a, const char *b) {
  return b && sq_word_is(a, strlen(a), b);
}

const sq_dtype *sq_dtype_find(const char *name, int family, sq_status *st) {
  for (size_t i = 0; i < SQ_NDTYPES; i++) {
    const sq_dtype *d = &sq_dtypes[i];
    int is_f64 = d->kind == SQ_FMT_FLOAT && d->bits == 64;
    int ok = family == SQ_DTYPES_CODES ? d->kind == SQ_FMT_CODE
             : family == SQ_DTYPES_ANY   ? !is_f64
                                         : d->kind == SQ_FMT_FLOAT;
    if (ok && (sq_name_eq(name, d->name) || sq_name_eq(name, d->alias)))
      return d;
  }
  const char *valid =
      family == SQ_DTYPES_CODES ? "int8, uint8, int16, uint16, int32, int4, uint4"
      : family == SQ_DTYPES_ANY
          ? "f32, f16, bf16, int8, uint8, int16, uint16, int32, int4, uint4"
          : "f32, f16, bf16, f64";
  sq_fail(st, "unknown dtype '%.40s' (expected one of %s)", name, valid);
  return NULL;
}

uint64_t sq_dtype_bytes(const sq_dtype *dt, uint64_t n) {
  if (dt->bits == 4) return n / 2 + (n & 1);
  return n * (uint64_t)(dt->bits / 8);
}

size_t sq_dtype_code_size(const sq_dtype *dt) {
  return dt->bits == 4 ? 1 : (size_t)dt->bits / 8;
}
