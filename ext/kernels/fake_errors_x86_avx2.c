/*
** fake_errors_x86_avx2.c: sq_fake_sq_errors' avx2 body, 8 parameter
** sets per step (fake_errors_x86.h is the body and states what it
** computes).  Only dispatch.c decides whether the avx2 path, and so this
** function, may run.
*/
#include "kernels/fake_errors.h"
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_W 8
#include "kernels/x86_width.h"
#include "kernels/fake_errors_x86.h"
#include "kernels/x86_width_end.h"
#else
typedef int sq_unused_fe_avx2;
#endif
