/* cudw_walk_section: every parser over one section, stopping at the first
 * error.  The one walk the library, the command line and the tests share:
 * `cudwarf dump` walks what it will print before printing (one error, no
 * partial output), cudw_verify walks the sections it has no checks of its
 * own for, and the fuzz targets and the mutation suite walk every section
 * deeply.  cudwarf.h says what each mode decodes. */
#include "../internal.h"

#include <stdlib.h>

static int walk_expr(cudw_file *f, const cudw_section *s, uint64_t at, const uint8_t *e, uint64_t len, uint8_t asz)
{
    uint64_t pos = 0;
    cudw_op o;
    int rc;
    while ((rc = cudw_op_next(e, len, asz, &pos, &o)) == CUDW_OK)
        ;
    return rc < 0 ? cudw_fail(f, rc, s, at + pos, "expression", "malformed DW_OP at byte %llu of %llu",
                              (unsigned long long)pos, (unsigned long long)len)
                  : CUDW_OK;
}

static int walk_abbrev(cudw_file *f, const cudw_section *s)
{
    for (uint64_t off = 0; off < s->data_size;) {
        const cudw_abbrev_table *t;
        int rc = cudw_abbrev_table_get(f, s, off, &t);
        if (rc)
            return rc;
        off = t->end;
    }
    return CUDW_OK;
}

static int walk_info(cudw_file *f, const cudw_section *s, unsigned flags)
{
    uint64_t cur = 0;
    cudw_unit u;
    int rc;
    while ((rc = cudw_unit_next(f, s, &cur, &u)) == CUDW_OK) {
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while ((rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while ((rc = cudw_attr_next(&ai, &a)) == CUDW_OK)
                if ((flags & CUDW_WALK_DEEP) && a.vclass == CUDW_V_BLOCK && cudw_attr_is_expr(a.name) &&
                    (rc = walk_expr(f, s, a.offset + (a.size - a.block_len), a.block, a.block_len, u.addr_size)))
                    return rc;
            if (rc < 0)
                return rc;
            const char *name;
            if ((flags & CUDW_WALK_DEEP) && (rc = cudw_die_name(&d, &name)) < 0)
                return rc;
            cudw_die_iter_resume(&it, &ai);
        }
        if (rc < 0)
            return rc;
    }
    return rc < 0 ? rc : CUDW_OK;
}

static int walk_rows(cudw_file *f, const cudw_line_table *t)
{
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    cudw_line_iter_init(t, &it, CUDW_LINE_KEEP_SEQUENCE | CUDW_LINE_HIDDEN);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        const cudw_line_row *site;
        const cudw_section *ptx;
        const char *text;
        if ((!r.hidden && r.context && (rc = cudw_line_callsite(&it, &r, &site)) < 0) ||
            ((ptx = cudw_ptx_section_for(f, t, r.file)) && (rc = cudw_ptx_line(f, ptx, r.line, &text)) < 0))
            break;
    }
    cudw_line_iter_free(&it);
    return rc < 0 ? rc : CUDW_OK;
}

static int walk_lines(cudw_file *f, const cudw_section *s, unsigned flags)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc;
    while ((rc = cudw_line_table_next(f, s, &cur, &t)) == CUDW_OK) {
        uint64_t pos = t->program_offset;
        cudw_line_op op;
        while ((rc = cudw_line_op_next(t, &pos, &op)) == CUDW_OK)
            ;
        if (rc < 0 || ((flags & CUDW_WALK_DEEP) && (rc = walk_rows(f, t))))
            return rc;
    }
    return rc < 0 ? rc : CUDW_OK;
}

static int walk_frames(cudw_file *f, const cudw_section *s, unsigned flags)
{
    uint64_t cur = 0;
    cudw_cfa_entry e, cie;
    int rc, guessed;
    while ((rc = cudw_frame_next(f, s, 8, &cur, &e)) == CUDW_OK) {
        if (e.is_cie || !e.length)
            continue;
        if ((rc = cudw_frame_cie(f, s, 8, &e, &cie, &guessed)) < 0)
            return rc;
        if (!(flags & CUDW_WALK_DEEP))
            continue;
        cudw_cfa_rows *rows;
        cudw_cfa_row row;
        size_t n;
        if ((rc = cudw_cfa_rows_open(f, s, 8, &cie, &e, &rows)) < 0)
            return rc;
        cudw_cfa_rows_initial(rows, &n);
        while (!rc && (rc = cudw_cfa_rows_next(rows, &row)) == CUDW_OK) {
            if (row.cfa_is_expr && row.cfa_expr)
                rc = walk_expr(f, s, e.instructions_offset, row.cfa_expr, row.cfa_expr_len, 8);
            for (size_t k = 0; k < row.nrules && !rc; k++)
                if (row.rules[k].expr)
                    rc = walk_expr(f, s, e.instructions_offset, row.rules[k].expr, row.rules[k].expr_len, 8);
        }
        cudw_cfa_rows_close(rows);
        if (rc < 0)
            return rc;
    }
    return rc < 0 ? rc : CUDW_OK;
}

