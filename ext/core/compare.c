/*
** compare.c: quantization schemes for q_compare (docs/NUMERICS.md#scheme-costs).
**
** A scheme is dtype x {affine, symmetric} x {tensor, channel along an axis,
** blocks of B along rows} x calibration method, or one of ggml's block
** formats.  Rules:
**   1. Blocks (and ggml's blocks) run along rows of the flattened view
**      [shape[0], product of the other dims] (a 1-D tensor is one row), as
**      LLM formats and ggml store weights: a [64,3,3,3] conv weight is
**      [64,27], never blocks of its last axis of 3.
**   2. A block longer than its row is one block per row: the candidate
**      carries its real size (27) and says "(whole row)"; block sizes that
**      come to the same effective size are one candidate (the first asked
**      for), and a whole-row block is no candidate where it is the same
**      scheme as one already listed: per-channel(0) (2 or more dimensions,
**      axis 0) or per-tensor (one row).
**   3. A ggml type whose block does not divide the row cannot store the
**      tensor and is no candidate for it (no row, no error).
**   4. An integer scheme's round trip is never stored: piece by piece it
**      stays in cache and goes into the error lanes (one pass over x per
**      candidate); the sums equal error_sums over the whole round trip.
** Its result is the round trip's error sums and what it costs to store:
**   bits_per_weight = (n * code_bits + groups * param_bits) / n, where a group
**   stores a float32 scale and, for affine schemes, a zero point in the code
**   dtype (symmetric zero points are implied and cost nothing);
**   bytes = ceil(n * code_bits / 8) + groups * 4
**           + (affine ? ceil(groups * code_bits / 8) : 0);
**   a ggml type stores its blocks and nothing else: bytes = blocks x bytes
**   per block, bits_per_weight = 8 x bytes per block / block (q4_K 4.5).
*/
#include <string.h>
#include "core/calibrate.h"
#include "core/compare.h"
#include "core/ggml_quant.h"
#include "core/log2.h"
#include "core/quantize.h"
#include "core/text.h"
#include "kernels/bnb4.h"
#include "kernels/ggml_lowbit.h"

#define SQ_LIST_MAX 16      /* entries per option list */
#define SQ_WORD_MAX 24

/* Splits "a+b|c" into up to SQ_LIST_MAX words. */
static int sq_split_list(const char *text, char items[][SQ_WORD_MAX],
                         const char *what, sq_status *st) {
  int n = 0;
  const char *p = text;
  while (*p) {
    const char *w = p;
    while (*p && *p != '+' && *p != '|') p++;
    size_t len = (size_t)(p - w);
    if (len == 0 || len >= SQ_WORD_MAX || n == SQ_LIST_MAX)
      return sq_fail(st, "option %s is not a list of names joined by '+', got '%.40s'",
                     what, text);
    memcpy(items[n], w, len);
    items[n][len] = 0;
    n++;
    if (*p && !*++p)
      return sq_fail(st, "option %s is not a list of names joined by '+', got '%.40s'",
                     what, text);
  }
  return n;
}

/* Each candidate is one row: a list naming the same thing twice (by any
** spelling) is a mistake, and refusing it bounds the table. */
static int sq_twice(const char *what, const char *item, sq_status *st) {
  return sq_fail(st, "option %s names '%s' twice", what, item);
}

/* The view blocks run along: [shape[0], n / shape[0]] for 2 or more
** dimensions, [1, n] for fewer (one row). */
static void sq_scheme_rows(const sq_shape *shape, size_t n, sq_shape *rows) {
  rows->ndim = 2;
  rows->dim[0] = shape->ndim >= 2 ? shape->dim[0] : 1;
  rows->dim[1] = rows->dim[0] ? (int64_t)(n / (size_t)rows->dim[0]) : 0;
  rows->count = n;
}

