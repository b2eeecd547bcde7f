/*
** compare.c: `sqlite-quant compare FILE`, q_compare over a whole model
** (docs/CLI.md#compare).
**
** For each float tensor of FILE (f32, f16, bf16, f64; two or more
** dimensions unless --all), in file order, one tensor (or chunk) in memory
** at a time:
**   1. q_tensors_file gives the stored bytes, cut into chunks of at most
**      half the length limit: the float32 form of an f16 chunk is twice its
**      size, and must itself fit in a BLOB (the limit is lowered only while
**      the cursor cuts the tensors, when its first step runs);
**   2. q_f32 makes the float32 form, q_compare measures every candidate on
**      it (a chunk is measured as a tensor of its rows: docs/FORMATS.md's
**      tensors bigger than a BLOB);
**   3. each scheme's totals grow: the weights it covers, its bits, the
**      squared error (mse x weights) and the signal's energy (the sum of
**      x^2, in double).
** A scheme's model-wide SQNR is 10 log10(signal energy / error energy)
** over the tensors it covers; a scheme that cannot store some tensor (a
** ggml type whose block does not divide its rows) says how many it covers.
*/
#define _POSIX_C_SOURCE 200809L /* isatty, open_memstream */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const char cli_compare_usage[] =
  "usage: sqlite-quant compare [OPTIONS] FILE\n"
  "\n"
  "Quantizes every float tensor of FILE (f32, f16, bf16, f64) under many\n"
  "schemes at once, as q_compare does, and prints each scheme's totals over\n"
  "the model: the tensors it covers, bytes, bits per weight, mean squared\n"
  "error, SQNR, and its worst tensor.  Nothing is written.\n"
  "\n"
  "  --ggml T+T...      also these ggml types (q4_K+q8_0+iq4_xs ...)\n"
  "  --options TEXT     q_compare's options, as in SQL (dtypes=int8+int4\n"
  "                     schemes=symmetric blocks=32 ggml=... bnb4=...)\n"
  "  --all              1-D tensors too (norms, biases; skipped by default)\n"
  "  --tensors          each tensor's rows too, before the totals\n"
  "  --format F         read FILE as F (gguf, safetensors, onnx, ...)\n"
  "  --json             one JSON object instead of the table\n"
  "  --progress         a line per tensor on stderr (the default on a\n"
  "                     terminal)\n"
  "  --quiet            no progress lines\n"
  "\n"
  "Ctrl-C stops the work at once and prints nothing; the exit code is\n"
  "then 130.\n";

typedef struct cli_scheme {
  char *label;
  uint64_t tensors, weights, bytes;
  double bits, error, signal;  /* sums: bpw x weights, mse x weights, x^2 */
  double worst_sqnr;
  char *worst_tensor;
} cli_scheme;

typedef struct cli_compare {
  const char *path, *format, *ggml, *options;
  int all, per_tensor, json, quiet, progress;
  sqlite3 *db;
  char *opts;                   /* the q_compare options, ggml= added */
  cli_scheme *schemes;
  size_t nschemes, cap;
  uint64_t tensors, weights;
  int per_tensor_rows;          /* JSON: rows printed so far */
} cli_compare;

/* The energy of a little-endian float32 BLOB, in double. */
static double cli_energy(const unsigned char *p, int nbytes) {
  double e = 0;
  for (int i = 0; i + 4 <= nbytes; i += 4) {
    double f = cli_le_f32(p + i);
    e += f * f;
  }
  return e;
}

static double cli_sqnr(double signal, double error) {
  if (error == 0) return signal == 0 ? NAN : INFINITY;
  return 10 * log10(signal / error);
}

static cli_scheme *cli_scheme_for(cli_compare *c, const char *label) {
  for (size_t i = 0; i < c->nschemes; i++)
    if (strcmp(c->schemes[i].label, label) == 0) return &c->schemes[i];
  if (c->nschemes == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 32;
    cli_scheme *s = sqlite3_realloc64(c->schemes, cap * sizeof *s);
    if (!s) return NULL;
    c->schemes = s;
    c->cap = cap;
  }
  cli_scheme *s = &c->schemes[c->nschemes];
  memset(s, 0, sizeof *s);
  s->worst_sqnr = INFINITY;
  if (!(s->label = sqlite3_mprintf("%s", label))) return NULL;
  c->nschemes++;
  return s;
}

