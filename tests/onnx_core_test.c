/*
** onnx_core_test.c: the ONNX reader (ext/formats/onnx_read.c, protobuf.c)
** without SQLite, run under ASan + UBSan (make test-onnx-core).
**
**   build/asan/onnx_core_test [tests/data/onnx]
**
** tests/onnx.test asserts every row of the fixtures exactly; this checks
** what SQL cannot reach:
** 1. every byte range [a, b) of every tensor of every valid fixture, read
**    through sq_file_tensor_read (the decoders of typed fields and external
**    data are asked for any range, as chunked reads do), equals the same
**    bytes of the whole;
** 2. every truncation and every byte set to 0x00, 0x7F, 0x80, 0xFF or +1 of
**    every valid fixture reads into an index or fails cleanly, and every
**    tensor of an index reads or fails cleanly;
** 3. every allocation of a read fails in turn: SQ_NOMEM and an empty index;
** 4. a model of 16 MiB of raw_data indexed by path reads its structure,
**    not the data (formats/source.h).
** Output: failures, then "N passed, N failed"; exit status 1 on a failure.
*/
#define _XOPEN_SOURCE 700
#define CORE_TEST_FILES
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/formats.h"
#include "core_test.h"

/* Reads every tensor of ix whole; returns 0 if a read broke a promise (a
** code that disagrees with the status, or an empty message). */
static int read_all(const sq_file_view *v, const sq_file_index *ix) {
  for (size_t i = 0; i < ix->ntensors; i++) {
    const sq_file_tensor *t = &ix->tensors[i];
    if (t->nbytes > (1u << 24)) continue;
    unsigned char *out = malloc(t->nbytes ? t->nbytes : 1);
    sq_status st = fresh_status();
    int rc = sq_file_tensor_read(v, t, 0, t->nbytes, out, &st);
    free(out);
    if (rc != st.code || (rc && !st.msg[0])) return 0;
  }
  return 1;
}

/* 1: every range of every tensor equals the same bytes of the whole. */
static void check_ranges(const char *name, const sq_file_view *v,
                         const sq_file_index *ix) {
  int ok = 1;
  long ranges = 0;
  for (size_t i = 0; i < ix->ntensors; i++) {
    const sq_file_tensor *t = &ix->tensors[i];
    unsigned char *whole = malloc(t->nbytes + 1), *part = malloc(t->nbytes + 1);
    sq_status st = fresh_status();
    if (sq_file_tensor_read(v, t, 0, t->nbytes, whole, &st)) {
      /* Only bad_int32_range's tensor may fail, and it is not read here. */
      ok = 0;
      printf("%s: tensor '%s': %s\n", name, t->name, st.msg);
    }
    /* Large tensors (the real model): ranges at a stride. */
    uint64_t step = t->nbytes > 96 ? t->nbytes / 37 + 1 : 1;
    for (uint64_t a = 0; ok && a <= t->nbytes; a += step) {
      for (uint64_t b = a; b <= t->nbytes; b += step) {
        st = fresh_status();
        memset(part, 0xA5, t->nbytes + 1);
        ranges++;
        if (sq_file_tensor_read(v, t, a, b - a, part, &st) ||
            memcmp(part, whole + a, (size_t)(b - a)) != 0 ||
            part[b - a] != 0xA5) {
          ok = 0;
          printf("%s: tensor '%s' bytes [%llu, %llu): %s\n", name, t->name,
                 (unsigned long long)a, (unsigned long long)b, st.msg);
          break;
        }
      }
    }
    /* Past the end is refused. */
    st = fresh_status();
    if (!sq_file_tensor_read(v, t, t->nbytes, 1, part, &st)) ok = 0;
    free(whole);
    free(part);
  }
  CHECK(ok, "%s: every range of every tensor (%ld ranges)", name, ranges);
}

/* One truncated or mutated copy c[0..n): an index whose every tensor reads
** back (read_all), or a clean error (SQ_INVALID, empty index, a message);
** anything else is printed with what was done at byte k.  1 when clean. */
static int read_damaged(const unsigned char *c, size_t n, const char *path,
                        const char *file, const char *what, size_t k) {
  sq_source src;
  sq_file_view cv = memory_view(&src, c, n, path);
  sq_file_index ix;
  sq_status st = fresh_status();
  int rc = sq_file_read(c, n, SQ_FILE_ONNX, 1, &ix, &st);
  if (rc == SQ_OK) {
    int ok = read_all(&cv, &ix);
    sq_file_index_free(&ix);
    return ok;
  }
  if (rc == SQ_INVALID && !ix.ntensors && !ix.nmeta && st.msg[0]) return 1;
  printf("%s %s %zu: code %d '%s'\n", file, what, k, rc, st.msg);
  return 0;
}

