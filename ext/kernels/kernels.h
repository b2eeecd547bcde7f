/*
** kernels.h: the kernel table, the numeric loops of sqlite-quant.
**
** Plain C over pointers and lengths: no SQLite, no allocation, no error
** strings.  Conventions of every path (scalar, AVX2, AVX-512, NEON):
**   - float and code buffers are little-endian and may be unaligned;
**   - results are bit-identical on every path and independent of the host's
**     floating-point rounding mode (docs/NUMERICS.md#determinism);
**   - a kernel never reads or writes outside [ptr, ptr + n elements).
** The table is internal to the extension: it changes as formats are added,
** so it is not exported (see docs/ARCHITECTURE.md#public-interface).
*/
#ifndef SQ_KERNELS_H
#define SQ_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "kernels/ggml.h"
#include "kernels/log2.h"

/* Integer code types that kernels write whole bytes of.  The 4-bit dtypes are
** quantized as SQ_CODE_I8/SQ_CODE_U8 with a 4-bit range and then packed with
** pack4 (element 2i in the low nibble, 2i+1 in the high nibble). */
typedef enum sq_code_type {
  SQ_CODE_I8 = 0,
  SQ_CODE_U8,
  SQ_CODE_I16,
  SQ_CODE_U16,
  SQ_CODE_I32,
  SQ_CODE_NTYPES
} sq_code_type;

/* The float8 code formats (kernels/float8.c, docs/NUMERICS.md#float8-codes):
** codes of one byte that a float32 converts to after the division by the
** scale, with round to nearest even and ONNX's saturate. */
typedef enum sq_f8_format_id {
  SQ_F8_NONE = 0,
  SQ_F8_E4M3FN,
  SQ_F8_E4M3FNUZ,
  SQ_F8_E5M2,
  SQ_F8_E5M2FNUZ,
  SQ_F8_NFORMATS
} sq_f8_format_id;

/* One scale's worth of quantization parameters, prepared by the caller.
**   t = x * inv + add                                        (divide == 0)
**   t = x / scale + add                                      (divide == 1)
**   q = clamp(round_half_even(t), lo, hi) + zp - (int32_t)add
** Normally add = 0, lo = qmin - zp and hi = qmax - zp (exact in float for
** codes up to 16 bits): PyTorch's formula, or ONNX's when dividing.  Under
** rounding=tutorial (codes of at most 16 bits) add = (float)zp, lo = qmin and
** hi = qmax: the zero point is added in float32 before rounding.
** SQ_CODE_I32 instead rounds, adds zp and clamps to [qmin, qmax] in double
** (add is always 0 for it).  Dequantizing always subtracts zp. */
typedef struct sq_qparams {
  float scale;        /* finite, >= FLT_MIN */
  float inv;          /* 1.0f / scale, computed once by the caller */
  float lo, hi;       /* clamp bounds before the zero point is added */
  int32_t zp;
  int32_t qmin, qmax;
  int divide;         /* 0: multiply by inv (PyTorch), 1: divide (ONNX) */
  float add;          /* added before rounding: 0, or zp (rounding=tutorial) */
} sq_qparams;

/* Per-channel parameters for an interleaved layout: a rows x channels matrix,
** row-major, where element (r, c) uses entry c of each array.  Every array
** must be valid whatever `divide` is; 32-bit codes do not read lo, hi and
** add, dequantizing reads only scale and zp.  add holds integers below 2^24
** in magnitude (the vector paths convert it by truncation), and may be
** nonzero only when divide is 1, as rounding=tutorial sets it (the vector
** paths look at add only then). */
typedef struct sq_channel_params {
  size_t channels;
  const float *scale;
  const float *inv;
  const float *lo, *hi;
  const int32_t *zp;
  int32_t qmin, qmax; /* shared by every channel */
  int divide;
  const float *add;   /* per channel, as sq_qparams.add */
} sq_channel_params;

/* Error sums of two float32 tensors a (reference) and b, in double.  Element
** i is accumulated into lane i % SQ_ERROR_LANES and the lanes are added in a
** fixed order, so every path returns the same bits. */
#define SQ_ERROR_LANES 16
typedef struct sq_error_sums {
  double sum_a2;      /* sum a^2 */
  double sum_b2;      /* sum b^2 */
  double sum_ab;      /* sum a*b */
  double sum_d2;      /* sum (a-b)^2 */
  double max_abs_d;   /* max |a-b| */
} sq_error_sums;

