/*
** gguf_write.c: GGUF files written tensor by tensor, the GGUF layout of
** the tensor writer (tensor_layout.h; docs/FORMATS.md#writing-gguf).
**
**   1. a tensor's type is a ggml type by its reader name (gguf.h): the
**      plain ones and the block types, whose rows (the last dimension) must
**      be whole blocks; at most GGUF_MAX_DIMS dimensions, names under
**      GGUF_MAX_NAME bytes (ggml's limits);
**   2. the header is GGUF v3: magic, version, counts, the key-value pairs,
**      the tensor infos (dims in ggml's order, the reverse of numpy's),
**      zeros to the alignment; each tensor's data and the end of the data
**      are aligned, as ggml's gguf_write does;
**   3. the metadata argument is an object of {"type": T, "value": V}
**      (docs/FORMATS.md#gguf-metadata), strictly: every rule broken is an
**      error naming the key or the byte.  general.alignment (a uint32, a
**      power of 2) sets the alignment, so it comes before the first tensor.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/text.h"
#include "formats/gguf.h"
#include "formats/tensor_layout.h"
#include "kernels/byteorder.h"

/* ---- tensors (rule 1) ---- */

static int gguf_w_type(const char *name, size_t name_len, const char *dtype,
                       size_t dtype_len, const sq_shape *shape, int *type,
                       const char **tname, uint64_t *block, uint64_t *bytes,
                       sq_status *st) {
  uint32_t id;
  if (!sq_gguf_type_named(dtype, dtype_len, &id, tname, block, bytes)) {
    sq_names valid;
    sq_names_begin(&valid);
    sq_gguf_element_type_names(&valid);
    return sq_fail(st, "type '%.*s' has no ggml type (%s, or a ggml block "
                       "type such as q4_0 q8_0 q4_K q6_K)",
                   SQ_MW_SHOW(dtype_len), dtype, sq_names_join(&valid, " ", " "));
  }
  *type = (int)id;
  if (shape->ndim > GGUF_MAX_DIMS)
    return sq_fail(st, "tensor '%.*s' has %d dimensions (GGUF allows at "
                       "most %d)", SQ_MW_SHOW(name_len), name, shape->ndim,
                   GGUF_MAX_DIMS);
  uint64_t last = shape->ndim ? (uint64_t)shape->dim[shape->ndim - 1] : 1;
  if (last % *block)
    return sq_fail(st, "tensor '%.*s' of type %s has rows of %llu "
                       "elements, not a multiple of the block size %llu",
                   SQ_MW_SHOW(name_len), name, *tname, (unsigned long long)last,
                   (unsigned long long)*block);
  return SQ_OK;
}

static int gguf_w_check_name(const char *name, size_t name_len,
                             sq_status *st) {
  if (name_len >= GGUF_MAX_NAME)
    return sq_fail(st, "name '%.*s' has %zu bytes (ggml allows at most %d)",
                   SQ_MW_SHOW(name_len), name, name_len, GGUF_MAX_NAME - 1);
  return SQ_OK;
}

static int gguf_w_bad_size(const char *name, size_t name_len, size_t nbytes,
                           uint64_t count, const char *tname, uint64_t whole,
                           uint64_t unit, sq_status *st) {
  return sq_fail(st, "tensor '%.*s': data has %zu bytes but %llu elements "
                     "of %s take %llu (or a whole number of its %llu-byte "
                     "rows)", SQ_MW_SHOW(name_len), name, nbytes,
                 (unsigned long long)count, tname, (unsigned long long)whole,
                 (unsigned long long)unit);
}

/* ---- the header (rule 2) ---- */

