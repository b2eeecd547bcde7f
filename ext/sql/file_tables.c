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
**   2. the file variants open the path as a file source (formats/source.h,
**      docs/FORMATS.md#how-files-are-read): regular files only, refused
**      without blocking (a fifo, a directory, a device); nothing is mapped:
**      the index reads the file's structure, and each row's data is read
**      with pread when the row asks for it, so only the index and the row
**      being read are in memory and a file truncated or rewritten under the
**      cursor is an error ("... changed while it was read"), never a fault.
**      The cursor keeps the file open from the query's start to its end (a
**      file replaced by rename meanwhile is read to the end as it was).
**      They are SQ_PATHS (SQLITE_VTAB_DIRECTONLY: a view, trigger or schema
**      of an untrusted database cannot read files; not registered by
**      sqlite3_quant_nofs_init, not compiled with SQLITE_QUANT_OMIT_FS);
**   3. data is a copy of the stored bytes [offset, offset + nbytes), read
**      with pread (or what the tensor's decoder makes of them, with the
**      cursor's stream kept from row to row: a compressed member read chunk
**      by chunk in order is inflated once) into a fresh buffer handed to
**      SQLite, from SQ_FT_REUSE bytes on one that comes back to the cursor
**      when SQLite is done with it (see there why);
**   4. a NULL argument gives no rows; bad arguments are errors;
**   5. a tensor larger than the connection's SQLITE_LIMIT_LENGTH when the
**      query starts comes out as chunks of whole rows (slices along axis
**      0; a 1-D tensor's elements), each at most that limit, in order
**      (docs/FORMATS.md#tensors-bigger-than-a-blob); a tensor that cannot be
**      cut (a scalar, a 1-D ggml tensor, one row over the limit) is one
**      chunk whose data is SQLITE_TOOBIG.
*/
#include <stdio.h>
#include <string.h>
#include "core/text.h"
#include "formats/formats.h"
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

/* What reading the rows changes: the source (a file's position checks) and
** the decoders' stream.  Held by pointer, as the column callback has the
** cursor const. */
/* Big rows' buffers come back to the cursor when SQLite is done with them
** (the destructor handed to sqlite3_result_blob64), so the next row is read
** into memory whose pages are already there: a fresh buffer for each chunk
** costs a page fault per 4 KiB the first time each page is written (make
** test-large: 3.2 GB in 256 MiB chunks read in 2.0 s with fresh buffers,
** 1.3 s when SQLite copied from one kept buffer, against 0.6 s for 0.2.0's
** one copy from a mapping).  The pool is shared by the cursor and the
** buffers SQLite holds, and freed by the last of them: a value may outlive
** its cursor. */
typedef struct sq_ft_pool {
  int refs;                 /* the cursor, if open, and the buffers out */
  int open;                 /* the cursor still wants buffers back */
  struct sq_ft_buf *spare;  /* one buffer back from SQLite */
} sq_ft_pool;

/* A pooled buffer: this header, then the data. */
typedef struct sq_ft_buf {
  sq_ft_pool *pool;
  uint64_t cap;
} sq_ft_buf;
#define SQ_FT_BUF_HEAD ((sizeof(sq_ft_buf) + 15) / 16 * 16)

/* Rows of at least this many bytes use the pool; smaller ones a fresh
** buffer (the allocator's own free lists serve those). */
#define SQ_FT_REUSE (1u << 20)

/* What reading the rows changes: the source (a file's position checks), the
** decoders' stream, the pool.  Held by pointer, as the column callback has
** the cursor const. */
typedef struct sq_ft_reading {
  sq_source src;            /* the BLOB copy's bytes, or the open file */
  sq_file_stream stream;
  sq_ft_pool *pool;
} sq_ft_reading;

static void sq_ft_pool_drop(sq_ft_pool *pool) {
  if (--pool->refs > 0) return;
  sqlite3_free(pool->spare);
  sqlite3_free(pool);
}

/* The destructor of a pooled buffer's value: back to the pool, or freed. */
static void sq_ft_buf_release(void *data) {
  sq_ft_buf *b = (sq_ft_buf *)(void *)((char *)data - SQ_FT_BUF_HEAD);
  sq_ft_pool *pool = b->pool;
  if (pool->open && !pool->spare) {
    pool->spare = b;
  } else {
    sqlite3_free(b);
  }
  sq_ft_pool_drop(pool);
}

/* A pooled buffer of at least len bytes (its data), the spare if it is big
** enough; NULL with st set.  The caller hands it to SQLite or releases it. */
static unsigned char *sq_ft_buf_get(sq_ft_pool *pool, uint64_t len,
                                    sq_status *st) {
  sq_ft_buf *b = pool->spare;
  pool->spare = NULL;
  if (b && b->cap < len) {
    sqlite3_free(b);
    b = NULL;
  }
  if (!b) {
    /* len was checked against the length limit; the header is ours */
    if (!(b = sq_alloc_internal(st, SQ_FT_BUF_HEAD + len, 1))) return NULL;
    b->cap = len;
  }
  b->pool = pool;
  pool->refs++;
  return (unsigned char *)b + SQ_FT_BUF_HEAD;
}

typedef struct sq_file_cursor {
  sq_cursor base;
  const char *name;         /* the function's, for errors from a column */
  sqlite3_value *bytes;     /* the BLOB variants: a protected copy */
  sq_ft_reading *rd;
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

/* ---- the path code (SQ_PATHS; left out by SQLITE_QUANT_OMIT_FS:
** docs/ARCHITECTURE.md#registration) ------------------------------------ */
#ifndef SQLITE_QUANT_OMIT_FS
/* The file variants' first argument: the file at that path, opened. */
static int sq_ft_take_path(sq_file_cursor *c, sqlite3_value *v,
                           sq_status *st) {
  const char *path = sq_arg_text(v, "path", st);
  if (!path) return st->code;
  if (!*path) return sq_fail(st, "path is empty");
  return sq_source_open(&c->rd->src, path, path, 0, st);
}
#endif /* SQLITE_QUANT_OMIT_FS */

/* The BLOB variants' first argument: the file's bytes, a protected copy. */
static int sq_ft_take_blob(sq_file_cursor *c, sqlite3_value *v,
                           sq_status *st) {
  if (sqlite3_value_type(v) != SQLITE_BLOB)
    return sq_fail(st, "the file's bytes must be a blob, got %s",
                   sq_value_type_name(v));
  if (!(c->bytes = sqlite3_value_dup(v))) return sq_nomem(st);
  const unsigned char *p = sqlite3_value_blob(c->bytes);
  int n = sqlite3_value_bytes(c->bytes);
  if (n && !p) return sq_nomem(st);
  sq_source_memory(&c->rd->src, p, (uint64_t)n);
  return SQ_OK;
}

/* The dtypes whose 1-D tensors can be cut between elements: all but ggml's
** block types, whose elements share their block's bytes. */
static int sq_ft_elementwise(const char *dtype) {
  return sq_stored_dtype_element(dtype);
}

/* Cuts every tensor into chunks of whole rows of at most limit bytes and
** counts the table's rows (docs/FORMATS.md#tensors-bigger-than-a-blob). */
static int sq_ft_chunk(sq_file_cursor *c, uint64_t limit, sq_status *st) {
  size_t nt = c->ix.ntensors;
  /* One entry per tensor of the index, which the readers' budget bounds
  ** (docs/FORMATS.md#memory): working memory, not a result, so not sized
  ** through the length limit (0.2.0 did: 26 tensors were too many to list
  ** under a limit of 1000 bytes). */
  if (nt && !(c->chunking = sq_alloc_internal(st, nt, sizeof *c->chunking)))
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
  if (!(c->rd = sqlite3_malloc64(sizeof *c->rd))) return sq_nomem(st);
  memset(c->rd, 0, sizeof *c->rd);
  if (take_bytes(c, argv[0], st)) return st->code;
  sq_source *src = &c->rd->src;
  sq_file_format f;
  if (argc > 1) {
    const char *s = sq_arg_text(argv[1], "format", st);
    if (!s) return st->code;
    if (sq_file_format_parse(s, strlen(s), &f, st)) return st->code;
  } else {
    /* The first bytes: spanned (the format's reader spans them again, from
    ** the same cache). */
    uint64_t k = src->size < SQ_FILE_DETECT_BYTES ? src->size
                                                  : SQ_FILE_DETECT_BYTES;
    const unsigned char *head = sq_source_span(src, 0, k, st);
    if (!head) return st->code;
    int d = sq_file_detect(head, (size_t)k);
    if (d < 0) {
      const char *kind = sq_file_unread_kind(head, (size_t)k);
      if (kind) return sq_fail(st, "%s", kind);
      sq_names formats;
      sq_names_begin(&formats);
      sq_file_format_names(&formats);
      return sq_fail(st, "cannot tell the file format from its first bytes "
                         "(expected %s)", sq_names_join(&formats, ", ", " or "));
    }
    f = (sq_file_format)d;
  }
  if (sq_file_read_source(src, f, want_meta, &c->ix, st)) return st->code;
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
  if (c->rd) {
    if (c->rd->pool) {
      c->rd->pool->open = 0;
      sq_ft_pool_drop(c->rd->pool);
    }
    sq_file_stream_free(&c->rd->stream);
    sq_source_close(&c->rd->src);
    sqlite3_free(c->rd);
    c->rd = NULL;
  }
  sqlite3_value_free(c->bytes);
  c->bytes = NULL;
}

/* The shape as a JSON array: "[2,3]", "[]" for a scalar. */
static void sq_ft_result_shape(sqlite3_context *ctx, const sq_file_tensor *t) {
  char buf[SQ_FILE_SHAPE_TEXT_MAX];
  size_t k = sq_file_shape_text(t, buf, sizeof buf);
  sqlite3_result_text(ctx, buf, (int)k, SQLITE_TRANSIENT);
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

/* The chunk's bytes, read from the source (or made by the tensor's
** decoder) straight into the buffer SQLite is given, with the subtype of
** their dtype (docs/reference/data-formats.md#subtypes). */
static void sq_ft_result_data(sqlite3_context *ctx, const sq_file_cursor *c,
                              const sq_ft_row *r) {
  sq_status st;
  sq_status_begin(&st, sqlite3_context_db_handle(ctx));
  if (r->len > (uint64_t)st.max_bytes) {
    sqlite3_result_error_toobig(ctx);
    return;
  }
  sq_ft_reading *rd = c->rd;
  sq_file_view v = {&rd->src, &rd->stream};
  if (r->len >= SQ_FT_REUSE) {
    if (!rd->pool) {
      if (!(rd->pool = sqlite3_malloc64(sizeof *rd->pool))) {
        sqlite3_result_error_nomem(ctx);
        return;
      }
      rd->pool->refs = 1;
      rd->pool->open = 1;
      rd->pool->spare = NULL;
    }
    unsigned char *buf = sq_ft_buf_get(rd->pool, r->len, &st);
    if (buf && !sq_file_tensor_read(&v, r->t, r->start, r->len, buf, &st)) {
      sqlite3_result_blob64(ctx, buf, r->len, sq_ft_buf_release);
      sqlite3_result_subtype(ctx, sq_stored_dtype_subtype(r->t->dtype, strlen(r->t->dtype)));
      return;
    }
    if (buf) sq_ft_buf_release(buf);
    sq_result_status(ctx, c->name, &st);
    return;
  }
  unsigned char *out = sq_alloc(&st, r->len ? r->len : 1, 1);
  if (out && !sq_file_tensor_read(&v, r->t, r->start, r->len, out, &st)) {
    sqlite3_result_blob64(ctx, out, r->len, sqlite3_free);
    sqlite3_result_subtype(ctx, sq_stored_dtype_subtype(r->t->dtype, strlen(r->t->dtype)));
    return;
  }
  sqlite3_free(out);
  sq_result_status(ctx, c->name, &st);
}

/* The scope's text, composed from the index's scope tree (NULL for the
** main graph). */
static void sq_ft_result_scope(sqlite3_context *ctx, const sq_file_cursor *c,
                               const sq_file_tensor *t) {
  if (!t->scope) return;
  sq_status st;
  sq_status_begin(&st, sqlite3_context_db_handle(ctx));
  uint64_t len;
  char *text = sq_file_scope_text(&c->ix, t->scope, &len, &st);
  if (!text) {
    sq_result_status(ctx, c->name, &st);
    return;
  }
  sqlite3_result_text64(ctx, text, len, sqlite3_free, SQLITE_UTF8);
}

/* The hidden format column is the format read, named as the format
** argument names it, whether the argument was given or the first bytes
** decided (rule 1): the argument is an equality SQLite leaves to the table
** (vtab.c omits its check), so reporting the name never drops a row. */
static void sq_ft_result_format(sqlite3_context *ctx, const sq_file_cursor *c) {
  if (c->ix.format) sqlite3_result_text(ctx, c->ix.format, -1, SQLITE_STATIC);
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
    case SQ_FT_SCOPE: sq_ft_result_scope(ctx, c, t); break;
    case SQ_FT_CHUNK: sqlite3_result_int64(ctx, (sqlite3_int64)r.chunk); break;
    case SQ_FT_CHUNKS: sqlite3_result_int64(ctx, (sqlite3_int64)r.chunks); break;
    case SQ_FT_ROW_START:
      sqlite3_result_int64(ctx, (sqlite3_int64)r.row_start);
      break;
    case SQ_FT_ROWS: sqlite3_result_int64(ctx, (sqlite3_int64)r.rows); break;
    case SQ_FT_FORMAT: sq_ft_result_format(ctx, c); break;
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
    case SQ_FM_FORMAT: sq_ft_result_format(ctx, c); break;
    default: break;
  }
}
