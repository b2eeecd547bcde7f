/*
** ggml_ref_test.c: the ggml block-format kernels (ext/kernels/ggml.h) against
** ggml itself, byte for byte, on fresh random data.
**
**   build/ggml_ref_test [--quick] [--seed N] [--rounds N] [--type T]
**                       [--path P] [--lib FILE] [-v]
**   build/ggml_ref_test --pins [--lib FILE]   tests/kernel_test.c's pins, from ggml
**
** ggml is dlopen()ed from build/ggml/libggml-base.so (tests/ggml/fetch_ggml.sh:
** ggml 0.25.1, commit 0ad4a86, from @node-llama-cpp/linux-x64@3.22.1).  For
** every kernel path sq_kernels_available() lists and every type, each row is
** checked in four modes:
**   quantize       sq_ggml_quantizer(k, t)(x, n, NULL, out)
**                  == quantize_row_<t>_ref(x, ref, n)
**   quantize+imp   sq_ggml_quantizer(k, t)(x, n, imp, out)
**                  == quantize_<t>(x, ref, 1, n, imp)
**   quantize-unw   sq_ggml_quantizer_unweighted(k, t)(x, n, NULL, out)
**                  == quantize_<t>(x, ref, 1, n, NULL), llama.cpp's call
**                  without an imatrix (not for the types that need one)
**   dequantize     sq_ggml_dequantizer(k, t) of ggml's blocks (both modes above)
**                  == dequantize_row_<t>
**   dequant-rand   the same on random block bytes whose fp16 fields are
**                  finite
**   dequant-special
**                  the same with fp16 fields drawn from zeros, subnormals,
**                  the largest, infinities and NaNs (quiet and signalling)
**   dequant-long   one row of 1280K weights (5 MB of float32: past the
**                  size where dequantizers stream their stores) of random
**                  blocks, one in eight with special fp16 fields, written
**                  at output offsets 0, 1 and every multiple of 4 below
**                  64 (--quick: 0, 1, 20, 52), so that each alignment of
**                  the output against a vector is met
** Where ggml has no answer the row is not compared and is counted as
** "ggml aborted" or "undefined": ggml's iq3 searches abort (GGML_ASSERT,
** caught here through ggml_set_abort_callback) on some rows of huge values
** or weights, and quantize_row_iq4_nl_ref leaves the codes of a block below
** 1e-15 uninitialised (there only its d is compared).
** Every kernel call is made twice: buffers aligned, and input, importance and
** output all one byte off.  The output sits between canary bytes, so writing
** outside the row's blocks is a mismatch too.
**
** Data families (x): gaussian, heavy-tailed, all-zero, constant, tiny-1e-40
** (subnormal), tiny-1e-30, huge-1e30, huge-FLT_MAX/4, exact-ties (values on
** k/2 grids of a power of two, so that ggml's x*id lands on .5), spikes,
** one-nonzero, near-pow2 (block extremes just below powers of two, where
** log2's rounding decides mxfp4's exponent).  Importance families: random, some-zeros, all-zeros,
** huge-tiny.  Row lengths: multiples of 256, and of 32 for the legacy types.
** The data is fresh for every seed (default: the time); the seed is printed,
** and --seed N with the same options reruns the same cases.
**
** Output: per path, type and mode a count and the first mismatch (row, byte,
** family, importance family, length, offset, seed); then
** "ggml: N passed, N failed" (one check = one row, one mode, one path, one
** alignment).  Exit status 1 on any mismatch.
**
** Size: the default is 16 rounds of every type x family x length (longer
** rows, 3 rows per case); --quick (CI) 4 rounds of shorter rows.  --rounds N
** overrides; --type and --path keep one type or path; -v prints every
** mismatch, not only the first per path, type and mode.
*/
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <setjmp.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "pin_data.h"

#define NT SQ_GGML_NTYPES
#define MAXPATHS 8
#define GUARD 64         /* canary bytes either side of an output */
#define CANARY 0xA5

/* ---- ggml, through dlopen ------------------------------------------------ */

typedef void (*ggml_qref_fn)(const float *x, void *y, int64_t k);
typedef size_t (*ggml_quant_fn)(const float *src, void *dst, int64_t nrow,
                                int64_t n_per_row, const float *imatrix);
typedef void (*ggml_deq_fn)(const void *x, float *y, int64_t k);

static ggml_qref_fn g_qref[NT];
static ggml_quant_fn g_quant[NT];
static ggml_deq_fn g_deq[NT];
static int g_unweighted_same[NT];   /* quantize_<t>(NULL) is the _ref */

static void *sym(void *h, const char *fmt, const char *type) {
  char name[64];
  snprintf(name, sizeof name, fmt, type);
  void *p = dlsym(h, name);
  if (!p) {
    fprintf(stderr, "ggml_ref_test: %s not found in the ggml library\n", name);
    exit(2);
  }
  return p;
}

/* ---- random numbers: splitmix64, one stream per case --------------------- */

