/* cudwarf link: merge the debug sections of relocatable cubins as
 * nvlink -g does (cudw_link_run), into a debug companion file. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf link -o OUT [--mercury] [--dedup-strings] [--symbols CODE.cubin] [--stats] IN.cubin...\n"
    "\n"
    "Merge the debug information of relocatable device objects (nvcc -dc) the\n"
    "way nvlink -g does: every debug section concatenated in input order,\n"
    "section offsets patched (CU abbrev offsets, DW_AT_stmt_list, location\n"
    "lists, name-index unit offsets, FDE CIE pointers), relocations against\n"
    "functions and data kept with a symbol table of the same names.  Unlike\n"
    "nvlink for sm_90, every line table's .debug_str base word is rebased, so\n"
    "inlined-function names of every input resolve.  OUT is written whole or\n"
    "not at all; cudwarf lines, addr2line and dump read it like any cubin.\n"
    "\n"
    "  -o OUT            the output file (- for standard output)\n"
    "  --mercury         emit every debug section under its .nv.merc. name\n"
    "  --dedup-strings   one copy of each .debug_str string, references rewritten\n"
    "  --symbols FILE    nvlink's output for the same inputs: resolve relocations\n"
    "                    against __shared__ variables from its symbol values (nvlink\n"
    "                    lays out shared memory); without it they are kept\n"
    "  --stats           print what was merged, resolved and kept (stderr)\n"
    "\n"
    "Inputs: ET_REL cubins of one SM.  sm_100 and later: the .nv.merc. twins are\n"
    "merged too; nvlink regenerates the standard-named line tables of Mercury\n"
    "code it finalizes, cudwarf keeps the inputs' (docs/linking.md).\n"
    "\n"
    "Exit status: 0 success, 1 an input is unreadable, malformed or not\n"
    "linkable (nothing written), 2 usage.\n";

typedef struct copy_ctx {
    atomic_file *af;
    int *fds;
} copy_ctx;

static int write_cb(void *ctx, const void *p, size_t n) { return atomic_write(((copy_ctx *)ctx)->af, p, n); }

static int copy_cb(void *ctx, size_t input, uint64_t off, uint64_t n)
{
    copy_ctx *c = ctx;
    return atomic_copy_from(c->af, c->fds[input], off, n);
}

int cmd_link(int argc, char **argv)
{
    const char *out = NULL, *symbols = NULL;
    cudw_link_opts o = {0};
    int stats = 0, nin = 0;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    if (!paths)
        return EXIT_BAD_INPUT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--symbols")) {
            if (++i >= argc) {
                usage_error("link", "%s needs a file name", a);
                free(paths);
                return EXIT_USAGE;
            }
            if (a[1] == 'o')
                out = argv[i];
            else
                symbols = argv[i];
        } else if (!strcmp(a, "--mercury")) {
            o.mercury = 1;
        } else if (!strcmp(a, "--dedup-strings")) {
            o.dedup_strings = 1;
        } else if (!strcmp(a, "--stats")) {
            stats = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ob_puts(&out_stdout, help);
            free(paths);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            usage_error("link", "unknown option '%s'", a);
            free(paths);
            return EXIT_USAGE;
        } else {
            paths[nin++] = a;
        }
    }
    if (!out || !nin) {
        usage_error("link", !out ? "no output file (-o OUT)" : "no input file");
        free(paths);
        return EXIT_USAGE;
    }
    cudw_file **in = calloc((size_t)nin, sizeof *in);
    cudw_file *sym = NULL;
    int rc = EXIT_BAD_INPUT;
    cudw_link *L = NULL;
    if (!in)
        goto done;
    for (int k = 0; k < nin; k++)
        if (!(in[k] = open_or_report(paths[k])))
            goto done;
    if (symbols && !(sym = open_or_report(symbols)))
        goto done;
    o.symbols = sym;
    cudw_error err;
    int which;
    if (cudw_link_run((cudw_file *const *)in, (size_t)nin, &o, &L, &err, &which) != CUDW_OK) {
        char b[512];
        cudw_error_format(&err, b, sizeof b);
        fprintf(stderr, "%s: link: %s: %s\n", progname, which >= 0 ? paths[which] : out, b);
        goto done;
    }
    char e[512];
    atomic_file af;
    ob_flush(&out_stdout);
    if (atomic_open(&af, out, e, sizeof e)) {
        fprintf(stderr, "%s: link: %s\n", progname, e);
        goto done;
    }
    /* unchanged input bytes go file to file in the kernel */
    int *fds = malloc((size_t)nin * sizeof *fds);
    for (int k = 0; fds && k < nin; k++)
        fds[k] = open(paths[k], O_RDONLY | O_CLOEXEC);
    copy_ctx cc = {&af, fds};
    int wrc = fds ? cudw_link_write_copy(L, write_cb, copy_cb, &cc) : cudw_link_write(L, atomic_write, &af);
    for (int k = 0; fds && k < nin; k++)
        if (fds[k] >= 0)
            close(fds[k]);
    free(fds);
    if (wrc != CUDW_OK && !af.failed)
        af.failed = EIO;
    if (atomic_commit(&af, e, sizeof e)) {
        fprintf(stderr, "%s: link: %s\n", progname, e);
        goto done;
    }
    for (size_t i = 0; i < cudw_link_note_count(L); i++)
        fprintf(stderr, "%s: link: note: %s\n", progname, cudw_link_note(L, i));
    if (stats) {
        const cudw_link_stats *s = cudw_link_get_stats(L);
        fprintf(stderr,
                "%s: %d inputs, %zu debug sections, %llu bytes\n"
                "  relocations: %zu kept, %zu applied (section offsets), %zu CIE pointers, %zu labels, "
                "%zu UNUSED_CLEAR dropped\n"
                "  __shared__: %zu resolved from --symbols, %zu kept\n"
                "  .debug_str base words rebased: %zu%s\n",
                out, nin, s->sections, (unsigned long long)cudw_link_size(L), s->relocs_kept, s->relocs_resolved,
                s->cie_pointers, s->labels_resolved, s->cleared_dropped, s->shared_resolved, s->shared_kept,
                s->str_base_words, o.dedup_strings ? "" : "");
        if (o.dedup_strings)
            fprintf(stderr, "  .debug_str: %zu bytes saved\n", s->strings_removed);
    }
    rc = EXIT_OK;
done:
    cudw_link_free(L);
    for (int k = 0; in && k < nin; k++)
        cudw_close(in[k]);
    cudw_close(sym);
    free(in);
    free(paths);
    return rc;
}
