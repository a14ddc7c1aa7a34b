/* Line programs: the header, the raw opcodes, and the rows the state
 * machine makes of them (one decoder, two views).
 *
 *   +0  u32 unit_length            (0xffffffff: 64-bit DWARF, unsupported)
 *   +4  u16 version                (2 or 3; 4 adds max_ops_per_insn below)
 *   +6  u32 header_length          (bytes from +10 to the first opcode)
 *   +10 u8  minimum_instruction_length
 *       u8  default_is_stmt, i8 line_base, u8 line_range, u8 opcode_base
 *       u8  standard_opcode_lengths[opcode_base - 1]
 *       include_directories: NUL-terminated strings, then 0
 *       file_names: (string, ULEB dir, ULEB mtime, ULEB size)*, then 0
 *       [u32 .debug_str base]      NVIDIA: present when header_length leaves
 *                                  exactly 4 bytes here (R_CUDA_32 in sm_75/80 -dc)
 *   program: opcodes up to the end of the unit
 *
 * cubins: version 2, min_inst 1, line_base -5, line_range 14,
 * opcode_base 10; every sequence opens with DW_LNE_set_address carrying an
 * R_CUDA_64 against the function symbol (its bytes are 0). */
#include "../internal.h"

#include <stdlib.h>

typedef struct line_impl {
    cudw_line_table pub;
    /* Special opcode op advances the address by sp_addr[op] and the line
     * by sp_line[op] (op >= opcode_base): a division per row, paid once. */
    uint16_t sp_addr[256];
    int16_t sp_line[256];
    uint8_t short_std;  /* bit n: standard opcode n takes one ULEB (2, 4, 5) */
} line_impl;

#define hdr_fail(f, s, off, code, ...) cudw_fail(f, code, s, off, "line table header", __VA_ARGS__)

/* Walk the directory and file tables; with out arrays NULL only count. */
static int tables(cudw_file *f, const cudw_section *s, uint64_t pos, uint64_t hend, const char **dirs,
                  cudw_line_file *files, size_t *ndirs, size_t *nfiles, uint64_t *after)
{
    const uint8_t *d = s->data;
    size_t nd = 0, nf = 0;
    for (;;) {
        if (pos >= hend)
            return hdr_fail(f, s, pos, CUDW_E_TRUNCATED, "include_directories run past the header end 0x%llx",
                            (unsigned long long)hend);
        const uint8_t *z = memchr(d + pos, 0, hend - pos);
        if (!z)
            return hdr_fail(f, s, pos, CUDW_E_TRUNCATED, "directory name runs past the header end 0x%llx",
                            (unsigned long long)hend);
        if (z == d + pos) {
            pos++;
            break;
        }
        if (dirs)
            dirs[nd] = (const char *)d + pos;
        nd++;
        pos = (uint64_t)(z - d) + 1;
    }
    for (;;) {
        if (pos >= hend)
            return hdr_fail(f, s, pos, CUDW_E_TRUNCATED, "file_names run past the header end 0x%llx",
                            (unsigned long long)hend);
        const uint8_t *z = memchr(d + pos, 0, hend - pos);
        if (!z)
            return hdr_fail(f, s, pos, CUDW_E_TRUNCATED, "file name runs past the header end 0x%llx",
                            (unsigned long long)hend);
        if (z == d + pos) {
            pos++;
            break;
        }
        const char *name = (const char *)d + pos;
        const uint8_t *p = z + 1;
        uint64_t v[3];
        for (int k = 0; k < 3; k++) {
            int rc = cudw_uleb128_read(&p, d + hend, &v[k]);
            if (rc)
                return cudw_fail(f, rc, s, (uint64_t)(p - d), "line table header",
                                 "file entry %zu: %s", nf + 1,
                                 rc == CUDW_E_TRUNCATED ? "ULEB128 runs past the header end" : "ULEB128 overflow");
        }
        if (files) {
            files[nf].name = name;
            files[nf].dir = v[0];
            files[nf].mtime = v[1];
            files[nf].size = v[2];
        }
        nf++;
        pos = (uint64_t)(p - d);
    }
    *ndirs = nd;
    *nfiles = nf;
    *after = pos;
    return CUDW_OK;
}

