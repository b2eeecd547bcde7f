/*
** model_write.c: model files written from tensors (docs/FORMATS.md#writing).
*/
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "core/crc32.h"
#include "core/model_write.h"
#include "core/text.h"
#include "kernels/byteorder.h"

/* ------------------------------------------------------------------ .npy */

/* The dtypes a .npy holds: the readers' names, numpy's descr (little-endian
** form; the "be" names swap '<' for '>'), the item size. */
static const struct {
  const char *name, *descr;
  int size;
} npy_write_types[] = {
  {"f16", "<f2", 2},    {"f32", "<f4", 4},    {"f64", "<f8", 8},
  {"int8", "|i1", 1},   {"int16", "<i2", 2},  {"int32", "<i4", 4},
  {"int64", "<i8", 8},  {"uint8", "|u1", 1},  {"uint16", "<u2", 2},
  {"uint32", "<u4", 4}, {"uint64", "<u8", 8}, {"bool", "|b1", 1},
};

static int npy_name_eq(const char *a, size_t alen, const char *b, size_t blen) {
  if (alen != blen) return 0;
  for (size_t i = 0; i < alen; i++) {
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (x >= 'A' && x <= 'Z') x = (unsigned char)(x - 'A' + 'a');
    if (x != y) return 0;
  }
  return 1;
}

/* numpy's header: "{'descr': '<f4', 'fortran_order': False, 'shape': (3,
** 4), }", then (format.py _write_array_header) 21 - len(repr(shape[0]))
** spaces of growth room, then (_wrap_header) spaces and '\n' so that magic +
** version + length field + header is a multiple of 64 bytes. */
int sq_npy_write(const char *dtype, size_t dtype_len, const sq_shape *shape,
                 const void *data, size_t nbytes, unsigned char **out,
                 uint64_t *outn, sq_status *st) {
  *out = NULL;
  *outn = 0;
  char descr[4];
  int size = 0;
  for (size_t k = 0; k < sizeof npy_write_types / sizeof npy_write_types[0];
       k++) {
    const char *nm = npy_write_types[k].name;
    size_t nl = strlen(nm);
    int be = 0;
    if (npy_name_eq(dtype, dtype_len, nm, nl)) be = 0;
    else if (npy_write_types[k].size > 1 && dtype_len == nl + 2 &&
             npy_name_eq(dtype, nl, nm, nl) &&
             npy_name_eq(dtype + nl, 2, "be", 2)) be = 1;
    else continue;
    memcpy(descr, npy_write_types[k].descr, 4);
    if (be) descr[0] = '>';
    size = npy_write_types[k].size;
    break;
  }
  if (!size)
    return sq_fail(st, "dtype '%.*s' has no numpy dtype (a .npy holds f16 f32 "
                       "f64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
                       "bool, or a big-endian f16be ... uint64be)",
                   dtype_len > 40 ? 40 : (int)dtype_len, dtype);
  /* shape->count <= 2 x SQLITE_LIMIT_LENGTH, so this cannot overflow. */
  uint64_t want = shape->count * (uint64_t)size;
  if ((uint64_t)nbytes != want)
    return sq_fail(st, "data has %zu bytes but %llu elements of %.*s take %llu",
                   nbytes, (unsigned long long)shape->count, (int)dtype_len,
                   dtype, (unsigned long long)want);

  /* The dict, at most 60 + 32 x 21 bytes, plus growth room. */
  char h[64 + SQ_MAX_DIMS * 24 + 32];
  size_t k = (size_t)snprintf(h, sizeof h,
                              "{'descr': '%s', 'fortran_order': False, "
                              "'shape': (", descr);
  for (int d = 0; d < shape->ndim; d++)
    k += (size_t)snprintf(h + k, sizeof h - k, "%s%lld", d ? ", " : "",
                          (long long)shape->dim[d]);
  k += (size_t)snprintf(h + k, sizeof h - k, "%s), }",
                        shape->ndim == 1 ? "," : "");
  if (shape->ndim > 0) {
    char first[24];
    int flen = snprintf(first, sizeof first, "%lld", (long long)shape->dim[0]);
    for (int g = flen; g < 21; g++) h[k++] = ' ';
  }

  /* Version 1.0 (u16 length) unless the padded header passes 65535. */
  uint64_t hlen = k + 1, field = 2;
  uint64_t pad = 64 - ((6 + 2 + field + hlen) % 64);
  int major = 1;
  if (hlen + pad > 65535) {
    major = 2;
    field = 4;
    pad = 64 - ((6 + 2 + field + hlen) % 64);
  }
  uint64_t head = 8 + field + hlen + pad;
  unsigned char *p = sq_alloc(st, head + nbytes, 1);
  if (!p) return st->code;
  memcpy(p, "\x93NUMPY", 6);
  p[6] = (unsigned char)major;
  p[7] = 0;
  if (major == 1) sq_store_u16(p + 8, (uint16_t)(hlen + pad));
  else sq_store_u32(p + 8, (uint32_t)(hlen + pad));
  memcpy(p + 8 + field, h, k);
  memset(p + 8 + field + k, ' ', pad);
  p[head - 1] = '\n';
  if (nbytes) memcpy(p + head, data, nbytes);
  *out = p;
  *outn = head + nbytes;
  return SQ_OK;
}

