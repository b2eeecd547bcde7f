/*
** options.c: the options text and the integer range it gives
** (docs/NUMERICS.md#options).
**
**   1. "key=value" pairs separated by spaces and/or commas; NULL or '' is no
**      options; a key may appear once;
**   2. quant_min=N, quant_max=N: a range inside the dtype's, quant_min <
**      quant_max;
**   3. reduce_range=0|1: drop one bit of range (qmin/2, qmax/2, rounding down)
**      after quant_min/quant_max, as PyTorch does (int8 -64..63, uint8 0..127);
**   4. rounding=torch|onnx|tutorial: multiply by 1/scale (PyTorch), divide
**      by the scale (ONNX QuantizeLinear), or divide and add the zero point
**      before rounding (the tutorial's formula);
**   5. calibration: method=minmax|percentile|mse|histogram|entropy,
**      percentile=P (0 < P <= 100, default 99.99), bins=N (histogram and
**      entropy), quantized_bins=N (entropy), include_zero=0|1 (default 1),
**      params=float32|double; observer=minmax|moving_average,
**      averaging_constant=C (0 < C <= 1, default 0.01) for the aggregates;
**   6. q_compare: dtypes=, schemes=, blocks=, methods=, ggml= (lists joined
**      by '+' or '|', e.g. dtypes=int8+int4, ggml=q4_K+q8_0,
**      bnb4=nf4+fp4@128);
**   6a. q_ggml_quantize: mx_exponent=ggml|ocp|torchao-rceil|torchao-ceil|
**      torchao-even|mlx, the shared-exponent rule of mxfp4 blocks;
**      importance=none (the one value): ggml's quantize_<type>(.., NULL);
**   7. each function accepts the keys that mean something to it; any other key
**      is an error that lists the valid ones;
**   8. numbers are read in the C locale ('99.9' whatever the host's locale);
**   9. saturate=0|1 (default 1): float8 codes only, ONNX's attribute;
**  10. a range carries include_zero and params (sq_choose_qparams reads them
**      there), and rounding=tutorial is refused for codes wider than 16 bits
**      (docs/NUMERICS.md#the-tutorials-formula).
*/
#include <string.h>
#include "core/log2.h"
#include "core/options.h"
#include "core/text.h"
#include "kernels/ggml_lowbit.h"

static const struct {
  const char *name;
  unsigned bit;
} sq_option_keys[] = {
  {"quant_min", SQ_OPT_QUANT_MIN},
  {"quant_max", SQ_OPT_QUANT_MAX},
  {"reduce_range", SQ_OPT_REDUCE_RANGE},
  {"rounding", SQ_OPT_ROUNDING},
  {"method", SQ_OPT_METHOD},
  {"percentile", SQ_OPT_PERCENTILE},
  {"observer", SQ_OPT_OBSERVER},
  {"averaging_constant", SQ_OPT_AVERAGING},
  {"dtypes", SQ_OPT_DTYPES},
  {"schemes", SQ_OPT_SCHEMES},
  {"blocks", SQ_OPT_BLOCKS},
  {"methods", SQ_OPT_METHODS},
  {"ggml", SQ_OPT_GGML},
  {"include_zero", SQ_OPT_INCLUDE_ZERO},
  {"params", SQ_OPT_PARAMS},
  {"bins", SQ_OPT_BINS},
  {"quantized_bins", SQ_OPT_QUANTIZED_BINS},
  {"mx_exponent", SQ_OPT_MX_EXPONENT},
  {"saturate", SQ_OPT_SATURATE},
  {"bnb4", SQ_OPT_BNB4},
  {"importance", SQ_OPT_IMPORTANCE},
};
#define SQ_NKEYS (sizeof sq_option_keys / sizeof sq_option_keys[0])

static int sq_is_sep(char c) {
  return c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r';
}

static void sq_valid_keys(unsigned allowed, char *buf, size_t size) {
  size_t o = 0;
  buf[0] = 0;
  for (size_t i = 0; i < SQ_NKEYS; i++) {
    if (!(allowed & sq_option_keys[i].bit)) continue;
    const char *name = sq_option_keys[i].name;
    size_t need = strlen(name) + (o ? 2 : 0);
    if (need >= size - o) break;
    if (o) memcpy(buf + o, ", ", 2);
    memcpy(buf + o + (o ? 2 : 0), name, strlen(name) + 1);
    o += need;
  }
}

