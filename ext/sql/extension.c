/*
** extension.c: the extension's entry points and the registration that every
** function and table goes through (docs/ARCHITECTURE.md#registration).
**
**   sqlite3_quant_init        every function and table; SQLite finds it from
**                             the file name (quant.so -> sqlite3_quant_init)
**   sqlite3_quant_nofs_init   the same less every entry that opens a path
**                             (SQ_PATHS), for hosts whose users must not
**                             reach the file system: load it by name
**
**   1. every function and table declares its reach (sq_reach in sql.h) where
**      it is declared; sq_create_function and sq_create_module derive
**      SQLite's flags from it, so an entry that opens paths is
**      SQLITE_DIRECTONLY and is left out by sqlite3_quant_nofs_init in the
**      same stroke, and an entry that declares nothing fails the load;
**   2. no other file calls sqlite3_create_function or sqlite3_create_module
**      (tests/layers.test);
**   3. with SQLITE_QUANT_OMIT_FS defined at compile time the path code is
**      not compiled at all and both entry points register what
**      sqlite3_quant_nofs_init does;
**   4. a function or table left out is SQLite's own "no such function" or
**      "no such table" when called; q_info() says whether files are
**      reachable on its connection ("files");
**   5. the kernel path is chosen here, once.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include "kernels/kernels.h"
#include "sql/sql.h"

/* The oldest SQLite the extension runs on: 3.31.0 brought SQLITE_INNOCUOUS
** and sqlite3_vtab_config's SQLITE_VTAB_INNOCUOUS and SQLITE_VTAB_DIRECTONLY.
** An older SQLite would load the extension but silently drop the last two,
** letting views, triggers and schemas reach the tables that read files.  Its
** sqlite3_api_routines is shorter, so the check comes before any newer call. */
#define SQ_SQLITE_MIN_NUMBER 3031000
#define SQ_SQLITE_MIN_TEXT "3.31.0"

/* ---- registration ------------------------------------------------------- */

/* SQLite's function flags for a reach; -1 for a reach that is neither. */
static int sq_reach_flags(sq_reach reach) {
  switch (reach) {
    case SQ_VALUES: return SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    case SQ_PATHS: return SQLITE_UTF8 | SQLITE_DIRECTONLY;
  }
  return -1;
}

/* The subtype flags (docs/reference/data-formats.md#subtypes).
** SQLITE_SUBTYPE (3.30) says a function reads its arguments' subtypes;
** SQLITE_RESULT_SUBTYPE (3.45) that it sets its result's, so the planner
** keeps the call where the subtype reaches its consumer (it would otherwise
** evaluate a call with constant arguments once, into a register that loses
** the subtype).  The extension may be built with headers older than the
** SQLite it runs on, so a missing flag gets SQLite's own value: every
** SQLite masks the flags it does not know (sqlite3CreateFunc). */
#ifndef SQLITE_SUBTYPE
#define SQLITE_SUBTYPE 0x000100000
#endif
#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif
static int sq_subtype_flags(unsigned subtypes) {
  return (subtypes & SQ_SUBTYPES_READ ? SQLITE_SUBTYPE : 0) |
         (subtypes & SQ_SUBTYPES_RESULT ? SQLITE_RESULT_SUBTYPE : 0);
}

/* A reach that is neither SQ_VALUES nor SQ_PATHS stops the load. */
static int sq_reach_unknown(sq_registry *r, const char *name) {
  r->failed = name;
  r->why = "it declares no reach (SQ_VALUES or SQ_PATHS)";
  return SQLITE_MISUSE;
}

int sq_create_function(sq_registry *r, const sq_fn_def *d) {
  const sq_fn *fn = &d->fn;
  int flags = sq_reach_flags(fn->reach);
  if (flags < 0) return sq_reach_unknown(r, fn->name);
  flags |= sq_subtype_flags(d->subtypes);
  /* Left out: all callbacks NULL deletes the function, in case
  ** sqlite3_quant_init registered it on this connection before. */
  int drop = fn->reach == SQ_PATHS && !r->paths;
  for (int n = d->nmin; n <= d->nmax; n++) {
    int rc = drop ? sqlite3_create_function(r->db, fn->name, n, flags, NULL,
                                            NULL, NULL, NULL)
           : d->xValue ? sqlite3_create_window_function(
                             r->db, fn->name, n, flags, (void *)fn, d->xStep,
                             d->xFinal, d->xValue, d->xInverse, NULL)
                       : sqlite3_create_function(r->db, fn->name, n, flags,
                                                 (void *)fn, d->xFunc,
                                                 d->xStep, d->xFinal);
    if (rc != SQLITE_OK) {
      r->failed = fn->name;
      return rc;
    }
  }
  return SQLITE_OK;
}

