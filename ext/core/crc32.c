/*
** crc32.c: the zip CRC-32 (core/crc32.h), table-driven one byte at a time.
** The table is built on the stack per call (2 KiB of work): callers hash
** whole members or 32 KiB pieces, and no shared mutable state is needed.
*/
#include "core/crc32.h"

uint32_t sq_crc32(uint32_t crc, const unsigned char *p, uint64_t n) {
  uint32_t table[256];
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  crc = ~crc;
  for (uint64_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}
