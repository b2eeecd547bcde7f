/*
** elements.c: element-by-element access to a blob of any format.
**
**   1. f32 is a float tensor (blob or JSON); f16, bf16, f64 and code dtypes
**      are blobs whose length is a multiple of the element size;
**   2. 4-bit blobs hold 2 elements per byte; an explicit count may leave the
**      last high nibble out (odd counts), as docs/NUMERICS.md#codes says;
**      2-bit blobs hold 4 per byte, and a count may leave 1 to 3 out.
*/
#include <string.h>
#include "core/elements.h"
#include "kernels/byteorder.h"

const char *sq_article(const char *name) {
  return name[0] == 'i' || name[0] == 'f' ? "an" : "a";
}
/* "" or "s" after a count. */
static const char *sq_plural(size_t n) { return n == 1 ? "" : "s"; }

int sq_codes_count(const sq_dtype *dt, size_t nbytes, int64_t count, size_t *n,
                   sq_status *st) {
  if (dt->bits == 4) {
    size_t full = nbytes * 2;
    if (count < 0) {
      *n = full;
    } else if ((uint64_t)count == full || (nbytes > 0 && (uint64_t)count == full - 1)) {
      *n = (size_t)count;
    } else if (full == 0) {
      return sq_fail(st, "count %lld does not fit an empty %s blob (expected 0)",
                     (long long)count, dt->name);
    } else {
      return sq_fail(st, "count %lld does not fit %s %s blob of %zu byte%s "
                         "(expected %zu or %zu)",
                     (long long)count, sq_article(dt->name), dt->name, nbytes,
                     sq_plural(nbytes), full - 1, full);
    }
    return SQ_OK;
  }
  if (dt->bits == 2) {
    /* four per byte: the last byte holds 1 to 4 of them */
    size_t full = nbytes * 4;
    if (count < 0) {
      *n = full;
    } else if (nbytes == 0 ? count == 0
                           : (uint64_t)count <= full && (uint64_t)count > full - 4) {
      *n = (size_t)count;
    } else if (full == 0) {
      return sq_fail(st, "count %lld does not fit an empty %s blob (expected 0)",
                     (long long)count, dt->name);
    } else {
      return sq_fail(st, "count %lld does not fit %s %s blob of %zu byte%s "
                         "(expected %zu to %zu)",
                     (long long)count, sq_article(dt->name), dt->name, nbytes,
                     sq_plural(nbytes), full - 3, full);
    }
    return SQ_OK;
  }
  size_t size = (size_t)dt->bits / 8;
  if (nbytes % size)
    return sq_fail(st, "%s blob length %zu is not a multiple of %zu", dt->name,
                   nbytes, size);
  *n = nbytes / size;
  if (count >= 0 && (uint64_t)count != *n)
    return sq_fail(st, "count %lld does not match the %zu element%s of the %s blob",
                   (long long)count, *n, sq_plural(*n), dt->name);
  return SQ_OK;
}

int sq_elements_from_f32(sq_tensor *t, int64_t count, const char *argname,
                         sq_elements *e, sq_status *st) {
  memset(e, 0, sizeof *e);
  e->dt = &sq_dtype_f32;
  e->f32 = *t;
  e->n = t->n;
  t->owned = NULL;          /* the elements own it now */
  if (count >= 0 && (uint64_t)count != e->n)
    return sq_fail(st, "count %lld does not match the %zu element%s of %s",
                   (long long)count, e->n, sq_plural(e->n), argname);
  return SQ_OK;
}

/* Float64 to float32, rounding to nearest; beyond float32's range (not NaN)
** saturates to inf, done explicitly because C leaves it undefined. */
static void sq_f64_to_f32(const void *src, size_t n, void *dst) {
  for (size_t i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, (const unsigned char *)src + 8 * i, 8);
#if SQ_BIG_ENDIAN
    u = __builtin_bswap64(u);
#endif
    double d;
    memcpy(&d, &u, 8);
    float f = d >= 3.4028235677973366e38 ? __builtin_inff()
            : d <= -3.4028235677973366e38 ? -__builtin_inff()
                                         : (float)d;
    sq_store_f32((unsigned char *)dst + 4 * i, f);
  }
}

int sq_elements_from_blob(const sq_kernels *k, const void *data, size_t nbytes,
                          const sq_dtype *dt, int64_t count, sq_elements *e,
                          sq_status *st) {
  memset(e, 0, sizeof *e);
  e->dt = dt;
  if (sq_codes_count(dt, nbytes, count, &e->n, st)) return st->code;
  if (dt->kind != SQ_FMT_FLOAT) {
    e->codes = data;
    return SQ_OK;
  }
  void *buf = sq_alloc(st, e->n, 4);
  if (!buf) return st->code;
  if (dt->bits == 64) sq_f64_to_f32(data, e->n, buf);
  else if (strcmp(dt->name, "f16") == 0) k->f16_to_f32(data, e->n, buf);
  else k->bf16_to_f32(data, e->n, buf);
  e->f32.data = e->f32.owned = buf;
  e->f32.n = e->n;
  return SQ_OK;
}

void sq_elements_free(sq_elements *e) { sq_tensor_free(&e->f32); }

float sq_element_float(const sq_elements *e, size_t i) {
  return sq_load_f32((const unsigned char *)e->f32.data + 4 * i);
}

int64_t sq_element_code(const sq_elements *e, size_t i) {
  const unsigned char *q = e->codes;
  switch (e->dt->bits) {
    case 2: {
      int v = (q[i / 4] >> ((i & 3) * 2)) & 3;
      return e->dt->is_signed && v >= 2 ? v - 4 : v;
    }
    case 4: {
      int nib = (q[i / 2] >> ((i & 1) * 4)) & 0x0f;
      return e->dt->is_signed && nib >= 8 ? nib - 16 : nib;
    }
    case 8: return e->dt->is_signed ? (int8_t)q[i] : q[i];
    case 16: {
      uint16_t u = sq_load_u16(q + 2 * i);
      return e->dt->is_signed ? (int16_t)u : u;
    }
    default: return (int32_t)sq_load_u32(q + 4 * i);
  }
}
