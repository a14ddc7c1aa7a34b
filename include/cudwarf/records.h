/* cudwarf/records.h - The record sections: location and range lists, address ranges, name indexes, macros, PTX text, register maps.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_RECORDS_H
#define CUDWARF_RECORDS_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

/* ------------------------------------------------------------------ */
/* .debug_loc, .debug_ranges, .debug_aranges, .debug_pubnames/types    */
/* ------------------------------------------------------------------ */

enum { CUDW_LOC_RANGE = 1, CUDW_LOC_BASE, CUDW_LOC_END };

/* One entry of a DWARF 2/3 location list (.debug_loc) or range list
 * (.debug_ranges, which has no expressions).  begin/end are relocated
 * (ptxas: R_CUDA_64 against the function); a pair of zeros with no
 * relocation ends a list; begin = ~0 selects a base address. */
typedef struct cudw_list_entry {
    uint64_t offset;        /* of the entry (a list starts at 0 and after each END) */
    int kind;               /* CUDW_LOC_* */
    uint64_t begin, end;
    const cudw_reloc *begin_reloc, *end_reloc;
    const uint8_t *expr;    /* .debug_loc ranges: the DW_OP expression */
    uint64_t expr_len, expr_offset;
} cudw_list_entry;

/* Next entry of sec (a .debug_loc when has_expr, a .debug_ranges
 * otherwise); *cursor starts at 0 and walks every list in turn. */
int cudw_list_next(cudw_file *f, const cudw_section *sec, int has_expr, uint8_t addr_size, uint64_t *cursor,
                   cudw_list_entry *out);

/* .debug_pubnames / .debug_pubtypes: a header per unit, then
 * (u32 DIE offset, name) pairs until a 0 offset. */
typedef struct cudw_pub_set {
    uint64_t offset, length, end;
    uint16_t version;
    uint64_t unit_offset;       /* relocated */
    const cudw_reloc *unit_reloc;
    uint64_t unit_size;
    uint64_t entries_offset;
} cudw_pub_set;

int cudw_pub_next_set(cudw_file *f, const cudw_section *sec, uint64_t *cursor, cudw_pub_set *out);
/* Next (DIE offset, name) of a set; *pos starts at set->entries_offset. */
int cudw_pub_next(cudw_file *f, const cudw_section *sec, const cudw_pub_set *set, uint64_t *pos,
                  uint64_t *die_offset, const char **name);

/* Build the name index of every unit of an info section (.debug_info or
 * its twin) as NVVM writes it into the PTX and ptxas copies it into -G
 * objects: byte-identical to theirs (src/dwarf/pub_write.c has the rules).
 * Unit offsets are 0 with a site each (a 32-bit relocation against the info
 * section, addend = the unit's offset), as in relocatable objects, or the
 * value itself with CUDW_PUB_RESOLVED, as in linked ones.  Errors on f. */
enum { CUDW_PUB_NAMES = 1, CUDW_PUB_TYPES = 2 };
#define CUDW_PUB_RESOLVED 0x1u       /* write unit offsets in place */
#define CUDW_PUB_LINKAGE_NAMES 0x2u  /* the emitter reconstructed from nvlink:
                                        DW_AT_MIPS_linkage_name wins over DW_AT_name,
                                        nothing qualified (docs/spec-disagreements.md 8) */

typedef struct cudw_pub_out {
    uint8_t *data;            /* the section (malloc'd) */
    size_t size;
    cudw_reloc_site *sites;   /* malloc'd; offsets from the section start */
    size_t nsites;
} cudw_pub_out;

int cudw_pub_build(cudw_file *f, const cudw_section *info, int kind, unsigned flags, cudw_pub_out *out);
void cudw_pub_out_free(cudw_pub_out *out);

/* .debug_aranges: a header per unit, then (address, length) tuples. */
typedef struct cudw_aranges_set {
    uint64_t offset, length, end;
    uint16_t version;
    uint64_t unit_offset;
    uint8_t addr_size, seg_size;
    uint64_t tuples_offset;
} cudw_aranges_set;

