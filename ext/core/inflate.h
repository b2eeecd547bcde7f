/*
** inflate.h: a DEFLATE decoder (RFC 1951) for data held whole in memory
** (docs/FORMATS.md#npz-compressed-members).
**
** The stream is always decoded from its first bit; the caller says which
** part of the output it wants: bytes [skip, skip + len) are written to out
** and the rest is only passed through the window.  Without to_end the
** decoder stops as soon as those bytes are written; with to_end it decodes
** through the final block and gives the CRC-32 of all the output, the
** output's size and the stream's length in bytes, so a caller can check a
** whole member against its zip directory entry; a stream that makes more
** than `most` bytes is then an error as soon as that is seen (within 32 KiB
** of it), so a few bytes claiming a small member cannot make the decoder
** run through gigabytes.
**
** Strict, as the RFC reads: block type 3, a stored block whose NLEN is not
** the complement of LEN, more than 286 literal/length or 30 distance codes,
** over-subscribed code sets, incomplete ones (except the RFC's single
** 1-bit code and a distance code set with no codes at all), a code-length
** repeat with nothing to repeat or running past the lengths, no code for
** end-of-block, the symbols 286, 287, 30 and 31, a distance before the
** start of the output, and a stream that ends inside a block are errors
** ("deflate: ...").
**
** Memory: the sq_inflate the caller provides (about 75 KB: a 64 KiB
** window, the code tables and the CRC-32 tables), nothing else; no recursion.
*/
#ifndef SQ_INFLATE_H
#define SQ_INFLATE_H

#include <stddef.h>
#include <stdint.h>
#include "core/crc32.h"
#include "core/status.h"

#define SQ_INFLATE_WINDOW 65536u  /* twice DEFLATE's 32 KiB history */
#define SQ_INFLATE_FAST 10        /* codes up to this length: one lookup */

typedef struct sq_huffman {
  uint16_t fast[1u << SQ_INFLATE_FAST]; /* symbol << 4 | length; 0: longer */
  uint16_t count[16];                   /* codes of each length */
  uint16_t symbol[288];                 /* symbols in canonical order */
  uint16_t ncodes;                      /* symbols with a code */
} sq_huffman;

typedef struct sq_inflate {
  /* Results of the last sq_inflate_run. */
  uint64_t produced;  /* output bytes decoded */
  uint64_t consumed;  /* input bytes used (whole bytes; with `finished`, the
                      ** stream's length) */
  uint32_t crc;       /* with to_end: the CRC-32 of all the output */
  int finished;       /* the final block was decoded */
  int overflow;       /* with to_end: stopped past `most` bytes */
  /* The decoder's own state. */
  unsigned char window[SQ_INFLATE_WINDOW];
  sq_huffman lit, dist, lens;
  sq_crc32_tables crc_tables;  /* built when a run goes to the end */
} sq_inflate;

/* Decodes in[0..n) as above.  Returns SQ_OK when bytes [skip, skip + len)
** were written (and, with to_end, the final block was reached within
** `most` bytes of output); a stream that ends first is an error naming how
** many bytes it made. */
int sq_inflate_run(sq_inflate *z, const unsigned char *in, size_t n,
                   uint64_t skip, unsigned char *out, uint64_t len, int to_end,
                   uint64_t most, sq_status *st);

#endif
