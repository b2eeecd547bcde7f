/*
** byteorder.h: little-endian loads and stores at any alignment.
**
** Every stored format of the extension is little-endian
** (docs/NUMERICS.md#float-tensors); these are the only way the kernels and
** the core read or write one.  On a little-endian host they compile to plain moves.
*/
#ifndef SQ_BYTEORDER_H
#define SQ_BYTEORDER_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SQ_BIG_ENDIAN 1
#else
#define SQ_BIG_ENDIAN 0
#endif

/* sq_load_u16/u32 and sq_store_u16/u32: a memcpy (any alignment) and, on
** a big-endian host, a byte swap. */
#if SQ_BIG_ENDIAN
#define SQ_SWAP(BITS, v) __builtin_bswap##BITS(v)
#else
#define SQ_SWAP(BITS, v) (v)
#endif
#define SQ_DEFINE_LOAD_STORE(BITS)                                           \
  static inline uint##BITS##_t sq_load_u##BITS(const void *p) {              \
    uint##BITS##_t v;                                                        \
    memcpy(&v, p, sizeof v);                                                 \
    return SQ_SWAP(BITS, v);                                                 \
  }                                                                          \
  static inline void sq_store_u##BITS(void *p, uint##BITS##_t v) {           \
    v = SQ_SWAP(BITS, v);                                                    \
    memcpy(p, &v, sizeof v);                                                 \
  }
SQ_DEFINE_LOAD_STORE(16)
SQ_DEFINE_LOAD_STORE(32)

/* A float's bits and back, without aliasing trouble. */
static inline uint32_t sq_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float sq_bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline float sq_load_f32(const void *p) {
  return sq_bits_f32(sq_load_u32(p));
}
static inline void sq_store_f32(void *p, float f) {
  sq_store_u32(p, sq_f32_bits(f));
}

#endif