/* 2 and 3 for one valid fixture. */
static void check_file(const char *dir, const char *file, size_t want_tensors) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t n;
  unsigned char *p = load_or_die(path, &n);
  sq_source src;
  sq_file_view v = memory_view(&src, p, n, path);
  sq_file_index ix;
  for (int meta = 0; meta <= 1; meta++) {
    sq_status st = fresh_status();
    int rc = sq_file_read(p, n, SQ_FILE_ONNX, meta, &ix, &st);
    CHECK(rc == SQ_OK && ix.ntensors == want_tensors && (meta || !ix.nmeta),
          "%s: read (meta %d): code %d '%s', %zu tensors", file, meta, rc,
          st.msg, ix.ntensors);
    if (rc == SQ_OK) {
      if (meta) check_ranges(file, &v, &ix);
      sq_file_index_free(&ix);
    }
  }
  CHECK(sq_file_detect(p, n) == SQ_FILE_ONNX, "%s: detected", file);

  /* 2: truncations and mutations: an index or a clean error, never more. */
  int clean = 1;
  long reads = 0;
  for (size_t k = 0; k < n; k++) {
    unsigned char *c = malloc(k ? k : 1);
    memcpy(c, p, k);
    if (!read_damaged(c, k, path, file, "truncated to", k)) clean = 0;
    reads++;
    free(c);
  }
  static const int sets[] = {0x00, 0x7F, 0x80, 0xFF, -1};
  unsigned char *c = malloc(n);
  for (size_t k = 0; k < n && n <= 65536; k++) {
    for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
      memcpy(c, p, n);
      c[k] = sets[s] < 0 ? (unsigned char)(p[k] + 1) : (unsigned char)sets[s];
      if (!read_damaged(c, n, path, file, "byte set at", k)) clean = 0;
      reads++;
    }
  }
  free(c);
  CHECK(clean, "%s: %ld truncated and mutated reads end cleanly", file, reads);

  /* 3: every allocation failed in turn. */
  int oom_ok = 1;
  long k;
  for (k = 0;; k++) {
    g_allocs = 0;
    g_fail_at = k;
    sq_status st = fresh_status();
    int rc = sq_file_read(p, n, SQ_FILE_ONNX, 1, &ix, &st);
    g_fail_at = -1;
    if (rc == SQ_OK) {
      sq_file_index_free(&ix);
      break;
    }
    if (rc != SQ_NOMEM || ix.ntensors || ix.nmeta || ix.tensors || ix.meta) {
      oom_ok = 0;
      printf("%s: allocation %ld failed: code %d '%s'\n", file, k, rc, st.msg);
    }
  }
  CHECK(oom_ok && k > 3, "%s: every allocation failed in turn (%ld)", file, k);
  free(p);
}

/* External data: the decoder's own allocation fails cleanly; a BLOB (no
** path) is refused with the fix. */
static void check_external(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/external.onnx", dir);
  size_t n;
  unsigned char *p = load_or_die(path, &n);
  sq_file_index ix;
  sq_status st = fresh_status();
  CHECK(sq_file_read(p, n, SQ_FILE_ONNX, 0, &ix, &st) == SQ_OK &&
        ix.ntensors == 3, "external.onnx: read: '%s'", st.msg);
  unsigned char out[16];
  sq_source src, blob_src;
  sq_file_view v = memory_view(&src, p, n, path);
  g_allocs = 0;
  g_fail_at = 0;
  st = fresh_status();
  int rc = sq_file_tensor_read(&v, &ix.tensors[0], 0, 16, out, &st);
  g_fail_at = -1;
  CHECK(rc == SQ_NOMEM, "external.onnx: a failed allocation: code %d", rc);
  sq_file_view blob = memory_view(&blob_src, p, n, NULL);
  st = fresh_status();
  rc = sq_file_tensor_read(&blob, &ix.tensors[0], 0, 16, out, &st);
  CHECK(rc == SQ_INVALID &&
        strcmp(st.msg, "onnx: tensor 'w_ext' keeps its data in the external "
               "file 'external.bin'; read the model with q_tensors_file") == 0,
        "external.onnx from a BLOB: '%s'", st.msg);
  sq_file_index_free(&ix);
  free(p);
}

