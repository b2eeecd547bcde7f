/*
** model_mutate.h: the input layout of build/fuzz_models and its
** structure-aware mutator (tests/fuzz/model_mutate.c).
**
** An input is MM_CTL control bytes, then up to MM_MAX_FILES files, each
**   u8 name length, the name, u32 little-endian length, the bytes.
** The first file is the model; the others sit beside it in the same
** directory (ONNX external data names them).  Bytes that run out give the
** files read so far; a length past the end is cut at the end.  Names are
** made safe for a directory (mm_parse): [A-Za-z0-9._-] only, other bytes
** become '_', never "." or "..", at most MM_NAME_MAX bytes; a name already
** taken, or an empty one, drops the file.
**
** The control bytes (tests/fuzz/fuzz_models.c says what each does):
**   ctl[0]  bits 0-2 the seed's format (0-5 as sq_file_format, 6-7 none),
**           bit 3 pass it as the format argument, bits 4-7 the small
**           length limit
**   ctl[1]  the writer and its transaction
**   ctl[2]  q_compare: options, axis, which tensor
**   ctl[3]  the writer's metadata
*/
#ifndef MODEL_MUTATE_H
#define MODEL_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#define MM_CTL 4
#define MM_MAX_FILES 4
#define MM_NAME_MAX 32

typedef struct mm_file {
  char name[MM_NAME_MAX + 1];
  const uint8_t *p;
  size_t n;
} mm_file;

typedef struct mm_input {
  uint8_t ctl[MM_CTL];
  int nfiles;
  mm_file f[MM_MAX_FILES];
} mm_input;

/* Splits data into its control bytes and files (pointers into data). */
void mm_parse(const uint8_t *data, size_t size, mm_input *in);

/* The format a model's bytes look like (0-5 as sq_file_format), or -1:
** the control byte's when it names one, else the magic. */
int mm_format(const mm_input *in);

/* libFuzzer's custom mutator: one structure-aware change of data. */
size_t mm_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed);

#endif
