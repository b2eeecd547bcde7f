/*
** file_functions.c: model files written from SQL values
** (docs/FORMATS.md#writing).
**
**   q_npy(data, dtype, shape)   a .npy BLOB as numpy.save writes it
**   q_safetensors_agg(name, data, dtype, shape [, metadata])
**   q_gguf_agg(name, data, type, shape [, metadata])
**                               aggregates: a safetensors / GGUF BLOB of the
**                               rows, bounded by SQLITE_LIMIT_LENGTH
**                               (SQLITE_TOOBIG past it)
**   q_npz_agg(name, data, dtype, shape)
**                               aggregate: a .npz BLOB as numpy.savez writes
**                               it, one member "<name>.npy" per row
**   q_safetensors_write(path, name, data, dtype, shape [, metadata])
**   q_gguf_write(path, name, data, type, shape [, metadata])
**                               aggregates, SQLITE_DIRECTONLY: the file at
**                               path (replaced only on success), its size
**                               returned (docs/FORMATS.md#file-writers)
**
** Rules: NULL in gives NULL (the aggregates skip rows whose data is NULL;
** no rows give NULL and write no file; a row with data but a NULL name,
** dtype or shape is an error); q_npy and q_npz_agg take shapes with 0 dims
** (empty arrays); a safetensors or GGUF tensor may come in several
** consecutive rows (docs/FORMATS.md#chunks); after an error the aggregate
** repeats it (sq_agg_state).
*/
#include <string.h>
#include "core/model_write.h"
#include "core/model_writer.h"
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

/* ---- the four writer aggregates ----------------------------------------- */

/* sq_fn.variant: the format, plus SQ_FF_FILE for the file writers (whose
** first argument is the path). */
#define SQ_FF_FILE 2

typedef struct sq_ff_agg {
  sq_status failed;         /* first member: see sq_agg_state */
  sq_model_writer w;        /* opened on the first row with data */
  int started;
  char *meta;               /* the metadata text taken, to compare */
  size_t nmeta;
  int has_meta;
  char *path;               /* the file writers' path, to compare */
} sq_ff_agg;

static void sq_ff_agg_free(sq_ff_agg *a) {
  if (a->started) sq_model_writer_free(&a->w);
  a->started = 0;
  sqlite3_free(a->meta);
  a->meta = NULL;
  sqlite3_free(a->path);
  a->path = NULL;
}

static void sq_ff_agg_step(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  int file = fn->variant & SQ_FF_FILE;
  sq_mw_format format = (sq_mw_format)(fn->variant & 1);
  const char *dtype_arg = format == SQ_MW_GGUF ? "type" : "dtype";
  sqlite3_value **v = argv + (file ? 1 : 0);
  int nv = argc - (file ? 1 : 0);
  if (sqlite3_value_type(v[1]) == SQLITE_NULL) return;
  sq_ff_agg *a = sq_agg_state(ctx, sizeof *a, name);
  if (!a) return;
  sq_shape shape;
  const char *tname, *dtype;
#ifndef SQLITE_QUANT_OMIT_FS
  if (file) {
    const char *path = sq_arg_text(argv[0], "path", &st);
    if (!path) goto done;
    if (!a->started) {
      if (sq_model_writer_open(&a->w, format, path, &st)) {
        a->started = 1;
        goto done;
      }
      a->started = 1;
      size_t n = strlen(path);
      if (!(a->path = sq_alloc(&st, n + 1, 1))) goto done;
      memcpy(a->path, path, n + 1);
    } else if (strcmp(path, a->path) != 0) {
      sq_fail(&st, "path differs from the first row's ('%.200s')", a->path);
      goto done;
    }
  } else
#endif
  if (!a->started) {
    sq_model_writer_init(&a->w, format);
    a->started = 1;
  }
  if (!(tname = sq_arg_text(v[0], "name", &st))) goto done;
  if (sqlite3_value_type(v[1]) != SQLITE_BLOB) {
    sq_fail(&st, "data must be a blob, got %s", sq_ff_type_name(v[1]));
    goto done;
  }
  if (!(dtype = sq_arg_text(v[2], dtype_arg, &st))) goto done;
  if (sqlite3_value_type(v[3]) == SQLITE_NULL) {
    sq_fail(&st, "shape must not be NULL");
    goto done;
  }
  /* safetensors holds empty arrays (data_offsets [x, x]); GGUF's tensors
  ** are not empty. */
  if (sq_ff_shape(v[3], format == SQ_MW_SAFETENSORS ? SQ_SHAPE_ZERO_DIMS : 0,
                  &shape, &st))
    goto done;
  const void *data = sqlite3_value_blob(v[1]);
  size_t nbytes = (size_t)sqlite3_value_bytes(v[1]);
  if (!data && nbytes) {
    sq_nomem(&st);
    goto done;
  }
  /* The metadata first: GGUF's general.alignment places the data. */
  if (nv > 4 && sqlite3_value_type(v[4]) != SQLITE_NULL) {
    const char *m = sq_arg_text(v[4], "metadata", &st);
    if (!m) goto done;
    size_t n = strlen(m);
    if (a->has_meta) {
      if (n != a->nmeta || memcmp(m, a->meta, n) != 0) {
        sq_fail(&st, "metadata differs from the first row's (give it once, "
                     "or the same on every row)");
        goto done;
      }
    } else {
      if (sq_model_writer_metadata(&a->w, m, n, &st)) goto done;
      if (!(a->meta = sq_alloc(&st, n + 1, 1))) goto done;
      memcpy(a->meta, m, n);
      a->nmeta = n;
      a->has_meta = 1;
    }
  }
  sq_model_writer_add(&a->w, tname, strlen(tname), dtype, strlen(dtype),
                      &shape, data ? data : "", nbytes, &st);
done:
  if (st.code) {
    sq_ff_agg_free(a);
    a->failed = st;
    sq_result_status(ctx, name, &st);
  }
}

