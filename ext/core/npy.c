/*
** npy.c: the .npy and .npz readers (docs/FORMATS.md#npy-and-npz).
**
** .npy: the 6-byte magic "\x93NUMPY", a version (1.0, 2.0 or 3.0), the
** header length (u16 LE for 1.0, u32 LE otherwise), then the header: the
** Python dict literal numpy writes,
**     {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
** padded with spaces and ending in '\n', parsed strictly (exactly those
** three keys, Python literal syntax), then the data, which must fill the
** rest of the bytes exactly.
**
** .npz: a zip archive of .npy members (np.savez stores them, zip64 extra
** fields and all; np.savez_compressed deflates them).  The central
** directory is the index: each member's local header is checked and its
** bytes lie inside the archive before the central directory.  A stored
** member's CRC-32 is checked now and it is read by the .npy rules; of a
** deflated member only the .npy header is inflated now (core/inflate.h),
** and its data is inflated when read, checked against the directory's size
** and CRC-32 whenever a read reaches its end.
**
** Nothing is copied and every offset + size is checked against the bytes
** before use (core/model_file.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/crc32.h"
#include "core/inflate.h"
#include "core/model_file.h"
#include "kernels/byteorder.h"

/* ------------------------------------------------------------------ .npy */

/* What a .npy header says, offsets relative to the .npy's first byte. */
typedef struct npy_info {
  char dtype[SQ_FILE_DTYPE_MAX];
  int ndim;
  int64_t dim[SQ_MAX_DIMS];
  uint64_t offset, nbytes;
} npy_info;

typedef struct npy_cursor {
  const unsigned char *h; /* the header text */
  size_t n, i;            /* its length, the read position */
} npy_cursor;

static void npy_ws(npy_cursor *c) {
  while (c->i < c->n && (c->h[c->i] == ' ' || c->h[c->i] == '\t')) c->i++;
}

static int npy_expected(npy_cursor *c, const char *what, sq_status *st) {
  if (c->i >= c->n)
    return sq_fail(st, "npy: header ends where %s was expected", what);
  unsigned char ch = c->h[c->i];
  if (ch >= 0x20 && ch < 0x7f)
    return sq_fail(st, "npy: header has '%c' at byte %zu where %s was expected",
                   ch, c->i, what);
  return sq_fail(st, "npy: header has byte 0x%02x at byte %zu where %s was "
                     "expected", ch, c->i, what);
}

/* A quoted Python string without escapes: its contents in *s, *len. */
static int npy_string(npy_cursor *c, const unsigned char **s, size_t *len,
                      const char *what, sq_status *st) {
  if (c->i >= c->n || (c->h[c->i] != '\'' && c->h[c->i] != '"'))
    return npy_expected(c, what, st);
  unsigned char q = c->h[c->i++];
  size_t start = c->i;
  while (c->i < c->n && c->h[c->i] != q) {
    if (c->h[c->i] == '\\' || c->h[c->i] == '\n')
      return sq_fail(st, "npy: header string at byte %zu has an escape or a "
                         "line break", start - 1);
    c->i++;
  }
  if (c->i >= c->n) return sq_fail(st, "npy: header string at byte %zu is "
                                       "not closed", start - 1);
  *s = c->h + start;
  *len = c->i - start;
  c->i++;
  return SQ_OK;
}

/* A Python keyword (True, False) ends where an identifier would. */
static int npy_keyword(npy_cursor *c, const char *word) {
  size_t k = strlen(word);
  if (c->n - c->i < k || memcmp(c->h + c->i, word, k) != 0) return 0;
  if (c->i + k < c->n) {
    unsigned char ch = c->h[c->i + k];
    if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
        (ch >= 'A' && ch <= 'Z') || ch == '_' || ch >= 0x80)
      return 0;
  }
  c->i += k;
  return 1;
}

