/*
** onnx.c: PLACEHOLDER while the onnx reader is being written; it is replaced
** before this format is documented.
*/
#include "core/model_file.h"

int sq_onnx_read(const unsigned char *p, size_t n, int want_meta,
                 sq_file_index *ix, sq_status *st) {
  (void)p; (void)n; (void)want_meta; (void)ix;
  return sq_fail(st, "onnx: not readable yet");
}
