/* Buffered output for the CLI's printers.  printf spent two thirds of a
 * large dump's time parsing format strings; these write digits and
 * strings straight into one buffer that is flushed with fwrite. */
#ifndef CUDW_TOOLS_OUT_H
#define CUDW_TOOLS_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct obuf {
    FILE *f;
    /* when set, flushes go here instead of to f (jobs.c: a job's output
     * waits its turn) */
    void (*sink)(struct obuf *o, const void *p, size_t n);
    size_t len;
    char buf[1 << 16];
} obuf;

/* The CLI's stdout, one per thread: a job on a worker thread prints to its
 * own, which jobs.c keeps in input order.  Flushed at exit by main. */
extern _Thread_local obuf out_stdout;

/* fprintf(stderr, ...), except inside a job, whose messages are kept with
 * its output and printed in input order. */
void eprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Where eprintf goes inside a job (jobs.c sets it per thread). */
extern _Thread_local void (*err_sink)(const char *text, size_t n);

void ob_flush(obuf *o);
void ob_write_slow(obuf *o, const void *p, size_t n);
void ob_hex_pad(obuf *o, uint64_t v, int width); /* at least width digits, zero-padded */
void ob_sdec(obuf *o, int64_t v);
/* Decimal with thousands separators ("1,234,567"), right-aligned to width
 * (a negative width: left-aligned). */
void ob_commas(obuf *o, uint64_t v, int width);
void ob_printf(obuf *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static inline void ob_putc(obuf *o, char c)
{
    if (o->len == sizeof o->buf)
        ob_flush(o);
    o->buf[o->len++] = c;
}

static inline void ob_write(obuf *o, const void *p, size_t n)
{
    if (sizeof o->buf - o->len >= n) {
        /* literals (ob_puts of a constant) become a few moves */
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        return;
    }
    ob_write_slow(o, p, n);
}

extern const char ob_digits2[201];
extern const char ob_hex2[513];

/* For printers that build a line in place: room for n bytes (flushing if
 * needed) and the write pointer; ob_commit takes the bytes written. */
static inline char *ob_room(obuf *o, size_t n)
{
    if (sizeof o->buf - o->len < n)
        ob_flush(o);
    return o->buf + o->len;
}

static inline void ob_commit(obuf *o, char *end) { o->len = (size_t)(end - o->buf); }

/* Decimal at d (at most 20 bytes), from the last digit: the count first,
 * then two digits per division.  Returns the end. */
static inline char *put_dec(char *d, uint64_t v)
{
    unsigned n = 1;
    for (uint64_t x = v; x >= 10; x /= 10)
        n++;
    char *end = d + n;
    d = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100) * 2;
        v /= 100;
        *--d = ob_digits2[r + 1];
        *--d = ob_digits2[r];
    }
    if (v >= 10) {
        *--d = ob_digits2[2 * v + 1];
        *--d = ob_digits2[2 * v];
    } else {
        *--d = (char)('0' + v);
    }
    return end;
}

/* Eight lowercase hex digits, zero-padded: an address. */
static inline char *put_hex8(char *d, uint32_t v)
{
    for (int i = 6; i >= 0; i -= 2, v >>= 8)
        memcpy(d + i, ob_hex2 + 2 * (v & 0xff), 2);
    return d + 8;
}

static inline void ob_dec(obuf *o, uint64_t v) { ob_commit(o, put_dec(ob_room(o, 20), v)); }

/* Lowercase hex without a prefix at d (at most 16 bytes); returns the end. */
static inline char *put_hex(char *d, uint64_t v)
{
    unsigned n = 1;
    for (uint64_t x = v >> 4; x; x >>= 4)
        n++;
    char *end = d + n;
    for (d = end; n--; v >>= 4)
        *--d = "0123456789abcdef"[v & 15];
    return end;
}

static inline void ob_hex(obuf *o, uint64_t v) { ob_commit(o, put_hex(ob_room(o, 16), v)); }

static inline void ob_puts(obuf *o, const char *s) { ob_write(o, s, strlen(s)); }

/* s, then spaces up to width */
static inline void ob_pad(obuf *o, const char *s, size_t width)
{
    size_t n = strlen(s);
    ob_write(o, s, n);
    while (n++ < width)
        ob_putc(o, ' ');
}

#endif
