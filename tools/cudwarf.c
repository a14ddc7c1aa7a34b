/* cudwarf: the command-line face of libcudwarf.  Parses arguments, calls
 * the library, prints; nothing here decodes bytes. */
#include "cli.h"
#include "jobs.h"
#include "opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The options of every command (global_opts below), as bits: the ones a
 * command honours.  A command that rewrites or makes one whole file
 * (line-encode, strip, remap) has none: it refuses them rather than
 * ignore them; link takes --sm=N for its --arch; a command that reads no
 * debug section refuses --debug-file (resources read the companion's
 * .nv.info as the image's, and showed nothing as zeros). */
enum { G_SM = 1, G_JOBS, G_DEBUG_FILE };
#define G_ALL ((1u << G_SM) | (1u << G_JOBS) | (1u << G_DEBUG_FILE))
#define G_NO_DEBUG ((1u << G_SM) | (1u << G_JOBS)) /* reads no debug section: a companion means nothing */

/* The commands: name, entry, what it does (the usage text is made from
 * this table, and each command's --help says the rest), the options of
 * every command it honours. */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
    unsigned globals;
} commands[] = {
    {"sections", cmd_sections, "sections, their debug class, nvlink's action and Mercury twins", G_NO_DEBUG},
    {"dump", cmd_dump, "decode debug sections (readelf's --debug-dump=LIST and -w* too)", G_ALL},
    {"lines", cmd_lines, "rows of each line table (.debug_line, .nv_debug_line_sass, twins)", G_ALL},
    {"addr2line", cmd_addr2line, "SASS locations -> file:line and inline stacks, like binutils'", G_ALL},
    {"line-encode", cmd_line_encode, "rows (lines --json), opcodes (dump --line --json) -> line program", 0},
    {"correlate", cmd_correlate, "source <-> PTX <-> SASS per instruction; bytes per source line", G_ALL},
    {"ptx-lines", cmd_ptx_lines, "PTX .loc -> source per PTX line; the .debug_line ptxas writes", G_NO_DEBUG},
    {"verify", cmd_verify, "check every debug section; every finding with its place", G_ALL},
    {"pubnames", cmd_pubnames, "build .debug_pubnames/.debug_pubtypes from .debug_info", G_ALL},
    {"link", cmd_link, "merge the debug sections of -dc objects as nvlink -g does", 1u << G_SM},
    {"strip", cmd_strip, "remove a cubin's debug sections (--keep-debug: into a companion)", 0},
    {"remap", cmd_remap, "rewrite source path prefixes (-fdebug-prefix-map for cubins)", 0},
    {"list", cmd_list, "fatbin containers and entries of fatbins, executables, .so, .a", G_NO_DEBUG},
    {"extract", cmd_extract, "write the embedded cubins, PTX and LTO IR out, decompressed", G_NO_DEBUG},
    {"resources", cmd_resources, "registers, barriers, shared memory, stack per kernel (ptxas -v's)", G_NO_DEBUG},
    {"size", cmd_size, "where the device bytes go: code, data, debug, headers; duplicates", G_NO_DEBUG},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The options of every command: main takes them out of argv before the
 * command parses the rest, the main --help lists them, and every command's
 * --help names them on its last line (opt_help).  A command lists one
 * again (an OPT_GLOBAL row) only where it means something of its own
 * there (docs/cli.md). */
static const cli_opt global_opts[] = {
    {"--sm", 0, "=N", G_SM, "only the sm_N images (90, sm_90, 90a, 100f); an SM the\n"
                            "input does not hold is an error"},
    {"--jobs", 'j', "=N", G_JOBS, "work on N images at once (default: every core); the\n"
                                  "output is the same as with -j 1"},
    {"--debug-file", 0, "DBG", G_DEBUG_FILE, "read the debug sections from DBG, the companion\n"
                                             "`cudwarf strip --keep-debug` wrote for a stripped FILE"},
    {"--help", 'h', NULL, OPT_HELP, "the options of a command"},
    {0}};

static void usage_text(FILE *to)
{
    static obuf o; /* static: 64 KiB */
    o.f = to;
    ob_puts(&o, "usage: cudwarf COMMAND [OPTIONS] FILE...\n"
                "       cudwarf help COMMAND | cudwarf COMMAND --help | cudwarf --version\n"
                "\n"
                "Read, check, generate and link the debug information of CUDA device ELF\n"
                "objects (cubins).  FILE may be a cubin, a fatbin, a host ELF (executable,\n"
                "object, .so) with fatbins in any section, or a static library of those:\n"
                "every command then works on each embedded cubin.\n"
                "\n"
                "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        ob_printf(&o, "  %-12s %s\n", commands[i].name, commands[i].what);
    ob_puts(&o, "\n"
                "options of every command:\n");
    opt_list(&o, global_opts, 20);
    ob_puts(&o, "Every --name=value may be written --name value.\n"
                "\n"
                "Exit status: 0 success, 1 an input is unreadable or malformed (or a check\n"
                "fails), 2 usage error.  Errors are one line on stderr: cudwarf: FILE:\n"
                "SECTION+0xOFFSET: WHAT: DETAIL.  JSON output: docs/json.md; the command\n"
                "line's rules: docs/cli.md (installed in PREFIX/share/doc/cudwarf).\n");
    ob_flush(&o);
}

/* One option of every command with its value; typed is the option as
 * written, for the message */
static int set_global(int id, const char *typed, const char *v, const char *cmd)
{
    if (id == G_DEBUG_FILE) {
        debug_file = v;
    } else if (id == G_SM) {
        if (cudw_sm_parse(v, &sel_sm, &sel_variant) != CUDW_OK) {
            usage_error(cmd, "--sm %s: expected an SM (90, sm_90, 90a, sm_100f)", v);
            return -1;
        }
    } else {
        uint64_t n;
        if (opt_number(v, 0, 1024, &n) || n < 1) {
            usage_error(cmd, "%s %s: expected a number of jobs from 1 to 1024", typed, v);
            return -1;
        }
        jobs_n = (unsigned)n;
    }
    return 0;
}

/* The options of every command taken out of argv[2...] (the rest keep
 * their order); returns the new argc, or -1 after a usage message */
static int take_global_options(int argc, char **argv, const char *cmd, unsigned honoured)
{
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            honoured = G_ALL; /* the help is the answer, whatever came with it */
    int k = 2;
    for (int i = 2; i < argc; i++) {
        const char *v;
        const cli_opt *o = opt_match(global_opts, argv[i], &v);
        if (!strcmp(argv[i], "--")) { /* operands from here on: the command's */
            while (i < argc)
                argv[k++] = argv[i++];
            break;
        }
        if (!o) {
            argv[k++] = argv[i];
            continue;
        }
        char typed[3] = {'-', o->short_name, 0}; /* the name said in a message */
        const char *name = argv[i][1] == '-' ? o->name : typed;
        if (!(honoured & (1u << o->id))) {
            usage_error(cmd, "%s does not apply to %s", name, cmd);
            return -1;
        }
        if (!v && i + 1 == argc) {
            usage_error(cmd, "%s needs an argument", name);
            return -1;
        }
        if (!v)
            v = argv[++i];
        if (set_global(o->id, name, v, cmd))
            return -1;
    }
    return k;
}

static void unknown_command(const char *cmd)
{
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    const char *near = opt_nearest_word(cmd, names, NCOMMANDS);
    if (near)
        eprintf("%s: unknown command '%s' (did you mean '%s'?)\n", progname, cmd, near);
    else
        eprintf("%s: unknown command '%s'\n", progname, cmd);
    eprintf("Try '%s --help' for the commands.\n", progname);
}

/* "cudwarf help X" for these X is the main help, as "cudwarf X" is */
static int is_help(const char *s) { return !strcmp(s, "-h") || !strcmp(s, "--help") || !strcmp(s, "help"); }

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage_text(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    static char *help_argv[4];
    if (!strcmp(cmd, "help") && argc > 2 && !is_help(argv[2])) { /* cudwarf help COMMAND: its --help */
        help_argv[0] = argv[0];
        help_argv[1] = argv[2];
        help_argv[2] = "--help";
        argv = help_argv;
        argc = 3;
        cmd = argv[1];
    } else if (is_help(cmd)) {
        usage_text(stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("cudwarf %s\n", CUDW_VERSION_STRING);
        return EXIT_OK;
    }
    const struct command *c = NULL;
    for (size_t i = 0; i < NCOMMANDS && !c; i++)
        if (!strcmp(cmd, commands[i].name))
            c = &commands[i];
    unsigned honoured = c ? c->globals : G_ALL;
    static cli_opt listed[sizeof global_opts / sizeof global_opts[0]]; /* what its --help names */
    size_t n = 0;
    for (const cli_opt *r = global_opts; r->id; r++)
        if (r->id > 0 && honoured & (1u << r->id))
            listed[n++] = *r;
    opt_every_command = n ? listed : NULL;
    jobs_n = jobs_default();
    if ((argc = take_global_options(argc, argv, cmd, honoured)) < 0)
        return EXIT_USAGE;
    int rc = c ? c->run(argc - 1, argv + 1) : -1;
    debug_companion_close();
    if (rc >= 0) {
        ob_flush(&out_stdout);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            eprintf("%s: error writing output: %s\n", progname, strerror(errno ? errno : EIO));
            return EXIT_BAD_INPUT;
        }
        return rc;
    }
    if (cmd[0] == '-') /* "cudwarf --sm=90 lines k.cubin" */
        eprintf("%s: '%s' before the command: options come after it (cudwarf COMMAND [OPTIONS] FILE...)\n"
                "Try '%s --help' for the commands.\n", progname, cmd, progname);
    else
        unknown_command(cmd);
    return EXIT_USAGE;
}
