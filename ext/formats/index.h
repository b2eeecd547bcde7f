/*
** index.h: the tensors and metadata of a model file's bytes
** (docs/FORMATS.md).
**
** Each format has one reader (safetensors_read.c, gguf_read.c, ...; the
** table of formats.h) that turns the bytes of a source (formats/source.h:
** memory or an open file) into an index: per tensor its name, dtype, shape (numpy's row-major order) and
** where its data lies in the bytes; per metadata entry its key, type and
** value as JSON.  The rules every reader keeps:
**
**   1. readers never copy tensor data and never trust a count or an offset
**      before checking it against the bytes: every offset + size is checked
**      to lie inside [0, n) without overflow, and every table is sized only
**      after its count was checked against the bytes that must hold it;
**   2. readers take structure bytes with sq_source_span (or a window), never
**      a tensor's data: indexing a file reads its headers, not its tensors;
**   3. the index's own memory (names, keys, metadata values, scope labels,
**      locations and the readers' scratch) is allocated here
**      (sq_file_alloc and the helpers below) and refused past the budget of
**      docs/FORMATS.md#memory: SQ_FILE_BUDGET_PER_BYTE bytes per byte of
**      the file plus SQ_FILE_BUDGET_FIXED; the tables hold one entry per
**      row besides.  None of it counts against SQLITE_LIMIT_LENGTH, which
**      bounds results (a row's name, value, scope or data) when SQL reads
**      them;
**   4. a scope is a path in a tree stored once (each node its parent and
**      its own label): a row's scope text is composed when it is read, so
**      deeply nested subgraphs cost their labels once, not once per tensor.
*/
#ifndef SQ_INDEX_H
#define SQ_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "core/tensor.h"
#include "formats/source.h"

/* Canonical dtype names of tensor data in files (docs/reference/data-formats.md#data-formats):
** f32 f16 bf16 f64 int8 uint8 int16 uint16 int32 uint32 int64 uint64 bool
** f8_e4m3fn f8_e5m2, and ggml's block types (q4_0 ... q6_K). */
#define SQ_FILE_DTYPE_MAX 16

/* The readers' budget (rule 3). */
#define SQ_FILE_BUDGET_PER_BYTE 32u
#define SQ_FILE_BUDGET_FIXED 1048576u

struct sq_file_tensor;
struct sq_inflate;

/* What reading a cursor's rows keeps from one row to the next, so that a
** tensor read chunk by chunk in order is decoded once, not once per chunk
** (npz: docs/FORMATS.md#npz-compressed-members).  Zeroed is empty. */
typedef struct sq_file_stream {
  const struct sq_file_tensor *owner;  /* the tensor the states are for */
  struct sq_inflate *live, *mark;      /* npz: the decoder where the last
                                       ** read ended, and where it began */
  uint64_t inflated;                   /* bytes decoded over the stream's
                                       ** life (tests prove linearity) */
  sq_window win;                       /* transient reads (ONNX) */
} sq_file_stream;
void sq_file_stream_free(sq_file_stream *s);

/* The bytes a reader indexed: its source (whose model_path says where
** data kept beside the file lies, as ONNX external data) and, when the
** caller keeps one, the stream. */
typedef struct sq_file_view {
  sq_source *src;
  sq_file_stream *stream;       /* NULL: each read stands alone */
} sq_file_view;

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
  uint32_t scope;               /* where in the model the tensor sits (ONNX
                                ** subgraph, TFLite subgraph): 0 for the main
                                ** graph, else node scope - 1 of the index's
                                ** scope tree (rule 4) */
} sq_file_tensor;

/* The shape of t as JSON text, "[2,3]" ("[]" for a scalar), into buf
** (NUL-terminated); returns its length.  A dimension is written only while
** 25 bytes are left (its comma and up to 20 digits, then ']' and the NUL),
** so a short buf gives the leading dimensions, still closed by ']';
** SQ_FILE_SHAPE_TEXT_MAX bytes always hold the whole shape; cap >= 3. */
#define SQ_FILE_SHAPE_TEXT_MAX (SQ_MAX_DIMS * 21 + 5)
size_t sq_file_shape_text(const sq_file_tensor *t, char *buf,
                          size_t cap);

