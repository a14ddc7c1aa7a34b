/* cudwarf dump --frames: CIEs and FDEs of .debug_frame (and its twin) with
 * their call-frame programs and rows; registers named the NVIDIA way,
 * addresses relocated.  Each record has one printer through the emitter
 * (emit.h): text in readelf's and llvm-dwarfdump's layouts, JSON under its
 * keys. */
#include "cli.h"
#include "emit.h"

#include <string.h>

/* The address size of the file's frames: 4 in ELF32 cubins (8 where the
 * caller has no file at hand). */
static uint8_t frame_asz(const cudw_file *f)
{
    uint8_t a = f ? cudw_header(f)->address_size : 8;
    return a ? a : 8;
}

/* The CIE of an FDE, for its alignment factors. */
static int cie_of(cudw_file *f, const cudw_section *s, const cudw_cfa_entry *fde, cudw_cfa_entry *cie, int *guessed)
{
    return cudw_frame_cie(f, s, frame_asz(f), fde, cie, guessed) == CUDW_OK ? 0 : -1;
}

/* A register: JSON its number under num_key and its name under name_key
 * (either NULL: left out), text label and its name */
static void reg_print(emit *m, const char *num_key, const char *name_key, const char *label, uint64_t reg)
{
    char rn[48];
    cudw_register_name(reg, rn, sizeof rn);
    em_u64(m, num_key, NULL, 0, reg);
    em_name(m, name_key, label, 0, rn);
}

/* An expression the text shows between open and close ("[DW_OP_...]");
 * JSON has its bytes alone, which the caller gives */
static void expr_in_text(cudw_file *f, const uint8_t *x, uint64_t n, const char *open, const char *close, emit *m)
{
    if (m->j)
        return;
    em_text(m, open);
    expr_print(f, NULL, 0, x, n, frame_asz(f), m);
    em_text(m, close);
}

static const char *const rule_names[] = {
    [CUDW_RULE_UNDEFINED] = "undefined", [CUDW_RULE_SAME] = "same", [CUDW_RULE_OFFSET] = "offset",
    [CUDW_RULE_VAL_OFFSET] = "val_offset", [CUDW_RULE_REGISTER] = "register",
    [CUDW_RULE_EXPRESSION] = "expression", [CUDW_RULE_VAL_EXPRESSION] = "val_expression",
};

static int rule_same(const cudw_cfa_rule *a, const cudw_cfa_rule *b)
{
    return a->reg == b->reg && a->kind == b->kind && a->offset == b->offset && a->reg2 == b->reg2 &&
           a->expr_len == b->expr_len && (!a->expr_len || !memcmp(a->expr, b->expr, a->expr_len));
}

/* The rules of row that the CIE did not set up the same way: calls fn on each. */
typedef void (*rule_fn)(const cudw_cfa_rule *r, void *ctx);
static void changed_rules(const cudw_cfa_row *row, const cudw_cfa_rule *init, size_t ninit, rule_fn fn, void *ctx)
{
    size_t k = 0;
    for (size_t i = 0; i < row->nrules; i++) {
        const cudw_cfa_rule *r = &row->rules[i];
        while (k < ninit && init[k].reg < r->reg)
            k++;
        if (k < ninit && rule_same(r, &init[k]))
            continue;
        fn(r, ctx);
    }
}

/* The rules printed so far on a text line (the first follows ": ") */
typedef struct rule_out {
    cudw_file *f;
    emit *m;
    int n;
} rule_out;

/* A rule: text llvm-dwarfdump's notation (R26=[CFA-4], R3=CFA+8, R5=R6,
 * R7=undefined), JSON its parts (an expression's bytes) */
