/*
** budget.c: the --target-bpw choice of types (budget.h).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "budget.h"
#include "cli.h"

/* The candidates, by bits per weight: ggml's K types, the legacy q4_0 and
** q5_0 (for rows of 32, 64 ... columns, which no K type fits) and q8_0:
** the types llama.cpp's mixtures draw from that need no importance. */
static const char *const cli_candidates[] = {"q2_K", "q3_K", "q4_0", "q4_K", "q5_0",
                                             "q5_K", "q6_K", "q8_0"};
enum { CLI_NCAND = sizeof cli_candidates / sizeof cli_candidates[0] };
typedef char cli_hull_fits[CLI_NCAND <= 8 ? 1 : -1];

typedef struct cli_option {
  const char *type;
  double bits, error;
} cli_option;

typedef struct cli_choice {
  cli_option hull[8];          /* the lower convex hull, cheapest first */
  int nhull, at;               /* its points, and the one chosen */
} cli_choice;

/* sum over the elements of w[column] (x - y)^2, in double; w NULL: 1. */
static double cli_sse(const unsigned char *x, const unsigned char *y, int64_t n,
                      int64_t ne0, const unsigned char *w) {
  double s = 0;
  for (int64_t k = 0; k < n; k++) {
    double d = (double)cli_le_f32(x + 4 * k) - (double)cli_le_f32(y + 4 * k);
    s += (w ? (double)cli_le_f32(w + 4 * (k % ne0)) : 1.0) * d * d;
  }
  return s;
}

/* The squared error of t under each candidate (err[c], or -1 where the
** block does not divide the rows). */
static int cli_measure(sqlite3 *db, const char *in, const char *format,
                       const llama_plan_options *o, const llama_plan_tensor *t,
                       double *err) {
  char *sql = sqlite3_mprintf(
      "SELECT q_f32(data, dtype), rows, CASE WHEN chunks > 1 THEN json_set(shape, "
      "'$[0]', rows) ELSE shape END, row_start FROM q_tensors_file(?1%s) WHERE name = ?2",
      format ? ", ?3" : "");
  if (!sql) return cli_fail("quantize", "out of memory");
  sqlite3_stmt *rd = cli_prepare(db, "quantize", sql);
  sqlite3_free(sql);
  sqlite3_stmt *qd = cli_prepare(
      db, "quantize",
      "SELECT q_ggml_dequantize(q_ggml_quantize(?1, ?2, ?3, ?4), ?2)");
  if (!rd || !qd) {
    sqlite3_finalize(rd);
    sqlite3_finalize(qd);
    return CLI_FAILED;
  }
  for (int c = 0; c < CLI_NCAND; c++) {
    const llama_type_info *ti = llama_type_find(o, cli_candidates[c]);
    err[c] = ti && t->ne0 % ti->block_size == 0 ? 0 : -1;
  }
  sqlite3_bind_text(rd, 1, in, -1, SQLITE_STATIC);
  sqlite3_bind_text(rd, 2, t->name, -1, SQLITE_STATIC);
  if (format) sqlite3_bind_text(rd, 3, format, -1, SQLITE_STATIC);
  /* Chunks of a quarter of the length limit: their float32 form fits. */
  int limit = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, limit / 4 < (16 << 20) ? limit / 4 : (16 << 20));
  int rc = sqlite3_step(rd);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, limit);
  int result = CLI_OK;
  int64_t matrix = t->ne2 > 1 ? (int64_t)(t->elements / (uint64_t)t->ne2) : 0;
  for (; rc == SQLITE_ROW && result == CLI_OK; rc = sqlite3_step(rd)) {
    const unsigned char *x = sqlite3_column_blob(rd, 0);
    int64_t n = sqlite3_column_bytes(rd, 0) / 4;
    int64_t rows = sqlite3_column_int64(rd, 1);
    int64_t first = sqlite3_column_int64(rd, 3);
    /* Experts with importance: each matrix with its own row of it. */
    int64_t pieces = t->importance && matrix ? rows : 1;
    int64_t per = n / pieces;
    char shape[256];
    if (pieces > 1) {
      const char *comma = strchr(t->shape, ',');
      snprintf(shape, sizeof shape, "[%s", comma ? comma + 1 : "]");
    } else {
      snprintf(shape, sizeof shape, "%s", (const char *)sqlite3_column_text(rd, 2));
    }
    for (int c = 0; c < CLI_NCAND && result == CLI_OK; c++) {
      if (err[c] < 0) continue;
      for (int64_t p = 0; p < pieces && result == CLI_OK; p++) {
        const unsigned char *w = t->importance
            ? t->importance + (pieces > 1 ? (size_t)(first + p) * (size_t)t->ne0 * 4 : 0)
            : NULL;
        sqlite3_reset(qd);
        sqlite3_bind_blob(qd, 1, x + 4 * p * per, (int)(4 * per), SQLITE_STATIC);
        sqlite3_bind_text(qd, 2, cli_candidates[c], -1, SQLITE_STATIC);
        sqlite3_bind_text(qd, 3, shape, -1, SQLITE_STATIC);
        if (w) sqlite3_bind_blob(qd, 4, w, (int)(t->ne0 * 4), SQLITE_STATIC);
        else sqlite3_bind_text(qd, 4, "none", -1, SQLITE_STATIC);
        if (sqlite3_step(qd) != SQLITE_ROW || sqlite3_column_bytes(qd, 0) != 4 * per) {
          char *m = sqlite3_mprintf("tensor '%s': %s", t->name,
                                    cli_message(sqlite3_errmsg(db)));
          result = cli_fail("quantize", m ? m : "out of memory");
          sqlite3_free(m);
          break;
        }
        err[c] += cli_sse(x + 4 * p * per, sqlite3_column_blob(qd, 0), per, t->ne0, w);
      }
    }
  }
  if (result == CLI_OK && rc != SQLITE_DONE) {
    char *m = sqlite3_mprintf("tensor '%s': %s", t->name, cli_message(sqlite3_errmsg(db)));
    result = cli_fail("quantize", m ? m : "out of memory");
    sqlite3_free(m);
  }
  sqlite3_finalize(rd);
  sqlite3_finalize(qd);
  return result;
}

