/*
** protobuf.c: the protocol buffers wire format (protobuf.h).
*/
#include "formats/protobuf.h"
#include "kernels/byteorder.h"

/* k bytes at off (the caller checked they lie in the message). */
static const unsigned char *sq_pb_bytes(sq_pb_reader *r, uint64_t off,
                                        size_t k) {
  return r->win ? sq_window_get(r->win, r->src, off, k, r->st)
                : sq_source_span(r->src, off, k, r->st);
}

int sq_pb_varint(sq_pb_reader *r, uint64_t *v) {
  uint64_t left = r->end - r->pos;
  if (r->pos >= r->end) return SQ_PB_TRUNCATED;
  size_t k = left < 10 ? (size_t)left : 10;
  const unsigned char *p = sq_pb_bytes(r, r->pos, k);
  if (!p) return SQ_PB_IO;
  /* On an error the position is past the bytes looked at, as a reader
  ** that takes them one by one leaves it (messages quote it). */
  uint64_t x = 0;
  for (size_t i = 0; i < 10; i++) {
    if (i >= k) {
      r->pos = r->end;
      return SQ_PB_TRUNCATED;
    }
    unsigned b = p[i];
    /* The tenth byte holds bit 63 only. */
    if (i == 9 && b > 1) {
      r->pos += 10;
      return SQ_PB_OVERFLOW;
    }
    x |= (uint64_t)(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) {
      r->pos += i + 1;
      *v = x;
      return SQ_PB_OK;
    }
  }
  r->pos += 10;
  return SQ_PB_OVERFLOW;
}

int sq_pb_next(sq_pb_reader *r, sq_pb_field *f) {
  uint64_t at = r->pos;
  uint64_t tag;
  int err = sq_pb_varint(r, &tag);
  if (err) {
    r->pos = at;
    return err;
  }
  f->at = at;
  f->wire = (int)(tag & 7);
  f->off = r->pos;
  f->len = 0;
  f->u = 0;
  if ((tag >> 3) == 0 || (tag >> 3) > 0x1FFFFFFF) {
    r->pos = at;
    return SQ_PB_BAD_FIELD;
  }
  f->number = (uint32_t)(tag >> 3);
  const unsigned char *p;
  switch (f->wire) {
    case SQ_PB_VARINT:
      err = sq_pb_varint(r, &f->u);
      if (!err) f->len = r->pos - f->off;
      break;
    case SQ_PB_I64:
      if (r->end - r->pos < 8) {
        err = SQ_PB_TRUNCATED;
      } else if (!(p = sq_pb_bytes(r, r->pos, 8))) {
        err = SQ_PB_IO;
      } else {
        f->u = (uint64_t)sq_load_u32(p) | ((uint64_t)sq_load_u32(p + 4) << 32);
        r->pos += 8;
        f->len = 8;
      }
      break;
    case SQ_PB_I32:
      if (r->end - r->pos < 4) {
        err = SQ_PB_TRUNCATED;
      } else if (!(p = sq_pb_bytes(r, r->pos, 4))) {
        err = SQ_PB_IO;
      } else {
        f->u = sq_load_u32(p);
        r->pos += 4;
        f->len = 4;
      }
      break;
    case SQ_PB_LEN: {
      uint64_t len;
      err = sq_pb_varint(r, &len);
      if (!err && len > r->end - r->pos) err = SQ_PB_PAST_END;
      if (!err) {
        f->off = r->pos;
        f->len = len;
        r->pos += len;
      }
      break;
    }
    case 3: case 4:
      err = SQ_PB_GROUP;
      break;
    default:
      err = SQ_PB_BAD_WIRE;
      break;
  }
  if (err) r->pos = at;
  return err;
}

const char *sq_pb_error_text(int err) {
  switch (err) {
    case SQ_PB_TRUNCATED: return "truncated field";
    case SQ_PB_OVERFLOW: return "varint longer than 64 bits";
    case SQ_PB_PAST_END: return "length past the end of its message";
    case SQ_PB_GROUP: return "group fields (wire types 3 and 4) are not "
                             "supported";
    case SQ_PB_BAD_WIRE: return "unknown wire type";
    case SQ_PB_BAD_FIELD: return "field number 0 or past 2^29 - 1";
    case SQ_PB_IO: return "the file could not be read";
    default: return "no error";
  }
}
