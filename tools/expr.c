/* Printing DW_OP expressions and relocated values for the CLI. */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

void reloc_text(const cudw_reloc *r, char *buf, size_t n)
{
    if (r->addend)
        snprintf(buf, n, "%s%s0x%llx", r->sym_name, r->addend < 0 ? "-" : "+",
                 (unsigned long long)(r->addend < 0 ? -(uint64_t)r->addend : (uint64_t)r->addend));
    else
        snprintf(buf, n, "%s", r->sym_name);
}

void reloc_out(const cudw_reloc *r, obuf *o)
{
    ob_puts(o, r->sym_name);
    if (r->addend) {
        ob_puts(o, r->addend < 0 ? "-0x" : "+0x");
        ob_hex(o, r->addend < 0 ? -(uint64_t)r->addend : (uint64_t)r->addend);
    }
}

/* The operand carries a register number (reg/breg/regx/bregx)? */
static int reg_operand(uint8_t op, uint64_t *reg, const cudw_op *o)
{
    if (op >= 0x50 && op <= 0x6f) { *reg = op - 0x50u; return 1; }
    if (op >= 0x70 && op <= 0x8f) { *reg = op - 0x70u; return 1; }
    if (op == CUDW_DW_OP_regx || op == CUDW_DW_OP_bregx) { *reg = o->arg[0]; return 1; }
    return 0;
}

/* "DW_OP_constu AS; DW_OP_swap; DW_OP_xderef": an access in PTX state
 * space AS (formats.md 5); the printers name it. */
static const char *space_access(const uint8_t *e, uint64_t len, uint64_t pos, uint8_t asz, uint64_t *as)
{
    cudw_op a, b, c;
    uint64_t p = pos;
    if (cudw_op_next(e, len, asz, &p, &a) || a.op != CUDW_DW_OP_constu)
        return NULL;
    if (cudw_op_next(e, len, asz, &p, &b) || b.op != CUDW_DW_OP_swap)
        return NULL;
    if (cudw_op_next(e, len, asz, &p, &c) || c.op != CUDW_DW_OP_xderef)
        return NULL;
    *as = a.arg[0];
    return cudw_address_class_name(a.arg[0]);
}

void expr_text(cudw_file *f, const cudw_section *sec, uint64_t base, const uint8_t *e, uint64_t len,
               uint8_t addr_size, obuf *out)
{
    uint64_t pos = 0;
    cudw_op o;
    int rc, k = 0;
    while ((rc = cudw_op_next(e, len, addr_size, &pos, &o)) == CUDW_OK) {
        if (k++)
            ob_puts(out, "; ");
        const char *name = cudw_op_name(o.op);
        uint64_t reg, as;
        char rn[300];
        ob_puts(out, name);
        if (o.op == CUDW_DW_OP_addr) {
            const cudw_reloc *r = sec ? cudw_reloc_at(f, sec->index, base + o.offset + 1) : NULL;
            ob_puts(out, ": 0x");
            ob_hex(out, r && r->width ? r->value : o.arg[0]);
            if (r && r->width) {
                ob_puts(out, " (");
                reloc_out(r, out);
                ob_putc(out, ')');
            }
        } else if (reg_operand(o.op, &reg, &o)) {
            cudw_register_name(reg, rn, sizeof rn);
            if (o.op < 0x90) {      /* reg0..31, breg0..31 */
                ob_puts(out, " (");
                ob_puts(out, rn);
                ob_putc(out, ')');
                if (o.op >= 0x70) {
                    ob_putc(out, ' ');
                    ob_sdec(out, (int64_t)o.arg[0]);
                }
            } else {
                ob_puts(out, ": ");
                ob_puts(out, rn);
                if (o.op == CUDW_DW_OP_bregx) {
                    ob_putc(out, ' ');
                    ob_sdec(out, (int64_t)o.arg[1]);
                }
            }
        } else if (o.op == CUDW_DW_OP_constu && space_access(e, len, o.offset, addr_size, &as)) {
            ob_puts(out, ": ");
            ob_dec(out, as);
            ob_puts(out, " (");
            ob_puts(out, cudw_address_class_name(as));
            ob_puts(out, " space)");
        } else if (o.nargs) {
            ob_putc(out, ':');
            for (unsigned i = 0; i < o.nargs; i++) {
                ob_putc(out, ' ');
                if (cudw_op_arg_signed(o.op, i))
                    ob_sdec(out, (int64_t)o.arg[i]);
                else
                    ob_dec(out, o.arg[i]);
            }
        }
    }
    if (rc < 0 && pos < len && !cudw_op_name(e[pos])) {
        /* no DWARF operation (CUDA 9-10 register rules): its bytes, up to
         * the expression's end, which its length frames */
        ob_puts(out, k ? "; <unknown operation:" : "<unknown operation:");
        for (uint64_t i = pos; i < len; i++) {
            ob_puts(out, " ");
            ob_hex_pad(out, e[i], 2);
        }
        ob_putc(out, '>');
    } else if (rc < 0) {
        ob_puts(out, k ? "; <malformed at byte " : "<malformed at byte ");
        ob_dec(out, pos);
        ob_putc(out, '>');
    }
}

void expr_json(cudw_file *f, const cudw_section *sec, uint64_t base, const uint8_t *e, uint64_t len,
               uint8_t addr_size, json *j)
{
    uint64_t pos = 0;
    cudw_op o;
    int rc;
    json_arr(j, "expression");
    while ((rc = cudw_op_next(e, len, addr_size, &pos, &o)) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "offset", o.offset);
        const char *on = cudw_op_name(o.op);
        if (on)
            json_name(j, "op", on);
        else
            json_null(j, "op");
        const cudw_reloc *r = NULL;
        if (o.op == CUDW_DW_OP_addr && sec) {
            r = cudw_reloc_at(f, sec->index, base + o.offset + 1);
            if (r && !r->width)
                r = NULL;
        }
        json_arr(j, "args");
        for (unsigned i = 0; i < o.nargs; i++) {
            if (r && i == 0)
                json_u64(j, NULL, r->value);
            else if (cudw_op_arg_signed(o.op, i))
                json_i64(j, NULL, (int64_t)o.arg[i]);
            else
                json_u64(j, NULL, o.arg[i]);
        }
        json_end_arr(j);
        if (r) {
            json_str(j, "symbol", r->sym_name);
            json_i64(j, "addend", r->addend);
        }
        uint64_t reg, as;
        char rn[48];
        if (reg_operand(o.op, &reg, &o)) {
            cudw_register_name(reg, rn, sizeof rn);
            json_str(j, "register", rn);
        }
        if (o.op == CUDW_DW_OP_constu && space_access(e, len, o.offset, addr_size, &as))
            json_str(j, "address_space", cudw_address_class_name(as));
        json_end_obj(j);
    }
    if (rc < 0 && pos < len && !cudw_op_name(e[pos])) {
        /* no DWARF operation: the bytes up to the expression's end */
        json_obj(j, NULL);
        json_u64(j, "offset", pos);
        json_null(j, "op");
        json_u64(j, "opcode", e[pos]);
        json_hex(j, "bytes", e + pos, len - pos);
        json_end_obj(j);
    } else if (rc < 0) {
        json_obj(j, NULL);
        json_u64(j, "offset", pos);
        json_str(j, "error", cudw_status_name(rc));
        json_end_obj(j);
    }
    json_end_arr(j);
}
