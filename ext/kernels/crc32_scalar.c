/*
** crc32_scalar.c: the portable CRC-32 path (slicing by 16) and the
** computation of every path's tables and folding constants
** (crc32_internal.h derives them).
**
** Slicing: t[0] is the byte-at-a-time table, t[k][i] the register after
** byte i and k zero bytes.  Sixteen bytes b0..b15 (the register XORed into
** b0..b3) advance the register by XOR of t[15 - j][b_j]: each byte's effect
** is independent of the others' (the CRC is linear), and byte j still has
** 15 - j bytes after it.  Bytes are read one by one, so the result is the
** same on either byte order.  16 tables are 16 KiB: they stay in L1.
*/
#include "kernels/crc32_internal.h"

#define SQ_CRC_POLY 0xEDB88320u            /* x^32 + 0x04C11DB7, reflected */

uint32_t sq_crc32_table[16][256];
uint64_t sq_crc32_fold[SQ_CRC_ND][2];

/* x^k mod P, reflected into 64 bits: coefficient x^j at bit 63 - j. */
static uint64_t sq_crc_xpow_reflected(unsigned k) {
  uint64_t r = 1;                             /* normal order: bit j is x^j */
  for (unsigned i = 0; i < k; i++) {
    r <<= 1;
    if (r >> 32) r ^= 0x104C11DB7ull;
  }
  uint64_t out = 0;
  for (unsigned j = 0; j < 32; j++)
    if (r >> j & 1) out |= 1ull << (63 - j);
  return out;
}

void sq_crc32_prepare(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? SQ_CRC_POLY ^ (c >> 1) : c >> 1;
    sq_crc32_table[0][i] = c;
  }
  for (int k = 1; k < 16; k++)
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = sq_crc32_table[k - 1][i];
      sq_crc32_table[k][i] = (c >> 8) ^ sq_crc32_table[0][c & 0xFF];
    }
  static const unsigned dist[SQ_CRC_ND] = {128, 256, 384, 512, 2048};
  for (int d = 0; d < SQ_CRC_ND; d++) {
    sq_crc32_fold[d][0] = sq_crc_xpow_reflected(dist[d] + 63);
    sq_crc32_fold[d][1] = sq_crc_xpow_reflected(dist[d] - 1);
  }
}

uint32_t sq_crc32_raw(uint32_t c, const unsigned char *p, size_t n) {
  const uint32_t(*t)[256] = (const uint32_t(*)[256])sq_crc32_table;
  for (; n >= 16; p += 16, n -= 16) {
    c ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
    c = t[15][c & 0xFF] ^ t[14][(c >> 8) & 0xFF] ^ t[13][(c >> 16) & 0xFF] ^
        t[12][c >> 24] ^ t[11][p[4]] ^ t[10][p[5]] ^ t[9][p[6]] ^
        t[8][p[7]] ^ t[7][p[8]] ^ t[6][p[9]] ^ t[5][p[10]] ^ t[4][p[11]] ^
        t[3][p[12]] ^ t[2][p[13]] ^ t[1][p[14]] ^ t[0][p[15]];
  }
  for (; n; p++, n--) c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c;
}

uint32_t sq_crc32_scalar(uint32_t crc, const unsigned char *p, size_t n) {
  return ~sq_crc32_raw(~crc, p, n);
}

#undef SQ_CRC_POLY
