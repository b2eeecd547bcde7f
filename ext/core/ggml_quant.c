/*
** ggml_quant.c: ggml's block formats over a tensor (docs/NUMERICS.md#ggml).
*/
#include <string.h>
#include "core/ggml_quant.h"
#include "core/text.h"
#include "kernels/byteorder.h"
#include "kernels/ggml_lowbit.h"

int sq_ggml_type_parse(const char *text, size_t len, sq_ggml_type *t,
                       sq_status *st) {
  for (int i = 0; i < SQ_GGML_NTYPES; i++) {
    if (sq_word_is(text, len, sq_ggml_formats[i].name)) {
      *t = (sq_ggml_type)i;
      return SQ_OK;
    }
  }
  sq_names valid;
  sq_names_begin(&valid);
  sq_ggml_type_names(&valid);
  return sq_fail(st, "unknown ggml type '%.*s' (expected %s)",
                 len > 40 ? 40 : (int)len, text,
                 sq_names_join(&valid, ", ", " or "));
}

void sq_ggml_type_names(sq_names *l) {
  for (int i = 0; i < SQ_GGML_NTYPES; i++) sq_names_add(l, sq_ggml_formats[i].name);
}

double sq_ggml_bits_per_weight(sq_ggml_type t) {
  const sq_ggml_format *f = &sq_ggml_formats[t];
  return 8.0 * (double)f->bytes / (double)f->block;
}

int sq_ggml_granularity(sq_ggml_type t, const sq_shape *s, size_t n,
                        sq_granularity *g, sq_status *st) {
  const sq_ggml_format *f = &sq_ggml_formats[t];
  size_t cols = s ? (size_t)s->dim[s->ndim - 1] : n;
  if (cols % f->block != 0)
    return sq_fail(st, "%s %zu element%s, not a whole number of %zu-element "
                       "%s blocks",
                   s ? "rows (the last dimension of shape) have"
                     : "x is one row of",
                   cols, cols == 1 ? "" : "s", f->block, f->name);
  if (!s) {
    /* One row: the shape [n]. */
    sq_shape row = {1, {(int64_t)n}, n};
    if (n == 0) {
      sq_granularity_tensor(0, g);
      return SQ_OK;
    }
    return sq_granularity_block(&row, -1, (int64_t)f->block, g, st);
  }
  return sq_granularity_block(s, -1, (int64_t)f->block, g, st);
}

int sq_ggml_size(sq_ggml_type t, const sq_granularity *g, uint64_t *bytes,
                 sq_status *st) {
  size_t n = sq_granularity_count(g);
  return sq_size(st, n / sq_ggml_formats[t].block, sq_ggml_formats[t].bytes,
                 bytes);
}

int sq_ggml_check_importance(const sq_tensor *w, size_t cols, sq_status *st) {
  if (w->n != cols)
    return sq_fail(st, "importance has %zu weight%s, expected %zu (one per "
                       "column)", w->n, w->n == 1 ? "" : "s", cols);
  const unsigned char *p = w->data;
  for (size_t i = 0; i < w->n; i++) {
    float v = sq_load_f32(p + 4 * i);
    if (v != v || v - v != 0.0f)
      return sq_fail(st, "importance weight %zu is %s", i,
                     v != v ? "NaN" : v > 0 ? "inf" : "-inf");
    if (v < 0.0f) {
      char buf[32];
      sq_format_f32(v, buf);
      return sq_fail(st, "importance weight %zu is negative, got %s", i, buf);
    }
  }
  return SQ_OK;
}

typedef struct sq_ggml_job {
  const sq_kernels *k;
  sq_ggml_quantize_fn fn;
  sq_ggml_quantize_checked_fn checked;  /* fn that checks x itself, or NULL */
  sq_ggml_type t;
  const unsigned char *x;
  const void *w;
  unsigned char *blocks;
  int mx_rule;              /* mxfp4 only: SQ_MX_*, 0 ggml's own */
} sq_ggml_job;

/* Floats per kernel call when a row may be cut: 32 KB, which the finiteness
** check leaves in L1 or L2 for the kernel to read again, and a multiple of
** every type's block (32 to 256). */
#define SQ_GGML_SPAN 8192

