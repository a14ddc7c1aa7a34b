/* DW_OP expressions: one operation at a time, operands decoded, every
 * read bounded by the expression. */
#include "../internal.h"

enum { A_NONE, A_U1, A_S1, A_U2, A_S2, A_U4, A_S4, A_U8, A_S8, A_ULEB, A_SLEB, A_ADDR, A_OFF };

/* operand kinds of each opcode; [1] for the second operand */
static void kinds(uint8_t op, int *k0, int *k1)
{
    *k0 = *k1 = A_NONE;
    if (op >= 0x70 && op <= 0x8f) { *k0 = A_SLEB; return; } /* breg0..31 */
    switch (op) {
    case 0x03: *k0 = A_ADDR; break;
    case 0x08: *k0 = A_U1; break;
    case 0x09: *k0 = A_S1; break;
    case 0x0a: *k0 = A_U2; break;
    case 0x0b: *k0 = A_S2; break;
    case 0x0c: *k0 = A_U4; break;
    case 0x0d: *k0 = A_S4; break;
    case 0x0e: *k0 = A_U8; break;
    case 0x0f: *k0 = A_S8; break;
    case 0x10: *k0 = A_ULEB; break;          /* constu */
    case 0x11: *k0 = A_SLEB; break;          /* consts */
    case 0x15: *k0 = A_U1; break;            /* pick */
    case 0x23: *k0 = A_ULEB; break;          /* plus_uconst */
    case 0x28: case 0x2f: *k0 = A_S2; break; /* bra, skip */
    case 0x90: *k0 = A_ULEB; break;          /* regx */
    case 0x91: *k0 = A_SLEB; break;          /* fbreg */
    case 0x92: *k0 = A_ULEB; *k1 = A_SLEB; break; /* bregx */
    case 0x93: *k0 = A_ULEB; break;          /* piece */
    case 0x94: case 0x95: *k0 = A_U1; break; /* deref_size, xderef_size */
    case 0x98: *k0 = A_U2; break;            /* call2 */
    case 0x99: *k0 = A_U4; break;            /* call4 */
    case 0x9a: *k0 = A_OFF; break;           /* call_ref */
    case 0x9d: *k0 = A_ULEB; *k1 = A_ULEB; break; /* bit_piece */
    case 0x9e: *k0 = A_ULEB; break;          /* implicit_value: length, then bytes */
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
    const uint8_t *p = e + at + 1, *end = e + len;
    int k[2];
    kinds(op, &k[0], &k[1]);
    o->offset = at;
    o->op = op;
    o->nargs = 0;
    o->arg[0] = o->arg[1] = 0;
    for (int i = 0; i < 2 && k[i] != A_NONE; i++) {
        uint64_t v = 0;
        size_t n = 0;
        switch (k[i]) {
        case A_U1: case A_S1: n = 1; break;
        case A_U2: case A_S2: n = 2; break;
        case A_U4: case A_S4: case A_OFF: n = 4; break;
        case A_U8: case A_S8: n = 8; break;
        case A_ADDR: n = addr_size; break;
        default: break;
        }
        if (k[i] == A_ULEB || k[i] == A_SLEB) {
            int rc = k[i] == A_ULEB ? uleb_read(&p, end, &v)
                                    : sleb_read(&p, end, (int64_t *)(void *)&v);
            if (rc)
                return rc;
        } else {
            if ((size_t)(end - p) < n)
                return CUDW_E_TRUNCATED;
            v = n == 1 ? p[0] : n == 2 ? ld16(p) : n == 4 ? ld32(p) : ld64(p);
            /* sign-extend the signed fixed-size operands */
            if (k[i] == A_S1) v = (uint64_t)(int64_t)(int8_t)v;
            if (k[i] == A_S2) v = (uint64_t)(int64_t)(int16_t)v;
            if (k[i] == A_S4) v = (uint64_t)(int64_t)(int32_t)v;
            p += n;
        }
        o->arg[i] = v;
        o->nargs++;
    }
    if (op == 0x9e) { /* implicit_value: skip its bytes */
        if (o->arg[0] > (uint64_t)(end - p))
            return CUDW_E_TRUNCATED;
        p += o->arg[0];
    }
    o->size = (uint64_t)(p - (e + at));
    *pos = at + o->size;
    return CUDW_OK;
}

int cudw_attr_is_expr(uint32_t at)
{
    switch (at) {
    case 0x02: /* location */
    case 0x19: /* string_length */
    case 0x22: /* lower_bound */
    case 0x2a: /* return_addr */
    case 0x2e: /* bit_stride (DWARF 2 stride_size) */
    case 0x2f: /* upper_bound */
    case 0x33: /* address_class: spec 000 decodes its blocks as expressions */
    case 0x37: /* count */
    case 0x38: /* data_member_location */
    case 0x40: /* frame_base */
    case 0x46: /* segment */
    case 0x48: /* static_link */
    case 0x4a: /* use_location */
    case 0x4d: /* vtable_elem_location */
    case 0x4e: case 0x4f: case 0x50: case 0x51: /* allocated associated data_location byte_stride */
    case 0x3a00: case 0x3a01: case 0x3a02: /* PGI lbase soffset lstride */
        return 1;
    default:
        return 0;
    }
}
