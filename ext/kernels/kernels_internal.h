/*
** kernels_internal.h: what the kernel files share and the dispatcher needs.
** No SQLite here, no allocation.
*/
#ifndef SQ_KERNELS_INTERNAL_H
#define SQ_KERNELS_INTERNAL_H

#include <string.h>
#include "kernels/byteorder.h"
#include "kernels/kernels.h"

/* Results are identical on every host only if every float operation rounds
** to float32.  gcc in strict ISO mode evaluates float expressions in double
** on s390x (FLT_EVAL_METHOD 1), and x87 code in long double (2): build with
** -fexcess-precision=fast (the Makefile does) or SSE2 maths.  16 (gcc
** targeting AVX512-FP16, e.g. -march=native on such a CPU) is ISO/IEC TS
** 18661-3's "types narrower than _Float16 widen to it": float still rounds
** to float. */
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0 && \
    __FLT_EVAL_METHOD__ != -1 && __FLT_EVAL_METHOD__ != 16
#error "float arithmetic must round to float (FLT_EVAL_METHOD 0): see kernels_internal.h"
#endif

/* ---- what every vector path shares ------------------------------------------ */

/* Kernel bodies are written once per instruction set (once for both x86
** widths where only the width differs: x86_width.h) and specialised by
** always-inlined helpers (the code type, multiply or divide). */
#define SQ_AI static inline __attribute__((always_inline))
/* Round half to even, without raising exceptions (x86 files). */
#define SQ_RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
/* Elements between two non-finite checks in minmax. */
#define SQ_MM_BLOCK 4096
/* Longest widened row for small channel counts (see sq_widen). */
#define SQ_MAXL 256

typedef const unsigned char *sq_cb;   /* read-only bytes of any alignment */
typedef unsigned char *sq_b;          /* writable bytes of any alignment */

/* Bytes per code of each sq_code_type. */
static const size_t sq_esize[SQ_CODE_NTYPES] = {1, 1, 2, 2, 4};

/* For 8/16-bit codes q - zp fits int32 (and converts with the same single
** rounding as scalar's int64 -> float) unless zp is within 65536 of the int32
** limits; such a zero point is outside every small dtype's range anyway, and
** the vector paths send it to scalar. */
static inline int sq_zp_small_ok(int32_t zp) {
  return zp >= INT32_MIN + 65536 && zp <= INT32_MAX - 65536;
}

/* Index of the first NaN or infinity among n floats, or n. */
static inline size_t sq_first_nonfinite(sq_cb p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((sq_load_u32(p + 4 * i) & 0x7f800000u) == 0x7f800000u) return i;
  return n;
}

/* The scalar reference path, always built.  Vector paths reuse its entry
** points for tails and for the shapes they do not specialise. */
extern const sq_kernels sq_kernels_scalar;

/* Scalar element conversions shared by the vector paths' tails. */
float sq_f16_to_f32_scalar(uint16_t h);
uint16_t sq_f32_to_f16_scalar(float f);
float sq_bf16_to_f32_scalar(uint16_t h);
uint16_t sq_f32_to_bf16_scalar(float f);

/* Elements [from, n) of a and b into acc, element i in lane
** (lane + i) % SQ_ERROR_LANES: error_lanes' scalar head and tail. */
void sq_error_lanes_scalar(const void *a, const void *b, size_t from, size_t n,
                           size_t lane, sq_error_lanes *acc);
