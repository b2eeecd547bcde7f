/*
** row_method.h: calibration methods that see a group's values one row at a
** time and keep a summary of them, not the values: PyTorch's
** HistogramObserver (method=histogram) and ONNX Runtime's entropy
** calibrator (method=entropy), docs/NUMERICS.md#calibration.
**
** A single tensor is one row (one forward call, one calibration batch); the
** aggregates feed each row's groups in the order SQLite gives the rows.
** Every group has its own state.  A state cannot take a row back, so these
** methods refuse sliding window frames.
*/
#ifndef SQ_ROW_METHOD_H
#define SQ_ROW_METHOD_H

#include "core/granularity.h"
#include "core/options.h"
#include "kernels/kernels.h"

typedef struct sq_row_method {
  int method;               /* SQ_METHOD_* */
  const char *name;         /* "histogram", "entropy" */
  /* A fresh state for one group under the options; NULL with the error in
  ** st.  Checks method-specific options (bins against quantized_bins). */
  void *(*create)(const sq_options *o, const sq_range *r, int symmetric,
                  sq_status *st);
  /* One row of the group: n >= 1 finite float32 values (little-endian, any
  ** alignment) and their min and max.  After a failure the state may only
  ** be destroyed. */
  int (*add)(void *state, const sq_kernels *k, const sq_tensor *row, float mn,
             float mx, sq_status *st);
  /* The range the group's parameters are chosen from; at least one row has
  ** been added. */
  int (*range)(void *state, float *lo, float *hi, sq_status *st);
  void (*destroy)(void *state);
  /* The most bytes one group's state can come to under the options: the
  ** aggregates hold every group's state at once, and their sum is held to
  ** the connection's SQLITE_LIMIT_LENGTH like any one buffer. */
  uint64_t (*max_bytes)(const sq_options *o);
} sq_row_method;

/* core/histogram_observer.c: PyTorch 1.13's HistogramObserver. */
extern const sq_row_method sq_row_method_histogram;
/* core/entropy_calibrator.c: ONNX Runtime's entropy calibrator. */
extern const sq_row_method sq_row_method_entropy;

/* The row method of `method`, or NULL for a method that is not one. */
const sq_row_method *sq_row_method_find(int method);

/* One state per group of a granularity, fed row by row. */
typedef struct sq_row_states {
  const sq_row_method *m;
  size_t groups;
  void **state;
} sq_row_states;

/* NULL-free states for `groups` groups; on failure everything made so far is
** freed and rs is left empty.  Refused (string or blob too big) when the
** groups' states together could exceed the length limit. */
int sq_row_states_init(sq_row_states *rs, const sq_row_method *m, size_t groups,
                       const sq_options *o, const sq_range *r, int symmetric,
                       sq_status *st);
/* Adds one row x laid out by g (g->groups == rs->groups), whose groups'
** mins and maxes are mn[], mx[]. */
int sq_row_states_add(sq_row_states *rs, const sq_kernels *k, const sq_tensor *x,
                      const sq_granularity *g, const float *mn, const float *mx,
                      sq_status *st);
/* Every group's range into mn[], mx[]. */
int sq_row_states_range(sq_row_states *rs, float *mn, float *mx, sq_status *st);
void sq_row_states_free(sq_row_states *rs);

#endif
