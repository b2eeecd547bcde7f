/*
** pin_data.h: the inputs of the ggml pins, shared by tests/kernel_test.c
** (test_ggml_pins: the scalar kernels against a table of hashes) and
** tests/ggml/ggml_ref_test.c (--pins: the same inputs through ggml, which
** prints that table).  One definition, so the two can never drift apart.
**
**   pin_fnv     FNV-1a 64 of bytes (the hash the table holds)
**   pin_x       weights: a spread of values, then an all-zero block, a block
**               of +-1.5 ties, a constant block and values on a .5 grid
**               (integer arithmetic and one correctly rounded division: the
**               same bits on every host)
**   pin_w       importance weights, multiples of 1/4
**   pin_blocks  nb blocks of type t: patterned bytes, fp16 fields finite and
**               varied (written little-endian)
**
** Include after kernels/kernels.h (sq_ggml_formats); every function is
** static, so each test program has its own copy.
*/
#ifndef SQ_TESTS_PIN_DATA_H
#define SQ_TESTS_PIN_DATA_H

#include <stddef.h>
#include <stdint.h>

static uint64_t pin_fnv(const unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static float pin_x(size_t j) {
  uint32_t u = (uint32_t)j * 2654435761u;
  if (j >= 256 && j < 288) return 0.0f;
  if (j >= 288 && j < 320) return (u >> 31) ? 1.5f : -1.5f;
  if (j >= 320 && j < 352) return 0.25f;
  if (j >= 352 && j < 384) return (float)((int)(u >> 27) - 16) * 0.5f;
  return (float)((int)((u >> 12) % 2001u) - 1000) / 997.0f;
}

static float pin_w(size_t j) { return (float)((j * 7u) % 13u) / 4.0f; }

static void pin_blocks(int t, size_t nb, unsigned char *b) {
  size_t by = sq_ggml_formats[t].bytes;
  for (size_t k = 0; k < nb * by; k++) b[k] = (unsigned char)(k * 167u + 13u);
  for (size_t i = 0; i < nb; i++)
    for (int f = 0; f < 2; f++)
      if (sq_ggml_formats[t].fp16[f] >= 0) {
        unsigned h = (0x0400u + 0x3a1u * (unsigned)(i * 2 + (size_t)f)) % 0x7800u;
        if ((i + (size_t)f) & 1) h |= 0x8000u;
        unsigned char *p = b + i * by + (size_t)sq_ggml_formats[t].fp16[f];
        p[0] = (unsigned char)(h & 0xff);
        p[1] = (unsigned char)(h >> 8);
      }
}

#endif