static uint64_t rng_state;
static uint64_t rnd64(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double unif(void) { return (double)(rnd64() >> 11) * 0x1.0p-53; }
static double unif_pos(void) { return ((double)(rnd64() >> 11) + 0.5) * 0x1.0p-53; }
static size_t rnd_below(size_t n) { return (size_t)(rnd64() % n); }
static double gauss(void) {
  return sqrt(-2.0 * log(unif_pos())) * cos(6.283185307179586 * unif());
}
static double sign(void) { return (rnd64() & 1) ? 1.0 : -1.0; }

/* ---- data families ------------------------------------------------------- */

static const char *const x_families[] = {
  "gaussian", "heavy-tailed", "all-zero", "constant", "tiny-1e-40",
  "tiny-1e-30", "huge-1e30", "huge-FLT_MAX/4", "exact-ties", "spikes",
  "one-nonzero", "near-pow2",
};
#define NXF (sizeof x_families / sizeof x_families[0])

static const char *const imp_families[] = {
  "random", "some-zeros", "all-zeros", "huge-tiny",
};
#define NIF (sizeof imp_families / sizeof imp_families[0])

static float clampf(double v) {
  if (v > (double)FLT_MAX) return FLT_MAX;
  if (v < -(double)FLT_MAX) return -FLT_MAX;
  return (float)v;
}

/* One row of family f, n floats; block is the type's block size. */
static void gen_row(size_t f, float *x, size_t n, size_t block) {
  const char *name = x_families[f];
  double s = pow(10.0, -3.0 + 6.0 * unif());   /* a scale per row */
  if (!strcmp(name, "gaussian")) {
    double mean = (rnd64() & 3) == 0 ? s * gauss() : 0.0;
    for (size_t i = 0; i < n; i++) x[i] = (float)(mean + s * gauss());
  } else if (!strcmp(name, "heavy-tailed")) {
    /* A scale mixture: gaussian times a log-normal spread over ~6 decades,
    ** and now and then a Cauchy draw. */
    for (size_t i = 0; i < n; i++) {
      double v = s * gauss() * exp(2.0 * gauss());
      if ((rnd64() & 15) == 0) v = s * tan(3.141592653589793 * (unif() - 0.5));
      x[i] = clampf(v);
    }
  } else if (!strcmp(name, "all-zero")) {
    for (size_t i = 0; i < n; i++) x[i] = (rnd64() & 7) == 0 ? -0.0f : 0.0f;
  } else if (!strcmp(name, "constant")) {
    float c = (float)(sign() * s);
    if ((rnd64() & 3) == 0) c = (float)sign() * (float)(1 + rnd_below(16));
    for (size_t i = 0; i < n; i++) x[i] = c;
  } else if (!strcmp(name, "tiny-1e-40")) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(1e-40 * gauss());
  } else if (!strcmp(name, "tiny-1e-30")) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(1e-30 * gauss());
  } else if (!strcmp(name, "huge-1e30")) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(1e30 * gauss());
  } else if (!strcmp(name, "huge-FLT_MAX/4")) {
    for (size_t i = 0; i < n; i++)
      x[i] = (float)((double)(FLT_MAX / 4) * (2.0 * unif() - 1.0));
    x[rnd_below(n)] = (float)sign() * (FLT_MAX / 4);
  } else if (!strcmp(name, "exact-ties")) {
    /* Per block: a power of two d and an extreme L*d with L one of the
    ** types' level counts, the rest (j/2)*d, so x/d and x*(1/d) are exact
    ** and many land on .5. */
    static const int levels[] = {1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 127};
    for (size_t b = 0; b < n; b += block) {
      int e = -12 + (int)rnd_below(25);
      int L = levels[rnd_below(sizeof levels / sizeof levels[0])];
      double d = ldexp(1.0, e);
      for (size_t i = b; i < b + block; i++) {
        long j = (long)rnd_below((size_t)(4 * L + 1)) - 2 * L;  /* [-2L, 2L] */
        x[i] = (float)(d * (double)j / 2.0);
      }
      x[b + rnd_below(block)] = (float)(sign() * L * d);
      /* The sub-blocks of a K-quant too. */
      if (block == 256)
        for (size_t sb = b; sb < b + block; sb += 16)
          if (rnd64() & 1) x[sb + rnd_below(16)] = (float)(sign() * L * d);
    }
  } else if (!strcmp(name, "spikes")) {
    for (size_t i = 0; i < n; i++) {
      double v = s * gauss();
      uint64_t r = rnd64() & 63;
      if (r == 0) v *= 1000.0;
      else if (r == 1) v *= 1e-6;
      else if (r == 2) v = 0.0;
      x[i] = (float)v;
    }
    /* Some blocks: all zero but one spike. */
    for (size_t b = 0; b < n; b += block)
      if ((rnd64() & 7) == 0) {
        for (size_t i = b; i < b + block; i++) x[i] = 0.0f;
        x[b + rnd_below(block)] = (float)(sign() * s * 100.0);
      }
  } else if (!strcmp(name, "near-pow2")) {
    /* Per block: an extreme a few float steps below (or at) a power of two
    ** 2^k, k anywhere in float's range, the rest gaussian below it: where
    ** floor(log2 amax) and the exponent rules turn. */
    for (size_t b = 0; b < n; b += block) {
      int k = -148 + (int)rnd_below(276);
      float top = ldexpf(1.0f, k);
      uint32_t u;
      memcpy(&u, &top, 4);
      uint32_t back = (uint32_t)rnd_below(k < -125 ? 4 : 120);
      u -= back < u ? back : u - 1;  /* stays a positive float */
      float a;
      memcpy(&a, &u, 4);
      for (size_t i = b; i < b + block; i++) x[i] = (float)((double)a * 0.3 * gauss());
      for (size_t i = b; i < b + block; i++)
        if (fabsf(x[i]) > a) x[i] = 0.0f;
      x[b + rnd_below(block)] = (float)sign() * a;
    }
  } else if (!strcmp(name, "one-nonzero")) {
    for (size_t i = 0; i < n; i++) x[i] = 0.0f;
    x[rnd_below(n)] = (float)(sign() * s * (0.5 + unif()));
  } else {
    abort();
  }
}

