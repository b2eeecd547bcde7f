/*
** ggml_functions.c: ggml's block formats in SQL (docs/NUMERICS.md#ggml).
**
**   q_ggml_quantize(x, type [, shape [, importance]] [, options])
**                                                        blocks BLOB
**   q_ggml_dequantize(blocks, type [, shape])            float32 BLOB
**   q_importance_agg(activations, columns)               float32 BLOB
**   SELECT * FROM q_ggml_types                           one row per type
**
** Rules:
**   1. type is ggml's name (q_ggml_types lists them: q4_0, q4_K, mxfp4 ...)
**      in any case;
**   2. without shape x is one row; with it, rows run along the last
**      dimension, which must be a whole number of the type's blocks;
**   3. importance is llama.cpp's imatrix for the tensor: one weight per
**      column (shape[-1]), finite and >= 0, as a float32 BLOB or JSON; with
**      it the result is ggml's weighted quantization, without it ggml's
**      reference quantization (quantize_row_<type>_ref).  The text 'none'
**      there is ggml's quantize_<type>(x, .., NULL) instead, what llama.cpp's
**      quantizer writes without an imatrix: the same bytes for every type
**      but iq4_nl.  The types ggml quantizes only with importance
**      (q_ggml_types.needs_importance) are an error without it;
**   4. blocks must be a BLOB of whole blocks; shape, when given, is the
**      shape q_ggml_quantize took: it must hold exactly the blocks' weights,
**      its rows whole blocks (rule 2).  A number there is the count of
**      0.2.0, which must equal the weights;
**   5. q_importance_agg: each row is a batch of activations, rows x columns
**      floats (row-major); the result is the mean over every row of every
**      batch of the squared activation, per column.  The sums are exact
**      (core/square_sum.h), so the result depends only on the rows in the
**      frame: a sliding window frame removes the leaving batch exactly.  A
**      mean beyond float32 is an error.  NULL rows are skipped; no rows
**      gives NULL;
**   6. NULL in any argument of the scalar functions gives NULL;
**   7. options (q_ggml_quantize) come last: text that is not a JSON array
**      (shape and importance are) nor the importance 'none', or the fifth
**      argument.  The keys are
**      mx_exponent=ggml|ocp|torchao-rceil|torchao-ceil|torchao-even|mlx, the
**      shared-exponent rule of mxfp4 blocks, for mxfp4 only; ggml (the
**      default) is ggml's (docs/NUMERICS.md#mx-shared-exponent-rules); and
**      importance=none, the same as the importance 'none' (rule 3), which
**      then must not be given as well;
**   8. q_ggml_quantize's blocks carry their type's own subtype, as do a
**      GGUF file's; q_ggml_dequantize (and q_f32) refuse blocks whose
**      subtype names another type.  Blocks without one (read back from a
**      table) are taken as the type given
**      (docs/reference/data-formats.md#subtypes).
*/
#include <string.h>
#include "sql/sql.h"
#include "core/ggml_quant.h"
#include "core/square_sum.h"
#include "core/text.h"
#include "kernels/byteorder.h"
#include "kernels/ggml_lowbit.h"

static int sq_arg_ggml_type(sqlite3_value *v, sq_ggml_type *t, sq_status *st) {
  const char *text = sq_arg_text(v, "type", st);
  if (!text) return st->code;
  return sq_ggml_type_parse(text, (size_t)sqlite3_value_bytes(v), t, st);
}

/* Blocks of type t: a BLOB whose subtype names another ggml type (or other
** data) is refused; one without a subtype, or with the generic one that
** q_ggml_quantize set before each type had its own, is taken as t's
** (docs/reference/data-formats.md#subtypes). */
static int sq_arg_ggml_blocks(sqlite3_value *v, const char *argname,
                              sq_ggml_type t, sq_status *st) {
  int have = sq_subtype_ggml_type(sqlite3_value_subtype(v));
  if (have >= 0 && have != (int)t)
    return sq_fail(st, "%s are %s, got type %s", argname,
                   sq_ggml_formats[have].name, sq_ggml_formats[t].name);
  return sq_arg_subtype_is(v, argname, sq_ggml_subtype(t),
                           sq_ggml_formats[t].name, st);
}

/* Is v the importance 'none' (rule 3)? */
static int sq_ggml_is_none(sqlite3_value *v) {
  return sqlite3_value_type(v) == SQLITE_TEXT &&
         sq_word_is((const char *)sqlite3_value_text(v),
                    (size_t)sqlite3_value_bytes(v), "none");
}

