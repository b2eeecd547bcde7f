/*
** tensor_layout.h: what a format written tensor by tensor gives the tensor
** writer (tensor_writer.h), and what it takes from it.  Internal to
** tensor_writer.c and the layouts, safetensors_write.c (sq_mw_safetensors)
** and gguf_write.c (sq_mw_gguf).
**
** The writer keeps the tensors, the chunk rule, the stores and the walk
** over the metadata argument's JSON object; a layout says what is the
** format's own:
**   1. its dtypes, and what it allows of names and shapes;
**   2. its header, built from the writer's tensors and encoded metadata
**      (w->meta, w->nmeta bytes, w->meta_count keys) when the file is
**      finished or sealed;
**   3. how one metadata key's JSON value is encoded into w->meta;
**   4. whether the data is aligned (each tensor, and the end of the data,
**      at a multiple of w->alignment: GGUF).
** Messages quote names with SQ_MW_SHOW.
*/
#ifndef SQ_TENSOR_LAYOUT_H
#define SQ_TENSOR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "core/tensor.h"
#include "formats/tensor_writer.h"
#include "formats/write_buffer.h"

/* The metadata argument's JSON text, as the walk reads it. */
typedef struct sq_mw_scan {
  const unsigned char *s;
  size_t n, i;
  sq_status *st;
} sq_mw_scan;
/* Skips JSON whitespace. */
void sq_mw_scan_ws(sq_mw_scan *j);
/* "metadata ends where X was expected" or "metadata has byte 0x.. at byte
** N where X was expected". */
int sq_mw_scan_expected(sq_mw_scan *j, const char *what);
/* A JSON string at j (else the error above with what), decoded to UTF-8
** into *out (reset first: *n is its length). */
int sq_mw_scan_string(sq_mw_scan *j, char **out, uint64_t *n, uint64_t *cap,
                      const char *what);

/* The walk over the metadata object, as the layout's hooks see it. */
typedef struct sq_mw_meta {
  sq_mw_scan *j;
  sq_model_writer *w;
  const char *key;              /* the key being read and its length */
  uint64_t keylen;
  uint64_t index;               /* keys before it */
  char *str;                    /* scratch for decoded strings (the walk */
  uint64_t nstr, cstr;          /* frees it) */
  uint32_t alignment;           /* GGUF: general.alignment as given */
} sq_mw_meta;

struct sq_mw_format {
  /* The dtype dtype[0..dtype_len) of tensor name (rule 1): its number in
  ** the layout's own table (*type, kept in the tensor for the header), its
  ** spelling for messages, its elements and bytes per block (1 and the
  ** item size for plain dtypes); the shape checked against the format. */
  int (*type)(const char *name, size_t name_len, const char *dtype,
              size_t dtype_len, const sq_shape *shape, int *type,
              const char **tname, uint64_t *block, uint64_t *bytes,
              sq_status *st);
  /* A new tensor's name (valid UTF-8): an error if the format refuses it. */
  int (*check_name)(const char *name, size_t name_len, sq_status *st);
  /* The error for a tensor's first row whose nbytes do not fit: count
  ** elements of tname take whole bytes, a piece a multiple of unit. */
  int (*bad_size)(const char *name, size_t name_len, size_t nbytes,
                  uint64_t count, const char *tname, uint64_t whole,
                  uint64_t unit, sq_status *st);
  int aligned;                  /* rule 4 */
  /* Rule 2: *h (sqlite3_malloc'd, also on error) of *nh bytes. */
  int (*header)(sq_model_writer *w, char **h, uint64_t *nh, sq_status *st);
  /* Rule 3: before the first key; for each key, j after its ':' and the
  ** spaces after it; after the last of count keys. */
  int (*meta_open)(sq_mw_meta *m);
  int (*meta_value)(sq_mw_meta *m);
  int (*meta_close)(sq_mw_meta *m, uint64_t count);
};

extern const sq_mw_format sq_mw_safetensors;
extern const sq_mw_format sq_mw_gguf;

/* GGUF's default alignment: what a writer starts with (unused where the
** layout is not aligned). */
#define SQ_MW_DEFAULT_ALIGNMENT 32

/* Tensor t's name in w->names; "" while no name has any byte (w->names is
** still NULL then, and NULL + 0 is undefined). */
static inline const char *sq_mw_name(const sq_model_writer *w,
                                     const sq_mw_tensor *t) {
  return w->names ? w->names + t->name_at : "";
}

#endif
