/*
** safetensors_core_test.c: the safetensors reader
** (ext/formats/safetensors_read.c, docs/FORMATS.md#safetensors) against the
** cases of tests/gen_safetensors.py, without SQL.  Built with SQLITE_CORE
** and linked with SQLite and the ASan build's objects below the SQL layer
** (make test-safetensors-core).
**
** Checks, for every case: sq_file_read's index (each tensor's name, dtype,
** shape, offset and size; each metadata row) or its exact error, with the
** index left empty; the same without metadata; detection; every strict
** prefix of a valid file refused; byte mutations of the valid files either
** refused or read into an index that lies inside the bytes; and every
** allocation failed in turn (SQ_NOMEM, nothing leaked: run under ASan).
** Then files by path (formats/source.h): what is not a regular file is refused
** at once; indexing a 1 GiB file reads one page of it, a chunk read reads
** that chunk; a file truncated or rewritten in place between two reads is an
** error naming it, one renamed over is read as it was.
** Prints "safetensors_core_test: N passed, M failed".
*/
#define _XOPEN_SOURCE 700
#define CORE_TEST_FILES
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "formats/formats.h"
#include "core_test.h"
#include "kernels/byteorder.h"
#include "data/safetensors_cases.h"

static void check_got_want(int ok, const char *name, const char *what, const char *got,
                  const char *want) {
  if (tally(ok)) return;
  printf("FAIL %s: %s\n  got:  %s\n  want: %s\n", name, what, got ? got : "(null)",
         want ? want : "(null)");
}

/* The index in the generator's text form. */
static char *render(const sq_file_index *ix) {
  size_t cap = 256, len = 0;
  for (size_t i = 0; i < ix->ntensors; i++)
    cap += 2 * strlen(ix->tensors[i].name) + 64 + 22 * SQ_MAX_DIMS;
  for (size_t i = 0; i < ix->nmeta; i++)
    cap += 2 * (strlen(ix->meta[i].key) + strlen(ix->meta[i].value)) + 64;
  char *s = malloc(cap);
  s[0] = 0;
  for (size_t i = 0; i < ix->ntensors; i++) {
    const sq_file_tensor *t = &ix->tensors[i];
    len += (size_t)sprintf(s + len, "T ");
    for (const unsigned char *c = (const unsigned char *)t->name; *c; c++)
      len += (size_t)sprintf(s + len, "%02x", *c);
    len += (size_t)sprintf(s + len, " %s [", t->dtype);
    for (int d = 0; d < t->ndim; d++)
      len += (size_t)sprintf(s + len, "%s%lld", d ? "," : "", (long long)t->dim[d]);
    len += (size_t)sprintf(s + len, "] %llu %llu\n", (unsigned long long)t->offset,
                           (unsigned long long)t->nbytes);
  }
  for (size_t i = 0; i < ix->nmeta; i++) {
    const sq_file_meta *m = &ix->meta[i];
    len += (size_t)sprintf(s + len, "M ");
    for (const unsigned char *c = (const unsigned char *)m->key; *c; c++)
      len += (size_t)sprintf(s + len, "%02x", *c);
    len += (size_t)sprintf(s + len, " %s ", m->type);
    for (const unsigned char *c = (const unsigned char *)m->value; *c; c++)
      len += (size_t)sprintf(s + len, "%02x", *c);
    len += (size_t)sprintf(s + len, "\n");
  }
  return s;
}

/* The text without its "M ..." lines. */
static char *tensors_only(const char *text) {
  char *s = malloc(strlen(text) + 1), *o = s;
  while (*text) {
    const char *nl = strchr(text, '\n');
    size_t len = nl ? (size_t)(nl - text) + 1 : strlen(text);
    if (text[0] != 'M') { memcpy(o, text, len); o += len; }
    text += len;
  }
  *o = 0;
  return s;
}

static int is_empty(const sq_file_index *ix) {
  return !ix->tensors && !ix->meta && !ix->ntensors && !ix->nmeta;
}

/* A private copy of exactly n bytes, so that ASan sees a read past n. */
static unsigned char *copy_of(const unsigned char *p, size_t n) {
  unsigned char *c = malloc(n ? n : 1);
  if (n) memcpy(c, p, n);
  return c;
}

