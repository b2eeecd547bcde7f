/*
** gguf_read.c: the GGUF reader (docs/FORMATS.md#gguf).
**
** GGUF v2 and v3, little-endian: "GGUF", u32 version, u64 tensor count,
** u64 key-value count, the key-value pairs, the tensor infos, padding to
** general.alignment, then the data section.  The rules of index.h hold
** throughout: every read is checked against the bytes left first, every count
** is checked against the smallest number of bytes its entries can take before
** anything is sized or looped over, and every tensor's data is checked to lie
** inside the file, aligned, overlapping no other tensor.  Dims are stored in
** ggml's order (ne[0] varies fastest) and reported reversed (numpy's order).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/text.h"
#include "formats/formats.h"
#include "formats/gguf.h"
#include "kernels/byteorder.h"
#include "kernels/ggml.h"

/* The source, its size and the read position; the index charged for
** memory (formats/index.h). */
typedef struct gguf_reader {
  sq_source *src;
  size_t n, pos;
  sq_status *st;
  sq_file_index *ix;
} gguf_reader;

/* The k bytes at the position (which gguf_need checked are there): the
** file's structure, spanned. */
static const unsigned char *gguf_at(gguf_reader *r, uint64_t k) {
  return sq_source_span(r->src, r->pos, k, r->st);
}

/* Fails unless k more bytes are left; what names the field. */
static int gguf_need(gguf_reader *r, uint64_t k, const char *what) {
  if (k > r->n - r->pos) {
    return sq_fail(r->st, "gguf: truncated: %s at byte %llu needs %llu bytes, "
                   "%llu are left", what, (unsigned long long)r->pos,
                   (unsigned long long)k, (unsigned long long)(r->n - r->pos));
  }
  return SQ_OK;
}

static uint64_t gguf_u64_at(const unsigned char *p) {
  return (uint64_t)sq_load_u32(p) | ((uint64_t)sq_load_u32(p + 4) << 32);
}

static int gguf_u32(gguf_reader *r, uint32_t *v, const char *what) {
  if (gguf_need(r, 4, what)) return SQ_INVALID;
  const unsigned char *p = gguf_at(r, 4);
  if (!p) return r->st->code;
  *v = sq_load_u32(p);
  r->pos += 4;
  return SQ_OK;
}

static int gguf_u64(gguf_reader *r, uint64_t *v, const char *what) {
  if (gguf_need(r, 8, what)) return SQ_INVALID;
  const unsigned char *p = gguf_at(r, 8);
  if (!p) return r->st->code;
  *v = gguf_u64_at(p);
  r->pos += 8;
  return SQ_OK;
}

/* A GGUF string: u64 length, then that many bytes of UTF-8.  what names it in
** errors; a name (key or tensor name) may not hold a NUL byte. */
static int gguf_string(gguf_reader *r, const unsigned char **s, size_t *len,
                       const char *what, int is_name) {
  uint64_t l;
  if (gguf_u64(r, &l, what)) return SQ_INVALID;
  if (l > r->n - r->pos) {
    return sq_fail(r->st, "gguf: %s at byte %llu has length %llu, past the end "
                   "of the %llu-byte file", what, (unsigned long long)(r->pos - 8),
                   (unsigned long long)l, (unsigned long long)r->n);
  }
  if (!(*s = gguf_at(r, l))) return r->st->code;
  *len = (size_t)l;
  if (is_name && memchr(*s, 0, *len)) {
    return sq_fail(r->st, "gguf: %s at byte %llu contains a NUL byte", what,
                   (unsigned long long)(r->pos - 8));
  }
  if (sq_utf8_check(*s, *len) != *len) {
    return sq_fail(r->st, "gguf: %s at byte %llu is not valid UTF-8", what,
                   (unsigned long long)(r->pos - 8));
  }
  r->pos += *len;
  return SQ_OK;
}

/* ---- metadata values ---- */

/* The names (sq_gguf_type_names, gguf.h) and the bytes of one value
** (strings take at least their 8-byte length), by id (core/catalogue.h). */
#define GGUF_VALUE_NAME(name, bytes) name,
#define GGUF_VALUE_BYTES(name, bytes) bytes,
const char *const sq_gguf_type_names[GGUF_NTYPES] = {
  SQ_CATALOGUE_GGUF_VALUE_TYPES(GGUF_VALUE_NAME)};
