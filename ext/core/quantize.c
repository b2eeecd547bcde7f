/*
** quantize.c: quantize, dequantize and fake-quantize under any granularity.
**
** Each operation walks the granularity's pieces (granularity.c) and hands
** each to the kernel that fits its layout: a run with one group to the
** plain kernels, a row of groups to the interleaved ones (float8 codes to
** their own kernels, kernels/float8.c).  Codes narrower than a byte (4-bit
** and 2-bit) are produced one byte each into a small temporary and packed
** piece by piece (a piece may start mid-byte), so no tensor-sized
** temporary is ever needed; fake quantization goes through the same kind of
** temporary and never packs.
*/
#include <string.h>
#include "core/quantize.h"
#include "core/dtype.h"
#include "kernels/byteorder.h"

/* Elements per piece when a temporary is involved: small enough to stay in
** L1, even so that whole chunks start on a byte. */
#define SQ_CHUNK 4096

/* The interleaved kernels' parameters for `cols` groups from `group` on. */
static sq_channel_params sq_params_at(const sq_param_set *ps, size_t group,
                                      size_t cols) {
  sq_channel_params p = ps->p;
  p.channels = cols;
  p.scale += group;
  p.inv += group;
  p.lo += group;
  p.hi += group;
  p.zp += group;
  p.add += group;
  return p;
}

/* Codes of piece p (size bytes each) into dst; returns the index within the
** piece of the first NaN, or its element count. */
static size_t sq_piece_quantize(const sq_kernels *k, sq_code_type code,
                                size_t size, const unsigned char *x,
                                const sq_piece *p, const sq_param_set *ps,
                                unsigned char *dst) {
  const unsigned char *src = x + 4 * p->first;
  if (p->block == 1) {
    sq_channel_params cp = sq_params_at(ps, p->group, p->cols);
    return k->quantize_interleaved[code](src, p->rows, &cp, dst);
  }
  for (size_t c = 0; c < p->cols; c += p->block) {
    size_t len = p->cols - c < p->block ? p->cols - c : p->block;
    size_t bad = k->quantize[code](src + 4 * c, len,
                                   &ps->each[p->group + c / p->block],
                                   dst + size * c);
    if (bad < len) return c + bad;
  }
  return p->cols;
}

/* Float32 of piece p's codes (size bytes each, at src) into y. */
static void sq_piece_dequantize(const sq_kernels *k, sq_code_type code,
                                size_t size, const unsigned char *src,
                                const sq_piece *p, const sq_param_set *ps,
                                unsigned char *y) {
  unsigned char *dst = y + 4 * p->first;
  if (p->block == 1) {
    sq_channel_params cp = sq_params_at(ps, p->group, p->cols);
    k->dequantize_interleaved[code](src, p->rows, &cp, dst);
    return;
  }
  for (size_t c = 0; c < p->cols; c += p->block) {
    size_t len = p->cols - c < p->block ? p->cols - c : p->block;
    size_t gi = p->group + c / p->block;
    k->dequantize[code](src + size * c, len, ps->p.scale[gi], ps->p.zp[gi],
                        dst + 4 * c);
  }
}

/* float8 codes of piece p into dst (one byte each); NaN is a code. */
static void sq_piece_f8_quantize(const sq_kernels *k, int fmt, int sat,
                                 const unsigned char *x, const sq_piece *p,
                                 const sq_param_set *ps, unsigned char *dst) {
  const unsigned char *src = x + 4 * p->first;
  if (p->block == 1) {
    k->f8_quantize_il(src, p->rows, p->cols, ps->p.scale + p->group, fmt, sat,
                      dst);
    return;
  }
  for (size_t c = 0; c < p->cols; c += p->block) {
    size_t len = p->cols - c < p->block ? p->cols - c : p->block;
    k->f8_quantize(src + 4 * c, len, ps->p.scale[p->group + c / p->block], fmt,
                   sat, dst + c);
  }
}