/* A non-negative Python int literal in int64 (no sign, no leading zeros). */
static int npy_int(npy_cursor *c, int64_t *v, sq_status *st) {
  size_t start = c->i;
  uint64_t x = 0;
  while (c->i < c->n && c->h[c->i] >= '0' && c->h[c->i] <= '9') {
    unsigned d = c->h[c->i] - '0';
    if (x > ((uint64_t)INT64_MAX - d) / 10)
      return sq_fail(st, "npy: shape dimension at byte %zu is larger than "
                         "2^63 - 1", start);
    x = x * 10 + d;
    c->i++;
  }
  if (c->i == start) return npy_expected(c, "a dimension", st);
  if (c->h[start] == '0' && c->i - start > 1)
    return sq_fail(st, "npy: shape dimension at byte %zu has a leading zero",
                   start);
  *v = (int64_t)x;
  return SQ_OK;
}

/* A tuple of dims: (), (3,), (3, 4), (3, 4,). */
static int npy_shape(npy_cursor *c, npy_info *info, sq_status *st) {
  if (c->i >= c->n || c->h[c->i] != '(')
    return npy_expected(c, "the shape tuple '('", st);
  c->i++;
  int trailing_comma = 0;
  info->ndim = 0;
  for (;;) {
    npy_ws(c);
    if (c->i < c->n && c->h[c->i] == ')') break;
    if (info->ndim == SQ_MAX_DIMS)
      return sq_fail(st, "npy: shape has more than %d dimensions",
                     SQ_MAX_DIMS);
    if (npy_int(c, &info->dim[info->ndim], st)) return st->code;
    info->ndim++;
    npy_ws(c);
    trailing_comma = 0;
    if (c->i < c->n && c->h[c->i] == ',') {
      c->i++;
      trailing_comma = 1;
      continue;
    }
    if (c->i < c->n && c->h[c->i] == ')') break;
    return npy_expected(c, "',' or ')' in the shape", st);
  }
  c->i++;
  if (info->ndim == 1 && !trailing_comma)
    return sq_fail(st, "npy: shape (%lld) is not a tuple (a 1-d shape is "
                       "written (%lld,))", (long long)info->dim[0],
                   (long long)info->dim[0]);
  return SQ_OK;
}

/* The supported descrs: kind, item size, canonical dtype name. */
static const struct {
  char kind;
  int size;
  const char *name;
} npy_types[] = {
  {'f', 2, "f16"},   {'f', 4, "f32"},    {'f', 8, "f64"},
  {'i', 1, "int8"},  {'i', 2, "int16"},  {'i', 4, "int32"},  {'i', 8, "int64"},
  {'u', 1, "uint8"}, {'u', 2, "uint16"}, {'u', 4, "uint32"}, {'u', 8, "uint64"},
  {'b', 1, "bool"},
};

/* descr[0..len) to a dtype name and item size (docs/FORMATS.md#npy-and-npz:
** a big-endian multi-byte type is named with the suffix "be"). */
static int npy_descr(const unsigned char *d, size_t len, npy_info *info,
                     int *itemsize, sq_status *st) {
  int show = len > 40 ? 40 : (int)len;
  if (len == 2 && d[1] == 'O')
    return sq_fail(st, "npy: descr '%.*s' is an object array (pickled Python "
                       "objects); only numeric arrays are read", show, d);
  if (len == 3 && memchr("<>|=", d[0], 4)) {
    for (size_t k = 0; k < sizeof npy_types / sizeof npy_types[0]; k++) {
      if (d[1] != npy_types[k].kind || d[2] != '0' + npy_types[k].size)
        continue;
      int size = npy_types[k].size;
      if (size > 1 && (d[0] == '|' || d[0] == '='))
        return sq_fail(st, "npy: descr '%.*s' does not say the byte order "
                           "('<' little-endian or '>' big-endian)", show, d);
      strcpy(info->dtype, npy_types[k].name);
      if (size > 1 && d[0] == '>') strcat(info->dtype, "be");
      *itemsize = size;
      return SQ_OK;
    }
  }
  return sq_fail(st, "npy: descr '%.*s' is not a supported dtype (f2 f4 f8 i1 "
                     "i2 i4 i8 u1 u2 u4 u8 b1, '<' or '>')", show, d);
}

