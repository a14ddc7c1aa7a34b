/* cudw_verify: every parser over every debug section, plus the checks a
 * parser does not need to make to read on (references land on DIEs,
 * sibling chains, file numbers, list offsets, CIE links, relocations).
 * A failing parser's error becomes a finding; the walk then goes on with
 * the next unit, table or entry where the format says where that is. */
#include "../internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct vctx {
    cudw_file *f;
    cudw_finding_fn fn;
    void *ctx;
    size_t errors;
} vctx;

static void report_error(vctx *v, int severity)
{
    cudw_finding fd = {severity, v->f->err};
    if (severity == CUDW_FINDING_ERROR)
        v->errors++;
    v->fn(&fd, v->ctx);
    memset(&v->f->err, 0, sizeof v->f->err);
}

static void finding(vctx *v, int severity, int code, const cudw_section *s, uint64_t off, const char *what,
                    const char *fmt, ...) CUDW_PRINTF(7, 8);
static void finding(vctx *v, int severity, int code, const cudw_section *s, uint64_t off, const char *what,
                    const char *fmt, ...)
{
    cudw_finding fd;
    memset(&fd, 0, sizeof fd);
    fd.severity = severity;
    va_list ap;
    va_start(ap, fmt);
    err_vset(&fd.where, code, s ? s->name : NULL, off, what, fmt, ap);
    va_end(ap);
    if (severity == CUDW_FINDING_ERROR)
        v->errors++;
    v->fn(&fd, v->ctx);
}

/* Offsets where location lists start in the file's .debug_loc. */
static uint64_t *loc_starts(cudw_file *f, const cudw_section *loc, size_t *n)
{
    *n = 0;
    if (!loc)
        return NULL;
    size_t cap = 64;
    uint64_t *v = malloc(cap * sizeof *v), cur = 0;
    cudw_list_entry e;
    int start = 1;
    while (v && cudw_list_next(f, loc, 1, 8, &cur, &e) == CUDW_OK) {
        if (start) {
            if (*n == cap) {
                uint64_t *nv = realloc(v, (cap *= 2) * sizeof *v);
                if (!nv) {
                    free(v);
                    v = NULL;
                    break;
                }
                v = nv;
            }
            v[(*n)++] = e.offset;
        }
        start = e.kind == CUDW_LOC_END;
    }
    memset(&f->err, 0, sizeof f->err);
    return v;
}