static void gen_imp(size_t f, float *w, size_t n, size_t block) {
  const char *name = imp_families[f];
  if (!strcmp(name, "random")) {
    double s = pow(10.0, -2.0 + 4.0 * unif());
    for (size_t i = 0; i < n; i++) w[i] = (float)(s * unif_pos());
  } else if (!strcmp(name, "some-zeros")) {
    for (size_t i = 0; i < n; i++)
      w[i] = (rnd64() % 3) == 0 ? 0.0f : (float)unif_pos();
    /* Whole blocks and 16-wide sub-blocks of zeros now and then. */
    for (size_t b = 0; b < n; b += 16)
      if ((rnd64() & 7) == 0) memset(w + b, 0, 16 * sizeof(float));
    if ((rnd64() & 1) && n >= block) memset(w, 0, block * sizeof(float));
  } else if (!strcmp(name, "all-zeros")) {
    memset(w, 0, n * sizeof(float));
  } else if (!strcmp(name, "huge-tiny")) {
    static const float v[] = {1e30f, 1e-30f, 1e-40f, 3e38f, 1e20f, 1e-20f};
    float base = v[rnd_below(sizeof v / sizeof v[0])];
    for (size_t i = 0; i < n; i++) {
      w[i] = (rnd64() & 3) ? base * (float)unif_pos()
                           : v[rnd_below(sizeof v / sizeof v[0])];
    }
  } else {
    abort();
  }
}

/* Random block bytes whose fp16 fields (ggml's d, dmin: their offsets are
** the catalogue's, sq_ggml_formats[t].fp16) are finite. */
static void gen_blocks(int t, unsigned char *b, size_t nblocks) {
  size_t bytes = sq_ggml_formats[t].bytes;
  for (size_t i = 0; i < nblocks * bytes; i++) b[i] = (unsigned char)rnd64();
  for (size_t k = 0; k < nblocks; k++)
    for (int j = 0; j < 2; j++) {
      int off = sq_ggml_formats[t].fp16[j];
      if (off < 0) continue;
      unsigned char *p = b + k * bytes + off;
      /* Exponent 31 (inf/NaN) becomes a random finite exponent. */
      if ((p[1] & 0x7c) == 0x7c) p[1] = (unsigned char)((p[1] & 0x83) | (rnd_below(31) << 2));
      /* Now and then a small, ordinary scale, so products stay moderate. */
      if ((rnd64() & 3) == 0) p[1] = (unsigned char)((p[1] & 0x80) | 0x10 | (rnd64() & 3));
    }
}

/* Random block bytes whose fp16 fields are, in most blocks, special. */
static void gen_blocks_special(int t, unsigned char *b, size_t nblocks) {
  static const unsigned special[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff,
                                     0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d01, 0xfd01,
                                     0x7fff, 0x3c00};
  size_t bytes = sq_ggml_formats[t].bytes;
  gen_blocks(t, b, nblocks);
  for (size_t k = 0; k < nblocks; k++)
    for (int j = 0; j < 2; j++) {
      int off = sq_ggml_formats[t].fp16[j];
      if (off < 0 || (rnd64() & 3) == 0) continue;
      unsigned h = special[rnd_below(sizeof special / sizeof special[0])];
      b[k * bytes + off] = (unsigned char)(h & 0xff);
      b[k * bytes + off + 1] = (unsigned char)(h >> 8);
    }
}

/* ---- bookkeeping --------------------------------------------------------- */

enum { M_Q, M_QIMP, M_QUNW, M_DQ, M_DQRAND, M_DQSPECIAL, M_DQLONG, NMODES };
static const char *const mode_names[NMODES] = {
  "quantize", "quantize+imp", "quantize-unw", "dequantize", "dequant-rand",
  "dequant-special", "dequant-long",
};

/* ggml's GGML_ASSERT failures, caught: ggml_abort calls the callback (its
** message in hand) before abort(); the callback jumps back to the call. */
static sigjmp_buf g_abort_jmp;
static int g_abort_armed;
static unsigned long long g_aborted, g_undefined;
static void on_ggml_abort(const char *msg) {
  (void)msg;
  if (g_abort_armed) siglongjmp(g_abort_jmp, 1);
}
/* Runs CALL; FLAG = 1 when ggml aborted in it, else 0. */
#define GGML_GUARDED(FLAG, CALL)                                               \
  do {                                                                         \
    if (sigsetjmp(g_abort_jmp, 1)) {                                           \
      g_abort_armed = 0;                                                       \
      g_aborted++;                                                             \
      (FLAG) = 1;                                                              \
    } else {                                                                   \
      g_abort_armed = 1;                                                       \
      CALL;                                                                    \
      g_abort_armed = 0;                                                       \
      (FLAG) = 0;                                                              \
    }                                                                          \
  } while (0)