/* Error sums still in their lanes, for sums built piece by piece: element i
** of a piece that starts at tensor element `first` goes to lane
** (first + i) % SQ_ERROR_LANES, so the totals equal error_sums over the whole
** tensor bit for bit (docs/NUMERICS.md#metrics).  Start from all zeros. */
typedef struct sq_error_lanes {
  double a2[SQ_ERROR_LANES], b2[SQ_ERROR_LANES], ab[SQ_ERROR_LANES],
      d2[SQ_ERROR_LANES];
  double max_abs_d;
} sq_error_lanes;
/* The lanes totalled in the fixed order error_sums uses. */
void sq_error_lanes_total(const sq_error_lanes *acc, sq_error_sums *out);

typedef struct sq_kernels {
  const char *name;   /* "scalar", "avx2", "avx512", "neon" */

  /* Min and max of n >= 1 floats.  Returns n when every element is finite,
  ** otherwise the index of the first NaN or infinity (*mn, *mx unspecified). */
  size_t (*minmax)(const void *x, size_t n, float *mn, float *mx);

  /* x is rows x channels (row-major).  Folds every row into mn[c], mx[c],
  ** which the caller seeds.  Returns rows*channels when all are finite, else
  ** the flat index of the first non-finite element (mn and mx then hold the
  ** elements before it folded in). */
  size_t (*minmax_interleaved)(const void *x, size_t rows, size_t channels,
                               float *mn, float *mx);

  /* Quantize n floats to codes of one type.  Returns n, or the index of the
  ** first NaN (the output is then unspecified). */
  size_t (*quantize[SQ_CODE_NTYPES])(const void *x, size_t n,
                                     const sq_qparams *p, void *q);
  size_t (*quantize_interleaved[SQ_CODE_NTYPES])(const void *x, size_t rows,
                                                 const sq_channel_params *p,
                                                 void *q);

  /* y = (float)(q - zp) * scale: one float32 rounding, plus one in the
  ** conversion when |q - zp| > 2^24 (32-bit codes only). */
  void (*dequantize[SQ_CODE_NTYPES])(const void *q, size_t n, float scale,
                                     int32_t zp, void *y);
  void (*dequantize_interleaved[SQ_CODE_NTYPES])(const void *q, size_t rows,
                                                 const sq_channel_params *p,
                                                 void *y);

  /* 4-bit packing of 8-bit codes (values already in 4-bit range); an odd n
  ** leaves 0 in the last high nibble.  unpack4 sign-extends when is_signed. */
  void (*pack4)(const void *codes, size_t n, void *packed);
  void (*unpack4)(const void *packed, size_t n, int is_signed, void *codes);

  /* Error sums of b against a (n float32 each): see sq_error_sums.  Inputs
  ** must be finite for the sums to mean anything; callers check. */
  void (*error_sums)(const void *a, const void *b, size_t n, sq_error_sums *out);

  /* Min and max of each of nblocks contiguous blocks of `block` >= 1 floats
  ** (the last may be short: n elements in all).  Returns n, or the index of
  ** the first non-finite element (mn, mx then unspecified). */
  size_t (*minmax_blocks)(const void *x, size_t n, size_t block, float *mn,
                          float *mx);

  /* Half formats: to f32 is exact (NaN made quiet); from f32 rounds to
  ** nearest even, overflow gives inf, NaN stays NaN (quiet). */
  void (*f16_to_f32)(const void *h, size_t n, void *f);
  void (*f32_to_f16)(const void *f, size_t n, void *h);
  void (*bf16_to_f32)(const void *h, size_t n, void *f);
  void (*f32_to_bf16)(const void *f, size_t n, void *h);

  /* float8 codes (kernels/float8.c): q = code(x / scale) under saturate
  ** (NaN in gives the format's NaN: no error), y = value(q) * scale; one
  ** scale per run, or one per column of a rows x channels matrix (il). */
  void (*f8_quantize)(const void *x, size_t n, float scale, int fmt,
                      int saturate, void *q);
  void (*f8_quantize_il)(const void *x, size_t rows, size_t channels,
                         const float *scale, int fmt, int saturate, void *q);
  void (*f8_dequantize)(const void *q, size_t n, float scale, int fmt, void *y);
  void (*f8_dequantize_il)(const void *q, size_t rows, size_t channels,
                           const float *scale, int fmt, void *y);

  /* ggml's block formats (ggml.h). */
  const sq_ggml_kernels *ggml;

  /* torch.histc's binning (docs/NUMERICS.md#calibration, method=histogram)
  ** of n finite floats over [lo, hi], lo < hi, hi - lo finite, into `bins`
  ** (1 <= bins <= 2^20) bins: x counts when lo <= x <= hi, in bin
  ** min((x - lo) * (float)bins / (hi - lo), bins - 1) truncated, every step
  ** in float32.  counts holds SQ_HISTC_COPIES * (bins + 1) zeroed entries
  ** (sub-histograms, so that equal neighbours do not wait on each other's
  ** stores); on return counts[0..bins) hold the totals. */
  void (*histc)(const void *x, size_t n, float lo, float hi, size_t bins,
                uint32_t *counts);
  /* Logarithmic codes (log2.h). */
  const sq_log2_kernels *log2;
  /* Adds a[0..n) against b[0..n) into acc, element i into lane
  ** (lane + i) % SQ_ERROR_LANES (see sq_error_lanes): a scalar head up to
  ** lane 0, whole blocks of 16, a scalar tail. */
  void (*error_lanes)(const void *a, const void *b, size_t n, size_t lane,
                      sq_error_lanes *acc);
} sq_kernels;

