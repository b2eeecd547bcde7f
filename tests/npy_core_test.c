/*
** npy_core_test.c: the .npy and .npz readers (ext/core/npy.c) on files
** written by numpy and on hand-made and corrupted ones (tests/gen_npy.py,
** committed in tests/data/npy/), with the exact index entries and the exact
** error messages; then every prefix and every single-byte corruption of two
** real files, which must read or fail cleanly (run it under ASan + UBSan).
** Each file is read from an exact-size heap copy, so a read past its end is
** seen by AddressSanitizer.
**
**   build/npy_core_test [tests/data/npy]
**
** Links npy.c, model_file.c (the other readers stubbed below) and SQLite
** itself (-DSQLITE_CORE -lsqlite3) for the allocator.  Prints failures, then "N passed, N failed";
** exit status 1 on any failure.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/model_file.h"
#include "kernels/byteorder.h"

/* model_file.c dispatches to every reader; this test links only npy.c, so
** the others (written by other hands, with their own dependencies) are
** stubbed out here. */
int sq_safetensors_read(const unsigned char *p, size_t n, int want_meta,
                        sq_file_index *ix, sq_status *st) {
  (void)p; (void)n; (void)want_meta; (void)ix;
  return sq_fail(st, "safetensors: not linked into npy_core_test");
}
int sq_gguf_read(const unsigned char *p, size_t n, int want_meta,
                 sq_file_index *ix, sq_status *st) {
  (void)p; (void)n; (void)want_meta; (void)ix;
  return sq_fail(st, "gguf: not linked into npy_core_test");
}

static int g_pass, g_fail;
static const char *g_dir = "tests/data/npy";

