/* One table-driven option parser for every command (docs/cli.md has the
 * rules every command follows), and the option list of its --help, made
 * from the same table: an option cannot be parsed without being listed,
 * or listed without being parsed, unless its row says so.
 *
 *     static const cli_opt table[] = {
 *         {"--json", 0, NULL, O_JSON, "one JSON object per image"},
 *         {"--output", 'o', "OUT", O_OUT, "write there"},
 *         {0}};
 *     cli_args a = {argc, argv, 1};
 *     for (int id; (id = opt_next(&a, "correlate", table)) != OPT_END;)
 *         switch (id) { case O_JSON: ...; case O_OUT: use(a.value); ...;
 *                       case OPT_POS: a positional argument in a.value;
 *                       case OPT_HELP: opt_help(&out_stdout, head, table, 20, tail); ...
 *                       case OPT_ERR: return EXIT_USAGE; }  (the message is out)
 *
 * One pass over argv; options and operands mix; "--" ends the options;
 * "-o V", "-oV", "--output V" (main turned "--output=V" into that); short
 * flags group ("-Ci").  -h/--help is OPT_HELP. */
#ifndef CUDW_TOOLS_OPTS_H
#define CUDW_TOOLS_OPTS_H

#include "out.h"

/* One option, and its row in --help:
 *
 *   {"--section", 0, "NAME", ...}   "--section NAME"
 *   {"--sm", 0, "=N", ...}          "--sm=N" (a value shown with '=')
 *   {"--jobs", 'j', "=N", ...}      "-j N, --jobs=N"
 *   {NULL, 'C', NULL, ...}          "-C"
 *
 * help: the text beside the names, its lines split by '\n' (each later
 * line starts under the first).  NULL: the row's names lead the next row's
 * line ("--loc, --ranges, ..."), which has the help.  OPT_UNLISTED: parsed
 * but not listed; say why beside the row (a compatibility name, an option
 * the prose documents). */
typedef struct cli_opt {
    const char *name;   /* "--long", or NULL for a short-only option */
    char short_name;    /* 'o', or 0 */
    const char *value;  /* the value's name ("NAME", "=N"), or NULL: a flag */
    int id;             /* > 0; or OPT_HELP, OPT_GLOBAL: a row shown, not parsed */
    const char *help;
} cli_opt;

extern const char opt_unlisted[];
#define OPT_UNLISTED opt_unlisted

typedef struct cli_args {
    int argc;
    char **argv;
    int i;              /* the next argument (start at 1: argv[0] is the command) */
    const char *value;  /* the option's value, or the operand */
    const char *group;  /* inside "-Ci": the flags still to hand out */
    int operands_only;  /* after "--" */
} cli_args;

/* What opt_next returns besides a row's id.  As a row's id, OPT_HELP shows
 * -h/--help (which opt_next takes before any table) and OPT_GLOBAL an
 * option of every command (main takes those out of argv: cudwarf.c's
 * table) where this command gives it a meaning of its own, said in the
 * row (docs/cli.md); opt_next never matches such a row. */
enum { OPT_END = 0, OPT_POS = -1, OPT_ERR = -2, OPT_HELP = -3, OPT_GLOBAL = -4 };

int opt_next(cli_args *a, const char *cmd, const cli_opt *table);

/* The row of table that arg names, for a caller that passes other
 * arguments on (main's options of every command): "--long" exactly, or
 * "-s" with *attached the rest ("-j4": "4"; "-j": NULL).  NULL: none. */
const cli_opt *opt_match(const cli_opt *table, const char *arg, const char **attached);

/* The word of words[0..n) a typo away from s ("lnes": "lines"), or NULL */
const char *opt_nearest_word(const char *s, const char *const *words, size_t n);

/* An option's number: decimal digits only (hex too with "0x" when hex),
 * no sign, no blank, at most max.  0, or -1 (the caller says what it
 * expected).  strtoul takes "-1" as its largest value, and "99999999999999999999"
 * as ULONG_MAX. */
int opt_number(const char *s, int hex, uint64_t max, uint64_t *out);

/* The rows of table, one option (or group) a line: two spaces, the names,
 * the help from column on (on the next line when the names reach it). */
void opt_list(obuf *o, const cli_opt *table, int column);

/* The options of every command (main's table), which every command's
 * --help names on its last line; NULL: no such line. */
extern const cli_opt *opt_every_command;

/* A command's --help: head (usage and prose, up to the list), the list,
 * tail (the prose after it; NULL: none), then a blank line and "Options of
 * every command: --sm=N, -j N, ... (cudwarf --help)" from
 * opt_every_command. */
void opt_help(obuf *o, const char *head, const cli_opt *table, int column, const char *tail);

#endif