/* ggml's quantizers, guarded: 1 when ggml aborted. */
static int qref_guarded(int t, const float *x, void *y, size_t n) {
  int aborted;
  GGML_GUARDED(aborted, g_qref[t](x, y, (int64_t)n));
  return aborted;
}
static int quant_guarded(int t, const float *x, void *y, size_t n, const float *imp,
                         size_t *wrote) {
  int aborted;
  GGML_GUARDED(aborted, *wrote = g_quant[t](x, y, 1, (int64_t)n, imp));
  return aborted;
}

typedef struct {
  unsigned long long pass, fail;
  char first[1024];
} tally;

static int npaths;
static const sq_kernels *paths[MAXPATHS];
static tally tallies[MAXPATHS][NT][NMODES];
static unsigned long long g_pass, g_fail;
static uint64_t g_seed;
static int verbose;

/* What is running, for a crash. */
static char g_ctx[512];
static void on_crash(int sig) {
  static const char msg[] = "\nggml_ref_test: crashed while running: ";
  ssize_t r = write(2, msg, sizeof msg - 1);
  r = write(2, g_ctx, strlen(g_ctx));
  r = write(2, "\n", 1);
  (void)r;
  signal(sig, SIG_DFL);
  raise(sig);
}

typedef struct {
  size_t row, xf, imf;      /* imf == NIF: no importance */
  size_t n;
  int offset;
  uint64_t case_seed;
} where;

static void hexbytes(char *out, size_t cap, const unsigned char *p, size_t len) {
  size_t k = 0;
  for (size_t i = 0; i < len && k + 3 < cap; i++)
    k += (size_t)snprintf(out + k, cap - k, "%02x", p[i]);
  if (cap) out[k < cap ? k : cap - 1] = 0;
}

/* got has (at least) GUARD canary bytes either side of len bytes. */
static void check(int p, int t, int mode, const where *w, const unsigned char *exp,
                  const unsigned char *got_guarded, size_t len) {
  tally *ta = &tallies[p][t][mode];
  const unsigned char *got = got_guarded + GUARD;
  long bad = -1;
  const char *kind = "byte";
  for (size_t i = 0; i < GUARD; i++)
    if (got_guarded[i] != CANARY) { bad = (long)i - GUARD; kind = "write before the output at byte"; break; }
  if (bad == -1 && memcmp(exp, got, len) != 0)
    for (size_t i = 0; i < len; i++)
      if (exp[i] != got[i]) { bad = (long)i; break; }
  if (bad == -1)
    for (size_t i = 0; i < GUARD; i++)
      if (got[len + i] != CANARY) { bad = (long)(len + i); kind = "write past the output at byte"; break; }
  if (bad == -1) {
    ta->pass++; g_pass++;
    return;
  }
  ta->fail++; g_fail++;
  if (ta->first[0] && !verbose) return;
  const sq_ggml_format *fm = &sq_ggml_formats[t];
  char ctx[256];
  snprintf(ctx, sizeof ctx, "row %zu, %s %ld, family %s, importance %s, n %zu, offset %d, seed %llu",
           w->row, kind, bad, mode == M_DQRAND || mode == M_DQSPECIAL || mode == M_DQLONG ? "random-blocks" : x_families[w->xf],
           w->imf == NIF ? "none" : imp_families[w->imf], w->n, w->offset,
           (unsigned long long)g_seed);
  char detail[720] = "";
  if (bad >= 0 && (size_t)bad < len) {
    if (mode == M_DQ || mode == M_DQRAND || mode == M_DQSPECIAL || mode == M_DQLONG) {
      size_t e = (size_t)bad / 4;
      float fe, fg;
      uint32_t be, bg;
      memcpy(&fe, exp + 4 * e, 4); memcpy(&be, exp + 4 * e, 4);
      memcpy(&fg, got + 4 * e, 4); memcpy(&bg, got + 4 * e, 4);
      snprintf(detail, sizeof detail, "\n      float %zu (block %zu): expected %a (0x%08x), got %a (0x%08x)",
               e, e / fm->block, (double)fe, be, (double)fg, bg);
    } else {
      size_t blk = (size_t)bad / fm->bytes;
      char he[2 * 256 + 1], hg[2 * 256 + 1];
      hexbytes(he, sizeof he, exp + blk * fm->bytes, fm->bytes);
      hexbytes(hg, sizeof hg, got + blk * fm->bytes, fm->bytes);
      snprintf(detail, sizeof detail, "\n      block %zu byte %zu\n      expected %.160s%s\n      got      %.160s%s",
               blk, (size_t)bad % fm->bytes, he, strlen(he) > 160 ? "..." : "",
               hg, strlen(hg) > 160 ? "..." : "");
    }
  }
  if (!ta->first[0])
    snprintf(ta->first, sizeof ta->first, "%s%s", ctx, detail);
  if (verbose)
    printf("  MISMATCH %s %s %s: %s%s\n", paths[p]->name, fm->name, mode_names[mode], ctx, detail);
}

