/* Symbols of the debug linker's output.
 *
 * A kept relocation names a symbol of an input; the output carries one
 * symbol of that name per table (.symtab for bare relocation sections,
 * .nv.merc.symtab for Mercury ones): a global once, a local once per
 * input.  Its section is the output section of the same name: a debug
 * section when the symbol lives in one, else an SHT_NOBITS placeholder with
 * the input section's name, flags and size (.text.<function>,
 * .nv.global, ...), so a reader sees symbol+offset as in the code link. */
#include "link.h"

#include <stdlib.h>

static uint64_t key_hash(const char *name, int input)
{
    return fnv1a(fnv1a(CUDW_FNV0, name, strlen(name)), &input, sizeof input);
}

/* Index of (name, input) in t, or -1 */
static long tab_find(const symtab *t, const char *name, int input)
{
    hmap_probe p = hmap_probe_at(&t->idx, key_hash(name, input));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (t->v[r].input == input && !strcmp(t->v[r].name, name))
            return (long)r;
    return -1;
}

/* s, known not to be in t, added; its index in *out */
static int tab_add(symtab *t, const osym *s, uint32_t *out)
{
    osym *v = vec_room(t->v, &t->cap, t->n, sizeof *v, 64);
    if (!v)
        return CUDW_E_NOMEM;
    t->v = v;
    if (hmap_add(&t->idx, key_hash(s->name, s->input), (uint32_t)t->n))
        return CUDW_E_NOMEM;
    t->v[t->n] = *s;
    *out = (uint32_t)t->n++;
    return CUDW_OK;
}

/* The output section for a symbol defined in section shndx of input k,
 * and the offset its value moves by. */
static int section_for(cudw_link *L, size_t k, unsigned shndx, int *sec, uint64_t *shift)
{
    cudw_file *f = L->in[k];
    *shift = 0;
    if (shndx == 0) {
        *sec = -1;
        return CUDW_OK;
    }
    if (shndx >= 0xff00) {
        *sec = shndx == 0xfff1 ? -2 : -1; /* SHN_ABS; COMMON and others: undefined here */
        return CUDW_OK;
    }
    if (shndx < cudw_section_count(f) && L->osec_of[k][shndx] >= 0) {
        *sec = L->osec_of[k][shndx];
        *shift = L->base_of[k][shndx];
        return CUDW_OK;
    }
    const cudw_section *s = cudw_section_get(f, shndx);
    if (!s) {
        *sec = -1;
        return CUDW_OK;
    }
    int o = link_osec_find(L, s->name);
    if (o < 0) {
        o = link_osec_add(L, s->name, 8 /* SHT_NOBITS */, s->flags, s->align);
        if (o < 0)
            return CUDW_E_NOMEM;
        L->secs[o].placeholder = 1;
    }
    if (L->secs[o].placeholder && s->size > L->secs[o].size)
        L->secs[o].size = s->size;
    *sec = o;
    return CUDW_OK;
}

int link_intern_section_sym(cudw_link *L, int table, int osec_i, uint32_t *out)
{
    symtab *t = &L->tab[table];
    /* section symbols are keyed by their section's name and input -2 - index */
    long i = tab_find(t, L->secs[osec_i].name, -2 - osec_i);
    if (i >= 0) {
        *out = (uint32_t)i;
        return CUDW_OK;
    }
    osym s = {L->secs[osec_i].name, 3 /* LOCAL SECTION */, 0, osec_i, 0, 0, -2 - osec_i};
    return tab_add(t, &s, out);
}

/* Symbol y of input k (not a section symbol) in table. */
static int intern_symbol(cudw_link *L, int table, size_t k, const cudw_symbol *y, uint32_t *out)
{
    symtab *t = &L->tab[table];
    int input = y->bind == 0 ? (int)k : -1;
    long i = tab_find(t, y->name, input);
    int sec;
    uint64_t shift;
    int rc = section_for(L, k, y->shndx, &sec, &shift);
    if (rc)
        return rc;
    if (i >= 0) {
        osym *s = &t->v[i];
        if (s->sec == -1 && sec != -1) { /* an earlier input only referenced it */
            s->sec = sec;
            s->value = y->value + shift;
            s->size = y->size;
            s->info = (uint8_t)(y->bind << 4 | y->type);
            s->other = y->other;
        }
        *out = (uint32_t)i;
        return CUDW_OK;
    }
    osym s = {y->name, (uint8_t)(y->bind << 4 | y->type), y->other, sec, y->value + shift, y->size, input};
    return tab_add(t, &s, out);
}

static int intern_reloc_sym(cudw_link *L, int table, size_t k, const cudw_reloc *r, uint32_t *out);

/* The cache slot of a relocation's symbol: relocations name a few symbols
 * many times, and CUB's mangled names run to kilobytes. */
static uint32_t *cache_slot(cudw_link *L, int table, size_t k, const cudw_reloc *r)
{
    cudw_file *f = L->in[k];
    unsigned st = cudw_symtab_of(f, &f->secs[r->reloc_section]), n = f->nsecs;
    if (st >= n)
        return NULL;
    if (!L->symcache[table] && !(L->symcache[table] = calloc(L->nin, sizeof *L->symcache[table])))
        return NULL;
    uint32_t ***in = &L->symcache[table][k];
    if (!*in && !(*in = calloc(n, sizeof **in)))
        return NULL;
    uint64_t count = f->secs[st].data_size / 24;
    if (r->sym_index >= count)
        return NULL;
    if (!(*in)[st] && !((*in)[st] = calloc(count ? count : 1, sizeof ***in)))
        return NULL;
    return &(*in)[st][r->sym_index];
}

