/* cudwarf size's tables: the class titles and JSON keys, right-aligned
 * numbers with thousands separators and percentages, the --by table. */
#include "size_sets.h"

#include <string.h>

const char *size_class_title(int c)
{
    static const char *const t[SIZE_NROWS] = {
        "code (.text.*)",
        "constant and global data (.nv.constant*, .nv.global.init)",
        "DWARF debug sections (.debug_*)",
        "NVIDIA debug sections (.nv_debug_*)",
        "metadata (.nv.info*, .nv.callgraph, notes, ...)",
        "symbol and string tables",
        "relocations",
        "other sections",
        "ELF headers and padding",
        "PTX text",
        "LTO IR",
        "other entries",
    };
    return t[c];
}

const char *const size_row_keys[SIZE_NROWS] = {
    "code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations", "other", "headers",
    "ptx", "lto_ir", "other_entries",
};

void ob_pct(obuf *o, uint64_t part, uint64_t whole)
{
    if (!whole) {
        ob_puts(o, "       ");
        return;
    }
    ob_printf(o, " %5.1f%%", 100.0 * (double)part / (double)whole);
}

void size_line(obuf *o, uint64_t v, uint64_t whole, const char *what, int minus)
{
    char d[32], t[32];
    int k = 0, n = 0;
    uint64_t x = v;
    do {
        if (k % 4 == 3)
            d[k++] = ',';
        d[k++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    if (minus && v)
        d[k++] = '-';
    while (k)
        t[n++] = d[--k];
    for (int i = n; i < 16; i++)
        ob_putc(o, ' ');
    ob_write(o, t, (size_t)n);
    if (whole)
        ob_pct(o, v, whole);
    else
        ob_puts(o, "       ");
    ob_puts(o, "  ");
    ob_puts(o, what);
    ob_putc(o, '\n');
}

void size_table_text(obuf *o, const row *v, size_t n, const char *by, int nshow, uint64_t whole)
{
    int kernel = !strcmp(by, "kernel");
    size_t shown = nshow > 0 && (size_t)nshow < n ? (size_t)nshow : n;
    if (kernel)
        ob_printf(o, "\n%16s%7s  %s\n", "code bytes", "%", "kernel (images)");
    else
        ob_printf(o, "\n%16s%7s %16s  %s (images)\n", "unpacked", "%", "stored", by);
    uint64_t rest = 0, rest_stored = 0;
    for (size_t i = shown; i < n; i++)
        rest += v[i].bytes, rest_stored += v[i].stored;
    for (size_t i = 0; i <= shown && i < n + 1; i++) {
        int more = i == shown;
        if (more && shown == n)
            break;
        uint64_t b = more ? rest : v[i].bytes;
        ob_commas(o, b, 16);
        ob_pct(o, b, whole);
        if (!kernel) {
            ob_putc(o, ' ');
            ob_commas(o, more ? rest_stored : v[i].stored, 16);
        }
        ob_puts(o, "  ");
        if (more)
            ob_printf(o, "[%zu more]\n", n - shown);
        else
            ob_printf(o, "%s (%llu)\n", v[i].name, (unsigned long long)v[i].count);
    }
}
