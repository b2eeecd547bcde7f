/*
** crc32.h: the CRC-32 of zip archives (ISO 3309 / ITU-T V.42: polynomial
** 0xEDB88320 reflected, initial value and final XOR 0xFFFFFFFF), used by
** the .npz reader (stored and deflated members) and the .npz writer.
*/
#ifndef SQ_CRC32_H
#define SQ_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of the bytes so far (crc, 0 for none) continued over
** p[0..n): sq_crc32(sq_crc32(0, a, n), b, m) is the CRC of a then b. */
uint32_t sq_crc32(uint32_t crc, const unsigned char *p, uint64_t n);

#endif
