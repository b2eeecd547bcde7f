/* ggml_arm_neon.c: SKELETON, the neon path's ggml kernels (being written). */
#include "kernels/ggml_internal.h"

#if defined(__aarch64__) && !defined(SQ_SCALAR_ONLY) && !SQ_BIG_ENDIAN

const sq_ggml_kernels sq_ggml_kernels_neon = {
  .quantize = {SQ_GGML_TYPES(SQ_GGML_ENTRY_Q)},
  .dequantize = {SQ_GGML_TYPES(SQ_GGML_ENTRY_DQ)},
};

#else
typedef int sq_unused_ggml_neon;
#endif
