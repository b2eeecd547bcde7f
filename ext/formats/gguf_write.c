/*
** model_metadata.c: the writers' metadata argument (JSON text) decoded into
** the file's own encoding: safetensors' "__metadata__" object
** (docs/FORMATS.md#writing-safetensors) or GGUF's typed key-value pairs
** (docs/FORMATS.md#gguf-metadata).  Strict: every rule broken is an error
** naming the key or the byte.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "formats/tensor_writer.h"
#include "formats/write_buffer.h"
#include "core/text.h"
#include "kernels/byteorder.h"

/* ---- metadata: JSON text decoded ---- */

typedef struct mw_json {
  const unsigned char *s;
  size_t n, i;
  sq_status *st;
} mw_json;

static void mw_ws(mw_json *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
                         j->s[j->i] == '\n' || j->s[j->i] == '\r'))
    j->i++;
}

static int mw_expected(mw_json *j, const char *what) {
  if (j->i >= j->n)
    return sq_fail(j->st, "metadata ends where %s was expected", what);
  return sq_fail(j->st, "metadata has byte 0x%02x at byte %zu where %s was "
                        "expected", j->s[j->i], j->i, what);
}

static int mw_hex4(mw_json *j, uint32_t *v) {
  if (j->n - j->i < 4) return mw_expected(j, "4 hex digits");
  *v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned char c = j->s[j->i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return mw_expected(j, "a hex digit");
    *v = *v << 4 | (uint32_t)d;
    j->i++;
  }
  return SQ_OK;
}

/* A JSON string decoded to UTF-8 into out (reset first). */
static int mw_string(mw_json *j, char **out, uint64_t *n, uint64_t *cap,
                     const char *what) {
  *n = 0;
  if (j->i >= j->n || j->s[j->i] != '"') return mw_expected(j, what);
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
      if (sq_mw_put(j->st, out, n, cap, j->s + j->i, k)) return j->st->code;
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
        if (mw_hex4(j, &cp)) return j->st->code;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (j->n - j->i < 2 || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u')
            return sq_fail(j->st, "metadata has a lone surrogate at byte %zu",
                           at);
          j->i += 2;
          if (mw_hex4(j, &lo)) return j->st->code;
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
    if (cp < 0x80) {
      u[0] = (unsigned char)cp;
      k = 1;
    } else if (cp < 0x800) {
      u[0] = (unsigned char)(0xC0 | cp >> 6);
      u[1] = (unsigned char)(0x80 | (cp & 0x3F));
      k = 2;
    } else if (cp < 0x10000) {
      u[0] = (unsigned char)(0xE0 | cp >> 12);
      u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
      u[2] = (unsigned char)(0x80 | (cp & 0x3F));
      k = 3;
    } else {
      u[0] = (unsigned char)(0xF0 | cp >> 18);
      u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
      u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
      u[3] = (unsigned char)(0x80 | (cp & 0x3F));
      k = 4;
    }
    if (sq_mw_put(j->st, out, n, cap, u, k)) return j->st->code;
  }
}

/* The keys seen, for duplicates. */
typedef struct mw_keys {
  char *keys;
  uint64_t nkeys, ckeys;
  uint64_t *spans;              /* per key: [start, len) in keys */
  size_t n, cap;
} mw_keys;

static int mw_keys_add(mw_keys *k, const char *key, uint64_t len,
                       sq_status *st) {
  for (size_t i = 0; i < k->n; i++)
    if (k->spans[2 * i + 1] == len &&
        (len == 0 || memcmp(k->keys + k->spans[2 * i], key, len) == 0))
      return sq_fail(st, "metadata has the key '%.*s' twice", SQ_MW_SHOW(len),
                     key);
  if (k->n == k->cap) {
    size_t c = k->cap ? 2 * k->cap : 8;
    uint64_t *q = sq_realloc(st, k->spans, c, 2 * sizeof *q);
    if (!q) return st->code;
    k->spans = q;
    k->cap = c;
  }
  k->spans[2 * k->n] = k->nkeys;
  k->spans[2 * k->n + 1] = len;
  k->n++;
  return sq_mw_put(st, &k->keys, &k->nkeys, &k->ckeys, key, len);
}

/* ---- GGUF metadata values ---- */

enum {
  G_U8, G_I8, G_U16, G_I16, G_U32, G_I32, G_F32, G_BOOL, G_STRING, G_ARRAY,
  G_U64, G_I64, G_F64, G_NTYPES
};

