/*
** common.c: what every vector path shares and no instruction set shapes.
**
** Plain C compiled for the baseline CPU: the vector files call these
** helpers at most once per row or per call, never per element, so they
** live once here instead of once per instruction set.
*/
#include "kernels/kernels_internal.h"

float sq_first_zero(const void *x, size_t n) {
  const unsigned char *p = x;
  for (size_t i = 0; i < n; i++) {
    float v = sq_load_f32(p + 4 * i);
    if (v == 0.0f) return v;
  }
  return 0.0f;
}

float sq_pick_extreme(const float *lanes, size_t nl, int is_max, const void *x,
                      size_t n) {
  float v = lanes[0];
  for (size_t k = 1; k < nl; k++)
    if (is_max ? lanes[k] > v : lanes[k] < v) v = lanes[k];
  if (v != 0.0f) return v;
  /* A zero extreme takes the sign of the first zero in the data.  Lanes
  ** that met both zeros may show either sign: x86 min/max keep a lane's
  ** first, ARM's FMIN prefers -0 and FMAX +0.  Under both rules a zero
  ** minimum is +0 when every zero lane shows +0, and a zero maximum -0 when
  ** every zero lane shows -0; in any other case the data decides. */
  uint32_t settled = is_max ? 0x80000000u : 0u;
  for (size_t k = 0; k < nl; k++) {
    uint32_t u;
    memcpy(&u, &lanes[k], 4);
    if (lanes[k] == 0.0f && (u & 0x80000000u) != settled)
      return sq_first_zero(x, n);
  }
  return is_max ? -0.0f : 0.0f;
}

sq_channel_params sq_sub_params(const sq_channel_params *p, size_t c, size_t k) {
  sq_channel_params s = *p;
  s.channels = k;
  if (s.scale) s.scale += c;
  if (s.inv) s.inv += c;
  if (s.lo) s.lo += c;
  if (s.hi) s.hi += c;
  if (s.zp) s.zp += c;
  if (s.add) s.add += c;
  return s;
}

int sq_widen(const sq_channel_params *p, size_t rows, size_t width, sq_wide *w) {
  size_t ch = p->channels, g = width;
  if (ch == 0 || ch % width == 0) return 0;
  while (ch % 2 == 0 && g > 1) {      /* g = width / gcd(channels, width) */
    ch /= 2;
    g /= 2;
  }
  ch = p->channels;
  if (ch * g > SQ_MAXL || rows < g) return 0;
  /* Every array the caller gave is repeated (the scalar kernels, which
  ** handle a NaN's vector, read them all); absent ones stay absent. */
  w->g = g;
  w->p = *p;
  w->p.channels = ch * g;
  if (p->scale) w->p.scale = w->scale;
  if (p->inv) w->p.inv = w->inv;
  if (p->lo) w->p.lo = w->lo;
  if (p->hi) w->p.hi = w->hi;
  if (p->zp) w->p.zp = w->zp;
  if (p->add) w->p.add = w->add;
  for (size_t j = 0; j < ch * g; j++) {
    size_t c = j % ch;
    if (p->scale) w->scale[j] = p->scale[c];
    if (p->inv) w->inv[j] = p->inv[c];
    if (p->lo) w->lo[j] = p->lo[c];
    if (p->hi) w->hi[j] = p->hi[c];
    if (p->zp) w->zp[j] = p->zp[c];
    if (p->add) w->add[j] = p->add[c];
  }
  return 1;
}

int sq_any_add(const sq_channel_params *p) {
  for (size_t c = 0; p->add && c < p->channels; c++)
    if (p->add[c] != 0.0f) return 1;
  return 0;
}
