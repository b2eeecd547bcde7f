/*
** aggregate_functions.c: calibration aggregates, PyTorch's observers over
** rows (docs/NUMERICS.md#observers).
**
**   q_scale_agg(x [, dtype [, scheme [, options]]])            -> REAL
**   q_zero_point_agg(x [, dtype [, scheme [, options]]])       -> INTEGER
**   q_per_channel_scales_agg(x, shape, axis [, dtype [, scheme [, options]]])
**   q_per_channel_zero_points_agg(x, shape, axis [, ...])
**
** Rules:
**   1. x per row is a float tensor (BLOB or JSON) or, for the per-tensor
**      aggregates, a plain number; rows whose x is NULL are skipped; no rows
**      gives NULL;
**   2. dtype, scheme, options (and shape, axis) are read from the first row;
**   3. options: those of q_scale plus observer=minmax|moving_average and
**      averaging_constant=C; moving_average sees rows in the order SQLite
**      feeds them, so give the aggregate an ORDER BY (SQLite 3.44+) or use it
**      as a window function with ORDER BY;
**   4. as window functions they slide exactly for observer=minmax; the other
**      observers and calibration methods refuse a sliding frame;
**   5. the observer is sized from shape only after the first row has been
**      checked against it; after any error (out of memory included) the
**      aggregate repeats that error and touches its state no more.
*/
#include <string.h>
#include "sql/sql.h"
#include "kernels/byteorder.h"

typedef struct sq_agg {
  sq_status failed;         /* a step's error: later calls repeat it and
                            ** touch nothing else (see sq_agg_state) */
  sq_observer *ob;          /* made once the first row has been checked */
  sq_row_states rs;         /* method=histogram|entropy: each group's state */
  int ready;                /* arguments read from the first row */
  int symmetric;
  sq_range r;
  sq_options o;
  sq_granularity g;         /* per channel: a row's channels */
  uint64_t count;           /* per channel: elements per row */
} sq_agg;

/* sq_fn.variant: what the aggregate returns, and whether per channel. */
enum { SQ_AGG_SCALE = 0, SQ_AGG_ZERO_POINT = 1, SQ_AGG_PER_CHANNEL = 2 };

static int sq_is_per_channel(sqlite3_context *ctx) {
  const sq_fn *fn = sqlite3_user_data(ctx);
  return (fn->variant & SQ_AGG_PER_CHANNEL) != 0;
}

/* Reads the arguments that hold for every row (rule 2).  Allocates nothing:
** the observer is sized only after a row has been checked against them. */
static int sq_agg_args(sq_agg *a, int per_channel, int argc,
                       sqlite3_value **argv, sq_status *st) {
  int first_opt = per_channel ? 3 : 1;
  if (per_channel) {
    sq_shape shape;
    int64_t axis;
    if (sq_arg_shape(argv[1], &shape, st) ||
        sq_arg_int(argv[2], "axis", &axis, st) ||
        sq_granularity_channel(&shape, axis, &a->g, st))
      return st->code ? st->code : sq_fail(st, "shape must not be NULL");
    a->count = shape.count;
  }
  const sq_dtype *dt = sq_arg_dtype(argc, argv, first_opt, SQ_DTYPES_CODES,
                                    &sq_dtype_int8, st);
  if (!dt || sq_arg_scheme(argc, argv, first_opt + 1, &a->symmetric, st) ||
      (a->symmetric == SQ_SCHEME_LOG2 && sq_log2_dtype_check(dt, st)) ||
      sq_arg_options(argc, argv, first_opt + 2, SQ_OPTS_OBSERVE, &a->o, st) ||
      sq_range_resolve(dt, &a->o, &a->r, st))
    return st->code;
  if (a->o.moving_average && a->o.method != SQ_METHOD_MINMAX)
    return sq_fail(st, "observer=moving_average keeps no values, so method must "
                       "be minmax");
  a->ready = 1;
  return SQ_OK;
}

