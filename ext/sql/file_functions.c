/*
** file_functions.c: model files written from SQL values
** (docs/FORMATS.md#writing).
**
**   q_npy(data, dtype, shape)   a .npy BLOB as numpy.save writes it
**
** Rules: NULL in gives NULL; the result is bounded by SQLITE_LIMIT_LENGTH
** (SQLITE_TOOBIG past it).
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

static int sq_ff_shape(sqlite3_value *v, sq_shape *s, sq_status *st) {
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
  return sq_arg_shape(v, s, st);
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
  if (sq_ff_shape(argv[2], &shape, &st)) goto done;
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

int sq_register_file_functions(sqlite3 *db) {
  static const sq_fn_def defs[] = {
    {{"q_npy", 0}, 3, 3, sq_npy_func},
  };
  return sq_register_table(db, defs, sizeof defs / sizeof defs[0]);
}
