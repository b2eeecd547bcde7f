/*
** ggml_iq_x86.h: the dequantizers of the lattice types iq2_xxs, iq2_xs,
** iq2_s, iq1_s and iq1_m on x86, the template of ggml_iq_x86_avx2.c (8
** lanes) and ggml_iq_x86_avx512.c (16), in x86_width.h's words (no include
** guard: read once per width).  They write exactly the bytes of the scalar
** kernels (ggml_iq_dequantize.c, docs/NUMERICS.md#ggml):
**   1. a block whose fp16 d is not finite goes to the scalar routine, which
**      spells out x86's NaN rules; in every other block no step makes a
**      NaN, an infinity or a subnormal, so IEEE arithmetic fixes each bit;
**   2. the (sub-)block scales are the scalar code's float expressions, one
**      per scale, then broadcast; each weight is one vector multiply in the
**      scalar order: db * (float)g for iq2 (g the grid byte, converted
**      exactly), its sign bit flipped for a minus sign, as the scalar kernel
**      flips it; dl * ((float)g + delta) for iq1;
**   3. a vector is SQ_W / 8 grid entries of eight weights: each entry is
**      one 64-bit load from the grids of ggml_iq_grids.c, widened.  The
**      entries of one vector always share their scale (iq2_xs, iq2_s and
**      iq1_m have one per 16 weights); iq1_m's delta is per entry;
**   4. an output larger than SQ_IQ_STREAM bytes goes out by streaming
**      stores, which do not first read each line into the cache (the plain
**      stores' traffic, a third more than the writes).  They need aligned
**      addresses, and an output can start anywhere: each block is computed
**      into a staging buffer in L1 that starts with the previous block's
**      last bytes, and copied out in aligned vectors from the offset s
**      that puts them on the output's alignment (iq_stream); the row's
**      first s bytes and its last (4 SQ_W - s) are plain copies.
** Each ISA file supplies, before this header:
**   grid_u8_P(g0, g1)   the bytes of the grid entries at g0 (lanes 0..7)
**                       and g1 (lanes 8..15; unused by AVX2), widened
**                       without sign; grid_i8_P the same with sign;
**   flip_P(v, s)        v with the sign of lane j flipped where bit j of s
**                       is set;
**   pair_P(a, b)        a in lanes 0..7, b in lanes 8..15 (AVX2: a);
**   stream_P(p, v)      a streaming store of v at p (aligned to 4 SQ_W).
*/
#define SQ_IQ_G (SQ_W / 8) /* grid entries per vector */

/* The output is streamed past the cache beyond this many bytes (more than
** a core's share of a last-level cache). */
#define SQ_IQ_STREAM ((size_t)4 << 20)
#define SQ_IQ_V (4 * SQ_W) /* bytes per vector */

/* A finite fp16 widened (F16C: exact, as the scalar sq_ggml_half). */
SQ_AI float SQ_FN(iq_half)(unsigned bits) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128((int)bits)));
}

/* iq2's scale (d * (0.5 + s)) * 0.25, as the scalar kernel's iq2_db. */
SQ_AI float SQ_FN(iq2_db)(float d, unsigned s) { return d * (0.5f + (float)s) * 0.25f; }

/* The 8-bit sign mask of iq2_xxs' and iq2_xs' 7-bit pattern s: bit 7 makes
** the count of minus signs even. */
SQ_AI unsigned SQ_FN(iq_ksigns)(unsigned s) {
  return s | ((unsigned)__builtin_parity(s) << 7);
}

/* W weights of iq2: the entries, times db, with the signs s. */
#define SQ_IQ2_VEC(g0, g1, db, s) SQ_FN(flip)(vf_mul(db, vi_to_f(SQ_FN(grid_u8)(g0, g1))), s)

SQ_AI void SQ_FN(iq2_xxs_block)(sq_cb b, sq_b y) {
  float d = SQ_FN(iq_half)(sq_load_u16(b));
  SQ_UNROLL(8)
  for (int ib = 0; ib < 8; ib++) {
    sq_cb q = b + 2 + 8 * ib;
    uint32_t a = sq_load_u32(q + 4);
    vfloat db = vf_set1(SQ_FN(iq2_db)(d, a >> 28));
    SQ_UNROLL(4)
    for (int k = 0; k < 32 / SQ_W; k++) {
      int l = SQ_IQ_G * k, m = l + SQ_IQ_G - 1;
      unsigned s = SQ_FN(iq_ksigns)((a >> (7 * l)) & 127u) |
                   SQ_FN(iq_ksigns)((a >> (7 * m)) & 127u) << 8;
      vf_store(y + 4 * (32 * ib + SQ_W * k),
                SQ_IQ2_VEC(sq_iq2xxs_grid[q[l]], sq_iq2xxs_grid[q[m]], db, s));
    }
  }
}

