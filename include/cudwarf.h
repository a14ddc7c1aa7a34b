/*
 * cudwarf.h - the debug information of CUDA device ELF objects ("cubins").
 *
 * libcudwarf reads the DWARF 2/3 sections and NVIDIA's own debug sections
 * (.nv_debug_*, and the .nv.merc.* twins of sm_100+ objects) that ptxas and
 * nvlink write.  It never prints and never exits.
 *
 * Conventions
 *  - Every call that can fail returns an int: CUDW_OK (0) on success,
 *    CUDW_DONE (1) when an iteration has no more items, a negative
 *    CUDW_E_* code on error.  The details of the last error -- what was
 *    being decoded, in which section, at which offset -- are kept on the
 *    cudw_file handle: cudw_last_error().
 *  - The file is mapped and parsed in place.  Pointers the library hands
 *    out (names, section bytes, strings, tables) stay valid until
 *    cudw_close(); the caller frees nothing else.
 *  - Values read from a field that carries a relocation are the relocated
 *    value (symbol value + addend), never the stale bytes: cubins keep their
 *    relocations even after nvlink, and every function's code sits in its
 *    own section at address 0, so the field's symbol and addend are
 *    reported too (cudw_attr.reloc).
 *  - Offsets are section offsets unless stated otherwise.
 *  - Walks over a section take a `uint64_t *cursor` (0 to start).  On
 *    success it moves past the item returned.  On an error it stays on
 *    the item that failed -- calling again gives the same error -- except
 *    where the item's own length says where the next one starts and the
 *    failure is inside it: cudw_unit_next moves past a unit it cannot
 *    read (DWARF 4, an address size it does not know; past the whole
 *    section after a reserved unit length), cudw_frame_next past an entry
 *    whose length was readable.  cudw_verify goes on from there; a reader
 *    that wants one error stops (cudw_walk_section).
 *
 * Thread safety: one cudw_file may be used by one thread at a time.  A
 * cudw_input may be shared: cudw_input_peek and cudw_input_load are safe
 * from any number of threads (each thread gets images of its own).  A
 * cudw_symbolizer answers lookups from any number of threads at once.
 */
#ifndef CUDWARF_H
#define CUDWARF_H

#include <stddef.h>
#include <stdint.h>

#include "cudwarf/dwarf.h" /* CUDW_DW_TAG_subprogram, CUDW_R_CUDA_64, ...: the formats' numbers by name */

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the API and is exported; the library is
 * built with -fvisibility=hidden, so nothing else is (Makefile). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define CUDW_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------ */
/* Status codes and errors                                             */
/* ------------------------------------------------------------------ */

enum {
    CUDW_OK = 0,
    CUDW_DONE = 1,              /* iteration finished; not an error */
    CUDW_E_NOMEM = -1,          /* allocation failed */
    CUDW_E_IO = -2,             /* open/stat/mmap failed (detail has errno text) */
    CUDW_E_NOT_ELF = -3,        /* no ELF magic */
    CUDW_E_ELF_CLASS = -4,      /* not ELF64 little-endian */
    CUDW_E_BAD_ELF = -5,        /* headers, section table or symbols inconsistent */
    CUDW_E_TRUNCATED = -6,      /* a read ran past the end of its unit or section */
    CUDW_E_LEB_OVERFLOW = -7,   /* LEB128 value does not fit 64 bits */
    CUDW_E_UNSUPPORTED = -8,    /* DWARF 4/5, 64-bit DWARF, unknown address size */
    CUDW_E_BAD_ABBREV = -9,     /* malformed abbreviation entry */
    CUDW_E_NO_ABBREV = -10,     /* .debug_info without .debug_abbrev */
    CUDW_E_BAD_CODE = -11,      /* DIE abbreviation code not in its table */
    CUDW_E_BAD_FORM = -12,      /* unknown DW_FORM */
    CUDW_E_BAD_OFFSET = -13,    /* an offset points outside its target */
    CUDW_E_BAD_RELOC = -14,     /* relocation section malformed */
    CUDW_E_LIMIT = -15,         /* a resource bound was hit (nesting depth, ...) */
    CUDW_E_NOT_FOUND = -16,     /* no such section/symbol/attribute */
    CUDW_E_ARG = -17,           /* invalid argument from the caller */
    CUDW_E_BAD_EXPR = -18,      /* malformed DW_OP expression */
    CUDW_E_NOT_CUDA = -19       /* an ELF, but not a device ELF (e_machine is not 190) */
};

typedef struct cudw_error {
    int code;           /* CUDW_E_* */
    char section[64];   /* section being decoded; "" for the file itself */
    uint64_t offset;    /* offset inside that section (or the file) */
    const char *what;   /* what was being decoded: "CU header", "DIE", ... */
    char detail[224];   /* what was expected and what was found */
} cudw_error;

/* Short fixed name of a status code ("truncated", "bad abbreviation code"). */
const char *cudw_status_name(int code);

/* "SECTION+0xOFF: WHAT: DETAIL" into buf (always NUL-terminated);
 * returns the length it needed. */
size_t cudw_error_format(const cudw_error *e, char *buf, size_t n);

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

typedef struct cudw_file cudw_file;

/* Open and map a device ELF (e_machine 190, EM_CUDA).  On success *out is
 * the handle.  On failure the return is negative and *out is still a
 * handle holding the error (so cudw_last_error works), except for
 * CUDW_E_NOMEM where *out is NULL.  Either way, close it.  A host ELF
 * (executable, object, .so) is CUDW_E_NOT_CUDA: cudw_input_open reads the
 * device code inside one. */
int cudw_open(cudw_file **out, const char *path);

/* Same, over bytes the caller keeps alive until cudw_close.  name labels
 * errors (may be NULL). */
/* (data is read in place when 8-byte aligned, copied otherwise.) */
int cudw_open_mem(cudw_file **out, const void *data, size_t size, const char *name);

void cudw_close(cudw_file *f);

const char *cudw_file_name(const cudw_file *f);
const cudw_error *cudw_last_error(const cudw_file *f);

typedef struct cudw_elf_header {
    uint16_t type;        /* ET_REL 1, ET_EXEC 2 */
    uint16_t machine;     /* EM_CUDA 190 */
    uint8_t osabi;        /* 0x41 for cubins */
    uint8_t abiversion;
    uint32_t flags;       /* e_flags; bits 8-15 = SM number */
    unsigned sm;          /* (flags >> 8) & 0xff */
    uint64_t size;        /* file size */
} cudw_elf_header;

const cudw_elf_header *cudw_header(const cudw_file *f);

/* ------------------------------------------------------------------ */
/* Sections and symbols                                                */
/* ------------------------------------------------------------------ */

#define CUDW_SHF_MERCURY 0x10000000u   /* sh_flags bit of .nv.merc.* sections */
#define CUDW_SHT_MERC_RELA 0x70000082u /* .nv.merc.rela.* */
#define CUDW_SHT_MERC_SYMTAB 0x70000085u

typedef struct cudw_section {
    unsigned index;
    const char *name;
    uint32_t type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t align, entsize;
    const uint8_t *data;   /* the bytes, or NULL when the section has none in
                              the file (SHT_NOBITS, or .nv_debug.shared whose
                              sh_offset + sh_size may lie past the end) */
    uint64_t data_size;    /* bytes available at data (0 when data is NULL) */
} cudw_section;

unsigned cudw_section_count(const cudw_file *f);
const cudw_section *cudw_section_get(const cudw_file *f, unsigned index);   /* NULL if out of range */
const cudw_section *cudw_section_find(const cudw_file *f, const char *name); /* first with that name */

typedef struct cudw_symbol {
    const char *name;
    uint64_t value, size;
    uint16_t shndx;
    uint8_t type, bind;   /* STT_*, STB_* */
    uint8_t other;        /* st_other: CUDA keeps memory-space bits here
                             (0x40 on __shared__ variables, 0x20 global) */
} cudw_symbol;

/* Symbol number sym of the symbol table in section symtab (.symtab, or
 * .nv.merc.symtab).  A section symbol gets its section's name. */
int cudw_symbol_get(cudw_file *f, unsigned symtab, uint32_t sym, cudw_symbol *out);

/* ------------------------------------------------------------------ */
/* Relocations                                                         */
/* ------------------------------------------------------------------ */

typedef struct cudw_reloc {
    uint64_t offset;        /* in the target section */
    uint32_t type;          /* R_CUDA_* (Mercury: 0x10000 + n) */
    uint32_t sym_index;
    int64_t addend;         /* RELA: explicit; REL: read from the target bytes */
    uint64_t value;         /* sym_value + addend: the field after relocation */
    uint8_t width;          /* bytes written: 4 or 8; 0 = writes nothing (UNUSED_CLEAR) or unknown type */
    uint8_t rela;           /* 1: from a RELA section, 0: REL */
    uint8_t sym_type, sym_bind, sym_other;
    uint16_t sym_shndx;
    unsigned reloc_section; /* index of the .rel/.rela section it came from */
    const char *sym_name;   /* symbol name, the section name for STT_SECTION */
    uint64_t sym_value, sym_size;
} cudw_reloc;

