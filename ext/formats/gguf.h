/*
** gguf.h: what GGUF's reader (gguf_read.c) and writer (gguf_write.c) share
** (docs/FORMATS.md#gguf): ggml's limits, the default alignment, the
** metadata value types as the file numbers them, and the tensor types by
** name.
*/
#ifndef SQ_GGUF_H
#define SQ_GGUF_H

#include <stddef.h>
#include <stdint.h>

#define GGUF_MAX_DIMS 4            /* ggml's GGML_MAX_DIMS */
#define GGUF_MAX_NAME 64           /* ggml's GGML_MAX_NAME, with the NUL */
#define GGUF_DEFAULT_ALIGNMENT 32  /* without general.alignment */

/* The metadata value types, and their names (the type column of
** q_tensor_metadata, the "type" of the writer's metadata). */
enum {
  GGUF_U8, GGUF_I8, GGUF_U16, GGUF_I16, GGUF_U32, GGUF_I32, GGUF_F32,
  GGUF_BOOL, GGUF_STRING, GGUF_ARRAY, GGUF_U64, GGUF_I64, GGUF_F64,
  GGUF_NTYPES
};
extern const char *const sq_gguf_type_names[GGUF_NTYPES];

/* A ggml tensor type by its reader name (any case): its id, the reader's
** spelling, block size and bytes per block; 0 when there is none. */
int sq_gguf_type_named(const char *s, size_t len, uint32_t *id,
                       const char **name, uint64_t *block, uint64_t *bytes);
/* Adds the names of the GGUF types that are one element per weight (f32,
** the integers ...; not ggml's block types) to a message's list, in the
** catalogue's order. */
struct sq_names;
void sq_gguf_element_type_names(struct sq_names *l);

#endif