/* ---- one case: one type, one family, one length, some rows --------------- */

static unsigned char *guarded(size_t len) {
  unsigned char *b = malloc(len + 2 * GUARD + 1);
  if (!b) { perror("malloc"); exit(2); }
  return b;
}
static void canary(unsigned char *g, size_t len) { memset(g, CANARY, len + 2 * GUARD + 1); }

/* quantize_row_iq4_nl_ref leaves the codes of a block whose |x| stays below
** 1e-15 as its stack held them: in ggml's blocks they are set to 0x88 (code
** 8 twice: what ours writes, ggml_iq4.c) and counted. */
static void undefined_iq4_nl(const float *x, size_t n, unsigned char *blocks) {
  for (size_t b = 0; b < n / 32; b++) {
    float amax = 0;
    for (int j = 0; j < 32; j++) amax = fabsf(x[32 * b + j]) > amax ? fabsf(x[32 * b + j]) : amax;
    if (amax < 1e-15f) {
      memset(blocks + 18 * b + 2, 0x88, 16);
      g_undefined++;
    }
  }
}

static void run_case(int t, size_t xf, size_t n, size_t rows, uint64_t case_seed,
                     const int *imp_list, size_t nimp) {
  const sq_ggml_format *fm = &sq_ggml_formats[t];
  size_t nb = n / fm->block, qlen = nb * fm->bytes, flen = n * sizeof(float);
  rng_state = case_seed;

  /* Aligned copies for ggml; +1 byte shifted copies for the offset runs. */
  float *x = malloc(flen), *imp = malloc(flen), *deq = malloc(flen);
  unsigned char *xs = malloc(flen + 1), *imps = malloc(flen + 1);
  unsigned char *ref = malloc(qlen), *refimp[NIF + 1];
  unsigned char *out = guarded(qlen > flen ? qlen : flen);
  unsigned char *in_blocks = malloc(qlen + 1);
  if (!x || !imp || !deq || !xs || !imps || !ref || !in_blocks) { perror("malloc"); exit(2); }
  for (size_t i = 0; i <= NIF; i++) refimp[i] = malloc(qlen);

  int aborted_imp[NIF] = {0};
  for (size_t r = 0; r < rows; r++) {
    gen_row(xf, x, n, fm->block);
    memcpy(xs + 1, x, flen);
    where w = {r, xf, NIF, n, 0, case_seed};

    /* Quantize without importance (not the types ggml refuses to). */
    int skip_ref = !g_qref[t] || qref_guarded(t, x, ref, n);
    if (!skip_ref && t == SQ_GGML_IQ4_NL) undefined_iq4_nl(x, n, ref);
    for (int p = 0; p < npaths && !skip_ref; p++)
      for (int off = 0; off <= 1; off++) {
        w.offset = off;
        snprintf(g_ctx, sizeof g_ctx, "%s quantize %s family %s n %zu row %zu offset %d seed %llu",
                 paths[p]->name, fm->name, x_families[xf], n, r, off, (unsigned long long)g_seed);
        canary(out, qlen);
        sq_ggml_quantizer(paths[p], t)(off ? (void *)(xs + 1) : (void *)x, n, NULL, out + GUARD + off);
        check(p, t, M_Q, &w, ref, out + off, qlen);
      }

    /* Quantize as llama.cpp does without an imatrix. */
    if (!sq_ggml_formats[t].needs_importance) {
      unsigned char *unw = refimp[NIF];
      w.imf = NIF;
      size_t wrote;
      int skip = quant_guarded(t, x, unw, n, NULL, &wrote);
      for (int p = 0; p < npaths && !skip; p++)
        for (int off = 0; off <= 1; off++) {
          w.offset = off;
          snprintf(g_ctx, sizeof g_ctx, "%s quantize-unw %s family %s n %zu row %zu offset %d seed %llu",
                   paths[p]->name, fm->name, x_families[xf], n, r, off, (unsigned long long)g_seed);
          canary(out, qlen);
          sq_ggml_quantizer_unweighted(paths[p], t)(off ? (void *)(xs + 1) : (void *)x, n, NULL,
                                                    out + GUARD + off);
          check(p, t, M_QUNW, &w, unw, out + off, qlen);
        }
      /* ggml's own claim, which sq_ggml_quantizer_unweighted relies on. */
      if (!skip && !skip_ref && g_unweighted_same[t] && memcmp(unw, ref, qlen)) {
        fprintf(stderr, "ggml_ref_test: quantize_%s(NULL) and quantize_row_%s_ref differ "
                "(family %s, n %zu, seed %llu)\n", fm->name, fm->name, x_families[xf], n,
                (unsigned long long)g_seed);
        g_fail++;
      }
    }

    /* Quantize with importance, each importance family. */
    for (size_t k = 0; k < nimp; k++) {
      size_t imf = (size_t)imp_list[k];
      gen_imp(imf, imp, n, fm->block);
      memcpy(imps + 1, imp, flen);
      w.imf = imf;
      size_t wrote = qlen;
      aborted_imp[k] = quant_guarded(t, x, refimp[k], n, imp, &wrote);
      if (aborted_imp[k]) continue;
      if (wrote != qlen) {
        fprintf(stderr, "ggml_ref_test: quantize_%s returned %zu, expected %zu\n", fm->name, wrote, qlen);
        exit(2);
      }
      for (int p = 0; p < npaths; p++)
        for (int off = 0; off <= 1; off++) {
          w.offset = off;
          snprintf(g_ctx, sizeof g_ctx, "%s quantize+imp %s family %s importance %s n %zu row %zu offset %d seed %llu",
                   paths[p]->name, fm->name, x_families[xf], imp_families[imf], n, r, off,
                   (unsigned long long)g_seed);
          canary(out, qlen);
          sq_ggml_quantizer(paths[p], t)(off ? (void *)(xs + 1) : (void *)x, n,
                                      off ? (void *)(imps + 1) : (void *)imp, out + GUARD + off);
          check(p, t, M_QIMP, &w, refimp[k], out + off, qlen);
        }
    }

    /* Dequantize ggml's blocks: those without importance, then each with. */
    for (size_t k = 0; k <= nimp; k++) {
      if (k == 0 ? skip_ref : aborted_imp[k - 1]) continue;
      const unsigned char *blocks = k == 0 ? ref : refimp[k - 1];
      w.imf = k == 0 ? NIF : (size_t)imp_list[k - 1];
      g_deq[t](blocks, deq, (int64_t)n);
      memcpy(in_blocks + 1, blocks, qlen);
      for (int p = 0; p < npaths; p++)
        for (int off = 0; off <= 1; off++) {
          w.offset = off;
          snprintf(g_ctx, sizeof g_ctx, "%s dequantize %s family %s n %zu row %zu offset %d seed %llu",
                   paths[p]->name, fm->name, x_families[xf], n, r, off, (unsigned long long)g_seed);
          canary(out, flen);
          sq_ggml_dequantizer(paths[p], t)(off ? (const void *)(in_blocks + 1) : (const void *)blocks, n,
                                        out + GUARD + off);
          check(p, t, M_DQ, &w, (const unsigned char *)deq, out + off, flen);
        }
    }

    /* Dequantize random blocks. */
    unsigned char *rb = refimp[NIF];
    gen_blocks(t, rb, nb);
    memcpy(in_blocks + 1, rb, qlen);
    g_deq[t](rb, deq, (int64_t)n);
    w.imf = NIF;
    for (int p = 0; p < npaths; p++)
      for (int off = 0; off <= 1; off++) {
        w.offset = off;
        snprintf(g_ctx, sizeof g_ctx, "%s dequant-rand %s n %zu row %zu offset %d seed %llu",
                 paths[p]->name, fm->name, n, r, off, (unsigned long long)g_seed);
        canary(out, flen);
        sq_ggml_dequantizer(paths[p], t)(off ? (const void *)(in_blocks + 1) : (const void *)rb, n,
                                      out + GUARD + off);
        check(p, t, M_DQRAND, &w, (const unsigned char *)deq, out + off, flen);
      }

    /* Dequantize blocks with special fp16 fields. */
    gen_blocks_special(t, rb, nb);
    memcpy(in_blocks + 1, rb, qlen);
    g_deq[t](rb, deq, (int64_t)n);
    for (int p = 0; p < npaths; p++)
      for (int off = 0; off <= 1; off++) {
        w.offset = off;
        snprintf(g_ctx, sizeof g_ctx, "%s dequant-special %s n %zu row %zu offset %d seed %llu",
                 paths[p]->name, fm->name, n, r, off, (unsigned long long)g_seed);
        canary(out, flen);
        sq_ggml_dequantizer(paths[p], t)(off ? (const void *)(in_blocks + 1) : (const void *)rb, n,
                                      out + GUARD + off);
        check(p, t, M_DQSPECIAL, &w, (const unsigned char *)deq, out + off, flen);
      }
  }
  g_ctx[0] = 0;
  free(x); free(imp); free(deq); free(xs); free(imps); free(ref); free(out); free(in_blocks);
  for (size_t i = 0; i <= NIF; i++) free(refimp[i]);
}