static void rule_print(const cudw_cfa_rule *r, void *p)
{
    rule_out *x = p;
    emit *m = x->m;
    int expr = r->kind == CUDW_RULE_EXPRESSION;
    em_obj(m, NULL);
    em_text(m, x->n++ ? ", " : ": ");
    reg_print(m, "reg", "register", "", r->reg);
    em_text(m, "=");
    switch (r->kind) {
    case CUDW_RULE_OFFSET:
    case CUDW_RULE_VAL_OFFSET:
        em_name(m, "rule", NULL, 0, rule_names[r->kind]);
        em_i64(m, "offset", r->kind == CUDW_RULE_OFFSET ? "[CFA" : "CFA", 1, r->offset);
        em_text(m, r->kind == CUDW_RULE_OFFSET ? "]" : "");
        break;
    case CUDW_RULE_REGISTER:
        em_name(m, "rule", NULL, 0, rule_names[r->kind]);
        reg_print(m, "reg2", NULL, "", r->reg2);
        break;
    case CUDW_RULE_EXPRESSION:
    case CUDW_RULE_VAL_EXPRESSION:
        em_name(m, "rule", NULL, 0, rule_names[r->kind]);
        em_hex(m, "block", NULL, r->expr, r->expr_len);
        expr_in_text(x->f, r->expr, r->expr_len, expr ? "[" : "(", expr ? "]" : ")", m);
        break;
    default: em_name(m, "rule", "", 0, rule_names[r->kind]); break;
    }
    em_end_obj(m);
}

/* A row's CFA: text "CFA=R1+16" or "CFA=[DW_OP_...]", JSON its parts */
static void cfa_print(cudw_file *f, const cudw_cfa_row *row, emit *m)
{
    em_text(m, "CFA=");
    if (row->cfa_is_expr) {
        em_hex(m, "cfa_expression", NULL, row->cfa_expr, row->cfa_expr_len);
        expr_in_text(f, row->cfa_expr, row->cfa_expr_len, "[", "]", m);
        return;
    }
    reg_print(m, "cfa_reg", "cfa_register", "", row->cfa_reg);
    em_i64(m, "cfa_offset", row->cfa_offset ? "" : NULL, 1, row->cfa_offset);
}

/* The CIE's initial rules as the text sums them up, registers of one rule
 * in runs: "same value: RZ, R1..R2, R16..R27"; the rare others one at a
 * time with their operands.  (JSON lists them one by one in register
 * order, which no pass by rule gives: rows_print.) */
static void initial_runs(cudw_file *f, const cudw_cfa_rule *init, size_t n, emit *m)
{
    for (int kind = CUDW_RULE_UNDEFINED; kind <= CUDW_RULE_VAL_EXPRESSION; kind++) {
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            if (init[i].kind != kind)
                continue;
            if (kind >= CUDW_RULE_OFFSET) {
                rule_out x = {f, m, 0};
                em_text(m, "  initial rule");
                rule_print(&init[i], &x);
                em_text(m, "\n");
                continue;
            }
            size_t j = i;
            while (j + 1 < n && init[j + 1].kind == kind && init[j + 1].reg == init[j].reg + 1)
                j++;
            const char *head = kind == CUDW_RULE_SAME ? "  initial rules, same value: " : "  initial rules, undefined: ";
            em_text(m, any++ ? ", " : head);
            reg_print(m, NULL, NULL, "", init[i].reg);
            if (j > i)
                reg_print(m, NULL, NULL, "..", init[j].reg);
            i = j;
        }
        em_text(m, any ? "\n" : "");
    }
}

static const char *err_text(cudw_file *f, char *b, size_t n)
{
    cudw_error_format(cudw_last_error(f), b, n);
    return b;
}

/* An FDE's row: text "  0x10: CFA=R1+16: R2=[CFA-8]", JSON its parts
 * with the rules that differ from the CIE's initial_rules */
static void row_print(cudw_file *f, const cudw_cfa_row *row, const cudw_cfa_rule *init, size_t ninit, emit *m)
{
    rule_out x = {f, m, 0};
    em_obj(m, NULL);
    em_u64(m, "address", "  0x", EM_HEX, row->address);
    em_u64(m, "end", NULL, 0, row->end);
    em_text(m, ": ");
    cfa_print(f, row, m);
    em_arr(m, "rules");
    changed_rules(row, init, ninit, rule_print, &x);
    em_end_arr(m);
    em_text(m, "\n");
    em_end_obj(m);
}

