/* cudwarf dump --line: line programs opcode by opcode (the raw view), with
 * NVIDIA's extended opcodes named and decoded and set_address relocated.
 * Each record has one printer through the emitter (emit.h): text in
 * readelf's layout, JSON under its keys (lines --json shares the header's). */
#include "cli.h"
#include "emit.h"

#include <string.h>

static const char *std_name(uint8_t op) { return cudw_line_op_name(op, 0); }
static const char *ext_name(uint8_t op) { return cudw_line_op_name(op, 1); }

int is_line_section(const cudw_section *s, const char *only)
{
    cudw_secclass c;
    if (only && strcmp(only, s->name) != 0)
        return 0;
    return cudw_classify_name(s->name, s->flags, &c) == CUDW_OK &&
           (c.kind == CUDW_SEC_LINE || c.kind == CUDW_SEC_NV_LINE_SASS);
}

/* The .debug_str base word NVIDIA's tables carry: text "NVIDIA .debug_str
 * base (at 0x1c): 0x0 (sym)" as relocated, JSON "str_base" as stored,
 * "str_base_relocated" when a relocation changes it, and that relocation. */
static void str_base_print(const cudw_line_table *t, emit *e)
{
    const cudw_reloc *r = t->str_base_reloc;
    if (!t->has_str_base)
        return;
    em_u64(e, NULL, "\n NVIDIA .debug_str base (at 0x", EM_HEX, t->str_base_offset);
    em_u64(e, "str_base", NULL, 0, t->str_base_raw);
    em_u64(e, NULL, "): 0x", EM_HEX, t->str_base);
    if (t->str_base_raw != t->str_base)
        em_u64(e, "str_base_relocated", NULL, 0, t->str_base);
    if (r) {
        em_sym(e, "str_base_symbol", "str_base_addend", " (", r->sym_name, r->addend);
        em_text(e, ")");
    }
    em_text(e, "\n");
}

/* a line of the header's text: label, the number, the line's end */
static void header_u64(emit *e, const char *key, const char *label, uint64_t v)
{
    em_u64(e, key, label, EM_DEC, v);
    em_text(e, "\n");
}

/* The header's numbers: text readelf's "  Line Base:      -5" lines */
static void header_numbers(const cudw_line_table *t, emit *e)
{
    em_u64(e, "offset", "  Offset:                      0x", EM_HEX, t->offset);
    em_text(e, "\n");
    header_u64(e, "unit_length", "  Length:                      ", t->unit_length);
    header_u64(e, "version", "  DWARF Version:               ", t->version);
    header_u64(e, "header_length", "  Prologue Length:             ", t->header_length);
    header_u64(e, "min_inst_length", "  Minimum Instruction Length:  ", t->min_inst_length);
    header_u64(e, NULL, "  Initial value of 'is_stmt':  ", t->default_is_stmt);
    em_bool(e, "default_is_stmt", t->default_is_stmt);
    em_i64(e, "line_base", "  Line Base:                   ", 0, t->line_base);
    em_text(e, "\n");
    header_u64(e, "line_range", "  Line Range:                  ", t->line_range);
    header_u64(e, "opcode_base", "  Opcode Base:                 ", t->opcode_base);
}

/* The directory and file tables: text numbered from 1, JSON arrays (each
 * file's joined path with LH_PATHS) */
static void header_files(const cudw_line_table *t, unsigned what, emit *e)
{
    em_text(e, "\n The File Name Table:\n  Entry\tDir\tTime\tSize\tName\n");
    em_arr(e, "files");
    for (size_t k = 0; k < t->nfiles; k++) {
        em_obj(e, NULL);
        em_str(e, "name", NULL, 0, t->files[k].name);
        em_u64(e, NULL, "  ", EM_DEC, k + 1);
        em_u64(e, "dir", "\t", EM_DEC, t->files[k].dir);
        em_u64(e, "mtime", "\t", EM_DEC, t->files[k].mtime);
        em_u64(e, "size", "\t", EM_DEC, t->files[k].size);
        em_str_or(e, NULL, "\t", t->files[k].name, "(null)");
        if (what & LH_PATHS)
            em_str(e, "path", NULL, 0, t->files[k].path);
        em_text(e, "\n");
        em_end_obj(e);
    }
    em_end_arr(e);
}

/* A table's header: the one order lines --json and dump --line use; the
 * text (dump's alone) in readelf's layout */
