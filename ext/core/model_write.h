/*
** model_write.h: model files written from tensors (docs/FORMATS.md#writing).
**
** q_npy's writer builds the whole file in one buffer from sq_alloc, so its
** size is bounded by the connection's SQLITE_LIMIT_LENGTH (SQ_TOOBIG past
** it).  Safetensors and GGUF files: core/model_writer.h.
*/
#ifndef SQ_MODEL_WRITE_H
#define SQ_MODEL_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "core/tensor.h"

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

#endif
