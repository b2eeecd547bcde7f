/*
** args.c: argument decoding, results and errors for every SQL function.
**
**   1. a NULL in any argument gives a NULL result;
**   2. errors read "<function>: <what is wrong>[, got <value>]"
**      (docs/NUMERICS.md#errors);
**   3. out of memory raises sqlite3_result_error_nomem, a result larger than
**      SQLITE_LIMIT_LENGTH raises sqlite3_result_error_toobig;
**   4. text arguments (dtype, scheme, options, shape) are taken with their
**      byte length: an embedded NUL is an error, not the end of the text.
*/
#include <math.h>
#include <string.h>
#include "core/text.h"
#include "formats/formats.h"
#include "sql/sql.h"
#include "kernels/bnb4.h"
#include "kernels/byteorder.h"

void sq_status_begin(sq_status *st, sqlite3 *db) {
  st->code = SQ_OK;
  st->msg[0] = 0;
  st->max_bytes = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
}

const char *sq_begin(sqlite3_context *ctx, sq_status *st) {
  sq_status_begin(st, sqlite3_context_db_handle(ctx));
  const sq_fn *fn = sqlite3_user_data(ctx);
  return fn->name;
}

const sq_fn *sq_call(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                    sq_status *st) {
  sq_begin(ctx, st);
  return sq_any_null(argc, argv) ? NULL : sqlite3_user_data(ctx);
}

void *sq_agg_state(sqlite3_context *ctx, size_t size, const char *name) {
  sq_status *failed = sqlite3_aggregate_context(ctx, (int)size);
  if (!failed) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  if (failed->code) {
    sq_result_status(ctx, name, failed);
    return NULL;
  }
  return failed;
}

int sq_any_null(int argc, sqlite3_value **argv) {
  for (int i = 0; i < argc; i++)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return 1;
  return 0;
}

void sq_result_status(sqlite3_context *ctx, const char *name,
                      const sq_status *st) {
  if (st->code == SQ_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else if (st->code == SQ_TOOBIG) {
    sqlite3_result_error_toobig(ctx);
  } else {
    char *msg = sqlite3_mprintf("%s: %s", name, st->msg);
    if (!msg) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
  }
}

/* 1 when buf became the result; 0 when it was too big (freed, and the
** error raised). */
static int sq_result_blob_fits(sqlite3_context *ctx, void *buf, uint64_t nbytes,
                               const sq_status *st) {
  if (nbytes > (uint64_t)st->max_bytes) {
    sqlite3_free(buf);
    sqlite3_result_error_toobig(ctx);
    return 0;
  }
  sqlite3_result_blob64(ctx, buf, nbytes, sqlite3_free);
  return 1;
}

void sq_result_blob(sqlite3_context *ctx, void *buf, uint64_t nbytes,
                    const sq_status *st) {
  (void)sq_result_blob_fits(ctx, buf, nbytes, st);
}

void sq_result_typed(sqlite3_context *ctx, void *buf, uint64_t nbytes,
                     unsigned subtype, const sq_status *st) {
  if (sq_result_blob_fits(ctx, buf, nbytes, st))
    sqlite3_result_subtype(ctx, subtype);
}

const char *sq_value_type_name(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "blob";
    default: return "null";
  }
}

const char *sq_arg_text(sqlite3_value *v, const char *what, sq_status *st) {
  if (sqlite3_value_type(v) != SQLITE_TEXT) {
    sq_fail(st, "%s must be text, got %s", what, sq_value_type_name(v));
    return NULL;
  }
  const char *s = (const char *)sqlite3_value_text(v);
  if (!s) {
    sq_nomem(st);
    return NULL;
  }
  /* Text is taken with its byte length: a NUL inside would silently cut
  ** "quant_min=-100\0 quant_max=1" short. */
  size_t len = strlen(s);
  if (len != (size_t)sqlite3_value_bytes(v)) {
    sq_fail(st, "%s contains a NUL character at byte %zu", what, len);
    return NULL;
  }
  return s;
}

