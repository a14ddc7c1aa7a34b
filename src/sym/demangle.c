/* C++ names through libiberty's demangler (the one binutils' addr2line
 * and c++filt use): cubin symbols are Itanium-mangled. */
#include "../internal.h"

#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>

size_t cudw_demangle(const char *name, char *buf, size_t n)
{
    if (!name || name[0] != '_' || name[1] != 'Z')
        return 0;
    char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
    if (!d)
        return 0;
    size_t len = strlen(d);
    if (n)
        snprintf(buf, n, "%s", d);
    free(d);
    return len;
}
