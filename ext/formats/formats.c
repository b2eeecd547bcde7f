/*
** formats.c: the table of model-file formats, detection, the readers'
** dispatch and the writers' (see formats.h and writer.h).
*/
#include <string.h>
#include "core/text.h"
#include "formats/formats.h"
#include "formats/writer.h"

/* The formats' names, from the catalogue (core/catalogue.h): the format
** argument (any case) and the readers' error prefix. */
#define SQ_FORMAT_NAME(name, NAME) [SQ_FILE_##NAME] = #name,
static const char *const sq_format_names[SQ_FILE_NFORMATS] = {
  SQ_CATALOGUE_FILE_FORMATS(SQ_FORMAT_NAME)};
#undef SQ_FORMAT_NAME

/* Each format's reader, sq_<name>_read, by the catalogue's list: a format
** the catalogue says is read does not build until its reader exists.  The
** contract of sq_file_read_source, without the budget's setup and the span
** cache's end (done around it). */
typedef int sq_format_reader(sq_source *src, int want_meta, sq_file_index *ix,
                             sq_status *st);
#define SQ_FORMAT_READER(name, NAME) [SQ_FILE_##NAME] = sq_##name##_read,
static sq_format_reader *const sq_format_readers[SQ_FILE_NFORMATS] = {
  SQ_CATALOGUE_FILE_READERS(SQ_FORMAT_READER)};
#undef SQ_FORMAT_READER

/* A format's row: how its first bytes are recognised, and its writer. */
typedef struct sq_format {
  /* Recognised by magic_len bytes at offset magic_at equal to magic, or,
  ** where magic is NULL, by guess (rule 1); neither: never detected, only
  ** named. */
  const char *magic;
  unsigned magic_at, magic_len;
  int (*guess)(const unsigned char *p, size_t n);
  const sq_writer_ops *writer;  /* NULL: rows cannot write it by path */
} sq_format;

/* Rule 1 of formats.h: GGUF "GGUF"; npy "\x93NUMPY"; npz a zip's
** "PK\3\4"; TFLite the FlatBuffer file identifier "TFL3" at offset 4; then
** the guesses, safetensors before ONNX. */
static const sq_format sq_formats[SQ_FILE_NFORMATS] = {
  [SQ_FILE_SAFETENSORS] = {NULL, 0, 0, sq_safetensors_guess,
                           &sq_safetensors_writer_ops},
  [SQ_FILE_GGUF] = {"GGUF", 0, 4, NULL, &sq_gguf_writer_ops},
  [SQ_FILE_NPY] = {"\x93NUMPY", 0, 6, NULL, NULL},
  [SQ_FILE_NPZ] = {"PK\x03\x04", 0, 4, NULL, &sq_npz_writer_ops},
  [SQ_FILE_ONNX] = {NULL, 0, 0, sq_onnx_guess, NULL},
  [SQ_FILE_TFLITE] = {"TFL3", 4, 4, NULL, NULL},
};

const char *sq_file_format_name(sq_file_format f) {
  return sq_format_names[f];
}

static int sq_format_has_magic(const sq_format *d, const unsigned char *p,
                               size_t n) {
  return n >= (size_t)d->magic_at + d->magic_len &&
         memcmp(p + d->magic_at, d->magic, d->magic_len) == 0;
}

int sq_file_detect(const unsigned char *p, size_t n) {
  for (int f = 0; f < SQ_FILE_NFORMATS; f++)
    if (sq_formats[f].magic && sq_format_has_magic(&sq_formats[f], p, n))
      return f;
  for (int f = 0; f < SQ_FILE_NFORMATS; f++)
    if (sq_formats[f].guess && sq_formats[f].guess(p, n)) return f;
  return -1;
}

/* A pickle starts with the PROTO opcode (0x80) and its version, 2 to 5
** since Python 3.0; torch.save with _use_new_zipfile_serialization=False
** writes pickles (docs/FORMATS.md#pytorch-checkpoints).  torch.save's
** default zip is caught by the npz reader, which sees its data.pkl. */
const char *sq_file_unread_kind(const unsigned char *p, size_t n) {
  if (n >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5)
    return "a Python pickle (a PyTorch checkpoint saved by torch.save with "
           "_use_new_zipfile_serialization=False, or another pickle) is not "
           "read: " SQ_TORCH_ADVICE;
  return NULL;
}

