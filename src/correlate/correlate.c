/* Source <-> PTX <-> SASS for one image (cudwarf.h, chapter correlate).
 *
 * Every SASS instruction of the image's .text.* sections is looked up as
 * the symbolizer looks up any address (frames, PTX line); where the PTX
 * still has its directives, the .loc in effect at that PTX line is set
 * beside the frames and the difference classified.  Instructions with the
 * same frames as the one before share them (a loop body of forty
 * instructions on one inlined line stores its chain once). */
#include "corr.h"
#include "../ptx/ptx_handle.h"

#include <stdio.h>
#include <stdlib.h>

int corr_fail(cudw_correlation *c, int code, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&c->s->err, code, NULL, 0, what, fmt, ap);
    va_end(ap);
    return code;
}

const char *cudw_corr_reason_name(int reason)
{
    static const char *const names[] = {NULL, "line-0 .loc", "function brace line", "sticky name",
                                        "context change without a line change", "file change on the same line",
                                        "no row", "other"};
    return reason > 0 && reason <= CUDW_CORR_OTHER ? names[reason] : NULL;
}

const char *cudw_corr_reason_text(int reason)
{
    static const char *const text[] = {
        NULL,
        "the PTX's .loc gives line 0 (no source line); ptxas writes no row for it, so the line before stays",
        "the PTX line is the function's opening brace; the line table puts the entry on the first statement",
        "the same source lines, but ptxas kept naming an earlier inlined function (a sticky 0x90 name)",
        "the same line in another inline context; ptxas writes a row only when the line changes",
        "the same line number in another file; ptxas writes no row for that either",
        "the .loc names a line, but no .debug_line row covers the instruction's address",
        "the .loc chain and the line table's frames differ in another way",
    };
    return reason > 0 && reason <= CUDW_CORR_OTHER ? text[reason] : NULL;
}

/* ---- PTX texts ---- */

static int add_text(cudw_correlation *c, const cudw_section *sec)
{
    if (sym_grow((void **)&c->ptx, &c->ptx_cap, c->nptx, sizeof *c->ptx) ||
        sym_grow((void **)&c->text, &c->text_cap, c->nptx, sizeof *c->text))
        return CUDW_E_NOMEM;
    uint64_t lines = 0;
    int rc = cudw_ptx_line_count(c->x->f, sec, &lines);
    if (rc < 0)
        return rc;
    c->ptx[c->nptx] = (cudw_corr_ptx){CUDW_PTX_FROM_SECTION, sec->name, sec, NULL, lines};
    c->text[c->nptx++] = (corr_text){0};
    return CUDW_OK;
}

/* The section texts p's lines are: it stands for the first. */
static int adopt(cudw_correlation *c, const cudw_ptx *p, int from, const char *name)
{
    for (size_t i = 0; i < c->nptx; i++) {
        uint64_t line;
        if (c->ptx[i].from != CUDW_PTX_FROM_SECTION || cudw_ptx_matches(c->x->f, p, c->ptx[i].section, &line))
            continue;
        c->ptx[i].from = from;
        c->ptx[i].name = name;
        c->ptx[i].ptx = p;
        return (int)i;
    }
    return -1;
}

/* A PTX entry of the image's container for its SM whose lines are one of
 * the sections' (nvcc's whitespace collapsing is no difference). */
static int fatbin_ptx(cudw_correlation *c)
{
    const cudw_input *in = c->s->in;
    const cudw_input_image *me = c->x->info;
    if (!in || me->container == (size_t)-1)
        return CUDW_OK;
    for (size_t j = 0, n = cudw_input_count(in); j < n; j++) {
        const cudw_input_image *im = cudw_input_peek(in, j);
        if (im->kind != CUDW_FATBIN_PTX || im->container != me->container || im->sm != me->sm)
            continue;
        cudw_image *img = NULL;
        cudw_ptx *p = NULL;
        int rc = cudw_input_load(in, j, &img);
        if (rc == CUDW_E_NOMEM)
            return rc;
        if (!rc)
            rc = cudw_ptx_read((const char *)img->data, img->size, im->label, &p);
        int at = rc ? -1 : adopt(c, p, CUDW_PTX_FROM_FATBIN, im->label);
        if (at < 0) { /* unreadable or another program's: not this image's PTX */
            cudw_ptx_close(p);
            cudw_image_close(img);
            if (rc == CUDW_E_NOMEM)
                return rc;
            continue;
        }
        c->text[at].own = p;
        c->text[at].img = img;
    }
    return CUDW_OK;
}

