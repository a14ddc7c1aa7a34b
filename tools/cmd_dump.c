/* cudwarf dump: .debug_abbrev and the info sections (.debug_info,
 * .nv_debug_info_ptx, .nv.merc.debug_info) as text or JSON.
 *
 * A file is walked once without printing first: a malformed file gives one
 * error and no partial dump. */
#include "cli.h"
#include "emit.h"
#include "opts.h"
#include "jobs.h"

#include <stdatomic.h>

#include <stdlib.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf dump [--abbrev] [--info] [--line] [--frames] [--loc] [--ranges]\n"
    "                    [--aranges] [--pubnames] [--pubtypes] [--macinfo] [--str]\n"
    "                    [--ptx-txt] [--reg-sass] [--reg-type] [--all] [--json]\n"
    "                    [--section NAME] FILE...\n"
    "\n"
    "Decode debug sections.  Without a section option, everything cudwarf decodes.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "Values under a relocation are shown relocated, with symbol+addend.\n"
    "DIE and reference offsets are section offsets.\n";

/* the record-style sections dump --<name> shows, in this order, with
 * their --help (NULL: listed with the next) */
static const struct { const char *opt; int kind; const char *help; } misc[] = {
    {"loc", CUDW_SEC_LOC, NULL},
    {"ranges", CUDW_SEC_RANGES, NULL},
    {"aranges", CUDW_SEC_ARANGES, NULL},
    {"pubnames", CUDW_SEC_PUBNAMES, NULL},
    {"pubtypes", CUDW_SEC_PUBTYPES, NULL},
    {"macinfo", CUDW_SEC_MACINFO, NULL},
    {"str", CUDW_SEC_STR, "the DWARF sections of those names (and Mercury twins)"},
    {"ptx-txt", CUDW_SEC_NV_PTX_TXT, ".nv_debug_ptx_txt: the PTX text with its line numbers"},
    {"reg-sass", CUDW_SEC_NV_REG_SASS, ".nv_debug_info_reg_sass: PTX register -> SASS register,\n"
                                       "SASS range"},
    {"reg-type", CUDW_SEC_NV_REG_TYPE, ".nv_debug_info_reg_type: the PTX type of\n"
                                       "each reg_sass entry"},
};
#define NMISC (sizeof misc / sizeof misc[0])

typedef struct opts {
    int abbrev, info, line, frames, json;
    int misc[NMISC];
    const char *section;
} opts;

static int wanted(const opts *o, const cudw_section *s, int kind)
{
    cudw_secclass c;
    if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK)
        return 0;
    if (o->section && strcmp(o->section, s->name) != 0)
        return 0;
    if (kind == CUDW_SEC_INFO)
        return c.kind == CUDW_SEC_INFO || c.kind == CUDW_SEC_NV_INFO_PTX;
    return c.kind == kind;
}

/* A section through its kind's printer, framed: the text's heading (and
 * tail after it), JSON's section object with the records in array key */
typedef void (*section_printer)(cudw_file *, const cudw_section *, emit *);
static void section_out(cudw_file *f, const cudw_section *s, json *j, const char *key, section_printer print,
                        const char *tail)
{
    if (j) {
        section_json_open(j, s, key);
        print(f, s, &(emit){j, NULL});
        json_end_arr(j);
        json_end_obj(j);
        return;
    }
    ob_printf(&out_stdout, "Contents of the %s section:\n\n", s->name);
    print(f, s, &(emit){NULL, &out_stdout});
    ob_puts(&out_stdout, tail);
}

/* Images that have the --section asked for: none in an input is an error. */
static atomic_int matched;
static atomic_int images, bare; /* images seen, and those with none of the sections asked for (text: not shown) */

