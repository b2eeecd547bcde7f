/*
** status.c: error reporting and checked allocation for the core layer.
** Messages follow SPEC section 4: lower case, no trailing period; the SQL
** layer prefixes "<function>: ".
*/
#include <stdarg.h>
#include <stdio.h>
#include "core.h"

int sq_fail(sq_status *st, const char *fmt, ...) {
  if (st->code == SQ_OK) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    st->code = SQ_INVALID;
  }
  return SQ_INVALID;
}

int sq_nomem(sq_status *st) {
  if (st->code == SQ_OK) st->code = SQ_NOMEM;
  return SQ_NOMEM;
}

void *sq_alloc(sq_status *st, uint64_t nbytes) {
  if (nbytes > (uint64_t)st->max_bytes) {
    if (st->code == SQ_OK) st->code = SQ_TOOBIG;
    return NULL;
  }
  void *p = sqlite3_malloc64(nbytes ? nbytes : 1);
  if (!p) sq_nomem(st);
  return p;
}

int sq_mul_size(sq_status *st, uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a) {
    if (st->code == SQ_OK) st->code = SQ_TOOBIG;
    return 0;
  }
  *out = a * b;
  return 1;
}
