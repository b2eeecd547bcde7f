/*
** inflate.c: DEFLATE decoding (RFC 1951; formats/inflate.h).
**
** Bits are read least-significant first from a 64-bit buffer refilled a
** byte at a time (so the code is the same on either byte order).  Huffman
** codes are decoded canonically (RFC 1951 3.2.2): a table indexed by the
** next SQ_INFLATE_FAST bits answers the short codes in one lookup; a
** longer code is found by walking the counts per length, one bit at a time.
**
** Output goes through a 64 KiB circular window: every byte is written at
** `pos` and the pending bytes [flushed, pos) are handed on (CRC, skip,
** copy to out) whenever 32 KiB are pending, so the 32 KiB of history a
** distance may reach are always in the window and never yet overwritten.
** The window holds the last 64 KiB of output, so a request that starts
** inside it is served from there before decoding goes on.
**
** The decoder stops between symbols (or inside a stored block) and keeps
** all it needs in the sq_inflate: the bit buffer and the input position,
** the block it is in (its code tables, or the stored bytes left), the
** window and the running CRC-32.  Each request copies the bit reader and
** the output position into locals and back, so the inner loops work on
** registers as a one-shot decoder would.
*/
#include <string.h>
#include "formats/crc32.h"
#include "formats/inflate.h"

#define WMASK (SQ_INFLATE_WINDOW - 1)
#define HISTORY 32768u

enum { BLOCK_HEADER, BLOCK_STORED, BLOCK_CODES };

typedef struct bit_reader {
  sq_inflate *z;
  const unsigned char *bp;  /* input bytes [bstart, bstart + blen) */
  uint64_t bstart, blen;
  uint64_t n, pos;          /* the stream's size, the next byte to load */
  uint64_t buf;             /* loaded bits, next bit lowest */
  unsigned nbits;
  int err;                  /* the input could not be read (st says why) */
  sq_status *st;
} bit_reader;

/* Makes input byte b->pos one of those at hand: reads the next
** SQ_INFLATE_INPUT bytes from there (only without mem). */
static int fetch(bit_reader *b) {
  sq_inflate *z = b->z;
  uint64_t want = b->n - b->pos < SQ_INFLATE_INPUT ? b->n - b->pos
                                                   : SQ_INFLATE_INPUT;
  if (z->in.read(z->in.ctx, z->in.base + b->pos, z->inbuf, (size_t)want,
                 b->st)) {
    b->err = 1;
    return 1;
  }
  b->bp = z->inbuf;
  b->bstart = b->pos;
  b->blen = want;
  return 0;
}

static int at_hand(const bit_reader *b) {
  return b->pos >= b->bstart && b->pos - b->bstart < b->blen;
}

static void refill(bit_reader *b) {
  while (b->nbits <= 56 && b->pos < b->n) {
    if (!at_hand(b) && fetch(b)) return;
    b->buf |= (uint64_t)b->bp[b->pos - b->bstart] << b->nbits;
    b->pos++;
    b->nbits += 8;
  }
}

/* The next k (<= 16) bits as a number; an error past the end of input. */
static int take(bit_reader *b, unsigned k, unsigned *v, sq_status *st) {
  if (b->nbits < k) {
    refill(b);
    if (b->err) return st->code;
    if (b->nbits < k)
      return sq_fail(st, "deflate: the stream ends inside a block (byte %llu)",
                     (unsigned long long)b->n);
  }
  *v = (unsigned)(b->buf & ((1u << k) - 1));
  b->buf >>= k;
  b->nbits -= k;
  return SQ_OK;
}

static unsigned reverse(unsigned code, unsigned len) {
  unsigned r = 0;
  for (unsigned i = 0; i < len; i++, code >>= 1) r = r << 1 | (code & 1);
  return r;
}

