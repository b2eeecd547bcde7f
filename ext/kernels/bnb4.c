/*
** bnb4.c: bitsandbytes' NF4 and FP4 (bnb4.h), the rules of
** docs/NUMERICS.md#bitsandbytes-nf4-and-fp4 in scalar float32, operation
** for operation:
**   - a whole block's absmax is max |x|; its weights are scaled by the
**     reciprocal of max(absmax, 1e-38), clamped to [-1, 1]; a ragged last
**     block stores max(max |x|, 1e-38) and divides by it;
**   - a scaled weight's bucket is how many of the 15 midpoints of the
**     sorted values are below it (a tie goes down); NF4's bucket is its
**     code, FP4's is mapped through the stable order of its values;
**   - the padding nibble of an odd count is the code of 0;
**   - nesting: offset = the float64 mean of the absmax rounded to float32;
**     each 256 of (absmax - offset) share a scale max |d| (0 gives codes
**     0), and d * (1 / scale) takes the dynamic map's code through the
**     65536-bin grid of bitsandbytes' CPU quantizer.
*/
#include <math.h>
#include "kernels/bnb4.h"
#include "kernels/bnb4_tables.h"
#include "kernels/byteorder.h"

#define SQ_BNB4_TINY 1e-38f

float sq_bnb4_value(sq_bnb4_type t, unsigned c) {
  return sq_bits_f32(t == SQ_BNB4_NF4 ? sq_bnb4_nf4_bits[c & 15]
                                      : sq_bnb4_fp4_bits[c & 15]);
}

static float clamp1(float v) { return v < -1.0f ? -1.0f : v > 1.0f ? 1.0f : v; }

/* How many of the 15 ascending bounds are below s: counted without
** branches (a search's unpredictable branches cost more than 15 compares),
** the same count as a binary search. */
static unsigned bucket(const uint32_t *bounds, float s) {
  unsigned c = 0;
  for (unsigned i = 0; i < 15; i++) c += sq_bits_f32(bounds[i]) < s;
  return c;
}

static unsigned code_of(sq_bnb4_type t, float s) {
  if (t == SQ_BNB4_NF4) return bucket(sq_bnb4_nf4_bounds, s);
  return sq_bnb4_fp4_order[bucket(sq_bnb4_fp4_bounds, s)];
}

static float block_max(const unsigned char *x, size_t len) {
  float m = 0.0f;
  for (size_t i = 0; i < len; i++) {
    float a = fabsf(sq_load_f32(x + 4 * i));
    if (a > m) m = a;
  }
  return m;
}

void sq_bnb4_absmax(const void *x, size_t n, size_t block, void *absmax) {
  const unsigned char *p = x;
  unsigned char *a = absmax;
  for (size_t s = 0, b = 0; s < n; s += block, b++) {
    size_t len = n - s < block ? n - s : block;
    float m = block_max(p + 4 * s, len);
    if (len < block && m < SQ_BNB4_TINY) m = SQ_BNB4_TINY;
    sq_store_f32(a + 4 * b, m);
  }
}

void sq_bnb4_quantize(sq_bnb4_type t, const void *x, size_t n, size_t block,
                      void *codes, void *absmax) {
  const unsigned char *p = x;
  unsigned char *out = codes, *a = absmax;
  for (size_t s = 0, b = 0; s < n; s += block, b++) {
    size_t len = n - s < block ? n - s : block;
    float m = block_max(p + 4 * s, len);
    int ragged = len < block;
    float d = m < SQ_BNB4_TINY ? SQ_BNB4_TINY : m, inv = 1.0f / d;
    if (a) sq_store_f32(a + 4 * b, ragged ? d : m);
    for (size_t i = 0; i < len; i++) {
      size_t e = s + i;
      float v = sq_load_f32(p + 4 * e);
      unsigned c = code_of(t, clamp1(ragged ? v / d : v * inv));
      if (e & 1) out[e / 2] = (unsigned char)(out[e / 2] | c);
      else out[e / 2] = (unsigned char)(c << 4);
    }
  }
  if (n & 1) out[n / 2] = (unsigned char)(out[n / 2] | code_of(t, 0.0f));
}

