/*
** safetensors_core_test.c: the safetensors reader (ext/core/safetensors.c,
** docs/FORMATS.md#safetensors) against the cases of tests/gen_safetensors.py,
** without SQL.  Built with SQLite compiled in (SQLITE_CORE), as the fuzz
** targets are:
**
**   cc -std=c11 -O1 -g -ffp-contract=off -DSQLITE_CORE -Iinclude -Iext \
**      -o build/safetensors_core_test tests/safetensors_core_test.c \
**      $(CORE_SRC) $(KERNEL_SRC) -lsqlite3 -lm
**
** (every .c file of ext/core and ext/kernels: model_file.c dispatches to
** every reader; add -fsanitize=address,undefined for ASan and UBSan.)
**
** Checks, for every case: sq_file_read's index (each tensor's name, dtype,
** shape, offset and size; each metadata row) or its exact error, with the
** index left empty; the same without metadata; detection; every strict
** prefix of a valid file refused; byte mutations of the valid files either
** refused or read into an index that lies inside the bytes; and every
** allocation failed in turn (SQ_NOMEM, nothing leaked: run under ASan).
** Prints "safetensors_core_test: N passed, M failed".
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "core/model_file.h"
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

int main(void) {
  install_failing_allocator();
  run_cases();
  run_mutations();
  run_oom();
  run_budget();
  printf("safetensors_core_test: %d passed, %d failed\n", g_pass, g_fail);
  return g_fail != 0;
}