/* Options come last, as text that is not a JSON array (shape and importance
** are) nor the importance 'none': argc without them. */
static int sq_ggml_options_at(int argc, sqlite3_value **argv) {
  if (argc < 3) return -1;
  if (argc == 5) return 4;
  sqlite3_value *v = argv[argc - 1];
  if (sqlite3_value_type(v) != SQLITE_TEXT) return -1;
  if (argc == 4 && sq_ggml_is_none(v)) return -1;
  const unsigned char *s = sqlite3_value_text(v);
  if (!s) return -1;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  return *s == '[' ? -1 : argc - 1;
}

static void sq_ggml_quantize_func(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_tensor x = {0}, w = {0};
  sq_shape shape;
  sq_granularity g;
  sq_ggml_type t;
  sq_options o;
  uint64_t nbytes;
  void *out = NULL;
  int opt = sq_ggml_options_at(argc, argv);
  int nargs = opt < 0 ? argc : opt; /* x, type, shape, importance */
  if (sq_arg_tensor(argv[0], "x", &x, &st) ||
      sq_arg_ggml_type(argv[1], &t, &st))
    goto done;
  if (sq_arg_options(argc, argv, opt < 0 ? argc : opt,
                     SQ_OPT_MX_EXPONENT | SQ_OPT_IMPORTANCE, &o, &st))
    goto done;
  if ((o.given & SQ_OPT_MX_EXPONENT) && t != SQ_GGML_MXFP4) {
    sq_fail(&st, "option mx_exponent applies to mxfp4 only, got %s",
            sq_ggml_formats[t].name);
    goto done;
  }
  if (nargs > 2 && (sq_arg_shape(argv[2], &shape, &st) ||
                    sq_shape_check_count(&shape, x.n, &st)))
    goto done;
  if (sq_ggml_granularity(t, nargs > 2 ? &shape : NULL, x.n, &g, &st)) goto done;
  /* importance=none, or the importance 'none': ggml's
  ** quantize_<type>(x, .., NULL) (rules 3 and 7). */
  if (o.importance_none && nargs > 3) {
    sq_fail(&st, "importance is given twice, as option importance=none and "
                 "as an argument, got %s",
            sq_ggml_is_none(argv[3]) ? "'none'" : sq_value_type_name(argv[3]));
    goto done;
  }
  int unweighted = o.importance_none || (nargs > 3 && sq_ggml_is_none(argv[3]));
  int weighted = nargs > 3 && !unweighted;
  if (weighted && (sq_arg_tensor(argv[3], "importance", &w, &st) ||
                   sq_ggml_check_importance(&w, g.len, &st)))
    goto done;
  if (!weighted && sq_ggml_formats[t].needs_importance) {
    sq_fail(&st, "%s needs importance (llama.cpp's imatrix: one weight per "
                 "column, e.g. from q_importance_agg), got none",
            sq_ggml_formats[t].name);
    goto done;
  }
  if (sq_ggml_size(t, &g, &nbytes, &st) || !(out = sq_alloc(&st, nbytes, 1)))
    goto done;
  /* ggml ignores importance for mxfp4 (it was checked all the same). */
  if (o.mx_exponent != SQ_MX_GGML
          ? sq_ggml_quantize_mx(sq_kernels_active(), o.mx_exponent, &x, &g, out, &st)
      : unweighted
          ? sq_ggml_quantize_unweighted(sq_kernels_active(), t, &x, &g, out, &st)
          : sq_ggml_quantize(sq_kernels_active(), t, &x, &g, weighted ? &w : NULL,
                             out, &st))
    goto done;
  sq_result_typed(ctx, out, nbytes, sq_ggml_subtype(t), &st);
  out = NULL;
done:
  sqlite3_free(out);
  sq_tensor_free(&x);
  sq_tensor_free(&w);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

/* The third argument of q_ggml_dequantize: a shape as q_ggml_quantize takes
** it (TEXT), or the older count of weights (a number, rule 4). */
static int sq_arg_ggml_layout(int argc, sqlite3_value **argv, sq_shape *shape,
                              int *has_shape, int64_t *count, sq_status *st) {
  *has_shape = 0;
  *count = -1;
  if (argc < 3) return SQ_OK;
  switch (sqlite3_value_type(argv[2])) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: return sq_arg_count(argc, argv, 2, count, st);
    case SQLITE_TEXT:
      *has_shape = 1;
      return sq_arg_shape(argv[2], shape, st);
  }
  return sq_fail(st, "shape must be a JSON array of positive integers (or "
                     "count an integer), got %s", sq_value_type_name(argv[2]));
}

