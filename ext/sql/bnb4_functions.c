/*
** bnb4_functions.c: bitsandbytes' 4-bit formats in SQL
** (docs/NUMERICS.md#bitsandbytes-nf4-and-fp4, docs/reference/bnb4.md).
**
**   q_bnb4_quantize(x, type [, block_size])               codes BLOB
**   q_bnb4_absmax(x [, block_size])                       float32 BLOB
**   q_bnb4_dequantize(codes, absmax, type [, block_size [, count]])
**                                                         float32 BLOB
**   q_bnb4_nest(absmax)                                   nested BLOB
**   q_bnb4_unnest(nested)                                 float32 BLOB
**
** Rules:
**   1. type is nf4 or fp4 in any case; block_size a power of two from 32
**      to 4096 (bitsandbytes' own list), 64 when left out;
**   2. x is a flat tensor of at least one finite float; its last block may
**      be short (bitsandbytes quantizes a ragged tail as its own block);
**      the codes are (n + 1) / 2 bytes, the first weight in the high
**      nibble, an odd count padded with the code of 0;
**   3. q_bnb4_dequantize: codes a BLOB, count (default 2 x its bytes) the
**      weights it holds: (count + 1) / 2 must be its bytes; absmax exactly
**      ceil(count / block_size) finite floats;
**   4. q_bnb4_nest: absmax one or more finite floats; q_bnb4_unnest takes
**      what it returns (4 + 4 x ceil(m / 256) + m bytes for m absmax);
**   5. NULL in any argument gives NULL;
**   6. the codes carry their type's subtype and the absmax its block
**      size's (docs/reference/data-formats.md#subtypes): q_bnb4_dequantize
**      refuses codes of the other type, data that is neither these codes
**      nor a model file's integers, and an absmax of another block size.
**      Values read back from a table carry none and are taken as given;
**      q_bnb4_unnest's absmax carries f32's (the nested form keeps no block
**      size).
*/
#include "sql/sql.h"
#include "core/text.h"
#include "kernels/bnb4.h"


static int sq_arg_bnb4_type(sqlite3_value *v, sq_bnb4_type *t, sq_status *st) {
  const char *text = sq_arg_text(v, "type", st);
  if (!text) return st->code;
  size_t len = (size_t)sqlite3_value_bytes(v);
  if (sq_word_is(text, len, "nf4")) *t = SQ_BNB4_NF4;
  else if (sq_word_is(text, len, "fp4")) *t = SQ_BNB4_FP4;
  else
    return sq_fail(st, "type must be nf4 or fp4, got '%.*s'",
                   len > 40 ? 40 : (int)len, text);
  return SQ_OK;
}

static int sq_arg_bnb4_block(int argc, sqlite3_value **argv, int i,
                             size_t *block, sq_status *st) {
  int64_t b = 64;
  *block = 64;
  if (argc <= i) return SQ_OK;
  if (sq_arg_int(argv[i], "block_size", &b, st)) return st->code;
  if (b < SQ_BNB4_MIN_BLOCK || b > SQ_BNB4_MAX_BLOCK || (b & (b - 1)))
    return sq_fail(st, "block_size must be a power of two from 32 to 4096, "
                       "got %lld", (long long)b);
  *block = (size_t)b;
  return SQ_OK;
}

/* A tensor argument of at least one finite float. */
static int sq_arg_bnb4_floats(sqlite3_value *v, const char *name, sq_tensor *x,
                              sq_status *st) {
  float mn, mx;
  if (sq_arg_tensor(v, name, x, st)) return st->code;
  if (x->n == 0)
    return sq_fail(st, "%s must hold at least one value, got 0", name);
  return sq_tensor_minmax(sq_kernels_active(), x->data, x->n, 0, &mn, &mx, st);
}

static const char *sq_bnb4_name(int t) { return t == SQ_BNB4_NF4 ? "nf4" : "fp4"; }

/* Codes of type t (rule 6): refused when their subtype names the other
** type, or data that is not codes a model file stores (its integers). */
static int sq_arg_bnb4_codes(sqlite3_value *v, sq_bnb4_type t, sq_status *st) {
  unsigned sub = sqlite3_value_subtype(v);
  int have = sq_subtype_bnb4_type(sub);
  if (have >= 0 && have != (int)t)
    return sq_fail(st, "codes are %s, got type %s", sq_bnb4_name(have),
                   sq_bnb4_name(t));
  if (have >= 0 || !sq_subtype_known(sub)) return SQ_OK;
  const sq_dtype *dt = sq_subtype_dtype(sub);
  if (dt && dt->kind == SQ_FMT_CODE && sq_dtype_file_subtype(dt) == sub &&
      sq_dtype_subtype(dt) != sub)
    return SQ_OK;
  return sq_fail(st, "codes are %s, not %s codes", sq_subtype_what(sub),
                 sq_bnb4_name(t));
}

/* An absmax whose subtype names its block size must be of block_size's
** blocks (rule 6). */
static int sq_arg_bnb4_absmax_block(sqlite3_value *v, size_t block,
                                    sq_status *st) {
  size_t have = sq_subtype_bnb4_block(sqlite3_value_subtype(v));
  if (have && have != block)
    return sq_fail(st, "absmax is of blocks of %zu, got block_size %zu", have,
                   block);
  return SQ_OK;
}

static size_t sq_bnb4_blocks(size_t n, size_t block) {
  return n / block + (n % block != 0);
}