/* All relocations aimed at section target, from every REL/RELA/Mercury
 * relocation section whose sh_info names it, sorted by offset.  Built on
 * first use and cached. */
int cudw_relocs(cudw_file *f, unsigned target, const cudw_reloc **relocs, size_t *count);

/* The relocation at exactly this offset of target, or NULL. */
const cudw_reloc *cudw_reloc_at(cudw_file *f, unsigned target, uint64_t offset);

/* "R_CUDA_64", "R_CUDA_32", ...; NULL when unknown. */
const char *cudw_reloc_type_name(uint32_t type);

/* Bytes a relocation type writes (4, 8), 0 for none or unknown. */
unsigned cudw_reloc_type_width(uint32_t type);

/* ------------------------------------------------------------------ */
/* Section classes (what a debug section is, and what nvlink does)     */
/* ------------------------------------------------------------------ */

enum cudw_kind {
    CUDW_SEC_NONE = 0,
    CUDW_SEC_ABBREV, CUDW_SEC_ARANGES, CUDW_SEC_FRAME, CUDW_SEC_INFO, CUDW_SEC_LOC,
    CUDW_SEC_MACINFO, CUDW_SEC_PUBNAMES, CUDW_SEC_PUBTYPES, CUDW_SEC_RANGES, CUDW_SEC_STR,
    CUDW_SEC_LINE,
    CUDW_SEC_NV_LINE_SASS, CUDW_SEC_NV_REG_SASS, CUDW_SEC_NV_REG_TYPE,
    CUDW_SEC_NV_PTX_TXT, CUDW_SEC_NV_INFO_PTX, CUDW_SEC_NV_SHARED
};

enum cudw_family { CUDW_FAMILY_OTHER = 0, CUDW_FAMILY_DWARF, CUDW_FAMILY_NV };

/* What nvlink does with a section of this class when it links. */
enum cudw_link_action {
    CUDW_LINK_NONE = 0,     /* not a debug section */
    CUDW_LINK_PARSE,        /* read by the DWARF parser (info, abbrev) */
    CUDW_LINK_CONCAT,       /* concatenated in input order, offsets patched */
    CUDW_LINK_MERGE_LINE,   /* line table merger */
    CUDW_LINK_PASS,         /* carried through unchanged */
    CUDW_LINK_DROP          /* filtered out of the output */
};

typedef struct cudw_secclass {
    int kind;              /* enum cudw_kind */
    int family;            /* enum cudw_family */
    int mercury;           /* 1: a .nv.merc.* twin with the Mercury flag */
    int type_id;           /* nvlink's classifier id 1..6, 0 for the others */
    int link_action;       /* enum cudw_link_action */
    const char *base_name; /* the bare name: ".debug_info", ".nv_debug_ptx_txt" */
} cudw_secclass;

/* Classify by name and sh_flags alone (the rules of nvlink's classifier
 * and Mercury dispatcher).  Returns CUDW_OK, or CUDW_DONE when the name is
 * not a debug section (out->kind == CUDW_SEC_NONE). */
int cudw_classify_name(const char *name, uint64_t flags, cudw_secclass *out);

/* For section index: its class, the index of its twin on the other side
 * (bare <-> .nv.merc.) or -1, and whether the two share the same file bytes
 * (same sh_offset and sh_size). */
int cudw_section_class(cudw_file *f, unsigned index, cudw_secclass *out, int *twin, int *aliased);

const char *cudw_kind_name(int kind);          /* "debug_info", ... */
const char *cudw_link_action_name(int action); /* "parse", "concatenate", ... */

/* ------------------------------------------------------------------ */
/* LEB128                                                              */
/* ------------------------------------------------------------------ */

/* Decode at *p (not past end), advance *p.  CUDW_E_TRUNCATED when the
 * last byte still has its continuation bit; CUDW_E_LEB_OVERFLOW when
 * significant bits fall beyond 64. */
int cudw_uleb128_read(const uint8_t **p, const uint8_t *end, uint64_t *out);
int cudw_sleb128_read(const uint8_t **p, const uint8_t *end, int64_t *out);

/* Encode into buf if it has room; returns the length of the encoding
 * (1..10) either way, so a NULL/short buffer asks for the size. */
size_t cudw_uleb128_write(uint64_t v, uint8_t *buf, size_t cap);
size_t cudw_sleb128_write(int64_t v, uint8_t *buf, size_t cap);

/* ------------------------------------------------------------------ */
/* .debug_abbrev                                                       */
/* ------------------------------------------------------------------ */

#define CUDW_MAX_ABBREV_ATTRS 256  /* nvlink's limit; more is an error */

typedef struct cudw_abbrev_spec {
    uint32_t name;  /* DW_AT_* */
    uint32_t form;  /* DW_FORM_* */
} cudw_abbrev_spec;

typedef struct cudw_abbrev {
    uint64_t code;
    uint32_t tag;
    uint8_t has_children;
    uint32_t nattrs;
    uint64_t offset;                 /* of the entry in the abbrev section */
    const cudw_abbrev_spec *attrs;
    /* For skipping a DIE without decoding it: when no form has a variable
     * size, its values take fixed_size + n_addr * address size +
     * n_ref_addr * (ref_addr size) bytes; fixed_size is -1 otherwise. */
    int32_t fixed_size;
    uint16_t n_addr, n_ref_addr;
} cudw_abbrev;

typedef struct cudw_abbrev_table {
    const cudw_section *section;
    uint64_t offset;   /* where the table starts */
    uint64_t end;      /* just past its terminating 0 */
    size_t count;
    const cudw_abbrev *entries;  /* in section order */
} cudw_abbrev_table;

/* The table at offset of the abbreviation section sec, parsed on first use
 * and cached on the handle.  Lookup by code is O(1) for the dense codes
 * producers write, a binary search otherwise. */
int cudw_abbrev_table_get(cudw_file *f, const cudw_section *sec, uint64_t offset,
                          const cudw_abbrev_table **out);
const cudw_abbrev *cudw_abbrev_find(const cudw_abbrev_table *t, uint64_t code);

/* ------------------------------------------------------------------ */
/* .debug_info, .nv_debug_info_ptx, .nv.merc.debug_info                */
/* ------------------------------------------------------------------ */

typedef struct cudw_unit {
    cudw_file *file;
    const cudw_section *section;
    uint64_t offset;          /* of the unit header */
    uint64_t length;          /* unit_length */
    uint64_t end;             /* offset just past the unit */
    uint16_t version;         /* 2 or 3 */
    uint8_t addr_size;        /* 4 or 8 */
    uint8_t offset_size;      /* 4 (32-bit DWARF) */
    uint64_t abbrev_offset;   /* relocated */
    const cudw_reloc *abbrev_reloc;
    uint64_t die_offset;      /* first DIE */
    const cudw_abbrev_table *abbrevs;
    const cudw_section *abbrev_section;
    const cudw_section *str_section;  /* NULL if the file has none */
} cudw_unit;

/* Next unit of an info-like section.  *cursor starts at 0 and is advanced
 * past the unit.  CUDW_DONE at the end of the section. */
int cudw_unit_next(cudw_file *f, const cudw_section *info, uint64_t *cursor, cudw_unit *out);

typedef struct cudw_die {
    const cudw_unit *unit;
    uint64_t offset;          /* section offset of the DIE */
    unsigned depth;           /* 0 for the unit DIE */
    uint64_t code;
    uint32_t tag;
    uint8_t has_children;
    const cudw_abbrev *abbrev;
    uint64_t attr_offset;     /* where its attribute values start */
} cudw_die;

#define CUDW_MAX_DIE_DEPTH 4096

/* Iterator state.  The caller provides the storage (a local variable:
 * walking allocates nothing) and the library owns the fields: read none
 * of them, and expect them to change between versions. */
typedef struct cudw_die_iter {
    const cudw_unit *unit;
    uint64_t pos;       /* next byte to read */
    unsigned depth;
    const cudw_abbrev *pending_abbrev;  /* last DIE, values not yet skipped */
} cudw_die_iter;

/* Walk a unit's DIEs in section order (a preorder of the tree); null
 * entries only move depth.  Nesting deeper than CUDW_MAX_DIE_DEPTH is
 * CUDW_E_LIMIT. */
void cudw_die_iter_init(const cudw_unit *u, cudw_die_iter *it);
int cudw_die_next(cudw_die_iter *it, cudw_die *out);

/* Value classes of attributes. */
enum cudw_vclass {
    CUDW_V_ADDRESS = 1,  /* u: (relocated) address */
    CUDW_V_UNSIGNED,     /* u: dataN, udata */
    CUDW_V_SIGNED,       /* s: sdata */
    CUDW_V_FLAG,         /* u: 0/1 */
    CUDW_V_STRING,       /* str; for strp, u is the .debug_str offset */
    CUDW_V_BLOCK,        /* block, block_len */
    CUDW_V_REF,          /* u: section offset of the referenced DIE */
    CUDW_V_SECOFFSET     /* u: offset into another section (sec_offset) */
};

