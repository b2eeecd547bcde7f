/*
** flatbuffer.c: the strict FlatBuffers reader (flatbuffer.h has the rules,
** docs/FORMATS.md#tflite how TFLite uses it).
*/
#include "core/text.h"
#include "formats/flatbuffer.h"
#include "kernels/byteorder.h"

uint64_t sq_fb_load_u64(const unsigned char *p) {
  return (uint64_t)sq_load_u32(p) | ((uint64_t)sq_load_u32(p + 4) << 32);
}

const unsigned char *sq_fb_bytes(sq_fb *fb, size_t pos, size_t len) {
  return sq_source_span(fb->src, pos, len, fb->st);
}

/* The table at pos, with its vtable checked. */
static int sq_fb_table_at(sq_fb *fb, uint64_t pos, sq_fb_table *t,
                          const char *what) {
  if (pos > fb->n || fb->n - pos < 4)
    return sq_fail(fb->st, "%s: %s: table at byte %llu is past the end of the "
                   "%llu-byte file", fb->format, what, (unsigned long long)pos,
                   (unsigned long long)fb->n);
  const unsigned char *tp = sq_fb_bytes(fb, (size_t)pos, 4);
  if (!tp) return fb->st->code;
  int32_t so = (int32_t)sq_load_u32(tp);
  int64_t vt = (int64_t)pos - (int64_t)so;
  if (vt < 0 || (uint64_t)vt > fb->n || fb->n - (uint64_t)vt < 4)
    return sq_fail(fb->st, "%s: %s: the vtable of the table at byte %llu lies "
                   "at byte %lld, outside the %llu-byte file", fb->format,
                   what, (unsigned long long)pos, (long long)vt,
                   (unsigned long long)fb->n);
  const unsigned char *vp = sq_fb_bytes(fb, (size_t)vt, 4);
  if (!vp) return fb->st->code;
  uint16_t vsize = sq_load_u16(vp);
  uint16_t tsize = sq_load_u16(vp + 2);
  if (vsize < 4 || (vsize & 1))
    return sq_fail(fb->st, "%s: %s: the vtable at byte %lld has size %u (it "
                   "must be even and at least 4)", fb->format, what,
                   (long long)vt, (unsigned)vsize);
  if (vsize > fb->n - (uint64_t)vt)
    return sq_fail(fb->st, "%s: %s: the vtable at byte %lld (%u bytes) runs "
                   "past the end of the %llu-byte file", fb->format, what,
                   (long long)vt, (unsigned)vsize, (unsigned long long)fb->n);
  if (tsize < 4 || tsize > fb->n - pos)
    return sq_fail(fb->st, "%s: %s: the table at byte %llu has size %u, past "
                   "the end of the %llu-byte file", fb->format, what,
                   (unsigned long long)pos, (unsigned)tsize,
                   (unsigned long long)fb->n);
  t->pos = (size_t)pos;
  t->vt = (size_t)vt;
  t->vsize = vsize;
  t->tsize = tsize;
  return SQ_OK;
}

int sq_fb_root(sq_fb *fb, sq_fb_table *root) {
  if (fb->n < 8)
    return sq_fail(fb->st, "%s: the file is %llu bytes, too short for a "
                   "flatbuffer (a 4-byte root offset and a 4-byte file "
                   "identifier)", fb->format, (unsigned long long)fb->n);
  const unsigned char *rp = sq_fb_bytes(fb, 0, 4);
  if (!rp) return fb->st->code;
  uint32_t r = sq_load_u32(rp);
  if (r < 8)
    return sq_fail(fb->st, "%s: the root table offset %lu points into the "
                   "file header (it must be at least 8)", fb->format,
                   (unsigned long)r);
  return sq_fb_table_at(fb, r, root, "the root table");
}

int sq_fb_has(const sq_fb_table *t, int i) {
  uint32_t slot = 4 + 2 * (uint32_t)i;
  return slot + 2 <= t->vsize;
}

