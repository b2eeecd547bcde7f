/*
** crc32.h: the CRC-32 of zip archives (ISO 3309 / ITU-T V.42: polynomial
** 0xEDB88320 reflected, initial value and final XOR 0xFFFFFFFF), used by
** the .npz reader (stored and deflated members) and the .npz writer.
*/
#ifndef SQ_CRC32_H
#define SQ_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Lookup tables for four bytes at a step ("slicing by 4"): 4 KiB, built by
** sq_crc32_init, read-only after (no shared mutable state). */
typedef struct sq_crc32_tables {
  uint32_t t[4][256];
} sq_crc32_tables;

void sq_crc32_init(sq_crc32_tables *tb);

/* The CRC-32 of the bytes so far (crc, 0 for none) continued over
** p[0..n): sq_crc32_with(tb, sq_crc32_with(tb, 0, a, n), b, m) is the CRC
** of a then b. */
uint32_t sq_crc32_with(const sq_crc32_tables *tb, uint32_t crc,
                       const unsigned char *p, uint64_t n);

/* The same with tables built for this call (for one whole buffer). */
uint32_t sq_crc32(uint32_t crc, const unsigned char *p, uint64_t n);

#endif
