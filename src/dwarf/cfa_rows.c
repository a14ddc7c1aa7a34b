/* The call-frame table an FDE describes (DWARF 3, 6.4.1): run the CIE's
 * initial instructions, then the FDE's; every advance ends a row.
 *
 * State: the CFA rule and one rule per register that has one, sorted by
 * register number (CUDA register numbers are class << 24 | index, far too
 * sparse for a dense array; ptxas describes about 400 of them).  A rule
 * set out of order is appended and merged in when the rules are next
 * read: ptxas's CIEs name R0..R255 after the UR registers, and inserting
 * each in place moved the whole UR block 256 times per FDE (a fifth of
 * `dump --frames`; quadratic in a hostile CIE).
 * DW_CFA_remember_state pushes a copy; the copies are bounded
 * (CFA_STACK_MAX deep, CFA_WORK_MAX rules copied in all) so a hostile
 * program cannot make the walk quadratic or unbounded: hitting a bound is
 * CUDW_E_LIMIT.  DW_CFA_set_loc takes its operand as written (ptxas never
 * emits it). */
#include "../internal.h"

#include <stdlib.h>

#define CFA_STACK_MAX 64
#define CFA_WORK_MAX (1u << 24)

typedef struct cfa_state {
    cudw_cfa_rule *rules;
    size_t n, cap;
    size_t sorted;  /* rules[0, sorted) are sorted and unique; the rest were
                       set since, in order (st_norm merges them) */
    int cfa_is_expr;
    uint64_t cfa_reg;
    int64_t cfa_offset;
    const uint8_t *cfa_expr;
    uint64_t cfa_expr_len;
} cfa_state;

struct cudw_cfa_rows {
    cudw_file *f;
    const cudw_section *sec;
    const cudw_cfa_entry *fde;
    uint64_t code_align;
    int64_t data_align;
    uint8_t addr_size;
    cfa_state cur, init;
    cfa_state stack[CFA_STACK_MAX];
    unsigned depth;
    uint64_t work;
    uint64_t pos;          /* in the FDE's program */
    uint64_t address;      /* of the row being built */
    uint64_t end;          /* of the FDE's range */
    int done;
};

static int st_copy(cfa_state *dst, const cfa_state *src)
{
    if (dst->cap < src->n) {
        size_t c = src->n < 16 ? 16 : src->n;
        cudw_cfa_rule *r = realloc(dst->rules, c * sizeof *r);
        if (!r)
            return -1;
        dst->rules = r;
        dst->cap = c;
    }
    if (src->n)
        memcpy(dst->rules, src->rules, src->n * sizeof *src->rules);
    cudw_cfa_rule *keep = dst->rules;
    size_t cap = dst->cap;
    *dst = *src; /* n, sorted and the CFA rule */
    dst->rules = keep;
    dst->cap = cap;
    return 0;
}

/* index of reg, or where it would go */
static size_t st_find(const cfa_state *s, uint64_t reg, int *found)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->rules[mid].reg < reg)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < s->n && s->rules[lo].reg == reg;
    return lo;
}

static int st_grow(cfa_state *s)
{
    cudw_cfa_rule *q = vec_room(s->rules, &s->cap, s->n, sizeof *q, 64);
    if (!q)
        return -1;
    s->rules = q;
    return 0;
}

static int st_set(cfa_state *s, const cudw_cfa_rule *r)
{
    if (s->sorted == s->n) {
        int found;
        size_t at = st_find(s, r->reg, &found);
        if (found) {
            s->rules[at] = *r;
            return 0;
        }
        if (st_grow(s))
            return -1;
        s->rules[s->n++] = *r;
        if (at == s->n - 1) /* in order: still sorted */
            s->sorted = s->n;
        return 0;
    }
    if (st_grow(s))
        return -1;
    s->rules[s->n++] = *r;
    return 0;
}

typedef struct tail_key {
    uint64_t reg;
    size_t at;
} tail_key;