/* An index that sq_file_read accepted lies inside the bytes and covers the
** data exactly. */
static int index_sane(const unsigned char *p, size_t n, const sq_file_index *ix) {
  if (n < 8) return 0;
  uint64_t hlen = (uint64_t)sq_load_u32(p) | (uint64_t)sq_load_u32(p + 4) << 32;
  if (hlen > n - 8) return 0;
  uint64_t at = 8 + hlen;
  for (size_t i = 0; i < ix->ntensors; i++) {
    const sq_file_tensor *t = &ix->tensors[i];
    if (t->offset != at || t->nbytes > n - at) return 0;
    if (t->ndim < 0 || t->ndim > SQ_MAX_DIMS || !t->dtype[0] || !t->name) return 0;
    at += t->nbytes;
  }
  return at == n;
}

static void run_cases(void) {
  for (size_t k = 0; k < sizeof st_cases / sizeof st_cases[0]; k++) {
    const struct st_case *c = &st_cases[k];
    unsigned char *p = copy_of(c->bytes, c->n);
    sq_file_index ix;
    sq_status st = fresh_status();
    int rc = sq_file_read(p, c->n, SQ_FILE_SAFETENSORS, 1, &ix, &st);
    if (c->error) {
      check_got_want(rc == SQ_INVALID && st.code == SQ_INVALID, c->name, "fails",
            rc ? "an error" : "SQ_OK", "SQ_INVALID");
      check_got_want(strcmp(st.msg, c->error) == 0, c->name, "message", st.msg, c->error);
      check_got_want(is_empty(&ix), c->name, "index freed", "not empty", "empty");
      /* the reader called directly frees its index too */
      sq_file_index ix2;
      memset(&ix2, 0, sizeof ix2);
      ix2.budget = UINT64_MAX;
      sq_source src;
      sq_source_memory(&src, p, c->n);
      st = fresh_status();
      rc = sq_safetensors_read(&src, 0, &ix2, &st);
      check_got_want(rc == SQ_INVALID && strcmp(st.msg, c->error) == 0 && is_empty(&ix2),
            c->name, "message without metadata", st.msg, c->error);
    } else {
      check_got_want(rc == SQ_OK, c->name, "reads", st.msg, "SQ_OK");
      char *got = render(&ix);
      check_got_want(strcmp(got, c->index) == 0, c->name, "index", got, c->index);
      check_got_want(index_sane(p, c->n, &ix), c->name, "index inside the bytes", "no", "yes");
      free(got);
      sq_file_index_free(&ix);
      check_got_want(is_empty(&ix), c->name, "index_free empties", "not empty", "empty");
      st = fresh_status();
      rc = sq_file_read(p, c->n, SQ_FILE_SAFETENSORS, 0, &ix, &st);
      got = render(&ix);
      char *want = tensors_only(c->index);
      check_got_want(rc == SQ_OK && strcmp(got, want) == 0, c->name, "index without metadata",
            got, want);
      free(got);
      free(want);
      sq_file_index_free(&ix);
      check_got_want(sq_file_detect(p, c->n) == SQ_FILE_SAFETENSORS, c->name, "detected",
            "other", "safetensors");
      /* every strict prefix is refused, cleanly */
      for (size_t len = 0; len < c->n; len++) {
        unsigned char *q = copy_of(p, len);
        st = fresh_status();
        rc = sq_file_read(q, len, SQ_FILE_SAFETENSORS, 1, &ix, &st);
        if (rc != SQ_INVALID || !is_empty(&ix) ||
            strncmp(st.msg, "safetensors: ", 13) != 0) {
          char what[64];
          snprintf(what, sizeof what, "prefix of %zu bytes refused", len);
          check_got_want(0, c->name, what, st.msg, "an error");
          sq_file_index_free(&ix);
          free(q);
          break;
        }
        free(q);
      }
      g_pass++;
    }
    free(p);
  }
}

