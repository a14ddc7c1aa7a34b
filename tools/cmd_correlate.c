/* cudwarf correlate: source <-> PTX <-> SASS per instruction, what each
 * source line costs in SASS, as text, JSON or one HTML page
 * (correlate_html.c).  Everything comes from the library's correlation
 * (cudwarf/correlate.h); this file only prints it. */
#include "cli.h"
#include "correlate_out.h"
#include "opts.h"

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf correlate [--ptx FILE.ptx] [--sm N] [--function NAME] [-C]\n"
    "                         [--json | --html] [-o OUT] [--top N] [--prefix OLD=NEW]... FILE\n"
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
    "\n"
    "  --ptx FILE.ptx    the PTX the image was compiled from (checked)\n"
    "  --sm N            only the sm_N images\n"
    "  --function NAME   only this function symbol (mangled or demangled)\n"
    "  -C, --demangle    demangled function names\n"
    "  --top N           text: the N source lines with the most SASS bytes (20; 0: all)\n"
    "  --json            one JSON object per image (docs/json.md)\n"
    "  --html            one self-contained HTML page: source, PTX and SASS panes,\n"
    "                    linked (click or hover a line); one image (--sm, --function)\n"
    "  -o OUT            write there (whole or not at all) instead of standard output\n"
    "  --prefix OLD=NEW  HTML: read source files under OLD from NEW instead\n"
    "\n"
    "SASS is shown as instruction words: cudwarf has no disassembler.\n"
    "Example: cudwarf correlate --top 5 kernel.cubin\n";

enum { O_PTX = 1, O_FUNCTION, O_DEMANGLE, O_TOP, O_JSON, O_HTML, O_OUT, O_PREFIX };
static const cli_opt table[] = {
    {"--ptx", 0, 1, O_PTX},           {"--function", 0, 1, O_FUNCTION}, {"--demangle", 'C', 0, O_DEMANGLE},
    {"--top", 0, 1, O_TOP},           {"--json", 0, 0, O_JSON},         {"--html", 0, 0, O_HTML},
    {"--output", 'o', 1, O_OUT},      {"--prefix", 0, 1, O_PREFIX},     {0}};

/* ---- text ---- */

static const char *base(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "??";
}

/* A linkage name as -C shows it. */
static const char *demangled(const corr_opts *o, const char *name, char *buf, size_t n)
{
    if (!name)
        return "??";
    size_t need = o->demangle ? cudw_demangle(name, buf, n) : 0;
    return need && need < n ? buf : name;
}

/* Where line L's instructions were inlined from: the direct call sites
 * (cudw_corr_line_callers), three, and the rest summed. */
static void callers_text(const corr_opts *o, const cudw_correlation *c, size_t L, obuf *out)
{
    const cudw_corr_caller *v;
    size_t n = cudw_corr_line_callers(c, L, &v);
    uint64_t rest = 0;
    for (size_t k = 0; k < n; k++) {
        if (k >= 3) {
            rest += v[k].sass_bytes;
            continue;
        }
        char buf[4096];
        ob_puts(out, "            ");
        ob_commas(out, v[k].sass_bytes, 9);
        ob_printf(out, " B inlined at %s:%llu  %s\n", base(v[k].file), (unsigned long long)v[k].line,
                  demangled(o, v[k].function, buf, sizeof buf));
    }
    if (rest) {
        ob_puts(out, "            ");
        ob_commas(out, rest, 9);
        ob_printf(out, " B inlined at %zu other call sites\n", n - 3);
    }
}

/* The functions with code on line L: one name, or each with its bytes
 * (a template line two instantiations share). */
static void line_functions_text(const corr_opts *o, const cudw_correlation *c, size_t L, obuf *out)
{
    const cudw_corr_line_fn *v;
    size_t n = cudw_corr_line_functions(c, L, &v);
    for (size_t k = 0; k < n && k < 4; k++) {
        char buf[4096];
        ob_puts(out, k ? ", " : "  ");
        ob_puts(out, demangled(o, v[k].function, buf, sizeof buf));
        if (n > 1)
            ob_printf(out, " %llu B", (unsigned long long)v[k].sass_bytes);
    }
    if (n > 4)
        ob_printf(out, ", %zu more", n - 4);
}

