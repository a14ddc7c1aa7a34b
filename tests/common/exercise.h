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

/* .debug_frame: entries, each FDE's CIE and its whole row table. */
static inline int exercise_frames(cudw_file *f, const cudw_section *s, exercise_cb cb)
{
    uint64_t cur = 0, last = 0;
    cudw_cfa_entry e, cie;
    int rc, errors = 0, guessed;
    while ((rc = cudw_frame_next(f, s, 8, &cur, &e)) != CUDW_DONE) {
        if (rc < 0) {
            cb(f, rc);
            errors++;
            if (cur <= last || cur >= s->data_size)
                break;
            last = cur;
            continue;
        }
        last = cur;
        if (e.is_cie || !e.length)
            continue;
        if ((rc = cudw_frame_cie(f, s, 8, &e, &cie, &guessed)) < 0) {
            cb(f, rc);
            errors++;
            continue;
        }
        cudw_cfa_rows *rows;
        cudw_cfa_row row;
        if ((rc = cudw_cfa_rows_open(f, s, 8, &cie, &e, &rows)) < 0) {
            cb(f, rc);
            errors++;
            continue;
        }
        size_t n;
        cudw_cfa_rows_initial(rows, &n);
        while ((rc = cudw_cfa_rows_next(rows, &row)) == CUDW_OK)
            for (size_t k = 0; k < row.nrules; k++)
                if (row.rules[k].expr)
                    exercise_expr(row.rules[k].expr, row.rules[k].expr_len, 8);
        if (rc < 0) {
            cb(f, rc);
            errors++;
        }
        cudw_cfa_rows_close(rows);
    }
    return errors;
}

/* Record-style sections: location and range lists, name indexes (read,
 * and built again from .debug_info), aranges, macinfo, register maps. */
static inline int exercise_records(cudw_file *f, const cudw_section *s, int kind, exercise_cb cb)
{
    uint64_t cur = 0;
    int rc = CUDW_DONE, errors = 0;
    if (kind == CUDW_SEC_LOC || kind == CUDW_SEC_RANGES) {
        cudw_list_entry e;
        while ((rc = cudw_list_next(f, s, kind == CUDW_SEC_LOC, 8, &cur, &e)) == CUDW_OK)
            if (e.expr)
                exercise_expr(e.expr, e.expr_len, 8);
    } else if (kind == CUDW_SEC_PUBNAMES || kind == CUDW_SEC_PUBTYPES) {
        cudw_pub_set set;
        while ((rc = cudw_pub_next_set(f, s, &cur, &set)) == CUDW_OK) {
            uint64_t pos = set.entries_offset, die;
            const char *name;
            while ((rc = cudw_pub_next(f, s, &set, &pos, &die, &name)) == CUDW_OK)
                ;
            if (rc < 0)
                break;
        }
    } else if (kind == CUDW_SEC_ARANGES) {
        cudw_aranges_set set;
        while ((rc = cudw_aranges_next_set(f, s, &cur, &set)) == CUDW_OK) {
            uint64_t pos = set.tuples_offset, a, l;
            const cudw_reloc *r;
            while ((rc = cudw_aranges_next(f, s, &set, &pos, &a, &l, &r)) == CUDW_OK)
                ;
            if (rc < 0)
                break;
        }
    } else if (kind == CUDW_SEC_MACINFO) {
        cudw_macinfo_entry m;
        while ((rc = cudw_macinfo_next(f, s, &cur, &m)) == CUDW_OK)
            ;
    } else if (kind == CUDW_SEC_NV_REG_SASS) {
        cudw_reg_func fn;
        while ((rc = cudw_reg_sass_next(f, s, &cur, &fn)) == CUDW_OK) {
            uint64_t pos = fn.entries_offset;
            cudw_reg_entry en;
            while (cudw_reg_sass_entry(s, &fn, &pos, &en) == CUDW_OK)
                ;
        }
    } else if (kind == CUDW_SEC_NV_REG_TYPE) {
        cudw_reg_func fn;
        const uint8_t *t;
        while ((rc = cudw_reg_type_next(f, s, &cur, &fn, &t)) == CUDW_OK)
            ;
    }
    if (rc < 0) {
        cb(f, rc);
        errors++;
    }
    return errors;
}

static int exercise_sink(void *ctx, const void *p, size_t n)
{
    (void)p;
    *(uint64_t *)ctx += n;
    return 0;
}

/* The writers: name indexes built from .debug_info, the file stripped, its
 * paths remapped, its keep-debug companion; each output must come out at
 * the size announced. */
