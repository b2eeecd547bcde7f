/*
** x86_kernels.h: the kernel table's algorithms for both x86 paths, the
** template of x86_avx2.c (8 lanes) and x86_avx512.c (16), written in
** x86_width.h's words (no include guard: read once per width).
**
** Every function returns exactly the bytes and the value scalar.c returns, for
** every input.  How, kernel by kernel:
**   1. quantize: NaN test on x (one unordered compare per two vectors, one
**      branch per four vectors; from a hit on, the path's tail redoes the
**      rest so that the index and the bytes written before it are
**      scalar's), y = x*inv or x/scale, clamp with max_ps(lo, y) /
**      min_ps(hi, y) (the same operand order as scalar's "if (y < lo) y =
**      lo"), round with an explicit round-to-nearest-even mode (never
**      MXCSR's), add zp as an integer, narrow by truncation (the ISA file's
**      stores).  32-bit codes: round in float, add zp and clamp in double;
**   2. dequantize: 8/16-bit codes widen to int32, subtract zp (the call falls
**      back to scalar when zp is so extreme that q - zp could overflow
**      int32), convert (one rounding, as scalar's int64 -> float); 32-bit
**      codes: the ISA file's exact difference, converted to float once;
**   3. minmax: a scalar head up to a vector-sized boundary, then lane
**      accumulators min_ps(x, acc) that keep the first occurrence of their
**      extreme, exactly as scalar's strict compare; non-finite values are
**      caught per block and located by a scalar scan of that block; a zero
**      extreme whose lanes disagree on the sign is settled by finding the
**      first zero in the data.  Under MXCSR.DAZ min_ps returns flushed zeros
**      where scalar keeps the denormal's bits, so that mode uses scalar;
**   4. f16 via F16C with immediate rounding 0 (its NaN and subnormal results
**      equal scalar's, and it ignores DAZ/FTZ); bf16 by integer rounding;
**   5. tails go to the ISA file (AVX2: whole vectors, then the scalar table
**      on offset pointers; AVX-512: masked loads and stores, no access past
**      the end);
**   6. error_sums: lane l of 16 gets elements 16k + l in order, as in scalar
**      (a block of 16 is 32 / SQ_W vectors of doubles, exact conversions,
**      multiply then add), on the caller's lanes (error_lanes: scalar's head
**      up to lane 0 and tail, sq_error_lanes_scalar; error_sums is
**      error_lanes from lane 0, totalled): the same additions in the same
**      order, so the same bits;
**   7. minmax_blocks: SQ_W blocks of SQ_W floats or more at a time, each
**      folded lane-wise (its last vector may overlap the one before), the
**      SQ_W reduced together by shuffles; non-finite values as in minmax,
**      and a zero extreme is the first zero of its block, as scalar's first
**      occurrence; the blocks left over, one minmax each.  Narrow blocks go
**      to scalar (AVX2, under 8 floats) or to AVX2 (AVX-512, under 64).
** Each ISA file supplies, after this header:
**   st_codes4_P(d, c0, c1, c2, c3, bits)   4 * SQ_W codes of `bits` stored;
**   q_tail_P(src, i, n, p, dst, c, bits, divide, with_add)
**                        quantize's elements [i, n); returns the index of the
**                        first NaN, or n;
**   ld_codes_P(q, i, t)  SQ_W codes of type t at element i, as int32;
**   dq_conv_P(v, zp, t)  (float)(v - zp), as scalar's int64 -> float;
**   dq_tail_P(q, i, n, scale, zp, y, t), dqi_tail_P(q, c, ch, sc, zp, p, y, t)
**                        dequantize's elements [i, n), a row's channels
**                        [c, ch);
**   st_bf16x2_P(d, a, b) the 2 * SQ_W lanes of a, then b (bf16 values in
**                        int32 lanes), as 16-bit values at d;
**   f16_tail_P, f32_to_f16_tail_P, bf16_tail_P, f32_to_bf16_tail_P (s, i, n, d)
**                        the conversions' elements [i, n).
*/

/* Bytes ahead of the loads that minmax_blocks prefetches.  The compiler
** interleaves the loads of a group's blocks, and the hardware prefetchers then
** fell behind: from memory, blocks of 64 to 256 floats ran at 1.0x to 1.5x
** memcpy without it, 0.45x to 0.7x with it (Zen 4; 8 KB was the best of 4, 8
** and 16 KB for every block size). */
#define SQ_PF_DIST 8192

/* minmax's vector part is a multiple of this many elements: AVX2 takes four
** vectors at a time and leaves the rest to its scalar tail; AVX-512 also
** takes single vectors, so that at most 15 elements are scalar. */
#define SQ_MM_GRAIN (SQ_W == 8 ? 4 * SQ_W : SQ_W)

