/*
** static_test.c: sqlite-quant compiled into a program instead of loaded.
** The amalgamation (dist/sqlite-quant.c) is built with -DSQLITE_CORE and
** linked with the program and the system's libsqlite3; the entry point is
** registered for every connection with sqlite3_auto_extension, and
** extension loading stays off, so nothing here can come from a loadable
** file.  Then the same with sqlite3_quant_nofs_init, the entry point
** without the functions that open paths, registered for every connection
** or called on one that has them.  Every check compares one result (as
** text) or one error message with its exact expected value.  Ends
** "static: N passed, N failed".
*/
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include "sqlite_quant.h"

static int passed, failed;

static void report(const char *name, const char *got, const char *want) {
  if (strcmp(got, want) == 0) {
    passed++;
  } else {
    failed++;
    printf("FAILED %s\n  got:  %s\n  want: %s\n", name, got, want);
  }
}

/* The first column of the first row as text, or "error: <message>". */
static void query(sqlite3 *db, const char *sql, char *out, size_t size) {
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    const unsigned char *text = sqlite3_column_text(stmt, 0);
    snprintf(out, size, "%s", text ? (const char *)text : "NULL");
  } else {
    snprintf(out, size, "error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(stmt);
}

static void check(sqlite3 *db, const char *name, const char *sql,
                  const char *want) {
  char got[512];
  query(db, sql, got, sizeof got);
  report(name, got, want);
}

static sqlite3 *open_memory(void) {
  sqlite3 *db = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    printf("static: cannot open a database: %s\n", sqlite3_errmsg(db));
    return NULL;
  }
  return db;
}

int main(void) {
  if (sqlite3_auto_extension((void (*)(void))sqlite3_quant_init) != SQLITE_OK) {
    printf("static: sqlite3_auto_extension failed\n");
    return 1;
  }
  sqlite3 *db = open_memory();
  if (!db) return 1;

  check(db, "version", "SELECT q_version()", SQLITE_QUANT_VERSION);
  check(db, "info-version", "SELECT json_extract(q_info(), '$.version')",
        SQLITE_QUANT_VERSION);
  /* Compiled with SQLITE_CORE, the extension reports the SQLite it was
  ** compiled against, which is the one linked here. */
  check(db, "info-sqlite", "SELECT json_extract(q_info(), '$.sqlite')",
        sqlite3_libversion());
  check(db, "info-kernels-first",
        "SELECT json_extract(q_info(), '$.kernels[0]')", "scalar");
  check(db, "info-kernel-listed",
        "SELECT count(*) FROM json_each(q_info(), '$.kernels') "
        "WHERE value = json_extract(q_info(), '$.kernel')",
        "1");

  check(db, "quantize-int8",
        "SELECT hex(quantize_blob(q_f32('[0.5, -1.0, 0.02, 1.5]'), 0.01, 0, "
        "'int8'))",
        "329C027F");
  check(db, "round-trip-int8",
        "SELECT q_json(dequantize_blob(quantize_blob("
        "q_f32('[0.5, -1.0, 0.02, 1.5]'), 0.01, 0, 'int8'), 0.01, 0, 'int8'))",
        "[0.5,-1,0.02,1.27]");
  check(db, "quantize-uint4",
        "SELECT hex(quantize_blob(q_f32('[0.5, -1.0, 0.25, 2.0]'), 0.25, 8, "
        "'uint4'))",
        "4AF9");
  check(db, "quantize-per-channel",
        "SELECT hex(quantize_per_channel_blob(q_f32('[[0.5, -1], [0.25, 2]]'), "
        "'[0.01, 0.02]', '[0, 0]', '[2, 2]', 1, 'int8'))",
        "32CE1964");
  check(db, "bad-scale", "SELECT quantize_blob(q_f32('[1]'), 'x', 0)",
        "error: quantize_blob: scale must be a number, got text");

  /* Extension loading was never enabled: the functions above are linked in. */
  check(db, "no-loading", "SELECT load_extension('quant')",
        "error: not authorized");

  /* Every connection opened later gets the functions too... */
  sqlite3 *second = open_memory();
  if (!second) return 1;
  check(second, "second-connection", "SELECT q_version()",
        SQLITE_QUANT_VERSION);
  sqlite3_close(second);

  /* ...until the registration is cancelled. */
  sqlite3_cancel_auto_extension((void (*)(void))sqlite3_quant_init);
  sqlite3 *plain = open_memory();
  if (!plain) return 1;
  check(plain, "cancelled", "SELECT q_version()",
        "error: no such function: q_version");
  sqlite3_close(plain);

  /* The entry point without files, for every connection to come. */
  const char *path_entries =
      "SELECT (SELECT count(DISTINCT name) FROM pragma_function_list "
      "WHERE name IN ('q_gguf_write', 'q_safetensors_write')) || ' ' || "
      "(SELECT count(*) FROM pragma_module_list "
      "WHERE name IN ('q_tensors_file', 'q_tensor_metadata_file', "
      "'q_safetensors_write', 'q_gguf_write', 'q_npz_write'))";
  check(db, "init-has-path-entries", path_entries, "2 5");
  if (sqlite3_auto_extension((void (*)(void))sqlite3_quant_nofs_init) !=
      SQLITE_OK) {
    printf("static: sqlite3_auto_extension failed\n");
    return 1;
  }
  sqlite3 *nofs = open_memory();
  if (!nofs) return 1;
  check(nofs, "nofs-files", "SELECT json_extract(q_info(), '$.files')", "0");
  check(nofs, "nofs-path-entries", path_entries, "0 0");
  check(nofs, "nofs-no-such-table",
        "SELECT count(*) FROM q_tensors_file('/etc/hostname')",
        "error: no such table: q_tensors_file");
  check(nofs, "nofs-no-such-writer",
        "INSERT INTO q_gguf_write (path, name, data, type, shape) "
        "VALUES ('x.gguf', 'w', X'0000803F', 'f32', '[1]')",
        "error: no such table: q_gguf_write");
  check(nofs, "nofs-quantize-int8",
        "SELECT hex(quantize_blob(q_f32('[0.5, -1.0, 0.02, 1.5]'), 0.01, 0, "
        "'int8'))",
        "329C027F");
  sqlite3_close(nofs);
  sqlite3_cancel_auto_extension((void (*)(void))sqlite3_quant_nofs_init);

  /* Called on a connection that has the path entries, it removes them. */
  char *err = NULL;
  int rc = sqlite3_quant_nofs_init(db, &err, NULL);
  report("nofs-on-init-connection", rc == SQLITE_OK ? "ok" : err ? err : "?",
         "ok");
  sqlite3_free(err);
  check(db, "nofs-removed-path-entries", path_entries, "0 0");
  check(db, "nofs-removed-files", "SELECT json_extract(q_info(), '$.files')",
        "0");

  sqlite3_close(db);
  printf("static: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
