/*
** crc32_arm.c: the "armv8" CRC-32 path: AArch64's CRC32X/CRC32B
** instructions (the ARMv8 CRC extension, mandatory from ARMv8.1), which
** advance the raw register of exactly this polynomial (0xEDB88320
** reflected, no inversions) over 8 or 1 little-endian bytes.  Built where
** the compiler's ACLE header declares them for a function of its own target
** (gcc), or where the whole build targets the extension
** (__ARM_FEATURE_CRC32); dispatch.c adds the path when HWCAP says the CPU
** has it.  Little-endian hosts only (the 8-byte loads), as NEON.
*/
#include "kernels/crc32_internal.h"

#if SQ_CRC32_ARMV8
#include <arm_acle.h>
#include <string.h>

#if defined(__clang__)
#define SQ_CRC_TARGET __attribute__((target("crc")))
#else
#define SQ_CRC_TARGET __attribute__((target("+crc")))
#endif

SQ_CRC_TARGET
uint32_t sq_crc32_armv8(uint32_t crc, const unsigned char *p, size_t n) {
  uint32_t c = ~crc;
  for (; n >= 32; p += 32, n -= 32) {
    uint64_t w[4];
    memcpy(w, p, 32);
    c = __crc32d(c, w[0]);
    c = __crc32d(c, w[1]);
    c = __crc32d(c, w[2]);
    c = __crc32d(c, w[3]);
  }
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c = __crc32d(c, w);
  }
  for (; n; p++, n--) c = __crc32b(c, *p);
  return ~c;
}

#undef SQ_CRC_TARGET
#endif
