/* cudwarf remap: the source paths of a cubin, or of every cubin in a
 * fatbin or host ELF, rewritten (cudw_remap_run over cudw_input_rewrite),
 * what nvcc offers no -fdebug-prefix-map for. */
#include "cli.h"
#include "opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char help_head[] =
    "usage: cudwarf remap --prefix OLD=NEW [--prefix OLD=NEW]... -o OUT [--stats] IN\n"
    "\n"
    "Rewrite the source paths of a cubin, as GCC's -fdebug-prefix-map does at\n"
    "compile time: every path that starts with OLD (include directories and\n"
    "file names of the line tables, .debug_line and .nv_debug_line_sass and\n"
    "their Mercury twins; DW_AT_name and DW_AT_comp_dir of each compile unit)\n"
    "gets NEW instead.  The first --prefix that matches wins.  What follows a\n"
    "string that changed length moves with it (lengths, DW_AT_stmt_list, DIE\n"
    "references, name tables, relocations); everything else stays byte for\n"
    "byte, so the cubin loads, links (nvlink -g) and reads as before.\n"
    "\n"
    "IN may also be a fatbin or a host ELF (executable, object, .so): each\n"
    "container with a changed cubin is packed again, compression kept, in its\n"
    "old place.  A host ELF's layout cannot move, so there a container must\n"
    "not grow: a NEW no longer than OLD (or remapping the cubins before\n"
    "linking) always fits.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "Exit status: 0 success, 1 unreadable or malformed input (nothing written),\n"
    "2 usage.\n";

typedef struct rctx {
    const char **from, **to;
    size_t nrules;
    size_t strings, images;   /* rewritten */
    const char *failed;       /* the label of the image that failed */
} rctx;

typedef struct counted {
    atomic_file *a;
    uint64_t n;
} counted;

static int write_counted(void *p, const void *data, size_t n)
{
    counted *c = p;
    c->n += n;
    return atomic_write(c->a, data, n);
}

static int to_buffer(void *p, const void *data, size_t n)
{
    uint8_t **at = p;
    memcpy(*at, data, n);
    *at += n;
    return 0;
}

/* cudw_input_rewrite's callback: the image remapped, or kept when no path
 * changes. */
static int remap_image(void *p, const cudw_input_image *im, cudw_file *elf, uint8_t **out, size_t *out_size,
                       cudw_error *err)
{
    rctx *c = p;
    cudw_remap *r;
    *out = NULL;
    if (cudw_remap_run(elf, c->from, c->to, c->nrules, &r) != CUDW_OK) {
        *err = *cudw_last_error(elf);
        c->failed = im->label;
        return err->code;
    }
    int rc = CUDW_OK;
    if (cudw_remap_strings(r)) {
        uint64_t n = cudw_remap_size(r);
        uint8_t *buf = malloc(n ? (size_t)n : 1), *at = buf;
        if (!buf || cudw_remap_write(r, to_buffer, &at) != CUDW_OK) {
            free(buf);
            memset(err, 0, sizeof *err);
            err->code = rc = CUDW_E_NOMEM;
            err->what = "remap";
            snprintf(err->detail, sizeof err->detail, "out of memory");
            c->failed = im->label;
        } else {
            *out = buf;
            *out_size = (size_t)n;
            c->strings += cudw_remap_strings(r);
            c->images++;
        }
    }
    cudw_remap_close(r);
    return rc;
}

static const cli_opt table[] = {
    {"--prefix", 0, "OLD=NEW", 2, "a rule (OLD may not be empty; NEW may)"},
    {NULL, 'o', "OUT", 1, "the result, written whole or not at all"},
    {"--stats", 0, NULL, 3, "how many paths changed, and the sizes (stderr)"},
    {"--output", 0, "OUT", 1, OPT_UNLISTED}, /* -o's long name, never listed */
    {0}};

int cmd_remap(int argc, char **argv)
{
    const char *out = NULL, *in_path = NULL;
    int stats = 0;
    size_t nrules = 0;
    const char **from = calloc((size_t)argc, sizeof *from), **to = calloc((size_t)argc, sizeof *to);
    char **owned = calloc((size_t)argc, sizeof *owned);
    int rc = EXIT_USAGE;
    cudw_input *in = NULL;
    atomic_file fo = {0};
    int open_o = 0;
    if (!from || !to || !owned) {
        eprintf("%s: out of memory\n", progname);
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "remap", table)) != OPT_END;) {
        const char *eq;
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 21, help_tail); rc = EXIT_OK; goto done;
        case OPT_ERR: goto done;
        case 1: out = a.value; break;
        case 2: /* (main splits --prefix=OLD=NEW) */
            eq = strchr(a.value, '=');
            if (!eq || eq == a.value) {
                usage_error("remap", "--prefix takes OLD=NEW with OLD not empty, not '%s'", a.value);
                goto done;
            }
            if (!(owned[nrules] = strndup(a.value, (size_t)(eq - a.value)))) {
                eprintf("%s: out of memory\n", progname);
                rc = EXIT_BAD_INPUT;
                goto done;
            }
            from[nrules] = owned[nrules];
            to[nrules++] = eq + 1;
            break;
        case 3: stats = 1; break;
        case OPT_POS:
            if (in_path) {
                usage_error("remap", "one input at a time");
                goto done;
            }
            in_path = a.value;
            break;
        }
    }
    if (!in_path || !out || !nrules) {
        usage_error("remap", !in_path ? "no input file" : !out ? "no output file (-o OUT)"
                                                               : "no --prefix OLD=NEW");
        goto done;
    }
    rc = EXIT_BAD_INPUT;
    in = open_input(in_path);
    if (!in)
        goto done;
    if (!cudw_input_count(in)) {
        eprintf("%s: %s: no CUDA device code (no fatbin container in any section)\n", progname, in_path);
        goto done;
    }
    char e[512];
    if (atomic_open(&fo, out, e, sizeof e)) {
        eprintf("%s: remap: %s\n", progname, e);
        goto done;
    }
    open_o = 1;
    rctx c = {from, to, nrules, 0, 0, NULL};
    counted w = {&fo, 0};
    cudw_error err;
    if (cudw_input_rewrite(in, remap_image, &c, write_counted, &w, &err) != CUDW_OK) {
        if (fo.failed) {
            eprintf("%s: remap: %s: %s\n", progname, out, strerror(fo.failed));
        } else {
            char b[512];
            cudw_error_format(&err, b, sizeof b);
            eprintf("%s: %s: %s\n", progname, c.failed ? c.failed : in_path, b);
        }
        goto done;
    }
    open_o = 0;
    if (atomic_commit(&fo, e, sizeof e)) {
        eprintf("%s: remap: %s\n", progname, e);
        goto done;
    }
    if (stats) {
        struct stat st;
        eprintf("%s: %zu path%s rewritten in %zu image%s; %llu -> %llu bytes\n", out, c.strings,
                c.strings == 1 ? "" : "s", c.images, c.images == 1 ? "" : "s",
                stat(in_path, &st) ? 0ull : (unsigned long long)st.st_size, (unsigned long long)w.n);
    }
    rc = EXIT_OK;
done:
    if (open_o)
        atomic_abort(&fo);
    cudw_input_close(in);
    for (size_t k = 0; owned && k < nrules; k++)
        free(owned[k]);
    free(owned);
    free(from);
    free(to);
    return rc;
}
