/* cudwarf list / extract: the images inside fatbins and host ELFs. */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static const char list_help[] =
    "usage: cudwarf list [--json] FILE...\n"
    "\n"
    "List the fatbin containers and entries of a fatbin file or of a host ELF\n"
    "(object, executable, .so: sections .nv_fatbin and __nv_relfatbin): kind, SM,\n"
    "version, flags, sizes, compression, name (--ident), options, and for ELF\n"
    "entries the debug sections they hold.  Fields whose meaning is unknown are\n"
    "shown raw.\n";

static const char extract_help[] =
    "usage: cudwarf extract [-o DIR] [--elf | --ptx] FILE...\n"
    "\n"
    "Write every embedded image out, decompressed, as\n"
    "DIR/<name>.<container>.<entry>.sm_<N>.cubin (.ptx, .ltoir), each file\n"
    "written whole or not at all.  DIR defaults to the current directory and is\n"
    "created when missing.  Compressed LTO IR (flag 0x10000) is stored in an\n"
    "encoding cudwarf does not decode: it is skipped with a note.\n";

static const char *compression(const cudw_fatbin_entry *e)
{
    return e->flags & CUDW_FATBIN_ZSTD ? "zstd" : e->flags & CUDW_FATBIN_LZ4 ? "lz4" : "none";
}

static void flags_text(uint64_t f, char *buf, size_t n)
{
    static const struct { uint64_t bit; const char *name; } names[] = {
        {CUDW_FATBIN_64BIT, "64-bit"}, {CUDW_FATBIN_DEBUG, "debug"}, {CUDW_FATBIN_LINUX, "Linux"},
        {CUDW_FATBIN_LZ4, "lz4"}, {CUDW_FATBIN_ZSTD, "zstd"}, {CUDW_FATBIN_ENCODED, "encoded"},
        {CUDW_FATBIN_ARCH_SPECIFIC, "arch-specific (a)"}, {CUDW_FATBIN_FAMILY, "family (f)"},
    };
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & names[i].bit) {
            len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? ", " : "", names[i].name);
            f &= ~names[i].bit;
        }
    if (f && len < n)
        snprintf(buf + len, n - len, "%sunknown 0x%llx", len ? ", " : "", (unsigned long long)f);
}

static int printable(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if ((p[i] < 0x20 || p[i] > 0x7e) && !(p[i] == 0 && i + 1 == n))
            return 0;
    return 1;
}

