/* .debug_frame: CIEs, FDEs and their call-frame programs.
 *
 *   32-bit: u32 length | u32 CIE id (0xffffffff) or CIE pointer | ...
 *   64-bit: u32 0xffffffff | u64 length | u64 CIE id (~0) or CIE pointer | ...
 *   CIE:    u8 version | augmentation string | ULEB code_align | SLEB data_align |
 *           return address register (u8 in version 1, ULEB from 3) | program
 *   FDE:    initial_location (address size) | address_range | program
 *
 * cubins (formats.md 3): 64-bit, version 3, code_align 4, data_align -4,
 * register numbers class << 24 | n. */
#include "../elf/reloc.h"

#include <stdlib.h>

static int fr_fail(cudw_file *f, const cudw_section *s, uint64_t off, int code, const char *msg)
{
    return file_fail(f, code, s, off, "frame entry", "%s", msg);
}

static int frame_next(cudw_file *f, const cudw_section *s, uint8_t asz, uint64_t *cursor, cudw_cfa_entry *e,
                      int check_ops);

int cudw_frame_next(cudw_file *f, const cudw_section *s, uint8_t asz, uint64_t *cursor, cudw_cfa_entry *e)
{
    return frame_next(f, s, asz, cursor, e, 1);
}

int frame_next_headers(cudw_file *f, const cudw_section *s, uint8_t asz, uint64_t *cursor, cudw_cfa_entry *e)
{
    return frame_next(f, s, asz, cursor, e, 0);
}

static int frame_next(cudw_file *f, const cudw_section *s, uint8_t asz, uint64_t *cursor, cudw_cfa_entry *e,
                      int check_ops)
{
    uint64_t at = *cursor;
    if (!s->data)
        return s->size ? fr_fail(f, s, 0, CUDW_E_BAD_OFFSET, "section bytes lie outside the file") : CUDW_DONE;
    if (at >= s->data_size)
        return CUDW_DONE;
    const uint8_t *d = s->data;
    cur_t c;
    int rc = cur_open(&c, f, s, at, s->data_size, "frame entry");
    if (rc)
        return rc;
    memset(e, 0, sizeof *e);
    e->offset = at;
    uint64_t len;
    int is64;
    if ((rc = cur_unit_length(&c, 1, &len, &is64)))
        return rc;
    e->format64 = (uint8_t)is64;
    e->length = len;
    e->end = cur_end(&c);
    *cursor = e->end;
    if (len == 0) { /* a zero terminator some producers write */
        e->is_cie = 0;
        e->instructions_offset = e->end;
        return CUDW_OK;
    }
    unsigned osz = e->format64 ? 8 : 4;
    uint64_t id = 0;
    const cudw_reloc *idrel = cur_reloc(&c);
    if ((rc = cur_un(&c, osz, "CIE id", &id)))
        return rc;
    e->is_cie = !(idrel && idrel->width) && id == (e->format64 ? ~0ull : 0xffffffffull);
    if (e->is_cie) {
        c.what = "CIE";
        uint64_t skip;
        if ((rc = cur_u8(&c, "version", &e->version)))
            return rc;
        if (e->version != 1 && e->version != 3 && e->version != 4)
            return cur_fail_at(&c, cur_off(&c) - 1, CUDW_E_UNSUPPORTED, "version %u (1, 3 or 4)", e->version);
        if ((rc = cur_str(&c, "augmentation string", &e->augmentation)))
            return rc;
        if (e->version == 4 && (rc = cur_un(&c, 2, "address_size and segment_selector_size", &skip)))
            return rc;
        if ((rc = cur_uleb(&c, "code_alignment_factor", &e->code_align)) ||
            (rc = cur_sleb(&c, "data_alignment_factor", &e->data_align)))
            return rc;
        if (e->version == 1) {
            uint8_t ra = 0;
            if ((rc = cur_u8(&c, "return_address_register", &ra)))
                return rc;
            e->ra_register = ra;
        } else if ((rc = cur_uleb(&c, "return_address_register", &e->ra_register))) {
            return rc;
        }
        if (e->augmentation[0])
            /* "z..." and vendor augmentations change the layout: the program
             * cannot be located safely */
            return cur_fail_at(&c, at, CUDW_E_UNSUPPORTED, "augmentation \"%s\"", e->augmentation);
    } else {
        c.what = "FDE";
        /* the id was the CIE pointer: read it again, relocated */
        cur_t ptr = cur_make(f, s, cur_off(&c) - osz, cur_off(&c), "FDE");
        (void)cur_field(&ptr, osz, "CIE pointer", &e->cie_pointer, &e->cie_reloc);
        if ((rc = cur_need(&c, 2u * asz, "initial_location and address_range")))
            return rc;
        (void)cur_field(&c, asz, "initial_location", &e->initial_location, &e->location_reloc);
        e->range_reloc = cur_reloc(&c);
        (void)cur_field(&c, asz, "address_range", &e->address_range, NULL); /* a writing relocation: applied */
    }
    uint64_t p = cur_off(&c);
    e->instructions_offset = p;
    e->instructions = d + p;
    e->instructions_length = e->end - p;
    /* check the program here, so readers of the ops meet no surprise */
    if (!check_ops)
        return CUDW_OK;
    uint64_t pos = 0;
    cudw_cfa_op op;
    while ((rc = cudw_cfa_op_next(e->instructions, e->instructions_length, asz, &pos, &op)) == CUDW_OK)
        ;
    if (rc < 0)
        return file_fail(f, rc, s, p + pos, "call frame instruction",
                         rc == CUDW_E_BAD_EXPR ? "unknown DW_CFA opcode 0x%02x"
                                               : "operands of 0x%02x run past the end of the entry",
                         e->instructions[pos]);
    return CUDW_OK;
}

