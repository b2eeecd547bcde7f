/*
** tensor.c: float tensors, shapes and layouts (SPEC 1.1, 1.5).
**
**   1. a float tensor is a BLOB of little-endian float32 (length a multiple of
**      4, any alignment; it is read in place, never copied) or JSON array text;
**      NULL gives NULL; INTEGER and REAL are errors;
**   2. a shape is a JSON array of 1 to 32 positive integers whose product must
**      not overflow; an axis may be negative (-1 is the last);
**   3. around an axis, a row-major tensor is outer x channels x inner, and the
**      kernels walk it in place without transposing.
*/
#include <string.h>
#include "core.h"
#include "kernels/kernels_internal.h"

static const char *sq_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "blob";
    default: return "null";
  }
}

/* A list of 4-byte little-endian words: a BLOB read in place, or JSON text
** parsed into float32 (float_words) or int32.  `what` names the blob kind in
** messages ("float32", "int32"). */
static int sq_words_from_value(sqlite3_value *v, const char *argname,
                               int float_words, sq_tensor *t, sq_status *st) {
  const char *what = float_words ? "float32" : "int32";
  memset(t, 0, sizeof *t);
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return SQ_NULL;
  if (type == SQLITE_BLOB) {
    const void *p = sqlite3_value_blob(v);
    int nb = sqlite3_value_bytes(v);
    if (nb % 4)
      return sq_fail(st, "%s blob length %d is not a multiple of 4", what, nb);
    t->data = p ? p : (const void *)"";
    t->n = (size_t)nb / 4;
    return SQ_OK;
  }
  if (type == SQLITE_TEXT) {
    const char *s = (const char *)sqlite3_value_text(v);
    if (!s) return sq_nomem(st);
    size_t len = (size_t)sqlite3_value_bytes(v);
    void *buf;
    int rc = float_words ? sq_json_parse_floats(s, len, argname, &buf, &t->n, st)
                         : sq_json_parse_ints(s, len, argname, &buf, &t->n, st);
    if (rc) return rc;
    t->data = t->owned = buf;
    return SQ_OK;
  }
  return sq_fail(st, "%s must be %s %s blob or a JSON array, got %s", argname,
                 float_words ? "a" : "an", what, sq_type_name(type));
}

int sq_tensor_from_value(sqlite3_value *v, const char *argname, sq_tensor *t,
                         sq_status *st) {
  return sq_words_from_value(v, argname, 1, t, st);
}

int sq_int32s_from_value(sqlite3_value *v, const char *argname, sq_tensor *t,
                         sq_status *st) {
  return sq_words_from_value(v, argname, 0, t, st);
}

void sq_tensor_free(sq_tensor *t) {
  sqlite3_free(t->owned);
  t->owned = NULL;
}

int sq_shape_from_value(sqlite3_value *v, sq_shape *s, sq_status *st) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return SQ_NULL;
  if (type != SQLITE_TEXT)
    return sq_fail(st, "shape must be a JSON array of positive integers, got %s",
                   sq_type_name(type));
  const char *txt = (const char *)sqlite3_value_text(v);
  if (!txt) return sq_nomem(st);
  size_t len = (size_t)sqlite3_value_bytes(v);
  if (strlen(txt) != len)
    return sq_fail(st, "shape contains a NUL character at byte %zu", strlen(txt));
  /* No blob within the length limit holds more elements than this (4-bit
  ** codes take half a byte each), so no larger shape can match any data,
  ** and every byte count derived from a shape stays far from overflow. */
  uint64_t max_count = 2 * (uint64_t)st->max_bytes;
  const char *p = txt;
  s->ndim = 0;
  s->count = 1;
  while (*p == ' ') p++;
  if (*p++ != '[') goto bad;
  for (;;) {
    while (*p == ' ') p++;
    if (*p < '1' || *p > '9') goto bad;
    uint64_t d = 0;
    while (*p >= '0' && *p <= '9') {
      unsigned digit = (unsigned)(*p++ - '0');
      if (d > (max_count - digit) / 10) goto overflow;
      d = d * 10 + digit;
    }
    if (s->ndim == SQ_MAX_DIMS)
      return sq_fail(st, "shape has more than %d dimensions", SQ_MAX_DIMS);
    s->dim[s->ndim++] = (int64_t)d;
    if (s->count > max_count / d) goto overflow;
    s->count *= d;
    while (*p == ' ') p++;
    if (*p == ']') break;
    if (*p++ != ',') goto bad;
  }
  p++;
  while (*p == ' ') p++;
  if (*p) goto bad;
  return SQ_OK;
bad:
  return sq_fail(st, "shape must be a JSON array of positive integers, got '%.60s'",
                 txt);
overflow:
  return sq_fail(st, "shape '%.60s' has too many elements", txt);
}

int sq_layout_make(const sq_shape *s, sqlite3_int64 axis, sq_layout *l,
                   sq_status *st) {
  if (axis < -s->ndim || axis >= s->ndim)
    return sq_fail(st, "axis %lld is out of range for a %d-d shape (expected %d..%d)",
                   (long long)axis, s->ndim, -s->ndim, s->ndim - 1);
  int a = (int)(axis < 0 ? axis + s->ndim : axis);
  l->axis = a;
  l->outer = l->inner = 1;
  for (int i = 0; i < a; i++) l->outer *= (size_t)s->dim[i];
  l->channels = (size_t)s->dim[a];
  for (int i = a + 1; i < s->ndim; i++) l->inner *= (size_t)s->dim[i];
  return SQ_OK;
}

int sq_tensor_minmax(const sq_kernels *k, const void *x, size_t n,
                     size_t index_base, float *mn, float *mx, sq_status *st) {
  size_t bad = k->minmax(x, n, mn, mx);
  if (bad < n) {
    float v = sq_load_f32((const unsigned char *)x + 4 * bad);
    return sq_fail(st, "element %zu is %s", index_base + bad,
                   v != v ? "NaN" : v > 0 ? "inf" : "-inf");
  }
  return SQ_OK;
}