/* DW_AT_comp_dir of the unit whose DW_AT_stmt_list names this table:
 * file entries with directory 0, and relative directories, are relative to
 * it.  Found by reading each unit's first DIE; NULL when none (the
 * .nv_debug_line_sass tables, -lineinfo cubins without .debug_info). */
static const char *comp_dir_for(cudw_file *f, const cudw_section *line, uint64_t off)
{
    cudw_secclass c;
    if (cudw_classify_name(line->name, line->flags, &c) != CUDW_OK || c.kind != CUDW_SEC_LINE)
        return NULL;
    const cudw_section *info = cudw_section_companion(f, line, ".debug_info");
    if (!info || !info->data)
        return NULL;
    cudw_error saved = f->err; /* a broken .debug_info is not this table's error */
    const char *found = NULL;
    uint64_t cur = 0;
    cudw_unit u;
    while (!found && cudw_unit_next(f, info, &cur, &u) == CUDW_OK) {
        cudw_die_iter it;
        cudw_die d;
        cudw_attr a;
        cudw_die_iter_init(&u, &it);
        if (cudw_die_next(&it, &d) != CUDW_OK)
            continue;
        if (cudw_die_attr(&d, 0x10, &a) != CUDW_OK || a.u != off) /* DW_AT_stmt_list */
            continue;
        if (cudw_die_attr(&d, 0x1b, &a) == CUDW_OK && a.vclass == CUDW_V_STRING) /* DW_AT_comp_dir */
            found = a.str;
    }
    f->err = saved;
    return found;
}

static const char *join(cudw_file *f, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *j = arena_alloc(&f->arena, la + lb + 2);
    if (!j)
        return NULL;
    memcpy(j, a, la);
    j[la] = '/';
    memcpy(j + la + 1, b, lb + 1);
    return j;
}

