/* ggml_quantize_legacy.c: SKELETON, being written (issue in progress). */
#include "kernels/ggml_internal.h"

void sq_ggml_quantize_q4_0(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q4_1(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q5_0(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q5_1(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q8_0(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