static int load_texts(cudw_correlation *c, const cudw_correlate_opts *o)
{
    cudw_file *f = c->x->f;
    for (unsigned i = 1, n = cudw_section_count(f); i < n; i++) {
        const cudw_section *sec = cudw_section_get(f, i);
        if (sec->name && !strncmp(sec->name, ".nv_debug_ptx_txt", 17)) {
            int rc = add_text(c, sec);
            if (rc)
                return rc;
        }
    }
    if (o->ptx) {
        if (!c->nptx)
            return corr_fail(c, CUDW_E_NOT_FOUND, "PTX text", "%s has no .nv_debug_ptx_txt to check %s against",
                             c->x->info->label, cudw_ptx_name(o->ptx));
        if (adopt(c, o->ptx, CUDW_PTX_FROM_FILE, cudw_ptx_name(o->ptx)) < 0) {
            uint64_t line = 0;
            cudw_ptx_matches(c->x->f, o->ptx, c->ptx[0].section, &line);
            return corr_fail(c, CUDW_E_NOT_FOUND, "PTX text",
                             "%s is not the PTX %s was made from (line %llu differs from %s)",
                             cudw_ptx_name(o->ptx), c->x->info->label, (unsigned long long)line,
                             c->ptx[0].name);
        }
    }
    if (!(o->flags & CUDW_CORR_NO_FATBIN_PTX))
        return fatbin_ptx(c);
    return CUDW_OK;
}

/* The text of section, or CUDW_CORR_NO_TEXT (a .nv_debug_line_sass row
 * whose PTX section the image lacks). */
static size_t text_of(const cudw_correlation *c, const char *section)
{
    for (size_t i = 0; section && i < c->nptx; i++)
        if (!strcmp(c->ptx[i].section->name, section))
            return i;
    return CUDW_CORR_NO_TEXT;
}

int cudw_corr_ptx_line(cudw_correlation *c, size_t i, uint64_t line, const char **text, size_t *len)
{
    if (i >= c->nptx || !line || line > c->ptx[i].lines)
        return CUDW_DONE;
    const cudw_ptx *p = c->ptx[i].ptx;
    if (!p) {
        int rc = cudw_ptx_line(c->x->f, c->ptx[i].section, line, text);
        if (rc == CUDW_OK)
            *len = strlen(*text);
        return rc;
    }
    corr_text *t = &c->text[i];
    const char *data = p->data;
    if (!t->starts) { /* one pass over the text, on first use */
        uint64_t n = cudw_ptx_text_lines(p);
        if (!(t->starts = malloc((n + 1) * sizeof *t->starts)))
            return corr_fail(c, CUDW_E_NOMEM, "PTX text", "out of memory");
        uint64_t k = 0, pos = 0;
        while (k < n && pos <= p->size) {
            t->starts[k++] = pos;
            const char *e = memchr(data + pos, '\n', p->size - pos);
            pos = e ? (uint64_t)(e - data) + 1 : p->size + 1;
        }
        t->starts[k] = p->size + 1;
        t->nstarts = k;
    }
    if (line > t->nstarts)
        return CUDW_DONE;
    uint64_t a = t->starts[line - 1], b = t->starts[line] - 1;
    while (b > a && (data[b - 1] == '\r'))
        b--;
    *text = data + a;
    *len = (size_t)(b - a);
    return CUDW_OK;
}

/* ---- the .loc chain against the frames ---- */

