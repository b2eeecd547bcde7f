/*
** info.c: `sqlite-quant info FILE`, what a model file holds (docs/CLI.md).
**
** Two statements: q_tensor_metadata_file and q_tensors_file over FILE.
** Only the index is read, never the tensors' data (the data column is not
** asked for), so a model of any size is listed at once.  A tensor bigger
** than a BLOB comes out of q_tensors_file as chunks; info lists it once,
** with all its bytes.
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char cli_info_usage[] =
  "usage: sqlite-quant info [--format F] [--json] [--full] FILE\n"
  "\n"
  "What a model file holds: its format, its metadata, and each tensor's\n"
  "name, dtype, shape (numpy order: the slowest axis first), elements and\n"
  "stored bytes.  FILE is GGUF, safetensors, ONNX, TFLite, .npy or .npz:\n"
  "its first bytes decide, unless --format names the format.\n"
  "\n"
  "  --format F  read FILE as F: gguf, safetensors, onnx, tflite, npy, npz\n"
  "  --json      one JSON object: file, format, elements, bytes, metadata\n"
  "              (key, type, value as JSON) and tensors (name, dtype,\n"
  "              shape, elements, bytes, scope)\n"
  "  --full      metadata values in full (otherwise a value wider than 60\n"
  "              columns is cut, and a long array shows its item count)\n";

enum { CLI_INFO_VALUE_COLUMNS = 60 };

typedef struct cli_tensor {
  char *name, *dtype, *shape, *scope;
  uint64_t elements, bytes;
} cli_tensor;

typedef struct cli_info {
  const char *path, *format;  /* format: as given, or NULL */
  int json, full;
  sqlite3 *db;
  char *format_read;          /* the format the extension read */
  cli_tensor *tensors;
  size_t ntensors, cap;
  uint64_t elements, bytes;
} cli_info;

/* "SELECT cols FROM table(?1[, ?2])": a NULL argument would give no rows,
** so the format is bound only when given. */
static sqlite3_stmt *cli_info_query(cli_info *in, const char *cols,
                                    const char *table) {
  char *sql = sqlite3_mprintf("SELECT %s FROM %s(?1%s)", cols, table,
                              in->format ? ", ?2" : "");
  if (!sql) {
    cli_fail("info", "out of memory");
    return NULL;
  }
  sqlite3_stmt *s = cli_prepare(in->db, "info", sql);
  sqlite3_free(sql);
  if (!s) return NULL;
  sqlite3_bind_text(s, 1, in->path, -1, SQLITE_STATIC);
  if (in->format) sqlite3_bind_text(s, 2, in->format, -1, SQLITE_STATIC);
  return s;
}

static void cli_info_take_format(cli_info *in, sqlite3_stmt *s, int col) {
  if (!in->format_read) in->format_read = cli_dup_column(s, col);
}

static int cli_info_read_tensors(cli_info *in) {
  sqlite3_stmt *s = cli_info_query(
      in, "name, dtype, shape, nbytes, chunk, scope, format", "q_tensors_file");
  if (!s) return CLI_FAILED;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    uint64_t nbytes = (uint64_t)sqlite3_column_int64(s, 3);
    cli_info_take_format(in, s, 6);
    in->bytes += nbytes;
    if (sqlite3_column_int64(s, 4) > 0 && in->ntensors) {
      in->tensors[in->ntensors - 1].bytes += nbytes;  /* a later chunk */
      continue;
    }
    if (in->ntensors == in->cap) {
      size_t cap = in->cap ? 2 * in->cap : 64;
      cli_tensor *t = sqlite3_realloc64(in->tensors, cap * sizeof *t);
      if (!t) break;
      in->tensors = t;
      in->cap = cap;
    }
    cli_tensor *t = &in->tensors[in->ntensors];
    memset(t, 0, sizeof *t);
    in->ntensors++;
    t->name = cli_dup_column(s, 0);
    t->dtype = cli_dup_column(s, 1);
    t->shape = cli_dup_column(s, 2);
    t->scope = cli_dup_column(s, 5);
    if (!t->name || !t->dtype || !t->shape ||
        (!t->scope && sqlite3_column_type(s, 5) != SQLITE_NULL))
      break;
    t->elements = cli_shape_elements(t->shape);
    t->bytes = nbytes;
    in->elements += t->elements;
  }
  if (rc == SQLITE_ROW) {
    sqlite3_finalize(s);
    return cli_fail("info", "out of memory");
  }
  if (rc != SQLITE_DONE) rc = cli_fail_db("info", in->db);
  else rc = CLI_OK;
  sqlite3_finalize(s);
  return rc;
}

