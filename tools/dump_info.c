/* cudwarf dump --abbrev and --info: abbreviation tables, and the DIE trees
 * of .debug_info, .nv_debug_info_ptx and .nv.merc.debug_info with every
 * value decoded (forms, enumerations, expressions, relocations).  Each
 * record has one printer through the emitter (emit.h): text in readelf's
 * and llvm-dwarfdump's layouts, JSON under its keys. */
#include "cli.h"
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* ---- values ---- */

static const char *enum_text(uint32_t at, uint64_t v)
{
    switch (at) {
    case CUDW_DW_AT_language: return cudw_lang_name(v);
    case CUDW_DW_AT_encoding: return cudw_ate_name(v);
    case CUDW_DW_AT_inline: return cudw_inline_name(v);
    case CUDW_DW_AT_accessibility: return cudw_access_name(v);
    case CUDW_DW_AT_address_class: return cudw_address_class_name(v);
    default: return NULL;
    }
}

static uint64_t block_base(const cudw_attr *a) { return a->offset + (a->size - a->block_len); }

/* A number's enumeration name and relocation: text " (DW_LANG_C)" and
 * " (sym+0x10)" when shown, JSON "text", "symbol", "addend", "reloc_type". */
static void number_extras(const cudw_attr *a, int shown, emit *e)
{
    const char *name = enum_text(a->name, a->u);
    if (name) {
        em_name(e, "text", shown ? " (" : NULL, 0, name);
        em_text(e, shown ? ")" : "");
    }
    if (a->reloc) {
        const char *tn = cudw_reloc_type_name(a->reloc->type);
        em_sym(e, "symbol", "addend", shown ? " (" : NULL, a->reloc->sym_name, a->reloc->addend);
        em_text(e, shown ? ")" : "");
        em_name(e, "reloc_type", NULL, 0, tn ? tn : "unknown");
    }
}

/* A block: text "3 byte block: 90 b1 e4 (DW_OP_regx: R1)" (the bytes in
 * hex without padding), JSON "value" its bytes and "expression" */
static void block_print(cudw_file *f, const cudw_unit *u, const cudw_attr *a, emit *e)
{
    static const char hx[] = "0123456789abcdef";
    em_u64(e, NULL, "", EM_DEC, a->block_len);
    em_text(e, " byte block:");
    for (uint64_t i = 0; i < a->block_len && !e->j; i++) {
        uint8_t v = a->block[i];
        char b[4] = " ", *p = b + 1;
        if (v >= 16)
            *p++ = hx[v >> 4];
        *p++ = hx[v & 15];
        *p = 0;
        em_text(e, b);
    }
    em_hex(e, "value", NULL, a->block, a->block_len);
    if (cudw_attr_is_expr(a->name)) {
        em_text(e, " (");
        expr_print(f, u->section, block_base(a), a->block, a->block_len, u->addr_size, e);
        em_text(e, ")");
    }
}

/* An attribute's value: text as llvm-dwarfdump shows it, JSON "value" and
 * what explains it */
static void value_print(cudw_file *f, const cudw_unit *u, const cudw_attr *a, emit *e)
{
    int strp = a->form == CUDW_DW_FORM_strp;
    switch (a->vclass) {
    case CUDW_V_STRING:
        if (strp) {
            em_u64(e, NULL, "(indirect string, offset: 0x", EM_HEX, a->u);
            em_text(e, "): ");
        }
        em_str_or(e, "value", "", a->str, "(null)");
        if (strp)
            em_u64(e, "str_offset", NULL, 0, a->u);
        break;
    case CUDW_V_SIGNED: em_i64(e, "value", "", 0, a->s); break;
    case CUDW_V_FLAG:
        em_u64(e, NULL, "", EM_DEC, a->u);
        em_bool(e, "value", a->u != 0);
        break;
    case CUDW_V_REF: /* the text shows the offset alone */
        em_u64(e, "value", "<0x", EM_HEX, a->u);
        em_text(e, ">");
        number_extras(a, 0, e);
        break;
    case CUDW_V_BLOCK: block_print(f, u, a, e); break;
    default:
        if (a->form == CUDW_DW_FORM_udata)
            em_u64(e, "value", "", EM_DEC, a->u);
        else
            em_u64(e, "value", "0x", EM_HEX, a->u);
        number_extras(a, 1, e);
    }
}