/* The position of field i (size bytes), or 0 when absent (a field never
** lies at a table's byte 0, which holds the soffset). */
static int sq_fb_field(sq_fb *fb, const sq_fb_table *t, int i, size_t size,
                       size_t *pos, const char *what) {
  *pos = 0;
  if (!sq_fb_has(t, i)) return SQ_OK;
  /* the vtable was checked to lie inside the buffer, slot + 2 <= vsize */
  const unsigned char *sp = sq_fb_bytes(fb, t->vt + 4 + 2 * (size_t)i, 2);
  if (!sp) return fb->st->code;
  uint16_t off = sq_load_u16(sp);
  if (off == 0) return SQ_OK;
  if (off < 4 || off > t->tsize || size > (size_t)(t->tsize - off))
    return sq_fail(fb->st, "%s: %s: field at offset %u (%u bytes) of the "
                   "table at byte %llu lies outside its %u bytes", fb->format,
                   what, (unsigned)off, (unsigned)size,
                   (unsigned long long)t->pos, (unsigned)t->tsize);
  *pos = t->pos + off;
  return SQ_OK;
}

int sq_fb_u8(sq_fb *fb, const sq_fb_table *t, int i, uint8_t def, uint8_t *out,
             const char *what) {
  size_t pos;
  if (sq_fb_field(fb, t, i, 1, &pos, what)) return SQ_INVALID;
  const unsigned char *b = pos ? sq_fb_bytes(fb, pos, 1) : NULL;
  if (pos && !b) return fb->st->code;
  *out = pos ? b[0] : def;
  return SQ_OK;
}

int sq_fb_u32(sq_fb *fb, const sq_fb_table *t, int i, uint32_t def,
              uint32_t *out, const char *what) {
  size_t pos;
  if (sq_fb_field(fb, t, i, 4, &pos, what)) return SQ_INVALID;
  const unsigned char *b = pos ? sq_fb_bytes(fb, pos, 4) : NULL;
  if (pos && !b) return fb->st->code;
  *out = pos ? sq_load_u32(b) : def;
  return SQ_OK;
}

int sq_fb_u64(sq_fb *fb, const sq_fb_table *t, int i, uint64_t def,
              uint64_t *out, const char *what) {
  size_t pos;
  if (sq_fb_field(fb, t, i, 8, &pos, what)) return SQ_INVALID;
  const unsigned char *b = pos ? sq_fb_bytes(fb, pos, 8) : NULL;
  if (pos && !b) return fb->st->code;
  *out = pos ? sq_fb_load_u64(b) : def;
  return SQ_OK;
}

/* Follows the uoffset stored at byte pos (pos + 4 <= n was checked): *to
** the position it points at, which leaves at least 4 bytes in the buffer. */
static int sq_fb_uoffset(sq_fb *fb, size_t pos, uint64_t *to,
                         const char *what) {
  const unsigned char *b = sq_fb_bytes(fb, pos, 4);
  if (!b) return fb->st->code;
  uint32_t u = sq_load_u32(b);
  *to = (uint64_t)pos + u;
  if (u == 0)
    return sq_fail(fb->st, "%s: %s: the offset at byte %llu is 0 (it points "
                   "at itself)", fb->format, what, (unsigned long long)pos);
  if (*to > fb->n || fb->n - *to < 4)
    return sq_fail(fb->st, "%s: %s: the offset %lu at byte %llu points past "
                   "the end of the %llu-byte file", fb->format, what,
                   (unsigned long)u, (unsigned long long)pos,
                   (unsigned long long)fb->n);
  return SQ_OK;
}

/* Follows the uoffset of field i: *target the position it points at, 0 when
** the field is absent.  The target leaves at least 4 bytes in the buffer. */
static int sq_fb_follow(sq_fb *fb, const sq_fb_table *t, int i,
                        size_t *target, const char *what) {
  size_t pos;
  *target = 0;
  if (sq_fb_field(fb, t, i, 4, &pos, what)) return SQ_INVALID;
  if (!pos) return SQ_OK;
  uint64_t to;
  if (sq_fb_uoffset(fb, pos, &to, what)) return SQ_INVALID;
  *target = (size_t)to;
  return SQ_OK;
}