typedef struct cudw_attr {
    uint32_t name;         /* DW_AT_* */
    uint32_t form;         /* DW_FORM_* after resolving DW_FORM_indirect */
    uint8_t indirect;      /* 1: the form came through DW_FORM_indirect */
    uint8_t vclass;        /* enum cudw_vclass */
    uint64_t offset;       /* section offset of the value */
    uint64_t size;         /* bytes of the value (with its length prefix) */
    uint64_t u;
    int64_t s;
    const char *str;
    const uint8_t *block;
    uint64_t block_len;
    const cudw_reloc *reloc;  /* the relocation applied to the value, or NULL */
} cudw_attr;

/* Iterator state.  The caller provides the storage (a local variable:
 * walking allocates nothing) and the library owns the fields: read none
 * of them, and expect them to change between versions. */
typedef struct cudw_attr_iter {
    const cudw_die *die;
    uint64_t pos;
    uint32_t index;
} cudw_attr_iter;

void cudw_attr_iter_init(const cudw_die *d, cudw_attr_iter *it);
int cudw_attr_next(cudw_attr_iter *it, cudw_attr *out);

/* After reading every attribute of the DIE cudw_die_next returned last,
 * let the walk go on from where the attribute iterator stopped instead of
 * skipping the values a second time.  A no-op unless ai reached CUDW_DONE
 * on that DIE. */
void cudw_die_iter_resume(cudw_die_iter *it, const cudw_attr_iter *ai);

/* The DIE at section offset `offset` of unit u (a DW_FORM_ref* value);
 * its depth is not known (0).  CUDW_E_BAD_OFFSET outside the unit. */
int cudw_die_at(const cudw_unit *u, uint64_t offset, cudw_die *out);

/* The attribute name of d, or CUDW_DONE if absent. */
int cudw_die_attr(const cudw_die *d, uint32_t name, cudw_attr *out);

/* The DIE's canonical name: DW_AT_MIPS_linkage_name when present, else
 * DW_AT_name (nvlink's priority).  *name = NULL and CUDW_DONE if neither. */
int cudw_die_name(const cudw_die *d, const char **name);

/* Decode one value of form at section offset *pos of unit u (bounded by
 * the unit's end) and advance *pos: the primitive the DIE reader uses.
 * out->name is left to the caller. */
int cudw_form_read(const cudw_unit *u, uint32_t form, uint64_t *pos, cudw_attr *out);

/* ------------------------------------------------------------------ */
/* Line tables: .debug_line, .nv_debug_line_sass, their .nv.merc. twins */
/* ------------------------------------------------------------------ */

/* NVIDIA's extended opcodes (docs/lines.md; elfutils names the first two
 * DW_LNE_NVIDIA_inlined_call and DW_LNE_NVIDIA_set_function_name), the
 * short names of CUDW_DW_LNE_NVIDIA_* in cudwarf/dwarf.h. */
#define CUDW_LNE_INLINED_CALL CUDW_DW_LNE_NVIDIA_inlined_call   /* ULEB context, ULEB function-name offset */
#define CUDW_LNE_SET_FUNCTION CUDW_DW_LNE_NVIDIA_set_function_name /* ULEB function-name offset */
#define CUDW_LNE_MERC_ENTRY CUDW_DW_LNE_NVIDIA_0x92 /* u8 flag: 1 before a function's entry row, 0 after (Mercury only) */

/* "DW_LNS_copy", "DW_LNE_end_sequence", "DW_LNE_NVIDIA_inlined_call", ...:
 * the name of a standard (extended = 0) or extended (extended = 1)
 * line-program opcode; NULL when it has none (a special opcode). */
const char *cudw_line_op_name(uint8_t op, int extended);

typedef struct cudw_line_file {
    const char *name;     /* as stored */
    const char *path;     /* directory joined with name; directory 0 is the unit's
                             comp_dir (name alone when the table has no unit) */
    uint64_t dir, mtime, size;
} cudw_line_file;

typedef struct cudw_line_table {
    cudw_file *file;
    const cudw_section *section;
    uint64_t offset;          /* of the unit header */
    uint64_t unit_length;
    uint64_t end;             /* offset just past the table */
    uint16_t version;         /* 2 or 3 */
    uint64_t header_length;
    uint64_t program_offset;  /* first opcode */
    uint8_t min_inst_length, default_is_stmt, line_range, opcode_base;
    int8_t line_base;
    const uint8_t *std_opcode_lengths;  /* opcode_base - 1 entries */
    size_t ndirs;
    const char *const *dirs;  /* dirs[0] is DWARF directory 1 */
    size_t nfiles;
    const cudw_line_file *files;  /* files[0] is DWARF file 1 */
    const char *comp_dir;     /* DW_AT_comp_dir of the unit whose stmt_list names this
                                 table (directory 0 and relative paths join it), or NULL */
    /* NVIDIA's .debug_str base word: present when header_length leaves
     * exactly 4 bytes after the file table (formats.md 2.2).  Function names
     * of inlined rows are .debug_str[str_base + operand]. */
    uint8_t has_str_base;
    uint64_t str_base;               /* relocated */
    uint32_t str_base_raw;           /* the word's bytes as stored */
    uint64_t str_base_offset;        /* section offset of the word */
    const cudw_reloc *str_base_reloc;
    const cudw_section *str_section; /* .debug_str (or its Mercury twin), or NULL */
} cudw_line_table;

/* The table whose header is at offset of sec, parsed on first use and
 * cached.  cudw_line_table_next walks a section: *cursor starts at 0;
 * CUDW_DONE at the end. */
int cudw_line_table_get(cudw_file *f, const cudw_section *sec, uint64_t offset, const cudw_line_table **out);
int cudw_line_table_next(cudw_file *f, const cudw_section *sec, uint64_t *cursor, const cudw_line_table **out);

/* One opcode of a line program (the raw view, for dumps). */
enum cudw_lop_kind { CUDW_LOP_SPECIAL = 1, CUDW_LOP_STANDARD, CUDW_LOP_EXTENDED };

typedef struct cudw_line_op {
    uint64_t offset, size;    /* section offset and bytes of the opcode */
    uint8_t kind;             /* enum cudw_lop_kind */
    uint8_t opcode;           /* the opcode, or the extended sub-opcode */
    uint64_t ext_len;         /* extended: the length field */
    uint64_t u;               /* advance_pc, set_file, set_column, fixed_advance_pc,
                                 set_address (relocated), 0x90 context, 0x91/0x92 operand,
                                 unknown standard: first operand */
    int64_t s;                /* advance_line */
    uint64_t u2;              /* 0x90: function-name offset */
    const cudw_reloc *reloc;  /* set_address: its relocation, or NULL */
    const uint8_t *raw;       /* extended operand bytes (after the sub-opcode) */
    uint64_t raw_len;
    uint64_t addr_adv;        /* special, const_add_pc: address advance */
    int64_t line_adv;         /* special: line advance */
} cudw_line_op;

/* Next opcode at section offset *pos of t's program (start at
 * t->program_offset); CUDW_DONE at t->end. */
int cudw_line_op_next(const cudw_line_table *t, uint64_t *pos, cudw_line_op *out);

/* Whether every opcode of t's program decodes: CUDW_OK, or the error (on
 * the file's handle) that cudw_line_next would stop at.  After CUDW_OK no
 * cudw_line_next on t fails but for memory; several times faster than
 * decoding the rows, for printers that check before they print. */
int cudw_line_table_check(const cudw_line_table *t);

/* One row of the line-number matrix (the rows view). */
typedef struct cudw_line_row {
    uint64_t address;         /* relocated: symbol value + addend + advances */
    const char *symbol;       /* the sequence's DW_LNE_set_address symbol, or NULL */
    uint64_t symbol_value;
    unsigned symtab;          /* the symbol table it is from (.symtab, .nv.merc.symtab) */
    uint64_t file, line, column;
    uint8_t is_stmt, basic_block, end_sequence;
    uint8_t hidden;           /* not a row: an address advance no row followed
                                 (CUDW_LINE_HIDDEN only; see below) */
    uint8_t merc_flag;        /* last 0x92 operand in this sequence (0 if none) */
    uint64_t context;         /* 0, or the 1-based row of this sequence it was inlined at */
    uint64_t function_offset; /* 0x90/0x91 operand */
    const char *function;     /* inlined function's name when context != 0 (or after 0x91), else NULL */
    uint64_t sequence;        /* 0-based sequence number in the table */
    uint64_t index;           /* 1-based row number within its sequence */
    uint64_t op_offset;       /* section offset of the opcode that made the row */
} cudw_line_row;

/* Iterator state.  The caller provides the storage (a local variable:
 * walking allocates nothing) and the library owns the fields: read none
 * of them, and expect them to change between versions. */
typedef struct cudw_line_iter {
    const cudw_line_table *table;
    uint64_t pos;
    cudw_line_row state;
    const char *symbol;
    uint64_t symbol_value;
    unsigned symtab;
    cudw_line_row *seq;       /* the rows of the current sequence, for call sites */
    size_t nseq, capseq;
    unsigned flags;
    uint64_t seq_pos;         /* where the current sequence's program starts */
    int keeping;              /* seq holds this sequence's rows (from its first inlined row on) */
    uint64_t fn_off;          /* the last function-name offset looked up ... */
    const char *fn;           /* ... and its name (inlined rows come in runs) */
    int fn_known;
} cudw_line_iter;

