/*
** hello.c: a program built only from what `make install` installed, found
** through pkg-config (tests/install/run.sh): the installed header and the
** static library, registered for every connection with
** sqlite3_auto_extension.  Prints the header's version, then q_version().
*/
#include <sqlite3.h>
#include <stdio.h>
#include <sqlite_quant.h>

int main(void) {
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  if (sqlite3_auto_extension((void (*)(void))sqlite3_quant_init) != SQLITE_OK ||
      sqlite3_open(":memory:", &db) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT q_version()", -1, &stmt, NULL) != SQLITE_OK ||
      sqlite3_step(stmt) != SQLITE_ROW) {
    printf("hello: %s\n", db ? sqlite3_errmsg(db) : "cannot open a database");
    return 1;
  }
  printf("%s %s\n", SQLITE_QUANT_VERSION, (const char *)sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return 0;
}