/* The header text h[0..n), after the length field. */
static int npy_header(const unsigned char *h, size_t n, npy_info *info,
                      int *itemsize, int *fortran, sq_status *st) {
  static const char *const keys[3] = {"descr", "fortran_order", "shape"};
  npy_cursor c = {h, n, 0};
  int seen[3] = {0, 0, 0};
  if (n == 0 || h[n - 1] != '\n')
    return sq_fail(st, "npy: header does not end with a line break");
  c.n = n - 1;
  npy_ws(&c);
  if (c.i >= c.n || h[c.i] != '{') return npy_expected(&c, "'{'", st);
  c.i++;
  for (;;) {
    npy_ws(&c);
    if (c.i < c.n && h[c.i] == '}') break;
    const unsigned char *key;
    size_t klen;
    if (npy_string(&c, &key, &klen, "a key", st)) return st->code;
    int k = 0;
    while (k < 3 && !(strlen(keys[k]) == klen && memcmp(keys[k], key, klen) == 0))
      k++;
    if (k == 3)
      return sq_fail(st, "npy: header has the unknown key '%.*s' (expected "
                         "descr, fortran_order, shape)",
                     klen > 40 ? 40 : (int)klen, key);
    if (seen[k]) return sq_fail(st, "npy: header has the key '%s' twice", keys[k]);
    seen[k] = 1;
    npy_ws(&c);
    if (c.i >= c.n || h[c.i] != ':') return npy_expected(&c, "':'", st);
    c.i++;
    npy_ws(&c);
    if (k == 0) {
      const unsigned char *d;
      size_t dlen;
      if (c.i < c.n && h[c.i] == '[')
        return sq_fail(st, "npy: descr is a structured dtype (a list of "
                           "fields); only plain numeric arrays are read");
      if (npy_string(&c, &d, &dlen, "the descr string", st)) return st->code;
      if (npy_descr(d, dlen, info, itemsize, st)) return st->code;
    } else if (k == 1) {
      if (npy_keyword(&c, "True")) *fortran = 1;
      else if (npy_keyword(&c, "False")) *fortran = 0;
      else return npy_expected(&c, "True or False", st);
    } else {
      if (npy_shape(&c, info, st)) return st->code;
    }
    npy_ws(&c);
    if (c.i < c.n && h[c.i] == ',') {
      c.i++;
      continue;
    }
    if (c.i < c.n && h[c.i] == '}') break;
    return npy_expected(&c, "',' or '}'", st);
  }
  c.i++;
  for (int k = 0; k < 3; k++)
    if (!seen[k]) return sq_fail(st, "npy: header has no '%s' key", keys[k]);
  npy_ws(&c);
  if (c.i != c.n) return npy_expected(&c, "the end of the header", st);
  return SQ_OK;
}

/* "[3,4]" into buf (truncated with "..." if long). */
static void npy_shape_text(const npy_info *info, char *buf, size_t size) {
  size_t k = 0;
  buf[k++] = '[';
  for (int d = 0; d < info->ndim && k < size; d++) {
    int w = snprintf(buf + k, size - k, "%s%lld", d ? "," : "",
                     (long long)info->dim[d]);
    if (w < 0 || (size_t)w >= size - k) {
      k = size;
      break;
    }
    k += (size_t)w;
  }
  if (k + 2 <= size) {
    buf[k++] = ']';
    buf[k] = 0;
  } else {
    strcpy(buf + size - 5, "...]");
  }
}

