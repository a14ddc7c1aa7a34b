/* The two styles of a record's fields (emit.h). */
#include "emit.h"

void em_u64(emit *e, const char *key, const char *label, int style, uint64_t v)
{
    if (e->j) {
        if (key)
            json_u64(e->j, key, v);
        return;
    }
    if (!label)
        return;
    obuf *o = e->o;
    unsigned long long x = v;
    ob_puts(o, label);
    switch (style) {
    case EM_HEX: ob_hex(o, v); break;
    case EM_HEX8: ob_hex_pad(o, v, 8); break;
    case EM_HEX16: ob_hex_pad(o, v, 16); break;
    case EM_HEX2: ob_hex_pad(o, v, 2); break;
    case EM_HEX_W6: ob_printf(o, "%6llx", x); break;
    case EM_DEC_W4: ob_printf(o, "%4llu", x); break;
    case EM_DEC_W6: ob_printf(o, "%6llu", x); break;
    default: ob_printf(o, "%llu", x); break;
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

void em_text(emit *e, const char *text)
{
    if (!e->j)
        ob_puts(e->o, text);
}

void em_obj(emit *e, const char *key)
{
    if (e->j)
        json_obj(e->j, key);
}

void em_end_obj(emit *e)
{
    if (e->j)
        json_end_obj(e->j);
}

void em_arr(emit *e, const char *key)
{
    if (e->j)
        json_arr(e->j, key);
}

void em_end_arr(emit *e)
{
    if (e->j)
        json_end_arr(e->j);
}
