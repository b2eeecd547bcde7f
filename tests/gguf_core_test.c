/*
** gguf_core_test.c: the GGUF reader (ext/formats/gguf_read.c) without SQLite.
**
**   build/gguf_core_test [tests/data/gguf]
**
** 1. The files of tests/data/gguf/, written by ggml's own writer
**    (tests/gen_gguf.py): every tensor must equal what ggml read back
**    (<file>.expected: name, dtype, shape, offset, size), every metadata key
**    and type what ggml read (<file>.meta), the values their exact JSON.
** 2. Hand-made and corrupted files: each must fail with its exact message.
** 3. Every truncation of every file fails cleanly; every allocation of a
**    read fails in turn (SQ_NOMEM, nothing leaked: run under ASan).
**
** The core allocates through sqlite3_api (core/memory.h); here that table
** holds malloc wrappers that can fail on demand, so SQLite is not needed.
** 4. A 1 GiB GGUF file (sparse) indexed by path reads one page of it.
** Run it under LC_ALL=de_DE.UTF-8 too: numbers must not change.
** Output: failures, then "N passed, N failed"; exit status 1 on a failure.
*/
#define _XOPEN_SOURCE 700
#define CORE_TEST_FILES
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/formats.h"
#include "core_test.h"

static char *load_text(const char *path) {
  size_t n;
  unsigned char *p = load_or_die(path, &n);
  char *s = realloc(p, n + 1);
  s[n] = 0;
  return s;
}

/* Reads p[0..n) into ix; the status. */
static sq_status read_gguf(const unsigned char *p, size_t n, int want_meta,
                           sq_file_index *ix) {
  sq_status st = fresh_status();
  sq_file_read(p, n, SQ_FILE_GGUF, want_meta, ix, &st);
  return st;
}

static void shape_text(const sq_file_tensor *t, char *buf, size_t cap) {
  size_t o = (size_t)snprintf(buf, cap, "[");
  for (int d = 0; d < t->ndim; d++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%lld", d ? "," : "",
                          (long long)t->dim[d]);
  snprintf(buf + o, cap - o, "]");
}

static const sq_file_meta *find_meta(const sq_file_index *ix, const char *key) {
  for (size_t i = 0; i < ix->nmeta; i++)
    if (strcmp(ix->meta[i].key, key) == 0) return &ix->meta[i];
  return NULL;
}

/* The index of file dir/name must equal name.expected and name.meta. */
static void check_file(const char *dir, const char *name, int want_meta) {
  char path[512];
  size_t n;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unsigned char *p = load_or_die(path, &n);
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  char *expected = load_text(path);
  snprintf(path, sizeof path, "%s/%s.meta", dir, name);
  char *meta = load_text(path);

  sq_file_index ix;
  sq_status st = read_gguf(p, n, want_meta, &ix);
  CHECK(st.code == SQ_OK, "%s: %s", name, st.msg);
  size_t i = 0;
  for (char *line = strtok(expected, "\n"); line; line = strtok(NULL, "\n"), i++) {
    if (i >= ix.ntensors) { CHECK(0, "%s: tensor %zu missing", name, i); break; }
    const sq_file_tensor *t = &ix.tensors[i];
    char got[512], shape[256];
    shape_text(t, shape, sizeof shape);
    snprintf(got, sizeof got, "%s\t%s\t%s\t%llu\t%llu", t->name, t->dtype, shape,
             (unsigned long long)t->offset, (unsigned long long)t->nbytes);
    CHECK(strcmp(got, line) == 0, "%s: tensor %zu: got '%s', ggml read '%s'",
          name, i, got, line);
    /* The generator's byte pattern: byte j of tensor i is (i*31 + j*7) % 251. */
    int same = t->offset + t->nbytes <= n;
    for (uint64_t j = 0; same && j < t->nbytes; j++)
      same = p[t->offset + j] == (unsigned char)((i * 31 + j * 7) % 251);
    CHECK(same, "%s: tensor %s: data bytes differ", name, t->name);
  }
  CHECK(i == ix.ntensors, "%s: %zu tensors, expected %zu", name, ix.ntensors, i);
  if (want_meta) {
    i = 0;
    for (char *line = strtok(meta, "\n"); line; line = strtok(NULL, "\n"), i++) {
      if (i >= ix.nmeta) { CHECK(0, "%s: meta %zu missing", name, i); break; }
      char got[512];
      snprintf(got, sizeof got, "%s\t%s", ix.meta[i].key, ix.meta[i].type);
      CHECK(strcmp(got, line) == 0, "%s: meta %zu: got '%s', ggml read '%s'",
            name, i, got, line);
    }
    CHECK(i == ix.nmeta, "%s: %zu meta entries, expected %zu", name, ix.nmeta, i);
  } else {
    CHECK(ix.nmeta == 0, "%s: metadata read without want_meta", name);
  }
  sq_file_index_free(&ix);
  free(p);
  free(expected);
  free(meta);
}

