/*
** inflate_core_test.c: the DEFLATE decoder (ext/formats/inflate.c) under
** ASan + UBSan.
**
**   build/asan/inflate_core_test [tests/data/inflate]
**
** 1. Hand-made streams, written bit by bit here from RFC 1951: every block
**    type, the code sets the RFC allows (a single 1-bit code, no distance
**    codes) and each invalid case the decoder refuses, with its exact
**    message.
** 2. zlib's own streams (tests/gen_npz.py: text, random bytes, float32,
**    zeros, empty; levels 0, 1, 9 and fixed codes only): decoded whole with
**    the CRC-32 and the stream's length checked, then in ranges (skip and
**    limit), each into an exact-size buffer so a write past it is seen.
** 3. Every prefix and every byte of a stream changed: decoded or refused
**    with a "deflate: " message, never a crash.
** Prints failures, then "N passed, N failed"; exit status 1 on any failure.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/crc32.h"
#include "formats/inflate.h"
#include "core_test.h"

static const char *g_dir = "tests/data/inflate";
static sq_inflate *g_z;

/* ---- a bit writer: values least-significant bit first, Huffman codes
** most-significant bit first (RFC 1951 3.1.1) ---------------------------- */
typedef struct bw {
  unsigned char b[512];
  size_t n;
  unsigned bit;
} bw;

static void put(bw *w, unsigned v, unsigned k) {
  for (unsigned i = 0; i < k; i++) {
    if (w->bit == 0) w->b[w->n++] = 0;
    w->b[w->n - 1] |= (unsigned char)(((v >> i) & 1) << w->bit);
    w->bit = (w->bit + 1) & 7;
  }
}

static void put_code(bw *w, unsigned code, unsigned len) {
  for (unsigned i = len; i-- > 0;) put(w, (code >> i) & 1, 1);
}

static void align(bw *w) { w->bit = 0; }

/* Canonical codes of n lengths (RFC 1951 3.2.2). */
static void canon(const unsigned char *len, unsigned n, unsigned *code) {
  unsigned count[16] = {0}, next[16];
  for (unsigned i = 0; i < n; i++) count[len[i]]++;
  count[0] = 0;
  unsigned c = 0;
  for (unsigned b = 1; b < 16; b++) {
    c = (c + count[b - 1]) << 1;
    next[b] = c;
  }
  for (unsigned i = 0; i < n; i++)
    if (len[i]) code[i] = next[len[i]]++;
}

/* The code-length code used below: symbols 0..12 4 bits, 13..18 5 bits
** (complete: 13/16 + 6/32). */
static const unsigned char cl_len[19] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                                         5, 5, 5, 5, 5, 5};
static const unsigned char cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                           11, 4, 12, 3, 13, 2, 14, 1, 15};

/* A dynamic block header: HLIT, HDIST, the code-length code of cl[] (all 19
** lengths sent), then `seq`: code-length symbols, each 16/17/18 followed by
** its extra-bits value. */
static void dyn_header(bw *w, int final, unsigned hlit, unsigned hdist,
                       const unsigned char *cl, const int *seq, int nseq) {
  unsigned code[19];
  canon(cl, 19, code);
  put(w, (unsigned)final, 1);
  put(w, 2, 2);
  put(w, hlit - 257, 5);
  put(w, hdist - 1, 5);
  put(w, 19 - 4, 4);
  for (int i = 0; i < 19; i++) put(w, cl[cl_order[i]], 3);
  for (int i = 0; i < nseq; i++) {
    int s = seq[i];
    put_code(w, code[s], cl[s]);
    if (s == 16) put(w, (unsigned)seq[++i], 2);
    else if (s == 17) put(w, (unsigned)seq[++i], 3);
    else if (s == 18) put(w, (unsigned)seq[++i], 7);
  }
}

/* Sends hlit + hdist lengths literally (no repeats). */
static void dyn_lengths(bw *w, int final, const unsigned char *lit,
                        unsigned hlit, const unsigned char *dist,
                        unsigned hdist) {
  int seq[316];
  int k = 0;
  for (unsigned i = 0; i < hlit; i++) seq[k++] = lit[i];
  for (unsigned i = 0; i < hdist; i++) seq[k++] = dist[i];
  dyn_header(w, final, hlit, hdist, cl_len, seq, k);
}