/* ---------------------------------------------------------- safetensors */

/* Appends len bytes to a growing buffer: capacity doubles, but never past
** what sq_realloc allows (st->max_bytes), so only a real need is SQ_TOOBIG. */
static int sw_put(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                  const void *p, uint64_t len) {
  if (len > *cap - *n) {
    if (len > UINT64_MAX - *n) return sq_toobig(st);
    uint64_t need = *n + len, want = *cap ? *cap : 256;
    while (want < need) want = want > UINT64_MAX / 2 ? need : want * 2;
    if (want > (uint64_t)st->max_bytes && need <= (uint64_t)st->max_bytes)
      want = (uint64_t)st->max_bytes;
    char *q = sq_realloc(st, *buf, want, 1);
    if (!q) return st->code;
    *buf = q;
    *cap = want;
  }
  if (len) memcpy(*buf + *n, p, len);
  *n += len;
  return SQ_OK;
}

/* s[0..n) (valid UTF-8) as a JSON string, escaped as serde_json does. */
static int sw_json_string(sq_status *st, sq_st_writer *w, char **buf,
                          uint64_t *n, uint64_t *cap, const char *s,
                          size_t len) {
  (void)w;
  if (!s) s = "";               /* an empty decoded string has no buffer */
  if (sw_put(st, buf, n, cap, "\"", 1)) return st->code;
  size_t run = 0;
  for (size_t i = 0; i <= len; i++) {
    unsigned char c = i < len ? (unsigned char)s[i] : 0;
    if (i < len && c >= 0x20 && c != '"' && c != '\\') continue;
    if (sw_put(st, buf, n, cap, s + run, i - run)) return st->code;
    run = i + 1;
    if (i == len) break;
    char esc[8];
    const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
                  : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                  : c == '\t' ? "\\t" : NULL;
    if (!e) {
      snprintf(esc, sizeof esc, "\\u%04x", c);
      e = esc;
    }
    if (sw_put(st, buf, n, cap, e, strlen(e))) return st->code;
  }
  return sw_put(st, buf, n, cap, "\"", 1);
}

