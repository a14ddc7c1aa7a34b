/* The one walk over a debug section: every parser over it, in the three
 * modes check.h describes (to the first error; deep; verify's checks and
 * on past errors).  dump walks with it before printing, cudw_verify with
 * every check, the fuzz targets and the mutation suite deeply. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The address size of the file's frames and location lists: the header's
 * (4 in ELF32 cubins), 8 where there is none (cudw_open_sections). */
static uint8_t w_addr_size(const walker *w)
{
    uint8_t a = cudw_header(w->f)->address_size;
    return a ? a : 8;
}

/* Where expression bytes e lie in s (a rule's expression points into the
 * CIE's or FDE's program); otherwise: at. */
static uint64_t expr_at(const cudw_section *s, const uint8_t *e, uint64_t at)
{
    return s->data && e >= s->data && e < s->data + s->data_size ? (uint64_t)(e - s->data) : at;
}

/* A DW_OP expression of len bytes at section offset at, decoded.  In a
 * call-frame rule (vendor != 0) an operation no DWARF version defines is
 * a note with its bytes, not an error: CUDA 9-10 wrote register rules
 * starting with 0x05, and the rule is framed by its length, so nothing
 * after it is lost.  Anywhere else, and an operand running past the frame,
 * it is malformed. */
static void walk_expr(walker *w, const cudw_section *s, uint64_t at, const uint8_t *e, uint64_t len, uint8_t asz,
                      const char *of, uint32_t attr, int vendor)
{
    uint64_t pos = 0;
    cudw_op op;
    int rc;
    while ((rc = cudw_op_next(e, len, asz, &pos, &op)) == CUDW_OK)
        ;
    if (rc >= 0)
        return;
    const char *where = attr && cudw_at_name(attr) ? cudw_at_name(attr) : of;
    if (vendor && pos < len && !cudw_op_name(e[pos])) {
        char hex[3 * 16 + 4] = "";
        for (uint64_t i = pos; i < len && i < pos + 16; i++)
            snprintf(hex + strlen(hex), sizeof hex - strlen(hex), "%s%02x", i > pos ? " " : "", e[i]);
        w_finding(w, CUDW_FINDING_NOTE, CUDW_E_BAD_EXPR, s, at + pos, "expression",
                  "operation 0x%02x at byte %llu of %s is no DWARF operation (bytes %s%s); the expression "
                  "is framed by its length, nothing after it is lost",
                  e[pos], (unsigned long long)pos, where, hex, len - pos > 16 ? " ..." : "");
        return;
    }
    w_error(w, rc, s, at + pos, "expression", "malformed DW_OP at byte %llu of %s", (unsigned long long)pos, where);
}

static void walk_abbrev(walker *w, const cudw_section *s)
{
    for (uint64_t off = 0; off < s->data_size;) {
        const cudw_abbrev_table *t;
        if (cudw_abbrev_table_get(w->f, s, off, &t) < 0) {
            w_parse_error(w);
            return;
        }
        off = t->end;
    }
}

/* The checks of one attribute: references onto DIEs of the unit, sibling
 * chains, location-list offsets. */
static void check_attr(walker *w, const cudw_section *s, const cudw_unit *u, const cudw_die *d, const cudw_attr *a,
                       const uint64_t *dies, size_t n, uint64_t *want_sibling, const cudw_section *loc,
                       const uint64_t *locs, size_t nloc)
{
#define NAME (cudw_at_name(a->name) ? cudw_at_name(a->name) : "attribute") /* only when reporting */
    if (a->vclass == CUDW_V_REF && a->form != CUDW_DW_FORM_ref_addr) {
        if (a->u < u->die_offset || a->u >= u->end)
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, a->offset, "reference",
                      "%s points at 0x%llx, outside its unit [0x%llx, 0x%llx)", NAME, (unsigned long long)a->u,
                      (unsigned long long)u->offset, (unsigned long long)u->end);
        else if (!u64_sorted_has(dies, n, a->u))
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, a->offset, "reference",
                      "%s points at 0x%llx, which is not the start of a DIE", NAME, (unsigned long long)a->u);
        if (a->name == CUDW_DW_AT_sibling && d->depth < CUDW_MAX_DIE_DEPTH)
            want_sibling[d->depth] = a->u;
    }
    if ((a->name == CUDW_DW_AT_location || a->name == CUDW_DW_AT_frame_base) &&
        (a->form == CUDW_DW_FORM_data4 || a->form == CUDW_DW_FORM_sec_offset)) {
        if (!loc)
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_NOT_FOUND, s, a->offset, "location list",
                      "location list offset 0x%llx but no .debug_loc", (unsigned long long)a->u);
        else if (!u64_sorted_has(locs, nloc, a->u))
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, a->offset, "location list",
                      "offset 0x%llx is not the start of a list in %s", (unsigned long long)a->u, loc->name);
    }
