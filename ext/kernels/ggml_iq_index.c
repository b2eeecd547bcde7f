/*
** ggml_iq_index.c: the search index of ggml's lattice grids (ggml_iq2.h,
** docs/NUMERICS.md#ggml).
**
** For a code word that is no grid entry, the quantizers try its neighbours:
** every entry at the nearest squared distance, and at the next nearest
** ones, up to `want` distinct distances (2 for iq2_xxs and iq2_xs, 1 for
** iq2_s, 3 for iq1_s and iq1_m), ordered by distance, then by entry
** number.  That is the list ggml's iq2xs_init_impl makes (it sorts all
** distances); the order matters, as a search keeps the first of equal
** candidates.  Distances are in odd coordinates (2 * digit + 1), so each
** of the eight terms is 0, 4 or 16 and a distance at most 128: the entries
** are bucketed by distance instead of sorted.  Only code words whose digits
** are 0..2 get lists: the searches clamp every digit to 0..2.
*/
#include <string.h>
#include "kernels/ggml.h"
#include "kernels/ggml_iq2.h"

static const struct {
  int ngrid, want;
  const uint16_t *codes;
} sq_iq_grids[SQ_IQ_NGRIDS] = {
  [SQ_IQ_GRID_2XXS] = {256, 2, sq_iq2xxs_codes},
  [SQ_IQ_GRID_2XS] = {512, 2, sq_iq2xs_codes},
  [SQ_IQ_GRID_2S] = {1024, 1, sq_iq2s_codes},
  [SQ_IQ_GRID_1S] = {2048, 3, sq_iq1s_codes},
};

int sq_iq_grid_of(int t) {
  switch (t) {
    case SQ_GGML_IQ2_XXS: return SQ_IQ_GRID_2XXS;
    case SQ_GGML_IQ2_XS: return SQ_IQ_GRID_2XS;
    case SQ_GGML_IQ2_S: return SQ_IQ_GRID_2S;
    case SQ_GGML_IQ1_S: return SQ_IQ_GRID_1S;
    default: return -1;
  }
}

/* A code word whose eight digits are all 0..2. */
static int sq_iq_word_ok(unsigned w) {
  for (int k = 0; k < 8; k++)
    if (((w >> (2 * k)) & 3u) == 3u) return 0;
  return 1;
}

/* The squared distances from word w to every entry, and the `want` smallest
** distinct ones in increasing order (fewer if the grid has fewer); returns
** how many. */
static int sq_iq_distances(const sq_iq_index *ix, int want, unsigned w,
                           uint8_t *d2, int *levels) {
  int8_t p[8];
  int seen[129];
  memset(seen, 0, sizeof seen);
  for (int k = 0; k < 8; k++) p[k] = (int8_t)(2 * ((w >> (2 * k)) & 3u) + 1);
  for (int j = 0; j < ix->ngrid; j++) {
    int s = 0;
    for (int k = 0; k < 8; k++) {
      int d = ix->pos[j][k] - p[k];
      s += d * d;
    }
    d2[j] = (uint8_t)s;
    seen[s] = 1;
  }
  int have = 0;
  for (int d = 0; d <= 128 && have < want; d++)
    if (seen[d]) levels[have++] = d;
  return have;
}

size_t sq_iq_index_build(sq_iq_grid g, sq_iq_index *ix) {
  const int n = sq_iq_grids[g].ngrid, want = sq_iq_grids[g].want;
  ix->ngrid = n;
  ix->neighbours = NULL;
  ix->nb_code3 = NULL;
  ix->nneighbours = 0;
  memset(ix->pos, 0, sizeof ix->pos);
  memset(ix->code3, 0, sizeof ix->code3);
  for (int j = 0; j < n; j++)
    for (int k = 0; k < 8; k++) {
      unsigned digit = (sq_iq_grids[g].codes[j] >> (2 * k)) & 3u;
      ix->pos[j][k] = (int8_t)(2 * digit + 1);
      ix->code3[j] |= (digit + (k >= 4 ? 4u : 0u)) << (3 * k);
    }
  for (unsigned w = 0; w < SQ_IQ_WORDS; w++) ix->map[w] = -1;
  for (int j = 0; j < n; j++) ix->map[sq_iq_grids[g].codes[j]] = j;
  /* Count: one slot for the length of each list, one per neighbour. */
  size_t total = 0;
  uint8_t d2[2048];
  for (unsigned w = 0; w < SQ_IQ_WORDS; w++) {
    if (ix->map[w] >= 0 || !sq_iq_word_ok(w)) continue;
    int levels[3];
    int nl = sq_iq_distances(ix, want, w, d2, levels);
    total++;
    for (int j = 0; j < n; j++) total += d2[j] <= levels[nl - 1];
  }
  return total;
}