static int same_path(const char *a, const char *b) { return a && b && !strcmp(a, b); }

static const char *loc_path(const cudw_ptx *p, const cudw_ptx_loc *l)
{
    const cudw_ptx_file *pf = cudw_ptx_file_find(p, l->file);
    return pf ? pf->path : NULL;
}

static int classify(const cudw_ptx *p, int brace, size_t loc, const cudw_sym_frame *fr, size_t n)
{
    const cudw_ptx_loc *l = cudw_ptx_loc_get(p, loc);
    if (!n)
        return l->line ? CUDW_CORR_NO_ROW : CUDW_CORR_LINE_ZERO;
    if (!l->line)
        return CUDW_CORR_LINE_ZERO;
    size_t k = 0;
    int names = 1;
    for (const cudw_ptx_loc *m = l; m; m = m->inlined_at ? cudw_ptx_loc_get(p, m->inlined_at) : NULL, k++) {
        if (k >= n || m->line != fr[k].line || !same_path(loc_path(p, m), fr[k].file))
            goto differ;
        if (m->name && fr[k].function && strcmp(m->name, fr[k].function))
            names = 0;
    }
    if (k == n)
        return names ? CUDW_CORR_AGREE : CUDW_CORR_NAME;
differ:
    if (brace)
        return CUDW_CORR_BRACE;
    if (l->line == fr[0].line)
        return same_path(loc_path(p, l), fr[0].file) ? CUDW_CORR_CONTEXT : CUDW_CORR_FILE;
    return CUDW_CORR_OTHER;
}

static void set_loc(const cudw_correlation *c, cudw_corr_insn *in, const cudw_sym_frame *fr, size_t n)
{
    const cudw_ptx *p = in->ptx_line && in->ptx < c->nptx ? c->ptx[in->ptx].ptx : NULL;
    if (!p)
        return;
    cudw_ptx_where w;
    cudw_ptx_where_is(p, in->ptx_line, &w);
    int brace = w.kind == CUDW_PTX_BRACE;
    if (brace) /* the entry row stands for the function's first .loc */
        w.loc = cudw_ptx_func_get(p, w.function)->first_loc;
    in->loc = w.kind == CUDW_PTX_OUTSIDE ? 0 : w.loc;
    if (in->loc)
        in->reason = classify(p, brace, in->loc, fr, n);
}

/* ---- the instructions ---- */

static int same_frames(const cudw_sym_frame *a, const cudw_sym_frame *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (a[k].function != b[k].function || a[k].file != b[k].file || a[k].line != b[k].line ||
            a[k].column != b[k].column || a[k].source != b[k].source)
            return 0;
    return 1;
}

static int add_insn(cudw_correlation *c, size_t image, const cudw_code_section *cs, const char *name,
                    const sym_func *own, uint64_t addr, uint32_t size)
{
    enum { CAP = 64 };
    cudw_sym_frame fr[CAP];
    cudw_sym_result r;
    int rc = cudw_symbolize_address(c->s, image, cs->section, addr, &r, fr, CAP);
    if (rc)
        return rc;
    size_t n = r.found ? (r.nframes < CAP ? r.nframes : CAP) : 0;
    if (sym_grow((void **)&c->insns, &c->insn_cap, c->ninsns, sizeof *c->insns) ||
        sym_grow((void **)&c->span, &c->span_cap, c->ninsns, sizeof *c->span))
        return CUDW_E_NOMEM;
    size_t i = c->ninsns;
    cudw_corr_insn *in = &c->insns[i];
    *in = (cudw_corr_insn){cs->section, name, addr, r.symbol, r.offset, r.symbol, r.offset, size, NULL, 0,
                           CUDW_CORR_NO_TEXT, 0, 0, 0};
    if (own) { /* as the line rows name it: the section's function */
        in->symbol = own->name;
        in->offset = addr - own->value;
    }
    if (cs->data && addr + size <= cs->size)
        in->bytes = cs->data + addr;
    if (r.has_ptx) {
        in->ptx_line = r.ptx_line;
        in->ptx = text_of(c, r.ptx_section);
        c->sum.with_ptx++;
    }
    struct corr_span *sp = &c->span[i];
    const struct corr_span *prev = i ? &c->span[i - 1] : NULL;
    if (prev && prev->n == n && same_frames(&c->frames[prev->first], fr, n)) {
        *sp = *prev;
    } else {
        if (sym_grow((void **)&c->frames, &c->frame_cap, c->nframes + n, sizeof *c->frames))
            return CUDW_E_NOMEM;
        memcpy(c->frames + c->nframes, fr, n * sizeof *fr);
        *sp = (struct corr_span){(uint32_t)c->nframes, (uint32_t)n};
        c->nframes += n;
    }
    c->ninsns++;
    c->sum.with_line += n != 0;
    set_loc(c, in, fr, n);
    c->sum.disagree += in->reason != CUDW_CORR_AGREE;
    return corr_charge(c, i);
}