#undef NAME
}

/* The DIE offsets of unit u, ascending (malloc'd); NULL when out of memory. */
static uint64_t *die_offsets(const cudw_unit *u, size_t *n, int *rc)
{
    size_t cap = 256;
    uint64_t *dies = malloc(cap * sizeof *dies);
    cudw_die_iter it;
    cudw_die d;
    *n = 0;
    cudw_die_iter_init(u, &it);
    while (dies && (*rc = cudw_die_next(&it, &d)) == CUDW_OK) {
        uint64_t *nd = vec_room(dies, &cap, *n, sizeof *dies, 256);
        if (!nd) {
            free(dies);
            return NULL;
        }
        dies = nd;
        dies[(*n)++] = d.offset;
    }
    return dies;
}

static void walk_info(walker *w, const cudw_section *s)
{
    cudw_file *f = w->f;
    int checks = (w->flags & WALK_CHECKS) != 0;
    const cudw_section *loc = checks ? section_companion(f, s, ".debug_loc") : NULL;
    size_t nloc = 0;
    uint64_t *locs = loc ? loc_starts(f, loc, &nloc) : NULL;
    if (loc && !locs) { /* no list offsets to check against: say so rather than report them all */
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_NOMEM, s, 0, "location list",
                  "out of memory: location-list offsets not checked");
        loc = NULL;
    }
    uint64_t cur = 0;
    cudw_unit u;
    int rc;
    while (!w->stop && (rc = cudw_unit_next(f, s, &cur, &u)) != CUDW_DONE) {
        if (rc < 0) {
            w_parse_error(w);
            /* an unsupported unit was skipped; a broken length ends the section */
            if (rc != CUDW_E_UNSUPPORTED || cur >= s->data_size || cur <= u.offset)
                break;
            continue;
        }
        size_t n = 0;
        uint64_t *dies = NULL;
        if (checks) { /* pass 1: the unit's DIE offsets, for the references */
            if (!(dies = die_offsets(&u, &n, &rc))) {
                w_finding(w, CUDW_FINDING_ERROR, CUDW_E_NOMEM, s, u.offset, "reference",
                          "out of memory: the references of the unit at 0x%llx not checked",
                          (unsigned long long)u.offset);
                continue;
            }
            if (rc < 0) {
                w_parse_error(w);
                free(dies);
                continue;
            }
        }
        /* pass 2 (the only one without checks): every attribute */
        uint64_t want_sibling[CUDW_MAX_DIE_DEPTH];
        memset(want_sibling, 0, sizeof want_sibling);
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while (!w->stop && (rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            if (checks && d.depth < CUDW_MAX_DIE_DEPTH && want_sibling[d.depth]) {
                if (want_sibling[d.depth] != d.offset)
                    w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, d.offset, "sibling chain",
                              "the previous sibling's DW_AT_sibling says 0x%llx, the next sibling is at 0x%llx",
                              (unsigned long long)want_sibling[d.depth], (unsigned long long)d.offset);
                want_sibling[d.depth] = 0;
            }
            for (unsigned k = d.depth + 1; checks && k < CUDW_MAX_DIE_DEPTH && want_sibling[k]; k++)
                want_sibling[k] = 0;
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while (!w->stop && (rc = cudw_attr_next(&ai, &a)) == CUDW_OK) {
                if (checks)
                    check_attr(w, s, &u, &d, &a, dies, n, want_sibling, loc, locs, nloc);
                if ((w->flags & WALK_DEEP) && a.vclass == CUDW_V_BLOCK && cudw_attr_is_expr(a.name))
                    walk_expr(w, s, a.offset + (a.size - a.block_len), a.block, a.block_len, u.addr_size,
                              "the attribute", a.name, 0);
            }
            if (rc < 0) {
                w_parse_error(w);
                break;
            }
            const char *name; /* (the fuzzers' walk: verify has read every value already) */
            if ((w->flags & (WALK_DEEP | WALK_CHECKS)) == WALK_DEEP && !w->stop && cudw_die_name(&d, &name) < 0) {
                w_parse_error(w);
                break;
            }
            cudw_die_iter_resume(&it, &ai);
        }
        if (rc < 0 && f->err.code && !w->stop)
            w_parse_error(w);
        free(dies);
    }
    free(locs);
}

