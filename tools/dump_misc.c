/* cudwarf dump for the record-style sections: --loc, --ranges, --aranges,
 * --pubnames/--pubtypes, --str, --ptx-txt. */
#include "cli.h"

#include <string.h>

static void str_out(obuf *o, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f)
            ob_putc(o, (char)c);
        else
            ob_printf(o, "\\x%02x", c);
    }
}

/* The reg_sass record of function name, to annotate reg_type bytes. */
static int find_reg_sass(cudw_file *f, const cudw_section *type_sec, const char *name, const cudw_section **sass,
                         cudw_reg_func *fn)
{
    cudw_secclass c;
    cudw_classify_name(type_sec->name, type_sec->flags, &c);
    const char *want = c.mercury ? ".nv.merc.nv_debug_info_reg_sass" : ".nv_debug_info_reg_sass";
    *sass = cudw_section_find(f, want);
    uint64_t cur = 0;
    while (*sass && cudw_reg_sass_next(f, *sass, &cur, fn) == CUDW_OK)
        if (!strcmp(fn->function, name))
            return 1;
    return 0;
}

static void lists_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    uint64_t cur = 0;
    cudw_list_entry e;
    int start = 1;
    while (cudw_list_next(f, s, kind == CUDW_SEC_LOC, 8, &cur, &e) == CUDW_OK) {
        if (start)
            ob_printf(o, "0x%08llx:\n", (unsigned long long)e.offset);
        start = e.kind == CUDW_LOC_END;
        if (e.kind == CUDW_LOC_END) {
            ob_puts(o, "            <end of list>\n");
            continue;
        }
        if (e.kind == CUDW_LOC_BASE) {
            ob_printf(o, "            base address 0x%llx\n", (unsigned long long)e.end);
            continue;
        }
        ob_printf(o, "            [0x%016llx, 0x%016llx)", (unsigned long long)e.begin, (unsigned long long)e.end);
        if (e.begin_reloc) {
            ob_puts(o, " ");
            reloc_out(e.begin_reloc, o);
        }
        if (e.expr) {
            ob_puts(o, ": ");
            expr_text(f, s, e.expr_offset, e.expr, e.expr_len, 8, o);
        }
        ob_putc(o, '\n');
    }
}

static void lists_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    uint64_t cur = 0;
    cudw_list_entry e;
    int start = 1;
    json_arr(j, "lists");
    while (cudw_list_next(f, s, kind == CUDW_SEC_LOC, 8, &cur, &e) == CUDW_OK) {
        if (start) {
            json_obj(j, NULL);
            json_u64(j, "offset", e.offset);
            json_arr(j, "entries");
        }
        start = e.kind == CUDW_LOC_END;
        if (!start) {
            json_obj(j, NULL);
            json_u64(j, "offset", e.offset);
            json_str(j, "kind", e.kind == CUDW_LOC_BASE ? "base" : "range");
            json_u64(j, "begin", e.begin);
            json_u64(j, "end", e.end);
            if (e.begin_reloc) {
                json_str(j, "symbol", e.begin_reloc->sym_name);
                json_i64(j, "begin_addend", e.begin_reloc->addend);
            }
            if (e.expr) {
                json_hex(j, "value", e.expr, e.expr_len);
                expr_json(f, s, e.expr_offset, e.expr, e.expr_len, 8, j);
            }
            json_end_obj(j);
        } else {
            json_end_arr(j);
            json_end_obj(j);
        }
    }
    if (!start) { /* a list without its end */
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static void pub_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    (void)kind;
    uint64_t cur = 0;
    cudw_pub_set set;
    while (cudw_pub_next_set(f, s, &cur, &set) == CUDW_OK) {
        ob_printf(o, "  length 0x%08llx, version %u, unit offset 0x%08llx, unit size 0x%08llx\n",
                  (unsigned long long)set.length, set.version, (unsigned long long)set.unit_offset,
                  (unsigned long long)set.unit_size);
        ob_puts(o, "    Offset     Name\n");
        uint64_t pos = set.entries_offset, die;
        const char *name;
        while (cudw_pub_next(f, s, &set, &pos, &die, &name) == CUDW_OK)
            ob_printf(o, "    0x%08llx \"%s\"\n", (unsigned long long)die, name);
    }
}

