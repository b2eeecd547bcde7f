/*
** fuzz_models.c: libFuzzer target for the model-file readers and writers
** through SQL: mutated valid files of every format, read at several length
** limits, written back through the write tables, quantized by q_compare.
**
**   make fuzz        this target for 60 s, among the others
**   make fuzz-ci     a fixed-seed, bounded run over tests/fuzz/corpus/models
**   FUZZ_MODELS_TRACE=1 build/fuzz_models FILE...
**                    runs the files once, prints every statement with its
**                    parameters, and keeps the scratch directory
**
** An input is a model file and the files beside it (model_mutate.h), and
** the mutator (model_mutate.c) changes the structure the readers check, so
** that most inputs still parse.  Each input's files are written to a
** private directory (on /dev/shm when there is one) and then, on one
** connection with the extension compiled in (SQLITE_CORE):
**
**   1. q_tensors_file(path [, format]) at a 1 MiB SQLITE_LIMIT_LENGTH: the
**      reference rows;
**   2. q_tensors_file again at a small limit (24 to 65536 bytes, or the
**      largest tensor's size over 2 to 9; ctl[0]'s high nibble), where
**      most tensors come in chunks: the chunks must be
**      the reference tensors' bytes, in order, and the only new error a
**      small limit may give is SQLITE_TOOBIG;
**   3. q_tensors(bytes [, format]) at both limits: the rows of the path
**      variant at the same limit (only ONNX external data may differ: from
**      bytes it is an error that says to read the path; and a bare .npy's
**      name: from the path its file's stem, from bytes '');
**   4. q_tensor_metadata_file and q_tensor_metadata: the same rows;
**   5. the reference rows through a write table (ctl[1]: which, the
**      transaction, the limit, the names, a file there before, the table
**      in temp; ctl[3]: the metadata, good or bad): when the transaction
**      committed the file must read back as the rows that went in (names,
**      dtypes, shapes, bytes); otherwise the path must hold what it held
**      before, or nothing; and the directory must hold no other file;
**   6. q_compare(q_f32(data, dtype), shape, axis, options) on one row
**      (ctl[2]), with the log2 scheme among the options;
**   7. data straight into a float reader, where its subtype travels
**      (docs/reference/data-formats.md#subtypes): for up to 8 rows,
**      q_scale(data) must succeed exactly when q_scale(q_f32(data, dtype))
**      does, with the same value, for f32, f16 and bf16; for f64, its
**      success implies the same value; for every other dtype it must be
**      an error.
**
** Each rule broken is a finding (abort with the reason), as are crashes,
** sanitizer reports, leaks, timeouts and a connection that no longer
** works.  At exit it prints, per format, the inputs, those that gave at
** least one tensor row, chunked rows, metadata rows, a file written and
** read back, and log2 rows from q_compare; tests/fuzz/ci.sh fails when any
** format got no rows (or no chunks, no file written back, no log2 row):
** a fuzzer that gets nothing back tests nothing
** (docs/ARCHITECTURE.md#fuzzers-and-the-oom-catalog).
*/
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "sqlite_quant.h"
#include "formats/formats.h"
#include "model_mutate.h"

#define DEFAULT_LIMIT (1 << 20)
#define MAX_ROWS 4096               /* rows kept from one read */
#define MAX_KEPT (16u << 20)        /* data bytes kept from one read */
#define MAX_COMPARE_BYTES 16384     /* the largest row q_compare gets */
#define NFMT (SQ_FILE_NFORMATS + 1) /* the formats, then "none" */

/* The small limit: ctl[0]'s high nibble 0-7 one of these, 8-15 the
** largest tensor of the reference read divided by 2 to 9, so that it comes
** in chunks.  Never below 24, the length of a model's path in the scratch
** directory (/dev/shm/fm-XXXXXX/m) and some: a path longer than the limit
** is SQLITE_TOOBIG as a parameter. */
#define MIN_LIMIT 24
static const int small_limits[8] = {MIN_LIMIT, 33, 64, 100, 256, 1000, 4097, 65536};


static sqlite3 *db;
static char wdir[256];
static int trace;

/* What the current input is, for the messages of findings. */
static const char *cur_format = "none";
static int cur_limit = DEFAULT_LIMIT;

static struct {
  unsigned long inputs, rows, chunked, meta, written, log2;
} counts[NFMT];

static void finding(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fuzz_models: finding (%s, limit %d): ", cur_format, cur_limit);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

static char *dup_text(const unsigned char *s) {
  if (!s) return NULL;
  char *d = strdup((const char *)s);
  if (!d) abort();
  return d;
}

/* ---- statements ---------------------------------------------------------- */

#define NCACHE 64
static struct {
  char *sql;
  sqlite3_stmt *st;
} cache[NCACHE];

static sqlite3_stmt *stmt(const char *sql) {
  for (int i = 0; i < NCACHE; i++) {
    if (cache[i].sql && strcmp(cache[i].sql, sql) == 0) return cache[i].st;
    if (!cache[i].sql) {
      if (sqlite3_prepare_v2(db, sql, -1, &cache[i].st, NULL) != SQLITE_OK) {
        fprintf(stderr, "fuzz_models: cannot prepare %s: %s\n", sql, sqlite3_errmsg(db));
        abort();
      }
      cache[i].sql = dup_text((const unsigned char *)sql);
      return cache[i].st;
    }
  }
  abort();
}

static void set_limit(int n) {
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, n);
  cur_limit = n;
  if (trace) fprintf(stderr, ".limit length %d\n", n);
}

static int exec(const char *sql) {
  if (trace) fprintf(stderr, "%s;\n", sql);
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (trace && rc) fprintf(stderr, "-- error: %s\n", sqlite3_errmsg(db));
  return rc;
}

/* Lowers the limit for statement st, which is traced as SQL with its
** parameters (expanded before the limit is lowered: the expansion is
** bounded by it). */
static void limit_for(sqlite3_stmt *st, int limit) {
  char *sql = trace ? sqlite3_expanded_sql(st) : NULL;
  set_limit(limit);
  if (trace) fprintf(stderr, "%s;\n", sql ? sql : sqlite3_sql(st));
  sqlite3_free(sql);
}

/* ---- rows of q_tensors(_file) ------------------------------------------- */

