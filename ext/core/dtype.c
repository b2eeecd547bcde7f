/*
** dtype.c: the element formats (docs/NUMERICS.md#codes and
** docs/NUMERICS.md#half-formats).
**
**   1. code dtypes: int8 (qint8), uint8 (quint8), int16, uint16, int32
**      (qint32), int4, uint4 (quint4x2); 4-bit codes are packed two per byte,
**      element 2i in the low nibble;
**   2. float formats: f32, f16, bf16 (and f64 as an input to q_f32);
**   3. names are case-insensitive; an unknown name is an error listing the
**      valid ones for the argument;
**   4. the table is ext/catalogue.toml's (core/catalogue.h); the lists in
**      messages are made from it.
*/
#include <string.h>
#include "core/catalogue.h"
#include "core/dtype.h"
#include "core/text.h"

/* The catalogue's dtypes that SQL arguments take (core/catalogue.h), in its
** order: the float formats, then the codes. */
#define SQ_DTYPE_ROW(name, alias, kind, bits, sgn, lo, hi, code, input_only)  \
  {name, alias, kind, bits, sgn, lo, hi, code, input_only},
static const sq_dtype sq_dtypes[] = {SQ_CATALOGUE_DTYPES(SQ_DTYPE_ROW)};
#undef SQ_DTYPE_ROW
#define SQ_NDTYPES (sizeof sq_dtypes / sizeof sq_dtypes[0])

const sq_dtype sq_dtype_int8 = {"int8", "qint8", SQ_FMT_CODE, 8, 1, -128, 127,
                                SQ_CODE_I8, 0};
const sq_dtype sq_dtype_f32 = {"f32", NULL, SQ_FMT_FLOAT, 32, 1, 0, 0,
                               SQ_CODE_I8, 0};

static int sq_name_eq(const char *a, const char *b) {
  return b && sq_word_is(a, strlen(a), b);
}

static int sq_in_family(const sq_dtype *d, int family) {
  return family == SQ_DTYPES_CODES ? d->kind == SQ_FMT_CODE
         : family == SQ_DTYPES_ANY ? !d->input_only
                                   : d->kind == SQ_FMT_FLOAT;
}

const sq_dtype *sq_dtype_find(const char *name, int family, sq_status *st) {
  for (size_t i = 0; i < SQ_NDTYPES; i++) {
    const sq_dtype *d = &sq_dtypes[i];
    if (sq_in_family(d, family) &&
        (sq_name_eq(name, d->name) || sq_name_eq(name, d->alias)))
      return d;
  }
  sq_names valid;
  sq_names_begin(&valid);
  for (size_t i = 0; i < SQ_NDTYPES; i++)
    if (sq_in_family(&sq_dtypes[i], family))
      sq_names_add(&valid, sq_dtypes[i].name);
  sq_fail(st, "unknown dtype '%.40s' (expected one of %s)", name,
          sq_names_join(&valid, ", ", ", "));
  return NULL;
}

uint64_t sq_dtype_bytes(const sq_dtype *dt, uint64_t n) {
  if (dt->bits == 4) return n / 2 + (n & 1);
  return n * (uint64_t)(dt->bits / 8);
}

size_t sq_dtype_code_size(const sq_dtype *dt) {
  return dt->bits == 4 ? 1 : (size_t)dt->bits / 8;
}