/* error_lanes' scalar head: the elements before lane 0 (at most n); returns
** how many. */
static inline size_t sq_error_lanes_head(const void *a, const void *b, size_t n,
                                         size_t lane, sq_error_lanes *acc) {
  size_t head = (SQ_ERROR_LANES - lane % SQ_ERROR_LANES) % SQ_ERROR_LANES;
  if (head > n) head = n;
  sq_error_lanes_scalar(a, b, 0, head, lane, acc);
  return head;
}
/* Adds the 16 lanes of one sum in the fixed order every path uses. */
static inline double sq_lanes_total(const double *lane) {
  double s8[8], s4[4];
  for (int i = 0; i < 8; i++) s8[i] = lane[i] + lane[i + 8];
  for (int i = 0; i < 4; i++) s4[i] = s8[i] + s8[i + 4];
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

/* Folds x[i] into (lo, hi) exactly as scalar does; 0 on a non-finite. */
static inline int sq_fold1(sq_cb p, size_t i, int *have, float *lo, float *hi) {
  uint32_t u = sq_load_u32(p + 4 * i);
  if ((u & 0x7f800000u) == 0x7f800000u) return 0;
  float v;
  memcpy(&v, &u, 4);
  if (!*have) {
    *lo = *hi = v;
    *have = 1;
  }
  if (v < *lo) *lo = v;
  if (v > *hi) *hi = v;
  return 1;
}

/* float8 codes (float8.c): one float32's bits to a code and back (exact),
** and the scalar loops every path runs (one scale per run; one per column
** of a rows x channels matrix for the interleaved forms). */
uint8_t sq_f8_encode(uint32_t u, int fmt, int saturate);
/* (The scalar and NEON tables name these f8_*_scalar and f8_*_neon: NEON
** has no float8 kernels of its own; the x86 paths' are float8_x86.h.) */
#define f8_quantize_scalar sq_f8_quantize_scalar
#define f8_quantize_il_scalar sq_f8_quantize_il_scalar
#define f8_dequantize_scalar sq_f8_dequantize_scalar
#define f8_dequantize_il_scalar sq_f8_dequantize_il_scalar
#define f8_quantize_neon sq_f8_quantize_scalar
#define f8_quantize_il_neon sq_f8_quantize_il_scalar
#define f8_dequantize_neon sq_f8_dequantize_scalar
#define f8_dequantize_il_neon sq_f8_dequantize_il_scalar
uint32_t sq_f8_decode(uint8_t c, int fmt);
void sq_f8_quantize_scalar(const void *x, size_t n, float scale, int fmt,
                           int saturate, void *q);
void sq_f8_quantize_il_scalar(const void *x, size_t rows, size_t channels,
                              const float *scale, int fmt, int saturate,
                              void *q);
void sq_f8_dequantize_scalar(const void *q, size_t n, float scale, int fmt,
                             void *y);
void sq_f8_dequantize_il_scalar(const void *q, size_t rows, size_t channels,
                                const float *scale, int fmt, void *y);

/* Each path's ggml block-format kernels (ggml_*.c); a vector path names only
** the types it specialises, the others fall back to the scalar entries
** (sq_ggml_quantizer in ggml_formats.c). */
extern const sq_ggml_kernels sq_ggml_kernels_scalar;
extern const sq_ggml_kernels sq_ggml_kernels_avx2;
extern const sq_ggml_kernels sq_ggml_kernels_avx512;
extern const sq_ggml_kernels sq_ggml_kernels_neon;

/* Each path's histc (histc.c). */
void sq_histc_scalar(const void *x, size_t n, float lo, float hi, size_t bins,
                     uint32_t *counts);
void sq_histc_avx2(const void *x, size_t n, float lo, float hi, size_t bins,
                   uint32_t *counts);
void sq_histc_avx512(const void *x, size_t n, float lo, float hi, size_t bins,
                     uint32_t *counts);
void sq_histc_neon(const void *x, size_t n, float lo, float hi, size_t bins,
                   uint32_t *counts);
/* Each path's log2 code kernels (log2.h; log2_scalar.c, log2_x86_avx2.c,
** log2_arm_neon.c),
** and the scalar interleaved ones the x86 tables reuse. */
size_t sq_log2_quantize_il_scalar(const void *x, size_t rows, size_t channels,
                                  const int32_t *emax, int32_t kmax, void *q);
void sq_log2_dequantize_il_scalar(const void *q, size_t rows, size_t channels,
                                  const int32_t *emax, void *y);
extern const sq_log2_kernels sq_log2_kernels_scalar;
extern const sq_log2_kernels sq_log2_kernels_avx2;
extern const sq_log2_kernels sq_log2_kernels_avx512;
extern const sq_log2_kernels sq_log2_kernels_neon;

/* The kernel table of one path, from its functions' names: each path file
** defines <kernel>_<path> for every entry (8-bit and 16-bit codes quantize
** the same whether signed or not: the range is in the parameters). */
#define SQ_KERNEL_TABLE(P)                                                    \
  {                                                                           \
    .name = #P, .minmax = minmax_##P,                                         \
    .minmax_interleaved = minmax_interleaved_##P,                             \
    .quantize = {quantize_i8_##P, quantize_i8_##P, quantize_i16_##P,          \
                 quantize_i16_##P, quantize_i32_##P},                         \
    .quantize_interleaved = {quantize_i8_il_##P, quantize_i8_il_##P,          \
                             quantize_i16_il_##P, quantize_i16_il_##P,        \
                             quantize_i32_il_##P},                            \
    .dequantize = {dequantize_i8_##P, dequantize_u8_##P, dequantize_i16_##P,  \
                   dequantize_u16_##P, dequantize_i32_##P},                   \
    .dequantize_interleaved = {dequantize_i8_il_##P, dequantize_u8_il_##P,    \
                               dequantize_i16_il_##P, dequantize_u16_il_##P,  \
                               dequantize_i32_il_##P},                        \
    .pack4 = pack4_##P, .unpack4 = unpack4_##P, .error_sums = error_sums_##P, \
    .minmax_blocks = minmax_blocks_##P, .f16_to_f32 = f16_to_f32_##P,         \
    .f32_to_f16 = f32_to_f16_##P, .bf16_to_f32 = bf16_to_f32_##P,             \
    .f32_to_bf16 = f32_to_bf16_##P,                                           \
    .f8_quantize = f8_quantize_##P, .f8_quantize_il = f8_quantize_il_##P,     \
    .f8_dequantize = f8_dequantize_##P,                                       \
    .f8_dequantize_il = f8_dequantize_il_##P,                                 \
    .ggml = &sq_ggml_kernels_##P,                                             \
    .histc = sq_histc_##P,                                                    \
    .log2 = &sq_log2_kernels_##P,                                             \
    .error_lanes = error_lanes_##P,                                           \
  }

/* The per-code entry points of path P around the path's always-inlined
** bodies, so that each body is compiled once for every code type (and, for
** quantize, for multiply and for divide):
**   q_body_P(x, n, p, q, bits, divide, with_add)  quantize with one parameter set
**   qi_entry_P(x, rows, p, q, bits)     quantize a row of groups
** with_add is 0 when add is 0 (every rounding but the tutorial's): the add
** is then left out of the loop, which costs in-cache throughput.
**   dq_body_P(q, n, scale, zp, y, code) dequantize with one parameter set
**   dqi_entry_P(q, rows, p, y, code)    dequantize a row of groups
** (P the path's name: every path's bodies live in one translation unit in
** the amalgamation, sqlite-quant.c). */
#define SQ_QUANTIZE_ENTRY(P, BITS)                                            \
  static size_t quantize_i##BITS##_##P(const void *x, size_t n,               \
                                       const sq_qparams *p, void *q) {        \
    if (p->add != 0.0f)                                                       \
      return p->divide ? q_body_##P(x, n, p, q, BITS, 1, 1)                   \
                       : q_body_##P(x, n, p, q, BITS, 0, 1);                  \
    return p->divide ? q_body_##P(x, n, p, q, BITS, 1, 0)                     \
                     : q_body_##P(x, n, p, q, BITS, 0, 0);                    \
  }
#define SQ_QUANTIZE_IL_ENTRY(P, BITS)                                         \
  static size_t quantize_i##BITS##_il_##P(const void *x, size_t rows,         \
                                          const sq_channel_params *p,         \
                                          void *q) {                          \
    return qi_entry_##P(x, rows, p, q, BITS);                                 \
  }
#define SQ_DEQUANTIZE_ENTRY(P, NAME, CODE)                                    \
  static void dequantize_##NAME##_##P(const void *q, size_t n, float scale,   \
                                      int32_t zp, void *y) {                  \
    dq_body_##P(q, n, scale, zp, y, CODE);                                    \
  }                                                                           \
  static void dequantize_##NAME##_il_##P(const void *q, size_t rows,          \
                                         const sq_channel_params *p,          \
                                         void *y) {                           \
    dqi_entry_##P(q, rows, p, y, CODE);                                       \
  }
/* qi_entry_P and dqi_entry_P around path P's qi_run_P(x, rows, p, q, bits)
** and dqi_body_P(q, rows, p, y, code) for vectors of WIDTH floats: a channel count
** that widens (sq_widen) runs as whole widened rows, then the rows left. */
#define SQ_DEFINE_QI_ENTRY(P, WIDTH)                                          \
  SQ_AI size_t qi_entry_##P(const void *x, size_t rows,                       \
                        const sq_channel_params *p, void *q, int bits) {      \
    sq_cb src = x;                                                            \
    sq_b dst = q;                                                             \
    const size_t es = (size_t)bits / 8, ch = p->channels;                     \
    sq_wide w;                                                                \
    if (!sq_widen(p, rows, WIDTH, &w))                                        \
      return qi_run_##P(src, rows, p, dst, bits);                             \
    size_t vr = rows / w.g, done = vr * w.g;                                  \
    size_t k = qi_run_##P(src, vr, &w.p, dst, bits);                          \
    if (k < vr * w.p.channels) return k;                                      \
    if (done == rows) return rows * ch;                                       \
    return done * ch + qi_run_##P(src + 4 * done * ch, rows - done, p,        \
                                  dst + es * done * ch, bits);                \
  }
