/*
** sqlhost: a small C program that hosts the extension the way an application
** would (system libsqlite3, sqlite3_load_extension) and runs a catalog of SQL
** statements through it.
**
**   sqlhost EXT QUERIES           print a canonical transcript of every query
**   sqlhost --locale EXT QUERIES  the same, in the locale of the environment,
**                                 which must use ',' as its decimal point
**   sqlhost --oom EXT QUERIES     fail each allocation of each query in turn
**
** The transcript must be byte-identical across hosts (x86-64 and s390x under
** qemu) and locales, so nothing in it goes through the C library's locale- or
** platform-dependent number formatting: a REAL is printed as the hex digits of
** its IEEE-754 bit pattern, not with %g.
**
** QUERIES holds one statement per entry; an entry ends at a line ending in
** ';' once the text so far is a complete statement (sqlite3_complete), so a
** ';' inside a string literal does not cut it short.  Lines starting with
** "--" are comments and are dropped.
*/
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The statement every fault run is followed by: proves that the connection
** (and the extension's state in it) still works after the failure. */
static const char sanity_sql[] = "SELECT hex(quantize_blob('[1,-2]',1,0))";
static const char sanity_want[] = "row: text:01FE\n";

/* A hang under a failed allocation must fail the test, not stall it. */
enum { QUERY_TIME_LIMIT = 60 };

/* Detailed reports per query; later failures of the same query get one line. */
enum { DETAILED_FAILURES = 3, LISTED_FAILURES = 20 };

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("sqlhost: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

/* ------------------------------------------------------------------------ */
/* Growable text.  It lives on the C library's heap, never SQLite's, so the
** harness's own bookkeeping is untouched by the failures it injects. */

typedef struct {
  char *p;
  size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) die("out of memory in the harness itself");
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* Only integer conversions are used with this, which no locale changes. */
static void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (len < 0 || (size_t)len >= sizeof tmp) die("internal: formatted text too long");
  sb_put(b, tmp, (size_t)len);
}

static void sb_free(sbuf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

/* Text as it is, except what would break the one-line-per-row layout or
** make it ambiguous: control bytes, the backslash that escapes them, and in
** a row's cells '|', which separates columns. */
static void sb_escaped(sbuf *b, const unsigned char *s, size_t n, int cell) {
  for (size_t i = 0; i < n; i++) {
    unsigned c = s[i];
    if (c == '\\') sb_puts(b, "\\\\");
    else if (c == '\n') sb_puts(b, "\\n");
    else if (c == '\t') sb_puts(b, "\\t");
    else if (c == '\r') sb_puts(b, "\\r");
    else if (c < 0x20 || c == 0x7f || (cell && c == '|')) sb_printf(b, "\\x%02X", c);
    else sb_put(b, (const char *)&s[i], 1);
  }
}

static void sb_hex(sbuf *b, const unsigned char *s, size_t n) {
  static const char digits[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    char h[2] = {digits[s[i] >> 4], digits[s[i] & 15]};
    sb_put(b, h, 2);
  }
}

/* ------------------------------------------------------------------------ */
/* The catalog. */

typedef struct {
  char *sql;
  int line; /* where the entry starts in the file, for reports */
} entry;

typedef struct {
  entry *e;
  int n;
} catalog;

static int is_blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
  return 1;
}

static catalog read_catalog(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open %s: %s", path, strerror(errno));
  sbuf all = {0};
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) sb_put(&all, chunk, got);
  if (ferror(f)) die("cannot read %s", path);
  fclose(f);

  catalog c = {0};
  int cap = 0;
  sbuf cur = {0};
  int start = 0, lineno = 0;
  const char *p = all.p ? all.p : "";
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    lineno++;
    size_t lead = 0;
    while (lead < len && (p[lead] == ' ' || p[lead] == '\t')) lead++;
    int comment = len - lead >= 2 && p[lead] == '-' && p[lead + 1] == '-';
    if (!comment && !(cur.n == 0 && is_blank(p, len))) {
      if (cur.n == 0) start = lineno;
      sb_put(&cur, p, len);
      sb_put(&cur, "\n", 1);
      size_t end = len;
      while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t' || p[end - 1] == '\r')) end--;
      if (end > 0 && p[end - 1] == ';' && sqlite3_complete(cur.p)) {
        if (c.n == cap) {
          cap = cap ? cap * 2 : 64;
          c.e = realloc(c.e, (size_t)cap * sizeof *c.e);
          if (!c.e) die("out of memory reading the catalog");
        }
        c.e[c.n].sql = cur.p;
        c.e[c.n].line = start;
        c.n++;
        cur = (sbuf){0};
      }
    }
    p += len + (nl != NULL);
  }
  if (cur.n) die("%s: the entry starting at line %d does not end with ';'", path, start);
  if (c.n == 0) die("%s: no statements", path);
  sb_free(&all);
  return c;
}

