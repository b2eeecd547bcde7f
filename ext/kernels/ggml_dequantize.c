/* ggml_dequantize.c: SKELETON, being written (issue in progress). */
#include "kernels/ggml_internal.h"

void sq_ggml_dequantize_q4_0(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q4_1(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q5_0(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q5_1(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q8_0(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q2_K(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q3_K(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q4_K(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q5_K(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
void sq_ggml_dequantize_q6_K(const void *blocks, size_t n, void *y) { (void)blocks; (void)n; (void)y; }
