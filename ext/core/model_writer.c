/*
** model_writer.c: safetensors and GGUF files written tensor by tensor
** (docs/FORMATS.md#writing-safetensors, docs/FORMATS.md#writing-gguf,
** docs/FORMATS.md#file-writers).  See model_writer.h.  The tensors, the
** chunk rule, the data stores and the headers are here; the metadata
** argument is decoded in model_metadata.c.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/model_file.h"
#include "core/model_writer.h"
#include "core/model_writer_buf.h"
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
** (docs/ARCHITECTURE.md#registration), where only the memory store is. */
#ifndef SQLITE_QUANT_OMIT_FS
/* Messages for the errors of writing a file, the same in every locale. */
static const char *mw_errno_text(int e) {
  switch (e) {
    case ENOENT: return "no such directory";
    case EACCES: case EPERM: return "permission denied";
    case EISDIR: return "it is a directory";
    case ENOTDIR: return "a part of the path is not a directory";
    case ENAMETOOLONG: return "the path is too long";
    case ELOOP: return "too many symbolic links";
    case EMFILE: case ENFILE: return "too many open files";
    case ENOSPC: return "no space left on the device";
#ifdef EDQUOT
    case EDQUOT: return "disk quota exceeded";
#endif
    case EROFS: return "read-only file system";
    case EFBIG: return "file too large";
    case EIO: return "input/output error";
    case EXDEV: return "the temporary file is on another device";
    case ENOMEM: return "out of memory";
    default: return "cannot write it";
  }
}

static int mw_io_fail(sq_model_writer *w, const char *what, int e,
                      sq_status *st) {
  if (e == ENOMEM) return sq_nomem(st);
  return sq_fail(st, "cannot %s '%.200s': %s", what, w->path,
                 mw_errno_text(e));
}

/* A new file beside the target, named "<target>.tmp-XXXXXXXX", created
** exclusively with mode 0666 so that the umask applies as for any file. */
static int mw_create_temp(sq_model_writer *w, char **tmp, int *fd,
                          sq_status *st) {
  static unsigned counter;
  size_t plen = strlen(w->path);
  char *name = sq_alloc(st, plen + 24, 1);
  if (!name) return st->code;
  uint64_t seed = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^
                  (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)name;
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
    uint64_t x = seed + (uint64_t)c * 0xD1B54A32D192ED03ull;
    x ^= x >> 29;
    snprintf(name, plen + 24, "%s.tmp-%08x", w->path, (unsigned)(x & 0xFFFFFFFFu));
    int f = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f >= 0) {
      *tmp = name;
      *fd = f;
      return SQ_OK;
    }
    if (errno != EEXIST) {
      int e = errno;
      sqlite3_free(name);
      return mw_io_fail(w, "create a file beside", e, st);
    }
  }
  sqlite3_free(name);
  return sq_fail(st, "cannot create a file beside '%.200s': every temporary "
                     "name tried exists", w->path);
}

static int mw_write_all(sq_model_writer *w, int fd, const void *p, uint64_t n,
                        sq_status *st) {
  const unsigned char *b = p;
  while (n) {
    size_t k = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)n;
    ssize_t r = write(fd, b, k);
    if (r < 0) {
      if (errno == EINTR) continue;
      return mw_io_fail(w, "write", errno, st);
    }
    b += r;
    n -= (uint64_t)r;
  }
  return SQ_OK;
}
#endif /* SQLITE_QUANT_OMIT_FS */

/* Appends to the data section. */
static int mw_store(sq_model_writer *w, const void *p, uint64_t n,
                    sq_status *st) {
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->fd >= 0) {
    if (mw_write_all(w, w->fd, p, n, st)) return st->code;
    w->ndata += n;
    return SQ_OK;
  }
#endif
  return sq_mw_put(st, (char **)&w->mem, &w->ndata, &w->mem_cap, p, n);
}

/* Zeros up to the next multiple of the alignment (GGUF). */
static int mw_pad_data(sq_model_writer *w, sq_status *st) {
  static const unsigned char zeros[256];
  uint64_t a = w->format == SQ_MW_GGUF ? w->alignment : 1;
  uint64_t pad = (a - w->ndata % a) % a;
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
  w->fd = -1;
}

