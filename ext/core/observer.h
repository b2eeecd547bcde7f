/*
** observer.h: running ranges over rows, for the calibration aggregates
** (docs/NUMERICS.md#observers).
*/
#ifndef SQ_OBSERVER_H
#define SQ_OBSERVER_H

#include "core/tensor.h"

typedef struct sq_observer sq_observer;

/* Per-channel state is sized here: call only once a row has been checked
** against the shape.  NULL with the error in st. */
sq_observer *sq_observer_new(size_t channels, int moving, double averaging,
                             int keep_values, sq_status *st);
void sq_observer_free(sq_observer *ob);
/* A row's per-channel min and max (and its values when kept).  After a
** failure the observer may only be freed. */
int sq_observer_add(sq_observer *ob, const float *row_mn, const float *row_mx,
                    const sq_tensor *row, sq_status *st);
/* Drops the oldest row still observed. */
int sq_observer_remove(sq_observer *ob, sq_status *st);
int64_t sq_observer_rows(const sq_observer *ob);
void sq_observer_range(sq_observer *ob, size_t channel, float *mn, float *mx);
/* Every kept value, rows in order (a view: owned by the observer). */
void sq_observer_values(const sq_observer *ob, sq_tensor *t);

#endif