static void verify_info(vctx *v, const cudw_section *s)
{
    cudw_file *f = v->f;
    const cudw_section *loc = cudw_section_companion(f, s, ".debug_loc");
    size_t nloc;
    uint64_t *locs = loc_starts(f, loc, &nloc);
    if (loc && !locs) { /* no list offsets to check against: say so rather than report them all */
        finding(v, CUDW_FINDING_ERROR, CUDW_E_NOMEM, s, 0, "location list",
                "out of memory: location-list offsets not checked");
        loc = NULL;
    }
    uint64_t cur = 0;
    cudw_unit u;
    int rc;
    while ((rc = cudw_unit_next(f, s, &cur, &u)) != CUDW_DONE) {
        if (rc < 0) {
            report_error(v, CUDW_FINDING_ERROR);
            /* an unsupported unit was skipped; a broken length ends the section */
            if (rc != CUDW_E_UNSUPPORTED || cur >= s->data_size || cur <= u.offset)
                break;
            continue;
        }
        /* pass 1: DIE offsets of the unit */
        size_t n = 0, cap = 256;
        uint64_t *dies = malloc(cap * sizeof *dies);
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while (dies && (rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            if (n == cap) {
                uint64_t *nd = realloc(dies, (cap *= 2) * sizeof *dies);
                if (!nd) {
                    free(dies);
                    dies = NULL;
                    break;
                }
                dies = nd;
            }
            dies[n++] = d.offset;
        }
        if (!dies) { /* a check that cannot run is a finding, never a silent pass */
            finding(v, CUDW_FINDING_ERROR, CUDW_E_NOMEM, s, u.offset, "reference",
                    "out of memory: the references of the unit at 0x%llx not checked", (unsigned long long)u.offset);
            continue;
        }
        if (rc < 0) {
            report_error(v, CUDW_FINDING_ERROR);
            free(dies);
            continue;
        }
        /* pass 2: attributes */
        uint64_t want_sibling[CUDW_MAX_DIE_DEPTH];
        memset(want_sibling, 0, sizeof want_sibling);
        cudw_die_iter_init(&u, &it);
        while ((rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            if (d.depth < CUDW_MAX_DIE_DEPTH && want_sibling[d.depth]) {
                if (want_sibling[d.depth] != d.offset)
                    finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, d.offset, "sibling chain",
                            "the previous sibling's DW_AT_sibling says 0x%llx, the next sibling is at 0x%llx",
                            (unsigned long long)want_sibling[d.depth], (unsigned long long)d.offset);
                want_sibling[d.depth] = 0;
            }
            for (unsigned k = d.depth + 1; k < CUDW_MAX_DIE_DEPTH && want_sibling[k]; k++)
                want_sibling[k] = 0;
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while ((rc = cudw_attr_next(&ai, &a)) == CUDW_OK) {
                if (a.vclass == CUDW_V_REF && a.form != CUDW_DW_FORM_ref_addr) {
                    if (a.u < u.die_offset || a.u >= u.end)
                        finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, a.offset, "reference",
                                "%s points at 0x%llx, outside its unit [0x%llx, 0x%llx)",
                                cudw_at_name(a.name) ? cudw_at_name(a.name) : "attribute", (unsigned long long)a.u,
                                (unsigned long long)u.offset, (unsigned long long)u.end);
                    else if (!u64_sorted_has(dies, n, a.u))
                        finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, a.offset, "reference",
                                "%s points at 0x%llx, which is not the start of a DIE",
                                cudw_at_name(a.name) ? cudw_at_name(a.name) : "attribute", (unsigned long long)a.u);
                    if (a.name == CUDW_DW_AT_sibling && d.depth < CUDW_MAX_DIE_DEPTH)
                        want_sibling[d.depth] = a.u;
                }
                if (a.vclass == CUDW_V_BLOCK && cudw_attr_is_expr(a.name)) {
                    uint64_t pos = 0;
                    cudw_op op;
                    int r2;
                    while ((r2 = cudw_op_next(a.block, a.block_len, u.addr_size, &pos, &op)) == CUDW_OK)
                        ;
                    if (r2 < 0)
                        finding(v, CUDW_FINDING_ERROR, r2, s, a.offset + (a.size - a.block_len) + pos, "expression",
                                "malformed DW_OP at byte %llu of %s", (unsigned long long)pos,
                                cudw_at_name(a.name) ? cudw_at_name(a.name) : "the attribute");
                }
                if ((a.name == CUDW_DW_AT_location || a.name == CUDW_DW_AT_frame_base) &&
                    (a.form == CUDW_DW_FORM_data4 || a.form == CUDW_DW_FORM_sec_offset)) {
                    if (!loc)
                        finding(v, CUDW_FINDING_ERROR, CUDW_E_NOT_FOUND, s, a.offset, "location list",
                                "location list offset 0x%llx but no .debug_loc", (unsigned long long)a.u);
                    else if (!u64_sorted_has(locs, nloc, a.u))
                        finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, a.offset, "location list",
                                "offset 0x%llx is not the start of a list in %s", (unsigned long long)a.u, loc->name);
                }
            }
            if (rc < 0) {
                report_error(v, CUDW_FINDING_ERROR);
                break;
            }
            cudw_die_iter_resume(&it, &ai);
        }
        if (rc < 0 && v->f->err.code)
            report_error(v, CUDW_FINDING_ERROR);
        free(dies);
    }
    free(locs);
}

/* 1 when some string occurs twice in sec: a .debug_str concatenated
 * without de-duplication, as nvlink writes it. */
