/* Line programs: the raw opcodes (cudw_line_op_next) and the rows the
 * state machine makes of them (cudw_line_next): one decoder, two views.
 * The header and its layout: line_header.c. */
#include "line.h"

#include "../elf/cursor.h"

#include <stdlib.h>

static int op_fail(const cudw_line_table *t, uint64_t at, int rc, const char *what)
{
    return file_fail(t->file, rc, t->section, at, "line program", "%s%s", what,
                     rc == CUDW_E_TRUNCATED ? " runs past the end of the table"
                     : rc == CUDW_E_LEB_OVERFLOW ? ": LEB128 does not fit 64 bits" : "");
}

int cudw_line_op_next(const cudw_line_table *t, uint64_t *ppos, cudw_line_op *o)
{
    uint64_t at = *ppos;
    if (at >= t->end)
        return CUDW_DONE;
    /* a cursor over the table's bytes, recording nothing: an error here is
     * reported at the opcode's offset, as the row machine reports it */
    const uint8_t *d = t->section->data;
    uint8_t op = d[at];
    o->offset = at;
    o->opcode = op;
    o->reloc = NULL;
    o->symbol = NULL;
    o->symbol_value = 0;
    o->raw = NULL;
    o->raw_len = o->ext_len = o->u = o->u2 = o->addr_adv = 0;
    o->s = o->line_adv = 0;
    if (op >= t->opcode_base) { /* most opcodes: no operand */
        unsigned adj = op - t->opcode_base;
        o->kind = CUDW_LOP_SPECIAL;
        o->addr_adv = (uint64_t)(adj / t->line_range) * t->min_inst_length;
        o->line_adv = t->line_base + (int)(adj % t->line_range);
        o->size = 1;
        *ppos = at + 1;
        return CUDW_OK;
    }
    cur_t c = cur_raw(d, t->end);
    c.p += at + 1;
    int rc;
    if (op != 0) {
        o->kind = CUDW_LOP_STANDARD;
        switch (op) {
        case CUDW_DW_LNS_copy: case CUDW_DW_LNS_negate_stmt: case CUDW_DW_LNS_set_basic_block:
            break;
        case CUDW_DW_LNS_const_add_pc:
            o->addr_adv = (uint64_t)((255 - t->opcode_base) / t->line_range) * t->min_inst_length;
            break;
        case CUDW_DW_LNS_advance_line:
            if ((rc = cur_sleb(&c, NULL, &o->s)))
                return op_fail(t, at, rc, "DW_LNS_advance_line operand");
            break;
        case CUDW_DW_LNS_fixed_advance_pc: /* u16 */
            if ((rc = cur_un(&c, 2, NULL, &o->u)))
                return op_fail(t, at, rc, "DW_LNS_fixed_advance_pc operand");
            break;
        default: /* advance_pc, set_file, set_column: one ULEB; others: as the header says */
            for (unsigned k = 0; k < t->std_opcode_lengths[op - 1]; k++) {
                uint64_t v;
                if ((rc = cur_uleb(&c, NULL, &v)))
                    return op_fail(t, at, rc, "standard opcode operand");
                if (k == 0)
                    o->u = v;
            }
            if (op == CUDW_DW_LNS_advance_pc)
                o->addr_adv = o->u * t->min_inst_length;
        }
    } else {
        o->kind = CUDW_LOP_EXTENDED;
        uint64_t len;
        if ((rc = cur_uleb(&c, NULL, &len)))
            return op_fail(t, at, rc, "extended opcode length");
        if (len == 0 || len > cur_left(&c))
            return file_fail(t->file, len ? CUDW_E_TRUNCATED : CUDW_E_BAD_OFFSET, t->section, at, "line program",
                             "extended opcode length %llu %s", (unsigned long long)len,
                             len ? "runs past the end of the table" : "leaves no room for the sub-opcode");
        o->ext_len = len;
        /* the operands: a cursor over the len bytes after the sub-opcode */
        cur_t x = cur_make(t->file, t->section, cur_off(&c) + 1, cur_off(&c) + len, "line program");
        o->opcode = *c.p;
        o->raw = x.p;
        o->raw_len = len - 1;
        switch (o->opcode) {
        case CUDW_DW_LNE_set_address: /* the operand fills the rest */
            if (len - 1 != 8 && len - 1 != 4)
                return file_fail(t->file, CUDW_E_BAD_OFFSET, t->section, at, "line program",
                                 "DW_LNE_set_address with a %llu-byte operand", (unsigned long long)(len - 1));
            (void)cur_field(&x, (unsigned)(len - 1), "DW_LNE_set_address", &o->u, &o->reloc); /* len fits */
            if (o->reloc) {
                o->symbol = o->reloc->sym_name;
                o->symbol_value = o->reloc->sym_value;
            }
            break;
        case CUDW_DW_LNE_NVIDIA_inlined_call:
            x.f = NULL; /* reported at the opcode, below */
            if ((rc = cur_uleb(&x, NULL, &o->u)) || (rc = cur_uleb(&x, NULL, &o->u2)))
                return op_fail(t, at, rc, "DW_LNE 0x90 operand");
            break;
        case CUDW_DW_LNE_NVIDIA_set_function_name:
        case CUDW_DW_LNE_set_discriminator:
            x.f = NULL;
            if ((rc = cur_uleb(&x, NULL, &o->u)))
                return op_fail(t, at, rc, "extended opcode operand");
            break;
        case CUDW_DW_LNE_NVIDIA_0x92:
            o->u = len > 1 ? *x.p : 0;
            break;
        default: /* end_sequence, define_file, unknown: kept as raw bytes */
            break;
        }
        c.p += len;
    }
    const uint8_t *p = c.p;
    o->size = (uint64_t)(p - (d + at));
    *ppos = at + o->size;
    return CUDW_OK;
}

