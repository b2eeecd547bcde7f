/*
** model_writer_buf.h: the growing buffers model_writer.c and
** model_metadata.c build files in (internal to the two).
*/
#ifndef SQ_MODEL_WRITER_BUF_H
#define SQ_MODEL_WRITER_BUF_H

#include <stdint.h>
#include "core/status.h"

/* How much of a name to quote in a message. */
#define SQ_MW_SHOW(len) ((len) > 48 ? 48 : (int)(len))
#define SQ_MW_GGUF_DEFAULT_ALIGNMENT 32

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
/* A sealed staged file's data back at offset 0, before anything that the
** header depends on changes (a no-op in memory or unsealed). */
struct sq_model_writer;
int sq_mw_unseal(struct sq_model_writer *w, sq_status *st);
#endif
