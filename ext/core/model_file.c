/*
** model_file.c: format detection, the index that every reader fills, and
** the dispatch to the readers (docs/FORMATS.md).
*/
#include <string.h>
#include "core/model_file.h"
#include "core/text.h"

static const char *const sq_format_names[SQ_FILE_NFORMATS] = {
  "safetensors", "gguf", "npy", "npz"};

const char *sq_file_format_name(sq_file_format f) { return sq_format_names[f]; }

int sq_file_format_parse(const char *text, size_t len, sq_file_format *f,
                         sq_status *st) {
  for (int i = 0; i < SQ_FILE_NFORMATS; i++) {
    if (sq_word_is(text, len, sq_format_names[i])) {
      *f = (sq_file_format)i;
      return SQ_OK;
    }
  }
  return sq_fail(st, "unknown file format '%.*s' (expected safetensors, gguf, "
                     "npy or npz)", len > 40 ? 40 : (int)len, text);
}

/* Magic bytes: GGUF "GGUF"; npy "\x93NUMPY"; npz a zip's "PK\3\4";
** safetensors a little-endian u64 header length followed by '{'. */
int sq_file_detect(const unsigned char *p, size_t n) {
  if (n >= 4 && memcmp(p, "GGUF", 4) == 0) return SQ_FILE_GGUF;
  if (n >= 6 && memcmp(p, "\x93NUMPY", 6) == 0) return SQ_FILE_NPY;
  if (n >= 4 && memcmp(p, "PK\x03\x04", 4) == 0) return SQ_FILE_NPZ;
  if (n >= 9 && p[8] == '{') return SQ_FILE_SAFETENSORS;
  return -1;
}

void sq_file_index_free(sq_file_index *ix) {
  for (size_t i = 0; i < ix->ntensors; i++) sqlite3_free(ix->tensors[i].name);
  for (size_t i = 0; i < ix->nmeta; i++) {
    sqlite3_free(ix->meta[i].key);
    sqlite3_free(ix->meta[i].value);
  }
  sqlite3_free(ix->tensors);
  sqlite3_free(ix->meta);
  memset(ix, 0, sizeof *ix);
}

/* A NUL-terminated copy of s[0..len). */
static char *sq_strndup(const char *s, size_t len, sq_status *st) {
  char *c = sq_alloc(st, (uint64_t)len + 1, 1);
  if (!c) return NULL;
  if (len) memcpy(c, s, len);
  c[len] = 0;
  return c;
}

/* Room for one more entry of size `size` in *arr (count n, capacity *cap). */
static int sq_grow(void **arr, size_t n, size_t *cap, size_t size,
                   sq_status *st) {
  if (n < *cap) return SQ_OK;
  size_t want = *cap ? *cap * 2 : 16;
  void *p = sq_realloc(st, *arr, want, size);
  if (!p) return st->code;
  *arr = p;
  *cap = want;
  return SQ_OK;
}

sq_file_tensor *sq_file_add_tensor(sq_file_index *ix, const char *name,
                                   size_t len, sq_status *st) {
  char *copy = sq_strndup(name, len, st);
  if (!copy) return NULL;
  if (sq_grow((void **)&ix->tensors, ix->ntensors, &ix->tensors_cap,
              sizeof *ix->tensors, st)) {
    sqlite3_free(copy);
    return NULL;
  }
  sq_file_tensor *t = &ix->tensors[ix->ntensors++];
  memset(t, 0, sizeof *t);
  t->name = copy;
  return t;
}

sq_file_meta *sq_file_add_meta(sq_file_index *ix, const char *key, size_t len,
                               sq_status *st) {
  char *copy = sq_strndup(key, len, st);
  if (!copy) return NULL;
  if (sq_grow((void **)&ix->meta, ix->nmeta, &ix->meta_cap, sizeof *ix->meta,
              st)) {
    sqlite3_free(copy);
    return NULL;
  }
  sq_file_meta *m = &ix->meta[ix->nmeta++];
  memset(m, 0, sizeof *m);
  m->key = copy;
  return m;
}

int sq_file_read(const unsigned char *p, size_t n, sq_file_format f,
                 int want_meta, sq_file_index *ix, sq_status *st) {
  static int (*const readers[SQ_FILE_NFORMATS])(
      const unsigned char *, size_t, int, sq_file_index *, sq_status *) = {
    sq_safetensors_read, sq_gguf_read, sq_npy_read, sq_npz_read};
  memset(ix, 0, sizeof *ix);
  if (readers[f](p, n, want_meta, ix, st)) sq_file_index_free(ix);
  return st->code;
}
