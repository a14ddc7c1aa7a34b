/* cudwarf dump --frames: CIEs and FDEs of .debug_frame (and its twin) with
 * their call-frame programs; registers named the NVIDIA way, addresses
 * relocated. */
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

/* %+lld */
static void ob_plus(obuf *o, int64_t v)
{
    if (v >= 0)
        ob_putc(o, '+');
    ob_sdec(o, v);
}

static void reg_text(uint64_t reg, obuf *o)
{
    char b[48];
    cudw_register_name(reg, b, sizeof b);
    ob_puts(o, b);
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

typedef struct rule_out {
    cudw_file *f;
    const cudw_section *s;
    obuf *o;
    int n;
} rule_out;

/* llvm-dwarfdump's notation: R26=[CFA-4], R3=CFA+8, R5=R6, R7=undefined */
/* " R5": an instruction's register operand */
static void sp_reg(obuf *o, uint64_t r)
{
    ob_putc(o, ' ');
    reg_text(r, o);
}

static void rule_text(const cudw_cfa_rule *r, void *p)
{
    rule_out *x = p;
    ob_puts(x->o, x->n++ ? ", " : ": ");
    reg_text(r->reg, x->o);
    ob_putc(x->o, '=');
    switch (r->kind) {
    case CUDW_RULE_OFFSET:
        ob_puts(x->o, "[CFA");
        ob_plus(x->o, r->offset);
        ob_putc(x->o, ']');
        break;
    case CUDW_RULE_VAL_OFFSET:
        ob_puts(x->o, "CFA");
        ob_plus(x->o, r->offset);
        break;
    case CUDW_RULE_REGISTER: reg_text(r->reg2, x->o); break;
    case CUDW_RULE_EXPRESSION: case CUDW_RULE_VAL_EXPRESSION:
        ob_puts(x->o, r->kind == CUDW_RULE_EXPRESSION ? "[" : "(");
        expr_text(x->f, NULL, 0, r->expr, r->expr_len, frame_asz(x->f), x->o);
        ob_puts(x->o, r->kind == CUDW_RULE_EXPRESSION ? "]" : ")");
        break;
    default: ob_puts(x->o, rule_names[r->kind]); break;
    }
}

static void cfa_text(cudw_file *f, const cudw_cfa_row *row, obuf *o)
{
    ob_puts(o, "CFA=");
    if (row->cfa_is_expr) {
        ob_putc(o, '[');
        expr_text(f, NULL, 0, row->cfa_expr, row->cfa_expr_len, frame_asz(f), o);
        ob_putc(o, ']');
        return;
    }
    reg_text(row->cfa_reg, o);
    if (row->cfa_offset)
        ob_plus(o, row->cfa_offset);
}

/* The CIE's initial rules, registers of one rule in runs: "same: RZ, R1..R2, R16..R27" */
static void initial_text(cudw_file *f, const cudw_cfa_rule *init, size_t n, obuf *o)
{
    for (int kind = CUDW_RULE_UNDEFINED; kind <= CUDW_RULE_VAL_EXPRESSION; kind++) {
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            if (init[i].kind != kind)
                continue;
            if (kind >= CUDW_RULE_OFFSET) { /* rare: one at a time with its operand */
                rule_out x = {f, NULL, o, 0};
                ob_puts(o, "  initial rule");
                rule_text(&init[i], &x);
                ob_putc(o, '\n');
                continue;
            }
            size_t j = i;
            while (j + 1 < n && init[j + 1].kind == kind && init[j + 1].reg == init[j].reg + 1)
                j++;
            ob_puts(o, any++ ? ", " : kind == CUDW_RULE_SAME ? "  initial rules, same value: " : "  initial rules, undefined: ");
            reg_text(init[i].reg, o);
            if (j > i) {
                ob_puts(o, "..");
                reg_text(init[j].reg, o);
            }
            i = j;
        }
        if (any)
            ob_putc(o, '\n');
    }
}

static const char *err_text(cudw_file *f, char *b, size_t n)
{
    cudw_error_format(cudw_last_error(f), b, n);
    return b;
}

typedef struct rule_js {
    json *j;
} rule_js;

static void rule_json(const cudw_cfa_rule *r, void *p)
{
    json *j = ((rule_js *)p)->j;
    char rn[48];
    json_obj(j, NULL);
    json_u64(j, "reg", r->reg);
    cudw_register_name(r->reg, rn, sizeof rn);
    json_str(j, "register", rn);
    json_str(j, "rule", rule_names[r->kind]);
    if (r->kind == CUDW_RULE_OFFSET || r->kind == CUDW_RULE_VAL_OFFSET)
        json_i64(j, "offset", r->offset);
    if (r->kind == CUDW_RULE_REGISTER)
        json_u64(j, "reg2", r->reg2);
    if (r->kind == CUDW_RULE_EXPRESSION || r->kind == CUDW_RULE_VAL_EXPRESSION)
        json_hex(j, "block", r->expr, r->expr_len);
    json_end_obj(j);
}