static void sq_piece_f8_dequantize(const sq_kernels *k, int fmt,
                                   const unsigned char *src, const sq_piece *p,
                                   const sq_param_set *ps, unsigned char *y) {
  unsigned char *dst = y + 4 * p->first;
  if (p->block == 1) {
    k->f8_dequantize_il(src, p->rows, p->cols, ps->p.scale + p->group, fmt, dst);
    return;
  }
  for (size_t c = 0; c < p->cols; c += p->block) {
    size_t len = p->cols - c < p->block ? p->cols - c : p->block;
    k->f8_dequantize(src + c, len, ps->p.scale[p->group + c / p->block], fmt,
                     dst + 4 * c);
  }
}

/* 4-bit codes, one per byte, into packed storage from element `first` on;
** an odd first fills the high nibble of a byte whose low nibble is set
** (quantize.h). */
void sq_pack4_at(const sq_kernels *k, const unsigned char *codes,
                        size_t n, size_t first, unsigned char *packed) {
  if (n && (first & 1)) {
    unsigned char *b = packed + first / 2;
    *b = (unsigned char)((*b & 0x0f) | ((codes[0] & 0x0f) << 4));
    codes++;
    n--;
    first++;
  }
  k->pack4(codes, n, packed + first / 2);
}

void sq_unpack4_at(const sq_kernels *k, const unsigned char *packed,
                          size_t first, size_t n, int is_signed,
                          unsigned char *codes) {
  if (n && (first & 1)) {
    unsigned nib = packed[first / 2] >> 4;
    codes[0] = (unsigned char)(is_signed && nib >= 8 ? nib | 0xf0 : nib);
    codes++;
    n--;
    first++;
  }
  k->unpack4(packed + first / 2, n, is_signed, codes);
}

/* 2-bit codes, one per byte, into packed storage from element `first` on
** (element 4i in the low two bits).  Pieces come in element order: a code
** that starts a byte writes the whole byte (clearing the bits after it),
** the others fill their own two bits. */
void sq_pack2_at(const unsigned char *codes, size_t n, size_t first,
                 unsigned char *packed) {
  for (size_t i = 0; i < n; i++) {
    size_t e = first + i;
    unsigned shift = (unsigned)(e & 3) * 2, c = codes[i] & 3u;
    unsigned char *b = packed + e / 4;
    *b = (unsigned char)(shift ? (*b & ~(3u << shift)) | (c << shift) : c);
  }
}

void sq_unpack2_at(const unsigned char *packed, size_t first, size_t n,
                   int is_signed, unsigned char *codes) {
  for (size_t i = 0; i < n; i++) {
    size_t e = first + i;
    unsigned v = (packed[e / 4] >> ((e & 3) * 2)) & 3u;
    codes[i] = (unsigned char)(is_signed && v >= 2 ? v | 0xfcu : v);
  }
}

/* What a walk carries from piece to piece. */
typedef struct sq_walk {
  const sq_kernels *k;
  const sq_dtype *dt;
  size_t size;              /* bytes per unpacked code */
  const unsigned char *x;   /* floats in */
  const unsigned char *codes_in;
  unsigned char *codes_out, *y, *tmp;
  const sq_param_set *ps;
  double *sum_x2, *sum_d2;
  int saturate;             /* float8 codes */
} sq_walk;

/* Walks g with fn; when the walk needs a temporary of `size` bytes per
** element (tmp_size > 0) it gets one sized for the largest chunked piece,
** on the stack when small enough. */
static int sq_walk_pieces(const sq_granularity *g, sq_walk *w, size_t tmp_size,
                          sq_piece_fn fn, sq_status *st) {
  if (tmp_size == 0) return sq_granularity_walk(g, 0, fn, w, st);
  unsigned char local[4 * SQ_CHUNK];
  size_t n = sq_granularity_piece_max(g, SQ_CHUNK);
  w->tmp = n * tmp_size <= sizeof local ? local : sq_alloc(st, n, tmp_size);
  if (!w->tmp) return st->code;
  int rc = sq_granularity_walk(g, SQ_CHUNK, fn, w, st);
  if (w->tmp != local) sqlite3_free(w->tmp);
  return rc;
}