typedef struct row {
  char *name, *dtype, *shape, *scope;
  uint8_t *data;
  size_t ndata;
  int data_is_blob;
  int64_t offset, nbytes, chunk, chunks, row_start, rows;
} row;

typedef struct rows {
  row *v;
  size_t n, cap, kept;
  int rc;           /* SQLITE_DONE, or the error */
  char *err;
  int cut;          /* stopped before the end (MAX_ROWS, MAX_KEPT) */
} rows;

static void rows_free(rows *r) {
  for (size_t i = 0; i < r->n; i++) {
    free(r->v[i].name);
    free(r->v[i].dtype);
    free(r->v[i].shape);
    free(r->v[i].scope);
    free(r->v[i].data);
  }
  free(r->v);
  free(r->err);
  memset(r, 0, sizeof *r);
}

static void finish(rows *r, sqlite3_stmt *st, int rc) {
  r->rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    r->err = dup_text((const unsigned char *)sqlite3_errmsg(db));
    if (trace) fprintf(stderr, "-- error %d: %s\n", rc, r->err);
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

/* Binds the source (a path, or the bytes) and the format (NULL: none). */
static void bind_source(sqlite3_stmt *st, const char *path, const mm_file *bytes,
                        const char *format) {
  if (path) sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
  else sqlite3_bind_blob(st, 1, bytes->n ? (const void *)bytes->p : "", (int)bytes->n,
                         SQLITE_STATIC);
  if (format) sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
}

/* The rows of q_tensors_file (path) or q_tensors (bytes) at `limit`.  The
** BLOB is bound under the default limit and read under `limit`. */
static void read_tensors(const char *path, const mm_file *bytes,
                         const char *format, int limit, rows *out) {
  static const char *const sql[2][2] = {
    {"SELECT name, dtype, shape, data, offset, nbytes, scope, chunk, chunks, "
     "row_start, rows FROM q_tensors(?1)",
     "SELECT name, dtype, shape, data, offset, nbytes, scope, chunk, chunks, "
     "row_start, rows FROM q_tensors(?1, ?2)"},
    {"SELECT name, dtype, shape, data, offset, nbytes, scope, chunk, chunks, "
     "row_start, rows FROM q_tensors_file(?1)",
     "SELECT name, dtype, shape, data, offset, nbytes, scope, chunk, chunks, "
     "row_start, rows FROM q_tensors_file(?1, ?2)"}};
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st = stmt(sql[path != NULL][format != NULL]);
  bind_source(st, path, bytes, format);
  limit_for(st, limit);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (out->n == MAX_ROWS || out->kept > MAX_KEPT) {
      out->cut = 1;
      break;
    }
    if (out->n == out->cap) {
      out->cap = out->cap ? out->cap * 2 : 16;
      out->v = realloc(out->v, out->cap * sizeof *out->v);
      if (!out->v) abort();
    }
    row *r = &out->v[out->n++];
    memset(r, 0, sizeof *r);
    r->name = dup_text(sqlite3_column_text(st, 0));
    r->dtype = dup_text(sqlite3_column_text(st, 1));
    r->shape = dup_text(sqlite3_column_text(st, 2));
    r->data_is_blob = sqlite3_column_type(st, 3) == SQLITE_BLOB;
    const void *d = sqlite3_column_blob(st, 3);
    r->ndata = (size_t)sqlite3_column_bytes(st, 3);
    r->data = malloc(r->ndata ? r->ndata : 1);
    if (!r->data) abort();
    if (r->ndata) memcpy(r->data, d, r->ndata);
    out->kept += r->ndata;
    r->offset = sqlite3_column_int64(st, 4);
    r->nbytes = sqlite3_column_int64(st, 5);
    r->scope = dup_text(sqlite3_column_text(st, 6));
    r->chunk = sqlite3_column_int64(st, 7);
    r->chunks = sqlite3_column_int64(st, 8);
    r->row_start = sqlite3_column_int64(st, 9);
    r->rows = sqlite3_column_int64(st, 10);
  }
  finish(out, st, rc);
  set_limit(DEFAULT_LIMIT);
}

static int same_text(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The shape's first dimension (1 for a scalar), -1 if it is not a shape. */
static int64_t shape_rows(const char *s, int *ndim) {
  *ndim = 0;
  if (!s || s[0] != '[') return -1;
  const char *p = s + 1;
  int64_t first = 1;
  while (*p && *p != ']') {
    char *end;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0) return -1;
    if (*ndim == 0) first = d;
    (*ndim)++;
    p = end;
    if (*p == ',') p++;
  }
  if (*p != ']' || p[1]) return -1;
  return first;
}

/* What every read must give, at the limit it ran under. */
static void check_rows(const rows *rs, int limit, const char *what) {
  for (size_t i = 0; i < rs->n; i++) {
    const row *r = &rs->v[i], *p = i ? &rs->v[i - 1] : NULL;
    if (!r->name || !r->dtype || !r->shape || !r->data_is_blob)
      finding("%s row %zu: a NULL name, dtype, shape or data", what, i);
    if ((int64_t)r->ndata != r->nbytes)
      finding("%s row %zu ('%s'): nbytes %lld but %zu bytes of data", what, i,
              r->name, (long long)r->nbytes, r->ndata);
    if (r->ndata > (size_t)limit)
      finding("%s row %zu: %zu bytes of data under a limit of %d", what, i, r->ndata, limit);
    if (r->chunks < 1 || r->chunk < 0 || r->chunk >= r->chunks || r->rows < 0 ||
        r->row_start < 0)
      finding("%s row %zu ('%s'): chunk %lld of %lld, rows %lld from %lld", what, i,
              r->name, (long long)r->chunk, (long long)r->chunks, (long long)r->rows,
              (long long)r->row_start);
    int ndim;
    int64_t dim0 = shape_rows(r->shape, &ndim);
    if (dim0 < 0) finding("%s row %zu: shape '%s'", what, i, r->shape);
    if (r->chunk > 0) {
      if (!p || !same_text(p->name, r->name) || !same_text(p->shape, r->shape) ||
          !same_text(p->dtype, r->dtype) || !same_text(p->scope, r->scope) ||
          p->chunk != r->chunk - 1 || p->row_start + p->rows != r->row_start)
        finding("%s row %zu ('%s'): chunk %lld does not follow the row before", what,
                i, r->name, (long long)r->chunk);
    } else if (p && p->chunk != p->chunks - 1) {
      finding("%s row %zu: tensor '%s' ends at chunk %lld of %lld", what, i, p->name,
              (long long)p->chunk, (long long)p->chunks);
    }
    if (r->chunks > 1 && (r->ndata == 0 || r->rows == 0))
      finding("%s row %zu ('%s'): an empty chunk", what, i, r->name);
    if (r->chunk == 0 && r->row_start != 0)
      finding("%s row %zu: chunk 0 starts at row %lld", what, i, (long long)r->row_start);
    if (r->chunk == r->chunks - 1 && r->row_start + r->rows != dim0)
      finding("%s row %zu ('%s' %s): the chunks cover rows [0, %lld)", what, i,
              r->name, r->shape, (long long)(r->row_start + r->rows));
  }
  if (rs->rc == SQLITE_DONE && !rs->cut && rs->n) {
    const row *l = &rs->v[rs->n - 1];
    if (l->chunk != l->chunks - 1)
      finding("%s: the rows end inside tensor '%s'", what, l->name);
  }
}

