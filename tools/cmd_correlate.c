/* cudwarf correlate: source <-> PTX <-> SASS per instruction, what each
 * source line costs in SASS, as text, JSON or one HTML page
 * (correlate_html.c).  Everything comes from the library's correlation
 * (cudwarf/correlate.h); this file only prints it. */
#include "cli.h"
#include "correlate_out.h"
#include "opts.h"

#include <stdlib.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf correlate [--ptx FILE.ptx] [--function NAME] [-C]\n"
    "                         [--json | --html] [-o OUT] [--top N]\n"
    "                         [--prefix OLD=NEW]... FILE\n"
    "\n"
    "Source <-> PTX <-> SASS for every SASS instruction of each device image of\n"
    "FILE (a cubin, fatbin, host executable or library, archive): its PTX line\n"
    "(.nv_debug_line_sass), its source line with the inline call chain\n"
    "(.debug_line, as addr2line -f -i gives it) and, where the PTX's .loc says\n"
    "otherwise, that chain and why ptxas's table differs.  Then what each source\n"
    "line, function and file costs: SASS bytes and instructions, exclusive and\n"
    "with inlined callees, and PTX instructions.  Instructions no row covers go\n"
    "to \"no line\", so the lines' bytes add up to the image's SASS.\n"
    "\n"
    "PTX text: --ptx FILE when its lines are the image's .nv_debug_ptx_txt;\n"
    "else the fatbin's PTX entry for that SM when its lines are; else the\n"
    ".nv_debug_ptx_txt section (instruction text without .loc directives).\n"
    "\n";
static const char help_tail[] =
    "\n"
    "SASS is shown as instruction words: cudwarf has no disassembler.\n"
    "Example: cudwarf correlate --top 5 kernel.cubin\n";

enum { O_PTX = 1, O_FUNCTION, O_DEMANGLE, O_TOP, O_JSON, O_HTML, O_OUT, O_PREFIX };
static const cli_opt table[] = {
    {"--ptx", 0, "FILE.ptx", O_PTX, "the PTX the image was compiled from (checked)"},
    {"--function", 0, "NAME", O_FUNCTION, "only this function symbol (mangled or demangled)"},
    {"--demangle", 'C', NULL, O_DEMANGLE, "demangled function names"},
    {"--top", 0, "N", O_TOP, "text: the N source lines with the most SASS bytes\n"
                              "(default 20; 0: all)"},
    {"--json", 0, NULL, O_JSON, "one JSON object per image (docs/json.md)"},
    {"--html", 0, NULL, O_HTML, "one self-contained HTML page: source, PTX and SASS panes,\n"
                                "linked (click or hover a line); one image (--sm, --function)"},
    {NULL, 'o', "OUT", O_OUT, "write there (whole or not at all) instead of standard output"},
    {"--prefix", 0, "OLD=NEW", O_PREFIX, "HTML: read source files under OLD from NEW instead"},
    {"--output", 0, "OUT", O_OUT, OPT_UNLISTED}, /* -o's long name, never listed */
    {0}};

/* ---- the command ---- */

typedef struct file_out {
    obuf ob;             /* first: the sink gets the obuf */
    atomic_file af;
    int failed;
} file_out;

static void to_file(obuf *o, const void *p, size_t n)
{
    file_out *fo = (file_out *)o;
    if (!fo->failed && atomic_write(&fo->af, p, n))
        fo->failed = 1;
}

static int parse(int argc, char **argv, corr_opts *o, const char **path)
{
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "correlate", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP:
            opt_help(&out_stdout, help_head, table, 20, help_tail);
            return -1;
        case OPT_ERR:
            return EXIT_USAGE;
        case OPT_POS:
            if (*path) {
                usage_error("correlate", "one FILE, not '%s' too", a.value);
                return EXIT_USAGE;
            }
            *path = a.value;
            break;
        case O_PTX: o->ptx_path = a.value; break;
        case O_FUNCTION: o->function = a.value; break;
        case O_DEMANGLE: o->demangle = 1; break;
        case O_JSON: o->json = 1; break;
        case O_HTML: o->html = 1; break;
        case O_OUT: o->out = a.value; break;
        case O_TOP: {
            uint64_t v;
            if (opt_number(a.value, 0, SIZE_MAX, &v)) {
                usage_error("correlate", "--top %s: expected a number of lines (0: all)", a.value);
                return EXIT_USAGE;
            }
            o->top = (size_t)v;
            break;
        }
        case O_PREFIX: {
            const char *eq = strchr(a.value, '=');
            if (!eq || eq == a.value || o->nprefix == sizeof o->prefix / sizeof *o->prefix) {
                usage_error("correlate", "--prefix %s: expected OLD=NEW (at most %zu)", a.value,
                            sizeof o->prefix / sizeof *o->prefix);
                return EXIT_USAGE;
            }
            o->prefix[o->nprefix++] = a.value;
            break;
        }
        }
    }
    if (!*path) {
        usage_error("correlate", "no input file");
        return EXIT_USAGE;
    }
    if (o->json && o->html) {
        usage_error("correlate", "--json and --html: choose one");
        return EXIT_USAGE;
    }
    if (o->nprefix && !o->html) { /* the page reads source files; nothing else does */
        usage_error("correlate", "--prefix is for --html (the page's source files)");
        return EXIT_USAGE;
    }
    return 0;
}

