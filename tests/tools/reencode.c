/* reencode: decode every line program of the given cubins and encode it
 * again, both ways: its opcodes (cudw_line_op_next -> cudw_line_encode_ops:
 * must give every byte back) and its rows (cudw_line_next ->
 * cudw_line_encode: ptxas's choice of opcodes, byte-identical wherever the
 * table holds only what rows say -- not the lone advances, replaced 0x90s
 * and opcode orders stage 1 writes).  One line per section ("ok"/"FAIL"):
 * how many tables came out byte-identical each way, and where the first
 * opcode re-encoding differs.  The relocation sites must match the
 * original relocations too (offsets and symbols).
 *
 * usage: reencode FILE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudwarf.h"

static int is_line(const cudw_section *s)
{
    cudw_secclass c;
    return cudw_classify_name(s->name, s->flags, &c) == CUDW_OK &&
           (c.kind == CUDW_SEC_LINE || c.kind == CUDW_SEC_NV_LINE_SASS);
}

static cudw_line_params params_of(const cudw_line_table *t)
{
    return (cudw_line_params){.version = t->version, .addr_size = 8, .min_inst_length = t->min_inst_length,
                              .default_is_stmt = t->default_is_stmt, .line_range = t->line_range,
                              .opcode_base = t->opcode_base, .line_base = t->line_base};
}

static cudw_line_header_in header_of(const cudw_line_table *t)
{
    return (cudw_line_header_in){.dirs = t->dirs, .ndirs = t->ndirs, .files = t->files, .nfiles = t->nfiles,
                                 .has_str_base = t->has_str_base, .str_base = t->str_base_raw,
                                 .str_base_symbol = t->str_base_reloc ? t->str_base_reloc->sym_name : NULL};
}

/* The rows of t encoded again: 1 byte-identical, 0 not, -1 failed. */
static int rows_again(const cudw_line_table *t)
{
    size_t cap = 1024, nrows = 0;
    cudw_line_row *rows = malloc(cap * sizeof *rows);
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    cudw_line_iter_init(t, &it, 0);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        if (nrows == cap)
            rows = realloc(rows, (cap *= 2) * sizeof *rows);
        rows[nrows++] = r;
    }
    cudw_line_params p = params_of(t);
    cudw_line_header_in h = header_of(t);
    cudw_line_out out;
    int same = -1;
    if (rc == CUDW_DONE && cudw_line_encode(&p, &h, rows, nrows, &out) == CUDW_OK) {
        same = out.size == t->end - t->offset && !memcmp(out.data, t->section->data + t->offset, out.size);
        cudw_line_out_free(&out);
    }
    free(rows);
    return same;
}

static int table(cudw_file *f, const cudw_line_table *t, char *why, size_t n)
{
    size_t cap = 1024, nops = 0;
    cudw_line_op *ops = malloc(cap * sizeof *ops);
    uint64_t pos = t->program_offset;
    cudw_line_op o;
    int rc;
    while ((rc = cudw_line_op_next(t, &pos, &o)) == CUDW_OK) {
        if (nops == cap)
            ops = realloc(ops, (cap *= 2) * sizeof *ops);
        ops[nops++] = o;
    }
    if (rc < 0) {
        snprintf(why, n, "decode failed");
        free(ops);
        return -1;
    }
    cudw_line_params p = params_of(t);
    cudw_line_header_in h = header_of(t);
    cudw_line_out out;
    if (cudw_line_encode_ops(&p, &h, ops, nops, &out) != CUDW_OK) {
        snprintf(why, n, "encode failed: %s", out.err.detail);
        free(ops);
        return -1;
    }
    free(ops);
    const uint8_t *orig = t->section->data + t->offset;
    size_t olen = t->end - t->offset;
    int bad = 0;
    if (out.size != olen || memcmp(out.data, orig, olen) != 0) {
        /* compare past the length field, so a difference is reported where it is */
        size_t k = 4;
        while (k < out.size && k < olen && out.data[k] == orig[k])
            k++;
        if (k == olen && k == out.size)
            k = 0;
        char ours[64] = "", theirs[64] = "";
        for (size_t q = 0; q < 8; q++) {
            if (k + q < out.size)
                snprintf(ours + strlen(ours), sizeof ours - strlen(ours), "%02x ", out.data[k + q]);
            if (k + q < olen)
                snprintf(theirs + strlen(theirs), sizeof theirs - strlen(theirs), "%02x ", orig[k + q]);
        }
        snprintf(why, n, "table 0x%llx: %zu bytes vs %zu, first difference at section offset 0x%llx: ours %s| original %s",
                 (unsigned long long)t->offset, out.size, olen, (unsigned long long)(t->offset + k), ours, theirs);
        bad = 1;
    }
    /* relocation sites: each must be a relocation of the original, same symbol */
    for (size_t k = 0; k < out.nsites && !bad; k++) {
        const cudw_reloc *rel = cudw_reloc_at(f, t->section->index, t->offset + out.sites[k].offset);
        if (!rel || strcmp(rel->sym_name, out.sites[k].symbol) != 0 || rel->addend != out.sites[k].addend) {
            snprintf(why, n, "table 0x%llx: relocation site +0x%llx (%s+%lld) not in the original",
                     (unsigned long long)t->offset, (unsigned long long)out.sites[k].offset, out.sites[k].symbol,
                     (long long)out.sites[k].addend);
            bad = 1;
        }
    }
    cudw_line_out_free(&out);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    int fail = 0;
    for (int i = 1; i < argc; i++) {
        cudw_file *f;
        if (cudw_open(&f, argv[i]) != CUDW_OK) {
            printf("FAIL %s: cannot open\n", argv[i]);
            cudw_close(f);
            fail++;
            continue;
        }
        for (unsigned s = 1; s < cudw_section_count(f); s++) {
            const cudw_section *sec = cudw_section_get(f, s);
            if (!is_line(sec))
                continue;
            uint64_t cur = 0;
            const cudw_line_table *t;
            int ntab = 0, nbad = 0, nrows_same = 0;
            char why[512] = "", first[512] = "";
            while (cudw_line_table_next(f, sec, &cur, &t) == CUDW_OK) {
                ntab++;
                if (table(f, t, why, sizeof why) != 0 && !nbad++)
                    memcpy(first, why, sizeof first);
                nrows_same += rows_again(t) == 1;
            }
            printf("%s %s %s: %d of %d tables byte-identical from their opcodes, %d from their rows%s%s\n",
                   nbad || !ntab ? "FAIL" : "ok  ", argv[i], sec->name, ntab - nbad, ntab, nrows_same,
                   nbad ? "; " : "", first);
            fail += nbad || !ntab;
        }
        cudw_close(f);
    }
    return fail ? 1 : 0;
}