/* Writes the JSON text s cut to max columns (whole UTF-8 sequences only),
** then "...". */
static void cli_put_cut(FILE *out, const char *s, int max) {
  int cols = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    size_t len = 1;
    while ((p[len] & 0xc0) == 0x80) len++;
    char one[8];
    size_t k = len < sizeof one - 1 ? len : sizeof one - 1;
    memcpy(one, p, k);
    one[k] = 0;
    int w = cli_put_json_text(NULL, one);
    if (cols + w > max - 3) break;
    cols += cli_put_json_text(out, one);
    p += len;
  }
  fputs("...", out);
}

static void cli_pad(FILE *out, int n) {
  while (n-- > 0) fputc(' ', out);
}

static int cli_info_print_metadata(cli_info *in, FILE *out) {
  sqlite3_stmt *s = cli_info_query(
      in,
      "key, type, value, CASE WHEN type LIKE 'array%' "
      "THEN json_array_length(value) END, format",
      "q_tensor_metadata_file");
  if (!s) return CLI_FAILED;
  /* Two passes over a table the reader's budget bounds: the widths, then
  ** the lines. */
  int wkey = 0, wtype = 0, rc, n = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    int k = cli_text_width((const char *)sqlite3_column_text(s, 0));
    int t = cli_text_width((const char *)sqlite3_column_text(s, 1));
    if (k > wkey) wkey = k;
    if (t > wtype) wtype = t;
    cli_info_take_format(in, s, 4);
    n++;
  }
  if (rc != SQLITE_DONE) {
    rc = cli_fail_db("info", in->db);
    sqlite3_finalize(s);
    return rc;
  }
  sqlite3_reset(s);
  if (!in->json && n) fprintf(out, "metadata: %d keys\n", n);
  if (in->json) fputs("\"metadata\": [", out);
  int first = 1;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(s, 0);
    const char *type = (const char *)sqlite3_column_text(s, 1);
    const char *value = (const char *)sqlite3_column_text(s, 2);
    if (!key || !type) continue;
    if (in->json) {
      fputs(first ? "\n  {\"key\": " : ",\n  {\"key\": ", out);
      cli_put_json_string(out, key);
      fputs(", \"type\": ", out);
      cli_put_json_string(out, type);
      fprintf(out, ", \"value\": %s}", value ? value : "null");
      first = 0;
      continue;
    }
    fputs("  ", out);
    cli_pad(out, wkey - cli_put_text(out, key));
    fputs("  ", out);
    cli_pad(out, wtype - cli_put_text(out, type));
    fputs("  ", out);
    if (!value) fputs("null", out);
    else if (in->full ||
             cli_put_json_text(NULL, value) <= CLI_INFO_VALUE_COLUMNS)
      cli_put_json_text(out, value);
    else if (sqlite3_column_type(s, 3) == SQLITE_INTEGER)
      fprintf(out, "[%lld items]", sqlite3_column_int64(s, 3));
    else
      cli_put_cut(out, value, CLI_INFO_VALUE_COLUMNS);
    fputc('\n', out);
  }
  if (in->json) fputs(first ? "],\n" : "\n],\n", out);
  rc = rc == SQLITE_DONE ? CLI_OK : cli_fail_db("info", in->db);
  sqlite3_finalize(s);
  return rc;
}

