/*
** onnx_read.c: the ONNX reader (docs/FORMATS.md#onnx).
**
** An .onnx file is one ModelProto in the protocol buffers wire format
** (protobuf.h).  The tensors are every graph's initializers and every
** Constant node's value, in the main graph and in the subgraphs held by node
** attributes (If's branches, Loop's and Scan's bodies, at any depth up to
** ONNX_MAX_DEPTH); the metadata the model's own fields, its opset imports and
** its metadata_props.  Per graph, the initializers come first, then the
** nodes in order, each node's subgraphs walked where the node stands.
**
** The walk takes the bytes from a source (formats/source.h) by offset: field
** headers through a window, the strings it keeps (names, locations,
** metadata) as spans, and never a tensor's data, which is recorded by offset
** and read when a row asks for it.  Subgraph scopes are nodes of the
** index's scope tree: a node's label once, each graph attribute's name
** once, each graph's "[i]" (formats/index.h), so nesting costs the labels
** once however many tensors lie below them.
**
** Tensor data is kept three ways:
**   1. raw_data: little-endian bytes in the file, read at their offset;
**   2. typed fields (float_data, int32_data, int64_data, double_data,
**      uint64_data; a Constant's value_float(s)/value_int(s)): numbers in
**      protobuf encodings, packed or not, decoded by onnx_decode_field on
**      each read from the message that holds them;
**   3. external data: bytes in a file beside the model, read by
**      onnx_read_external through a file source (regular files only, as the
**      model itself), only when the model was given as a path (the BLOB
**      variant lists the tensor and refuses its data; so does a build with
**      SQLITE_QUANT_OMIT_FS, which leaves that code out).
** Every count is checked against the shape before a row is listed, so a read
** can fail only on a value out of its dtype's range or on the external file.
*/
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/text.h"
#include "formats/formats.h"
#include "formats/protobuf.h"
#include "kernels/byteorder.h"

/* Subgraphs nested deeper than this are refused (a graph inside a node's
** attribute is one level). */
#define ONNX_MAX_DEPTH 32

/* ---- field numbers of onnx.proto ---- */
enum { MODEL_IR_VERSION = 1, MODEL_PRODUCER_NAME = 2,
       MODEL_PRODUCER_VERSION = 3, MODEL_DOMAIN = 4, MODEL_MODEL_VERSION = 5,
       MODEL_DOC_STRING = 6, MODEL_GRAPH = 7, MODEL_OPSET_IMPORT = 8,
       MODEL_METADATA_PROPS = 14 };
enum { GRAPH_NODE = 1, GRAPH_NAME = 2, GRAPH_INITIALIZER = 5,
       GRAPH_SPARSE_INITIALIZER = 15 };
enum { NODE_OUTPUT = 2, NODE_NAME = 3, NODE_OP_TYPE = 4, NODE_ATTRIBUTE = 5,
       NODE_DOMAIN = 7 };
enum { ATTR_NAME = 1, ATTR_F = 2, ATTR_I = 3, ATTR_T = 5, ATTR_G = 6,
       ATTR_FLOATS = 7, ATTR_INTS = 8, ATTR_GRAPHS = 11,
       ATTR_SPARSE_TENSOR = 22 };
enum { TENSOR_DIMS = 1, TENSOR_DATA_TYPE = 2, TENSOR_SEGMENT = 3,
       TENSOR_FLOAT_DATA = 4, TENSOR_INT32_DATA = 5, TENSOR_STRING_DATA = 6,
       TENSOR_INT64_DATA = 7, TENSOR_NAME = 8, TENSOR_RAW_DATA = 9,
       TENSOR_DOUBLE_DATA = 10, TENSOR_UINT64_DATA = 11,
       TENSOR_EXTERNAL_DATA = 13, TENSOR_DATA_LOCATION = 14 };
enum { ENTRY_KEY = 1, ENTRY_VALUE = 2 };
enum { OPSET_DOMAIN = 1, OPSET_VERSION = 2 };

/* How a typed field's numbers become the dtype's bytes (the decoder's
** src_kind holds one of these in bits 8-15 and the field number in 0-7). */
enum { CONV_F32 = 1,  /* fixed32, as is */
       CONV_F64,      /* fixed64, as is */
       CONV_I64,      /* varint int64 */
       CONV_U64,      /* varint uint64 */
       CONV_U32,      /* varint uint64 in [0, 2^32) */
       CONV_I32,      /* varint int32 (its low 32 bits, as protobuf reads) */
       CONV_I16, CONV_U16, CONV_I8, CONV_U8, CONV_BOOL  /* int32 in range */
};
static const unsigned char onnx_conv_bytes[] = {0, 4, 8, 8, 8, 4, 4, 2, 2,
                                                1, 1, 1};

/* ONNX's TensorProto.DataType: our name, bytes per element (0: 4-bit, two
** per byte), the typed field and its conversion. */
typedef struct onnx_dtype {
  int id;
  const char *name;
  int bytes;
  int field, conv;
} onnx_dtype;

static const onnx_dtype onnx_dtypes[] = {
#define ONNX_DTYPE_ROW(id, name, bytes, field, conv) {id, name, bytes, field, conv},
  SQ_CATALOGUE_ONNX_DTYPES(ONNX_DTYPE_ROW)   /* core/catalogue.h */
#undef ONNX_DTYPE_ROW
};
enum { ONNX_STRING = 8, ONNX_COMPLEX64 = 14, ONNX_COMPLEX128 = 15 };

static const char *onnx_field_name(int field) {
  switch (field) {
    case TENSOR_FLOAT_DATA: return "float_data";
    case TENSOR_INT32_DATA: return "int32_data";
    case TENSOR_INT64_DATA: return "int64_data";
    case TENSOR_DOUBLE_DATA: return "double_data";
    case TENSOR_UINT64_DATA: return "uint64_data";
    case TENSOR_STRING_DATA: return "string_data";
    default: return "field";
  }
}

/* ---- the reader's state ---- */

typedef struct onnx_reader {
  sq_source *src;
  uint64_t n;
  sq_file_index *ix;
  sq_status *st;
  uint32_t scope;           /* the current graph's scope node; 0: main graph */
  sq_window win;            /* what the walks read field headers through */
} onnx_reader;

/* A name for "%.*s" in a message. */
#define ONNX_Q(s, len) sq_file_quote_len((s), (len)), (const char *)(s)

/* A walk over the bytes [off, off + len) of the file, through the
** reader's window. */
static sq_pb_reader onnx_sub(onnx_reader *r, uint64_t off, uint64_t len) {
  sq_pb_reader pr = {r->src, &r->win, r->st, off, off + len};
  return pr;
}

/* The next field of a `what` message, or an error naming where. */
static int onnx_next(onnx_reader *r, sq_pb_reader *pr, sq_pb_field *f,
                     const char *what) {
  int err = sq_pb_next(pr, f);
  if (err)
    return sq_fail(r->st, "onnx: bad %s field at byte %llu: %s", what,
                   (unsigned long long)pr->pos, sq_pb_error_text(err));
  return SQ_OK;
}

