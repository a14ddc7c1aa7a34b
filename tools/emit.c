/* The two styles of a record's fields (emit.h). */
#include "emit.h"

void em_u64_slow(obuf *o, int style, uint64_t v)
{
    unsigned long long x = v;
    switch (style) {
    case EM_HEX_W6: ob_printf(o, "%6llx", x); break;
    case EM_DEC_W4: ob_printf(o, "%4llu", x); break;
    case EM_DEC_W6: ob_printf(o, "%6llu", x); break;
    default: ob_dec(o, v); break;
    }
}

void em_str(emit *e, const char *key, const char *label, int width, const char *v)
{
    if (e->j) {
        if (key)
            json_str(e->j, key, v);
        return;
    }
    if (label) {
        ob_puts(e->o, label);
        ob_printf(e->o, "%*s", width, v ? v : "(null)");
    }
}

/* The text style of a number (em_u64's) */
static void text_u64(obuf *o, int style, uint64_t v)
{
    emit t = {NULL, o};
    em_u64(&t, NULL, "", style, v);
}

void em_null(emit *e, const char *key)
{
    if (e->j && key)
        json_null(e->j, key);
}

void em_num(emit *e, const char *key, const char *label, int width, int64_t v)
{
    if (e->j) {
        if (key && v < 0)
            json_null(e->j, key);
        else if (key)
            json_u64(e->j, key, (uint64_t)v);
        return;
    }
    if (!label)
        return;
    char b[24];
    snprintf(b, sizeof b, v < 0 ? "-" : "%lld", (long long)v);
    ob_puts(e->o, label);
    ob_printf(e->o, "%*s", width, b);
}

void em_commas(emit *e, const char *key, const char *label, int width, uint64_t v)
{
    if (e->j) {
        if (key)
            json_u64(e->j, key, v);
    } else if (label) {
        ob_puts(e->o, label);
        ob_commas(e->o, v, width);
    }
}

void em_strn(emit *e, const char *key, const char *label, const char *v, size_t n)
{
    if (e->j) {
        if (key)
            json_strn(e->j, key, v, n);
    } else if (label) {
        ob_puts(e->o, label);
        ob_printf(e->o, "%.*s", (int)n, v);
    }
}

void em_hex(emit *e, const char *key, const char *label, const uint8_t *p, size_t n)
{
    if (e->j) {
        if (key)
            json_hex(e->j, key, p, n);
        return;
    }
    if (!label)
        return;
    ob_puts(e->o, label);
    for (size_t i = 0; i < n; i++)
        ob_printf(e->o, " %02x", p[i]);
}

void em_item(emit *e, const char *label, const char *v)
{
    if (e->j)
        json_str(e->j, NULL, v);
    else if (label) {
        ob_puts(e->o, label);
        ob_puts(e->o, v);
    }
}

void em_item_u64(emit *e, const char *label, int style, uint64_t v)
{
    if (e->j) {
        json_u64(e->j, NULL, v);
    } else if (label) {
        ob_puts(e->o, label);
        text_u64(e->o, style, v);
    }
}

void em_i64(emit *e, const char *key, const char *label, int plus, int64_t v)
{
    if (e->j) {
        if (key)
            json_i64(e->j, key, v);
    } else if (label) {
        ob_puts(e->o, label);
        if (plus && v >= 0)
            ob_putc(e->o, '+');
        ob_sdec(e->o, v);
    }
}

void em_item_i64(emit *e, const char *label, int64_t v)
{
    if (e->j) {
        json_i64(e->j, NULL, v);
    } else if (label) {
        ob_puts(e->o, label);
        ob_sdec(e->o, v);
    }
}

/* n spaces, a run at a time (em_name's padding) */
static void spaces(obuf *o, size_t n)
{
    static const char run[] = "                                ";
    for (size_t k; n; n -= k) {
        k = n < sizeof run - 1 ? n : sizeof run - 1;
        ob_write(o, run, k);
    }
}

void em_name(emit *e, const char *key, const char *label, int width, const char *v)
{
    if (e->j) {
        if (key)
            json_name(e->j, key, v);
        return;
    }
    if (!label)
        return;
    size_t n = strlen(v), w = (size_t)(width < 0 ? -width : width), pad = n < w ? w - n : 0;
    ob_puts(e->o, label);
    if (width > 0)
        spaces(e->o, pad);
    ob_write(e->o, v, n);
    if (width < 0)
        spaces(e->o, pad);
}

void em_sym(emit *e, const char *sym_key, const char *add_key, const char *label, const char *sym, int64_t addend)
{
    if (e->j) {
        if (sym_key)
            json_str(e->j, sym_key, sym);
        if (add_key)
            json_i64(e->j, add_key, addend);
        return;
    }
    if (!label)
        return;
    ob_puts(e->o, label);
    ob_puts(e->o, sym);
    if (addend) {
        ob_puts(e->o, addend < 0 ? "-0x" : "+0x");
        ob_hex(e->o, addend < 0 ? -(uint64_t)addend : (uint64_t)addend);
    }
}
