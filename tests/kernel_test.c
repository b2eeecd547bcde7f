/*
** kernel_test.c: every vector kernel path against the scalar reference, byte
** for byte.  Standalone (no SQLite).
**
**   build/kernel_test [--long] [--quick] [--seed N]
**
** 1. The scalar reference is pinned to hand-computed values (round half to
**    even, saturation, NaN index, f16/bf16 edges, signed zeros).
** 2. For every path sq_kernels_available() lists besides "scalar", each
**    kernel is called on the same input as the scalar one and must return the
**    same value and write the same bytes (untouched bytes included: outputs
**    are pre-filled with a pattern).  Inputs, outputs and parameter arrays sit
**    against a PROT_NONE guard page, or at misalignments 0..63 inside canary
**    bytes, so a read past the end faults and a write outside the buffer is
**    seen; a last pass uses exact-size malloc'd buffers for AddressSanitizer.
** 3. A reduced pass is repeated under every other rounding mode and with
**    denormals flushed (MXCSR FTZ/DAZ, FPCR.FZ), where the paths must still
**    agree with scalar.
** 4. ggml's block formats: the scalar kernels are pinned to hashes of ggml's
**    own output and to x86-64's NaN bits for non-finite fp16 fields; every
**    path's quantize (with and without importance) and dequantize must write
**    scalar's bytes on random and adversarial data (see test_ggml_pins).
** float8 codes: every path's conversions against scalar's bytes on every
**    rounding-relevant float32 pattern (test_float8).
** CRC-32: every CRC path against a bit-at-a-time loop pinned to zlib's
**    values (and zlib itself when built with it), see test_crc32.
** --long adds all 2^32 float32 patterns through f32 -> f16 and f32 -> bf16;
** --quick runs fewer lengths and misalignments (for slow emulators).
**
** Output: one line per check group, a total per path, then
** "N passed, N failed"; exit status 1 on any failure.
*/
#define _DEFAULT_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "kernels/ggml_iq2.h"
#include <unistd.h>

#include "kernels/kernels_internal.h"
#include "kernels/crc32.h"
#include "kernels/fake_errors.h"
#include "kernels/ggml_iq.h"
#include "kernels/ggml_lowbit.h"
#include "ggml/pin_data.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* ---- bookkeeping ---------------------------------------------------------- */

static unsigned long long g_pass, g_fail;        /* whole run */
static unsigned long long grp_pass, grp_fail;    /* current group */
static char grp_name[160];
static const char *g_env = "";                   /* FP environment label */
static int fail_prints;
static char g_ctx[256];                          /* what is running, for SIGSEGV */
static int g_cur = -1;                           /* path being checked, or -1 */
static unsigned long long path_pass[8], path_fail[8];

static void group_begin(const char *fmt, ...) {
  va_list ap;
  size_t k = (size_t)snprintf(grp_name, sizeof grp_name, "%s", g_env);
  va_start(ap, fmt);
  vsnprintf(grp_name + k, sizeof grp_name - k, fmt, ap);
  va_end(ap);
  grp_pass = grp_fail = 0;
}

static void group_end(void) {
  printf("%-52s %10llu passed, %llu failed\n", grp_name, grp_pass, grp_fail);
  fflush(stdout);
}

static int check(int ok, const char *fmt, ...) {
  if (g_cur >= 0) {
    if (ok) path_pass[g_cur]++;
    else path_fail[g_cur]++;
    g_cur = -1;
  }
  if (ok) {
    g_pass++;
    grp_pass++;
    return 1;
  }
  g_fail++;
  grp_fail++;
  if (fail_prints++ < 40) {
    va_list ap;
    va_start(ap, fmt);
    printf("  FAIL [%s] ", grp_name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
  }
  return 0;
}

static void ctx(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_ctx, sizeof g_ctx, fmt, ap);
  va_end(ap);
}

static void on_fault(int sig) {
  char msg[400];
  int len = snprintf(msg, sizeof msg,
                     "\nFATAL signal %d (read or write past a buffer?) in: %s\n",
                     sig, g_ctx);
  if (len > 0) {
    ssize_t w = write(2, msg, (size_t)len);
    (void)w;
  }
  _exit(2);
}

/* ---- random numbers ------------------------------------------------------- */

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(void) {              /* splitmix64 */
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }
static size_t rnd_below(size_t n) { return n ? (size_t)(rnd64() % n) : 0; }
static float rnd_unit(void) { return (float)(rnd32() >> 8) * 0x1p-24f; }

static float f_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t u_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* NaNs of several kinds: quiet, signalling, negative, payloads. */
static const uint32_t nan_bits[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                    0xff800001u, 0x7fa00000u, 0x7fffffffu,
                                    0xffffffffu, 0x7fc00001u, 0x7f812345u,
                                    0xffbfffffu};
#define N_NANS (sizeof nan_bits / sizeof nan_bits[0])

/* Finite specials and a few infinities. */
static const uint32_t special_bits[] = {
    0x00000000u, 0x80000000u,                  /* +-0 */
    0x7f800000u, 0xff800000u,                  /* +-inf */
    0x00000001u, 0x80000001u, 0x007fffffu,     /* subnormals */
    0x807fffffu, 0x00400000u, 0x00000123u,
    0x00800000u, 0x80800000u,                  /* +-FLT_MIN */
    0x7f7fffffu, 0xff7fffffu,                  /* +-FLT_MAX */
    0x3f800000u, 0xbf800000u, 0x3f000000u, 0xbf000000u,   /* +-1, +-0.5 */
    0x4f000000u, 0xcf000000u, 0x4effffffu, 0xcf000001u,   /* around 2^31 */
    0x4b000000u, 0x4b000001u, 0xcb000000u, 0x4affffffu,   /* around 2^23 */
    0x477ff000u, 0x477fefffu, 0x38800000u, 0x33000000u,   /* f16 edges */
};
#define N_SPECIALS (sizeof special_bits / sizeof special_bits[0])

static float rnd_special(void) { return f_of(special_bits[rnd_below(N_SPECIALS)]); }
static float rnd_nan(void) { return f_of(nan_bits[rnd_below(N_NANS)]); }

/* A finite float of a random magnitude 2^-40 .. 2^40, random sign. */
static float rnd_mag(void) {
  int e = (int)rnd_below(81) - 40;
  float v = ldexpf(1.0f + rnd_unit(), e);
  return (rnd32() & 1) ? -v : v;
}

/* Any bit pattern but NaN. */
static float rnd_bits_nonnan(void) {
  uint32_t u = rnd32();
  if ((u & 0x7fffffffu) > 0x7f800000u) u &= 0xffbfffffu, u ^= 0x40000000u;
  return f_of(u);
}

/* ---- guarded buffers ------------------------------------------------------ */

/* [lo, lo + cap) followed by an inaccessible page. */
typedef struct gbuf {
  unsigned char *lo;
  size_t cap;
} gbuf;

static gbuf gb_new(size_t cap) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  cap = (cap + pg - 1) / pg * pg;
  unsigned char *m = mmap(NULL, cap + pg, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m + cap, pg, PROT_NONE) != 0) {
    perror("mmap");
    exit(2);
  }
  gbuf b = {m, cap};
  return b;
}

/* Where `bytes` bytes go: mis < 0 ends them exactly at the guard page, else
** they start at an address = mis (mod 64) and end less than 64 bytes before
** it.  64 bytes before them always exist (for canaries). */
static unsigned char *gb_place(const gbuf *b, size_t bytes, int mis) {
  unsigned char *end = b->lo + b->cap;
  if (bytes + 128 > b->cap) {
    fprintf(stderr, "gb_place: %zu bytes do not fit\n", bytes);
    exit(2);
  }
  if (mis < 0) return end - bytes;
  uintptr_t p = (uintptr_t)(end - bytes);
  size_t pad = (size_t)((p - (uintptr_t)mis) & 63u);
  return end - bytes - pad;
}

static unsigned char pat(ptrdiff_t k) { return (unsigned char)(0xa7u + 0x3bu * (size_t)k); }

/* Pre-fill an output: [p - 64, region end) gets the pattern. */
static void out_fill(const gbuf *b, unsigned char *p) {
  unsigned char *end = b->lo + b->cap;
  for (unsigned char *a = p - 64; a < end; a++) *a = pat(a - p);
}
static void ref_fill(unsigned char *r, size_t bytes) {
  for (size_t k = 0; k < bytes; k++) r[k] = pat((ptrdiff_t)k);
}
/* The canaries around [p, p + bytes) are intact. */
static int canaries_ok(const gbuf *b, const unsigned char *p, size_t bytes) {
  const unsigned char *end = b->lo + b->cap;
  for (const unsigned char *a = p - 64; a < p; a++)
    if (*a != pat(a - p)) return 0;
  for (const unsigned char *a = p + bytes; a < end; a++)
    if (*a != pat(a - p)) return 0;
  return 1;
}

/* ---- the paths ------------------------------------------------------------ */

static const sq_kernels *S;          /* scalar */
static const sq_kernels *P[8];       /* vector paths */
static int NP;

static const size_t esize[SQ_CODE_NTYPES] = {1, 1, 2, 2, 4};
static const char *const tname[SQ_CODE_NTYPES] = {"i8", "u8", "i16", "u16", "i32"};

#define MAXN (1u << 20)             /* largest array in the default tests */
static gbuf g_in, g_out, g_out2, g_par[7];
static unsigned char *g_ref;
static float *g_x;                   /* host floats */
static unsigned char *g_codes;

static void store_floats(unsigned char *dst, const float *x, size_t n) {
  for (size_t i = 0; i < n; i++) sq_store_f32(dst + 4 * i, x[i]);
}

/* Placements: misalignment pairs for a length; -1 = against the guard. */
typedef struct place {
  int mi, mo;
} place;

static int g_full_sweep = 1;       /* all 64 misalignments in length sweeps */
static int g_flushing;             /* denormals flushed (FTZ/DAZ, FZ) */

static size_t placements(size_t n, int full, place *pl) {
  size_t k = 0;
  pl[k].mi = -1, pl[k].mo = -1, k++;
  if (full && g_full_sweep) {
    for (int m = 0; m < 64; m++) pl[k].mi = m, pl[k].mo = (int)((m * 7 + n) % 64), k++;
  } else {
    pl[k].mi = 0, pl[k].mo = 0, k++;
    pl[k].mi = (int)(1 + n % 63), pl[k].mo = (int)((n * 5 + 3) % 64), k++;
    pl[k].mi = (int)((n * 11 + 17) % 64), pl[k].mo = -1, k++;
  }
  return k;
}

/* ---- quantize ------------------------------------------------------------- */

typedef struct qcfg {
  sq_code_type t;
  float scale;
  int32_t zp, qmin, qmax;
} qcfg;

static const qcfg qcfgs[] = {
    {SQ_CODE_I8, 1.0f, 0, -128, 127},
    {SQ_CODE_I8, 0.25f, 3, -128, 127},
    {SQ_CODE_I8, 0.1f, -5, -128, 127},
    {SQ_CODE_I8, 0.0078125f, 0, -127, 127},         /* restricted symmetric */
    {SQ_CODE_I8, 0.023529412f, 0, -64, 63},         /* reduce_range */
    {SQ_CODE_I8, 0.37f, 2, -8, 7},                  /* int4 */
    {SQ_CODE_I8, 3.0e-5f, -128, -128, 127},
    {SQ_CODE_U8, 1.0f, 128, 0, 255},
    {SQ_CODE_U8, 0.015686275f, 64, 0, 255},
    {SQ_CODE_U8, 0.5f, 0, 0, 127},                  /* reduce_range */
    {SQ_CODE_U8, 0.125f, 8, 0, 15},                 /* uint4 */
    {SQ_CODE_U8, 7.0f, 255, 0, 255},
    {SQ_CODE_I16, 1.0f, 0, -32768, 32767},
    {SQ_CODE_I16, 3.0517578e-05f, 0, -32768, 32767},
    {SQ_CODE_I16, 0.3f, -1000, -32768, 32767},
    {SQ_CODE_I16, 2.0f, 7, -1000, 1000},
    {SQ_CODE_U16, 1.0f, 32768, 0, 65535},
    {SQ_CODE_U16, 0.01f, 0, 0, 65535},
    {SQ_CODE_U16, 0.0625f, 65535, 0, 65535},
    {SQ_CODE_I32, 1.0f, 0, INT32_MIN, INT32_MAX},
    {SQ_CODE_I32, 0.001f, 2147483000, INT32_MIN, INT32_MAX},
    {SQ_CODE_I32, 3.0f, INT32_MIN + 5, INT32_MIN, INT32_MAX},
    {SQ_CODE_I32, 1.0e-30f, 17, INT32_MIN, INT32_MAX},
    {SQ_CODE_I32, 0.5f, INT32_MAX, INT32_MIN, INT32_MAX},
    {SQ_CODE_I32, 1.17549435e-38f, -3, -1000000, 1000000},
    {SQ_CODE_I32, 3.0e38f, 0, INT32_MIN, INT32_MAX},
};
#define N_QCFGS (sizeof qcfgs / sizeof qcfgs[0])

static sq_qparams make_qp(const qcfg *c, int divide) {
  sq_qparams p;
  p.scale = c->scale;
  p.inv = 1.0f / c->scale;
  p.lo = (float)(c->qmin - (int64_t)c->zp);
  p.hi = (float)(c->qmax - (int64_t)c->zp);
  p.zp = c->zp;
  p.qmin = c->qmin;
  p.qmax = c->qmax;
  p.divide = divide;
  p.add = 0.0f;
  return p;
}

static float y_of(float x, float scale, float inv, int divide) {
  return divide ? x / scale : x * inv;
}

/* x with x*inv (or x/scale) exactly k + 0.5 when a float within 8 ulps of
** (k+0.5)*scale gives it; else that float. */
static float tie_near(double k, float scale, float inv, int divide) {
  float target = (float)(k + 0.5);
  float x = target * scale;
  if (!isfinite(x) || y_of(x, scale, inv, divide) == target) return x;
  float up = x, dn = x;
  for (int step = 0; step < 8; step++) {
    up = nextafterf(up, INFINITY);
    dn = nextafterf(dn, -INFINITY);
    if (y_of(up, scale, inv, divide) == target) return up;
    if (y_of(dn, scale, inv, divide) == target) return dn;
  }
  return x;
}

/* One value for quantize tests of p: ties, clamp edges, specials, random. */
static float gen_q(const sq_qparams *p) {
  /* the clamp bounds of x*inv: lo and hi less add (rounding=tutorial) */
  double lo = (double)p->lo - (double)p->add, hi = (double)p->hi - (double)p->add;
  if (p->qmin == INT32_MIN || p->qmax == INT32_MAX || hi - lo > 1e6) {
    lo = -70000.0;          /* keep ties where float still has halves */
    hi = 70000.0;
  }
  double k = floor(lo - 3 + (double)rnd_unit() * (hi - lo + 6));
  switch (rnd_below(14)) {
    case 0:
    case 1:
    case 2: return tie_near(k, p->scale, p->inv, p->divide);
    case 3: return (float)k * p->scale;
    case 4: {                                   /* the clamp edges +- 0.5 */
      double l = lo, h = hi;
      double e[6] = {l - 0.5, l + 0.5, h - 0.5, h + 0.5, l - 1.0, h + 1.0};
      return tie_near(e[rnd_below(6)] - 0.5, p->scale, p->inv, p->divide);
    }
    case 5: return rnd_special();
    case 6: return rnd_mag();
    case 7: return rnd_bits_nonnan();
    case 8: return (float)((double)p->qmax - p->zp) * p->scale;
    default: return (float)(lo - 4 + (double)rnd_unit() * (hi - lo + 8)) * p->scale;
  }
}

/* Compare every path's quantize with scalar's on x[0..n). */
static void cmp_quantize(sq_code_type t, const float *x, size_t n,
                         const sq_qparams *p, int full, const char *what) {
  size_t es = esize[t], ob = es * n;
  place pl[70];
  size_t npl = placements(n, full, pl);
  unsigned char *in = gb_place(&g_in, 4 * n, -1);
  store_floats(in, x, n);
  ref_fill(g_ref, ob);
  ctx("scalar quantize %s n=%zu %s", tname[t], n, what);
  size_t rs = S->quantize[t](in, n, p, g_ref);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, 4 * n, pl[k].mi);
    if (inp != in) memmove(inp, in, 4 * n), in = inp;
    for (int v = 0; v < NP; v++) {
      unsigned char *out = gb_place(&g_out, ob, pl[k].mo);
      out_fill(&g_out, out);
      ctx("%s quantize %s n=%zu mis=%d/%d %s", P[v]->name, tname[t], n,
          pl[k].mi, pl[k].mo, what);
      size_t rv = P[v]->quantize[t](in, n, p, out);
      int same = memcmp(out, g_ref, ob) == 0, can = canaries_ok(&g_out, out, ob);
      g_cur = v;
      check(rv == rs && same && can,
            "%s quantize %s n=%zu mis=%d/%d scale=%a zp=%d [%d,%d] div=%d %s: "
            "ret %zu vs %zu%s%s",
            P[v]->name, tname[t], n, pl[k].mi, pl[k].mo, (double)p->scale, p->zp,
            p->qmin, p->qmax, p->divide, what, rv, rs,
            same ? "" : ", bytes differ", can ? "" : ", canary overwritten");
    }
  }
}

static void test_quantize(int level) {
  group_begin("quantize (%zu configs, multiply and divide)", N_QCFGS);
  for (size_t ci = 0; ci < N_QCFGS; ci++) {
    /* A scale above 2^126 has a subnormal reciprocal: flushed to 0, inf * inv
    ** is NaN and scalar converts that NaN to int (undefined behaviour). */
    if (g_flushing && qcfgs[ci].scale > 0x1p126f) continue;
    for (int divide = 0; divide < 2; divide++) {
      sq_qparams p = make_qp(&qcfgs[ci], divide);
      sq_code_type t = qcfgs[ci].t;
      size_t big = level ? 65536 + 13 : 4099;
      for (size_t i = 0; i < big; i++) g_x[i] = gen_q(&p);
      /* lengths 0..200, prefixes at varying offsets */
      int full = level && (ci == 0 || ci == 7 || ci == 13 || ci == 16 || ci == 20);
      for (size_t n = 0; n <= 200; n++) {
        size_t off = (n * 37) % 3000;
        cmp_quantize(t, g_x + off, n, &p, full, "sweep");
      }
      cmp_quantize(t, g_x, 4099, &p, 0, "4099");
      if (level) cmp_quantize(t, g_x, 65536 + 13, &p, 0, "65549");
      /* NaN at various positions; the return value and the bytes before it */
      static const size_t ns[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63,
                                  64, 65, 100, 129, 200, 1000};
      for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        size_t n = ns[a];
        size_t poss[8] = {0, n - 1, n / 2, rnd_below(n), rnd_below(n),
                          n > 20 ? 17 : 0, n > 40 ? n - 17 : 0, rnd_below(n)};
        for (size_t b = 0; b < (level ? 8u : 3u); b++) {
          float keep = g_x[poss[b]];
          g_x[poss[b]] = rnd_nan();
          cmp_quantize(t, g_x, n, &p, 0, "nan");
          /* a second NaN after the first */
          if (poss[b] + 5 < n) {
            float keep2 = g_x[poss[b] + 5];
            g_x[poss[b] + 5] = rnd_nan();
            cmp_quantize(t, g_x, n, &p, 0, "2nan");
            g_x[poss[b] + 5] = keep2;
          }
          g_x[poss[b]] = keep;
        }
      }
      if (level && (t == SQ_CODE_I8 || t == SQ_CODE_I16)) {
        /* the twin dtype through the shared kernel */
        sq_code_type tw = t == SQ_CODE_I8 ? SQ_CODE_U8 : SQ_CODE_U16;
        cmp_quantize(tw, g_x, 1000, &p, 0, "twin");
      }
    }
  }
  group_end();
}

/* ---- quantize / dequantize interleaved ----------------------------------- */

typedef struct chset {
  float *scale, *inv, *lo, *hi, *add;
  int32_t *zp;
} chset;

/* Per-channel parameter arrays, placed against guard pages. */
static sq_channel_params make_cp(sq_code_type t, size_t ch, int divide,
                                 chset *cs, int null_unused) {
  static const int32_t qr[SQ_CODE_NTYPES][2] = {
      {-128, 127}, {0, 255}, {-32768, 32767}, {0, 65535}, {INT32_MIN, INT32_MAX}};
  int32_t qmin = qr[t][0], qmax = qr[t][1];
  if (rnd_below(3) == 0 && t != SQ_CODE_I32) {     /* a narrowed range */
    if (t == SQ_CODE_I8) qmin = -8, qmax = 7;
    else if (t == SQ_CODE_U8) qmin = 0, qmax = 15;
    else qmin = qmin / 2, qmax = qmax / 2;
  }
  cs->scale = (float *)(void *)gb_place(&g_par[0], 4 * ch, -1);
  cs->inv = (float *)(void *)gb_place(&g_par[1], 4 * ch, -1);
  cs->lo = (float *)(void *)gb_place(&g_par[2], 4 * ch, -1);
  cs->hi = (float *)(void *)gb_place(&g_par[3], 4 * ch, -1);
  cs->zp = (int32_t *)(void *)gb_place(&g_par[4], 4 * ch, -1);
  cs->add = (float *)(void *)gb_place(&g_par[5], 4 * ch, -1);
  static const float scales[] = {1.0f, 0.25f, 0.1f, 0.0078125f, 3.0f,
                                 0.015686275f, 1e-4f, 0.37f, 2.0f, 1e-30f};
  for (size_t c = 0; c < ch; c++) {
    float s = scales[rnd_below(sizeof scales / sizeof scales[0])];
    if (rnd_below(4) == 0) s = 1e-3f + rnd_unit();
    int64_t span = (int64_t)qmax - qmin;
    int32_t zp = (int32_t)(qmin + (int64_t)rnd_below((size_t)span + 1));
    if (rnd_below(5) == 0) zp = rnd_below(2) ? qmin : qmax;
    cs->scale[c] = s;
    cs->inv[c] = 1.0f / s;
    cs->lo[c] = (float)(qmin - (int64_t)zp);
    cs->hi[c] = (float)(qmax - (int64_t)zp);
    cs->zp[c] = zp;
    cs->add[c] = 0.0f;
  }
  sq_channel_params p;
  p.channels = ch;
  p.scale = cs->scale;
  p.inv = cs->inv;
  p.lo = cs->lo;
  p.hi = cs->hi;
  p.zp = cs->zp;
  p.add = cs->add;
  p.qmin = qmin;
  p.qmax = qmax;
  p.divide = divide;
  /* 32-bit codes have no use for lo/hi (scalar reads every other array) */
  if (null_unused && t == SQ_CODE_I32) p.lo = p.hi = NULL;
  return p;
}