/* Decodes w's bytes whole; checks the output or the error message. */
static void expect(const char *what, const bw *w, const char *out,
                   size_t outn, const char *msg) {
  unsigned char *in = malloc(w->n ? w->n : 1);
  memcpy(in, w->b, w->n);
  unsigned char *buf = malloc(outn ? outn : 1);
  sq_status st = fresh_status();
  int rc = sq_inflate_run(g_z, in, w->n, 0, buf, outn, 1, UINT64_MAX, &st);
  if (msg)
    check(rc == SQ_INVALID && strcmp(st.msg, msg) == 0,
          "%s: rc %d\n    got:  %s\n    want: %s", what, rc, st.msg, msg);
  else
    check(rc == SQ_OK && g_z->produced == outn && g_z->finished &&
              g_z->consumed == w->n && memcmp(buf, out, outn) == 0,
          "%s: rc %d (%s) produced %llu consumed %llu of %zu", what, rc,
          st.msg, (unsigned long long)g_z->produced,
          (unsigned long long)g_z->consumed, w->n);
  free(buf);
  free(in);
}

/* Fixed codes: literal 0..143 8 bits from 0x30, 256..279 7 bits from 0,
** 280..287 8 bits from 0xC0; distances 5 bits. */
static void fixed_lit(bw *w, unsigned sym) {
  if (sym < 144) put_code(w, 0x30 + sym, 8);
  else if (sym < 256) put_code(w, 0x190 + sym - 144, 9);
  else if (sym < 280) put_code(w, sym - 256, 7);
  else put_code(w, 0xC0 + sym - 280, 8);
}

