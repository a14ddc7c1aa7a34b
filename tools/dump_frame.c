/* cudwarf dump --frames: CIEs and FDEs of .debug_frame (and its twin) with
 * their call-frame programs; registers named the NVIDIA way, addresses
 * relocated. */
#include "cli.h"

#include <string.h>

int walk_frame_section(cudw_file *f, const cudw_section *s)
{
    uint64_t cur = 0;
    cudw_cfa_entry e, cie;
    int rc, guessed;
    while ((rc = cudw_frame_next(f, s, 8, &cur, &e)) == CUDW_OK)
        if (!e.is_cie && e.length && (rc = cudw_frame_cie(f, s, 8, &e, &cie, &guessed)) < 0)
            return rc;
    return rc < 0 ? rc : 0;
}

/* The CIE of an FDE, for its alignment factors. */
static int cie_of(cudw_file *f, const cudw_section *s, const cudw_cfa_entry *fde, cudw_cfa_entry *cie, int *guessed)
{
    return cudw_frame_cie(f, s, 8, fde, cie, guessed) == CUDW_OK ? 0 : -1;
}

static void reg_text(uint64_t reg, obuf *o)
{
    char b[48];
    cudw_register_name(reg, b, sizeof b);
    ob_puts(o, b);
}

void frame_text(cudw_file *f, const cudw_section *s, obuf *o)
{
    ob_printf(o, "Contents of the %s section:\n\n", s->name);
    uint64_t cur = 0;
    cudw_cfa_entry e, cie;
    while (cudw_frame_next(f, s, 8, &cur, &e) == CUDW_OK) {
        if (e.length == 0) {
            ob_printf(o, "%08llx ZERO terminator\n\n", (unsigned long long)e.offset);
            continue;
        }
        uint64_t code_align = 1;
        int64_t data_align = 1;
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
                code_align = cie.code_align;
                data_align = cie.data_align;
                if (guessed)
                    ob_printf(o, "  (no CIE at 0x%llx: using the CIE before the FDE, at 0x%llx)\n",
                              (unsigned long long)e.cie_pointer, (unsigned long long)cie.offset);
            } else {
                ob_puts(o, "  (CIE not found: factors shown unscaled)\n");
            }
        }
        uint64_t pos = 0, loc = e.is_cie ? 0 : e.initial_location;
        cudw_cfa_op op;
        while (cudw_cfa_op_next(e.instructions, e.instructions_length, 8, &pos, &op) == CUDW_OK) {
            ob_printf(o, "  %s:", cudw_cfa_name(op.op));
            switch (op.op) {
            case 0x40: case 0x02: case 0x03: case 0x04:
                loc += op.u * code_align;
                ob_printf(o, " %llu (to 0x%llx)", (unsigned long long)(op.u * code_align), (unsigned long long)loc);
                break;
            case 0x01:
                loc = op.u;
                ob_printf(o, " 0x%llx", (unsigned long long)op.u);
                break;
            case 0x80: case 0x05: case 0x14:
                ob_putc(o, ' ');
                reg_text(op.reg, o);
                ob_printf(o, " %lld", (long long)((int64_t)op.u * data_align));
                break;
            case 0x11: case 0x15:
                ob_putc(o, ' ');
                reg_text(op.reg, o);
                ob_printf(o, " %lld", (long long)(op.s * data_align));
                break;
            case 0xc0: case 0x06: case 0x07: case 0x08: case 0x0d:
                ob_putc(o, ' ');
                reg_text(op.reg, o);
                break;
            case 0x09:
                ob_putc(o, ' ');
                reg_text(op.reg, o);
                ob_putc(o, ' ');
                reg_text(op.u, o);
                break;
            case 0x0c:
                ob_putc(o, ' ');
                reg_text(op.reg, o);
                ob_printf(o, " +%llu", (unsigned long long)op.u);
                break;
            case 0x12:
                ob_putc(o, ' ');
                reg_text(op.reg, o);
                ob_printf(o, " %lld", (long long)(op.s * data_align));
                break;
            case 0x0e: case 0x2e:
                ob_printf(o, " %llu", (unsigned long long)op.u);
                break;
            case 0x13:
                ob_printf(o, " %lld", (long long)(op.s * data_align));
                break;
            case 0x0f: case 0x10: case 0x16:
                if (op.op != 0x0f) {
                    ob_putc(o, ' ');
                    reg_text(op.reg, o);
                }
                ob_puts(o, " (");
                expr_text(f, s, 0, op.block, op.block_len, 8, o);
                ob_putc(o, ')');
                break;
            default:
                break;
            }
            ob_putc(o, '\n');
        }
        ob_putc(o, '\n');
    }
}

void frame_json(cudw_file *f, const cudw_section *s, json *j)
{
    json_obj(j, NULL);
    json_str(j, "section", s->name);
    json_u64(j, "index", s->index);
    json_arr(j, "entries");
    uint64_t cur = 0;
    cudw_cfa_entry e, cie;
    while (cudw_frame_next(f, s, 8, &cur, &e) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "offset", e.offset);
        json_u64(j, "length", e.length);
        json_str(j, "format", e.format64 ? "DWARF64" : "DWARF32");
        json_str(j, "type", e.length == 0 ? "terminator" : e.is_cie ? "CIE" : "FDE");
        uint64_t code_align = 1;
        int64_t data_align = 1;
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
                code_align = cie.code_align;
                data_align = cie.data_align;
                json_u64(j, "cie", cie.offset);
                if (guessed)
                    json_bool(j, "cie_pointer_names_no_cie", 1);
            }
        }
        json_arr(j, "instructions");
        uint64_t pos = 0;
        cudw_cfa_op op;
        while (cudw_cfa_op_next(e.instructions, e.instructions_length, 8, &pos, &op) == CUDW_OK) {
            char rn[48];
            json_obj(j, NULL);
            json_u64(j, "offset", op.offset);
            json_str(j, "op", cudw_cfa_name(op.op));
            int has_reg = op.op == 0x80 || op.op == 0xc0 || (op.op >= 0x05 && op.op <= 0x09) || op.op == 0x0c ||
                          op.op == 0x0d || op.op == 0x10 || op.op == 0x11 || op.op == 0x12 || op.op == 0x14 ||
                          op.op == 0x15 || op.op == 0x16 || op.op == 0x2f;
            if (has_reg) {
                json_u64(j, "reg", op.reg);
                cudw_register_name(op.reg, rn, sizeof rn);
                json_str(j, "register", rn);
            }
            switch (op.op) {
            case 0x40: case 0x02: case 0x03: case 0x04:
                json_u64(j, "delta", op.u * code_align);
                break;
            case 0x80: case 0x05: case 0x14:
                json_i64(j, "offset_value", (int64_t)op.u * data_align);
                break;
            case 0x11: case 0x12: case 0x13: case 0x15:
                json_i64(j, "offset_value", op.s * data_align);
                break;
            case 0x0c: case 0x0e:
                json_u64(j, "offset_value", op.u);
                break;
            case 0x09:
                json_u64(j, "reg2", op.u);
                break;
            case 0x01:
                json_u64(j, "address", op.u);
                break;
            case 0x0f: case 0x10: case 0x16:
                json_hex(j, "block", op.block, op.block_len);
                expr_json(f, NULL, 0, op.block, op.block_len, 8, j);
                break;
            default:
                break;
            }
            json_end_obj(j);
        }
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
