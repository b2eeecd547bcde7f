/*
** ggml_iq.h: what the iq3_xxs, iq3_s, iq4_nl and iq4_xs kernels share
** (docs/NUMERICS.md#ggml).
**
** The value tables are ggml's, read back from ggml's own dequantizer by
** tests/ggml/gen_iq_tables.py into ggml_iq_tables.c (generated; make
** test-ggml checks it is fresh).
**
** The iq3 quantizers search a lattice: each group of four weights takes one
** of the grid's entries, a 3-bit level per weight.  ggml builds, once per
** process, a map from every one of the 8^4 level combinations to its grid
** entry, and for each combination that is not on the grid the list of the
** grid entries nearest to it (all entries at the 2 smallest squared distances
** for iq3_xxs' 256-entry grid, the 3 smallest for iq3_s' 512).  This file's
** sq_iq3_lattice is that, built the same way (ggml_iq3.c) on first use by
** any thread, shared read-only after, freed when the library is unloaded.
*/
#ifndef SQ_GGML_IQ_H
#define SQ_GGML_IQ_H

#include <stdint.h>
#include "kernels/ggml_internal.h"

extern const unsigned char sq_iq3xxs_grid[256][4];
extern const unsigned char sq_iq3s_grid[512][4];
extern const unsigned char sq_iq3xxs_levels[8];
extern const unsigned char sq_iq3s_levels[8];
extern const signed char sq_iq4nl_values[16];

enum { SQ_IQ3_XXS_GRID = 0, SQ_IQ3_S_GRID = 1 };

typedef struct sq_iq3_lattice {
  int size;                   /* grid entries: 256 or 512 */
  /* Per level combination u (level of weight i in bits 3i..3i+2): its grid
  ** entry (>= 0), or -1 - o where neighbours[o] is the count of its nearest
  ** entries and neighbours[o + 1 ..] the entries, nearest first, ties by
  ** entry number. */
  int32_t map[4096];
  unsigned char level[512][4]; /* entry -> the 3-bit level of each weight */
  float pos[512][4];           /* entry -> 2 * level + 1, as ggml searches */
  /* The same lists' positions for a vector search: for u off the grid,
  ** soa + soa_at[u] holds ceil(count / 4) chunks of 16 floats, coordinate i
  ** of the chunk's candidates 4c..4c+3 at 4i..4i+3 (NaN past the list). */
  const float *soa;
  uint32_t soa_at[4096];
  uint16_t neighbours[];
} sq_iq3_lattice;

/* ggml's quantize_iq4_nl(x, .., NULL) (see ggml_iq4.c). */
void sq_ggml_quantize_iq4_nl_unweighted(const void *x, size_t n,
                                        const void *importance, void *blocks);

/* The AVX2 dequantizers (ggml_iq_x86_avx2.c), which the avx2 and avx512
** paths both run. */
void sq_ggml_dequantize_iq3_xxs_avx2(const void *blocks, size_t n, void *y);
void sq_ggml_dequantize_iq3_s_avx2(const void *blocks, size_t n, void *y);
void sq_ggml_dequantize_iq4_nl_avx2(const void *blocks, size_t n, void *y);
void sq_ggml_dequantize_iq4_xs_avx2(const void *blocks, size_t n, void *y);

/* The lattice of grid g (SQ_IQ3_*_GRID), built on the first call; NULL when
** the memory for it cannot be had (a later call tries again).  Any thread. */
const sq_iq3_lattice *sq_iq3_lattice_get(int g);

/* A block's fp16 d widened, a NaN made quiet (as x86's first arithmetic on
** it does; then every product carries it unchanged on every host). */
static inline float sq_iq_half(const unsigned char *p) {
  float d = sq_ggml_half(p);
  return d == d ? d : sq_bits_f32(sq_f32_bits(d) | 0x00400000u);
}

#endif
