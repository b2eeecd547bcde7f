/*
** npy_convert.c: a float tensor argument given as .npy bytes, and the
** float64 look-alike check on raw float32 BLOBs
** (docs/NUMERICS.md#float-tensors).
**
**   1. .npy bytes are read by their own header (sq_file_read: every size is
**      checked before anything is allocated) and converted to an owned
**      float32 buffer by sq_f32_from_stored (core/stored_convert.c: f64
**      rounded to nearest, a finite value beyond float32's range an error
**      naming the element; integers by C's conversion; bool 0 or 1).  The
**      shape is dropped: functions that take a shape check the element
**      count.
**   2. sq_f32_looks_like_f64: the raw-BLOB check described at the function.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/index.h"
#include "kernels/byteorder.h"

int sq_is_npy(const void *p, size_t n) {
  return n >= 6 && memcmp(p, "\x93NUMPY", 6) == 0;
}

int sq_tensor_from_npy(const sq_kernels *k, const unsigned char *p, size_t n,
                       const char *argname, sq_tensor *t, sq_status *st) {
  sq_file_index ix = {0};
  memset(t, 0, sizeof *t);
  if (sq_file_read(p, n, SQ_FILE_NPY, 0, &ix, st)) {
    char msg[sizeof st->msg];
    sq_file_index_free(&ix);
    if (st->code != SQ_INVALID) return st->code;
    memcpy(msg, st->msg, sizeof msg);
    st->code = SQ_OK;
    return sq_fail(st, "%s is a .npy that cannot be read (%s)", argname, msg);
  }
  const sq_file_tensor *ft = &ix.tensors[0];
  const unsigned char *src = p + ft->offset;
  char dtype[SQ_FILE_DTYPE_MAX];
  memcpy(dtype, ft->dtype, sizeof dtype);
  uint64_t nbytes = ft->nbytes;
  sq_file_index_free(&ix);

  return sq_f32_from_stored(k, dtype, strlen(dtype), src, nbytes, argname, t,
                            st);
}

/* Does a raw float32 BLOB of n bytes hold float64 data?  Read as doubles
** (little-endian word pairs: even word = low half, odd word = high half):
**
**   (a) n is a multiple of 8 and holds at least 16 doubles;
**   (b) every double is ±0 or has a binary exponent in [-64, 64]
**       (1 <= |d| * 2^64 < 2^129): the high words all look like moderate
**       doubles -- as float32 they are 0 or in [2^-8, 2^9);
**   (c) more than half of the low words, read as float32, are "wild":
**       nonzero with |v| < 2^-31 or |v| >= 2^32 (NaN and inf included).
**
** The low 32 bits of a double's mantissa are uniformly spread for data that
** was not rounded to fewer bits, so about 75% of low words are wild; a real
** float32 tensor almost never holds values below 4.7e-10 or above 4.3e9
** (measurements in docs/NUMERICS.md#float-tensors). */
int sq_f32_looks_like_f64(const void *data, size_t n) {
  const unsigned char *p = data;
  if (n % 8 || n / 8 < 16) return 0;
  size_t pairs = n / 8, wild = 0, tame = 0;
  for (size_t i = 0; i < pairs; i++) {
    uint32_t hi = sq_load_u32(p + 8 * i + 4);
    uint32_t lo = sq_load_u32(p + 8 * i);
    int e = (int)((hi >> 20) & 0x7ff) - 1023;
    if ((hi & 0x7fffffff) == 0 && lo == 0) {
      tame++;
    } else {
      if (e < -64 || e > 64) return 0;
      int fe = (int)((lo >> 23) & 0xff) - 127;
      if ((lo & 0x7fffffff) != 0 && (fe < -31 || fe >= 32)) wild++;
      else tame++;
    }
    if (tame * 2 >= pairs) return 0;
  }
  return wild * 2 > pairs;
}