/* quantize's operands for one parameter set, broadcast. */
typedef struct SQ_FN(sq_qv) {
  vfloat m, lo, hi, add;
  vint zp;                  /* zp - (int32_t)add when with_add */
  vdouble zpd, qmin, qmax;
} SQ_FN(sq_qv);

SQ_AI void SQ_FN(st_codes4)(sq_b d, vint c0, vint c1, vint c2, vint c3, int bits);
SQ_AI size_t SQ_FN(q_tail)(sq_cb src, size_t i, size_t n, const sq_qparams *p,
                           sq_b dst, const SQ_FN(sq_qv) *c, int bits,
                           int divide, int with_add);
SQ_AI vint SQ_FN(ld_codes)(sq_cb q, size_t i, sq_code_type t);
SQ_AI vfloat SQ_FN(dq_conv)(vint v, vint zp, sq_code_type t);
SQ_AI void SQ_FN(dq_tail)(sq_cb q, size_t i, size_t n, float scale, int32_t zp,
                          sq_b y, sq_code_type t);
SQ_AI void SQ_FN(dqi_tail)(sq_cb q, size_t c, size_t ch, const float *sc,
                           const int32_t *zp, const sq_channel_params *p,
                           sq_b y, sq_code_type t);
SQ_AI void SQ_FN(st_bf16x2)(sq_b d, vint a, vint b);
SQ_AI void SQ_FN(f16_tail)(sq_cb s, size_t i, size_t n, sq_b d);
SQ_AI void SQ_FN(f32_to_f16_tail)(sq_cb s, size_t i, size_t n, sq_b d);
SQ_AI void SQ_FN(bf16_tail)(sq_cb s, size_t i, size_t n, sq_b d);
SQ_AI void SQ_FN(f32_to_bf16_tail)(sq_cb s, size_t i, size_t n, sq_b d);

/* ---- min / max ---------------------------------------------------------- */

static size_t SQ_FN(minmax)(const void *x, size_t n, float *mn, float *mx) {
  sq_cb p = x;
  if (n == 0) return 0;
  if (_mm_getcsr() & 0x40) return sq_kernels_scalar.minmax(x, n, mn, mx);
  /* A scalar head up to a vector-sized boundary keeps the loads within cache
  ** lines (64-byte loads that straddle two halve AVX-512's speed from
  ** memory); its elements come first, so they win ties as in scalar. */
  const uintptr_t vb = 4 * SQ_W;
  size_t h = 0, i;
  if (((uintptr_t)p & 3) == 0) h = ((vb - ((uintptr_t)p & (vb - 1))) & (vb - 1)) / 4;
  if (h > n) h = n;
  float lo = 0.0f, hi = 0.0f;
  int have = 0;
  for (i = 0; i < h; i++)
    if (!sq_fold1(p, i, &have, &lo, &hi)) return i;
  sq_cb pv = p + 4 * h;                 /* the vector part: [h, h + nv) */
  size_t nv = (n - h) & ~(size_t)(SQ_MM_GRAIN - 1);
  if (nv) {
    vfloat a0 = vf_set1(sq_load_f32(pv)), a1 = a0, a2 = a0, a3 = a0;
    vfloat b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    const vfloat ninf = vf_set1(-__builtin_inff());
    const vfloat pinf = vf_set1(__builtin_inff());
    for (size_t blk = 0; blk < nv; blk += SQ_MM_BLOCK) {
      size_t end = nv - blk > SQ_MM_BLOCK ? blk + SQ_MM_BLOCK : nv;
      vmask bad = vm_none();
      for (i = blk; i + 4 * SQ_W <= end; i += 4 * SQ_W) {
        sq_cb s = pv + 4 * i;
        vfloat x0 = vf_load(s), x1 = vf_load(s + vb), x2 = vf_load(s + 2 * vb),
               x3 = vf_load(s + 3 * vb);
        SQ_KEEP(x0);
        SQ_KEEP(x1);
        SQ_KEEP(x2);
        SQ_KEEP(x3);
        a0 = vf_min(x0, a0);
        a1 = vf_min(x1, a1);
        a2 = vf_min(x2, a2);
        a3 = vf_min(x3, a3);
        b0 = vf_max(x0, b0);
        b1 = vf_max(x1, b1);
        b2 = vf_max(x2, b2);
        b3 = vf_max(x3, b3);
        bad = vm_or(bad, vm_or(vf_cmp(x0, x1, _CMP_UNORD_Q), vf_cmp(x2, x3, _CMP_UNORD_Q)));
      }
      for (; SQ_MM_GRAIN < 4 * SQ_W && i < end; i += SQ_W) {
        vfloat v = vf_load(pv + 4 * i);
        a0 = vf_min(v, a0);
        b0 = vf_max(v, b0);
        bad = vm_or(bad, vf_cmp(v, v, _CMP_UNORD_Q));
      }
      /* NaN was never taken into an accumulator; an infinity was. */
      vfloat l = vf_min(vf_min(a0, a1), vf_min(a2, a3));
      vfloat u = vf_max(vf_max(b0, b1), vf_max(b2, b3));
      bad = vm_or(bad, vm_or(vf_cmp(l, ninf, _CMP_EQ_OQ), vf_cmp(u, pinf, _CMP_EQ_OQ)));
      if (vm_any(bad)) return h + blk + sq_first_nonfinite(pv + 4 * blk, end - blk);
    }
    float la[4 * SQ_W], ha[4 * SQ_W];
    vf_store(la, a0);
    vf_store(la + SQ_W, a1);
    vf_store(la + 2 * SQ_W, a2);
    vf_store(la + 3 * SQ_W, a3);
    vf_store(ha, b0);
    vf_store(ha + SQ_W, b1);
    vf_store(ha + 2 * SQ_W, b2);
    vf_store(ha + 3 * SQ_W, b3);
    /* first occurrences within the vector part; the head came before it */
    float vlo = sq_pick_extreme(la, 4 * SQ_W, 0, pv, nv);
    float vhi = sq_pick_extreme(ha, 4 * SQ_W, 1, pv, nv);
    if (!have) {
      lo = vlo;
      hi = vhi;
      have = 1;
    }
    if (vlo < lo) lo = vlo;
    if (vhi > hi) hi = vhi;
  }
  for (i = h + nv; i < n; i++)
    if (!sq_fold1(p, i, &have, &lo, &hi)) return i;
  *mn = lo;
  *mx = hi;
  return n;
}