/* Readers' dtype names and safetensors' (core/safetensors.c's table). */
static const struct {
  const char *name, *file;
  int size;
} st_write_types[] = {
  {"f64", "F64", 8},     {"f32", "F32", 4},         {"f16", "F16", 2},
  {"bf16", "BF16", 2},   {"int64", "I64", 8},       {"int32", "I32", 4},
  {"int16", "I16", 2},   {"int8", "I8", 1},         {"uint64", "U64", 8},
  {"uint32", "U32", 4},  {"uint16", "U16", 2},      {"uint8", "U8", 1},
  {"bool", "BOOL", 1},   {"f8_e4m3", "F8_E4M3", 1}, {"f8_e5m2", "F8_E5M2", 1},
};

/* The most header a reader accepts (core/safetensors.c). */
#define SW_MAX_HEADER 100000000u

#define SW_SHOW(len) ((len) > 48 ? 48 : (int)(len))

int sq_st_writer_add(sq_st_writer *w, const char *name, size_t name_len,
                     const char *dtype, size_t dtype_len, const sq_shape *shape,
                     const void *data, size_t nbytes, sq_status *st) {
  int t = -1;
  for (size_t k = 0; k < sizeof st_write_types / sizeof st_write_types[0]; k++)
    if (npy_name_eq(dtype, dtype_len, st_write_types[k].name,
                    strlen(st_write_types[k].name))) {
      t = (int)k;
      break;
    }
  if (t < 0)
    return sq_fail(st, "dtype '%.*s' has no safetensors dtype (f64 f32 f16 "
                       "bf16 int64 int32 int16 int8 uint64 uint32 uint16 uint8 "
                       "bool f8_e4m3 f8_e5m2)", SW_SHOW(dtype_len), dtype);
  for (size_t i = 0; i < name_len;) {
    uint32_t cp;
    size_t k = sq_utf8_decode((const unsigned char *)name + i, name_len - i, &cp);
    if (!k)
      return sq_fail(st, "name '%.*s' is not valid UTF-8 at byte %zu",
                     SW_SHOW(i), name, i);
    i += k;
  }
  if (name_len == 12 && memcmp(name, "__metadata__", 12) == 0)
    return sq_fail(st, "name '__metadata__' is the header's metadata key");
  for (size_t k = 0; k < w->ntensors; k++)
    if (w->names[2 * k + 1] == name_len &&
        (name_len == 0 || memcmp(w->keys + w->names[2 * k], name, name_len) == 0))
      return sq_fail(st, "name '%.*s' is given twice", SW_SHOW(name_len),
                     name);
  uint64_t want = shape->count * (uint64_t)st_write_types[t].size;
  if ((uint64_t)nbytes != want)
    return sq_fail(st, "tensor '%.*s': data has %zu bytes but %llu elements "
                       "of %s take %llu", SW_SHOW(name_len), name, nbytes,
                   (unsigned long long)shape->count, st_write_types[t].name,
                   (unsigned long long)want);
  /* ,"name":{"dtype":"F32","shape":[2,3],"data_offsets":[a,b]} */
  if (w->ntensors == w->names_cap) {
    size_t cap = w->names_cap ? 2 * w->names_cap : 16;
    uint64_t *q = sq_realloc(st, w->names, cap, 2 * sizeof *q);
    if (!q) return st->code;
    w->names = q;
    w->names_cap = cap;
  }
  uint64_t at = w->nkeys;
  if (sw_put(st, &w->keys, &w->nkeys, &w->keys_cap, name, name_len) ||
      (w->nhead && sw_put(st, &w->head, &w->nhead, &w->head_cap, ",", 1)) ||
      sw_json_string(st, w, &w->head, &w->nhead, &w->head_cap, name, name_len))
    return st->code;
  char num[64];
  int k = snprintf(num, sizeof num, ":{\"dtype\":\"%s\",\"shape\":[",
                   st_write_types[t].file);
  if (sw_put(st, &w->head, &w->nhead, &w->head_cap, num, (uint64_t)k))
    return st->code;
  for (int d = 0; d < shape->ndim; d++) {
    k = snprintf(num, sizeof num, "%s%lld", d ? "," : "",
                 (long long)shape->dim[d]);
    if (sw_put(st, &w->head, &w->nhead, &w->head_cap, num, (uint64_t)k))
      return st->code;
  }
  k = snprintf(num, sizeof num, "],\"data_offsets\":[%llu,%llu]}",
               (unsigned long long)w->ndata,
               (unsigned long long)(w->ndata + nbytes));
  if (sw_put(st, &w->head, &w->nhead, &w->head_cap, num, (uint64_t)k) ||
      sw_put(st, &w->data, &w->ndata, &w->data_cap, data, nbytes))
    return st->code;
  w->names[2 * w->ntensors] = at;
  w->names[2 * w->ntensors + 1] = name_len;
  w->ntensors++;
  return SQ_OK;
}