/* The name, or PREFIX0xCODE in buf for a code without one (only then
 * formatted: three per attribute were a third of `dump --info --json`). */
#if defined(__GNUC__)
__attribute__((warn_unused_result))
#endif
static const char *name_or_code(char *buf, size_t n, const char *name, const char *prefix, uint64_t v)
{
    if (name)
        return name;
    snprintf(buf, n, "%s0x%llx", prefix, (unsigned long long)v);
    return buf;
}

/* ---- .debug_abbrev ---- */

/* An attribute specification: text "    DW_AT_name(0x3)  DW_FORM_string(0x8)"
 * (the left column 34 wide), JSON its names and codes */
static void spec_print(const cudw_abbrev_spec *sp, emit *e)
{
    char ab[64], fb[64], left[96] = "";
    const char *an = name_or_code(ab, sizeof ab, cudw_at_name(sp->name), "DW_AT_", sp->name);
    const char *fn = name_or_code(fb, sizeof fb, cudw_form_name(sp->form), "DW_FORM_", sp->form);
    em_obj(e, NULL);
    if (!e->j) /* the text's left column: name and code, padded together */
        snprintf(left, sizeof left, "%s(0x%x)", an, sp->name);
    em_name(e, NULL, "    ", -34, left);
    em_name(e, "name", NULL, 0, an);
    em_u64(e, "at", NULL, 0, sp->name);
    em_name(e, "form", " ", 0, fn);
    em_u64(e, "form_code", "(0x", EM_HEX, sp->form);
    em_text(e, ")\n");
    em_end_obj(e);
}

/* An abbreviation: text "   1      0x11 DW_TAG_compile_unit    [has children]"
 * and its specifications */
static void abbreviation_print(const cudw_abbrev *a, emit *e)
{
    char tb[64], code[24];
    const char *tn = name_or_code(tb, sizeof tb, cudw_tag_name(a->tag), "DW_TAG_", a->tag);
    em_obj(e, NULL);
    snprintf(code, sizeof code, "%llu", (unsigned long long)a->code);
    em_name(e, NULL, "   ", -6, code); /* left-aligned */
    em_u64(e, "code", NULL, 0, a->code);
    em_u64(e, "entry_offset", NULL, 0, a->offset);
    em_u64(e, NULL, " 0x", EM_HEX2, a->tag);
    em_name(e, "abbrev_tag", " ", 0, tn);
    em_u64(e, "tag_code", NULL, 0, a->tag);
    em_bool(e, "children", a->has_children);
    em_text(e, a->has_children ? "    [has children]\n" : "    [no children]\n");
    em_arr(e, "specs");
    for (uint32_t k = 0; k < a->nattrs; k++)
        spec_print(&a->attrs[k], e);
    em_end_arr(e);
    em_end_obj(e);
}

/* The section's tables, each at its offset (dump --abbrev) */
void abbrev_print(cudw_file *f, const cudw_section *s, emit *e)
{
    for (uint64_t off = 0; off < s->data_size;) {
        const cudw_abbrev_table *t;
        cudw_abbrev_table_get(f, s, off, &t); /* checked by the walk */
        em_obj(e, NULL);
        em_u64(e, "table_offset", "  Number TAG (0x", EM_HEX, off);
        em_text(e, ")\n");
        em_arr(e, "entries");
        for (size_t i = 0; i < t->count; i++)
            abbreviation_print(&t->entries[i], e);
        em_end_arr(e);
        em_end_obj(e);
        off = t->end;
    }
}

/* ---- info sections ---- */

/* A DIE's head: text readelf's " <1><2d>: Abbrev Number: 3 (0x2e
 * DW_TAG_subprogram)", JSON its fields */
