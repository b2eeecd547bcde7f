/*
** tflite_read.c: the TensorFlow Lite reader (docs/FORMATS.md#tflite).
**
** A .tflite file is a FlatBuffer (flatbuffer.h) with file identifier "TFL3"
** whose root is TFLite's Model table (schema.fbs, schema version 3):
**
**   Model    0 version:uint  1 operator_codes:[OperatorCode]
**            2 subgraphs:[SubGraph]  3 description:string  4 buffers:[Buffer]
**            5 metadata_buffer:[int]  6 metadata:[Metadata]
**   SubGraph 0 tensors:[Tensor]  4 name:string
**   Tensor   0 shape:[int]  1 type:TensorType(byte)  2 buffer:uint
**            3 name:string  4 quantization:QuantizationParameters
**            6 sparsity:SparsityParameters
**   Buffer   0 data:[ubyte]  1 offset:ulong  2 size:ulong
**   Metadata 0 name:string  1 buffer:uint
**   QuantizationParameters 0 min:[float] 1 max:[float] 2 scale:[float]
**            3 zero_point:[long]  6 quantized_dimension:int
**   OperatorCode 0 deprecated_builtin_code:byte  1 custom_code:string
**            2 version:int = 1  3 builtin_code:int
**
**   1. a tensor is a row when its buffer holds bytes: buffer index > 0 and
**      either non-empty data or (models over 2 GB) offset > 1 with size
**      bytes at that offset from the start of the file; tensors sharing a
**      buffer each get a row; buffer 0 and empty buffers (activations) give
**      none;
**   2. the bytes must be exactly the shape's element count times the dtype's
**      size (int4: two per byte, element 2i in the low nibble, as TFLite
**      packs them); string, complex, resource and variant tensors and sparse
**      tensors are refused with an error naming the tensor;
**   3. scope: NULL in subgraph 0 (the main graph), the subgraph's name or
**      "subgraph#<i>" in the others (one node of the index's scope tree per
**      subgraph, formats/index.h);
**   4. metadata: version, description, each Metadata entry, metadata_buffer,
**      operator_codes, and each tensor's quantization parameters;
**   5. the FlatBuffer allows shared parts (many subgraphs may point at one
**      tensor vector): what the reader produces is bounded by a budget
**      proportional to the file's size, so a small file cannot make it copy
**      names or print numbers without end (besides the index's own budget,
**      docs/FORMATS.md#memory);
**   6. the buffer is read through spans (flatbuffer.h): tables, vectors and
**      strings the model reaches; a tensor's data only by its offset.
*/
#include <stdio.h>
#include <string.h>
#include "core/tensor.h"
#include "core/text.h"
#include "formats/flatbuffer.h"
#include "formats/formats.h"
#include "kernels/byteorder.h"

enum { TFL_MODEL_VERSION, TFL_MODEL_OPCODES, TFL_MODEL_SUBGRAPHS,
       TFL_MODEL_DESCRIPTION, TFL_MODEL_BUFFERS, TFL_MODEL_METADATA_BUFFER,
       TFL_MODEL_METADATA };
enum { TFL_SUBGRAPH_TENSORS = 0, TFL_SUBGRAPH_NAME = 4 };
enum { TFL_TENSOR_SHAPE, TFL_TENSOR_TYPE, TFL_TENSOR_BUFFER, TFL_TENSOR_NAME,
       TFL_TENSOR_QUANTIZATION, TFL_TENSOR_IS_VARIABLE, TFL_TENSOR_SPARSITY };
enum { TFL_BUFFER_DATA, TFL_BUFFER_OFFSET, TFL_BUFFER_SIZE };
enum { TFL_METADATA_NAME, TFL_METADATA_BUFFER };
enum { TFL_QUANT_MIN, TFL_QUANT_MAX, TFL_QUANT_SCALE, TFL_QUANT_ZERO_POINT,
       TFL_QUANT_DIMENSION = 6 };
enum { TFL_OPCODE_DEPRECATED_BUILTIN, TFL_OPCODE_CUSTOM, TFL_OPCODE_VERSION,
       TFL_OPCODE_BUILTIN };

#define TFL_SCHEMA_VERSION 3
#define TFL_NTYPES SQ_CATALOGUE_TFLITE_NTYPES

