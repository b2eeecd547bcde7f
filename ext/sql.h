/*
** sql.h: what the SQL-surface files share: argument decoding, results and
** errors.  No numeric loop lives in the SQL layer.
*/
#ifndef SQ_SQL_H
#define SQ_SQL_H
#include "core.h"

/* Each function's user data: its SQL name (for messages) and a variant. */
typedef struct sq_fn {
  const char *name;
  int variant;
} sq_fn;

/* A fresh status whose size limit is db's SQLITE_LIMIT_LENGTH. */
void sq_status_begin(sq_status *st, sqlite3 *db);
/* Start a call: fills st (limit from the connection) and returns the name. */
const char *sq_begin(sqlite3_context *ctx, sq_status *st);
/* Any NULL argument makes the result NULL (returns 1 when so). */
int sq_any_null(int argc, sqlite3_value **argv);
/* Raises st as the function's error: "<name>: <message>", nomem or toobig. */
void sq_result_status(sqlite3_context *ctx, const char *name, const sq_status *st);
/* Hands an sqlite3_malloc'd buffer to SQLite as a BLOB result. */
void sq_result_blob(sqlite3_context *ctx, void *buf, uint64_t nbytes,
                    const sq_status *st);

/* Optional arguments: argv[i] when i < argc, else the default. */
const sq_dtype *sq_arg_dtype(int argc, sqlite3_value **argv, int i, int family,
                             const sq_dtype *dflt, sq_status *st);
int sq_arg_scheme(int argc, sqlite3_value **argv, int i, int *symmetric,
                  sq_status *st);
int sq_arg_options(int argc, sqlite3_value **argv, int i, unsigned allowed,
                   sq_options *o, sq_status *st);
/* A required text argument. */
const char *sq_arg_text(sqlite3_value *v, const char *what, sq_status *st);
/* Numbers: REAL or INTEGER for a scale; INTEGER (or an integral REAL) else. */
int sq_arg_double(sqlite3_value *v, const char *what, double *out, sq_status *st);
int sq_arg_int(sqlite3_value *v, const char *what, int64_t *out, sq_status *st);
/* A code blob (codes must be a BLOB). */
int sq_arg_codes(sqlite3_value *v, const char *argname, const sq_dtype *dt,
                 const void **data, size_t *nbytes, sq_status *st);
/* Element count of a code blob, checking its length (and count, if >= 0). */
int sq_codes_count(const sq_dtype *dt, size_t nbytes, int64_t count, size_t *n,
                   sq_status *st);

/* Per-channel or per-block parameters: `count` scales (f32 blob or JSON) and
** zero points (i32 blob or JSON), checked into cs.  `why` explains the count
** in a mismatch message ("scales has 3 entries, expected 4 (<why>)"). */
int sq_arg_param_set(sqlite3_value *vscales, sqlite3_value *vzps, size_t count,
                     const char *unit, const char *expected, const sq_range *r,
                     int divide,
                     sq_tensor *scales, sq_tensor *zps, sq_channel_set *cs,
                     sq_status *st);
/* Chooses parameters for `count` ranges and returns the scales (f32 blob) or
** zero points (i32 blob). */
void sq_result_params(sqlite3_context *ctx, const float *mn, const float *mx,
                      size_t count, const sq_range *r, int symmetric,
                      int want_scale, sq_status *st);

/* Table-valued functions (sql_vtab.c): declare the schema, free the table,
** take the HIDDEN argument columns [first, first+count) left to right (the
** first `required` of them must be given; idxNum is how many were), and
** report a core error from xFilter. */
#define SQ_VTAB_MAX_ARGS 8
int sq_vtab_connect(sqlite3 *db, const char *schema, sqlite3_vtab **vt);
int sq_vtab_disconnect(sqlite3_vtab *v);
int sq_vtab_best_index(sqlite3_vtab *v, sqlite3_index_info *info, int first,
                       int count, int required, const char *missing);
int sq_vtab_fail(sqlite3_vtab_cursor *cur, const char *name,
                 const sq_status *st);
/* A fresh status for xFilter, limited by the table's connection. */
void sq_vtab_begin(sqlite3_vtab_cursor *cur, sq_status *st);

/* Registration of each file's functions. */
int sq_register_tensor_functions(sqlite3 *db);
int sq_register_per_tensor_functions(sqlite3 *db);
int sq_register_per_channel_functions(sqlite3 *db);
int sq_register_per_block_functions(sqlite3 *db);
int sq_register_compare(sqlite3 *db);
int sq_register_metric_functions(sqlite3 *db);
int sq_register_observer_functions(sqlite3 *db);
int sq_register_each(sqlite3 *db);
int sq_register_channels(sqlite3 *db);

/* A row of a registration table: arities nmin..nmax share one xFunc. */
typedef struct sq_fn_def {
  sq_fn fn;
  int nmin, nmax;
  void (*xFunc)(sqlite3_context *, int, sqlite3_value **);
} sq_fn_def;
int sq_register_table(sqlite3 *db, const sq_fn_def *defs, size_t count);

#endif
