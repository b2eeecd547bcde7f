/*
** bench_kernels.c: throughput of every kernel path (no SQLite).
**
**   build/bench_kernels [--reps N] [--big N] [--small N] [--only TEXT]
**
** For each path sq_kernels_available() lists, on a big tensor (16M float32,
** 64 MB, normal-ish values) and a small one (4K), each operation's best time
** over N repetitions (default 7).  Columns: GB/s of the float32 side, and the
** time relative to memcpy of the same number of float32 bytes measured in the
** same run (memcpy of the input for quantize/minmax/f32->half, of the output
** for dequantize/half->f32; error_sums reads two float32 tensors, so its
** columns count both, 8 bytes per element, against memcpy of 8n bytes).
** "x memcpy" below 1.0 means faster than copying.
** Outputs are touched before timing so page faults are not measured; small
** tensors repeat the call until a sample takes about a millisecond.
** Last, the CRC-32 paths against zlib (run_crc; --only crc32 for that
** table alone).
*/
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/bnb4.h"
#include "kernels/crc32.h"
#include "kernels/kernels.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd32(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 32);
}
/* Irwin-Hall: sum of 4 uniforms, centred, about N(0, 1/3) */
static float rnd_normalish(void) {
  float s = 0.0f;
  for (int i = 0; i < 4; i++) s += (float)(rnd32() >> 8) * 0x1p-24f;
  return (s - 2.0f) * 1.7320508f;
}

typedef struct ctx {
  const sq_kernels *k;
  size_t n;                       /* elements */
  unsigned char *x, *q, *y, *h;   /* f32 in, codes, f32 out, halves */
  unsigned char *x2;              /* a second f32 input (error_sums): x + 4n */
  unsigned char *bq;              /* bnb4 codes, then the absmax of blocks of 64 */
  float *bmn, *bmx;               /* per-block min/max, n / 8 entries */
  sq_qparams p8, pu8, p8d, p16, p32;
  float f8scale;                 /* float8: amax / 448 */
  sq_channel_params cp;
  sq_channel_params cp4k;         /* 4096 channels: arrays larger than L1 */
  sq_qparams *axis0;              /* per-channel params for the axis-0 loop */
  size_t axis0_ch;
  float mn[256], mx[256];
  volatile size_t sink;
} ctx;

typedef void (*op_fn)(ctx *);

