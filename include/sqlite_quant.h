/*
** sqlite_quant.h: the public interface of sqlite-quant.
**
** The extension's interface is SQL: load it (`.load quant`, or
** sqlite3_load_extension) and call its functions.  A program that links it
** statically registers it with sqlite3_quant_init(), declared here, e.g.
** through sqlite3_auto_extension().  Nothing else is exported: the kernels
** and the core are internal and change as formats are added
** (docs/ARCHITECTURE.md#public-interface).
*/
#ifndef SQLITE_QUANT_H
#define SQLITE_QUANT_H

#ifdef __cplusplus
extern "C" {
#endif

#define SQLITE_QUANT_VERSION "0.3.0"

/* Entry point.  Declared with plain types so this header does not need
** sqlite3ext.h; the definition uses the real ones. */
struct sqlite3;
struct sqlite3_api_routines;
int sqlite3_quant_init(struct sqlite3 *db, char **pzErrMsg,
                       const struct sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif
#endif /* SQLITE_QUANT_H */
