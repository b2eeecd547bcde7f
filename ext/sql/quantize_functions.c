/*
** quantize_functions.c: choosing parameters, quantizing, dequantizing and
** fake-quantizing, per tensor, per channel and per block.
**
**   per tensor (docs/NUMERICS.md#quantize):
**     q_scale(x [, dtype [, scheme [, options]]])                    REAL
**     q_zero_point(x [, dtype [, scheme [, options]]])               INTEGER
**     quantize_blob(x, scale, zero_point [, dtype [, options]])       codes
**     dequantize_blob(q, scale, zero_point [, dtype [, count]])       float32
**     q_fake_quantize(x, scale, zero_point [, dtype [, options]])     float32
**   per channel (docs/NUMERICS.md#per-channel): the same with shape, axis
**     after x (or after the parameters), scales and zero points as blobs:
**     q_per_channel_scales, q_per_channel_zero_points,
**     quantize_per_channel_blob, dequantize_per_channel_blob,
**     q_fake_quantize_per_channel
**   per block (docs/NUMERICS.md#per-block): shape, axis, block_size:
**     q_block_scales, q_block_zero_points, quantize_per_block_blob,
**     dequantize_per_block_blob, q_fake_quantize_per_block
**
** Rules: NULL in any argument gives NULL; an empty tensor has no parameters
** (error) but quantizes to an empty blob; NaN is an error naming the
** element, but for float8 codes (docs/NUMERICS.md#float8-codes), which
** the quantize, dequantize and fake-quantize functions take and the
** parameter functions do not; given parameters are checked as docs/NUMERICS.md#argument-checks
** says, and an error names the channel or block.
**
** The fifteen functions are one table over four skeletons (parameters,
** quantize, fake quantize, dequantize): a function's variant says which
** operation and which granularity, and the granularity says which arguments
** describe the layout and how the parameters are passed.
*/
#include <stdio.h>
#include <string.h>
#include "sql/sql.h"

enum { SQ_OP_SCALES, SQ_OP_ZERO_POINTS, SQ_OP_QUANTIZE, SQ_OP_FAKE,
       SQ_OP_DEQUANTIZE };
#define SQ_VARIANT(op, kind) ((op) + 8 * (kind))

static int sq_op(const sq_fn *fn) { return fn->variant % 8; }
static sq_granularity_kind sq_kind(const sq_fn *fn) {
  return (sq_granularity_kind)(fn->variant / 8);
}

/* Arguments that describe the layout: none per tensor, (shape, axis) per
** channel, (shape, axis, block_size) per block. */
int sq_layout_args(sq_granularity_kind kind) {
  return kind == SQ_GRAN_TENSOR ? 0 : kind == SQ_GRAN_CHANNEL ? 2 : 3;
}

/* The granularity from the layout arguments at argv[i...]. */
static int sq_arg_granularity(sq_granularity_kind kind, sqlite3_value **argv,
                              int i, sq_shape *shape, sq_granularity *g,
                              sq_status *st) {
  int64_t axis, block;
  if (sq_arg_shape(argv[i], shape, st) ||
      sq_arg_int(argv[i + 1], "axis", &axis, st))
    return st->code;
  if (kind == SQ_GRAN_CHANNEL) return sq_granularity_channel(shape, axis, g, st);
  if (sq_arg_int(argv[i + 2], "block_size", &block, st)) return st->code;
  return sq_granularity_block(shape, axis, block, g, st);
}

/* x and its layout: x at argv[0], the layout at argv[first...] (sql.h). */
int sq_arg_x(sq_granularity_kind kind, sqlite3_value **argv, int first,
             sq_tensor *x, sq_granularity *g, sq_status *st) {
  sq_shape shape;
  if (sq_arg_tensor(argv[0], "x", x, st)) return st->code;
  if (kind == SQ_GRAN_TENSOR) {
    sq_granularity_tensor(x->n, g);
    return SQ_OK;
  }
  if (sq_arg_granularity(kind, argv, first, &shape, g, st)) return st->code;
  return sq_shape_check_count(&shape, x->n, st);
}

/* Given parameters at argv[1], argv[2]: a scale and a zero point per
** tensor; one per group, as blobs or JSON, otherwise. */
typedef struct sq_given {
  sq_param_one one;
  sq_param_set set;
  const sq_param_set *ps;
} sq_given;