/* A number in (0, max]; out is left alone otherwise. */
static int sq_real_upto(const char *s, size_t len, double max, double *out) {
  double v;
  if (!sq_parse_real(s, len, &v) || !(v > 0.0 && v <= max)) return 0;
  *out = v;
  return 1;
}

/* 0 for the first word, 1 for the second, -1 for neither. */
static int sq_either(const char *s, size_t len, const char *w0, const char *w1) {
  return sq_word_is(s, len, w0) ? 0 : sq_word_is(s, len, w1) ? 1 : -1;
}

/* The catalogue's methods and schemes (core/catalogue.h). */
#define SQ_METHOD_NAME(name, NAME) [SQ_METHOD_##NAME] = #name,
static const char *const sq_methods[SQ_NMETHODS] = {
  SQ_CATALOGUE_METHODS(SQ_METHOD_NAME)
};
#undef SQ_METHOD_NAME

#define SQ_SCHEME_ROW(name, symmetric) {name, symmetric},
static const struct {
  const char *name;
  int symmetric;
} sq_schemes[] = {SQ_CATALOGUE_SCHEMES(SQ_SCHEME_ROW)};
#undef SQ_SCHEME_ROW
#define SQ_NSCHEMES (sizeof sq_schemes / sizeof sq_schemes[0])

int sq_method_parse(const char *s, size_t len, int *method) {
  for (int m = 0; m < SQ_NMETHODS; m++) {
    if (sq_word_is(s, len, sq_methods[m])) {
      *method = m;
      return 1;
    }
  }
  return 0;
}

void sq_method_names(sq_names *l) {
  for (int m = 0; m < SQ_NMETHODS; m++) sq_names_add(l, sq_methods[m]);
}

int sq_scheme_parse(const char *s, size_t len, int *symmetric) {
  for (size_t i = 0; i < SQ_NSCHEMES; i++) {
    if (sq_word_is(s, len, sq_schemes[i].name)) {
      *symmetric = sq_schemes[i].symmetric;
      return 1;
    }
  }
  return 0;
}

void sq_scheme_names(sq_names *l) {
  for (size_t i = 0; i < SQ_NSCHEMES; i++) sq_names_add(l, sq_schemes[i].name);
}

/* By SQ_MX_*: each producer's name for its rule. */
static const char *const sq_mx_rules[SQ_MX_NRULES] = {
  [SQ_MX_GGML] = "ggml", [SQ_MX_OCP] = "ocp",
  [SQ_MX_TORCHAO_RCEIL] = "torchao-rceil", [SQ_MX_TORCHAO_CEIL] = "torchao-ceil",
  [SQ_MX_TORCHAO_EVEN] = "torchao-even", [SQ_MX_MLX] = "mlx",
};

const char *sq_mx_rule_name(int rule) { return sq_mx_rules[rule]; }

void sq_mx_rule_names(sq_names *l) {
  for (int r = 0; r < SQ_MX_NRULES; r++) sq_names_add(l, sq_mx_rules[r]);
}

const char *sq_method_name(int method) { return sq_methods[method]; }

const char *sq_scheme_name(int symmetric) {
  for (size_t i = 0; i < SQ_NSCHEMES; i++)
    if (sq_schemes[i].symmetric == symmetric) return sq_schemes[i].name;
  return "";
}