static float gen_qc(const sq_channel_params *p, const chset *cs, size_t c) {
  sq_qparams q;
  q.scale = cs->scale[c];
  q.inv = cs->inv[c];
  q.lo = cs->lo[c];
  q.hi = cs->hi[c];
  q.zp = cs->zp[c];
  q.add = cs->add[c];
  q.qmin = p->qmin;
  q.qmax = p->qmax;
  q.divide = p->divide;
  return gen_q(&q);
}

static void cmp_quantize_il(sq_code_type t, const float *x, size_t rows,
                            const sq_channel_params *p, int mis, const char *what) {
  size_t n = rows * p->channels, es = esize[t], ob = es * n;
  unsigned char *in = gb_place(&g_in, 4 * n, mis);
  store_floats(in, x, n);
  ref_fill(g_ref, ob);
  ctx("scalar quantize_interleaved %s rows=%zu ch=%zu", tname[t], rows, p->channels);
  size_t rs = S->quantize_interleaved[t](in, rows, p, g_ref);
  for (int v = 0; v < NP; v++) {
    unsigned char *out = gb_place(&g_out, ob, mis < 0 ? -1 : (mis * 3) % 64);
    out_fill(&g_out, out);
    ctx("%s quantize_interleaved %s rows=%zu ch=%zu %s", P[v]->name, tname[t],
        rows, p->channels, what);
    size_t rv = P[v]->quantize_interleaved[t](in, rows, p, out);
    g_cur = v;
    check(rv == rs && memcmp(out, g_ref, ob) == 0 && canaries_ok(&g_out, out, ob),
          "%s quantize_interleaved %s rows=%zu ch=%zu div=%d %s: ret %zu vs %zu%s",
          P[v]->name, tname[t], rows, p->channels, p->divide, what, rv, rs,
          memcmp(out, g_ref, ob) ? ", bytes differ" : "");
  }
}

static size_t channel_list(size_t *chs, int level) {
  size_t k = 0;
  for (size_t c = 1; c <= 40; c++) chs[k++] = c;
  chs[k++] = 63;
  chs[k++] = 64;
  chs[k++] = 67;
  chs[k++] = 100;
  chs[k++] = 256;
  if (level) chs[k++] = 1000;
  return k;
}

static void test_quantize_il(int level) {
  group_begin("quantize_interleaved");
  size_t chs[64], nch = channel_list(chs, level);
  for (int ti = 0; ti < SQ_CODE_NTYPES; ti++) {
    sq_code_type t = (sq_code_type)ti;
    for (size_t a = 0; a < nch; a++) {
      size_t ch = chs[a];
      for (size_t rows = 0; rows <= 9; rows += (level ? 1 : 3)) {
        int divide = (int)((rows + a) & 1);
        chset cs;
        sq_channel_params p = make_cp(t, ch, divide, &cs, (int)(rows & 2));
        size_t n = rows * ch;
        for (size_t i = 0; i < n; i++) g_x[i] = gen_qc(&p, &cs, i % ch);
        cmp_quantize_il(t, g_x, rows, &p, (int)(rows % 3) - 1, "");
        if (n && (rows % 3 == 1 || level)) {
          size_t pos[3] = {n - 1, rnd_below(n), (rows - 1) * ch};
          for (int b = 0; b < 3; b++) {
            float keep = g_x[pos[b]];
            g_x[pos[b]] = rnd_nan();
            cmp_quantize_il(t, g_x, rows, &p, b - 1, "nan");
            g_x[pos[b]] = keep;
          }
        }
      }
    }
    /* many rows of a few channel counts (widened rows and their leftovers) */
    static const size_t wide[] = {3, 5, 6, 12, 17, 33};
    for (size_t a = 0; a < sizeof wide / sizeof wide[0]; a++) {
      size_t ch = wide[a], rows = 37 + a;
      chset cs;
      sq_channel_params p = make_cp(t, ch, (int)(a & 1), &cs, 0);
      for (size_t i = 0; i < rows * ch; i++) g_x[i] = gen_qc(&p, &cs, i % ch);
      cmp_quantize_il(t, g_x, rows, &p, 5, "wide");
      size_t pos = rnd_below(rows * ch);
      g_x[pos] = rnd_nan();
      cmp_quantize_il(t, g_x, rows, &p, -1, "wide nan");
      g_x[pos] = 1.0f;
      g_x[rows * ch - 1] = rnd_nan();
      cmp_quantize_il(t, g_x, rows, &p, -1, "wide nan last");
    }
    /* Rows wider than L1 holds the parameters of (the vector paths
    ** prefetch the input 4 KB ahead there), odd counts and ones with a
    ** tail: every path against scalar, and scalar against the one-parameter
    ** kernel element by element (the formula the interleaved ones share). */
    static const size_t wider[] = {2053, 4096, 4099};
    for (size_t a = 0; a < sizeof wider / sizeof wider[0]; a++) {
      size_t ch = wider[a], rows = level ? 5 : 3;
      for (int variant = 0; variant < 3; variant++) {
        int divide = variant != 0;
        chset cs;
        sq_channel_params p = make_cp(t, ch, divide, &cs, 0);
        if (variant == 2 && t != SQ_CODE_I32)     /* rounding=tutorial */
          for (size_t c = 0; c < ch; c++) {
            cs.add[c] = (float)cs.zp[c];
            cs.lo[c] = (float)p.qmin;
            cs.hi[c] = (float)p.qmax;
          }
        size_t n = rows * ch;
        for (size_t i = 0; i < n; i++) g_x[i] = gen_qc(&p, &cs, i % ch);
        cmp_quantize_il(t, g_x, rows, &p, (int)a - 1, "wider");
        unsigned char *in = gb_place(&g_in, 4 * n, -1);
        store_floats(in, g_x, n);
        size_t rs = S->quantize_interleaved[t](in, rows, &p, g_ref);
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++) {
          size_t c = i % ch;
          sq_qparams q = {cs.scale[c], cs.inv[c], cs.lo[c], cs.hi[c], cs.zp[c],
                          p.qmin, p.qmax, p.divide, cs.add[c]};
          unsigned char one[4];
          S->quantize[t](in + 4 * i, 1, &q, one);
          if (memcmp(one, g_ref + esize[t] * i, esize[t])) bad = i;
        }
        check(rs == n && bad == n,
              "scalar quantize_interleaved %s ch=%zu variant %d: element %zu "
              "differs from quantize with its channel's parameters",
              tname[t], ch, variant, bad);
        size_t pos[3] = {rnd_below(ch), ch + rnd_below(ch), n - 1 - rnd_below(3)};
        for (int b = 0; b < 3; b++) {
          float keep = g_x[pos[b]];
          g_x[pos[b]] = rnd_nan();
          cmp_quantize_il(t, g_x, rows, &p, b - 1, "wider nan");
          g_x[pos[b]] = keep;
        }
      }
    }
  }
  group_end();
}

/* ---- dequantize ----------------------------------------------------------- */

static void gen_codes(sq_code_type t, unsigned char *q, size_t n) {
  static const uint32_t edges[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000,
                                   0xffff, 0x7fffffff, 0x80000000u, 0xffffffffu,
                                   0x00ffffff, 0x01000001};
  size_t es = esize[t];
  for (size_t i = 0; i < n; i++) {
    uint32_t v = rnd_below(4) == 0 ? edges[rnd_below(sizeof edges / sizeof edges[0])]
                                   : rnd32();
    if (es == 1) q[i] = (unsigned char)v;
    else if (es == 2) sq_store_u16(q + 2 * i, (uint16_t)v);
    else sq_store_u32(q + 4 * i, v);
  }
}

static void cmp_dequantize(sq_code_type t, const unsigned char *codes, size_t n,
                           float scale, int32_t zp, int full, const char *what) {
  size_t es = esize[t], ob = 4 * n;
  place pl[70];
  size_t npl = placements(n, full, pl);
  unsigned char *in = gb_place(&g_in, es * n, -1);
  memcpy(in, codes, es * n);
  ref_fill(g_ref, ob);
  ctx("scalar dequantize %s n=%zu", tname[t], n);
  S->dequantize[t](in, n, scale, zp, g_ref);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, es * n, pl[k].mi);
    if (inp != in) memmove(inp, in, es * n), in = inp;
    for (int v = 0; v < NP; v++) {
      unsigned char *out = gb_place(&g_out, ob, pl[k].mo);
      out_fill(&g_out, out);
      ctx("%s dequantize %s n=%zu mis=%d/%d", P[v]->name, tname[t], n, pl[k].mi,
          pl[k].mo);
      P[v]->dequantize[t](in, n, scale, zp, out);
      g_cur = v;
      check(memcmp(out, g_ref, ob) == 0 && canaries_ok(&g_out, out, ob),
            "%s dequantize %s n=%zu mis=%d/%d scale=%a zp=%d %s", P[v]->name,
            tname[t], n, pl[k].mi, pl[k].mo, (double)scale, zp, what);
    }
  }
}

static void test_dequantize(int level) {
  group_begin("dequantize");
  static const float scales[] = {1.0f, 0.1f, 0.015686275f, 3.0f, 1e-30f,
                                 3.4e38f, 1.17549435e-38f, 1e-45f, 0.0078125f};
  static const int32_t zps[] = {0, 1, -1, 128, -128, 255, 32768, -32768, 65535,
                                100000, 2147483647, -2147483647 - 1, 2147418112,
                                -2147418112, 2147418111, 16777217};
  for (int ti = 0; ti < SQ_CODE_NTYPES; ti++) {
    sq_code_type t = (sq_code_type)ti;
    gen_codes(t, g_codes, 70000);
    for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
      for (size_t zi = 0; zi < sizeof zps / sizeof zps[0]; zi++) {
        float s = scales[si];
        int32_t zp = zps[zi];
        int full = level && si == 1 && zi == 3;
        size_t step = level ? 1 : 7;
        for (size_t n = (si + zi) % step; n <= 200; n += step)
          cmp_dequantize(t, g_codes + esize[t] * ((n * 13) % 1000), n, s, zp, full, "sweep");
        cmp_dequantize(t, g_codes, 4099, s, zp, 0, "4099");
      }
    }
    if (level) cmp_dequantize(t, g_codes, 65536 + 13, 0.1f, 3, 0, "65549");
  }
  group_end();
}

static void cmp_dequantize_il(sq_code_type t, const unsigned char *codes,
                              size_t rows, const sq_channel_params *p, int mis) {
  size_t n = rows * p->channels, es = esize[t], ob = 4 * n;
  unsigned char *in = gb_place(&g_in, es * n, mis);
  memcpy(in, codes, es * n);
  ref_fill(g_ref, ob);
  ctx("scalar dequantize_interleaved %s rows=%zu ch=%zu", tname[t], rows, p->channels);
  S->dequantize_interleaved[t](in, rows, p, g_ref);
  for (int v = 0; v < NP; v++) {
    unsigned char *out = gb_place(&g_out, ob, mis < 0 ? -1 : (mis * 5) % 64);
    out_fill(&g_out, out);
    ctx("%s dequantize_interleaved %s rows=%zu ch=%zu", P[v]->name, tname[t],
        rows, p->channels);
    P[v]->dequantize_interleaved[t](in, rows, p, out);
    g_cur = v;
    check(memcmp(out, g_ref, ob) == 0 && canaries_ok(&g_out, out, ob),
          "%s dequantize_interleaved %s rows=%zu ch=%zu", P[v]->name, tname[t],
          rows, p->channels);
  }
}

static void test_dequantize_il(int level) {
  group_begin("dequantize_interleaved");
  size_t chs[64], nch = channel_list(chs, level);
  for (int ti = 0; ti < SQ_CODE_NTYPES; ti++) {
    sq_code_type t = (sq_code_type)ti;
    for (size_t a = 0; a < nch; a++) {
      for (size_t rows = 0; rows <= 9; rows += (level ? 1 : 2)) {
        size_t ch = chs[a];
        chset cs;
        sq_channel_params p = make_cp(t, ch, 0, &cs, 0);
        p.inv = p.lo = p.hi = NULL;           /* dequantize reads none of them */
        if (a % 7 == 3) cs.zp[rnd_below(ch)] = (int32_t)rnd32();   /* any zp */
        gen_codes(t, g_codes, rows * ch);
        cmp_dequantize_il(t, g_codes, rows, &p, (int)(rows % 3) - 1);
      }
    }
    static const size_t wide[] = {3, 5, 6, 12, 17, 33};
    for (size_t a = 0; a < sizeof wide / sizeof wide[0]; a++) {
      chset cs;
      sq_channel_params p = make_cp(t, wide[a], 0, &cs, 0);
      gen_codes(t, g_codes, 41 * wide[a]);
      cmp_dequantize_il(t, g_codes, 41, &p, 9);
    }
  }
  group_end();
}

/* ---- min / max ------------------------------------------------------------ */

static void cmp_minmax(const float *x, size_t n, int full, const char *what) {
  place pl[70];
  size_t npl = placements(n, full, pl);
  unsigned char *in = gb_place(&g_in, 4 * n, -1);
  store_floats(in, x, n);
  float smn = 0, smx = 0;
  ctx("scalar minmax n=%zu %s", n, what);
  size_t rs = S->minmax(in, n, &smn, &smx);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, 4 * n, pl[k].mi);
    if (inp != in) memmove(inp, in, 4 * n), in = inp;
    for (int v = 0; v < NP; v++) {
      float vmn = 1234.0f, vmx = -1234.0f;
      ctx("%s minmax n=%zu mis=%d %s", P[v]->name, n, pl[k].mi, what);
      size_t rv = P[v]->minmax(in, n, &vmn, &vmx);
      int ok = rv == rs && (rs < n || (u_of(vmn) == u_of(smn) && u_of(vmx) == u_of(smx)));
      g_cur = v;
      check(ok, "%s minmax n=%zu mis=%d %s: ret %zu vs %zu, min %08x vs %08x, max %08x vs %08x",
            P[v]->name, n, pl[k].mi, what, rv, rs, (unsigned)u_of(vmn),
            (unsigned)u_of(smn), (unsigned)u_of(vmx), (unsigned)u_of(smx));
    }
  }
}

/* n >= 1 values: kind 0 random magnitudes, 1 nonnegative with signed zeros,
** 2 nonpositive with signed zeros, 3 only signed zeros, 4 specials (finite),
** 5 subnormals and zeros, 6 positive values, positive subnormals and +0,
** 7 the negatives of 6 (under denormal flushing a subnormal equals zero). */
static void gen_mm(float *x, size_t n, int kind) {
  for (size_t i = 0; i < n; i++) {
    float v;
    switch (kind) {
      case 0: v = rnd_below(8) ? rnd_mag() : (rnd_below(2) ? 0.0f : -0.0f); break;
      case 1: v = rnd_below(4) ? fabsf(rnd_mag()) : (rnd_below(2) ? 0.0f : -0.0f); break;
      case 2: v = rnd_below(4) ? -fabsf(rnd_mag()) : (rnd_below(2) ? 0.0f : -0.0f); break;
      case 3: v = rnd_below(2) ? 0.0f : -0.0f; break;
      case 4:
        do v = rnd_special(); while (!isfinite(v));
        break;
      case 5: {
        uint32_t u = rnd32() & 0x807fffffu;
        if (rnd_below(3) == 0) u &= 0x80000000u;
        v = f_of(u);
        break;
      }
      default: {
        uint32_t u = rnd32() & 0x007fffffu;
        if (rnd_below(4) == 0) u = 0;
        if (rnd_below(3) == 0) u = u_of(fabsf(rnd_mag()));
        v = f_of(u | (kind == 7 ? 0x80000000u : 0));
      }
    }
    x[i] = v;
  }
}

static void test_minmax(int level) {
  group_begin("minmax");
  /* n = 0 is outside the contract (n >= 1) and scalar reads x[0] then; the
  ** vector paths must return 0 without touching memory. */
  for (int v = 0; v < NP; v++) {
    float a = 5.0f, b = 6.0f;
    unsigned char *in = gb_place(&g_in, 0, -1);
    ctx("%s minmax n=0", P[v]->name);
    size_t r = P[v]->minmax(in, 0, &a, &b);
    g_cur = v;
    check(r == 0, "%s minmax n=0 returned %zu", P[v]->name, r);
  }
  for (int kind = 0; kind < 8; kind++) {
    for (size_t n = 1; n <= 200; n++) {
      gen_mm(g_x, n, kind);
      cmp_minmax(g_x, n, level && kind < 2, "sweep");
      /* one zero placed first with each sign, the rest positive or negative */
      if (kind == 1 || kind == 2) {
        for (size_t i = 0; i < n; i++) g_x[i] = kind == 1 ? fabsf(rnd_mag()) : -fabsf(rnd_mag());
        size_t z1 = rnd_below(n), z2 = rnd_below(n);
        g_x[z1] = rnd_below(2) ? 0.0f : -0.0f;
        g_x[z2] = rnd_below(2) ? 0.0f : -0.0f;
        cmp_minmax(g_x, n, 0, "two zeros");
      }
    }
    static const size_t bigs[] = {4099, 4096, 8192 + 5, 65536 + 13, 300001};
    for (size_t b = 0; b < sizeof bigs / sizeof bigs[0]; b++) {
      if (!level && bigs[b] > 10000) continue;
      gen_mm(g_x, bigs[b], kind);
      cmp_minmax(g_x, bigs[b], 0, "big");
    }
  }
  /* zeros of both signs in the same lane of every path's accumulators
  ** (64 apart), the only zeros of the data */
  for (size_t n = 65; n <= 1200; n += (n < 300 ? 7 : 331)) {
    for (int sgn = 0; sgn < 4; sgn++) {
      for (size_t i = 0; i < n; i++) g_x[i] = (sgn & 1) ? -fabsf(rnd_mag()) : fabsf(rnd_mag());
      size_t z = rnd_below(n - 64);
      g_x[z] = (sgn & 2) ? -0.0f : 0.0f;
      g_x[z + 64] = (sgn & 2) ? 0.0f : -0.0f;
      cmp_minmax(g_x, n, 0, "zeros in one lane");
      if (z + 128 < n) {
        g_x[z + 128] = g_x[z];
        cmp_minmax(g_x, n, 0, "zeros in one lane x3");
      }
    }
  }
  /* a zero extreme decided late in a long array */
  for (int sgn = 0; sgn < 4; sgn++) {
    size_t n = 20000;
    for (size_t i = 0; i < n; i++) g_x[i] = (sgn & 1) ? -fabsf(rnd_mag()) : fabsf(rnd_mag());
    g_x[n - 50] = (sgn & 2) ? -0.0f : 0.0f;
    g_x[n - 3] = (sgn & 2) ? 0.0f : -0.0f;
    cmp_minmax(g_x, n, 0, "late zeros");
    g_x[7] = (sgn & 2) ? 0.0f : -0.0f;
    cmp_minmax(g_x, n, 0, "early zero");
  }
  /* non-finite values at many positions */
  static const size_t ns[] = {1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127,
                              128, 129, 200, 4096, 4097, 10000};
  static const uint32_t bad[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                 0x7f800001u, 0xffffffffu, 0xff800001u};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    size_t n = ns[a];
    gen_mm(g_x, n, 0);
    size_t poss[6] = {0, n - 1, n / 2, rnd_below(n), n > 4100 ? 4100 : n / 3,
                      n > 40 ? n - 33 : 0};
    for (size_t b = 0; b < 6; b++) {
      for (size_t c = 0; c < (level ? 6u : 2u); c++) {
        size_t i = poss[b];
        float keep = g_x[i];
        g_x[i] = f_of(bad[(c + b) % 6]);
        cmp_minmax(g_x, n, 0, "nonfinite");
        if (i + 3 < n) {              /* a different one after it */
          float k2 = g_x[i + 3];
          g_x[i + 3] = f_of(bad[(c + b + 1) % 6]);
          cmp_minmax(g_x, n, 0, "two nonfinite");
          g_x[i + 3] = k2;
        }
        g_x[i] = keep;
      }
    }
  }
  group_end();
}

