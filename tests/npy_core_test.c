/*
** npy_core_test.c: the .npy and .npz readers (ext/formats/npy_read.c) on files
** written by numpy and on hand-made and corrupted ones (tests/gen_npy.py,
** committed in tests/data/npy/), with the exact index entries and the exact
** error messages; then every prefix and every single-byte corruption of
** real files, which must read or fail cleanly (run it under ASan + UBSan).
** Deflated members (np.savez_compressed; tests/gen_npz.py, committed in
** tests/data/npz/): exact indexes, their data read whole and in ranges
** through sq_file_tensor_read, the index-time and read-time errors.
** Each file is read from an exact-size heap copy, so a read past its end is
** seen by AddressSanitizer.
**
**   build/npy_core_test [tests/data/npy]
**
** Links the ASan build's objects below the SQL layer (make test-npy-core)
** and SQLite itself (-DSQLITE_CORE -lsqlite3) for the allocator.  Prints
** failures, then "N passed, N failed"; exit status 1 on any failure.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/crc32.h"
#include "formats/formats.h"
#include "core_test.h"
#include "kernels/byteorder.h"

static const char *g_dir = "tests/data/npy";

/* A fixture of g_dir, whole (load_or_die, core_test.h). */
static unsigned char *load(const char *name, size_t *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  return load_or_die(path, n);
}