int sq_fb_table_field(sq_fb *fb, const sq_fb_table *t, int i,
                      sq_fb_table *out, int *present, const char *what) {
  size_t to;
  *present = 0;
  if (sq_fb_follow(fb, t, i, &to, what)) return SQ_INVALID;
  if (!to) return SQ_OK;
  *present = 1;
  return sq_fb_table_at(fb, to, out, what);
}

int sq_fb_vector_field(sq_fb *fb, const sq_fb_table *t, int i,
                       size_t elem_size, sq_fb_vector *out, const char *what) {
  size_t to;
  out->pos = 0;
  out->len = 0;
  if (sq_fb_follow(fb, t, i, &to, what)) return SQ_INVALID;
  if (!to) return SQ_OK;
  const unsigned char *lp = sq_fb_bytes(fb, to, 4);
  if (!lp) return fb->st->code;
  uint32_t len = sq_load_u32(lp);
  /* len < 2^32 and elem_size <= 8: the product fits in 64 bits */
  if ((uint64_t)len * elem_size > fb->n - to - 4)
    return sq_fail(fb->st, "%s: %s: the vector at byte %llu has %lu "
                   "element%s of %u byte%s, past the end of the %llu-byte "
                   "file", fb->format, what, (unsigned long long)to,
                   (unsigned long)len, len == 1 ? "" : "s",
                   (unsigned)elem_size, elem_size == 1 ? "" : "s",
                   (unsigned long long)fb->n);
  out->pos = to + 4;
  out->len = len;
  return SQ_OK;
}

int sq_fb_string_field(sq_fb *fb, const sq_fb_table *t, int i,
                       const unsigned char **s, uint32_t *len, int *present,
                       const char *what) {
  size_t to;
  *s = (const unsigned char *)"";
  *len = 0;
  *present = 0;
  if (sq_fb_follow(fb, t, i, &to, what)) return SQ_INVALID;
  if (!to) return SQ_OK;
  const unsigned char *lp = sq_fb_bytes(fb, to, 4);
  if (!lp) return fb->st->code;
  uint32_t l = sq_load_u32(lp);
  /* the bytes and their NUL */
  if ((uint64_t)l + 1 > fb->n - to - 4)
    return sq_fail(fb->st, "%s: %s: the string at byte %llu has length %lu, "
                   "past the end of the %llu-byte file", fb->format, what,
                   (unsigned long long)to, (unsigned long)l,
                   (unsigned long long)fb->n);
  const unsigned char *b = sq_fb_bytes(fb, to + 4, (size_t)l + 1);
  if (!b) return fb->st->code;
  if (b[l] != 0)
    return sq_fail(fb->st, "%s: %s: the string at byte %llu does not end "
                   "with a NUL byte", fb->format, what,
                   (unsigned long long)to);
  size_t bad = sq_utf8_check(b, l);
  if (bad != l)
    return sq_fail(fb->st, "%s: %s: the string at byte %llu is not valid "
                   "UTF-8 (byte 0x%02x at byte %llu)", fb->format, what,
                   (unsigned long long)to, (unsigned)b[bad],
                   (unsigned long long)(to + 4 + bad));
  *s = b;
  *len = l;
  *present = 1;
  return SQ_OK;
}

int sq_fb_vector_table(sq_fb *fb, const sq_fb_vector *v, uint32_t k,
                       sq_fb_table *out, const char *what) {
  /* the vector was checked to hold len 4-byte uoffsets */
  size_t pos = v->pos + 4 * (size_t)k;
  uint64_t to;
  if (sq_fb_uoffset(fb, pos, &to, what)) return SQ_INVALID;
  return sq_fb_table_at(fb, to, out, what);
}
