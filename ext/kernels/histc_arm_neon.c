/*
** histc_arm_neon.c: torch.histc binning with NEON, 4 lanes (histc.c states
** the rules).
*/
#include "kernels/histc_internal.h"

#if defined(__aarch64__) && !defined(SQ_SCALAR_ONLY) && !SQ_BIG_ENDIAN
#include <arm_neon.h>
void sq_histc_neon(const void *x, size_t n, float lo, float hi, size_t bins,
                   uint32_t *counts) {
  const unsigned char *p = x;
  const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
  const float32x4_t fb = vdupq_n_f32((float)bins), w = vdupq_n_f32(hi - lo);
  const float32x4_t last = vdupq_n_f32((float)(bins - 1));
  const int32x4_t none = vdupq_n_s32((int32_t)bins);
  int32_t idx[4];
  SQ_HISTC_COPY_PTRS(c, counts, bins);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t v = vreinterpretq_f32_u8(vld1q_u8(p + 4 * i));
    uint32x4_t in = vandq_u32(vcgeq_f32(v, vlo), vcleq_f32(v, vhi));
    float32x4_t q = vdivq_f32(vmulq_f32(vsubq_f32(v, vlo), fb), w);
    /* vminq_f32 and a plain compare agree here: q is never NaN for an
    ** element that counts, and the others are replaced. */
    int32x4_t b = vcvtq_s32_f32(vminq_f32(q, last));
    vst1q_s32(idx, vbslq_s32(in, b, none));
    SQ_HISTC_COUNT(c, idx, 4);
  }
  sq_histc_tail(p, i, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}
#endif
