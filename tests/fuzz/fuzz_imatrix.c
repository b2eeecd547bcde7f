/*
** fuzz_imatrix.c: libFuzzer target for the command-line tool's importance
** matrix reader (cli/imatrix.c): untrusted bytes as an --imatrix file, GGUF
** (through the extension's reader, in SQL) or legacy (the tool's own
** parser).
**
**   make fuzz            (clang, libFuzzer + ASan + UBSan)
**
** Each input is written to a file and loaded twice, once keeping every
** entry and once with an --include-weights filter; either must succeed or
** fail with a message, and every entry it keeps must hold n >= 1 values, a
** name, and (filtered) a name containing the filter.  The seeds
** (tests/fuzz/corpus/imatrix) are a GGUF imatrix and a legacy one of a tiny
** model with experts, from tests/llama/gen_imatrix.py.  At exit it prints
** how many inputs gave entries: tests/fuzz/ci.sh fails a run where none did
** (a fuzzer that gets nothing back tests nothing).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../cli/cli.h"
#include "../../cli/imatrix.h"

static sqlite3 *db;
static char path[64];
static unsigned long loaded, inputs;

static void check(int ok) {
  if (!ok) abort();
}

static void report(void) {
  fprintf(stderr, "fuzz_imatrix: %lu of %lu inputs gave entries\n", loaded, inputs);
  if (path[0]) unlink(path);
}

/* The connection lives as long as the process: opened before the first
** input, so the leak check does not count it against one. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  static FILE *sink;
  sink = fopen("/dev/null", "w");
  cli_set_errors(sink);
  db = cli_open("fuzz");
  check(db != NULL);
  snprintf(path, sizeof path, "/tmp/fuzz_imatrix.%ld", (long)getpid());
  atexit(report);
  return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  check(f != NULL);
  check(fwrite(data, 1, size, f) == size);
  check(fclose(f) == 0);
  inputs++;
  char *filter[] = {"attn"};
  for (int pass = 0; pass < 2; pass++) {
    cli_imatrix m;
    int rc = cli_imatrix_load(db, "fuzz", path, pass ? filter : NULL, pass, NULL, 0, &m);
    check(rc == CLI_OK || rc == CLI_FAILED);
    if (rc == CLI_OK) {
      for (int i = 0; i < m.n; i++) {
        check(m.entries[i].name != NULL && m.entries[i].n >= 1);
        check(!pass || strstr(m.entries[i].name, "attn") != NULL);
        check(cli_imatrix_find(&m, m.entries[i].name) != NULL);
      }
      if (!pass && m.n) loaded++;
      cli_imatrix_free(&m);
    }
  }
  return 0;
}
