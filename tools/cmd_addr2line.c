/* cudwarf addr2line: SASS locations to source lines, like binutils'
 * addr2line, with NVIDIA's inline call stacks and the PTX line. */
#include "cli.h"

#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf addr2line -e FILE [-a] [-f] [-i] [-p] [-C] [--ptx] [--json]\n"
    "                         [--function NAME] [--sm=N] [LOCATION...]\n"
    "FILE is a cubin, a fatbin, or an executable/object/.so with embedded fatbins.\n"
    "\n"
    "Map SASS locations to file:line.  A LOCATION is SYMBOL+0xOFFSET (the\n"
    "function's symbol; each function's code starts at 0 in its own section),\n"
    "SYMBOL alone, or 0xOFFSET with --function NAME.  Without locations, they\n"
    "are read from standard input, one per line.\n"
    "\n"
    "  -e FILE          the cubin\n"
    "  -a               print the location before its answer\n"
    "  -f               print the function name before each file:line\n"
    "  -i               unwind inlined functions: the innermost first, then each caller\n"
    "  -p               one line per answer: FUNCTION at FILE:LINE, then\n"
    "                   ' (inlined by) ' lines for the callers\n"
    "  -C               demangle function names\n"
    "  --ptx            also the PTX line (from .nv_debug_line_sass) and its text\n"
    "  --function NAME  the symbol for bare offsets\n"
    "  --sm=N           in a fatbin or executable, only the sm_N images (--sm=90a:\n"
    "                   the sm_90a ones); without it the first image with a row\n"
    "                   for the location answers\n"
    "  --json           one JSON object per location (an array)\n"
    "\n"
    "Unknown locations print ?\?:0 (and ?\? for the function), like binutils.\n";

typedef struct aopts {
    int addr, func, inl, pretty, demangle, ptx, json;
    unsigned sm;
    char variant;     /* 'a', 'f' or 0, with sm */
    const char *function;
} aopts;

static const char *shown_name(const aopts *o, const char *name, char **owned)
{
    *owned = NULL;
    if (!name)
        return "??";
    if (o->demangle) {
        char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
        if (d) {
            *owned = d;
            return d;
        }
    }
    return name;
}

static void loc_text(obuf *out, const cudw_line_frame *fr)
{
    ob_puts(out, fr->path ? fr->path : "??");
    ob_putc(out, ':');
    ob_dec(out, fr->line);
}

/* Parse "sym+0xoff", "sym", "0xoff" (with --function). */
static int parse_loc(const aopts *o, const char *loc, char *sym, size_t symlen, uint64_t *off)
{
    const char *plus = strrchr(loc, '+');
    char *end;
    if ((loc[0] == '0' && (loc[1] == 'x' || loc[1] == 'X')) || (loc[0] >= '0' && loc[0] <= '9')) {
        if (!o->function)
            return -1;
        *off = strtoull(loc, &end, 0);
        if (*end)
            return -1;
        snprintf(sym, symlen, "%s", o->function);
        return 0;
    }
    if (!plus) {
        snprintf(sym, symlen, "%s", loc);
        *off = 0;
        return 0;
    }
    if ((size_t)(plus - loc) >= symlen || plus == loc)
        return -1;
    memcpy(sym, loc, (size_t)(plus - loc));
    sym[plus - loc] = 0;
    *off = strtoull(plus + 1, &end, 0);
    return *end || plus[1] == 0 ? -1 : 0;
}

static const cudw_section *find_line_section(cudw_file *f, int sass)
{
    const cudw_section *s = cudw_section_find(f, sass ? ".nv_debug_line_sass" : ".debug_line");
    if (!s)
        s = cudw_section_find(f, sass ? ".nv.merc.nv_debug_line_sass" : ".nv.merc.debug_line");
    return s;
}

/* The ELF images of the input (one for a cubin). */
typedef struct images {
    cudw_file **files;
    const char **labels;
    size_t n;
} images;

/* Answer one location; returns 0, 1 for a bad location, or -1 after
 * reporting a malformed file. */