/* Deterministic byte mutations of the valid files. */
static void run_mutations(void) {
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  size_t accepted = 0, refused = 0;
  static const unsigned char interesting[] = {
    '{', '}', '[', ']', '"', '\\', ',', ':', '0', '1', '9', '-', '.', 'e',
    ' ', 0, 0x80, 0xff, 'u', 'n', 't', 'F', 'I', 'U'};
  for (size_t k = 0; k < sizeof st_cases / sizeof st_cases[0]; k++) {
    const struct st_case *c = &st_cases[k];
    if (c->error || c->n > 4096) continue;
    for (int iter = 0; iter < 3000; iter++) {
      unsigned char *p = copy_of(c->bytes, c->n);
      int edits = 1 + iter % 3;
      for (int e = 0; e < edits; e++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t at = (size_t)(seed >> 33) % c->n;
        unsigned r = (unsigned)(seed >> 20);
        p[at] = r & 1 ? interesting[(r >> 1) % sizeof interesting]
                      : (unsigned char)(r >> 8);
      }
      sq_file_index ix;
      sq_status st = fresh_status();
      int rc = sq_file_read(p, c->n, SQ_FILE_SAFETENSORS, 1, &ix, &st);
      if (rc == SQ_OK) {
        accepted++;
        if (!index_sane(p, c->n, &ix)) check_got_want(0, c->name, "mutant index sane", "no", "yes");
        sq_file_index_free(&ix);
      } else {
        refused++;
        if (rc != SQ_INVALID || !is_empty(&ix) || strncmp(st.msg, "safetensors: ", 13))
          check_got_want(0, c->name, "mutant refused cleanly", st.msg, "safetensors: ...");
      }
      free(p);
    }
  }
  check_got_want(accepted > 0 && refused > 0, "mutations", "both outcomes seen", "no", "yes");
  printf("mutations: %zu accepted, %zu refused\n", accepted, refused);
}

/* Allocation failure: each allocation of a read fails in turn (g_fail_at,
** tests/core_test.h). */
static void run_oom(void) {
  long runs = 0;
  for (size_t k = 0; k < sizeof st_cases / sizeof st_cases[0]; k++) {
    const struct st_case *c = &st_cases[k];
    if (c->n > 4096) continue;
    char want_msg[256];
    sq_file_index ix;
    sq_status st;
    g_fail_at = -1;
    st = fresh_status();
    sq_file_read(c->bytes, c->n, SQ_FILE_SAFETENSORS, 1, &ix, &st);
    char *want = c->error ? NULL : render(&ix);
    snprintf(want_msg, sizeof want_msg, "%s", st.msg);
    sq_file_index_free(&ix);
    for (g_fail_at = 0;; g_fail_at++) {
      g_allocs = 0;
      runs++;
      st = fresh_status();
      int rc = sq_file_read(c->bytes, c->n, SQ_FILE_SAFETENSORS, 1, &ix, &st);
      if (g_allocs <= g_fail_at) {
        /* nothing failed: the same outcome as without failures */
        char *got = rc ? NULL : render(&ix);
        int same = c->error ? strcmp(st.msg, want_msg) == 0
                            : rc == SQ_OK && strcmp(got, want) == 0;
        check_got_want(same, c->name, "outcome after the OOM runs", got ? got : st.msg,
              want ? want : want_msg);
        free(got);
        sq_file_index_free(&ix);
        break;
      }
      if (!(rc == SQ_NOMEM && is_empty(&ix))) {
        char what[64];
        snprintf(what, sizeof what, "allocation %ld failed", g_fail_at + 1);
        check_got_want(0, c->name, what, st.msg, "SQ_NOMEM, index empty");
        sq_file_index_free(&ix);
        break;
      }
    }
    g_fail_at = -1;
    free(want);
    g_pass++;
  }
  printf("oom: %ld runs, each allocation failed in turn\n", runs);
}

