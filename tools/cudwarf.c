/* cudwarf: the command-line face of libcudwarf.  Parses arguments, calls
 * the library, prints; nothing here decodes bytes. */
#include "cli.h"
#include "jobs.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *progname = "cudwarf";

static const char usage[] =
    "usage: cudwarf COMMAND [OPTIONS] FILE...\n"
    "\n"
    "Read the debug information of CUDA device ELF objects (cubins).\n"
    "\n"
    "commands:\n"
    "  sections FILE... [--json]      list sections with their debug class, nvlink's\n"
    "                                 action and Mercury twins\n"
    "  dump [--abbrev] [--info] [--all] [--json] [--section NAME] FILE...\n"
    "                                 decode debug sections (readelf's\n"
    "                                 --debug-dump=abbrev,info is accepted too)\n"
    "\n"
    "  lines [--json] [--ptx] [--section NAME] FILE...\n"
    "                                 rows of every line table (.debug_line,\n"
    "                                 .nv_debug_line_sass, Mercury twins)\n"
    "\n"
    "  addr2line -e FILE [-afipC] [--ptx] [--json] [SYMBOL+0xOFF...]\n"
    "                                 SASS location -> file:line, inline stack\n"
    "\n"
    "  line-encode [-o OUT] [--json] INPUT.json\n"
    "                                 rows -> a line program, encoded as ptxas does\n"
    "\n"
    "  verify [--json] [--notes] FILE...\n"
    "                                 check every debug section; every finding\n"
    "  pubnames [--types] [--check] [-o OUT] FILE...\n"
    "                                 build .debug_pubnames/.debug_pubtypes from\n"
    "                                 .debug_info as ptxas objects carry them\n"
    "  link -o OUT [--arch sm_N] [--mercury] [--symbols CODE] IN...\n"
    "                                 merge the debug sections of -dc objects as\n"
    "                                 nvlink -g does\n"
    "  strip -o OUT [--keep-debug=DBG] IN.cubin\n"
    "                                 remove the debug sections; keep them in DBG\n"
    "  list [--json] FILE...          fatbin containers and entries (fatbin files,\n"
    "                                 executables, objects, .so)\n"
    "  extract [-o DIR] [--elf|--ptx] FILE...\n"
    "                                 write embedded cubins and PTX out, decompressed\n"
    "\n"
    "FILE may be a cubin, a fatbin, or a host ELF with embedded fatbins: every\n"
    "command then works on each embedded cubin.\n"
    "\n"
    "  cudwarf COMMAND --help         options of one command\n"
    "  --debug-file DBG               with any command: read the debug sections from\n"
    "                                 DBG, the companion of a stripped FILE\n"
    "  cudwarf --version\n"
    "\n"
    "exit status: 0 success, 1 unreadable or malformed input, 2 usage error\n";

void report(const cudw_file *f, const char *path)
{
    char buf[512];
    const cudw_error *e = cudw_last_error(f);
    cudw_error_format(e, buf, sizeof buf);
    eprintf("%s: %s: %s\n", progname, path, buf);
}

void usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    eprintf("%s%s%s: ", progname, cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    eprintf("\nTry '%s%s%s --help'.\n", progname, cmd ? " " : "", cmd ? cmd : "");
}

cudw_file *open_or_report(const char *path)
{
    cudw_file *f;
    if (cudw_open(&f, path) != CUDW_OK) {
        if (!f) {
            eprintf("%s: %s: out of memory\n", progname, path);
            return NULL;
        }
        report(f, path);
        cudw_close(f);
        return NULL;
    }
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("cudwarf %s\n", CUDW_VERSION_STRING);
        return EXIT_OK;
    }
    /* Options of every command: --debug-file DBG, --sm=N, -j N */
    int k = 2;
    jobs_n = jobs_default();
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if ((!strcmp(a, "--debug-file") || !strcmp(a, "--sm") || !strcmp(a, "--jobs") || !strcmp(a, "-j"))) {
            if (i + 1 == argc) {
                usage_error(cmd, "%s needs an argument", a);
                return EXIT_USAGE;
            }
            v = argv[++i];
        } else if (!strncmp(a, "--debug-file=", 13) || !strncmp(a, "--sm=", 5) || !strncmp(a, "--jobs=", 7)) {
            v = strchr(a, '=') + 1;
        } else if (!strncmp(a, "-j", 2) && a[2]) {
            v = a + 2;
        } else {
            argv[k++] = argv[i];
            continue;
        }
        if (a[2] == 'd') {
            debug_file = v;
        } else if (a[2] == 's') {
            if (cudw_sm_parse(v, &sel_sm, &sel_variant) != CUDW_OK) {
                usage_error(cmd, "--sm %s: expected an SM (90, sm_90, 90a, sm_100f)", v);
                return EXIT_USAGE;
            }
        } else {
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (end == v || *end || n < 1 || n > 1024) {
                usage_error(cmd, "%s %s: expected a number of jobs from 1 to 1024", a, v);
                return EXIT_USAGE;
            }
            jobs_n = (unsigned)n;
        }
    }
    argc = k;
    int rc;
    if (!strcmp(cmd, "sections"))
        rc = cmd_sections(argc - 1, argv + 1);
    else if (!strcmp(cmd, "dump"))
        rc = cmd_dump(argc - 1, argv + 1);
    else if (!strcmp(cmd, "lines"))
        rc = cmd_lines(argc - 1, argv + 1);
    else if (!strcmp(cmd, "addr2line"))
        rc = cmd_addr2line(argc - 1, argv + 1);
    else if (!strcmp(cmd, "line-encode"))
        rc = cmd_line_encode(argc - 1, argv + 1);
    else if (!strcmp(cmd, "verify"))
        rc = cmd_verify(argc - 1, argv + 1);
    else if (!strcmp(cmd, "link"))
        rc = cmd_link(argc - 1, argv + 1);
    else if (!strcmp(cmd, "strip"))
        rc = cmd_strip(argc - 1, argv + 1);
    else if (!strcmp(cmd, "pubnames"))
        rc = cmd_pubnames(argc - 1, argv + 1);
    else if (!strcmp(cmd, "list"))
        rc = cmd_list(argc - 1, argv + 1);
    else if (!strcmp(cmd, "extract"))
        rc = cmd_extract(argc - 1, argv + 1);
    else
        rc = -1;
    debug_companion_close();
    if (rc >= 0) {
        ob_flush(&out_stdout);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            eprintf("%s: error writing output\n", progname);
            return EXIT_BAD_INPUT;
        }
        return rc;
    }
    eprintf("%s: unknown command '%s'\n\n%s", progname, cmd, usage);
    return EXIT_USAGE;
}