static void die_head(const cudw_die *d, emit *e)
{
    char tb[64];
    const char *nm;
    em_u64(e, "offset", NULL, 0, d->offset);
    em_u64(e, "depth", " <", EM_DEC, d->depth);
    em_u64(e, NULL, "><", EM_HEX, d->offset);
    em_u64(e, "code", ">: Abbrev Number: ", EM_DEC, d->code);
    em_u64(e, NULL, " (0x", EM_HEX2, d->tag);
    em_name(e, "tag", " ", 0, name_or_code(tb, sizeof tb, cudw_tag_name(d->tag), "DW_TAG_", d->tag));
    em_text(e, ")\n");
    em_bool(e, "has_children", d->has_children);
    if (e->j && cudw_die_name(d, &nm) == CUDW_OK)
        em_str(e, "name", NULL, 0, nm);
}

/* An attribute: text "    <2e>   DW_AT_name              : value" (the
 * name padded to 24), JSON its names and value */
static void attr_print(cudw_file *f, const cudw_unit *u, const cudw_attr *a, emit *e)
{
    char ab[64], fb[64];
    const char *an = name_or_code(ab, sizeof ab, cudw_at_name(a->name), "DW_AT_", a->name);
    int digits = 1;
    for (uint64_t v = a->offset >> 4; v; v >>= 4)
        digits++;
    em_obj(e, NULL);
    em_u64(e, NULL, "    <", EM_HEX, a->offset);
    em_name(e, NULL, ">", digits < 8 ? digits - 8 : -1, ""); /* spaces: the name at column 14, or one */
    em_name(e, "name", "", -24, an);
    em_u64(e, "at", NULL, 0, a->name);
    em_name(e, "form", NULL, 0, name_or_code(fb, sizeof fb, cudw_form_name(a->form), "DW_FORM_", a->form));
    em_text(e, ": ");
    if (a->indirect) {
        em_bool(e, "indirect", 1);
        em_str(e, NULL, "(indirect ", 0, cudw_form_name(a->form));
        em_text(e, ") ");
    }
    em_u64(e, "value_offset", NULL, 0, a->offset);
    value_print(f, u, a, e);
    em_text(e, "\n");
    em_end_obj(e);
}

static void dies_print(cudw_file *f, const cudw_unit *u, emit *e)
{
    cudw_die_iter it;
    cudw_die d;
    em_arr(e, "dies");
    cudw_die_iter_init(u, &it);
    while (cudw_die_next(&it, &d) == CUDW_OK) {
        em_obj(e, NULL);
        die_head(&d, e);
        em_arr(e, "attributes");
        cudw_attr_iter ai;
        cudw_attr a;
        cudw_attr_iter_init(&d, &ai);
        while (cudw_attr_next(&ai, &a) == CUDW_OK)
            attr_print(f, u, &a, e);
        em_end_arr(e);
        em_end_obj(e);
        cudw_die_iter_resume(&it, &ai);
    }
    em_end_arr(e);
}

/* A unit's header (readelf's layout), then its DIEs */
static void unit_print(cudw_file *f, const cudw_unit *u, emit *e)
{
    const cudw_reloc *r = u->abbrev_reloc;
    em_obj(e, NULL);
    em_u64(e, "unit_offset", "  Compilation Unit @ offset 0x", EM_HEX, u->offset);
    em_u64(e, "length", ":\n   Length:        0x", EM_HEX, u->length);
    em_u64(e, "version", " (32-bit)\n   Version:       ", EM_DEC, u->version);
    em_u64(e, "address_size", NULL, 0, u->addr_size);
    em_u64(e, "abbrev_offset", "\n   Abbrev Offset: 0x", EM_HEX, u->abbrev_offset);
    if (r) {
        em_sym(e, "abbrev_symbol", "abbrev_addend", " (", r->sym_name, r->addend);
        em_text(e, ")");
    }
    em_u64(e, NULL, "\n   Pointer Size:  ", EM_DEC, u->addr_size);
    em_text(e, "\n");
    dies_print(f, u, e);
    em_end_obj(e);
}

/* The section's units (dump --info) */
void info_print(cudw_file *f, const cudw_section *s, emit *e)
{
    uint64_t cur = 0;
    cudw_unit u;
    while (cudw_unit_next(f, s, &cur, &u) == CUDW_OK)
        unit_print(f, &u, e);
}
