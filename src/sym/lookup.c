/* The symbolizer's lookups: a location to its function, line rows and
 * inline frames (line-table contexts, or the DIE segments of -G code),
 * and the PTX line; symbolizer.c opens inputs and builds the indexes. */
#include "sym.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

int cudw_location_parse(const char *text, const char **symbol, size_t *len, uint64_t *offset)
{
    const char *plus = strrchr(text, '+');
    *symbol = text;
    *offset = 0;
    if (!text[0] || isspace((unsigned char)text[0]))
        return CUDW_E_ARG;
    if (!plus) {
        *len = strlen(text);
        for (size_t i = 0; i < *len; i++)
            if (isspace((unsigned char)text[i]))
                return CUDW_E_ARG;
        return CUDW_OK;
    }
    if (plus == text || !plus[1])
        return CUDW_E_ARG;
    *len = (size_t)(plus - text);
    const char *p = plus + 1;
    uint64_t v = 0;
    int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex)
        p += 2;
    if (!*p)
        return CUDW_E_ARG;
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (hex && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (hex && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return CUDW_E_ARG;
        if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
            return CUDW_E_ARG;
        v = v * (hex ? 16 : 10) + d;
    }
    *offset = v;
    return CUDW_OK;
}

/* The sequence of L covering (shndx, addr), the first in emission order;
 * lines[0] knows where each section's sequences start. */
static const sym_seq *seq_at(const sym_image *x, const sym_lines *L, uint32_t shndx, uint64_t addr)
{
    size_t lo = 0, hi = L->nseqs;
    if (L == &x->lines[0] && x->sec_seqs) {
        if (shndx >= x->nsec)
            return NULL;
        lo = x->sec_seqs[shndx];
        hi = x->sec_seqs[shndx + 1];
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sym_seq *m = &L->seqs[mid];
        if (m->shndx < shndx || (m->shndx == shndx && m->lo <= addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    const sym_seq *best = NULL;
    for (size_t k = lo; k-- > 0;) {
        const sym_seq *m = &L->seqs[k];
        if (m->shndx != shndx)
            break;
        if (addr < m->hi && m->count && (!best || m->index < best->index))
            best = m;
    }
    return best;
}

/* The row covering addr: the last at the highest address <= addr. */
static const sym_row *row_at(const sym_image *x, const sym_lines *L, uint32_t shndx, uint64_t addr)
{
    const sym_seq *s = seq_at(x, L, shndx, addr);
    if (!s)
        return NULL;
    size_t lo = 0, hi = s->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t r = s->order ? s->order[mid] : s->first + (uint32_t)mid;
        if (L->rows[r].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    return &L->rows[s->order ? s->order[lo - 1] : s->first + (uint32_t)lo - 1];
}

static const sym_seg *seg_at(const sym_image *x, uint32_t shndx, uint64_t addr)
{
    size_t lo = 0, hi = x->nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sym_seg *m = &x->segs[mid];
        if (m->shndx < shndx || (m->shndx == shndx && m->lo <= addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const sym_seg *m = &x->segs[lo - 1];
    return m->shndx == shndx && addr < m->hi ? m : NULL;
}

/* The function the code at (shndx, addr) belongs to, as a frame names it. */
static void outer_function(const sym_image *x, uint32_t shndx, uint64_t addr, cudw_sym_frame *fr)
{
    const sym_func *fn = sym_func_at(x, shndx, addr);
    fr->source = CUDW_FROM_SYMBOL;
    if (!fn) {
        fr->function = fr->function_demangled = NULL;
        return;
    }
    /* ptxas's "$kernel$callee": the callee */
    const char *callee = placed_callee(fn->name);
    fr->function = callee ? callee : fn->name;
    fr->function_demangled = fn->demangled ? fn->demangled : fr->function;
}

static void row_frame(const sym_lines *L, const sym_row *r, cudw_sym_frame *fr)
{
    const sym_seq *s = &L->seqs[r->seq];
    fr->file = cudw_line_file_path(s->table, r->file);
    fr->line = r->line;
    fr->column = r->column;
}

/* Frames from the line table's inlined-call contexts.  The outermost
 * function is the one whose symbol covers addr itself: the row may start
 * before a function symbol nested in the kernel's range
 * ("$kernel$__cuda_sm20_sqrt_rn_f32_slowpath") that holds addr. */
static size_t line_frames(const sym_image *x, const sym_row *r, uint32_t shndx, uint64_t addr, cudw_sym_frame *fr,
                          size_t cap)
{
    const sym_lines *L = &x->lines[0];
    size_t n = 0;
    for (const sym_row *cur = r; cur; cur = cur->site ? &L->rows[cur->site - 1] : NULL) {
        if (n < cap) {
            cudw_sym_frame *f = &fr[n];
            row_frame(L, cur, f);
            if (cur->site) { /* inlined: the table names the function (or its name was dropped) */
                const sym_name *nm = cur->fn ? &L->names[cur->fn - 1] : NULL;
                f->function = nm ? nm->name : NULL;
                f->function_demangled = nm && nm->demangled ? nm->demangled : f->function;
                f->source = CUDW_FROM_LINE_TABLE;
            } else {
                outer_function(x, shndx, addr, f);
            }
        }
        if (++n == CUDW_MAX_INLINE_DEPTH)
            break;
    }
    return n;
}

/* Frames from the DIEs' inlined subroutines. */
static size_t die_frames(const sym_image *x, const sym_row *r, const sym_seg *g, uint32_t shndx, uint64_t addr,
                         cudw_sym_frame *fr, size_t cap)
{
    size_t n = 0;
    int32_t node = (int32_t)g->node;
    cudw_sym_frame f;
    /* innermost: the row's place, in the inlined function */
    row_frame(&x->lines[0], r, &f);
    while (node >= 0 && n < CUDW_MAX_INLINE_DEPTH) {
        const sym_inl *in = &x->inl[node];
        f.function = in->name;
        f.function_demangled = in->demangled ? in->demangled : in->name;
        f.source = CUDW_FROM_DIE;
        if (n < cap)
            fr[n] = f;
        n++;
        /* its caller: at the call's place */
        f.file = in->call_file;
        f.line = in->call_line;
        f.column = in->call_column;
        node = in->parent;
    }
    if (n < CUDW_MAX_INLINE_DEPTH) {
        outer_function(x, shndx, addr, &f);
        if (n < cap)
            fr[n] = f;
        n++;
    }
    return n;
}

/* The two chains' function names agree (the outermost excepted). */
static int chains_agree(const sym_image *x, const sym_row *r, const sym_seg *g)
{
    const sym_lines *L = &x->lines[0];
    int32_t node = (int32_t)g->node;
    const sym_row *cur = r;
    for (int k = 0; k < CUDW_MAX_INLINE_DEPTH; k++) {
        int line_inl = cur && cur->site, die_inl = node >= 0;
        if (!line_inl || !die_inl)
            return line_inl == die_inl;
        const char *a = cur->fn ? L->names[cur->fn - 1].name : NULL, *b = x->inl[node].name;
        if (!a || !b || strcmp(a, b))
            return 0;
        cur = &L->rows[cur->site - 1];
        node = x->inl[node].parent;
    }
    return 1;
}

static void ptx_of(const sym_image *x, uint32_t shndx, uint64_t addr, cudw_sym_result *res)
{
    const sym_lines *P = &x->lines[1];
    const sym_row *r = P->nrows ? row_at(x, P, shndx, addr) : NULL;
    if (!r)
        return;
    res->has_ptx = 1;
    res->ptx_line = r->line;
    const cudw_section *ps = cudw_ptx_section_for(x->f, P->seqs[r->seq].table, r->file);
    res->ptx_section = ps ? ps->name : NULL;
    const char *text;
    /* the PTX index was built with the image's: this only reads it */
    if (ps && cudw_ptx_line(x->f, ps, r->line, &text) == CUDW_OK)
        res->ptx_text = text;
}

/* The answer of image x for (shndx, addr), or 0 when no row covers it. */
static int answer(cudw_symbolizer *s, size_t xi, uint32_t shndx, uint64_t addr, cudw_sym_result *res,
                  cudw_sym_frame *fr, size_t cap)
{
    const sym_image *x = &s->images[xi];
    const sym_row *r = row_at(x, &x->lines[0], shndx, addr);
    res->has_ptx = 0;
    res->ptx_line = 0;
    res->ptx_section = res->ptx_text = NULL;
    if (s->flags & CUDW_SYM_PTX) /* code without source lines (libdevice's) still has its PTX line */
        ptx_of(x, shndx, addr, res);
    if (!r) {
        /* no line row (a cubin without line tables): the innermost
         * function symbol still names the frame, as addr2line -f does */
        cudw_sym_frame f = {0};
        outer_function(x, shndx, addr, &f);
        if (f.function && cap)
            fr[0] = f;
        res->nframes = f.function ? 1 : 0;
        return 0;
    }
    res->found = 1;
    res->image = xi;
    res->image_label = x->info->label;
    res->section = sym_section_back(x, shndx); /* as the caller's cubin numbers it */
    res->address = addr;
    const sym_seg *g = x->nsegs ? seg_at(x, shndx, addr) : NULL;
    if (r->site) {
        res->nframes = line_frames(x, r, shndx, addr, fr, cap);
        res->inline_source = CUDW_FROM_LINE_TABLE;
        res->sources_disagree = g && !chains_agree(x, r, g);
    } else if (g) {
        res->nframes = die_frames(x, r, g, shndx, addr, fr, cap);
        res->inline_source = CUDW_FROM_DIE;
    } else {
        res->nframes = line_frames(x, r, shndx, addr, fr, cap);
    }
    res->names_recovered = x->lines[0].recovered;
    res->names_dropped = x->lines[0].dropped && r->site && !r->fn;
    return 1;
}

static void clear(cudw_sym_result *r)
{
    memset(r, 0, sizeof *r);
    r->image = (size_t)-1;
}

/* symbol as a name some image defines: itself, or what it resolves to
 * (names.c); NULL when it names none or several (cudw_symbolize_why says
 * which, with the nearest names: the lookup need not look for them). */
static const char *defined_name(cudw_symbolizer *s, const char *symbol, size_t *len, int *rc)
{
    *rc = CUDW_OK;
    if (s->nimages > 1 ? sym_gfind(s, symbol, *len) != NULL
                       : sym_func_named(&s->images[0], symbol, *len) != NULL)
        return symbol;
    const char *m;
    int r = sym_resolve_quiet(s, symbol, *len, &m);
    if (r < 0 && r != CUDW_E_ARG && r != CUDW_E_NOT_FOUND)
        *rc = r; /* out of memory, a malformed image: the lookup's error */
    if (r)
        return NULL;
    *len = strlen(m);
    return m;
}

int cudw_symbolize(cudw_symbolizer *s, const char *symbol, size_t len, uint64_t offset, cudw_sym_result *res,
                   cudw_sym_frame *fr, size_t cap)
{
    if (len == (size_t)-1)
        len = strlen(symbol);
    clear(res);
    res->symbol = symbol;
    res->offset = offset;
    if (!s->nimages)
        return CUDW_OK;
    int rc = s->nimages > 1 ? sym_ensure_names(s) : sym_ensure_image(s, &s->images[0]);
    if (rc)
        return rc;
    if (!(symbol = defined_name(s, symbol, &len, &rc)))
        return rc;
    res->symbol = symbol;
    /* the candidate images: all (one), or those defining the name */
    const gname *g = s->nimages > 1 ? sym_gfind(s, symbol, len) : NULL;
    size_t one = 0;
    for (const gname *h = g; h && h->next; h = &s->gnames[h->next - 1])
        res->other_images++; /* every image defining it but the one answering */
    for (;;) {
        size_t xi = g ? g->image : one;
        rc = sym_ensure_image(s, &s->images[xi]);
        if (rc)
            return rc;
        const sym_image *x = &s->images[xi];
        const sym_func *fn = sym_func_named(x, symbol, len);
        if (res->image == (size_t)-1) { /* the first that defines it, found or not */
            res->image = xi;
            res->image_label = x->info->label;
        }
        /* past the function's end is no place in it (nor the next one's) */
        if (fn && (offset < fn->size || !fn->size) && answer(s, xi, fn->shndx, fn->value + offset, res, fr, cap))
            break;
        if (!g || !g->next)
            break;
        g = &s->gnames[g->next - 1];
    }
    return CUDW_OK;
}

int cudw_symbolize_why(cudw_symbolizer *s, const char *symbol, size_t len, const cudw_sym_result *r, char *buf,
                       size_t n)
{
    if (len == (size_t)-1)
        len = strlen(symbol);
    if (n)
        buf[0] = 0;
    if (r->found)
        return CUDW_MISS_NONE;
    if (r->image == (size_t)-1) {
        const char *m;
        cudw_error saved = s->err;
        int rc = cudw_symbolizer_resolve(s, symbol, len, &m);
        snprintf(buf, n, "%s", rc ? s->err.detail : "no image answers for it");
        s->err = saved;
        return rc == CUDW_E_ARG ? CUDW_MISS_AMBIGUOUS : CUDW_MISS_NO_FUNCTION;
    }
    const sym_image *x = &s->images[r->image];
    /* r->symbol: the caller's text (len bytes), or the name it resolved to */
    const char *name = r->symbol ? r->symbol : symbol;
    int nlen = (int)(name == symbol ? len : strlen(name));
    const sym_func *fn = sym_func_named(x, name, (size_t)nlen);
    if (fn && fn->size && r->offset >= fn->size) {
        snprintf(buf, n, "offset 0x%llx is past the end of %.*s (0x%llx bytes)", (unsigned long long)r->offset, nlen,
                 name, (unsigned long long)fn->size);
        return CUDW_MISS_PAST_END;
    }
    if (!x->lines[0].nseqs && s->nimages > 1)
        snprintf(buf, n, "no line table in %s (built without -lineinfo or -G)", x->info->label);
    else if (!x->lines[0].nseqs)
        snprintf(buf, n, "no line table (built without -lineinfo or -G)");
    else
        snprintf(buf, n, "no line row covers %.*s+0x%llx", nlen, name, (unsigned long long)r->offset);
    return CUDW_MISS_NO_ROW;
}

int cudw_symbolize_address(cudw_symbolizer *s, size_t image, unsigned section, uint64_t address,
                           cudw_sym_result *res, cudw_sym_frame *fr, size_t cap)
{
    clear(res);
    if (image >= s->nimages)
        return symbolizer_fail(s, CUDW_E_ARG, "symbolizer", "no image %zu (%zu selected)", image, s->nimages);
    int rc = sym_ensure_image(s, &s->images[image]);
    if (rc)
        return rc;
    const sym_image *x = &s->images[image];
    unsigned own = sym_section_of(x, section); /* a debug companion numbers its sections its own way */
    const sym_func *fn = sym_func_at(x, own, address);
    res->image = image;
    res->image_label = x->info->label;
    res->section = section;
    res->address = address;
    if (fn) {
        res->symbol = fn->name;
        res->offset = address - fn->value;
    }
    answer(s, image, own, address, res, fr, cap);
    return CUDW_OK;
}

int cudw_symbolize_batch(cudw_symbolizer *s, const cudw_sym_query *q, size_t n, cudw_sym_result *r,
                         cudw_sym_frame *frames, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        int rc = cudw_symbolize(s, q[i].symbol, (size_t)-1, q[i].offset, &r[i], frames ? frames + i * cap : NULL,
                                frames ? cap : 0);
        if (rc)
            return rc;
    }
    return CUDW_OK;
}
