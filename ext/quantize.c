/*
** quantize.c: per-tensor quantize and dequantize over the kernel table.
**
** 4-bit dtypes are quantized with the 8-bit kernels (the range already holds
** the codes to 4 bits) and packed, in chunks small enough to stay in L1, so
** that no tensor-sized temporary is needed.
*/
#include "core.h"
#include "kernels/kernels_internal.h"

#define SQ_CHUNK 4096 /* elements; even, so chunks start on a byte */

int sq_quantize(const sq_kernels *k, const sq_tensor *x, const sq_range *r,
                const sq_qparams *p, void *codes, sq_status *st) {
  const sq_dtype *dt = r->dtype;
  size_t n = x->n, bad = n;
  if (dt->bits != 4) {
    bad = k->quantize[dt->code](x->data, n, p, codes);
  } else {
    unsigned char tmp[SQ_CHUNK];
    for (size_t off = 0; off < n; off += SQ_CHUNK) {
      size_t len = n - off < SQ_CHUNK ? n - off : SQ_CHUNK;
      size_t b = k->quantize[dt->code]((const unsigned char *)x->data + 4 * off,
                                       len, p, tmp);
      if (b < len) {
        bad = off + b;
        break;
      }
      k->pack4(tmp, len, (unsigned char *)codes + off / 2);
    }
  }
  if (bad < n) return sq_fail(st, "element %zu is NaN", bad);
  return SQ_OK;
}

void sq_dequantize(const sq_kernels *k, const void *codes, size_t n,
                   const sq_dtype *dt, float scale, int32_t zp, void *out) {
  if (dt->bits != 4) {
    k->dequantize[dt->code](codes, n, scale, zp, out);
    return;
  }
  unsigned char tmp[SQ_CHUNK];
  for (size_t off = 0; off < n; off += SQ_CHUNK) {
    size_t len = n - off < SQ_CHUNK ? n - off : SQ_CHUNK;
    k->unpack4((const unsigned char *)codes + off / 2, len, dt->is_signed, tmp);
    k->dequantize[dt->code](tmp, len, scale, zp, (unsigned char *)out + 4 * off);
  }
}

/* Codes go through a chunk-sized buffer that stays in cache: one pass over
** the input, one over the output, the same bits as the two-step route. */
int sq_fake_quantize(const sq_kernels *k, const sq_tensor *x, const sq_range *r,
                     const sq_qparams *p, void *out, sq_status *st) {
  const sq_dtype *dt = r->dtype;
  int32_t tmp[SQ_CHUNK];
  for (size_t off = 0; off < x->n; off += SQ_CHUNK) {
    size_t len = x->n - off < SQ_CHUNK ? x->n - off : SQ_CHUNK;
    size_t b = k->quantize[dt->code]((const unsigned char *)x->data + 4 * off,
                                     len, p, tmp);
    if (b < len) return sq_fail(st, "element %zu is NaN", off + b);
    k->dequantize[dt->code](tmp, len, p->scale, p->zp,
                            (unsigned char *)out + 4 * off);
  }
  return SQ_OK;
}