static void op_memcpy(ctx *c) { memcpy(c->y, c->x, 4 * c->n); }
static void op_memcpy8(ctx *c) { memcpy(c->y, c->x, 8 * c->n); }
static void op_error_sums(ctx *c) {
  sq_error_sums e;
  c->k->error_sums(c->x, c->x2, c->n, &e);
  c->sink += (size_t)(e.sum_d2 > 0.0);
}
static void op_mmb32(ctx *c) {
  c->sink += c->k->minmax_blocks(c->x, c->n, 32, c->bmn, c->bmx);
}
static void op_mmb256(ctx *c) {
  c->sink += c->k->minmax_blocks(c->x, c->n, 256, c->bmn, c->bmx);
}
static void op_minmax(ctx *c) {
  float a, b;
  c->sink += c->k->minmax(c->x, c->n, &a, &b);
}
static void op_q8(ctx *c) { c->sink += c->k->quantize[SQ_CODE_I8](c->x, c->n, &c->p8, c->q); }
static void op_qu8(ctx *c) { c->sink += c->k->quantize[SQ_CODE_U8](c->x, c->n, &c->pu8, c->q); }
static void op_q8d(ctx *c) { c->sink += c->k->quantize[SQ_CODE_I8](c->x, c->n, &c->p8d, c->q); }
static void op_q16(ctx *c) { c->sink += c->k->quantize[SQ_CODE_I16](c->x, c->n, &c->p16, c->q); }
static void op_q32(ctx *c) { c->sink += c->k->quantize[SQ_CODE_I32](c->x, c->n, &c->p32, c->q); }
static void op_dq8(ctx *c) { c->k->dequantize[SQ_CODE_I8](c->q, c->n, 0.02f, 3, c->y); }
static void op_dq16(ctx *c) { c->k->dequantize[SQ_CODE_I16](c->q, c->n, 1e-4f, 3, c->y); }
static void op_f2h(ctx *c) { c->k->f32_to_f16(c->x, c->n, c->h); }
static void op_h2f(ctx *c) { c->k->f16_to_f32(c->h, c->n, c->y); }
static void op_f2b(ctx *c) { c->k->f32_to_bf16(c->x, c->n, c->h); }
static void op_b2f(ctx *c) { c->k->bf16_to_f32(c->h, c->n, c->y); }
static void op_qf8(ctx *c) {
  c->k->f8_quantize(c->x, c->n, c->f8scale, SQ_F8_E4M3FN, 1, c->q);
}
static void op_qf8e5(ctx *c) {
  c->k->f8_quantize(c->x, c->n, c->f8scale, SQ_F8_E5M2, 0, c->q);
}
static void op_dqf8(ctx *c) { c->k->f8_dequantize(c->q, c->n, c->f8scale, SQ_F8_E4M3FN, c->y); }
static void op_qilf8(ctx *c) {
  c->k->f8_quantize_il(c->x, c->n / c->cp.channels, c->cp.channels, c->cp.scale,
                       SQ_F8_E4M3FN, 1, c->q);
}
static void op_qil(ctx *c) {
  c->sink += c->k->quantize_interleaved[SQ_CODE_I8](c->x, c->n / c->cp.channels,
                                                    &c->cp, c->q);
}
static void op_qil4k(ctx *c) {
  c->sink += c->k->quantize_interleaved[SQ_CODE_I8](c->x, c->n / c->cp4k.channels,
                                                    &c->cp4k, c->q);
}
static void op_dqil(ctx *c) {
  c->k->dequantize_interleaved[SQ_CODE_I8](c->q, c->n / c->cp.channels, &c->cp, c->y);
}
static void op_mmil(ctx *c) {
  size_t ch = c->cp.channels;
  for (size_t k = 0; k < ch; k++) c->mn[k] = INFINITY, c->mx[k] = -INFINITY;
  c->sink += c->k->minmax_interleaved(c->x, c->n / ch, ch, c->mn, c->mx);
}
static void op_qaxis0(ctx *c) {
  size_t run = c->n / c->axis0_ch;
  for (size_t ch = 0; ch < c->axis0_ch; ch++)
    c->sink += c->k->quantize[SQ_CODE_I8](c->x + 4 * run * ch, run, &c->axis0[ch],
                                          c->q + run * ch);
}

/* bitsandbytes' 4-bit (kernels/bnb4.c, the same code on every path): codes
** at bq, the absmax of the blocks of 64 after them (bq holds x's NF4 before
** the first operation runs). */
static void op_bnb4_nf4(ctx *c) {
  sq_bnb4_quantize(SQ_BNB4_NF4, c->x, c->n, 64, c->bq, c->bq + (c->n + 1) / 2);
}
static void op_bnb4_fp4(ctx *c) {
  sq_bnb4_quantize(SQ_BNB4_FP4, c->x, c->n, 64, c->bq, c->bq + (c->n + 1) / 2);
}
static void op_bnb4_dq(ctx *c) {
  sq_bnb4_dequantize(SQ_BNB4_NF4, c->bq, c->bq + (c->n + 1) / 2, c->n, 64, c->y);
}

typedef struct op {
  const char *name;
  op_fn fn;
  int out_side;      /* 1: the f32 bytes are the output (dequantize, half->f32) */
  int two_inputs;    /* 1: reads two f32 tensors: 8n bytes, memcpy of 8n */
} op;