/* Iterator flags. */
#define CUDW_LINE_KEEP_SEQUENCE 1u  /* keep the current sequence's rows (malloc'd;
                                       cudw_line_iter_free releases them) so
                                       cudw_line_callsite can resolve contexts.
                                       Only sequences with inlined rows are kept:
                                       at the first one, the sequence is decoded
                                       again up to it. */
#define CUDW_LINE_HIDDEN 2u         /* also report, as rows with hidden = 1, each
                                       DW_LNS_advance_pc that no row follows:
                                       ptxas writes one for a same-line instruction
                                       it does not copy.  Only an encoder that must
                                       reproduce the bytes needs them; they do not
                                       count in row numbers or contexts. */

/* Walk the rows in emission order. */
void cudw_line_iter_init(const cudw_line_table *t, cudw_line_iter *it, unsigned flags);
int cudw_line_next(cudw_line_iter *it, cudw_line_row *out);
void cudw_line_iter_free(cudw_line_iter *it);

/* The call-site row of an inlined row (context c: row c of the same
 * sequence).  CUDW_DONE when r is not inlined; CUDW_E_BAD_OFFSET when the
 * context points outside the rows seen so far.  Needs
 * CUDW_LINE_KEEP_SEQUENCE, whose memory grows with the sequence;
 * cudw_line_lookup resolves chains in constant memory instead. */
int cudw_line_callsite(const cudw_line_iter *it, const cudw_line_row *r, const cudw_line_row **site);

/* The inlined function named by a DW_LNE 0x90/0x91 operand: the string at
 * .debug_str[t->str_base + off], or NULL when that is outside .debug_str
 * (or unterminated). */
const char *cudw_line_function_name(const cudw_line_table *t, uint64_t off);

/* Path of DWARF file number idx of t (1-based); NULL when out of range. */
const char *cudw_line_file_path(const cudw_line_table *t, uint64_t idx);

/* Address to source: the row covering symbol+offset and its inline call
 * stack, innermost first.  frames[0] is where the address is (in the
 * innermost inlined function, or the function itself); frames[k] is the
 * call site, in frames[k]'s function, of frames[k-1]'s function. */
#define CUDW_MAX_INLINE_DEPTH 256

typedef struct cudw_line_frame {
    const char *function;  /* inlined function's name; for the outermost frame
                              the function symbol containing the address */
    const char *path;      /* NULL for file 0 */
    uint64_t file, line, column;
} cudw_line_frame;

typedef struct cudw_line_hit {
    const cudw_line_table *table;
    cudw_line_row row;     /* the covering row: the last one at the highest
                              address <= the target within its sequence */
    size_t nframes;
    cudw_line_frame frames[CUDW_MAX_INLINE_DEPTH];
} cudw_line_hit;

/* Look offset up in the sequences of line section sec whose
 * DW_LNE_set_address names symbol (offsets count from the symbol's
 * value).  CUDW_OK with *hit filled, CUDW_DONE when no row covers it. */
int cudw_line_lookup(cudw_file *f, const cudw_section *sec, const char *symbol, uint64_t offset,
                     cudw_line_hit *hit);

/* ---- Writing line programs ---- */

/* Header parameters.  cudw_line_params_nvidia() gives what ptxas and nvlink
 * write: version 2, 8-byte addresses, min_inst_length 1, default_is_stmt 1,
 * line_base -5, line_range 14, opcode_base 10. */
typedef struct cudw_line_params {
    uint16_t version;         /* 2 or 3 */
    uint8_t addr_size;        /* 4 or 8 */
    uint8_t min_inst_length, default_is_stmt, line_range, opcode_base;
    int8_t line_base;
} cudw_line_params;

cudw_line_params cudw_line_params_nvidia(void);

typedef struct cudw_line_header_in {
    const char *const *dirs;        /* include_directories (DWARF 1..ndirs) */
    size_t ndirs;
    const cudw_line_file *files;    /* name, dir, mtime, size (path unused) */
    size_t nfiles;
    uint8_t has_str_base;           /* write NVIDIA's .debug_str base word */
    uint32_t str_base;              /* its bytes */
    const char *str_base_symbol;    /* if set, a 32-bit relocation site on the word
                                       (ptxas: the .debug_str section symbol) */
} cudw_line_header_in;

/* A place the caller must relocate: DW_LNE_set_address operands (against
 * the row's symbol, addend = address - symbol value; the bytes are 0, as
 * ptxas writes them) and the .debug_str base word. */
typedef struct cudw_reloc_site {
    uint64_t offset;      /* from the start of the unit */
    const char *symbol;
    int64_t addend;
    uint8_t width;        /* 8 (or 4 for 4-byte addresses / the base word) */
} cudw_reloc_site;

typedef struct cudw_line_out {
    uint8_t *data;        /* the whole unit: header + program (malloc'd) */
    size_t size;
    cudw_reloc_site *sites;   /* malloc'd */
    size_t nsites;
    cudw_error err;       /* on failure: what and where (offset = row index) */
} cudw_line_out;

/* Encode rows (a sequence ends at each end_sequence row; rows of a
 * sequence ascend in address) into one line-number program unit, choosing
 * opcodes as ptxas does (docs/line-encoding.md): set_file, the Mercury
 * 0x92 flag and the 0x90 inlined-call context when they change, a special
 * opcode when the line and address advance fit, otherwise advance_line,
 * advance_pc, copy; advance_pc then DW_LNE_end_sequence.  Fields used:
 * address, symbol, symbol_value, file, line, is_stmt, end_sequence,
 * context, function_offset, merc_flag.  Free with cudw_line_out_free. */
int cudw_line_encode(const cudw_line_params *p, const cudw_line_header_in *h, const cudw_line_row *rows,
                     size_t n, cudw_line_out *out);
void cudw_line_out_free(cudw_line_out *out);

/* Build header tables from full paths the way ptxas does: each path split
 * at its last '/', directories numbered from 1 in order of first
 * appearance without duplicates, a path with no '/' gets directory 0.
 * *out_dirs (ndirs malloc'd strings) and *out_files (n entries whose names
 * point into paths) are malloc'd: free each directory, then both arrays.
 * CUDW_E_ARG when a path is NULL, CUDW_E_NOMEM; nothing is allocated then. */
int cudw_line_header_from_paths(const char *const *paths, const uint64_t *mtimes, const uint64_t *sizes,
                                size_t n, char ***out_dirs, size_t *ndirs, cudw_line_file **out_files);

/* ------------------------------------------------------------------ */
/* .debug_frame                                                        */
/* ------------------------------------------------------------------ */

/* One CIE or FDE.  ptxas writes 64-bit DWARF (0xffffffff + 8-byte length,
 * CIE id 0xffffffffffffffff), CIE version 3, one CIE before each FDE; in
 * relocatable objects the FDE's CIE pointer and initial_location carry
 * relocations (the bytes are 0) and address_range an UNUSED_CLEAR64 one. */
typedef struct cudw_cfa_entry {
    uint64_t offset;            /* of the length field */
    uint64_t length;            /* the unit length */
    uint64_t end;               /* just past the entry */
    uint8_t format64;           /* 64-bit DWARF */
    uint8_t is_cie;
    /* CIE */
    uint8_t version;
    const char *augmentation;
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_register;
    /* FDE */
    uint64_t cie_pointer;       /* relocated: the CIE's section offset */
    const cudw_reloc *cie_reloc;
    uint64_t initial_location;  /* relocated */
    const cudw_reloc *location_reloc;
    uint64_t address_range;
    const cudw_reloc *range_reloc;  /* e.g. R_CUDA_UNUSED_CLEAR64: not applied */
    /* both */
    uint64_t instructions_offset;   /* section offset of the CFA program */
    const uint8_t *instructions;
    uint64_t instructions_length;
} cudw_cfa_entry;

/* Next entry of a .debug_frame (or twin); *cursor starts at 0.  Addresses
 * are addr_size bytes (8 in cubins).  The entry's program is checked too:
 * an unknown or truncated instruction is an error at its offset. */
int cudw_frame_next(cudw_file *f, const cudw_section *sec, uint8_t addr_size, uint64_t *cursor,
                    cudw_cfa_entry *out);

/* The CIE of an FDE: the entry its CIE pointer names when that is a CIE
 * before the FDE; otherwise the nearest CIE before the FDE, with *guessed
 * = 1 (the pointer names no CIE) or 2 (it names a CIE after the FDE).
 * ptxas's relocatable objects, and nvlink's links of them, need the
 * fallback: their CIE-pointer addends count 16-byte entry headers where
 * the entries have 12, and the excess can reach the next function's CIE
 * (docs/spec-disagreements.md 7). */
int cudw_frame_cie(cudw_file *f, const cudw_section *sec, uint8_t addr_size, const cudw_cfa_entry *fde,
                   cudw_cfa_entry *cie, int *guessed);

typedef struct cudw_cfa_op {
    uint64_t offset;      /* within the program */
    uint8_t op;           /* DW_CFA_* (advance_loc, offset, restore: the high-bit forms) */
    uint64_t reg;         /* register operand */
    uint64_t u;           /* unsigned operand: offset, delta (unscaled), address, second register */
    int64_t s;            /* signed operand (_sf forms), factored */
    const uint8_t *block; /* DW_CFA_*expression */
    uint64_t block_len;
} cudw_cfa_op;

