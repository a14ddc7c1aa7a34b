/* cudwarf remap: a cubin with its source paths rewritten (cudw_remap_run),
 * what nvcc offers no -fdebug-prefix-map for. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf remap --prefix OLD=NEW [--prefix OLD=NEW]... -o OUT [--stats] IN.cubin\n"
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
    "  --prefix OLD=NEW   a rule (OLD may not be empty; NEW may)\n"
    "  -o OUT             the result, written whole or not at all\n"
    "  --stats            how many paths changed, and the sizes (stderr)\n"
    "\n"
    "Exit status: 0 success, 1 unreadable or malformed input (nothing written), 2 usage.\n";

int cmd_remap(int argc, char **argv)
{
    const char *out = NULL, *in_path = NULL;
    int stats = 0;
    size_t nrules = 0;
    const char **from = calloc((size_t)argc, sizeof *from), **to = calloc((size_t)argc, sizeof *to);
    char **owned = calloc((size_t)argc, sizeof *owned);
    int rc = EXIT_USAGE;
    cudw_file *f = NULL;
    cudw_remap *r = NULL;
    atomic_file fo = {0};
    int open_o = 0;
    if (!from || !to || !owned) {
        eprintf("%s: out of memory\n", progname);
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--prefix")) { /* (main splits --prefix=OLD=NEW) */
            if (++i >= argc) {
                usage_error("remap", "%s needs a value", a);
                goto done;
            }
            if (!strcmp(a, "-o")) {
                out = argv[i];
                continue;
            }
            const char *eq = strchr(argv[i], '=');
            if (!eq || eq == argv[i]) {
                usage_error("remap", "--prefix takes OLD=NEW with OLD not empty, not '%s'", argv[i]);
                goto done;
            }
            owned[nrules] = strndup(argv[i], (size_t)(eq - argv[i]));
            if (!owned[nrules]) {
                eprintf("%s: out of memory\n", progname);
                rc = EXIT_BAD_INPUT;
                goto done;
            }
            from[nrules] = owned[nrules];
            to[nrules++] = eq + 1;
        } else if (!strcmp(a, "--stats")) {
            stats = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ob_puts(&out_stdout, help);
            rc = EXIT_OK;
            goto done;
        } else if (a[0] == '-' && a[1]) {
            usage_error("remap", "unknown option '%s'", a);
            goto done;
        } else if (in_path) {
            usage_error("remap", "one input at a time");
            goto done;
        } else {
            in_path = a;
        }
    }
    if (!in_path || !out || !nrules) {
        usage_error("remap", !in_path ? "no input file" : !out ? "no output file (-o OUT)"
                                                               : "no --prefix OLD=NEW");
        goto done;
    }
    rc = EXIT_BAD_INPUT;
    if (cudw_open(&f, in_path) != CUDW_OK) {
        if (f && cudw_last_error(f)->code == CUDW_E_NOT_CUDA)
            eprintf("%s: %s: a host ELF, not a cubin: remap takes a cubin (cudwarf extract writes the cubins "
                    "a host ELF holds)\n", progname, in_path);
        else if (f)
            report(f, in_path);
        else
            eprintf("%s: %s: out of memory\n", progname, in_path);
        goto done;
    }
    if (cudw_remap_run(f, from, to, nrules, &r) != CUDW_OK) {
        report(f, in_path);
        goto done;
    }
    char e[512];
    if (atomic_open(&fo, out, e, sizeof e)) {
        eprintf("%s: remap: %s\n", progname, e);
        goto done;
    }
    open_o = 1;
    if (cudw_remap_write(r, atomic_write, &fo) != CUDW_OK && !fo.failed)
        fo.failed = EIO;
    if (fo.failed) {
        eprintf("%s: remap: %s: %s\n", progname, out, strerror(fo.failed));
        goto done;
    }
    open_o = 0;
    if (atomic_commit(&fo, e, sizeof e)) {
        eprintf("%s: remap: %s\n", progname, e);
        goto done;
    }
    if (stats)
        eprintf("%s: %zu path%s rewritten; %llu -> %llu bytes\n", out, cudw_remap_strings(r),
                cudw_remap_strings(r) == 1 ? "" : "s", (unsigned long long)cudw_header(f)->size,
                (unsigned long long)cudw_remap_size(r));
    rc = EXIT_OK;
done:
    if (open_o)
        atomic_abort(&fo);
    cudw_remap_free(r);
    cudw_close(f);
    for (size_t k = 0; owned && k < nrules; k++)
        free(owned[k]);
    free(owned);
    free(from);
    free(to);
    return rc;
}
