/*
** tensor_functions.c: tensors in and out of SQL (docs/NUMERICS.md#float-tensors
** and docs/NUMERICS.md#half-formats).
**
**   q_f32(x [, from])          float32 BLOB from f32 (blob or JSON), f16, bf16, f64
**   q_f16(x), q_bf16(x)        half-format BLOB, round to nearest even
**   q_json(blob [, dtype [, count]])  JSON array text (shortest float32 decimals)
**   q_length(blob [, dtype])   element count
**   q_version(), q_info()
**
** Rules: NULL in gives NULL; JSON cannot hold NaN or infinity, so q_json
** reports the first such element as an error (q_each shows them).
*/
#include <stdio.h>
#include <string.h>
#include "sql/sql.h"

static void sq_f32_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_elements e;
  memset(&e, 0, sizeof e);
  const sq_dtype *from = sq_arg_dtype(argc, argv, 1, SQ_DTYPES_FLOATS,
                                      &sq_dtype_f32, &st);
  if (!from ||
      sq_arg_elements(sq_kernels_active(), argv[0], "x", from, -1, &e, &st))
    goto done;
  uint64_t nbytes = (uint64_t)e.n * 4;
  void *out = e.f32.owned;
  if (out) {
    e.f32.owned = NULL;          /* hand the converted buffer over */
  } else {
    if (!(out = sq_alloc(&st, nbytes, 1))) goto done;
    if (nbytes) memcpy(out, e.f32.data, nbytes);
  }
  sq_result_blob(ctx, out, nbytes, &st);
done:
  sq_elements_free(&e);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

enum { SQ_TO_F16, SQ_TO_BF16 };

static void sq_half_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_tensor x;
  if (sq_arg_tensor(argv[0], "x", &x, &st)) goto done;
  void *out = sq_alloc(&st, x.n, 2);
  if (!out) goto done;
  const sq_kernels *k = sq_kernels_active();
  if (fn->variant == SQ_TO_F16) k->f32_to_f16(x.data, x.n, out);
  else k->f32_to_bf16(x.data, x.n, out);
  sq_result_blob(ctx, out, (uint64_t)x.n * 2, &st);
done:
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

static void sq_json_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_elements e;
  if (sq_arg_blob_elements(argc, argv, argv[0], &e, &st)) goto done;
  const sq_dtype *dt = e.dt;
  sqlite3_str *s = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  sqlite3_str_appendchar(s, 1, '[');
  for (size_t i = 0; i < e.n; i++) {
    char num[40];
    if (i) sqlite3_str_appendchar(s, 1, ',');
    if (dt->kind == SQ_FMT_FLOAT) {
      float f = sq_element_float(&e, i);
      if (f != f || f - f != 0.0f) {
        sq_fail(&st, "element %zu is %s (JSON has no NaN or infinity)", i,
                f != f ? "NaN" : f > 0 ? "inf" : "-inf");
        break;
      }
      sq_format_f32(f, num);
    } else {
      snprintf(num, sizeof num, "%lld", (long long)sq_element_code(&e, i));
    }
    sqlite3_str_appendall(s, num);
  }
  sqlite3_str_appendchar(s, 1, ']');
  int err = sqlite3_str_errcode(s);
  char *text = sqlite3_str_finish(s);
  if (st.code || err) {
    sqlite3_free(text);
    if (err == SQLITE_TOOBIG) st.code = SQ_TOOBIG;
    else if (err) st.code = SQ_NOMEM;
    goto done;
  }
  sqlite3_result_text(ctx, text, -1, sqlite3_free);
done:
  sq_elements_free(&e);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

/* Counts without converting anything. */
static void sq_length_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_tensor t = {0};
  const void *data;
  size_t nbytes, n;
  const sq_dtype *dt = sq_arg_dtype(argc, argv, 1, SQ_DTYPES_ANY, &sq_dtype_f32, &st);
  if (!dt) {
  } else if (dt->kind == SQ_FMT_FLOAT && dt->bits == 32) {
    if (!sq_arg_tensor(argv[0], "blob", &t, &st))
      sqlite3_result_int64(ctx, (sqlite3_int64)t.n);
  } else if (!sq_arg_codes(argv[0], "blob", dt, &data, &nbytes, &st) &&
             !sq_codes_count(dt, nbytes, -1, &n, &st)) {
    sqlite3_result_int64(ctx, (sqlite3_int64)n);
  }
  sq_tensor_free(&t);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

static void sq_version_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, SQLITE_QUANT_VERSION, -1, SQLITE_STATIC);
}

static void sq_info_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_str *s = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  sqlite3_str_appendf(s, "{\"version\":\"%s\",\"sqlite\":\"%s\",\"kernel\":\"%s\",\"kernels\":[",
                      SQLITE_QUANT_VERSION, SQLITE_VERSION,
                      sq_kernels_active()->name);
  const char *const *names = sq_kernels_available();
  for (int i = 0; names[i]; i++)
    sqlite3_str_appendf(s, "%s\"%s\"", i ? "," : "", names[i]);
  sqlite3_str_appendall(s, "]}");
  int err = sqlite3_str_errcode(s);
  char *text = sqlite3_str_finish(s);
  if (err) {
    sqlite3_free(text);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, text, -1, sqlite3_free);
}

static const sq_fn_def sq_tensor_defs[] = {
  {{"q_f32", 0}, 1, 2, sq_f32_func},
  {{"q_f16", SQ_TO_F16}, 1, 1, sq_half_func},
  {{"q_bf16", SQ_TO_BF16}, 1, 1, sq_half_func},
  {{"q_json", 0}, 1, 3, sq_json_func},
  {{"q_length", 0}, 1, 2, sq_length_func},
  {{"q_version", 0}, 0, 0, sq_version_func},
  {{"q_info", 0}, 0, 0, sq_info_func},
};

int sq_register_tensor_functions(sqlite3 *db) {
  return sq_register_table(db, sq_tensor_defs,
                           sizeof sq_tensor_defs / sizeof sq_tensor_defs[0]);
}