static void free_catalog(catalog *c) {
  for (int i = 0; i < c->n; i++) free(c->e[i].sql);
  free(c->e);
  c->e = NULL;
  c->n = 0;
}

/* The entry on one line, for headers and reports (layout only: the query
** itself runs as written). */
static void sb_flat(sbuf *b, const char *sql) {
  int space = 0, any = 0;
  for (const char *s = sql; *s; s++) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
      space = 1;
      continue;
    }
    if (space && any) sb_put(b, " ", 1);
    space = 0;
    any = 1;
    sb_escaped(b, (const unsigned char *)s, 1, 0);
  }
}

/* ------------------------------------------------------------------------ */
/* Running one entry. */

typedef struct {
  sbuf out;      /* the transcript lines */
  int err;       /* extended code of the error that ended the entry, 0 if none */
  size_t err_at; /* offset of the error line in out */
} result;

static void result_free(result *r) { sb_free(&r->out); }

static void emit_error(sqlite3 *db, result *r) {
  r->err = sqlite3_extended_errcode(db);
  r->err_at = r->out.n;
  const char *msg = sqlite3_errmsg(db);
  sb_puts(&r->out, "error: ");
  sb_escaped(&r->out, (const unsigned char *)msg, strlen(msg), 0);
  sb_printf(&r->out, " (code %d)\n", r->err);
}

/* Appends one row.  Returns 0, or -1 when reading a value failed (which only
** an allocation failure can cause): the connection holds the error, and the
** partial row is taken back. */
static int emit_row(sqlite3 *db, sqlite3_stmt *st, result *r) {
  int n = sqlite3_column_count(st);
  size_t start = r->out.n;
  sb_puts(&r->out, "row: ");
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(&r->out, " | ");
    switch (sqlite3_column_type(st, i)) {
      case SQLITE_NULL:
        sb_puts(&r->out, "null");
        break;
      case SQLITE_INTEGER:
        sb_printf(&r->out, "int:%lld", (long long)sqlite3_column_int64(st, i));
        break;
      case SQLITE_FLOAT: {
        double d = sqlite3_column_double(st, i);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        sb_printf(&r->out, "real:%016llX", (unsigned long long)bits);
        break;
      }
      case SQLITE_TEXT: {
        const unsigned char *t = sqlite3_column_text(st, i);
        if (!t && sqlite3_errcode(db) == SQLITE_NOMEM) goto failed;
        sb_puts(&r->out, "text:");
        sb_escaped(&r->out, t ? t : (const unsigned char *)"", (size_t)sqlite3_column_bytes(st, i), 1);
        break;
      }
      default: {
        const void *blob = sqlite3_column_blob(st, i);
        int bytes = sqlite3_column_bytes(st, i);
        if (!blob && bytes > 0) goto failed;
        sb_puts(&r->out, "blob:");
        sb_hex(&r->out, blob, (size_t)bytes);
        break;
      }
    }
  }
  sb_puts(&r->out, "\n");
  return 0;
failed:
  r->out.n = start;
  r->out.p[start] = 0;
  return -1;
}

/* Runs every statement of sql, rows and a final error into the transcript. */
/* An entry that begins with the comment LIMIT_LENGTH N runs under
** SQLITE_LIMIT_LENGTH N (tensors bigger than a BLOB come out in chunks,
** docs/FORMATS.md#tensors-bigger-than-a-blob), then the limit is put back. */
#define LIMIT_LENGTH "/* limit length "
static result run_sql_limited(sqlite3 *db, const char *sql);

/* An entry may open a transaction (the path writers' entries do), and one
** that fails half-way leaves it open: it is rolled back after the entry, so
** that every run of an entry starts outside a transaction. */
static void end_transaction(sqlite3 *db) {
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

static result run_sql(sqlite3 *db, const char *sql) {
  if (strncmp(sql, LIMIT_LENGTH, strlen(LIMIT_LENGTH)) == 0) {
    int n = atoi(sql + strlen(LIMIT_LENGTH));
    int old = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, n);
    result r = run_sql_limited(db, sql);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, old);
    return r;
  }
  return run_sql_limited(db, sql);
}

