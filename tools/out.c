#include "out.h"

#include <stdarg.h>
#include <stdlib.h>

_Thread_local obuf out_stdout;
_Thread_local void (*err_sink)(const char *text, size_t n);

static void out_raw(obuf *o, const void *p, size_t n)
{
    if (o->sink)
        o->sink(o, p, n);
    else
        fwrite(p, 1, n, o->f ? o->f : stdout);
}

void ob_flush(obuf *o)
{
    if (o->len) {
        size_t n = o->len;
        o->len = 0;
        out_raw(o, o->buf, n);
    }
}

void eprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!err_sink) {
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        return;
    }
    char tmp[2048];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        err_sink(tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void ob_write_slow(obuf *o, const void *p, size_t n)
{
    if (sizeof o->buf - o->len < n) {
        ob_flush(o);
        if (n > sizeof o->buf) {
            out_raw(o, p, n);
            return;
        }
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

void ob_hex(obuf *o, uint64_t v)
{
    char t[16];
    int n = 0;
    do {
        t[15 - n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    ob_write(o, t + 16 - n, (size_t)n);
}

void ob_hex_pad(obuf *o, uint64_t v, int width)
{
    static const char hex[] = "0123456789abcdef";
    if (width == 8 && v <= 0xffffffffu && sizeof o->buf - o->len >= 8) {
        /* addresses: the common case, written in place */
        char *d = o->buf + o->len;
        for (int i = 7; i >= 0; i--, v >>= 4)
            d[i] = hex[v & 15];
        o->len += 8;
        return;
    }
    char t[16];
    int n = 0;
    do {
        t[15 - n++] = hex[v & 15];
        v >>= 4;
    } while (v);
    while (n < width && n < 16)
        t[15 - n++] = '0';
    ob_write(o, t + 16 - n, (size_t)n);
}

/* Two digits at a time: printing line numbers was a tenth of `lines`. */
static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

void ob_dec(obuf *o, uint64_t v)
{
    char t[20];
    int n = 0;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        t[19 - n++] = digits2[2 * r + 1];
        t[19 - n++] = digits2[2 * r];
    }
    if (v >= 10) {
        t[19 - n++] = digits2[2 * v + 1];
        t[19 - n++] = digits2[2 * v];
    } else {
        t[19 - n++] = (char)('0' + v);
    }
    ob_write(o, t + 20 - n, (size_t)n);
}

void ob_sdec(obuf *o, int64_t v)
{
    if (v < 0) {
        ob_putc(o, '-');
        ob_dec(o, -(uint64_t)v);
    } else {
        ob_dec(o, (uint64_t)v);
    }
}

void ob_printf(obuf *o, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        ob_write(o, tmp, (size_t)n);
        return;
    }
    ob_flush(o);
    char *big = malloc((size_t)n + 1);
    if (!big)
        return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_raw(o, big, (size_t)n);
    free(big);
}
