#include "json.h"

#include <string.h>

void json_init(json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->first[0] = 1;
}

static void sep(json *j, const char *key)
{
    if (!j->first[j->depth])
        fputc(',', j->out);
    j->first[j->depth] = 0;
    if (key) {
        fputc('"', j->out);
        fputs(key, j->out); /* keys are ours: plain ASCII */
        fputs("\":", j->out);
    }
}

static void open_(json *j, const char *key, char c)
{
    sep(j, key);
    fputc(c, j->out);
    if (j->depth + 1 < (int)sizeof j->first)
        j->depth++;
    j->first[j->depth] = 1;
}

void json_obj(json *j, const char *key) { open_(j, key, '{'); }
void json_arr(json *j, const char *key) { open_(j, key, '['); }

void json_end_obj(json *j)
{
    j->depth--;
    fputc('}', j->out);
    if (j->depth == 0)
        fputc('\n', j->out);
}

void json_end_arr(json *j)
{
    j->depth--;
    fputc(']', j->out);
}

void json_strn(json *j, const char *key, const char *v, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    sep(j, key);
    FILE *o = j->out;
    fputc('"', o);
    const unsigned char *s = (const unsigned char *)v;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7f) {
            run++;
            continue;
        }
        if (run)
            fwrite(s + i - run, 1, run, o);
        run = 0;
        switch (c) {
        case '"': fputs("\\\"", o); break;
        case '\\': fputs("\\\\", o); break;
        case '\n': fputs("\\n", o); break;
        case '\t': fputs("\\t", o); break;
        case '\r': fputs("\\r", o); break;
        default:
            /* bytes >= 0x7f are passed as \u00XX: input strings need not be UTF-8 */
            fputs("\\u00", o);
            fputc(hex[c >> 4], o);
            fputc(hex[c & 15], o);
        }
    }
    if (run)
        fwrite(s + n - run, 1, run, o);
    fputc('"', o);
}

void json_str(json *j, const char *key, const char *v)
{
    if (!v) {
        json_null(j, key);
        return;
    }
    json_strn(j, key, v, strlen(v));
}

void json_u64(json *j, const char *key, uint64_t v)
{
    sep(j, key);
    fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_i64(json *j, const char *key, int64_t v)
{
    sep(j, key);
    fprintf(j->out, "%lld", (long long)v);
}

void json_bool(json *j, const char *key, int v)
{
    sep(j, key);
    fputs(v ? "true" : "false", j->out);
}

void json_null(json *j, const char *key)
{
    sep(j, key);
    fputs("null", j->out);
}

void json_hex(json *j, const char *key, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    sep(j, key);
    fputc('"', j->out);
    for (size_t i = 0; i < n; i++) {
        fputc(hex[p[i] >> 4], j->out);
        fputc(hex[p[i] & 15], j->out);
    }
    fputc('"', j->out);
}