static const char *const g_type_names[G_NTYPES] = {
  "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool",
  "string", "array", "uint64", "int64", "float64"};

/* A JSON number token at j: its extent, and whether it is an integer. */
static int mw_number(mw_json *j, size_t *len, int *is_int) {
  size_t i = j->i;
  const unsigned char *s = j->s;
  *is_int = 1;
  if (i < j->n && s[i] == '-') i++;
  if (i >= j->n || s[i] < '0' || s[i] > '9') return 0;
  if (s[i] == '0') i++;
  else while (i < j->n && s[i] >= '0' && s[i] <= '9') i++;
  if (i < j->n && s[i] == '.') {
    *is_int = 0;
    i++;
    if (i >= j->n || s[i] < '0' || s[i] > '9') return 0;
    while (i < j->n && s[i] >= '0' && s[i] <= '9') i++;
  }
  if (i < j->n && (s[i] == 'e' || s[i] == 'E')) {
    *is_int = 0;
    i++;
    if (i < j->n && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= j->n || s[i] < '0' || s[i] > '9') return 0;
    while (i < j->n && s[i] >= '0' && s[i] <= '9') i++;
  }
  *len = i - j->i;
  return 1;
}

typedef struct mw_gguf_ctx {
  mw_json *j;
  sq_model_writer *w;
  const char *key;
  uint64_t keylen;
  char *str;                     /* scratch for decoded strings */
  uint64_t nstr, cstr;
} mw_gguf_ctx;

static int mw_value_fail(mw_gguf_ctx *c, int type) {
  mw_json *j = c->j;
  return sq_fail(j->st, "metadata key '%.*s': a value of type %s was "
                        "expected at byte %zu", SQ_MW_SHOW(c->keylen), c->key,
                 g_type_names[type], j->i);
}

