/*
** safetensors_read.c: the safetensors reader (docs/FORMATS.md#safetensors).
**
** A file is an 8-byte little-endian header length N, N bytes of UTF-8 JSON
** (the header), then the data buffer.  The header is one object: each key
** a tensor name whose value is {"dtype", "shape", "data_offsets": [begin,
** end]} (offsets into the data buffer), plus an optional "__metadata__"
** object of string values.  The rules this reader enforces:
**
**   1. N is at most 100,000,000 and the header lies inside the file; it
**      begins with '{', is valid UTF-8 and strict JSON (no trailing commas,
**      comments, NaN, leading zeros, lone surrogates or control characters
**      in strings), nested at most 64 deep, and only JSON whitespace may
**      follow the object (writers pad the header with spaces);
**   2. dtype is one of F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL
**      F8_E4M3 F8_E5M2 (exactly so spelled), shape at most SQ_MAX_DIMS
**      non-negative integers ([] is a scalar), data_offsets two
**      non-negative integers with begin <= end, and end - begin equals
**      product(shape) x the dtype's size, computed without overflow; other
**      keys of a tensor's object are skipped (as the reference reader does);
**   3. sorted by (begin, end), the tensors cover the data buffer exactly:
**      the first begins at 0, each begins where the previous ended (no
**      holes, no overlaps) and the last ends at the end of the file;
**   4. no name appears twice (tensor names, "__metadata__", the fields of a
**      tensor, the keys of "__metadata__"); no name contains NUL;
**   5. "__metadata__" is null or an object of string values; each entry is
**      a metadata row of type "string" whose value is the string in JSON.
**
** The index lists the tensors in the order of their data (the sort of 3,
** ties in header order); offsets are from the start of the file.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/text.h"
#include "formats/formats.h"
#include "formats/safetensors.h"
#include "kernels/byteorder.h"

#define ST_MAX_HEADER 100000000u
#define ST_MAX_DEPTH 64
#define ST_SHOW 48 /* bytes of a name quoted in a message */

typedef struct st_parser {
  const char *s; /* the header text */
  size_t n, i;   /* its length, the position */
  sq_status *st;
  sq_file_index *ix; /* where memory is charged (formats/index.h) */
} st_parser;

#define ST_DTYPE_ROW(file, name, size) {file, name, size},
const sq_safetensors_dtype sq_safetensors_dtypes[SQ_SAFETENSORS_NDTYPES] = {
  SQ_CATALOGUE_SAFETENSORS_DTYPES(ST_DTYPE_ROW)   /* core/catalogue.h */
};
#undef ST_DTYPE_ROW

/* How many bytes of s[0..len) to quote: at most ST_SHOW, cut at a UTF-8
** character boundary. */
static int st_show(const char *s, size_t len) {
  return sq_utf8_prefix(s, len, ST_SHOW);
}
#define ST_NAME(s) st_show((s), strlen(s)), (s)

