/*
** fake_errors_x86_avx512.c: sq_fake_sq_errors' avx512 body, 16 parameter
** sets per step (fake_errors_x86.h is the body and states what it
** computes).  Only dispatch.c decides whether the avx512 path, and so this
** function, may run.
*/
#include "kernels/fake_errors.h"
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 16
#include "kernels/x86_width.h"
#include "kernels/fake_errors_x86.h"
#include "kernels/x86_width_end.h"
#else
typedef int sq_unused_fe_avx512;
#endif
