/*
** npy_write.c: .npy images and .npz archives written from tensors (see
** npy_write.h; docs/FORMATS.md#writing).
*/
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "core/text.h"
#include "formats/crc32.h"
#include "formats/npy_write.h"
#include "formats/write_buffer.h"
#include "formats/writer.h"
#include "kernels/byteorder.h"

/* ------------------------------------------------------------------ .npy */

/* The dtypes a .npy holds: the readers' names, numpy's descr (little-endian
** form; the "be" names swap '<' for '>'), the item size. */
static const struct {
  const char *name, *descr;
  int size;
} npy_write_types[] = {
#define NPY_WRITE_ROW(kind, size, name, descr) {name, descr, size},
  SQ_CATALOGUE_NPY_DTYPES(NPY_WRITE_ROW)   /* core/catalogue.h */
#undef NPY_WRITE_ROW
};

/* numpy's header: "{'descr': '<f4', 'fortran_order': False, 'shape': (3,
** 4), }", then (format.py _write_array_header) 21 - len(repr(shape[0]))
** spaces of growth room, then (_wrap_header) spaces and '\n' so that magic +
** version + length field + header is a multiple of 64 bytes. */
int sq_npy_write(const char *dtype, size_t dtype_len, const sq_shape *shape,
                 const void *data, size_t nbytes, unsigned char **out,
                 uint64_t *outn, sq_status *st) {
  *out = NULL;
  *outn = 0;
  char descr[4];
  int size = 0;
  for (size_t k = 0; k < sizeof npy_write_types / sizeof npy_write_types[0];
       k++) {
    const char *nm = npy_write_types[k].name;
    size_t nl = strlen(nm);
    int be = 0;
    if (sq_word_is(dtype, dtype_len, nm)) be = 0;
    else if (npy_write_types[k].size > 1 && dtype_len == nl + 2 &&
             sq_word_is(dtype, nl, nm) && sq_word_is(dtype + nl, 2, "be"))
      be = 1;
    else continue;
    memcpy(descr, npy_write_types[k].descr, 4);
    if (be) descr[0] = '>';
    size = npy_write_types[k].size;
    break;
  }
  if (!size) {
    /* Every name, and the first and last that have a big-endian form. */
    sq_names valid;
    const char *first_be = NULL, *last_be = NULL;
    sq_names_begin(&valid);
    for (size_t k = 0; k < sizeof npy_write_types / sizeof npy_write_types[0];
         k++) {
      sq_names_add(&valid, npy_write_types[k].name);
      if (npy_write_types[k].size > 1) {
        if (!first_be) first_be = npy_write_types[k].name;
        last_be = npy_write_types[k].name;
      }
    }
    return sq_fail(st, "dtype '%.*s' has no numpy dtype (a .npy holds %s, or "
                       "a big-endian %sbe ... %sbe)",
                   dtype_len > 40 ? 40 : (int)dtype_len, dtype,
                   sq_names_join(&valid, " ", " "), first_be, last_be);
  }
  /* shape->count <= 2 x SQLITE_LIMIT_LENGTH, so this cannot overflow. */
  uint64_t want = shape->count * (uint64_t)size;
  if ((uint64_t)nbytes != want)
    return sq_fail(st, "data has %zu bytes but %llu elements of %.*s take %llu",
                   nbytes, (unsigned long long)shape->count, (int)dtype_len,
                   dtype, (unsigned long long)want);

  /* The dict, at most 60 + 32 x 21 bytes, plus growth room. */
  char h[64 + SQ_MAX_DIMS * 24 + 32];
  size_t k = (size_t)snprintf(h, sizeof h,
                              "{'descr': '%s', 'fortran_order': False, "
                              "'shape': (", descr);
  for (int d = 0; d < shape->ndim; d++)
    k += (size_t)snprintf(h + k, sizeof h - k, "%s%lld", d ? ", " : "",
                          (long long)shape->dim[d]);
  k += (size_t)snprintf(h + k, sizeof h - k, "%s), }",
                        shape->ndim == 1 ? "," : "");
  if (shape->ndim > 0) {
    char first[24];
    int flen = snprintf(first, sizeof first, "%lld", (long long)shape->dim[0]);
    for (int g = flen; g < 21; g++) h[k++] = ' ';
  }

  /* Version 1.0 (u16 length) unless the padded header passes 65535. */
  uint64_t hlen = k + 1, field = 2;
  uint64_t pad = 64 - ((6 + 2 + field + hlen) % 64);
  int major = 1;
  if (hlen + pad > 65535) {
    major = 2;
    field = 4;
    pad = 64 - ((6 + 2 + field + hlen) % 64);
  }
  uint64_t head = 8 + field + hlen + pad;
  unsigned char *p = sq_alloc(st, head + nbytes, 1);
  if (!p) return st->code;
  memcpy(p, "\x93NUMPY", 6);
  p[6] = (unsigned char)major;
  p[7] = 0;
  if (major == 1) sq_store_u16(p + 8, (uint16_t)(hlen + pad));
  else sq_store_u32(p + 8, (uint32_t)(hlen + pad));
  memcpy(p + 8 + field, h, k);
  memset(p + 8 + field + k, ' ', pad);
  p[head - 1] = '\n';
  if (nbytes) memcpy(p + head, data, nbytes);
  *out = p;
  *outn = head + nbytes;
  return SQ_OK;
}

