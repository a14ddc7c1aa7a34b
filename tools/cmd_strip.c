/* cudwarf strip: the cubin without its debug sections (cudw_strip_run),
 * and with --keep-debug the removed information in a companion file that
 * the other commands read beside it (--debug-file). */
#include "cli.h"
#include "opts.h"

#include <errno.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf strip -o OUT [--keep-debug=DBG] [--stats] IN.cubin\n"
    "\n"
    "Remove every debug section (DWARF, NVIDIA's, their Mercury twins) and the\n"
    "relocation sections aimed at them; everything else stays byte for byte,\n"
    "with the same section indexes (removed ones leave empty headers), so the\n"
    "cubin loads as before.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "Both files are written whole or not at all.\n"
    "\n"
    "Exit status: 0 success, 1 unreadable or malformed input (nothing written),\n"
    "2 usage.\n";

static const cli_opt table[] = {
    {NULL, 'o', "OUT", 1, "the stripped cubin (IN itself: stripped in place, as\n"
                          "binutils' strip does)"},
    {"--keep-debug", 0, "=DBG", 2, "also write the removed information to DBG, a companion\n"
                                   "that lines, addr2line, dump, verify, correlate and\n"
                                   "pubnames read beside OUT (--debug-file DBG):\n"
                                   "  cudwarf lines --debug-file DBG OUT\n"
                                   "  cudwarf addr2line --debug-file DBG -e OUT SYM+0xOFF"},
    {"--stats", 0, NULL, 3, "sections and bytes removed (stderr)"},
    {"--output", 0, "OUT", 1, OPT_UNLISTED}, /* -o's long name, never listed */
    {0}};

int cmd_strip(int argc, char **argv)
{
    const char *out = NULL, *dbg = NULL, *in_path = NULL;
    int stats = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "strip", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 21, help_tail); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case 1: out = a.value; break;
        case 2: dbg = a.value; break;
        case 3: stats = 1; break;
        case OPT_POS:
            if (in_path) {
                usage_error("strip", "one input at a time");
                return EXIT_USAGE;
            }
            in_path = a.value;
            break;
        }
    }
    /* -o may name the input (stripped in place, as binutils' strip does);
     * the companion may not: it would replace the code or the input */
    if (!out || !in_path || (dbg && (!*dbg || !strcmp(dbg, out) || same_file(dbg, out) || same_file(dbg, in_path)))) {
        usage_error("strip", !in_path ? "no input file" : !out ? "no output file (-o OUT)"
                                                               : "--keep-debug needs a file of its own (not the input or OUT)");
        return EXIT_USAGE;
    }
    cudw_file *f;
    if (cudw_open(&f, in_path) != CUDW_OK) {
        if (f && cudw_last_error(f)->code == CUDW_E_NOT_CUDA)
            /* a changed copy of a host ELF that still holds its cubins' debug
             * information would help nobody: say what to do instead */
            eprintf("%s: %s: a host ELF, not a cubin: strip takes a cubin (cudwarf extract writes the cubins "
                    "a host ELF holds)\n", progname, in_path);
        else if (f)
            report(f, in_path);
        else
            eprintf("%s: %s: out of memory\n", progname, in_path);
        cudw_close(f);
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_BAD_INPUT;
    cudw_strip *s = NULL;
    cudw_link *L = NULL;
    atomic_file fo = {0}, fd = {0};
    int open_o = 0, open_d = 0;
    char e[512];
    if (cudw_strip_run(f, &s) != CUDW_OK) {
        report(f, in_path);
        goto done;
    }
    if (dbg) {
        cudw_link_opts o = {.keep_debug = 1};
        if (cudw_link_run(&f, 1, &o, &L) != CUDW_OK) {
            char b[512] = "out of memory";
            if (L)
                cudw_error_format(cudw_link_error(L, NULL), b, sizeof b);
            eprintf("%s: %s: %s\n", progname, in_path, b);
            goto done;
        }
        if (atomic_open(&fd, dbg, e, sizeof e)) {
            eprintf("%s: strip: %s\n", progname, e);
            goto done;
        }
        open_d = 1;
        if (cudw_link_write(L, atomic_write, &fd) != CUDW_OK && !fd.failed)
            fd.failed = EIO;
    }
    if (atomic_open(&fo, out, e, sizeof e)) {
        eprintf("%s: strip: %s\n", progname, e);
        goto done;
    }
    open_o = 1;
    if (cudw_strip_write(s, atomic_write, &fo) != CUDW_OK && !fo.failed)
        fo.failed = EIO;
    /* both or neither: a failed write of either removes both */
    if (fo.failed || (open_d && fd.failed)) {
        eprintf("%s: strip: %s: %s\n", progname, fo.failed ? out : dbg,
                strerror(fo.failed ? fo.failed : fd.failed));
        goto done;
    }
    if (open_d) {
        open_d = 0;
        if (atomic_commit(&fd, e, sizeof e)) {
            eprintf("%s: strip: %s\n", progname, e);
            goto done;
        }
    }
    open_o = 0;
    if (atomic_commit(&fo, e, sizeof e)) {
        eprintf("%s: strip: %s\n", progname, e);
        if (dbg)
            remove(dbg);
        goto done;
    }
    if (stats) {
        size_t bytes, n = cudw_strip_removed(s, &bytes);
        eprintf("%s: %zu debug and relocation sections removed (%zu bytes); %llu -> %llu bytes%s%s\n",
                out, n, bytes, (unsigned long long)cudw_header(f)->size,
                (unsigned long long)cudw_strip_size(s), dbg ? "; companion " : "", dbg ? dbg : "");
    }
    rc = EXIT_OK;
done:
    if (open_o)
        atomic_abort(&fo);
    if (open_d)
        atomic_abort(&fd);
    cudw_link_close(L);
    cudw_strip_close(s);
    cudw_close(f);
    return rc;
}
