/*
** flatbuffer.h: a strict reader of FlatBuffers binary data
** (docs/FORMATS.md#tflite), for readers of formats built on it (TFLite).
**
** The wire format, as the FlatBuffers documentation defines it: the buffer
** begins with a u32 offset to the root table (and, optionally, a 4-byte file
** identifier).  A table begins with an i32 soffset: its vtable lies at
** table - soffset.  A vtable is u16 vtable size, u16 table size, then one u16
** per field: the field's offset inside the table, 0 when the field is absent
** (its default applies).  Offset fields (tables, vectors, strings) hold a u32
** uoffset relative to the field's own position.  A vector is a u32 element
** count followed by the elements; a string a u32 byte count, the bytes and a
** NUL.  Everything is little-endian.
**
** The rules this reader holds, so that no byte outside [0, n) is ever read:
**   1. every position is computed in 64 bits and checked against n before
**      use (uoffsets, soffsets, vtable and table sizes, vector lengths times
**      element sizes);
**   2. a field must lie inside its table's declared size, and the table
**      inside the buffer; a vtable's size is even and at least 4;
**   3. a uoffset of 0 (pointing at itself) is refused, so nothing loops;
**   4. strings must end with their NUL and be valid UTF-8;
**   5. nothing assumes alignment: every load is a byteorder helper
**      (memcpy), so misaligned data reads the same on every host;
**   5a. bytes are taken from the source as spans (formats/source.h): only the
**      tables, vtables, vectors and strings the caller reaches, never the
**      rest of the buffer;
**   6. nothing recurses: the caller walks its schema's fixed depth.
** Errors go to fb->st as "<format>: <what>: <problem>", where what is the
** caller's path to the value ("subgraphs[1].tensors[3].name").
*/
#ifndef SQ_FLATBUFFER_H
#define SQ_FLATBUFFER_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "formats/source.h"

typedef struct sq_fb {
  sq_source *src;               /* the buffer (spanned: formats/source.h) */
  size_t n;
  const char *format;           /* the error prefix: "tflite" */
  sq_status *st;
} sq_fb;

/* A checked table: its position, its vtable's and their sizes. */
typedef struct sq_fb_table {
  size_t pos, vt;
  uint16_t vsize, tsize;
} sq_fb_table;

/* A checked vector: where its first element lies and how many there are
** (len x the element size was checked to fit in the buffer). */
typedef struct sq_fb_vector {
  size_t pos;
  uint32_t len;
} sq_fb_vector;

/* The root table (the u32 at byte 0); the buffer must hold at least the
** root offset and a 4-byte file identifier. */
int sq_fb_root(sq_fb *fb, sq_fb_table *root);

/* Scalars of field i: def when absent. */
int sq_fb_u8(sq_fb *fb, const sq_fb_table *t, int i, uint8_t def, uint8_t *out,
             const char *what);
int sq_fb_u32(sq_fb *fb, const sq_fb_table *t, int i, uint32_t def,
              uint32_t *out, const char *what);
int sq_fb_u64(sq_fb *fb, const sq_fb_table *t, int i, uint64_t def,
              uint64_t *out, const char *what);
/* 1 when field i is present in the vtable, 0 when absent. */
int sq_fb_has(const sq_fb_table *t, int i);

/* Field i as a table; *present 0 (and out untouched) when absent. */
int sq_fb_table_field(sq_fb *fb, const sq_fb_table *t, int i,
                      sq_fb_table *out, int *present, const char *what);
/* Field i as a vector of elem_size-byte elements (absent: 0 elements). */
int sq_fb_vector_field(sq_fb *fb, const sq_fb_table *t, int i,
                       size_t elem_size, sq_fb_vector *out, const char *what);
/* Field i as a string (NUL-terminated, UTF-8); absent: *present 0 and an
** empty string. */
int sq_fb_string_field(sq_fb *fb, const sq_fb_table *t, int i,
                       const unsigned char **s, uint32_t *len, int *present,
                       const char *what);
/* Element k (< v->len) of a vector of tables. */
int sq_fb_vector_table(sq_fb *fb, const sq_fb_vector *v, uint32_t k,
                       sq_fb_table *out, const char *what);

/* A little-endian u64 at any alignment. */
uint64_t sq_fb_load_u64(const unsigned char *p);
/* Bytes [pos, pos + len) of the buffer (a checked vector's elements, say):
** valid until the parse ends; NULL with the error in fb->st. */
const unsigned char *sq_fb_bytes(sq_fb *fb, size_t pos, size_t len);

#endif