static void cmp_minmax_il(const float *x, size_t rows, size_t ch, int seed_kind,
                          int mis, const char *what) {
  size_t n = rows * ch;
  unsigned char *in = gb_place(&g_in, 4 * n, mis);
  store_floats(in, x, n);
  float *smn = (float *)(void *)g_ref, *smx = smn + ch;
  float seeds_mn[4096], seeds_mx[4096];
  for (size_t c = 0; c < ch; c++) {
    switch (seed_kind) {
      case 0: seeds_mn[c] = INFINITY, seeds_mx[c] = -INFINITY; break;
      case 1: seeds_mn[c] = seeds_mx[c] = rows ? x[c] : 0.0f; break;
      case 2: seeds_mn[c] = rnd_below(2) ? 0.0f : -0.0f;
              seeds_mx[c] = rnd_below(2) ? 0.0f : -0.0f; break;
      default: seeds_mn[c] = rnd_below(3) ? rnd_mag() : NAN;
               seeds_mx[c] = rnd_below(3) ? rnd_mag() : NAN; break;
    }
    smn[c] = seeds_mn[c];
    smx[c] = seeds_mx[c];
  }
  ctx("scalar minmax_interleaved rows=%zu ch=%zu", rows, ch);
  size_t rs = S->minmax_interleaved(in, rows, ch, smn, smx);
  for (int v = 0; v < NP; v++) {
    float *vmn = (float *)(void *)gb_place(&g_par[5], 4 * ch, -1);
    float *vmx = (float *)(void *)gb_place(&g_par[6], 4 * ch, -1);
    memcpy(vmn, seeds_mn, 4 * ch);
    memcpy(vmx, seeds_mx, 4 * ch);
    ctx("%s minmax_interleaved rows=%zu ch=%zu %s", P[v]->name, rows, ch, what);
    size_t rv = P[v]->minmax_interleaved(in, rows, ch, vmn, vmx);
    g_cur = v;
    check(rv == rs && memcmp(vmn, smn, 4 * ch) == 0 && memcmp(vmx, smx, 4 * ch) == 0,
          "%s minmax_interleaved rows=%zu ch=%zu seeds=%d %s: ret %zu vs %zu%s",
          P[v]->name, rows, ch, seed_kind, what, rv, rs,
          rv == rs ? ", mn/mx differ" : "");
  }
}

static void test_minmax_il(int level) {
  group_begin("minmax_interleaved");
  size_t chs[64], nch = channel_list(chs, level);
  for (size_t a = 0; a < nch; a++) {
    size_t ch = chs[a];
    for (size_t rows = 0; rows <= 9; rows++) {
      int kind = (int)((a + rows) % 8);
      gen_mm(g_x, rows * ch, kind);
      cmp_minmax_il(g_x, rows, ch, (int)(rows % 4), (int)(rows % 3) - 1, "");
      if (rows && (level || rows % 4 == 1)) {
        size_t n = rows * ch, pos[3] = {n - 1, rnd_below(n), (rows - 1) * ch / 2};
        for (int b = 0; b < 3; b++) {
          float keep = g_x[pos[b]];
          g_x[pos[b]] = b == 1 ? rnd_nan() : (b ? -INFINITY : INFINITY);
          cmp_minmax_il(g_x, rows, ch, b, b - 1, "nonfinite");
          g_x[pos[b]] = keep;
        }
      }
    }
  }
  group_end();
}

/* ---- error sums ----------------------------------------------------------- */

static uint64_t bits_of(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

/* The four sums bit for bit; max |a-b| bit for bit when the inputs are
** finite.  With non-finite inputs only each sum's class (NaN, or the same
** bits) is compared: a NaN's payload depends on operand order, and max is
** unspecified. */
static int es_match(const sq_error_sums *s, const sq_error_sums *v, int finite) {
  const double sv[4] = {s->sum_a2, s->sum_b2, s->sum_ab, s->sum_d2};
  const double vv[4] = {v->sum_a2, v->sum_b2, v->sum_ab, v->sum_d2};
  for (int k = 0; k < 4; k++) {
    if (finite || !isnan(sv[k]) || !isnan(vv[k]))
      if (memcmp(&sv[k], &vv[k], 8) != 0) return 0;
  }
  return !finite || bits_of(s->max_abs_d) == bits_of(v->max_abs_d);
}

/* Compare every path's error_sums with scalar's on a[0..n), b[0..n): a in
** g_in, b in g_out, each against its guard page or at the placements'
** misalignments. */
static void cmp_error_sums(const float *x, const float *y, size_t n, int full,
                           int finite, const char *what) {
  place pl[70];
  size_t npl = placements(n, full, pl);
  unsigned char *a = gb_place(&g_in, 4 * n, -1), *b = gb_place(&g_out, 4 * n, -1);
  store_floats(a, x, n);
  store_floats(b, y, n);
  sq_error_sums rs, rv;
  ctx("scalar error_sums n=%zu %s", n, what);
  S->error_sums(a, b, n, &rs);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *ap = gb_place(&g_in, 4 * n, pl[k].mi);
    unsigned char *bp = gb_place(&g_out, 4 * n, pl[k].mo);
    if (ap != a) memmove(ap, a, 4 * n), a = ap;
    if (bp != b) memmove(bp, b, 4 * n), b = bp;
    for (int v = 0; v < NP; v++) {
      memset(&rv, 0x5a, sizeof rv);
      ctx("%s error_sums n=%zu mis=%d/%d %s", P[v]->name, n, pl[k].mi, pl[k].mo, what);
      P[v]->error_sums(a, b, n, &rv);
      g_cur = v;
      check(es_match(&rs, &rv, finite),
            "%s error_sums n=%zu mis=%d/%d %s: a2 %a/%a b2 %a/%a ab %a/%a d2 %a/%a "
            "max %a/%a",
            P[v]->name, n, pl[k].mi, pl[k].mo, what, rv.sum_a2, rs.sum_a2, rv.sum_b2,
            rs.sum_b2, rv.sum_ab, rs.sum_ab, rv.sum_d2, rs.sum_d2, rv.max_abs_d,
            rs.max_abs_d);
    }
  }
}

/* Any finite float: every exponent (subnormals included) equally likely. */
static float rnd_finite_wide(void) {
  uint32_t u = rnd32();
  uint32_t e = (uint32_t)rnd_below(255);          /* 0..254: not inf/NaN */
  return f_of((u & 0x807fffffu) | (e << 23));
}

/* n pairs (a, b) of finite values: kind 0 b near a (a quantization error),
** 1 every exponent, independent, 2 finite specials, 3 b = a, -a or signed
** zeros, 4 huge magnitudes (1e38, FLT_MAX), 5 subnormals, 6 any finite bit
** pattern, 7 b = a rounded to a grid (a real quantize/dequantize). */
static void gen_es(float *x, float *y, size_t n, int kind) {
  static const float grid[] = {0.1f, 0.0078125f, 3.0f, 1e-30f, 1e30f};
  float s = grid[rnd_below(sizeof grid / sizeof grid[0])];
  for (size_t i = 0; i < n; i++) {
    float a, b;
    switch (kind) {
      case 0:
        a = rnd_mag();
        b = a * (1.0f + (rnd_unit() - 0.5f) * 0x1p-6f);
        break;
      case 1: a = rnd_finite_wide(), b = rnd_finite_wide(); break;
      case 2:
        do a = rnd_special(); while (!isfinite(a));
        do b = rnd_special(); while (!isfinite(b));
        break;
      case 3: {
        a = rnd_below(3) ? rnd_mag() : (rnd_below(2) ? 0.0f : -0.0f);
        size_t r = rnd_below(4);
        b = r == 0 ? a : r == 1 ? -a : r == 2 ? 0.0f : -0.0f;
        break;
      }
      case 4:
        a = (rnd_below(2) ? 1.0f : -1.0f) * (rnd_below(3) ? 1e38f * (1.0f + rnd_unit()) : FLT_MAX);
        b = rnd_below(3) ? -a : a * 0.5f;
        if (!isfinite(a)) a = FLT_MAX;
        break;
      case 5: a = f_of(rnd32() & 0x807fffffu), b = f_of(rnd32() & 0x807fffffu); break;
      case 6: a = rnd_bits_nonnan(), b = rnd_bits_nonnan();
        if (!isfinite(a)) a = 1.5f;
        if (!isfinite(b)) b = -2.5f;
        break;
      default:
        a = rnd_mag() * 1e-3f * (float)(1 + rnd_below(4));
        b = s * rintf(a / s);
        if (!isfinite(b)) b = a;
    }
    x[i] = a;
    y[i] = b;
  }
}

static void test_error_sums(int level) {
  group_begin("error_sums");
  float *y = malloc(sizeof(float) * MAXN);
  if (!y) exit(2);
  for (int kind = 0; kind < 8; kind++) {
    for (size_t n = 0; n <= 200; n += (level ? 1 : 3)) {
      gen_es(g_x, y, n, kind);
      cmp_error_sums(g_x, y, n, level && (kind == 0 || kind == 6), 1, "sweep");
    }
    static const size_t bigs[] = {1023, 1024, 1025, 4099, 16 * 64 * 3 + 7,
                                  65536 + 13, 300001, MAXN};
    for (size_t k = 0; k < sizeof bigs / sizeof bigs[0]; k++) {
      if (!level && bigs[k] > 5000) continue;
      if (bigs[k] == MAXN && kind % 3) continue;
      gen_es(g_x, y, bigs[k], kind);
      cmp_error_sums(g_x, y, bigs[k], 0, 1, "big");
    }
  }
  /* magnitudes mixed within one tensor: the additions' rounding shows any
  ** change of order (every lane holds large and small terms) */
  for (size_t r = 0; r < (level ? 40u : 6u); r++) {
    size_t n = 16 + rnd_below(6000);
    for (size_t i = 0; i < n; i++) {
      int kind = (int)rnd_below(8);
      gen_es(g_x + i, y + i, 1, kind);
    }
    cmp_error_sums(g_x, y, n, 0, 1, "mixed");
  }
  /* infinities and NaNs: same class of result */
  static const size_t ns[] = {1, 15, 16, 17, 33, 200, 1029};
  for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    size_t n = ns[k];
    for (int c = 0; c < (level ? 8 : 3); c++) {
      gen_es(g_x, y, n, 0);
      size_t i = c == 0 ? 0 : c == 1 ? n - 1 : rnd_below(n);
      float bad = c & 1 ? rnd_nan() : (c & 2 ? -INFINITY : INFINITY);
      if (c & 4) y[i] = bad;
      else g_x[i] = bad;
      if (c == 5) g_x[i] = y[i];        /* inf - inf, or NaN in both */
      cmp_error_sums(g_x, y, n, 0, 0, "nonfinite");
    }
  }
  free(y);
  group_end();
}

/* ---- fake_errors: many parameter sets' round-trip errors at once ---------- */

/* sq_fake_sq_errors (kernels/fake_errors.h) on the scalar table and every
** path must give, bit for bit, what the scalar kernels give one set at a
** time: quantize, dequantize, error_sums' sum_d2.  Parameters: random
** scales (multiply or divide), zero points inside each code range, full and
** 4-bit ranges; data: random magnitudes around the range, exact ties
** ((k + 0.5) * scale), values beyond the clamp bounds, signed zeros. */
static void fe_params(sq_code_type code, int narrow, int divide, int count,
                      sq_qparams *q) {
  static const int32_t lo_of[] = {-128, 0, -32768, 0}, hi_of[] = {127, 255, 32767, 65535};
  int32_t qmin = narrow ? (code == SQ_CODE_U8 ? 0 : -8) : lo_of[code];
  int32_t qmax = narrow ? (code == SQ_CODE_U8 ? 15 : 7) : hi_of[code];
  for (int c = 0; c < count; c++) {
    float scale = (0.5f + rnd_unit()) * f_of((uint32_t)(100 + rnd_below(50)) << 23);
    int32_t zp = qmin + (int32_t)rnd_below((size_t)(qmax - qmin + 1));
    q[c] = (sq_qparams){scale, 1.0f / scale, (float)(qmin - zp), (float)(qmax - zp),
                        zp, qmin, qmax, divide, 0.0f};
  }
}

static void fe_data(float *x, size_t n, const sq_qparams *q, int kind) {
  for (size_t i = 0; i < n; i++) {
    float s = q[0].scale;
    float span = s * (q[0].hi - q[0].lo);
    switch (kind) {
      case 0: x[i] = (rnd_unit() * 1.4f - 0.2f) * span + q[0].lo * s; break;
      case 1: x[i] = ((float)(int32_t)rnd_below(400) - 200.0f + 0.5f) * s; break;
      case 2: x[i] = (rnd32() & 1 ? -1.0f : 1.0f) * rnd_mag(); break;
      default: x[i] = (rnd32() & 1) ? -0.0f : 0.0f; break;
    }
  }
}

static void test_fake_errors(int level) {
  group_begin("fake_errors");
  static const size_t ns[] = {1, 2, 15, 16, 17, 31, 32, 33, 64, 127, 128, 200, 257, 2048};
  static const int counts[] = {1, 3, 4, 8, 15, 16, 17, 80};
  sq_qparams q[SQ_FE_MAX];
  double want[SQ_FE_MAX], got[SQ_FE_MAX];
  unsigned char *codes = g_codes;
  float *y = malloc(sizeof(float) * 2048);
  if (!y) exit(2);
  int rounds = level ? 6 : 2;
  for (int code = SQ_CODE_I8; code <= SQ_CODE_U16; code++)
    for (int narrow = 0; narrow < (code <= SQ_CODE_U8 ? 2 : 1); narrow++)
      for (int divide = 0; divide < 2; divide++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
          for (int r = 0; r < rounds; r++) {
            size_t n = ns[k];
            int count = counts[rnd_below(sizeof counts / sizeof counts[0])];
            int kind = r % 4;
            fe_params((sq_code_type)code, narrow, divide, count, q);
            fe_data(g_x, n, q, kind);
            unsigned char *in = gb_place(&g_in, 4 * n, -1);
            store_floats(in, g_x, n);
            ctx("scalar fake_errors reference n=%zu code=%s", n, tname[code]);
            for (int c = 0; c < count; c++) {
              S->quantize[code](in, n, &q[c], codes);
              S->dequantize[code](codes, n, q[c].scale, q[c].zp, y);
              sq_error_sums e;
              S->error_sums(in, y, n, &e);
              want[c] = e.sum_d2;
            }
            for (int v = -1; v < NP; v++) {
              const sq_kernels *kt = v < 0 ? S : P[v];
              ctx("%s fake_errors n=%zu code=%s count=%d", kt->name, n, tname[code], count);
              memset(got, 0x5a, sizeof got);
              int ok = sq_fake_sq_errors(kt, in, n, (sq_code_type)code, q, count, got);
              g_cur = v;
              int same = ok == 1;
              for (int c = 0; c < count && same; c++)
                same = memcmp(&want[c], &got[c], sizeof want[c]) == 0;
              check(same, "%s fake_errors n=%zu code=%s narrow=%d divide=%d count=%d kind=%d",
                    kt->name, n, tname[code], narrow, divide, count, kind);
            }
          }
  /* what it declines: 32-bit codes, add != 0, mixed divide flags */
  fe_params(SQ_CODE_I8, 0, 0, 2, q);
  check(sq_fake_sq_errors(S, g_in.lo, 1, SQ_CODE_I32, q, 2, got) == 0, "fake_errors declines i32");
  q[1].add = 1.0f;
  check(sq_fake_sq_errors(S, g_in.lo, 1, SQ_CODE_I8, q, 2, got) == 0, "fake_errors declines add");
  q[1].add = 0.0f;
  q[1].divide = 1;
  check(sq_fake_sq_errors(S, g_in.lo, 1, SQ_CODE_I8, q, 2, got) == 0,
        "fake_errors declines mixed divide");
  g_cur = -1;
  free(y);
  group_end();
}

/* ---- per-block min / max --------------------------------------------------- */

/* Compare every path's minmax_blocks with scalar's: the return value always,
** mn and mx when every element is finite; nothing written outside the
** nblocks entries of mn and mx (canaries). */
static void cmp_minmax_blocks(const float *x, size_t n, size_t block, int full,
                              const char *what) {
  size_t nb = n ? (n + block - 1) / block : 0;
  place pl[70];
  size_t npl = placements(n, full, pl);
  unsigned char *in = gb_place(&g_in, 4 * n, -1);
  store_floats(in, x, n);
  float *smn = (float *)(void *)g_ref, *smx = smn + nb;
  ctx("scalar minmax_blocks n=%zu block=%zu %s", n, block, what);
  size_t rs = S->minmax_blocks(in, n, block, smn, smx);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, 4 * n, pl[k].mi);
    if (inp != in) memmove(inp, in, 4 * n), in = inp;
    for (int v = 0; v < NP; v++) {
      /* float arrays: misaligned by whole floats only */
      int mo = pl[k].mo < 0 ? -1 : pl[k].mo & ~3;
      unsigned char *mn = gb_place(&g_out, 4 * nb, mo);
      unsigned char *mx = gb_place(&g_out2, 4 * nb, mo < 0 ? -1 : (mo * 3 + 4) % 64);
      out_fill(&g_out, mn);
      out_fill(&g_out2, mx);
      ctx("%s minmax_blocks n=%zu block=%zu mis=%d/%d %s", P[v]->name, n, block,
          pl[k].mi, pl[k].mo, what);
      size_t rv = P[v]->minmax_blocks(in, n, block, (float *)(void *)mn,
                                      (float *)(void *)mx);
      int same = rs < n || (memcmp(mn, smn, 4 * nb) == 0 && memcmp(mx, smx, 4 * nb) == 0);
      int can = canaries_ok(&g_out, mn, 4 * nb) && canaries_ok(&g_out2, mx, 4 * nb);
      size_t first = 0;
      while (!same && first < nb && sq_load_u32(mn + 4 * first) == u_of(smn[first]) &&
             sq_load_u32(mx + 4 * first) == u_of(smx[first]))
        first++;
      g_cur = v;
      check(rv == rs && same && can,
            "%s minmax_blocks n=%zu block=%zu mis=%d/%d %s: ret %zu vs %zu%s%s",
            P[v]->name, n, block, pl[k].mi, pl[k].mo, what, rv, rs,
            same ? "" : ", mn/mx differ from block ", can ? "" : ", canary overwritten");
      if (!same && fail_prints < 40) printf("    first differing block %zu: min %08x vs %08x, max %08x vs %08x\n",
                        first, (unsigned)sq_load_u32(mn + 4 * first), (unsigned)u_of(smn[first]),
                        (unsigned)sq_load_u32(mx + 4 * first), (unsigned)u_of(smx[first]));
    }
  }
}

/* Per block: positive (or negative) values with zeros of either sign at a
** few places, so every block's extreme is a zero decided by its first one. */
static void gen_block_zeros(float *x, size_t n, size_t block) {
  for (size_t s = 0; s < n; s += block) {
    size_t len = n - s < block ? n - s : block;
    int neg = (int)rnd_below(2);
    for (size_t i = 0; i < len; i++) x[s + i] = neg ? -fabsf(rnd_mag()) : fabsf(rnd_mag());
    size_t nz = 1 + rnd_below(3);
    for (size_t z = 0; z < nz; z++) x[s + rnd_below(len)] = rnd_below(2) ? 0.0f : -0.0f;
  }
}

static void test_minmax_blocks(int level) {
  group_begin("minmax_blocks");
  for (int v = 0; v < NP; v++) {            /* n = 0 touches nothing */
    unsigned char *in = gb_place(&g_in, 0, -1);
    unsigned char *mn = gb_place(&g_out, 0, -1), *mx = gb_place(&g_out2, 0, -1);
    ctx("%s minmax_blocks n=0", P[v]->name);
    size_t r = P[v]->minmax_blocks(in, 0, 32, (float *)(void *)mn, (float *)(void *)mx);
    g_cur = v;
    check(r == 0, "%s minmax_blocks n=0 returned %zu", P[v]->name, r);
  }
  static const size_t extra[] = {80, 96, 112, 128, 200, 256, 512, 1000, 1024};
  size_t blocks[90], nbk = 0;
  for (size_t b = 1; b <= 70; b++) blocks[nbk++] = b;
  for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) blocks[nbk++] = extra[k];
  for (size_t bi = 0; bi < nbk; bi++) {
    size_t B = blocks[bi];
    size_t ns[12] = {1, B - 1, B, B + 1, 2 * B + 3, 8 * B, 8 * B + B / 2 + 1,
                     16 * B, 16 * B + 1, 17 * B - 1, 33 * B + 5,
                     1 + rnd_below(40 * B)};
    for (size_t a = 0; a < 12; a++) {
      size_t n = ns[a];
      if (n == 0 || n > 70000) continue;
      int kind = (int)((a + bi) % 9);
      if (kind == 8) gen_block_zeros(g_x, n, B);
      else gen_mm(g_x, n, kind);
      int full = level && (B == 8 || B == 16 || B == 32 || B == 64) && a == 6;
      cmp_minmax_blocks(g_x, n, B, full, "sweep");
      if (level || a % 4 == 0) {
        gen_block_zeros(g_x, n, B);
        cmp_minmax_blocks(g_x, n, B, 0, "block zeros");
      }
    }
  }
  /* the common block sizes on longer tensors, every data kind */
  static const size_t common[] = {16, 32, 64, 128, 256};
  for (size_t ci = 0; ci < sizeof common / sizeof common[0]; ci++) {
    for (int kind = 0; kind < 9; kind++) {
      size_t n = level ? 65536 + 13 + ci * 1001 : 4099;
      if (kind == 8) gen_block_zeros(g_x, n, common[ci]);
      else gen_mm(g_x, n, kind);
      cmp_minmax_blocks(g_x, n, common[ci], 0, "big");
    }
  }
  /* lengths 0..200 against blocks 32 and 7, all placements for some */
  for (size_t n = 1; n <= 200; n += (level ? 1 : 5)) {
    gen_mm(g_x, n, (int)(n % 8));
    cmp_minmax_blocks(g_x, n, 32, level && n % 16 == 5, "length sweep");
    cmp_minmax_blocks(g_x, n, 7, 0, "length sweep");
  }
  /* one block larger than the tensor, and one block of all of it */
  gen_mm(g_x, 5000, 0);
  cmp_minmax_blocks(g_x, 5000, 1u << 20, 0, "one short block");
  cmp_minmax_blocks(g_x, 5000, 5000, 0, "one block");
  cmp_minmax_blocks(g_x, 4096, 4096, 0, "one block");
  /* non-finite values: the first one's index, at block and group edges */
  static const size_t bb[] = {1, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 31, 32, 33, 48,
                              64, 65, 100, 128, 130, 256};
  static const uint32_t badv[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                  0x7f800001u, 0xffffffffu, 0xff800001u};
  for (size_t k = 0; k < sizeof bb / sizeof bb[0]; k++) {
    /* long enough for the vector paths' prefetching group loop (which stops
    ** 8 KB before the end) and the loop after it */
    size_t B = bb[k], n = 40 * B + 2100 + B / 3 + 1, nb = n / B;
    gen_mm(g_x, n, (int)(k % 8));
    /* last element of a group of 8 (AVX2) or 16 (AVX-512) blocks first: the
    ** first group, and the last whole one */
    size_t poss[13] = {8 * B - 1, 16 * B - 1, nb / 8 * 8 * B - 1, nb / 16 * 16 * B - 1,
                       0, n - 1, 7 * B + B / 2, B - 1, B, 8 * B, 16 * B + B / 2,
                       rnd_below(n), rnd_below(n)};
    for (size_t pi = 0; pi < (level ? 13u : 6u); pi++) {
      size_t i = poss[pi];
      if (i >= n) continue;
      float keep = g_x[i];
      g_x[i] = f_of(badv[(pi + k) % 6]);
      cmp_minmax_blocks(g_x, n, B, 0, "nonfinite");
      size_t j = i + 1 + rnd_below(2 * B);     /* another one after it */
      if (j < n) {
        float k2 = g_x[j];
        g_x[j] = f_of(badv[(pi + k + 1) % 6]);
        cmp_minmax_blocks(g_x, n, B, 0, "two nonfinite");
        g_x[j] = k2;
      }
      g_x[i] = keep;
    }
  }
  group_end();
}