SQ_AI void SQ_FN(iq2_xs_block)(sq_cb b, sq_b y) {
  float d = SQ_FN(iq_half)(sq_load_u16(b));
  SQ_UNROLL(8)
  for (int ib = 0; ib < 8; ib++) {
    unsigned sc = b[66 + ib];
    vfloat db[2] = {vf_set1(SQ_FN(iq2_db)(d, sc & 0xfu)),
                    vf_set1(SQ_FN(iq2_db)(d, sc >> 4))};
    SQ_UNROLL(4)
    for (int k = 0; k < 32 / SQ_W; k++) {
      int l = SQ_IQ_G * k, m = l + SQ_IQ_G - 1;
      unsigned vl = sq_load_u16(b + 2 + 2 * (4 * ib + l));
      unsigned vm = sq_load_u16(b + 2 + 2 * (4 * ib + m));
      unsigned s = SQ_FN(iq_ksigns)(vl >> 9) | SQ_FN(iq_ksigns)(vm >> 9) << 8;
      vf_store(y + 4 * (32 * ib + SQ_W * k),
                SQ_IQ2_VEC(sq_iq2xs_grid[vl & 511u], sq_iq2xs_grid[vm & 511u],
                           db[l / 2], s));
    }
  }
}

SQ_AI void SQ_FN(iq2_s_block)(sq_cb b, sq_b y) {
  float d = SQ_FN(iq_half)(sq_load_u16(b));
  sq_cb qs = b + 2, signs = b + 34, qh = b + 66, scales = b + 74;
  SQ_UNROLL(8)
  for (int ib = 0; ib < 8; ib++) {
    vfloat db[2] = {vf_set1(SQ_FN(iq2_db)(d, scales[ib] & 0xfu)),
                    vf_set1(SQ_FN(iq2_db)(d, (unsigned)scales[ib] >> 4))};
    unsigned h = qh[ib];
    SQ_UNROLL(4)
    for (int k = 0; k < 32 / SQ_W; k++) {
      int l = SQ_IQ_G * k, m = l + SQ_IQ_G - 1;
      unsigned gl = qs[4 * ib + l] | ((h << (8 - 2 * l)) & 0x300u);
      unsigned gm = qs[4 * ib + m] | ((h << (8 - 2 * m)) & 0x300u);
      unsigned s = signs[4 * ib + l] | (unsigned)signs[4 * ib + m] << 8;
      vf_store(y + 4 * (32 * ib + SQ_W * k),
                SQ_IQ2_VEC(sq_iq2s_grid[gl], sq_iq2s_grid[gm], db[l / 2], s));
    }
  }
}

/* iq1's delta: -0.125f when bit 31 of h is set, else 0.125f, made without
** a branch (the signs are random: a branch would miss half the time). */
SQ_AI float SQ_FN(iq1_delta)(uint32_t h) {
  return sq_bits_f32(0x3e000000u | (h & 0x80000000u));
}

/* W weights of iq1: dl * ((float)g + delta). */
#define SQ_IQ1_VEC(g0, g1, dl, delta)                                          \
  vf_mul(dl, vf_add(vi_to_f(SQ_FN(grid_i8)(g0, g1)), delta))

SQ_AI void SQ_FN(iq1_s_block)(sq_cb b, sq_b y) {
  float d = SQ_FN(iq_half)(sq_load_u16(b));
  SQ_UNROLL(8)
  for (int ib = 0; ib < 8; ib++) {
    unsigned qh = sq_load_u16(b + 34 + 2 * ib);
    vfloat dl = vf_set1(d * (float)(2 * ((qh >> 12) & 7u) + 1));
    vfloat delta = vf_set1(SQ_FN(iq1_delta)(qh << 16));
    SQ_UNROLL(4)
    for (int k = 0; k < 32 / SQ_W; k++) {
      int l = SQ_IQ_G * k, m = l + SQ_IQ_G - 1;
      unsigned gl = b[2 + 4 * ib + l] | (((qh >> (3 * l)) & 7u) << 8);
      unsigned gm = b[2 + 4 * ib + m] | (((qh >> (3 * m)) & 7u) << 8);
      vf_store(y + 4 * (32 * ib + SQ_W * k),
                SQ_IQ1_VEC(sq_iq1s_grid[gl], sq_iq1s_grid[gm], dl, delta));
    }
  }
}