static void line_header_print(cudw_file *f, const cudw_line_table *t, unsigned what, emit *e)
{
    header_numbers(t, e);
    if (what & LH_OPCODE_LENGTHS) {
        em_text(e, "\n Opcodes:\n");
        em_arr(e, "standard_opcode_lengths");
        for (unsigned k = 1; k < t->opcode_base; k++) {
            em_u64(e, NULL, "  Opcode ", EM_DEC, k);
            em_item_u64(e, " has ", EM_DEC, t->std_opcode_lengths[k - 1]);
            em_text(e, t->std_opcode_lengths[k - 1] == 1 ? " arg\n" : " args\n");
        }
        em_end_arr(e);
    }
    em_text(e, "\n The Directory Table:\n");
    em_arr(e, "directories");
    for (size_t k = 0; k < t->ndirs; k++) {
        em_u64(e, NULL, "  ", EM_DEC, k + 1);
        em_item(e, "\t", t->dirs[k]);
        em_text(e, "\n");
    }
    em_end_arr(e);
    if (what & LH_PTX) { /* the PTX text its rows' line numbers count in (file 0: the only one) */
        const cudw_section *ps = cudw_ptx_section_for(f, t, 0);
        em_str(e, "ptx_section", NULL, 0, ps ? ps->name : NULL);
    }
    header_files(t, what, e);
    str_base_print(t, e);
}

void line_header_json(cudw_file *f, const cudw_line_table *t, unsigned what, json *j)
{
    line_header_print(f, t, what, &(emit){j, NULL});
}

/* What the text shows as the program runs: the address and line so far */
typedef struct line_state {
    uint64_t addr, line;
} line_state;

static void special_print(const cudw_line_table *t, const cudw_line_op *op, line_state *st, emit *e)
{
    st->addr += op->addr_adv;
    st->line += (uint64_t)op->line_adv;
    em_str(e, "op", NULL, 0, "special");
    em_u64(e, "opcode", NULL, 0, op->opcode);
    em_u64(e, NULL, "Special opcode ", EM_DEC, (unsigned)(op->opcode - t->opcode_base));
    em_u64(e, "address_advance", ": advance Address by ", EM_DEC, op->addr_adv);
    em_u64(e, NULL, " to 0x", EM_HEX, st->addr);
    em_i64(e, "line_advance", " and Line by ", 0, op->line_adv);
    em_u64(e, NULL, " to ", EM_DEC, st->line);
    em_text(e, "\n");
}

/* A standard opcode: JSON its operand as "value" (DW_LNS_advance_pc's
 * unscaled, DW_LNS_const_add_pc's the advance it makes) */
static void standard_print(const cudw_line_op *op, line_state *st, emit *e)
{
    const char *n = std_name(op->opcode);
    em_str(e, "op", NULL, 0, n ? n : "DW_LNS_unknown");
    em_u64(e, "opcode", NULL, 0, op->opcode);
    switch (op->opcode) {
    case 1: em_text(e, "Copy"); break;
    case 2:
    case 8:
        st->addr += op->addr_adv;
        em_u64(e, "value", NULL, 0, op->opcode == 8 ? op->addr_adv : op->u);
        em_u64(e, NULL, op->opcode == 2 ? "Advance PC by " : "Advance PC by constant by ", EM_DEC, op->addr_adv);
        em_u64(e, NULL, " to 0x", EM_HEX, st->addr);
        break;
    case 3:
        st->line += (uint64_t)op->s;
        em_i64(e, "value", "Advance Line by ", 0, op->s);
        em_u64(e, NULL, " to ", EM_DEC, st->line);
        break;
    case 4:
        em_u64(e, "value", "Set File Name to entry ", EM_DEC, op->u);
        em_text(e, " in the File Name Table");
        break;
    case 5: em_u64(e, "value", "Set column to ", EM_DEC, op->u); break;
    case 6: em_text(e, "Set is_stmt (negate)"); break;
    case 7: em_text(e, "Set basic block"); break;
    case 9:
        st->addr += op->u;
        em_u64(e, "value", "Advance PC by fixed size amount ", EM_DEC, op->u);
        em_u64(e, NULL, " to 0x", EM_HEX, st->addr);
        break;
    default:
        em_u64(e, NULL, "Standard opcode ", EM_DEC, op->opcode);
        em_u64(e, "value", " (unknown here), first operand ", EM_DEC, op->u);
    }
    em_text(e, "\n");
}