/* ------------------------------------------------------------------ .npz */

#define NPZ_SHOW(len) ((len) > 60 ? 60 : (int)(len))

#ifndef SQLITE_QUANT_OMIT_FS
static int npz_unseal(sq_npz_writer *w, sq_status *st);
#endif

static int npz_too_large(sq_status *st) {
  return sq_fail(st, "the archive would pass 4 GiB, which a .npz without "
                     "zip64 member fields cannot hold");
}
/* 1980-01-01 00:00:00 in MS-DOS form: zip's earliest date. */
#define NPZ_DOS_TIME 0
#define NPZ_DOS_DATE ((0u << 9) | (1u << 5) | 1u)

/* One member, after the ones before (npy_write.h). */
static int sq_npz_writer_add(sq_npz_writer *w, const char *name,
                             size_t name_len, const char *dtype,
                             size_t dtype_len, const sq_shape *shape,
                             const void *data, size_t nbytes, sq_status *st) {
  int ascii = 1;
  for (size_t i = 0; i < name_len;) {
    uint32_t cp;
    size_t k = sq_utf8_decode((const unsigned char *)name + i, name_len - i, &cp);
    if (!k || cp == 0)
      return sq_fail(st, "name '%.*s' is not valid UTF-8 without NUL at byte "
                         "%zu", NPZ_SHOW(i), name, i);
    ascii &= cp < 0x80;
    i += k;
  }
  if (name_len > 65535 - 4)
    return sq_fail(st, "name of %zu bytes is longer than a zip member name "
                       "may be (65531 and \".npy\")", name_len);
  unsigned char *img;
  uint64_t nimg;
  if (sq_npy_write(dtype, dtype_len, shape, data, nbytes, &img, &nimg, st)) {
    /* sq_npy_write's messages do not say which tensor. */
    sq_status inner = *st;
    memset(st, 0, sizeof *st);
    st->max_bytes = inner.max_bytes;
    if (inner.code != SQ_INVALID) return (st->code = inner.code);
    return sq_fail(st, "tensor '%.*s': %s", NPZ_SHOW(name_len), name,
                   inner.msg);
  }
  uint64_t at = w->nbody;
  unsigned flags = ascii ? 0 : 0x800;  /* bit 11: the name is UTF-8 */
  uint32_t crc = sq_crc32(0, img, nimg);
  unsigned char lh[30], ch[46];
  /* A BLOB is below 2^31 bytes (SQLITE_LIMIT_LENGTH): no zip64 sizes.  A
  ** file may pass 4 GiB, which needs zip64 fields in every member. */
  if (at > 0xFFFFFFFEu || nimg > 0xFFFFFFFEu - at ||
      (w->out && 34 + name_len > 0xFFFFFFFEu - at - nimg)) {
    sqlite3_free(img);
    return w->out ? npz_too_large(st) : sq_toobig(st);
  }
  sq_store_u32(lh, 0x04034b50u);
  sq_store_u16(lh + 4, 20);                /* version needed: 2.0 */
  sq_store_u16(lh + 6, (uint16_t)flags);
  sq_store_u16(lh + 8, 0);                 /* method: stored */
  sq_store_u16(lh + 10, NPZ_DOS_TIME);
  sq_store_u16(lh + 12, NPZ_DOS_DATE);
  sq_store_u32(lh + 14, crc);
  sq_store_u32(lh + 18, (uint32_t)nimg);   /* compressed size */
  sq_store_u32(lh + 22, (uint32_t)nimg);   /* size */
  sq_store_u16(lh + 26, (uint16_t)(name_len + 4));
  sq_store_u16(lh + 28, 0);                /* no extra field */
  sq_store_u32(ch, 0x02014b50u);
  sq_store_u16(ch + 4, 20);                /* made by: 2.0, MS-DOS */
  memcpy(ch + 6, lh + 4, 26);              /* version needed .. name length */
  sq_store_u16(ch + 30, 0);                /* extra */
  sq_store_u16(ch + 32, 0);                /* comment */
  sq_store_u16(ch + 34, 0);                /* disk */
  sq_store_u16(ch + 36, 0);                /* internal attributes */
  sq_store_u32(ch + 38, 0);                /* external attributes */
  sq_store_u32(ch + 42, (uint32_t)at);     /* local header offset */
  int rc;
  uint64_t ndir = w->ndir;
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->out) {
    rc = npz_unseal(w, st) || sq_staged_pwrite(w->out, at, lh, 30, st) ||
         sq_staged_pwrite(w->out, at + 30, name, name_len, st) ||
         sq_staged_pwrite(w->out, at + 30 + name_len, ".npy", 4, st) ||
         sq_staged_pwrite(w->out, at + 34 + name_len, img, nimg, st);
    if (!rc) w->nbody = at + 34 + name_len + nimg;
  } else