/* The checks of one line-program opcode: file numbers, function names. */
static void check_op(walker *w, const cudw_section *s, const cudw_line_table *t, const cudw_line_op *op)
{
    if (op->kind == CUDW_LOP_STANDARD && op->opcode == CUDW_DW_LNS_set_file && op->u > t->nfiles &&
        !(op->u == 0 && t->nfiles == 0))
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, op->offset, "line program",
                  "DW_LNS_set_file %llu, but the table has %zu files", (unsigned long long)op->u, t->nfiles);
    if (op->kind != CUDW_LOP_EXTENDED || (op->opcode != CUDW_LNE_INLINED_CALL && op->opcode != CUDW_LNE_SET_FUNCTION))
        return;
    uint64_t name = op->opcode == CUDW_LNE_INLINED_CALL ? op->u2 : op->u;
    const cudw_section *str = t->str_section;
    uint64_t at = t->str_base + name;
    if (!str || !str->data || at >= str->data_size)
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, op->offset, "line program",
                  "function name at .debug_str+0x%llx (base 0x%llx + 0x%llx) is outside %s", (unsigned long long)at,
                  (unsigned long long)t->str_base, (unsigned long long)name, str ? str->name : ".debug_str (missing)");
    else if (at && str->data[at - 1] != 0)
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, op->offset, "line program",
                  "function name at .debug_str+0x%llx (base 0x%llx + 0x%llx) starts inside a string: "
                  "a wrong .debug_str base word?",
                  (unsigned long long)at, (unsigned long long)t->str_base, (unsigned long long)name);
}

/* The rows of table t.  Checking (verify): each context names an earlier
 * row of its sequence.  Walking deeply (the fuzzers): every call site
 * resolved, every PTX line of a SASS table found -- the decoding verify
 * leaves out for its speed (a call site decodes part of the program
 * again). */
static void walk_rows(walker *w, const cudw_section *s, const cudw_line_table *t, int sass)
{
    cudw_line_iter it;
    cudw_line_row r;
    int rc;
    const cudw_section *ptx = NULL;
    uint64_t ptx_file = ~0ull; /* the file ptx is for: rows come in runs of one file */
    int deep = !(w->flags & WALK_CHECKS);
    row_state rs = {0};
    cudw_line_iter_init(t, &it, deep ? CUDW_LINE_KEEP_SEQUENCE : 0);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        const cudw_line_row *site;
        const char *text;
        if (!deep)
            rows_check(w, s, &rs, &r);
        if (deep && sass && r.file != ptx_file) { /* only SASS tables' lines are PTX lines */
            ptx = cudw_ptx_section_for(w->f, t, r.file);
            ptx_file = r.file;
        }
        if (r.context && r.context >= r.index)
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, r.op_offset, "line row",
                      "row %llu of sequence %llu is inlined at row %llu, not an earlier one",
                      (unsigned long long)r.index, (unsigned long long)r.sequence, (unsigned long long)r.context);
        else if (deep && r.context && (rc = cudw_line_callsite(&it, &r, &site)) < 0)
            break;
        if (ptx && (rc = cudw_ptx_line(w->f, ptx, r.line, &text)) < 0)
            break;
    }
    cudw_line_iter_free(&it);
    if (rc < 0)
        w_parse_error(w);
}

