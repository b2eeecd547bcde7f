/*
** bench_ggml.c: ggml's block formats (ext/kernels/ggml.h), every kernel path
** against memcpy and against ggml itself, measured in one run (no SQLite).
**
**   build/bench_ggml [--lib FILE] [--reps N] [--big N] [--small N]
**                    [--kq N] [--budget SEC] [--only TYPE] [--clock cpu|wall]
**   build/bench_ggml [--reps N] --peer TYPE FILE ROWS COLS IMPFILE|-
**
** ggml is dlopen()ed from --lib (default build/ggml/libggml-base.so, put
** there by tests/ggml/fetch_ggml.sh: ggml 0.25.1, commit 0ad4a86, the
** baseline x86-64 build in @node-llama-cpp/linux-x64@3.22.1).  Without it
** the bench still runs and prints "ggml: not present"; its columns are "-".
**
** Sections, for every type and every path sq_kernels_available() lists:
**   (a) dequantize: time / memcpy of the OUTPUT (4n float32 bytes), at --big
**       (default 16M weights, 64 MB of float32: out of cache) and --small
**       (4K weights: in L1/L2); ggml: dequantize_row_<type>.  The blocks
**       are ggml's own quantization of the data (ours when ggml is absent).
**   (b) quantize without importance, the types of blocks below 256 (q4_0
**       q4_1 q5_0 q5_1 q8_0 mxfp4 nvfp4 q1_0 q2_0): time / memcpy of the
**       INPUT (4n bytes), same two sizes, and the speedup over ggml's
**       quantize_row_<type>_ref.
**   (c) quantize without importance, blocks of 256 (q2_K..q6_K, tq1_0,
**       tq2_0, iq3_xxs, iq3_s, iq4_xs, iq1_m): ms per call and
**       speedup over ggml's quantize_row_<type>_ref (iq1_m, which has
**       none: quantize_iq1_m(x, y, rows, 4096, NULL)), at --kq weights
**       (default 1M: these are compute-bound, their time per weight does
**       not depend on the cache).
**   (d) quantize with importance, every type: 256 rows of 4096 weights (the
**       realistic row: some searches depend on the whole row) with one
**       importance weight per column, as llama.cpp's imatrix; ggml:
**       quantize_<type>(x, y, rows, 4096, imatrix).  Informational.
**   (e) with importance / without, every type ggml quantizes both ways, on
**       every path: the same 256 x 4096 rows, the kernel called per row
**       both ways, the two interleaved sample by sample, medians.  A type
**       whose quantizer ignores importance (q8_0, the FP4, ternary and
**       sign types) must come out at 1.0x: importance may not send it to a
**       slower path.
**   (f) after (b), at its sizes, in rows of 4096: the NaN/inf check
**       core/ggml_quant.c makes before quantizing, for the types and paths
**       with a checked kernel (ggml.h): a minmax pass
**       over the tensor then the kernel per row (what 0.3.0 did), and the
**       checked kernel per row (what it does now), each as a ratio to the
**       kernel alone; interleaved, medians (the pass alone cost
**       +33-57%; goal: one pass, ~1.0x).
** --peer TYPE FILE ROWS COLS IMPFILE|- (bench/bench_sql.tcl's peer): only
** times the active path's kernel (SQLITE_QUANT_KERNEL) on the float32 rows
** in FILE, one call per row as core/ggml_quant.c makes them, with the
** importance in IMPFILE (- for none), and prints the median wall-clock
** seconds of --reps calls over all rows.
** Every ggml row carries a byte-identity check of this run's outputs: "yes"
** when every path wrote exactly ggml's bytes, else the paths that did not.
**
** Timing as bench_kernels.c: one thread, outputs touched before timing, a
** warm-up call, then the best of --reps samples (default 7); a sample of a
** small tensor repeats the call until it takes about a millisecond.  A slow
** operation stops after 3 samples once its samples have taken --budget
** seconds (default 2), so that scalar searches do not dominate the run.
** Unlike bench_kernels.c, a sample is timed by this thread's CPU time
** (CLOCK_THREAD_CPUTIME_ID: memory stalls and page faults count, time spent
** descheduled does not), so that other processes on a shared 2-core machine
** do not stretch the 50-100 ms searches, which best-of-N alone cannot
** filter; memcpy is timed the same way.  --clock wall times by the
** wall clock instead; on an idle machine the two agree.  The last line says
** how much of the run's wall time the process actually ran.
** Ratios are of times measured in this run; none is hard-coded.
*/
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kernels.h"

