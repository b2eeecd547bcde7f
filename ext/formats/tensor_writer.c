/*
** model_writer.c: safetensors and GGUF files written tensor by tensor
** (docs/FORMATS.md#writing-safetensors, docs/FORMATS.md#writing-gguf,
** docs/FORMATS.md#file-writers).  See model_writer.h.  The tensors, the
** chunk rule, the data stores and the headers are here; the metadata
** argument is decoded in model_metadata.c.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/formats.h"
#include "formats/tensor_writer.h"
#include "formats/writer.h"
#include "formats/write_buffer.h"
#include "core/text.h"
#include "kernels/byteorder.h"

#define MW_GGUF_MAX_DIMS 4      /* ggml's GGML_MAX_DIMS */
#define MW_GGUF_MAX_NAME 64     /* ggml's GGML_MAX_NAME, with the NUL */
#define MW_ST_MAX_HEADER 100000000u  /* the most core/safetensors.c reads */

/* ---- growing buffers ---- */

/* Appends len bytes: capacity doubles, but never past what sq_realloc
** allows (st->max_bytes), so only a real need is SQ_TOOBIG. */
int sq_mw_put(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
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

int sq_mw_put_u32(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                      uint32_t v) {
  unsigned char b[4];
  sq_store_u32(b, v);
  return sq_mw_put(st, buf, n, cap, b, 4);
}

int sq_mw_put_u64(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                      uint64_t v) {
  unsigned char b[8];
  sq_store_u32(b, (uint32_t)v);
  sq_store_u32(b + 4, (uint32_t)(v >> 32));
  return sq_mw_put(st, buf, n, cap, b, 8);
}

/* s[0..len) (valid UTF-8) as a JSON string, escaped as serde_json does. */
int sq_mw_json_string(sq_status *st, char **buf, uint64_t *n,
                          uint64_t *cap, const char *s, size_t len) {
  if (!s) s = "";
  if (sq_mw_put(st, buf, n, cap, "\"", 1)) return st->code;
  size_t run = 0;
  for (size_t i = 0; i <= len; i++) {
    unsigned char c = i < len ? (unsigned char)s[i] : 0;
    if (i < len && c >= 0x20 && c != '"' && c != '\\') continue;
    if (sq_mw_put(st, buf, n, cap, s + run, i - run)) return st->code;
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
    if (sq_mw_put(st, buf, n, cap, e, strlen(e))) return st->code;
  }
  return sq_mw_put(st, buf, n, cap, "\"", 1);
}

/* ---- dtypes ---- */

/* Tensor t's name in w->names; "" while no name has any byte (w->names is
** still NULL then, and NULL + 0 is undefined). */
static const char *mw_name(const sq_model_writer *w, const sq_mw_tensor *t) {
  return w->names ? w->names + t->name_at : "";
}

static int mw_name_eq(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  if (alen != blen) return 0;
  for (size_t i = 0; i < alen; i++) {
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (x >= 'A' && x <= 'Z') x = (unsigned char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = (unsigned char)(y - 'A' + 'a');
    if (x != y) return 0;
  }
  return 1;
}

/* Readers' dtype names and safetensors' (core/safetensors.c's table). */
static const struct {
  const char *name, *file;
  int size;
} st_types[] = {
  {"f64", "F64", 8},     {"f32", "F32", 4},         {"f16", "F16", 2},
  {"bf16", "BF16", 2},   {"int64", "I64", 8},       {"int32", "I32", 4},
  {"int16", "I16", 2},   {"int8", "I8", 1},         {"uint64", "U64", 8},
  {"uint32", "U32", 4},  {"uint16", "U16", 2},      {"uint8", "U8", 1},
  {"bool", "BOOL", 1},   {"f8_e4m3", "F8_E4M3", 1}, {"f8_e5m2", "F8_E5M2", 1},
};

/* The type, the whole tensor's bytes and the bytes of one row along axis 0
** (for a 1-D block-type tensor, one block; for a 0-d tensor, all of it). */
static int mw_type(sq_model_writer *w, const char *name, size_t name_len,
                   const char *dtype, size_t dtype_len, const sq_shape *shape,
                   int *type, const char **tname, uint64_t *nbytes,
                   uint64_t *unit, sq_status *st) {
  uint64_t block = 1, bytes = 0;
  if (w->format == SQ_MW_SAFETENSORS) {
    for (size_t k = 0; k < sizeof st_types / sizeof st_types[0]; k++)
      if (mw_name_eq(dtype, dtype_len, st_types[k].name)) {
        *type = (int)k;
        *tname = st_types[k].name;
        bytes = (uint64_t)st_types[k].size;
      }
    if (!bytes)
      return sq_fail(st, "dtype '%.*s' has no safetensors dtype (f64 f32 f16 "
                         "bf16 int64 int32 int16 int8 uint64 uint32 uint16 "
                         "uint8 bool f8_e4m3 f8_e5m2)", SQ_MW_SHOW(dtype_len),
                     dtype);
  } else {
    uint32_t id;
    if (!sq_gguf_type_named(dtype, dtype_len, &id, tname, &block, &bytes))
      return sq_fail(st, "type '%.*s' has no ggml type (f32 f16 bf16 f64 "
                         "int8 int16 int32 int64, or a ggml block type such "
                         "as q4_0 q8_0 q4_K q6_K)", SQ_MW_SHOW(dtype_len), dtype);
    *type = (int)id;
    if (shape->ndim > MW_GGUF_MAX_DIMS)
      return sq_fail(st, "tensor '%.*s' has %d dimensions (GGUF allows at "
                         "most %d)", SQ_MW_SHOW(name_len), name, shape->ndim,
                     MW_GGUF_MAX_DIMS);
    uint64_t last = shape->ndim ? (uint64_t)shape->dim[shape->ndim - 1] : 1;
    if (last % block)
      return sq_fail(st, "tensor '%.*s' of type %s has rows of %llu "
                         "elements, not a multiple of the block size %llu",
                     SQ_MW_SHOW(name_len), name, *tname, (unsigned long long)last,
                     (unsigned long long)block);
  }
  /* shape->count <= 2 x SQLITE_LIMIT_LENGTH: no overflow. */
  *nbytes = shape->count / block * bytes;
  if (*nbytes == 0) *unit = 1;               /* an empty tensor: no rows */
  else if (shape->ndim == 0) *unit = *nbytes;
  else if (shape->ndim == 1) *unit = bytes;  /* an element, or a block */
  else *unit = *nbytes / (uint64_t)shape->dim[0];
  return SQ_OK;
}

/* ---- the data store ---- */

/* The file store is the path code: left out by SQLITE_QUANT_OMIT_FS
** (docs/ARCHITECTURE.md#registration), where only the memory store is and
** w->out stays NULL. */
#ifndef SQLITE_QUANT_OMIT_FS
/* A sealed file takes no piece until its data is back at offset 0. */
static int mw_unseal(sq_model_writer *w, sq_status *st) {
  if (w->broken)
    return sq_fail(st, "cannot write '%.200s': an earlier error left the "
                       "file incomplete", w->out->path);
  if (!w->sealed) return SQ_OK;
  w->broken = 1;
  if (sq_staged_move(w->out, w->nsealed, 0, w->ndata, st) ||
      sq_staged_truncate(w->out, w->ndata, st))
    return st->code;
  w->broken = 0;
  w->sealed = 0;
  w->nsealed = w->pad_sealed = 0;
  return SQ_OK;
}
#endif /* SQLITE_QUANT_OMIT_FS */

/* Appends to the data section. */
static int mw_store(sq_model_writer *w, const void *p, uint64_t n,
                    sq_status *st) {
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->out) {
    if (mw_unseal(w, st) || sq_staged_pwrite(w->out, w->ndata, p, n, st))
      return st->code;
    w->ndata += n;
    return SQ_OK;
  }
#endif
  return sq_mw_put(st, (char **)&w->mem, &w->ndata, &w->mem_cap, p, n);
}

/* Zeros up to the next multiple of the alignment (GGUF). */
static uint64_t mw_pad_size(const sq_model_writer *w) {
  uint64_t a = w->format == SQ_MW_GGUF ? w->alignment : 1;
  return (a - w->ndata % a) % a;
}

static int mw_pad_data(sq_model_writer *w, sq_status *st) {
  static const unsigned char zeros[256];
  uint64_t pad = mw_pad_size(w);
  while (pad) {
    uint64_t k = pad > sizeof zeros ? sizeof zeros : pad;
    if (mw_store(w, zeros, k, st)) return st->code;
    pad -= k;
  }
  return SQ_OK;
}

void sq_model_writer_init(sq_model_writer *w, sq_mw_format f) {
  memset(w, 0, sizeof *w);
  w->format = f;
  w->alignment = SQ_MW_GGUF_DEFAULT_ALIGNMENT;
}

#ifndef SQLITE_QUANT_OMIT_FS
int sq_model_writer_open(sq_model_writer *w, sq_mw_format f,
                         sq_staged *target, sq_status *st) {
  sq_model_writer_init(w, f);
  w->out = target;
  return sq_staged_create(target, st);
}
#endif

/* ---- tensors ---- */

int sq_model_writer_add(sq_model_writer *w, const char *name, size_t name_len,
                        const char *dtype, size_t dtype_len,
                        const sq_shape *shape, const void *data, size_t nbytes,
                        sq_status *st) {
  sq_mw_tensor *cur = w->ntensors ? &w->t[w->ntensors - 1] : NULL;
  if (cur && cur->name_len == name_len &&
      (name_len == 0 || memcmp(mw_name(w, cur), name, name_len) == 0) &&
      cur->got < cur->nbytes) {
    /* The next piece of the current tensor. */
    int type;
    const char *tname;
    uint64_t whole, unit;
    if (mw_type(w, name, name_len, dtype, dtype_len, shape, &type, &tname,
                &whole, &unit, st))
      return st->code;
    if (type != cur->type || shape->ndim != cur->shape.ndim ||
        memcmp(shape->dim, cur->shape.dim, sizeof shape->dim[0] * (size_t)shape->ndim))
      return sq_fail(st, "tensor '%.*s': a continuing row's dtype or shape "
                         "differs from its first row's", SQ_MW_SHOW(name_len),
                     name);
    if ((uint64_t)nbytes > cur->nbytes - cur->got || nbytes % cur->unit ||
        nbytes == 0)
      return sq_fail(st, "tensor '%.*s': a continuing row has %zu bytes, not "
                         "a whole number of its %llu-byte rows within the "
                         "%llu bytes left", SQ_MW_SHOW(name_len), name, nbytes,
                     (unsigned long long)cur->unit,
                     (unsigned long long)(cur->nbytes - cur->got));
    if (mw_store(w, data, nbytes, st)) return st->code;
    cur->got += nbytes;
    return SQ_OK;
  }
  if (cur && cur->got < cur->nbytes)
    return sq_fail(st, "tensor '%.*s' got %llu of %llu bytes",
                   SQ_MW_SHOW(cur->name_len), mw_name(w, cur),
                   (unsigned long long)cur->got,
                   (unsigned long long)cur->nbytes);
  for (size_t i = 0; i < name_len;) {
    uint32_t cp;
    size_t k = sq_utf8_decode((const unsigned char *)name + i, name_len - i,
                              &cp);
    if (!k)
      return sq_fail(st, "name '%.*s' is not valid UTF-8 at byte %zu",
                     SQ_MW_SHOW(i), name, i);
    i += k;
  }
  if (w->format == SQ_MW_SAFETENSORS && name_len == 12 &&
      memcmp(name, "__metadata__", 12) == 0)
    return sq_fail(st, "name '__metadata__' is the header's metadata key");
  if (w->format == SQ_MW_GGUF && name_len >= MW_GGUF_MAX_NAME)
    return sq_fail(st, "name '%.*s' has %zu bytes (ggml allows at most %d)",
                   SQ_MW_SHOW(name_len), name, name_len, MW_GGUF_MAX_NAME - 1);
  for (size_t k = 0; k < w->ntensors; k++)
    if (w->t[k].name_len == name_len &&
        (name_len == 0 ||
         memcmp(mw_name(w, &w->t[k]), name, name_len) == 0))
      return sq_fail(st, "name '%.*s' is given twice", SQ_MW_SHOW(name_len), name);
  int type;
  const char *tname;
  uint64_t whole, unit;
  if (mw_type(w, name, name_len, dtype, dtype_len, shape, &type, &tname,
              &whole, &unit, st))
    return st->code;
  if ((uint64_t)nbytes > whole || (nbytes % unit) ||
      (nbytes == 0 && whole != 0)) {
    if (w->format == SQ_MW_SAFETENSORS)
      return sq_fail(st, "tensor '%.*s': data has %zu bytes but %llu "
                         "elements of %s take %llu", SQ_MW_SHOW(name_len), name,
                     nbytes, (unsigned long long)shape->count, tname,
                     (unsigned long long)whole);
    return sq_fail(st, "tensor '%.*s': data has %zu bytes but %llu elements "
                       "of %s take %llu (or a whole number of its %llu-byte "
                       "rows)", SQ_MW_SHOW(name_len), name, nbytes,
                   (unsigned long long)shape->count, tname,
                   (unsigned long long)whole, (unsigned long long)unit);
  }
  if (w->ntensors == w->tensors_cap) {
    size_t cap = w->tensors_cap ? 2 * w->tensors_cap : 16;
    sq_mw_tensor *q = sq_realloc(st, w->t, cap, sizeof *q);
    if (!q) return st->code;
    w->t = q;
    w->tensors_cap = cap;
  }
  uint64_t at = w->nnames;
  if (sq_mw_put(st, &w->names, &w->nnames, &w->names_cap, name, name_len) ||
      mw_pad_data(w, st))
    return st->code;
  sq_mw_tensor *t = &w->t[w->ntensors];
  memset(t, 0, sizeof *t);
  t->name_at = at;
  t->name_len = name_len;
  t->type = type;
  t->shape = *shape;
  t->offset = w->ndata;
  t->nbytes = whole;
  t->unit = unit;
  w->ntensors++;
  if (mw_store(w, data, nbytes, st)) return st->code;
  t->got = nbytes;
  return SQ_OK;
}

/* ---- headers ---- */

static int mw_check_complete(sq_model_writer *w, sq_status *st) {
  if (!w->ntensors) return SQ_OK;
  sq_mw_tensor *cur = &w->t[w->ntensors - 1];
  if (cur->got < cur->nbytes)
    return sq_fail(st, "tensor '%.*s' got %llu of %llu bytes",
                   SQ_MW_SHOW(cur->name_len), mw_name(w, cur),
                   (unsigned long long)cur->got,
                   (unsigned long long)cur->nbytes);
  return SQ_OK;
}

/* {"__metadata__":META,"name":{"dtype":..,"shape":[..],"data_offsets":[a,b]}}
** padded with spaces to a multiple of 8, after its 8-byte length. */
static int mw_st_header(sq_model_writer *w, char **h, uint64_t *nh,
                        sq_status *st) {
  uint64_t cap = 0;
  char num[96];
  *h = NULL;
  *nh = 0;
  if (sq_mw_put(st, h, nh, &cap, "\0\0\0\0\0\0\0\0{", 9)) return st->code;
  if (w->meta && (sq_mw_put(st, h, nh, &cap, "\"__metadata__\":", 15) ||
                  sq_mw_put(st, h, nh, &cap, w->meta, w->nmeta)))
    return st->code;
  for (size_t i = 0; i < w->ntensors; i++) {
    sq_mw_tensor *t = &w->t[i];
    if (((w->meta || i) && sq_mw_put(st, h, nh, &cap, ",", 1)) ||
        sq_mw_json_string(st, h, nh, &cap, mw_name(w, t), t->name_len))
      return st->code;
    int k = snprintf(num, sizeof num, ":{\"dtype\":\"%s\",\"shape\":[",
                     st_types[t->type].file);
    if (sq_mw_put(st, h, nh, &cap, num, (uint64_t)k)) return st->code;
    for (int d = 0; d < t->shape.ndim; d++) {
      k = snprintf(num, sizeof num, "%s%lld", d ? "," : "",
                   (long long)t->shape.dim[d]);
      if (sq_mw_put(st, h, nh, &cap, num, (uint64_t)k)) return st->code;
    }
    k = snprintf(num, sizeof num, "],\"data_offsets\":[%llu,%llu]}",
                 (unsigned long long)t->offset,
                 (unsigned long long)(t->offset + t->nbytes));
    if (sq_mw_put(st, h, nh, &cap, num, (uint64_t)k)) return st->code;
  }
  if (sq_mw_put(st, h, nh, &cap, "}", 1)) return st->code;
  while ((*nh - 8) % 8)
    if (sq_mw_put(st, h, nh, &cap, " ", 1)) return st->code;
  uint64_t len = *nh - 8;
  if (len > MW_ST_MAX_HEADER)
    return sq_fail(st, "the header of %llu bytes passes safetensors' "
                       "100,000,000-byte limit", (unsigned long long)len);
  sq_store_u32((unsigned char *)*h, (uint32_t)len);
  sq_store_u32((unsigned char *)*h + 4, (uint32_t)(len >> 32));
  return SQ_OK;
}

/* GGUF v3: magic, version, counts, the key-value pairs, the tensor infos
** (dims in ggml's order, the reverse of numpy's), zeros to the alignment. */
static int mw_gguf_header(sq_model_writer *w, char **h, uint64_t *nh,
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
        sq_mw_put(st, h, nh, &cap, mw_name(w, t), t->name_len) ||
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

static int mw_header(sq_model_writer *w, char **h, uint64_t *nh,
                     sq_status *st) {
  *h = NULL;
  if (mw_check_complete(w, st)) return st->code;
  /* GGUF pads after the last tensor too, as ggml's gguf_write does. */
  if (w->format == SQ_MW_GGUF && mw_pad_data(w, st)) return st->code;
  return w->format == SQ_MW_GGUF ? mw_gguf_header(w, h, nh, st)
                                 : mw_st_header(w, h, nh, st);
}

int sq_model_writer_finish(sq_model_writer *w, unsigned char **out,
                           uint64_t *outn, sq_status *st) {
  *out = NULL;
  *outn = 0;
  char *h = NULL;
  uint64_t nh;
  if (mw_header(w, &h, &nh, st)) {
    sqlite3_free(h);
    return st->code;
  }
  /* The data moves up by the header's size within one buffer. */
  if (nh > UINT64_MAX - w->ndata) {
    sqlite3_free(h);
    return sq_toobig(st);
  }
  unsigned char *p = sq_realloc(st, w->mem, nh + w->ndata, 1);
  if (!p) {
    sqlite3_free(h);
    return st->code;
  }
  if (w->ndata) memmove(p + nh, p, w->ndata);
  memcpy(p, h, nh);
  sqlite3_free(h);
  *out = p;
  *outn = nh + w->ndata;
  w->mem = NULL;
  w->ndata = w->mem_cap = 0;
  return SQ_OK;
}

#ifndef SQLITE_QUANT_OMIT_FS
/* The file store's end: the header in front of the data, which moves up
** by its size in place, then GGUF's padding after the last tensor, the
** file cut to exactly that size (a rewind may have left bytes past it),
** then fsync'd and named.  The padding is not counted in ndata, so
** unsealing gives back the state of the last piece. */
int sq_model_writer_seal(sq_model_writer *w, uint64_t *size, sq_status *st) {
  static const unsigned char zeros[256];
  *size = 0;
  if (w->broken) return mw_unseal(w, st);
  if (!w->sealed) {
    char *h = NULL;
    uint64_t nh = 0, pad = mw_pad_size(w);
    if (mw_check_complete(w, st) ||
        (w->format == SQ_MW_GGUF ? mw_gguf_header(w, &h, &nh, st)
                                 : mw_st_header(w, &h, &nh, st))) {
      sqlite3_free(h);
      return st->code;
    }
    w->broken = 1;
    int rc = sq_staged_move(w->out, 0, nh, w->ndata, st) ||
             sq_staged_pwrite(w->out, 0, h, nh, st);
    sqlite3_free(h);
    for (uint64_t at = 0; !rc && at < pad; at += sizeof zeros) {
      uint64_t k = pad - at > sizeof zeros ? sizeof zeros : pad - at;
      rc = sq_staged_pwrite(w->out, nh + w->ndata + at, zeros, k, st);
    }
    if (rc || sq_staged_truncate(w->out, nh + w->ndata + pad, st))
      return st->code;
    w->broken = 0;
    w->sealed = 1;
    w->nsealed = nh;
    w->pad_sealed = pad;
  }
  if (sq_staged_seal(w->out, st)) return st->code;
  *size = w->nsealed + w->ndata + w->pad_sealed;
  return SQ_OK;
}

int sq_model_writer_commit(sq_model_writer *w, sq_status *st) {
  if (!w->sealed || w->broken)
    return sq_fail(st, "cannot replace '%.200s': the file is not complete",
                   w->out->path);
  return sq_staged_commit(w->out, st);
}

void sq_model_writer_mark(const sq_model_writer *w, sq_mw_mark *m) {
  m->ntensors = w->ntensors;
  m->nnames = w->nnames;
  m->ndata = w->ndata;
  m->got = w->ntensors ? w->t[w->ntensors - 1].got : 0;
  m->has_meta = w->meta != NULL;
}

int sq_model_writer_rewind(sq_model_writer *w, const sq_mw_mark *m,
                           sq_status *st) {
  if (w->out && mw_unseal(w, st)) return st->code;
  w->ntensors = m->ntensors;
  if (w->ntensors) w->t[w->ntensors - 1].got = m->got;
  w->nnames = m->nnames;
  w->ndata = m->ndata;
  if (!m->has_meta && w->meta) {
    sqlite3_free(w->meta);
    w->meta = NULL;
    w->nmeta = w->meta_cap = w->meta_count = 0;
    w->alignment = SQ_MW_GGUF_DEFAULT_ALIGNMENT;
  }
  /* Only to give the disk back: sealing cuts the file to its size anyway. */
  if (w->out) {
    sq_status ignored = *st;
    (void)sq_staged_truncate(w->out, w->ndata, &ignored);
  }
  return SQ_OK;
}
#endif /* SQLITE_QUANT_OMIT_FS */

int sq_mw_unseal(sq_model_writer *w, sq_status *st) {
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->out) return mw_unseal(w, st);
#else
  (void)w;
  (void)st;
#endif
  return SQ_OK;
}

void sq_model_writer_free(sq_model_writer *w) {
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->out) {
    sq_staged_close(w->out);
    sqlite3_free(w->out);
  }
#endif
  sqlite3_free(w->t);
  sqlite3_free(w->names);
  sqlite3_free(w->meta);
  sqlite3_free(w->mem);
  memset(w, 0, sizeof *w);
}