/* Item i of option bnb4: nf4 or fp4 (any case), block 64, or TYPE@B with B
** a power of two from 32 to 4096; an item named twice is an error. */
static int sq_bnb4_candidate(char items[][SQ_WORD_MAX], int i, int *type,
                             int64_t *block, sq_status *st) {
  const char *w = items[i], *at = strchr(w, '@');
  size_t len = at ? (size_t)(at - w) : strlen(w);
  if (sq_word_is(w, len, "nf4")) *type = SQ_BNB4_NF4;
  else if (sq_word_is(w, len, "fp4")) *type = SQ_BNB4_FP4;
  else
    return sq_fail(st, "option bnb4: unknown type '%s' (expected nf4 or fp4, "
                       "or with a block size: nf4@128)", w);
  *block = 64;
  if (at && (!sq_parse_int(at + 1, strlen(at + 1), block) ||
             *block < SQ_BNB4_MIN_BLOCK || *block > SQ_BNB4_MAX_BLOCK ||
             (*block & (*block - 1))))
    return sq_fail(st, "option bnb4: block size must be a power of two from 32 "
                       "to 4096, got '%s'", w);
  for (int j = 0; j < i; j++) {
    int t2;
    int64_t b2;
    sq_bnb4_candidate(items, j, &t2, &b2, st);
    if (t2 == *type && b2 == *block) return sq_twice("bnb4", w, st);
  }
  return SQ_OK;
}