/* ---- quantize ------------------------------------------------------------ */

SQ_AI vfloat SQ_FN(scale_y)(vfloat v, vfloat m, int divide) {
  return divide ? vf_div(v, m) : vf_mul(v, m);
}

/* Codes up to 16 bits: add `add` (when with_add), clamp in float, round
** half to even, add zp (the caller's zp - (int32_t)add). */
SQ_AI vint SQ_FN(code_small)(vfloat v, vfloat m, vfloat add, vfloat lo,
                             vfloat hi, vint zp, int divide, int with_add) {
  vfloat y = SQ_FN(scale_y)(v, m, divide);
  if (with_add) y = vf_add(y, add);
  y = vf_max(lo, y);
  y = vf_min(hi, y);
  return vi_add(vi_round(y), zp);
}

/* 32-bit codes: round in float, then add zp and clamp in double. */
SQ_AI vihalf SQ_FN(code_i32_half)(vhalf r, vdouble zpd, vdouble qmin,
                                  vdouble qmax) {
  vdouble d = vd_add(vd_of(r), zpd);
  d = vd_max(qmin, d);
  d = vd_min(qmax, d);
  return vd_trunc(d);
}
SQ_AI vint SQ_FN(code_i32)(vfloat v, vfloat m, vdouble zlo, vdouble zhi,
                           vdouble qmin, vdouble qmax, int divide) {
  vfloat r = vf_round(SQ_FN(scale_y)(v, m, divide));
  vihalf l = SQ_FN(code_i32_half)(vf_lo(r), zlo, qmin, qmax);
  vihalf h = SQ_FN(code_i32_half)(vf_hi(r), zhi, qmin, qmax);
  return vi_join(l, h);
}

SQ_AI SQ_FN(sq_qv) SQ_FN(qv_of)(const sq_qparams *p, int divide, int with_add) {
  SQ_FN(sq_qv) c;
  c.m = vf_set1(divide ? p->scale : p->inv);
  c.lo = vf_set1(p->lo);
  c.hi = vf_set1(p->hi);
  c.add = vf_set1(with_add ? p->add : 0.0f);
  c.zp = vi_set1(with_add ? p->zp - (int32_t)p->add : p->zp);
  c.zpd = vd_set1((double)p->zp);
  c.qmin = vd_set1((double)p->qmin);
  c.qmax = vd_set1((double)p->qmax);
  return c;
}

/* SQ_W codes of `bits` for the floats of v under c. */
SQ_AI vint SQ_FN(q_code)(vfloat v, const SQ_FN(sq_qv) *c, int bits, int divide,
                         int with_add) {
  return bits == 32
             ? SQ_FN(code_i32)(v, c->m, c->zpd, c->zpd, c->qmin, c->qmax, divide)
             : SQ_FN(code_small)(v, c->m, c->add, c->lo, c->hi, c->zp, divide,
                                 with_add);
}