#define NT SQ_GGML_NTYPES
#define MAXP 8
#define ROW 4096          /* (d): weights per row */

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* The samples' clock: this thread's CPU time unless --clock wall. */
static clockid_t g_clock = CLOCK_THREAD_CPUTIME_ID;
static double tick(void) { return clock_s(g_clock); }

/* ---- data: bench_kernels.c's generator ----------------------------------- */

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd32(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 32);
}
static float unif(void) { return (float)(rnd32() >> 8) * 0x1p-24f; }
/* Irwin-Hall: sum of 4 uniforms, centred, about N(0, 1/3) */
static float rnd_normalish(void) {
  float s = 0.0f;
  for (int i = 0; i < 4; i++) s += unif();
  return (s - 2.0f) * 1.7320508f;
}

/* ---- ggml, through dlopen ------------------------------------------------ */

typedef void (*ggml_qref_fn)(const float *x, void *y, int64_t k);
typedef size_t (*ggml_quant_fn)(const float *src, void *dst, int64_t nrow,
                                int64_t n_per_row, const float *imatrix);
typedef void (*ggml_deq_fn)(const void *x, float *y, int64_t k);

static ggml_qref_fn g_qref[NT];
static ggml_quant_fn g_quant[NT];
static ggml_deq_fn g_deq[NT];
static int g_have_ggml;

static void *sym(void *h, const char *fmt, const char *type) {
  char name[64];
  snprintf(name, sizeof name, fmt, type);
  return dlsym(h, name);
}

/* Loads ggml; on any failure prints why and leaves g_have_ggml 0. */
static void load_ggml(const char *lib) {
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("ggml: not present (%s; `make ggml-lib` fetches it)\n", dlerror());
    return;
  }
  for (int t = 0; t < NT; t++) {
    const char *nm = sq_ggml_formats[t].name;
    /* The types ggml quantizes only with importance have no reference
    ** quantizer (they are left out of (b) and (c)); iq1_m has none either,
    ** and its quantization without importance is quantize_iq1_m(.., NULL). */
    g_qref[t] = sq_ggml_formats[t].needs_importance || t == SQ_GGML_IQ1_M
                    ? NULL : (ggml_qref_fn)sym(h, "quantize_row_%s_ref", nm);
    g_quant[t] = (ggml_quant_fn)sym(h, "quantize_%s", nm);
    g_deq[t] = (ggml_deq_fn)sym(h, "dequantize_row_%s", nm);
    if ((!g_qref[t] && !sq_ggml_formats[t].needs_importance && t != SQ_GGML_IQ1_M) ||
        !g_quant[t] || !g_deq[t]) {
      printf("ggml: not present (%s lacks the %s functions)\n", lib, nm);
      return;
    }
  }
  /* The iq3 lattices (ggml's and ours), built before any timing. */
  void (*qinit)(int) = (void (*)(int))dlsym(h, "ggml_quantize_init");
  if (!qinit) {
    printf("ggml: not present (%s lacks ggml_quantize_init)\n", lib);
    return;
  }
  for (int t = 0; t < NT; t++) qinit(sq_ggml_formats[t].ggml_id);
  const char *(*ver)(void) = (const char *(*)(void))dlsym(h, "ggml_version");
  const char *(*com)(void) = (const char *(*)(void))dlsym(h, "ggml_commit");
  printf("ggml: %s, ggml %s (%s), called directly on one thread\n", lib,
         ver ? ver() : "?", com ? com() : "?");
  g_have_ggml = 1;
}

