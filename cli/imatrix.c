/*
** imatrix.c: reading llama.cpp's GGUF importance matrix files
** (imatrix.h).  A GGUF file is read with the extension's GGUF reader
** (q_tensors_file, q_tensor_metadata_file), so it gets the readers'
** checks and bounds; this file only pairs each NAME.in_sum2 with its
** NAME.counts and divides.  The legacy format (imatrix.dat, before GGUF)
** is read here: opened without blocking, a regular file only, every
** length checked against the bytes left before it is used.
**
**   int32 n; n times { int32 len; name[len]; int32 ncall; int32 nval;
**   float32 values[nval] }; then, optionally, int32 chunks and
**   { int32 len; dataset[len] }; all little-endian.  The importance is
**   values / ncall (the file holds mean x ncall), or values when ncall is 0.
*/
#define _POSIX_C_SOURCE 200809L /* pread */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "imatrix.h"

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
    rc = cli_imatrix_fail(command, path, e);
    sqlite3_finalize(s);
    return rc;
  }
  sqlite3_finalize(s);
  if (!is_imatrix)
    return cli_imatrix_fail(command, path, "not an imatrix file (general.type is not \"imatrix\")");
  return CLI_OK;
}

/* The legacy reader's cursor over the file. */
typedef struct cli_dat {
  int fd;
  int64_t size, pos;
} cli_dat;

static int cli_dat_read(cli_dat *d, void *buf, int64_t n) {
  if (n < 0 || n > d->size - d->pos) return 0;
  for (int64_t done = 0; done < n;) {
    ssize_t k = pread(d->fd, (char *)buf + done, (size_t)(n - done), (off_t)(d->pos + done));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return 0;
    done += k;
  }
  d->pos += n;
  return 1;
}

static int cli_dat_int(cli_dat *d, int32_t *v) {
  unsigned char b[4];
  if (!cli_dat_read(d, b, 4)) return 0;
  *v = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24);
  return 1;
}

static int cli_imatrix_load_dat(const char *command, const char *path, int fd,
                                int64_t size, char **include, int ninclude,
                                char **exclude, int nexclude, cli_imatrix *m) {
  cli_dat d = {fd, size, 0};
  int32_t n;
  const char *what = NULL;
  char *name = NULL;
  unsigned char *values = NULL;
  if (!cli_dat_int(&d, &n) || n < 0 || (int64_t)n * 16 > size)
    return cli_imatrix_fail(command, path, "not an imatrix file (neither GGUF nor "
                            "the legacy format: a bad entry count)");
  m->entries = n ? sqlite3_malloc64((sqlite3_uint64)n * sizeof *m->entries) : NULL;
  if (n && !m->entries) return cli_fail(command, "out of memory");
  for (int32_t i = 0; i < n; i++) {
    int32_t len, ncall, nval;
    if (!cli_dat_int(&d, &len) || len <= 0 || len > d.size - d.pos) {
      what = "an entry's name is cut short";
      break;
    }
    if (!(name = sqlite3_malloc(len + 1))) {
      what = "out of memory";
      break;
    }
    if (!cli_dat_read(&d, name, len) || memchr(name, 0, (size_t)len)) {
      what = "an entry's name is cut short or holds a NUL";
      break;
    }
    name[len] = 0;
    if (!cli_dat_int(&d, &ncall) || !cli_dat_int(&d, &nval) || ncall < 0 || nval <= 0 ||
        (int64_t)nval * 4 > d.size - d.pos) {
      what = "an entry's counts or values are cut short";
      break;
    }
    if (!(values = sqlite3_malloc64((sqlite3_uint64)nval * 4))) {
      what = "out of memory";
      break;
    }
    if (!cli_dat_read(&d, values, (int64_t)nval * 4)) {
      what = "an entry's values are cut short";
      break;
    }
    if (!cli_imatrix_kept(name, include, ninclude, exclude, nexclude)) {
      sqlite3_free(name);
      sqlite3_free(values);
      name = NULL;
      values = NULL;
      continue;
    }
    if (ncall > 0)
      for (int32_t k = 0; k < nval; k++)
        cli_put_le_float(values + 4 * k, cli_le_f32(values + 4 * k) / (float)ncall);
    cli_imatrix_entry *e = &m->entries[m->n++];
    e->name = name;
    e->values = values;
    e->n = nval;
    name = NULL;
    values = NULL;
  }
  sqlite3_free(name);
  sqlite3_free(values);
  if (what && strcmp(what, "out of memory") == 0) return cli_fail(command, what);
  if (what) return cli_imatrix_fail(command, path, what);
  /* The optional tail: the chunk count, then the dataset's name. */
  int32_t chunks, len;
  if (cli_dat_int(&d, &chunks)) {
    m->chunk_count = chunks > 0 ? chunks : 0;
    if (cli_dat_int(&d, &len) && len > 0 && len <= d.size - d.pos &&
        (m->dataset = sqlite3_malloc(len + 1)) != NULL) {
      if (cli_dat_read(&d, m->dataset, len)) m->dataset[len] = 0;
      else {
        sqlite3_free(m->dataset);
        m->dataset = NULL;
      }
    }
  }
  if (m->n) qsort(m->entries, (size_t)m->n, sizeof *m->entries, cli_imatrix_cmp);
  return CLI_OK;
}

