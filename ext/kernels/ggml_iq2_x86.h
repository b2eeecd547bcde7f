/*
** ggml_iq2_x86.h: the inner loops of the lattice searches of iq2_xxs,
** iq2_xs, iq2_s, iq1_s and iq1_m (sq_iq_ops, ggml_iq2.h) on one x86 width,
** and the five quantizers that run with them (no include guard: read once
** per width, after x86_width.h and the ISA file's helpers).
**
** The answers are the scalar loops' (ggml_iq_quantize.c) bit for bit:
**   1. nearest: one neighbour per lane.  The 24 values a weight's term can
**      take ((w * r) * r, r = lv[d] - x for the three digits d) are
**      computed once, with the scalar operations, and moved into four
**      lookup vectors (SQ_FN(iq_perm) picks a lane's term by the entry's
**      digit, kept 3 bits apart in the index's code3); each lane then adds
**      its eight terms from 0 in the scalar order, so its sum is the scalar
**      sum.  A lane keeps its first strictly smaller sum (the comparison
**      of the scalar scan, false for NaN), and the lanes' winners are
**      resolved to the least sum, the earliest position among equal ones:
**      the candidate the scalar scan keeps;
**   2. split32, split16: one split i2 per lane for a fixed i1, each score
**      formed with the scalar operations in the scalar order.  A vector of
**      candidates that the current best rejects everywhere is skipped (the
**      scalar scan would reject each of them too: no update happens before
**      the first it accepts); otherwise its candidates from the first the
**      vector accepts on are replayed in the scalar order with the scalar
**      test against the best as it is updated.  So every update is the
**      scalar scan's, whatever the rounding of best does.
** The ISA file defines, with its suffix: iq_wide (a 256-bit vector in
** every 256-bit half of a vfloat), iq_perm (lane l of the result: lane
** idx[l] & 7 of a table made by iq_wide), iq_lanes (0, 1, ..),
** iq_argmin (the least position among the lanes of the least value, or -1
** when that value is FLT_MAX).
*/

/* Entry points: SQ_FN(sq_ggml_quantize_iq2_xxs) and the other four. */

static int SQ_FN(iq_nearest)(const sq_iq_index *ix, const uint16_t *nb,
                             const float *x, const float *w, const float *lv) {
  const __m256 X = _mm256_loadu_ps(x), Wt = _mm256_loadu_ps(w);
  __m256 t[4];
  for (int d = 0; d < 3; d++) {
    __m256 r = _mm256_sub_ps(_mm256_set1_ps(lv[d]), X);
    t[d] = _mm256_mul_ps(_mm256_mul_ps(Wt, r), r);
  }
  t[3] = _mm256_setzero_ps();
  /* tab[k] holds the terms of weight k in lanes 0..2 (digit d in lane d)
  ** and those of weight k + 4 in lanes 4..6. */
  __m256 lo01 = _mm256_unpacklo_ps(t[0], t[1]), lo23 = _mm256_unpacklo_ps(t[2], t[3]);
  __m256 hi01 = _mm256_unpackhi_ps(t[0], t[1]), hi23 = _mm256_unpackhi_ps(t[2], t[3]);
  const vfloat tab0 = SQ_FN(iq_wide)(_mm256_shuffle_ps(lo01, lo23, 0x44));
  const vfloat tab1 = SQ_FN(iq_wide)(_mm256_shuffle_ps(lo01, lo23, 0xee));
  const vfloat tab2 = SQ_FN(iq_wide)(_mm256_shuffle_ps(hi01, hi23, 0x44));
  const vfloat tab3 = SQ_FN(iq_wide)(_mm256_shuffle_ps(hi01, hi23, 0xee));
  const int count = nb[0];
  const uint32_t *codes = ix->nb_code3 + (nb - ix->neighbours) + 1;
  const vint lanes = SQ_FN(iq_lanes)(), n = vi_set1(count);
  vfloat best = vf_set1(FLT_MAX);
  vint at = vi_set1(-1);
  for (int j = 0; j < count; j += SQ_W) {
    vint code = vi_load(codes + j);
    vfloat s = vf_zero();
    s = vf_add(s, SQ_FN(iq_perm)(tab0, code));
    s = vf_add(s, SQ_FN(iq_perm)(tab1, vi_srli(code, 3)));
    s = vf_add(s, SQ_FN(iq_perm)(tab2, vi_srli(code, 6)));
    s = vf_add(s, SQ_FN(iq_perm)(tab3, vi_srli(code, 9)));
    s = vf_add(s, SQ_FN(iq_perm)(tab0, vi_srli(code, 12)));
    s = vf_add(s, SQ_FN(iq_perm)(tab1, vi_srli(code, 15)));
    s = vf_add(s, SQ_FN(iq_perm)(tab2, vi_srli(code, 18)));
    s = vf_add(s, SQ_FN(iq_perm)(tab3, vi_srli(code, 21)));
    vint pos = vi_add(lanes, vi_set1(j));
    vmask lt = vm_and(vf_cmp(s, best, _CMP_LT_OQ), vi_cmpgt(n, pos));
    best = vf_blend(best, s, lt);
    at = vi_blend(at, pos, lt);
  }
  /* Lanes that took a sum hold it (below FLT_MAX, never NaN) and its
  ** position; the others FLT_MAX. */
  int g = SQ_FN(iq_argmin)(best, at);
  return nb[1 + (g < 0 ? 0 : g)];
}

