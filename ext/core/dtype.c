/*
** dtype.c: the element formats (docs/NUMERICS.md#codes and
** docs/NUMERICS.md#half-formats).
**
**   1. code dtypes: int8 (qint8), uint8 (quint8), int16, uint16, int32
**      (qint32), int4, uint4 (quint4x2); 4-bit codes are packed two per byte,
**      element 2i in the low nibble; int2, uint2 four per byte, element
**      4i in the low two bits (ONNX opset 25); float8 codes f8_e4m3fn, f8_e4m3fnuz,
**      f8_e5m2, f8_e5m2fnuz (docs/NUMERICS.md#float8-codes), which only the
**      quantize, dequantize and fake-quantize functions take;
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
#include "kernels/bnb4.h"

/* The catalogue's dtypes that SQL arguments take (core/catalogue.h), in its
** order: the float formats, then the codes. */
#define SQ_DTYPE_ROW(name, alias, kind, bits, sgn, lo, hi, code, input_only,  \
                     f8)                                                      \
  {name, alias, kind, bits, sgn, lo, hi, code, input_only, f8},
static const sq_dtype sq_dtypes[] = {SQ_CATALOGUE_DTYPES(SQ_DTYPE_ROW)};
#undef SQ_DTYPE_ROW
#define SQ_NDTYPES (sizeof sq_dtypes / sizeof sq_dtypes[0])

const sq_dtype sq_dtype_int8 = {"int8", "qint8", SQ_FMT_CODE, 8, 1, -128, 127,
                                SQ_CODE_I8, 0, SQ_F8_NONE};
const sq_dtype sq_dtype_f32 = {"f32", NULL, SQ_FMT_FLOAT, 32, 1, 0, 0,
                               SQ_CODE_I8, 0, SQ_F8_NONE};

/* Each subtype of a dtype (ext/catalogue.toml through core/catalogue.h,
** docs/reference/data-formats.md#subtypes): the extension's results, and a
** model file's integers. */
static const struct {
  const char *dtype;
  unsigned subtype;
  int file;                 /* a model file's integers */
  const char *what;         /* for messages: "<arg> is <what>" */
} sq_subtypes[] = {
#define SQ_SUBTYPE_ROW(NAME, value, dtype, file, what) {dtype, value, file, what},
  SQ_CATALOGUE_SUBTYPES(SQ_SUBTYPE_ROW)
#undef SQ_SUBTYPE_ROW
};
#define SQ_NSUBTYPES (sizeof sq_subtypes / sizeof sq_subtypes[0])

static unsigned sq_subtype_find(const sq_dtype *dt, int file) {
  /* a model file's float8 data stays the file's other dtypes */
  if (file && dt->kind == SQ_FMT_FLOAT8) return SQ_SUBTYPE_STORED;
  for (size_t i = 0; i < SQ_NSUBTYPES; i++)
    if (strcmp(dt->name, sq_subtypes[i].dtype) == 0 &&
        sq_subtypes[i].file == (file && dt->kind == SQ_FMT_CODE))
      return sq_subtypes[i].subtype;
  return SQ_SUBTYPE_STORED;  /* unreachable: every dtype has a row */
}

unsigned sq_dtype_subtype(const sq_dtype *dt) { return sq_subtype_find(dt, 0); }

unsigned sq_dtype_file_subtype(const sq_dtype *dt) {
  return sq_subtype_find(dt, 1);
}

/* Each ggml type's, bnb4 type's and bnb4 block size's subtype (the
** catalogue's, core/catalogue.h). */
static const struct {
  unsigned subtype;
  const char *what;
} sq_ggml_subtypes[SQ_GGML_NTYPES] = {
#define SQ_GGML_SUBTYPE_ROW(TYPE, value, what) [SQ_GGML_##TYPE] = {value, what},
  SQ_CATALOGUE_GGML_SUBTYPES(SQ_GGML_SUBTYPE_ROW)
#undef SQ_GGML_SUBTYPE_ROW
}, sq_bnb4_subtypes[2] = {
#define SQ_BNB4_SUBTYPE_ROW(TYPE, value, what) [SQ_BNB4_##TYPE] = {value, what},
  SQ_CATALOGUE_BNB4_SUBTYPES(SQ_BNB4_SUBTYPE_ROW)
#undef SQ_BNB4_SUBTYPE_ROW
};
static const struct {
  size_t block;
  unsigned subtype;
} sq_absmax_subtypes[] = {
#define SQ_ABSMAX_SUBTYPE_ROW(block, value) {block, value},
  SQ_CATALOGUE_BNB4_ABSMAX_SUBTYPES(SQ_ABSMAX_SUBTYPE_ROW)
#undef SQ_ABSMAX_SUBTYPE_ROW
};
#define SQ_NABSMAX (sizeof sq_absmax_subtypes / sizeof sq_absmax_subtypes[0])

unsigned sq_ggml_subtype(sq_ggml_type t) { return sq_ggml_subtypes[t].subtype; }