int cudw_cfa_op_next(const uint8_t *prog, uint64_t len, uint8_t addr_size, uint64_t *pos, cudw_cfa_op *out);
const char *cudw_cfa_name(uint8_t op);

/* The table an FDE describes: rows of (address range, CFA rule, register
 * rules).  Open with the FDE and its CIE (cudw_frame_cie); each
 * cudw_cfa_rows_next gives the next row, CUDW_DONE after the last.  A
 * fde NULL gives only the CIE's rules (cudw_cfa_rows_initial).  A
 * row's rules are sorted by register, hold every register that has a rule,
 * and stay valid until the next call.  Offsets are already multiplied by
 * the data alignment factor, addresses by the code alignment factor.
 * DW_CFA_remember_state nesting and the rules it copies are bounded
 * (CUDW_E_LIMIT); errors name the instruction's section offset. */
enum {
    CUDW_RULE_UNDEFINED = 1,  /* not recoverable */
    CUDW_RULE_SAME,           /* unchanged */
    CUDW_RULE_OFFSET,         /* saved at CFA + offset */
    CUDW_RULE_VAL_OFFSET,     /* the value is CFA + offset */
    CUDW_RULE_REGISTER,       /* in register reg2 */
    CUDW_RULE_EXPRESSION,     /* saved at the address expr computes */
    CUDW_RULE_VAL_EXPRESSION  /* the value expr computes */
};

typedef struct cudw_cfa_rule {
    uint64_t reg;
    uint8_t kind;             /* CUDW_RULE_* */
    int64_t offset;
    uint64_t reg2;
    const uint8_t *expr;
    uint64_t expr_len;
} cudw_cfa_rule;

typedef struct cudw_cfa_row {
    uint64_t address, end;    /* [address, end) */
    uint8_t cfa_is_expr;
    uint64_t cfa_reg;         /* CFA = cfa_reg + cfa_offset ... */
    int64_t cfa_offset;
    const uint8_t *cfa_expr;  /* ... or what this computes */
    uint64_t cfa_expr_len;
    const cudw_cfa_rule *rules;
    size_t nrules;
} cudw_cfa_row;

typedef struct cudw_cfa_rows cudw_cfa_rows;

int cudw_cfa_rows_open(cudw_file *f, const cudw_section *sec, uint8_t addr_size, const cudw_cfa_entry *cie,
                       const cudw_cfa_entry *fde, cudw_cfa_rows **out);
int cudw_cfa_rows_next(cudw_cfa_rows *r, cudw_cfa_row *row);
/* The rules the CIE's initial instructions set up (what DW_CFA_restore returns to). */
const cudw_cfa_rule *cudw_cfa_rows_initial(const cudw_cfa_rows *r, size_t *n);
void cudw_cfa_rows_close(cudw_cfa_rows *r);

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
/* Fatbins and the inputs users have                                   */
/* ------------------------------------------------------------------ */

/* A fatbin blob: containers back to back (zero padding between them, as in
 * an executable's .nv_fatbin), each a 16-byte header and its entries. */
enum {
    CUDW_FATBIN_PTX = 1,
    CUDW_FATBIN_ELF = 2,
    CUDW_FATBIN_NVVM = 8         /* LTO IR (nvcc -dlto; fatbinary's kind=nvvm) */
};
#define CUDW_FATBIN_64BIT 0x1ull
#define CUDW_FATBIN_DEBUG 0x2ull
#define CUDW_FATBIN_LINUX 0x10ull
#define CUDW_FATBIN_LZ4 0x2000ull    /* LZ4 block format (--compress-mode=speed) */
#define CUDW_FATBIN_ZSTD 0x8000ull   /* a zstd frame (default, size, balance) */
/* Set beside LZ4 or ZSTD on compressed LTO IR: the stored bytes are then
 * neither an LZ4 block nor a zstd frame (an encoding cudwarf does not know,
 * docs/fatbin.md); cudw_fatbin_image refuses them with CUDW_E_UNSUPPORTED. */
#define CUDW_FATBIN_ENCODED 0x10000ull
/* The target variant (nvcc -gencode ...,code=sm_90a / sm_100f): the ELF
 * header does not say it (sm_90 and sm_90a images have the same e_flags);
 * the entry does. */
#define CUDW_FATBIN_ARCH_SPECIFIC 0x100000ull   /* sm_Na */
#define CUDW_FATBIN_FAMILY 0x200000ull          /* sm_Nf */
/* "a", "f" or "" for an entry's flags. */
const char *cudw_fatbin_variant(uint64_t flags);

typedef struct cudw_fatbin_entry {
    unsigned container, index;   /* 0-based */
    uint64_t offset;             /* of the entry header in the blob */
    const uint8_t *header;       /* raw header bytes (header_size of them) */
    uint16_t kind;               /* CUDW_FATBIN_PTX / _ELF / _NVVM (others: shown raw) */
    uint16_t field2;             /* 0x0101 in every entry seen; meaning unknown */
    uint32_t header_size;
    uint64_t payload_size;       /* stored bytes, padded to 8 */
    uint32_t compressed_size;    /* 0 when not compressed */
    uint32_t options_offset;     /* from the entry start, 0 if none */
    uint16_t minor, major;       /* ELF 1.8, PTX ISA major.minor */
    uint32_t sm;
    const char *name;            /* the --ident (name_length bytes, NUL-terminated copy), or NULL */
    uint32_t name_length;
    uint64_t flags;
    uint64_t field48;            /* 0 in every entry seen */
    uint64_t decompressed_size;  /* when compressed */
    const uint8_t *payload;      /* as stored */
    uint64_t stored_size;        /* compressed_size when compressed, else payload_size */
    const uint8_t *options;      /* options data (ptxas options, or binary; a copy), or NULL */
    uint32_t options_length;
} cudw_fatbin_entry;

typedef struct cudw_fatbin cudw_fatbin;

/* The largest decompressed image cudwarf will allocate (CUDW_E_LIMIT beyond). */
#define CUDW_MAX_IMAGE_SIZE (1ull << 30)

/* Parse a blob the caller keeps alive.  On failure the handle (when not
 * NULL) holds the error: cudw_fatbin_error.  name labels errors. */
int cudw_fatbin_parse(const void *blob, size_t size, const char *name, cudw_fatbin **out);
const cudw_error *cudw_fatbin_error(const cudw_fatbin *fb);
size_t cudw_fatbin_count(const cudw_fatbin *fb);
const cudw_fatbin_entry *cudw_fatbin_get(const cudw_fatbin *fb, size_t i);
/* "ELF", "PTX", "NVVM"; NULL for a kind nobody has named. */
const char *cudw_fatbin_kind_name(unsigned kind);
/* Entry i's image, decompressed (zstd, LZ4) and checked against the size
 * the header gives; trimmed to the ELF's own size or the PTX text.  Other
 * kinds stored uncompressed come with fatbinary's zero padding to 8 bytes:
 * the header records no exact size for them (docs/fatbin.md).  *data
 * points into the blob or into a buffer the handle owns. */
int cudw_fatbin_image(cudw_fatbin *fb, size_t i, const uint8_t **data, size_t *size);
void cudw_fatbin_close(cudw_fatbin *fb);

/* What a user hands a tool: a cubin, a fatbin file, a host ELF (object,
 * executable, .so), or an "ar" archive (static library) of those.  A host
 * ELF's fatbin containers are found three ways (docs/fatbin.md):
 *  - walking .nv_fatbin and __nv_relfatbin, which hold nothing else;
 *  - scanning every other section with file bytes for the container magic
 *    0xBA55ED50, keeping a hit only when the whole container checks out
 *    (NVIDIA's libraries keep thousands in .ldata, .rodata, .cask_resource
 *    and load them themselves; the magic also occurs as plain bytes);
 *  - following the __fatBinC_Wrapper_t records of .nvFatBinSegment.
 * Images are labelled
 *    FILE                                     a cubin
 *    FILE[C.E: KIND sm_N 'ident']             entry E of container C of a fatbin file
 *    FILE[SECTION#C.E: KIND sm_N 'ident']     ... of the C-th container of SECTION
 *    LIB(MEMBER)  LIB(MEMBER)[...]            the same inside an archive member
 * which is unique within the input. */
enum { CUDW_INPUT_CUBIN = 1, CUDW_INPUT_FATBIN, CUDW_INPUT_HOST, CUDW_INPUT_ARCHIVE };

/* How a container was found (bits of cudw_input_container.found_by). */
#define CUDW_FOUND_SECTION 1u   /* walking .nv_fatbin / __nv_relfatbin, or the fatbin file */
#define CUDW_FOUND_SCAN 2u      /* its magic in another section, the whole container valid */
#define CUDW_FOUND_WRAPPER 4u   /* a .nvFatBinSegment wrapper record points at it */

