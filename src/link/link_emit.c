/* The debug linker's output file:
 *
 *   [1] .strtab            names of both symbol tables
 *   [2] .symtab            null, section symbols, locals, globals
 *   [3] .nv.merc.symtab    the same for Mercury relocations (when any)
 *   [..] the merged debug sections, in order of first appearance, then the
 *       SHT_NOBITS placeholder sections of symbols
 *   [..] per section with kept relocations: .rel<name> (REL, 16-byte
 *       entries), .rela<name> (RELA, 24), .nv.merc.rela<suffix>
 *       (0x70000082, RELA layout, linked to .nv.merc.symtab)
 *   [n] .shstrtab
 *
 * ELF header: the first input's e_ident and e_flags, ET_EXEC as nvlink -g
 * writes. */
#include "link.h"

#include <stdio.h>
#include <stdlib.h>

static void le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Final order of a table: locals (section symbols first), then the rest. */
static int order_table(cudw_link *L, int table, uint32_t *first_global)
{
    symtab *t = &L->tab[table];
    uint32_t *map = malloc((t->n ? t->n : 1) * sizeof *map);
    if (!map)
        return CUDW_E_NOMEM;
    uint32_t next = 1;
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < t->n; i++) {
            const osym *s = &t->v[i];
            int local = (s->info >> 4) == 0;
            int section = (s->info & 0xf) == 3;
            if ((pass == 0 && local && section) || (pass == 1 && local && !section) || (pass == 2 && !local))
                map[i] = next++;
        }
    *first_global = 1;
    for (size_t i = 0; i < t->n; i++)
        if ((t->v[i].info >> 4) == 0 && map[i] + 1 > *first_global)
            *first_global = map[i] + 1;
    L->remap[table] = map;
    return CUDW_OK;
}

static int build_symtab(cudw_link *L, int table, const unsigned *out_index)
{
    symtab *t = &L->tab[table];
    wbuf *b = &L->symbytes[table];
    size_t n = t->n + 1;
    uint8_t *v = calloc(n, 24);
    if (!v)
        return CUDW_E_NOMEM;
    for (size_t i = 0; i < t->n; i++) {
        const osym *s = &t->v[i];
        uint8_t *p = v + (size_t)L->remap[table][i] * 24;
        uint32_t name = 0;
        if ((s->info & 0xf) != 3) {
            name = (uint32_t)L->strtab.n;
            wb_put(&L->strtab, s->name, strlen(s->name) + 1);
        }
        le(p, name, 4);
        p[4] = s->info;
        p[5] = s->other;
        le(p + 6, s->sec >= 0 ? out_index[s->sec] : s->sec == -2 ? 0xfff1 : 0, 2);
        le(p + 8, s->value, 8);
        le(p + 16, s->size, 8);
    }
    wb_put(b, v, n * 24);
    free(v);
    return b->oom || L->strtab.oom ? CUDW_E_NOMEM : CUDW_OK;
}

