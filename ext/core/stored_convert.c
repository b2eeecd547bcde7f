/*
** stored_convert.c: a tensor's stored bytes, in any dtype a model file
** carries, as float32 (docs/FORMATS.md#converting-to-float32).
**
**   f32 f16 bf16    exact (half formats widened exactly)
**   f64             rounded to nearest float32; a finite value beyond
**                   float32's range is an error naming the element
**   int8 ... uint64 C's integer-to-float conversion: exact when |v| <= 2^24,
**                   else rounded to nearest (even), as numpy's astype
**   bool            0 or 1 (any nonzero byte is 1)
**   f8_e4m3fn         OCP E4M3 "FN": bias 7, no infinities, S.1111.111 NaN
**   f8_e5m2         OCP E5M2: the top byte of an IEEE half, widened exactly
**   q4_0 ... q6_K   ggml's dequantize_row_<type> (whole blocks only)
**   "...be"         the big-endian forms of the above (npy's '>f4' ...)
**
** Every path reads bytes through the byteorder helpers and writes
** little-endian float32, so the result is the same on every host.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/catalogue.h"
#include "core/dtype.h"
#include "core/ggml_quant.h"
#include "core/tensor.h"
#include "core/text.h"
#include "kernels/byteorder.h"

typedef enum stored_kind {
  ST_F32, ST_F16, ST_BF16, ST_F64, ST_SIGNED, ST_UNSIGNED, ST_BOOL, ST_E4M3,
  ST_E5M2, ST_GGML
} stored_kind;

typedef struct stored_type {
  const char *name;
  stored_kind kind;
  int size;                     /* bytes per element (ggml: 0) */
} stored_type;

/* The catalogue's stored dtypes (core/catalogue.h), in its order. */
#define STORED_ROW(name, kind, size) {name, kind, size},
static const stored_type stored_types[] = {
  SQ_CATALOGUE_STORED_DTYPES(STORED_ROW)
};
#undef STORED_ROW
#define STORED_NTYPES (sizeof stored_types / sizeof *stored_types)

/* The stored type named text[0..len) (with "be" when big-endian), or NULL. */
static const stored_type *stored_find(const char *text, size_t len, int *be) {
  *be = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < STORED_NTYPES; i++) {
      const char *name = stored_types[i].name;
      size_t nl = strlen(name);
      if (nl == len && memcmp(name, text, len) == 0) {
        /* One-byte types have no byte order: "int8be" is not a name. */
        if (*be && stored_types[i].size == 1) return NULL;
        return &stored_types[i];
      }
    }
    if (len < 3 || memcmp(text + len - 2, "be", 2) != 0) break;
    len -= 2;
    *be = 1;
  }
  return NULL;
}

int sq_stored_dtype_known(const char *text, size_t len) {
  int be;
  sq_ggml_type g;
  sq_status scratch = {0};
  return stored_find(text, len, &be) != NULL ||
         sq_ggml_type_parse(text, len, &g, &scratch) == SQ_OK;
}

int sq_stored_dtype_element(const char *dtype) {
  for (size_t i = 0; i < STORED_NTYPES; i++)
    if (strcmp(dtype, stored_types[i].name) == 0) return 1;
  return 0;
}

unsigned sq_stored_dtype_subtype(const char *dtype, size_t len) {
  /* The dtypes of core/dtype.c's table have their own subtype. */
  const sq_dtype *dt = sq_dtype_named(dtype, len);
  if (dt) return sq_dtype_file_subtype(dt);
  sq_ggml_type g;
  sq_status scratch = {0};
  return sq_ggml_type_parse(dtype, len, &g, &scratch) == SQ_OK
             ? sq_ggml_subtype(g) : SQ_SUBTYPE_STORED;
}

void sq_stored_dtype_names(sq_names *l) {
  for (size_t i = 0; i < STORED_NTYPES; i++) sq_names_add(l, stored_types[i].name);
}

static uint64_t load_n(const unsigned char *p, int size, int be) {
  uint64_t v = 0;
  for (int b = 0; b < size; b++)
    v |= (uint64_t)p[be ? size - 1 - b : b] << (8 * b);
  return v;
}