/* ---- timing -------------------------------------------------------------- */

typedef struct job {
  const sq_kernels *k;      /* our path, or NULL for ggml */
  int t;                    /* sq_ggml_type */
  int mode;                 /* J_* */
  size_t n;
  const float *x, *imp;     /* imp: ROW column weights (J_QIMP) */
  const void *blocks;       /* dequantize input */
  void *out;
} job;

enum { J_MEMCPY, J_DEQ, J_QREF, J_QIMP, J_QROWS, J_QMINMAX, J_QCHECKED };

static void run_job(const job *j) {
  const sq_ggml_format *f = &sq_ggml_formats[j->t];
  switch (j->mode) {
  case J_MEMCPY:
    memcpy(j->out, j->x, 4 * j->n);
    break;
  case J_DEQ:
    if (j->k) sq_ggml_dequantizer(j->k, j->t)(j->blocks, j->n, j->out);
    else g_deq[j->t](j->blocks, (float *)j->out, (int64_t)j->n);
    break;
  case J_QREF:
    if (j->k) sq_ggml_quantizer(j->k, j->t)(j->x, j->n, NULL, j->out);
    else if (g_qref[j->t]) g_qref[j->t](j->x, j->out, (int64_t)j->n);
    else g_quant[j->t](j->x, j->out, (int64_t)(j->n / ROW), ROW, NULL);
    break;
  case J_QMINMAX:           /* the NaN/inf check as a pass of its own */
  case J_QCHECKED: {        /* the check on the kernel's own loads */
    size_t rb = ROW / f->block * f->bytes;
    if (j->mode == J_QMINMAX) {
      float mn, mx;
      if (j->k->minmax(j->x, j->n, &mn, &mx) != j->n) abort();
      for (size_t r = 0; r < j->n / ROW; r++)
        sq_ggml_quantizer(j->k, j->t)(j->x + r * ROW, ROW, NULL,
                                      (unsigned char *)j->out + r * rb);
    } else {
      sq_ggml_quantize_checked_fn cf = sq_ggml_checked_quantizer(j->k, j->t, 0);
      for (size_t r = 0; r < j->n / ROW; r++)
        if (cf(j->x + r * ROW, ROW, NULL, (unsigned char *)j->out + r * rb) != ROW)
          abort();
    }
    break;
  }
  case J_QROWS:             /* J_QIMP's calls without importance */
  case J_QIMP:
    if (j->k) {
      const float *imp = j->mode == J_QIMP ? j->imp : NULL;
      size_t rb = ROW / f->block * f->bytes;
      for (size_t r = 0; r < j->n / ROW; r++)
        sq_ggml_quantizer(j->k, j->t)(j->x + r * ROW, ROW, imp,
                                   (unsigned char *)j->out + r * rb);
    } else {
      g_quant[j->t](j->x, j->out, (int64_t)(j->n / ROW), ROW, j->imp);
    }
    break;
  }
}

static int g_reps = 7;
static double g_budget = 2.0;
static double g_start;

/* Best seconds per call; each sample repeats the call enough times to take
** about a millisecond (small tensors). */
static double best_time(const job *j) {
  double t0 = tick();
  run_job(j);                                   /* warm up */
  double first = tick() - t0;
  int inner = first > 1e-3 ? 1 : (int)(1e-3 / (first > 1e-7 ? first : 1e-7)) + 1;
  double best = 1e30, start = now();
  for (int r = 0; r < g_reps; r++) {
    double s = tick();
    for (int i = 0; i < inner; i++) run_job(j);
    double t = (tick() - s) / inner;
    if (t < best) best = t;
    if (r >= 2 && now() - start > g_budget) break;
  }
  return best;
}

/* ---- one section --------------------------------------------------------- */

static const char *g_only;
static const char *const *g_paths;
static int g_np;

static int is_k(int t) { return sq_ggml_formats[t].block == 256; }

