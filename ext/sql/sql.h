/*
** sql.h: what the SQL-surface files share: argument decoding, results,
** errors, table-valued function plumbing and registration.  No numeric loop
** lives in the SQL layer; it turns SQL values into the core's descriptions
** and the core's results and errors into SQL ones
** (docs/ARCHITECTURE.md#the-call-path).
*/
#ifndef SQ_SQL_H
#define SQ_SQL_H

#include "core/memory.h"
#include "core/calibrate.h"
#include "core/compare.h"
#include "core/elements.h"
#include "core/granularity.h"
#include "core/log2.h"
#include "core/metrics.h"
#include "core/observer.h"
#include "core/options.h"
#include "core/qparams.h"
#include "core/quantize.h"
#include "core/row_method.h"
#include "core/status.h"
#include "core/tensor.h"
#include "sql/catalogue.h"
#include "sqlite_quant.h"

/* What a function or table can reach, declared with each one
** (docs/ARCHITECTURE.md#registration).  The registration derives SQLite's
** flags from it, and the entry points choose by it:
**   SQ_VALUES  only its arguments and its result: SQLITE_DETERMINISTIC and
**              SQLITE_INNOCUOUS (SQLITE_VTAB_INNOCUOUS for a table), so
**              views, triggers and untrusted schemas may use it;
**   SQ_PATHS   files named by a path: SQLITE_DIRECTONLY
**              (SQLITE_VTAB_DIRECTONLY), never from a view, trigger or
**              schema; registered only by sqlite3_quant_init, never by
**              sqlite3_quant_nofs_init, and not compiled at all with
**              SQLITE_QUANT_OMIT_FS.
** 0 is neither: an entry that does not say fails the load. */
typedef enum sq_reach { SQ_VALUES = 1, SQ_PATHS = 2 } sq_reach;

/* Each function's user data: its SQL name (for messages), a variant, and
** what it reaches. */
typedef struct sq_fn {
  const char *name;
  int variant;
  sq_reach reach;
} sq_fn;

/* ---- calls, results and errors (args.c) ----------------------------------- */

/* A fresh status whose size limit is db's SQLITE_LIMIT_LENGTH. */
void sq_status_begin(sq_status *st, sqlite3 *db);
/* Start a call: fills st (limit from the connection) and returns the name. */
const char *sq_begin(sqlite3_context *ctx, sq_status *st);
/* Starts a scalar function's call: st fresh, and the function's user data,
** or NULL when an argument is NULL (the result is then NULL). */
const sq_fn *sq_call(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                     sq_status *st);
/* An aggregate step's state, `size` bytes zeroed on the first row, whose
** struct begins with an sq_status recording a failed step: NULL (the error
** raised) when out of memory or when an earlier step failed, so a failed
** aggregate repeats its error and touches its state no more. */
void *sq_agg_state(sqlite3_context *ctx, size_t size, const char *name);
/* Any NULL argument makes the result NULL (returns 1 when so). */
int sq_any_null(int argc, sqlite3_value **argv);
/* Raises st as the function's error: "<name>: <message>", nomem or toobig
** (docs/NUMERICS.md#errors). */
void sq_result_status(sqlite3_context *ctx, const char *name, const sq_status *st);
/* Hands an sqlite3_malloc'd buffer to SQLite as a BLOB result. */
void sq_result_blob(sqlite3_context *ctx, void *buf, uint64_t nbytes,
                    const sq_status *st);
/* The same with the subtype of the result's dtype (core/dtype.h,
** docs/reference/data-formats.md#subtypes). */
void sq_result_typed(sqlite3_context *ctx, void *buf, uint64_t nbytes,
                     unsigned subtype, const sq_status *st);
/* Chooses parameters for `count` ranges and returns the scales (f32 blob) or
** zero points (i32 blob). */
void sq_result_params(sqlite3_context *ctx, const float *mn, const float *mx,
                      size_t count, const sq_range *r, int symmetric,
                      int want_scale, sq_status *st);

/* ---- arguments (args.c) ---------------------------------------------------- */

/* A float tensor: a float32 BLOB read in place or JSON text parsed
** (docs/NUMERICS.md#float-tensors); SQ_NULL for NULL. */
int sq_arg_tensor(sqlite3_value *v, const char *argname, sq_tensor *t,
                  sq_status *st);
