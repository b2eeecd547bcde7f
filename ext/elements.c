/*
** elements.c: element-by-element access to a blob of any format, for the
** functions that show tensors rather than compute on them (q_json, q_each,
** q_length).
**
**   1. f32 accepts a blob or JSON text; f16, bf16 and code dtypes need a blob
**      whose length is a multiple of the element size;
**   2. 4-bit blobs hold 2 elements per byte; an explicit count may drop the
**      last high nibble (odd counts).
*/
#include <string.h>
#include "core.h"
#include "sql.h"
#include "kernels/kernels_internal.h"

int sq_elements_from_value(const sq_kernels *k, sqlite3_value *v,
                           const char *argname, const sq_dtype *dt,
                           int64_t count, sq_elements *e, sq_status *st) {
  memset(e, 0, sizeof *e);
  e->dt = dt;
  if (dt->kind == SQ_FMT_FLOAT && dt->bits == 32) {
    int rc = sq_tensor_from_value(v, argname, &e->f32, st);
    e->n = e->f32.n;
    if (!rc && count >= 0 && (uint64_t)count != e->n)
      return sq_fail(st, "count %lld does not match the %zu element%s of %s",
                     (long long)count, e->n, e->n == 1 ? "" : "s", argname);
    return rc;
  }
  const void *data;
  size_t nbytes;
  if (sq_arg_codes(v, argname, dt, &data, &nbytes, st)) return st->code;
  if (dt->kind == SQ_FMT_FLOAT) {
    if (sq_codes_count(dt, nbytes, count, &e->n, st)) return st->code;
    void *buf = sq_alloc(st, e->n, 4);
    if (!buf) return st->code;
    if (dt->bits == 64) sq_f64_to_f32(data, e->n, buf);
    else if (strcmp(dt->name, "f16") == 0) k->f16_to_f32(data, e->n, buf);
    else k->bf16_to_f32(data, e->n, buf);
    e->f32.data = e->f32.owned = buf;
    e->f32.n = e->n;
    return SQ_OK;
  }
  e->codes = data;
  return sq_codes_count(dt, nbytes, count, &e->n, st);
}

void sq_elements_free(sq_elements *e) { sq_tensor_free(&e->f32); }

float sq_element_float(const sq_elements *e, size_t i) {
  return sq_load_f32((const unsigned char *)e->f32.data + 4 * i);
}

int64_t sq_element_code(const sq_elements *e, size_t i) {
  const unsigned char *q = e->codes;
  switch (e->dt->bits) {
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

void sq_f64_to_f32(const void *src, size_t n, void *dst) {
  for (size_t i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, (const unsigned char *)src + 8 * i, 8);
#if SQ_BIG_ENDIAN
    u = __builtin_bswap64(u);
#endif
    double d;
    memcpy(&d, &u, 8);
    /* Out of float32 range (not NaN) saturates to inf, as IEEE conversion
    ** does; done explicitly because C leaves it undefined. */
    float f = d >= 3.4028235677973366e38 ? __builtin_inff()
            : d <= -3.4028235677973366e38 ? -__builtin_inff()
                                         : (float)d;
    sq_store_f32((unsigned char *)dst + 4 * i, f);
  }
}