/* Formats that store every tensor as its bytes (no decoder): a row's data
** is the file's bytes [offset, offset + nbytes).  (ONNX's typed fields and
** external data and npz's deflated members are decoded.) */
static void check_stored(const rows *rs, int f, const mm_file *file) {
  if (f != SQ_FILE_SAFETENSORS && f != SQ_FILE_GGUF && f != SQ_FILE_NPY &&
      f != SQ_FILE_TFLITE)
    return;
  for (size_t i = 0; i < rs->n; i++) {
    const row *r = &rs->v[i];
    if (r->offset < 0 || (uint64_t)r->offset > file->n ||
        r->ndata > file->n - (size_t)r->offset ||
        memcmp(file->p + r->offset, r->data, r->ndata) != 0)
      finding("row %zu ('%s' chunk %lld): its data is not the file's %zu bytes at offset %lld",
              i, r->name, (long long)r->chunk, r->ndata, (long long)r->offset);
  }
}

/* Whole tensors: a read's rows joined chunk by chunk. */
typedef struct tensor {
  const row *first;
  uint8_t *data;
  size_t n;
  int complete;
} tensor;

typedef struct tensors {
  tensor *v;
  size_t n;
} tensors;

static void join(const rows *rs, tensors *t) {
  t->v = calloc(rs->n + 1, sizeof *t->v);
  t->n = 0;
  if (!t->v) abort();
  for (size_t i = 0; i < rs->n; i++) {
    const row *r = &rs->v[i];
    if (r->chunk == 0 || !t->n) {
      t->v[t->n].first = r;
      t->n++;
    }
    tensor *x = &t->v[t->n - 1];
    uint8_t *d = realloc(x->data, x->n + r->ndata + 1);
    if (!d) abort();
    x->data = d;
    memcpy(x->data + x->n, r->data, r->ndata);
    x->n += r->ndata;
    x->complete = r->chunk == r->chunks - 1;
  }
}

static void tensors_free(tensors *t) {
  for (size_t i = 0; i < t->n; i++) free(t->v[i].data);
  free(t->v);
  memset(t, 0, sizeof *t);
}

static int is_toobig(const rows *r) { return r->rc == SQLITE_TOOBIG; }

/* The same error under a smaller limit: SQLite keeps no message longer
** than SQLITE_LIMIT_LENGTH, so a long message comes back as the code's
** generic text ("SQL logic error", from a table's constructor or filter)
** or as "" (from a column). */
static const char *unnamed(const char *err);

static int lost(const char *m) {
  return !*m || strcmp(m, sqlite3_errstr(SQLITE_ERROR)) == 0;
}

/* (The message one variant lost may be the other's with a longer
** function name: q_tensor_metadata_file's is the longest, 24 bytes.) */
static int same_error(const char *a, const char *b, int limit) {
  if (same_text(unnamed(a), unnamed(b))) return 1;
  return a && b && ((strlen(unnamed(a)) + 24 >= (size_t)limit && lost(b)) ||
                    (strlen(unnamed(b)) + 24 >= (size_t)limit && lost(a)));
}

/* The chunks read under a small limit (c) against the tensors of the
** default limit's read (ref). */
static void check_chunks(const rows *ref, const rows *c) {
  if (ref->cut || c->cut) return;
  tensors t;
  join(ref, &t);
  size_t ti = 0, pos = 0;
  for (size_t i = 0; i < c->n; i++) {
    const row *r = &c->v[i];
    if (ti >= t.n) {
      if (ref->rc == SQLITE_DONE)
        finding("small limit: row %zu ('%s') after the %zu tensors of the default limit",
                i, r->name, t.n);
      break;   /* the tensor the default limit failed on */
    }
    const tensor *x = &t.v[ti];
    const row *f = x->first;
    if (!same_text(f->name, r->name) || !same_text(f->dtype, r->dtype) ||
        !same_text(f->shape, r->shape) || !same_text(f->scope, r->scope))
      finding("small limit: row %zu is '%s' %s %s, the default limit's tensor %zu '%s' %s %s",
              i, r->name, r->dtype, r->shape, ti, f->name, f->dtype, f->shape);
    if (r->chunk == 0 && r->offset != f->offset)
      finding("small limit: tensor '%s' at offset %lld, at the default limit %lld", r->name,
              (long long)r->offset, (long long)f->offset);
    size_t avail = x->n - pos < r->ndata ? x->n - pos : r->ndata;
    if ((x->complete && pos + r->ndata > x->n) || memcmp(x->data + pos, r->data, avail) != 0)
      finding("small limit: tensor '%s' chunk %lld: not the bytes [%zu, %zu) of the whole "
              "tensor (%zu bytes)", r->name, (long long)r->chunk, pos, pos + r->ndata, x->n);
    pos += r->ndata;
    if (r->chunk == r->chunks - 1) {
      if (x->complete && pos != x->n)
        finding("small limit: tensor '%s' in chunks of %zu bytes, whole %zu", r->name, pos, x->n);
      ti++;
      pos = 0;
    }
  }
  if (c->rc == SQLITE_DONE) {
    if (ref->rc != SQLITE_DONE && !is_toobig(ref))
      finding("small limit: read to the end where the default limit failed: %s", ref->err);
    if (ref->rc == SQLITE_DONE && ti != t.n)
      finding("small limit: %zu tensors, the default limit %zu", ti, t.n);
  } else if (!is_toobig(c) && !(ref->rc != SQLITE_DONE && same_error(ref->err, c->err, cur_limit))) {
    finding("small limit: the error '%s' (%d), at the default limit %s", c->err, c->rc,
            ref->rc == SQLITE_DONE ? "none" : ref->err);
  }
  tensors_free(&t);
}

