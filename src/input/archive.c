/* Unix "ar" archives: the static libraries device code ships in
 * (libcudadevrt.a, a team's own lib*.a of nvcc -dc objects).
 *
 *   "!<arch>\n"            8-byte magic ("!<thin>\n", members kept
 *                          outside the archive, is refused)
 *   member header, 60 bytes of text:
 *     +0  name[16]         "name/" (GNU, '/'-terminated)
 *                          "/"        the symbol table      } skipped
 *                          "/SYM64/"  its 64-bit form       }
 *                          "//"       the long-name table   }
 *                          "/123"     a long name, at 123 in that table
 *                          "#1/N"     BSD: the name is the first N bytes
 *                                     of the member
 *                          "__.SYMDEF..." BSD's symbol table: skipped
 *     +16 date[12] +28 uid[6] +34 gid[6] +40 mode[8]   (unused)
 *     +48 size[10]         decimal, space-padded: bytes of the member
 *     +58 "`\n"
 *   the member's bytes, then a '\n' when the size is odd
 */
#include "../internal.h"

#include <stdio.h>

int ar_is_archive(const uint8_t *p, size_t n) { return n >= 8 && !memcmp(p, "!<arch>\n", 8); }

static int ar_err(ar_member *m, uint64_t at, const char *detail)
{
    m->error_offset = at;
    snprintf(m->error, sizeof m->error, "%s", detail);
    return -1;
}

/* the decimal field: digits, then spaces; anything else is an error */
static int ar_decimal(const uint8_t *p, size_t w, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < w && p[i] >= '0' && p[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    if (i == 0)
        return -1;
    for (; i < w; i++)
        if (p[i] != ' ')
            return -1;
    *out = v;
    return 0;
}

/* The long-name table entry at off: GNU ends names with "/\n". */
static int ar_long_name(const uint8_t *tab, size_t tab_size, uint64_t off, ar_member *m)
{
    if (!tab || off >= tab_size)
        return -1;
    size_t n = 0;
    while (off + n < tab_size && tab[off + n] != '\n' && tab[off + n] != 0)
        n++;
    if (n && tab[off + n - 1] == '/')
        n--;
    snprintf(m->name, sizeof m->name, "%.*s", (int)(n < sizeof m->name - 1 ? n : sizeof m->name - 1),
             (const char *)tab + off);
    return 0;
}

int ar_next(const uint8_t *p, size_t n, uint64_t *pos, ar_member *m)
{
    for (;;) {
        uint64_t at = *pos < 8 ? 8 : *pos;
        if (at >= n) {
            *pos = n;
            return 1;
        }
        if (n - at < 60)
            return ar_err(m, at, "member header runs past the end of the archive");
        const uint8_t *h = p + at;
        uint64_t size;
        if (h[58] != '`' || h[59] != '\n')
            return ar_err(m, at + 58, "member header does not end in \"`\\n\"");
        if (ar_decimal(h + 48, 10, &size))
            return ar_err(m, at + 48, "member size is not a decimal number");
        if (size > n - at - 60)
            return ar_err(m, at + 48, "member runs past the end of the archive");
        const uint8_t *body = h + 60;
        uint64_t next = at + 60 + size + (size & 1);
        *pos = next > n ? n : next;
        m->data = body;
        m->size = (size_t)size;
        if (h[0] == '/' && h[1] == '/' && h[2] == ' ') {
            m->long_names = body;
            m->long_names_size = (size_t)size;
            continue;
        }
        if (h[0] == '/' && (h[1] == ' ' || !memcmp(h, "/SYM64/ ", 8)))
            continue;
        if (!memcmp(h, "__.SYMDEF", 9))
            continue;
        if (h[0] == '/') {
            uint64_t off;
            size_t w = 1;
            while (w < 16 && h[w] >= '0' && h[w] <= '9')
                w++;
            if (w == 1 || ar_decimal(h + 1, w - 1, &off) || ar_long_name(m->long_names, m->long_names_size, off, m))
                return ar_err(m, at, "member name refers outside the long-name table");
        } else if (!memcmp(h, "#1/", 3)) {
            uint64_t len;
            size_t w = 3;
            while (w < 16 && h[w] >= '0' && h[w] <= '9')
                w++;
            if (w == 3 || ar_decimal(h + 3, w - 3, &len) || len > size)
                return ar_err(m, at, "BSD member name length is not a number within the member");
            snprintf(m->name, sizeof m->name, "%.*s", (int)(len < sizeof m->name - 1 ? len : sizeof m->name - 1),
                     (const char *)body);
            m->data = body + len;
            m->size = (size_t)(size - len);
        } else {
            size_t k = 0;
            while (k < 16 && h[k] != '/' && h[k] != ' ')
                k++;
            snprintf(m->name, sizeof m->name, "%.*s", (int)k, (const char *)h);
        }
        return 0;
    }
}
