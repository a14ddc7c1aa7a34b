/* Address -> rows: find the row that covers symbol+offset and walk its
 * inline contexts outward.  A context names a row of the same sequence
 * (FINDINGS 4.3); rather than keep every row of a sequence (memory in
 * proportion to the table), each hop re-reads the sequence from its start:
 * memory stays constant, time is the chain depth times the sequence. */
#include "../internal.h"

#include <gelf.h>

/* The FUNC symbol of section shndx whose [value, value + size) holds
 * addr: whole-program -lineinfo cubins lay __noinline__ callees out inside
 * the kernel's section, under one sequence, with local symbols named
 * "$<kernel>$<callee>". */
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

/* Row number index (1-based) of the sequence that starts at program
 * offset start. */
static int row_at(const cudw_line_table *t, uint64_t start, uint64_t sequence, uint64_t index, cudw_line_row *out)
{
    cudw_line_iter it;
    cudw_line_iter_init(t, &it, 0);
    it.pos = start;
    it.state.sequence = sequence;
    int rc;
    while ((rc = cudw_line_next(&it, out)) == CUDW_OK) {
        if (out->index == index)
            return CUDW_OK;
        if (out->end_sequence)
            break;
    }
    return rc < 0 ? rc : CUDW_DONE;
}

int cudw_line_lookup(cudw_file *f, const cudw_section *sec, const char *symbol, uint64_t offset,
                     cudw_line_hit *hit)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc;
    while ((rc = cudw_line_table_next(f, sec, &cur, &t)) == CUDW_OK) {
        cudw_line_iter it;
        cudw_line_row r, best;
        int have = 0, found = 0;
        uint64_t seq_start = t->program_offset, best_start = 0;
        cudw_line_iter_init(t, &it, 0);
        while (!found && (rc = cudw_line_next(&it, &r)) == CUDW_OK) {
            if (r.symbol && strcmp(r.symbol, symbol) == 0) {
                uint64_t off = r.address - r.symbol_value;
                if (!r.end_sequence) {
                    /* the last row at the highest address <= offset */
                    if (off <= offset && (!have || off >= best.address - best.symbol_value)) {
                        best = r;
                        best_start = seq_start;
                        have = 1;
                    }
                } else if (have && offset < off) {
                    found = 1; /* this sequence covers the offset */
                }
            }
            if (r.end_sequence) {
                seq_start = it.pos;
                if (!found)
                    have = 0;
            }
        }
        if (rc < 0)
            return rc;
        if (!found)
            continue;
        hit->table = t;
        hit->row = best;
        hit->nframes = 0;
        cudw_line_row row = best;
        for (;;) {
            if (hit->nframes == CUDW_MAX_INLINE_DEPTH)
                return cudw_fail(f, CUDW_E_LIMIT, sec, row.op_offset, "line row", "inline chain deeper than %d",
                                 CUDW_MAX_INLINE_DEPTH);
            cudw_line_frame *fr = &hit->frames[hit->nframes++];
            frame_of(t, &row, fr);
            if (!row.context) {
                fr->function = containing_function(f, row.symtab, row.symbol, row.address);
                break;
            }
            fr->function = row.function;
            uint64_t want = row.context;
            if (want >= row.index)
                return cudw_fail(f, CUDW_E_BAD_OFFSET, sec, row.op_offset, "line row",
                                 "inlined-call context %llu does not name an earlier row of sequence %llu (row %llu)",
                                 (unsigned long long)want, (unsigned long long)row.sequence,
                                 (unsigned long long)row.index);
            if ((rc = row_at(t, best_start, best.sequence, want, &row)) != CUDW_OK)
                return rc < 0 ? rc
                              : cudw_fail(f, CUDW_E_BAD_OFFSET, sec, best.op_offset, "line row",
                                          "inlined-call context %llu not found in sequence %llu",
                                          (unsigned long long)want, (unsigned long long)best.sequence);
        }
        return CUDW_OK;
    }
    return rc < 0 ? rc : CUDW_DONE;
}