#endif
  {
    rc = sq_mw_put(st, &w->body, &w->nbody, &w->body_cap, lh, 30) ||
         sq_mw_put(st, &w->body, &w->nbody, &w->body_cap, name, name_len) ||
         sq_mw_put(st, &w->body, &w->nbody, &w->body_cap, ".npy", 4) ||
         sq_mw_put(st, &w->body, &w->nbody, &w->body_cap, img, nimg);
  }
  rc = rc || sq_mw_put(st, &w->dir, &w->ndir, &w->dir_cap, ch, 46) ||
       sq_mw_put(st, &w->dir, &w->ndir, &w->dir_cap, name, name_len) ||
       sq_mw_put(st, &w->dir, &w->ndir, &w->dir_cap, ".npy", 4);
  sqlite3_free(img);
  if (rc) {
    /* Whole members only: the archive as it was before this one. */
    w->nbody = at;
    w->ndir = ndir;
    return st->code;
  }
  w->nmembers++;
  return SQ_OK;
}

typedef struct npz_span {
  const char *s;
  size_t len;
} npz_span;

static int npz_span_cmp(const void *a, const void *b) {
  const npz_span *x = a, *y = b;
  size_t k = x->len < y->len ? x->len : y->len;
  int c = k ? memcmp(x->s, y->s, k) : 0;
  if (c) return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* np.load keeps one array per name: a name given twice is an error. */
static int npz_unique(const sq_npz_writer *w, sq_status *st) {
  if (w->nmembers < 2) return SQ_OK;
  npz_span *v = sq_alloc(st, w->nmembers, sizeof *v);
  if (!v) return st->code;
  uint64_t at = 0;
  for (uint64_t i = 0; i < w->nmembers; i++) {
    size_t len = sq_load_u16(w->dir + at + 28);
    v[i].s = w->dir + at + 46;
    v[i].len = len - 4;
    at += 46 + len;
  }
  qsort(v, (size_t)w->nmembers, sizeof *v, npz_span_cmp);
  for (uint64_t i = 1; i < w->nmembers; i++)
    if (npz_span_cmp(&v[i - 1], &v[i]) == 0) {
      sq_fail(st, "name '%.*s' is given twice", NPZ_SHOW(v[i].len), v[i].s);
      break;
    }
  sqlite3_free(v);
  return st->code;
}

/* The bytes after the central directory: the zip64 end record (56 bytes)
** and its locator (20) when there are more than 65535 members (the end
** record's count then says 0xFFFF), and the end record (22). */
static uint64_t npz_tail_size(const sq_npz_writer *w) {
  return 22 + (w->nmembers > 0xFFFF ? 56 + 20 : 0);
}

static void npz_tail(const sq_npz_writer *w, unsigned char *e) {
  int zip64 = w->nmembers > 0xFFFF;
  if (zip64) {
    sq_store_u32(e, 0x06064b50u);
    sq_store_u32(e + 4, 44);   /* the record's size after this field */
    sq_store_u32(e + 8, 0);
    sq_store_u16(e + 12, 45);  /* made by: 4.5 */
    sq_store_u16(e + 14, 45);  /* needed: 4.5 */
    sq_store_u32(e + 16, 0);   /* this disk */
    sq_store_u32(e + 20, 0);   /* the directory's disk */
    sq_store_u32(e + 24, (uint32_t)w->nmembers);
    sq_store_u32(e + 28, 0);
    sq_store_u32(e + 32, (uint32_t)w->nmembers);
    sq_store_u32(e + 36, 0);
    sq_store_u32(e + 40, (uint32_t)w->ndir);
    sq_store_u32(e + 44, 0);
    sq_store_u32(e + 48, (uint32_t)w->nbody);
    sq_store_u32(e + 52, 0);
    e += 56;
    sq_store_u32(e, 0x07064b50u);
    sq_store_u32(e + 4, 0);    /* the zip64 record's disk */
    sq_store_u32(e + 8, (uint32_t)(w->nbody + w->ndir));
    sq_store_u32(e + 12, 0);
    sq_store_u32(e + 16, 1);   /* disks */
    e += 20;
  }
  uint16_t count = zip64 ? 0xFFFF : (uint16_t)w->nmembers;
  sq_store_u32(e, 0x06054b50u);
  sq_store_u16(e + 4, 0);
  sq_store_u16(e + 6, 0);
  sq_store_u16(e + 8, count);
  sq_store_u16(e + 10, count);
  sq_store_u32(e + 12, (uint32_t)w->ndir);
  sq_store_u32(e + 16, (uint32_t)w->nbody);
  sq_store_u16(e + 20, 0);     /* no comment */
}

/* The archive's bytes (sqlite3_malloc'd) and size. */
static int sq_npz_writer_finish(const sq_npz_writer *w, unsigned char **out,
                                uint64_t *outn, sq_status *st) {
  *out = NULL;
  *outn = 0;
  if (npz_unique(w, st)) return st->code;
  uint64_t tail = npz_tail_size(w);
  if (w->nbody > UINT64_MAX - w->ndir - tail) return sq_toobig(st);
  uint64_t total = w->nbody + w->ndir + tail;
  if (total > 0xFFFFFFFEu) return sq_toobig(st);
  unsigned char *p = sq_alloc(st, total, 1);
  if (!p) return st->code;
  if (w->nbody) memcpy(p, w->body, w->nbody);
  if (w->ndir) memcpy(p + w->nbody, w->dir, w->ndir);
  npz_tail(w, p + w->nbody + w->ndir);
  *out = p;
  *outn = total;
  return SQ_OK;
}

/* ---- the file store ---- */

/* The path code: left out by SQLITE_QUANT_OMIT_FS
** (docs/ARCHITECTURE.md#registration), where w->out stays NULL. */
#ifndef SQLITE_QUANT_OMIT_FS
/* A file store for target (resolved by sq_staged_resolve,
** sqlite3_malloc'd, taken over even on error); the temporary file is
** created now. */
static int sq_npz_writer_open(sq_npz_writer *w, sq_staged *target,
                              sq_status *st) {
  memset(w, 0, sizeof *w);
  w->out = target;
  return sq_staged_create(target, st);
}

/* The members are at the file's start whether sealed or not: unsealing
** only drops the directory after them. */
static int npz_unseal(sq_npz_writer *w, sq_status *st) {
  if (!w->sealed) return SQ_OK;
  if (sq_staged_truncate(w->out, w->nbody, st)) return st->code;
  w->sealed = 0;
  return SQ_OK;
}

/* The central directory after the members, the file sealed; *size its
** size. */
static int sq_npz_writer_seal(sq_npz_writer *w, uint64_t *size,
                              sq_status *st) {
  *size = 0;
  if (npz_unique(w, st)) return st->code;
  uint64_t tail = npz_tail_size(w);
  if (w->nbody + w->ndir + tail > 0xFFFFFFFEu) return npz_too_large(st);
  if (!w->sealed) {
    unsigned char e[22 + 56 + 20];
    npz_tail(w, e);
    if (sq_staged_pwrite(w->out, w->nbody, w->dir, w->ndir, st) ||
        sq_staged_pwrite(w->out, w->nbody + w->ndir, e, tail, st) ||
        sq_staged_truncate(w->out, w->nbody + w->ndir + tail, st))
      return st->code;
    w->sealed = 1;
  }
  if (sq_staged_seal(w->out, st)) return st->code;
  *size = w->nbody + w->ndir + tail;
  return SQ_OK;
}

static int sq_npz_writer_commit(sq_npz_writer *w, sq_status *st) {
  if (!w->sealed)
    return sq_fail(st, "cannot replace '%.200s': the file is not complete",
                   w->out->path);
  return sq_staged_commit(w->out, st);
}

static void sq_npz_writer_mark(const sq_npz_writer *w, sq_npz_mark *m) {
  m->nbody = w->nbody;
  m->ndir = w->ndir;
  m->nmembers = w->nmembers;
}

static int sq_npz_writer_rewind(sq_npz_writer *w, const sq_npz_mark *m,
                                sq_status *st) {
  if (w->out && npz_unseal(w, st)) return st->code;
  w->nbody = m->nbody;
  w->ndir = m->ndir;
  w->nmembers = m->nmembers;
  if (w->out) {
    sq_status ignored = *st;  /* sealing writes from nbody on anyway */
    (void)sq_staged_truncate(w->out, w->nbody, &ignored);
  }
  return SQ_OK;
}
#endif /* SQLITE_QUANT_OMIT_FS */

/* Frees the buffers; a staged file not committed is removed. */
static void sq_npz_writer_free(sq_npz_writer *w) {
#ifndef SQLITE_QUANT_OMIT_FS
  if (w->out) {
    sq_staged_close(w->out);
    sqlite3_free(w->out);
  }
#endif
  sqlite3_free(w->body);
  sqlite3_free(w->dir);
  memset(w, 0, sizeof *w);
}

/* ---- the writer ops (formats/writer.h) ---- */

static void npz_init(sq_file_writer *w) {
  memset(&w->as.npz, 0, sizeof w->as.npz);
}

static int npz_add(sq_file_writer *w, const char *name, size_t name_len,
                   const char *dtype, size_t dtype_len, const sq_shape *shape,
                   const void *data, size_t nbytes, sq_status *st) {
  return sq_npz_writer_add(&w->as.npz, name, name_len, dtype, dtype_len,
                           shape, data, nbytes, st);
}

static int npz_finish(sq_file_writer *w, unsigned char **out, uint64_t *outn,
                      sq_status *st) {
  return sq_npz_writer_finish(&w->as.npz, out, outn, st);
}

static void npz_free(sq_file_writer *w) { sq_npz_writer_free(&w->as.npz); }

#ifndef SQLITE_QUANT_OMIT_FS
static int npz_open(sq_file_writer *w, sq_staged *target, sq_status *st) {
  return sq_npz_writer_open(&w->as.npz, target, st);
}

static sq_staged *npz_staged(const sq_file_writer *w) { return w->as.npz.out; }

static int npz_seal(sq_file_writer *w, uint64_t *size, sq_status *st) {
  return sq_npz_writer_seal(&w->as.npz, size, st);
}

static int npz_commit(sq_file_writer *w, sq_status *st) {
  return sq_npz_writer_commit(&w->as.npz, st);
}

static void npz_mark(const sq_file_writer *w, sq_writer_mark *m) {
  sq_npz_writer_mark(&w->as.npz, &m->as.npz);
}

static int npz_rewind(sq_file_writer *w, const sq_writer_mark *m,
                      sq_status *st) {
  return sq_npz_writer_rewind(&w->as.npz, &m->as.npz, st);
}
#endif

/* .npz members hold empty arrays; an archive has no metadata. */
const sq_writer_ops sq_npz_writer_ops = {
  .dtype_column = "dtype", .shape_flags = SQ_SHAPE_ZERO_DIMS,
  .takes_metadata = 0, .init = npz_init, .add = npz_add,
  .finish = npz_finish, .free = npz_free,
#ifndef SQLITE_QUANT_OMIT_FS
  .open = npz_open, .staged = npz_staged, .seal = npz_seal,
  .commit = npz_commit, .mark = npz_mark, .rewind = npz_rewind,
#endif
};