static int has_duplicate_strings(const cudw_section *sec)
{
    if (!sec || !sec->data)
        return 0;
    size_t n = 0;
    for (uint64_t i = 0; i < sec->data_size; i++)
        n += sec->data[i] == 0;
    size_t nslots = 16;
    while (nslots < 2 * n + 2)
        nslots *= 2;
    uint64_t *slots = calloc(nslots, sizeof *slots); /* string offset + 1 */
    if (!slots)
        return 0;
    int dup = 0;
    for (uint64_t at = 0; at < sec->data_size && !dup;) {
        const uint8_t *z = memchr(sec->data + at, 0, (size_t)(sec->data_size - at));
        if (!z)
            break;
        size_t len = (size_t)(z - (sec->data + at)) + 1;
        size_t h = (size_t)cudw_fnv(CUDW_FNV0, sec->data + at, len) & (nslots - 1);
        for (; slots[h]; h = (h + 1) & (nslots - 1)) {
            const char *o = (const char *)sec->data + slots[h] - 1;
            if (strlen(o) + 1 == len && !memcmp(o, sec->data + at, len)) {
                dup = 1;
                break;
            }
        }
        slots[h] = at + 1;
        at += len;
    }
    free(slots);
    return dup;
}

static void verify_lines(vctx *v, const cudw_section *s)
{
    cudw_file *f = v->f;
    uint64_t cur = 0;
    const cudw_line_table *t;
    int rc;
    /* tables that name inlined functions, and their .debug_str bases */
    uint64_t first_base = 0, first_at = 0;
    int have_first = 0, flagged = 0;
    while ((rc = cudw_line_table_next(f, s, &cur, &t)) != CUDW_DONE) {
        if (rc < 0) {
            report_error(v, CUDW_FINDING_ERROR);
            break; /* the next table's start is unknown */
        }
        uint64_t pos = t->program_offset;
        cudw_line_op op;
        int open_seq = 0, names = 0;
        while ((rc = cudw_line_op_next(t, &pos, &op)) == CUDW_OK) {
            if (op.kind == CUDW_LOP_STANDARD && op.opcode == 4 && op.u > t->nfiles && !(op.u == 0 && t->nfiles == 0))
                finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, op.offset, "line program",
                        "DW_LNS_set_file %llu, but the table has %zu files", (unsigned long long)op.u, t->nfiles);
            if (op.kind == CUDW_LOP_EXTENDED && op.opcode == 1)
                open_seq = 0;
            else
                open_seq = 1;
            if (op.kind == CUDW_LOP_EXTENDED &&
                (op.opcode == CUDW_LNE_INLINED_CALL || op.opcode == CUDW_LNE_SET_FUNCTION)) {
                names = 1;
                uint64_t name = op.opcode == CUDW_LNE_INLINED_CALL ? op.u2 : op.u;
                const cudw_section *str = t->str_section;
                uint64_t at = t->str_base + name;
                if (!str || !str->data || at >= str->data_size)
                    finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, op.offset, "line program",
                            "function name at .debug_str+0x%llx (base 0x%llx + 0x%llx) is outside %s",
                            (unsigned long long)at, (unsigned long long)t->str_base, (unsigned long long)name,
                            str ? str->name : ".debug_str (missing)");
                else if (at && str->data[at - 1] != 0)
                    finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, op.offset, "line program",
                            "function name at .debug_str+0x%llx (base 0x%llx + 0x%llx) starts inside a string: "
                            "a wrong .debug_str base word?",
                            (unsigned long long)at, (unsigned long long)t->str_base, (unsigned long long)name);
            }
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
                finding(v, dup ? CUDW_FINDING_ERROR : CUDW_FINDING_NOTE, CUDW_E_BAD_OFFSET, s, t->str_base_offset,
                        "line table header",
                        dup ? "the table at 0x%llx takes the same .debug_str base (0x%llx) as the one at 0x%llx: "
                              "its inlined-function names resolve into another input's strings (nvlink sm_90 "
                              "leaves the base words of linked tables at 0)"
                            : "the table at 0x%llx shares its .debug_str base (0x%llx) with the one at 0x%llx; "
                              "the strings are unique, as after de-duplication, and every name starts a "
                              "string; in nvlink -arch=sm_90 output it would be nvlink's base-word bug",
                        (unsigned long long)t->offset, (unsigned long long)t->str_base, (unsigned long long)first_at);
            }
        }
        if (rc < 0)
            report_error(v, CUDW_FINDING_ERROR);
        else if (open_seq)
            finding(v, CUDW_FINDING_ERROR, CUDW_E_TRUNCATED, s, t->end, "line program",
                    "the table at 0x%llx ends inside a sequence (no DW_LNE_end_sequence)",
                    (unsigned long long)t->offset);
        /* context numbers name earlier rows of the sequence */
        cudw_line_iter it;
        cudw_line_row r;
        cudw_line_iter_init(t, &it, 0);
        while (rc == CUDW_OK || rc == CUDW_DONE) {
            if ((rc = cudw_line_next(&it, &r)) != CUDW_OK)
                break;
            if (r.context && r.context >= r.index)
                finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, r.op_offset, "line row",
                        "row %llu of sequence %llu is inlined at row %llu, not an earlier one",
                        (unsigned long long)r.index, (unsigned long long)r.sequence, (unsigned long long)r.context);
        }
        memset(&f->err, 0, sizeof f->err);
    }
}

