/* The table-driven option parser, and the --help list from its table
 * (opts.h). */
#include "opts.h"
#include "cli.h"

#include <string.h>

/* OPT_UNLISTED: a marker known by its address, so that no help text,
 * not even an empty one, can be taken for it */
const char opt_unlisted[] = "";

/* Rows with an id below 0 are only shown (opts.h) */
static const cli_opt *by_long(const cli_opt *t, const char *name)
{
    for (; t->id; t++)
        if (t->id > 0 && t->name && !strcmp(t->name, name))
            return t;
    return NULL;
}

static const cli_opt *by_short(const cli_opt *t, char c)
{
    for (; t->id; t++)
        if (t->id > 0 && t->short_name == c)
            return t;
    return NULL;
}

static int take_value(cli_args *a, const char *cmd, const char *shown, const char *attached)
{
    if (attached && *attached) {
        a->value = attached;
        return 0;
    }
    if (a->i >= a->argc) {
        usage_error(cmd, "%s needs an argument", shown);
        return -1;
    }
    a->value = a->argv[a->i++];
    return 0;
}

int opt_next(cli_args *a, const char *cmd, const cli_opt *table)
{
    if (a->group && *a->group) { /* the rest of "-Ci" */
        char c = *a->group++;
        const cli_opt *o = by_short(table, c);
        char shown[3] = {'-', c, 0};
        if (!o) {
            usage_error(cmd, "unknown option '%s'", shown);
            return OPT_ERR;
        }
        if (o->value) {
            const char *rest = a->group;
            a->group = NULL;
            return take_value(a, cmd, shown, rest) ? OPT_ERR : o->id;
        }
        return o->id;
    }
    a->group = NULL;
    if (a->i >= a->argc)
        return OPT_END;
    const char *s = a->argv[a->i++];
    if (a->operands_only || s[0] != '-' || !s[1]) { /* "-" is an operand (standard input/output) */
        a->value = s;
        return OPT_POS;
    }
    if (!strcmp(s, "--")) {
        a->operands_only = 1;
        return opt_next(a, cmd, table);
    }
    if (!strcmp(s, "-h") || !strcmp(s, "--help"))
        return OPT_HELP;
    if (s[1] == '-') {
        const cli_opt *o = by_long(table, s);
        if (!o) {
            usage_error(cmd, "unknown option '%s'", s);
            return OPT_ERR;
        }
        if (o->value && take_value(a, cmd, s, NULL))
            return OPT_ERR;
        return o->id;
    }
    a->group = s + 1;
    return opt_next(a, cmd, table);
}

const cli_opt *opt_match(const cli_opt *table, const char *arg, const char **attached)
{
    *attached = NULL;
    if (arg[0] != '-' || !arg[1])
        return NULL;
    if (arg[1] == '-')
        return by_long(table, arg);
    if (arg[2])
        *attached = arg + 2;
    return by_short(table, arg[1]);
}

/* s appended at buf[*n] (cut at cap - 1: the names of one line) */
static void append(char *buf, size_t *n, size_t cap, const char *s)
{
    while (*s && *n + 1 < cap)
        buf[(*n)++] = *s++;
    buf[*n] = 0;
}

/* A row's names as --help shows them: "-o OUT", "--sm=N", "-j N, --jobs=N".
 * A short option's value always follows a space ("-j N"). */
static void row_names(char *buf, size_t *n, size_t cap, const cli_opt *r)
{
    const char *v = r->value;
    if (r->short_name) {
        char s[3] = {'-', r->short_name, 0};
        append(buf, n, cap, s);
        if (v) {
            append(buf, n, cap, " ");
            append(buf, n, cap, v + (*v == '='));
        }
        if (r->name)
            append(buf, n, cap, ", ");
    }
    if (r->name) {
        append(buf, n, cap, r->name);
        if (v) {
            append(buf, n, cap, *v == '=' ? "" : " ");
            append(buf, n, cap, v);
        }
    }
}

static void spaces(obuf *o, int n)
{
    while (n-- > 0)
        ob_putc(o, ' ');
}

/* help from column: each line after the first indented to it (an empty
 * line is left empty, no trailing blanks) */
static void help_lines(obuf *o, const char *help, int column)
{
    for (const char *nl; (nl = strchr(help, '\n')); help = nl + 1) {
        ob_write(o, help, (size_t)(nl - help) + 1);
        if (nl[1] && nl[1] != '\n')
            spaces(o, column);
    }
    ob_puts(o, help);
    ob_putc(o, '\n');
}

void opt_list(obuf *o, const cli_opt *table, int column)
{
    char names[512];
    size_t n = 0;
    for (const cli_opt *r = table; r->id; r++) {
        if (r->help == OPT_UNLISTED)
            continue;
        if (n)
            append(names, &n, sizeof names, ", ");
        row_names(names, &n, sizeof names, r);
        if (!r->help)
            continue; /* its names lead the next row's line */
        ob_puts(o, "  ");
        ob_write(o, names, n);
        int used = 2 + (int)n;
        if (used + 2 > column) { /* no room for two spaces: the help under the column */
            ob_putc(o, '\n');
            used = 0;
        }
        spaces(o, column - used);
        help_lines(o, r->help, column);
        n = 0;
    }
}

void opt_help(obuf *o, const char *head, const cli_opt *table, int column, const char *tail)
{
    ob_puts(o, head);
    opt_list(o, table, column);
    if (tail)
        ob_puts(o, tail);
}