/* A known field must have its declared wire type. */
static int onnx_expect(onnx_reader *r, const sq_pb_field *f, int wire,
                       const char *what, const char *field) {
  if (f->wire == wire) return SQ_OK;
  return sq_fail(r->st, "onnx: %s.%s at byte %llu has wire type %d, expected "
                 "%d", what, field, (unsigned long long)f->at, f->wire, wire);
}

/* A string field: length-delimited, valid UTF-8 (names also without NUL);
** its bytes spanned into *s (valid until the parse ends) when s is set. */
static int onnx_string(onnx_reader *r, const sq_pb_field *f, const char *what,
                       const char *field, int is_name,
                       const unsigned char **s) {
  if (onnx_expect(r, f, SQ_PB_LEN, what, field)) return SQ_INVALID;
  const unsigned char *p = sq_source_span(r->src, f->off, f->len, r->st);
  if (!p) return r->st->code;
  size_t len = (size_t)f->len;
  if (is_name && memchr(p, 0, len))
    return sq_fail(r->st, "onnx: %s.%s at byte %llu contains a NUL byte",
                   what, field, (unsigned long long)f->at);
  if (sq_utf8_check(p, len) != len)
    return sq_fail(r->st, "onnx: %s.%s at byte %llu is not valid UTF-8", what,
                   field, (unsigned long long)f->at);
  if (s) *s = p;
  return SQ_OK;
}

/* The last string field `number` (named `field` in messages) of the message
** `what` at [off, off + len): *s and *n, or NULL and 0 when it has none. */
static int onnx_last_string(onnx_reader *r, uint64_t off, uint64_t len,
                            const char *what, uint32_t number,
                            const char *field, int is_name,
                            const unsigned char **s, size_t *n) {
  sq_pb_reader pr = onnx_sub(r, off, len);
  sq_pb_field f;
  *s = NULL;
  *n = 0;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, what)) return SQ_INVALID;
    if (f.number != number) continue;
    if (onnx_string(r, &f, what, field, is_name, s)) return SQ_INVALID;
    *n = (size_t)f.len;
  }
  return SQ_OK;
}

/* ---- typed fields ---- */

/* Counts the values of repeated field `field` in the message [off, off +
** len): each occurrence either one value in the element's own wire type or
** a packed run (length-delimited) of them; varints are checked one by one.
** *first: where the first occurrence's value lies (*has_first 0 if none). */
static int onnx_count_values(onnx_reader *r, uint64_t off, uint64_t len,
                             int field, const char *fname, int conv,
                             const char *name, uint64_t *count,
                             uint64_t *first, int *has_first) {
  int wire = conv == CONV_F32 ? SQ_PB_I32
             : conv == CONV_F64 ? SQ_PB_I64 : SQ_PB_VARINT;
  sq_pb_reader pr = onnx_sub(r, off, len);
  sq_pb_field f;
  *count = 0;
  *first = 0;
  *has_first = 0;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "TensorProto")) return SQ_INVALID;
    if (f.number != (uint32_t)field) continue;
    if (!*has_first) {
      *first = f.off;
      *has_first = 1;
    }
    if (f.wire == wire) {
      (*count)++;
    } else if (f.wire == SQ_PB_LEN && wire != SQ_PB_VARINT) {
      size_t w = wire == SQ_PB_I32 ? 4 : 8;
      if (f.len % w)
        return sq_fail(r->st, "onnx: tensor '%.*s': packed %s at byte %llu "
                       "has %llu bytes, not a multiple of %u", ONNX_Q(name,
                       strlen(name)), fname,
                       (unsigned long long)f.at, (unsigned long long)f.len,
                       (unsigned)w);
      *count += f.len / w;
    } else if (f.wire == SQ_PB_LEN) {
      /* The packed varints are data: walked through the window, never
      ** spanned. */
      sq_pb_reader vr = onnx_sub(r, f.off, f.len);
      while (vr.pos < vr.end) {
        uint64_t v;
        int err = sq_pb_varint(&vr, &v);
        if (err)
          return sq_fail(r->st, "onnx: tensor '%.*s': packed %s at byte %llu: "
                         "%s", ONNX_Q(name, strlen(name)),
                         fname, (unsigned long long)vr.pos,
                         err == SQ_PB_TRUNCATED ? "truncated varint"
                                                : sq_pb_error_text(err));
        (*count)++;
      }
    } else {
      return sq_fail(r->st, "onnx: tensor '%.*s': %s at byte %llu has wire "
                     "type %d, expected %d or 2", ONNX_Q(name, strlen(name)),
                     fname, (unsigned long long)f.at, f.wire,
                     wire);
    }
  }
  return SQ_OK;
}

/* One value v (as read from the wire) into out as the conversion's bytes;
** an int32_data value outside the dtype's range is an error. */
static int onnx_convert(const sq_file_tensor *t, int conv, uint64_t v,
                        unsigned char *out, sq_status *st) {
  int64_t lo = 0, hi = 0;
  int32_t i32 = (int32_t)(uint32_t)(v & 0xFFFFFFFFu);
  switch (conv) {
    case CONV_F32:
      sq_store_u32(out, (uint32_t)v);
      return SQ_OK;
    case CONV_F64: case CONV_I64: case CONV_U64:
      sq_store_u32(out, (uint32_t)v);
      sq_store_u32(out + 4, (uint32_t)(v >> 32));
      return SQ_OK;
    case CONV_U32:
      if (v > 0xFFFFFFFFu)
        return sq_fail(st, "onnx: tensor '%.*s': uint64_data value %llu is "
                       "out of range for uint32", ONNX_Q(t->name,
                       strlen(t->name)), (unsigned long long)v);
      sq_store_u32(out, (uint32_t)v);
      return SQ_OK;
    case CONV_I32:
      sq_store_u32(out, (uint32_t)i32);
      return SQ_OK;
    case CONV_I16: lo = -32768; hi = 32767; break;
    case CONV_U16: lo = 0; hi = 65535; break;
    case CONV_I8: lo = -128; hi = 127; break;
    case CONV_U8: lo = 0; hi = 255; break;
    default: lo = 0; hi = 1; break; /* CONV_BOOL */
  }
  if (i32 < lo || i32 > hi)
    return sq_fail(st, "onnx: tensor '%.*s': int32_data value %ld is out of "
                   "range for %s", ONNX_Q(t->name, strlen(t->name)),
                   (long)i32, t->dtype);
  if (onnx_conv_bytes[conv] == 2)
    sq_store_u16(out, (uint16_t)(uint32_t)i32);
  else
    out[0] = (unsigned char)(i32 & 0xFF);
  return SQ_OK;
}

/* A value's bytes [b0, b0 + es) kept where they fall in [start, end). */
static int onnx_keep(const sq_file_tensor *t, int conv, uint64_t val,
                     uint64_t b0, uint64_t es, uint64_t start, uint64_t end,
                     unsigned char *out, sq_status *st) {
  if (b0 + es <= start) return SQ_OK;
  unsigned char tmp[8];
  if (onnx_convert(t, conv, val, tmp, st)) return st->code;
  uint64_t from = b0 < start ? start - b0 : 0;
  uint64_t to = b0 + es > end ? end - b0 : es;
  memcpy(out + (b0 + from - start), tmp + from, (size_t)(to - from));
  return SQ_OK;
}