int link_intern_reloc_sym(cudw_link *L, int table, size_t k, const cudw_reloc *r, uint32_t *out)
{
    uint32_t *slot = cache_slot(L, table, k, r);
    if (slot && *slot) {
        *out = *slot - 1;
        return CUDW_OK;
    }
    int rc = intern_reloc_sym(L, table, k, r, out);
    if (rc == CUDW_OK && slot)
        *slot = *out + 1;
    return rc;
}

static int intern_reloc_sym(cudw_link *L, int table, size_t k, const cudw_reloc *r, uint32_t *out)
{
    if (r->sym_type == 3 /* STT_SECTION of a section that is not merged */) {
        int sec;
        uint64_t shift;
        int rc = section_for(L, k, r->sym_shndx, &sec, &shift);
        if (rc)
            return rc;
        if (sec >= 0)
            return link_intern_section_sym(L, table, sec, out);
    }
    cudw_symbol y = {r->sym_name, r->sym_value, r->sym_size, r->sym_shndx, r->sym_type, r->sym_bind, r->sym_other};
    return intern_symbol(L, table, k, &y, out);
}

/* One walk over the inputs' symbol tables: every defined function goes in
 * (all symbols, for a keep-debug companion), since a reader names the
 * function an address lies in (addr2line -f) from these even where no
 * relocation names it; and a global that only references made so far gets
 * its definition from the input that has it. */
int link_add_symbols(cudw_link *L)
{
    for (size_t k = 0; k < L->nin; k++) {
        cudw_file *f = L->in[k];
        unsigned n = cudw_section_count(f);
        for (unsigned si = 1; si < n; si++) {
            const cudw_section *st = cudw_section_get(f, si);
            int table = st->type == CUDW_SHT_MERC_SYMTAB ? 1 : st->type == 2 ? 0 : -1;
            if (table < 0)
                continue;
            symtab *t = &L->tab[table];
            for (uint32_t j = 1; j < st->data_size / 24; j++) {
                cudw_symbol y;
                uint32_t idx;
                if (cudw_symbol_get(f, si, j, &y) != CUDW_OK)
                    return link_fail_from(L, (int)k, CUDW_E_BAD_ELF);
                if (y.type == 3 || y.type == 4 /* STT_FILE */ || !y.name[0] || y.shndx == 0)
                    continue;
                int want = L->opts.keep_debug || (y.type == 2 && table == 0);
                if (!want && y.bind != 0) {
                    long i = tab_find(t, y.name, -1);
                    want = i >= 0 && t->v[i].sec == -1;
                }
                if (want && intern_symbol(L, table, k, &y, &idx))
                    return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
            }
        }
    }
    return CUDW_OK;
}

/* ---------------- the --symbols file ---------------- */

static uint64_t name_hash(const char *name) { return fnv1a(CUDW_FNV0, name, strlen(name)); }

static long map_find(const namemap *m, const char *name)
{
    hmap_probe p = hmap_probe_at(&m->idx, name_hash(name));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (!strcmp(m->v[r].name, name))
            return (long)r;
    return -1;
}

int link_code_symbols(cudw_link *L)
{
    cudw_file *f = L->opts.symbols;
    const cudw_section *st = cudw_section_find(f, ".symtab");
    namemap *m = &L->code;
    if (!st)
        return link_fail(L, -1, CUDW_E_NOT_FOUND, NULL, 0, "symbols file", "%s has no .symtab",
                         cudw_file_name(f));
    for (uint32_t j = 1; j < st->data_size / 24; j++) {
        cudw_symbol y;
        if (cudw_symbol_get(f, st->index, j, &y) != CUDW_OK) {
            L->err = *cudw_last_error(f);
            return L->err.code;
        }
        if (y.type == 3 || !y.name[0] || y.shndx == 0)
            continue;
        if (y.size) {
            const cudw_section *in = cudw_section_get(f, y.shndx);
            L->debug_shared_vars |= in && !strcmp(in->name, ".nv_debug.shared");
        }
        long i = map_find(m, y.name);
        if (i >= 0) {
            m->v[i].dup |= m->v[i].value != y.value;
            continue;
        }
        code_sym *v = vec_room(m->v, &m->cap, m->n, sizeof *v, 256);
        if (!v || hmap_add(&m->idx, name_hash(y.name), (uint32_t)m->n)) {
            if (v)
                m->v = v;
            return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
        }
        m->v = v;
        v[m->n++] = (code_sym){y.name, y.value, 0};
    }
    return CUDW_OK;
}

int link_code_lookup(const cudw_link *L, const char *name, uint64_t *value)
{
    const namemap *m = &L->code;
    long i = map_find(m, name);
    if (i < 0 || m->v[i].dup)
        return 0;
    *value = m->v[i].value;
    return 1;
}

void link_syms_free(cudw_link *L)
{
    for (int t = 0; t < 2; t++) {
        for (size_t k = 0; L->symcache[t] && k < L->nin; k++) {
            if (!L->symcache[t][k])
                continue;
            for (unsigned i = 0; i < L->in[k]->nsecs; i++)
                free(L->symcache[t][k][i]);
            free(L->symcache[t][k]);
        }
        free(L->symcache[t]);
    }
    for (int t = 0; t < 2; t++) {
        free(L->tab[t].v);
        hmap_free(&L->tab[t].idx);
    }
    free(L->code.v);
    hmap_free(&L->code.idx);
}