static void sq_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  sq_agg *a = sq_agg_state(ctx, sizeof *a, name);
  if (!a) return;
  int per_channel = sq_is_per_channel(ctx);
  sq_tensor x = {0};
  unsigned char one[4];
  float *mm = NULL;
  int type = sqlite3_value_type(argv[0]);
  if (!a->ready && sq_agg_args(a, per_channel, argc, argv, &st)) goto done;
  if (!per_channel && (type == SQLITE_INTEGER || type == SQLITE_FLOAT)) {
    double d = sqlite3_value_double(argv[0]);
    float f = d > 3.4028234663852886e38 ? 3.4028235e38f * 2.0f
            : d < -3.4028234663852886e38 ? -3.4028235e38f * 2.0f : (float)d;
    sq_store_f32(one, f);     /* tensors are little-endian on every host */
    x.data = one;
    x.n = 1;
  } else if (sq_arg_tensor(argv[0], "x", &x, &st)) {
    goto done;
  }
  if (x.n == 0) {
    sq_fail(&st, "x is an empty tensor");
    goto done;
  }
  if (per_channel && x.n != a->count) {
    sq_fail(&st, "shape holds %llu elements but x has %zu",
            (unsigned long long)a->count, x.n);
    goto done;
  }
  sq_granularity row;
  if (per_channel) row = a->g;
  else sq_granularity_tensor(x.n, &row);
  size_t C = row.groups;
  const sq_row_method *m = sq_row_method_find(a->o.method);
  int keep_values = a->o.method != SQ_METHOD_MINMAX && !m;
  if (!a->ob) {
    if (!(a->ob = sq_observer_new(C, a->o.moving_average, a->o.averaging_constant,
                                  keep_values, &st)) ||
        (m && sq_row_states_init(&a->rs, m, C, &a->o, &a->r, a->symmetric, &st)))
      goto done;
  }
  if (!(mm = sq_alloc(&st, C, 2 * sizeof *mm)) ||
      sq_group_minmax(sq_kernels_active(), &x, &row, mm, mm + C, &st) ||
      sq_observer_add(a->ob, mm, mm + C, &x, &st))
    goto done;
  if (m) sq_row_states_add(&a->rs, sq_kernels_active(), &x, &row, mm, mm + C, &st);
done:
  sqlite3_free(mm);
  sq_tensor_free(&x);
  if (st.code) {
    a->failed = st;
    sq_result_status(ctx, name, &st);
  }
}

static void sq_agg_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  sq_agg *a = sqlite3_aggregate_context(ctx, sizeof *a);
  if (!a || a->failed.code || !a->ob) return;
  if (a->rs.m)
    sq_fail(&st, "method=%s cannot drop rows from a sliding window frame (use "
                 "a frame starting at UNBOUNDED PRECEDING)", a->rs.m->name);
  if (st.code || sq_observer_remove(a->ob, &st)) {
    a->failed = st;
    sq_result_status(ctx, name, &st);
  }
}

static void sq_agg_value(sqlite3_context *ctx) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  sq_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (!a) return;
  if (a->failed.code) {
    sq_result_status(ctx, name, &a->failed);
    return;
  }
  if (!a->ob || sq_observer_rows(a->ob) == 0) return;
  int per_channel = sq_is_per_channel(ctx);
  size_t C = per_channel ? a->g.groups : 1;
  int want_scale = (fn->variant & SQ_AGG_ZERO_POINT) == 0;
  float *mm = sq_alloc(&st, C, 2 * sizeof *mm);
  if (!mm) goto done;
  if (a->rs.m) {
    sq_row_states_range(&a->rs, mm, mm + C, &st);
  } else if (a->o.method != SQ_METHOD_MINMAX) {
    /* Every row's values, one after another: per channel, the rows stack
    ** along the outer dimension. */
    sq_tensor all;
    sq_granularity g;
    sq_observer_values(a->ob, &all);
    if (per_channel) {
      g = a->g;
      g.outer *= (size_t)(all.n / a->count);
    } else {
      sq_granularity_tensor(all.n, &g);
    }
    sq_ranges(sq_kernels_active(), &all, &g, &a->r, a->symmetric, &a->o, mm,
              mm + C, &st);
  } else {
    for (size_t c = 0; c < C; c++) sq_observer_range(a->ob, c, &mm[c], &mm[C + c]);
  }
  if (st.code) goto done;
  if (a->symmetric == SQ_SCHEME_LOG2) {
    sq_result_log2_params(ctx, mm, mm + C, C, !per_channel, a->r.dtype,
                          want_scale, &st);
  } else if (per_channel) {
    sq_result_params(ctx, mm, mm + C, C, &a->r, a->symmetric, want_scale, &st);
  } else {
    float scale;
    int32_t zp;
    if (sq_choose_qparams(mm[0], mm[1], &a->r, a->symmetric, &scale, &zp, &st))
      goto done;
    if (want_scale) sqlite3_result_double(ctx, (double)scale);
    else sqlite3_result_int64(ctx, zp);
  }
done:
  sqlite3_free(mm);
  if (st.code) sq_result_status(ctx, name, &st);
}

static void sq_agg_final(sqlite3_context *ctx) {
  sq_agg_value(ctx);
  sq_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (a) {
    sq_observer_free(a->ob);
    sq_row_states_free(&a->rs);
  }
}

/* The family's functions of ext/catalogue.toml (sql/catalogue.h). */
static const sq_fn_def sq_agg_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_AGGREGATE(SQ_FN_DEF)
};

int sq_register_aggregate_functions(sq_registry *r) {
  return sq_register_table(r, sq_agg_defs,
                           sizeof sq_agg_defs / sizeof sq_agg_defs[0]);
}
