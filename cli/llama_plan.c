/*
** llama_plan.c: each tensor's type as llama_model_quantize chooses it
** (llama_plan.h; docs/CLI.md#quantize).
**
** The rules follow llama.cpp's src/llama-quant.cpp in the libllama that
** tests/llama/quantize_check.py runs (npm @node-llama-cpp/linux-x64@3.22.1,
** llama.cpp release v0.5.0), in this order for each tensor:
**   1. is it quantized at all (a 2-D or larger weight, not a norm, not one
**      of the small or positional tensors llama.cpp keeps as they are);
**   2. --token-embedding-type / --output-tensor-type, taken as given;
**   3. the ftype's default type, then the first --tensor-type pattern
**      that matches, else (without --pure) the ftype's mixture rules;
**   4. a type whose block does not divide the row falls back to a type
**      whose block does (q4_K to q5_0, the IQ types to iq4_nl ...), and to
**      f16 when even that one does not;
**   5. a tensor already of the chosen type is copied.
** tests/llama/quantize_check.py compares the files byte for byte, so a
** rule that drifts from the library's shows there.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "llama_plan.h"
#include "sqlite3.h"

/* llama.h's values. */
static const llama_ftype_info llama_ftypes[] = {
  {"F32", 0, "f32"},        {"F16", 1, "f16"},
  {"Q4_0", 2, "q4_0"},      {"Q4_1", 3, "q4_1"},
  {"Q8_0", 7, "q8_0"},      {"Q5_0", 8, "q5_0"},
  {"Q5_1", 9, "q5_1"},      {"Q2_K", 10, "q2_K"},
  {"Q3_K_S", 11, "q3_K"},   {"Q3_K_M", 12, "q3_K"},
  {"Q3_K_L", 13, "q3_K"},   {"Q4_K_S", 14, "q4_K"},
  {"Q4_K_M", 15, "q4_K"},   {"Q5_K_S", 16, "q5_K"},
  {"Q5_K_M", 17, "q5_K"},   {"Q6_K", 18, "q6_K"},
  {"IQ2_XXS", 19, "iq2_xxs"}, {"IQ2_XS", 20, "iq2_xs"},
  {"Q2_K_S", 21, "q2_K"},   {"IQ3_XS", 22, "iq3_s"},
  {"IQ3_XXS", 23, "iq3_xxs"}, {"IQ1_S", 24, "iq1_s"},
  {"IQ4_NL", 25, "iq4_nl"}, {"IQ3_S", 26, "iq3_s"},
  {"IQ3_M", 27, "iq3_s"},   {"IQ2_S", 28, "iq2_xs"},
  {"IQ2_M", 29, "iq2_s"},   {"IQ4_XS", 30, "iq4_xs"},
  {"IQ1_M", 31, "iq1_m"},   {"BF16", 32, "bf16"},
  {"TQ1_0", 36, "tq1_0"},   {"TQ2_0", 37, "tq2_0"},
  {"MXFP4_MOE", 38, "mxfp4"},
};
enum { LLAMA_NFTYPES = sizeof llama_ftypes / sizeof llama_ftypes[0] };

/* llama-quantize's short names for the K mixtures. */
static const struct { const char *alias, *name; } llama_ftype_aliases[] = {
  {"Q3_K", "Q3_K_M"}, {"Q4_K", "Q4_K_M"}, {"Q5_K", "Q5_K_M"},
};

const llama_ftype_info *llama_ftype_by_id(int id) {
  for (int i = 0; i < LLAMA_NFTYPES; i++)
    if (llama_ftypes[i].id == id) return &llama_ftypes[i];
  return NULL;
}

const llama_ftype_info *llama_ftype_find(const char *name) {
  char *end;
  long id = strtol(name, &end, 10);
  if (*name && !*end) return llama_ftype_by_id((int)id);
  for (size_t i = 0; i < sizeof llama_ftype_aliases / sizeof *llama_ftype_aliases; i++)
    if (strcasecmp(name, llama_ftype_aliases[i].alias) == 0)
      name = llama_ftype_aliases[i].name;
  for (int i = 0; i < LLAMA_NFTYPES; i++)
    if (strcasecmp(llama_ftypes[i].name, name) == 0) return &llama_ftypes[i];
  return NULL;
}