static const op ops[] = {
    {"minmax", op_minmax, 0, 0},
    {"quantize int8", op_q8, 0, 0},
    {"quantize uint8", op_qu8, 0, 0},
    {"quantize int8 (divide)", op_q8d, 0, 0},
    {"quantize int16", op_q16, 0, 0},
    {"quantize int32", op_q32, 0, 0},
    {"dequantize int8", op_dq8, 1, 0},
    {"dequantize int16", op_dq16, 1, 0},
    {"f32 -> f16", op_f2h, 0, 0},
    {"f16 -> f32", op_h2f, 1, 0},
    {"f32 -> bf16", op_f2b, 0, 0},
    {"bf16 -> f32", op_b2f, 1, 0},
    {"quantize f8_e4m3fn", op_qf8, 0, 0},
    {"quantize f8_e5m2 saturate=0", op_qf8e5, 0, 0},
    {"dequantize f8_e4m3fn", op_dqf8, 1, 0},
    {"quantize_interleaved f8_e4m3fn ch=256", op_qilf8, 0, 0},
    {"quantize_interleaved int8 ch=256", op_qil, 0, 0},
    {"quantize_interleaved int8 ch=4096", op_qil4k, 0, 0},
    {"quantize per-channel axis0 int8 (256 runs)", op_qaxis0, 0, 0},
    {"dequantize_interleaved int8 ch=256", op_dqil, 1, 0},
    {"minmax_interleaved ch=256", op_mmil, 0, 0},
    {"minmax_blocks block=32", op_mmb32, 0, 0},
    {"minmax_blocks block=256", op_mmb256, 0, 0},
    {"error_sums (8n bytes: a and b)", op_error_sums, 0, 1},
    {"bnb4 quantize nf4 block=64", op_bnb4_nf4, 0, 0},
    {"bnb4 quantize fp4 block=64", op_bnb4_fp4, 0, 0},
    {"bnb4 dequantize nf4 block=64", op_bnb4_dq, 1, 0},
};
#define N_OPS (sizeof ops / sizeof ops[0])

/* Best seconds per call over reps samples; each sample repeats the call
** `inner` times. */
static double best_time(op_fn fn, ctx *c, int reps, int inner) {
  double best = 1e30;
  fn(c);                                        /* warm up */
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    for (int i = 0; i < inner; i++) fn(c);
    double t = (now() - t0) / inner;
    if (t < best) best = t;
  }
  return best;
}

static sq_qparams qp(float scale, int32_t zp, int32_t qmin, int32_t qmax, int divide) {
  sq_qparams p;
  p.scale = scale;
  p.inv = 1.0f / scale;
  p.lo = (float)((int64_t)qmin - zp);
  p.hi = (float)((int64_t)qmax - zp);
  p.zp = zp;
  p.qmin = qmin;
  p.qmax = qmax;
  p.divide = divide;
  p.add = 0.0f;
  return p;
}

static const char *g_only;        /* run only operations whose name has this */

