/*
** quantize.c: `sqlite-quant quantize IN OUT FTYPE`, llama-quantize's
** command over the extension (docs/CLI.md#quantize).
**
**   1. The plan: IN's index (names, types, shapes; no data) and the few
**      metadata keys the rules read; llama_plan.c chooses each tensor's
**      type; --dry-run prints it and stops.
**   2. The metadata llama_model_quantize writes: IN's keys in order, the
**      split keys dropped, general.quantization_version and
**      general.file_type set (moved to the end, as ggml's setters move
**      them), then each --override-kv the same way.
**   3. One transaction on the in-memory connection: for each tensor in
**      llama.cpp's order, its chunks from q_tensors_file (whole rows, at
**      most CLI_CHUNK bytes stored, so memory holds a few chunks however
**      big the model), each converted (q_f32, then q_f16 / q_bf16 /
**      q_ggml_quantize with importance 'none', which is ggml's
**      quantize_<type>(..., NULL) that llama.cpp calls) or copied, and
**      inserted into q_gguf_write, which appends it to a temporary file
**      beside OUT.  OUT appears at the COMMIT, and never after a failure
**      or Ctrl-C.
*/
#define _POSIX_C_SOURCE 200809L /* isatty */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cli.h"
#include "budget.h"
#include "convert_pool.h"
#include "imatrix.h"
#include "llama_plan.h"

/* The most bytes of a tensor held at once, as stored; its float32 form is
** at most twice that. */
#define CLI_CHUNK (16 << 20)

static const char cli_quantize_usage[] =
  "usage: sqlite-quant quantize [OPTIONS] IN OUT FTYPE [NTHREADS]\n"
  "\n"
  "Writes OUT, a GGUF file of IN's tensors quantized as llama.cpp's\n"
  "llama-quantize quantizes them (the same bytes: docs/CLI.md#quantize).\n"
  "FTYPE is one of llama-quantize's file types, by name or number: F32 F16\n"
  "BF16 Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q2_K_S Q3_K_S Q3_K_M Q3_K_L Q4_K_S\n"
  "Q4_K_M Q5_K_S Q5_K_M Q6_K IQ1_S IQ1_M IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ3_XXS\n"
  "IQ3_XS IQ3_S IQ3_M IQ4_NL IQ4_XS TQ1_0 TQ2_0 MXFP4_MOE COPY, each with\n"
  "llama.cpp's mixture (the 1-3 bit ones need --imatrix).\n"
  "NTHREADS threads convert each chunk (default 0: one per CPU); the bytes\n"
  "are the same for any number.\n"
  "\n"
  "  --pure                    every quantized tensor in FTYPE's type\n"
  "  --output-tensor-type T    output.weight in the ggml type T\n"
  "  --token-embedding-type T  token_embd.weight in T\n"
  "  --tensor-type PATTERN=T   tensors whose name matches PATTERN (a POSIX\n"
  "                            extended regular expression) in T; the first\n"
  "                            match wins; may be repeated\n"
  "  --imatrix FILE            importance from llama.cpp's GGUF imatrix FILE\n"
  "  --include-weights NAME    use the imatrix only for tensors whose name\n"
  "                            contains NAME; may be repeated\n"
  "  --exclude-weights NAME    ... except for those; may be repeated\n"
  "  --leave-output-tensor     output.weight as stored\n"
  "  --allow-requantize        quantize tensors already quantized\n"
  "  --override-kv KEY=TYPE:VALUE\n"
  "                            set a metadata key (TYPE int, float, bool or\n"
  "                            str); may be repeated\n"
  "  --target-bpw B            the least error within B bits per weight: each\n"
  "                            quantized tensor's type chosen from q2_K..q8_0\n"
  "                            by measuring them (with the imatrix's weights)\n"
  "  --dry-run                 print each tensor's type, size and rule, and\n"
  "                            the totals; write nothing\n"
  "  --format F                read IN as F (gguf, safetensors, ...)\n"
  "  --progress                a line per tensor on stderr (the default on a\n"
  "                            terminal)\n"
  "  --quiet                   no progress lines, no summary\n"
  "\n"
  "OUT appears only when every tensor is written: an error or Ctrl-C (exit\n"
  "code 130) leaves no file, and an OUT that existed stays as it was.\n";

typedef struct cli_kv {
  char *key;    /* a JSON path: $."key" */
  char *value;  /* {"type": ..., "value": ...} */
} cli_kv;

typedef struct cli_quantize {
  const char *in, *out, *ftype_name, *format;
  int dry_run, quiet, progress;
  llama_plan_options plan;
  llama_tensor_override overrides[64];
  cli_kv kvs[64];
  int nkvs;
  sqlite3 *db;
  llama_type_info *types;
  int ntypes;
  llama_plan_tensor *t;
  int n;
  char *arch;
  int in_file_type;   /* general.file_type of IN, or -1 */
  char *format_read;  /* the format q_tensors_file read IN as */
  int nthreads;
  cli_pool *pool;     /* with 2 or more threads */
  const char *imatrix_path;
  char *include[64], *exclude[64];
  int ninclude, nexclude;
  cli_imatrix imatrix;
  double target_bpw;  /* --target-bpw, or 0 */
} cli_quantize;

/* ---- Reading the plan's inputs ------------------------------------------- */

static int cli_q_types(cli_quantize *q) {
  static const llama_type_info floats[] = {
    {"f32", 1, 4, 0}, {"f16", 1, 2, 0}, {"bf16", 1, 2, 0},
  };
  sqlite3_stmt *s = cli_prepare(
      q->db, "quantize",
      "SELECT name, block_size, type_size FROM q_ggml_types "
      "WHERE name NOT IN ('f32', 'f16', 'bf16')");
  if (!s) return CLI_FAILED;
  int cap = 64, rc;
  q->types = sqlite3_malloc64(cap * sizeof *q->types);
  if (!q->types) {
    sqlite3_finalize(s);
    return cli_fail("quantize", "out of memory");
  }
  memcpy(q->types, floats, sizeof floats);
  q->ntypes = 3;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW && q->ntypes < cap) {
    llama_type_info *ti = &q->types[q->ntypes++];
    snprintf(ti->name, sizeof ti->name, "%s", sqlite3_column_text(s, 0));
    ti->block_size = sqlite3_column_int(s, 1);
    ti->type_size = sqlite3_column_int(s, 2);
    ti->quantized = 1;
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return cli_fail_db("quantize", q->db);
  q->plan.types = q->types;
  q->plan.ntypes = q->ntypes;
  return CLI_OK;
}

