/* cudwarf/info.h - Debug information entries: abbreviations, units, DIEs, attribute values, DW_OP expressions.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_INFO_H
#define CUDWARF_INFO_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

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

#endif /* CUDWARF_INFO_H */
