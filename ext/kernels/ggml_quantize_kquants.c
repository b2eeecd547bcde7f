/* ggml_quantize_kquants.c: SKELETON, being written (issue in progress). */
#include "kernels/ggml_internal.h"

void sq_ggml_quantize_q2_K(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q3_K(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q4_K(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q5_K(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
void sq_ggml_quantize_q6_K(const void *x, size_t n, const void *importance, void *blocks) { (void)x; (void)n; (void)importance; (void)blocks; }