static void run_size(size_t n, int reps, const char *const *names) {
  ctx c;
  memset(&c, 0, sizeof c);
  c.n = n;
  c.x = malloc(8 * n + 64);
  c.y = malloc(8 * n + 64);
  c.bmn = malloc(sizeof(float) * (n / 8 + 16));
  c.bmx = malloc(sizeof(float) * (n / 8 + 16));
  c.q = malloc(4 * n + 64);
  c.h = malloc(2 * n + 64);
  c.bq = malloc(n / 2 + n / 16 + 64);
  if (!c.x || !c.y || !c.q || !c.h || !c.bmn || !c.bmx || !c.bq) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < n; i++) {
    float v = rnd_normalish();
    memcpy(c.x + 4 * i, &v, 4);
  }
  /* b: a with a small relative error, like a dequantized copy */
  c.x2 = c.x + 4 * n;
  for (size_t i = 0; i < n; i++) {
    float v;
    memcpy(&v, c.x + 4 * i, 4);
    v *= 1.0f + ((float)(rnd32() >> 8) * 0x1p-24f - 0.5f) * 0.01f;
    memcpy(c.x2 + 4 * i, &v, 4);
  }
  /* touch every output page once */
  memset(c.y, 0, 8 * n + 64);
  memset(c.bmn, 0, sizeof(float) * (n / 8 + 16));
  memset(c.bmx, 0, sizeof(float) * (n / 8 + 16));
  memset(c.q, 0, 4 * n + 64);
  memset(c.h, 0, 2 * n + 64);
  float mn, mx;
  sq_kernels_active()->minmax(c.x, n, &mn, &mx);
  float amax = fmaxf(-mn, mx);
  c.p8 = qp(amax / 127.5f, 0, -128, 127, 0);
  c.pu8 = qp((mx - mn) / 255.0f, (int32_t)lrintf(-mn / ((mx - mn) / 255.0f)), 0, 255, 0);
  c.p8d = qp(amax / 127.5f, 0, -128, 127, 1);
  c.p16 = qp(amax / 32767.5f, 0, -32768, 32767, 0);
  c.p32 = qp(amax / 1e9f, 0, INT32_MIN, INT32_MAX, 0);
  c.f8scale = amax / 448.0f;
  size_t ch = 256;
  float *sc = malloc(4 * ch), *iv = malloc(4 * ch), *lo = malloc(4 * ch),
        *hi = malloc(4 * ch);
  int32_t *zp = malloc(4 * ch);
  float *ad = calloc(ch, 4);        /* sq_channel_params.add: all 0 */
  c.axis0 = malloc(sizeof(sq_qparams) * ch);
  for (size_t k = 0; k < ch; k++) {
    sc[k] = amax / 127.5f * (1.0f + (float)k / 256.0f);
    iv[k] = 1.0f / sc[k];
    zp[k] = 0;
    lo[k] = -128.0f;
    hi[k] = 127.0f;
    c.axis0[k] = qp(sc[k], 0, -128, 127, 0);
  }
  c.cp.channels = ch;
  c.cp.scale = sc;
  c.cp.inv = iv;
  c.cp.lo = lo;
  c.cp.hi = hi;
  c.cp.zp = zp;
  c.cp.add = ad;
  c.cp.qmin = -128;
  c.cp.qmax = 127;
  c.axis0_ch = ch;
  size_t ch4 = 4096;
  float *sc4 = malloc(4 * ch4), *iv4 = malloc(4 * ch4), *lo4 = malloc(4 * ch4),
        *hi4 = malloc(4 * ch4), *ad4 = calloc(ch4, 4);
  int32_t *zp4 = malloc(4 * ch4);
  for (size_t k = 0; k < ch4; k++) {
    sc4[k] = amax / 127.5f * (1.0f + (float)k / 4096.0f);
    iv4[k] = 1.0f / sc4[k];
    zp4[k] = (int32_t)(k % 7) - 3;
    lo4[k] = (float)(-128 - zp4[k]);
    hi4[k] = (float)(127 - zp4[k]);
  }
  c.cp4k = c.cp;
  c.cp4k.channels = ch4;
  c.cp4k.scale = sc4;
  c.cp4k.inv = iv4;
  c.cp4k.lo = lo4;
  c.cp4k.hi = hi4;
  c.cp4k.zp = zp4;
  c.cp4k.add = ad4;
  /* codes and halves for the *->f32 directions */
  sq_kernels_active()->quantize[SQ_CODE_I16](c.x, n, &c.p16, c.q);
  sq_kernels_active()->f32_to_f16(c.x, n, c.h);
  op_bnb4_nf4(&c);

  int inner = n >= (1u << 20) ? 1 : (int)((1u << 22) / n);
  if (inner < 1) inner = 1;
  c.k = sq_kernels_active();
  double tmem = best_time(op_memcpy, &c, reps, inner);
  double tmem8 = best_time(op_memcpy8, &c, reps, inner);
  double mb = 4.0 * (double)n;
  printf("\n%zu float32 (%.3f MB), best of %d%s; memcpy of the same bytes: "
         "%.2f us, %.2f GB/s (of 8n bytes: %.2f us, %.2f GB/s)\n",
         n, mb / 1e6, reps, inner > 1 ? " (each sample repeats the call)" : "",
         tmem * 1e6, mb / tmem / 1e9, tmem8 * 1e6, 2 * mb / tmem8 / 1e9);
  printf("%-44s %-8s %11s %9s %9s\n", "operation", "path", "us", "GB/s", "x memcpy");
  for (size_t o = 0; o < N_OPS; o++) {
    if (g_only && !strstr(ops[o].name, g_only)) continue;
    for (int p = 0; names[p]; p++) {
      c.k = sq_kernels_by_name(names[p]);
      if (!c.k) continue;
      double t = best_time(ops[o].fn, &c, reps, inner);
      double bytes = ops[o].two_inputs ? 2 * mb : mb;
      double ref = ops[o].two_inputs ? tmem8 : tmem;
      printf("%-44s %-8s %11.2f %9.2f %9.2f\n", ops[o].name, names[p], t * 1e6,
             bytes / t / 1e9, t / ref);
    }
  }
  free(c.x), free(c.y), free(c.q), free(c.h), free(c.bmn), free(c.bmx), free(c.bq);
  free(sc), free(iv), free(lo), free(hi), free(zp), free(ad), free(c.axis0);
  free(sc4), free(iv4), free(lo4), free(hi4), free(zp4), free(ad4);
}