static const unsigned char gguf_type_bytes[] = {
  SQ_CATALOGUE_GGUF_VALUE_TYPES(GGUF_VALUE_BYTES)};
#undef GGUF_VALUE_NAME
#undef GGUF_VALUE_BYTES
_Static_assert(sizeof gguf_type_bytes == GGUF_NTYPES,
               "ext/catalogue.toml's GGUF value types match gguf.h's enum");

/* JSON has no NaN or infinity: they are written as the strings "NaN",
** "Infinity" and "-Infinity" (the type column still says float). */
static int gguf_nonfinite(double d, char *buf) {
  if (d != d) return (int)strlen(strcpy(buf, "\"NaN\""));
  if (d > 0) return (int)strlen(strcpy(buf, "\"Infinity\""));
  return (int)strlen(strcpy(buf, "\"-Infinity\""));
}

/* One scalar value of type `type` (not string, not array) at p as JSON. */
static int gguf_scalar_json(int type, const unsigned char *p, char *buf) {
  switch (type) {
    case GGUF_U8: return snprintf(buf, 32, "%u", (unsigned)p[0]);
    case GGUF_I8: return snprintf(buf, 32, "%d", (int)(int8_t)p[0]);
    case GGUF_U16: return snprintf(buf, 32, "%u", (unsigned)sq_load_u16(p));
    case GGUF_I16: return snprintf(buf, 32, "%d", (int)(int16_t)sq_load_u16(p));
    case GGUF_U32: return snprintf(buf, 32, "%lu", (unsigned long)sq_load_u32(p));
    case GGUF_I32: return snprintf(buf, 32, "%ld", (long)(int32_t)sq_load_u32(p));
    case GGUF_U64:
      return snprintf(buf, 32, "%llu", (unsigned long long)gguf_u64_at(p));
    case GGUF_I64:
      return snprintf(buf, 32, "%lld", (long long)(int64_t)gguf_u64_at(p));
    case GGUF_BOOL: return (int)strlen(strcpy(buf, p[0] ? "true" : "false"));
    case GGUF_F32: {
      float f = sq_load_f32(p);
      if (f - f != 0) return gguf_nonfinite((double)f, buf);
      return sq_format_f32(f, buf);
    }
    default: { /* GGUF_F64 */
      uint64_t u = gguf_u64_at(p);
      double d;
      memcpy(&d, &u, 8);
      if (d - d != 0) return gguf_nonfinite(d, buf);
      return sq_format_f64(d, buf);
    }
  }
}

/* Reads one value of element type `type` (not an array) at the reader,
** appending its JSON to t when t is not NULL.  key names it in errors.
** A scalar's bytes are at p when p is not NULL (an array's, spanned
** whole), else they are spanned here. */
static int gguf_value(gguf_reader *r, int type, sq_file_text *t,
                      const unsigned char *key, size_t keylen,
                      const unsigned char *p) {
  if (type == GGUF_STRING) {
    const unsigned char *s;
    size_t len;
    if (gguf_string(r, &s, &len, "string value", 0)) return SQ_INVALID;
    return t ? sq_file_text_json_string(t, s, len, r->st) : SQ_OK;
  }
  if (!p) {
    if (gguf_need(r, gguf_type_bytes[type], "value")) return SQ_INVALID;
    if (!(p = gguf_at(r, gguf_type_bytes[type]))) return r->st->code;
  }
  if (type == GGUF_BOOL && p[0] > 1) {
    return sq_fail(r->st, "gguf: key '%.*s': bool value %u is neither 0 nor 1",
                   sq_file_quote_len(key, keylen), (const char *)key,
                   (unsigned)p[0]);
  }
  r->pos += gguf_type_bytes[type];
  if (!t) return SQ_OK;
  char buf[40];
  int len = gguf_scalar_json(type, p, buf);
  return sq_file_text_add(t, buf, (size_t)len, r->st);
}

/* ---- tensor types ---- */

/* ggml's types that are not among the ten block formats of kernels/ggml.h,
** with ggml's names and sizes (ggml_type_size / ggml_blck_size of the pinned
** libggml-base, docs/FORMATS.md#gguf). */
typedef struct gguf_tensor_type {
  int id;
  const char *name;
  uint32_t block, bytes;
} gguf_tensor_type;