static result run_sql_limited(sqlite3 *db, const char *sql) {
  result r = {0};
  const char *tail = sql;
  while (tail && *tail) {
    sqlite3_stmt *st = NULL;
    const char *next = NULL;
    if (sqlite3_prepare_v2(db, tail, -1, &st, &next) != SQLITE_OK) {
      emit_error(db, &r);
      break;
    }
    if (!st) { /* only whitespace or a comment was left */
      tail = next;
      continue;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      if (emit_row(db, st, &r)) break;
    if (rc != SQLITE_DONE) {
      emit_error(db, &r);
      sqlite3_finalize(st);
      break;
    }
    sqlite3_finalize(st);
    tail = next;
  }
  if (!r.out.p) sb_puts(&r.out, "");
  return r;
}

static sqlite3 *open_db(const char *ext) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
    die("cannot open an in-memory database: %s", db ? sqlite3_errmsg(db) : "out of memory");
  /* The C-API-only switch: SQL's load_extension() stays disabled. */
  if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int *)NULL) != SQLITE_OK)
    die("cannot enable extension loading: %s", sqlite3_errmsg(db));
  char *err = NULL;
  if (sqlite3_load_extension(db, ext, NULL, &err) != SQLITE_OK)
    die("cannot load %s: %s", ext, err ? err : sqlite3_errmsg(db));
  return db;
}

static void close_db(sqlite3 *db) {
  int rc = sqlite3_close(db);
  if (rc != SQLITE_OK) die("sqlite3_close failed (%d): a statement was left unfinalized", rc);
}

/* Keeps the extension mapped after the last connection closes, so that a
** sanitizer report printed at exit (a leak) can name its functions.
** SQLite's own dlopen of the same path then shares this mapping. */
static void pin_extension(const char *ext) {
  if (!dlopen(ext, RTLD_NOW | RTLD_NODELETE)) {
    const char *e = dlerror();
    die("cannot load %s: %s", ext, e ? e : "unknown error");
  }
}

/* ------------------------------------------------------------------------ */
/* Transcript mode (plain and --locale). */

static void header(sbuf *b, int i, const entry *e) {
  sb_printf(b, "## %d (line %d) ", i + 1, e->line);
  sb_flat(b, e->sql);
  sb_puts(b, "\n");
}

static int transcript(const char *ext, const catalog *c) {
  sqlite3 *db = open_db(ext);
  for (int i = 0; i < c->n; i++) {
    sbuf h = {0};
    header(&h, i, &c->e[i]);
    result r = run_sql(db, c->e[i].sql);
    end_transaction(db);
    fwrite(h.p, 1, h.n, stdout);
    fwrite(r.out.p, 1, r.out.n, stdout);
    sb_free(&h);
    result_free(&r);
  }
  close_db(db);
  return fflush(stdout) == 0 ? 0 : 1;
}

static int check_locale(void) {
  const char *name = setlocale(LC_ALL, "");
  if (!name) {
    fprintf(stderr, "sqlhost --locale: the locale named by the environment "
                    "(LC_ALL=%s) is not installed (locale -a lists those that are)\n",
            getenv("LC_ALL") ? getenv("LC_ALL") : "");
    return 2;
  }
  const char *dp = localeconv()->decimal_point;
  if (strcmp(dp, ",") != 0) {
    fprintf(stderr, "sqlhost --locale: locale '%s' has decimal point '%s'; the test "
                    "means nothing unless it is ',' (run with LC_ALL=de_DE.UTF-8)\n",
            name, dp);
    return 2;
  }
  fprintf(stderr, "sqlhost --locale: running in locale '%s' (decimal point ',')\n", name);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* --oom: a wrapper around SQLite's default allocator that fails exactly the
** k-th allocation (malloc or realloc) after it is armed, and only that one,
** and counts live blocks so that a run that leaks can be named. */

static sqlite3_mem_methods base_mem;
static struct {
  int armed, fired;
  long long target, seen;
  long long live; /* blocks handed out and not yet freed */
} fault;

static int fault_now(void) {
  if (!fault.armed || ++fault.seen != fault.target) return 0;
  fault.fired = 1;
  return 1;
}

static void *fault_malloc(int n) {
  if (fault_now()) return NULL;
  void *p = base_mem.xMalloc(n);
  if (p) fault.live++;
  return p;
}

static void fault_free(void *p) {
  if (p) fault.live--;
  base_mem.xFree(p);
}

static void *fault_realloc(void *p, int n) {
  if (fault_now()) return NULL; /* p stays valid, as realloc promises */
  return base_mem.xRealloc(p, n);
}

static int fault_size(void *p) { return base_mem.xSize(p); }
static int fault_roundup(int n) { return base_mem.xRoundup(n); }
static int fault_init(void *a) { return base_mem.xInit(a); }
static void fault_shutdown(void *a) { base_mem.xShutdown(a); }

static void install_fault_allocator(void) {
  if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base_mem) != SQLITE_OK)
    die("sqlite3_config(SQLITE_CONFIG_GETMALLOC) failed");
  static sqlite3_mem_methods m;
  m = base_mem;
  m.xMalloc = fault_malloc;
  m.xFree = fault_free;
  m.xRealloc = fault_realloc;
  m.xSize = fault_size;
  m.xRoundup = fault_roundup;
  m.xInit = fault_init;
  m.xShutdown = fault_shutdown;
  if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
    die("sqlite3_config(SQLITE_CONFIG_MALLOC) failed (was SQLite initialized already?)");
  /* Without lookaside every allocation SQLite makes for a statement, including
  ** its copies of the extension's results, goes through the allocator and
  ** can be failed; with it, small ones would never fail. */
  if (sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0) != SQLITE_OK)
    die("sqlite3_config(SQLITE_CONFIG_LOOKASIDE) failed");
  if (sqlite3_initialize() != SQLITE_OK) die("sqlite3_initialize failed");
}