int sq_create_module(sq_registry *r, sq_reach reach, const char *name,
                     const sqlite3_module *m, void *aux,
                     void (*destroy)(void *)) {
  if (sq_reach_flags(reach) < 0) {
    if (destroy) destroy(aux);
    return sq_reach_unknown(r, name);
  }
  /* Left out: a NULL module removes one registered before; aux is not
  ** handed to SQLite then, so it is released here. */
  int drop = reach == SQ_PATHS && !r->paths;
  int rc = sqlite3_create_module_v2(r->db, name, drop ? NULL : m,
                                    drop ? NULL : aux, drop ? NULL : destroy);
  if (drop && destroy) destroy(aux);
  if (rc != SQLITE_OK) r->failed = name;
  return rc;
}

int sq_vtab_declare_reach(sqlite3 *db, sq_reach reach) {
  return sqlite3_vtab_config(db, reach == SQ_VALUES ? SQLITE_VTAB_INNOCUOUS
                                                    : SQLITE_VTAB_DIRECTONLY);
}

int sq_register_table(sq_registry *r, const sq_fn_def *defs, size_t count) {
  for (size_t i = 0; i < count; i++) {
    int rc = sq_create_function(r, &defs[i]);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* ---- the entry points ------------------------------------------------------ */

#ifdef SQLITE_QUANT_OMIT_FS
#define SQ_PATHS_COMPILED 0
#else
#define SQ_PATHS_COMPILED 1
#endif

static int sq_load(sqlite3 *db, char **pzErrMsg,
                   const sqlite3_api_routines *pApi, int paths) {
  SQLITE_EXTENSION_INIT2(pApi);
  if (sqlite3_libversion_number() < SQ_SQLITE_MIN_NUMBER) {
    if (pzErrMsg)
      *pzErrMsg = sqlite3_mprintf("sqlite-quant: needs SQLite " SQ_SQLITE_MIN_TEXT
                                  " or later, got %s", sqlite3_libversion());
    return SQLITE_ERROR;
  }
  static int (*const families[])(sq_registry *) = {
    sq_register_tensor_functions, sq_register_quantize_functions,
    sq_register_metric_functions, sq_register_aggregate_functions,
    sq_register_ggml_functions,   sq_register_file_functions,
    sq_register_log2_functions,   sq_register_pack_functions,
    sq_register_bnb4_functions,
#ifndef SQLITE_QUANT_OMIT_FS
    /* The only part that writes files at a path
    ** (docs/FORMATS.md#file-writers). */
    sq_register_file_writers,
#endif
  };
  /* The table-valued functions, in the catalogue's order (sql/catalogue.h). */
#define SQ_TABLE_ENTRY(table) &table,
  static const sq_table *const tables[] = {
    SQ_CATALOGUE_TABLES_VALUES(SQ_TABLE_ENTRY)
#ifndef SQLITE_QUANT_OMIT_FS
    SQ_CATALOGUE_TABLES_PATHS(SQ_TABLE_ENTRY)
#endif
  };
#undef SQ_TABLE_ENTRY
  const char *bad = sq_kernels_bad_request();
  if (bad) {
    if (pzErrMsg) {
      sqlite3_str *s = sqlite3_str_new(db);
      sqlite3_str_appendf(s, "sqlite-quant: SQLITE_QUANT_KERNEL='%.40s' is not "
                             "a kernel path (expected one of ", bad);
      const char *const *names = sq_kernels_known();
      for (int i = 0; names[i]; i++)
        sqlite3_str_appendf(s, "%s%s", i ? ", " : "", names[i]);
      sqlite3_str_appendall(s, ")");
      *pzErrMsg = sqlite3_str_finish(s);
    }
    return SQLITE_ERROR;
  }
  (void)sq_kernels_active();
  sq_registry r = {db, paths && SQ_PATHS_COMPILED, NULL, NULL, ""};
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof families / sizeof *families;
       i++)
    rc = families[i](&r);
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof tables / sizeof *tables; i++)
    rc = sq_register_table_function(&r, tables[i]);
  if (rc != SQLITE_OK && pzErrMsg)
    *pzErrMsg = sqlite3_mprintf("sqlite-quant: cannot register %s: %s",
                                r.failed ? r.failed : "a function",
                                r.why ? r.why : sqlite3_errmsg(db));
  return rc;
}

#ifdef _WIN32
#define SQ_EXPORT __declspec(dllexport)
#else
#define SQ_EXPORT __attribute__((visibility("default")))
#endif

SQ_EXPORT int sqlite3_quant_init(sqlite3 *db, char **pzErrMsg,
                                 const sqlite3_api_routines *pApi) {
  return sq_load(db, pzErrMsg, pApi, 1);
}

SQ_EXPORT int sqlite3_quant_nofs_init(sqlite3 *db, char **pzErrMsg,
                                      const sqlite3_api_routines *pApi) {
  return sq_load(db, pzErrMsg, pApi, 0);
}
