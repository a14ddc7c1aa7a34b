/* The input as a .debug_line section (with a .debug_str), then the same
 * bytes as .nv_debug_line_sass: headers, opcodes, rows, inline call sites,
 * lookups.  Property: rows that decode re-encode, and the re-encoded
 * program decodes to the same rows. */
#include "fuzz.h"

static size_t rows_of(const uint8_t *img, size_t len, cudw_line_row *rows, size_t cap)
{
    cudw_file *f;
    size_t n = 0;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK) {
        const cudw_line_table *t;
        uint64_t cur = 0;
        if (cudw_line_table_next(f, cudw_section_find(f, ".debug_line"), &cur, &t) == CUDW_OK) {
            cudw_line_iter it;
            cudw_line_row r;
            cudw_line_iter_init(t, &it, CUDW_LINE_HIDDEN);
            while (n < cap && cudw_line_next(&it, &r) == CUDW_OK)
                rows[n++] = r;
        }
    }
    cudw_close(f);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char strs[] = "\0_Z3fooi\0";
    tsec secs[] = {
        {.name = ".debug_line", .data = data, .size = size},
        {.name = ".nv_debug_line_sass", .data = data, .size = size},
        {.name = ".debug_str", .data = strs, .size = sizeof strs},
    };
    size_t len;
    uint8_t *img = telf_build(secs, 3, &len);
    cudw_file *f;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK)
        exercise_file(f, fuzz_check_error);
    cudw_close(f);

    /* round trip of whatever the first table decodes to, when it ends its
     * sequences and ascends (what the encoder accepts) */
    enum { CAP = 4096 };
    cudw_line_row *a = malloc(CAP * sizeof *a), *b = malloc(CAP * sizeof *b);
    size_t n = a ? rows_of(img, len, a, CAP) : 0;
    if (n && a[n - 1].end_sequence) {
        cudw_line_params p = cudw_line_params_nvidia();
        cudw_line_header_in h = {0};
        cudw_line_out out;
        for (size_t i = 0; i < n; i++) {
            a[i].symbol = NULL; /* addresses go into the bytes */
            a[i].file = a[i].file ? a[i].file : 1;
        }
        if (cudw_line_encode(&p, &h, a, n, &out) == CUDW_OK) {
            tsec s2[] = {{.name = ".debug_line", .data = out.data, .size = out.size}};
            size_t len2;
            uint8_t *img2 = telf_build(s2, 1, &len2);
            size_t m = rows_of(img2, len2, b, CAP);
            if (m != n)
                abort();
            for (size_t i = 0; i < n; i++)
                if (a[i].address != b[i].address || a[i].end_sequence != b[i].end_sequence ||
                    (!a[i].end_sequence && (a[i].line != b[i].line || a[i].context != b[i].context)))
                    abort();
            free(img2);
            cudw_line_out_free(&out);
        }
    }
    free(a);
    free(b);
    free(img);
    return 0;
}