/* ---- 4-bit packing -------------------------------------------------------- */

static void test_pack4(int level) {
  group_begin("pack4 / unpack4");
  place pl[70];
  for (size_t n = 0; n <= 300 + (level ? 4000u : 0u); n += (n < 300 ? 1 : 997)) {
    for (size_t i = 0; i < n; i++) g_codes[i] = (unsigned char)rnd32();
    size_t pb = (n + 1) / 2;
    size_t npl = placements(n, level && n <= 200, pl);
    /* pack4 */
    unsigned char *in = gb_place(&g_in, n, -1);
    memcpy(in, g_codes, n);
    ref_fill(g_ref, pb);
    S->pack4(in, n, g_ref);
    for (size_t k = 0; k < npl; k++) {
      unsigned char *inp = gb_place(&g_in, n, pl[k].mi);
      memmove(inp, in, n);
      in = inp;
      for (int v = 0; v < NP; v++) {
        unsigned char *out = gb_place(&g_out, pb, pl[k].mo);
        out_fill(&g_out, out);
        ctx("%s pack4 n=%zu", P[v]->name, n);
        P[v]->pack4(in, n, out);
        g_cur = v;
        check(memcmp(out, g_ref, pb) == 0 && canaries_ok(&g_out, out, pb),
              "%s pack4 n=%zu mis=%d/%d", P[v]->name, n, pl[k].mi, pl[k].mo);
      }
    }
    /* unpack4, both signednesses */
    for (int sgn = 0; sgn < 2; sgn++) {
      in = gb_place(&g_in, pb, -1);
      memcpy(in, g_codes, pb);
      ref_fill(g_ref, n);
      S->unpack4(in, n, sgn, g_ref);
      for (size_t k = 0; k < npl; k++) {
        unsigned char *inp = gb_place(&g_in, pb, pl[k].mi);
        memmove(inp, in, pb);
        in = inp;
        for (int v = 0; v < NP; v++) {
          unsigned char *out = gb_place(&g_out, n, pl[k].mo);
          out_fill(&g_out, out);
          ctx("%s unpack4 n=%zu", P[v]->name, n);
          P[v]->unpack4(in, n, sgn, out);
          g_cur = v;
          check(memcmp(out, g_ref, n) == 0 && canaries_ok(&g_out, out, n),
                "%s unpack4 n=%zu signed=%d mis=%d/%d", P[v]->name, n, sgn,
                pl[k].mi, pl[k].mo);
        }
      }
    }
  }
  group_end();
}

/* ---- half formats --------------------------------------------------------- */

typedef void (*conv_fn)(const void *, size_t, void *);
enum { F16_TO_F32, F32_TO_F16, BF16_TO_F32, F32_TO_BF16 };
static const char *const conv_name[4] = {"f16_to_f32", "f32_to_f16", "bf16_to_f32",
                                         "f32_to_bf16"};

static conv_fn conv_of(const sq_kernels *k, int which) {
  switch (which) {
    case F16_TO_F32: return k->f16_to_f32;
    case F32_TO_F16: return k->f32_to_f16;
    case BF16_TO_F32: return k->bf16_to_f32;
    default: return k->f32_to_bf16;
  }
}

/* src holds n elements of the input format (raw little-endian bytes). */
static void cmp_conv(int which, const unsigned char *src, size_t n, int full) {
  size_t ib = (which == F16_TO_F32 || which == BF16_TO_F32) ? 2 : 4;
  size_t obe = 6 - ib, ob = obe * n;
  place pl[70];
  size_t npl = placements(n, full, pl);
  unsigned char *in = gb_place(&g_in, ib * n, -1);
  memcpy(in, src, ib * n);
  ref_fill(g_ref, ob);
  ctx("scalar %s n=%zu", conv_name[which], n);
  conv_of(S, which)(in, n, g_ref);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, ib * n, pl[k].mi);
    if (inp != in) memmove(inp, in, ib * n), in = inp;
    for (int v = 0; v < NP; v++) {
      unsigned char *out = gb_place(&g_out, ob, pl[k].mo);
      out_fill(&g_out, out);
      ctx("%s %s n=%zu mis=%d/%d", P[v]->name, conv_name[which], n, pl[k].mi, pl[k].mo);
      conv_of(P[v], which)(in, n, out);
      g_cur = v;
      int same = memcmp(out, g_ref, ob) == 0;
      size_t first = 0;
      while (!same && first < ob && out[first] == g_ref[first]) first++;
      check(same && canaries_ok(&g_out, out, ob),
            "%s %s n=%zu mis=%d/%d%s (first differing element %zu)", P[v]->name,
            conv_name[which], n, pl[k].mi, pl[k].mo,
            same ? ": canary overwritten" : ": bytes differ", first / obe);
    }
  }
}

/* Every f16 value, the midpoints between neighbours and one ulp around them:
** all f32 -> f16 rounding boundaries. */
static size_t f16_boundaries(unsigned char *dst) {
  size_t k = 0;
  for (uint32_t h = 0; h < 0x10000u; h += 1) {
    float a = sq_f16_to_f32_scalar((uint16_t)h);
    if (!isfinite(a)) continue;
    float b = sq_f16_to_f32_scalar((uint16_t)(h + 1));
    uint32_t ua = u_of(a), ub = u_of(b);
    sq_store_u32(dst + 4 * k++, ua);
    if ((h & 0x7fffu) == 0x7fffu || !isfinite(b) || (h & 0x7c00u) == 0x7c00u) {
      /* past the largest finite f16: 65520 and around */
      sq_store_u32(dst + 4 * k++, (ua & 0x80000000u) | 0x477ff000u);
      sq_store_u32(dst + 4 * k++, (ua & 0x80000000u) | 0x477fefffu);
      continue;
    }
    /* a and b have the same sign here; the midpoint in between */
    uint32_t mid = (uint32_t)(((uint64_t)ua + ub) / 2);
    if (fabsf(b) > fabsf(a)) {
      sq_store_u32(dst + 4 * k++, mid);
      sq_store_u32(dst + 4 * k++, mid - 1);
      sq_store_u32(dst + 4 * k++, mid + 1);
    }
  }
  return k;
}

static void test_half(int level) {
  unsigned char *buf = g_codes;
  group_begin("f16 / bf16 conversions");
  /* all 65536 half patterns -> f32 */
  for (uint32_t h = 0; h < 0x10000u; h++) sq_store_u16(buf + 2 * h, (uint16_t)h);
  cmp_conv(F16_TO_F32, buf, 0x10000, 0);
  cmp_conv(BF16_TO_F32, buf, 0x10000, 0);
  /* f32 -> f16 at every rounding boundary */
  size_t nb = f16_boundaries(buf);
  for (size_t off = 0; off < nb; off += 65536)
    cmp_conv(F32_TO_F16, buf + 4 * off, nb - off < 65536 ? nb - off : 65536, 0);
  /* random bit patterns (every class: NaNs, subnormals, ties) */
  size_t rounds = level ? 16 : 2;
  for (size_t r = 0; r < rounds; r++) {
    for (size_t i = 0; i < 65536; i++) {
      uint32_t u = rnd32();
      switch (rnd_below(6)) {
        case 0: u = (u & 0xffff0000u) | 0x8000u; break;        /* bf16 tie */
        case 1: u = (u & 0xffff0000u) | 0x7fffu; break;
        case 2: u = (u & 0x807fffffu) | 0x7f800000u; break;    /* inf, NaN */
        case 3: u = special_bits[rnd_below(N_SPECIALS)]; break;
        case 4: u = (u & 0xffffe000u) | 0x1000u; break;        /* f16 tie */
        default: break;
      }
      sq_store_u32(buf + 4 * i, u);
    }
    cmp_conv(F32_TO_F16, buf, 65536, 0);
    cmp_conv(F32_TO_BF16, buf, 65536, 0);
    cmp_conv(F16_TO_F32, buf, 65536, 0);     /* the same bytes as halves */
    cmp_conv(BF16_TO_F32, buf, 65536, 0);
  }
  /* lengths 0..200 and misalignments (tails and heads) */
  for (size_t n = 0; n <= 200; n += (level ? 1 : 3)) {
    for (int w = 0; w < 4; w++) cmp_conv(w, buf + 4 * (n % 50), n, level);
  }
  group_end();
}

/* all 2^32 patterns through f32 -> f16 and f32 -> bf16 */
static void test_half_long(void) {
  group_begin("f32 -> f16/bf16, all 2^32 (--long)");
  const size_t chunk = 1u << 20;
  unsigned char *src = malloc(4 * chunk), *ref = malloc(2 * chunk), *out = malloc(2 * chunk);
  if (!src || !ref || !out) exit(2);
  for (uint64_t base = 0; base < (1ull << 32); base += chunk) {
    for (size_t i = 0; i < chunk; i++) sq_store_u32(src + 4 * i, (uint32_t)(base + i));
    for (int which = F32_TO_F16; which <= F32_TO_BF16; which += 2) {
      conv_of(S, which)(src, chunk, ref);
      for (int v = 0; v < NP; v++) {
        ctx("%s %s long base=%llx", P[v]->name, conv_name[which], (unsigned long long)base);
        conv_of(P[v], which)(src, chunk, out);
        g_cur = v;
        check(memcmp(out, ref, 2 * chunk) == 0, "%s %s differs in [%08llx, +2^20)",
              P[v]->name, conv_name[which], (unsigned long long)base);
      }
    }
  }
  free(src);
  free(ref);
  free(out);
  group_end();
}

/* ---- exact-size heap buffers (what AddressSanitizer watches) --------------- */

/* malloc'd buffers of exactly the bytes a call may touch: under ASan any
** access before or after them is reported (the guard pages above only catch
** the end). */
static void test_heap_exact(void) {
  group_begin("exact-size heap buffers");
  for (size_t n = 0; n <= 72; n++) {
    size_t mis = n % 4;                      /* an unaligned start, exact end */
    unsigned char *x = malloc(4 * n + mis + 1), *o1 = malloc(4 * n + 1),
                  *o2 = malloc(4 * n + 1);
    if (!x || !o1 || !o2) exit(2);
    unsigned char *xs = x + mis;
    for (size_t i = 0; i < n; i++) sq_store_f32(xs + 4 * i, rnd_mag());
    for (int v = 0; v < NP; v++) {
      ctx("%s heap n=%zu", P[v]->name, n);
      for (int ti = 0; ti < SQ_CODE_NTYPES; ti++) {
        qcfg c = qcfgs[ti == 0 ? 0 : ti == 1 ? 7 : ti == 2 ? 12 : ti == 3 ? 16 : 19];
        sq_qparams p = make_qp(&c, (int)(n & 1));
        memset(o1, 0, 4 * n + 1);
        memset(o2, 0, 4 * n + 1);
        size_t r1 = S->quantize[ti](xs, n, &p, o1), r2 = P[v]->quantize[ti](xs, n, &p, o2);
        g_cur = v;
        check(r1 == r2 && memcmp(o1, o2, esize[ti] * n) == 0, "%s heap quantize %s n=%zu",
              P[v]->name, tname[ti], n);
        S->dequantize[ti](xs, n, 0.5f, 3, o1);
        P[v]->dequantize[ti](xs, n, 0.5f, 3, o2);
        g_cur = v;
        check(memcmp(o1, o2, 4 * n) == 0, "%s heap dequantize %s n=%zu", P[v]->name,
              tname[ti], n);
      }
      for (int w = 0; w < 4; w++) {
        conv_of(S, w)(xs, n, o1);
        conv_of(P[v], w)(xs, n, o2);
        g_cur = v;
        check(memcmp(o1, o2, (w == F16_TO_F32 || w == BF16_TO_F32 ? 4 : 2) * n) == 0,
              "%s heap %s n=%zu", P[v]->name, conv_name[w], n);
      }
      P[v]->pack4(xs, n, o2);
      S->pack4(xs, n, o1);
      g_cur = v;
      check(memcmp(o1, o2, (n + 1) / 2) == 0, "%s heap pack4 n=%zu", P[v]->name, n);
      P[v]->unpack4(xs, n, 1, o2);
      S->unpack4(xs, n, 1, o1);
      g_cur = v;
      check(memcmp(o1, o2, n) == 0, "%s heap unpack4 n=%zu", P[v]->name, n);
      if (n) {
        float a1, b1, a2, b2;
        size_t r1 = S->minmax(xs, n, &a1, &b1), r2 = P[v]->minmax(xs, n, &a2, &b2);
        g_cur = v;
        check(r1 == r2 && u_of(a1) == u_of(a2) && u_of(b1) == u_of(b2),
              "%s heap minmax n=%zu", P[v]->name, n);
      }
      /* error sums: a second exact input; per-block min/max: exact outputs */
      {
        unsigned char *yb = malloc(4 * n + 1);
        if (!yb) exit(2);
        for (size_t i = 0; i < n; i++) sq_store_f32(yb + 4 * i, rnd_mag());
        sq_error_sums e1, e2;
        S->error_sums(xs, yb, n, &e1);
        P[v]->error_sums(xs, yb, n, &e2);
        g_cur = v;
        check(es_match(&e1, &e2, 1), "%s heap error_sums n=%zu", P[v]->name, n);
        free(yb);
        static const size_t hb[] = {1, 3, 4, 8, 16, 32};
        for (size_t k = 0; k < sizeof hb / sizeof hb[0] && n; k++) {
          size_t nb = (n + hb[k] - 1) / hb[k];
          float *m1 = malloc(8 * nb), *m2 = malloc(4 * nb), *m3 = malloc(4 * nb);
          if (!m1 || !m2 || !m3) exit(2);
          size_t r1 = S->minmax_blocks(xs, n, hb[k], m1, m1 + nb);
          size_t r2 = P[v]->minmax_blocks(xs, n, hb[k], m2, m3);
          g_cur = v;
          check(r1 == r2 && memcmp(m1, m2, 4 * nb) == 0 && memcmp(m1 + nb, m3, 4 * nb) == 0,
                "%s heap minmax_blocks n=%zu block=%zu", P[v]->name, n, hb[k]);
          free(m1), free(m2), free(m3);
        }
      }
      /* interleaved: every split of n into rows x channels, exact arrays */
      for (size_t ch = 1; ch <= n; ch++) {
        if (n % ch) continue;
        size_t rows = n / ch;
        float *sc = malloc(4 * ch), *iv = malloc(4 * ch), *lo = malloc(4 * ch),
              *hi = malloc(4 * ch), *m1 = malloc(8 * ch), *m2 = malloc(8 * ch);
        int32_t *zp = malloc(4 * ch);
        float *ad = calloc(ch, 4);
        if (!sc || !iv || !lo || !hi || !zp || !ad || !m1 || !m2) exit(2);
        for (size_t k = 0; k < ch; k++) {
          sc[k] = 0.05f * (float)(k + 1);
          iv[k] = 1.0f / sc[k];
          zp[k] = (int32_t)(k % 7) - 3;
          lo[k] = (float)(-128 - zp[k]);
          hi[k] = (float)(127 - zp[k]);
          m1[k] = m2[k] = INFINITY;
          m1[ch + k] = m2[ch + k] = -INFINITY;
        }
        sq_channel_params cp = {ch, sc, iv, lo, hi, zp, -128, 127, (int)(ch & 1), ad};
        size_t r1 = S->quantize_interleaved[0](xs, rows, &cp, o1);
        size_t r2 = P[v]->quantize_interleaved[0](xs, rows, &cp, o2);
        g_cur = v;
        check(r1 == r2 && memcmp(o1, o2, n) == 0, "%s heap quantize_il %zux%zu",
              P[v]->name, rows, ch);
        S->dequantize_interleaved[0](xs, rows, &cp, o1);
        P[v]->dequantize_interleaved[0](xs, rows, &cp, o2);
        g_cur = v;
        check(memcmp(o1, o2, 4 * n) == 0, "%s heap dequantize_il %zux%zu", P[v]->name,
              rows, ch);
        r1 = S->minmax_interleaved(xs, rows, ch, m1, m1 + ch);
        r2 = P[v]->minmax_interleaved(xs, rows, ch, m2, m2 + ch);
        g_cur = v;
        check(r1 == r2 && memcmp(m1, m2, 8 * ch) == 0, "%s heap minmax_il %zux%zu",
              P[v]->name, rows, ch);
        free(sc), free(iv), free(lo), free(hi), free(zp), free(ad), free(m1), free(m2);
      }
    }
    free(x), free(o1), free(o2);
  }
  group_end();
}

/* ---- rounding=tutorial: the zero point added before rounding ---------------- */

/* p (8/16-bit codes) as sq_qparams_make sets it for rounding=tutorial. */
static void qp_tutorial(sq_qparams *p) {
  p->divide = 1;
  p->add = (float)p->zp;
  p->lo = (float)p->qmin;
  p->hi = (float)p->qmax;
}
static void cp_tutorial(sq_channel_params *p, chset *cs) {
  p->divide = 1;
  for (size_t c = 0; c < p->channels; c++) {
    cs->add[c] = (float)cs->zp[c];
    cs->lo[c] = (float)p->qmin;
    cs->hi[c] = (float)p->qmax;
  }
}

/* Every path equals scalar under rounding=tutorial, per tensor and
** interleaved (tie cases come from gen_q: x/scale = k + 1/2 exactly, and k +
** 1/2 + zp stays a tie), and scalar gives the formula's codes on exact ties
** with odd and even zero points. */
static void test_quantize_tutorial(int level) {
  group_begin("quantize rounding=tutorial");
  for (size_t ci = 0; ci < N_QCFGS; ci++) {
    if (qcfgs[ci].t == SQ_CODE_I32) continue;
    sq_qparams p = make_qp(&qcfgs[ci], 1);
    qp_tutorial(&p);
    sq_code_type t = qcfgs[ci].t;
    for (size_t i = 0; i < 4099; i++) g_x[i] = gen_q(&p);
    for (size_t n = 0; n <= 200; n += (level ? 1 : 7))
      cmp_quantize(t, g_x + (n * 37) % 3000, n, &p, 0, "tutorial sweep");
    cmp_quantize(t, g_x, 4099, &p, 0, "tutorial 4099");
    for (size_t n = 1; n <= 100; n += 33) {
      size_t at = rnd_below(n);
      float keep = g_x[at];
      g_x[at] = rnd_nan();
      cmp_quantize(t, g_x, n, &p, 0, "tutorial nan");
      g_x[at] = keep;
    }
  }
  size_t chs[64], nch = channel_list(chs, level);
  for (int ti = 0; ti < SQ_CODE_I32; ti++) {
    sq_code_type t = (sq_code_type)ti;
    for (size_t a = 0; a < nch; a++) {
      for (size_t rows = 1; rows <= 9; rows += 4) {
        chset cs;
        sq_channel_params p = make_cp(t, chs[a], 1, &cs, 0);
        cp_tutorial(&p, &cs);
        size_t n = rows * chs[a];
        for (size_t i = 0; i < n; i++) g_x[i] = gen_qc(&p, &cs, i % chs[a]);
        cmp_quantize_il(t, g_x, rows, &p, (int)(rows % 3) - 1, "tutorial");
        g_x[rnd_below(n)] = rnd_nan();
        cmp_quantize_il(t, g_x, rows, &p, -1, "tutorial nan");
      }
    }
    static const size_t wide[] = {3, 5, 6, 12, 17, 33};
    for (size_t a = 0; a < sizeof wide / sizeof wide[0]; a++) {
      chset cs;
      size_t rows = 37 + a;
      sq_channel_params p = make_cp(t, wide[a], 1, &cs, 0);
      cp_tutorial(&p, &cs);
      for (size_t i = 0; i < rows * wide[a]; i++) g_x[i] = gen_qc(&p, &cs, i % wide[a]);
      cmp_quantize_il(t, g_x, rows, &p, 5, "tutorial wide");
    }
  }
  /* Exact ties k + 1/2 (scale 0.25): round(k + 1/2 + zp) to even.  With zp
  ** 1, 0.125 -> round(1.5) = 2 where torch's round(0.5) + 1 gives 1. */
  static const struct { float x; int32_t zp, want; } pins[] = {
      {0.125f, 1, 2}, {0.375f, 1, 2}, {-0.125f, 1, 0}, {0.625f, 1, 4},
      {0.125f, 0, 0}, {0.375f, 0, 2}, {-0.125f, 0, 0}, {0.625f, 0, 2},
      {31.875f, 0, 127}, {31.875f, -1, 126}, {-32.125f, 0, -128}, {-31.875f, -1, -128},
  };
  for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
    qcfg c = {SQ_CODE_I8, 0.25f, pins[i].zp, -128, 127};
    sq_qparams p = make_qp(&c, 1);
    qp_tutorial(&p);
    float xs[16];
    for (int j = 0; j < 16; j++) xs[j] = pins[i].x;   /* a whole vector */
    unsigned char in[64], out[16];
    store_floats(in, xs, 16);
    S->quantize[SQ_CODE_I8](in, 16, &p, out);
    check((int8_t)out[0] == pins[i].want && (int8_t)out[15] == pins[i].want,
          "scalar tutorial x=%g zp=%d: got %d, want %d", (double)pins[i].x,
          pins[i].zp, (int8_t)out[0], pins[i].want);
    cmp_quantize(SQ_CODE_I8, xs, 16, &p, 0, "tutorial pin");
  }
  group_end();
}

