/* The symbolizer: locations to source lines with inline call stacks, over
 * every image of an input (cudwarf.h explains the rules).
 *
 * An input with many images (a library holds thousands) answers a symbol
 * from the images that define it: the first lookup of such an input reads
 * every selected image's symbol table once, keeps the FUNC names and which
 * images have them, and releases the image; an image is indexed (index.c,
 * inline.c) only when a lookup needs it, and kept. */
#include "sym.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct gname {         /* a FUNC name and an image that defines it */
    const char *name;
    uint32_t image;
    uint32_t next;             /* 1 + the next entry of the same name */
} gname;

struct cudw_symbolizer {
    cudw_input *in;            /* NULL for cudw_symbolizer_open_file */
    cudw_file *given;          /* ... whose file this is */
    cudw_input_image given_info;
    cudw_file *companion;
    unsigned flags;
    sym_image *images;         /* the selected ELF images */
    size_t nimages;
    pthread_mutex_t mu;
    atomic_int names_ready;    /* gnames built (inputs with several images) */
    gname *gnames;
    size_t ngnames;
    uint32_t *gtab;            /* open addressing: 1 + gnames index of a name's first entry */
    size_t gcap;
    arena mem;
    cudw_error err;
};

static int s_fail(cudw_symbolizer *s, int code, const char *what, const char *fmt, ...) CUDW_PRINTF(4, 5);
static int s_fail(cudw_symbolizer *s, int code, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&s->err, code, NULL, 0, what, fmt, ap);
    va_end(ap);
    return code;
}

const cudw_error *cudw_symbolizer_error(const cudw_symbolizer *s) { return &s->err; }
size_t cudw_symbolizer_image_count(const cudw_symbolizer *s) { return s->nimages; }

const cudw_input_image *cudw_symbolizer_image(const cudw_symbolizer *s, size_t i)
{
    return i < s->nimages ? s->images[i].info : NULL;
}

int cudw_symbolizer_open(cudw_symbolizer **out, const char *path, const cudw_symbolizer_opts *opts)
{
    cudw_symbolizer *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return CUDW_E_NOMEM;
    pthread_mutex_init(&s->mu, NULL);
    cudw_symbolizer_opts none = {0};
    if (!opts)
        opts = &none;
    s->flags = opts->flags;
    int rc = cudw_input_open(&s->in, path);
    if (rc) {
        if (s->in)
            s->err = *cudw_input_error(s->in);
        return rc ? rc : CUDW_E_NOMEM;
    }
    if (opts->debug_file) {
        if ((rc = cudw_open(&s->companion, opts->debug_file))) {
            if (s->companion)
                s->err = *cudw_last_error(s->companion);
            return rc;
        }
    }
    size_t n = cudw_input_count(s->in), elves = 0;
    s->images = calloc(n ? n : 1, sizeof *s->images);
    if (!s->images)
        return s_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
    for (size_t i = 0; i < n; i++) {
        const cudw_input_image *im = cudw_input_peek(s->in, i);
        if (im->kind != CUDW_FATBIN_ELF)
            continue;
        elves++;
        if (opts->sm && !cudw_input_image_is(im, opts->sm, opts->variant))
            continue;
        sym_image *x = &s->images[s->nimages++];
        x->input = i;
        x->info = im;
        atomic_init(&x->state, 0);
    }
    if (!elves)
        return s_fail(s, CUDW_E_NOT_FOUND, "input", "no device ELF image in %s", path);
    if (!s->nimages)
        return s_fail(s, CUDW_E_NOT_FOUND, "input", "no sm_%u%s image in %s", opts->sm,
                      opts->variant == 'a' ? "a" : opts->variant == 'f' ? "f" : "", path);
    return CUDW_OK;
}

