/*
** ggml_formats.c: the ggml block formats' sizes and ids, and the scalar
** path's table of their kernels (docs/NUMERICS.md#ggml).
*/
#include "kernels/ggml_internal.h"

/* Bytes per block are ggml's sizeof(block_<type>) (ggml-common.h). */
const sq_ggml_format sq_ggml_formats[SQ_GGML_NTYPES] = {
  [SQ_GGML_Q4_0] = {"q4_0", 2, 32, 18},
  [SQ_GGML_Q4_1] = {"q4_1", 3, 32, 20},
  [SQ_GGML_Q5_0] = {"q5_0", 6, 32, 22},
  [SQ_GGML_Q5_1] = {"q5_1", 7, 32, 24},
  [SQ_GGML_Q8_0] = {"q8_0", 8, 32, 34},
  [SQ_GGML_Q2_K] = {"q2_K", 10, 256, 84},
  [SQ_GGML_Q3_K] = {"q3_K", 11, 256, 110},
  [SQ_GGML_Q4_K] = {"q4_K", 12, 256, 144},
  [SQ_GGML_Q5_K] = {"q5_K", 13, 256, 176},
  [SQ_GGML_Q6_K] = {"q6_K", 14, 256, 210},
};

const sq_ggml_kernels sq_ggml_kernels_scalar = {
  .quantize = {SQ_GGML_TYPES(SQ_GGML_ENTRY_Q)},
  .dequantize = {SQ_GGML_TYPES(SQ_GGML_ENTRY_DQ)},
};