static void st_ws(st_parser *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
                         p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

static int st_syntax(st_parser *p, const char *expected) {
  if (p->i >= p->n)
    return sq_fail(p->st, "safetensors: header JSON ends at byte %zu where %s "
                          "was expected", p->i, expected);
  unsigned char c = (unsigned char)p->s[p->i];
  if (c > 0x20 && c < 0x7F)
    return sq_fail(p->st, "safetensors: header JSON has '%c' at byte %zu where "
                          "%s was expected", c, p->i, expected);
  return sq_fail(p->st, "safetensors: header JSON has byte 0x%02x at byte %zu "
                        "where %s was expected", c, p->i, expected);
}

static int st_hex4(const char *s, unsigned *v) {
  *v = 0;
  for (int k = 0; k < 4; k++) {
    char c = s[k];
    unsigned d;
    if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
    else return 0;
    *v = *v * 16 + d;
  }
  return 1;
}

/* A JSON string at p->i (which must be '"'): *raw..*raw+*rawlen are the
** bytes between the quotes, *len the length once unescaped, *nul whether it
** holds a NUL character.  The header was checked to be UTF-8 already. */
static int st_string(st_parser *p, const char **raw, size_t *rawlen,
                     size_t *len, int *nul) {
  if (p->i >= p->n || p->s[p->i] != '"') return st_syntax(p, "a string");
  size_t start = ++p->i, out = 0;
  *nul = 0;
  while (1) {
    if (p->i >= p->n) return st_syntax(p, "the end of a string");
    unsigned char c = (unsigned char)p->s[p->i];
    if (c == '"') break;
    if (c < 0x20) return st_syntax(p, "an escaped control character");
    if (c != '\\') { p->i++; out++; continue; }
    if (p->n - p->i < 2) { p->i = p->n; return st_syntax(p, "an escape"); }
    char e = p->s[p->i + 1];
    if (strchr("\"\\/bfnrt", e) && e) { p->i += 2; out++; continue; }
    if (e != 'u') { p->i++; return st_syntax(p, "an escape"); }
    unsigned u, u2;
    if (p->n - p->i < 6 || !st_hex4(p->s + p->i + 2, &u)) {
      p->i += 2;
      return st_syntax(p, "4 hex digits");
    }
    if (u >= 0xDC00 && u <= 0xDFFF)
      return sq_fail(p->st, "safetensors: header JSON has a lone surrogate "
                            "\\u%04X at byte %zu", u, p->i);
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (p->n - p->i < 12 || p->s[p->i + 6] != '\\' ||
          p->s[p->i + 7] != 'u' || !st_hex4(p->s + p->i + 8, &u2) ||
          u2 < 0xDC00 || u2 > 0xDFFF)
        return sq_fail(p->st, "safetensors: header JSON has a lone surrogate "
                              "\\u%04X at byte %zu", u, p->i);
      p->i += 12;
      out += 4;
      continue;
    }
    if (u == 0) *nul = 1;
    out += u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
    p->i += 6;
  }
  *raw = p->s + start;
  *rawlen = p->i - start;
  *len = out;
  p->i++;
  return SQ_OK;
}

