/*
** imatrix.c: reading llama.cpp's GGUF importance matrix files
** (imatrix.h).  The file is read with the extension's GGUF reader
** (q_tensors_file, q_tensor_metadata_file), so it gets the readers'
** checks and bounds; this file only pairs each NAME.in_sum2 with its
** NAME.counts and divides.
*/
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "imatrix.h"

static float cli_le_float(const unsigned char *p) {
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
               (uint32_t)p[3] << 24;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static void cli_put_le_float(unsigned char *p, float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  p[0] = (unsigned char)u;
  p[1] = (unsigned char)(u >> 8);
  p[2] = (unsigned char)(u >> 16);
  p[3] = (unsigned char)(u >> 24);
}

static int cli_imatrix_cmp(const void *a, const void *b) {
  return strcmp(((const cli_imatrix_entry *)a)->name,
                ((const cli_imatrix_entry *)b)->name);
}

static int cli_imatrix_kept(const char *name, char **include, int ninclude,
                            char **exclude, int nexclude) {
  for (int i = 0; i < nexclude; i++)
    if (strstr(name, exclude[i])) return 0;
  if (!ninclude) return 1;
  for (int i = 0; i < ninclude; i++)
    if (strstr(name, include[i])) return 1;
  return 0;
}

static int cli_imatrix_fail(const char *command, const char *path, const char *what) {
  char *m = sqlite3_mprintf("imatrix '%s': %s", path, cli_message(what));
  int rc = cli_fail(command, m ? m : what);
  sqlite3_free(m);
  return rc;
}

static int cli_imatrix_metadata(sqlite3 *db, const char *command,
                                const char *path, cli_imatrix *m) {
  sqlite3_stmt *s = cli_prepare(
      db, command,
      "SELECT key, json_extract(value, '$'), json_extract(value, '$[0]') "
      "FROM q_tensor_metadata_file(?1, 'gguf') WHERE key IN "
      "('general.type', 'imatrix.datasets', 'imatrix.chunk_count')");
  if (!s) return CLI_FAILED;
  sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
  int rc, is_imatrix = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(s, 0);
    const char *v = (const char *)sqlite3_column_text(s, 1);
    if (!key) continue;
    if (strcmp(key, "general.type") == 0) is_imatrix = v && strcmp(v, "imatrix") == 0;
    else if (strcmp(key, "imatrix.chunk_count") == 0) m->chunk_count = sqlite3_column_int(s, 1);
    else if (strcmp(key, "imatrix.datasets") == 0 && sqlite3_column_type(s, 2) == SQLITE_TEXT)
      m->dataset = cli_dup_column(s, 2);
  }
  if (rc != SQLITE_DONE) {
    const char *e = sqlite3_errmsg(db);
    rc = strstr(e, "not a GGUF file")
             ? cli_imatrix_fail(command, path, "not a GGUF imatrix file (the legacy .dat format is not read yet)")
             : cli_imatrix_fail(command, path, e);
    sqlite3_finalize(s);
    return rc;
  }
  sqlite3_finalize(s);
  if (!is_imatrix)
    return cli_imatrix_fail(command, path, "not an imatrix file (general.type is not \"imatrix\")");
  return CLI_OK;
}