/* An error's message without the function's name, which differs between
** the path and the bytes variants. */
static const char *unnamed(const char *err) {
  static const char *const fns[] = {"q_tensors_file: ", "q_tensors: ",
                                    "q_tensor_metadata_file: ", "q_tensor_metadata: "};
  if (!err) return NULL;
  for (int i = 0; i < 4; i++)
    if (strncmp(err, fns[i], strlen(fns[i])) == 0) return err + strlen(fns[i]);
  return err;
}

/* From bytes as from the path, at one limit; ONNX external data is an
** error from bytes. */
static int external_error(const rows *r) {
  return r->rc != SQLITE_DONE && r->err && strstr(r->err, "read the model with q_tensors_file");
}

/* The name a bare .npy at path gets from q_tensors_file: the file's name
** without directories and last extension, as Python's Path.stem
** (docs/FORMATS.md#npy-and-npz); written here from that rule, not from the
** reader's code. */
static void npy_stem(const char *path, char *out, size_t size) {
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  size_t n = strlen(base);
  for (size_t k = n; k > 1; k--)
    if (base[k - 1] == '.') {
      if (k < n) n = k - 1;
      break;
    }
  snprintf(out, size, "%.*s", (int)n, base);
}

/* npy_name: the stem the path's rows name a bare .npy by, or NULL when the
** input is not read as one (the bytes' rows name it ''). */
static void check_same(const rows *file, const rows *blob, int small, const char *what,
                       const char *npy_name) {
  if (file->cut || blob->cut) return;
  size_t n = file->n < blob->n ? file->n : blob->n;
  for (size_t i = 0; i < n; i++) {
    const row *a = &file->v[i], *b = &blob->v[i];
    int names = npy_name ? same_text(a->name, npy_name) && same_text(b->name, "")
                         : same_text(a->name, b->name);
    if (!names || !same_text(a->dtype, b->dtype) ||
        !same_text(a->shape, b->shape) || !same_text(a->scope, b->scope) ||
        a->offset != b->offset || a->nbytes != b->nbytes || a->chunk != b->chunk ||
        a->chunks != b->chunks || a->rows != b->rows || a->ndata != b->ndata ||
        memcmp(a->data, b->data, a->ndata) != 0)
      finding("%s: row %zu differs between the path ('%s') and the bytes ('%s')", what, i,
              a->name, b->name);
  }
  /* a BLOB (or a path) over a small limit is SQLITE_TOOBIG as a parameter */
  if (external_error(blob) || (small && (is_toobig(blob) || is_toobig(file)))) return;
  if (file->n != blob->n || file->rc != blob->rc ||
      !same_error(file->err, blob->err, small ? cur_limit : DEFAULT_LIMIT))
    finding("%s: %zu rows and '%s' from the path, %zu rows and '%s' from the bytes", what,
            file->n, file->err ? file->err : "no error", blob->n,
            blob->err ? blob->err : "no error");
}

/* ---- metadata ------------------------------------------------------------- */

typedef struct meta {
  char **kv;        /* key, type, value per row */
  size_t n;
  int rc;
  char *err;
} meta;

static void meta_free(meta *m) {
  for (size_t i = 0; i < 3 * m->n; i++) free(m->kv[i]);
  free(m->kv);
  free(m->err);
  memset(m, 0, sizeof *m);
}

static void read_meta(const char *path, const mm_file *bytes, const char *format,
                      int limit, meta *out) {
  static const char *const sql[2][2] = {
    {"SELECT key, type, value FROM q_tensor_metadata(?1)",
     "SELECT key, type, value FROM q_tensor_metadata(?1, ?2)"},
    {"SELECT key, type, value FROM q_tensor_metadata_file(?1)",
     "SELECT key, type, value FROM q_tensor_metadata_file(?1, ?2)"}};
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st = stmt(sql[path != NULL][format != NULL]);
  bind_source(st, path, bytes, format);
  limit_for(st, limit);
  int rc;
  size_t cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && out->n < MAX_ROWS) {
    if (out->n == cap) {
      cap = cap ? cap * 2 : 16;
      out->kv = realloc(out->kv, 3 * cap * sizeof *out->kv);
      if (!out->kv) abort();
    }
    for (int k = 0; k < 3; k++) out->kv[3 * out->n + k] = dup_text(sqlite3_column_text(st, k));
    if (!out->kv[3 * out->n] || !out->kv[3 * out->n + 1])
      finding("metadata row %zu: a NULL key or type", out->n);
    out->n++;
  }
  out->rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    out->err = dup_text((const unsigned char *)sqlite3_errmsg(db));
    if (trace) fprintf(stderr, "-- error %d: %s\n", rc, out->err);
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  set_limit(DEFAULT_LIMIT);
}

/* b against a (the path at the default limit): the same rows, except that
** under a small limit b may stop early with SQLITE_TOOBIG. */
static void check_meta(const meta *a, const meta *b, int small, const char *what) {
  size_t n = a->n < b->n ? a->n : b->n;
  for (size_t i = 0; i < 3 * n; i++)
    if (!same_text(a->kv[i], b->kv[i]))
      finding("%s: metadata row %zu differs ('%s', '%s')", what, i / 3,
              a->kv[i] ? a->kv[i] : "NULL", b->kv[i] ? b->kv[i] : "NULL");
  if (small && b->rc == SQLITE_TOOBIG) return;
  if (a->n != b->n || a->rc != b->rc ||
      !same_error(a->err, b->err, small ? cur_limit : DEFAULT_LIMIT))
    finding("%s: %zu metadata rows and '%s', against %zu and '%s'", what, a->n,
            a->err ? a->err : "no error", b->n, b->err ? b->err : "no error");
}

