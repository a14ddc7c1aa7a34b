/* One table-driven option parser for every command (docs/cli.md has the
 * rules every command follows).
 *
 *     static const cli_opt table[] = {
 *         {"--json", 0, 0, O_JSON},
 *         {"--output", 'o', 1, O_OUT},
 *         {0}};
 *     cli_args a = {argc, argv, 1};
 *     for (int id; (id = opt_next(&a, "correlate", table)) != OPT_END;)
 *         switch (id) { case O_JSON: ...; case O_OUT: use(a.value); ...;
 *                       case OPT_POS: a positional argument in a.value;
 *                       case OPT_ERR: return EXIT_USAGE; }  (the message is out)
 *
 * One pass over argv; options and operands mix; "--" ends the options;
 * "-o V", "-oV", "--output V" (main turned "--output=V" into that); short
 * flags group ("-Ci").  -h/--help is OPT_HELP. */
#ifndef CUDW_TOOLS_OPTS_H
#define CUDW_TOOLS_OPTS_H

typedef struct cli_opt {
    const char *name;   /* "--long", or NULL for a short-only option */
    char short_name;    /* 'o', or 0 */
    int takes_value;
    int id;             /* > 0 */
} cli_opt;

typedef struct cli_args {
    int argc;
    char **argv;
    int i;              /* the next argument (start at 1: argv[0] is the command) */
    const char *value;  /* the option's value, or the operand */
    const char *group;  /* inside "-Ci": the flags still to hand out */
    int operands_only;  /* after "--" */
} cli_args;

enum { OPT_END = 0, OPT_POS = -1, OPT_ERR = -2, OPT_HELP = -3 };

int opt_next(cli_args *a, const char *cmd, const cli_opt *table);

#endif
