/* cudwarf dump: .debug_abbrev and the info sections (.debug_info,
 * .nv_debug_info_ptx, .nv.merc.debug_info) as text or JSON.
 *
 * A file is walked once without printing first: a malformed file gives one
 * error and no partial dump. */
#include "cli.h"
#include "jobs.h"

#include <stdatomic.h>

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf dump [--abbrev] [--info] [--line] [--frames] [--loc] [--str] ... [--all] [--json]\n"
    "                    [--section NAME] FILE...\n"
    "\n"
    "Decode debug sections.  Without a section option, everything cudwarf decodes.\n"
    "\n"
    "  --abbrev            .debug_abbrev (and its Mercury twin)\n"
    "  --info              .debug_info, .nv_debug_info_ptx, .nv.merc.debug_info\n"
    "  --line              line programs opcode by opcode: .debug_line,\n"
    "                      .nv_debug_line_sass and their Mercury twins\n"
    "  --frames            .debug_frame: CIEs, FDEs, call-frame instructions\n"
    "  --loc, --ranges, --aranges, --pubnames, --pubtypes, --macinfo, --str\n"
    "                      the DWARF sections of those names (and Mercury twins)\n"
    "  --ptx-txt           .nv_debug_ptx_txt: the PTX text with its line numbers\n"
    "  --reg-sass          .nv_debug_info_reg_sass: PTX register -> SASS register, SASS range\n"
    "  --reg-type          .nv_debug_info_reg_type: the PTX type of each reg_sass entry\n"
    "  --all               every section cudwarf decodes\n"
    "  --debug-dump=LIST   readelf's spelling: abbrev,info,line,frames (also -wa, -wi, -wl, -wf)\n"
    "  --section NAME      only the section called NAME\n"
    "  --json              JSON (schema: docs/json.md)\n"
    "\n"
    "Values under a relocation are shown relocated, with symbol+addend.\n"
    "DIE and reference offsets are section offsets.\n";

/* the record-style sections dump --<name> shows, in this order */
static const struct { const char *opt; int kind; } misc[] = {
    {"loc", CUDW_SEC_LOC}, {"ranges", CUDW_SEC_RANGES}, {"aranges", CUDW_SEC_ARANGES},
    {"pubnames", CUDW_SEC_PUBNAMES}, {"pubtypes", CUDW_SEC_PUBTYPES}, {"macinfo", CUDW_SEC_MACINFO},
    {"str", CUDW_SEC_STR},
    {"ptx-txt", CUDW_SEC_NV_PTX_TXT}, {"reg-sass", CUDW_SEC_NV_REG_SASS}, {"reg-type", CUDW_SEC_NV_REG_TYPE},
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

/* Images that have the --section asked for: none in an input is an error. */
static atomic_int matched;

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
    }
    if (o->json) {
        json_obj(j, NULL);
        json_str(j, "file", path);
        json_arr(j, "sections");
    } else {
        ob_printf(&out_stdout, "\n%s:\n\n", path);
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->abbrev && wanted(o, s, CUDW_SEC_ABBREV))
            o->json ? abbrev_json(f, s, j) : abbrev_text(f, s, &out_stdout);
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->info && wanted(o, s, CUDW_SEC_INFO))
            o->json ? info_json(f, s, j) : info_text(f, s, &out_stdout);
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->line && is_line_section(s, o->section))
            o->json ? line_json(f, s, j) : line_text(f, s, &out_stdout);
    }
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        if (o->frames && wanted(o, s, CUDW_SEC_FRAME))
            o->json ? frame_json(f, s, j) : frame_text(f, s, &out_stdout);
    }
    for (size_t k = 0; k < NMISC; k++)
        for (unsigned i = 1; i < n && o->misc[k]; i++) {
            const cudw_section *s = cudw_section_get(f, i);
            if (wanted(o, s, misc[k].kind))
                o->json ? misc_json(f, s, misc[k].kind, j) : misc_text(f, s, misc[k].kind, &out_stdout);
        }
    if (o->json) {
        json_end_arr(j);
        json_end_obj(j);
    }
    return EXIT_OK;
}

static int misc_option(opts *o, const char *name)
{
    for (size_t k = 0; k < NMISC; k++)
        if (!strcmp(name, misc[k].opt)) {
            o->misc[k] = 1;
            return 1;
        }
    return 0;
}

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
        else if (!strcmp(t, "loc") || !strcmp(t, "ranges") || !strcmp(t, "aranges") || !strcmp(t, "pubnames") ||
                 !strcmp(t, "pubtypes") || !strcmp(t, "str")) {
            for (size_t k = 0; k < NMISC; k++)
                if (!strcmp(t, misc[k].opt))
                    o->misc[k] = 1;
        } else {
            usage_error("dump", "unsupported --debug-dump section '%s' (supported: abbrev, info, line, frames, loc, ranges, "
                        "aranges, pubnames, pubtypes, str)", t);
            return -1;
        }
    }
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    opts o = {0};
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--abbrev") || !strcmp(a, "-wa"))
            o.abbrev = 1;
        else if (!strcmp(a, "--info") || !strcmp(a, "-wi"))
            o.info = 1;
        else if (!strcmp(a, "--line") || !strcmp(a, "-wl"))
            o.line = 1;
        else if (!strcmp(a, "--frames") || !strcmp(a, "-wf"))
            o.frames = 1;
        else if (!strcmp(a, "--all")) {
            o.abbrev = o.info = o.line = o.frames = 1;
            for (size_t k = 0; k < NMISC; k++)
                o.misc[k] = 1;
        } else if (a[0] == '-' && a[1] == '-' && misc_option(&o, a + 2))
            ;
        else if (!strcmp(a, "--json"))
            o.json = 1;
        else if (!strcmp(a, "--debug-dump")) { /* main splits --debug-dump=LIST */
            if (++i == argc) {
                usage_error("dump", "--debug-dump needs a list (abbrev,info,line,...)");
                return EXIT_USAGE;
            }
            if (debug_dump_list(&o, argv[i]))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--section")) {
            if (++i == argc) {
                usage_error("dump", "--section needs a name");
                return EXIT_USAGE;
            }
            o.section = argv[i];
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(help, stdout);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            usage_error("dump", "unknown option '%s'", a);
            return EXIT_USAGE;
        } else {
            nfiles++;
        }
    }
    if (!nfiles) {
        usage_error("dump", "no input file");
        return EXIT_USAGE;
    }
    int any = o.abbrev || o.info || o.line || o.frames;
    for (size_t k = 0; k < NMISC; k++)
        any |= o.misc[k];
    if (!any) {
        o.abbrev = o.info = o.line = o.frames = 1;
        for (size_t k = 0; k < NMISC; k++)
            o.misc[k] = 1;
    }
    json j;
    json_init(&j, &out_stdout);
    if (o.json)
        image_array_begin(&j);
    int rc = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--section") || !strcmp(a, "--debug-dump")) {
            i++;
            continue;
        }
        if (a[0] == '-' && a[1])
            continue;
        int before = atomic_load(&matched), r = for_each_elf(a, one, &o, &j);
        if (r == EXIT_OK && o.section && atomic_load(&matched) == before) {
            eprintf("%s: %s: no debug section %s in any image\n", progname, a, o.section);
            r = EXIT_BAD_INPUT;
        }
        if (r != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    }
    if (o.json)
        image_array_end(&j, rc);
    return rc;
}
