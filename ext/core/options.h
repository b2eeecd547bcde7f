/*
** options.h: the options text (docs/NUMERICS.md#options) and the integer
** range a dtype gives under it.
*/
#ifndef SQ_OPTIONS_H
#define SQ_OPTIONS_H

#include <stdint.h>
#include "core/catalogue.h"
#include "core/dtype.h"
#include "core/status.h"

/* Option keys, as bits: each function passes the set it accepts. */
enum {
  SQ_OPT_QUANT_MIN = 1 << 0, SQ_OPT_QUANT_MAX = 1 << 1,
  SQ_OPT_REDUCE_RANGE = 1 << 2, SQ_OPT_ROUNDING = 1 << 3,
  SQ_OPT_METHOD = 1 << 4, SQ_OPT_PERCENTILE = 1 << 5,
  SQ_OPT_OBSERVER = 1 << 6, SQ_OPT_AVERAGING = 1 << 7,
  /* q_compare's candidate lists */
  SQ_OPT_DTYPES = 1 << 8, SQ_OPT_SCHEMES = 1 << 9,
  SQ_OPT_BLOCKS = 1 << 10, SQ_OPT_METHODS = 1 << 11, SQ_OPT_GGML = 1 << 12,
  /* the tutorial's formula (docs/NUMERICS.md#the-tutorials-formula) */
  SQ_OPT_INCLUDE_ZERO = 1 << 13, SQ_OPT_PARAMS = 1 << 14,
  /* histogram methods: bins (histogram, entropy), quantized_bins (entropy) */
  SQ_OPT_BINS = 1 << 15, SQ_OPT_QUANTIZED_BINS = 1 << 16,
  /* mxfp4's shared-exponent rule (docs/NUMERICS.md#mx-shared-exponent-rules) */
  SQ_OPT_MX_EXPONENT = 1 << 17,
  /* float8 codes: ONNX QuantizeLinear's saturate (docs/NUMERICS.md#float8-codes) */
  SQ_OPT_SATURATE = 1 << 18,
  /* q_compare: bitsandbytes' 4-bit types (bnb4=nf4+fp4@128) */
  SQ_OPT_BNB4 = 1 << 19,
  /* q_ggml_quantize: importance=none, ggml's quantize_<type>(.., NULL) */
  SQ_OPT_IMPORTANCE = 1 << 20,
};
#define SQ_OPTS_RANGE (SQ_OPT_QUANT_MIN | SQ_OPT_QUANT_MAX | SQ_OPT_REDUCE_RANGE)
/* Functions that quantize with given parameters (quantize*_blob and
** q_fake_quantize* also take saturate). */
#define SQ_OPTS_QUANTIZE (SQ_OPTS_RANGE | SQ_OPT_ROUNDING)
/* Functions that choose parameters (rounding matters to mse calibration). */
#define SQ_OPTS_METHOD (SQ_OPT_PERCENTILE | SQ_OPT_BINS | SQ_OPT_QUANTIZED_BINS | \
                        SQ_OPT_INCLUDE_ZERO | SQ_OPT_PARAMS)
#define SQ_OPTS_CALIBRATE (SQ_OPTS_QUANTIZE | SQ_OPT_METHOD | SQ_OPTS_METHOD)
#define SQ_OPTS_OBSERVE (SQ_OPTS_CALIBRATE | SQ_OPT_OBSERVER | SQ_OPT_AVERAGING)
#define SQ_OPTS_COMPARE (SQ_OPT_REDUCE_RANGE | SQ_OPT_ROUNDING | SQ_OPTS_METHOD | \
                         SQ_OPT_DTYPES | SQ_OPT_SCHEMES | SQ_OPT_BLOCKS |         \
                         SQ_OPT_METHODS | SQ_OPT_GGML | SQ_OPT_BNB4)

/* The most histogram bins an option may ask for. */
#define SQ_MAX_BINS (1 << 20)

