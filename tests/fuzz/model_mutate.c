/*
** model_mutate.c: the structure-aware mutator of build/fuzz_models
** (model_mutate.h has the input layout).
**
** Random bytes almost never parse as a model file, and a byte flipped at
** random in a valid one mostly lands in tensor data, which no reader
** checks.  So each mutation here changes one thing the readers do check,
** and fixes up what depends on it, so that most mutants still parse and
** the change reaches the code behind the first check:
**
**   safetensors  a token of the JSON header (a number, a dtype, a name
**                with escapes inserted), a member duplicated, dropped or
**                added (metadata with escapes), two data_offsets swapped;
**                the header length fixed up
**   GGUF         any header field (counts, types, dims, offsets, float
**                values to NaN or infinity), strings replaced, tensor
**                infos swapped (offsets out of order) or made to overlap,
**                key-value pairs added, copied or dropped; the data moved
**                to the new aligned start
**   .npy         a token of the header dict, the shape, the version (and
**                with it the header length's width), the data's length
**   .npz         any zip field in place (sizes, offsets, CRCs, zip64
**                records), or a member's .npy mutated and the archive
**                rebuilt: stored, or deflated as stored blocks or fixed
**                Huffman codes, with or without data descriptors and zip64
**                records, CRCs right
**   ONNX         the protobuf parsed as a tree (the ONNX messages the
**                reader walks): a varint (dtypes, data_location, ir_version),
**                a string (op types, attribute names, external data keys
**                and locations, names), packed numbers, raw_data; a message
**                dropped, copied, moved into another graph (deeper
**                subgraphs); a Constant node or external data added; lengths
**                always right
**   TFLite       the FlatBuffer walked by TFLite's schema: scalars, vector
**                lengths, vtable entries, string bytes, buffer indexes and
**                offsets in place, an offset pointed at another table of
**                its kind (shared parts)
**
** plus, now and then, libFuzzer's own byte mutation of a file, of the
** sibling files or of the control bytes.  The random choices come from the
** seed libFuzzer passes, so a run from -seed=N repeats.  Nothing here
** checks anything: a mutant that no longer parses is an input like any
** other.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_mutate.h"
#include "formats/inflate.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* ---- randomness, buffers, little-endian fields -------------------------- */

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rnd64(rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1Dull;
}

static unsigned rnd(rng *r, unsigned n) {
  return n ? (unsigned)(rnd64(r) % n) : 0;
}

typedef struct mb {
  uint8_t *p;
  size_t n, cap;
} mb;

static void mb_reserve(mb *b, size_t more) {
  if (b->n + more <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + more) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) abort();
  b->p = p;
  b->cap = cap;
}

static void mb_put(mb *b, const void *d, size_t n) {
  mb_reserve(b, n + 1);
  if (n) memcpy(b->p + b->n, d, n);
  b->n += n;
}

static void mb_u8(mb *b, unsigned v) {
  uint8_t c = (uint8_t)v;
  mb_put(b, &c, 1);
}

static void mb_le(mb *b, uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; i++) mb_u8(b, (unsigned)(v >> (8 * i)) & 0xFF);
}

static void mb_str(mb *b, const char *s) { mb_put(b, s, strlen(s)); }

static void mb_varint(mb *b, uint64_t v) {
  while (v >= 0x80) {
    mb_u8(b, (unsigned)(v & 0x7F) | 0x80);
    v >>= 7;
  }
  mb_u8(b, (unsigned)v);
}

/* Replaces bytes [off, off + del) with ins[0..nins). */
static void mb_splice(mb *b, size_t off, size_t del, const void *ins,
                      size_t nins) {
  if (off > b->n) off = b->n;
  if (del > b->n - off) del = b->n - off;
  if (nins > del) mb_reserve(b, nins - del + 1);
  memmove(b->p + off + nins, b->p + off + del, b->n - off - del);
  if (nins) memcpy(b->p + off, ins, nins);
  b->n = b->n - del + nins;
}

