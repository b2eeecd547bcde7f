/*
** sql_compare.c: q_compare(x, shape [, axis [, options]]), the scheme table.
**
** One row per candidate scheme with what it costs and what it loses:
**   scheme, dtype, qscheme, granularity, block_size, method,
**   bits_per_weight, bytes, mse, sqnr_db, max_error, cosine
** Candidates (options narrow or widen them, lists joined by '+'):
**   dtypes=int8+int4      any code dtypes
**   schemes=affine+symmetric
**   blocks=32+128         block sizes along the last axis ('none' for no blocks)
**   methods=minmax        any of minmax, percentile, mse (percentile=P applies)
** granularities: per tensor, per channel along `axis` (default 0; only for
** tensors of 2 or more dimensions), and per block.  reduce_range and
** rounding apply to every candidate.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sql.h"

enum {
  SQ_CMP_SCHEME, SQ_CMP_DTYPE, SQ_CMP_QSCHEME, SQ_CMP_GRANULARITY,
  SQ_CMP_BLOCK, SQ_CMP_METHOD, SQ_CMP_BITS, SQ_CMP_BYTES, SQ_CMP_MSE,
  SQ_CMP_SQNR, SQ_CMP_MAXERR, SQ_CMP_COSINE, SQ_CMP_ARG0 /* x, shape, axis, options */
};
#define SQ_CMP_NARGS 4
#define SQ_CMP_MAX_ITEMS 16

typedef struct sq_compare_row {
  sq_scheme s;
  sq_scheme_result res;
  double mse, sqnr, cosine;
  char label[80];
} sq_compare_row;

typedef struct sq_compare_cursor {
  sqlite3_vtab_cursor base;
  sq_compare_row *rows;
  size_t n, i;
} sq_compare_cursor;

static const char *const sq_method_names[] = {"minmax", "percentile", "mse"};
static const char *const sq_gran_names[] = {"tensor", "channel", "block"};