/* ---- the scalar reference pinned to known values --------------------------- */

static void test_scalar_pins(void) {
  group_begin("scalar reference pinned");
  static const struct { uint16_t h; uint32_t f; } h2f[] = {
      {0x3c00, 0x3f800000}, {0x7bff, 0x477fe000}, {0x0001, 0x33800000},
      {0x8000, 0x80000000}, {0x7c00, 0x7f800000}, {0xfc00, 0xff800000},
      {0x7e00, 0x7fc00000}, {0x7c01, 0x7fc02000}, {0xfd00, 0xffe00000},
      {0x03ff, 0x387fc000}, {0x0400, 0x38800000}, {0xc000, 0xc0000000},
      {0x8001, 0xb3800000}, {0x3555, 0x3eaaa000}};
  for (size_t i = 0; i < sizeof h2f / sizeof h2f[0]; i++)
    check(u_of(sq_f16_to_f32_scalar(h2f[i].h)) == h2f[i].f, "f16 %04x -> %08x, got %08x",
          h2f[i].h, (unsigned)h2f[i].f, (unsigned)u_of(sq_f16_to_f32_scalar(h2f[i].h)));
  static const struct { uint32_t f; uint16_t h; } f2h[] = {
      {0x477ff000, 0x7c00},   /* 65520 -> inf */
      {0x477fefff, 0x7bff},   /* 65519.996 -> 65504 */
      {0x477fe000, 0x7bff},   {0x3f800000, 0x3c00}, {0x33800000, 0x0001},
      {0x33000000, 0x0000},   /* 2^-25: tie, to even (0) */
      {0x33000001, 0x0001},   {0x33c00000, 0x0002},   /* 1.5 * 2^-24 -> 2 */
      {0x34200000, 0x0002},   /* 2.5 * 2^-24 -> 2 */
      {0x3f801000, 0x3c00},   /* 1 + 2^-11: tie, to even */
      {0x3f803000, 0x3c02},   /* 1 + 3*2^-11: tie, to even */
      {0x3f801001, 0x3c01},   {0x7fc00000, 0x7e00}, {0x7f800001, 0x7e00},
      {0xffffffff, 0xffff},   {0x7f802000, 0x7e01}, {0x7f800000, 0x7c00},
      {0x80000000, 0x8000},   {0x7f7fffff, 0x7c00}, {0x00000001, 0x0000},
      {0xc7800000, 0xfc00},   {0x387fc000, 0x03ff}, {0x38800000, 0x0400}};
  for (size_t i = 0; i < sizeof f2h / sizeof f2h[0]; i++)
    check(sq_f32_to_f16_scalar(f_of(f2h[i].f)) == f2h[i].h, "f32 %08x -> f16 %04x, got %04x",
          (unsigned)f2h[i].f, f2h[i].h, sq_f32_to_f16_scalar(f_of(f2h[i].f)));
  check(sq_f32_to_f16_scalar(65520.0f) == 0x7c00, "65520 -> inf");
  check(sq_f32_to_f16_scalar(65519.996f) == 0x7bff, "65519.996 -> 0x7bff");
  check(sq_f16_to_f32_scalar(0x7bff) == 65504.0f, "0x7bff -> 65504");
  check(sq_f16_to_f32_scalar(0x0001) == 0x1p-24f, "0x0001 -> 2^-24");
  static const struct { uint16_t h; uint32_t f; } b2f[] = {
      {0x3f80, 0x3f800000}, {0x7f81, 0x7fc10000}, {0xff80, 0xff800000},
      {0x0001, 0x00010000}, {0xffff, 0xffff0000}, {0x7f80, 0x7f800000}};
  for (size_t i = 0; i < sizeof b2f / sizeof b2f[0]; i++)
    check(u_of(sq_bf16_to_f32_scalar(b2f[i].h)) == b2f[i].f, "bf16 %04x -> %08x",
          b2f[i].h, (unsigned)b2f[i].f);
  static const struct { uint32_t f; uint16_t h; } f2b[] = {
      {0x3f800000, 0x3f80}, {0x3f808000, 0x3f80}, {0x3f818000, 0x3f82},
      {0x3f808001, 0x3f81}, {0x7f7fffff, 0x7f80}, {0x7f800001, 0x7fc0},
      {0xff800001, 0xffc0}, {0x00000001, 0x0000}, {0x00008000, 0x0000},
      {0x00018000, 0x0002}, {0x007fffff, 0x0080}, {0x7fffffff, 0x7fff},
      {0x80000000, 0x8000}};
  for (size_t i = 0; i < sizeof f2b / sizeof f2b[0]; i++)
    check(sq_f32_to_bf16_scalar(f_of(f2b[i].f)) == f2b[i].h, "f32 %08x -> bf16 %04x, got %04x",
          (unsigned)f2b[i].f, f2b[i].h, sq_f32_to_bf16_scalar(f_of(f2b[i].f)));

  /* quantize, int8, scale 1, zp 0: round half to even, saturation, NaN */
  {
    qcfg c = {SQ_CODE_I8, 1.0f, 0, -128, 127};
    sq_qparams p = make_qp(&c, 0);
    float x[] = {2.5f, 3.5f, -2.5f, -3.5f, 0.5f, 1.5f, 1000.0f, -1000.0f,
                 INFINITY, -INFINITY, -0.0f, 127.5f, -128.5f, 126.5f, -0.5f};
    signed char want[] = {2, 4, -2, -4, 0, 2, 127, -128, 127, -128, 0, 127, -128, 126, 0};
    unsigned char q[16], xb[64];
    size_t n = sizeof x / sizeof x[0];
    store_floats(xb, x, n);
    for (int divide = 0; divide < 2; divide++) {
      p.divide = divide;
      size_t r = S->quantize[SQ_CODE_I8](xb, n, &p, q);
      check(r == n, "quantize returns n");
      for (size_t i = 0; i < n; i++)
        check((signed char)q[i] == want[i], "quantize(%g) = %d, want %d", (double)x[i],
              (signed char)q[i], want[i]);
    }
    float y[] = {1.0f, 2.0f, 3.0f, NAN, 5.0f};
    store_floats(xb, y, 5);
    check(S->quantize[SQ_CODE_I8](xb, 5, &p, q) == 3, "quantize NaN returns its index");
  }
  /* uint8 scale 0.5 zp 10; int4 range through I8 */
  {
    qcfg c = {SQ_CODE_U8, 0.5f, 10, 0, 255};
    sq_qparams p = make_qp(&c, 0);
    float x[] = {1.25f, -100.0f, 200.0f, 0.0f, 1.75f};
    unsigned char want[] = {12, 0, 255, 10, 14}, q[8], xb[32];
    store_floats(xb, x, 5);
    S->quantize[SQ_CODE_U8](xb, 5, &p, q);
    for (int i = 0; i < 5; i++)
      check(q[i] == want[i], "uint8 quantize(%g) = %u, want %u", (double)x[i], q[i], want[i]);
    qcfg c4 = {SQ_CODE_I8, 1.0f, 0, -8, 7};
    sq_qparams p4 = make_qp(&c4, 0);
    float x4[] = {7.5f, -8.5f, 6.5f, -100.0f};
    signed char w4[] = {7, -8, 6, -8};
    store_floats(xb, x4, 4);
    S->quantize[SQ_CODE_I8](xb, 4, &p4, q);
    for (int i = 0; i < 4; i++)
      check((signed char)q[i] == w4[i], "int4 quantize(%g) = %d", (double)x4[i], (signed char)q[i]);
  }
  /* int32: zero points at the extremes, huge inputs */
  {
    qcfg c = {SQ_CODE_I32, 1.0f, INT32_MAX, INT32_MIN, INT32_MAX};
    sq_qparams p = make_qp(&c, 0);
    float x[] = {1.0f, -1e10f, -2147483648.0f, INFINITY, -INFINITY, 0.0f};
    int32_t want[] = {INT32_MAX, INT32_MIN, -1, INT32_MAX, INT32_MIN, INT32_MAX};
    unsigned char q[32], xb[32];
    store_floats(xb, x, 6);
    S->quantize[SQ_CODE_I32](xb, 6, &p, q);
    for (int i = 0; i < 6; i++)
      check((int32_t)sq_load_u32(q + 4 * i) == want[i], "int32 quantize(%g) = %d, want %d",
            (double)x[i], (int32_t)sq_load_u32(q + 4 * i), want[i]);
    qcfg c0 = {SQ_CODE_I32, 1.0f, 0, INT32_MIN, INT32_MAX};
    sq_qparams p0 = make_qp(&c0, 0);
    float x0[] = {16777217.0f, 2147483648.0f, -2147483648.0f, 2.5f, -7.5f};
    int32_t w0[] = {16777216, INT32_MAX, INT32_MIN, 2, -8};
    store_floats(xb, x0, 5);
    S->quantize[SQ_CODE_I32](xb, 5, &p0, q);
    for (int i = 0; i < 5; i++)
      check((int32_t)sq_load_u32(q + 4 * i) == w0[i], "int32 quantize(%g) = %d, want %d",
            (double)x0[i], (int32_t)sq_load_u32(q + 4 * i), w0[i]);
  }
  /* dequantize */
  {
    unsigned char q8[1] = {0x80}, y[8];
    S->dequantize[SQ_CODE_I8](q8, 1, 0.5f, 127, y);
    check(sq_load_f32(y) == -127.5f, "dequantize int8 -128 zp 127 scale 0.5");
    q8[0] = 255;
    S->dequantize[SQ_CODE_U8](q8, 1, 2.0f, 0, y);
    check(sq_load_f32(y) == 510.0f, "dequantize uint8 255 scale 2");
    unsigned char q32[4];
    sq_store_u32(q32, 0x80000000u);
    S->dequantize[SQ_CODE_I32](q32, 1, 1.0f, INT32_MAX, y);
    check(sq_load_f32(y) == -4294967296.0f, "dequantize int32 min - max");
  }
  /* minmax: first occurrence among equal zeros, first non-finite index */
  {
    unsigned char xb[64];
    float mn, mx;
    float a[] = {3.0f, -1.0f, 2.0f};
    store_floats(xb, a, 3);
    check(S->minmax(xb, 3, &mn, &mx) == 3 && mn == -1.0f && mx == 3.0f, "minmax basic");
    float z[] = {0.0f, -0.0f};
    store_floats(xb, z, 2);
    S->minmax(xb, 2, &mn, &mx);
    check(u_of(mn) == 0 && u_of(mx) == 0, "minmax keeps the first of +0, -0");
    float z2[] = {-0.0f, 0.0f};
    store_floats(xb, z2, 2);
    S->minmax(xb, 2, &mn, &mx);
    check(u_of(mn) == 0x80000000u && u_of(mx) == 0x80000000u, "minmax keeps the first of -0, +0");
    float b[] = {1.0f, INFINITY, NAN};
    store_floats(xb, b, 3);
    check(S->minmax(xb, 3, &mn, &mx) == 1, "minmax first non-finite (inf)");
    float b2[] = {1.0f, 2.0f, NAN, -INFINITY};
    store_floats(xb, b2, 4);
    check(S->minmax(xb, 4, &mn, &mx) == 2, "minmax first non-finite (NaN)");
  }
  /* error sums: lane i %% 16, lanes added in the fixed order */
  {
    unsigned char ab[4 * 40], bb[4 * 40];
    float a[3] = {1.0f, 2.0f, 3.0f}, b[3] = {1.0f, 1.0f, 1.0f};
    store_floats(ab, a, 3);
    store_floats(bb, b, 3);
    sq_error_sums e;
    S->error_sums(ab, bb, 3, &e);
    check(e.sum_a2 == 14.0 && e.sum_b2 == 3.0 && e.sum_ab == 6.0 && e.sum_d2 == 5.0 &&
              e.max_abs_d == 2.0, "error_sums basic");
    S->error_sums(ab, bb, 0, &e);
    check(bits_of(e.sum_a2) == 0 && bits_of(e.sum_d2) == 0 && bits_of(e.max_abs_d) == 0,
          "error_sums n=0 gives +0");
    /* lanes, not a running sum: a*b is 2^60 at 0, 1 at 1..15, -2^60 at 16.
    ** A running sum loses the ones (2^60 + 1 rounds to 2^60) and ends at 0;
    ** lane 0 cancels exactly and lanes 1..15 keep theirs: 15. */
    float c[17], z[17];
    for (int i = 0; i < 17; i++) c[i] = z[i] = 1.0f;
    c[0] = z[0] = c[16] = 0x1p30f;
    z[16] = -0x1p30f;
    store_floats(ab, c, 17);
    store_floats(bb, z, 17);
    S->error_sums(ab, bb, 17, &e);
    check(e.sum_ab == 15.0 && e.sum_a2 == 0x1p61 && e.sum_d2 == 0x1p62 &&
              e.max_abs_d == 0x1p31, "error_sums lanes: ab %a a2 %a", e.sum_ab, e.sum_a2);
    /* products and differences in double, not float */
    float pa[1] = {3.0f + 0x1p-22f}, pb[1] = {3.0f};
    store_floats(ab, pa, 1);
    store_floats(bb, pb, 1);
    S->error_sums(ab, bb, 1, &e);
    check(e.sum_ab == (3.0 + 0x1p-22) * 3.0 && e.sum_d2 == 0x1p-44 &&
              e.max_abs_d == 0x1p-22, "error_sums products in double");
  }
  /* per-block min/max: a short last block, the first zero of each block */
  {
    unsigned char xb[64];
    float x[] = {3.0f, -1.0f, 0.0f, -0.0f, -0.0f, 2.0f, 5.0f}, mn[4], mx[4];
    store_floats(xb, x, 7);
    size_t r = S->minmax_blocks(xb, 7, 2, mn, mx);
    check(r == 7 && mn[0] == -1.0f && mx[0] == 3.0f && u_of(mn[1]) == 0 &&
              u_of(mx[1]) == 0 && u_of(mn[2]) == 0x80000000u && mx[2] == 2.0f &&
              mn[3] == 5.0f && mx[3] == 5.0f, "minmax_blocks basic");
    x[5] = INFINITY;
    x[6] = NAN;
    store_floats(xb, x, 7);
    check(S->minmax_blocks(xb, 7, 2, mn, mx) == 5, "minmax_blocks first non-finite");
    check(S->minmax_blocks(xb, 0, 2, mn, mx) == 0, "minmax_blocks n=0");
  }
  /* 4-bit packing */
  {
    unsigned char c[3] = {1, 2, 3}, pk[2], u[2];
    S->pack4(c, 3, pk);
    check(pk[0] == 0x21 && pk[1] == 0x03, "pack4 low nibble first, odd pads 0");
    unsigned char b = 0xf8;
    S->unpack4(&b, 2, 1, u);
    check((signed char)u[0] == -8 && (signed char)u[1] == -1, "unpack4 signed");
    S->unpack4(&b, 2, 0, u);
    check(u[0] == 8 && u[1] == 15, "unpack4 unsigned");
  }
  group_end();
}

/* ---- ggml kernel tables ------------------------------------------------------
** The tables are designated by type (ext/kernels/ggml.h): the scalar path
** has every type of the catalogue, a vector path's own entries are exactly
** the paths ext/catalogue.toml lists for the type (a new type is a NULL
** entry of every vector table until it gets a kernel), and
** sq_ggml_quantizer / sq_ggml_dequantizer give the path's entry or the
** scalar one, never NULL: also for a table with no entry at all. */

static unsigned catalogue_path_bit(const char *name) {
#define KT_PATH_BIT(n, bit) if (strcmp(name, n) == 0) return bit;
  SQ_CATALOGUE_KERNEL_PATHS(KT_PATH_BIT)
#undef KT_PATH_BIT
  return 0;
}

static void test_ggml_tables(void) {
  group_begin("ggml kernel tables and the scalar fallback");
  const sq_kernels *paths[8];
  int np = 0;
  paths[np++] = S;
  for (int v = 0; v < NP; v++) paths[np++] = P[v];
  const sq_ggml_kernels *sc = S->ggml;
  for (int t = 0; t < SQ_GGML_NTYPES; t++) {
    const sq_ggml_format *f = &sq_ggml_formats[t];
    check(sc->own_quantize[t] != NULL && sc->own_dequantize[t] != NULL,
          "scalar has no kernel for %s", f->name);
    check((f->quantize_paths & SQ_KERNEL_PATH_SCALAR) &&
              (f->dequantize_paths & SQ_KERNEL_PATH_SCALAR),
          "the catalogue lists scalar for %s", f->name);
    for (int p = 0; p < np; p++) {
      const sq_kernels *k = paths[p];
      unsigned bit = catalogue_path_bit(k->name);
      check(bit != 0, "path %s is in the catalogue", k->name);
      sq_ggml_quantize_fn q = k->ggml->own_quantize[t];
      sq_ggml_dequantize_fn dq = k->ggml->own_dequantize[t];
      check((q != NULL) == ((f->quantize_paths & bit) != 0),
            "%s quantize %s: own entry %s, the catalogue says %s", k->name,
            f->name, q ? "set" : "NULL",
            (f->quantize_paths & bit) ? "own" : "scalar");
      check((dq != NULL) == ((f->dequantize_paths & bit) != 0),
            "%s dequantize %s: own entry %s, the catalogue says %s", k->name,
            f->name, dq ? "set" : "NULL",
            (f->dequantize_paths & bit) ? "own" : "scalar");
      check(sq_ggml_quantizer(k, (sq_ggml_type)t) == (q ? q : sc->own_quantize[t]),
            "%s quantize %s: dispatch gives the path's entry, else scalar's",
            k->name, f->name);
      check(sq_ggml_dequantizer(k, (sq_ggml_type)t) ==
                (dq ? dq : sc->own_dequantize[t]),
            "%s dequantize %s: dispatch gives the path's entry, else scalar's",
            k->name, f->name);
    }
  }
  /* A path with no ggml kernel at all: every type runs scalar's. */
  static const sq_ggml_kernels none;
  sq_kernels bare = *S;
  bare.name = "bare";
  bare.ggml = &none;
  for (int t = 0; t < SQ_GGML_NTYPES; t++) {
    check(sq_ggml_quantizer(&bare, (sq_ggml_type)t) == sc->own_quantize[t] &&
              sq_ggml_quantizer(&bare, (sq_ggml_type)t) != NULL,
          "a table without %s quantize falls back to scalar",
          sq_ggml_formats[t].name);
    check(sq_ggml_dequantizer(&bare, (sq_ggml_type)t) == sc->own_dequantize[t] &&
              sq_ggml_dequantizer(&bare, (sq_ggml_type)t) != NULL,
          "a table without %s dequantize falls back to scalar",
          sq_ggml_formats[t].name);
  }
  group_end();
}

/* ---- ggml block formats ----------------------------------------------------
** Scalar pinned to ggml's own output (hashes of dequantize_row_<t>,
** quantize_row_<t>_ref and quantize_<t> with an imatrix from libggml-base
** 0.25.1 on x86-64, for inputs built from integers), and to x86-64's NaN bits
** for blocks with a NaN or infinite fp16 field, so that every host's scalar
** is ggml-on-x86.  Then every vector path against scalar: dequantize of
** random, finite-field and special-field blocks; quantize (with and without
** importance) of data chosen to hit ggml's corner cases: ties between +a and
** -a, signed zeros, all-zero and constant blocks, exact .5 products,
** subnormal and huge values (scale subnormal or infinite).  Inputs and
** outputs sit against the guard page or misaligned inside canaries. */

static void set_half(unsigned char *p, unsigned h) {
  p[0] = (unsigned char)(h & 0xff);
  p[1] = (unsigned char)(h >> 8);
}

/* pin_fnv, pin_blocks, pin_x, pin_w: tests/ggml/pin_data.h (ggml_ref_test
** --pins computes the table below from the same inputs). */

