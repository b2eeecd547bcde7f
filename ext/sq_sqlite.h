/* sq_sqlite.h: the SQLite extension API for every file but quant.c, which
** owns the sqlite3_api pointer (SQLITE_EXTENSION_INIT1). */
#ifndef SQ_SQLITE_H
#define SQ_SQLITE_H
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif
