/* What each source line, function and file of a correlation costs.
 *
 * Exclusive: an instruction is charged to its innermost frame's line,
 * function and file.  Inclusive: to every distinct one of its chain, once
 * (a recursion inlined into itself counts an instruction once per line).
 * An instruction no row covers goes to the entry with no name ("no
 * line"), so the exclusive SASS bytes of the lines add up to the walked
 * bytes.  PTX instructions are charged by their .loc when the PTX has
 * directives; otherwise a line counts the distinct PTX lines its SASS
 * instructions come from. */
#include "corr.h"

#include <stdlib.h>

void corr_costs_free(corr_costs *k)
{
    free(k->v);
    hmap_free(&k->idx);
    *k = (corr_costs){0};
}

static uint64_t key_hash(const char *name, uint64_t line)
{
    uint64_t h = name ? sym_hash(name, strlen(name)) : 0x51ed27;
    return h ^ (line * 0x9e3779b97f4a7c15ull);
}

/* The entry of (name, line), created when new: its index, or -1 (no memory). */
static long cost_at(corr_costs *k, const char *name, uint64_t line)
{
    uint64_t h = key_hash(name, line);
    hmap_probe p = hmap_probe_at(&k->idx, h);
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;) {
        const cudw_corr_cost *e = &k->v[r];
        if (e->line == line && (e->name == name || (e->name && name && !strcmp(e->name, name))))
            return (long)r;
    }
    if (sym_grow((void **)&k->v, &k->cap, k->n, sizeof *k->v) || hmap_add(&k->idx, h, (uint32_t)k->n))
        return -1;
    k->v[k->n] = (cudw_corr_cost){.name = name, .line = line};
    return (long)k->n++;
}

static int charge(corr_costs *k, const char *name, uint64_t line, uint32_t size, int exclusive, long *at)
{
    long i = cost_at(k, name, line);
    if (i < 0)
        return CUDW_E_NOMEM;
    cudw_corr_cost *e = &k->v[i];
    if (exclusive) {
        e->sass_bytes += size;
        e->sass_instructions++;
    }
    e->sass_bytes_inclusive += size;
    e->sass_instructions_inclusive++;
    if (at)
        *at = i;
    return CUDW_OK;
}

static const char *function_of(const cudw_sym_frame *f, const cudw_corr_insn *in)
{
    return f->function ? f->function : in->func;
}

int corr_charge(cudw_correlation *c, size_t i)
{
    cudw_corr_insn *in = &c->insns[i];
    /* the frames as cudw_corr_frames gives them, read here directly: this
     * file needs nothing of correlate.c */
    size_t n = c->span[i].n;
    const cudw_sym_frame *fr = n ? &c->frames[c->span[i].first] : NULL;
    long at;
    if (!n) { /* no row: "no line", the symbol's function, no file */
        if (charge(&c->lines, NULL, 0, in->size, 1, &at) || charge(&c->funcs, in->func, 0, in->size, 1, NULL) ||
            charge(&c->files, NULL, 0, in->size, 1, NULL))
            return CUDW_E_NOMEM;
        in->line = (size_t)at;
        return CUDW_OK;
    }
    for (size_t k = 0; k < n; k++) {
        int line_new = 1, fn_new = 1, file_new = 1;
        for (size_t j = 0; j < k; j++) {
            int same_file = fr[j].file == fr[k].file || (fr[j].file && fr[k].file && !strcmp(fr[j].file, fr[k].file));
            const char *a = function_of(&fr[j], in), *b = function_of(&fr[k], in);
            if (same_file && fr[j].line == fr[k].line)
                line_new = 0;
            if (a == b || (a && b && !strcmp(a, b)))
                fn_new = 0;
            if (same_file)
                file_new = 0;
        }
        if ((line_new && charge(&c->lines, fr[k].file, fr[k].line, in->size, !k, k ? NULL : &at)) ||
            (fn_new && charge(&c->funcs, function_of(&fr[k], in), 0, in->size, !k, NULL)) ||
            (file_new && charge(&c->files, fr[k].file, 0, in->size, !k, NULL)))
            return CUDW_E_NOMEM;
        if (!k)
            in->line = (size_t)at;
    }
    return CUDW_OK;
}

/* ---- PTX instructions ---- */

static int by_loc(cudw_correlation *c, const cudw_ptx *p)
{
    cudw_ptx_walk w = {0};
    cudw_ptx_insn pi;
    while (cudw_ptx_insn_next(p, &w, &pi) == CUDW_OK) {
        const cudw_ptx_loc *l = pi.loc ? cudw_ptx_loc_get(p, pi.loc) : NULL;
        if (!l || !l->line)
            continue;
        if (c->only && strcmp(cudw_ptx_func_get(p, pi.function)->name, c->only->name))
            continue;
        const cudw_ptx_file *pf = cudw_ptx_file_find(p, l->file);
        const char *path = pf ? pf->path : NULL;
        /* the function the .loc's line is in: the inlined one it names, else the PTX function */
        const char *fn = l->inlined_at && l->name ? l->name : cudw_ptx_func_get(p, pi.function)->name;
        long i = cost_at(&c->lines, path, l->line), g = cost_at(&c->funcs, fn, 0), h = cost_at(&c->files, path, 0);
        if (i < 0 || g < 0 || h < 0)
            return CUDW_E_NOMEM;
        c->lines.v[i].ptx_instructions++;
        c->funcs.v[g].ptx_instructions++;
        c->files.v[h].ptx_instructions++;
    }
    return CUDW_OK;
}

typedef struct use { size_t line, text; uint64_t ptx_line; } use;

static int use_cmp(const void *a, const void *b)
{
    const use *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->text != y->text)
        return x->text < y->text ? -1 : 1;
    return x->ptx_line < y->ptx_line ? -1 : x->ptx_line > y->ptx_line;
}

/* PTX without directives: the distinct PTX lines of each line's SASS. */
static int by_sass(cudw_correlation *c)
{
    use *u = malloc((c->ninsns ? c->ninsns : 1) * sizeof *u);
    if (!u)
        return CUDW_E_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < c->ninsns; i++) {
        const cudw_corr_insn *in = &c->insns[i];
        if (in->ptx_line && in->ptx < c->nptx && !c->ptx[in->ptx].ptx && c->lines.v[in->line].name)
            u[n++] = (use){in->line, in->ptx, in->ptx_line};
    }
    qsort(u, n, sizeof *u, use_cmp);
    for (size_t i = 0; i < n; i++)
        if (!i || use_cmp(&u[i - 1], &u[i]))
            c->lines.v[u[i].line].ptx_instructions++;
    free(u);
    return CUDW_OK;
}

/* ---- sorted ---- */

static int cost_cmp(const void *a, const void *b)
{
    const cudw_corr_cost *x = *(cudw_corr_cost *const *)a, *y = *(cudw_corr_cost *const *)b;
    if (!x->name || !y->name)
        return !x->name - !y->name;
    int d = strcmp(x->name, y->name);
    return d ? d : x->line < y->line ? -1 : x->line > y->line;
}

/* Sort k; *renumber (when asked) maps old indexes to new ones. */
static int sort_costs(corr_costs *k, size_t **renumber)
{
    cudw_corr_cost **order = malloc((k->n ? k->n : 1) * sizeof *order);
    cudw_corr_cost *v = malloc((k->n ? k->n : 1) * sizeof *v);
    size_t *map = renumber ? malloc((k->n ? k->n : 1) * sizeof *map) : NULL;
    if (!order || !v || (renumber && !map)) {
        free(order);
        free(v);
        free(map);
        return CUDW_E_NOMEM;
    }
    for (size_t i = 0; i < k->n; i++)
        order[i] = &k->v[i];
    qsort(order, k->n, sizeof *order, cost_cmp);
    for (size_t i = 0; i < k->n; i++) {
        v[i] = *order[i];
        if (map)
            map[order[i] - k->v] = i;
    }
    free(order);
    free(k->v);
    k->v = v;
    k->cap = k->n;
    hmap_free(&k->idx); /* done with lookups */
    if (renumber)
        *renumber = map;
    return CUDW_OK;
}

/* ---- per line: its functions, its call sites ---- */

/* What a line's instructions are grouped by: the function their innermost
 * frame is in (a: name), or the call site they were inlined at (a: file,
 * n: line, b: function). */
typedef struct group {
    size_t line;
    const char *a, *b;
    uint64_t n, bytes, insns;
} group;

typedef struct grouping {
    group *v;
    size_t n, cap;
    hmap idx;
} grouping;

static int same_str(const char *x, const char *y) { return x == y || (x && y && !strcmp(x, y)); }

static int group_add(grouping *g, size_t line, const char *a, uint64_t n, const char *b, uint32_t size)
{
    uint64_t h = (a ? sym_hash(a, strlen(a)) : 7) ^ (line * 0x9e3779b97f4a7c15ull) ^ (n * 0x100000001b3ull) ^
                 (b ? sym_hash(b, strlen(b)) << 1 : 0);
    hmap_probe p = hmap_probe_at(&g->idx, h);
    uint32_t r;
    while ((r = hmap_next(&p)) != HMAP_NONE &&
           !(g->v[r].line == line && g->v[r].n == n && same_str(g->v[r].a, a) && same_str(g->v[r].b, b)))
        ;
    if (r == HMAP_NONE) {
        if (sym_grow((void **)&g->v, &g->cap, g->n, sizeof *g->v) || hmap_add(&g->idx, h, (uint32_t)g->n))
            return CUDW_E_NOMEM;
        g->v[g->n] = (group){line, a, b, n, 0, 0};
        r = (uint32_t)g->n++;
    }
    g->v[r].bytes += size;
    g->v[r].insns++;
    return CUDW_OK;
}