static int cmp_orel(const void *a, const void *b)
{
    const orel *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int link_build_elf(cudw_link *L)
{
    int merc_tab = L->tab[1].n > 0;
    size_t nrel = 0;
    for (size_t i = 0; i < L->nsecs; i++)
        for (int k = 0; k < 3; k++)
            nrel += L->secs[i].nrel[k] > 0;
    size_t first = 2 + (size_t)merc_tab; /* sections before the debug ones */
    size_t total = first + L->nsecs + nrel;
    L->ew.secs = calloc(total, sizeof *L->ew.secs);
    L->efrags = NULL;
    L->relbytes = calloc(nrel ? nrel : 1, sizeof *L->relbytes);
    unsigned *out_index = malloc((L->nsecs ? L->nsecs : 1) * sizeof *out_index);
    size_t nfr = 0;
    for (size_t i = 0; i < L->nsecs; i++)
        nfr += L->secs[i].nfrags;
    L->efrags = malloc((nfr + 3 + nrel) * sizeof *L->efrags);
    if (!L->ew.secs || !L->relbytes || !out_index || !L->efrags) {
        free(out_index);
        return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
    }
    L->ew.nsecs = total; /* names of relocation sections are freed through it */
    for (size_t i = 0; i < L->nsecs; i++)
        out_index[i] = (unsigned)(first + 1 + i);
    int rc = CUDW_OK;
    uint32_t firstg[2] = {1, 1};
    wb_byte(&L->strtab, 0);
    for (int t = 0; t < 2 && rc == CUDW_OK; t++)
        if (L->tab[t].n || t == 0)
            if ((rc = order_table(L, t, &firstg[t])) == CUDW_OK)
                rc = build_symtab(L, t, out_index);
    if (rc != CUDW_OK) {
        free(out_index);
        return link_fail(L, -1, rc, NULL, 0, "link", "out of memory");
    }
    ew_sec *es = L->ew.secs;
    ew_frag *fr = L->efrags;
    size_t nf = 0;
    es[0] = (ew_sec){.name = ".strtab", .type = 3, .align = 1, .alias = -1};
    fr[nf] = (ew_frag){L->strtab.p, L->strtab.n, -1, 0};
    es[0].frags = &fr[nf++];
    es[0].nfrags = 1;
    es[1] = (ew_sec){.name = ".symtab", .type = 2, .link = 1, .info = firstg[0], .align = 8, .entsize = 24,
                     .alias = -1};
    fr[nf] = (ew_frag){L->symbytes[0].p, L->symbytes[0].n, -1, 0};
    es[1].frags = &fr[nf++];
    es[1].nfrags = 1;
    if (merc_tab) {
        es[2] = (ew_sec){.name = ".nv.merc.symtab", .type = CUDW_SHT_MERC_SYMTAB, .flags = CUDW_SHF_MERCURY,
                         .link = 1, .info = firstg[1], .align = 8, .entsize = 24, .alias = -1};
        fr[nf] = (ew_frag){L->symbytes[1].p, L->symbytes[1].n, -1, 0};
        es[2].frags = &fr[nf++];
        es[2].nfrags = 1;
    }
    for (size_t i = 0; i < L->nsecs; i++) {
        osec *s = &L->secs[i];
        ew_sec *e = &es[first + i];
        *e = (ew_sec){.name = s->name, .type = s->type, .flags = s->flags, .align = s->align,
                      .alias = s->alias >= 0 ? (int)first + s->alias : -1};
        if (s->type == 8) {
            e->size = s->size;
            continue;
        }
        e->frags = &fr[nf];
        for (size_t k = 0; k < s->nfrags; k++) {
            const frag *x = &s->frags[k];
            cudw_file *in = x->owned || x->cow ? NULL : L->in[x->input];
            /* unchanged bytes of a mapped file: the caller may copy them in the kernel */
            int mapped = in && in->owns_map && x->p >= in->map && x->p + x->n <= in->map + in->map_size;
            fr[nf++] = (ew_frag){x->cow ? x->cow : x->p, x->n, mapped ? (long)x->input : -1,
                                 mapped ? (uint64_t)(x->p - in->map) : 0};
        }
        e->nfrags = s->nfrags;
    }
    size_t r = 0, at = first + L->nsecs;
    for (size_t i = 0; i < L->nsecs; i++) {
        osec *s = &L->secs[i];
        for (int kind = 0; kind < 3; kind++) {
            if (!s->nrel[kind])
                continue;
            int sorted = 1; /* inputs come in order: usually already */
            for (size_t j = 1; j < s->nrel[kind] && sorted; j++)
                sorted = s->rel[kind][j - 1].offset <= s->rel[kind][j].offset;
            if (!sorted)
                qsort(s->rel[kind], s->nrel[kind], sizeof *s->rel[kind], cmp_orel);
            int table = kind == REL_MERC;
            unsigned esz = kind == REL_REL ? 16 : 24;
            wbuf *b = &L->relbytes[r];
            L->nrelbytes = r + 1;
            wb_reserve(b, s->nrel[kind] * esz);
            for (size_t j = 0; j < s->nrel[kind]; j++) {
                const orel *x = &s->rel[kind][j];
                uint8_t e[24];
                le(e, x->offset, 8);
                le(e + 8, (uint64_t)L->remap[table][x->sym] << 32 | x->type, 8);
                le(e + 16, (uint64_t)x->addend, 8);
                wb_put(b, e, esz);
            }
            char *name = malloc(strlen(s->name) + 16);
            if (!name || b->oom) {
                free(name);
                free(out_index);
                return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
            }
            if (kind == REL_MERC && !strncmp(s->name, ".nv.merc.", 9))
                sprintf(name, ".nv.merc.rela%s", s->name + 8);
            else
                sprintf(name, "%s%s", kind == REL_REL ? ".rel" : kind == REL_RELA ? ".rela" : ".nv.merc.rela",
                        s->name);
            es[at] = (ew_sec){.name = name,
                              .type = kind == REL_REL ? 9 : kind == REL_RELA ? 4 : CUDW_SHT_MERC_RELA,
                              .flags = 0x40 /* SHF_INFO_LINK */ | (kind == REL_MERC ? CUDW_SHF_MERCURY : 0),
                              .link = kind == REL_MERC ? 3 : 2, .info = out_index[i], .align = 8,
                              .entsize = esz, .alias = -1};
            fr[nf] = (ew_frag){b->p, b->n, -1, 0};
            es[at].frags = &fr[nf++];
            es[at].nfrags = 1;
            at++;
            r++;
        }
    }
    free(out_index);
    const cudw_elf_header *h = cudw_header(L->in[0]);
    memset(L->ew.ident, 0, 16);
    memcpy(L->ew.ident, "\x7f" "ELF", 4);
    L->ew.ident[4] = 2;  /* ELFCLASS64 */
    L->ew.ident[5] = 1;  /* little-endian */
    L->ew.ident[6] = 1;
    L->ew.ident[7] = h->osabi;
    L->ew.ident[8] = h->abiversion;
    L->ew.type = L->opts.keep_debug ? h->type : 2; /* ET_EXEC as nvlink writes; a companion: its file's */
    L->ew.machine = 190;
    L->ew.flags = h->flags;
    if (ew_layout(&L->ew) != CUDW_OK)
        return link_fail(L, -1, CUDW_E_NOMEM, NULL, 0, "link", "out of memory");
    return CUDW_OK;
}

void link_emit_free(cudw_link *L)
{
    if (L->ew.secs) {
        size_t first = 2 + (size_t)(L->tab[1].n > 0);
        for (size_t i = first + L->nsecs; i < L->ew.nsecs; i++)
            free((char *)L->ew.secs[i].name);
    }
    free(L->ew.secs);
    ew_free(&L->ew);
    free(L->efrags);
    for (size_t i = 0; i < L->nrelbytes; i++)
        wb_free(&L->relbytes[i]);
    free(L->relbytes);
    wb_free(&L->strtab);
    wb_free(&L->symbytes[0]);
    wb_free(&L->symbytes[1]);
    free(L->remap[0]);
    free(L->remap[1]);
}
