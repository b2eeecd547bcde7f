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

#endif
