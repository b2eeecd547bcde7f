/*
** imatrix.h: llama.cpp's importance matrix files, as llama-quantize reads
** them (docs/CLI.md#importance-matrices).
**
** A GGUF imatrix file (general.type "imatrix") holds, for each weight
** NAME, NAME.in_sum2 (float32, one row of ne0 sums per matrix: one matrix,
** or one per expert) and NAME.counts (float32, how many activations each
** matrix saw).  The importance llama-quantize passes to ggml is sum /
** count for each column, in float32, and 1 for a matrix that saw none.
*/
#ifndef SQLITE_QUANT_CLI_IMATRIX_H
#define SQLITE_QUANT_CLI_IMATRIX_H

#include <stdint.h>
#include <sqlite3.h>

typedef struct cli_imatrix_entry {
  char *name;
  unsigned char *values;  /* n float32, little-endian, as q_ggml_quantize takes them */
  int64_t n;
} cli_imatrix_entry;

typedef struct cli_imatrix {
  cli_imatrix_entry *entries;  /* sorted by name */
  int n;
  char *dataset;               /* the first of imatrix.datasets, or NULL */
  int chunk_count;             /* imatrix.chunk_count, or 0 */
} cli_imatrix;

/* Reads path into m on db, keeping the entries whose name contains one of
** include[] (all when ninclude is 0) and none of exclude[], as
** llama-quantize's --include-weights / --exclude-weights do.  Returns
** CLI_OK, or CLI_FAILED after saying why (m then holds nothing). */
int cli_imatrix_load(sqlite3 *db, const char *command, const char *path,
                     char **include, int ninclude, char **exclude,
                     int nexclude, cli_imatrix *m);

/* The entry of name, or NULL. */
const cli_imatrix_entry *cli_imatrix_find(const cli_imatrix *m, const char *name);

void cli_imatrix_free(cli_imatrix *m);

#endif /* SQLITE_QUANT_CLI_IMATRIX_H */