SQ_AI size_t SQ_FN(q_body)(sq_cb src, size_t n, const sq_qparams *p, sq_b dst,
                           int bits, int divide, int with_add) {
  const size_t es = (size_t)bits / 8, vb = 4 * SQ_W;
  const SQ_FN(sq_qv) c = SQ_FN(qv_of)(p, divide, with_add);
  size_t i = 0;
  for (; i + 4 * SQ_W <= n; i += 4 * SQ_W) {
    sq_cb s = src + 4 * i;
    vfloat x0 = vf_load(s), x1 = vf_load(s + vb), x2 = vf_load(s + 2 * vb),
           x3 = vf_load(s + 3 * vb);
    if (vm_any(vm_or(vf_cmp(x0, x1, _CMP_UNORD_Q), vf_cmp(x2, x3, _CMP_UNORD_Q))))
      break;
    SQ_FN(st_codes4)(dst + es * i, SQ_FN(q_code)(x0, &c, bits, divide, with_add),
                     SQ_FN(q_code)(x1, &c, bits, divide, with_add),
                     SQ_FN(q_code)(x2, &c, bits, divide, with_add),
                     SQ_FN(q_code)(x3, &c, bits, divide, with_add), bits);
  }
  /* The tail, or everything from the group holding the first NaN. */
  return SQ_FN(q_tail)(src, i, n, p, dst, &c, bits, divide, with_add);
}

/* ---- dequantize ---------------------------------------------------------- */

SQ_AI void SQ_FN(dq_body)(sq_cb q, size_t n, float scale, int32_t zp, sq_b y,
                          sq_code_type t) {
  if (t != SQ_CODE_I32 && !sq_zp_small_ok(zp)) {
    sq_kernels_scalar.dequantize[t](q, n, scale, zp, y);
    return;
  }
  const vfloat s = vf_set1(scale);
  const vint z = vi_set1(zp);
  size_t i = 0;
  for (; i + 4 * SQ_W <= n; i += 4 * SQ_W) {
    vfloat f0 = SQ_FN(dq_conv)(SQ_FN(ld_codes)(q, i, t), z, t);
    vfloat f1 = SQ_FN(dq_conv)(SQ_FN(ld_codes)(q, i + SQ_W, t), z, t);
    vfloat f2 = SQ_FN(dq_conv)(SQ_FN(ld_codes)(q, i + 2 * SQ_W, t), z, t);
    vfloat f3 = SQ_FN(dq_conv)(SQ_FN(ld_codes)(q, i + 3 * SQ_W, t), z, t);
    vf_store(y + 4 * i, vf_mul(f0, s));
    vf_store(y + 4 * (i + SQ_W), vf_mul(f1, s));
    vf_store(y + 4 * (i + 2 * SQ_W), vf_mul(f2, s));
    vf_store(y + 4 * (i + 3 * SQ_W), vf_mul(f3, s));
  }
  SQ_FN(dq_tail)(q, i, n, scale, zp, y, t);
}

SQ_AI void SQ_FN(dqi_body)(sq_cb q, size_t rows, const sq_channel_params *p,
                           sq_b y, sq_code_type t) {
  const size_t es = sq_esize[t], ch = p->channels;
  /* AVX2's row tails are scalar: a row without a whole vector sends the
  ** call to scalar at once */
  int ok = SQ_W == 16 || ch >= SQ_W;
  for (size_t c = 0; ok && t != SQ_CODE_I32 && c < ch; c++)
    ok = sq_zp_small_ok(p->zp[c]);
  if (!ok) {
    sq_kernels_scalar.dequantize_interleaved[t](q, rows, p, y);
    return;
  }
  const float *sc = p->scale;       /* locals: stores may alias *p */
  const int32_t *zp = p->zp;
  for (size_t r = 0; r < rows; r++) {
    sq_cb qr = q + es * r * ch;
    sq_b yr = y + 4 * r * ch;
    size_t c = 0;
    for (; c + SQ_W <= ch; c += SQ_W) {
      vfloat f = SQ_FN(dq_conv)(SQ_FN(ld_codes)(qr, c, t), vi_load(zp + c), t);
      vf_store(yr + 4 * c, vf_mul(f, vf_load(sc + c)));
    }
    if (c < ch) SQ_FN(dqi_tail)(qr, c, ch, sc, zp, p, yr, t);
  }
}

/* ---- half formats -------------------------------------------------------- */

static void SQ_FN(f16_to_f32)(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  for (; i + 4 * SQ_W <= n; i += 4 * SQ_W) {
    vfloat a = vf_from_f16(s + 2 * i), b = vf_from_f16(s + 2 * (i + SQ_W));
    vfloat c = vf_from_f16(s + 2 * (i + 2 * SQ_W)), e = vf_from_f16(s + 2 * (i + 3 * SQ_W));
    vf_store(d + 4 * i, a);
    vf_store(d + 4 * (i + SQ_W), b);
    vf_store(d + 4 * (i + 2 * SQ_W), c);
    vf_store(d + 4 * (i + 3 * SQ_W), e);
  }
  SQ_FN(f16_tail)(s, i, n, d);
}