typedef struct cudw_input_container {
    const char *owner;           /* "app.so", "lib.a(x.o)": what its labels start with */
    const char *member;          /* archives: the member holding it; else NULL */
    const char *section;         /* the host section holding it; NULL in a fatbin file */
    unsigned section_index;
    unsigned ordinal;            /* its number among the containers of that section (or file) */
    uint64_t section_offset;     /* where it starts in the section (or fatbin file) */
    uint64_t file_offset;        /* ... in the host file (an archive member's bytes) */
    uint64_t size;               /* its 16-byte header and every entry */
    unsigned found_by;           /* CUDW_FOUND_* */
    unsigned wrapper_version;    /* of the first wrapper record naming it (1, 2), else 0 */
    uint64_t wrapper_offset;     /* that record's offset in .nvFatBinSegment */
    size_t first_image, nimages; /* its entries, in cudw_input order */
} cudw_input_container;

typedef struct cudw_input_image {
    const char *label;           /* see above; unique within the input */
    const char *tag;             /* the label's part in brackets without the kind:
                                    ".nv_fatbin#0.1", "0.1"; "" for a cubin */
    int kind;                    /* CUDW_FATBIN_ELF, _PTX, _NVVM or another entry kind */
    unsigned sm;                 /* from the entry header (or a cubin's ELF header) */
    char variant;                /* 'a', 'f' or 0 (entry flags; a cubin cannot say) */
    const cudw_fatbin_entry *entry;  /* NULL for a cubin */
    size_t container;            /* index for cudw_input_container_get; (size_t)-1 for a cubin */
    uint64_t offset;             /* of the entry header in its section (or fatbin file) */
    const char *member;          /* archives: the member holding it ("x.o"); else NULL */
    /* Filled by cudw_input_image_get only: */
    cudw_file *elf;              /* ELF images: opened */
    const uint8_t *data;         /* the image bytes (ELF or PTX text) */
    size_t size;
} cudw_input_image;

typedef struct cudw_input cudw_input;

/* Like cudw_open: on failure *out still holds the error (close it).  A
 * host ELF without device code opens with 0 images. */
int cudw_input_open(cudw_input **out, const char *path);
int cudw_input_type(const cudw_input *in);
const cudw_error *cudw_input_error(const cudw_input *in);
size_t cudw_input_count(const cudw_input *in);
/* Image i as listed (label, kind, SM, entry), without decompressing it. */
const cudw_input_image *cudw_input_peek(const cudw_input *in, size_t i);
size_t cudw_input_container_count(const cudw_input *in);
const cudw_input_container *cudw_input_container_get(const cudw_input *in, size_t i);
const cudw_fatbin *cudw_input_fatbin(const cudw_input *in);   /* the first container's; NULL for a cubin */

/* Image i, decompressed and (for ELF) opened, kept on the input until
 * cudw_input_image_release or close; errors on the input.  For one thread
 * at a time; cudw_input_load is the way for several. */
int cudw_input_image_get(cudw_input *in, size_t i, const cudw_input_image **out);
void cudw_input_image_release(cudw_input *in, size_t i);

/* Image i, loaded for the caller alone: decompressed into its own buffer
 * and, for an ELF image, opened as a cudw_file of its own.  Any number of
 * threads may load images of one input at once (each its own images);
 * nothing on the input changes.  Like cudw_open, *out holds the error on
 * failure (except CUDW_E_NOMEM: NULL).  cudw_image_free releases it and
 * returns the host file's pages it read to the system, so a walk over
 * every image of a 500 MB library stays within the largest image. */
typedef struct cudw_image {
    const cudw_input_image *info;    /* label, kind, SM, entry */
    const uint8_t *data;             /* the image bytes */
    size_t size;
    cudw_file *elf;                  /* ELF images; NULL for the others */
    cudw_error err;
} cudw_image;
int cudw_input_load(const cudw_input *in, size_t i, cudw_image **out);
void cudw_image_free(cudw_image *im);

/* "90", "sm_90", "90a", "sm_100f", "compute_90"... -> *sm and *variant
 * ('a', 'f' or 0).  CUDW_E_ARG when text is not one. */
int cudw_sm_parse(const char *text, unsigned *sm, char *variant);
/* 1 when image im is for sm_N with that variant (sm_90a images are not
 * sm_90 ones); a cubin, whose header cannot tell, matches either. */
int cudw_input_image_is(const cudw_input_image *im, unsigned sm, char variant);

void cudw_input_close(cudw_input *in);

/* ------------------------------------------------------------------ */
/* Symbolizing: a SASS location -> source lines and inline call stack  */
/* ------------------------------------------------------------------ */

/* What profilers, sanitizers and debuggers ask millions of times: which
 * source line, in which inlined function, called from where, is the
 * instruction at SYMBOL+OFFSET of some image?
 *
 * A symbolizer opens any input (cubin, fatbin, host ELF, archive) and
 * builds, on first use of each image and once, an index: the function
 * symbols by name and address, every line row of .debug_line and (with
 * CUDW_SYM_PTX) .nv_debug_line_sass as sorted arrays with their inline
 * call sites, and the DW_TAG_inlined_subroutine tree of .debug_info as
 * sorted address ranges.  A lookup is then a hash probe and two binary
 * searches.
 *
 * Inline frames come from two sources: NVIDIA's inlined-call contexts in
 * the line table (-lineinfo code) and the DIEs' inlined subroutines (-G
 * code, whose line tables have none).  frames[0] is where the address is;
 * frames[k] is where frames[k-1]'s function was called, in frames[k]'s
 * function (for DIE frames: the callee's DW_AT_call_file/line/column).
 *
 * Images: without a chosen SM, the first image (in cudw_input order) with
 * a row for the location answers, and other_images counts the further
 * images that define the symbol (an executable built for several SMs
 * holds one cubin each).  cudw_symbolizer_opts.sm restricts the images;
 * an SM the input does not hold is an error of cudw_symbolizer_open.
 *
 * nvlink -arch=sm_90 leaves the .debug_str base word of every linked
 * -lineinfo line table at 0, so inlined-function names of all but the
 * first input point into other strings.  The symbolizer recovers each
 * table's base when exactly one base fits every name the table uses
 * (names_recovered), and otherwise leaves those names out (names_dropped)
 * rather than print one read from the middle of another string.
 *
 * Threads: once an image's index is built, any number of threads may
 * look up locations on one symbolizer at once; building is serialized
 * inside (the first lookup on an image builds it; cudw_symbolizer_prepare
 * builds every image up front). */
typedef struct cudw_symbolizer cudw_symbolizer;

#define CUDW_SYM_DEMANGLE 1u   /* frames get function_demangled (libiberty's demangler) */
#define CUDW_SYM_PTX 2u        /* results get the PTX line and its text (.nv_debug_line_sass) */

typedef struct cudw_symbolizer_opts {
    unsigned flags;            /* CUDW_SYM_* */
    unsigned sm;               /* only sm_N images; 0: all */
    char variant;              /* with sm: 'a', 'f' or 0 (sm_90a images are not sm_90 ones) */
    const char *debug_file;    /* the debug sections come from this strip --keep-debug
                                  companion (checked against each image's functions) */
} cudw_symbolizer_opts;

/* Like cudw_open: on failure *out still holds the error (close it), except
 * for CUDW_E_NOMEM.  opts may be NULL. */
int cudw_symbolizer_open(cudw_symbolizer **out, const char *path, const cudw_symbolizer_opts *opts);
/* A symbolizer over one cubin the caller has opened (cudw_open_mem of a
 * module CUPTI hands over in memory, say) and keeps open until
 * cudw_symbolizer_close; it has one image, labelled with the file's name. */
int cudw_symbolizer_open_file(cudw_symbolizer **out, cudw_file *f, unsigned flags);
const cudw_error *cudw_symbolizer_error(const cudw_symbolizer *s);
/* The ELF images it answers from (those of the chosen SM). */
size_t cudw_symbolizer_image_count(const cudw_symbolizer *s);
const cudw_input_image *cudw_symbolizer_image(const cudw_symbolizer *s, size_t i);
/* Build every image's index now (the lookups then never wait). */
int cudw_symbolizer_prepare(cudw_symbolizer *s);
void cudw_symbolizer_close(cudw_symbolizer *s);

/* Where a frame's function name came from. */
enum { CUDW_FROM_SYMBOL = 1, CUDW_FROM_LINE_TABLE, CUDW_FROM_DIE };

typedef struct cudw_sym_frame {
    const char *function;           /* linkage (mangled) name; NULL when unknown */
    const char *function_demangled; /* CUDW_SYM_DEMANGLE: demangled, or the name itself */
    const char *file;               /* path; NULL when unknown */
    uint64_t line, column;
    int source;                     /* CUDW_FROM_*: what named the function */
} cudw_sym_frame;

typedef struct cudw_sym_result {
    int found;                  /* a line row covers the location */
    size_t image;               /* the image that answered, or (size_t)-1 */
    const char *image_label;    /* its label, or NULL */
    size_t other_images;        /* further images that define the symbol */
    const char *symbol;         /* the function symbol looked up (NULL for an address lookup) */
    uint64_t offset;            /* from the symbol's start */
    unsigned section;           /* the code section ... */
    uint64_t address;           /* ... and the address in it */
    size_t nframes;             /* frames of the stack (may exceed the caller's room) */
    int inline_source;          /* CUDW_FROM_LINE_TABLE or _DIE when inlined; 0 otherwise */
    int sources_disagree;       /* both sources have a chain here and they differ (the line table's is used) */
    int names_recovered;        /* an inlined name was read through a recovered .debug_str base */
    int names_dropped;          /* an inlined name is left out: its table's base cannot be recovered */
    /* CUDW_SYM_PTX */
    int has_ptx;                /* a .nv_debug_line_sass row covers it */
    const char *ptx_section;    /* the .nv_debug_ptx_txt section, or NULL */
    uint64_t ptx_line;
    const char *ptx_text;       /* the PTX line, or NULL */
} cudw_sym_result;

