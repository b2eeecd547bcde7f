/*
** fuzz_parsers.c: libFuzzer target for the readers of untrusted text.
**
**   make fuzz            (clang, libFuzzer + ASan + UBSan; runs 60 s)
**
** The input's first byte picks the reader; the rest is its text:
**   0  a float tensor in JSON (sq_json_parse_floats)
**   1  an int32 list in JSON (sq_json_parse_ints)
**   2  an options string, with every key allowed (sq_options_parse)
** Each must return SQ_OK or an error, never crash, read out of bounds or leak;
** on success the parsed values are re-checked: every float finite, the count
** within the bound the reader promises.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/options.h"
#include "core/tensor.h"
#include "kernels/byteorder.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size == 0) return 0;
  int which = data[0] % 3;
  size_t len = size - 1;
  /* A private NUL-terminated copy, as SQLite hands text to the functions. */
  char *text = malloc(len + 1);
  if (!text) return 0;
  memcpy(text, data + 1, len);
  text[len] = 0;
  sq_status st;
  memset(&st, 0, sizeof st);
  st.max_bytes = 1 << 30;
  if (which == 2) {
    sq_options o;
    if (sq_options_parse(text, ~0u, &o, &st) == SQ_OK &&
        !(o.percentile > 0.0 && o.percentile <= 100.0))
      abort();
  } else {
    void *out = NULL;
    size_t n = 0;
    int rc = which == 0 ? sq_json_parse_floats(text, len, "x", &out, &n, &st)
                        : sq_json_parse_ints(text, len, "x", &out, &n, &st);
    if (rc == SQ_OK) {
      if (n > len / 2 + 1) abort();
      for (size_t i = 0; which == 0 && i < n; i++)
        if (!isfinite(sq_load_f32((unsigned char *)out + 4 * i))) abort();
      sqlite3_free(out);
    } else if (out) {
      abort();
    }
  }
  free(text);
  return 0;
}