static void SQ_FN(f32_to_f16)(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  for (; i + 4 * SQ_W <= n; i += 4 * SQ_W) {
    vf_store_f16(d + 2 * i, vf_load(s + 4 * i));
    vf_store_f16(d + 2 * (i + SQ_W), vf_load(s + 4 * (i + SQ_W)));
    vf_store_f16(d + 2 * (i + 2 * SQ_W), vf_load(s + 4 * (i + 2 * SQ_W)));
    vf_store_f16(d + 2 * (i + 3 * SQ_W), vf_load(s + 4 * (i + 3 * SQ_W)));
  }
  SQ_FN(f32_to_f16_tail)(s, i, n, d);
}

/* bf16 -> f32: shift into place, set the quiet bit of NaNs. */
SQ_AI vint SQ_FN(bf16_widen)(vihalf h) {
  vint b = vi_slli(vi_from_u16(h), 16);
  vint ax = vi_and(b, vi_set1(0x7fffffff));
  vmask nan = vi_cmpgt(ax, vi_set1(0x7f800000));
  return vi_or_where(nan, b, vi_set1(0x00400000));
}

static void SQ_FN(bf16_to_f32)(const void *h, size_t n, void *f) {
  sq_cb s = h;
  sq_b d = f;
  size_t i = 0;
  for (; i + 2 * SQ_W <= n; i += 2 * SQ_W) {
    vint v = vi_load(s + 2 * i);
    vi_store(d + 4 * i, SQ_FN(bf16_widen)(vi_lo(v)));
    vi_store(d + 4 * (i + SQ_W), SQ_FN(bf16_widen)(vi_hi(v)));
  }
  SQ_FN(bf16_tail)(s, i, n, d);
}

/* f32 -> bf16 as 32-bit lanes holding the 16-bit result:
** (x + 0x7fff + ((x >> 16) & 1)) >> 16, NaN -> (x >> 16) | 0x40. */
SQ_AI vint SQ_FN(bf16_round)(vint x) {
  SQ_KEEP(x);                  /* one load, not one per use (see SQ_KEEP) */
  vint ax = vi_and(x, vi_set1(0x7fffffff));
  vmask nan = vi_cmpgt(ax, vi_set1(0x7f800000));
  vint odd = vi_and(vi_srli(x, 16), vi_set1(1));
  vint r = vi_add(x, vi_add(odd, vi_set1(0x7fff)));
  r = vi_srli(r, 16);
  vint qn = vi_or(vi_srli(x, 16), vi_set1(0x40));
  return vi_blend(r, qn, nan);
}

static void SQ_FN(f32_to_bf16)(const void *f, size_t n, void *h) {
  sq_cb s = f;
  sq_b d = h;
  size_t i = 0;
  for (; i + 2 * SQ_W <= n; i += 2 * SQ_W)
    SQ_FN(st_bf16x2)(d + 2 * i, SQ_FN(bf16_round)(vi_load(s + 4 * i)),
                     SQ_FN(bf16_round)(vi_load(s + 4 * (i + SQ_W))));
  SQ_FN(f32_to_bf16_tail)(s, i, n, d);
}

/* ---- error sums ---------------------------------------------------------- */

/* Lane l of the SQ_ERROR_LANES gets elements 16k + l in order, exactly as in
** scalar: a 16-element block is 32 / SQ_W vectors of doubles (AVX2: lanes
** 0-3, 4-7, 8-11, 12-15; AVX-512: 0-7, 8-15), each converted exactly from
** floats, and every sum adds its product (multiply, then add: no FMA) to the
** vector holding those lanes.  The head, tail and lane totals are scalar's
** (sq_error_lanes_scalar, sq_error_lanes_total).  max |a-b| is a max of |d|
** (sign cleared), exact for finite inputs in any order.
** AVX2: the 16 accumulators and their operands do not all fit the 16 ymm
** registers, so a few live on the stack (load, add, store): measured from
** memory that beat two passes over L1-sized chunks (lanes 0-7, then 8-15),
** 0.67x against 0.85x memcpy of the 8n bytes.  One max accumulator, not two:
** the register it frees took clang from 22 to 32 bytes/ns in cache (GCC: 32
** either way; the FP add pipes bound it there, 28 adds, converts and max per
** block).  AVX-512: the eight accumulators stay in registers, and each half
** keeps its own max. */
enum { SQ_FN(es_vectors) = 32 / SQ_W, SQ_FN(es_maxes) = SQ_W == 8 ? 1 : 2 };