/* The statement sql with ?1 the input and, with --format, ?2 the format;
** "%s" in sql becomes ", ?2" or nothing. */
static sqlite3_stmt *cli_q_prepare_in(cli_quantize *q, const char *sql) {
  char *text = sqlite3_mprintf(sql, q->format ? ", ?2" : "");
  if (!text) {
    cli_fail("quantize", "out of memory");
    return NULL;
  }
  sqlite3_stmt *s = cli_prepare(q->db, "quantize", text);
  sqlite3_free(text);
  if (!s) return NULL;
  sqlite3_bind_text(s, 1, q->in, -1, SQLITE_STATIC);
  if (q->format) sqlite3_bind_text(s, 2, q->format, -1, SQLITE_STATIC);
  return s;
}

/* The metadata the rules read: the architecture, the experts, the file
** type (COPY keeps it). */
static int cli_q_read_keys(cli_quantize *q) {
  sqlite3_stmt *s = cli_q_prepare_in(
      q, "SELECT key, json_extract(value, '$') FROM "
         "q_tensor_metadata_file(?1%s) WHERE key IN ('general.architecture', "
         "'general.file_type') OR key LIKE '%%.expert_count'");
  if (!s) return CLI_FAILED;
  int rc;
  q->in_file_type = -1;
  char *experts_key = NULL;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(s, 0);
    if (!key) continue;
    if (strcmp(key, "general.architecture") == 0) {
      sqlite3_free(q->arch);
      q->arch = cli_dup_column(s, 1);
    } else if (strcmp(key, "general.file_type") == 0) {
      q->in_file_type = sqlite3_column_int(s, 1);
    }
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return cli_fail_db("quantize", q->db);
  q->plan.arch = q->arch ? q->arch : "";
  /* The hyperparameters the K mixtures read, under the architecture's
  ** prefix; a per-layer array gives its first layer's, as llama.cpp's
  ** n_gqa() does. */
  static const char *const suffix[] = {".expert_count", ".attention.head_count",
                                       ".attention.head_count_kv", ".block_count"};
  int *value[] = {&q->plan.n_expert, &q->plan.n_head, &q->plan.n_head_kv,
                  &q->plan.n_layer};
  sqlite3_stmt *e = q->arch ? cli_q_prepare_in(
      q, "SELECT CASE json_type(value) WHEN 'array' THEN json_extract(value, '$[0]') "
         "ELSE json_extract(value, '$') END FROM q_tensor_metadata_file(?1%s) "
         "WHERE key = ?3") : NULL;
  for (int i = 0; e && i < 4; i++) {
    experts_key = sqlite3_mprintf("%s%s", q->arch, suffix[i]);
    if (!experts_key) break;
    sqlite3_reset(e);
    sqlite3_bind_text(e, 3, experts_key, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(e) == SQLITE_ROW) *value[i] = sqlite3_column_int(e, 0);
    sqlite3_free(experts_key);
    experts_key = NULL;
  }
  sqlite3_finalize(e);
  if (!q->plan.n_head_kv) q->plan.n_head_kv = q->plan.n_head;
  sqlite3_free(experts_key);
  return CLI_OK;
}

/* A shape's dimensions as ggml holds them: ne[0] the last. */
static void cli_q_dims(llama_plan_tensor *t) {
  int64_t dims[8];
  int nd = 0;
  int64_t d = 0;
  int digits = 0;
  for (const char *p = t->shape; *p; p++) {
    if (*p >= '0' && *p <= '9') {
      d = d * 10 + (*p - '0');
      digits = 1;
    } else if (digits) {
      if (nd < 8) dims[nd++] = d;
      d = 0;
      digits = 0;
    }
  }
  t->ne0 = nd ? dims[nd - 1] : 1;
  t->ne2 = nd >= 3 ? dims[nd - 3] : 1;
  /* ggml_n_dims: the last ne above 1 (a shape's first), at least 1. */
  t->n_dims = 1;
  for (int i = 0; i < nd; i++)
    if (dims[i] > 1) {
      t->n_dims = nd - i;
      break;
    }
  t->elements = cli_shape_elements(t->shape);
}

static int cli_q_read_index(cli_quantize *q) {
  sqlite3_stmt *s = cli_q_prepare_in(
      q, "SELECT name, dtype, shape, format FROM q_tensors_file(?1%s) "
         "WHERE chunk = 0");
  if (!s) return CLI_FAILED;
  int cap = 0, rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (q->n == cap) {
      cap = cap ? 2 * cap : 256;
      llama_plan_tensor *t = sqlite3_realloc64(q->t, (sqlite3_uint64)cap * sizeof *t);
      if (!t) break;
      q->t = t;
    }
    llama_plan_tensor *t = &q->t[q->n];
    memset(t, 0, sizeof *t);
    t->name = cli_dup_column(s, 0);
    t->dtype = cli_dup_column(s, 1);
    t->shape = cli_dup_column(s, 2);
    q->n++;
    if (!t->name || !t->dtype || !t->shape) break;
    if (!q->format_read) q->format_read = cli_dup_column(s, 3);
    cli_q_dims(t);
  }
  sqlite3_finalize(s);
  if (rc == SQLITE_ROW) return cli_fail("quantize", "out of memory");
  if (rc != SQLITE_DONE) return cli_fail_db("quantize", q->db);
  if (q->n) qsort(q->t, (size_t)q->n, sizeof *q->t, llama_plan_order);
  return CLI_OK;
}

static uint64_t cli_q_bytes(const cli_quantize *q, const llama_plan_tensor *t,
                            const char *type) {
  const llama_type_info *ti = llama_type_find(&q->plan, type);
  if (!ti || ti->block_size <= 0) return 0;
  return t->elements / (uint64_t)ti->block_size * (uint64_t)ti->type_size;
}