/* One value of `type` (not an array) from the JSON, appended to the
** key-value bytes. */
static int mw_gguf_value(mw_gguf_ctx *c, int type, uint32_t *alignment) {
  mw_json *j = c->j;
  sq_model_writer *w = c->w;
  sq_status *st = j->st;
  if (type == G_STRING) {
    if (j->i >= j->n || j->s[j->i] != '"') return mw_value_fail(c, type);
    if (mw_string(j, &c->str, &c->nstr, &c->cstr, "a string")) return st->code;
    if (sq_mw_put_u64(st, &w->meta, &w->nmeta, &w->meta_cap, c->nstr) ||
        sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, c->str, c->nstr))
      return st->code;
    return SQ_OK;
  }
  if (type == G_BOOL) {
    unsigned char b;
    if (j->n - j->i >= 4 && memcmp(j->s + j->i, "true", 4) == 0) {
      b = 1;
      j->i += 4;
    } else if (j->n - j->i >= 5 && memcmp(j->s + j->i, "false", 5) == 0) {
      b = 0;
      j->i += 5;
    } else {
      return mw_value_fail(c, type);
    }
    return sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, &b, 1);
  }
  if (type == G_F32 || type == G_F64) {
    double d;
    if (j->i < j->n && j->s[j->i] == '"') {
      size_t at = j->i;
      if (mw_string(j, &c->str, &c->nstr, &c->cstr, "a string"))
        return st->code;
      if (c->nstr == 3 && memcmp(c->str, "NaN", 3) == 0) d = NAN;
      else if (c->nstr == 8 && memcmp(c->str, "Infinity", 8) == 0) d = INFINITY;
      else if (c->nstr == 9 && memcmp(c->str, "-Infinity", 9) == 0)
        d = -INFINITY;
      else
        return sq_fail(st, "metadata key '%.*s': the %s string at byte %zu "
                           "is not \"NaN\", \"Infinity\" or \"-Infinity\"",
                       SQ_MW_SHOW(c->keylen), c->key, g_type_names[type], at);
    } else {
      size_t len;
      int is_int;
      if (!mw_number(j, &len, &is_int)) return mw_value_fail(c, type);
      char small[64];
      char *buf = len < sizeof small ? small : sq_alloc(st, len + 1, 1);
      if (!buf) return st->code;
      memcpy(buf, j->s + j->i, len);
      buf[len] = 0;
      sq_locale saved = sq_locale_c_enter();
      int overflow = 0;
      if (type == G_F32) {
        float f = strtof(buf, NULL);
        overflow = f - f != 0;
        d = (double)f;
      } else {
        d = strtod(buf, NULL);
        overflow = d - d != 0;
      }
      sq_locale_c_leave(saved);
      if (buf != small) sqlite3_free(buf);
      if (overflow)
        return sq_fail(st, "metadata key '%.*s': %.*s is out of %s's range",
                       SQ_MW_SHOW(c->keylen), c->key, SQ_MW_SHOW(len), j->s + j->i,
                       g_type_names[type]);
      j->i += len;
    }
    unsigned char b[8];
    if (type == G_F32) {
      sq_store_f32(b, (float)d);
      return sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, b, 4);
    }
    uint64_t u;
    memcpy(&u, &d, 8);
    return sq_mw_put_u64(st, &w->meta, &w->nmeta, &w->meta_cap, u);
  }
  /* Integers: a JSON integer in the type's range, read exactly. */
  size_t len;
  int is_int;
  if (!mw_number(j, &len, &is_int)) return mw_value_fail(c, type);
  const unsigned char *s = j->s + j->i;
  if (!is_int)
    return sq_fail(st, "metadata key '%.*s': %.*s is not an integer (the "
                       "type is %s)", SQ_MW_SHOW(c->keylen), c->key, SQ_MW_SHOW(len),
                   s, g_type_names[type]);
  int neg = s[0] == '-';
  uint64_t mag = 0;
  int over = 0;
  for (size_t i = (size_t)neg; i < len; i++)
    over |= __builtin_mul_overflow(mag, 10, &mag) ||
            __builtin_add_overflow(mag, (uint64_t)(s[i] - '0'), &mag);
  static const uint64_t umax[G_NTYPES] = {
    [G_U8] = 0xFF, [G_I8] = 0x7F, [G_U16] = 0xFFFF, [G_I16] = 0x7FFF,
    [G_U32] = 0xFFFFFFFFu, [G_I32] = 0x7FFFFFFF, [G_U64] = UINT64_MAX,
    [G_I64] = INT64_MAX};
  int is_signed = type == G_I8 || type == G_I16 || type == G_I32 ||
                  type == G_I64;
  uint64_t limit = umax[type] + (uint64_t)(neg && is_signed);
  if (over || mag > limit || (neg && !is_signed && mag != 0))
    return sq_fail(st, "metadata key '%.*s': %.*s is out of %s's range",
                   SQ_MW_SHOW(c->keylen), c->key, SQ_MW_SHOW(len), s,
                   g_type_names[type]);
  uint64_t v = neg ? (uint64_t)0 - mag : mag;
  if (alignment) {
    if (v == 0 || (v & (v - 1)))
      return sq_fail(st, "metadata key 'general.alignment': %.*s is not a "
                         "power of 2", SQ_MW_SHOW(len), s);
    *alignment = (uint32_t)v;
  }
  j->i += len;
  unsigned char b[8];
  static const unsigned char size[G_NTYPES] = {
    [G_U8] = 1, [G_I8] = 1, [G_U16] = 2, [G_I16] = 2, [G_U32] = 4,
    [G_I32] = 4, [G_U64] = 8, [G_I64] = 8};
  for (int k = 0; k < size[type]; k++) b[k] = (unsigned char)(v >> (8 * k));
  return sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, b, size[type]);
}

/* A GGUF type name: a scalar's, or "array[<scalar>]"; -1 when neither. */
static int mw_gguf_type(const char *s, uint64_t n, int *elem) {
  *elem = -1;
  if (n > 7 && memcmp(s, "array[", 6) == 0 && s[n - 1] == ']') {
    for (int t = 0; t < G_NTYPES; t++)
      if (t != G_ARRAY && strlen(g_type_names[t]) == n - 7 &&
          memcmp(s + 6, g_type_names[t], n - 7) == 0) {
        *elem = t;
        return G_ARRAY;
      }
    return -1;
  }
  for (int t = 0; t < G_NTYPES; t++)
    if (t != G_ARRAY && strlen(g_type_names[t]) == n &&
        memcmp(s, g_type_names[t], n) == 0)
      return t;
  return -1;
}

/* The member name quoted ("\"type\"") as the which ("first") member of
** a key's object, then its ':' and the spaces after it; word is the
** caller's buffer for the name. */
static int mw_gguf_member_name(mw_gguf_ctx *c, char **word, uint64_t *nword,
                               uint64_t *cword, const char *quoted,
                               const char *which) {
  mw_json *j = c->j;
  size_t len = strlen(quoted) - 2;
  if (mw_string(j, word, nword, cword, quoted)) return j->st->code;
  if (*nword != len || memcmp(*word, quoted + 1, len) != 0)
    return sq_fail(j->st, "metadata key '%.*s': the object's %s member must "
                          "be %s", SQ_MW_SHOW(c->keylen), c->key, which,
                   quoted);
  mw_ws(j);
  if (j->i >= j->n || j->s[j->i] != ':') return mw_expected(j, "':'");
  j->i++;
  mw_ws(j);
  return SQ_OK;
}

