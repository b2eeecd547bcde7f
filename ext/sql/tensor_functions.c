/*
** tensor_functions.c: tensors in and out of SQL (docs/NUMERICS.md#float-tensors
** and docs/NUMERICS.md#half-formats).
**
**   q_f32(x [, from])          float32 BLOB from f32 (blob or JSON), f16, bf16,
**                              f64, or any dtype a model file stores
**                              (integers, bool, f8, "...be", ggml blocks)
**   q_f16(x), q_bf16(x)        half-format BLOB, round to nearest even
**   q_json(blob [, dtype [, count]])  JSON array text (shortest float32 decimals)
**   q_length(blob [, dtype])   element count
**   q_version()
**   q_info()                   JSON: the build, its kernel paths, and
**                              "files": whether this connection has the
**                              functions that open paths
**
** Rules: NULL in gives NULL; JSON cannot hold NaN or infinity, so q_json
** reports the first such element as an error (q_each shows them).
*/
#include <stdio.h>
#include <string.h>
#include "core/text.h"
#include "sql/sql.h"

/* The `from` of q_f32 when it names a stored dtype beyond the float family
** (the integers, bool, f8, big-endian forms, ggml's block types): x is then
** a file's stored bytes (docs/FORMATS.md#converting-to-float32). */
static const char *sq_f32_stored_from(int argc, sqlite3_value **argv) {
  if (argc < 2) {
    /* No `from`: an integer dtype a model file stores, known by x's
    ** subtype, is read as that dtype. */
    const sq_dtype *dt = sqlite3_value_type(argv[0]) == SQLITE_BLOB
                             ? sq_subtype_dtype(sqlite3_value_subtype(argv[0]))
                             : NULL;
    return dt && dt->kind == SQ_FMT_CODE && sq_stored_dtype_element(dt->name)
               ? dt->name : NULL;
  }
  if (sqlite3_value_type(argv[1]) != SQLITE_TEXT) return NULL;
  const char *name = (const char *)sqlite3_value_text(argv[1]);
  size_t len = (size_t)sqlite3_value_bytes(argv[1]);
  if (!name || sq_word_is(name, len, "f32") || sq_word_is(name, len, "f16") ||
      sq_word_is(name, len, "bf16") || sq_word_is(name, len, "f64"))
    return NULL;
  return sq_stored_dtype_known(name, len) ? name : NULL;
}

static void sq_f32_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  const char *stored = sq_f32_stored_from(argc, argv);
  if (stored) {
    sq_tensor t = {0};
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
      sq_fail(&st, "x must be a blob of %s data, got %s", stored,
              sqlite3_value_type(argv[0]) == SQLITE_TEXT ? "text" : "a number");
    } else if (sq_arg_subtype_is(argv[0], "x",
                                 sq_stored_dtype_subtype(stored, strlen(stored)),
                                 stored, &st)) {
    } else {
      const unsigned char *p = sqlite3_value_blob(argv[0]);
      uint64_t n = (uint64_t)sqlite3_value_bytes(argv[0]);
      if ((!p && n) || (!p && sqlite3_errcode(sqlite3_context_db_handle(ctx)) ==
                                  SQLITE_NOMEM)) {
        sq_nomem(&st);
      } else if (!sq_f32_from_stored(sq_kernels_active(), stored,
                                     strlen(stored), p ? p : (const unsigned char *)"",
                                     n, "x", &t, &st)) {
        sq_result_typed(ctx, t.owned, (uint64_t)t.n * 4, SQ_SUBTYPE_F32, &st);
        t.owned = NULL;
      }
    }
    sq_tensor_free(&t);
    if (st.code) sq_result_status(ctx, fn->name, &st);
    return;
  }
  const char *from_text = argc > 1 && sqlite3_value_type(argv[1]) == SQLITE_TEXT
                              ? (const char *)sqlite3_value_text(argv[1]) : NULL;
  /* An unknown name gets the whole list; a NUL inside, or no memory for the
  ** text, is left to sq_arg_dtype's own message. */
  if (from_text && strlen(from_text) == (size_t)sqlite3_value_bytes(argv[1]) &&
      !sq_dtype_find(from_text, SQ_DTYPES_FLOATS, &st)) {
    st.code = SQ_OK;
    sq_names valid;
    sq_names_begin(&valid);
    sq_stored_dtype_names(&valid);
    sq_fail(&st, "unknown dtype '%.40s' (expected %s, a ggml block type such "
                 "as q4_K, or a big-endian form such as f32be)", from_text,
            sq_names_join(&valid, ", ", ", "));
    sq_result_status(ctx, fn->name, &st);
    return;
  }
  sq_elements e;
  memset(&e, 0, sizeof e);
  const sq_dtype *from = sq_arg_dtype_of(argc, argv, 1, SQ_DTYPES_FLOATS,
                                         &sq_dtype_f32, argv[0], "x", &st);
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
  sq_result_typed(ctx, out, nbytes, SQ_SUBTYPE_F32, &st);
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
  sq_result_typed(ctx, out, (uint64_t)x.n * 2,
                  fn->variant == SQ_TO_F16 ? SQ_SUBTYPE_F16 : SQ_SUBTYPE_BF16,
                  &st);
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
  size_t nbytes, n = 0;
  const sq_dtype *dt = sq_arg_dtype_of(argc, argv, 1, SQ_DTYPES_ANY,
                                       &sq_dtype_f32, argv[0], "blob", &st);
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

/* sq_fn.variant of q_info: 1 when the functions and tables that open paths
** are registered on its connection. */
static void sq_info_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  const sq_fn *fn = sqlite3_user_data(ctx);
  sqlite3_str *s = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  sqlite3_str_appendf(s, "{\"version\":\"%s\",\"sqlite\":\"%s\",\"kernel\":\"%s\",\"kernels\":[",
                      SQLITE_QUANT_VERSION, SQLITE_VERSION,
                      sq_kernels_active()->name);
  const char *const *names = sq_kernels_available();
  for (int i = 0; names[i]; i++)
    sqlite3_str_appendf(s, "%s\"%s\"", i ? "," : "", names[i]);
  sqlite3_str_appendf(s, "],\"files\":%s}", fn->variant ? "true" : "false");
  int err = sqlite3_str_errcode(s);
  char *text = sqlite3_str_finish(s);
  if (err) {
    sqlite3_free(text);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, text, -1, sqlite3_free);
}

/* The family's functions of ext/catalogue.toml (sql/catalogue.h) ... */
static const sq_fn_def sq_tensor_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_TENSOR(SQ_FN_DEF)
};

/* ... but q_info, registered here by hand: its user data says whether its
** connection reaches files. */
static const sq_fn_def sq_info_defs[2] = {
  {{"q_info", 0, SQ_VALUES}, 0, 0, 0, sq_info_func, NULL, NULL, NULL, NULL},
  {{"q_info", 1, SQ_VALUES}, 0, 0, 0, sq_info_func, NULL, NULL, NULL, NULL},
};

int sq_register_tensor_functions(sq_registry *r) {
  int rc = sq_register_table(r, sq_tensor_defs,
                             sizeof sq_tensor_defs / sizeof sq_tensor_defs[0]);
  if (rc == SQLITE_OK)
    rc = sq_create_function(r, &sq_info_defs[r->paths != 0]);
  return rc;
}
