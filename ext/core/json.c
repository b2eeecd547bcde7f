/*
** json.c: the strict JSON reader and the float32 writer.
**
**   1. a float tensor in text form is a JSON array of numbers; nested arrays
**      are flattened in order ('[[1,2],[3,4]]' is 4 elements);
**   2. numbers follow the JSON grammar exactly (no NaN, Infinity, hex, '+',
**      leading zeros or bare '.'); each is rounded once, to nearest float32;
**      a number beyond float32's range is an error, not inf;
**   3. anything else, a missing bracket or trailing text is an error that gives
**      the byte offset; nesting deeper than 64 is an error;
**   4. a float32 is written as the shortest decimal that reads back to the
**      same float32 (0.1, not 0.100000001);
**   5. reading and writing happen in the C locale: a host process running
**      under de_DE still reads '[0.5]' as one half and gets '0.5' back.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/tensor.h"
#include "kernels/byteorder.h"

#define SQ_JSON_MAX_DEPTH 64

static int sq_is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Length of a JSON number at s (0 if there is none). */
static size_t sq_json_number_len(const char *s, size_t len) {
  size_t i = 0;
  if (i < len && s[i] == '-') i++;
  if (i < len && s[i] == '0') {
    i++;
  } else if (i < len && s[i] >= '1' && s[i] <= '9') {
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
  } else {
    return 0;
  }
  if (i < len && s[i] == '.') {
    size_t d = ++i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) return 0;
  }
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    size_t d = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) return 0;
  }
  return i;
}

/* Rounds a validated JSON number to float32 (the caller is in the C
** locale).  Returns 0 when it overflows, -1 when out of memory. */
static int sq_json_number_value(const char *s, size_t len, float *out,
                                sq_status *st) {
  char small[64];
  char *buf = len < sizeof small ? small : sq_alloc(st, len + 1, 1);
  if (!buf) return -1;
  memcpy(buf, s, len);
  buf[len] = 0;
  float f = strtof(buf, NULL);
  if (buf != small) sqlite3_free(buf);
  *out = f;
  return !(f > 3.4028235e38f || f < -3.4028235e38f);
}

/* Reads one validated number token into element `index` of the output. */
typedef int (*sq_json_emit)(const char *tok, size_t len, size_t index,
                            unsigned char *out, const char *argname,
                            sq_status *st);

static int sq_emit_f32(const char *tok, size_t len, size_t index,
                       unsigned char *out, const char *argname,
                       sq_status *st) {
  float f;
  int ok = sq_json_number_value(tok, len, &f, st);
  if (ok < 0) return st->code;
  if (ok == 0)
    return sq_fail(st, "element %zu of %s (%.*s) is out of float32 range",
                   index, argname, (int)(len > 30 ? 30 : len), tok);
  sq_store_f32(out + 4 * index, f);
  return SQ_OK;
}

static int sq_emit_i32(const char *tok, size_t len, size_t index,
                       unsigned char *out, const char *argname,
                       sq_status *st) {
  size_t i = tok[0] == '-';
  int64_t v = 0;
  for (; i < len && tok[i] >= '0' && tok[i] <= '9' && v <= 0x80000000LL; i++)
    v = v * 10 + (tok[i] - '0');
  if (tok[0] == '-') v = -v;
  if (i != len || v < INT32_MIN || v > INT32_MAX)
    return sq_fail(st, "element %zu of %s (%.*s) is not a 32-bit integer",
                   index, argname, (int)(len > 30 ? 30 : len), tok);
  sq_store_u32(out + 4 * index, (uint32_t)(int32_t)v);
  return SQ_OK;
}

