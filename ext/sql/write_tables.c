/*
** write_tables.c: model files written by a transaction
** (docs/FORMATS.md#file-writers).
**
**   INSERT INTO q_safetensors_write(path, name, data, dtype, shape, metadata)
**   INSERT INTO q_gguf_write(path, name, data, type, shape, metadata)
**   INSERT INTO q_npz_write(path, name, data, dtype, shape)
**     SELECT ...;
**
** Each is a writable eponymous virtual table (and a module: CREATE VIRTUAL
** TABLE temp.out USING q_gguf_write gives one that takes no lock on main).
** Rules:
**   1. A file appears at its path, or replaces the one there, only when the
**      transaction that inserted its rows commits.  SQLite calls a virtual
**      table's xSync and xCommit only after every statement of the
**      transaction succeeded, and xRollback otherwise (an error in any
**      expression, an interrupt, a progress handler that aborts, a ROLLBACK,
**      a connection closed with the transaction open); a statement that
**      fails inside BEGIN ... COMMIT is undone through the savepoint SQLite
**      opens for it (xRollbackTo).  So a file never holds a failed
**      statement's rows, by construction.
**   2. Rows are taken as the aggregates q_safetensors_agg, q_gguf_agg and
**      q_npz_agg take them (the same checks, messages and chunk rule, the
**      same bytes); a row whose data is NULL is skipped.  The rows of one
**      path, in one transaction, make one file; rows of different paths
**      make different files.  A path is resolved at its first row
**      (relative to the working directory then), which creates the
**      temporary file beside the target (formats/staged_file.h), so an
**      unwritable directory fails at once; two spellings of one target are
**      one file.
**   3. A row is all or nothing: a row that fails leaves the file as it was
**      before it.  Savepoints mark every pending file; rolling back to one
**      cuts each file back to its size then and drops the files begun
**      after it.
**   4. xSync seals every pending file (header, data moved in place, fsync,
**      a temporary name): any error there fails the COMMIT, and SQLite then
**      rolls back.  xCommit only renames each over its target (SQLite
**      ignores xCommit's result: a rename that fails there, because the
**      directory changed under the writer, is reported through
**      sqlite3_log and leaves the old file).
**   5. Pending files belong to the connection, shared by its writer tables
**      (the eponymous ones and any CREATE VIRTUAL TABLE instances), so the
**      same target from two of them is one file, and from two formats an
**      error.  Every transaction method acts on all of them and is
**      idempotent, so being called once per instance is harmless.
**   6. INSERT only: UPDATE and DELETE are refused; SELECT gives no rows.
**      SQLITE_VTAB_DIRECTONLY: never from a view, trigger or schema.  SQLite
**      before 3.40.0 checks that for a table's reads but not for its writes,
**      so a trigger in an untrusted database could write files through a
**      table outside temp: there only tables in temp take rows (a trigger
**      of a database's schema cannot name a temp table: its names resolve
**      in its own database).  Before 3.36.0 not even that holds (3.34.0
**      loads a CREATE TEMP TRIGGER stored in a database's schema as a temp
**      trigger, which names temp tables; 3.35 was not checked): there no
**      table takes rows.
**   7. Every table here, and the removed aggregates below, is SQ_PATHS
**      (sql.h): sqlite3_quant_nofs_init leaves them out, and with
**      SQLITE_QUANT_OMIT_FS this file is not compiled at all.
** The removed aggregate forms of q_safetensors_write and q_gguf_write stay
** registered for one release as an error that says what to write instead.
*/
#include <stdio.h>
#include <string.h>
#include "formats/formats.h"
#include "formats/staged_file.h"
#include "formats/writer.h"
#include "sql/sql.h"

/* All of it is path code: left out by SQLITE_QUANT_OMIT_FS
** (docs/ARCHITECTURE.md#registration). */
#ifndef SQLITE_QUANT_OMIT_FS

/* One table per format that rows can write (formats/formats.h), named
** and shaped after its descriptor: q_<name>_write(path, name, data, <dtype
** column>, shape[, metadata]).  Built at registration. */
typedef struct sq_wt_kind {
  sq_file_format format;
  const sq_writer_ops *ops;
  char name[32];           /* "q_gguf_write" */
  char schema[96];
  char columns[64];        /* for the removed aggregate's message */
} sq_wt_kind;

