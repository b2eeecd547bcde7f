/*
** core.h: the core layer.  Turns bytes, text and numbers into checked
** descriptions (tensors, dtypes, options, shapes, parameters) and runs the
** kernels over them.  Errors are reported into an sq_status as a message
** without the function name; the SQL layer adds the name and raises it.
*/
#ifndef SQ_CORE_H
#define SQ_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "sq_sqlite.h"
#include "sqlite_quant.h"

/* ---- status --------------------------------------------------------------- */

enum { SQ_OK = 0, SQ_INVALID, SQ_NOMEM, SQ_TOOBIG, SQ_NULL };

typedef struct sq_status {
  int code;                 /* SQ_OK, SQ_INVALID, SQ_NOMEM, SQ_TOOBIG */
  sqlite3_int64 max_bytes;  /* largest value allowed (SQLITE_LIMIT_LENGTH) */
  char msg[256];
} sq_status;

/* Records a formatted SQ_INVALID message (first one wins); returns SQ_INVALID. */
int sq_fail(sq_status *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int sq_nomem(sq_status *st);
int sq_toobig(sq_status *st);

/* The one way to size memory (status.c): count * size bytes, overflow-checked
** and refused with SQ_TOOBIG above st->max_bytes (SQLITE_LIMIT_LENGTH). */
int sq_size(sq_status *st, uint64_t count, uint64_t size, uint64_t *bytes);
/* A buffer of count * size bytes sized by sq_size (at least 1 byte is
** allocated); NULL with SQ_TOOBIG or SQ_NOMEM in st.  Free with sqlite3_free. */
void *sq_alloc(sq_status *st, uint64_t count, uint64_t size);
/* sqlite3_realloc64 sized the same way; on failure old is left untouched. */
void *sq_realloc(sq_status *st, void *old, uint64_t count, uint64_t size);

/* Decimal numbers are read and written in the C locale whatever the host
** process set (c_locale.c): bracket every strtod/printf of a number. */
typedef struct sq_locale { void *prev; } sq_locale;
sq_locale sq_locale_c_enter(void);
void sq_locale_c_leave(sq_locale saved);

/* ---- dtypes ----------------------------------------------------------------- */

typedef enum sq_format_kind { SQ_FMT_CODE, SQ_FMT_FLOAT } sq_format_kind;

typedef struct sq_dtype {
  const char *name;         /* canonical name: int8, uint4, f32, ... */
  const char *alias;        /* PyTorch name, or NULL */
  sq_format_kind kind;
  int bits;                 /* 4, 8, 16, 32 or 64 */
  int is_signed;
  int64_t qmin, qmax;       /* code range (codes only) */
  sq_code_type code;        /* storage the kernels write (4-bit: I8/U8) */
} sq_dtype;

extern const sq_dtype sq_dtype_int8, sq_dtype_f32;

/* Looks a dtype up by name, case-insensitively.  want_float selects which
** family is valid: 0 codes only, 1 floats (f32, f16, bf16) or codes,
** 2 floats only (including f64). */
const sq_dtype *sq_dtype_find(const char *name, int family, sq_status *st);
/* Bytes needed for n elements (4-bit: ceil(n/2)). */
uint64_t sq_dtype_bytes(const sq_dtype *dt, uint64_t n);

/* ---- options -------------------------------------------------------------- */

/* Option keys, as bits: each function passes the set it accepts. */
enum {
  SQ_OPT_QUANT_MIN = 1 << 0,
  SQ_OPT_QUANT_MAX = 1 << 1,
  SQ_OPT_REDUCE_RANGE = 1 << 2,
  SQ_OPT_ROUNDING = 1 << 3,
  SQ_OPT_METHOD = 1 << 4,
  SQ_OPT_PERCENTILE = 1 << 5,
  SQ_OPT_OBSERVER = 1 << 6,
  SQ_OPT_AVERAGING = 1 << 7,
  SQ_OPT_DTYPES = 1 << 8,
  SQ_OPT_SCHEMES = 1 << 9,
  SQ_OPT_BLOCKS = 1 << 10,
  SQ_OPT_METHODS = 1 << 11,
};
#define SQ_OPTS_RANGE (SQ_OPT_QUANT_MIN | SQ_OPT_QUANT_MAX | SQ_OPT_REDUCE_RANGE)
/* Functions that quantize with given parameters. */
#define SQ_OPTS_QUANTIZE (SQ_OPTS_RANGE | SQ_OPT_ROUNDING)
/* Functions that choose parameters (rounding matters to mse calibration). */
#define SQ_OPTS_CALIBRATE (SQ_OPTS_QUANTIZE | SQ_OPT_METHOD | SQ_OPT_PERCENTILE)
#define SQ_OPTS_OBSERVE (SQ_OPTS_CALIBRATE | SQ_OPT_OBSERVER | SQ_OPT_AVERAGING)
#define SQ_OPTS_COMPARE (SQ_OPTS_QUANTIZE | SQ_OPT_PERCENTILE | SQ_OPT_DTYPES | \
                         SQ_OPT_SCHEMES | SQ_OPT_BLOCKS | SQ_OPT_METHODS)

