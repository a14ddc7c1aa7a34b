/* cudwarf/verify.h - Verification.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_VERIFY_H
#define CUDWARF_VERIFY_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

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

#endif /* CUDWARF_VERIFY_H */