static const gguf_tensor_type gguf_plain_types[] = {
#define GGUF_TYPE_ROW(id, name, block, bytes) {id, name, block, bytes},
  SQ_CATALOGUE_GGUF_TYPES(GGUF_TYPE_ROW)   /* core/catalogue.h */
#undef GGUF_TYPE_ROW
};

/* The name, block and block bytes of ggml type id; 0 if unknown. */
static int gguf_tensor_type_find(uint32_t id, const char **name,
                                 uint64_t *block, uint64_t *bytes) {
  for (int i = 0; i < SQ_GGML_NTYPES; i++) {
    if ((uint32_t)sq_ggml_formats[i].ggml_id == id) {
      *name = sq_ggml_formats[i].name;
      *block = sq_ggml_formats[i].block;
      *bytes = sq_ggml_formats[i].bytes;
      return 1;
    }
  }
  for (size_t i = 0; i < sizeof gguf_plain_types / sizeof *gguf_plain_types;
       i++) {
    if ((uint32_t)gguf_plain_types[i].id == id) {
      *name = gguf_plain_types[i].name;
      *block = gguf_plain_types[i].block;
      *bytes = gguf_plain_types[i].bytes;
      return 1;
    }
  }
  return 0;
}

void sq_gguf_element_type_names(sq_names *l) {
  for (size_t i = 0; i < sizeof gguf_plain_types / sizeof *gguf_plain_types; i++)
    if (gguf_plain_types[i].block == 1) sq_names_add(l, gguf_plain_types[i].name);
}

/* The writer's side (gguf_write.c): a ggml type by the name the
** reader gives it, compared without regard to ASCII case. */
int sq_gguf_type_named(const char *s, size_t len, uint32_t *id,
                       const char **name, uint64_t *block, uint64_t *bytes) {
  for (uint32_t k = 0; k < 64; k++) {
    const char *nm;
    if (!gguf_tensor_type_find(k, &nm, block, bytes)) continue;
    if (sq_word_is(s, len, nm)) {
      *id = k;
      *name = nm;
      return 1;
    }
  }
  return 0;
}

/* ---- duplicates and overlaps ---- */

typedef struct gguf_span {
  const unsigned char *s;
  size_t len;
} gguf_span;

typedef struct gguf_spans {
  gguf_span *v;
  size_t n, cap;
  sq_file_index *ix;
} gguf_spans;

static int gguf_spans_add(gguf_spans *a, const unsigned char *s, size_t len,
                          sq_status *st) {
  if (a->n == a->cap) {
    size_t want = a->cap ? a->cap * 2 : 16;
    gguf_span *v = sq_file_realloc(a->ix, a->v, want, sizeof *v, st);
    if (!v) return st->code;
    a->v = v;
    a->cap = want;
  }
  a->v[a->n].s = s;
  a->v[a->n].len = len;
  a->n++;
  return SQ_OK;
}

static int gguf_span_cmp(const void *x, const void *y) {
  const gguf_span *a = x, *b = y;
  size_t m = a->len < b->len ? a->len : b->len;
  int c = m ? memcmp(a->s, b->s, m) : 0;
  if (c) return c;
  return (a->len > b->len) - (a->len < b->len);
}

/* Fails naming the first of the names that appears twice. */
static int gguf_no_duplicates(gguf_spans *a, const char *what, sq_status *st) {
  if (a->n < 2) return SQ_OK;
  qsort(a->v, a->n, sizeof *a->v, gguf_span_cmp);
  for (size_t i = 1; i < a->n; i++) {
    if (gguf_span_cmp(&a->v[i - 1], &a->v[i]) == 0) {
      return sq_fail(st, "gguf: duplicate %s '%.*s'", what,
                     sq_file_quote_len(a->v[i].s, a->v[i].len),
                     (const char *)a->v[i].s);
    }
  }
  return SQ_OK;
}

typedef struct gguf_extent {
  uint64_t start, end;
  size_t tensor;
} gguf_extent;

static int gguf_extent_cmp(const void *x, const void *y) {
  const gguf_extent *a = x, *b = y;
  if (a->start != b->start) return (a->start > b->start) - (a->start < b->start);
  return (a->tensor > b->tensor) - (a->tensor < b->tensor);
}