/* The walk of onnx_decode_field over its message, through window w. */
static int onnx_decode_walk(sq_source *src, sq_window *w,
                            const sq_file_tensor *t, uint64_t start,
                            uint64_t len, unsigned char *out, sq_status *st) {
  uint32_t field = t->src_kind & 0xFF;
  int conv = (int)((t->src_kind >> 8) & 0xFF);
  uint64_t es = onnx_conv_bytes[conv];
  int wire = conv == CONV_F32 ? SQ_PB_I32
             : conv == CONV_F64 ? SQ_PB_I64 : SQ_PB_VARINT;
  uint64_t end = start + len;
  uint64_t k = 0;               /* the index of the next value */
  sq_pb_reader pr = {src, w, st, t->src_offset, t->src_offset + t->src_nbytes};
  while (pr.pos < pr.end && k * es < end) {
    sq_pb_field f;
    if (sq_pb_next(&pr, &f))
      return sq_fail(st, "onnx: tensor '%.*s': its message changed",
                     ONNX_Q(t->name, strlen(t->name)));
    if (f.number != field) continue;
    int packed = f.wire == SQ_PB_LEN;
    if (!packed) {
      if (onnx_keep(t, conv, f.u, k * es, es, start, end, out, st))
        return st->code;
      k++;
      continue;
    }
    sq_pb_reader vr = {src, w, st, f.off, f.off + f.len};
    if (wire != SQ_PB_VARINT) {
      /* A packed fixed-width run: skip the values before start at once,
      ** then take the rest a window at a time. */
      uint64_t m = f.len / es;
      if ((k + m) * es <= start) {
        k += m;
        continue;
      }
      if (k * es < start) {
        uint64_t skip = start / es - k;
        vr.pos += skip * es;
        k += skip;
      }
      while (k * es < end && vr.end - vr.pos >= es) {
        uint64_t n = (vr.end - vr.pos) / es, most = SQ_WINDOW_SIZE / es;
        uint64_t need = (end - k * es + es - 1) / es;
        if (n > most) n = most;
        if (n > need) n = need;
        const unsigned char *q = sq_window_get(w, src, vr.pos,
                                               (size_t)(n * es), st);
        if (!q) return st->code;
        for (uint64_t i = 0; i < n; i++, q += es, k++) {
          uint64_t val = es == 4 ? sq_load_u32(q)
                                 : (uint64_t)sq_load_u32(q) |
                                       ((uint64_t)sq_load_u32(q + 4) << 32);
          if (onnx_keep(t, conv, val, k * es, es, start, end, out, st))
            return st->code;
        }
        vr.pos += n * es;
      }
      continue;
    }
    while (k * es < end && vr.pos < vr.end) {
      uint64_t val;
      if (sq_pb_varint(&vr, &val))
        return sq_fail(st, "onnx: tensor '%.*s': its message changed",
                       ONNX_Q(t->name, strlen(t->name)));
      if (onnx_keep(t, conv, val, k * es, es, start, end, out, st))
        return st->code;
      k++;
    }
  }
  if (k * es < end)
    return sq_fail(st, "onnx: tensor '%.*s': its message changed",
                   ONNX_Q(t->name, strlen(t->name)));
  return SQ_OK;
}

/* The decoder of typed fields: walks the message [src_offset, +src_nbytes)
** for the field, converting each value and keeping the bytes that fall in
** [start, start + len).  The reader counted and checked the values.  The
** walk reads through the cursor's window (or one of its own). */
static int onnx_decode_field(const sq_file_view *v, const sq_file_tensor *t,
                             uint64_t start, uint64_t len, unsigned char *out,
                             sq_status *st) {
  if (t->src_offset > v->src->size ||
      t->src_nbytes > v->src->size - t->src_offset)
    return sq_fail(st, "onnx: tensor '%.*s': its data lies outside the file",
                   ONNX_Q(t->name, strlen(t->name)));
  sq_window own = {NULL, 0, 0};
  sq_window *w = v->stream ? &v->stream->win : &own;
  int rc = onnx_decode_walk(v->src, w, t, start, len, out, st);
  sq_window_free(&own);
  return rc;
}

/* ---- external data ---- */

/* A location must name a file inside the model's directory: relative, not
** empty, without NUL, without a `..` component (`/` and `\` both separate). */
static int onnx_location_ok(const unsigned char *s, size_t len) {
  if (len == 0 || len > 4096 || memchr(s, 0, len)) return 0;
  if (s[0] == '/' || s[0] == '\\') return 0;
  size_t i = 0;
  while (i < len) {
    size_t j = i;
    while (j < len && s[j] != '/' && s[j] != '\\') j++;
    if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') return 0;
    i = j + 1;
  }
  return 1;
}

/* A decimal offset or length of external_data: digits only, below 2^63. */
static int onnx_parse_size(const unsigned char *s, size_t len, uint64_t *out) {
  uint64_t v = 0;
  if (len == 0 || len > 19) return 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v > (uint64_t)INT64_MAX) return 0;
  *out = v;
  return 1;
}

