/* cudwarf dump --line: line programs opcode by opcode (the raw view), with
 * NVIDIA's extended opcodes named and decoded and set_address relocated. */
#include "cli.h"

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

void str_base_json(const cudw_line_table *t, json *j)
{
    if (!t->has_str_base)
        return;
    json_u64(j, "str_base", t->str_base_raw);
    if (t->str_base_raw != t->str_base)
        json_u64(j, "str_base_relocated", t->str_base);
    if (t->str_base_reloc) {
        json_str(j, "str_base_symbol", t->str_base_reloc->sym_name);
        json_i64(j, "str_base_addend", t->str_base_reloc->addend);
    }
}

void line_header_json(cudw_file *f, const cudw_line_table *t, unsigned what, json *j)
{
    json_u64(j, "offset", t->offset);
    json_u64(j, "unit_length", t->unit_length);
    json_u64(j, "version", t->version);
    json_u64(j, "header_length", t->header_length);
    json_u64(j, "min_inst_length", t->min_inst_length);
    json_bool(j, "default_is_stmt", t->default_is_stmt);
    json_i64(j, "line_base", t->line_base);
    json_u64(j, "line_range", t->line_range);
    json_u64(j, "opcode_base", t->opcode_base);
    if (what & LH_OPCODE_LENGTHS) {
        json_arr(j, "standard_opcode_lengths");
        for (unsigned k = 1; k < t->opcode_base; k++)
            json_u64(j, NULL, t->std_opcode_lengths[k - 1]);
        json_end_arr(j);
    }
    json_arr(j, "directories");
    for (size_t k = 0; k < t->ndirs; k++)
        json_str(j, NULL, t->dirs[k]);
    json_end_arr(j);
    if (what & LH_PTX) { /* the PTX text its rows' line numbers count in (file 0: the only one) */
        const cudw_section *ps = cudw_ptx_section_for(f, t, 0);
        json_str(j, "ptx_section", ps ? ps->name : NULL);
    }
    json_arr(j, "files");
    for (size_t k = 0; k < t->nfiles; k++) {
        json_obj(j, NULL);
        json_str(j, "name", t->files[k].name);
        json_u64(j, "dir", t->files[k].dir);
        json_u64(j, "mtime", t->files[k].mtime);
        json_u64(j, "size", t->files[k].size);
        if (what & LH_PATHS)
            json_str(j, "path", t->files[k].path);
        json_end_obj(j);
    }
    json_end_arr(j);
    str_base_json(t, j);
}

