/*
** fuzz_sql.c: libFuzzer target that reaches every SQL function and
** table-valued function of the extension through SQL, the way users do.
**
**   make fuzz        this target for 60 s, then the parser target
**   make fuzz-ci     a fixed-seed, bounded run over tests/fuzz/corpus/sql
**   FUZZ_SQL_TRACE=1 build/fuzz_sql FILE...
**                    runs the files once and prints each one as SQL for the
**                    sqlite3 shell (after `.load dist/quant`): the exact
**                    reproduction of a finding
**
** The extension is compiled into this binary (SQLITE_CORE) and registered
** once on a private in-memory connection whose SQLITE_LIMIT_LENGTH is 1 MiB,
** so an absurd size is a "string or blob too big" error instead of a real
** huge allocation.  Every argument is bound as a parameter; the SQL around
** the call is one of a fixed set of skeletons per function, arity and
** variant, prepared once and cached.
**
** Input grammar.  An input is up to MAX_CALLS calls, one after the other,
** each a 13-byte header and then its arguments; bytes past the end read as 0.
**
**   header  fn       index into fns[] (mod its size)
**           form     low nibble: arity = nmin + lo % (nmax - nmin + 1);
**                    high nibble: variant (mod the kind's variant count),
**                    the SQL around the call (see build_sql)
**           nrows    rows of arguments for the forms that read table t
**                    (aggregates, windows, correlated calls): nrows % 9
**           f, g     frame offsets / LIMIT (:f and :g), see frame_value()
**           ndim, d0..d3, axis, block, dtype
**                    a "context" tensor shape (the dtype byte's high nibble
**                    picks the call's length limit, mostly 1 MiB, see
**                    call_limits[]; its low nibble % 10 also names the
**                    context's ggml type, and for q_ggml_quantize and
**                    q_ggml_dequantize the last dimension is multiplied by
**                    that type's block unless the axis byte is >= 0xE0,
**                    see ctx_ggml_align); the AUTO argument kind makes
**                    values that fit it (x with as many elements as the
**                    shape holds, one scale per channel or per block, codes
**                    of the right length; ggml type names, blocks of the
**                    type's size, one importance weight per column) so
**                    calls get past the argument checks into the kernels,
**                    while every other kind is free to contradict it
**   argument (per row, per argument): a kind byte (mod 16), then its payload:
**           0-4 AUTO   a value for the argument's role (see gen_auto)
**           5   NULL
**           6   INTEGER from int_values[] (1 byte)
**           7   INTEGER, 8 raw bytes
**           8   REAL from real_values[] (1 byte)
**           9   REAL, 8 raw bytes (NaN binds as NULL, as SQLite does)
**           10  BLOB: u16 length, then the bytes; with bit 15 set, a
**               zeroblob of a size from zero_sizes[]
**           11  a tensor of (count byte) elements, JSON text or a float32
**               BLOB (see gen_tensor)
**           12  TEXT: u16 length, then the bytes (NULs kept)
**           13  TEXT: a count byte, then that many vocab[] token indexes
**           14  TEXT: a structured text: JSON tensor, shape, dtype,
**               scheme or options string
**           15  a previous value: the same argument of the previous row or
**               call, or (high bit) one of the last four call results
**
** The path writers (q_safetensors_write, q_gguf_write, q_npz_write) are
** tables: INSERT forms whose path is never fuzzed but one of two files in
** a private directory (on /dev/shm when there is one: no disk and no cost
** to the fsyncs), plus SAVEPOINT, ROLLBACK TO and RELEASE forms; an input
** that leaves a savepoint open is rolled back before the check.
**
** After each input the connection must still answer a fixed query; if not,
** the target aborts.  Crashes, sanitizer reports, leaks and timeouts are
** findings; SQL errors are expected and ignored.
**
** fns[] and the argument kinds only grow at the end, so the committed seeds
** (tests/fuzz/gen_sql_seeds.py writes them) keep their meaning.
*/
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "sqlite_quant.h"
#include "fuzz_functions.h"

#define MAX_CALLS 8
#define MAX_ARGS 8
#define MAX_ROWS 8
#define MAX_GEN 16384            /* elements generated for one tensor */
#define MAX_TEXT (512 * 1024)    /* generated text or blob bytes */
#define LENGTH_LIMIT (1 << 20)   /* SQLITE_LIMIT_LENGTH of the connection */
#define MAX_RESULT_ROWS 200000   /* rows read from one statement */
#define NREG 4

/* ---- the input --------------------------------------------------------- */

typedef struct src {
  const uint8_t *p;
  size_t n;
} src;

static unsigned get8(src *s) {
  if (s->n == 0) return 0;
  s->n--;
  return *s->p++;
}

static uint64_t getn(src *s, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)get8(s) << (8 * i);
  return v;
}

static size_t getbytes(src *s, size_t want, const uint8_t **out) {
  if (want > s->n) want = s->n;
  *out = s->p;
  s->p += want;
  s->n -= want;
  return want;
}

/* ---- growable byte buffer ------------------------------------------------ */

typedef struct buf {
  char *p;
  size_t n, cap;
} buf;

static void bput(buf *b, const void *d, size_t n) {
  if (n > MAX_TEXT - b->n) n = MAX_TEXT - b->n; /* generated text is capped */
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) abort();
    b->p = p;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, d, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void bputs(buf *b, const char *s) { bput(b, s, strlen(s)); }

