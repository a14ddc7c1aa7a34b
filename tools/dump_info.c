/* cudwarf dump --abbrev and --info: abbreviation tables, and the DIE trees
 * of .debug_info, .nv_debug_info_ptx and .nv.merc.debug_info with every
 * value decoded (forms, enumerations, expressions, relocations), as text
 * in llvm-dwarfdump's layout or as JSON. */
#include "cli.h"

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

static void value_text(cudw_file *f, const cudw_unit *u, const cudw_attr *a, obuf *out)
{
    switch (a->vclass) {
    case CUDW_V_STRING:
        if (a->form == CUDW_DW_FORM_strp) {
            ob_puts(out, "(indirect string, offset: 0x");
            ob_hex(out, a->u);
            ob_puts(out, "): ");
        }
        ob_puts(out, a->str);
        break;
    case CUDW_V_SIGNED:
        ob_sdec(out, a->s);
        break;
    case CUDW_V_FLAG:
        ob_dec(out, a->u);
        break;
    case CUDW_V_REF:
        ob_puts(out, "<0x");
        ob_hex(out, a->u);
        ob_putc(out, '>');
        break;
    case CUDW_V_BLOCK: {
        static const char hx[] = "0123456789abcdef";
        ob_dec(out, a->block_len);
        ob_puts(out, " byte block:");
        for (uint64_t i = 0; i < a->block_len; i++) {
            uint8_t b = a->block[i];
            ob_putc(out, ' ');
            if (b >= 16)
                ob_putc(out, hx[b >> 4]);
            ob_putc(out, hx[b & 15]);
        }
        if (cudw_attr_is_expr(a->name)) {
            ob_puts(out, " (");
            expr_text(f, u->section, block_base(a), a->block, a->block_len, u->addr_size, out);
            ob_putc(out, ')');
        }
        break;
    }
    default: {
        const char *e = enum_text(a->name, a->u);
        if (a->form == CUDW_DW_FORM_udata) {
            ob_dec(out, a->u);
        } else {
            ob_puts(out, "0x");
            ob_hex(out, a->u);
        }
        if (e) {
            ob_puts(out, " (");
            ob_puts(out, e);
            ob_putc(out, ')');
        }
        if (a->reloc) {
            ob_puts(out, " (");
            reloc_out(a->reloc, out);
            ob_putc(out, ')');
        }
    }
    }
}

