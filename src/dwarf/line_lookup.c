/* Address -> rows: find the row that covers symbol+offset and walk its
 * inline contexts outward.  A context names an earlier row of the same
 * sequence (formats.md 2.1).  Three passes over that sequence keep time
 * linear and memory at 4 bytes a row of one sequence: find the row, note
 * every row's context to follow the chain, fetch the chain's rows. */
#include "../internal.h"

#include <gelf.h>
#include <stdlib.h>

/* The FUNC symbol of section shndx whose [value, value + size) holds
 * addr: whole-program -lineinfo cubins lay __noinline__ callees out inside
 * the kernel's section, under one sequence, with local symbols named
 * "$<kernel>$<callee>". */
static const char *containing_function(cudw_file *f, unsigned symtab, const char *seq_symbol, uint64_t addr)
{
    const cudw_section *st = cudw_section_get(f, symtab);
    if (!st || !st->data || !seq_symbol)
        return seq_symbol;
    uint64_t n = cudw_symbol_count(f, st->index);
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
    const char *callee = placed_callee(best); /* report the callee */
    return callee ? callee : best;
}

static void frame_of(const cudw_line_table *t, const cudw_line_row *r, cudw_line_frame *fr)
{
    fr->path = cudw_line_file_path(t, r->file);
    fr->file = r->file;
    fr->line = r->line;
    fr->column = r->column;
}

static void iter_at(const cudw_line_table *t, cudw_line_iter *it, uint64_t start, uint64_t sequence)
{
    cudw_line_iter_init(t, it, 0);
    it->pos = start;
    it->state.sequence = sequence;
}

/* The chain of row numbers from row `last` outward (innermost first). */
static int chain_of(cudw_file *f, const cudw_section *sec, const cudw_line_table *t, uint64_t start,
                    const cudw_line_row *best, uint64_t *chain, size_t *n)
{
    uint64_t count = best->index;
    if (count > UINT32_MAX)
        return file_fail(f, CUDW_E_LIMIT, sec, best->op_offset, "line row", "sequence of more than 2^32 rows");
    uint32_t *ctx = malloc((size_t)count * sizeof *ctx);
    if (!ctx)
        return file_fail(f, CUDW_E_NOMEM, sec, best->op_offset, "line row", "out of memory");
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    iter_at(t, &it, start, best->sequence);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK && r.index <= count) {
        ctx[r.index - 1] = r.context < r.index ? (uint32_t)r.context : UINT32_MAX;
        if (r.index == count)
            break;
    }
    if (rc < 0) {
        free(ctx);
        return rc;
    }
    size_t k = 0;
    uint64_t at = count;
    for (;;) {
        if (k == CUDW_MAX_INLINE_DEPTH) {
            free(ctx);
            return file_fail(f, CUDW_E_LIMIT, sec, best->op_offset, "line row", "inline chain deeper than %d",
                             CUDW_MAX_INLINE_DEPTH);
        }
        chain[k++] = at;
        uint32_t c = ctx[at - 1];
        if (c == 0)
            break;
        if (c == UINT32_MAX) {
            free(ctx);
            return file_fail(f, CUDW_E_BAD_OFFSET, sec, best->op_offset, "line row",
                             "inlined-call context of row %llu does not name an earlier row of its sequence",
                             (unsigned long long)at);
        }
        at = c;
    }
    free(ctx);
    *n = k;
    return CUDW_OK;
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
        uint64_t chain[CUDW_MAX_INLINE_DEPTH];
        size_t n = 0;
        if ((rc = chain_of(f, sec, t, best_start, &best, chain, &n)) != CUDW_OK)
            return rc;
        /* fetch the chain's rows in one more pass; chain[] descends */
        hit->nframes = n;
        cudw_line_iter again;
        iter_at(t, &again, best_start, best.sequence);
        size_t next = n;   /* chain[next - 1] is the smallest row number still wanted */
        while (next && (rc = cudw_line_next(&again, &r)) == CUDW_OK) {
            while (next && chain[next - 1] == r.index) {
                cudw_line_frame *fr = &hit->frames[next - 1];
                frame_of(t, &r, fr);
                fr->function = r.context ? r.function
                                         : containing_function(f, r.symtab, r.symbol, r.address);
                next--;
            }
        }
        if (rc < 0)
            return rc;
        return CUDW_OK;
    }
    return rc < 0 ? rc : CUDW_DONE;
}
