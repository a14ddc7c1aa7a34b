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

/* Every byte as two hex digits: addresses go two digits at a time. */
const char ob_hex2[513] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                          "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                          "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                          "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                          "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                          "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                          "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                          "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void ob_hex_pad(obuf *o, uint64_t v, int width)
{
    static const char hex[] = "0123456789abcdef";
    if (width == 8 && v <= 0xffffffffu) { /* addresses: the common case */
        ob_commit(o, put_hex8(ob_room(o, 8), (uint32_t)v));
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
const char ob_digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                             "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                             "8081828384858687888990919293949596979899";

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

/* 1234567 -> "1,234,567" */
void ob_commas(obuf *o, uint64_t v, int width)
{
    char t[32];
    int n = 0;
    do {
        if (n % 4 == 3)
            t[n++] = ',';
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    int len = n;
    for (int i = n; i < width; i++)
        ob_putc(o, ' ');
    while (n)
        ob_putc(o, t[--n]);
    for (int i = len; i < -width; i++) /* a negative width: left-aligned */
        ob_putc(o, ' ');
}