static void check_basic_values(const char *dir) {
  static const char *const want[][2] = {
    {"general.architecture", "\"llama\""},
    {"t.u8", "255"}, {"t.i8", "-128"}, {"t.u16", "65535"},
    {"t.i16", "-32768"}, {"t.u32", "4294967295"}, {"t.i32", "-2147483648"},
    {"t.f32", "0.1"}, {"t.bool", "true"}, {"t.false", "false"},
    {"t.str", "\"quote \\\" backslash \\\\ newline \\n tab \\t ctl \\u0001 "
              "\xc3\xa9 \xe2\x9c\x93\""},
    {"t.u64", "18446744073709551615"}, {"t.i64", "-9223372036854775808"},
    {"t.f64", "0.1"}, {"t.f32_big", "1e20"}, {"t.f32_whole", "50"},
    {"t.f64_tiny", "5e-324"}, {"t.f32_nan", "\"NaN\""},
    {"t.f64_neginf", "\"-Infinity\""}, {"t.f64_big", "1e20"},
    {"t.f64_whole", "50"}, {"t.f64_small", "-1.5e-7"},
    {"t.f64_pi", "3.141592653589793"},
    {"t.arr_i32", "[1,-2,3]"}, {"t.arr_f32", "[0.5,-1.25,1e-7]"},
    {"t.arr_u8", "[]"}, {"t.arr_bool", "[true,false]"},
    {"tokenizer.ggml.tokens", "[\"<s>\",\"a\\\"b\",\"\"]"},
  };
  char path[512];
  size_t n;
  snprintf(path, sizeof path, "%s/basic.gguf", dir);
  unsigned char *p = load_or_die(path, &n);
  sq_file_index ix;
  sq_status st = read_gguf(p, n, 1, &ix);
  CHECK(st.code == SQ_OK, "basic: %s", st.msg);
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const sq_file_meta *m = find_meta(&ix, want[i][0]);
    CHECK(m && strcmp(m->value, want[i][1]) == 0, "%s: got %s, want %s",
          want[i][0], m ? m->value : "(missing)", want[i][1]);
  }
  sq_file_index_free(&ix);

  /* Version 2 has the same layout. */
  p[4] = 2;
  st = read_gguf(p, n, 1, &ix);
  CHECK(st.code == SQ_OK && ix.ntensors == 21 && ix.nmeta == 28,
        "basic as v2: %s", st.msg);
  sq_file_index_free(&ix);
  p[4] = 3;

  /* Every truncation before the end of the last tensor's data fails cleanly
  ** (ggml pads the file after it: those truncations read the same). */
  uint64_t end = 0;
  st = read_gguf(p, n, 0, &ix);
  for (size_t i = 0; i < ix.ntensors; i++)
    if (ix.tensors[i].offset + ix.tensors[i].nbytes > end)
      end = ix.tensors[i].offset + ix.tensors[i].nbytes;
  sq_file_index_free(&ix);
  CHECK(end <= n && n - end < 32, "basic.gguf: data ends at %llu of %zu",
        (unsigned long long)end, n);
  int all_fail = 1;
  for (size_t k = 0; k < n; k++) {
    unsigned char *c = malloc(k ? k : 1);
    memcpy(c, p, k);
    st = read_gguf(c, k, 1, &ix);
    if (k >= end) {
      if (st.code != SQ_OK || ix.ntensors != 21) {
        all_fail = 0;
        printf("truncated to %zu: code %d '%s'\n", k, st.code, st.msg);
      }
      sq_file_index_free(&ix);
    } else if (st.code != SQ_INVALID || ix.ntensors || ix.nmeta || !st.msg[0]) {
      all_fail = 0;
      printf("truncated to %zu: code %d '%s'\n", k, st.code, st.msg);
    }
    free(c);
  }
  CHECK(all_fail, "every truncation of basic.gguf fails");

  /* Every allocation failed in turn: SQ_NOMEM and an empty index. */
  int oom_ok = 1;
  long k;
  for (k = 0;; k++) {
    g_allocs = 0;
    g_fail_at = k;
    st = read_gguf(p, n, 1, &ix);
    g_fail_at = -1;
    if (st.code == SQ_OK) { sq_file_index_free(&ix); break; }
    if (st.code != SQ_NOMEM || ix.ntensors || ix.nmeta || ix.tensors || ix.meta) {
      oom_ok = 0;
      printf("allocation %ld failed: code %d '%s'\n", k, st.code, st.msg);
    }
  }
  CHECK(oom_ok && k > 50, "every allocation failed in turn (%ld)", k);

  /* The index is bounded by its budget (docs/FORMATS.md#memory), not by
  ** max_bytes, which bounds results: under max_bytes 40 the metadata still
  ** reads (SQL refuses a value over the limit when the value is read). */
  st = fresh_status();
  st.max_bytes = 40;
  sq_file_read(p, n, SQ_FILE_GGUF, 1, &ix, &st);
  CHECK(st.code == SQ_OK && ix.nmeta > 20, "max_bytes 40: code %d, %zu rows",
        st.code, ix.nmeta);
  sq_file_index_free(&ix);
  free(p);
}

