/* Printing DW_OP expressions and relocated values for the CLI. */
#include "cli.h"
#include "emit.h"

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

void reloc_out(const cudw_reloc *r, obuf *o) { em_sym(&(emit){NULL, o}, NULL, NULL, "", r->sym_name, r->addend); }

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

/* An expression where it is: the section its relocations are looked up
 * in (NULL: none) at base + an operation's offset. */
typedef struct expr_at {
    cudw_file *f;
    const cudw_section *sec;
    uint64_t base;
    const uint8_t *e;
    uint64_t len;
    uint8_t addr_size;
} expr_at;

/* The relocation under DW_OP_addr's operand, if one with a width is there */
static const cudw_reloc *addr_reloc(const expr_at *x, const cudw_op *o)
{
    if (o->op != CUDW_DW_OP_addr || !x->sec)
        return NULL;
    const cudw_reloc *r = cudw_reloc_at(x->f, x->sec->index, x->base + o->offset + 1);
    return r && r->width ? r : NULL;
}

/* What the text puts before argument i (NULL: JSON only): a register
 * operation shows its register (before the arguments) and then only its
 * offset; DW_OP_addr its address in hex; the others each argument. */
static const char *arg_label(const cudw_op *o, unsigned i, int is_reg)
{
    if (is_reg)
        return (o->op >= 0x70 && o->op < 0x90 && i == 0) || (o->op == CUDW_DW_OP_bregx && i == 1) ? " " : NULL;
    if (o->op == CUDW_DW_OP_addr)
        return ": 0x";
    return i ? " " : ": ";
}

static void op_args(const cudw_op *o, const cudw_reloc *r, int is_reg, emit *m)
{
    em_arr(m, "args");
    for (unsigned i = 0; i < o->nargs; i++) {
        const char *label = arg_label(o, i, is_reg);
        if (o->op == CUDW_DW_OP_addr && i == 0) /* relocated: the address the symbol gives */
            em_item_u64(m, label, EM_HEX, r ? r->value : o->arg[0]);
        else if (cudw_op_arg_signed(o->op, i))
            em_item_i64(m, label, (int64_t)o->arg[i]);
        else
            em_item_u64(m, label, EM_DEC, o->arg[i]);
    }
    em_end_arr(m);
}

/* One operation: text "DW_OP_breg1 (R1) 8", JSON its object. */
static void op_print(const expr_at *x, const cudw_op *o, emit *m)
{
    const cudw_reloc *r = addr_reloc(x, o);
    uint64_t reg, as;
    char rn[48];
    int is_reg = reg_operand(o->op, &reg, o);
    const char *space = o->op == CUDW_DW_OP_constu ? space_access(x->e, x->len, o->offset, x->addr_size, &as) : NULL;
    const char *name = cudw_op_name(o->op);
    em_obj(m, NULL);
    em_u64(m, "offset", NULL, 0, o->offset);
    if (name)
        em_name(m, "op", "", 0, name);
    else
        em_null(m, "op");
    if (is_reg) { /* text: the register before the arguments, JSON after */
        cudw_register_name(reg, rn, sizeof rn);
        em_name(m, NULL, o->op < 0x90 ? " (" : ": ", 0, rn);
        em_text(m, o->op < 0x90 ? ")" : "");
    }
    op_args(o, r, is_reg, m);
    if (r) {
        em_sym(m, "symbol", "addend", " (", r->sym_name, r->addend);
        em_text(m, ")");
    }
    if (is_reg)
        em_name(m, "register", NULL, 0, rn);
    if (space) {
        em_name(m, "address_space", " (", 0, space);
        em_text(m, " space)");
    }
    em_end_obj(m);
}

/* Where decoding stopped before the end: an opcode DWARF does not have
 * (CUDA 9-10 register rules: its bytes, up to the expression's end, which
 * its length frames), or a malformed operation. */
static void op_stop(const expr_at *x, uint64_t pos, int rc, emit *m)
{
    em_obj(m, NULL);
    if (pos < x->len && !cudw_op_name(x->e[pos])) {
        em_u64(m, "offset", NULL, 0, pos);
        em_null(m, "op");
        em_u64(m, "opcode", NULL, 0, x->e[pos]);
        em_hex(m, "bytes", "<unknown operation:", x->e + pos, x->len - pos);
    } else {
        em_u64(m, "offset", "<malformed at byte ", EM_DEC, pos);
        em_str(m, "error", NULL, 0, cudw_status_name(rc));
    }
    em_text(m, ">");
    em_end_obj(m);
}

void expr_print(cudw_file *f, const cudw_section *sec, uint64_t base, const uint8_t *e, uint64_t len,
                uint8_t addr_size, emit *m)
{
    expr_at x = {f, sec, base, e, len, addr_size};
    uint64_t pos = 0;
    cudw_op o;
    int rc, k = 0;
    em_arr(m, "expression");
    while ((rc = cudw_op_next(e, len, addr_size, &pos, &o)) == CUDW_OK) {
        em_text(m, k++ ? "; " : "");
        op_print(&x, &o, m);
    }
    if (rc < 0) {
        em_text(m, k ? "; " : "");
        op_stop(&x, pos, rc, m);
    }
    em_end_arr(m);
}