/* TensorType -> dtype and bytes per element (0: not read; int4: packed). */
static const struct { const char *tfl, *dtype; unsigned size; }
    tfl_types[TFL_NTYPES] = {
#define TFL_TYPE_ROW(tfl, dtype, size) {tfl, dtype, size},
  SQ_CATALOGUE_TFLITE_TYPES(TFL_TYPE_ROW)   /* core/catalogue.h */
#undef TFL_TYPE_ROW
};

typedef struct tfl_reader {
  sq_fb fb;
  sq_status *st;
  sq_file_index *ix;
  sq_fb_vector buffers;
  uint64_t budget;              /* bytes of names and metadata text left */
  sq_file_text text;            /* scratch for keys and values */
  char what[160];               /* the path of the value being read */
} tfl_reader;

/* Takes len bytes of output from the budget. */
static int tfl_charge(tfl_reader *r, uint64_t len) {
  if (len > r->budget)
    return sq_fail(r->st, "tflite: the model's shared parts expand to more "
                   "than %llu bytes of names and metadata (32 bytes per "
                   "byte of the %llu-byte file, plus 65536)",
                   (unsigned long long)(32 * (uint64_t)r->fb.n + 65536),
                   (unsigned long long)r->fb.n);
  r->budget -= len;
  return SQ_OK;
}

/* Appends to the scratch text, charged to the budget first. */
static int tfl_text_add(tfl_reader *r, const void *s, size_t len) {
  if (tfl_charge(r, len)) return SQ_INVALID;
  return sq_file_text_add(&r->text, s, len, r->st);
}

static int tfl_text_str(tfl_reader *r, const char *s) {
  return tfl_text_add(r, s, strlen(s));
}

/* s[0..len) (valid UTF-8) as a JSON string, its escaped length charged
** first. */
static int tfl_text_json_string(tfl_reader *r, const unsigned char *s,
                                size_t len) {
  uint64_t out = 2;
  for (size_t i = 0; i < len; i++) {
    char esc[8];
    size_t elen = sq_json_escape(s[i], esc);
    out += elen ? elen : 1;
  }
  if (tfl_charge(r, out)) return SQ_INVALID;
  return sq_file_text_json_string(&r->text, s, len, r->st);
}

/* Appends a metadata row: key the text [0, klen), value the text after it. */
static int tfl_meta_row(tfl_reader *r, size_t klen, const char *type) {
  sq_file_meta *m = sq_file_add_meta(r->ix, r->text.s, klen, r->st);
  if (!m) return r->st->code;
  snprintf(m->type, sizeof m->type, "%s", type);
  size_t vlen = r->text.len - klen;
  if (!(m->value = sq_file_alloc(r->ix, (uint64_t)vlen + 1, 1, r->st)))
    return r->st->code;
  memcpy(m->value, r->text.s + klen, vlen);
  m->value[vlen] = 0;
  return SQ_OK;
}

/* The bytes of buffer b: [*off, *off + *nbytes) of the file, *nbytes 0 when
** it holds none.  The data vector wins over offset/size; offset <= 1 means
** unused (schema.fbs). */
static int tfl_buffer_bytes(tfl_reader *r, uint32_t b, uint64_t *off,
                            uint64_t *nbytes) {
  sq_fb_table bt;
  char what[48];
  snprintf(what, sizeof what, "buffers[%lu]", (unsigned long)b);
  *off = *nbytes = 0;
  if (sq_fb_vector_table(&r->fb, &r->buffers, b, &bt, what)) return SQ_INVALID;
  sq_fb_vector data;
  if (sq_fb_vector_field(&r->fb, &bt, TFL_BUFFER_DATA, 1, &data, what))
    return SQ_INVALID;
  if (data.len > 0) {
    *off = data.pos;
    *nbytes = data.len;
    return SQ_OK;
  }
  uint64_t o, size;
  if (sq_fb_u64(&r->fb, &bt, TFL_BUFFER_OFFSET, 0, &o, what) ||
      sq_fb_u64(&r->fb, &bt, TFL_BUFFER_SIZE, 0, &size, what))
    return SQ_INVALID;
  if (o <= 1) return SQ_OK;
  if (o > r->fb.n || size > r->fb.n - o)
    return sq_fail(r->st, "tflite: %s: offset %llu and size %llu are past the "
                   "end of the %llu-byte file", what, (unsigned long long)o,
                   (unsigned long long)size, (unsigned long long)r->fb.n);
  *off = o;
  *nbytes = size;
  return SQ_OK;
}