/* A piece is a run of whole blocks of one row: its first block's group
** number is where its bytes go.  It is checked for NaN and inf as it is
** quantized, not in a pass of its own over the whole tensor: by the
** kernel's own loads where the path has a checking kernel for the type,
** else by minmax just before the kernel reads it (still in cache).  Pieces
** come in element order and each is checked before any later one is read,
** so the element an error names is still the tensor's first non-finite one
** (the message is sq_tensor_minmax's). */
static int sq_ggml_row(void *ctx, const sq_piece *p, sq_status *st) {
  const sq_ggml_job *j = ctx;
  const unsigned char *x = j->x + 4 * p->first;
  unsigned char *out = j->blocks + p->group * sq_ggml_formats[j->t].bytes;
  float mn, mx;
  if (j->checked) {
    size_t bad = j->checked(x, p->cols, j->w, out);
    /* minmax of that one element words the error */
    if (bad < p->cols)
      return sq_tensor_minmax(j->k, x + 4 * bad, 1, p->first + bad, &mn, &mx, st);
    return SQ_OK;
  }
  if (sq_tensor_minmax(j->k, x, p->cols, p->first, &mn, &mx, st))
    return st->code;
  if (j->mx_rule != SQ_MX_GGML)
    sq_mx_quantize(j->mx_rule, x, p->cols, out);
  else
    j->fn(x, p->cols, j->w, out);
  return SQ_OK;
}

static int sq_ggml_run(const sq_kernels *k, sq_ggml_type t, const sq_tensor *x,
                       const sq_granularity *g, const sq_tensor *w,
                       int unweighted, int mx_rule, void *blocks,
                       sq_status *st) {
  float mn, mx;
  if (x->n == 0) return SQ_OK;
  /* The iq3 lattices, built once per process (kernels/ggml_iq.h).  When
  ** that fails, NaN and inf are still reported first, as they were when
  ** the whole tensor was checked before anything else. */
  if (sq_ggml_prepare(t)) {
    if (sq_tensor_minmax(k, x->data, x->n, 0, &mn, &mx, st)) return st->code;
    return sq_nomem(st);
  }
  sq_ggml_job j = {k,
                   unweighted ? sq_ggml_quantizer_unweighted(k, t)
                              : sq_ggml_quantizer(k, t),
                   mx_rule == SQ_MX_GGML ? sq_ggml_checked_quantizer(k, t, unweighted)
                                         : NULL,
                   t, x->data, w ? w->data : NULL, blocks, mx_rule};
  /* Without importance every kernel quantizes each block (or super-block)
  ** of a row on its own, so a long row may go in spans of whole blocks
  ** (tests/kernel_test.c checks that every path's bytes are the same); with
  ** it the legacy types weigh by the whole row's mean square, and the
  ** weights are indexed from the row's first column: one call per row. */
  return sq_granularity_walk(g, w ? 0 : SQ_GGML_SPAN, sq_ggml_row, &j, st);
}

int sq_ggml_quantize(const sq_kernels *k, sq_ggml_type t, const sq_tensor *x,
                     const sq_granularity *g, const sq_tensor *w, void *blocks,
                     sq_status *st) {
  return sq_ggml_run(k, t, x, g, w, 0, SQ_MX_GGML, blocks, st);
}

int sq_ggml_quantize_unweighted(const sq_kernels *k, sq_ggml_type t,
                                const sq_tensor *x, const sq_granularity *g,
                                void *blocks, sq_status *st) {
  return sq_ggml_run(k, t, x, g, NULL, 1, SQ_MX_GGML, blocks, st);
}

int sq_ggml_quantize_mx(const sq_kernels *k, int rule, const sq_tensor *x,
                        const sq_granularity *g, void *blocks, sq_status *st) {
  return sq_ggml_run(k, SQ_GGML_MXFP4, x, g, NULL, 0, rule, blocks, st);
}

void sq_ggml_dequantize(const sq_kernels *k, sq_ggml_type t, const void *blocks,
                        size_t n, void *out) {
  if (n) sq_ggml_dequantizer(k, t)(blocks, n, out);
}

int sq_ggml_count(sq_ggml_type t, size_t nbytes, int64_t count, size_t *n,
                  sq_status *st) {
  const sq_ggml_format *f = &sq_ggml_formats[t];
  if (nbytes % f->bytes != 0)
    return sq_fail(st, "blocks has %zu byte%s, not a whole number of %zu-byte "
                       "%s blocks", nbytes, nbytes == 1 ? "" : "s", f->bytes,
                   f->name);
  *n = nbytes / f->bytes * f->block;
  if (count >= 0 && (uint64_t)count != *n)
    return sq_fail(st, "count %lld does not match the %zu weight%s of the %s "
                       "blocks", (long long)count, *n, *n == 1 ? "" : "s",
                   f->name);
  return SQ_OK;
}

int sq_ggml_check_shape(sq_ggml_type t, const sq_shape *s, size_t n,
                        sq_granularity *g, sq_status *st) {
  if (s->count != n)
    return sq_fail(st, "shape holds %llu element%s but the %s blocks hold "
                       "%zu weight%s", (unsigned long long)s->count,
                   s->count == 1 ? "" : "s", sq_ggml_formats[t].name, n,
                   n == 1 ? "" : "s");
  return sq_ggml_granularity(t, s, n, g, st);
}

/* This file's own (the amalgamation reads every source into one unit). */
#undef SQ_GGML_SPAN
