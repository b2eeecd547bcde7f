/*
** ggml_x86.h: what the x86 paths' ggml block-format kernels share, the
** template of ggml_x86_avx2.c (8 lanes) and ggml_x86_avx512.c (16), written
** in x86_width.h's words (no include guard: read once per width).  Every
** function writes exactly the bytes the scalar kernels write
** (ggml_dequantize.c, ggml_quantize_legacy.c), for every input:
**   1. dequantize, every type: a block whose fp16 fields are not all
**      finite goes to the scalar routine (which writes x86's NaN bits); in
**      every other block no step gives a NaN, an infinity or a subnormal, so
**      IEEE arithmetic fixes each bit and a block body computes each weight
**      with ggml's operations in ggml's order.  q8_0's and q6_K's bodies are
**      here: codes unpacked as integers, converted exactly and multiplied in
**      ggml's order (q6_K: d * sc first, computed once per block, then * q);
**      fp16 fields are widened by F16C (exact for finite values).  The other
**      types' bodies differ by width (integer unpacking on AVX2, table
**      lookups on AVX-512) and live in the ISA files;
**   2. quantize, q4_0 q4_1 q5_0 q5_1 without importance and q8_0 with or
**      without it (ggml ignores q8_0's; the others' weighted searches and
**      the K-quants are ggml_kquants_x86.h's): SQ_W blocks per
**      pass.  Each block's extremes are folded lane-wise (max of |x| for
**      q8_0) and transpose-reduced so that lane b holds block b's; d, id =
**      1/d (a division) and the fp16 fields (F16C, rounding immediate 0 =
**      scalar's rounding) are computed for the SQ_W blocks in one vector
**      each.  ggml's extreme is the first in scan order: for q4_0/q5_0 the
**      signed extreme is the max when it exceeds -min, the min when -min
**      exceeds the max, +0 for an all-zero block, and a tie between +a and
**      -a (a > 0) goes to the scalar routine, which scans; for q4_1/q5_1 a
**      zero extreme takes the sign of the block's first zero.  When |d| is
**      zero or normal every x * id is within the code range plus a rounding
**      (|x * id| <= 2^bits (1 + 2^-22)), so the truncating conversion (q8_0:
**      truncate, then step away from zero on an exact fraction >= 1/2, C's
**      roundf), the clamps (ggml's MIN) and the narrowing give scalar's
**      bytes; a block whose d is subnormal or infinite goes to the scalar
**      routine, which spells out x86's conversion of out-of-range values.
**      Under MXCSR.DAZ max_ps/min_ps return flushed zeros where scalar's
**      compares keep the operand's bits, so that mode uses scalar;
**   3. tails (fewer than SQ_W blocks) go to the scalar routine on offset
**      pointers;
**   4. the checked entries (qc_<type>, ggml.h's sq_ggml_quantize_checked_fn)
**      run the same code and also fold each group's largest |x| bit pattern
**      (an integer max, on the loads the extremes take anyway): a group
**      holding NaN or inf is left unwritten and its first such float's
**      index returned, so nothing non-finite reaches the quantizer; a tail
**      is scanned before the scalar routine takes it, and a row that goes
**      to scalar whole is checked by this path's minmax.
** Each ISA file supplies, after this header:
**   dq_block_<T>_P(b, o)            the 256 or 32 floats of one block of
**                                   type T whose fp16 fields are finite,
**                                   for every type but q8_0 and q6_K;
**   store_codes_P(o, t, c, qs, qh)  the 32 codes c[0..32/SQ_W) of a block
**                                   of type t, clamped to ggml's range, as
**                                   its bytes: q8_0's at o + SQ_Q8_0_QS,
**                                   the nibbles at o + qs and q5_0/q5_1's
**                                   fifth bits at o + qh.
*/
typedef void (*sq_qfn)(const void *, size_t, const void *, void *);

SQ_AI void SQ_FN(store_codes)(sq_b o, sq_ggml_type t, const vint *c, size_t qs,
                              size_t qh);