/* A shape (docs/NUMERICS.md#shapes). */
int sq_arg_shape(sqlite3_value *v, sq_shape *s, sq_status *st);
/* The same with sq_shape_parse's flags (SQ_SHAPE_ZERO_DIMS: the file
** writers accept empty arrays). */
int sq_arg_shape_opt(sqlite3_value *v, unsigned flags, sq_shape *s,
                     sq_status *st);
/* The elements of a blob (or float tensor) of any dtype. */
int sq_arg_elements(const sq_kernels *k, sqlite3_value *v, const char *argname,
                    const sq_dtype *dt, int64_t count, sq_elements *e,
                    sq_status *st);
/* (blob [, dtype [, count]]) of q_json and q_each: the elements of blob
** (argv[0] or a copy of it) read as dtype, f32 by default. */
int sq_arg_blob_elements(int argc, sqlite3_value **argv, sqlite3_value *blob,
                         sq_elements *e, sq_status *st);
/* Optional arguments: argv[i] when i < argc, else the default. */
const sq_dtype *sq_arg_dtype(int argc, sqlite3_value **argv, int i, int family,
                             const sq_dtype *dflt, sq_status *st);
/* The dtype of data's bytes: argv[i] when given, which must agree with
** data's subtype when it has one of ours (an error naming both); else the
** subtype's dtype when it is of the family; else dflt. */
const sq_dtype *sq_arg_dtype_of(int argc, sqlite3_value **argv, int i,
                                int family, const sq_dtype *dflt,
                                sqlite3_value *data, const char *argname,
                                sq_status *st);
/* SQ_OK when v's subtype is `expected` or not one of ours; else the error
** "<argname> is <what it is> but dtype is <expected_name>". */
int sq_arg_subtype_is(sqlite3_value *v, const char *argname, unsigned expected,
                      const char *expected_name, sq_status *st);
int sq_arg_scheme(int argc, sqlite3_value **argv, int i, int *symmetric,
                  sq_status *st);
int sq_arg_options(int argc, sqlite3_value **argv, int i, unsigned allowed,
                   sq_options *o, sq_status *st);
/* An optional element count at argv[i]: -1 when absent, never negative. */
int sq_arg_count(int argc, sqlite3_value **argv, int i, int64_t *count,
                 sq_status *st);
/* A value's type as messages name it: integer, real, text, blob, null. */
const char *sq_value_type_name(sqlite3_value *v);
/* A required text argument, taken with its length: a NUL inside is an
** error. */
const char *sq_arg_text(sqlite3_value *v, const char *what, sq_status *st);
/* Numbers: REAL or INTEGER for a scale; INTEGER (or an integral REAL) else. */
int sq_arg_double(sqlite3_value *v, const char *what, double *out, sq_status *st);
int sq_arg_int(sqlite3_value *v, const char *what, int64_t *out, sq_status *st);
/* A code blob (codes must be a BLOB). */
int sq_arg_codes(sqlite3_value *v, const char *argname, const sq_dtype *dt,
                 const void **data, size_t *nbytes, sq_status *st);
/* Per-channel or per-block parameters: `count` scales (f32 blob or JSON) and
** zero points (i32 blob or JSON), checked into ps.  `expected` explains the
** count in a mismatch ("scales has 3 entries, expected 4 (<expected>)"). */
int sq_arg_param_set(sqlite3_value *vscales, sqlite3_value *vzps, size_t count,
                     const char *unit, const char *expected, const sq_range *r,
                     int rounding, sq_param_set *ps, sq_status *st);

/* ---- layouts and the log2 scheme (quantize_functions.c, log2_functions.c) -- */

/* Arguments that describe the layout: none per tensor, (shape, axis) per
** channel, (shape, axis, block_size) per block. */
int sq_layout_args(sq_granularity_kind kind);
/* x at argv[0] and its layout at argv[first...]. */
int sq_arg_x(sq_granularity_kind kind, sqlite3_value **argv, int first,
             sq_tensor *x, sq_granularity *g, sq_status *st);
