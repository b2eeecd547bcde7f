/*
** histc_x86_avx2.c: torch.histc binning with AVX2, 8 lanes (histc.c
** states the rules; histc_x86.h is the body).
*/
#include "kernels/histc_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 8
#include "kernels/x86_width.h"
#include "kernels/histc_x86.h"
#include "kernels/x86_width_end.h"
#endif