/* Rows of an FDE after its instructions; the CIE's rules once, after its
 * own. */
static void rows_print(cudw_file *f, const cudw_section *s, const cudw_cfa_entry *cie, const cudw_cfa_entry *e,
                       emit *m)
{
    cudw_cfa_rows *rows;
    char b[300];
    if (cudw_cfa_rows_open(f, s, frame_asz(f), cie, e, &rows) != CUDW_OK) {
        em_str(m, "rows_error", "  (no rows: ", 0, err_text(f, b, sizeof b));
        em_text(m, ")\n");
        return;
    }
    size_t ninit;
    const cudw_cfa_rule *init = cudw_cfa_rows_initial(rows, &ninit);
    rule_out x = {f, m, 0};
    if (!e) { /* the CIE's rules: JSON one by one in register order, the text summed up */
        em_arr(m, "initial_rules");
        for (size_t i = 0; i < ninit && m->j; i++)
            rule_print(&init[i], &x);
        if (!m->j)
            initial_runs(f, init, ninit, m);
        em_end_arr(m);
        cudw_cfa_rows_close(rows);
        return;
    }
    em_text(m, "\n  rows (registers whose rule differs from the CIE's):\n");
    em_arr(m, "rows");
    cudw_cfa_row row;
    int rc;
    while ((rc = cudw_cfa_rows_next(rows, &row)) == CUDW_OK)
        row_print(f, &row, init, ninit, m);
    em_end_arr(m);
    if (rc < 0) {
        em_str(m, "rows_error", "  (rows stop: ", 0, err_text(f, b, sizeof b));
        em_text(m, ")\n");
    }
    cudw_cfa_rows_close(rows);
}

/* ---- entries and their instructions ---- */

/* An entry's program where it is, scaled by its CIE's factors (1 when no
 * CIE was found: shown unscaled) */
typedef struct program {
    cudw_file *f;
    const cudw_section *s;
    const cudw_cfa_entry *e;
    uint64_t code_align;
    int64_t data_align;
    uint64_t loc;             /* the address the advances reach */
} program;

/* The instructions that name a register: JSON gives it for all of them,
 * the text for all but DW_CFA_GNU_negative_offset_extended */
static int names_reg(uint8_t op)
{
    return op == CUDW_DW_CFA_offset || op == CUDW_DW_CFA_restore ||
           (op >= CUDW_DW_CFA_offset_extended && op <= CUDW_DW_CFA_register) || op == CUDW_DW_CFA_def_cfa ||
           op == CUDW_DW_CFA_def_cfa_register || op == CUDW_DW_CFA_expression ||
           op == CUDW_DW_CFA_offset_extended_sf || op == CUDW_DW_CFA_def_cfa_sf || op == CUDW_DW_CFA_val_offset ||
           op == CUDW_DW_CFA_val_offset_sf || op == CUDW_DW_CFA_val_expression ||
           op == CUDW_DW_CFA_GNU_negative_offset_extended;
}

/* An instruction's operands after its register: text " 8 (to 0x10)",
 * " -4", " +16", " (DW_OP_...)"; JSON "delta", "offset_value" (scaled),
 * "reg2", "address", "block" and "expression" */
