/* The input as a whole device ELF: container, sections, relocations and
 * every debug section parser. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cudw_file *f;
    if (cudw_open_mem(&f, data, size, "fuzz") == CUDW_OK)
        exercise_file(f, fuzz_check_error);
    cudw_close(f);
    return 0;
}