static int cli_digits(uint64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

static void cli_info_print_tensors(const cli_info *in, FILE *out) {
  if (in->json) {
    fputs("\"tensors\": [", out);
    for (size_t i = 0; i < in->ntensors; i++) {
      const cli_tensor *t = &in->tensors[i];
      fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
      cli_put_json_string(out, t->name);
      fputs(", \"dtype\": ", out);
      cli_put_json_string(out, t->dtype);
      fprintf(out, ", \"shape\": %s, \"elements\": %llu, \"bytes\": %llu",
              t->shape, (unsigned long long)t->elements,
              (unsigned long long)t->bytes);
      if (t->scope) {
        fputs(", \"scope\": ", out);
        cli_put_json_string(out, t->scope);
      }
      fputc('}', out);
    }
    fputs(in->ntensors ? "\n]" : "]", out);
    return;
  }
  if (!in->ntensors) return;
  int wn = 4, wd = 5, ws = 5, we = 8, wb = 5, scopes = 0;
  for (size_t i = 0; i < in->ntensors; i++) {
    const cli_tensor *t = &in->tensors[i];
    int w;
    if ((w = cli_text_width(t->name)) > wn) wn = w;
    if ((w = cli_text_width(t->dtype)) > wd) wd = w;
    if ((w = cli_text_width(t->shape)) > ws) ws = w;
    if ((w = cli_digits(t->elements)) > we) we = w;
    if ((w = cli_digits(t->bytes)) > wb) wb = w;
    scopes |= t->scope != NULL;
  }
  fprintf(out, "tensors: %zu\n  %-*s  %-*s  %-*s  %*s  %*s%s\n", in->ntensors,
          wn, "name", wd, "dtype", ws, "shape", we, "elements", wb, "bytes",
          scopes ? "  scope" : "");
  for (size_t i = 0; i < in->ntensors; i++) {
    const cli_tensor *t = &in->tensors[i];
    fputs("  ", out);
    cli_pad(out, wn - cli_put_text(out, t->name));
    fputs("  ", out);
    cli_pad(out, wd - cli_put_text(out, t->dtype));
    fputs("  ", out);
    cli_pad(out, ws - cli_put_text(out, t->shape));
    fprintf(out, "  %*llu  %*llu", we, (unsigned long long)t->elements, wb,
            (unsigned long long)t->bytes);
    if (t->scope) {
      fputs("  ", out);
      cli_put_text(out, t->scope);
    }
    fputc('\n', out);
  }
}

static void cli_info_free(cli_info *in) {
  for (size_t i = 0; i < in->ntensors; i++) {
    sqlite3_free(in->tensors[i].name);
    sqlite3_free(in->tensors[i].dtype);
    sqlite3_free(in->tensors[i].shape);
    sqlite3_free(in->tensors[i].scope);
  }
  sqlite3_free(in->tensors);
  sqlite3_free(in->format_read);
  sqlite3_close(in->db);
}

static int cli_info_run(int argc, char **argv) {
  cli_info in;
  memset(&in, 0, sizeof in);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (cli_is_help(a)) {
      fputs(cli_info_usage, stdout);
      return CLI_OK;
    } else if (strcmp(a, "--json") == 0) {
      in.json = 1;
    } else if (strcmp(a, "--full") == 0) {
      in.full = 1;
    } else if (strcmp(a, "--format") == 0) {
      if (++i == argc) return cli_usage_error("info", "--format needs a value");
      in.format = argv[i];
    } else if (strncmp(a, "--format=", 9) == 0) {
      in.format = a + 9;
    } else if (a[0] == '-' && a[1] && !in.path) {
      return cli_usage_error("info", "unknown option '%s'", a);
    } else if (in.path) {
      return cli_usage_error("info", "one FILE only, got '%s' after '%s'", a,
                             in.path);
    } else {
      in.path = a;
    }
  }
  if (!in.path) return cli_usage_error("info", "FILE is missing");
  if (!(in.db = cli_open("info"))) return CLI_FAILED;

  /* Everything is read before anything is written: a file that cannot be
  ** read fails with no output, and the first lines can name the format,
  ** which the metadata query may be the first to see (a file with metadata
  ** and no tensors). */
  int rc = cli_info_read_tensors(&in);
  char *meta = NULL;
  size_t meta_len = 0;
  if (rc == CLI_OK) {
    FILE *m = open_memstream(&meta, &meta_len);
    if (!m) {
      rc = cli_fail("info", "out of memory");
    } else {
      rc = cli_info_print_metadata(&in, m);
      if (fclose(m) != 0 && rc == CLI_OK) rc = cli_fail("info", "out of memory");
    }
  }
  FILE *out = stdout;
  if (rc == CLI_OK && in.json) {
    fputs("{\"file\": ", out);
    cli_put_json_string(out, in.path);
    fputs(", \"format\": ", out);
    if (in.format_read) cli_put_json_string(out, in.format_read);
    else fputs("null", out);
    fprintf(out, ", \"elements\": %llu, \"bytes\": %llu,\n",
            (unsigned long long)in.elements, (unsigned long long)in.bytes);
    fwrite(meta, 1, meta_len, out);
    cli_info_print_tensors(&in, out);
    fputs("}\n", out);
  } else if (rc == CLI_OK) {
    cli_put_text(out, in.path);
    fprintf(out, ": %s%s%zu tensors, %llu elements, %llu bytes\n",
            in.format_read ? in.format_read : "",
            in.format_read ? ", " : "", in.ntensors,
            (unsigned long long)in.elements, (unsigned long long)in.bytes);
    fwrite(meta, 1, meta_len, out);
    cli_info_print_tensors(&in, out);
  }
  free(meta);
  cli_info_free(&in);
  if (rc == CLI_OK && (fflush(out) != 0 || ferror(out)))
    rc = cli_fail("info", "cannot write the output");
  return rc;
}

const cli_command cli_info_command = {
  "info", "what a model file holds: format, metadata, tensors",
  cli_info_usage, cli_info_run,
};