/* max_bytes (SQLITE_LIMIT_LENGTH) bounds results, not the index: a
** 1000-tensor index reads under 4096 bytes.  The index's budget bounds it
** (docs/FORMATS.md#memory): the reader called with a small one refuses with
** the sizes, and frees what it made. */
static void run_budget(void) {
  for (size_t k = 0; k < sizeof st_cases / sizeof st_cases[0]; k++) {
    const struct st_case *c = &st_cases[k];
    if (strcmp(c->name, "many_tensors")) continue;
    sq_file_index ix;
    sq_status st = fresh_status();
    st.max_bytes = 4096;
    int rc = sq_file_read(c->bytes, c->n, SQ_FILE_SAFETENSORS, 1, &ix, &st);
    check_got_want(rc == SQ_OK && ix.ntensors == 1000, c->name,
                   "index under max_bytes 4096", rc ? st.msg : "SQ_OK",
                   "SQ_OK");
    sq_file_index_free(&ix);
    memset(&ix, 0, sizeof ix);
    ix.format = "safetensors";
    ix.input = c->n;
    ix.budget = 5000;
    sq_source src;
    sq_source_memory(&src, c->bytes, c->n);
    st = fresh_status();
    rc = sq_safetensors_read(&src, 1, &ix, &st);
    char want[256];
    snprintf(want, sizeof want, "safetensors: the index of the %zu-byte file "
             "needs more than 5000 bytes for its names, scopes and metadata "
             "(32 per byte of the file, plus 1048576)", (size_t)c->n);
    check_got_want(rc == SQ_INVALID && strcmp(st.msg, want) == 0 &&
                   is_empty(&ix), c->name, "over the budget", st.msg, want);
  }
}

/* ---- files by path (formats/source.h, docs/FORMATS.md#how-files-are-read) -- */

static void expect_open_error(const char *path, const char *want) {
  sq_source src;
  sq_status st = fresh_status();
  int rc = sq_source_open(&src, path, path, 0, &st);
  check_got_want(rc == SQ_INVALID && strcmp(st.msg, want) == 0 &&
                 !src.is_file, path, "refused", st.msg, want);
  sq_source_close(&src);
}

/* A safetensors file of one f32 tensor [262144, 1024] (1 GiB, sparse) at
** path; its size. */
static uint64_t big_safetensors(const char *path) {
  static const char json[] = "{\"w\":{\"dtype\":\"F32\",\"shape\":[262144,1024],"
                             "\"data_offsets\":[0,1073741824]}}";
  unsigned char head[8 + sizeof json];
  size_t hlen = sizeof json - 1;
  sq_store_u32(head, (uint32_t)hlen);
  sq_store_u32(head + 4, 0);
  memcpy(head + 8, json, hlen);
  uint64_t total = 8 + hlen + ((uint64_t)1 << 30);
  if (write_sparse(path, head, 8 + hlen, total)) {
    printf("FAIL: cannot write %s\n", path);
    exit(2);
  }
  return total;
}

/* Opens and indexes path; 1 on success (the source open, ix read). */
static int open_index(const char *path, sq_source *src, sq_file_index *ix) {
  sq_status st = fresh_status();
  if (sq_source_open(src, path, path, 0, &st) ||
      sq_file_read_source(src, SQ_FILE_SAFETENSORS, 0, ix, &st)) {
    check_got_want(0, path, "opens and indexes", st.msg, "SQ_OK");
    return 0;
  }
  return 1;
}

static int read_at(sq_source *src, const sq_file_tensor *t, uint64_t start,
                   unsigned char *out, size_t len, sq_status *st) {
  sq_file_view v = {src, NULL};
  *st = fresh_status();
  return sq_file_tensor_read(&v, t, start, len, out, st);
}