/* {"type": T, "value": V} for one key. */
static int mw_gguf_member(mw_gguf_ctx *c, uint32_t *alignment,
                          int is_alignment) {
  mw_json *j = c->j;
  sq_model_writer *w = c->w;
  sq_status *st = j->st;
  char *word = NULL;
  uint64_t nword = 0, cword = 0;
  int rc = SQ_OK, type, elem;
  if (j->i >= j->n || j->s[j->i] != '{') {
    rc = sq_fail(st, "metadata key '%.*s': its value must be an object "
                     "{\"type\": ..., \"value\": ...}", SQ_MW_SHOW(c->keylen),
                 c->key);
    goto done;
  }
  j->i++;
  mw_ws(j);
  if (mw_gguf_member_name(c, &word, &nword, &cword, "\"type\"", "first"))
    goto fail;
  if (j->i >= j->n || j->s[j->i] != '"') {
    rc = sq_fail(st, "metadata key '%.*s': \"type\" must be a string",
                 SQ_MW_SHOW(c->keylen), c->key);
    goto done;
  }
  if (mw_string(j, &word, &nword, &cword, "a type")) goto fail;
  type = mw_gguf_type(word, nword, &elem);
  if (type < 0) {
    rc = sq_fail(st, "metadata key '%.*s': unknown type '%.*s' (uint8 int8 "
                     "uint16 int16 uint32 int32 uint64 int64 float32 float64 "
                     "bool string, or array[<one of them>])",
                 SQ_MW_SHOW(c->keylen), c->key, SQ_MW_SHOW(nword), word);
    goto done;
  }
  if (is_alignment && type != G_U32) {
    rc = sq_fail(st, "metadata key 'general.alignment' must be a uint32, "
                     "not %.*s", SQ_MW_SHOW(nword), word);
    goto done;
  }
  mw_ws(j);
  if (j->i >= j->n || j->s[j->i] != ',') {
    rc = mw_expected(j, "','");
    goto done;
  }
  j->i++;
  mw_ws(j);
  if (mw_gguf_member_name(c, &word, &nword, &cword, "\"value\"", "second"))
    goto fail;
  if (sq_mw_put_u64(st, &w->meta, &w->nmeta, &w->meta_cap, c->keylen) ||
      sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, c->key, c->keylen) ||
      sq_mw_put_u32(st, &w->meta, &w->nmeta, &w->meta_cap, (uint32_t)type))
    goto fail;
  if (type == G_ARRAY) {
    if (j->i >= j->n || j->s[j->i] != '[') {
      rc = sq_fail(st, "metadata key '%.*s': an array[%s] value must be a "
                       "JSON array", SQ_MW_SHOW(c->keylen), c->key,
                   g_type_names[elem]);
      goto done;
    }
    j->i++;
    if (sq_mw_put_u32(st, &w->meta, &w->nmeta, &w->meta_cap, (uint32_t)elem) ||
        sq_mw_put_u64(st, &w->meta, &w->nmeta, &w->meta_cap, 0))
      goto fail;
    uint64_t count_at = w->nmeta - 8, count = 0;
    mw_ws(j);
    if (j->i < j->n && j->s[j->i] == ']') {
      j->i++;
    } else {
      for (;;) {
        mw_ws(j);
        if (mw_gguf_value(c, elem, NULL)) goto fail;
        count++;
        mw_ws(j);
        if (j->i < j->n && j->s[j->i] == ',') {
          j->i++;
          continue;
        }
        if (j->i < j->n && j->s[j->i] == ']') {
          j->i++;
          break;
        }
        rc = mw_expected(j, "',' or ']'");
        goto done;
      }
    }
    sq_store_u32((unsigned char *)w->meta + count_at, (uint32_t)count);
    sq_store_u32((unsigned char *)w->meta + count_at + 4,
                 (uint32_t)(count >> 32));
  } else {
    if (mw_gguf_value(c, type, is_alignment ? alignment : NULL)) goto fail;
  }
  mw_ws(j);
  if (j->i >= j->n || j->s[j->i] != '}') {
    rc = j->i < j->n && j->s[j->i] == ','
             ? sq_fail(st, "metadata key '%.*s': the object has members "
                           "besides \"type\" and \"value\"",
                       SQ_MW_SHOW(c->keylen), c->key)
             : mw_expected(j, "'}'");
    goto done;
  }
  j->i++;
  goto done;