/* Buffers for one size; outputs touched so page faults are not timed. */
typedef struct bufs {
  size_t n;
  float *x, *imp;
  unsigned char *ref, *out, *blocks;   /* ggml's output, ours, deq input */
  float *y;
} bufs;

static void *alloc_touched(size_t bytes) {
  void *p = malloc(bytes + 64);
  if (!p) {
    fprintf(stderr, "bench_ggml: out of memory\n");
    exit(1);
  }
  memset(p, 0, bytes + 64);
  return p;
}

static void bufs_init(bufs *b, size_t n) {
  b->n = n;
  b->x = alloc_touched(4 * n);
  b->y = alloc_touched(4 * n);
  b->imp = alloc_touched(4 * ROW);
  b->ref = alloc_touched(4 * n);     /* blocks are smaller than float32 */
  b->out = alloc_touched(4 * n);
  b->blocks = alloc_touched(4 * n);
  for (size_t i = 0; i < n; i++) b->x[i] = rnd_normalish();
  /* imatrix entries: mean squared activations, positive, spread over ~2
  ** decades */
  for (size_t i = 0; i < ROW; i++) {
    float a = 0.1f + 2.0f * unif();
    b->imp[i] = a * a;
  }
}

static void bufs_free(bufs *b) {
  free(b->x), free(b->y), free(b->imp), free(b->ref), free(b->out), free(b->blocks);
}

/* Bytes the operation writes: blocks or float32. */
static size_t out_bytes(int mode, int t, size_t n) {
  const sq_ggml_format *f = &sq_ggml_formats[t];
  return mode == J_DEQ ? 4 * n : n / f->block * f->bytes;
}

typedef struct row_result {
  double ours[MAXP];        /* seconds; < 0: no such kernel */
  double ggml;              /* seconds; < 0: ggml absent */
  char same[64];            /* "yes", "no: avx2,avx512", "-" */
} row_result;

/* Times type t in mode on every path and on ggml, and checks the bytes. */
static void measure(bufs *b, int t, int mode, row_result *r) {
  size_t ob = out_bytes(mode, t, b->n);
  job j = {0};
  j.t = t;
  j.mode = mode;
  j.n = b->n;
  j.x = b->x;
  j.imp = b->imp;
  j.blocks = b->blocks;
  r->ggml = -1.0;
  if (g_have_ggml) {
    j.k = NULL;
    j.out = mode == J_DEQ ? (void *)b->y : (void *)b->ref;
    r->ggml = best_time(&j);
    if (mode == J_DEQ) memcpy(b->ref, b->y, ob);
  }
  int bad = 0;
  strcpy(r->same, g_have_ggml ? "yes" : "-");
  for (int p = 0; p < g_np; p++) {
    j.k = sq_kernels_by_name(g_paths[p]);
    /* Every path runs every type (its own kernel or the scalar one). */
    if (!j.k) {
      r->ours[p] = -1.0;
      continue;
    }
    j.out = mode == J_DEQ ? (void *)b->y : (void *)b->out;
    memset(j.out, 0xA5, ob);
    r->ours[p] = best_time(&j);
    if (g_have_ggml && memcmp(j.out, b->ref, ob) != 0) {
      size_t len = strlen(r->same);
      if (!bad) strcpy(r->same, "no:"), len = 3;
      snprintf(r->same + len, sizeof r->same - len, "%s%s", bad ? "," : " ",
               g_paths[p]);
      bad = 1;
    }
  }
}

static void print_head(const char *left, const char *right) {
  int w = 8 * (g_np + 1);
  printf("%-6s %-*s   %-*s %s\n", "", w, left, w - 1, right, "ours == ggml");
  printf("%-6s", "type");
  for (int p = 0; p < g_np; p++) printf(" %7s", g_paths[p]);
  printf(" %7s  ", "ggml");
  for (int p = 0; p < g_np; p++) printf(" %7s", g_paths[p]);
  printf("\n");
}

static void cell(double v, const char *fmt, int ok) {
  if (ok) printf(fmt, v);
  else printf(" %7s", "-");
}

