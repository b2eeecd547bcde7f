/*
** source.h: the bytes a model-file reader reads (docs/FORMATS.md#how-files-are-read).
**
** A source is either memory (the BLOB variants: q_tensors(bytes)) or an
** open regular file (the file variants: q_tensors_file(path), and ONNX
** external data).  The rules:
**
**   1. a file is opened with O_NONBLOCK | O_NOCTTY and checked with fstat
**      before anything is read: anything but a regular file (a fifo, a
**      directory, a device, a socket) is refused without blocking; then
**      O_NONBLOCK is cleared.  Its identity (size, mtime, ctime) is
**      recorded when it is opened;
**   2. nothing is mapped: every byte comes from pread into the caller's
**      memory, so a file that changes under a reader can never fault the
**      process.  After each read fstat must still show the identity of
**      rule 1: a short read or a changed size is the error "'<path>'
**      changed while it was read (it is now N bytes, was M)", a changed
**      mtime, or ctime while the file still has a name, "... (it is still
**      N bytes, but was modified)".  A file replaced by rename while it is
**      read is read to the end (the descriptor keeps the old file, whose
**      only change is that it lost its name); one rewritten in place is an
**      error, caught by its size or its timestamps, so a rewrite that keeps
**      the size and lands within the same tick of the filesystem's
**      timestamp clock as the change before it can go unseen (Linux: the
**      kernel's coarse clock, 1 to 10 ms; FAT: 2 seconds);
**   3. sq_source_read copies bytes [off, off + len) into the caller's
**      buffer (tensor data, decoders);
**   4. sq_source_span gives the reader of an index random access to
**      structure bytes: a pointer valid until sq_source_end_parse.  Memory
**      gives a pointer into itself, at no cost; a file reads pages of
**      SQ_SOURCE_PAGE bytes on demand into a cache kept until the parse
**      ends (a span that crosses pages is one copy, made once per range).
**      Readers span only structure (headers, names, dims, tables), never a
**      tensor's data, so the cache is bounded by the structure, and it is
**      also refused past SQ_SOURCE_CACHE_PER_BYTE bytes per byte of the
**      file plus SQ_SOURCE_CACHE_FIXED;
**   5. a window (sq_window_get) is the transient form of a span, for walks
**      over bytes that need not stay (protobuf field headers, packed
**      numbers): one buffer of up to SQ_WINDOW_SIZE bytes, valid until the
**      window's next call.  A read that jumps away from the window reads
**      SQ_WINDOW_FIRST bytes (a field header after a skipped payload), one
**      that goes on from it twice the last (a walk over dense structure);
**   6. everything fails cleanly: no partial state is left to free but what
**      sq_source_close frees, and a zeroed source is a closed one.
*/
#ifndef SQ_SOURCE_H
#define SQ_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"

#define SQ_SOURCE_PAGE 4096u
#define SQ_SOURCE_CACHE_PER_BYTE 4u
#define SQ_SOURCE_CACHE_FIXED 1048576u
#define SQ_WINDOW_SIZE 16384u
#define SQ_WINDOW_FIRST 1024u

typedef struct sq_source_slot sq_source_slot;

typedef struct sq_source {
  const unsigned char *mem;     /* memory: the bytes */
  uint64_t size;                /* the bytes' length (a file's when opened) */
  int is_file;                  /* the fields below are a file's */
  int fd;
  char *path;                   /* as opened */
  char *label;                  /* how messages name it */
  const char *model_path;       /* where files beside it are looked for
                                ** (ONNX external data): a file's path; NULL
                                ** for memory, unless its owner sets it to
                                ** the file the bytes were read from */
  int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
  /* The parse's cache (rule 4). */
  sq_source_slot *slots;
  size_t nslots, nused;
  uint64_t cache_bytes;
  /* What was read from the file, for tests and measurements. */
  uint64_t bytes_read, reads;
} sq_source;

/* A source over n bytes at p (not copied: they must outlive the source). */
void sq_source_memory(sq_source *s, const unsigned char *p, uint64_t n);

#ifndef SQLITE_QUANT_OMIT_FS
/* Opens path as rule 1 says; label names it in messages ("cannot open
** '<label>': no such file", "'<label>' is not a regular file (a fifo)").
** SQ_SOURCE_NOFOLLOW: refuse a symbolic link as the last component. */
#define SQ_SOURCE_NOFOLLOW 1
int sq_source_open(sq_source *s, const char *path, const char *label,
                   int flags, sq_status *st);

/* What errno e means, in words that do not depend on the locale (strerror's
** do), for a file read (writing 0) or written (writing 1: staged_file.c):
** the two word a missing path, an I/O error and the rest apart. */
const char *sq_errno_words(int e, int writing);
#endif

/* Closes the file, frees the cache and the names; the source is zeroed. */
void sq_source_close(sq_source *s);

/* Bytes [off, off + len) into out (rules 2, 3). */
int sq_source_read(sq_source *s, uint64_t off, uint64_t len,
                   unsigned char *out, sq_status *st);

/* Bytes [off, off + len), valid until sq_source_end_parse (rule 4); NULL
** with st set on error.  len 0 gives a valid pointer to nothing. */
const unsigned char *sq_source_span(sq_source *s, uint64_t off, uint64_t len,
                                    sq_status *st);
/* Frees the spans' cache: every span pointer is invalid after this. */
void sq_source_end_parse(sq_source *s);

/* A transient view of a source (rule 5).  Zeroed is empty; free it with
** sq_window_free. */
typedef struct sq_window {
  unsigned char *buf;
  uint64_t start;
  size_t len;
} sq_window;
/* Bytes [off, off + len) (len <= SQ_WINDOW_SIZE), valid until the next
** call on w; NULL with st set on error. */
const unsigned char *sq_window_get(sq_window *w, sq_source *s, uint64_t off,
                                   size_t len, sq_status *st);
void sq_window_free(sq_window *w);

#endif
