/*
** file_tables.c: the tensors and metadata of model files
** (docs/FORMATS.md), as table-valued functions:
**
**   q_tensors(bytes [, format])            name, dtype, shape, data, offset,
**   q_tensors_file(path [, format])        nbytes, scope: one row per tensor
**   q_tensor_metadata(bytes [, format])    key, type, value: one row per
**   q_tensor_metadata_file(path [, format])  metadata entry
**
**   1. without a format the first bytes decide (sq_file_detect);
**   2. the file variants map the file read-only (mmap), so only the index
**      and the row being read are in memory; they are SQLITE_VTAB_DIRECTONLY:
**      a view, trigger or schema of an untrusted database cannot read files;
**   3. data is a copy of the stored bytes [offset, offset + nbytes);
**   4. a NULL argument gives no rows; bad arguments are errors.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/model_file.h"
#include "sql/sql.h"

enum { SQ_FT_NAME, SQ_FT_DTYPE, SQ_FT_SHAPE, SQ_FT_DATA, SQ_FT_OFFSET,
       SQ_FT_NBYTES, SQ_FT_SCOPE, SQ_FT_SOURCE, SQ_FT_FORMAT };
enum { SQ_FM_KEY, SQ_FM_TYPE, SQ_FM_VALUE, SQ_FM_SOURCE, SQ_FM_FORMAT };

typedef struct sq_file_cursor {
  sq_cursor base;
  const char *name;         /* the function's, for errors from a column */
  sqlite3_value *bytes;     /* the BLOB variants: a protected copy */
  void *map;                /* the file variants: the mapping, map_len bytes */
  size_t map_len;
  const unsigned char *p;   /* the file's bytes */
  size_t n;
  char *path;               /* the file variants: a copy of the path */
  sq_file_index ix;
} sq_file_cursor;

static int sq_ft_tensors(sq_cursor *cur, int argc, sqlite3_value **argv,
                         sq_status *st);
static int sq_ft_tensors_file(sq_cursor *cur, int argc, sqlite3_value **argv,
                              sq_status *st);
static int sq_ft_meta(sq_cursor *cur, int argc, sqlite3_value **argv,
                      sq_status *st);
static int sq_ft_meta_file(sq_cursor *cur, int argc, sqlite3_value **argv,
                           sq_status *st);
static void sq_ft_reset(sq_cursor *cur);
static void sq_ft_tensor_column(const sq_cursor *cur, sqlite3_context *ctx,
                                int col);
static void sq_ft_meta_column(const sq_cursor *cur, sqlite3_context *ctx,
                              int col);

#define SQ_FT_SCHEMA(source)                                                   \
  "CREATE TABLE x(name TEXT, dtype TEXT, shape TEXT, data BLOB, "              \
  "offset INTEGER, nbytes INTEGER, scope TEXT, " source " HIDDEN, "           \
  "format HIDDEN)"
#define SQ_FM_SCHEMA(source)                                                   \
  "CREATE TABLE x(key TEXT, type TEXT, value TEXT, " source " HIDDEN, "        \
  "format HIDDEN)"

const sq_table sq_tensors_table = {
  "q_tensors", SQ_FT_SCHEMA("bytes"), SQ_FT_SOURCE, 2, 1,
  "q_tensors: the first argument (the file's bytes) is required",
  sizeof(sq_file_cursor), sq_ft_tensors, sq_ft_reset, sq_ft_tensor_column, 0,
};
const sq_table sq_tensors_file_table = {
  "q_tensors_file", SQ_FT_SCHEMA("path"), SQ_FT_SOURCE, 2, 1,
  "q_tensors_file: the first argument (a path) is required",
  sizeof(sq_file_cursor), sq_ft_tensors_file, sq_ft_reset, sq_ft_tensor_column, 1,
};
const sq_table sq_tensor_metadata_table = {
  "q_tensor_metadata", SQ_FM_SCHEMA("bytes"), SQ_FM_SOURCE, 2, 1,
  "q_tensor_metadata: the first argument (the file's bytes) is required",
  sizeof(sq_file_cursor), sq_ft_meta, sq_ft_reset, sq_ft_meta_column, 0,
};
const sq_table sq_tensor_metadata_file_table = {
  "q_tensor_metadata_file", SQ_FM_SCHEMA("path"), SQ_FM_SOURCE, 2, 1,
  "q_tensor_metadata_file: the first argument (a path) is required",
  sizeof(sq_file_cursor), sq_ft_meta_file, sq_ft_reset, sq_ft_meta_column, 1,
};