int sq_is_npy(const void *p, size_t n) {
  return sq_format_has_magic(&sq_formats[SQ_FILE_NPY], p, n);
}

void sq_file_format_names(sq_names *l) {
  for (int i = 0; i < SQ_FILE_NFORMATS; i++) sq_names_add(l, sq_format_names[i]);
}

int sq_file_format_parse(const char *text, size_t len, sq_file_format *f,
                         sq_status *st) {
  for (int i = 0; i < SQ_FILE_NFORMATS; i++) {
    if (sq_word_is(text, len, sq_format_names[i])) {
      *f = (sq_file_format)i;
      return SQ_OK;
    }
  }
  sq_names valid;
  sq_names_begin(&valid);
  sq_file_format_names(&valid);
  return sq_fail(st, "unknown file format '%.*s' (expected %s)",
                 len > 40 ? 40 : (int)len, text,
                 sq_names_join(&valid, ", ", " or "));
}

int sq_file_read_source(sq_source *src, sq_file_format f, int want_meta,
                        sq_file_index *ix, sq_status *st) {
  const char *name = sq_format_names[f];
  memset(ix, 0, sizeof *ix);
  if (!sq_format_readers[f]) {  /* a format the catalogue says is written only */
    sq_source_end_parse(src);
    return sq_fail(st, "%s: files of this format are written, not read", name);
  }
  if (src->size > (uint64_t)SIZE_MAX) {
    sq_source_end_parse(src);
    return sq_fail(st, "%s: the %llu-byte file is too large for this system",
                   name, (unsigned long long)src->size);
  }
  sq_file_index_begin(ix, name, src->size);
  if (sq_format_readers[f](src, want_meta, ix, st)) sq_file_index_free(ix);
  sq_source_end_parse(src);
  return st->code;
}

int sq_file_read(const unsigned char *p, size_t n, sq_file_format f,
                 int want_meta, sq_file_index *ix, sq_status *st) {
  sq_source src;
  sq_source_memory(&src, p, n);
  int rc = sq_file_read_source(&src, f, want_meta, ix, st);
  sq_source_close(&src);
  return rc;
}

/* ---- the writers (writer.h) ---- */

const sq_writer_ops *sq_file_writer_ops(sq_file_format f) {
  return sq_formats[f].writer;
}

void sq_file_writer_init(sq_file_writer *w, sq_file_format f) {
  memset(w, 0, sizeof *w);
  w->ops = sq_formats[f].writer;
  w->ops->init(w);
}

int sq_file_writer_add(sq_file_writer *w, const char *name, size_t name_len,
                       const char *dtype, size_t dtype_len,
                       const sq_shape *shape, const void *data, size_t nbytes,
                       sq_status *st) {
  return w->ops->add(w, name, name_len, dtype, dtype_len, shape, data, nbytes,
                     st);
}

int sq_file_writer_metadata(sq_file_writer *w, const char *json, size_t len,
                            sq_status *st) {
  return w->ops->metadata(w, json, len, st);
}

int sq_file_writer_finish(sq_file_writer *w, unsigned char **out,
                          uint64_t *outn, sq_status *st) {
  return w->ops->finish(w, out, outn, st);
}

void sq_file_writer_free(sq_file_writer *w) {
  if (w->ops) w->ops->free(w);
  memset(w, 0, sizeof *w);
}

#ifndef SQLITE_QUANT_OMIT_FS
int sq_file_writer_open(sq_file_writer *w, sq_file_format f,
                        sq_staged *target, sq_status *st) {
  memset(w, 0, sizeof *w);
  w->ops = sq_formats[f].writer;
  return w->ops->open(w, target, st);
}

int sq_file_writer_seal(sq_file_writer *w, uint64_t *size, sq_status *st) {
  return w->ops->seal(w, size, st);
}

int sq_file_writer_commit(sq_file_writer *w, sq_status *st) {
  return w->ops->commit(w, st);
}

sq_staged *sq_file_writer_staged(const sq_file_writer *w) {
  return w->ops->staged(w);
}

void sq_file_writer_mark(const sq_file_writer *w, sq_writer_mark *m) {
  memset(m, 0, sizeof *m);
  w->ops->mark(w, m);
}

int sq_file_writer_rewind(sq_file_writer *w, const sq_writer_mark *m,
                          sq_status *st) {
  return w->ops->rewind(w, m, st);
}
#endif /* SQLITE_QUANT_OMIT_FS */