/* ---- The metadata ---------------------------------------------------------- */

/* IN's metadata as q_gguf_write takes it, with llama_model_quantize's
** changes; NULL after saying why. */
static char *cli_q_metadata(cli_quantize *q, int file_type) {
  sqlite3_stmt *s = cli_q_prepare_in(
      q, "SELECT json_group_object(key, json_object('type', type, 'value', "
         "json(value))) FROM q_tensor_metadata_file(?1%s) WHERE ?3 AND key "
         "NOT IN ('split.no', 'split.count', 'split.tensors.count')");
  if (!s) return NULL;
  /* Only a GGUF file's keys are GGUF metadata. */
  sqlite3_bind_int(s, 3, q->format_read && strcmp(q->format_read, "gguf") == 0);
  char *meta = NULL;
  if (sqlite3_step(s) == SQLITE_ROW) meta = cli_dup_column(s, 0);
  if (!meta) {
    cli_fail_db("quantize", q->db);
    sqlite3_finalize(s);
    return NULL;
  }
  sqlite3_finalize(s);
  sqlite3_stmt *set = cli_prepare(
      q->db, "quantize", "SELECT json_set(json_remove(?1, ?2), ?2, json(?3))");
  if (!set) {
    sqlite3_free(meta);
    return NULL;
  }
  char ft[64];
  snprintf(ft, sizeof ft, "{\"type\":\"uint32\",\"value\":%d}", file_type);
  const char *keys[2 + 64], *values[2 + 64];
  int n = 0;
  keys[n] = "$.\"general.quantization_version\"";
  values[n++] = "{\"type\":\"uint32\",\"value\":2}";
  keys[n] = "$.\"general.file_type\"";
  values[n++] = ft;
  for (int i = 0; i < q->nkvs; i++) {
    keys[n] = q->kvs[i].key;
    values[n++] = q->kvs[i].value;
  }
  for (int i = 0; i < n && meta; i++) {
    sqlite3_reset(set);
    sqlite3_bind_text(set, 1, meta, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(set, 2, keys[i], -1, SQLITE_STATIC);
    sqlite3_bind_text(set, 3, values[i], -1, SQLITE_STATIC);
    sqlite3_free(meta);
    meta = sqlite3_step(set) == SQLITE_ROW ? cli_dup_column(set, 0) : NULL;
    if (!meta) cli_fail_db("quantize", q->db);
  }
  sqlite3_finalize(set);
  return meta;
}

/* ---- Printing --------------------------------------------------------------- */

static void cli_q_mib(FILE *out, uint64_t bytes) {
  fprintf(out, "%.2f MiB", (double)bytes / (1024.0 * 1024.0));
}

static void cli_q_progress(const cli_quantize *q, int i) {
  const llama_plan_tensor *t = &q->t[i];
  fprintf(stderr, "[%*d/%d] ", (int)snprintf(NULL, 0, "%d", q->n), i + 1, q->n);
  cli_put_text(stderr, t->name);
  fprintf(stderr, " %s %s", t->dtype, t->shape);
  if (t->convert) {
    fprintf(stderr, " -> %s ", t->type);
    cli_q_mib(stderr, cli_q_bytes(q, t, t->dtype));
    fputs(" -> ", stderr);
    cli_q_mib(stderr, cli_q_bytes(q, t, t->type));
  } else {
    fputs(" copied", stderr);
  }
  fputc('\n', stderr);
}

static void cli_q_totals(const cli_quantize *q, FILE *out, const char *what) {
  uint64_t before = 0, after = 0, weights = 0;
  for (int i = 0; i < q->n; i++) {
    before += cli_q_bytes(q, &q->t[i], q->t[i].dtype);
    after += cli_q_bytes(q, &q->t[i], q->t[i].type);
    weights += q->t[i].elements;
  }
  cli_put_text(out, what);
  fprintf(out, ": %d tensor%s, ", q->n, q->n == 1 ? "" : "s");
  cli_q_mib(out, before);
  fputs(" -> ", out);
  cli_q_mib(out, after);
  fprintf(out, " (%.2f -> %.2f bits per weight)\n",
          weights ? 8.0 * (double)before / (double)weights : 0.0,
          weights ? 8.0 * (double)after / (double)weights : 0.0);
}

static void cli_q_dry_run(const cli_quantize *q) {
  int w = 6, wt = 5;
  for (int i = 0; i < q->n; i++) {
    int k = cli_text_width(q->t[i].name);
    if (k > w) w = k;
    k = (int)strlen(q->t[i].shape);
    if (k > wt) wt = k;
  }
  printf("  %-*s  %-*s  %-7s  %-7s  %10s  %s\n", w, "tensor", wt, "shape",
         "stored", "type", "bytes", "rule");
  for (int i = 0; i < q->n; i++) {
    const llama_plan_tensor *t = &q->t[i];
    fputs("  ", stdout);
    int k = cli_put_text(stdout, t->name);
    printf("%*s  %-*s  %-7s  %-7s  %10llu  %s", w - k, "", wt, t->shape,
           t->dtype, t->type, (unsigned long long)cli_q_bytes(q, t, t->type),
           t->rule);
    if (t->wanted) printf(" (%s)", t->wanted);
    putchar('\n');
  }
  cli_q_totals(q, stdout, "dry run, nothing written");
}

/* The budget's choices as llama-quantize options: a --tensor-type line per
** tensor, its name as an anchored pattern (the dots escaped; ECMAScript and
** POSIX read such a pattern alike). */
static void cli_q_tensor_type_lines(const cli_quantize *q) {
  for (int i = 0; i < q->n; i++) {
    const llama_plan_tensor *t = &q->t[i];
    if (strcmp(t->rule, "--target-bpw: measured") != 0) continue;
    fputs("--tensor-type '^", stdout);
    for (const char *c = t->name; *c; c++) {
      if (strchr(".[]()*+?{}|^$\\", *c)) putchar('\\');
      if (*c == '\'') fputs("'\\''", stdout);
      else putchar(*c);
    }
    printf("$=%s'\n", t->type);
  }
}

/* ---- Writing ----------------------------------------------------------------- */

static int cli_q_fail_tensor(cli_quantize *q, const char *name) {
  if (sqlite3_errcode(q->db) == SQLITE_INTERRUPT) return cli_fail_db("quantize", q->db);
  char *m = sqlite3_mprintf("tensor '%s': %s", name,
                            cli_message(sqlite3_errmsg(q->db)));
  int rc = cli_fail("quantize", m ? m : sqlite3_errmsg(q->db));
  sqlite3_free(m);
  return rc;
}

/* The conversion of one chunk to t's type: ?1 the stored bytes, ?2 their
** dtype, ?3 the type, ?4 the chunk's shape, ?5 the importance (or 'none':
** ggml's quantize_<type>(..., NULL), what llama.cpp calls without an
** imatrix).  The float types take no importance, as in llama.cpp. */
static const char *cli_q_convert_sql(const char *type) {
  if (strcmp(type, "f32") == 0) return "SELECT q_f32(?1, ?2)";
  if (strcmp(type, "f16") == 0) return "SELECT q_f16(q_f32(?1, ?2))";
  if (strcmp(type, "bf16") == 0) return "SELECT q_bf16(q_f32(?1, ?2))";
  return "SELECT q_ggml_quantize(q_f32(?1, ?2), ?3, ?4, ?5)";
}

typedef struct cli_q_emit_ctx {
  cli_quantize *q;
  llama_plan_tensor *t;
  sqlite3_stmt *ins;
  const char **meta;
  sqlite3_str *gather;  /* non-NULL: pieces are gathered here, not written */
} cli_q_emit_ctx;

/* Appends one piece of t to OUT: a row of q_gguf_write (the first row
** carries the metadata). */
static int cli_q_insert(cli_q_emit_ctx *e, const void *blob, int nbytes) {
  sqlite3_stmt *ins = e->ins;
  sqlite3_reset(ins);
  sqlite3_bind_text(ins, 2, e->t->name, -1, SQLITE_STATIC);
  /* Bound without a copy: the blob is the converting statement's result,
  ** or the chunk itself, both alive until the next step. */
  sqlite3_bind_blob(ins, 3, blob ? blob : "", nbytes, SQLITE_STATIC);
  sqlite3_bind_text(ins, 4, e->t->type, -1, SQLITE_STATIC);
  sqlite3_bind_text(ins, 5, e->t->shape, -1, SQLITE_STATIC);
  if (*e->meta) sqlite3_bind_text(ins, 6, *e->meta, -1, SQLITE_STATIC);
  else sqlite3_bind_null(ins, 6);
  *e->meta = NULL;
  if (sqlite3_step(ins) != SQLITE_DONE) return 1;  /* its message stays the db's */
  /* Done with the blob: reset (a statement takes bindings only then). */
  sqlite3_reset(ins);
  sqlite3_bind_null(ins, 3);
  return 0;
}

static int cli_q_emit(void *ctx, const void *blob, int nbytes) {
  cli_q_emit_ctx *e = ctx;
  if (!e->gather) return cli_q_insert(e, blob, nbytes);
  sqlite3_str_append(e->gather, blob, nbytes);
  return sqlite3_str_errcode(e->gather) != SQLITE_OK;
}

/* Converts bytes (nbytes: rows rows along axis 0 of shape) to t's type
** with importance imp (NULL: none), and appends the result to OUT. */
static int cli_q_convert(cli_quantize *q, sqlite3_stmt *cv, cli_q_emit_ctx *e,
                         const void *bytes, int nbytes, int64_t rows,
                         const char *shape, const void *imp, int imp_bytes) {
  llama_plan_tensor *t = e->t;
  if (q->pool && rows >= 2) {
    /* The rows cut among the threads; a piece that fails is converted
    ** again below, whole, for the message one statement gives (an
    ** element's index counts from the chunk's start).  A matrix of a 3-D
    ** tensor is gathered first: the file takes whole matrices. */
    cli_q_emit_ctx g = *e;
    if (t->ne2 > 1 && imp) g.gather = sqlite3_str_new(NULL);
    int r = cli_pool_convert(q->pool, cli_q_convert_sql(t->type), bytes, nbytes,
                             t->dtype, t->type, shape, rows, imp, imp_bytes,
                             cli_q_emit, &g);
    if (g.gather) {
      int n = sqlite3_str_length(g.gather);
      int err = sqlite3_str_errcode(g.gather);
      char *all = sqlite3_str_finish(g.gather);
      if (r == 0 && err == SQLITE_OK) r = cli_q_insert(e, all, n);
      else if (r == 0) r = 1;
      sqlite3_free(all);
    }
    if (r == 0) return CLI_OK;
    if (r > 0) return cli_q_fail_tensor(q, t->name);
  }
  /* Bound without a copy: the chunk stays in the reader's row until its
  ** next step (a chunk is up to 16 MiB; each copy costs what the
  ** conversion does). */
  sqlite3_reset(cv);
  sqlite3_bind_blob(cv, 1, bytes ? bytes : "", nbytes, SQLITE_STATIC);
  sqlite3_bind_text(cv, 2, t->dtype, -1, SQLITE_STATIC);
  sqlite3_bind_text(cv, 3, t->type, -1, SQLITE_STATIC);
  sqlite3_bind_text(cv, 4, shape, -1, SQLITE_STATIC);
  if (imp) sqlite3_bind_blob(cv, 5, imp, imp_bytes, SQLITE_STATIC);
  else sqlite3_bind_text(cv, 5, "none", -1, SQLITE_STATIC);
  if (sqlite3_step(cv) != SQLITE_ROW) return cli_q_fail_tensor(q, t->name);
  if (cli_q_insert(e, sqlite3_column_blob(cv, 0), sqlite3_column_bytes(cv, 0)))
    return cli_q_fail_tensor(q, t->name);
  sqlite3_reset(cv);
  sqlite3_bind_null(cv, 1);
  return CLI_OK;
}

/* The shape of one matrix of a 3-D tensor: shape without its first
** dimension. */
static void cli_q_matrix_shape(const char *shape, char *buf, size_t size) {
  const char *comma = strchr(shape, ',');
  snprintf(buf, size, "[%s", comma ? comma + 1 : "]");
}

static int cli_q_tensor(cli_quantize *q, int i, sqlite3_stmt *ins,
                        const char *meta) {
  llama_plan_tensor *t = &q->t[i];
  /* A Ctrl-C between two statements interrupts none: it is seen here. */
  if (cli_interrupted()) return cli_fail("quantize", "interrupted");
  if (q->progress) cli_q_progress(q, i);
  sqlite3_stmt *rd = cli_q_prepare_in(
      q, "SELECT data, rows, CASE WHEN chunks > 1 THEN json_set(shape, "
         "'$[0]', rows) ELSE shape END, row_start FROM q_tensors_file(?1%s) "
         "WHERE name = ?3");
  sqlite3_stmt *cv = t->convert ? cli_prepare(q->db, "quantize",
                                              cli_q_convert_sql(t->type))
                                : NULL;
  if (!rd || (t->convert && !cv)) {
    sqlite3_finalize(rd);
    sqlite3_finalize(cv);
    return CLI_FAILED;
  }
  sqlite3_bind_text(rd, 3, t->name, -1, SQLITE_STATIC);
  /* Chunks of at most CLI_CHUNK bytes: the reader cuts at its first step
  ** by the length limit of that moment. */
  int limit = sqlite3_limit(q->db, SQLITE_LIMIT_LENGTH, -1);
  sqlite3_limit(q->db, SQLITE_LIMIT_LENGTH,
                limit / 2 < CLI_CHUNK ? limit / 2 : CLI_CHUNK);
  int rc = sqlite3_step(rd);
  sqlite3_limit(q->db, SQLITE_LIMIT_LENGTH, limit);
  int result = CLI_OK;
  cli_q_emit_ctx e = {q, t, ins, &meta, NULL};
  const unsigned char *imp = t->convert ? t->importance : NULL;
  int imp_bytes = (int)(t->ne0 * 4);
  char matrix[256];
  cli_q_matrix_shape(t->shape, matrix, sizeof matrix);
  for (; rc == SQLITE_ROW && result == CLI_OK; rc = sqlite3_step(rd)) {
    if (cli_interrupted()) {
      result = cli_fail("quantize", "interrupted");
      break;
    }
    const void *bytes = sqlite3_column_blob(rd, 0);
    int nbytes = sqlite3_column_bytes(rd, 0);
    sqlite3_int64 rows = sqlite3_column_int64(rd, 1);
    if (!cv) {
      if (cli_q_insert(&e, bytes, nbytes)) result = cli_q_fail_tensor(q, t->name);
    } else if (imp && t->ne2 > 1) {
      /* Experts: each matrix with its own importance, as llama.cpp
      ** quantizes them one by one. */
      sqlite3_int64 first = sqlite3_column_int64(rd, 3);
      int per = (int)(nbytes / rows);
      int64_t mrows = (int64_t)(t->elements / (uint64_t)t->ne2 / (uint64_t)t->ne0);
      for (sqlite3_int64 k = 0; k < rows && result == CLI_OK; k++)
        result = cli_q_convert(q, cv, &e, (const unsigned char *)bytes + k * per,
                               per, mrows, matrix,
                               imp + (size_t)(first + k) * (size_t)imp_bytes, imp_bytes);
    } else {
      result = cli_q_convert(q, cv, &e, bytes, nbytes, rows,
                             (const char *)sqlite3_column_text(rd, 2), imp, imp_bytes);
    }
  }
  if (result == CLI_OK && rc != SQLITE_DONE) result = cli_q_fail_tensor(q, t->name);
  sqlite3_finalize(rd);
  sqlite3_finalize(cv);
  return result;
}

static int cli_q_write(cli_quantize *q) {
  int file_type = q->plan.only_copy ? q->in_file_type : q->plan.ftype->id;
  if (file_type < 0)
    return cli_fail("quantize", "COPY keeps IN's general.file_type, which it does not have");
  char *meta = cli_q_metadata(q, file_type);
  if (!meta) return CLI_FAILED;
  int result = CLI_OK;
  sqlite3_stmt *ins = NULL;
  if (sqlite3_exec(q->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_free(meta);
    return cli_fail_db("quantize", q->db);
  }
  ins = cli_prepare(q->db, "quantize",
                    "INSERT INTO q_gguf_write (path, name, data, type, shape, "
                    "metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  if (!ins) result = CLI_FAILED;
  else sqlite3_bind_text(ins, 1, q->out, -1, SQLITE_STATIC);
  for (int i = 0; i < q->n && result == CLI_OK; i++)
    result = cli_q_tensor(q, i, ins, i == 0 ? meta : NULL);
  sqlite3_finalize(ins);
  if (result == CLI_OK && q->n == 0)
    result = cli_fail("quantize", "IN has no tensors");
  if (result == CLI_OK && cli_interrupted()) result = cli_fail("quantize", "interrupted");
  if (result == CLI_OK && sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    result = cli_fail_db("quantize", q->db);
  if (result != CLI_OK) sqlite3_exec(q->db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_free(meta);
  return result;
}

/* ---- The command line ---------------------------------------------------------- */

static int cli_q_override_kv(cli_quantize *q, const char *arg) {
  const char *eq = strchr(arg, '=');
  const char *colon = eq ? strchr(eq + 1, ':') : NULL;
  if (!eq || !colon || eq == arg)
    return cli_usage_error("quantize", "--override-kv takes KEY=TYPE:VALUE, got '%s'", arg);
  if (q->nkvs == (int)(sizeof q->kvs / sizeof *q->kvs))
    return cli_usage_error("quantize", "at most 64 --override-kv");
  int klen = (int)(eq - arg);
  if (memchr(arg, '"', (size_t)klen) || memchr(arg, '\\', (size_t)klen))
    return cli_usage_error("quantize", "--override-kv: a key with '\"' or '\\', got '%.*s'", klen, arg);
  int tlen = (int)(colon - eq - 1);
  const char *v = colon + 1;
  char *value = NULL;
  if (tlen == 3 && strncmp(eq + 1, "int", 3) == 0) {
    /* llama.cpp stores an int override as a uint32 of its magnitude. */
    char *end;
    long long i = strtoll(v, &end, 10);
    if (!*v || *end)
      return cli_usage_error("quantize", "--override-kv: not an integer, got '%s'", v);
    value = sqlite3_mprintf("{\"type\":\"uint32\",\"value\":%llu}",
                            (unsigned long long)(uint32_t)(i < 0 ? -i : i));
  } else if (tlen == 5 && strncmp(eq + 1, "float", 5) == 0) {
    char *end;
    double d = strtod(v, &end);
    if (!*v || *end)
      return cli_usage_error("quantize", "--override-kv: not a number, got '%s'", v);
    value = sqlite3_mprintf("{\"type\":\"float32\",\"value\":%!.17g}", d);
  } else if (tlen == 4 && strncmp(eq + 1, "bool", 4) == 0) {
    if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
      return cli_usage_error("quantize", "--override-kv: a bool is true or false, got '%s'", v);
    value = sqlite3_mprintf("{\"type\":\"bool\",\"value\":%s}", v);
  } else if (tlen == 3 && strncmp(eq + 1, "str", 3) == 0) {
    if (strlen(v) > 127)
      return cli_usage_error("quantize", "--override-kv: a str value has at most 127 bytes");
    sqlite3_str *j = sqlite3_str_new(NULL);
    sqlite3_str_appendall(j, "{\"type\":\"string\",\"value\":\"");
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
      if (*p == '"' || *p == '\\') sqlite3_str_appendf(j, "\\%c", *p);
      else if (*p < 0x20) sqlite3_str_appendf(j, "\\u%04x", *p);
      else sqlite3_str_appendchar(j, 1, (char)*p);
    }
    sqlite3_str_appendall(j, "\"}");
    value = sqlite3_str_finish(j);
  } else {
    return cli_usage_error("quantize", "--override-kv: TYPE is int, float, bool or str, got '%.*s'", tlen, eq + 1);
  }
  char *key = sqlite3_mprintf("$.\"%.*s\"", klen, arg);
  if (!value || !key) {
    sqlite3_free(value);
    sqlite3_free(key);
    return cli_fail("quantize", "out of memory");
  }
  q->kvs[q->nkvs].key = key;
  q->kvs[q->nkvs++].value = value;
  return CLI_OK;
}

/* Appends the metadata key key with value, a {"type", "value"} object. */
static int cli_q_add_kv(cli_quantize *q, const char *key, char *value) {
  if (q->nkvs == (int)(sizeof q->kvs / sizeof *q->kvs) || !value) {
    sqlite3_free(value);
    return cli_fail("quantize", "too many metadata keys, or out of memory");
  }
  char *path = sqlite3_mprintf("$.\"%s\"", key);
  if (!path) {
    sqlite3_free(value);
    return cli_fail("quantize", "out of memory");
  }
  q->kvs[q->nkvs].key = path;
  q->kvs[q->nkvs++].value = value;
  return CLI_OK;
}

/* A JSON string of at most 127 bytes of s, as llama.cpp's string
** overrides hold them (a longer one is cut there, whole UTF-8 or not, as
** strncpy cuts it). */
static char *cli_q_json_string127(const char *s) {
  sqlite3_str *j = sqlite3_str_new(NULL);
  sqlite3_str_appendall(j, "{\"type\":\"string\",\"value\":\"");
  for (int i = 0; s[i] && i < 127; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') sqlite3_str_appendf(j, "\\%c", c);
    else if (c < 0x20) sqlite3_str_appendf(j, "\\u%04x", c);
    else sqlite3_str_appendchar(j, 1, (char)c);
  }
  sqlite3_str_appendall(j, "\"}");
  return sqlite3_str_finish(j);
}

/* The importance of each tensor from --imatrix, and the keys llama-quantize
** records about it. */
static int cli_q_attach_imatrix(cli_quantize *q) {
  int rc = cli_imatrix_load(q->db, "quantize", q->imatrix_path, q->include,
                            q->ninclude, q->exclude, q->nexclude, &q->imatrix);
  if (rc != CLI_OK) return rc;
  q->plan.has_imatrix = q->imatrix.n > 0;
  for (int i = 0; i < q->n; i++) {
    llama_plan_tensor *t = &q->t[i];
    const cli_imatrix_entry *e = cli_imatrix_find(&q->imatrix, t->name);
    if (!e) continue;
    if (e->n == t->ne0 * t->ne2) t->importance = e->values;
    else t->importance_size_wrong = (int)e->n;
  }
  if (!q->imatrix.n) return CLI_OK;
  rc = cli_q_add_kv(q, "quantize.imatrix.file", cli_q_json_string127(q->imatrix_path));
  if (rc == CLI_OK && q->imatrix.dataset)
    rc = cli_q_add_kv(q, "quantize.imatrix.dataset", cli_q_json_string127(q->imatrix.dataset));
  if (rc == CLI_OK)
    rc = cli_q_add_kv(q, "quantize.imatrix.entries_count",
                      sqlite3_mprintf("{\"type\":\"uint32\",\"value\":%d}", q->imatrix.n));
  if (rc == CLI_OK && q->imatrix.chunk_count > 0)
    rc = cli_q_add_kv(q, "quantize.imatrix.chunks_count",
                      sqlite3_mprintf("{\"type\":\"uint32\",\"value\":%d}",
                                      q->imatrix.chunk_count));
  return rc;
}

/* What llama.cpp checks once the types are chosen: an imatrix entry of the
** wrong size, a very low-bit type without one. */
static int cli_q_check_importance(cli_quantize *q) {
  for (int i = 0; i < q->n; i++) {
    llama_plan_tensor *t = &q->t[i];
    if (!t->convert) continue;
    char *m = NULL;
    if (t->importance_size_wrong && strcmp(t->name, "token_embd.weight") != 0 &&
        strcmp(t->name, "per_layer_token_embd.weight") != 0)
      m = sqlite3_mprintf("tensor '%s': its imatrix entry has %d values, not %lld "
                          "(a row's %lld for each of %lld matrices)", t->name,
                          t->importance_size_wrong, (long long)(t->ne0 * t->ne2),
                          (long long)t->ne0, (long long)t->ne2);
    else if (!t->importance && q->plan.has_imatrix &&
             llama_requires_imatrix(&q->plan, t, t->type))
      m = sqlite3_mprintf("tensor '%s': type %s needs importance, and the imatrix "
                          "has none for it", t->name, t->type);
    if (m) {
      int rc = cli_fail("quantize", m);
      sqlite3_free(m);
      return rc;
    }
  }
  return CLI_OK;
}

/* What the user asked for that reached nothing is said (the work goes on,
** as llama-quantize's does): a --tensor-type pattern that matched no
** tensor, an imatrix with no entry for some quantized tensors (those are
** quantized without importance; an imatrix of another model matches
** none). */
static void cli_q_warn_unmatched(cli_quantize *q) {
  for (int i = 0; i < q->plan.noverrides; i++)
    if (!q->overrides[i].matched)
      fprintf(stderr, "sqlite-quant: quantize: warning: --tensor-type '%s' matched "
                      "no tensor\n", q->overrides[i].pattern);
  if (!q->imatrix_path) return;
  int quantized = 0, without = 0;
  for (int i = 0; i < q->n; i++) {
    const llama_type_info *ti = q->t[i].convert ? llama_type_find(&q->plan, q->t[i].type) : NULL;
    if (!ti || !ti->quantized) continue;
    quantized++;
    without += !q->t[i].importance;
  }
  if (without)
    fprintf(stderr, "sqlite-quant: quantize: warning: the imatrix has no entry for "
                    "%d of the %d quantized tensors; they are quantized without "
                    "importance\n", without, quantized);
}

/* A ggml type named on the command line (any case, as llama-quantize
** takes it), as q_ggml_types spells it; NULL after saying why. */
static const char *cli_q_type_arg(cli_quantize *q, const char *option,
                                  const char *arg) {
  for (int i = 0; i < q->ntypes; i++)
    if (strcasecmp(q->types[i].name, arg) == 0) return q->types[i].name;
  cli_usage_error("quantize", "%s: unknown ggml type '%s'", option, arg);
  return NULL;
}

static void cli_q_free(cli_quantize *q) {
  for (int i = 0; i < q->n; i++) {
    sqlite3_free(q->t[i].name);
    sqlite3_free(q->t[i].dtype);
    sqlite3_free(q->t[i].shape);
  }
  sqlite3_free(q->t);
  for (int i = 0; i < q->plan.noverrides; i++) regfree(&q->overrides[i].re);
  for (int i = 0; i < q->nkvs; i++) {
    sqlite3_free(q->kvs[i].key);
    sqlite3_free(q->kvs[i].value);
  }
  sqlite3_free(q->types);
  cli_imatrix_free(&q->imatrix);
  sqlite3_free(q->arch);
  sqlite3_free(q->format_read);
  sqlite3_close(q->db);
}

static int cli_q_work(cli_quantize *q, const char *output_type,
                      const char *embd_type, char **tensor_types, int ntt) {
  int rc = cli_q_types(q);
  if (rc != CLI_OK) return rc;
  if (output_type && !(q->plan.output_type = cli_q_type_arg(q, "--output-tensor-type", output_type)))
    return CLI_USAGE;
  if (embd_type && !(q->plan.token_embd_type = cli_q_type_arg(q, "--token-embedding-type", embd_type)))
    return CLI_USAGE;
  for (int i = 0; i < ntt; i++) {
    char *eq = strrchr(tensor_types[i], '=');
    if (!eq || eq == tensor_types[i])
      return cli_usage_error("quantize", "--tensor-type takes PATTERN=TYPE, got '%s'", tensor_types[i]);
    llama_tensor_override *o = &q->overrides[q->plan.noverrides];
    if (!(o->type = cli_q_type_arg(q, "--tensor-type", eq + 1))) return CLI_USAGE;
    *eq = 0;
    /* llama-quantize lowercases the pattern, as tensor names are. */
    for (char *c = tensor_types[i]; *c; c++)
      if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    o->pattern = tensor_types[i];
    int e = regcomp(&o->re, o->pattern, REG_EXTENDED | REG_NOSUB);
    if (e) {
      char msg[128];
      regerror(e, &o->re, msg, sizeof msg);
      return cli_usage_error("quantize", "--tensor-type: bad pattern '%s': %s", o->pattern, msg);
    }
    q->plan.noverrides++;
  }
  q->plan.overrides = q->overrides;
  if ((rc = cli_q_read_keys(q)) != CLI_OK) return rc;
  if ((rc = cli_q_read_index(q)) != CLI_OK) return rc;
  if (q->imatrix_path && (rc = cli_q_attach_imatrix(q)) != CLI_OK) return rc;
  char *err = llama_plan(&q->plan, q->t, q->n);
  if (err) {
    rc = cli_fail("quantize", err);
    sqlite3_free(err);
    return rc;
  }
  if ((rc = cli_q_check_importance(q)) != CLI_OK) return rc;
  if (!q->quiet) cli_q_warn_unmatched(q);
  if (q->target_bpw > 0 &&
      (rc = cli_budget(q->db, q->in, q->format, &q->plan, q->t, q->n, q->target_bpw,
                       q->progress)) != CLI_OK)
    return rc;
  if (q->dry_run) {
    cli_q_dry_run(q);
    if (q->target_bpw > 0) cli_q_tensor_type_lines(q);
    return CLI_OK;
  }
  if ((rc = cli_q_write(q)) != CLI_OK) return rc;
  if (!q->quiet) cli_q_totals(q, stdout, q->out);
  return CLI_OK;
}

static int cli_quantize_run(int argc, char **argv) {
  cli_quantize q;
  memset(&q, 0, sizeof q);
  q.plan.quantize_output = 1;
  const char *pos[4];
  int npos = 0;
  const char *output_type = NULL, *embd_type = NULL;
  char *tensor_types[64];
  int ntt = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **value = NULL;
    if (cli_is_help(a)) {
      fputs(cli_quantize_usage, stdout);
      return CLI_OK;
    }
    if (strcmp(a, "--pure") == 0) q.plan.pure = 1;
    else if (strcmp(a, "--allow-requantize") == 0) q.plan.allow_requantize = 1;
    else if (strcmp(a, "--leave-output-tensor") == 0) q.plan.quantize_output = 0;
    else if (strcmp(a, "--dry-run") == 0) q.dry_run = 1;
    else if (strcmp(a, "--quiet") == 0) q.quiet = 1, q.progress = 0;
    else if (strcmp(a, "--progress") == 0) q.progress = 1, q.quiet = 0;
    else if (strcmp(a, "--output-tensor-type") == 0) value = &output_type;
    else if (strcmp(a, "--token-embedding-type") == 0) value = &embd_type;
    else if (strcmp(a, "--format") == 0) value = &q.format;
    else if (strcmp(a, "--target-bpw") == 0) {
      if (++i == argc) return cli_usage_error("quantize", "%s needs a value", a);
      char *end;
      q.target_bpw = strtod(argv[i], &end);
      if (!*argv[i] || *end || !(q.target_bpw > 0 && q.target_bpw <= 32))
        return cli_usage_error("quantize", "--target-bpw is a number of bits per "
                               "weight above 0 and at most 32, got '%s'", argv[i]);
      continue;
    }
    else if (strcmp(a, "--tensor-type") == 0 || strcmp(a, "--override-kv") == 0) {
      if (++i == argc) return cli_usage_error("quantize", "%s needs a value", a);
      if (a[2] == 't') {
        if (ntt == 64) return cli_usage_error("quantize", "at most 64 --tensor-type");
        tensor_types[ntt++] = argv[i];
      } else {
        int rc = cli_q_override_kv(&q, argv[i]);
        if (rc != CLI_OK) {
          for (int k = 0; k < q.nkvs; k++) {
            sqlite3_free(q.kvs[k].key);
            sqlite3_free(q.kvs[k].value);
          }
          return rc;
        }
      }
      continue;
    } else if (strcmp(a, "--imatrix") == 0) value = &q.imatrix_path;
    else if (strcmp(a, "--include-weights") == 0 || strcmp(a, "--exclude-weights") == 0) {
      if (++i == argc) return cli_usage_error("quantize", "%s needs a value", a);
      int inc = a[3] == 'n';
      if ((inc ? q.ninclude : q.nexclude) == 64)
        return cli_usage_error("quantize", "at most 64 %s", a);
      if (inc) q.include[q.ninclude++] = argv[i];
      else q.exclude[q.nexclude++] = argv[i];
      continue;
    } else if (strcmp(a, "--keep-split") == 0 || strcmp(a, "--prune-layers") == 0)
      return cli_usage_error("quantize", "%s is llama-quantize's, not built here yet", a);
    else if (a[0] == '-' && a[1]) return cli_usage_error("quantize", "unknown option '%s'", a);
    else if (npos == 4) return cli_usage_error("quantize", "too many arguments: '%s'", a);
    else pos[npos++] = a;
    if (value) {
      if (++i == argc) return cli_usage_error("quantize", "%s needs a value", a);
      *value = argv[i];
    }
  }
  int rc = CLI_OK;
  if (npos < 3) {
    rc = cli_usage_error("quantize", "IN, OUT and FTYPE are needed");
  } else if (q.ninclude && q.nexclude) {
    rc = cli_usage_error("quantize", "--include-weights and --exclude-weights "
                         "cannot be used together");
  } else if ((q.ninclude || q.nexclude) && !q.imatrix_path) {
    rc = cli_usage_error("quantize", "--include-weights and --exclude-weights "
                         "choose imatrix entries; --imatrix is missing");
  } else {
    if (npos == 4) {
      char *end;
      long n = strtol(pos[3], &end, 10);
      if (!*pos[3] || *end || n < 0 || n > 256) {
        rc = cli_usage_error("quantize", "NTHREADS is 0..256, got '%s'", pos[3]);
        goto done;
      }
      q.nthreads = (int)n;
    }
    q.in = pos[0];
    q.out = pos[1];
    q.ftype_name = pos[2];
    if (strcasecmp(q.ftype_name, "COPY") == 0) {
      q.plan.only_copy = 1;
    } else if (!(q.plan.ftype = llama_ftype_find(q.ftype_name))) {
      rc = cli_usage_error("quantize", "unknown FTYPE '%s'", q.ftype_name);
    }
  }
done:
  if (rc != CLI_OK) {
    for (int k = 0; k < q.nkvs; k++) {
      sqlite3_free(q.kvs[k].key);
      sqlite3_free(q.kvs[k].value);
    }
    return rc;
  }
  if (!q.quiet && !q.progress) q.progress = !q.dry_run && isatty(2);
  if (!(q.db = cli_open("quantize"))) {
    cli_q_free(&q);
    return CLI_FAILED;
  }
  cli_catch_interrupt(q.db);
  /* 0 (the default) means one thread per online CPU, as in llama-quantize. */
  if (q.nthreads <= 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    q.nthreads = cpus > 0 ? (cpus < 256 ? (int)cpus : 256) : 1;
  }
  if (q.nthreads > 1 && !q.dry_run && !(q.pool = cli_pool_open(q.nthreads, "quantize"))) {
    cli_release_interrupt();
    cli_q_free(&q);
    return CLI_FAILED;
  }
  rc = cli_q_work(&q, output_type, embd_type, tensor_types, ntt);
  cli_pool_close(q.pool);
  cli_release_interrupt();
  cli_q_free(&q);
  if (cli_interrupted()) rc = 130;
  if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout)))
    rc = cli_fail("quantize", "cannot write the output");
  return rc;
}

const cli_command cli_quantize_command = {
  "quantize", "a GGUF file quantized as llama-quantize quantizes it",
  cli_quantize_usage, cli_quantize_run,
};
