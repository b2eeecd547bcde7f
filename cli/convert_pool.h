/*
** convert_pool.h: threads that convert the pieces of one chunk at once
** (docs/CLI.md#quantize).
**
** Each thread has its own in-memory connection with the extension (a
** connection is used by one thread at a time), and runs the same
** conversion statement on its piece: whole rows along axis 0, cut
** evenly.  The extension's conversions work row by row (a ggml block never
** spans two rows, a float cast is per element), so the pieces, put back in
** order, are the bytes one statement makes of the whole chunk, for any
** number of threads.
*/
#ifndef SQLITE_QUANT_CLI_CONVERT_POOL_H
#define SQLITE_QUANT_CLI_CONVERT_POOL_H

#include <stdint.h>
#include <sqlite3.h>

typedef struct cli_pool cli_pool;

/* A pool of n threads (n >= 2), or NULL after saying why. */
cli_pool *cli_pool_open(int n, const char *command);
void cli_pool_close(cli_pool *p);

/* Converts data (nbytes, rows rows along axis 0 of shape, a JSON shape
** whose first dimension is rows) with sql, whose parameters are ?1 the
** bytes, ?2 dtype, ?3 type, ?4 the piece's shape and ?5 the importance
** (imp, imp_bytes; the text 'none' when imp is NULL), in up to n pieces,
** and calls emit with each piece's result in order.  Returns 0; or -1
** when a piece failed (the caller converts the chunk again on its own
** connection, for the message a single statement gives), or emit's
** nonzero result. */
int cli_pool_convert(cli_pool *p, const char *sql, const void *data,
                     int nbytes, const char *dtype, const char *type,
                     const char *shape, int64_t rows, const void *imp,
                     int imp_bytes, int (*emit)(void *ctx, const void *blob, int nbytes),
                     void *ctx);

#endif /* SQLITE_QUANT_CLI_CONVERT_POOL_H */
