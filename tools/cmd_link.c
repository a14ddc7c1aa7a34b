/* cudwarf link: merge the debug sections of relocatable cubins as
 * nvlink -g does (cudw_link_run), into a debug companion file. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf link -o OUT [--arch sm_N] [--mercury] [--dedup-strings] [--symbols NVLINK_OUT] [--stats] IN...\n"
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
    "  --arch sm_N       link the sm_N images of the inputs (needed when they\n"
    "                    hold device code for several SMs); also --sm=N\n"
    "  --mercury         emit every debug section under its .nv.merc. name\n"
    "  --dedup-strings   one copy of each .debug_str string, references rewritten\n"
    "  --symbols NVLINK_OUT\n"
    "                    nvlink's output for the same inputs (linked with -g): resolve\n"
    "                    relocations against __shared__ variables from its symbol\n"
    "                    values (nvlink lays out shared memory); without it they are\n"
    "                    kept.  A cubin, or the host object nvcc -dlink wrote around it\n"
    "  --stats           print what was merged, resolved and kept (stderr)\n"
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

/* The ELF images the inputs hold, in order: a cubin is one, a fatbin or
 * host object (nvcc -dc -c) one per embedded device ELF. */
typedef struct image {
    const char *label;
    int path;            /* which input it came from */
    int variant;         /* 'a', 'f' or 0 */
} image;

typedef struct images {
    cudw_input **in;     /* per path, kept open: the images live in them */
    cudw_file **elf;     /* what cudw_link_run takes */
    image *v;
    int n;
} images;

static int sm_of(cudw_file *f) { return (int)cudw_header(f)->sm; }

static const char *vstr(int variant) { return variant == 'a' ? "a" : variant == 'f' ? "f" : ""; }

/* 'a', 'f' or 0: the variant an image was built for, as its fatbin entry
 * says (a bare cubin's ELF header does not tell sm_90 from sm_90a). */
static int variant_of(const cudw_input_image *x)
{
    return x->entry ? cudw_fatbin_variant(x->entry->flags)[0] : 0;
}

static void report_input_error(cudw_input *in, const char *label)
{
    char b[512];
    cudw_error_format(cudw_input_error(in), b, sizeof b);
    eprintf("%s: link: %s: %s\n", progname, label, b);
}

/* The images of input p (SM arch and variant; every ELF image when arch
 * is 0) into cand[]; 0, or 1 after a message. */
static int candidates(images *im, int p, int arch, int want_variant, const cudw_input_image **cand, size_t *n)
{
    cudw_input *in = im->in[p];
    *n = 0;
    for (size_t i = 0; i < cudw_input_count(in); i++) {
        const cudw_input_image *x = cudw_input_peek(in, i);
        if (x->kind != CUDW_FATBIN_ELF || (arch && x->entry && x->entry->sm != (uint32_t)arch))
            continue;
        if (arch && x->entry && variant_of(x) != want_variant)
            continue; /* --arch sm_90 is not sm_90a, nor the reverse */
        if (cudw_input_image_get(in, i, &x) != CUDW_OK) {
            report_input_error(in, x->label);
            return 1;
        }
        if (arch && sm_of(x->elf) != arch)
            continue;
        cand[(*n)++] = x;
    }
    return 0;
}

static int is_devrt(const char *path)
{
    const char *base = strrchr(path, '/');
    return !strcmp(base ? base + 1 : path, "libcudadevrt.a");
}

/* ls NULL: no libcudadevrt.a among the inputs, no symbols to record */
static int take(images *im, link_needs *ls, int p, const cudw_input_image *x)
{
    im->elf[im->n] = x->elf;
    im->v[im->n++] = (image){x->label, p, variant_of(x)};
    if (ls && needs_add(ls, x->elf)) {
        eprintf("%s: link: out of memory\n", progname);
        return 1;
    }
    return 0;
}

/* Opens every path; keeps the images of SM arch (every image when arch is
 * 0, if they share one SM and variant).  An archive gives the images of
 * all its members, as nvlink takes them (measured: members that define
 * nothing the link references are linked too), of the SM of the inputs
 * before it when no --arch is given; libcudadevrt.a, which nvlink knows by
 * name and links only for dynamic parallelism, gives the members that
 * resolve a reference (link_select.c).  0, or 1 after a message. */
