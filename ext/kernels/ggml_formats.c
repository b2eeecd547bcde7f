/*
** ggml_formats.c: the ggml block formats' sizes and ids, the scalar path's
** table of their kernels, and the fallback to it (docs/NUMERICS.md#ggml).
**
**   1. the formats and the scalar table are expanded from the catalogue's
**      list (kernels/catalogue.h), so a type has a row and a scalar entry
**      once it is declared there;
**   2. a vector path's table has designated entries for the types it
**      specialises and NULL for the rest; sq_ggml_quantizer and
**      sq_ggml_dequantizer return its entry, else the scalar one, never
**      NULL (tests/kernel_test.c checks every path's entries against the
**      catalogue's list of paths per type).
*/
#include "kernels/ggml_internal.h"
#include "kernels/ggml_iq.h"

/* One row per type of ext/catalogue.toml (kernels/catalogue.h); bytes per
** block are ggml's sizeof(block_<type>) (ggml-common.h). */
#define SQ_GGML_FORMAT(t, T, id, block, bytes, affine, f0, f1, qpaths,        \
                       dqpaths, needs_importance)                             \
  [SQ_GGML_##T] = {#t, id, block, bytes, affine, {f0, f1}, qpaths, dqpaths,    \
                   needs_importance},
const sq_ggml_format sq_ggml_formats[SQ_GGML_NTYPES] = {
  SQ_CATALOGUE_GGML_TYPES(SQ_GGML_FORMAT)
};
#undef SQ_GGML_FORMAT

/* The scalar path has every type's kernels: the reference, and what every
** other path falls back to. */
#define SQ_GGML_ENTRY_Q(t, T, ...) [SQ_GGML_##T] = sq_ggml_quantize_##t,
#define SQ_GGML_ENTRY_DQ(t, T, ...) [SQ_GGML_##T] = sq_ggml_dequantize_##t,
const sq_ggml_kernels sq_ggml_kernels_scalar = {
  .own_quantize = {SQ_CATALOGUE_GGML_TYPES(SQ_GGML_ENTRY_Q)},
  .own_dequantize = {SQ_CATALOGUE_GGML_TYPES(SQ_GGML_ENTRY_DQ)},
};
#undef SQ_GGML_ENTRY_Q
#undef SQ_GGML_ENTRY_DQ

sq_ggml_quantize_fn sq_ggml_quantizer(const sq_kernels *k, sq_ggml_type t) {
  sq_ggml_quantize_fn f = k->ggml->own_quantize[t];
  return f ? f : sq_ggml_kernels_scalar.own_quantize[t];
}

sq_ggml_dequantize_fn sq_ggml_dequantizer(const sq_kernels *k, sq_ggml_type t) {
  sq_ggml_dequantize_fn f = k->ggml->own_dequantize[t];
  return f ? f : sq_ggml_kernels_scalar.own_dequantize[t];
}

sq_ggml_quantize_fn sq_ggml_quantizer_unweighted(const sq_kernels *k,
                                                 sq_ggml_type t) {
  if (t == SQ_GGML_IQ4_NL) return sq_ggml_quantize_iq4_nl_unweighted;
  return sq_ggml_quantizer(k, t);
}

sq_ggml_quantize_checked_fn sq_ggml_checked_quantizer(const sq_kernels *k,
                                                      sq_ggml_type t,
                                                      int unweighted) {
  /* A checked entry is its own_quantize's twin: it serves the unweighted
  ** quantizer only where that is the same kernel (every type but iq4_nl). */
  if (unweighted && sq_ggml_quantizer_unweighted(k, t) != sq_ggml_quantizer(k, t))
    return NULL;
  return k->ggml->own_quantize_checked[t];
}

int sq_ggml_prepare(sq_ggml_type t) {
  if (t == SQ_GGML_IQ3_XXS) return sq_iq3_lattice_get(SQ_IQ3_XXS_GRID) ? 0 : -1;
  if (t == SQ_GGML_IQ3_S) return sq_iq3_lattice_get(SQ_IQ3_S_GRID) ? 0 : -1;
  return 0;
}