static void run_files(void) {
  const char *dir = temp_dir();
  char path[600], other[600], fifo[600], want[1400];
  snprintf(path, sizeof path, "%s/big.safetensors", dir);
  snprintf(other, sizeof other, "%s/other.safetensors", dir);
  snprintf(fifo, sizeof fifo, "%s/a.fifo", dir);

  /* What is not a regular file, refused by kind (a fifo at once: opened
  ** without waiting for a writer). */
  snprintf(want, sizeof want, "cannot open '%s/none': no such file", dir);
  snprintf(other, sizeof other, "%s/none", dir);
  expect_open_error(other, want);
  snprintf(want, sizeof want, "'%s' is not a regular file (a directory)", dir);
  expect_open_error(dir, want);
  expect_open_error("/dev/null", "'/dev/null' is not a regular file (a "
                    "character device)");
  if (mkfifo(fifo, 0600) == 0) {
    snprintf(want, sizeof want, "'%s' is not a regular file (a fifo)", fifo);
    expect_open_error(fifo, want);
    unlink(fifo);
  } else {
    check_got_want(0, fifo, "mkfifo", "failed", "made");
  }
  snprintf(other, sizeof other, "%s/other.safetensors", dir);

  /* Indexing reads the first page, not the data; a chunk read reads the
  ** chunk. */
  uint64_t size = big_safetensors(path);
  sq_source src;
  sq_file_index ix;
  unsigned char buf[4096];
  sq_status st;
  if (open_index(path, &src, &ix)) {
    check(src.bytes_read == SQ_SOURCE_PAGE && ix.ntensors == 1,
          "1 GiB safetensors: indexing read %llu bytes in %llu reads, want "
          "one page (%u)", (unsigned long long)src.bytes_read,
          (unsigned long long)src.reads, SQ_SOURCE_PAGE);
    printf("a %llu-byte safetensors file indexed by reading %llu bytes\n",
           (unsigned long long)size, (unsigned long long)src.bytes_read);
    uint64_t before = src.bytes_read;
    int rc = read_at(&src, &ix.tensors[0], ((uint64_t)1 << 30) - 4096, buf,
                     4096, &st);
    check(rc == SQ_OK && src.bytes_read - before == 4096,
          "its last 4096 bytes: rc %d (%s), %llu bytes read", rc, st.msg,
          (unsigned long long)(src.bytes_read - before));
    /* rewritten in place, the same size: its mtime moves */
    int fd = open(path, O_WRONLY);
    check(fd >= 0 && pwrite(fd, "x", 1, 100) == 1 && close(fd) == 0,
          "rewrite %s in place", path);
    rc = read_at(&src, &ix.tensors[0], 0, buf, 16, &st);
    snprintf(want, sizeof want, "'%s' changed while it was read (it is still "
             "%llu bytes, but was modified)", path, (unsigned long long)size);
    check_got_want(rc == SQ_INVALID && strcmp(st.msg, want) == 0, path,
                   "rewritten in place", st.msg, want);
    sq_file_index_free(&ix);
    sq_source_close(&src);
  }
  /* truncated */
  big_safetensors(path);
  if (open_index(path, &src, &ix)) {
    check(truncate(path, 1000) == 0, "truncate %s", path);
    int rc = read_at(&src, &ix.tensors[0], 4096, buf, 16, &st);
    snprintf(want, sizeof want, "'%s' changed while it was read (it is now "
             "1000 bytes, was %llu)", path, (unsigned long long)size);
    check_got_want(rc == SQ_INVALID && strcmp(st.msg, want) == 0, path,
                   "truncated", st.msg, want);
    sq_file_index_free(&ix);
    sq_source_close(&src);
  }
  /* replaced by rename: read as it was (the other file's byte 200 of data
  ** is 'y', the old one's 0) */
  big_safetensors(path);
  big_safetensors(other);
  if (open_index(path, &src, &ix)) {
    int fd = open(other, O_WRONLY);
    off_t data = (off_t)(size - ((uint64_t)1 << 30));
    check(fd >= 0 && pwrite(fd, "y", 1, data + 200) == 1 && close(fd) == 0,
          "write %s", other);
    check(rename(other, path) == 0, "rename over %s", path);
    int rc = read_at(&src, &ix.tensors[0], 192, buf, 16, &st);
    check(rc == SQ_OK && buf[8] == 0, "renamed over: rc %d (%s), byte %u",
          rc, st.msg, (unsigned)buf[8]);
    sq_file_index_free(&ix);
    sq_source_close(&src);
  }
  unlink(path);
  unlink(other);
  rmdir(dir);
}

int main(void) {
  install_failing_allocator();
  run_cases();
  run_mutations();
  run_oom();
  run_budget();
  run_files();
  printf("safetensors_core_test: %d passed, %d failed\n", g_pass, g_fail);
  return g_fail != 0;
}