/* Reads one .npy image of `total` bytes, of which p[0..n) are at hand
** (n == total, or for a compressed npz member the first bytes inflated:
** enough for the header, or the header is too large), into *info. */
static int npy_parse(const unsigned char *p, size_t n, uint64_t total,
                     npy_info *info, sq_status *st) {
  if (n < 6 || memcmp(p, "\x93NUMPY", 6) != 0)
    return sq_fail(st, "npy: not a .npy file (no \\x93NUMPY magic)");
  if (n < 10)
    return sq_fail(st, "npy: the %llu-byte file ends inside the preamble",
                   (unsigned long long)total);
  int major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0)
    return sq_fail(st, "npy: version %d.%d is not supported (1.0, 2.0, 3.0)",
                   major, minor);
  uint64_t hlen, hstart = major == 1 ? 10 : 12;
  if (n < hstart)
    return sq_fail(st, "npy: the %llu-byte file ends inside the preamble",
                   (unsigned long long)total);
  hlen = major == 1 ? sq_load_u16(p + 8) : sq_load_u32(p + 8);
  if (hlen > total - hstart)
    return sq_fail(st, "npy: header length %llu is past the end of the "
                       "%llu-byte file", (unsigned long long)hlen,
                   (unsigned long long)total);
  if (hlen > n - hstart)
    return sq_fail(st, "npy: header length %llu is more than the %llu bytes "
                       "read of a compressed member's header",
                   (unsigned long long)hlen,
                   (unsigned long long)(n - hstart));
  int itemsize = 0, fortran = 0;
  memset(info, 0, sizeof *info);
  if (npy_header(p + hstart, (size_t)hlen, info, &itemsize, &fortran, st))
    return st->code;

  char shape[96];
  npy_shape_text(info, shape, sizeof shape);
  /* The element count: 0 if any dim is 0, else the product, overflow-
  ** checked; then the bytes, which must be exactly what follows. */
  uint64_t count = 1;
  int empty = 0;
  for (int d = 0; d < info->ndim; d++) empty |= info->dim[d] == 0;
  if (empty) count = 0;
  for (int d = 0; d < info->ndim && !empty; d++) {
    uint64_t v = (uint64_t)info->dim[d];
    if (count > UINT64_MAX / v)
      return sq_fail(st, "npy: shape %s has more than 2^64 elements", shape);
    count *= v;
  }
  if (count > UINT64_MAX / (uint64_t)itemsize)
    return sq_fail(st, "npy: shape %s of %s has more than 2^64 bytes", shape,
                   info->dtype);
  info->offset = hstart + hlen;
  info->nbytes = count * (uint64_t)itemsize;
  if (info->nbytes != total - info->offset)
    return sq_fail(st, "npy: shape %s of %s is %llu bytes but %llu follow the "
                       "header", shape, info->dtype,
                   (unsigned long long)info->nbytes,
                   (unsigned long long)(total - info->offset));
  /* Column-major data is refused unless it is laid out as row-major
  ** would be: at most one dim above 1 (or no elements). */
  if (fortran && count != 0) {
    int big = 0;
    for (int d = 0; d < info->ndim; d++) big += info->dim[d] > 1;
    if (big > 1)
      return sq_fail(st, "npy: fortran_order array of shape %s is stored "
                         "column-major; save np.ascontiguousarray(a) instead",
                     shape);
  }
  return SQ_OK;
}

static sq_file_tensor *npy_add(sq_file_index *ix, const char *name,
                               size_t len, const npy_info *info,
                               uint64_t base, sq_status *st) {
  sq_file_tensor *t = sq_file_add_tensor(ix, name, len, st);
  if (!t) return NULL;
  memcpy(t->dtype, info->dtype, sizeof t->dtype);
  t->ndim = info->ndim;
  memcpy(t->dim, info->dim, sizeof t->dim);
  t->offset = base + info->offset;
  t->nbytes = info->nbytes;
  return t;
}

/* One tensor, named "" (the file has no names). */
int sq_npy_read(const unsigned char *p, size_t n, int want_meta,
                sq_file_index *ix, sq_status *st) {
  (void)want_meta; /* .npy has no metadata */
  npy_info info;
  if (npy_parse(p, n, n, &info, st)) return st->code;
  if (!npy_add(ix, "", 0, &info, 0, st)) return st->code;
  return SQ_OK;
}

/* ------------------------------------------------------------------ .npz */

static uint64_t npz_u64(const unsigned char *p) {
  return (uint64_t)sq_load_u32(p) | (uint64_t)sq_load_u32(p + 4) << 32;
}

