/* cudwarf dump for the record-style sections: --loc, --ranges, --aranges,
 * --pubnames/--pubtypes, --macinfo, --str, --ptx-txt, --reg-sass,
 * --reg-type: one printer per record, through the emitter (emit.h). */
#include "cli.h"
#include "emit.h"

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

/* Each record is printed once, through the emitter (emit.h): JSON under
 * its keys, text in readelf's and llvm-dwarfdump's layouts. */

static void lists_print(cudw_file *f, const cudw_section *s, int kind, emit *e)
{
    uint64_t cur = 0;
    cudw_list_entry x;
    int start = 1;
    em_arr(e, "lists");
    while (cudw_list_next(f, s, kind == CUDW_SEC_LOC, 8, &cur, &x) == CUDW_OK) {
        if (start) {
            em_obj(e, NULL);
            em_u64(e, "offset", "0x", EM_HEX8, x.offset);
            em_text(e, ":\n");
            em_arr(e, "entries");
        }
        start = x.kind == CUDW_LOC_END;
        if (start) {
            em_text(e, "            <end of list>\n");
            em_end_arr(e);
            em_end_obj(e);
            continue;
        }
        int base = x.kind == CUDW_LOC_BASE;
        em_obj(e, NULL);
        em_u64(e, "offset", NULL, 0, x.offset);
        em_str(e, "kind", NULL, 0, base ? "base" : "range");
        em_u64(e, "begin", base ? NULL : "            [0x", EM_HEX16, x.begin);
        em_u64(e, "end", base ? "            base address 0x" : ", 0x", base ? EM_HEX : EM_HEX16, x.end);
        em_text(e, base ? "" : ")");
        if (x.begin_reloc && e->j) {
            json_str(e->j, "symbol", x.begin_reloc->sym_name);
            json_i64(e->j, "begin_addend", x.begin_reloc->addend);
        } else if (x.begin_reloc && !base) {
            ob_putc(e->o, ' ');
            reloc_out(x.begin_reloc, e->o);
        }
        if (x.expr && e->j) {
            json_hex(e->j, "value", x.expr, x.expr_len);
            expr_print(f, s, x.expr_offset, x.expr, x.expr_len, 8, e);
        } else if (x.expr && !base) {
            ob_puts(e->o, ": ");
            expr_print(f, s, x.expr_offset, x.expr, x.expr_len, 8, e);
        }
        em_text(e, "\n");
        em_end_obj(e);
    }
    if (!start) { /* a list without its end */
        em_end_arr(e);
        em_end_obj(e);
    }
    em_end_arr(e);
}

/* The head of a name-index or address-range set (its object opened):
 * readelf shows pubnames' numbers 8 digits wide, aranges' as they are. */
static void set_head(emit *e, uint64_t offset, uint64_t length, unsigned version, uint64_t unit, int style)
{
    em_obj(e, NULL);
    em_u64(e, "offset", NULL, 0, offset);
    em_u64(e, "length", "  length 0x", style, length);
    em_u64(e, "version", ", version ", EM_DEC, version);
    em_u64(e, "unit_offset", ", unit offset 0x", style, unit);
}

/* a name index set's (DIE offset, name) pairs */
static void pub_names(cudw_file *f, const cudw_section *s, const cudw_pub_set *set, emit *e)
{
    em_arr(e, "names");
    uint64_t pos = set->entries_offset, die;
    const char *name;
    while (cudw_pub_next(f, s, set, &pos, &die, &name) == CUDW_OK) {
        em_obj(e, NULL);
        em_u64(e, "die", "    0x", EM_HEX8, die);
        em_str(e, "name", " \"", 0, name);
        em_text(e, "\"\n");
        em_end_obj(e);
    }
}

/* an address range set's [address, address + length) tuples */
static void aranges_ranges(cudw_file *f, const cudw_section *s, const cudw_aranges_set *set, emit *e)
{
    em_arr(e, "ranges");
    uint64_t pos = set->tuples_offset, a, l;
    const cudw_reloc *r;
    while (cudw_aranges_next(f, s, set, &pos, &a, &l, &r) == CUDW_OK) {
        em_obj(e, NULL);
        em_u64(e, "address", "    [0x", EM_HEX16, a);
        em_u64(e, NULL, ", 0x", EM_HEX16, a + l); /* the text shows the end */
        em_u64(e, "length", NULL, 0, l);
        em_text(e, ")");
        if (r && e->j) {
            json_str(e->j, "symbol", r->sym_name);
        } else if (r) {
            ob_putc(e->o, ' ');
            reloc_out(r, e->o);
        }
        em_text(e, "\n");
        em_end_obj(e);
    }
}