static int one(cudw_file *f, const char *path, void *vctx, json *j)
{
    const opts *o = vctx;
    unsigned n = cudw_section_count(f);
    if (o->section) {
        const cudw_section *s = cudw_section_find(f, o->section);
        cudw_secclass c;
        if (!s || cudw_classify_name(s->name, s->flags, &c) != CUDW_OK)
            return EXIT_OK; /* nothing of this image to show */
        atomic_fetch_add(&matched, 1);
    }
    /* walk first: one error, no partial output */
    int shown = 0;
    atomic_fetch_add(&images, 1);
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        int walk = (o->abbrev && wanted(o, s, CUDW_SEC_ABBREV)) || (o->info && wanted(o, s, CUDW_SEC_INFO)) ||
                   (o->line && is_line_section(s, o->section)) || (o->frames && wanted(o, s, CUDW_SEC_FRAME));
        for (size_t k = 0; k < NMISC && !walk; k++)
            walk = o->misc[k] && wanted(o, s, misc[k].kind);
        if (walk && cudw_walk_section(f, s, 0) != CUDW_OK) {
            report(f, path);
            return EXIT_BAD_INPUT;
        }
        shown |= walk;
    }
    if (!shown && !o->json) { /* a heading over nothing: counted, said once at the end */
        atomic_fetch_add(&bare, 1);
        return EXIT_OK;
    }
    image_open(j, o->json, path, "\n");
    json *js = o->json ? j : NULL;
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->abbrev && wanted(o, s, CUDW_SEC_ABBREV))
            section_out(f, s, js, "tables", abbrev_print, "\n");
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->info && wanted(o, s, CUDW_SEC_INFO))
            section_out(f, s, js, "units", info_print, "\n");
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->line && is_line_section(s, o->section))
            section_out(f, s, js, "tables", line_print, "");
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->frames && wanted(o, s, CUDW_SEC_FRAME))
            section_out(f, s, js, "entries", frame_print, "");
    }
    for (size_t k = 0; k < NMISC; k++)
        for (unsigned i = 1; i < n && o->misc[k]; i++) {
            const cudw_section *s = cudw_section_get(f, i);
            if (wanted(o, s, misc[k].kind))
                misc_print(f, s, misc[k].kind, &(emit){o->json ? j : NULL, o->json ? NULL : &out_stdout});
        }
    image_close(j, o->json);
    return EXIT_OK;
}

/* The images with none of the sections asked for, said once: on stdout
 * when no image had any (the whole answer), a note on stderr otherwise */
static void say_bare(const opts *o, const char *what, int explicit)
{
    int nb = atomic_load(&bare), ni = atomic_load(&images);
    if (!nb)
        return;
    char asked[256] = "debug sections";
    if (explicit) { /* the options given, as typed */
        size_t k = 0;
        const char *fixed[] = {o->abbrev ? "--abbrev" : NULL, o->info ? "--info" : NULL, o->line ? "--line" : NULL,
                               o->frames ? "--frames" : NULL};
        k += (size_t)snprintf(asked, sizeof asked, "the sections asked for (");
        for (size_t i = 0; i < 4 + NMISC && k < sizeof asked - 40; i++) {
            const char *opt = i < 4 ? fixed[i] : o->misc[i - 4] ? misc[i - 4].opt : NULL;
            if (opt)
                k += (size_t)snprintf(asked + k, sizeof asked - k, "%s%s%s", asked[k - 1] != '(' ? ", " : "", i < 4 ? "" : "--", opt);
        }
        snprintf(asked + k, sizeof asked - k, ")");
    }
    const char *none = explicit ? "none of " : "no ";
    if (nb == ni)
        ob_printf(&out_stdout, "%s: %s%s in %s%d image%s\n", what, none, asked, ni > 1 ? "its " : "", ni, ni == 1 ? "" : "s");
    else
        eprintf("%s: %s: note: %d of %d images %s %s%s (not shown)\n", progname, what, nb, ni,
                nb == 1 ? "has" : "have", none, asked);
}

/* readelf's -w letters that name a section dump decodes, with its
 * --debug-dump name: -wr is .debug_aranges and -wR .debug_ranges there */
static const struct { char letter; const char *name; } w_letters[] = {
    {'a', "abbrev"}, {'i', "info"},   {'l', "line"},     {'f', "frames"},   {'o', "loc"}, {'R', "Ranges"},
    {'r', "aranges"}, {'p', "pubnames"}, {'t', "pubtypes"}, {'m', "macro"}, {'s', "str"}};
#define W_LETTERS "a, i, l, f, o, R, r, p, t, m, s"

static int debug_dump_list(opts *o, const char *list)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (!strcmp(t, "abbrev"))
            o->abbrev = 1;
        else if (!strcmp(t, "info"))
            o->info = 1;
        else if (!strcmp(t, "line") || !strcmp(t, "rawline"))
            o->line = 1;
        else if (!strcmp(t, "frames") || !strcmp(t, "frame"))
            o->frames = 1;
        else if (!strcmp(t, "loc") || !strcmp(t, "ranges") || !strcmp(t, "Ranges") || !strcmp(t, "aranges") ||
                 !strcmp(t, "pubnames") || !strcmp(t, "pubtypes") || !strcmp(t, "macro") || !strcmp(t, "str")) {
            const char *name = !strcmp(t, "Ranges") ? "ranges" : !strcmp(t, "macro") ? "macinfo" : t;
            for (size_t k = 0; k < NMISC; k++)
                if (!strcmp(name, misc[k].opt))
                    o->misc[k] = 1;
        } else {
            usage_error("dump", "unsupported --debug-dump section '%s' (supported: abbrev, info, line, frames, loc, ranges, "
                        "aranges, pubnames, pubtypes, macro, str)", t);
            return -1;
        }
    }
    return 0;
}

