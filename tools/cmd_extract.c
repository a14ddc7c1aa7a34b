/* cudwarf extract: every embedded image written out, decompressed, under a
 * name made from its label, so that two images can never share one. */
#include "cli.h"
#include "opts.h"
#include "jobs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char extract_help_head[] =
    "usage: cudwarf extract [-o DIR] [--elf | --ptx] FILE...\n"
    "\n"
    "Write every image embedded in a fatbin, host ELF or archive out,\n"
    "decompressed, each file whole or not at all, and print its name.  Names\n"
    "come from the image labels `cudwarf list` prints:\n"
    "  DIR/app.nv_fatbin-0.1.sm_90.cubin      .nv_fatbin, container 0, entry 1\n"
    "  DIR/k.fatbin.0.1.sm_90a.ptx            a fatbin file\n"
    "  DIR/lib.a.x.o.nv_fatbin-0.0.sm_80.cubin  member x.o of an archive\n"
    "with .cubin, .ptx, .ltoir or .bin.  DIR (default: the current directory)\n"
    "is created with its parents when missing.  Two images of one run never\n"
    "get one name, and an input is never overwritten.  Compressed LTO IR\n"
    "(flag 0x10000) is stored in an encoding cudwarf does not decode: skipped\n"
    "with a note.\n"
    "\n";

/* s with every byte outside [A-Za-z0-9_.+-] as '_', '#' as '-', and no
 * leading '.'. */
static void clean(char *d, size_t n, const char *s)
{
    size_t k = 0;
    while (*s == '.')
        s++;
    for (; *s && k + 1 < n; s++) {
        char c = *s;
        d[k++] = c == '#' ? '-'
                 : ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '+' || c == '-')
                     ? c
                     : '_';
    }
    d[k] = 0;
}

static const char *ext_of(int kind)
{
    return kind == CUDW_FATBIN_PTX ? "ptx" : kind == CUDW_FATBIN_ELF ? "cubin" : kind == CUDW_FATBIN_NVVM ? "ltoir" : "bin";
}

/* DIR/BASE[.MEMBER][.TAG].sm_N[v].EXT */
static char *out_name(const char *dir, const char *path, const cudw_input_image *im)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char b[256], m[256] = "", t[256] = "";
    clean(b, sizeof b, base);
    if (im->member) {
        m[0] = '.';
        clean(m + 1, sizeof m - 1, im->member);
    }
    if (im->tag[0]) {
        t[0] = '.';
        clean(t + 1, sizeof t - 1, im->tag);
    }
    size_t n = strlen(dir) + strlen(b) + strlen(m) + strlen(t) + 48;
    char *o = malloc(n);
    if (!o)
        return NULL;
    if (im->entry)
        snprintf(o, n, "%s/%s%s%s.sm_%u%s.%s", dir, b, m, t, im->sm,
                 im->variant == 'a' ? "a" : im->variant == 'f' ? "f" : "", ext_of(im->kind));
    else
        snprintf(o, n, "%s/%s%s.cubin", dir, b, m);
    return o;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct xctx {
    image_set set;
    char **names;
    const char *path;
} xctx;

static int extract_job(void *p, size_t k)
{
    xctx *x = p;
    size_t i = x->set.idx[k];
    const cudw_input_image *info = cudw_input_peek(x->set.in, i);
    if (info->entry && (info->entry->flags & CUDW_FATBIN_ENCODED) && info->kind != CUDW_FATBIN_ELF) {
        eprintf("%s: %s: note: not extracted: payload encoded beyond its compression (flag 0x10000)\n", progname,
                info->label);
        return EXIT_OK;
    }
    cudw_image *im = load_or_report(x->set.in, i);
    if (!im)
        return EXIT_BAD_INPUT;
    char err[512];
    int rc = EXIT_OK;
    if (write_file_atomic(x->names[k], im->data, im->size, err, sizeof err)) {
        eprintf("%s: %s\n", progname, err);
        rc = EXIT_BAD_INPUT;
    } else {
        ob_puts(&out_stdout, x->names[k]);
        ob_putc(&out_stdout, '\n');
    }
    cudw_image_close(im);
    return rc;
}

/* The same file as path (an input must never be written over). */
static int same_as(const char *a, const struct stat *sb)
{
    struct stat sa;
    return stat(a, &sa) == 0 && sa.st_dev == sb->st_dev && sa.st_ino == sb->st_ino;
}