/* ---- the writer ops (formats/writer.h) ---- */

static void tw_init_safetensors(sq_file_writer *w) {
  sq_model_writer_init(&w->as.tensors, SQ_MW_SAFETENSORS);
}

static void tw_init_gguf(sq_file_writer *w) {
  sq_model_writer_init(&w->as.tensors, SQ_MW_GGUF);
}

static int tw_add(sq_file_writer *w, const char *name, size_t name_len,
                  const char *dtype, size_t dtype_len, const sq_shape *shape,
                  const void *data, size_t nbytes, sq_status *st) {
  return sq_model_writer_add(&w->as.tensors, name, name_len, dtype, dtype_len,
                             shape, data, nbytes, st);
}

static int tw_metadata(sq_file_writer *w, const char *json, size_t len,
                       sq_status *st) {
  return sq_model_writer_metadata(&w->as.tensors, json, len, st);
}

static int tw_finish(sq_file_writer *w, unsigned char **out, uint64_t *outn,
                     sq_status *st) {
  return sq_model_writer_finish(&w->as.tensors, out, outn, st);
}

static void tw_free(sq_file_writer *w) { sq_model_writer_free(&w->as.tensors); }

#ifndef SQLITE_QUANT_OMIT_FS
static int tw_open_safetensors(sq_file_writer *w, sq_staged *target,
                               sq_status *st) {
  return sq_model_writer_open(&w->as.tensors, SQ_MW_SAFETENSORS, target, st);
}