SQ_AI void SQ_FN(dq_block_q4_0)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q4_1)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q5_0)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q5_1)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q2_K)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q3_K)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q4_K)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q5_K)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q1_0)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_q2_0)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_tq1_0)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_tq2_0)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_mxfp4)(sq_cb b, sq_b o);
SQ_AI void SQ_FN(dq_block_nvfp4)(sq_cb b, sq_b o);

/* The fp16 at p, and in every lane (F16C: exact, as sq_ggml_half for the
** finite values the fast paths see). */
SQ_AI float SQ_FN(half1)(sq_cb p) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(sq_load_u16(p))));
}
SQ_AI vfloat SQ_FN(half)(sq_cb p) { return vf_set1(SQ_FN(half1)(p)); }

/* ---- dequantize ------------------------------------------------------------- */

SQ_AI void SQ_FN(dq_block_q8_0)(sq_cb b, sq_b o) {
  vfloat d = SQ_FN(half)(b);
  SQ_UNROLL(4)
  for (int k = 0; k < 32 / SQ_W; k++)
    vf_store(o + 4 * SQ_W * k, vf_mul(vi_to_f(vi_load_i8(b + SQ_Q8_0_QS + SQ_W * k)), d));
}

SQ_AI void SQ_FN(dq_block_q6_K)(sq_cb b, sq_b o) {
  /* ds[k] = d * (float)scale k, as ggml's d * sc[is] */
  float ds[16];
  vfloat d = SQ_FN(half)(b + SQ_Q6_K_D);
  SQ_UNROLL(2)
  for (int k = 0; k < 16 / SQ_W; k++)
    vf_store(ds + SQ_W * k, vf_mul(d, vi_to_f(vi_load_i8(b + SQ_Q6_K_SC + SQ_W * k))));
  SQ_UNROLL(2)
  for (int h = 0; h < 2; h++) {
    sq_cb ql = b + SQ_Q6_K_QL + 64 * h, qh = b + SQ_Q6_K_QH + 32 * h;
    SQ_UNROLL(4)
    for (int c = 0; c < 32 / SQ_W; c++) {
      vint la = vi_load_u8(ql + SQ_W * c), lb = vi_load_u8(ql + 32 + SQ_W * c);
      vint hv = vi_load_u8(qh + SQ_W * c);
      const vint m15 = vi_set1(15), m48 = vi_set1(48), e32 = vi_set1(32);
      vint q1 = vi_or(vi_and(la, m15), vi_and(vi_slli(hv, 4), m48));
      vint q2 = vi_or(vi_and(lb, m15), vi_and(vi_slli(hv, 2), m48));
      vint q3 = vi_or(vi_srli(la, 4), vi_and(hv, m48));
      vint q4 = vi_or(vi_srli(lb, 4), vi_and(vi_srli(hv, 2), m48));
      /* weights 16 apart share a scale */
      const float *sc = ds + 8 * h + SQ_W * c / 16;
      sq_b out = o + 4 * (128 * h + SQ_W * c);
      vf_store(out, vf_mul(vf_load1(sc), vi_to_f(vi_sub(q1, e32))));
      vf_store(out + 128, vf_mul(vf_load1(sc + 2), vi_to_f(vi_sub(q2, e32))));
      vf_store(out + 256, vf_mul(vf_load1(sc + 4), vi_to_f(vi_sub(q3, e32))));
      vf_store(out + 384, vf_mul(vf_load1(sc + 6), vi_to_f(vi_sub(q4, e32))));
    }
  }
}

