/* cudwarf verify: every finding of cudw_verify, one line each. */
#include "cli.h"
#include "opts.h"
#include "jobs.h"

#include <stdatomic.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf verify [--json] [--notes] FILE...\n"
    "       cudwarf verify --ptx FILE.ptx CUBIN\n"
    "\n"
    "Check every debug section: headers and lengths, every read in bounds,\n"
    "abbreviation codes, references inside their unit and onto a DIE, sibling\n"
    "chains, line programs (file numbers, sequence ends, inlined-function name\n"
    "offsets), location lists, CIE/FDE links, string offsets, relocation types.\n"
    "Every finding is reported, with its section and offset.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "Exit status: 0 when no file has an error finding, 1 otherwise, 2 usage.\n";

typedef struct vctx {
    const char *label;
    int json, notes;
    json *j;
    size_t errors, notes_seen;
} vctx;

static void on_finding(const cudw_finding *fd, void *p)
{
    vctx *v = p;
    if (fd->severity == CUDW_FINDING_NOTE) {
        v->notes_seen++;
        if (!v->notes)
            return;
    } else {
        v->errors++;
    }
    if (v->json) {
        json_obj(v->j, NULL);
        json_str(v->j, "severity", fd->severity == CUDW_FINDING_NOTE ? "note" : "error");
        json_str(v->j, "section", fd->where.section);
        json_u64(v->j, "offset", fd->where.offset);
        json_str(v->j, "what", fd->where.what);
        json_str(v->j, "detail", fd->where.detail);
        json_str(v->j, "code", cudw_status_name(fd->where.code));
        json_end_obj(v->j);
        return;
    }
    char buf[512];
    cudw_error_format(&fd->where, buf, sizeof buf);
    ob_printf(&out_stdout, "%s: %s%s\n", v->label, fd->severity == CUDW_FINDING_NOTE ? "note: " : "", buf);
}

typedef struct vopts {
    int json, notes;
    json *j;
} vopts;

/* The text's images without an error finding: not a line each (a library
 * has thousands), one at the end */
static atomic_size_t clean, clean_notes, images;
static char first_clean[1024]; /* the label of the first (written once: by the image counted first) */

static int one(cudw_file *f, const char *label, void *p, json *j)
{
    const vopts *o = p;
    vctx v = {label, o->json, o->notes, j, 0, 0};
    if (o->json) {
        json_obj(j, NULL);
        json_str(j, "file", label);
        json_arr(j, "findings");
    }
    cudw_verify(f, on_finding, &v);
    if (o->json) {
        json_end_arr(j);
        json_u64(j, "errors", v.errors);
        json_u64(j, "notes", v.notes_seen);
        json_end_obj(j);
    } else if (v.errors || (o->notes && v.notes_seen)) { /* what was printed above, summed */
        ob_printf(&out_stdout, "%s: %zu error%s, %zu note%s\n", label, v.errors, v.errors == 1 ? "" : "s",
                  v.notes_seen, v.notes_seen == 1 ? "" : "s");
    } else {
        if (atomic_fetch_add(&clean, 1) == 0)
            snprintf(first_clean, sizeof first_clean, "%s", label);
        atomic_fetch_add(&clean_notes, v.notes_seen);
    }
    atomic_fetch_add(&images, 1);
    return v.errors ? EXIT_BAD_INPUT : EXIT_OK;
}

/* The clean images, said once: an input of one image as each image with
 * findings is ("k.cubin: 0 errors, 0 notes"), else how many of how many */
static void say_clean(const char *what)
{
    size_t n = atomic_load(&clean), notes = atomic_load(&clean_notes), all = atomic_load(&images);
    if (!n)
        return;
    if (all == 1)
        ob_printf(&out_stdout, "%s: 0 errors, %zu note%s\n", first_clean, notes, notes == 1 ? "" : "s");
    else
        ob_printf(&out_stdout, "%s: %zu of %zu images without errors (%zu note%s%s)\n", what, n, all, notes,
                  notes == 1 ? "" : "s", notes ? ": --notes shows them" : "");
}

static const cli_opt table[] = {
    {"--notes", 0, NULL, 2, "also print notes: oddities that are known and handled (such as\n"
                            "the CIE pointers of ptxas -dc objects); they do not fail"},
    {"--json", 0, NULL, 1, "[{file, findings: [{severity, section, offset, what, detail}]}]"},
    {"--ptx", 0, "FILE.ptx", 3, "CUBIN's line tables against what ptxas writes from FILE.ptx (its\n"
                                "stage 1): each identical, or the first opcode and row that differ"},
    {0}};

/* verify --ptx FILE.ptx CUBIN: the line tables against stage 1 */
static int with_ptx(const vopts *o, const char *ptx, char **files, int nfiles)
{
    if (o->json || o->notes) {
        usage_error("verify", "--ptx takes no --json or --notes");
        return EXIT_USAGE;
    }
    if (!nfiles) {
        usage_error("verify", "--ptx FILE.ptx needs the cubin ptxas made from it");
        return EXIT_USAGE;
    }
    if (nfiles > 1) {
        usage_error("verify", "--ptx checks one cubin (%d given)", nfiles);
        return EXIT_USAGE;
    }
    return ptx_verify(ptx, files[0]);
}

int cmd_verify(int argc, char **argv)
{
    vopts o = {0};
    int nfiles = 0;
    const char *ptx = NULL;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "verify", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 12, help_tail); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)a.value; break; /* the operands, in order, over argv */
        case 1: o.json = 1; break;
        case 2: o.notes = 1; break;
        case 3: ptx = a.value; break;
        }
    }
    if (ptx)
        return with_ptx(&o, ptx, argv, nfiles);
    if (!nfiles) {
        usage_error("verify", "no input file");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    o.j = &j;
    int rc = run_images(argv, nfiles, &(image_run){one, &o, &j, o.json, NULL, NULL, NULL});
    if (!o.json)
        say_clean(nfiles == 1 ? argv[0] : "the inputs");
    return rc;
}