void line_text(cudw_file *f, const cudw_section *s, obuf *o)
{
    (void)f;
    ob_printf(o, "Contents of the %s section:\n\n", s->name);
    uint64_t cur = 0;
    const cudw_line_table *t;
    while (cudw_line_table_next(f, s, &cur, &t) == CUDW_OK) {
        ob_printf(o, "  Offset:                      0x%llx\n", (unsigned long long)t->offset);
        ob_printf(o, "  Length:                      %llu\n", (unsigned long long)t->unit_length);
        ob_printf(o, "  DWARF Version:               %u\n", t->version);
        ob_printf(o, "  Prologue Length:             %llu\n", (unsigned long long)t->header_length);
        ob_printf(o, "  Minimum Instruction Length:  %u\n", t->min_inst_length);
        ob_printf(o, "  Initial value of 'is_stmt':  %u\n", t->default_is_stmt);
        ob_printf(o, "  Line Base:                   %d\n", t->line_base);
        ob_printf(o, "  Line Range:                  %u\n", t->line_range);
        ob_printf(o, "  Opcode Base:                 %u\n\n", t->opcode_base);
        ob_puts(o, " Opcodes:\n");
        for (unsigned k = 1; k < t->opcode_base; k++)
            ob_printf(o, "  Opcode %u has %u arg%s\n", k, t->std_opcode_lengths[k - 1],
                      t->std_opcode_lengths[k - 1] == 1 ? "" : "s");
        ob_puts(o, "\n The Directory Table:\n");
        for (size_t k = 0; k < t->ndirs; k++)
            ob_printf(o, "  %zu\t%s\n", k + 1, t->dirs[k]);
        ob_puts(o, "\n The File Name Table:\n  Entry\tDir\tTime\tSize\tName\n");
        for (size_t k = 0; k < t->nfiles; k++)
            ob_printf(o, "  %zu\t%llu\t%llu\t%llu\t%s\n", k + 1, (unsigned long long)t->files[k].dir,
                      (unsigned long long)t->files[k].mtime, (unsigned long long)t->files[k].size,
                      t->files[k].name);
        if (t->has_str_base) {
            ob_printf(o, "\n NVIDIA .debug_str base (at 0x%llx): 0x%llx", (unsigned long long)t->str_base_offset,
                      (unsigned long long)t->str_base);
            if (t->str_base_reloc) {
                ob_puts(o, " (");
                reloc_out(t->str_base_reloc, o);
                ob_putc(o, ')');
            }
            ob_putc(o, '\n');
        }
        ob_puts(o, "\n Line Number Statements:\n");
        uint64_t pos = t->program_offset, addr = 0, line = 1;
        cudw_line_op op;
        while (cudw_line_op_next(t, &pos, &op) == CUDW_OK) {
            ob_printf(o, "  [0x%08llx]  ", (unsigned long long)op.offset);
            if (op.kind == CUDW_LOP_SPECIAL) {
                addr += op.addr_adv;
                line += (uint64_t)op.line_adv;
                ob_printf(o, "Special opcode %u: advance Address by %llu to 0x%llx and Line by %lld to %llu\n",
                          op.opcode - t->opcode_base, (unsigned long long)op.addr_adv, (unsigned long long)addr,
                          (long long)op.line_adv, (unsigned long long)line);
                continue;
            }
            if (op.kind == CUDW_LOP_STANDARD) {
                switch (op.opcode) {
                case 1: ob_puts(o, "Copy\n"); break;
                case 2:
                case 8:
                    addr += op.addr_adv;
                    ob_printf(o, "%s by %llu to 0x%llx\n", op.opcode == 2 ? "Advance PC" : "Advance PC by constant",
                              (unsigned long long)op.addr_adv, (unsigned long long)addr);
                    break;
                case 3:
                    line += (uint64_t)op.s;
                    ob_printf(o, "Advance Line by %lld to %llu\n", (long long)op.s, (unsigned long long)line);
                    break;
                case 4: ob_printf(o, "Set File Name to entry %llu in the File Name Table\n", (unsigned long long)op.u); break;
                case 5: ob_printf(o, "Set column to %llu\n", (unsigned long long)op.u); break;
                case 6: ob_puts(o, "Set is_stmt (negate)\n"); break;
                case 7: ob_puts(o, "Set basic block\n"); break;
                case 9:
                    addr += op.u;
                    ob_printf(o, "Advance PC by fixed size amount %llu to 0x%llx\n", (unsigned long long)op.u,
                              (unsigned long long)addr);
                    break;
                default: ob_printf(o, "Standard opcode %u (unknown here), first operand %llu\n", op.opcode,
                                   (unsigned long long)op.u);
                }
                continue;
            }
            const char *n = ext_name(op.opcode);
            ob_printf(o, "Extended opcode %u (0x%02x%s%s): ", op.opcode, op.opcode, n ? " " : "", n ? n : "");
            switch (op.opcode) {
            case 1:
                ob_puts(o, "End of Sequence\n\n");
                addr = 0;
                line = 1;
                break;
            case 2:
                addr = op.u;
                ob_printf(o, "set Address to 0x%llx", (unsigned long long)op.u);
                if (op.reloc) {
                    ob_puts(o, " (");
                    reloc_out(op.reloc, o);
                    ob_putc(o, ')');
                }
                ob_putc(o, '\n');
                break;
            case CUDW_LNE_INLINED_CALL: {
                const char *fn = cudw_line_function_name(t, op.u2);
                ob_printf(o, "inlined at row %llu of this sequence, function name at 0x%llx (%s)\n",
                          (unsigned long long)op.u, (unsigned long long)op.u2, fn ? fn : "<outside .debug_str>");
                break;
            }
            case CUDW_LNE_SET_FUNCTION: {
                const char *fn = cudw_line_function_name(t, op.u);
                ob_printf(o, "function name at 0x%llx (%s)\n", (unsigned long long)op.u,
                          fn ? fn : "<outside .debug_str>");
                break;
            }
            case CUDW_LNE_MERC_ENTRY:
                ob_printf(o, "Mercury entry flag %llu\n", (unsigned long long)op.u);
                break;
            default:
                ob_printf(o, "%llu operand bytes:", (unsigned long long)op.raw_len);
                for (uint64_t k = 0; k < op.raw_len; k++)
                    ob_printf(o, " %02x", op.raw[k]);
                ob_putc(o, '\n');
            }
        }
        ob_putc(o, '\n');
    }
}