static void reset(cudw_line_iter *it)
{
    const cudw_line_table *t = it->table;
    memset(&it->state, 0, sizeof it->state);
    it->state.file = 1;
    it->state.line = 1;
    it->state.is_stmt = t->default_is_stmt != 0;
    it->symbol = NULL;
    it->symbol_value = 0;
    it->symtab = 0;
    it->nseq = 0;
    it->seq_pos = it->pos;
    it->keeping = 0;
    it->prev_valid = 0;
    it->seq_shndx = -1;
}

/* a function starts at addr: the sequence's own, or one placed in its section */
static int callee_entry(const cudw_line_iter *it, uint64_t addr)
{
    if (it->seq_shndx < 0 || !it->symtab)
        return 0;
    if (addr == it->symbol_value)
        return 1;
    const func_starts *fs = func_starts_of(it->table->file, it->symtab);
    size_t n;
    const func_start *v = fs ? func_starts_in(fs, (uint32_t)it->seq_shndx, &n) : NULL;
    return v && func_start_find(v, n, addr) != SIZE_MAX;
}

void cudw_line_iter_init(const cudw_line_table *t, cudw_line_iter *it, unsigned flags)
{
    memset(it, 0, sizeof *it);
    it->table = t;
    it->pos = t->program_offset;
    it->flags = flags;
    reset(it);
}

void cudw_line_iter_free(cudw_line_iter *it)
{
    free(it->seq);
    it->seq = NULL;
    it->nseq = it->capseq = 0;
}

const char *cudw_line_function_name(const cudw_line_table *t, uint64_t off)
{
    const cudw_section *s = t->str_section;
    uint64_t at = t->str_base + off;
    if (!s || !s->data || at < off || at >= s->data_size)
        return NULL;
    /* a section that ends in a NUL terminates every string in it: no scan */
    if (s->data[s->data_size - 1] != 0 && !memchr(s->data + at, 0, s->data_size - at))
        return NULL;
    return (const char *)s->data + at;
}

/* Each row is written field by field from the state: a whole-struct copy
 * right after the opcodes' 8-byte stores into the state loads it back in
 * 16-byte pieces, which the CPU cannot forward from those stores (a stall
 * per piece: that copy was most of the decoder's time). */