/* dequant-long: type t's dequantizers on one long row of random blocks at
** several output offsets. */
static void run_long(int t, int quick, uint64_t case_seed) {
  static const int offs_quick[] = {0, 1, 20, 52};
  int offs[17], noffs = 0;
  if (quick) {
    for (int i = 0; i < 4; i++) offs[noffs++] = offs_quick[i];
  } else {
    offs[noffs++] = 1;
    for (int o = 0; o < 64; o += 4) offs[noffs++] = o;
  }
  const sq_ggml_format *fm = &sq_ggml_formats[t];
  size_t n = (size_t)5 << 18, nb = n / fm->block, qlen = nb * fm->bytes, flen = 4 * n;
  /* out + GUARD on a 64-byte boundary, so that offset o is the output's
  ** alignment */
  unsigned char *blocks = malloc(qlen), *out = aligned_alloc(64, (flen + 64 + 2 * GUARD + 64) / 64 * 64);
  float *deq = malloc(flen);
  if (!blocks || !deq || !out) { perror("malloc"); exit(2); }
  rng_state = case_seed;
  gen_blocks(t, blocks, nb);
  for (size_t k = 0; k < nb; k++)
    if ((rnd64() & 7) == 0) gen_blocks_special(t, blocks + k * fm->bytes, 1);
  g_deq[t](blocks, deq, (int64_t)n);
  where w = {0, 0, NIF, n, 0, case_seed};
  for (int p = 0; p < npaths; p++)
    for (int i = 0; i < noffs; i++) {
      w.offset = offs[i];
      snprintf(g_ctx, sizeof g_ctx, "%s dequant-long %s n %zu offset %d seed %llu",
               paths[p]->name, fm->name, n, offs[i], (unsigned long long)g_seed);
      canary(out, flen + 64);
      sq_ggml_dequantizer(paths[p], t)(blocks, n, out + GUARD + offs[i]);
      check(p, t, M_DQLONG, &w, (const unsigned char *)deq, out + offs[i], flen);
    }
  g_ctx[0] = 0;
  free(blocks); free(out); free(deq);
}