static int sq_arg_given(sq_granularity_kind kind, sqlite3_value **argv,
                        const sq_granularity *g, const sq_range *r, int rounding,
                        sq_given *p, sq_status *st) {
  memset(&p->set, 0, sizeof p->set);
  if (kind == SQ_GRAN_TENSOR) {
    double scale_arg = 0;
    float scale;
    int64_t zp;
    if (sq_arg_double(argv[1], "scale", &scale_arg, st) ||
        sq_check_scale(scale_arg, NULL, 0, &scale, st) ||
        sq_arg_int(argv[2], "zero_point", &zp, st) ||
        sq_check_zero_point(zp, r, NULL, 0, st))
      return st->code;
    sq_param_one_make(scale, (int32_t)zp, r, rounding, &p->one);
    p->ps = &p->one.set;
    return SQ_OK;
  }
  char expected[48];
  if (kind == SQ_GRAN_CHANNEL)
    snprintf(expected, sizeof expected, "shape[%d]", g->axis);
  else
    snprintf(expected, sizeof expected, "one per block");
  p->ps = &p->set;
  return sq_arg_param_set(argv[1], argv[2], g->groups,
                          kind == SQ_GRAN_CHANNEL ? "channel" : "block",
                          expected, r, rounding, &p->set, st);
}

int sq_arg_codes_layout(sq_granularity_kind kind, int argc, sqlite3_value **argv,
                        int layout_at, int count_at, const sq_dtype *dt,
                        const void **codes, sq_granularity *g, sq_status *st) {
  size_t nbytes, n;
  if (sq_arg_codes(argv[0], "q", dt, codes, &nbytes, st)) return st->code;
  if (kind == SQ_GRAN_TENSOR) {
    int64_t count;
    if (sq_arg_count(argc, argv, count_at, &count, st) ||
        sq_codes_count(dt, nbytes, count, &n, st))
      return st->code;
    sq_granularity_tensor(n, g);
    return SQ_OK;
  }
  sq_shape shape;
  if (sq_arg_granularity(kind, argv, layout_at, &shape, g, st)) return st->code;
  if (sq_dtype_bytes(dt, shape.count) != nbytes)
    return sq_fail(st, "q has %zu bytes but the shape needs %llu for %s", nbytes,
                   (unsigned long long)sq_dtype_bytes(dt, shape.count), dt->name);
  return SQ_OK;
}

/* What every call of this file holds: its status and function, which
** granularity, where the optional arguments start, and what it must free. */
typedef struct sq_qcall {
  sq_status st;
  const sq_fn *fn;
  sq_granularity_kind kind;
  int opt;                  /* index of the dtype argument */
  sq_tensor x;
  sq_granularity g;
  sq_given given;
  void *out;                /* a result not yet handed to SQLite */
} sq_qcall;

/* 0 when an argument is NULL (the result is then NULL).  The optional
** arguments follow `fixed` arguments and the layout. */
static int sq_qcall_begin(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                          int fixed, sq_qcall *c) {
  memset(c, 0, sizeof *c);
  if (!(c->fn = sq_call(ctx, argc, argv, &c->st))) return 0;
  c->kind = sq_kind(c->fn);
  c->opt = fixed + sq_layout_args(c->kind);
  return 1;
}

static void sq_qcall_end(sqlite3_context *ctx, sq_qcall *c) {
  sqlite3_free(c->out);
  sq_param_set_free(&c->given.set);
  sq_tensor_free(&c->x);
  if (c->st.code) sq_result_status(ctx, c->fn->name, &c->st);
}

/* Hands the result buffer (nbytes, of that subtype) to SQLite. */
static void sq_qcall_result(sqlite3_context *ctx, sq_qcall *c, uint64_t nbytes,
                            unsigned subtype) {
  sq_result_typed(ctx, c->out, nbytes, subtype, &c->st);
  c->out = NULL;
}

int sq_arg_param_ranges(sq_granularity_kind kind, int argc, sqlite3_value **argv,
                        sq_param_ranges *p, sq_status *st) {
  int opt = 1 + sq_layout_args(kind);
  sq_options o;
  memset(p, 0, sizeof *p);
  if (sq_arg_x(kind, argv, 1, &p->x, &p->g, st) ||
      !(p->dt = sq_arg_dtype(argc, argv, opt, SQ_DTYPES_CODES, &sq_dtype_int8, st)) ||
      sq_arg_scheme(argc, argv, opt + 1, &p->symmetric, st) ||
      sq_arg_options(argc, argv, opt + 2, SQ_OPTS_CALIBRATE, &o, st) ||
      sq_range_resolve(p->dt, &o, &p->r, st) ||
      !(p->mm = sq_alloc(st, p->g.groups, 2 * sizeof *p->mm)) ||
      sq_ranges(sq_kernels_active(), &p->x, &p->g, &p->r, p->symmetric, &o,
                p->mm, p->mm + p->g.groups, st))
    return st->code;
  return SQ_OK;
}

void sq_param_ranges_free(sq_param_ranges *p) {
  sqlite3_free(p->mm);
  p->mm = NULL;
  sq_tensor_free(&p->x);
}