static int answer(const images *ims, const char *path, const aopts *o, const char *loc, json *j)
{
    obuf *out = &out_stdout;
    char sym[1024];
    uint64_t off = 0;
    if (parse_loc(o, loc, sym, sizeof sym, &off) != 0) {
        eprintf("%s: %s: cannot parse location '%s' (want SYMBOL+0xOFFSET, or 0xOFFSET with --function)\n",
                progname, path, loc);
        return 1;
    }
    cudw_line_hit hit;
    int rc = CUDW_DONE;
    cudw_file *f = ims->n ? ims->files[0] : NULL;
    /* the first image with a row for the location answers */
    for (size_t k = 0; k < ims->n && rc == CUDW_DONE; k++) {
        f = ims->files[k];
        const cudw_section *ls = find_line_section(f, 0);
        rc = ls ? cudw_line_lookup(f, ls, sym, off, &hit) : CUDW_DONE;
        if (rc < 0) {
            report(f, ims->labels[k]);
            return -2;
        }
    }
    if (!f)
        rc = CUDW_DONE;
    cudw_line_hit ptx;
    const cudw_section *ps = o->ptx && f ? find_line_section(f, 1) : NULL;
    int prc = ps ? cudw_line_lookup(f, ps, sym, off, &ptx) : CUDW_DONE;
    if (prc < 0)
        return -1;
    const char *ptx_text = NULL;
    const cudw_section *ptx_sec = NULL;
    if (prc == CUDW_OK) {
        ptx_sec = cudw_ptx_section_for(f, ptx.table, ptx.row.file);
        if (ptx_sec && cudw_ptx_line(f, ptx_sec, ptx.row.line, &ptx_text) < 0)
            return -1;
    }
    size_t nframes = rc == CUDW_OK ? (o->inl ? hit.nframes : 1) : 0;
    if (o->json) {
        json_obj(j, NULL);
        json_str(j, "location", loc);
        json_str(j, "symbol", sym);
        json_u64(j, "offset", off);
        json_bool(j, "found", rc == CUDW_OK);
        json_arr(j, "frames");
        for (size_t k = 0; k < (rc == CUDW_OK ? hit.nframes : 0); k++) {
            char *owned;
            json_obj(j, NULL);
            json_str(j, "function", shown_name(o, hit.frames[k].function, &owned));
            free(owned);
            json_str(j, "path", hit.frames[k].path);
            json_u64(j, "line", hit.frames[k].line);
            json_u64(j, "column", hit.frames[k].column);
            json_end_obj(j);
        }
        json_end_arr(j);
        if (o->ptx) {
            if (prc == CUDW_OK) {
                json_obj(j, "ptx");
                json_str(j, "section", ptx_sec ? ptx_sec->name : NULL);
                json_u64(j, "line", ptx.row.line);
                json_str(j, "text", ptx_text);
                json_end_obj(j);
            } else {
                json_null(j, "ptx");
            }
        }
        json_end_obj(j);
        return 0;
    }
    if (o->addr) {
        ob_puts(out, loc);
        ob_putc(out, o->pretty ? ':' : '\n');
        if (o->pretty)
            ob_putc(out, ' ');
    }
    if (rc != CUDW_OK) {
        if (o->func)
            ob_puts(out, o->pretty ? "?? at " : "??\n");
        ob_puts(out, "??:0\n");
    }
    for (size_t k = 0; k < nframes; k++) {
        char *owned;
        const char *name = shown_name(o, hit.frames[k].function, &owned);
        if (o->pretty) {
            if (k)
                ob_puts(out, " (inlined by) ");
            if (o->func) {
                ob_puts(out, name);
                ob_puts(out, " at ");
            }
            loc_text(out, &hit.frames[k]);
            ob_putc(out, '\n');
        } else {
            if (o->func) {
                ob_puts(out, name);
                ob_putc(out, '\n');
            }
            loc_text(out, &hit.frames[k]);
            ob_putc(out, '\n');
        }
        free(owned);
    }
    if (o->ptx) {
        if (prc == CUDW_OK) {
            ob_printf(out, "%sptx %s:%llu: %s\n", o->pretty ? " " : "", ptx_sec ? ptx_sec->name : "??",
                      (unsigned long long)ptx.row.line, ptx_text ? ptx_text : "");
        } else {
            ob_printf(out, "%sptx ??:0\n", o->pretty ? " " : "");
        }
    }
    return 0;
}

