/*
** safetensors.h: what the safetensors reader and writer share
** (docs/FORMATS.md#safetensors).
*/
#ifndef SQ_SAFETENSORS_H
#define SQ_SAFETENSORS_H

#include "core/catalogue.h"

/* A dtype as the file spells it ("BF16"), as the readers name it ("bf16"),
** and its bytes per element: the catalogue's rows, in its order. */
typedef struct sq_safetensors_dtype {
  const char *file, *name;
  unsigned size;
} sq_safetensors_dtype;

#define SQ_ST_COUNT(file, name, size) +1
enum {
  SQ_SAFETENSORS_NDTYPES = 0 SQ_CATALOGUE_SAFETENSORS_DTYPES(SQ_ST_COUNT)
};
#undef SQ_ST_COUNT
extern const sq_safetensors_dtype sq_safetensors_dtypes[SQ_SAFETENSORS_NDTYPES];

#endif