#ifndef SQLITE_QUANT_OMIT_FS
/* Whether the statement running this aggregate was interrupted.  SQLite
** calls xFinal both at the end of the rows and when it abandons the
** statement, alike; sqlite3_interrupt is told apart by running a trivial
** statement, which fails with SQLITE_INTERRUPT while the flag is up. */
static int sq_ff_interrupted(sqlite3 *db, sq_status *st) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT 1", -1, &s, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc == SQLITE_NOMEM) sq_nomem(st);
  return rc == SQLITE_INTERRUPT || rc == SQLITE_NOMEM;
}
#endif

static void sq_ff_agg_final(sqlite3_context *ctx) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  sq_ff_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (!a) return;
  if (a->failed.code) {
    sq_result_status(ctx, name, &a->failed);
  } else if (a->started && a->w.ntensors) {
#ifndef SQLITE_QUANT_OMIT_FS
    const sq_fn *fn = sqlite3_user_data(ctx);
    if (fn->variant & SQ_FF_FILE) {
      uint64_t written;
      if (sq_ff_interrupted(sqlite3_context_db_handle(ctx), &st)) {
        if (!st.code) sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
      } else if (sq_model_writer_commit(&a->w, &written, &st) == SQ_OK) {
        sqlite3_result_int64(ctx, (sqlite3_int64)written);
      }
    } else
#endif
    {
      unsigned char *out;
      uint64_t outn;
      if (sq_model_writer_finish(&a->w, &out, &outn, &st) == SQ_OK)
        sq_result_blob(ctx, out, outn, &st);
    }
    if (st.code) sq_result_status(ctx, name, &st);
  }
  sq_ff_agg_free(a);
}

static const sq_fn sq_ff_agg_fns[] = {
  {"q_safetensors_agg", SQ_MW_SAFETENSORS, SQ_VALUES},
  {"q_gguf_agg", SQ_MW_GGUF, SQ_VALUES},
#ifndef SQLITE_QUANT_OMIT_FS
  {"q_safetensors_write", SQ_MW_SAFETENSORS | SQ_FF_FILE, SQ_PATHS},
  {"q_gguf_write", SQ_MW_GGUF | SQ_FF_FILE, SQ_PATHS},
#endif
};

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

static const sq_fn sq_npz_agg_fn = {"q_npz_agg", 0, SQ_VALUES};

int sq_register_file_functions(sq_registry *r) {
  static const sq_fn_def defs[] = {
    {{"q_npy", 0, SQ_VALUES}, 3, 3, sq_npy_func},
  };
  int rc = sq_register_table(r, defs, sizeof defs / sizeof defs[0]);
  /* The aggregates that return a BLOB are innocuous; those that write files
  ** (SQ_PATHS) are SQLITE_DIRECTONLY: never from a view, trigger or schema. */
  for (size_t k = 0; k < sizeof sq_ff_agg_fns / sizeof sq_ff_agg_fns[0] &&
                     rc == SQLITE_OK; k++) {
    const sq_fn *fn = &sq_ff_agg_fns[k];
    int file = (fn->variant & SQ_FF_FILE) != 0;
    rc = sq_create_function(r, fn, 4 + file, 5 + file, NULL, sq_ff_agg_step,
                            sq_ff_agg_final, NULL, NULL);
  }
  if (rc == SQLITE_OK)
    rc = sq_create_function(r, &sq_npz_agg_fn, 4, 4, NULL, sq_npz_agg_step,
                            sq_npz_agg_final, NULL, NULL);
  return rc;
}