static void bprintf(buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Any length: a trace writes whole literals into the SQL. */
static void bprintf(buf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    bput(b, tmp, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) abort();
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  bput(b, big, (size_t)n);
  free(big);
}

static void bfree(buf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* ---- the registered surface ---------------------------------------------- */

/* What an argument means to its function: AUTO makes a value to match. */
enum role {
  R_NONE, R_X, R_XNUM, R_BLOB, R_CODES, R_FROM, R_DTYPE, R_COUNT, R_SCHEME,
  R_OPTS, R_SCALE, R_ZP, R_SHAPE, R_AXIS, R_BLOCK, R_SCALES_CH, R_ZPS_CH,
  R_SCALES_BLK, R_ZPS_BLK,
  /* ggml (append only, like fns[]) */
  R_GGML_TYPE, R_IMPORTANCE, R_GGML_BLOCKS, R_GGML_COUNT, R_COLUMNS,
  /* bitsandbytes (append only) */
  R_BNB4_TYPE, R_BNB4_BLOCK
};

typedef struct fn {
  const char *name;
  char kind;              /* s scalar, a aggregate, w window, v table-valued,
                          ** i a table written by INSERT (the path writers) */
  int nmin, nmax;         /* table-valued: nmin 0 tries missing arguments */
  unsigned char roles[MAX_ARGS];
  const char *hidden[MAX_ARGS]; /* table-valued: argument column names;
                                ** i: the columns after path */
} fn;

#define PARAMS_T R_X, R_DTYPE, R_SCHEME, R_OPTS
#define PARAMS_CH R_X, R_SHAPE, R_AXIS, R_DTYPE, R_SCHEME, R_OPTS
#define PARAMS_BLK R_X, R_SHAPE, R_AXIS, R_BLOCK, R_DTYPE, R_SCHEME, R_OPTS

/* Every function of the catalogue with its arities, the table-valued
** functions and the path writers' tables, in the catalogue's [fuzz].order
** (fuzz_functions.h, generated from ext/catalogue.toml): append only, seeds
** refer to entries by index.  LLVMFuzzerInitialize checks this against what
** the extension registers. */
static const fn fns[] = {
  FUZZ_FNS
};
#define NFNS (int)(sizeof fns / sizeof fns[0])

/* ---- value tables ---------------------------------------------------------- */

#define COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

static const int64_t int_values[] = {
  0, 1, -1, 2, 3, 4, 5, 7, 8, -8, 15, 16, 31, 32, 33, 127, 128, -128, -129,
  255, 256, 32767, 32768, -32768, -32769, 65535, 65536, 2147483647,
  2147483648LL, -2147483647LL - 1, -2147483649LL, 4294967295LL, 4294967296LL,
  4294967297LL, 9007199254740992LL, 9007199254740993LL, 9000000000000000LL,
  2305843009213693952LL, 2305843009213693953LL, 4611686018427387904LL,
  4611686018427387905LL, 1152921504606846976LL, INT64_MAX, INT64_MIN,
  INT64_MIN + 1, 1048576, 1048577, 262144, 262145, 1 << 30, -2, -127,
};

static const double real_values[] = {
  0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.1, 1.0 / 255.0, 1e-3, 1e-10,
  (double)NAN, (double)INFINITY, -(double)INFINITY, DBL_MAX, -DBL_MAX, DBL_MIN, 5e-324, (double)FLT_MAX,
  -(double)FLT_MAX, 3.4028235677973366e38, 3.5e38, 1e39, (double)FLT_MIN, 1.401298464324817e-45,
  1e-46, 1e-39, 1e-38, 1e30, 1e300, 9e15, 9.1e15, 2147483648.0, 9.2233720368547758e18,
  -9.2233720368547758e18, 1.8446744073709552e19, 123.0, 4.0, 7.0, -8.0, 255.0,
  0.0078125, 65504.0, 65520.0, 16777217.0, 99.99, 100.0,
};

/* Scales: mostly usable ones, and the edges the checks are about. */
static const double scale_values[] = {
  1.0, 0.5, 0.1, 0.25, 0.0078125, 1.0 / 255.0, 1.0 / 127.5, 1e-3, 1e-5, 2.0,
  16.0, 1e-10, 1.1754943508222875e-38, 1e-39, 1.401298464324817e-45, 0.0, -1.0,
  (double)NAN, (double)INFINITY, 3.5e38, 3.4028234663852886e38, 1e30, 65536.0, 0.3, 1e-20,
  2.9387358770557188e-39,
};

static const int64_t zp_values[] = {
  0, 1, -1, 64, 127, 128, -128, 255, 256, -129, 7, -8, 8, 15, 16, 32767,
  -32768, 65535, 65536, 2147483647, -2147483647LL - 1, 2147483648LL, INT64_MAX,
  INT64_MIN,
};

/* Element values a tensor draws from: bytes below 0xE0 are (b - 112) / 8. */
static const float float_specials[32] = {
  NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 1.4e-45f,
  -1.4e-45f, 1e-30f, 1e30f, -0.0f, 0.1f, 1e-7f, 65504.0f, 65520.0f,
  3.3895314e38f, 1e38f, 3e38f, 0.5f, 1.5f, 2.5f, -2.5f, 127.5f, 128.0f, 255.5f,
  16777217.0f, 1e9f, 2147483648.0f, -2147483648.0f, 1e-38f, -1e30f,
};

/* Shape dimensions past the small ones: overflow and parsing edges. */
static const char *const dim_specials[32] = {
  "0", "-1", "65536", "2147483647", "2147483648", "4294967296", "4294967297",
  "2305843009213693952", "2305843009213693953", "4611686018427387904",
  "4611686018427387905", "9223372036854775807", "9223372036854775808",
  "18446744073709551615", "18446744073709551620", "99999999999999999999999",
  "1e3", "2.0", "1.5", "-0", "01", "\"2\"", "null", "1073741824", "536870912",
  "268435456", "1048577", "262145", "33", "1024", "255", "1152921504606846976",
};

static const int64_t block_specials[16] = {
  0, -1, 1, 2, 3, 32, 128, 1024, 65536, 2147483648LL, 4294967296LL,
  2305843009213693953LL, 4611686018427387904LL, INT64_MAX, INT64_MIN, 1 << 30,
};

/* Text with its length, so an entry may hold a NUL byte. */
typedef struct lit {
  const char *s;
  size_t n;
} lit;
#define L(text) {text, sizeof(text) - 1}

/* dtype names: the canonical ones first (the context dtype is one of the
** first 15), then what must be refused. */
static const lit dtype_names[] = {
  FUZZ_DTYPE_NAMES,
  L("INT8"), L("Int4"), L("UINT4"), L("F16"), L("BF16"), L("int3"), L(""),
  L("int64"), L("uint32"), L("float32"), L("int8 "), L(" int8"), L("int"),
  L("f8"), L("int8\0x"), L("qint4"), L("uint"), L("int88"), L("fp16"),
  L("bfloat16"), L("int16\0"),
};
#define CONTEXT_DTYPES FUZZ_CONTEXT_DTYPES

static const lit scheme_names[] = {
  L("affine"), L("symmetric"), L("AFFINE"), L("Symmetric"), L(""), L("asym"),
  L("symmetric "), L("affine\0symmetric"), L("per_tensor_affine"), L("sym"),
  L("log2"), L("LOG2"), L("log"),
  /* appended: float8 and 2-bit codes, saturate */
  L("f8_e4m3fn"), L("f8_e5m2"), L("f8_e4m3fnuz"), L("f8_e5m2fnuz"),
  L("float8_e4m3fn"), L("int2"), L("uint2"), L("saturate="), L("saturate=0"),
  L("448"), L("57344"), L("[2,3,4]"),
};

static const lit from_names[] = {
  L("f32"), L("f16"), L("bf16"), L("f64"), L("F16"), L("BF16"), L("int8"),
  L(""), L("f8"), L("float16"), L("f32\0"), L("uint4"), L("uint64"),
  L("int16be"), L("f64be"), L("bool"), L("f8_e4m3fn"), L("f8_e5m2"), L("q4_K"),
  L("q8_0"), L("int8be"),
};

static const lit option_keys[] = {
  L("quant_min"), L("quant_max"), L("reduce_range"), L("rounding"),
  L("method"), L("percentile"), L("observer"), L("averaging_constant"),
  L("dtypes"), L("schemes"), L("blocks"), L("methods"), L("foo"),
  L("Quant_min"), L(""), L("method "),
  /* appended: q_compare's ggml list, and dtypes=none */
  L("ggml"), L("dtypes"),
  /* appended: method=histogram's bin count (key 18) */
  L("bins"),
  /* appended: the tutorial's formula (19, 20) */
  L("include_zero"), L("params"),
  /* appended: method=entropy's quantized bin count (key 21) */
  L("quantized_bins"),
  /* appended: mxfp4's shared-exponent rule (key 22) */
  L("mx_exponent"),
  /* appended: q_compare's bitsandbytes list (key 23) */
  L("bnb4"),
  /* appended: q_ggml_quantize's importance=none (key 24) */
  L("importance"),
};

static const lit mx_rule_names[] = {
  L("ggml"), L("ocp"), L("torchao-rceil"), L("torchao-ceil"), L("torchao-even"),
  L("mlx"), L("MLX"), L("torchao"), L(""), L("floor"),
};

/* ggml's types in its order (sq_ggml_type), then the same in other cases,
** then names that must be refused. */
static const lit ggml_names[] = {
  FUZZ_GGML_NAMES,
  FUZZ_GGML_OTHER_CASES,
  L("q4_2"), L("iq4_xs"), L(""), L("q4_0 "), L(" q8_0"), L("q4_K\0"),
  L("q4_k_m"), L("q8"), L("q8_1"), L("q8_K"), L("f16"), L("int8"), L("q4"),
  L("q4-0"), L("q4_00"), L("q2_K+q3_K"), L("none"), L("Q4_0\0x"),
};
#define GGML_NTYPES FUZZ_GGML_NTYPES
/* bitsandbytes' 4-bit types, in other cases, and names to refuse. */
static const lit bnb4_names[] = {
  L("nf4"), L("fp4"), L("NF4"), L("Fp4"), L("nf8"), L(""), L("nf4 "),
  L("int4"), L("q4_0"), L("fp4\0"),
};
/* block sizes bitsandbytes takes, then some it refuses */
static const int64_t bnb4_blocks[] = {64, 32, 128, 256, 4096, 1024, 48, 0,
                                      -64, 8192, 1, 2};
static const size_t ggml_block[GGML_NTYPES] = {FUZZ_GGML_BLOCK};
static const size_t ggml_bytes[GGML_NTYPES] = {FUZZ_GGML_BYTES};
static const lit none_texts[] = {
  L("none"), L("NONE"), L("None"), L("none+int8"), L("int8+none"), L("none "),
  L(""), L("none+none"),
};

static const lit int_texts[] = {
  L("-128"), L("-127"), L("0"), L("1"), L("7"), L("15"), L("-8"), L("127"),
  L("255"), L("-32768"), L("65535"), L("2147483647"), L("-2147483648"),
  L("999999999999999999"), L("9999999999999999999"), L(""), L("1.5"), L("-0"),
  L("+5"), L("64"), L("-1"), L("63"), L("128"), L("256"), L("x"), L("0x10"),
  L("-999999999999999999"), L("+"), L("-"),
};

static const lit real_texts[] = {
  L("99.99"), L("100"), L("0"), L("50"), L("1e-300"), L("100.0000001"),
  L("1e2"), L("nan"), L("inf"), L("0.0000001"), L("-1"), L("99.9999999999"),
  L("0.01"), L("1"), L("0.5"), L("2"), L("1e-5"), L(""), L("."), L("1e"),
  L("+1"), L("1e400"), L("5e-324"),
  L("12345678901234567890123456789012345678901234567"),
};

static const lit flag_texts[] = {L("0"), L("1"), L("2"), L(""), L("true"), L("01")};
static const lit rounding_names[] = {
  L("torch"), L("onnx"), L("TORCH"), L("Onnx"), L("x"), L(""),
  L("tutorial"), L("Tutorial"), L("tutorial "),
};
static const lit params_names[] = {
  L("float32"), L("double"), L("DOUBLE"), L("float64"), L(""), L("f32"),
};
static const lit method_names[] = {
  L("minmax"), L("percentile"), L("mse"), L("MSE"), L("max"), L(""),
  L("histogram"), L("Histogram"),
  L("entropy"),
};
static const lit observer_names[] = {
  L("minmax"), L("moving_average"), L("MOVING_AVERAGE"), L("ma"), L(""),
};
static const lit block_texts[] = {
  L("1"), L("2"), L("3"), L("4"), L("5"), L("7"), L("8"), L("16"), L("32"),
  L("64"), L("128"), L("none"), L("0"), L("-1"), L("4611686018427387904"),
  L("9223372036854775807"), L("99999999999999999999"), L(""), L("1e3"),
  L("NONE"), L("2305843009213693953"), L("1073741824"),
};

/* Tokens that compose into text: JSON, shapes, dtypes, options and junk. */
static const lit vocab[] = {
  L("["), L("]"), L(","), L(" "), L("-"), L("+"), L("0"), L("1"), L("2"),
  L("3"), L("4"), L("9"), L("."), L("e"), L("E"), L("e-"), L("e+"), L("1e38"),
  L("3.4028235e38"), L("3.5e38"), L("1e-45"), L("NaN"), L("Infinity"), L("\""),
  L("a"), L("null"), L("true"), L("[1,2,3,4]"), L("[2,2]"), L("[[1,2],[3,4]]"),
  L("[18446744073709551620]"), L("[4611686018427387904]"),
  L("[2305843009213693953]"), L("[9223372036854775807]"), L("[0]"), L("[]"),
  L("[-1]"), L("[1e999]"), L("int8"), L("uint8"), L("int16"), L("uint16"),
  L("int32"), L("int4"), L("uint4"), L("qint8"), L("quint8"), L("qint32"),
  L("quint4x2"), L("f32"), L("f16"), L("bf16"), L("f64"), L("affine"),
  L("symmetric"), L("quant_min="), L("quant_max="), L("reduce_range="),
  L("rounding="), L("torch"), L("onnx"), L("method="), L("minmax"),
  L("percentile"), L("mse"), L("percentile="), L("observer="),
  L("moving_average"), L("averaging_constant="), L("dtypes="), L("schemes="),
  L("blocks="), L("methods="), L("none"), L("|"), L("="), L("\0"), L("\t"),
  L("\n"), L("\\u0000"), L("01"), L(".5"), L("-0"), L("1.5"), L("32"),
  L("128"), L("-128"), L("127"), L("255"), L("65535"), L("2147483648"),
  L("1e-7"), L("0.5"), L("[[[1]]]"), L("[1,"), L("{}"), L("\xff"),
  L("\xc3\xa9"), L("99.99"), L("100"), L("0.01"), L("  "), L(",,"), L("[[]]"),
  L("1e"), L("00"), L("-.5"), L("1E+2"),
  L("q4_0"), L("q8_0"), L("q2_K"), L("q4_K"), L("q6_K"), L("Q5_1"), L("q3_k"),
  L("ggml="), L("dtypes=none"), L("iq4_xs"), L("[256]"), L("[2,32]"),
  L("[1,256]"),
  L("histogram"), L("bins="), L("method=histogram,bins=3"),
  L("include_zero="), L("params="), L("tutorial"), L("double"), L("float32"),
  L("include_zero=0 params=double"), L("rounding=tutorial"),
  L("log2"), L("schemes=log2"),
  /* appended: q_compare on flattened rows (a conv weight) and its methods */
  L("[64,3,3,3]"), L("[2,8,16]"), L("blocks=27+32"), L("methods=histogram"),
  L("methods=entropy"), L("histogram"), L("entropy"),
  /* appended: method=entropy */
  L("quantized_bins="), L("2048"), L("16384"),
};

static const int64_t zero_sizes[16] = {
  0, 1, 2, 3, 4, 5, 7, 1023, 1024, 4096, 65536, 262143, 262144, 1048575,
  1048576, 1048577,
};

/* ---- arguments --------------------------------------------------------------- */

enum { A_NULL, A_INT, A_REAL, A_TEXT, A_BLOB, A_ZERO, A_VALUE };

typedef struct arg {
  int type;
  int64_t i;              /* A_INT; A_ZERO: size */
  double d;
  buf b;                  /* A_TEXT, A_BLOB */
  sqlite3_value *v;       /* A_VALUE: a copy of an earlier result */
} arg;

static void arg_clear(arg *a) {
  bfree(&a->b);
  sqlite3_value_free(a->v);
  memset(a, 0, sizeof *a);
}

static void arg_copy(arg *dst, const arg *src_) {
  arg_clear(dst);
  dst->type = src_->type;
  dst->i = src_->i;
  dst->d = src_->d;
  if (src_->type == A_TEXT || src_->type == A_BLOB) bput(&dst->b, src_->b.p, src_->b.n);
  if (src_->v && !(dst->v = sqlite3_value_dup(src_->v))) dst->type = A_NULL;
}

static void set_int(arg *a, int64_t v) {
  a->type = A_INT;
  a->i = v;
}
static void set_real(arg *a, double v) {
  a->type = A_REAL;
  a->d = v;
}
static void set_text(arg *a, const char *s, size_t n) {
  a->type = A_TEXT;
  bput(&a->b, s, n);
}

/* One entry of a table, chosen by the next byte. */
#define PICK(s, table) (&(table)[get8(s) % COUNTOF(table)])

static void bput_lit(buf *b, const lit *t) { bput(b, t->s, t->n); }

/* ---- the per-call context -------------------------------------------------- */

/* The length limit of a call: mostly LENGTH_LIMIT; larger ones let scratch
** buffers that are sized against it (and results) grow, tiny ones make every
** size check fail somewhere. */
static const int call_limits[16] = {
  LENGTH_LIMIT, LENGTH_LIMIT, LENGTH_LIMIT, LENGTH_LIMIT, LENGTH_LIMIT,
  LENGTH_LIMIT, LENGTH_LIMIT, LENGTH_LIMIT, LENGTH_LIMIT, LENGTH_LIMIT,
  LENGTH_LIMIT, LENGTH_LIMIT, 4 * LENGTH_LIMIT, 16 * LENGTH_LIMIT, 4096, 64,
};

typedef struct ctx {
  int ndim;
  char dim[4][32];        /* each dimension as written in the shape */
  uint64_t dimv[4];       /* its value as far as it has one */
  uint64_t count;         /* product of dimv */
  int huge;               /* the product does not fit 64 bits */
  int wide;               /* some dimension is past MAX_GEN (with a 0 the
                          ** product can still be small) */
  int64_t axis;
  int64_t block;
  int dtype;              /* index into dtype_names */
  int ggml;               /* index into ggml_names, < GGML_NTYPES */
  unsigned axis_byte;     /* as read: ctx_ggml_align looks at it */
  int limit;              /* SQLITE_LIMIT_LENGTH during the call */
} ctx;

static void ctx_read(src *s, ctx *c) {
  unsigned b = get8(s);
  c->ndim = b >= 0xF0 ? 0 : 1 + (int)(b % 4);
  c->count = 1;
  c->huge = 0;
  c->wide = 0;
  for (int i = 0; i < 4; i++) {
    b = get8(s);
    uint64_t v;
    if (b < 0xC0) {
      v = 1 + (b & 7);
      snprintf(c->dim[i], sizeof c->dim[i], "%llu", (unsigned long long)v);
    } else if (b < 0xE0) {
      v = 8 + (uint64_t)(b & 31) * 4;
      snprintf(c->dim[i], sizeof c->dim[i], "%llu", (unsigned long long)v);
    } else {
      const char *t = dim_specials[b - 0xE0];
      snprintf(c->dim[i], sizeof c->dim[i], "%s", t);
      v = strtoull(t[0] == '-' ? "0" : t, NULL, 10);
    }
    c->dimv[i] = v;
    if (i < c->ndim && __builtin_mul_overflow(c->count, v, &c->count)) c->huge = 1;
    if (i < c->ndim && v > MAX_GEN) c->wide = 1;
  }
  b = get8(s);
  c->axis_byte = b;
  c->axis = (int64_t)(b % (unsigned)(2 * c->ndim + 2)) - c->ndim - 1;
  static const int64_t far_axes[4] = {INT64_MIN, INT64_MAX, 2147483648LL,
                                      -2147483649LL};
  if (b >= 0xFC) c->axis = far_axes[b - 0xFC];
  b = get8(s);
  c->block = b < 0xF0 ? 1 + (int64_t)(b % 40) : block_specials[b - 0xF0];
  b = get8(s);
  c->dtype = (int)((b & 15) % CONTEXT_DTYPES);
  c->ggml = (int)((b & 15) % GGML_NTYPES);
  c->limit = call_limits[b >> 4];
}

/* Elements a generated tensor has: the shape's count when it is small. */
static size_t ctx_elements(const ctx *c) {
  return !c->huge && c->count <= MAX_GEN ? (size_t)c->count : 1;
}

static int ctx_axis(const ctx *c) {
  if (c->ndim == 0 || c->axis < -c->ndim || c->axis >= c->ndim) return -1;
  return (int)(c->axis < 0 ? c->axis + c->ndim : c->axis);
}

/* Scales or zero points one per channel, or one per block. */
static size_t ctx_groups(const ctx *c, int per_block) {
  int ax = ctx_axis(c);
  if (ax < 0) return 1;
  uint64_t n = 1;
  for (int i = 0; i < c->ndim; i++) {
    uint64_t d = c->dimv[i];
    if (i == (int)ax) {
      if (per_block) {
        uint64_t bs = c->block > 0 ? (uint64_t)c->block : 1;
        d = d / bs + (d % bs != 0);
      }
    } else if (!per_block) {
      continue;
    }
    if (__builtin_mul_overflow(n, d, &n)) return 1;
  }
  return n <= MAX_GEN ? (size_t)n : 1;
}

/* For the ggml functions: the last dimension, when it is one of the small
** generated ones (not a special spelling), times the context type's block,
** so rows are whole blocks; an axis byte >= 0xE0 leaves the shape as read. */
static void ctx_ggml_align(ctx *c) {
  if (c->ndim == 0 || c->axis_byte >= 0xE0) return;
  int last = c->ndim - 1;
  uint64_t v = c->dimv[last];
  char plain[32];
  snprintf(plain, sizeof plain, "%llu", (unsigned long long)v);
  if (v == 0 || v > 132 || strcmp(plain, c->dim[last]) != 0) return;
  v *= ggml_block[c->ggml];
  c->dimv[last] = v;
  snprintf(c->dim[last], sizeof c->dim[last], "%llu", (unsigned long long)v);
  c->count = 1;
  c->huge = 0;
  c->wide = 0;
  for (int i = 0; i < c->ndim; i++) {
    if (__builtin_mul_overflow(c->count, c->dimv[i], &c->count)) c->huge = 1;
    if (c->dimv[i] > MAX_GEN) c->wide = 1;
  }
}

/* Columns of the context: its last dimension, or with no shape (one row)
** all its elements. */
static size_t ctx_cols(const ctx *c) {
  if (c->ndim == 0) return ctx_elements(c);
  uint64_t v = c->dimv[c->ndim - 1];
  return v <= MAX_GEN ? (size_t)v : 1;
}

static int dtype_bits(int idx) {
  const char *n = dtype_names[idx].s;
  if (strstr(n, "4")) return 4;
  if (strstr(n, "16")) return 16;
  if (strstr(n, "32")) return 32;
  if (strstr(n, "64")) return 64;
  return 8;
}

/* ---- generators ------------------------------------------------------------ */

static float palette(unsigned v) {
  return v < 0xE0 ? (float)((int)v - 112) / 8.0f : float_specials[v - 0xE0];
}

/* double to float32 without relying on the out-of-range conversion. */
static float to_f32(double d) {
  /* Past FLT_MAX a double still rounds to FLT_MAX up to half an ulp. */
  if (d > (double)FLT_MAX) return d < 3.4028235677973366e38 ? FLT_MAX : INFINITY;
  if (d < -(double)FLT_MAX) return d > -3.4028235677973366e38 ? -FLT_MAX : -INFINITY;
  return (float)d;
}

static void put_f32(buf *b, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  unsigned char le[4] = {(unsigned char)u, (unsigned char)(u >> 8),
                         (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
  bput(b, le, 4);
}

static void put_i32(buf *b, int64_t v) {
  uint32_t u = (uint32_t)(uint64_t)v;
  unsigned char le[4] = {(unsigned char)u, (unsigned char)(u >> 8),
                         (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
  bput(b, le, 4);
}

static void put_json_number(buf *b, double v, int style) {
  if (isnan(v)) {
    bputs(b, "NaN");
  } else if (isinf(v)) {
    bputs(b, v > 0 ? "1e999" : "-1e999");
  } else {
    static const char *const fmts[] = {"%.9g", "%.17g", "%e", "%.0f"};
    bprintf(b, fmts[style & 3], v);
  }
}

/* Values of a tensor: mode 0 a palette byte each, 1 a ramp, 2 raw float32
** bits, 3 one palette value throughout. */
typedef struct valgen {
  int mode;
  float start, step;
} valgen;

static void valgen_init(src *s, valgen *g, int mode) {
  g->mode = mode;
  if (mode == 1) {
    g->start = palette(get8(s));
    g->step = palette(get8(s)) / 16.0f;
  } else if (mode == 3) {
    g->start = palette(get8(s));
  }
}

static float valgen_next(src *s, valgen *g, size_t i) {
  switch (g->mode) {
    case 0: return palette(get8(s));
    case 1: return g->start + g->step * (float)(i % 4096);
    case 2: {
      uint32_t u = (uint32_t)getn(s, 4);
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    default: return g->start;
  }
}

static void json_nested(src *s, buf *b, valgen *g, const ctx *c, int d,
                        size_t *i, int style) {
  bputs(b, "[");
  for (uint64_t k = 0; k < c->dimv[d]; k++) {
    if (k) bputs(b, style & 8 ? ", " : ",");
    if (d + 1 < c->ndim)
      json_nested(s, b, g, c, d + 1, i, style);
    else
      put_json_number(b, (double)valgen_next(s, g, (*i)++), style);
  }
  bputs(b, "]");
}

/* A float tensor of n elements.  Format byte: bits 0-1 JSON, JSON nested by
** the context shape, float32 BLOB, float32 BLOB with 1-3 trailing bytes;
** bits 2-3 the value mode; bits 4-5 the JSON number style; bit 6 spaces. */
static void gen_tensor(src *s, const ctx *c, size_t n, arg *a) {
  unsigned f = get8(s);
  int repr = (int)(f & 3);
  int style = (int)((f >> 4) & 3) | (f & 0x40 ? 8 : 0);
  valgen g;
  valgen_init(s, &g, (int)((f >> 2) & 3));
  if (repr >= 2) {
    a->type = A_BLOB;
    for (size_t i = 0; i < n; i++) put_f32(&a->b, valgen_next(s, &g, i));
    if (repr == 3) {
      static const char tail[3] = {1, 2, 3};
      bput(&a->b, tail, 1 + f % 3);
    }
    return;
  }
  a->type = A_TEXT;
  if (repr == 1 && c->ndim > 0 && !c->huge && !c->wide && c->count == n) {
    size_t i = 0;
    json_nested(s, &a->b, &g, c, 0, &i, style);
    return;
  }
  bputs(&a->b, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) bputs(&a->b, style & 8 ? ", " : ",");
    put_json_number(&a->b, (double)valgen_next(s, &g, i), style);
  }
  bputs(&a->b, "]");
}

/* One scale or zero point per group, as JSON or as a float32 / int32 BLOB. */
static void gen_params(src *s, size_t n, int zero_points, arg *a) {
  unsigned f = get8(s);
  if (f & 0x80) n = get8(s) % 9;
  int as_blob = (int)(f & 1);
  int mode = (int)((f >> 1) & 3);
  unsigned fixed = get8(s);
  a->type = as_blob ? A_BLOB : A_TEXT;
  if (!as_blob) bputs(&a->b, "[");
  for (size_t i = 0; i < n; i++) {
    unsigned pick = mode == 1 ? get8(s) : fixed;
    if (!as_blob && i) bputs(&a->b, ",");
    if (zero_points) {
      int64_t v = mode == 0 ? 0 : mode == 3 ? (int64_t)(i % 7) - 3
                                            : zp_values[pick % COUNTOF(zp_values)];
      if (as_blob) put_i32(&a->b, v);
      else bprintf(&a->b, "%lld", (long long)v);
    } else {
      double v = mode == 3 ? 0.01 * (double)(i % 50 + 1)
                           : scale_values[pick % COUNTOF(scale_values)];
      if (as_blob) put_f32(&a->b, to_f32(v));
      else put_json_number(&a->b, v, 0);
    }
  }
  if (!as_blob) bputs(&a->b, "]");
}

/* The context shape as JSON text: exact, spaced, off by one, or empty. */
static void gen_shape(src *s, const ctx *c, arg *a) {
  unsigned m = get8(s) % 8;
  a->type = A_TEXT;
  if (m == 7) {
    bputs(&a->b, "[]");
    return;
  }
  int bump = m == 6 ? (int)(get8(s) % 4) : -1;
  bputs(&a->b, m == 5 ? "[ " : "[");
  for (int i = 0; i < c->ndim; i++) {
    if (i) bputs(&a->b, m == 5 ? " , " : ",");
    if (i == bump)
      bprintf(&a->b, "%llu", (unsigned long long)(c->dimv[i] + 1));
    else
      bputs(&a->b, c->dim[i]);
  }
  bputs(&a->b, m == 5 ? " ]" : "]");
}

/* Lists joined by '+' or '|', past the 16 items q_compare takes.  Head byte:
** bits 0-4 the count (1 + value % 20), bit 6 one item repeated, bit 7 '|'. */
static void gen_list(src *s, buf *b, const lit *items, size_t nitems) {
  unsigned h = get8(s);
  unsigned n = 1 + (h & 31) % 20;
  char join = (h & 0x80) ? '|' : '+';
  unsigned same = get8(s);
  int repeat = (h & 0x40) != 0;
  for (unsigned i = 0; i < n; i++) {
    if (i) bput(b, &join, 1);
    const lit *t = &items[(repeat ? same : get8(s)) % nitems];
    bput(b, t->s, t->n);
  }
}

/* q_compare's ggml list: a 10-bit set of types (bit i: ggml_names[i]), each
** in ggml's case or another (second mask), joined by '+' or '|' (bit 15);
** bit 14 adds one name from anywhere in ggml_names, bit 13 repeats the
** first, so a list may be refused. */
static void gen_ggml_list(src *s, buf *b) {
  unsigned set = (unsigned)getn(s, 2), cases = (unsigned)getn(s, 2);
  char join = (set & 0x8000) ? '|' : '+';
  int n = 0, first = -1;
  for (int i = 0; i < GGML_NTYPES; i++) {
    if (!(set >> i & 1)) continue;
    if (n++) bput(b, &join, 1);
    bput_lit(b, &ggml_names[i + ((cases >> i & 1) ? GGML_NTYPES : 0)]);
    if (first < 0) first = i;
  }
  if (set & 0x4000) {
    if (n++) bput(b, &join, 1);
    bput_lit(b, PICK(s, ggml_names));
  }
  if ((set & 0x2000) && first >= 0) {
    bput(b, &join, 1);
    bput_lit(b, &ggml_names[first + GGML_NTYPES]);
  }
}

/* q_compare's bnb4 list items: the types, with block sizes good and bad. */
static const lit bnb4_items[] = {
  L("nf4"), L("fp4"), L("NF4"), L("Fp4"), L("nf4@32"), L("fp4@4096"),
  L("nf4@128"), L("nf4@48"), L("fp4@0"), L("nf4@"), L("nf5"), L("@64"),
};

static void gen_options(src *s, buf *b) {
  unsigned h = get8(s);
  unsigned nkeys = h % 6;
  static const char *const seps[] = {" ", ",", ", ", "\t"};
  const char *sep = seps[(h >> 3) & 3];
  for (unsigned k = 0; k < nkeys; k++) {
    if (k) bputs(b, sep);
    unsigned key = get8(s) % COUNTOF(option_keys);
    bput_lit(b, &option_keys[key]);
    bputs(b, "=");
    switch (key) {
      case 0: case 1: case 13: bput_lit(b, PICK(s, int_texts)); break;
      case 2: bput_lit(b, PICK(s, flag_texts)); break;
      case 3: bput_lit(b, PICK(s, rounding_names)); break;
      case 4: case 15: bput_lit(b, PICK(s, method_names)); break;
      case 5: case 7: bput_lit(b, PICK(s, real_texts)); break;
      case 6: bput_lit(b, PICK(s, observer_names)); break;
      case 8: gen_list(s, b, dtype_names, 21); break;
      case 9: gen_list(s, b, scheme_names, 6); break;
      case 10: gen_list(s, b, block_texts, COUNTOF(block_texts)); break;
      case 11: gen_list(s, b, method_names, COUNTOF(method_names)); break;
      case 16: gen_ggml_list(s, b); break;
      case 17: bput_lit(b, PICK(s, none_texts)); break;
      case 18: bput_lit(b, PICK(s, int_texts)); break;
      case 19: bput_lit(b, PICK(s, flag_texts)); break;
      case 20: bput_lit(b, PICK(s, params_names)); break;
      case 21: bput_lit(b, PICK(s, int_texts)); break;
      case 22: bput_lit(b, PICK(s, mx_rule_names)); break;
      case 23: gen_list(s, b, bnb4_items, COUNTOF(bnb4_items)); break;
      default: bput_lit(b, PICK(s, vocab)); break;
    }
  }
}

static void gen_vocab_text(src *s, arg *a) {
  unsigned n = 1 + get8(s) % 32;
  a->type = A_TEXT;
  for (unsigned i = 0; i < n; i++) {
    const lit *t = &vocab[get8(s) % COUNTOF(vocab)];
    bput(&a->b, t->s, t->n);
  }
}

static void set_name(arg *a, const lit *table, size_t count, unsigned pick) {
  set_text(a, table[pick % count].s, table[pick % count].n);
}

static void gen_codes(src *s, const ctx *c, arg *a) {
  unsigned m = get8(s) % 4;
  size_t n = !c->huge && c->count <= MAX_GEN ? (size_t)c->count : 0;
  int bits = dtype_bits(c->dtype);
  size_t bytes = bits == 4 ? n / 2 + (n & 1) : n * (size_t)(bits / 8);
  a->type = A_BLOB;
  if (m == 2) return; /* empty */
  if (m == 3) bytes = get8(s);
  unsigned fill = get8(s);
  for (size_t i = 0; i < bytes; i++) {
    unsigned char v = (unsigned char)(m == 1 ? get8(s) : fill + i * 37);
    bput(&a->b, &v, 1);
  }
}

/* The first value of the last NREG calls' results, so calls can chain
** (quantize, then dequantize what it returned). */
static sqlite3_value *reg[NREG];

/* A register's value, or NULL while it is empty. */
static void set_register(arg *a, unsigned pick) {
  sqlite3_value *v = reg[pick % NREG];
  if (v && (a->v = sqlite3_value_dup(v))) a->type = A_VALUE;
  else a->type = A_NULL;
}

/* One importance weight per column of the context, as JSON or a float32
** BLOB.  Format byte: bit 0 BLOB; bits 1-2 the values: magnitudes of the
** palette (so an occasional inf or NaN), all 0, a ramp of quarters, raw
** float32 bits; bit 3 one weight too many, bit 4 one too few. */
static void gen_importance(src *s, const ctx *c, arg *a) {
  unsigned f = get8(s);
  size_t n = ctx_cols(c);
  if (f & 8) n++;
  else if ((f & 16) && n) n--;
  int as_blob = (int)(f & 1), mode = (int)((f >> 1) & 3);
  a->type = as_blob ? A_BLOB : A_TEXT;
  if (!as_blob) bputs(&a->b, "[");
  for (size_t i = 0; i < n; i++) {
    float v;
    if (mode == 0) v = fabsf(palette(get8(s)));
    else if (mode == 1) v = 0.0f;
    else if (mode == 2) v = (float)(i % 7) * 0.25f;
    else {
      uint32_t u = (uint32_t)getn(s, 4);
      memcpy(&v, &u, 4);
    }
    if (as_blob) {
      put_f32(&a->b, v);
    } else {
      if (i) bputs(&a->b, ",");
      put_json_number(&a->b, (double)v, 0);
    }
  }
  if (!as_blob) bputs(&a->b, "]");
}

/* Blocks of the context's ggml type for its elements (whole blocks only).
** Mode byte % 8: 0 a byte pattern, 1 raw input bytes, 2 empty, 3 a length
** byte (mostly not whole blocks), 4 one repeated byte (0x3C: every fp16
** scale 1.06; 0x7E, 0x7C, 0xFF: NaN scales; 0x00 zeros; 0x80, 0x01
** subnormal scales), 5-7 an earlier result (what q_ggml_quantize returned),
** when there is one. */
static void gen_ggml_blocks(src *s, const ctx *c, arg *a) {
  unsigned m = get8(s) % 8;
  if (m >= 5) {
    unsigned r = get8(s);
    if (reg[r % NREG]) {
      set_register(a, r);
      return;
    }
    m = 0;
  }
  size_t blk = ggml_block[c->ggml];
  size_t bytes = ctx_elements(c) / blk * ggml_bytes[c->ggml];
  a->type = A_BLOB;
  if (m == 2) return;
  if (m == 3) bytes = get8(s);
  static const unsigned char fills[8] = {0x3C, 0x7E, 0x7C, 0xFF, 0x00, 0x80,
                                         0x01, 0x55};
  unsigned fill = m == 4 ? fills[get8(s) % 8] : get8(s);
  for (size_t i = 0; i < bytes; i++) {
    unsigned char v = (unsigned char)(m == 1   ? get8(s)
                                      : m == 4 ? fill
                                               : fill + i * 37);
    bput(&a->b, &v, 1);
  }
}

static void gen_auto(src *s, const ctx *c, int role, arg *a) {
  switch (role) {
    case R_XNUM: {
      unsigned b = get8(s);
      if (b < 0x40) {
        set_real(a, (double)palette(get8(s)));
        return;
      }
    }
      /* fall through */
    case R_X: gen_tensor(s, c, ctx_elements(c), a); return;
    case R_BLOB: {
      /* Codes, a float32 tensor, or an earlier result (q_f16's, say). */
      unsigned b = get8(s) % 4;
      if (b == 1) gen_tensor(s, c, ctx_elements(c), a);
      else if (b == 2) set_register(a, get8(s));
      else gen_codes(s, c, a);
      return;
    }
    case R_CODES: {
      /* Mostly codes of the context's size; or what quantize returned. */
      unsigned b = get8(s);
      if (b >= 0xC0) set_register(a, b);
      else gen_codes(s, c, a);
      return;
    }
    case R_FROM: set_name(a, from_names, COUNTOF(from_names), get8(s)); return;
    case R_DTYPE: {
      unsigned b = get8(s);
      set_name(a, dtype_names, COUNTOF(dtype_names),
               b < 0x80 ? (unsigned)c->dtype : b);
      return;
    }
    case R_COUNT: {
      /* The element count, one off either way, 0, or any integer. */
      unsigned b = get8(s);
      int64_t n = (int64_t)ctx_elements(c);
      const int64_t near[4] = {n, n - 1, n + 1, 0};
      set_int(a, b < 0x80 ? near[b % 4] : int_values[b % COUNTOF(int_values)]);
      return;
    }
    case R_SCHEME: set_name(a, scheme_names, COUNTOF(scheme_names), get8(s)); return;
    case R_OPTS: a->type = A_TEXT; gen_options(s, &a->b); return;
    case R_SCALE: {
      unsigned b = get8(s);
      if (b >= 0xF0) set_int(a, int_values[b % COUNTOF(int_values)]);
      else set_real(a, scale_values[b % COUNTOF(scale_values)]);
      return;
    }
    case R_ZP: set_int(a, zp_values[get8(s) % COUNTOF(zp_values)]); return;
    case R_SHAPE: gen_shape(s, c, a); return;
    case R_AXIS: set_int(a, c->axis); return;
    case R_BLOCK: set_int(a, c->block); return;
    case R_SCALES_CH: gen_params(s, ctx_groups(c, 0), 0, a); return;
    case R_ZPS_CH: gen_params(s, ctx_groups(c, 0), 1, a); return;
    case R_SCALES_BLK: gen_params(s, ctx_groups(c, 1), 0, a); return;
    case R_ZPS_BLK: gen_params(s, ctx_groups(c, 1), 1, a); return;
    case R_GGML_TYPE: {
      /* The context's type as ggml spells it, in another case, or any name. */
      unsigned b = get8(s);
      unsigned pick = b < 0x80   ? (unsigned)c->ggml
                      : b < 0xC0 ? (unsigned)c->ggml + GGML_NTYPES
                                 : b;
      set_name(a, ggml_names, COUNTOF(ggml_names), pick);
      return;
    }
    case R_IMPORTANCE: gen_importance(s, c, a); return;
    case R_GGML_BLOCKS: gen_ggml_blocks(s, c, a); return;
    case R_GGML_COUNT: {
      /* The context's shape (q_ggml_dequantize's shape form), or the count
      ** form: the weights the context's blocks hold, one less, a block more,
      ** 0, or any integer. */
      unsigned b = get8(s);
      if (b >= 0x40 && b < 0x80) {
        gen_shape(s, c, a);
        return;
      }
      int64_t blk = (int64_t)ggml_block[c->ggml];
      int64_t n = (int64_t)ctx_elements(c) / blk * blk;
      const int64_t near[4] = {n, n - 1, n + blk, 0};
      set_int(a, b < 0x80 ? near[b % 4] : int_values[b % COUNTOF(int_values)]);
      return;
    }
    case R_COLUMNS: {
      /* The context's columns, one off either way, or any integer. */
      unsigned b = get8(s);
      int64_t n = (int64_t)ctx_cols(c);
      const int64_t near[4] = {n, n, n - 1, n + 1};
      set_int(a, b < 0x80 ? near[b % 4] : int_values[b % COUNTOF(int_values)]);
      return;
    }
    case R_BNB4_TYPE: set_name(a, bnb4_names, COUNTOF(bnb4_names), get8(s)); return;
    case R_BNB4_BLOCK: {
      unsigned b = get8(s);
      set_int(a, b < 0xF0 ? bnb4_blocks[b % COUNTOF(bnb4_blocks)]
                          : int_values[b % COUNTOF(int_values)]);
      return;
    }
    default: a->type = A_NULL; return;
  }
}

/* The previous value in the same argument position (row or call). */
static arg last_arg[MAX_ARGS];

static void decode_arg(src *s, const ctx *c, int role, int pos, int row, arg *a) {
  unsigned k = get8(s) % 16;
  arg_clear(a);
  if (k <= 4) {
    /* Later rows of an aggregate keep dtype, shape, options ... as in row 0,
    ** which is how these functions are used; the tensors change. */
    if (row > 0 && role != R_X && role != R_XNUM && role != R_CODES &&
        role != R_BLOB) {
      arg_copy(a, &last_arg[pos]);
      return;
    }
    gen_auto(s, c, role, a);
    return;
  }
  switch (k) {
    case 5: a->type = A_NULL; break;
    case 6: set_int(a, int_values[get8(s) % COUNTOF(int_values)]); break;
    case 7: set_int(a, (int64_t)getn(s, 8)); break;
    case 8: set_real(a, real_values[get8(s) % COUNTOF(real_values)]); break;
    case 9: {
      uint64_t u = getn(s, 8);
      double d;
      memcpy(&d, &u, 8);
      set_real(a, d);
      break;
    }
    case 10: {
      unsigned len = (unsigned)getn(s, 2);
      if (len & 0x8000) {
        a->type = A_ZERO;
        a->i = zero_sizes[len & 15];
      } else {
        const uint8_t *p;
        size_t n = getbytes(s, len, &p);
        a->type = A_BLOB;
        bput(&a->b, p, n);
      }
      break;
    }
    case 11: gen_tensor(s, c, get8(s), a); break;
    case 12: {
      const uint8_t *p;
      size_t n = getbytes(s, (size_t)getn(s, 2), &p);
      set_text(a, (const char *)p, n);
      break;
    }
    case 13: gen_vocab_text(s, a); break;
    case 14: {
      unsigned w = get8(s) % 6;
      if (w == 0) gen_tensor(s, c, ctx_elements(c), a);
      else if (w == 1) gen_shape(s, c, a);
      else if (w == 2) set_name(a, dtype_names, COUNTOF(dtype_names), get8(s));
      else if (w == 3) set_name(a, scheme_names, COUNTOF(scheme_names), get8(s));
      else if (w == 4) {
        a->type = A_TEXT;
        gen_options(s, &a->b);
      } else {
        set_name(a, from_names, COUNTOF(from_names), get8(s));
      }
      if (a->type == A_BLOB) a->type = A_TEXT; /* this kind is always text */
      break;
    }
    default: {
      unsigned w = get8(s);
      if (w & 0x80) set_register(a, w);
      else arg_copy(a, &last_arg[pos]);
      break;
    }
  }
}

/* ---- SQL ------------------------------------------------------------------- */

static sqlite3 *db;
static int trace;
static volatile unsigned sink;

enum { NV_SCALAR = 2, NV_AGG = 13, NV_VTAB = 8, NV_INSERT = 8 };

static int variants_of(const fn *f) {
  return f->kind == 's' ? NV_SCALAR : f->kind == 'v' ? NV_VTAB
       : f->kind == 'i' ? NV_INSERT : NV_AGG;
}

/* Whether the form reads its arguments from rows of t. */
static int uses_rows(const fn *f, int variant) {
  if (f->kind == 'a' || f->kind == 'w') return 1;
  if (f->kind == 's') return variant == 1;
  if (f->kind == 'i') return variant == 0 || variant == 2 || variant == 3 || variant == 4;
  return variant == 3 || variant == 7;
}

/* The two files the path writers write, as SQL: parameters when prepared,
** literals in a trace. */
static const char *wpath[2] = {":path", ":path2"};
static char wdir[64], wfile[2][96];
static int savepoint_opened;

static void put_args(buf *o, int arity, const char *const *a) {
  for (int i = 0; i < arity; i++) {
    if (i) bputs(o, ", ");
    bputs(o, a[i]);
  }
}

/* The SQL of one form; a[] are the argument expressions (placeholders, column
** names or, for a trace, literals), fv and gv the frame values. */
static void build_sql(buf *o, const fn *f, int arity, int variant,
                      const char *const *a, const char *fv, const char *gv) {
  if (f->kind == 's') {
    bprintf(o, "SELECT %s(", f->name);
    put_args(o, arity, a);
    bputs(o, variant == 1 ? ") FROM t ORDER BY r" : ")");
    return;
  }
  if (f->kind == 'a' || f->kind == 'w') {
    buf call = {0};
    bprintf(&call, "%s(", f->name);
    put_args(&call, arity, a);
    bputs(&call, ")");
    const char *c = call.p;
    switch (variant) {
      case 0: bprintf(o, "SELECT %s FROM t", c); break;
      case 1: bprintf(o, "SELECT %s FROM t GROUP BY r %% 2", c); break;
      case 2:
        bprintf(o, "SELECT %s OVER (ORDER BY r ROWS BETWEEN %s PRECEDING AND "
                   "CURRENT ROW) FROM t", c, fv);
        break;
      case 3:
        bprintf(o, "SELECT %s OVER (ORDER BY r ROWS BETWEEN UNBOUNDED PRECEDING "
                   "AND CURRENT ROW) FROM t", c);
        break;
      case 4:
        bprintf(o, "SELECT %s OVER (ORDER BY r ROWS BETWEEN %s PRECEDING AND %s "
                   "FOLLOWING) FROM t", c, fv, gv);
        break;
      case 5:
        bprintf(o, "SELECT %s OVER (ORDER BY r DESC ROWS BETWEEN CURRENT ROW AND "
                   "UNBOUNDED FOLLOWING) FROM t", c);
        break;
      case 6: bprintf(o, "SELECT %s OVER () FROM t", c); break;
      case 7:
        bprintf(o, "SELECT %s OVER (PARTITION BY r %% 2 ORDER BY r GROUPS BETWEEN "
                   "%s PRECEDING AND %s FOLLOWING EXCLUDE CURRENT ROW) FROM t",
                c, fv, gv);
        break;
      case 8:
        bprintf(o, "SELECT %s OVER (ORDER BY r RANGE BETWEEN %s PRECEDING AND "
                   "CURRENT ROW) FROM t", c, fv);
        break;
      case 9:
        bprintf(o, "SELECT %s OVER (ORDER BY r ROWS BETWEEN %s FOLLOWING AND %s "
                   "FOLLOWING) FROM t", c, fv, gv);
        break;
      case 10:
        bprintf(o, "SELECT %s FILTER (WHERE r %% 3 <> 1) OVER (ORDER BY r ROWS "
                   "BETWEEN %s PRECEDING AND CURRENT ROW) FROM t", c, fv);
        break;
      case 11: bprintf(o, "SELECT %s FROM t WHERE r > %s", c, fv); break;
      default:
        bprintf(o, "SELECT %s OVER (ORDER BY r ROWS BETWEEN 1 PRECEDING AND 1 "
                   "PRECEDING), %s OVER (ORDER BY c0, r ROWS %s PRECEDING) FROM t",
                c, c, fv);
        break;
    }
    bfree(&call);
    return;
  }
  if (f->kind == 'i') {
    /* Into the eponymous table, or into a table of the same module in temp
    ** (3); rows of t, one row of parameters (1), rows alternating between
    ** two files (2), rows cut short by another expression's error at r = 2
    ** (4); savepoints around them (5, 6, 7). */
    if (variant >= 5) {
      bputs(o, variant == 5 ? "SAVEPOINT fz" : variant == 6 ? "ROLLBACK TO fz"
                                                           : "RELEASE fz");
      return;
    }
    bprintf(o, "INSERT INTO %s%s (path", variant == 3 ? "temp.fz_" : "", f->name);
    for (int i = 0; i < arity; i++) bprintf(o, ", %s", f->hidden[i]);
    if (variant == 1) {
      bprintf(o, ") VALUES (%s", wpath[0]);
      for (int i = 0; i < arity; i++) bprintf(o, ", %s", a[i]);
      bputs(o, ")");
      return;
    }
    if (variant == 2)
      bprintf(o, ") SELECT CASE r %% 2 WHEN 0 THEN %s ELSE %s END", wpath[0], wpath[1]);
    else
      bprintf(o, ") SELECT %s", wpath[0]);
    for (int i = 0; i < arity; i++) bprintf(o, ", %s", a[i]);
    bputs(o, variant == 4 ? " FROM t WHERE abs(-9223372036854775807 - r + 1) > 0 ORDER BY r"
                          : " FROM t ORDER BY r");
    return;
  }
  /* Table-valued.  With no arguments the call is written without parens. */
  buf call = {0};
  bputs(&call, f->name);
  if (arity > 0 && variant != 4 && variant != 6) {
    bputs(&call, "(");
    put_args(&call, arity, a);
    bputs(&call, ")");
  }
  const char *c = call.p;
  switch (variant) {
    case 0: bprintf(o, "SELECT * FROM %s", c); break;
    case 1: bprintf(o, "SELECT *, x, rowid FROM %s ORDER BY 1 DESC", c); break;
    case 2: bprintf(o, "SELECT * FROM %s LIMIT %s", c, fv); break;
    case 3: bprintf(o, "SELECT v.* FROM t, %s AS v ORDER BY t.r", c); break;
    case 4:
    case 6:
      /* Arguments as constraints on the hidden columns: in reverse order
      ** (4), or in order with the second as IS, which is not EQ (6). */
      bprintf(o, "SELECT * FROM %s", c);
      for (int i = 0; i < arity; i++) {
        int j = variant == 4 ? arity - 1 - i : i;
        bprintf(o, " %s %s %s %s", i ? "AND" : "WHERE", f->hidden[j],
                variant == 6 && j == 1 ? "IS" : "=", a[j]);
      }
      break;
    case 5: bprintf(o, "SELECT count(*) FROM %s", c); break;
    default: bprintf(o, "SELECT (SELECT count(*) FROM %s) FROM t ORDER BY r", c); break;
  }
  bfree(&call);
}

static const char *const param_names[MAX_ARGS] = {"?1", "?2", "?3", "?4",
                                                  "?5", "?6", "?7", "?8"};
static const char *const column_names[MAX_ARGS] = {"c0", "c1", "c2", "c3",
                                                   "c4", "c5", "c6", "c7"};
static const char *const tcolumn_names[MAX_ARGS] = {
    "t.c0", "t.c1", "t.c2", "t.c3", "t.c4", "t.c5", "t.c6", "t.c7"};

static const char *const *arg_exprs(const fn *f, int variant) {
  if (!uses_rows(f, variant)) return param_names;
  return f->kind == 'v' ? tcolumn_names : column_names;
}

static sqlite3_stmt *stmts[NFNS][MAX_ARGS + 1][16];
static unsigned char unpreparable[NFNS][MAX_ARGS + 1][16];

static sqlite3_stmt *prepare(const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "fuzz_sql: cannot prepare %s: %s\n", sql, sqlite3_errmsg(db));
    abort();
  }
  return st;
}

static sqlite3_stmt *stmt_for(int fi, int arity, int variant) {
  if (stmts[fi][arity][variant] || unpreparable[fi][arity][variant])
    return stmts[fi][arity][variant];
  buf sql = {0};
  build_sql(&sql, &fns[fi], arity, variant, arg_exprs(&fns[fi], variant), ":f", ":g");
  sqlite3_stmt *st = NULL;
  /* Some forms are refused when prepared (a missing table-valued argument
  ** fails in xBestIndex): that is the error path, checked once, then
  ** remembered. */
  if (sqlite3_prepare_v2(db, sql.p, -1, &st, NULL) != SQLITE_OK) {
    if (trace) fprintf(stderr, "-- not preparable: %s: %s\n", sql.p, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    st = NULL;
    unpreparable[fi][arity][variant] = 1;
  }
  bfree(&sql);
  stmts[fi][arity][variant] = st;
  return st;
}

static int bind_arg(sqlite3_stmt *st, int idx, const arg *a) {
  switch (a->type) {
    case A_INT: return sqlite3_bind_int64(st, idx, a->i);
    case A_REAL: return sqlite3_bind_double(st, idx, a->d);
    case A_TEXT:
      return sqlite3_bind_text64(st, idx, a->b.p ? a->b.p : "", a->b.n,
                                 SQLITE_TRANSIENT, SQLITE_UTF8);
    case A_BLOB:
      /* A zero-length BLOB needs a non-NULL pointer, or it binds NULL. */
      return sqlite3_bind_blob64(st, idx, a->b.p ? a->b.p : "", a->b.n,
                                 SQLITE_TRANSIENT);
    case A_ZERO: return sqlite3_bind_zeroblob64(st, idx, (sqlite3_uint64)a->i);
    case A_VALUE: return sqlite3_bind_value(st, idx, a->v);
    default: return sqlite3_bind_null(st, idx);
  }
}

/* :f and :g: small offsets mostly, sometimes negative or huge. */
static int64_t frame_value(unsigned b) {
  if (b < 0xF0) return b % 12;
  static const int64_t big[16] = {-1, -2, 12, 100, 255, 65536, 2147483647,
                                  2147483648LL, 4294967296LL, INT64_MAX,
                                  INT64_MIN, 4611686018427387904LL, 1000000,
                                  7, 8, 9};
  return big[b - 0xF0];
}

/* Reads every column of every row, so results are touched byte by byte; the
** first column of the first row becomes a register. */
static void run(sqlite3_stmt *st, int regno) {
  int rows = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int nc = sqlite3_column_count(st);
    if (rows == 0 && nc > 0) {
      sqlite3_value_free(reg[regno]);
      reg[regno] = sqlite3_value_dup(sqlite3_column_value(st, 0));
    }
    for (int i = 0; i < nc; i++) {
      unsigned acc = (unsigned)sqlite3_column_type(st, i);
      const unsigned char *p = sqlite3_column_blob(st, i);
      int n = sqlite3_column_bytes(st, i);
      for (int k = 0; p && k < n; k++) acc += p[k];
      const unsigned char *t = sqlite3_column_text(st, i);
      n = sqlite3_column_bytes(st, i);
      for (int k = 0; t && k <= n; k++) acc += t[k]; /* text ends in a NUL */
      sink += acc;
    }
    if (++rows >= MAX_RESULT_ROWS) break;
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

/* ---- tracing: the input as SQL for the sqlite3 shell ------------------------ */

static void put_literal_value(buf *o, sqlite3_value *v);

static void put_real_literal(buf *o, double d) {
  if (isnan(d)) bputs(o, "NULL");
  else if (isinf(d)) bputs(o, d > 0 ? "9e999" : "-9e999");
  else {
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.17g", d);
    bputs(o, tmp);
    if (!strpbrk(tmp, ".eEn")) bputs(o, ".0"); /* stays a REAL */
  }
}

static void put_bytes_literal(buf *o, const unsigned char *p, size_t n, int text) {
  int plain = text;
  for (size_t i = 0; plain && i < n; i++)
    if (p[i] == 0 || p[i] >= 0x80) plain = 0;
  if (plain) {
    bputs(o, "'");
    for (size_t i = 0; i < n; i++) {
      if (p[i] == '\'') bputs(o, "'");
      bput(o, &p[i], 1);
    }
    bputs(o, "'");
    return;
  }
  bputs(o, text ? "CAST(X'" : "X'");
  for (size_t i = 0; i < n; i++) bprintf(o, "%02X", p[i]);
  bputs(o, text ? "' AS TEXT)" : "'");
}

static void put_int_literal(buf *o, int64_t v) {
  if (v == INT64_MIN) bputs(o, "(-9223372036854775807-1)");
  else bprintf(o, "%lld", (long long)v);
}

static void put_literal(buf *o, const arg *a) {
  switch (a->type) {
    case A_INT: put_int_literal(o, a->i); break;
    case A_REAL: put_real_literal(o, a->d); break;
    case A_TEXT: put_bytes_literal(o, (const unsigned char *)a->b.p, a->b.n, 1); break;
    case A_BLOB: put_bytes_literal(o, (const unsigned char *)a->b.p, a->b.n, 0); break;
    case A_ZERO: bprintf(o, "zeroblob(%lld)", (long long)a->i); break;
    case A_VALUE: put_literal_value(o, a->v); break;
    default: bputs(o, "NULL"); break;
  }
}

static void put_literal_value(buf *o, sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: put_int_literal(o, sqlite3_value_int64(v)); break;
    case SQLITE_FLOAT: put_real_literal(o, sqlite3_value_double(v)); break;
    case SQLITE_TEXT:
      put_bytes_literal(o, sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v), 1);
      break;
    case SQLITE_BLOB: {
      const void *p = sqlite3_value_blob(v);
      put_bytes_literal(o, p ? p : (const void *)"", (size_t)sqlite3_value_bytes(v), 0);
      break;
    }
    default: bputs(o, "NULL"); break;
  }
}

static void trace_call(const fn *f, int arity, int variant, arg rows[][MAX_ARGS],
                       int nrows, int64_t fv, int64_t gv) {
  buf o = {0}, lits[MAX_ARGS], fb = {0}, gb = {0}, pb[2] = {{0}, {0}};
  const char *saved[2] = {wpath[0], wpath[1]};
  for (int k = 0; k < 2; k++) {
    put_bytes_literal(&pb[k], (const unsigned char *)wfile[k], strlen(wfile[k]), 1);
    wpath[k] = pb[k].p;
  }
  const char *a[MAX_ARGS];
  memset(lits, 0, sizeof lits);
  put_int_literal(&fb, fv);
  put_int_literal(&gb, gv);
  if (uses_rows(f, variant)) {
    bputs(&o, "DELETE FROM t;\n");
    for (int r = 0; r < nrows; r++) {
      bprintf(&o, "INSERT INTO t VALUES (%d", r + 1);
      for (int j = 0; j < MAX_ARGS; j++) {
        bputs(&o, ", ");
        if (j < arity) put_literal(&o, &rows[r][j]);
        else bputs(&o, "NULL");
      }
      bputs(&o, ");\n");
    }
    build_sql(&o, f, arity, variant, arg_exprs(f, variant), fb.p, gb.p);
  } else {
    for (int j = 0; j < arity; j++) {
      put_literal(&lits[j], &rows[0][j]);
      a[j] = lits[j].p;
    }
    build_sql(&o, f, arity, variant, a, fb.p, gb.p);
  }
  fprintf(stderr, "%s;\n", o.p);
  for (int j = 0; j < MAX_ARGS; j++) bfree(&lits[j]);
  bfree(&o);
  bfree(&fb);
  bfree(&gb);
  for (int k = 0; k < 2; k++) {
    wpath[k] = saved[k];
    bfree(&pb[k]);
  }
}

/* ---- one call, one input ------------------------------------------------------ */

static sqlite3_stmt *insert_row, *clear_rows, *sanity;

static void one_call(src *s, int callno) {
  int fi = (int)(get8(s) % NFNS);
  const fn *f = &fns[fi];
  unsigned form = get8(s);
  int arity = f->nmin + (int)((form & 15) % (unsigned)(f->nmax - f->nmin + 1));
  int variant = (int)((form >> 4) % (unsigned)variants_of(f));
  /* A plain aggregate cannot be a window function: only the forms without
  ** OVER, so no input is spent on a statement that cannot be prepared. */
  static const int aggregate_forms[3] = {0, 1, 11};
  if (f->kind == 'a') variant = aggregate_forms[variant % 3];
  int nrows = (int)(get8(s) % (MAX_ROWS + 1));
  int64_t fv = frame_value(get8(s)), gv = frame_value(get8(s));
  ctx c;
  ctx_read(s, &c);
  for (int j = 0; j < f->nmax; j++)
    if (f->roles[j] == R_GGML_TYPE) {
      ctx_ggml_align(&c);
      break;
    }
  /* SQLite (3.40) takes time linear in m - n for ROWS BETWEEN n FOLLOWING
  ** AND m FOLLOWING: a huge m would only time out inside SQLite. */
  if ((f->kind == 'a' || f->kind == 'w') && variant == 9 && gv > 65536) gv = 65536;
  int with_rows = uses_rows(f, variant);
  if (!with_rows) nrows = 1;

  arg rows[MAX_ROWS][MAX_ARGS];
  memset(rows, 0, sizeof rows);
  for (int r = 0; r < nrows; r++)
    for (int j = 0; j < arity; j++) {
      decode_arg(s, &c, f->roles[j], j, r, &rows[r][j]);
      arg_copy(&last_arg[j], &rows[r][j]);
    }

  if (trace) {
    fprintf(stderr, "-- call %d: %s, %d argument%s, variant %d\n", callno,
            f->name, arity, arity == 1 ? "" : "s", variant);
    if (c.limit != LENGTH_LIMIT) fprintf(stderr, ".limit length %d\n", c.limit);
    trace_call(f, arity, variant, rows, nrows, fv, gv);
    if (c.limit != LENGTH_LIMIT) fprintf(stderr, ".limit length %d\n", LENGTH_LIMIT);
  }

  sqlite3_stmt *st = stmt_for(fi, arity, variant);
  if (st) {
    int ok = 1;
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, c.limit);
    if (with_rows) {
      for (int r = 0; r < nrows; r++) {
        sqlite3_bind_int(insert_row, 1, r + 1);
        for (int j = 0; j < arity; j++)
          if (bind_arg(insert_row, j + 2, &rows[r][j]) != SQLITE_OK) ok = 0;
        /* A row over the length limit is refused: the table keeps the rest. */
        sqlite3_step(insert_row);
        sqlite3_reset(insert_row);
        sqlite3_clear_bindings(insert_row);
      }
    } else {
      for (int j = 0; j < arity; j++)
        if (bind_arg(st, j + 1, &rows[0][j]) != SQLITE_OK) ok = 0;
    }
    int fi_ = sqlite3_bind_parameter_index(st, ":f");
    int gi_ = sqlite3_bind_parameter_index(st, ":g");
    if (fi_) sqlite3_bind_int64(st, fi_, fv);
    if (gi_) sqlite3_bind_int64(st, gi_, gv);
    for (int k = 0; k < 2; k++) {
      int pi = sqlite3_bind_parameter_index(st, k ? ":path2" : ":path");
      if (pi) sqlite3_bind_text(st, pi, wfile[k], -1, SQLITE_STATIC);
    }
    if (f->kind == 'i' && variant == 5) savepoint_opened = 1;
    /* An argument over the length limit cannot be bound (SQLITE_TOOBIG). */
    if (ok || with_rows) run(st, callno % NREG);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, LENGTH_LIMIT);
    if (with_rows) {
      sqlite3_step(clear_rows);
      sqlite3_reset(clear_rows);
    }
  }
  for (int r = 0; r < nrows; r++)
    for (int j = 0; j < arity; j++) arg_clear(&rows[r][j]);
}

static void check_connection(void) {
  int ok = sqlite3_step(sanity) == SQLITE_ROW &&
           sqlite3_column_text(sanity, 0) &&
           strcmp((const char *)sqlite3_column_text(sanity, 0), "[1,-2]") == 0 &&
           sqlite3_column_int(sanity, 1) == 0;
  sqlite3_reset(sanity);
  if (!ok || !sqlite3_get_autocommit(db)) {
    fprintf(stderr, "fuzz_sql: the connection no longer works after this input: %s\n",
            sqlite3_errmsg(db));
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  src s = {data, size};
  if (trace) fprintf(stderr, "-- input of %zu bytes\n", size);
  for (int call = 0; call < MAX_CALLS && s.n > 0; call++) one_call(&s, call);
  for (int i = 0; i < NREG; i++) {
    sqlite3_value_free(reg[i]);
    reg[i] = NULL;
  }
  for (int j = 0; j < MAX_ARGS; j++) arg_clear(&last_arg[j]);
  /* The writers' SAVEPOINT form opens a transaction an input may leave
  ** open; nothing else may. */
  if (savepoint_opened && !sqlite3_get_autocommit(db))
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  savepoint_opened = 0;
  check_connection();
  return 0;
}

/* ---- setup --------------------------------------------------------------------- */

/* The table above must be what the extension registers, so that a function
** added later is fuzzed too (or this target refuses to start). */
static void check_function_table(void) {
  sqlite3_stmt *st = prepare(
      "SELECT name, narg FROM pragma_function_list WHERE name LIKE 'q\\_%' "
      "ESCAPE '\\' OR name LIKE '%quantize%' "
      "UNION ALL SELECT name, -1 FROM pragma_module_list WHERE name LIKE 'q\\_%' "
      "ESCAPE '\\'");
  int seen[NFNS][MAX_ARGS + 2];
  memset(seen, 0, sizeof seen);
  int bad = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    int narg = sqlite3_column_int(st, 1);
    int found = 0;
    for (int i = 0; i < NFNS && !found; i++) {
      if (strcmp(fns[i].name, name) != 0) continue;
      if ((narg < 0) != (fns[i].kind == 'v' || fns[i].kind == 'i')) continue;
      if (narg >= 0 && (narg < fns[i].nmin || narg > fns[i].nmax)) continue;
      found = 1;
      seen[i][narg + 1] = 1;
    }
    /* The removed aggregate forms of the path writers: an error whatever
    ** the arguments (file_write.test). */
    if (narg >= 0 && (strcmp(name, "q_safetensors_write") == 0 ||
                      strcmp(name, "q_gguf_write") == 0))
      found = 1;
    if (!found) {
      fprintf(stderr, "fuzz_sql: %s with %d arguments is registered but not in fns[]\n",
              name, narg);
      bad = 1;
    }
  }
  sqlite3_finalize(st);
  for (int i = 0; i < NFNS; i++) {
    if (fns[i].kind == 'v' || fns[i].kind == 'i') {
      if (!seen[i][0]) {
        fprintf(stderr, "fuzz_sql: module %s is not registered\n", fns[i].name);
        bad = 1;
      }
      continue;
    }
    for (int n = fns[i].nmin; n <= fns[i].nmax; n++)
      if (!seen[i][n + 1]) {
        fprintf(stderr, "fuzz_sql: %s with %d arguments is not registered\n",
                fns[i].name, n);
        bad = 1;
      }
  }
  if (bad) abort();
}

static void remove_wdir(void) {
  for (int k = 0; k < 2; k++) (void)unlink(wfile[k]);
  (void)rmdir(wdir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *t = getenv("FUZZ_SQL_TRACE");
  trace = t && *t && strcmp(t, "0") != 0;
  char *err = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
      sqlite3_quant_init(db, &err, NULL) != SQLITE_OK) {
    fprintf(stderr, "fuzz_sql: cannot set up: %s\n", err ? err : sqlite3_errmsg(db));
    abort();
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, LENGTH_LIMIT);
  if (sqlite3_exec(db, "CREATE TEMP TABLE t(r INTEGER PRIMARY KEY, c0, c1, c2, "
                       "c3, c4, c5, c6, c7)", NULL, NULL, NULL) != SQLITE_OK)
    abort();
  insert_row = prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  clear_rows = prepare("DELETE FROM t");
  sanity = prepare("SELECT q_json(quantize_blob('[1,-2]', 1, 0), 'int8'), "
                   "(SELECT count(*) FROM t)");
  check_function_table();
  /* The path writers' directory and their tables in temp. */
  snprintf(wdir, sizeof wdir, "%s/fuzz_sql-XXXXXX",
           access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  if (!mkdtemp(wdir)) abort();
  for (int k = 0; k < 2; k++) snprintf(wfile[k], sizeof wfile[k], "%s/%c", wdir, 'a' + k);
  atexit(remove_wdir);
  for (int i = 0; i < NFNS; i++) {
    if (fns[i].kind != 'i') continue;
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE temp.fz_%s USING %s", fns[i].name,
             fns[i].name);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) abort();
    if (trace) fprintf(stderr, "%s;\n", sql);
  }
  if (trace)
    fprintf(stderr, ".limit length %d\nCREATE TEMP TABLE IF NOT EXISTS t(r INTEGER "
                    "PRIMARY KEY, c0, c1, c2, c3, c4, c5, c6, c7);\n", LENGTH_LIMIT);
  return 0;
}