/* ---- --pins: ggml's hashes for tests/kernel_test.c's test_ggml_pins ------
** The same inputs as there (pin_data.h: pin_x, pin_w, pin_blocks, FNV-1a 64
** of the bytes), through ggml: the table test_ggml_pins holds. */

static void print_pins(void) {
  static float x[512], w[512], y[512];
  static unsigned char blk[16 * 256], q[4096];
  for (size_t j = 0; j < 512; j++) { x[j] = pin_x(j); w[j] = pin_w(j); }
  for (int t = 0; t < NT; t++) {
    const sq_ggml_format *f = &sq_ggml_formats[t];
    size_t nb = 512 / f->block, qb = nb * f->bytes;
    pin_blocks(t, nb, blk);
    g_deq[t](blk, y, 512);
    uint64_t dq = pin_fnv((const unsigned char *)y, sizeof y);
    uint64_t qr = 0;   /* 0: ggml quantizes the type only with importance */
    if (g_qref[t]) {
      g_qref[t](x, q, 512);
      qr = pin_fnv(q, qb);
    } else if (!f->needs_importance) {   /* iq1_m: no _ref, NULL importance */
      g_quant[t](x, q, 1, 512, NULL);
      qr = pin_fnv(q, qb);
    }
    g_quant[t](x, q, 1, 512, w);
    uint64_t qi = pin_fnv(q, qb);
    printf("      {\"%s\", 0x%016llxull, 0x%016llxull, 0x%016llxull},\n", f->name,
           (unsigned long long)dq, (unsigned long long)qr, (unsigned long long)qi);
  }
}

