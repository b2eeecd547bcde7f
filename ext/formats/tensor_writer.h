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
**     file is then fsync'd and named, ready for the commit to rename it
**     over the target.  A sealed writer may take more pieces or
**     be rewound (the data moves back down first), and be sealed again.
**     Freeing the writer removes whatever has not been committed.
** Marks (sq_mw_mark) record the writer's state between rows; rewinding to
** one drops what came after it (tensors, pieces, the metadata), the file
** cut back to its size then: a statement rolled back leaves no trace.
*/
#ifndef SQ_TENSOR_WRITER_H
#define SQ_TENSOR_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "core/tensor.h"
#include "formats/staged_file.h"

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

#ifndef SQLITE_QUANT_OMIT_FS
/* The state between two rows, to rewind to. */
typedef struct sq_mw_mark {
  size_t ntensors;
  uint64_t nnames, ndata, got;
  int has_meta;
} sq_mw_mark;
#endif

/* The writer is used through its ops (formats/writer.h:
** sq_safetensors_writer_ops, sq_gguf_writer_ops); tensor_writer.c says
** what each step does. */

#endif