static const char *sq_ft_type_name(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "blob";
    default: return "null";
  }
}

/* The reason a file cannot be read, in words that do not depend on the
** locale (strerror's do). */
static const char *sq_ft_errno_text(int e) {
  switch (e) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case EISDIR: return "it is a directory";
    case ENOTDIR: return "a part of the path is not a directory";
    case ENAMETOOLONG: return "the path is too long";
    case ELOOP: return "too many symbolic links";
    case EMFILE: case ENFILE: return "too many open files";
    case ENOMEM: return "out of memory";
    default: return "cannot read it";
  }
}

/* Maps the file at path read-only into c (an empty file maps nothing). */
static int sq_ft_map(sq_file_cursor *c, const char *path, sq_status *st) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return sq_fail(st, "cannot open '%.200s': %s", path,
                   sq_ft_errno_text(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return sq_fail(st, "cannot open '%.200s': %s", path, sq_ft_errno_text(e));
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return sq_fail(st, "'%.200s' is not a regular file", path);
  }
  if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX) {
    close(fd);
    return sq_fail(st, "'%.200s' is too large to map on this system", path);
  }
  size_t len = (size_t)sb.st_size;
  if (len > 0) {
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      int e = errno;
      close(fd);
      if (e == ENOMEM) return sq_nomem(st);
      return sq_fail(st, "cannot map '%.200s': %s", path, sq_ft_errno_text(e));
    }
    c->map = m;
    c->map_len = len;
    c->p = m;
  }
  c->n = len;
  close(fd);
  return SQ_OK;
}

/* argv holds the bytes or the path, then the format when given. */
static int sq_ft_compute(sq_file_cursor *c, const char *name, int is_file,
                         int want_meta, int argc, sqlite3_value **argv,
                         sq_status *st) {
  c->name = name;
  if (is_file) {
    const char *path = sq_arg_text(argv[0], "path", st);
    if (!path) return st->code;
    if (!*path) return sq_fail(st, "path is empty");
    if (!(c->path = sqlite3_mprintf("%s", path))) return sq_nomem(st);
    if (sq_ft_map(c, path, st)) return st->code;
  } else {
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB)
      return sq_fail(st, "the file's bytes must be a blob, got %s",
                     sq_ft_type_name(argv[0]));
    if (!(c->bytes = sqlite3_value_dup(argv[0]))) return sq_nomem(st);
    c->p = sqlite3_value_blob(c->bytes);
    c->n = (size_t)sqlite3_value_bytes(c->bytes);
    if (c->n && !c->p) return sq_nomem(st);
  }
  sq_file_format f;
  if (argc > 1) {
    const char *s = sq_arg_text(argv[1], "format", st);
    if (!s) return st->code;
    if (sq_file_format_parse(s, strlen(s), &f, st)) return st->code;
  } else {
    int d = sq_file_detect(c->p, c->n);
    if (d < 0)
      return sq_fail(st, "cannot tell the file format from its first bytes "
                         "(expected safetensors, gguf, npy, npz, onnx or "
                         "tflite)");
    f = (sq_file_format)d;
  }
  if (sq_file_read(c->p, c->n, f, want_meta, &c->ix, st)) return st->code;
  c->base.n = want_meta ? c->ix.nmeta : c->ix.ntensors;
  return SQ_OK;
}

#define SQ_FT_COMPUTE(fn, name, is_file, want_meta)                             \
  static int fn(sq_cursor *cur, int argc, sqlite3_value **argv,                \
                sq_status *st) {                                               \
    return sq_ft_compute((sq_file_cursor *)cur, name, is_file, want_meta,      \
                         argc, argv, st);                                      \
  }
SQ_FT_COMPUTE(sq_ft_tensors, "q_tensors", 0, 0)
SQ_FT_COMPUTE(sq_ft_tensors_file, "q_tensors_file", 1, 0)
SQ_FT_COMPUTE(sq_ft_meta, "q_tensor_metadata", 0, 1)
SQ_FT_COMPUTE(sq_ft_meta_file, "q_tensor_metadata_file", 1, 1)

