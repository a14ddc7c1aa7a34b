#include "json_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256

typedef struct parser {
    jdoc *d;
    char *p, *end;
    int depth;
} parser;

static int err(parser *ps, const char *what)
{
    snprintf(ps->d->err, sizeof ps->d->err, "%s at byte %zu", what, (size_t)(ps->p - ps->d->text));
    return -1;
}

static jv *node(parser *ps)
{
    jdoc *d = ps->d;
    if (d->n == d->cap) {
        /* nodes are linked by index-stable pointers: grow a fresh block list */
        return NULL;
    }
    jv *v = &d->nodes[d->n++];
    memset(v, 0, sizeof *v);
    return v;
}

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static int hexv(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Unescape the string at ps->p (after the quote) in place. */
static int string(parser *ps, const char **out)
{
    char *w = ps->p, *start = ps->p;
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if ((unsigned char)c < 0x20)
            return err(ps, "control character in string");
        if (c != '\\') {
            *w++ = c;
            continue;
        }
        if (ps->p >= ps->end)
            return err(ps, "unterminated escape");
        c = *ps->p++;
        switch (c) {
        case '"': case '\\': case '/': *w++ = c; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            if (ps->end - ps->p < 4)
                return err(ps, "short \\u escape");
            int v = 0;
            for (int k = 0; k < 4; k++) {
                int h = hexv(ps->p[k]);
                if (h < 0)
                    return err(ps, "bad \\u escape");
                v = v * 16 + h;
            }
            ps->p += 4;
            /* our writer escapes bytes as \u00XX: keep them as bytes; encode the rest as UTF-8 */
            if (v < 0x100 && v != 0) {
                *w++ = (char)v;
            } else if (v < 0x800) {
                *w++ = (char)(0xc0 | v >> 6);
                *w++ = (char)(0x80 | (v & 0x3f));
            } else {
                *w++ = (char)(0xe0 | v >> 12);
                *w++ = (char)(0x80 | ((v >> 6) & 0x3f));
                *w++ = (char)(0x80 | (v & 0x3f));
            }
            break;
        }
        default:
            return err(ps, "bad escape");
        }
    }
    if (ps->p >= ps->end)
        return err(ps, "unterminated string");
    ps->p++;
    *w = 0; /* the closing quote or an escape freed the byte */
    *out = start;
    return 0;
}

static int value(parser *ps, jv **out);

static int number(parser *ps, jv *v)
{
    char *s = ps->p;
    if (*s == '-') {
        v->neg = 1;
        s++;
    }
    if (s >= ps->end || *s < '0' || *s > '9')
        return err(ps, "bad number");
    uint64_t u = 0;
    while (s < ps->end && *s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s++ - '0');
        if (u > (UINT64_MAX - d) / 10)
            return err(ps, "number does not fit 64 bits");
        u = u * 10 + d;
    }
    if (s < ps->end && (*s == '.' || *s == 'e' || *s == 'E'))
        return err(ps, "only integers are accepted");
    v->type = JV_NUM;
    v->u = u;
    v->i = v->neg ? -(int64_t)u : (int64_t)u;
    ps->p = s;
    return 0;
}

static int value(parser *ps, jv **out)
{
    ws(ps);
    if (ps->p >= ps->end)
        return err(ps, "unexpected end");
    jv *v = node(ps);
    if (!v)
        return err(ps, "too many values");
    *out = v;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        if (++ps->depth > MAX_DEPTH)
            return err(ps, "nesting too deep");
        ps->p++;
        v->type = c == '{' ? JV_OBJ : JV_ARR;
        jv **tail = &v->child;
        ws(ps);
        if (ps->p < ps->end && *ps->p == (c == '{' ? '}' : ']')) {
            ps->p++;
            ps->depth--;
            return 0;
        }
        for (;;) {
            const char *key = NULL;
            ws(ps);
            if (c == '{') {
                if (ps->p >= ps->end || *ps->p != '"')
                    return err(ps, "expected a member name");
                ps->p++;
                if (string(ps, &key))
                    return -1;
                ws(ps);
                if (ps->p >= ps->end || *ps->p != ':')
                    return err(ps, "expected ':'");
                ps->p++;
            }
            jv *child;
            if (value(ps, &child))
                return -1;
            child->key = key;
            *tail = child;
            tail = &child->next;
            v->count++;
            ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == (c == '{' ? '}' : ']')) {
                ps->p++;
                ps->depth--;
                return 0;
            }
            return err(ps, c == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    if (c == '"') {
        ps->p++;
        v->type = JV_STR;
        return string(ps, &v->str);
    }
    if (c == 't' && ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4)) {
        v->type = JV_BOOL;
        v->i = 1;
        v->u = 1;
        ps->p += 4;
        return 0;
    }
    if (c == 'f' && ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5)) {
        v->type = JV_BOOL;
        ps->p += 5;
        return 0;
    }
    if (c == 'n' && ps->end - ps->p >= 4 && !memcmp(ps->p, "null", 4)) {
        v->type = JV_NULL;
        ps->p += 4;
        return 0;
    }
    return number(ps, v);
}

int jdoc_parse(jdoc *d, char *text, size_t len)
{
    memset(d, 0, sizeof *d);
    d->text = text;
    /* every value takes at least one byte: len + 1 nodes always suffice */
    d->cap = len + 1;
    d->nodes = malloc(d->cap * sizeof *d->nodes);
    if (!d->nodes) {
        snprintf(d->err, sizeof d->err, "out of memory");
        return -1;
    }
    parser ps = {d, text, text + len, 0};
    if (value(&ps, &d->root))
        return -1;
    ws(&ps);
    if (ps.p != ps.end)
        return err(&ps, "trailing characters");
    return 0;
}

void jdoc_free(jdoc *d)
{
    free(d->nodes);
    free(d->text);
    memset(d, 0, sizeof *d);
}

const jv *jv_get(const jv *o, const char *key)
{
    if (!o || o->type != JV_OBJ)
        return NULL;
    for (const jv *c = o->child; c; c = c->next)
        if (c->key && !strcmp(c->key, key))
            return c;
    return NULL;
}

uint64_t jv_u64(const jv *o, const char *key, uint64_t dflt)
{
    const jv *v = jv_get(o, key);
    return v && (v->type == JV_NUM || v->type == JV_BOOL) ? v->u : dflt;
}

int64_t jv_i64(const jv *o, const char *key, int64_t dflt)
{
    const jv *v = jv_get(o, key);
    return v && (v->type == JV_NUM || v->type == JV_BOOL) ? v->i : dflt;
}

const char *jv_str(const jv *o, const char *key)
{
    const jv *v = jv_get(o, key);
    return v && v->type == JV_STR ? v->str : NULL;
}
