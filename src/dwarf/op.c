/* DW_OP expressions: one operation at a time, operands decoded, every
 * read bounded by the expression. */
#include "../elf/cursor.h"

enum { A_NONE, A_U1, A_S1, A_U2, A_S2, A_U4, A_S4, A_U8, A_S8, A_ULEB, A_SLEB, A_ADDR, A_OFF };

/* operand kinds of each opcode; [1] for the second operand */
static void kinds(uint8_t op, int *k0, int *k1)
{
    *k0 = *k1 = A_NONE;
    if (op >= 0x70 && op <= 0x8f) { *k0 = A_SLEB; return; } /* breg0..31 */
    switch (op) {
    case CUDW_DW_OP_addr: *k0 = A_ADDR; break;
    case CUDW_DW_OP_const1u: *k0 = A_U1; break;
    case CUDW_DW_OP_const1s: *k0 = A_S1; break;
    case CUDW_DW_OP_const2u: *k0 = A_U2; break;
    case CUDW_DW_OP_const2s: *k0 = A_S2; break;
    case CUDW_DW_OP_const4u: *k0 = A_U4; break;
    case CUDW_DW_OP_const4s: *k0 = A_S4; break;
    case CUDW_DW_OP_const8u: *k0 = A_U8; break;
    case CUDW_DW_OP_const8s: *k0 = A_S8; break;
    case CUDW_DW_OP_constu: *k0 = A_ULEB; break;
    case CUDW_DW_OP_consts: *k0 = A_SLEB; break;
    case CUDW_DW_OP_pick: *k0 = A_U1; break;
    case CUDW_DW_OP_plus_uconst: *k0 = A_ULEB; break;
    case CUDW_DW_OP_bra: case CUDW_DW_OP_skip: *k0 = A_S2; break;
    case CUDW_DW_OP_regx: *k0 = A_ULEB; break;
    case CUDW_DW_OP_fbreg: *k0 = A_SLEB; break;
    case CUDW_DW_OP_bregx: *k0 = A_ULEB; *k1 = A_SLEB; break;
    case CUDW_DW_OP_piece: *k0 = A_ULEB; break;
    case CUDW_DW_OP_deref_size: case CUDW_DW_OP_xderef_size: *k0 = A_U1; break;
    case CUDW_DW_OP_call2: *k0 = A_U2; break;
    case CUDW_DW_OP_call4: *k0 = A_U4; break;
    case CUDW_DW_OP_call_ref: *k0 = A_OFF; break;
    case CUDW_DW_OP_bit_piece: *k0 = A_ULEB; *k1 = A_ULEB; break;
    case CUDW_DW_OP_implicit_value: *k0 = A_ULEB; break;          /* implicit_value: length, then bytes */
    default: break;
    }
}

int cudw_op_arg_signed(uint8_t op, unsigned i)
{
    int k[2];
    kinds(op, &k[0], &k[1]);
    if (i > 1)
        return 0;
    return k[i] == A_S1 || k[i] == A_S2 || k[i] == A_S4 || k[i] == A_S8 || k[i] == A_SLEB;
}

static int known(uint8_t op)
{
    return cudw_op_name(op) != NULL;
}

int cudw_op_next(const uint8_t *e, uint64_t len, uint8_t addr_size, uint64_t *pos, cudw_op *o)
{
    uint64_t at = *pos;
    if (at >= len)
        return CUDW_DONE;
    uint8_t op = e[at];
    if (!known(op))
        return CUDW_E_BAD_EXPR;
    cur_t c = cur_raw(e, len);
    c.p += at + 1;
    int k[2];
    kinds(op, &k[0], &k[1]);
    o->offset = at;
    o->op = op;
    o->nargs = 0;
    o->arg[0] = o->arg[1] = 0;
    for (int i = 0; i < 2 && k[i] != A_NONE; i++) {
        uint64_t v = 0;
        int rc;
        switch (k[i]) {
        case A_ULEB: rc = cur_uleb(&c, "operand", &v); break;
        case A_SLEB: {
            int64_t sv = 0;
            rc = cur_sleb(&c, "operand", &sv);
            v = (uint64_t)sv;
            break;
        }
        /* the signed fixed-size operands are sign-extended */
        case A_U1: rc = cur_un(&c, 1, "operand", &v); break;
        case A_S1: rc = cur_un(&c, 1, "operand", &v); v = (uint64_t)(int64_t)(int8_t)v; break;
        case A_U2: rc = cur_un(&c, 2, "operand", &v); break;
        case A_S2: rc = cur_un(&c, 2, "operand", &v); v = (uint64_t)(int64_t)(int16_t)v; break;
        case A_U4: case A_OFF: rc = cur_un(&c, 4, "operand", &v); break;
        case A_S4: rc = cur_un(&c, 4, "operand", &v); v = (uint64_t)(int64_t)(int32_t)v; break;
        case A_U8: case A_S8: rc = cur_un(&c, 8, "operand", &v); break;
        case A_ADDR: rc = cur_un(&c, addr_size, "address", &v); break;
        default: rc = CUDW_E_BAD_EXPR; break;
        }
        if (rc)
            return rc;
        o->arg[i] = v;
        o->nargs++;
    }
    if (op == CUDW_DW_OP_implicit_value) { /* its bytes follow the length */
        int rc = cur_skip(&c, o->arg[0], "implicit value");
        if (rc)
            return rc;
    }
    const uint8_t *p = c.p;
    o->size = (uint64_t)(p - (e + at));
    *pos = at + o->size;
    return CUDW_OK;
}

int cudw_attr_is_expr(uint32_t at)
{
    switch (at) {
    case CUDW_DW_AT_location:
    case CUDW_DW_AT_string_length:
    case CUDW_DW_AT_lower_bound:
    case CUDW_DW_AT_return_addr:
    case CUDW_DW_AT_bit_stride: /* bit_stride (DWARF 2 stride_size) */
    case CUDW_DW_AT_upper_bound:
    case CUDW_DW_AT_address_class: /* address_class: the nvlink reconstruction decodes its blocks as expressions */
    case CUDW_DW_AT_count:
    case CUDW_DW_AT_data_member_location:
    case CUDW_DW_AT_frame_base:
    case CUDW_DW_AT_segment:
    case CUDW_DW_AT_static_link:
    case CUDW_DW_AT_use_location:
    case CUDW_DW_AT_vtable_elem_location:
    case CUDW_DW_AT_allocated: case CUDW_DW_AT_associated: case CUDW_DW_AT_data_location: case CUDW_DW_AT_byte_stride:
    case CUDW_DW_AT_PGI_lbase:
    case CUDW_DW_AT_PGI_soffset:
    case CUDW_DW_AT_PGI_lstride: /* PGI lbase soffset lstride */
        return 1;
    default:
        return 0;
    }
}