SQ_AI void SQ_FN(iq1_m_block)(sq_cb b, sq_b y) {
  float d = SQ_FN(iq_half)(sq_iq1_m_d_bits(b));
  sq_cb qs = b, qh = b + 32;
  SQ_UNROLL(8)
  for (int ib = 0; ib < 8; ib++) {
    unsigned sc = sq_load_u16(b + 48 + 2 * (ib / 2));
    unsigned sh = 6u * (unsigned)(ib % 2);
    vfloat dl[2] = {vf_set1(d * (float)(2 * ((sc >> sh) & 7u) + 1)),
                    vf_set1(d * (float)(2 * ((sc >> (sh + 3)) & 7u) + 1))};
    /* entry l's top index bits and delta sign sit in nibble l of the two
    ** bytes qh[2ib], qh[2ib + 1] */
    unsigned h = qh[2 * ib] | (unsigned)qh[2 * ib + 1] << 8;
    SQ_UNROLL(4)
    for (int k = 0; k < 32 / SQ_W; k++) {
      int l = SQ_IQ_G * k, m = l + SQ_IQ_G - 1;
      unsigned hl = h >> (4 * l), hm = h >> (4 * m);
      unsigned gl = qs[4 * ib + l] | ((hl & 7u) << 8);
      unsigned gm = qs[4 * ib + m] | ((hm & 7u) << 8);
      vfloat delta = SQ_FN(pair)(SQ_FN(iq1_delta)(hl << 28), SQ_FN(iq1_delta)(hm << 28));
      vf_store(y + 4 * (32 * ib + SQ_W * k),
                SQ_IQ1_VEC(sq_iq1s_grid[gl], sq_iq1s_grid[gm], dl[l / 2], delta));
    }
  }
}

/* Block i's 1024 bytes, at stage + SQ_IQ_V, to their place o; stage's
** first SQ_IQ_V bytes end with the previous block's last SQ_IQ_V - s, where
** o + s is aligned.  The vectors from stage + s go to o + s - SQ_IQ_V + ...,
** every one aligned (the first, which begins in the previous block, is
** skipped for the row's first block); the last SQ_IQ_V - s bytes are kept
** for the next. */
SQ_AI void SQ_FN(iq_stream)(unsigned char *stage, size_t s, sq_b o, int first) {
  SQ_UNROLL(32)
  for (int j = first; j < 1024 / SQ_IQ_V; j++)
    SQ_FN(stream)(o + s - SQ_IQ_V + SQ_IQ_V * j, vf_load(stage + s + SQ_IQ_V * j));
  __builtin_memcpy(stage + s, stage + s + 1024, SQ_IQ_V - s);
}

/* The row: each block by its body when its d is finite, else by the scalar
** routine; a large output through the staging buffer and streaming stores
** (the fence orders them before whatever the caller does next). */
#define SQ_IQ_DQ(T, BYTES, FINITE)                                             \
  void SQ_FN(sq_ggml_dequantize_##T)(const void *blocks, size_t n, void *y) {  \
    sq_cb b = blocks;                                                          \
    sq_b o = y;                                                                \
    size_t nb = n / 256;                                                       \
    if (4 * n <= SQ_IQ_STREAM) {                                               \
      for (size_t i = 0; i < nb; i++, b += BYTES, o += 4 * 256) {              \
        if (FINITE) SQ_FN(T##_block)(b, o);                                    \
        else sq_ggml_dequantize_##T(b, 256, o);                                \
      }                                                                        \
      return;                                                                  \
    }                                                                          \
    _Alignas(64) unsigned char stage[SQ_IQ_V + 1024];                          \
    size_t s = (size_t)(-(uintptr_t)o & (SQ_IQ_V - 1));                        \
    for (size_t i = 0; i < nb; i++, b += BYTES, o += 4 * 256) {                \
      if (FINITE) SQ_FN(T##_block)(b, stage + SQ_IQ_V);                        \
      else sq_ggml_dequantize_##T(b, 256, stage + SQ_IQ_V);                    \
      if (i == 0) __builtin_memcpy(o, stage + SQ_IQ_V, s);                     \
      SQ_FN(iq_stream)(stage, s, o, i == 0);                                   \
    }                                                                          \
    __builtin_memcpy(o - (SQ_IQ_V - s), stage + s, SQ_IQ_V - s);               \
    _mm_sfence();                                                              \
  }
SQ_IQ_DQ(iq2_xxs, 66, sq_ggml_half_finite(b))
SQ_IQ_DQ(iq2_xs, 74, sq_ggml_half_finite(b))
SQ_IQ_DQ(iq2_s, 82, sq_ggml_half_finite(b))
SQ_IQ_DQ(iq1_s, 50, sq_ggml_half_finite(b))
SQ_IQ_DQ(iq1_m, 56, sq_iq1_m_d_finite(b))
#undef SQ_IQ_DQ
#undef SQ_IQ1_VEC
#undef SQ_IQ2_VEC
#undef SQ_IQ_V
#undef SQ_IQ_STREAM
#undef SQ_IQ_G
