/*
** file_tables.c: the tensors and metadata of model files
** (docs/FORMATS.md), as table-valued functions:
**
**   q_tensors(bytes [, format])            name, dtype, shape, data, offset,
**   q_tensors_file(path [, format])        nbytes, scope, chunk, chunks,
**                                          row_start, rows: one row per
**                                          tensor, or per chunk of it
**   q_tensor_metadata(bytes [, format])    key, type, value: one row per
**   q_tensor_metadata_file(path [, format])  metadata entry
**
**   1. without a format the first bytes decide (sq_file_detect);
**   2. the file variants map the file read-only (mmap), so only the index
**      and the row being read are in memory; they are SQ_PATHS
**      (SQLITE_VTAB_DIRECTONLY: a view, trigger or schema of an untrusted
**      database cannot read files; not registered by sqlite3_quant_nofs_init,
**      not compiled with SQLITE_QUANT_OMIT_FS);
**   3. data is a copy of the stored bytes [offset, offset + nbytes);
**   4. a NULL argument gives no rows; bad arguments are errors;
**   5. a tensor larger than the connection's SQLITE_LIMIT_LENGTH when the
**      query starts comes out as chunks of whole rows (slices along axis
**      0; a 1-D tensor's elements), each at most that limit, in order
**      (docs/FORMATS.md#tensors-bigger-than-a-blob); a tensor that cannot be
**      cut (a scalar, a 1-D ggml tensor, one row over the limit) is one
**      chunk whose data is SQLITE_TOOBIG.
*/
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE   /* madvise */
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
       SQ_FT_NBYTES, SQ_FT_SCOPE, SQ_FT_CHUNK, SQ_FT_CHUNKS, SQ_FT_ROW_START,
       SQ_FT_ROWS, SQ_FT_SOURCE, SQ_FT_FORMAT };
enum { SQ_FM_KEY, SQ_FM_TYPE, SQ_FM_VALUE, SQ_FM_SOURCE, SQ_FM_FORMAT };

/* How one tensor is cut into rows of the table: `chunks` chunks of
** rows_per_chunk rows of row_bytes each (the last may be shorter), the
** first being the table's row `first`. */
typedef struct sq_ft_chunking {
  uint64_t first, chunks, rows, rows_per_chunk, row_bytes;
} sq_ft_chunking;

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
  sq_ft_chunking *chunking; /* q_tensors: one per tensor */
} sq_file_cursor;

static int sq_ft_tensors(sq_cursor *cur, int argc, sqlite3_value **argv,
                         sq_status *st);
#ifndef SQLITE_QUANT_OMIT_FS
static int sq_ft_tensors_file(sq_cursor *cur, int argc, sqlite3_value **argv,
                              sq_status *st);
#endif
static int sq_ft_meta(sq_cursor *cur, int argc, sqlite3_value **argv,
                      sq_status *st);
#ifndef SQLITE_QUANT_OMIT_FS
static int sq_ft_meta_file(sq_cursor *cur, int argc, sqlite3_value **argv,
                           sq_status *st);
#endif
static void sq_ft_reset(sq_cursor *cur);
static void sq_ft_tensor_column(const sq_cursor *cur, sqlite3_context *ctx,
                                int col);
static void sq_ft_meta_column(const sq_cursor *cur, sqlite3_context *ctx,
                              int col);

#define SQ_FT_SCHEMA(source)                                                   \
  "CREATE TABLE x(name TEXT, dtype TEXT, shape TEXT, data BLOB, "              \
  "offset INTEGER, nbytes INTEGER, scope TEXT, chunk INTEGER, "              \
  "chunks INTEGER, row_start INTEGER, rows INTEGER, " source " HIDDEN, "      \
  "format HIDDEN)"
#define SQ_FM_SCHEMA(source)                                                   \
  "CREATE TABLE x(key TEXT, type TEXT, value TEXT, " source " HIDDEN, "        \
  "format HIDDEN)"