/* ---- metadata: a JSON object of strings, decoded and written again ---- */

typedef struct sw_json {
  const unsigned char *s;
  size_t n, i;
  sq_status *st;
} sw_json;

static void sw_ws(sw_json *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
                         j->s[j->i] == '\n' || j->s[j->i] == '\r'))
    j->i++;
}

static int sw_expected(sw_json *j, const char *what) {
  if (j->i >= j->n)
    return sq_fail(j->st, "metadata ends where %s was expected", what);
  return sq_fail(j->st, "metadata has byte 0x%02x at byte %zu where %s was "
                        "expected", j->s[j->i], j->i, what);
}

static int sw_hex4(sw_json *j, uint32_t *v) {
  if (j->n - j->i < 4) return sw_expected(j, "4 hex digits");
  *v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned char c = j->s[j->i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return sw_expected(j, "a hex digit");
    *v = *v << 4 | (uint32_t)d;
    j->i++;
  }
  return SQ_OK;
}

/* A JSON string decoded to UTF-8 into out (reset first). */
static int sw_string(sw_json *j, char **out, uint64_t *n, uint64_t *cap,
                     const char *what) {
  *n = 0;
  if (j->i >= j->n || j->s[j->i] != '"') return sw_expected(j, what);
  j->i++;
  for (;;) {
    if (j->i >= j->n) return sq_fail(j->st, "metadata ends inside a string");
    unsigned char c = j->s[j->i];
    if (c == '"') {
      j->i++;
      return SQ_OK;
    }
    if (c < 0x20)
      return sq_fail(j->st, "metadata has control character 0x%02x in a "
                            "string at byte %zu", c, j->i);
    if (c != '\\') {
      uint32_t cp;
      size_t k = sq_utf8_decode(j->s + j->i, j->n - j->i, &cp);
      if (!k)
        return sq_fail(j->st, "metadata is not valid UTF-8 at byte %zu", j->i);
      if (sw_put(j->st, out, n, cap, j->s + j->i, k)) return j->st->code;
      j->i += k;
      continue;
    }
    size_t at = j->i++;
    if (j->i >= j->n) return sq_fail(j->st, "metadata ends inside a string");
    c = j->s[j->i++];
    uint32_t cp;
    switch (c) {
      case '"': cp = '"'; break;
      case '\\': cp = '\\'; break;
      case '/': cp = '/'; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'n': cp = '\n'; break;
      case 'r': cp = '\r'; break;
      case 't': cp = '\t'; break;
      case 'u':
        if (sw_hex4(j, &cp)) return j->st->code;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (j->n - j->i < 2 || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u')
            return sq_fail(j->st, "metadata has a lone surrogate at byte %zu",
                           at);
          j->i += 2;
          if (sw_hex4(j, &lo)) return j->st->code;
          if (lo < 0xDC00 || lo > 0xDFFF)
            return sq_fail(j->st, "metadata has a lone surrogate at byte %zu",
                           at);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return sq_fail(j->st, "metadata has a lone surrogate at byte %zu", at);
        }
        break;
      default:
        return sq_fail(j->st, "metadata has the bad escape '\\%c' at byte %zu",
                       c >= 0x20 && c < 0x7f ? c : '?', at);
    }
    unsigned char u[4];
    size_t k;
    if (cp < 0x80) { u[0] = (unsigned char)cp; k = 1; }
    else if (cp < 0x800) {
      u[0] = (unsigned char)(0xC0 | cp >> 6); u[1] = (unsigned char)(0x80 | (cp & 0x3F)); k = 2;
    } else if (cp < 0x10000) {
      u[0] = (unsigned char)(0xE0 | cp >> 12); u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
      u[2] = (unsigned char)(0x80 | (cp & 0x3F)); k = 3;
    } else {
      u[0] = (unsigned char)(0xF0 | cp >> 18); u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
      u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); u[3] = (unsigned char)(0x80 | (cp & 0x3F));
      k = 4;
    }
    if (sw_put(j->st, out, n, cap, u, k)) return j->st->code;
  }
}

