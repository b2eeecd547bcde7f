/*
** tensor_writer.h: files written tensor by tensor, safetensors and GGUF
** (docs/FORMATS.md#writing-safetensors, docs/FORMATS.md#writing-gguf,
** docs/FORMATS.md#file-writers).
**
** One writer for both formats, each a layout (tensor_layout.h:
** safetensors_write.c, gguf_write.c): the list of tensors (name, dtype, shape,
** where the data lies), the chunk rule (a tensor may come in consecutive
** pieces, each a whole number of rows along axis 0, in order, together
** exactly its bytes; docs/FORMATS.md#chunks), the metadata, and a data store
** that is either
**   - memory: the file is built in one buffer bounded by st->max_bytes
**     (SQLITE_LIMIT_LENGTH; SQ_TOOBIG past it).  The data section grows as
**     pieces arrive; at the end the buffer grows by the header's size, the
**     data moves up and the header goes in front, so the peak is the file's
**     size (plus what the allocator needs to grow the block), never two
**     copies;
**   - a staged file beside the target (formats/staged_file.h): pieces are
**     written as they arrive, so memory holds only the index.  Sealing
**     computes the header, moves the data up in place by the header's size
**     (the disk holds the data once) and writes the header in front; the
**     file is then fsync'd and named, ready for sq_model_writer_commit to
**     rename it over the target.  A sealed writer may take more pieces or
**     be rewound (the data moves back down first), and be sealed again.
**     sq_model_writer_free removes whatever has not been committed.
** Marks (sq_mw_mark) record the writer's state between rows; rewinding to
** one drops what came after it (tensors, pieces, the metadata), the file
** cut back to its size then: a statement rolled back leaves no trace.
*/
#ifndef SQ_MODEL_WRITER_H
#define SQ_MODEL_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "formats/staged_file.h"
#include "core/status.h"
#include "core/tensor.h"

/* A format's layout: sq_mw_safetensors or sq_mw_gguf (tensor_layout.h). */
typedef struct sq_mw_format sq_mw_format;

typedef struct sq_mw_tensor {
  uint64_t name_at, name_len;  /* the name's [start, len) in names */
  int type;                    /* index in the format's dtype table */
  sq_shape shape;
  uint64_t offset;             /* start in the data section */
  uint64_t nbytes, got;        /* the whole tensor's bytes, received */
  uint64_t unit;               /* bytes of one row along axis 0 (a piece is
                               ** a multiple of it) */
} sq_mw_tensor;

typedef struct sq_model_writer {
  const sq_mw_format *format;
  sq_mw_tensor *t;
  size_t ntensors, tensors_cap;
  char *names;
  uint64_t nnames, names_cap;
  uint64_t alignment;          /* GGUF's general.alignment (32 by default) */
  /* Metadata in the file's own encoding: safetensors' "__metadata__"
  ** object (compact JSON), or GGUF's key-value pairs; NULL when none. */
  char *meta;
  uint64_t nmeta, meta_cap, meta_count;
  /* The data section: in memory, or in the staged file out. */
  unsigned char *mem;
  uint64_t ndata, mem_cap;
  sq_staged *out;              /* NULL in memory */
  /* out is sealed: the header's nsealed bytes lie before the data, then
  ** GGUF's padding after the last tensor, pad_sealed bytes. */
  int sealed;
  uint64_t nsealed, pad_sealed;
  /* A failed seal or unseal leaves the file's bytes unknown: every later
  ** call then fails. */
  int broken;
} sq_model_writer;

/* An in-memory writer. */
void sq_model_writer_init(sq_model_writer *w, const sq_mw_format *f);
#ifndef SQLITE_QUANT_OMIT_FS
/* A writer whose data goes to a staged file for target, already resolved
** by sq_staged_resolve (sqlite3_malloc'd; the writer takes it over and
** frees it, even on error).  The temporary file is created now, so an
** unwritable directory fails at the first row.  Not compiled with
** SQLITE_QUANT_OMIT_FS, nor are the seal, commit, mark and rewind below. */
int sq_model_writer_open(sq_model_writer *w, const sq_mw_format *f,
                         sq_staged *target, sq_status *st);
#endif

/* Adds a piece of a tensor under the chunk rule.  name: UTF-8 without NUL
** (safetensors: not "__metadata__"; GGUF: under 64 bytes, ggml's limit);
** dtype: one of the readers' names the format has; shape: the whole
** tensor's.  A piece with a new name starts a tensor (the previous one must
** be complete; a name already used is refused); one with the current name
** continues it (same dtype and shape).  After an error, rewind to a mark
** taken before the call, or free the writer. */
int sq_model_writer_add(sq_model_writer *w, const char *name, size_t name_len,
                        const char *dtype, size_t dtype_len,
                        const sq_shape *shape, const void *data, size_t nbytes,
                        sq_status *st);
/* Sets the metadata from JSON text (docs/FORMATS.md#writing-safetensors:
** an object of strings; docs/FORMATS.md#gguf-metadata: an object of
** {"type": T, "value": V}); GGUF's general.alignment sets the alignment, so
** it must come before the first tensor. */
int sq_model_writer_metadata(sq_model_writer *w, const char *json, size_t len,
                             sq_status *st);
/* In memory: the file's bytes (sqlite3_malloc'd; the writer's buffer is
** handed over) and size. */
int sq_model_writer_finish(sq_model_writer *w, unsigned char **out,
                           uint64_t *outn, sq_status *st);
#ifndef SQLITE_QUANT_OMIT_FS
/* File store: the header in front of the data, the file fsync'd and
** named beside the target (core/staged_file.h); again after more pieces.
** *size: the file's size. */
int sq_model_writer_seal(sq_model_writer *w, uint64_t *size, sq_status *st);
/* File store, sealed: renames the file over the target. */
int sq_model_writer_commit(sq_model_writer *w, sq_status *st);

/* The state between two rows, to rewind to. */
typedef struct sq_mw_mark {
  size_t ntensors;
  uint64_t nnames, ndata, got;
  int has_meta;
} sq_mw_mark;
void sq_model_writer_mark(const sq_model_writer *w, sq_mw_mark *m);
/* Back to the mark: what came after it is dropped. */
int sq_model_writer_rewind(sq_model_writer *w, const sq_mw_mark *m,
                           sq_status *st);
#endif
/* Frees everything; a staged file not committed is removed. */
void sq_model_writer_free(sq_model_writer *w);

#endif