enum { SQ_METHOD_MINMAX = 0, SQ_METHOD_PERCENTILE, SQ_METHOD_MSE };

typedef struct sq_options {
  unsigned given;           /* SQ_OPT_* bits of the keys present */
  int64_t quant_min, quant_max;
  int reduce_range;
  int rounding_onnx;
  int method;               /* SQ_METHOD_* */
  double percentile;        /* default 99.99 */
  int moving_average;       /* observer=moving_average */
  double averaging_constant; /* default 0.01 */
  char dtypes[64], schemes[64], blocks[64], methods[64];
} sq_options;

int sq_options_parse(const char *text, unsigned allowed, sq_options *o,
                     sq_status *st);
/* A strict decimal integer of at most 18 digits (optional sign): 1 when
** s[0..len) is one. */
int sq_parse_int(const char *s, size_t len, int64_t *out);
/* "minmax", "percentile", "mse" -> SQ_METHOD_*; 0 when unknown. */
int sq_method_parse(const char *s, size_t len, int *method);


/* The integer range a dtype gives under the options (SPEC 2.4). */
typedef struct sq_range {
  int64_t qmin, qmax;
  int is_default;           /* no quant_min/quant_max/reduce_range given */
  const sq_dtype *dtype;
} sq_range;

int sq_range_resolve(const sq_dtype *dt, const sq_options *o, sq_range *r,
                     sq_status *st);

/* ---- tensors ---------------------------------------------------------------- */

/* A float32 tensor: n little-endian floats at data (any alignment). */
typedef struct sq_tensor {
  const void *data;
  size_t n;
  void *owned;              /* sqlite3_free'd by sq_tensor_free */
} sq_tensor;

/* Decodes a float tensor argument (BLOB of float32 or JSON array text).
** Returns SQ_OK, SQ_NULL for a NULL value, or an error in st. */
int sq_tensor_from_value(sqlite3_value *v, const char *argname, sq_tensor *t,
                         sq_status *st);
/* The same for a list of int32 (zero points): int32 BLOB or JSON integers. */
int sq_int32s_from_value(sqlite3_value *v, const char *argname, sq_tensor *t,
                         sq_status *st);
void sq_tensor_free(sq_tensor *t);

/* JSON arrays of numbers, flattened.  out receives sqlite3_malloc'd
** little-endian float32; *n the count. */
int sq_json_parse_floats(const char *text, size_t len, const char *argname,
                         void **out, size_t *n, sq_status *st);
/* The same for integers that fit int32 (little-endian int32 out). */
int sq_json_parse_ints(const char *text, size_t len, const char *argname,
                       void **out, size_t *n, sq_status *st);
/* Appends the shortest decimal that reads back as the same float32. */
int sq_format_f32(float f, char *buf);

/* A blob of any element format, readable element by element (q_json, q_each,
** q_length).  Half formats are widened to float32 once; codes stay packed. */
typedef struct sq_elements {
  const sq_dtype *dt;
  sq_tensor f32;            /* float formats, as float32 */
  const unsigned char *codes;
  size_t n;
} sq_elements;

/* count >= 0 gives the element count of an odd-length 4-bit blob. */
int sq_elements_from_value(const sq_kernels *k, sqlite3_value *v,
                           const char *argname, const sq_dtype *dt,
                           int64_t count, sq_elements *e, sq_status *st);
void sq_elements_free(sq_elements *e);
float sq_element_float(const sq_elements *e, size_t i);
int64_t sq_element_code(const sq_elements *e, size_t i);

/* Converts n float64 (little-endian) to float32, rounding to nearest. */
void sq_f64_to_f32(const void *src, size_t n, void *dst);

/* Shapes (SPEC 1.5). */
#define SQ_MAX_DIMS 32
typedef struct sq_shape {
  int ndim;
  int64_t dim[SQ_MAX_DIMS];
  uint64_t count;           /* product of dims */
} sq_shape;

int sq_shape_from_value(sqlite3_value *v, sq_shape *s, sq_status *st);