/* Rows of an FDE after its instructions; the CIE's rules once, after its
 * own.  One printer, two styles (emit.h): the text shows the CFA and the
 * rules in llvm-dwarfdump's notation, JSON their parts. */
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
    rule_js x = {m->j};
    if (!e) {
        if (!m->j) {
            initial_text(f, init, ninit, m->o);
        } else {
            json_arr(m->j, "initial_rules");
            for (size_t i = 0; i < ninit; i++)
                rule_json(&init[i], &x);
            json_end_arr(m->j);
        }
        cudw_cfa_rows_close(rows);
        return;
    }
    em_text(m, "\n  rows (registers whose rule differs from the CIE's):\n");
    em_arr(m, "rows");
    cudw_cfa_row row;
    int rc;
    while ((rc = cudw_cfa_rows_next(rows, &row)) == CUDW_OK) {
        em_obj(m, NULL);
        em_u64(m, "address", "  0x", EM_HEX, row.address);
        em_u64(m, "end", NULL, 0, row.end);
        if (!m->j) {
            ob_puts(m->o, ": ");
            cfa_text(f, &row, m->o);
            rule_out t = {f, s, m->o, 0};
            changed_rules(&row, init, ninit, rule_text, &t);
            ob_putc(m->o, '\n');
        } else {
            json *j = m->j;
            if (row.cfa_is_expr) {
                json_hex(j, "cfa_expression", row.cfa_expr, row.cfa_expr_len);
            } else {
                char rn[48];
                json_u64(j, "cfa_reg", row.cfa_reg);
                cudw_register_name(row.cfa_reg, rn, sizeof rn);
                json_str(j, "cfa_register", rn);
                json_i64(j, "cfa_offset", row.cfa_offset);
            }
            json_arr(j, "rules"); /* only those that differ from the CIE's initial_rules */
            changed_rules(&row, init, ninit, rule_json, &x);
            json_end_arr(j);
        }
        em_end_obj(m);
    }
    em_end_arr(m);
    if (rc < 0) {
        em_str(m, "rows_error", "  (rows stop: ", 0, err_text(f, b, sizeof b));
        em_text(m, ")\n");
    }
    cudw_cfa_rows_close(rows);
}

