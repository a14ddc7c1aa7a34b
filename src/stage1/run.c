/* The driver of ptxas's stage 1 (model.c walks one sequence): the
 * .nv_debug_line_sass table cut into sequences, each with its entries --
 * its start, and the functions ptxas placed in its section (FUNC symbols
 * there) -- and the generator's per-.loc state. */
#include "stage1/gen.h"
#include <stdlib.h>
#include <string.h>

int ptx_gen_run(cudw_file *f, const cudw_ptx *p, const cudw_line_table *sass, ptx_dialect dialect,
                uint64_t off, const cudw_line_params *prm, line_wrow **rows, size_t *nrows)
{
    gen g = {0};
    g.p = p;
    g.dialect = dialect;
    g.off = off;
    g.prm = prm;
    int merc = dialect == PTXD_MERCURY;
    g.loc.reg = malloc((p->nlocs ? p->nlocs : 1) * sizeof *g.loc.reg);
    g.loc.reg_gen = calloc(p->nlocs ? p->nlocs : 1, sizeof *g.loc.reg_gen);
    g.loc.nofile_gen = calloc(p->nlocs ? p->nlocs : 1, sizeof *g.loc.nofile_gen);
    g.loc.logical_gen = calloc(p->nlocs ? p->nlocs : 1, sizeof *g.loc.logical_gen);
    g.loc.cap_f = calloc(p->nlocs ? p->nlocs : 1, sizeof *g.loc.cap_f);
    g.loc.taken_gen = calloc(p->nlocs ? p->nlocs : 1, sizeof *g.loc.taken_gen);
    g.loc.owed_by = calloc(p->nlocs ? p->nlocs : 1, sizeof *g.loc.owed_by);
    cudw_line_row *seq = NULL;
    size_t nseq = 0, capseq = 0;
    int rc = g.loc.reg && g.loc.reg_gen && g.loc.nofile_gen && g.loc.logical_gen && g.loc.cap_f && g.loc.taken_gen && g.loc.owed_by ? CUDW_OK : CUDW_E_NOMEM;
    entries E = {0};
    int shndx = -1;
    cudw_line_iter it;
    cudw_line_iter_init(sass, &it, 0);
    cudw_line_row r;
    while (!rc && (rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        if (r.line > p->nlines && !r.end_sequence) {
            rc = file_fail(f, CUDW_E_BAD_OFFSET, sass->section, r.op_offset, "line table row",
                           "PTX line %llu: %s has only %zu lines", (unsigned long long)r.line, p->name, p->nlines);
            break;
        }
        cudw_line_row *v = vec_room(seq, &capseq, nseq, sizeof *v, 256);
        if (!v) {
            rc = CUDW_E_NOMEM;
            break;
        }
        seq = v;
        if (!nseq)
            shndx = it.seq_shndx; /* the section of the sequence's symbol, as its set_address says */
        seq[nseq++] = r;
        if (!r.end_sequence)
            continue;
        g.proto = (line_wrow){0};
        g.proto.symbol = seq[0].symbol;
        g.proto.symbol_value = seq[0].symbol_value;
        g.proto.symtab = seq[0].symtab;
        g.proto.is_stmt = 1;
        E.n = 0;
        E.start = seq[0].address;
        E.start_seen = 0;
        const func_starts *fs = !merc && seq[0].symtab && shndx >= 0 ? func_starts_of(f, seq[0].symtab) : NULL;
        if (fs)
            E.v = func_starts_in(fs, (uint32_t)shndx, &E.n);
        if (E.n > E.capseen) {
            uint8_t *sv = realloc(E.seen, E.n);
            if (!sv) {
                rc = CUDW_E_NOMEM;
                break;
            }
            E.seen = sv;
            E.capseen = E.n;
        }
        if (E.n)
            memset(E.seen, 0, E.n);
        size_t start = g.nrows;
        if (!rc)
            rc = ptxg_sequence(&g, seq, nseq, merc ? NULL : &E);
        if (!rc && g.n == 0) /* no row (a function without .locs): no sequence */
            g.nrows = start;
        else if (!rc)
            ptxg_merge_dead(&g, start);
        nseq = 0;
    }
    cudw_line_iter_free(&it);
    free(E.seen);
    if (rc == CUDW_DONE)
        rc = CUDW_OK;
    free(seq);
    free(g.loc.reg);
    free(g.loc.reg_gen);
    free(g.loc.nofile_gen);
    free(g.loc.logical_gen);
    free(g.loc.cap_f);
    free(g.loc.taken_gen);
    free(g.loc.owed_by);
    free(g.loc.chain);
    if (rc) {
        free(g.rows);
        return rc;
    }
    *rows = g.rows;
    *nrows = g.nrows;
    return CUDW_OK;
}