/* The calibration methods of ext/catalogue.toml, in its order
** (SQ_METHOD_MINMAX is 0, the default). */
#define SQ_METHOD_ENUM(name, NAME) SQ_METHOD_##NAME,
enum { SQ_CATALOGUE_METHODS(SQ_METHOD_ENUM) SQ_NMETHODS };
#undef SQ_METHOD_ENUM
/* rounding=: multiply by 1/scale (PyTorch), divide (ONNX), or divide and add
** the zero point before rounding (the tutorial's formula). */
enum { SQ_ROUNDING_TORCH = 0, SQ_ROUNDING_ONNX, SQ_ROUNDING_TUTORIAL };

typedef struct sq_options {
  unsigned given;           /* SQ_OPT_* bits of the keys present */
  int64_t quant_min, quant_max;
  int reduce_range;
  int rounding;             /* SQ_ROUNDING_* */
  int method;               /* SQ_METHOD_* */
  double percentile;        /* default 99.99 */
  int include_zero;         /* default 1: the range is widened to hold 0 */
  int params_double;        /* params=double: the tutorial's arithmetic */
  int64_t bins;             /* 0: the method's default */
  int64_t quantized_bins;   /* 0: the method's default */
  int moving_average;       /* observer=moving_average */
  double averaging_constant; /* default 0.01 */
  int saturate;             /* default 1 */
  char dtypes[64], schemes[64], blocks[64], methods[64], ggml[64], bnb4[64];
  int mx_exponent;          /* SQ_MX_* (kernels/ggml_lowbit.h), 0: ggml's */
  int importance_none;      /* importance=none (the one value) */
} sq_options;

/* Parses options text (NULL: none) allowing the keys in `allowed`. */
int sq_options_parse(const char *text, unsigned allowed, sq_options *o,
                     sq_status *st);
/* A method's name (ASCII case ignored) -> SQ_METHOD_*; 0 when unknown.
** sq_method_names adds every name to a message's list (core/text.h). */
int sq_method_parse(const char *s, size_t len, int *method);
struct sq_names;
void sq_method_names(struct sq_names *l);
/* A scheme's name (ASCII case ignored) -> the `symmetric` value the code
** carries for it: 0 affine, 1 symmetric, SQ_SCHEME_LOG2; 0 when unknown.
** sq_scheme_names adds every name to a list. */
int sq_scheme_parse(const char *s, size_t len, int *symmetric);
void sq_scheme_names(struct sq_names *l);
/* mx_exponent's rules by SQ_MX_* (kernels/ggml_lowbit.h): "ggml", "ocp",
** "torchao-rceil", "torchao-ceil", "torchao-even", "mlx". */
const char *sq_mx_rule_name(int rule);
void sq_mx_rule_names(struct sq_names *l);

/* The name of a method (SQ_METHOD_*) and of a scheme (its `symmetric`
** value), as the catalogue spells them. */
const char *sq_method_name(int method);
const char *sq_scheme_name(int symmetric);

/* The integer range a dtype gives under the options.  rounding=tutorial
** with a dtype wider than 16 bits is refused here: its zero point is added
** in float32, exact only for codes of at most 16 bits.  A float8 dtype has
** no integer range: the range options and a rounding but onnx are refused
** for it, and saturate for any other dtype. */
typedef struct sq_range {
  int64_t qmin, qmax;
  int is_default;           /* no quant_min/quant_max/reduce_range given */
  const sq_dtype *dtype;
  /* How a float range becomes a scale and zero point (sq_choose_qparams;
  ** docs/NUMERICS.md#the-tutorials-formula): the options' include_zero and
  ** params_double, 1 and 0 for functions without options. */
  int include_zero, params_double;
  /* float8 codes: saturate=1 clamps overflow to the largest finite code */
  int saturate;
} sq_range;

int sq_range_resolve(const sq_dtype *dt, const sq_options *o, sq_range *r,
                     sq_status *st);
/* The dtype's own range, as functions without options use it. */
void sq_range_default(const sq_dtype *dt, sq_range *r);

#endif