static void cli_put_double(FILE *out, const char *fmt, double v) {
  if (isnan(v)) fputs("null", out);
  else if (isinf(v)) fputs(v > 0 ? "\"Inf\"" : "\"-Inf\"", out);
  else fprintf(out, fmt, v);
}

/* An error of a statement on one tensor, which the extension's message
** does not name ("element 4 is inf").  An error in the options is the
** same for every tensor, so it names none. */
static int cli_fail_tensor(cli_compare *c, const char *name) {
  const char *message = cli_message(sqlite3_errmsg(c->db));
  if (sqlite3_errcode(c->db) == SQLITE_INTERRUPT ||
      strncmp(message, "option ", 7) == 0 ||
      strncmp(message, "unknown option ", 15) == 0)
    return cli_fail_db("compare", c->db);
  char *m = sqlite3_mprintf("tensor '%s': %s", name, message);
  int rc = cli_fail("compare", m ? m : sqlite3_errmsg(c->db));
  sqlite3_free(m);
  return rc;
}

/* One tensor (chunk): x its float32 form.  Runs q_compare and adds each
** row to its scheme. */
static int cli_compare_one(cli_compare *c, sqlite3_stmt *cmp, const char *name,
                           const char *shape, sqlite3_value *x,
                           uint64_t weights, FILE *out) {
  double signal = cli_energy(sqlite3_value_blob(x), sqlite3_value_bytes(x));
  sqlite3_reset(cmp);
  sqlite3_bind_value(cmp, 1, x);
  sqlite3_bind_text(cmp, 2, shape, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(cmp)) == SQLITE_ROW) {
    const char *label = (const char *)sqlite3_column_text(cmp, 0);
    if (!label) continue;
    cli_scheme *s = cli_scheme_for(c, label);
    if (!s) return cli_fail("compare", "out of memory");
    double bpw = sqlite3_column_double(cmp, 2);
    double mse = sqlite3_column_double(cmp, 3);
    double error = mse * (double)weights;
    double sqnr = cli_sqnr(signal, error);
    s->tensors++;
    s->weights += weights;
    s->bytes += (uint64_t)sqlite3_column_int64(cmp, 1);
    s->bits += bpw * (double)weights;
    s->error += error;
    s->signal += signal;
    if (sqnr < s->worst_sqnr || !s->worst_tensor) {
      char *w = sqlite3_mprintf("%s", name);
      if (!w) return cli_fail("compare", "out of memory");
      sqlite3_free(s->worst_tensor);
      s->worst_tensor = w;
      s->worst_sqnr = sqnr;
    }
    if (c->per_tensor && c->json) {
      fputs(c->per_tensor_rows++ ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
      cli_put_json_string(out, name);
      fputs(", \"scheme\": ", out);
      cli_put_json_string(out, label);
      fprintf(out, ", \"bits_per_weight\": %.6g, \"mse\": ", bpw);
      cli_put_double(out, "%.6g", mse);
      fputs(", \"sqnr_db\": ", out);
      cli_put_double(out, "%.4f", sqnr);
      fputc('}', out);
    } else if (c->per_tensor) {
      fputs("  ", out);
      cli_put_text(out, name);
      fputs("  ", out);
      cli_put_text(out, label);
      fprintf(out, "  %.4g bits  mse %.6g  sqnr %.2f dB\n", bpw, mse, sqnr);
    }
  }
  if (rc != SQLITE_DONE) return cli_fail_tensor(c, name);
  return CLI_OK;
}

