/* cudwarf addr2line: SASS locations to source lines, like binutils'
 * addr2line, over the library's symbolizer (cudw_symbolize): inline call
 * stacks from the line table's contexts or the DIEs, the PTX line, the
 * image that answered. */
#include "cli.h"
#include "emit.h"
#include "opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help_head[] =
    "usage: cudwarf addr2line -e FILE [-a] [-f] [-i] [-p] [-C] [--ptx] [--json]\n"
    "                         [--function NAME] [--sm=N] [LOCATION...]\n"
    "\n"
    "FILE is a cubin, a fatbin, an executable/object/.so with embedded fatbins,\n"
    "or a static library.\n"
    "\n"
    "Map SASS locations to file:line.  A LOCATION is SYMBOL+0xOFFSET (the\n"
    "function's symbol; each function's code starts at 0 in its own section),\n"
    "SYMBOL+OFFSET (decimal), SYMBOL alone, or 0xOFFSET with --function NAME.\n"
    "Without locations they are read from standard input, one per line, and\n"
    "each answer is written (and flushed) as its line arrives: one answer per\n"
    "line, in order, ?\?:0 for a line that cannot be parsed or found.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "GNU addr2line's long names work too: --exe, --addresses, --functions,\n"
    "--inlines, --pretty-print, --demangle.\n"
    "\n"
    "SYMBOL and NAME may be the mangled name, the demangled signature (with or\n"
    "without the return type), the name without parameters (scale<double>) or\n"
    "the short name (forces): a name of several functions is an error that\n"
    "lists them, an unknown one names the nearest.  A location that is not\n"
    "found says why on standard error (JSON: \"error\").\n"
    "\n"
    "Exit status: 0 when every location was answered (a location no line row\n"
    "covers is answered ?\?:0), 1 when one could not be parsed, names no\n"
    "function or several, lies past its function's end, or the input is\n"
    "unreadable or malformed, 2 usage.\n";

typedef struct aopts {
    int addr, func, inl, pretty, demangle, ptx, json;
    const char *function;
    const char *exe;
} aopts;

typedef struct actx {
    const aopts *o;
    cudw_symbolizer *s;
    json j;
    emit m;                   /* over j with --json, else the text */
    int noted, reported, dropped;
    cudw_sym_frame frames[CUDW_MAX_INLINE_DEPTH];
} actx;

/* "sym+0xoff", "sym", or "0xoff" with --function; 0 or -1. */
static int parse_loc(const aopts *o, const char *loc, const char **sym, size_t *len, uint64_t *off)
{
    if (o->function && loc[0] >= '0' && loc[0] <= '9') {
        char *end;
        *off = strtoull(loc, &end, 0);
        *sym = o->function;
        *len = strlen(o->function);
        return *end || end == loc ? -1 : 0;
    }
    return cudw_location_parse(loc, sym, len, off) == CUDW_OK ? 0 : -1;
}

static const char *source_name(int src)
{
    return src == CUDW_FROM_LINE_TABLE ? "line-table" : src == CUDW_FROM_DIE ? "die" : src == CUDW_FROM_SYMBOL ? "symbol"
                                                                                                          : "none";
}

/* Frames, innermost first (cli.h): JSON every one given; the text -f's
 * function name, file:line and -p's "(inlined by)", and ??:0 when there
 * are none. */
void frames_print(emit *m, const char *key, const cudw_sym_frame *fr, size_t n, int func, int pretty, int demangle)
{
    if (!n) {
        em_text(m, !func ? "" : pretty ? "?? at " : "??\n");
        em_text(m, "??:0\n");
    }
    em_arr(m, key);
    for (size_t k = 0; k < n; k++) {
        const cudw_sym_frame *f = &fr[k];
        em_obj(m, NULL);
        em_text(m, pretty && k ? " (inlined by) " : "");
        em_str_or(m, "function", func ? "" : NULL, demangle ? f->function_demangled : f->function, "??");
        em_text(m, !func ? "" : pretty ? " at " : "\n");
        if (demangle)
            em_str(m, "linkage_name", NULL, 0, f->function);
        em_str_or(m, "path", "", f->file, "??");
        em_u64(m, "line", ":", EM_DEC, f->line);
        em_u64(m, "column", NULL, 0, f->column);
        em_str(m, "source", NULL, 0, source_name(f->source));
        em_text(m, "\n");
        em_end_obj(m);
    }
    em_end_arr(m);
}

