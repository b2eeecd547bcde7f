/*
** dispatch.c: choose the kernel table once, from what the CPU can run.
**
** Rules:
**   1. features come from CPUID + XGETBV on x86-64 (the OS must save the
**      vector state, not just the CPU support it) and HWCAP on aarch64;
**   2. SQLITE_QUANT_KERNEL=scalar|avx2|avx512|neon asks for a path; the answer
**      is capped at what the CPU has (avx512 on an AVX2-only CPU gives avx2),
**      and a name this architecture has no path for gives scalar; any other
**      value is refused by the extension's entry point (a misspelt request
**      must not run a path nobody asked for);
**   3. the choice is made on first use and never changes in the process, so
**      every statement of a connection sees one path;
**   4. the zip CRC-32's path (kernels/crc32.h) is chosen at the same time,
**      from features of its own (PCLMULQDQ, VPCLMULQDQ, HWCAP_CRC32) under
**      the same request: SQLITE_QUANT_KERNEL caps it too.
** No ifunc or target_clones: they are missing on musl, macOS and Windows, and
** give no way to force a path for testing.
*/
#include <stdlib.h>
#include <string.h>
#include "kernels/kernels_internal.h"
#include "kernels/crc32_internal.h"

#if !defined(SQ_SCALAR_ONLY) && (defined(__x86_64__) || defined(_M_X64))
#define SQ_X86 1
#include <cpuid.h>
#elif !defined(SQ_SCALAR_ONLY) && defined(__aarch64__) && !SQ_BIG_ENDIAN
#define SQ_ARM 1
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif
#endif

/* Every path this build and CPU can run, slowest first. */
static const sq_kernels *sq_paths[4];
static const char *sq_path_names[5];
static size_t sq_path_count;
static const sq_kernels *sq_active;
static int sq_state;          /* 0: not started, 1: being chosen, 2: ready */

/* The CRC-32 paths (kernels/crc32.h), slowest first, and the active one. */
static const sq_crc32_path sq_crc_scalar = {"scalar", sq_crc32_scalar};
static const sq_crc32_path *sq_crc_paths[4];
static int sq_crc_levels[4];  /* the lowest sq_rank that may run each one */
static const char *sq_crc_names[4];
static size_t sq_crc_count;
static const sq_crc32_path *sq_crc_active;
#ifdef SQ_X86
static const sq_crc32_path sq_crc_pclmul = {"pclmul", sq_crc32_pclmul};
static const sq_crc32_path sq_crc_vpclmul = {"vpclmul", sq_crc32_vpclmul};
#endif
#if defined(SQ_ARM) && SQ_CRC32_ARMV8
static const sq_crc32_path sq_crc_armv8 = {"armv8", sq_crc32_armv8};
#endif

#ifdef SQ_X86
static uint64_t sq_xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

/* pclmul: PCLMULQDQ (SSE registers only, so no XGETBV condition);
** vpclmul: VPCLMULQDQ on AVX-512 registers (also needs *avx512). */
static void sq_detect_x86(int *avx2, int *avx512, int *pclmul, int *vpclmul) {
  unsigned a, b, c, d;
  *avx2 = *avx512 = *pclmul = *vpclmul = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  *pclmul = (c >> 1) & 1;
  int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, f16c = (c >> 29) & 1;
  if (!osxsave || !avx) return;
  uint64_t xcr0 = sq_xgetbv0();
  if ((xcr0 & 0x6) != 0x6) return;              /* XMM and YMM state */
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return;
  *avx2 = ((b >> 5) & 1) && f16c;
  int f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1,
      vl = (b >> 31) & 1;
  *avx512 = *avx2 && f && dq && bw && vl && (xcr0 & 0xe0) == 0xe0;
  *vpclmul = *avx512 && *pclmul && ((c >> 10) & 1);
}
#endif

static void sq_add_path(const sq_kernels *k) {
  sq_paths[sq_path_count] = k;
  sq_path_names[sq_path_count] = k->name;
  sq_path_count++;
}

static void sq_add_crc(const sq_crc32_path *c, int level) {
  sq_crc_levels[sq_crc_count] = level;
  sq_crc_paths[sq_crc_count] = c;
  sq_crc_names[sq_crc_count] = c->name;
  sq_crc_count++;
}