/* A tensor viewed as outer x channels x inner around one axis. */
typedef struct sq_layout {
  size_t outer, channels, inner;
  int axis;                 /* normalised, 0 <= axis < ndim */
} sq_layout;

int sq_layout_make(const sq_shape *s, sqlite3_int64 axis, sq_layout *l,
                   sq_status *st);

/* ---- parameters --------------------------------------------------------------- */

/* min/max of a tensor; NaN or inf is an error naming the element. */
int sq_tensor_minmax(const sq_kernels *k, const void *x, size_t n,
                     size_t index_base, float *mn, float *mx, sq_status *st);

/* SPEC 3.3: scale and zero point from a range that is widened to hold 0. */
int sq_choose_qparams(float mn, float mx, const sq_range *r, int symmetric,
                      float *scale, int32_t *zp, sq_status *st);

/* SPEC 3.5 checks on a user-given scale and zero point, then the kernel
** parameters.  unit and index name the group in messages ("channel", 3);
** unit is NULL for a per-tensor parameter. */
int sq_check_scale(double scale, const char *unit, int64_t index, float *out,
                   sq_status *st);
int sq_check_zero_point(int64_t zp, const sq_range *r, const char *unit,
                        int64_t index,
                        sq_status *st);
void sq_qparams_make(float scale, int32_t zp, const sq_range *r, int divide,
                     sq_qparams *p);

/* ---- per-tensor operations ------------------------------------------------------- */

/* Quantizes x into codes (sq_dtype_bytes(dt, x->n) bytes). */
int sq_quantize(const sq_kernels *k, const sq_tensor *x, const sq_range *r,
                const sq_qparams *p, void *codes, sq_status *st);
/* out = dequantize(quantize(x)) in one pass over x. */
int sq_fake_quantize(const sq_kernels *k, const sq_tensor *x, const sq_range *r,
                     const sq_qparams *p, void *out, sq_status *st);
/* Dequantizes n codes into n little-endian float32. */
void sq_dequantize(const sq_kernels *k, const void *codes, size_t n,
                   const sq_dtype *dt, float scale, int32_t zp, void *out);
void sq_channel_errors(const void *x, const void *y, const sq_layout *l,
                       double *sum_x2, double *sum_d2);

/* ---- per-channel operations (SPEC 2.3, 3.4) -------------------------------- */

/* Checked parameters of every channel, in both layouts the kernels take. */
typedef struct sq_channel_set {
  sq_channel_params p;      /* arrays for the interleaved kernels */
  sq_qparams *each;         /* one struct per channel for contiguous runs */
  void *mem;
} sq_channel_set;

/* scales: little-endian float32, zps: little-endian int32, `channels` each. */
int sq_channel_set_make(const void *scales, const void *zps, size_t channels,
                        const char *unit, const sq_range *r, int divide,
                        sq_channel_set *cs, sq_status *st);
void sq_channel_set_free(sq_channel_set *cs);

int sq_channel_minmax(const sq_kernels *k, const sq_tensor *x,
                      const sq_layout *l, float *mn, float *mx, sq_status *st);
int sq_quantize_channels(const sq_kernels *k, const sq_tensor *x,
                         const sq_layout *l, const sq_range *r,
                         const sq_channel_set *cs, void *codes, sq_status *st);
int sq_dequantize_channels(const sq_kernels *k, const void *codes,
                           const sq_layout *l, const sq_dtype *dt,
                           const sq_channel_set *cs, void *out, sq_status *st);
int sq_fake_quantize_channels(const sq_kernels *k, const sq_tensor *x,
                              const sq_layout *l, const sq_range *r,
                              const sq_channel_set *cs, void *out,
                              sq_status *st);
/* Sum of x^2 and of (x - y)^2 per channel, in double. */
void sq_channel_errors(const void *x, const void *y, const sq_layout *l,
                       double *sum_x2, double *sum_d2);

/* ---- error metrics ------------------------------------------------------------ */

/* Sums of a against b (same length, at least 1, all finite).  Messages name
** the argument: "a has 3 elements but b has 4", "element 2 of b is NaN". */
int sq_error_between(const sq_kernels *k, const sq_tensor *a,
                     const sq_tensor *b, sq_error_sums *e, sq_status *st);
/* SQNR in dB from the sums: +inf for an exact match. */
double sq_sqnr_db(double sum_a2, double sum_d2);
/* Cosine similarity, each norm clamped to eps 1e-8 (torch.ao.ns). */
double sq_cosine(const sq_error_sums *e);

/* ---- calibration ---------------------------------------------------------------- */

