/*
** compare_table.c: q_compare(x, shape [, axis [, options]]), the scheme table.
**
** One row per candidate scheme with what it costs and what it loses:
**   scheme, dtype, qscheme, granularity, block_size, method,
**   bits_per_weight, bytes, mse, sqnr_db, max_error, cosine
** Candidates (options narrow or widen them, lists joined by '+'):
**   dtypes=int8+int4      any code dtypes
**   schemes=affine+symmetric  and log2 (int8 and int4 only: qscheme
**                         per_tensor_log2, per_channel_log2, per_block_log2)
**   blocks=32+128         block sizes along rows of the [shape[0], rest]
**                         view ('none' for no blocks); a block longer than
**                         a row is reported as the row, once ("block-27
**                         (whole row)", block_size 27)
**   methods=minmax        any of minmax, percentile, mse, histogram, entropy
**                         (percentile=P applies)
**   ggml=q4_K+q8_0        ggml block formats too (none by default); each is
**                         one row: scheme and dtype are the type's name,
**                         granularity 'ggml', qscheme and method NULL; a
**                         type whose block does not divide the row gives
**                         no row; mxfp4@RULE (RULE one of mx_exponent's:
**                         ocp, torchao-rceil, ...) is mxfp4 under that
**                         shared-exponent rule, named so in its row
**   dtypes=none           only the ggml types
** granularities: per tensor, per channel along `axis` (default 0; only for
** tensors of 2 or more dimensions), and per block.  reduce_range and
** rounding apply to every integer candidate.
*/
#include <stdio.h>
#include <string.h>
#include "sql/sql.h"
#include "core/ggml_quant.h"
#include "kernels/bnb4.h"

enum {
  SQ_CMP_SCHEME, SQ_CMP_DTYPE, SQ_CMP_QSCHEME, SQ_CMP_GRANULARITY,
  SQ_CMP_BLOCK, SQ_CMP_METHOD, SQ_CMP_BITS, SQ_CMP_BYTES, SQ_CMP_MSE,
  SQ_CMP_SQNR, SQ_CMP_MAXERR, SQ_CMP_COSINE, SQ_CMP_ARG0 /* x, shape, axis, options */
};
#define SQ_CMP_NARGS 4

/* The schema next to its column numbers, which must agree. */
static int sq_compare_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                              sq_status *st);
static void sq_compare_column(const sq_cursor *cur, sqlite3_context *ctx,
                              int col);

const sq_table sq_compare_table = {
  "q_compare",
  "CREATE TABLE x(scheme TEXT, dtype TEXT, qscheme TEXT, granularity TEXT, "
  "block_size INTEGER, method TEXT, bits_per_weight REAL, bytes INTEGER, "
  "mse REAL, sqnr_db REAL, max_error REAL, cosine REAL, "
  "x HIDDEN, shape HIDDEN, axis HIDDEN, options HIDDEN)",
  SQ_CMP_ARG0, SQ_CMP_NARGS, 2, "q_compare: x and shape are required",
  sizeof(sq_cursor), sq_compare_compute, NULL,
  sq_compare_column, SQ_VALUES,
};

typedef struct sq_compare_row {
  sq_scheme s;
  sq_scheme_result res;
  double mse, sqnr, cosine;
  char label[80];
} sq_compare_row;


/* The catalogue's granularity names (core/catalogue.h), by kind. */
#define SQ_GRAN_NAME(name, kind) [kind] = name,
static const char *const sq_gran_names[] = {SQ_CATALOGUE_GRANULARITIES(SQ_GRAN_NAME)};
#undef SQ_GRAN_NAME

