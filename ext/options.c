/*
** options.c: the options text of SPEC 2.4 and the integer range it gives.
**
**   1. "key=value" pairs separated by spaces and/or commas; NULL or '' is no
**      options; a key may appear once;
**   2. quant_min=N, quant_max=N: a range inside the dtype's, quant_min <
**      quant_max;
**   3. reduce_range=0|1: drop one bit of range (qmin/2, qmax/2, rounding down)
**      after quant_min/quant_max, as PyTorch does (int8 -64..63, uint8 0..127);
**   4. rounding=torch|onnx: multiply by 1/scale (PyTorch) or divide by the
**      scale (ONNX QuantizeLinear);
**   5. an unknown key, a missing '=', or a bad value is an error.
*/
#include <stdlib.h>
#include <string.h>
#include "core.h"

static const char sq_option_keys[] = "quant_min, quant_max, reduce_range, rounding";

static int sq_is_sep(char c) {
  return c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r';
}

/* Strict decimal integer of at most 18 digits. */
static int sq_parse_int(const char *s, size_t len, int64_t *out) {
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

static int sq_key_is(const char *key, size_t klen, const char *name) {
  return strlen(name) == klen && memcmp(key, name, klen) == 0;
}

int sq_options_parse(const char *text, sq_options *o, sq_status *st) {
  memset(o, 0, sizeof *o);
  int seen_reduce = 0, seen_rounding = 0;
  const char *p = text ? text : "";
  for (;;) {
    while (*p && sq_is_sep(*p)) p++;
    if (!*p) break;
    const char *key = p;
    while (*p && !sq_is_sep(*p) && *p != '=') p++;
    size_t klen = (size_t)(p - key);
    if (*p != '=' || klen == 0)
      return sq_fail(st, "malformed option '%.*s' (expected key=value)",
                     (int)(klen > 40 ? 40 : klen), key);
    const char *val = ++p;
    while (*p && !sq_is_sep(*p)) p++;
    size_t vlen = (size_t)(p - val);
    int vshow = (int)(vlen > 40 ? 40 : vlen);
    int64_t iv;
    if (sq_key_is(key, klen, "quant_min") || sq_key_is(key, klen, "quant_max")) {
      int is_min = key[7] == 'i';
      int *has = is_min ? &o->has_quant_min : &o->has_quant_max;
      if (*has) return sq_fail(st, "option '%.*s' is given twice", (int)klen, key);
      if (!sq_parse_int(val, vlen, &iv))
        return sq_fail(st, "option %.*s needs an integer, got '%.*s'",
                       (int)klen, key, vshow, val);
      *has = 1;
      *(is_min ? &o->quant_min : &o->quant_max) = iv;
    } else if (sq_key_is(key, klen, "reduce_range")) {
      if (seen_reduce++) return sq_fail(st, "option 'reduce_range' is given twice");
      if (!sq_parse_int(val, vlen, &iv) || (iv != 0 && iv != 1))
        return sq_fail(st, "option reduce_range must be 0 or 1, got '%.*s'",
                       vshow, val);
      o->reduce_range = (int)iv;
    } else if (sq_key_is(key, klen, "rounding")) {
      if (seen_rounding++) return sq_fail(st, "option 'rounding' is given twice");
      if (vlen == 5 && sqlite3_strnicmp(val, "torch", 5) == 0) {
        o->rounding_onnx = 0;
      } else if (vlen == 4 && sqlite3_strnicmp(val, "onnx", 4) == 0) {
        o->rounding_onnx = 1;
      } else {
        return sq_fail(st, "option rounding must be torch or onnx, got '%.*s'",
                       vshow, val);
      }
    } else {
      return sq_fail(st, "unknown option '%.*s' (expected one of %s)",
                     (int)(klen > 40 ? 40 : klen), key, sq_option_keys);
    }
  }
  return SQ_OK;
}

/* Floor division, as Python's // that PyTorch's reduce_range uses. */
static int64_t sq_floor_half(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

int sq_range_resolve(const sq_dtype *dt, const sq_options *o, sq_range *r,
                     sq_status *st) {
  r->dtype = dt;
  r->qmin = dt->qmin;
  r->qmax = dt->qmax;
  r->is_default = !o->has_quant_min && !o->has_quant_max && !o->reduce_range;
  if (o->has_quant_min) {
    if (o->quant_min < dt->qmin || o->quant_min > dt->qmax)
      return sq_fail(st, "quant_min %lld is outside the %s range %lld..%lld",
                     (long long)o->quant_min, dt->name, (long long)dt->qmin,
                     (long long)dt->qmax);
    r->qmin = o->quant_min;
  }
  if (o->has_quant_max) {
    if (o->quant_max < dt->qmin || o->quant_max > dt->qmax)
      return sq_fail(st, "quant_max %lld is outside the %s range %lld..%lld",
                     (long long)o->quant_max, dt->name, (long long)dt->qmin,
                     (long long)dt->qmax);
    r->qmax = o->quant_max;
  }
  if (r->qmin >= r->qmax)
    return sq_fail(st, "quant_min %lld must be less than quant_max %lld",
                   (long long)r->qmin, (long long)r->qmax);
  if (o->reduce_range) {
    r->qmin = sq_floor_half(r->qmin);
    r->qmax = sq_floor_half(r->qmax);
    if (r->qmin >= r->qmax)
      return sq_fail(st, "reduce_range leaves no range in %lld..%lld",
                     (long long)r->qmin, (long long)r->qmax);
  }
  return SQ_OK;
}
