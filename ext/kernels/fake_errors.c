/*
** fake_errors.c: see fake_errors.h.  A small group (a block of 32, a channel
** of a few hundred) is searched over 80 candidate ranges; three kernel calls
** per candidate cost more than the arithmetic, and vectorizing along 32
** elements gains little.  So the loop runs along the candidates instead:
** each element is broadcast and goes through W parameter sets per vector
** step, each set keeping SQ_ERROR_LANES lane sums.
**
**   1. A portable body written with GCC vector extensions (IEEE float32 and
**      double operations element by element, no contraction under
**      -ffp-contract=off), 4 sets per step, for the scalar and neon paths
**      on any host; the avx2 and avx512 paths run the same steps with
**      intrinsics, 8 and 16 sets per step (one body, fake_errors_x86.h, read
**      by fake_errors_x86_avx2.c and fake_errors_x86_avx512.c under their
**      target pragmas), chosen by the kernel path.
**      Every version returns the same bits, the scalar kernels' bits.
**   2. Rounding never uses the FPU rounding mode: the portable body
**      truncates and corrects by comparisons (half to even) as scalar.c
**      does; the x86 bodies use the instruction's explicit nearest-even.
*/
#include <string.h>
#include "kernels/fake_errors.h"
#include "kernels/kernels_internal.h"

#define SQ_FE_W 4 /* parameter sets per step: 16-byte vectors */

static void sq_fe_base(const unsigned char *px, size_t n, const sq_qparams *q,
                       int count, double *sum) {
  typedef float vf __attribute__((vector_size(4 * SQ_FE_W)));
  typedef int32_t vi __attribute__((vector_size(4 * SQ_FE_W)));
  typedef double vd __attribute__((vector_size(8 * SQ_FE_W)));
  enum { STEPS = (SQ_FE_MAX + SQ_FE_W - 1) / SQ_FE_W };
  const int steps = (count + SQ_FE_W - 1) / SQ_FE_W;
  vf scale[STEPS], inv[STEPS], lo[STEPS], hi[STEPS];
  for (int c = 0; c < steps * SQ_FE_W; c++) {
    const sq_qparams *p = &q[c < count ? c : count - 1]; /* pad: repeat */
    scale[c / SQ_FE_W][c % SQ_FE_W] = p->scale;
    inv[c / SQ_FE_W][c % SQ_FE_W] = p->inv;
    lo[c / SQ_FE_W][c % SQ_FE_W] = p->lo;
    hi[c / SQ_FE_W][c % SQ_FE_W] = p->hi;
  }
  vd acc[SQ_ERROR_LANES][STEPS];
  memset(acc, 0, sizeof acc);
  const vf zero = {0}, phalf = zero + 0.5f, nhalf = zero - 0.5f;
  const vi one = (vi){0} + 1;
  const int divide = q[0].divide;
  for (size_t i = 0; i < n; i++) {
    float v = sq_load_f32(px + 4 * i);
    vf vv = zero + v;
    vd vdd = (vd){0} + (double)v;
    vd *a = acc[i % SQ_ERROR_LANES];
    for (int s = 0; s < steps; s++) {
      /* quantize as scalar.c: scale, clamp in float, round half to even;
      ** the code minus its zero point is that integer, so the
      ** dequantized value is the integer times the scale */
      vf y = divide ? vv / scale[s] : vv * inv[s];
      vi m = y < lo[s];
      y = (vf)(((vi)lo[s] & m) | ((vi)y & ~m));
      m = y > hi[s];
      y = (vf)(((vi)hi[s] & m) | ((vi)y & ~m));
      vi t = __builtin_convertvector(y, vi);
      vf d = y - __builtin_convertvector(t, vf);
      vi odd = (t & one) == one;
      t -= (d > phalf) | ((d == phalf) & odd);         /* true is -1 */
      t += (d < nhalf) | ((d == nhalf) & odd);
      vf back = __builtin_convertvector(t, vf) * scale[s];
      vd e = vdd - __builtin_convertvector(back, vd);
      a[s] += e * e;
    }
  }
  for (int c = 0; c < count; c++) {
    double lane[SQ_ERROR_LANES];
    for (int l = 0; l < SQ_ERROR_LANES; l++)
      lane[l] = acc[l][c / SQ_FE_W][c % SQ_FE_W];
    sum[c] = sq_lanes_total(lane);
  }
}


#if defined(__x86_64__) && !defined(SQ_SCALAR_ONLY)
#define SQ_FE_X86_PATHS 1
#endif

int sq_fake_sq_errors(const sq_kernels *k, const void *x, size_t n,
                      sq_code_type code, const sq_qparams *q, int count,
                      double *sum) {
  if (code == SQ_CODE_I32 || count < 1 || count > SQ_FE_MAX) return 0;
  for (int c = 0; c < count; c++)
    if (q[c].add != 0.0f || q[c].divide != q[0].divide) return 0;
#ifdef SQ_FE_X86_PATHS
  /* a path is only ever selected on a CPU that has its instructions */
  if (!strcmp(k->name, "avx512")) {
    sq_fe_avx512(x, n, q, count, sum);
    return 1;
  }
  if (!strcmp(k->name, "avx2")) {
    sq_fe_avx2(x, n, q, count, sum);
    return 1;
  }
#endif
  (void)k;
  sq_fe_base(x, n, q, count, sum);
  return 1;
}
