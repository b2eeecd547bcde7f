/*
** tflite.c: PLACEHOLDER while the tflite reader is being written; it is replaced
** before this format is documented.
*/
#include "core/model_file.h"

int sq_tflite_read(const unsigned char *p, size_t n, int want_meta,
                 sq_file_index *ix, sq_status *st) {
  (void)p; (void)n; (void)want_meta; (void)ix;
  return sq_fail(st, "tflite: not readable yet");
}