static void walk_lines(walker *w, const cudw_section *s, int sass)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc, checks = (w->flags & WALK_CHECKS) != 0;
    /* tables that name inlined functions, and their .debug_str bases */
    uint64_t first_base = 0, first_at = 0;
    int have_first = 0, flagged = 0;
    while (!w->stop && (rc = cudw_line_table_next(w->f, s, &cur, &t)) != CUDW_DONE) {
        if (rc < 0) {
            w_parse_error(w);
            break; /* the next table's start is unknown */
        }
        uint64_t pos = t->program_offset;
        cudw_line_op op;
        int open_seq = 0, names = 0;
        while ((rc = cudw_line_op_next(t, &pos, &op)) == CUDW_OK) {
            if (!checks)
                continue;
            check_op(w, s, t, &op);
            open_seq = !(op.kind == CUDW_LOP_EXTENDED && op.opcode == CUDW_DW_LNE_end_sequence);
            names |= op.kind == CUDW_LOP_EXTENDED &&
                     (op.opcode == CUDW_LNE_INLINED_CALL || op.opcode == CUDW_LNE_SET_FUNCTION);
        }
        /* In a link every input's names sit at their own offset of the merged
         * .debug_str, so two tables that name functions cannot share a base:
         * nvlink -arch=sm_90 leaves every base word at 0 (formats.md 2.2) */
        if (names && t->has_str_base) {
            if (!have_first) {
                have_first = 1;
                first_base = t->str_base;
                first_at = t->offset;
            } else if (t->str_base == first_base && !flagged) {
                /* a de-duplicated .debug_str (cudwarf link --dedup-strings)
                 * lets tables share a base; nvlink's strings are never
                 * de-duplicated, so there a shared base is its sm_90 bug */
                flagged = 1;
                int dup = has_duplicate_strings(t->str_section);
                if (dup < 0)
                    w_finding(w, CUDW_FINDING_ERROR, CUDW_E_NOMEM, s, t->str_base_offset, "line table header",
                              "out of memory: shared .debug_str bases not checked");
                else
                    w_finding(w, dup ? CUDW_FINDING_ERROR : CUDW_FINDING_NOTE, CUDW_E_BAD_OFFSET, s,
                              t->str_base_offset, "line table header",
                              dup ? "the table at 0x%llx takes the same .debug_str base (0x%llx) as the one at 0x%llx: "
                                    "its inlined-function names resolve into another input's strings (nvlink sm_90 "
                                    "leaves the base words of linked tables at 0)"
                                  : "the table at 0x%llx shares its .debug_str base (0x%llx) with the one at 0x%llx; "
                                    "the strings are unique, as after de-duplication, and every name starts a "
                                    "string; in nvlink -arch=sm_90 output it would be nvlink's base-word bug",
                              (unsigned long long)t->offset, (unsigned long long)t->str_base,
                              (unsigned long long)first_at);
            }
        }
        if (rc < 0) {
            w_parse_error(w);
            continue;
        }
        if (open_seq)
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_TRUNCATED, s, t->end, "line program",
                      "the table at 0x%llx ends inside a sequence (no DW_LNE_end_sequence)",
                      (unsigned long long)t->offset);
        if (w->flags & WALK_DEEP)
            walk_rows(w, s, t, sass);
    }
}

static void walk_frames(walker *w, const cudw_section *s)
{
    uint64_t cur = 0, last = 0;
    cudw_cfa_entry e, cie;
    int rc, guessed;
    while (!w->stop && (rc = cudw_frame_next(w->f, s, w_addr_size(w), &cur, &e)) != CUDW_DONE) {
        if (rc < 0) {
            w_parse_error(w);
            if (cur <= last || cur >= s->data_size)
                break;
            last = cur;
            continue;
        }
        last = cur;
        if (e.is_cie || !e.length)
            continue;
        if (cudw_frame_cie(w->f, s, w_addr_size(w), &e, &cie, &guessed) < 0) {
            w_parse_error(w);
            continue;
        }
        if (guessed)
            w_finding(w, CUDW_FINDING_NOTE, CUDW_E_BAD_OFFSET, s, e.offset, "FDE",
                      "CIE pointer 0x%llx names %s; the CIE before the FDE (0x%llx) is used "
                      "(ptxas -dc objects count 16-byte entry headers)",
                      (unsigned long long)e.cie_pointer, guessed == 2 ? "a CIE after the FDE" : "no CIE",
                      (unsigned long long)cie.offset);
        if (!(w->flags & WALK_DEEP))
            continue;
        /* run the table: restore_state with nothing saved, set_loc
         * backwards, nesting past the bound; the rules' expressions */
        cudw_cfa_rows *rows;
        cudw_cfa_row row;
        size_t n;
        if (cudw_cfa_rows_open(w->f, s, w_addr_size(w), &cie, &e, &rows) < 0) {
            w_parse_error(w);
            continue;
        }
        cudw_cfa_rows_initial(rows, &n);
        while (!w->stop && (rc = cudw_cfa_rows_next(rows, &row)) == CUDW_OK) {
            if (row.cfa_is_expr && row.cfa_expr)
                walk_expr(w, s, expr_at(s, row.cfa_expr, e.instructions_offset), row.cfa_expr, row.cfa_expr_len,
                          w_addr_size(w), "a CFA rule", 0, 1);
            for (size_t k = 0; k < row.nrules && !w->stop; k++)
                if (row.rules[k].expr)
                    walk_expr(w, s, expr_at(s, row.rules[k].expr, e.instructions_offset), row.rules[k].expr,
                              row.rules[k].expr_len, w_addr_size(w), "a register rule", 0, 1);
        }
        cudw_cfa_rows_close(rows);
        if (rc < 0 && !w->stop)
            w_parse_error(w);
    }
}