/* -wLETTERS, as readelf: each letter a section (w_letters) */
static int w_option(opts *o, const char *letters)
{
    for (const char *c = letters; *c; c++) {
        size_t k = 0;
        while (k < sizeof w_letters / sizeof w_letters[0] && w_letters[k].letter != *c)
            k++;
        if (k == sizeof w_letters / sizeof w_letters[0]) {
            usage_error("dump", "unknown option '-w%s': -w takes readelf's letters " W_LETTERS, letters);
            return -1;
        }
        if (debug_dump_list(o, w_letters[k].name))
            return -1;
    }
    return 0;
}

enum { O_ABBREV = 1, O_INFO, O_LINE, O_FRAMES, O_ALL, O_JSON, O_DEBUG_DUMP, O_SECTION, O_W, O_MISC };

/* The options in --help's order: the fixed ones around --NAME for each of
 * misc[] (ids O_MISC + k), made once from misc[] */
static const cli_opt *dump_table(void)
{
    static const cli_opt before[] = {
        {"--abbrev", 0, NULL, O_ABBREV, ".debug_abbrev (and its Mercury twin)"},
        {"--info", 0, NULL, O_INFO, ".debug_info, .nv_debug_info_ptx, .nv.merc.debug_info"},
        {"--line", 0, NULL, O_LINE, "line programs opcode by opcode: .debug_line,\n"
                                    ".nv_debug_line_sass and their Mercury twins"},
        {"--frames", 0, NULL, O_FRAMES, ".debug_frame: CIEs, FDEs, call-frame instructions"}};
    static const cli_opt after[] = {
        {"--all", 0, NULL, O_ALL, "every section cudwarf decodes"},
        {"--debug-dump", 0, "=LIST", O_DEBUG_DUMP, "readelf's spelling: abbrev,info,line,frames,loc,\n"
                                                   "ranges,aranges,pubnames,pubtypes,macro,str; and\n"
                                                   "its -w letters: -wa -wi -wl -wf -wo -wR (ranges)\n"
                                                   "-wr (aranges) -wp -wt -wm -ws, several in one (-wil)"},
        {"--section", 0, "NAME", O_SECTION, "only the section called NAME"},
        {"--json", 0, NULL, O_JSON, "JSON (schema: docs/json.md)"},
        {NULL, 'w', "LETTERS", O_W, OPT_UNLISTED}, /* readelf's -w letters (w_letters): --debug-dump's row names them */
        {0}};
    enum { NBEFORE = sizeof before / sizeof before[0], NAFTER = sizeof after / sizeof after[0] };
    static char names[NMISC][24];
    static cli_opt table[NBEFORE + NMISC + NAFTER];
    if (table[0].id)
        return table;
    memcpy(table, before, sizeof before);
    for (size_t k = 0; k < NMISC; k++) {
        snprintf(names[k], sizeof names[k], "--%s", misc[k].opt);
        table[NBEFORE + k] = (cli_opt){names[k], 0, NULL, O_MISC + (int)k, misc[k].help};
    }
    memcpy(table + NBEFORE + NMISC, after, sizeof after);
    return table;
}

int cmd_dump(int argc, char **argv)
{
    opts o = {0};
    int nfiles = 0;
    const cli_opt *table = dump_table();
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "dump", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 22, help_tail); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)a.value; break; /* the operands, in order, over argv */
        case O_ABBREV: o.abbrev = 1; break;
        case O_INFO: o.info = 1; break;
        case O_LINE: o.line = 1; break;
        case O_FRAMES: o.frames = 1; break;
        case O_ALL:
            o.abbrev = o.info = o.line = o.frames = 1;
            for (size_t k = 0; k < NMISC; k++)
                o.misc[k] = 1;
            break;
        case O_JSON: o.json = 1; break;
        case O_DEBUG_DUMP: /* main splits --debug-dump=LIST */
            if (debug_dump_list(&o, a.value))
                return EXIT_USAGE;
            break;
        case O_SECTION: o.section = a.value; break;
        case O_W:
            if (w_option(&o, a.value))
                return EXIT_USAGE;
            break;
        default: o.misc[id - O_MISC] = 1; break;
        }
    }
    if (!nfiles) {
        usage_error("dump", "no input file");
        return EXIT_USAGE;
    }
    int any = o.abbrev || o.info || o.line || o.frames;
    for (size_t k = 0; k < NMISC; k++)
        any |= o.misc[k];
    int explicit = any;
    if (!any) {
        o.abbrev = o.info = o.line = o.frames = 1;
        for (size_t k = 0; k < NMISC; k++)
            o.misc[k] = 1;
    }
    json j;
    json_init(&j, &out_stdout);
    int rc = run_images(argv, nfiles, &(image_run){one, &o, &j, o.json, o.section, "debug", &matched});
    if (rc == EXIT_OK)
        say_bare(&o, nfiles == 1 ? argv[0] : "the inputs", explicit);
    return rc;
}
