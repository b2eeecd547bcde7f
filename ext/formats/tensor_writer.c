/*
** tensor_writer.c: files written tensor by tensor
** (docs/FORMATS.md#writing-safetensors, docs/FORMATS.md#writing-gguf,
** docs/FORMATS.md#file-writers).  See tensor_writer.h.  The tensors, the
** chunk rule, the data stores and the walk over the metadata argument are
** here; what is a format's own is its layout (tensor_layout.h:
** safetensors_write.c, gguf_write.c).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/text.h"
#include "formats/tensor_layout.h"
#include "formats/writer.h"
#include "kernels/byteorder.h"

/* ---- dtypes ---- */

/* The type, the whole tensor's bytes and the bytes of one row along axis 0
** (for a 1-D block-type tensor, one block; for a 0-d tensor, all of it). */
static int mw_type(sq_model_writer *w, const char *name, size_t name_len,
                   const char *dtype, size_t dtype_len, const sq_shape *shape,
                   int *type, const char **tname, uint64_t *nbytes,
                   uint64_t *unit, sq_status *st) {
  uint64_t block = 1, bytes = 0;
  if (w->format->type(name, name_len, dtype, dtype_len, shape, type, tname,
                      &block, &bytes, st))
    return st->code;
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

/* Zeros up to the next multiple of the alignment (an aligned layout). */
static uint64_t mw_pad_size(const sq_model_writer *w) {
  uint64_t a = w->format->aligned ? w->alignment : 1;
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

/* An in-memory writer. */
static void sq_model_writer_init(sq_model_writer *w, const sq_mw_format *f) {
  memset(w, 0, sizeof *w);
  w->format = f;
  w->alignment = SQ_MW_DEFAULT_ALIGNMENT;
}

#ifndef SQLITE_QUANT_OMIT_FS
/* A writer whose data goes to a staged file for target, already resolved
** by sq_staged_resolve (sqlite3_malloc'd; the writer takes it over and
** frees it, even on error).  The temporary file is created now, so an
** unwritable directory fails at the first row. */
static int sq_model_writer_open(sq_model_writer *w, const sq_mw_format *f,
                                sq_staged *target, sq_status *st) {
  sq_model_writer_init(w, f);
  w->out = target;
  return sq_staged_create(target, st);
}
#endif

/* ---- tensors ---- */

/* Adds a piece of a tensor under the chunk rule.  name: UTF-8 without NUL
** (safetensors: not "__metadata__"; GGUF: under 64 bytes, ggml's limit);
** dtype: one of the readers' names the format has; shape: the whole
** tensor's.  A piece with a new name starts a tensor (the previous one must
** be complete; a name already used is refused); one with the current name
** continues it (same dtype and shape).  After an error, rewind to a mark
** taken before the call, or free the writer. */
static int sq_model_writer_add(sq_model_writer *w, const char *name,
                               size_t name_len, const char *dtype,
                               size_t dtype_len, const sq_shape *shape,
                               const void *data, size_t nbytes,
                               sq_status *st) {
  sq_mw_tensor *cur = w->ntensors ? &w->t[w->ntensors - 1] : NULL;
  if (cur && cur->name_len == name_len &&
      (name_len == 0 || memcmp(sq_mw_name(w, cur), name, name_len) == 0) &&
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
                   SQ_MW_SHOW(cur->name_len), sq_mw_name(w, cur),
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
  if (w->format->check_name(name, name_len, st)) return st->code;
  for (size_t k = 0; k < w->ntensors; k++)
    if (w->t[k].name_len == name_len &&
        (name_len == 0 ||
         memcmp(sq_mw_name(w, &w->t[k]), name, name_len) == 0))
      return sq_fail(st, "name '%.*s' is given twice", SQ_MW_SHOW(name_len), name);
  int type;
  const char *tname;
  uint64_t whole, unit;
  if (mw_type(w, name, name_len, dtype, dtype_len, shape, &type, &tname,
              &whole, &unit, st))
    return st->code;
  if ((uint64_t)nbytes > whole || (nbytes % unit) ||
      (nbytes == 0 && whole != 0))
    return w->format->bad_size(name, name_len, nbytes, shape->count, tname,
                               whole, unit, st);
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
                   SQ_MW_SHOW(cur->name_len), sq_mw_name(w, cur),
                   (unsigned long long)cur->got,
                   (unsigned long long)cur->nbytes);
  return SQ_OK;
}

static int mw_header(sq_model_writer *w, char **h, uint64_t *nh,
                     sq_status *st) {
  *h = NULL;
  if (mw_check_complete(w, st)) return st->code;
  /* An aligned layout pads after the last tensor too, as ggml's gguf_write
  ** does. */
  if (w->format->aligned && mw_pad_data(w, st)) return st->code;
  return w->format->header(w, h, nh, st);
}

/* In memory: the file's bytes (sqlite3_malloc'd; the writer's buffer is
** handed over) and size. */
static int sq_model_writer_finish(sq_model_writer *w, unsigned char **out,
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
/* The file store's end, again after more pieces: the header in front of
** the data, which moves up by its size in place, then an aligned layout's
** padding after the last tensor, the file cut to exactly that size (a
** rewind may have left bytes past it), then fsync'd and named beside the
** target (formats/staged_file.h); *size: the file's size.  The padding is
** not counted in ndata, so unsealing gives back the state of the last
** piece. */
static int sq_model_writer_seal(sq_model_writer *w, uint64_t *size,
                                sq_status *st) {
  static const unsigned char zeros[256];
  *size = 0;
  if (w->broken) return mw_unseal(w, st);
  if (!w->sealed) {
    char *h = NULL;
    uint64_t nh = 0, pad = mw_pad_size(w);
    if (mw_check_complete(w, st) || w->format->header(w, &h, &nh, st)) {
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

/* File store, sealed: renames the file over the target. */
static int sq_model_writer_commit(sq_model_writer *w, sq_status *st) {
  if (!w->sealed || w->broken)
    return sq_fail(st, "cannot replace '%.200s': the file is not complete",
                   w->out->path);
  return sq_staged_commit(w->out, st);
}

/* The state between two rows, to rewind to. */
static void sq_model_writer_mark(const sq_model_writer *w, sq_mw_mark *m) {
  m->ntensors = w->ntensors;
  m->nnames = w->nnames;
  m->ndata = w->ndata;
  m->got = w->ntensors ? w->t[w->ntensors - 1].got : 0;
  m->has_meta = w->meta != NULL;
}

/* Back to the mark: what came after it is dropped. */
static int sq_model_writer_rewind(sq_model_writer *w, const sq_mw_mark *m,
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
    w->alignment = SQ_MW_DEFAULT_ALIGNMENT;
  }
  /* Only to give the disk back: sealing cuts the file to its size anyway. */
  if (w->out) {
    sq_status ignored = *st;
    (void)sq_staged_truncate(w->out, w->ndata, &ignored);
  }
  return SQ_OK;
}
#endif /* SQLITE_QUANT_OMIT_FS */

/* Frees everything; a staged file not committed is removed. */
static void sq_model_writer_free(sq_model_writer *w) {
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

/* ---- the metadata argument: the walk over its object ---- */

void sq_mw_scan_ws(sq_mw_scan *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
                         j->s[j->i] == '\n' || j->s[j->i] == '\r'))
    j->i++;
}

int sq_mw_scan_expected(sq_mw_scan *j, const char *what) {
  if (j->i >= j->n)
    return sq_fail(j->st, "metadata ends where %s was expected", what);
  return sq_fail(j->st, "metadata has byte 0x%02x at byte %zu where %s was "
                        "expected", j->s[j->i], j->i, what);
}

static int mw_hex4(sq_mw_scan *j, uint32_t *v) {
  if (j->n - j->i < 4) return sq_mw_scan_expected(j, "4 hex digits");
  *v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned char c = j->s[j->i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return sq_mw_scan_expected(j, "a hex digit");
    *v = *v << 4 | (uint32_t)d;
    j->i++;
  }
  return SQ_OK;
}

/* A JSON string decoded to UTF-8 into out (reset first). */
int sq_mw_scan_string(sq_mw_scan *j, char **out, uint64_t *n, uint64_t *cap,
                      const char *what) {
  *n = 0;
  if (j->i >= j->n || j->s[j->i] != '"') return sq_mw_scan_expected(j, what);
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

/* Sets the metadata from JSON text (docs/FORMATS.md#writing-safetensors:
** an object of strings; docs/FORMATS.md#gguf-metadata: an object of
** {"type": T, "value": V}); GGUF's general.alignment sets the alignment, so
** it must come before the first tensor. */
static int sq_model_writer_metadata(sq_model_writer *w, const char *json,
                                    size_t len, sq_status *st) {
  sq_mw_scan j = {(const unsigned char *)json, len, 0, st};
  mw_keys keys = {0};
  char *key = NULL;
  uint64_t nkey = 0, ckey = 0, count = 0;
  sq_mw_meta m = {&j, w, NULL, 0, 0, NULL, 0, 0, SQ_MW_DEFAULT_ALIGNMENT};
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->out && mw_unseal(w, st)) return st->code;
#endif
  sqlite3_free(w->meta);
  w->meta = NULL;
  w->nmeta = w->meta_cap = w->meta_count = 0;
  sq_mw_scan_ws(&j);
  if (j.i >= j.n || j.s[j.i] != '{') {
    sq_mw_scan_expected(&j, "a JSON object '{'");
    goto fail;
  }
  j.i++;
  if (w->format->meta_open(&m)) goto fail;
  sq_mw_scan_ws(&j);
  if (j.i < j.n && j.s[j.i] == '}') {
    j.i++;
  } else {
    for (;;) {
      sq_mw_scan_ws(&j);
      if (sq_mw_scan_string(&j, &key, &nkey, &ckey, "a key string")) goto fail;
      if (nkey && memchr(key, 0, nkey)) {
        sq_fail(st, "metadata key '%.*s' contains NUL", SQ_MW_SHOW(nkey), key);
        goto fail;
      }
      if (mw_keys_add(&keys, key, nkey, st)) goto fail;
      sq_mw_scan_ws(&j);
      if (j.i >= j.n || j.s[j.i] != ':') {
        sq_mw_scan_expected(&j, "':'");
        goto fail;
      }
      j.i++;
      sq_mw_scan_ws(&j);
      m.key = key;
      m.keylen = nkey;
      m.index = count;
      if (w->format->meta_value(&m)) goto fail;
      count++;
      sq_mw_scan_ws(&j);
      if (j.i < j.n && j.s[j.i] == ',') {
        j.i++;
        continue;
      }
      if (j.i < j.n && j.s[j.i] == '}') {
        j.i++;
        break;
      }
      sq_mw_scan_expected(&j, "',' or '}'");
      goto fail;
    }
  }
  sq_mw_scan_ws(&j);
  if (j.i != j.n) {
    sq_mw_scan_expected(&j, "the end of the metadata");
    goto fail;
  }
  if (w->format->meta_close(&m, count)) goto fail;
  w->meta_count = count;
fail:
  if (st->code) {
    sqlite3_free(w->meta);
    w->meta = NULL;
    w->nmeta = w->meta_cap = w->meta_count = 0;
  }
  sqlite3_free(key);
  sqlite3_free(m.str);
  sqlite3_free(keys.keys);
  sqlite3_free(keys.spans);
  return st->code;
}
/* ---- the writer ops (formats/writer.h) ---- */

static void tw_init_safetensors(sq_file_writer *w) {
  sq_model_writer_init(&w->as.tensors, &sq_mw_safetensors);
}

static void tw_init_gguf(sq_file_writer *w) {
  sq_model_writer_init(&w->as.tensors, &sq_mw_gguf);
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
  return sq_model_writer_open(&w->as.tensors, &sq_mw_safetensors, target, st);
}

static int tw_open_gguf(sq_file_writer *w, sq_staged *target, sq_status *st) {
  return sq_model_writer_open(&w->as.tensors, &sq_mw_gguf, target, st);
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