/* The lower convex hull of the measured candidates of one tensor: each
** point cheaper than the next and each step's error per bit no better than
** the one before, so that the greedy steps along it are the best trades. */
static void cli_hull(cli_choice *ch, const llama_plan_options *o,
                     const llama_plan_tensor *t, const double *err) {
  ch->nhull = 0;
  ch->at = 0;
  for (int c = 0; c < CLI_NCAND; c++) {
    if (err[c] < 0) continue;
    const llama_type_info *ti = llama_type_find(o, cli_candidates[c]);
    cli_option p = {cli_candidates[c],
                    8.0 * (double)(t->elements / (uint64_t)ti->block_size) * ti->type_size,
                    err[c]};
    /* More bits for no less error is never worth it; of two as big, the
    ** one with less error (the first on a tie). */
    if (ch->nhull && p.error >= ch->hull[ch->nhull - 1].error) continue;
    if (ch->nhull && p.bits == ch->hull[ch->nhull - 1].bits) ch->nhull--;
    while (ch->nhull >= 2) {
      const cli_option *a = &ch->hull[ch->nhull - 2], *b = &ch->hull[ch->nhull - 1];
      double gain_ab = (a->error - b->error) / (b->bits - a->bits);
      double gain_bp = (b->error - p.error) / (p.bits - b->bits);
      if (gain_bp < gain_ab) break;
      ch->nhull--;  /* b is above the line from a to p */
    }
    ch->hull[ch->nhull++] = p;
  }
}