int sq_scheme_candidates(const sq_options *o, const sq_shape *shape,
                         int64_t axis, sq_scheme **out, size_t *count,
                         sq_status *st) {
  char dt[SQ_LIST_MAX][SQ_WORD_MAX], sc[SQ_LIST_MAX][SQ_WORD_MAX],
      bl[SQ_LIST_MAX][SQ_WORD_MAX], me[SQ_LIST_MAX][SQ_WORD_MAX],
      gg[SQ_LIST_MAX][SQ_WORD_MAX], bb[SQ_LIST_MAX][SQ_WORD_MAX];
  int ndt = sq_split_list(o->dtypes[0] ? o->dtypes : "int8+int4", dt, "dtypes", st);
  int nsc = st->code ? 0
            : sq_split_list(o->schemes[0] ? o->schemes : "affine+symmetric", sc,
                            "schemes", st);
  int nbl = st->code ? 0 : sq_split_list(o->blocks[0] ? o->blocks : "32+128", bl,
                                          "blocks", st);
  int nme = st->code ? 0 : sq_split_list(o->methods[0] ? o->methods : "minmax", me,
                                          "methods", st);
  int ngg = st->code || !o->ggml[0] ? 0 : sq_split_list(o->ggml, gg, "ggml", st);
  int nbb = st->code || !o->bnb4[0] ? 0 : sq_split_list(o->bnb4, bb, "bnb4", st);
  if (st->code) return st->code;
  /* dtypes=none leaves only the ggml and bnb4 candidates. */
  if (ndt == 1 && sq_word_is(dt[0], strlen(dt[0]), "none")) ndt = 0;
  const sq_dtype *dtypes[SQ_LIST_MAX];
  for (int i = 0; i < ndt; i++) {
    if (!(dtypes[i] = sq_dtype_find(dt[i], SQ_DTYPES_CODES, st))) return st->code;
    for (int j = 0; j < i; j++)
      if (dtypes[j] == dtypes[i]) return sq_twice("dtypes", dtypes[i]->name, st);
  }
  sq_shape flat;
  sq_scheme_rows(shape, (size_t)shape->count, &flat);
  const int64_t row = flat.dim[1];
  const int axis0 = axis == 0 || axis == -(int64_t)shape->ndim;
  int64_t blocks[SQ_LIST_MAX];
  int nblocks = 0, no_blocks = 0, nblocks_eff = 0;
  int64_t eff[SQ_LIST_MAX];
  for (int i = 0; i < nbl; i++) {
    if (sq_word_is(bl[i], strlen(bl[i]), "none")) {
      if (no_blocks++) return sq_twice("blocks", "none", st);
      continue;
    }
    int64_t v;
    if (!sq_parse_int(bl[i], strlen(bl[i]), &v) || v < 1)
      return sq_fail(st, "option blocks needs positive block sizes, got '%s'", bl[i]);
    for (int j = 0; j < nblocks; j++)
      if (blocks[j] == v) return sq_twice("blocks", bl[i], st);
    blocks[nblocks++] = v;
    /* Rule 2: one candidate per effective block size; a whole-row block
    ** that is the per-tensor or per-channel(0) candidate is that one. */
    int64_t e = v > row ? row : v;
    int seen = e == row && (flat.dim[0] == 1 || (shape->ndim >= 2 && axis0));
    for (int j = 0; j < nblocks_eff; j++) seen |= eff[j] == e;
    if (!seen && e > 0) eff[nblocks_eff++] = e;
  }
  int methods[SQ_LIST_MAX], symm[SQ_LIST_MAX];
  sq_names valid;
  for (int i = 0; i < nme; i++) {
    if (!sq_method_parse(me[i], strlen(me[i]), &methods[i])) {
      sq_names_begin(&valid);
      sq_method_names(&valid);
      return sq_fail(st, "option methods: unknown method '%s' (expected %s)",
                     me[i], sq_names_join(&valid, ", ", " or "));
    }
    for (int j = 0; j < i; j++)
      if (methods[j] == methods[i]) return sq_twice("methods", me[i], st);
  }
  for (int i = 0; i < nsc; i++) {
    if (!sq_scheme_parse(sc[i], strlen(sc[i]), &symm[i])) {
      sq_names_begin(&valid);
      sq_scheme_names(&valid);
      return sq_fail(st, "option schemes: unknown scheme '%s' (expected %s)",
                     sc[i], sq_names_join(&valid, ", ", " or "));
    }
    for (int j = 0; j < i; j++)
      if (symm[j] == symm[i]) return sq_twice("schemes", sc[i], st);
  }
  sq_ggml_type ggml[SQ_LIST_MAX];
  int mx[SQ_LIST_MAX];
  for (int i = 0; i < ngg; i++) {
    sq_status quiet = *st;
    /* TYPE, or mxfp4@RULE: mxfp4 under a shared-exponent rule of
    ** mx_exponent's (docs/NUMERICS.md#mx-shared-exponent-rules). */
    const char *at = strchr(gg[i], '@');
    size_t tl = at ? (size_t)(at - gg[i]) : strlen(gg[i]);
    if (sq_ggml_type_parse(gg[i], tl, &ggml[i], &quiet)) {
      sq_names_begin(&valid);
      sq_ggml_type_names(&valid);
      return sq_fail(st, "option ggml: unknown ggml type '%s' (expected %s)",
                     gg[i], sq_names_join(&valid, ", ", " or "));
    }
    mx[i] = SQ_MX_GGML;
    if (at) {
      if (ggml[i] != SQ_GGML_MXFP4)
        return sq_fail(st, "option ggml: only mxfp4 takes an exponent rule "
                           "(mxfp4@ocp), got '%s'", gg[i]);
      int r = 0;
      while (r < SQ_MX_NRULES && strcmp(at + 1, sq_mx_rule_name(r))) r++;
      if (r == SQ_MX_NRULES) {
        sq_names_begin(&valid);
        sq_mx_rule_names(&valid);
        return sq_fail(st, "option ggml: unknown exponent rule in '%s' "
                           "(expected mxfp4@ followed by %s)",
                       gg[i], sq_names_join(&valid, ", ", " or "));
      }
      mx[i] = r;
    }
    for (int j = 0; j < i; j++)
      if (ggml[j] == ggml[i] && mx[j] == mx[i]) return sq_twice("ggml", gg[i], st);
    /* q_compare takes no importance, and ggml quantizes these types only
    ** with it (iq2_xxs, iq2_xs, iq1_s). */
    if (sq_ggml_formats[ggml[i]].needs_importance)
      return sq_fail(st, "option ggml: %s needs importance, which q_compare "
                         "does not take", sq_ggml_formats[ggml[i]].name);
  }
  int bnb4[SQ_LIST_MAX];
  int64_t bnb4_block[SQ_LIST_MAX];
  for (int i = 0; i < nbb; i++)
    if (sq_bnb4_candidate(bb, i, &bnb4[i], &bnb4_block[i], st)) return st->code;
  size_t grans = 2 + (size_t)nblocks_eff;
  size_t max = (size_t)ndt * grans * (size_t)nsc * (size_t)nme + (size_t)ngg +
               (size_t)nbb;
  if (max == 0) return sq_fail(st, "options leave no candidate scheme");
  sq_scheme *cands = sq_alloc(st, max, sizeof *cands);
  if (!cands) return st->code;
  size_t n = 0;
  for (int d = 0; d < ndt; d++) {
    for (size_t g = 0; g < grans; g++) {
      sq_granularity_kind gran = g == 0 ? SQ_GRAN_TENSOR
                                 : g == 1 ? SQ_GRAN_CHANNEL : SQ_GRAN_BLOCK;
      if (gran == SQ_GRAN_CHANNEL && shape->ndim < 2) continue;
      for (int s = 0; s < nsc; s++)
        for (int m = 0; m < nme; m++)
          /* log2 codes exist only as int8 and int4 */
          if (symm[s] != SQ_SCHEME_LOG2 || sq_log2_dtype_ok(dtypes[d]))
          cands[n++] = (sq_scheme){dtypes[d], 0, 0, symm[s], gran, axis,
                                   gran == SQ_GRAN_BLOCK ? eff[g - 2] : 0,
                                   methods[m],
                                   gran == SQ_GRAN_BLOCK && eff[g - 2] == row,
                                   SQ_MX_GGML};
    }
  }
  for (int i = 0; i < ngg; i++) {
    int64_t b = (int64_t)sq_ggml_formats[ggml[i]].block;
    if (row % b != 0) continue;         /* rule 3 */
    cands[n++] = (sq_scheme){NULL, 1 + (int)ggml[i], 0, 1, SQ_GRAN_BLOCK, -1, b,
                             SQ_METHOD_MINMAX, b == row, mx[i]};
  }
  for (int i = 0; i < nbb; i++)
    cands[n++] = (sq_scheme){NULL, 0, 1 + bnb4[i], 1, SQ_GRAN_BLOCK, -1,
                             bnb4_block[i], SQ_METHOD_MINMAX, 0, SQ_MX_GGML};
  *out = cands;
  *count = n;
  return SQ_OK;
}