/* iq2's rounding, eight values per 256-bit vector: the scalar operations
** (sq_ggml_nearest_int through the float mantissa, then the clamp as max
** and min); the code word packs the eight digits' bytes. */
static void SQ_FN(iq2_digits)(const float *x, int n8, int tries, const float *id,
                              int8_t (*Ls)[32], uint32_t (*words)[4]) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  const __m256 magic = _mm256_set1_ps(12582912.f);
  const __m256i mant = _mm256_set1_epi32(0x007fffff), bias = _mm256_set1_epi32(0x00400000);
  const __m256i two = _mm256_set1_epi32(2), zero = _mm256_setzero_si256();
  const __m256i low = _mm256_set1_epi32(0x0c080400);
  __m256 X[4];
  for (int k = 0; k < n8; k++) X[k] = _mm256_loadu_ps(x + 8 * k);
  for (int t = 0; t < tries; t++) {
    const __m256 vid = _mm256_set1_ps(id[t]);
    for (int k = 0; k < n8; k++) {
      __m256 v = _mm256_mul_ps(half, _mm256_sub_ps(_mm256_mul_ps(vid, X[k]), one));
      __m256i q = _mm256_sub_epi32(_mm256_and_si256(_mm256_castps_si256(_mm256_add_ps(v, magic)), mant), bias);
      q = _mm256_min_epi32(_mm256_max_epi32(q, zero), two);
      /* byte 0 of each lane: lanes 0..3 in the low 32 bits of each half */
      q = _mm256_shuffle_epi8(q, low);
      uint64_t u = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(q)) |
                   (uint64_t)(uint32_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(q, 1)) << 32;
      memcpy(Ls[t] + 8 * k, &u, 8);
      /* digit i (byte i, 0..2) to bits 2i: pairs, quads, then all eight */
      u = (u | u >> 6) & 0x000f000f000f000full;
      u = (u | u >> 12) & 0x000000ff000000ffull;
      words[t][k] = (uint32_t)((u | u >> 24) & 0xffffu);
    }
  }
}

/* The lanes of the first `valid` candidates as bits. */
static unsigned SQ_FN(iq_valid)(int valid) {
  return valid >= SQ_W ? (1u << SQ_W) - 1u : (1u << valid) - 1u;
}

static void SQ_FN(iq1_split32)(const sq_iq1_sums *s, sq_iq1_best *b) {
  const float *sumx = s->x, *sumw = s->w;
  const vfloat x32 = vf_set1(sumx[32]), w32 = vf_set1(sumw[32]), zero = vf_zero();
  vfloat xs[2][3];
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 3; k++) xs[m][k] = vf_set1(sq_iq1_shifted[m][k]);
  for (int i1 = 0; i1 <= 32; i1++) {
    const float a = sumx[i1] - sumx[0], wa = sumw[i1] - sumw[0];
    const vfloat A = vf_set1(a), WA = vf_set1(wa);
    const vfloat X1 = vf_set1(sumx[i1]), W1 = vf_set1(sumw[i1]);
    for (int i2 = i1; i2 <= 32; i2 += SQ_W) {
      vfloat sx = vf_load(sumx + i2), sw = vf_load(sumw + i2);
      vfloat B = vf_sub(sx, X1), C = vf_sub(x32, sx);
      vfloat WB = vf_sub(sw, W1), WC = vf_sub(w32, sw);
      vfloat qx[2], q2[2];
      unsigned hit = 0;
      const vfloat vb = vf_set1(b->best);
      for (int m = 0; m < 2; m++) {
        qx[m] = vf_add(vf_add(vf_mul(A, xs[m][0]), vf_mul(B, xs[m][1])), vf_mul(C, xs[m][2]));
        q2[m] = vf_add(vf_add(vf_mul(vf_mul(WA, xs[m][0]), xs[m][0]),
                              vf_mul(vf_mul(WB, xs[m][1]), xs[m][1])),
                       vf_mul(vf_mul(WC, xs[m][2]), xs[m][2]));
        vmask ok = vm_and(vf_cmp(q2[m], zero, _CMP_GT_OQ),
                          vf_cmp(vf_mul(qx[m], qx[m]), vf_mul(vb, q2[m]), _CMP_GT_OQ));
        hit |= vm_bits(ok);
      }
      const int valid = 33 - i2;
      hit &= SQ_FN(iq_valid)(valid);
      if (!hit) continue;
      float fx[2][SQ_W], f2[2][SQ_W];
      for (int m = 0; m < 2; m++) {
        vf_store(fx[m], qx[m]);
        vf_store(f2[m], q2[m]);
      }
      for (int l = __builtin_ctz(hit); l < SQ_W && l < valid; l++)
        for (int m = 0; m < 2; m++) {
          float sumqx = fx[m][l], sumq2 = f2[m][l];
          if (sumq2 > 0 && sumqx * sumqx > b->best * sumq2) {
            b->scale = sumqx / sumq2;
            b->best = b->scale * sumqx;
            b->b1 = i1;
            b->b2 = i2 + l;
            b->shift = m ? -1 : 1;
          }
        }
    }
  }
}

