/* The CFA table: hand-made .debug_frame programs with the instructions
 * ptxas never writes (remember/restore state, restore, val_offset,
 * register, _sf forms, set_loc), and the bounds on hostile programs. */
#include "testutil.h"

/* A 32-bit DWARF CIE (code align 4, data align -4, RA 20) with initial
 * instructions init, then one FDE at pc 0x100..0x200 with program prog. */
static uint8_t *frame_elf(const uint8_t *init, size_t ni, const uint8_t *prog, size_t np, size_t *len)
{
    static uint8_t sec[4096];
    size_t n = 0;
    size_t cie_body = 4 + 1 + 1 + 1 + 1 + 1 + ni; /* id, version, aug "", code, data, ra, init */
    size_t cie_len = (cie_body + 3) & ~(size_t)3;
    W32(sec + n, cie_len);
    W32(sec + n + 4, 0xffffffffu);
    sec[n + 8] = 3;   /* version */
    sec[n + 9] = 0;   /* augmentation "" */
    sec[n + 10] = 4;  /* code alignment */
    sec[n + 11] = 0x7c; /* data alignment -4 */
    sec[n + 12] = 20; /* return address register */
    memcpy(sec + n + 13, init, ni);
    memset(sec + n + 13 + ni, 0, cie_len - cie_body); /* DW_CFA_nop padding */
    n += 4 + cie_len;
    size_t fde_body = 4 + 8 + 8 + np;
    size_t fde_len = (fde_body + 3) & ~(size_t)3;
    W32(sec + n, fde_len);
    W32(sec + n + 4, 0); /* CIE at 0 */
    W64(sec + n + 8, 0x100);
    W64(sec + n + 16, 0x100);
    memcpy(sec + n + 24, prog, np);
    memset(sec + n + 24 + np, 0, fde_len - fde_body);
    n += 4 + fde_len;
    tsec s[] = {{".debug_frame", 1, 0, sec, n, 0, 0, 0}};
    return telf_build(s, 1, len);
}

typedef struct fx {
    uint8_t *elf;
    cudw_file *f;
    const cudw_section *s;
    cudw_cfa_entry cie, fde;
    cudw_cfa_rows *rows;
} fx;

static int open_fx(fx *x, const uint8_t *init, size_t ni, const uint8_t *prog, size_t np)
{
    size_t len;
    memset(x, 0, sizeof *x);
    x->elf = frame_elf(init, ni, prog, np, &len);
    x->f = topen(x->elf, len);
    x->s = cudw_section_find(x->f, ".debug_frame");
    uint64_t cur = 0;
    assert_int_equal(cudw_frame_next(x->f, x->s, 8, &cur, &x->cie), CUDW_OK);
    assert_int_equal(cudw_frame_next(x->f, x->s, 8, &cur, &x->fde), CUDW_OK);
    return cudw_cfa_rows_open(x->f, x->s, 8, &x->cie, &x->fde, &x->rows);
}

static void close_fx(fx *x)
{
    cudw_cfa_rows_close(x->rows);
    cudw_close(x->f);
    free(x->elf);
}

static const cudw_cfa_rule *rule_of(const cudw_cfa_row *r, uint64_t reg)
{
    for (size_t i = 0; i < r->nrules; i++)
        if (r->rules[i].reg == reg)
            return &r->rules[i];
    return NULL;
}

