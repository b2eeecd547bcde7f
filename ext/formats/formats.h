/*
** formats.h: the model-file formats, one descriptor row each
** (docs/FORMATS.md; adding one: docs/ARCHITECTURE.md#adding-a-file-format).
**
** The formats are declared in ext/catalogue.toml (their names, and which
** are read: core/catalogue.h); the table in formats.c adds per format how
** its first bytes are recognised and its writer when rows can write it.
** Everything that depends on the set of formats reads the two: detection,
** the format argument of q_tensors and its error's list, the readers'
** dispatch, and the path writer tables of the SQL layer
** (ext/sql/write_tables.c: one table q_<name>_write per row that has a
** writer).  The rules:
**
**   1. detection tries the rows that have magic bytes first, in table
**      order, then the rows that guess from the bytes' shape (safetensors'
**      header length, ONNX's first fields), in table order: a guess never
**      wins over a format whose magic bytes match;
**   2. a reader keeps the rules of formats/index.h and names its format at
**      the start of every error ("gguf: ...");
**   3. a writer is the interface of formats/writer.h.
*/
#ifndef SQ_FORMATS_H
#define SQ_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include "core/catalogue.h"
#include "core/status.h"
#include "formats/index.h"
#include "formats/source.h"

/* The file formats of ext/catalogue.toml, in its order (core/catalogue.h);
** sq_formats has a row for each. */
#define SQ_FILE_ENUM(name, NAME) SQ_FILE_##NAME,
typedef enum sq_file_format {
  SQ_CATALOGUE_FILE_FORMATS(SQ_FILE_ENUM)
  SQ_FILE_NFORMATS
} sq_file_format;
#undef SQ_FILE_ENUM

/* The bytes detection looks at: no row looks further. */
#define SQ_FILE_DETECT_BYTES 16

/* The format the first n bytes at p say (rule 1), or -1. */
int sq_file_detect(const unsigned char *p, size_t n);
/* For first bytes no format takes: what such a file is, when it is one
** people pass by mistake, as a sentence for the error; NULL otherwise. */
const char *sq_file_unread_kind(const unsigned char *p, size_t n);
/* The advice of the PyTorch messages (here and the npz reader's). */
#define SQ_TORCH_ADVICE                                                        \
  "save the tensors as safetensors (safetensors.torch.save_file("              \
  "model.state_dict(), 'model.safetensors')) and read that"

/* A format by its name (any case); the error lists them. */
int sq_file_format_parse(const char *text, size_t len, sq_file_format *f,
                         sq_status *st);
const char *sq_file_format_name(sq_file_format f);
/* Adds every format's name to a message's list (core/text.h). */
struct sq_names;
void sq_file_format_names(struct sq_names *l);

/* Reads the index of the source in format f (want_meta: the metadata
** too), then drops the source's span cache.  On error the index is freed
** and st says what is wrong, naming the format ("safetensors: header length
** 4096 is past the end of the 100-byte file"). */
int sq_file_read_source(sq_source *src, sq_file_format f, int want_meta,
                        sq_file_index *ix, sq_status *st);
/* The same over n bytes in memory. */
int sq_file_read(const unsigned char *p, size_t n, sq_file_format f,
                 int want_meta, sq_file_index *ix, sq_status *st);

/* The readers and their guesses (the rows' entries). */
int sq_safetensors_read(sq_source *src, int want_meta, sq_file_index *ix,
                        sq_status *st);
int sq_safetensors_guess(const unsigned char *p, size_t n);
int sq_gguf_read(sq_source *src, int want_meta, sq_file_index *ix,
                 sq_status *st);
int sq_npy_read(sq_source *src, int want_meta, sq_file_index *ix,
                sq_status *st);
int sq_npz_read(sq_source *src, int want_meta, sq_file_index *ix,
                sq_status *st);
int sq_onnx_read(sq_source *src, int want_meta, sq_file_index *ix,
                 sq_status *st);
int sq_onnx_guess(const unsigned char *p, size_t n);
int sq_tflite_read(sq_source *src, int want_meta, sq_file_index *ix,
                   sq_status *st);

/* .npy bytes as a float tensor argument (npy_argument.c): sq_is_npy says
** whether p starts with the .npy magic; sq_tensor_from_npy reads the
** header and converts any supported dtype to an owned float32 buffer
** (docs/NUMERICS.md#float-tensors).  argname names the argument. */
int sq_is_npy(const void *p, size_t n);
int sq_tensor_from_npy(const sq_kernels *k, const unsigned char *p, size_t n,
                       const char *argname, sq_tensor *t, sq_status *st);

#endif