static void test_hand_made(void) {
  bw w;
  /* stored: "hello", then a second, final, empty stored block */
  memset(&w, 0, sizeof w);
  put(&w, 0, 1);
  put(&w, 0, 2);
  align(&w);
  put(&w, 5, 16);
  put(&w, 0xFFFF ^ 5, 16);
  memcpy(w.b + w.n, "hello", 5);
  w.n += 5;
  put(&w, 1, 1);
  put(&w, 0, 2);
  align(&w);
  put(&w, 0, 16);
  put(&w, 0xFFFF, 16);
  expect("stored", &w, "hello", 5, NULL);

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 0, 2);
  align(&w);
  put(&w, 5, 16);
  put(&w, 5, 16);
  expect("stored NLEN", &w, "", 0,
         "deflate: a stored block's length 5 does not match its complement 5");

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 0, 2);
  align(&w);
  put(&w, 10, 16);
  put(&w, 0xFFFF ^ 10, 16);
  memcpy(w.b + w.n, "hello", 5);
  w.n += 5;
  expect("stored past the end", &w, "", 0,
         "deflate: a stored block of 10 bytes at byte 5 runs past the "
         "10-byte stream");

  /* fixed: 'a', then length 3 at distance 1: "aaaa"; literal 200 (9 bits) */
  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 'a');
  fixed_lit(&w, 257);
  put_code(&w, 0, 5);
  fixed_lit(&w, 200);
  fixed_lit(&w, 256);
  expect("fixed", &w, "aaaa\xc8", 5, NULL);

  /* the longest match, 258 (symbol 285), at distance 1 */
  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 'z');
  fixed_lit(&w, 285);
  put_code(&w, 0, 5);
  fixed_lit(&w, 256);
  {
    char want[259];
    memset(want, 'z', sizeof want);
    expect("fixed 258", &w, want, 259, NULL);
  }

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 257);
  put_code(&w, 0, 5);
  expect("distance before the start", &w, "", 0,
         "deflate: distance 1 at output byte 0 reaches before the start");

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 'a');
  fixed_lit(&w, 'b');
  fixed_lit(&w, 257);
  put_code(&w, 2, 5);  /* distance 3, 2 bytes made */
  expect("distance 3 after 2 bytes", &w, "", 0,
         "deflate: distance 3 at output byte 2 reaches before the start");

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 286);
  expect("symbol 286", &w, "", 0,
         "deflate: length symbol 286 is not used by DEFLATE");

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 287);
  expect("symbol 287", &w, "", 0,
         "deflate: length symbol 287 is not used by DEFLATE");

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 'a');
  fixed_lit(&w, 257);
  put_code(&w, 30, 5);
  expect("distance symbol 30", &w, "", 0,
         "deflate: distance symbol 30 is not used by DEFLATE");

  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 3, 2);
  expect("type 3", &w, "", 0, "deflate: block type 3 is reserved");

  memset(&w, 0, sizeof w);
  expect("no input", &w, "", 0,
         "deflate: the stream ends inside a block (byte 0)");

  /* a fixed block that never ends */
  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 'a');
  expect("no end of block", &w, "", 0,
         "deflate: the stream ends inside a block (byte 2)");

  /* a non-final block and nothing after it */
  memset(&w, 0, sizeof w);
  put(&w, 0, 1);
  put(&w, 1, 2);
  fixed_lit(&w, 256);
  expect("no final block", &w, "", 0,
         "deflate: the stream ends inside a block (byte 2)");

  /* ---- dynamic blocks */
  unsigned char lit[286], dist[30];
  unsigned lc[286], dc[30];

  /* 'a' and end-of-block, 1 bit each; no distance codes (one 0 length) */
  memset(lit, 0, sizeof lit);
  memset(dist, 0, sizeof dist);
  lit['a'] = 1;
  lit[256] = 1;
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 257, dist, 1);
  canon(lit, 257, lc);
  put_code(&w, lc['a'], 1);
  put_code(&w, lc['a'], 1);
  put_code(&w, lc[256], 1);
  expect("dynamic", &w, "aa", 2, NULL);

  /* the same with a match: no distance codes to decode it with */
  memset(lit, 0, sizeof lit);
  lit['a'] = 2;
  lit[256] = 2;
  lit[257] = 1;
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 258, dist, 1);
  canon(lit, 258, lc);
  put_code(&w, lc['a'], 2);
  put_code(&w, lc[257], 1);
  expect("no distance codes, one used", &w, "", 0,
         "deflate: a block with no distance codes uses one");

  /* one distance code of one bit (RFC 1951 3.2.7): allowed */
  dist[0] = 1;
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 258, dist, 1);
  canon(dist, 1, dc);
  put_code(&w, lc['a'], 2);
  put_code(&w, lc[257], 1);
  put_code(&w, dc[0], 1);
  put_code(&w, lc[256], 2);
  expect("one distance code", &w, "aaaa", 4, NULL);

  /* the unused half of a single 1-bit distance code */
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 258, dist, 1);
  put_code(&w, lc['a'], 2);
  put_code(&w, lc[257], 1);
  put_code(&w, 1, 1);
  put_code(&w, lc[256], 2);
  expect("unused code", &w, "", 0,
         "deflate: a code at byte 140 is not in the block's code set");

  /* only end-of-block, one bit: an empty block */
  memset(lit, 0, sizeof lit);
  lit[256] = 1;
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 257, dist, 1);
  put_code(&w, 0, 1);
  expect("only end-of-block", &w, "", 0, NULL);

  memset(lit, 0, sizeof lit);
  lit['a'] = 1;
  lit['b'] = 1;
  lit[256] = 1;
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 257, dist, 1);
  expect("literal/length over-subscribed", &w, "", 0,
         "deflate: the literal/length code is over-subscribed");

  memset(lit, 0, sizeof lit);
  lit['a'] = 1;
  lit[256] = 2;
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 257, dist, 1);
  expect("literal/length incomplete", &w, "", 0,
         "deflate: the literal/length code is incomplete");

  memset(lit, 0, sizeof lit);
  lit['a'] = 1;
  lit['b'] = 1;
  memset(&w, 0, sizeof w);
  dyn_lengths(&w, 1, lit, 257, dist, 1);
  expect("no end-of-block code", &w, "", 0,
         "deflate: a block has no end-of-block code");

  memset(lit, 0, sizeof lit);
  lit['a'] = 1;
  lit[256] = 1;
  {
    unsigned char d2[2] = {1, 2};
    memset(&w, 0, sizeof w);
    dyn_lengths(&w, 1, lit, 257, d2, 2);
    expect("distance incomplete", &w, "", 0,
           "deflate: the distance code is incomplete");
    unsigned char d3[3] = {1, 1, 1};
    memset(&w, 0, sizeof w);
    dyn_lengths(&w, 1, lit, 257, d3, 3);
    expect("distance over-subscribed", &w, "", 0,
           "deflate: the distance code is over-subscribed");
  }

  /* header counts past the alphabets */
  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 2, 2);
  put(&w, 30, 5);
  put(&w, 0, 5);
  put(&w, 0, 4);
  expect("HLIT 287", &w, "", 0,
         "deflate: a block has 287 literal/length codes (at most 286)");
  memset(&w, 0, sizeof w);
  put(&w, 1, 1);
  put(&w, 2, 2);
  put(&w, 0, 5);
  put(&w, 31, 5);
  put(&w, 0, 4);
  expect("HDIST 32", &w, "", 0,
         "deflate: a block has 32 distance codes (at most 30)");

  /* code-length codes: over-subscribed, incomplete */
  {
    unsigned char cl[19];
    memset(cl, 0, sizeof cl);
    cl[0] = cl[1] = cl[2] = 1;
    memset(&w, 0, sizeof w);
    dyn_header(&w, 1, 257, 1, cl, NULL, 0);
    expect("code length code over-subscribed", &w, "", 0,
           "deflate: the code length code is over-subscribed");
    memset(cl, 0, sizeof cl);
    cl[0] = 1;
    memset(&w, 0, sizeof w);
    dyn_header(&w, 1, 257, 1, cl, NULL, 0);
    expect("code length code incomplete", &w, "", 0,
           "deflate: the code length code is incomplete");
  }

  /* repeats: 16 first; 18 past the end; 16 and 17 and 18 used well */
  {
    int seq[] = {16, 0};
    memset(&w, 0, sizeof w);
    dyn_header(&w, 1, 257, 1, cl_len, seq, 2);
    expect("repeat first", &w, "", 0,
           "deflate: code length 16 repeats a length before the first");
    int seq2[] = {18, 127, 18, 127, 18, 0};
    memset(&w, 0, sizeof w);
    dyn_header(&w, 1, 257, 1, cl_len, seq2, 6);
    expect("repeat past the end", &w, "", 0,
           "deflate: a code length repeat runs past the 258 lengths");
    /* 'a'..'d' 2 bits (one 2, then 16 x3), zeros around, 256 2 bits */
    int seq3[] = {18, 'a' - 11, 2, 16, 0, 18, 138 - 11, 18, 256 - 'e' - 138 - 11,
                  2, 17, 0};
    memset(lit, 0, sizeof lit);
    lit['a'] = lit['b'] = lit['c'] = lit['d'] = 2;
    lit[256] = 0;
    memset(&w, 0, sizeof w);
    dyn_header(&w, 1, 257, 3, cl_len, seq3, 12);
    /* lengths: 97 zeros, a..d 2, 138 + rest zeros up to 256, then 256: 2,
    ** distance: 3 zeros.  Four 2-bit codes and end-of-block: 5 x 1/4 is
    ** over-subscribed */
    expect("repeats", &w, "", 0,
           "deflate: the literal/length code is over-subscribed");
  }
}

