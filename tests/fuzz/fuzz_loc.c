/* The input as .debug_loc, and the same bytes as .debug_ranges and
 * .debug_aranges: every list entry and its DW_OP expression, every set. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tsec secs[] = {
        {.name = ".debug_loc", .data = data, .size = size},
        {.name = ".debug_ranges", .data = data, .size = size},
        {.name = ".debug_aranges", .data = data, .size = size},
    };
    size_t len;
    uint8_t *img = telf_build(secs, 3, &len);
    cudw_file *f;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK) {
        exercise_section(f, cudw_section_find(f, ".debug_loc"), fuzz_check_error);
        exercise_section(f, cudw_section_find(f, ".debug_ranges"), fuzz_check_error);
        exercise_section(f, cudw_section_find(f, ".debug_aranges"), fuzz_check_error);
    }
    cudw_close(f);
    free(img);
    return 0;
}
