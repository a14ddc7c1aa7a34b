/* The input as .debug_frame: every CIE and FDE, each FDE's CIE, and the
 * whole CFA table of each (remember/restore state, expressions, bounds). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tsec secs[] = {{.name = ".debug_frame", .data = data, .size = size}};
    size_t len;
    uint8_t *img = telf_build(secs, 1, &len);
    cudw_file *f;
    if (cudw_open_mem(&f, img, len, "fuzz") == CUDW_OK) {
        exercise_section(f, cudw_section_find(f, ".debug_frame"), fuzz_check_error);
        cudw_verify(f, exercise_no_finding, NULL);
    }
    cudw_close(f);
    free(img);
    return 0;
}
