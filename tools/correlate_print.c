/* cudwarf correlate's records, each through one printer with two styles
 * (emit.h): the text report and --json's object per image, the schema
 * docs/json.md describes; the page of correlate_html.c writes its summary
 * and its PTX texts' descriptors through correlate_summary, so that both
 * have one schema.  The text shows the top records by SASS bytes, JSON
 * every one in the library's order; where the two order a record's fields
 * differently, each style's field is written once in its own place. */
#include "correlate_out.h"

#include <stdlib.h>
#include <string.h>

typedef const cudw_corr_cost *(*cost_get)(const cudw_correlation *, size_t);

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

/* A function's name under JSON's key: with -C the demangled name, and the
 * linkage name beside it (addr2line --json's frames' rule).  The text
 * shows the demangled name with its own label, later. */
static void fn_json(emit *e, const corr_opts *o, const char *key, const char *name)
{
    char buf[4096];
    const char *d = name ? demangled(o, name, buf, sizeof buf) : NULL;
    em_str(e, key, NULL, 0, d);
    if (d && d != name)
        em_str(e, "linkage_name", NULL, 0, name);
}

/* ---- the summary ---- */

/* Where a PTX text came from: JSON's word, or the text's */
static const char *ptx_from(int from, int as_json)
{
    if (from == CUDW_PTX_FROM_FILE)
        return as_json ? "file" : "the file given";
    if (from == CUDW_PTX_FROM_FATBIN)
        return as_json ? "fatbin" : "the fatbin's PTX entry";
    return as_json ? "section" : "the image's copy, without .loc directives";
}

/* The PTX texts the image was matched with */
static void ptx_print(emit *e, const cudw_correlation *c)
{
    em_arr(e, "ptx");
    for (size_t i = 0, n = cudw_corr_ptx_count(c); i < n; i++) {
        const cudw_corr_ptx *p = cudw_corr_ptx_get(c, i);
        em_obj(e, NULL);
        em_str(e, "source", NULL, 0, ptx_from(p->from, 1));
        em_str_or(e, NULL, "  PTX ", p->section->name, "");
        /* the text names the PTX once when it is the section itself */
        em_str(e, "name", p->name && strcmp(p->name, p->section->name) ? ": " : NULL, 0, p->name);
        em_str(e, "section", NULL, 0, p->section->name);
        em_u64(e, "lines", NULL, 0, p->lines);
        em_str_or(e, NULL, " (", ptx_from(p->from, 0), "");
        em_text(e, ")\n");
        em_end_obj(e);
    }
    em_end_arr(e);
}

/* The text's count of instructions per reason their frames differ */
static void reason_counts(emit *e, const cudw_correlation *c)
{
    uint64_t why[CUDW_CORR_OTHER + 1] = {0};
    for (size_t i = 0, n = cudw_corr_insn_count(c); i < n; i++)
        why[cudw_corr_insn_get(c, i)->reason]++;
    for (int r = 1; r <= CUDW_CORR_OTHER; r++) {
        if (!why[r])
            continue;
        em_u64(e, NULL, "    ", EM_DEC, why[r]);
        em_str_or(e, NULL, " ", cudw_corr_reason_name(r), "");
        em_str_or(e, NULL, ": ", cudw_corr_reason_text(r), "");
        em_text(e, "\n");
    }
}

/* The image's counts, and its PTX texts.  The text has the instructions
 * before the bytes and its PTX texts before the line counts; JSON the
 * other way round. */
void correlate_summary(emit *e, const cudw_correlation *c)
{
    const cudw_corr_summary *s = cudw_corr_summary_get(c);
    int named = s->image && s->image[0] && s->image[strlen(s->image) - 1] == ']'; /* a label says its SM */
    em_str(e, "image", "", 0, s->image);
    em_u64(e, "sm", named ? NULL : " (sm_", EM_DEC, s->sm);
    em_text(e, named ? ": " : "): ");
    em_u64(e, "code_bytes", NULL, 0, s->code_bytes);
    em_u64(e, "sass_bytes", NULL, 0, s->sass_bytes);
    em_u64(e, "capsule_bytes", NULL, 0, s->capsule_bytes);
    em_commas(e, "instruction_count", "", 0, s->instructions);
    em_commas(e, NULL, " SASS instructions, ", 0, s->sass_bytes);
    em_text(e, " bytes\n");
    if (s->capsule_bytes) {
        em_commas(e, NULL, "  + ", 0, s->capsule_bytes);
        em_text(e, " bytes of Mercury capsules (code, not SASS: not correlated)\n");
    }
    if (!e->j)
        ptx_print(e, c);
    if (!s->ptx_by_loc && cudw_corr_ptx_count(c)) /* the ptx column means something else then: say what */
        em_text(e, "  (so the ptx column counts the PTX lines of each line's SASS; with --ptx FILE.ptx,\n"
                   "  the PTX instructions whose .loc names the line)\n");
    em_commas(e, "with_line", "  ", 0, s->with_line);
    em_commas(e, "with_ptx", " with a source line, ", 0, s->with_ptx);
    em_text(e, " with a PTX line");
    em_commas(e, "disagree", s->disagree ? "; " : NULL, 0, s->disagree);
    em_text(e, s->disagree ? " whose line-table frames differ from what the PTX's .loc says\n" : "\n");
    if (s->disagree && !e->j)
        reason_counts(e, c);
    em_str(e, "ptx_instructions_by", NULL, 0, s->ptx_by_loc ? "loc" : "sass");
    if (e->j)
        ptx_print(e, c);
}

