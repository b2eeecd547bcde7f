/*
** memory.h: the SQLite API, for the one part of it the core layer uses: the
** allocator (sqlite3_malloc64, sqlite3_realloc64, sqlite3_free), so that a
** host's sqlite3_config(SQLITE_CONFIG_MALLOC), its memory limits and
** SQLite's accounting see every byte the extension holds.  tests/layers.test
** checks that core files call nothing else of SQLite; the SQL layer includes
** this header for the whole API.
*/
#ifndef SQ_MEMORY_H
#define SQ_MEMORY_H
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif
