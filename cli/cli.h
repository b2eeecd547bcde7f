/*
** cli.h: what the commands of the sqlite-quant command-line tool share
** (docs/CLI.md).
**
** The tool is the extension linked in (sqlite3_quant_init on an in-memory
** connection) and SQL: every command is a few statements over the same
** functions a SQL user calls, so the tool can do nothing the extension
** cannot, and its errors are the extension's.
**
** Exit codes, for every command:
**   0  done;
**   1  the work failed (a file that cannot be read, a bad tensor, ...):
**      one line on stderr, "sqlite-quant: COMMAND: what";
**   2  the command line is wrong: the line, then "try 'sqlite-quant
**      COMMAND --help'".
*/
#ifndef SQLITE_QUANT_CLI_H
#define SQLITE_QUANT_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* One command: its name, a one-line summary for the tool's --help, its own
** usage text (printed by COMMAND --help) and what runs it, with argv[0] the
** command's name. */
typedef struct cli_command {
  const char *name;
  const char *summary;
  const char *usage;
  int (*run)(int argc, char **argv);
} cli_command;

extern const cli_command cli_info_command;
extern const cli_command cli_compare_command;
extern const cli_command cli_quantize_command;

/* An in-memory connection with the extension registered, or NULL after
** saying why (as cli_fail). */
sqlite3 *cli_open(const char *command);

/* The statement sql on db, or NULL after saying why. */
sqlite3_stmt *cli_prepare(sqlite3 *db, const char *command, const char *sql);

/* "sqlite-quant: COMMAND: message" on stderr; returns CLI_FAILED.  A message
** from the extension loses its function's prefix ("q_tensors_file: "), which
** names an implementation detail, not something the user typed. */
int cli_fail(const char *command, const char *message);
/* Where cli_fail writes (NULL, the default: stderr); a fuzzer sends the
** messages of its millions of bad inputs elsewhere. */
void cli_set_errors(FILE *f);
/* message without the leading function prefix cli_fail drops. */
const char *cli_message(const char *message);
/* The same with db's last error as the message. */
int cli_fail_db(const char *command, sqlite3 *db);
/* A bad command line: the message, then the pointer to --help; returns
** CLI_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Ctrl-C while a command works on db: sqlite3_interrupt makes the running
** step return SQLITE_INTERRUPT (the sqlite3 shell does the same), and the
** command unwinds as on any error, so nothing is left half done (a file
** being written never appears).  cli_interrupted says whether it came;
** the command then exits with 130, as a shell expects of SIGINT. */
void cli_catch_interrupt(sqlite3 *db);
/* Another connection the same Ctrl-C interrupts (a worker thread's). */
void cli_interrupt_also(sqlite3 *db);
void cli_release_interrupt(void);
int cli_interrupted(void);

/* Whether arg is -h or --help. */
int cli_is_help(const char *arg);

/* Text from a file (a tensor's name, a metadata key) to a terminal: bytes
** below 0x20 and 0x7f as \xNN and a backslash as \\, so a file cannot send
** control sequences to the user's terminal; the rest (UTF-8 included) as
** is.  Returns the number of columns written, counting a UTF-8 sequence as
** one (for aligning tables). */
int cli_put_text(FILE *out, const char *s);
/* JSON text the extension made (a metadata value), which escapes what a
** terminal could act on, as it is: only a control byte, which JSON text
** never holds, would be written as \xNN.  Returns the columns, as
** cli_put_text; with out NULL, only counts them. */
int cli_put_json_text(FILE *out, const char *s);
/* The columns cli_put_text would write for s. */
int cli_text_width(const char *s);
/* s as a JSON string, quotes included. */
void cli_put_json_string(FILE *out, const char *s);

/* The float32 at p, little-endian (as the extension's BLOBs hold them),
** on any host. */
float cli_le_f32(const unsigned char *p);

/* The elements of a shape in the extension's JSON form ("[2,3]"; "[]" is
** a scalar: 1).  The extension bounds every shape it reads, so the
** product fits. */
uint64_t cli_shape_elements(const char *shape);
/* A copy of a text column (sqlite3_free it), or NULL for NULL or when
** memory is short (the caller tells them apart by the column's type). */
char *cli_dup_column(sqlite3_stmt *s, int col);

#endif /* SQLITE_QUANT_CLI_H */