static void pub_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    (void)kind;
    uint64_t cur = 0;
    cudw_pub_set set;
    json_arr(j, "sets");
    while (cudw_pub_next_set(f, s, &cur, &set) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "offset", set.offset);
        json_u64(j, "length", set.length);
        json_u64(j, "version", set.version);
        json_u64(j, "unit_offset", set.unit_offset);
        json_u64(j, "unit_size", set.unit_size);
        json_arr(j, "names");
        uint64_t pos = set.entries_offset, die;
        const char *name;
        while (cudw_pub_next(f, s, &set, &pos, &die, &name) == CUDW_OK) {
            json_obj(j, NULL);
            json_u64(j, "die", die);
            json_str(j, "name", name);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static void aranges_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    (void)kind;
    uint64_t cur = 0;
    cudw_aranges_set set;
    while (cudw_aranges_next_set(f, s, &cur, &set) == CUDW_OK) {
        ob_printf(o, "  length 0x%llx, version %u, unit offset 0x%llx, address size %u\n",
                  (unsigned long long)set.length, set.version, (unsigned long long)set.unit_offset, set.addr_size);
        uint64_t pos = set.tuples_offset, a, l;
        const cudw_reloc *r;
        while (cudw_aranges_next(f, s, &set, &pos, &a, &l, &r) == CUDW_OK) {
            ob_printf(o, "    [0x%016llx, 0x%016llx)", (unsigned long long)a, (unsigned long long)(a + l));
            if (r) {
                ob_putc(o, ' ');
                reloc_out(r, o);
            }
            ob_putc(o, '\n');
        }
    }
}

static void aranges_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    (void)kind;
    uint64_t cur = 0;
    cudw_aranges_set set;
    json_arr(j, "sets");
    while (cudw_aranges_next_set(f, s, &cur, &set) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "offset", set.offset);
        json_u64(j, "length", set.length);
        json_u64(j, "version", set.version);
        json_u64(j, "unit_offset", set.unit_offset);
        json_u64(j, "address_size", set.addr_size);
        json_arr(j, "ranges");
        uint64_t pos = set.tuples_offset, a, l;
        const cudw_reloc *r;
        while (cudw_aranges_next(f, s, &set, &pos, &a, &l, &r) == CUDW_OK) {
            json_obj(j, NULL);
            json_u64(j, "address", a);
            json_u64(j, "length", l);
            if (r)
                json_str(j, "symbol", r->sym_name);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static void macinfo_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    (void)kind;
    uint64_t cur = 0;
    /* llvm-dwarfdump --debug-macro's layout */
    cudw_macinfo_entry m;
    int depth = 0, start = 1;
    while (cudw_macinfo_next(f, s, &cur, &m) == CUDW_OK) {
        if (start)
            ob_printf(o, "0x%08llx:\n", (unsigned long long)m.offset);
        start = m.type == 0;
        if (m.type == 0)
            continue;
        if (m.type == CUDW_DW_MACINFO_end_file && depth)
            depth--;
        for (int k = 0; k < depth; k++)
            ob_puts(o, "  ");
        ob_puts(o, cudw_macinfo_name(m.type));
        if (m.type == CUDW_DW_MACINFO_define || m.type == CUDW_DW_MACINFO_undef)
            ob_printf(o, " - lineno: %llu macro: %s", (unsigned long long)m.line, m.string);
        else if (m.type == CUDW_DW_MACINFO_start_file)
            ob_printf(o, " - lineno: %llu filenum: %llu", (unsigned long long)m.line, (unsigned long long)m.file);
        else if (m.type == CUDW_DW_MACINFO_vendor_ext)
            ob_printf(o, " - constant: %llu string: %s", (unsigned long long)m.constant, m.string);
        ob_putc(o, '\n');
        if (m.type == CUDW_DW_MACINFO_start_file)
            depth++;
    }
}