int cudw_aranges_next_set(cudw_file *f, const cudw_section *sec, uint64_t *cursor, cudw_aranges_set *out);
int cudw_aranges_next(cudw_file *f, const cudw_section *sec, const cudw_aranges_set *set, uint64_t *pos,
                      uint64_t *address, uint64_t *length, const cudw_reloc **reloc);

/* .debug_macinfo: entries in order; type 0 ends a unit's list. */
typedef struct cudw_macinfo_entry {
    uint64_t offset;
    uint8_t type;             /* DW_MACINFO_*: 1 define, 2 undef, 3 start_file, 4 end_file, 0xff vendor */
    uint64_t line, file;      /* define/undef/start_file: line; start_file: file */
    uint64_t constant;        /* vendor_ext */
    const char *string;       /* define/undef: "NAME VALUE"; vendor_ext */
} cudw_macinfo_entry;

int cudw_macinfo_next(cudw_file *f, const cudw_section *sec, uint64_t *cursor, cudw_macinfo_entry *out);
const char *cudw_macinfo_name(uint8_t type);

/* ------------------------------------------------------------------ */
/* PTX text (.nv_debug_ptx_txt[.N])                                    */
/* ------------------------------------------------------------------ */

/* The section holds the PTX file as NUL-terminated strings, one per PTX
 * line (formats.md 2.3); .nv_debug_line_sass line numbers index it.  Line
 * line (1-based) of sec into *text; CUDW_DONE past the last line.  The
 * line index is built on first use and cached. */
int cudw_ptx_line(cudw_file *f, const cudw_section *sec, uint64_t line, const char **text);
int cudw_ptx_line_count(cudw_file *f, const cudw_section *sec, uint64_t *count);

/* The PTX text section a row of a .nv_debug_line_sass table refers to:
 * the section named by its file entry (relocatable and linked cubins), or
 * the file's only .nv_debug_ptx_txt section (whole-program cubins, file 0).
 * NULL when there is none. */
const cudw_section *cudw_ptx_section_for(cudw_file *f, const cudw_line_table *t, uint64_t file);

/* ------------------------------------------------------------------ */
/* Register maps (.nv_debug_info_reg_sass, .nv_debug_info_reg_type)    */
/* ------------------------------------------------------------------ */

typedef struct cudw_reg_func {
    uint64_t offset, end;        /* of the record */
    const char *function;        /* mangled name */
    uint64_t count;              /* entries */
    uint64_t entries_offset;
} cudw_reg_func;

typedef struct cudw_reg_entry {
    uint64_t offset;
    uint32_t index;              /* grows when a PTX register has several SASS homes */
    const char *ptx;             /* "%r4" */
    uint32_t sass;               /* class << 24 | n: cudw_register_name names it */
    uint32_t start, end;         /* function-relative SASS offsets */
} cudw_reg_entry;

/* Next function record of a reg_sass section (checked whole); then its
 * entries with cudw_reg_sass_entry from *pos = entries_offset. */
int cudw_reg_sass_next(cudw_file *f, const cudw_section *sec, uint64_t *cursor, cudw_reg_func *out);
int cudw_reg_sass_entry(const cudw_section *sec, const cudw_reg_func *fn, uint64_t *pos, cudw_reg_entry *out);

/* Next function record of a reg_type section: count type bytes at *types,
 * one per reg_sass entry of the function. */
int cudw_reg_type_next(cudw_file *f, const cudw_section *sec, uint64_t *cursor, cudw_reg_func *out,
                       const uint8_t **types);
/* ".b32", ".s32", ".u32", ".f32", ".b64", ".b16", "pred" (established
 * from the corpus: bits 0-1 log2 bytes, bits 2-4 kind), or "0xNN". */
const char *cudw_reg_type_name(uint8_t type, char *buf, size_t n);

#endif /* CUDWARF_RECORDS_H */