/* ---- the instructions (JSON's alone: the text reports costs only) ---- */

/* The .loc chain of an instruction whose frames it is not. */
static void loc_print(emit *e, const corr_opts *o, const cudw_correlation *c, const cudw_corr_insn *in)
{
    const cudw_ptx *p = cudw_corr_ptx_get(c, in->ptx)->ptx;
    em_obj(e, "loc");
    em_u64(e, "ptx_line", NULL, 0, cudw_ptx_loc_get(p, in->loc)->ptx_line);
    em_str(e, "reason", NULL, 0, cudw_corr_reason_name(in->reason));
    em_arr(e, "frames");
    for (size_t k = in->loc; k; k = cudw_ptx_loc_get(p, k)->inlined_at) {
        const cudw_ptx_loc *l = cudw_ptx_loc_get(p, k);
        const cudw_ptx_file *pf = cudw_ptx_file_find(p, l->file);
        em_obj(e, NULL);
        fn_json(e, o, "function", l->name);
        em_str(e, "path", NULL, 0, pf ? pf->path : NULL);
        em_u64(e, "line", NULL, 0, l->line);
        em_u64(e, "column", NULL, 0, l->column);
        em_u64(e, "ptx_line", NULL, 0, l->ptx_line);
        em_end_obj(e);
    }
    em_end_arr(e);
    em_end_obj(e);
}

static void insn_print(emit *e, const corr_opts *o, const cudw_correlation *c, size_t i)
{
    const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
    em_obj(e, NULL);
    em_str(e, "section", NULL, 0, in->section_name);
    em_u64(e, "pc", NULL, 0, in->pc);
    em_str(e, "symbol", NULL, 0, in->symbol);
    if (in->symbol)
        em_u64(e, "offset", NULL, 0, in->offset);
    if (in->func && (!in->symbol || strcmp(in->func, in->symbol))) { /* a callee ptxas placed in the section */
        em_str(e, "function_symbol", NULL, 0, in->func);
        em_u64(e, "function_offset", NULL, 0, in->func_offset);
    }
    em_u64(e, "size", NULL, 0, in->size);
    if (in->ptx_line && in->ptx != CUDW_CORR_NO_TEXT)
        em_u64(e, "ptx", NULL, 0, in->ptx);
    else if (in->ptx_line)
        em_null(e, "ptx");
    if (in->ptx_line)
        em_u64(e, "ptx_line", NULL, 0, in->ptx_line);
    else
        em_null(e, "ptx_line");
    size_t nf;
    const cudw_sym_frame *fr = cudw_corr_frames(c, i, &nf);
    frames_print(e, "frames", fr, nf, 0, 0, o->demangle); /* -f and -p: addr2line's text */
    if (in->reason)
        loc_print(e, o, c, in);
    em_end_obj(e);
}

/* ---- the costs ---- */

/* The functions with code on line L: the text one name, or each with its
 * bytes (a template line two instantiations share), four at most; JSON
 * every one with its counts. */
static void line_functions_print(emit *e, const corr_opts *o, const cudw_correlation *c, size_t L)
{
    const cudw_corr_line_fn *v;
    size_t n = cudw_corr_line_functions(c, L, &v), shown = e->j || n <= 4 ? n : 4;
    em_arr(e, "functions");
    for (size_t k = 0; k < shown; k++) {
        char buf[4096];
        em_obj(e, NULL);
        fn_json(e, o, "function", v[k].function);
        em_str_or(e, NULL, k ? ", " : "  ", demangled(o, v[k].function, buf, sizeof buf), "");
        em_u64(e, "sass_bytes", n > 1 ? " " : NULL, EM_DEC, v[k].sass_bytes);
        em_text(e, n > 1 ? " B" : "");
        em_u64(e, "sass_instructions", NULL, 0, v[k].sass_instructions);
        em_end_obj(e);
    }
    em_end_arr(e);
    if (n > shown) {
        em_u64(e, NULL, ", ", EM_DEC, n - shown);
        em_text(e, " more");
    }
}