/* A pending file's state between rows. */
typedef struct sq_wt_state {
  sq_writer_mark w;
  int meta_given;
} sq_wt_state;

/* One pending file: the rows of one target in the open transaction. */
typedef struct sq_wt_out {
  struct sq_wt_out *next;
  const sq_wt_kind *kind;
  char *path;              /* the text its first row gave */
  sq_file_writer w;
  sq_writer_meta meta;
  int born;                /* savepoints open when its first row came */
  sq_wt_state *marks;      /* marks[i]: its state at savepoint i */
  int nmarks;
} sq_wt_out;

/* What a connection's writer tables share: the pending files and the
** savepoints open (the module's client data points at one of aux[]). */
typedef struct sq_wt_conn sq_wt_conn;
typedef struct sq_wt_aux {
  const sq_wt_kind *kind;
  sq_wt_conn *conn;
} sq_wt_aux;
struct sq_wt_conn {
  sq_wt_kind kinds[SQ_FILE_NFORMATS];
  sq_wt_aux aux[SQ_FILE_NFORMATS];
  int nkinds;
  int refs;                /* modules still registered */
  sq_wt_out *outs;
  int depth;
};

typedef struct sq_wt_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  const sq_wt_kind *kind;
  sq_wt_conn *conn;
  sqlite3_int64 rows;
  int refused;             /* rule 6: SQ_WT_REFUSED_* */
} sq_wt_vtab;

/* Rule 6: the first SQLite that refuses a trigger's INSERT into a
** SQLITE_VTAB_DIRECTONLY table ("unsafe use of virtual table"), and the
** first one checked to resolve the names of a stored CREATE TEMP TRIGGER
** in the trigger's own database. */
#define SQ_WT_TRIGGER_CHECK_NUMBER 3040000
#define SQ_WT_TEMP_TRIGGER_NUMBER 3036000
enum { SQ_WT_REFUSED_NONE, SQ_WT_REFUSED_OUTSIDE_TEMP, SQ_WT_REFUSED_ALL };

/* ---- pending files ---- */

static void sq_wt_out_free(sq_wt_out *o) {
  sq_file_writer_free(&o->w);
  sq_writer_meta_free(&o->meta);
  sqlite3_free(o->path);
  sqlite3_free(o->marks);
  sqlite3_free(o);
}

static void sq_wt_discard_all(sq_wt_conn *c) {
  while (c->outs) {
    sq_wt_out *o = c->outs;
    c->outs = o->next;
    sq_wt_out_free(o);
  }
  c->depth = 0;
}

static void sq_wt_mark(const sq_wt_out *o, sq_wt_state *s) {
  memset(s, 0, sizeof *s);
  sq_file_writer_mark(&o->w, &s->w);
  s->meta_given = o->meta.given;
}

static int sq_wt_rewind(sq_wt_out *o, const sq_wt_state *s, sq_status *st) {
  if (!s->meta_given) sq_writer_meta_free(&o->meta);
  return sq_file_writer_rewind(&o->w, &s->w, st);
}

/* o, when v's format writes it; one target takes one format. */
static sq_wt_out *sq_wt_same_kind(const sq_wt_vtab *v, sq_wt_out *o,
                                  const char *path, sq_status *st) {
  if (o->kind == v->kind) return o;
  sq_fail(st, "'%.200s' is being written by %s in this transaction", path,
          o->kind->name);
  return NULL;
}

