/*
** sqlite_quant.h: the public interface of sqlite-quant.
**
** The extension's interface is SQL: load it (`.load quant`, or
** sqlite3_load_extension) and call its functions.  A program that links it
** statically registers it with one of the entry points declared here, e.g.
** through sqlite3_auto_extension().  Nothing else is exported: the kernels
** and the core are internal and change as formats are added
** (docs/ARCHITECTURE.md#public-interface).
**
** The two entry points:
**   sqlite3_quant_init       every function and table (SQLite's default
**                            for a file named quant.so);
**   sqlite3_quant_nofs_init  all but the ones that open files by path
**                            (q_tensors_file, q_tensor_metadata_file and
**                            the file writers), for hosts whose users must
**                            not reach the file system: a SELECT naming one
**                            fails with SQLite's "no such function" or
**                            "no such table".  Loaded on a connection that
**                            already has them, it removes them.
** Compiled with SQLITE_QUANT_OMIT_FS, the code that opens paths is left out
** and both register what sqlite3_quant_nofs_init does.  q_info()'s "files"
** says which a connection has.
*/
#ifndef SQLITE_QUANT_H
#define SQLITE_QUANT_H

#ifdef __cplusplus
extern "C" {
#endif

#define SQLITE_QUANT_VERSION "0.3.0"

/* Entry points.  Declared with plain types so this header does not need
** sqlite3ext.h; the definitions use the real ones. */
struct sqlite3;
struct sqlite3_api_routines;
int sqlite3_quant_init(struct sqlite3 *db, char **pzErrMsg,
                       const struct sqlite3_api_routines *pApi);
int sqlite3_quant_nofs_init(struct sqlite3 *db, char **pzErrMsg,
                            const struct sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif
#endif /* SQLITE_QUANT_H */
