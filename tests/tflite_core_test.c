/*
** tflite_core_test.c: the TFLite reader (ext/formats/tflite_read.c,
** flatbuffer.c, docs/FORMATS.md#tflite) on the files of tests/gen_tflite.py,
** without SQL, under ASan + UBSan (make test-tflite-core):
**
**   build/asan/tflite_core_test tests/data/tflite
**
** The exact rows and messages are tests/tflite.test's; this test checks
** what SQL cannot reach, for each valid file, with and without metadata:
**   1. the same index when the bytes lie at an odd address (no load assumes
**      alignment);
**   2. every strict prefix either refused cleanly ("tflite: ..." and an empty
**      index) or read into an index whose every tensor lies inside the
**      prefix;
**   3. 4,000 seeded byte mutations, each refused cleanly or read into such
**      an index;
**   4. every allocation failed in turn: SQ_NOMEM and an empty index (nothing
**      leaks: ASan), then the unfailed outcome.
** Every invalid file of the directory is refused cleanly too.
** Prints "tflite_core_test: N passed, M failed".
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "formats/formats.h"
#include "core_test.h"

static void check_got(int ok, const char *name, const char *what, const char *got) {
  if (tally(ok)) return;
  printf("FAIL %s: %s (%s)\n", name, what, got ? got : "");
}

/* This test's size limit has always been 2^30, not fresh_status()'s 10^9. */
static void init_status(sq_status *st) {
  *st = fresh_status();
  st->max_bytes = 1 << 30;
}

/* The index as text: each tensor's fields, each metadata row. */
static char *render(const sq_file_index *ix) {
  size_t cap = 64;
  for (size_t i = 0; i < ix->ntensors; i++)
    cap += strlen(ix->tensors[i].name) + 128 + 21 * SQ_MAX_DIMS + 1024;
  for (size_t i = 0; i < ix->nmeta; i++)
    cap += strlen(ix->meta[i].key) + strlen(ix->meta[i].value) + 64;
  char *s = malloc(cap), *e = s;
  *e = 0;
  for (size_t i = 0; i < ix->ntensors; i++) {
    const sq_file_tensor *t = &ix->tensors[i];
    char scope[1024];
    e += sprintf(e, "%s|%s|%s|", t->name, t->dtype,
                 scope_text(ix, t, scope, sizeof scope));
    for (int d = 0; d < t->ndim; d++) e += sprintf(e, "%lld,", (long long)t->dim[d]);
    e += sprintf(e, "|%llu|%llu\n", (unsigned long long)t->offset,
                 (unsigned long long)t->nbytes);
  }
  for (size_t i = 0; i < ix->nmeta; i++)
    e += sprintf(e, "%s|%s|%s\n", ix->meta[i].key, ix->meta[i].type,
                 ix->meta[i].value);
  return s;
}

static int is_empty(const sq_file_index *ix) {
  return ix->ntensors == 0 && ix->nmeta == 0 && !ix->tensors && !ix->meta;
}

/* Every tensor inside the n bytes, with a dtype; every metadata row whole. */
static int index_sane(size_t n, const sq_file_index *ix) {
  for (size_t i = 0; i < ix->ntensors; i++) {
    const sq_file_tensor *t = &ix->tensors[i];
    if (t->offset > n || t->nbytes > n - t->offset || t->nbytes == 0) return 0;
    if (!t->dtype[0] || t->ndim < 0 || t->ndim > SQ_MAX_DIMS || t->decode)
      return 0;
    for (int d = 0; d < t->ndim; d++)
      if (t->dim[d] < 0) return 0;
  }
  for (size_t i = 0; i < ix->nmeta; i++)
    if (!ix->meta[i].key || !ix->meta[i].value || !ix->meta[i].type[0]) return 0;
  return 1;
}

/* One read of n bytes at p: 1 when refused cleanly or read sanely. */
static int read_ok(const unsigned char *p, size_t n, int meta, int *accepted) {
  sq_file_index ix;
  sq_status st;
  init_status(&st);
  int rc = sq_file_read(p, n, SQ_FILE_TFLITE, meta, &ix, &st);
  int ok;
  if (rc == SQ_OK) {
    ok = index_sane(n, &ix);
    *accepted += 1;
  } else {
    ok = rc == SQ_INVALID && is_empty(&ix) && !strncmp(st.msg, "tflite: ", 8);
  }
  sq_file_index_free(&ix);
  return ok;
}

