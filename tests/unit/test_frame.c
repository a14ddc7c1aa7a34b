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

/* Rules set in any order (ptxas's CIEs name R0..R255 after the UR
 * registers; the state merges such rules in lazily): random programs of
 * offset / undefined / same_value / restore on registers 0..63 in random
 * order, in the CIE and the FDE, against a plain array model.  Every row
 * must list each register once, sorted, with the last rule set. */
static void rules_in_any_order(void **state)
{
    (void)state;
    uint64_t rng = 0x853c49e6748fea9bull;
    for (int round = 0; round < 300; round++) {
        uint8_t init[600], prog[1200];
        size_t ni = 0, np = 0;
        int8_t cie_model[100], model[100]; /* -1 none, 0 undefined, 1 same, 2+k offset k */
        memset(cie_model, -1, sizeof cie_model);
        int nops = 1 + (int)(rng % 120);
        for (int i = 0; i < nops; i++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            unsigned reg = (unsigned)(rng % 64), kind = (unsigned)(rng >> 20) % 3, k = (unsigned)(rng >> 30) % 50;
            if (kind == 0)
                init[ni++] = 0x07, init[ni++] = (uint8_t)reg, cie_model[reg] = 0;
            else if (kind == 1)
                init[ni++] = 0x08, init[ni++] = (uint8_t)reg, cie_model[reg] = 1;
            else
                init[ni++] = (uint8_t)(0x80 | reg), init[ni++] = (uint8_t)k, cie_model[reg] = (int8_t)(2 + k);
        }
        memcpy(model, cie_model, sizeof model);
        int8_t at_row[8][100];
        int rows = 0;
        for (int row = 0; row < 6; row++) {
            int n = (int)(rng % 40);
            for (int i = 0; i < n; i++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                unsigned reg = (unsigned)(rng % 64), kind = (unsigned)(rng >> 20) % 4, k = (unsigned)(rng >> 30) % 50;
                if (kind == 0)
                    prog[np++] = 0x07, prog[np++] = (uint8_t)reg, model[reg] = 0;
                else if (kind == 1)
                    prog[np++] = (uint8_t)(0xc0 | (reg & 0x3f)), model[reg & 0x3f] = cie_model[reg & 0x3f];
                else
                    prog[np++] = (uint8_t)(0x80 | reg), prog[np++] = (uint8_t)k, model[reg] = (int8_t)(2 + k);
            }
            memcpy(at_row[rows++], model, sizeof model);
            prog[np++] = 0x41; /* advance_loc 1: the row ends */
        }
        fx x;
        assert_int_equal(open_fx(&x, init, ni, prog, np), CUDW_OK);
        cudw_cfa_row r;
        for (int row = 0; row <= rows; row++) {
            assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_OK);
            const int8_t *m = at_row[row < rows ? row : rows - 1];
            size_t want = 0;
            for (unsigned reg = 0; reg < 100; reg++)
                want += m[reg] >= 0;
            assert_int_equal(r.nrules, want);
            for (size_t i = 0; i < r.nrules; i++) {
                const cudw_cfa_rule *q = &r.rules[i];
                if (i)
                    assert_true(r.rules[i - 1].reg < q->reg);
                int8_t w = m[q->reg];
                assert_true(w >= 0);
                if (w == 0)
                    assert_int_equal(q->kind, CUDW_RULE_UNDEFINED);
                else if (w == 1)
                    assert_int_equal(q->kind, CUDW_RULE_SAME);
                else
                    assert_int_equal(q->offset, -4 * (w - 2));
            }
        }
        assert_int_equal(cudw_cfa_rows_next(x.rows, &r), CUDW_DONE);
        close_fx(&x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table),
        cmocka_unit_test(bounds),
        cmocka_unit_test(rules_in_any_order),
    };
    return run_group("frame", tests);
}
