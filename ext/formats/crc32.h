/*
** crc32.h: the CRC-32 of zip archives (ISO 3309 / ITU-T V.42: polynomial
** 0xEDB88320 reflected, initial value and final XOR 0xFFFFFFFF), used by
** the .npz reader (stored and deflated members) and the .npz writer.  The
** code is the kernels' (kernels/crc32.h: slicing by 16, or carry-less
** multiplication where the CPU has it, chosen with the kernel path); every
** path gives the same value.
*/
#ifndef SQ_CRC32_H
#define SQ_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC path chosen once by sq_crc32_init (the lookup tables it uses are
** the kernels', built once per process and read-only after: no shared
** mutable state).  Kept as a struct so that a caller holding one across
** calls (inflate.h) sees one path throughout. */
typedef struct sq_crc32_tables {
  uint32_t (*fn)(uint32_t crc, const unsigned char *p, size_t n);
} sq_crc32_tables;

void sq_crc32_init(sq_crc32_tables *tb);

/* The CRC-32 of the bytes so far (crc, 0 for none) continued over
** p[0..n): sq_crc32_with(tb, sq_crc32_with(tb, 0, a, n), b, m) is the CRC
** of a then b. */
uint32_t sq_crc32_with(const sq_crc32_tables *tb, uint32_t crc,
                       const unsigned char *p, uint64_t n);

/* The same on the active path (for one whole buffer). */
uint32_t sq_crc32(uint32_t crc, const unsigned char *p, uint64_t n);

#endif
