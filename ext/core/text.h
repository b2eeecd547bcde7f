/*
** text.h: strict readers of the words and numbers in text arguments (dtype
** and scheme names, option values).  Every reader is given the text's
** length and must consume all of it.
*/
#ifndef SQ_TEXT_H
#define SQ_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* 1 when s[0..len) equals word, ignoring ASCII case. */
int sq_word_is(const char *s, size_t len, const char *word);
/* A decimal integer of at most 18 digits with an optional sign. */
int sq_parse_int(const char *s, size_t len, int64_t *out);
/* A decimal number (digits, '.', exponent), read in the C locale. */
int sq_parse_real(const char *s, size_t len, double *out);

#endif