/* .debug_pubnames, .debug_pubtypes and .debug_aranges: sets, one per unit,
 * each a head and its entries */
static void sets_each(cudw_file *f, const cudw_section *s, int kind, emit *e, const char *lead)
{
    uint64_t cur = 0;
    cudw_pub_set ps;
    cudw_aranges_set as;
    int pub = kind != CUDW_SEC_ARANGES;
    em_arr(e, "sets");
    while (pub ? cudw_pub_next_set(f, s, &cur, &ps) == CUDW_OK : cudw_aranges_next_set(f, s, &cur, &as) == CUDW_OK) {
        em_text(e, lead);
        if (pub) {
            set_head(e, ps.offset, ps.length, ps.version, ps.unit_offset, EM_HEX8);
            em_u64(e, "unit_size", ", unit size 0x", EM_HEX8, ps.unit_size);
            em_text(e, "\n    Offset     Name\n");
            pub_names(f, s, &ps, e);
        } else {
            set_head(e, as.offset, as.length, as.version, as.unit_offset, EM_HEX);
            em_u64(e, "address_size", ", address size ", EM_DEC, as.addr_size);
            em_text(e, "\n");
            aranges_ranges(f, s, &as, e);
        }
        em_end_arr(e);
        em_end_obj(e);
    }
    em_end_arr(e);
}

static void macinfo_print(cudw_file *f, const cudw_section *s, int kind, emit *e)
{
    (void)kind;
    uint64_t cur = 0;
    /* the text is llvm-dwarfdump --debug-macro's layout */
    cudw_macinfo_entry m;
    int depth = 0, start = 1;
    em_arr(e, "entries");
    while (cudw_macinfo_next(f, s, &cur, &m) == CUDW_OK) {
        em_obj(e, NULL);
        em_u64(e, "offset", start ? "0x" : NULL, EM_HEX8, m.offset);
        em_text(e, start ? ":\n" : "");
        start = m.type == 0;
        if (m.type == CUDW_DW_MACINFO_end_file && depth)
            depth--;
        for (int k = 0; k < depth && m.type; k++)
            em_text(e, "  ");
        em_str(e, "type", m.type ? "" : NULL, 0, m.type ? cudw_macinfo_name(m.type) : "end");
        int def = m.type == CUDW_DW_MACINFO_define || m.type == CUDW_DW_MACINFO_undef;
        int file = m.type == CUDW_DW_MACINFO_start_file;
        if (def || file)
            em_u64(e, "line", " - lineno: ", EM_DEC, m.line);
        if (file)
            em_u64(e, "file", " filenum: ", EM_DEC, m.file);
        if (m.type == CUDW_DW_MACINFO_vendor_ext)
            em_u64(e, "constant", " - constant: ", EM_DEC, m.constant);
        if (m.string)
            em_str(e, "string", def ? " macro: " : m.type == CUDW_DW_MACINFO_vendor_ext ? " string: " : NULL, 0,
                   m.string);
        em_text(e, m.type ? "\n" : "");
        em_end_obj(e);
        if (file)
            depth++;
    }
    em_end_arr(e);
}

static void str_print(cudw_file *f, const cudw_section *s, int kind, emit *e)
{
    (void)f;
    (void)kind;
    em_arr(e, "strings");
    for (uint64_t at = 0; s->data && at < s->data_size;) {
        const char *p = (const char *)s->data + at;
        const char *z = memchr(p, 0, s->data_size - at);
        size_t n = z ? (size_t)(z - p) : (size_t)(s->data_size - at);
        em_obj(e, NULL);
        em_u64(e, "offset", "  [", EM_HEX_W6, at);
        if (e->j) { /* JSON escapes; the text shows bytes outside ASCII as \xNN */
            json_strn(e->j, "string", p, n);
        } else {
            ob_puts(e->o, "]  ");
            str_out(e->o, p, n);
            ob_putc(e->o, '\n');
        }
        em_end_obj(e);
        at += n + 1;
    }
    em_end_arr(e);
}

static void ptx_print(cudw_file *f, const cudw_section *s, int kind, emit *e)
{
    (void)kind;
    uint64_t n = 0;
    const char *t;
    if (s->data)
        cudw_ptx_line_count(f, s, &n);
    em_arr(e, "lines");
    for (uint64_t k = 1; k <= n; k++)
        if (cudw_ptx_line(f, s, k, &t) == CUDW_OK) {
            em_u64(e, NULL, "", EM_DEC_W6, k);
            em_str(e, NULL, "  ", 0, t);
            if (e->j)
                json_str(e->j, NULL, t); /* the array holds the lines themselves */
            em_text(e, "\n");
        }
    em_end_arr(e);
}