static void check(int ok, const char *fmt, ...) {
  if (ok) {
    g_pass++;
    return;
  }
  g_fail++;
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL: ", stdout);
  vprintf(fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
}

/* The file's bytes in an exact-size malloc'd buffer. */
static unsigned char *load(const char *name, size_t *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    printf("FAIL: cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = malloc(len ? (size_t)len : 1);
  if (!p || fread(p, 1, (size_t)len, f) != (size_t)len) exit(1);
  fclose(f);
  *n = (size_t)len;
  return p;
}

static void st_init(sq_status *st) {
  memset(st, 0, sizeof *st);
  st->max_bytes = 1000000000;
}

/* Reads a file by its detected format (fmt -1) or by fmt. */
static int read_file(const char *name, int fmt, sq_file_index *ix,
                     sq_status *st, unsigned char **bytes, size_t *n) {
  *bytes = load(name, n);
  st_init(st);
  if (fmt < 0) fmt = sq_file_detect(*bytes, *n);
  check(fmt >= 0, "%s: format not detected", name);
  if (fmt < 0) return -1;
  return sq_file_read(*bytes, *n, (sq_file_format)fmt, 1, ix, st);
}

static void expect_error(const char *name, int fmt, const char *msg) {
  sq_file_index ix;
  sq_status st;
  unsigned char *p;
  size_t n;
  int rc = read_file(name, fmt, &ix, &st, &p, &n);
  check(rc == SQ_INVALID && strcmp(st.msg, msg) == 0,
        "%s: rc %d, message\n    got:  %s\n    want: %s", name, rc, st.msg, msg);
  check(ix.ntensors == 0 && ix.tensors == NULL, "%s: index not freed", name);
  free(p);
}

/* One tensor's entry: dims end with -1; offset (uint64)-1 skips its check. */
static void expect_tensor(const char *file, const sq_file_tensor *t,
                          const char *name, const char *dtype, uint64_t offset,
                          uint64_t nbytes, ...) {
  int64_t dim[SQ_MAX_DIMS];
  int ndim = 0;
  va_list ap;
  va_start(ap, nbytes);
  for (long long d; (d = va_arg(ap, long long)) >= 0;) dim[ndim++] = d;
  va_end(ap);
  check(strcmp(t->name, name) == 0, "%s: name '%s', want '%s'", file, t->name,
        name);
  check(strcmp(t->dtype, dtype) == 0, "%s %s: dtype %s, want %s", file, name,
        t->dtype, dtype);
  check(t->ndim == ndim, "%s %s: ndim %d, want %d", file, name, t->ndim, ndim);
  for (int d = 0; d < ndim && d < t->ndim; d++)
    check(t->dim[d] == dim[d], "%s %s: dim[%d] %lld, want %lld", file, name, d,
          (long long)t->dim[d], (long long)dim[d]);
  if (offset != (uint64_t)-1)
    check(t->offset == offset, "%s %s: offset %llu, want %llu", file, name,
          (unsigned long long)t->offset, (unsigned long long)offset);
  check(t->nbytes == nbytes, "%s %s: nbytes %llu, want %llu", file, name,
        (unsigned long long)t->nbytes, (unsigned long long)nbytes);
}

/* A one-tensor .npy read by detection; returns the bytes (caller frees)
** with the entry in *t. */
static unsigned char *read_one(const char *file, sq_file_tensor *t,
                               size_t *n) {
  sq_file_index ix;
  sq_status st;
  unsigned char *p;
  int rc = read_file(file, -1, &ix, &st, &p, n);
  check(rc == SQ_OK && ix.ntensors == 1, "%s: rc %d (%s), %zu tensors", file,
        rc, st.msg, ix.ntensors);
  check(ix.nmeta == 0, "%s: %zu metadata entries", file, ix.nmeta);
  memset(t, 0, sizeof *t);
  static char name[64];
  if (rc == SQ_OK && ix.ntensors == 1) {
    *t = ix.tensors[0];
    snprintf(name, sizeof name, "%s", ix.tensors[0].name);
    t->name = name;
  } else {
    t->name = name;
    name[0] = 0;
  }
  sq_file_index_free(&ix);
  return p;
}

static void test_npy_good(void) {
  sq_file_tensor t;
  size_t n;
  unsigned char *p;

  p = read_one("f32.npy", &t, &n);
  expect_tensor("f32.npy", &t, "", "f32", 128, 48, 3LL, 4LL, -1LL);
  for (int i = 0; i < 12 && t.nbytes == 48; i++)
    check(sq_load_f32(p + t.offset + 4 * i) == (float)i, "f32.npy value %d", i);
  free(p);

  p = read_one("f64.npy", &t, &n);
  expect_tensor("f64.npy", &t, "", "f64", 128, 48, 2LL, 3LL, -1LL);
  for (int i = 0; i < 6 && t.nbytes == 48; i++) {
    double v;
    memcpy(&v, p + t.offset + 8 * i, 8); /* little-endian test host */
    check(SQ_BIG_ENDIAN || v == (double)i, "f64.npy value %d", i);
  }
  free(p);

  p = read_one("f16.npy", &t, &n);
  expect_tensor("f16.npy", &t, "", "f16", 128, 10, 5LL, -1LL);
  /* 0, 1, 2, 3, 4 as binary16 */
  static const uint16_t h[5] = {0x0000, 0x3c00, 0x4000, 0x4200, 0x4400};
  for (int i = 0; i < 5 && t.nbytes == 10; i++)
    check(sq_load_u16(p + t.offset + 2 * i) == h[i], "f16.npy value %d", i);
  free(p);

  p = read_one("i8.npy", &t, &n);
  expect_tensor("i8.npy", &t, "", "int8", 128, 5, 5LL, -1LL);
  check(t.nbytes == 5 && memcmp(p + t.offset, "\x80\xff\x00\x01\x7f", 5) == 0,
        "i8.npy values");
  free(p);

  p = read_one("i64.npy", &t, &n);
  expect_tensor("i64.npy", &t, "", "int64", 128, 24, 3LL, -1LL);
  free(p);

  p = read_one("u16.npy", &t, &n);
  expect_tensor("u16.npy", &t, "", "uint16", 128, 8, 2LL, 2LL, 1LL, -1LL);
  free(p);

  /* big-endian: the dtype says so; the bytes are as stored */
  p = read_one("be_f4.npy", &t, &n);
  expect_tensor("be_f4.npy", &t, "", "f32be", 128, 16, 4LL, -1LL);
  for (int i = 0; i < 4 && t.nbytes == 16; i++) {
    const unsigned char *b = p + t.offset + 4 * i;
    uint32_t u = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
                 (uint32_t)b[2] << 8 | b[3];
    check(sq_bits_f32(u) == (float)i, "be_f4.npy value %d", i);
  }
  free(p);

  p = read_one("be_i2.npy", &t, &n);
  expect_tensor("be_i2.npy", &t, "", "int16be", 128, 6, 3LL, -1LL);
  check(t.nbytes == 6 && memcmp(p + t.offset, "\0\0\0\1\0\2", 6) == 0,
        "be_i2.npy values");
  free(p);

  p = read_one("scalar.npy", &t, &n);
  expect_tensor("scalar.npy", &t, "", "f32", 128, 4, -1LL);
  check(t.nbytes == 4 && sq_load_f32(p + t.offset) == 3.5f, "scalar value");
  free(p);

  p = read_one("empty.npy", &t, &n);
  expect_tensor("empty.npy", &t, "", "f32", 128, 0, 0LL, 3LL, -1LL);
  free(p);

  p = read_one("bool.npy", &t, &n);
  expect_tensor("bool.npy", &t, "", "bool", 128, 3, 3LL, -1LL);
  check(t.nbytes == 3 && memcmp(p + t.offset, "\1\0\1", 3) == 0, "bool values");
  free(p);

  p = read_one("v2.npy", &t, &n);
  expect_tensor("v2.npy", &t, "", "f32", 128, 12, 3LL, -1LL);
  free(p);
  p = read_one("v3.npy", &t, &n);
  expect_tensor("v3.npy", &t, "", "f32", 128, 12, 3LL, -1LL);
  free(p);

  p = read_one("fortran_row.npy", &t, &n);
  expect_tensor("fortran_row.npy", &t, "", "f32", 128, 12, 1LL, 3LL, -1LL);
  free(p);
  p = read_one("keys_any_order.npy", &t, &n);
  expect_tensor("keys_any_order.npy", &t, "", "int32", 128, 8, 2LL, -1LL);
  free(p);
}

static void test_npy_bad(void) {
  int npy = SQ_FILE_NPY;
  expect_error("fortran.npy", npy,
               "npy: fortran_order array of shape [2,3] is stored "
               "column-major; save np.ascontiguousarray(a) instead");
  expect_error("object.npy", npy,
               "npy: descr '|O' is an object array (pickled Python objects); "
               "only numeric arrays are read");
  expect_error("struct.npy", npy,
               "npy: descr is a structured dtype (a list of fields); only "
               "plain numeric arrays are read");
  expect_error("complex.npy", npy,
               "npy: descr '<c8' is not a supported dtype (f2 f4 f8 i1 i2 i4 "
               "i8 u1 u2 u4 u8 b1, '<' or '>')");
  expect_error("unicode.npy", npy,
               "npy: descr '<U2' is not a supported dtype (f2 f4 f8 i1 i2 i4 "
               "i8 u1 u2 u4 u8 b1, '<' or '>')");
  expect_error("native_order.npy", npy,
               "npy: descr '=f4' does not say the byte order ('<' "
               "little-endian or '>' big-endian)");
  expect_error("truncated.npy", npy,
               "npy: shape [3,4] of f32 is 48 bytes but 44 follow the header");
  expect_error("trailing.npy", npy,
               "npy: shape [3,4] of f32 is 48 bytes but 52 follow the header");
  expect_error("badmagic.npy", npy, "npy: not a .npy file (no \\x93NUMPY magic)");
  expect_error("preamble.npy", npy,
               "npy: the 9-byte file ends inside the preamble");
  expect_error("version.npy", npy,
               "npy: version 4.0 is not supported (1.0, 2.0, 3.0)");
  expect_error("hdrlen.npy", npy,
               "npy: header length 4096 is past the end of the 176-byte file");
  expect_error("absurd_shape.npy", npy,
               "npy: shape [1000000,1000000] of f32 is 4000000000000 bytes "
               "but 48 follow the header");
  expect_error("overflow_shape.npy", npy,
               "npy: shape [4294967296,4294967296,4294967296] has more than "
               "2^64 elements");
  expect_error("overflow_bytes.npy", npy,
               "npy: shape [2147483648,4294967296] of f64 has more than 2^64 "
               "bytes");
  expect_error("dim_too_big.npy", npy,
               "npy: shape dimension at byte 51 is larger than 2^63 - 1");
  expect_error("unknown_key.npy", npy,
               "npy: header has the unknown key 'x' (expected descr, "
               "fortran_order, shape)");
  expect_error("missing_key.npy", npy, "npy: header has no 'fortran_order' key");
  expect_error("dup_key.npy", npy, "npy: header has the key 'descr' twice");
  expect_error("not_tuple.npy", npy,
               "npy: shape (3) is not a tuple (a 1-d shape is written (3,))");
  expect_error("leading_zero.npy", npy,
               "npy: shape dimension at byte 51 has a leading zero");
  expect_error("no_newline.npy", npy,
               "npy: header does not end with a line break");
  expect_error("too_many_dims.npy", npy, "npy: shape has more than 32 dimensions");
}

static void test_npz(void) {
  sq_file_index ix;
  sq_status st;
  unsigned char *p;
  size_t n;
  int rc = read_file("savez.npz", -1, &ix, &st, &p, &n);
  check(rc == SQ_OK && ix.ntensors == 3, "savez.npz: rc %d (%s), %zu tensors",
        rc, st.msg, ix.ntensors);
  if (rc == SQ_OK && ix.ntensors == 3) {
    /* np.savez keeps the keyword order; the data sits after each member's
    ** local header and its 128-byte .npy header */
    expect_tensor("savez.npz", &ix.tensors[0], "w", "f32", (uint64_t)-1, 24,
                  2LL, 3LL, -1LL);
    expect_tensor("savez.npz", &ix.tensors[1], "b", "int8", (uint64_t)-1, 2,
                  2LL, -1LL);
    expect_tensor("savez.npz", &ix.tensors[2], "s", "f64", (uint64_t)-1, 8,
                  -1LL);
    const sq_file_tensor *w = &ix.tensors[0], *b = &ix.tensors[1];
    check(memcmp(p + w->offset - 128, "\x93NUMPY", 6) == 0,
          "savez.npz: w's offset is not 128 bytes after its .npy magic");
    for (int i = 0; i < 6; i++)
      check(sq_load_f32(p + w->offset + 4 * i) == (float)i, "savez w[%d]", i);
    check(memcmp(p + b->offset, "\1\2", 2) == 0, "savez b values");
    double s;
    memcpy(&s, p + ix.tensors[2].offset, 8);
    check(SQ_BIG_ENDIAN || s == 2.0, "savez s value");
  }
  sq_file_index_free(&ix);
  free(p);

  /* zip64 end record, locator and central directory extra fields */
  rc = read_file("zip64.npz", -1, &ix, &st, &p, &n);
  check(rc == SQ_OK && ix.ntensors == 2, "zip64.npz: rc %d (%s), %zu tensors",
        rc, st.msg, ix.ntensors);
  if (rc == SQ_OK && ix.ntensors == 2) {
    expect_tensor("zip64.npz", &ix.tensors[0], "w", "f32", (uint64_t)-1, 24,
                  2LL, 3LL, -1LL);
    expect_tensor("zip64.npz", &ix.tensors[1], "b", "int8", (uint64_t)-1, 2,
                  2LL, -1LL);
    for (int i = 0; i < 6; i++)
      check(sq_load_f32(p + ix.tensors[0].offset + 4 * i) == (float)i,
            "zip64 w[%d]", i);
    check(memcmp(p + ix.tensors[1].offset, "\1\2", 2) == 0, "zip64 b values");
  }
  sq_file_index_free(&ix);
  free(p);

  /* an archive with no members: detected as nothing (its first bytes are
  ** the end record), read as npz when asked */
  p = load("savez_empty.npz", &n);
  check(sq_file_detect(p, n) == -1, "savez_empty.npz detected");
  st_init(&st);
  rc = sq_file_read(p, n, SQ_FILE_NPZ, 0, &ix, &st);
  check(rc == SQ_OK && ix.ntensors == 0, "savez_empty.npz: rc %d (%s)", rc,
        st.msg);
  sq_file_index_free(&ix);
  free(p);

  int npz = SQ_FILE_NPZ;
  expect_error("compressed.npz", npz,
               "npz: member 'w.npy' is compressed (np.savez_compressed); save "
               "with np.savez");
  expect_error("truncated.npz", npz,
               "npz: no zip end of central directory record (not a zip "
               "archive, or truncated)");
  expect_error("badcrc.npz", npz,
               "npz: member 'w.npy' fails its CRC-32 check (corrupt)");
  expect_error("not_npy.npz", npz, "npz: member 'readme.txt' is not a .npy array");
  expect_error("member_truncated.npz", npz,
               "npz: member 't.npy': shape [3,4] of f32 is 48 bytes but 44 "
               "follow the header");
  expect_error("duplicate.npz", npz, "npz: member 'a.npy' appears twice");
  expect_error("f32.npy", npz,
               "npz: no zip end of central directory record (not a zip "
               "archive, or truncated)");
  expect_error("savez.npz", SQ_FILE_NPY,
               "npy: not a .npy file (no \\x93NUMPY magic)");
}

/* Every prefix and every byte changed to a few values: read or fail
** cleanly, and on success every tensor's data lies inside the bytes. */
static void test_mutations(const char *file, int fmt) {
  size_t n;
  unsigned char *orig = load(file, &n);
  long ok = 0, failed = 0, bad = 0;
  for (size_t len = 0; len <= n; len++) {
    unsigned char *p = malloc(len ? len : 1);
    memcpy(p, orig, len);
    /* a prefix as it is; the whole file with each byte set to each value */
    static const unsigned char vals[] = {0x00, 0xff, 0x01, 0x80, ' ', ','};
    size_t nat = len == n ? n : 1, nv = len == n ? sizeof vals : 1;
    for (size_t at = 0; at < nat; at++) {
      for (size_t v = 0; v < nv; v++) {
        if (len == n) p[at] = vals[v];
        sq_file_index ix;
        sq_status st;
        st_init(&st);
        int rc = sq_file_read(p, len, (sq_file_format)fmt, 1, &ix, &st);
        if (rc == SQ_OK) {
          ok++;
          for (size_t i = 0; i < ix.ntensors; i++) {
            const sq_file_tensor *t = &ix.tensors[i];
            if (t->offset > len || t->nbytes > len - t->offset) bad++;
          }
        } else {
          failed++;
          if (rc != SQ_INVALID || st.msg[0] == 0 || ix.ntensors) bad++;
        }
        sq_file_index_free(&ix);
        if (len == n) p[at] = orig[at];
      }
    }
    free(p);
  }
  check(bad == 0, "%s mutations: %ld bad of %ld read, %ld refused", file, bad,
        ok, failed);
  printf("%s mutations: %ld read, %ld refused\n", file, ok, failed);
  free(orig);
}

int main(int argc, char **argv) {
  if (argc > 1) g_dir = argv[1];
  test_npy_good();
  test_npy_bad();
  test_npz();
  test_mutations("f32.npy", SQ_FILE_NPY);
  test_mutations("savez.npz", SQ_FILE_NPZ);
  test_mutations("zip64.npz", SQ_FILE_NPZ);
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail != 0;
}
