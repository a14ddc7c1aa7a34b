/* cudwarf link: merge the debug sections of relocatable cubins as
 * nvlink -g does (cudw_link_run), into a debug companion file. */
#include "cli.h"
#include "opts.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf link -o OUT [--arch sm_N] [--mercury] [--dedup-strings]\n"
    "                    [--symbols NVLINK_OUT] [--stats] IN...\n"
    "\n"
    "Merge the debug information of relocatable device objects (nvcc -dc) the\n"
    "way nvlink -g does: every debug section concatenated in input order,\n"
    "section offsets patched (CU abbrev offsets, DW_AT_stmt_list, location\n"
    "lists, name-index unit offsets, FDE CIE pointers), relocations against\n"
    "functions and data kept with a symbol table of the same names.  Unlike\n"
    "nvlink for sm_90, every line table's .debug_str base word is rebased, so\n"
    "inlined-function names of every input resolve.  OUT is written whole or\n"
    "not at all; cudwarf lines, addr2line and dump read it like any cubin.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "Inputs: ET_REL cubins of one SM, or fatbins and host objects (nvcc -dc -c)\n"
    "whose embedded relocatable images are linked, in order; PTX entries are\n"
    "skipped.  A static library (nvcc -lib) gives all its members, as nvlink\n"
    "links them; libcudadevrt.a only the members that resolve a reference (the\n"
    "dynamic-parallelism entry points), as nvlink -lcudadevrt.  sm_100 and\n"
    "later: the .nv.merc. twins are merged too; nvlink regenerates the\n"
    "standard-named line tables of Mercury code it finalizes, cudwarf keeps the\n"
    "inputs' (docs/linking.md).\n"
    "\n"
    "Exit status: 0 success, 1 an input is unreadable, malformed or not\n"
    "linkable (nothing written), 2 usage.\n";

typedef struct copy_ctx {
    atomic_file *af;
    int *fds;
} copy_ctx;

static void report_link_input(const cudw_link_inputs *li)
{
    char b[512];
    const char *about;
    const cudw_error *e = li ? cudw_link_inputs_error(li, &about) : NULL;
    if (!e) {
        eprintf("%s: link: out of memory\n", progname);
        return;
    }
    if (!strcmp(e->what, "link input"))
        snprintf(b, sizeof b, "%s", e->detail); /* ours: the detail says it all */
    else
        cudw_error_format(e, b, sizeof b);
    eprintf("%s: link: %s%s%s\n", progname, about ? about : "", about ? ": " : "", b);
}

/* "sm_90", "90", "sm_100a" -> 90, 100 (*variant: 0, 'a' or 'f'); 0 when
 * not an SM. */
static int parse_arch(const char *a, int *variant)
{
    unsigned sm;
    char v;
    if (cudw_sm_parse(a, &sm, &v) != CUDW_OK)
        return 0;
    *variant = v;
    return (int)sm;
}


static int write_cb(void *ctx, const void *p, size_t n) { return atomic_write(((copy_ctx *)ctx)->af, p, n); }

static int copy_cb(void *ctx, size_t input, uint64_t off, uint64_t n)
{
    copy_ctx *c = ctx;
    return atomic_copy_from(c->af, c->fds[input], off, n);
}

static const cli_opt table[] = {
    {NULL, 'o', "OUT", 1, "the output file (- for standard output)"},
    {"--arch", 0, "sm_N", 3, "link the sm_N images of the inputs (needed when they\n"
                             "hold device code for several SMs); also --sm=N"},
    {"--mercury", 0, NULL, 4, "emit every debug section under its .nv.merc. name"},
    {"--dedup-strings", 0, NULL, 5, "one copy of each .debug_str string, references rewritten"},
    {"--symbols", 0, "NVLINK_OUT", 2, "nvlink's output for the same inputs (linked with -g):\n"
                                      "resolve relocations against __shared__ variables from its\n"
                                      "symbol values (nvlink lays out shared memory); without it\n"
                                      "they are kept.  A cubin, or the host object nvcc -dlink\n"
                                      "wrote around it"},
    {"--stats", 0, NULL, 6, "print what was merged, resolved and kept (stderr)"},
    {"--output", 0, "OUT", 1, OPT_UNLISTED}, /* -o's long name, never listed */
    {0}};