static int list_one(const char *path, int as_json, json *j)
{
    cudw_input *in;
    obuf *o = &out_stdout;
    if (cudw_input_open(&in, path) != CUDW_OK) {
        char buf[512];
        if (in) {
            cudw_error_format(cudw_input_error(in), buf, sizeof buf);
            fprintf(stderr, "%s: %s: %s\n", progname, path, buf);
        }
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    int type = cudw_input_type(in), rc = EXIT_OK;
    const char *tname = type == CUDW_INPUT_CUBIN     ? "cubin"
                        : type == CUDW_INPUT_FATBIN  ? "fatbin"
                        : type == CUDW_INPUT_ARCHIVE ? "archive"
                                                     : "host ELF";
    if (as_json) {
        json_obj(j, NULL);
        json_str(j, "file", path);
        json_str(j, "type", type == CUDW_INPUT_CUBIN     ? "cubin"
                            : type == CUDW_INPUT_FATBIN  ? "fatbin"
                            : type == CUDW_INPUT_ARCHIVE ? "archive"
                                                         : "host");
        json_arr(j, "images");
    } else {
        ob_printf(o, "%s: %s, %zu image%s\n", path, tname, cudw_input_count(in), cudw_input_count(in) == 1 ? "" : "s");
    }
    const char *last_member = NULL;
    for (size_t i = 0; i < cudw_input_count(in); i++) {
        const cudw_input_image *im = cudw_input_peek(in, i);
        if (!as_json && im->member && im->member != last_member)
            ob_printf(o, " member %s:\n", im->member);
        last_member = im->member;
        /* an encoded payload is listed, not decoded: it is not an error of the file */
        int opaque = im->entry && (im->entry->flags & CUDW_FATBIN_ENCODED) && im->kind != CUDW_FATBIN_ELF;
        int ok = !opaque && cudw_input_image_get(in, i, &im) == CUDW_OK;
        if (!ok && !opaque) {
            char buf[512];
            cudw_error_format(cudw_input_error(in), buf, sizeof buf);
            fprintf(stderr, "%s: %s: %s\n", progname, cudw_input_peek(in, i)->label, buf);
            rc = EXIT_BAD_INPUT;
            im = cudw_input_peek(in, i);
        }
        const cudw_fatbin_entry *e = im->entry;
        /* debug sections of ELF images */
        char dbg[512] = "";
        size_t dl = 0;
        if (ok && im->elf)
            for (unsigned s = 1; s < cudw_section_count(im->elf); s++) {
                const cudw_section *sec = cudw_section_get(im->elf, s);
                cudw_secclass c;
                if (cudw_classify_name(sec->name, sec->flags, &c) == CUDW_OK && dl < sizeof dbg)
                    dl += (size_t)snprintf(dbg + dl, sizeof dbg - dl, "%s%s", dl ? " " : "", sec->name);
            }
        char fl[160];
        if (as_json) {
            json_obj(j, NULL);
            json_str(j, "label", im->label);
            if (im->member)
                json_str(j, "member", im->member);
            if (e) {
                json_u64(j, "container", e->container);
                json_u64(j, "index", e->index);
                json_u64(j, "offset", e->offset);
                json_str(j, "kind", e->kind == CUDW_FATBIN_ELF    ? "elf"
                                    : e->kind == CUDW_FATBIN_PTX  ? "ptx"
                                    : e->kind == CUDW_FATBIN_NVVM ? "nvvm"
                                                                  : "unknown");
                json_u64(j, "kind_code", e->kind);
                json_u64(j, "sm", e->sm);
                json_str(j, "variant", cudw_fatbin_variant(e->flags)); /* "a", "f" or "" */
                json_u64(j, "major", e->major);
                json_u64(j, "minor", e->minor);
                json_u64(j, "flags", e->flags);
                json_arr(j, "flag_names");
                flags_text(e->flags, fl, sizeof fl);
                for (char *t = strtok(fl, ","); t; t = strtok(NULL, ","))
                    json_str(j, NULL, t[0] == ' ' ? t + 1 : t);
                json_end_arr(j);
                json_u64(j, "header_size", e->header_size);
                json_u64(j, "payload_size", e->payload_size);
                json_u64(j, "compressed_size", e->compressed_size);
                json_u64(j, "decompressed_size", e->decompressed_size);
                json_str(j, "compression", compression(e));
                if (e->name)
                    json_strn(j, "name", e->name, e->name_length);
                else
                    json_null(j, "name");
                if (e->options) {
                    if (printable(e->options, e->options_length))
                        json_strn(j, "options", (const char *)e->options,
                                  e->options_length && !e->options[e->options_length - 1] ? e->options_length - 1
                                                                                          : e->options_length);
                    else
                        json_hex(j, "options_hex", e->options, e->options_length);
                }
                json_u64(j, "field2", e->field2);
                json_u64(j, "field48", e->field48);
            }
            if (opaque)
                json_null(j, "image_size");
            else
                json_u64(j, "image_size", ok ? im->size : 0);
            if (im->kind == CUDW_FATBIN_ELF) {
                json_arr(j, "debug_sections");
                for (char *t = strtok(dbg, " "); t; t = strtok(NULL, " "))
                    json_str(j, NULL, t);
                json_end_arr(j);
            }
            json_end_obj(j);
            continue;
        }
        if (!e) {
            ob_printf(o, "  %s: ELF sm_%u, %zu bytes, debug sections: %s\n", im->label,
                      cudw_header(im->elf)->sm, im->size, dl ? dbg : "none");
            continue;
        }
        flags_text(e->flags, fl, sizeof fl);
        char kind[16];
        if (cudw_fatbin_kind_name(e->kind))
            snprintf(kind, sizeof kind, "%s", cudw_fatbin_kind_name(e->kind));
        else
            snprintf(kind, sizeof kind, "kind %u", e->kind);
        ob_printf(o, "  [%u.%u] %s sm_%u%s %s %u.%u  flags 0x%llx (%s)\n", e->container, e->index, kind, e->sm,
                  cudw_fatbin_variant(e->flags),
                  e->kind == CUDW_FATBIN_PTX ? "ISA" : "version", e->major, e->minor, (unsigned long long)e->flags, fl);
        ob_printf(o, "        at 0x%llx: header %u, payload %llu, %s", (unsigned long long)e->offset, e->header_size,
                  (unsigned long long)e->payload_size, compression(e));
        if (e->flags & (CUDW_FATBIN_LZ4 | CUDW_FATBIN_ZSTD))
            ob_printf(o, " %u -> %llu bytes", e->compressed_size, (unsigned long long)e->decompressed_size);
        if (opaque)
            ob_printf(o, ", not decoded (flag 0x10000)\n");
        else
            ob_printf(o, ", image %zu bytes\n", ok ? im->size : 0);
        if (e->name)
            ob_printf(o, "        name '%.*s'\n", (int)e->name_length, e->name);
        if (e->options) {
            if (printable(e->options, e->options_length))
                ob_printf(o, "        options \"%.*s\"\n", (int)e->options_length, (const char *)e->options);
            else {
                ob_printf(o, "        options (%u bytes, meaning unknown):", e->options_length);
                for (uint32_t k = 0; k < e->options_length; k++)
                    ob_printf(o, " %02x", e->options[k]);
                ob_putc(o, '\n');
            }
        }
        if (e->field2 != 0x0101 || e->field48)
            ob_printf(o, "        unknown fields: +2 0x%x, +48 0x%llx\n", e->field2, (unsigned long long)e->field48);
        if (im->kind == CUDW_FATBIN_ELF)
            ob_printf(o, "        debug sections: %s\n", dl ? dbg : "none");
    }
    if (as_json) {
        json_end_arr(j);
        json_end_obj(j);
    }
    cudw_input_close(in);
    return rc;
}

int cmd_list(int argc, char **argv)
{
    int as_json = 0, nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            as_json = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            ob_puts(&out_stdout, list_help);
            return EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            usage_error("list", "unknown option '%s'", argv[i]);
            return EXIT_USAGE;
        } else
            nfiles++;
    }
    if (!nfiles) {
        usage_error("list", "no input file");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    if (as_json && nfiles > 1)
        json_arr(&j, NULL);
    int rc = EXIT_OK;
    for (int i = 1; i < argc; i++)
        if (!(argv[i][0] == '-' && argv[i][1]) && list_one(argv[i], as_json, &j) != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    if (as_json && nfiles > 1) {
        json_end_arr(&j);
        ob_putc(&out_stdout, '\n');
    }
    return rc;
}

static int extract_one(const char *path, const char *dir, int only)
{
    cudw_input *in;
    if (cudw_input_open(&in, path) != CUDW_OK) {
        char buf[512];
        if (in) {
            cudw_error_format(cudw_input_error(in), buf, sizeof buf);
            fprintf(stderr, "%s: %s: %s\n", progname, path, buf);
        }
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    if (cudw_input_type(in) == CUDW_INPUT_CUBIN) {
        fprintf(stderr, "%s: %s: a cubin, not a fatbin or host ELF: nothing to extract\n", progname, path);
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int rc = EXIT_OK;
    for (size_t i = 0; i < cudw_input_count(in); i++) {
        const cudw_input_image *im = cudw_input_peek(in, i);
        if (only && im->kind != only)
            continue;
        if (im->entry->flags & CUDW_FATBIN_ENCODED) {
            fprintf(stderr, "%s: %s: note: not extracted: payload encoded beyond its compression (flag 0x10000)\n",
                    progname, im->label);
            continue;
        }
        if (cudw_input_image_get(in, i, &im) != CUDW_OK) {
            char buf[512];
            cudw_error_format(cudw_input_error(in), buf, sizeof buf);
            fprintf(stderr, "%s: %s: %s\n", progname, im->label, buf);
            rc = EXIT_BAD_INPUT;
            continue;
        }
        char out[4096], err[512];
        snprintf(out, sizeof out, "%s/%s.%u.%u.sm_%u%s.%s", dir, base, im->entry->container, im->entry->index,
                 im->entry->sm, cudw_fatbin_variant(im->entry->flags), im->kind == CUDW_FATBIN_PTX    ? "ptx"
                                : im->kind == CUDW_FATBIN_ELF  ? "cubin"
                                : im->kind == CUDW_FATBIN_NVVM ? "ltoir"
                                                               : "bin");
        if (write_file_atomic(out, im->data, im->size, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", progname, err);
            rc = EXIT_BAD_INPUT;
            continue;
        }
        ob_printf(&out_stdout, "%s\n", out);
    }
    cudw_input_close(in);
    return rc;
}

int cmd_extract(int argc, char **argv)
{
    const char *dir = ".";
    int only = 0, nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o")) {
            if (++i == argc) {
                usage_error("extract", "-o needs a directory");
                return EXIT_USAGE;
            }
            dir = argv[i];
        } else if (!strcmp(a, "--elf"))
            only = CUDW_FATBIN_ELF;
        else if (!strcmp(a, "--ptx"))
            only = CUDW_FATBIN_PTX;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ob_puts(&out_stdout, extract_help);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            usage_error("extract", "unknown option '%s'", a);
            return EXIT_USAGE;
        } else
            nfiles++;
    }
    if (!nfiles) {
        usage_error("extract", "no input file");
        return EXIT_USAGE;
    }
    struct stat st;
    if (stat(dir, &st) != 0 && errno == ENOENT && mkdir(dir, 0777) != 0) {
        fprintf(stderr, "%s: extract: %s: %s\n", progname, dir, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: extract: %s: not a directory\n", progname, dir);
        return EXIT_USAGE;
    }
    int rc = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            i++;
            continue;
        }
        if (!(argv[i][0] == '-' && argv[i][1]) && extract_one(argv[i], dir, only) != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    }
    return rc;
}