typedef struct npz_name {
  const char *s;
  size_t len;
} npz_name;

static int npz_name_cmp(const void *a, const void *b) {
  const npz_name *x = a, *y = b;
  size_t k = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->s, y->s, k);
  if (c) return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* Member names in the messages: at most 60 bytes. */
#define NPZ_NAME(len, s) (len) > 60 ? 60 : (int)(len), (const char *)(s)

/* The zip64 extended information extra field of a central directory entry:
** the 8-byte values that replace the fields set to 0xFFFFFFFF, in the
** order usize, csize, offset. */
static int npz_zip64_extra(const unsigned char *e, size_t elen, uint64_t *usize,
                           uint64_t *csize, uint64_t *off, const unsigned char *nm,
                           size_t nlen, sq_status *st) {
  size_t i = 0;
  while (elen - i >= 4) {
    unsigned id = sq_load_u16(e + i), sz = sq_load_u16(e + i + 2);
    if (sz > elen - i - 4) break;
    if (id == 0x0001) {
      const unsigned char *f = e + i + 4;
      size_t left = sz;
      uint64_t *fields[3] = {usize, csize, off};
      for (int k = 0; k < 3; k++) {
        if (*fields[k] != 0xFFFFFFFFu) continue;
        if (left < 8) break;
        *fields[k] = npz_u64(f);
        f += 8;
        left -= 8;
      }
      return SQ_OK;
    }
    i += 4 + (size_t)sz;
  }
  if (*usize == 0xFFFFFFFFu || *csize == 0xFFFFFFFFu || *off == 0xFFFFFFFFu)
    return sq_fail(st, "npz: member '%.*s' needs a zip64 extra field and has "
                       "none", NPZ_NAME(nlen, nm));
  return SQ_OK;
}

/* ------------------------------------------- deflated members (method 8) */

/* The most of a deflated member inflated to read its .npy header: numpy
** writes headers of 128 bytes or so and its own reader refuses more than
** 10,000 by default; 64 KiB and the 12-byte preamble is ample. */
#define NPZ_HEAD_MAX (65536u + 12u)

/* What the index reads of deflated members with: one decoder state and one
** header buffer, allocated on the first such member. */
typedef struct npz_scratch {
  sq_inflate *z;
  unsigned char *head;
} npz_scratch;

/* The decoder's state is fixed-size working memory, not data: allocated
** whatever the connection's length limit (which tests lower to a few KB). */
static sq_inflate *npz_inflate_alloc(sq_status *st) {
  sq_status fixed;
  memset(&fixed, 0, sizeof fixed);
  fixed.max_bytes = INT64_MAX;
  sq_inflate *z = sq_alloc(&fixed, 1, sizeof *z);
  if (!z) sq_nomem(st);
  return z;
}

/* A tensor's bytes [start, start + len): the member inflated from its
** start, skipping the .npy header (src_kind bytes) and `start`.  A read
** that reaches the member's end decodes it all and checks it against the
** zip directory: the size, the stream's length, the CRC-32. */
static int npz_inflate_decode(const sq_file_view *v, const sq_file_tensor *t,
                              uint64_t start, uint64_t len, unsigned char *out,
                              sq_status *st) {
  uint64_t head = t->src_kind, usize = head + t->nbytes;
  int to_end = start + len == t->nbytes;
  if (t->src_offset > v->n || t->src_nbytes > v->n - t->src_offset)
    return sq_fail(st, "npz: member '%.60s.npy': its data lies outside the "
                       "file", t->name);
  sq_inflate *z = npz_inflate_alloc(st);
  if (!z) return st->code;
  sq_status sub;
  memset(&sub, 0, sizeof sub);
  sub.max_bytes = st->max_bytes;
  int rc = sq_inflate_run(z, v->p + t->src_offset, (size_t)t->src_nbytes,
                          head + start, out, len, to_end, usize, &sub);
  if (rc && z->overflow)
    sq_fail(st, "npz: member '%.60s.npy' inflates to more than the %llu "
                "bytes its zip entry says", t->name,
            (unsigned long long)usize);
  else if (rc && !(z->finished && z->produced < usize))
    sq_fail(st, "npz: member '%.60s.npy': %s", t->name, sub.msg);
  else if (z->produced != usize && (rc || to_end))
    sq_fail(st, "npz: member '%.60s.npy' inflates to %llu bytes but its zip "
                "entry says %llu", t->name, (unsigned long long)z->produced,
            (unsigned long long)usize);
  else if (to_end && z->consumed != t->src_nbytes)
    sq_fail(st, "npz: member '%.60s.npy' has %llu bytes after the end of its "
                "deflate stream", t->name,
            (unsigned long long)(t->src_nbytes - z->consumed));
  else if (to_end && z->crc != t->src_crc32)
    sq_fail(st, "npz: member '%.60s.npy' fails its CRC-32 check (corrupt)",
            t->name);
  sqlite3_free(z);
  return st->code;
}