static unsigned long long rng = 88172645463325252ull;
static unsigned long long next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void test_valid(const char *name, const unsigned char *bytes, size_t n,
                       int meta) {
  char label[300];
  snprintf(label, sizeof label, "%s%s", name, meta ? "+meta" : "");
  sq_file_index ix;
  sq_status st;
  init_status(&st);
  if (sq_file_read(bytes, n, SQ_FILE_TFLITE, meta, &ix, &st)) {
    check_got(0, label, "reads", st.msg);
    return;
  }
  char *want = render(&ix);
  sq_file_index_free(&ix);

  /* 1. at an odd address */
  unsigned char *odd = malloc(n + 1);
  memcpy(odd + 1, bytes, n);
  init_status(&st);
  int rc = sq_file_read(odd + 1, n, SQ_FILE_TFLITE, meta, &ix, &st);
  char *got = rc ? NULL : render(&ix);
  check_got(rc == SQ_OK && !strcmp(got, want), label, "same index when unaligned",
        rc ? st.msg : got);
  free(got);
  sq_file_index_free(&ix);
  free(odd);

  /* 2. prefixes, each in a buffer of exactly its length */
  int accepted = 0, bad = 0;
  for (size_t k = 0; k < n; k++) {
    unsigned char *p = malloc(k ? k : 1);
    memcpy(p, bytes, k);
    if (!read_ok(p, k, meta, &accepted)) bad++;
    free(p);
  }
  check_got(bad == 0, label, "every prefix refused cleanly or read sanely", "");

  /* 3. mutations */
  bad = 0;
  for (int m = 0; m < 4000; m++) {
    unsigned char *p = malloc(n);
    memcpy(p, bytes, n);
    int edits = 1 + (int)(next_rand() % 3);
    for (int e = 0; e < edits; e++) {
      size_t at = (size_t)(next_rand() % n);
      unsigned r = (unsigned)next_rand();
      p[at] = (r & 256) ? (unsigned char)r : (unsigned char)(p[at] ^ (1u << (r % 8)));
    }
    if (!read_ok(p, n, meta, &accepted)) bad++;
    free(p);
  }
  check_got(bad == 0, label, "every mutation refused cleanly or read sanely", "");

  /* 4. every allocation failed in turn */
  bad = 0;
  for (g_fail_at = 0;; g_fail_at++) {
    g_allocs = 0;
    init_status(&st);
    rc = sq_file_read(bytes, n, SQ_FILE_TFLITE, meta, &ix, &st);
    if (g_allocs <= g_fail_at) {
      got = rc ? NULL : render(&ix);
      check_got(rc == SQ_OK && !strcmp(got, want), label,
            "outcome after the failed allocations", rc ? st.msg : got);
      free(got);
      sq_file_index_free(&ix);
      break;
    }
    if (!(rc == SQ_NOMEM && is_empty(&ix))) bad++;
    sq_file_index_free(&ix);
  }
  g_fail_at = -1;
  check_got(bad == 0, label, "each failed allocation is SQ_NOMEM, index empty", "");
  free(want);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tflite_core_test DIR\n");
    return 2;
  }
  install_failing_allocator();

  static const char *const valid[] = {"dtypes", "subgraphs", "large_model",
                                      "deep_nesting", "no_subgraphs",
                                      "no_tensors", "long_scope"};
  DIR *d = opendir(argv[1]);
  if (!d) {
    fprintf(stderr, "tflite_core_test: cannot open %s\n", argv[1]);
    return 2;
  }
  struct dirent *de;
  int files = 0;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 8 || strcmp(de->d_name + len - 7, ".tflite")) continue;
    char path[4096], name[256];
    snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
    snprintf(name, sizeof name, "%.*s", (int)(len - 7), de->d_name);
    size_t n;
    unsigned char *b = read_whole_file(path, &n);
    if (!b) continue;
    files++;
    int is_valid = 0;
    for (size_t k = 0; k < sizeof valid / sizeof valid[0]; k++)
      if (!strcmp(name, valid[k])) is_valid = 1;
    if (is_valid) {
      test_valid(name, b, n, 0);
      test_valid(name, b, n, 1);
    } else {
      int accepted = 0;
      check_got(read_ok(b, n, 1, &accepted) && accepted == 0, name,
            "refused cleanly", "");
    }
    free(b);
  }
  closedir(d);
  check_got(files >= 40, "files", "the directory holds the generated files", "");
  printf("tflite_core_test: %d passed, %d failed\n", g_pass, g_fail);
  return g_fail != 0;
}