/* The tensor's shape into t and its byte count by dtype into *need; an
** element count over 2^60 (which no buffer of a file could hold) sets
** *huge instead. */
static int tfl_shape(tfl_reader *r, const sq_fb_table *tt, unsigned type,
                     sq_file_tensor *t, uint64_t *need, int *huge) {
  const unsigned char *nm = (const unsigned char *)t->name;
  uint32_t nl = (uint32_t)strlen(t->name);
  sq_fb_vector shape;
  char what[200];
  snprintf(what, sizeof what, "%s.shape", r->what);
  if (sq_fb_vector_field(&r->fb, tt, TFL_TENSOR_SHAPE, 4, &shape, what))
    return SQ_INVALID;
  if (shape.len > SQ_MAX_DIMS)
    return sq_fail(r->st, "tflite: tensor '%.*s': its shape has %lu "
                   "dimensions (at most %d)", sq_file_quote_len(nm, nl), nm,
                   (unsigned long)shape.len, SQ_MAX_DIMS);
  const unsigned char *dims = sq_fb_bytes(&r->fb, shape.pos, 4 * shape.len);
  if (!dims) return r->st->code;
  uint64_t count = 1, cap = (uint64_t)1 << 60;
  *huge = 0;
  t->ndim = (int)shape.len;
  for (uint32_t d = 0; d < shape.len; d++) {
    int32_t v = (int32_t)sq_load_u32(dims + 4 * (size_t)d);
    if (v < 0)
      return sq_fail(r->st, "tflite: tensor '%.*s': dimension %lu of its "
                     "shape is %ld", sq_file_quote_len(nm, nl), nm,
                     (unsigned long)d, (long)v);
    t->dim[d] = v;
    if (v == 0) count = 0;
    else if (count > cap / (uint64_t)v) *huge = 1;
    else count *= (uint64_t)v;
  }
  if (count == 0) *huge = 0;
  /* count <= 2^60 and the size <= 8: no overflow */
  *need = tfl_types[type].size ? count * tfl_types[type].size
                               : count / 2 + (count & 1);
  return SQ_OK;
}

/* A vector of float32 or int64 (is_int) as a JSON array. */
static int tfl_text_numbers(tfl_reader *r, const sq_fb_vector *v, int is_int) {
  const unsigned char *p = sq_fb_bytes(&r->fb, v->pos,
                                       (size_t)v->len * (is_int ? 8 : 4));
  if (!p) return r->st->code;
  if (tfl_text_add(r, "[", 1)) return SQ_INVALID;
  for (uint32_t k = 0; k < v->len; k++) {
    char buf[40];
    int len;
    if (is_int) {
      uint64_t u = sq_fb_load_u64(p + 8 * (size_t)k);
      len = snprintf(buf, sizeof buf, "%s%lld", k ? "," : "",
                     (long long)(int64_t)u);
    } else {
      float f = sq_load_f32(p + 4 * (size_t)k);
      len = k ? 1 : 0;
      buf[0] = ',';
      /* JSON has no NaN or infinity: strings, as GGUF metadata shows them */
      if (f != f) len += snprintf(buf + len, sizeof buf - len, "\"NaN\"");
      else if (f - f != 0)
        len += snprintf(buf + len, sizeof buf - len, "\"%sInfinity\"",
                        f > 0 ? "" : "-");
      else len += sq_format_f32(f, buf + len);
    }
    if (tfl_text_add(r, buf, (size_t)len)) return SQ_INVALID;
  }
  return tfl_text_add(r, "]", 1);
}

