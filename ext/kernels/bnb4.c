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

static unsigned bnb4_code_of(sq_bnb4_type t, float s) {
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

/* Up to SQ_BNB4_CHUNK weights at a time: scaled into a float array (zeros
** past len), their buckets counted bound by bound over the whole array:
** loops of a fixed count that the compiler vectorizes, each lane doing the
** scalar operations, so the bytes are the same. */
#define SQ_BNB4_CHUNK 64

static void chunk_codes(sq_bnb4_type t, const unsigned char *x, size_t len,
                        int ragged, float d, float inv, unsigned char *c) {
  float s[SQ_BNB4_CHUNK];
  int32_t k[SQ_BNB4_CHUNK];
  const uint32_t *bounds = t == SQ_BNB4_NF4 ? sq_bnb4_nf4_bounds : sq_bnb4_fp4_bounds;
  for (size_t i = 0; i < SQ_BNB4_CHUNK; i++) s[i] = 0.0f;
  for (size_t i = 0; i < len; i++) s[i] = sq_load_f32(x + 4 * i);
  if (ragged)
    for (size_t i = 0; i < SQ_BNB4_CHUNK; i++) s[i] = clamp1(s[i] / d);
  else
    for (size_t i = 0; i < SQ_BNB4_CHUNK; i++) s[i] = clamp1(s[i] * inv);
  for (size_t i = 0; i < SQ_BNB4_CHUNK; i++) k[i] = 0;
  for (unsigned j = 0; j < 15; j++) {
    float b = sq_bits_f32(bounds[j]);
    for (size_t i = 0; i < SQ_BNB4_CHUNK; i++) k[i] += b < s[i];
  }
  if (t == SQ_BNB4_FP4)
    for (size_t i = 0; i < len; i++) c[i] = sq_bnb4_fp4_order[k[i] & 15];
  else
    for (size_t i = 0; i < len; i++) c[i] = (unsigned char)k[i];
}

void sq_bnb4_quantize(sq_bnb4_type t, const void *x, size_t n, size_t block,
                      void *codes, void *absmax) {
  const unsigned char *p = x;
  unsigned char *out = codes, *a = absmax;
  unsigned char c[SQ_BNB4_CHUNK];
  for (size_t s = 0, b = 0; s < n; s += block, b++) {
    size_t len = n - s < block ? n - s : block;
    float m = block_max(p + 4 * s, len);
    int ragged = len < block;
    float d = m < SQ_BNB4_TINY ? SQ_BNB4_TINY : m, inv = 1.0f / d;
    if (a) sq_store_f32(a + 4 * b, ragged ? d : m);
    /* s is a multiple of the (even) block size: weight s + k sits in byte
    ** (s + k) / 2, the high nibble for even k. */
    for (size_t k = 0; k < len; k += SQ_BNB4_CHUNK) {
      size_t w = len - k < SQ_BNB4_CHUNK ? len - k : SQ_BNB4_CHUNK;
      chunk_codes(t, p + 4 * (s + k), w, ragged, d, inv, c);
      unsigned char *o = out + (s + k) / 2;
      for (size_t i = 0; i + 1 < w; i += 2)
        o[i / 2] = (unsigned char)(c[i] << 4 | c[i + 1]);
      if (w & 1) o[w / 2] = (unsigned char)(c[w - 1] << 4 | bnb4_code_of(t, 0.0f));
    }
  }
}

void sq_bnb4_dequantize(sq_bnb4_type t, const void *codes, const void *absmax,
                        size_t n, size_t block, void *out) {
  const unsigned char *q = codes, *a = absmax;
  unsigned char *o = out;
  const uint32_t *bits = t == SQ_BNB4_NF4 ? sq_bnb4_nf4_bits : sq_bnb4_fp4_bits;
  float tab[16];
  for (unsigned c = 0; c < 16; c++) tab[c] = sq_bits_f32(bits[c]);
  /* Blocks start at even weights: byte (s + i) / 2 holds weights s + i and
  ** s + i + 1 of a block for even i. */
  for (size_t s = 0, b = 0; s < n; s += block, b++) {
    size_t len = n - s < block ? n - s : block;
    float m = sq_load_f32(a + 4 * b);
    const unsigned char *qb = q + s / 2;
    unsigned char *ob = o + 4 * s;
    for (size_t i = 0; i + 1 < len; i += 2) {
      unsigned byte = qb[i / 2];
      sq_store_f32(ob + 4 * i, tab[byte >> 4] * m);
      sq_store_f32(ob + 4 * i + 4, tab[byte & 15u] * m);
    }
    if (len & 1) sq_store_f32(ob + 4 * (len - 1), tab[qb[len / 2] >> 4] * m);
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