/* ---- a file by path ---- */

static size_t pb_varint(unsigned char *o, uint64_t v) {
  size_t k = 0;
  do {
    o[k] = (unsigned char)(v & 0x7F);
    v >>= 7;
    if (v) o[k] |= 0x80;
    k++;
  } while (v);
  return k;
}

/* 16 initializers of 1 MiB of raw_data each (f32 [262144]). */
static void check_by_path(void) {
  enum { N = 16, DATA = 1 << 20 };
  unsigned char t[64];
  size_t tl = 0;
  tl += pb_varint(t + tl, 1 << 3);           /* dims */
  tl += pb_varint(t + tl, DATA / 4);
  tl += pb_varint(t + tl, 2 << 3);           /* data_type f32 */
  tl += pb_varint(t + tl, 1);
  tl += pb_varint(t + tl, 8 << 3 | 2);       /* name "w" */
  tl += pb_varint(t + tl, 1);
  t[tl++] = 'w';
  tl += pb_varint(t + tl, 9 << 3 | 2);       /* raw_data */
  tl += pb_varint(t + tl, DATA);
  uint64_t tensor = tl + DATA;               /* one TensorProto */
  unsigned char init[16];
  size_t il = pb_varint(init, 5 << 3 | 2);   /* GraphProto.initializer */
  il += pb_varint(init + il, tensor);
  uint64_t graph = N * (il + tensor);
  unsigned char model[32];
  size_t ml = 0;
  ml += pb_varint(model + ml, 1 << 3);       /* ir_version 8 */
  ml += pb_varint(model + ml, 8);
  ml += pb_varint(model + ml, 7 << 3 | 2);   /* graph */
  ml += pb_varint(model + ml, graph);
  size_t total = ml + (size_t)graph;
  unsigned char *p = calloc(1, total), *q = p;
  memcpy(q, model, ml);
  q += ml;
  for (int k = 0; k < N; k++) {
    memcpy(q, init, il);
    memcpy(q + il, t, tl);
    q += il + tensor;
  }
  const char *dir = temp_dir();
  char path[600];
  snprintf(path, sizeof path, "%s/raw.onnx", dir);
  if (write_sparse(path, p, total, total)) {
    CHECK(0, "cannot write %s", path);
    free(p);
    return;
  }
  sq_source src;
  sq_file_index ix;
  sq_status st = fresh_status();
  int rc = sq_source_open(&src, path, path, 0, &st);
  if (!rc) rc = sq_file_read_source(&src, SQ_FILE_ONNX, 0, &ix, &st);
  /* Each tensor's fields lie just before its data: a few short window
  ** reads and one page (its name) per tensor, under 2% of the file. */
  CHECK(rc == SQ_OK && ix.ntensors == N &&
        src.bytes_read <= 4 * N * SQ_SOURCE_PAGE,
        "16 MiB of raw_data by path: rc %d (%s), %zu tensors, %llu bytes "
        "read", rc, st.msg, rc ? 0 : ix.ntensors,
        (unsigned long long)src.bytes_read);
  printf("a %zu-byte ONNX model of %d raw_data tensors indexed by reading "
         "%llu bytes in %llu reads\n", total, N,
         (unsigned long long)src.bytes_read, (unsigned long long)src.reads);
  if (rc == SQ_OK) {
    /* and the data reads back through the source */
    sq_file_view v = {&src, NULL};
    unsigned char out[8];
    st = fresh_status();
    CHECK(sq_file_tensor_read(&v, &ix.tensors[N - 1], DATA - 8, 8, out, &st)
              == SQ_OK, "last tensor's last bytes: %s", st.msg);
    sq_file_index_free(&ix);
  }
  sq_source_close(&src);
  unlink(path);
  rmdir(dir);
  free(p);
}

int main(int argc, char **argv) {
  install_failing_allocator();
  const char *dir = argc > 1 ? argv[1] : "tests/data/onnx";
  check_file(dir, "raw_dtypes.onnx", 23);
  check_file(dir, "typed_packed.onnx", 18);
  check_file(dir, "typed_unpacked.onnx", 20);
  check_file(dir, "constants.onnx", 7);
  check_file(dir, "control_flow.onnx", 10);
  check_file(dir, "metadata.onnx", 1);
  check_file(dir, "nested_32.onnx", 1);
  check_file(dir, "external.onnx", 3);
  check_external(dir);
  check_by_path();
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
