/*
** fuzz_inflate.c: libFuzzer target for the DEFLATE decoder
** (formats/inflate.h): untrusted streams into sq_inflate_run.
**
**   make fuzz            (clang, libFuzzer + ASan + UBSan)
**
** Input: 4 bytes (u16 LE skip, u16 LE len) and the stream.  Each stream is
** decoded three ways: to its end (bounded to 4 MiB of output), the range
** [skip, skip + len) alone, and the same range to the end.  Each must
** return SQ_OK or a "deflate: " error, write only its exact-size buffer,
** and agree with the others: a range decoded alone equals the same bytes of
** the whole, and the CRC-32 of a whole decode is the CRC of its bytes.
** Then a stream that decodes whole is decoded again through one state, in
** parts of (len mod 4096) + 1 bytes, reading its input through a function
** (as from a file) rather than from memory: each part goes on from the last
** (sq_inflate_read), the last goes to the end, and every part, and the
** final CRC-32 and length, must equal the whole's.
*/
#include <stdlib.h>
#include <string.h>
#include "formats/crc32.h"
#include "formats/inflate.h"

#define MOST (4u << 20)

static void check(int ok) {
  if (!ok) abort();
}

static sq_inflate z;

/* The stream as a file source gives it: bytes [off, off + len) copied. */
static int read_input(void *ctx, uint64_t off, unsigned char *buf, size_t len,
                      sq_status *st) {
  (void)st;
  memcpy(buf, (const unsigned char *)ctx + off, len);
  return SQ_OK;
}

/* The whole again in parts through one state (see above). */
static void parts(const unsigned char *p, size_t n, const unsigned char *all,
                  uint64_t total, uint64_t piece) {
  sq_inflate_input in = {NULL, read_input, (void *)p, 0, n};
  sq_inflate_begin(&z, &in);
  unsigned char *got = malloc(piece);
  if (!got) return;
  for (uint64_t at = 0; at < total || at == 0;) {
    uint64_t k = total - at < piece ? total - at : piece;
    int last = at + k == total;
    sq_status st;
    memset(&st, 0, sizeof st);
    st.max_bytes = 1 << 30;
    check(at >= sq_inflate_earliest(&z));
    check(sq_inflate_read(&z, at, got, k, last, MOST, &st) == SQ_OK);
    check(memcmp(got, all + at, k) == 0);
    at += k;
    if (last) break;
  }
  check(z.finished && z.produced == total && z.crc == sq_crc32(0, all, total));
  free(got);
}

static int run(const unsigned char *p, size_t n, uint64_t skip,
               unsigned char *out, uint64_t len, int to_end) {
  sq_status st;
  memset(&st, 0, sizeof st);
  st.max_bytes = 1 << 30;
  int rc = sq_inflate_run(&z, p, n, skip, out, len, to_end, MOST, &st);
  check(rc == st.code);
  if (rc) check(rc == SQ_INVALID && strncmp(st.msg, "deflate: ", 9) == 0 &&
                memchr(st.msg, 0, sizeof st.msg));
  return rc;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size < 4) return 0;
  uint64_t skip = data[0] | (unsigned)data[1] << 8;
  uint64_t len = data[2] | (unsigned)data[3] << 8;
  size_t n = size - 4;
  unsigned char *p = malloc(n ? n : 1);
  if (!p) return 0;
  if (n) memcpy(p, data + 4, n);

  /* the whole: first its size (nothing kept), then its bytes */
  unsigned char one;
  int whole = run(p, n, 0, &one, 0, 1);
  uint64_t total = z.produced;
  unsigned char *all = NULL;
  if (whole == SQ_OK) {
    check(z.finished && z.consumed <= n && total <= MOST);
    all = malloc(total ? total : 1);
    if (!all) goto done;
    check(run(p, n, 0, all, total, 1) == SQ_OK && z.produced == total);
    check(z.crc == sq_crc32(0, all, total));
    parts(p, n, all, total, (len % 4096) + 1);
  }

  /* a range alone, and to the end */
  unsigned char *part = malloc(len ? len : 1);
  if (!part) goto done;
  int rc = run(p, n, skip, part, len, 0);
  if (whole == SQ_OK) {
    check((rc == SQ_OK) == (skip + len <= total));
    if (rc == SQ_OK) check(memcmp(part, all + skip, len) == 0);
  }
  rc = run(p, n, skip, part, len, 1);
  if (whole == SQ_OK) {
    check((rc == SQ_OK) == (skip + len <= total));
    if (rc == SQ_OK) check(memcmp(part, all + skip, len) == 0);
  } else {
    check(rc != SQ_OK);
  }
  free(part);
done:
  free(all);
  free(p);
  return 0;
}
