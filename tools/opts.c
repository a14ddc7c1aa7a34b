/* The table-driven option parser, and the --help list from its table
 * (opts.h). */
#include "opts.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* OPT_UNLISTED: a marker known by its address, so that no help text,
 * not even an empty one, can be taken for it */
const char opt_unlisted[] = "";

/* The row of "--name" or "--name=value" (*eq: the value, or NULL).  Rows
 * with an id below 0 are only shown (opts.h). */
static const cli_opt *by_long(const cli_opt *t, const char *arg, const char **eq)
{
    const char *e = strchr(arg, '=');
    size_t n = e ? (size_t)(e - arg) : strlen(arg);
    *eq = e ? e + 1 : NULL;
    for (; t->id; t++)
        if (t->id > 0 && t->name && !strncmp(t->name, arg, n) && !t->name[n])
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

/* Edit distance of a[0..n) and b (insert, delete, change, swap two
 * neighbours), capped: option names are short */
static size_t distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n > 40 || m > 40)
        return 99;
    size_t d[41][41];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1;
            d[i][j] = c;
        }
    return d[n][m];
}

/* The word of words[0..k) fewest edits from s[0..n) and under bd of them;
 * prefix: a word s begins (of more than 3 bytes) counts as one edit */
static const char *nearest(const char *s, size_t n, const char *const *words, size_t k, size_t bd, int prefix)
{
    const char *best = NULL;
    for (size_t i = 0; i < k; i++) {
        size_t d = prefix && n > 3 && !strncmp(words[i], s, n) ? 1 : distance(s, n, words[i]);
        if (d < bd) {
            bd = d;
            best = words[i];
        }
    }
    return best;
}

/* The listed long option nearest to s[0..n) ("--jsn": "--json", "--lo":
 * "--long"), or NULL: a typo is one or two edits from what was meant */
static const char *nearest_long(const cli_opt *t, const char *s, size_t n)
{
    const char *names[64];
    size_t k = 0;
    for (; t->id && k < sizeof names / sizeof *names; t++)
        if (t->name && t->help != OPT_UNLISTED)
            names[k++] = t->name;
    return nearest(s, n, names, k, n > 5 ? 3 : 2, 1); /* at most 2 edits (1 for a short name) */
}

const char *opt_nearest_word(const char *s, const char *const *words, size_t n)
{
    size_t len = strlen(s);
    return nearest(s, len, words, n, len > 4 ? 3 : 2, 0);
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

/* "--name", "--name=value" or "--name value" */
static int long_option(cli_args *a, const char *cmd, const cli_opt *table, const char *s)
{
    const char *eq;
    const cli_opt *o = by_long(table, s, &eq);
    int n = (int)(eq ? (size_t)(eq - 1 - s) : strlen(s));
    if (!o) {
        const char *near = nearest_long(table, s, (size_t)n);
        if (near)
            usage_error(cmd, "unknown option '%.*s' (did you mean '%s'?)", n, s, near);
        else
            usage_error(cmd, "unknown option '%.*s'", n, s);
        return OPT_ERR;
    }
    if (!o->value && eq) { /* a flag: "--json=compact" is no "--json compact" */
        usage_error(cmd, "option '%.*s' takes no value", n, s);
        return OPT_ERR;
    }
    if (o->value && eq) {
        a->value = eq; /* "--name=" gives the empty value */
        return o->id;
    }
    if (o->value && take_value(a, cmd, s, NULL))
        return OPT_ERR;
    return o->id;
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
    if (s[1] == '-')
        return long_option(a, cmd, table, s);
    a->group = s + 1;
    return opt_next(a, cmd, table);
}

int opt_number(const char *s, int hex, uint64_t max, uint64_t *out)
{
    int base = hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
    const char *d = base == 16 ? s + 2 : s;
    if (!(base == 16 ? ((*d >= '0' && *d <= '9') || (*d >= 'a' && *d <= 'f') || (*d >= 'A' && *d <= 'F'))
                     : (*d >= '0' && *d <= '9')))
        return -1; /* no sign, no blank, a digit first */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(d, &end, base);
    if (*end || errno == ERANGE || v > max)
        return -1;
    *out = v;
    return 0;
}

const cli_opt *opt_match(const cli_opt *table, const char *arg, const char **attached)
{
    *attached = NULL;
    if (arg[0] != '-' || !arg[1])
        return NULL;
    if (arg[1] == '-')
        return by_long(table, arg, attached);
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

const cli_opt *opt_every_command;

/* "Options of every command: --sm=N, -j N, --debug-file DBG (cudwarf
 * --help)": each listed row by its short name when it has one */
static void every_command_line(obuf *o)
{
    const char *sep = "\nOptions of every command: ";
    for (const cli_opt *r = opt_every_command; r->id; r++) {
        if (r->id < 0 || r->help == OPT_UNLISTED)
            continue; /* -h, --help: this very text */
        const char *v = r->value;
        if (r->short_name)
            ob_printf(o, "%s-%c%s%s", sep, r->short_name, v ? " " : "", v ? v + (*v == '=') : "");
        else
            ob_printf(o, "%s%s%s%s", sep, r->name, v && *v != '=' ? " " : "", v ? v : "");
        sep = ", ";
    }
    ob_printf(o, " (%s --help)\n", progname);
}

void opt_help(obuf *o, const char *head, const cli_opt *table, int column, const char *tail)
{
    ob_puts(o, head);
    opt_list(o, table, column);
    if (tail)
        ob_puts(o, tail);
    if (opt_every_command)
        every_command_line(o);
}