static void test_ggml_pins(void) {
  /* By name, so that rows added to the catalogue in ggml's id order keep
  ** their neighbours' pins (tests/ggml/ggml_ref_test --pins prints ggml's). */
  static const struct {
    const char *name;
    uint64_t dq, q, qi;
    uint64_t qu; /* quantize_<type>(x, .., NULL) where it is not the _ref: iq4_nl */
  } pins[] = {
      {"q4_0", 0x0990e466273c4a60ull, 0xa7e1f73e26f13b03ull, 0xb65f4e068694b2b1ull, 0},
      {"q4_1", 0x9ec809ff3d4b4c98ull, 0x64323dc878862449ull, 0xdc359a7cf3fb8e50ull, 0},
      {"q5_0", 0x34840092826a08cbull, 0x39b061795c557e33ull, 0x0ee2c02df96feec5ull, 0},
      {"q5_1", 0x818d8eed9514dc7aull, 0x4357a5217c3be330ull, 0xfe216ac1786f9966ull, 0},
      {"q8_0", 0x688813a7f8d3dc67ull, 0xadf789790208dc56ull, 0xadf789790208dc56ull, 0},
      {"q2_K", 0x4ab458e54be5d9ccull, 0x3bcb13ea3799bbebull, 0x016c8d9227e43521ull, 0},
      {"q3_K", 0xd83c40db98ad2578ull, 0xbf301151a7405da4ull, 0x45dae10d44565ba5ull, 0},
      {"q4_K", 0x64c94c296530a9afull, 0x1b7ecbb3c595ad84ull, 0x071018e7fd942c67ull, 0},
      {"q5_K", 0x04f4403554019c92ull, 0xcc775594389898b8ull, 0x66542deed4315d5cull, 0},
      {"q6_K", 0x206946a85c93888full, 0x0f6cf549753a812cull, 0x67fd634ad07fb0f4ull, 0},
      {"tq1_0", 0x2ae76c12f2b5076dull, 0xf769cb91debd2862ull, 0xf769cb91debd2862ull, 0},
      {"tq2_0", 0xedf0bab2ee2df625ull, 0x0d6e3c56277545a0ull, 0x0d6e3c56277545a0ull, 0},
      {"mxfp4", 0xdbe0df4618515dd6ull, 0xfca18a4f1db35be5ull, 0xfca18a4f1db35be5ull, 0},
      {"nvfp4", 0xcb8c0050b83cfb54ull, 0x1221f1510b00bc86ull, 0x1221f1510b00bc86ull, 0},
      {"q1_0", 0x1f1b6a22673dc525ull, 0x2cd3a0e2cb767f03ull, 0x2cd3a0e2cb767f03ull, 0},
      {"q2_0", 0x90ae13b5856244eaull, 0x82585a165750532aull, 0x82585a165750532aull, 0},
      /* q 0: ggml quantizes these only with importance */
      {"iq2_xxs", 0x935b5b7f86f66982ull, 0, 0x5fc21c7ce7987838ull, 0},
      {"iq2_xs", 0xba4a656148c09582ull, 0, 0xd201cdf6f54ff035ull, 0},
      {"iq1_s", 0xb8cbc39728346aaaull, 0, 0x1fdde8ac289be6eeull, 0},
      {"iq2_s", 0x49840949db0fb3deull, 0xa727fd42a58b8771ull, 0x31edcd0138a111ffull, 0},
      /* iq1_m's q: quantize_iq1_m(x, .., NULL) (ggml has no _ref for it) */
      {"iq1_m", 0xa817e35ac43aba3full, 0x1b9f96f964303814ull, 0x4056705967eba7d8ull, 0},
      {"iq3_xxs", 0x0a0da2274bb7a00aull, 0xcc48df5fe18015cbull, 0x7074aa7d120ba8dbull, 0},
      /* iq4_nl's quantize: ggml's _ref with the codes of its all-zero block
      ** 8, which it leaves undefined, set to 0x88 (ggml_iq4.c) */
      {"iq4_nl", 0x780233ca70812bb2ull, 0x319874516c0b41baull, 0x45401cfd388591efull,
       0x70008602a32277d2ull},
      {"iq3_s", 0xf489e6c3eb68ac81ull, 0x5adcc029aeedbd64ull, 0x9dbd701a3ea5d07bull, 0},
      {"iq4_xs", 0xd08f07ea81a6c4a8ull, 0x394c4fa850e104c9ull, 0xb6ae06888d1dbb29ull, 0},
  };
  group_begin("ggml scalar pinned to ggml");
  unsigned char blk[16 * 256], q[4096], xb[4 * 512], wb[4 * 512];
  unsigned char y[4 * 4096];
  for (size_t j = 0; j < 512; j++) {
    sq_store_f32(xb + 4 * j, pin_x(j));
    sq_store_f32(wb + 4 * j, pin_w(j));
  }
  for (int t = 0; t < SQ_GGML_NTYPES; t++) {
    const sq_ggml_format *f = &sq_ggml_formats[t];
    size_t pi = 0, npins = sizeof pins / sizeof pins[0];
    while (pi < npins && strcmp(pins[pi].name, f->name)) pi++;
    if (!check(pi < npins, "%s has pins", f->name)) continue;
    /* 512 weights: 16 blocks of 32, 8 of 64, 4 of 128, 2 of 256. */
    size_t nb = 512 / f->block, n = nb * f->block;
    pin_blocks(t, nb, blk);
    sq_ggml_dequantizer(S, t)(blk, n, y);
    check(pin_fnv(y, 4 * n) == pins[pi].dq, "%s dequantize hash", f->name);
    size_t qb = 512 / f->block * f->bytes;
    if (!f->needs_importance) {
      sq_ggml_quantizer(S, t)(xb, 512, NULL, q);
      check(pin_fnv(q, qb) == pins[pi].q, "%s quantize hash", f->name);
    }
    sq_ggml_quantizer(S, t)(xb, 512, wb, q);
    check(pin_fnv(q, qb) == pins[pi].qi, "%s quantize with importance hash", f->name);
    if (!f->needs_importance) {
      sq_ggml_quantizer_unweighted(S, t)(xb, 512, NULL, q);
      check(pin_fnv(q, qb) == (pins[pi].qu ? pins[pi].qu : pins[pi].q),
            "%s quantize unweighted hash", f->name);
    }
  }
  /* The lattice grids' neighbour lists fit the static storage sized for
  ** them (ggml_iq2.h), exactly. */
  {
    static const size_t want[SQ_IQ_NGRIDS] = {SQ_IQ_NB_2XXS, SQ_IQ_NB_2XS,
                                              SQ_IQ_NB_2S, SQ_IQ_NB_1S};
    sq_iq_index *ix = malloc(sizeof *ix);
    if (!ix) exit(2);
    for (int g = 0; g < SQ_IQ_NGRIDS; g++) {
      size_t need = sq_iq_index_build((sq_iq_grid)g, ix);
      check(need == want[g], "grid %d needs %zu neighbour slots, has %zu", g, need, want[g]);
      const sq_iq_index *built = sq_iq_index_get((sq_iq_grid)g);
      check(built->nneighbours == want[g], "grid %d built %zu neighbour slots", g,
            built->nneighbours);
    }
    free(ix);
  }
  /* iq3_xxs: every 7-bit sign field's eighth sign is its parity; iq3_s has
  ** a ninth index bit per group in qh (entry 256 + 5 = {5,9,11,15}... as
  ** ggml_iq_tables.c lists) */
  memset(blk, 0, 98);
  set_half(blk, 0x4400);                        /* d = 4: magnitudes = bytes */
  blk[2] = 1;                                   /* entry 1 for weights 0..3 */
  sq_store_u32(blk + 66, 0x01u);                /* one sign: weight 0, parity sets weight 7 */
  sq_ggml_dequantizer(S, SQ_GGML_IQ3_XXS)(blk, 256, y);
  check(sq_load_f32(y) == -(float)sq_iq3xxs_grid[1][0] && sq_load_f32(y + 4) == (float)sq_iq3xxs_grid[1][1] &&
        sq_load_f32(y + 28) == -(float)sq_iq3xxs_grid[0][3],
        "iq3_xxs signs and parity: %a %a %a", (double)sq_load_f32(y), (double)sq_load_f32(y + 4),
        (double)sq_load_f32(y + 28));
  memset(blk, 0, 110);
  set_half(blk, 0x3c00);
  blk[2 + 9] = 5;                               /* sub-block 1, group 1 */
  blk[66 + 1] = 0x02;                           /* its ninth bit */
  blk[106] = 0x10;                              /* sub-block 1 scale 1: 3 d */
  sq_ggml_dequantizer(S, SQ_GGML_IQ3_S)(blk, 256, y);
  check(sq_load_f32(y + 4 * 36) == 3.0f * (float)sq_iq3s_grid[261][0] &&
        sq_load_f32(y + 4 * 32) == 3.0f * (float)sq_iq3s_grid[0][0] && sq_load_f32(y) == (float)sq_iq3s_grid[0][0],
        "iq3_s ninth index bit: %a", (double)sq_load_f32(y + 4 * 36));
  /* Non-finite d in the iq types, as ggml's library gives them: a NaN d is
  ** the weights' NaN made quiet, its sign flipped by a minus sign (iq3:
  ** ggml's x86-64 code flips the sign bit); iq4_xs' scale 32 with d = inf
  ** gives x86's default NaN */
  memset(blk, 0xff, 98);                         /* every sign minus */
  set_half(blk, 0x7d01);
  sq_ggml_dequantizer(S, SQ_GGML_IQ3_XXS)(blk, 256, y);
  check(sq_load_u32(y) == 0xffe02000u && sq_load_u32(y + 4 * 255) == 0xffe02000u,
        "iq3_xxs d=sNaN: %08x %08x", sq_load_u32(y), sq_load_u32(y + 4 * 255));
  memset(blk, 0, 136);
  set_half(blk, 0x7c00);
  blk[4] = 0x0f;                                 /* sub-block 0: scale 15 - 32 */
  blk[2] = 0x08;                                 /* sub-block 1: scale 32 - 32 */
  sq_ggml_dequantizer(S, SQ_GGML_IQ4_XS)(blk, 256, y);
  check(sq_load_u32(y) == 0x7f800000u && sq_load_u32(y + 4 * 32) == 0xffc00000u,
        "iq4_xs d=inf: %08x %08x", sq_load_u32(y), sq_load_u32(y + 4 * 32));
  /* Non-finite fields: x86-64's NaN rules on every host.  q4_0 with d = +inf:
  ** code 8 gives 0 * inf = the default NaN 0xffc00000, code 9 gives +inf;
  ** d = NaN 0x7e01 gives that NaN, quiet (0x7fc02000), everywhere. */
  memset(blk, 0x98, 18);                        /* codes 8 and 9 */
  set_half(blk, 0x7c00);
  sq_ggml_dequantizer(S, SQ_GGML_Q4_0)(blk, 32, y);
  check(sq_load_u32(y) == 0xffc00000u && sq_load_u32(y + 64) == 0x7f800000u,
        "q4_0 d=inf: %08x %08x", sq_load_u32(y), sq_load_u32(y + 64));
  set_half(blk, 0x7d01);                        /* signalling NaN made quiet */
  sq_ggml_dequantizer(S, SQ_GGML_Q4_0)(blk, 32, y);
  check(sq_load_u32(y) == 0x7fe02000u, "q4_0 d=sNaN: %08x", sq_load_u32(y));
  /* q4_1 with d and m both NaN: x * d is d's NaN and wins the add */
  memset(blk, 0x21, 20);
  set_half(blk, 0x7e01);
  set_half(blk + 2, 0xfe02);
  sq_ggml_dequantizer(S, SQ_GGML_Q4_1)(blk, 32, y);
  check(sq_load_u32(y) == 0x7fc02000u, "q4_1 d, m NaN: %08x", sq_load_u32(y));
  /* q4_1 with d = inf, m = -inf: code 0 gives 0 * inf = default NaN; code 2
  ** gives inf + -inf = default NaN */
  set_half(blk, 0x7c00);
  set_half(blk + 2, 0xfc00);
  blk[4] = 0x02;
  sq_ggml_dequantizer(S, SQ_GGML_Q4_1)(blk, 32, y);
  check(sq_load_u32(y) == 0xffc00000u && sq_load_u32(y + 64) == 0xffc00000u,
        "q4_1 d=inf m=-inf: %08x %08x", sq_load_u32(y), sq_load_u32(y + 64));
  /* q6_K with d = -inf: scale 0 gives -inf * 0 = default NaN before the code */
  memset(blk, 0, 210);
  blk[192] = 3;                                  /* scale 0 = 3, scale 1 = 0 */
  set_half(blk + 208, 0xfc00);
  sq_ggml_dequantizer(S, SQ_GGML_Q6_K)(blk, 256, y);
  check(sq_load_u32(y) == 0x7f800000u && sq_load_u32(y + 64) == 0xffc00000u,
        "q6_K d=-inf: %08x %08x", sq_load_u32(y), sq_load_u32(y + 64));
  /* quantize: a subnormal scale makes id infinite; x86 converts the
  ** resulting inf/NaN to INT32_MIN, whose low byte is 0 */
  for (size_t j = 0; j < 32; j++) sq_store_f32(xb + 4 * j, j == 5 ? 1e-44f : 0.0f);
  sq_ggml_quantizer(S, SQ_GGML_Q8_0)(xb, 32, NULL, q);
  check(q[2] == 0 && q[7] == 0 && q[0] == 0 && q[1] == 0, "q8_0 subnormal scale");
  group_end();
}

/* Blocks: 0 random bytes (NaN and inf fields often), 1 finite fields,
** 2 special fields (zeros, subnormals, max, inf, NaN) in some blocks. */
static void gen_ggml_blocks(int t, size_t nb, int kind, unsigned char *b) {
  static const unsigned special[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x7bff,
                                     0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xffff,
                                     0x3c00, 0xbc00};
  size_t by = sq_ggml_formats[t].bytes;
  for (size_t k = 0; k < nb * by; k++) b[k] = (unsigned char)rnd32();
  if (kind == 0) return;
  for (size_t i = 0; i < nb; i++)
    for (int f = 0; f < 2; f++) {
      if (sq_ggml_formats[t].fp16[f] < 0) continue;
      unsigned h = rnd32() & 0xffffu;
      if (kind == 2 && rnd_below(3) == 0) h = special[rnd_below(sizeof special / sizeof special[0])];
      else if ((h & 0x7c00u) == 0x7c00u) h &= 0xbfffu;
      set_half(b + i * by + (size_t)sq_ggml_formats[t].fp16[f], h);
    }
}

static void cmp_ggml_dequantize(int t, size_t nb, int kind, int full) {
  const sq_ggml_format *f = &sq_ggml_formats[t];
  size_t n = nb * f->block, ib = nb * f->bytes, ob = 4 * n;
  place pl[70];
  size_t npl = placements(nb, full, pl);
  unsigned char *in = gb_place(&g_in, ib, -1);
  gen_ggml_blocks(t, nb, kind, in);
  ref_fill(g_ref, ob);
  ctx("scalar ggml dequantize %s n=%zu", f->name, n);
  sq_ggml_dequantizer(S, t)(in, n, g_ref);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, ib, pl[k].mi);
    if (inp != in) memmove(inp, in, ib), in = inp;
    for (int v = 0; v < NP; v++) {
      unsigned char *out = gb_place(&g_out, ob, pl[k].mo);
      out_fill(&g_out, out);
      ctx("%s ggml dequantize %s n=%zu mis=%d/%d", P[v]->name, f->name, n, pl[k].mi, pl[k].mo);
      sq_ggml_dequantizer(P[v], t)(in, n, out);
      g_cur = v;
      check(memcmp(out, g_ref, ob) == 0 && canaries_ok(&g_out, out, ob),
            "%s ggml dequantize %s n=%zu kind=%d mis=%d/%d", P[v]->name, f->name, n,
            kind, pl[k].mi, pl[k].mo);
    }
  }
}

/* Block counts around the vector paths' groups (8 and 16 blocks). */
static const size_t ggml_counts[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 70};
#define N_GGML_COUNTS (sizeof ggml_counts / sizeof ggml_counts[0])

static void test_ggml_dequantize(int level) {
  group_begin("ggml dequantize");
  for (int t = 0; t < SQ_GGML_NTYPES; t++)
    for (size_t c = 0; c < N_GGML_COUNTS; c++) {
      size_t nb = ggml_counts[c];
      if (sq_ggml_formats[t].block == 256) nb = (nb + 3) / 4;
      for (int kind = 0; kind < 3; kind++)
        if (level || (c + (size_t)kind) % 3 == 0)
          cmp_ggml_dequantize(t, nb, kind, level && c == 1 && kind == 1);
    }
  group_end();
}

/* A finite weight of data family fam (see test_ggml_quantize). */
static float ggml_weight(int fam, size_t i, float c) {
  float u = rnd_unit() * 2.0f - 1.0f;
  switch (fam) {
    case 0: return u;                                        /* uniform */
    case 1: return rnd_mag();                                /* 2^-40 .. 2^40 */
    case 2: return u * 1e-40f;                               /* subnormal: d subnormal */
    case 3: return u * 1e-37f;                               /* d near FLT_MIN */
    case 4: return u * 3.0e38f;                              /* max - min overflows */
    case 5: return rnd_below(3) == 0 ? (rnd32() & 1 ? -0.0f : 0.0f) : fabsf(u);
    case 6: return rnd32() & 1 ? c : -c;                     /* +-a ties */
    case 7: return rnd32() & 1 ? -0.0f : 0.0f;               /* signed zeros only */
    case 8: return (float)((int)rnd_below(33) - 16) * 0.25f; /* x * id on .5 */
    case 9: return c;                                        /* constant */
    case 10: {                                               /* any finite bits */
      float f = rnd_bits_nonnan();
      return isfinite(f) ? f : FLT_MAX;
    }
    case 11: return (i % 32 == 31) ? -c : u;                 /* extreme last */
    default: return -fabsf(u) - 0.0f;                        /* all negative */
  }
}
#define N_GGML_FAMS 13

static void cmp_ggml_quantize(int t, size_t nb, int fam, int with_imp, int full) {
  const sq_ggml_format *f = &sq_ggml_formats[t];
  size_t n = nb * f->block, xb = 4 * n, ob = nb * f->bytes;
  place pl[70];
  size_t npl = placements(nb, full, pl);
  unsigned char *in = gb_place(&g_in, xb, -1);
  unsigned char *imp = gb_place(&g_par[0], xb, -1);
  float c = rnd_mag();
  for (size_t i = 0; i < n; i++) {
    /* a block now and then from another family */
    int fm = (i % 32 == 0 && rnd_below(8) == 0) ? (int)rnd_below(N_GGML_FAMS) : fam;
    if (i % 32 == 0 && fm != fam) c = rnd_mag();
    sq_store_f32(in + 4 * i, ggml_weight(fm, i, c));
    float w = rnd_below(5) == 0 ? 0.0f : rnd_unit() * 4.0f;
    sq_store_f32(imp + 4 * i, w);
  }
  ref_fill(g_ref, ob);
  ctx("scalar ggml quantize %s n=%zu", f->name, n);
  sq_ggml_quantizer(S, t)(in, n, with_imp ? imp : NULL, g_ref);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, xb, pl[k].mi);
    if (inp != in) memmove(inp, in, xb), in = inp;
    unsigned char *ip = gb_place(&g_par[0], xb, pl[k].mo);
    if (ip != imp) memmove(ip, imp, xb), imp = ip;
    for (int v = 0; v < NP; v++) {
      unsigned char *out = gb_place(&g_out, ob, pl[k].mo);
      out_fill(&g_out, out);
      ctx("%s ggml quantize %s n=%zu imp=%d mis=%d/%d", P[v]->name, f->name, n, with_imp,
          pl[k].mi, pl[k].mo);
      sq_ggml_quantizer(P[v], t)(in, n, with_imp ? imp : NULL, out);
      g_cur = v;
      check(memcmp(out, g_ref, ob) == 0 && canaries_ok(&g_out, out, ob),
            "%s ggml quantize %s n=%zu family=%d importance=%d mis=%d/%d", P[v]->name,
            f->name, n, fam, with_imp, pl[k].mi, pl[k].mo);
    }
  }
}

static void test_ggml_quantize(int level) {
  group_begin("ggml quantize");
  for (int t = 0; t < SQ_GGML_NTYPES; t++) {
    int legacy = sq_ggml_formats[t].block == 32;
    for (int fam = 0; fam < N_GGML_FAMS; fam++)
      for (size_t c = 0; c < N_GGML_COUNTS; c++) {
        size_t nb = legacy ? ggml_counts[c] : (ggml_counts[c] + 7) / 8;
        /* the vector paths' own code, legacy blocks with and without
        ** importance (the weighted searches run 8 or 16 blocks side by
        ** side: counts below, at and past a batch): every family and
        ** count; the K-quants more sparsely */
        if (legacy && (level || (c + (size_t)fam) % 3 == 0)) {
          cmp_ggml_quantize(t, nb, fam, 0, level && c == 1 && fam == 0);
          cmp_ggml_quantize(t, nb, fam, 1, level && c == 2 && fam == 0);
        } else if (!legacy && (c + (size_t)fam) % (level ? 4 : 12) == 0) {
          cmp_ggml_quantize(t, nb, fam, 0, 0);
          cmp_ggml_quantize(t, nb, fam, 1, 0);
        }
      }
  }
  group_end();
}