static int sq_quantize_piece(void *ctx, const sq_piece *p, sq_status *st) {
  sq_walk *w = ctx;
  if (w->dt->f8) {
    sq_piece_f8_quantize(w->k, w->dt->f8, w->saturate, w->x, p, w->ps,
                         w->codes_out + p->first);
    return SQ_OK;
  }
  int packed = w->dt->bits < 8;
  unsigned char *dst = packed ? w->tmp : w->codes_out + w->size * p->first;
  size_t n = p->rows * p->cols;
  size_t bad = sq_piece_quantize(w->k, w->dt->code, w->size, w->x, p, w->ps, dst);
  if (bad < n) return sq_fail(st, "element %zu is NaN", p->first + bad);
  if (w->dt->bits == 4) sq_pack4_at(w->k, w->tmp, n, p->first, w->codes_out);
  else if (packed) sq_pack2_at(w->tmp, n, p->first, w->codes_out);
  return SQ_OK;
}

int sq_quantize(const sq_kernels *k, const sq_tensor *x, const sq_granularity *g,
                const sq_range *r, const sq_param_set *ps, void *codes,
                sq_status *st) {
  sq_walk w = {k, r->dtype, sq_dtype_code_size(r->dtype), x->data, NULL, codes,
               NULL, NULL, ps, NULL, NULL, r->saturate};
  return sq_walk_pieces(g, &w, r->dtype->bits < 8, sq_quantize_piece, st);
}

static int sq_dequantize_piece(void *ctx, const sq_piece *p, sq_status *st) {
  (void)st;
  sq_walk *w = ctx;
  const unsigned char *src = w->codes_in + w->size * p->first;
  if (w->dt->f8) {
    sq_piece_f8_dequantize(w->k, w->dt->f8, src, p, w->ps, w->y);
    return SQ_OK;
  }
  if (w->dt->bits == 4) {
    sq_unpack4_at(w->k, w->codes_in, p->first, p->rows * p->cols,
                  w->dt->is_signed, w->tmp);
    src = w->tmp;
  } else if (w->dt->bits == 2) {
    sq_unpack2_at(w->codes_in, p->first, p->rows * p->cols, w->dt->is_signed,
                  w->tmp);
    src = w->tmp;
  }
  sq_piece_dequantize(w->k, w->dt->code, w->size, src, p, w->ps, w->y);
  return SQ_OK;
}

int sq_dequantize(const sq_kernels *k, const void *codes, const sq_granularity *g,
                  const sq_dtype *dt, const sq_param_set *ps, void *out,
                  sq_status *st) {
  sq_walk w = {k, dt, sq_dtype_code_size(dt), NULL, codes, NULL, out, NULL, ps,
               NULL, NULL, 1};
  return sq_walk_pieces(g, &w, dt->bits < 8, sq_dequantize_piece, st);
}

static int sq_fake_piece(void *ctx, const sq_piece *p, sq_status *st) {
  sq_walk *w = ctx;
  size_t n = p->rows * p->cols;
  if (w->dt->f8) {
    /* the piece's codes at the start of the temporary */
    sq_piece at0 = *p;
    at0.first = 0;
    sq_piece_f8_quantize(w->k, w->dt->f8, w->saturate, w->x + 4 * p->first,
                         &at0, w->ps, w->tmp);
    sq_piece_f8_dequantize(w->k, w->dt->f8, w->tmp, p, w->ps, w->y);
    return SQ_OK;
  }
  size_t bad = sq_piece_quantize(w->k, w->dt->code, w->size, w->x, p, w->ps, w->tmp);
  if (bad < n) return sq_fail(st, "element %zu is NaN", p->first + bad);
  sq_piece_dequantize(w->k, w->dt->code, w->size, w->tmp, p, w->ps, w->y);
  return SQ_OK;
}

int sq_fake_quantize(const sq_kernels *k, const sq_tensor *x,
                     const sq_granularity *g, const sq_range *r,
                     const sq_param_set *ps, void *out, sq_status *st) {
  sq_walk w = {k, r->dtype, sq_dtype_code_size(r->dtype), x->data, NULL, NULL,
               out, NULL, ps, NULL, NULL, r->saturate};
  return sq_walk_pieces(g, &w, w.size, sq_fake_piece, st);
}