static void print_indented(const char *label, const char *text) {
  const char *p = text;
  if (!*p) {
    printf("  %-9s (nothing)\n", label);
    return;
  }
  int first = 1;
  while (*p) {
    const char *nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    printf("  %-9s %.*s\n", first ? label : "", len, p);
    first = 0;
    p += len + (nl != NULL);
  }
}

/* Does r show an acceptable outcome of a run whose allocation failed: the
** unfailed transcript, or the rows it had so far and then SQLITE_NOMEM? */
static const char *judge(const result *r, const result *want) {
  if (r->out.n == want->out.n && memcmp(r->out.p, want->out.p, r->out.n) == 0) return NULL;
  if (!r->err) return "no error, but not the unfailed transcript";
  if (r->err != SQLITE_NOMEM) return "an error other than SQLITE_NOMEM";
  if (r->err_at > want->out.n || memcmp(r->out.p, want->out.p, r->err_at) != 0)
    return "SQLITE_NOMEM, but the rows before it differ from the unfailed transcript";
  return NULL;
}

/* One fault run: fail allocation k of sql, counted from the start of the
** run; reports whether any allocation was failed. */
static result fault_run(sqlite3 *db, const char *sql, long long k, int *fired) {
  fault.seen = 0;
  fault.fired = 0;
  fault.target = k;
  fault.armed = 1;
  result r = run_sql(db, sql);
  fault.armed = 0;
  *fired = fault.fired;
  end_transaction(db);
  return r;
}

/* Closing a connection frees every block SQLite allocated for it, so blocks
** still live after the close were allocated and dropped by the extension.
** This finds the fault runs that dropped them: each k again on a connection
** of its own, prepared as the first fault run's was (one unfailed run). */
static int hunt_leaks(const char *ext, const entry *e, int i, long long runs,
                      const unsigned char *failed_k, int fd) {
  int found = 0;
  if (write(fd, "H", 1) != 1) exit(1);
  for (long long k = 1; k <= runs; k++) {
    long long base = fault.live;
    sqlite3 *db = open_db(ext);
    result r = run_sql(db, e->sql);
    end_transaction(db);
    result_free(&r);
    int fired;
    r = fault_run(db, e->sql, k, &fired);
    close_db(db);
    long long leaked = fault.live - base;
    if (leaked > 0) {
      found++;
      if (found <= DETAILED_FAILURES + LISTED_FAILURES) {
        printf("FAILED oom #%d (line %d) k=%lld: %lld block(s) from sqlite3_malloc never "
               "freed (a leak; still live after sqlite3_close)\n", i + 1, e->line, k, leaked);
        if (found <= DETAILED_FAILURES) {
          sbuf flat = {0};
          sb_flat(&flat, e->sql);
          print_indented("query:", flat.p);
          print_indented("got:", r.out.p);
          sb_free(&flat);
        }
      }
      /* a run that already failed for another reason is counted once */
      if (!failed_k[k] && write(fd, "L", 1) != 1) exit(1);
    }
    result_free(&r);
  }
  return found;
}