/* GGUF or legacy: the first four bytes say.  The file is opened without
** blocking and must be a regular file, as the extension's readers do. */
static int cli_imatrix_kind(const char *command, const char *path, int *fd,
                            int64_t *size, int *gguf) {
  *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) {
    char *w = sqlite3_mprintf("cannot open it: %s", strerror(errno));
    int rc = cli_imatrix_fail(command, path, w ? w : "cannot open it");
    sqlite3_free(w);
    return rc;
  }
  struct stat st;
  unsigned char magic[4];
  if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(*fd);
    *fd = -1;
    return cli_imatrix_fail(command, path, "not a regular file");
  }
  *size = (int64_t)st.st_size;
  *gguf = pread(*fd, magic, 4, 0) == 4 && memcmp(magic, "GGUF", 4) == 0;
  return CLI_OK;
}

static int cli_imatrix_read(sqlite3 *db, const char *command, const char *path,
                            char **include, int ninclude, char **exclude,
                            int nexclude, cli_imatrix *m);

int cli_imatrix_load(sqlite3 *db, const char *command, const char *path,
                     char **include, int ninclude, char **exclude,
                     int nexclude, cli_imatrix *m) {
  memset(m, 0, sizeof *m);
  int rc = cli_imatrix_read(db, command, path, include, ninclude, exclude,
                            nexclude, m);
  /* A failure leaves nothing to free (the entries read before it were). */
  if (rc != CLI_OK) cli_imatrix_free(m);
  return rc;
}

static int cli_imatrix_read(sqlite3 *db, const char *command, const char *path,
                            char **include, int ninclude, char **exclude,
                            int nexclude, cli_imatrix *m) {
  int fd = -1, gguf = 0;
  int64_t size = 0;
  int rc = cli_imatrix_kind(command, path, &fd, &size, &gguf);
  if (rc != CLI_OK) return rc;
  if (!gguf) {
    rc = cli_imatrix_load_dat(command, path, fd, size, include, ninclude, exclude,
                              nexclude, m);
    close(fd);
    return rc;
  }
  close(fd);
  rc = cli_imatrix_metadata(db, command, path, m);
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
      float count = cli_le_f32(counts + 4 * j);
      for (int64_t i = 0; i < ne0; i++) {
        int64_t k = j * ne0 + i;
        cli_put_le_float(e->values + 4 * k,
                         count > 0.0f ? cli_le_f32(sums + 4 * k) / count : 1.0f);
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
