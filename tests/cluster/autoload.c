/* autoload.c: an LD_PRELOAD shim that registers sqlite-quant in every SQLite
 * connection a dqlite node opens.
 *
 * A dqlite node runs every statement inside its own process, on its own
 * libsqlite3, so the extension must be in that process; the node program
 * (go-dqlite's dqlite-demo) has no way to load one.  Registration cannot
 * happen in a constructor: sqlite3_auto_extension initializes SQLite, and
 * go-dqlite must call sqlite3_config (single-thread mode) before that, or it
 * panics.  So the shim wraps sqlite3_open_v2, which libdqlite calls through
 * the dynamic linker: on the first open it dlopens the extension named by
 * SQLITE_QUANT_AUTOLOAD and hands its entry point to sqlite3_auto_extension,
 * which calls it with the sqlite3_api_routines table for each new connection,
 * as a loadable extension expects.  A failure stops the process: a node that
 * silently lacked the extension would fail only once it became leader.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

typedef int open_v2_fn(const char *, sqlite3 **, int, const char *);

static void die(const char *what, const char *got) {
  fprintf(stderr, "autoload: %s, got %s\n", what, got);
  exit(1);
}

/* Runs once, before the first connection; dqlite opens connections from its
 * single event-loop thread. */
static void register_extension(void) {
  const char *path = getenv("SQLITE_QUANT_AUTOLOAD");
  if (path == NULL || *path == '\0')
    die("SQLITE_QUANT_AUTOLOAD must name the extension", "nothing");
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) die("cannot load the extension", dlerror());
  void *init = dlsym(lib, "sqlite3_quant_init");
  if (init == NULL) die("the extension has no sqlite3_quant_init", path);
  /* The declared type is void (*)(void); SQLite calls the entry point with
   * its real arguments (db, error message, API table). */
  int rc = sqlite3_auto_extension((void (*)(void))init);
  if (rc != SQLITE_OK) die("sqlite3_auto_extension failed", sqlite3_errstr(rc));
}

int sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs) {
  static open_v2_fn *real;
  if (real == NULL) {
    real = (open_v2_fn *)dlsym(RTLD_NEXT, "sqlite3_open_v2");
    if (real == NULL) die("no sqlite3_open_v2 to wrap", dlerror());
    register_extension();
  }
  return real(name, db, flags, vfs);
}