/* What the lookup found, JSON's (the text shows only the image, with -a) */
static void lookup_print(emit *m, const aopts *o, const char *sym, size_t len, uint64_t off,
                         const cudw_sym_result *r, const char *error)
{
    int image = o->addr && r->image_label;
    em_strn(m, "symbol", NULL, sym, len);
    /* the function symbol a demangled or short name resolved to */
    em_str(m, "resolved", NULL, 0, r->image != (size_t)-1 ? r->symbol : NULL);
    em_u64(m, "offset", NULL, 0, off);
    em_bool(m, "found", r->found);
    if (error)
        em_str(m, "error", NULL, 0, error);
    em_str(m, "image", image ? " [" : NULL, 0, r->image_label);
    em_text(m, image ? "]" : "");
    em_u64(m, "other_images", NULL, 0, r->other_images);
    em_str(m, "inline_source", NULL, 0, r->inline_source ? source_name(r->inline_source) : NULL);
    if (r->sources_disagree)
        em_bool(m, "sources_disagree", 1);
    if (r->names_recovered)
        em_bool(m, "names_recovered", 1);
    if (r->names_dropped)
        em_bool(m, "names_dropped", 1);
}

/* --ptx: the PTX line of the location, and its text */
static void ptx_print(emit *m, const aopts *o, const cudw_sym_result *r)
{
    em_text(m, o->pretty ? " ptx " : "ptx ");
    if (r && r->has_ptx) {
        em_obj(m, "ptx");
        em_str_or(m, "section", "", r->ptx_section, "??");
        em_u64(m, "line", ":", EM_DEC, r->ptx_line);
        em_str_or(m, "text", ": ", r->ptx_text, "");
        em_end_obj(m);
    } else {
        em_null(m, "ptx");
        em_text(m, "??:0");
    }
    em_text(m, "\n");
}

/* One answer, through the emitter: JSON an object a line; the text
 * addr2line's (-a, -f, -i, -p, --ptx).  r is NULL for a location that
 * could not be parsed: JSON has its error alone, the text answers ??:0. */
static void print_answer(actx *c, const char *loc, const char *sym, size_t len, uint64_t off,
                         const cudw_sym_result *r, const char *error)
{
    const aopts *o = c->o;
    emit *m = &c->m;
    em_obj(m, NULL);
    em_str(m, "location", o->addr ? "" : NULL, 0, loc);
    if (r) {
        lookup_print(m, o, sym, len, off, r, error);
    } else {
        em_bool(m, "found", 0);
        em_str(m, "error", NULL, 0, error);
    }
    em_text(m, !o->addr ? "" : o->pretty ? ": " : "\n");
    if (r || !m->j) {
        /* JSON every frame; the text the innermost, or with -i (and an
         * answer) all */
        size_t n = !r || !r->nframes ? 0 : !m->j && !(r->found && o->inl) ? 1 : r->nframes;
        frames_print(m, "frames", c->frames, n < CUDW_MAX_INLINE_DEPTH ? n : CUDW_MAX_INLINE_DEPTH, o->func, o->pretty,
                     o->demangle);
        if (o->ptx)
            ptx_print(m, o, r);
    }
    em_end_obj(m);
    if (m->j)
        ob_putc(m->j->out, '\n'); /* an answer a line */
}

/* Answer one location; 0, or 1 when it could not be parsed or the image
 * is malformed (reported once). */
