/* What reloc.c offers the readers beside internal.h: a cursor opened on a
 * section with its relocations decoded first (cursor.h says what a cursor
 * guarantees; the decoding is reloc.c's, so the declaration lives here and
 * cursor.c needs nothing of reloc.c). */
#ifndef CUDW_ELF_RELOC_H
#define CUDW_ELF_RELOC_H

#include "cursor.h"

/* cur_make, and s's relocations decoded (their error, if malformed). */
int cur_open(cur_t *c, cudw_file *f, const cudw_section *s, uint64_t off, uint64_t end, const char *what);

#endif
