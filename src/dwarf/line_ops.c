/* Rows -> line-program opcodes, as ptxas chooses them (the first of the
 * writers' two layers; line_write.c turns the opcodes into bytes).
 *
 * Per sequence (rows up to and including an end_sequence row):
 *   DW_LNE_set_address        the first row's address (its symbol + addend)
 *   per row, in this order, each only when it changes:
 *     (0x90                   here instead of below for a row with ctx_first)
 *     DW_LNS_set_file         always on a sequence's first row (and again,
 *                             unchanged, for a row with file_again)
 *     0x92 1 / 0x92 0         Mercury: before a function's entry row, and
 *                             right after that row (0x92 0 after the next
 *                             row's set_file when it has file_first)
 *     0x90 context function   NVIDIA's inlined call
 *   then the advance:
 *     a special opcode        when the address advances (never for 0) and
 *                             0 <= dline - line_base < line_range and the
 *                             opcode fits a byte
 *     DW_LNS_advance_line     when dline != 0 or the address does not
 *                             advance (then "advance_line 0")
 *     DW_LNS_advance_pc       when daddr != 0
 *     DW_LNS_copy
 *   end_sequence row: advance_pc when daddr != 0, then DW_LNE_end_sequence.
 * Stage 1's rows also carry how ptxas wrote what is not a row: a lone
 * advance_pc (hidden 1) and a 0x90 replaced before any row (hidden 2).
 * The rules are ptxas 13.0's, established by re-encoding every line
 * program of the corpus (docs/line-encoding.md). */
#include "../internal.h"

#include <stdio.h>
#include <stdlib.h>

int line_special_op(const cudw_line_params *p, int64_t dline, uint64_t daddr)
{
    /* in the window, compared without forming dline - line_base: that
     * overflows for an advance near INT64_MAX; never without both advances */
    if (!daddr || !dline || daddr > 255 || dline < p->line_base ||
        dline >= (int64_t)p->line_base + (int64_t)p->line_range)
        return -1;
    uint64_t op = (uint64_t)(dline - p->line_base) + (uint64_t)p->line_range * daddr + p->opcode_base;
    return op <= 255 ? (int)op : -1;
}

