/*
** main.c: sqlite-quant, the command-line tool (docs/CLI.md).
**
**   sqlite-quant COMMAND [OPTIONS] ARGS   run one command
**   sqlite-quant --help | help [COMMAND]  the commands, or one's usage
**   sqlite-quant --version                the tool's, the extension's and
**                                         SQLite's versions
**
** Each command is a cli_command (cli.h) in its own file; this file only
** finds it.
*/
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "cli.h"
#include "sqlite_quant.h"

static const cli_command *const cli_commands[] = {
  &cli_info_command,
  &cli_compare_command,
  &cli_quantize_command,
};
enum { CLI_NCOMMANDS = sizeof cli_commands / sizeof cli_commands[0] };

static const cli_command *cli_find(const char *name) {
  for (int i = 0; i < CLI_NCOMMANDS; i++)
    if (strcmp(cli_commands[i]->name, name) == 0) return cli_commands[i];
  return NULL;
}

static void cli_help(FILE *out) {
  fputs("usage: sqlite-quant COMMAND [OPTIONS] ARGS\n"
        "\n"
        "Quantizes and inspects model files with the sqlite-quant SQLite\n"
        "extension linked in.\n"
        "\n"
        "commands:\n", out);
  for (int i = 0; i < CLI_NCOMMANDS; i++)
    fprintf(out, "  %-10s %s\n", cli_commands[i]->name,
            cli_commands[i]->summary);
  fputs("\n"
        "'sqlite-quant COMMAND --help' shows a command's options.\n"
        "  --version  the versions of the tool, the extension and SQLite\n",
        out);
}

static int cli_version(void) {
  sqlite3 *db = cli_open("version");
  if (!db) return CLI_FAILED;
  sqlite3_stmt *s = cli_prepare(
      db, "version", "SELECT json_extract(q_info(), '$.kernel')");
  int rc = CLI_FAILED;
  if (s && sqlite3_step(s) == SQLITE_ROW) {
    printf("sqlite-quant %s (SQLite %s, kernels %s)\n", SQLITE_QUANT_VERSION,
           sqlite3_libversion(), (const char *)sqlite3_column_text(s, 0));
    rc = CLI_OK;
  } else if (s) {
    rc = cli_fail_db("version", db);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rc;
}

int main(int argc, char **argv) {
#if defined(__GLIBC__)
  /* The commands allocate and free buffers of tens of MB per chunk; glibc
  ** would map each afresh (its threshold stops at 32 MB) and the kernel
  ** would clear every page again.  The tool owns its process, so it keeps
  ** them on the heap for reuse (what a host of the extension decides for
  ** itself). */
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  if (argc < 2) {
    cli_help(stderr);
    return CLI_USAGE;
  }
  const char *name = argv[1];
  if (cli_is_help(name)) {
    cli_help(stdout);
    return CLI_OK;
  }
  if (strcmp(name, "--version") == 0) return cli_version();
  if (strcmp(name, "help") == 0) {
    if (argc == 2) {
      cli_help(stdout);
      return CLI_OK;
    }
    const cli_command *c = cli_find(argv[2]);
    if (!c) {
      fprintf(stderr, "sqlite-quant: no command '%s'\n"
                      "try 'sqlite-quant --help'\n", argv[2]);
      return CLI_USAGE;
    }
    fputs(c->usage, stdout);
    return CLI_OK;
  }
  const cli_command *c = cli_find(name);
  if (!c) {
    fprintf(stderr, "sqlite-quant: no command '%s'\n"
                    "try 'sqlite-quant --help'\n", name);
    return CLI_USAGE;
  }
  return c->run(argc - 1, argv + 1);
}