/* ---- zlib's streams ------------------------------------------------------ */

/* A fixture of g_dir, whole (load_or_die, core_test.h). */
static unsigned char *load(const char *name, size_t *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  return load_or_die(path, n);
}

static void test_zlib(const char *sample, const char *level) {
  char name[128];
  size_t rn, dn;
  snprintf(name, sizeof name, "%s.raw", sample);
  unsigned char *raw = load(name, &rn);
  snprintf(name, sizeof name, "%s-%s.deflate", sample, level);
  unsigned char *d = load(name, &dn);
  sq_status st = fresh_status();
  unsigned char *out = malloc(rn ? rn : 1);
  int rc = sq_inflate_run(g_z, d, dn, 0, out, rn, 1, rn, &st);
  check(rc == SQ_OK && g_z->produced == rn && g_z->consumed == dn &&
            g_z->finished && g_z->crc == sq_crc32(0, raw, rn) &&
            memcmp(out, raw, rn) == 0,
        "%s whole: rc %d (%s)", name, rc, st.msg);
  free(out);
  /* ranges: [skip, skip + len) with and without to_end */
  uint64_t cuts[][2] = {{0, 1}, {1, 1}, {0, 0}, {32767, 2}, {32768, 40000},
                        {65535, 3}, {rn / 2, rn - rn / 2}, {rn, 0}, {7, 1000}};
  for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
    uint64_t s0 = cuts[c][0], len = cuts[c][1];
    if (s0 > rn || len > rn - s0) continue;
    for (int to_end = 0; to_end < 2; to_end++) {
      out = malloc(len ? (size_t)len : 1);
      st = fresh_status();
      rc = sq_inflate_run(g_z, d, dn, s0, out, len, to_end, rn, &st);
      int ok = rc == SQ_OK && memcmp(out, raw + s0, (size_t)len) == 0;
      if (to_end) ok = ok && g_z->produced == rn && g_z->finished &&
                       g_z->crc == sq_crc32(0, raw, rn);
      /* without to_end the decoder stops within 32 KiB + a match of the end */
      else ok = ok && (s0 + len == 0 || g_z->produced <= s0 + len + 32768 + 258);
      check(ok, "%s bytes %llu+%llu to_end %d: rc %d (%s) produced %llu", name,
            (unsigned long long)s0, (unsigned long long)len, to_end, rc,
            st.msg, (unsigned long long)g_z->produced);
      free(out);
    }
  }
  /* more than there is */
  out = malloc(2);
  st = fresh_status();
  rc = sq_inflate_run(g_z, d, dn, rn, out, 1, 0, rn, &st);
  char want[160];
  snprintf(want, sizeof want, "deflate: the stream ends after %zu bytes of "
                              "output (%zu wanted)", rn, rn + 1);
  check(rc == SQ_INVALID && strcmp(st.msg, want) == 0,
        "%s past the end: %s", name, st.msg);
  free(out);
  /* with to_end, a stream making more than `most`: refused within 32 KiB */
  if (rn > 40000) {
    out = malloc(1);
    st = fresh_status();
    rc = sq_inflate_run(g_z, d, dn, 0, out, 1, 1, 1000, &st);
    check(rc == SQ_INVALID && g_z->overflow && g_z->produced < 1000 + 32768 + 258 &&
              strcmp(st.msg, "deflate: the stream makes more than 1000 bytes") == 0,
          "%s most 1000: rc %d (%s) produced %llu", name, rc, st.msg,
          (unsigned long long)g_z->produced);
    free(out);
  }
  free(raw);
  free(d);
}