/* The function symbol opts name, as people type it (names.c): in this
 * image, or an error (several functions of that name: CUDW_E_ARG; none
 * here: CUDW_E_NOT_FOUND). */
static int named(cudw_correlation *c, const char *name, const sym_func **out)
{
    *out = sym_func_named(c->x, name, strlen(name));
    if (*out)
        return CUDW_OK;
    const char *m;
    int rc = sym_resolve_quiet(c->s, name, strlen(name), &m);
    if (rc == CUDW_E_ARG) /* several: the message that lists them (no nearest names to look for) */
        rc = cudw_symbolizer_resolve(c->s, name, strlen(name), &m);
    if (rc == CUDW_E_ARG || rc == CUDW_E_NOMEM)
        return corr_fail(c, rc, "function", "%s", c->s->err.detail);
    if (rc == CUDW_OK)
        *out = sym_func_named(c->x, m, strlen(m));
    if (!*out)
        return corr_fail(c, CUDW_E_NOT_FOUND, "function", "no function %s in %s", name, c->x->info->label);
    return CUDW_OK;
}

static int walk(cudw_correlation *c, size_t image, const cudw_correlate_opts *o)
{
    cudw_file *f = c->s->given ? c->s->given : c->x->img->elf;
    const sym_func *only = NULL;
    int rc = o->function ? named(c, o->function, &only) : CUDW_OK;
    if (rc)
        return rc;
    c->only = only;
    uint32_t size = cudw_header(f)->sm >= 70 || !cudw_header(f)->sm ? 16 : 8;
    uint64_t classes[CUDW_SIZE_NCLASSES];
    rc = cudw_image_sizes(f, classes);
    if (rc)
        return rc;
    c->sum.code_bytes = classes[CUDW_SIZE_CODE];
    unsigned cur = 0;
    cudw_code_section cs;
    while (cudw_code_next(f, &cur, &cs) == CUDW_OK) {
        const cudw_section *sec = cudw_section_get(f, cs.section);
        /* the bytes the file holds (a section header may claim more: the
         * walk never goes past them) */
        uint64_t bytes = cs.size;
        if (cs.capsule) {
            c->sum.capsule_bytes += bytes;
            continue;
        }
        if (!only)
            c->sum.sass_bytes += bytes;
        /* the symbolizer's functions are numbered as its file (a debug
         * companion's, when it reads one) numbers sections */
        unsigned sym_section = sym_section_of(c->x, cs.section);
        uint64_t lo = 0, hi = bytes;
        const sym_func *own = sym_func_named(c->x, cs.function, strlen(cs.function));
        if (own && (own->shndx != sym_section || own->value > lo))
            own = NULL;
        if (only) {
            if (only->shndx != sym_section)
                continue;
            lo = only->value;
            hi = only->value + only->size < hi ? only->value + only->size : hi;
        }
        if (only && hi > lo)
            c->sum.sass_bytes += hi - lo;
        for (uint64_t a = lo; a + size <= hi; a += size) {
            if ((rc = add_insn(c, image, &cs, sec->name, own, a, size)))
                return rc;
        }
    }
    return CUDW_OK;
}

