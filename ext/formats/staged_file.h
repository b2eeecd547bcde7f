/*
** staged_file.h: a file built beside its target and put in the target's
** place only when committed (docs/FORMATS.md#file-writers).  The model-file
** writers (formats/tensor_writer.h, formats/npy_write.h) build their files
** in one; the SQL layer decides when to seal, commit or discard it.
**
** Rules:
**   1. sq_staged_resolve resolves the target once: the directory part of
**      the path is opened (relative to the working directory at that
**      moment; later changes of it do not matter) and the name in it
**      kept.  A target that is a directory is refused there.
**   2. sq_staged_create makes the one temporary file, in the target's
**      directory (the rename at commit never crosses file systems), mode
**      0666 less the umask:
**        - O_TMPFILE where the file system has it: the file has no name
**          until sq_staged_seal, so a process that dies (kill -9 included)
**          leaves nothing; the kernel frees it;
**        - else a named file "<name>.sq-tmp-XXXXXX".
**      Either is held with flock(LOCK_EX) while it is open.  Before
**      creating its own, sq_staged_create removes every
**      "<name>.sq-tmp-XXXXXX" beside the target whose lock it can take: the
**      leftovers of writers that died (a live writer holds its lock).
**   3. The file is written at offsets (sq_staged_pwrite), read back
**      (sq_staged_pread), moved within itself through one bounded buffer
**      (sq_staged_move: a header goes in front of data already written
**      without a second copy on disk) and cut (sq_staged_truncate).
**   4. sq_staged_seal makes it ready to replace the target, doing every
**      step that can fail: the existing target's permission bits (rwx for
**      user, group, other) copied onto it, fsync, and a name beside the
**      target (an O_TMPFILE file is linked as "<name>.sq-tmp-XXXXXX",
**      still locked).  It may be called again after more writes.
**   5. sq_staged_commit renames the sealed file over the target (one
**      atomic step: a reader sees the old file or the new one) and fsyncs
**      the directory.  sq_staged_close removes the temporary name, if the
**      file has one and was not committed, and closes everything.
** Errors name the path as given, with messages from a fixed table (the
** same in every locale).
*/
#ifndef SQ_STAGED_FILE_H
#define SQ_STAGED_FILE_H

#include <stdint.h>
#include "core/status.h"

typedef struct sq_staged {
  char *path;            /* the target as given, for messages */
  char *name;            /* the target's name in dir */
  int dir;               /* the target's directory, -1 when not open */
  int dir_listable;      /* dir was opened for reading: listed, fsync'd */
  uint64_t dir_dev, dir_ino;
  int fd;                /* the temporary file, -1 when not open */
  char *tmp;             /* its name in dir; NULL while it has none */
  int committed;
} sq_staged;

/* Not compiled with SQLITE_QUANT_OMIT_FS (the type stays: the writers'
** structs point at one, NULL there). */
#ifndef SQLITE_QUANT_OMIT_FS
int sq_staged_resolve(sq_staged *f, const char *path, sq_status *st);
/* Whether a and b (both resolved) name the same target. */
int sq_staged_same_target(const sq_staged *a, const sq_staged *b);
int sq_staged_create(sq_staged *f, sq_status *st);
int sq_staged_pwrite(sq_staged *f, uint64_t at, const void *p, uint64_t n,
                     sq_status *st);
/* Moves bytes [from, from + n) to [to, to + n) (the ranges may overlap)
** through a buffer of at most 1 MiB (and at most st->max_bytes). */
int sq_staged_move(sq_staged *f, uint64_t from, uint64_t to, uint64_t n,
                   sq_status *st);
int sq_staged_truncate(sq_staged *f, uint64_t n, sq_status *st);
int sq_staged_seal(sq_staged *f, sq_status *st);
int sq_staged_commit(sq_staged *f, sq_status *st);
void sq_staged_close(sq_staged *f);
#endif

#endif
