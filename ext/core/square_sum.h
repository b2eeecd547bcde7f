/*
** square_sum.h: exact sums of squares of float32 values, for
** q_importance_agg (docs/NUMERICS.md#ggml).
**
** A square of a float32 is exact in double (48 significant bits); this sum
** of such squares is exact too, in fixed point: 32-bit digits from 2^-352
** up, held in int64 bins that absorb 2^31 additions or removals between
** normalisations.  Adding and removing the same values leaves exactly what
** was there, so a window frame that slides gives what a fresh sum of the
** frame gives, bit for bit.
*/
#ifndef SQ_SQUARE_SUM_H
#define SQ_SQUARE_SUM_H

#include <stdint.h>

#define SQ_SQUARE_SUM_BINS 22

typedef struct sq_square_sum {
  int64_t bin[SQ_SQUARE_SUM_BINS];
} sq_square_sum;

/* Adds (sign > 0) or removes (sign < 0) v * v; v must be finite. */
void sq_square_sum_add(sq_square_sum *s, float v, int sign);
/* Carries every bin into 32-bit digits (the value is unchanged); call
** before 2^30 more additions or removals could reach a bin. */
void sq_square_sum_normalize(sq_square_sum *s);
/* The sum, normalised first, as a double: a function of the exact value
** alone, whatever additions and removals led to it.  A sum that went below
** zero (a removal of what was never added) reads as 0. */
double sq_square_sum_value(sq_square_sum *s);

#endif