/* q_scale, q_zero_point, q_per_channel_scales, ..., q_block_zero_points:
** x, the layout, dtype, scheme, options. */
static void sq_params_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sq_qcall c;
  if (!sq_qcall_begin(ctx, argc, argv, 1, &c)) return;
  sq_status *st = &c.st;
  sq_param_ranges p;
  if (sq_arg_param_ranges(c.kind, argc, argv, &p, st)) goto done;
  const float *mn = p.mm, *mx = p.mm + p.g.groups;
  int want_scale = sq_op(c.fn) == SQ_OP_SCALES;
  float scale;
  int32_t zp;
  if (p.symmetric == SQ_SCHEME_LOG2) {
    sq_result_log2_params(ctx, mn, mx, p.g.groups, c.kind == SQ_GRAN_TENSOR,
                          p.dt, want_scale, st);
  } else if (c.kind != SQ_GRAN_TENSOR) {
    sq_result_params(ctx, mn, mx, p.g.groups, &p.r, p.symmetric, want_scale, st);
  } else if (!sq_choose_qparams(mn[0], mx[0], &p.r, p.symmetric, &scale, &zp, st)) {
    if (want_scale) sqlite3_result_double(ctx, (double)scale);
    else sqlite3_result_int64(ctx, zp);
  }
done:
  sq_param_ranges_free(&p);
  sq_qcall_end(ctx, &c);
}

/* quantize_blob, q_fake_quantize and their per-channel and per-block twins:
** x, scales, zero points, the layout, dtype, options. */
static void sq_quantize_func(sqlite3_context *ctx, int argc,
                             sqlite3_value **argv) {
  sq_qcall c;
  if (!sq_qcall_begin(ctx, argc, argv, 3, &c)) return;
  sq_status *st = &c.st;
  int fake = sq_op(c.fn) == SQ_OP_FAKE;
  sq_options o;
  sq_range r;
  const sq_dtype *dt;
  const sq_kernels *k = sq_kernels_active();
  if (sq_arg_x(c.kind, argv, 3, &c.x, &c.g, st) ||
      !(dt = sq_arg_dtype(argc, argv, c.opt, SQ_DTYPES_QUANT, &sq_dtype_int8, st)) ||
      sq_arg_options(argc, argv, c.opt + 1, SQ_OPTS_QUANTIZE | SQ_OPT_SATURATE,
                     &o, st) ||
      sq_range_resolve(dt, &o, &r, st) ||
      sq_arg_given(c.kind, argv, &c.g, &r, o.rounding, &c.given, st))
    goto done;
  uint64_t nbytes = fake ? (uint64_t)c.x.n * 4 : sq_dtype_bytes(dt, c.x.n);
  if ((c.out = sq_alloc(st, nbytes, 1)) &&
      !(fake ? sq_fake_quantize(k, &c.x, &c.g, &r, c.given.ps, c.out, st)
             : sq_quantize(k, &c.x, &c.g, &r, c.given.ps, c.out, st)))
    sq_qcall_result(ctx, &c, nbytes,
                    fake ? SQ_SUBTYPE_F32 : sq_dtype_subtype(dt));
done:
  sq_qcall_end(ctx, &c);
}

/* dequantize_blob(q, scale, zero_point [, dtype [, count]]) and the
** per-channel and per-block ones: q, scales, zero points, the layout,
** dtype. */
static void sq_dequantize_func(sqlite3_context *ctx, int argc,
                               sqlite3_value **argv) {
  sq_qcall c;
  if (!sq_qcall_begin(ctx, argc, argv, 3, &c)) return;
  sq_status *st = &c.st;
  sq_range r;
  const void *codes;
  size_t n;
  const sq_dtype *dt = sq_arg_dtype_of(argc, argv, c.opt, SQ_DTYPES_QUANT,
                                       &sq_dtype_int8, argv[0], "q", st);
  if (!dt || sq_arg_codes_layout(c.kind, argc, argv, 3, c.opt + 1, dt, &codes,
                                 &c.g, st))
    goto done;
  n = sq_granularity_count(&c.g);
  sq_range_default(dt, &r);
  if (!sq_arg_given(c.kind, argv, &c.g, &r, SQ_ROUNDING_TORCH, &c.given, st) &&
      (c.out = sq_alloc(st, n, 4)) &&
      !sq_dequantize(sq_kernels_active(), codes, &c.g, dt, c.given.ps, c.out, st))
    sq_qcall_result(ctx, &c, (uint64_t)n * 4, SQ_SUBTYPE_F32);
done:
  sq_qcall_end(ctx, &c);
}

/* The family's functions of ext/catalogue.toml (sql/catalogue.h). */
static const sq_fn_def sq_quantize_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_QUANTIZE(SQ_FN_DEF)
};

int sq_register_quantize_functions(sq_registry *r) {
  return sq_register_table(r, sq_quantize_defs,
                           sizeof sq_quantize_defs / sizeof sq_quantize_defs[0]);
}
