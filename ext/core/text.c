/*
** text.c: strict readers of words and numbers (see text.h).
*/
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
