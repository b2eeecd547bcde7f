/*
** status.h: how the core reports errors and sizes memory.
**
** A core function reports failure into an sq_status as a message without
** the function's name (the SQL layer adds it) and returns the code.  Every
** buffer is sized through sq_size/sq_alloc: count x size bytes, overflow-
** checked and refused above the connection's SQLITE_LIMIT_LENGTH
** (docs/NUMERICS.md#limits).
*/
#ifndef SQ_STATUS_H
#define SQ_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include "core/memory.h"

enum { SQ_OK = 0, SQ_INVALID, SQ_NOMEM, SQ_TOOBIG, SQ_NULL };

typedef struct sq_status {
  int code;                 /* SQ_OK, SQ_INVALID, SQ_NOMEM, SQ_TOOBIG */
  int64_t max_bytes;        /* largest buffer allowed (SQLITE_LIMIT_LENGTH) */
  char msg[256];
} sq_status;

/* Records a formatted SQ_INVALID message (the first one wins; numbers are
** printed in the C locale); returns SQ_INVALID. */
int sq_fail(sq_status *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int sq_nomem(sq_status *st);
int sq_toobig(sq_status *st);

/* The one way to size memory: count * size bytes, overflow-checked and
** refused with SQ_TOOBIG above st->max_bytes. */
int sq_size(sq_status *st, uint64_t count, uint64_t size, uint64_t *bytes);
/* A buffer of count * size bytes sized by sq_size (at least 1 byte is
** allocated); NULL with SQ_TOOBIG or SQ_NOMEM in st.  Free with sqlite3_free. */
void *sq_alloc(sq_status *st, uint64_t count, uint64_t size);
/* sqlite3_realloc64 sized the same way; on failure old is left untouched. */
void *sq_realloc(sq_status *st, void *old, uint64_t count, uint64_t size);
/* Working memory that is not a result: a fixed-size state (a decoder, a
** read buffer) or a table whose size its owner bounds by its own budget
** (the model-file readers' budget, docs/FORMATS.md#memory).  count * size,
** overflow-checked like sq_alloc, but not bound by SQLITE_LIMIT_LENGTH,
** which limits what SQL sees, not how the extension works inside. */
void *sq_alloc_internal(sq_status *st, uint64_t count, uint64_t size);
void *sq_realloc_internal(sq_status *st, void *old, uint64_t count,
                          uint64_t size);

/* Decimal numbers are read and written in the C locale whatever the host
** process set (c_locale.c, docs/NUMERICS.md#locale): bracket every
** strtod/printf of a number. */
typedef struct sq_locale { void *prev; } sq_locale;
sq_locale sq_locale_c_enter(void);
void sq_locale_c_leave(sq_locale saved);

#endif