/* A call site line L's instructions were inlined at */
static void caller_print(emit *e, const corr_opts *o, const cudw_corr_caller *w)
{
    char buf[4096];
    em_obj(e, NULL);
    em_str(e, "path", NULL, 0, w->file);
    em_u64(e, "line", NULL, 0, w->line);
    fn_json(e, o, "function", w->function);
    em_commas(e, "sass_bytes", "            ", 9, w->sass_bytes);
    em_u64(e, "sass_instructions", NULL, 0, w->sass_instructions);
    em_str_or(e, NULL, " B inlined at ", base(w->file), "");
    em_u64(e, NULL, ":", EM_DEC, w->line);
    em_str_or(e, NULL, "  ", demangled(o, w->function, buf, sizeof buf), "");
    em_text(e, "\n");
    em_end_obj(e);
}

/* Where line L's instructions were inlined from: the direct call sites
 * (cudw_corr_line_callers); the text's three, and the rest summed. */
static void callers_print(emit *e, const corr_opts *o, const cudw_correlation *c, size_t L)
{
    const cudw_corr_caller *v;
    size_t n = cudw_corr_line_callers(c, L, &v), shown = e->j || n <= 3 ? n : 3;
    em_arr(e, "callers");
    for (size_t k = 0; k < shown; k++)
        caller_print(e, o, &v[k]);
    em_end_arr(e);
    uint64_t rest = 0;
    for (size_t k = shown; k < n; k++)
        rest += v[k].sass_bytes;
    if (rest) {
        em_commas(e, NULL, "            ", 9, rest);
        em_u64(e, NULL, " B inlined at ", EM_DEC, n - shown);
        em_text(e, n - shown == 1 ? " other call site\n" : " other call sites\n");
    }
}

/* A source line's costs, then its functions and call sites ("(no line)",
 * the instructions no row covers, has none in the text) */
static void source_line_print(emit *e, const corr_opts *o, const cudw_correlation *c, size_t L)
{
    const cudw_corr_cost *k = cudw_corr_line_get(c, L);
    int row = k->name || k->line;
    em_obj(e, NULL);
    em_str(e, "path", NULL, 0, k->name);
    em_u64(e, "line", NULL, 0, k->line);
    em_commas(e, "sass_bytes", "", 11, k->sass_bytes);
    em_commas(e, "sass_bytes_inclusive", "", 9, k->sass_bytes_inclusive);
    em_commas(e, "sass_instructions", "", 7, k->sass_instructions);
    em_u64(e, "sass_instructions_inclusive", NULL, 0, k->sass_instructions_inclusive);
    em_commas(e, "ptx_instructions", "", 7, k->ptx_instructions);
    em_str_or(e, NULL, "  ", k->name, row ? "??" : "(no line)");
    if (row)
        em_u64(e, NULL, ":", EM_DEC, k->line);
    if (row || e->j)
        line_functions_print(e, o, c, L);
    em_text(e, "\n");
    if (row || e->j)
        callers_print(e, o, c, L);
    em_end_obj(e);
}

/* A function's or file's costs, inlined callees included; ptx: whether its
 * PTX count is known (JSON null, the text "-" otherwise) */
static void total_print(emit *e, const corr_opts *o, const cudw_corr_cost *k, const char *name_key, int ptx)
{
    char buf[4096];
    const char *name = !k->name ? "(no line)" : !strcmp(name_key, "function") ? demangled(o, k->name, buf, sizeof buf)
                                                                              : k->name;
    em_obj(e, NULL);
    if (!strcmp(name_key, "function"))
        fn_json(e, o, name_key, k->name);
    else
        em_str(e, name_key, NULL, 0, k->name);
    em_commas(e, NULL, "", 11, k->sass_bytes_inclusive);
    em_commas(e, "sass_bytes", "", 9, k->sass_bytes);
    em_u64(e, "sass_bytes_inclusive", NULL, 0, k->sass_bytes_inclusive);
    em_commas(e, "sass_instructions", "", 7, k->sass_instructions);
    em_u64(e, "sass_instructions_inclusive", NULL, 0, k->sass_instructions_inclusive);
    if (ptx) {
        em_commas(e, "ptx_instructions", "", 7, k->ptx_instructions);
    } else {
        em_null(e, "ptx_instructions");
        em_text(e, "      -");
    }
    em_str_or(e, NULL, "  ", name, "");
    em_text(e, "\n");
    em_end_obj(e);
}