/* Offsets of the section's CIEs, ascending: built once, cached. */
typedef struct cie_index {
    size_t n;
    uint64_t *at;
} cie_index;

static int cies(cudw_file *f, const cudw_section *s, uint8_t asz, cie_index **out)
{
    cie_index *x = cache_get(f, CACHE_FRAME, s->index, 0);
    if (x) {
        *out = x;
        return CUDW_OK;
    }
    /* one walk, the offsets gathered in a scratch array */
    size_t n = 0, cap = 0;
    uint64_t cur = 0, *tmp = NULL;
    cudw_cfa_entry e;
    int rc;
    while ((rc = frame_next_headers(f, s, asz, &cur, &e)) == CUDW_OK) {
        if (!e.is_cie)
            continue;
        uint64_t *t = vec_room(tmp, &cap, n, sizeof *t, 64);
        if (!t) {
            free(tmp);
            return file_fail(f, CUDW_E_NOMEM, s, 0, "frame index", "out of memory");
        }
        tmp = t;
        tmp[n++] = e.offset;
    }
    if (rc < 0) {
        free(tmp);
        return rc;
    }
    x = arena_alloc(&f->arena, sizeof *x);
    uint64_t *at = n ? arena_alloc(&f->arena, n * sizeof *at) : NULL;
    if (!x || (n && !at)) {
        free(tmp);
        return file_fail(f, CUDW_E_NOMEM, s, 0, "frame index", "out of memory");
    }
    if (n)
        memcpy(at, tmp, n * sizeof *at);
    free(tmp);
    x->n = n;
    x->at = at;
    if (cache_put(f, CACHE_FRAME, s->index, 0, x))
        return file_fail(f, CUDW_E_NOMEM, s, 0, "frame index", "out of memory");
    *out = x;
    return CUDW_OK;
}

int frame_cie_offset(cudw_file *f, const cudw_section *s, uint8_t asz, const cudw_cfa_entry *fde, uint64_t *out,
                     int *guessed)
{
    cie_index *x = NULL;
    int rc = cies(f, s, asz, &x);
    if (rc)
        return rc;
    *guessed = 0;
    size_t lo = 0, hi = x->n;
    while (lo < hi) { /* first CIE at or after the pointer */
        size_t mid = lo + (hi - lo) / 2;
        if (x->at[mid] < fde->cie_pointer)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t at;
    int names_cie = lo < x->n && x->at[lo] == fde->cie_pointer;
    /* A CIE after the FDE is no producer's choice but ptxas's error landing
     * on the next function's CIE (its addends grow past the right offset,
     * never short of it): the CIE before the FDE is meant there too. */
    if (names_cie && fde->cie_pointer < fde->offset) {
        at = x->at[lo];
    } else {
        /* the last CIE before the FDE */
        size_t a = 0, b = x->n;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (x->at[mid] < fde->offset)
                a = mid + 1;
            else
                b = mid;
        }
        if (a == 0)
            return file_fail(f, CUDW_E_BAD_OFFSET, s, fde->offset, "FDE",
                             "CIE pointer 0x%llx names no CIE, and no CIE precedes the FDE",
                             (unsigned long long)fde->cie_pointer);
        at = x->at[a - 1];
        *guessed = names_cie ? 2 : 1;
    }
    *out = at;
    return CUDW_OK;
}

int cudw_frame_cie(cudw_file *f, const cudw_section *s, uint8_t asz, const cudw_cfa_entry *fde, cudw_cfa_entry *cie,
                   int *guessed)
{
    uint64_t at;
    int rc = frame_cie_offset(f, s, asz, fde, &at, guessed);
    return rc ? rc : cudw_frame_next(f, s, asz, &at, cie);
}

