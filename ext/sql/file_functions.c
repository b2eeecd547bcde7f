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
**
** The path writers (q_safetensors_write, q_gguf_write, q_npz_write) are
** tables written by a transaction: write_tables.c.
**
** Rules: NULL in gives NULL (the aggregates skip rows whose data is NULL;
** no rows give NULL and write no file; a row with data but a NULL name,
** dtype or shape is an error); q_npy and q_npz_agg take shapes with 0 dims
** (empty arrays); a safetensors or GGUF tensor may come in several
** consecutive rows (docs/FORMATS.md#chunks); after an error the aggregate
** repeats it (sq_agg_state).
*/
#include <string.h>
#include "formats/npy_write.h"
#include "formats/writer.h"
#include "sql/sql.h"

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
    sq_fail(&st, "data must be a blob, got %s", sq_value_type_name(argv[0]));
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

/* ---- a writer's row (shared with write_tables.c) ------------------------ */

int sq_writer_row_decode(sqlite3_value **v, const char *dtype_arg,
                         unsigned shape_flags, sq_writer_row *r,
                         sq_status *st) {
  memset(r, 0, sizeof *r);
  if (!(r->name = sq_arg_text(v[0], "name", st))) return st->code;
  if (sqlite3_value_type(v[1]) != SQLITE_BLOB)
    return sq_fail(st, "data must be a blob, got %s", sq_value_type_name(v[1]));
  if (!(r->dtype = sq_arg_text(v[2], dtype_arg, st))) return st->code;
  if (sqlite3_value_type(v[3]) == SQLITE_NULL)
    return sq_fail(st, "shape must not be NULL");
  if (sq_ff_shape(v[3], shape_flags, &r->shape, st)) return st->code;
  r->data = sqlite3_value_blob(v[1]);
  r->nbytes = (size_t)sqlite3_value_bytes(v[1]);
  if (!r->data && r->nbytes) return sq_nomem(st);
  if (!r->data) r->data = "";
  return SQ_OK;
}

int sq_writer_meta_take(sq_writer_meta *m, sq_file_writer *w,
                        sqlite3_value *v, sq_status *st) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return SQ_OK;
  const char *text = sq_arg_text(v, "metadata", st);
  if (!text) return st->code;
  size_t n = strlen(text);
  if (m->given) {
    if (n != m->n || memcmp(text, m->text, n) != 0)
      return sq_fail(st, "metadata differs from the first row's (give it "
                         "once, or the same on every row)");
    return SQ_OK;
  }
  char *copy = sq_alloc(st, n + 1, 1);
  if (!copy) return st->code;
  if (sq_file_writer_metadata(w, text, n, st)) {
    sqlite3_free(copy);
    return st->code;
  }
  memcpy(copy, text, n + 1);
  m->text = copy;
  m->n = n;
  m->given = 1;
  return SQ_OK;
}

void sq_writer_meta_free(sq_writer_meta *m) {
  sqlite3_free(m->text);
  memset(m, 0, sizeof *m);
}

/* ---- the writer aggregates -------------------------------------------- */

typedef struct sq_ff_agg {
  sq_status failed;         /* first member: see sq_agg_state */
  sq_file_writer w;         /* started on the first row with data */
  int started;
  uint64_t rows;            /* rows written */
  sq_writer_meta meta;
} sq_ff_agg;

static void sq_ff_agg_free(sq_ff_agg *a) {
  if (a->started) sq_file_writer_free(&a->w);
  a->started = 0;
  sq_writer_meta_free(&a->meta);
}

static void sq_ff_agg_step(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  sq_ff_agg *a = sq_agg_state(ctx, sizeof *a, name);
  if (!a) return;
  if (!a->started) {
    sq_file_writer_init(&a->w, (sq_file_format)fn->variant);
    a->started = 1;
  }
  /* The metadata before the tensor: GGUF's general.alignment places the
  ** data. */
  const sq_writer_ops *ops = a->w.ops;
  sq_writer_row r;
  if (sq_writer_row_decode(argv, ops->dtype_column, ops->shape_flags, &r,
                           &st) == SQ_OK &&
      (argc < 5 || sq_writer_meta_take(&a->meta, &a->w, argv[4], &st) == SQ_OK) &&
      sq_file_writer_add(&a->w, r.name, strlen(r.name), r.dtype,
                         strlen(r.dtype), &r.shape, r.data, r.nbytes,
                         &st) == SQ_OK)
    a->rows++;
  if (st.code) {
    sq_ff_agg_free(a);
    a->failed = st;
    sq_result_status(ctx, name, &st);
  }
}

static void sq_ff_agg_final(sqlite3_context *ctx) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  sq_ff_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (!a) return;
  if (a->failed.code) {
    sq_result_status(ctx, name, &a->failed);
  } else if (a->rows) {
    unsigned char *out;
    uint64_t outn;
    if (sq_file_writer_finish(&a->w, &out, &outn, &st) == SQ_OK)
      sq_result_blob(ctx, out, outn, &st);
    if (st.code) sq_result_status(ctx, name, &st);
  }
  sq_ff_agg_free(a);
}

/* The family's functions of ext/catalogue.toml (sql/catalogue.h); the
** aggregates' variant is the format, and a format that takes metadata takes
** it as a fifth argument; they return a BLOB: innocuous. */
static const sq_fn_def sq_file_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_FILE(SQ_FN_DEF)
};

int sq_register_file_functions(sq_registry *r) {
  return sq_register_table(r, sq_file_defs,
                           sizeof sq_file_defs / sizeof sq_file_defs[0]);
}