/* The metadata rows of one tensor's quantization parameters:
** <prefix>tensor.<name>.{min,max,scale,zero_point,quantized_dimension}. */
static int tfl_quantization(tfl_reader *r, const sq_fb_table *tt,
                            const char *scope, const unsigned char *name,
                            uint32_t nlen) {
  sq_fb_table q;
  int present;
  char what[200];
  snprintf(what, sizeof what, "%s.quantization", r->what);
  if (sq_fb_table_field(&r->fb, tt, TFL_TENSOR_QUANTIZATION, &q, &present,
                        what))
    return SQ_INVALID;
  if (!present) return SQ_OK;
  static const struct { int field, is_int; const char *key, *type; } parts[] = {
    {TFL_QUANT_MIN, 0, "min", "array[float32]"},
    {TFL_QUANT_MAX, 0, "max", "array[float32]"},
    {TFL_QUANT_SCALE, 0, "scale", "array[float32]"},
    {TFL_QUANT_ZERO_POINT, 1, "zero_point", "array[int64]"}};
  sq_fb_vector v[4];
  for (int k = 0; k < 4; k++)
    if (sq_fb_vector_field(&r->fb, &q, parts[k].field, parts[k].is_int ? 8 : 4,
                           &v[k], what))
      return SQ_INVALID;
  uint32_t qdim;
  if (sq_fb_u32(&r->fb, &q, TFL_QUANT_DIMENSION, 0, &qdim, what))
    return SQ_INVALID;
  int affine = v[2].len > 0 || v[3].len > 0;
  for (int k = 0; k < 5; k++) {
    if (k < 4 && v[k].len == 0) continue;
    if (k == 4 && !affine) continue;
    r->text.len = 0;
    if (scope && (tfl_text_str(r, scope) || tfl_text_add(r, ".", 1)))
      return SQ_INVALID;
    if (tfl_text_add(r, "tensor.", 7) || tfl_text_add(r, name, nlen) ||
        tfl_text_add(r, ".", 1) ||
        tfl_text_str(r, k < 4 ? parts[k].key : "quantized_dimension"))
      return SQ_INVALID;
    size_t klen = r->text.len;
    if (k < 4) {
      if (tfl_text_numbers(r, &v[k], parts[k].is_int)) return SQ_INVALID;
    } else {
      char buf[16];
      int len = snprintf(buf, sizeof buf, "%ld", (long)(int32_t)qdim);
      if (tfl_text_add(r, buf, (size_t)len)) return SQ_INVALID;
    }
    if (tfl_meta_row(r, klen, k < 4 ? parts[k].type : "int32"))
      return SQ_INVALID;
  }
  return SQ_OK;
}

/* One tensor of a subgraph: a row when its buffer holds data. */
static int tfl_tensor(tfl_reader *r, const sq_fb_table *tt, const char *scope,
                      uint32_t scope_id, int want_meta) {
  const unsigned char *name;
  uint32_t nlen, b;
  int present;
  uint8_t type;
  char what[200];
  snprintf(what, sizeof what, "%s.name", r->what);
  if (sq_fb_string_field(&r->fb, tt, TFL_TENSOR_NAME, &name, &nlen, &present,
                         what) ||
      sq_fb_u8(&r->fb, tt, TFL_TENSOR_TYPE, 0, &type, r->what) ||
      sq_fb_u32(&r->fb, tt, TFL_TENSOR_BUFFER, 0, &b, r->what))
    return SQ_INVALID;
  if (memchr(name, 0, nlen))
    return sq_fail(r->st, "tflite: %s: the name contains a NUL byte", what);
  if (want_meta && tfl_quantization(r, tt, scope, name, nlen))
    return SQ_INVALID;
  if (b == 0) return SQ_OK;
  int ql = sq_file_quote_len(name, nlen);
  if (b >= r->buffers.len)
    return sq_fail(r->st, "tflite: %s ('%.*s'): buffer %lu is past the "
                   "model's %lu buffers", r->what, ql, name,
                   (unsigned long)b, (unsigned long)r->buffers.len);
  uint64_t off, nbytes;
  if (tfl_buffer_bytes(r, b, &off, &nbytes)) return SQ_INVALID;
  if (nbytes == 0) return SQ_OK;
  if (type >= TFL_NTYPES || !tfl_types[type].dtype) {
    if (type >= TFL_NTYPES)
      return sq_fail(r->st, "tflite: tensor '%.*s': unknown tensor type %u",
                     ql, name, (unsigned)type);
    return sq_fail(r->st, "tflite: tensor '%.*s': type %s is not read (it "
                   "has no dtype here)", ql, name, tfl_types[type].tfl);
  }
  if (sq_fb_has(tt, TFL_TENSOR_SPARSITY)) {
    sq_fb_table sp;
    if (sq_fb_table_field(&r->fb, tt, TFL_TENSOR_SPARSITY, &sp, &present,
                          r->what))
      return SQ_INVALID;
    if (present)
      return sq_fail(r->st, "tflite: tensor '%.*s': sparse tensors are not "
                     "read", ql, name);
  }
  /* names are charged against the budget: shared names are copied */
  if (tfl_charge(r, nlen)) return SQ_INVALID;
  sq_file_tensor *t = sq_file_add_tensor(r->ix, (const char *)name, nlen,
                                         r->st);
  if (!t) return r->st->code;
  snprintf(t->dtype, sizeof t->dtype, "%s", tfl_types[type].dtype);
  uint64_t need = 0;
  int huge = 0;
  if (tfl_shape(r, tt, type, t, &need, &huge)) return SQ_INVALID;
  if (huge || need != nbytes) {
    char shape[80];
    sq_file_shape_text(t, shape, sizeof shape);
    if (huge)
      return sq_fail(r->st, "tflite: tensor '%.*s': its buffer %lu holds %llu "
                     "bytes, its shape %s has over 2^60 elements", ql, name,
                     (unsigned long)b, (unsigned long long)nbytes, shape);
    return sq_fail(r->st, "tflite: tensor '%.*s': its buffer %lu holds %llu "
                   "bytes, its shape %s of %s needs %llu", ql, name,
                   (unsigned long)b, (unsigned long long)nbytes, shape,
                   t->dtype, (unsigned long long)need);
  }
  t->offset = off;
  t->nbytes = nbytes;
  if (scope) {
    /* charged as a copy would be: the budget keeps its meaning */
    if (tfl_charge(r, strlen(scope))) return SQ_INVALID;
    t->scope = scope_id;
  }
  return SQ_OK;
}

