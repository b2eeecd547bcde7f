/*
** budget.h: --target-bpw, the best quality under a size (docs/CLI.md#a-budget).
**
** For each tensor the plan quantizes, every candidate type (q2_K q3_K
** q4_0 q4_K q5_0 q5_K q6_K q8_0) whose block divides its rows is measured
** on the tensor itself: the squared error of
** quantizing and dequantizing it, each column weighted by its importance
** when an imatrix gives one.  Then, from the cheapest candidate of each
** tensor up, the step that removes the most error per bit added is taken
** (over each tensor's lower convex hull of bits against error), while the
** model stays within the target: a greedy solution of the knapsack, the
** same on every run (ties go to the earlier tensor in llama.cpp's order).
*/
#ifndef SQLITE_QUANT_CLI_BUDGET_H
#define SQLITE_QUANT_CLI_BUDGET_H

#include <sqlite3.h>
#include "llama_plan.h"

/* Chooses t[i].type for the tensors the plan converts to a block type
** (except those whose type the user named), so
** that the whole model (every tensor, as planned or chosen) has at most
** target_bpw bits per weight.  in and format name the input as for
** q_tensors_file.  Returns CLI_OK, or CLI_FAILED after saying why (a target
** below what the cheapest candidates reach, a tensor that cannot be
** read). */
int cli_budget(sqlite3 *db, const char *in, const char *format,
               const llama_plan_options *o, llama_plan_tensor *t, int n,
               double target_bpw, int progress);

#endif /* SQLITE_QUANT_CLI_BUDGET_H */
