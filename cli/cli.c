/*
** cli.c: the connection, errors and text output the commands share
** (cli.h).
*/
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include "cli.h"
#include "sqlite_quant.h"

sqlite3 *cli_open(const char *command) {
  sqlite3 *db = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    cli_fail(command, db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return NULL;
  }
  char *err = NULL;
  if (sqlite3_quant_init(db, &err, NULL) != SQLITE_OK) {
    cli_fail(command, err ? err : "the extension did not load");
    sqlite3_free(err);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

sqlite3_stmt *cli_prepare(sqlite3 *db, const char *command, const char *sql) {
  sqlite3_stmt *stmt = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
    cli_fail_db(command, db);
    return NULL;
  }
  return stmt;
}

/* The length of a leading "q_name: " (an extension function's prefix), or
** 0. */
static size_t cli_function_prefix(const char *m) {
  if (strncmp(m, "q_", 2) != 0) return 0;
  size_t i = 2;
  while ((m[i] >= 'a' && m[i] <= 'z') || (m[i] >= '0' && m[i] <= '9') ||
         m[i] == '_')
    i++;
  return m[i] == ':' && m[i + 1] == ' ' ? i + 2 : 0;
}

const char *cli_message(const char *message) {
  return message + cli_function_prefix(message);
}

static FILE *cli_errors;  /* NULL: stderr */

void cli_set_errors(FILE *f) { cli_errors = f; }

int cli_fail(const char *command, const char *message) {
  fflush(stdout);
  fprintf(cli_errors ? cli_errors : stderr, "sqlite-quant: %s: %s\n", command,
          cli_message(message));
  return CLI_FAILED;
}

int cli_fail_db(const char *command, sqlite3 *db) {
  return cli_fail(command, sqlite3_errmsg(db));
}

int cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "sqlite-quant: %s: ", command);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\ntry 'sqlite-quant %s --help'\n", command);
  return CLI_USAGE;
}

static volatile sig_atomic_t cli_sigint;
static sqlite3 *volatile cli_sigint_dbs[64];
static volatile sig_atomic_t cli_sigint_ndbs;
static struct sigaction cli_old_sigint;

static void cli_on_sigint(int sig) {
  (void)sig;
  cli_sigint = 1;
  for (int i = 0; i < cli_sigint_ndbs; i++) sqlite3_interrupt(cli_sigint_dbs[i]);
}

void cli_interrupt_also(sqlite3 *db) {
  if (cli_sigint_ndbs < 64) {
    cli_sigint_dbs[cli_sigint_ndbs] = db;
    cli_sigint_ndbs++;
  }
}

void cli_catch_interrupt(sqlite3 *db) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = cli_on_sigint;
  sigemptyset(&sa.sa_mask);
  cli_sigint_ndbs = 0;
  cli_interrupt_also(db);
  sigaction(SIGINT, &sa, &cli_old_sigint);
}

void cli_release_interrupt(void) {
  sigaction(SIGINT, &cli_old_sigint, NULL);
  cli_sigint_ndbs = 0;
}

int cli_interrupted(void) { return cli_sigint != 0; }

int cli_is_help(const char *arg) {
  return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

static int cli_is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

int cli_put_text(FILE *out, const char *s) {
  int cols = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (cli_is_control(*p)) {
      fprintf(out, "\\x%02x", *p);
      cols += 4;
    } else if (*p == '\\') {
      fputs("\\\\", out);
      cols += 2;
    } else {
      fputc(*p, out);
      cols += (*p & 0xc0) != 0x80;  /* a continuation byte adds no column */
    }
  }
  return cols;
}

int cli_put_json_text(FILE *out, const char *s) {
  int cols = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (cli_is_control(*p)) {
      if (out) fprintf(out, "\\x%02x", *p);
      cols += 4;
    } else {
      if (out) fputc(*p, out);
      cols += (*p & 0xc0) != 0x80;
    }
  }
  return cols;
}

int cli_text_width(const char *s) {
  int cols = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    cols += cli_is_control(*p) ? 4 : *p == '\\' ? 2 : (*p & 0xc0) != 0x80;
  return cols;
}

void cli_put_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (cli_is_control(*p)) fprintf(out, "\\u%04x", *p);
    else fputc(*p, out);
  }
  fputc('"', out);
}

float cli_le_f32(const unsigned char *p) {
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
               (uint32_t)p[3] << 24;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

uint64_t cli_shape_elements(const char *shape) {
  uint64_t n = 1, d = 0;
  int digits = 0;
  for (const char *p = shape; *p; p++) {
    if (*p >= '0' && *p <= '9') {
      d = d * 10 + (uint64_t)(*p - '0');
      digits = 1;
    } else if (digits) {
      n *= d;
      d = 0;
      digits = 0;
    }
  }
  return n;
}

char *cli_dup_column(sqlite3_stmt *s, int col) {
  const unsigned char *t = sqlite3_column_text(s, col);
  return t ? sqlite3_mprintf("%s", t) : NULL;
}
