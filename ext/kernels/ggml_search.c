/* ggml_search.c: SKELETON, being written (issue in progress). */
#include "kernels/ggml_internal.h"
