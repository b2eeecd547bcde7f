/*
** tensor.c: float tensors and shapes (docs/NUMERICS.md#float-tensors and
** docs/NUMERICS.md#shapes).
**
**   1. a float tensor is n little-endian float32 read in place, at any
**      alignment;
**   2. a shape is a JSON array of 1 to 32 positive integers, written with
**      digits, commas and spaces; its product may not exceed twice the
**      length limit, so nothing derived from it can overflow.
*/
#include <string.h>
#include "core/tensor.h"
#include "kernels/byteorder.h"

void sq_tensor_free(sq_tensor *t) {
  sqlite3_free(t->owned);
  t->owned = NULL;
}

int sq_fail_nonfinite(const void *x, size_t index, sq_status *st) {
  float v = sq_load_f32((const unsigned char *)x);
  return sq_fail(st, "element %zu is %s", index,
                 v != v ? "NaN" : v > 0 ? "inf" : "-inf");
}

int sq_tensor_minmax(const sq_kernels *k, const void *x, size_t n,
                     size_t index_base, float *mn, float *mx, sq_status *st) {
  size_t bad = k->minmax(x, n, mn, mx);
  if (bad < n)
    return sq_fail_nonfinite((const unsigned char *)x + 4 * bad,
                             index_base + bad, st);
  return SQ_OK;
}

int sq_shape_parse(const char *txt, size_t len, sq_shape *s, sq_status *st) {
  return sq_shape_parse_opt(txt, len, 0, s, st);
}

int sq_shape_parse_opt(const char *txt, size_t len, unsigned flags,
                       sq_shape *s, sq_status *st) {
  int zero_ok = (flags & SQ_SHAPE_ZERO_DIMS) != 0;
  /* No blob within the length limit holds more elements than this (4-bit
  ** codes take half a byte each), so no larger shape can match any data,
  ** and every byte count derived from a shape stays far from overflow. */
  uint64_t max_count = 2 * (uint64_t)st->max_bytes;
  const char *p = txt, *end = txt + len;
  /* The character at q, or NUL past the end: the text is read by length. */
#define SQ_AT(q) ((q) < end ? *(q) : '\0')
  s->ndim = 0;
  s->count = 1;
  while (SQ_AT(p) == ' ') p++;
  if (SQ_AT(p) != '[') goto bad;
  p++;
  for (;;) {
    while (SQ_AT(p) == ' ') p++;
    uint64_t d = 0;
    if (zero_ok && SQ_AT(p) == '0') {
      p++;  /* a 0 dim, written "0" alone (no leading zeros) */
      if (SQ_AT(p) >= '0' && SQ_AT(p) <= '9') goto bad;
      goto have_dim;
    }
    if (SQ_AT(p) < '1' || SQ_AT(p) > '9') goto bad;
    while (SQ_AT(p) >= '0' && SQ_AT(p) <= '9') {
      unsigned digit = (unsigned)(*p++ - '0');
      if (d > (max_count - digit) / 10) goto overflow;
      d = d * 10 + digit;
    }
  have_dim:
    if (s->ndim == SQ_MAX_DIMS)
      return sq_fail(st, "shape has more than %d dimensions", SQ_MAX_DIMS);
    s->dim[s->ndim++] = (int64_t)d;
    if (d && s->count > max_count / d) goto overflow;
    s->count *= d;
    while (SQ_AT(p) == ' ') p++;
    if (SQ_AT(p) == ']') break;
    if (SQ_AT(p) != ',') goto bad;
    p++;
  }
  p++;
  while (SQ_AT(p) == ' ') p++;
  if (p != end) goto bad;
#undef SQ_AT
  return SQ_OK;
bad:
  return sq_fail(st, "shape must be a JSON array of %s integers, got '%.*s'",
                 zero_ok ? "non-negative" : "positive",
                 (int)(len < 60 ? len : 60), txt);
overflow:
  return sq_fail(st, "shape '%.*s' has too many elements",
                 (int)(len < 60 ? len : 60), txt);
}

int sq_shape_check_count(const sq_shape *s, size_t n, sq_status *st) {
  if (s->count == n) return SQ_OK;
  return sq_fail(st, "shape holds %llu elements but x has %zu",
                 (unsigned long long)s->count, n);
}