#ifndef SQLITE_QUANT_OMIT_FS
/* External data: the file `location` in the model's directory, which must
** resolve (symbolic links followed) to a regular file inside that
** directory; bytes [src_offset + start, + len) read through a file source
** (formats/source.h: opened without blocking, regular files only, a change
** while it is read is an error).  The path code: left out by
** SQLITE_QUANT_OMIT_FS (docs/ARCHITECTURE.md#registration). */
static int onnx_read_external(const sq_file_view *v, const sq_file_tensor *t,
                              uint64_t start, uint64_t len,
                              unsigned char *out, sq_status *st) {
  int nl = sq_file_quote_len(t->name, strlen(t->name));
  int ll = sq_file_quote_len(t->location, strlen(t->location));
  const char *path = v->src->model_path;
  char *buf = sq_alloc_internal(st, 3, PATH_MAX + 1);
  if (!buf) return st->code;
  char *dir = buf, *full = buf + PATH_MAX + 1, *real = full + PATH_MAX + 1;
  int rc = SQ_OK;
  sq_source ext;
  memset(&ext, 0, sizeof ext);
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) : 1;
  if (slash && dlen == 0) dlen = 1; /* the root directory */
  size_t llen = strlen(t->location);
  if (dlen + 1 + llen > PATH_MAX) {
    rc = sq_fail(st, "onnx: tensor '%.*s': the path of its external file is "
                 "too long", nl, t->name);
    goto done;
  }
  memcpy(full, slash ? path : ".", dlen);
  full[dlen] = 0;
  if (!realpath(full, dir)) {
    rc = sq_fail(st, "onnx: tensor '%.*s': cannot resolve the model's "
                 "directory", nl, t->name);
    goto done;
  }
  full[dlen] = '/';
  memcpy(full + dlen + 1, t->location, llen + 1);
  if (!realpath(full, real)) {
    rc = sq_fail(st, "onnx: tensor '%.*s': cannot open its external file "
                 "'%.*s'%s", nl, t->name, ll, t->location,
                 errno == ENOENT ? ": no such file" : "");
    goto done;
  }
  size_t rl = strlen(dir);
  if (!(strncmp(real, dir, rl) == 0 &&
        (real[rl] == '/' || (rl == 1 && dir[0] == '/')))) {
    rc = sq_fail(st, "onnx: tensor '%.*s': external file '%.*s' lies outside "
                 "the model's directory", nl, t->name, ll, t->location);
    goto done;
  }
  /* real has no symbolic link left; SQ_SOURCE_NOFOLLOW keeps it so if one
  ** is put in its place after the check. */
  sq_status sub;
  memset(&sub, 0, sizeof sub);
  sub.max_bytes = st->max_bytes;
  if (sq_source_open(&ext, real, t->location, SQ_SOURCE_NOFOLLOW, &sub)) {
    if (sub.code == SQ_NOMEM) rc = sq_nomem(st);
    else rc = sq_fail(st, "onnx: tensor '%.*s': %s", nl, t->name, sub.msg);
    goto done;
  }
  if (t->src_offset > ext.size || t->nbytes > ext.size - t->src_offset) {
    rc = sq_fail(st, "onnx: tensor '%.*s': %llu bytes at offset %llu are past "
                 "the end of the %llu-byte external file '%.*s'", nl, t->name,
                 (unsigned long long)t->nbytes,
                 (unsigned long long)t->src_offset,
                 (unsigned long long)ext.size, ll, t->location);
    goto done;
  }
  if (sq_source_read(&ext, t->src_offset + start, len, out, &sub))
    rc = sq_fail(st, "onnx: tensor '%.*s': %s", nl, t->name, sub.msg);
done:
  sq_source_close(&ext);
  sqlite3_free(buf);
  return rc;
}
#endif

/* The decoder of external data, which only a model given as a path (the
** file variants) can reach. */
static int onnx_decode_external(const sq_file_view *v, const sq_file_tensor *t,
                                uint64_t start, uint64_t len,
                                unsigned char *out, sq_status *st) {
#ifndef SQLITE_QUANT_OMIT_FS
  if (v->src->model_path)
    return onnx_read_external(v, t, start, len, out, st);
#else
  (void)v; (void)start; (void)len; (void)out;
#endif
  return sq_fail(st, "onnx: tensor '%.*s' keeps its data in the external "
                 "file '%.*s'; read the model with q_tensors_file",
                 sq_file_quote_len(t->name, strlen(t->name)), t->name,
                 sq_file_quote_len(t->location, strlen(t->location)),
                 t->location);
}

/* ---- tensors ---- */

static const onnx_dtype *onnx_dtype_find(uint64_t id) {
  for (size_t i = 0; i < sizeof onnx_dtypes / sizeof *onnx_dtypes; i++)
    if ((uint64_t)onnx_dtypes[i].id == id) return &onnx_dtypes[i];
  return NULL;
}

/* Fills t's dtype, shape and size from dims and data_type (name for
** errors); 1 when the tensor is a STRING tensor, which is skipped. */
static int onnx_shape(onnx_reader *r, sq_file_tensor *t, const char *name,
                      uint64_t off, uint64_t len, const onnx_dtype **dt,
                      uint64_t *count, int *skip) {
  sq_pb_reader pr = onnx_sub(r, off, len);
  sq_pb_field f;
  uint64_t type = 0;
  int has_type = 0;
  int nl = sq_file_quote_len(name, strlen(name));
  *skip = 0;
  t->ndim = 0;
  *count = 1;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "TensorProto")) return SQ_INVALID;
    if (f.number == TENSOR_DATA_TYPE) {
      if (onnx_expect(r, &f, SQ_PB_VARINT, "TensorProto", "data_type"))
        return SQ_INVALID;
      type = f.u;
      has_type = 1;
    } else if (f.number == TENSOR_SEGMENT) {
      return sq_fail(r->st, "onnx: tensor '%.*s' is a segment of a larger "
                     "tensor, which is not supported", nl, name);
    } else if (f.number == TENSOR_DIMS) {
      /* Its own reader: the walk above goes on from pr.pos, which a
      ** shared window serves again. */
      sq_pb_reader vr = onnx_sub(r, f.off, f.len);
      int packed = f.wire == SQ_PB_LEN;
      if (!packed && f.wire != SQ_PB_VARINT)
        return onnx_expect(r, &f, SQ_PB_VARINT, "TensorProto", "dims");
      while (packed ? vr.pos < vr.end : 1) {
        uint64_t d = f.u;
        if (packed && sq_pb_varint(&vr, &d))
          return sq_fail(r->st, "onnx: tensor '%.*s': bad packed dims at byte "
                         "%llu", nl, name, (unsigned long long)vr.pos);
        if (t->ndim == SQ_MAX_DIMS)
          return sq_fail(r->st, "onnx: tensor '%.*s' has more than %d "
                         "dimensions", nl, name, SQ_MAX_DIMS);
        if ((int64_t)d < 0)
          return sq_fail(r->st, "onnx: tensor '%.*s' has a negative dimension "
                         "%lld", nl, name, (long long)(int64_t)d);
        t->dim[t->ndim++] = (int64_t)d;
        if (!packed) break;
      }
    }
  }
  for (int i = 0; i < t->ndim; i++) {
    uint64_t d = (uint64_t)t->dim[i];
    if (d && *count > (uint64_t)INT64_MAX / d)
      return sq_fail(r->st, "onnx: tensor '%.*s' has more than 2^63 elements",
                     nl, name);
    *count *= d;
  }
  if (!has_type || type == 0)
    return sq_fail(r->st, "onnx: tensor '%.*s' has no data_type", nl, name);
  if (type == ONNX_STRING) {
    *skip = 1;
    return SQ_OK;
  }
  if (type == ONNX_COMPLEX64 || type == ONNX_COMPLEX128)
    return sq_fail(r->st, "onnx: tensor '%.*s' is %s, which is not "
                   "supported", nl, name,
                   type == ONNX_COMPLEX64 ? "complex64" : "complex128");
  *dt = onnx_dtype_find(type);
  if (!*dt)
    return sq_fail(r->st, "onnx: tensor '%.*s' has data_type %llu, which is "
                   "not supported", nl, name, (unsigned long long)type);
  snprintf(t->dtype, sizeof t->dtype, "%s", (*dt)->name);
  t->nbytes = (*dt)->bytes ? *count * (uint64_t)(*dt)->bytes
                           : *count / 2 + (*count & 1);
  if ((*dt)->bytes && *count > (uint64_t)INT64_MAX / (uint64_t)(*dt)->bytes)
    return sq_fail(r->st, "onnx: tensor '%.*s' has more than 2^63 bytes", nl,
                   name);
  return SQ_OK;
}