const llama_type_info *llama_type_find(const llama_plan_options *o,
                                       const char *name) {
  for (int i = 0; i < o->ntypes; i++)
    if (strcmp(o->types[i].name, name) == 0) return &o->types[i];
  return NULL;
}

/* ---- Order --------------------------------------------------------------- */

static int llama_block_of(const char *name) {
  int layer = -1;
  if (sscanf(name, "blk.%d.", &layer) != 1) layer = -1;
  return layer;
}

int llama_plan_order(const void *a, const void *b) {
  const llama_plan_tensor *x = a, *y = b;
  int lx = llama_block_of(x->name), ly = llama_block_of(y->name);
  if (lx != ly) return lx < ly ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* ---- 1. Which tensors are quantized -------------------------------------- */

/* Parts of a name that keep a tensor as it is stored: small tensors,
** routing tables, positional and convolution weights, and the multimodal
** projector's pieces that llama.cpp leaves alone. */
static const char *const llama_keep_parts[] = {
  "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight",
  "altup", "laurel", "per_layer_model_proj", "ssm_conv1d",
  "shortconv.conv.weight", "indexer.k_proj.weight", "indexer.q_proj.weight",
  "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight",
  "time_mix_w2.weight", "time_mix_v0.weight", "time_mix_v1.weight",
  "time_mix_v2.weight", "time_mix_a0.weight", "time_mix_a1.weight",
  "time_mix_a2.weight", "time_mix_g1.weight", "time_mix_g2.weight",
  "time_mix_decay_w1.weight", "time_mix_decay_w2.weight",
  "time_mix_lerp_fused.weight", "attn_rel_b.weight", ".position_embd",
  "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos", ".patch_embd",
  ".patch_merger", "a.rvq.codebook", "mm.a.code_embd",
};
/* Whole names kept (BERT's positions and token types). */
static const char *const llama_keep_names[] = {
  "position_embd.weight", "token_types.weight",
};

/* Why t is kept as stored, or NULL when llama.cpp may quantize it. */
static const char *llama_kept_because(const llama_plan_options *o,
                                      const llama_plan_tensor *t) {
  if (o->only_copy) return "COPY: every tensor as stored";
  if (t->n_dims < 2) return "kept: fewer than 2 dimensions";
  size_t len = strlen(t->name);
  /* llama.cpp asks whether the last "weight" starts 6 bytes before the
  ** end; for a 5-byte name that is "not found" == -1 == 5 - 6, so such a
  ** name counts as a weight too. */
  int weight = len == 5 || (len >= 6 && strcmp(t->name + len - 6, "weight") == 0);
  if (!weight) return "kept: not a weight";
  if (!o->quantize_output && strcmp(t->name, "output.weight") == 0)
    return "kept: --leave-output-tensor";
  for (size_t i = 0; i < sizeof llama_keep_parts / sizeof *llama_keep_parts; i++)
    if (strstr(t->name, llama_keep_parts[i])) return "kept: llama.cpp never quantizes it";
  for (size_t i = 0; i < sizeof llama_keep_names / sizeof *llama_keep_names; i++)
    if (strcmp(t->name, llama_keep_names[i]) == 0) return "kept: llama.cpp never quantizes it";
  return NULL;
}

/* ---- 3. The mixtures ------------------------------------------------------ */

typedef enum {
  CAT_TOKEN_EMBD, CAT_ATTN_Q, CAT_ATTN_V, CAT_ATTN_K, CAT_ATTN_QKV,
  CAT_ATTN_KV_B, CAT_ATTN_OUTPUT, CAT_FFN_UP, CAT_FFN_GATE, CAT_FFN_DOWN,
  CAT_OUTPUT, CAT_OTHER
} llama_category;

static int llama_is_token_embd(const char *name) {
  return strcmp(name, "token_embd.weight") == 0 ||
         strcmp(name, "per_layer_token_embd.weight") == 0;
}

static llama_category llama_category_of(const char *name) {
  static const struct { const char *part; llama_category cat; } parts[] = {
    {"attn_qkv.weight", CAT_ATTN_QKV}, {"attn_kv_b.weight", CAT_ATTN_KV_B},
    {"attn_v.weight", CAT_ATTN_V},     {"attn_k.weight", CAT_ATTN_K},
    {"attn_q.weight", CAT_ATTN_Q},     {"attn_output.weight", CAT_ATTN_OUTPUT},
    {"ffn_up", CAT_FFN_UP},            {"ffn_gate", CAT_FFN_GATE},
    {"ffn_down", CAT_FFN_DOWN},
  };
  if (strcmp(name, "output.weight") == 0) return CAT_OUTPUT;
  if (llama_is_token_embd(name)) return CAT_TOKEN_EMBD;
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (strstr(name, parts[i].part)) return parts[i].cat;
  return CAT_OTHER;
}

static int llama_divides(const llama_plan_options *o, const char *type,
                         int64_t ne0) {
  const llama_type_info *ti = llama_type_find(o, type);
  return ti && ti->block_size > 0 && ne0 % ti->block_size == 0;
}

/* The counters llama.cpp keeps while it walks the tensors in its order:
** how many attention V tensors there are, and how many of each kind it
** has passed. */
typedef struct llama_counters {
  int n_attention_wv, i_attention_wv, i_ffn_down, i_ffn_gate, i_ffn_up;
} llama_counters;

/* llama.cpp's "more bits" layers: the first and last eighth, and every
** third one between. */
static int llama_use_more_bits(int i, int n) {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/* The layer of an FFN tensor: its block number in a model of experts
** (their tensors are not in layer order), else the counter. */
static int llama_layer(const llama_plan_options *o, const llama_plan_tensor *t,
                       int counter) {
  int layer = counter;
  if (o->n_expert > 1 && sscanf(t->name, "blk.%d.", &layer) != 1) layer = -1;
  return layer;
}

enum {
  FT_Q4_0 = 2, FT_Q5_0 = 8, FT_IQ2_XXS = 19, FT_IQ2_XS = 20, FT_IQ3_XS = 22,
  FT_IQ3_XXS = 23, FT_IQ1_S = 24, FT_IQ2_S = 28, FT_IQ2_M = 29, FT_IQ1_M = 31,
  FT_Q2_K = 10, FT_Q3_K_S = 11, FT_Q3_K_M = 12, FT_Q3_K_L = 13,
  FT_Q4_K_S = 14, FT_Q4_K_M = 15, FT_Q5_K_S = 16, FT_Q5_K_M = 17,
  FT_Q2_K_S = 21, FT_IQ4_NL = 25, FT_IQ3_S = 26, FT_IQ3_M = 27,
  FT_IQ4_XS = 30, FT_TQ1_0 = 36, FT_TQ2_0 = 37, FT_MXFP4_MOE = 38
};

/* The mixture's type for t (type, the ftype's, unless a rule says
** otherwise); *rule says which rule. */
static const char *llama_mixture(const llama_plan_options *o,
                                 const llama_plan_tensor *t, int tied,
                                 llama_counters *c, const char *type,
                                 const char **rule) {
  int f = o->ftype->id;
  int falcon = strcmp(o->arch, "falcon") == 0;
  int gqa4 = o->n_head_kv > 0 && o->n_head / o->n_head_kv >= 4;
  llama_category cat = llama_category_of(t->name);
  const char *to = type;
  *rule = "mixture: the ftype's type";
  if (cat == CAT_OUTPUT || (tied && cat == CAT_TOKEN_EMBD)) {
    if (o->output_type) {
      *rule = "--output-tensor-type (tied embeddings)";
      return o->output_type;
    }
    if (f == FT_MXFP4_MOE) {
      *rule = "MXFP4_MOE: output in q8_0";
      return "q8_0";
    }
    if (falcon || !llama_divides(o, type, t->ne0)) {
      *rule = "output in q8_0 (falcon, or rows not whole blocks)";
      return "q8_0";
    }
    if (f == FT_IQ2_XXS || f == FT_IQ2_XS || f == FT_IQ3_XXS || f == FT_IQ1_S ||
        f == FT_IQ2_S || f == FT_IQ2_M || f == FT_IQ1_M) {
      *rule = "mixture: output of a 1-3 bit mixture in q5_K";
      return "q5_K";
    }
    if (strcmp(type, "q8_0") != 0) {
      *rule = cat == CAT_OUTPUT ? "mixture: output in q6_K"
                                : "mixture: tied embeddings as output, q6_K";
      return "q6_K";
    }
    *rule = "mixture: output stays q8_0";
    return type;
  }
  if (f == FT_MXFP4_MOE) {
    if (t->ne2 > 1) {
      *rule = "MXFP4_MOE: experts in mxfp4";
      return "mxfp4";
    }
    *rule = "MXFP4_MOE: other tensors in q8_0";
    return "q8_0";
  }
  int iq2 = f == FT_IQ2_XXS || f == FT_IQ2_XS || f == FT_IQ1_S || f == FT_IQ2_S ||
            f == FT_IQ2_M || f == FT_IQ1_M;
  int iq2s = f == FT_IQ2_S || f == FT_IQ2_M;
  if (cat == CAT_TOKEN_EMBD) {
    if (f == FT_IQ2_XXS || f == FT_IQ2_XS || f == FT_IQ1_S || f == FT_IQ1_M) to = "q2_K";
    else if (iq2s || f == FT_IQ3_XXS) to = "iq3_s";
    else if (f == FT_TQ1_0 || f == FT_TQ2_0) to = "q4_K";
    if (to != type) *rule = "mixture: the mixture's embeddings type";
    return to;
  }
  if (iq2) {
    /* The 1-2 bit mixtures: a few tensors get a wider type. */
    if (cat == CAT_ATTN_V || cat == CAT_ATTN_QKV || cat == CAT_ATTN_KV_B) {
      to = gqa4 || o->n_expert >= 4 ? "q4_K" : iq2s ? "iq3_s" : "q2_K";
      c->i_attention_wv++;
    } else if (o->n_expert == 8 && cat == CAT_ATTN_K) {
      to = "q4_K";
    } else if (cat == CAT_FFN_DOWN) {
      if (c->i_ffn_down < o->n_layer / 8) to = iq2s ? "iq3_s" : "q2_K";
      c->i_ffn_down++;
    } else if (cat == CAT_ATTN_OUTPUT) {
      if (o->n_expert == 8) to = "q5_K";
      else if (f == FT_IQ1_S || f == FT_IQ1_M) to = "iq2_xxs";
      else if (iq2s) to = "iq3_s";
    }
    if (to != type) *rule = "mixture: a wider type in a 1-2 bit mixture";
    return to;
  }
  switch (cat) {
  case CAT_ATTN_V: case CAT_ATTN_QKV: case CAT_ATTN_KV_B: {
    int i = c->i_attention_wv, n = c->n_attention_wv;
    if (f == FT_Q2_K) to = gqa4 ? "q4_K" : "q3_K";
    else if (f == FT_Q2_K_S && gqa4) to = "q4_K";
    else if (f == FT_IQ3_XXS) to = gqa4 ? "q4_K" : !o->has_imatrix ? "iq3_s" : "iq3_xxs";
    else if ((f == FT_IQ3_XS || f == FT_IQ3_S) && gqa4) to = "q4_K";
    else if (f == FT_IQ3_M) to = "q4_K";
    else if (f == FT_Q3_K_M) to = i < 2 ? "q5_K" : "q4_K";
    else if (f == FT_Q3_K_L) to = "q5_K";
    else if ((f == FT_IQ4_NL || f == FT_IQ4_XS) && gqa4) to = "q5_K";
    else if ((f == FT_Q4_K_M || f == FT_Q5_K_M) && llama_use_more_bits(i, n)) to = "q6_K";
    else if (f == FT_Q4_K_S && i < 4) to = "q5_K";
    /* llama's 70B: 8 heads share each attention V, so V is 8 times
    ** smaller than Q and more bits cost little. */
    if (o->n_layer == 80 && o->n_head != o->n_head_kv && strcmp(o->arch, "llama") == 0 &&
        (strcmp(to, "q3_K") == 0 || strcmp(to, "q4_K") == 0))
      to = "q5_K";
    if (o->n_expert == 8) to = "q8_0";
    if (to != type) *rule = o->n_expert == 8 ? "mixture: 8 experts, attention V in q8_0"
                                             : "mixture: attention V, more bits";
    c->i_attention_wv++;
    break;
  }
  case CAT_ATTN_K:
    if (o->n_expert == 8) {
      *rule = "mixture: 8 experts, attention K in q8_0";
      to = "q8_0";
    } else if (f == FT_IQ3_XS || f == FT_IQ3_XXS) {
      *rule = "mixture: attention K, fewer bits";
      to = f == FT_IQ3_XS ? "iq3_xxs" : "iq2_s";
    }
    break;
  case CAT_ATTN_Q:
    if (f == FT_IQ3_XS || f == FT_IQ3_XXS) {
      *rule = "mixture: attention Q, fewer bits";
      to = f == FT_IQ3_XS ? "iq3_xxs" : "iq2_s";
    }
    break;
  case CAT_FFN_DOWN: {
    int i = llama_layer(o, t, c->i_ffn_down), n = o->n_layer;
    if (f == FT_Q2_K) to = "q3_K";
    else if (f == FT_Q2_K_S) { if (i < n / 8) to = "q4_K"; }
    else if (f == FT_IQ3_XXS && !o->has_imatrix) to = i < n / 8 ? "q4_K" : "q3_K";
    else if (f == FT_Q3_K_M)
      to = i < n / 16 ? "q5_K"
         : !falcon || llama_use_more_bits(i, n) ? "q4_K" : "q3_K";
    else if (f == FT_IQ3_M && (i < n / 8 || (o->n_expert == 8 && llama_use_more_bits(i, n))))
      to = "q4_K";
    else if (f == FT_Q3_K_L) to = falcon ? "q4_K" : "q5_K";
    else if (f == FT_Q4_K_M) {
      if (falcon) to = i < n / 16 ? "q6_K" : llama_use_more_bits(i, n) ? "q5_K" : "q4_K";
      else if (llama_use_more_bits(i, n)) to = "q6_K";
    }
    else if (i < n / 8 && (f == FT_IQ4_NL || f == FT_IQ4_XS) && !o->has_imatrix) to = "q5_K";
    else if (f == FT_Q5_K_M && llama_use_more_bits(i, n)) to = "q6_K";
    else if (f == FT_Q4_K_S && !falcon && i < n / 8) to = "q5_K";
    else if ((f == FT_Q4_0 || f == FT_Q5_0) && o->has_imatrix && i < n / 8)
      /* with an imatrix, the first eighth's ffn_down in the _1 type */
      to = f == FT_Q4_0 ? "q4_1" : "q5_1";
    if (to != type) *rule = "mixture: ffn_down of this layer, more bits";
    c->i_ffn_down++;
    break;
  }
  case CAT_ATTN_OUTPUT:
    if (!falcon) {
      if (o->n_expert == 8) {
        if (f == FT_Q2_K || f == FT_IQ3_XS || f == FT_IQ3_XXS ||
            f == FT_Q3_K_S || f == FT_Q3_K_M || f == FT_IQ4_NL ||
            f == FT_Q4_K_S || f == FT_Q4_K_M || f == FT_IQ3_S || f == FT_IQ3_M ||
            f == FT_IQ4_XS)
          to = "q5_K";
      } else if (f == FT_Q2_K) to = "q3_K";
      else if (f == FT_IQ3_XXS) to = "iq3_s";
      else if (f == FT_Q3_K_M) to = "q4_K";
      else if (f == FT_Q3_K_L) to = "q5_K";
      else if (f == FT_IQ3_M) to = "q4_K";
    } else if (f == FT_Q3_K_L) {
      to = "q4_K";
    }
    if (to != type) *rule = "mixture: attention output, more bits";
    break;
  case CAT_FFN_GATE: case CAT_FFN_UP: {
    int *counter = cat == CAT_FFN_GATE ? &c->i_ffn_gate : &c->i_ffn_up;
    int i = llama_layer(o, t, *counter), n = o->n_layer;
    if (f == FT_IQ3_XS && i >= n / 8 && i < 7 * n / 8) {
      *rule = "mixture: the middle layers' FFN, fewer bits";
      to = "iq3_xxs";
    }
    (*counter)++;
    break;
  }
  default:
    break;
  }
  return to;
}

/* ---- 4. Shape fallbacks --------------------------------------------------- */

static const struct { const char *from, *to; } llama_fallbacks[] = {
  {"iq1_s", "iq4_nl"},  {"iq1_m", "iq4_nl"},  {"iq2_xxs", "iq4_nl"},
  {"iq2_xs", "iq4_nl"}, {"iq2_s", "iq4_nl"},  {"iq3_xxs", "iq4_nl"},
  {"iq3_s", "iq4_nl"},  {"iq4_xs", "iq4_nl"}, {"q2_0", "q4_0"},
  {"q2_K", "q4_0"},     {"q3_K", "q4_0"},     {"tq1_0", "q4_0"},
  {"tq2_0", "q4_0"},    {"q4_K", "q5_0"},     {"q5_K", "q5_1"},
  {"q6_K", "q8_0"},
  /* block-32 types: no block-32 type fits either, so f16 */
  {"q4_0", "f16"},      {"q4_1", "f16"},      {"q5_0", "f16"},
  {"q5_1", "f16"},      {"q8_0", "f16"},      {"iq4_nl", "f16"},
  {"mxfp4", "f16"},
};

/* type, or the type llama.cpp falls back to when its block does not divide
** t's rows; NULL (and *err) when llama.cpp has no fallback for it. */
static const char *llama_fallback(const llama_plan_options *o,
                                  const llama_plan_tensor *t, const char *type,
                                  const char **rule, char **err) {
  if (llama_divides(o, type, t->ne0)) return type;
  const char *to = NULL;
  for (size_t i = 0; i < sizeof llama_fallbacks / sizeof *llama_fallbacks; i++)
    if (strcmp(llama_fallbacks[i].from, type) == 0) to = llama_fallbacks[i].to;
  if (!to) {
    *err = sqlite3_mprintf("tensor '%s': rows of %lld elements are not whole "
                           "%s blocks, and llama.cpp has no fallback for %s",
                           t->name, (long long)t->ne0, type, type);
    return NULL;
  }
  if (!llama_divides(o, to, t->ne0)) {
    *rule = "fallback: rows not whole blocks of the type or its fallback";
    return "f16";
  }
  *rule = "fallback: rows not whole blocks of the type";
  return to;
}

/* ---- The plan -------------------------------------------------------------- */

int llama_requires_imatrix(const llama_plan_options *o,
                           const llama_plan_tensor *t, const char *type) {
  if (llama_is_token_embd(t->name) || strcmp(t->name, "output.weight") == 0)
    return 0;
  static const char *const needs[] = {"iq3_xxs", "iq2_xxs", "iq2_xs",
                                      "iq2_s", "iq1_m", "iq1_s"};
  for (size_t i = 0; i < sizeof needs / sizeof *needs; i++)
    if (strcmp(type, needs[i]) == 0) return 1;
  return strcmp(type, "q2_K") == 0 && o->ftype && o->ftype->id == 21;
}

static int llama_is_float(const char *dtype) {
  return strcmp(dtype, "f32") == 0 || strcmp(dtype, "f16") == 0 ||
         strcmp(dtype, "bf16") == 0;
}

static char *llama_plan_one(const llama_plan_options *o, llama_plan_tensor *t,
                            int tied, llama_counters *c) {
  const char *kept = llama_kept_because(o, t);
  t->convert = 0;
  t->wanted = NULL;
  if (kept) {
    t->type = t->dtype;
    t->rule = kept;
    return NULL;
  }
  llama_category cat = llama_category_of(t->name);
  const char *type = NULL, *rule = NULL;
  if (o->token_embd_type && cat == CAT_TOKEN_EMBD) {
    type = o->token_embd_type;
    rule = "--token-embedding-type";
  } else if (o->output_type && cat == CAT_OUTPUT) {
    type = o->output_type;
    rule = "--output-tensor-type";
  } else {
    type = o->ftype->default_type;
    rule = o->pure ? "--pure: the ftype's type" : "the ftype's type";
    const llama_type_info *ti = llama_type_find(o, type);
    if (ti && ti->quantized) {
      int manual = 0;
      for (int i = 0; i < o->noverrides && !manual; i++)
        if (regexec(&o->overrides[i].re, t->name, 0, NULL, 0) == 0) {
          o->overrides[i].matched++;
          type = o->overrides[i].type;
          rule = "--tensor-type";
          manual = 1;
        }
      if (!manual && !o->pure) type = llama_mixture(o, t, tied, c, type, &rule);
      char *err = NULL;
      const char *wanted = type;
      type = llama_fallback(o, t, type, &rule, &err);
      if (!type) return err;
      if (type != wanted) t->wanted = wanted;
    }
  }
  if (!llama_type_find(o, type))
    return sqlite3_mprintf("tensor '%s': unknown type '%s'", t->name, type);
  if (llama_requires_imatrix(o, t, type) && !o->has_imatrix)
    return sqlite3_mprintf("tensor '%s': type %s needs an importance matrix "
                           "(--imatrix)", t->name, type);
  if (strcmp(type, t->dtype) == 0) {
    t->type = t->dtype;
    t->rule = "copied: already of the type";
    return NULL;
  }
  if (!llama_is_float(t->dtype) && !o->allow_requantize)
    return sqlite3_mprintf("tensor '%s': requantizing from type %s is "
                           "disabled (--allow-requantize)", t->name, t->dtype);
  if (!llama_type_find(o, t->dtype))
    return sqlite3_mprintf("tensor '%s': cannot convert from type %s",
                           t->name, t->dtype);
  t->type = type;
  t->rule = rule;
  t->convert = 1;
  return NULL;
}

char *llama_plan(const llama_plan_options *o, llama_plan_tensor *t, int n) {
  int tied = 1;
  llama_counters c;
  memset(&c, 0, sizeof c);
  for (int i = 0; i < n; i++) {
    llama_category cat = llama_category_of(t[i].name);
    if (cat == CAT_OUTPUT) tied = 0;
    if (cat == CAT_ATTN_V || cat == CAT_ATTN_QKV || cat == CAT_ATTN_KV_B)
      c.n_attention_wv++;
  }
  if (o->ftype && !o->pure && o->ftype->id >= FT_Q2_K && o->ftype->id <= 31 &&
      o->n_layer <= 0)
    return sqlite3_mprintf("the %s mixture needs the model's layer count "
                           "(%s.block_count), which IN does not have; --pure "
                           "quantizes every tensor to %s", o->ftype->name,
                           *o->arch ? o->arch : "ARCH", o->ftype->default_type);
  if (o->ftype && !o->pure && o->ftype->id >= FT_Q2_K && o->ftype->id <= 31 &&
      o->n_layer == 80 && strcmp(o->arch, "llama") != 0)
    /* llama.cpp gives a 70B model more bits for attention V, by the model
    ** type its loader infers from the layer count; for llama that is 80
    ** layers of grouped attention (llama_70b below), for other
    ** architectures rules of their own, not built here. */
    return sqlite3_mprintf("the %s mixture of an 80-layer model (a 70B) is not "
                           "built yet; --pure quantizes every tensor to %s",
                           o->ftype->name, o->ftype->default_type);
  for (int i = 0; i < n; i++) {
    if (o->n_expert > 1 && llama_category_of(t[i].name) == CAT_FFN_DOWN &&
        o->ftype && !o->pure) {
      int layer;
      if (sscanf(t[i].name, "blk.%d.", &layer) != 1 || layer < 0 || layer >= o->n_layer)
        return sqlite3_mprintf("tensor '%s': no layer in its name (llama.cpp "
                               "needs one in a model of experts)", t[i].name);
    }
    char *err = llama_plan_one(o, &t[i], tied, &c);
    if (err) return err;
  }
  return NULL;
}
