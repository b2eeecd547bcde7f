/*
** elements.h: element-by-element access to a blob of any format, for the
** functions that show tensors rather than compute on them (q_json, q_each,
** q_length, q_f32).
*/
#ifndef SQ_ELEMENTS_H
#define SQ_ELEMENTS_H

#include "core/dtype.h"
#include "core/tensor.h"

typedef struct sq_elements {
  const sq_dtype *dt;
  sq_tensor f32;            /* float formats, as float32 */
  const unsigned char *codes;
  size_t n;
} sq_elements;

/* Element count of a blob of nbytes in dtype dt, checking its length; for
** 4-bit codes count >= 0 gives an odd count (the last high nibble unused),
** and for others it must agree. */
int sq_codes_count(const sq_dtype *dt, size_t nbytes, int64_t count, size_t *n,
                   sq_status *st);
/* The elements of a float32 tensor; count >= 0 must equal its length. */
int sq_elements_from_f32(sq_tensor *t, int64_t count, const char *argname,
                         sq_elements *e, sq_status *st);
/* The elements of a blob of any other dtype: half and f64 formats are
** widened to float32 once, codes stay packed. */
int sq_elements_from_blob(const sq_kernels *k, const void *data, size_t nbytes,
                          const sq_dtype *dt, int64_t count, sq_elements *e,
                          sq_status *st);
void sq_elements_free(sq_elements *e);
float sq_element_float(const sq_elements *e, size_t i);
int64_t sq_element_code(const sq_elements *e, size_t i);

/* "an int8", "a uint8", "an f16", "a bf16". */
const char *sq_article(const char *name);

#endif