const sq_table sq_tensors_table = {
  "q_tensors", SQ_FT_SCHEMA("bytes"), SQ_FT_SOURCE, 2, 1,
  "q_tensors: the first argument (the file's bytes) is required",
  sizeof(sq_file_cursor), sq_ft_tensors, sq_ft_reset, sq_ft_tensor_column,
  SQ_VALUES,
};
#ifndef SQLITE_QUANT_OMIT_FS
const sq_table sq_tensors_file_table = {
  "q_tensors_file", SQ_FT_SCHEMA("path"), SQ_FT_SOURCE, 2, 1,
  "q_tensors_file: the first argument (a path) is required",
  sizeof(sq_file_cursor), sq_ft_tensors_file, sq_ft_reset, sq_ft_tensor_column,
  SQ_PATHS,
};
#endif
const sq_table sq_tensor_metadata_table = {
  "q_tensor_metadata", SQ_FM_SCHEMA("bytes"), SQ_FM_SOURCE, 2, 1,
  "q_tensor_metadata: the first argument (the file's bytes) is required",
  sizeof(sq_file_cursor), sq_ft_meta, sq_ft_reset, sq_ft_meta_column, SQ_VALUES,
};
#ifndef SQLITE_QUANT_OMIT_FS
const sq_table sq_tensor_metadata_file_table = {
  "q_tensor_metadata_file", SQ_FM_SCHEMA("path"), SQ_FM_SOURCE, 2, 1,
  "q_tensor_metadata_file: the first argument (a path) is required",
  sizeof(sq_file_cursor), sq_ft_meta_file, sq_ft_reset, sq_ft_meta_column,
  SQ_PATHS,
};
#endif

static const char *sq_ft_type_name(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "blob";
    default: return "null";
  }
}

/* ---- the path code (SQ_PATHS; left out by SQLITE_QUANT_OMIT_FS:
** docs/ARCHITECTURE.md#registration) ------------------------------------ */
#ifndef SQLITE_QUANT_OMIT_FS
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

/* The file variants' first argument: the file at that path, mapped. */
static int sq_ft_take_path(sq_file_cursor *c, sqlite3_value *v,
                           sq_status *st) {
  const char *path = sq_arg_text(v, "path", st);
  if (!path) return st->code;
  if (!*path) return sq_fail(st, "path is empty");
  if (!(c->path = sqlite3_mprintf("%s", path))) return sq_nomem(st);
  return sq_ft_map(c, path, st);
}
#endif /* SQLITE_QUANT_OMIT_FS */

/* The BLOB variants' first argument: the file's bytes, a protected copy. */
static int sq_ft_take_blob(sq_file_cursor *c, sqlite3_value *v,
                           sq_status *st) {
  if (sqlite3_value_type(v) != SQLITE_BLOB)
    return sq_fail(st, "the file's bytes must be a blob, got %s",
                   sq_ft_type_name(v));
  if (!(c->bytes = sqlite3_value_dup(v))) return sq_nomem(st);
  c->p = sqlite3_value_blob(c->bytes);
  c->n = (size_t)sqlite3_value_bytes(c->bytes);
  if (c->n && !c->p) return sq_nomem(st);
  return SQ_OK;
}

/* The dtypes whose 1-D tensors can be cut between elements: all but ggml's
** block types, whose elements share their block's bytes. */
static int sq_ft_elementwise(const char *dtype) {
  static const char *const names[] = {
    "f32", "f16", "bf16", "f64", "int8", "uint8", "int16", "uint16", "int32",
    "uint32", "int64", "uint64", "bool", "f8_e4m3", "f8_e5m2",
  };
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (strcmp(dtype, names[k]) == 0) return 1;
  return 0;
}

/* Cuts every tensor into chunks of whole rows of at most limit bytes and
** counts the table's rows (docs/FORMATS.md#tensors-bigger-than-a-blob). */
static int sq_ft_chunk(sq_file_cursor *c, uint64_t limit, sq_status *st) {
  size_t nt = c->ix.ntensors;
  if (nt && !(c->chunking = sq_alloc(st, nt, sizeof *c->chunking)))
    return st->code;
  uint64_t total = 0;
  for (size_t k = 0; k < nt; k++) {
    const sq_file_tensor *t = &c->ix.tensors[k];
    sq_ft_chunking *ch = &c->chunking[k];
    /* One chunk of the whole tensor unless it can be cut and must be. */
    ch->rows = t->ndim ? (uint64_t)t->dim[0] : 1;
    ch->chunks = 1;
    ch->rows_per_chunk = ch->rows;
    ch->row_bytes = ch->rows ? t->nbytes / ch->rows : 0;
    int cuttable = t->ndim > 0 && ch->rows > 1 && t->nbytes % ch->rows == 0 &&
                   (t->ndim > 1 || sq_ft_elementwise(t->dtype));
    if (cuttable && t->nbytes > limit && ch->row_bytes > 0 &&
        ch->row_bytes <= limit) {
      ch->rows_per_chunk = limit / ch->row_bytes;
      ch->chunks = ch->rows / ch->rows_per_chunk +
                   (ch->rows % ch->rows_per_chunk != 0);
    }
    ch->first = total;
    if (ch->chunks > UINT64_MAX - total) return sq_toobig(st);
    total += ch->chunks;
  }
  if (total > (uint64_t)SIZE_MAX) return sq_toobig(st);
  c->base.n = (size_t)total;
  return SQ_OK;
}

