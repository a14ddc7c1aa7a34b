/* The input as a .debug_line section (with a .debug_str), then the same
 * bytes as .nv_debug_line_sass: headers, opcodes, rows, inline call sites,
 * lookups.  Property: rows that decode re-encode, and the re-encoded
 * program decodes to the same rows. */
#include "fuzz.h"

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
    cudw_line_row *a, *b = NULL;
    size_t n = fuzz_line_rows(img, len, &a);
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
            size_t m = fuzz_line_rows(img2, len2, &b);
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