/* "SYMBOL+0xOFF", "SYMBOL+OFF" (decimal), "SYMBOL": *symbol points into
 * text (*len bytes).  CUDW_E_ARG when text is not one of these. */
int cudw_location_parse(const char *text, const char **symbol, size_t *len, uint64_t *offset);

/* The location offset bytes into function symbol (len bytes; -1: up to
 * its NUL).  frames[0 .. min(nframes, cap)) are filled.  CUDW_OK whether
 * found or not (r->found); negative on a malformed image (the error is
 * on the symbolizer). */
int cudw_symbolize(cudw_symbolizer *s, const char *symbol, size_t len, uint64_t offset, cudw_sym_result *r,
                   cudw_sym_frame *frames, size_t cap);
/* The same for an address of code section `section` of image `image`. */
int cudw_symbolize_address(cudw_symbolizer *s, size_t image, unsigned section, uint64_t address,
                           cudw_sym_result *r, cudw_sym_frame *frames, size_t cap);

typedef struct cudw_sym_query {
    const char *symbol;         /* NUL-terminated */
    uint64_t offset;
} cudw_sym_query;
/* n lookups: results r[i], frames at frames + i * cap.  Stops at the first
 * error (returned); CUDW_OK otherwise. */
int cudw_symbolize_batch(cudw_symbolizer *s, const cudw_sym_query *q, size_t n, cudw_sym_result *r,
                         cudw_sym_frame *frames, size_t cap);

/* A C++ (Itanium ABI) name demangled into buf (NUL-terminated, truncated
 * to n); returns the length it needed, 0 when name is not mangled. */
size_t cudw_demangle(const char *name, char *buf, size_t n);

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

/* ------------------------------------------------------------------ */
/* Verification                                                        */
/* ------------------------------------------------------------------ */

enum { CUDW_FINDING_ERROR = 1, CUDW_FINDING_NOTE = 2 };

typedef struct cudw_finding {
    int severity;          /* ERROR: malformed; NOTE: odd but known and handled */
    cudw_error where;      /* section, offset, what, detail (code: a CUDW_E_*) */
} cudw_finding;

typedef void (*cudw_finding_fn)(const cudw_finding *finding, void *ctx);

/* Check every debug section of f and report each finding (not only the
 * first): headers and lengths, every read in bounds, abbreviation codes,
 * references inside their unit and onto a DIE, sibling chains, line
 * programs (file numbers, sequence ends, function-name offsets), location
 * list offsets and expressions, CIE/FDE links, string offsets, relocation
 * targets and types.  Returns the number of ERROR findings. */
size_t cudw_verify(cudw_file *f, cudw_finding_fn fn, void *ctx);

/* Run every parser over section s and stop at the first error: CUDW_OK,
 * or that error's code with the error on f (cudw_last_error).  A section
 * cudwarf does not decode is CUDW_OK.  Without flags the walk decodes what
 * the section's own records hold -- abbreviation tables; units, DIEs and
 * attribute values; line-table headers and opcodes; CIEs and FDEs with
 * the CIE each names; list entries, name-index sets, aranges, macinfo,
 * register maps, PTX lines -- which is what a printer of the section
 * reads, so a printer that walks first never fails half-way.
 * CUDW_WALK_DEEP adds what is derived from them: DIE names, DW_OP
 * expressions, line rows with their call sites and PTX lines, each FDE's
 * row table.  cudw_verify goes on past errors and checks more (references,
 * sibling chains, offsets between sections). */
#define CUDW_WALK_DEEP 0x1u
int cudw_walk_section(cudw_file *f, const cudw_section *s, unsigned flags);

/* ------------------------------------------------------------------ */
/* DW_OP expressions                                                   */
/* ------------------------------------------------------------------ */

typedef struct cudw_op {
    uint64_t offset;      /* within the expression */
    uint8_t op;           /* DW_OP_* */
    uint8_t nargs;        /* 0..2 */
    uint64_t arg[2];      /* unsigned operands, or signed ones as int64 bits */
    uint64_t size;        /* bytes of the operation */
} cudw_op;

/* Next operation of expr[0..len) at *pos; CUDW_DONE at the end,
 * CUDW_E_BAD_EXPR / CUDW_E_TRUNCATED on malformed bytes. */
int cudw_op_next(const uint8_t *expr, uint64_t len, uint8_t addr_size, uint64_t *pos, cudw_op *out);

/* Is operand i of op signed (SLEB128 / signed fixed size)? */
int cudw_op_arg_signed(uint8_t op, unsigned i);

/* Is this attribute's block value a DW_OP expression (location-like:
 * location, frame_base, data_member_location, the PGI triplet, ...)? */
int cudw_attr_is_expr(uint32_t name);

/* ------------------------------------------------------------------ */
/* Linking debug information (nvlink -g's debug half)                  */
/* ------------------------------------------------------------------ */

/* Where an output goes: called with consecutive pieces of the file;
 * return 0, or non-zero to stop (the call then fails with CUDW_E_IO). */
typedef int (*cudw_write_fn)(void *ctx, const void *data, size_t n);

typedef struct cudw_link_opts {
    int mercury;            /* emit every debug section under its .nv.merc. name
                               (the nvlink reconstruction's 15 mappings), with the Mercury flag */
    int dedup_strings;      /* one copy of each .debug_str string; every
                               reference (DW_FORM_strp, line-table base words and
                               inlined-function names) rewritten */
    int keep_debug;         /* one input of any type: its debug sections alone, as a
                               companion for the stripped file (cudw_strip_run) */
    cudw_file *symbols;     /* optional: nvlink's output for the same inputs.
                               nvlink lays out __shared__ memory; with this file
                               the relocations against __shared__ variables are
                               resolved as nvlink resolves them, without it they
                               are kept */
} cudw_link_opts;

typedef struct cudw_link_stats {
    size_t sections;          /* debug sections written */
    size_t relocs_kept;       /* relocations written (against functions, data) */
    size_t relocs_resolved;   /* section-relative ones applied and removed */
    size_t shared_kept;       /* against __shared__ variables, kept (no symbols file) */
    size_t shared_resolved;   /* ... resolved from the symbols file */
    size_t labels_resolved;   /* against undefined local labels: their addend */
    size_t cleared_dropped;   /* UNUSED_CLEAR64: dropped, bytes untouched */
    size_t cie_pointers;      /* FDE CIE pointers written */
    size_t str_base_words;    /* line-table .debug_str base words rebased */
    size_t strings_removed;   /* --dedup-strings: bytes saved in .debug_str */
    size_t mercury_ignored;   /* .nv.merc. sections of non-Mercury inputs, skipped */
} cudw_link_stats;

typedef struct cudw_link cudw_link;

/* The inputs of a link, chosen as nvlink chooses them: each path opened
 * (cubin, fatbin, host object, archive) and its device ELF images of SM sm
 * and variant (0, 'a' or 'f') kept in order; sm 0 takes every image,
 * which must then be of one SM and variant.  An archive gives all its
 * members' images, of the SM of the inputs before it when sm is 0;
 * libcudadevrt.a only the members that resolve a reference nobody else
 * defines (rescanned until none is added), as nvlink links it for dynamic
 * parallelism.  *out is set even on failure (NULL only when out of
 * memory): the error, and the path or image it is about, are
 * cudw_link_inputs_error's.  The paths must outlive the handle. */
typedef struct cudw_link_inputs cudw_link_inputs;

int cudw_link_inputs_open(const char *const *paths, size_t npaths, unsigned sm, char variant,
                          cudw_link_inputs **out);
size_t cudw_link_inputs_count(const cudw_link_inputs *li);
/* The images, for cudw_link_run: cudw_link_inputs_count of them. */
cudw_file *const *cudw_link_inputs_files(const cudw_link_inputs *li);
/* Image i's label ("a.o[0.1: ELF sm_90]"), the path it came from (an
 * index into paths) and its variant ('a', 'f' or 0). */
const char *cudw_link_inputs_label(const cudw_link_inputs *li, size_t i);
size_t cudw_link_inputs_path(const cudw_link_inputs *li, size_t i);
char cudw_link_inputs_variant(const cudw_link_inputs *li, size_t i);
/* The input opened for path p. */
cudw_input *cudw_link_inputs_input(const cudw_link_inputs *li, size_t p);
const cudw_error *cudw_link_inputs_error(const cudw_link_inputs *li, const char **about);
void cudw_link_inputs_close(cudw_link_inputs *li);