int cmd_addr2line(int argc, char **argv)
{
    aopts o = {0};
    o.sm = sel_sm;
    o.variant = sel_variant;
    const char *exe = NULL;
    int nlocs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-e") || !strcmp(a, "--exe") || !strcmp(a, "--function")) {
            if (i + 1 == argc) {
                usage_error("addr2line", "%s needs an argument", a);
                return EXIT_USAGE;
            }
            if (a[1] == 'e' || a[2] == 'e')
                exe = argv[++i];
            else
                o.function = argv[++i];
        } else if (!strncmp(a, "--sm=", 5)) {
            char *end;
            unsigned long v = strtoul(a + 5, &end, 10);
            if (end == a + 5 || (*end && ((*end != 'a' && *end != 'f') || end[1])) || !v || v > 999) {
                usage_error("addr2line", "%s: expected --sm=N (90 for sm_90, 90a for sm_90a)", a);
                return EXIT_USAGE;
            }
            o.sm = (unsigned)v;
            o.variant = *end; /* sm_90a images are not sm_90 ones */
        } else if (!strncmp(a, "--exe=", 6)) {
            exe = a + 6;
        } else if (!strncmp(a, "--function=", 11)) {
            o.function = a + 11;
        } else if (!strcmp(a, "--ptx")) {
            o.ptx = 1;
        } else if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ob_puts(&out_stdout, help);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1] && a[1] != '-') {
            for (const char *c = a + 1; *c; c++) {
                switch (*c) {
                case 'a': o.addr = 1; break;
                case 'f': o.func = 1; break;
                case 'i': o.inl = 1; break;
                case 'p': o.pretty = 1; break;
                case 'C': o.demangle = 1; break;
                default:
                    usage_error("addr2line", "unknown option '-%c'", *c);
                    return EXIT_USAGE;
                }
            }
        } else if (a[0] == '-' && a[1]) {
            usage_error("addr2line", "unknown option '%s'", a);
            return EXIT_USAGE;
        } else {
            nlocs++;
        }
    }
    if (!exe) {
        usage_error("addr2line", "no input file (-e FILE)");
        return EXIT_USAGE;
    }
    cudw_input *in;
    if (cudw_input_open(&in, exe) != CUDW_OK) {
        char buf[512];
        if (in) {
            cudw_error_format(cudw_input_error(in), buf, sizeof buf);
            eprintf("%s: %s: %s\n", progname, exe, buf);
        }
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    images ims = {calloc(cudw_input_count(in) + 1, sizeof(cudw_file *)),
                  calloc(cudw_input_count(in) + 1, sizeof(const char *)), 0};
    if (!ims.files || !ims.labels) {
        eprintf("%s: out of memory\n", progname);
        cudw_input_close(in);
        free(ims.files);
        free(ims.labels);
        return EXIT_BAD_INPUT;
    }
    for (size_t k = 0; k < cudw_input_count(in); k++) {
        const cudw_input_image *im;
        const cudw_input_image *pk = cudw_input_peek(in, k);
        if (pk->kind != CUDW_FATBIN_ELF ||
            (o.sm && pk->entry &&
             (pk->entry->sm != o.sm || cudw_fatbin_variant(pk->entry->flags)[0] != o.variant)))
            continue;
        if (cudw_input_image_get(in, k, &im) != CUDW_OK) {
            char buf[512];
            cudw_error_format(cudw_input_error(in), buf, sizeof buf);
            eprintf("%s: %s: %s\n", progname, cudw_input_peek(in, k)->label, buf);
            continue;
        }
        cudw_file *use = debug_companion(im->elf, im->label);
        if (!use) {
            cudw_input_close(in);
            free(ims.files);
            free(ims.labels);
            return EXIT_BAD_INPUT;
        }
        ims.files[ims.n] = use;
        ims.labels[ims.n++] = im->label;
    }
    cudw_file *f = ims.n ? ims.files[0] : NULL;
    json j;
    json_init(&j, &out_stdout);
    int rc = EXIT_OK, r;
    if (o.json)
        json_arr(&j, NULL);
    if (nlocs) {
        for (int i = 1; i < argc; i++) {
            const char *a = argv[i];
            if (!strcmp(a, "-e") || !strcmp(a, "--exe") || !strcmp(a, "--function")) {
                i++;
                continue;
            }
            if (a[0] == '-' && a[1])
                continue;
            if ((r = answer(&ims, exe, &o, a, &j)) < 0) {
                if (r == -1)
                    report(f, exe);
                rc = EXIT_BAD_INPUT;
                break;
            }
            if (r > 0)
                rc = EXIT_BAD_INPUT;
        }
    } else {
        char line[4096];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\r\n")] = 0;
            if (!line[0])
                continue;
            if ((r = answer(&ims, exe, &o, line, &j)) < 0) {
                if (r == -1)
                    report(f, exe);
                rc = EXIT_BAD_INPUT;
                break;
            }
            if (r > 0)
                rc = EXIT_BAD_INPUT;
            ob_flush(&out_stdout); /* answer as each line arrives */
            fflush(stdout);
        }
    }
    if (o.json) {
        json_end_arr(&j);
        ob_putc(&out_stdout, '\n');
    }
    cudw_input_close(in);
    free(ims.files);
    free(ims.labels);
    return rc;
}