static inline int exercise_writers(cudw_file *f, exercise_cb cb)
{
    int errors = 0;
    for (unsigned i = 1; i < cudw_section_count(f); i++) {
        const cudw_section *s = cudw_section_get(f, i);
        cudw_secclass c;
        if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK || c.kind != CUDW_SEC_INFO)
            continue;
        for (int kind = CUDW_PUB_NAMES; kind <= CUDW_PUB_TYPES; kind++) {
            cudw_pub_out o;
            int rc = cudw_pub_build(f, s, kind, 0, &o);
            if (rc < 0) {
                cb(f, rc);
                errors++;
            }
            cudw_pub_out_free(&o);
        }
    }
    cudw_strip *st;
    int rc = cudw_strip_run(f, &st);
    if (rc == CUDW_OK) {
        uint64_t n = 0;
        if (cudw_strip_write(st, exercise_sink, &n) != CUDW_OK || n != cudw_strip_size(st))
            abort();
        cudw_strip_free(st);
    } else {
        cb(f, rc);
        errors++;
    }
    /* every absolute path moved: the output comes out at the size announced */
    static const char *const from[] = {"/"}, *const to[] = {"/remapped/"};
    cudw_remap *rm;
    rc = cudw_remap_run(f, from, to, 1, &rm);
    if (rc == CUDW_OK) {
        uint64_t n = 0;
        if (cudw_remap_write(rm, exercise_sink, &n) != CUDW_OK || n != cudw_remap_size(rm))
            abort();
        cudw_remap_free(rm);
    } else {
        cb(f, rc);
        errors++;
    }
    cudw_link_opts o = {.keep_debug = 1};
    cudw_link *l;
    cudw_error err;
    int which;
    if (cudw_link_run(&f, 1, &o, &l, &err, &which) == CUDW_OK) {
        uint64_t n = 0;
        if (cudw_link_write(l, exercise_sink, &n) != CUDW_OK || n != cudw_link_size(l))
            abort();
        cudw_link_free(l);
    } else if (err.code >= 0 || !err.what) {
        abort(); /* an error must say what it was decoding */
    }
    return errors;
}

static inline void exercise_no_finding(const cudw_finding *fd, void *ctx)
{
    (void)ctx;
    if (!fd->where.what || !fd->where.detail[0])
        abort(); /* a finding must say what and where */
}

/* The symbolizer over f: its whole index, then every function looked up
 * at its start, middle and end, by name and by section address. */
static inline int exercise_symbolizer(cudw_file *f, exercise_cb cb)
{
    cudw_symbolizer *s;
    int errors = 0;
    if (cudw_symbolizer_open_file(&s, f, CUDW_SYM_DEMANGLE | CUDW_SYM_PTX) != CUDW_OK) {
        cudw_symbolizer_close(s);
        return 1;
    }
    if (cudw_symbolizer_prepare(s) < 0) {
        const cudw_error *e = cudw_symbolizer_error(s);
        if (e->code >= 0 || !e->what || !e->what[0])
            abort(); /* an error must say what it was decoding */
        cudw_symbolizer_close(s);
        return 1;
    }
    const cudw_section *st = cudw_section_find(f, ".symtab");
    cudw_sym_frame fr[8];
    cudw_sym_result r;
    for (uint32_t i = 1; st && st->data && i < st->data_size / 24 && i < 4096; i++) {
        cudw_symbol sym;
        if (cudw_symbol_get(f, st->index, i, &sym) != CUDW_OK || sym.type != 2)
            continue;
        uint64_t at[4] = {0, 0x10, sym.size / 2 & ~(uint64_t)15, sym.size ? sym.size - 1 : 0};
        for (int k = 0; k < 4; k++) {
            if (cudw_symbolize(s, sym.name, (size_t)-1, at[k], &r, fr, 8) < 0 ||
                cudw_symbolize_address(s, 0, sym.shndx, sym.value + at[k], &r, fr, 8) < 0) {
                cb(f, -1);
                errors++;
            }
            if (r.found && (r.nframes == 0 || r.nframes > CUDW_MAX_INLINE_DEPTH))
                abort(); /* a found location has a frame, and no more than the bound */
        }
    }
    cudw_symbolizer_close(s);
    return errors;
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
        case CUDW_SEC_FRAME:
            errors += exercise_frames(f, s, cb);
            break;
        case CUDW_SEC_LOC: case CUDW_SEC_RANGES: case CUDW_SEC_PUBNAMES: case CUDW_SEC_PUBTYPES:
        case CUDW_SEC_ARANGES: case CUDW_SEC_MACINFO: case CUDW_SEC_NV_REG_SASS: case CUDW_SEC_NV_REG_TYPE:
            errors += exercise_records(f, s, c.kind, cb);
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
    errors += exercise_writers(f, cb);
    errors += exercise_symbolizer(f, cb);
    return errors;
}

#endif
