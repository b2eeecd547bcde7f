/*
** writer.h: a model file written from rows, whatever its format
** (docs/FORMATS.md#file-writers).
**
** A format that rows can write has ops in its descriptor row (formats.h:
** sq_formats[f].writer); sq_file_writer holds any format's writer state and
** calls them, so the SQL layer writes every format through one interface
** and names none.  The rules:
**   1. a row is (name, data, dtype, shape[, metadata]); the ops say how the
**      SQL layer decodes one: dtype_column names the dtype in its messages
**      ("dtype"; GGUF's "type"), shape_flags which shapes the format holds
**      (SQ_SHAPE_ZERO_DIMS: empty arrays), takes_metadata whether rows may
**      give the file's metadata (JSON text, set once before the row's
**      tensor: GGUF's general.alignment places the data);
**   2. after an error in add or metadata the writer is rewound to a mark
**      taken before the call, or freed;
**   3. the file store (open, seal, commit, mark, rewind) is path code, not
**      compiled with SQLITE_QUANT_OMIT_FS (docs/ARCHITECTURE.md#registration);
**   4. free removes a staged file that was not committed.
*/
#ifndef SQ_WRITER_H
#define SQ_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "core/tensor.h"
#include "formats/formats.h"
#include "formats/npy_write.h"
#include "formats/staged_file.h"
#include "formats/tensor_writer.h"

typedef struct sq_file_writer {
  const struct sq_writer_ops *ops;
  union {
    sq_model_writer tensors;    /* safetensors, GGUF */
    sq_npz_writer npz;          /* .npz */
  } as;
} sq_file_writer;

#ifndef SQLITE_QUANT_OMIT_FS
/* The state between two rows, to rewind to. */
typedef struct sq_writer_mark {
  union {
    sq_mw_mark tensors;
    sq_npz_mark npz;
  } as;
} sq_writer_mark;
#endif

typedef struct sq_writer_ops {
  const char *dtype_column;
  unsigned shape_flags;
  int takes_metadata;
  void (*init)(sq_file_writer *w);      /* in memory */
  int (*add)(sq_file_writer *w, const char *name, size_t name_len,
             const char *dtype, size_t dtype_len, const sq_shape *shape,
             const void *data, size_t nbytes, sq_status *st);
  int (*metadata)(sq_file_writer *w, const char *json, size_t len,
                  sq_status *st);
  int (*finish)(sq_file_writer *w, unsigned char **out, uint64_t *outn,
                sq_status *st);
  void (*free)(sq_file_writer *w);
#ifndef SQLITE_QUANT_OMIT_FS
  int (*open)(sq_file_writer *w, sq_staged *target, sq_status *st);
  sq_staged *(*staged)(const sq_file_writer *w);
  int (*seal)(sq_file_writer *w, uint64_t *size, sq_status *st);
  int (*commit)(sq_file_writer *w, sq_status *st);
  void (*mark)(const sq_file_writer *w, sq_writer_mark *m);
  int (*rewind)(sq_file_writer *w, const sq_writer_mark *m,
                sq_status *st);
#endif
} sq_writer_ops;

/* The format's writer ops, or NULL when rows cannot write it. */
const sq_writer_ops *sq_file_writer_ops(sq_file_format f);

/* An in-memory writer of format f (which has ops): the file is built in
** one buffer bounded by st->max_bytes (SQLITE_LIMIT_LENGTH). */
void sq_file_writer_init(sq_file_writer *w, sq_file_format f);
/* Each call is the ops' entry of w's format (rule 1 for add and metadata,
** which only a format that takes metadata is given). */
int sq_file_writer_add(sq_file_writer *w, const char *name, size_t name_len,
                       const char *dtype, size_t dtype_len,
                       const sq_shape *shape, const void *data, size_t nbytes,
                       sq_status *st);
int sq_file_writer_metadata(sq_file_writer *w, const char *json, size_t len,
                            sq_status *st);
/* In memory: the file's bytes (sqlite3_malloc'd) and size; then only
** sq_file_writer_free. */
int sq_file_writer_finish(sq_file_writer *w, unsigned char **out,
                          uint64_t *outn, sq_status *st);
void sq_file_writer_free(sq_file_writer *w);
#ifndef SQLITE_QUANT_OMIT_FS
/* A writer of format f (which has ops) whose file is staged for target,
** resolved by sq_staged_resolve and sqlite3_malloc'd: the writer takes it
** over, even on error, and creates the temporary file now. */
int sq_file_writer_open(sq_file_writer *w, sq_file_format f,
                        sq_staged *target, sq_status *st);
/* The file complete, fsync'd and named beside its target; *size its
** size.  Again after more rows. */
int sq_file_writer_seal(sq_file_writer *w, uint64_t *size, sq_status *st);
/* Sealed: renamed over the target. */
int sq_file_writer_commit(sq_file_writer *w, sq_status *st);
/* The staged file (for comparing targets). */
sq_staged *sq_file_writer_staged(const sq_file_writer *w);
void sq_file_writer_mark(const sq_file_writer *w, sq_writer_mark *m);
int sq_file_writer_rewind(sq_file_writer *w, const sq_writer_mark *m,
                          sq_status *st);
#endif

/* The ops of the formats that have writers (the rows' entries). */
extern const sq_writer_ops sq_safetensors_writer_ops;
extern const sq_writer_ops sq_gguf_writer_ops;
extern const sq_writer_ops sq_npz_writer_ops;

#endif