const char *cudw_cfa_name(uint8_t op)
{
    static const char *const n[] = {
        "DW_CFA_nop", "DW_CFA_set_loc", "DW_CFA_advance_loc1", "DW_CFA_advance_loc2", "DW_CFA_advance_loc4",
        "DW_CFA_offset_extended", "DW_CFA_restore_extended", "DW_CFA_undefined", "DW_CFA_same_value",
        "DW_CFA_register", "DW_CFA_remember_state", "DW_CFA_restore_state", "DW_CFA_def_cfa",
        "DW_CFA_def_cfa_register", "DW_CFA_def_cfa_offset", "DW_CFA_def_cfa_expression", "DW_CFA_expression",
        "DW_CFA_offset_extended_sf", "DW_CFA_def_cfa_sf", "DW_CFA_def_cfa_offset_sf", "DW_CFA_val_offset",
        "DW_CFA_val_offset_sf", "DW_CFA_val_expression",
    };
    if (op >= 0x40)
        return op >= 0xc0 ? "DW_CFA_restore" : op >= 0x80 ? "DW_CFA_offset" : "DW_CFA_advance_loc";
    if (op < sizeof n / sizeof n[0])
        return n[op];
    if (op == CUDW_DW_CFA_GNU_args_size)
        return "DW_CFA_GNU_args_size";
    if (op == CUDW_DW_CFA_GNU_negative_offset_extended)
        return "DW_CFA_GNU_negative_offset_extended";
    return NULL;
}

int cudw_cfa_op_next(const uint8_t *prog, uint64_t len, uint8_t asz, uint64_t *ppos, cudw_cfa_op *o)
{
    uint64_t at = *ppos;
    if (at >= len)
        return CUDW_DONE;
    cur_t c = cur_raw(prog, len);
    c.p += at;
    uint8_t op = *c.p++;
    int rc = CUDW_OK;
    memset(o, 0, sizeof *o);
    o->offset = at;
    o->op = op;
    if (op >= 0x40) { /* the high two bits are the opcode, the low six its operand */
        o->op = op & 0xc0;
        if (o->op == CUDW_DW_CFA_advance_loc)
            o->u = op & 0x3f;
        else {
            o->reg = op & 0x3f;
            if (o->op == CUDW_DW_CFA_offset)
                rc = cur_uleb(&c, "offset", &o->u);
        }
    } else {
        switch (op) {
        case CUDW_DW_CFA_nop: case CUDW_DW_CFA_remember_state: case CUDW_DW_CFA_restore_state: break;
        case CUDW_DW_CFA_set_loc:
            rc = cur_un(&c, asz, "address", &o->u);
            break;
        case CUDW_DW_CFA_advance_loc1: rc = cur_un(&c, 1, "delta", &o->u); break;
        case CUDW_DW_CFA_advance_loc2: rc = cur_un(&c, 2, "delta", &o->u); break;
        case CUDW_DW_CFA_advance_loc4: rc = cur_un(&c, 4, "delta", &o->u); break;
        case CUDW_DW_CFA_offset_extended:
        case CUDW_DW_CFA_register:
        case CUDW_DW_CFA_def_cfa:
        case CUDW_DW_CFA_val_offset:
        case CUDW_DW_CFA_GNU_negative_offset_extended: /* reg, ULEB (the last one negated) */
            if (!(rc = cur_uleb(&c, "register", &o->reg)))
                rc = cur_uleb(&c, "operand", &o->u);
            break;
        case CUDW_DW_CFA_restore_extended:
        case CUDW_DW_CFA_undefined:
        case CUDW_DW_CFA_same_value:
        case CUDW_DW_CFA_def_cfa_register: /* reg */
            rc = cur_uleb(&c, "register", &o->reg);
            break;
        case CUDW_DW_CFA_def_cfa_offset: case CUDW_DW_CFA_GNU_args_size: /* ULEB */
            rc = cur_uleb(&c, "operand", &o->u);
            break;
        case CUDW_DW_CFA_offset_extended_sf:
        case CUDW_DW_CFA_def_cfa_sf:
        case CUDW_DW_CFA_val_offset_sf: /* reg, SLEB */
            if (!(rc = cur_uleb(&c, "register", &o->reg)))
                rc = cur_sleb(&c, "operand", &o->s);
            break;
        case CUDW_DW_CFA_def_cfa_offset_sf: /* SLEB */
            rc = cur_sleb(&c, "operand", &o->s);
            break;
        case CUDW_DW_CFA_def_cfa_expression:
        case CUDW_DW_CFA_expression:
        case CUDW_DW_CFA_val_expression: { /* [reg,] block */
            uint64_t bl;
            if ((op != CUDW_DW_CFA_def_cfa_expression && (rc = cur_uleb(&c, "register", &o->reg))) ||
                (rc = cur_uleb(&c, "block length", &bl)))
                break;
            o->block = c.p;
            o->block_len = bl;
            rc = cur_skip(&c, bl, "block");
            break;
        }
        default:
            return CUDW_E_BAD_EXPR;
        }
    }
    if (rc)
        return rc;
    const uint8_t *p = c.p;
    *ppos = (uint64_t)(p - prog);
    return CUDW_OK;
}
