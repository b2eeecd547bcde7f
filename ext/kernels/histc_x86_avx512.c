/*
** histc_x86_avx512.c: torch.histc binning with AVX-512, 16 lanes (histc.c
** states the rules; histc_x86.h is the body).
*/
#include "kernels/histc_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 16
#include "kernels/x86_width.h"
#include "kernels/histc_x86.h"
#include "kernels/x86_width_end.h"
#endif