/* Walks a JSON array (nested arrays flattened).  With out == NULL it only
** checks the grammar and counts the numbers; otherwise it emits each number
** into a 4-byte slot of out, which holds the count of the first walk. */
static int sq_json_walk(const char *s, size_t len, const char *argname,
                        sq_json_emit emit, unsigned char *out, size_t *n,
                        sq_status *st) {
  size_t i = 0, count = 0, depth = 0;
  enum { VALUE_OR_CLOSE, VALUE, COMMA_OR_CLOSE } want = VALUE;
  while (i < len && sq_is_ws(s[i])) i++;
  if (i == len || s[i] != '[')
    return sq_fail(st, "%s is not a JSON array", argname);
  for (;;) {
    while (i < len && sq_is_ws(s[i])) i++;
    if (i == len) break;
    char c = s[i];
    if (want != COMMA_OR_CLOSE && c == '[') {
      if (++depth > SQ_JSON_MAX_DEPTH)
        return sq_fail(st, "JSON array %s is nested deeper than %d levels",
                       argname, SQ_JSON_MAX_DEPTH);
      want = VALUE_OR_CLOSE;
      i++;
    } else if (want != VALUE && c == ']') {
      i++;
      want = COMMA_OR_CLOSE;
      if (--depth == 0) break;
    } else if (want == COMMA_OR_CLOSE && c == ',') {
      want = VALUE;
      i++;
    } else if (want != COMMA_OR_CLOSE) {
      size_t k = sq_json_number_len(s + i, len - i);
      if (k == 0) {
        char v = c == '-' && i + 1 < len ? s[i + 1] : c;
        int is_value = v == '"' || v == 't' || v == 'f' || v == 'n' ||
                       v == '{' || v == 'N' || v == 'I';
        if (is_value)
          return sq_fail(st, "element %zu of %s is not a number", count,
                         argname);
        return sq_fail(st, "malformed JSON in %s at offset %zu", argname, i);
      }
      if (out && emit(s + i, k, count, out, argname, st)) return st->code;
      count++;
      i += k;
      want = COMMA_OR_CLOSE;
    } else {
      return sq_fail(st, "malformed JSON in %s at offset %zu", argname, i);
    }
  }
  if (depth != 0)
    return sq_fail(st, "malformed JSON in %s: unexpected end at offset %zu",
                   argname, len);
  while (i < len && sq_is_ws(s[i])) i++;
  if (i != len)
    return sq_fail(st, "malformed JSON in %s: trailing characters at offset %zu",
                   argname, i);
  *n = count;
  return SQ_OK;
}

/* Checks and counts first, then sizes the output exactly and fills it: no
** memory is committed to text that turns out not to be a JSON array. */
static int sq_json_parse(const char *s, size_t len, const char *argname,
                         sq_json_emit emit, void **out, size_t *n,
                         sq_status *st) {
  size_t count;
  *out = NULL;
  if (sq_json_walk(s, len, argname, emit, NULL, &count, st)) return st->code;
  unsigned char *buf = sq_alloc(st, count, 4);
  if (!buf) return st->code;
  sq_locale saved = sq_locale_c_enter();
  int rc = sq_json_walk(s, len, argname, emit, buf, &count, st);
  sq_locale_c_leave(saved);
  if (rc) {
    sqlite3_free(buf);
    return rc;
  }
  *out = buf;
  *n = count;
  return SQ_OK;
}

int sq_json_parse_floats(const char *s, size_t len, const char *argname,
                         void **out, size_t *n, sq_status *st) {
  return sq_json_parse(s, len, argname, sq_emit_f32, out, n, st);
}

int sq_json_parse_ints(const char *s, size_t len, const char *argname,
                       void **out, size_t *n, sq_status *st) {
  return sq_json_parse(s, len, argname, sq_emit_i32, out, n, st);
}

/* The shortest decimal that reads back as v (as a float32 when f32), in the
** C locale: whole numbers without an exponent when that is no longer ("50",
** not "5e1"), exponents without '+' or leading zeros ("1e-7", "1e20"). */
static int sq_format_shortest(double v, int f32, char *buf) {
  char tmp[40];
  int len = 0;
  /* The first precision whose text reads back as v is the shortest. */
  for (int prec = 1; prec <= (f32 ? 9 : 17); prec++) {
    len = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (f32 ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v) break;
  }
  if (strchr(tmp, 'e') && v < 1e16 && v > -1e16 && v == (double)(int64_t)v) {
    char whole[40];
    int wlen = snprintf(whole, sizeof whole, "%.0f", v);
    if (wlen <= len + 1) return (int)strlen(strcpy(buf, whole));
  }
  int o = 0;
  for (int i = 0; i < len; i++) {
    buf[o++] = tmp[i];
    if (tmp[i] == 'e') {
      i++;
      if (tmp[i] == '-') buf[o++] = '-';
      else if (tmp[i] != '+') i--;
      while (tmp[i + 1] == '0' && tmp[i + 2]) i++;
    }
  }
  buf[o] = 0;
  return o;
}

int sq_format_f32(float f, char *buf) {
  sq_locale saved = sq_locale_c_enter();
  int len = sq_format_shortest((double)f, 1, buf);
  sq_locale_c_leave(saved);
  return len;
}

int sq_format_f64(double d, char *buf) {
  sq_locale saved = sq_locale_c_enter();
  int len = sq_format_shortest(d, 0, buf);
  sq_locale_c_leave(saved);
  return len;
}
