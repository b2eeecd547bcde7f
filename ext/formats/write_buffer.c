/*
** write_buffer.c: the growing buffers the writers build files in (see
** write_buffer.h).
*/
#include <stdio.h>
#include <string.h>
#include "formats/write_buffer.h"
#include "kernels/byteorder.h"

/* Appends len bytes: capacity doubles, but never past what sq_realloc
** allows (st->max_bytes), so only a real need is SQ_TOOBIG. */
int sq_mw_put(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
              const void *p, uint64_t len) {
  if (len > *cap - *n) {
    if (len > UINT64_MAX - *n) return sq_toobig(st);
    uint64_t need = *n + len, want = *cap ? *cap : 256;
    while (want < need) want = want > UINT64_MAX / 2 ? need : want * 2;
    if (want > (uint64_t)st->max_bytes && need <= (uint64_t)st->max_bytes)
      want = (uint64_t)st->max_bytes;
    char *q = sq_realloc(st, *buf, want, 1);
    if (!q) return st->code;
    *buf = q;
    *cap = want;
  }
  if (len) memcpy(*buf + *n, p, len);
  *n += len;
  return SQ_OK;
}

int sq_mw_put_u32(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                  uint32_t v) {
  unsigned char b[4];
  sq_store_u32(b, v);
  return sq_mw_put(st, buf, n, cap, b, 4);
}

int sq_mw_put_u64(sq_status *st, char **buf, uint64_t *n, uint64_t *cap,
                  uint64_t v) {
  unsigned char b[8];
  sq_store_u32(b, (uint32_t)v);
  sq_store_u32(b + 4, (uint32_t)(v >> 32));
  return sq_mw_put(st, buf, n, cap, b, 8);
}

/* s[0..len) (valid UTF-8) as a JSON string, escaped as serde_json does. */
int sq_mw_json_string(sq_status *st, char **buf, uint64_t *n,
                      uint64_t *cap, const char *s, size_t len) {
  if (!s) s = "";
  if (sq_mw_put(st, buf, n, cap, "\"", 1)) return st->code;
  size_t run = 0;
  for (size_t i = 0; i <= len; i++) {
    unsigned char c = i < len ? (unsigned char)s[i] : 0;
    if (i < len && c >= 0x20 && c != '"' && c != '\\') continue;
    if (sq_mw_put(st, buf, n, cap, s + run, i - run)) return st->code;
    run = i + 1;
    if (i == len) break;
    char esc[8];
    const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
                  : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                  : c == '\t' ? "\\t" : NULL;
    if (!e) {
      snprintf(esc, sizeof esc, "\\u%04x", c);
      e = esc;
    }
    if (sq_mw_put(st, buf, n, cap, e, strlen(e))) return st->code;
  }
  return sq_mw_put(st, buf, n, cap, "\"", 1);
}
