/*
** inflate.c: DEFLATE decoding (RFC 1951; core/inflate.h).
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
*/
#include <string.h>
#include "core/inflate.h"
#include "core/crc32.h"

#define WMASK (SQ_INFLATE_WINDOW - 1)
#define HISTORY 32768u

typedef struct bit_reader {
  const unsigned char *in;
  size_t n, pos;    /* input, its size, the next byte to load */
  uint64_t buf;     /* loaded bits, next bit lowest */
  unsigned nbits;
} bit_reader;

static void refill(bit_reader *b) {
  while (b->nbits <= 56 && b->pos < b->n) {
    b->buf |= (uint64_t)b->in[b->pos++] << b->nbits;
    b->nbits += 8;
  }
}

/* The next k (<= 16) bits as a number; an error past the end of input. */
static int take(bit_reader *b, unsigned k, unsigned *v, sq_status *st) {
  if (b->nbits < k) {
    refill(b);
    if (b->nbits < k)
      return sq_fail(st, "deflate: the stream ends inside a block (byte %zu)",
                     b->n);
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
  if (b->nbits < 15) refill(b);
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
    return sq_fail(st, "deflate: a code at byte %zu is not in the block's "
                       "code set", b->pos - b->nbits / 8);
  }
truncated:
  return sq_fail(st, "deflate: the stream ends inside a block (byte %zu)",
                 b->n);
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
    if (k->to_end) k->z->crc = sq_crc32_with(&k->z->crc_tables, k->z->crc, p, m);
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

/* A stored block (RFC 1951 3.2.4): LEN bytes from the byte boundary. */
static int stored(bit_reader *b, sink *k, int *stop, sq_status *st) {
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
    return sq_fail(st, "deflate: a stored block of %u bytes at byte %zu runs "
                       "past the %zu-byte stream", len, b->pos, b->n);
  while (len) {
    uint64_t at = k->pos & WMASK;
    uint64_t m = HISTORY - (k->pos - k->flushed);
    if (m > len) m = len;
    if (m > SQ_INFLATE_WINDOW - at) m = SQ_INFLATE_WINDOW - at;
    memcpy(k->z->window + at, b->in + b->pos, m);
    b->pos += m;
    k->pos += m;
    len -= (unsigned)m;
    if (pending_full(k) && flush(k)) {
      *stop = 1;
      return SQ_OK;
    }
  }
  return SQ_OK;
}

/* The symbols of a Huffman block up to end-of-block. */
static int codes(bit_reader *b, sink *k, unsigned ndist, int *stop,
                 sq_status *st) {
  sq_inflate *z = k->z;
  unsigned char *w = z->window;
  for (;;) {
    unsigned sym;
    if (decode(b, &z->lit, &sym, st)) return st->code;
    if (sym < 256) {
      w[k->pos++ & WMASK] = (unsigned char)sym;
    } else if (sym == 256) {
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

int sq_inflate_run(sq_inflate *z, const unsigned char *in, size_t n,
                   uint64_t skip, unsigned char *out, uint64_t len, int to_end,
                   uint64_t most, sq_status *st) {
  bit_reader b = {in, n, 0, 0, 0};
  sink k = {z, 0, 0, skip, len, out, to_end, most, 0};
  int final = 0, stop = 0;
  z->produced = z->consumed = 0;
  z->crc = 0;
  z->finished = 0;
  z->overflow = 0;
  if (skip > UINT64_MAX - len)
    return sq_fail(st, "deflate: output range past 2^64 bytes");
  if (!to_end && skip + len == 0) return SQ_OK;
  if (to_end) sq_crc32_init(&z->crc_tables);
  while (!final && !stop) {
    unsigned type, f;
    if (take(&b, 1, &f, st) || take(&b, 2, &type, st)) return st->code;
    final = (int)f;
    if (type == 0) {
      if (stored(&b, &k, &stop, st)) return st->code;
    } else if (type == 1) {
      fixed_tables(z);
      if (codes(&b, &k, 30, &stop, st)) return st->code;
    } else if (type == 2) {
      unsigned ndist = 0;
      if (dynamic_tables(&b, z, &ndist, st) ||
          codes(&b, &k, ndist, &stop, st))
        return st->code;
    } else {
      return sq_fail(st, "deflate: block type 3 is reserved");
    }
  }
  /* stop: the wanted bytes are out, possibly in the middle of a block. */
  z->finished = final && !stop;
  if (!stop) flush(&k);
  z->produced = k.pos;
  z->consumed = b.pos - b.nbits / 8;
  if (k.over) {
    z->finished = 0;
    z->overflow = 1;
    return sq_fail(st, "deflate: the stream makes more than %llu bytes",
                   (unsigned long long)most);
  }
  if (k.pos < skip + len)
    return sq_fail(st, "deflate: the stream ends after %llu bytes of output "
                       "(%llu wanted)", (unsigned long long)k.pos,
                   (unsigned long long)(skip + len));
  return SQ_OK;
}