static void macinfo_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    (void)kind;
    uint64_t cur = 0;
    cudw_macinfo_entry m;
    json_arr(j, "entries");
    while (cudw_macinfo_next(f, s, &cur, &m) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "offset", m.offset);
        json_str(j, "type", m.type ? cudw_macinfo_name(m.type) : "end");
        if (m.type == CUDW_DW_MACINFO_define || m.type == CUDW_DW_MACINFO_undef ||
            m.type == CUDW_DW_MACINFO_start_file)
            json_u64(j, "line", m.line);
        if (m.type == CUDW_DW_MACINFO_start_file)
            json_u64(j, "file", m.file);
        if (m.type == CUDW_DW_MACINFO_vendor_ext)
            json_u64(j, "constant", m.constant);
        if (m.string)
            json_str(j, "string", m.string);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static void str_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    (void)f;
    (void)kind;
    for (uint64_t at = 0; s->data && at < s->data_size;) {
        const char *p = (const char *)s->data + at;
        const char *z = memchr(p, 0, s->data_size - at);
        size_t n = z ? (size_t)(z - p) : (size_t)(s->data_size - at);
        ob_printf(o, "  [%6llx]  ", (unsigned long long)at);
        str_out(o, p, n);
        ob_putc(o, '\n');
        at += n + 1;
    }
}

static void str_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    (void)f;
    (void)kind;
    json_arr(j, "strings");
    for (uint64_t at = 0; s->data && at < s->data_size;) {
        const char *p = (const char *)s->data + at;
        const char *z = memchr(p, 0, s->data_size - at);
        size_t n = z ? (size_t)(z - p) : (size_t)(s->data_size - at);
        json_obj(j, NULL);
        json_u64(j, "offset", at);
        json_strn(j, "string", p, n);
        json_end_obj(j);
        at += n + 1;
    }
    json_end_arr(j);
}

static void ptx_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    (void)kind;
    uint64_t n = 0;
    const char *t;
    if (s->data)
        cudw_ptx_line_count(f, s, &n);
    for (uint64_t k = 1; k <= n; k++)
        if (cudw_ptx_line(f, s, k, &t) == CUDW_OK)
            ob_printf(o, "%6llu  %s\n", (unsigned long long)k, t);
}

static void ptx_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    (void)kind;
    uint64_t n = 0;
    const char *t;
    if (s->data)
        cudw_ptx_line_count(f, s, &n);
    json_arr(j, "lines");
    for (uint64_t k = 1; k <= n; k++)
        if (cudw_ptx_line(f, s, k, &t) == CUDW_OK)
            json_str(j, NULL, t);
    json_end_arr(j);
}

static void reg_sass_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    (void)kind;
    uint64_t cur = 0;
    cudw_reg_func fn;
    while (cudw_reg_sass_next(f, s, &cur, &fn) == CUDW_OK) {
        ob_printf(o, "  %s: %llu entries\n", fn.function, (unsigned long long)fn.count);
        uint64_t pos = fn.entries_offset;
        cudw_reg_entry e;
        char rn[48];
        while (cudw_reg_sass_entry(s, &fn, &pos, &e) == CUDW_OK) {
            cudw_register_name(e.sass, rn, sizeof rn);
            ob_printf(o, "    %4u  %-12s %-8s (0x%08x)  [0x%x, 0x%x)\n", e.index, e.ptx, rn, e.sass, e.start, e.end);
        }
    }
}