/* The dequantizers: a block whose fp16 fields are not all finite (FINITE, a
** test on the block at b) goes to the scalar routine, every other block to
** the block body dq_block_<T>_P. */
#define SQ_GGML_DQ(T, WEIGHTS, BYTES, FINITE)                                 \
  static void SQ_FN(dq_##T)(const void *blocks, size_t n, void *y) {          \
    sq_cb b = blocks;                                                         \
    sq_b o = y;                                                               \
    for (size_t i = 0; i < n / WEIGHTS; i++, b += BYTES, o += 4 * WEIGHTS) {  \
      if (!(FINITE)) {                                                        \
        sq_ggml_dequantize_##T(b, WEIGHTS, o);                                \
        continue;                                                             \
      }                                                                       \
      SQ_FN(dq_block_##T)(b, o);                                              \
    }                                                                         \
  }
SQ_GGML_DQ(q4_0, 32, 18, sq_ggml_half_finite(b))
SQ_GGML_DQ(q4_1, 32, 20, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + SQ_Q4_1_M))
SQ_GGML_DQ(q5_0, 32, 22, sq_ggml_half_finite(b))
SQ_GGML_DQ(q5_1, 32, 24, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + SQ_Q5_1_M))
SQ_GGML_DQ(q8_0, 32, 34, sq_ggml_half_finite(b))
SQ_GGML_DQ(q2_K, 256, 84,
           sq_ggml_half_finite(b + SQ_Q2_K_D) && sq_ggml_half_finite(b + SQ_Q2_K_DMIN))
SQ_GGML_DQ(q3_K, 256, 110, sq_ggml_half_finite(b + SQ_Q3_K_D))
SQ_GGML_DQ(q4_K, 256, 144, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + 2))
SQ_GGML_DQ(q5_K, 256, 176, sq_ggml_half_finite(b) && sq_ggml_half_finite(b + 2))
SQ_GGML_DQ(q6_K, 256, 210, sq_ggml_half_finite(b + SQ_Q6_K_D))
/* q1_0 computes nothing, but its scalar routine keeps a NaN's bits as they
** are, which F16C's widening (it quiets a signalling NaN) need not: such
** blocks go there too.  The FP4 scales are never infinite or NaN
** (ggml_dequantize.c), so those blocks never do. */
SQ_GGML_DQ(q1_0, 128, 18, sq_ggml_half_finite(b))
SQ_GGML_DQ(q2_0, 64, 18, sq_ggml_half_finite(b))
SQ_GGML_DQ(tq1_0, 256, 54, sq_ggml_half_finite(b + SQ_TQ1_0_D))
SQ_GGML_DQ(tq2_0, 256, 66, sq_ggml_half_finite(b + SQ_TQ2_0_D))
SQ_GGML_DQ(mxfp4, 32, 17, 1)
SQ_GGML_DQ(nvfp4, 64, 36, 1)
#undef SQ_GGML_DQ

/* ---- quantize, legacy types without importance ------------------------------ */

/* v[0] = the max (is_max) or min of v[0..n) by a pairwise tree: (v0, v1),
** (v2, v3), then those (min_ps/max_ps keep their second operand on ties
** of zeros, so the order is part of the result). */
SQ_AI vfloat SQ_FN(tree)(vfloat *v, int n, int is_max) {
  SQ_UNROLL(2)
  for (; n > 1; n /= 2)
    SQ_UNROLL(2)
    for (int k = 0; k < n / 2; k++)
      v[k] = is_max ? vf_max(v[2 * k], v[2 * k + 1]) : vf_min(v[2 * k], v[2 * k + 1]);
  return v[0];
}