int cudw_correlate(cudw_symbolizer *s, size_t image, const cudw_correlate_opts *opts, cudw_correlation **out)
{
    *out = NULL;
    cudw_correlate_opts none = {0};
    if (!opts)
        opts = &none;
    if (!(s->flags & CUDW_SYM_PTX))
        return symbolizer_fail(s, CUDW_E_ARG, "correlate", "the symbolizer was not opened with CUDW_SYM_PTX");
    if (image >= s->nimages)
        return symbolizer_fail(s, CUDW_E_ARG, "correlate", "no image %zu (%zu selected)", image, s->nimages);
    int rc = sym_ensure_image(s, &s->images[image]);
    if (rc)
        return rc;
    cudw_correlation *c = calloc(1, sizeof *c);
    if (!c)
        return symbolizer_fail(s, CUDW_E_NOMEM, "correlate", "out of memory");
    c->s = s;
    c->x = &s->images[image];
    c->sum.image = c->x->info->label;
    c->sum.sm = cudw_header(c->x->f)->sm;
    if (!(rc = load_texts(c, opts)) && !(rc = walk(c, image, opts)))
        rc = corr_finish(c);
    if (rc) {
        if (rc == CUDW_E_NOMEM && s->err.code != CUDW_E_NOMEM)
            symbolizer_fail(s, rc, "correlate", "out of memory");
        cudw_correlation_close(c);
        return rc;
    }
    *out = c;
    return CUDW_OK;
}

void cudw_correlation_close(cudw_correlation *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nptx; i++) {
        cudw_ptx_close(c->text[i].own);
        cudw_image_close(c->text[i].img);
        free(c->text[i].starts);
    }
    free(c->ptx);
    free(c->text);
    free(c->insns);
    free(c->span);
    free(c->frames);
    corr_costs_free(&c->lines);
    corr_costs_free(&c->funcs);
    corr_costs_free(&c->files);
    free(c->linefns);
    free(c->linefn_first);
    free(c->callers);
    free(c->caller_first);
    free(c);
}

const cudw_corr_summary *cudw_corr_summary_get(const cudw_correlation *c) { return &c->sum; }
size_t cudw_corr_ptx_count(const cudw_correlation *c) { return c->nptx; }
const cudw_corr_ptx *cudw_corr_ptx_get(const cudw_correlation *c, size_t i) { return i < c->nptx ? &c->ptx[i] : NULL; }
size_t cudw_corr_insn_count(const cudw_correlation *c) { return c->ninsns; }
const cudw_corr_insn *cudw_corr_insn_get(const cudw_correlation *c, size_t i) { return i < c->ninsns ? &c->insns[i] : NULL; }

const cudw_sym_frame *cudw_corr_frames(const cudw_correlation *c, size_t i, size_t *n)
{
    *n = i < c->ninsns ? c->span[i].n : 0;
    return *n ? &c->frames[c->span[i].first] : NULL;
}

size_t cudw_corr_line_count(const cudw_correlation *c) { return c->lines.n; }
const cudw_corr_cost *cudw_corr_line_get(const cudw_correlation *c, size_t i) { return i < c->lines.n ? &c->lines.v[i] : NULL; }
size_t cudw_corr_function_count(const cudw_correlation *c) { return c->funcs.n; }
const cudw_corr_cost *cudw_corr_function_get(const cudw_correlation *c, size_t i) { return i < c->funcs.n ? &c->funcs.v[i] : NULL; }
size_t cudw_corr_file_count(const cudw_correlation *c) { return c->files.n; }
const cudw_corr_cost *cudw_corr_file_get(const cudw_correlation *c, size_t i) { return i < c->files.n ? &c->files.v[i] : NULL; }

/* the name of 0.1 */
void cudw_correlation_free(cudw_correlation *c) { cudw_correlation_close(c); }