/* ---- the writers ---------------------------------------------------------- */

static const char *const st_metadata[] = {
  NULL, "{\"format\":\"pt\"}",
  "{\"k\\u00e9\":\"\\ud83d\\ude00 \\\"q\\\" \\\\ \\n\",\"\":\"\"}",
  "{\"a\":1}", "{\"a\":\"\\ud800\"}", "[1]", "{", "{\"a\":\"b\",\"a\":\"c\"}",
  "not json", "{\"a\":\"\\u0000\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\x01\"}",
  "{\"a\":\"\xff\"}", "{\"a\":{\"b\":\"c\"}}", "", "{}"};
static const char *const gguf_metadata[] = {
  NULL, "{\"general.architecture\":{\"type\":\"string\",\"value\":\"llama\"}}",
  "{\"general.alignment\":{\"type\":\"uint32\",\"value\":64},"
  "\"x\":{\"type\":\"float32\",\"value\":\"NaN\"},"
  "\"y\":{\"type\":\"array[float64]\",\"value\":[0.1,\"-Infinity\",-0.0]}}",
  "{\"k\":{\"type\":\"uint8\",\"value\":256}}",
  "{\"k\":{\"type\":\"nope\",\"value\":1}}",
  "{\"general.alignment\":{\"type\":\"uint32\",\"value\":3}}",
  "{\"general.alignment\":{\"type\":\"uint64\",\"value\":32}}",
  "{\"k\":{\"type\":\"array[string]\",\"value\":[1]}}",
  "{\"k\":{\"type\":\"int8\"}}", "{\"k\":{\"value\":1}}", "{\"k\":1}",
  "{\"k\":{\"type\":\"bool\",\"value\":2}}",
  "{\"k\":{\"type\":\"string\",\"value\":\"\\ud800\"}}",
  "{\"k\":{\"type\":\"int64\",\"value\":1.5}}", "[]",
  "{\"a\":{\"type\":\"int8\",\"value\":1},\"a\":{\"type\":\"int8\",\"value\":1}}"};

/* With ctl[3] bit 4 the INSERT takes only the rows of dtypes its format
** stores (the others are an error that ends the statement). */
static const char *const storable_sql[4] = {
  NULL,
  "dtype IN ('f64','f32','f16','bf16','int64','int32','int16','int8','uint64','uint32',"
  "'uint16','uint8','bool','f8_e4m3fn','f8_e5m2')",
  "(dtype IN ('f32','f16','bf16','f64','int8','int16','int32','int64') OR dtype GLOB 'q*' "
  "OR dtype GLOB 'iq*' OR dtype GLOB 'tq*')",
  "dtype IN ('f16','f32','f64','int8','int16','int32','int64','uint8','uint16','uint32',"
  "'uint64','bool')"};

static int storable(unsigned table, const char *dtype) {
  static const char *const names[4][16] = {
    {NULL},
    {"f64", "f32", "f16", "bf16", "int64", "int32", "int16", "int8", "uint64", "uint32",
     "uint16", "uint8", "bool", "f8_e4m3fn", "f8_e5m2", NULL},
    {"f32", "f16", "bf16", "f64", "int8", "int16", "int32", "int64", NULL},
    {"f16", "f32", "f64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
     "uint64", "bool", NULL}};
  for (int i = 0; names[table][i]; i++)
    if (strcmp(dtype, names[table][i]) == 0) return 1;
  return table == 2 && (dtype[0] == 'q' || strncmp(dtype, "iq", 2) == 0 ||
                        strncmp(dtype, "tq", 2) == 0);
}

static const char *const ext_of[4] = {NULL, "safetensors", "gguf", "npz"};
static const char *const table_of[4] = {NULL, "q_safetensors_write", "q_gguf_write",
                                        "q_npz_write"};

static int file_is(const char *path, const char *want, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) return want == NULL;
  char buf[64];
  size_t k = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return want && k == n && memcmp(buf, want, n) == 0;
}

/* No file in the directory but the input's and, when `target` exists, it. */
static void check_directory(const mm_input *in, const char *target) {
  DIR *d = opendir(wdir);
  if (!d) abort();
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    int ok = target && strcmp(e->d_name, target) == 0;
    for (int i = 0; !ok && i < in->nfiles; i++) ok = strcmp(e->d_name, in->f[i].name) == 0;
    if (!ok) {
      closedir(d);
      finding("the writer left '%s' in the directory", e->d_name);
    }
  }
  closedir(d);
}

