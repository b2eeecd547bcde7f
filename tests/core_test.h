/*
** core_test.h: the harness shared by the C tests of the core readers
** (tests/<format>_core_test.c): pass/fail counters and their checks, a fresh
** sq_status, a whole-file loader and an allocator that fails on demand.
** Each test includes it once, from its single .c file, so everything here is
** static: no test links another's copy.  Functions are static inline so that
** a test that needs only some of them builds without unused warnings.
*/
#ifndef SQ_CORE_TEST_H
#define SQ_CORE_TEST_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/formats.h"

/* ---- checks ---- */

/* Every check counts here; main prints "N passed, N failed" from them and
** exits 1 if g_fail is not 0. */
static int g_pass, g_fail;

/* Counts one check; returns ok, so that a caller prints only on failure. */
static inline int tally(int ok) {
  if (ok) g_pass++;
  else g_fail++;
  return ok;
}

/* A failed check prints "FAIL: " and the formatted message. */
static inline void check(int ok, const char *fmt, ...) {
  if (tally(ok)) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL: ", stdout);
  vprintf(fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
}

/* As check, but a failure names the test's file and line (a macro, so that
** __LINE__ is the caller's). */
#define CHECK(cond, ...)                                               \
  do {                                                                 \
    if (!tally(!!(cond))) {                                            \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                      \
      printf(__VA_ARGS__);                                             \
      printf("\n");                                                    \
    }                                                                  \
  } while (0)

/* ---- status and files ---- */

/* A status as a host's connection would give it: no error, and a size limit
** (SQLITE_LIMIT_LENGTH's default) far above every fixture. */
static inline sq_status fresh_status(void) {
  sq_status st;
  memset(&st, 0, sizeof st);
  st.max_bytes = 1000000000;
  return st;
}

/* The file's bytes in an exact-size malloc'd buffer (so that ASan sees a
** read past the end), or NULL if it cannot be opened or read whole. */
static inline unsigned char *read_whole_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = len >= 0 ? malloc(len ? (size_t)len : 1) : NULL;
  if (!p || fread(p, 1, (size_t)len, f) != (size_t)len) {
    free(p);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return p;
}

/* read_whole_file for a fixture the test cannot run without: a missing one
** ends the run (exit status 2, as a usage error). */
static inline unsigned char *load_or_die(const char *path, size_t *n) {
  unsigned char *p = read_whole_file(path, n);
  if (!p) {
    printf("FAIL: cannot read %s\n", path);
    exit(2);
  }
  return p;
}

/* ---- files on disk (a test that defines CORE_TEST_FILES, and
** _XOPEN_SOURCE 700 before any include) ---- */
#ifdef CORE_TEST_FILES
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh directory under $TMPDIR (or /tmp); exits if none can be made. */
static inline const char *temp_dir(void) {
  static char dir[512];
  const char *t = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/sq_core_test_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(dir)) {
    printf("FAIL: cannot make a directory under %s\n", t && *t ? t : "/tmp");
    exit(2);
  }
  return dir;
}

/* path := head[0..n), then zeros up to total bytes (a sparse file: no
** disk for the zeros), its modification time set to 2020-01-01 (so a
** write now changes it, whatever the clock's tick).  0 on success. */
static inline int write_sparse(const char *path, const void *head, size_t n,
                               uint64_t total) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  int bad = (n && write(fd, head, n) != (ssize_t)n) ||
            ftruncate(fd, (off_t)total) != 0;
  struct timespec past[2] = {{1577836800, 0}, {1577836800, 0}};
  bad |= futimens(fd, past) != 0;
  bad |= close(fd) != 0;
  return bad ? -1 : 0;
}
#endif

/* ---- the index ---- */

/* A view of n bytes at p read from the file at path (NULL: a BLOB), with
** no stream: src is the caller's, as the view points at it. */
static inline sq_file_view memory_view(sq_source *src, const unsigned char *p,
                                       size_t n, const char *path) {
  sq_source_memory(src, p, n);
  src->model_path = path;
  sq_file_view v = {src, NULL};
  return v;
}

/* The scope text of tensor t ("-" for none) into buf, composed from the
** index's scope tree as sq_file_scope_text does, without allocating (so a
** test that fails allocations in turn can print it). */
static inline const char *scope_text(const sq_file_index *ix,
                                     const sq_file_tensor *t, char *buf,
                                     size_t cap) {
  if (!t->scope) return "-";
  size_t total = 0;
  for (uint32_t k = t->scope; k; k = ix->scopes[k - 1].parent)
    total += ix->scopes[k - 1].len +
             (ix->scopes[k - 1].parent && !ix->scopes[k - 1].glued);
  if (total + 1 > cap) return "(too long)";
  size_t at = total;
  buf[at] = 0;
  for (uint32_t k = t->scope; k; k = ix->scopes[k - 1].parent) {
    const sq_file_scope *s = &ix->scopes[k - 1];
    at -= s->len;
    memcpy(buf + at, s->label, s->len);
    if (s->parent && !s->glued) buf[--at] = '/';
  }
  return buf;
}

/* ---- an allocator that fails on demand ----
** The core allocates only through SQLite's allocator (core/memory.h), so a
** test fails the allocation numbered g_fail_at (from 0, counted in g_allocs
** since the test last set it to 0) to see every failure path; -1 fails none.
** Built as an extension (no SQLITE_CORE) the allocator is the sqlite3_api
** table, filled here with malloc wrappers, so such a test needs no SQLite;
** built with SQLITE_CORE it is SQLite's own, wrapped through
** sqlite3_config(SQLITE_CONFIG_MALLOC) before sqlite3_initialize. */
static long g_allocs, g_fail_at = -1;

static inline int next_alloc_fails(void) { return g_allocs++ == g_fail_at; }

#ifndef SQLITE_CORE
const sqlite3_api_routines *sqlite3_api;

static inline void *t_malloc64(sqlite3_uint64 n) {
  return next_alloc_fails() ? NULL : malloc(n);
}
static inline void *t_realloc64(void *p, sqlite3_uint64 n) {
  return next_alloc_fails() ? NULL : realloc(p, n);
}
static inline void t_free(void *p) { free(p); }

static inline void install_failing_allocator(void) {
  static sqlite3_api_routines api;
  api.malloc64 = t_malloc64;
  api.realloc64 = t_realloc64;
  api.free = t_free;
  sqlite3_api = &api;
}
#else
#include <sqlite3.h>
#include <sqlite3ext.h>
/* The objects the test links are the extension's (build/asan/, compiled
** without SQLITE_CORE): they reach the allocator through sqlite3_api, here
** SQLite's own functions, so what they allocate is what SQLite counts. */
static sqlite3_api_routines g_sqlite_allocator = {
  .malloc64 = sqlite3_malloc64,
  .realloc64 = sqlite3_realloc64,
  .free = sqlite3_free,
};
const sqlite3_api_routines *sqlite3_api = &g_sqlite_allocator;

static sqlite3_mem_methods g_real_mem;

static inline void *t_malloc(int n) {
  return next_alloc_fails() ? NULL : g_real_mem.xMalloc(n);
}
static inline void *t_realloc(void *p, int n) {
  return next_alloc_fails() ? NULL : g_real_mem.xRealloc(p, n);
}

static inline void install_failing_allocator(void) {
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &g_real_mem);
  sqlite3_mem_methods m = g_real_mem;
  m.xMalloc = t_malloc;
  m.xRealloc = t_realloc;
  sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
  sqlite3_initialize();
}
#endif

#endif