static void sq_ggml_dequantize_func(sqlite3_context *ctx, int argc,
                                    sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_ggml_type t;
  sq_shape shape;
  sq_granularity g;
  int has_shape;
  int64_t count;
  size_t n;
  void *out;
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
    sq_fail(&st, "blocks must be a BLOB, got %s",
            sqlite3_value_type(argv[0]) == SQLITE_TEXT ? "TEXT"
            : sqlite3_value_type(argv[0]) == SQLITE_INTEGER ? "INTEGER"
                                                            : "REAL");
  } else if (!sq_arg_ggml_type(argv[1], &t, &st) &&
             !sq_arg_ggml_blocks(argv[0], "blocks", t, &st) &&
             !sq_arg_ggml_layout(argc, argv, &shape, &has_shape, &count,
                                 &st)) {
    const void *blocks = sqlite3_value_blob(argv[0]);
    size_t nbytes = (size_t)sqlite3_value_bytes(argv[0]);
    if (nbytes && !blocks) {
      sq_nomem(&st);
    } else if (!sq_ggml_count(t, nbytes, count, &n, &st) &&
               /* The same shape q_ggml_quantize took for these blocks. */
               !(has_shape && sq_ggml_check_shape(t, &shape, n, &g, &st)) &&
               (out = sq_alloc(&st, n, 4))) {
      sq_ggml_dequantize(sq_kernels_active(), t, blocks, n, out);
      sq_result_typed(ctx, out, (uint64_t)n * 4, SQ_SUBTYPE_F32, &st);
    }
  }
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

/* ---- q_importance_agg ----------------------------------------------------- */

typedef struct sq_importance {
  sq_status failed;         /* a step's error, repeated (see sq_agg_state) */
  int64_t columns;          /* from the first row */
  sq_square_sum *sum;       /* per column, sized after the first row was
                            ** checked */
  uint64_t rows;
  uint64_t unnormalized;    /* rows added or removed since the bins were
                            ** last carried (square_sum.h: below 2^30) */
} sq_importance;

/* The batch at argv: its floats, checked against the columns. */
static int sq_importance_batch(sq_importance *a, sqlite3_value **argv,
                               sq_tensor *x, sq_status *st) {
  int64_t columns;
  float mn, mx;
  if (sq_arg_tensor(argv[0], "activations", x, st) ||
      sq_arg_int(argv[1], "columns", &columns, st))
    return st->code;
  if (columns < 1)
    return sq_fail(st, "columns must be a positive integer, got %lld",
                   (long long)columns);
  if (a->columns && columns != a->columns)
    return sq_fail(st, "columns changed from %lld to %lld",
                   (long long)a->columns, (long long)columns);
  if (x->n % (uint64_t)columns != 0)
    return sq_fail(st, "activations has %zu value%s, not a whole number of "
                       "rows of %lld columns", x->n, x->n == 1 ? "" : "s",
                   (long long)columns);
  if (x->n && sq_tensor_minmax(sq_kernels_active(), x->data, x->n, 0, &mn, &mx,
                               st))
    return st->code;
  /* State is sized by a batch that holds at least a row of the columns
  ** (an empty batch adds nothing and sizes nothing). */
  if (!a->sum && x->n) {
    if (!(a->sum = sq_alloc(st, (uint64_t)columns, sizeof *a->sum)))
      return st->code;
    memset(a->sum, 0, (size_t)columns * sizeof *a->sum);
    a->columns = columns;
  }
  return SQ_OK;
}

/* Adds (sign +1) or removes (-1) a checked batch. */
static void sq_importance_fold(sq_importance *a, const sq_tensor *x, int sign) {
  if (x->n == 0) return;
  const unsigned char *p = x->data;
  size_t cols = (size_t)a->columns, rows = x->n / cols;
  for (size_t r = 0; r < rows; r++) {
    if (++a->unnormalized >= ((uint64_t)1 << 30)) {
      for (size_t c = 0; c < cols; c++) sq_square_sum_normalize(&a->sum[c]);
      a->unnormalized = 0;
    }
    for (size_t c = 0; c < cols; c++)
      sq_square_sum_add(&a->sum[c], sq_load_f32(p + 4 * (r * cols + c)), sign);
  }
  if (sign > 0) a->rows += rows;
  else a->rows -= rows;
}