int cudw_symbolizer_open_file(cudw_symbolizer **out, cudw_file *f, unsigned flags)
{
    cudw_symbolizer *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return CUDW_E_NOMEM;
    pthread_mutex_init(&s->mu, NULL);
    s->flags = flags;
    s->given = f;
    s->given_info.label = cudw_file_name(f);
    s->given_info.tag = "";
    s->given_info.kind = CUDW_FATBIN_ELF;
    s->given_info.sm = cudw_header(f)->sm;
    s->given_info.container = (size_t)-1;
    s->images = calloc(1, sizeof *s->images);
    if (!s->images)
        return s_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
    s->nimages = 1;
    s->images[0].info = &s->given_info;
    atomic_init(&s->images[0].state, 0);
    return CUDW_OK;
}

void cudw_symbolizer_close(cudw_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nimages; i++) {
        sym_index_free(&s->images[i]);
        cudw_image_free(s->images[i].img);
    }
    free(s->images);
    free(s->gnames);
    free(s->gtab);
    arena_free_all(&s->mem);
    cudw_close(s->companion);
    cudw_input_close(s->in);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* The companion must describe the image: its functions, with their
 * sizes (looked up through an index of the image's functions). */
static int companion_fits(cudw_file *dbg, cudw_file *f, char *why, size_t n)
{
    const cudw_section *ds = cudw_section_find(dbg, ".symtab");
    if (!ds || !ds->data)
        return 1;
    sym_image tmp = {0};
    tmp.f = f;
    if (sym_funcs_load(&tmp, 0)) {
        snprintf(why, n, "%s", tmp.err.detail);
        sym_index_free(&tmp);
        return 0;
    }
    int ok = 1;
    cudw_symbol a;
    for (uint32_t i = 1; ok && i < ds->data_size / 24; i++) {
        if (cudw_symbol_get(dbg, ds->index, i, &a) != CUDW_OK || a.type != 2 || !a.name[0])
            continue;
        const sym_func *fn = sym_func_named(&tmp, a.name, strlen(a.name));
        if (!fn || strcmp(fn->name, a.name)) {
            snprintf(why, n, "it describes function %s, which the image does not have", a.name);
            ok = 0;
        } else if (fn->size != a.size) {
            snprintf(why, n, "function %s is 0x%llx bytes there, 0x%llx here", a.name, (unsigned long long)a.size,
                     (unsigned long long)fn->size);
            ok = 0;
        }
    }
    sym_index_free(&tmp);
    return ok;
}

/* Index image x (under the lock). */
static int build_image(cudw_symbolizer *s, sym_image *x)
{
    int st = atomic_load_explicit(&x->state, memory_order_acquire);
    if (st)
        return st > 0 ? CUDW_OK : x->err.code;
    int rc = s->given ? CUDW_OK : cudw_input_load(s->in, x->input, &x->img);
    if (rc) {
        if (x->img)
            x->err = x->img->err;
        else
            x->err.code = CUDW_E_NOMEM;
    } else {
        x->f = s->given ? s->given : x->img->elf;
        if (s->companion) {
            char why[300];
            if (!companion_fits(s->companion, x->f, why, sizeof why)) {
                x->err.code = rc = CUDW_E_ARG;
                x->err.what = "debug file";
                snprintf(x->err.detail, sizeof x->err.detail, "%.60s does not belong to the image: %.120s",
                         cudw_file_name(s->companion), why);
            } else {
                x->f = s->companion;
            }
        }
        if (!rc)
            rc = sym_index_build(x, s->flags);
    }
    if (rc && !x->err.code)
        x->err.code = rc;
    if (rc && !x->err.what)
        x->err.what = "image";
    atomic_store_explicit(&x->state, rc ? -1 : 1, memory_order_release);
    return rc;
}

static int ensure_image(cudw_symbolizer *s, sym_image *x)
{
    int st = atomic_load_explicit(&x->state, memory_order_acquire);
    if (st > 0)
        return CUDW_OK;
    pthread_mutex_lock(&s->mu);
    int rc = build_image(s, x);
    pthread_mutex_unlock(&s->mu);
    if (rc) {
        s->err = x->err;
        return rc;
    }
    return CUDW_OK;
}

int cudw_symbolizer_prepare(cudw_symbolizer *s)
{
    for (size_t i = 0; i < s->nimages; i++) {
        int rc = ensure_image(s, &s->images[i]);
        if (rc)
            return rc;
    }
    return CUDW_OK;
}

/* ---- which images define a name ---- */

static int gadd(cudw_symbolizer *s, size_t *cap, const char *name, uint32_t image)
{
    if (s->ngnames == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        gname *g = realloc(s->gnames, c * sizeof *g);
        if (!g)
            return CUDW_E_NOMEM;
        s->gnames = g;
        *cap = c;
    }
    size_t n = strlen(name) + 1;
    char *copy = arena_alloc(&s->mem, n);
    if (!copy)
        return CUDW_E_NOMEM;
    s->gnames[s->ngnames++] = (gname){memcpy(copy, name, n), image, 0};
    return CUDW_OK;
}

static int build_names(cudw_symbolizer *s)
{
    size_t cap = 0;
    for (size_t i = 0; i < s->nimages; i++) {
        sym_image *x = &s->images[i];
        cudw_image *im;
        int rc = cudw_input_load(s->in, x->input, &im);
        if (rc) { /* its error comes when a lookup needs the image */
            cudw_image_free(im);
            continue;
        }
        const cudw_section *st = cudw_section_find(im->elf, ".symtab");
        for (uint32_t k = 1; st && st->data && k < st->data_size / 24; k++) {
            cudw_symbol sy;
            if (cudw_symbol_get(im->elf, st->index, k, &sy) != CUDW_OK || sy.type != 2 || !sy.name[0] || !sy.shndx)
                continue;
            const char *nm = sy.name[0] == '$' && strrchr(sy.name + 1, '$') ? strrchr(sy.name + 1, '$') + 1 : NULL;
            if (gadd(s, &cap, sy.name, (uint32_t)i) || (nm && *nm && gadd(s, &cap, nm, (uint32_t)i))) {
                cudw_image_free(im);
                return s_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
            }
        }
        cudw_image_free(im);
    }
    size_t gc = 16;
    while (gc < 2 * s->ngnames + 2)
        gc *= 2;
    s->gtab = calloc(gc, sizeof *s->gtab);
    if (!s->gtab)
        return s_fail(s, CUDW_E_NOMEM, "symbolizer", "out of memory");
    s->gcap = gc;
    /* chains keep image order: insert from the last entry back */
    for (size_t k = s->ngnames; k-- > 0;) {
        const char *nm = s->gnames[k].name;
        size_t mask = gc - 1;
        for (size_t j = sym_hash(nm, strlen(nm)) & mask;; j = (j + 1) & mask) {
            uint32_t v = s->gtab[j];
            if (!v) {
                s->gtab[j] = (uint32_t)k + 1;
                break;
            }
            if (!strcmp(s->gnames[v - 1].name, nm)) {
                if (s->gnames[v - 1].image != s->gnames[k].image) { /* an image once in a chain */
                    s->gnames[k].next = v;
                    s->gtab[j] = (uint32_t)k + 1;
                }
                break;
            }
        }
    }
    return CUDW_OK;
}

/* The first entry for name, or NULL. */
static const gname *gfind(const cudw_symbolizer *s, const char *name, size_t len)
{
    size_t mask = s->gcap - 1;
    for (size_t j = sym_hash(name, len) & mask;; j = (j + 1) & mask) {
        uint32_t v = s->gtab[j];
        if (!v)
            return NULL;
        const char *o = s->gnames[v - 1].name;
        if (!strncmp(o, name, len) && !o[len])
            return &s->gnames[v - 1];
    }
}

static int ensure_names(cudw_symbolizer *s)
{
    if (atomic_load_explicit(&s->names_ready, memory_order_acquire))
        return CUDW_OK;
    pthread_mutex_lock(&s->mu);
    int rc = CUDW_OK;
    if (!atomic_load_explicit(&s->names_ready, memory_order_relaxed)) {
        rc = build_names(s);
        if (!rc)
            atomic_store_explicit(&s->names_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* ---- lookups ---- */

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
    const char *last = fn->name[0] == '$' ? strrchr(fn->name + 1, '$') : NULL;
    fr->function = last && last[1] ? last + 1 : fn->name;
    fr->function_demangled = fn->demangled && !(last && last[1]) ? fn->demangled : fr->function;
}

static void row_frame(const sym_lines *L, const sym_row *r, cudw_sym_frame *fr)
{
    const sym_seq *s = &L->seqs[r->seq];
    fr->file = cudw_line_file_path(s->table, r->file);
    fr->line = r->line;
    fr->column = r->column;
}

/* Frames from the line table's inlined-call contexts. */
static size_t line_frames(const sym_image *x, const sym_row *r, uint32_t shndx, cudw_sym_frame *fr, size_t cap)
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
                outer_function(x, shndx, cur->addr, f);
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
    if (!r)
        return 0;
    res->found = 1;
    res->image = xi;
    res->image_label = x->info->label;
    res->section = shndx;
    res->address = addr;
    const sym_seg *g = x->nsegs ? seg_at(x, shndx, addr) : NULL;
    if (r->site) {
        res->nframes = line_frames(x, r, shndx, fr, cap);
        res->inline_source = CUDW_FROM_LINE_TABLE;
        res->sources_disagree = g && !chains_agree(x, r, g);
    } else if (g) {
        res->nframes = die_frames(x, r, g, shndx, addr, fr, cap);
        res->inline_source = CUDW_FROM_DIE;
    } else {
        res->nframes = line_frames(x, r, shndx, fr, cap);
    }
    res->names_recovered = x->lines[0].recovered;
    res->names_dropped = x->lines[0].dropped && r->site && !r->fn;
    if (s->flags & CUDW_SYM_PTX)
        ptx_of(x, shndx, addr, res);
    return 1;
}

static void clear(cudw_sym_result *r)
{
    memset(r, 0, sizeof *r);
    r->image = (size_t)-1;
}

int cudw_symbolize(cudw_symbolizer *s, const char *symbol, size_t len, uint64_t offset, cudw_sym_result *res,
                   cudw_sym_frame *fr, size_t cap)
{
    if (len == (size_t)-1)
        len = strlen(symbol);
    clear(res);
    res->symbol = symbol;
    res->offset = offset;
    /* the candidate images: all (one), or those defining the name */
    const gname *g = NULL;
    size_t one = 0;
    if (s->nimages > 1) {
        int rc = ensure_names(s);
        if (rc)
            return rc;
        if (!(g = gfind(s, symbol, len)))
            return CUDW_OK;
    }
    for (const gname *h = g; h && h->next; h = &s->gnames[h->next - 1])
        res->other_images++; /* every image defining it but the one answering */
    for (;;) {
        size_t xi = g ? g->image : one;
        int rc = ensure_image(s, &s->images[xi]);
        if (rc)
            return rc;
        const sym_image *x = &s->images[xi];
        const sym_func *fn = sym_func_named(x, symbol, len);
        if (res->image == (size_t)-1) { /* the first that defines it, found or not */
            res->image = xi;
            res->image_label = x->info->label;
        }
        if (fn && answer(s, xi, fn->shndx, fn->value + offset, res, fr, cap))
            break;
        if (!g || !g->next)
            break;
        g = &s->gnames[g->next - 1];
    }
    return CUDW_OK;
}

int cudw_symbolize_address(cudw_symbolizer *s, size_t image, unsigned section, uint64_t address,
                           cudw_sym_result *res, cudw_sym_frame *fr, size_t cap)
{
    clear(res);
    if (image >= s->nimages)
        return s_fail(s, CUDW_E_ARG, "symbolizer", "no image %zu (%zu selected)", image, s->nimages);
    int rc = ensure_image(s, &s->images[image]);
    if (rc)
        return rc;
    const sym_image *x = &s->images[image];
    const sym_func *fn = sym_func_at(x, section, address);
    res->image = image;
    res->image_label = x->info->label;
    res->section = section;
    res->address = address;
    if (fn) {
        res->symbol = fn->name;
        res->offset = address - fn->value;
    }
    answer(s, image, section, address, res, fr, cap);
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