/* Every prefix and every byte XOR 0x01 / 0x80 / 0xFF of a stream. */
static void test_mutations(const char *name) {
  size_t dn, rn;
  unsigned char *d = load(name, &dn);
  long ok = 0, refused = 0, bad = 0;
  unsigned char *out = malloc(1 << 20);
  rn = 1 << 20;
  for (size_t len = 0; len <= dn; len++) {
    unsigned char *p = malloc(len ? len : 1);
    memcpy(p, d, len);
    static const unsigned char x[] = {0x01, 0x80, 0xFF};
    size_t nat = len == dn ? dn : 1, nx = len == dn ? 3 : 1;
    for (size_t at = 0; at < nat; at++)
      for (size_t k = 0; k < nx; k++) {
        if (len == dn) p[at] ^= x[k];
        sq_status st = fresh_status();
        /* the output's size is not known: ask for nothing and go to the end */
        int rc = sq_inflate_run(g_z, p, len, 0, out, 0, 1, UINT64_MAX, &st);
        if (rc == SQ_OK) ok++;
        else {
          refused++;
          if (rc != SQ_INVALID || strncmp(st.msg, "deflate: ", 9) != 0) bad++;
        }
        if (len == dn) p[at] ^= x[k];
      }
    free(p);
  }
  (void)rn;
  check(bad == 0, "%s mutations: %ld bad", name, bad);
  printf("%s mutations: %ld decoded, %ld refused\n", name, ok, refused);
  free(out);
  free(d);
}

int main(int argc, char **argv) {
  if (argc > 1) g_dir = argv[1];
  g_z = malloc(sizeof *g_z);
  test_hand_made();
  static const char *samples[] = {"empty", "text", "random", "float32",
                                  "zeros"};
  static const char *levels[] = {"0", "1", "9", "fixed"};
  for (size_t s = 0; s < 5; s++)
    for (size_t l = 0; l < 4; l++) test_zlib(samples[s], levels[l]);
  test_mutations("text-9.deflate");
  test_mutations("text-fixed.deflate");
  free(g_z);
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail != 0;
}