static void sq_importance_update(sqlite3_context *ctx, sqlite3_value **argv,
                                 int sign) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sq_any_null(2, argv)) return;
  sq_importance *a = sq_agg_state(ctx, sizeof *a, name);
  if (!a) return;
  sq_tensor x = {0};
  if (!sq_importance_batch(a, argv, &x, &st)) sq_importance_fold(a, &x, sign);
  sq_tensor_free(&x);
  if (st.code) {
    a->failed = st;
    sq_result_status(ctx, name, &st);
  }
}

static void sq_importance_step(sqlite3_context *ctx, int argc,
                               sqlite3_value **argv) {
  (void)argc;
  sq_importance_update(ctx, argv, +1);
}

static void sq_importance_inverse(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  (void)argc;
  sq_importance_update(ctx, argv, -1);
}

static void sq_importance_value(sqlite3_context *ctx) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  sq_importance *a = sqlite3_aggregate_context(ctx, 0);
  if (!a) return;
  if (a->failed.code) {
    sq_result_status(ctx, name, &a->failed);
    return;
  }
  if (!a->sum || a->rows == 0) return;
  size_t cols = (size_t)a->columns;
  unsigned char *out = sq_alloc(&st, cols, 4);
  if (out) {
    for (size_t c = 0; c < cols && !st.code; c++) {
      double mean = sq_square_sum_value(&a->sum[c]) / (double)a->rows;
      if (mean >= 0x1.ffffffp+127)         /* rounds to infinity */
        sq_fail(&st, "the mean square of column %zu overflows float32", c);
      sq_store_f32(out + 4 * c, (float)mean);
    }
    if (st.code) sqlite3_free(out);
    else sq_result_typed(ctx, out, (uint64_t)cols * 4, SQ_SUBTYPE_F32, &st);
  }
  if (st.code) sq_result_status(ctx, name, &st);
}

static void sq_importance_final(sqlite3_context *ctx) {
  sq_importance_value(ctx);
  sq_importance *a = sqlite3_aggregate_context(ctx, 0);
  if (a) {
    sqlite3_free(a->sum);
    a->sum = NULL;
  }
}

/* ---- q_ggml_types ---------------------------------------------------------- */

enum { SQ_TYPES_NAME, SQ_TYPES_ID, SQ_TYPES_BLOCK, SQ_TYPES_BYTES,
       SQ_TYPES_BITS, SQ_TYPES_NEEDS_IMPORTANCE };

static int sq_types_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                            sq_status *st) {
  (void)argc;
  (void)argv;
  (void)st;
  cur->n = SQ_GGML_NTYPES;
  return SQ_OK;
}

static void sq_types_column(const sq_cursor *cur, sqlite3_context *ctx,
                            int col) {
  const sq_ggml_format *f = &sq_ggml_formats[cur->i];
  switch (col) {
    case SQ_TYPES_NAME: sqlite3_result_text(ctx, f->name, -1, SQLITE_STATIC); break;
    case SQ_TYPES_ID: sqlite3_result_int(ctx, f->ggml_id); break;
    case SQ_TYPES_BLOCK: sqlite3_result_int64(ctx, (sqlite3_int64)f->block); break;
    case SQ_TYPES_BYTES: sqlite3_result_int64(ctx, (sqlite3_int64)f->bytes); break;
    case SQ_TYPES_BITS:
      sqlite3_result_double(ctx, sq_ggml_bits_per_weight((sq_ggml_type)cur->i));
      break;
    case SQ_TYPES_NEEDS_IMPORTANCE:
      sqlite3_result_int(ctx, f->needs_importance);
      break;
  }
}

const sq_table sq_ggml_types_table = {
  "q_ggml_types",
  "CREATE TABLE x(name TEXT, type_id INTEGER, block_size INTEGER, "
  "type_size INTEGER, bits_per_weight REAL, needs_importance INTEGER)",
  SQ_TYPES_NEEDS_IMPORTANCE + 1, 0, 0, "",
  sizeof(sq_cursor), sq_types_compute, NULL, sq_types_column, SQ_VALUES,
};

/* ---- registration ---------------------------------------------------------- */

/* The family's functions of ext/catalogue.toml (sql/catalogue.h). */
static const sq_fn_def sq_ggml_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_GGML(SQ_FN_DEF)
};

int sq_register_ggml_functions(sq_registry *r) {
  return sq_register_table(r, sq_ggml_defs,
                           sizeof sq_ggml_defs / sizeof sq_ggml_defs[0]);
}
