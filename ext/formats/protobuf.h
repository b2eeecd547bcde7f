/*
** protobuf.h: a reader of the protocol buffers wire format, for the ONNX
** reader (docs/FORMATS.md#onnx).
**
** A message is a sequence of fields, each a varint tag (field number << 3 |
** wire type) and a value: wire type 0 a varint, 1 eight bytes, 2 a varint
** length and that many bytes (strings, bytes, sub-messages, packed repeated
** numbers), 5 four bytes.  Groups (wire types 3 and 4, deprecated since
** proto2 and never written by ONNX) are refused.  Every read is checked
** against the end of the message first: a varint may take at most 10 bytes
** and must fit 64 bits, a length must lie inside what is left.  Nothing here
** recurses; callers that descend into sub-messages bound their own depth.
**
** The bytes come from a source (formats/source.h) by offset: a field says where
** its value lies, and only the tags, lengths and numbers the reader walks
** are taken from the source (through a window, or spanned); a payload is
** taken only by a caller that needs it, so a walk over a message never reads
** the tensor data inside it.
*/
#ifndef SQ_PROTOBUF_H
#define SQ_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>
#include "formats/source.h"

enum { SQ_PB_VARINT = 0, SQ_PB_I64 = 1, SQ_PB_LEN = 2, SQ_PB_I32 = 5 };

/* Why a read failed (sq_pb_error_text names it); SQ_PB_IO: the source could
** not be read, and the reader's status says why. */
enum { SQ_PB_OK = 0, SQ_PB_TRUNCATED, SQ_PB_OVERFLOW, SQ_PB_PAST_END,
       SQ_PB_GROUP, SQ_PB_BAD_WIRE, SQ_PB_BAD_FIELD, SQ_PB_IO };

/* One field: its number, wire type and value.  off/len are where the
** value's bytes lie in the source (for SQ_PB_LEN the payload after the
** length); u holds the number of the other wire types (I32 and I64 read
** little-endian). */
typedef struct sq_pb_field {
  uint32_t number;
  int wire;
  uint64_t u;
  uint64_t off, len;
  uint64_t at;              /* offset of the field's tag in the source */
} sq_pb_field;

/* A read position in the bytes [pos, end) of a source (a message, or part
** of one).  win: the window the walk reads through, or NULL to span (the
** index's parse only: spans stay until it ends). */
typedef struct sq_pb_reader {
  sq_source *src;
  sq_window *win;
  sq_status *st;
  uint64_t pos, end;
} sq_pb_reader;

/* A varint at r; SQ_PB_TRUNCATED or SQ_PB_OVERFLOW (more than 10 bytes, or
** bits past 64). */
int sq_pb_varint(sq_pb_reader *r, uint64_t *v);
/* The next field of the message at r (r->pos < r->end); on error r->pos is
** where the bad field begins.  Field number 0 and numbers past 2^29 - 1 are
** SQ_PB_BAD_FIELD. */
int sq_pb_next(sq_pb_reader *r, sq_pb_field *f);
/* A short description of an error code ("truncated varint", ...). */
const char *sq_pb_error_text(int err);

#endif
