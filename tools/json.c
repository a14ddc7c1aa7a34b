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

void json_init_html(json *j, obuf *out)
{
    json_init(j, out);
    j->html = 1;
}

/* Word-at-a-time tests: paths and symbol names fill `lines --json`, and a
 * byte loop over them was half its time.  They are exact as booleans
 * (they may flag the wrong byte, never a wrong word). */
#define ONES 0x0101010101010101ull
#define HIGH 0x8080808080808080ull

/* the high bit of a byte of x equal to b (and maybe of others) */
static inline uint64_t has_byte8(uint64_t x, unsigned char b)
{
    uint64_t y = x ^ (ONES * b);
    return (y - ONES) & ~y;
}

/* Any byte of the 8 that JSON needs escaped (< 0x20, '"', '\\', >= 0x7f)? */
static inline int needs_escape8(uint64_t x)
{
    uint64_t low = (x - ONES * 0x20) & ~x;
    return ((low | has_byte8(x, '"') | has_byte8(x, '\\') | has_byte8(x, 0x7f)) & HIGH) || (x & HIGH);
}

/* Any that html mode escapes (< 0x20, '"', '\\', 0x7f, '<', '/': a word
 * with one "/" goes to the byte loop, which escapes only "//")?  Bytes
 * >= 0x80 go as they are. */
static inline int needs_escape8_html(uint64_t x)
{
    uint64_t low = (x - ONES * 0x20) & ~x;
    uint64_t any = low | has_byte8(x, '"') | has_byte8(x, '\\') | has_byte8(x, 0x7f);
    return ((any | has_byte8(x, '<') | has_byte8(x, '/')) & HIGH) != 0;
}

/* Whether s[i] goes as it is: JSON's test, or html mode's ("/" after "/"
 * and "<" escaped, bytes >= 0x80 not) */
static inline int plain_byte(const unsigned char *s, size_t i, int html)
{
    unsigned char c = s[i];
    if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f)
        return 0;
    if (!html)
        return c < 0x7f;
    return c != '<' && !(c == '/' && i && s[i - 1] == '/');
}

/* s's n bytes escaped, without quotes.  One body for both modes, inlined
 * with html a constant: plain JSON's loop tests nothing of html's. */
static inline __attribute__((always_inline)) void put_escaped(obuf *o, const unsigned char *s, size_t n,
                                                              const int html)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0, i = 0;
    for (; i + 8 <= n; i += 8) { /* clean words go by whole */
        uint64_t x;
        memcpy(&x, s + i, 8);
        if (html ? needs_escape8_html(x) : needs_escape8(x))
            break;
    }
    run = i;
    for (; i < n; i++) {
        if (plain_byte(s, i, html)) {
            run++;
            continue;
        }
        if (run)
            ob_write(o, s + i - run, run);
        run = 0;
        unsigned char c = s[i];
        switch (c) {
        case '"': ob_puts(o, "\\\""); break;
        case '\\': ob_puts(o, "\\\\"); break;
        case '/': ob_puts(o, "\\/"); break; /* html: "//" as "/\/" */
        case '\n': ob_puts(o, "\\n"); break;
        case '\t': ob_puts(o, "\\t"); break;
        case '\r': ob_puts(o, "\\r"); break;
        default:
            /* control bytes, html's '<'; JSON's bytes >= 0x7f as \u00XX: input strings need not be UTF-8 */
            ob_puts(o, "\\u00");
            ob_putc(o, hex[c >> 4]);
            ob_putc(o, hex[c & 15]);
        }
    }
    if (run)
        ob_write(o, s + n - run, run);
}

void json_strn(json *j, const char *key, const char *v, size_t n)
{
    obuf *o = j->out;
    char *d = json_sep(j, key, 1);
    *d++ = '"';
    ob_commit(o, d);
    if (j->html)
        put_escaped(o, (const unsigned char *)v, n, 1);
    else
        put_escaped(o, (const unsigned char *)v, n, 0);
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