static int gguf_no_overlaps(sq_file_index *ix, sq_status *st) {
  size_t m = 0;
  for (size_t i = 0; i < ix->ntensors; i++) m += ix->tensors[i].nbytes > 0;
  if (m < 2) return SQ_OK;
  gguf_extent *e = sq_file_alloc(ix, m, sizeof *e, st);
  if (!e) return st->code;
  m = 0;
  for (size_t i = 0; i < ix->ntensors; i++) {
    if (!ix->tensors[i].nbytes) continue;
    e[m].start = ix->tensors[i].offset;
    e[m].end = ix->tensors[i].offset + ix->tensors[i].nbytes;
    e[m].tensor = i;
    m++;
  }
  qsort(e, m, sizeof *e, gguf_extent_cmp);
  for (size_t i = 1; i < m; i++) {
    if (e[i].start < e[i - 1].end) {
      const char *a = ix->tensors[e[i - 1].tensor].name;
      const char *b = ix->tensors[e[i].tensor].name;
      sq_fail(st, "gguf: the data of tensors '%.*s' and '%.*s' overlap",
              sq_file_quote_len(a, strlen(a)), a, sq_file_quote_len(b, strlen(b)), b);
      break;
    }
  }
  sqlite3_free(e);
  return st->code;
}

/* ---- the reader ---- */

/* The key-value pairs: records general.alignment, adds meta rows when
** want_meta, collects the keys for the duplicate check. */
static int gguf_read_kvs(gguf_reader *r, uint64_t nkv, int want_meta,
                         sq_file_index *ix, gguf_spans *keys,
                         uint64_t *alignment) {
  sq_status *st = r->st;
  for (uint64_t k = 0; k < nkv; k++) {
    const unsigned char *key;
    size_t keylen;
    uint32_t type;
    if (gguf_string(r, &key, &keylen, "key", 1)) return SQ_INVALID;
    if (gguf_spans_add(keys, key, keylen, st)) return st->code;
    int kl = sq_file_quote_len(key, keylen);
    if (gguf_u32(r, &type, "value type")) return SQ_INVALID;
    if (type >= GGUF_NTYPES) {
      return sq_fail(st, "gguf: key '%.*s' has unknown value type %lu", kl,
                     (const char *)key, (unsigned long)type);
    }
    int is_alignment = keylen == 17 && memcmp(key, "general.alignment", 17) == 0;
    if (is_alignment) {
      if (type != GGUF_U32) {
        return sq_fail(st, "gguf: general.alignment must be a uint32, not %s",
                       sq_gguf_type_names[type]);
      }
      if (gguf_need(r, 4, "value")) return SQ_INVALID;
      const unsigned char *ap = gguf_at(r, 4);
      if (!ap) return st->code;
      uint32_t a = sq_load_u32(ap);
      if (a == 0 || (a & (a - 1)) != 0) {
        return sq_fail(st, "gguf: general.alignment %lu is not a power of 2",
                       (unsigned long)a);
      }
      *alignment = a;
    }
    sq_file_text text = {NULL, 0, 0, ix};
    sq_file_text *t = want_meta ? &text : NULL;
    char tname[24];
    snprintf(tname, sizeof tname, "%s", sq_gguf_type_names[type]);
    int rc = SQ_OK;
    if (type == GGUF_ARRAY) {
      uint32_t et;
      uint64_t count;
      if (gguf_u32(r, &et, "array element type")) return SQ_INVALID;
      if (et >= GGUF_NTYPES) {
        return sq_fail(st, "gguf: key '%.*s': array of unknown type %lu", kl,
                       (const char *)key, (unsigned long)et);
      }
      if (et == GGUF_ARRAY) {
        return sq_fail(st, "gguf: key '%.*s': arrays of arrays are not "
                       "supported", kl, (const char *)key);
      }
      if (gguf_u64(r, &count, "array length")) return SQ_INVALID;
      if (count > (r->n - r->pos) / gguf_type_bytes[et]) {
        return sq_fail(st, "gguf: key '%.*s': an array of %llu %s values "
                       "cannot fit in the %llu bytes left", kl,
                       (const char *)key, (unsigned long long)count,
                       sq_gguf_type_names[et],
                       (unsigned long long)(r->n - r->pos));
      }
      snprintf(tname, sizeof tname, "array[%s]", sq_gguf_type_names[et]);
      /* An array of numbers is spanned whole (its count fits, checked
      ** above); without metadata only bools need their bytes seen. */
      const unsigned char *elems = NULL;
      uint64_t esize = gguf_type_bytes[et];
      if (et != GGUF_STRING) {
        if (!t && et != GGUF_BOOL) {
          r->pos += (size_t)(count * esize);
          count = 0;
        } else if (!(elems = gguf_at(r, count * esize))) {
          return st->code;
        }
      }
      if (t) rc = sq_file_text_add(t, "[", 1, st);
      for (uint64_t i = 0; !rc && i < count; i++) {
        if (t && i) rc = sq_file_text_add(t, ",", 1, st);
        if (!rc) rc = gguf_value(r, (int)et, t, key, keylen,
                                 elems ? elems + i * esize : NULL);
      }
      if (t && !rc) rc = sq_file_text_add(t, "]", 1, st);
    } else {
      rc = gguf_value(r, (int)type, t, key, keylen, NULL);
    }
    if (!rc && t) {
      sq_file_meta *m = sq_file_add_meta(ix, (const char *)key, keylen, st);
      if (m) {
        memcpy(m->type, tname, sizeof m->type);
        m->value = text.s;
        text.s = NULL;
      }
      rc = st->code;
    }
    sqlite3_free(text.s);
    if (rc) return st->code ? st->code : rc;
  }
  return SQ_OK;
}

