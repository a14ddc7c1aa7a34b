/* Line-table headers: parsed once per table and cached on the handle,
 * with the directory and file tables and the special-opcode steps.
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
#include "line.h"

#include "../elf/reloc.h"

#include <stdlib.h>

#define hdr_fail(f, s, off, code, ...) file_fail(f, code, s, off, "line table header", __VA_ARGS__)

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
                return file_fail(f, rc, s, (uint64_t)(p - d), "line table header",
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

/* Which unit names which line table: (DW_AT_stmt_list, DW_AT_comp_dir)
 * of every unit's first DIE, sorted, built once per info section and
 * kept on the handle. */
typedef struct stmt_dir {
    uint64_t stmt;
    size_t ord;               /* file order: the first unit naming a table wins */
    const char *dir;
} stmt_dir;

typedef struct stmt_index {
    stmt_dir *v;
    size_t n;
} stmt_index;

static int stmt_cmp(const void *a, const void *b)
{
    const stmt_dir *x = a, *y = b;
    if (x->stmt != y->stmt)
        return x->stmt < y->stmt ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static const stmt_index *stmt_index_of(cudw_file *f, const cudw_section *info)
{
    stmt_index *ix = cache_get(f, CACHE_COMPDIR, info->index, 0);
    if (ix)
        return ix;
    if (!(ix = arena_alloc(&f->arena, sizeof *ix)))
        return NULL;
    /* A broken .debug_info is its own readers' error, not the line
     * table's: the index keeps the units before it, and the handle's error
     * is what it was. */
    cudw_error saved = f->err;
    size_t cap = 0;
    uint64_t cur = 0;
    cudw_unit u;
    for (int pass = 0; pass < 2; pass++) { /* count, then fill: one allocation */
        size_t n = 0;
        cur = 0;
        while (cudw_unit_next(f, info, &cur, &u) == CUDW_OK) {
            cudw_die_iter it;
            cudw_die d;
            cudw_attr a;
            cudw_die_iter_init(&u, &it);
            if (cudw_die_next(&it, &d) != CUDW_OK || cudw_die_attr(&d, CUDW_DW_AT_stmt_list, &a) != CUDW_OK)
                continue;
            if (pass) {
                if (n == cap)
                    break;
                ix->v[n].stmt = a.u;
                ix->v[n].ord = n;
                ix->v[n].dir = cudw_die_attr(&d, CUDW_DW_AT_comp_dir, &a) == CUDW_OK && a.vclass == CUDW_V_STRING
                                   ? a.str
                                   : NULL;
            }
            n++;
        }
        if (!pass && n && !(ix->v = arena_alloc(&f->arena, n * sizeof *ix->v)))
            break;
        if (!pass)
            cap = n;
        else
            ix->n = n;
    }
    f->err = saved;
    if (ix->n > 1)
        qsort(ix->v, ix->n, sizeof *ix->v, stmt_cmp);
    if (cache_put(f, CACHE_COMPDIR, info->index, 0, ix))
        return NULL;
    return ix;
}

/* DW_AT_comp_dir of the unit whose DW_AT_stmt_list names this table:
 * file entries with directory 0, and relative directories, are relative to
 * it.  NULL when none (the .nv_debug_line_sass tables, -lineinfo cubins
 * without .debug_info). */
static const char *comp_dir_for(cudw_file *f, const cudw_section *line, uint64_t off)
{
    cudw_secclass c;
    if (cudw_classify_name(line->name, line->flags, &c) != CUDW_OK || c.kind != CUDW_SEC_LINE)
        return NULL;
    const cudw_section *info = section_companion(f, line, ".debug_info");
    const stmt_index *ix = info && info->data ? stmt_index_of(f, info) : NULL;
    if (!ix)
        return NULL;
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->v[mid].stmt < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && ix->v[lo].stmt == off ? ix->v[lo].dir : NULL;
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
    cur_t c;
    uint64_t len;
    /* the relocations first: the program's set_address operands need them */
    int rc = cur_open(&c, f, s, off, s->data_size, "line table header");
    if (rc || (rc = cur_unit_length(&c, 0, &len, NULL)))
        return rc;
    uint64_t end = cur_end(&c);
    uint16_t version = 0;
    uint32_t hlen = 0;
    if (len < 2 + 4)
        return cur_fail_at(&c, off, CUDW_E_TRUNCATED, "unit length %u is too short for a header", (unsigned)len);
    (void)cur_u16(&c, "version", &version); /* the 6 bytes are there */
    (void)cur_u32(&c, "header_length", &hlen);
    if (version < 2 || version > 4)
        return cur_fail_at(&c, off + 4, CUDW_E_UNSUPPORTED, "DWARF version %u (2, 3 and 4 are supported)",
                           (unsigned)version);
    uint64_t hstart = off + 10, hend = hstart + hlen;
    unsigned fixed = version >= 4 ? 6 : 5;
    if (hlen > end - hstart || hlen < fixed)
        return cur_fail_at(&c, off + 6, CUDW_E_TRUNCATED,
                           "header_length 0x%x does not fit the unit (0x%llx bytes after it)", hlen,
                           (unsigned long long)(end - hstart));
    const uint8_t *h = d + hstart;
    line_impl *t = arena_alloc(&f->arena, sizeof *t);
    if (!t)
        return file_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
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
    rc = tables(f, s, pos, hend, NULL, NULL, &nd, &nf, &after);
    if (rc)
        return rc;
    const char **dirs = nd ? arena_alloc(&f->arena, nd * sizeof *dirs) : NULL;
    cudw_line_file *files = nf ? arena_alloc(&f->arena, nf * sizeof *files) : NULL;
    if ((nd && !dirs) || (nf && !files))
        return file_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
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
            return file_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
        if (!(e->path = join(f, dir, e->name)))
            return file_fail(f, CUDW_E_NOMEM, s, off, "line table header", "out of memory");
    }
    p->ndirs = nd;
    p->dirs = dirs;
    p->nfiles = nf;
    p->files = files;
    p->str_section = section_companion(f, s, ".debug_str");
    if (hend - after == 4) {
        cur_t w = cur_make(f, s, after, hend, "line table header");
        (void)cur_field(&w, 4, ".debug_str base", &p->str_base, &p->str_base_reloc); /* 4 bytes left */
        p->has_str_base = 1;
        p->str_base_offset = after;
        p->str_base_raw = ld32(d + after);
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
        return file_fail(f, CUDW_E_BAD_OFFSET, s, 0, "section",
                         "sh_offset 0x%llx + sh_size 0x%llx lies outside the file",
                         (unsigned long long)s->offset, (unsigned long long)s->size);
    if (offset >= s->data_size)
        return file_fail(f, CUDW_E_BAD_OFFSET, s, offset, "line table header",
                         "offset 0x%llx is past the end of %s (size 0x%llx)", (unsigned long long)offset, s->name,
                         (unsigned long long)s->data_size);
    line_impl *t = cache_get(f, CACHE_LINE, s->index, offset);
    if (!t) {
        int rc = parse(f, s, offset, &t);
        if (rc)
            return rc;
        if (cache_put(f, CACHE_LINE, s->index, offset, t))
            return file_fail(f, CUDW_E_NOMEM, s, offset, "line table header", "out of memory");
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