const sq_dtype *sq_arg_dtype(int argc, sqlite3_value **argv, int i, int family,
                             const sq_dtype *dflt, sq_status *st) {
  if (i >= argc) return dflt;
  const char *s = sq_arg_text(argv[i], "dtype", st);
  return s ? sq_dtype_find(s, family, st) : NULL;
}

/* Whether a value's subtype, when it has one of ours, is that of dtype
** `expected` (docs/reference/data-formats.md#subtypes). */
int sq_arg_subtype_is(sqlite3_value *v, const char *argname, unsigned expected,
                      const char *expected_name, sq_status *st) {
  unsigned sub = sqlite3_value_subtype(v);
  if (sq_subtype_fits(sub, expected)) return SQ_OK;
  return sq_fail(st, "%s is %s but dtype is %s", argname,
                 sq_subtype_what(sub), expected_name);
}

const sq_dtype *sq_arg_dtype_of(int argc, sqlite3_value **argv, int i,
                                int family, const sq_dtype *dflt,
                                sqlite3_value *data, const char *argname,
                                sq_status *st) {
  if (i < argc) {
    const sq_dtype *dt = sq_arg_dtype(argc, argv, i, family, dflt, st);
    if (dt && sqlite3_value_type(data) == SQLITE_BLOB &&
        sq_arg_subtype_is(data, argname, sq_dtype_subtype(dt), dt->name, st))
      return NULL;
    return dt;
  }
  if (sqlite3_value_type(data) != SQLITE_BLOB) return dflt;
  const sq_dtype *known = sq_subtype_dtype(sqlite3_value_subtype(data));
  if (!known) return dflt;
  int in_family = family == SQ_DTYPES_CODES ? known->kind == SQ_FMT_CODE
                  : family == SQ_DTYPES_QUANT ? known->kind != SQ_FMT_FLOAT
                  : family == SQ_DTYPES_FLOATS ? known->kind == SQ_FMT_FLOAT
                                               : !known->input_only &&
                                                     known->kind != SQ_FMT_FLOAT8;
  return in_family ? known : dflt;
}

int sq_arg_scheme(int argc, sqlite3_value **argv, int i, int *symmetric,
                  sq_status *st) {
  *symmetric = 0;
  if (i >= argc) return SQ_OK;
  const char *s = sq_arg_text(argv[i], "scheme", st);
  if (!s) return st->code;
  /* log2: docs/NUMERICS.md#logarithmic-log2 */
  if (sq_scheme_parse(s, strlen(s), symmetric)) return SQ_OK;
  sq_names valid;
  sq_names_begin(&valid);
  sq_scheme_names(&valid);
  return sq_fail(st, "unknown scheme '%.40s' (expected %s)", s,
                 sq_names_join(&valid, ", ", " or "));
}

int sq_arg_options(int argc, sqlite3_value **argv, int i, unsigned allowed,
                   sq_options *o, sq_status *st) {
  if (i >= argc) return sq_options_parse(NULL, allowed, o, st);
  const char *s = sq_arg_text(argv[i], "options", st);
  return s ? sq_options_parse(s, allowed, o, st) : st->code;
}


int sq_arg_double(sqlite3_value *v, const char *what, double *out,
                  sq_status *st) {
  int t = sqlite3_value_type(v);
  if (t != SQLITE_FLOAT && t != SQLITE_INTEGER)
    return sq_fail(st, "%s must be a number, got %s", what,
                   sq_value_type_name(v));
  *out = sqlite3_value_double(v);
  return SQ_OK;
}

int sq_arg_int(sqlite3_value *v, const char *what, int64_t *out, sq_status *st) {
  int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) {
    *out = sqlite3_value_int64(v);
    return SQ_OK;
  }
  if (t == SQLITE_FLOAT) {
    double d = sqlite3_value_double(v);
    if (d == floor(d) && fabs(d) < 9.0e15) {
      *out = (int64_t)d;
      return SQ_OK;
    }
    return sq_fail(st, "%s must be an integer, got %.17g", what, d);
  }
  return sq_fail(st, "%s must be an integer, got %s", what,
                 sq_value_type_name(v));
}