void frame_text(cudw_file *f, const cudw_section *s, obuf *o)
{
    ob_printf(o, "Contents of the %s section:\n\n", s->name);
    uint64_t cur = 0;
    cudw_cfa_entry e, cie;
    while (cudw_frame_next(f, s, frame_asz(f), &cur, &e) == CUDW_OK) {
        if (e.length == 0) {
            ob_printf(o, "%08llx ZERO terminator\n\n", (unsigned long long)e.offset);
            continue;
        }
        uint64_t code_align = 1;
        int64_t data_align = 1;
        int have_cie = 0;
        if (e.is_cie) {
            ob_printf(o, "%08llx %016llx %s CIE\n", (unsigned long long)e.offset, (unsigned long long)e.length,
                      e.format64 ? "ffffffffffffffff" : "ffffffff");
            ob_printf(o, "  Format:                %s\n", e.format64 ? "DWARF64" : "DWARF32");
            ob_printf(o, "  Version:               %u\n", e.version);
            ob_printf(o, "  Augmentation:          \"%s\"\n", e.augmentation);
            ob_printf(o, "  Code alignment factor: %llu\n", (unsigned long long)e.code_align);
            ob_printf(o, "  Data alignment factor: %lld\n", (long long)e.data_align);
            ob_printf(o, "  Return address column: %llu (", (unsigned long long)e.ra_register);
            reg_text(e.ra_register, o);
            ob_puts(o, ")\n\n");
            code_align = e.code_align;
            data_align = e.data_align;
        } else {
            ob_printf(o, "%08llx %016llx %016llx FDE cie=%08llx pc=%08llx...%08llx", (unsigned long long)e.offset,
                      (unsigned long long)e.length, (unsigned long long)e.cie_pointer,
                      (unsigned long long)e.cie_pointer, (unsigned long long)e.initial_location,
                      (unsigned long long)(e.initial_location + e.address_range));
            if (e.location_reloc) {
                ob_puts(o, " (");
                reloc_out(e.location_reloc, o);
                ob_putc(o, ')');
            }
            ob_putc(o, '\n');
            int guessed = 0;
            if (cie_of(f, s, &e, &cie, &guessed) == 0) {
                have_cie = 1;
                code_align = cie.code_align;
                data_align = cie.data_align;
                if (guessed)
                    ob_printf(o, "  (%s 0x%llx: using the CIE before the FDE, at 0x%llx)\n",
                              guessed == 2 ? "the CIE pointer names a CIE after the FDE," : "no CIE at",
                              (unsigned long long)e.cie_pointer, (unsigned long long)cie.offset);
            } else {
                ob_puts(o, "  (CIE not found: factors shown unscaled)\n");
            }
        }
        uint64_t pos = 0, loc = e.is_cie ? 0 : e.initial_location;
        cudw_cfa_op op;
        while (cudw_cfa_op_next(e.instructions, e.instructions_length, frame_asz(f), &pos, &op) == CUDW_OK) {
            const char *cn = cudw_cfa_name(op.op); /* known: unknown ones fail to decode */
            ob_puts(o, "  ");
            ob_puts(o, cn ? cn : "DW_CFA_unknown");
            ob_putc(o, ':');
            switch (op.op) {
            case CUDW_DW_CFA_advance_loc:
            case CUDW_DW_CFA_advance_loc1:
            case CUDW_DW_CFA_advance_loc2:
            case CUDW_DW_CFA_advance_loc4:
                loc += op.u * code_align;
                ob_putc(o, ' ');
                ob_dec(o, op.u * code_align);
                ob_puts(o, " (to 0x");
                ob_hex(o, loc);
                ob_putc(o, ')');
                break;
            case CUDW_DW_CFA_set_loc:
                loc = op.u;
                ob_puts(o, " 0x");
                ob_hex(o, op.u);
                break;
            case CUDW_DW_CFA_offset: case CUDW_DW_CFA_offset_extended: case CUDW_DW_CFA_val_offset:
                sp_reg(o, op.reg);
                ob_putc(o, ' ');
                ob_sdec(o, mulw((int64_t)op.u, data_align));
                break;
            case CUDW_DW_CFA_offset_extended_sf: case CUDW_DW_CFA_val_offset_sf:
                sp_reg(o, op.reg);
                ob_putc(o, ' ');
                ob_sdec(o, mulw(op.s, data_align));
                break;
            case CUDW_DW_CFA_restore:
            case CUDW_DW_CFA_restore_extended:
            case CUDW_DW_CFA_undefined:
            case CUDW_DW_CFA_same_value:
            case CUDW_DW_CFA_def_cfa_register:
                sp_reg(o, op.reg);
                break;
            case CUDW_DW_CFA_register:
                sp_reg(o, op.reg);
                sp_reg(o, op.u);
                break;
            case CUDW_DW_CFA_def_cfa:
                sp_reg(o, op.reg);
                ob_puts(o, " +");
                ob_dec(o, op.u);
                break;
            case CUDW_DW_CFA_def_cfa_sf:
                sp_reg(o, op.reg);
                ob_putc(o, ' ');
                ob_sdec(o, mulw(op.s, data_align));
                break;
            case CUDW_DW_CFA_def_cfa_offset: case CUDW_DW_CFA_GNU_args_size:
                ob_putc(o, ' ');
                ob_dec(o, op.u);
                break;
            case CUDW_DW_CFA_def_cfa_offset_sf:
                ob_putc(o, ' ');
                ob_sdec(o, mulw(op.s, data_align));
                break;
            case CUDW_DW_CFA_def_cfa_expression: case CUDW_DW_CFA_expression: case CUDW_DW_CFA_val_expression:
                if (op.op != CUDW_DW_CFA_def_cfa_expression) {
                    sp_reg(o, op.reg);
                }
                ob_puts(o, " (");
                expr_text(f, s, 0, op.block, op.block_len, frame_asz(f), o);
                ob_putc(o, ')');
                break;
            default:
                break;
            }
            ob_putc(o, '\n');
        }
        if (e.is_cie)
            rows_print(f, s, &e, NULL, &(emit){NULL, o});
        else if (have_cie)
            rows_print(f, s, &cie, &e, &(emit){NULL, o});
        ob_putc(o, '\n');
    }
}

