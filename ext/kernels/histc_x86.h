/*
** histc_x86.h: torch.histc binning, SQ_W lanes at a time (histc.c states
** the rules), the template of histc_x86_avx2.c and histc_x86_avx512.c
** (written in x86_width.h's words; no include guard: read once per width).
**
** Lane j of a vector is element i + j: rule 1's compares give a mask, rule
** 2's q is the same three IEEE operations as sq_histc_bin, min(q, bins - 1)
** truncated, and an element that does not count takes the extra entry
** `bins`; SQ_HISTC_COUNT spreads the lanes over the copies (rule 3).
*/
void SQ_FN(sq_histc)(const void *x, size_t n, float lo, float hi, size_t bins,
                     uint32_t *counts) {
  const unsigned char *p = x;
  const vfloat vlo = vf_set1(lo), vhi = vf_set1(hi);
  const vfloat fb = vf_set1((float)bins), w = vf_set1(hi - lo);
  const vfloat last = vf_set1((float)(bins - 1));
  const vint none = vi_set1((int32_t)bins);
  int32_t idx[SQ_W];
  SQ_HISTC_COPY_PTRS(c, counts, bins);
  size_t i = 0;
  for (; i + SQ_W <= n; i += SQ_W) {
    vfloat v = vf_load(p + 4 * i);
    vmask in = vm_and(vf_cmp(v, vlo, _CMP_GE_OQ), vf_cmp(v, vhi, _CMP_LE_OQ));
    vfloat q = vf_div(vf_mul(vf_sub(v, vlo), fb), w);
    vint b = vi_trunc(vf_min(q, last));
    vi_store(idx, vi_blend(none, b, in));
    SQ_HISTC_COUNT(c, idx, SQ_W);
  }
  sq_histc_tail(p, i, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}
