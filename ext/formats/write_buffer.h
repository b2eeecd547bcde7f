/*
** write_buffer.h: the growing buffers the writers build files and headers
** in (tensor_writer.c and its layouts, npy_write.c).  Each buffer is a
** pointer, its length and its capacity, grown through sq_realloc, so a file
** in memory is bounded by st->max_bytes (SQLITE_LIMIT_LENGTH).
*/
#ifndef SQ_WRITE_BUFFER_H
#define SQ_WRITE_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"

/* How much of a name to quote in a message. */
#define SQ_MW_SHOW(len) ((len) > 48 ? 48 : (int)(len))

/* Appends len bytes to *buf (*n used, *cap allocated): capacity doubles, but
** never past st->max_bytes, so only a real need is SQ_TOOBIG. */
int sq_mw_put(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
              const void *p, uint64_t len);
/* A little-endian u32 / u64. */
int sq_mw_put_u32(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                  uint32_t v);
int sq_mw_put_u64(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                  uint64_t v);
/* s[0..len) (valid UTF-8) as a JSON string, escaped as serde_json does. */
int sq_mw_json_string(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                      const char *s, size_t len);

#endif