static void cfa_operands(program *p, const cudw_cfa_op *op, emit *m)
{
    switch (op->op) {
    case CUDW_DW_CFA_advance_loc: case CUDW_DW_CFA_advance_loc1:
    case CUDW_DW_CFA_advance_loc2: case CUDW_DW_CFA_advance_loc4:
        p->loc += op->u * p->code_align;
        em_u64(m, "delta", " ", EM_DEC, op->u * p->code_align);
        em_u64(m, NULL, " (to 0x", EM_HEX, p->loc);
        em_text(m, ")");
        break;
    case CUDW_DW_CFA_set_loc:
        p->loc = op->u;
        em_u64(m, "address", " 0x", EM_HEX, op->u);
        break;
    case CUDW_DW_CFA_offset: case CUDW_DW_CFA_offset_extended: case CUDW_DW_CFA_val_offset:
        em_i64(m, "offset_value", " ", 0, mulw((int64_t)op->u, p->data_align));
        break;
    case CUDW_DW_CFA_offset_extended_sf: case CUDW_DW_CFA_val_offset_sf:
    case CUDW_DW_CFA_def_cfa_sf: case CUDW_DW_CFA_def_cfa_offset_sf:
        em_i64(m, "offset_value", " ", 0, mulw(op->s, p->data_align));
        break;
    case CUDW_DW_CFA_register: reg_print(m, "reg2", NULL, " ", op->u); break;
    case CUDW_DW_CFA_def_cfa: em_u64(m, "offset_value", " +", EM_DEC, op->u); break;
    case CUDW_DW_CFA_def_cfa_offset: em_u64(m, "offset_value", " ", EM_DEC, op->u); break;
    case CUDW_DW_CFA_GNU_args_size: em_u64(m, NULL, " ", EM_DEC, op->u); break;
    case CUDW_DW_CFA_def_cfa_expression: case CUDW_DW_CFA_expression: case CUDW_DW_CFA_val_expression:
        /* relocations are looked up where the block is in the section */
        em_hex(m, "block", NULL, op->block, op->block_len);
        em_text(m, " (");
        expr_print(p->f, p->s, p->e->instructions_offset + (uint64_t)(op->block - p->e->instructions), op->block,
                   op->block_len, frame_asz(p->f), m);
        em_text(m, ")");
        break;
    default: break;
    }
}

/* An instruction: text "  DW_CFA_offset: R2 -8", JSON its object */
static void cfa_op_print(program *p, const cudw_cfa_op *op, emit *m)
{
    em_obj(m, NULL);
    em_u64(m, "offset", NULL, 0, op->offset);
    em_str_or(m, "op", "  ", cudw_cfa_name(op->op), "DW_CFA_unknown");
    em_text(m, ":");
    if (names_reg(op->op))
        reg_print(m, "reg", "register", op->op == CUDW_DW_CFA_GNU_negative_offset_extended ? NULL : " ", op->reg);
    cfa_operands(p, op, m);
    em_text(m, "\n");
    em_end_obj(m);
}

/* A CIE's fields: text readelf's block of lines */
static void cie_head(const cudw_cfa_entry *e, emit *m)
{
    em_text(m, e->format64 ? " ffffffffffffffff CIE\n" : " ffffffff CIE\n");
    em_name(m, NULL, "  Format:                ", 0, e->format64 ? "DWARF64" : "DWARF32");
    em_u64(m, "version", "\n  Version:               ", EM_DEC, e->version);
    em_str_or(m, "augmentation", "\n  Augmentation:          \"", e->augmentation, "(null)");
    em_u64(m, "code_align", "\"\n  Code alignment factor: ", EM_DEC, e->code_align);
    em_i64(m, "data_align", "\n  Data alignment factor: ", 0, e->data_align);
    em_u64(m, "return_address_register", "\n  Return address column: ", EM_DEC, e->ra_register);
    reg_print(m, NULL, NULL, " (", e->ra_register);
    em_text(m, ")\n\n");
}

/* An FDE's CIE (0 when there is none): JSON its offset, both styles when
 * the CIE pointer names none or one after the FDE and the CIE before it
 * stands in */