static const cudw_correlation *sort_ctx;
static int by_bytes(const void *a, const void *b)
{
    const cudw_corr_cost *x = cudw_corr_line_get(sort_ctx, *(const size_t *)a);
    const cudw_corr_cost *y = cudw_corr_line_get(sort_ctx, *(const size_t *)b);
    if (x->sass_bytes != y->sass_bytes)
        return x->sass_bytes > y->sass_bytes ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static const cudw_corr_cost *const *cost_sort_v;
static int by_cost_bytes(const void *a, const void *b)
{
    const cudw_corr_cost *x = cost_sort_v[*(const size_t *)a], *y = cost_sort_v[*(const size_t *)b];
    if (x->sass_bytes_inclusive != y->sass_bytes_inclusive)
        return x->sass_bytes_inclusive > y->sass_bytes_inclusive ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The functions or files with the most SASS bytes, inlined callees included. */
static void totals_text(const corr_opts *o, const cudw_correlation *c, const char *what, size_t n,
                        const cudw_corr_cost *(*get)(const cudw_correlation *, size_t), obuf *out)
{
    const cudw_corr_cost **v = malloc((n ? n : 1) * sizeof *v);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!v || !order) {
        free(v);
        free(order);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        v[i] = get(c, i);
        order[i] = i;
    }
    cost_sort_v = v;
    qsort(order, n, sizeof *order, by_cost_bytes);
    size_t shown = o->top && n > o->top ? o->top : n;
    ob_printf(out, "  top %zu %s by SASS bytes with inlined callees:\n", shown, what);
    ob_puts(out, "       incl    bytes  insns    ptx  name\n");
    for (size_t k = 0; k < shown; k++) {
        const cudw_corr_cost *x = v[order[k]];
        ob_commas(out, x->sass_bytes_inclusive, 11);
        ob_commas(out, x->sass_bytes, 9);
        ob_commas(out, x->sass_instructions, 7);
        if (cudw_corr_summary_get(c)->ptx_by_loc) /* else known per line only */
            ob_commas(out, x->ptx_instructions, 7);
        else
            ob_puts(out, "      -");
        ob_puts(out, "  ");
        const char *name = x->name ? x->name : "(no line)";
        char buf[4096];
        size_t need = o->demangle && x->name && !strcmp(what, "functions") ? cudw_demangle(name, buf, sizeof buf) : 0;
        ob_puts(out, need && need < sizeof buf ? buf : name);
        ob_putc(out, '\n');
    }
    free(v);
    free(order);
}

static const char *from_text(int from)
{
    return from == CUDW_PTX_FROM_FILE ? "the file given" : from == CUDW_PTX_FROM_FATBIN ? "the fatbin's PTX entry"
                                                                                         : "no .loc directives";
}

static int report_text(const corr_opts *o, cudw_correlation *c, obuf *out)
{
    const cudw_corr_summary *s = cudw_corr_summary_get(c);
    ob_printf(out, "%s (sm_%u): ", s->image, s->sm);
    ob_commas(out, s->instructions, 0);
    ob_puts(out, " SASS instructions, ");
    ob_commas(out, s->sass_bytes, 0);
    ob_puts(out, " bytes\n");
    if (s->capsule_bytes) {
        ob_puts(out, "  + ");
        ob_commas(out, s->capsule_bytes, 0);
        ob_puts(out, " bytes of Mercury capsules (code, not SASS: not correlated)\n");
    }
    for (size_t i = 0, n = cudw_corr_ptx_count(c); i < n; i++) {
        const cudw_corr_ptx *p = cudw_corr_ptx_get(c, i);
        ob_printf(out, "  PTX %s: %s (%s)\n", p->section->name, p->name, from_text(p->from));
    }
    ob_printf(out, "  %llu with a source line, %llu with a PTX line", (unsigned long long)s->with_line,
              (unsigned long long)s->with_ptx);
    if (s->disagree)
        ob_printf(out, "; %llu whose line-table frames differ from what the PTX's .loc says",
                  (unsigned long long)s->disagree);
    ob_putc(out, '\n');
    if (s->disagree) {
        uint64_t why[CUDW_CORR_OTHER + 1] = {0};
        for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++)
            why[cudw_corr_insn_get(c, i)->reason]++;
        for (int r = 1; r <= CUDW_CORR_OTHER; r++)
            if (why[r])
                ob_printf(out, "    %llu %s: %s\n", (unsigned long long)why[r], cudw_corr_reason_name(r),
                          cudw_corr_reason_text(r));
    }
    size_t nl = cudw_corr_line_count(c);
    size_t *order = malloc((nl ? nl : 1) * sizeof *order);
    if (!order) {
        eprintf("%s: out of memory\n", progname);
        return EXIT_BAD_INPUT;
    }
    size_t shown = 0;
    for (size_t i = 0; i < nl; i++)
        if (cudw_corr_line_get(c, i)->sass_bytes)
            order[shown++] = i;
    sort_ctx = c;
    qsort(order, shown, sizeof *order, by_bytes);
    if (o->top && shown > o->top)
        shown = o->top;
    if (!s->with_line) { /* built without -lineinfo or -G */
        ob_puts(out, s->instructions ? "  no source lines: no .debug_line row covers its code\n" : "  no SASS\n");
        free(order);
        return EXIT_OK;
    }
    ob_printf(out, "  top %zu source lines by SASS bytes:\n", shown);
    ob_puts(out, "      bytes     incl  insns    ptx  line\n");
    for (size_t k = 0; k < shown; k++) {
        const cudw_corr_cost *l = cudw_corr_line_get(c, order[k]);
        ob_commas(out, l->sass_bytes, 11);
        ob_commas(out, l->sass_bytes_inclusive, 9);
        ob_commas(out, l->sass_instructions, 7);
        ob_commas(out, l->ptx_instructions, 7);
        ob_puts(out, "  ");
        if (!l->name) {
            ob_puts(out, l->line ? "??" : "(no line)\n");
            if (!l->line)
                continue;
        } else {
            ob_puts(out, l->name);
        }
        ob_putc(out, ':');
        ob_dec(out, l->line);
        line_functions_text(o, c, order[k], out);
        ob_putc(out, '\n');
        callers_text(o, c, order[k], out);
    }
    free(order);
    totals_text(o, c, "functions", cudw_corr_function_count(c), cudw_corr_function_get, out);
    totals_text(o, c, "files", cudw_corr_file_count(c), cudw_corr_file_get, out);
    return EXIT_OK;
}

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
            ob_puts(&out_stdout, help);
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
            char *end;
            unsigned long v = strtoul(a.value, &end, 10);
            if (end == a.value || *end) {
                usage_error("correlate", "--top %s: expected a number", a.value);
                return EXIT_USAGE;
            }
            o->top = v;
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
    return 0;
}