/* argv holds the bytes or the path (which take_bytes turns into the file's
** bytes), then the format when given. */
static int sq_ft_compute(sq_file_cursor *c, const char *name,
                         int (*take_bytes)(sq_file_cursor *, sqlite3_value *,
                                           sq_status *),
                         int want_meta, int argc, sqlite3_value **argv,
                         sq_status *st) {
  c->name = name;
  if (take_bytes(c, argv[0], st)) return st->code;
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
  if (want_meta) {
    c->base.n = c->ix.nmeta;
    return SQ_OK;
  }
  return sq_ft_chunk(c, (uint64_t)st->max_bytes, st);
}

#define SQ_FT_COMPUTE(fn, name, take_bytes, want_meta)                          \
  static int fn(sq_cursor *cur, int argc, sqlite3_value **argv,                \
                sq_status *st) {                                               \
    return sq_ft_compute((sq_file_cursor *)cur, name, take_bytes, want_meta,   \
                         argc, argv, st);                                      \
  }
SQ_FT_COMPUTE(sq_ft_tensors, "q_tensors", sq_ft_take_blob, 0)
SQ_FT_COMPUTE(sq_ft_meta, "q_tensor_metadata", sq_ft_take_blob, 1)
#ifndef SQLITE_QUANT_OMIT_FS
SQ_FT_COMPUTE(sq_ft_tensors_file, "q_tensors_file", sq_ft_take_path, 0)
SQ_FT_COMPUTE(sq_ft_meta_file, "q_tensor_metadata_file", sq_ft_take_path, 1)
#endif

static void sq_ft_reset(sq_cursor *cur) {
  sq_file_cursor *c = (sq_file_cursor *)cur;
  sq_file_index_free(&c->ix);
  sqlite3_free(c->chunking);
  c->chunking = NULL;
  sqlite3_value_free(c->bytes);
  c->bytes = NULL;
  sqlite3_free(c->path);
  c->path = NULL;
#ifndef SQLITE_QUANT_OMIT_FS
  if (c->map) munmap(c->map, c->map_len);
#endif
  c->map = NULL;
  c->map_len = 0;
  c->p = NULL;
  c->n = 0;
}

/* The shape as a JSON array: "[2,3]", "[]" for a scalar. */
static void sq_ft_result_shape(sqlite3_context *ctx, const sq_file_tensor *t) {
  char buf[SQ_FILE_SHAPE_TEXT_MAX];
  size_t k = sq_file_shape_text(t, buf, sizeof buf);
  sqlite3_result_text(ctx, buf, (int)k, SQLITE_TRANSIENT);
}

/* Drops the mapped pages of bytes [start, start + len) from the process
** once they were copied, so reading a file chunk by chunk keeps one chunk
** resident, not the whole file (make test-large).  The mapping is private
** and never written, so a later read faults the same bytes back in. */
static void sq_ft_release(const sq_file_cursor *c, uint64_t start,
                          uint64_t len) {
#if defined(MADV_DONTNEED) && !defined(SQLITE_QUANT_OMIT_FS)
  long page = sysconf(_SC_PAGESIZE);
  if (!c->map || page <= 0 || len == 0) return;
  uint64_t lo = start / (uint64_t)page * (uint64_t)page;
  uint64_t hi = start + len;
  if (hi > c->map_len) hi = c->map_len;
  if (hi <= lo) return;
  madvise((char *)c->map + lo, (size_t)(hi - lo), MADV_DONTNEED);
#else
  (void)c; (void)start; (void)len;
#endif
}

/* Which chunk the cursor's row is: its tensor, the chunk's rows and the
** bytes [start, start + len) of the tensor's data it holds. */
typedef struct sq_ft_row {
  const sq_file_tensor *t;
  uint64_t chunk, chunks, row_start, rows, start, len;
} sq_ft_row;