SQ_AI void SQ_FN(es_add)(vdouble u, vdouble v, vdouble *a2, vdouble *b2,
                         vdouble *ab, vdouble *d2, vdouble *mx) {
  vdouble d = vd_sub(u, v);
  *a2 = vd_add(*a2, vd_mul(u, u));
  *b2 = vd_add(*b2, vd_mul(v, v));
  *ab = vd_add(*ab, vd_mul(u, v));
  *d2 = vd_add(*d2, vd_mul(d, d));
  *mx = vd_max(*mx, vd_abs(d));
}

/* error_lanes: scalar's head up to lane 0, then error_sums' blocks with the
** accumulators loaded from and stored back to acc (the same additions in the
** same order per lane), then scalar's tail. */
static void SQ_FN(error_lanes)(const void *a, const void *b, size_t n,
                               size_t lane, sq_error_lanes *acc) {
  enum { NV = SQ_FN(es_vectors), NM = SQ_FN(es_maxes), DW = SQ_W / 2 };
  size_t head = sq_error_lanes_head(a, b, n, lane, acc);
  sq_cb pa = (sq_cb)a + 4 * head, pb = (sq_cb)b + 4 * head;
  size_t full = (n - head) / SQ_ERROR_LANES;
  if (full) {
    vdouble A[NV], B[NV], C[NV], D[NV], M[NM];
    SQ_UNROLL(4)
    for (int j = 0; j < NV; j++) {
      A[j] = vd_load(acc->a2 + DW * j);
      B[j] = vd_load(acc->b2 + DW * j);
      C[j] = vd_load(acc->ab + DW * j);
      D[j] = vd_load(acc->d2 + DW * j);
    }
    SQ_UNROLL(2)
    for (int j = 0; j < NM; j++) M[j] = vd_zero();
    for (size_t k = 0; k < full; k++) {
      sq_cb sa = pa + 64 * k, sb = pb + 64 * k;
      SQ_UNROLL(4)
      for (int j = 0; j < NV; j++)
        SQ_FN(es_add)(vd_load_f(sa + 4 * DW * j), vd_load_f(sb + 4 * DW * j), &A[j],
                      &B[j], &C[j], &D[j], &M[j % NM]);
    }
    SQ_UNROLL(4)
    for (int j = 0; j < NV; j++) {
      vd_store(acc->a2 + DW * j, A[j]);
      vd_store(acc->b2 + DW * j, B[j]);
      vd_store(acc->ab + DW * j, C[j]);
      vd_store(acc->d2 + DW * j, D[j]);
    }
    vdouble mm = M[0];
    SQ_UNROLL(2)
    for (int j = 1; j < NM; j++) mm = vd_max(mm, M[j]);
    double md[DW];
    vd_store(md, mm);
    for (int j = 0; j < DW; j++)
      if (md[j] > acc->max_abs_d) acc->max_abs_d = md[j];
  }
  sq_error_lanes_scalar(a, b, head + full * SQ_ERROR_LANES, n, lane, acc);
}

/* error_sums is error_lanes from lane 0 on zeroed lanes, totalled: the same
** additions in the same order as scalar's. */
static void SQ_FN(error_sums)(const void *a, const void *b, size_t n,
                              sq_error_sums *out) {
  sq_error_lanes acc;
  memset(&acc, 0, sizeof acc);
  SQ_FN(error_lanes)(a, b, n, 0, &acc);
  sq_error_lanes_total(&acc, out);
}

/* ---- per-block min / max ------------------------------------------------- */

/* The 64-byte lines at offsets [from, to) of s (rounded up to a multiple of
** 64), prefetched SQ_PF_DIST ahead when pf: one prefetch per 64 bytes
** loaded. */
SQ_AI void SQ_FN(pf_lines)(sq_cb s, size_t from, size_t to, int pf) {
  if (pf)
    for (size_t o = (from + 63) / 64 * 64; o < to; o += 64)
      _mm_prefetch((const char *)(s + o + SQ_PF_DIST), _MM_HINT_T0);
}

/* Vector k of a block of `block` >= SQ_W floats at s: at SQ_W k, the last one
** at block - SQ_W, where it may overlap the one before it (an element seen
** twice changes neither min nor max, and nothing outside the block is
** read). */
SQ_AI sq_cb SQ_FN(blk_vec)(sq_cb s, size_t block, size_t k) {
  return s + 4 * (SQ_W * k + SQ_W < block ? SQ_W * k : block - SQ_W);
}