static void verify_frames(vctx *v, const cudw_section *s)
{
    uint64_t cur = 0, last = 0;
    cudw_cfa_entry e, cie;
    int rc, guessed;
    while ((rc = cudw_frame_next(v->f, s, 8, &cur, &e)) != CUDW_DONE) {
        if (rc < 0) {
            report_error(v, CUDW_FINDING_ERROR);
            if (cur <= last || cur >= s->data_size)
                break;
            last = cur;
            continue;
        }
        last = cur;
        if (e.is_cie || !e.length)
            continue;
        if ((rc = cudw_frame_cie(v->f, s, 8, &e, &cie, &guessed)) < 0)
            report_error(v, CUDW_FINDING_ERROR);
        else {
            if (guessed)
                finding(v, CUDW_FINDING_NOTE, CUDW_E_BAD_OFFSET, s, e.offset, "FDE",
                        "CIE pointer 0x%llx names %s; the CIE before the FDE (0x%llx) is used "
                        "(ptxas -dc objects count 16-byte entry headers)", (unsigned long long)e.cie_pointer,
                        guessed == 2 ? "a CIE after the FDE" : "no CIE", (unsigned long long)cie.offset);
            /* run the table: restore_state with nothing saved, set_loc
             * backwards, nesting past the bound */
            cudw_cfa_rows *rows;
            cudw_cfa_row row;
            if (cudw_cfa_rows_open(v->f, s, 8, &cie, &e, &rows) < 0) {
                report_error(v, CUDW_FINDING_ERROR);
                continue;
            }
            while ((rc = cudw_cfa_rows_next(rows, &row)) == CUDW_OK)
                ;
            if (rc < 0)
                report_error(v, CUDW_FINDING_ERROR);
            cudw_cfa_rows_close(rows);
        }
    }
}

static void verify_relocs(vctx *v, unsigned target)
{
    const cudw_reloc *r;
    size_t n;
    const cudw_section *s = cudw_section_get(v->f, target);
    if (cudw_relocs(v->f, target, &r, &n) < 0) {
        report_error(v, CUDW_FINDING_ERROR);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].width || r[i].type == CUDW_R_CUDA_UNUSED_CLEAR64 ||
            r[i].type == CUDW_R_MERCURY_UNUSED_CLEAR64 || r[i].type == CUDW_R_CUDA_NONE)
            continue;
        const cudw_section *rs = cudw_section_get(v->f, r[i].reloc_section);
        finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_RELOC, rs, 0, "relocation",
                "type %u (%s) at %s+0x%llx is not one a debug section uses", r[i].type,
                cudw_reloc_type_name(r[i].type) ? cudw_reloc_type_name(r[i].type) : "unknown", s->name,
                (unsigned long long)r[i].offset);
    }
}

