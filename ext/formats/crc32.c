/*
** crc32.c: the zip CRC-32 (formats/crc32.h), four bytes per step: t[0] is the
** byte-at-a-time table, t[k][i] the CRC of byte i followed by k zero bytes,
** so four table lookups advance over four bytes.  Bytes are combined one by
** one, so the result is the same on either byte order.
*/
#include "formats/crc32.h"

void sq_crc32_init(sq_crc32_tables *tb) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    tb->t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int k = 1; k < 4; k++)
      tb->t[k][i] = (tb->t[k - 1][i] >> 8) ^ tb->t[0][tb->t[k - 1][i] & 0xFF];
}

uint32_t sq_crc32_with(const sq_crc32_tables *tb, uint32_t crc,
                       const unsigned char *p, uint64_t n) {
  crc = ~crc;
  for (; n >= 4; p += 4, n -= 4) {
    crc ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
    crc = tb->t[3][crc & 0xFF] ^ tb->t[2][(crc >> 8) & 0xFF] ^
          tb->t[1][(crc >> 16) & 0xFF] ^ tb->t[0][crc >> 24];
  }
  for (; n; p++, n--) crc = tb->t[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t sq_crc32(uint32_t crc, const unsigned char *p, uint64_t n) {
  sq_crc32_tables tb;
  sq_crc32_init(&tb);
  return sq_crc32_with(&tb, crc, p, n);
}
