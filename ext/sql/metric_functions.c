/*
** metric_functions.c: error metrics of b against a reference a
** (docs/NUMERICS.md#metrics).
**
**   q_mse(a, b), q_sqnr(a, b), q_max_error(a, b), q_cosine(a, b)  -> REAL
**   q_mse_agg(a, b), q_sqnr_agg(a, b)   aggregates over rows: the metric of
**       all rows' elements taken together (a whole model's error in one
**       query); NULL rows are skipped; no rows gives NULL.
*/
#include <string.h>
#include "sql/sql.h"

enum { SQ_METRIC_MSE, SQ_METRIC_SQNR, SQ_METRIC_MAX_ERROR, SQ_METRIC_COSINE };

/* Decodes a and b and computes their sums. */
static int sq_metric_args(sqlite3_value **argv, sq_tensor *a, sq_tensor *b,
                          sq_error_sums *e, sq_status *st) {
  memset(b, 0, sizeof *b);
  if (sq_arg_tensor(argv[0], "a", a, st) ||
      sq_arg_tensor(argv[1], "b", b, st))
    return st->code;
  return sq_error_between(sq_kernels_active(), a, b, e, st);
}

static void sq_metric_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_tensor a, b;
  sq_error_sums e;
  if (!sq_metric_args(argv, &a, &b, &e, &st)) {
    switch (fn->variant) {
      case SQ_METRIC_MSE: sqlite3_result_double(ctx, e.sum_d2 / (double)a.n); break;
      case SQ_METRIC_SQNR: sqlite3_result_double(ctx, sq_sqnr_db(e.sum_a2, e.sum_d2)); break;
      case SQ_METRIC_MAX_ERROR: sqlite3_result_double(ctx, e.max_abs_d); break;
      default: sqlite3_result_double(ctx, sq_cosine(&e)); break;
    }
  }
  sq_tensor_free(&a);
  sq_tensor_free(&b);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

typedef struct sq_metric_acc {
  sq_status failed;         /* a step's error, repeated (see sq_agg_state) */
  double sum_a2, sum_d2;
  sqlite3_int64 n;
} sq_metric_acc;

static void sq_metric_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sq_any_null(argc, argv)) return;
  sq_metric_acc *acc = sq_agg_state(ctx, sizeof *acc, name);
  if (!acc) return;
  sq_tensor a, b;
  sq_error_sums e;
  if (!sq_metric_args(argv, &a, &b, &e, &st)) {
    acc->sum_a2 += e.sum_a2;
    acc->sum_d2 += e.sum_d2;
    acc->n += (sqlite3_int64)a.n;
  }
  sq_tensor_free(&a);
  sq_tensor_free(&b);
  if (st.code) {
    acc->failed = st;
    sq_result_status(ctx, name, &st);
  }
}

static void sq_metric_final(sqlite3_context *ctx) {
  const sq_fn *fn = sqlite3_user_data(ctx);
  sq_metric_acc *acc = sqlite3_aggregate_context(ctx, 0);
  if (!acc) return;
  if (acc->failed.code) {
    sq_result_status(ctx, fn->name, &acc->failed);
    return;
  }
  if (acc->n == 0) return;
  if (fn->variant == SQ_METRIC_MSE)
    sqlite3_result_double(ctx, acc->sum_d2 / (double)acc->n);
  else
    sqlite3_result_double(ctx, sq_sqnr_db(acc->sum_a2, acc->sum_d2));
}

/* The family's functions of ext/catalogue.toml (sql/catalogue.h). */
static const sq_fn_def sq_metric_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_METRIC(SQ_FN_DEF)
};

int sq_register_metric_functions(sq_registry *r) {
  return sq_register_table(r, sq_metric_defs,
                           sizeof sq_metric_defs / sizeof sq_metric_defs[0]);
}