/* Drops the last entry of the index (on an error, or a skipped tensor). */
static void onnx_drop_last(sq_file_index *ix) {
  sq_file_tensor *t = &ix->tensors[--ix->ntensors];
  sqlite3_free(t->name);
  sqlite3_free(t->location);
}

/* One TensorProto [off, off + len): an initializer (name NULL: its own) or
** a Constant's value (name: the node's output). */
static int onnx_tensor(onnx_reader *r, uint64_t off, uint64_t len,
                       const unsigned char *name, size_t name_len) {
  sq_pb_reader pr = onnx_sub(r, off, len);
  sq_pb_field f;
  uint64_t raw = 0, raw_len = 0;
  int has_raw = 0, external = 0;
  const unsigned char *own = NULL;  /* the tensor's own name (the last) */
  size_t own_len = 0;
  const unsigned char *ext_loc = NULL, *ext_off = NULL, *ext_len = NULL;
  size_t ext_loc_len = 0, ext_off_len = 0, ext_len_len = 0;
  int typed[16] = {0};
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "TensorProto")) return SQ_INVALID;
    switch (f.number) {
      case TENSOR_NAME:
        if (onnx_string(r, &f, "TensorProto", "name", 1, &own))
          return SQ_INVALID;
        own_len = (size_t)f.len;
        break;
      case TENSOR_RAW_DATA:
        /* The data: its place only. */
        if (onnx_expect(r, &f, SQ_PB_LEN, "TensorProto", "raw_data"))
          return SQ_INVALID;
        raw = f.off;
        raw_len = f.len;
        has_raw = 1;
        break;
      case TENSOR_DATA_LOCATION:
        if (onnx_expect(r, &f, SQ_PB_VARINT, "TensorProto", "data_location"))
          return SQ_INVALID;
        external = f.u == 1;
        break;
      case TENSOR_EXTERNAL_DATA: {
        if (onnx_expect(r, &f, SQ_PB_LEN, "TensorProto", "external_data"))
          return SQ_INVALID;
        sq_pb_reader er = onnx_sub(r, f.off, f.len);
        sq_pb_field e;
        const unsigned char *key = NULL, *val = NULL;
        size_t kl = 0, vl = 0;
        while (er.pos < er.end) {
          if (onnx_next(r, &er, &e, "StringStringEntryProto"))
            return SQ_INVALID;
          if (e.number == ENTRY_KEY || e.number == ENTRY_VALUE) {
            if (onnx_expect(r, &e, SQ_PB_LEN, "StringStringEntryProto",
                            e.number == ENTRY_KEY ? "key" : "value"))
              return SQ_INVALID;
            const unsigned char *b = sq_source_span(r->src, e.off, e.len,
                                                    r->st);
            if (!b) return r->st->code;
            if (e.number == ENTRY_KEY) { key = b; kl = (size_t)e.len; }
            else { val = b; vl = (size_t)e.len; }
          }
        }
        if (!val) val = (const unsigned char *)"";
        if (kl == 8 && memcmp(key, "location", 8) == 0) {
          ext_loc = val; ext_loc_len = vl;
        } else if (kl == 6 && memcmp(key, "offset", 6) == 0) {
          ext_off = val; ext_off_len = vl;
        } else if (kl == 6 && memcmp(key, "length", 6) == 0) {
          ext_len = val; ext_len_len = vl;
        }
        break;
      }
      default:
        if (f.number < 16) typed[f.number] = 1;
        break;
    }
  }
  if (!name) {
    name = own ? own : (const unsigned char *)"";
    name_len = own_len;
  }
  sq_status *st = r->st;
  sq_file_tensor *t = sq_file_add_tensor(r->ix, (const char *)name, name_len,
                                         st);
  if (!t) return st->code;
  const onnx_dtype *dt = NULL;
  uint64_t count;
  int skip;
  int nl = sq_file_quote_len(t->name, strlen(t->name));
  char shape[64];
  if (onnx_shape(r, t, t->name, off, len, &dt, &count, &skip)) goto fail;
  if (skip) {
    onnx_drop_last(r->ix);
    return SQ_OK;
  }
  t->scope = r->scope;
  sq_file_shape_text(t, shape, sizeof shape);
  if (external) {
    uint64_t eoff = 0, length;
    if (!ext_loc) {
      sq_fail(st, "onnx: tensor '%.*s' has external data without a location",
              nl, t->name);
      goto fail;
    }
    if (!onnx_location_ok(ext_loc, ext_loc_len)) {
      sq_fail(st, "onnx: tensor '%.*s': external data location '%.*s' is not "
              "a relative path inside the model's directory", nl, t->name,
              ONNX_Q(ext_loc, ext_loc_len));
      goto fail;
    }
    if (ext_off && !onnx_parse_size(ext_off, ext_off_len, &eoff)) {
      sq_fail(st, "onnx: tensor '%.*s': external data offset '%.*s' is not a "
              "decimal number", nl, t->name, ONNX_Q(ext_off, ext_off_len));
      goto fail;
    }
    if (ext_len) {
      if (!onnx_parse_size(ext_len, ext_len_len, &length)) {
        sq_fail(st, "onnx: tensor '%.*s': external data length '%.*s' is not "
                "a decimal number", nl, t->name, ONNX_Q(ext_len, ext_len_len));
        goto fail;
      }
      if (length != t->nbytes) {
        sq_fail(st, "onnx: tensor '%.*s': external data length %llu but its "
                "shape %s of %s needs %llu bytes", nl, t->name,
                (unsigned long long)length, shape, t->dtype,
                (unsigned long long)t->nbytes);
        goto fail;
      }
    }
    if (eoff > (uint64_t)INT64_MAX - t->nbytes) {
      sq_fail(st, "onnx: tensor '%.*s': external data offset %llu is too "
              "large", nl, t->name, (unsigned long long)eoff);
      goto fail;
    }
    if (!(t->location = sq_file_strndup(r->ix, ext_loc, ext_loc_len, st)))
      goto fail;
    t->decode = onnx_decode_external;
    t->offset = t->src_offset = eoff;
    t->src_nbytes = t->nbytes;
    return SQ_OK;
  }
  int nfields = 0, field = 0;
  static const int fields[] = {TENSOR_FLOAT_DATA, TENSOR_INT32_DATA,
                               TENSOR_INT64_DATA, TENSOR_DOUBLE_DATA,
                               TENSOR_UINT64_DATA, TENSOR_STRING_DATA};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    if (typed[fields[i]]) {
      nfields++;
      field = fields[i];
    }
  if (has_raw && nfields) {
    sq_fail(st, "onnx: tensor '%.*s' has both raw_data and %s", nl, t->name,
            onnx_field_name(field));
    goto fail;
  }
  if (nfields > 1) {
    sq_fail(st, "onnx: tensor '%.*s' has values in more than one typed field",
            nl, t->name);
    goto fail;
  }
  if (has_raw || nfields == 0) {
    /* raw_data (or no data at all: only an empty tensor has none). */
    if (raw_len != t->nbytes) {
      sq_fail(st, "onnx: tensor '%.*s' raw_data has %llu bytes but its shape "
              "%s of %s needs %llu", nl, t->name, (unsigned long long)raw_len,
              shape, t->dtype, (unsigned long long)t->nbytes);
      goto fail;
    }
    t->offset = has_raw ? raw : off;
    return SQ_OK;
  }
  if (field != dt->field) {
    sq_fail(st, "onnx: tensor '%.*s' of %s keeps its values in %s, expected "
            "%s", nl, t->name, t->dtype, onnx_field_name(field),
            onnx_field_name(dt->field));
    goto fail;
  }
  uint64_t nvalues, want = dt->bytes ? count : t->nbytes, first;
  int has_first;
  if (onnx_count_values(r, off, len, field, onnx_field_name(field), dt->conv,
                        t->name, &nvalues, &first, &has_first))
    goto fail;
  if (nvalues != want) {
    sq_fail(st, "onnx: tensor '%.*s' has %llu values in %s but its shape %s "
            "needs %llu", nl, t->name, (unsigned long long)nvalues,
            onnx_field_name(field), shape, (unsigned long long)want);
    goto fail;
  }
  t->decode = onnx_decode_field;
  t->src_offset = off;
  t->src_nbytes = len;
  t->src_kind = (uint32_t)field | ((uint32_t)dt->conv << 8);
  t->offset = has_first ? first : off;
  return SQ_OK;