static void SQ_FN(iq1_split16)(const sq_iq1_sums *s, sq_iq1_best *b) {
  const vfloat zero = vf_zero();
  vfloat tx[2][2], d12[2];
  for (int m = 0; m < 2; m++) {
    d12[m] = vf_set1(s->d12[m]);
    for (int h = 0; h < 2; h++) tx[m][h] = vf_set1(s->tx[m][h]);
  }
  for (int i1 = 0; i1 <= 16; i1++) {
    vfloat a[2][2], h1[2];
    for (int h = 0; h < 2; h++) h1[h] = vf_set1(s->hx[h][i1]);
    for (int m = 0; m < 2; m++)
      for (int h = 0; h < 2; h++) a[m][h] = vf_set1(s->d01[m] * s->hw[h][i1] + s->tw[m][h]);
    for (int i2 = i1; i2 <= 16; i2 += SQ_W) {
      vfloat qx[2][2], q2[2][2], sqx[4], sq2[4];
      for (int h = 0; h < 2; h++) {
        vfloat hx = vf_load(s->hx[h] + i2), hw = vf_load(s->hw[h] + i2);
        for (int m = 0; m < 2; m++) {
          qx[m][h] = vf_sub(tx[m][h], vf_add(hx, h1[h]));
          q2[m][h] = vf_add(vf_mul(d12[m], hw), a[m][h]);
        }
      }
      unsigned hit = 0;
      const vfloat vb = vf_set1(b->best);
      for (int k = 0; k < 4; k++) {
        sqx[k] = vf_add(qx[k >> 1][0], qx[k & 1][1]);
        sq2[k] = vf_add(q2[k >> 1][0], q2[k & 1][1]);
        vmask ok = vm_and(vf_cmp(sq2[k], zero, _CMP_GT_OQ),
                          vf_cmp(vf_mul(sqx[k], sqx[k]), vf_mul(vb, sq2[k]), _CMP_GT_OQ));
        hit |= vm_bits(ok);
      }
      const int valid = 17 - i2;
      hit &= SQ_FN(iq_valid)(valid);
      if (!hit) continue;
      float fx[4][SQ_W], f2[4][SQ_W];
      for (int k = 0; k < 4; k++) {
        vf_store(fx[k], sqx[k]);
        vf_store(f2[k], sq2[k]);
      }
      for (int l = __builtin_ctz(hit); l < SQ_W && l < valid; l++)
        for (int k = 0; k < 4; k++) {
          float qxs = fx[k][l], q2s = f2[k][l];
          if (q2s > 0 && qxs * qxs > b->best * q2s) {
            b->scale = qxs / q2s;
            b->best = b->scale * qxs;
            b->b1 = i1;
            b->b2 = i2 + l;
            b->shift = k;
          }
        }
    }
  }
}

static const sq_iq_ops SQ_FN(iq_ops) = {SQ_FN(iq_nearest), SQ_FN(iq2_digits),
                                        SQ_FN(iq1_split32), SQ_FN(iq1_split16)};

#define SQ_IQ2_ENTRY(t, T)                                                     \
  void SQ_FN(sq_ggml_quantize_##t)(const void *x, size_t n,                   \
                                   const void *importance, void *blocks) {    \
    sq_iq_quantize_row(SQ_GGML_##T, &SQ_FN(iq_ops), x, n, importance, blocks); \
  }
SQ_IQ2_ENTRY(iq2_xxs, IQ2_XXS)
SQ_IQ2_ENTRY(iq2_xs, IQ2_XS)
SQ_IQ2_ENTRY(iq2_s, IQ2_S)
SQ_IQ2_ENTRY(iq1_s, IQ1_S)
SQ_IQ2_ENTRY(iq1_m, IQ1_M)
#undef SQ_IQ2_ENTRY