void sq_bnb4_dequantize(sq_bnb4_type t, const void *codes, const void *absmax,
                        size_t n, size_t block, void *out) {
  const unsigned char *q = codes, *a = absmax;
  unsigned char *o = out;
  const uint32_t *tab = t == SQ_BNB4_NF4 ? sq_bnb4_nf4_bits : sq_bnb4_fp4_bits;
  for (size_t s = 0, b = 0; s < n; s += block, b++) {
    size_t len = n - s < block ? n - s : block;
    float m = sq_load_f32(a + 4 * b);
    for (size_t i = 0; i < len; i++) {
      size_t e = s + i;
      unsigned c = e & 1 ? q[e / 2] & 15u : (unsigned)q[e / 2] >> 4;
      sq_store_f32(o + 4 * e, sq_bits_f32(tab[c]) * m);
    }
  }
}

size_t sq_bnb4_nested_size(size_t m) {
  return 4 + 4 * ((m + SQ_BNB4_NESTED_BLOCK - 1) / SQ_BNB4_NESTED_BLOCK) + m;
}

size_t sq_bnb4_nested_count(size_t bytes) {
  /* bytes = 4 + 4g + m with g = ceil(m / 256): at most one m fits. */
  if (bytes < 4 + 4 + 1) return 0;
  for (size_t g = (bytes - 4) / (4 + SQ_BNB4_NESTED_BLOCK); ; g++) {
    if (4 + 4 * g >= bytes) return 0;
    size_t m = bytes - 4 - 4 * g;
    size_t need = (m + SQ_BNB4_NESTED_BLOCK - 1) / SQ_BNB4_NESTED_BLOCK;
    if (need == g) return m;
    if (need < g) return 0;
  }
}

/* The dynamic map's code of a scaled value, as bitsandbytes' CPU quantizer
** finds it: the value's bin of 65536 over [-1, 1], then the first code
** whose upper midpoint is not below the bin's own value. */
static unsigned char dynamic_code(float v) {
  v = clamp1(v);
  float u = (v + 1.0f) * 0.5f;
  u = u * 65535.0f;
  u = u + 0.5f;
  unsigned bin = (unsigned)u;
  float val = -1.0f + (2.0f * (float)bin) / 65535.0f;
  unsigned lo = 0, hi = 255;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (sq_bits_f32(sq_bnb4_dynamic_mid[mid]) < val) lo = mid + 1;
    else hi = mid;
  }
  return (unsigned char)lo;
}

void sq_bnb4_nest(const void *absmax, size_t m, void *out) {
  const unsigned char *a = absmax;
  unsigned char *o = out;
  size_t groups = (m + SQ_BNB4_NESTED_BLOCK - 1) / SQ_BNB4_NESTED_BLOCK;
  unsigned char *scales = o + 4, *q = o + 4 + 4 * groups;
  double sum = 0.0;
  for (size_t i = 0; i < m; i++) sum += (double)sq_load_f32(a + 4 * i);
  float offset = (float)(sum / (double)m);
  sq_store_f32(o, offset);
  for (size_t g = 0; g < groups; g++) {
    size_t s = g * SQ_BNB4_NESTED_BLOCK;
    size_t len = m - s < SQ_BNB4_NESTED_BLOCK ? m - s : SQ_BNB4_NESTED_BLOCK;
    float mx = 0.0f;
    for (size_t i = 0; i < len; i++) {
      float d = fabsf(sq_load_f32(a + 4 * (s + i)) - offset);
      if (d > mx) mx = d;
    }
    sq_store_f32(scales + 4 * g, mx);
    float inv = mx == 0.0f ? 0.0f : 1.0f / mx;
    for (size_t i = 0; i < len; i++)
      q[s + i] = mx == 0.0f ? 0
                 : dynamic_code((sq_load_f32(a + 4 * (s + i)) - offset) * inv);
  }
}

void sq_bnb4_unnest(const void *nested, size_t m, void *out) {
  const unsigned char *p = nested;
  unsigned char *o = out;
  size_t groups = (m + SQ_BNB4_NESTED_BLOCK - 1) / SQ_BNB4_NESTED_BLOCK;
  float offset = sq_load_f32(p);
  const unsigned char *scales = p + 4, *q = p + 4 + 4 * groups;
  for (size_t i = 0; i < m; i++) {
    float scale = sq_load_f32(scales + 4 * (i / SQ_BNB4_NESTED_BLOCK));
    float v = sq_bits_f32(sq_bnb4_dynamic_bits[q[i]]) * scale;
    sq_store_f32(o + 4 * i, v + offset);
  }
}
