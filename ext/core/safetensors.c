/* safetensors.c: SKELETON (being written): the safetensors reader (docs/FORMATS.md). */
#include "core/model_file.h"

int sq_safetensors_read(const unsigned char *p, size_t n, int want_meta, sq_file_index *ix,
        sq_status *st) {
  (void)p; (void)n; (void)want_meta; (void)ix;
  return sq_fail(st, "safetensors: reader not written yet");
}