/* q at argv[0] as codes of dt and the granularity over them: per tensor
** from q's length and the optional count at argv[count_at], else from the
** layout at argv[layout_at], whose element count must match q's bytes. */
int sq_arg_codes_layout(sq_granularity_kind kind, int argc, sqlite3_value **argv,
                        int layout_at, int count_at, const sq_dtype *dt,
                        const void **codes, sq_granularity *g, sq_status *st);
/* What the parameter functions (q_scale ... q_block_zero_points, and the
** tables q_params, q_per_channel_params, q_block_params) compute from: x at
** argv[0], its layout, then dtype, scheme and options; every group's
** calibrated range, mins then maxes (2 * g.groups floats).  One function
** for both, so a table's row is the scalar functions' result by
** construction. */
typedef struct sq_param_ranges {
  sq_tensor x;
  sq_granularity g;
  const sq_dtype *dt;
  sq_range r;
  int symmetric;            /* sq_arg_scheme's value */
  float *mm;
} sq_param_ranges;
int sq_arg_param_ranges(sq_granularity_kind kind, int argc, sqlite3_value **argv,
                        sq_param_ranges *p, sq_status *st);
void sq_param_ranges_free(sq_param_ranges *p);
/* The log2 scheme's parameters for `count` ranges (docs/NUMERICS.md#
** logarithmic-log2): per tensor a REAL scale (2^emax) or INTEGER 0, else a
** float32 blob of scales or an int32 blob of zeros.  dt must be int8 or
** int4 (an error otherwise). */
void sq_result_log2_params(sqlite3_context *ctx, const float *mn,
                           const float *mx, size_t count, int per_tensor,
                           const sq_dtype *dt, int want_scale, sq_status *st);

/* ---- a model-file writer's row (file_functions.c) ------------------------ */

struct sq_file_writer;
/* A row's tensor: name, data, dtype, shape decoded from v[0..3] as every
** writer takes them (data not NULL: a NULL data row is skipped before). */
typedef struct sq_writer_row {
  const char *name, *dtype;
  const void *data;         /* never NULL ("" when empty) */
  size_t nbytes;
  sq_shape shape;
} sq_writer_row;
/* dtype_arg names the third argument in messages ("dtype", GGUF's "type");
** shape_flags: SQ_SHAPE_ZERO_DIMS where empty arrays are allowed. */
int sq_writer_row_decode(sqlite3_value **v, const char *dtype_arg,
                         unsigned shape_flags, sq_writer_row *r,
                         sq_status *st);
/* The metadata rule: given on one row (set on the writer then) or the same
** text on every row that gives it; NULL is no metadata. */
typedef struct sq_writer_meta {
  char *text;
  size_t n;
  int given;
} sq_writer_meta;
int sq_writer_meta_take(sq_writer_meta *m, struct sq_file_writer *w,
                        sqlite3_value *v, sq_status *st);
void sq_writer_meta_free(sq_writer_meta *m);

/* ---- table-valued functions (vtab.c) ------------------------------------ */

/* A cursor of a table-valued function: row i of n.  A table's own cursor
** struct starts with this one. */
typedef struct sq_cursor {
  sqlite3_vtab_cursor base;
  void *rows;               /* the computed rows, if any: sqlite3_free'd */
  size_t n, i;
} sq_cursor;

#define SQ_TABLE_MAX_ARGS 8
/* What a table-valued function is: its schema, where its HIDDEN argument
** columns start (nargs of them, the first `required` needed, else the
** error `missing`), and how its rows are made, freed and read. */
typedef struct sq_table {
  const char *name;
  const char *schema;
  int first_arg, nargs, required;
  const char *missing;
  size_t cursor_size;
  /* Prepares the rows for these arguments (none NULL) and sets c->n; on
  ** error what it made is freed: c->rows, and whatever reset (when not
  ** NULL) frees. */
  int (*compute)(sq_cursor *c, int argc, sqlite3_value **argv, sq_status *st);
  void (*reset)(sq_cursor *c);
  void (*column)(const sq_cursor *c, sqlite3_context *ctx, int col);
  sq_reach reach;           /* SQ_PATHS for the tables that read files */
} sq_table;

/* ---- registration (extension.c) -------------------------------------------- */