/* Splits "a+b|c" into up to SQ_CMP_MAX_ITEMS words. */
static int sq_split_list(const char *text, char items[][24], const char *what,
                         sq_status *st) {
  int n = 0;
  const char *p = text;
  while (*p) {
    const char *w = p;
    while (*p && *p != '+' && *p != '|') p++;
    size_t len = (size_t)(p - w);
    if (len == 0 || len >= 24 || n == SQ_CMP_MAX_ITEMS)
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

/* The candidate schemes, in a table sized for exactly them. */
static int sq_compare_candidates(const sq_options *o, const sq_shape *shape,
                                 int64_t axis, sq_scheme **out, size_t *count,
                                 sq_status *st) {
  char dt[SQ_CMP_MAX_ITEMS][24], sc[SQ_CMP_MAX_ITEMS][24],
      bl[SQ_CMP_MAX_ITEMS][24], me[SQ_CMP_MAX_ITEMS][24];
  int ndt = sq_split_list(o->dtypes[0] ? o->dtypes : "int8+int4", dt, "dtypes", st);
  int nsc = st->code ? 0
            : sq_split_list(o->schemes[0] ? o->schemes : "affine+symmetric", sc,
                            "schemes", st);
  int nbl = st->code ? 0 : sq_split_list(o->blocks[0] ? o->blocks : "32+128", bl,
                                          "blocks", st);
  int nme = st->code ? 0 : sq_split_list(o->methods[0] ? o->methods : "minmax", me,
                                          "methods", st);
  if (st->code) return st->code;
  const sq_dtype *dtypes[SQ_CMP_MAX_ITEMS];
  for (int i = 0; i < ndt; i++) {
    if (!(dtypes[i] = sq_dtype_find(dt[i], 0, st))) return st->code;
    for (int j = 0; j < i; j++)
      if (dtypes[j] == dtypes[i]) return sq_twice("dtypes", dtypes[i]->name, st);
  }
  int64_t blocks[SQ_CMP_MAX_ITEMS];
  int nblocks = 0, no_blocks = 0;
  for (int i = 0; i < nbl; i++) {
    if (sqlite3_stricmp(bl[i], "none") == 0) {
      if (no_blocks++) return sq_twice("blocks", "none", st);
      continue;
    }
    int64_t v;
    if (!sq_parse_int(bl[i], strlen(bl[i]), &v) || v < 1)
      return sq_fail(st, "option blocks needs positive block sizes, got '%s'", bl[i]);
    for (int j = 0; j < nblocks; j++)
      if (blocks[j] == v) return sq_twice("blocks", bl[i], st);
    blocks[nblocks++] = v;
  }
  int methods[SQ_CMP_MAX_ITEMS], symm[SQ_CMP_MAX_ITEMS];
  for (int i = 0; i < nme; i++) {
    if (!sq_method_parse(me[i], strlen(me[i]), &methods[i]))
      return sq_fail(st, "option methods: unknown method '%s' (expected minmax, "
                         "percentile or mse)", me[i]);
    for (int j = 0; j < i; j++)
      if (methods[j] == methods[i]) return sq_twice("methods", me[i], st);
  }
  for (int i = 0; i < nsc; i++) {
    if (sqlite3_stricmp(sc[i], "affine") == 0) symm[i] = 0;
    else if (sqlite3_stricmp(sc[i], "symmetric") == 0) symm[i] = 1;
    else
      return sq_fail(st, "option schemes: unknown scheme '%s' (expected affine "
                         "or symmetric)", sc[i]);
    for (int j = 0; j < i; j++)
      if (symm[j] == symm[i]) return sq_twice("schemes", sc[i], st);
  }
  size_t grans = 2 + (size_t)nblocks;
  size_t max = (size_t)ndt * grans * (size_t)nsc * (size_t)nme;
  sq_scheme *cands = sq_alloc(st, max, sizeof *cands);
  if (!cands) return st->code;
  size_t n = 0;
  for (int d = 0; d < ndt; d++) {
    for (size_t g = 0; g < grans; g++) {
      int gran = g == 0 ? SQ_GRAN_TENSOR : g == 1 ? SQ_GRAN_CHANNEL : SQ_GRAN_BLOCK;
      if (gran == SQ_GRAN_CHANNEL && shape->ndim < 2) continue;
      for (int s = 0; s < nsc; s++)
        for (int m = 0; m < nme; m++)
          cands[n++] = (sq_scheme){dtypes[d], symm[s], gran, axis,
                                   gran == SQ_GRAN_BLOCK ? blocks[g - 2] : 0,
                                   methods[m]};
    }
  }
  *out = cands;
  *count = n;
  return SQ_OK;
}

static int sq_compare_compute(sq_compare_cursor *c, int argc,
                              sqlite3_value **argv, sq_status *st) {
  sq_tensor x = {0};
  sq_shape shape;
  sq_options o;
  int64_t axis = 0;
  void *scratch = NULL;
  sq_scheme *cands = NULL;
  size_t ncand = 0;
  if (sq_tensor_from_value(argv[0], "x", &x, st) ||
      sq_shape_from_value(argv[1], &shape, st) ||
      (argc > 2 && sq_arg_int(argv[2], "axis", &axis, st)) ||
      sq_arg_options(argc, argv, 3,
                     SQ_OPT_REDUCE_RANGE | SQ_OPT_ROUNDING | SQ_OPT_PERCENTILE |
                         SQ_OPT_DTYPES | SQ_OPT_SCHEMES | SQ_OPT_BLOCKS |
                         SQ_OPT_METHODS,
                     &o, st))
    goto done;
  if (shape.count != x.n) {
    sq_fail(st, "shape holds %llu elements but x has %zu",
            (unsigned long long)shape.count, x.n);
    goto done;
  }
  /* The axis is checked even where no per-channel candidate uses it. */
  sq_layout l;
  if (sq_layout_make(&shape, axis, &l, st) ||
      sq_compare_candidates(&o, &shape, axis, &cands, &ncand, st) ||
      !(scratch = sq_alloc(st, x.n, 4)) ||
      !(c->rows = sq_alloc(st, ncand, sizeof *c->rows)))
    goto done;
  const sq_kernels *k = sq_kernels_active();
  /* minmax ranges per granularity, shared by every dtype and scheme. */
  float *cached = NULL;
  sq_scheme cached_for = {0};
  for (size_t i = 0; i < ncand; i++) {
    sq_compare_row *row = &c->rows[i];
    row->s = cands[i];
    const float *ranges = NULL;
    if (row->s.method == SQ_METHOD_MINMAX) {
      if (!cached || cached_for.granularity != row->s.granularity ||
          cached_for.block != row->s.block) {
        size_t groups = sq_scheme_groups(&shape, &row->s);
        sq_range any;
        sq_options plain;
        sqlite3_free(cached);
        if (!(cached = sq_alloc(st, groups, 2 * sizeof *cached))) goto done;
        sq_options_parse(NULL, 0, &plain, st);
        sq_range_resolve(row->s.dtype, &plain, &any, st);
        if (sq_scheme_ranges(k, &x, &shape, &row->s, &any, &plain, cached,
                             cached + groups, st)) {
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
    char gran[32];
    if (row->s.granularity == SQ_GRAN_TENSOR)
      snprintf(gran, sizeof gran, "per-tensor");
    else if (row->s.granularity == SQ_GRAN_CHANNEL)
      snprintf(gran, sizeof gran, "per-channel(%lld)", (long long)row->s.axis);
    else
      snprintf(gran, sizeof gran, "block-%lld", (long long)row->s.block);
    snprintf(row->label, sizeof row->label, "%s %s %s%s%s", row->s.dtype->name,
             row->s.symmetric ? "symmetric" : "affine", gran,
             row->s.method ? " " : "", row->s.method ? sq_method_names[row->s.method] : "");
    c->n = i + 1;
  }
  sqlite3_free(cached);
done:
  sqlite3_free(cands);
  sqlite3_free(scratch);
  sq_tensor_free(&x);
  return st->code;
}

static int sq_compare_connect(sqlite3 *db, void *aux, int argc,
                              const char *const *argv, sqlite3_vtab **vt,
                              char **err) {
  (void)aux;
  (void)argc;
  (void)argv;
  (void)err;
  return sq_vtab_connect(
      db, "CREATE TABLE x(scheme TEXT, dtype TEXT, qscheme TEXT, granularity TEXT, "
          "block_size INTEGER, method TEXT, bits_per_weight REAL, bytes INTEGER, "
          "mse REAL, sqnr_db REAL, max_error REAL, cosine REAL, "
          "x HIDDEN, shape HIDDEN, axis HIDDEN, options HIDDEN)",
      vt);
}

static int sq_compare_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cur) {
  (void)v;
  sq_compare_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *cur = &c->base;
  return SQLITE_OK;
}

static int sq_compare_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(((sq_compare_cursor *)cur)->rows);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int sq_compare_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  return sq_vtab_best_index(v, info, SQ_CMP_ARG0, SQ_CMP_NARGS, 2,
                            "q_compare: x and shape are required");
}

static int sq_compare_filter(sqlite3_vtab_cursor *cur, int idxNum,
                             const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)idxNum;
  sq_compare_cursor *c = (sq_compare_cursor *)cur;
  sqlite3_free(c->rows);
  c->rows = NULL;
  c->n = c->i = 0;
  if (sq_any_null(argc, argv)) return SQLITE_OK;
  sq_status st;
  sq_vtab_begin(cur, &st);
  if (sq_compare_compute(c, argc, argv, &st) == SQ_OK) return SQLITE_OK;
  c->n = 0;
  return sq_vtab_fail(cur, "q_compare", &st);
}

static int sq_compare_next(sqlite3_vtab_cursor *cur) {
  ((sq_compare_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int sq_compare_eof(sqlite3_vtab_cursor *cur) {
  sq_compare_cursor *c = (sq_compare_cursor *)cur;
  return c->i >= c->n;
}

static int sq_compare_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                             int col) {
  sq_compare_cursor *c = (sq_compare_cursor *)cur;
  const sq_compare_row *row = &c->rows[c->i];
  const char *scheme = row->s.symmetric ? "symmetric" : "affine";
  const char *gran = sq_gran_names[row->s.granularity];
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
      sqlite3_result_text(ctx, sq_method_names[row->s.method], -1, SQLITE_STATIC);
      break;
    case SQ_CMP_BITS: sqlite3_result_double(ctx, row->res.bits_per_weight); break;
    case SQ_CMP_BYTES: sqlite3_result_int64(ctx, (sqlite3_int64)row->res.bytes); break;
    case SQ_CMP_MSE: sqlite3_result_double(ctx, row->mse); break;
    case SQ_CMP_SQNR: sqlite3_result_double(ctx, row->sqnr); break;
    case SQ_CMP_MAXERR: sqlite3_result_double(ctx, row->res.sums.max_abs_d); break;
    case SQ_CMP_COSINE: sqlite3_result_double(ctx, row->cosine); break;
    default: break;
  }
  return SQLITE_OK;
}

static int sq_compare_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((sq_compare_cursor *)cur)->i;
  return SQLITE_OK;
}

static sqlite3_module sq_compare_module = {
  .iVersion = 0,
  .xConnect = sq_compare_connect,
  .xBestIndex = sq_compare_best_index,
  .xDisconnect = sq_vtab_disconnect,
  .xOpen = sq_compare_open,
  .xClose = sq_compare_close,
  .xFilter = sq_compare_filter,
  .xNext = sq_compare_next,
  .xEof = sq_compare_eof,
  .xColumn = sq_compare_column,
  .xRowid = sq_compare_rowid,
};

int sq_register_compare(sqlite3 *db) {
  return sqlite3_create_module(db, "q_compare", &sq_compare_module, NULL);
}