#if defined(__GNUC__)
/* keeps a value in a general register: the compiler may not merge two
 * 8-byte loads of the state into one 16-byte load (and stall on it) */
#define SCALAR(x) __asm__("" : "+r"(x))
#else
#define SCALAR(x) (void)0
#endif

static inline void put_row(cudw_line_row *d, const cudw_line_row *st, const cudw_line_iter *it, uint64_t index,
                           uint64_t op_offset, const char *fn)
{
    uint64_t address = st->address, file = st->file, line = st->line, column = st->column;
    SCALAR(address);
    SCALAR(file);
    SCALAR(line);
    SCALAR(column);
    d->address = address;
    d->symbol = it->symbol;
    d->symbol_value = it->symbol_value;
    d->symtab = it->symtab;
    d->file = file;
    d->line = line;
    d->column = column;
    d->is_stmt = st->is_stmt;
    d->basic_block = st->basic_block;
    d->end_sequence = st->end_sequence;
    d->merc_flag = st->merc_flag;
    d->context = st->context;
    d->function_offset = st->function_offset;
    d->function = fn;
    d->sequence = st->sequence;
    d->index = index;
    d->op_offset = op_offset;
}

static int keep_from_start(cudw_line_iter *it, uint64_t upto);

/* Whether the row made at op_offset is `advance_line 0; copy`: ptxas's
 * copy of a row at the address of a lone advance (a repeat), where a row
 * of its own would be `advance_pc; copy`. */
static int zero_line_copy(const cudw_line_iter *it, uint64_t op_offset)
{
    const uint8_t *d = it->table->section->data;
    return op_offset >= it->table->program_offset + 2 && d[op_offset] == 1 && d[op_offset - 2] == 3 &&
           d[op_offset - 1] == 0;
}

static int emit(cudw_line_iter *it, cudw_line_row *out, uint64_t op_offset)
{
    cudw_line_row *st = &it->state;
    uint64_t index = st->index + 1;
    const char *fn = NULL;
    /* the entry row ptxas writes again at a callee placed in a kernel's
     * section: not counted (lines.h); when the entry was on the line of
     * the row before it wrote no row, and the repeat is the first row at
     * the entry, in the callee's file (docs/ptx-lines.md, B_ENTRY_REPEAT) */
    int repeat = it->prev_valid && !st->end_sequence && st->line == it->prev_line &&
                 (st->address == it->prev_address ? st->file == it->prev_file
                                                  : st->address > it->prev_address && zero_line_copy(it, op_offset)) &&
                 st->context == it->prev_context && st->function_offset == it->prev_fn &&
                 callee_entry(it, st->address);
    if (repeat)
        index = st->index;
    it->prev_valid = !st->end_sequence;
    it->prev_address = st->address;
    it->prev_line = st->line;
    it->prev_file = st->file;
    it->prev_context = st->context;
    it->prev_fn = st->function_offset;
    if (st->context || st->function_offset) {
        if (!it->fn_known || it->fn_off != st->function_offset) { /* a run of rows shares one name */
            it->fn = cudw_line_function_name(it->table, st->function_offset);
            it->fn_off = st->function_offset;
            it->fn_known = 1;
        }
        fn = it->fn;
    }
    put_row(out, st, it, index, op_offset, fn);
    if ((it->flags & CUDW_LINE_KEEP_SEQUENCE) && !it->keeping && st->context) {
        /* the first inlined row: only now are the rows before it needed */
        int rc = keep_from_start(it, index - 1);
        if (rc)
            return rc;
    }
    if (it->keeping && !repeat) {
        cudw_line_row *n = vec_room(it->seq, &it->capseq, it->nseq, sizeof *n, 256);
        if (!n)
            return file_fail(it->table->file, CUDW_E_NOMEM, it->table->section, op_offset, "line program",
                             "out of memory");
        it->seq = n;
        put_row(&it->seq[it->nseq++], st, it, index, op_offset, fn);
    }
    st->index = index;
    st->op_offset = op_offset;
    st->symbol = it->symbol;
    st->symbol_value = it->symbol_value;
    st->symtab = it->symtab;
    st->function = fn;
    st->basic_block = 0;
    return CUDW_OK;
}

