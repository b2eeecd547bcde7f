/*
** file_functions.c: model files written from SQL values
** (docs/FORMATS.md#writing).
**
**   q_npy(data, dtype, shape)   a .npy BLOB as numpy.save writes it
**   q_safetensors_agg(name, data, dtype, shape [, metadata])
**                               aggregate: a safetensors BLOB of the rows
**   q_npz_agg(name, data, dtype, shape)
**                               aggregate: a .npz BLOB as numpy.savez writes
**                               it, one member "<name>.npy" per row
**
** Rules: NULL in gives NULL (the aggregates skip rows whose data is NULL;
** no rows give NULL; a row with data but a NULL name, dtype or shape is an
** error); q_npy and q_npz_agg take shapes with 0 dims (empty arrays); the
** result is bounded by SQLITE_LIMIT_LENGTH
** (SQLITE_TOOBIG past it); after an error the aggregate repeats it
** (sq_agg_state).
*/
#include <string.h>
#include "core/model_write.h"
#include "sql/sql.h"

static const char *sq_ff_type_name(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "blob";
    default: return "null";
  }
}

/* A shape for a file: the usual JSON array of positive integers, or "[]"
** for a 0-d array (one element). */
static int sq_ff_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int sq_ff_shape(sqlite3_value *v, unsigned flags, sq_shape *s,
                       sq_status *st) {
  if (sqlite3_value_type(v) == SQLITE_TEXT) {
    const char *t = (const char *)sqlite3_value_text(v);
    if (!t) return sq_nomem(st);
    size_t n = (size_t)sqlite3_value_bytes(v), i = 0;
    while (i < n && sq_ff_space(t[i])) i++;
    if (i < n && t[i] == '[') {
      size_t j = i + 1;
      while (j < n && sq_ff_space(t[j])) j++;
      if (j < n && t[j] == ']') {
        j++;
        while (j < n && sq_ff_space(t[j])) j++;
        if (j == n) {
          memset(s, 0, sizeof *s);
          s->count = 1;
          return SQ_OK;
        }
      }
    }
  }
  return sq_arg_shape_opt(v, flags, s, st);
}

static void sq_npy_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_shape shape;
  const char *dtype;
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
    sq_fail(&st, "data must be a blob, got %s", sq_ff_type_name(argv[0]));
    goto done;
  }
  if (!(dtype = sq_arg_text(argv[1], "dtype", &st))) goto done;
  if (sq_ff_shape(argv[2], SQ_SHAPE_ZERO_DIMS, &shape, &st)) goto done;
  const void *data = sqlite3_value_blob(argv[0]);
  size_t nbytes = (size_t)sqlite3_value_bytes(argv[0]);
  if (!data && nbytes == 0) data = "";
  else if (!data) {
    sq_nomem(&st);
    goto done;
  }
  unsigned char *out;
  uint64_t outn;
  if (sq_npy_write(dtype, strlen(dtype), &shape, data, nbytes, &out, &outn,
                   &st))
    goto done;
  sq_result_blob(ctx, out, outn, &st);
done:
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

/* ---- q_safetensors_agg ------------------------------------------------- */

typedef struct sq_st_agg {
  sq_status failed;         /* first member: see sq_agg_state */
  sq_st_writer w;           /* grows only after a row was checked */
  char *meta;               /* the metadata text taken, to compare */
  size_t nmeta;
  int has_meta;
} sq_st_agg;

static void sq_st_agg_step(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  sq_st_agg *a = sq_agg_state(ctx, sizeof *a, name);
  if (!a) return;
  sq_shape shape;
  const char *tname, *dtype;
  if (!(tname = sq_arg_text(argv[0], "name", &st))) goto done;
  if (sqlite3_value_type(argv[1]) != SQLITE_BLOB) {
    sq_fail(&st, "data must be a blob, got %s", sq_ff_type_name(argv[1]));
    goto done;
  }
  if (!(dtype = sq_arg_text(argv[2], "dtype", &st))) goto done;
  if (sqlite3_value_type(argv[3]) == SQLITE_NULL) {
    sq_fail(&st, "shape must not be NULL");
    goto done;
  }
  if (sq_ff_shape(argv[3], 0, &shape, &st)) goto done;
  const void *data = sqlite3_value_blob(argv[1]);
  size_t nbytes = (size_t)sqlite3_value_bytes(argv[1]);
  if (!data && nbytes) {
    sq_nomem(&st);
    goto done;
  }
  if (sq_st_writer_add(&a->w, tname, strlen(tname), dtype, strlen(dtype),
                       &shape, data ? data : "", nbytes, &st))
    goto done;
  if (argc > 4 && sqlite3_value_type(argv[4]) != SQLITE_NULL) {
    const char *m = sq_arg_text(argv[4], "metadata", &st);
    if (!m) goto done;
    size_t n = strlen(m);
    if (a->has_meta) {
      if (n != a->nmeta || memcmp(m, a->meta, n) != 0)
        sq_fail(&st, "metadata differs from the first row's (give it once, "
                     "or the same on every row)");
      goto done;
    }
    if (sq_st_writer_metadata(&a->w, m, n, &st)) goto done;
    if (!(a->meta = sq_alloc(&st, n + 1, 1))) goto done;
    memcpy(a->meta, m, n);
    a->nmeta = n;
    a->has_meta = 1;
  }
done:
  if (st.code) {
    a->failed = st;
    sq_st_writer_free(&a->w);
    sqlite3_free(a->meta);
    a->meta = NULL;
    sq_result_status(ctx, name, &st);
  }
}

