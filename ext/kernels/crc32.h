/*
** kernels/crc32.h: the zip CRC-32 (ISO 3309 / ITU-T V.42, reflected
** polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF, zlib's
** crc32()), one function per path.  formats/crc32.h is what the file
** readers and writers call; this is where the paths live and are chosen.
**
** Paths (every one returns the same value for the same bytes):
**   "scalar"  slicing by 16 (crc32_scalar.c): bytes combined one by one, so
**             the result does not depend on the host's byte order;
**   "pclmul"  carry-less multiply folding of 16-byte blocks
**             (crc32_x86_pclmul.c), CPUs with PCLMULQDQ;
**   "vpclmul" the same folding on 64-byte AVX-512 registers
**             (crc32_x86_avx512.c: VPCLMULQDQ on AVX-512 F/BW/VL/DQ);
**   "armv8"   AArch64's CRC32 instructions (crc32_arm.c), CPUs with the
**             ARMv8 CRC extension.
** dispatch.c picks the fastest the CPU runs or, when SQLITE_QUANT_KERNEL
** names a kernel path, the fastest that name allows: scalar gives the
** scalar CRC; avx2 pclmul when the CPU has it; avx512 vpclmul, else pclmul;
** neon armv8.  So SQLITE_QUANT_KERNEL=scalar forces the portable code here
** too, and a CPU with PCLMULQDQ but no AVX2 still folds.
*/
#ifndef SQ_KERNELS_CRC32_H
#define SQ_KERNELS_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of the bytes so far (crc; 0 for none) continued over p[0..n),
** as zlib's crc32(crc, p, n). */
typedef uint32_t (*sq_crc32_fn)(uint32_t crc, const unsigned char *p,
                                size_t n);

typedef struct sq_crc32_path {
  const char *name;   /* "scalar", "pclmul", "vpclmul", "armv8" */
  sq_crc32_fn crc32;
} sq_crc32_path;

/* The path chosen as above, once per process.  Never NULL. */
const sq_crc32_path *sq_crc32_active(void);

/* A path by name, or NULL when not built in or the CPU lacks it. */
const sq_crc32_path *sq_crc32_by_name(const char *name);

/* Every CRC path this build and CPU can run, slowest first,
** NULL-terminated. */
const char *const *sq_crc32_available(void);

#endif
