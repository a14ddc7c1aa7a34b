/* A small streaming JSON writer for the CLI: it tracks commas, the caller
 * tracks structure.
 *
 * Strings are escaped for JSON, or in html mode (json_init_html) for the
 * inside of an HTML <script type="application/json"> as well: "<" as
 * \u003c (no "</script>", no "<!--"), the second "/" of "//" as "\/" (no
 * "http://" in the page's bytes, which reads as a network reference), and
 * bytes >= 0x80 as they are (the page is UTF-8; plain JSON writes them as
 * \u00XX because its input need not be).  Keys are literals and
 * json_name's names identifiers: html mode leaves them alone. */
#ifndef CUDW_TOOLS_JSON_H
#define CUDW_TOOLS_JSON_H

#include "out.h"

#include <stdint.h>
#include <string.h>

typedef struct json {
    obuf *out;
    int depth;
    int html;                 /* strings safe inside <script> (above) */
    unsigned char first[64];  /* per nesting level: nothing written yet */
} json;

void json_init(json *j, obuf *out);
/* json_init, in html mode */
void json_init_html(json *j, obuf *out);
/* Inside a top-level array whose "[" someone else prints (jobs.c). */
void json_enter_arr(json *j);
void json_str(json *j, const char *key, const char *v);
void json_strn(json *j, const char *key, const char *v, size_t n);

/* Strings written through it, kept escaped with their quotes: a field
 * whose values repeat row after row (a row's path, symbol, inlined
 * function: pointers into the file that stay the same) escapes each once
 * and copies it after.  A direct-mapped cache by pointer; zero-initialised,
 * json_memo_free when done. */
#define JSON_MEMO_SLOTS 64
typedef struct json_memo {
    struct json_memo_slot {
        const char *v;
        char *esc;
        size_t n, cap;
    } slot[JSON_MEMO_SLOTS];
} json_memo;
/* v's slot, filled (escaped) when v is not the pointer it holds; NULL out
 * of memory */
struct json_memo_slot *json_memo_slot_of(json_memo *m, const char *v);
void json_memo_free(json_memo *m);
void json_i64(json *j, const char *key, int64_t v);
void json_hex(json *j, const char *key, const uint8_t *p, size_t n); /* "90b1e4" */

/* The comma and "key": before a value, and room for need more bytes;
 * returns the write pointer.  Inline: keys are literals, so their length
 * is a constant and the copy a few moves (this was two fifths of
 * `lines --json`). */
static inline char *json_sep(json *j, const char *key, size_t need)
{
    size_t kl = key ? strlen(key) : 0;
    char *d = ob_room(j->out, kl + 4 + need);
    if (!j->first[j->depth])
        *d++ = ',';
    j->first[j->depth] = 0;
    if (key) {
        *d++ = '"';
        memcpy(d, key, kl);
        d += kl;
        *d++ = '"';
        *d++ = ':';
    }
    return d;
}

static inline void json_u64(json *j, const char *key, uint64_t v)
{
    ob_commit(j->out, put_dec(json_sep(j, key, 20), v));
}

static inline void json_bool(json *j, const char *key, int v)
{
    char *d = json_sep(j, key, 5);
    memcpy(d, v ? "true" : "false", 5);
    ob_commit(j->out, d + (v ? 4 : 5));
}

/* {  [  }  ]: the key NULL inside arrays and at the top. */
static inline void json_open(json *j, const char *key, char c)
{
    char *d = json_sep(j, key, 1);
    *d++ = c;
    ob_commit(j->out, d);
    if (j->depth + 1 < (int)sizeof j->first)
        j->depth++;
    j->first[j->depth] = 1;
}

static inline void json_obj(json *j, const char *key) { json_open(j, key, '{'); }
static inline void json_arr(json *j, const char *key) { json_open(j, key, '['); }

static inline void json_end_obj(json *j)
{
    j->depth--;
    ob_putc(j->out, '}');
    if (j->depth == 0)
        ob_putc(j->out, '\n');
}

static inline void json_end_arr(json *j)
{
    j->depth--;
    ob_putc(j->out, ']');
}

static inline void json_null(json *j, const char *key)
{
    char *d = json_sep(j, key, 4);
    memcpy(d, "null", 4);
    ob_commit(j->out, d + 4);
}

/* json_str(j, key, v), through m: inline, so that the key's length is a
 * constant where the key is */
static inline void json_str_memo(json *j, const char *key, const char *v, json_memo *m)
{
    struct json_memo_slot *e = v && !j->html ? json_memo_slot_of(m, v) : NULL; /* memos hold JSON's escapes */
    if (!v) {
        json_null(j, key);
    } else if (!e || e->n > 4096) { /* no memory for it, or longer than a room promises */
        json_str(j, key, v);
    } else {
        char *d = json_sep(j, key, e->n);
        memcpy(d, e->esc, e->n);
        ob_commit(j->out, d + e->n);
    }
}

/* A string known to need no escaping: the names of DWARF's and NVIDIA's
 * codes from the library's tables (plain identifiers). */
static inline void json_name(json *j, const char *key, const char *v)
{
    size_t n = strlen(v);
    if (n > 256) { /* not a name: no room promised */
        json_strn(j, key, v, n);
        return;
    }
    char *d = json_sep(j, key, n + 2);
    *d++ = '"';
    memcpy(d, v, n);
    d += n;
    *d++ = '"';
    ob_commit(j->out, d);
}

#endif