static void sq_st_agg_final(sqlite3_context *ctx) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  sq_st_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (!a) return;
  if (a->failed.code) {
    sq_result_status(ctx, name, &a->failed);
  } else if (a->w.ntensors) {
    unsigned char *out;
    uint64_t outn;
    if (sq_st_writer_finish(&a->w, &out, &outn, &st) == SQ_OK)
      sq_result_blob(ctx, out, outn, &st);
    else
      sq_result_status(ctx, name, &st);
  }
  sq_st_writer_free(&a->w);
  sqlite3_free(a->meta);
  a->meta = NULL;
}

static const sq_fn sq_st_agg_fn = {"q_safetensors_agg", 0};

/* ---- q_npz_agg ---------------------------------------------------------- */

typedef struct sq_npz_agg {
  sq_status failed;         /* first member: see sq_agg_state */
  sq_npz_writer w;
} sq_npz_agg;

static void sq_npz_agg_step(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  (void)argc;
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  sq_npz_agg *a = sq_agg_state(ctx, sizeof *a, name);
  if (!a) return;
  sq_shape shape;
  const char *tname, *dtype;
  if (!(tname = sq_arg_text(argv[0], "name", &st))) goto done;
  if (sqlite3_value_type(argv[1]) != SQLITE_BLOB) {
    sq_fail(&st, "data must be a blob, got %s", sq_ff_type_name(argv[1]));
    goto done;
  }
  if (!(dtype = sq_arg_text(argv[2], "dtype", &st))) goto done;
  if (sqlite3_value_type(argv[3]) == SQLITE_NULL) {
    sq_fail(&st, "shape must not be NULL");
    goto done;
  }
  if (sq_ff_shape(argv[3], SQ_SHAPE_ZERO_DIMS, &shape, &st)) goto done;
  const void *data = sqlite3_value_blob(argv[1]);
  size_t nbytes = (size_t)sqlite3_value_bytes(argv[1]);
  if (!data && nbytes) {
    sq_nomem(&st);
    goto done;
  }
  sq_npz_writer_add(&a->w, tname, strlen(tname), dtype, strlen(dtype), &shape,
                    data ? data : "", nbytes, &st);
done:
  if (st.code) {
    a->failed = st;
    sq_npz_writer_free(&a->w);
    sq_result_status(ctx, name, &st);
  }
}

static void sq_npz_agg_final(sqlite3_context *ctx) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  sq_npz_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (!a) return;
  if (a->failed.code) {
    sq_result_status(ctx, name, &a->failed);
  } else if (a->w.nmembers) {
    unsigned char *out;
    uint64_t outn;
    if (sq_npz_writer_finish(&a->w, &out, &outn, &st) == SQ_OK)
      sq_result_blob(ctx, out, outn, &st);
    else
      sq_result_status(ctx, name, &st);
  }
  sq_npz_writer_free(&a->w);
}

static const sq_fn sq_npz_agg_fn = {"q_npz_agg", 0};

int sq_register_file_functions(sqlite3 *db) {
  static const sq_fn_def defs[] = {
    {{"q_npy", 0}, 3, 3, sq_npy_func},
  };
  int rc = sq_register_table(db, defs, sizeof defs / sizeof defs[0]);
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  for (int n = 4; n <= 5 && rc == SQLITE_OK; n++)
    rc = sqlite3_create_function(db, sq_st_agg_fn.name, n, flags,
                                 (void *)&sq_st_agg_fn, NULL, sq_st_agg_step,
                                 sq_st_agg_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, sq_npz_agg_fn.name, 4, flags,
                                 (void *)&sq_npz_agg_fn, NULL, sq_npz_agg_step,
                                 sq_npz_agg_final);
  return rc;
}
