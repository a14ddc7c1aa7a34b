/* Drive every parser of the library over one opened file: the walk the
 * fuzz targets and the mutation suite share.  Returns the number of
 * errors met; calls check_error(f) on each so callers can assert that an
 * error always names what was decoded.  Never prints. */
#ifndef CUDW_EXERCISE_H
#define CUDW_EXERCISE_H

#include <stdlib.h>
#include <string.h>

#include "cudwarf.h"

typedef void (*exercise_cb)(cudw_file *f, int rc);

static inline int exercise_expr(const uint8_t *e, uint64_t len, uint8_t asz)
{
    uint64_t pos = 0;
    cudw_op o;
    int rc;
    char buf[64];
    while ((rc = cudw_op_next(e, len, asz, &pos, &o)) == CUDW_OK)
        if (o.op == 0x90 || o.op == 0x92)
            cudw_register_name(o.arg[0], buf, sizeof buf);
    return rc < 0;
}

static inline int exercise_info(cudw_file *f, const cudw_section *s, exercise_cb cb)
{
    uint64_t cur = 0;
    cudw_unit u;
    int rc, errors = 0;
    while ((rc = cudw_unit_next(f, s, &cur, &u)) != CUDW_DONE) {
        if (rc < 0) {
            cb(f, rc);
            errors++;
            if (cur >= s->data_size || rc != CUDW_E_UNSUPPORTED)
                break;
            continue;
        }
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while ((rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            const char *nm;
            if (cudw_die_name(&d, &nm) < 0) {
                cb(f, -1);
                errors++;
            }
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while ((rc = cudw_attr_next(&ai, &a)) == CUDW_OK)
                if (a.vclass == CUDW_V_BLOCK && cudw_attr_is_expr(a.name))
                    exercise_expr(a.block, a.block_len, u.addr_size);
            if (rc < 0) {
                cb(f, rc);
                errors++;
                break;
            }
            cudw_die_iter_resume(&it, &ai);
        }
        if (rc < 0) {
            cb(f, rc);
            errors++;
        }
    }
    return errors;
}

static inline int exercise_lines(cudw_file *f, const cudw_section *s, exercise_cb cb)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc, errors = 0;
    while ((rc = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
        uint64_t pos = t->program_offset;
        cudw_line_op op;
        while ((rc = cudw_line_op_next(t, &pos, &op)) == CUDW_OK)
            ;
        if (rc < 0) {
            cb(f, rc);
            errors++;
            continue;
        }
        cudw_line_iter it;
        cudw_line_row r;
        const char *sym = NULL;
        uint64_t off = 0;
        size_t n = 0, cap = 64;
        cudw_line_row *rows = malloc(cap * sizeof *rows);
        cudw_line_iter_init(t, &it, CUDW_LINE_KEEP_SEQUENCE | CUDW_LINE_HIDDEN);
        while (rows && (rc = cudw_line_next(&it, &r)) == CUDW_OK) {
            const cudw_line_row *site;
            if (!r.hidden && r.context && cudw_line_callsite(&it, &r, &site) < 0)
                errors++;
            if (!sym && r.symbol) {
                sym = r.symbol;
                off = r.address - r.symbol_value;
            }
            const cudw_section *ptx = cudw_ptx_section_for(f, t, r.file);
            const char *text;
            if (ptx && cudw_ptx_line(f, ptx, r.line, &text) < 0) {
                cb(f, -1);
                errors++;
            }
            if (n == cap) {
                cudw_line_row *nr = realloc(rows, (cap *= 2) * sizeof *rows);
                if (!nr)
                    break;
                rows = nr;
            }
            rows[n++] = r;
        }
        cudw_line_iter_free(&it);
        if (rc < 0) {
            cb(f, rc);
            errors++;
        }
        if (sym) {
            cudw_line_hit *hit = malloc(sizeof *hit);
            if (hit && cudw_line_lookup(f, s, sym, off, hit) < 0) {
                cb(f, -1);
                errors++;
            }
            free(hit);
        }
        /* encode what was decoded: must not fail unless the rows descend */
        cudw_line_params p = cudw_line_params_nvidia();
        cudw_line_header_in h = {.dirs = t->dirs, .ndirs = t->ndirs, .files = t->files, .nfiles = t->nfiles};
        cudw_line_out out;
        if (rows && cudw_line_encode(&p, &h, rows, n, &out) == CUDW_OK)
            cudw_line_out_free(&out);
        free(rows);
    }
    if (rc < 0) {
        cb(f, rc);
        errors++;
    }
    return errors;
}

static inline void exercise_no_finding(const cudw_finding *fd, void *ctx)
{
    (void)ctx;
    if (!fd->where.what || !fd->where.detail[0])
        abort(); /* a finding must say what and where */
}

static inline int exercise_file(cudw_file *f, exercise_cb cb)
{
    int errors = 0;
    cudw_verify(f, exercise_no_finding, NULL);
    for (unsigned i = 1; i < cudw_section_count(f); i++) {
        const cudw_section *s = cudw_section_get(f, i);
        cudw_secclass c;
        int twin, aliased;
        if (cudw_section_class(f, i, &c, &twin, &aliased) != CUDW_OK)
            continue;
        const cudw_reloc *r;
        size_t n;
        if (cudw_relocs(f, i, &r, &n) < 0) {
            cb(f, -1);
            errors++;
            continue;
        }
        switch (c.kind) {
        case CUDW_SEC_ABBREV:
            for (uint64_t off = 0; s->data && off < s->data_size;) {
                const cudw_abbrev_table *t;
                if (cudw_abbrev_table_get(f, s, off, &t) < 0) {
                    cb(f, -1);
                    errors++;
                    break;
                }
                off = t->end;
            }
            break;
        case CUDW_SEC_INFO:
        case CUDW_SEC_NV_INFO_PTX:
            errors += exercise_info(f, s, cb);
            break;
        case CUDW_SEC_LINE:
        case CUDW_SEC_NV_LINE_SASS:
            errors += exercise_lines(f, s, cb);
            break;
        case CUDW_SEC_NV_PTX_TXT: {
            uint64_t lines;
            if (s->data && cudw_ptx_line_count(f, s, &lines) < 0) {
                cb(f, -1);
                errors++;
            }
            break;
        }
        default:
            break;
        }
    }
    return errors;
}

#endif