/* Location lists (every expression checked) and name indexes (every DIE
 * offset inside its unit): a parse error ends the section. */
static void verify_records(vctx *v, const cudw_section *s, int kind)
{
    cudw_file *f = v->f;
    uint64_t cur = 0;
    int rc;
    if (kind == CUDW_SEC_LOC) {
        cudw_list_entry e;
        while ((rc = cudw_list_next(f, s, 1, 8, &cur, &e)) == CUDW_OK)
            if (e.expr) {
                uint64_t pos = 0;
                cudw_op op;
                int r2;
                while ((r2 = cudw_op_next(e.expr, e.expr_len, 8, &pos, &op)) == CUDW_OK)
                    ;
                if (r2 < 0)
                    finding(v, CUDW_FINDING_ERROR, r2, s, e.expr_offset + pos, "expression",
                            "malformed DW_OP in a location list");
            }
    } else {
        cudw_pub_set set;
        while ((rc = cudw_pub_next_set(f, s, &cur, &set)) == CUDW_OK) {
            uint64_t pos = set.entries_offset, die;
            const char *name;
            while ((rc = cudw_pub_next(f, s, &set, &pos, &die, &name)) == CUDW_OK)
                if (die >= set.unit_size)
                    finding(v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, pos, "name index entry",
                            "\"%s\" at DIE offset 0x%llx, past the unit's size 0x%llx", name,
                            (unsigned long long)die, (unsigned long long)set.unit_size);
            if (rc < 0)
                break;
        }
    }
    if (rc < 0)
        report_error(v, CUDW_FINDING_ERROR);
}

size_t cudw_verify(cudw_file *f, cudw_finding_fn fn, void *ctx)
{
    vctx v = {f, fn, ctx, 0};
    memset(&f->err, 0, sizeof f->err);
    for (unsigned i = 1; i < f->nsecs; i++) {
        const cudw_section *s = &f->secs[i];
        cudw_secclass c;
        if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK)
            continue;
        if (!s->data && s->size && s->type != 8 && c.kind != CUDW_SEC_NV_SHARED) {
            finding(&v, CUDW_FINDING_ERROR, CUDW_E_BAD_OFFSET, s, 0, "section",
                    "sh_offset 0x%llx + sh_size 0x%llx lies outside the file (size 0x%zx)",
                    (unsigned long long)s->offset, (unsigned long long)s->size, f->map_size);
            continue;
        }
        verify_relocs(&v, i);
        switch (c.kind) {
        case CUDW_SEC_INFO:
        case CUDW_SEC_NV_INFO_PTX:
            verify_info(&v, s);
            break;
        case CUDW_SEC_LINE:
        case CUDW_SEC_NV_LINE_SASS:
            verify_lines(&v, s);
            break;
        case CUDW_SEC_FRAME:
            verify_frames(&v, s);
            break;
        case CUDW_SEC_LOC:
        case CUDW_SEC_PUBNAMES:
        case CUDW_SEC_PUBTYPES:
            verify_records(&v, s, c.kind);
            break;
        default:
            /* no checks beyond the parsers': the walk's first error is the finding */
            if (cudw_walk_section(f, s, CUDW_WALK_DEEP) < 0)
                report_error(&v, CUDW_FINDING_ERROR);
            else if (c.kind == CUDW_SEC_NV_PTX_TXT && s->data_size && s->data[s->data_size - 1] != 0)
                finding(&v, CUDW_FINDING_ERROR, CUDW_E_TRUNCATED, s, s->data_size, "PTX text",
                        "the last line has no terminating NUL");
            break;
        }
    }
    return v.errors;
}