static int tw_open_gguf(sq_file_writer *w, sq_staged *target, sq_status *st) {
  return sq_model_writer_open(&w->as.tensors, SQ_MW_GGUF, target, st);
}

static sq_staged *tw_staged(const sq_file_writer *w) {
  return w->as.tensors.out;
}

static int tw_seal(sq_file_writer *w, uint64_t *size, sq_status *st) {
  return sq_model_writer_seal(&w->as.tensors, size, st);
}

static int tw_commit(sq_file_writer *w, sq_status *st) {
  return sq_model_writer_commit(&w->as.tensors, st);
}

static void tw_mark(const sq_file_writer *w, sq_writer_mark *m) {
  sq_model_writer_mark(&w->as.tensors, &m->as.tensors);
}

static int tw_rewind(sq_file_writer *w, const sq_writer_mark *m,
                     sq_status *st) {
  return sq_model_writer_rewind(&w->as.tensors, &m->as.tensors, st);
}
#endif

/* safetensors holds empty arrays (data_offsets [x, x]); GGUF's tensors are
** not empty. */
const sq_writer_ops sq_safetensors_writer_ops = {
  .dtype_column = "dtype", .shape_flags = SQ_SHAPE_ZERO_DIMS,
  .takes_metadata = 1, .init = tw_init_safetensors, .add = tw_add,
  .metadata = tw_metadata, .finish = tw_finish, .free = tw_free,
#ifndef SQLITE_QUANT_OMIT_FS
  .open = tw_open_safetensors, .staged = tw_staged, .seal = tw_seal,
  .commit = tw_commit, .mark = tw_mark, .rewind = tw_rewind,
#endif
};

const sq_writer_ops sq_gguf_writer_ops = {
  .dtype_column = "type", .shape_flags = 0, .takes_metadata = 1,
  .init = tw_init_gguf, .add = tw_add, .metadata = tw_metadata,
  .finish = tw_finish, .free = tw_free,
#ifndef SQLITE_QUANT_OMIT_FS
  .open = tw_open_gguf, .staged = tw_staged, .seal = tw_seal,
  .commit = tw_commit, .mark = tw_mark, .rewind = tw_rewind,
#endif
};