fail:
  onnx_drop_last(r->ix);
  return st->code;
}

/* A Constant's value_float, value_floats, value_int or value_ints: an f32 or
** int64 tensor (a scalar, or 1-D) decoded from the attribute message. */
static int onnx_attr_tensor(onnx_reader *r, const unsigned char *name,
                            size_t name_len, uint64_t off, uint64_t len,
                            int field, const char *attr, int conv,
                            int scalar) {
  sq_file_tensor *t = sq_file_add_tensor(r->ix, (const char *)name, name_len,
                                         r->st);
  if (!t) return r->st->code;
  uint64_t n, first;
  int has_first;
  t->scope = r->scope;
  if (onnx_count_values(r, off, len, field, attr, conv, t->name, &n, &first,
                        &has_first))
    goto fail;
  snprintf(t->dtype, sizeof t->dtype, "%s", conv == CONV_F32 ? "f32" : "int64");
  if (scalar) {
    if (n != 1) {
      sq_fail(r->st, "onnx: Constant '%.*s' has %llu values in its scalar "
              "attribute", ONNX_Q(t->name, strlen(t->name)),
              (unsigned long long)n);
      goto fail;
    }
    t->ndim = 0;
  } else {
    t->ndim = 1;
    t->dim[0] = (int64_t)n;
  }
  t->nbytes = n * onnx_conv_bytes[conv];
  t->decode = onnx_decode_field;
  t->src_offset = off;
  t->src_nbytes = len;
  t->src_kind = (uint32_t)field | ((uint32_t)conv << 8);
  t->offset = has_first ? first : off;
  return SQ_OK;
fail:
  onnx_drop_last(r->ix);
  return r->st->code;
}

/* ---- graphs ---- */

static int onnx_graph(onnx_reader *r, uint64_t off, uint64_t len, int depth);

static int onnx_is(const unsigned char *s, size_t len, const char *word) {
  return len == strlen(word) && memcmp(s, word, len) == 0;
}

/* A Constant node's value, named by its first output. */
static int onnx_constant(onnx_reader *r, uint64_t off, uint64_t len,
                         const unsigned char *out, size_t out_len) {
  sq_pb_reader pr = onnx_sub(r, off, len);
  sq_pb_field f;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "NodeProto")) return SQ_INVALID;
    if (f.number != NODE_ATTRIBUTE) continue;
    if (onnx_expect(r, &f, SQ_PB_LEN, "NodeProto", "attribute"))
      return SQ_INVALID;
    sq_pb_reader ar = onnx_sub(r, f.off, f.len);
    sq_pb_field a;
    const unsigned char *an = NULL;
    size_t anl = 0;
    uint64_t t = 0, tl = 0;
    int has_t = 0;
    while (ar.pos < ar.end) {
      if (onnx_next(r, &ar, &a, "AttributeProto")) return SQ_INVALID;
      if (a.number == ATTR_NAME) {
        if (onnx_string(r, &a, "AttributeProto", "name", 1, &an))
          return SQ_INVALID;
        anl = (size_t)a.len;
      } else if (a.number == ATTR_T) {
        if (onnx_expect(r, &a, SQ_PB_LEN, "AttributeProto", "t"))
          return SQ_INVALID;
        t = a.off;
        tl = a.len;
        has_t = 1;
      }
    }
    if (!an) continue;
    if (onnx_is(an, anl, "value")) {
      if (!has_t)
        return sq_fail(r->st, "onnx: Constant '%.*s': attribute value holds "
                       "no tensor", ONNX_Q(out, out_len));
      return onnx_tensor(r, t, tl, out, out_len);
    }
    if (onnx_is(an, anl, "value_float"))
      return onnx_attr_tensor(r, out, out_len, f.off, f.len, ATTR_F,
                              "value_float", CONV_F32, 1);
    if (onnx_is(an, anl, "value_floats"))
      return onnx_attr_tensor(r, out, out_len, f.off, f.len, ATTR_FLOATS,
                              "value_floats", CONV_F32, 0);
    if (onnx_is(an, anl, "value_int"))
      return onnx_attr_tensor(r, out, out_len, f.off, f.len, ATTR_I,
                              "value_int", CONV_I64, 1);
    if (onnx_is(an, anl, "value_ints"))
      return onnx_attr_tensor(r, out, out_len, f.off, f.len, ATTR_INTS,
                              "value_ints", CONV_I64, 0);
    if (onnx_is(an, anl, "sparse_value"))
      return sq_fail(r->st, "onnx: Constant '%.*s' holds a sparse tensor, "
                     "which is not supported", ONNX_Q(out, out_len));
    /* value_string(s): text, not a weight; skipped like STRING tensors. */
  }
  return SQ_OK;
}

/* A NodeProto string field, checked; kept in *s, *len unless s is NULL. */
static int onnx_node_string(onnx_reader *r, const sq_pb_field *f,
                            const char *field, const unsigned char **s,
                            size_t *len) {
  const unsigned char *p;
  if (onnx_string(r, f, "NodeProto", field, 1, &p)) return SQ_INVALID;
  if (s) {
    *s = p;
    *len = (size_t)f->len;
  }
  return SQ_OK;
}