/* The record-style sections: lists, name indexes, aranges, macinfo,
 * register maps, PTX text. */
static int walk_records(cudw_file *f, const cudw_section *s, int kind, unsigned flags)
{
    uint64_t cur = 0;
    int rc = CUDW_DONE;
    if (kind == CUDW_SEC_LOC || kind == CUDW_SEC_RANGES) {
        cudw_list_entry e;
        while ((rc = cudw_list_next(f, s, kind == CUDW_SEC_LOC, 8, &cur, &e)) == CUDW_OK)
            if ((flags & CUDW_WALK_DEEP) && e.expr && (rc = walk_expr(f, s, e.expr_offset, e.expr, e.expr_len, 8)))
                return rc;
    } else if (kind == CUDW_SEC_PUBNAMES || kind == CUDW_SEC_PUBTYPES) {
        cudw_pub_set set;
        while ((rc = cudw_pub_next_set(f, s, &cur, &set)) == CUDW_OK) {
            uint64_t pos = set.entries_offset, die;
            const char *name;
            while ((rc = cudw_pub_next(f, s, &set, &pos, &die, &name)) == CUDW_OK)
                ;
            if (rc < 0)
                return rc;
        }
    } else if (kind == CUDW_SEC_ARANGES) {
        cudw_aranges_set set;
        while ((rc = cudw_aranges_next_set(f, s, &cur, &set)) == CUDW_OK) {
            uint64_t pos = set.tuples_offset, a, l;
            const cudw_reloc *r;
            while ((rc = cudw_aranges_next(f, s, &set, &pos, &a, &l, &r)) == CUDW_OK)
                ;
            if (rc < 0)
                return rc;
        }
    } else if (kind == CUDW_SEC_MACINFO) {
        cudw_macinfo_entry m;
        while ((rc = cudw_macinfo_next(f, s, &cur, &m)) == CUDW_OK)
            ;
    } else if (kind == CUDW_SEC_NV_PTX_TXT) {
        uint64_t n;
        rc = cudw_ptx_line_count(f, s, &n);
    } else if (kind == CUDW_SEC_NV_REG_SASS) {
        cudw_reg_func fn;
        while ((rc = cudw_reg_sass_next(f, s, &cur, &fn)) == CUDW_OK)
            ; /* (it checks every entry; reading them again finds nothing more) */
    } else if (kind == CUDW_SEC_NV_REG_TYPE) {
        cudw_reg_func fn;
        const uint8_t *t;
        while ((rc = cudw_reg_type_next(f, s, &cur, &fn, &t)) == CUDW_OK)
            ;
    }
    return rc < 0 ? rc : CUDW_OK;
}

int cudw_walk_section(cudw_file *f, const cudw_section *s, unsigned flags)
{
    cudw_secclass c;
    if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK)
        return CUDW_OK; /* not a section cudwarf decodes */
    if (!s->data)
        return s->size && s->type != 8 /* SHT_NOBITS */ && c.kind != CUDW_SEC_NV_SHARED
                   ? cudw_fail(f, CUDW_E_BAD_OFFSET, s, 0, "section",
                               "sh_offset 0x%llx + sh_size 0x%llx lies outside the file (size 0x%zx)",
                               (unsigned long long)s->offset, (unsigned long long)s->size, f->map_size)
                   : CUDW_OK;
    /* (the parsers that read relocated fields decode the relocations first:
     * a malformed relocation section is their error) */
    switch (c.kind) {
    case CUDW_SEC_ABBREV: return walk_abbrev(f, s);
    case CUDW_SEC_INFO:
    case CUDW_SEC_NV_INFO_PTX: return walk_info(f, s, flags);
    case CUDW_SEC_LINE:
    case CUDW_SEC_NV_LINE_SASS: return walk_lines(f, s, flags);
    case CUDW_SEC_FRAME: return walk_frames(f, s, flags);
    default: return walk_records(f, s, c.kind, flags);
    }
}