/* The record-style sections: lists, name indexes, aranges, macinfo,
 * register maps, PTX text.  A parse error ends the section. */
static void walk_records(walker *w, const cudw_section *s, int kind)
{
    cudw_file *f = w->f;
    uint64_t cur = 0;
    int rc = CUDW_DONE;
    if (kind == CUDW_SEC_LOC || kind == CUDW_SEC_RANGES) {
        cudw_list_entry e;
        while (!w->stop && (rc = cudw_list_next(f, s, kind == CUDW_SEC_LOC, 8, &cur, &e)) == CUDW_OK)
            if ((w->flags & WALK_DEEP) && e.expr)
                walk_expr(w, s, e.expr_offset, e.expr, e.expr_len, w_addr_size(w), "a location list entry", 0, 0);
    } else if (kind == CUDW_SEC_PUBNAMES || kind == CUDW_SEC_PUBTYPES) {
        cudw_pub_set set;
        while ((rc = cudw_pub_next_set(f, s, &cur, &set)) == CUDW_OK) {
            uint64_t pos = set.entries_offset, die;
            const char *name;
            while ((rc = cudw_pub_next(f, s, &set, &pos, &die, &name)) == CUDW_OK)
                if (die >= set.unit_size)
                    w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, pos, "name index entry",
                              "\"%s\" at DIE offset 0x%llx, past the unit's size 0x%llx", name,
                              (unsigned long long)die, (unsigned long long)set.unit_size);
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
    } else if (kind == CUDW_SEC_NV_PTX_TXT) {
        uint64_t n;
        if ((rc = cudw_ptx_line_count(f, s, &n)) == CUDW_OK && s->data_size && s->data[s->data_size - 1] != 0)
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_TRUNCATED, s, s->data_size, "PTX text",
                      "the last line has no terminating NUL");
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
    if (rc < 0 && !w->stop)
        w_parse_error(w);
}

void walk_one(walker *w, const cudw_section *s)
{
    cudw_secclass c;
    if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK)
        return; /* not a section cudwarf decodes */
    if (!s->data) {
        if (s->size && s->type != 8 /* SHT_NOBITS */ && c.kind != CUDW_SEC_NV_SHARED)
            w_error(w, CUDW_E_BAD_OFFSET, s, 0, "section",
                    "sh_offset 0x%llx + sh_size 0x%llx lies outside the file (size 0x%zx)",
                    (unsigned long long)s->offset, (unsigned long long)s->size, w->f->map_size);
        return;
    }
    /* (the parsers that read relocated fields decode the relocations
     * first: a malformed relocation section is their error) */
    switch (c.kind) {
    case CUDW_SEC_ABBREV: walk_abbrev(w, s); break;
    case CUDW_SEC_INFO:
    case CUDW_SEC_NV_INFO_PTX: walk_info(w, s); break;
    case CUDW_SEC_LINE: walk_lines(w, s, 0); break;
    case CUDW_SEC_NV_LINE_SASS: walk_lines(w, s, 1); break;
    case CUDW_SEC_FRAME: walk_frames(w, s); break;
    default: walk_records(w, s, c.kind); break;
    }
}

int cudw_walk_section(cudw_file *f, const cudw_section *s, unsigned flags)
{
    walker w = {f, flags & CUDW_WALK_DEEP, NULL, NULL, 0, 0};
    walk_one(&w, s);
    return w.stop ? (f->err.code ? f->err.code : CUDW_E_BAD_ELF) : CUDW_OK;
}