/* The pending file for path: the one whose first row gave the same text,
** else the one of the same target (resolved now), else a new one, whose
** temporary file is created now.  *created says which. */
static sq_wt_out *sq_wt_find(sq_wt_vtab *v, const char *path, int *created,
                             sq_status *st) {
  *created = 0;
  for (sq_wt_out *o = v->conn->outs; o; o = o->next)
    if (strcmp(o->path, path) == 0) return sq_wt_same_kind(v, o, path, st);
  sq_staged *target = sq_alloc(st, 1, sizeof *target);
  if (!target) return NULL;
  if (sq_staged_resolve(target, path, st)) {
    sq_staged_close(target);
    sqlite3_free(target);
    return NULL;
  }
  for (sq_wt_out *o = v->conn->outs; o; o = o->next)
    if (sq_staged_same_target(sq_file_writer_staged(&o->w), target)) {
      sq_staged_close(target);
      sqlite3_free(target);
      return sq_wt_same_kind(v, o, path, st);
    }
  sq_wt_out *o = sq_alloc(st, 1, sizeof *o);
  size_t n = strlen(path);
  char *copy = o ? sq_alloc(st, n + 1, 1) : NULL;
  if (!copy) {
    sqlite3_free(o);
    sq_staged_close(target);
    sqlite3_free(target);
    return NULL;
  }
  memset(o, 0, sizeof *o);
  memcpy(copy, path, n + 1);
  o->kind = v->kind;
  o->path = copy;
  o->born = v->conn->depth;
  if (sq_file_writer_open(&o->w, v->kind->format, target, st)) {
    sq_wt_out_free(o);
    return NULL;
  }
  o->next = v->conn->outs;
  v->conn->outs = o;
  *created = 1;
  return o;
}

static void sq_wt_unlink(sq_wt_conn *c, sq_wt_out *gone) {
  for (sq_wt_out **p = &c->outs; *p; p = &(*p)->next)
    if (*p == gone) {
      *p = gone->next;
      sq_wt_out_free(gone);
      return;
    }
}

/* ---- errors ---- */

static int sq_wt_error(sqlite3_vtab *vt, const char *name, const sq_status *st) {
  if (st->code == SQ_NOMEM) return SQLITE_NOMEM;
  if (st->code == SQ_TOOBIG) return SQLITE_TOOBIG;
  sqlite3_free(vt->zErrMsg);
  vt->zErrMsg = sqlite3_mprintf("%s: %s", name, st->msg);
  return vt->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* ---- the module ---- */

static int sq_wt_connect(sqlite3 *db, void *aux, int argc,
                         const char *const *argv, sqlite3_vtab **vt,
                         char **err) {
  sq_wt_aux *a = aux;
  /* argv: the module, the database and the table's names, then any
  ** arguments of CREATE VIRTUAL TABLE ... USING q_gguf_write(...). */
  if (argc > 3) {
    *err = sqlite3_mprintf("%s: takes no arguments", a->kind->name);
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, a->kind->schema);
  if (rc != SQLITE_OK) return rc;
  sq_wt_vtab *v = sqlite3_malloc64(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->db = db;
  v->kind = a->kind;
  v->conn = a->conn;
  int version = sqlite3_libversion_number();
  v->refused = version >= SQ_WT_TRIGGER_CHECK_NUMBER ? SQ_WT_REFUSED_NONE
             : version < SQ_WT_TEMP_TRIGGER_NUMBER   ? SQ_WT_REFUSED_ALL
             : sqlite3_stricmp(argv[1], "temp") != 0 ? SQ_WT_REFUSED_OUTSIDE_TEMP
                                                     : SQ_WT_REFUSED_NONE;
  sq_vtab_declare_reach(db, SQ_PATHS);
  *vt = &v->base;
  return SQLITE_OK;
}

/* The connection's pending files outlive any one table: they end with the
** transaction (or with the modules, at close). */
static int sq_wt_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int sq_wt_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  info->estimatedCost = 1.0;
  info->estimatedRows = 1;
  return SQLITE_OK;
}

static int sq_wt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **cur) {
  (void)vt;
  sqlite3_vtab_cursor *c = sqlite3_malloc64(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *cur = c;
  return SQLITE_OK;
}

static int sq_wt_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int sq_wt_filter(sqlite3_vtab_cursor *cur, int idxNum,
                        const char *idxStr, int argc, sqlite3_value **argv) {
  (void)cur;
  (void)idxNum;
  (void)idxStr;
  (void)argc;
  (void)argv;
  return SQLITE_OK;
}

static int sq_wt_next(sqlite3_vtab_cursor *cur) {
  (void)cur;
  return SQLITE_OK;
}

static int sq_wt_eof(sqlite3_vtab_cursor *cur) {
  (void)cur;
  return 1;
}

static int sq_wt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                        int col) {
  (void)cur;
  (void)ctx;
  (void)col;
  return SQLITE_OK;
}