int sq_subtype_ggml_type(unsigned subtype) {
  for (int t = 0; t < SQ_GGML_NTYPES; t++)
    if (sq_ggml_subtypes[t].subtype == subtype) return t;
  return -1;
}

unsigned sq_bnb4_codes_subtype(int t) { return sq_bnb4_subtypes[t].subtype; }

int sq_subtype_bnb4_type(unsigned subtype) {
  for (int t = 0; t < 2; t++)
    if (sq_bnb4_subtypes[t].subtype == subtype) return t;
  return -1;
}

unsigned sq_bnb4_absmax_subtype(size_t block) {
  for (size_t i = 0; i < SQ_NABSMAX; i++)
    if (sq_absmax_subtypes[i].block == block) return sq_absmax_subtypes[i].subtype;
  return SQ_SUBTYPE_F32;     /* unreachable: block is one of the sizes */
}

size_t sq_subtype_bnb4_block(unsigned subtype) {
  for (size_t i = 0; i < SQ_NABSMAX; i++)
    if (sq_absmax_subtypes[i].subtype == subtype) return sq_absmax_subtypes[i].block;
  return 0;
}

static int sq_subtype_row(unsigned subtype) {
  for (size_t i = 0; i < SQ_NSUBTYPES; i++)
    if (sq_subtypes[i].subtype == subtype) return (int)i;
  return -1;
}

const sq_dtype *sq_subtype_dtype(unsigned subtype) {
  if (sq_subtype_bnb4_block(subtype)) subtype = SQ_SUBTYPE_F32;
  int row = sq_subtype_row(subtype);
  if (row < 0) return NULL;
  const char *name = sq_subtypes[row].dtype;
  return sq_dtype_named(name, strlen(name));
}

int sq_subtype_known(unsigned subtype) {
  return subtype == SQ_SUBTYPE_GGML || subtype == SQ_SUBTYPE_STORED ||
         sq_subtype_row(subtype) >= 0 || sq_subtype_ggml_type(subtype) >= 0 ||
         sq_subtype_bnb4_type(subtype) >= 0 || sq_subtype_bnb4_block(subtype);
}

int sq_subtype_fits(unsigned sub, unsigned expected) {
  if (sub == expected || !sq_subtype_known(sub)) return 1;
  /* blocks stored before each ggml type had its own subtype */
  if (sub == SQ_SUBTYPE_GGML && sq_subtype_ggml_type(expected) >= 0) return 1;
  const sq_dtype *want8 = sq_subtype_dtype(expected);
  /* a model file's float8 data read as codes of its format */
  if (sub == SQ_SUBTYPE_STORED && want8 && want8->kind == SQ_FMT_FLOAT8)
    return 1;
  int row = sq_subtype_row(sub);
  const sq_dtype *have = sq_subtype_dtype(sub), *want = sq_subtype_dtype(expected);
  if (!have || !want) return 0;
  /* codes and a file's integers of one dtype are the same bytes */
  if (have == want) return 1;
  /* a file's integer type is a container: GGUF stores uint8 codes as I8
  ** and int4 codes, two per byte, as I8 too */
  return row >= 0 && sq_subtypes[row].file && want->kind == SQ_FMT_CODE;
}

const char *sq_subtype_what(unsigned subtype) {
  int row = sq_subtype_row(subtype), t;
  if (row >= 0) return sq_subtypes[row].what;
  if ((t = sq_subtype_ggml_type(subtype)) >= 0) return sq_ggml_subtypes[t].what;
  if ((t = sq_subtype_bnb4_type(subtype)) >= 0) return sq_bnb4_subtypes[t].what;
  if (sq_subtype_bnb4_block(subtype)) return "f32 data (bnb4 absmax)";
  return subtype == SQ_SUBTYPE_GGML ? "ggml blocks"
                                    : "model-file data of another dtype";
}

const sq_dtype *sq_dtype_named(const char *name, size_t len) {
  for (size_t i = 0; i < SQ_NDTYPES; i++)
    if (strlen(sq_dtypes[i].name) == len &&
        memcmp(sq_dtypes[i].name, name, len) == 0)
      return &sq_dtypes[i];
  return NULL;
}

static int sq_name_eq(const char *a, const char *b) {
  return b && sq_word_is(a, strlen(a), b);
}

static int sq_in_family(const sq_dtype *d, int family) {
  return family == SQ_DTYPES_CODES ? d->kind == SQ_FMT_CODE
         : family == SQ_DTYPES_QUANT ? d->kind != SQ_FMT_FLOAT
         : family == SQ_DTYPES_ANY ? d->kind != SQ_FMT_FLOAT8 && !d->input_only
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
  if (dt->bits == 2) return n / 4 + ((n & 3) != 0);
  return n * (uint64_t)(dt->bits / 8);
}

size_t sq_dtype_code_size(const sq_dtype *dt) {
  return dt->bits < 8 ? 1 : (size_t)dt->bits / 8;
}
