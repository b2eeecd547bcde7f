/*
** model_file.h: the tensors and metadata of a model file's bytes
** (docs/FORMATS.md).
**
** Each format has one reader (safetensors.c, gguf.c, npy.c, ...) that turns
** the bytes into an index: per tensor its name, dtype, shape (numpy's
** row-major order) and where its data lies in the bytes; per metadata entry
** its key, type and value as JSON.  Readers never copy tensor data and
** never trust a count or an offset before checking it against the bytes:
** every offset + size is checked to lie inside [0, n) without overflow, and
** every table is sized only after its count was checked against the bytes
** that must hold it.
*/
#ifndef SQ_MODEL_FILE_H
#define SQ_MODEL_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "core/tensor.h"

typedef enum sq_file_format {
  SQ_FILE_SAFETENSORS, SQ_FILE_GGUF, SQ_FILE_NPY, SQ_FILE_NPZ, SQ_FILE_ONNX,
  SQ_FILE_TFLITE, SQ_FILE_NFORMATS
} sq_file_format;

/* Canonical dtype names of tensor data in files (README "Data formats"):
** f32 f16 bf16 f64 int8 uint8 int16 uint16 int32 uint32 int64 uint64 bool
** f8_e4m3 f8_e5m2, and ggml's block types (q4_0 ... q6_K). */
#define SQ_FILE_DTYPE_MAX 16

/* The bytes a reader indexed, and where they came from. */
typedef struct sq_file_view {
  const unsigned char *p;       /* the file's bytes */
  size_t n;
  const char *path;             /* the file variants: its path (for data kept
                                ** beside it, as ONNX external data); NULL
                                ** for a BLOB */
} sq_file_view;

struct sq_file_tensor;
/* Decodes bytes [start, start + len) of a tensor's data (as stored, in its
** dtype, little-endian) into out; start + len <= t->nbytes. */
typedef int (*sq_tensor_decoder)(const sq_file_view *v,
                                 const struct sq_file_tensor *t,
                                 uint64_t start, uint64_t len,
                                 unsigned char *out, sq_status *st);

typedef struct sq_file_tensor {
  char *name;                   /* sqlite3_malloc'd, NUL-terminated */
  char dtype[SQ_FILE_DTYPE_MAX];
  int ndim;                     /* 0 for a scalar */
  int64_t dim[SQ_MAX_DIMS];     /* row-major (numpy) order */
  uint64_t offset, nbytes;      /* the data: bytes[offset, offset + nbytes)
                                ** when decode is NULL; with a decoder,
                                ** nbytes is the decoded size and offset where
                                ** the stored form begins */
  /* Data not stored as plain bytes (ONNX typed fields and external data,
  ** compressed npz members): the reader's decoder and what it needs. */
  sq_tensor_decoder decode;
  uint64_t src_offset, src_nbytes;  /* the stored form in the bytes */
  uint32_t src_kind;                /* the decoder's own tag */
  uint32_t src_crc32;               /* the decoder's check of the decoded
                                    ** form (npz: the member's CRC-32) */
  char *location;               /* sqlite3_malloc'd or NULL: a file beside
                                ** this one (ONNX external data) */
  char *scope;                  /* sqlite3_malloc'd or NULL: where in the
                                ** model the tensor sits (ONNX subgraph,
                                ** TFLite subgraph) */
} sq_file_tensor;

/* The shape of t as JSON text, "[2,3]" ("[]" for a scalar), into buf
** (NUL-terminated); returns its length.  A dimension is written only while
** 25 bytes are left (its comma and up to 20 digits, then ']' and the NUL),
** so a short buf gives the leading dimensions, still closed by ']';
** SQ_FILE_SHAPE_TEXT_MAX bytes always hold the whole shape; cap >= 3. */
#define SQ_FILE_SHAPE_TEXT_MAX (SQ_MAX_DIMS * 21 + 5)
size_t sq_file_shape_text(const sq_file_tensor *t, char *buf,
                          size_t cap);

/* Bytes [start, start + len) of t's data into out (memcpy, or its
** decoder); start + len must be <= t->nbytes. */
int sq_file_tensor_read(const sq_file_view *v, const sq_file_tensor *t,
                        uint64_t start, uint64_t len, unsigned char *out,
                        sq_status *st);

typedef struct sq_file_meta {
  char *key;                    /* sqlite3_malloc'd */
  char type[24];                /* the format's own type name: "string",
                                ** "uint32", "array[float32]", ... */
  char *value;                  /* JSON text, sqlite3_malloc'd */
} sq_file_meta;

typedef struct sq_file_index {
  sq_file_tensor *tensors;
  size_t ntensors, tensors_cap;
  sq_file_meta *meta;
  size_t nmeta, meta_cap;
} sq_file_index;

/* The format whose magic bytes begin p, or -1. */
int sq_file_detect(const unsigned char *p, size_t n);
/* "safetensors", "gguf", "npy", "npz", "onnx", "tflite" (any case). */
int sq_file_format_parse(const char *text, size_t len, sq_file_format *f,
                         sq_status *st);
const char *sq_file_format_name(sq_file_format f);

/* Reads the index of n bytes in format f (want_meta: the metadata too).
** On error the index is freed and st says what is wrong, naming the
** format ("safetensors: header length 4096 is past the end of the 100-byte
** file"). */
int sq_file_read(const unsigned char *p, size_t n, sq_file_format f,
                 int want_meta, sq_file_index *ix, sq_status *st);
void sq_file_index_free(sq_file_index *ix);

/* For the readers: append an entry (name copied from name[0..len)); the
** returned entry is zeroed but for the name. */
sq_file_tensor *sq_file_add_tensor(sq_file_index *ix, const char *name,
                                   size_t len, sq_status *st);
sq_file_meta *sq_file_add_meta(sq_file_index *ix, const char *key, size_t len,
                               sq_status *st);

/* One reader per format (the same contract as sq_file_read). */
int sq_safetensors_read(const unsigned char *p, size_t n, int want_meta,
                        sq_file_index *ix, sq_status *st);
int sq_gguf_read(const unsigned char *p, size_t n, int want_meta,
                 sq_file_index *ix, sq_status *st);
/* A ggml tensor type by its reader name (any case): its id, the reader's
** spelling, block size and bytes per block; 0 when there is none. */
int sq_gguf_type_named(const char *s, size_t len, uint32_t *id,
                       const char **name, uint64_t *block, uint64_t *bytes);
int sq_npy_read(const unsigned char *p, size_t n, int want_meta,
                sq_file_index *ix, sq_status *st);
int sq_npz_read(const unsigned char *p, size_t n, int want_meta,
                sq_file_index *ix, sq_status *st);
int sq_onnx_read(const unsigned char *p, size_t n, int want_meta,
                 sq_file_index *ix, sq_status *st);
int sq_tflite_read(const unsigned char *p, size_t n, int want_meta,
                   sq_file_index *ix, sq_status *st);

#endif
