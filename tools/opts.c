/* The table-driven option parser (opts.h). */
#include "opts.h"
#include "cli.h"

#include <string.h>

static const cli_opt *by_long(const cli_opt *t, const char *name)
{
    for (; t->id; t++)
        if (t->name && !strcmp(t->name, name))
            return t;
    return NULL;
}

static const cli_opt *by_short(const cli_opt *t, char c)
{
    for (; t->id; t++)
        if (t->short_name == c)
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
        if (o->takes_value) {
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
        if (o->takes_value && take_value(a, cmd, s, NULL))
            return OPT_ERR;
        return o->id;
    }
    a->group = s + 1;
    return opt_next(a, cmd, table);
}