static cudw_line_op *push(lop_vec *o, uint8_t kind, uint8_t opcode)
{
    cudw_line_op *v = vec_room(o->v, &o->cap, o->n, sizeof *v, 256);
    if (!v) {
        o->oom = 1;
        return NULL;
    }
    o->v = v;
    v = &o->v[o->n++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->opcode = opcode;
    return v;
}

static void op_std(lop_vec *o, uint8_t opcode, uint64_t u)
{
    cudw_line_op *v = push(o, CUDW_LOP_STANDARD, opcode);
    if (v)
        v->u = u;
}

static void op_advance_line(lop_vec *o, int64_t d)
{
    cudw_line_op *v = push(o, CUDW_LOP_STANDARD, CUDW_DW_LNS_advance_line);
    if (v)
        v->s = d;
}

static void op_inlined_call(lop_vec *o, uint64_t ctx, uint64_t fn)
{
    cudw_line_op *v = push(o, CUDW_LOP_EXTENDED, CUDW_LNE_INLINED_CALL);
    if (v) {
        v->u = ctx;
        v->u2 = fn;
    }
}

static void op_merc_entry(lop_vec *o, uint8_t flag)
{
    cudw_line_op *v = push(o, CUDW_LOP_EXTENDED, CUDW_LNE_MERC_ENTRY);
    if (v)
        v->u = flag;
}

/* The registers as the opcodes so far leave them. */
typedef struct lstate {
    const cudw_line_params *p;
    int start;                 /* the next row opens a sequence */
    uint64_t addr, line, file, ctx, fn;
    unsigned flag;             /* a 0x92 1 is open */
    int prev_hidden;
    int stmt;
} lstate;

static void open_sequence(lstate *st, lop_vec *o, const line_wrow *r)
{
    cudw_line_op *v = push(o, CUDW_LOP_EXTENDED, CUDW_DW_LNE_set_address);
    if (v) {
        v->u = r->address;
        v->symbol = r->symbol;
        v->symbol_value = r->symbol_value;
    }
    st->addr = r->address;
    st->line = 1;
    st->file = UINT64_MAX; /* ptxas opens every sequence with set_file */
    st->ctx = st->fn = 0;
    st->flag = 0;
    st->stmt = st->p->default_is_stmt != 0;
    st->start = 0;
}

static void context(lstate *st, lop_vec *o, const line_wrow *r)
{
    if (r->context != st->ctx || r->function_offset != st->fn) {
        op_inlined_call(o, r->context, r->function_offset);
        st->ctx = r->context;
        st->fn = r->function_offset;
    }
}

/* What goes before a row's advance: the 0x92 0 closing an entry row, a
 * 0x90 ptxas wrote first, the set_file. */
static void before_row(lstate *st, lop_vec *o, const line_wrow *r)
{
    /* the 0x92 0 of an entry row goes out with the next row, before its
     * set_file -- after it when the row says so (file_first); an end
     * (never from ptxas, kept so decode(encode) holds) has its set_file
     * first */
    if (st->flag && !r->end_sequence && !(r->file != st->file && r->file_first)) {
        op_merc_entry(o, 0);
        st->flag = 0;
    }
    if (r->ctx_first && !r->end_sequence && r->hidden != 2) {
        if (r->pre_file && r->pre_file != st->file) {
            op_std(o, CUDW_DW_LNS_set_file, r->pre_file);
            st->file = r->pre_file;
        }
        context(st, o, r);
    }
    if (r->file != st->file || r->file_again) {
        op_std(o, CUDW_DW_LNS_set_file, r->file);
        st->file = r->file;
    }
    if (st->flag) {
        op_merc_entry(o, 0);
        st->flag = 0;
    }
}

static void end_sequence(lstate *st, lop_vec *o, const line_wrow *r, uint64_t daddr)
{
    /* ptxas's end rows only advance the address; other rows handed to us
     * may also change the context or the line (kept, so decode(encode)
     * holds), and a lone advance right before needs something between it
     * and the end, or it would read as the end's own advance */
    context(st, o, r);
    int64_t dl = (int64_t)(r->line - st->line);
    if (dl || (st->prev_hidden && !daddr))
        op_advance_line(o, dl);
    if (daddr)
        op_std(o, CUDW_DW_LNS_advance_pc, daddr);
    push(o, CUDW_LOP_EXTENDED, CUDW_DW_LNE_end_sequence);
    st->start = 1;
    st->prev_hidden = 0;
}

/* A 0x90 the next one replaces before any row (hidden 2). */
static int dead_context(lstate *st, lop_vec *o, const line_wrow *r, size_t i, cudw_error *err)
{
    if (r->line != st->line) { /* never from ptxas (its lone 0x90 keeps the line) */
        op_advance_line(o, (int64_t)(r->line - st->line));
        st->line = r->line;
    }
    /* an address it moved to without a lone advance (which would read as
     * a row of its own): DW_LNS_fixed_advance_pc, 64 KiB at a time -- so
     * not across more than 16 MiB (a fuzzed table asked for 2^40 bytes) */
    if (r->address - st->addr > (uint64_t)0xffff * 256)
        return err_set(err, CUDW_E_ARG, "<rows>", i, "line row",
                       "row %zu: a replaced 0x90 %llu bytes past the row before it: more than "
                       "DW_LNS_fixed_advance_pc can carry in 256 opcodes",
                       i, (unsigned long long)(r->address - st->addr));
    for (uint64_t d = r->address - st->addr; d; d -= d > 0xffff ? 0xffff : d)
        op_std(o, CUDW_DW_LNS_fixed_advance_pc, d > 0xffff ? 0xffff : d);
    st->addr = r->address;
    op_inlined_call(o, r->context, r->function_offset);
    st->ctx = UINT64_MAX; /* the next row writes its 0x90 again, even the same one */
    st->fn = r->function_offset;
    return CUDW_OK;
}

/* A row's advance: a special opcode, or advance_line / advance_pc / copy. */
static void advance(lstate *st, lop_vec *o, const line_wrow *r, uint64_t daddr)
{
    if ((r->is_stmt != 0) != st->stmt) {
        push(o, CUDW_LOP_STANDARD, CUDW_DW_LNS_negate_stmt); /* ptxas never needs it, rows may */
        st->stmt = !st->stmt;
    }
    int64_t dline = (int64_t)(r->line - st->line);
    int special = line_special_op(st->p, dline, daddr);
    if (special >= 0) {
        push(o, CUDW_LOP_SPECIAL, (uint8_t)special);
    } else {
        /* ptxas advances something before every copy: a duplicate row (no
         * address advance, same line) gets "advance_line 0" */
        if (dline || !daddr)
            op_advance_line(o, dline);
        if (daddr)
            op_std(o, CUDW_DW_LNS_advance_pc, daddr);
        push(o, CUDW_LOP_STANDARD, CUDW_DW_LNS_copy);
    }
    st->addr = r->address;
    st->line = r->line;
}

/* A lone advance_pc no row follows (hidden 1): a same-line instruction
 * ptxas did not copy. */
static void lone_advance(lstate *st, lop_vec *o, const line_wrow *r, uint64_t daddr)
{
    int64_t hl = (int64_t)(r->line - st->line);
    if (hl) { /* never from ptxas; keeps decode(encode(rows)) == rows */
        op_advance_line(o, hl);
        st->line = r->line;
    }
    /* even an advance of 0 (a first row of a sequence): a lone advance_pc */
    op_std(o, CUDW_DW_LNS_advance_pc, daddr);
    st->addr = r->address;
}

int line_rows_to_ops(const cudw_line_params *p, const line_wrow *rows, size_t n, lop_vec *o, cudw_error *err)
{
    lstate st = {.p = p, .start = 1, .line = 1, .file = 1};
    for (size_t i = 0; i < n && !o->oom; i++) {
        const line_wrow *r = &rows[i];
        if (st.start)
            open_sequence(&st, o, r);
        if (r->address < st.addr)
            return err_set(err, CUDW_E_ARG, "<rows>", i, "line row",
                           "row %zu: address 0x%llx is below the previous row's 0x%llx (a sequence ascends)", i,
                           (unsigned long long)r->address, (unsigned long long)st.addr);
        uint64_t daddr = (r->address - st.addr) / p->min_inst_length;
        before_row(&st, o, r);
        if (r->end_sequence) {
            end_sequence(&st, o, r, daddr);
            continue;
        }
        if (r->hidden == 2) {
            int rc = dead_context(&st, o, r, i, err);
            if (rc)
                return rc;
            continue;
        }
        st.prev_hidden = r->hidden;
        if (r->merc_flag && !r->hidden) { /* Mercury: 0x92 1 before the entry row, 0x92 0 with the next */
            op_merc_entry(o, r->merc_flag);
            st.flag = r->merc_flag;
        }
        context(&st, o, r);
        if (r->hidden)
            lone_advance(&st, o, r, daddr);
        else
            advance(&st, o, r, daddr);
    }
    return o->oom ? err_set(err, CUDW_E_NOMEM, "<rows>", 0, "line row", "out of memory") : CUDW_OK;
}

/* Both layers over rows given as stage 1 or the public API holds them. */
int line_encode_wrows(const cudw_line_params *p, const cudw_line_header_in *h, const line_wrow *rows, size_t n,
                      cudw_line_out *out)
{
    memset(out, 0, sizeof *out);
    int rc = line_params_check(p, out);
    if (rc)
        return rc;
    lop_vec o = {0};
    rc = line_rows_to_ops(p, rows, n, &o, &out->err); /* an error's offset: the row's index */
    if (rc == CUDW_OK)
        rc = cudw_line_encode_ops(p, h, o.v, o.n, out);
    free(o.v);
    return rc;
}

static void to_wrow(line_wrow *w, const cudw_line_row *r)
{
    *w = (line_wrow){.address = r->address, .symbol = r->symbol, .symbol_value = r->symbol_value,
                     .symtab = r->symtab, .file = r->file, .line = r->line, .is_stmt = r->is_stmt,
                     .end_sequence = r->end_sequence, .merc_flag = r->merc_flag, .context = r->context,
                     .function_offset = r->function_offset, .index = r->index};
}

int cudw_line_encode(const cudw_line_params *p, const cudw_line_header_in *h, const cudw_line_row *rows,
                     size_t n, cudw_line_out *out)
{
    line_wrow *w = malloc((n ? n : 1) * sizeof *w);
    if (!w) {
        memset(out, 0, sizeof *out);
        return err_set(&out->err, CUDW_E_NOMEM, "<rows>", 0, "line row", "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        to_wrow(&w[i], &rows[i]);
    int rc = line_encode_wrows(p, h, w, n, out);
    free(w);
    return rc;
}
