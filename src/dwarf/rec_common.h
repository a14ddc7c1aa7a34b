/* What the record-style section readers share (rec_common.c): where a record
 * may start, and the header name-index and aranges sets begin with. */
#ifndef CUDW_DWARF_REC_COMMON_H
#define CUDW_DWARF_REC_COMMON_H

#include "../elf/reloc.h"

/* CUDW_OK when there is a record at `at`; CUDW_DONE past the end; an
 * error when the section's bytes lie outside the file. */
int rec_section_start(cudw_file *f, const cudw_section *s, uint64_t at, const char *what);

/* The header both name-index and aranges sets start with:
 *   u32 length | u16 version | u32 unit offset (relocated) ...
 * checked against the section (need: header bytes, minlen: smallest length). */
int rec_set_header(cudw_file *f, const cudw_section *s, uint64_t at, const char *what, uint64_t need,
                   uint32_t minlen, uint32_t *len, uint16_t *version, uint32_t *unit, const cudw_reloc **unit_reloc);

#endif
