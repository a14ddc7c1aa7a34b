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
 *  - A handle the library made (cudw_file, cudw_input, cudw_image, a
 *    link, strip, remap, symbolizer, correlation, ...) is ended with its
 *    _close; a struct the caller declared and a call filled (an iterator,
 *    an encoder's output) is released with its _free.  (0.1 ended some
 *    handles with _free: those names still work.)
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
 * This file holds the conventions and what every part uses (errors,
 * files, sections, symbols, relocations, section classes, LEB128, names);
 * the rest of the manual is in chapters it includes at its end, in the
 * order they build on each other (include this file, not a chapter).
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

#define CUDW_VERSION_STRING "0.2.0"

/* For bindings (the Python package) that lay the structures out
 * themselves: the ABI's number, raised whenever a public structure
 * changes, and the size of a public structure by its name ("cudw_line_iter",
 * "cudw_corr_insn"; 0 for a name it does not know).  A binding checks both
 * when it loads instead of guessing. */
#define CUDW_ABI_VERSION 6
unsigned cudw_abi_version(void);
size_t cudw_struct_size(const char *name);

/* ------------------------------------------------------------------ */
/* Status codes and errors                                             */
/* ------------------------------------------------------------------ */

enum {
    CUDW_OK = 0,
    CUDW_DONE = 1,              /* iteration finished; not an error */
    CUDW_E_NOMEM = -1,          /* allocation failed */
    CUDW_E_IO = -2,             /* open/stat/mmap failed (detail has errno text) */
    CUDW_E_NOT_ELF = -3,        /* no ELF magic */
    CUDW_E_ELF_CLASS = -4,      /* not ELF64 or ELF32 little-endian */
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

/* A handle over section bytes that are in no ELF file: what a builder
 * made (cudw_pub_build, cudw_line_encode), what a debugger read from a
 * target's memory.  Every reader takes it as it takes an opened cubin --
 * cudw_section_find(f, NAME), then the reader -- with errors kept on the
 * handle.  It has no relocations, symbols or header (machine 0).  The
 * bytes (and names) stay the caller's and must live until cudw_close.
 * CUDW_OK; CUDW_E_NOMEM (*out NULL). */
typedef struct cudw_span {
    const char *name;     /* ".debug_pubnames", ... */
    const void *data;
    size_t size;
} cudw_span;
int cudw_open_sections(cudw_file **out, const cudw_span *spans, size_t n, const char *name);

void cudw_close(cudw_file *f);

const char *cudw_file_name(const cudw_file *f);
const cudw_error *cudw_last_error(const cudw_file *f);

/* The ELF header as the toolkit that wrote it meant it.  Two e_flags
 * layouts exist (docs/formats.md 7):
 *
 *   layout 7  (EI_OSABI 0x33, EI_ABIVERSION 7: CUDA 6.5 to 12.x)
 *     bits 0-7 SM | bits 8-15 flags | bits 16-23 virtual SM (the PTX target)
 *     flags: 0x01 unified textures, 0x02 independent textures,
 *            0x04 64-bit addresses, 0x08 sm_Na ("accelerators")
 *   layout 8  (EI_OSABI 0x41, EI_ABIVERSION 8: CUDA 13)
 *     bits 8-15 SM | bits 0-7 and 24-31: kept in flags, meaning not known
 *
 * cudw_header is the one place that decides: every label, --sm filter,
 * link and JSON "sm" takes sm from here. */
typedef struct cudw_elf_header {
    uint16_t type;        /* ET_REL 1, ET_EXEC 2 */
    uint16_t machine;     /* EM_CUDA 190 */
    uint8_t osabi;        /* 0x41 (CUDA 13), 0x33 (CUDA 6.5-12) */
    uint8_t abiversion;   /* 8 (CUDA 13), 7 (CUDA 6.5-12) */
    uint32_t flags;       /* e_flags as stored */
    unsigned sm;          /* the SM, from the layout's own bits */
    uint64_t size;        /* file size */
    /* since ABI 5 */
    unsigned virtual_sm;  /* layout 7: bits 16-23; 0 where the header does not say */
    uint8_t layout;       /* 7 or 8, as above (an unknown EI_ABIVERSION: 8 from 8 on, else 7) */
    uint8_t elf_class;    /* 1 ELFCLASS32 (CUDA 6.5-8, -m32), 2 ELFCLASS64 */
    uint8_t address_size; /* 4 or 8: symbol values, relocated words, DWARF addresses */
    char variant;         /* 'a' for an sm_Na image where the header says so (layout 7), else 0 */
    uint32_t unknown_flags; /* bits of flags whose meaning is not known (shown by --verbose) */
} cudw_elf_header;

/* "sm_80, virtual sm_80, 64-bit addresses, unified textures": the decoded
 * e_flags of h in words (readelf -h's "Flags:").  Returns the length it
 * wanted, as snprintf. */
size_t cudw_header_flags_describe(const cudw_elf_header *h, char *buf, size_t n);

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
 * .nv.merc.symtab).  A section symbol gets its section's name.  ELF32
 * cubins' 16-byte entries are read as well as ELF64's 24-byte ones. */
int cudw_symbol_get(cudw_file *f, unsigned symtab, uint32_t sym, cudw_symbol *out);

/* How many entries the symbol table in section symtab has (0 when the
 * section is no symbol table or has no bytes). */
size_t cudw_symbol_count(const cudw_file *f, unsigned symtab);

/* The symbol table a relocation or .nv.info section s means: its sh_link
 * when that names a symbol table; otherwise, where the file has exactly one
 * SHT_SYMTAB, that one (some CUDA 12.1 cubins link every relocation and
 * .nv.info section to another section; llvm-dwarfdump and eu-readelf read
 * them so; cudw_verify notes it).  0 when neither holds. */
unsigned cudw_symtab_of(const cudw_file *f, const cudw_section *s);

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

/* ------------------------------------------------------------------ */
/* The chapters                                                        */
/* ------------------------------------------------------------------ */

/* Stable: a structure or function here changes only with a new soname
 * (libcudwarf.so.N); additions raise CUDW_ABI_VERSION alone. */
#include "cudwarf/info.h"       /* abbreviations, units, DIEs, attribute values, DW_OP */
#include "cudwarf/lines.h"      /* line tables: rows, opcodes, lookups, writing them */
#include "cudwarf/frames.h"     /* .debug_frame and the rows an FDE describes */
#include "cudwarf/records.h"    /* loc/ranges/aranges/pubnames/macinfo, PTX text, register maps */
#include "cudwarf/inputs.h"     /* fatbins, inputs (libraries, executables, archives), sizes */
#include "cudwarf/symbolizer.h" /* SASS location -> source lines and inline call stack */
#include "cudwarf/verify.h"     /* verification */
#include "cudwarf/edit.h"       /* writing: link as nvlink -g does, strip, remap */

/* Experimental: what changed in the last ABI versions and may change again
 * with a new CUDW_ABI_VERSION but the same soname.  A program that uses it
 * says so by defining CUDW_EXPERIMENTAL before including this file (zstd's
 * ZSTD_STATIC_LINKING_ONLY habit) and checks cudw_abi_version() when it
 * loads.  The Python package lays these structures out by the ABI it
 * checks. */
#ifdef CUDW_EXPERIMENTAL
#include "cudwarf/resources.h"  /* registers, barriers, shared, stack per function */
#include "cudwarf/ptx.h"        /* PTX .file/.loc, and the line table ptxas writes from them */
#include "cudwarf/correlate.h"  /* source <-> PTX <-> SASS, per instruction and per source line */
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* CUDWARF_H */