int sq_st_writer_metadata(sq_st_writer *w, const char *json, size_t len,
                          sq_status *st) {
  sw_json j = {(const unsigned char *)json, len, 0, st};
  char *meta = NULL, *key = NULL, *val = NULL, *keys = NULL;
  uint64_t nmeta = 0, cmeta = 0, nkey = 0, ckey = 0, nval = 0, cval = 0;
  uint64_t nkeys = 0, ckeys = 0;
  uint64_t *spans = NULL;  /* per key: [start, len) in keys */
  size_t nspans = 0, cspans = 0;
  sw_ws(&j);
  if (j.i >= j.n || j.s[j.i] != '{') {
    sw_expected(&j, "a JSON object '{'");
    goto fail;
  }
  j.i++;
  if (sw_put(st, &meta, &nmeta, &cmeta, "{", 1)) goto fail;
  sw_ws(&j);
  if (j.i < j.n && j.s[j.i] == '}') {
    j.i++;
  } else {
    for (;;) {
      sw_ws(&j);
      if (sw_string(&j, &key, &nkey, &ckey, "a key string")) goto fail;
      if (nkey && memchr(key, 0, nkey)) {
        sq_fail(st, "metadata key '%.*s' contains NUL", SW_SHOW(nkey), key);
        goto fail;
      }
      for (size_t k = 0; k < nspans; k++)
        if (spans[2 * k + 1] == nkey &&
            (nkey == 0 || memcmp(keys + spans[2 * k], key, nkey) == 0)) {
          sq_fail(st, "metadata has the key '%.*s' twice", SW_SHOW(nkey), key);
          goto fail;
        }
      sw_ws(&j);
      if (j.i >= j.n || j.s[j.i] != ':') {
        sw_expected(&j, "':'");
        goto fail;
      }
      j.i++;
      sw_ws(&j);
      if (j.i < j.n && j.s[j.i] != '"') {
        sq_fail(st, "metadata value of '%.*s' is not a string (safetensors "
                    "metadata maps strings to strings)", SW_SHOW(nkey), key);
        goto fail;
      }
      if (sw_string(&j, &val, &nval, &cval, "a value string")) goto fail;
      if (nspans == cspans) {
        size_t c = cspans ? 2 * cspans : 8;
        uint64_t *q = sq_realloc(st, spans, c, 2 * sizeof *q);
        if (!q) goto fail;
        spans = q;
        cspans = c;
      }
      spans[2 * nspans] = nkeys;
      spans[2 * nspans + 1] = nkey;
      nspans++;
      if (sw_put(st, &keys, &nkeys, &ckeys, key, nkey) ||
          (nspans > 1 && sw_put(st, &meta, &nmeta, &cmeta, ",", 1)) ||
          sw_json_string(st, w, &meta, &nmeta, &cmeta, key, nkey) ||
          sw_put(st, &meta, &nmeta, &cmeta, ":", 1) ||
          sw_json_string(st, w, &meta, &nmeta, &cmeta, val, nval))
        goto fail;
      sw_ws(&j);
      if (j.i < j.n && j.s[j.i] == ',') {
        j.i++;
        continue;
      }
      if (j.i < j.n && j.s[j.i] == '}') {
        j.i++;
        break;
      }
      sw_expected(&j, "',' or '}'");
      goto fail;
    }
  }
  sw_ws(&j);
  if (j.i != j.n) {
    sw_expected(&j, "the end of the metadata");
    goto fail;
  }
  if (sw_put(st, &meta, &nmeta, &cmeta, "}", 1)) goto fail;
  sqlite3_free(w->meta);
  w->meta = meta;
  w->nmeta = nmeta;
  meta = NULL;
fail:
  sqlite3_free(meta);
  sqlite3_free(key);
  sqlite3_free(val);
  sqlite3_free(keys);
  sqlite3_free(spans);
  return st->code;
}