/* Merge the debug sections of relocatable cubins (ET_REL, one SM) as
 * nvlink -g does (docs/linking.md): every debug section
 * concatenated in input order, .nv_debug_ptx_txt.N one per input,
 * .nv_debug.shared dropped; relocations against debug sections applied
 * (CU abbrev offsets, DW_AT_stmt_list, location lists, name-index unit
 * offsets) and removed, except Mercury's R_MERCURY_PROG_REL32, kept and
 * rebased as nvlink keeps it; FDE CIE pointers set to their CIE's merged
 * offset; line-table .debug_str base words rebased for every SM (nvlink
 * leaves them at 0 for sm_90); relocations against functions and data kept
 * against a symbol table of the same names, whose sections are SHT_NOBITS
 * placeholders.  The result is an ELF a reader uses beside the code link.
 * Like cudw_open, on failure *out still holds the error (cudw_link_error;
 * nothing to write; free it), except for CUDW_E_NOMEM with *out NULL. */
int cudw_link_run(cudw_file *const *inputs, size_t n, const cudw_link_opts *opts, cudw_link **out);
/* The error of a failed link (code 0 after success); *input, when input is
 * not NULL: the index of the input it concerns, -1 for none. */
const cudw_error *cudw_link_error(const cudw_link *l, int *input);
const cudw_link_stats *cudw_link_get_stats(const cudw_link *l);
uint64_t cudw_link_size(const cudw_link *l);
/* Stream the ELF file out. */
int cudw_link_write(const cudw_link *l, cudw_write_fn fn, void *ctx);
/* The same, letting the caller copy bytes that come unchanged from an
 * input file itself (copy_file_range): copy(ctx, input, file_offset, n)
 * returns 0 when it wrote them, 1 to have them passed to fn instead, -1 on
 * error.  Inputs opened with cudw_open only; others always go through fn. */
typedef int (*cudw_copy_fn)(void *ctx, size_t input, uint64_t file_offset, uint64_t n);
int cudw_link_write_copy(const cudw_link *l, cudw_write_fn fn, cudw_copy_fn copy, void *ctx);
/* Informative messages ("kept 5 relocations against __shared__ variables"). */
size_t cudw_link_note_count(const cudw_link *l);
const char *cudw_link_note(const cudw_link *l, size_t i);
void cudw_link_free(cudw_link *l);

/* Strip: the file without its debug sections and the relocation sections
 * aimed at them; everything else byte for byte.  Section indexes do not
 * change (removed sections leave an SHT_NULL header, their section symbols
 * null entries), so sh_link/sh_info, symbol and .nv.info references stay
 * valid; the remaining bytes are laid out again, each section and segment
 * at its alignment, program headers updated.  The companion with the
 * removed information is cudw_link_run with keep_debug on the same file.
 * Errors on f (a debug section inside a loadable segment cannot go). */
typedef struct cudw_strip cudw_strip;

int cudw_strip_run(cudw_file *f, cudw_strip **out);
uint64_t cudw_strip_size(const cudw_strip *s);
/* Sections removed; *bytes (if not NULL) the bytes they held. */
size_t cudw_strip_removed(const cudw_strip *s, size_t *bytes);
int cudw_strip_write(const cudw_strip *s, cudw_write_fn fn, void *ctx);
void cudw_strip_free(cudw_strip *s);

/* Whether dbg, a --keep-debug companion, belongs to f: every function dbg
 * describes (its FUNC symbols) is one of f's, of the same size.  1 when it
 * does; 0 with the reason in why (n bytes, always terminated). */
int cudw_companion_matches(cudw_file *dbg, cudw_file *f, char *why, size_t n);

/* Remap: source paths rewritten, as GCC's -fdebug-prefix-map would have
 * written them.  Each path in the line tables (include directories and
 * file names of .debug_line, .nv_debug_line_sass and their Mercury twins)
 * and each compile unit's DW_AT_name and DW_AT_comp_dir that starts with
 * from[i] gets to[i] instead (the first rule that matches).  Whatever
 * points past a string that changed length is moved with it (unit and
 * header lengths, DW_AT_stmt_list, DIE references, name-table offsets,
 * relocation offsets and addends); a DW_FORM_strp path gets a new string
 * at the end of .debug_str.  Every other byte of the file stays; a section
 * that grew is written at the end of the file.  Errors on f. */
typedef struct cudw_remap cudw_remap;

int cudw_remap_run(cudw_file *f, const char *const *from, const char *const *to, size_t nrules,
                   cudw_remap **out);
uint64_t cudw_remap_size(const cudw_remap *r);
/* Strings rewritten (0: the output is the input, byte for byte). */
size_t cudw_remap_strings(const cudw_remap *r);
int cudw_remap_write(const cudw_remap *r, cudw_write_fn fn, void *ctx);
void cudw_remap_free(cudw_remap *r);

/* Rewriting the ELF images of any input: fn sees each ELF image (a cubin:
 * the file) and either keeps it (CUDW_OK, *out NULL) or gives its new
 * bytes (*out malloc'd, cudwarf frees it), or fails (a negative code, *err
 * filled).  The result streams to wfn: a cubin replaced whole; in a fatbin
 * file or host ELF each container with a changed image is packed again
 * with the same compression (zstd, LZ4 at their highest levels) and put
 * where the old one was.  A fatbin file's containers may grow; a host
 * ELF's must fit in their old place (its code addresses them, an
 * executable's segments hold them): CUDW_E_UNSUPPORTED otherwise (what
 * wfn got so far is then to be thrown away); the bytes a smaller container
 * frees become zeros.
 * Archives: CUDW_E_UNSUPPORTED. */
typedef int (*cudw_rewrite_fn)(void *ctx, const cudw_input_image *im, cudw_file *elf, uint8_t **out,
                               size_t *out_size, cudw_error *err);
int cudw_input_rewrite(cudw_input *in, cudw_rewrite_fn fn, void *ctx, cudw_write_fn wfn, void *wctx,
                       cudw_error *err);

/* ------------------------------------------------------------------ */
/* Sizes: where an image's bytes go (cudwarf size)                     */
/* ------------------------------------------------------------------ */

/* What a section's file bytes are, for size accounting.  The classes of
 * an image add up to its size exactly: CUDW_SIZE_HEADERS is every byte no
 * section holds (ELF header, program and section header tables, alignment
 * padding); bytes two sections share count once, for the one that starts
 * first (the lower index on a tie). */
enum cudw_size_class {
    CUDW_SIZE_CODE,       /* .text.*: SASS; .nv.capmerc.text.*: the Mercury capsule (sm_100+) */
    CUDW_SIZE_DATA,       /* .nv.constant*, .nv.global.init: constants, initialized globals */
    CUDW_SIZE_DEBUG,      /* DWARF sections and their .nv.merc. twins */
    CUDW_SIZE_NV_DEBUG,   /* NVIDIA's debug sections (.nv_debug_*) */
    CUDW_SIZE_METADATA,   /* .nv.info*, .nv.callgraph, .nv.compat, notes, other .nv.* */
    CUDW_SIZE_SYMBOLS,    /* symbol and string tables */
    CUDW_SIZE_RELOCS,     /* relocation sections */
    CUDW_SIZE_OTHER,      /* any other section with file bytes */
    CUDW_SIZE_HEADERS,    /* what no section holds */
    CUDW_SIZE_NCLASSES
};

/* "code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations",
 * "other", "headers"; NULL beyond. */
const char *cudw_size_class_name(int c);
int cudw_section_size_class(const cudw_section *s);
/* bytes[c] for every class; they sum to cudw_header(f)->size.  CUDW_OK, or
 * CUDW_E_NOMEM (on f). */
int cudw_image_sizes(cudw_file *f, uint64_t bytes[CUDW_SIZE_NCLASSES]);

/* The code sections one by one: .text.NAME, and on sm_100 and later the
 * Mercury capsule .nv.capmerc.text.NAME (capsule 1) that the driver
 * finalizes.  *cursor starts at 0; CUDW_DONE after the last.  function is
 * NAME; data and size its bytes in the file (size 0 and data NULL when it
 * has none). */
typedef struct cudw_code_section {
    unsigned section;
    const char *function;
    int capsule;
    const uint8_t *data;
    uint64_t size;
} cudw_code_section;
int cudw_code_next(const cudw_file *f, unsigned *cursor, cudw_code_section *out);

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

/* NULL when unknown. */
const char *cudw_tag_name(uint32_t tag);
const char *cudw_at_name(uint32_t at);
const char *cudw_form_name(uint32_t form);
const char *cudw_op_name(uint8_t op);
const char *cudw_lang_name(uint64_t lang);
const char *cudw_ate_name(uint64_t enc);
const char *cudw_inline_name(uint64_t v);
const char *cudw_access_name(uint64_t v);
/* PTX state space of a DW_AT_address_class value: "global", "shared", ... */
const char *cudw_address_class_name(uint64_t v);

/* NVIDIA register operand of DW_OP_regx/bregx or a CFA rule, as text:
 * an ASCII-packed PTX register ("%rd1" for 0x25726431), a class<<24|n
 * SASS register ("R20", "P0", "UR4"), or a plain number ("R5").  Returns
 * the length needed; buf always NUL-terminated when n > 0. */
size_t cudw_register_name(uint64_t reg, char *buf, size_t n);

/* 1 when reg is an ASCII-packed register name (PTX "%..." or SASS "R..."). */
int cudw_register_is_packed(uint64_t reg);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* CUDWARF_H */
