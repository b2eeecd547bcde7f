/*
** crc32.c: the zip CRC-32 of formats/crc32.h, on the kernel layer's paths
** (kernels/crc32.h).  What is left here is the 64-bit length of the
** formats' interface: a kernel takes size_t, so a length past it (32-bit
** hosts only) goes in pieces, which the CRC's continuation makes exact.
*/
#include "formats/crc32.h"
#include "kernels/crc32.h"

void sq_crc32_init(sq_crc32_tables *tb) { tb->fn = sq_crc32_active()->crc32; }

uint32_t sq_crc32_with(const sq_crc32_tables *tb, uint32_t crc,
                       const unsigned char *p, uint64_t n) {
  const uint64_t most = (uint64_t)(SIZE_MAX >> 1);
  for (; n > most; p += most, n -= most) crc = tb->fn(crc, p, (size_t)most);
  return tb->fn(crc, p, (size_t)n);
}

uint32_t sq_crc32(uint32_t crc, const unsigned char *p, uint64_t n) {
  sq_crc32_tables tb;
  sq_crc32_init(&tb);
  return sq_crc32_with(&tb, crc, p, n);
}