int sq_options_parse(const char *text, unsigned allowed, sq_options *o,
                     sq_status *st) {
  memset(o, 0, sizeof *o);
  o->percentile = 99.99;
  o->averaging_constant = 0.01;
  o->include_zero = 1;
  o->saturate = 1;
  const char *p = text ? text : "";
  for (;;) {
    while (*p && sq_is_sep(*p)) p++;
    if (!*p) break;
    const char *key = p;
    while (*p && !sq_is_sep(*p) && *p != '=') p++;
    int klen = (int)(p - key);
    int kshow = klen > 40 ? 40 : klen;
    if (*p != '=' || klen == 0) {
      while (*p && !sq_is_sep(*p)) p++;
      int tlen = (int)(p - key);
      return sq_fail(st, "malformed option '%.*s' (expected key=value)",
                     tlen > 40 ? 40 : tlen, key);
    }
    const char *val = ++p;
    while (*p && !sq_is_sep(*p)) p++;
    size_t vlen = (size_t)(p - val);
    int vshow = (int)(vlen > 40 ? 40 : vlen);
    unsigned bit = 0;
    for (size_t i = 0; i < SQ_NKEYS; i++)
      if (strlen(sq_option_keys[i].name) == (size_t)klen &&
          memcmp(sq_option_keys[i].name, key, (size_t)klen) == 0)
        bit = sq_option_keys[i].bit;
    if (!(bit & allowed)) {
      char valid[400];
      sq_valid_keys(allowed, valid, sizeof valid);
      if (bit)
        return sq_fail(st, "option '%.*s' does not apply here (expected one of %s)",
                       kshow, key, valid);
      return sq_fail(st, "unknown option '%.*s' (expected one of %s)", kshow,
                     key, valid);
    }
    if (o->given & bit)
      return sq_fail(st, "option '%.*s' is given twice", kshow, key);
    o->given |= bit;
    /* Each value check names what the value must be when it fails. */
    const char *must = NULL;
    sq_names names;
    int64_t iv = 0;
    switch (bit) {
      case SQ_OPT_QUANT_MIN:
      case SQ_OPT_QUANT_MAX:
        if (!sq_parse_int(val, vlen, &iv))
          return sq_fail(st, "option %.*s needs an integer, got '%.*s'", kshow,
                         key, vshow, val);
        *(bit == SQ_OPT_QUANT_MIN ? &o->quant_min : &o->quant_max) = iv;
        break;
      case SQ_OPT_REDUCE_RANGE:
        if (!sq_parse_int(val, vlen, &iv) || (iv != 0 && iv != 1)) must = "0 or 1";
        o->reduce_range = iv == 1;
        break;
      case SQ_OPT_ROUNDING:
        o->rounding = sq_word_is(val, vlen, "tutorial")
                          ? SQ_ROUNDING_TUTORIAL
                          : sq_either(val, vlen, "torch", "onnx");
        if (o->rounding < 0) must = "torch, onnx or tutorial";
        break;
      case SQ_OPT_METHOD:
        if (!sq_method_parse(val, vlen, &o->method)) {
          sq_names_begin(&names);
          sq_method_names(&names);
          must = sq_names_join(&names, ", ", " or ");
        }
        break;
      case SQ_OPT_SATURATE:
        if (!sq_parse_int(val, vlen, &iv) || (iv != 0 && iv != 1)) must = "0 or 1";
        o->saturate = iv == 1;
        break;
      case SQ_OPT_INCLUDE_ZERO:
        if (!sq_parse_int(val, vlen, &iv) || (iv != 0 && iv != 1)) must = "0 or 1";
        o->include_zero = iv == 1;
        break;
      case SQ_OPT_PARAMS:
        o->params_double = sq_either(val, vlen, "float32", "double");
        if (o->params_double < 0) must = "float32 or double";
        break;
      case SQ_OPT_BINS:
      case SQ_OPT_QUANTIZED_BINS:
        if (!sq_parse_int(val, vlen, &iv) || iv < 1 || iv > SQ_MAX_BINS)
          must = "an integer in 1..1048576";
        *(bit == SQ_OPT_BINS ? &o->bins : &o->quantized_bins) = iv;
        break;
      case SQ_OPT_PERCENTILE:
        if (!sq_real_upto(val, vlen, 100.0, &o->percentile))
          must = "a number in (0, 100]";
        break;
      case SQ_OPT_OBSERVER:
        o->moving_average = sq_either(val, vlen, "minmax", "moving_average");
        if (o->moving_average < 0) must = "minmax or moving_average";
        break;
      case SQ_OPT_AVERAGING:
        if (!sq_real_upto(val, vlen, 1.0, &o->averaging_constant))
          must = "a number in (0, 1]";
        break;
      case SQ_OPT_MX_EXPONENT:
        o->mx_exponent = -1;
        for (int r = 0; r < SQ_MX_NRULES; r++)
          if (sq_word_is(val, vlen, sq_mx_rules[r])) o->mx_exponent = r;
        if (o->mx_exponent < 0) {
          sq_names_begin(&names);
          sq_mx_rule_names(&names);
          must = sq_names_join(&names, ", ", " or ");
        }
        break;
      case SQ_OPT_IMPORTANCE:
        if (!sq_word_is(val, vlen, "none")) must = "none";
        o->importance_none = 1;
        break;
      default: /* lists for q_compare: kept as text, checked by the caller */
        if (vlen == 0 || vlen >= sizeof o->dtypes)
          return sq_fail(st, "option %.*s needs a list, got '%.*s'", kshow, key,
                         vshow, val);
        {
          char *dst = bit == SQ_OPT_DTYPES    ? o->dtypes
                      : bit == SQ_OPT_SCHEMES ? o->schemes
                      : bit == SQ_OPT_BLOCKS  ? o->blocks
                      : bit == SQ_OPT_METHODS ? o->methods
                      : bit == SQ_OPT_BNB4    ? o->bnb4
                                              : o->ggml;
          memcpy(dst, val, vlen);
          dst[vlen] = 0;
        }
        break;
    }
    if (must)
      return sq_fail(st, "option %.*s must be %s, got '%.*s'", kshow, key, must,
                     vshow, val);
  }
  if ((o->given & SQ_OPT_PERCENTILE) && o->method != SQ_METHOD_PERCENTILE &&
      !(allowed & SQ_OPT_METHODS))
    return sq_fail(st, "option percentile needs method=percentile");
  if ((o->given & SQ_OPT_BINS) && o->method != SQ_METHOD_HISTOGRAM &&
      o->method != SQ_METHOD_ENTROPY && !(allowed & SQ_OPT_METHODS))
    return sq_fail(st, "option bins needs method=histogram or method=entropy");
  if ((o->given & SQ_OPT_QUANTIZED_BINS) && o->method != SQ_METHOD_ENTROPY &&
      !(allowed & SQ_OPT_METHODS))
    return sq_fail(st, "option quantized_bins needs method=entropy");
  if ((o->given & SQ_OPT_AVERAGING) && !o->moving_average)
    return sq_fail(st, "option averaging_constant needs observer=moving_average");
  return SQ_OK;
}

