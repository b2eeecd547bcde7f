/*
** histc_internal.h: what every path's histc shares (histc.c, the rules):
** the per-element rule, the scalar tail, the merge of the sub-histograms.
*/
#ifndef SQ_HISTC_INTERNAL_H
#define SQ_HISTC_INTERNAL_H

#include "kernels/kernels_internal.h"

/* Adds copies 1.. into copy 0. */
static inline void sq_histc_merge(uint32_t *counts, size_t bins) {
  for (size_t c = 1; c < SQ_HISTC_COPIES; c++)
    for (size_t b = 0; b < bins; b++) counts[b] += counts[c * (bins + 1) + b];
}

/* Rule 2 for one element; `bins` when it does not count. */
static inline size_t sq_histc_bin(float v, float lo, float hi, float fb,
                                  float w, float last, size_t bins) {
  if (!(v >= lo && v <= hi)) return bins;
  float q = (v - lo) * fb / w;
  return (size_t)(int32_t)(q < last ? q : last);
}

/* Elements [from, n) one by one (the vector paths' tails). */
static inline void sq_histc_tail(const unsigned char *p, size_t from, size_t n,
                          float lo, float hi, size_t bins, uint32_t *counts) {
  const float fb = (float)bins, w = hi - lo, last = (float)(bins - 1);
  for (size_t i = from; i < n; i++)
    counts[(i % SQ_HISTC_COPIES) * (bins + 1) +
           sq_histc_bin(sq_load_f32(p + 4 * i), lo, hi, fb, w, last, bins)]++;
}

/* Counts the bins of one vector's lanes (a multiple of SQ_HISTC_COPIES,
** starting at an element index that is one too): lane j goes to copy
** j % SQ_HISTC_COPIES, whose counts start at c[j % SQ_HISTC_COPIES]. */
#define SQ_HISTC_COUNT(c, idx, lanes)                                         \
  for (size_t j = 0; j < (lanes); j += 4) {                                   \
    (c)[0][(uint32_t)(idx)[j]]++;                                             \
    (c)[1][(uint32_t)(idx)[j + 1]]++;                                         \
    (c)[2][(uint32_t)(idx)[j + 2]]++;                                         \
    (c)[3][(uint32_t)(idx)[j + 3]]++;                                         \
  }
/* The copies' first entries, for SQ_HISTC_COUNT. */
#define SQ_HISTC_COPY_PTRS(c, counts, bins)                                   \
  uint32_t *c[SQ_HISTC_COPIES];                                               \
  for (size_t k_ = 0; k_ < SQ_HISTC_COPIES; k_++) c[k_] = (counts) + k_ * ((bins) + 1)

#if SQ_HISTC_COPIES != 4
#error "SQ_HISTC_COUNT is written for 4 copies"
#endif

#endif
