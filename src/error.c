/* Status names and the error record kept on each handle. */
#include "internal.h"

#include <stdio.h>

const char *cudw_status_name(int code)
{
    switch (code) {
    case CUDW_OK: return "ok";
    case CUDW_DONE: return "done";
    case CUDW_E_NOMEM: return "out of memory";
    case CUDW_E_IO: return "I/O error";
    case CUDW_E_NOT_ELF: return "not an ELF file";
    case CUDW_E_ELF_CLASS: return "not ELF64 little-endian";
    case CUDW_E_BAD_ELF: return "malformed ELF";
    case CUDW_E_TRUNCATED: return "truncated";
    case CUDW_E_LEB_OVERFLOW: return "LEB128 overflow";
    case CUDW_E_UNSUPPORTED: return "unsupported";
    case CUDW_E_BAD_ABBREV: return "malformed abbreviation";
    case CUDW_E_NO_ABBREV: return "missing .debug_abbrev";
    case CUDW_E_BAD_CODE: return "unknown abbreviation code";
    case CUDW_E_BAD_FORM: return "unknown form";
    case CUDW_E_BAD_OFFSET: return "offset out of range";
    case CUDW_E_BAD_RELOC: return "malformed relocation";
    case CUDW_E_LIMIT: return "limit exceeded";
    case CUDW_E_NOT_FOUND: return "not found";
    case CUDW_E_ARG: return "invalid argument";
    case CUDW_E_BAD_EXPR: return "malformed expression";
    case CUDW_E_NOT_CUDA: return "not a device ELF";
    default: return "unknown status";
    }
}

int err_vset(cudw_error *e, int code, const char *section, uint64_t off, const char *what, const char *fmt,
             va_list ap)
{
    /* The arguments may be the old error's own strings (a caller wrapping
     * the detail it got): format apart, then copy. */
    char sec[sizeof e->section], detail[sizeof e->detail];
    snprintf(sec, sizeof sec, "%s", section ? section : "");
    vsnprintf(detail, sizeof detail, fmt, ap);
    e->code = code;
    e->offset = off;
    e->what = what ? what : "";
    memcpy(e->section, sec, sizeof sec);
    memcpy(e->detail, detail, sizeof detail);
    return code;
}

int err_set(cudw_error *e, int code, const char *section, uint64_t off, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, code, section, off, what, fmt, ap);
    va_end(ap);
    return code;
}

int file_fail(cudw_file *f, int code, const cudw_section *sec, uint64_t off,
              const char *what, const char *fmt, ...)
{
    if (!f)
        return code;
    va_list ap;
    va_start(ap, fmt);
    err_vset(&f->err, code, sec ? sec->name : NULL, off, what, fmt, ap);
    va_end(ap);
    return code;
}

size_t cudw_error_format(const cudw_error *e, char *buf, size_t n)
{
    int len;
    if (e->section[0])
        len = snprintf(buf, n, "%s+0x%llx: %s%s%s", e->section, (unsigned long long)e->offset,
                       e->what && e->what[0] ? e->what : "", e->what && e->what[0] ? ": " : "",
                       e->detail[0] ? e->detail : cudw_status_name(e->code));
    else if (!e->offset && (e->code == CUDW_E_IO || e->code == CUDW_E_ARG || e->code == CUDW_E_NOT_FOUND ||
                            e->code == CUDW_E_NOMEM))
        /* about the file as a whole (open, a missing image): no place in it */
        len = snprintf(buf, n, "%s%s%s", e->what && e->what[0] ? e->what : "", e->what && e->what[0] ? ": " : "",
                       e->detail[0] ? e->detail : cudw_status_name(e->code));
    else
        len = snprintf(buf, n, "offset 0x%llx: %s%s%s", (unsigned long long)e->offset,
                       e->what && e->what[0] ? e->what : "", e->what && e->what[0] ? ": " : "",
                       e->detail[0] ? e->detail : cudw_status_name(e->code));
    return len < 0 ? 0 : (size_t)len;
}

const cudw_error *cudw_last_error(const cudw_file *f) { return &f->err; }