static void regs_print(cudw_file *f, const cudw_section *s, int kind, emit *e)
{
    uint64_t cur = 0;
    cudw_reg_func fn, sfn;
    const uint8_t *types = NULL;
    int sass = kind == CUDW_SEC_NV_REG_SASS;
    em_arr(e, "functions");
    while (sass ? cudw_reg_sass_next(f, s, &cur, &fn) == CUDW_OK
                : cudw_reg_type_next(f, s, &cur, &fn, &types) == CUDW_OK) {
        em_obj(e, NULL);
        em_u64(e, "offset", NULL, 0, fn.offset);
        em_str(e, "function", "  ", 0, fn.function);
        em_u64(e, NULL, ": ", EM_DEC, fn.count);
        em_text(e, " entries\n");
        em_arr(e, "entries");
        /* reg_type bytes are annotated with the PTX names of the reg_sass
         * record of the same function, when it has as many (text only) */
        const cudw_section *ss = NULL;
        int have = !sass && !e->j && find_reg_sass(f, s, fn.function, &ss, &sfn) && sfn.count == fn.count;
        uint64_t pos = sass ? fn.entries_offset : have ? sfn.entries_offset : 0;
        cudw_reg_entry x;
        char rn[48], tn[16];
        for (uint64_t k = 0; k < fn.count; k++) {
            if (sass) {
                if (cudw_reg_sass_entry(s, &fn, &pos, &x) != CUDW_OK)
                    break;
                cudw_register_name(x.sass, rn, sizeof rn);
                em_obj(e, NULL);
                em_u64(e, "index", "    ", EM_DEC_W4, x.index);
                em_str(e, "ptx", "  ", -12, x.ptx);
                em_u64(e, "sass", NULL, 0, x.sass);
                em_str(e, "register", " ", -8, rn);
                em_u64(e, NULL, " (0x", EM_HEX8, x.sass);
                em_u64(e, "start", ")  [0x", EM_HEX, x.start);
                em_u64(e, "end", ", 0x", EM_HEX, x.end);
                em_text(e, ")\n");
            } else {
                em_obj(e, NULL);
                em_u64(e, "type", "    ", EM_HEX2, types[k]);
                em_str(e, "meaning", "  ", -6, cudw_reg_type_name(types[k], tn, sizeof tn));
                if (have && cudw_reg_sass_entry(ss, &sfn, &pos, &x) == CUDW_OK)
                    em_str(e, NULL, "  ", 0, x.ptx);
                em_text(e, "\n");
            }
            em_end_obj(e);
        }
        em_end_arr(e);
        em_end_obj(e);
    }
    em_end_arr(e);
}

static void sets_print(cudw_file *f, const cudw_section *s, int kind, emit *e) { sets_each(f, s, kind, e, ""); }

void name_sets_print(cudw_file *f, const cudw_section *s, emit *e, const char *lead)
{
    sets_each(f, s, CUDW_SEC_PUBNAMES, e, lead);
}

/* each kind's printer */
static const struct printer {
    int kind;
    void (*print)(cudw_file *, const cudw_section *, int, emit *);
} printers[] = {
    {CUDW_SEC_LOC, lists_print},          {CUDW_SEC_RANGES, lists_print},     {CUDW_SEC_PUBNAMES, sets_print},
    {CUDW_SEC_PUBTYPES, sets_print},      {CUDW_SEC_ARANGES, sets_print},     {CUDW_SEC_MACINFO, macinfo_print},
    {CUDW_SEC_STR, str_print},            {CUDW_SEC_NV_PTX_TXT, ptx_print},   {CUDW_SEC_NV_REG_SASS, regs_print},
    {CUDW_SEC_NV_REG_TYPE, regs_print},
};

static const struct printer *printer_for(int kind)
{
    for (size_t i = 0; i < sizeof printers / sizeof *printers; i++)
        if (printers[i].kind == kind)
            return &printers[i];
    return NULL;
}

void misc_print(cudw_file *f, const cudw_section *s, int kind, emit *e)
{
    if (e->j)
        section_json_open(e->j, s, NULL);
    else
        ob_printf(e->o, "Contents of the %s section:\n\n", s->name);
    const struct printer *pr = printer_for(kind);
    if (pr)
        pr->print(f, s, kind, e);
    if (e->j)
        json_end_obj(e->j);
    else
        ob_putc(e->o, '\n');
}