/* The quantizers that check x (ggml.h's sq_ggml_quantize_checked_fn): on
** finite data the bytes of the path's quantizer and n; with NaN or an
** infinity anywhere (a group's first or last float, the next group's, the
** scalar tail, the last; with a second one after it), the first one's
** index; with importance too (scalar's weighted search on these paths,
** checked before it runs).  Only the x86 paths have them: the core checks
** x itself for any other (sq_ggml_checked_quantizer NULL). */
static void test_ggml_checked(int level) {
  group_begin("ggml quantize checked");
  enum { N = 4096 + 96 };               /* whole groups and a scalar tail */
  unsigned char *in = malloc(4 * N), *imp = malloc(4 * N), *a = malloc(4 * N),
                *b = malloc(4 * N);
  if (!in || !imp || !a || !b) exit(2);
  for (int t = 0; t < SQ_GGML_NTYPES; t++) {
    check(sq_ggml_checked_quantizer(S, (sq_ggml_type)t, 0) == NULL,
          "scalar has no checked %s quantizer", sq_ggml_formats[t].name);
    check(sq_ggml_checked_quantizer(S, (sq_ggml_type)t, 1) == NULL,
          "scalar has no checked unweighted %s quantizer", sq_ggml_formats[t].name);
  }
  for (int v = 0; v < NP; v++) {
    check(sq_ggml_checked_quantizer(P[v], SQ_GGML_IQ4_NL, 1) == NULL,
          "%s: no checked iq4_nl unweighted quantizer (it differs)", P[v]->name);
    for (int t = 0; t < SQ_GGML_NTYPES; t++)
      check(!P[v]->ggml->own_quantize_checked[t] || P[v]->ggml->own_quantize[t],
            "%s: a checked %s quantizer is the twin of the path's own one",
            P[v]->name, sq_ggml_formats[t].name);
    for (int t = 0; t < SQ_GGML_NTYPES; t++) {
      const sq_ggml_format *f = &sq_ggml_formats[t];
      sq_ggml_quantize_checked_fn cf = sq_ggml_checked_quantizer(P[v], (sq_ggml_type)t, 0);
      if (!cf) continue;
      size_t n = N / f->block * f->block, ob = n / f->block * f->bytes;
      for (int fam = 0; fam < N_GGML_FAMS; fam += level ? 1 : 3) {
        float c = rnd_mag();
        for (size_t i = 0; i < n; i++) {
          sq_store_f32(in + 4 * i, ggml_weight(fam, i, c));
          sq_store_f32(imp + 4 * i, rnd_unit() * 4.0f);
        }
        for (int wi = 0; wi < 2; wi++) {
          const void *w = wi ? imp : NULL;
          sq_ggml_quantizer(P[v], (sq_ggml_type)t)(in, n, w, a);
          memset(b, 0xA5, ob);
          size_t r = cf(in, n, w, b);
          g_cur = v;
          check(r == n && memcmp(a, b, ob) == 0,
                "%s checked %s family %d importance %d: n and the same bytes",
                P[v]->name, f->name, fam, wi);
        }
      }
      static const uint32_t bad[] = {0x7fc00000u, 0x7f800000u, 0xff800000u,
                                     0x7f800001u, 0xffc00000u};
      size_t pos[] = {0, 31, 32, 255, 256, 257, 1000, 4095, 4096, n - 1};
      for (size_t pi = 0; pi < sizeof pos / sizeof pos[0]; pi++)
        for (size_t bi = 0; bi < sizeof bad / sizeof bad[0]; bi++)
          for (int wi = 0; wi < 2; wi++) {
            if (!level && (pi + bi + (size_t)wi) % 3) continue;
            for (size_t i = 0; i < n; i++) sq_store_f32(in + 4 * i, ggml_weight(0, i, 1.0f));
            sq_store_u32(in + 4 * pos[pi], bad[bi]);
            if (pos[pi] + 7 < n) sq_store_u32(in + 4 * (pos[pi] + 7), bad[(bi + 1) % 5]);
            size_t r = cf(in, n, wi ? imp : NULL, b);
            g_cur = v;
            check(r == pos[pi], "%s checked %s: 0x%08x at %zu (importance %d) gives %zu",
                  P[v]->name, f->name, bad[bi], pos[pi], wi, r);
          }
    }
  }
  free(in), free(imp), free(a), free(b);
  group_end();
}

/* Without importance every kernel quantizes each block (or super-block) on
** its own: a row quantized in pieces of whole blocks, cut anywhere, has the
** bytes of the row quantized in one call.  core/ggml_quant.c relies on it
** to quantize long rows in spans that stay in cache; so do the
** MX rules' quantizer.  (With importance the legacy types weigh by the
** whole row's mean square: rows then go whole, and this is not asked.) */
static void test_ggml_spans(int level) {
  group_begin("ggml rows in pieces");
  enum { N = 4096 };
  unsigned char *in = malloc(4 * N), *one = malloc(4 * N), *cut = malloc(4 * N);
  if (!in || !one || !cut) exit(2);
  float c = rnd_mag();
  for (size_t i = 0; i < N; i++) {
    if (i % 32 == 0) c = rnd_mag();
    int fam = (int)((i / 32) % N_GGML_FAMS);
    sq_store_f32(in + 4 * i, ggml_weight(fam, i, c));
  }
  for (int t = 0; t < SQ_GGML_NTYPES; t++) {
    const sq_ggml_format *f = &sq_ggml_formats[t];
    if (f->needs_importance) continue;
    size_t nb = N / f->block;
    for (int v = -1; v < NP; v++) {
      const sq_kernels *k = v < 0 ? S : P[v];
      for (int u = 0; u < 2 + (t == SQ_GGML_MXFP4 ? SQ_MX_NRULES - 1 : 0); u++) {
        /* u 0: sq_ggml_quantizer, 1: the unweighted one, 2..: MX rules */
        sq_ggml_quantize_fn fn = u == 1 ? sq_ggml_quantizer_unweighted(k, t)
                                        : sq_ggml_quantizer(k, t);
        int rule = u >= 2 ? u - 1 : 0;
        if (rule) sq_mx_quantize(rule, in, N, one);
        else fn(in, N, NULL, one);
        for (int rep = 0; rep < (level ? 4 : 1); rep++) {
          memset(cut, 0xA5, nb * f->bytes);
          for (size_t b = 0; b < nb;) {
            size_t len = 1 + rnd_below(rep == 0 ? 3 : (uint32_t)nb);
            if (len > nb - b) len = nb - b;
            const unsigned char *px = in + 4 * b * f->block;
            unsigned char *po = cut + b * f->bytes;
            if (rule) sq_mx_quantize(rule, px, len * f->block, po);
            else fn(px, len * f->block, NULL, po);
            b += len;
          }
          if (v >= 0) g_cur = v;
          check(memcmp(one, cut, nb * f->bytes) == 0,
                "%s %s quantize%s%s in pieces = in one call", k->name, f->name,
                u == 1 ? " unweighted" : "", rule ? " (an MX rule)" : "");
        }
      }
    }
  }
  free(in), free(one), free(cut);
  group_end();
}

/* Exact-size heap buffers (for AddressSanitizer): one call of each kernel. */
static void test_ggml_heap(void) {
  group_begin("ggml heap exact");
  for (int t = 0; t < SQ_GGML_NTYPES; t++) {
    const sq_ggml_format *f = &sq_ggml_formats[t];
    for (size_t nb = 1; nb <= (f->block == 32 ? 18u : 3u); nb++) {
      size_t n = nb * f->block, mis = nb % 4;
      unsigned char *x = malloc(4 * n + mis), *w = malloc(4 * n + mis),
                    *b = malloc(nb * f->bytes + mis), *o1 = malloc(4 * n), *o2 = malloc(4 * n);
      if (!x || !w || !b || !o1 || !o2) exit(2);
      for (size_t i = 0; i < n; i++) {
        sq_store_f32(x + mis + 4 * i, rnd_unit() - 0.5f);
        sq_store_f32(w + mis + 4 * i, rnd_unit());
      }
      for (int v = 0; v < NP; v++) {
        for (int wi = 0; wi < 2; wi++) {
          const void *imp = wi ? (const void *)(w + mis) : NULL;
          ctx("%s ggml heap quantize %s n=%zu", P[v]->name, f->name, n);
          sq_ggml_quantizer(S, t)(x + mis, n, imp, o1);
          sq_ggml_quantizer(P[v], t)(x + mis, n, imp, b + mis);
          g_cur = v;
          check(memcmp(o1, b + mis, nb * f->bytes) == 0, "%s ggml heap quantize %s n=%zu imp=%d",
                P[v]->name, f->name, n, wi);
        }
        gen_ggml_blocks(t, nb, 2, b + mis);
        ctx("%s ggml heap dequantize %s n=%zu", P[v]->name, f->name, n);
        sq_ggml_dequantizer(S, t)(b + mis, n, o1);
        sq_ggml_dequantizer(P[v], t)(b + mis, n, o2);
        g_cur = v;
        check(memcmp(o1, o2, 4 * n) == 0, "%s ggml heap dequantize %s n=%zu", P[v]->name,
              f->name, n);
      }
      free(x), free(w), free(b), free(o1), free(o2);
    }
  }
  group_end();
}

/* ---- floating-point environments ------------------------------------------ */

static void set_flush(int on) {
#if defined(__x86_64__)
  unsigned csr = _mm_getcsr() & ~0x8040u;
  _mm_setcsr(csr | (on ? 0x8040u : 0));          /* FTZ | DAZ */
#elif defined(__aarch64__)
  uint64_t v;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
  v = on ? (v | (1u << 24)) : (v & ~(uint64_t)(1u << 24));    /* FZ */
  __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
#else
  (void)on;
#endif
}

/* ---- histc (method=histogram's binning) ----------------------------------- */

/* Element k of a histc input: bin edges and their neighbours, the bounds,
** values just outside them, random values inside and a few far away. */
static float gen_histc_value(float lo, float hi, size_t bins) {
  float w = hi - lo;
  switch (rnd_below(6)) {
    case 0: {
      float e = lo + w * (float)rnd_below(bins + 1) / (float)bins;
      int step = (int)rnd_below(5) - 2;
      for (; step > 0; step--) e = nextafterf(e, HUGE_VALF);
      for (; step < 0; step++) e = nextafterf(e, -HUGE_VALF);
      return e;
    }
    case 1: return rnd_below(2) ? lo : hi;
    case 2: return rnd_below(2) ? nextafterf(lo, -HUGE_VALF) : nextafterf(hi, HUGE_VALF);
    case 3: return rnd_mag();
    default: return lo + w * rnd_unit();
  }
}

static void cmp_histc(const float *x, size_t n, float lo, float hi, size_t bins,
                      int full, const char *what) {
  size_t nc = SQ_HISTC_COPIES * (bins + 1);
  uint32_t *ref = calloc(nc, 4), *got = malloc(nc * 4);
  if (!ref || !got) exit(2);
  place pl[70];
  size_t npl = placements(n, full, pl);
  unsigned char *in = gb_place(&g_in, 4 * n, -1);
  store_floats(in, x, n);
  ctx("scalar histc n=%zu bins=%zu %s", n, bins, what);
  S->histc(in, n, lo, hi, bins, ref);
  for (size_t k = 0; k < npl; k++) {
    unsigned char *inp = gb_place(&g_in, 4 * n, pl[k].mi);
    if (inp != in) memmove(inp, in, 4 * n), in = inp;
    for (int v = 0; v < NP; v++) {
      memset(got, 0, nc * 4);
      ctx("%s histc n=%zu bins=%zu mis=%d %s", P[v]->name, n, bins, pl[k].mi, what);
      P[v]->histc(in, n, lo, hi, bins, got);
      size_t first = 0;
      while (first < bins && got[first] == ref[first]) first++;
      g_cur = v;
      check(first == bins, "%s histc n=%zu bins=%zu lo=%a hi=%a mis=%d %s: bin %zu",
            P[v]->name, n, bins, (double)lo, (double)hi, pl[k].mi, what, first);
    }
  }
  free(ref);
  free(got);
}

static void test_histc(int level) {
  group_begin("histc");
  {  /* scalar pins: [0, 4] in 4 bins; 4 goes to the last bin, -0 counts as 0 */
    static const float xs[] = {0.0f, 0.999f, 1.0f, 3.999f, 4.0f, -0.0f,
                               4.0001f, -1e-9f, 2.5f, 1e30f};
    unsigned char in[4 * 10];
    uint32_t c[SQ_HISTC_COPIES * 5] = {0};
    store_floats(in, xs, 10);
    S->histc(in, 10, 0.0f, 4.0f, 4, c);
    check(c[0] == 3 && c[1] == 1 && c[2] == 1 && c[3] == 2,
          "scalar histc pins: %u %u %u %u", c[0], c[1], c[2], c[3]);
    /* torch's float32 steps: lo = -1, hi = 2, bins = 3, x = 1 - 2^-24:
    ** exactly, (x - lo) * 3 / 3 = 2 - 2^-24 is bin 1; in float32 x - lo
    ** rounds (a tie, to even) to 2.0f, so the element is in bin 2 (under
    ** round to nearest and upward; rounding down or toward zero gives
    ** 2 - 2^-23 and bin 1, on every path alike). */
    float y = 0x1.fffffep-1f;
    uint32_t d[SQ_HISTC_COPIES * 4] = {0};
    store_floats(in, &y, 1);
    S->histc(in, 1, -1.0f, 2.0f, 3, d);
    int down = fegetround() == FE_DOWNWARD || fegetround() == FE_TOWARDZERO;
    check(d[down ? 1 : 2] == 1, "scalar histc rounding pin: bins %u %u %u", d[0], d[1], d[2]);
  }
  static const size_t bin_counts[] = {1, 2, 3, 7, 16, 100, 256, 2048, 3000};
  static const float bounds[][2] = {{0.0f, 1.0f}, {-1.0f, 1.0f}, {-3.0f, 5.0f},
                                    {-1e-38f, 3e-38f}, {0.5f, 0.5000002f},
                                    {-7e37f, 1e38f}, {-200.0f, -199.0f}};
  size_t nb = sizeof bin_counts / sizeof bin_counts[0];
  size_t nbo = sizeof bounds / sizeof bounds[0];
  size_t ns[] = {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 64, 100, 1000, 4099};
  for (size_t bi = 0; bi < nb; bi++) {
    for (size_t bo = 0; bo < nbo; bo++) {
      for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        size_t n = ns[a];
        if (level == 0 && n > 100) continue;
        float lo = bounds[bo][0], hi = bounds[bo][1];
        for (size_t i = 0; i < n; i++) g_x[i] = gen_histc_value(lo, hi, bin_counts[bi]);
        cmp_histc(g_x, n, lo, hi, bin_counts[bi], n == 33, "edges");
      }
    }
  }
  if (level) {                   /* a long run, one bin: the copies add up */
    size_t n = 200000;
    for (size_t i = 0; i < n; i++) g_x[i] = 0.25f;
    cmp_histc(g_x, n, 0.0f, 1.0f, 4, 0, "equal values");
  }
  group_end();
}
static void test_log2(int level);

static void run_env_suite(void) {
  static const struct { int mode; const char *name; } modes[] = {
#ifdef FE_UPWARD
      {FE_UPWARD, "[round upward] "},
#endif
#ifdef FE_DOWNWARD
      {FE_DOWNWARD, "[round downward] "},
#endif
#ifdef FE_TOWARDZERO
      {FE_TOWARDZERO, "[round toward zero] "},
#endif
      {-1, "[flush denormals] "}};
  int saved = g_full_sweep;
  g_full_sweep = 0;
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    if (modes[m].mode >= 0) {
      if (fesetround(modes[m].mode) != 0) continue;
    } else {
      set_flush(1);
      g_flushing = 1;
    }
    g_env = modes[m].name;
    /* a reduced pass of everything that computes in floating point */
    test_quantize(0);
    test_quantize_il(0);
    test_quantize_tutorial(0);
    test_dequantize(0);
    test_dequantize_il(0);
    test_minmax(0);
    test_minmax_il(0);
    test_minmax_blocks(0);
    test_error_sums(0);
    test_histc(0);
    test_fake_errors(0);
    test_log2(0);
    test_half(0);
    test_ggml_dequantize(0);
    test_ggml_quantize(0);
    test_ggml_checked(0);
    g_env = "";
    if (modes[m].mode >= 0) fesetround(FE_TONEAREST);
    else set_flush(0), g_flushing = 0;
  }
  g_full_sweep = saved;
}

/* ---- log2 codes (kernels/log2.h, docs/NUMERICS.md#logarithmic-log2) ------- */

/* Scalar pins, hand-computed, then every path's log2 kernels against
** scalar's on random bit patterns (normals, subnormals, zeros, infinities,
** the sqrt(2) boundaries, NaN at random places) for every exponent edge. */
static void test_log2(int level) {
  group_begin("log2 pins");
  const sq_log2_kernels *L = S->log2;
  {
    /* emax 3 (scale 8), int8: 0.3 -> 6, -5 -> -2, 7 -> 1 (1.75 rounds up),
    ** 0.01 -> 11, 1000 -> 1 (saturates), -0 -> 0, inf -> 1, -inf -> -1,
    ** the float just below sqrt(2) -> 4 (e = 0) and just above -> 3 (e = 1),
    ** 2^-149 -> 0 (k = 153 > 127). */
    uint32_t xb[] = {u_of(0.3f), u_of(-5.0f), u_of(7.0f), u_of(0.01f),
                     u_of(1000.0f), 0x80000000u, 0x7f800000u, 0xff800000u,
                     0x3fb504f3u, 0x3fb504f4u, 0x00000001u};
    int8_t want[] = {6, -2, 1, 11, 1, 0, 1, -1, 4, 3, 0};
    unsigned char xs[sizeof xb];
    int8_t q[11];
    for (size_t i = 0; i < 11; i++) sq_store_u32(xs + 4 * i, xb[i]);
    size_t r = L->quantize(xs, 11, 3, 127, q);
    check(r == 11 && memcmp(q, want, sizeof want) == 0, "log2 quantize pins");
    /* 2^-149 at emax -126: e = -149, k = 24; int4 underflows it to 0. */
    r = L->quantize(xs + 40, 1, -126, 127, q);
    check(r == 1 && q[0] == 24, "log2 quantize smallest subnormal, got %d", q[0]);
    r = L->quantize(xs + 40, 1, -126, 7, q);
    check(r == 1 && q[0] == 0, "log2 int4 underflow, got %d", q[0]);
    sq_store_u32(xs + 8, 0x7fc00000u);
    check(L->quantize(xs, 11, 3, 127, q) == 2, "log2 quantize NaN index");
    /* Dequantize: 0 -> +0, 1 -> scale, -128 at emax -126 -> 2^-253 -> -0,
    ** 24 at emax -126 -> 2^-149 (the smallest subnormal), 25 -> 2^-150
    ** (a tie, to even: +0). */
    int8_t qs[] = {0, 1, -128, 24, 25, -1};
    unsigned char y[4 * 6];
    L->dequantize(qs, 6, -126, y);
    uint32_t wy[] = {0, 0x00800000u, 0x80000000u, 1, 0, 0x80800000u};
    int ok = 1;
    for (int i = 0; i < 6; i++) ok &= sq_load_u32(y + 4 * i) == wy[i];
    check(ok, "log2 dequantize pins");
    L->dequantize(qs + 1, 1, 127, y);
    check(sq_load_u32(y) == 0x7f000000u, "log2 dequantize 2^127");
  }
  group_end();

  group_begin("log2 paths");
  static const int32_t emaxes[] = {-126, -125, -100, -20, -1, 0, 1, 3, 20, 126, 127};
  size_t nmax = level ? 5000 : 600;
  float *x = g_x;
  int8_t *qa = malloc(nmax), *qb = malloc(nmax);
  unsigned char *ya = malloc(4 * nmax), *yb = malloc(4 * nmax);
  int32_t em[64];
  if (!qa || !qb || !ya || !yb) { check(0, "log2 allocation"); goto out; }
  for (int round = 0; round < (level ? 400 : 40); round++) {
    size_t n = 1 + rnd_below(nmax);
    for (size_t i = 0; i < n; i++) {
      uint32_t u;
      switch (rnd_below(6)) {
        case 0: u = rnd32(); break;                              /* anything */
        case 1: u = rnd32() & 0x807fffffu; break;                /* subnormal */
        case 2: u = (rnd32() & 0xff800000u) | (0x3504f3u + (uint32_t)rnd_below(2)); break;
        case 3: u = u_of(rnd_special()); break;
        default: u = u_of(rnd_mag()); break;
      }
      if ((u & 0x7fffffffu) > 0x7f800000u && rnd_below(8)) u = 0;  /* NaNs rare */
      sq_store_u32((unsigned char *)x + 4 * i, u);
    }
    int32_t e = emaxes[rnd_below(sizeof emaxes / sizeof emaxes[0])];
    int32_t kmax = rnd_below(2) ? 127 : 7;
    size_t ch = 1 + rnd_below(64);
    size_t rows = n / ch;
    for (size_t c = 0; c < ch; c++) em[c] = emaxes[rnd_below(sizeof emaxes / sizeof emaxes[0])];
    for (int v = 0; v < NP; v++) {
      const sq_log2_kernels *K = P[v]->log2;
      memset(qb, 0x55, n);
      memset(qa, 0x55, n);
      size_t r1 = S->log2->quantize(x, n, e, kmax, qa);
      size_t r2 = K->quantize(x, n, e, kmax, qb);
      g_cur = v;
      check(r1 == r2 && memcmp(qa, qb, r1) == 0,
            "%s log2 quantize n=%zu emax=%d kmax=%d", P[v]->name, n, e, kmax);
      memset(qb, 0x55, n);
      memset(qa, 0x55, n);
      r1 = S->log2->quantize_interleaved(x, rows, ch, em, kmax, qa);
      r2 = K->quantize_interleaved(x, rows, ch, em, kmax, qb);
      g_cur = v;
      check(r1 == r2 && memcmp(qa, qb, r1) == 0,
            "%s log2 quantize_interleaved rows=%zu ch=%zu", P[v]->name, rows, ch);
      for (size_t i = 0; i < n; i++) qa[i] = (int8_t)rnd32();   /* every byte */
      S->log2->dequantize(qa, n, e, ya);
      K->dequantize(qa, n, e, yb);
      g_cur = v;
      check(memcmp(ya, yb, 4 * n) == 0, "%s log2 dequantize n=%zu emax=%d",
            P[v]->name, n, e);
      S->log2->dequantize_interleaved(qa, rows, ch, em, ya);
      K->dequantize_interleaved(qa, rows, ch, em, yb);
      g_cur = v;
      check(memcmp(ya, yb, 4 * rows * ch) == 0,
            "%s log2 dequantize_interleaved rows=%zu ch=%zu", P[v]->name, rows, ch);
    }
  }
out:
  free(qa);
  free(qb);
  free(ya);
  free(yb);
  group_end();
}