int sq_st_writer_finish(const sq_st_writer *w, unsigned char **out,
                        uint64_t *outn, sq_status *st) {
  *out = NULL;
  *outn = 0;
  /* {"__metadata__":META,HEAD} padded with spaces to a multiple of 8. */
  uint64_t h = 2 + w->nhead;
  if (w->meta) h += 15 + w->nmeta + (w->nhead ? 1 : 0);
  uint64_t padded = (h + 7) / 8 * 8;
  if (padded > SW_MAX_HEADER)
    return sq_fail(st, "the header of %llu bytes passes safetensors' "
                       "100,000,000-byte limit", (unsigned long long)padded);
  if (8 + padded > UINT64_MAX - w->ndata) return sq_toobig(st);
  unsigned char *p = sq_alloc(st, 8 + padded + w->ndata, 1);
  if (!p) return st->code;
  sq_store_u32(p, (uint32_t)padded);
  sq_store_u32(p + 4, 0);
  unsigned char *q = p + 8;
  *q++ = '{';
  if (w->meta) {
    memcpy(q, "\"__metadata__\":", 15);
    q += 15;
    memcpy(q, w->meta, w->nmeta);
    q += w->nmeta;
    if (w->nhead) *q++ = ',';
  }
  if (w->nhead) memcpy(q, w->head, w->nhead);
  q += w->nhead;
  *q++ = '}';
  memset(q, ' ', padded - h);
  if (w->ndata) memcpy(p + 8 + padded, w->data, w->ndata);
  *out = p;
  *outn = 8 + padded + w->ndata;
  return SQ_OK;
}