static size_t st_put_utf8(char *o, unsigned u) {
  if (u < 0x80) { o[0] = (char)u; return 1; }
  if (u < 0x800) {
    o[0] = (char)(0xC0 | (u >> 6));
    o[1] = (char)(0x80 | (u & 0x3F));
    return 2;
  }
  if (u < 0x10000) {
    o[0] = (char)(0xE0 | (u >> 12));
    o[1] = (char)(0x80 | ((u >> 6) & 0x3F));
    o[2] = (char)(0x80 | (u & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (u >> 18));
  o[1] = (char)(0x80 | ((u >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((u >> 6) & 0x3F));
  o[3] = (char)(0x80 | (u & 0x3F));
  return 4;
}

/* Unescapes a string st_string validated into o (room for its length). */
static void st_unescape(const char *r, size_t rawlen, char *o) {
  size_t i = 0;
  while (i < rawlen) {
    if (r[i] != '\\') { *o++ = r[i++]; continue; }
    char e = r[i + 1];
    if (e != 'u') {
      *o++ = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n'
           : e == 'r' ? '\r' : e == 't' ? '\t' : e;
      i += 2;
      continue;
    }
    unsigned u, u2;
    st_hex4(r + i + 2, &u);
    i += 6;
    if (u >= 0xD800 && u <= 0xDBFF) {
      st_hex4(r + i + 2, &u2);
      i += 6;
      u = 0x10000 + ((u - 0xD800) << 10) + (u2 - 0xDC00);
    }
    o += st_put_utf8(o, u);
  }
}

/* A string's unescaped bytes: the raw bytes themselves when it has no
** escape, else a copy in *buf (sqlite3_malloc'd, NUL-terminated). */
static int st_string_text(st_parser *p, const char **text, size_t *len,
                          char **buf, int *nul) {
  const char *raw;
  size_t rawlen;
  *buf = NULL;
  if (st_string(p, &raw, &rawlen, len, nul)) return p->st->code;
  if (!memchr(raw, '\\', rawlen)) {
    *text = raw;
    return SQ_OK;
  }
  *buf = sq_file_alloc(p->ix, (uint64_t)*len + 1, 1, p->st);
  if (!*buf) return p->st->code;
  st_unescape(raw, rawlen, *buf);
  (*buf)[*len] = 0;
  *text = *buf;
  return SQ_OK;
}

/* A JSON number at p->i.  *is_uint when it is a plain non-negative integer,
** then *v its value (*big when it exceeds UINT64_MAX). */
static int st_number(st_parser *p, int *is_uint, uint64_t *v, int *big) {
  const char *s = p->s;
  size_t i = p->i;
  *is_uint = 1;
  *big = 0;
  *v = 0;
  if (i < p->n && s[i] == '-') { i++; *is_uint = 0; }
  if (i < p->n && s[i] == '0') {
    i++;
  } else if (i < p->n && s[i] >= '1' && s[i] <= '9') {
    while (i < p->n && s[i] >= '0' && s[i] <= '9') {
      unsigned d = (unsigned)(s[i] - '0');
      if (*v > (UINT64_MAX - d) / 10) *big = 1;
      else *v = *v * 10 + d;
      i++;
    }
  } else {
    p->i = i;
    return st_syntax(p, "a number");
  }
  if (i < p->n && s[i] == '.') {
    *is_uint = 0;
    size_t d = ++i;
    while (i < p->n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) { p->i = i; return st_syntax(p, "a digit"); }
  }
  if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
    *is_uint = 0;
    i++;
    if (i < p->n && (s[i] == '+' || s[i] == '-')) i++;
    size_t d = i;
    while (i < p->n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) { p->i = i; return st_syntax(p, "a digit"); }
  }
  p->i = i;
  return SQ_OK;
}

static int st_deep(st_parser *p) {
  return sq_fail(p->st, "safetensors: the header nests deeper than %d levels "
                        "at byte %zu", ST_MAX_DEPTH, p->i);
}

/* Skips any JSON value at p->i; depth is the value's nesting level. */
static int st_skip(st_parser *p, int depth) {
  if (p->i >= p->n) return st_syntax(p, "a value");
  char c = p->s[p->i];
  if (c == '{' || c == '[') {
    if (depth > ST_MAX_DEPTH) return st_deep(p);
    char close = c == '{' ? '}' : ']';
    p->i++;
    st_ws(p);
    if (p->i < p->n && p->s[p->i] == close) { p->i++; return SQ_OK; }
    while (1) {
      if (c == '{') {
        const char *raw;
        size_t rawlen, len;
        int nul;
        if (st_string(p, &raw, &rawlen, &len, &nul)) return p->st->code;
        st_ws(p);
        if (p->i >= p->n || p->s[p->i] != ':') return st_syntax(p, "':'");
        p->i++;
        st_ws(p);
      }
      if (st_skip(p, depth + 1)) return p->st->code;
      st_ws(p);
      if (p->i < p->n && p->s[p->i] == ',') {
        p->i++;
        st_ws(p);
        continue;
      }
      if (p->i < p->n && p->s[p->i] == close) { p->i++; return SQ_OK; }
      return st_syntax(p, close == '}' ? "',' or '}'" : "',' or ']'");
    }
  }
  if (c == '"') {
    const char *raw;
    size_t rawlen, len;
    int nul;
    return st_string(p, &raw, &rawlen, &len, &nul);
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    int is_uint, big;
    uint64_t v;
    return st_number(p, &is_uint, &v, &big);
  }
  static const char *const words[] = {"true", "false", "null"};
  for (int k = 0; k < 3; k++) {
    size_t wl = strlen(words[k]);
    if (p->n - p->i >= wl && memcmp(p->s + p->i, words[k], wl) == 0) {
      p->i += wl;
      return SQ_OK;
    }
  }
  return st_syntax(p, "a value");
}

/* A non-negative integer at p->i for tensor t's `what` (at most max). */
static int st_uint(st_parser *p, const sq_file_tensor *t, const char *what,
                   uint64_t max, uint64_t *v) {
  size_t at = p->i;
  int is_uint, big;
  if (p->i >= p->n || !(p->s[p->i] == '-' ||
                        (p->s[p->i] >= '0' && p->s[p->i] <= '9'))) {
    if (st_skip(p, 4)) return p->st->code;
    return sq_fail(p->st, "safetensors: tensor '%.*s' %s must be non-negative "
                          "integers, not '%.*s'", ST_NAME(t->name), what,
                   st_show(p->s + at, p->i - at), p->s + at);
  }
  if (st_number(p, &is_uint, v, &big)) return p->st->code;
  if (!is_uint)
    return sq_fail(p->st, "safetensors: tensor '%.*s' %s must be non-negative "
                          "integers, not %.*s", ST_NAME(t->name), what,
                   st_show(p->s + at, p->i - at), p->s + at);
  if (big || *v > max)
    return sq_fail(p->st, "safetensors: tensor '%.*s' %s value %.*s is too "
                          "large", ST_NAME(t->name), what,
                   st_show(p->s + at, p->i - at), p->s + at);
  return SQ_OK;
}

/* An array of at most max non-negative integers for tensor t's `what`. */
static int st_uints(st_parser *p, const sq_file_tensor *t, const char *what,
                    int max, uint64_t lim, uint64_t *v, int *count) {
  *count = 0;
  if (p->i >= p->n || p->s[p->i] != '[') {
    size_t at = p->i;
    if (st_skip(p, 3)) return p->st->code;
    return sq_fail(p->st, "safetensors: tensor '%.*s' %s must be an array, "
                          "not '%.*s'", ST_NAME(t->name), what,
                   st_show(p->s + at, p->i - at), p->s + at);
  }
  p->i++;
  st_ws(p);
  if (p->i < p->n && p->s[p->i] == ']') { p->i++; return SQ_OK; }
  while (1) {
    uint64_t x;
    if (st_uint(p, t, what, lim, &x)) return p->st->code;
    if (*count == max)
      return sq_fail(p->st, "safetensors: tensor '%.*s' %s has more than %d "
                            "entries", ST_NAME(t->name), what, max);
    v[(*count)++] = x;
    st_ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      st_ws(p);
      continue;
    }
    if (p->i < p->n && p->s[p->i] == ']') { p->i++; return SQ_OK; }
    return st_syntax(p, "',' or ']'");
  }
}

/* The shape's text "[2, 3]" into buf (cut short if long). */
static void st_shape_text(const sq_file_tensor *t, char *buf, size_t size) {
  size_t k = 0;
  buf[k++] = '[';
  for (int d = 0; d < t->ndim && k + 24 < size; d++)
    k += (size_t)snprintf(buf + k, size - k, "%s%" PRId64, d ? ", " : "",
                          t->dim[d]);
  if (k + 24 >= size && k + 4 < size) k += (size_t)snprintf(buf + k, size - k, ", ...");
  snprintf(buf + k, size - k, "]");
}

/* The value of tensor t's entry (p->i after its ':'). */
static int st_tensor(st_parser *p, sq_file_tensor *t) {
  int have_dtype = 0, have_shape = 0, have_offsets = 0;
  unsigned size = 0;
  uint64_t off[2] = {0, 0};
  if (p->i >= p->n || p->s[p->i] != '{') {
    size_t at = p->i;
    if (st_skip(p, 2)) return p->st->code;
    return sq_fail(p->st, "safetensors: tensor '%.*s' must be an object, not "
                          "'%.*s'", ST_NAME(t->name),
                   st_show(p->s + at, p->i - at), p->s + at);
  }
  p->i++;
  st_ws(p);
  if (p->i < p->n && p->s[p->i] == '}') {
    p->i++;
  } else {
    while (1) {
      const char *key;
      size_t len;
      char *buf;
      int nul;
      if (st_string_text(p, &key, &len, &buf, &nul)) return p->st->code;
      int field = len == 5 && !memcmp(key, "dtype", 5)          ? 1
                : len == 5 && !memcmp(key, "shape", 5)          ? 2
                : len == 12 && !memcmp(key, "data_offsets", 12) ? 3
                                                                : 0;
      sqlite3_free(buf);
      st_ws(p);
      if (p->i >= p->n || p->s[p->i] != ':') return st_syntax(p, "':'");
      p->i++;
      st_ws(p);
      static const char *const names[] = {"", "dtype", "shape", "data_offsets"};
      int *have = field == 1 ? &have_dtype : field == 2 ? &have_shape
                : field == 3 ? &have_offsets : NULL;
      if (have && *have)
        return sq_fail(p->st, "safetensors: tensor '%.*s' has two '%s' fields",
                       ST_NAME(t->name), names[field]);
      if (have) *have = 1;
      if (field == 1) {
        const char *d;
        size_t dlen;
        size_t at = p->i;
        if (p->i >= p->n || p->s[p->i] != '"') {
          if (st_skip(p, 3)) return p->st->code;
          return sq_fail(p->st, "safetensors: tensor '%.*s' dtype must be a "
                                "string, not '%.*s'", ST_NAME(t->name),
                         st_show(p->s + at, p->i - at), p->s + at);
        }
        if (st_string_text(p, &d, &dlen, &buf, &nul)) return p->st->code;
        int k = 0, nd = SQ_SAFETENSORS_NDTYPES;
        while (k < nd && !(strlen(sq_safetensors_dtypes[k].file) == dlen &&
                           !memcmp(sq_safetensors_dtypes[k].file, d, dlen)))
          k++;
        sqlite3_free(buf);
        if (k == nd) {
          sq_names valid;
          sq_names_begin(&valid);
          for (k = 0; k < nd; k++) sq_names_add(&valid, sq_safetensors_dtypes[k].file);
          return sq_fail(p->st, "safetensors: tensor '%.*s' has unknown dtype "
                                "%.*s (expected %s)", ST_NAME(t->name),
                         st_show(p->s + at, p->i - at), p->s + at,
                         sq_names_join(&valid, ", ", " or "));
        }
        strcpy(t->dtype, sq_safetensors_dtypes[k].name);
        size = sq_safetensors_dtypes[k].size;
      } else if (field == 2) {
        uint64_t dims[SQ_MAX_DIMS];
        if (st_uints(p, t, "shape", SQ_MAX_DIMS, INT64_MAX, dims, &t->ndim))
          return p->st->code;
        for (int d = 0; d < t->ndim; d++) t->dim[d] = (int64_t)dims[d];
      } else if (field == 3) {
        int count;
        if (st_uints(p, t, "data_offsets", 2, UINT64_MAX, off, &count))
          return p->st->code;
        if (count != 2)
          return sq_fail(p->st, "safetensors: tensor '%.*s' data_offsets must "
                                "be [begin, end], not %d numbers",
                         ST_NAME(t->name), count);
      } else if (st_skip(p, 3)) {
        return p->st->code;
      }
      st_ws(p);
      if (p->i < p->n && p->s[p->i] == ',') {
        p->i++;
        st_ws(p);
        continue;
      }
      if (p->i < p->n && p->s[p->i] == '}') { p->i++; break; }
      return st_syntax(p, "',' or '}'");
    }
  }
  const char *missing = !have_dtype ? "dtype" : !have_shape ? "shape"
                      : !have_offsets ? "data_offsets" : NULL;
  if (missing)
    return sq_fail(p->st, "safetensors: tensor '%.*s' has no %s",
                   ST_NAME(t->name), missing);
  if (off[1] < off[0])
    return sq_fail(p->st, "safetensors: tensor '%.*s' data_offsets [%" PRIu64
                          ", %" PRIu64 "] end before they begin",
                   ST_NAME(t->name), off[0], off[1]);
  /* product(shape) x size, without overflow (any zero dim makes it 0). */
  uint64_t need = size;
  int zero = 0, over = 0;
  for (int d = 0; d < t->ndim; d++) zero |= t->dim[d] == 0;
  for (int d = 0; d < t->ndim && !zero; d++) {
    uint64_t x = (uint64_t)t->dim[d];
    if (need > UINT64_MAX / x) over = 1;
    else need *= x;
  }
  if (zero) need = 0;
  if (over || need != off[1] - off[0]) {
    char shape[96];
    st_shape_text(t, shape, sizeof shape);
    if (over)
      return sq_fail(p->st, "safetensors: tensor '%.*s' shape %s holds more "
                            "than 2^64 bytes", ST_NAME(t->name), shape);
    return sq_fail(p->st, "safetensors: tensor '%.*s' data_offsets [%" PRIu64
                          ", %" PRIu64 "] hold %" PRIu64 " bytes but its dtype "
                          "and shape need %" PRIu64, ST_NAME(t->name), off[0],
                   off[1], off[1] - off[0], need);
  }
  t->offset = off[0]; /* relative to the data buffer until checked */
  t->nbytes = off[1] - off[0];
  return SQ_OK;
}

/* JSON text of a string: quotes, \" \\ and control characters escaped. */
static char *st_json_quote(sq_file_index *ix, const char *s, size_t len,
                           sq_status *st) {
  char *o = sq_file_alloc(ix, (uint64_t)len + 1, 6, st);
  if (!o) return NULL;
  size_t k = 0;
  o[k++] = '"';
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                  : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                  : c == '\f' ? "\\f" : NULL;
    if (e) { memcpy(o + k, e, 2); k += 2; }
    else if (c < 0x20) k += (size_t)snprintf(o + k, 7, "\\u%04x", c);
    else o[k++] = (char)c;
  }
  o[k++] = '"';
  o[k] = 0;
  return o;
}

/* The value of "__metadata__" (p->i after its ':'). */
static int st_metadata(st_parser *p, sq_file_index *ix) {
  size_t at = p->i;
  if (p->n - p->i >= 4 && memcmp(p->s + p->i, "null", 4) == 0) {
    p->i += 4;
    return SQ_OK;
  }
  if (p->i >= p->n || p->s[p->i] != '{') {
    if (st_skip(p, 2)) return p->st->code;
    return sq_fail(p->st, "safetensors: __metadata__ must be an object, not "
                          "'%.*s'", st_show(p->s + at, p->i - at), p->s + at);
  }
  p->i++;
  st_ws(p);
  if (p->i < p->n && p->s[p->i] == '}') { p->i++; return SQ_OK; }
  while (1) {
    const char *key, *val;
    size_t klen, vlen;
    char *kbuf, *vbuf;
    int nul;
    size_t kat = p->i;
    if (st_string_text(p, &key, &klen, &kbuf, &nul)) return p->st->code;
    if (nul) {
      sqlite3_free(kbuf);
      return sq_fail(p->st, "safetensors: __metadata__ key at byte %zu "
                            "contains a NUL character", kat);
    }
    sq_file_meta *m = sq_file_add_meta(ix, key, klen, p->st);
    sqlite3_free(kbuf);
    if (!m) return p->st->code;
    st_ws(p);
    if (p->i >= p->n || p->s[p->i] != ':') return st_syntax(p, "':'");
    p->i++;
    st_ws(p);
    at = p->i;
    if (p->i >= p->n || p->s[p->i] != '"') {
      if (st_skip(p, 3)) return p->st->code;
      return sq_fail(p->st, "safetensors: __metadata__ value of '%.*s' must be "
                            "a string, not '%.*s'", ST_NAME(m->key),
                     st_show(p->s + at, p->i - at), p->s + at);
    }
    if (st_string_text(p, &val, &vlen, &vbuf, &nul)) return p->st->code;
    strcpy(m->type, "string");
    m->value = st_json_quote(ix, val, vlen, p->st);
    sqlite3_free(vbuf);
    if (!m->value) return p->st->code;
    st_ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      st_ws(p);
      continue;
    }
    if (p->i < p->n && p->s[p->i] == '}') { p->i++; return SQ_OK; }
    return st_syntax(p, "',' or '}'");
  }
}