/* One node: a Constant's value, then the subgraphs of its attributes.  The
** scopes below it: the node's label, then each graph attribute's name, then
** for a list of graphs each one's "[i]" (three levels of the scope tree,
** composed "<label>/<attr>[i]"), each made once. */
static int onnx_node(onnx_reader *r, uint64_t off, uint64_t len,
                     uint64_t index, int depth) {
  sq_pb_reader pr = onnx_sub(r, off, len);
  sq_pb_field f;
  const unsigned char *out = NULL, *name = NULL, *op = NULL, *domain = NULL;
  size_t out_len = 0, name_len = 0, op_len = 0, domain_len = 0;
  int has_graphs = 0;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "NodeProto")) return SQ_INVALID;
    switch (f.number) {
      case NODE_OUTPUT: /* the first one names a Constant's tensor */
        if (onnx_node_string(r, &f, "output", out ? NULL : &out, &out_len))
          return SQ_INVALID;
        break;
      case NODE_NAME:
        if (onnx_node_string(r, &f, "name", &name, &name_len))
          return SQ_INVALID;
        break;
      case NODE_OP_TYPE:
        if (onnx_node_string(r, &f, "op_type", &op, &op_len))
          return SQ_INVALID;
        break;
      case NODE_DOMAIN:
        if (onnx_node_string(r, &f, "domain", &domain, &domain_len))
          return SQ_INVALID;
        break;
      case NODE_ATTRIBUTE:
        if (onnx_expect(r, &f, SQ_PB_LEN, "NodeProto", "attribute"))
          return SQ_INVALID;
        has_graphs = 1;
        break;
      default: break;
    }
  }
  if (op && onnx_is(op, op_len, "Constant") &&
      (!domain || domain_len == 0 || onnx_is(domain, domain_len, "ai.onnx"))) {
    if (!out || out_len == 0)
      return sq_fail(r->st, "onnx: Constant node at byte %llu has no output",
                     (unsigned long long)off);
    if (onnx_constant(r, off, len, out, out_len)) return r->st->code;
  }
  if (!has_graphs) return SQ_OK;

  /* The node's label in scopes: its name, or "<op_type>#<index>". */
  char label_buf[96];
  const char *label;
  size_t label_len;
  if (name && name_len) {
    label = (const char *)name;
    label_len = name_len;
  } else {
    int k = snprintf(label_buf, sizeof label_buf, "%.*s#%llu",
                     op ? sq_file_quote_len(op, op_len) : 0,
                     op ? (const char *)op : "", (unsigned long long)index);
    label = label_buf;
    label_len = (size_t)k < sizeof label_buf ? (size_t)k : sizeof label_buf - 1;
  }
  uint32_t node_scope = 0, parent = r->scope;
  pr = onnx_sub(r, off, len);
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "NodeProto")) return SQ_INVALID;
    if (f.number != NODE_ATTRIBUTE) continue;
    const unsigned char *an;
    size_t anl;
    if (onnx_last_string(r, f.off, f.len, "AttributeProto", ATTR_NAME, "name",
                         1, &an, &anl))
      return SQ_INVALID;
    long gi = 0;
    uint32_t attr_scope = 0;
    sq_pb_reader ar = onnx_sub(r, f.off, f.len);
    sq_pb_field a;
    while (ar.pos < ar.end) {
      if (onnx_next(r, &ar, &a, "AttributeProto")) return SQ_INVALID;
      if (a.number != ATTR_G && a.number != ATTR_GRAPHS) continue;
      if (onnx_expect(r, &a, SQ_PB_LEN, "AttributeProto",
                      a.number == ATTR_G ? "g" : "graphs"))
        return SQ_INVALID;
      if (depth >= ONNX_MAX_DEPTH)
        return sq_fail(r->st, "onnx: subgraphs are nested more than %d deep "
                       "(at byte %llu)", ONNX_MAX_DEPTH,
                       (unsigned long long)a.off);
      if (!node_scope &&
          sq_file_add_scope(r->ix, parent, label, label_len, 0, &node_scope,
                            r->st))
        return r->st->code;
      if (!attr_scope &&
          sq_file_add_scope(r->ix, node_scope, an ? (const char *)an : "",
                            an ? anl : 0, 0, &attr_scope, r->st))
        return r->st->code;
      uint32_t graph_scope = attr_scope;
      if (a.number == ATTR_GRAPHS) {
        char idx[32];
        int k = snprintf(idx, sizeof idx, "[%ld]", gi++);
        if (sq_file_add_scope(r->ix, attr_scope, idx, (size_t)k, 1,
                              &graph_scope, r->st))
          return r->st->code;
      }
      r->scope = graph_scope;
      int rc = onnx_graph(r, a.off, a.len, depth + 1);
      r->scope = parent;
      if (rc) return r->st->code;
    }
  }
  return SQ_OK;
}

/* A graph: its initializers, then its nodes in order.  depth counts the
** graphs above this one, so the recursion is bounded by ONNX_MAX_DEPTH. */
static int onnx_graph(onnx_reader *r, uint64_t off, uint64_t len, int depth) {
  sq_pb_reader pr = onnx_sub(r, off, len);
  sq_pb_field f;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "GraphProto")) return SQ_INVALID;
    if (f.number == GRAPH_INITIALIZER) {
      if (onnx_expect(r, &f, SQ_PB_LEN, "GraphProto", "initializer") ||
          onnx_tensor(r, f.off, f.len, NULL, 0))
        return r->st->code;
    } else if (f.number == GRAPH_SPARSE_INITIALIZER) {
      return sq_fail(r->st, "onnx: sparse initializer at byte %llu: sparse "
                     "tensors are not supported", (unsigned long long)f.at);
    }
  }
  pr = onnx_sub(r, off, len);
  uint64_t index = 0;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "GraphProto")) return SQ_INVALID;
    if (f.number != GRAPH_NODE) continue;
    if (onnx_expect(r, &f, SQ_PB_LEN, "GraphProto", "node") ||
        onnx_node(r, f.off, f.len, index++, depth))
      return r->st->code;
  }
  return SQ_OK;
}

/* ---- metadata ---- */

/* Adds a metadata row: key (copied), type, value as JSON (a string when
** s is set, else the integer v). */
static int onnx_meta(onnx_reader *r, const char *key, size_t key_len,
                     const unsigned char *s, size_t slen, int64_t v) {
  sq_status *st = r->st;
  sq_file_text text = {NULL, 0, 0, r->ix};
  char num[32];
  int rc;
  if (s) {
    rc = sq_file_text_json_string(&text, s, slen, st);
  } else {
    snprintf(num, sizeof num, "%lld", (long long)v);
    rc = sq_file_text_add(&text, num, strlen(num), st);
  }
  if (rc) {
    sqlite3_free(text.s);
    return st->code;
  }
  sq_file_meta *m = sq_file_add_meta(r->ix, key, key_len, st);
  if (!m) {
    sqlite3_free(text.s);
    return st->code;
  }
  snprintf(m->type, sizeof m->type, "%s", s ? "string" : "int64");
  m->value = text.s;
  return SQ_OK;
}