static void table(void **state)
{
    (void)state;
    /* CIE: def_cfa r1+0; same_value r16; undefined r17; offset r18 at 2 (-> CFA-8) */
    const uint8_t init[] = {0x0c, 1, 0, 0x08, 16, 0x07, 17, 0x80 | 18, 2};
    const uint8_t prog[] = {
        0x0e, 16,             /* def_cfa_offset 16 */
        0x41,                 /* advance_loc 1 (4 bytes) -> row 1 at 0x104 */
        0x0a,                 /* remember_state */
        0x80 | 16, 3,         /* offset r16, 3 -> CFA-12 */
        0x09, 17, 5,          /* register r17 in r5 */
        0x14, 19, 1,          /* val_offset r19, 1 -> CFA-4 */
        0x02, 2,              /* advance_loc1 2 (8 bytes) -> row 2 at 0x10c */
        0x0b,                 /* restore_state: r16 same again, r17 undefined, no r19 */
        0xc0 | 18,            /* restore r18: CIE's CFA-8 (unchanged) */
        0x11, 18, 0x7e,       /* offset_extended_sf r18, -2 -> CFA+8 */
        0x12, 2, 0x7d,        /* def_cfa_sf r2, -3 -> r2+12 */
        0x01, 0x40, 1, 0, 0, 0, 0, 0, 0, /* set_loc 0x140 -> row 3 at 0x110 */
        0x06, 18,             /* restore_extended r18 */
        0x0f, 2, 0x71, 0,     /* def_cfa_expression DW_OP_breg1 0 */
    };
    fx x;
    assert_int_equal(open_fx(&x, init, sizeof init, prog, sizeof prog), CUDW_OK);
    size_t ni;
    const cudw_cfa_rule *in = cudw_cfa_rows_initial(x.rows, &ni);
    assert_int_equal(ni, 3);
    assert_int_equal(in[2].reg, 18);
    assert_int_equal(in[2].kind, CUDW_RULE_OFFSET);
    assert_int_equal(in[2].offset, -8);

    cudw_cfa_row r;
    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_OK);
    assert_int_equal(r.address, 0x100);
    assert_int_equal(r.end, 0x104);
    assert_int_equal(r.cfa_reg, 1);
    assert_int_equal(r.cfa_offset, 16);
    assert_int_equal(rule_of(&r, 16)->kind, CUDW_RULE_SAME);

    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_OK);
    assert_int_equal(r.address, 0x104);
    assert_int_equal(r.end, 0x10c);
    assert_int_equal(rule_of(&r, 16)->kind, CUDW_RULE_OFFSET);
    assert_int_equal(rule_of(&r, 16)->offset, -12);
    assert_int_equal(rule_of(&r, 17)->kind, CUDW_RULE_REGISTER);
    assert_int_equal(rule_of(&r, 17)->reg2, 5);
    assert_int_equal(rule_of(&r, 19)->kind, CUDW_RULE_VAL_OFFSET);
    assert_int_equal(rule_of(&r, 19)->offset, -4);

    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_OK);
    assert_int_equal(r.address, 0x10c);
    assert_int_equal(r.end, 0x140);
    assert_int_equal(rule_of(&r, 16)->kind, CUDW_RULE_SAME);
    assert_int_equal(rule_of(&r, 17)->kind, CUDW_RULE_UNDEFINED);
    assert_null(rule_of(&r, 19));
    assert_int_equal(rule_of(&r, 18)->offset, 8);
    assert_int_equal(r.cfa_reg, 2);
    assert_int_equal(r.cfa_offset, 12);

    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_OK);
    assert_int_equal(r.address, 0x140);
    assert_int_equal(r.end, 0x200);
    assert_int_equal(rule_of(&r, 18)->offset, -8); /* restored to the CIE's */
    assert_true(r.cfa_is_expr);
    assert_int_equal(r.cfa_expr_len, 2);
    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_DONE);
    close_fx(&x);
}

static void bounds(void **state)
{
    (void)state;
    const uint8_t init[] = {0x0c, 1, 0};
    uint8_t deep[80];
    memset(deep, 0x0a, sizeof deep); /* 80 x remember_state: deeper than allowed */
    fx x;
    assert_int_equal(open_fx(&x, init, sizeof init, deep, sizeof deep), CUDW_OK);
    cudw_cfa_row r;
    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_E_LIMIT);
    const cudw_error *e = cudw_last_error(x.f);
    assert_string_equal(e->section, ".debug_frame");
    /* the 65th remember_state: the CIE takes 16 bytes, the FDE's program
     * starts 24 bytes into it, the instruction is its 65th byte */
    assert_int_equal(e->offset, 16 + 24 + 64);
    close_fx(&x);

    const uint8_t pop[] = {0x0b}; /* restore_state with nothing saved */
    assert_int_equal(open_fx(&x, init, sizeof init, pop, sizeof pop), CUDW_OK);
    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_E_BAD_OFFSET);
    close_fx(&x);

    const uint8_t back[] = {0x01, 0x10, 0, 0, 0, 0, 0, 0, 0}; /* set_loc before the FDE's start */
    assert_int_equal(open_fx(&x, init, sizeof init, back, sizeof back), CUDW_OK);
    assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_E_BAD_OFFSET);
    close_fx(&x);

    const uint8_t badcie[] = {0x0c, 1, 0, 0x3f}; /* unknown instruction in the CIE */
    fx y;
    memset(&y, 0, sizeof y);
    size_t len;
    y.elf = frame_elf(badcie, sizeof badcie, init, 0, &len);
    y.f = topen(y.elf, len);
    y.s = cudw_section_find(y.f, ".debug_frame");
    uint64_t cur = 0;
    /* cudw_frame_next checks the program and refuses the CIE itself */
    assert_true(cudw_frame_next(y.f, y.s, 8, &cur, &y.cie) < 0);
    cudw_close(y.f);
    free(y.elf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table),
        cmocka_unit_test(bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