typedef struct st_span { uint64_t begin, end; size_t at; } st_span;
typedef struct st_named { const char *name; size_t at; } st_named;

static int st_span_cmp(const void *a, const void *b) {
  const st_span *x = a, *y = b;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}
static int st_named_cmp(const void *a, const void *b) {
  const st_named *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->at < y->at ? -1 : x->at > y->at);
}

/* Names that appear twice: tensor names and metadata keys. */
static int st_duplicates(sq_file_index *ix, sq_status *st) {
  for (int pass = 0; pass < 2; pass++) {
    size_t count = pass ? ix->nmeta : ix->ntensors;
    if (count < 2) continue;
    st_named *v = sq_file_alloc(ix, count, sizeof *v, st);
    if (!v) return st->code;
    for (size_t i = 0; i < count; i++) {
      v[i].name = pass ? ix->meta[i].key : ix->tensors[i].name;
      v[i].at = i;
    }
    qsort(v, count, sizeof *v, st_named_cmp);
    for (size_t i = 1; i < count; i++) {
      if (strcmp(v[i - 1].name, v[i].name) == 0) {
        sq_fail(st, pass ? "safetensors: __metadata__ key '%.*s' appears twice"
                         : "safetensors: tensor '%.*s' appears twice",
                ST_NAME(v[i].name));
        break;
      }
    }
    sqlite3_free(v);
    if (st->code) return st->code;
  }
  return SQ_OK;
}