/* error_lanes: a tensor cut into pieces at random offsets, each piece added
** from its own starting lane (its first element's index), totals exactly
** error_sums over the whole tensor, and every path's lanes equal scalar's
** after every piece, whatever the piece's alignment. */
static void test_error_lanes(int level) {
  group_begin("error_lanes");
  float *y = malloc(sizeof(float) * MAXN);
  if (!y) exit(2);
  for (int kind = 0; kind < 8; kind++) {
    for (int r = 0; r < (level ? 60 : 12); r++) {
      size_t n = r < 20 ? (size_t)r * 7 : 1 + rnd_below(r < 40 ? 300 : 20000);
      gen_es(g_x, y, n, kind);
      unsigned char *a = gb_place(&g_in, 4 * n, (int)rnd_below(4));
      unsigned char *b = gb_place(&g_out, 4 * n, (int)rnd_below(4));
      store_floats(a, g_x, n);
      store_floats(b, y, n);
      sq_error_sums whole, got;
      S->error_sums(a, b, n, &whole);
      sq_error_lanes ref, acc[4];
      memset(&ref, 0, sizeof ref);
      memset(acc, 0, sizeof acc);
      for (size_t first = 0; first < n;) {
        size_t len = 1 + rnd_below(rnd_below(2) ? 40 : 700);
        if (len > n - first) len = n - first;
        S->error_lanes(a + 4 * first, b + 4 * first, len, first, &ref);
        for (int v = 0; v < NP; v++) {
          ctx("%s error_lanes n=%zu kind %d piece %zu+%zu", P[v]->name, n, kind,
              first, len);
          P[v]->error_lanes(a + 4 * first, b + 4 * first, len, first, &acc[v]);
          g_cur = v;
          check(memcmp(&acc[v], &ref, sizeof ref) == 0,
                "%s error_lanes n=%zu kind %d piece %zu+%zu: lanes differ from scalar",
                P[v]->name, n, kind, first, len);
        }
        first += len;
      }
      ctx("scalar error_lanes n=%zu kind %d", n, kind);
      sq_error_lanes_total(&ref, &got);
      check(es_match(&whole, &got, 1),
            "error_lanes totals n=%zu kind %d: d2 %a/%a max %a/%a", n, kind,
            got.sum_d2, whole.sum_d2, got.max_abs_d, whole.max_abs_d);
    }
  }
  /* a starting lane that is not the first element's (any of 0..40) */
  for (int r = 0; r < 64; r++) {
    size_t n = rnd_below(100), lane = rnd_below(41);
    gen_es(g_x, y, n, (int)rnd_below(8));
    unsigned char *a = gb_place(&g_in, 4 * n, -1), *b = gb_place(&g_out, 4 * n, -1);
    store_floats(a, g_x, n);
    store_floats(b, y, n);
    sq_error_lanes ref;
    memset(&ref, 0, sizeof ref);
    S->error_lanes(a, b, n, lane, &ref);
    for (int v = 0; v < NP; v++) {
      sq_error_lanes got;
      memset(&got, 0, sizeof got);
      ctx("%s error_lanes n=%zu lane %zu", P[v]->name, n, lane);
      P[v]->error_lanes(a, b, n, lane, &got);
      g_cur = v;
      check(memcmp(&got, &ref, sizeof ref) == 0, "%s error_lanes n=%zu lane %zu",
            P[v]->name, n, lane);
    }
  }
  free(y);
  group_end();
}

/* ---- float8 codes ---------------------------------------------------------
** Every path's f8 kernels against scalar's bytes: the float32 patterns of
** every sign, exponent and top 8 mantissa bits with three low-bit tails (the
** bits every rounding decision reads), under several scales, both saturate
** values, each format; lengths 0..70 at every misalignment mod 8 for the
** tails; interleaved rows of 1..33 channels; dequantize of every code. */
static const float f8_scales[] = {1.0f, 0.37f, 3e-5f, 1e20f, 1.17549435e-38f};

static void cmp_f8_quantize(sq_cb x, size_t n, float s, int fmt, int sat,
                            int mis, const char *what) {
  unsigned char *in = gb_place(&g_in, 4 * n, mis);
  memcpy(in, x, 4 * n);
  ref_fill(g_ref, n);
  ctx("scalar f8_quantize fmt %d sat %d n=%zu", fmt, sat, n);
  S->f8_quantize(in, n, s, fmt, sat, g_ref);
  for (int v = 0; v < NP; v++) {
    unsigned char *out = gb_place(&g_out, n, mis < 0 ? -1 : (mis * 3) % 64);
    out_fill(&g_out, out);
    ctx("%s f8_quantize fmt %d sat %d n=%zu", P[v]->name, fmt, sat, n);
    P[v]->f8_quantize(in, n, s, fmt, sat, out);
    g_cur = v;
    check(memcmp(out, g_ref, n) == 0 && canaries_ok(&g_out, out, n),
          "%s f8_quantize fmt %d sat %d scale %g n=%zu (%s)", P[v]->name, fmt, sat,
          (double)s, n, what);
  }
}

static void cmp_f8_dequantize(sq_cb q, size_t n, float s, int fmt, int mis) {
  unsigned char *in = gb_place(&g_in, n, mis);
  memcpy(in, q, n);
  ref_fill(g_ref, 4 * n);
  S->f8_dequantize(in, n, s, fmt, g_ref);
  for (int v = 0; v < NP; v++) {
    unsigned char *out = gb_place(&g_out, 4 * n, mis < 0 ? -1 : (mis * 5) % 64);
    out_fill(&g_out, out);
    ctx("%s f8_dequantize fmt %d n=%zu", P[v]->name, fmt, n);
    P[v]->f8_dequantize(in, n, s, fmt, out);
    g_cur = v;
    check(memcmp(out, g_ref, 4 * n) == 0 && canaries_ok(&g_out, out, 4 * n),
          "%s f8_dequantize fmt %d scale %g n=%zu", P[v]->name, fmt, (double)s, n);
  }
}

static void test_float8(int level) {
  group_begin("float8 codes");
  size_t n = 0;
  unsigned char *x = (unsigned char *)g_x;
  for (uint32_t sg = 0; sg < 2; sg++)
    for (uint32_t e = 0; e < 256; e += level ? 1 : 5)
      for (uint32_t t = 0; t < 256; t++)
        for (int lo = 0; lo < 3; lo++) {
          uint32_t u = sg << 31 | e << 23 | t << 15 | (lo == 0 ? 0 : lo == 1 ? 1 : 0x7fff);
          memcpy(x + 4 * n++, &u, 4);
        }
  unsigned char codes[256 * 9];
  for (size_t i = 0; i < sizeof codes; i++) codes[i] = (unsigned char)(i * 37 + i / 256);
  for (int fmt = SQ_F8_E4M3FN; fmt < SQ_F8_NFORMATS; fmt++) {
    for (size_t si = 0; si < sizeof f8_scales / sizeof f8_scales[0]; si++) {
      float s = f8_scales[si];
      for (int sat = 0; sat < 2; sat++) {
        cmp_f8_quantize(x, n, s, fmt, sat, -1, "patterns");
        for (size_t len = 0; len <= 70; len++)
          cmp_f8_quantize(x + 4 * ((len * 7919) % (n - 80)), len, s, fmt, sat,
                          (int)(len % 8) * 4 + 1, "sweep");
      }
      cmp_f8_dequantize(codes, sizeof codes, s, fmt, -1);
      for (size_t len = 0; len <= 70; len++)
        cmp_f8_dequantize(codes + len, len, s, fmt, (int)(len % 8));
    }
    /* interleaved: rows x channels, a scale per channel */
    static const size_t chs[] = {1, 3, 7, 8, 9, 15, 16, 17, 33};
    float sc[64];
    for (int c = 0; c < 64; c++) sc[c] = f8_scales[c % 5] * (1.0f + (float)c / 64.0f);
    for (size_t a = 0; a < sizeof chs / sizeof chs[0]; a++)
      for (int sat = 0; sat < 2; sat++) {
        size_t ch = chs[a], rows = 5, m = rows * ch;
        sq_cb src = x + 4 * ((ch * 104729) % (n - m));
        S->f8_quantize_il(src, rows, ch, sc, fmt, sat, g_ref);
        S->f8_dequantize_il(codes, rows, ch, sc, fmt, g_ref + 1024);
        for (int v = 0; v < NP; v++) {
          unsigned char q[1024], y[4 * 1024];
          ctx("%s f8_quantize_il fmt %d ch=%zu", P[v]->name, fmt, ch);
          P[v]->f8_quantize_il(src, rows, ch, sc, fmt, sat, q);
          P[v]->f8_dequantize_il(codes, rows, ch, sc, fmt, y);
          g_cur = v;
          check(memcmp(q, g_ref, m) == 0, "%s f8_quantize_il fmt %d sat %d ch=%zu",
                P[v]->name, fmt, sat, ch);
          g_cur = v;
          check(memcmp(y, g_ref + 1024, 4 * m) == 0, "%s f8_dequantize_il fmt %d ch=%zu",
                P[v]->name, fmt, ch);
        }
      }
  }
  group_end();
}

/* ---- CRC-32 (kernels/crc32.h) ---------------------------------------------
** Every CRC path, scalar included (it is not the reference here: a bit-at-a-
** time loop is, pinned to zlib's values), on every length 0..4160 (0..1100
** with --quick) at every misalignment mod 64 and against the guard page, two
** initial values; continued across calls of random sizes and across paths;
** large buffers.  Built with zlib (SQ_TEST_ZLIB: the native build when
** zlib's header is installed), every reference value is also zlib's crc32
** itself. */
#ifdef SQ_TEST_ZLIB
#include <zlib.h>
#endif

/* The definition, one bit at a time: nothing shared with the paths. */
static uint32_t crc_bitwise(uint32_t crc, const unsigned char *p, size_t n) {
  crc = ~crc;
  for (; n; n--, p++) {
    crc ^= *p;
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

/* xorshift32 bytes (the top byte of each step), as the generator of the
** pins below produces them. */
static void crc_fill(unsigned char *b, size_t n) {
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b[i] = (unsigned char)(x >> 24);
  }
}

/* zlib.crc32(b[:n]) and zlib.crc32(b[:n], 0xDEADBEEF) of crc_fill's bytes,
** from python3:
**   x = 2463534242; b = bytearray()
**   for i in range(70000):
**       x ^= (x << 13) & 0xffffffff; x ^= x >> 17; x ^= (x << 5) & 0xffffffff
**       b.append(x >> 24)
**   print(n, hex(zlib.crc32(b[:n])), hex(zlib.crc32(b[:n], 0xDEADBEEF))) */
static const struct { size_t n; uint32_t crc, seeded; } crc_pins[] = {
    {0, 0x00000000u, 0xDEADBEEFu},     {1, 0x7EBE16CDu, 0x4ED5449Au},
    {3, 0x19A397B9u, 0x693C5C99u},     {4, 0xAEC7A3ADu, 0x95D91CAEu},
    {15, 0x6CE1C090u, 0x365BA0EDu},    {16, 0xD503CA54u, 0xFBED7DB5u},
    {17, 0xA5D0DCD1u, 0x72F3E088u},    {63, 0x8A90294Au, 0xBB669CB9u},
    {64, 0x75EF59C5u, 0x516A0CD6u},    {65, 0x007A8529u, 0x84E041A2u},
    {127, 0xBC7831AAu, 0x09EE41A7u},   {255, 0x5906B7E8u, 0xEDE4892Du},
    {256, 0x995F3D7Du, 0x72E5E97Cu},   {257, 0x8FF3ABB2u, 0xF81F21F0u},
    {511, 0xED210486u, 0xCDCD057Eu},   {1024, 0xEEB734BAu, 0x85209F29u},
    {4095, 0x4D993B3Cu, 0x0219508Fu},  {4097, 0x1A1F463Cu, 0x0F974C17u},
    {65536, 0x552A9E6Fu, 0xF52EC98Cu}, {69999, 0x3EA52048u, 0xF3FC151Bu},
};
#define CRC_PIN_BYTES 70000
#define CRC_SEED 0xDEADBEEFu

static uint32_t crc_zlib_or(uint32_t ref, uint32_t crc, const unsigned char *p,
                            size_t n) {
#ifdef SQ_TEST_ZLIB
  (void)ref;
  uLong z = crc;
  for (size_t done = 0; done < n;) {       /* zlib takes uInt lengths */
    uInt k = (uInt)(n - done > 1u << 30 ? 1u << 30 : n - done);
    z = crc32(z, p + done, k);
    done += k;
  }
  return (uint32_t)z;
#else
  (void)crc, (void)p, (void)n;
  return ref;
#endif
}

static void test_crc32(int level) {
  const char *const *names = sq_crc32_available();
  const sq_crc32_path *cp[8];
  int ncp = 0;
  for (int i = 0; names[i] && ncp < 8; i++) {
    cp[ncp] = sq_crc32_by_name(names[i]);
    check(cp[ncp] != NULL && strcmp(cp[ncp]->name, names[i]) == 0,
          "sq_crc32_by_name(%s)", names[i]);
    if (cp[ncp]) ncp++;
  }
  unsigned char *src = malloc(CRC_PIN_BYTES);
  if (!src) exit(2);
  crc_fill(src, CRC_PIN_BYTES);

  group_begin("crc32 pins (zlib's values)");
  printf("crc32 paths:");
  for (int v = 0; v < ncp; v++) printf(" %s", cp[v]->name);
  printf("  (active: %s)\n", sq_crc32_active()->name);
  check(crc_bitwise(0, (sq_cb) "123456789", 9) == 0xCBF43926u, "bitwise 123456789");
  check(sq_crc32_by_name("scalar") != NULL && sq_crc32_by_name("no such") == NULL,
        "scalar always, unknown names never");
  for (size_t i = 0; i < sizeof crc_pins / sizeof crc_pins[0]; i++) {
    size_t n = crc_pins[i].n;
    check(crc_bitwise(0, src, n) == crc_pins[i].crc &&
              crc_bitwise(CRC_SEED, src, n) == crc_pins[i].seeded,
          "bitwise n=%zu", n);
    check(crc_zlib_or(crc_pins[i].crc, 0, src, n) == crc_pins[i].crc, "zlib n=%zu", n);
    for (int v = 0; v < ncp; v++) {
      unsigned char *in = gb_place(&g_in, n, -1);
      memcpy(in, src, n);
      ctx("crc32 %s pin n=%zu", cp[v]->name, n);
      check(cp[v]->crc32(0, in, n) == crc_pins[i].crc &&
                cp[v]->crc32(CRC_SEED, in, n) == crc_pins[i].seeded,
            "%s n=%zu", cp[v]->name, n);
    }
  }
  /* The fastest path, or the fastest SQLITE_QUANT_KERNEL's name allows
  ** (kernels/crc32.h): each CRC path has the rank of the kernel path that
  ** may run it. */
  {
    static const struct { const char *crc; int rank; } crc_rank[] = {
        {"pclmul", 1}, {"armv8", 1}, {"vpclmul", 2}};
    const char *env = getenv("SQLITE_QUANT_KERNEL"), *want = "scalar";
#if defined(__aarch64__)
    int cap = !env || !*env ? 99 : strcmp(env, "neon") == 0;
#else
    int cap = !env || !*env ? 99 : strcmp(env, "avx512") == 0 ? 2 : strcmp(env, "avx2") == 0;
#endif
    for (int r = 1; r <= 2; r++)
      for (size_t i = 0; i < sizeof crc_rank / sizeof crc_rank[0]; i++)
        if (crc_rank[i].rank == r && r <= cap && sq_crc32_by_name(crc_rank[i].crc))
          want = crc_rank[i].crc;
    check(strcmp(sq_crc32_active()->name, want) == 0,
          "SQLITE_QUANT_KERNEL=%s gives crc path %s, not %s", env ? env : "(unset)", want,
          sq_crc32_active()->name);
  }
  group_end();

  group_begin("crc32 lengths x misalignments");
  size_t maxlen = level ? 4160 : 1100;
  uint32_t r0 = 0, r1 = CRC_SEED;           /* references of src[0..n) */
  for (size_t n = 0; n <= maxlen; n++) {
    if (n) r0 = crc_bitwise(r0, src + n - 1, 1), r1 = crc_bitwise(r1, src + n - 1, 1);
    int nmis = level ? 65 : 4;
    for (int m = 0; m < nmis; m++) {
      int mis = m == 0 ? -1 : level ? m - 1 : (int)((n * 11 + (size_t)m * 17) % 64);
      unsigned char *in = gb_place(&g_in, n, mis);
      memcpy(in, src, n);
      int seeded = (int)((n + (size_t)m) & 1);
      uint32_t want = seeded ? r1 : r0;
      for (int v = 0; v < ncp; v++) {
        ctx("crc32 %s n=%zu mis=%d", cp[v]->name, n, mis);
        check(cp[v]->crc32(seeded ? CRC_SEED : 0, in, n) == want,
              "%s n=%zu mis=%d seeded=%d", cp[v]->name, n, mis, seeded);
      }
    }
    if (n % 512 == 0 || n == maxlen)
      check(crc_zlib_or(r0, 0, src, n) == r0 && crc_zlib_or(r1, CRC_SEED, src, n) == r1,
            "bitwise against zlib n=%zu", n);
  }
  group_end();

  group_begin("crc32 continued across calls");
  for (int trial = 0; trial < (level ? 400 : 40); trial++) {
    size_t total = rnd_below(CRC_PIN_BYTES + 1), at = 0;
    uint32_t c = 0, want = crc_zlib_or(cp[0]->crc32(0, src, total), 0, src, total);
    while (at < total) {
      size_t k = rnd_below(trial % 3 == 0 ? 40 : 3000);
      if (k > total - at) k = total - at;
      c = cp[rnd_below((size_t)ncp)]->crc32(c, src + at, k);   /* any path */
      at += k;
    }
    check(c == want, "trial %d: %zu bytes in pieces", trial, total);
  }
  group_end();

  group_begin("crc32 large buffers");
  {
    size_t big = level ? ((size_t)64 << 20) + 7 : ((size_t)1 << 20) + 13;
    unsigned char *b = malloc(big);
    if (!b) exit(2);
    for (size_t i = 0; i < big; i++) b[i] = (unsigned char)(rnd32() >> 24);
    static const size_t cuts[] = {(1u << 20) + 13, 3u << 20, 0};
    for (int c = 0; c < 3; c++) {
      size_t n = cuts[c] && cuts[c] <= big ? cuts[c] : big;
      uint32_t ref = cp[0]->crc32(0x01020304u, b, n);
      check(crc_zlib_or(ref, 0x01020304u, b, n) == ref, "scalar against zlib n=%zu", n);
      for (int v = 1; v < ncp; v++) {
        ctx("crc32 %s large n=%zu", cp[v]->name, n);
        check(cp[v]->crc32(0x01020304u, b, n) == ref, "%s n=%zu", cp[v]->name, n);
        check(cp[v]->crc32(0x01020304u, b + 1, n - 1) == cp[0]->crc32(0x01020304u, b + 1, n - 1),
              "%s n=%zu at offset 1", cp[v]->name, n - 1);
      }
    }
    free(b);
  }
  group_end();
  free(src);
}

int main(int argc, char **argv) {
  int longrun = 0, quick = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--long") == 0) longrun = 1;
    else if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      g_rng = strtoull(argv[++i], NULL, 0);
    else {
      fprintf(stderr, "usage: %s [--long] [--quick] [--seed N]\n", argv[0]);
      return 2;
    }
  }
  signal(SIGSEGV, on_fault);
  signal(SIGBUS, on_fault);
  setvbuf(stdout, NULL, _IOLBF, 0);

  S = &sq_kernels_scalar;
  const char *const *names = sq_kernels_available();
  printf("paths:");
  for (int i = 0; names[i]; i++) printf(" %s", names[i]);
  printf("  (active: %s)\n", sq_kernels_active()->name);
  for (int i = 0; names[i]; i++) {
    if (strcmp(names[i], "scalar") == 0) continue;
    const sq_kernels *k = sq_kernels_by_name(names[i]);
    check(k != NULL, "sq_kernels_by_name(%s)", names[i]);
    if (k) P[NP++] = k;
  }
  check(sq_kernels_by_name("scalar") == S, "scalar is the reference table");

  g_in = gb_new(4 * MAXN + 4096);
  g_out = gb_new(4 * MAXN + 4096);
  g_out2 = gb_new(4 * MAXN + 4096);
  for (int i = 0; i < 7; i++) g_par[i] = gb_new(4 * 4096 + 4096);
  g_ref = malloc(4 * MAXN);
  g_x = malloc(sizeof(float) * MAXN);
  g_codes = malloc(4 * MAXN);
  if (!g_ref || !g_x || !g_codes) return 2;

  test_scalar_pins();
  if (NP == 0) printf("no vector path on this machine: only the reference is checked\n");
  int level = quick ? 0 : 1;
  for (int v = 0; v < NP; v++) printf("checking %s against scalar\n", P[v]->name);
  test_quantize(level);
  test_quantize_il(level);
  test_quantize_tutorial(level);
  test_dequantize(level);
  test_dequantize_il(level);
  test_minmax(level);
  test_minmax_il(level);
  test_minmax_blocks(level);
  test_error_sums(level);
  test_histc(level);
  test_fake_errors(level);
  test_error_lanes(level);
  test_pack4(level);
  test_float8(level);
  test_half(level);
  test_heap_exact();
  test_ggml_tables();
  test_ggml_pins();
  test_ggml_dequantize(level);
  test_ggml_quantize(level);
  test_ggml_spans(level);
  test_ggml_checked(level);
  test_ggml_heap();
  test_log2(level);
  test_crc32(quick ? 0 : 1);
  run_env_suite();
  if (longrun) test_half_long();

  for (int v = 0; v < NP; v++)
    printf("all checks of path %-33s %10llu passed, %llu failed\n", P[v]->name, path_pass[v],
           path_fail[v]);
  printf("%llu passed, %llu failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