#define SQ_DEFINE_DQI_ENTRY(P, WIDTH)                                         \
  SQ_AI void dqi_entry_##P(const void *q, size_t rows,                        \
                       const sq_channel_params *p, void *y, sq_code_type t) { \
    sq_cb src = q;                                                            \
    sq_b dst = y;                                                             \
    sq_wide w;                                                                \
    if (!sq_widen(p, rows, WIDTH, &w)) {                                      \
      dqi_body_##P(src, rows, p, dst, t);                                     \
      return;                                                                 \
    }                                                                         \
    size_t vr = rows / w.g, done = vr * w.g, ch = p->channels;                \
    dqi_body_##P(src, vr, &w.p, dst, t);                                      \
    if (done < rows)                                                          \
      dqi_body_##P(src + sq_esize[t] * done * ch, rows - done, p,             \
                   dst + 4 * done * ch, t);                                   \
  }

#define SQ_QUANTIZE_ENTRIES(P)                                                \
  SQ_QUANTIZE_ENTRY(P, 8) SQ_QUANTIZE_ENTRY(P, 16) SQ_QUANTIZE_ENTRY(P, 32)
#define SQ_QUANTIZE_IL_ENTRIES(P)                                             \
  SQ_QUANTIZE_IL_ENTRY(P, 8) SQ_QUANTIZE_IL_ENTRY(P, 16)                      \
  SQ_QUANTIZE_IL_ENTRY(P, 32)
