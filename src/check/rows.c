/* verify's checks of the rows a line table decodes to (check.h): each
 * sequence tied to a function symbol, line numbers that did not go below 1,
 * addresses on instruction boundaries,
 * inside that function's section (SASS tables: a Mercury table addresses
 * code the file holds compressed) and never going back within a sequence.
 * A table whose program bytes were damaged decodes to rows that break
 * these, where its opcodes alone still parse. */
#include "check.h"

#include <stdlib.h>

typedef struct fn_at {
    const char *name;
    uint64_t section_size;
} fn_at;

/* FUNC symbols by name: the section each sequence's symbol is in */
struct row_index {
    fn_at *v;
    size_t n;
    hmap idx;
};

static struct row_index *index_of(walker *w)
{
    if (w->rows)
        return w->rows;
    struct row_index *x = calloc(1, sizeof *x);
    const cudw_section *st = cudw_section_find(w->f, ".symtab");
    size_t n = st ? cudw_symbol_count(w->f, st->index) : 0;
    if (!x || (n && (!(x->v = calloc(n, sizeof *x->v)) || hmap_reserve(&x->idx, n)))) {
        rows_index_free(x);
        return NULL;
    }
    cudw_error saved = w->f->err;
    cudw_symbol y;
    for (uint32_t i = 1; i < n; i++) {
        if (cudw_symbol_get(w->f, st->index, i, &y) != CUDW_OK || y.type != 2 /* STT_FUNC */ || !y.name[0])
            continue;
        const cudw_section *s = cudw_section_get(w->f, y.shndx);
        x->v[x->n] = (fn_at){y.name, s ? s->size : 0};
        hmap_add(&x->idx, fnv1a(CUDW_FNV0, y.name, strlen(y.name)), (uint32_t)x->n++);
    }
    w->f->err = saved; /* a bad symbol is the symbol table's finding */
    return w->rows = x;
}

void rows_index_free(struct row_index *x)
{
    if (!x)
        return;
    free(x->v);
    hmap_free(&x->idx);
    free(x);
}

static const fn_at *fn_named(const struct row_index *x, const char *name)
{
    hmap_probe p = hmap_probe_at(&x->idx, fnv1a(CUDW_FNV0, name, strlen(name)));
    for (uint32_t r; (r = hmap_next(&p)) != HMAP_NONE;)
        if (!strcmp(x->v[r].name, name))
            return &x->v[r];
    return NULL;
}

/* The instruction size of the file's SASS: 16 bytes from sm_70, 8 before. */
static unsigned insn_size(const cudw_file *f)
{
    unsigned sm = cudw_header(f)->sm;
    return sm >= 70 || !sm ? 16 : 8;
}

void rows_check(walker *w, const cudw_section *s, row_state *st, const cudw_line_row *r)
{
    if (!cudw_header(w->f)->machine) /* section bytes without an ELF: no symbols, no code */
        return;
    int first = !st->started || r->sequence != st->sequence;
    if (first) {
        *st = (row_state){1, r->sequence, 0, NULL, 0, 0};
        /* Mercury tables address the finalized Mercury code, whose size
         * the file does not hold (its capsule is compressed): no bound */
        int merc = (s->flags & CUDW_SHF_MERCURY) != 0;
        const struct row_index *x = r->symbol && !merc ? index_of(w) : NULL;
        st->fn = x ? fn_named(x, r->symbol) : NULL;
        if (!r->symbol)
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_RELOC, s, r->op_offset, "line row",
                      "sequence %llu names no function: its DW_LNE_set_address has no relocation",
                      (unsigned long long)r->sequence);
    } else if (r->address < st->address) {
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, r->op_offset, "line row",
                  "row %llu of sequence %llu goes back to 0x%llx from 0x%llx", (unsigned long long)r->index,
                  (unsigned long long)r->sequence, (unsigned long long)r->address, (unsigned long long)st->address);
    }
    st->address = r->address;
    if (r->line > 0x7fffffffu && !st->line_reported) { /* no source has 2^31 lines: it went below 1 */
        st->line_reported = 1;
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, r->op_offset, "line row",
                  "row %llu of sequence %llu has line %lld: DW_LNS_advance_line took it below 1",
                  (unsigned long long)r->index, (unsigned long long)r->sequence, (long long)r->line);
    }
    if (!r->symbol || st->reported)
        return;
    uint64_t off = r->address - r->symbol_value;
    unsigned size = insn_size(w->f);
    const char *why = NULL;
    if (off % size)
        why = "is not on an instruction boundary";
    else if (st->fn && (off > st->fn->section_size || (off == st->fn->section_size && !r->end_sequence)))
        why = "lies past the end of its function's code section";
    if (why) {
        st->reported = 1; /* one finding a sequence: the rest follow from it */
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, r->op_offset, "line row",
                  "row %llu of sequence %llu at %s+0x%llx %s (%u-byte instructions, section 0x%llx bytes)",
                  (unsigned long long)r->index, (unsigned long long)r->sequence, r->symbol, (unsigned long long)off,
                  why, size, (unsigned long long)(st->fn ? st->fn->section_size : 0));
    }
}
