/*
** observer.c: running ranges over rows, for the calibration aggregates.
**
**   1. minmax (PyTorch MinMaxObserver / PerChannelMinMaxObserver): the min and
**      max over every row seen; each row contributes its own (per-channel)
**      min and max;
**   2. moving_average (MovingAverageMinMaxObserver and its per-channel
**      twin): the first row sets the range, each later row moves it:
**      m = m + c * (row_m - m), float32, c = (float)averaging_constant;
**   3. rows can leave again (window frames that slide): minmax keeps, per
**      channel, a monotonic deque of the rows that can still become the min or
**      the max, so removing the oldest row is O(1) amortised and never looks
**      at the frame again; moving_average cannot be undone and says so;
**   4. calibration methods other than minmax need the values themselves:
**      the observer then keeps every row's values (and cannot slide);
**   5. after any failure (out of memory included) the observer can still be
**      freed, and nothing else: sq_observer_add may leave a row half added,
**      so the aggregate that owns it stops using it.
*/
#include <string.h>
#include "core/observer.h"

typedef struct sq_deque_entry {
  int64_t seq;
  float v;
} sq_deque_entry;

typedef struct sq_deque {
  sq_deque_entry *e;
  size_t cap, head, len;    /* ring buffer */
} sq_deque;

struct sq_observer {
  size_t channels;
  int moving;
  float c;
  int keep_values;
  int64_t added, removed;   /* row sequence numbers */
  float *mn, *mx;           /* moving average state */
  sq_deque *dq;             /* minmax: 2 per channel, min then max */
  unsigned char *values;    /* keep_values: every row's float32 */
  size_t nvalues, cap_values;
};

static sq_deque_entry *sq_deque_at(sq_deque *d, size_t i) {
  return &d->e[(d->head + i) % d->cap];
}

/* Pushes v, first dropping the entries it makes irrelevant: for a min deque
** every later entry >= v, for a max deque every later entry <= v. */
static int sq_deque_push(sq_deque *d, int64_t seq, float v, int is_max,
                         sq_status *st) {
  while (d->len > 0) {
    float back = sq_deque_at(d, d->len - 1)->v;
    if (is_max ? back <= v : back >= v) d->len--;
    else break;
  }
  if (d->len == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 8;
    sq_deque_entry *e = sq_alloc(st, cap, sizeof *e);
    if (!e) return st->code;
    for (size_t i = 0; i < d->len; i++) e[i] = *sq_deque_at(d, i);
    sqlite3_free(d->e);
    d->e = e;
    d->cap = cap;
    d->head = 0;
  }
  *sq_deque_at(d, d->len++) = (sq_deque_entry){seq, v};
  return SQ_OK;
}

static void sq_deque_expire(sq_deque *d, int64_t seq) {
  if (d->len > 0 && d->e[d->head].seq == seq) {
    d->head = (d->head + 1) % d->cap;
    d->len--;
  }
}

sq_observer *sq_observer_new(size_t channels, int moving, double c,
                             int keep_values, sq_status *st) {
  /* Each member is zeroed the moment it exists, so sq_observer_free is
  ** safe whichever allocation fails. */
  sq_observer *ob = sq_alloc(st, 1, sizeof *ob);
  if (!ob) return NULL;
  memset(ob, 0, sizeof *ob);
  ob->moving = moving;
  ob->c = (float)c;
  ob->keep_values = keep_values;
  if (!(ob->mn = sq_alloc(st, channels, 2 * sizeof *ob->mn))) goto fail;
  ob->mx = ob->mn + channels;
  if (!moving) {
    if (!(ob->dq = sq_alloc(st, channels, 2 * sizeof *ob->dq))) goto fail;
    memset(ob->dq, 0, channels * 2 * sizeof *ob->dq);
  }
  ob->channels = channels;
  return ob;
fail:
  sq_observer_free(ob);
  return NULL;
}

void sq_observer_free(sq_observer *ob) {
  if (!ob) return;
  if (ob->dq)
    for (size_t i = 0; i < 2 * ob->channels; i++) sqlite3_free(ob->dq[i].e);
  sqlite3_free(ob->dq);
  sqlite3_free(ob->mn);
  sqlite3_free(ob->values);
  sqlite3_free(ob);
}

int sq_observer_add(sq_observer *ob, const float *row_mn, const float *row_mx,
                    const sq_tensor *row, sq_status *st) {
  int64_t seq = ob->added++;
  for (size_t c = 0; c < ob->channels; c++) {
    if (ob->moving) {
      if (seq == 0) {
        ob->mn[c] = row_mn[c];
        ob->mx[c] = row_mx[c];
      } else {
        ob->mn[c] = ob->mn[c] + ob->c * (row_mn[c] - ob->mn[c]);
        ob->mx[c] = ob->mx[c] + ob->c * (row_mx[c] - ob->mx[c]);
      }
    } else if (sq_deque_push(&ob->dq[2 * c], seq, row_mn[c], 0, st) ||
               sq_deque_push(&ob->dq[2 * c + 1], seq, row_mx[c], 1, st)) {
      return st->code;
    }
  }
  if (ob->keep_values && row->n) {
    uint64_t need = (uint64_t)ob->nvalues + row->n, bytes;
    if (sq_size(st, need, 4, &bytes)) return st->code;
    if (need > ob->cap_values) {
      /* Doubling, but never past what the limit allows. */
      uint64_t max_values = (uint64_t)st->max_bytes / 4;
      uint64_t cap = need <= max_values / 2 ? 2 * need : need;
      unsigned char *v = sq_realloc(st, ob->values, cap, 4);
      if (!v) return st->code;
      ob->values = v;
      ob->cap_values = (size_t)cap;
    }
    memcpy(ob->values + 4 * ob->nvalues, row->data, 4 * row->n);
    ob->nvalues += row->n;
  }
  return SQ_OK;
}

int sq_observer_remove(sq_observer *ob, sq_status *st) {
  if (ob->moving)
    return sq_fail(st, "observer=moving_average cannot drop rows from a sliding "
                       "window frame (use a frame starting at UNBOUNDED PRECEDING)");
  if (ob->keep_values)
    return sq_fail(st, "method=percentile and method=mse cannot drop rows from a "
                       "sliding window frame");
  int64_t seq = ob->removed++;
  for (size_t c = 0; c < 2 * ob->channels; c++) sq_deque_expire(&ob->dq[c], seq);
  return SQ_OK;
}

int64_t sq_observer_rows(const sq_observer *ob) { return ob->added - ob->removed; }

void sq_observer_range(sq_observer *ob, size_t c, float *mn, float *mx) {
  if (ob->moving) {
    *mn = ob->mn[c];
    *mx = ob->mx[c];
  } else {
    *mn = sq_deque_at(&ob->dq[2 * c], 0)->v;
    *mx = sq_deque_at(&ob->dq[2 * c + 1], 0)->v;
  }
}

void sq_observer_values(const sq_observer *ob, sq_tensor *t) {
  t->data = ob->values ? (const void *)ob->values : (const void *)"";
  t->n = ob->nvalues;
  t->owned = NULL;
}