void frame_json(cudw_file *f, const cudw_section *s, json *j)
{
    section_json_open(j, s, "entries");
    uint64_t cur = 0;
    cudw_cfa_entry e, cie;
    while (cudw_frame_next(f, s, frame_asz(f), &cur, &e) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "offset", e.offset);
        json_u64(j, "length", e.length);
        json_str(j, "format", e.format64 ? "DWARF64" : "DWARF32");
        json_str(j, "type", e.length == 0 ? "terminator" : e.is_cie ? "CIE" : "FDE");
        uint64_t code_align = 1;
        int64_t data_align = 1;
        int have_cie = 0;
        if (e.is_cie) {
            json_u64(j, "version", e.version);
            json_str(j, "augmentation", e.augmentation);
            json_u64(j, "code_align", e.code_align);
            json_i64(j, "data_align", e.data_align);
            json_u64(j, "return_address_register", e.ra_register);
            code_align = e.code_align;
            data_align = e.data_align;
        } else if (e.length) {
            json_u64(j, "cie_pointer", e.cie_pointer);
            json_u64(j, "initial_location", e.initial_location);
            if (e.location_reloc) {
                json_str(j, "symbol", e.location_reloc->sym_name);
                json_i64(j, "addend", e.location_reloc->addend);
            }
            json_u64(j, "address_range", e.address_range);
            if (e.range_reloc) {
                const char *tn = cudw_reloc_type_name(e.range_reloc->type);
                json_str(j, "address_range_reloc", tn ? tn : "unknown");
            }
            int guessed = 0;
            if (cie_of(f, s, &e, &cie, &guessed) == 0) {
                have_cie = 1;
                code_align = cie.code_align;
                data_align = cie.data_align;
                json_u64(j, "cie", cie.offset);
                if (guessed == 1)
                    json_bool(j, "cie_pointer_names_no_cie", 1);
                else if (guessed == 2)
                    json_bool(j, "cie_pointer_names_later_cie", 1);
            }
        }
        json_arr(j, "instructions");
        uint64_t pos = 0;
        cudw_cfa_op op;
        while (cudw_cfa_op_next(e.instructions, e.instructions_length, frame_asz(f), &pos, &op) == CUDW_OK) {
            char rn[48];
            json_obj(j, NULL);
            json_u64(j, "offset", op.offset);
            json_str(j, "op", cudw_cfa_name(op.op));
            int has_reg = op.op == CUDW_DW_CFA_offset || op.op == CUDW_DW_CFA_restore ||
                          (op.op >= CUDW_DW_CFA_offset_extended && op.op <= CUDW_DW_CFA_register) ||
                          op.op == CUDW_DW_CFA_def_cfa || op.op == CUDW_DW_CFA_def_cfa_register ||
                          op.op == CUDW_DW_CFA_expression || op.op == CUDW_DW_CFA_offset_extended_sf ||
                          op.op == CUDW_DW_CFA_def_cfa_sf || op.op == CUDW_DW_CFA_val_offset ||
                          op.op == CUDW_DW_CFA_val_offset_sf || op.op == CUDW_DW_CFA_val_expression ||
                          op.op == CUDW_DW_CFA_GNU_negative_offset_extended;
            if (has_reg) {
                json_u64(j, "reg", op.reg);
                cudw_register_name(op.reg, rn, sizeof rn);
                json_str(j, "register", rn);
            }
            switch (op.op) {
            case CUDW_DW_CFA_advance_loc:
            case CUDW_DW_CFA_advance_loc1:
            case CUDW_DW_CFA_advance_loc2:
            case CUDW_DW_CFA_advance_loc4:
                json_u64(j, "delta", op.u * code_align);
                break;
            case CUDW_DW_CFA_offset: case CUDW_DW_CFA_offset_extended: case CUDW_DW_CFA_val_offset:
                json_i64(j, "offset_value", mulw((int64_t)op.u, data_align));
                break;
            case CUDW_DW_CFA_offset_extended_sf:
            case CUDW_DW_CFA_def_cfa_sf:
            case CUDW_DW_CFA_def_cfa_offset_sf:
            case CUDW_DW_CFA_val_offset_sf:
                json_i64(j, "offset_value", mulw(op.s, data_align));
                break;
            case CUDW_DW_CFA_def_cfa: case CUDW_DW_CFA_def_cfa_offset:
                json_u64(j, "offset_value", op.u);
                break;
            case CUDW_DW_CFA_register:
                json_u64(j, "reg2", op.u);
                break;
            case CUDW_DW_CFA_set_loc:
                json_u64(j, "address", op.u);
                break;
            case CUDW_DW_CFA_def_cfa_expression: case CUDW_DW_CFA_expression: case CUDW_DW_CFA_val_expression:
                json_hex(j, "block", op.block, op.block_len);
                expr_json(f, NULL, 0, op.block, op.block_len, frame_asz(f), j);
                break;
            default:
                break;
            }
            json_end_obj(j);
        }
        json_end_arr(j);
        if (e.is_cie && e.length)
            rows_print(f, s, &e, NULL, &(emit){j, NULL});
        else if (have_cie)
            rows_print(f, s, &cie, &e, &(emit){j, NULL});
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