static void sq_init_paths(void) {
  sq_crc32_prepare();
  sq_add_path(&sq_kernels_scalar);
  sq_add_crc(&sq_crc_scalar, 0);
#ifdef SQ_X86
  int avx2, avx512, pclmul, vpclmul;
  sq_detect_x86(&avx2, &avx512, &pclmul, &vpclmul);
  if (avx2) sq_add_path(&sq_kernels_avx2);
  if (avx512) sq_add_path(&sq_kernels_avx512);
  if (pclmul) sq_add_crc(&sq_crc_pclmul, 1);      /* avx2 */
  if (vpclmul) sq_add_crc(&sq_crc_vpclmul, 2);    /* avx512 */
#elif defined(SQ_ARM)
#if defined(__linux__)
  if (getauxval(AT_HWCAP) & HWCAP_ASIMD) sq_add_path(&sq_kernels_neon);
#if SQ_CRC32_ARMV8
  if (getauxval(AT_HWCAP) & HWCAP_CRC32) sq_add_crc(&sq_crc_armv8, 1); /* neon */
#endif
#else
  sq_add_path(&sq_kernels_neon);               /* AdvSIMD is baseline */
#if SQ_CRC32_ARMV8 && defined(__ARM_FEATURE_CRC32)
  sq_add_crc(&sq_crc_armv8, 1);                /* the build targets it */
#endif
#endif
#endif
  sq_path_names[sq_path_count] = NULL;
  sq_crc_names[sq_crc_count] = NULL;
}

/* Every path name any build knows, in the order users read them
** (ext/catalogue.toml). */
#define SQ_PATH_NAME(name, bit) name,
static const char *const sq_known_names[] = {
    SQ_CATALOGUE_KERNEL_PATHS(SQ_PATH_NAME) NULL};
#undef SQ_PATH_NAME

/* Rank of a path name on this architecture, or -1 if it has none. */
static int sq_rank(const char *name) {
  static const char *const order[] = {"scalar",
#ifdef SQ_ARM
                                      "neon",
#else
                                      "avx2", "avx512",
#endif
                                      NULL};
  for (int i = 0; order[i]; i++)
    if (strcmp(order[i], name) == 0) return i;
  return -1;
}

/* The CRC path: the fastest this CPU runs or, when SQLITE_QUANT_KERNEL
** names a path, the fastest whose instructions that name allows: each CRC
** path has the rank of the kernel path that may run it (pclmul and armv8:
** avx2 and neon; vpclmul: avx512), and a name with no path here allows the
** scalar CRC only.  A CPU without AVX2 still folds with PCLMULQDQ unless
** asked for scalar. */
static const sq_crc32_path *sq_crc_for(const char *want) {
  int allowed = !want || !*want ? 99 : sq_rank(want) < 0 ? 0 : sq_rank(want);
  const sq_crc32_path *pick = &sq_crc_scalar;
  for (size_t i = 1; i < sq_crc_count; i++)
    if (sq_crc_levels[i] <= allowed) pick = sq_crc_paths[i];
  return pick;
}

static void sq_init(void) {
  if (__atomic_load_n(&sq_state, __ATOMIC_ACQUIRE) == 2) return;
  /* One thread chooses; any other that arrives meanwhile waits for it (the
  ** choice takes microseconds and happens once per process). */
  int expected = 0;
  if (!__atomic_compare_exchange_n(&sq_state, &expected, 1, 0,
                                   __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
    while (__atomic_load_n(&sq_state, __ATOMIC_ACQUIRE) != 2) {
    }
    return;
  }
  sq_init_paths();
  const sq_kernels *pick = sq_paths[sq_path_count - 1];
  const char *want = getenv("SQLITE_QUANT_KERNEL");
  if (want && *want) {
    int rank = sq_rank(want);
    pick = &sq_kernels_scalar;
    for (size_t i = 0; rank >= 0 && i < sq_path_count; i++)
      if (sq_rank(sq_paths[i]->name) <= rank) pick = sq_paths[i];
  }
  sq_active = pick;
  sq_crc_active = sq_crc_for(want);
  __atomic_store_n(&sq_state, 2, __ATOMIC_RELEASE);
}

const sq_kernels *sq_kernels_active(void) {
  sq_init();
  return sq_active;
}

const sq_kernels *sq_kernels_by_name(const char *name) {
  sq_init();
  for (size_t i = 0; i < sq_path_count; i++)
    if (strcmp(sq_paths[i]->name, name) == 0) return sq_paths[i];
  return NULL;
}

const char *sq_kernels_bad_request(void) {
  const char *want = getenv("SQLITE_QUANT_KERNEL");
  if (!want || !*want) return NULL;
  for (int i = 0; sq_known_names[i]; i++)
    if (strcmp(sq_known_names[i], want) == 0) return NULL;
  return want;
}

const char *const *sq_kernels_known(void) { return sq_known_names; }

const char *const *sq_kernels_available(void) {
  sq_init();
  return sq_path_names;
}

const sq_crc32_path *sq_crc32_active(void) {
  sq_init();
  return sq_crc_active;
}

const sq_crc32_path *sq_crc32_by_name(const char *name) {
  sq_init();
  for (size_t i = 0; i < sq_crc_count; i++)
    if (strcmp(sq_crc_paths[i]->name, name) == 0) return sq_crc_paths[i];
  return NULL;
}

const char *const *sq_crc32_available(void) {
  sq_init();
  return sq_crc_names;
}