/* What the walk over the images left out, for the words at its end */
typedef struct walk_end {
    size_t shown, no_code, bare, failed;
    size_t page;                /* --html: the image kept for the page, or SIZE_MAX */
    cudw_correlation *kept;
    unsigned sms[16];           /* --html: the SMs of the images it could show */
    size_t nsms;
} walk_end;

/* Image i's correlation, or NULL: another image defines --function, the
 * image has no code, or (the text) no line rows -- counted in w -- or it
 * failed (said; *rc set). */
static cudw_correlation *one_image(const corr_opts *o, const char *path, cudw_symbolizer *s, size_t i,
                                   const cudw_correlate_opts *co, walk_end *w, int *rc)
{
    cudw_correlation *c;
    int r = cudw_correlate(s, i, co, &c);
    const cudw_error *e = cudw_symbolizer_error(s);
    if (r == CUDW_E_NOT_FOUND && o->function && e->what && !strcmp(e->what, "function"))
        return NULL;
    if (r) {
        char msg[600];
        cudw_error_format(e, msg, sizeof msg);
        eprintf("%s: %s: %s\n", progname, path, msg);
        *rc = EXIT_BAD_INPUT;
        w->failed++;
        return NULL;
    }
    const cudw_corr_summary *sum = cudw_corr_summary_get(c);
    if (!sum->code_bytes) /* notes and call graphs only */
        w->no_code++;
    else if (!o->json && !o->html && !sum->with_line) /* built without -lineinfo or -G */
        w->bare++;
    else
        return c;
    cudw_correlation_close(c);
    return NULL;
}

/* The text's or JSON's report of c, after the ones before it */
static int print_one(const corr_opts *o, cudw_correlation *c, emit *e, walk_end *w)
{
    if (!w->shown++)
        em_arr(e, NULL); /* JSON: one object per image; the text a blank line between */
    else
        em_text(e, "\n");
    return correlate_print(o, c, e);
}

/* --html: c is the page's when it is the first; every one's SM is kept
 * for the message when there are several */
static int keep_for_page(cudw_correlation *c, size_t i, walk_end *w)
{
    if (w->nsms < sizeof w->sms / sizeof *w->sms)
        w->sms[w->nsms] = cudw_corr_summary_get(c)->sm;
    w->nsms++;
    if (w->kept) {
        cudw_correlation_close(c);
        return 0;
    }
    w->kept = c;
    w->page = i;
    return 1;
}

/* Why nothing was shown, or what was left out: EXIT_OK, or the status */
static int walk_words(const corr_opts *o, const char *path, cudw_symbolizer *s, const walk_end *w, obuf *out)
{
    size_t n = w->no_code + w->bare;
    if (o->html && w->nsms > 1) { /* --function chooses only when it was not given */
        char sms[256];
        size_t k = 0;
        for (size_t i = 0; i < w->nsms && i < sizeof w->sms / sizeof *w->sms && k + 16 < sizeof sms; i++)
            k += (size_t)snprintf(sms + k, sizeof sms - k, "%ssm_%u", i ? ", " : "", w->sms[i]);
        eprintf("%s: %s: %zu images (%s)%s%s; --html shows one: choose it with --sm N%s\n", progname, path, w->nsms,
                sms, o->function ? " define " : "", o->function ? o->function : "", o->function ? "" : " or --function NAME");
        return EXIT_USAGE;
    }
    if (w->shown || w->kept) {
        if (w->bare) /* the text's: said once, not a report per image */
            eprintf("%s: %s: note: %zu image%s without line tables (not shown)\n", progname, path, w->bare,
                    w->bare == 1 ? "" : "s");
        return EXIT_OK;
    }
    if (w->bare) { /* the whole answer */
        ob_printf(out, "%s: no line tables in %s%zu image%s with code (built without -lineinfo or -G)\n", path,
                  w->bare > 1 ? "its " : "", w->bare, w->bare == 1 ? "" : "s");
        return EXIT_OK;
    }
    if (w->no_code && !w->failed) {
        eprintf("%s: %s: no code in its %zu image%s\n", progname, path, n, n == 1 ? "" : "s");
        return EXIT_BAD_INPUT;
    }
    if (w->failed || !o->function) /* said already */
        return EXIT_BAD_INPUT;
    const char *m; /* --function named none: why, in the resolver's words (the nearest names) */
    char msg[600];
    if (cudw_symbolizer_resolve(s, o->function, strlen(o->function), &m) == CUDW_OK)
        snprintf(msg, sizeof msg, "no image defines function %s", o->function);
    else
        snprintf(msg, sizeof msg, "%s", cudw_symbolizer_error(s)->detail);
    eprintf("%s: %s: %s\n", progname, path, msg);
    return EXIT_BAD_INPUT;
}