int sq_arg_codes(sqlite3_value *v, const char *argname, const sq_dtype *dt,
                 const void **data, size_t *nbytes, sq_status *st) {
  if (sqlite3_value_type(v) != SQLITE_BLOB)
    return sq_fail(st, "%s must be %s %s blob, got %s", argname,
                   sq_article(dt->name), dt->name, sq_value_type_name(v));
  if (sq_arg_subtype_is(v, argname, sq_dtype_subtype(dt), dt->name, st))
    return st->code;
  const void *p = sqlite3_value_blob(v);
  *nbytes = (size_t)sqlite3_value_bytes(v);
  *data = p ? p : (const void *)"";
  return SQ_OK;
}

static int sq_arg_int32s(sqlite3_value *v, const char *argname, sq_tensor *t,
                         sq_status *st);

int sq_arg_param_set(sqlite3_value *vscales, sqlite3_value *vzps, size_t count,
                     const char *unit, const char *expected, const sq_range *r,
                     int rounding, sq_param_set *ps, sq_status *st) {
  sq_tensor scales = {0}, zps = {0};
  memset(ps, 0, sizeof *ps);
  if (sq_arg_tensor(vscales, "scales", &scales, st) ||
      sq_arg_int32s(vzps, "zero_points", &zps, st))
    goto done;
  if (scales.n != count)
    sq_fail(st, "scales has %zu entr%s, expected %zu (%s)", scales.n,
            scales.n == 1 ? "y" : "ies", count, expected);
  else if (zps.n != count)
    sq_fail(st, "zero_points has %zu entr%s, expected %zu (%s)", zps.n,
            zps.n == 1 ? "y" : "ies", count, expected);
  else
    sq_param_set_make(scales.data, zps.data, count, unit, r, rounding, ps, st);
done:
  sq_tensor_free(&zps);
  sq_tensor_free(&scales);
  return st->code;
}

void sq_result_params(sqlite3_context *ctx, const float *mn, const float *mx,
                      size_t count, const sq_range *r, int symmetric,
                      int want_scale, sq_status *st) {
  unsigned char *out = sq_alloc(st, count, 4);
  if (!out) return;
  for (size_t c = 0; c < count; c++) {
    float scale;
    int32_t zp;
    if (sq_choose_qparams(mn[c], mx[c], r, symmetric, &scale, &zp, st)) {
      sqlite3_free(out);
      return;
    }
    if (want_scale) sq_store_f32(out + 4 * c, scale);
    else sq_store_u32(out + 4 * c, (uint32_t)zp);
  }
  sq_result_typed(ctx, out, (uint64_t)count * 4,
                  want_scale ? SQ_SUBTYPE_F32 : SQ_SUBTYPE_INT32, st);
}

/* A list of 4-byte little-endian words: a BLOB read in place, or JSON text
** parsed into float32 (float_words) or int32. */
static int sq_words_from_value(sqlite3_value *v, const char *argname,
                               int float_words, sq_tensor *t, sq_status *st) {
  const char *what = float_words ? "float32" : "int32";
  memset(t, 0, sizeof *t);
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return SQ_NULL;
  if (type == SQLITE_BLOB) {
    const void *p = sqlite3_value_blob(v);
    int nb = sqlite3_value_bytes(v);
    if (nb % 4)
      return sq_fail(st, "%s blob length %d is not a multiple of 4", what, nb);
    t->data = p ? p : (const void *)"";
    t->n = (size_t)nb / 4;
    return SQ_OK;
  }
  if (type == SQLITE_TEXT) {
    const char *s = (const char *)sqlite3_value_text(v);
    if (!s) return sq_nomem(st);
    size_t len = (size_t)sqlite3_value_bytes(v);
    void *buf;
    int rc = float_words ? sq_json_parse_floats(s, len, argname, &buf, &t->n, st)
                         : sq_json_parse_ints(s, len, argname, &buf, &t->n, st);
    if (rc) return rc;
    t->data = t->owned = buf;
    return SQ_OK;
  }
  return sq_fail(st, "%s must be %s %s blob or a JSON array, got %s", argname,
                 float_words ? "a" : "an", what, sq_value_type_name(v));
}