static int collect(images *im, const char **paths, int npaths, int arch, int want_variant)
{
    size_t total = 0;
    link_needs needs = {0}, *ls = NULL;
    const cudw_input_image **cand = NULL;
    int rc = 1;
    if (!(im->in = calloc((size_t)npaths, sizeof *im->in)))
        return 1;
    for (int p = 0; p < npaths; p++) {
        if (is_devrt(paths[p]))
            ls = &needs;
        if (cudw_input_open(&im->in[p], paths[p]) != CUDW_OK) {
            if (im->in[p])
                report_input_error(im->in[p], paths[p]);
            else
                eprintf("%s: link: %s: out of memory\n", progname, paths[p]);
            return 1;
        }
        total += cudw_input_count(im->in[p]);
    }
    im->elf = calloc(total ? total : 1, sizeof *im->elf);
    im->v = calloc(total ? total : 1, sizeof *im->v);
    cand = calloc(total ? total : 1, sizeof *cand);
    if (!im->elf || !im->v || !cand) {
        eprintf("%s: link: out of memory\n", progname);
        goto out;
    }
    for (int p = 0; p < npaths; p++) {
        size_t n;
        if (cudw_input_type(im->in[p]) == CUDW_INPUT_ARCHIVE) {
            int a = arch, va = want_variant;
            if (!a && im->n) {
                a = sm_of(im->elf[0]);
                va = im->v[0].variant;
            }
            int devrt = is_devrt(paths[p]);
            if (!a && devrt) {
                eprintf("%s: link: %s: libcudadevrt.a before any object: give --arch to pick its SM\n",
                        progname, paths[p]);
                goto out;
            }
            if (candidates(im, p, a, va, cand, &n))
                goto out;
            if (!devrt) {
                /* nvlink links every member of a library, needed or not */
                for (size_t c = 0; c < n; c++)
                    if (take(im, ls, p, cand[c]))
                        goto out;
                continue;
            }
            for (int added = 1; added;) {
                added = 0;
                for (size_t c = 0; c < n; c++)
                    if (cand[c] && needs_pulls(ls, cand[c]->elf)) {
                        if (take(im, ls, p, cand[c]))
                            goto out;
                        cand[c] = NULL;
                        added = 1;
                    }
            }
            continue;
        }
        if (candidates(im, p, arch, want_variant, cand, &n))
            goto out;
        if (!n) {
            if (arch)
                eprintf("%s: link: %s: no sm_%d%s device ELF in it\n", progname, paths[p], arch,
                        vstr(want_variant));
            else
                eprintf("%s: link: %s: no device ELF in it (PTX only?)\n", progname, paths[p]);
            goto out;
        }
        for (size_t c = 0; c < n; c++)
            if (take(im, ls, p, cand[c]))
                goto out;
    }
    for (int k = 1; !arch && k < im->n; k++)
        if (sm_of(im->elf[k]) != sm_of(im->elf[0]) || im->v[k].variant != im->v[0].variant) {
            fprintf(stderr,
                    "%s: link: the inputs hold sm_%d%s (%s) and sm_%d%s (%s) code: choose one with --arch\n",
                    progname, sm_of(im->elf[0]), vstr(im->v[0].variant), im->v[0].label, sm_of(im->elf[k]),
                    vstr(im->v[k].variant), im->v[k].label);
            goto out;
        }
    if (!im->n) {
        eprintf("%s: link: no object to link (the archives' members are not needed)\n", progname);
        goto out;
    }
    rc = 0;
out:
    free(cand);
    needs_free(&needs);
    return rc;
}

static void images_free(images *im, int npaths)
{
    for (int p = 0; im->in && p < npaths; p++)
        cudw_input_close(im->in[p]);
    free(im->in);
    free(im->elf);
    free(im->v);
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

int cmd_link(int argc, char **argv)
{
    const char *out = NULL, *symbols = NULL;
    cudw_link_opts o = {0};
    int stats = 0, nin = 0, arch = 0, variant = 0;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    if (!paths)
        return EXIT_BAD_INPUT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--symbols") || !strcmp(a, "--arch")) {
            if (++i >= argc) {
                usage_error("link", "%s needs %s", a, a[2] == 'a' ? "an SM (sm_90)" : "a file name");
                free(paths);
                return EXIT_USAGE;
            }
            if (a[1] == 'o')
                out = argv[i];
            else if (a[2] == 's')
                symbols = argv[i];
            else if (!(arch = parse_arch(argv[i], &variant))) {
                usage_error("link", "--arch %s: expected sm_N", argv[i]);
                free(paths);
                return EXIT_USAGE;
            }
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
    if (!arch && sel_sm) { /* --sm=N, as every command takes it */
        arch = (int)sel_sm;
        variant = sel_variant;
    }
    images im = {0}, sy = {0};
    int rc = EXIT_BAD_INPUT;
    cudw_link *L = NULL;
    if (collect(&im, paths, nin, arch, variant))
        goto done;
    if (symbols) {
        /* nvlink's output: a cubin, or the executable it went into */
        if (collect(&sy, &symbols, 1, arch ? arch : sm_of(im.elf[0]), arch ? variant : im.v[0].variant))
            goto done;
        o.symbols = sy.elf[0];
    }
    cudw_error err;
    int which;
    if (cudw_link_run((cudw_file *const *)im.elf, (size_t)im.n, &o, &L, &err, &which) != CUDW_OK) {
        char b[512];
        cudw_error_format(&err, b, sizeof b);
        eprintf("%s: link: %s: %s\n", progname, which >= 0 ? im.v[which].label : out, b);
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
    int *fds = malloc((size_t)im.n * sizeof *fds);
    for (int k = 0; fds && k < im.n; k++)
        fds[k] = cudw_input_type(im.in[im.v[k].path]) == CUDW_INPUT_CUBIN ? open(paths[im.v[k].path], O_RDONLY | O_CLOEXEC)
                                                                       : -1;
    copy_ctx cc = {&af, fds};
    int wrc = fds ? cudw_link_write_copy(L, write_cb, copy_cb, &cc) : cudw_link_write(L, atomic_write, &af);
    for (int k = 0; fds && k < im.n; k++)
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
                "%s: %d inputs, %zu debug sections, %llu bytes\n"
                "  relocations: %zu kept, %zu applied (section offsets), %zu CIE pointers, %zu labels, "
                "%zu UNUSED_CLEAR dropped\n"
                "  __shared__: %zu resolved from --symbols, %zu kept\n"
                "  .debug_str base words rebased: %zu%s\n",
                out, im.n, s->sections, (unsigned long long)cudw_link_size(L), s->relocs_kept, s->relocs_resolved,
                s->cie_pointers, s->labels_resolved, s->cleared_dropped, s->shared_resolved, s->shared_kept,
                s->str_base_words, o.dedup_strings ? "" : "");
        if (o.dedup_strings)
            eprintf("  .debug_str: %zu bytes saved\n", s->strings_removed);
    }
    rc = EXIT_OK;
done:
    cudw_link_free(L);
    images_free(&im, nin);
    images_free(&sy, 1);
    free(paths);
    return rc;
}