static void value_json(cudw_file *f, const cudw_unit *u, const cudw_attr *a, json *j)
{
    switch (a->vclass) {
    case CUDW_V_STRING:
        json_str(j, "value", a->str);
        if (a->form == CUDW_DW_FORM_strp)
            json_u64(j, "str_offset", a->u);
        break;
    case CUDW_V_SIGNED:
        json_i64(j, "value", a->s);
        break;
    case CUDW_V_FLAG:
        json_bool(j, "value", a->u != 0);
        break;
    case CUDW_V_BLOCK:
        json_hex(j, "value", a->block, a->block_len);
        if (cudw_attr_is_expr(a->name))
            expr_json(f, u->section, block_base(a), a->block, a->block_len, u->addr_size, j);
        break;
    default: {
        json_u64(j, "value", a->u);
        const char *e = enum_text(a->name, a->u);
        if (e)
            json_name(j, "text", e);
        if (a->reloc) {
            json_str(j, "symbol", a->reloc->sym_name);
            json_i64(j, "addend", a->reloc->addend);
            const char *tn = cudw_reloc_type_name(a->reloc->type);
            json_name(j, "reloc_type", tn ? tn : "unknown");
        }
    }
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

void abbrev_text(cudw_file *f, const cudw_section *s, obuf *o)
{
    ob_printf(o, "Contents of the %s section:\n\n", s->name);
    for (uint64_t off = 0; off < s->data_size;) {
        const cudw_abbrev_table *t;
        cudw_abbrev_table_get(f, s, off, &t); /* checked by the walk */
        ob_printf(o, "  Number TAG (0x%llx)\n", (unsigned long long)off);
        for (size_t i = 0; i < t->count; i++) {
            const cudw_abbrev *a = &t->entries[i];
            char tb[64];
            const char *tn = name_or_code(tb, sizeof tb, cudw_tag_name(a->tag), "DW_TAG_", a->tag);
            ob_printf(o, "   %-6llu 0x%02x %s    [%s]\n", (unsigned long long)a->code, a->tag, tn,
                      a->has_children ? "has children" : "no children");
            for (uint32_t k = 0; k < a->nattrs; k++) {
                char ab[64], fb[64];
                const char *an = name_or_code(ab, sizeof ab, cudw_at_name(a->attrs[k].name), "DW_AT_", a->attrs[k].name);
                const char *fn = name_or_code(fb, sizeof fb, cudw_form_name(a->attrs[k].form), "DW_FORM_", a->attrs[k].form);
                char left[96];
                snprintf(left, sizeof left, "%s(0x%x)", an, a->attrs[k].name);
                ob_printf(o, "    %-34s %s(0x%x)\n", left, fn, a->attrs[k].form);
            }
        }
        off = t->end;
    }
    ob_putc(o, '\n');
}

void abbrev_json(cudw_file *f, const cudw_section *s, json *j)
{
    section_json_open(j, s, "tables");
    for (uint64_t off = 0; off < s->data_size;) {
        const cudw_abbrev_table *t;
        cudw_abbrev_table_get(f, s, off, &t);
        json_obj(j, NULL);
        json_u64(j, "table_offset", off);
        json_arr(j, "entries");
        for (size_t i = 0; i < t->count; i++) {
            const cudw_abbrev *a = &t->entries[i];
            char tb[64];
            json_obj(j, NULL);
            json_u64(j, "code", a->code);
            json_u64(j, "entry_offset", a->offset);
            const char *tn = name_or_code(tb, sizeof tb, cudw_tag_name(a->tag), "DW_TAG_", a->tag);
            json_name(j, "abbrev_tag", tn);
            json_u64(j, "tag_code", a->tag);
            json_bool(j, "children", a->has_children);
            json_arr(j, "specs");
            for (uint32_t k = 0; k < a->nattrs; k++) {
                char ab[64], fb[64];
                const char *an = name_or_code(ab, sizeof ab, cudw_at_name(a->attrs[k].name), "DW_AT_", a->attrs[k].name);
                const char *fn = name_or_code(fb, sizeof fb, cudw_form_name(a->attrs[k].form), "DW_FORM_", a->attrs[k].form);
                json_obj(j, NULL);
                json_name(j, "name", an);
                json_u64(j, "at", a->attrs[k].name);
                json_name(j, "form", fn);
                json_u64(j, "form_code", a->attrs[k].form);
                json_end_obj(j);
            }
            json_end_arr(j);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_end_obj(j);
        off = t->end;
    }
    json_end_arr(j);
    json_end_obj(j);
}

/* ---- info sections ---- */

/* " <%d><%x>: Abbrev Number: %d (0x%02x %s)": readelf's line of a DIE */
static void die_line(const cudw_die *d, obuf *o)
{
    char tb[64];
    ob_puts(o, " <");
    ob_dec(o, d->depth);
    ob_puts(o, "><");
    ob_hex(o, d->offset);
    ob_puts(o, ">: Abbrev Number: ");
    ob_dec(o, d->code);
    ob_puts(o, d->tag < 16 ? " (0x0" : " (0x");
    ob_hex(o, d->tag);
    ob_putc(o, ' ');
    ob_puts(o, name_or_code(tb, sizeof tb, cudw_tag_name(d->tag), "DW_TAG_", d->tag));
    ob_puts(o, ")\n");
}

/* "    <pos>   NAME                    : ": an attribute's line up to its
 * value (the position's column is 13 wide in all) */
static void attr_head(const cudw_attr *a, obuf *o)
{
    char an[64];
    ob_puts(o, "    <");
    ob_hex(o, a->offset);
    ob_putc(o, '>');
    size_t w = 6;
    for (uint64_t v = a->offset >> 4; v; v >>= 4)
        w++;
    do
        ob_putc(o, ' ');
    while (++w < 13);
    ob_pad(o, name_or_code(an, sizeof an, cudw_at_name(a->name), "DW_AT_", a->name), 24);
    ob_puts(o, ": ");
    if (a->indirect) {
        ob_puts(o, "(indirect ");
        ob_puts(o, cudw_form_name(a->form));
        ob_puts(o, ") ");
    }
}

void info_text(cudw_file *f, const cudw_section *s, obuf *o)
{
    ob_printf(o, "Contents of the %s section:\n\n", s->name);
    uint64_t cur = 0;
    cudw_unit u;
    while (cudw_unit_next(f, s, &cur, &u) == CUDW_OK) {
        ob_printf(o, "  Compilation Unit @ offset 0x%llx:\n", (unsigned long long)u.offset);
        ob_printf(o, "   Length:        0x%llx (32-bit)\n", (unsigned long long)u.length);
        ob_printf(o, "   Version:       %u\n", u.version);
        ob_printf(o, "   Abbrev Offset: 0x%llx", (unsigned long long)u.abbrev_offset);
        if (u.abbrev_reloc) {
            char rb[300];
            reloc_text(u.abbrev_reloc, rb, sizeof rb);
            ob_printf(o, " (%s)", rb);
        }
        ob_printf(o, "\n   Pointer Size:  %u\n", u.addr_size);
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while (cudw_die_next(&it, &d) == CUDW_OK) {
            die_line(&d, o);
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while (cudw_attr_next(&ai, &a) == CUDW_OK) {
                attr_head(&a, o);
                value_text(f, &u, &a, o);
                ob_putc(o, '\n');
            }
            cudw_die_iter_resume(&it, &ai);
        }
    }
    ob_putc(o, '\n');
}

void info_json(cudw_file *f, const cudw_section *s, json *j)
{
    section_json_open(j, s, "units");
    uint64_t cur = 0;
    cudw_unit u;
    while (cudw_unit_next(f, s, &cur, &u) == CUDW_OK) {
        json_obj(j, NULL);
        json_u64(j, "unit_offset", u.offset);
        json_u64(j, "length", u.length);
        json_u64(j, "version", u.version);
        json_u64(j, "address_size", u.addr_size);
        json_u64(j, "abbrev_offset", u.abbrev_offset);
        if (u.abbrev_reloc) {
            json_str(j, "abbrev_symbol", u.abbrev_reloc->sym_name);
            json_i64(j, "abbrev_addend", u.abbrev_reloc->addend);
        }
        json_arr(j, "dies");
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while (cudw_die_next(&it, &d) == CUDW_OK) {
            char tb[64];
            json_obj(j, NULL);
            json_u64(j, "offset", d.offset);
            json_u64(j, "depth", d.depth);
            json_u64(j, "code", d.code);
            const char *tn = name_or_code(tb, sizeof tb, cudw_tag_name(d.tag), "DW_TAG_", d.tag);
            json_name(j, "tag", tn);
            json_bool(j, "has_children", d.has_children);
            const char *nm;
            if (cudw_die_name(&d, &nm) == CUDW_OK)
                json_str(j, "name", nm);
            json_arr(j, "attributes");
            cudw_attr_iter ai;
            cudw_attr a;
            cudw_attr_iter_init(&d, &ai);
            while (cudw_attr_next(&ai, &a) == CUDW_OK) {
                char ab[64], fb[64];
                json_obj(j, NULL);
                const char *an = name_or_code(ab, sizeof ab, cudw_at_name(a.name), "DW_AT_", a.name);
                const char *fn = name_or_code(fb, sizeof fb, cudw_form_name(a.form), "DW_FORM_", a.form);
                json_name(j, "name", an);
                json_u64(j, "at", a.name);
                json_name(j, "form", fn);
                if (a.indirect)
                    json_bool(j, "indirect", 1);
                json_u64(j, "value_offset", a.offset);
                value_json(f, &u, &a, j);
                json_end_obj(j);
            }
            json_end_arr(j);
            json_end_obj(j);
            cudw_die_iter_resume(&it, &ai);
        }
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