/* The model's fields as metadata rows (docs/FORMATS.md#onnx). */
static int onnx_model_meta(onnx_reader *r, const sq_pb_field *last,
                           const int *have, uint64_t graph, uint64_t graph_len,
                           int has_graph) {
  static const struct { int field; const char *key; } scalars[] = {
    {MODEL_IR_VERSION, "ir_version"}, {MODEL_PRODUCER_NAME, "producer_name"},
    {MODEL_PRODUCER_VERSION, "producer_version"}, {MODEL_DOMAIN, "domain"},
    {MODEL_MODEL_VERSION, "model_version"}, {MODEL_DOC_STRING, "doc_string"}};
  sq_status *st = r->st;
  for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
    const sq_pb_field *f = &last[scalars[i].field];
    if (!have[scalars[i].field]) continue;
    const char *k = scalars[i].key;
    if (f->wire == SQ_PB_VARINT) {
      if (onnx_meta(r, k, strlen(k), NULL, 0, (int64_t)f->u)) return st->code;
      continue;
    }
    const unsigned char *s = sq_source_span(r->src, f->off, f->len, st);
    if (!s || onnx_meta(r, k, strlen(k), s, (size_t)f->len, 0))
      return st->code;
  }
  if (has_graph) {
    const unsigned char *name;
    size_t name_len;
    if (onnx_last_string(r, graph, graph_len, "GraphProto", GRAPH_NAME, "name",
                         0, &name, &name_len))
      return SQ_INVALID;
    if (name && onnx_meta(r, "graph.name", 10, name, name_len, 0))
      return st->code;
  }
  sq_pb_reader pr = onnx_sub(r, 0, r->n);
  sq_pb_field f;
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "ModelProto")) return SQ_INVALID;
    if (f.number != MODEL_OPSET_IMPORT && f.number != MODEL_METADATA_PROPS)
      continue;
    int opset = f.number == MODEL_OPSET_IMPORT;
    const char *what = opset ? "OperatorSetIdProto" : "StringStringEntryProto";
    sq_pb_reader er = onnx_sub(r, f.off, f.len);
    sq_pb_field e;
    const unsigned char *key = (const unsigned char *)"", *val = NULL;
    size_t kl = 0, vl = 0;
    uint64_t version = 0;
    while (er.pos < er.end) {
      if (onnx_next(r, &er, &e, what)) return SQ_INVALID;
      if (e.number == 1) {
        if (onnx_string(r, &e, what, opset ? "domain" : "key", 1, &key))
          return SQ_INVALID;
        kl = (size_t)e.len;
      } else if (e.number == 2 && opset) {
        if (onnx_expect(r, &e, SQ_PB_VARINT, what, "version"))
          return SQ_INVALID;
        version = e.u;
      } else if (e.number == 2) {
        if (onnx_string(r, &e, what, "value", 0, &val)) return SQ_INVALID;
        vl = (size_t)e.len;
      }
    }
    if (opset) {
      sq_file_text k = {NULL, 0, 0, r->ix};
      int rc = sq_file_text_add(&k, "opset_import.", 13, st);
      if (!rc) rc = kl ? sq_file_text_add(&k, (const char *)key, kl, st)
                       : sq_file_text_add(&k, "ai.onnx", 7, st);
      if (!rc) rc = onnx_meta(r, k.s, k.len, NULL, 0, (int64_t)version);
      sqlite3_free(k.s);
      if (rc) return st->code;
    } else if (onnx_meta(r, (const char *)key, kl,
                         val ? val : (const unsigned char *)"", vl, 0)) {
      return st->code;
    }
  }
  return SQ_OK;
}

/* ---- the reader ---- */

static int onnx_read(onnx_reader *r, int want_meta) {
  sq_status *st = r->st;
  sq_pb_reader pr = onnx_sub(r, 0, r->n);
  sq_pb_field f, last[MODEL_METADATA_PROPS + 1];
  int have[MODEL_METADATA_PROPS + 1];
  uint64_t graph = 0, graph_len = 0;
  int has_graph = 0;
  memset(last, 0, sizeof last);
  memset(have, 0, sizeof have);
  while (pr.pos < pr.end) {
    if (onnx_next(r, &pr, &f, "ModelProto")) return SQ_INVALID;
    switch (f.number) {
      case MODEL_IR_VERSION: case MODEL_MODEL_VERSION:
        if (onnx_expect(r, &f, SQ_PB_VARINT, "ModelProto",
                        f.number == MODEL_IR_VERSION ? "ir_version"
                                                     : "model_version"))
          return SQ_INVALID;
        last[f.number] = f;
        have[f.number] = 1;
        break;
      case MODEL_PRODUCER_NAME: case MODEL_PRODUCER_VERSION:
      case MODEL_DOMAIN: case MODEL_DOC_STRING:
        if (onnx_string(r, &f, "ModelProto",
                        f.number == MODEL_PRODUCER_NAME ? "producer_name"
                        : f.number == MODEL_PRODUCER_VERSION ? "producer_version"
                        : f.number == MODEL_DOMAIN ? "domain" : "doc_string", 0,
                        NULL))
          return SQ_INVALID;
        last[f.number] = f;
        have[f.number] = 1;
        break;
      case MODEL_GRAPH:
        if (onnx_expect(r, &f, SQ_PB_LEN, "ModelProto", "graph"))
          return SQ_INVALID;
        if (has_graph)
          return sq_fail(st, "onnx: the model has two graph fields (at byte "
                         "%llu)", (unsigned long long)f.at);
        graph = f.off;
        graph_len = f.len;
        has_graph = 1;
        break;
      case MODEL_OPSET_IMPORT: case MODEL_METADATA_PROPS:
        if (onnx_expect(r, &f, SQ_PB_LEN, "ModelProto",
                        f.number == MODEL_OPSET_IMPORT ? "opset_import"
                                                       : "metadata_props"))
          return SQ_INVALID;
        break;
      default: break;
    }
  }
  if (!have[MODEL_IR_VERSION])
    return sq_fail(st, "onnx: no ir_version: not an ONNX model");
  int rc = has_graph ? onnx_graph(r, graph, graph_len, 0) : SQ_OK;
  if (!rc && want_meta)
    rc = onnx_model_meta(r, last, have, graph, graph_len, has_graph);
  return rc ? st->code : SQ_OK;
}

/* ONNX has no magic: a ModelProto begins with its ir_version (field 1, a
** varint: tag 0x08) of 1 to 127, followed by the tag of a field a model has
** (2 producer_name, 3 producer_version, 4 domain, 5 model_version,
** 6 doc_string, 7 graph, 8 opset_import, 14 metadata_props). */
int sq_onnx_guess(const unsigned char *p, size_t n) {
  if (n < 3 || p[0] != 0x08 || p[1] == 0 || p[1] > 127) return 0;
  switch (p[2]) {
    case 0x12: case 0x1a: case 0x22: case 0x28: case 0x32: case 0x3a:
    case 0x42: case 0x72: return 1;
    default: return 0;
  }
}

int sq_onnx_read(sq_source *src, int want_meta, sq_file_index *ix,
                 sq_status *st) {
  onnx_reader r;
  memset(&r, 0, sizeof r);
  r.src = src;
  r.n = src->size;
  r.ix = ix;
  r.st = st;
  int rc = onnx_read(&r, want_meta);
  sq_window_free(&r.win);
  return rc;
}
