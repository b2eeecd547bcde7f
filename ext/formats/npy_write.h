/*
** npy_write.h: .npy images and .npz archives written from tensors
** (docs/FORMATS.md#writing).
**
** q_npy's writer builds the whole file in one buffer from sq_alloc, so its
** size is bounded by the connection's SQLITE_LIMIT_LENGTH (SQ_TOOBIG past
** it).  Safetensors and GGUF files: formats/tensor_writer.h.
*/
#ifndef SQ_NPY_WRITE_H
#define SQ_NPY_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "core/tensor.h"
#include "formats/staged_file.h"

/* A .npy image of `data` (nbytes, which must be shape's element count x the
** dtype's size), as numpy.save writes it: version 1.0 (2.0 when the header
** needs more than 65535 bytes), the header dict with numpy's spacing, its
** growth padding and its 64-byte alignment.  dtype is one of the names the
** readers give (f16 f32 f64 int8 ... uint64 bool, and the big-endian
** "...be" forms); names numpy has no dtype for (bf16, f8_*, ggml's block
** types) are refused.  *out is sqlite3_malloc'd, *outn its size. */
int sq_npy_write(const char *dtype, size_t dtype_len, const sq_shape *shape,
                 const void *data, size_t nbytes, unsigned char **out,
                 uint64_t *outn, sq_status *st);

/* A .npz archive built member by member (docs/FORMATS.md#writing-npz), as
** numpy.savez writes it: a zip of stored (uncompressed) members
** "<name>.npy", each a .npy image as sq_npy_write makes it, with its
** CRC-32; a fixed 1980-01-01 timestamp so the same rows give the same
** bytes.  A BLOB is below 2^31 bytes, so member sizes and offsets always
** fit zip's 32-bit fields; more than 65535 members get the zip64 end
** records.  Zero it to start; the buffers grow through sq_realloc (SQ_TOOBIG
** past st->max_bytes); free it after any result. */
typedef struct sq_npz_writer {
  char *body;                   /* local headers and data so far (memory) */
  uint64_t nbody, body_cap;
  char *dir;                    /* central directory entries so far */
  uint64_t ndir, dir_cap;
  uint64_t nmembers;
  sq_staged *out;               /* the file store, or NULL: memory */
  int sealed;                   /* out holds the directory after the body */
} sq_npz_writer;

/* The writer is used through its ops (formats/writer.h:
** sq_npz_writer_ops).  A member is appended per row: its name (UTF-8, no
** NUL; ".npy" is appended), dtype and data as sq_npy_write takes them; a
** name given twice is an error naming it when the archive is finished or
** sealed.  In a staged file (formats/staged_file.h) members are written as
** they come, the central directory (46 bytes and the name per member)
** stays in memory until sealing writes it after them, and more members may
** follow a seal; a file store refuses an archive past 4 GiB (zip64 member
** fields, which numpy's files then have, are not written), with an error. */
#ifndef SQLITE_QUANT_OMIT_FS
/* The state between two rows, to rewind to (what came after is dropped). */
typedef struct sq_npz_mark {
  uint64_t nbody, ndir, nmembers;
} sq_npz_mark;
#endif

#endif