/* The scope of subgraph i (> 0): its name, or "subgraph#<i>" when it has
** none; a node of the index's scope tree (*id), its label in *label
** (sqlite3_malloc'd, charged to the budget) for the tensors' charges and
** the quantization keys. */
static int tfl_scope(tfl_reader *r, uint32_t i, const unsigned char *name,
                     uint32_t nlen, char **label, uint32_t *id) {
  char num[32];
  if (!nlen) {
    nlen = (uint32_t)snprintf(num, sizeof num, "subgraph#%lu", (unsigned long)i);
    name = (const unsigned char *)num;
  }
  if (tfl_charge(r, nlen)) return SQ_INVALID;
  if (!(*label = sq_file_strndup(r->ix, name, nlen, r->st))) return r->st->code;
  return sq_file_add_scope(r->ix, 0, (const char *)name, nlen, 0, id, r->st);
}

static int tfl_subgraphs(tfl_reader *r, const sq_fb_table *model,
                         int want_meta) {
  sq_fb_vector subgraphs;
  if (sq_fb_vector_field(&r->fb, model, TFL_MODEL_SUBGRAPHS, 4, &subgraphs,
                         "subgraphs"))
    return SQ_INVALID;
  for (uint32_t i = 0; i < subgraphs.len; i++) {
    sq_fb_table sg;
    char what[64];
    snprintf(what, sizeof what, "subgraphs[%lu]", (unsigned long)i);
    if (sq_fb_vector_table(&r->fb, &subgraphs, i, &sg, what))
      return SQ_INVALID;
    const unsigned char *name;
    uint32_t nlen;
    int present;
    snprintf(r->what, sizeof r->what, "%s.name", what);
    if (sq_fb_string_field(&r->fb, &sg, TFL_SUBGRAPH_NAME, &name, &nlen,
                           &present, r->what))
      return SQ_INVALID;
    if (memchr(name, 0, nlen))
      return sq_fail(r->st, "tflite: %s: the name contains a NUL byte",
                     r->what);
    sq_fb_vector tensors;
    snprintf(r->what, sizeof r->what, "%s.tensors", what);
    if (sq_fb_vector_field(&r->fb, &sg, TFL_SUBGRAPH_TENSORS, 4, &tensors,
                           r->what))
      return SQ_INVALID;
    char *scope = NULL;
    uint32_t scope_id = 0;
    if (i > 0 && tfl_scope(r, i, name, nlen, &scope, &scope_id)) {
      sqlite3_free(scope);
      return r->st->code;
    }
    for (uint32_t j = 0; j < tensors.len; j++) {
      sq_fb_table tt;
      snprintf(r->what, sizeof r->what, "%s.tensors[%lu]", what,
               (unsigned long)j);
      if (sq_fb_vector_table(&r->fb, &tensors, j, &tt, r->what) ||
          tfl_tensor(r, &tt, scope, scope_id, want_meta)) {
        sqlite3_free(scope);
        return r->st->code;
      }
    }
    sqlite3_free(scope);
  }
  return SQ_OK;
}

