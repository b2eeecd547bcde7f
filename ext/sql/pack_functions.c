/*
** pack_functions.c: rows packed back into the extension's BLOBs, the
** inverse of q_each (docs/reference/tensors.md#q_f32_aggvalue-q_int32_aggvalue).
**
**   q_f32_agg(value)     -> float32 BLOB, one element per row
**   q_int32_agg(value)   -> int32 BLOB, one element per row
**
** Rules:
**   1. elements are stored in the order rows reach the aggregate (give it
**      an ORDER BY, SQLite 3.44+, or feed it from an ordered subquery);
**   2. q_f32_agg takes a REAL or an INTEGER, rounded once to nearest
**      float32 (a float32 value, q_each's included, round-trips exactly;
**      infinity stays infinity); a finite value beyond float32's range is
**      an error, as it is in JSON;
**   3. q_int32_agg takes an INTEGER in int32's range; a REAL is refused,
**      even 2.0: zero points are integers, and a REAL column is more often
**      the scales given by mistake than zero points stored as floats;
**   4. a NULL, TEXT or BLOB value is an error naming it by its position
**      (counting from 0, as q_each's i does), never skipped: a skipped row
**      would move every later channel's parameter onto the wrong channel;
**   5. no rows gives NULL; the result carries the subtype of f32 or int32
**      (core/dtype.h);
**   6. the buffer grows by doubling, sized through sq_realloc, so a result
**      beyond SQLITE_LIMIT_LENGTH is refused (too big) as soon as a row
**      would pass it; after any error the aggregate repeats it;
**   7. plain aggregates, not window functions: a packed BLOB is a value to
**      store or pass on, and nothing needs it over a sliding frame.
*/
#include <math.h>
#include <string.h>
#include "sql/sql.h"
#include "kernels/byteorder.h"

typedef struct sq_pack {
  sq_status failed;         /* a step's error (see sq_agg_state) */
  unsigned char *buf;       /* n elements of 4 bytes, room for cap */
  uint64_t n, cap;
} sq_pack;

/* sq_fn.variant: the element type. */
enum { SQ_PACK_F32 = 0, SQ_PACK_INT32 = 1 };

/* Room for one more 4-byte element: capacity doubles, never past what
** SQLITE_LIMIT_LENGTH allows, so the limit is hit exactly, not early. */
static int sq_pack_reserve(sq_pack *p, sq_status *st) {
  if (p->n < p->cap) return SQ_OK;
  uint64_t most = (uint64_t)st->max_bytes / 4;
  if (p->n >= most) return sq_toobig(st);
  uint64_t cap = p->cap ? p->cap * 2 : 16;
  if (cap > most) cap = most;
  unsigned char *grown = sq_realloc(st, p->buf, cap, 4);
  if (!grown) return st->code;
  p->buf = grown;
  p->cap = cap;
  return SQ_OK;
}

/* The value as a 4-byte element (rules 2-4). */
static int sq_pack_element(int variant, sqlite3_value *v, uint64_t i,
                           unsigned char out[4], sq_status *st) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL)
    return sq_fail(st, "value %llu is NULL", (unsigned long long)i);
  if (variant == SQ_PACK_INT32) {
    if (type != SQLITE_INTEGER)
      return sq_fail(st, "value %llu must be an integer, got %s",
                     (unsigned long long)i, sq_value_type_name(v));
    sqlite3_int64 z = sqlite3_value_int64(v);
    if (z < INT32_MIN || z > INT32_MAX)
      return sq_fail(st, "value %llu is beyond int32's range, got %lld",
                     (unsigned long long)i, (long long)z);
    sq_store_u32(out, (uint32_t)(int32_t)z);
    return SQ_OK;
  }
  float f;
  if (type == SQLITE_INTEGER) {
    f = (float)sqlite3_value_int64(v);   /* one rounding, to nearest */
  } else if (type == SQLITE_FLOAT) {
    double d = sqlite3_value_double(v);
    f = (float)d;
    if (isinf(f) && !isinf(d))
      return sq_fail(st, "value %llu is beyond float32's range, got %.17g",
                     (unsigned long long)i, d);
  } else {
    return sq_fail(st, "value %llu must be a number, got %s",
                   (unsigned long long)i, sq_value_type_name(v));
  }
  sq_store_f32(out, f);
  return SQ_OK;
}

static void sq_pack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  sq_pack *p = sq_agg_state(ctx, sizeof *p, name);
  if (!p) return;
  unsigned char e[4] = {0};
  if (sq_pack_element(fn->variant, argv[0], p->n, e, &st) ||
      sq_pack_reserve(p, &st)) {
    p->failed = st;
    sq_result_status(ctx, name, &st);
    return;
  }
  memcpy(p->buf + 4 * p->n++, e, 4);
}

static void sq_pack_final(sqlite3_context *ctx) {
  sq_status st;
  const char *name = sq_begin(ctx, &st);
  const sq_fn *fn = sqlite3_user_data(ctx);
  sq_pack *p = sqlite3_aggregate_context(ctx, 0);
  if (!p) return;                        /* no rows: NULL */
  if (p->failed.code) {
    sqlite3_free(p->buf);
    sq_result_status(ctx, name, &p->failed);
    return;
  }
  /* The result takes the buffer (its unused room is not worth a copy). */
  sq_result_typed(ctx, p->buf, 4 * p->n,
                  fn->variant == SQ_PACK_F32 ? SQ_SUBTYPE_F32 : SQ_SUBTYPE_INT32,
                  &st);
}

/* The family's functions of ext/catalogue.toml (sql/catalogue.h). */
static const sq_fn_def sq_pack_defs[] = {
  SQ_CATALOGUE_FUNCTIONS_PACK(SQ_FN_DEF)
};

int sq_register_pack_functions(sq_registry *r) {
  return sq_register_table(r, sq_pack_defs,
                           sizeof sq_pack_defs / sizeof sq_pack_defs[0]);
}