/* GGUF v3: magic, version, counts, the key-value pairs, the tensor infos
** (dims in ggml's order, the reverse of numpy's), zeros to the alignment. */
static int gguf_w_header(sq_model_writer *w, char **h, uint64_t *nh,
                         sq_status *st) {
  uint64_t cap = 0;
  *h = NULL;
  *nh = 0;
  if (sq_mw_put(st, h, nh, &cap, "GGUF", 4) || sq_mw_put_u32(st, h, nh, &cap, 3) ||
      sq_mw_put_u64(st, h, nh, &cap, w->ntensors) ||
      sq_mw_put_u64(st, h, nh, &cap, w->meta_count) ||
      (w->nmeta && sq_mw_put(st, h, nh, &cap, w->meta, w->nmeta)))
    return st->code;
  for (size_t i = 0; i < w->ntensors; i++) {
    sq_mw_tensor *t = &w->t[i];
    if (sq_mw_put_u64(st, h, nh, &cap, t->name_len) ||
        sq_mw_put(st, h, nh, &cap, sq_mw_name(w, t), t->name_len) ||
        sq_mw_put_u32(st, h, nh, &cap, (uint32_t)t->shape.ndim))
      return st->code;
    for (int d = t->shape.ndim - 1; d >= 0; d--)
      if (sq_mw_put_u64(st, h, nh, &cap, (uint64_t)t->shape.dim[d]))
        return st->code;
    if (sq_mw_put_u32(st, h, nh, &cap, (uint32_t)t->type) ||
        sq_mw_put_u64(st, h, nh, &cap, t->offset))
      return st->code;
  }
  while (*nh % w->alignment)
    if (sq_mw_put(st, h, nh, &cap, "", 1)) return st->code;
  return SQ_OK;
}

/* ---- metadata values (docs/FORMATS.md#gguf-metadata) ---- */

