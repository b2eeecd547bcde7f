/*
** fuzz_files.c: libFuzzer target for the model-file readers
** (docs/FORMATS.md): untrusted bytes into sq_file_read.
**
**   make fuzz            (clang, libFuzzer + ASan + UBSan)
**
** The input's first byte picks what runs; the rest is the file:
**   bits 0-2  0 safetensors, 1 gguf, 2 npy, 3 npz, 4 onnx, 5 tflite,
**             6-7 the format sq_file_detect finds (none: nothing more to do)
**   bit 3     want_meta: the metadata too
** Files over 1 MiB are skipped.  The file is a private heap copy of exactly
** its length, so a read past its end is an ASan report.  Each read must
** return SQ_OK or an error, never crash or leak; on SQ_OK the index is
** checked against what the readers promise (formats/index.h): every tensor's
** data inside the file, its shape sane, its name and dtype terminated, every
** metadata entry with a key, a terminated type and a value; and the first
** and last byte of every tensor's data are read.  On an error the index is empty and the
** message is terminated and not empty.
*/
#include <stdlib.h>
#include <string.h>
#include "formats/formats.h"

#define FUZZ_FILES_MAX (1u << 20)

static void check(int ok) {
  if (!ok) abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size == 0 || size - 1 > FUZZ_FILES_MAX) return 0;
  unsigned pick = data[0] & 7u, want_meta = (data[0] >> 3) & 1u;
  size_t n = size - 1;
  unsigned char *p = malloc(n ? n : 1);
  if (!p) return 0;
  if (n) memcpy(p, data + 1, n);

  int f;
  if (pick < SQ_FILE_NFORMATS) {
    f = (int)pick;
  } else {
    f = sq_file_detect(p, n);
    check(f >= -1 && f < SQ_FILE_NFORMATS);
    if (f < 0) {
      free(p);
      return 0;
    }
  }
  check(sq_file_format_name((sq_file_format)f) != NULL);

  sq_status st;
  memset(&st, 0, sizeof st);
  st.max_bytes = 1 << 30;
  sq_file_index ix;
  int rc = sq_file_read(p, n, (sq_file_format)f, (int)want_meta, &ix, &st);
  check(rc == st.code);
  if (rc != SQ_OK) {
    check(rc == SQ_INVALID || rc == SQ_NOMEM || rc == SQ_TOOBIG);
    check(ix.ntensors == 0 && ix.nmeta == 0 && !ix.tensors && !ix.meta);
    if (rc == SQ_INVALID) check(memchr(st.msg, 0, sizeof st.msg) && st.msg[0]);
  } else {
    volatile unsigned sum = 0;
    for (size_t i = 0; i < ix.ntensors; i++) {
      const sq_file_tensor *t = &ix.tensors[i];
      check(t->name != NULL);
      (void)strlen(t->name);
      check(memchr(t->dtype, 0, sizeof t->dtype) && t->dtype[0]);
      check(t->ndim >= 0 && t->ndim <= SQ_MAX_DIMS);
      for (int d = 0; d < t->ndim; d++) check(t->dim[d] >= 0);
      if (!t->decode) {
        check(t->offset <= n && t->nbytes <= n - t->offset);
        if (t->nbytes) sum += p[t->offset] + p[t->offset + t->nbytes - 1];
      }
      /* Every tensor's data, decoded or not, whole and in two parts. */
      if (t->nbytes <= FUZZ_FILES_MAX) {
        unsigned char *out = malloc(t->nbytes ? t->nbytes : 1);
        if (out) {
          /* whole without a stream; the halves through one, so the
          ** second goes on where the first ended */
          sq_source src;
          sq_source_memory(&src, p, n);
          sq_file_stream stream;
          memset(&stream, 0, sizeof stream);
          sq_file_view v = {&src, NULL}, vs = {&src, &stream};
          uint64_t half = t->nbytes / 2;
          sq_status dst;
          memset(&dst, 0, sizeof dst);
          dst.max_bytes = 1 << 30;
          int drc = sq_file_tensor_read(&v, t, 0, t->nbytes, out, &dst);
          check(drc == dst.code);
          if (drc == SQ_OK) {
            unsigned char *again = malloc(t->nbytes ? t->nbytes : 1);
            if (again) {
              memset(&dst, 0, sizeof dst);
              dst.max_bytes = 1 << 30;
              check(!sq_file_tensor_read(&vs, t, 0, half, again, &dst));
              check(!sq_file_tensor_read(&vs, t, half, t->nbytes - half,
                                         again + half, &dst));
              check(memcmp(out, again, t->nbytes) == 0);
              free(again);
            }
          }
          sq_file_stream_free(&stream);
          free(out);
        }
      }
    }
    if (!want_meta) check(ix.nmeta == 0);
    for (size_t i = 0; i < ix.nmeta; i++) {
      const sq_file_meta *m = &ix.meta[i];
      check(m->key != NULL && m->value != NULL);
      (void)strlen(m->key);
      (void)strlen(m->value);
      check(memchr(m->type, 0, sizeof m->type) && m->type[0]);
    }
    (void)sum;
    sq_file_index_free(&ix);
  }
  free(p);
  return 0;
}