static int answer(actx *c, const char *loc)
{
    const aopts *o = c->o;
    const char *sym;
    size_t len;
    uint64_t off;
    if (!loc[0]) { /* a blank line still gets its answer */
        print_answer(c, loc, NULL, 0, 0, NULL, "empty line");
        return 0;
    }
    if (parse_loc(o, loc, &sym, &len, &off) != 0) {
        eprintf("%s: %s: cannot parse location '%s' (want SYMBOL+0xOFFSET, or 0xOFFSET with --function)\n",
                progname, o->exe, loc);
        print_answer(c, loc, NULL, 0, 0, NULL, "cannot parse the location");
        return 1;
    }
    cudw_sym_result r;
    int rc = cudw_symbolize(c->s, sym, len, off, &r, c->frames, CUDW_MAX_INLINE_DEPTH);
    char err[512] = "";
    if (rc < 0) {
        cudw_error_format(cudw_symbolizer_error(c->s), err, sizeof err);
        if (!c->reported++) /* the same image fails every lookup it answers: say it once */
            eprintf("%s: %s: %s\n", progname, o->exe, err);
        r.found = 0;
    }
    if (r.other_images && !c->noted++)
        eprintf("%s: %s: note: %zu other image%s %.*s too; answered from %s (--sm=N chooses)\n", progname,
                o->exe, r.other_images, r.other_images == 1 ? " defines" : "s define", (int)len, sym,
                r.image_label ? r.image_label : "the first");
    if (r.names_dropped && !c->dropped++)
        eprintf("%s: %s: note: inlined-function names left out (shown as ?\?): a line table's .debug_str base word is 0 "
                "(nvlink -arch=sm_90) and cannot be recovered\n",
                progname, o->exe);
    /* a miss says why, on stderr and in the JSON; the answer line stays */
    int miss = rc < 0 ? CUDW_MISS_NONE : cudw_symbolize_why(c->s, sym, len, &r, err, sizeof err);
    if (miss == CUDW_MISS_NO_FUNCTION && !o->function && len && sym[0] >= '0' && sym[0] <= '9')
        snprintf(err, sizeof err, "no function named %.*s: a bare offset needs --function NAME (or NAME+%.*s)",
                 (int)len, sym, (int)len, sym);
    if (miss)
        eprintf("%s: %s: %s: %s\n", progname, o->exe, loc, err);
    print_answer(c, loc, sym, len, off, &r, rc < 0 || miss ? err : NULL);
    return rc < 0 || (miss && miss != CUDW_MISS_NO_ROW);
}

enum { A_EXE = 1, A_FUNCTION, A_PTX, A_JSON, A_ADDRESSES, A_FUNCTIONS, A_INLINES, A_PRETTY, A_DEMANGLE };

/* GNU addr2line's letters, and its long names (unlisted: the help's last
 * lines name them) */
static const cli_opt table[] = {
    {NULL, 'e', "FILE", A_EXE, "the input"},
    {NULL, 'a', NULL, A_ADDRESSES, "print the location, and the image that answered, first"},
    {NULL, 'f', NULL, A_FUNCTIONS, "print the function name before each file:line"},
    {NULL, 'i', NULL, A_INLINES, "unwind inlined functions: the innermost first, then each\n"
                                 "caller (from the line table's inlined-call contexts, or\n"
                                 "from the DIEs' inlined subroutines for -G code)"},
    {NULL, 'p', NULL, A_PRETTY, "one line per answer: FUNCTION at FILE:LINE, then\n"
                                "' (inlined by) ' lines for the callers"},
    {NULL, 'C', NULL, A_DEMANGLE, "demangle function names"},
    {"--ptx", 0, NULL, A_PTX, "also the PTX line (from .nv_debug_line_sass) and its text"},
    {"--function", 0, "NAME", A_FUNCTION, "the symbol for bare offsets"},
    {"--sm", 0, "=N", OPT_GLOBAL, "only the sm_N images; without it the first image with a\n"
                                  "row for the location answers, and a note says when other\n"
                                  "images define the symbol too"},
    {"--json", 0, NULL, A_JSON, "a JSON array, one object per location (docs/json.md)"},
    {"--exe", 0, "FILE", A_EXE, OPT_UNLISTED},
    {"--addresses", 0, NULL, A_ADDRESSES, OPT_UNLISTED},
    {"--functions", 0, NULL, A_FUNCTIONS, OPT_UNLISTED},
    {"--inlines", 0, NULL, A_INLINES, OPT_UNLISTED},
    {"--pretty-print", 0, NULL, A_PRETTY, OPT_UNLISTED},
    {"--demangle", 0, NULL, A_DEMANGLE, OPT_UNLISTED},
    {0}};