static void sq_ft_reset(sq_cursor *cur) {
  sq_file_cursor *c = (sq_file_cursor *)cur;
  sq_file_index_free(&c->ix);
  sqlite3_value_free(c->bytes);
  c->bytes = NULL;
  sqlite3_free(c->path);
  c->path = NULL;
  if (c->map) munmap(c->map, c->map_len);
  c->map = NULL;
  c->map_len = 0;
  c->p = NULL;
  c->n = 0;
}

/* The shape as a JSON array: "[2,3]", "[]" for a scalar. */
static void sq_ft_result_shape(sqlite3_context *ctx, const sq_file_tensor *t) {
  char buf[SQ_MAX_DIMS * 21 + 3];
  size_t k = 0;
  buf[k++] = '[';
  for (int d = 0; d < t->ndim; d++) {
    int w = snprintf(buf + k, sizeof buf - k, "%s%lld", d ? "," : "",
                     (long long)t->dim[d]);
    if (w < 0 || (size_t)w >= sizeof buf - k) break;
    k += (size_t)w;
  }
  buf[k++] = ']';
  sqlite3_result_text(ctx, buf, (int)k, SQLITE_TRANSIENT);
}

/* The tensor's bytes: the stored ones in place, or what its decoder makes. */
static void sq_ft_result_data(sqlite3_context *ctx, const sq_file_cursor *c,
                              const sq_file_tensor *t) {
  sq_status st;
  sq_status_begin(&st, sqlite3_context_db_handle(ctx));
  if ((int64_t)t->nbytes > st.max_bytes) {
    sqlite3_result_error_toobig(ctx);
    return;
  }
  if (!t->decode) {
    /* The reader checked offset + nbytes <= n; checked again here, as the
    ** one place that hands out stored bytes. */
    if (t->offset > c->n || t->nbytes > c->n - t->offset) {
      sq_fail(&st, "tensor data lies outside the file");
    } else {
      sqlite3_result_blob64(ctx, t->nbytes ? c->p + t->offset : (const void *)"",
                            t->nbytes, SQLITE_TRANSIENT);
      return;
    }
  } else {
    sq_file_view v = {c->p, c->n, c->path};
    unsigned char *out = sq_alloc(&st, t->nbytes ? t->nbytes : 1, 1);
    if (out && !sq_file_tensor_read(&v, t, 0, t->nbytes, out, &st)) {
      sqlite3_result_blob64(ctx, out, t->nbytes, sqlite3_free);
      return;
    }
    sqlite3_free(out);
  }
  sq_result_status(ctx, c->name, &st);
}

static void sq_ft_tensor_column(const sq_cursor *cur, sqlite3_context *ctx,
                                int col) {
  const sq_file_cursor *c = (const sq_file_cursor *)cur;
  const sq_file_tensor *t = &c->ix.tensors[cur->i];
  switch (col) {
    case SQ_FT_NAME: sqlite3_result_text(ctx, t->name, -1, SQLITE_TRANSIENT); break;
    case SQ_FT_DTYPE: sqlite3_result_text(ctx, t->dtype, -1, SQLITE_TRANSIENT); break;
    case SQ_FT_SHAPE: sq_ft_result_shape(ctx, t); break;
    case SQ_FT_DATA: sq_ft_result_data(ctx, c, t); break;
    case SQ_FT_OFFSET: sqlite3_result_int64(ctx, (sqlite3_int64)t->offset); break;
    case SQ_FT_NBYTES: sqlite3_result_int64(ctx, (sqlite3_int64)t->nbytes); break;
    case SQ_FT_SCOPE:
      if (t->scope) sqlite3_result_text(ctx, t->scope, -1, SQLITE_TRANSIENT);
      break;
    default: break;
  }
}

static void sq_ft_meta_column(const sq_cursor *cur, sqlite3_context *ctx,
                              int col) {
  const sq_file_cursor *c = (const sq_file_cursor *)cur;
  const sq_file_meta *m = &c->ix.meta[cur->i];
  switch (col) {
    case SQ_FM_KEY: sqlite3_result_text(ctx, m->key, -1, SQLITE_TRANSIENT); break;
    case SQ_FM_TYPE: sqlite3_result_text(ctx, m->type, -1, SQLITE_TRANSIENT); break;
    case SQ_FM_VALUE:
      if (m->value) sqlite3_result_text(ctx, m->value, -1, SQLITE_TRANSIENT);
      break;
    default: break;
  }
}