/* One table.  ratio_base > 0: the left block is time / ratio_base (x memcpy),
** else milliseconds.  The right block is ggml's time / ours. */
static void print_row(int t, const row_result *r, double ratio_base) {
  printf("%-6s", sq_ggml_formats[t].name);
  for (int p = 0; p < g_np; p++) {
    double v = ratio_base > 0 ? r->ours[p] / ratio_base : r->ours[p] * 1e3;
    cell(v, " %7.2f", r->ours[p] >= 0);
  }
  cell(ratio_base > 0 ? r->ggml / ratio_base : r->ggml * 1e3, " %7.2f", r->ggml >= 0);
  printf("  ");
  for (int p = 0; p < g_np; p++) {
    int ok = r->ggml >= 0 && r->ours[p] > 0;
    if (ok) printf(" %6.2fx", r->ggml / r->ours[p]);
    else printf(" %7s", "-");
  }
  printf(" %s\n", r->same);
}

/* The paths a goal applies to: every path but scalar. */
static int goal_path(int p) { return strcmp(g_paths[p], "scalar") != 0; }

/* goal_kind 1: ours / memcpy <= limit; 2: ggml / ours >= limit. */
static void print_goal(row_result *rs, int *types, int nt, int goal_kind,
                       double limit, double base) {
  int met = 0, total = 0;
  char missed[2048] = "";
  size_t len = 0;
  for (int i = 0; i < nt; i++) {
    for (int p = 0; p < g_np; p++) {
      if (!goal_path(p) || rs[i].ours[p] < 0) continue;
      double v;
      int ok;
      if (goal_kind == 1) {
        v = rs[i].ours[p] / base;
        ok = v <= limit;
      } else {
        if (rs[i].ggml < 0) continue;
        v = rs[i].ggml / rs[i].ours[p];
        ok = v >= limit;
      }
      total++;
      if (ok) met++;
      else if (len < sizeof missed - 64)
        len += (size_t)snprintf(missed + len, sizeof missed - len, "%s %s %s %.2f",
                                len ? "," : "", sq_ggml_formats[types[i]].name,
                                g_paths[p], v);
    }
  }
  if (!total) {
    printf("goal: not measured here (no vector path%s)\n",
           goal_kind == 2 ? " or no ggml" : "");
    return;
  }
  printf("goal (%s %.1f%s, every path but scalar): met %d of %d%s%s\n",
         goal_kind == 1 ? "<=" : ">=", limit, goal_kind == 1 ? "x memcpy" : "x ggml",
         met, total, met < total ? "; missed:" : "", missed);
}

static int selected(int t) {
  return !g_only || strcmp(g_only, sq_ggml_formats[t].name) == 0;
}

/* Blocks to dequantize: ggml's reference quantization, else ours (scalar). */
static void make_blocks(bufs *b, int t) {
  if (g_have_ggml && sq_ggml_formats[t].needs_importance && b->n % ROW == 0)
    g_quant[t](b->x, b->blocks, (int64_t)(b->n / ROW), ROW, b->imp);
  else if (g_have_ggml && g_qref[t]) g_qref[t](b->x, b->blocks, (int64_t)b->n);
  else if (g_have_ggml && b->n % ROW == 0)   /* iq1_m: its NULL importance */
    g_quant[t](b->x, b->blocks, (int64_t)(b->n / ROW), ROW, NULL);
  else sq_ggml_quantizer(sq_kernels_by_name("scalar"), t)(b->x, b->n, NULL, b->blocks);
}

static double memcpy_time(bufs *b) {
  job j = {0};
  j.mode = J_MEMCPY;
  j.n = b->n;
  j.x = b->x;
  j.out = b->y;
  return best_time(&j);
}

static void section_check(bufs *b);

