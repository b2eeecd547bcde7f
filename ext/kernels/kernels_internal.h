/*
** kernels_internal.h: what the kernel files share and the dispatcher needs.
** No SQLite here, no allocation.
*/
#ifndef SQ_KERNELS_INTERNAL_H
#define SQ_KERNELS_INTERNAL_H

#include <string.h>
#include "sqlite_quant.h"

/* Results are identical on every host only if every float operation rounds
** to float32.  gcc in strict ISO mode evaluates float expressions in double
** on s390x (FLT_EVAL_METHOD 1), and x87 code in long double (2): build with
** -fexcess-precision=fast (the Makefile does) or SSE2 maths. */
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0 && \
    __FLT_EVAL_METHOD__ != -1
#error "float arithmetic must round to float (FLT_EVAL_METHOD 0): see kernels_internal.h"
#endif

/* Little-endian loads and stores that tolerate any alignment.  On a
** little-endian host they compile to plain moves. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SQ_BIG_ENDIAN 1
#else
#define SQ_BIG_ENDIAN 0
#endif

static inline uint32_t sq_load_u32(const void *p) {
  uint32_t v;
  memcpy(&v, p, 4);
#if SQ_BIG_ENDIAN
  v = __builtin_bswap32(v);
#endif
  return v;
}
static inline void sq_store_u32(void *p, uint32_t v) {
#if SQ_BIG_ENDIAN
  v = __builtin_bswap32(v);
#endif
  memcpy(p, &v, 4);
}
static inline uint16_t sq_load_u16(const void *p) {
  uint16_t v;
  memcpy(&v, p, 2);
#if SQ_BIG_ENDIAN
  v = __builtin_bswap16(v);
#endif
  return v;
}
static inline void sq_store_u16(void *p, uint16_t v) {
#if SQ_BIG_ENDIAN
  v = __builtin_bswap16(v);
#endif
  memcpy(p, &v, 2);
}
static inline float sq_load_f32(const void *p) {
  uint32_t u = sq_load_u32(p);
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline void sq_store_f32(void *p, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  sq_store_u32(p, u);
}

/* ---- what every vector path shares ------------------------------------------ */

typedef const unsigned char *sq_cb;   /* read-only bytes of any alignment */
typedef unsigned char *sq_b;          /* writable bytes of any alignment */

/* Bytes per code of each sq_code_type. */
static const size_t sq_esize[SQ_CODE_NTYPES] = {1, 1, 2, 2, 4};

/* For 8/16-bit codes q - zp fits int32 (and converts with the same single
** rounding as scalar's int64 -> float) unless zp is within 65536 of the int32
** limits; such a zero point is outside every small dtype's range anyway, and
** the vector paths send it to scalar. */
static inline int sq_zp_small_ok(int32_t zp) {
  return zp >= INT32_MIN + 65536 && zp <= INT32_MAX - 65536;
}

/* Index of the first NaN or infinity among n floats, or n. */
static inline size_t sq_first_nonfinite(sq_cb p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((sq_load_u32(p + 4 * i) & 0x7f800000u) == 0x7f800000u) return i;
  return n;
}

/* The scalar reference path, always built.  Vector paths reuse its entry
** points for tails and for the shapes they do not specialise. */
extern const sq_kernels sq_kernels_scalar;

/* Scalar element conversions shared by the vector paths' tails. */
float sq_f16_to_f32_scalar(uint16_t h);
uint16_t sq_f32_to_f16_scalar(float f);
float sq_bf16_to_f32_scalar(uint16_t h);
uint16_t sq_f32_to_bf16_scalar(float f);

/* Error sums (see sq_error_sums); a and b hold n float32 each.  Non-finite
** inputs give non-finite sums; callers check.  Vector paths accumulate whole
** blocks of SQ_ERROR_LANES and finish the tail with sq_error_sums_finish. */
void sq_error_sums_scalar(const void *a, const void *b, size_t n,
                          sq_error_sums *out);
/* Adds elements [from, n) into lane arrays (lane = index % SQ_ERROR_LANES),
** then totals every sum in the fixed order into out. */
void sq_error_sums_finish(const void *a, const void *b, size_t from, size_t n,
                          double *a2, double *b2, double *ab, double *d2,
                          double max_abs_d, sq_error_sums *out);
/* Adds the 16 lanes of one sum in the fixed order every path uses. */
static inline double sq_lanes_total(const double *lane) {
  double s8[8], s4[4];
  for (int i = 0; i < 8; i++) s8[i] = lane[i] + lane[i + 8];
  for (int i = 0; i < 4; i++) s4[i] = s8[i] + s8[i + 4];
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

/* Vector paths.  Each file compiles to nothing on other architectures (and
** with -DSQ_SCALAR_ONLY); dispatch.c references only the ones built. */
extern const sq_kernels sq_kernels_avx2;
extern const sq_kernels sq_kernels_avx512;
extern const sq_kernels sq_kernels_neon;

#endif