fail:
  rc = st->code;
done:
  sqlite3_free(word);
  return rc;
}

int sq_model_writer_metadata(sq_model_writer *w, const char *json, size_t len,
                             sq_status *st) {
  mw_json j = {(const unsigned char *)json, len, 0, st};
  mw_keys keys = {0};
  char *key = NULL, *val = NULL;
  uint64_t nkey = 0, ckey = 0, nval = 0, cval = 0, count = 0;
  uint32_t alignment = SQ_MW_GGUF_DEFAULT_ALIGNMENT;
  mw_gguf_ctx c = {&j, w, NULL, 0, NULL, 0, 0};
  if (sq_mw_unseal(w, st)) return st->code;
  sqlite3_free(w->meta);
  w->meta = NULL;
  w->nmeta = w->meta_cap = w->meta_count = 0;
  mw_ws(&j);
  if (j.i >= j.n || j.s[j.i] != '{') {
    mw_expected(&j, "a JSON object '{'");
    goto fail;
  }
  j.i++;
  if (w->format == SQ_MW_SAFETENSORS &&
      sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, "{", 1))
    goto fail;
  mw_ws(&j);
  if (j.i < j.n && j.s[j.i] == '}') {
    j.i++;
  } else {
    for (;;) {
      mw_ws(&j);
      if (mw_string(&j, &key, &nkey, &ckey, "a key string")) goto fail;
      if (nkey && memchr(key, 0, nkey)) {
        sq_fail(st, "metadata key '%.*s' contains NUL", SQ_MW_SHOW(nkey), key);
        goto fail;
      }
      if (mw_keys_add(&keys, key, nkey, st)) goto fail;
      mw_ws(&j);
      if (j.i >= j.n || j.s[j.i] != ':') {
        mw_expected(&j, "':'");
        goto fail;
      }
      j.i++;
      mw_ws(&j);
      if (w->format == SQ_MW_SAFETENSORS) {
        if (j.i < j.n && j.s[j.i] != '"') {
          sq_fail(st, "metadata value of '%.*s' is not a string (safetensors "
                      "metadata maps strings to strings)", SQ_MW_SHOW(nkey), key);
          goto fail;
        }
        if (mw_string(&j, &val, &nval, &cval, "a value string") ||
            (count && sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, ",", 1)) ||
            sq_mw_json_string(st, &w->meta, &w->nmeta, &w->meta_cap, key, nkey) ||
            sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, ":", 1) ||
            sq_mw_json_string(st, &w->meta, &w->nmeta, &w->meta_cap, val, nval))
          goto fail;
      } else {
        c.key = key;
        c.keylen = nkey;
        int is_alignment = nkey == 17 &&
                           memcmp(key, "general.alignment", 17) == 0;
        if (mw_gguf_member(&c, &alignment, is_alignment)) goto fail;
      }
      count++;
      mw_ws(&j);
      if (j.i < j.n && j.s[j.i] == ',') {
        j.i++;
        continue;
      }
      if (j.i < j.n && j.s[j.i] == '}') {
        j.i++;
        break;
      }
      mw_expected(&j, "',' or '}'");
      goto fail;
    }
  }
  mw_ws(&j);
  if (j.i != j.n) {
    mw_expected(&j, "the end of the metadata");
    goto fail;
  }
  if (w->format == SQ_MW_SAFETENSORS &&
      sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, "}", 1))
    goto fail;
  if (w->format == SQ_MW_GGUF) {
    if (w->ntensors && alignment != w->alignment) {
      sq_fail(st, "metadata sets general.alignment to %lu after tensors were "
                  "placed with %llu (give the metadata on the first row)",
              (unsigned long)alignment, (unsigned long long)w->alignment);
      goto fail;
    }
    w->alignment = alignment;
  }
  w->meta_count = count;
  if (!w->meta && w->format == SQ_MW_GGUF) {
    /* An empty object: no keys, but metadata was given. */
    w->meta = sq_alloc(st, 1, 1);
    if (!w->meta) goto fail;
  }
fail:
  if (st->code) {
    sqlite3_free(w->meta);
    w->meta = NULL;
    w->nmeta = w->meta_cap = w->meta_count = 0;
  }
  sqlite3_free(key);
  sqlite3_free(val);
  sqlite3_free(c.str);
  sqlite3_free(keys.keys);
  sqlite3_free(keys.spans);
  return st->code;
}