static sq_ft_row sq_ft_locate(const sq_file_cursor *c, uint64_t i) {
  size_t lo = 0, hi = c->ix.ntensors;   /* the last tensor with first <= i */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->chunking[mid].first <= i) lo = mid;
    else hi = mid;
  }
  const sq_ft_chunking *ch = &c->chunking[lo];
  sq_ft_row r;
  r.t = &c->ix.tensors[lo];
  r.chunk = i - ch->first;
  r.chunks = ch->chunks;
  if (ch->chunks == 1) {
    r.row_start = 0;
    r.rows = ch->rows;
    r.start = 0;
    r.len = r.t->nbytes;
  } else {
    r.row_start = r.chunk * ch->rows_per_chunk;
    r.rows = ch->rows - r.row_start < ch->rows_per_chunk
                 ? ch->rows - r.row_start : ch->rows_per_chunk;
    r.start = r.row_start * ch->row_bytes;
    r.len = r.rows * ch->row_bytes;
  }
  return r;
}

/* The chunk's bytes: the stored ones in place, or what the tensor's decoder
** makes of that range. */
static void sq_ft_result_data(sqlite3_context *ctx, const sq_file_cursor *c,
                              const sq_ft_row *r) {
  const sq_file_tensor *t = r->t;
  sq_status st;
  sq_status_begin(&st, sqlite3_context_db_handle(ctx));
  if (r->len > (uint64_t)st.max_bytes) {
    sqlite3_result_error_toobig(ctx);
    return;
  }
  if (!t->decode) {
    /* The reader checked offset + nbytes <= n; checked again here, as the
    ** one place that hands out stored bytes. */
    if (t->offset > c->n || t->nbytes > c->n - t->offset ||
        r->start > t->nbytes || r->len > t->nbytes - r->start) {
      sq_fail(&st, "tensor data lies outside the file");
    } else {
      sqlite3_result_blob64(ctx,
                            r->len ? c->p + t->offset + r->start
                                   : (const void *)"",
                            r->len, SQLITE_TRANSIENT);
      sq_ft_release(c, t->offset + r->start, r->len);
      return;
    }
  } else {
    sq_file_view v = {c->p, c->n, c->path};
    unsigned char *out = sq_alloc(&st, r->len ? r->len : 1, 1);
    if (out && !sq_file_tensor_read(&v, t, r->start, r->len, out, &st)) {
      sqlite3_result_blob64(ctx, out, r->len, sqlite3_free);
      return;
    }
    sqlite3_free(out);
  }
  sq_result_status(ctx, c->name, &st);
}

static void sq_ft_tensor_column(const sq_cursor *cur, sqlite3_context *ctx,
                                int col) {
  const sq_file_cursor *c = (const sq_file_cursor *)cur;
  sq_ft_row r = sq_ft_locate(c, cur->i);
  const sq_file_tensor *t = r.t;
  switch (col) {
    case SQ_FT_NAME: sqlite3_result_text(ctx, t->name, -1, SQLITE_TRANSIENT); break;
    case SQ_FT_DTYPE: sqlite3_result_text(ctx, t->dtype, -1, SQLITE_TRANSIENT); break;
    case SQ_FT_SHAPE: sq_ft_result_shape(ctx, t); break;
    case SQ_FT_DATA: sq_ft_result_data(ctx, c, &r); break;
    case SQ_FT_OFFSET:
      /* A decoded tensor's chunks all point at its stored form. */
      sqlite3_result_int64(ctx, (sqlite3_int64)(t->offset +
                                                (t->decode ? 0 : r.start)));
      break;
    case SQ_FT_NBYTES: sqlite3_result_int64(ctx, (sqlite3_int64)r.len); break;
    case SQ_FT_SCOPE:
      if (t->scope) sqlite3_result_text(ctx, t->scope, -1, SQLITE_TRANSIENT);
      break;
    case SQ_FT_CHUNK: sqlite3_result_int64(ctx, (sqlite3_int64)r.chunk); break;
    case SQ_FT_CHUNKS: sqlite3_result_int64(ctx, (sqlite3_int64)r.chunks); break;
    case SQ_FT_ROW_START:
      sqlite3_result_int64(ctx, (sqlite3_int64)r.row_start);
      break;
    case SQ_FT_ROWS: sqlite3_result_int64(ctx, (sqlite3_int64)r.rows); break;
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
