/* npy.c: SKELETON (being written): the .npy and .npz readers (docs/FORMATS.md). */
#include "core/model_file.h"

int sq_npy_read(const unsigned char *p, size_t n, int want_meta,
                sq_file_index *ix, sq_status *st) {
  (void)p; (void)n; (void)want_meta; (void)ix;
  return sq_fail(st, "npy: reader not written yet");
}

int sq_npz_read(const unsigned char *p, size_t n, int want_meta,
                sq_file_index *ix, sq_status *st) {
  (void)p; (void)n; (void)want_meta; (void)ix;
  return sq_fail(st, "npz: reader not written yet");
}