/* version, description, metadata entries and metadata_buffer. */
static int tfl_model_meta(tfl_reader *r, const sq_fb_table *model,
                          uint32_t version) {
  char buf[24];
  r->text.len = 0;
  if (tfl_text_str(r, "version")) return SQ_INVALID;
  snprintf(buf, sizeof buf, "%lu", (unsigned long)version);
  if (tfl_text_str(r, buf) || tfl_meta_row(r, 7, "uint32")) return SQ_INVALID;

  const unsigned char *s;
  uint32_t len;
  int present;
  if (sq_fb_string_field(&r->fb, model, TFL_MODEL_DESCRIPTION, &s, &len,
                         &present, "description"))
    return SQ_INVALID;
  if (present) {
    r->text.len = 0;
    if (tfl_text_str(r, "description") || tfl_text_json_string(r, s, len) ||
        tfl_meta_row(r, 11, "string"))
      return SQ_INVALID;
  }

  sq_fb_vector md;
  if (sq_fb_vector_field(&r->fb, model, TFL_MODEL_METADATA, 4, &md,
                         "metadata"))
    return SQ_INVALID;
  for (uint32_t k = 0; k < md.len; k++) {
    sq_fb_table mt;
    uint32_t b;
    char what[48];
    snprintf(what, sizeof what, "metadata[%lu]", (unsigned long)k);
    if (sq_fb_vector_table(&r->fb, &md, k, &mt, what) ||
        sq_fb_string_field(&r->fb, &mt, TFL_METADATA_NAME, &s, &len, &present,
                           what) ||
        sq_fb_u32(&r->fb, &mt, TFL_METADATA_BUFFER, 0, &b, what))
      return SQ_INVALID;
    if (memchr(s, 0, len))
      return sq_fail(r->st, "tflite: %s: the name contains a NUL byte", what);
    if (b >= r->buffers.len)
      return sq_fail(r->st, "tflite: %s ('%.*s'): buffer %lu is past the "
                     "model's %lu buffers", what, sq_file_quote_len(s, len), s,
                     (unsigned long)b, (unsigned long)r->buffers.len);
    uint64_t off, nbytes;
    if (tfl_buffer_bytes(r, b, &off, &nbytes)) return SQ_INVALID;
    r->text.len = 0;
    if (tfl_text_add(r, "metadata.", 9) || tfl_text_add(r, s, len))
      return SQ_INVALID;
    size_t klen = r->text.len;
    /* Text (UTF-8 without NUL once trailing NUL padding is dropped, as in
    ** min_runtime_version) is a JSON string; anything else hex. */
    const unsigned char *d = sq_fb_bytes(&r->fb, (size_t)off, (size_t)nbytes);
    if (!d) return SQ_INVALID;
    uint64_t tl = nbytes;
    while (tl > 0 && d[tl - 1] == 0) tl--;
    int is_text = !memchr(d, 0, tl) && sq_utf8_check(d, tl) == tl;
    if (is_text) {
      if (tfl_text_json_string(r, d, tl) || tfl_meta_row(r, klen, "string"))
        return SQ_INVALID;
    } else {
      if (tfl_text_add(r, "\"", 1)) return SQ_INVALID;
      for (uint64_t i = 0; i < nbytes; i++) {
        char hx[3];
        snprintf(hx, sizeof hx, "%02x", d[i]);
        if (tfl_text_add(r, hx, 2)) return SQ_INVALID;
      }
      if (tfl_text_add(r, "\"", 1) || tfl_meta_row(r, klen, "bytes"))
        return SQ_INVALID;
    }
  }

  sq_fb_vector mb;
  if (sq_fb_vector_field(&r->fb, model, TFL_MODEL_METADATA_BUFFER, 4, &mb,
                         "metadata_buffer"))
    return SQ_INVALID;
  if (mb.len) {
    const unsigned char *ints = sq_fb_bytes(&r->fb, mb.pos, 4 * (size_t)mb.len);
    if (!ints) return SQ_INVALID;
    r->text.len = 0;
    if (tfl_text_str(r, "metadata_buffer") || tfl_text_add(r, "[", 1))
      return SQ_INVALID;
    for (uint32_t k = 0; k < mb.len; k++) {
      snprintf(buf, sizeof buf, "%s%ld", k ? "," : "",
               (long)(int32_t)sq_load_u32(ints + 4 * (size_t)k));
      if (tfl_text_str(r, buf)) return SQ_INVALID;
    }
    if (tfl_text_add(r, "]", 1) || tfl_meta_row(r, 15, "array[int32]"))
      return SQ_INVALID;
  }
  return SQ_OK;
}

