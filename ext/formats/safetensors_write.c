/*
** safetensors_write.c: safetensors files written tensor by tensor, the
** safetensors layout of the tensor writer (tensor_layout.h;
** docs/FORMATS.md#writing-safetensors).
**
**   1. a tensor's dtype is one of the readers' names that safetensors has
**      (sq_safetensors_dtypes, safetensors.h); shapes may hold 0 (empty
**      arrays); "__metadata__" is no tensor's name;
**   2. the header is the JSON object {"__metadata__": META, "name":
**      {"dtype": .., "shape": [..], "data_offsets": [a, b]}, ...}, compact,
**      names escaped as serde_json does, padded with spaces to a multiple
**      of 8, after its 8-byte length; at most the 100,000,000 bytes
**      safetensors_read.c reads;
**   3. the metadata argument is a JSON object of strings, kept as the
**      "__metadata__" object.
*/
#include <stdio.h>
#include <string.h>
#include "core/text.h"
#include "formats/safetensors.h"
#include "formats/tensor_layout.h"
#include "kernels/byteorder.h"

#define ST_W_MAX_HEADER 100000000u  /* the most safetensors_read.c reads */

/* ---- tensors (rule 1) ---- */

static int st_w_type(const char *name, size_t name_len, const char *dtype,
                     size_t dtype_len, const sq_shape *shape, int *type,
                     const char **tname, uint64_t *block, uint64_t *bytes,
                     sq_status *st) {
  (void)name;
  (void)name_len;
  (void)shape;
  for (size_t k = 0; k < SQ_SAFETENSORS_NDTYPES; k++)
    if (sq_word_is(dtype, dtype_len, sq_safetensors_dtypes[k].name)) {
      *type = (int)k;
      *tname = sq_safetensors_dtypes[k].name;
      *block = 1;
      *bytes = (uint64_t)sq_safetensors_dtypes[k].size;
      return SQ_OK;
    }
  sq_names valid;
  sq_names_begin(&valid);
  for (size_t k = 0; k < SQ_SAFETENSORS_NDTYPES; k++)
    sq_names_add(&valid, sq_safetensors_dtypes[k].name);
  return sq_fail(st, "dtype '%.*s' has no safetensors dtype (%s)",
                 SQ_MW_SHOW(dtype_len), dtype, sq_names_join(&valid, " ", " "));
}

static int st_w_check_name(const char *name, size_t name_len,
                           sq_status *st) {
  if (name_len == 12 && memcmp(name, "__metadata__", 12) == 0)
    return sq_fail(st, "name '__metadata__' is the header's metadata key");
  return SQ_OK;
}

static int st_w_bad_size(const char *name, size_t name_len, size_t nbytes,
                         uint64_t count, const char *tname, uint64_t whole,
                         uint64_t unit, sq_status *st) {
  (void)unit;
  return sq_fail(st, "tensor '%.*s': data has %zu bytes but %llu "
                     "elements of %s take %llu", SQ_MW_SHOW(name_len), name,
                 nbytes, (unsigned long long)count, tname,
                 (unsigned long long)whole);
}

/* ---- the header (rule 2) ---- */

/* {"__metadata__":META,"name":{"dtype":..,"shape":[..],"data_offsets":[a,b]}}
** padded with spaces to a multiple of 8, after its 8-byte length. */
static int st_w_header(sq_model_writer *w, char **h, uint64_t *nh,
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
        sq_mw_json_string(st, h, nh, &cap, sq_mw_name(w, t), t->name_len))
      return st->code;
    int k = snprintf(num, sizeof num, ":{\"dtype\":\"%s\",\"shape\":[",
                     sq_safetensors_dtypes[t->type].file);
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
  if (len > ST_W_MAX_HEADER)
    return sq_fail(st, "the header of %llu bytes passes safetensors' "
                       "100,000,000-byte limit", (unsigned long long)len);
  sq_store_u32((unsigned char *)*h, (uint32_t)len);
  sq_store_u32((unsigned char *)*h + 4, (uint32_t)(len >> 32));
  return SQ_OK;
}

/* ---- the metadata (rule 3) ---- */

static int st_w_meta_open(sq_mw_meta *m) {
  sq_model_writer *w = m->w;
  return sq_mw_put(m->j->st, &w->meta, &w->nmeta, &w->meta_cap, "{", 1);
}

/* The value must be a string; "key":"value" joins the object. */
static int st_w_meta_value(sq_mw_meta *m) {
  sq_mw_scan *j = m->j;
  sq_model_writer *w = m->w;
  sq_status *st = j->st;
  if (j->i < j->n && j->s[j->i] != '"')
    return sq_fail(st, "metadata value of '%.*s' is not a string (safetensors "
                       "metadata maps strings to strings)",
                   SQ_MW_SHOW(m->keylen), m->key);
  if (sq_mw_scan_string(j, &m->str, &m->nstr, &m->cstr, "a value string") ||
      (m->index && sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, ",", 1)) ||
      sq_mw_json_string(st, &w->meta, &w->nmeta, &w->meta_cap, m->key,
                        m->keylen) ||
      sq_mw_put(st, &w->meta, &w->nmeta, &w->meta_cap, ":", 1) ||
      sq_mw_json_string(st, &w->meta, &w->nmeta, &w->meta_cap, m->str,
                        m->nstr))
    return st->code;
  return SQ_OK;
}

static int st_w_meta_close(sq_mw_meta *m, uint64_t count) {
  sq_model_writer *w = m->w;
  (void)count;
  return sq_mw_put(m->j->st, &w->meta, &w->nmeta, &w->meta_cap, "}", 1);
}

const sq_mw_format sq_mw_safetensors = {
  .type = st_w_type,
  .check_name = st_w_check_name,
  .bad_size = st_w_bad_size,
  .aligned = 0,
  .header = st_w_header,
  .meta_open = st_w_meta_open,
  .meta_value = st_w_meta_value,
  .meta_close = st_w_meta_close,
};
