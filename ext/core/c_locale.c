/*
** c_locale.c: numbers are data, not prose.
**
** strtod and printf follow LC_NUMERIC, and hosts do change it: Python's
** locale.setlocale(LC_ALL, ""), GTK applications and many daemons run under
** de_DE or fr_FR, where "0.5" stops at the '.' and 0.5 prints as "0,5".  Every
** place the extension reads or writes a decimal number (JSON tensors, option
** values, float printing, error messages) runs between sq_locale_c_enter()
** and sq_locale_c_leave(), which switch this thread, and only this thread, to
** the C locale with POSIX uselocale() and back.  Other threads of the host
** never see the switch.
*/
#define _POSIX_C_SOURCE 200809L
#include <locale.h>
#include "core/status.h"

/* One C locale object for the life of the process, made on first use; a
** thread that loses the race to publish it frees its own copy. */
static locale_t sq_c_locale(void) {
  static locale_t shared = (locale_t)0;
  locale_t c = __atomic_load_n(&shared, __ATOMIC_ACQUIRE);
  if (c) return c;
  c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (!c) return (locale_t)0;
  locale_t expected = (locale_t)0;
  if (!__atomic_compare_exchange_n(&shared, &expected, c, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    freelocale(c);
    c = expected;
  }
  return c;
}

sq_locale sq_locale_c_enter(void) {
  sq_locale saved = {0};
  locale_t c = sq_c_locale();
  /* Without a C locale object (out of memory at the very first call) the
  ** thread keeps its locale; glibc builds "C" without allocating, so this
  ** does not happen there. */
  if (c) saved.prev = (void *)uselocale(c);
  return saved;
}

void sq_locale_c_leave(sq_locale saved) {
  if (saved.prev) uselocale((locale_t)saved.prev);
}