/* Indexes a deflated member: only its .npy header is inflated now. */
static int npz_deflated(const unsigned char *p, uint64_t data, uint64_t csize,
                        uint64_t usize, uint32_t crc, const unsigned char *nm,
                        size_t nlen, sq_file_index *ix, npz_scratch *s,
                        sq_status *st) {
  if (!s->z && !(s->z = npz_inflate_alloc(st))) return st->code;
  if (!s->head && !(s->head = sq_alloc(st, NPZ_HEAD_MAX, 1))) return st->code;
  uint64_t want = usize < NPZ_HEAD_MAX ? usize : NPZ_HEAD_MAX;
  sq_status sub;
  memset(&sub, 0, sizeof sub);
  sub.max_bytes = st->max_bytes;
  if (sq_inflate_run(s->z, p + data, (size_t)csize, 0, s->head, want, 0,
                    usize, &sub)) {
    if (s->z->finished)
      return sq_fail(st, "npz: member '%.*s' inflates to %llu bytes but its "
                         "zip entry says %llu", NPZ_NAME(nlen, nm),
                     (unsigned long long)s->z->produced,
                     (unsigned long long)usize);
    return sq_fail(st, "npz: member '%.*s': %s", NPZ_NAME(nlen, nm), sub.msg);
  }
  npy_info info;
  if (npy_parse(s->head, (size_t)want, usize, &info, &sub))
    return sq_fail(st, "npz: member '%.*s': %s", NPZ_NAME(nlen, nm),
                   sub.msg + 5 /* without "npy: " */);
  sq_file_tensor *t = npy_add(ix, (const char *)nm, nlen - 4, &info, 0, st);
  if (!t) return st->code;
  t->offset = data;
  t->decode = npz_inflate_decode;
  t->src_offset = data;
  t->src_nbytes = csize;
  t->src_kind = (uint32_t)info.offset;  /* <= NPZ_HEAD_MAX */
  t->src_crc32 = crc;
  return SQ_OK;
}