/* The write step (ctl[1], ctl[3]): returns 1 when a file was written and
** read back equal to its rows. */
static int write_step(const mm_input *in, const char *path, const char *format,
                      int small, const rows *ref, const rows *chunked) {
  unsigned c = in->ctl[1], table = c & 3, mode = (c >> 2) & 3;
  int at_small = (c >> 4) & 1, scoped = (c >> 5) & 1, old = (c >> 6) & 1,
      temp = (c >> 7) & 1, only_storable = (in->ctl[3] >> 4) & 1;
  if (!table) return 0;
  char target[64], tpath[320], sql[512];
  snprintf(target, sizeof target, "out.%s", ext_of[table]);
  snprintf(tpath, sizeof tpath, "%s/%s", wdir, target);
  static const char oldbytes[] = "the file there before\n";
  if (old) {
    FILE *f = fopen(tpath, "wb");
    if (!f || fwrite(oldbytes, 1, sizeof oldbytes - 1, f) != sizeof oldbytes - 1) abort();
    fclose(f);
  }
  const char *meta = NULL;
  if (table == 1) meta = st_metadata[in->ctl[3] % (sizeof st_metadata / sizeof st_metadata[0])];
  if (table == 2) meta = gguf_metadata[in->ctl[3] % (sizeof gguf_metadata / sizeof gguf_metadata[0])];
  snprintf(sql, sizeof sql,
           "INSERT INTO %s%s (path, name, data, %s, shape%s) SELECT ?1, %s, data, dtype, "
           "shape%s FROM q_tensors_file(?2%s)%s%s",
           temp ? "temp.w_" : "", table_of[table] + (temp ? 2 : 0),
           table == 2 ? "type" : "dtype", table == 3 ? "" : ", metadata",
           scoped ? "coalesce(scope || '/', '') || name" : "name", table == 3 ? "" : ", ?3",
           format ? ", ?4" : "", only_storable ? " WHERE " : "",
           only_storable ? storable_sql[table] : "");
  sqlite3_stmt *st = stmt(sql);
  sqlite3_bind_text(st, 1, tpath, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
  if (meta && table != 3) sqlite3_bind_text(st, 3, meta, -1, SQLITE_STATIC);
  if (format) sqlite3_bind_text(st, 4, format, -1, SQLITE_STATIC);
  if (mode) exec("BEGIN");
  if (mode == 3) exec("SAVEPOINT s");
  limit_for(st, at_small ? small : DEFAULT_LIMIT);
  int rc = sqlite3_step(st);
  int changes = sqlite3_changes(db);
  if (trace && rc != SQLITE_DONE) fprintf(stderr, "-- error %d: %s\n", rc, sqlite3_errmsg(db));
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  set_limit(DEFAULT_LIMIT);
  int committed = rc == SQLITE_DONE && changes > 0;
  if (mode == 3) {
    exec("ROLLBACK TO s");
    exec("RELEASE s");
    committed = 0;
  }
  if (mode == 1 || mode == 3) {
    if (exec("COMMIT") != SQLITE_OK) committed = 0;
  } else if (mode == 2) {
    exec("ROLLBACK");
    committed = 0;
  }
  if (!sqlite3_get_autocommit(db)) exec("ROLLBACK");

  int verified = 0;
  if (!committed) {
    if (!file_is(tpath, old ? oldbytes : NULL, sizeof oldbytes - 1))
      finding("%s: a transaction that did not commit changed '%s'", table_of[table], target);
  } else {
    const rows *all = at_small ? chunked : ref;
    /* (a row the WHERE clause drops is never read: an error in its data
    ** does not stop the INSERT, and the rows after it go in) */
    int prefix = only_storable && all->rc != SQLITE_DONE;
    if (all->rc != SQLITE_DONE && !only_storable)
      finding("%s: the INSERT succeeded where reading its rows failed: %s", table_of[table],
              all->err);
    /* the rows that went in */
    rows kept;
    memset(&kept, 0, sizeof kept);
    kept.v = malloc((all->n + 1) * sizeof *kept.v);
    if (!kept.v) abort();
    for (size_t i = 0; i < all->n; i++)
      if (!only_storable || storable(table, all->v[i].dtype)) kept.v[kept.n++] = all->v[i];
    kept.cut = all->cut;
    const rows *src = &kept;
    rows back;
    read_tensors(tpath, NULL, NULL, DEFAULT_LIMIT, &back);
    if (back.rc != SQLITE_DONE)
      finding("%s: the file written does not read back: %s", table_of[table], back.err);
    if (!src->cut && !back.cut) {
      tensors a, b;
      join(src, &a);
      join(&back, &b);
      if (prefix ? a.n > b.n : a.n != b.n)
        finding("%s: %zu tensors went in, %zu came back", table_of[table], a.n, b.n);
      if (prefix && a.n && !a.v[a.n - 1].complete) a.n--;
      for (size_t i = 0; i < a.n; i++) {
        const row *x = a.v[i].first, *y = b.v[i].first;
        char want[4096];
        if (scoped && x->scope) snprintf(want, sizeof want, "%s/%s", x->scope, x->name);
        else snprintf(want, sizeof want, "%s", x->name);
        if (strlen(want) < sizeof want - 1 && !same_text(want, y->name))
          finding("%s: tensor %zu went in as '%s', came back as '%s'", table_of[table], i,
                  want, y->name);
        if (!same_text(x->dtype, y->dtype) || !same_text(x->shape, y->shape))
          finding("%s: tensor '%s' went in as %s %s, came back as %s %s", table_of[table],
                  y->name, x->dtype, x->shape, y->dtype, y->shape);
        if (a.v[i].n != b.v[i].n || memcmp(a.v[i].data, b.v[i].data, a.v[i].n) != 0)
          finding("%s: tensor '%s': %zu bytes went in, %zu different ones came back",
                  table_of[table], y->name, a.v[i].n, b.v[i].n);
      }
      tensors_free(&a);
      tensors_free(&b);
      verified = 1;
    }
    rows_free(&back);
    free(kept.v);
  }
  check_directory(in, committed || old ? target : NULL);
  return verified;
}

/* ---- q_compare -------------------------------------------------------------- */

static const char *const compare_options[16] = {
  "schemes=log2", "schemes=log2+symmetric blocks=32",
  "dtypes=int4 schemes=log2 methods=mse+percentile blocks=none",
  "schemes=affine+symmetric+log2 dtypes=int8+int4 blocks=16+64",
  "schemes=log2 methods=histogram+entropy blocks=none", NULL,
  "ggml=q8_0+q4_K dtypes=none", "schemes=log2 reduce_range=1",
  "schemes=log2+affine rounding=tutorial blocks=none",
  "dtypes=uint8 schemes=log2", "methods=percentile percentile=99 schemes=log2+affine",
  "schemes=log2 blocks=4+1000", "dtypes=int8 schemes=symmetric+log2 methods=minmax+mse",
  "schemes=log2 dtypes=int8+int4 blocks=none include_zero=0",
  "schemes=log2 params=double", "schemes=log2 ggml=q4_0"};

/* Returns the log2 rows q_compare gave. */
static int compare_step(const mm_input *in, const rows *ref) {
  if (!ref->n) return 0;
  unsigned c = in->ctl[2];
  size_t pick;
  switch (c >> 6) {
    case 0: pick = 0; break;
    case 1: pick = ref->n > 1 ? 1 : 0; break;
    case 2: pick = ref->n - 1; break;
    default: pick = in->ctl[3] % ref->n; break;
  }
  const row *r = &ref->v[pick];
  if (r->ndata > MAX_COMPARE_BYTES) return 0;
  /* a chunk's own shape: its rows along axis 0 */
  char shape[512];
  const char *sh = r->shape;
  if (r->chunks > 1) {
    const char *rest = strchr(r->shape, ',');
    snprintf(shape, sizeof shape, "[%lld%s", (long long)r->rows, rest ? rest : "]");
    sh = shape;
  }
  sqlite3_stmt *st = stmt(
      "SELECT scheme, qscheme, mse, sqnr_db, max_error, cosine, bits_per_weight "
      "FROM q_compare(q_f32(?1, ?2), ?3, ?4, ?5)");
  sqlite3_bind_blob(st, 1, r->ndata ? (const void *)r->data : "", (int)r->ndata, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, r->dtype, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, sh, -1, SQLITE_STATIC);
  unsigned axis = (c >> 4) & 3;
  if (axis < 3) sqlite3_bind_int(st, 4, (int)axis);
  const char *opt = compare_options[c & 15];
  if (opt) sqlite3_bind_text(st, 5, opt, -1, SQLITE_STATIC);
  limit_for(st, DEFAULT_LIMIT);
  int rc, log2 = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *q = sqlite3_column_text(st, 1);
    if (q && strstr((const char *)q, "log2")) log2++;
    if (sqlite3_column_type(st, 2) == SQLITE_FLOAT && !(sqlite3_column_double(st, 2) >= 0))
      finding("q_compare: mse %g for %s", sqlite3_column_double(st, 2), sqlite3_column_text(st, 0));
    if (sqlite3_column_type(st, 6) == SQLITE_FLOAT && !(sqlite3_column_double(st, 6) > 0))
      finding("q_compare: %g bits per weight for %s", sqlite3_column_double(st, 6),
              sqlite3_column_text(st, 0));
  }
  if (trace && rc != SQLITE_DONE) fprintf(stderr, "-- error %d: %s\n", rc, sqlite3_errmsg(db));
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return log2;
}

