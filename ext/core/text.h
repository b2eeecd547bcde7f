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

/* Strict UTF-8 (no overlong forms, surrogates or code points past
** U+10FFFF), as the model-file formats require of names and strings.
** sq_utf8_decode: the length (1 to 4) of the sequence that starts s[0..n),
** n >= 1, with its code point in *cp; 0 when it is not valid.
** sq_utf8_check: the position of the first byte of s[0..len) that does not
** start a valid sequence, or len. */
size_t sq_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
size_t sq_utf8_check(const unsigned char *s, size_t len);
/* The length of the longest prefix of s[0..len) of at most max bytes that
** does not end inside a UTF-8 sequence: how much of a name a message
** quotes ("%.*s"). */
int sq_utf8_prefix(const void *s, size_t len, size_t max);

/* The escape a model file's string needs inside JSON text for byte c, into
** esc (NUL-terminated): \" \\ \n \r \t, \u00XX for the other control
** bytes and DEL; returns its length, 0 when c stands as itself (bytes of
** UTF-8 sequences, checked by the caller, are never escaped). */
size_t sq_json_escape(unsigned char c, char esc[8]);

/* A list of names for an error message, built from a table at run time so
** that it cannot disagree with the table the code searches: add the names,
** then join them ("a, b or c" with sep ", " and last " or ").  The text
** lives in the struct (a local of the caller); past SQ_NAMES_CAP names or
** sizeof buf bytes it ends with "...", so a message stays bounded. */
#define SQ_NAMES_CAP 64
typedef struct sq_names {
  const char *item[SQ_NAMES_CAP]; /* static strings: a table's names */
  size_t n;
  int more;                       /* names were dropped past the cap */
  char buf[768];
} sq_names;
void sq_names_begin(sq_names *l);
void sq_names_add(sq_names *l, const char *name);
const char *sq_names_join(sq_names *l, const char *sep, const char *last);

#endif
