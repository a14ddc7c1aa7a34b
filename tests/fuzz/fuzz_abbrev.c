/* The input as a .debug_abbrev section: every table, every entry. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tsec secs[] = {{.name = ".debug_abbrev", .data = data, .size = size}};
    size_t len;
    uint8_t *img = telf_build(secs, 1, &len);
    cudw_file *f;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK) {
        const cudw_section *s = cudw_section_find(f, ".debug_abbrev");
        for (uint64_t off = 0; s && off < s->data_size;) {
            const cudw_abbrev_table *t;
            if (cudw_abbrev_table_get(f, s, off, &t) < 0) {
                fuzz_check_error(f, -1);
                break;
            }
            for (size_t i = 0; i < t->count; i++)
                if (cudw_abbrev_find(t, t->entries[i].code) == NULL)
                    abort(); /* every entry must be found by its code */
            off = t->end;
        }
    }
    cudw_close(f);
    free(img);
    return 0;
}