static int sq_compare_compute(sq_cursor *cur, int argc, sqlite3_value **argv,
                              sq_status *st) {
  sq_tensor x = {0};
  sq_shape shape;
  sq_options o;
  int64_t axis = 0;
  void *scratch = NULL;
  sq_scheme *cands = NULL;
  size_t ncand = 0;
  sq_compare_row *rows;
  if (sq_arg_tensor(argv[0], "x", &x, st) ||
      sq_arg_shape(argv[1], &shape, st) ||
      (argc > 2 && sq_arg_int(argv[2], "axis", &axis, st)) ||
      sq_arg_options(argc, argv, 3, SQ_OPTS_COMPARE, &o, st) ||
      sq_shape_check_count(&shape, x.n, st))
    goto done;
  /* The axis is checked even where no per-channel candidate uses it. */
  sq_granularity any_axis;
  if (sq_granularity_channel(&shape, axis, &any_axis, st) ||
      sq_scheme_candidates(&o, &shape, axis, &cands, &ncand, st) ||
      !(cur->rows = rows = sq_alloc(st, ncand, sizeof *rows)))
    goto done;
  /* Only ggml and log2 candidates read their round trip back into a
  ** full-size scratch; the integer schemes' round trips never leave cache. */
  int need_scratch = 0;
  for (size_t i = 0; i < ncand; i++)
    need_scratch |= cands[i].ggml != 0 || cands[i].bnb4 != 0 ||
                    cands[i].symmetric == SQ_SCHEME_LOG2;
  if (need_scratch && !(scratch = sq_alloc(st, x.n, 4))) goto done;
  const sq_kernels *k = sq_kernels_active();
  /* Observed ranges per granularity, shared by every dtype and scheme. */
  float *cached = NULL;
  sq_scheme cached_for = {0};
  for (size_t i = 0; i < ncand; i++) {
    sq_compare_row *row = &rows[i];
    row->s = cands[i];
    const float *ranges = NULL;
    if (row->s.method == SQ_METHOD_MINMAX && !row->s.ggml && !row->s.bnb4) {
      if (!cached || cached_for.granularity != row->s.granularity ||
          cached_for.block != row->s.block) {
        sq_granularity g;
        sqlite3_free(cached);
        cached = NULL;
        if (sq_scheme_granularity(&shape, x.n, &row->s, &g, st) ||
            !(cached = sq_alloc(st, g.groups, 2 * sizeof *cached)) ||
            sq_group_minmax(k, &x, &g, cached, cached + g.groups, st)) {
          sqlite3_free(cached);
          goto done;
        }
        cached_for = row->s;
      }
      ranges = cached;
    }
    if (sq_scheme_eval(k, &x, &shape, &row->s, &o, ranges, scratch, &row->res,
                       st)) {
      sqlite3_free(cached);
      goto done;
    }
    const sq_error_sums *e = &row->res.sums;
    row->mse = e->sum_d2 / (double)x.n;
    row->sqnr = sq_sqnr_db(e->sum_a2, e->sum_d2);
    row->cosine = sq_cosine(e);
    char gran[48];
    if (row->s.ggml) {
      snprintf(row->label, sizeof row->label, "%s%s%s",
               sq_ggml_formats[row->s.ggml - 1].name, row->s.mx ? "@" : "",
               row->s.mx ? sq_mx_rule_name(row->s.mx) : "");
      cur->n = i + 1;
      continue;
    }
    if (row->s.bnb4) {
      snprintf(row->label, sizeof row->label, "%s block-%lld",
               row->s.bnb4 == 1 + SQ_BNB4_NF4 ? "nf4" : "fp4",
               (long long)row->s.block);
      cur->n = i + 1;
      continue;
    }
    if (row->s.granularity == SQ_GRAN_TENSOR)
      snprintf(gran, sizeof gran, "per-tensor");
    else if (row->s.granularity == SQ_GRAN_CHANNEL)
      snprintf(gran, sizeof gran, "per-channel(%lld)", (long long)row->s.axis);
    else
      snprintf(gran, sizeof gran, "block-%lld%s", (long long)row->s.block,
               row->s.whole_row ? " (whole row)" : "");
    snprintf(row->label, sizeof row->label, "%s %s %s%s%s", row->s.dtype->name,
             sq_scheme_name(row->s.symmetric), gran,
             row->s.method ? " " : "", row->s.method ? sq_method_name(row->s.method) : "");
    cur->n = i + 1;
  }
  sqlite3_free(cached);
done:
  sqlite3_free(cands);
  sqlite3_free(scratch);
  sq_tensor_free(&x);
  return st->code;
}

static void sq_compare_column(const sq_cursor *cur, sqlite3_context *ctx,
                              int col) {
  const sq_compare_row *row = &((const sq_compare_row *)cur->rows)[cur->i];
  const char *scheme = sq_scheme_name(row->s.symmetric);
  const char *gran = sq_gran_names[row->s.granularity];
  if (row->s.bnb4) {
    switch (col) {
      case SQ_CMP_DTYPE:
        sqlite3_result_text(ctx, row->s.bnb4 == 1 + SQ_BNB4_NF4 ? "nf4" : "fp4",
                            -1, SQLITE_STATIC);
        return;
      case SQ_CMP_QSCHEME:
      case SQ_CMP_METHOD: return;         /* NULL: not an integer scheme */
      case SQ_CMP_GRANULARITY:            /* as the registry's rows */
        sqlite3_result_text(ctx, "bnb4", -1, SQLITE_STATIC);
        return;
      default: break;
    }
  }
  if (row->s.ggml) {
    switch (col) {
      case SQ_CMP_SCHEME:
      case SQ_CMP_DTYPE:
        sqlite3_result_text(ctx, row->label, -1, SQLITE_TRANSIENT);
        return;
      case SQ_CMP_QSCHEME:
      case SQ_CMP_METHOD: return;         /* NULL: not an integer scheme */
      case SQ_CMP_GRANULARITY:
        sqlite3_result_text(ctx, "ggml", -1, SQLITE_STATIC);
        return;
      default: break;
    }
  }
  switch (col) {
    case SQ_CMP_SCHEME: sqlite3_result_text(ctx, row->label, -1, SQLITE_TRANSIENT); break;
    case SQ_CMP_DTYPE: sqlite3_result_text(ctx, row->s.dtype->name, -1, SQLITE_STATIC); break;
    case SQ_CMP_QSCHEME: {
      char q[40];
      snprintf(q, sizeof q, "per_%s_%s", gran, scheme);
      sqlite3_result_text(ctx, q, -1, SQLITE_TRANSIENT);
      break;
    }
    case SQ_CMP_GRANULARITY: sqlite3_result_text(ctx, gran, -1, SQLITE_STATIC); break;
    case SQ_CMP_BLOCK:
      if (row->s.granularity == SQ_GRAN_BLOCK) sqlite3_result_int64(ctx, row->s.block);
      break;
    case SQ_CMP_METHOD:
      sqlite3_result_text(ctx, sq_method_name(row->s.method), -1, SQLITE_STATIC);
      break;
    case SQ_CMP_BITS: sqlite3_result_double(ctx, row->res.bits_per_weight); break;
    case SQ_CMP_BYTES: sqlite3_result_int64(ctx, (sqlite3_int64)row->res.bytes); break;
    case SQ_CMP_MSE: sqlite3_result_double(ctx, row->mse); break;
    case SQ_CMP_SQNR: sqlite3_result_double(ctx, row->sqnr); break;
    case SQ_CMP_MAXERR: sqlite3_result_double(ctx, row->res.sums.max_abs_d); break;
    case SQ_CMP_COSINE: sqlite3_result_double(ctx, row->cosine); break;
    default: break;
  }
}