static int sq_errors_piece(void *ctx, const sq_piece *p, sq_status *st) {
  (void)st;
  sq_walk *w = ctx;
  const unsigned char *a = w->x + 4 * p->first, *b = w->y + 4 * p->first;
  if (p->block == 1) {                  /* a group per column */
    for (size_t i = 0; i < p->rows * p->cols; i++) {
      double u = (double)sq_load_f32(a + 4 * i);
      double d = u - (double)sq_load_f32(b + 4 * i);
      w->sum_x2[p->group + i % p->cols] += u * u;
      w->sum_d2[p->group + i % p->cols] += d * d;
    }
    return SQ_OK;
  }
  for (size_t c = 0; c < p->cols; c += p->block) {
    size_t len = p->cols - c < p->block ? p->cols - c : p->block;
    double sx = 0.0, sd = 0.0;
    for (size_t i = c; i < c + len; i++) {
      double u = (double)sq_load_f32(a + 4 * i);
      double d = u - (double)sq_load_f32(b + 4 * i);
      sx += u * u;
      sd += d * d;
    }
    w->sum_x2[p->group + c / p->block] += sx;
    w->sum_d2[p->group + c / p->block] += sd;
  }
  return SQ_OK;
}

int sq_group_errors(const sq_tensor *x, const void *y, const sq_granularity *g,
                    double *sum_x2, double *sum_d2, sq_status *st) {
  for (size_t i = 0; i < g->groups; i++) sum_x2[i] = sum_d2[i] = 0.0;
  sq_walk w = {NULL, NULL, 0, x->data, NULL, NULL, (unsigned char *)y, NULL,
               NULL, sum_x2, sum_d2, 1};
  return sq_walk_pieces(g, &w, 0, sq_errors_piece, st);
}

/* ---- fake quantization's error sums, piece by piece ---------------------- */

typedef struct sq_fake_errors {
  sq_walk w;                /* w.tmp: codes, then `cap` floats */
  size_t cap;               /* elements of the largest piece */
  sq_error_lanes *acc;
} sq_fake_errors;

static int sq_fake_errors_piece(void *ctx, const sq_piece *p, sq_status *st) {
  sq_fake_errors *f = ctx;
  sq_walk *w = &f->w;
  size_t n = p->rows * p->cols;
  size_t bad = sq_piece_quantize(w->k, w->dt->code, w->size, w->x, p, w->ps, w->tmp);
  if (bad < n) return sq_fail(st, "element %zu is NaN", p->first + bad);
  /* The piece's floats at the start of their temporary, not at p->first. */
  sq_piece at0 = *p;
  at0.first = 0;
  unsigned char *y = w->tmp + w->size * f->cap;
  sq_piece_dequantize(w->k, w->dt->code, w->size, w->tmp, &at0, w->ps, y);
  w->k->error_lanes(w->x + 4 * p->first, y, n, p->first % SQ_ERROR_LANES, f->acc);
  return SQ_OK;
}

int sq_fake_quantize_errors(const sq_kernels *k, const sq_tensor *x,
                            const sq_granularity *g, const sq_range *r,
                            const sq_param_set *ps, sq_error_lanes *acc,
                            sq_status *st) {
  sq_fake_errors f;
  if (r->dtype->f8)   /* callers take integer codes only */
    return sq_fail(st, "%s codes have no error sums here", r->dtype->name);
  memset(&f, 0, sizeof f);
  f.w.k = k;
  f.w.dt = r->dtype;
  f.w.size = sq_dtype_code_size(r->dtype);
  f.w.x = x->data;
  f.w.ps = ps;
  f.acc = acc;
  f.cap = sq_granularity_piece_max(g, SQ_CHUNK);
  /* Codes (at most 4 bytes each) and floats of one piece: 32 KiB on the
  ** stack covers every chunked piece; a wider interleaved row allocates. */
  unsigned char local[8 * SQ_CHUNK];
  size_t per = f.w.size + 4;
  f.w.tmp = f.cap <= sizeof local / per ? local : sq_alloc(st, f.cap, per);
  if (!f.w.tmp) return st->code;
  int rc = sq_granularity_walk(g, SQ_CHUNK, sq_fake_errors_piece, &f, st);
  if (f.w.tmp != local) sqlite3_free(f.w.tmp);
  return rc;
}