static int group_cmp(const void *x, const void *y)
{
    const group *p = x, *q = y;
    if (p->line != q->line)
        return p->line < q->line ? -1 : 1;
    if (p->bytes != q->bytes)
        return p->bytes > q->bytes ? -1 : 1;
    int d = p->a && q->a ? strcmp(p->a, q->a) : !p->a - !q->a;
    return d ? d : p->n < q->n ? -1 : p->n > q->n;
}

/* g sorted by line then bytes; *first[l] where line l's groups start. */
static int group_index(grouping *g, size_t nlines, size_t **first)
{
    hmap_free(&g->idx);
    if (g->n)
        qsort(g->v, g->n, sizeof *g->v, group_cmp);
    size_t *f = calloc(nlines + 1, sizeof *f);
    if (!f)
        return CUDW_E_NOMEM;
    for (size_t k = 0, l = 0; l <= nlines; l++) {
        while (k < g->n && g->v[k].line < l)
            k++;
        f[l] = k;
    }
    *first = f;
    return CUDW_OK;
}

/* One pass over the instructions (line indexes final): each line's
 * functions and call sites. */
static int line_groups(cudw_correlation *c)
{
    grouping fns = {0}, calls = {0};
    int rc = CUDW_OK;
    for (size_t i = 0; !rc && i < c->ninsns; i++) {
        const cudw_corr_insn *in = &c->insns[i];
        const cudw_sym_frame *fr = c->span[i].n ? &c->frames[c->span[i].first] : NULL;
        rc = group_add(&fns, in->line, fr ? function_of(fr, in) : in->func, 0, NULL, in->size);
        if (!rc && c->span[i].n > 1)
            rc = group_add(&calls, in->line, fr[1].file, fr[1].line, function_of(&fr[1], in), in->size);
    }
    size_t nl = c->lines.n;
    if (!rc)
        rc = group_index(&fns, nl, &c->linefn_first);
    if (!rc)
        rc = group_index(&calls, nl, &c->caller_first);
    if (!rc && (c->linefns = malloc((fns.n ? fns.n : 1) * sizeof *c->linefns)) &&
        (c->callers = malloc((calls.n ? calls.n : 1) * sizeof *c->callers))) {
        for (size_t k = 0; k < fns.n; k++)
            c->linefns[k] = (cudw_corr_line_fn){fns.v[k].a, fns.v[k].bytes, fns.v[k].insns};
        for (size_t k = 0; k < calls.n; k++)
            c->callers[k] = (cudw_corr_caller){calls.v[k].a, calls.v[k].n, calls.v[k].b, calls.v[k].bytes,
                                               calls.v[k].insns};
    } else if (!rc) {
        rc = CUDW_E_NOMEM;
    }
    hmap_free(&fns.idx);
    hmap_free(&calls.idx);
    free(fns.v);
    free(calls.v);
    return rc;
}

size_t cudw_corr_line_functions(const cudw_correlation *c, size_t i, const cudw_corr_line_fn **out)
{
    *out = NULL;
    if (!c->linefn_first || !c->linefns || i >= c->lines.n)
        return 0;
    *out = c->linefns + c->linefn_first[i];
    return c->linefn_first[i + 1] - c->linefn_first[i];
}

size_t cudw_corr_line_callers(const cudw_correlation *c, size_t i, const cudw_corr_caller **out)
{
    *out = NULL;
    if (!c->caller_first || !c->callers || i >= c->lines.n)
        return 0;
    *out = c->callers + c->caller_first[i];
    return c->caller_first[i + 1] - c->caller_first[i];
}

int corr_finish(cudw_correlation *c)
{
    int loc = 0, sass = 0;
    for (size_t i = 0; i < c->nptx; i++) {
        if (!c->ptx[i].ptx) {
            sass = 1;
            continue;
        }
        loc = 1;
        int rc = by_loc(c, c->ptx[i].ptx);
        if (rc)
            return rc;
    }
    c->sum.ptx_by_loc = loc && !sass;
    if (sass && by_sass(c))
        return CUDW_E_NOMEM;
    c->sum.instructions = c->ninsns;
    size_t *map;
    if (sort_costs(&c->lines, &map))
        return CUDW_E_NOMEM;
    for (size_t i = 0; i < c->ninsns; i++)
        c->insns[i].line = map[c->insns[i].line];
    free(map);
    if (sort_costs(&c->funcs, NULL) || sort_costs(&c->files, NULL))
        return CUDW_E_NOMEM;
    return line_groups(c);
}