/* ---- the order: JSON's every record as numbered, the text's top ones ---- */

static const cudw_correlation *rank_c;
static cost_get rank_get;
static int rank_incl; /* by the bytes with inlined callees */

static int by_bytes(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, k = *(const size_t *)b;
    const cudw_corr_cost *x = rank_get(rank_c, i), *y = rank_get(rank_c, k);
    uint64_t bx = rank_incl ? x->sass_bytes_inclusive : x->sass_bytes;
    uint64_t by = rank_incl ? y->sass_bytes_inclusive : y->sass_bytes;
    if (bx != by)
        return bx > by ? -1 : 1;
    if (x->sass_bytes_inclusive != y->sass_bytes_inclusive) /* a call site's line: by what it inlines */
        return x->sass_bytes_inclusive > y->sass_bytes_inclusive ? -1 : 1;
    return i < k ? -1 : 1;
}

/* The records of get to print, into order: their count.  The text's
 * lines are those with code (their own, or inlined at them), by their own
 * bytes, then their inclusive ones; its functions and files
 * by the bytes with inlined callees; at most --top of them. */
static size_t rank(emit *e, const corr_opts *o, const cudw_correlation *c, cost_get get, size_t n, size_t *order)
{
    int lines = get == cudw_corr_line_get;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) /* the text's lines: those with code, their own or inlined at them */
        if (e->j || !lines || get(c, i)->sass_bytes || get(c, i)->sass_bytes_inclusive)
            order[m++] = i;
    if (e->j)
        return m;
    rank_c = c;
    rank_get = get;
    rank_incl = !lines;
    qsort(order, m, sizeof *order, by_bytes);
    return o->top && m > o->top ? o->top : m;
}

/* The functions or files (what: JSON's key too) */
static void totals_print(emit *e, const corr_opts *o, const cudw_correlation *c, const char *what, cost_get get,
                         size_t n, size_t *order)
{
    size_t shown = rank(e, o, c, get, n, order);
    int files = !strcmp(what, "files");
    em_u64(e, NULL, "  top ", EM_DEC, shown);
    em_str_or(e, NULL, " ", shown != 1 ? what : files ? "file" : "function", "");
    em_text(e, " by SASS bytes with inlined callees:\n"
               "       incl    bytes  insns    ptx  name\n");
    em_arr(e, what);
    int ptx = cudw_corr_summary_get(c)->ptx_by_loc; /* else known per line only */
    for (size_t k = 0; k < shown; k++)
        total_print(e, o, get(c, order[k]), files ? "path" : "function", ptx);
    em_end_arr(e);
}

static void costs_print(emit *e, const corr_opts *o, const cudw_correlation *c, size_t *order)
{
    size_t shown = rank(e, o, c, cudw_corr_line_get, cudw_corr_line_count(c), order);
    em_u64(e, NULL, "  top ", EM_DEC, shown);
    em_text(e, shown == 1 ? " source line" : " source lines");
    em_text(e, " by SASS bytes:\n"
               "      bytes     incl  insns    ptx  line\n");
    em_arr(e, "source_lines");
    for (size_t k = 0; k < shown; k++)
        source_line_print(e, o, c, order[k]);
    em_end_arr(e);
    totals_print(e, o, c, "functions", cudw_corr_function_get, cudw_corr_function_count(c), order);
    totals_print(e, o, c, "files", cudw_corr_file_get, cudw_corr_file_count(c), order);
}

int correlate_print(const corr_opts *o, const cudw_correlation *c, emit *e)
{
    const cudw_corr_summary *s = cudw_corr_summary_get(c);
    size_t most = cudw_corr_line_count(c); /* the order of the longest list */
    if (cudw_corr_function_count(c) > most)
        most = cudw_corr_function_count(c);
    if (cudw_corr_file_count(c) > most)
        most = cudw_corr_file_count(c);
    size_t *order = malloc((most ? most : 1) * sizeof *order);
    if (!order) {
        eprintf("%s: out of memory\n", progname);
        return EXIT_BAD_INPUT;
    }
    em_obj(e, NULL);
    correlate_summary(e, c);
    em_arr(e, "instructions");
    for (size_t i = 0, n = e->j ? cudw_corr_insn_count(c) : 0; i < n; i++)
        insn_print(e, o, c, i);
    em_end_arr(e);
    if (!s->with_line && !e->j) /* built without -lineinfo or -G */
        em_text(e, s->instructions ? "  no source lines: no .debug_line row covers its code\n" : "  no SASS\n");
    else
        costs_print(e, o, c, order);
    em_end_obj(e);
    free(order);
    return EXIT_OK;
}