/* lane b = the max (is_max) or min of the SQ_W lanes of v[b]: pairs of
** vectors interleaved and folded, halving the lanes per vector each step
** (float pairs, then double pairs, then 128-bit lanes). */
SQ_AI vfloat SQ_FN(reduce)(vfloat *v, int is_max) {
#define SQ_RED(a, b) (is_max ? vf_max(a, b) : vf_min(a, b))
  vfloat r[SQ_W / 2], s[SQ_W / 4];
  SQ_UNROLL(8)
  for (int k = 0; k < SQ_W / 2; k++)
    r[k] = SQ_RED(vf_unpacklo(v[2 * k], v[2 * k + 1]), vf_unpackhi(v[2 * k], v[2 * k + 1]));
  SQ_UNROLL(4)
  for (int k = 0; k < SQ_W / 4; k++)
    s[k] = SQ_RED(vf_unpacklo2(r[2 * k], r[2 * k + 1]), vf_unpackhi2(r[2 * k], r[2 * k + 1]));
  SQ_UNROLL(2)
  for (int m = SQ_W / 4; m > 1; m /= 2)
    SQ_UNROLL(2)
    for (int k = 0; k < m / 2; k++)
      s[k] = SQ_RED(vf_even128(s[2 * k], s[2 * k + 1]), vf_odd128(s[2 * k], s[2 * k + 1]));
  return s[0];
#undef SQ_RED
}

/* The sign bit of the first zero among the 32 floats at p (one exists). */
static uint32_t SQ_FN(first_zero_sign)(sq_cb p) {
  uint32_t z = 0, s = 0;
  SQ_UNROLL(4)
  for (int k = 0; k < 32 / SQ_W; k++) {
    vfloat v = vf_load(p + 4 * SQ_W * k);
    z |= (uint32_t)vm_bits(vf_cmp(v, vf_zero(), _CMP_EQ_OQ)) << (SQ_W * k);
    s |= (uint32_t)vf_signs(v) << (SQ_W * k);
  }
  return ((s >> __builtin_ctz(z)) & 1u) << 31;
}

/* C's roundf of t (|t| < 2^23) as int32: truncate, then step away from zero
** when the exact fraction is at least one half. */
SQ_AI vint SQ_FN(round_away)(vfloat t) {
  vint i = vi_trunc(t);
  vfloat f = vf_sub(t, vi_to_f(i));
  i = vi_inc(vf_cmp(f, vf_set1(0.5f), _CMP_GE_OQ), i);
  return vi_dec(vf_cmp(f, vf_set1(-0.5f), _CMP_LE_OQ), i);
}