/* ---- hand-made files ---- */
typedef struct buf {
  unsigned char b[4096];
  size_t n;
} buf;

static void put(buf *b, const void *p, size_t k) {
  memcpy(b->b + b->n, p, k);
  b->n += k;
}
static void u32(buf *b, uint32_t v) {
  for (int i = 0; i < 4; i++) b->b[b->n++] = (unsigned char)(v >> (8 * i));
}
static void u64(buf *b, uint64_t v) {
  for (int i = 0; i < 8; i++) b->b[b->n++] = (unsigned char)(v >> (8 * i));
}
static void str(buf *b, const char *s) {
  u64(b, strlen(s));
  put(b, s, strlen(s));
}
static void header(buf *b, uint32_t version, uint64_t nt, uint64_t nkv) {
  b->n = 0;
  put(b, "GGUF", 4);
  u32(b, version);
  u64(b, nt);
  u64(b, nkv);
}
/* A tensor info of n dims. */
static void tinfo(buf *b, const char *name, uint32_t nd, const uint64_t *ne,
                  uint32_t type, uint64_t off) {
  str(b, name);
  u32(b, nd);
  for (uint32_t d = 0; d < nd; d++) u64(b, ne[d]);
  u32(b, type);
  u64(b, off);
}
static void pad(buf *b, size_t align, size_t data_bytes) {
  while (b->n % align) b->b[b->n++] = 0;
  memset(b->b + b->n, 0xAB, data_bytes);
  b->n += data_bytes;
}

static void expect_error(buf *b, const char *want, const char *what) {
  sq_file_index ix;
  sq_status st = read_gguf(b->b, b->n, 1, &ix);
  CHECK(st.code == SQ_INVALID && strcmp(st.msg, want) == 0,
        "%s: got code %d '%s', want '%s'", what, st.code, st.msg, want);
  CHECK(ix.ntensors == 0 && ix.nmeta == 0, "%s: index not freed", what);
  /* The same without metadata (but for errors only metadata can have). */
  st = read_gguf(b->b, b->n, 0, &ix);
  CHECK(st.code == SQ_INVALID, "%s (no meta): code %d", what, st.code);
  sq_file_index_free(&ix);
}