/* The correlations to print: one per image (those --function names). */
static int correlate_all(const corr_opts *o, const char *path, cudw_symbolizer *s, const cudw_ptx *ptx,
                         cudw_correlation ***out, size_t *n)
{
    size_t ni = cudw_symbolizer_image_count(s);
    cudw_correlation **v = calloc(ni ? ni : 1, sizeof *v);
    if (!v) {
        eprintf("%s: out of memory\n", progname);
        return EXIT_BAD_INPUT;
    }
    *out = v;
    *n = 0;
    cudw_correlate_opts co = {ptx, o->function, 0};
    size_t skipped = 0;
    for (size_t i = 0; i < ni; i++) {
        int rc = cudw_correlate(s, i, &co, &v[*n]);
        const cudw_error *e = cudw_symbolizer_error(s);
        if (rc == CUDW_E_NOT_FOUND && o->function && e->what && !strcmp(e->what, "function"))
            continue; /* another image defines it */
        if (rc) {
            char msg[600];
            cudw_error_format(e, msg, sizeof msg);
            eprintf("%s: %s: %s\n", progname, path, msg);
            return EXIT_BAD_INPUT;
        }
        if (!cudw_corr_summary_get(v[*n])->code_bytes) { /* no code: notes and call graphs only */
            cudw_correlation_close(v[*n]);
            v[*n] = NULL;
            skipped++;
            continue;
        }
        (*n)++;
    }
    if (!*n && skipped) {
        eprintf("%s: %s: no code in its %zu image%s\n", progname, path, skipped, skipped == 1 ? "" : "s");
        return EXIT_BAD_INPUT;
    }
    if (!*n) { /* why, in the resolver's words: the nearest names */
        const char *m;
        char msg[600];
        if (cudw_symbolizer_resolve(s, o->function, strlen(o->function), &m) == CUDW_OK)
            snprintf(msg, sizeof msg, "no image defines function %s", o->function);
        else
            snprintf(msg, sizeof msg, "%s", cudw_symbolizer_error(s)->detail);
        eprintf("%s: %s: %s\n", progname, path, msg);
        return EXIT_BAD_INPUT;
    }
    if (o->html && *n > 1) {
        eprintf("%s: %s: %zu images; --html shows one: choose it with --sm N or --function NAME\n", progname, path,
                *n);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int write_reports(const corr_opts *o, cudw_correlation **v, size_t n, obuf *out)
{
    int rc = EXIT_OK;
    if (o->html)
        return correlate_html(o, v[0], out);
    if (o->json) {
        json j;
        json_init(&j, out);
        json_arr(&j, NULL);
        for (size_t i = 0; i < n; i++)
            correlate_json(o, v[i], &j);
        json_end_arr(&j);
        ob_putc(out, '\n');
        return EXIT_OK;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (i)
            ob_putc(out, '\n');
        rc = report_text(o, v[i], out);
    }
    return rc;
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
        const cudw_ptx_diag *d = ptx ? cudw_ptx_error(ptx) : NULL;
        eprintf("%s: %s:%llu:%llu: %s\n", progname, o.ptx_path, d ? (unsigned long long)d->line : 0ull,
                d ? (unsigned long long)d->column : 0ull, d ? d->text : "out of memory");
        cudw_ptx_close(ptx);
        return EXIT_BAD_INPUT;
    }
    cudw_symbolizer_opts so = {CUDW_SYM_PTX | CUDW_SYM_DEMANGLE, sel_sm, sel_variant, debug_file};
    cudw_symbolizer *s = NULL;
    cudw_correlation **v = NULL;
    size_t n = 0;
    if (cudw_symbolizer_open(&s, path, &so)) {
        char msg[600];
        if (s)
            cudw_error_format(cudw_symbolizer_error(s), msg, sizeof msg);
        eprintf("%s: %s: %s\n", progname, path, s ? msg : "out of memory");
        rc = EXIT_BAD_INPUT;
    } else {
        rc = correlate_all(&o, path, s, ptx, &v, &n);
    }
    if (!rc) {
        if (!o.out || !strcmp(o.out, "-")) {
            rc = write_reports(&o, v, n, &out_stdout);
        } else {
            static file_out fo; /* 64 KiB of buffer: not on the stack */
            char err[600];
            if (atomic_open(&fo.af, o.out, err, sizeof err)) {
                eprintf("%s: %s\n", progname, err);
                rc = EXIT_BAD_INPUT;
            } else {
                fo.ob.sink = to_file;
                rc = write_reports(&o, v, n, &fo.ob);
                ob_flush(&fo.ob);
                if (rc || fo.failed || atomic_commit(&fo.af, err, sizeof err)) {
                    if (!rc)
                        eprintf("%s: %s\n", progname, fo.failed ? "cannot write the output" : err);
                    atomic_abort(&fo.af);
                    rc = rc ? rc : EXIT_BAD_INPUT;
                }
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        cudw_correlation_close(v[i]);
    free(v);
    cudw_symbolizer_close(s);
    cudw_ptx_close(ptx);
    return rc;
}