/* A BLOB whose subtype says it is not float32: half formats widened
** exactly, float64 taken when every value is a float32 one, the rest
** refused with the conversion to call (docs/NUMERICS.md#float-tensors). */
static int sq_tensor_from_subtype(const unsigned char *p, size_t nb,
                                  unsigned sub, const char *argname,
                                  sq_tensor *t, sq_status *st) {
  const sq_dtype *dt = sq_subtype_dtype(sub);
  if (!p) p = (const unsigned char *)"";
  if (dt && dt->kind == SQ_FMT_FLOAT) {
    size_t bad;
    if (dt->bits == 64 && nb % 8 == 0 && !sq_f64_fits_f32(p, nb / 8, &bad))
      return sq_fail(st, "%s is f64 data and element %zu is not a float32 "
                         "value; round it with q_f32(%s, 'f64')", argname, bad,
                     argname);
    return sq_f32_from_stored(sq_kernels_active(), dt->name, strlen(dt->name),
                              p, nb, argname, t, st);
  }
  /* A model file's integers are numbers (q_f32 reads them); the codes of
  ** quantize_blob have a scale and a zero point. */
  if (dt && sub == sq_dtype_file_subtype(dt) && sq_stored_dtype_element(dt->name))
    return sq_fail(st, "%s is %s, not float32; convert it with "
                       "q_f32(%s, '%s')", argname, sq_subtype_what(sub),
                   argname, dt->name);
  if (dt)
    return sq_fail(st, "%s is %s, not float32; dequantize them with "
                       "dequantize_blob(%s, scale, zero_point, '%s')", argname,
                   sq_subtype_what(sub), argname, dt->name);
  int g = sq_subtype_ggml_type(sub), b = sq_subtype_bnb4_type(sub);
  if (g >= 0)
    return sq_fail(st, "%s is %s, not float32; dequantize them with "
                       "q_ggml_dequantize(%s, '%s')", argname,
                   sq_subtype_what(sub), argname, sq_ggml_formats[g].name);
  if (b >= 0)
    return sq_fail(st, "%s is %s, not float32; dequantize them with "
                       "q_bnb4_dequantize(%s, absmax, '%s')", argname,
                   sq_subtype_what(sub), argname, b == SQ_BNB4_NF4 ? "nf4" : "fp4");
  return sq_fail(st, "%s is %s, not float32; convert it with q_f32(%s, dtype) "
                     "(the dtype column of q_tensors)", argname,
                 sq_subtype_what(sub), argname);
}

/* A float tensor: a BLOB whose subtype names its dtype (converted or
** refused above), .npy bytes converted by their header, a raw float32 BLOB
** (refused when it looks like float64 data) or JSON text
** (docs/NUMERICS.md#float-tensors). */
int sq_arg_tensor(sqlite3_value *v, const char *argname, sq_tensor *t,
                  sq_status *st) {
  if (sqlite3_value_type(v) == SQLITE_BLOB) {
    const unsigned char *p = sqlite3_value_blob(v);
    size_t nb = (size_t)sqlite3_value_bytes(v);
    unsigned sub = sqlite3_value_subtype(v);
    /* a bnb4 absmax is float32 data that names its block size */
    if (sq_subtype_bnb4_block(sub)) sub = SQ_SUBTYPE_F32;
    if (sub != SQ_SUBTYPE_F32 && sq_subtype_known(sub)) {
      memset(t, 0, sizeof *t);
      if (!p && nb) return sq_nomem(st);
      return sq_tensor_from_subtype(p, nb, sub, argname, t, st);
    }
    /* Known float32 (the extension's own results) skips both guesses. */
    if (sub == SQ_SUBTYPE_F32) return sq_words_from_value(v, argname, 1, t, st);
    if (p && sq_is_npy(p, nb))
      return sq_tensor_from_npy(sq_kernels_active(), p, nb, argname, t, st);
    if (p && sq_f32_looks_like_f64(p, nb)) {
      memset(t, 0, sizeof *t);
      return sq_fail(st, "%s looks like float64 data (numpy's default dtype; "
                         "convert with .astype(np.float32) or pass the .npy "
                         "bytes), got %zu bytes", argname, nb);
    }
  }
  return sq_words_from_value(v, argname, 1, t, st);
}