/* Builds h from n code lengths (0..15); returns the unused code space
** (0 complete, > 0 incomplete) or -1 when over-subscribed. */
static int build(sq_huffman *h, const unsigned char *lengths, unsigned n) {
  uint16_t offs[16], next[16];
  memset(h->count, 0, sizeof h->count);
  memset(h->fast, 0, sizeof h->fast);
  for (unsigned s = 0; s < n; s++) h->count[lengths[s]]++;
  h->count[0] = 0;
  h->ncodes = (uint16_t)n;
  for (unsigned s = 0; s < n; s++) h->ncodes -= lengths[s] == 0;
  int left = 1;
  for (unsigned len = 1; len < 16; len++) {
    left <<= 1;
    left -= h->count[len];
    if (left < 0) return -1;
  }
  offs[1] = 0;
  next[1] = 0;
  for (unsigned len = 1; len < 15; len++) {
    offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
    next[len + 1] = (uint16_t)((next[len] + h->count[len]) << 1);
  }
  for (unsigned s = 0; s < n; s++) {
    unsigned len = lengths[s];
    if (!len) continue;
    h->symbol[offs[len]++] = (uint16_t)s;
    unsigned code = next[len]++;
    if (len > SQ_INFLATE_FAST) continue;
    uint16_t entry = (uint16_t)(s << 4 | len);
    for (unsigned i = reverse(code, len); i < (1u << SQ_INFLATE_FAST);
         i += 1u << len)
      h->fast[i] = entry;
  }
  return left;
}

/* One symbol of h, or an error: no such code, or past the end of input. */
static int decode(bit_reader *b, const sq_huffman *h, unsigned *sym,
                  sq_status *st) {
  if (b->nbits < 15) {
    refill(b);
    if (b->err) return st->code;
  }
  uint16_t e = h->fast[b->buf & ((1u << SQ_INFLATE_FAST) - 1)];
  if (e) {
    unsigned len = e & 15;
    if (len > b->nbits) goto truncated;
    b->buf >>= len;
    b->nbits -= len;
    *sym = e >> 4;
    return SQ_OK;
  }
  /* Canonical walk (RFC 1951 3.2.2): codes of each length are consecutive
  ** numbers, first[len] the first of them. */
  {
    unsigned code = 0, first = 0, index = 0;
    for (unsigned len = 1; len < 16; len++) {
      if (len > b->nbits) goto truncated;
      code |= (unsigned)(b->buf >> (len - 1)) & 1;
      unsigned count = h->count[len];
      if (code - first < count) {
        b->buf >>= len;
        b->nbits -= len;
        *sym = h->symbol[index + (code - first)];
        return SQ_OK;
      }
      index += count;
      if (index >= h->ncodes) break;  /* no longer codes: not a code */
      first = (first + count) << 1;
      code <<= 1;
    }
    return sq_fail(st, "deflate: a code at byte %llu is not in the block's "
                       "code set",
                   (unsigned long long)(b->pos - b->nbits / 8));
  }
truncated:
  return sq_fail(st, "deflate: the stream ends inside a block (byte %llu)",
                 (unsigned long long)b->n);
}

/* Where output goes: the window, then [skip, skip + len) of it to out. */
typedef struct sink {
  sq_inflate *z;
  uint64_t pos, flushed;  /* bytes made; bytes handed on */
  uint64_t skip, len;
  unsigned char *out;
  int to_end;
  uint64_t most;          /* with to_end: the most output allowed */
  int over;               /* stopped for making more */
} sink;

/* Hands on [flushed, pos); returns 1 once the decoder may stop. */
static int flush(sink *k) {
  while (k->flushed < k->pos) {
    uint64_t at = k->flushed & WMASK;
    uint64_t m = k->pos - k->flushed;
    if (m > SQ_INFLATE_WINDOW - at) m = SQ_INFLATE_WINDOW - at;
    const unsigned char *p = k->z->window + at;
    k->z->crc = sq_crc32_with(&k->z->crc_tables, k->z->crc, p, m);
    /* The overlap of [flushed, flushed + m) with [skip, skip + len). */
    uint64_t a = k->flushed > k->skip ? k->flushed : k->skip;
    uint64_t e = k->flushed + m, end = k->skip + k->len;
    if (e > end) e = end;
    if (a < e) memcpy(k->out + (a - k->skip), p + (a - k->flushed), e - a);
    k->flushed += m;
  }
  if (k->to_end && k->pos > k->most) {
    k->over = 1;
    return 1;
  }
  return !k->to_end && k->pos >= k->skip + k->len;
}

static int pending_full(const sink *k) {
  return k->pos - k->flushed >= HISTORY;
}