/* Sorts the tensors by their data and checks that they cover the data
** buffer (size data_len, at file offset base) exactly. */
static int st_layout(sq_file_index *ix, uint64_t base, uint64_t data_len,
                     sq_status *st) {
  size_t nt = ix->ntensors;
  uint64_t at = 0;
  if (nt) {
    st_span *v = sq_file_alloc(ix, nt, sizeof *v, st);
    if (!v) return st->code;
    for (size_t i = 0; i < nt; i++) {
      v[i].begin = ix->tensors[i].offset;
      v[i].end = ix->tensors[i].offset + ix->tensors[i].nbytes;
      v[i].at = i;
    }
    qsort(v, nt, sizeof *v, st_span_cmp);
    const sq_file_tensor *prev = NULL;
    for (size_t i = 0; i < nt && !st->code; i++) {
      const sq_file_tensor *t = &ix->tensors[v[i].at];
      if (v[i].begin < at)
        sq_fail(st, "safetensors: tensor '%.*s' data_offsets [%" PRIu64 ", %"
                    PRIu64 "] overlap tensor '%.*s' data_offsets [%" PRIu64
                    ", %" PRIu64 "]", ST_NAME(t->name), v[i].begin, v[i].end,
                ST_NAME(prev->name), v[i - 1].begin, v[i - 1].end);
      else if (v[i].begin > at)
        sq_fail(st, "safetensors: tensor '%.*s' data_offsets [%" PRIu64 ", %"
                    PRIu64 "] leave a hole: bytes [%" PRIu64 ", %" PRIu64
                    ") of the data belong to no tensor", ST_NAME(t->name),
                v[i].begin, v[i].end, at, v[i].begin);
      else if (v[i].end > data_len)
        sq_fail(st, "safetensors: tensor '%.*s' data_offsets [%" PRIu64 ", %"
                    PRIu64 "] end past the %" PRIu64 "-byte data buffer (is "
                    "the file truncated?)", ST_NAME(t->name), v[i].begin,
                v[i].end, data_len);
      at = v[i].end;
      prev = t;
    }
    sq_file_tensor *sorted =
        st->code ? NULL : sq_file_alloc(ix, nt, sizeof *sorted, st);
    if (sorted) {
      for (size_t i = 0; i < nt; i++) {
        sorted[i] = ix->tensors[v[i].at];
        sorted[i].offset += base;
      }
      sqlite3_free(ix->tensors);
      ix->tensors = sorted;
      ix->tensors_cap = nt;
    }
    sqlite3_free(v);
    if (st->code) return st->code;
  }
  if (at != data_len)
    return sq_fail(st, "safetensors: the tensors' data ends at byte %" PRIu64
                       " of the %" PRIu64 "-byte data buffer (%" PRIu64
                       " bytes belong to no tensor)", at, data_len,
                   data_len - at);
  return SQ_OK;
}