/* One opcode the fast path does not take, by the general decoder: a row
 * (CUDW_OK), SLOW_MORE when the state changed and no row came, or
 * cudw_line_op_next's error or CUDW_DONE.  Out of line: its registers
 * would otherwise be saved on every row. */
#define SLOW_MORE 2 /* not CUDW_OK, CUDW_DONE or an error */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int slow_op(cudw_line_iter *it, cudw_line_row *out)
{
    const cudw_line_table *t = it->table;
    cudw_line_row *st = &it->state;
    cudw_line_op o;
    int rc;
    if ((rc = cudw_line_op_next(t, &it->pos, &o)) != CUDW_OK)
        return rc;
    switch (o.kind) {
    case CUDW_LOP_SPECIAL:
        st->address += o.addr_adv;
        st->line += (uint64_t)o.line_adv;
        return emit(it, out, o.offset);
    case CUDW_LOP_STANDARD:
        switch (o.opcode) {
        case 1: return emit(it, out, o.offset);
        case 2: case 8:
            st->address += o.addr_adv;
            break;
        case 3: st->line += (uint64_t)o.s; break;
        case 4: st->file = o.u; break;
        case 5: st->column = o.u; break;
        case 6: st->is_stmt = !st->is_stmt; break;
        case 7: st->basic_block = 1; break;
        case 9: st->address += o.u; break;
        default: break;
        }
        break;
    default:
        switch (o.opcode) {
        case 1: /* end_sequence */
            st->end_sequence = 1;
            return emit(it, out, o.offset);
        case 2:
            st->address = o.u;
            if (o.reloc) {
                it->symbol = o.reloc->sym_name;
                it->symbol_value = o.reloc->sym_value;
                it->symtab = t->file->secs[o.reloc->reloc_section].link;
                it->seq_shndx = o.reloc->sym_shndx;
            }
            break;
        case CUDW_LNE_INLINED_CALL:
            st->context = o.u;
            st->function_offset = o.u2;
            break;
        case CUDW_LNE_SET_FUNCTION:
            st->function_offset = o.u;
            break;
        case CUDW_LNE_MERC_ENTRY:
            st->merc_flag = (uint8_t)o.u;
            break;
        default:
            break;
        }
    }
    return SLOW_MORE;
}