int sq_scheme_granularity(const sq_shape *shape, size_t n, const sq_scheme *s,
                          sq_granularity *g, sq_status *st) {
  sq_shape flat;
  sq_scheme_rows(shape, n, &flat);
  if (s->ggml) return sq_ggml_granularity(s->ggml - 1, &flat, n, g, st);
  if (s->granularity == SQ_GRAN_TENSOR) {
    sq_granularity_tensor(n, g);
    return SQ_OK;
  }
  if (s->granularity == SQ_GRAN_CHANNEL)
    return sq_granularity_channel(shape, s->axis, g, st);
  return sq_granularity_block(&flat, -1, s->block, g, st);
}

/* A ggml type's round trip: its blocks, read back into scratch. */
static int sq_ggml_eval(const sq_kernels *k, const sq_tensor *x,
                        const sq_shape *shape, sq_ggml_type t, int mx,
                        void *scratch, sq_scheme_result *res, sq_status *st) {
  sq_granularity g;
  uint64_t bytes;
  void *blocks;
  sq_shape flat;
  sq_scheme_rows(shape, x->n, &flat);
  if (sq_ggml_granularity(t, &flat, x->n, &g, st) ||
      sq_ggml_size(t, &g, &bytes, st) || !(blocks = sq_alloc(st, bytes, 1)))
    return st->code;
  if (!(mx != SQ_MX_GGML ? sq_ggml_quantize_mx(k, mx, x, &g, blocks, st)
                         : sq_ggml_quantize(k, t, x, &g, NULL, blocks, st))) {
    sq_ggml_dequantize(k, t, blocks, x->n, scratch);
    k->error_sums(x->data, scratch, x->n, &res->sums);
    res->groups = g.groups;
    res->bits_per_weight = sq_ggml_bits_per_weight(t);
    res->bytes = bytes;
  }
  sqlite3_free(blocks);
  return st->code;
}

