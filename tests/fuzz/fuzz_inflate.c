/*
** fuzz_inflate.c: libFuzzer target for the DEFLATE decoder
** (core/inflate.h): untrusted streams into sq_inflate_run.
**
**   make fuzz            (clang, libFuzzer + ASan + UBSan)
**
** Input: 4 bytes (u16 LE skip, u16 LE len) and the stream.  Each stream is
** decoded three ways: to its end (bounded to 4 MiB of output), the range
** [skip, skip + len) alone, and the same range to the end.  Each must
** return SQ_OK or a "deflate: " error, write only its exact-size buffer,
** and agree with the others: a range decoded alone equals the same bytes of
** the whole, and the CRC-32 of a whole decode is the CRC of its bytes.
*/
#include <stdlib.h>
#include <string.h>
#include "core/crc32.h"
#include "core/inflate.h"

#define MOST (4u << 20)

static void check(int ok) {
  if (!ok) abort();
}

static sq_inflate z;

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