/* Reads a file by its detected format (fmt -1) or by fmt. */
static int read_file(const char *name, int fmt, sq_file_index *ix,
                     sq_status *st, unsigned char **bytes, size_t *n) {
  *bytes = load(name, n);
  *st = fresh_status();
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
  st = fresh_status();
  rc = sq_file_read(p, n, SQ_FILE_NPZ, 0, &ix, &st);
  check(rc == SQ_OK && ix.ntensors == 0, "savez_empty.npz: rc %d (%s)", rc,
        st.msg);
  sq_file_index_free(&ix);
  free(p);

  int npz = SQ_FILE_NPZ;
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
        sq_status st = fresh_status();
        int rc = sq_file_read(p, len, (sq_file_format)fmt, 1, &ix, &st);
        if (rc == SQ_OK) {
          ok++;
          for (size_t i = 0; i < ix.ntensors; i++) {
            const sq_file_tensor *t = &ix.tensors[i];
            if (t->decode) {
              /* a deflated member: its whole data read (and checked) or a
              ** clean error */
              sq_source src;
              sq_file_view view = memory_view(&src, p, len, NULL);
              unsigned char *buf = malloc(t->nbytes ? t->nbytes : 1);
              sq_status rs = fresh_status();
              int r = sq_file_tensor_read(&view, t, 0, t->nbytes, buf, &rs);
              if (r != SQ_OK && (r != SQ_INVALID || rs.msg[0] == 0)) bad++;
              free(buf);
            } else if (t->offset > len || t->nbytes > len - t->offset) {
              bad++;
            }
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

/* ---- deflated members (tests/gen_npz.py, in tests/data/npz) ---------- */

/* Bytes [start, start + len) of tensor i of the index, through its decoder;
** returns the rc, the bytes in a malloc'd exact-size buffer (*out). */
static int read_range(const unsigned char *p, size_t n, const sq_file_tensor *t,
                      uint64_t start, uint64_t len, unsigned char **out,
                      sq_status *st) {
  sq_source src;
  sq_file_view v = memory_view(&src, p, n, NULL);
  *out = malloc(len ? len : 1);
  *st = fresh_status();
  return sq_file_tensor_read(&v, t, start, len, *out, st);
}

static float big_value(uint64_t i) {
  return (float)((double)((i * 7919) % 10007) / 16.0);
}

static void expect_bytes(const char *file, const sq_file_tensor *t,
                         const unsigned char *p, size_t n, const void *want,
                         size_t len) {
  unsigned char *got;
  sq_status st;
  int rc = read_range(p, n, t, 0, t->nbytes, &got, &st);
  check(rc == SQ_OK && t->nbytes == len && memcmp(got, want, len) == 0,
        "%s %s: data (rc %d %s)", file, t->name, rc, st.msg);
  free(got);
}

static void expect_read_error(const char *file, const char *msg) {
  sq_file_index ix;
  sq_status st;
  unsigned char *p, *got;
  size_t n;
  int rc = read_file(file, SQ_FILE_NPZ, &ix, &st, &p, &n);
  check(rc == SQ_OK && ix.ntensors == 1, "%s: index rc %d (%s)", file, rc,
        st.msg);
  if (rc == SQ_OK && ix.ntensors == 1) {
    rc = read_range(p, n, &ix.tensors[0], 0, ix.tensors[0].nbytes, &got, &st);
    check(rc == SQ_INVALID && strcmp(st.msg, msg) == 0,
          "%s: read rc %d, message\n    got:  %s\n    want: %s", file, rc,
          st.msg, msg);
    free(got);
  }
  sq_file_index_free(&ix);
  free(p);
}

static void test_npz_deflated(void) {
  sq_file_index ix;
  sq_status st;
  unsigned char *p;
  size_t n;
  const char *f = "../npz/types.npz";
  int rc = read_file(f, -1, &ix, &st, &p, &n);
  check(rc == SQ_OK && ix.ntensors == 8, "%s: rc %d (%s) %zu tensors", f, rc,
        st.msg, ix.ntensors);
  if (rc == SQ_OK && ix.ntensors == 8) {
    sq_file_tensor *t = ix.tensors;
    expect_tensor(f, &t[0], "f32", "f32", (uint64_t)-1, 48, 3LL, 4LL, -1LL);
    expect_tensor(f, &t[1], "f64", "f64", (uint64_t)-1, 48, 2LL, 3LL, -1LL);
    expect_tensor(f, &t[2], "f16", "f16", (uint64_t)-1, 10, 5LL, -1LL);
    expect_tensor(f, &t[3], "i8", "int8", (uint64_t)-1, 5, 5LL, -1LL);
    expect_tensor(f, &t[4], "be", "f32be", (uint64_t)-1, 16, 4LL, -1LL);
    expect_tensor(f, &t[5], "scalar", "f64", (uint64_t)-1, 8, -1LL);
    expect_tensor(f, &t[6], "empty", "f32", (uint64_t)-1, 0, 0LL, 3LL, -1LL);
    expect_tensor(f, &t[7], "flags", "bool", (uint64_t)-1, 3, 3LL, -1LL);
    unsigned char want[48];
    for (int i = 0; i < 12; i++) sq_store_f32(want + 4 * i, (float)i);
    expect_bytes(f, &t[0], p, n, want, 48);
    for (int i = 0; i < 6; i++) {
      double d = i / 4.0;
      uint64_t u;
      memcpy(&u, &d, 8);
      sq_store_u32(want + 8 * i, (uint32_t)u);
      sq_store_u32(want + 8 * i + 4, (uint32_t)(u >> 32));
    }
    expect_bytes(f, &t[1], p, n, want, 48);
    static const uint16_t halves[5] = {0, 0x3c00, 0x4000, 0x4200, 0x4400};
    for (int i = 0; i < 5; i++) sq_store_u16(want + 2 * i, halves[i]);
    expect_bytes(f, &t[2], p, n, want, 10);
    expect_bytes(f, &t[3], p, n, "\x80\xff\x00\x01\x7f", 5);
    expect_bytes(f, &t[4], p, n,
                 "\0\0\0\0\x3f\x80\0\0\x40\0\0\0\x40\x40\0\0", 16);
    expect_bytes(f, &t[5], p, n, "\0\0\0\0\0\0\x04\x40", 8);
    expect_bytes(f, &t[6], p, n, "", 0);
    expect_bytes(f, &t[7], p, n, "\1\0\1", 3);
  }
  sq_file_index_free(&ix);
  free(p);

  /* 65536 float32 over several DEFLATE blocks and 64 KiB windows: the whole,
  ** and ranges anywhere (first, across 32 KiB boundaries, the last). */
  f = "../npz/big.npz";
  rc = read_file(f, -1, &ix, &st, &p, &n);
  check(rc == SQ_OK && ix.ntensors == 1, "%s: rc %d (%s)", f, rc, st.msg);
  if (rc == SQ_OK && ix.ntensors == 1) {
    const sq_file_tensor *t = &ix.tensors[0];
    expect_tensor(f, t, "big", "f32", (uint64_t)-1, 262144, 65536LL, -1LL);
    static const uint64_t ranges[][2] = {
      {0, 262144}, {0, 4}, {0, 0}, {32764, 8}, {65532, 65544},
      {100000, 50000}, {262140, 4}, {131072, 131072}, {7, 1}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
      uint64_t s0 = ranges[r][0], len = ranges[r][1];
      unsigned char *got;
      rc = read_range(p, n, t, s0, len, &got, &st);
      int same = rc == SQ_OK;
      for (uint64_t b = 0; same && b < len; b++) {
        uint64_t at = s0 + b;
        unsigned char w4[4];
        sq_store_f32(w4, big_value(at / 4));
        same = got[b] == w4[at % 4];
      }
      check(same, "%s: bytes %llu+%llu (rc %d %s)", f,
            (unsigned long long)s0, (unsigned long long)len, rc, st.msg);
      free(got);
    }
  }
  sq_file_index_free(&ix);
  free(p);

  /* data descriptors, zip64, DEFLATE's stored blocks, a 1x3 fortran array */
  static const struct { const char *file; int count; } ok[] = {
    {"../npz/descriptor.npz", 6}, {"../npz/zip64.npz", 6},
    {"../npz/level0.npz", 20000}, {"../npz/fortran_row.npz", 3},
    {"compressed.npz", 6}};
  for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
    rc = read_file(ok[k].file, -1, &ix, &st, &p, &n);
    check(rc == SQ_OK && ix.ntensors == 1, "%s: rc %d (%s)", ok[k].file, rc,
          st.msg);
    if (rc == SQ_OK && ix.ntensors == 1) {
      unsigned char *want = malloc(4 * (size_t)ok[k].count);
      for (int i = 0; i < ok[k].count; i++)
        sq_store_f32(want + 4 * i, ok[k].count == 20000 ? big_value((uint64_t)i)
                                                        : (float)i);
      expect_bytes(ok[k].file, &ix.tensors[0], p, n, want,
                   4 * (size_t)ok[k].count);
      free(want);
    }
    sq_file_index_free(&ix);
    free(p);
  }

  int npz = SQ_FILE_NPZ;
  expect_error("../npz/fortran.npz", npz,
               "npz: member 'w.npy': fortran_order array of shape [2,3] is "
               "stored column-major; save np.ascontiguousarray(a) instead");
  expect_error("../npz/badsize.npz", npz,
               "npz: member 'w.npy' inflates to 152 bytes but its zip entry "
               "says 156");
  expect_error("../npz/bzip2.npz", npz,
               "npz: member 'w.npy' uses zip compression method 12; only "
               "stored (0) and deflated (8) members are read");
  expect_error("../npz/encrypted.npz", npz, "npz: member 'w.npy' is encrypted");
  expect_error("../npz/reserved.npz", npz,
               "npz: member 'w.npy': deflate: block type 3 is reserved");
  expect_error("../npz/header_big.npz", npz,
               "npz: member 'w.npy': header length 70000 is more than the "
               "65536 bytes read of a compressed member's header");
  expect_read_error("../npz/badcrc.npz",
                    "npz: member 'w.npy' fails its CRC-32 check (corrupt)");
  expect_error("../npz/short.npz", npz,
               "npz: member 'w.npy': deflate: the stream ends inside a block "
               "(byte 80)");
  expect_read_error("../npz/trailing.npz",
                    "npz: member 'w.npy' has 3 bytes after the end of its "
                    "deflate stream");
  expect_read_error("../npz/longer.npz",
                    "npz: member 'w.npy' inflates to more than the 152 bytes "
                    "its zip entry says");
}

/* ---- reading a deflated member in chunks (docs/FORMATS.md#npz-compressed-members) */

/* big.npz's member (262144 bytes after a 128-byte .npy header) read in
** chunks of `chunk` bytes through one stream, each `times` times in a row,
** in order (or backwards): every byte right, and the bytes inflated in all
** (stream.inflated) what the stream's rule says. */
static uint64_t read_chunked(const unsigned char *p, size_t n,
                             const sq_file_tensor *t, uint64_t chunk,
                             int times, int backwards) {
  sq_source src;
  sq_source_memory(&src, p, n);
  sq_file_stream stream;
  memset(&stream, 0, sizeof stream);
  sq_file_view v = {&src, &stream};
  uint64_t nchunks = (t->nbytes + chunk - 1) / chunk;
  int same = 1;
  unsigned char *got = malloc(chunk);
  for (uint64_t k = 0; k < nchunks; k++) {
    uint64_t c = backwards ? nchunks - 1 - k : k;
    uint64_t s0 = c * chunk;
    uint64_t len = t->nbytes - s0 < chunk ? t->nbytes - s0 : chunk;
    for (int r = 0; r < times; r++) {
      sq_status st = fresh_status();
      if (sq_file_tensor_read(&v, t, s0, len, got, &st)) {
        printf("chunk %llu: %s\n", (unsigned long long)c, st.msg);
        same = 0;
      }
      for (uint64_t b = 0; same && b < len; b++) {
        unsigned char w4[4];
        sq_store_f32(w4, big_value((s0 + b) / 4));
        same = got[b] == w4[(s0 + b) % 4];
      }
    }
  }
  check(same, "big.npz in chunks of %llu (x%d%s): bytes differ",
        (unsigned long long)chunk, times, backwards ? ", backwards" : "");
  free(got);
  uint64_t inflated = stream.inflated;
  sq_file_stream_free(&stream);
  return inflated;
}

/* An .npz of two deflated members a.npy and b.npy, each a uint8 .npy of
** n bytes of one value (0x11, 0x22), their streams DEFLATE stored blocks;
** *len its size (malloc'd). */
static unsigned char *two_members(size_t n, size_t *len) {
  static const char *const names[2] = {"a.npy", "b.npy"};
  unsigned char *z = malloc(2 * (n + n / 60000 * 5 + 400) + 400), *o = z;
  size_t loff[2], csize[2], usize[2];
  uint32_t crc[2];
  for (int m = 0; m < 2; m++) {
    char head[128];
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    int hl = 10 + snprintf(head + 10, sizeof head - 10, "{'descr': '|u1', "
                           "'fortran_order': False, 'shape': (%zu,), }", n);
    while ((hl + 1) % 64) head[hl++] = ' ';
    head[hl++] = '\n';
    sq_store_u16(head + 8, (uint16_t)(hl - 10));
    unsigned char *img = malloc(hl + n);
    memcpy(img, head, hl);
    memset(img + hl, m ? 0x22 : 0x11, n);
    usize[m] = hl + n;
    crc[m] = sq_crc32(0, img, usize[m]);
    loff[m] = (size_t)(o - z);
    unsigned char *lh = o;
    o += 30;
    memcpy(o, names[m], 5);
    o += 5;
    unsigned char *data = o;
    for (size_t at = 0; at < usize[m];) {
      size_t k = usize[m] - at > 60000 ? 60000 : usize[m] - at;
      *o++ = at + k == usize[m];
      sq_store_u16(o, (uint16_t)k);
      sq_store_u16(o + 2, (uint16_t)~k);
      memcpy(o + 4, img + at, k);
      o += 4 + k;
      at += k;
    }
    csize[m] = (size_t)(o - data);
    memset(lh, 0, 30);
    sq_store_u32(lh, 0x04034b50u);
    sq_store_u16(lh + 8, 8);
    sq_store_u32(lh + 14, crc[m]);
    sq_store_u32(lh + 18, (uint32_t)csize[m]);
    sq_store_u32(lh + 22, (uint32_t)usize[m]);
    sq_store_u16(lh + 26, 5);
    free(img);
  }
  size_t cd = (size_t)(o - z);
  for (int m = 0; m < 2; m++) {
    memset(o, 0, 46);
    sq_store_u32(o, 0x02014b50u);
    sq_store_u16(o + 10, 8);
    sq_store_u32(o + 16, crc[m]);
    sq_store_u32(o + 20, (uint32_t)csize[m]);
    sq_store_u32(o + 24, (uint32_t)usize[m]);
    sq_store_u16(o + 28, 5);
    sq_store_u32(o + 42, (uint32_t)loff[m]);
    memcpy(o + 46, names[m], 5);
    o += 51;
  }
  memset(o, 0, 22);
  sq_store_u32(o, 0x06054b50u);
  sq_store_u16(o + 8, 2);
  sq_store_u16(o + 10, 2);
  sq_store_u32(o + 12, (uint32_t)(o - z - cd));
  sq_store_u32(o + 16, (uint32_t)cd);
  o += 22;
  *len = (size_t)(o - z);
  return z;
}

/* One stream over two members: the decoder a read keeps belongs to the
** tensor it read, never to the next one read. */
static void test_npz_stream_owner(void) {
  size_t n = 200000, len;
  unsigned char *p = two_members(n, &len);
  sq_file_index ix;
  sq_status st = fresh_status();
  int rc = sq_file_read(p, len, SQ_FILE_NPZ, 0, &ix, &st);
  check(rc == SQ_OK && ix.ntensors == 2, "two members: rc %d (%s)", rc,
        st.msg);
  if (rc == SQ_OK && ix.ntensors == 2) {
    sq_source src;
    sq_source_memory(&src, p, len);
    sq_file_stream stream;
    memset(&stream, 0, sizeof stream);
    sq_file_view v = {&src, &stream};
    unsigned char *buf = malloc(n);
    /* a's middle chunk (the stream marks a), b whole (no mark), then b's
    ** first chunk: before b's window, so b begins again (never a's mark) */
    static const struct { int t; uint64_t start, len; } reads[] = {
      {0, 40000, 40000}, {1, 0, 200000}, {1, 0, 40000}, {0, 0, 40000},
      {1, 160000, 40000}, {1, 120000, 40000}};
    int ok = 1;
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++) {
      const sq_file_tensor *t = &ix.tensors[reads[k].t];
      st = fresh_status();
      rc = sq_file_tensor_read(&v, t, reads[k].start, reads[k].len, buf, &st);
      for (uint64_t b = 0; ok && b < reads[k].len; b++)
        ok = rc == SQ_OK && buf[b] == (reads[k].t ? 0x22 : 0x11);
      check(ok, "read %zu (%s %llu+%llu): rc %d (%s)", k, t->name,
            (unsigned long long)reads[k].start,
            (unsigned long long)reads[k].len, rc, st.msg);
    }
    free(buf);
    sq_file_stream_free(&stream);
  }
  sq_file_index_free(&ix);
  free(p);
}

static void test_npz_streaming(void) {
  sq_file_index ix;
  sq_status st;
  unsigned char *p;
  size_t n;
  const char *f = "../npz/big.npz";
  int rc = read_file(f, -1, &ix, &st, &p, &n);
  check(rc == SQ_OK && ix.ntensors == 1, "%s: rc %d (%s)", f, rc, st.msg);
  if (rc == SQ_OK && ix.ntensors == 1) {
    const sq_file_tensor *t = &ix.tensors[0];
    uint64_t usize = t->src_kind + t->nbytes;  /* the whole member */
    /* In order: each byte inflated once, however small the chunks (0.2.0
    ** inflated from the member's start for each chunk: 262144 / 1000 = 263
    ** chunks made 34.7 MB, 132 times the member). */
    uint64_t a = read_chunked(p, n, t, 1000, 1, 0);
    check(a == usize, "in order, chunks of 1000: %llu bytes inflated, want "
          "%llu", (unsigned long long)a, (unsigned long long)usize);
    uint64_t b = read_chunked(p, n, t, 40000, 1, 0);
    check(b == usize, "in order, chunks of 40000: %llu bytes inflated, want "
          "%llu", (unsigned long long)b, (unsigned long long)usize);
    /* Each chunk read twice in a row (SQL reading data twice): the second
    ** goes on from where the first began, so at most twice the member. */
    uint64_t c = read_chunked(p, n, t, 40000, 2, 0);
    check(c > usize && c <= 2 * usize, "in order, each chunk twice: %llu "
          "bytes inflated, want (%llu, %llu]", (unsigned long long)c,
          (unsigned long long)usize, (unsigned long long)(2 * usize));
    uint64_t d = read_chunked(p, n, t, 1000, 3, 0);
    check(d == usize, "in order, chunks of 1000 each three times (inside the "
          "window): %llu bytes inflated, want %llu", (unsigned long long)d,
          (unsigned long long)usize);
    /* Backwards: a chunk that starts before the decoder's window restarts
    ** from the member's start (documented), so more is inflated, each
    ** restart at most the member. */
    uint64_t e = read_chunked(p, n, t, 40000, 1, 1);
    check(e > 2 * usize && e <= 7 * usize, "backwards: %llu bytes inflated, "
          "want (%llu, %llu]", (unsigned long long)e,
          (unsigned long long)(2 * usize), (unsigned long long)(7 * usize));
    printf("big.npz (%llu bytes inflated whole): in order in chunks of 1000 "
           "%llu, of 40000 %llu, each twice %llu, each of 1000 three times "
           "%llu, backwards %llu\n", (unsigned long long)usize,
           (unsigned long long)a, (unsigned long long)b, (unsigned long long)c,
           (unsigned long long)d, (unsigned long long)e);
  }
  sq_file_index_free(&ix);
  free(p);

  /* The .npy header scratch (65548 bytes) is not a result: a deflated
  ** member lists under max_bytes 1000 (0.2.0: SQ_TOOBIG up to 65547). */
  for (int64_t limit = 65548; limit >= 1000; limit = limit == 65548 ? 65547
                                                     : limit == 65547 ? 1000 : 0) {
    p = load("../npz/types.npz", &n);
    st = fresh_status();
    st.max_bytes = limit;
    rc = sq_file_read(p, n, SQ_FILE_NPZ, 0, &ix, &st);
    check(rc == SQ_OK && ix.ntensors == 8, "types.npz under max_bytes %lld: "
          "rc %d (%s)", (long long)limit, rc, st.msg);
    sq_file_index_free(&ix);
    free(p);
    if (limit == 1000) break;
  }

  /* Members whose bytes overlap (tests/gen_bombs.py npz-overlap: each
  ** member's stream quotes the next member's local header). */
  expect_error("../npz/overlap.npz", SQ_FILE_NPZ,
               "npz: members 'm0.npy' and 'm1.npy' overlap (bytes 0..528 and "
               "174..528 of the archive)");
}

int main(int argc, char **argv) {
  if (argc > 1) g_dir = argv[1];
  test_npy_good();
  test_npy_bad();
  test_npz();
  test_npz_deflated();
  test_npz_streaming();
  test_npz_stream_owner();
  test_mutations("../npz/types.npz", SQ_FILE_NPZ);
  test_mutations("../npz/descriptor.npz", SQ_FILE_NPZ);
  test_mutations("f32.npy", SQ_FILE_NPY);
  test_mutations("savez.npz", SQ_FILE_NPZ);
  test_mutations("zip64.npz", SQ_FILE_NPZ);
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail != 0;
}
