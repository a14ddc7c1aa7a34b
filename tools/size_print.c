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

/* " 12.3%" (blanks when whole is 0) */
static void ob_pct(obuf *o, uint64_t part, uint64_t whole)
{
    if (!whole) {
        ob_puts(o, "       ");
        return;
    }
    ob_printf(o, " %5.1f%%", 100.0 * (double)part / (double)whole);
}

/* the text's percentage column (JSON has the numbers it comes from) */
static void pct_text(emit *m, uint64_t part, uint64_t whole)
{
    if (!m->j)
        ob_pct(m->o, part, whole);
}

/* "       1,234,567  12.3%  what", "-1,234" when minus */
static void size_line(obuf *o, uint64_t v, uint64_t whole, const char *what, int minus)
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
    ob_pct(o, v, whole);
    ob_puts(o, "  ");
    ob_puts(o, what);
    ob_putc(o, '\n');
}

void size_field(emit *m, const char *key, uint64_t v, uint64_t whole, const char *what, int minus)
{
    if (m->j)
        em_u64(m, key, NULL, 0, v);
    else if (what)
        size_line(m->o, v, whole, what, minus);
}

/* A row: JSON its name, bytes, count (images; a kernel's copies) and, by
 * SM or container, the bytes stored; the text the numbers first */
static void row_print(emit *m, const row *r, const char *by, uint64_t whole, int demangle)
{
    char buf[2048];
    size_t need = demangle && !strcmp(by, "kernel") ? cudw_demangle(r->name, buf, sizeof buf) : 0;
    const char *shown = need && need < sizeof buf ? buf : r->name; /* -C: the text's kernel names */
    int kernel = !strcmp(by, "kernel"), stored = !strcmp(by, "sm") || !strcmp(by, "container");
    em_obj(m, NULL);
    em_str(m, "name", NULL, 0, r->name);
    em_commas(m, "bytes", "", 16, r->bytes);
    pct_text(m, r->bytes, whole);
    if (strcmp(by, "section"))
        em_u64(m, kernel ? "copies" : "images", NULL, 0, r->count);
    em_commas(m, stored ? "stored" : NULL, kernel ? NULL : " ", 16, r->stored);
    if (shown != r->name)
        em_str(m, "demangled", NULL, 0, shown);
    em_str_or(m, NULL, "  ", shown, "");
    em_u64(m, NULL, " (", EM_DEC, r->count);
    em_text(m, ")\n");
    em_end_obj(m);
}

void size_table_print(emit *m, const row *v, size_t n, const char *by, int nshow, uint64_t whole, int demangle)
{
    int kernel = !strcmp(by, "kernel");
    size_t shown = nshow > 0 && (size_t)nshow < n ? (size_t)nshow : n;
    if (kernel) {
        em_text(m, "\n      code bytes      %  kernel (images)\n");
    } else {
        em_str(m, NULL, "\n        unpacked      %           stored  ", 0, by);
        em_text(m, " (images)\n");
    }
    em_arr(m, "rows");
    for (size_t i = 0; i < (m->j ? n : shown); i++)
        row_print(m, &v[i], by, whole, demangle);
    em_end_arr(m);
    if (shown == n)
        return;
    uint64_t rest = 0, rest_stored = 0; /* the text's last row: the rest summed */
    for (size_t i = shown; i < n; i++)
        rest += v[i].bytes, rest_stored += v[i].stored;
    em_commas(m, NULL, "", 16, rest);
    pct_text(m, rest, whole);
    em_commas(m, NULL, kernel ? NULL : " ", 16, rest_stored);
    em_u64(m, NULL, "  [", EM_DEC, n - shown);
    em_text(m, " more]\n");
}
