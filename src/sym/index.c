/* The symbolizer's index of one image: its functions, and every row of a
 * line section as sorted arrays with call sites resolved to row indexes.
 *
 * nvlink -arch=sm_90 concatenates the inputs' .debug_str sections and
 * their line tables in input order but leaves each linked table's
 * .debug_str base word at 0 (docs/linking.md), so the inlined-function
 * names of every input after the first resolve into the first input's
 * strings.  The true base of table k is where input k's strings start:
 * at or after the end of every string table k-1 names, and such that
 * every name offset table k uses lands on the start of a string.  When
 * exactly one base fits, it is the base (recovered); otherwise the
 * table's names are left out (dropped). */
#include "sym.h"

#include <stdio.h>
#include <stdlib.h>

int sym_fail(sym_image *img, int code, const cudw_section *sec, uint64_t off, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&img->err, code, sec ? sec->name : NULL, off, what, fmt, ap);
    va_end(ap);
    return code;
}

static int func_cmp(const void *a, const void *b)
{
    const sym_func *x = a, *y = b;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

static uint32_t name_find(const sym_image *img, const char *name, size_t len, uint64_t h)
{
    hmap_probe p = hmap_probe_at(&img->by_name, h);
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;) {
        const struct sym_key *k = &img->names[r];
        if (k->len == len && !memcmp(k->key, name, len))
            return r;
    }
    return HMAP_NONE;
}

/* the first of a name wins; the table has room (reserved) */
static void name_insert(sym_image *img, const char *name, uint32_t func)
{
    size_t n = strlen(name);
    uint64_t h = sym_hash(name, n);
    if (name_find(img, name, n, h) != HMAP_NONE)
        return;
    img->names[img->nnames] = (struct sym_key){name, (uint32_t)n, func};
    hmap_add(&img->by_name, h, (uint32_t)img->nnames++);
}

const sym_func *sym_func_named(const sym_image *img, const char *name, size_t len)
{
    uint32_t r = name_find(img, name, len, sym_hash(name, len));
    return r == HMAP_NONE ? NULL : &img->funcs[img->names[r].func];
}

