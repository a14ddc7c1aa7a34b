/* One printer per record, two styles: the shape of llvm-readobj's
 * ScopedPrinter and JSONScopedPrinter in one.  A printer names each field
 * of a record once; the JSON style writes it under its key, the text style
 * in the record's own readelf-like layout: a label before it and the way
 * its number is shown.  A field with no label is JSON's alone, one with
 * no key the text's alone; objects and arrays are JSON's structure, and
 * lines only the text has go through em_text.
 *
 *     em_obj(e, NULL);
 *     em_u64(e, "offset", NULL, 0, set.offset);                  JSON only
 *     em_u64(e, "length", "  length 0x", EM_HEX8, set.length);   both
 *     em_text(e, "\n");                                          text only
 *     em_end_obj(e);
 */
#ifndef CUDW_TOOLS_EMIT_H
#define CUDW_TOOLS_EMIT_H

#include "json.h"
#include "out.h"

typedef struct emit {
    json *j;                  /* the JSON style when set */
    obuf *o;                  /* the text style otherwise */
} emit;

/* How the text shows a number (printf's %llu, %llx, %08llx, %016llx,
 * %6llx, %4llu, %6llu, %02llx) */
enum { EM_DEC, EM_HEX, EM_HEX8, EM_HEX16, EM_HEX_W6, EM_DEC_W4, EM_DEC_W6, EM_HEX2 };

/* em_u64 (below, inline): JSON key v; text label, then v in style */

/* text: label, then v padded to width (negative: left-aligned) */
void em_str(emit *e, const char *key, const char *label, int width, const char *v);

/* JSON only: null (a field the input does not record) */
void em_null(emit *e, const char *key);
/* a count that may be unknown (v < 0): JSON v or null; text label, then v
 * or "-" padded to width (negative: left-aligned) */
void em_num(emit *e, const char *key, const char *label, int width, int64_t v);
/* JSON v; text label, then v with thousands separators, padded to width */
void em_commas(emit *e, const char *key, const char *label, int width, uint64_t v);
/* a string of n bytes: JSON escaped; text label, then v up to a NUL */
void em_strn(emit *e, const char *key, const char *label, const char *v, size_t n);
/* bytes: JSON one hex string ("90b1e4"); text label, then " %02x" each */
void em_hex(emit *e, const char *key, const char *label, const uint8_t *p, size_t n);
/* an element of the open array (JSON); text label, then v (no label: JSON only) */
void em_item(emit *e, const char *label, const char *v);
void em_item_u64(emit *e, const char *label, int style, uint64_t v);

/* a signed number: JSON v; text label, then v ('+' before v >= 0 when plus: "CFA+8") */
void em_i64(emit *e, const char *key, const char *label, int plus, int64_t v);
/* a signed element of the open array (as em_item_u64) */
void em_item_i64(emit *e, const char *label, int64_t v);
/* a name from the library's tables: em_str (padded to width) without JSON escaping or printf */
void em_name(emit *e, const char *key, const char *label, int width, const char *v);
/* a relocation: JSON sym and addend (add_key NULL: none); text label, "sym+0x10" ("sym" for 0) */
void em_sym(emit *e, const char *sym_key, const char *add_key, const char *label, const char *sym, int64_t addend);

/* The hot ones are inline: a label is a literal, so its length is a
 * constant, and a row of `lines` is a dozen of these (out of line, they
 * made it twice as slow). */

/* the number styles printf does (EM_HEX_W6, EM_DEC_W4, EM_DEC_W6) */
void em_u64_slow(obuf *o, int style, uint64_t v);

static inline void em_u64(emit *e, const char *key, const char *label, int style, uint64_t v)
{
    if (e->j) {
        if (key)
            json_u64(e->j, key, v);
        return;
    }
    if (!label)
        return;
    obuf *o = e->o;
    ob_puts(o, label);
    switch (style) {
    case EM_DEC: ob_dec(o, v); break;
    case EM_HEX: ob_hex(o, v); break;
    case EM_HEX8:
        if (v <= 0xffffffffu) /* an address: the common case */
            ob_commit(o, put_hex8(ob_room(o, 8), (uint32_t)v));
        else
            ob_hex_pad(o, v, 8);
        break;
    case EM_HEX16: ob_hex_pad(o, v, 16); break;
    case EM_HEX2: ob_hex_pad(o, v, 2); break;
    default: em_u64_slow(o, style, v); break;
    }
}

static inline void em_text(emit *e, const char *text)
{
    if (!e->j)
        ob_puts(e->o, text);
}

static inline void em_obj(emit *e, const char *key)
{
    if (e->j)
        json_obj(e->j, key);
}

static inline void em_end_obj(emit *e)
{
    if (e->j)
        json_end_obj(e->j);
}

static inline void em_arr(emit *e, const char *key)
{
    if (e->j)
        json_arr(e->j, key);
}

static inline void em_end_arr(emit *e)
{
    if (e->j)
        json_end_arr(e->j);
}

/* JSON only: true or false (the text says it in its own words) */
static inline void em_bool(emit *e, const char *key, int v)
{
    if (e->j && key)
        json_bool(e->j, key, v);
}

/* a string that may be NULL: JSON v or null; text label, then v or missing */
static inline void em_str_or(emit *e, const char *key, const char *label, const char *v, const char *missing)
{
    if (e->j) {
        if (key)
            json_str(e->j, key, v);
    } else if (label) {
        ob_puts(e->o, label);
        ob_puts(e->o, v ? v : missing);
    }
}

/* em_str_or through a memo (json.h): a string that repeats row after row
 * is escaped once */
static inline void em_str_memo(emit *e, const char *key, const char *label, const char *v, const char *missing,
                               json_memo *m)
{
    if (e->j) {
        if (key)
            json_str_memo(e->j, key, v, m);
    } else if (label) {
        ob_puts(e->o, label);
        ob_puts(e->o, v ? v : missing);
    }
}

#endif
