/* Address -> rows: find the row that covers symbol+offset and walk its
 * inline contexts outward.  Sequence rows are kept while scanning, since
 * a context names a row of the same sequence (FINDINGS 4.3). */
#include "../internal.h"

#include <gelf.h>

/* The FUNC symbol of section shndx whose [value, value + size) holds
 * addr: whole-program -lineinfo cubins lay __noinline__ callees out inside
 * the kernel's section, under one sequence. */
static const char *containing_function(cudw_file *f, unsigned symtab, const char *seq_symbol, uint64_t addr)
{
    const cudw_section *st = cudw_section_get(f, symtab);
    if (!st || !st->data || !seq_symbol)
        return seq_symbol;
    uint64_t n = st->data_size / sizeof(Elf64_Sym);
    uint16_t shndx = 0;
    cudw_symbol sym;
    for (uint64_t i = 1; i < n && !shndx; i++)
        if (cudw_symbol_get(f, st->index, (uint32_t)i, &sym) == CUDW_OK && sym.type == STT_FUNC &&
            strcmp(sym.name, seq_symbol) == 0)
            shndx = sym.shndx;
    const char *best = seq_symbol;
    uint64_t best_value = 0;
    for (uint64_t i = 1; i < n && shndx; i++) {
        if (cudw_symbol_get(f, st->index, (uint32_t)i, &sym) != CUDW_OK || sym.type != STT_FUNC ||
            sym.shndx != shndx)
            continue;
        if (sym.value <= addr && addr - sym.value < sym.size && sym.value >= best_value) {
            best = sym.name;
            best_value = sym.value;
        }
    }
    /* ptxas names such a callee "$<kernel>$<callee>": report the callee */
    if (best[0] == '$') {
        const char *last = strrchr(best + 1, '$');
        if (last && last[1])
            best = last + 1;
    }
    return best;
}

static void frame_of(const cudw_line_table *t, const cudw_line_row *r, cudw_line_frame *fr)
{
    fr->path = cudw_line_file_path(t, r->file);
    fr->file = r->file;
    fr->line = r->line;
    fr->column = r->column;
}

int cudw_line_lookup(cudw_file *f, const cudw_section *sec, const char *symbol, uint64_t offset,
                     cudw_line_hit *hit)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc;
    while ((rc = cudw_line_table_next(f, sec, &cur, &t)) == CUDW_OK) {
        cudw_line_iter it;
        cudw_line_row r;
        cudw_line_iter_init(t, &it, CUDW_LINE_KEEP_SEQUENCE);
        size_t best = SIZE_MAX;   /* index into it.seq of the covering row */
        while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
            if (!r.symbol || strcmp(r.symbol, symbol) != 0) {
                continue;
            }
            uint64_t off = r.address - r.symbol_value;
            if (!r.end_sequence) {
                if (off <= offset && (best == SIZE_MAX || off >= it.seq[best].address - it.seq[best].symbol_value))
                    best = it.nseq - 1;
                continue;
            }
            /* end of a sequence of this symbol: did it cover the offset? */
            if (best != SIZE_MAX && offset < off)
                break;
            best = SIZE_MAX;
        }
        if (rc < 0) {
            cudw_line_iter_free(&it);
            return rc;
        }
        if (rc == CUDW_OK && best != SIZE_MAX) {
            hit->table = t;
            hit->row = it.seq[best];
            hit->nframes = 0;
            const cudw_line_row *row = &it.seq[best];
            for (;;) {
                if (hit->nframes == CUDW_MAX_INLINE_DEPTH) {
                    cudw_line_iter_free(&it);
                    return cudw_fail(f, CUDW_E_LIMIT, sec, row->op_offset, "line row",
                                     "inline chain deeper than %d", CUDW_MAX_INLINE_DEPTH);
                }
                cudw_line_frame *fr = &hit->frames[hit->nframes++];
                frame_of(t, row, fr);
                if (!row->context) {
                    fr->function = containing_function(f, row->symtab, row->symbol, row->address);
                    break;
                }
                fr->function = row->function;
                const cudw_line_row *site;
                if ((rc = cudw_line_callsite(&it, row, &site)) < 0) {
                    cudw_line_iter_free(&it);
                    return rc;
                }
                row = site;
            }
            cudw_line_iter_free(&it);
            return CUDW_OK;
        }
        cudw_line_iter_free(&it);
    }
    return rc < 0 ? rc : CUDW_DONE;
}