const sym_func *sym_func_at(const sym_image *img, uint32_t shndx, uint64_t addr)
{
    size_t lo = 0, hi = img->nfuncs;
    while (lo < hi) { /* the first past (shndx, addr) */
        size_t mid = lo + (hi - lo) / 2;
        const sym_func *m = &img->funcs[mid];
        if (m->shndx < shndx || (m->shndx == shndx && m->value <= addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the nearest start at or before addr whose extent holds it */
    for (size_t k = lo; k-- > 0;) {
        const sym_func *m = &img->funcs[k];
        if (m->shndx != shndx)
            break;
        if (addr - m->value < m->size)
            return m;
        if (k + 8 < lo)
            break; /* functions do not nest deeper than that */
    }
    return NULL;
}

const char *sym_demangled(sym_image *img, const char *name)
{
    char small[512];
    size_t n = cudw_demangle(name, small, sizeof small);
    if (!n)
        return name;
    char *d = arena_alloc(&img->mem, n + 1);
    if (!d)
        return name;
    if (n < sizeof small)
        memcpy(d, small, n + 1);
    else
        cudw_demangle(name, d, n + 1);
    return d;
}

int sym_funcs_load(sym_image *img, unsigned flags)
{
    cudw_file *f = img->f;
    const cudw_section *st = cudw_section_find(f, ".symtab");
    if (!st || !st->data)
        return CUDW_OK;
    size_t n = cudw_symbol_count(f, st->index), k = 0;
    img->funcs = n ? arena_alloc(&img->mem, n * sizeof *img->funcs) : NULL;
    if (n && !img->funcs)
        return sym_fail(img, CUDW_E_NOMEM, st, 0, "symbol table", "out of memory");
    for (uint32_t i = 1; i < n; i++) {
        cudw_symbol s;
        int rc = cudw_symbol_get(f, st->index, i, &s);
        if (rc) {
            img->err = *cudw_last_error(f);
            return rc;
        }
        if (s.type != 2 /* STT_FUNC */ || !s.shndx || s.shndx >= 0xff00 || !s.name[0])
            continue;
        sym_func *fn = &img->funcs[k++];
        fn->name = s.name;
        fn->value = s.value;
        fn->size = s.size;
        fn->shndx = s.shndx;
        /* "$kernel$callee" stands for the callee: demangle that */
        const char *callee = placed_callee(s.name);
        fn->demangled = flags & CUDW_SYM_DEMANGLE ? sym_demangled(img, callee ? callee : s.name) : NULL;
    }
    img->nfuncs = k;
    if (k)
        qsort(img->funcs, k, sizeof *img->funcs, func_cmp);
    img->names = arena_alloc(&img->mem, 2 * k * sizeof *img->names + 1);
    if (!img->names || hmap_reserve(&img->by_name, 2 * k))
        return sym_fail(img, CUDW_E_NOMEM, st, 0, "symbol table", "out of memory");
    for (uint32_t i = 0; i < k; i++)
        name_insert(img, img->funcs[i].name, i);
    for (uint32_t i = 0; i < k; i++) /* the callees' own names, where no symbol has them */
        if (placed_callee(img->funcs[i].name))
            name_insert(img, placed_callee(img->funcs[i].name), i);
    return CUDW_OK;
}

/* Where each section's sequences start in lines[0] (sorted by section). */
static int section_seqs(sym_image *img)
{
    const sym_lines *L = &img->lines[0];
    unsigned n = cudw_section_count(img->f);
    img->sec_seqs = arena_alloc(&img->mem, (n + 1) * sizeof *img->sec_seqs);
    if (!img->sec_seqs)
        return sym_fail(img, CUDW_E_NOMEM, L->sec, 0, "line rows", "out of memory");
    img->nsec = n;
    size_t k = 0;
    for (unsigned s = 0; s <= n; s++) {
        while (k < L->nseqs && L->seqs[k].shndx < s)
            k++;
        img->sec_seqs[s] = (uint32_t)k;
    }
    return CUDW_OK;
}

/* Row addresses are relocated against some symbol: the same place as
 * (code section, address) through the function of that name. */
static void place(const sym_image *img, const char *symbol, uint64_t symbol_value, uint64_t address,
                  uint32_t *shndx, uint64_t *addr)
{
    const sym_func *fn = symbol ? sym_func_named(img, symbol, strlen(symbol)) : NULL;
    if (fn) {
        *shndx = fn->shndx;
        *addr = fn->value + (address - symbol_value);
        return;
    }
    const cudw_section *s = symbol ? cudw_section_find(img->f, symbol) : NULL; /* a section symbol */
    *shndx = s ? s->index : 0;
    *addr = address - symbol_value;
}

/* ---- rows ---- */

typedef struct build {
    sym_image *img;
    sym_lines *L;
    size_t cap_rows, cap_seqs, cap_names;
    tinfo *ts;
    size_t nts, cap_ts;
    hmap name_idx;            /* name pointer -> L->names index */
} build;

/* 1 + the index of name (a pointer into .debug_str: equal names are one
 * pointer) in L->names, added if new; 0 out of memory */
static uint32_t intern(build *b, const char *name, unsigned flags)
{
    uint64_t h = (uintptr_t)name;
    hmap_probe p = hmap_probe_at(&b->name_idx, h);
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (b->L->names[r].name == name)
            return r + 1;
    if (sym_grow((void **)&b->L->names, &b->cap_names, b->L->nnames, sizeof *b->L->names) ||
        hmap_add(&b->name_idx, h, (uint32_t)b->L->nnames))
        return 0;
    sym_name *nm = &b->L->names[b->L->nnames++];
    nm->name = name;
    nm->demangled = flags & CUDW_SYM_DEMANGLE ? sym_demangled(b->img, name) : NULL;
    return (uint32_t)b->L->nnames;
}

static int seq_cmp(const void *a, const void *c)
{
    const sym_seq *x = a, *y = c;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

typedef struct keyed {
    uint64_t addr;
    uint32_t row;
} keyed;

static int keyed_cmp(const void *a, const void *c)
{
    const keyed *x = a, *y = c;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row; /* stable: the last row at an address stays last */
}

/* Every row of table t; seqs and rows appended, name offsets noted. */
static int table_rows(build *b, const cudw_line_table *t, tinfo *ti)
{
    sym_lines *L = b->L;
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    const char *sym = NULL;
    uint64_t symval = 0;
    uint32_t shndx = 0, seq = 0;
    uint64_t delta = 0; /* section address - row address */
    uint64_t prev_index = 0;
    cudw_line_iter_init(t, &it, 0);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        /* a callee's entry row written twice keeps its number (lines.h):
         * rows are stored by number, so it is left out */
        if (!r.end_sequence && r.index != 1 && r.index == prev_index)
            continue;
        prev_index = r.end_sequence ? 0 : r.index;
        if (r.index == 1) {
            if (sym_grow((void **)&L->seqs, &b->cap_seqs, L->nseqs, sizeof *L->seqs))
                goto nomem;
            seq = (uint32_t)L->nseqs++;
            sym_seq *s = &L->seqs[seq];
            memset(s, 0, sizeof *s);
            s->table = t;
            s->first = (uint32_t)L->nrows;
            s->index = seq;
            s->tindex = (uint32_t)(ti - b->ts);
            s->hi = UINT64_MAX; /* open until its end_sequence */
            sym = NULL;
        }
        if (r.symbol != sym || r.symbol_value != symval || r.index == 1) {
            sym = r.symbol;
            symval = r.symbol_value;
            uint64_t a;
            place(b->img, sym, symval, r.address, &shndx, &a);
            delta = a - r.address;
            if (r.index == 1)
                L->seqs[seq].shndx = shndx;
        }
        sym_seq *s = &L->seqs[seq];
        uint64_t addr = r.address + delta;
        if (r.end_sequence) {
            s->hi = addr;
            s->count = (uint32_t)(L->nrows - s->first);
            continue;
        }
        if (L->nrows >= UINT32_MAX - 1)
            return sym_fail(b->img, CUDW_E_LIMIT, t->section, r.op_offset, "line row", "more than 2^32 rows");
        if (sym_grow((void **)&L->rows, &b->cap_rows, L->nrows, sizeof *L->rows))
            goto nomem;
        sym_row *w = &L->rows[L->nrows];
        if (L->nrows == s->first)
            s->lo = addr;
        w->addr = addr;
        w->line = r.line > UINT32_MAX ? UINT32_MAX : (uint32_t)r.line;
        w->column = r.column > UINT32_MAX ? UINT32_MAX : (uint32_t)r.column;
        w->file = r.file > UINT32_MAX ? 0 : (uint32_t)r.file;
        w->seq = seq;
        /* the call site is an earlier row of this sequence */
        w->site = r.context && r.context < r.index ? s->first + (uint32_t)r.context : 0;
        w->fn = 0;
        if ((r.context || r.function_offset) && r.function_offset < UINT32_MAX - 1) {
            w->fn = (uint32_t)r.function_offset + 1; /* resolved once the base is known */
            if (sym_grow((void **)&ti->offs, &ti->cap, ti->noffs, sizeof *ti->offs))
                goto nomem;
            ti->offs[ti->noffs++] = r.function_offset;
        }
        L->nrows++;
    }
    if (rc < 0) {
        b->img->err = *cudw_last_error(b->img->f);
        return rc;
    }
    if (L->nseqs && L->seqs[L->nseqs - 1].table == t && L->seqs[L->nseqs - 1].hi == UINT64_MAX) {
        /* a table that ends without DW_LNE_end_sequence: its last row ends it */
        sym_seq *s = &L->seqs[L->nseqs - 1];
        s->count = (uint32_t)(L->nrows - s->first);
        s->hi = s->count ? L->rows[L->nrows - 1].addr + 1 : s->lo;
    }
    return CUDW_OK;
nomem:
    return sym_fail(b->img, CUDW_E_NOMEM, t->section, 0, "line rows", "out of memory");
}

/* Names for the rows: offsets become interned names through each table's base. */
static int name_rows(build *b, unsigned flags)
{
    sym_lines *L = b->L;
    for (size_t i = 0; i < L->nrows; i++) {
        sym_row *w = &L->rows[i];
        if (!w->fn)
            continue;
        const sym_seq *s = &L->seqs[w->seq];
        const tinfo *ti = &b->ts[s->tindex];
        const cudw_section *str = s->table->str_section;
        uint64_t off = w->fn - 1, at = ti ? ti->base + off : off;
        w->fn = 0;
        if (!ti || ti->state == 2 || !str || !str->data || at < off || at >= str->data_size ||
            !memchr(str->data + at, 0, (size_t)(str->data_size - at)))
            continue;
        uint32_t id = intern(b, (const char *)str->data + at, flags);
        if (!id)
            return sym_fail(b->img, CUDW_E_NOMEM, s->table->section, 0, "line rows", "out of memory");
        w->fn = id;
    }
    return CUDW_OK;
}

/* The rows of each sequence by address, where they do not ascend. */
static int sort_sequences(build *b)
{
    sym_lines *L = b->L;
    for (size_t k = 0; k < L->nseqs; k++) {
        sym_seq *s = &L->seqs[k];
        int ascends = 1;
        for (uint32_t i = 1; i < s->count && ascends; i++)
            ascends = L->rows[s->first + i - 1].addr <= L->rows[s->first + i].addr;
        if (ascends)
            continue;
        s->order = arena_alloc(&b->img->mem, s->count * sizeof *s->order);
        keyed *key = malloc(s->count * sizeof *key);
        if (!s->order || !key) {
            free(key);
            return sym_fail(b->img, CUDW_E_NOMEM, L->sec, 0, "line rows", "out of memory");
        }
        for (uint32_t i = 0; i < s->count; i++)
            key[i] = (keyed){L->rows[s->first + i].addr, s->first + i};
        qsort(key, s->count, sizeof *key, keyed_cmp);
        for (uint32_t i = 0; i < s->count; i++)
            s->order[i] = key[i].row;
        free(key);
    }
    if (L->nseqs)
        qsort(L->seqs, L->nseqs, sizeof *L->seqs, seq_cmp);
    /* rows name their sequence by emission index; keep a map for that */
    return CUDW_OK;
}

static int index_lines(sym_image *img, const cudw_section *sec, sym_lines *L, unsigned flags)
{
    build b = {.img = img, .L = L};
    L->sec = sec;
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc;
    while ((rc = cudw_line_table_next(img->f, sec, &cur, &t)) == CUDW_OK) {
        if (sym_grow((void **)&b.ts, &b.cap_ts, b.nts, sizeof *b.ts)) {
            rc = sym_fail(img, CUDW_E_NOMEM, sec, 0, "line rows", "out of memory");
            break;
        }
        tinfo *ti = &b.ts[b.nts++];
        memset(ti, 0, sizeof *ti);
        ti->t = t;
        if ((rc = table_rows(&b, t, ti)))
            break;
    }
    if (rc < 0 && !img->err.code)
        img->err = *cudw_last_error(img->f);
    if (rc >= 0) {
        sym_recover_bases(L, img, b.ts, b.nts);
        rc = name_rows(&b, flags);
    }
    if (!rc)
        rc = sort_sequences(&b);
    for (size_t k = 0; k < b.nts; k++)
        free(b.ts[k].offs);
    free(b.ts);
    hmap_free(&b.name_idx);
    /* sequences were sorted: rows point at them by emission index */
    if (!rc && L->nseqs) {
        uint32_t *where = malloc(L->nseqs * sizeof *where);
        if (!where)
            return sym_fail(img, CUDW_E_NOMEM, sec, 0, "line rows", "out of memory");
        for (size_t k = 0; k < L->nseqs; k++)
            where[L->seqs[k].index] = (uint32_t)k;
        for (size_t i = 0; i < L->nrows; i++)
            L->rows[i].seq = where[L->rows[i].seq];
        free(where);
    }
    return rc < 0 ? rc : CUDW_OK;
}

static const cudw_section *line_section(cudw_file *f, int sass)
{
    const cudw_section *s = cudw_section_find(f, sass ? ".nv_debug_line_sass" : ".debug_line");
    return s ? s : cudw_section_find(f, sass ? ".nv.merc.nv_debug_line_sass" : ".nv.merc.debug_line");
}

int sym_index_build(sym_image *img, unsigned flags)
{
    int rc = sym_funcs_load(img, flags);
    for (int k = 0; k < 2 && !rc; k++) {
        const cudw_section *s = line_section(img->f, k);
        if (s && (k == 0 || (flags & CUDW_SYM_PTX)))
            rc = index_lines(img, s, &img->lines[k], flags);
    }
    if (!rc && (flags & CUDW_SYM_PTX)) {
        /* PTX line indexes are built now, so lookups only read them */
        for (unsigned i = 1; i < cudw_section_count(img->f) && !rc; i++) {
            const cudw_section *s = cudw_section_get(img->f, i);
            uint64_t n;
            if (!strncmp(s->name, ".nv_debug_ptx_txt", 17) || !strncmp(s->name, ".nv.merc.nv_debug_ptx_txt", 25))
                if ((rc = cudw_ptx_line_count(img->f, s, &n)) < 0)
                    img->err = *cudw_last_error(img->f);
        }
    }
    if (!rc)
        rc = section_seqs(img);
    return rc < 0 ? rc : CUDW_OK;
}

void sym_index_free(sym_image *img)
{
    for (int k = 0; k < 2; k++) {
        free(img->lines[k].rows);
        free(img->lines[k].seqs);
        free(img->lines[k].names);
    }
    free(img->inl);
    free(img->segs);
    hmap_free(&img->by_name);
    arena_free_all(&img->mem);
}