/* E4M3 "FN" (OCP 8-bit floating point): 1 sign, 4 exponent (bias 7) and 3
** mantissa bits; exponent 0 is subnormal (m/8 * 2^-6); 0x7F and 0xFF are
** NaN; there are no infinities, so S.1111.110 = +-448 is the largest. */
static float e4m3_to_f32(unsigned b) {
  unsigned s = b >> 7, e = (b >> 3) & 15, m = b & 7;
  float v;
  if (e == 15 && m == 7) return sq_bits_f32(s ? 0xFFC00000u : 0x7FC00000u);
  if (e == 0) v = (float)m * 0x1p-9f;
  else v = (float)(8 + m) * sq_bits_f32((uint32_t)(e - 7 + 127 - 3) << 23);
  return s ? -v : v;
}

/* The shortest digits of d that read back as d, for messages (C locale). */
static int f64_digits(double d) {
  char buf[40];
  int prec = 1;
  sq_locale saved = sq_locale_c_enter();
  for (; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) break;
  }
  sq_locale_c_leave(saved);
  return prec;
}

int sq_f32_from_stored(const sq_kernels *k, const char *dtype, size_t len,
                       const unsigned char *src, uint64_t nbytes,
                       const char *argname, sq_tensor *t, sq_status *st) {
  memset(t, 0, sizeof *t);
  int be;
  const stored_type *ty = stored_find(dtype, len, &be);
  sq_ggml_type g = SQ_GGML_Q4_0;
  if (!ty && sq_ggml_type_parse(dtype, len, &g, st)) return st->code;

  uint64_t count;
  if (ty) {
    if (nbytes % (uint64_t)ty->size)
      return sq_fail(st, "%s has %llu bytes, not a whole number of %.*s "
                         "elements of %d bytes", argname,
                     (unsigned long long)nbytes, (int)len, dtype, ty->size);
    count = nbytes / (uint64_t)ty->size;
  } else {
    const sq_ggml_format *f = &sq_ggml_formats[g];
    if (nbytes % f->bytes)
      return sq_fail(st, "%s has %llu bytes, not a whole number of %s blocks "
                         "of %zu bytes", argname, (unsigned long long)nbytes,
                     f->name, f->bytes);
    count = nbytes / f->bytes * f->block;
  }
  unsigned char *out = sq_alloc(st, count, 4);
  if (!out) return st->code;
  t->data = t->owned = out;
  t->n = (size_t)count;
  if (!ty) {
    if (count) sq_ggml_dequantizer(k, g)(src, (size_t)count, out);
    return SQ_OK;
  }

  if (ty->kind == ST_F16 || ty->kind == ST_E5M2) {
    /* Through the kernels' exact widening, 256 halves at a time. */
    unsigned char tmp[512];
    for (size_t i = 0; i < count; i += 256) {
      size_t m = count - i < 256 ? (size_t)count - i : 256;
      for (size_t j = 0; j < m; j++) {
        uint64_t h = ty->kind == ST_E5M2 ? (uint64_t)src[i + j] << 8
                                         : load_n(src + 2 * (i + j), 2, be);
        tmp[2 * j] = (unsigned char)h;
        tmp[2 * j + 1] = (unsigned char)(h >> 8);
      }
      k->f16_to_f32(tmp, m, out + 4 * i);
    }
    return SQ_OK;
  }
  for (size_t i = 0; i < count; i++) {
    uint64_t u = load_n(src + (size_t)ty->size * i, ty->size, be);
    float f;
    switch (ty->kind) {
      case ST_F32: f = sq_bits_f32((uint32_t)u); break;
      case ST_BF16: f = sq_bits_f32((uint32_t)u << 16); break;
      case ST_F64: {
        double d;
        memcpy(&d, &u, 8);
        if (d == d && (d >= 3.4028235677973366e38 ||
                       d <= -3.4028235677973366e38) &&
            d != __builtin_inf() && d != -__builtin_inf()) {
          sq_tensor_free(t);
          return sq_fail(st, "element %zu of %s (%.*g) is out of float32 "
                             "range", i, argname, f64_digits(d), d);
        }
        f = (float)d;
        break;
      }
      case ST_SIGNED: {
        int shift = 64 - 8 * ty->size;
        f = (float)((int64_t)(u << shift) >> shift);
        break;
      }
      case ST_UNSIGNED: f = (float)u; break;
      case ST_BOOL: f = u ? 1.0f : 0.0f; break;
      default: f = e4m3_to_f32((unsigned)u); break;   /* ST_E4M3 */
    }
    sq_store_f32(out + 4 * i, f);
  }
  return SQ_OK;
}
