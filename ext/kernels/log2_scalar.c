/*
** log2_scalar.c: the scalar log2 code kernels (kernels/log2.h) and the
** tables of the paths that have no log2 kernels of their own.
**
** Rules:
**   1. each element goes through sq_log2_code / sq_log2_value_bits, integer
**      operations on the float's bits, so the result does not depend on the
**      host's rounding mode, DAZ/FTZ or byte order;
**   2. the vector paths (log2_x86_avx2.c for avx2 and avx512,
**      log2_arm_neon.c) use its interleaved kernels and tails; the kernel
**      tests compare every path's table with this one.
*/
#include "kernels/kernels_internal.h"

static size_t sq_log2_quantize_scalar(const void *x, size_t n, int32_t emax,
                                      int32_t kmax, void *q) {
  sq_cb src = x;
  int8_t *dst = q;
  for (size_t i = 0; i < n; i++) {
    uint32_t u = sq_load_u32(src + 4 * i);
    if ((u & 0x7fffffffu) > 0x7f800000u) return i;
    dst[i] = sq_log2_code(u, emax, kmax);
  }
  return n;
}

size_t sq_log2_quantize_il_scalar(const void *x, size_t rows,
                                         size_t channels, const int32_t *emax,
                                         int32_t kmax, void *q) {
  sq_cb src = x;
  int8_t *dst = q;
  size_t i = 0;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < channels; c++, i++) {
      uint32_t u = sq_load_u32(src + 4 * i);
      if ((u & 0x7fffffffu) > 0x7f800000u) return i;
      dst[i] = sq_log2_code(u, emax[c], kmax);
    }
  return i;
}

static void sq_log2_dequantize_scalar(const void *q, size_t n, int32_t emax,
                                      void *y) {
  const int8_t *src = q;
  sq_b dst = y;
  for (size_t i = 0; i < n; i++)
    sq_store_u32(dst + 4 * i, sq_log2_value_bits(src[i], emax));
}

void sq_log2_dequantize_il_scalar(const void *q, size_t rows,
                                         size_t channels, const int32_t *emax,
                                         void *y) {
  const int8_t *src = q;
  sq_b dst = y;
  size_t i = 0;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < channels; c++, i++)
      sq_store_u32(dst + 4 * i, sq_log2_value_bits(src[i], emax[c]));
}

const sq_log2_kernels sq_log2_kernels_scalar = {
  sq_log2_quantize_scalar, sq_log2_quantize_il_scalar,
  sq_log2_dequantize_scalar, sq_log2_dequantize_il_scalar,
};