static void section_memory(size_t n) {
  bufs b;
  bufs_init(&b, n);
  double tm = memcpy_time(&b);
  double mb = 4.0 * (double)n / 1e6;
  int types[NT], nt;
  row_result rs[NT];

  printf("\n(a) dequantize, %zu weights -> %.3f MB float32: time / memcpy of the "
         "output (memcpy %.2f us, %.2f GB/s); ggml = dequantize_row_<type>\n",
         n, mb, tm * 1e6, mb / 1e3 / tm);
  print_head("x memcpy (lower is better)", "speedup over ggml");
  nt = 0;
  for (int t = 0; t < NT; t++) {
    if (!selected(t)) continue;
    make_blocks(&b, t);
    measure(&b, t, J_DEQ, &rs[nt]);
    print_row(t, &rs[nt], tm);
    types[nt++] = t;
    fflush(stdout);
  }
  print_goal(rs, types, nt, 1, 1.0, tm);

  printf("\n(b) quantize without importance, legacy types, %zu weights (%.3f MB "
         "float32): time / memcpy of the input; ggml = quantize_row_<type>_ref\n",
         n, mb);
  print_head("x memcpy (lower is better)", "speedup over ggml");
  nt = 0;
  for (int t = 0; t < NT; t++) {
    if (!selected(t) || is_k(t)) continue;
    measure(&b, t, J_QREF, &rs[nt]);
    print_row(t, &rs[nt], tm);
    types[nt++] = t;
    fflush(stdout);
  }
  print_goal(rs, types, nt, 1, 1.5, tm);
  if (n >= ROW) section_check(&b);
  bufs_free(&b);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define MAXREPS 64

/* (e): with importance / without, interleaved samples, medians. */
static void section_importance(bufs *b) {
  printf("\n(e) with importance / without, %zu rows of %d weights, the kernel per "
         "row both ways, interleaved, median of %d: 1.00x = importance costs "
         "nothing\n", b->n / ROW, ROW, g_reps);
  printf("%-8s", "type");
  for (int p = 0; p < g_np; p++) printf(" %26s", g_paths[p]);
  printf("   (ms with / without)\n");
  for (int t = 0; t < NT; t++) {
    if (!selected(t) || sq_ggml_formats[t].needs_importance) continue;
    printf("%-8s", sq_ggml_formats[t].name);
    for (int p = 0; p < g_np; p++) {
      job w = {0}, o;
      w.k = sq_kernels_by_name(g_paths[p]);
      w.t = t;
      w.mode = J_QIMP;
      w.n = b->n;
      w.x = b->x;
      w.imp = b->imp;
      w.out = b->out;
      o = w;
      o.mode = J_QROWS;
      run_job(&w), run_job(&o);                 /* warm up */
      double tw[MAXREPS], to[MAXREPS];
      int reps = g_reps < MAXREPS ? g_reps : MAXREPS;
      double start = now();
      int r = 0;
      while (r < reps) {
        double s = tick();
        run_job(&w);
        tw[r] = tick() - s;
        s = tick();
        run_job(&o);
        to[r] = tick() - s;
        r++;
        if (r >= 3 && now() - start > g_budget) break;
      }
      double mw = median(tw, r), mo = median(to, r);
      printf(" %7.2fx (%7.2f/%7.2f)", mw / mo, mw * 1e3, mo * 1e3);
    }
    printf("\n");
    fflush(stdout);
  }
}

/* (f): the finiteness check, as a minmax pass before the kernel and as the
** checked kernel, against the kernel alone; interleaved, medians. */
static void section_check(bufs *b) {
  printf("\n(f) quantize with the NaN/inf check, %zu rows of %d weights (%.3f MB): a minmax pass "
         "then the kernel per row (0.3.0's core), and the checked kernel per row (the "
         "core now), each / the kernel alone; interleaved, median of %d\n",
         b->n / ROW, ROW, 4.0 * (double)b->n / 1e6, g_reps);
  printf("%-8s %-7s %11s %13s %13s %9s\n", "type", "path", "kernel us", "minmax+kernel",
         "checked", "minmax us");
  for (int t = 0; t < NT; t++) {
    if (!selected(t)) continue;
    for (int p = 0; p < g_np; p++) {
      const sq_kernels *k = sq_kernels_by_name(g_paths[p]);
      if (!k || !sq_ggml_checked_quantizer(k, (sq_ggml_type)t, 0)) continue;
      job jb[4] = {{0}};
      for (int m = 0; m < 4; m++) {
        jb[m].k = k;
        jb[m].t = t;
        jb[m].n = b->n;
        jb[m].x = b->x;
        jb[m].out = b->out;
        jb[m].mode = m == 0 ? J_QROWS : m == 1 ? J_QMINMAX : J_QCHECKED;
        run_job(&jb[m]);                        /* warm up */
      }
      double tv[3][MAXREPS], tm[MAXREPS];
      int reps = g_reps < MAXREPS ? g_reps : MAXREPS, r = 0;
      double start = now();
      while (r < reps) {
        for (int m = 0; m < 3; m++) {
          double s0 = tick();
          run_job(&jb[m]);
          tv[m][r] = tick() - s0;
        }
        float mn, mx;
        double s0 = tick();
        k->minmax(b->x, b->n, &mn, &mx);
        tm[r] = tick() - s0;
        r++;
        if (r >= 3 && now() - start > g_budget) break;
      }
      double m0 = median(tv[0], r), m1 = median(tv[1], r), m2 = median(tv[2], r);
      printf("%-8s %-7s %11.1f %12.2fx %12.2fx %9.1f\n", sq_ggml_formats[t].name,
             g_paths[p], m0 * 1e6, m1 / m0, m2 / m0, median(tm, r) * 1e6);
      fflush(stdout);
    }
  }
}

/* --peer: the active path's kernel on FILE's rows (see the top). */
static void *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = n > 0 ? alloc_touched((size_t)n) : NULL;
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) free(p), p = NULL;
  fclose(f);
  *len = p ? (size_t)n : 0;
  return p;
}

