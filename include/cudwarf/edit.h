/* cudwarf/edit.h - Writing debug information: linking as nvlink -g does, stripping, remapping paths.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_EDIT_H
#define CUDWARF_EDIT_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

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
void cudw_link_close(cudw_link *l);
void cudw_link_free(cudw_link *l); /* its name in 0.1 */

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
void cudw_strip_close(cudw_strip *s);
void cudw_strip_free(cudw_strip *s); /* its name in 0.1 */

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
void cudw_remap_close(cudw_remap *r);
void cudw_remap_free(cudw_remap *r); /* its name in 0.1 */

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

#endif /* CUDWARF_EDIT_H */