/* The child's side: runs every fault of query i, reporting each fault run
** to the parent through fd as one byte ('P' passed, 'F' failed), after 'S'
** once the unfailed run is done and 'D' when the query is finished.  A leak
** found afterwards turns a passed run into a failed one ('L'), or adds a
** failure when no single run can be blamed ('X'). */
static void oom_query(const char *ext, const catalog *c, int i, int fd) {
  const entry *e = &c->e[i];
  sbuf flat = {0};
  sb_flat(&flat, e->sql);
  alarm(QUERY_TIME_LIMIT);

  long long base = fault.live;
  sqlite3 *db = open_db(ext);
  result want = run_sql(db, e->sql);
  end_transaction(db);
  result sane = run_sql(db, sanity_sql);
  if (strcmp(sane.out.p, sanity_want) != 0) {
    printf("FAILED oom #%d (line %d): the sanity query fails after an unfailed run\n", i + 1, e->line);
    print_indented("query:", flat.p);
    print_indented("got:", sane.out.p);
    fflush(stdout);
    exit(1);
  }
  result_free(&sane);
  if (write(fd, "S", 1) != 1) exit(1);

  int failures = 0;
  long long runs = 0;
  size_t cap = 0;
  unsigned char *failed_k = NULL; /* failed_k[k]: fault run k failed */
  for (long long k = 1;; k++) {
    if ((size_t)k >= cap) {
      size_t ncap = cap ? cap * 2 : 256;
      unsigned char *p = realloc(failed_k, ncap);
      if (!p) die("out of memory in the harness itself");
      memset(p + cap, 0, ncap - cap);
      failed_k = p;
      cap = ncap;
    }
    int fired;
    result got = fault_run(db, e->sql, k, &fired);
    const char *why = judge(&got, &want);
    result sane2 = {0};
    if (!why) {
      sane2 = run_sql(db, sanity_sql);
      if (strcmp(sane2.out.p, sanity_want) != 0) why = "the connection does not work afterwards";
    }
    if (!fired && !why) {
      result_free(&got);
      result_free(&sane2);
      break; /* k is past the last allocation: every one has been failed */
    }
    runs++;
    if (why) {
      failures++;
      failed_k[k] = 1;
      if (failures <= DETAILED_FAILURES) {
        printf("FAILED oom #%d (line %d) k=%lld: %s%s\n", i + 1, e->line, k, why,
               fired ? "" : " (in a run where no allocation failed)");
        print_indented("query:", flat.p);
        print_indented("expected:", want.out.p);
        print_indented("got:", got.out.p);
        if (sane2.out.p && strcmp(sane2.out.p, sanity_want) != 0) {
          print_indented("sanity:", sanity_sql);
          print_indented("got:", sane2.out.p);
        }
      } else if (failures <= DETAILED_FAILURES + LISTED_FAILURES) {
        printf("FAILED oom #%d (line %d) k=%lld: %s\n", i + 1, e->line, k, why);
      }
      fflush(stdout);
    }
    result_free(&got);
    result_free(&sane2);
    if (write(fd, why ? "F" : "P", 1) != 1) exit(1);
    if (!fired) break;
  }
  if (failures > DETAILED_FAILURES + LISTED_FAILURES)
    printf("FAILED oom #%d (line %d): %d failures in all\n", i + 1, e->line, failures);
  result_free(&want);
  close_db(db);

  long long leaked = fault.live - base;
  if (leaked > 0 && hunt_leaks(ext, e, i, runs, failed_k, fd) == 0) {
    printf("FAILED oom #%d (line %d): %lld block(s) from sqlite3_malloc never freed over all "
           "fault runs, and no single run leaks on a fresh connection\n", i + 1, e->line, leaked);
    if (write(fd, "X", 1) != 1) exit(1);
  }
  free(failed_k);
  sb_free(&flat);
  fflush(stdout);
  if (write(fd, "D", 1) != 1) exit(1);
  close(fd);
}

/* passed counts fault runs that behaved; failed counts those that did not,
** plus failures no single run can be blamed for (a death outside the fault
** runs, a leak found only at exit). */
typedef struct {
  long long runs, passed, failed;
} tally;