/* SQ_W blocks; with `check`, first whether all their floats are finite:
** 1 and nothing written when one is not. */
SQ_AI int SQ_FN(q_group)(sq_cb x, sq_b out, sq_ggml_type t, size_t bytes,
                         sq_qfn scalar, int check) {
  const int sym = t == SQ_GGML_Q4_0 || t == SQ_GGML_Q5_0;
  const int asym = t == SQ_GGML_Q4_1 || t == SQ_GGML_Q5_1;
  vfloat mx[SQ_W], mn[SQ_W];
  /* the largest |x| bit pattern, as a signed integer: an exponent of all
  ** ones (NaN, inf) makes it exceed FLT_MAX's */
  vint nf = vi_set1(0);
  SQ_UNROLL(16)
  for (int b = 0; b < SQ_W; b++) {
    sq_cb p = x + 128 * b;
    /* the hardware prefetcher alone leaves this loop waiting on memory
    ** (prefetches never fault: addresses past the end are fine; computed as
    ** integers, since C has no pointer past one-past-the-end) */
    _mm_prefetch((const char *)((uintptr_t)p + 4096), _MM_HINT_T0);
    _mm_prefetch((const char *)((uintptr_t)p + 4096 + 64), _MM_HINT_T0);
    vfloat v[32 / SQ_W], l[32 / SQ_W];
    SQ_UNROLL(4)
    for (int k = 0; k < 32 / SQ_W; k++) {
      v[k] = l[k] = vf_load(p + 4 * SQ_W * k);
      if (t == SQ_GGML_Q8_0) v[k] = vf_abs(v[k]);
      if (check) nf = vi_max(nf, vi_bits(t == SQ_GGML_Q8_0 ? v[k] : vf_abs(l[k])));
    }
    if (t != SQ_GGML_Q8_0) mn[b] = SQ_FN(tree)(l, 32 / SQ_W, 0);
    mx[b] = SQ_FN(tree)(v, 32 / SQ_W, 1);
  }
  if (check && vm_any(vi_cmpgt(nf, vi_set1(0x7f7fffff)))) return 1;
  vfloat hi = SQ_FN(reduce)(mx, 1), lo = t == SQ_GGML_Q8_0 ? hi : SQ_FN(reduce)(mn, 0);
  const vfloat zero = vf_zero();
  vmask bad = vm_none();
  vfloat d, m = zero;
  if (t == SQ_GGML_Q8_0) {
    d = vf_div(hi, vf_set1(127.0f));
  } else if (sym) {
    vfloat neglo = vf_sub(zero, lo);
    vmask pos = vf_cmp(hi, neglo, _CMP_GT_OQ);          /* the max wins */
    vmask tie = vf_cmp(hi, neglo, _CMP_EQ_OQ);
    vmask allz = vm_and(vf_cmp(hi, zero, _CMP_EQ_OQ), vf_cmp(lo, zero, _CMP_EQ_OQ));
    bad = vm_andnot(allz, tie);
    vfloat ext = vf_clear(allz, vf_blend(lo, hi, pos));  /* +0 for all-zero */
    d = vf_div(ext, vf_set1(t == SQ_GGML_Q4_0 ? -8.0f : -16.0f));
  } else {
    unsigned z = vm_bits(vm_or(vf_cmp(hi, zero, _CMP_EQ_OQ), vf_cmp(lo, zero, _CMP_EQ_OQ)));
    if (z) {
      float h[SQ_W], lw[SQ_W];
      vf_store(h, hi);
      vf_store(lw, lo);
      for (int b = 0; b < SQ_W; b++)
        if (z >> b & 1) {
          float s = sq_bits_f32(SQ_FN(first_zero_sign)(x + 128 * b));
          if (h[b] == 0.0f) h[b] = s;
          if (lw[b] == 0.0f) lw[b] = s;
        }
      hi = vf_load(h);
      lo = vf_load(lw);
    }
    m = lo;
    d = vf_div(vf_sub(hi, lo), vf_set1(t == SQ_GGML_Q4_1 ? 15.0f : 31.0f));
  }
  /* id = d ? 1/d : 0; d must be 0 or normal */
  vmask dz = vf_cmp(d, zero, _CMP_EQ_OQ);
  vfloat id = vf_clear(dz, vf_div(vf_set1(1.0f), d));
  vfloat ad = vf_abs(d);
  vmask ok = vm_and(vf_cmp(ad, vf_set1(1.17549435e-38f), _CMP_GE_OQ),
                    vf_cmp(ad, vf_set1(3.40282347e38f), _CMP_LE_OQ));
  unsigned badb = vm_bits(vm_or(bad, vm_not(vm_or(ok, dz))));
  float idv[SQ_W], mv[SQ_W];
  uint16_t dh[SQ_W], mh[SQ_W];
  vf_store(idv, id);
  vf_store(mv, m);
  vf_store_f16(dh, d);
  vf_store_f16(mh, m);
  const size_t qs = t == SQ_GGML_Q4_0 ? SQ_Q4_0_QS : t == SQ_GGML_Q4_1 ? SQ_Q4_1_QS
                  : t == SQ_GGML_Q5_0 ? SQ_Q5_0_QS : SQ_Q5_1_QS;
  const size_t qh = t == SQ_GGML_Q5_0 ? SQ_Q5_0_QH : SQ_Q5_1_QH;
  SQ_UNROLL(16)
  for (int b = 0; b < SQ_W; b++) {
    sq_cb p = x + 128 * b;
    sq_b o = out + bytes * b;
    if (badb >> b & 1) {
      scalar(p, 32, NULL, o);
      continue;
    }
    vfloat vid = vf_load1(idv + b), vm = vf_load1(mv + b);
    vint c[32 / SQ_W];
    SQ_UNROLL(4)
    for (int k = 0; k < 32 / SQ_W; k++) {
      vfloat v = vf_load(p + 4 * SQ_W * k);
      if (t == SQ_GGML_Q8_0) {
        c[k] = SQ_FN(round_away)(vf_mul(v, vid));
      } else if (sym) {
        vfloat off = vf_set1(t == SQ_GGML_Q4_0 ? 8.5f : 16.5f);
        c[k] = vi_trunc(vf_add(vf_mul(v, vid), off));
      } else {
        c[k] = vi_trunc(vf_add(vf_mul(vf_sub(v, vm), vid), vf_set1(0.5f)));
      }
    }
    sq_store_u16(o, dh[b]);
    if (asym) sq_store_u16(o + 2, mh[b]);
    SQ_FN(store_codes)(o, t, c, qs, qh);
  }
  return 0;
}