void sq_st_writer_free(sq_st_writer *w) {
  sqlite3_free(w->data);
  sqlite3_free(w->head);
  sqlite3_free(w->names);
  sqlite3_free(w->keys);
  sqlite3_free(w->meta);
  memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------------ .npz */

#define NPZ_SHOW(len) ((len) > 60 ? 60 : (int)(len))
/* 1980-01-01 00:00:00 in MS-DOS form: zip's earliest date. */
#define NPZ_DOS_TIME 0
#define NPZ_DOS_DATE ((0u << 9) | (1u << 5) | 1u)

int sq_npz_writer_add(sq_npz_writer *w, const char *name, size_t name_len,
                      const char *dtype, size_t dtype_len,
                      const sq_shape *shape, const void *data, size_t nbytes,
                      sq_status *st) {
  int ascii = 1;
  for (size_t i = 0; i < name_len;) {
    uint32_t cp;
    size_t k = sq_utf8_decode((const unsigned char *)name + i, name_len - i, &cp);
    if (!k || cp == 0)
      return sq_fail(st, "name '%.*s' is not valid UTF-8 without NUL at byte "
                         "%zu", NPZ_SHOW(i), name, i);
    ascii &= cp < 0x80;
    i += k;
  }
  if (name_len > 65535 - 4)
    return sq_fail(st, "name of %zu bytes is longer than a zip member name "
                       "may be (65531 and \".npy\")", name_len);
  unsigned char *img;
  uint64_t nimg;
  if (sq_npy_write(dtype, dtype_len, shape, data, nbytes, &img, &nimg, st)) {
    /* sq_npy_write's messages do not say which tensor. */
    sq_status inner = *st;
    memset(st, 0, sizeof *st);
    st->max_bytes = inner.max_bytes;
    if (inner.code != SQ_INVALID) return (st->code = inner.code);
    return sq_fail(st, "tensor '%.*s': %s", NPZ_SHOW(name_len), name,
                   inner.msg);
  }
  uint64_t at = w->nbody;
  unsigned flags = ascii ? 0 : 0x800;  /* bit 11: the name is UTF-8 */
  uint32_t crc = sq_crc32(0, img, nimg);
  unsigned char lh[30], ch[46];
  /* A BLOB is below 2^31 bytes (SQLITE_LIMIT_LENGTH): no zip64 sizes. */
  if (at > 0xFFFFFFFEu || nimg > 0xFFFFFFFEu - at) {
    sqlite3_free(img);
    return sq_toobig(st);
  }
  sq_store_u32(lh, 0x04034b50u);
  sq_store_u16(lh + 4, 20);                /* version needed: 2.0 */
  sq_store_u16(lh + 6, (uint16_t)flags);
  sq_store_u16(lh + 8, 0);                 /* method: stored */
  sq_store_u16(lh + 10, NPZ_DOS_TIME);
  sq_store_u16(lh + 12, NPZ_DOS_DATE);
  sq_store_u32(lh + 14, crc);
  sq_store_u32(lh + 18, (uint32_t)nimg);   /* compressed size */
  sq_store_u32(lh + 22, (uint32_t)nimg);   /* size */
  sq_store_u16(lh + 26, (uint16_t)(name_len + 4));
  sq_store_u16(lh + 28, 0);                /* no extra field */
  sq_store_u32(ch, 0x02014b50u);
  sq_store_u16(ch + 4, 20);                /* made by: 2.0, MS-DOS */
  memcpy(ch + 6, lh + 4, 26);              /* version needed .. name length */
  sq_store_u16(ch + 30, 0);                /* extra */
  sq_store_u16(ch + 32, 0);                /* comment */
  sq_store_u16(ch + 34, 0);                /* disk */
  sq_store_u16(ch + 36, 0);                /* internal attributes */
  sq_store_u32(ch + 38, 0);                /* external attributes */
  sq_store_u32(ch + 42, (uint32_t)at);     /* local header offset */
  int rc = sw_put(st, &w->body, &w->nbody, &w->body_cap, lh, 30) ||
           sw_put(st, &w->body, &w->nbody, &w->body_cap, name, name_len) ||
           sw_put(st, &w->body, &w->nbody, &w->body_cap, ".npy", 4) ||
           sw_put(st, &w->body, &w->nbody, &w->body_cap, img, nimg) ||
           sw_put(st, &w->dir, &w->ndir, &w->dir_cap, ch, 46) ||
           sw_put(st, &w->dir, &w->ndir, &w->dir_cap, name, name_len) ||
           sw_put(st, &w->dir, &w->ndir, &w->dir_cap, ".npy", 4);
  sqlite3_free(img);
  if (rc) return st->code;
  w->nmembers++;
  return SQ_OK;
}

typedef struct npz_span {
  const char *s;
  size_t len;
} npz_span;

static int npz_span_cmp(const void *a, const void *b) {
  const npz_span *x = a, *y = b;
  size_t k = x->len < y->len ? x->len : y->len;
  int c = k ? memcmp(x->s, y->s, k) : 0;
  if (c) return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* np.load keeps one array per name: a name given twice is an error. */
static int npz_unique(const sq_npz_writer *w, sq_status *st) {
  if (w->nmembers < 2) return SQ_OK;
  npz_span *v = sq_alloc(st, w->nmembers, sizeof *v);
  if (!v) return st->code;
  uint64_t at = 0;
  for (uint64_t i = 0; i < w->nmembers; i++) {
    size_t len = sq_load_u16(w->dir + at + 28);
    v[i].s = w->dir + at + 46;
    v[i].len = len - 4;
    at += 46 + len;
  }
  qsort(v, (size_t)w->nmembers, sizeof *v, npz_span_cmp);
  for (uint64_t i = 1; i < w->nmembers; i++)
    if (npz_span_cmp(&v[i - 1], &v[i]) == 0) {
      sq_fail(st, "name '%.*s' is given twice", NPZ_SHOW(v[i].len), v[i].s);
      break;
    }
  sqlite3_free(v);
  return st->code;
}

int sq_npz_writer_finish(const sq_npz_writer *w, unsigned char **out,
                         uint64_t *outn, sq_status *st) {
  *out = NULL;
  *outn = 0;
  if (npz_unique(w, st)) return st->code;
  /* More than 65535 members: the zip64 end record (56 bytes) and its
  ** locator (20) before the end record, whose count says 0xFFFF. */
  int zip64 = w->nmembers > 0xFFFF;
  uint64_t tail = 22 + (zip64 ? 56 + 20 : 0);
  if (w->nbody > UINT64_MAX - w->ndir - tail) return sq_toobig(st);
  uint64_t total = w->nbody + w->ndir + tail;
  if (total > 0xFFFFFFFEu) return sq_toobig(st);
  unsigned char *p = sq_alloc(st, total, 1);
  if (!p) return st->code;
  if (w->nbody) memcpy(p, w->body, w->nbody);
  if (w->ndir) memcpy(p + w->nbody, w->dir, w->ndir);
  unsigned char *e = p + w->nbody + w->ndir;
  if (zip64) {
    sq_store_u32(e, 0x06064b50u);
    sq_store_u32(e + 4, 44);   /* the record's size after this field */
    sq_store_u32(e + 8, 0);
    sq_store_u16(e + 12, 45);  /* made by: 4.5 */
    sq_store_u16(e + 14, 45);  /* needed: 4.5 */
    sq_store_u32(e + 16, 0);   /* this disk */
    sq_store_u32(e + 20, 0);   /* the directory's disk */
    sq_store_u32(e + 24, (uint32_t)w->nmembers);
    sq_store_u32(e + 28, 0);
    sq_store_u32(e + 32, (uint32_t)w->nmembers);
    sq_store_u32(e + 36, 0);
    sq_store_u32(e + 40, (uint32_t)w->ndir);
    sq_store_u32(e + 44, 0);
    sq_store_u32(e + 48, (uint32_t)w->nbody);
    sq_store_u32(e + 52, 0);
    e += 56;
    sq_store_u32(e, 0x07064b50u);
    sq_store_u32(e + 4, 0);    /* the zip64 record's disk */
    sq_store_u32(e + 8, (uint32_t)(w->nbody + w->ndir));
    sq_store_u32(e + 12, 0);
    sq_store_u32(e + 16, 1);   /* disks */
    e += 20;
  }
  uint16_t count = zip64 ? 0xFFFF : (uint16_t)w->nmembers;
  sq_store_u32(e, 0x06054b50u);
  sq_store_u16(e + 4, 0);
  sq_store_u16(e + 6, 0);
  sq_store_u16(e + 8, count);
  sq_store_u16(e + 10, count);
  sq_store_u32(e + 12, (uint32_t)w->ndir);
  sq_store_u32(e + 16, (uint32_t)w->nbody);
  sq_store_u16(e + 20, 0);     /* no comment */
  *out = p;
  *outn = total;
  return SQ_OK;
}

void sq_npz_writer_free(sq_npz_writer *w) {
  sqlite3_free(w->body);
  sqlite3_free(w->dir);
  memset(w, 0, sizeof *w);
}
