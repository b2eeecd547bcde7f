/*
** npy_argument.c: a float tensor argument given as .npy bytes
** (docs/NUMERICS.md#float-tensors).
**
** The bytes are read by their own header (sq_file_read: every size is
** checked before anything is allocated) and converted to an owned float32
** buffer by sq_f32_from_stored (core/stored_convert.c: f64 rounded to
** nearest, a finite value beyond float32's range an error naming the
** element; integers by C's conversion; bool 0 or 1).  The shape is
** dropped: functions that take a shape check the element count.
*/
#include <string.h>
#include "formats/formats.h"

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
