/* Shared pieces of the cudwarf command-line tool. */
#ifndef CUDW_TOOLS_CLI_H
#define CUDW_TOOLS_CLI_H

#include "cudwarf.h"
#include "json.h"
#include "out.h"

#include <stdatomic.h>
#include <stdio.h>

/* a * b wrapping as two's complement (factored offsets of hostile input) */
static inline int64_t mulw(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* Exit codes: 0 clean, 1 a file could not be read or is malformed,
 * 2 the command line is wrong. */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

extern const char *progname;

/* "cudwarf: FILE: SECTION+0xOFF: WHAT: DETAIL" on stderr (report.c). */
void report(const cudw_file *f, const char *path);
/* A PTX text's error or warning (kind: "" or "warning: "): "NAME:LINE:COL:
 * TEXT", the place only as far as it is known; d NULL: out of memory */
void ptx_diag_report(const char *name, const cudw_ptx_diag *d, const char *kind);
/* "cudwarf CMD: MESSAGE" and "Try 'cudwarf CMD --help'." on stderr. */
void usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Open path; on failure report and return NULL. */
cudw_file *open_or_report(const char *path);

/* Inputs are cubins, fatbins or host ELFs with fatbins: fn is called once
 * per ELF image (label: the path for a cubin, "path[c.e: ELF sm_90]" for an
 * embedded image).  Problems are reported; returns the worst exit code. */
typedef int (*image_fn)(cudw_file *f, const char *label, void *ctx, json *j);
/* Images run as jobs (jobs.c, -j N), each loaded and released in turn.
 * In JSON output, tmpl is the writer at the array the images' objects go
 * in (its commas are jobs_sep's); each job gets one of its own. */
int for_each_elf(const char *path, image_fn fn, void *ctx, json *tmpl);

/* A command's run over its inputs: every image of every path
 * (for_each_elf), in one JSON array of images when json (image_array_*;
 * j initialised by the caller, whose ctx may hold it).  With section set,
 * an input in which no image had it is an error ("no KIND section NAME in
 * any image"): fn counts the images that had it in *matched.  Returns the
 * worst exit code. */
typedef struct image_run {
    image_fn fn;
    void *ctx;
    json *j;
    int json;
    const char *section, *kind;
    atomic_int *matched;
} image_run;
int run_images(char **paths, int n, const image_run *r);

/* One image's output opened: JSON {"file": PATH, "sections": [ ...; text
 * LEAD PATH ":" and a blank line.  image_close ends the JSON. */
void image_open(json *j, int as_json, const char *path, const char *lead);
void image_close(json *j, int as_json);
/* A section's JSON object opened: {"section": NAME, "index": N, and the
 * array KEY opened when key is set. */
void section_json_open(json *j, const cudw_section *s, const char *key);

/* The JSON output of a command over images: one array, one object per
 * image.  Its "[" comes with the first object (jobs_open), so an input
 * that fails prints nothing; the end prints "]", or "[]" when nothing was
 * printed and nothing failed. */
void image_array_begin(json *j);
void image_array_end(json *j, int rc);

/* --sm=N[a|f] (any command): only those images.  0: all. */
extern unsigned sel_sm;
extern char sel_variant;
int image_selected(const cudw_input_image *im);
/* Bytes of memory working on image im takes, about (jobs_run_cost). */
size_t image_cost(const cudw_input_image *im);
/* The images a command's jobs work on: job k is image idx[k] of in.  A
 * job context starts with one, so image_set_cost serves them all. */
typedef struct image_set {
    cudw_input *in;
    const size_t *idx;
} image_set;
size_t image_set_cost(void *set, size_t k);
/* Image i loaded (cudw_image_close it), or NULL after a message. */
cudw_image *load_or_report(const cudw_input *in, size_t i);
/* Open an input, or report why not (NULL). */
cudw_input *open_input(const char *path);
/* The ELF images of in that --sm selects (*out malloc'd, free it).
 * Reports an input without device code or without the selected SM
 * (EXIT_BAD_INPUT), notes one with no ELF image unless quiet_none (EXIT_OK
 * with *count 0). */
int select_images(cudw_input *in, const char *path, int quiet_none, size_t **out, size_t *count);
/* --debug-file DBG (any command): the companion cudwarf strip --keep-debug
 * wrote.  debug_companion(f) is f without the option, else the companion
 * once its functions are checked against f's (NULL after a message). */
extern const char *debug_file;
cudw_file *debug_companion(cudw_file *f, const char *label);
void debug_companion_close(void);

/* ELF images in path (1 for a cubin, 0 when unreadable). */
size_t count_elf_images(const char *path);

/* Text for a relocation: "sym+0x10" ("sym" when the addend is 0). */
void reloc_text(const cudw_reloc *r, char *buf, size_t n);
void reloc_out(const cudw_reloc *r, obuf *o);

/* A DW_OP expression through the emitter (emit.h): text "DW_OP_regx: R6;
 * DW_OP_deref", JSON its "expression" array of operations.  Relocations
 * inside it are looked up in sec (NULL: none) at section offset base + op
 * offset. */
struct emit;
void expr_print(cudw_file *f, const cudw_section *sec, uint64_t base, const uint8_t *e, uint64_t len,
                uint8_t addr_size, struct emit *m);

int cmd_sections(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_lines(int argc, char **argv);
int cmd_addr2line(int argc, char **argv);
int cmd_line_encode(int argc, char **argv);
int cmd_ptx_lines(int argc, char **argv);
/* verify --ptx FILE.ptx CUBIN (cmd_ptx_lines.c) */
int ptx_verify(const char *ptx, const char *cubin);
int cmd_list(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_pubnames(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_strip(int argc, char **argv);
int cmd_size(int argc, char **argv);
int cmd_resources(int argc, char **argv);
int cmd_remap(int argc, char **argv);
int cmd_correlate(int argc, char **argv);

/* A stack of frames as addr2line prints it (correlate's JSON too), through
 * the emitter: JSON "function" (demangled with demangle, then
 * "linkage_name"), "path", "line", "column", "source"; the text file:line,
 * after the function with func (-f), "(inlined by)" between with pretty (-p). */
void frames_print(struct emit *m, const char *key, const cudw_sym_frame *fr, size_t n, int func, int pretty,
                  int demangle);

/* Streaming version: open a temporary file beside path (or standard
 * output for "-"), write (a cudw_write_fn), then commit (rename) or abort
 * (remove).  A symbolic link is followed (the file it names is replaced,
 * the link stays); a device or FIFO such as /dev/null is written in place,
 * since renaming over it would put a regular file there.  Errors: -1 with
 * a message in err. */
typedef struct atomic_file {
    const char *path;
    char *tmp;
    char *target;        /* path, or the file a symbolic link at path names */
    unsigned mode;       /* of the file it replaces, else 0644 */
    int fd, to_stdout, failed, no_copy;
    int direct;          /* a device or FIFO (/dev/null): written in place, never replaced */
    size_t nbuf;
    char buf[1 << 16];
} atomic_file;
int atomic_open(atomic_file *a, const char *path, char *err, size_t errlen);
/* Whether a and b name one existing file (a link, another spelling) */
int same_file(const char *a, const char *b);
int atomic_write(void *ctx, const void *data, size_t size);
/* Copy n bytes at off of in_fd to the output in the kernel (copy_file_range);
 * 1 when that is not possible here (standard output): write them instead. */
int atomic_copy_from(atomic_file *a, int in_fd, uint64_t off, uint64_t n);
int atomic_commit(atomic_file *a, char *err, size_t errlen);
void atomic_abort(atomic_file *a);

/* Write data to path whole or not at all (temporary file + rename); "-" is
 * standard output.  0, or -1 with a message in err. */
int write_file_atomic(const char *path, const void *data, size_t size, char *err, size_t errlen);

/* dump's section printers, one a kind, through the emitter (emit.h): a
 * section's records, which cmd_dump.c frames (the text's heading, the
 * JSON's section object).  --abbrev, --info (dump_info.c) */
void abbrev_print(cudw_file *f, const cudw_section *s, struct emit *e);
void info_print(cudw_file *f, const cudw_section *s, struct emit *e);

/* dump --line (dump_line.c) */
void line_print(cudw_file *f, const cudw_section *s, struct emit *e);

/* dump --loc, --ranges, --aranges, --pubnames, --pubtypes, --str, --ptx-txt
 * (dump_misc.c): the section framed (heading / its JSON object) */
struct emit;
void misc_print(cudw_file *f, const cudw_section *s, int kind, struct emit *e);
/* The sets of a name index (.debug_pubnames or .debug_pubtypes) as dump
 * prints them, each after lead in the text; its "sets" array in JSON. */
struct emit;
void name_sets_print(cudw_file *f, const cudw_section *s, struct emit *e, const char *lead);

/* dump --frames (dump_frame.c) */
void frame_print(cudw_file *f, const cudw_section *s, struct emit *e);

/* A .debug_line / .nv_debug_line_sass section (or twin), and named only if only != NULL
 * (dump_line.c; dump and lines use it). */
int is_line_section(const cudw_section *s, const char *only);
/* A line table's header fields in JSON (into the open object), in the one
 * order both forms use, ending with its str_base: dump --line --json adds
 * the standard opcode lengths (LH_OPCODE_LENGTHS), lines --json each file's
 * joined path (LH_PATHS) and the PTX section of a .nv_debug_line_sass
 * table (LH_PTX). */
enum { LH_OPCODE_LENGTHS = 1, LH_PATHS = 2, LH_PTX = 4 };
void line_header_json(cudw_file *f, const cudw_line_table *t, unsigned what, json *j);


#endif