static int npz_read(const unsigned char *p, size_t n, sq_file_index *ix,
                    npz_scratch *scratch, sq_status *st) {
  /* The end of central directory record: 22 bytes and a comment of up to
  ** 65535 that must reach exactly the end. */
  if (n < 22)
    return sq_fail(st, "npz: the %zu-byte file is too short for a zip archive",
                   n);
  size_t eocd = 0;
  int found = 0;
  size_t lowest = n - 22 > 65535 ? n - 22 - 65535 : 0;
  for (size_t i = n - 22 + 1; i-- > lowest;) {
    if (sq_load_u32(p + i) == 0x06054b50u &&
        (size_t)sq_load_u16(p + i + 20) == n - 22 - i) {
      eocd = i;
      found = 1;
      break;
    }
  }
  if (!found)
    return sq_fail(st, "npz: no zip end of central directory record (not a "
                       "zip archive, or truncated)");
  const unsigned char *e = p + eocd;
  uint64_t entries = sq_load_u16(e + 10), cd_size = sq_load_u32(e + 12),
           cd_off = sq_load_u32(e + 16);
  if (sq_load_u16(e + 4) != 0 || sq_load_u16(e + 6) != 0 ||
      sq_load_u16(e + 8) != entries)
    return sq_fail(st, "npz: multi-disk zip archives are not supported");
  size_t cd_end = eocd; /* the central directory ends before this */
  /* zip64 (as Python's zipfile writes it whenever a member or the directory
  ** needs it, even with the end record's own fields unsaturated): the
  ** locator just before the end record, pointing to the zip64 record. */
  int zip64 = eocd >= 20 && sq_load_u32(p + eocd - 20) == 0x07064b50u;
  if (!zip64 &&
      (entries == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu))
    return sq_fail(st, "npz: the zip64 end of central directory locator is "
                       "missing");
  if (zip64) {
    const unsigned char *l = p + eocd - 20;
    uint64_t z = npz_u64(l + 8);
    if (sq_load_u32(l + 4) != 0 || sq_load_u32(l + 16) > 1)
      return sq_fail(st, "npz: multi-disk zip archives are not supported");
    if (z > eocd - 20 || eocd - 20 - z < 56 || sq_load_u32(p + z) != 0x06064b50u)
      return sq_fail(st, "npz: zip64 end of central directory record offset "
                         "%llu is not a zip64 record", (unsigned long long)z);
    const unsigned char *r = p + z;
    if (sq_load_u32(r + 16) != 0 || sq_load_u32(r + 20) != 0 ||
        npz_u64(r + 24) != npz_u64(r + 32))
      return sq_fail(st, "npz: multi-disk zip archives are not supported");
    entries = npz_u64(r + 32);
    cd_size = npz_u64(r + 40);
    cd_off = npz_u64(r + 48);
    cd_end = (size_t)z;
  }
  if (cd_off > cd_end || cd_size != cd_end - cd_off)
    return sq_fail(st, "npz: central directory (offset %llu, %llu bytes) does "
                       "not end where the end record begins (byte %zu)",
                   (unsigned long long)cd_off, (unsigned long long)cd_size,
                   cd_end);
  if (entries > cd_size / 46)
    return sq_fail(st, "npz: %llu members cannot fit in a %llu-byte central "
                       "directory", (unsigned long long)entries,
                   (unsigned long long)cd_size);

  size_t at = (size_t)cd_off;
  for (uint64_t k = 0; k < entries; k++) {
    if (cd_end - at < 46 || sq_load_u32(p + at) != 0x02014b50u)
      return sq_fail(st, "npz: central directory entry %llu at byte %zu is "
                         "not one", (unsigned long long)k, at);
    const unsigned char *c = p + at;
    unsigned flags = sq_load_u16(c + 8), method = sq_load_u16(c + 10);
    uint32_t crc = sq_load_u32(c + 16);
    uint64_t csize = sq_load_u32(c + 20), usize = sq_load_u32(c + 24);
    size_t nlen = sq_load_u16(c + 28), elen = sq_load_u16(c + 30),
           mlen = sq_load_u16(c + 32);
    uint64_t loff = sq_load_u32(c + 42);
    if (cd_end - at - 46 < nlen + elen + mlen)
      return sq_fail(st, "npz: central directory entry %llu runs past the "
                         "directory", (unsigned long long)k);
    const unsigned char *nm = c + 46;
    if (npz_zip64_extra(c + 46 + nlen, elen, &usize, &csize, &loff, nm, nlen,
                        st))
      return st->code;
    at += 46 + nlen + elen + mlen;

    if (nlen < 4 || memcmp(nm + nlen - 4, ".npy", 4) != 0)
      return sq_fail(st, "npz: member '%.*s' is not a .npy array",
                     NPZ_NAME(nlen, nm));
    if (memchr(nm, 0, nlen))
      return sq_fail(st, "npz: member name '%.*s' has a NUL byte",
                     NPZ_NAME(nlen, nm));
    if (flags & 1)
      return sq_fail(st, "npz: member '%.*s' is encrypted", NPZ_NAME(nlen, nm));
    if (method != 0 && method != 8)
      return sq_fail(st, "npz: member '%.*s' uses zip compression method %u; "
                         "only stored (0) and deflated (8) members are read",
                     NPZ_NAME(nlen, nm), method);
    if (method == 0 && csize != usize)
      return sq_fail(st, "npz: stored member '%.*s' has compressed size %llu "
                         "and size %llu", NPZ_NAME(nlen, nm),
                     (unsigned long long)csize, (unsigned long long)usize);
    /* The local header: its name must be the central one; the data follows
    ** and must end before the central directory. */
    if (loff > cd_off || cd_off - loff < 30 ||
        sq_load_u32(p + loff) != 0x04034b50u)
      return sq_fail(st, "npz: member '%.*s' local header offset %llu is not "
                         "a local header", NPZ_NAME(nlen, nm),
                     (unsigned long long)loff);
    const unsigned char *lh = p + loff;
    uint64_t lnlen = sq_load_u16(lh + 26), lelen = sq_load_u16(lh + 28);
    uint64_t data = loff + 30 + lnlen + lelen;
    if (data > cd_off || csize > cd_off - data)
      return sq_fail(st, "npz: member '%.*s' data (%llu bytes at byte %llu) "
                         "is past the end of the archive's data (byte %llu)",
                     NPZ_NAME(nlen, nm), (unsigned long long)csize,
                     (unsigned long long)data, (unsigned long long)cd_off);
    if (lnlen != nlen || memcmp(lh + 30, nm, nlen) != 0)
      return sq_fail(st, "npz: member '%.*s' local header names another file",
                     NPZ_NAME(nlen, nm));
    if (method == 8) {
      if (npz_deflated(p, data, csize, usize, crc, nm, nlen, ix, scratch, st))
        return st->code;
      continue;
    }
    if (sq_crc32(0, p + data, csize) != crc)
      return sq_fail(st, "npz: member '%.*s' fails its CRC-32 check (corrupt)",
                     NPZ_NAME(nlen, nm));
    npy_info info;
    sq_status sub;
    memset(&sub, 0, sizeof sub);
    sub.max_bytes = st->max_bytes;
    if (npy_parse(p + data, (size_t)csize, csize, &info, &sub))
      return sq_fail(st, "npz: member '%.*s': %s", NPZ_NAME(nlen, nm),
                     sub.msg + 5 /* without "npy: " */);
    if (!npy_add(ix, (const char *)nm, nlen - 4, &info, data, st))
      return st->code;
  }
  if (at != cd_end)
    return sq_fail(st, "npz: central directory has %llu bytes after its %llu "
                       "entries", (unsigned long long)(cd_end - at),
                   (unsigned long long)entries);

  /* numpy's np.load keeps one array per name: duplicates are refused. */
  if (ix->ntensors > 1) {
    npz_name *names = sq_alloc(st, ix->ntensors, sizeof *names);
    if (!names) return st->code;
    for (size_t i = 0; i < ix->ntensors; i++) {
      names[i].s = ix->tensors[i].name;
      names[i].len = strlen(ix->tensors[i].name);
    }
    qsort(names, ix->ntensors, sizeof *names, npz_name_cmp);
    for (size_t i = 1; i < ix->ntensors; i++) {
      if (npz_name_cmp(&names[i - 1], &names[i]) == 0) {
        sq_fail(st, "npz: member '%.*s.npy' appears twice",
                NPZ_NAME(names[i].len, names[i].s));
        break;
      }
    }
    sqlite3_free(names);
  }
  return st->code;
}

int sq_npz_read(const unsigned char *p, size_t n, int want_meta,
                sq_file_index *ix, sq_status *st) {
  (void)want_meta; /* .npz has no metadata */
  npz_scratch scratch = {NULL, NULL};
  npz_read(p, n, ix, &scratch, st);
  sqlite3_free(scratch.z);
  sqlite3_free(scratch.head);
  return st->code;
}
