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
void ob_hex(obuf *o, uint64_t v);   /* lowercase, no prefix */
void ob_hex_pad(obuf *o, uint64_t v, int width); /* at least width digits, zero-padded */
void ob_dec(obuf *o, uint64_t v);
void ob_sdec(obuf *o, int64_t v);
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
    if (sizeof o->buf - o->len >= n && n <= 32) {
        /* short strings dominate: a byte loop beats a memcpy call */
        const char *c = p;
        char *d = o->buf + o->len;
        for (size_t i = 0; i < n; i++)
            d[i] = c[i];
        o->len += n;
        return;
    }
    ob_write_slow(o, p, n);
}

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
