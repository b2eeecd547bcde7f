/*
** llama_plan.h: which type each tensor of a model gets, as llama.cpp's
** llama_model_quantize chooses it (docs/CLI.md#quantize).
**
** The choice depends only on the tensor's name, its dimensions and stored
** type, the file type asked for (an ftype: Q4_0, Q8_0, Q4_K_M ...) and
** llama-quantize's options, so it is made for the whole model before any
** data is read (which is also what --dry-run prints).  Each choice carries
** the rule that made it, in words.
**
** Every ftype of llama.cpp v0.5.0 but Q1_0, Q2_0 and NVFP4 (whose ftype
** numbers that release does not have), with and without --pure.  What
** is not built is refused with a message saying so, not approximated:
** the 70B rule of architectures other than llama.
*/
#ifndef SQLITE_QUANT_CLI_LLAMA_PLAN_H
#define SQLITE_QUANT_CLI_LLAMA_PLAN_H

#include <regex.h>
#include <stdint.h>

/* One of llama.cpp's file types (llama.h's LLAMA_FTYPE_*). */
typedef struct llama_ftype_info {
  const char *name;          /* as llama-quantize spells it: "Q4_K_M" */
  int id;                    /* the value general.file_type stores */
  const char *default_type;  /* the ggml type most tensors get */
} llama_ftype_info;

/* The ftype named name (any case, or its number), or NULL.  "COPY" is
** llama-quantize's only_copy and has no entry: llama_ftype_copy. */
const llama_ftype_info *llama_ftype_find(const char *name);
/* The ftype whose id is id, or NULL. */
const llama_ftype_info *llama_ftype_by_id(int id);

/* A ggml type as the plan needs it: q_ggml_types' block size and bytes
** per block, and whether it is a block type (ggml_is_quantized). */
typedef struct llama_type_info {
  char name[16];
  int block_size, type_size, quantized;
} llama_type_info;

typedef struct llama_tensor_override {
  const char *pattern;       /* a POSIX extended regular expression */
  regex_t re;
  const char *type;
  int matched;               /* tensors it gave their type (set by llama_plan) */
} llama_tensor_override;

typedef struct llama_plan_options {
  const llama_ftype_info *ftype;  /* NULL with only_copy */
  int pure, only_copy, quantize_output, allow_requantize;
  const char *output_type, *token_embd_type;  /* NULL: the mixture's */
  llama_tensor_override *overrides;
  int noverrides;
  const char *arch;               /* general.architecture, or "" */
  int n_expert;                   /* ARCH.expert_count, or 0 */
  int n_head, n_head_kv;          /* ARCH.attention.head_count(_kv), layer 0 */
  int n_layer;                    /* ARCH.block_count */
  int has_imatrix;                /* an importance matrix was given */
  const llama_type_info *types;   /* every type a tensor can have */
  int ntypes;
} llama_plan_options;

/* One tensor, as the plan sees it. */
typedef struct llama_plan_tensor {
  char *name, *dtype, *shape;     /* sqlite3_malloc'd copies */
  int n_dims;                     /* ggml_n_dims: trailing 1s of ne dropped */
  int64_t ne0, ne2;               /* ggml's ne[0] (the row) and ne[2] */
  uint64_t elements, nbytes;      /* nbytes as stored */
  const char *type;               /* the chosen type */
  const char *rule;               /* why, in words */
  const char *wanted;             /* a fallback's type before it, or NULL */
  int convert;                    /* 1: converted; 0: copied as stored */
  const unsigned char *importance;  /* its imatrix entry (ne0 x ne2 float32), or NULL */
  int importance_size_wrong;      /* an entry of another size (set by the caller) */
} llama_plan_tensor;

/* The type information of name, or NULL. */
const llama_type_info *llama_type_find(const llama_plan_options *o,
                                       const char *name);

/* The order llama_model_quantize writes tensors in: those outside a block
** by name, then block 0's by name, block 1's ... (its loader's weight map
** is ordered so). */
int llama_plan_order(const void *a, const void *b);

/* Whether llama.cpp refuses to quantize t to type without importance
** (the 1-3 bit IQ types, and q2_K in a Q2_K_S file; never the token
** embeddings or the output). */
int llama_requires_imatrix(const llama_plan_options *o,
                           const llama_plan_tensor *t, const char *type);

/* Chooses t[i].type, .rule and .convert for all n tensors (the tied
** embeddings rule needs to know whether output.weight exists).  Returns
** NULL, or an error message (sqlite3_free it) naming the tensor. */
char *llama_plan(const llama_plan_options *o, llama_plan_tensor *t, int n);

#endif /* SQLITE_QUANT_CLI_LLAMA_PLAN_H */
