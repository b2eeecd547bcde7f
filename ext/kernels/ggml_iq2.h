/*
** ggml_iq2.h: the lattice types iq2_xxs, iq2_xs, iq2_s, iq1_s and iq1_m
** (docs/NUMERICS.md#ggml): their grids and the search index the quantizers
** read.  No SQLite, no allocation.
**
** Each group of eight weights is one entry of a grid of 8-vectors whose
** values take three levels (ggml_iq_grids.c, generated from ggml's library
** by tools/gen_iq_grids.py).  The quantizers round a group to a code word
** (two bits per weight, first weight lowest: base-4 digits 0..2) and need,
** for every code word, either the grid entry it is or the entries nearest
** to it: that is the index, built once per grid and process on first use
** (sq_iq_index_get), in static storage.
*/
#ifndef SQ_GGML_IQ2_H
#define SQ_GGML_IQ2_H

#include <stddef.h>
#include <stdint.h>
#include "kernels/byteorder.h"

/* The grids, as ggml's dequantizers read them (ggml_iq_grids.c). */
extern const uint8_t sq_iq2xxs_levels[3], sq_iq2xs_levels[3], sq_iq2s_levels[3];
extern const int8_t sq_iq1s_levels[3];
extern const uint8_t sq_iq2xxs_grid[256][8], sq_iq2xs_grid[512][8],
    sq_iq2s_grid[1024][8];
extern const int8_t sq_iq1s_grid[2048][8];
extern const uint16_t sq_iq2xxs_codes[256], sq_iq2xs_codes[512],
    sq_iq2s_codes[1024], sq_iq1s_codes[2048];

/* The four grids with an index (iq1_m searches iq1_s's). */
typedef enum sq_iq_grid {
  SQ_IQ_GRID_2XXS, SQ_IQ_GRID_2XS, SQ_IQ_GRID_2S, SQ_IQ_GRID_1S,
  SQ_IQ_NGRIDS
} sq_iq_grid;

/* Code words are < 4^8; those with a digit 3 are never looked up. */
#define SQ_IQ_WORDS 43691

typedef struct sq_iq_index {
  int ngrid;
  /* Entry i's odd coordinates 2 * digit + 1 (1, 3, 5), as the searches
  ** measure distances. */
  int8_t pos[2048][8];
  /* map[w] >= 0: code word w is grid entry map[w]; < 0: its neighbours are
  ** the list at neighbours[-map[w] - 1]: a count, then entry numbers. */
  int32_t map[SQ_IQ_WORDS];
  uint16_t *neighbours;
  size_t nneighbours;
} sq_iq_index;

/* The grid a ggml type searches, or -1 for a type without one. */
int sq_iq_grid_of(int ggml_type);

/* Step 1: fills everything but the neighbour lists into *ix and returns
** how many uint16_t those need.  Step 2: fills them into `neighbours`
** (that many).  Pure computation; the caller owns every byte. */
size_t sq_iq_index_build(sq_iq_grid g, sq_iq_index *ix);
void sq_iq_index_fill(sq_iq_grid g, sq_iq_index *ix, uint16_t *neighbours);

/* The neighbour lists' sizes of the four grids: what sq_iq_index_build
** returns for each (tests/kernel_test.c checks it). */
#define SQ_IQ_NB_2XXS 119462
#define SQ_IQ_NB_2XS 187770
#define SQ_IQ_NB_2S 50253
#define SQ_IQ_NB_1S 332234

/* The index of grid g, built on the first call (from any thread: the
** others wait for it), in static storage: it cannot fail and needs no
** freeing. */
const sq_iq_index *sq_iq_index_get(sq_iq_grid g);

/* iq1_m's fp16 d, from the top nibbles of its four scale words (bytes
** 48..55), and whether it is finite (the dequantizers' fast case). */
static inline uint16_t sq_iq1_m_d_bits(const unsigned char *b) {
  const unsigned char *s = b + 48;
  return (uint16_t)((sq_load_u16(s) >> 12) | ((sq_load_u16(s + 2) >> 8) & 0x00f0u) |
                    ((sq_load_u16(s + 4) >> 4) & 0x0f00u) |
                    (sq_load_u16(s + 6) & 0xf000u));
}
static inline int sq_iq1_m_d_finite(const unsigned char *b) {
  return (sq_iq1_m_d_bits(b) & 0x7c00u) != 0x7c00u;
}

/* The AVX2 and AVX-512 dequantizers of the five types (ggml_iq_x86.h). */
#define SQ_IQ2_DQ_DECLARE(P)                                                   \
  void sq_ggml_dequantize_iq2_xxs_##P(const void *blocks, size_t n, void *y);  \
  void sq_ggml_dequantize_iq2_xs_##P(const void *blocks, size_t n, void *y);   \
  void sq_ggml_dequantize_iq2_s_##P(const void *blocks, size_t n, void *y);    \
  void sq_ggml_dequantize_iq1_s_##P(const void *blocks, size_t n, void *y);    \
  void sq_ggml_dequantize_iq1_m_##P(const void *blocks, size_t n, void *y);
SQ_IQ2_DQ_DECLARE(avx2)
SQ_IQ2_DQ_DECLARE(avx512)
#undef SQ_IQ2_DQ_DECLARE

#endif