int cudw_line_next(cudw_line_iter *it, cudw_line_row *out)
{
    const cudw_line_table *t = it->table;
    cudw_line_row *st = &it->state;
    int rc;
    if (st->end_sequence) { /* the previous row ended a sequence */
        uint64_t seq = st->sequence + 1;
        reset(it);
        st->sequence = seq;
    }
    const line_impl *ti = (const line_impl *)t;
    const uint8_t *d = t->section->data, *end = d + t->end;
    const unsigned obase = t->opcode_base;
    const unsigned sstd = ti->short_std; /* the standard opcodes taken in line */
    const uint8_t *p;
    for (;;) {
        /* The fast path, for what fills real tables: special opcodes,
         * copy, advance_pc / advance_line / set_file / set_column with
         * short operands, NVIDIA's inlined call.  The position and the
         * two hottest registers live in locals (stores to the state would
         * otherwise reload everything: a byte load may alias them). */
        p = d + it->pos;
        while (end - p >= 3) {
            unsigned op = p[0];
            /* Conditions that test operand bytes too: GCC turns a plain
             * chain of op == c into a jump table, whose indirect branch
             * predicted the advance_pc, advance_line, copy rhythm of -G
             * tables worse (15% slower). */
            if (op >= obase) {
                st->address += ti->sp_addr[op];
                st->line += (uint64_t)(int64_t)ti->sp_line[op];
                goto row;
            }
            if (op == 1)
                goto row;
            if (op == 2 && (sstd & 4) && !(p[1] & 0x80)) {
                st->address += (uint64_t)p[1] * t->min_inst_length;
                p += 2;
                continue;
            }
            if (op == 3 && !(p[1] & 0x80)) {
                st->line += (uint64_t)((int64_t)(p[1] & 0x3f) - (int64_t)(p[1] & 0x40));
                p += 2;
                continue;
            }
            if (op == 3 && !(p[2] & 0x80)) { /* two bytes: a jump of up to 8191 lines */
                int64_t v = (int64_t)((p[1] & 0x7f) | (p[2] & 0x7f) << 7);
                st->line += (uint64_t)(v - ((v & 0x2000) << 1));
                p += 3;
                continue;
            }
            if (op == 2 && (sstd & 4) && !(p[2] & 0x80)) {
                st->address += ((uint64_t)(p[1] & 0x7f) | (uint64_t)p[2] << 7) * t->min_inst_length;
                p += 3;
                continue;
            }
            if ((op == 4 || op == 5) && (sstd & (1u << op)) && !(p[1] & 0x80)) {
                if (op == 4) /* set_file, set_column */
                    st->file = p[1];
                else
                    st->column = p[1];
                p += 2;
                continue;
            }
            if (op == 0 && p[2] == CUDW_LNE_INLINED_CALL && p[1] >= 3 && p[1] < 0x80 &&
                end - p >= 2 + (ptrdiff_t)p[1]) {
                /* 00 len 90 <context> <function offset>: the operands (the
                 * function is a string offset, often 3 bytes) are read
                 * inside the opcode's length, as cudw_line_op_next does */
                const uint8_t *q = p + 3, *qend = p + 2 + p[1];
                uint64_t ctx, fn;
                if (uleb_in(&q, qend, &ctx) != CUDW_OK || uleb_in(&q, qend, &fn) != CUDW_OK)
                    break;
                st->context = ctx;
                st->function_offset = fn;
                p = qend;
                continue;
            }
            break; /* the general decoder */
        }
        it->pos = (uint64_t)(p - d);
        if ((rc = slow_op(it, out)) != SLOW_MORE)
            return rc;
    }
row: /* p is at the opcode that makes the row */
    it->pos = (uint64_t)(p - d) + 1;
    return emit(it, out, (uint64_t)(p - d));
}

/* Decode the current sequence again from its start, keeping its first
 * upto rows in it->seq: most sequences have no inlined row, and storing
 * every row of every sequence (128 bytes each, out of cache) cost more
 * than decoding a few twice. */
static int keep_from_start(cudw_line_iter *it, uint64_t upto)
{
    cudw_line_iter t = *it;
    t.seq = it->seq;
    t.nseq = 0;
    t.pos = it->seq_pos;
    t.flags = CUDW_LINE_KEEP_SEQUENCE;
    reset(&t);
    t.state.sequence = it->state.sequence;
    t.keeping = 1;
    cudw_line_row r;
    int rc = CUDW_OK;
    while (t.nseq < upto && (rc = cudw_line_next(&t, &r)) == CUDW_OK)
        ;
    it->seq = t.seq; /* grown or not, it is the iterator's buffer */
    it->capseq = t.capseq;
    if (rc != CUDW_OK || t.nseq != upto)
        return rc < 0 ? rc
                      : file_fail(it->table->file, CUDW_E_BAD_OFFSET, it->table->section, it->seq_pos, "line program",
                                  "sequence decoded again gave %zu rows before row %llu", t.nseq,
                                  (unsigned long long)(upto + 1));
    it->nseq = t.nseq;
    it->keeping = 1;
    return CUDW_OK;
}

int cudw_line_callsite(const cudw_line_iter *it, const cudw_line_row *r, const cudw_line_row **site)
{
    *site = NULL;
    if (!r->context)
        return CUDW_DONE;
    if (!(it->flags & CUDW_LINE_KEEP_SEQUENCE) || r->context > it->nseq || r->context >= r->index)
        return file_fail(it->table->file, CUDW_E_BAD_OFFSET, it->table->section, r->op_offset, "line row",
                         "inlined-call context %llu does not name an earlier row of sequence %llu (row %llu)",
                         (unsigned long long)r->context, (unsigned long long)r->sequence,
                         (unsigned long long)r->index);
    *site = &it->seq[r->context - 1];
    return CUDW_OK;
}