/* operator_codes: a JSON array of {"builtin_code":N,"version":V} objects,
** with "custom_code" for custom operators.  builtin_code is the larger of the
** byte-sized deprecated_builtin_code and the int32 builtin_code, as
** TFLite's own reader resolves them. */
static int tfl_opcodes(tfl_reader *r, const sq_fb_table *model) {
  sq_fb_vector ops;
  if (sq_fb_vector_field(&r->fb, model, TFL_MODEL_OPCODES, 4, &ops,
                         "operator_codes"))
    return SQ_INVALID;
  if (!ops.len) return SQ_OK;
  r->text.len = 0;
  if (tfl_text_str(r, "operator_codes") || tfl_text_add(r, "[", 1))
    return SQ_INVALID;
  for (uint32_t k = 0; k < ops.len; k++) {
    sq_fb_table ot;
    uint8_t dep;
    uint32_t code, version;
    const unsigned char *s;
    uint32_t len;
    int present;
    char what[48], buf[80];
    snprintf(what, sizeof what, "operator_codes[%lu]", (unsigned long)k);
    if (sq_fb_vector_table(&r->fb, &ops, k, &ot, what) ||
        sq_fb_u8(&r->fb, &ot, TFL_OPCODE_DEPRECATED_BUILTIN, 0, &dep, what) ||
        sq_fb_string_field(&r->fb, &ot, TFL_OPCODE_CUSTOM, &s, &len, &present,
                           what) ||
        sq_fb_u32(&r->fb, &ot, TFL_OPCODE_VERSION, 1, &version, what) ||
        sq_fb_u32(&r->fb, &ot, TFL_OPCODE_BUILTIN, 0, &code, what))
      return SQ_INVALID;
    int32_t c = (int32_t)code, d = (int8_t)dep;
    if (d > c) c = d;
    snprintf(buf, sizeof buf, "%s{\"builtin_code\":%ld", k ? "," : "", (long)c);
    if (tfl_text_str(r, buf)) return SQ_INVALID;
    if (present && (tfl_text_str(r, ",\"custom_code\":") ||
                    tfl_text_json_string(r, s, len)))
      return SQ_INVALID;
    snprintf(buf, sizeof buf, ",\"version\":%ld}", (long)(int32_t)version);
    if (tfl_text_str(r, buf)) return SQ_INVALID;
  }
  if (tfl_text_add(r, "]", 1) ||
      tfl_meta_row(r, 14, "array[operator_code]"))
    return SQ_INVALID;
  return SQ_OK;
}

int sq_tflite_read(sq_source *src, int want_meta, sq_file_index *ix,
                   sq_status *st) {
  size_t n = (size_t)src->size;
  tfl_reader r;
  memset(&r, 0, sizeof r);
  r.fb.src = src;
  r.fb.n = n;
  r.fb.format = "tflite";
  r.fb.st = st;
  r.st = st;
  r.ix = ix;
  r.text.ix = ix;
  r.budget = 32 * (uint64_t)n + 65536;
  sq_fb_table model;
  uint32_t version;
  int rc = SQ_INVALID;
  if (sq_fb_root(&r.fb, &model)) goto done;
  const unsigned char *id = sq_fb_bytes(&r.fb, 4, 4);
  if (!id) goto done;
  if (memcmp(id, "TFL3", 4) != 0) {
    sq_fail(st, "tflite: the file identifier at byte 4 is not \"TFL3\"");
    goto done;
  }
  if (sq_fb_u32(&r.fb, &model, TFL_MODEL_VERSION, 0, &version, "version"))
    goto done;
  if (version != TFL_SCHEMA_VERSION) {
    sq_fail(st, "tflite: schema version %lu is not read (only version 3)",
            (unsigned long)version);
    goto done;
  }
  if (sq_fb_vector_field(&r.fb, &model, TFL_MODEL_BUFFERS, 4, &r.buffers,
                         "buffers"))
    goto done;
  if (want_meta && (tfl_model_meta(&r, &model, version) ||
                    tfl_opcodes(&r, &model)))
    goto done;
  if (tfl_subgraphs(&r, &model, want_meta)) goto done;
  rc = SQ_OK;
done:
  sqlite3_free(r.text.s);
  return rc ? st->code : SQ_OK;
}