static void check_hand_made(void) {
  buf b;
  uint64_t ne4[2] = {4, 1}, ne32[1] = {32};

  /* A good one first: a 1x4 f32 tensor (numpy shape [1, 4]) at offset 0. */
  header(&b, 3, 1, 1);
  str(&b, "k"); u32(&b, 8); str(&b, "v");
  tinfo(&b, "w", 2, ne4, 0, 0);
  size_t info_end = b.n;
  pad(&b, 32, 16);
  {
    sq_file_index ix;
    sq_status st = read_gguf(b.b, b.n, 1, &ix);
    CHECK(st.code == SQ_OK && ix.ntensors == 1 && ix.tensors[0].ndim == 2 &&
          ix.tensors[0].dim[0] == 1 && ix.tensors[0].dim[1] == 4 &&
          ix.tensors[0].offset == (info_end + 31) / 32 * 32 &&
          ix.tensors[0].nbytes == 16 && strcmp(ix.tensors[0].dtype, "f32") == 0,
          "hand-made good file: %s", st.msg);
    sq_file_index_free(&ix);
  }
  b.n -= 1;
  expect_error(&b, "gguf: tensor 'w' data (16 bytes at offset 0 of the data "
               "section at byte 96) is past the end of the 111-byte file",
               "data past the end");

  header(&b, 3, 0, 0);
  memcpy(b.b, "GGUG", 4);
  expect_error(&b, "gguf: not a GGUF file (the first 4 bytes are not \"GGUF\")",
               "bad magic");
  header(&b, 1, 0, 0);
  expect_error(&b, "gguf: version 1 is not supported (GGUF v1 used 32-bit "
               "counts; only versions 2 and 3 are read)", "version 1");
  header(&b, 4, 0, 0);
  expect_error(&b, "gguf: version 4 is not supported (only versions 2 and 3 "
               "are read)", "version 4");
  header(&b, 0x03000000, 0, 0);
  expect_error(&b, "gguf: version 50331648: this looks like a big-endian GGUF "
               "file, which is not supported", "big-endian");
  header(&b, 3, 0, 0);
  b.n = 10;
  expect_error(&b, "gguf: truncated: tensor count at byte 8 needs 8 bytes, 2 "
               "are left", "truncated header");

  header(&b, 3, (uint64_t)1 << 60, 0);
  expect_error(&b, "gguf: tensor count 1152921504606846976 is impossible: 0 "
               "bytes are left", "absurd tensor count");
  header(&b, 3, 0, UINT64_MAX);
  expect_error(&b, "gguf: key-value count 18446744073709551615 is impossible: "
               "0 bytes are left", "absurd kv count");
  header(&b, 3, 1, 1);
  str(&b, "k"); u32(&b, 4); u32(&b, 7);
  expect_error(&b, "gguf: tensor count 1 is impossible: 17 bytes are left",
               "tensor count");
  memset(b.b + b.n, 0, 20);
  b.n += 20;
  expect_error(&b, "gguf: truncated: 1 tensor infos at byte 41 need at least 24 "
               "bytes, 20 are left", "tensor count after the kvs");

  header(&b, 3, 0, 1);
  str(&b, "tokens"); u32(&b, 9); u32(&b, 8); u64(&b, (uint64_t)1 << 60);
  u64(&b, 0);
  expect_error(&b, "gguf: key 'tokens': an array of 1152921504606846976 string "
               "values cannot fit in the 8 bytes left", "absurd array count");
  header(&b, 3, 0, 1);
  str(&b, "k"); u32(&b, 8); u64(&b, UINT64_MAX);
  expect_error(&b, "gguf: string value at byte 37 has length "
               "18446744073709551615, past the end of the 45-byte file",
               "absurd string length");
  header(&b, 3, 0, 1);
  u64(&b, (uint64_t)1 << 62);
  expect_error(&b, "gguf: key-value count 1 is impossible: 8 bytes are left",
               "absurd key length");
  header(&b, 3, 0, 1);
  u64(&b, (uint64_t)1 << 62);
  memset(b.b + b.n, 0, 8);
  b.n += 8;
  expect_error(&b, "gguf: key at byte 24 has length 4611686018427387904, past "
               "the end of the 40-byte file", "absurd key length 2");

  header(&b, 3, 0, 1);
  str(&b, "k"); u32(&b, 13); u32(&b, 0);
  expect_error(&b, "gguf: key 'k' has unknown value type 13", "value type");
  header(&b, 3, 0, 1);
  str(&b, "k"); u32(&b, 9); u32(&b, 9); u64(&b, 1); u32(&b, 0); u64(&b, 0);
  expect_error(&b, "gguf: key 'k': arrays of arrays are not supported",
               "nested array");
  header(&b, 3, 0, 1);
  str(&b, "k"); u32(&b, 7); b.b[b.n++] = 2;
  expect_error(&b, "gguf: key 'k': bool value 2 is neither 0 nor 1", "bool 2");
  header(&b, 3, 0, 2);
  str(&b, "k"); u32(&b, 4); u32(&b, 1);
  str(&b, "k"); u32(&b, 4); u32(&b, 2);
  expect_error(&b, "gguf: duplicate key 'k'", "duplicate key");
  {
    /* A long name is quoted up to 64 bytes, cut at a character boundary. */
    char key[80] = "a", want[120];
    for (int i = 0; i < 35; i++) strcat(key, "\xc3\xa9");
    header(&b, 3, 0, 2);
    str(&b, key); u32(&b, 4); u32(&b, 1);
    str(&b, key); u32(&b, 4); u32(&b, 2);
    snprintf(want, sizeof want, "gguf: duplicate key '%.63s'", key);
    expect_error(&b, want, "duplicate long key");
  }
  header(&b, 3, 0, 1);
  u64(&b, 3); put(&b, "a\0b", 3); u32(&b, 4); u32(&b, 1);
  expect_error(&b, "gguf: key at byte 24 contains a NUL byte", "NUL in key");
  header(&b, 3, 0, 1);
  str(&b, "k"); u32(&b, 8); str(&b, "\xff");
  expect_error(&b, "gguf: string value at byte 37 is not valid UTF-8",
               "invalid UTF-8");
  header(&b, 3, 0, 1);
  str(&b, "general.alignment"); u32(&b, 4); u32(&b, 48);
  expect_error(&b, "gguf: general.alignment 48 is not a power of 2",
               "alignment 48");
  header(&b, 3, 0, 1);
  str(&b, "general.alignment"); u32(&b, 4); u32(&b, 0);
  expect_error(&b, "gguf: general.alignment 0 is not a power of 2",
               "alignment 0");
  header(&b, 3, 0, 1);
  str(&b, "general.alignment"); u32(&b, 10); u64(&b, 64);
  expect_error(&b, "gguf: general.alignment must be a uint32, not uint64",
               "alignment type");

  header(&b, 3, 1, 0);
  tinfo(&b, "w", 1, ne32, 0, 4);
  pad(&b, 32, 256);
  expect_error(&b, "gguf: tensor 'w' offset 4 is not a multiple of the "
               "alignment 32", "misaligned offset");
  header(&b, 3, 1, 0);
  tinfo(&b, "w", 1, ne32, 0, (uint64_t)1 << 63);
  pad(&b, 32, 128);
  expect_error(&b, "gguf: tensor 'w' data (128 bytes at offset "
               "9223372036854775808 of the data section at byte 64) is past "
               "the end of the 192-byte file", "offset past the end");
  header(&b, 3, 1, 0);
  tinfo(&b, "w", 1, ne32, 4, 0);
  pad(&b, 32, 128);
  expect_error(&b, "gguf: tensor 'w' has unknown ggml type 4", "type 4");
  header(&b, 3, 1, 0);
  tinfo(&b, "w", 1, ne32, 99, 0);
  pad(&b, 32, 128);
  expect_error(&b, "gguf: tensor 'w' has unknown ggml type 99", "type 99");
  header(&b, 3, 1, 0);
  {
    uint64_t ne5[5] = {1, 1, 1, 1, 1};
    tinfo(&b, "w", 5, ne5, 0, 0);
  }
  pad(&b, 32, 4);
  expect_error(&b, "gguf: tensor 'w' has 5 dimensions (ggml allows at most 4)",
               "5 dims");
  header(&b, 3, 1, 0);
  {
    uint64_t ne33[1] = {33};
    tinfo(&b, "w", 1, ne33, 2, 0);
  }
  pad(&b, 32, 64);
  expect_error(&b, "gguf: tensor 'w' of type q4_0 has rows of 33 elements, not "
               "a multiple of the block size 32", "partial block");
  header(&b, 3, 1, 0);
  {
    uint64_t big[2] = {(uint64_t)1 << 32, (uint64_t)1 << 32};
    tinfo(&b, "w", 2, big, 0, 0);
  }
  expect_error(&b, "gguf: tensor 'w' is too large (its size overflows 64 bits)",
               "size overflow");
  header(&b, 3, 1, 0);
  {
    uint64_t neg[1] = {UINT64_MAX};
    tinfo(&b, "w", 1, neg, 0, 0);
  }
  expect_error(&b, "gguf: tensor 'w' dimension 0 is 18446744073709551615 "
               "(above 2^63 - 1)", "negative dim");
  header(&b, 3, 2, 0);
  tinfo(&b, "w", 1, ne32, 0, 0);
  tinfo(&b, "w", 1, ne32, 0, 128);
  pad(&b, 32, 256);
  expect_error(&b, "gguf: duplicate tensor name 'w'", "duplicate tensor");
  header(&b, 3, 2, 0);
  tinfo(&b, "a", 1, ne32, 0, 0);
  tinfo(&b, "b", 1, ne32, 0, 96);
  pad(&b, 32, 256);
  expect_error(&b, "gguf: the data of tensors 'a' and 'b' overlap", "overlap");

  /* Accepted: a scalar (0 dims), an empty tensor, tensors out of order, an
  ** iq type, alignment 8. */
  header(&b, 3, 4, 1);
  str(&b, "general.alignment"); u32(&b, 4); u32(&b, 8);
  tinfo(&b, "scalar", 0, NULL, 28, 136);
  {
    uint64_t empty[2] = {0, 5};
    tinfo(&b, "empty", 2, empty, 1, 0);
  }
  tinfo(&b, "f", 1, ne32, 0, 0);
  {
    uint64_t ne256[1] = {256};
    tinfo(&b, "iq", 1, ne256, 16, 144);
  }
  size_t data = (b.n + 7) / 8 * 8;
  pad(&b, 8, 144 + 66);
  {
    sq_file_index ix;
    sq_status st = read_gguf(b.b, b.n, 1, &ix);
    CHECK(st.code == SQ_OK && ix.ntensors == 4, "accepted file: %s", st.msg);
    if (st.code == SQ_OK && ix.ntensors == 4) {
      const sq_file_tensor *t = ix.tensors;
      CHECK(t[0].ndim == 0 && t[0].nbytes == 8 && t[0].offset == data + 136 &&
            strcmp(t[0].dtype, "f64") == 0, "scalar");
      CHECK(t[1].ndim == 2 && t[1].dim[0] == 5 && t[1].dim[1] == 0 &&
            t[1].nbytes == 0 && t[1].offset == data, "empty");
      CHECK(t[3].nbytes == 66 && strcmp(t[3].dtype, "iq2_xxs") == 0, "iq2_xxs");
      CHECK(ix.nmeta == 1 && strcmp(ix.meta[0].value, "8") == 0, "alignment meta");
    }
    sq_file_index_free(&ix);
  }
}

