/*
** histc.c: torch.histc's binning on every path (kernels.h, histc), the one
** pass over the data that method=histogram makes
** (docs/NUMERICS.md#calibration).
**
**   1. an element x counts when lo <= x <= hi (float32 compares);
**   2. its bin is q = ((x - lo) * (float)bins) / (hi - lo), each operation
**      rounded to float32 (no FMA: there is no add after the multiply, and
**      the division follows it), then min(q, bins - 1) truncated toward
**      zero: torch's LINEAR_INTERPOLATION rule, where q == bins (x == hi)
**      goes to the last bin.  q > bins cannot happen for a finite width;
**      the min also keeps a value the caller did not guard inside the
**      counts;
**   3. element i goes to sub-histogram i % SQ_HISTC_COPIES (entries
**      [c * (bins + 1), c * (bins + 1) + bins]); uncounted elements go to
**      each copy's extra entry `bins`, so vector paths never branch; the
**      copies are added into the first at the end;
**   4. every path computes q with the same IEEE operations in the same
**      order, so the counts are identical (tests/kernel_test.c compares
**      them).  The vector paths live in histc_x86.h (one body, read by
**      histc_x86_avx2.c and histc_x86_avx512.c) and histc_arm_neon.c (only
**      the per-ISA files may hold vector code).
*/
#include "kernels/histc_internal.h"

void sq_histc_scalar(const void *x, size_t n, float lo, float hi, size_t bins,
                     uint32_t *counts) {
  sq_histc_tail(x, 0, n, lo, hi, bins, counts);
  sq_histc_merge(counts, bins);
}
