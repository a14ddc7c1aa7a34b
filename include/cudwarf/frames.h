/* cudwarf/frames.h - Call frames: .debug_frame entries, call-frame instructions, the rows an FDE describes.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_FRAMES_H
#define CUDWARF_FRAMES_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

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

#endif /* CUDWARF_FRAMES_H */