/* q_bnb4_quantize (variant 0) and q_bnb4_absmax (variant 1). */
static void sq_bnb4_quantize_func(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  int absmax_only = fn->variant == 1;
  sq_tensor x = {0};
  sq_bnb4_type t = SQ_BNB4_NF4;
  size_t block;
  void *out = NULL;
  if (sq_arg_bnb4_floats(argv[0], "x", &x, &st) ||
      (!absmax_only && sq_arg_bnb4_type(argv[1], &t, &st)) ||
      sq_arg_bnb4_block(argc, argv, absmax_only ? 1 : 2, &block, &st))
    goto done;
  if (absmax_only) {
    size_t m = sq_bnb4_blocks(x.n, block);
    if (!(out = sq_alloc(&st, m, 4))) goto done;
    sq_bnb4_absmax(x.data, x.n, block, out);
    sq_result_typed(ctx, out, (uint64_t)m * 4, sq_bnb4_absmax_subtype(block),
                    &st);
  } else {
    uint64_t nbytes = (uint64_t)x.n / 2 + (x.n & 1);
    if (!(out = sq_alloc(&st, nbytes, 1))) goto done;
    sq_bnb4_quantize(t, x.data, x.n, block, out, NULL);
    sq_result_typed(ctx, out, nbytes, sq_bnb4_codes_subtype(t), &st);
  }
  out = NULL;
done:
  sqlite3_free(out);
  sq_tensor_free(&x);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

static void sq_bnb4_dequantize_func(sqlite3_context *ctx, int argc,
                                    sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_tensor a = {0};
  sq_bnb4_type t;
  size_t block, nbytes = (size_t)sqlite3_value_bytes(argv[0]);
  const void *codes = sqlite3_value_blob(argv[0]);
  int64_t count = -1;
  void *out;
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
    sq_fail(&st, "codes must be a BLOB, got %s", sq_value_type_name(argv[0]));
    goto done;
  }
  if (nbytes && !codes) {
    sq_nomem(&st);
    goto done;
  }
  if (sq_arg_bnb4_type(argv[2], &t, &st) ||
      sq_arg_bnb4_block(argc, argv, 3, &block, &st) ||
      sq_arg_bnb4_codes(argv[0], t, &st) ||
      sq_arg_bnb4_absmax_block(argv[1], block, &st))
    goto done;
  if (nbytes == 0) {
    sq_fail(&st, "codes must hold at least one byte, got 0");
    goto done;
  }
  if (argc > 4) {
    if (sq_arg_int(argv[4], "count", &count, &st)) goto done;
    if (count < 1 || (uint64_t)count / 2 + ((uint64_t)count & 1) != nbytes) {
      sq_fail(&st, "count must be the weights of the %zu code byte%s (%zu or "
                   "%zu), got %lld", nbytes, nbytes == 1 ? "" : "s",
              nbytes ? 2 * nbytes - 1 : 0, 2 * nbytes, (long long)count);
      goto done;
    }
  }
  size_t n = count < 0 ? 2 * nbytes : (size_t)count;
  size_t m = sq_bnb4_blocks(n, block);
  if (sq_arg_bnb4_floats(argv[1], "absmax", &a, &st)) goto done;
  if (a.n != m) {
    sq_fail(&st, "absmax must hold one value per block of %zu of the %zu "
                 "weights (%zu), got %zu", block, n, m, a.n);
    goto done;
  }
  if (!(out = sq_alloc(&st, n, 4))) goto done;
  sq_bnb4_dequantize(t, codes, a.data, n, block, out);
  sq_result_typed(ctx, out, (uint64_t)n * 4, SQ_SUBTYPE_F32, &st);
done:
  sq_tensor_free(&a);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

static void sq_bnb4_nest_func(sqlite3_context *ctx, int argc,
                              sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  sq_tensor a = {0};
  void *out;
  if (!sq_arg_bnb4_floats(argv[0], "absmax", &a, &st)) {
    uint64_t nbytes = 4 + 4 * (uint64_t)sq_bnb4_blocks(a.n, SQ_BNB4_NESTED_BLOCK)
                      + a.n;
    if ((out = sq_alloc(&st, nbytes, 1))) {
      sq_bnb4_nest(a.data, a.n, out);
      sq_result_blob(ctx, out, nbytes, &st);
    }
  }
  sq_tensor_free(&a);
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

static void sq_bnb4_unnest_func(sqlite3_context *ctx, int argc,
                                sqlite3_value **argv) {
  sq_status st;
  const sq_fn *fn = sq_call(ctx, argc, argv, &st);
  if (!fn) return;
  size_t nbytes = (size_t)sqlite3_value_bytes(argv[0]), m;
  const void *p = sqlite3_value_blob(argv[0]);
  void *out;
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB)
    sq_fail(&st, "nested must be a BLOB, got %s", sq_value_type_name(argv[0]));
  else if (nbytes && !p)
    sq_nomem(&st);
  else if (!(m = sq_bnb4_nested_count(nbytes)))
    sq_fail(&st, "nested must be what q_bnb4_nest returns (4 + 4 x "
                 "ceil(m / 256) + m bytes for m absmax), got %zu bytes", nbytes);
  else if ((out = sq_alloc(&st, m, 4))) {
    sq_bnb4_unnest(p, m, out);
    sq_result_typed(ctx, out, (uint64_t)m * 4, SQ_SUBTYPE_F32, &st);
  }
  if (st.code) sq_result_status(ctx, fn->name, &st);
}

/* ---- registration ---------------------------------------------------------- */

static const sq_fn_def sq_bnb4_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_BNB4(SQ_FN_DEF)
};

int sq_register_bnb4_functions(sq_registry *r) {
  return sq_register_table(r, sq_bnb4_defs,
                           sizeof sq_bnb4_defs / sizeof sq_bnb4_defs[0]);
}
