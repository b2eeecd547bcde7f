/*
** inflate.h: a DEFLATE decoder (RFC 1951) that can stop and go on
** (docs/FORMATS.md#npz-compressed-members).
**
** A decoder state is begun on a stream (sq_inflate_begin: the bytes in
** memory, or a function that reads them) and then asked for parts of the
** output in turn (sq_inflate_read): bytes [skip, skip + len) are written to
** out, and the state stays where the request ended, so the next request
** goes on from there.  A request may start anywhere from
** sq_inflate_earliest (the decoder keeps the last 64 KiB of output in its
** window) onwards; one that starts earlier needs the state begun again.
** So reading a stream part by part in order decodes it once, however many
** parts there are; the caller restarts only when it goes back.
**
** Without to_end a request stops as soon as its bytes are written (at most
** 32 KiB past them); with to_end it decodes through the final block, and
** the state's produced, consumed and crc are the output's size, the
** stream's length in bytes and the CRC-32 of all the output (from the
** stream's first byte), so a caller can check a whole member against its
** zip directory entry; a stream that makes more than `most` bytes is then
** an error as soon as that is seen (within 32 KiB of it), so a few bytes
** claiming a small member cannot make the decoder run through gigabytes.
**
** Strict, as the RFC reads: block type 3, a stored block whose NLEN is not
** the complement of LEN, more than 286 literal/length or 30 distance codes,
** over-subscribed code sets, incomplete ones (except the RFC's single
** 1-bit code and a distance code set with no codes at all), a code-length
** repeat with nothing to repeat or running past the lengths, no code for
** end-of-block, the symbols 286, 287, 30 and 31, a distance before the
** start of the output, and a stream that ends inside a block are errors
** ("deflate: ...").  After an error the state must be begun again.
**
** Memory: the sq_inflate the caller provides (about 90 KB: a 64 KiB
** window, a 16 KiB input buffer, the code tables and the CRC-32 tables),
** nothing else; no recursion.
*/
#ifndef SQ_INFLATE_H
#define SQ_INFLATE_H

#include <stddef.h>
#include <stdint.h>
#include "core/status.h"
#include "formats/crc32.h"

#define SQ_INFLATE_WINDOW 65536u  /* twice DEFLATE's 32 KiB history */
#define SQ_INFLATE_FAST 10        /* codes up to this length: one lookup */

typedef struct sq_huffman {
  uint16_t fast[1u << SQ_INFLATE_FAST]; /* symbol << 4 | length; 0: longer */
  uint16_t count[16];                   /* codes of each length */
  uint16_t symbol[288];                 /* symbols in canonical order */
  uint16_t ncodes;                      /* symbols with a code */
} sq_huffman;

#define SQ_INFLATE_INPUT 16384u   /* input read at a time (without mem) */

/* Where the stream's bytes come from: memory, or read(ctx, base + off,
** buf, len, st) for bytes [off, off + len) of the stream. */
typedef struct sq_inflate_input {
  const unsigned char *mem;
  int (*read)(void *ctx, uint64_t off, unsigned char *buf, size_t len,
              sq_status *st);
  void *ctx;
  uint64_t base;
  uint64_t n;                     /* the stream's length */
} sq_inflate_input;

typedef struct sq_inflate {
  /* Results, after each request. */
  uint64_t produced;  /* output bytes decoded so far */
  uint64_t consumed;  /* input bytes used (whole bytes; with `finished`, the
                      ** stream's length) */
  uint32_t crc;       /* the CRC-32 of the output handed on so far (all of
                      ** it once a request went to the end) */
  int finished;       /* the final block was decoded */
  int overflow;       /* with to_end: stopped past `most` bytes */
  /* The decoder's own state, kept from one request to the next. */
  sq_inflate_input in;
  uint64_t in_pos, bits;          /* the next input byte; loaded bits */
  unsigned nbits;
  uint64_t in_start, in_len;      /* inbuf holds these input bytes */
  uint64_t pos, flushed;          /* output made; output handed on */
  int block;                      /* at a block header, in a stored block,
                                  ** in a Huffman block */
  int last;                       /* the current block is the final one */
  unsigned stored_left, ndist;
  int broken;                     /* an error: begin again */
  unsigned char window[SQ_INFLATE_WINDOW];
  sq_huffman lit, dist, lens;
  sq_crc32_tables crc_tables;
  unsigned char inbuf[SQ_INFLATE_INPUT];
} sq_inflate;

/* Begins z on a stream (in is copied; mem or ctx must outlive z's use). */
void sq_inflate_begin(sq_inflate *z, const sq_inflate_input *in);
/* The first output byte a request may start at (UINT64_MAX after an
** error). */
uint64_t sq_inflate_earliest(const sq_inflate *z);
/* Writes bytes [skip, skip + len) of the output to out, going on from
** where z stands (skip >= sq_inflate_earliest(z)).  Returns SQ_OK when they
** were written (and, with to_end, the final block was reached within
** `most` bytes of output); a stream that ends first is an error naming how
** many bytes it made. */
int sq_inflate_read(sq_inflate *z, uint64_t skip, unsigned char *out,
                    uint64_t len, int to_end, uint64_t most, sq_status *st);

/* One request of a fresh state over in[0..n) (begin, then read). */
int sq_inflate_run(sq_inflate *z, const unsigned char *in, size_t n,
                   uint64_t skip, unsigned char *out, uint64_t len, int to_end,
                   uint64_t most, sq_status *st);

#endif