/* A JSON number token at j: its extent, and whether it is an integer. */
static int mw_number(sq_mw_scan *j, size_t *len, int *is_int) {
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

static int mw_value_fail(sq_mw_meta *c, int type) {
  sq_mw_scan *j = c->j;
  return sq_fail(j->st, "metadata key '%.*s': a value of type %s was "
                        "expected at byte %zu", SQ_MW_SHOW(c->keylen), c->key,
                 sq_gguf_type_names[type], j->i);
}

/* One value of `type` (not an array) from the JSON, appended to the
** key-value bytes. */
static int mw_gguf_value(sq_mw_meta *c, int type, uint32_t *alignment) {
  sq_mw_scan *j = c->j;
  sq_model_writer *w = c->w;
  sq_status *st = j->st;
  if (type == GGUF_STRING) {
    if (j->i >= j->n || j->s[j->i] != '"') return mw_value_fail(c, type);
    if (sq_mw_scan_string(j, &c->str, &c->nstr, &c->cstr, "a string")) return st->code;
    if (sq_mw_put_u64(st, &w->meta, &w->nmeta, &w->meta_cap, c->nstr) ||
        sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, c->str, c->nstr))
      return st->code;
    return SQ_OK;
  }
  if (type == GGUF_BOOL) {
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
  if (type == GGUF_F32 || type == GGUF_F64) {
    double d;
    if (j->i < j->n && j->s[j->i] == '"') {
      size_t at = j->i;
      if (sq_mw_scan_string(j, &c->str, &c->nstr, &c->cstr, "a string"))
        return st->code;
      if (c->nstr == 3 && memcmp(c->str, "NaN", 3) == 0) d = NAN;
      else if (c->nstr == 8 && memcmp(c->str, "Infinity", 8) == 0) d = INFINITY;
      else if (c->nstr == 9 && memcmp(c->str, "-Infinity", 9) == 0)
        d = -INFINITY;
      else
        return sq_fail(st, "metadata key '%.*s': the %s string at byte %zu "
                           "is not \"NaN\", \"Infinity\" or \"-Infinity\"",
                       SQ_MW_SHOW(c->keylen), c->key, sq_gguf_type_names[type], at);
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
      if (type == GGUF_F32) {
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
                       sq_gguf_type_names[type]);
      j->i += len;
    }
    unsigned char b[8];
    if (type == GGUF_F32) {
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
                   s, sq_gguf_type_names[type]);
  int neg = s[0] == '-';
  uint64_t mag = 0;
  int over = 0;
  for (size_t i = (size_t)neg; i < len; i++)
    over |= __builtin_mul_overflow(mag, 10, &mag) ||
            __builtin_add_overflow(mag, (uint64_t)(s[i] - '0'), &mag);
  static const uint64_t umax[GGUF_NTYPES] = {
    [GGUF_U8] = 0xFF, [GGUF_I8] = 0x7F, [GGUF_U16] = 0xFFFF, [GGUF_I16] = 0x7FFF,
    [GGUF_U32] = 0xFFFFFFFFu, [GGUF_I32] = 0x7FFFFFFF, [GGUF_U64] = UINT64_MAX,
    [GGUF_I64] = INT64_MAX};
  int is_signed = type == GGUF_I8 || type == GGUF_I16 || type == GGUF_I32 ||
                  type == GGUF_I64;
  uint64_t limit = umax[type] + (uint64_t)(neg && is_signed);
  if (over || mag > limit || (neg && !is_signed && mag != 0))
    return sq_fail(st, "metadata key '%.*s': %.*s is out of %s's range",
                   SQ_MW_SHOW(c->keylen), c->key, SQ_MW_SHOW(len), s,
                   sq_gguf_type_names[type]);
  uint64_t v = neg ? (uint64_t)0 - mag : mag;
  if (alignment) {
    if (v == 0 || (v & (v - 1)))
      return sq_fail(st, "metadata key 'general.alignment': %.*s is not a "
                         "power of 2", SQ_MW_SHOW(len), s);
    *alignment = (uint32_t)v;
  }
  j->i += len;
  unsigned char b[8];
  static const unsigned char size[GGUF_NTYPES] = {
    [GGUF_U8] = 1, [GGUF_I8] = 1, [GGUF_U16] = 2, [GGUF_I16] = 2, [GGUF_U32] = 4,
    [GGUF_I32] = 4, [GGUF_U64] = 8, [GGUF_I64] = 8};
  for (int k = 0; k < size[type]; k++) b[k] = (unsigned char)(v >> (8 * k));
  return sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, b, size[type]);
}

/* A GGUF type name: a scalar's, or "array[<scalar>]"; -1 when neither. */
static int mw_gguf_type(const char *s, uint64_t n, int *elem) {
  *elem = -1;
  if (n > 7 && memcmp(s, "array[", 6) == 0 && s[n - 1] == ']') {
    for (int t = 0; t < GGUF_NTYPES; t++)
      if (t != GGUF_ARRAY && strlen(sq_gguf_type_names[t]) == n - 7 &&
          memcmp(s + 6, sq_gguf_type_names[t], n - 7) == 0) {
        *elem = t;
        return GGUF_ARRAY;
      }
    return -1;
  }
  for (int t = 0; t < GGUF_NTYPES; t++)
    if (t != GGUF_ARRAY && strlen(sq_gguf_type_names[t]) == n &&
        memcmp(s, sq_gguf_type_names[t], n) == 0)
      return t;
  return -1;
}

/* The member name quoted ("\"type\"") as the which ("first") member of
** a key's object, then its ':' and the spaces after it; word is the
** caller's buffer for the name. */
static int mw_gguf_member_name(sq_mw_meta *c, char **word, uint64_t *nword,
                               uint64_t *cword, const char *quoted,
                               const char *which) {
  sq_mw_scan *j = c->j;
  size_t len = strlen(quoted) - 2;
  if (sq_mw_scan_string(j, word, nword, cword, quoted)) return j->st->code;
  if (*nword != len || memcmp(*word, quoted + 1, len) != 0)
    return sq_fail(j->st, "metadata key '%.*s': the object's %s member must "
                          "be %s", SQ_MW_SHOW(c->keylen), c->key, which,
                   quoted);
  sq_mw_scan_ws(j);
  if (j->i >= j->n || j->s[j->i] != ':') return sq_mw_scan_expected(j, "':'");
  j->i++;
  sq_mw_scan_ws(j);
  return SQ_OK;
}

/* {"type": T, "value": V} for one key. */
static int mw_gguf_member(sq_mw_meta *c, uint32_t *alignment,
                          int is_alignment) {
  sq_mw_scan *j = c->j;
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
  sq_mw_scan_ws(j);
  if (mw_gguf_member_name(c, &word, &nword, &cword, "\"type\"", "first"))
    goto fail;
  if (j->i >= j->n || j->s[j->i] != '"') {
    rc = sq_fail(st, "metadata key '%.*s': \"type\" must be a string",
                 SQ_MW_SHOW(c->keylen), c->key);
    goto done;
  }
  if (sq_mw_scan_string(j, &word, &nword, &cword, "a type")) goto fail;
  type = mw_gguf_type(word, nword, &elem);
  if (type < 0) {
    rc = sq_fail(st, "metadata key '%.*s': unknown type '%.*s' (uint8 int8 "
                     "uint16 int16 uint32 int32 uint64 int64 float32 float64 "
                     "bool string, or array[<one of them>])",
                 SQ_MW_SHOW(c->keylen), c->key, SQ_MW_SHOW(nword), word);
    goto done;
  }
  if (is_alignment && type != GGUF_U32) {
    rc = sq_fail(st, "metadata key 'general.alignment' must be a uint32, "
                     "not %.*s", SQ_MW_SHOW(nword), word);
    goto done;
  }
  sq_mw_scan_ws(j);
  if (j->i >= j->n || j->s[j->i] != ',') {
    rc = sq_mw_scan_expected(j, "','");
    goto done;
  }
  j->i++;
  sq_mw_scan_ws(j);
  if (mw_gguf_member_name(c, &word, &nword, &cword, "\"value\"", "second"))
    goto fail;
  if (sq_mw_put_u64(st, &w->meta, &w->nmeta, &w->meta_cap, c->keylen) ||
      sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, c->key, c->keylen) ||
      sq_mw_put_u32(st, &w->meta, &w->nmeta, &w->meta_cap, (uint32_t)type))
    goto fail;
  if (type == GGUF_ARRAY) {
    if (j->i >= j->n || j->s[j->i] != '[') {
      rc = sq_fail(st, "metadata key '%.*s': an array[%s] value must be a "
                       "JSON array", SQ_MW_SHOW(c->keylen), c->key,
                   sq_gguf_type_names[elem]);
      goto done;
    }
    j->i++;
    if (sq_mw_put_u32(st, &w->meta, &w->nmeta, &w->meta_cap, (uint32_t)elem) ||
        sq_mw_put_u64(st, &w->meta, &w->nmeta, &w->meta_cap, 0))
      goto fail;
    uint64_t count_at = w->nmeta - 8, count = 0;
    sq_mw_scan_ws(j);
    if (j->i < j->n && j->s[j->i] == ']') {
      j->i++;
    } else {
      for (;;) {
        sq_mw_scan_ws(j);
        if (mw_gguf_value(c, elem, NULL)) goto fail;
        count++;
        sq_mw_scan_ws(j);
        if (j->i < j->n && j->s[j->i] == ',') {
          j->i++;
          continue;
        }
        if (j->i < j->n && j->s[j->i] == ']') {
          j->i++;
          break;
        }
        rc = sq_mw_scan_expected(j, "',' or ']'");
        goto done;
      }
    }
    sq_store_u32((unsigned char *)w->meta + count_at, (uint32_t)count);
    sq_store_u32((unsigned char *)w->meta + count_at + 4,
                 (uint32_t)(count >> 32));
  } else {
    if (mw_gguf_value(c, type, is_alignment ? alignment : NULL)) goto fail;
  }
  sq_mw_scan_ws(j);
  if (j->i >= j->n || j->s[j->i] != '}') {
    rc = j->i < j->n && j->s[j->i] == ','
             ? sq_fail(st, "metadata key '%.*s': the object has members "
                           "besides \"type\" and \"value\"",
                       SQ_MW_SHOW(c->keylen), c->key)
             : sq_mw_scan_expected(j, "'}'");
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

/* ---- the metadata's walk (rule 3) ---- */

static int gguf_w_meta_open(sq_mw_meta *m) {
  m->alignment = GGUF_DEFAULT_ALIGNMENT;
  return SQ_OK;
}

static int gguf_w_meta_value(sq_mw_meta *m) {
  int is_alignment = m->keylen == 17 &&
                     memcmp(m->key, "general.alignment", 17) == 0;
  return mw_gguf_member(m, &m->alignment, is_alignment);
}

static int gguf_w_meta_close(sq_mw_meta *m, uint64_t count) {
  sq_model_writer *w = m->w;
  sq_status *st = m->j->st;
  (void)count;
  if (w->ntensors && m->alignment != w->alignment)
    return sq_fail(st, "metadata sets general.alignment to %lu after tensors "
                       "were placed with %llu (give the metadata on the "
                       "first row)", (unsigned long)m->alignment,
                   (unsigned long long)w->alignment);
  w->alignment = m->alignment;
  if (!w->meta) {
    /* An empty object: no keys, but metadata was given. */
    w->meta = sq_alloc(st, 1, 1);
    if (!w->meta) return st->code;
  }
  return SQ_OK;
}

const sq_mw_format sq_mw_gguf = {
  .type = gguf_w_type,
  .check_name = gguf_w_check_name,
  .bad_size = gguf_w_bad_size,
  .aligned = 1,
  .header = gguf_w_header,
  .meta_open = gguf_w_meta_open,
  .meta_value = gguf_w_meta_value,
  .meta_close = gguf_w_meta_close,
};