static int by_reg_then_at(const void *a, const void *b)
{
    const tail_key *x = a, *y = b;
    if (x->reg != y->reg)
        return x->reg < y->reg ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Merge the rules set out of order into the sorted ones (a later rule for a
 * register replaces an earlier one).  *work counts the rules moved. */
static int st_norm(cfa_state *s, uint64_t *work)
{
    if (s->sorted == s->n)
        return 0;
    size_t t = s->n - s->sorted;
    *work += s->n;
    tail_key *k = malloc(t * sizeof *k);
    cudw_cfa_rule *m = malloc(s->n * sizeof *m);
    if (!k || !m) {
        free(k);
        free(m);
        return -1;
    }
    for (size_t i = 0; i < t; i++)
        k[i] = (tail_key){s->rules[s->sorted + i].reg, s->sorted + i};
    qsort(k, t, sizeof *k, by_reg_then_at);
    size_t a = 0, b = 0, n = 0;
    while (a < s->sorted || b < t) {
        if (b < t && b + 1 < t && k[b + 1].reg == k[b].reg) { /* a later one wins */
            b++;
            continue;
        }
        if (b == t || (a < s->sorted && s->rules[a].reg < k[b].reg)) {
            m[n++] = s->rules[a++];
        } else {
            if (a < s->sorted && s->rules[a].reg == k[b].reg)
                a++; /* replaced */
            m[n++] = s->rules[k[b++].at];
        }
    }
    free(k);
    free(s->rules);
    s->rules = m;
    s->cap = s->n;
    s->n = s->sorted = n;
    return 0;
}

/* s must be merged (st_norm) */
static void st_drop(cfa_state *s, uint64_t reg)
{
    int found;
    size_t at = st_find(s, reg, &found);
    if (found) {
        memmove(s->rules + at, s->rules + at + 1, (s->n - at - 1) * sizeof *s->rules);
        s->sorted = --s->n; /* (dropped from merged rules only) */
    }
}

static int fail_at(cudw_cfa_rows *r, const cudw_cfa_entry *e, uint64_t op_off, int code, const char *fmt, ...)
    CUDW_PRINTF(5, 6);
static int fail_at(cudw_cfa_rows *r, const cudw_cfa_entry *e, uint64_t op_off, int code, const char *fmt, ...)
{
    if (!r->f)
        return code;
    va_list ap;
    va_start(ap, fmt);
    err_vset(&r->f->err, code, r->sec ? r->sec->name : NULL, e->instructions_offset + op_off,
             "call-frame instruction", fmt, ap);
    va_end(ap);
    return code;
}

/* st_norm, with the work it costs counted against the bound. */
static int norm(cudw_cfa_rows *r, const cudw_cfa_entry *e, uint64_t op_off, cfa_state *s)
{
    if (st_norm(s, &r->work))
        return CUDW_E_NOMEM;
    if (r->work > CFA_WORK_MAX)
        return fail_at(r, e, op_off, CUDW_E_LIMIT, "more than %u register rules reordered", CFA_WORK_MAX);
    return 0;
}

/* Apply one instruction to r->cur.  *advance receives the address delta of
 * an advance (or ~0 for none). */
static int apply(cudw_cfa_rows *r, const cudw_cfa_entry *e, const cudw_cfa_op *op, uint64_t *advance)
{
    cfa_state *s = &r->cur;
    cudw_cfa_rule rule = {.reg = op->reg};
    int rc;
    *advance = UINT64_MAX;
    switch (op->op) {
    case CUDW_DW_CFA_advance_loc:
    case CUDW_DW_CFA_advance_loc1:
    case CUDW_DW_CFA_advance_loc2:
    case CUDW_DW_CFA_advance_loc4: /* advance_loc[1,2,4] */
        *advance = (uint64_t)mul_wrap((int64_t)op->u, (int64_t)r->code_align);
        return 0;
    case CUDW_DW_CFA_set_loc:
        if (op->u < r->address)
            return fail_at(r, e, op->offset, CUDW_E_BAD_OFFSET, "DW_CFA_set_loc 0x%llx moves backwards",
                           (unsigned long long)op->u);
        *advance = op->u - r->address;
        return 0;
    case CUDW_DW_CFA_nop: case CUDW_DW_CFA_GNU_args_size:
        return 0;
    case CUDW_DW_CFA_offset:
    case CUDW_DW_CFA_offset_extended: /* offset, offset_extended: value at CFA + N*data_align */
        rule.kind = CUDW_RULE_OFFSET;
        rule.offset = mul_wrap((int64_t)op->u, r->data_align);
        break;
    case CUDW_DW_CFA_offset_extended_sf:
        rule.kind = CUDW_RULE_OFFSET;
        rule.offset = mul_wrap(op->s, r->data_align);
        break;
    case CUDW_DW_CFA_GNU_negative_offset_extended:
        rule.kind = CUDW_RULE_OFFSET;
        rule.offset = mul_wrap(-(int64_t)op->u, r->data_align);
        break;
    case CUDW_DW_CFA_val_offset:
        rule.kind = CUDW_RULE_VAL_OFFSET;
        rule.offset = mul_wrap((int64_t)op->u, r->data_align);
        break;
    case CUDW_DW_CFA_val_offset_sf:
        rule.kind = CUDW_RULE_VAL_OFFSET;
        rule.offset = mul_wrap(op->s, r->data_align);
        break;
    case CUDW_DW_CFA_restore: case CUDW_DW_CFA_restore_extended: { /* restore, restore_extended: the CIE's rule */
        int found;
        size_t at = st_find(&r->init, op->reg, &found);
        if (found)
            return st_set(s, &r->init.rules[at]) ? CUDW_E_NOMEM : 0;
        if ((rc = norm(r, e, op->offset, s)) != 0)
            return rc;
        st_drop(s, op->reg);
        return 0;
    }
    case CUDW_DW_CFA_undefined: rule.kind = CUDW_RULE_UNDEFINED; break;
    case CUDW_DW_CFA_same_value: rule.kind = CUDW_RULE_SAME; break;
    case CUDW_DW_CFA_register:
        rule.kind = CUDW_RULE_REGISTER;
        rule.reg2 = op->u;
        break;
    case CUDW_DW_CFA_expression: case CUDW_DW_CFA_val_expression:
        rule.kind = op->op == CUDW_DW_CFA_expression ? CUDW_RULE_EXPRESSION : CUDW_RULE_VAL_EXPRESSION;
        rule.expr = op->block;
        rule.expr_len = op->block_len;
        break;
    case CUDW_DW_CFA_remember_state:
        if (r->depth == CFA_STACK_MAX)
            return fail_at(r, e, op->offset, CUDW_E_LIMIT, "DW_CFA_remember_state nested deeper than %d",
                           CFA_STACK_MAX);
        r->work += s->n;
        if (r->work > CFA_WORK_MAX)
            return fail_at(r, e, op->offset, CUDW_E_LIMIT, "more than %u register rules saved by "
                           "DW_CFA_remember_state", CFA_WORK_MAX);
        return st_copy(&r->stack[r->depth++], s) ? CUDW_E_NOMEM : 0;
    case CUDW_DW_CFA_restore_state:
        if (!r->depth)
            return fail_at(r, e, op->offset, CUDW_E_BAD_OFFSET, "DW_CFA_restore_state with no state saved");
        r->work += r->stack[r->depth - 1].n;
        if (r->work > CFA_WORK_MAX)
            return fail_at(r, e, op->offset, CUDW_E_LIMIT, "more than %u register rules restored by "
                           "DW_CFA_restore_state", CFA_WORK_MAX);
        return st_copy(s, &r->stack[--r->depth]) ? CUDW_E_NOMEM : 0;
    case CUDW_DW_CFA_def_cfa:
        s->cfa_is_expr = 0;
        s->cfa_reg = op->reg;
        s->cfa_offset = (int64_t)op->u;
        return 0;
    case CUDW_DW_CFA_def_cfa_sf:
        s->cfa_is_expr = 0;
        s->cfa_reg = op->reg;
        s->cfa_offset = mul_wrap(op->s, r->data_align);
        return 0;
    case CUDW_DW_CFA_def_cfa_register:
        s->cfa_is_expr = 0;
        s->cfa_reg = op->reg;
        return 0;
    case CUDW_DW_CFA_def_cfa_offset:
        s->cfa_offset = (int64_t)op->u;
        return 0;
    case CUDW_DW_CFA_def_cfa_offset_sf:
        s->cfa_offset = mul_wrap(op->s, r->data_align);
        return 0;
    case CUDW_DW_CFA_def_cfa_expression:
        s->cfa_is_expr = 1;
        s->cfa_expr = op->block;
        s->cfa_expr_len = op->block_len;
        return 0;
    default:
        return fail_at(r, e, op->offset, CUDW_E_BAD_EXPR, "unknown call-frame instruction 0x%02x",
                           (unsigned)op->op);
    }
    return st_set(s, &rule) ? CUDW_E_NOMEM : 0;
}

/* Record a failure of cudw_cfa_op_next (which returns bare codes) or an
 * allocation failure of apply; apply records its own decode errors. */
static int record(cudw_cfa_rows *r, const cudw_cfa_entry *e, uint64_t pos, int rc, int from_decoder)
{
    if (rc == CUDW_E_NOMEM)
        return file_fail(r->f, rc, r->sec, e->instructions_offset + pos, "call-frame instruction",
                         "out of memory");
    if (from_decoder)
        return file_fail(r->f, rc, r->sec, e->instructions_offset + pos, "call-frame instruction",
                         rc == CUDW_E_TRUNCATED ? "operand runs past the end of the entry"
                                                : "unknown or malformed instruction");
    return rc;
}

int cudw_cfa_rows_open(cudw_file *f, const cudw_section *sec, uint8_t addr_size, const cudw_cfa_entry *cie,
                       const cudw_cfa_entry *fde, cudw_cfa_rows **out)
{
    *out = NULL;
    if (!cie || !cie->is_cie || (fde && fde->is_cie) || (addr_size != 4 && addr_size != 8))
        return file_fail(f, CUDW_E_ARG, sec, fde ? fde->offset : 0, "FDE", "need a CIE, an FDE or NULL, "
                         "address size 4 or 8");
    cudw_cfa_rows *r = calloc(1, sizeof *r);
    if (!r)
        return file_fail(f, CUDW_E_NOMEM, sec, cie->offset, "CIE", "out of memory");
    r->f = f;
    r->sec = sec;
    r->fde = fde;
    r->code_align = cie->code_align;
    r->data_align = cie->data_align;
    r->addr_size = addr_size;
    r->done = !fde; /* only the CIE's rules */
    if (fde) {
        r->address = fde->initial_location;
        r->end = fde->initial_location + fde->address_range;
    }
    /* the CIE's initial instructions give the starting rules; an advance
     * among them moves nothing (there is no row before the FDE's) */
    uint64_t pos = 0, adv;
    cudw_cfa_op op;
    int rc;
    for (;;) {
        rc = cudw_cfa_op_next(cie->instructions, cie->instructions_length, addr_size, &pos, &op);
        if (rc == CUDW_DONE)
            break;
        if (rc < 0) {
            rc = record(r, cie, pos, rc, 1);
            break;
        }
        if ((rc = apply(r, cie, &op, &adv)) != 0) {
            rc = record(r, cie, op.offset, rc, 0);
            break;
        }
    }
    if (rc == CUDW_DONE) {
        rc = norm(r, cie, pos, &r->cur);
        if (!rc && st_copy(&r->init, &r->cur))
            rc = CUDW_E_NOMEM;
        rc = rc ? record(r, cie, pos, rc, 0) : CUDW_OK;
    }
    if (rc < 0) {
        cudw_cfa_rows_close(r);
        return rc;
    }
    *out = r;
    return CUDW_OK;
}

static void fill(const cudw_cfa_rows *r, uint64_t end, cudw_cfa_row *row)
{
    const cfa_state *s = &r->cur;
    *row = (cudw_cfa_row){
        .address = r->address, .end = end, .cfa_is_expr = s->cfa_is_expr, .cfa_reg = s->cfa_reg,
        .cfa_offset = s->cfa_offset, .cfa_expr = s->cfa_expr, .cfa_expr_len = s->cfa_expr_len,
        .rules = s->rules, .nrules = s->n,
    };
}

int cudw_cfa_rows_next(cudw_cfa_rows *r, cudw_cfa_row *row)
{
    if (r->done)
        return CUDW_DONE;
    const cudw_cfa_entry *e = r->fde;
    cudw_cfa_op op;
    uint64_t adv;
    int rc;
    for (;;) {
        rc = cudw_cfa_op_next(e->instructions, e->instructions_length, r->addr_size, &r->pos, &op);
        if (rc == CUDW_DONE) {
            /* the last row runs to the end of the range */
            if ((rc = norm(r, e, r->pos, &r->cur)) != 0)
                return record(r, e, r->pos, rc, 0);
            r->done = 1;
            fill(r, r->end > r->address ? r->end : r->address, row);
            return CUDW_OK;
        }
        if (rc < 0)
            return record(r, e, r->pos, rc, 1);
        if ((rc = apply(r, e, &op, &adv)) != 0)
            return record(r, e, op.offset, rc, 0);
        if (adv != UINT64_MAX && adv != 0) {
            if ((rc = norm(r, e, op.offset, &r->cur)) != 0)
                return record(r, e, op.offset, rc, 0);
            fill(r, r->address + adv, row);
            /* the rules row points at stay valid: the next call changes
             * them only after the caller is done with this row */
            r->address += adv;
            return CUDW_OK;
        }
    }
}

const cudw_cfa_rule *cudw_cfa_rows_initial(const cudw_cfa_rows *r, size_t *n)
{
    *n = r->init.n;
    return r->init.rules;
}

void cudw_cfa_rows_close(cudw_cfa_rows *r)
{
    if (!r)
        return;
    free(r->cur.rules);
    free(r->init.rules);
    for (unsigned i = 0; i < CFA_STACK_MAX; i++)
        free(r->stack[i].rules);
    free(r);
}