static int parse(cudw_file *f, const cudw_section *s, uint64_t off, line_impl **out)
{
    const uint8_t *d = s->data;
    uint64_t left = s->data_size - off;
    if (left < 4)
        return hdr_fail(f, s, off, CUDW_E_TRUNCATED, "%llu bytes left, a unit length needs 4",
                        (unsigned long long)left);
    uint32_t len = ld32(d + off);
    if (len >= 0xfffffff0u)
        return cudw_fail(f, CUDW_E_UNSUPPORTED, s, off, "line table header",
                         len == 0xffffffffu ? "64-bit DWARF line table (only 32-bit DWARF is supported)"
                                            : "reserved unit length 0x%x", len);
    if (len > left - 4)
        return hdr_fail(f, s, off, CUDW_E_TRUNCATED,
                        "unit length 0x%x runs past the end of the section (0x%llx bytes left)", len,
                        (unsigned long long)(left - 4));
    uint64_t end = off + 4 + len;
    if (len < 2 + 4)
        return hdr_fail(f, s, off, CUDW_E_TRUNCATED, "unit length %u is too short for a header", len);
    uint16_t version = ld16(d + off + 4);
    if (version < 2 || version > 4)
        return hdr_fail(f, s, off + 4, CUDW_E_UNSUPPORTED, "DWARF version %u (2, 3 and 4 are supported)",
                        (unsigned)version);
    uint32_t hlen = ld32(d + off + 6);
    uint64_t hstart = off + 10, hend = hstart + hlen;
    unsigned fixed = version >= 4 ? 6 : 5;
    if (hlen > end - hstart || hlen < fixed)
        return hdr_fail(f, s, off + 6, CUDW_E_TRUNCATED,
                        "header_length 0x%x does not fit the unit (0x%llx bytes after it)", hlen,
                        (unsigned long long)(end - hstart));
    const uint8_t *h = d + hstart;
    line_impl *t = arena_alloc(&f->arena, sizeof *t);
    if (!t)
        return cudw_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
    cudw_line_table *p = &t->pub;
    p->file = f;
    p->section = s;
    p->offset = off;
    p->unit_length = len;
    p->end = end;
    p->version = version;
    p->header_length = hlen;
    p->program_offset = hend;
    p->min_inst_length = h[0];
    h += version >= 4 ? 2 : 1; /* max_ops_per_insn: VLIW only, ignored */
    p->default_is_stmt = h[0];
    p->line_base = (int8_t)h[1];
    p->line_range = h[2];
    p->opcode_base = h[3];
    if (p->line_range == 0)
        return hdr_fail(f, s, hstart + (version >= 4 ? 4 : 3), CUDW_E_BAD_OFFSET,
                        "line_range is 0");
    if (p->opcode_base == 0)
        return hdr_fail(f, s, hstart + (version >= 4 ? 5 : 4), CUDW_E_BAD_OFFSET,
                        "opcode_base is 0");
    uint64_t pos = hstart + fixed - 1 + 1; /* past opcode_base */
    if ((uint64_t)(p->opcode_base - 1) > hend - pos)
        return hdr_fail(f, s, pos, CUDW_E_TRUNCATED,
                        "standard_opcode_lengths (%u bytes) run past the header end 0x%llx",
                        p->opcode_base - 1u, (unsigned long long)hend);
    p->std_opcode_lengths = d + pos;
    pos += p->opcode_base - 1u;
    size_t nd, nf;
    uint64_t after;
    int rc = tables(f, s, pos, hend, NULL, NULL, &nd, &nf, &after);
    if (rc)
        return rc;
    const char **dirs = nd ? arena_alloc(&f->arena, nd * sizeof *dirs) : NULL;
    cudw_line_file *files = nf ? arena_alloc(&f->arena, nf * sizeof *files) : NULL;
    if ((nd && !dirs) || (nf && !files))
        return cudw_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
    tables(f, s, pos, hend, dirs, files, &nd, &nf, &after);
    const char *comp_dir = nf ? comp_dir_for(f, s, off) : NULL;
    p->comp_dir = comp_dir;
    for (size_t i = 0; i < nf; i++) {
        cudw_line_file *e = &files[i];
        const char *dir = e->dir >= 1 && e->dir <= nd ? dirs[e->dir - 1] : e->dir == 0 ? comp_dir : NULL;
        if (!dir || e->name[0] == '/') {
            e->path = e->name;
            continue;
        }
        if (dir[0] != '/' && comp_dir && dir != comp_dir && !(dir = join(f, comp_dir, dir)))
            return cudw_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
        if (!(e->path = join(f, dir, e->name)))
            return cudw_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
    }
    p->ndirs = nd;
    p->dirs = dirs;
    p->nfiles = nf;
    p->files = files;
    p->str_section = cudw_section_companion(f, s, ".debug_str");
    if (hend - after == 4) {
        const cudw_reloc *r;
        size_t n;
        if ((rc = cudw_relocs(f, s->index, &r, &n)))
            return rc;
        p->has_str_base = 1;
        p->str_base_offset = after;
        p->str_base = ld32(d + after);
        p->str_base_raw = (uint32_t)p->str_base;
        p->str_base_reloc = cudw_reloc_at(f, s->index, after);
        if (p->str_base_reloc && p->str_base_reloc->width)
            p->str_base = (uint32_t)p->str_base_reloc->value;
        else
            p->str_base_reloc = NULL;
    }
    for (unsigned op = p->opcode_base; op < 256; op++) {
        unsigned adj = op - p->opcode_base;
        t->sp_addr[op] = (uint16_t)(adj / p->line_range * p->min_inst_length);
        t->sp_line[op] = (int16_t)(p->line_base + (int)(adj % p->line_range));
    }
    for (unsigned op = 2; op <= 5; op++)
        if (op != 3 && op < p->opcode_base && p->std_opcode_lengths[op - 1] == 1)
            t->short_std |= (uint8_t)(1u << op);
    *out = t;
    return CUDW_OK;
}

