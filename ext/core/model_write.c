/*
** model_write.c: model files written from tensors (docs/FORMATS.md#writing).
*/
#include <stdio.h>
#include <string.h>
#include "core/model_write.h"
#include "kernels/byteorder.h"

/* ------------------------------------------------------------------ .npy */

/* The dtypes a .npy holds: the readers' names, numpy's descr (little-endian
** form; the "be" names swap '<' for '>'), the item size. */
static const struct {
  const char *name, *descr;
  int size;
} npy_write_types[] = {
  {"f16", "<f2", 2},    {"f32", "<f4", 4},    {"f64", "<f8", 8},
  {"int8", "|i1", 1},   {"int16", "<i2", 2},  {"int32", "<i4", 4},
  {"int64", "<i8", 8},  {"uint8", "|u1", 1},  {"uint16", "<u2", 2},
  {"uint32", "<u4", 4}, {"uint64", "<u8", 8}, {"bool", "|b1", 1},
};

static int npy_name_eq(const char *a, size_t alen, const char *b, size_t blen) {
  if (alen != blen) return 0;
  for (size_t i = 0; i < alen; i++) {
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (x >= 'A' && x <= 'Z') x = (unsigned char)(x - 'A' + 'a');
    if (x != y) return 0;
  }
  return 1;
}

/* numpy's header: "{'descr': '<f4', 'fortran_order': False, 'shape': (3,
** 4), }", then (format.py _write_array_header) 21 - len(repr(shape[0]))
** spaces of growth room, then (_wrap_header) spaces and '\n' so that magic +
** version + length field + header is a multiple of 64 bytes. */
int sq_npy_write(const char *dtype, size_t dtype_len, const sq_shape *shape,
                 const void *data, size_t nbytes, unsigned char **out,
                 uint64_t *outn, sq_status *st) {
  *out = NULL;
  *outn = 0;
  char descr[4];
  int size = 0;
  for (size_t k = 0; k < sizeof npy_write_types / sizeof npy_write_types[0];
       k++) {
    const char *nm = npy_write_types[k].name;
    size_t nl = strlen(nm);
    int be = 0;
    if (npy_name_eq(dtype, dtype_len, nm, nl)) be = 0;
    else if (npy_write_types[k].size > 1 && dtype_len == nl + 2 &&
             npy_name_eq(dtype, nl, nm, nl) &&
             npy_name_eq(dtype + nl, 2, "be", 2)) be = 1;
    else continue;
    memcpy(descr, npy_write_types[k].descr, 4);
    if (be) descr[0] = '>';
    size = npy_write_types[k].size;
    break;
  }
  if (!size)
    return sq_fail(st, "dtype '%.*s' has no numpy dtype (a .npy holds f16 f32 "
                       "f64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
                       "bool, or a big-endian f16be ... uint64be)",
                   dtype_len > 40 ? 40 : (int)dtype_len, dtype);
  /* shape->count <= 2 x SQLITE_LIMIT_LENGTH, so this cannot overflow. */
  uint64_t want = shape->count * (uint64_t)size;
  if ((uint64_t)nbytes != want)
    return sq_fail(st, "data has %zu bytes but %llu elements of %.*s take %llu",
                   nbytes, (unsigned long long)shape->count, (int)dtype_len,
                   dtype, (unsigned long long)want);

  /* The dict, at most 60 + 32 x 21 bytes, plus growth room. */
  char h[64 + SQ_MAX_DIMS * 24 + 32];
  size_t k = (size_t)snprintf(h, sizeof h,
                              "{'descr': '%s', 'fortran_order': False, "
                              "'shape': (", descr);
  for (int d = 0; d < shape->ndim; d++)
    k += (size_t)snprintf(h + k, sizeof h - k, "%s%lld", d ? ", " : "",
                          (long long)shape->dim[d]);
  k += (size_t)snprintf(h + k, sizeof h - k, "%s), }",
                        shape->ndim == 1 ? "," : "");
  if (shape->ndim > 0) {
    char first[24];
    int flen = snprintf(first, sizeof first, "%lld", (long long)shape->dim[0]);
    for (int g = flen; g < 21; g++) h[k++] = ' ';
  }

  /* Version 1.0 (u16 length) unless the padded header passes 65535. */
  uint64_t hlen = k + 1, field = 2;
  uint64_t pad = 64 - ((6 + 2 + field + hlen) % 64);
  int major = 1;
  if (hlen + pad > 65535) {
    major = 2;
    field = 4;
    pad = 64 - ((6 + 2 + field + hlen) % 64);
  }
  uint64_t head = 8 + field + hlen + pad;
  unsigned char *p = sq_alloc(st, head + nbytes, 1);
  if (!p) return st->code;
  memcpy(p, "\x93NUMPY", 6);
  p[6] = (unsigned char)major;
  p[7] = 0;
  if (major == 1) sq_store_u16(p + 8, (uint16_t)(hlen + pad));
  else sq_store_u32(p + 8, (uint32_t)(hlen + pad));
  memcpy(p + 8 + field, h, k);
  memset(p + 8 + field + k, ' ', pad);
  p[head - 1] = '\n';
  if (nbytes) memcpy(p + head, data, nbytes);
  *out = p;
  *outn = head + nbytes;
  return SQ_OK;
}
