/*
** quant.c: the extension's entry point.  sqlite3_quant_init registers every
** function and table-valued function; SQLite finds it from the file name
** (quant.so -> sqlite3_quant_init).  The kernel path is chosen here, once.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include "sql.h"

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_quant_init(sqlite3 *db, char **pzErrMsg,
                       const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  static const struct {
    const char *what;
    int (*reg)(sqlite3 *);
  } parts[] = {
    {"tensor functions", sq_register_tensor_functions},
    {"per-tensor functions", sq_register_per_tensor_functions},
    {"per-channel functions", sq_register_per_channel_functions},
    {"per-block functions", sq_register_per_block_functions},
    {"metric functions", sq_register_metric_functions},
    {"calibration aggregates", sq_register_observer_functions},
    {"q_each", sq_register_each},
    {"q_channels", sq_register_channels},
    {"q_compare", sq_register_compare},
  };
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
  return SQLITE_OK;
}