/* Step 7: one row's q_scale read straight (typed) and through q_f32. */
typedef struct scale_outcome {
  int ok;
  double v;
} scale_outcome;

static scale_outcome typed_scale(const char *sql, const char *path, const char *format,
                                 size_t i) {
  sqlite3_stmt *st = stmt(sql);
  sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
  if (format) sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
  limit_for(st, DEFAULT_LIMIT);
  scale_outcome o = {0, 0};
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_FLOAT) {
    o.ok = 1;
    o.v = sqlite3_column_double(st, 0);
  } else if (trace) {
    fprintf(stderr, "-- error: %s\n", sqlite3_errmsg(db));
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return o;
}

static void typed_step(const char *path, const char *format, const rows *ref) {
  static const char *const direct[2] = {
      "SELECT q_scale(data) FROM q_tensors_file(?1) LIMIT 1 OFFSET ?3",
      "SELECT q_scale(data) FROM q_tensors_file(?1, ?2) LIMIT 1 OFFSET ?3"};
  static const char *const explicit_[2] = {
      "SELECT q_scale(q_f32(data, dtype)) FROM q_tensors_file(?1) LIMIT 1 OFFSET ?3",
      "SELECT q_scale(q_f32(data, dtype)) FROM q_tensors_file(?1, ?2) LIMIT 1 OFFSET ?3"};
  for (size_t i = 0; i < ref->n && i < 8; i++) {
    const row *r = &ref->v[i];
    if (r->ndata > MAX_COMPARE_BYTES || !r->dtype) continue;
    scale_outcome a = typed_scale(direct[format != NULL], path, format, i);
    int half_or_f32 = !strcmp(r->dtype, "f32") || !strcmp(r->dtype, "f16") ||
                      !strcmp(r->dtype, "bf16");
    if (!half_or_f32 && strcmp(r->dtype, "f64") != 0) {
      if (a.ok) finding("q_scale read %s data as a float tensor", r->dtype);
      continue;
    }
    scale_outcome b = typed_scale(explicit_[format != NULL], path, format, i);
    if ((half_or_f32 && a.ok != b.ok) || (a.ok && (!b.ok || memcmp(&a.v, &b.v, 8) != 0)))
      finding("q_scale(data) of %s data: %s %.17g, through q_f32: %s %.17g", r->dtype,
              a.ok ? "ok" : "error", a.v, b.ok ? "ok" : "error", b.v);
  }
}

/* ---- the pool of inputs that parse --------------------------------------- */

/* Inputs that gave rows, per format, most recent first: libFuzzer keeps
** every input that reaches new code, most of them files that no longer
** parse (each error path is new code), and mutants of those rarely parse
** again.  So a third of the mutations start from one of these instead: of
** the input's format or, half the time, of any format (one pool for all
** would fill with the format that parses most easily). */
#define POOL 32
static struct {
  uint8_t *p;
  size_t n;
} pool[SQ_FILE_NFORMATS][POOL];
static size_t pool_next[SQ_FILE_NFORMATS];

static void pool_add(int f, const uint8_t *data, size_t size) {
  uint8_t *p = malloc(size ? size : 1);
  if (!p) abort();
  memcpy(p, data, size);
  size_t k = pool_next[f]++ % POOL;
  free(pool[f][k].p);
  pool[f][k].p = p;
  pool[f][k].n = size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) {
  if (seed % 3 == 0) {
    mm_input in;
    mm_parse(data, size, &in);
    int f = mm_format(&in);
    if (f < 0 || (seed / 3) % 2) f = (int)((seed / 6) % SQ_FILE_NFORMATS);
    size_t have = pool_next[f] < POOL ? pool_next[f] : POOL;
    if (have) {
      size_t k = (seed / 36) % have;
      if (pool[f][k].n <= max_size) {
        memcpy(data, pool[f][k].p, pool[f][k].n);
        size = pool[f][k].n;
      }
    }
  }
  return mm_mutate(data, size, max_size, seed);
}

static int small_limit(unsigned nibble, const rows *ref) {
  if (nibble < 8) return small_limits[nibble];
  size_t most = 0;
  for (size_t i = 0; i < ref->n; i++)
    if (ref->v[i].rows > 1 && ref->v[i].ndata > most) most = ref->v[i].ndata;
  size_t l = most / (2 + (nibble - 8));
  return l < MIN_LIMIT ? MIN_LIMIT : l > DEFAULT_LIMIT ? DEFAULT_LIMIT : (int)l;
}

