/* How the commands tell the user something went wrong: one line on stderr
 * per error (the library's located error, formatted), and usage errors
 * with the pointer to --help.  The commands call these; main calls the
 * commands (cudwarf.c): no command reaches back into main. */
#include "cli.h"

#include <stdarg.h>

const char *progname = "cudwarf";

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