int cudw_line_table_get(cudw_file *f, const cudw_section *s, uint64_t offset, const cudw_line_table **out)
{
    if (!s->data)
        return cudw_fail(f, CUDW_E_BAD_OFFSET, s, 0, "section",
                         "sh_offset 0x%llx + sh_size 0x%llx lies outside the file",
                         (unsigned long long)s->offset, (unsigned long long)s->size);
    if (offset >= s->data_size)
        return cudw_fail(f, CUDW_E_BAD_OFFSET, s, offset, "line table header",
                         "offset 0x%llx is past the end of %s (size 0x%llx)", (unsigned long long)offset, s->name,
                         (unsigned long long)s->data_size);
    line_impl *t = cache_get(f, CACHE_LINE, s->index, offset);
    if (!t) {
        const cudw_reloc *r;
        size_t n;
        int rc = cudw_relocs(f, s->index, &r, &n);
        if (!rc)
            rc = parse(f, s, offset, &t);
        if (rc)
            return rc;
        if (cache_put(f, CACHE_LINE, s->index, offset, t))
            return cudw_fail(f, CUDW_E_NOMEM, s, offset, "line table header", "out of memory");
    }
    *out = &t->pub;
    return CUDW_OK;
}

int cudw_line_table_next(cudw_file *f, const cudw_section *s, uint64_t *cursor, const cudw_line_table **out)
{
    if (!s->data && !s->size)
        return CUDW_DONE;
    if (s->data && *cursor >= s->data_size)
        return CUDW_DONE;
    int rc = cudw_line_table_get(f, s, *cursor, out);
    if (rc)
        return rc;
    *cursor = (*out)->end;
    return CUDW_OK;
}

const char *cudw_line_file_path(const cudw_line_table *t, uint64_t idx)
{
    return idx >= 1 && idx <= t->nfiles ? t->files[idx - 1].path : NULL;
}

static int op_fail(const cudw_line_table *t, uint64_t at, int rc, const char *what)
{
    return cudw_fail(t->file, rc, t->section, at, "line program", "%s%s", what,
                     rc == CUDW_E_TRUNCATED ? " runs past the end of the table"
                     : rc == CUDW_E_LEB_OVERFLOW ? ": LEB128 does not fit 64 bits" : "");
}

