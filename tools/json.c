#include "json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void json_init(json *j, obuf *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->first[0] = 1;
}

static void sep(json *j, const char *key) { ob_commit(j->out, json_sep(j, key, 0)); }

void json_enter_arr(json *j)
{
    if (j->depth + 1 < (int)sizeof j->first)
        j->depth++;
    j->first[j->depth] = 1;
}

/* Any byte of the 8 that JSON needs escaped (< 0x20, '"', '\\', >= 0x7f)?
 * Word-at-a-time: paths and symbol names fill `lines --json`, and a byte
 * loop over them was half its time.  The tests below are exact as
 * booleans (they may flag the wrong byte, never a wrong word). */
static inline int needs_escape8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t quote = x ^ (ones * '"'), bslash = x ^ (ones * '\\'), del = x ^ (ones * 0x7f);
    uint64_t low = (x - ones * 0x20) & ~x;
    uint64_t zero = ((quote - ones) & ~quote) | ((bslash - ones) & ~bslash) | ((del - ones) & ~del);
    return ((low | zero) & high) || (x & high);
}

void json_strn(json *j, const char *key, const char *v, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    sep(j, key);
    obuf *o = j->out;
    ob_putc(o, '"');
    const unsigned char *s = (const unsigned char *)v;
    size_t run = 0, i = 0;
    for (; i + 8 <= n; i += 8) { /* clean words go by whole */
        uint64_t x;
        memcpy(&x, s + i, 8);
        if (needs_escape8(x))
            break;
    }
    run = i;
    for (; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7f) {
            run++;
            continue;
        }
        if (run)
            ob_write(o, s + i - run, run);
        run = 0;
        switch (c) {
        case '"': ob_puts(o, "\\\""); break;
        case '\\': ob_puts(o, "\\\\"); break;
        case '\n': ob_puts(o, "\\n"); break;
        case '\t': ob_puts(o, "\\t"); break;
        case '\r': ob_puts(o, "\\r"); break;
        default:
            /* bytes >= 0x7f are passed as \u00XX: input strings need not be UTF-8 */
            ob_puts(o, "\\u00");
            ob_putc(o, hex[c >> 4]);
            ob_putc(o, hex[c & 15]);
        }
    }
    if (run)
        ob_write(o, s + n - run, run);
    ob_putc(o, '"');
}

/* v escaped and quoted into e: clean 8-byte words copied whole */
static int memo_fill(struct json_memo_slot *e, const char *v)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(v);
    if (e->cap < 6 * n + 2) { /* every byte as \u00XX at most */
        char *x = realloc(e->esc, 6 * n + 2);
        if (!x)
            return -1;
        e->esc = x;
        e->cap = 6 * n + 2;
    }
    const unsigned char *p = (const unsigned char *)v;
    char *d = e->esc;
    *d++ = '"';
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        if (needs_escape8(x))
            break;
        memcpy(d, &x, 8);
        d += 8;
    }
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7f) {
            *d++ = (char)c;
            continue;
        }
        *d++ = '\\';
        switch (c) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '\n': *d++ = 'n'; break;
        case '\t': *d++ = 't'; break;
        case '\r': *d++ = 'r'; break;
        default: /* as json_strn: \u00XX */
            memcpy(d, "u00", 3);
            d[3] = hex[c >> 4];
            d[4] = hex[c & 15];
            d += 5;
        }
    }
    *d++ = '"';
    e->n = (size_t)(d - e->esc);
    e->v = v;
    return 0;
}

struct json_memo_slot *json_memo_slot_of(json_memo *m, const char *v)
{
    uintptr_t a = (uintptr_t)v;
    struct json_memo_slot *e = &m->slot[(a ^ a >> 6 ^ a >> 12) & (JSON_MEMO_SLOTS - 1)];
    return v == e->v || !memo_fill(e, v) ? e : NULL;
}

void json_memo_free(json_memo *m)
{
    for (int i = 0; i < JSON_MEMO_SLOTS; i++)
        free(m->slot[i].esc);
    memset(m, 0, sizeof *m);
}

void json_str(json *j, const char *key, const char *v)
{
    if (!v) {
        json_null(j, key);
        return;
    }
    json_strn(j, key, v, strlen(v));
}

void json_i64(json *j, const char *key, int64_t v)
{
    sep(j, key);
    ob_sdec(j->out, v);
}

void json_hex(json *j, const char *key, const uint8_t *p, size_t n)
{
    char *d = json_sep(j, key, 1);
    *d++ = '"';
    ob_commit(j->out, d);
    while (n) { /* in pieces the buffer has room for */
        size_t k = n < 1024 ? n : 1024;
        d = ob_room(j->out, 2 * k);
        for (size_t i = 0; i < k; i++, d += 2)
            memcpy(d, ob_hex2 + 2 * p[i], 2);
        ob_commit(j->out, d);
        p += k;
        n -= k;
    }
    ob_putc(j->out, '"');
}