/* Every image in turn: correlated, printed, let go (memory stays one
 * image, however many the library has); --html keeps the one it shows. */
static int correlate_stream(const corr_opts *o, const char *path, cudw_symbolizer *s, const cudw_ptx *ptx, obuf *out)
{
    json j;
    json_init(&j, out);
    emit e = {o->json ? &j : NULL, out};
    cudw_correlate_opts co = {ptx, o->function, 0};
    walk_end w = {.page = SIZE_MAX};
    int rc = EXIT_OK;
    for (size_t i = 0, n = cudw_symbolizer_image_count(s); i < n; i++) {
        cudw_correlation *c = one_image(o, path, s, i, &co, &w, &rc);
        if (c && o->html && keep_for_page(c, i, &w))
            continue;
        if (c && !o->html) {
            if (print_one(o, c, &e, &w))
                rc = EXIT_BAD_INPUT;
            cudw_correlation_close(c);
        }
        cudw_symbolizer_release(s, i);
    }
    if (w.shown) {
        em_end_arr(&e);
        if (o->json)
            ob_putc(out, '\n');
    }
    int words = walk_words(o, path, s, &w, out);
    if (words == EXIT_OK && w.kept)
        words = correlate_html(o, w.kept, out);
    cudw_correlation_close(w.kept);
    return rc ? rc : words;
}

/* -o OUT: written whole or not at all */
static int to_output(const corr_opts *o, const char *path, cudw_symbolizer *s, const cudw_ptx *ptx)
{
    static file_out fo; /* 64 KiB of buffer: not on the stack */
    char err[600];
    if (atomic_open(&fo.af, o->out, err, sizeof err)) {
        eprintf("%s: %s\n", progname, err);
        return EXIT_BAD_INPUT;
    }
    fo.ob.sink = to_file;
    int rc = correlate_stream(o, path, s, ptx, &fo.ob);
    ob_flush(&fo.ob);
    if (rc || fo.failed || atomic_commit(&fo.af, err, sizeof err)) {
        if (!rc)
            eprintf("%s: %s\n", progname, fo.failed ? "cannot write the output" : err);
        atomic_abort(&fo.af);
        return rc ? rc : EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

int cmd_correlate(int argc, char **argv)
{
    corr_opts o = {.top = 20};
    const char *path = NULL;
    int rc = parse(argc, argv, &o, &path);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    cudw_ptx *ptx = NULL;
    if (o.ptx_path && cudw_ptx_open(o.ptx_path, &ptx)) {
        ptx_diag_report(o.ptx_path, ptx ? cudw_ptx_error(ptx) : NULL, "");
        cudw_ptx_close(ptx);
        return EXIT_BAD_INPUT;
    }
    cudw_symbolizer_opts so = {CUDW_SYM_PTX | CUDW_SYM_DEMANGLE, sel_sm, sel_variant, debug_file};
    cudw_symbolizer *s = NULL;
    if (cudw_symbolizer_open(&s, path, &so)) {
        char msg[600];
        if (s)
            cudw_error_format(cudw_symbolizer_error(s), msg, sizeof msg);
        eprintf("%s: %s: %s\n", progname, path, s ? msg : "out of memory");
        rc = EXIT_BAD_INPUT;
    } else if (!o.out || !strcmp(o.out, "-")) {
        rc = correlate_stream(&o, path, s, ptx, &out_stdout);
    } else {
        rc = to_output(&o, path, s, ptx);
    }
    cudw_symbolizer_close(s);
    cudw_ptx_close(ptx);
    return rc;
}
