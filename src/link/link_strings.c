/* --dedup-strings: one copy of each .debug_str string (filled in below). */
#include "link.h"

int link_dedup_strings(cudw_link *L)
{
    return link_fail(L, -1, CUDW_E_UNSUPPORTED, NULL, 0, "link", "string de-duplication is not built yet");
}
