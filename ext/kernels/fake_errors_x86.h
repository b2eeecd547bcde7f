/*
** fake_errors_x86.h: the avx2 and avx512 bodies of sq_fake_sq_errors
** (fake_errors.h), one macro instantiated in fake_errors_x86_avx2.c and
** fake_errors_x86_avx512.c under their target pragmas.
**
**   1. The same steps as fake_errors.c's portable body, W parameter sets per
**      step: scale (multiply by inv, or divide), clamp by max/min (the same
**      value as compare-and-select; a zero's sign is lost in the integer
**      anyway), round half to even by the instruction's explicit mode
**      (SQ_RNE, never the FPU mode), times the scale, each half widened to
**      double, error squared and added to lane i % SQ_ERROR_LANES;
**   2. the lanes are totalled by sq_lanes_total, so the bits are the scalar
**      kernels'.
*/
#ifndef SQ_FAKE_ERRORS_X86_H
#define SQ_FAKE_ERRORS_X86_H

#include "kernels/fake_errors.h"

void sq_fe_avx2(const unsigned char *px, size_t n, const sq_qparams *q,
                int count, double *sum);
void sq_fe_avx512(const unsigned char *px, size_t n, const sq_qparams *q,
                  int count, double *sum);

#define SQ_FE_X86(NAME, W, VF, VD, SET1, SET1D, ZEROD, LOADU, LOADD,      \
                  STORED, MUL, DIV, MAX, MIN, ROUND, LOWPD, HIGHPD, SUBD, MULD, \
                  ADDD)                                                        \
  void NAME(const unsigned char *px, size_t n, const sq_qparams *q, \
                        int count, double *sum) {                             \
    enum { STEPS = (SQ_FE_MAX + W - 1) / W };                                 \
    const int steps = (count + W - 1) / W;                                    \
    float scale[STEPS * W], inv[STEPS * W], lo[STEPS * W], hi[STEPS * W];     \
    for (int c = 0; c < steps * W; c++) {                                     \
      const sq_qparams *p = &q[c < count ? c : count - 1]; /* pad: repeat */  \
      scale[c] = p->scale;                                                    \
      inv[c] = p->inv;                                                        \
      lo[c] = p->lo;                                                          \
      hi[c] = p->hi;                                                          \
    }                                                                         \
    double acc[SQ_ERROR_LANES][STEPS * W];                                    \
    for (int l = 0; l < SQ_ERROR_LANES; l++)                                  \
      for (int c = 0; c < steps * W; c += W / 2) STORED(&acc[l][c], ZEROD);   \
    const int divide = q[0].divide;                                           \
    for (size_t i = 0; i < n; i++) {                                          \
      float v = sq_load_f32(px + 4 * i);                                      \
      VF vv = SET1(v);                                                        \
      VD vd = SET1D((double)v);                                               \
      double *a = acc[i % SQ_ERROR_LANES];                                    \
      for (int s = 0; s < steps * W; s += W) {                                \
        VF sc = LOADU(scale + s);                                             \
        VF y = divide ? DIV(vv, sc) : MUL(vv, LOADU(inv + s));                \
        y = MIN(MAX(y, LOADU(lo + s)), LOADU(hi + s));                        \
        VF back = MUL(ROUND(y), sc);                                          \
        VD e0 = SUBD(vd, LOWPD(back)), e1 = SUBD(vd, HIGHPD(back));           \
        STORED(a + s, ADDD(LOADD(a + s), MULD(e0, e0)));                      \
        STORED(a + s + W / 2, ADDD(LOADD(a + s + W / 2), MULD(e1, e1)));      \
      }                                                                       \
    }                                                                         \
    for (int c = 0; c < count; c++) {                                         \
      double lane[SQ_ERROR_LANES];                                            \
      for (int l = 0; l < SQ_ERROR_LANES; l++) lane[l] = acc[l][c];           \
      sum[c] = sq_lanes_total(lane);                                          \
    }                                                                         \
  }

#endif