/* Whether the budget chooses t's type: a block type the plan converts to,
** not one the user named (--tensor-type, --output-tensor-type,
** --token-embedding-type: their rules start with "--", as does --pure's,
** which the budget replaces). */
static int cli_budget_chooses(const llama_plan_options *o, const llama_plan_tensor *t) {
  const llama_type_info *ti = t->convert ? llama_type_find(o, t->type) : NULL;
  if (!ti || !ti->quantized) return 0;
  return strncmp(t->rule, "--", 2) != 0 || strncmp(t->rule, "--pure", 6) == 0;
}

static uint64_t cli_bytes_of(const llama_plan_options *o, const llama_plan_tensor *t,
                             const char *type) {
  const llama_type_info *ti = llama_type_find(o, type);
  return ti ? t->elements / (uint64_t)ti->block_size * (uint64_t)ti->type_size : 0;
}

int cli_budget(sqlite3 *db, const char *in, const char *format,
               const llama_plan_options *o, llama_plan_tensor *t, int n,
               double target_bpw, int progress) {
  cli_choice *ch = sqlite3_malloc64((sqlite3_uint64)(n ? n : 1) * sizeof *ch);
  if (!ch) return cli_fail("quantize", "out of memory");
  double fixed = 0, chosen = 0, weights = 0;
  int nmeasured = 0;
  for (int i = 0; i < n; i++) {
    ch[i].nhull = 0;
    ch[i].at = 0;
    weights += (double)t[i].elements;
    if (cli_budget_chooses(o, &t[i])) nmeasured++;
  }
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (cli_budget_chooses(o, &t[i])) {
      double err[CLI_NCAND];
      if (progress) {
        fprintf(stderr, "measuring [%*d/%d] ", (int)snprintf(NULL, 0, "%d", nmeasured),
                ++k, nmeasured);
        cli_put_text(stderr, t[i].name);
        fputc('\n', stderr);
      }
      if (cli_interrupted()) {
        sqlite3_free(ch);
        return cli_fail("quantize", "interrupted");
      }
      if (cli_measure(db, in, format, o, &t[i], err) != CLI_OK) {
        sqlite3_free(ch);
        return CLI_FAILED;
      }
      cli_hull(&ch[i], o, &t[i], err);
    }
    if (ch[i].nhull) chosen += ch[i].hull[0].bits;
    else fixed += 8.0 * (double)cli_bytes_of(o, &t[i], t[i].type);
  }
  double budget = target_bpw * weights;
  if (fixed + chosen > budget) {
    char *m = sqlite3_mprintf("--target-bpw %g is below the %.4f bits per weight "
                              "of the cheapest candidates (q2_K where it fits, "
                              "else q4_0; the tensors kept as stored count too)",
                              target_bpw, (fixed + chosen) / weights);
    int rc = cli_fail("quantize", m ? m : "out of memory");
    sqlite3_free(m);
    sqlite3_free(ch);
    return rc;
  }
  /* Greedy along the hulls: the best error removed per bit first. */
  for (;;) {
    int best = -1;
    double best_gain = 0;
    for (int i = 0; i < n; i++) {
      cli_choice *c = &ch[i];
      if (c->at + 1 >= c->nhull) continue;
      const cli_option *a = &c->hull[c->at], *b = &c->hull[c->at + 1];
      if (fixed + chosen + (b->bits - a->bits) > budget) continue;
      double gain = (a->error - b->error) / (b->bits - a->bits);
      if (best < 0 || gain > best_gain) {
        best = i;
        best_gain = gain;
      }
    }
    if (best < 0) break;
    cli_choice *c = &ch[best];
    chosen += c->hull[c->at + 1].bits - c->hull[c->at].bits;
    c->at++;
  }
  for (int i = 0; i < n; i++) {
    if (!ch[i].nhull) continue;
    t[i].type = ch[i].hull[ch[i].at].type;
    t[i].rule = "--target-bpw: measured";
    t[i].wanted = NULL;
  }
  sqlite3_free(ch);
  return CLI_OK;
}