static int sq_wt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  (void)cur;
  *rowid = 0;
  return SQLITE_OK;
}

/* argv[0]: the old rowid (NULL for an INSERT), argv[1]: the new one, then
** the columns: path, name, data, dtype, shape [, metadata]. */
static int sq_wt_update(sqlite3_vtab *vt, int argc, sqlite3_value **argv,
                        sqlite3_int64 *rowid) {
  sq_wt_vtab *v = (sq_wt_vtab *)vt;
  const sq_wt_kind *k = v->kind;
  if (argc == 1 || sqlite3_value_type(argv[0]) != SQLITE_NULL) {
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("%s: only INSERT writes a file (UPDATE and "
                                  "DELETE are refused)", k->name);
    return vt->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  *rowid = ++v->rows;
  sqlite3_value **col = argv + 2;
  if (sqlite3_value_type(col[2]) == SQLITE_NULL) return SQLITE_OK;
  if (v->refused) {
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg =
        v->refused == SQ_WT_REFUSED_ALL
            ? sqlite3_mprintf("%s: needs SQLite 3.36.0 or later (an older one "
                              "lets a database's triggers write through it), "
                              "got SQLite %s", k->name, sqlite3_libversion())
            : sqlite3_mprintf("%s: before SQLite 3.40.0 a trigger could write "
                              "through a table outside temp; write through one "
                              "in temp (CREATE VIRTUAL TABLE temp.out USING %s), "
                              "got SQLite %s", k->name, k->name,
                              sqlite3_libversion());
    return vt->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  sq_status st;
  sq_status_begin(&st, v->db);
  const char *path = sq_arg_text(col[0], "path", &st);
  if (!path) return sq_wt_error(vt, k->name, &st);
  int created;
  sq_wt_out *o = sq_wt_find(v, path, &created, &st);
  if (!o) return sq_wt_error(vt, k->name, &st);
  sq_wt_state before;
  sq_wt_mark(o, &before);
  /* The metadata before the tensor: GGUF's general.alignment places the
  ** data. */
  sq_writer_row r;
  if (sq_writer_row_decode(col + 1, k->ops->dtype_column, k->ops->shape_flags,
                           &r, &st) == SQ_OK &&
      (!k->ops->takes_metadata ||
       sq_writer_meta_take(&o->meta, &o->w, col[5], &st) == SQ_OK))
    sq_file_writer_add(&o->w, r.name, strlen(r.name), r.dtype,
                       strlen(r.dtype), &r.shape, r.data, r.nbytes, &st);
  if (st.code == SQ_OK) return SQLITE_OK;
  if (created) {
    sq_wt_unlink(v->conn, o);
  } else {
    sq_status again;
    sq_status_begin(&again, v->db);
    (void)sq_wt_rewind(o, &before, &again);
  }
  return sq_wt_error(vt, k->name, &st);
}

static int sq_wt_begin(sqlite3_vtab *vt) {
  (void)vt;
  return SQLITE_OK;
}

static int sq_wt_sync(sqlite3_vtab *vt) {
  sq_wt_vtab *v = (sq_wt_vtab *)vt;
  for (sq_wt_out *o = v->conn->outs; o; o = o->next) {
    sq_status st;
    sq_status_begin(&st, v->db);
    uint64_t size;
    if (sq_file_writer_seal(&o->w, &size, &st))
      return sq_wt_error(vt, o->kind->name, &st);
  }
  return SQLITE_OK;
}

static int sq_wt_commit(sqlite3_vtab *vt) {
  sq_wt_vtab *v = (sq_wt_vtab *)vt;
  for (sq_wt_out *o = v->conn->outs; o; o = o->next) {
    sq_status st;
    sq_status_begin(&st, v->db);
    if (sq_file_writer_commit(&o->w, &st))
      sqlite3_log(SQLITE_IOERR, "%s: %s", o->kind->name,
                  st.code == SQ_INVALID ? st.msg : "out of memory");
  }
  sq_wt_discard_all(v->conn);
  return SQLITE_OK;
}

static int sq_wt_rollback(sqlite3_vtab *vt) {
  sq_wt_discard_all(((sq_wt_vtab *)vt)->conn);
  return SQLITE_OK;
}

/* Savepoint n marks every pending file (and the levels below it that no
** call marked: SQLite names a table's first savepoint by the depth it
** joined at). */
static int sq_wt_savepoint(sqlite3_vtab *vt, int n) {
  sq_wt_vtab *v = (sq_wt_vtab *)vt;
  sq_wt_conn *c = v->conn;
  for (sq_wt_out *o = c->outs; o; o = o->next) {
    if (n >= o->nmarks) {
      sq_status st;
      sq_status_begin(&st, v->db);
      sq_wt_state *m = sq_realloc(&st, o->marks, (uint64_t)n + 1, sizeof *m);
      if (!m) return sq_wt_error(vt, o->kind->name, &st);
      o->marks = m;
      o->nmarks = n + 1;
    }
    for (int i = c->depth < o->born ? o->born : c->depth; i < n; i++)
      sq_wt_mark(o, &o->marks[i]);
    sq_wt_mark(o, &o->marks[n]);
  }
  c->depth = n + 1;
  return SQLITE_OK;
}

static int sq_wt_release(sqlite3_vtab *vt, int n) {
  sq_wt_conn *c = ((sq_wt_vtab *)vt)->conn;
  if (n < c->depth) c->depth = n;
  for (sq_wt_out *o = c->outs; o; o = o->next)
    if (o->born > n) o->born = n;
  return SQLITE_OK;
}

/* Back to savepoint n: files begun after it are dropped, the others cut
** back to their state then. */
static int sq_wt_rollback_to(sqlite3_vtab *vt, int n) {
  sq_wt_vtab *v = (sq_wt_vtab *)vt;
  sq_wt_conn *c = v->conn;
  int rc = SQLITE_OK;
  for (sq_wt_out **p = &c->outs; *p;) {
    sq_wt_out *o = *p;
    if (o->born > n || n >= o->nmarks) {
      *p = o->next;
      sq_wt_out_free(o);
      continue;
    }
    sq_status st;
    sq_status_begin(&st, v->db);
    if (sq_wt_rewind(o, &o->marks[n], &st) && rc == SQLITE_OK)
      rc = sq_wt_error(vt, o->kind->name, &st);
    p = &o->next;
  }
  c->depth = n + 1;
  return rc;
}

static int sq_wt_rename(sqlite3_vtab *vt, const char *name) {
  (void)vt;
  (void)name;
  return SQLITE_OK;
}

static const sqlite3_module sq_wt_module = {
  .iVersion = 2,
  .xCreate = sq_wt_connect,
  .xConnect = sq_wt_connect,
  .xBestIndex = sq_wt_best_index,
  .xDisconnect = sq_wt_disconnect,
  .xDestroy = sq_wt_disconnect,
  .xOpen = sq_wt_open,
  .xClose = sq_wt_close,
  .xFilter = sq_wt_filter,
  .xNext = sq_wt_next,
  .xEof = sq_wt_eof,
  .xColumn = sq_wt_column,
  .xRowid = sq_wt_rowid,
  .xUpdate = sq_wt_update,
  .xBegin = sq_wt_begin,
  .xSync = sq_wt_sync,
  .xCommit = sq_wt_commit,
  .xRollback = sq_wt_rollback,
  .xRename = sq_wt_rename,
  .xSavepoint = sq_wt_savepoint,
  .xRelease = sq_wt_release,
  .xRollbackTo = sq_wt_rollback_to,
};

static void sq_wt_conn_release(sq_wt_conn *c) {
  if (--c->refs == 0) {
    sq_wt_discard_all(c);
    sqlite3_free(c);
  }
}

static void sq_wt_aux_free(void *p) {
  sq_wt_conn_release(((sq_wt_aux *)p)->conn);
}

/* ---- the removed aggregates ---- */

/* The kind of format f, as sq_register_file_writers builds it. */
static void sq_wt_kind_init(sq_wt_kind *k, sq_file_format f) {
  const char *name = sq_file_format_name(f);
  const sq_writer_ops *ops = sq_file_writer_ops(f);
  const char *meta = ops->takes_metadata ? ", metadata" : "";
  k->format = f;
  k->ops = ops;
  snprintf(k->name, sizeof k->name, "q_%s_write", name);
  snprintf(k->schema, sizeof k->schema,
           "CREATE TABLE x(path, name, data, %s, shape%s)", ops->dtype_column,
           meta);
  snprintf(k->columns, sizeof k->columns, "path, name, data, %s, shape%s",
           ops->dtype_column, ops->takes_metadata ? "[, metadata]" : "");
}

static void sq_wt_removed_final(sqlite3_context *ctx) {
  const sq_fn *fn = sqlite3_user_data(ctx);
  sq_wt_kind k;
  int n = 0;
  for (int f = 0; f < SQ_FILE_NFORMATS; f++)
    if (sq_file_writer_ops((sq_file_format)f) && n++ == fn->variant)
      sq_wt_kind_init(&k, (sq_file_format)f);
  char *msg = sqlite3_mprintf(
      "%s: the aggregate was removed in 0.3.0 (a statement that failed could "
      "leave a partial file); write the file with INSERT INTO %s(%s) "
      "SELECT ...", k.name, k.name, k.columns);
  if (!msg) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, msg, -1);
  sqlite3_free(msg);
}

static void sq_wt_removed_step(sqlite3_context *ctx, int argc,
                               sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sq_wt_removed_final(ctx);
}

/* The removed aggregates of ext/catalogue.toml (sql/catalogue.h); variant:
** the index of the kind among the formats with writers, in sq_formats's
** order (formats/formats.c). */
static const sq_fn_def sq_wt_removed_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_WRITER(SQ_FN_DEF)
};

