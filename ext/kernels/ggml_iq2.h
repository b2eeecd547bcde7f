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
  /* Entry i's digits for the vector lookups (ggml_iq2_x86.h): digit k at
  ** bits 3k..3k+2, plus 4 for k >= 4 (0 past the grid's entries). */
  uint32_t code3[2048];
  /* map[w] >= 0: code word w is grid entry map[w]; < 0: its neighbours are
  ** the list at neighbours[-map[w] - 1]: a count, then entry numbers. */
  int32_t map[SQ_IQ_WORDS];
  uint16_t *neighbours;
  /* code3 of each list slot's entry (0 in the count slots), beside it:
  ** what a vector path reads instead of gathering it. */
  uint32_t *nb_code3;
  size_t nneighbours;
} sq_iq_index;

/* The grid a ggml type searches, or -1 for a type without one. */
int sq_iq_grid_of(int ggml_type);

/* Step 1: fills everything but the neighbour lists into *ix and returns
** how many uint16_t those need.  Step 2: fills them into `neighbours`
** (that many), and their entries' code3 into `codes` (as many).  Pure
** computation; the caller owns every byte. */
size_t sq_iq_index_build(sq_iq_grid g, sq_iq_index *ix);
void sq_iq_index_fill(sq_iq_grid g, sq_iq_index *ix, uint16_t *neighbours,
                      uint32_t *codes);

/* The neighbour lists' sizes of the four grids: what sq_iq_index_build
** returns for each (tests/kernel_test.c checks it). */
#define SQ_IQ_NB_2XXS 119462
#define SQ_IQ_NB_2XS 187770
#define SQ_IQ_NB_2S 50253
#define SQ_IQ_NB_1S 332234

/* The neighbour lists are stored with SQ_IQ_NB_PAD slots after the last,
** so that a vector path may load a whole vector of entry numbers from any
** list (it ignores the lanes past the list's count). */
#define SQ_IQ_NB_PAD 16

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

/* ---- the searches' inner loops, per kernel path ------------------------------
** The scalar functions (ggml_iq_quantize.c) are the reference; a vector
** path's (ggml_iq2_x86.h) return the same answers bit for bit: each sum
** is formed with the same float operations in the same order, and every
** comparison resolves as the scalar scan's (the first of equal values). */

/* iq1's three levels -1, 0, 1 shifted by +1/8 (row 0) and by -1/8. */
extern const float sq_iq1_shifted[2][3];

/* The iq1 split searches' state: the best score so far, its scale, and
** the split (the shift or shift pattern in `shift`); sequential updates
** start from what the caller set. */
typedef struct sq_iq1_best {
  float best, scale;
  int b1, b2, shift;
} sq_iq1_best;

/* The prefix sums an iq1 split search scores from, padded so that a
** vector path may load a whole vector at any split (SQ_IQ1_PAD floats
** past the last). */
#define SQ_IQ1_PAD 16
typedef struct sq_iq1_sums {
  /* iq1_s: x[j], w[j] the sums of w * x and of w over the first j sorted
  ** weights (j = 0..32). */
  float x[33 + SQ_IQ1_PAD], w[33 + SQ_IQ1_PAD];
  /* iq1_m: the same per half h of the group (hx[h][j], hw[h][j], j =
  ** 0..16), and per shift sign m and half what its scoring adds
  ** (ggml_iq_quantize.c: iq1_m_block). */
  float hx[2][17 + SQ_IQ1_PAD], hw[2][17 + SQ_IQ1_PAD];
  float d01[2], d12[2], tx[2][2], tw[2][2];
} sq_iq1_sums;

typedef struct sq_iq_ops {
  /* The entry of neighbour list nb (a count >= 1, then entry numbers) of
  ** least weighted squared error to the eight values x: for entry e of
  ** digits d_0..d_7, the sum over k = 0..7, in that order from 0, of
  ** (w[k] * r) * r with r = lv[d_k] - x[k]; the first of equal sums;
  ** nb[1] when no sum is below FLT_MAX. */
  int (*nearest)(const sq_iq_index *ix, const uint16_t *nb, const float *x,
                 const float *w, const float *lv);
  /* iq2's rounding: for each of `tries` (<= 19) inverse scales id[t],
  ** the digits clamp(nearest_int(0.5 * (id[t] * x[i] - 1)), 0, 2) of the
  ** 8 * n8 values (n8 <= 4) into Ls[t], and the code word of each eight k
  ** (digit i at bits 2i) into words[t][k]. */
  void (*digits)(const float *x, int n8, int tries, const float *id,
                 int8_t (*Ls)[32], uint32_t (*words)[4]);
  /* iq1_s's search over every split i1 <= i2 of the 32 sorted weights and
  ** both shifts; iq1_m's over the 16 sorted weights and the four shift
  ** patterns (ggml_iq_quantize.c has the order and the scoring). */
  void (*split32)(const sq_iq1_sums *s, sq_iq1_best *b);
  void (*split16)(const sq_iq1_sums *s, sq_iq1_best *b);
} sq_iq_ops;

extern const sq_iq_ops sq_iq_ops_scalar;

/* A row of n / 256 super-blocks of type t (one of the five) with the inner
** loops of `ops`: what sq_ggml_quantize_<t> computes. */
void sq_iq_quantize_row(int t, const sq_iq_ops *ops, const void *x, size_t n,
                        const void *importance, void *blocks);

/* The vector paths' entry points (ggml_iq2_x86_avx2.c, ggml_iq2_x86_avx512.c). */
#define SQ_IQ2_DECLARE(path)                                                   \
  void sq_ggml_quantize_iq2_xxs_##path(const void *x, size_t n,                \
                                       const void *importance, void *blocks);  \
  void sq_ggml_quantize_iq2_xs_##path(const void *x, size_t n,                 \
                                      const void *importance, void *blocks);   \
  void sq_ggml_quantize_iq2_s_##path(const void *x, size_t n,                  \
                                     const void *importance, void *blocks);    \
  void sq_ggml_quantize_iq1_s_##path(const void *x, size_t n,                  \
                                     const void *importance, void *blocks);    \
  void sq_ggml_quantize_iq1_m_##path(const void *x, size_t n,                  \
                                     const void *importance, void *blocks);
SQ_IQ2_DECLARE(avx2)
SQ_IQ2_DECLARE(avx512)
#undef SQ_IQ2_DECLARE

#endif