static sqlite3_stmt *cli_compare_tensors(cli_compare *c, int count_only) {
  char *sql = sqlite3_mprintf(
      "SELECT %s FROM q_tensors_file(?1%s) "
      "WHERE dtype IN ('f32', 'f16', 'bf16', 'f64') AND nbytes > 0 "
      "AND (?3 OR json_array_length(shape) >= 2)%s",
      count_only ? "count(*)"
                 : "name, dtype, chunk, chunks, "
                   "CASE WHEN chunks > 1 THEN json_set(shape, '$[0]', rows) "
                   "ELSE shape END, data",
      c->format ? ", ?2" : "", count_only ? " AND chunk = 0" : "");
  if (!sql) {
    cli_fail("compare", "out of memory");
    return NULL;
  }
  sqlite3_stmt *s = cli_prepare(c->db, "compare", sql);
  sqlite3_free(sql);
  if (!s) return NULL;
  sqlite3_bind_text(s, 1, c->path, -1, SQLITE_STATIC);
  if (c->format) sqlite3_bind_text(s, 2, c->format, -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 3, c->all);
  return s;
}

static int cli_compare_cmp(const void *a, const void *b) {
  const cli_scheme *x = a, *y = b;
  double bx = x->bits / (double)x->weights, by = y->bits / (double)y->weights;
  if (bx != by) return bx < by ? -1 : 1;
  double sx = cli_sqnr(x->signal, x->error), sy = cli_sqnr(y->signal, y->error);
  if (sx != sy) return sx > sy ? -1 : 1;
  return strcmp(x->label, y->label);
}

/* The ggml types asked for that no tensor took (a row that is not whole
** blocks of the type is skipped by q_compare), so that a missing row of
** the table is explained rather than silent. */
static void cli_compare_unapplied(const cli_compare *c, FILE *out, int json) {
  int n = 0;
  for (const char *p = c->ggml; p && *p;) {
    size_t k = strcspn(p, "+");
    int found = 0;
    for (size_t i = 0; i < c->nschemes && !found; i++)
      found = strlen(c->schemes[i].label) == k &&
              memcmp(c->schemes[i].label, p, k) == 0;
    if (!found && k) {
      if (json) fputs(n++ ? ", \"" : "\"", out);
      else fputs(n++ ? ", " : "  not applied to any tensor (rows not whole blocks): ", out);
      fwrite(p, 1, k, out);
      if (json) fputc('"', out);
    }
    p += k + (p[k] == '+');
  }
  if (n && !json) fputc('\n', out);
}

static void cli_compare_print(cli_compare *c, FILE *out) {
  /* qsort's array may not be NULL, even empty (UBSan holds it to that). */
  if (c->nschemes) qsort(c->schemes, c->nschemes, sizeof *c->schemes, cli_compare_cmp);
  if (c->json) {
    fprintf(out, "%s\"tensors\": %llu, \"weights\": %llu, \"schemes\": [",
            c->per_tensor ? (c->per_tensor_rows ? "\n],\n" : "],\n") : "",
            (unsigned long long)c->tensors, (unsigned long long)c->weights);
    for (size_t i = 0; i < c->nschemes; i++) {
      const cli_scheme *s = &c->schemes[i];
      fputs(i ? ",\n  {\"scheme\": " : "\n  {\"scheme\": ", out);
      cli_put_json_string(out, s->label);
      fprintf(out, ", \"tensors\": %llu, \"weights\": %llu, \"bytes\": %llu, "
                   "\"bits_per_weight\": %.6g, \"mse\": ",
              (unsigned long long)s->tensors, (unsigned long long)s->weights,
              (unsigned long long)s->bytes, s->bits / (double)s->weights);
      cli_put_double(out, "%.6g", s->error / (double)s->weights);
      fputs(", \"sqnr_db\": ", out);
      cli_put_double(out, "%.4f", cli_sqnr(s->signal, s->error));
      fputs(", \"worst_sqnr_db\": ", out);
      cli_put_double(out, "%.4f", s->worst_sqnr);
      fputs(", \"worst_tensor\": ", out);
      cli_put_json_string(out, s->worst_tensor ? s->worst_tensor : "");
      fputc('}', out);
    }
    fputs(c->nschemes ? "\n], \"not_applied\": [" : "], \"not_applied\": [", out);
    cli_compare_unapplied(c, out, 1);
    fputs("]}\n", out);
    return;
  }
  cli_put_text(out, c->path);
  fprintf(out, ": %llu tensor%s, %llu weights, %zu scheme%s\n",
          (unsigned long long)c->tensors, c->tensors == 1 ? "" : "s",
          (unsigned long long)c->weights, c->nschemes,
          c->nschemes == 1 ? "" : "s");
  if (!c->nschemes) return;
  int w = 6;
  for (size_t i = 0; i < c->nschemes; i++) {
    int k = cli_text_width(c->schemes[i].label);
    if (k > w) w = k;
  }
  fprintf(out, "  %-*s  %7s  %12s  %7s  %11s  %8s  %8s  %s\n", w, "scheme",
          "tensors", "bytes", "bits/w", "mse", "sqnr_db", "worst_db",
          "worst tensor");
  for (size_t i = 0; i < c->nschemes; i++) {
    const cli_scheme *s = &c->schemes[i];
    fputs("  ", out);
    int k = cli_put_text(out, s->label);
    fprintf(out, "%*s  %7llu  %12llu  %7.4f  %11.5g  %8.2f  %8.2f  ",
            w - k, "", (unsigned long long)s->tensors,
            (unsigned long long)s->bytes, s->bits / (double)s->weights,
            s->error / (double)s->weights, cli_sqnr(s->signal, s->error),
            s->worst_sqnr);
    cli_put_text(out, s->worst_tensor ? s->worst_tensor : "");
    fputc('\n', out);
  }
  cli_compare_unapplied(c, out, 0);
}