static int fde_cie(cudw_file *f, const cudw_section *s, const cudw_cfa_entry *e, cudw_cfa_entry *cie, emit *m)
{
    int guessed = 0;
    if (cie_of(f, s, e, cie, &guessed) != 0) {
        em_text(m, "  (CIE not found: factors shown unscaled)\n");
        return 0;
    }
    em_u64(m, "cie", NULL, 0, cie->offset);
    if (guessed == 1 || guessed == 2)
        em_bool(m, guessed == 2 ? "cie_pointer_names_later_cie" : "cie_pointer_names_no_cie", 1);
    if (guessed) {
        em_u64(m, NULL, guessed == 2 ? "  (the CIE pointer names a CIE after the FDE, 0x" : "  (no CIE at 0x", EM_HEX,
               e->cie_pointer);
        em_u64(m, NULL, ": using the CIE before the FDE, at 0x", EM_HEX, cie->offset);
        em_text(m, ")\n");
    }
    return 1;
}

/* An FDE's fields: text "... FDE cie=00000000 pc=00000000...00000040 (sym)" */
static int fde_head(cudw_file *f, const cudw_section *s, const cudw_cfa_entry *e, cudw_cfa_entry *cie, emit *m)
{
    const cudw_reloc *r = e->location_reloc;
    em_u64(m, "cie_pointer", " ", EM_HEX16, e->cie_pointer);
    em_u64(m, NULL, " FDE cie=", EM_HEX8, e->cie_pointer);
    em_u64(m, "initial_location", " pc=", EM_HEX8, e->initial_location);
    em_u64(m, NULL, "...", EM_HEX8, e->initial_location + e->address_range);
    if (r) {
        em_sym(m, "symbol", "addend", " (", r->sym_name, r->addend);
        em_text(m, ")");
    }
    em_text(m, "\n");
    em_u64(m, "address_range", NULL, 0, e->address_range);
    if (e->range_reloc) {
        const char *tn = cudw_reloc_type_name(e->range_reloc->type);
        em_str(m, "address_range_reloc", NULL, 0, tn ? tn : "unknown");
    }
    return fde_cie(f, s, e, cie, m);
}

/* An entry (CIE, FDE or zero terminator): its fields, instructions and rows */
static void entry_print(cudw_file *f, const cudw_section *s, const cudw_cfa_entry *e, emit *m)
{
    cudw_cfa_entry cie;
    program p = {f, s, e, 1, 1, e->is_cie ? 0 : e->initial_location};
    int have_cie = 0;
    em_obj(m, NULL);
    em_u64(m, "offset", "", EM_HEX8, e->offset);
    em_u64(m, "length", e->length ? " " : NULL, EM_HEX16, e->length);
    em_name(m, "format", NULL, 0, e->format64 ? "DWARF64" : "DWARF32");
    em_name(m, "type", e->length ? NULL : " ZERO ", 0, e->length == 0 ? "terminator" : e->is_cie ? "CIE" : "FDE");
    if (e->is_cie) {
        cie_head(e, m);
        p.code_align = e->code_align;
        p.data_align = e->data_align;
    } else if (e->length && (have_cie = fde_head(f, s, e, &cie, m))) {
        p.code_align = cie.code_align;
        p.data_align = cie.data_align;
    }
    em_text(m, e->length ? "" : "\n");
    em_arr(m, "instructions");
    uint64_t pos = 0;
    cudw_cfa_op op;
    while (cudw_cfa_op_next(e->instructions, e->instructions_length, frame_asz(f), &pos, &op) == CUDW_OK)
        cfa_op_print(&p, &op, m);
    em_end_arr(m);
    if (e->is_cie && e->length)
        rows_print(f, s, e, NULL, m);
    else if (have_cie)
        rows_print(f, s, &cie, e, m);
    em_text(m, "\n");
    em_end_obj(m);
}

void frame_print(cudw_file *f, const cudw_section *s, emit *m)
{
    uint64_t cur = 0;
    cudw_cfa_entry e;
    while (cudw_frame_next(f, s, frame_asz(f), &cur, &e) == CUDW_OK)
        entry_print(f, s, &e, m);
}