static void mb_free(mb *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

static uint64_t ld(const uint8_t *p, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void st(uint8_t *p, uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* libFuzzer's byte mutation of b's bytes [off, off + len), which may grow
** or shrink them by up to `room` bytes. */
static void mb_mutate_range(mb *b, size_t off, size_t len, size_t room) {
  if (off > b->n) return;
  if (len > b->n - off) len = b->n - off;
  size_t cap = len + room;
  uint8_t *tmp = malloc(cap ? cap : 1);
  if (!tmp) abort();
  if (len) memcpy(tmp, b->p + off, len);
  size_t n = len ? LLVMFuzzerMutate(tmp, len, cap) : 0;
  if (!len && cap) {
    tmp[0] = 0;
    n = 1;
  }
  mb_splice(b, off, len, tmp, n);
  free(tmp);
}

/* The first place needle occurs in p[0..n), or NULL. */
static const uint8_t *find(const uint8_t *p, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; k <= n && i <= n - k; i++)
    if (memcmp(p + i, needle, k) == 0) return p + i;
  return NULL;
}

/* ---- fields of a binary header ----------------------------------------- */

enum {
  F_INT,        /* an integer */
  F_LEN,        /* a count or length */
  F_OFF,        /* an offset in the file (or the data section) */
  F_F32,        /* a float32 value */
  F_F64,        /* a float64 value */
  F_GGUF_TYPE,  /* a GGUF value type */
  F_GGML_TYPE,  /* a ggml tensor type */
  F_TFL_TYPE,   /* a TFLite TensorType */
  F_FB_OFF,     /* a FlatBuffer uoffset (relative to where it is) */
  F_INDEX       /* an index into a table (TFLite buffers) */
};

#define MAX_FIELDS 1024

typedef struct field {
  size_t off;
  uint8_t width, kind;
} field;

typedef struct fields {
  field v[MAX_FIELDS];
  size_t n;
} fields;

static void fadd(fields *f, size_t off, unsigned width, unsigned kind) {
  if (f->n == MAX_FIELDS) return;
  f->v[f->n].off = off;
  f->v[f->n].width = (uint8_t)width;
  f->v[f->n].kind = (uint8_t)kind;
  f->n++;
}

static uint64_t interesting(rng *r, uint64_t cur) {
  static const uint64_t v[] = {
    0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 255,
    256, 1000, 1023, 1024, 4095, 4096, 65535, 65536, 0x7FFFFFFF, 0x80000000,
    0xFFFFFFFF, 0x100000000ull, 1ull << 53, 0x7FFFFFFFFFFFFFFFull,
    0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull};
  switch (rnd(r, 7)) {
    case 0: case 1: return v[rnd(r, sizeof v / sizeof v[0])];
    case 2: return cur + 1 + rnd(r, 8);
    case 3: return cur - 1 - rnd(r, 8);
    case 4: return rnd(r, 2) ? cur * 2 : cur / 2;
    case 5: return (uint64_t)0 - 1 - rnd(r, 4);
    default: return cur ^ ((uint64_t)1 << rnd(r, 64));
  }
}

static void put_f32(uint8_t *p, float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  st(p, u, 4);
}

static void put_f64(uint8_t *p, double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  st(p, u, 8);
}

static double odd_double(rng *r) {
  static const double v[] = {0.0, -0.0, 1.0, -1.5, 0.1, 1e-45, 5e-324, 1e30,
                             3.4028234663852886e38, 1e300};
  switch (rnd(r, 4)) {
    case 0: return (double)NAN;
    case 1: return rnd(r, 2) ? (double)INFINITY : -(double)INFINITY;
    default: return v[rnd(r, sizeof v / sizeof v[0])];
  }
}

static uint64_t from_list(rng *r, const uint64_t *v, size_t n) {
  return v[rnd(r, (unsigned)n)];
}

/* One field of f->v changed in place: a value that means something for
** its kind, or one of the interesting integers. */
static void field_mutate(rng *r, uint8_t *p, size_t n, const fields *f,
                         const field *x) {
  if (x->off + x->width > n) return;
  uint8_t *q = p + x->off;
  uint64_t cur = ld(q, x->width), v;
  static const uint64_t ggml[] = {0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                  15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                  26, 27, 28, 29, 30, 31, 34, 35, 39, 40, 41,
                                  42, 4, 5, 1000, 0xFFFFFFFF};
  switch (x->kind) {
    case F_F32:
      if (rnd(r, 4)) {
        put_f32(q, (float)odd_double(r));
        return;
      }
      v = interesting(r, cur);
      break;
    case F_F64:
      if (rnd(r, 4)) {
        put_f64(q, odd_double(r));
        return;
      }
      v = interesting(r, cur);
      break;
    case F_GGUF_TYPE: v = rnd(r, 8) ? rnd(r, 13) : interesting(r, cur); break;
    case F_GGML_TYPE:
      v = rnd(r, 8) ? from_list(r, ggml, sizeof ggml / sizeof ggml[0])
                    : interesting(r, cur);
      break;
    case F_TFL_TYPE: v = rnd(r, 8) ? rnd(r, 21) : interesting(r, cur); break;
    case F_INDEX: v = rnd(r, 2) ? rnd(r, 8) : interesting(r, cur); break;
    case F_OFF:
    case F_FB_OFF: {
      /* another offset's value: tensors that overlap, or share parts */
      size_t k = rnd(r, (unsigned)f->n);
      if (rnd(r, 2) && f->v[k].kind == x->kind && f->v[k].off + f->v[k].width <= n) {
        v = ld(p + f->v[k].off, f->v[k].width);
        if (x->kind == F_FB_OFF) v = v + f->v[k].off - x->off;
        if (rnd(r, 2)) v += rnd(r, 2) ? 4 : 32;
      } else if (rnd(r, 2)) {
        v = cur + (rnd(r, 2) ? 1u : 0u - 1u) * (1u + rnd(r, 64));
      } else {
        v = interesting(r, cur);
      }
      break;
    }
    case F_LEN:
      v = rnd(r, 2) ? cur + (rnd(r, 2) ? 1u : 0u - 1u) * (1u + rnd(r, 3))
                    : interesting(r, cur);
      break;
    default: v = interesting(r, cur); break;
  }
  st(q, v, x->width);
}

/* ---- tokens of a text header (JSON, a Python dict) ---------------------- */

typedef struct tok {
  size_t a, b;   /* [a, b) in the text: a string with its quotes, a number */
  char kind;     /* 's' string, 'n' number, 'i' identifier */
} tok;

#define MAX_TOKS 2048

static size_t tokenize(const uint8_t *p, size_t n, tok *t, int single_quotes) {
  size_t k = 0, i = 0;
  while (i < n && k < MAX_TOKS) {
    uint8_t c = p[i];
    if (c == '"' || (single_quotes && c == '\'')) {
      size_t j = i + 1;
      while (j < n && p[j] != c) j += p[j] == '\\' ? 2 : 1;
      if (j >= n) break;
      t[k].a = i;
      t[k].b = j + 1;
      t[k++].kind = 's';
      i = j + 1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i + 1;
      while (j < n && (strchr("0123456789.eE+-", p[j]) && p[j])) j++;
      t[k].a = i;
      t[k].b = j;
      t[k++].kind = 'n';
      i = j;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      size_t j = i + 1;
      while (j < n && ((p[j] >= 'a' && p[j] <= 'z') || (p[j] >= 'A' && p[j] <= 'Z')))
        j++;
      t[k].a = i;
      t[k].b = j;
      t[k++].kind = 'i';
      i = j;
    } else {
      i++;
    }
  }
  return k;
}

/* A token to change: keys (a string followed by ':') less often than
** values, as a changed key mostly makes an unknown or missing key. */
static tok *pick_token(rng *r, tok *t, size_t nt, const uint8_t *p, size_t n) {
  tok *x = &t[rnd(r, (unsigned)nt)];
  for (int tries = 0; tries < 3; tries++) {
    size_t e = x->b;
    while (e < n && p[e] == ' ') e++;
    if (x->kind != 's' || e >= n || p[e] != ':' || rnd(r, 4) == 0) break;
    x = &t[rnd(r, (unsigned)nt)];
  }
  return x;
}

/* Pieces a string gets: JSON escapes good and bad, control bytes, UTF-8
** good and bad. */
static const char *const escape_pieces[] = {
  "\\u00e9", "\\\"", "\\\\", "\\n", "\\t", "\\/", "\\b", "\\f", "\\r",
  "\\ud83d\\ude00", "\\uD83D\\uDE00", "\\ud800", "\\udc00", "\\ud800\\u0041",
  "\\u0000", "\\x41", "\\u12", "\\", "\x01", "\x1f", "\xff", "\xc3", "\xc3\xa9",
  "\xf0\x9f\x98\x80", "\xed\xa0\x80", "\\u001f", "\\u007f", "'", "\"",
};

/* A new text for string token t (its quotes kept) in *out. */
static void new_string(rng *r, const uint8_t *p, const tok *t, const tok *all,
                       size_t nall, const char *const *dict, size_t ndict,
                       int escapes, mb *out) {
  uint8_t q = p[t->a];
  const uint8_t *s = p + t->a + 1;
  size_t n = t->b - t->a - 2;
  mb_u8(out, q);
  /* (a Python literal has no escapes the .npy reader takes: rarely there) */
  unsigned op = rnd(r, 6);
  if (!escapes && op < 2 && rnd(r, 4)) op = 2;
  if (!escapes && op == 4) op = 2;
  switch (op) {
    case 0: case 1: {
      /* a piece inserted (at any byte: inside an escape too) */
      size_t at = rnd(r, (unsigned)n + 1);
      mb_put(out, s, at);
      mb_str(out, escape_pieces[rnd(r, sizeof escape_pieces / sizeof escape_pieces[0])]);
      mb_put(out, s + at, n - at);
      break;
    }
    case 2:
      mb_str(out, dict[rnd(r, (unsigned)ndict)]);
      break;
    case 3: {
      /* another string's text: a duplicate name */
      const tok *o = &all[rnd(r, (unsigned)nall)];
      if (o->kind == 's') mb_put(out, p + o->a + 1, o->b - o->a - 2);
      else mb_put(out, s, n);
      break;
    }
    case 4: {
      /* one byte written as \u00XX */
      if (!n) break;
      size_t at = rnd(r, (unsigned)n);
      static const char hex[] = "0123456789abcdef";
      char e[7] = {'\\', 'u', '0', '0', hex[s[at] >> 4], hex[s[at] & 15], 0};
      mb_put(out, s, at);
      mb_str(out, e);
      mb_put(out, s + at + 1, n - at - 1);
      break;
    }
    default: {
      /* longer, or empty */
      if (rnd(r, 2)) {
        for (unsigned k = 0, m = 1 + rnd(r, 40); k < m; k++) mb_put(out, s, n);
        if (!n) mb_str(out, "a-rather-long-name-repeated");
      }
      break;
    }
  }
  mb_u8(out, q);
}

static void new_number(rng *r, const uint8_t *p, const tok *t, const tok *all,
                       size_t nall, mb *out) {
  static const char *const odd[] = {
    "0", "1", "-1", "2", "3", "8", "16", "1.5", "1e3", "-0", "00", "4294967295",
    "4294967296", "9223372036854775807", "9223372036854775808",
    "18446744073709551615", "18446744073709551616", "1e400", "2.0"};
  char buf[32];
  unsigned long long cur = strtoull((const char *)p + t->a, NULL, 10);
  switch (rnd(r, 4)) {
    case 0: mb_str(out, odd[rnd(r, sizeof odd / sizeof odd[0])]); return;
    case 1: {
      const tok *o = &all[rnd(r, (unsigned)nall)];
      if (o->kind == 'n') {
        mb_put(out, p + o->a, o->b - o->a);
        return;
      }
      break;
    }
    default: break;
  }
  unsigned long long v = (unsigned long long)interesting(r, cur);
  if (rnd(r, 2)) v = cur + 1 + rnd(r, 4);
  else if (rnd(r, 2) && cur) v = cur - 1;
  snprintf(buf, sizeof buf, "%llu", v);
  mb_str(out, buf);
}

/* ---- safetensors ------------------------------------------------------- */

/* The members of the top-level JSON object: [key, end of value). */
static size_t json_members(const uint8_t *p, size_t n, size_t *ka, size_t *vb,
                           size_t max) {
  size_t i = 0, k = 0;
  while (i < n && p[i] != '{') i++;
  i++;
  while (i < n && k < max) {
    while (i < n && (p[i] == ' ' || p[i] == ',' || p[i] == '\n')) i++;
    if (i >= n || p[i] != '"') break;
    ka[k] = i;
    i++;
    while (i < n && p[i] != '"') i += p[i] == '\\' ? 2 : 1;
    i++;
    while (i < n && p[i] != ':') i++;
    i++;
    while (i < n && p[i] == ' ') i++;
    /* the value: balanced brackets, strings skipped */
    int depth = 0;
    while (i < n) {
      uint8_t c = p[i];
      if (c == '"') {
        i++;
        while (i < n && p[i] != '"') i += p[i] == '\\' ? 2 : 1;
        i++;
        if (!depth) break;
        continue;
      }
      if (c == '{' || c == '[') depth++;
      if (c == '}' || c == ']') {
        if (!depth) break;
        depth--;
        i++;
        if (!depth) break;
        continue;
      }
      if (!depth && (c == ',')) break;
      i++;
    }
    if (i > n) i = n;
    vb[k++] = i;
  }
  return k;
}

static const char *const st_dict[] = {
  "F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U64", "U32", "U16",
  "U8", "BOOL", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "C64", "Q4_0",
  "f32", "", "dtype", "shape", "data_offsets", "__metadata__", "w", "format"};

static const char *const st_metadata[] = {
  "\"__metadata__\":{\"format\":\"pt\",\"k\\u00e9\":\"line1\\nline2 \\\"q\\\" \\\\ \\ud83d\\ude00\"},",
  "\"__metadata__\":{\"a\":\"\\u0001\\u001f\\t\",\"\":\"\"},",
  "\"__metadata__\":{\"n\":1},",
  "\"__metadata__\":null,",
  "\"__metadata__\":{\"a\":\"\\ud800\"},",
  "\"__metadata__\":{\"x\":\"y\",\"x\":\"z\"},",
  "\"caf\\u00e9 \\\"q\\\"\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},",
};

/* The bytes of one element of a safetensors dtype, 0 if unknown. */
static unsigned st_size(const uint8_t *s, size_t n) {
  static const struct { const char *name; unsigned size; } t[] = {
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4},
    {"I16", 2}, {"I8", 1}, {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1},
    {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strlen(t[i].name) == n && memcmp(t[i].name, s, n) == 0) return t[i].size;
  return 0;
}

/* The array after "key": in p[a, b): its span [*x, *y) ('[' to ']'). */
static int st_array(const uint8_t *p, size_t a, size_t b, const char *key,
                    size_t *x, size_t *y) {
  const uint8_t *k = find(p + a, b - a, key);
  if (!k) return -1;
  const uint8_t *o = memchr(k, '[', (size_t)(p + b - k));
  const uint8_t *c = o ? memchr(o, ']', (size_t)(p + b - o)) : NULL;
  if (!o || !c) return -1;
  *x = (size_t)(o - p);
  *y = (size_t)(c - p) + 1;
  return 0;
}

/* The data laid out again after the header changed: each tensor's
** data_offsets set to what its dtype and shape need, one after the other in
** the header's order, its bytes taken from where they were (zeros past the
** old end).  -1 (nothing changed) when a tensor's entry is not plain. */
static int st_relayout(mb *f) {
  uint64_t hlen = ld(f->p, 8);
  if (hlen > f->n - 8) return -1;
  const uint8_t *h = f->p + 8;
  size_t data0 = 8 + (size_t)hlen;
  size_t ka[64], vb[64], ox[64], oy[64];
  uint64_t need[64], old[64];
  size_t nm = json_members(h, (size_t)hlen, ka, vb, 64), nt = 0;
  for (size_t i = 0; i < nm; i++) {
    if (vb[i] <= ka[i] || vb[i] > hlen) return -1;
    if (find(h + ka[i], vb[i] - ka[i], "\"__metadata__\"") == h + ka[i]) continue;
    size_t dx, dy, sx, sy;
    const uint8_t *d = find(h + ka[i], vb[i] - ka[i], "\"dtype\"");
    if (!d) return -1;
    const uint8_t *q1 = memchr(d + 7, '"', (size_t)(h + vb[i] - d - 7));
    const uint8_t *q2 = q1 ? memchr(q1 + 1, '"', (size_t)(h + vb[i] - q1 - 1)) : NULL;
    if (!q2) return -1;
    unsigned es = st_size(q1 + 1, (size_t)(q2 - q1 - 1));
    if (!es || st_array(h, ka[i], vb[i], "\"shape\"", &sx, &sy) ||
        st_array(h, ka[i], vb[i], "\"data_offsets\"", &dx, &dy))
      return -1;
    uint64_t count = 1;
    for (size_t j = sx + 1; j < sy - 1;) {
      char *end;
      unsigned long long v = strtoull((const char *)h + j, &end, 10);
      if ((const uint8_t *)end == h + j) {
        j++;
        continue;
      }
      if (v > 65536 || (count && v > (1ull << 20) / count)) return -1;
      count *= v;
      j = (size_t)((const uint8_t *)end - h);
    }
    need[nt] = count * es;
    old[nt] = strtoull((const char *)h + dx + 1, NULL, 10);
    ox[nt] = dx;
    oy[nt] = dy;
    nt++;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < nt; i++) total += need[i];
  if (total > 65536) return -1;
  mb out = {0};
  mb_put(&out, f->p, data0);
  uint64_t off = 0;
  mb data = {0};
  for (size_t i = 0; i < nt; i++) {
    for (uint64_t k = 0; k < need[i]; k++) {
      uint64_t at = data0 + old[i] + k;
      mb_u8(&data, at < f->n ? f->p[at] : 0);
    }
    (void)off;
  }
  /* the offsets' texts, last first, so the earlier spans stay where they are */
  uint64_t ends[64];
  for (size_t i = 0; i < nt; i++) ends[i] = (i ? ends[i - 1] : 0) + need[i];
  for (size_t i = nt; i-- > 0;) {
    char txt[48];
    snprintf(txt, sizeof txt, "[%llu,%llu]", (unsigned long long)(ends[i] - need[i]),
             (unsigned long long)ends[i]);
    mb_splice(&out, 8 + ox[i], oy[i] - ox[i], txt, strlen(txt));
  }
  st(out.p, out.n - 8, 8);
  mb_put(&out, data.p, data.n);
  mb_free(&data);
  mb_free(f);
  *f = out;
  return 0;
}

static int mut_safetensors(rng *r, mb *f) {
  if (f->n < 10) return -1;
  uint64_t hlen = ld(f->p, 8);
  int fix = rnd(r, 16) != 0;
  if (hlen > f->n - 8) {
    if (!rnd(r, 2)) return -1;
    hlen = f->n - 8;  /* a header whose length was broken: mend it */
    fix = 1;
  }
  size_t h0 = 8, h1 = 8 + (size_t)hlen;
  unsigned op = rnd(r, 100);
  mb nw = {0};
  if (op < 45) {
    static tok t[MAX_TOKS];
    size_t nt = tokenize(f->p + h0, hlen, t, 0);
    if (!nt) return -1;
    tok *x = pick_token(r, t, nt, f->p + h0, hlen);
    if (x->kind == 's')
      new_string(r, f->p + h0, x, t, nt, st_dict, sizeof st_dict / sizeof st_dict[0], 1, &nw);
    else if (x->kind == 'n')
      new_number(r, f->p + h0, x, t, nt, &nw);
    else
      mb_str(&nw, rnd(r, 2) ? "null" : "true");
    mb_splice(f, h0 + x->a, x->b - x->a, nw.p, nw.n);
    h1 += nw.n - (x->b - x->a);
  } else if (op < 62) {
    size_t ka[64], vb[64];
    size_t nm = json_members(f->p + h0, hlen, ka, vb, 64);
    unsigned kind = rnd(r, 4);
    if (kind == 3 || !nm) {
      /* metadata (or a name) with escapes, after the '{' */
      size_t at = 0;
      while (at < hlen && f->p[h0 + at] != '{') at++;
      if (at >= hlen) return -1;
      const char *m = st_metadata[rnd(r, sizeof st_metadata / sizeof st_metadata[0])];
      mb_splice(f, h0 + at + 1, 0, m, strlen(m));
      h1 += strlen(m);
    } else {
      size_t i = rnd(r, (unsigned)nm);
      size_t a = ka[i], b = vb[i];
      if (b <= a || b > hlen) return -1;
      if (kind == 0) {
        /* copied after itself: the same name twice, or renamed */
        mb_u8(&nw, ',');
        mb_put(&nw, f->p + h0 + a, b - a);
        if (rnd(r, 2) && nw.n > 2) mb_splice(&nw, 2, 0, "2", 1);
        mb_splice(f, h0 + b, 0, nw.p, nw.n);
        h1 += nw.n;
      } else if (kind == 1) {
        /* dropped, with the comma before or after it */
        size_t da = a, db = b;
        if (db < hlen && f->p[h0 + db] == ',') db++;
        else if (da > 0 && f->p[h0 + da - 1] == ',') da--;
        mb_splice(f, h0 + da, db - da, NULL, 0);
        h1 -= db - da;
      } else {
        /* two members' data_offsets swapped */
        size_t j = rnd(r, (unsigned)nm);
        const char *key = "\"data_offsets\":";
        const uint8_t *pi = find(f->p + h0 + a, b - a, key);
        const uint8_t *pj = vb[j] > ka[j] ? find(f->p + h0 + ka[j], vb[j] - ka[j], key) : NULL;
        if (!pi || !pj || pi == pj) return -1;
        if (pi > pj) {
          const uint8_t *tmp = pi;
          pi = pj;
          pj = tmp;
        }
        const uint8_t *ei = memchr(pi, ']', (size_t)(f->p + h1 - pi));
        const uint8_t *ej = memchr(pj, ']', (size_t)(f->p + h1 - pj));
        if (!ei || !ej || ei >= pj) return -1;
        size_t oi = (size_t)(pi - f->p), li = (size_t)(ei - pi);
        size_t oj = (size_t)(pj - f->p), lj = (size_t)(ej - pj);
        mb si = {0}, sj = {0};
        mb_put(&si, f->p + oi, li);
        mb_put(&sj, f->p + oj, lj);
        mb_splice(f, oj, lj, si.p, si.n);
        mb_splice(f, oi, li, sj.p, sj.n);
        mb_free(&si);
        mb_free(&sj);
      }
    }
  } else if (op < 70) {
    /* the header length itself */
    fields fl;
    fl.n = 0;
    fadd(&fl, 0, 8, F_LEN);
    field_mutate(r, f->p, f->n, &fl, &fl.v[0]);
    fix = 0;
  } else if (op < 85) {
    /* the data: values (NaN, infinities) or bytes */
    if (f->n <= h1) return -1;
    size_t dn = f->n - h1;
    if (rnd(r, 2) && dn >= 4) {
      size_t at = h1 + (rnd(r, (unsigned)(dn / 4)) * 4);
      put_f32(f->p + at, (float)odd_double(r));
    } else {
      mb_mutate_range(f, h1, dn, 0);
    }
    fix = 0;
  } else if (op < 92) {
    /* padding spaces in the header (as writers align it) */
    size_t pad = 1 + rnd(r, 8);
    mb_splice(f, h1, 0, "        ", pad);
    h1 += pad;
  } else {
    /* the data cut or lengthened */
    if (rnd(r, 2) && f->n > h1) f->n = h1 + rnd(r, (unsigned)(f->n - h1));
    else mb_splice(f, f->n, 0, "\0\0\0\0\0\0\0\0", 1 + rnd(r, 8));
    fix = 0;
  }
  mb_free(&nw);
  if (fix) {
    st(f->p, h1 - 8, 8);
    /* the data made to fit the header again, most of the time */
    if (op < 62 && rnd(r, 4)) st_relayout(f);
  }
  return 0;
}

/* ---- GGUF -------------------------------------------------------------- */

#define GGUF_MAX 256

typedef struct gguf_walk {
  fields f;
  size_t str[GGUF_MAX];             /* string length fields */
  size_t nstr;
  size_t kv[GGUF_MAX + 1];          /* starts of the key-value pairs, end */
  size_t nkv;
  size_t ti[GGUF_MAX + 1];          /* starts of the tensor infos, end */
  size_t nti;
  size_t offs[GGUF_MAX];            /* tensor offset fields */
  size_t end;                       /* the header's end */
  uint64_t align;
} gguf_walk;

static const unsigned gguf_width[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

static int gguf_string(const uint8_t *p, size_t n, size_t *pos, gguf_walk *w) {
  if (*pos > n || n - *pos < 8) return -1;
  uint64_t len = ld(p + *pos, 8);
  fadd(&w->f, *pos, 8, F_LEN);
  if (w->nstr < GGUF_MAX) w->str[w->nstr++] = *pos;
  if (len > n - *pos - 8) return -1;
  *pos += 8 + (size_t)len;
  return 0;
}

static int gguf_value(const uint8_t *p, size_t n, size_t *pos, uint32_t type,
                      gguf_walk *w, int depth) {
  if (type == 8) return gguf_string(p, n, pos, w);
  if (type == 9) {
    if (depth > 2 || *pos > n || n - *pos < 12) return -1;
    uint32_t et = (uint32_t)ld(p + *pos, 4);
    fadd(&w->f, *pos, 4, F_GGUF_TYPE);
    uint64_t count = ld(p + *pos + 4, 8);
    fadd(&w->f, *pos + 4, 8, F_LEN);
    *pos += 12;
    if (et < 13 && gguf_width[et]) {
      unsigned wd = gguf_width[et];
      if (count > (n - *pos) / wd) return -1;
      for (uint64_t i = 0; i < count && i < 8; i++)
        fadd(&w->f, *pos + (size_t)i * wd, wd, et == 6 ? F_F32 : et == 12 ? F_F64 : F_INT);
      *pos += (size_t)count * wd;
      return 0;
    }
    if (et != 8 && et != 9) return -1;
    if (count > n - *pos) return -1;
    for (uint64_t i = 0; i < count; i++)
      if (gguf_value(p, n, pos, et, w, depth + 1)) return -1;
    return 0;
  }
  if (type >= 13 || *pos > n || n - *pos < gguf_width[type]) return -1;
  unsigned wd = gguf_width[type];
  fadd(&w->f, *pos, wd, type == 6 ? F_F32 : type == 12 ? F_F64 : F_INT);
  *pos += wd;
  return 0;
}

/* Walks the header; 0 when the whole header was walked. */
static int gguf_walk_header(const uint8_t *p, size_t n, gguf_walk *w) {
  memset(w, 0, sizeof *w);
  w->align = 32;
  if (n < 24 || memcmp(p, "GGUF", 4) != 0) return -1;
  fadd(&w->f, 4, 4, F_INT);
  fadd(&w->f, 8, 8, F_LEN);
  fadd(&w->f, 16, 8, F_LEN);
  uint64_t nt = ld(p + 8, 8), nkv = ld(p + 16, 8);
  size_t pos = 24;
  for (uint64_t k = 0; k < nkv; k++) {
    if (w->nkv == GGUF_MAX) return -1;
    w->kv[w->nkv++] = pos;
    size_t key = pos + 8;
    if (gguf_string(p, n, &pos, w)) return -1;
    size_t keylen = pos - key;
    if (n - pos < 4) return -1;
    uint32_t type = (uint32_t)ld(p + pos, 4);
    fadd(&w->f, pos, 4, F_GGUF_TYPE);
    pos += 4;
    size_t v = pos;
    if (gguf_value(p, n, &pos, type, w, 0)) return -1;
    if (type == 4 && keylen == 17 && memcmp(p + key, "general.alignment", 17) == 0) {
      uint64_t a = ld(p + v, 4);
      if (a && !(a & (a - 1)) && a <= 65536) w->align = a;
    }
  }
  w->kv[w->nkv] = pos;
  for (uint64_t t = 0; t < nt; t++) {
    if (w->nti == GGUF_MAX) return -1;
    w->ti[w->nti] = pos;
    if (gguf_string(p, n, &pos, w)) return -1;
    if (n - pos < 4) return -1;
    uint32_t nd = (uint32_t)ld(p + pos, 4);
    fadd(&w->f, pos, 4, F_INT);
    pos += 4;
    if (nd > 8 || n - pos < (size_t)nd * 8 + 12) return -1;
    for (uint32_t d = 0; d < nd; d++) fadd(&w->f, pos + d * 8, 8, F_INT);
    pos += (size_t)nd * 8;
    fadd(&w->f, pos, 4, F_GGML_TYPE);
    pos += 4;
    fadd(&w->f, pos, 8, F_OFF);
    w->offs[w->nti++] = pos;
    pos += 8;
  }
  w->ti[w->nti] = pos;
  w->end = pos;
  return 0;
}

static size_t align_up(size_t x, uint64_t a) {
  return a ? (size_t)((x + a - 1) / a * a) : x;
}

/* f's header replaced by hdr, its data section moved to hdr's aligned end. */
static void gguf_relayout(mb *f, const gguf_walk *old, mb *hdr) {
  size_t data = align_up(old->end, old->align);
  gguf_walk w;
  uint64_t a = gguf_walk_header(hdr->p, hdr->n, &w) == 0 ? w.align : old->align;
  size_t pad = align_up(hdr->n, a) - hdr->n;
  for (size_t i = 0; i < pad; i++) mb_u8(hdr, 0);
  if (data < f->n) mb_put(hdr, f->p + data, f->n - data);
  mb tmp = *f;
  *f = *hdr;
  *hdr = tmp;
}

static const char *const gguf_keys[] = {
  "general.alignment", "general.architecture", "general.name",
  "tokenizer.ggml.tokens", "", "a\"b\\c\n\x01", "\xff\xfe", "caf\xc3\xa9",
  "a-name-longer-than-the-sixty-four-bytes-ggml-allows-for-a-tensor-name-x"};

/* Key-value pairs a file gets: NaN and infinite floats, arrays of every
** kind, the alignment. */
static void gguf_new_kv(rng *r, mb *b) {
  static const char *const keys[] = {"t.nan", "t.inf", "general.alignment", "t.arr", "t.s"};
  unsigned kind = rnd(r, 8);
  const char *key = keys[kind < 5 ? kind : 3];
  mb_le(b, strlen(key), 8);
  mb_str(b, key);
  switch (kind) {
    case 0: mb_le(b, 6, 4); mb_le(b, 0x7FC00000u, 4); break;
    case 1: mb_le(b, 12, 4); mb_le(b, rnd(r, 2) ? 0x7FF0000000000000ull : 0xFFF0000000000000ull, 8); break;
    case 2: {
      static const uint64_t a[] = {1, 8, 16, 64, 0, 3, 0x80000000u};
      mb_le(b, 4, 4);
      mb_le(b, a[rnd(r, 7)], 4);
      break;
    }
    case 3:
      mb_le(b, 9, 4); mb_le(b, 7, 4); mb_le(b, 3, 8);
      mb_u8(b, 1); mb_u8(b, 0); mb_u8(b, 2);
      break;
    case 4:
      mb_le(b, 8, 4);
      mb_le(b, 9, 8);
      mb_put(b, "q\"\\\n\t\x01\xc3\xa9x", 9);
      break;
    case 5:
      mb_le(b, 9, 4); mb_le(b, 8, 4); mb_le(b, 2, 8);
      mb_le(b, 1, 8); mb_u8(b, '"'); mb_le(b, 0, 8);
      break;
    case 6:
      /* an array of arrays */
      mb_le(b, 9, 4); mb_le(b, 9, 4); mb_le(b, 2, 8);
      for (int i = 0; i < 2; i++) {
        mb_le(b, 6, 4); mb_le(b, 1, 8); mb_le(b, 0x7FC00000u, 4);
      }
      break;
    default:
      mb_le(b, 9, 4); mb_le(b, 12, 4); mb_le(b, 2, 8);
      mb_le(b, 0x7FF8000000000000ull, 8); mb_le(b, 0x8000000000000000ull, 8);
      break;
  }
}

static int mut_gguf(rng *r, mb *f) {
  gguf_walk *w = malloc(sizeof *w);
  if (!w) abort();
  int walked = gguf_walk_header(f->p, f->n, w) == 0;
  if (!w->f.n) {
    free(w);
    return -1;
  }
  unsigned op = rnd(r, 100);
  if (!walked) op = rnd(r, 35);
  mb hdr = {0};
  if (op < 35) {
    field_mutate(r, f->p, f->n, &w->f, &w->f.v[rnd(r, (unsigned)w->f.n)]);
  } else if (op < 50 && w->nstr) {
    /* a string replaced, its length fixed */
    size_t at = w->str[rnd(r, (unsigned)w->nstr)];
    uint64_t len = ld(f->p + at, 8);
    mb s = {0};
    if (rnd(r, 2)) {
      mb_str(&s, gguf_keys[rnd(r, sizeof gguf_keys / sizeof gguf_keys[0])]);
    } else {
      size_t other = w->str[rnd(r, (unsigned)w->nstr)];
      mb_put(&s, f->p + other + 8, (size_t)ld(f->p + other, 8));
      if (rnd(r, 2)) mb_str(&s, escape_pieces[rnd(r, sizeof escape_pieces / sizeof escape_pieces[0])]);
    }
    mb_put(&hdr, f->p, w->end);
    uint8_t lenb[8];
    st(lenb, s.n, 8);
    mb_splice(&hdr, at, 8 + (size_t)len, lenb, 8);
    mb_splice(&hdr, at + 8, 0, s.p, s.n);
    mb_free(&s);
    gguf_relayout(f, w, &hdr);
  } else if (op < 62 && w->nti >= 2) {
    /* two tensor infos swapped: the offsets out of order */
    size_t i = rnd(r, (unsigned)w->nti), j = rnd(r, (unsigned)w->nti);
    if (i == j) j = (i + 1) % w->nti;
    if (i > j) {
      size_t t = i;
      i = j;
      j = t;
    }
    mb_put(&hdr, f->p, w->ti[i]);
    mb_put(&hdr, f->p + w->ti[j], w->ti[j + 1] - w->ti[j]);
    mb_put(&hdr, f->p + w->ti[i + 1], w->ti[j] - w->ti[i + 1]);
    mb_put(&hdr, f->p + w->ti[i], w->ti[i + 1] - w->ti[i]);
    mb_put(&hdr, f->p + w->ti[j + 1], w->end - w->ti[j + 1]);
    gguf_relayout(f, w, &hdr);
  } else if (op < 72 && w->nti >= 2) {
    /* one tensor's data where another's is, or starts inside it */
    size_t i = rnd(r, (unsigned)w->nti), j = rnd(r, (unsigned)w->nti);
    uint64_t v = ld(f->p + w->offs[j], 8);
    if (rnd(r, 2)) v += w->align;
    st(f->p + w->offs[i], v, 8);
  } else if (op < 82) {
    /* a key-value pair copied, or a new one */
    mb kv = {0};
    if (w->nkv && rnd(r, 2)) {
      size_t k = rnd(r, (unsigned)w->nkv);
      mb_put(&kv, f->p + w->kv[k], w->kv[k + 1] - w->kv[k]);
    } else {
      gguf_new_kv(r, &kv);
    }
    size_t at = w->kv[rnd(r, (unsigned)w->nkv + 1)];
    mb_put(&hdr, f->p, w->end);
    mb_splice(&hdr, at, 0, kv.p, kv.n);
    st(hdr.p + 16, ld(hdr.p + 16, 8) + 1, 8);
    mb_free(&kv);
    gguf_relayout(f, w, &hdr);
  } else if (op < 88 && (w->nkv || w->nti)) {
    /* a key-value pair or a tensor info dropped */
    mb_put(&hdr, f->p, w->end);
    if (w->nkv && (!w->nti || rnd(r, 2))) {
      size_t k = rnd(r, (unsigned)w->nkv);
      mb_splice(&hdr, w->kv[k], w->kv[k + 1] - w->kv[k], NULL, 0);
      st(hdr.p + 16, ld(hdr.p + 16, 8) - 1, 8);
    } else {
      size_t k = rnd(r, (unsigned)w->nti);
      mb_splice(&hdr, w->ti[k], w->ti[k + 1] - w->ti[k], NULL, 0);
      st(hdr.p + 8, ld(hdr.p + 8, 8) - 1, 8);
    }
    gguf_relayout(f, w, &hdr);
  } else if (op < 96) {
    /* the data section's bytes */
    size_t data = align_up(w->end, w->align);
    if (data >= f->n) {
      free(w);
      return -1;
    }
    if (rnd(r, 2) && f->n - data >= 4)
      put_f32(f->p + data + rnd(r, (unsigned)((f->n - data) / 4)) * 4, (float)odd_double(r));
    else
      mb_mutate_range(f, data, f->n - data, 0);
  } else {
    /* cut short */
    f->n = rnd(r, (unsigned)f->n);
  }
  mb_free(&hdr);
  free(w);
  return 0;
}

/* ---- .npy -------------------------------------------------------------- */

static const char *const npy_dict[] = {
  "<f4", ">f4", "<f2", ">f2", "<f8", ">f8", "|i1", "|u1", "<i2", ">i2", "<u2",
  "<i4", ">i4", "<u4", "<i8", ">i8", "<u8", "|b1", "<c8", "|O", "<V4", "<U3",
  "|S2", "f4", "<e", "=f4", "<f16", "", "descr", "fortran_order", "shape"};
static const char *const npy_shapes[] = {
  "()", "(0,)", "(1,)", "(3,)", "(2, 3)", "(2,3)", "(6, 1)", "(1, 2, 3)",
  "(4,)", "(-1,)", "(2, 3,)", "[2, 3]", "(99999999999, 99999999999)", "(2, 0)",
  "(32, 4)", "(3, 2, 2)", "(,)", "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,)"};

/* The data cut or zero-padded to what the header's descr and shape need
** (the element size: the descr's digits). */
static void npy_refit(mb *f, size_t h0, size_t h1) {
  const uint8_t *d = find(f->p + h0, h1 - h0, "'descr'");
  const uint8_t *sh = find(f->p + h0, h1 - h0, "'shape'");
  if (!d || !sh) return;
  const uint8_t *v = memchr(d + 7, '\'', (size_t)(f->p + h1 - d - 7));
  const uint8_t *ve = v ? memchr(v + 1, '\'', (size_t)(f->p + h1 - v - 1)) : NULL;
  if (!ve) return;
  unsigned long size = 0;
  for (const uint8_t *c = v + 1; c < ve; c++)
    if (*c >= '0' && *c <= '9') size = size * 10 + (unsigned long)(*c - '0');
  const uint8_t *o = memchr(sh, '(', (size_t)(f->p + h1 - sh));
  const uint8_t *e = o ? memchr(o, ')', (size_t)(f->p + h1 - o)) : NULL;
  if (!e || !size || size > 16) return;
  uint64_t count = 1;
  for (const uint8_t *c = o + 1; c < e;) {
    if (*c < '0' || *c > '9') {
      c++;
      continue;
    }
    uint64_t x = 0;
    while (c < e && *c >= '0' && *c <= '9') x = x * 10 + (uint64_t)(*c++ - '0');
    if (x > 65536 || (count && x > 65536 / count)) return;
    count *= x;
  }
  uint64_t want = count * size;
  if (want > 65536) return;
  if (f->n > h1 + want) {
    f->n = h1 + (size_t)want;
  } else {
    while (f->n < h1 + want) mb_u8(f, 0);
  }
}

static int mut_npy(rng *r, mb *f) {
  if (f->n < 10 || memcmp(f->p, "\x93NUMPY", 6) != 0) return -1;
  unsigned major = f->p[6];
  unsigned lw = major == 1 ? 2 : 4;
  if (f->n < 8 + lw) return -1;
  size_t h0 = 8 + lw;
  uint64_t hl = ld(f->p + 8, lw);
  int fix = rnd(r, 16) != 0;
  if (hl > f->n - h0) {
    hl = f->n - h0;
    fix = 1;
  }
  size_t h1 = h0 + (size_t)hl;
  unsigned op = rnd(r, 100);
  mb nw = {0};
  if (op < 45) {
    static tok t[MAX_TOKS];
    size_t nt = tokenize(f->p + h0, (size_t)hl, t, 1);
    if (!nt) return -1;
    tok *x = pick_token(r, t, nt, f->p + h0, (size_t)hl);
    if (x->kind == 's')
      new_string(r, f->p + h0, x, t, nt, npy_dict, sizeof npy_dict / sizeof npy_dict[0], 0, &nw);
    else if (x->kind == 'n')
      new_number(r, f->p + h0, x, t, nt, &nw);
    else
      mb_str(&nw, rnd(r, 3) ? (rnd(r, 2) ? "True" : "False") : "None");
    mb_splice(f, h0 + x->a, x->b - x->a, nw.p, nw.n);
    h1 += nw.n - (x->b - x->a);
  } else if (op < 60) {
    const uint8_t *s = memchr(f->p + h0, '(', (size_t)hl);
    const uint8_t *e = s ? memchr(s, ')', (size_t)(f->p + h1 - s)) : NULL;
    if (!s || !e) return -1;
    const char *sh = npy_shapes[rnd(r, sizeof npy_shapes / sizeof npy_shapes[0])];
    size_t a = (size_t)(s - f->p), len = (size_t)(e - s) + 1;
    mb_splice(f, a, len, sh, strlen(sh));
    h1 = h1 - len + strlen(sh);
  } else if (op < 67) {
    fields fl;
    fl.n = 0;
    fadd(&fl, 8, lw, F_LEN);
    field_mutate(r, f->p, f->n, &fl, &fl.v[0]);
    fix = 0;
  } else if (op < 74) {
    /* another version: the length field 2 or 4 bytes wide */
    unsigned nmaj = rnd(r, 8) ? 1 + rnd(r, 3) : rnd(r, 256);
    unsigned nlw = nmaj == 1 ? 2 : 4;
    f->p[6] = (uint8_t)nmaj;
    if (rnd(r, 4) == 0) f->p[7] = (uint8_t)rnd(r, 3);
    uint8_t z[4] = {0};
    mb_splice(f, 8, lw, z, nlw);
    h1 = h1 - lw + nlw;
    h0 = 8 + nlw;
    lw = nlw;
  } else if (op < 86) {
    if (f->n <= h1) return -1;
    if (rnd(r, 2) && f->n - h1 >= 4)
      put_f32(f->p + h1 + rnd(r, (unsigned)((f->n - h1) / 4)) * 4, (float)odd_double(r));
    else
      mb_mutate_range(f, h1, f->n - h1, 0);
    fix = 0;
  } else if (op < 93) {
    /* header padding as numpy writes it, or none */
    size_t pad = rnd(r, 2) ? (64 - h1 % 64) % 64 : 1 + rnd(r, 4);
    size_t at = h1 > h0 && f->p[h1 - 1] == '\n' ? h1 - 1 : h1;
    for (size_t i = 0; i < pad; i++) mb_splice(f, at, 0, " ", 1);
    h1 += pad;
  } else {
    if (rnd(r, 2) && f->n > h1) f->n = h1 + rnd(r, (unsigned)(f->n - h1));
    else mb_splice(f, f->n, 0, "\0\0\0\0\0\0\0\0", 1 + rnd(r, 8));
    fix = 0;
  }
  mb_free(&nw);
  if (fix) {
    st(f->p + 8, h1 - h0, lw);
    if (op < 60 && rnd(r, 4)) npy_refit(f, h0, h1);
  }
  return 0;
}

/* ---- zip (.npz) --------------------------------------------------------- */

static uint32_t crc_table[256];

static uint32_t crc32_of(const uint8_t *p, size_t n) {
  if (!crc_table[1]) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      crc_table[i] = c;
    }
  }
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

#define ZIP_MAX 32

typedef struct zmember {
  uint8_t name[256];
  size_t nlen;
  unsigned method, flags;
  uint32_t crc;
  uint64_t csize, usize;
  mb data;          /* the stored (compressed) bytes */
  int zip64;        /* had a zip64 extra field */
} zmember;

typedef struct zarchive {
  zmember m[ZIP_MAX];
  size_t n;
  int zip64;        /* had the zip64 end records */
  fields f;         /* every header field, for mutation in place */
} zarchive;

static void zip_free(zarchive *z) {
  for (size_t i = 0; i < z->n; i++) mb_free(&z->m[i].data);
}

/* Parses the central directory; 0 when every member was found.  The
** fields are recorded either way. */
static int zip_parse(const uint8_t *p, size_t n, zarchive *z) {
  memset(z, 0, sizeof *z);
  if (n < 22) return -1;
  size_t e = n - 22, stop = n > 22 + 65535 ? n - 22 - 65535 : 0;
  for (;; e--) {
    if (ld(p + e, 4) == 0x06054b50u) break;
    if (e == stop) return -1;
  }
  static const unsigned eocd_w[] = {4, 2, 2, 2, 2, 4, 4, 2};
  size_t o = e;
  for (unsigned k = 0; k < 8; k++) {
    if (k) fadd(&z->f, o, eocd_w[k], k >= 3 && k <= 5 ? F_LEN : k == 6 ? F_OFF : F_INT);
    o += eocd_w[k];
  }
  uint64_t count = ld(p + e + 10, 2), cdoff = ld(p + e + 16, 4);
  if (e >= 20 && ld(p + e - 20, 4) == 0x07064b50u) {
    z->zip64 = 1;
    fadd(&z->f, e - 16, 4, F_INT);
    fadd(&z->f, e - 12, 8, F_OFF);
    fadd(&z->f, e - 4, 4, F_INT);
    uint64_t r64 = ld(p + e - 12, 8);
    if (n >= 56 && r64 <= n - 56 && ld(p + r64, 4) == 0x06064b50u) {
      static const unsigned w64[] = {4, 8, 2, 2, 4, 4, 8, 8, 8, 8};
      size_t q = (size_t)r64;
      for (unsigned k = 0; k < 10; k++) {
        if (k) fadd(&z->f, q, w64[k], k >= 6 && k <= 8 ? F_LEN : k == 9 ? F_OFF : F_INT);
        q += w64[k];
      }
      count = ld(p + r64 + 32, 8);
      cdoff = ld(p + r64 + 48, 8);
    }
  }
  size_t c = (size_t)cdoff;
  for (uint64_t i = 0; i < count; i++) {
    if (z->n == ZIP_MAX || c > n || n - c < 46 || ld(p + c, 4) != 0x02014b50u) return -1;
    static const unsigned cw[] = {4, 2, 2, 2, 2, 2, 2, 4, 4, 4, 2, 2, 2, 2, 2, 4, 4};
    static const unsigned ck[] = {F_INT, F_INT, F_INT, F_INT, F_INT, F_INT, F_INT,
                                  F_INT, F_LEN, F_LEN, F_LEN, F_LEN, F_LEN, F_INT,
                                  F_INT, F_INT, F_OFF};
    size_t q = c;
    for (unsigned k = 0; k < 17; k++) {
      if (k) fadd(&z->f, q, cw[k], ck[k]);
      q += cw[k];
    }
    zmember *m = &z->m[z->n];
    m->flags = (unsigned)ld(p + c + 8, 2);
    m->method = (unsigned)ld(p + c + 10, 2);
    m->crc = (uint32_t)ld(p + c + 16, 4);
    m->csize = ld(p + c + 20, 4);
    m->usize = ld(p + c + 24, 4);
    size_t nl = (size_t)ld(p + c + 28, 2), el = (size_t)ld(p + c + 30, 2),
           cl = (size_t)ld(p + c + 32, 2);
    uint64_t loff = ld(p + c + 42, 4);
    if (n - c - 46 < nl + el + cl || nl > sizeof m->name) return -1;
    memcpy(m->name, p + c + 46, nl);
    m->nlen = nl;
    /* the zip64 extra field: the sizes and offset that did not fit */
    const uint8_t *x = p + c + 46 + nl;
    size_t xi = 0;
    while (xi + 4 <= el) {
      unsigned id = (unsigned)ld(x + xi, 2), len = (unsigned)ld(x + xi + 2, 2);
      if (xi + 4 + len > el) break;
      if (id == 1) {
        m->zip64 = 1;
        size_t v = xi + 4;
        if (m->usize == 0xFFFFFFFFu && v + 8 <= xi + 4 + len) {
          fadd(&z->f, (size_t)(x + v - p), 8, F_LEN);
          m->usize = ld(x + v, 8);
          v += 8;
        }
        if (m->csize == 0xFFFFFFFFu && v + 8 <= xi + 4 + len) {
          fadd(&z->f, (size_t)(x + v - p), 8, F_LEN);
          m->csize = ld(x + v, 8);
          v += 8;
        }
        if (loff == 0xFFFFFFFFu && v + 8 <= xi + 4 + len) {
          fadd(&z->f, (size_t)(x + v - p), 8, F_OFF);
          loff = ld(x + v, 8);
        }
      }
      xi += 4 + len;
    }
    if (loff > n || n - loff < 30 || ld(p + loff, 4) != 0x04034b50u) return -1;
    static const unsigned lw[] = {4, 2, 2, 2, 2, 2, 4, 4, 4, 2, 2};
    q = (size_t)loff;
    for (unsigned k = 0; k < 11; k++) {
      if (k) fadd(&z->f, q, lw[k], k >= 7 ? F_LEN : F_INT);
      q += lw[k];
    }
    size_t lnl = (size_t)ld(p + loff + 26, 2), lel = (size_t)ld(p + loff + 28, 2);
    size_t d = (size_t)loff + 30 + lnl + lel;
    if (d > n || m->csize > n - d) return -1;
    mb_put(&m->data, p + d, (size_t)m->csize);
    z->n++;
    c += 46 + nl + el + cl;
  }
  return 0;
}

/* Deflate encoders of the mutator's own: stored blocks, and fixed Huffman
** codes with length-3 matches of the byte before (the decoder's copy). */
typedef struct bits {
  mb *out;
  uint64_t acc;
  unsigned n;
} bits;

static void put_bits(bits *b, uint64_t v, unsigned n) {
  b->acc |= v << b->n;
  b->n += n;
  while (b->n >= 8) {
    mb_u8(b->out, (unsigned)(b->acc & 0xFF));
    b->acc >>= 8;
    b->n -= 8;
  }
}

static void put_code(bits *b, unsigned code, unsigned len) {
  unsigned rev = 0;
  for (unsigned i = 0; i < len; i++) rev |= ((code >> i) & 1u) << (len - 1 - i);
  put_bits(b, rev, len);
}

static void deflate_fixed(rng *r, const uint8_t *p, size_t n, mb *out) {
  bits b = {out, 0, 0};
  put_bits(&b, 1, 1);
  put_bits(&b, 1, 2);
  for (size_t i = 0; i < n;) {
    if (i > 0 && n - i >= 3 && p[i] == p[i - 1] && p[i + 1] == p[i - 1] &&
        p[i + 2] == p[i - 1] && rnd(r, 8)) {
      put_code(&b, 1, 7);   /* length 3 (symbol 257) */
      put_code(&b, 0, 5);   /* distance 1 */
      i += 3;
      continue;
    }
    unsigned c = p[i++];
    if (c < 144) put_code(&b, 0x30 + c, 8);
    else put_code(&b, 0x190 + c - 144, 9);
  }
  put_code(&b, 0, 7);
  if (b.n) put_bits(&b, 0, 8 - b.n);
}

static void deflate_stored(rng *r, const uint8_t *p, size_t n, mb *out) {
  size_t i = 0;
  unsigned most = rnd(r, 2) ? 65535 : 1 + rnd(r, 300);
  do {
    size_t len = n - i < most ? n - i : most;
    if (len && rnd(r, 4) == 0) len = 1 + rnd(r, (unsigned)len);
    if (rnd(r, 16) == 0) len = 0;   /* an empty block on the way */
    int last = i + len == n;
    mb_u8(out, last ? 1 : 0);
    mb_le(out, len, 2);
    mb_le(out, len ^ 0xFFFF, 2);
    mb_put(out, p + i, len);
    i += len;
  } while (i < n);
}

/* A member's bytes uncompressed (the core's decoder for deflate); -1 when
** they are not. */
static int zip_content(const zmember *m, mb *out) {
  if (m->method == 0) {
    mb_put(out, m->data.p, m->data.n);
    return 0;
  }
  if (m->method != 8 || m->usize > (1u << 20)) return -1;
  sq_inflate *z = malloc(sizeof *z);
  if (!z) abort();
  mb_reserve(out, (size_t)m->usize + 1);
  sq_status s;
  memset(&s, 0, sizeof s);
  s.max_bytes = 1 << 30;
  int rc = sq_inflate_run(z, m->data.p, m->data.n, 0, out->p, m->usize, 1,
                          m->usize, &s);
  free(z);
  if (rc) return -1;
  out->n = (size_t)m->usize;
  return 0;
}

static void zip_write(rng *r, const zarchive *z, int fix, mb *out) {
  uint64_t loff[ZIP_MAX];
  for (size_t i = 0; i < z->n; i++) {
    const zmember *m = &z->m[i];
    int desc = (m->flags & 8) != 0, big = m->zip64;
    loff[i] = out->n;
    mb_le(out, 0x04034b50u, 4);
    mb_le(out, big ? 45 : 20, 2);
    mb_le(out, m->flags, 2);
    mb_le(out, m->method, 2);
    mb_le(out, 0, 2);
    mb_le(out, 0x21, 2);
    mb_le(out, desc ? 0 : m->crc, 4);
    mb_le(out, desc ? 0 : big ? 0xFFFFFFFFu : m->csize, 4);
    mb_le(out, desc ? 0 : big ? 0xFFFFFFFFu : m->usize, 4);
    mb_le(out, m->nlen, 2);
    mb_le(out, big ? 20 : 0, 2);
    mb_put(out, m->name, m->nlen);
    if (big) {
      mb_le(out, 1, 2);
      mb_le(out, 16, 2);
      mb_le(out, desc ? 0 : m->usize, 8);
      mb_le(out, desc ? 0 : m->csize, 8);
    }
    mb_put(out, m->data.p, m->data.n);
    if (desc) {
      if (rnd(r, 2)) mb_le(out, 0x08074b50u, 4);
      mb_le(out, m->crc, 4);
      mb_le(out, m->csize, big ? 8 : 4);
      mb_le(out, m->usize, big ? 8 : 4);
    }
  }
  uint64_t cd = out->n;
  for (size_t i = 0; i < z->n; i++) {
    const zmember *m = &z->m[i];
    int big = m->zip64;
    mb_le(out, 0x02014b50u, 4);
    mb_le(out, 0x0314, 2);
    mb_le(out, big ? 45 : 20, 2);
    mb_le(out, m->flags, 2);
    mb_le(out, m->method, 2);
    mb_le(out, 0, 2);
    mb_le(out, 0x21, 2);
    mb_le(out, m->crc, 4);
    mb_le(out, big ? 0xFFFFFFFFu : m->csize, 4);
    mb_le(out, big ? 0xFFFFFFFFu : m->usize, 4);
    mb_le(out, m->nlen, 2);
    mb_le(out, big ? 28 : 0, 2);
    mb_le(out, 0, 2);
    mb_le(out, 0, 2);
    mb_le(out, 0, 2);
    mb_le(out, 0x81800000u, 4);
    mb_le(out, big ? 0xFFFFFFFFu : loff[i], 4);
    mb_put(out, m->name, m->nlen);
    if (big) {
      mb_le(out, 1, 2);
      mb_le(out, 24, 2);
      mb_le(out, m->usize, 8);
      mb_le(out, m->csize, 8);
      mb_le(out, loff[i], 8);
    }
  }
  uint64_t cdsize = out->n - cd;
  if (z->zip64) {
    uint64_t r64 = out->n;
    mb_le(out, 0x06064b50u, 4);
    mb_le(out, 44, 8);
    mb_le(out, 45, 2);
    mb_le(out, 45, 2);
    mb_le(out, 0, 4);
    mb_le(out, 0, 4);
    mb_le(out, z->n, 8);
    mb_le(out, z->n, 8);
    mb_le(out, cdsize, 8);
    mb_le(out, cd, 8);
    mb_le(out, 0x07064b50u, 4);
    mb_le(out, 0, 4);
    mb_le(out, r64, 8);
    mb_le(out, 1, 4);
  }
  int full = z->zip64 && (rnd(r, 2) || !fix);
  mb_le(out, 0x06054b50u, 4);
  mb_le(out, 0, 2);
  mb_le(out, 0, 2);
  mb_le(out, full ? 0xFFFF : z->n, 2);
  mb_le(out, full ? 0xFFFF : z->n, 2);
  mb_le(out, full ? 0xFFFFFFFFu : cdsize, 4);
  mb_le(out, full ? 0xFFFFFFFFu : cd, 4);
  mb_le(out, 0, 2);
}

/* The member's content re-encoded: stored, or deflated one of two ways;
** its sizes and CRC set (unless fix is 0). */
static void zip_encode(rng *r, zmember *m, const mb *content, int fix) {
  mb_free(&m->data);
  if (m->method == 8) {
    if (rnd(r, 2)) deflate_stored(r, content->p, content->n, &m->data);
    else deflate_fixed(r, content->p, content->n, &m->data);
  } else {
    mb_put(&m->data, content->p, content->n);
  }
  if (fix) {
    m->crc = crc32_of(content->p, content->n);
    m->csize = m->data.n;
    m->usize = content->n;
  }
}

static int mut_npz(rng *r, mb *f) {
  zarchive *z = malloc(sizeof *z);
  if (!z) abort();
  int parsed = zip_parse(f->p, f->n, z) == 0 && z->n > 0;
  unsigned op = rnd(r, 100);
  if (!parsed) op = rnd(r, 30);
  int fix = rnd(r, 16) != 0, rc = 0;
  if (op < 30) {
    if (z->f.n) field_mutate(r, f->p, f->n, &z->f, &z->f.v[rnd(r, (unsigned)z->f.n)]);
    else rc = -1;
    zip_free(z);
    free(z);
    return rc;
  }
  zmember *m = &z->m[rnd(r, (unsigned)z->n)];
  if (op < 70) {
    /* the member's .npy mutated */
    mb c = {0};
    if (zip_content(m, &c) == 0) {
      if (rnd(r, 4) == 0 || mut_npy(r, &c) != 0) mb_mutate_range(&c, 0, c.n, 64);
      zip_encode(r, m, &c, fix);
    } else {
      mb_mutate_range(&m->data, 0, m->data.n, 16);
    }
    mb_free(&c);
  } else if (op < 82) {
    /* its encoding: stored <-> deflated, a data descriptor, zip64 */
    mb c = {0};
    if (zip_content(m, &c) == 0) {
      switch (rnd(r, 4)) {
        case 0: m->method = m->method == 8 ? 0 : 8; break;
        case 1: m->flags ^= 8; break;
        case 2: m->zip64 = !m->zip64; break;
        default: z->zip64 = !z->zip64; break;
      }
      zip_encode(r, m, &c, 1);
    }
    mb_free(&c);
  } else if (op < 94) {
    switch (rnd(r, 4)) {
      case 0:
        if (z->n < ZIP_MAX) {
          /* copied: the same name twice, or renamed */
          zmember *d = &z->m[z->n++];
          *d = *m;
          memset(&d->data, 0, sizeof d->data);
          mb_put(&d->data, m->data.p, m->data.n);
          if (rnd(r, 2) && d->nlen < sizeof d->name) {
            memmove(d->name + 1, d->name, d->nlen);
            d->name[0] = 'c';
            d->nlen++;
          }
        }
        break;
      case 1:
        if (z->n > 1) {
          mb_free(&m->data);
          size_t i = (size_t)(m - z->m);
          memmove(m, m + 1, (z->n - i - 1) * sizeof *m);
          z->n--;
        }
        break;
      case 2: {
        zmember *o = &z->m[rnd(r, (unsigned)z->n)], t = *m;
        *m = *o;
        *o = t;
        break;
      }
      default: {
        static const char *const names[] = {"x.npy", "a/b.npy", "noext", "",
                                            "\xc3\xa9.npy", ".npy", "x.npy.npy",
                                            "../x.npy", "a\\b.npy"};
        const char *s = names[rnd(r, sizeof names / sizeof names[0])];
        m->nlen = strlen(s);
        memcpy(m->name, s, m->nlen);
        break;
      }
    }
  } else {
    mb_mutate_range(&m->data, 0, m->data.n, 16);
  }
  mb out = {0};
  zip_write(r, z, fix, &out);
  mb_free(f);
  *f = out;
  zip_free(z);
  free(z);
  return 0;
}

/* ---- ONNX: protobuf as a tree ------------------------------------------- */

enum { PB_MODEL, PB_GRAPH, PB_NODE, PB_ATTR, PB_TENSOR, PB_ENTRY, PB_SPARSE,
       PB_NTYPES };

/* The message type of field `num` of a message of type `type`, or -1. */
static int pb_child(int type, uint32_t num) {
  switch (type) {
    case PB_MODEL: return num == 7 ? PB_GRAPH : num == 14 ? PB_ENTRY : -1;
    case PB_GRAPH:
      return num == 1 ? PB_NODE : num == 5 ? PB_TENSOR : num == 15 ? PB_SPARSE : -1;
    case PB_NODE: return num == 5 ? PB_ATTR : -1;
    case PB_ATTR:
      return num == 5 || num == 10 ? PB_TENSOR : num == 6 || num == 11 ? PB_GRAPH
             : num == 22 || num == 23 ? PB_SPARSE : -1;
    case PB_TENSOR: return num == 13 ? PB_ENTRY : -1;
    case PB_SPARSE: return num == 1 || num == 2 ? PB_TENSOR : -1;
    default: return -1;
  }
}

typedef struct pbn {
  uint32_t num;
  uint8_t wt;
  int8_t msg;            /* its message type, or -1 */
  uint64_t v;            /* varint or fixed value */
  size_t boff, blen;     /* bytes (wire type 2, not a message) in the arena */
  int child, next, parent;
} pbn;

#define PB_MAX_NODES 20000

typedef struct pbt {
  pbn *n;
  int nn, cap;
  mb arena;
} pbt;

static int pb_new(pbt *t) {
  if (t->nn == t->cap) {
    int cap = t->cap ? t->cap * 2 : 256;
    pbn *n = realloc(t->n, (size_t)cap * sizeof *n);
    if (!n) abort();
    t->n = n;
    t->cap = cap;
  }
  memset(&t->n[t->nn], 0, sizeof t->n[0]);
  t->n[t->nn].child = t->n[t->nn].next = t->n[t->nn].parent = -1;
  t->n[t->nn].msg = -1;
  return t->nn++;
}

static int pb_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v) {
  *v = 0;
  for (unsigned s = 0; s < 70; s += 7) {
    if (*pos >= n) return -1;
    uint8_t c = p[(*pos)++];
    *v |= (uint64_t)(c & 0x7F) << s;
    if (!(c & 0x80)) return 0;
  }
  return -1;
}

/* Parses p[0..n) as a message of `type` under node `parent`; -1 (and the
** tree as before) when it is not one. */
static int pb_parse(pbt *t, int type, const uint8_t *p, size_t n, int parent,
                    int depth) {
  int saved = t->nn;
  size_t saved_arena = t->arena.n;
  int prev = -1;
  size_t pos = 0;
  while (pos < n) {
    uint64_t tag, v = 0;
    if (pb_varint(p, n, &pos, &tag) || t->nn >= PB_MAX_NODES) goto fail;
    uint32_t num = (uint32_t)(tag >> 3);
    unsigned wt = (unsigned)(tag & 7);
    if (!num) goto fail;
    int k = pb_new(t);
    t->n[k].num = num;
    t->n[k].wt = (uint8_t)wt;
    t->n[k].parent = parent;
    if (prev < 0) {
      if (parent >= 0) t->n[parent].child = k;
    } else {
      t->n[prev].next = k;
    }
    prev = k;
    if (wt == 0) {
      if (pb_varint(p, n, &pos, &v)) goto fail;
      t->n[k].v = v;
    } else if (wt == 1 || wt == 5) {
      unsigned w = wt == 1 ? 8 : 4;
      if (n - pos < w) goto fail;
      t->n[k].v = ld(p + pos, w);
      pos += w;
    } else if (wt == 2) {
      if (pb_varint(p, n, &pos, &v) || v > n - pos) goto fail;
      int sub = pb_child(type, num);
      if (sub >= 0 && depth < 150 && pb_parse(t, sub, p + pos, (size_t)v, k, depth + 1) == 0) {
        t->n[k].msg = (int8_t)sub;
      } else {
        t->n[k].boff = t->arena.n;
        t->n[k].blen = (size_t)v;
        mb_put(&t->arena, p + pos, (size_t)v);
      }
      pos += (size_t)v;
    } else {
      goto fail;
    }
  }
  return 0;
fail:
  t->nn = saved;
  t->arena.n = saved_arena;
  if (parent >= 0) t->n[parent].child = -1;
  return -1;
}

static void pb_write_list(const pbt *t, int first, mb *out, int depth);

static void pb_write_node(const pbt *t, int k, mb *out, int depth) {
  const pbn *x = &t->n[k];
  mb_varint(out, (uint64_t)x->num << 3 | x->wt);
  if (x->wt == 0) {
    mb_varint(out, x->v);
  } else if (x->wt == 1 || x->wt == 5) {
    mb_le(out, x->v, x->wt == 1 ? 8 : 4);
  } else if (x->msg >= 0) {
    mb sub = {0};
    if (depth < 400) pb_write_list(t, x->child, &sub, depth + 1);
    mb_varint(out, sub.n);
    mb_put(out, sub.p, sub.n);
    mb_free(&sub);
  } else {
    mb_varint(out, x->blen);
    mb_put(out, t->arena.p + x->boff, x->blen);
  }
}

static void pb_write_list(const pbt *t, int first, mb *out, int depth) {
  for (int k = first; k >= 0; k = t->n[k].next) pb_write_node(t, k, out, depth);
}

/* A deep copy of node k (not linked anywhere). */
static int pb_copy(pbt *t, int k, int depth) {
  int c = pb_new(t);
  pbn x = t->n[k];
  x.child = x.next = x.parent = -1;
  t->n[c] = x;
  if (t->n[k].msg >= 0 && depth < 200) {
    int prev = -1;
    for (int s = t->n[k].child; s >= 0 && t->nn < PB_MAX_NODES; s = t->n[s].next) {
      int d = pb_copy(t, s, depth + 1);
      t->n[d].parent = c;
      if (prev < 0) t->n[c].child = d;
      else t->n[prev].next = d;
      prev = d;
    }
  }
  return c;
}

/* Links node c as the last child of message node parent. */
static void pb_append(pbt *t, int parent, int c) {
  t->n[c].parent = parent;
  t->n[c].next = -1;
  if (t->n[parent].child < 0) {
    t->n[parent].child = c;
    return;
  }
  int s = t->n[parent].child;
  while (t->n[s].next >= 0) s = t->n[s].next;
  t->n[s].next = c;
}

static void pb_unlink(pbt *t, int k) {
  int p = t->n[k].parent;
  if (p < 0) return;
  if (t->n[p].child == k) {
    t->n[p].child = t->n[k].next;
    return;
  }
  for (int s = t->n[p].child; s >= 0; s = t->n[s].next)
    if (t->n[s].next == k) {
      t->n[s].next = t->n[k].next;
      return;
    }
}

static void pb_set_bytes(pbt *t, int k, const void *s, size_t n) {
  t->n[k].boff = t->arena.n;
  t->n[k].blen = n;
  t->n[k].msg = -1;
  t->n[k].wt = 2;
  t->n[k].child = -1;
  mb_put(&t->arena, s, n);
}

static int pb_add_bytes(pbt *t, int parent, uint32_t num, const void *s, size_t n) {
  int k = pb_new(t);
  t->n[k].num = num;
  pb_set_bytes(t, k, s, n);
  pb_append(t, parent, k);
  return k;
}

static int pb_add_varint(pbt *t, int parent, uint32_t num, uint64_t v) {
  int k = pb_new(t);
  t->n[k].num = num;
  t->n[k].wt = 0;
  t->n[k].v = v;
  pb_append(t, parent, k);
  return k;
}

static int pb_add_msg(pbt *t, int parent, uint32_t num, int type) {
  int k = pb_new(t);
  t->n[k].num = num;
  t->n[k].wt = 2;
  t->n[k].msg = (int8_t)type;
  pb_append(t, parent, k);
  return k;
}

static const char *const onnx_ops[] = {"Constant", "If", "Loop", "Scan",
                                       "Custom", "Identity", "constant", ""};
static const char *const onnx_attrs[] = {
  "value", "value_float", "value_floats", "value_int", "value_ints",
  "value_string", "sparse_value", "then_branch", "else_branch", "body",
  "branches", "g", ""};
static const char *const onnx_domains[] = {"", "ai.onnx", "com.microsoft", "ai.onnx.ml"};
static const char *const onnx_keys[] = {"location", "offset", "length", "checksum", "", "Location"};
static const char *const onnx_values[] = {
  "0", "4", "8", "16", "1", "00", "99999999999999999999", "-1", "1e3", " 8",
  "9223372036854775807", "../x.bin", "/etc/hostname", "a/../b", "", "sub/x.bin",
  "ext\\x.bin", "./external.bin", "external.bin", "model.onnx", "."};
static const char *const onnx_names[] = {
  "w", "", "c\xc3\xa9", "\xff\xfe", "a\"b\\c", "a/b", "tab\tname",
  "a-name-long-enough-to-need-a-few-lines-when-quoted-in-an-error-message"};

/* A fresh string for bytes node k, by where it is. */
static void onnx_new_string(rng *r, pbt *t, int k, const mm_input *in) {
  int p = t->n[k].parent;
  int pt = p >= 0 ? t->n[p].msg : PB_MODEL;
  uint32_t num = t->n[k].num;
  const char *s = NULL;
  char buf[64];
  if (pt == PB_NODE && num == 4) s = onnx_ops[rnd(r, sizeof onnx_ops / sizeof onnx_ops[0])];
  else if (pt == PB_NODE && num == 7) s = onnx_domains[rnd(r, 4)];
  else if (pt == PB_ATTR && num == 1) s = onnx_attrs[rnd(r, sizeof onnx_attrs / sizeof onnx_attrs[0])];
  else if (pt == PB_ENTRY && num == 1) s = onnx_keys[rnd(r, sizeof onnx_keys / sizeof onnx_keys[0])];
  else if (pt == PB_ENTRY && num == 2) {
    if (in->nfiles > 1 && rnd(r, 2)) {
      s = in->f[1 + rnd(r, (unsigned)in->nfiles - 1)].name;
    } else if (rnd(r, 3) == 0) {
      snprintf(buf, sizeof buf, "%u", rnd(r, 64));
      s = buf;
    } else {
      s = onnx_values[rnd(r, sizeof onnx_values / sizeof onnx_values[0])];
    }
  }
  mb nb = {0};
  if (s) {
    mb_str(&nb, s);
  } else {
    const uint8_t *old = t->arena.p + t->n[k].boff;
    size_t n = t->n[k].blen;
    switch (rnd(r, 3)) {
      case 0: mb_str(&nb, onnx_names[rnd(r, sizeof onnx_names / sizeof onnx_names[0])]); break;
      case 1: {
        size_t at = rnd(r, (unsigned)n + 1);
        mb_put(&nb, old, at);
        mb_str(&nb, escape_pieces[rnd(r, sizeof escape_pieces / sizeof escape_pieces[0])]);
        mb_put(&nb, old + at, n - at);
        break;
      }
      default:
        for (unsigned i = 0, m = 1 + rnd(r, 60); i < m; i++) mb_put(&nb, old, n);
        break;
    }
  }
  pb_set_bytes(t, k, nb.p, nb.n);
  mb_free(&nb);
}

/* A packed field's numbers (dims, int32_data, float_data, ...) changed. */
static void onnx_packed(rng *r, pbt *t, int k, uint32_t num) {
  const uint8_t *p = t->arena.p + t->n[k].boff;
  size_t n = t->n[k].blen;
  mb nb = {0};
  if (num == 4 || num == 10) {
    unsigned w = num == 4 ? 4 : 8;
    mb_put(&nb, p, n - n % w);
    size_t cnt = nb.n / w;
    switch (rnd(r, 3)) {
      case 0:
        if (cnt) {
          uint8_t *q = nb.p + rnd(r, (unsigned)cnt) * w;
          if (w == 4) put_f32(q, (float)odd_double(r));
          else put_f64(q, odd_double(r));
        }
        break;
      case 1: nb.n = cnt ? nb.n - w : 0; break;
      default: {
        uint8_t z[8] = {0};
        mb_put(&nb, z, w);
        break;
      }
    }
  } else {
    uint64_t v[512];
    size_t cnt = 0, pos = 0;
    while (pos < n && cnt < 512 && pb_varint(p, n, &pos, &v[cnt]) == 0) cnt++;
    unsigned op = rnd(r, 3);
    if (op == 0 && cnt) {
      size_t i = rnd(r, (unsigned)cnt);
      v[i] = num == 1 && rnd(r, 2) ? rnd(r, 40) : interesting(r, v[i]);
    } else if (op == 1 && cnt) {
      cnt--;
    } else if (cnt < 512) {
      v[cnt++] = rnd(r, 2) ? rnd(r, 4) : interesting(r, 0);
    }
    for (size_t i = 0; i < cnt; i++) mb_varint(&nb, v[i]);
  }
  pb_set_bytes(t, k, nb.p, nb.n);
  mb_free(&nb);
}

/* Message nodes of a type, for moves and additions. */
static int pb_pick_msg(rng *r, const pbt *t, int type) {
  int cnt = 0;
  for (int i = 0; i < t->nn; i++) cnt += t->n[i].msg == type;
  if (!cnt) return -1;
  int want = (int)rnd(r, (unsigned)cnt);
  for (int i = 0; i < t->nn; i++)
    if (t->n[i].msg == type && want-- == 0) return i;
  return -1;
}

/* A Constant node of one of the value forms, or external data, added. */
static void onnx_add(rng *r, pbt *t, const mm_input *in) {
  unsigned kind = rnd(r, 3);
  if (kind == 2) {
    int ten = pb_pick_msg(r, t, PB_TENSOR);
    if (ten < 0) return;
    /* data_location EXTERNAL, a location beside the model */
    for (int s = t->n[ten].child, nx; s >= 0; s = nx) {
      nx = t->n[s].next;
      if (t->n[s].num == 9 && rnd(r, 2)) pb_unlink(t, s);
    }
    pb_add_varint(t, ten, 14, 1);
    const char *loc = in->nfiles > 1 ? in->f[1].name : "external.bin";
    const char *keys[3] = {"location", "offset", "length"};
    char vals[3][MM_NAME_MAX + 8];
    snprintf(vals[0], sizeof vals[0], "%s", loc);
    snprintf(vals[1], sizeof vals[1], "%u", rnd(r, 4) * 4);
    snprintf(vals[2], sizeof vals[2], "%u", rnd(r, 5) * 4);
    for (int i = 0; i < 3; i++) {
      if (i == 2 && rnd(r, 2)) break;
      int e = pb_add_msg(t, ten, 13, PB_ENTRY);
      pb_add_bytes(t, e, 1, keys[i], strlen(keys[i]));
      pb_add_bytes(t, e, 2, vals[i], strlen(vals[i]));
    }
    return;
  }
  int g = pb_pick_msg(r, t, PB_GRAPH);
  if (g < 0) return;
  int node = pb_add_msg(t, g, 1, PB_NODE);
  pb_add_bytes(t, node, 2, "c_added", 7);
  pb_add_bytes(t, node, 4, "Constant", 8);
  int a = pb_add_msg(t, node, 5, PB_ATTR);
  static const char *const forms[] = {"value", "value_float", "value_floats",
                                      "value_int", "value_ints", "value_string"};
  unsigned form = kind == 0 ? 0 : rnd(r, 6);
  pb_add_bytes(t, a, 1, forms[form], strlen(forms[form]));
  switch (form) {
    case 0: {
      pb_add_varint(t, a, 20, 4);
      int ten = pb_add_msg(t, a, 5, PB_TENSOR);
      pb_add_varint(t, ten, 1, 2);
      pb_add_varint(t, ten, 1, 2);
      pb_add_varint(t, ten, 2, rnd(r, 2) ? 1 : 1 + rnd(r, 17));
      pb_add_bytes(t, ten, 8, "c_added", 7);
      uint8_t raw[16];
      for (int i = 0; i < 4; i++) put_f32(raw + 4 * i, (float)(i + 1) * 0.5f);
      pb_add_bytes(t, ten, 9, raw, sizeof raw);
      break;
    }
    case 1: {
      int k = pb_new(t);
      t->n[k].num = 2;
      t->n[k].wt = 5;
      t->n[k].v = 0x3F800000u;
      pb_append(t, a, k);
      pb_add_varint(t, a, 20, 1);
      break;
    }
    case 2: {
      uint8_t raw[8];
      put_f32(raw, 1.5f);
      put_f32(raw + 4, -2.0f);
      pb_add_bytes(t, a, 7, raw, sizeof raw);
      pb_add_varint(t, a, 20, 6);
      break;
    }
    case 3: pb_add_varint(t, a, 3, 7); pb_add_varint(t, a, 20, 2); break;
    case 4: pb_add_bytes(t, a, 8, "\x01\x02\x7f", 3); pb_add_varint(t, a, 20, 7); break;
    default: pb_add_bytes(t, a, 4, "text", 4); pb_add_varint(t, a, 20, 3); break;
  }
}

static int mut_onnx(rng *r, mb *f, const mm_input *in) {
  pbt t;
  memset(&t, 0, sizeof t);
  int root = pb_new(&t);
  t.n[root].msg = PB_MODEL;
  if (pb_parse(&t, PB_MODEL, f->p, f->n, root, 0) != 0 || t.nn < 2) {
    free(t.n);
    mb_free(&t.arena);
    return -1;
  }
  unsigned op = rnd(r, 100);
  if (op < 12) {
    onnx_add(r, &t, in);
  } else {
    int k = 1 + (int)rnd(r, (unsigned)t.nn - 1);
    pbn *x = &t.n[k];
    int p = x->parent;
    int pt = p >= 0 ? t.n[p].msg : -1;
    if (x->msg >= 0) {
      unsigned mop = rnd(r, 4);
      if (mop == 0) {
        pb_unlink(&t, k);
      } else if (mop == 1 && p >= 0) {
        /* copied after itself */
        int c = pb_copy(&t, k, 0);
        t.n[c].parent = p;
        t.n[c].next = t.n[k].next;
        t.n[k].next = c;
      } else if (p >= 0) {
        /* a copy into another message of the parent's type: a node into a
        ** subgraph, a graph under an attribute deeper down */
        int dest = pb_pick_msg(r, &t, pt);
        if (dest >= 0) {
          int c = pb_copy(&t, k, 0);
          pb_append(&t, dest, c);
        }
      }
    } else if (x->wt == 0) {
      uint64_t v;
      if (pt == PB_TENSOR && x->num == 2) v = rnd(r, 8) ? rnd(r, 26) : interesting(r, x->v);
      else if (pt == PB_TENSOR && x->num == 14) v = rnd(r, 3);
      else if (pt == PB_ATTR && x->num == 20) v = rnd(r, 15);
      else if (pt == PB_MODEL && x->num == 1) v = rnd(r, 2) ? rnd(r, 12) : interesting(r, x->v);
      else if (pt == PB_TENSOR && x->num == 1) v = rnd(r, 2) ? rnd(r, 40) : interesting(r, x->v);
      else v = interesting(r, x->v);
      x->v = v;
    } else if (x->wt == 1 || x->wt == 5) {
      if (rnd(r, 2)) {
        if (x->wt == 5) {
          uint8_t q[4];
          put_f32(q, (float)odd_double(r));
          x->v = ld(q, 4);
        } else {
          uint8_t q[8];
          put_f64(q, odd_double(r));
          x->v = ld(q, 8);
        }
      } else {
        x->v = interesting(r, x->v) & (x->wt == 5 ? 0xFFFFFFFFu : ~0ull);
      }
    } else if (x->wt == 2) {
      if (pt == PB_TENSOR && (x->num == 1 || x->num == 4 || x->num == 5 ||
                              x->num == 7 || x->num == 10 || x->num == 11)) {
        onnx_packed(r, &t, k, x->num);
      } else if (pt == PB_TENSOR && x->num == 9) {
        mb nb = {0};
        mb_put(&nb, t.arena.p + x->boff, x->blen);
        if (rnd(r, 2) && nb.n >= 4) put_f32(nb.p + rnd(r, (unsigned)(nb.n / 4)) * 4, (float)odd_double(r));
        else mb_mutate_range(&nb, 0, nb.n, 16);
        pb_set_bytes(&t, k, nb.p, nb.n);
        mb_free(&nb);
      } else {
        onnx_new_string(r, &t, k, in);
      }
    }
  }
  mb out = {0};
  pb_write_list(&t, t.n[root].child, &out, 0);
  free(t.n);
  mb_free(&t.arena);
  mb_free(f);
  *f = out;
  /* now and then a wire-format error: a byte of the encoding changed */
  if (rnd(r, 20) == 0 && f->n) f->p[rnd(r, (unsigned)f->n)] ^= (uint8_t)(1u << rnd(r, 8));
  return 0;
}

/* ---- TFLite: the FlatBuffer walked by the schema ------------------------ */

enum { FB_MODEL, FB_SUBGRAPH, FB_TENSOR, FB_BUFFER, FB_METADATA, FB_QUANT,
       FB_OPCODE, FB_SPARSITY, FB_NTYPES };
enum { K_U8, K_U32, K_I32, K_U64, K_STR, K_TABLE, K_VTABLES, K_VI32, K_VU8,
       K_VF32, K_VI64, K_NONE };

typedef struct fb_slot {
  uint8_t kind, sub, scalar_kind;
} fb_slot;

/* Per table type, field k's kind (and the table type it points to). */
static fb_slot fb_schema(int type, unsigned k) {
  fb_slot s = {K_NONE, 0, F_INT};
  switch (type) {
    case FB_MODEL:
      switch (k) {
        case 0: s.kind = K_U32; break;
        case 1: s.kind = K_VTABLES; s.sub = FB_OPCODE; break;
        case 2: s.kind = K_VTABLES; s.sub = FB_SUBGRAPH; break;
        case 3: s.kind = K_STR; break;
        case 4: s.kind = K_VTABLES; s.sub = FB_BUFFER; break;
        case 5: s.kind = K_VI32; break;
        case 6: s.kind = K_VTABLES; s.sub = FB_METADATA; break;
        default: break;
      }
      break;
    case FB_SUBGRAPH:
      if (k == 0) { s.kind = K_VTABLES; s.sub = FB_TENSOR; }
      else if (k == 1 || k == 2) s.kind = K_VI32;
      else if (k == 4) s.kind = K_STR;
      break;
    case FB_TENSOR:
      switch (k) {
        case 0: case 7: s.kind = K_VI32; break;
        case 1: s.kind = K_U8; s.scalar_kind = F_TFL_TYPE; break;
        case 2: s.kind = K_U32; s.scalar_kind = F_INDEX; break;
        case 3: s.kind = K_STR; break;
        case 4: s.kind = K_TABLE; s.sub = FB_QUANT; break;
        case 5: s.kind = K_U8; break;
        case 6: s.kind = K_TABLE; s.sub = FB_SPARSITY; break;
        default: break;
      }
      break;
    case FB_BUFFER:
      if (k == 0) s.kind = K_VU8;
      else if (k == 1) { s.kind = K_U64; s.scalar_kind = F_OFF; }
      else if (k == 2) { s.kind = K_U64; s.scalar_kind = F_LEN; }
      break;
    case FB_METADATA:
      if (k == 0) s.kind = K_STR;
      else if (k == 1) { s.kind = K_U32; s.scalar_kind = F_INDEX; }
      break;
    case FB_QUANT:
      if (k <= 2) s.kind = K_VF32;
      else if (k == 3) s.kind = K_VI64;
      else if (k == 6) s.kind = K_I32;
      break;
    case FB_OPCODE:
      if (k == 0) s.kind = K_U8;
      else if (k == 1) s.kind = K_STR;
      else if (k == 2 || k == 3) s.kind = K_I32;
      break;
    default: break;
  }
  return s;
}

#define FB_MAX_TABLES 1024

typedef struct fb_walk {
  fields f;
  size_t tables[FB_NTYPES][64];     /* table positions by type */
  size_t ntables[FB_NTYPES];
  size_t refs[256];                 /* uoffset fields that point at tables */
  uint8_t ref_type[256];
  size_t nrefs;
  size_t strs[128], nstrs;          /* string contents: position, length */
  size_t strlens[128];
  size_t data[64], datalens[64], ndata;
  size_t visited[FB_MAX_TABLES], nvisited;
} fb_walk;

static int fb_seen(fb_walk *w, size_t t) {
  for (size_t i = 0; i < w->nvisited; i++)
    if (w->visited[i] == t) return 1;
  if (w->nvisited < FB_MAX_TABLES) w->visited[w->nvisited++] = t;
  return w->nvisited == FB_MAX_TABLES;
}

/* The target of the uoffset at pos, or 0. */
static size_t fb_target(const uint8_t *p, size_t n, size_t pos) {
  if (pos > n || n - pos < 4) return 0;
  uint64_t t = pos + ld(p + pos, 4);
  return t < n ? (size_t)t : 0;
}

static void fb_table(const uint8_t *p, size_t n, size_t t, int type, fb_walk *w,
                     int depth);

static void fb_ref(const uint8_t *p, size_t n, size_t pos, int type,
                   fb_walk *w, int depth) {
  fadd(&w->f, pos, 4, F_FB_OFF);
  if (w->nrefs < 256) {
    w->refs[w->nrefs] = pos;
    w->ref_type[w->nrefs++] = (uint8_t)type;
  }
  size_t t = fb_target(p, n, pos);
  if (t) fb_table(p, n, t, type, w, depth + 1);
}

static void fb_table(const uint8_t *p, size_t n, size_t t, int type, fb_walk *w,
                     int depth) {
  if (depth > 12 || t > n || n - t < 4 || fb_seen(w, t)) return;
  if (w->ntables[type] < 64) w->tables[type][w->ntables[type]++] = t;
  int64_t so = (int32_t)(uint32_t)ld(p + t, 4);
  int64_t vt = (int64_t)t - so;
  if (vt < 0 || (uint64_t)vt > n - 4) return;
  size_t v = (size_t)vt;
  unsigned vsize = (unsigned)ld(p + v, 2);
  if (vsize < 4 || v + vsize > n) return;
  fadd(&w->f, v, 2, F_LEN);
  fadd(&w->f, v + 2, 2, F_LEN);
  for (unsigned k = 0; k < (vsize - 4) / 2; k++) {
    size_t e = v + 4 + 2 * k;
    unsigned fo = (unsigned)ld(p + e, 2);
    if (!fo) continue;
    fadd(&w->f, e, 2, F_INT);
    size_t pos = t + fo;
    fb_slot s = fb_schema(type, k);
    static const unsigned width[] = {1, 4, 4, 8};
    if (s.kind <= K_U64) {
      if (pos + width[s.kind] <= n) fadd(&w->f, pos, width[s.kind], s.scalar_kind);
      continue;
    }
    if (s.kind == K_NONE) continue;
    if (s.kind == K_TABLE) {
      fb_ref(p, n, pos, s.sub, w, depth);
      continue;
    }
    fadd(&w->f, pos, 4, F_FB_OFF);
    size_t vec = fb_target(p, n, pos);
    if (!vec || n - vec < 4) continue;
    uint64_t len = ld(p + vec, 4);
    fadd(&w->f, vec, 4, F_LEN);
    size_t el = vec + 4;
    if (s.kind == K_STR) {
      if (len <= n - el && w->nstrs < 128) {
        w->strs[w->nstrs] = el;
        w->strlens[w->nstrs++] = (size_t)len;
      }
    } else if (s.kind == K_VU8) {
      if (len <= n - el && w->ndata < 64) {
        w->data[w->ndata] = el;
        w->datalens[w->ndata++] = (size_t)len;
      }
    } else if (s.kind == K_VTABLES) {
      for (uint64_t i = 0; i < len && i < 64 && el + 4 * i + 4 <= n; i++)
        fb_ref(p, n, el + 4 * (size_t)i, s.sub, w, depth);
    } else {
      unsigned wd = s.kind == K_VI64 ? 8 : 4;
      unsigned kd = s.kind == K_VF32 ? F_F32 : F_INT;
      for (uint64_t i = 0; i < len && i < 16 && el + wd * (i + 1) <= n; i++)
        fadd(&w->f, el + wd * (size_t)i, wd, kd);
    }
  }
}

static int mut_tflite(rng *r, mb *f) {
  if (f->n < 8) return -1;
  fb_walk *w = calloc(1, sizeof *w);
  if (!w) abort();
  fb_ref(f->p, f->n, 0, FB_MODEL, w, 0);
  unsigned op = rnd(r, 100);
  int rc = 0;
  if (op < 55 && w->f.n) {
    field_mutate(r, f->p, f->n, &w->f, &w->f.v[rnd(r, (unsigned)w->f.n)]);
  } else if (op < 70 && w->nrefs) {
    /* an offset pointed at another table of its type: shared parts */
    size_t i = rnd(r, (unsigned)w->nrefs);
    int type = w->ref_type[i];
    if (w->ntables[type]) {
      size_t t = w->tables[type][rnd(r, (unsigned)w->ntables[type])];
      if (t > w->refs[i]) st(f->p + w->refs[i], t - w->refs[i], 4);
      else rc = -1;
    }
  } else if (op < 82 && w->nstrs) {
    /* a string's bytes in place */
    size_t i = rnd(r, (unsigned)w->nstrs);
    if (w->strlens[i]) {
      static const uint8_t odd[] = {0, 0xFF, 0xC3, '"', '\\', '\n', 0x01, 'x'};
      f->p[w->strs[i] + rnd(r, (unsigned)w->strlens[i])] = odd[rnd(r, 8)];
    }
    if (w->strlens[i] + 1 + w->strs[i] <= f->n && rnd(r, 4) == 0)
      f->p[w->strs[i] + w->strlens[i]] = 'x';   /* the terminating NUL */
  } else if (op < 94 && w->ndata) {
    size_t i = rnd(r, (unsigned)w->ndata);
    if (w->datalens[i] >= 4 && rnd(r, 2))
      put_f32(f->p + w->data[i] + rnd(r, (unsigned)(w->datalens[i] / 4)) * 4, (float)odd_double(r));
    else if (w->datalens[i])
      f->p[w->data[i] + rnd(r, (unsigned)w->datalens[i])] ^= (uint8_t)(1u << rnd(r, 8));
  } else {
    mb_mutate_range(f, 0, f->n, 0);
  }
  free(w);
  return rc;
}

/* ---- the container ------------------------------------------------------ */

void mm_parse(const uint8_t *data, size_t size, mm_input *in) {
  memset(in, 0, sizeof *in);
  size_t k = size < MM_CTL ? size : MM_CTL;
  memcpy(in->ctl, data, k);
  size_t pos = k;
  while (pos < size && in->nfiles < MM_MAX_FILES) {
    size_t nl = data[pos++];
    if (nl > size - pos) nl = size - pos;
    mm_file *f = &in->f[in->nfiles];
    size_t keep = nl < MM_NAME_MAX ? nl : MM_NAME_MAX;
    for (size_t i = 0; i < keep; i++) {
      char c = (char)data[pos + i];
      int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
      f->name[i] = ok ? c : '_';
    }
    f->name[keep] = 0;
    pos += nl;
    uint64_t len = 0;
    for (unsigned i = 0; i < 4; i++)
      if (pos < size) len |= (uint64_t)data[pos++] << (8 * i);
    if (len > size - pos) len = size - pos;
    f->p = data + pos;
    f->n = (size_t)len;
    pos += (size_t)len;
    int ok = keep && strcmp(f->name, ".") != 0 && strcmp(f->name, "..") != 0;
    for (int j = 0; ok && j < in->nfiles; j++)
      if (strcmp(in->f[j].name, f->name) == 0) ok = 0;
    if (ok) in->nfiles++;
  }
}

int mm_format(const mm_input *in) {
  unsigned c = in->ctl[0] & 7u;
  if (c < 6) return (int)c;
  if (!in->nfiles) return -1;
  const uint8_t *p = in->f[0].p;
  size_t n = in->f[0].n;
  if (n >= 4 && memcmp(p, "GGUF", 4) == 0) return 1;
  if (n >= 6 && memcmp(p, "\x93NUMPY", 6) == 0) return 2;
  if (n >= 4 && (memcmp(p, "PK\3\4", 4) == 0 || memcmp(p, "PK\5\6", 4) == 0)) return 3;
  if (n >= 8 && memcmp(p + 4, "TFL3", 4) == 0) return 5;
  if (n >= 9 && p[8] == '{') return 0;
  if (n >= 1 && p[0] == 0x08) return 4;
  return -1;
}

static void mm_write(const mm_input *in, const mb *files, mb *out) {
  mb_put(out, in->ctl, MM_CTL);
  for (int i = 0; i < in->nfiles; i++) {
    size_t nl = strlen(in->f[i].name);
    mb_u8(out, (unsigned)nl);
    mb_put(out, in->f[i].name, nl);
    mb_le(out, files[i].n, 4);
    mb_put(out, files[i].p, files[i].n);
  }
}

size_t mm_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
  rng r = {0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 1 | 1)};
  rnd64(&r);
  mm_input in;
  mm_parse(data, size, &in);
  if (!in.nfiles || rnd(&r, 40) == 0) return LLVMFuzzerMutate(data, size, max_size);
  mb files[MM_MAX_FILES];
  memset(files, 0, sizeof files);
  for (int i = 0; i < in.nfiles; i++) mb_put(&files[i], in.f[i].p, in.f[i].n);
  unsigned op = rnd(&r, 100);
  int rc = 0;
  if (op < 8) {
    /* the control bytes: the writer, the limit, q_compare's options; the
    ** format bits more rarely */
    unsigned i = rnd(&r, MM_CTL);
    uint8_t old = in.ctl[i];
    in.ctl[i] = (uint8_t)rnd(&r, 256);
    if (i == 0 && rnd(&r, 4)) in.ctl[0] = (uint8_t)((in.ctl[0] & ~7u) | (old & 7u));
  } else if (op < 13 && in.nfiles > 1) {
    /* a sibling file (external data): bytes, length */
    mb *s = &files[1 + rnd(&r, (unsigned)in.nfiles - 1)];
    if (rnd(&r, 2)) s->n = rnd(&r, (unsigned)s->n + 1);
    else mb_mutate_range(s, 0, s->n, 64);
  } else {
    mb *m = &files[0];
    switch (mm_format(&in)) {
      case 0: rc = mut_safetensors(&r, m); break;
      case 1: rc = mut_gguf(&r, m); break;
      case 2: rc = mut_npy(&r, m); break;
      case 3: rc = mut_npz(&r, m); break;
      case 4: rc = mut_onnx(&r, m, &in); break;
      case 5: rc = mut_tflite(&r, m); break;
      default: rc = -1; break;
    }
    if (rc) mb_mutate_range(m, 0, m->n, 64);
  }
  mb out = {0};
  mm_write(&in, files, &out);
  for (int i = 0; i < in.nfiles; i++) mb_free(&files[i]);
  size_t n = out.n;
  if (n <= max_size) memcpy(data, out.p, n);
  mb_free(&out);
  if (n > max_size) return LLVMFuzzerMutate(data, size, max_size);
  return n;
}
