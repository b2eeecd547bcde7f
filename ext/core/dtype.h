/*
** dtype.h: element formats (docs/NUMERICS.md#codes and
** docs/NUMERICS.md#half-formats).
*/
#ifndef SQ_DTYPE_H
#define SQ_DTYPE_H

#include <stdint.h>
#include "core/catalogue.h"
#include "core/status.h"
#include "kernels/kernels.h"

/* Integer codes, float formats, and float8 codes (the codes of one byte
** that quantize*_blob writes by conversion: docs/NUMERICS.md#float8-codes). */
typedef enum sq_format_kind { SQ_FMT_CODE, SQ_FMT_FLOAT, SQ_FMT_FLOAT8 } sq_format_kind;

typedef struct sq_dtype {
  const char *name;         /* canonical name: int8, uint4, f32, ... */
  const char *alias;        /* PyTorch name, or NULL */
  sq_format_kind kind;
  int bits;                 /* 2, 4, 8, 16, 32 or 64 */
  int is_signed;
  int64_t qmin, qmax;       /* code range (codes only) */
  sq_code_type code;        /* storage the kernels write (2, 4-bit: I8/U8) */
  int input_only;           /* a float format only q_f32 reads (f64) */
  sq_f8_format_id f8;       /* float8 codes: the format; else SQ_F8_NONE */
} sq_dtype;

extern const sq_dtype sq_dtype_int8, sq_dtype_f32;

/* Which names an argument accepts: integer codes; float formats (but
** input-only ones), then integer codes; float formats; the codes that
** quantize*_blob, dequantize*_blob and q_fake_quantize* take (integer and
** float8). */
enum { SQ_DTYPES_CODES = 0, SQ_DTYPES_ANY = 1, SQ_DTYPES_FLOATS = 2,
       SQ_DTYPES_QUANT = 3 };

/* Looks a dtype up by name, ignoring ASCII case, among the family's names
** (codes; the float formats but the input-only ones, then codes; every
** float format).  An unknown name is an error that lists the family, in
** that order. */
const sq_dtype *sq_dtype_find(const char *name, int family, sq_status *st);
/* Bytes of n elements (4-bit: ceil(n/2), 2-bit: ceil(n/4)).  n comes from a checked shape or
** blob, so this cannot overflow (docs/NUMERICS.md#shapes). */
uint64_t sq_dtype_bytes(const sq_dtype *dt, uint64_t n);
/* Bytes of one element as the kernels write it unpacked (2, 4-bit: 1). */
size_t sq_dtype_code_size(const sq_dtype *dt);

/* SQLite subtypes (docs/reference/data-formats.md#subtypes): the element
** type a BLOB carries when the extension made it or read it from a model
** file.  0 is a BLOB of unknown type (a user's, or one stored in a table:
** subtypes never reach storage); JSON's is 74 ('J').  Ours are 0xB0-0xFA
** (sqlite-html's 0xDD and sqlite-vec's 0xDF-0xE1 left alone):
** the float formats; the codes the extension writes; a model file's
** integers, which codes of any dtype may read (a file's integer type is a
** container: GGUF has no unsigned or 4-bit types and stores uint8 and
** packed int4 codes as I8);
** a model file's other dtypes (uint32, int64, bool, f8, big-endian forms);
** ggml's blocks, of any type; float8 codes (a model file's float8 data
** keeps the model-file subtype); 2-bit codes; bnb4 codes and absmax; each
** ggml type's blocks.  SQLite keeps 8 bits of a subtype. */
#define SQ_SUBTYPE_ENUM(NAME, value, dtype, file, what) SQ_SUBTYPE_##NAME = value,
#define SQ_SUBTYPE_OTHER_ENUM(NAME, value) SQ_SUBTYPE_##NAME = value,
typedef enum sq_subtype {
  SQ_SUBTYPE_NONE = 0,
  SQ_CATALOGUE_SUBTYPES(SQ_SUBTYPE_ENUM)
  SQ_CATALOGUE_OTHER_SUBTYPES(SQ_SUBTYPE_OTHER_ENUM)
} sq_subtype;
#undef SQ_SUBTYPE_ENUM
#undef SQ_SUBTYPE_OTHER_ENUM

/* Each ggml type's blocks have their own subtype, and so have each bnb4
** type's codes and the absmax of each bnb4 block size (float32 data that
** names its block size).  SQ_SUBTYPE_GGML, ggml blocks of any type, is what
** q_ggml_quantize set before; it is still read as blocks of any type. */
unsigned sq_ggml_subtype(sq_ggml_type t);
/* The ggml type whose blocks a subtype names, or -1 (SQ_SUBTYPE_GGML too). */
int sq_subtype_ggml_type(unsigned subtype);
/* bnb4: t is an sq_bnb4_type (kernels/bnb4.h); block one of its sizes. */
unsigned sq_bnb4_codes_subtype(int t);
/* The sq_bnb4_type whose codes a subtype names, or -1. */
int sq_subtype_bnb4_type(unsigned subtype);
unsigned sq_bnb4_absmax_subtype(size_t block);
/* The block size an absmax subtype names, or 0. */
size_t sq_subtype_bnb4_block(unsigned subtype);

/* The subtype of the extension's results of a dtype of the table above. */
unsigned sq_dtype_subtype(const sq_dtype *dt);
/* The subtype of a model file's data of that dtype (integers: the file
** ones). */
unsigned sq_dtype_file_subtype(const sq_dtype *dt);
/* The dtype a subtype names, or NULL (0, ggml, bnb4 codes, stored,
** another extension's); a bnb4 absmax is f32 data. */
const sq_dtype *sq_subtype_dtype(unsigned subtype);
/* Whether a subtype is one of this extension's. */
int sq_subtype_known(unsigned subtype);
/* Whether data of subtype `sub` may be read as data of subtype `expected`:
** the same, or not ours, or a model file's integers read as codes, or
** SQ_SUBTYPE_GGML read as any ggml type's blocks, or a bnb4 absmax read as
** f32 data. */
int sq_subtype_fits(unsigned sub, unsigned expected);
/* What a subtype's data is, for messages: "bf16 data", "int4 codes",
** "int8 data from a model file", "q4_K blocks", "nf4 codes", ... */
const char *sq_subtype_what(unsigned subtype);
/* The dtype of the table whose canonical name is name[0..len) exactly, or
** NULL. */
const sq_dtype *sq_dtype_named(const char *name, size_t len);

#endif