/* Lane-wise min and max of one block of `block` >= SQ_W floats at s, its
** vectors loaded in address order (measured faster than taking the last one
** early).  NaN lanes are or-ed into *nan (min_ps/max_ps may drop a NaN; an
** infinity they keep). */
SQ_AI void SQ_FN(blk_fold)(sq_cb s, size_t block, int pf, vfloat *lo,
                           vfloat *hi, vmask *nan) {
  const size_t m = (block + SQ_W - 1) / SQ_W, vb = 4 * SQ_W;
  SQ_FN(pf_lines)(s, 0, vb, pf);
  vfloat x0 = vf_load(s);
  SQ_KEEP(x0);
  if (m == 1) {
    *lo = *hi = x0;
    *nan = vm_or(*nan, vf_cmp(x0, x0, _CMP_UNORD_Q));
    return;
  }
  SQ_FN(pf_lines)(s, vb, 2 * vb, pf);
  vfloat x1 = vf_load(SQ_FN(blk_vec)(s, block, 1));
  SQ_KEEP(x1);
  vfloat l0 = x0, h0 = x0, l1 = x1, h1 = x1;
  vmask bad = vf_cmp(x0, x1, _CMP_UNORD_Q);
  size_t k = 2;
  for (; k + 2 <= m; k += 2) {
    SQ_FN(pf_lines)(s + vb * k, 0, 2 * vb, pf);
    x0 = vf_load(SQ_FN(blk_vec)(s, block, k));
    x1 = vf_load(SQ_FN(blk_vec)(s, block, k + 1));
    SQ_KEEP(x0);
    SQ_KEEP(x1);
    l0 = vf_min(x0, l0);
    l1 = vf_min(x1, l1);
    h0 = vf_max(x0, h0);
    h1 = vf_max(x1, h1);
    bad = vm_or(bad, vf_cmp(x0, x1, _CMP_UNORD_Q));
  }
  if (k < m) {
    SQ_FN(pf_lines)(s + vb * k, 0, vb, pf);
    x0 = vf_load(SQ_FN(blk_vec)(s, block, k));
    SQ_KEEP(x0);
    l0 = vf_min(x0, l0);
    h0 = vf_max(x0, h0);
    bad = vm_or(bad, vf_cmp(x0, x0, _CMP_UNORD_Q));
  }
  *lo = vf_min(l0, l1);
  *hi = vf_max(h0, h1);
  *nan = vm_or(*nan, bad);
}

/* Blocks reduced together, each step halving the lanes per block: two
** blocks' lanes paired (unpack), then quads (shuffle_ps), then 128-bit
** lanes (even128/odd128). */
SQ_AI void SQ_FN(fold_pair)(sq_cb s, size_t block, int pf, vfloat *lo,
                            vfloat *hi, vmask *nan) {
  vfloat l0, h0, l1, h1;
  SQ_FN(blk_fold)(s, block, pf, &l0, &h0, nan);
  SQ_FN(blk_fold)(s + 4 * block, block, pf, &l1, &h1, nan);
  *lo = vf_min(vf_unpacklo(l0, l1), vf_unpackhi(l0, l1));
  *hi = vf_max(vf_unpacklo(h0, h1), vf_unpackhi(h0, h1));
}

/* Four blocks: lane 4L + j holds block j's extreme over 128-bit lane L. */
SQ_AI void SQ_FN(fold_quad)(sq_cb s, size_t block, int pf, vfloat *lo,
                            vfloat *hi, vmask *nan) {
  vfloat al, ah, bl, bh;
  SQ_FN(fold_pair)(s, block, pf, &al, &ah, nan);
  SQ_FN(fold_pair)(s + 8 * block, block, pf, &bl, &bh, nan);
  *lo = vf_min(vf_shuffle(al, bl, 0x44), vf_shuffle(al, bl, 0xee));
  *hi = vf_max(vf_shuffle(ah, bh, 0x44), vf_shuffle(ah, bh, 0xee));
}

/* Eight blocks: AVX2, lane j is block j's extreme; AVX-512, lanes 0-3
** blocks 0-3 over 128-bit lanes {0, 1}, 4-7 over {2, 3}, lanes 8-15 the
** same for blocks 4-7. */
SQ_AI void SQ_FN(fold_oct)(sq_cb s, size_t block, int pf, vfloat *lo,
                           vfloat *hi, vmask *nan) {
  vfloat al, ah, bl, bh;
  SQ_FN(fold_quad)(s, block, pf, &al, &ah, nan);
  SQ_FN(fold_quad)(s + 16 * block, block, pf, &bl, &bh, nan);
  *lo = vf_min(vf_even128(al, bl), vf_odd128(al, bl));
  *hi = vf_max(vf_even128(ah, bh), vf_odd128(ah, bh));
}