/* bitsandbytes' NF4 or FP4 over the flat tensor: its codes and absmax,
** read back into scratch.  It stores (n + 1) / 2 bytes of codes and a
** float32 per block. */
static int sq_bnb4_eval(const sq_kernels *k, const sq_tensor *x,
                        const sq_scheme *s, void *scratch,
                        sq_scheme_result *res, sq_status *st) {
  size_t block = (size_t)s->block;
  size_t groups = x->n / block + (x->n % block != 0);
  uint64_t code_bytes = (uint64_t)x->n / 2 + (x->n & 1);
  unsigned char *codes = sq_alloc(st, code_bytes + 4 * (uint64_t)groups, 1);
  if (!codes) return st->code;
  unsigned char *absmax = codes + code_bytes;
  sq_bnb4_type t = (sq_bnb4_type)(s->bnb4 - 1);
  sq_bnb4_quantize(t, x->data, x->n, block, codes, absmax);
  sq_bnb4_dequantize(t, codes, absmax, x->n, block, scratch);
  k->error_sums(x->data, scratch, x->n, &res->sums);
  res->groups = groups;
  res->bits_per_weight = (4.0 * (double)x->n + 32.0 * (double)groups) / (double)x->n;
  res->bytes = code_bytes + 4 * (uint64_t)groups;
  sqlite3_free(codes);
  return SQ_OK;
}

int sq_scheme_eval(const sq_kernels *k, const sq_tensor *x, const sq_shape *shape,
                   const sq_scheme *s, const sq_options *o, const float *minmax,
                   void *scratch, sq_scheme_result *res, sq_status *st) {
  if (s->ggml) return sq_ggml_eval(k, x, shape, s->ggml - 1, s->mx, scratch, res, st);
  if (s->bnb4) return sq_bnb4_eval(k, x, s, scratch, res, st);
  if (s->symmetric == SQ_SCHEME_LOG2)
    return sq_log2_scheme_eval(k, x, shape, s, o, minmax, scratch, res, st);
  sq_range r;
  sq_options so = *o;
  sq_granularity g;
  so.method = s->method;
  if (sq_range_resolve(s->dtype, &so, &r, st) ||
      sq_scheme_granularity(shape, x->n, s, &g, st))
    return st->code;
  size_t groups = g.groups;
  sq_param_set ps = {0};
  /* Shared ranges are used as they are; others are calibrated here. */
  float *mm = NULL;
  const float *ranges = minmax;
  if (!ranges) {
    if (!(mm = sq_alloc(st, groups, 2 * sizeof *mm)) ||
        sq_ranges(k, x, &g, &r, s->symmetric, &so, mm, mm + groups, st))
      goto done;
    ranges = mm;
  }
  /* One pass over x per candidate: each piece's round trip stays in cache
  ** and goes straight into the error lanes (no tensor-sized scratch). */
  sq_error_lanes acc;
  memset(&acc, 0, sizeof acc);
  if (sq_param_set_choose(ranges, ranges + groups, groups, &r, s->symmetric,
                          so.rounding, &ps, st) ||
      sq_fake_quantize_errors(k, x, &g, &r, &ps, &acc, st))
    goto done;
  sq_error_lanes_total(&acc, &res->sums);
  int bits = s->dtype->bits;
  int affine = !s->symmetric;
  double n = (double)x->n;
  res->groups = groups;
  res->bits_per_weight =
      (n * bits + (double)groups * (32 + (affine ? bits : 0))) / n;
  res->bytes = ((uint64_t)x->n * (uint64_t)bits + 7) / 8 + (uint64_t)groups * 4 +
               (affine ? ((uint64_t)groups * (uint64_t)bits + 7) / 8 : 0);
done:
  sq_param_set_free(&ps);
  sqlite3_free(mm);
  return st->code;
}
