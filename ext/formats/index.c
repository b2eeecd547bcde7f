/*
** index.c: the index that every reader fills, its budget, and what the
** readers share to fill it (see index.h; docs/FORMATS.md).
*/
#include <stdio.h>
#include <string.h>
#include "core/text.h"
#include "formats/index.h"

size_t sq_file_shape_text(const sq_file_tensor *t, char *buf, size_t cap) {
  size_t k = 0;
  buf[k++] = '[';
  for (int d = 0; d < t->ndim && k + 24 < cap; d++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", d ? "," : "",
                          (long long)t->dim[d]);
  buf[k++] = ']';
  buf[k] = 0;
  return k;
}

int sq_file_tensor_read(const sq_file_view *v, const sq_file_tensor *t,
                        uint64_t start, uint64_t len, unsigned char *out,
                        sq_status *st) {
  if (start > t->nbytes || len > t->nbytes - start)
    return sq_fail(st, "tensor '%.200s': bytes %llu..%llu are past its %llu "
                       "bytes", t->name, (unsigned long long)start,
                   (unsigned long long)(start + len),
                   (unsigned long long)t->nbytes);
  if (t->decode) return t->decode(v, t, start, len, out, st);
  if (t->offset > v->src->size || t->nbytes > v->src->size - t->offset)
    return sq_fail(st, "tensor '%.200s': its data lies outside the file",
                   t->name);
  return sq_source_read(v->src, t->offset + start, len, out, st);
}

void sq_file_stream_free(sq_file_stream *s) {
  sqlite3_free(s->live);
  sqlite3_free(s->mark);
  sq_window_free(&s->win);
  memset(s, 0, sizeof *s);
}

void sq_file_index_free(sq_file_index *ix) {
  for (size_t i = 0; i < ix->ntensors; i++) {
    sqlite3_free(ix->tensors[i].name);
    sqlite3_free(ix->tensors[i].location);
  }
  for (size_t i = 0; i < ix->nmeta; i++) {
    sqlite3_free(ix->meta[i].key);
    sqlite3_free(ix->meta[i].value);
  }
  for (size_t i = 0; i < ix->nscopes; i++) sqlite3_free(ix->scopes[i].label);
  sqlite3_free(ix->tensors);
  sqlite3_free(ix->meta);
  sqlite3_free(ix->scopes);
  memset(ix, 0, sizeof *ix);
}

/* ---- the budget (docs/FORMATS.md#memory) ---- */

void sq_file_index_begin(sq_file_index *ix, const char *format,
                         uint64_t input) {
  memset(ix, 0, sizeof *ix);
  ix->format = format;
  ix->input = input;
  ix->budget = input > (UINT64_MAX - SQ_FILE_BUDGET_FIXED) /
                           SQ_FILE_BUDGET_PER_BYTE
                   ? UINT64_MAX
                   : SQ_FILE_BUDGET_PER_BYTE * input + SQ_FILE_BUDGET_FIXED;
}

/* Charges bytes to the budget without allocating them. */
static int sq_file_charge(sq_file_index *ix, uint64_t bytes, sq_status *st) {
  if (bytes > ix->budget || ix->used > ix->budget - bytes)
    return sq_fail(st, "%s: the index of the %llu-byte file needs more than "
                       "%llu bytes for its names, scopes and metadata (%u per "
                       "byte of the file, plus %u)",
                   ix->format ? ix->format : "file",
                   (unsigned long long)ix->input,
                   (unsigned long long)ix->budget, SQ_FILE_BUDGET_PER_BYTE,
                   SQ_FILE_BUDGET_FIXED);
  ix->used += bytes;
  return SQ_OK;
}

void *sq_file_alloc(sq_file_index *ix, uint64_t count, uint64_t size,
                    sq_status *st) {
  if (size && count > UINT64_MAX / size) {
    sq_toobig(st);
    return NULL;
  }
  if (sq_file_charge(ix, count * size, st)) return NULL;
  return sq_alloc_internal(st, count, size);
}

void *sq_file_realloc(sq_file_index *ix, void *old, uint64_t count,
                      uint64_t size, sq_status *st) {
  if (size && count > UINT64_MAX / size) {
    sq_toobig(st);
    return NULL;
  }
  if (sq_file_charge(ix, count * size, st)) return NULL;
  return sq_realloc_internal(st, old, count, size);
}

char *sq_file_strndup(sq_file_index *ix, const void *s, size_t len,
                      sq_status *st) {
  char *c = sq_file_alloc(ix, (uint64_t)len + 1, 1, st);
  if (!c) return NULL;
  if (len) memcpy(c, s, len);
  c[len] = 0;
  return c;
}

