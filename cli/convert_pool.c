/*
** convert_pool.c: the conversion threads of the quantize command
** (convert_pool.h).
**
** One job at a time: the caller posts a chunk, each thread takes its
** piece, and the caller waits until all are done, then emits the results
** in order while the threads wait for the next job (their results stay
** valid until then).
*/
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "convert_pool.h"

typedef struct cli_piece {
  cli_pool *pool;
  int index;
  sqlite3 *db;
  pthread_t thread;
  sqlite3_stmt *stmt;     /* the job's statement on db, stepped */
  int ok;                 /* the step returned a row */
} cli_piece;

struct cli_pool {
  int n;
  cli_piece *pieces;
  pthread_mutex_t mu;
  pthread_cond_t posted, finished;
  unsigned long job;      /* incremented for each job */
  int running;            /* pieces of the job not yet done */
  int stop;
  /* The job. */
  const char *sql, *dtype, *type, *shape;
  const unsigned char *data;
  const void *imp;
  int nbytes, npieces, imp_bytes;
  int64_t rows;
};

/* shape with its first dimension replaced by rows, into buf. */
static void cli_pool_shape(const char *shape, int64_t rows, char *buf,
                           size_t size) {
  const char *p = shape;
  while (*p && (*p < '0' || *p > '9')) p++;
  const char *q = p;
  while (*q >= '0' && *q <= '9') q++;
  snprintf(buf, size, "%.*s%lld%s", (int)(p - shape), shape, (long long)rows, q);
}

static void cli_pool_run_piece(cli_piece *c) {
  cli_pool *p = c->pool;
  sqlite3_finalize(c->stmt);
  c->stmt = NULL;
  c->ok = 0;
  if (c->index >= p->npieces) {
    c->ok = 1;
    return;
  }
  int64_t r0 = p->rows * c->index / p->npieces;
  int64_t r1 = p->rows * (c->index + 1) / p->npieces;
  int64_t row_bytes = p->nbytes / p->rows;
  char shape[256];
  cli_pool_shape(p->shape, r1 - r0, shape, sizeof shape);
  if (sqlite3_prepare_v2(c->db, p->sql, -1, &c->stmt, NULL) != SQLITE_OK) return;
  sqlite3_bind_blob(c->stmt, 1, p->data + r0 * row_bytes,
                    (int)((r1 - r0) * row_bytes), SQLITE_STATIC);
  sqlite3_bind_text(c->stmt, 2, p->dtype, -1, SQLITE_STATIC);
  sqlite3_bind_text(c->stmt, 3, p->type, -1, SQLITE_STATIC);
  sqlite3_bind_text(c->stmt, 4, shape, -1, SQLITE_TRANSIENT);
  if (p->imp) sqlite3_bind_blob(c->stmt, 5, p->imp, p->imp_bytes, SQLITE_STATIC);
  else sqlite3_bind_text(c->stmt, 5, "none", -1, SQLITE_STATIC);
  c->ok = sqlite3_step(c->stmt) == SQLITE_ROW;
}

static void *cli_pool_thread(void *arg) {
  cli_piece *c = arg;
  cli_pool *p = c->pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->stop && p->job == seen) pthread_cond_wait(&p->posted, &p->mu);
    if (p->stop) break;
    seen = p->job;
    pthread_mutex_unlock(&p->mu);
    cli_pool_run_piece(c);
    pthread_mutex_lock(&p->mu);
    if (--p->running == 0) pthread_cond_signal(&p->finished);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

cli_pool *cli_pool_open(int n, const char *command) {
  cli_pool *p = sqlite3_malloc(sizeof *p);
  if (!p) {
    cli_fail(command, "out of memory");
    return NULL;
  }
  memset(p, 0, sizeof *p);
  p->pieces = sqlite3_malloc64((sqlite3_uint64)n * sizeof *p->pieces);
  if (!p->pieces) {
    sqlite3_free(p);
    cli_fail(command, "out of memory");
    return NULL;
  }
  memset(p->pieces, 0, (size_t)n * sizeof *p->pieces);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->posted, NULL);
  pthread_cond_init(&p->finished, NULL);
  for (int i = 0; i < n; i++) {
    cli_piece *c = &p->pieces[i];
    c->pool = p;
    c->index = i;
    if (!(c->db = cli_open(command))) break;
    cli_interrupt_also(c->db);
    if (pthread_create(&c->thread, NULL, cli_pool_thread, c) != 0) {
      cli_fail(command, "cannot start a thread");
      sqlite3_close(c->db);
      c->db = NULL;
      break;
    }
    p->n++;
  }
  if (p->n < n) {
    cli_pool_close(p);
    return NULL;
  }
  return p;
}

void cli_pool_close(cli_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->posted);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->n; i++) {
    pthread_join(p->pieces[i].thread, NULL);
    sqlite3_finalize(p->pieces[i].stmt);
    sqlite3_close(p->pieces[i].db);
  }
  pthread_cond_destroy(&p->posted);
  pthread_cond_destroy(&p->finished);
  pthread_mutex_destroy(&p->mu);
  sqlite3_free(p->pieces);
  sqlite3_free(p);
}

int cli_pool_convert(cli_pool *p, const char *sql, const void *data,
                     int nbytes, const char *dtype, const char *type,
                     const char *shape, int64_t rows, const void *imp,
                     int imp_bytes,
                     int (*emit)(void *ctx, const void *blob, int nbytes),
                     void *ctx) {
  pthread_mutex_lock(&p->mu);
  p->imp = imp;
  p->imp_bytes = imp_bytes;
  p->sql = sql;
  p->data = data;
  p->nbytes = nbytes;
  p->dtype = dtype;
  p->type = type;
  p->shape = shape;
  p->rows = rows;
  p->npieces = rows < p->n ? (int)rows : p->n;
  p->running = p->n;
  p->job++;
  pthread_cond_broadcast(&p->posted);
  while (p->running) pthread_cond_wait(&p->finished, &p->mu);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->npieces; i++)
    if (!p->pieces[i].ok) return -1;
  for (int i = 0; i < p->npieces; i++) {
    sqlite3_stmt *s = p->pieces[i].stmt;
    int rc = emit(ctx, sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0));
    if (rc) return rc;
  }
  return 0;
}