/* A row; with `check`, each group's floats are checked before it is
** quantized (q_group), the tail's before the scalar routine takes it, and a
** row that goes to scalar whole by this path's minmax first: n, or the
** index of the first non-finite float. */
SQ_AI size_t SQ_FN(q_row)(const void *x, size_t n, const void *importance,
                          void *blocks, sq_ggml_type t, size_t bytes,
                          sq_qfn scalar, int check) {
  /* ggml's quantize_q8_0 ignores the importance weights (it writes the
  ** reference's bytes), so q8_0 keeps this path with them; the other types'
  ** weighted searches run blocks side by side in the K-quant search lanes
  ** (ggml_kquants_x86.h; scalar's searches under DAZ).  MXCSR.DAZ:
  ** max_ps/min_ps return flushed zeros where scalar's compares keep the
  ** operand's bits, so that mode uses scalar (as in minmax) */
  if (t == SQ_GGML_Q8_0) importance = NULL;
  if (importance || (_mm_getcsr() & 0x40)) {
    float lo, hi;
    size_t bad = check ? SQ_FN(sq_kernels).minmax(x, n, &lo, &hi) : n;
    if (bad < n) return bad;
    if (importance)
      SQ_FN(sq_ggml_legacy_weighted)(t, x, n, importance, blocks);
    else
      scalar(x, n, importance, blocks);
    return n;
  }
  sq_cb p = x;
  sq_b o = blocks;
  size_t nb = n / 32, i = 0;
  for (; i + SQ_W <= nb; i += SQ_W)
    if (SQ_FN(q_group)(p + 128 * i, o + bytes * i, t, bytes, scalar, check))
      return 32 * i + sq_first_nonfinite(p + 128 * i, 32 * SQ_W);
  if (i < nb) {
    size_t left = 32 * (nb - i);
    size_t bad = check ? sq_first_nonfinite(p + 128 * i, left) : left;
    if (bad < left) return 32 * i + bad;
    scalar(p + 128 * i, left, NULL, o + bytes * i);
  }
  return n;
}

#define SQ_GGML_Q_ENTRY(T, TYPE, BYTES)                                        \
  static void SQ_FN(q_##T)(const void *x, size_t n, const void *imp,           \
                           void *blocks) {                                     \
    SQ_FN(q_row)(x, n, imp, blocks, TYPE, BYTES, sq_ggml_quantize_##T, 0);     \
  }                                                                            \
  static size_t SQ_FN(qc_##T)(const void *x, size_t n, const void *imp,        \
                              void *blocks) {                                  \
    return SQ_FN(q_row)(x, n, imp, blocks, TYPE, BYTES, sq_ggml_quantize_##T,  \
                        1);                                                    \
  }
SQ_GGML_Q_ENTRY(q4_0, SQ_GGML_Q4_0, 18)
SQ_GGML_Q_ENTRY(q4_1, SQ_GGML_Q4_1, 20)
SQ_GGML_Q_ENTRY(q5_0, SQ_GGML_Q5_0, 22)
SQ_GGML_Q_ENTRY(q5_1, SQ_GGML_Q5_1, 24)
SQ_GGML_Q_ENTRY(q8_0, SQ_GGML_Q8_0, 34)
#undef SQ_GGML_Q_ENTRY
