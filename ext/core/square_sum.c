/*
** square_sum.c: exact sums of squares (see square_sum.h).
*/
#include <math.h>
#include <string.h>
#include "core/square_sum.h"
#include "kernels/byteorder.h"

/* v * v = m * 2^e, e >= -350 for the smallest float32; bin k holds digit
** k of the sum in units of 2^(32k - SQ_SHIFT). */
#define SQ_SHIFT 352

void sq_square_sum_add(sq_square_sum *s, float v, int sign) {
  double sq = (double)v * (double)v;     /* exact: 48 significant bits */
  uint64_t u;
  memcpy(&u, &sq, sizeof u);
  int ef = (int)((u >> 52) & 0x7ff);
  if (ef == 0) return;                   /* v == 0: squares of float32 are
                                         ** never subnormal doubles */
  uint64_t m = (u & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
  int e = ef - 1075 + SQ_SHIFT;          /* >= 2 */
  int k = e / 32, r = e % 32;
  /* m << r spans at most 85 bits: three 32-bit chunks. */
  uint64_t c0, c1, c2;
  if (r == 0) {
    c0 = m & 0xffffffffu;
    c1 = m >> 32;
    c2 = 0;
  } else {
    c0 = (m << r) & 0xffffffffu;
    c1 = (m >> (32 - r)) & 0xffffffffu;
    c2 = m >> (64 - r);
  }
  int64_t d = sign > 0 ? 1 : -1;
  s->bin[k] += d * (int64_t)c0;
  s->bin[k + 1] += d * (int64_t)c1;
  s->bin[k + 2] += d * (int64_t)c2;
}

void sq_square_sum_normalize(sq_square_sum *s) {
  for (int k = 0; k + 1 < SQ_SQUARE_SUM_BINS; k++) {
    int64_t low = (int64_t)((uint64_t)s->bin[k] & 0xffffffffu);
    int64_t carry = (s->bin[k] - low) / ((int64_t)1 << 32);  /* exact */
    s->bin[k] = low;
    s->bin[k + 1] += carry;
  }
}

double sq_square_sum_value(sq_square_sum *s) {
  sq_square_sum_normalize(s);
  if (s->bin[SQ_SQUARE_SUM_BINS - 1] < 0) return 0.0;
  double d = 0.0;
  for (int k = SQ_SQUARE_SUM_BINS - 1; k >= 0; k--)
    d = d * 4294967296.0 + (double)s->bin[k];
  return ldexp(d, -SQ_SHIFT);
}