/* The range [*lo, *hi] to choose parameters from, by o->method (minmax,
** percentile, mse).  x must not be empty; NaN or inf is an error naming the
** element (index_base + its index). */
int sq_calibrate(const sq_kernels *k, const sq_tensor *x, size_t index_base,
                 const sq_range *r, int symmetric, const sq_options *o,
                 float *lo, float *hi, sq_status *st);

/* Per-channel ranges by o->method (minmax is one pass; the others gather
** each channel's values and calibrate them). */
int sq_channel_ranges(const sq_kernels *k, const sq_tensor *x,
                      const sq_layout *l, const sq_range *r, int symmetric,
                      const sq_options *o, float *mn, float *mx,
                      sq_status *st);

/* ---- observers (calibration over rows) ------------------------------------------- */

typedef struct sq_observer sq_observer;
sq_observer *sq_observer_new(size_t channels, int moving, double averaging,
                             int keep_values, sq_status *st);
void sq_observer_free(sq_observer *ob);
/* A row's per-channel min and max (and its values when kept). */
int sq_observer_add(sq_observer *ob, const float *row_mn, const float *row_mx,
                    const sq_tensor *row, sq_status *st);
/* Drops the oldest row still observed. */
int sq_observer_remove(sq_observer *ob, sq_status *st);
int64_t sq_observer_rows(const sq_observer *ob);
void sq_observer_range(sq_observer *ob, size_t channel, float *mn, float *mx);
void sq_observer_values(const sq_observer *ob, sq_tensor *t);

/* ---- per-block operations (ONNX blocked quantization) ---------------------------- */

typedef struct sq_block_layout {
  size_t outer, len, inner;  /* len: the axis dimension */
  size_t block, nblocks;     /* block clipped to len; nblocks = ceil(len/block) */
  size_t nparams;            /* outer * nblocks * inner */
  int axis;
} sq_block_layout;

int sq_block_layout_make(const sq_shape *s, sqlite3_int64 axis,
                         sqlite3_int64 block_size, sq_block_layout *b,
                         sq_status *st);
/* mn/mx hold nparams entries, in parameter order. */
int sq_block_ranges(const sq_kernels *k, const sq_tensor *x,
                    const sq_block_layout *b, const sq_range *r, int symmetric,
                    const sq_options *o, float *mn, float *mx, sq_status *st);
int sq_quantize_blocks(const sq_kernels *k, const sq_tensor *x,
                       const sq_block_layout *b, const sq_range *r,
                       const sq_channel_set *cs, void *codes, sq_status *st);
int sq_dequantize_blocks(const sq_kernels *k, const void *codes,
                         const sq_block_layout *b, const sq_dtype *dt,
                         const sq_channel_set *cs, void *out, sq_status *st);
int sq_fake_quantize_blocks(const sq_kernels *k, const sq_tensor *x,
                            const sq_block_layout *b, const sq_range *r,
                            const sq_channel_set *cs, void *out, sq_status *st);

/* ---- scheme comparison ------------------------------------------------------------ */

enum { SQ_GRAN_TENSOR, SQ_GRAN_CHANNEL, SQ_GRAN_BLOCK };

typedef struct sq_scheme {
  const sq_dtype *dtype;
  int symmetric;
  int granularity;          /* SQ_GRAN_* */
  int64_t axis;             /* channel axis */
  int64_t block;            /* block size along the last axis */
  int method;               /* SQ_METHOD_* */
} sq_scheme;

typedef struct sq_scheme_result {
  sq_error_sums sums;
  size_t groups;            /* parameter sets stored */
  double bits_per_weight;
  uint64_t bytes;
} sq_scheme_result;

/* Parameter groups of a scheme on a shape (0 if the shape does not fit). */
size_t sq_scheme_groups(const sq_shape *shape, const sq_scheme *s);
/* The calibrated range of every group (mn, mx: sq_scheme_groups entries). */
int sq_scheme_ranges(const sq_kernels *k, const sq_tensor *x,
                     const sq_shape *shape, const sq_scheme *s,
                     const sq_range *r, const sq_options *o, float *mn,
                     float *mx, sq_status *st);
/* Round trip of x under scheme s; scratch holds x->n floats.  ranges, when
** not NULL, are the groups' min/max computed before (min and max observed
** ranges do not depend on the dtype or scheme, so q_compare shares them). */
int sq_scheme_eval(const sq_kernels *k, const sq_tensor *x, const sq_shape *shape,
                   const sq_scheme *s, const sq_options *o, const float *ranges,
                   void *scratch, sq_scheme_result *res, sq_status *st);

#endif