int cudw_line_op_next(const cudw_line_table *t, uint64_t *ppos, cudw_line_op *o)
{
    uint64_t at = *ppos;
    if (at >= t->end)
        return CUDW_DONE;
    const uint8_t *d = t->section->data, *p = d + at, *end = d + t->end;
    uint8_t op = *p++;
    int rc;
    o->offset = at;
    o->opcode = op;
    o->reloc = NULL;
    o->raw = NULL;
    o->raw_len = o->ext_len = o->u = o->u2 = o->addr_adv = 0;
    o->s = o->line_adv = 0;
    if (op >= t->opcode_base) {
        unsigned adj = op - t->opcode_base;
        o->kind = CUDW_LOP_SPECIAL;
        o->addr_adv = (uint64_t)(adj / t->line_range) * t->min_inst_length;
        o->line_adv = t->line_base + (int)(adj % t->line_range);
    } else if (op != 0) {
        o->kind = CUDW_LOP_STANDARD;
        switch (op) {
        case 1: case 6: case 7: /* copy, negate_stmt, set_basic_block */
            break;
        case 8: /* const_add_pc */
            o->addr_adv = (uint64_t)((255 - t->opcode_base) / t->line_range) * t->min_inst_length;
            break;
        case 3:
            if ((rc = cudw_sleb128_read(&p, end, &o->s)))
                return op_fail(t, at, rc, "DW_LNS_advance_line operand");
            break;
        case 9: /* fixed_advance_pc: u16 */
            if (end - p < 2)
                return op_fail(t, at, CUDW_E_TRUNCATED, "DW_LNS_fixed_advance_pc operand");
            o->u = ld16(p);
            p += 2;
            break;
        default: /* 2 advance_pc, 4 set_file, 5 set_column: one ULEB; others: as the header says */
            for (unsigned k = 0; k < t->std_opcode_lengths[op - 1]; k++) {
                uint64_t v;
                if ((rc = cudw_uleb128_read(&p, end, &v)))
                    return op_fail(t, at, rc, "standard opcode operand");
                if (k == 0)
                    o->u = v;
            }
            if (op == 2)
                o->addr_adv = o->u * t->min_inst_length;
        }
    } else {
        o->kind = CUDW_LOP_EXTENDED;
        uint64_t len;
        if ((rc = cudw_uleb128_read(&p, end, &len)))
            return op_fail(t, at, rc, "extended opcode length");
        if (len == 0 || len > (uint64_t)(end - p))
            return cudw_fail(t->file, len ? CUDW_E_TRUNCATED : CUDW_E_BAD_OFFSET, t->section, at, "line program",
                             "extended opcode length %llu %s", (unsigned long long)len,
                             len ? "runs past the end of the table" : "leaves no room for the sub-opcode");
        o->ext_len = len;
        const uint8_t *q = p + 1, *qend = p + len;
        o->opcode = *p;
        o->raw = q;
        o->raw_len = len - 1;
        switch (o->opcode) {
        case 2: /* set_address: the operand fills the rest */
            if (len - 1 == 8)
                o->u = ld64(q);
            else if (len - 1 == 4)
                o->u = ld32(q);
            else
                return cudw_fail(t->file, CUDW_E_BAD_OFFSET, t->section, at, "line program",
                                 "DW_LNE_set_address with a %llu-byte operand", (unsigned long long)(len - 1));
            o->reloc = cudw_reloc_at(t->file, t->section->index, (uint64_t)(q - d));
            if (o->reloc && o->reloc->width)
                o->u = len - 1 == 4 ? (uint32_t)o->reloc->value : o->reloc->value;
            else
                o->reloc = NULL;
            break;
        case CUDW_LNE_INLINED_CALL:
            if ((rc = cudw_uleb128_read(&q, qend, &o->u)) || (rc = cudw_uleb128_read(&q, qend, &o->u2)))
                return op_fail(t, at, rc, "DW_LNE 0x90 operand");
            break;
        case CUDW_LNE_SET_FUNCTION:
        case 4: /* set_discriminator */
            if ((rc = cudw_uleb128_read(&q, qend, &o->u)))
                return op_fail(t, at, rc, "extended opcode operand");
            break;
        case CUDW_LNE_MERC_ENTRY:
            o->u = len > 1 ? *q : 0;
            break;
        default: /* end_sequence, define_file, unknown: kept as raw bytes */
            break;
        }
        p += len;
    }
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

static const char *function_name(const cudw_line_table *t, uint64_t off)
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

/* An advance_pc is "hidden" when no row follows it: the next opcode is not
 * DW_LNS_copy and not DW_LNE_end_sequence. */
static int followed_by_row(const cudw_line_table *t, uint64_t pos)
{
    cudw_line_op o;
    if (cudw_line_op_next(t, &pos, &o) != CUDW_OK)
        return 1;
    return (o.kind == CUDW_LOP_STANDARD && o.opcode == 1) || (o.kind == CUDW_LOP_EXTENDED && o.opcode == 1);
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
    d->hidden = st->hidden;
    d->merc_flag = st->merc_flag;
    d->context = st->context;
    d->function_offset = st->function_offset;
    d->function = fn;
    d->sequence = st->sequence;
    d->index = index;
    d->op_offset = op_offset;
}

static int keep_from_start(cudw_line_iter *it, uint64_t upto);

static int emit(cudw_line_iter *it, cudw_line_row *out, uint64_t op_offset)
{
    cudw_line_row *st = &it->state;
    uint64_t index = st->index + 1;
    const char *fn = NULL;
    if (st->context || st->function_offset) {
        if (!it->fn_known || it->fn_off != st->function_offset) { /* a run of rows shares one name */
            it->fn = function_name(it->table, st->function_offset);
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
    if (it->keeping) {
        if (it->nseq == it->capseq) {
            size_t cap = it->capseq ? it->capseq * 2 : 256;
            cudw_line_row *n = realloc(it->seq, cap * sizeof *n);
            if (!n)
                return cudw_fail(it->table->file, CUDW_E_NOMEM, it->table->section, op_offset, "line program",
                                 "out of memory");
            it->seq = n;
            it->capseq = cap;
        }
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

/* ULEB128 of up to 3 bytes in line, longer ones (and errors) by the
 * general decoder: operands of line programs are short. */
static inline int uleb_in(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    ptrdiff_t n = end - p;
    if (n >= 1 && !(p[0] & 0x80)) {
        *v = p[0];
        *pp = p + 1;
        return CUDW_OK;
    }
    if (n >= 2 && !(p[1] & 0x80)) {
        *v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        *pp = p + 2;
        return CUDW_OK;
    }
    if (n >= 3 && !(p[2] & 0x80)) {
        *v = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
        *pp = p + 3;
        return CUDW_OK;
    }
    return cudw_uleb128_read(pp, end, v);
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
            if ((it->flags & CUDW_LINE_HIDDEN) && o.opcode == 2 && !followed_by_row(t, it->pos)) {
                *out = *st;
                out->hidden = 1;
                out->op_offset = o.offset;
                out->symbol = it->symbol;
                out->symbol_value = it->symbol_value;
                out->symtab = it->symtab;
                out->index = 0;
                out->function = NULL;
                return CUDW_OK;
            }
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
    /* the standard opcodes taken in line; advance_pc not when hidden rows
     * are asked for (the general decoder looks ahead for them) */
    const unsigned sstd = ti->short_std & (it->flags & CUDW_LINE_HIDDEN ? ~4u : ~0u);
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

int cudw_line_table_check(const cudw_line_table *t)
{
    const line_impl *ti = (const line_impl *)t;
    const uint8_t *d = t->section->data, *p = d + t->program_offset, *end = d + t->end;
    const unsigned obase = t->opcode_base;
    while (p < end) {
        unsigned op = *p;
        /* what cannot fail is stepped over (the same cases as the fast
         * path of cudw_line_next); the rest is the general decoder's to
         * judge */
        if (op >= obase || op == 1 || op == 6 || op == 7 || op == 8) {
            p++;
            continue;
        }
        if (end - p >= 3) {
            if (op == 3 || (op <= 5 && (ti->short_std & (1u << op)))) { /* 2, 3, 4, 5: one LEB */
                if (!(p[1] & 0x80)) {
                    p += 2;
                    continue;
                }
                if (!(p[2] & 0x80)) {
                    p += 3;
                    continue;
                }
            }
            if (op == 9) {
                p += 3;
                continue;
            }
            if (op == 0 && p[2] == CUDW_LNE_INLINED_CALL && p[1] >= 3 && p[1] < 0x80 &&
                end - p >= 2 + (ptrdiff_t)p[1]) {
                const uint8_t *q = p + 3, *qend = p + 2 + p[1];
                uint64_t v;
                if (uleb_in(&q, qend, &v) == CUDW_OK && uleb_in(&q, qend, &v) == CUDW_OK) {
                    p = qend;
                    continue;
                }
            }
        }
        uint64_t pos = (uint64_t)(p - d);
        cudw_line_op o;
        int rc = cudw_line_op_next(t, &pos, &o);
        if (rc != CUDW_OK)
            return rc;
        p = d + pos;
    }
    return CUDW_OK;
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
                      : cudw_fail(it->table->file, CUDW_E_BAD_OFFSET, it->table->section, it->seq_pos, "line program",
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
        return cudw_fail(it->table->file, CUDW_E_BAD_OFFSET, it->table->section, r->op_offset, "line row",
                         "inlined-call context %llu does not name an earlier row of sequence %llu (row %llu)",
                         (unsigned long long)r->context, (unsigned long long)r->sequence,
                         (unsigned long long)r->index);
    *site = &it->seq[r->context - 1];
    return CUDW_OK;
}
