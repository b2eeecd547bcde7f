/*
** fake_errors_x86.h: the avx2 and avx512 bodies of sq_fake_sq_errors
** (fake_errors.h), the template of fake_errors_x86_avx2.c and
** fake_errors_x86_avx512.c (written in x86_width.h's words; no include
** guard: read once per width).
**
**   1. The same steps as fake_errors.c's portable body, SQ_W parameter sets
**      per step: scale (multiply by inv, or divide), clamp by max/min (the
**      same value as compare-and-select; a zero's sign is lost in the
**      integer anyway), round half to even by the instruction's explicit
**      mode (SQ_RNE, never the FPU mode), times the scale, each half widened
**      to double, error squared and added to lane i % SQ_ERROR_LANES;
**   2. the lanes are totalled by sq_lanes_total, so the bits are the scalar
**      kernels'.
*/
void SQ_FN(sq_fe)(const unsigned char *px, size_t n, const sq_qparams *q,
                  int count, double *sum) {
  enum { STEPS = (SQ_FE_MAX + SQ_W - 1) / SQ_W };
  const int steps = (count + SQ_W - 1) / SQ_W;
  float scale[STEPS * SQ_W], inv[STEPS * SQ_W], lo[STEPS * SQ_W],
      hi[STEPS * SQ_W];
  for (int c = 0; c < steps * SQ_W; c++) {
    const sq_qparams *p = &q[c < count ? c : count - 1]; /* pad: repeat */
    scale[c] = p->scale;
    inv[c] = p->inv;
    lo[c] = p->lo;
    hi[c] = p->hi;
  }
  double acc[SQ_ERROR_LANES][STEPS * SQ_W];
  for (int l = 0; l < SQ_ERROR_LANES; l++)
    for (int c = 0; c < steps * SQ_W; c += SQ_W / 2) vd_store(&acc[l][c], vd_zero());
  const int divide = q[0].divide;
  for (size_t i = 0; i < n; i++) {
    float v = sq_load_f32(px + 4 * i);
    vfloat vv = vf_set1(v);
    vdouble vd = vd_set1((double)v);
    double *a = acc[i % SQ_ERROR_LANES];
    for (int s = 0; s < steps * SQ_W; s += SQ_W) {
      vfloat sc = vf_load(scale + s);
      vfloat y = divide ? vf_div(vv, sc) : vf_mul(vv, vf_load(inv + s));
      y = vf_min(vf_max(y, vf_load(lo + s)), vf_load(hi + s));
      vfloat back = vf_mul(vf_round(y), sc);
      vdouble e0 = vd_sub(vd, vd_of(vf_lo(back)));
      vdouble e1 = vd_sub(vd, vd_of(vf_hi(back)));
      vd_store(a + s, vd_add(vd_load(a + s), vd_mul(e0, e0)));
      vd_store(a + s + SQ_W / 2, vd_add(vd_load(a + s + SQ_W / 2), vd_mul(e1, e1)));
    }
  }
  for (int c = 0; c < count; c++) {
    double lane[SQ_ERROR_LANES];
    for (int l = 0; l < SQ_ERROR_LANES; l++) lane[l] = acc[l][c];
    sum[c] = sq_lanes_total(lane);
  }
}