static const uint16_t len_base[29] = {
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
  35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const unsigned char len_extra[29] = {
  0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
  3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
  257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289,
  16385, 24577};
static const unsigned char dist_extra[30] = {
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
  7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The dynamic block header (RFC 1951 3.2.7) into z->lit and z->dist;
** *ndist 0 when the block has no distance codes. */
static int dynamic_tables(bit_reader *b, sq_inflate *z, unsigned *ndist,
                          sq_status *st) {
  static const unsigned char order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                          11, 4, 12, 3, 13, 2, 14, 1, 15};
  unsigned char lengths[286 + 30];
  unsigned hlit, hdist, hclen, v;
  if (take(b, 5, &hlit, st) || take(b, 5, &hdist, st) ||
      take(b, 4, &hclen, st))
    return st->code;
  hlit += 257;
  hdist += 1;
  hclen += 4;
  if (hlit > 286)
    return sq_fail(st, "deflate: a block has %u literal/length codes (at most "
                       "286)", hlit);
  if (hdist > 30)
    return sq_fail(st, "deflate: a block has %u distance codes (at most 30)",
                   hdist);
  memset(lengths, 0, 19);
  for (unsigned i = 0; i < hclen; i++) {
    if (take(b, 3, &v, st)) return st->code;
    lengths[order[i]] = (unsigned char)v;
  }
  int left = build(&z->lens, lengths, 19);
  if (left < 0)
    return sq_fail(st, "deflate: the code length code is over-subscribed");
  if (left > 0)
    return sq_fail(st, "deflate: the code length code is incomplete");
  for (unsigned i = 0; i < hlit + hdist;) {
    unsigned sym, rep, what = 0;
    if (decode(b, &z->lens, &sym, st)) return st->code;
    if (sym < 16) {
      lengths[i++] = (unsigned char)sym;
      continue;
    }
    if (sym == 16) {
      if (i == 0)
        return sq_fail(st, "deflate: code length 16 repeats a length before "
                           "the first");
      what = lengths[i - 1];
      if (take(b, 2, &rep, st)) return st->code;
      rep += 3;
    } else if (sym == 17) {
      if (take(b, 3, &rep, st)) return st->code;
      rep += 3;
    } else {
      if (take(b, 7, &rep, st)) return st->code;
      rep += 11;
    }
    if (rep > hlit + hdist - i)
      return sq_fail(st, "deflate: a code length repeat runs past the %u "
                         "lengths", hlit + hdist);
    memset(lengths + i, (int)what, rep);
    i += rep;
  }
  if (lengths[256] == 0)
    return sq_fail(st, "deflate: a block has no end-of-block code");
  /* Incomplete sets: only the single 1-bit code the RFC describes. */
  left = build(&z->lit, lengths, hlit);
  if (left < 0)
    return sq_fail(st, "deflate: the literal/length code is over-subscribed");
  if (left > 0 && !(z->lit.count[1] == 1 && left == (1 << 14)))
    return sq_fail(st, "deflate: the literal/length code is incomplete");
  left = build(&z->dist, lengths + hlit, hdist);
  if (left < 0)
    return sq_fail(st, "deflate: the distance code is over-subscribed");
  *ndist = (unsigned)(32768 - left);  /* code space used; 0: no codes */
  if (left > 0 && *ndist != 0 &&
      !(z->dist.count[1] == 1 && left == (1 << 14)))
    return sq_fail(st, "deflate: the distance code is incomplete");
  return SQ_OK;
}

static void fixed_tables(sq_inflate *z) {
  unsigned char lengths[288];
  memset(lengths, 8, 144);
  memset(lengths + 144, 9, 112);
  memset(lengths + 256, 7, 24);
  memset(lengths + 280, 8, 8);
  build(&z->lit, lengths, 288);
  memset(lengths, 5, 32);
  build(&z->dist, lengths, 32);
}

/* A stored block's header (RFC 1951 3.2.4): LEN and NLEN from the byte
** boundary; its LEN bytes follow. */
static int stored_header(bit_reader *b, sq_status *st) {
  unsigned drop = b->nbits & 7, len, nlen;
  b->buf >>= drop;
  b->nbits -= drop;
  if (take(b, 16, &len, st) || take(b, 16, &nlen, st)) return st->code;
  if (len != (~nlen & 0xFFFF))
    return sq_fail(st, "deflate: a stored block's length %u does not match "
                       "its complement %u", len, nlen);
  /* Hand back the whole bytes still in the bit buffer. */
  b->pos -= b->nbits / 8;
  b->buf = 0;
  b->nbits = 0;
  if (len > b->n - b->pos)
    return sq_fail(st, "deflate: a stored block of %u bytes at byte %llu runs "
                       "past the %llu-byte stream", len,
                   (unsigned long long)b->pos, (unsigned long long)b->n);
  b->z->stored_left = len;
  return SQ_OK;
}

/* The stored block's bytes left, until they are out or the request is. */
static int stored(bit_reader *b, sink *k, int *stop, sq_status *st) {
  sq_inflate *z = k->z;
  while (z->stored_left) {
    if (!at_hand(b) && fetch(b)) return st->code;
    uint64_t avail = b->blen - (b->pos - b->bstart);
    uint64_t at = k->pos & WMASK;
    uint64_t m = HISTORY - (k->pos - k->flushed);
    if (m > z->stored_left) m = z->stored_left;
    if (m > SQ_INFLATE_WINDOW - at) m = SQ_INFLATE_WINDOW - at;
    if (m > avail) m = avail;
    memcpy(z->window + at, b->bp + (b->pos - b->bstart), (size_t)m);
    b->pos += m;
    k->pos += m;
    z->stored_left -= (unsigned)m;
    if (pending_full(k) && flush(k)) {
      *stop = 1;
      return SQ_OK;
    }
  }
  return SQ_OK;
}

/* The symbols of a Huffman block up to end-of-block (*eob) or until the
** request is out (*stop). */
static int codes(bit_reader *b, sink *k, unsigned ndist, int *stop, int *eob,
                 sq_status *st) {
  sq_inflate *z = k->z;
  unsigned char *w = z->window;
  for (;;) {
    unsigned sym;
    if (decode(b, &z->lit, &sym, st)) return st->code;
    if (sym < 256) {
      w[k->pos++ & WMASK] = (unsigned char)sym;
    } else if (sym == 256) {
      *eob = 1;
      return SQ_OK;
    } else {
      sym -= 257;
      if (sym >= 29)
        return sq_fail(st, "deflate: length symbol %u is not used by "
                           "DEFLATE", sym + 257);
      unsigned e, len, dsym, dist;
      if (take(b, len_extra[sym], &e, st)) return st->code;
      len = len_base[sym] + e;
      if (ndist == 0)
        return sq_fail(st, "deflate: a block with no distance codes uses "
                           "one");
      if (decode(b, &z->dist, &dsym, st)) return st->code;
      if (dsym >= 30)
        return sq_fail(st, "deflate: distance symbol %u is not used by "
                           "DEFLATE", dsym);
      if (take(b, dist_extra[dsym], &e, st)) return st->code;
      dist = dist_base[dsym] + e;
      if (dist > k->pos)
        return sq_fail(st, "deflate: distance %u at output byte %llu reaches "
                           "before the start", dist,
                       (unsigned long long)k->pos);
      uint64_t d = k->pos & WMASK, s = (k->pos - dist) & WMASK;
      if (d + len <= SQ_INFLATE_WINDOW && s + len <= SQ_INFLATE_WINDOW) {
        if (dist >= len) memcpy(w + d, w + s, len);
        else for (unsigned i = 0; i < len; i++) w[d + i] = w[s + i];
      } else {
        for (unsigned i = 0; i < len; i++)
          w[(d + i) & WMASK] = w[(s + i) & WMASK];
      }
      k->pos += len;
    }
    if (pending_full(k) && flush(k)) {
      *stop = 1;
      return SQ_OK;
    }
  }
}

void sq_inflate_begin(sq_inflate *z, const sq_inflate_input *in) {
  z->produced = z->consumed = 0;
  z->crc = 0;
  z->finished = z->overflow = 0;
  z->in = *in;
  z->in_pos = z->bits = 0;
  z->nbits = 0;
  z->in_start = z->in_len = 0;
  z->pos = z->flushed = 0;
  z->block = BLOCK_HEADER;
  z->last = 0;
  z->stored_left = z->ndist = 0;
  z->broken = 0;
  sq_crc32_init(&z->crc_tables);
}

uint64_t sq_inflate_earliest(const sq_inflate *z) {
  if (z->broken) return UINT64_MAX;
  return z->pos > SQ_INFLATE_WINDOW ? z->pos - SQ_INFLATE_WINDOW : 0;
}

/* The next block's header: its type, and its tables or stored length. */
static int block_header(bit_reader *b, sq_inflate *z, sq_status *st) {
  unsigned type, f;
  if (take(b, 1, &f, st) || take(b, 2, &type, st)) return st->code;
  z->last = (int)f;
  if (type == 0) {
    if (stored_header(b, st)) return st->code;
    z->block = BLOCK_STORED;
  } else if (type == 1) {
    fixed_tables(z);
    z->ndist = 30;
    z->block = BLOCK_CODES;
  } else if (type == 2) {
    if (dynamic_tables(b, z, &z->ndist, st)) return st->code;
    z->block = BLOCK_CODES;
  } else {
    return sq_fail(st, "deflate: block type 3 is reserved");
  }
  return SQ_OK;
}

int sq_inflate_read(sq_inflate *z, uint64_t skip, unsigned char *out,
                    uint64_t len, int to_end, uint64_t most, sq_status *st) {
  z->overflow = 0;
  if (skip > UINT64_MAX - len)
    return sq_fail(st, "deflate: output range past 2^64 bytes");
  if (skip < sq_inflate_earliest(z))
    return sq_fail(st, "deflate: output byte %llu is before the decoder's "
                       "window (it must begin again)",
                   (unsigned long long)skip);
  uint64_t end = skip + len;
  if (!to_end && end == 0) return SQ_OK;
  /* What the window holds already: [skip, flushed) was handed on by an
  ** earlier request and is still there (skip >= earliest). */
  if (skip < z->flushed) {
    uint64_t e = end < z->flushed ? end : z->flushed;
    for (uint64_t i = skip; i < e;) {
      uint64_t at = i & WMASK, m = e - i;
      if (m > SQ_INFLATE_WINDOW - at) m = SQ_INFLATE_WINDOW - at;
      memcpy(out + (i - skip), z->window + at, (size_t)m);
      i += m;
    }
  }
  bit_reader b = {z, z->in.mem, 0, z->in.mem ? z->in.n : 0, z->in.n,
                  z->in_pos, z->bits, z->nbits, 0, st};
  if (!z->in.mem) {
    b.bp = z->inbuf;
    b.bstart = z->in_start;
    b.blen = z->in_len;
  }
  sink k = {z, z->pos, z->flushed, skip, len, out, to_end, most, 0};
  int stop = flush(&k), rc = SQ_OK;
  while (!stop && !z->finished) {
    if (z->block == BLOCK_HEADER && (rc = block_header(&b, z, st))) break;
    int eob = 0;
    if (z->block == BLOCK_STORED) {
      if ((rc = stored(&b, &k, &stop, st))) break;
      eob = z->stored_left == 0 && !stop;
    } else {
      if ((rc = codes(&b, &k, z->ndist, &stop, &eob, st))) break;
    }
    if (eob) {
      z->block = BLOCK_HEADER;
      if (z->last) z->finished = 1;
    }
  }
  /* finished: the pending output goes out now. */
  if (!rc && !stop) flush(&k);
  z->in_pos = b.pos;
  z->bits = b.buf;
  z->nbits = b.nbits;
  if (!z->in.mem) {
    z->in_start = b.bstart;
    z->in_len = b.blen;
  }
  z->pos = z->produced = k.pos;
  z->flushed = k.flushed;
  z->consumed = b.pos - b.nbits / 8;
  if (rc) {
    z->broken = 1;
    return st->code ? st->code : rc;
  }
  if (k.over) {
    z->finished = 0;
    z->overflow = 1;
    z->broken = 1;
    return sq_fail(st, "deflate: the stream makes more than %llu bytes",
                   (unsigned long long)most);
  }
  if (k.pos < end)
    return sq_fail(st, "deflate: the stream ends after %llu bytes of output "
                       "(%llu wanted)", (unsigned long long)k.pos,
                   (unsigned long long)end);
  return SQ_OK;
}

int sq_inflate_run(sq_inflate *z, const unsigned char *in, size_t n,
                   uint64_t skip, unsigned char *out, uint64_t len, int to_end,
                   uint64_t most, sq_status *st) {
  sq_inflate_input src = {in, NULL, NULL, 0, n};
  sq_inflate_begin(z, &src);
  return sq_inflate_read(z, skip, out, len, to_end, most, st);
}