int cli_imatrix_load(sqlite3 *db, const char *command, const char *path,
                     char **include, int ninclude, char **exclude,
                     int nexclude, cli_imatrix *m) {
  memset(m, 0, sizeof *m);
  int rc = cli_imatrix_metadata(db, command, path, m);
  if (rc != CLI_OK) return rc;
  sqlite3_stmt *s = cli_prepare(
      db, command,
      "SELECT substr(s.name, 1, length(s.name) - 8), s.dtype, s.data, s.chunks, "
      "c.dtype, c.data, c.chunks FROM q_tensors_file(?1, 'gguf') AS s "
      "JOIN q_tensors_file(?1, 'gguf') AS c "
      "ON c.name = substr(s.name, 1, length(s.name) - 8) || '.counts' "
      "WHERE substr(s.name, -8) = '.in_sum2'");
  if (!s) return CLI_FAILED;
  sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
  int cap = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 0);
    if (!name) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (!cli_imatrix_kept(name, include, ninclude, exclude, nexclude)) continue;
    const char *sd = (const char *)sqlite3_column_text(s, 1);
    const char *cd = (const char *)sqlite3_column_text(s, 4);
    if (!sd || !cd || strcmp(sd, "f32") != 0 || strcmp(cd, "f32") != 0 ||
        sqlite3_column_int(s, 3) != 1 || sqlite3_column_int(s, 6) != 1) {
      char *w = sqlite3_mprintf("entry '%s': in_sum2 and counts are not float32 "
                                "tensors of one piece", name);
      rc = cli_imatrix_fail(command, path, w ? w : "out of memory");
      sqlite3_free(w);
      sqlite3_finalize(s);
      return rc;
    }
    const unsigned char *sums = sqlite3_column_blob(s, 2);
    int64_t nsums = sqlite3_column_bytes(s, 2) / 4;
    const unsigned char *counts = sqlite3_column_blob(s, 5);
    int64_t ncounts = sqlite3_column_bytes(s, 5) / 4;
    /* llama-quantize skips an entry without counts or sums. */
    if (ncounts == 0 || nsums == 0) continue;
    if (nsums % ncounts != 0) {
      char *w = sqlite3_mprintf("entry '%s': %lld sums are not a whole row for "
                                "each of %lld counts", name, (long long)nsums,
                                (long long)ncounts);
      rc = cli_imatrix_fail(command, path, w ? w : "out of memory");
      sqlite3_free(w);
      sqlite3_finalize(s);
      return rc;
    }
    if (m->n == cap) {
      cap = cap ? 2 * cap : 64;
      cli_imatrix_entry *e = sqlite3_realloc64(m->entries, (sqlite3_uint64)cap * sizeof *e);
      if (!e) {
        rc = SQLITE_NOMEM;
        break;
      }
      m->entries = e;
    }
    cli_imatrix_entry *e = &m->entries[m->n];
    e->name = sqlite3_mprintf("%s", name);
    e->values = sqlite3_malloc64((sqlite3_uint64)nsums * 4);
    e->n = nsums;
    m->n++;
    if (!e->name || !e->values) {
      rc = SQLITE_NOMEM;
      break;
    }
    int64_t ne0 = nsums / ncounts;
    for (int64_t j = 0; j < ncounts; j++) {
      float count = cli_le_float(counts + 4 * j);
      for (int64_t i = 0; i < ne0; i++) {
        int64_t k = j * ne0 + i;
        cli_put_le_float(e->values + 4 * k,
                         count > 0.0f ? cli_le_float(sums + 4 * k) / count : 1.0f);
      }
    }
  }
  if (rc == SQLITE_NOMEM) {
    sqlite3_finalize(s);
    return cli_fail(command, "out of memory");
  }
  if (rc != SQLITE_DONE) {
    rc = cli_imatrix_fail(command, path, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc;
  }
  sqlite3_finalize(s);
  if (m->n) qsort(m->entries, (size_t)m->n, sizeof *m->entries, cli_imatrix_cmp);
  return CLI_OK;
}

const cli_imatrix_entry *cli_imatrix_find(const cli_imatrix *m, const char *name) {
  if (!m->n) return NULL;
  cli_imatrix_entry key;
  key.name = (char *)name;
  return bsearch(&key, m->entries, (size_t)m->n, sizeof key, cli_imatrix_cmp);
}

void cli_imatrix_free(cli_imatrix *m) {
  for (int i = 0; i < m->n; i++) {
    sqlite3_free(m->entries[i].name);
    sqlite3_free(m->entries[i].values);
  }
  sqlite3_free(m->entries);
  sqlite3_free(m->dataset);
  memset(m, 0, sizeof *m);
}