/* Room for one more entry of size `size` in *arr (count n, capacity *cap).
** The tables are one entry per row: not charged (rule 3). */
static int sq_grow(void **arr, size_t n, size_t *cap, size_t size,
                   sq_status *st) {
  if (n < *cap) return SQ_OK;
  size_t want = *cap ? *cap * 2 : 16;
  void *p = sq_realloc_internal(st, *arr, want, size);
  if (!p) return st->code;
  *arr = p;
  *cap = want;
  return SQ_OK;
}

sq_file_tensor *sq_file_add_tensor(sq_file_index *ix, const char *name,
                                   size_t len, sq_status *st) {
  char *copy = sq_file_strndup(ix, name, len, st);
  if (!copy) return NULL;
  if (sq_grow((void **)&ix->tensors, ix->ntensors, &ix->tensors_cap,
              sizeof *ix->tensors, st)) {
    sqlite3_free(copy);
    return NULL;
  }
  sq_file_tensor *t = &ix->tensors[ix->ntensors++];
  memset(t, 0, sizeof *t);
  t->name = copy;
  return t;
}

sq_file_meta *sq_file_add_meta(sq_file_index *ix, const char *key, size_t len,
                               sq_status *st) {
  char *copy = sq_file_strndup(ix, key, len, st);
  if (!copy) return NULL;
  if (sq_grow((void **)&ix->meta, ix->nmeta, &ix->meta_cap, sizeof *ix->meta,
              st)) {
    sqlite3_free(copy);
    return NULL;
  }
  sq_file_meta *m = &ix->meta[ix->nmeta++];
  memset(m, 0, sizeof *m);
  m->key = copy;
  return m;
}

int sq_file_add_scope(sq_file_index *ix, uint32_t parent, const char *label,
                      size_t len, int glued, uint32_t *id, sq_status *st) {
  if (ix->nscopes >= UINT32_MAX - 1) return sq_toobig(st);
  char *copy = sq_file_strndup(ix, label, len, st);
  if (!copy) return st->code;
  if (sq_grow((void **)&ix->scopes, ix->nscopes, &ix->scopes_cap,
              sizeof *ix->scopes, st)) {
    sqlite3_free(copy);
    return st->code;
  }
  sq_file_scope *s = &ix->scopes[ix->nscopes++];
  s->parent = parent;
  s->glued = glued;
  s->label = copy;
  s->len = len;
  *id = (uint32_t)ix->nscopes;
  return SQ_OK;
}

char *sq_file_scope_text(const sq_file_index *ix, uint32_t scope,
                         uint64_t *len, sq_status *st) {
  *len = 0;
  if (scope == 0 || scope > ix->nscopes) return NULL;
  /* Parents come before their children, so the walk ends. */
  uint64_t total = 0;
  for (uint32_t k = scope; k; k = ix->scopes[k - 1].parent)
    total += ix->scopes[k - 1].len +
             (ix->scopes[k - 1].parent && !ix->scopes[k - 1].glued);
  char *text = sq_alloc(st, total + 1, 1);
  if (!text) return NULL;
  uint64_t at = total;
  text[at] = 0;
  for (uint32_t k = scope; k; k = ix->scopes[k - 1].parent) {
    const sq_file_scope *s = &ix->scopes[k - 1];
    at -= s->len;
    if (s->len) memcpy(text + at, s->label, s->len);
    if (s->parent && !s->glued) text[--at] = '/';
  }
  *len = total;
  return text;
}

/* ---- what the readers share ---- */

int sq_file_text_add(sq_file_text *t, const void *s, size_t len,
                     sq_status *st) {
  if (!t->s || len + 1 > t->cap - t->len) {
    uint64_t want = t->cap ? t->cap : 64;
    while (want - t->len < len + 1) {
      if (want > ((uint64_t)1 << 62)) return sq_toobig(st);
      want *= 2;
    }
    char *p = sq_file_realloc(t->ix, t->s, want, 1, st);
    if (!p) return st->code;
    t->s = p;
    t->cap = (size_t)want;
  }
  if (len) memcpy(t->s + t->len, s, len);
  t->len += len;
  t->s[t->len] = 0;
  return SQ_OK;
}

int sq_file_text_json_string(sq_file_text *t, const unsigned char *s,
                             size_t len, sq_status *st) {
  if (sq_file_text_add(t, "\"", 1, st)) return st->code;
  size_t run = 0;
  for (size_t i = 0; i < len; i++) {
    char esc[8];
    size_t elen = sq_json_escape(s[i], esc);
    if (!elen) continue;
    if (sq_file_text_add(t, s + run, i - run, st) ||
        sq_file_text_add(t, esc, elen, st))
      return st->code;
    run = i + 1;
  }
  if (sq_file_text_add(t, s + run, len - run, st)) return st->code;
  return sq_file_text_add(t, "\"", 1, st);
}

int sq_file_quote_len(const void *s, size_t len) {
  return sq_utf8_prefix(s, len, 64);
}
