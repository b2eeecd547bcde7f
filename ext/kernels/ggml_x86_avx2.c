/* ggml_x86_avx2.c: SKELETON, the avx2 path's ggml kernels (being written). */
#include "kernels/ggml_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)

const sq_ggml_kernels sq_ggml_kernels_avx2 = {
  .quantize = {SQ_GGML_TYPES(SQ_GGML_ENTRY_Q)},
  .dequantize = {SQ_GGML_TYPES(SQ_GGML_ENTRY_DQ)},
};

#else
typedef int sq_unused_ggml_avx2;
#endif