/* Bytes [start, start + len) of t's data into out (read from the source,
** or by its decoder); start + len must be <= t->nbytes. */
int sq_file_tensor_read(const sq_file_view *v, const sq_file_tensor *t,
                        uint64_t start, uint64_t len, unsigned char *out,
                        sq_status *st);

typedef struct sq_file_meta {
  char *key;                    /* sqlite3_malloc'd */
  char type[24];                /* the format's own type name: "string",
                                ** "uint32", "array[float32]", ... */
  char *value;                  /* JSON text, sqlite3_malloc'd */
} sq_file_meta;

/* A node of the scope tree: its parent (0: none, else node parent - 1) and
** its own label; a scope's text is the labels from the root, each joined to
** the one before by '/' (or directly, when glued: ONNX's "[2]" after its
** attribute's name). */
typedef struct sq_file_scope {
  uint32_t parent;
  int glued;
  char *label;                  /* sqlite3_malloc'd */
  size_t len;
} sq_file_scope;

typedef struct sq_file_index {
  sq_file_tensor *tensors;
  size_t ntensors, tensors_cap;
  sq_file_meta *meta;
  size_t nmeta, meta_cap;
  sq_file_scope *scopes;
  size_t nscopes, scopes_cap;
  /* The budget (rule 3): what the reader allocated, what it may. */
  const char *format;           /* the error prefix: "onnx" */
  uint64_t input, used, budget;
} sq_file_index;

/* An empty index for a reader of format `format` (its error prefix) over
** a source of `input` bytes: its budget set by rule 3. */
void sq_file_index_begin(sq_file_index *ix, const char *format,
                         uint64_t input);
void sq_file_index_free(sq_file_index *ix);

/* The text of scope node `scope` (a tensor's scope member; 0 gives NULL and
** *len 0): a result, so sized by sq_alloc (SQLITE_LIMIT_LENGTH);
** sqlite3_malloc'd, NUL-terminated. */
char *sq_file_scope_text(const sq_file_index *ix, uint32_t scope,
                         uint64_t *len, sq_status *st);

/* For the readers: append an entry (name copied from name[0..len)); the
** returned entry is zeroed but for the name. */
sq_file_tensor *sq_file_add_tensor(sq_file_index *ix, const char *name,
                                   size_t len, sq_status *st);
sq_file_meta *sq_file_add_meta(sq_file_index *ix, const char *key, size_t len,
                               sq_status *st);
/* A scope node under parent (0: at the root) labelled label[0..len),
** glued to its parent's label or not; its number (for sq_file_tensor.scope)
** in *id. */
int sq_file_add_scope(sq_file_index *ix, uint32_t parent, const char *label,
                      size_t len, int glued, uint32_t *id, sq_status *st);
/* The index's memory (rule 3): count * size bytes charged to the budget;
** realloc charges the new size (frees are not subtracted, so the budget
** bounds all a reader ever asks for). */
void *sq_file_alloc(sq_file_index *ix, uint64_t count, uint64_t size,
                    sq_status *st);
void *sq_file_realloc(sq_file_index *ix, void *old, uint64_t count,
                      uint64_t size, sq_status *st);
/* A NUL-terminated copy of s[0..len) charged to the budget. */
char *sq_file_strndup(sq_file_index *ix, const void *s, size_t len,
                      sq_status *st);

/* A growing NUL-terminated text (metadata values as JSON, scope labels),
** charged to the index.  Zeroed but for ix to start; s is the reader's to
** hand over or free. */
typedef struct sq_file_text {
  char *s;
  size_t len, cap;
  sq_file_index *ix;
} sq_file_text;
/* Appends s[0..len). */
int sq_file_text_add(sq_file_text *t, const void *s, size_t len,
                     sq_status *st);
/* Appends s[0..len) (valid UTF-8, checked by the caller) as a JSON string:
** quoted, with the escapes of sq_json_escape (core/text.h). */
int sq_file_text_json_string(sq_file_text *t, const unsigned char *s,
                             size_t len, sq_status *st);

/* How much of a name to quote in a message: at most 64 bytes, cut at a
** character boundary ("%.*s" with this and the name). */
int sq_file_quote_len(const void *s, size_t len);

#endif