/* ---- one input ------------------------------------------------------------------ */

static void clear_directory(void) {
  DIR *d = opendir(wdir);
  if (!d) return;
  struct dirent *e;
  char p[512];
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(p, sizeof p, "%s/%s", wdir, e->d_name);
    (void)unlink(p);
  }
  closedir(d);
}

static void write_file(const char *name, const uint8_t *p, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", wdir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) abort();
  for (size_t k = 0; k < n;) {
    ssize_t w = write(fd, p + k, n - k);
    if (w <= 0) abort();
    k += (size_t)w;
  }
  close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mm_input in;
  mm_parse(data, size, &in);
  if (!in.nfiles) return 0;
  clear_directory();
  for (int i = 0; i < in.nfiles; i++) write_file(in.f[i].name, in.f[i].p, in.f[i].n);
  char path[512];
  snprintf(path, sizeof path, "%s/%s", wdir, in.f[0].name);

  unsigned seed_format = in.ctl[0] & 7u;
  const char *format = NULL;
  int f;
  if ((in.ctl[0] & 8u) && seed_format < SQ_FILE_NFORMATS) {
    f = (int)seed_format;
    format = sq_file_format_name((sq_file_format)f);
  } else {
    f = sq_file_detect(in.f[0].p, in.f[0].n < 16 ? in.f[0].n : 16);
    if (f < 0) f = SQ_FILE_NFORMATS;
  }
  cur_format = f < SQ_FILE_NFORMATS ? sq_file_format_name((sq_file_format)f) : "none";
  counts[f].inputs++;
  if (trace) fprintf(stderr, "-- files in %s; the model is %s (%s)\n", wdir, path, cur_format);

  rows ref, chunked, blob, blob_small;
  read_tensors(path, NULL, format, DEFAULT_LIMIT, &ref);
  check_rows(&ref, DEFAULT_LIMIT, "path, default limit");
  int small = small_limit(in.ctl[0] >> 4, &ref);
  read_tensors(path, NULL, format, small, &chunked);
  cur_limit = small;
  check_rows(&chunked, small, "path, small limit");
  check_chunks(&ref, &chunked);
  check_stored(&ref, f, &in.f[0]);
  check_stored(&chunked, f, &in.f[0]);
  cur_limit = DEFAULT_LIMIT;
  read_tensors(NULL, &in.f[0], format, DEFAULT_LIMIT, &blob);
  char stem[512];
  npy_stem(path, stem, sizeof stem);
  const char *npy_name = f == SQ_FILE_NPY ? stem : NULL;
  check_same(&ref, &blob, 0, "default limit", npy_name);
  read_tensors(NULL, &in.f[0], format, small, &blob_small);
  cur_limit = small;
  check_same(&chunked, &blob_small, 1, "small limit", npy_name);
  cur_limit = DEFAULT_LIMIT;
  if (ref.n) {
    counts[f].rows++;
    if (f < SQ_FILE_NFORMATS) pool_add(f, data, size);
  }
  for (size_t i = 0; i < chunked.n; i++)
    if (chunked.v[i].chunks > 1) {
      counts[f].chunked++;
      break;
    }

  meta m, mb, ms;
  read_meta(path, NULL, format, DEFAULT_LIMIT, &m);
  read_meta(NULL, &in.f[0], format, DEFAULT_LIMIT, &mb);
  check_meta(&m, &mb, 0, "metadata from the bytes");
  read_meta(path, NULL, format, small, &ms);
  cur_limit = small;
  check_meta(&m, &ms, 1, "metadata under the small limit");
  cur_limit = DEFAULT_LIMIT;
  if (m.n) counts[f].meta++;
  meta_free(&m);
  meta_free(&mb);
  meta_free(&ms);

  if (write_step(&in, path, format, small, &ref, &chunked)) counts[f].written++;
  if (compare_step(&in, &ref)) counts[f].log2++;
  typed_step(path, format, &ref);

  rows_free(&ref);
  rows_free(&chunked);
  rows_free(&blob);
  rows_free(&blob_small);

  sqlite3_stmt *st = stmt("SELECT q_json(quantize_blob('[1,-2]', 1, 0), 'int8')");
  int ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
           strcmp((const char *)sqlite3_column_text(st, 0), "[1,-2]") == 0;
  sqlite3_reset(st);
  if (!ok || !sqlite3_get_autocommit(db))
    finding("the connection no longer works after this input: %s", sqlite3_errmsg(db));
  return 0;
}

/* ---- setup and the counts ------------------------------------------------------ */

static void report(void) {
  for (int f = 0; f < NFMT; f++) {
    const char *name = f < SQ_FILE_NFORMATS ? sq_file_format_name((sq_file_format)f) : "none";
    fprintf(stderr, "fuzz_models: %s: %lu inputs, %lu with rows, %lu chunked, "
                    "%lu with metadata, %lu written and read back, %lu with log2 rows\n",
            name, counts[f].inputs, counts[f].rows, counts[f].chunked, counts[f].meta,
            counts[f].written, counts[f].log2);
  }
}

static void cleanup(void) {
  report();
  for (int f = 0; f < SQ_FILE_NFORMATS; f++)
    for (size_t i = 0; i < POOL; i++) free(pool[f][i].p);
  for (int i = 0; i < NCACHE; i++) {
    if (cache[i].st) sqlite3_finalize(cache[i].st);
    free(cache[i].sql);
  }
  sqlite3_close(db);
  if (!trace) {
    clear_directory();
    (void)rmdir(wdir);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *t = getenv("FUZZ_MODELS_TRACE");
  trace = t && *t && strcmp(t, "0") != 0;
  char *err = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
      sqlite3_quant_init(db, &err, NULL) != SQLITE_OK) {
    fprintf(stderr, "fuzz_models: cannot set up: %s\n", err ? err : sqlite3_errmsg(db));
    abort();
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, DEFAULT_LIMIT);
  for (int k = 1; k < 4; k++) {
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE temp.w_%s USING %s", table_of[k] + 2,
             table_of[k]);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) abort();
  }
  snprintf(wdir, sizeof wdir, "%s/fm-XXXXXX",
           access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  if (!mkdtemp(wdir)) abort();
  atexit(cleanup);
  return 0;
}