void line_json(cudw_file *f, const cudw_section *s, json *j)
{
    section_json_open(j, s, "tables");
    uint64_t cur = 0;
    const cudw_line_table *t;
    while (cudw_line_table_next(f, s, &cur, &t) == CUDW_OK) {
        json_obj(j, NULL);
        line_header_json(f, t, LH_OPCODE_LENGTHS, j);
        if (t->has_str_base)
            json_u64(j, "str_base_offset", t->str_base_offset);
        json_arr(j, "ops");
        uint64_t pos = t->program_offset;
        cudw_line_op op;
        while (cudw_line_op_next(t, &pos, &op) == CUDW_OK) {
            json_obj(j, NULL);
            json_u64(j, "offset", op.offset);
            json_u64(j, "size", op.size); /* its bytes: line-encode keeps padded LEBs padded */
            if (op.kind == CUDW_LOP_SPECIAL) {
                json_str(j, "op", "special");
                json_u64(j, "opcode", op.opcode);
                json_u64(j, "address_advance", op.addr_adv);
                json_i64(j, "line_advance", op.line_adv);
            } else if (op.kind == CUDW_LOP_STANDARD) {
                const char *n = std_name(op.opcode);
                json_str(j, "op", n ? n : "DW_LNS_unknown");
                json_u64(j, "opcode", op.opcode);
                if (op.opcode == 3)
                    json_i64(j, "value", op.s);
                else if (op.opcode != 1 && op.opcode != 6 && op.opcode != 7)
                    json_u64(j, "value", op.opcode == 8 ? op.addr_adv : op.u);
            } else {
                const char *n = ext_name(op.opcode);
                json_str(j, "op", n ? n : "DW_LNE_unknown");
                json_u64(j, "opcode", op.opcode);
                json_u64(j, "length", op.ext_len);
                if (op.opcode == 2) {
                    json_u64(j, "value", op.u);
                    if (op.reloc) {
                        json_str(j, "symbol", op.reloc->sym_name);
                        json_i64(j, "addend", op.reloc->addend);
                    }
                } else if (op.opcode == CUDW_LNE_INLINED_CALL) {
                    json_u64(j, "context", op.u);
                    json_u64(j, "function_offset", op.u2);
                    json_str(j, "function", cudw_line_function_name(t, op.u2));
                } else if (op.opcode == CUDW_LNE_SET_FUNCTION) {
                    json_u64(j, "function_offset", op.u);
                    json_str(j, "function", cudw_line_function_name(t, op.u));
                } else if (op.opcode == CUDW_LNE_MERC_ENTRY) {
                    json_u64(j, "value", op.u);
                }
                if (op.opcode != 1) /* the bytes as stored (a REL addend, a padded LEB) */
                    json_hex(j, "operands", op.raw, op.raw_len);
            }
            json_end_obj(j);
        }
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