int cmd_addr2line(int argc, char **argv)
{
    aopts o = {0};
    int nlocs = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "addr2line", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 19, help_tail); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nlocs++] = (char *)a.value; break; /* the locations, in order, over argv */
        case A_EXE:
            if (o.exe) { /* binutils takes the last; two files are a mistake more often than a wish */
                usage_error("addr2line", "one input (-e %s and -e %s)", o.exe, a.value);
                return EXIT_USAGE;
            }
            o.exe = a.value;
            break;
        case A_FUNCTION: o.function = a.value; break;
        case A_PTX: o.ptx = 1; break;
        case A_JSON: o.json = 1; break;
        case A_ADDRESSES: o.addr = 1; break;
        case A_FUNCTIONS: o.func = 1; break;
        case A_INLINES: o.inl = 1; break;
        case A_PRETTY: o.pretty = 1; break;
        case A_DEMANGLE: o.demangle = 1; break;
        }
    }
    if (!o.exe) {
        usage_error("addr2line", "no input file (-e FILE)");
        return EXIT_USAGE;
    }
    actx *c = calloc(1, sizeof *c);
    if (!c) {
        eprintf("%s: out of memory\n", progname);
        return EXIT_BAD_INPUT;
    }
    c->o = &o;
    cudw_symbolizer_opts so = {(o.demangle ? CUDW_SYM_DEMANGLE : 0) | (o.ptx ? CUDW_SYM_PTX : 0), sel_sm, sel_variant,
                               debug_file};
    if (cudw_symbolizer_open(&c->s, o.exe, &so) != CUDW_OK) {
        char buf[512];
        if (c->s)
            cudw_error_format(cudw_symbolizer_error(c->s), buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "out of memory");
        eprintf("%s: %s: %s\n", progname, o.exe, buf);
        cudw_symbolizer_close(c->s);
        free(c);
        return EXIT_BAD_INPUT;
    }
    json_init(&c->j, &out_stdout);
    c->m = (emit){o.json ? &c->j : NULL, &out_stdout};
    if (o.json)
        json_arr(&c->j, NULL);
    int rc = EXIT_OK;
    if (nlocs) {
        for (int i = 0; i < nlocs; i++)
            if (answer(c, argv[i]))
                rc = EXIT_BAD_INPUT;
    } else {
        /* Answers go out when the input runs dry: a profiler driving this a
         * line at a time through a pipe gets each answer as its line
         * arrives, and a file or a flood of lines is answered in bulk. */
        size_t cap = 1 << 16, have = 0;
        char *buf = malloc(cap);
        int eof = !buf;
        while (!eof) {
            ssize_t got = read(STDIN_FILENO, buf + have, cap - have);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                eof = 1;
                if (!have)
                    break;
                buf[have++] = '\n'; /* a last line without its newline */
            } else {
                have += (size_t)got;
            }
            size_t start = 0;
            for (char *nl; (nl = memchr(buf + start, '\n', have - start));) {
                char *line = buf + start, *end = nl; /* the location without the blanks around it, or a CR */
                while (end > line && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
                    end--;
                *end = 0;
                while (*line == ' ' || *line == '\t')
                    line++;
                if (answer(c, line))
                    rc = EXIT_BAD_INPUT;
                start = (size_t)(nl - buf) + 1;
            }
            memmove(buf, buf + start, have - start);
            have -= start;
            if (have == cap) { /* a line longer than the buffer */
                char *b = realloc(buf, cap * 2);
                if (!b)
                    break;
                buf = b;
                cap *= 2;
            }
            ob_flush(&out_stdout);
            fflush(stdout);
        }
        free(buf);
    }
    if (o.json) {
        json_end_arr(&c->j);
        ob_putc(&out_stdout, '\n');
    }
    cudw_symbolizer_close(c->s);
    free(c);
    return rc;
}