int sq_register_file_writers(sq_registry *r) {
  sq_wt_conn *c = sqlite3_malloc64(sizeof *c);
  if (!c) {
    /* The first table is the one that failed. */
    for (int f = 0; f < SQ_FILE_NFORMATS; f++)
      if (sq_file_writer_ops((sq_file_format)f)) {
        snprintf(r->failed_name, sizeof r->failed_name, "q_%s_write",
                 sq_file_format_name((sq_file_format)f));
        break;
      }
    r->failed = r->failed_name;
    r->why = "out of memory";
    return SQLITE_NOMEM;
  }
  memset(c, 0, sizeof *c);
  for (int f = 0; f < SQ_FILE_NFORMATS; f++) {
    if (!sq_file_writer_ops((sq_file_format)f)) continue;
    sq_wt_kind_init(&c->kinds[c->nkinds], (sq_file_format)f);
    c->aux[c->nkinds].kind = &c->kinds[c->nkinds];
    c->aux[c->nkinds].conn = c;
    c->nkinds++;
  }
  /* Each registration owns one reference, released by its destructor
  ** (called also when the registration fails or the module is left out),
  ** so every one is made even after one failed; this call holds one more
  ** until it is done with the names in c. */
  c->refs = c->nkinds + 1;
  int rc = SQLITE_OK;
  for (int i = 0; i < c->nkinds; i++) {
    int one = sq_create_module(r, SQ_PATHS, c->kinds[i].name,
                               &sq_wt_module, &c->aux[i], sq_wt_aux_free);
    if (rc == SQLITE_OK) rc = one;
  }
  if (rc == SQLITE_OK)
    rc = sq_register_table(r, sq_wt_removed_defs,
                           sizeof sq_wt_removed_defs / sizeof sq_wt_removed_defs[0]);
  if (rc != SQLITE_OK && r->failed) {
    snprintf(r->failed_name, sizeof r->failed_name, "%s", r->failed);
    r->failed = r->failed_name;
  }
  sq_wt_conn_release(c);
  return rc;
}
#endif /* SQLITE_QUANT_OMIT_FS */