#ifndef SQLITE_QUANT_OMIT_FS
int sq_model_writer_open(sq_model_writer *w, sq_mw_format f, const char *path,
                         sq_status *st) {
  sq_model_writer_init(w, f);
  size_t n = strlen(path);
  if (!n) return sq_fail(st, "path is empty");
  if (!(w->path = sq_alloc(st, n + 1, 1))) return st->code;
  memcpy(w->path, path, n + 1);
  return mw_create_temp(w, &w->tmp_data, &w->fd, st);
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
/* Copies the data file after the header: copy_file_range, else reads and
** writes through a 1 MiB buffer. */
static int mw_copy(sq_model_writer *w, int to, sq_status *st) {
  uint64_t left = w->ndata;
  off_t in = 0;
  while (left) {
    size_t k = left > ((uint64_t)1 << 30) ? ((size_t)1 << 30) : (size_t)left;
    ssize_t r = copy_file_range(w->fd, &in, to, NULL, k, 0);
    if (r > 0) {
      left -= (uint64_t)r;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno != ENOSYS && errno != EXDEV && errno != EINVAL &&
        errno != EOPNOTSUPP && errno != EPERM)
      return mw_io_fail(w, "write", errno, st);
    break;  /* not supported here (or no progress): copy by hand */
  }
  if (!left) return SQ_OK;
  size_t bsize = 1 << 20;
  unsigned char *buf = sq_alloc(st, bsize, 1);
  if (!buf) return st->code;
  while (left) {
    size_t k = left > bsize ? bsize : (size_t)left;
    ssize_t r = pread(w->fd, buf, k, in);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      sqlite3_free(buf);
      return mw_io_fail(w, "write", r < 0 ? errno : EIO, st);
    }
    if (mw_write_all(w, to, buf, (uint64_t)r, st)) break;
    in += r;
    left -= (uint64_t)r;
  }
  sqlite3_free(buf);
  return st->code;
}

/* Makes the rename durable: fsync of the directory that holds path (best
** effort: the file itself is already complete and in place). */
static void mw_sync_dir(const char *path) {
  const char *slash = strrchr(path, '/');
  char dir[4096];
  if (!slash) {
    dir[0] = '.';
    dir[1] = 0;
  } else {
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= sizeof dir) return;
    memcpy(dir, path, n);
    dir[n] = 0;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

int sq_model_writer_commit(sq_model_writer *w, uint64_t *written,
                           sq_status *st) {
  *written = 0;
  char *h = NULL;
  uint64_t nh;
  int out = -1;
  if (mw_header(w, &h, &nh, st) || mw_create_temp(w, &w->tmp_out, &out, st) ||
      mw_write_all(w, out, h, nh, st) || mw_copy(w, out, st))
    goto done;
  if (fsync(out) != 0) {
    mw_io_fail(w, "write", errno, st);
    goto done;
  }
  if (close(out) != 0) {
    out = -1;
    mw_io_fail(w, "write", errno, st);
    goto done;
  }
  out = -1;
  if (rename(w->tmp_out, w->path) != 0) {
    mw_io_fail(w, "replace", errno, st);
    goto done;
  }
  sqlite3_free(w->tmp_out);
  w->tmp_out = NULL;
  *written = nh + w->ndata;
  mw_sync_dir(w->path);
done:
  if (out >= 0) close(out);
  sqlite3_free(h);
  return st->code;
}
#endif /* SQLITE_QUANT_OMIT_FS */

void sq_model_writer_free(sq_model_writer *w) {
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->fd >= 0) close(w->fd);
  if (w->tmp_data) unlink(w->tmp_data);
  if (w->tmp_out) unlink(w->tmp_out);
#endif
  sqlite3_free(w->tmp_data);
  sqlite3_free(w->tmp_out);
  sqlite3_free(w->path);
  sqlite3_free(w->t);
  sqlite3_free(w->names);
  sqlite3_free(w->meta);
  sqlite3_free(w->mem);
  memset(w, 0, sizeof *w);
  w->fd = -1;
}