/* NVIDIA's extended opcodes that name a function by its .debug_str offset */
static void function_print(const cudw_line_table *t, const cudw_line_op *op, emit *e)
{
    int inlined = op->opcode == CUDW_LNE_INLINED_CALL;
    uint64_t at = inlined ? op->u2 : op->u;
    if (inlined && op->u) {
        em_u64(e, "context", "inlined at row ", EM_DEC, op->u);
        em_text(e, " of this sequence, ");
    } else if (inlined) { /* context 0: the rows that follow are the sequence's own function's again */
        em_u64(e, "context", NULL, 0, op->u);
        em_text(e, "context 0 (not inlined), ");
    }
    em_u64(e, "function_offset", "function name at 0x", EM_HEX, at);
    em_str_or(e, "function", " (", cudw_line_function_name(t, at), "<outside .debug_str>");
    em_text(e, ")\n");
}

/* An extended opcode: JSON its operands' bytes as stored too (a REL
 * addend, a padded LEB), so line-encode gives the table back byte for byte */
static void extended_print(const cudw_line_table *t, const cudw_line_op *op, line_state *st, emit *e)
{
    const char *n = ext_name(op->opcode);
    int known = op->opcode == 2 || op->opcode == CUDW_LNE_INLINED_CALL || op->opcode == CUDW_LNE_SET_FUNCTION ||
                op->opcode == CUDW_LNE_MERC_ENTRY;
    em_str(e, "op", NULL, 0, n ? n : "DW_LNE_unknown");
    em_u64(e, "opcode", "Extended opcode ", EM_DEC, op->opcode);
    em_u64(e, NULL, " (0x", EM_HEX2, op->opcode);
    em_name(e, NULL, n ? " " : "", 0, n ? n : "");
    em_text(e, "): ");
    em_u64(e, "length", NULL, 0, op->ext_len);
    if (op->opcode == 1) {
        em_text(e, "End of Sequence\n\n");
        *st = (line_state){0, 1};
        return;
    }
    if (op->opcode == 2) {
        st->addr = op->u;
        em_u64(e, "value", "set Address to 0x", EM_HEX, op->u);
        if (op->reloc) {
            em_sym(e, "symbol", "addend", " (", op->reloc->sym_name, op->reloc->addend);
            em_text(e, ")");
        }
        em_text(e, "\n");
    } else if (op->opcode == CUDW_LNE_INLINED_CALL || op->opcode == CUDW_LNE_SET_FUNCTION) {
        function_print(t, op, e);
    } else if (op->opcode == CUDW_LNE_MERC_ENTRY) {
        em_u64(e, "value", "Mercury entry flag ", EM_DEC, op->u);
        em_text(e, "\n");
    } else {
        em_u64(e, NULL, "", EM_DEC, op->raw_len);
        em_text(e, " operand bytes:");
    }
    em_hex(e, "operands", known ? NULL : "", op->raw, op->raw_len);
    em_text(e, known ? "" : "\n");
}

/* A table: its header, then its program opcode by opcode */
static void table_print(cudw_file *f, const cudw_line_table *t, emit *e)
{
    line_state st = {0, 1};
    uint64_t pos = t->program_offset;
    cudw_line_op op;
    em_obj(e, NULL);
    line_header_print(f, t, LH_OPCODE_LENGTHS, e);
    if (t->has_str_base)
        em_u64(e, "str_base_offset", NULL, 0, t->str_base_offset);
    em_text(e, "\n Line Number Statements:\n");
    em_arr(e, "ops");
    while (cudw_line_op_next(t, &pos, &op) == CUDW_OK) {
        em_obj(e, NULL);
        em_u64(e, "offset", "  [0x", EM_HEX8, op.offset);
        em_u64(e, "size", NULL, 0, op.size); /* its bytes: line-encode keeps padded LEBs padded */
        em_text(e, "]  ");
        if (op.kind == CUDW_LOP_SPECIAL)
            special_print(t, &op, &st, e);
        else if (op.kind == CUDW_LOP_STANDARD)
            standard_print(&op, &st, e);
        else
            extended_print(t, &op, &st, e);
        em_end_obj(e);
    }
    em_end_arr(e);
    em_text(e, "\n");
    em_end_obj(e);
}

void line_print(cudw_file *f, const cudw_section *s, emit *e)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    while (cudw_line_table_next(f, s, &cur, &t) == CUDW_OK)
        table_print(f, t, e);
}