static int cli_compare_work(cli_compare *c) {
  /* How many tensors, for the progress lines: the index alone. */
  long long total = 0;
  sqlite3_stmt *count = cli_compare_tensors(c, 1);
  if (!count) return CLI_FAILED;
  int rc = sqlite3_step(count);
  if (rc == SQLITE_ROW) total = sqlite3_column_int64(count, 0);
  sqlite3_finalize(count);
  if (rc != SQLITE_ROW) return cli_fail_db("compare", c->db);

  sqlite3_stmt *f32 = cli_prepare(c->db, "compare", "SELECT q_f32(?1, ?2)");
  sqlite3_stmt *cmp = cli_prepare(
      c->db, "compare",
      "SELECT scheme, bytes, bits_per_weight, mse FROM q_compare(?1, ?2, 0, ?3)");
  sqlite3_stmt *t = cli_compare_tensors(c, 0);
  if (!f32 || !cmp || !t) {
    sqlite3_finalize(f32);
    sqlite3_finalize(cmp);
    sqlite3_finalize(t);
    return CLI_FAILED;
  }
  sqlite3_bind_text(cmp, 3, c->opts, -1, SQLITE_STATIC);
  /* The output is kept until the end: a failure prints none of it. */
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  if (!out) {
    sqlite3_finalize(f32);
    sqlite3_finalize(cmp);
    sqlite3_finalize(t);
    return cli_fail("compare", "out of memory");
  }
  if (c->json) {
    fputs("{\"file\": ", out);
    cli_put_json_string(out, c->path);
    fputs(c->per_tensor ? ",\n\"per_tensor\": [" : ",\n", out);
  }
  /* Chunks at most half the limit, so each float32 form fits one BLOB. */
  int limit = sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, -1);
  sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, limit / 2);
  rc = sqlite3_step(t);
  sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, limit);
  long long done = 0;
  int result = CLI_OK;
  for (; rc == SQLITE_ROW; rc = sqlite3_step(t)) {
    /* A Ctrl-C between two statements interrupts none: it is seen here. */
    if (cli_interrupted()) {
      result = cli_fail("compare", "interrupted");
      break;
    }
    const char *name = (const char *)sqlite3_column_text(t, 0);
    const char *dtype = (const char *)sqlite3_column_text(t, 1);
    long long chunk = sqlite3_column_int64(t, 2);
    long long chunks = sqlite3_column_int64(t, 3);
    const char *shape = (const char *)sqlite3_column_text(t, 4);
    if (!name || !dtype || !shape) {
      result = cli_fail("compare", "out of memory");
      break;
    }
    if (chunk == 0) {
      done++;
      c->tensors++;
      if (c->progress) {
        fprintf(stderr, "[%*lld/%lld] ", (int)snprintf(NULL, 0, "%lld", total),
                done, total);
        cli_put_text(stderr, name);
        fprintf(stderr, " %s %s\n", dtype, shape);
      }
    }
    if (c->progress && chunks > 1)
      fprintf(stderr, "    chunk %lld of %lld\n", chunk + 1, chunks);
    sqlite3_reset(f32);
    sqlite3_bind_value(f32, 1, sqlite3_column_value(t, 5));
    sqlite3_bind_text(f32, 2, dtype, -1, SQLITE_STATIC);
    if (sqlite3_step(f32) != SQLITE_ROW) {
      result = cli_fail_tensor(c, name);
      break;
    }
    uint64_t weights = cli_shape_elements(shape);
    c->weights += weights;
    result = cli_compare_one(c, cmp, name, shape, sqlite3_column_value(f32, 0),
                             weights, out);
    sqlite3_bind_null(cmp, 1);
    if (result != CLI_OK) break;
  }
  if (result == CLI_OK && rc != SQLITE_DONE) result = cli_fail_db("compare", c->db);
  sqlite3_finalize(t);
  sqlite3_finalize(f32);
  sqlite3_finalize(cmp);
  if (result == CLI_OK) cli_compare_print(c, out);
  if (fclose(out) != 0 && result == CLI_OK)
    result = cli_fail("compare", "out of memory");
  if (result == CLI_OK) fwrite(buf, 1, len, stdout);
  free(buf);
  return result;
}

