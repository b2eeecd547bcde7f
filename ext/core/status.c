/*
** status.c: error reporting and the one way the extension sizes memory.
**
**   1. messages are lower case with no trailing period; the SQL layer
**      prefixes "<function>: "; numbers in them are printed in the C locale
**      (see c_locale.c), whatever locale the host process runs under;
**   2. every buffer is count x size bytes, computed here with an overflow
**      check; no buffer may exceed the connection's SQLITE_LIMIT_LENGTH
**      (st->max_bytes), and asking for more is SQ_TOOBIG, never a wrapped
**      size.  Callers size nothing themselves;
**   3. working memory that is no result (sq_alloc_internal) is overflow-
**      checked the same way but bounded by its owner's own rule instead of
**      the length limit.
*/
#include <stdarg.h>
#include <stdio.h>
#include "core/status.h"

int sq_fail(sq_status *st, const char *fmt, ...) {
  if (st->code == SQ_OK) {
    sq_locale saved = sq_locale_c_enter();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    sq_locale_c_leave(saved);
    st->code = SQ_INVALID;
  }
  return SQ_INVALID;
}

int sq_nomem(sq_status *st) {
  if (st->code == SQ_OK) st->code = SQ_NOMEM;
  return SQ_NOMEM;
}

int sq_toobig(sq_status *st) {
  if (st->code == SQ_OK) st->code = SQ_TOOBIG;
  return SQ_TOOBIG;
}

int sq_size(sq_status *st, uint64_t count, uint64_t size, uint64_t *bytes) {
  if (size != 0 && count > (uint64_t)st->max_bytes / size) return sq_toobig(st);
  *bytes = count * size;
  return SQ_OK;
}

void *sq_alloc(sq_status *st, uint64_t count, uint64_t size) {
  uint64_t bytes;
  if (sq_size(st, count, size, &bytes)) return NULL;
  void *p = sqlite3_malloc64(bytes ? bytes : 1);
  if (!p) sq_nomem(st);
  return p;
}

void *sq_realloc(sq_status *st, void *old, uint64_t count, uint64_t size) {
  uint64_t bytes;
  if (sq_size(st, count, size, &bytes)) return NULL;
  void *p = sqlite3_realloc64(old, bytes ? bytes : 1);
  if (!p) sq_nomem(st);
  return p;
}

/* count * size without overflow, at most INT64_MAX (what sqlite3_malloc64
** can be asked for at all). */
static int sq_size_internal(sq_status *st, uint64_t count, uint64_t size,
                            uint64_t *bytes) {
  if (size != 0 && count > (uint64_t)INT64_MAX / size) return sq_toobig(st);
  *bytes = count * size;
  return SQ_OK;
}

void *sq_alloc_internal(sq_status *st, uint64_t count, uint64_t size) {
  uint64_t bytes = 0;
  if (sq_size_internal(st, count, size, &bytes)) return NULL;
  void *p = sqlite3_malloc64(bytes ? bytes : 1);
  if (!p) sq_nomem(st);
  return p;
}

void *sq_realloc_internal(sq_status *st, void *old, uint64_t count,
                          uint64_t size) {
  uint64_t bytes = 0;
  if (sq_size_internal(st, count, size, &bytes)) return NULL;
  void *p = sqlite3_realloc64(old, bytes ? bytes : 1);
  if (!p) sq_nomem(st);
  return p;
}