#define SQ_HISTC_COPIES 4

/* Path k's ggml kernels for type t: the path's own, or the scalar path's
** where the path has none (ggml.h).  Never NULL. */
sq_ggml_quantize_fn sq_ggml_quantizer(const sq_kernels *k, sq_ggml_type t);
sq_ggml_dequantize_fn sq_ggml_dequantizer(const sq_kernels *k, sq_ggml_type t);
/* Path k's kernel for ggml's quantize_<t>(x, .., NULL), which is what
** llama.cpp's quantizer writes without an imatrix.  It equals
** quantize_row_<t>_ref (sq_ggml_quantizer with importance NULL) for every
** type but iq4_nl (ggml_iq4.c).  Called with importance NULL.  Never
** NULL. */
sq_ggml_quantize_fn sq_ggml_quantizer_unweighted(const sq_kernels *k,
                                                 sq_ggml_type t);
/* Path k's quantizer of type t that checks x as it goes (ggml.h), writing
** sq_ggml_quantizer's bytes, or with `unweighted` set
** sq_ggml_quantizer_unweighted's; NULL when the path has none for it (the
** caller then checks x itself). */
sq_ggml_quantize_checked_fn sq_ggml_checked_quantizer(const sq_kernels *k,
                                                      sq_ggml_type t,
                                                      int unweighted);
/* Builds what type t's quantizer needs once per process (iq3_xxs and
** iq3_s: their lattice, ggml_iq.h), from any thread: 0, or -1 when out of
** memory (nothing is kept; a later call tries again).  Quantizers called
** without it build it themselves and write zero blocks when they cannot. */
int sq_ggml_prepare(sq_ggml_type t);

/* The kernel table chosen at load time: the best the CPU runs, or the one
** named by the environment variable SQLITE_QUANT_KERNEL (capped at what the
** CPU supports). */
const sq_kernels *sq_kernels_active(void);

/* A specific path by name, or NULL when it is not built in or the CPU lacks
** it.  "scalar" always exists. */
const sq_kernels *sq_kernels_by_name(const char *name);

/* Names of every path this build and CPU can run, best last, NULL-terminated. */
const char *const *sq_kernels_available(void);

/* Every name SQLITE_QUANT_KERNEL may hold, NULL-terminated. */
const char *const *sq_kernels_known(void);

/* The value of SQLITE_QUANT_KERNEL when it names no path at all (a typo such
** as "AVX512"), else NULL. */
const char *sq_kernels_bad_request(void);

#endif