/* ---- main ---------------------------------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void usage(void) {
  fprintf(stderr, "usage: ggml_ref_test [--quick] [--seed N] [--rounds N] [--type T] [--path P] [--lib FILE] [-v] | --pins\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *lib = "build/ggml/libggml-base.so";
  const char *only_type = NULL, *only_path = NULL;
  int quick = 0, rounds = -1, have_seed = 0, pins = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--pins")) pins = 1;
    else if (!strcmp(argv[i], "-v")) verbose = 1;
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) { g_seed = strtoull(argv[++i], NULL, 0); have_seed = 1; }
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--type") && i + 1 < argc) only_type = argv[++i];
    else if (!strcmp(argv[i], "--path") && i + 1 < argc) only_path = argv[++i];
    else if (!strcmp(argv[i], "--lib") && i + 1 < argc) lib = argv[++i];
    else usage();
  }
  if (!have_seed) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g_seed = ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    g_seed &= 0xffffffffffffull;   /* short enough to retype */
  }
  if (rounds < 0) rounds = quick ? 4 : 16;

  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "ggml_ref_test: cannot load %s: %s\n(make ggml-lib fetches it)\n", lib, dlerror());
    return 2;
  }
  const char *(*ver)(void) = (const char *(*)(void))dlsym(h, "ggml_version");
  const char *(*com)(void) = (const char *(*)(void))dlsym(h, "ggml_commit");
  void (*qinit)(int) = (void (*)(int))sym(h, "ggml_quantize_init%s", "");
  void (*(*set_abort)(void (*)(const char *)))(const char *) =
      (void (*(*)(void (*)(const char *)))(const char *))sym(h, "ggml_set_abort_callback%s", "");
  set_abort(on_ggml_abort);
  setenv("GGML_NO_BACKTRACE", "1", 1);
  for (int t = 0; t < NT; t++) {
    const char *nm = sq_ggml_formats[t].name;
    qinit(sq_ggml_formats[t].ggml_id);
    if (sq_ggml_prepare((sq_ggml_type)t)) { fprintf(stderr, "ggml_ref_test: out of memory\n"); return 2; }
    g_unweighted_same[t] = t != SQ_GGML_IQ4_NL;
    /* The types ggml quantizes only with importance have no _ref, nor has
    ** iq1_m (its NULL-importance row is checked as quantize-unw). */
    g_qref[t] = sq_ggml_formats[t].needs_importance || t == SQ_GGML_IQ1_M
                    ? NULL : (ggml_qref_fn)sym(h, "quantize_row_%s_ref", nm);
    g_quant[t] = (ggml_quant_fn)sym(h, "quantize_%s", nm);
    g_deq[t] = (ggml_deq_fn)sym(h, "dequantize_row_%s", nm);
  }

  if (pins) {
    print_pins();
    return 0;
  }

  for (const char *const *nm = sq_kernels_available(); *nm; nm++) {
    if (only_path && strcmp(*nm, only_path)) continue;
    if (npaths < MAXPATHS) paths[npaths++] = sq_kernels_by_name(*nm);
  }
  if (!npaths) { fprintf(stderr, "ggml_ref_test: no kernel path %s\n", only_path ? only_path : ""); return 2; }
  int only_t = -1;
  if (only_type) {
    for (int t = 0; t < NT; t++)
      if (!strcmp(sq_ggml_formats[t].name, only_type)) only_t = t;
    if (only_t < 0) { fprintf(stderr, "ggml_ref_test: no type %s\n", only_type); return 2; }
  }

  printf("ggml_ref_test: ggml %s (commit %s) from %s\n", ver ? ver() : "?", com ? com() : "?", lib);
  printf("ggml_ref_test: seed %llu (rerun: --seed %llu%s%s%s%s%s)\npaths:",
         (unsigned long long)g_seed, (unsigned long long)g_seed, quick ? " --quick" : "",
         only_type ? " --type " : "", only_type ? only_type : "",
         only_path ? " --path " : "", only_path ? only_path : "");
  for (int p = 0; p < npaths; p++) printf(" %s", paths[p]->name);
  printf("\n");
  fflush(stdout);

  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
  signal(SIGILL, on_crash);
  signal(SIGABRT, on_crash);

  /* Row lengths: K-quants multiples of 256, legacy types also odd multiples
  ** of 32.  Quick mode keeps the short ones and one long one. */
  /* Other blocks (64, 128): the legacy lengths in blocks. */
  static const size_t len_k_quick[] = {256, 512, 1024};
  static const size_t len_k_full[] = {256, 512, 768, 1280, 4096};
  static const size_t len_l_quick[] = {32, 96, 256, 544};
  static const size_t len_l_full[] = {32, 64, 96, 160, 256, 512, 544, 1024, 4096};
  static const int all_imp[] = {0, 1, 2, 3};
  size_t len_b[9];

  uint64_t case_no = 0;
  for (int round = 0; round < rounds; round++)
    for (int t = 0; t < NT; t++) {
      if (only_t >= 0 && t != only_t) { case_no += 1000; continue; }
      size_t blk = sq_ggml_formats[t].block;
      int kq = blk == 256;
      const size_t *lens = kq ? (quick ? len_k_quick : len_k_full) : (quick ? len_l_quick : len_l_full);
      size_t nlens = kq ? (quick ? 3 : 5) : (quick ? 4 : 9);
      if (!kq && blk != 32) {
        for (size_t li = 0; li < nlens; li++) len_b[li] = lens[li] / 32 * blk;
        lens = len_b;
      }
      for (size_t xf = 0; xf < NXF; xf++)
        for (size_t li = 0; li < nlens; li++) {
          size_t rows = quick ? 2 : 3;
          /* Long rows: one per case is enough. */
          if (lens[li] >= 1024) rows = 1;
          run_case(t, xf, lens[li], rows, mix(g_seed, (uint64_t)round * 100000 + case_no++),
                   all_imp, NIF);
        }
    }

  for (int t = 0; t < NT; t++)
    if (only_t < 0 || t == only_t) run_long(t, quick, mix(g_seed, 900000 + (uint64_t)t));

  /* Report: per path, type and mode. */
  for (int p = 0; p < npaths; p++) {
    unsigned long long pp = 0, pf = 0;
    for (int t = 0; t < NT; t++) {
      if (only_t >= 0 && t != only_t) continue;
      for (int m = 0; m < NMODES; m++) {
        tally *ta = &tallies[p][t][m];
        pp += ta->pass; pf += ta->fail;
        printf("%-7s %-5s %-13s %6llu passed, %6llu failed%s\n", paths[p]->name,
               sq_ggml_formats[t].name, mode_names[m], ta->pass, ta->fail, ta->fail ? ":" : "");
        if (ta->fail) printf("    first mismatch: %s\n", ta->first);
      }
    }
    printf("%s: %llu passed, %llu failed\n", paths[p]->name, pp, pf);
  }
  if (g_fail) printf("ggml_ref_test: seed %llu; rerun with --seed %llu%s%s%s%s%s -v\n",
                     (unsigned long long)g_seed, (unsigned long long)g_seed, quick ? " --quick" : "",
                     only_type ? " --type " : "", only_type ? only_type : "",
                     only_path ? " --path " : "", only_path ? only_path : "");
  printf("ggml: %llu rows not compared (ggml aborted), %llu iq4_nl blocks with "
         "undefined codes in ggml's _ref\n", g_aborted, g_undefined);
  printf("ggml: %llu passed, %llu failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