static void reg_type_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    (void)kind;
    uint64_t cur = 0;
    cudw_reg_func fn, sfn;
    const uint8_t *types;
    while (cudw_reg_type_next(f, s, &cur, &fn, &types) == CUDW_OK) {
        ob_printf(o, "  %s: %llu entries\n", fn.function, (unsigned long long)fn.count);
        const cudw_section *ss;
        int have = find_reg_sass(f, s, fn.function, &ss, &sfn) && sfn.count == fn.count;
        uint64_t pos = have ? sfn.entries_offset : 0;
        cudw_reg_entry e;
        char tn[16];
        for (uint64_t k = 0; k < fn.count; k++) {
            ob_printf(o, "    %02x  %-6s", types[k], cudw_reg_type_name(types[k], tn, sizeof tn));
            if (have && cudw_reg_sass_entry(ss, &sfn, &pos, &e) == CUDW_OK)
                ob_printf(o, "  %s", e.ptx);
            ob_putc(o, '\n');
        }
    }
}

static void regs_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    uint64_t cur = 0;
    cudw_reg_func fn;
    const uint8_t *types = NULL;
    json_arr(j, "functions");
    while (kind == CUDW_SEC_NV_REG_SASS ? cudw_reg_sass_next(f, s, &cur, &fn) == CUDW_OK
                                        : cudw_reg_type_next(f, s, &cur, &fn, &types) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "offset", fn.offset);
        json_str(j, "function", fn.function);
        json_arr(j, "entries");
        uint64_t pos = fn.entries_offset;
        cudw_reg_entry e;
        char rn[48];
        for (uint64_t k = 0; k < fn.count; k++) {
            json_obj(j, NULL);
            if (kind == CUDW_SEC_NV_REG_SASS) {
                if (cudw_reg_sass_entry(s, &fn, &pos, &e) != CUDW_OK)
                    break;
                cudw_register_name(e.sass, rn, sizeof rn);
                json_u64(j, "index", e.index);
                json_str(j, "ptx", e.ptx);
                json_u64(j, "sass", e.sass);
                json_str(j, "register", rn);
                json_u64(j, "start", e.start);
                json_u64(j, "end", e.end);
            } else {
                char tn[16];
                json_u64(j, "type", types[k]);
                json_str(j, "meaning", cudw_reg_type_name(types[k], tn, sizeof tn));
            }
            json_end_obj(j);
        }
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
}

/* each kind's two printers, side by side */
static const struct printer {
    int kind;
    void (*text)(cudw_file *, const cudw_section *, int, obuf *);
    void (*json)(cudw_file *, const cudw_section *, int, json *);
} printers[] = {
    {CUDW_SEC_LOC, lists_text, lists_json},
    {CUDW_SEC_RANGES, lists_text, lists_json},
    {CUDW_SEC_PUBNAMES, pub_text, pub_json},
    {CUDW_SEC_PUBTYPES, pub_text, pub_json},
    {CUDW_SEC_ARANGES, aranges_text, aranges_json},
    {CUDW_SEC_MACINFO, macinfo_text, macinfo_json},
    {CUDW_SEC_STR, str_text, str_json},
    {CUDW_SEC_NV_PTX_TXT, ptx_text, ptx_json},
    {CUDW_SEC_NV_REG_SASS, reg_sass_text, regs_json},
    {CUDW_SEC_NV_REG_TYPE, reg_type_text, regs_json},
};

static const struct printer *printer_for(int kind)
{
    for (size_t i = 0; i < sizeof printers / sizeof *printers; i++)
        if (printers[i].kind == kind)
            return &printers[i];
    return NULL;
}

void misc_text(cudw_file *f, const cudw_section *s, int kind, obuf *o)
{
    ob_printf(o, "Contents of the %s section:\n\n", s->name);
    const struct printer *pr = printer_for(kind);
    if (pr)
        pr->text(f, s, kind, o);
    ob_putc(o, '\n');
}

void misc_json(cudw_file *f, const cudw_section *s, int kind, json *j)
{
    section_json_open(j, s, NULL);
    const struct printer *pr = printer_for(kind);
    if (pr)
        pr->json(f, s, kind, j);
    json_end_obj(j);
}