/* Floor division, as Python's // that PyTorch's reduce_range uses. */
static int64_t sq_floor_half(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

int sq_range_resolve(const sq_dtype *dt, const sq_options *o, sq_range *r,
                     sq_status *st) {
  int has_min = (o->given & SQ_OPT_QUANT_MIN) != 0;
  int has_max = (o->given & SQ_OPT_QUANT_MAX) != 0;
  r->dtype = dt;
  r->qmin = dt->qmin;
  r->qmax = dt->qmax;
  r->is_default = !has_min && !has_max && !o->reduce_range;
  r->include_zero = o->include_zero;
  r->params_double = o->params_double;
  r->saturate = o->saturate;
  if (dt->kind == SQ_FMT_FLOAT8) {
    if (o->given & SQ_OPTS_RANGE)
      return sq_fail(st, "%s codes have no integer range (quant_min, quant_max "
                         "and reduce_range apply to integer codes)", dt->name);
    if ((o->given & SQ_OPT_ROUNDING) && o->rounding != SQ_ROUNDING_ONNX)
      return sq_fail(st, "%s codes divide by the scale as ONNX does (rounding=onnx), "
                         "got rounding=%s", dt->name,
                     o->rounding == SQ_ROUNDING_TORCH ? "torch" : "tutorial");
    return SQ_OK;
  }
  if (o->given & SQ_OPT_SATURATE)
    return sq_fail(st, "option saturate applies to float8 codes, not %s", dt->name);
  if (o->rounding == SQ_ROUNDING_TUTORIAL && dt->bits > 16)
    return sq_fail(st, "rounding=tutorial needs codes of at most 16 bits, got %s",
                   dt->name);
  if (has_min) {
    if (o->quant_min < dt->qmin || o->quant_min > dt->qmax)
      return sq_fail(st, "quant_min %lld is outside the %s range %lld..%lld",
                     (long long)o->quant_min, dt->name, (long long)dt->qmin,
                     (long long)dt->qmax);
    r->qmin = o->quant_min;
  }
  if (has_max) {
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

void sq_range_default(const sq_dtype *dt, sq_range *r) {
  r->dtype = dt;
  r->qmin = dt->qmin;
  r->qmax = dt->qmax;
  r->is_default = 1;
  r->include_zero = 1;
  r->params_double = 0;
  r->saturate = 1;
}
