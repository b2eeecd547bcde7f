/*
** extension.c: the extension's entry point.  sqlite3_quant_init registers
** every function and table-valued function, each family from its own file;
** SQLite finds it from the file name (quant.so -> sqlite3_quant_init).  The
** kernel path is chosen here, once.
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

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_quant_init(sqlite3 *db, char **pzErrMsg,
                       const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  if (sqlite3_libversion_number() < SQ_SQLITE_MIN_NUMBER) {
    if (pzErrMsg)
      *pzErrMsg = sqlite3_mprintf("sqlite-quant: needs SQLite " SQ_SQLITE_MIN_TEXT
                                  " or later, got %s", sqlite3_libversion());
    return SQLITE_ERROR;
  }
  static const struct {
    const char *what;
    int (*reg)(sqlite3 *);
  } parts[] = {
    {"tensor functions", sq_register_tensor_functions},
    {"quantize functions", sq_register_quantize_functions},
    {"metric functions", sq_register_metric_functions},
    {"calibration aggregates", sq_register_aggregate_functions},
    {"ggml functions", sq_register_ggml_functions},
    {"file writers", sq_register_file_functions},
    /* The only part that writes files at a path (docs/FORMATS.md#file-writers). */
    {"path writers", sq_register_file_writers},
    {"log2 functions", sq_register_log2_functions},
  };
  static const sq_table *const tables[] = {&sq_each_table, &sq_channels_table,
                                           &sq_compare_table, &sq_ggml_types_table,
                                           &sq_tensors_table, &sq_tensor_metadata_table,
                                           &sq_tensors_file_table,
                                           &sq_tensor_metadata_file_table};
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
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    int rc = parts[i].reg(db);
    if (rc != SQLITE_OK) {
      if (pzErrMsg)
        *pzErrMsg = sqlite3_mprintf("sqlite-quant: cannot register %s: %s",
                                    parts[i].what, sqlite3_errstr(rc));
      return rc;
    }
  }
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    int rc = sq_register_table_function(db, tables[i]);
    if (rc != SQLITE_OK) {
      if (pzErrMsg)
        *pzErrMsg = sqlite3_mprintf("sqlite-quant: cannot register %s: %s",
                                    tables[i]->name, sqlite3_errstr(rc));
      return rc;
    }
  }
  return SQLITE_OK;
}