/* SQ_W blocks of SQ_W floats or more at s, into mn[0..SQ_W) and
** mx[0..SQ_W): each folded lane-wise, all reduced together (lane j of rmin
** is block j's minimum).  Only the value: a zero extreme is scalar's first
** occurrence, the first zero of its block.  Returns 0, or 1 if a value is
** not finite (mn and mx then untouched). */
SQ_AI int SQ_FN(mmb_group)(sq_cb s, size_t block, int pf, float *mn,
                           float *mx) {
  const vfloat zero = vf_zero();
  vfloat rmin, rmax;
  vmask nan = vm_none();
  SQ_FN(fold_oct)(s, block, pf, &rmin, &rmax, &nan);
  if (SQ_W == 16) {       /* two groups of eight, one more halving */
    vfloat l1, h1;
    SQ_FN(fold_oct)(s + 32 * block, block, pf, &l1, &h1, &nan);
    rmin = vf_min(vf_even128(rmin, l1), vf_odd128(rmin, l1));
    rmax = vf_max(vf_even128(rmax, h1), vf_odd128(rmax, h1));
  }
  vmask inf = vm_or(vf_cmp(rmin, vf_set1(-__builtin_inff()), _CMP_EQ_OQ),
                    vf_cmp(rmax, vf_set1(__builtin_inff()), _CMP_EQ_OQ));
  if (vm_any(vm_or(nan, inf))) return 1;
  vf_store(mn, rmin);
  vf_store(mx, rmax);
  unsigned zl = vm_bits(vf_cmp(rmin, zero, _CMP_EQ_OQ));
  unsigned zh = vm_bits(vf_cmp(rmax, zero, _CMP_EQ_OQ));
  for (unsigned z = zl | zh; z; z &= z - 1) {
    unsigned j = (unsigned)__builtin_ctz(z);
    float f = sq_first_zero(s + 4 * j * block, block);
    if (zl >> j & 1) mn[j] = f;
    if (zh >> j & 1) mx[j] = f;
  }
  return 0;
}

/* Blocks SQ_W at a time: with prefetching while SQ_PF_DIST ahead is still in
** the input, then without.  Returns the index of the first non-finite
** element, or n; *done is the number of blocks written. */
SQ_AI size_t SQ_FN(mmb_body)(sq_cb p, size_t n, size_t block, float *mn,
                             float *mx, size_t *done) {
  size_t nb = n / block, g = 0;
  size_t gb = 4 * SQ_W * block;                 /* bytes per group */
  for (; g + SQ_W <= nb && 4 * g * block + gb + SQ_PF_DIST <= 4 * n; g += SQ_W)
    if (SQ_FN(mmb_group)(p + 4 * g * block, block, 1, mn + g, mx + g))
      return g * block + sq_first_nonfinite(p + 4 * g * block, SQ_W * block);
  for (; g + SQ_W <= nb; g += SQ_W)
    if (SQ_FN(mmb_group)(p + 4 * g * block, block, 0, mn + g, mx + g))
      return g * block + sq_first_nonfinite(p + 4 * g * block, SQ_W * block);
  *done = g;
  return n;
}

/* Which blocks take the vector kernel, measured: AVX2, 8 floats or more
** (narrower, scalar's loop beat one vector minmax call per block: block 4
** from memory 3.2x against 11.8x memcpy); AVX-512, 64 or more, narrower ones
** AVX2's (with one or two 64-byte vectors per block, the 16-block reduction
** (512-bit shuffles, split loads on unaligned data) cost more than AVX2's:
** block 32 from memory ran at 0.61x-0.69x memcpy against 0.42x-0.48x for
** AVX2's (Zen 4); from 64 floats up this kernel was as fast or faster, 0.47x
** against 0.65x at 64).  The common widths have a constant vector count and
** unroll fully. */
static size_t SQ_FN(minmax_blocks)(const void *x, size_t n, size_t block,
                                   float *mn, float *mx) {
  sq_cb p = x;
  if (block < (SQ_W == 8 ? 8 : 64) || (_mm_getcsr() & 0x40))
    return (SQ_W == 8 ? &sq_kernels_scalar : &sq_kernels_avx2)
        ->minmax_blocks(x, n, block, mn, mx);
  size_t b = 0, r;
  switch (block) {
    case 8: r = SQ_FN(mmb_body)(p, n, 8, mn, mx, &b); break;
    case 16: r = SQ_FN(mmb_body)(p, n, 16, mn, mx, &b); break;
    case 32: r = SQ_FN(mmb_body)(p, n, 32, mn, mx, &b); break;
    case 64: r = SQ_FN(mmb_body)(p, n, 64, mn, mx, &b); break;
    case 128: r = SQ_FN(mmb_body)(p, n, 128, mn, mx, &b); break;
    default: r = SQ_FN(mmb_body)(p, n, block, mn, mx, &b); break;
  }
  if (r < n) return r;
  /* the blocks left (fewer than SQ_W, and the short one), one minmax each */
  for (size_t start = b * block; start < n; start += block, b++) {
    size_t len = n - start < block ? n - start : block;
    size_t bad = SQ_FN(minmax)(p + 4 * start, len, &mn[b], &mx[b]);
    if (bad < len) return start + bad;
  }
  return n;
}

#undef SQ_PF_DIST
#undef SQ_MM_GRAIN
