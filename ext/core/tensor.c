/*
** tensor.c: float tensors and shapes (docs/NUMERICS.md#float-tensors and
** docs/NUMERICS.md#shapes).
**
**   1. a float tensor is n little-endian float32 read in place, at any
**      alignment;
**   2. a shape is a JSON array of 1 to 32 positive integers, written with
**      digits, commas and spaces; its product may not exceed twice the
**      length limit, so nothing derived from it can overflow;
**   3. sq_f32_looks_like_f64: the raw-BLOB check described at the function.
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

int sq_shape_parse(const char *txt, size_t len, unsigned flags, sq_shape *s,
                   sq_status *st) {
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

/* Does a raw float32 BLOB of n bytes hold float64 data?  Read as doubles
** (little-endian word pairs: even word = low half, odd word = high half),
** it does when it holds at least 16 doubles (n a multiple of 8), every
** double is +-0 or has a binary exponent in [-64, 64] (1 <= |d| * 2^64 <
** 2^129: the high words all look like moderate doubles), and either
**
**   (a) more than half of the low words, read as float32, are "wild":
**       nonzero with |v| < 2^-31 or |v| >= 2^32 (NaN and inf included).
**       The low 32 bits of a double's mantissa are uniformly spread for
**       data that was not rounded to fewer bits, so about 75% of low words
**       are wild; a real float32 tensor almost never holds values below
**       4.7e-10 or above 4.3e9;
**   (b) float32 values widened to float64 (numpy's astype(np.float64),
**       torch's .double()): every low word has its low 29 bits zero (a
**       float32 has 23 mantissa bits of the double's 52), more than half of
**       them are nonzero, and they take at least 3 of the 7 nonzero values
**       left (the float32's last 3 mantissa bits).  Read as float32, every
**       even element of such data would be 0, +-2, +-2^-63 or +-2^65.
**
** Both are measured on real and random tensors (tests/f64_detect.test,
** docs/NUMERICS.md#float-tensors).  A pair that fits neither ends (b) at
** once; the scan stops when neither (a) nor (b) can hold any more. */
/* One pair of words for rules 2 and 3: 0 when the double cannot be a
** moderate one (the BLOB is float32), else 1, counting it wild or tame. */
static inline int sq_f64_pair(uint32_t lo, uint32_t hi, size_t *wild,
                              size_t *tame) {
  if ((hi & 0x7fffffff) == 0 && lo == 0) {
    (*tame)++;
    return 1;
  }
  int e = (int)((hi >> 20) & 0x7ff) - 1023;
  if (e < -64 || e > 64) return 0;
  int fe = (int)((lo >> 23) & 0xff) - 127;
  if ((lo & 0x7fffffff) != 0 && (fe < -31 || fe >= 32)) (*wild)++;
  else (*tame)++;
  return 1;
}

int sq_f32_looks_like_f64(const void *data, size_t n) {
  const unsigned char *p = data;
  if (n % 8 || n / 8 < 16) return 0;
  size_t pairs = n / 8, wild = 0, tame = 0, upcast_nonzero = 0, i = 0;
  unsigned lows_seen = 0;      /* bit k: a low word's top 3 bits were k */
  /* While (b) holds: float32 data leaves this loop at its first pair. */
  for (; i < pairs; i++) {
    uint32_t lo = sq_load_u32(p + 8 * i), hi = sq_load_u32(p + 8 * i + 4);
    if (!sq_f64_pair(lo, hi, &wild, &tame)) return 0;
    if (lo & 0x1fffffffu) break;
    if (lo) {
      upcast_nonzero++;
      lows_seen |= 1u << (lo >> 29);
    }
  }
  if (i == pairs) {
    int distinct = 0;
    for (unsigned b = lows_seen; b; b &= b - 1) distinct++;
    if (upcast_nonzero * 2 > pairs && distinct >= 3) return 1;
    return wild * 2 > pairs;
  }
  /* (a) alone, from the pair that ended (b). */
  for (i++; i < pairs; i++) {
    if (tame * 2 >= pairs) return 0;
    if (!sq_f64_pair(sq_load_u32(p + 8 * i), sq_load_u32(p + 8 * i + 4), &wild,
                     &tame))
      return 0;
  }
  return wild * 2 > pairs;
}

int sq_f64_fits_f32(const void *data, size_t count, size_t *bad) {
  const unsigned char *p = data;
  for (size_t i = 0; i < count; i++) {
    uint64_t bits = (uint64_t)sq_load_u32(p + 8 * i + 4) << 32 |
                    sq_load_u32(p + 8 * i);
    double d;
    memcpy(&d, &bits, 8);
    /* NaN and the infinities widen back to themselves. */
    if (d == d && (double)(float)d != d) {
      *bad = i;
      return 0;
    }
  }
  return 1;
}