static int gguf_read_tensor_info(gguf_reader *r, sq_file_index *ix,
                                 gguf_spans *names) {
  sq_status *st = r->st;
  const unsigned char *name;
  size_t namelen;
  uint32_t ndims, type;
  uint64_t ne[GGUF_MAX_DIMS], offset;
  if (gguf_string(r, &name, &namelen, "tensor name", 1)) return SQ_INVALID;
  int nl = sq_file_quote_len(name, namelen);
  if (gguf_u32(r, &ndims, "tensor dimension count")) return SQ_INVALID;
  if (ndims > GGUF_MAX_DIMS) {
    return sq_fail(st, "gguf: tensor '%.*s' has %lu dimensions (ggml allows at "
                   "most %d)", nl, (const char *)name, (unsigned long)ndims,
                   GGUF_MAX_DIMS);
  }
  for (uint32_t d = 0; d < ndims; d++) {
    if (gguf_u64(r, &ne[d], "tensor dimension")) return SQ_INVALID;
    if (ne[d] > (uint64_t)INT64_MAX) {
      return sq_fail(st, "gguf: tensor '%.*s' dimension %lu is %llu (above "
                     "2^63 - 1)", nl, (const char *)name, (unsigned long)d,
                     (unsigned long long)ne[d]);
    }
  }
  if (gguf_u32(r, &type, "tensor type")) return SQ_INVALID;
  if (gguf_u64(r, &offset, "tensor offset")) return SQ_INVALID;

  const char *tname;
  uint64_t block, bytes;
  if (!gguf_tensor_type_find(type, &tname, &block, &bytes)) {
    return sq_fail(st, "gguf: tensor '%.*s' has unknown ggml type %lu", nl,
                   (const char *)name, (unsigned long)type);
  }
  /* Rows of ne[0] elements: block types need whole blocks per row. */
  uint64_t row = ndims ? ne[0] : 1, rows = 1, nbytes;
  if (row % block) {
    return sq_fail(st, "gguf: tensor '%.*s' of type %s has rows of %llu "
                   "elements, not a multiple of the block size %llu", nl,
                   (const char *)name, tname, (unsigned long long)row,
                   (unsigned long long)block);
  }
  int over = __builtin_mul_overflow(row / block, bytes, &nbytes);
  for (uint32_t d = 1; d < ndims; d++)
    over |= __builtin_mul_overflow(rows, ne[d], &rows);
  over |= __builtin_mul_overflow(nbytes, rows, &nbytes);
  if (over) {
    return sq_fail(st, "gguf: tensor '%.*s' is too large (its size overflows "
                   "64 bits)", nl, (const char *)name);
  }
  if (gguf_spans_add(names, name, namelen, st)) return st->code;
  sq_file_tensor *t = sq_file_add_tensor(ix, (const char *)name, namelen, st);
  if (!t) return st->code;
  snprintf(t->dtype, sizeof t->dtype, "%s", tname);
  t->ndim = (int)ndims;
  for (uint32_t d = 0; d < ndims; d++) t->dim[d] = (int64_t)ne[ndims - 1 - d];
  t->offset = offset;  /* relative to the data section until it is known */
  t->nbytes = nbytes;
  return SQ_OK;
}