/* The connection an entry point registers on: whether SQ_PATHS entries are
** registered (1) or removed (0); the entry that failed and why (NULL:
** SQLite's message), for the load's error.  A name that does not outlive
** its family's registration is copied to failed_name, and failed points
** there. */
typedef struct sq_registry {
  sqlite3 *db;
  int paths;
  const char *failed, *why;
  char failed_name[48];
} sq_registry;

/* Every function and table is registered through these two, which remove
** SQ_PATHS entries instead when r->paths is 0 (tests/layers.test checks
** that no other file calls sqlite3_create_function or
** sqlite3_create_module).
** sq_create_function registers the row d (below) at its arities, &d->fn as
** the user data: d must outlive the connection's use of it (the rows are
** static). */
/* What a function does with subtypes (docs/reference/data-formats.md#subtypes): it
** reads its arguments' (SQLITE_SUBTYPE) or sets its result's
** (SQLITE_RESULT_SUBTYPE), declared in ext/catalogue.toml. */
enum { SQ_SUBTYPES_READ = 1, SQ_SUBTYPES_RESULT = 2 };
struct sq_fn_def;
int sq_create_function(sq_registry *r, const struct sq_fn_def *d);
/* sq_create_module registers module m under name with aux as its client
** data; destroy (when not NULL) is called on aux once, whatever happens:
** when SQLite drops the module, at once when the registration fails, and
** at once when the module is left out. */
int sq_create_module(sq_registry *r, sq_reach reach, const char *name,
                     const sqlite3_module *m, void *aux,
                     void (*destroy)(void *));
/* A table's xConnect declares its reach with this (the matching
** sqlite3_vtab_config). */
int sq_vtab_declare_reach(sqlite3 *db, sq_reach reach);

/* A row of a registration table: arities nmin..nmax share the callbacks of
** a scalar (xFunc), an aggregate (xStep, xFinal) or a window function (also
** xValue, xInverse).  Each family expands its rows from the catalogue
** (sql/catalogue.h, from ext/catalogue.toml) with SQ_FN_DEF, so the name,
** arities and reach are declared once:
**   static const sq_fn_def defs[] = {SQ_CATALOGUE_FUNCTIONS_F(SQ_FN_DEF)}; */
typedef struct sq_fn_def {
  sq_fn fn;
  unsigned subtypes;        /* SQ_SUBTYPES_READ | SQ_SUBTYPES_RESULT, or 0 */
  int nmin, nmax;
  void (*xFunc)(sqlite3_context *, int, sqlite3_value **);
  void (*xStep)(sqlite3_context *, int, sqlite3_value **);
  void (*xFinal)(sqlite3_context *);
  void (*xValue)(sqlite3_context *);
  void (*xInverse)(sqlite3_context *, int, sqlite3_value **);
} sq_fn_def;
#define SQ_FN_DEF(name, variant, reach, subtypes, nmin, nmax, xFunc, xStep,  \
                  xFinal, xValue, xInverse)                                  \
  {{name, variant, reach}, subtypes, nmin, nmax, xFunc, xStep, xFinal,       \
   xValue, xInverse},
int sq_register_table(sq_registry *r, const sq_fn_def *defs, size_t count);
int sq_register_table_function(sq_registry *r, const sq_table *t);

/* Each family's registration (one per file). */
int sq_register_tensor_functions(sq_registry *r);
int sq_register_quantize_functions(sq_registry *r);
int sq_register_metric_functions(sq_registry *r);
int sq_register_aggregate_functions(sq_registry *r);
int sq_register_ggml_functions(sq_registry *r);
int sq_register_file_functions(sq_registry *r);
/* The tables that write files at a path (write_tables.c): the only part of
** the extension that creates files; all SQ_PATHS, and not compiled with
** SQLITE_QUANT_OMIT_FS. */
int sq_register_file_writers(sq_registry *r);
int sq_register_log2_functions(sq_registry *r);
int sq_register_pack_functions(sq_registry *r);
int sq_register_bnb4_functions(sq_registry *r);
extern const sq_table sq_each_table, sq_each_group_table, sq_channels_table,
    sq_compare_table, sq_ggml_types_table, sq_params_table,
    sq_per_channel_params_table, sq_block_params_table;
extern const sq_table sq_tensors_table, sq_tensor_metadata_table,
    sq_tensors_file_table, sq_tensor_metadata_file_table;

#endif