#define SQ_DEQUANTIZE_ENTRIES(P)                                              \
  SQ_DEQUANTIZE_ENTRY(P, i8, SQ_CODE_I8) SQ_DEQUANTIZE_ENTRY(P, u8, SQ_CODE_U8) \
  SQ_DEQUANTIZE_ENTRY(P, i16, SQ_CODE_I16)                                    \
  SQ_DEQUANTIZE_ENTRY(P, u16, SQ_CODE_U16)                                    \
  SQ_DEQUANTIZE_ENTRY(P, i32, SQ_CODE_I32)

/* ---- common.c: shared, ISA-independent helpers --------------------------- */

/* The first element equal to zero among n finite floats (0.0f if none). */
float sq_first_zero(const void *x, size_t n);
/* Reduces nl lane accumulators of a min (or max) over x[0..n) to the
** scalar path's answer, the first occurrence of the extreme: the lanes
** settle it unless the extreme is zero with signs they cannot order. */
float sq_pick_extreme(const float *lanes, size_t nl, int is_max, const void *x,
                      size_t n);
/* Channels [c, c + k) of p, for the scalar kernels' row tails.  Arrays the
** kernel does not use may be NULL and stay NULL. */
sq_channel_params sq_sub_params(const sq_channel_params *p, size_t c, size_t k);

/* A small channel count that is not a multiple of the vector width is viewed
** as g rows of L = g*channels channels (L a multiple of the width) with its
** parameter arrays repeated g times: the same elements, the same flat
** indices, no per-row tails. */
typedef struct sq_wide {
  float scale[SQ_MAXL], inv[SQ_MAXL], lo[SQ_MAXL], hi[SQ_MAXL], add[SQ_MAXL];
  int32_t zp[SQ_MAXL];
  sq_channel_params p;
  size_t g;
} sq_wide;
/* 1 when p's channels widen for vectors of `width` floats over `rows`. */
int sq_widen(const sq_channel_params *p, size_t rows, size_t width, sq_wide *w);
/* 1 when some channel of p has a nonzero add (rounding=tutorial): the
** interleaved kernels then run their add-before-rounding variant.  They
** look only when p->divide is set (kernels.h: add is 0 unless dividing),
** so the default rounding does not pay for the scan. */
int sq_any_add(const sq_channel_params *p);

#if defined(__aarch64__)
/* The floating-point control register: the NEON paths read its flush and
** rounding bits before taking a vector route. */
static inline uint64_t sq_fpcr(void) {
  uint64_t v;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
  return v;
}
#endif

/* Vector paths.  Each file compiles to nothing on other architectures (and
** with -DSQ_SCALAR_ONLY); dispatch.c references only the ones built. */
extern const sq_kernels sq_kernels_avx2;
extern const sq_kernels sq_kernels_avx512;
extern const sq_kernels sq_kernels_neon;

#endif