int sq_gguf_read(sq_source *src, int want_meta, sq_file_index *ix,
                 sq_status *st) {
  size_t n = (size_t)src->size;
  gguf_reader r = {src, n, 0, st, ix};
  gguf_spans keys = {NULL, 0, 0, ix}, names = {NULL, 0, 0, ix};
  uint32_t version;
  uint64_t ntensors, nkv, alignment = GGUF_DEFAULT_ALIGNMENT;

  const unsigned char *p = n >= 4 ? sq_source_span(src, 0, 4, st) : NULL;
  if (n >= 4 && !p) return st->code;
  if (n < 4 || memcmp(p, "GGUF", 4) != 0) {
    return sq_fail(st, "gguf: not a GGUF file (the first 4 bytes are not "
                   "\"GGUF\")");
  }
  r.pos = 4;
  if (gguf_u32(&r, &version, "version")) return SQ_INVALID;
  if (version == 1) {
    return sq_fail(st, "gguf: version 1 is not supported (GGUF v1 used 32-bit "
                   "counts; only versions 2 and 3 are read)");
  }
  if (version != 2 && version != 3) {
    if ((version & 0xFFFF) == 0 && (version >> 24) >= 1 && (version >> 24) <= 3)
      return sq_fail(st, "gguf: version %lu: this looks like a big-endian GGUF "
                     "file, which is not supported", (unsigned long)version);
    return sq_fail(st, "gguf: version %lu is not supported (only versions 2 "
                   "and 3 are read)", (unsigned long)version);
  }
  if (gguf_u64(&r, &ntensors, "tensor count")) return SQ_INVALID;
  if (gguf_u64(&r, &nkv, "key-value count")) return SQ_INVALID;
  /* A key-value pair takes at least 13 bytes (key length, type, one byte of
  ** value) and a tensor info at least 24 (name length, dimension count,
  ** type, offset). */
  uint64_t left = n - r.pos;
  if (nkv > left / 13) {
    return sq_fail(st, "gguf: key-value count %llu is impossible: %llu bytes "
                   "are left", (unsigned long long)nkv, (unsigned long long)left);
  }
  if (ntensors > left / 24) {
    return sq_fail(st, "gguf: tensor count %llu is impossible: %llu bytes "
                   "are left", (unsigned long long)ntensors,
                   (unsigned long long)left);
  }

  int rc = gguf_read_kvs(&r, nkv, want_meta, ix, &keys, &alignment);
  if (!rc) rc = gguf_no_duplicates(&keys, "key", st);
  if (!rc && ntensors > (n - r.pos) / 24) {
    rc = sq_fail(st, "gguf: truncated: %llu tensor infos at byte %llu need at "
                 "least %llu bytes, %llu are left",
                 (unsigned long long)ntensors, (unsigned long long)r.pos,
                 (unsigned long long)(ntensors * 24),
                 (unsigned long long)(n - r.pos));
  }
  for (uint64_t i = 0; !rc && i < ntensors; i++)
    rc = gguf_read_tensor_info(&r, ix, &names);
  if (!rc) rc = gguf_no_duplicates(&names, "tensor name", st);
  sqlite3_free(keys.v);
  sqlite3_free(names.v);
  if (rc) return st->code ? st->code : rc;

  /* The data section starts at the next multiple of the alignment. */
  uint64_t data = (r.pos + alignment - 1) / alignment * alignment;
  for (size_t i = 0; i < ix->ntensors; i++) {
    sq_file_tensor *t = &ix->tensors[i];
    int nl = sq_file_quote_len(t->name, strlen(t->name));
    if (t->offset % alignment) {
      return sq_fail(st, "gguf: tensor '%.*s' offset %llu is not a multiple "
                     "of the alignment %llu", nl, t->name,
                     (unsigned long long)t->offset,
                     (unsigned long long)alignment);
    }
    if (data > n || t->offset > n - data || t->nbytes > n - data - t->offset) {
      return sq_fail(st, "gguf: tensor '%.*s' data (%llu bytes at offset %llu "
                     "of the data section at byte %llu) is past the end of the "
                     "%llu-byte file", nl, t->name, (unsigned long long)t->nbytes,
                     (unsigned long long)t->offset, (unsigned long long)data,
                     (unsigned long long)n);
    }
    t->offset += data;
  }
  return gguf_no_overlaps(ix, st);
}