/* ---- a file by path (formats/source.h) ---- */

/* Two tensors of 512 MiB each after one key: indexing reads the first
** page (the header and the infos), none of the data. */
static void check_by_path(void) {
  buf b;
  header(&b, 3, 2, 1);
  str(&b, "general.name");
  u32(&b, 8);
  str(&b, "big");
  const uint64_t ne[2] = {1024, 131072};
  tinfo(&b, "a", 2, ne, 0, 0);
  tinfo(&b, "b", 2, ne, 0, (uint64_t)1 << 29);
  while (b.n % 32) b.b[b.n++] = 0;
  uint64_t total = b.n + ((uint64_t)1 << 30);
  const char *dir = temp_dir();
  char path[600];
  snprintf(path, sizeof path, "%s/big.gguf", dir);
  if (write_sparse(path, b.b, b.n, total)) {
    CHECK(0, "cannot write %s", path);
    return;
  }
  sq_source src;
  sq_file_index ix;
  sq_status st = fresh_status();
  int rc = sq_source_open(&src, path, path, 0, &st);
  if (!rc) rc = sq_file_read_source(&src, SQ_FILE_GGUF, 1, &ix, &st);
  CHECK(rc == SQ_OK && ix.ntensors == 2 && ix.nmeta == 1 &&
        src.bytes_read == SQ_SOURCE_PAGE,
        "1 GiB GGUF by path: rc %d (%s), %llu bytes read", rc, st.msg,
        (unsigned long long)src.bytes_read);
  printf("a %llu-byte GGUF file indexed by reading %llu bytes\n",
         (unsigned long long)total, (unsigned long long)src.bytes_read);
  if (rc == SQ_OK) sq_file_index_free(&ix);
  sq_source_close(&src);
  unlink(path);
  rmdir(dir);
}

int main(int argc, char **argv) {
  install_failing_allocator();
  const char *dir = argc > 1 ? argv[1] : "tests/data/gguf";
  /* The host's locale (LC_ALL=de_DE.UTF-8 ...) must not change a number. */
  setlocale(LC_ALL, "");

  check_file(dir, "basic.gguf", 1);
  check_file(dir, "basic.gguf", 0);
  check_file(dir, "align64.gguf", 1);
  check_file(dir, "empty.gguf", 1);
  check_file(dir, "blocks.gguf", 1);   /* the block types basic.gguf lacks */
  check_basic_values(dir);
  check_hand_made();
  check_by_path();
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