static int run_peer(char **a) {
  const char *type = a[0], *file = a[1], *impfile = a[4];
  size_t rows = strtoull(a[2], NULL, 0), cols = strtoull(a[3], NULL, 0), nx, ni = 0;
  int t = -1;
  for (int i = 0; i < NT; i++)
    if (strcmp(sq_ggml_formats[i].name, type) == 0) t = i;
  float *x = read_all(file, &nx), *imp = NULL;
  if (strcmp(impfile, "-") != 0) imp = read_all(impfile, &ni);
  if (t < 0 || !x || nx != 4 * rows * cols || cols % sq_ggml_formats[t].block ||
      (strcmp(impfile, "-") != 0 && ni != 4 * cols) || sq_ggml_prepare((sq_ggml_type)t)) {
    fprintf(stderr, "bench_ggml --peer: bad type, file or sizes\n");
    return 2;
  }
  const sq_kernels *k = sq_kernels_active();
  sq_ggml_quantize_fn fn = sq_ggml_quantizer(k, (sq_ggml_type)t);
  size_t rb = cols / sq_ggml_formats[t].block * sq_ggml_formats[t].bytes;
  unsigned char *out = alloc_touched(rows * rb);
  double v[MAXREPS];
  int reps = g_reps < MAXREPS ? g_reps : MAXREPS;
  for (int r = -1; r < reps; r++) {           /* r = -1: warm up */
    double s = now();
    for (size_t i = 0; i < rows; i++) fn(x + i * cols, cols, imp, out + i * rb);
    if (r >= 0) v[r] = now() - s;
  }
  printf("%.6f\n", median(v, reps));
  free(x), free(imp), free(out);
  return 0;
}