static void cli_compare_free(cli_compare *c) {
  for (size_t i = 0; i < c->nschemes; i++) {
    sqlite3_free(c->schemes[i].label);
    sqlite3_free(c->schemes[i].worst_tensor);
  }
  sqlite3_free(c->schemes);
  sqlite3_free(c->opts);
  sqlite3_close(c->db);
}

static int cli_compare_run(int argc, char **argv) {
  cli_compare c;
  memset(&c, 0, sizeof c);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **value = NULL;
    if (cli_is_help(a)) {
      fputs(cli_compare_usage, stdout);
      return CLI_OK;
    } else if (strcmp(a, "--all") == 0) c.all = 1;
    else if (strcmp(a, "--tensors") == 0) c.per_tensor = 1;
    else if (strcmp(a, "--json") == 0) c.json = 1;
    else if (strcmp(a, "--quiet") == 0) c.quiet = 1, c.progress = 0;
    else if (strcmp(a, "--progress") == 0) c.progress = 1, c.quiet = 0;
    else if (strcmp(a, "--ggml") == 0) value = &c.ggml;
    else if (strcmp(a, "--options") == 0) value = &c.options;
    else if (strcmp(a, "--format") == 0) value = &c.format;
    else if (a[0] == '-' && a[1]) return cli_usage_error("compare", "unknown option '%s'", a);
    else if (c.path) return cli_usage_error("compare", "one FILE only, got '%s' after '%s'", a, c.path);
    else c.path = a;
    if (value) {
      if (++i == argc) return cli_usage_error("compare", "%s needs a value", a);
      *value = argv[i];
    }
  }
  if (!c.path) return cli_usage_error("compare", "FILE is missing");
  if (!c.quiet && !c.progress) c.progress = isatty(2);
  c.opts = sqlite3_mprintf("%s%s%s%s", c.options ? c.options : "",
                           c.options && c.ggml ? " " : "", c.ggml ? "ggml=" : "",
                           c.ggml ? c.ggml : "");
  if (!c.opts) return cli_fail("compare", "out of memory");
  if (!(c.db = cli_open("compare"))) {
    sqlite3_free(c.opts);
    return CLI_FAILED;
  }
  cli_catch_interrupt(c.db);
  int rc = cli_compare_work(&c);
  cli_release_interrupt();
  cli_compare_free(&c);
  if (cli_interrupted()) rc = 130;
  if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout)))
    rc = cli_fail("compare", "cannot write the output");
  return rc;
}

const cli_command cli_compare_command = {
  "compare", "each quantization scheme's error over a whole model",
  cli_compare_usage, cli_compare_run,
};
