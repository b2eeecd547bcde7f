/*
** text.c: strict readers of words and numbers (see text.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/status.h"
#include "core/text.h"

int sq_word_is(const char *s, size_t len, const char *word) {
  if (strlen(word) != len) return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char a = (unsigned char)s[i], b = (unsigned char)word[i];
    if (a >= 'A' && a <= 'Z') a = (unsigned char)(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = (unsigned char)(b - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

int sq_parse_int(const char *s, size_t len, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i == len || len - i > 18) return 0;
  int64_t v = 0;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  *out = neg ? -v : v;
  return 1;
}

int sq_parse_real(const char *s, size_t len, double *out) {
  char buf[48];
  if (len == 0 || len >= sizeof buf) return 0;
  for (size_t i = 0; i < len; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == 'e' ||
          s[i] == 'E' || s[i] == '-' || s[i] == '+'))
      return 0;
  memcpy(buf, s, len);
  buf[len] = 0;
  char *end;
  sq_locale saved = sq_locale_c_enter();
  *out = strtod(buf, &end);
  sq_locale_c_leave(saved);
  return *end == 0;
}

size_t sq_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t k;
  uint32_t v, min;
  if (c >= 0xC2 && c <= 0xDF) { k = 2; v = c & 0x1F; min = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { k = 3; v = c & 0x0F; min = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { k = 4; v = c & 0x07; min = 0x10000; }
  else return 0;
  if (n < k) return 0;
  for (size_t i = 1; i < k; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = v << 6 | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return k;
}

size_t sq_utf8_check(const unsigned char *s, size_t len) {
  size_t i = 0;
  uint32_t cp;
  while (i < len) {
    size_t k = sq_utf8_decode(s + i, len - i, &cp);
    if (!k) return i;
    i += k;
  }
  return len;
}

int sq_utf8_prefix(const void *s, size_t len, size_t max) {
  const unsigned char *u = s;
  if (len <= max) return (int)len;
  size_t k = max;
  while (k > 0 && (u[k] & 0xC0) == 0x80) k--;
  return (int)k;
}

size_t sq_json_escape(unsigned char c, char esc[8]) {
  if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7F) return 0;
  switch (c) {
    case '"': strcpy(esc, "\\\""); break;
    case '\\': strcpy(esc, "\\\\"); break;
    case '\n': strcpy(esc, "\\n"); break;
    case '\r': strcpy(esc, "\\r"); break;
    case '\t': strcpy(esc, "\\t"); break;
    default: snprintf(esc, 8, "\\u%04x", c); break;
  }
  return strlen(esc);
}

void sq_names_begin(sq_names *l) {
  l->n = 0;
  l->more = 0;
  l->buf[0] = 0;
}

void sq_names_add(sq_names *l, const char *name) {
  if (l->n < SQ_NAMES_CAP) l->item[l->n++] = name;
  else l->more = 1;
}

/* Appends s to buf (of size cap) at *len; returns 0 when it did not fit. */
static int sq_names_put(char *buf, size_t cap, size_t *len, const char *s) {
  size_t k = strlen(s);
  if (k >= cap - *len) return 0;
  memcpy(buf + *len, s, k + 1);
  *len += k;
  return 1;
}

const char *sq_names_join(sq_names *l, const char *sep, const char *last) {
  /* Room kept for the "..." of a list cut short. */
  size_t cap = sizeof l->buf - 4, len = 0;
  int cut = 0;
  l->buf[0] = 0;
  for (size_t i = 0; i < l->n && !cut; i++) {
    const char *s = i == 0 ? "" : i + 1 == l->n && !l->more ? last : sep;
    size_t at = len;
    if (!sq_names_put(l->buf, cap, &len, s) ||
        !sq_names_put(l->buf, cap, &len, l->item[i])) {
      len = at;
      l->buf[len] = 0;
      cut = 1;
    }
  }
  if (cut || l->more) memcpy(l->buf + len, "...", 4);
  return l->buf;
}