void sq_iq_index_fill(sq_iq_grid g, sq_iq_index *ix, uint16_t *nb,
                      uint32_t *codes) {
  const int n = sq_iq_grids[g].ngrid, want = sq_iq_grids[g].want;
  uint8_t d2[2048];
  size_t at = 0;
  for (unsigned w = 0; w < SQ_IQ_WORDS; w++) {
    if (ix->map[w] >= 0) continue;
    if (!sq_iq_word_ok(w)) {
      ix->map[w] = 0;  /* never looked up */
      continue;
    }
    int levels[3];
    int nl = sq_iq_distances(ix, want, w, d2, levels);
    size_t start = at++;
    ix->map[w] = -(int32_t)start - 1;
    int count = 0;
    for (int l = 0; l < nl; l++)
      for (int j = 0; j < n; j++)
        if (d2[j] == levels[l]) {
          codes[at] = ix->code3[j];
          nb[at++] = (uint16_t)j;
          count++;
        }
    nb[start] = (uint16_t)count;
    codes[start] = 0;
  }
  ix->neighbours = nb;
  ix->nb_code3 = codes;
  ix->nneighbours = at;
}

/* ---- the indexes: built once, in place ---------------------------------------
** Static storage, so there is nothing to allocate (no failure) and nothing
** to free (it goes with the extension's mapping when it is unloaded).  The
** first thread to need grid g builds it; any other that arrives meanwhile
** waits for it (about 10 ms per grid, once per process).  The state moves
** 0 -> 1 (building) -> 2 (ready) with acquire/release ordering, so a
** reader that sees 2 sees every byte of the index. */

static sq_iq_index sq_iq_ix[SQ_IQ_NGRIDS];
static uint16_t sq_iq_nb_2xxs[SQ_IQ_NB_2XXS + SQ_IQ_NB_PAD],
    sq_iq_nb_2xs[SQ_IQ_NB_2XS + SQ_IQ_NB_PAD],
    sq_iq_nb_2s[SQ_IQ_NB_2S + SQ_IQ_NB_PAD], sq_iq_nb_1s[SQ_IQ_NB_1S + SQ_IQ_NB_PAD];
static uint32_t sq_iq_nc_2xxs[SQ_IQ_NB_2XXS + SQ_IQ_NB_PAD],
    sq_iq_nc_2xs[SQ_IQ_NB_2XS + SQ_IQ_NB_PAD],
    sq_iq_nc_2s[SQ_IQ_NB_2S + SQ_IQ_NB_PAD], sq_iq_nc_1s[SQ_IQ_NB_1S + SQ_IQ_NB_PAD];
static uint16_t *const sq_iq_nb[SQ_IQ_NGRIDS] = {sq_iq_nb_2xxs, sq_iq_nb_2xs,
                                                 sq_iq_nb_2s, sq_iq_nb_1s};
static uint32_t *const sq_iq_nc[SQ_IQ_NGRIDS] = {sq_iq_nc_2xxs, sq_iq_nc_2xs,
                                                 sq_iq_nc_2s, sq_iq_nc_1s};
static const size_t sq_iq_nb_size[SQ_IQ_NGRIDS] = {SQ_IQ_NB_2XXS, SQ_IQ_NB_2XS,
                                                   SQ_IQ_NB_2S, SQ_IQ_NB_1S};
static int sq_iq_state[SQ_IQ_NGRIDS];

const sq_iq_index *sq_iq_index_get(sq_iq_grid g) {
  if (__atomic_load_n(&sq_iq_state[g], __ATOMIC_ACQUIRE) == 2) return &sq_iq_ix[g];
  int expected = 0;
  if (!__atomic_compare_exchange_n(&sq_iq_state[g], &expected, 1, 0,
                                   __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
    while (__atomic_load_n(&sq_iq_state[g], __ATOMIC_ACQUIRE) != 2) {
    }
    return &sq_iq_ix[g];
  }
  size_t need = sq_iq_index_build(g, &sq_iq_ix[g]);
  /* The sizes are the grids' (tests/kernel_test.c checks them).  Only an
  ** edited grid could need more: then every word off the grid maps to
  ** entry 0 (wrong bytes, never an overrun). */
  if (need <= sq_iq_nb_size[g]) {
    sq_iq_index_fill(g, &sq_iq_ix[g], sq_iq_nb[g], sq_iq_nc[g]);
  } else {
    for (unsigned w = 0; w < SQ_IQ_WORDS; w++)
      if (sq_iq_ix[g].map[w] < 0) sq_iq_ix[g].map[w] = 0;
  }
  __atomic_store_n(&sq_iq_state[g], 2, __ATOMIC_RELEASE);
  return &sq_iq_ix[g];
}