static void section_compute(size_t n) {
  bufs b;
  bufs_init(&b, n);
  int types[NT], nt = 0;
  row_result rs[NT];
  printf("\n(c) K-quant quantize without importance, %zu weights (%.3f MB float32): "
         "ms per call; ggml = quantize_row_<type>_ref (iq1_m: quantize_iq1_m(.., NULL))\n", n, 4.0 * (double)n / 1e6);
  print_head("ms (lower is better)", "speedup over ggml");
  for (int t = 0; t < NT; t++) {
    if (!selected(t) || !is_k(t) || sq_ggml_formats[t].needs_importance) continue;
    measure(&b, t, J_QREF, &rs[nt]);
    print_row(t, &rs[nt], 0);
    types[nt++] = t;
    fflush(stdout);
  }
  print_goal(rs, types, nt, 2, 2.0, 0);

  printf("\n(d) quantize with importance, %zu rows of %d weights, one importance "
         "weight per column: ms per call; ggml = quantize_<type>(x, y, %zu, %d, "
         "imatrix)\n", n / ROW, ROW, n / ROW, ROW);
  print_head("ms (lower is better)", "speedup over ggml");
  for (int t = 0; t < NT; t++) {
    if (!selected(t)) continue;
    measure(&b, t, J_QIMP, &rs[0]);
    print_row(t, &rs[0], 0);
    fflush(stdout);
  }
  section_importance(&b);
  bufs_free(&b);
}

int main(int argc, char **argv) {
  const char *lib = "build/ggml/libggml-base.so";
  size_t big = 16u << 20, small = 4096, kq = 1u << 20;
  char **peer = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc) lib = argv[++i];
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) g_reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--big") == 0 && i + 1 < argc) big = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--small") == 0 && i + 1 < argc) small = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--kq") == 0 && i + 1 < argc) kq = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) g_budget = atof(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) g_only = argv[++i];
    else if (strcmp(argv[i], "--peer") == 0 && i + 5 < argc) peer = argv + i + 1, i += 5;
    else if (strcmp(argv[i], "--clock") == 0 && i + 1 < argc &&
             (!strcmp(argv[i + 1], "cpu") || !strcmp(argv[i + 1], "wall")))
      g_clock = !strcmp(argv[++i], "cpu") ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    else {
      fprintf(stderr, "usage: %s [--lib FILE] [--reps N] [--big N] [--small N] "
                      "[--kq N] [--budget SEC] [--only TYPE] [--clock cpu|wall]\n"
                      "       %s [--reps N] --peer TYPE FILE ROWS COLS IMPFILE|-\n", argv[0], argv[0]);
      return 2;
    }
  }
  if (g_reps < 1) g_reps = 1;
  if (peer) return run_peer(peer);
  g_start = now();
  big = big / ROW * ROW;       /* whole blocks, and whole rows for (d) */
  small = small / 256 * 256;
  kq = kq / ROW * ROW;
  g_paths = sq_kernels_available();
  for (g_np = 0; g_paths[g_np] && g_np < MAXP; g_np++) {}
  printf("sqlite-quant ggml block-format benchmark; paths:");
  for (int p = 0; p < g_np; p++) printf(" %s", g_paths[p]);
  printf(" (active: %s); one thread, best of %d (3 once a row's samples pass "
         "%.0f s), %s\n", sq_kernels_active()->name, g_reps, g_budget,
         g_clock == CLOCK_MONOTONIC ? "wall-clock time"
                                    : "this thread's CPU time (--clock wall for wall-clock)");
  load_ggml(lib);
  for (int t = 0; t < NT; t++)
    if (sq_ggml_prepare((sq_ggml_type)t)) {
      fprintf(stderr, "bench_ggml: out of memory\n");
      return 1;
    }
  if (big) section_memory(big);
  if (small) section_memory(small);
  if (kq) section_compute(kq);
  /* Other processes on the same CPUs stretch wall-clock samples; best-of-N
  ** hides most of it, this says how much there was. */
  struct timespec cpu;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
  double wall = now() - g_start;
  printf("\nthis run: %.1f s wall, %.1f s CPU (%.0f%%: below 100%% other processes "
         "shared the CPU)\n", wall, (double)cpu.tv_sec + (double)cpu.tv_nsec * 1e-9,
         100.0 * ((double)cpu.tv_sec + (double)cpu.tv_nsec * 1e-9) / wall);
  return 0;
}