static int st_read(sq_source *src, int want_meta, sq_file_index *ix,
                   sq_status *st) {
  size_t n = (size_t)src->size;
  if (n < 8)
    return sq_fail(st, "safetensors: the file is %zu bytes, too short for the "
                       "8-byte header length", n);
  const unsigned char *p = sq_source_span(src, 0, 8, st);
  if (!p) return st->code;
  uint64_t hlen = (uint64_t)sq_load_u32(p) | (uint64_t)sq_load_u32(p + 4) << 32;
  if (hlen > ST_MAX_HEADER)
    return sq_fail(st, "safetensors: header length %" PRIu64 " is over the "
                       "limit of %u bytes", hlen, ST_MAX_HEADER);
  if (hlen > n - 8)
    return sq_fail(st, "safetensors: header length %" PRIu64 " is past the end "
                       "of the %zu-byte file", hlen, n);
  /* The header is the structure: the one span (rule 2 of index.h). */
  const unsigned char *h = hlen ? sq_source_span(src, 8, hlen, st) : NULL;
  if (hlen && !h) return st->code;
  if (hlen == 0 || h[0] != '{')
    return sq_fail(st, "safetensors: the header does not begin with '{'");
  size_t bad = sq_utf8_check(h, (size_t)hlen);
  if (bad < hlen)
    return sq_fail(st, "safetensors: the header is not UTF-8 (byte 0x%02x at "
                       "byte %zu)", h[bad], bad);
  st_parser ps = {(const char *)h, (size_t)hlen, 1, st, ix};
  st_parser *q = &ps;
  int have_meta = 0;
  st_ws(q);
  if (q->i < q->n && q->s[q->i] == '}') {
    q->i++;
  } else {
    while (1) {
      const char *key;
      size_t len, kat = q->i;
      char *buf;
      int nul;
      if (st_string_text(q, &key, &len, &buf, &nul)) return st->code;
      if (len == 12 && memcmp(key, "__metadata__", 12) == 0) {
        sqlite3_free(buf);
        if (have_meta)
          return sq_fail(st, "safetensors: __metadata__ appears twice");
        have_meta = 1;
        st_ws(q);
        if (q->i >= q->n || q->s[q->i] != ':') return st_syntax(q, "':'");
        q->i++;
        st_ws(q);
        if (st_metadata(q, ix)) return st->code;
      } else {
        if (nul) {
          sqlite3_free(buf);
          return sq_fail(st, "safetensors: the tensor name at byte %zu "
                             "contains a NUL character", kat);
        }
        sq_file_tensor *t = sq_file_add_tensor(ix, key, len, st);
        sqlite3_free(buf);
        if (!t) return st->code;
        st_ws(q);
        if (q->i >= q->n || q->s[q->i] != ':') return st_syntax(q, "':'");
        q->i++;
        st_ws(q);
        if (st_tensor(q, t)) return st->code;
      }
      st_ws(q);
      if (q->i < q->n && q->s[q->i] == ',') {
        q->i++;
        st_ws(q);
        continue;
      }
      if (q->i < q->n && q->s[q->i] == '}') { q->i++; break; }
      return st_syntax(q, "',' or '}'");
    }
  }
  st_ws(q);
  if (q->i < q->n)
    return sq_fail(st, "safetensors: the header has bytes after its JSON "
                       "object, from byte %zu (only whitespace may pad it)",
                   q->i);
  if (st_duplicates(ix, st)) return st->code;
  if (st_layout(ix, 8 + hlen, n - 8 - hlen, st)) return st->code;
  if (!want_meta) {
    for (size_t i = 0; i < ix->nmeta; i++) {
      sqlite3_free(ix->meta[i].key);
      sqlite3_free(ix->meta[i].value);
    }
    ix->nmeta = 0;
  }
  return SQ_OK;
}

/* No magic: a little-endian u64 header length, then the header's '{'. */
int sq_safetensors_guess(const unsigned char *p, size_t n) {
  return n >= 9 && p[8] == '{';
}

int sq_safetensors_read(sq_source *src, int want_meta, sq_file_index *ix,
                        sq_status *st) {
  if (st_read(src, want_meta, ix, st)) sq_file_index_free(ix);
  return st->code;
}