/* Runs query i in a child process, so that a crash under one failed
** allocation is reported with its k and the rest of the catalog still runs. */
static void oom_fork(const char *ext, const catalog *c, int i, tally *t) {
  const entry *e = &c->e[i];
  int fds[2];
  if (pipe(fds) != 0) die("pipe: %s", strerror(errno));
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    oom_query(ext, c, i, fds[1]);
    /* exit, not _exit: LeakSanitizer checks the child at exit */
    free_catalog((catalog *)c);
    exit(0);
  }
  close(fds[1]);
  long long passed = 0, failed = 0, leaks = 0, runs_seen = 0;
  int started = 0, done = 0, hunting = 0;
  char buf[512];
  ssize_t got;
  while ((got = read(fds[0], buf, sizeof buf)) != 0) {
    if (got < 0) {
      if (errno == EINTR) continue;
      die("read: %s", strerror(errno));
    }
    for (ssize_t j = 0; j < got; j++) {
      if (buf[j] == 'P') passed++, runs_seen++;
      else if (buf[j] == 'F') failed++, runs_seen++;
      else if (buf[j] == 'X') failed++;
      else if (buf[j] == 'L') passed--, failed++, leaks++;
      else if (buf[j] == 'H') hunting = 1;
      else if (buf[j] == 'S') started = 1;
      else if (buf[j] == 'D') done = 1;
    }
  }
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) die("waitpid: %s", strerror(errno));

  char how[64];
  if (WIFSIGNALED(status))
    snprintf(how, sizeof how, "killed by signal %d%s", WTERMSIG(status),
             WTERMSIG(status) == SIGALRM ? " (over the time limit)" : "");
  else
    snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
  int clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;

  sbuf flat = {0};
  sb_flat(&flat, e->sql);
  if (!done) {
    /* What was running did not come back: a failure; a fault run if one was
    ** in progress. */
    failed++;
    if (started && !hunting) runs_seen++;
    if (!started)
      printf("FAILED oom #%d (line %d): stopped before its fault runs (%s); see the report above\n",
             i + 1, e->line, how);
    else if (hunting)
      printf("FAILED oom #%d (line %d): died (%s) while rerunning fault runs to find a leak; "
             "see the report above\n", i + 1, e->line, how);
    else
      printf("FAILED oom #%d (line %d) k=%lld: the process died (%s); see the sanitizer report above\n",
             i + 1, e->line, runs_seen, how);
    print_indented("query:", flat.p);
  } else if (!clean) {
    /* Most likely LeakSanitizer reporting the leak already blamed on a run:
    ** counted once. */
    if (!leaks) failed++;
    printf("FAILED oom #%d (line %d): the process failed at exit (%s): %s; see the report above\n",
           i + 1, e->line, how, leaks ? "the leak found above, or another sanitizer finding"
                                      : "a leak or other sanitizer finding");
    print_indented("query:", flat.p);
  }
  printf("oom #%d (line %d): %lld fault runs, %lld failed", i + 1, e->line, runs_seen, failed);
  if (leaks) printf(" (%lld leaking)", leaks);
  printf("\n");
  fflush(stdout);
  sb_free(&flat);
  t->runs += runs_seen;
  t->passed += passed;
  t->failed += failed;
}

static int oom(const char *ext, const catalog *c) {
  tally t = {0};
  time_t t0 = time(NULL);
  for (int i = 0; i < c->n; i++) oom_fork(ext, c, i, &t);
  printf("oom: %lld fault runs over %d queries in %lld s\n", t.runs, c->n,
         (long long)(time(NULL) - t0));
  printf("oom: %lld passed, %lld failed\n", t.passed, t.failed);
  return t.failed ? 1 : 0;
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  int mode = 0; /* 0 transcript, 'l' --locale, 'o' --oom */
  int a = 1;
  if (a < argc && strcmp(argv[a], "--locale") == 0) mode = 'l', a++;
  else if (a < argc && strcmp(argv[a], "--oom") == 0) mode = 'o', a++;
  if (argc - a != 2) {
    fprintf(stderr, "usage: sqlhost [--oom|--locale] EXT QUERIES\n");
    return 2;
  }
  const char *ext = argv[a], *queries = argv[a + 1];
  /* Reports interleave with sanitizer output on stderr: keep them in order. */
  setvbuf(stdout, NULL, _IOLBF, 0);

  if (mode == 'l') {
    int rc = check_locale();
    if (rc) return rc;
  }
  if (mode == 'o') install_fault_allocator(); /* before anything initializes SQLite */
  catalog c = read_catalog(queries);
  pin_extension(ext);
  int rc = mode == 'o' ? oom(ext, &c) : transcript(ext, &c);
  free_catalog(&c);
  return rc;
}
