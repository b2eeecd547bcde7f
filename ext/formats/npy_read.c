/*
** npy_read.c: the .npy and .npz readers (docs/FORMATS.md#npy-and-npz).
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
** bytes lie inside the archive before the central directory, and no two
** members' bytes (local header to the end of the data) overlap, checked
** before any member's data is read (docs/FORMATS.md#npy-and-npz).  A stored
** member's CRC-32 is checked now and it is read by the .npy rules; of a
** deflated member only the .npy header is inflated now (formats/inflate.h),
** and its data is inflated when read, checked against the directory's size
** and CRC-32 whenever a read reaches its end; a cursor's stream keeps the
** decoder between reads, so chunks read in order are inflated once.
**
** Nothing is copied, every offset + size is checked against the bytes
** before use, and only the structure (the directory, local headers, .npy
** headers) is spanned (formats/index.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/text.h"
#include "formats/crc32.h"
#include "formats/formats.h"
#include "formats/inflate.h"
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

/* The supported descrs: kind, item size, canonical dtype name, and the
** descr ('<f4') for messages (core/catalogue.h). */
static const struct {
  char kind;
  int size;
  const char *name, *descr;
} npy_types[] = {
#define NPY_TYPE_ROW(kind, size, name, descr) {kind, size, name, descr},
  SQ_CATALOGUE_NPY_DTYPES(NPY_TYPE_ROW)
#undef NPY_TYPE_ROW
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
  sq_names valid;
  sq_names_begin(&valid);
  for (size_t k = 0; k < sizeof npy_types / sizeof npy_types[0]; k++)
    sq_names_add(&valid, npy_types[k].descr + 1);
  return sq_fail(st, "npy: descr '%.*s' is not a supported dtype (%s, '<' or "
                     "'>')", show, d, sq_names_join(&valid, " ", " "));
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

/* The .npy image of `total` bytes at byte base of the source: its preamble
** and header are spanned (the structure), never its data. */
static int npy_parse_at(sq_source *src, uint64_t base, uint64_t total,
                        npy_info *info, sq_status *st) {
  uint64_t want = total < 12 ? total : 12;
  const unsigned char *p = sq_source_span(src, base, want, st);
  if (!p) return st->code;
  if (want >= 10 && memcmp(p, "\x93NUMPY", 6) == 0 && p[6] >= 1 &&
      p[6] <= 3 && p[7] == 0) {
    uint64_t hstart = p[6] == 1 ? 10 : 12;
    if (hstart <= want) {
      uint64_t hlen = p[6] == 1 ? sq_load_u16(p + 8) : sq_load_u32(p + 8);
      if (hlen <= total - hstart) {
        want = hstart + hlen;
        if (!(p = sq_source_span(src, base, want, st))) return st->code;
      }
    }
  }
  return npy_parse(p, (size_t)want, total, info, st);
}

/* One tensor, named "" (the file has no names). */
/* A .npy holds one array and no name: read from a path it is named after
** the file, its name without the directories and the last extension, as
** Python's Path.stem ('w.npy' and 'w.bin' give 'w', '.npy' stays '.npy');
** from bytes, which have no file name, ''.  docs/FORMATS.md#npy-and-npz. */
static void npy_stem(const char *path, const char **s, size_t *len) {
  const char *base = path ? strrchr(path, '/') : NULL;
  base = base ? base + 1 : path ? path : "";
  const char *dot = strrchr(base, '.');
  *s = base;
  *len = dot && dot != base && dot[1] ? (size_t)(dot - base) : strlen(base);
}

int sq_npy_read(sq_source *src, int want_meta, sq_file_index *ix,
                sq_status *st) {
  (void)want_meta; /* .npy has no metadata */
  npy_info info;
  if (npy_parse_at(src, 0, src->size, &info, st)) return st->code;
  const char *name;
  size_t len;
  npy_stem(src->path, &name, &len);
  if (!npy_add(ix, name, len, &info, 0, st)) return st->code;
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

/* The member of a zip's central directory (cd, cdn bytes; entries left
** from byte at) named "data.pkl" or ".../data.pkl", as torch.save's
** archive has (docs/FORMATS.md#pytorch-checkpoints); NULL if none.  Its
** name's length goes to *nlen.  Stops at the first malformed entry: the
** caller's walk reports that. */
static const unsigned char *npz_torch_pickle(const unsigned char *cd,
                                             size_t cdn, size_t at,
                                             uint64_t left, size_t *nlen) {
  for (; left > 0 && cdn - at >= 46 && sq_load_u32(cd + at) == 0x02014b50u;
       left--) {
    size_t n = sq_load_u16(cd + at + 28), e = sq_load_u16(cd + at + 30),
           m = sq_load_u16(cd + at + 32);
    if (cdn - at - 46 < n + e + m) return NULL;
    const unsigned char *nm = cd + at + 46;
    if ((n == 8 && memcmp(nm, "data.pkl", 8) == 0) ||
        (n > 9 && memcmp(nm + n - 9, "/data.pkl", 9) == 0)) {
      *nlen = n;
      return nm;
    }
    at += 46 + n + e + m;
  }
  return NULL;
}

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
** 10,000 by default; 64 KiB and the 12-byte preamble is ample.  (It is the
** reader's scratch, charged to the index's budget: no length limit applies
** to it.) */
#define NPZ_HEAD_MAX (65536u + 12u)

/* The deflate stream's bytes, read through the source. */
static int npz_input(void *ctx, uint64_t off, unsigned char *buf, size_t len,
                     sq_status *st) {
  return sq_source_read(ctx, off, len, buf, st);
}

/* The stream of a member's data [off, off + n) of the source. */
static sq_inflate_input npz_stream(sq_source *src, uint64_t off, uint64_t n) {
  sq_inflate_input in = {NULL, npz_input, src, off, n};
  if (!src->is_file) in.mem = src->mem + off;
  return in;
}

/* The decoder's states are fixed-size working memory, not data (nothing a
** length limit could bound). */
static int npz_states(sq_file_stream *s, sq_status *st) {
  if (!s->live) {
    if (!(s->live = sq_alloc_internal(st, 1, sizeof *s->live)))
      return st->code;
    s->live->broken = 1;  /* begun before use */
    s->owner = NULL;
  }
  if (!s->mark) {
    if (!(s->mark = sq_alloc_internal(st, 1, sizeof *s->mark)))
      return st->code;
    s->mark->broken = 1;
  }
  return SQ_OK;
}

/* A tensor's bytes [start, start + len): the member inflated, skipping the
** .npy header (src_kind bytes) and `start`.  The stream keeps the decoder
** where the last read ended (live) and where it began (mark): a read that
** starts where the last ended goes on from there, one that starts where it
** began (the same chunk again) goes on from the mark, and any other restarts
** from the member's beginning (docs/FORMATS.md#npz-compressed-members).  A
** read that reaches the member's end decodes it all and checks it against
** the zip directory: the size, the stream's length, the CRC-32. */
static int npz_inflate_decode(const sq_file_view *v, const sq_file_tensor *t,
                              uint64_t start, uint64_t len, unsigned char *out,
                              sq_status *st) {
  uint64_t head = t->src_kind, usize = head + t->nbytes, skip = head + start;
  int to_end = start + len == t->nbytes;
  if (t->src_offset > v->src->size ||
      t->src_nbytes > v->src->size - t->src_offset)
    return sq_fail(st, "npz: member '%.60s.npy': its data lies outside the "
                       "file", t->name);
  sq_file_stream own, *s = v->stream ? v->stream : &own;
  if (!v->stream) memset(&own, 0, sizeof own);
  if (npz_states(s, st)) goto done;
  sq_inflate *z = s->live;
  int keep = s->owner == t;
  if (!keep) s->mark->broken = 1;  /* the mark was another tensor's */
  if (!keep || skip < sq_inflate_earliest(z)) {
    if (keep && skip >= sq_inflate_earliest(s->mark)) {
      memcpy(z, s->mark, sizeof *z);
    } else {
      sq_inflate_input in = npz_stream(v->src, t->src_offset, t->src_nbytes);
      sq_inflate_begin(z, &in);
    }
  }
  s->owner = NULL;  /* until this read succeeds */
  /* Not the whole member: keep where this read begins, for a read of the
  ** same chunk again (SQL may read a column twice). */
  if (start > 0 || !to_end) memcpy(s->mark, z, sizeof *z);
  sq_status sub;
  memset(&sub, 0, sizeof sub);
  sub.max_bytes = st->max_bytes;
  uint64_t before = z->pos;
  int rc = sq_inflate_read(z, skip, out, len, to_end, usize, &sub);
  s->inflated += z->pos - before;
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
  if (!st->code) s->owner = t;
done:
  if (s == &own) sq_file_stream_free(&own);
  return st->code;
}

/* What the first pass over the central directory found of a member. */
typedef struct npz_member {
  const unsigned char *name;    /* spanned: valid until the parse ends */
  size_t nlen;
  unsigned method;
  uint32_t crc;
  uint64_t csize, usize, loff, data;
} npz_member;

/* Indexes a deflated member: only its .npy header is inflated now. */
static int npz_deflated(sq_source *src, const npz_member *m,
                        sq_file_index *ix, sq_inflate **z,
                        unsigned char **headbuf, sq_status *st) {
  const unsigned char *nm = m->name;
  size_t nlen = m->nlen;
  if (!*z && !(*z = sq_file_alloc(ix, 1, sizeof **z, st))) return st->code;
  if (!*headbuf && !(*headbuf = sq_file_alloc(ix, NPZ_HEAD_MAX, 1, st)))
    return st->code;
  uint64_t want = m->usize < NPZ_HEAD_MAX ? m->usize : NPZ_HEAD_MAX;
  sq_status sub;
  memset(&sub, 0, sizeof sub);
  sub.max_bytes = st->max_bytes;
  sq_inflate_input in = npz_stream(src, m->data, m->csize);
  sq_inflate_begin(*z, &in);
  if (sq_inflate_read(*z, 0, *headbuf, want, 0, m->usize, &sub)) {
    if ((*z)->finished)
      return sq_fail(st, "npz: member '%.*s' inflates to %llu bytes but its "
                         "zip entry says %llu", NPZ_NAME(nlen, nm),
                     (unsigned long long)(*z)->produced,
                     (unsigned long long)m->usize);
    return sq_fail(st, "npz: member '%.*s': %s", NPZ_NAME(nlen, nm), sub.msg);
  }
  npy_info info;
  if (npy_parse(*headbuf, (size_t)want, m->usize, &info, &sub))
    return sq_fail(st, "npz: member '%.*s': %s", NPZ_NAME(nlen, nm),
                   sub.msg + 5 /* without "npy: " */);
  sq_file_tensor *t = npy_add(ix, (const char *)nm, nlen - 4, &info, 0, st);
  if (!t) return st->code;
  t->offset = m->data;
  t->decode = npz_inflate_decode;
  t->src_offset = m->data;
  t->src_nbytes = m->csize;
  t->src_kind = (uint32_t)info.offset;  /* <= NPZ_HEAD_MAX */
  t->src_crc32 = m->crc;
  return SQ_OK;
}

/* The CRC-32 of bytes [off, off + n) of the source, read a window at a
** time (memory: in place). */
static int npz_crc(sq_source *src, uint64_t off, uint64_t n, uint32_t *crc,
                   sq_status *st) {
  sq_crc32_tables tb;
  sq_window w = {NULL, 0, 0};
  sq_crc32_init(&tb);
  *crc = 0;
  while (n) {
    size_t k = n < SQ_WINDOW_SIZE ? (size_t)n : SQ_WINDOW_SIZE;
    const unsigned char *p = sq_window_get(&w, src, off, k, st);
    if (!p) break;
    *crc = sq_crc32_with(&tb, *crc, p, k);
    off += k;
    n -= k;
  }
  sq_window_free(&w);
  return st->code;
}

/* Members' bytes, local header to the end of the data, in the order they
** lie: two that share a byte are refused (an overlap bomb's members all
** point at one run of data). */
static int npz_member_cmp(const void *a, const void *b) {
  const npz_member *x = *(const npz_member *const *)a;
  const npz_member *y = *(const npz_member *const *)b;
  if (x->loff != y->loff) return x->loff < y->loff ? -1 : 1;
  return 0;
}

static int npz_no_overlaps(npz_member *m, uint64_t count, sq_file_index *ix,
                           sq_status *st) {
  if (count < 2) return SQ_OK;
  npz_member **v = sq_file_alloc(ix, count, sizeof *v, st);
  if (!v) return st->code;
  for (uint64_t k = 0; k < count; k++) v[k] = &m[k];
  qsort(v, (size_t)count, sizeof *v, npz_member_cmp);
  for (uint64_t k = 1; k < count; k++) {
    const npz_member *a = v[k - 1], *b = v[k];
    uint64_t a_end = a->data + a->csize;
    if (b->loff < a_end) {
      sq_fail(st, "npz: members '%.*s' and '%.*s' overlap (bytes %llu..%llu "
                  "and %llu..%llu of the archive)", NPZ_NAME(a->nlen, a->name),
              NPZ_NAME(b->nlen, b->name), (unsigned long long)a->loff,
              (unsigned long long)a_end, (unsigned long long)b->loff,
              (unsigned long long)(b->data + b->csize));
      break;
    }
  }
  sqlite3_free(v);
  return st->code;
}

static int npz_read(sq_source *src, sq_file_index *ix, npz_member **members,
                    sq_inflate **z, unsigned char **headbuf, sq_status *st) {
  size_t n = (size_t)src->size;
  /* The end of central directory record: 22 bytes and a comment of up to
  ** 65535 that must reach exactly the end. */
  if (n < 22)
    return sq_fail(st, "npz: the %zu-byte file is too short for a zip archive",
                   n);
  size_t eocd = 0;
  int found = 0;
  size_t lowest = n - 22 > 65535 ? n - 22 - 65535 : 0;
  const unsigned char *tail = sq_source_span(src, lowest, n - lowest, st);
  if (!tail) return st->code;
  for (size_t i = n - 22 + 1; i-- > lowest;) {
    const unsigned char *q = tail + (i - lowest);
    if (sq_load_u32(q) == 0x06054b50u &&
        (size_t)sq_load_u16(q + 20) == n - 22 - i) {
      eocd = i;
      found = 1;
      break;
    }
  }
  if (!found)
    return sq_fail(st, "npz: no zip end of central directory record (not a "
                       "zip archive, or truncated)");
  const unsigned char *e = tail + (eocd - lowest);
  uint64_t entries = sq_load_u16(e + 10), cd_size = sq_load_u32(e + 12),
           cd_off = sq_load_u32(e + 16);
  if (sq_load_u16(e + 4) != 0 || sq_load_u16(e + 6) != 0 ||
      sq_load_u16(e + 8) != entries)
    return sq_fail(st, "npz: multi-disk zip archives are not supported");
  size_t cd_end = eocd; /* the central directory ends before this */
  /* zip64 (as Python's zipfile writes it whenever a member or the directory
  ** needs it, even with the end record's own fields unsaturated): the
  ** locator just before the end record, pointing to the zip64 record. */
  const unsigned char *l = eocd >= 20 ? sq_source_span(src, eocd - 20, 20, st)
                                      : NULL;
  if (eocd >= 20 && !l) return st->code;
  int zip64 = l && sq_load_u32(l) == 0x07064b50u;
  if (!zip64 &&
      (entries == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu))
    return sq_fail(st, "npz: the zip64 end of central directory locator is "
                       "missing");
  if (zip64) {
    uint64_t zr = npz_u64(l + 8);
    if (sq_load_u32(l + 4) != 0 || sq_load_u32(l + 16) > 1)
      return sq_fail(st, "npz: multi-disk zip archives are not supported");
    const unsigned char *r = NULL;
    if (zr <= eocd - 20 && eocd - 20 - zr >= 56 &&
        !(r = sq_source_span(src, zr, 56, st)))
      return st->code;
    if (!r || sq_load_u32(r) != 0x06064b50u)
      return sq_fail(st, "npz: zip64 end of central directory record offset "
                         "%llu is not a zip64 record", (unsigned long long)zr);
    if (sq_load_u32(r + 16) != 0 || sq_load_u32(r + 20) != 0 ||
        npz_u64(r + 24) != npz_u64(r + 32))
      return sq_fail(st, "npz: multi-disk zip archives are not supported");
    entries = npz_u64(r + 32);
    cd_size = npz_u64(r + 40);
    cd_off = npz_u64(r + 48);
    cd_end = (size_t)zr;
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
  /* The directory is structure: spanned whole. */
  const unsigned char *cd = sq_source_span(src, cd_off, cd_size, st);
  if (!cd) return st->code;
  if (entries && !(*members = sq_file_alloc(ix, entries, sizeof **members,
                                            st)))
    return st->code;

  /* First pass: every entry and its local header, before any member's
  ** bytes are read. */
  size_t at = 0, cdn = (size_t)cd_size;
  for (uint64_t k = 0; k < entries; k++) {
    if (cdn - at < 46 || sq_load_u32(cd + at) != 0x02014b50u)
      return sq_fail(st, "npz: central directory entry %llu at byte %llu is "
                         "not one", (unsigned long long)k,
                     (unsigned long long)(cd_off + at));
    const unsigned char *c = cd + at;
    unsigned flags = sq_load_u16(c + 8), method = sq_load_u16(c + 10);
    uint32_t crc = sq_load_u32(c + 16);
    uint64_t csize = sq_load_u32(c + 20), usize = sq_load_u32(c + 24);
    size_t nlen = sq_load_u16(c + 28), elen = sq_load_u16(c + 30),
           mlen = sq_load_u16(c + 32);
    uint64_t loff = sq_load_u32(c + 42);
    if (cdn - at - 46 < nlen + elen + mlen)
      return sq_fail(st, "npz: central directory entry %llu runs past the "
                         "directory", (unsigned long long)k);
    const unsigned char *nm = c + 46;
    if (npz_zip64_extra(c + 46 + nlen, elen, &usize, &csize, &loff, nm, nlen,
                        st))
      return st->code;
    if (nlen < 4 || memcmp(nm + nlen - 4, ".npy", 4) != 0) {
      size_t plen = 0;
      const unsigned char *pkl =
          npz_torch_pickle(cd, cdn, (size_t)(c - cd), entries - k, &plen);
      if (pkl)
        return sq_fail(st, "a PyTorch checkpoint (torch.save's zip, with "
                           "'%.*s') is not read: " SQ_TORCH_ADVICE,
                       NPZ_NAME(plen, pkl));
      return sq_fail(st, "npz: member '%.*s' is not a .npy array",
                     NPZ_NAME(nlen, nm));
    }
    at += 46 + nlen + elen + mlen;

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
    const unsigned char *lh = NULL;
    if (loff <= cd_off && cd_off - loff >= 30 &&
        !(lh = sq_source_span(src, loff, 30, st)))
      return st->code;
    if (!lh || sq_load_u32(lh) != 0x04034b50u)
      return sq_fail(st, "npz: member '%.*s' local header offset %llu is not "
                         "a local header", NPZ_NAME(nlen, nm),
                     (unsigned long long)loff);
    uint64_t lnlen = sq_load_u16(lh + 26), lelen = sq_load_u16(lh + 28);
    uint64_t data = loff + 30 + lnlen + lelen;
    if (data > cd_off || csize > cd_off - data)
      return sq_fail(st, "npz: member '%.*s' data (%llu bytes at byte %llu) "
                         "is past the end of the archive's data (byte %llu)",
                     NPZ_NAME(nlen, nm), (unsigned long long)csize,
                     (unsigned long long)data, (unsigned long long)cd_off);
    const unsigned char *lname = NULL;
    if (lnlen == nlen && !(lname = sq_source_span(src, loff + 30, nlen, st)))
      return st->code;
    if (!lname || memcmp(lname, nm, nlen) != 0)
      return sq_fail(st, "npz: member '%.*s' local header names another file",
                     NPZ_NAME(nlen, nm));
    npz_member *m = &(*members)[k];
    m->name = nm;
    m->nlen = nlen;
    m->method = method;
    m->crc = crc;
    m->csize = csize;
    m->usize = usize;
    m->loff = loff;
    m->data = data;
  }
  if (at != cdn)
    return sq_fail(st, "npz: central directory has %llu bytes after its %llu "
                       "entries", (unsigned long long)(cdn - at),
                   (unsigned long long)entries);
  if (npz_no_overlaps(*members, entries, ix, st)) return st->code;

  /* Second pass: the members' .npy headers and the stored ones' CRC-32. */
  for (uint64_t k = 0; k < entries; k++) {
    const npz_member *m = &(*members)[k];
    const unsigned char *nm = m->name;
    size_t nlen = m->nlen;
    if (m->method == 8) {
      if (npz_deflated(src, m, ix, z, headbuf, st)) return st->code;
      continue;
    }
    uint32_t crc;
    if (npz_crc(src, m->data, m->csize, &crc, st)) return st->code;
    if (crc != m->crc)
      return sq_fail(st, "npz: member '%.*s' fails its CRC-32 check (corrupt)",
                     NPZ_NAME(nlen, nm));
    npy_info info;
    sq_status sub;
    memset(&sub, 0, sizeof sub);
    sub.max_bytes = st->max_bytes;
    if (npy_parse_at(src, m->data, m->csize, &info, &sub)) {
      if (sub.code == SQ_NOMEM) return sq_nomem(st);
      if (sub.code == SQ_TOOBIG) return sq_toobig(st);
      /* without "npy: "; a failed read says its own words */
      int npy = strncmp(sub.msg, "npy: ", 5) == 0;
      return sq_fail(st, "npz: member '%.*s': %s", NPZ_NAME(nlen, nm),
                     sub.msg + (npy ? 5 : 0));
    }
    if (!npy_add(ix, (const char *)nm, nlen - 4, &info, m->data, st))
      return st->code;
  }

  /* numpy's np.load keeps one array per name: duplicates are refused. */
  if (ix->ntensors > 1) {
    npz_name *names = sq_file_alloc(ix, ix->ntensors, sizeof *names, st);
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

int sq_npz_read(sq_source *src, int want_meta, sq_file_index *ix,
                sq_status *st) {
  (void)want_meta; /* .npz has no metadata */
  npz_member *members = NULL;
  sq_inflate *z = NULL;
  unsigned char *headbuf = NULL;
  npz_read(src, ix, &members, &z, &headbuf, st);
  sqlite3_free(members);
  sqlite3_free(z);
  sqlite3_free(headbuf);
  return st->code;
}