int cmd_link(int argc, char **argv)
{
    const char *out = NULL, *symbols = NULL;
    cudw_link_opts o = {0};
    int stats = 0, nin = 0, arch = 0, variant = 0;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    if (!paths)
        return EXIT_BAD_INPUT;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "link", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 20, help_tail); free(paths); return EXIT_OK;
        case OPT_ERR: free(paths); return EXIT_USAGE;
        case OPT_POS: paths[nin++] = a.value; break;
        case 1: out = a.value; break;
        case 2: symbols = a.value; break;
        case 3:
            if (!(arch = parse_arch(a.value, &variant))) {
                usage_error("link", "--arch %s: expected sm_N", a.value);
                free(paths);
                return EXIT_USAGE;
            }
            break;
        case 4: o.mercury = 1; break;
        case 5: o.dedup_strings = 1; break;
        case 6: stats = 1; break;
        }
    }
    if (!out || !nin) {
        usage_error("link", !out ? "no output file (-o OUT)" : "no input file");
        free(paths);
        return EXIT_USAGE;
    }
    if (!arch && sel_sm) { /* --sm=N, as every command takes it */
        arch = (int)sel_sm;
        variant = sel_variant;
    }
    cudw_link_inputs *im = NULL, *sy = NULL;
    int rc = EXIT_BAD_INPUT;
    cudw_link *L = NULL;
    if (cudw_link_inputs_open(paths, (size_t)nin, (unsigned)arch, (char)variant, &im) != CUDW_OK) {
        report_link_input(im);
        goto done;
    }
    size_t nim = cudw_link_inputs_count(im);
    cudw_file *const *elf = cudw_link_inputs_files(im);
    if (symbols) {
        /* nvlink's output: a cubin, or the executable it went into */
        unsigned sm = arch ? (unsigned)arch : cudw_header(elf[0])->sm;
        char v = arch ? (char)variant : cudw_link_inputs_variant(im, 0);
        if (cudw_link_inputs_open(&symbols, 1, sm, v, &sy) != CUDW_OK) {
            report_link_input(sy);
            goto done;
        }
        o.symbols = cudw_link_inputs_files(sy)[0];
    }
    if (cudw_link_run(elf, nim, &o, &L) != CUDW_OK) {
        char b[512] = "out of memory";
        int which = -1;
        if (L)
            cudw_error_format(cudw_link_error(L, &which), b, sizeof b);
        eprintf("%s: link: %s: %s\n", progname, which >= 0 ? cudw_link_inputs_label(im, (size_t)which) : out, b);
        goto done;
    }
    char e[512];
    atomic_file af;
    ob_flush(&out_stdout);
    if (atomic_open(&af, out, e, sizeof e)) {
        eprintf("%s: link: %s\n", progname, e);
        goto done;
    }
    /* unchanged input bytes go file to file in the kernel */
    int *fds = malloc(nim * sizeof *fds);
    for (size_t k = 0; fds && k < nim; k++) {
        size_t p = cudw_link_inputs_path(im, k);
        fds[k] = cudw_input_type(cudw_link_inputs_input(im, p)) == CUDW_INPUT_CUBIN ? open(paths[p], O_RDONLY | O_CLOEXEC)
                                                                                  : -1;
    }
    copy_ctx cc = {&af, fds};
    int wrc = fds ? cudw_link_write_copy(L, write_cb, copy_cb, &cc) : cudw_link_write(L, atomic_write, &af);
    for (size_t k = 0; fds && k < nim; k++)
        if (fds[k] >= 0)
            close(fds[k]);
    free(fds);
    if (wrc != CUDW_OK && !af.failed)
        af.failed = EIO;
    if (atomic_commit(&af, e, sizeof e)) {
        eprintf("%s: link: %s\n", progname, e);
        goto done;
    }
    for (size_t i = 0; i < cudw_link_note_count(L); i++)
        eprintf("%s: link: note: %s\n", progname, cudw_link_note(L, i));
    if (stats) {
        const cudw_link_stats *s = cudw_link_get_stats(L);
        fprintf(stderr,
                "%s: %zu inputs, %zu debug sections, %llu bytes\n"
                "  relocations: %zu kept, %zu applied (section offsets), %zu CIE pointers, %zu labels, "
                "%zu UNUSED_CLEAR dropped\n"
                "  __shared__: %zu resolved from --symbols, %zu kept\n"
                "  .debug_str base words rebased: %zu%s\n",
                out, nim, s->sections, (unsigned long long)cudw_link_size(L), s->relocs_kept, s->relocs_resolved,
                s->cie_pointers, s->labels_resolved, s->cleared_dropped, s->shared_resolved, s->shared_kept,
                s->str_base_words, o.dedup_strings ? "" : "");
        if (o.dedup_strings)
            eprintf("  .debug_str: %zu bytes saved\n", s->strings_removed);
    }
    rc = EXIT_OK;
done:
    cudw_link_close(L);
    cudw_link_inputs_close(im);
    cudw_link_inputs_close(sy);
    free(paths);
    return rc;
}