/* ---- CRC-32 (kernels/crc32.h) ---------------------------------------------
** Every CRC path and zlib's crc32 (when built with zlib's header:
** SQ_TEST_ZLIB; else memcpy of the same bytes is the peer) on buffers from
** 4 KiB to 64 MiB.
** Unlike the table above, which is best-of, these are medians of per-call
** process CPU time over `reps` rounds, each round timing every path and the
** peer in turn (interleaved, so a slow moment of the machine hits all of
** them alike).  "x peer" is the peer's time over the path's: above 1, faster
** than zlib (or than copying). */
#ifdef SQ_TEST_ZLIB
#include <zlib.h>
#endif

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static volatile uint32_t g_crc_sink;

/* path < 0: the peer. */
static double crc_sample(const sq_crc32_path *p, const unsigned char *b,
                         unsigned char *copy, size_t n, int inner) {
  double t0 = cpu_now();
  for (int i = 0; i < inner; i++) {
    if (p) g_crc_sink += p->crc32(g_crc_sink, b, n);
#ifdef SQ_TEST_ZLIB
    else g_crc_sink += (uint32_t)crc32(g_crc_sink, b, (uInt)n);
#else
    else memcpy(copy, b, n), g_crc_sink += copy[n - 1];
#endif
  }
  (void)copy;
  return (cpu_now() - t0) / inner;
}

static void run_crc(int reps) {
  const char *const *names = sq_crc32_available();
  const sq_crc32_path *cp[8];
  int np = 0;
  for (int i = 0; names[i] && np < 7; i++) cp[np++] = sq_crc32_by_name(names[i]);
#ifdef SQ_TEST_ZLIB
  const char *peer = "zlib";
  printf("\nCRC-32, median CPU time of %d interleaved rounds; peer: zlib %s's crc32\n",
         reps, zlibVersion());
#else
  const char *peer = "memcpy";
  printf("\nCRC-32, median CPU time of %d interleaved rounds; peer: memcpy "
         "(built without zlib's header)\n", reps);
#endif
  printf("%-12s %-8s %11s %9s %9s\n", "bytes", "path", "us", "GB/s", "x peer");
  static const size_t sizes[] = {4096, 65536, 1u << 20, 64u << 20};
  size_t maxn = sizes[sizeof sizes / sizeof sizes[0] - 1];
  unsigned char *b = malloc(maxn), *copy = malloc(maxn);
  double *t = malloc(sizeof(double) * (size_t)reps * (size_t)(np + 1));
  if (!b || !copy || !t) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < maxn; i++) b[i] = (unsigned char)(rnd32() >> 24);
  memset(copy, 0, maxn);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    int inner = n >= (16u << 20) ? 1 : (int)((64u << 20) / n);
    for (int v = 0; v <= np; v++) crc_sample(v < np ? cp[v] : NULL, b, copy, n, 1);
    for (int r = 0; r < reps; r++)
      for (int v = 0; v <= np; v++)
        t[(size_t)v * (size_t)reps + (size_t)r] =
            crc_sample(v < np ? cp[v] : NULL, b, copy, n, inner);
    double med[8];
    for (int v = 0; v <= np; v++) {
      double *tv = t + (size_t)v * (size_t)reps;
      qsort(tv, (size_t)reps, sizeof *tv, cmp_double);
      med[v] = reps % 2 ? tv[reps / 2] : 0.5 * (tv[reps / 2 - 1] + tv[reps / 2]);
    }
    for (int v = 0; v <= np; v++)
      printf("%-12zu %-8s %11.2f %9.2f %9.2f\n", n, v < np ? cp[v]->name : peer,
             med[v] * 1e6, (double)n / med[v] / 1e9, med[np] / med[v]);
  }
  free(b), free(copy), free(t);
}

int main(int argc, char **argv) {
  int reps = 7;
  size_t big = 16u << 20, small = 4096;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--big") == 0 && i + 1 < argc) big = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--small") == 0 && i + 1 < argc) small = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) g_only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--reps N] [--big N] [--small N] [--only TEXT]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  big = big / 256 * 256;
  small = small / 256 * 256;
  const char *const *names = sq_kernels_available();
  printf("sqlite-quant kernel benchmark; paths:");
  for (int i = 0; names[i]; i++) printf(" %s", names[i]);
  printf(" (active: %s)\n", sq_kernels_active()->name);
  if (big) run_size(big, reps, names);
  if (small) run_size(small, reps, names);
  if (!g_only || strstr("crc32", g_only)) run_crc(reps);
  return 0;
}