/* int32 values (zero points): an int32 BLOB or JSON integers; a BLOB whose
** subtype says otherwise (float32 scales passed as zero points) is an
** error. */
static int sq_arg_int32s(sqlite3_value *v, const char *argname, sq_tensor *t,
                         sq_status *st) {
  memset(t, 0, sizeof *t);
  if (sqlite3_value_type(v) == SQLITE_BLOB &&
      sq_arg_subtype_is(v, argname, SQ_SUBTYPE_INT32, "int32", st))
    return st->code;
  return sq_words_from_value(v, argname, 0, t, st);
}

int sq_arg_shape(sqlite3_value *v, sq_shape *s, sq_status *st) {
  return sq_arg_shape_opt(v, 0, s, st);
}

int sq_arg_shape_opt(sqlite3_value *v, unsigned flags, sq_shape *s,
                     sq_status *st) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return SQ_NULL;
  if (type != SQLITE_TEXT)
    return sq_fail(st, "shape must be a JSON array of %s integers, got %s",
                   flags & SQ_SHAPE_ZERO_DIMS ? "non-negative" : "positive",
                   sq_value_type_name(v));
  const char *txt = (const char *)sqlite3_value_text(v);
  if (!txt) return sq_nomem(st);
  size_t len = (size_t)sqlite3_value_bytes(v);
  if (strlen(txt) != len)
    return sq_fail(st, "shape contains a NUL character at byte %zu", strlen(txt));
  return sq_shape_parse(txt, len, flags, s, st);
}

int sq_arg_elements(const sq_kernels *k, sqlite3_value *v, const char *argname,
                    const sq_dtype *dt, int64_t count, sq_elements *e,
                    sq_status *st) {
  memset(e, 0, sizeof *e);
  if (dt->kind == SQ_FMT_FLOAT && dt->bits == 32) {
    sq_tensor t;
    if (sq_arg_tensor(v, argname, &t, st)) return st->code;
    return sq_elements_from_f32(&t, count, argname, e, st);
  }
  const void *data;
  size_t nbytes;
  if (sq_arg_codes(v, argname, dt, &data, &nbytes, st)) return st->code;
  return sq_elements_from_blob(k, data, nbytes, dt, count, e, st);
}

int sq_arg_count(int argc, sqlite3_value **argv, int i, int64_t *count,
                 sq_status *st) {
  *count = -1;
  if (i >= argc) return SQ_OK;
  if (sq_arg_int(argv[i], "count", count, st)) return st->code;
  if (*count < 0)
    return sq_fail(st, "count must not be negative, got %lld", (long long)*count);
  return SQ_OK;
}

int sq_arg_blob_elements(int argc, sqlite3_value **argv, sqlite3_value *blob,
                         sq_elements *e, sq_status *st) {
  int64_t count;
  memset(e, 0, sizeof *e);
  const sq_dtype *dt = sq_arg_dtype_of(argc, argv, 1, SQ_DTYPES_ANY,
                                       &sq_dtype_f32, blob, "blob", st);
  if (!dt || sq_arg_count(argc, argv, 2, &count, st)) return st->code;
  return sq_arg_elements(sq_kernels_active(), blob, "blob", dt, count, e, st);
}