static int extract_one(const char *path, const char *dir, int only, char ***all, size_t *nall)
{
    cudw_input *in = open_input(path);
    if (!in)
        return EXIT_BAD_INPUT;
    if (cudw_input_type(in) == CUDW_INPUT_CUBIN) {
        eprintf("%s: %s: a cubin, not a fatbin, host ELF or archive: nothing to extract\n", progname, path);
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    size_t n = cudw_input_count(in), k = 0;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    char **names = calloc(n ? n : 1, sizeof *names);
    int rc = EXIT_OK;
    if (!idx || !names)
        goto nomem;
    for (size_t i = 0; i < n; i++) {
        const cudw_input_image *im = cudw_input_peek(in, i);
        if ((only && im->kind != only) || !image_selected(im))
            continue;
        if (!(names[k] = out_name(dir, path, im)))
            goto nomem;
        idx[k++] = i;
    }
    if (!n) {
        eprintf("%s: %s: no CUDA device code: no fatbin container in any section\n", progname, path);
        rc = EXIT_BAD_INPUT;
    } else if (!k && sel_sm) {
        char sms[256];
        eprintf("%s: %s: no sm_%u%s image (it has %s)\n", progname, path, sel_sm,
                sel_variant == 'a' ? "a" : sel_variant == 'f' ? "f" : "",
                cudw_input_sms(in, CUDW_FATBIN_ELF, sms, sizeof sms));
        rc = EXIT_BAD_INPUT;
    }
    /* every name of the whole run once, and none an input's */
    char **grown = realloc(*all, (*nall + k + 1) * sizeof *grown);
    if (!grown)
        goto nomem;
    *all = grown;
    memcpy(*all + *nall, names, k * sizeof *names);
    *nall += k;
    if (*nall)
        qsort(*all, *nall, sizeof **all, str_cmp);
    for (size_t a = 1; a < *nall; a++)
        if (!strcmp((*all)[a - 1], (*all)[a])) {
            eprintf("%s: %s: two images would be written to %s: nothing extracted\n", progname, path, (*all)[a]);
            rc = EXIT_BAD_INPUT;
            goto out;
        }
    struct stat sb;
    if (stat(path, &sb) == 0)
        for (size_t a = 0; a < k; a++)
            if (same_as(names[a], &sb)) {
                eprintf("%s: %s: would be overwritten by its own image: nothing extracted\n", progname, path);
                rc = EXIT_BAD_INPUT;
                goto out;
            }
    {
        xctx x = {{in, idx}, names, path};
        int r = jobs_run_cost(k, extract_job, image_set_cost, &x);
        if (r > rc)
            rc = r;
    }
    goto out;
nomem:
    eprintf("%s: %s: out of memory\n", progname, path);
    rc = EXIT_BAD_INPUT;
    for (size_t a = 0; names && a < k; a++)
        free(names[a]);
    free(names);
    names = NULL;
out:
    free(names); /* the strings live on in *all */
    free(idx);
    cudw_input_close(in);
    return rc;
}

/* mkdir -p */
static int make_dirs(const char *dir, char *err, size_t n)
{
    char *p = strdup(dir);
    if (!p) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    for (char *s = p + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                snprintf(err, n, "%s: %s", p, strerror(errno));
                free(p);
                return -1;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return 0;
}

static const cli_opt table[] = {
    {NULL, 'o', "DIR", 1, "the directory to write into"},
    {"--elf", 0, NULL, 2, "only the cubins (ELF entries)"},
    {"--ptx", 0, NULL, 3, "only the PTX entries"},
    {"--output", 0, "DIR", 1, OPT_UNLISTED}, /* -o's long name, never listed */
    {0}};

int cmd_extract(int argc, char **argv)
{
    const char *dir = ".";
    int only = 0, nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "extract", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, extract_help_head, table, 10, NULL); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)a.value; break; /* the operands, in order, over argv */
        case 1: dir = a.value; break;
        case 2: only = CUDW_FATBIN_ELF; break;
        case 3: only = CUDW_FATBIN_PTX; break;
        }
    }
    if (!nfiles) {
        usage_error("extract", "no input file");
        return EXIT_USAGE;
    }
    char err[600];
    struct stat st;
    if (stat(dir, &st) != 0 && errno == ENOENT && make_dirs(dir, err, sizeof err) != 0) {
        eprintf("%s: extract: %s\n", progname, err);
        return EXIT_BAD_INPUT;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        eprintf("%s: extract: %s: not a directory\n", progname, dir);
        return EXIT_BAD_INPUT;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        eprintf("%s: extract: %s: %s\n", progname, dir, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_OK;
    char **all = NULL;
    size_t nall = 0;
    for (int i = 0; i < nfiles; i++)
        if (extract_one(argv[i], dir, only, &all, &nall) != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    for (size_t k = 0; k < nall; k++)
        free(all[k]);
    free(all);
    return rc;
}
