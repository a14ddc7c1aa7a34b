/* cudwarf list: the containers and images inside fatbins, host ELFs and
 * archives, and the debug sections of each ELF image. */
#include "cli.h"
#include "opts.h"
#include "jobs.h"

#include <stdlib.h>
#include <string.h>

static const char list_help[] =
    "usage: cudwarf list [--json] [--headers | --decode] [-v] [--sm=N] [-j N] FILE...\n"
    "\n"
    "List the fatbin containers of a fatbin file, a host ELF (object, executable,\n"
    "shared library) or an archive, and their entries: kind, SM, version, flags,\n"
    "sizes, compression, name (--ident), options, and for ELF entries the debug\n"
    "sections they hold.  In a host ELF, containers are found in .nv_fatbin and\n"
    "__nv_relfatbin, by their magic in any other section (NVIDIA's libraries\n"
    "keep thousands in .ldata, .rodata, .cask_resource), and through the\n"
    ".nvFatBinSegment wrapper records; each container says how it was found.\n"
    "An ELF image with no code (only notes, call graph and relocation actions:\n"
    "an executable's first container has one per SM) says \"no code\".  A host\n"
    "ELF without device code is listed with a note (exit 0).\n"
    "\n"
    "Compressed images are decoded while they unpack to at most 256 MiB in all;\n"
    "past that (NVIDIA's libraries: 0.4 to 2.2 GB of zstd) they are listed as\n"
    "their headers say, marked \"not decoded\", and a note on stderr says how\n"
    "many: the listing then takes about the time reading the file does.\n"
    "\n"
    "  --json      one JSON object per file (docs/json.md)\n"
    "  --decode    decode every image, however much: sizes checked, debug\n"
    "              sections named (libcublasLt.so.13: 2.2 GB of zstd, ~0.6 s\n"
    "              on two cores)\n"
    "  --headers   what the container and entry headers say, decoding no image:\n"
    "              no image size check and no debug sections\n"
    "  --sm=N      only the images for sm_N (90, 90a, sm_100f)\n"
    "  -v, --verbose  also flag bits, options and header fields whose meaning\n"
    "              is not known (raw; --json always has them)\n"
    "  -j N        decode N images at once (default: every core); the output\n"
    "              is the same\n";

static const char *compression(const cudw_fatbin_entry *e)
{
    return e->flags & CUDW_FATBIN_ZSTD ? "zstd" : e->flags & CUDW_FATBIN_LZ4 ? "lz4" : "none";
}

/* The flags by name; the bits whose meaning is not known with unknown. */
static void flags_text(uint64_t f, char *buf, size_t n, int unknown)
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
    if (f && unknown && len < n)
        snprintf(buf + len, n - len, "%sunknown 0x%llx", len ? ", " : "", (unsigned long long)f);
}

static void found_text(const cudw_input_container *c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    if (c->found_by & CUDW_FOUND_SECTION)
        len += (size_t)snprintf(buf + len, n - len, "%s", c->section ? "section walk" : "file walk");
    if ((c->found_by & CUDW_FOUND_SCAN) && len < n)
        len += (size_t)snprintf(buf + len, n - len, "%smagic scan", len ? ", " : "");
    if ((c->found_by & CUDW_FOUND_WRAPPER) && len < n)
        snprintf(buf + len, n - len, "%swrapper v%u at .nvFatBinSegment+0x%llx", len ? ", " : "",
                 c->wrapper_version, (unsigned long long)c->wrapper_offset);
}

static int printable(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if ((p[i] < 0x20 || p[i] > 0x7e) && !(p[i] == 0 && i + 1 == n))
            return 0;
    return 1;
}

/* What list decodes: the default decodes compressed images while they unpack
 * to at most LIST_BUDGET bytes in all, so a small program is listed whole
 * and a library of thousands of images at file-read speed. */
enum { DECODE_BUDGET, DECODE_ALL, DECODE_NONE };
#define LIST_BUDGET (256ull << 20)

static int list_verbose; /* --verbose, for every file's context */

typedef struct lctx {
    image_set set;         /* the images listed (--sm) */
    int json;
    int headers;           /* --headers: no image decoded */
    int skip_packed;       /* over the budget: compressed entries not decoded */
    int verbose;           /* --verbose: flag bits and fields whose meaning is not known */
    const json *tmpl;
} lctx;

/* an encoded payload (flag 0x10000) is never decoded, so never counted */
static int opaque_entry(const cudw_input_image *im)
{
    return im->entry && (im->entry->flags & CUDW_FATBIN_ENCODED) && im->kind != CUDW_FATBIN_ELF;
}

/* a compressed entry list would decode: what the budget counts */
static int packed(const cudw_input_image *im)
{
    return im->entry && (im->entry->flags & (CUDW_FATBIN_LZ4 | CUDW_FATBIN_ZSTD)) && !opaque_entry(im);
}

/* The debug sections of an ELF image, space-separated. */
static void debug_names(cudw_file *f, char *dbg, size_t n)
{
    size_t dl = 0;
    dbg[0] = 0;
    for (unsigned s = 1; s < cudw_section_count(f) && dl < n; s++) {
        const cudw_section *sec = cudw_section_get(f, s);
        cudw_secclass c;
        if (cudw_classify_name(sec->name, sec->flags, &c) == CUDW_OK)
            dl += (size_t)snprintf(dbg + dl, n - dl, "%s%s", dl ? " " : "", sec->name);
    }
}

static void container_text(const cudw_input_container *c, obuf *o)
{
    char how[160];
    found_text(c, how, sizeof how);
    if (c->section)
        ob_printf(o, " container %s#%u: at 0x%llx (file offset 0x%llx), %llu bytes, %zu entr%s; found by %s\n",
                  c->section, c->ordinal, (unsigned long long)c->section_offset, (unsigned long long)c->file_offset,
                  (unsigned long long)c->size, c->nimages, c->nimages == 1 ? "y" : "ies", how);
    else
        ob_printf(o, " container %u: at 0x%llx, %llu bytes, %zu entr%s\n", c->ordinal,
                  (unsigned long long)c->section_offset, (unsigned long long)c->size, c->nimages,
                  c->nimages == 1 ? "y" : "ies");
}

/* code: 1 or 0 for a decoded ELF image, -1 when not known */
static void image_json(json *j, const cudw_input_image *im, int ok, int opaque, size_t size, char *dbg,
                       int headers, int code)
{
    const cudw_fatbin_entry *e = im->entry;
    char fl[160];
    json_obj(j, NULL);
    json_str(j, "label", im->label);
    json_str(j, "tag", im->tag);
    if (im->member)
        json_str(j, "member", im->member);
    json_u64(j, "sm", im->sm);
    if (e) {
        json_u64(j, "container", im->container);
        json_u64(j, "index", e->index);
        json_u64(j, "offset", im->offset);
        json_str(j, "kind", e->kind == CUDW_FATBIN_ELF    ? "elf"
                            : e->kind == CUDW_FATBIN_PTX  ? "ptx"
                            : e->kind == CUDW_FATBIN_NVVM ? "nvvm"
                                                          : "unknown");
        json_u64(j, "kind_code", e->kind);
        json_str(j, "variant", cudw_fatbin_variant(e->flags));
        json_u64(j, "major", e->major);
        json_u64(j, "minor", e->minor);
        json_u64(j, "flags", e->flags);
        json_arr(j, "flag_names");
        flags_text(e->flags, fl, sizeof fl, 1);
        char *save; /* jobs run on several threads: strtok_r */
        for (char *t = strtok_r(fl, ",", &save); t; t = strtok_r(NULL, ",", &save))
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
    if (headers && e) /* not decoded: neither key */
        ;
    else if (opaque)
        json_null(j, "image_size");
    else
        json_u64(j, "image_size", ok ? size : 0);
    if (code >= 0)
        json_bool(j, "has_code", code);
    if (im->kind == CUDW_FATBIN_ELF && !(headers && e)) {
        json_arr(j, "debug_sections");
        char *save;
        for (char *t = strtok_r(dbg, " ", &save); t; t = strtok_r(NULL, " ", &save))
            json_str(j, NULL, t);
        json_end_arr(j);
    }
    json_end_obj(j);
}

static void image_text(obuf *o, const cudw_input_image *im, int ok, int opaque, size_t size, const char *dbg,
                       int headers, int code, int verbose)
{
    const cudw_fatbin_entry *e = im->entry;
    char fl[160], kind[16];
    const char *nocode = code == 0 ? ", no code" : "";
    if (!e) {
        ob_printf(o, "  %s: ELF sm_%u, %zu bytes%s, debug sections: %s\n", im->label, im->sm, size, nocode,
                  dbg[0] ? dbg : "none");
        return;
    }
    flags_text(e->flags, fl, sizeof fl, verbose);
    if (cudw_fatbin_kind_name(e->kind))
        snprintf(kind, sizeof kind, "%s", cudw_fatbin_kind_name(e->kind));
    else
        snprintf(kind, sizeof kind, "kind %u", e->kind);
    ob_printf(o, "  [%s] %s sm_%u%s %s %u.%u  flags 0x%llx (%s)\n", im->tag, kind, e->sm,
              cudw_fatbin_variant(e->flags), e->kind == CUDW_FATBIN_PTX ? "ISA" : "version", e->major, e->minor,
              (unsigned long long)e->flags, fl);
    ob_printf(o, "        at 0x%llx: header %u, payload %llu, %s", (unsigned long long)im->offset, e->header_size,
              (unsigned long long)e->payload_size, compression(e));
    if (e->flags & (CUDW_FATBIN_LZ4 | CUDW_FATBIN_ZSTD))
        ob_printf(o, " %u -> %llu bytes", e->compressed_size, (unsigned long long)e->decompressed_size);
    if (opaque)
        ob_printf(o, ", not decoded (flag 0x10000)\n");
    else if (headers == 2)
        ob_puts(o, ", not decoded\n");
    else if (headers)
        ob_putc(o, '\n');
    else
        ob_printf(o, ", image %zu bytes%s\n", ok ? size : 0, nocode);
    if (e->name)
        ob_printf(o, "        name '%.*s'\n", (int)e->name_length, e->name);
    if (e->options) {
        if (printable(e->options, e->options_length))
            ob_printf(o, "        options \"%.*s\"\n", (int)e->options_length, (const char *)e->options);
        else if (verbose) {
            ob_printf(o, "        options (%u bytes, meaning unknown):", e->options_length);
            for (uint32_t k = 0; k < e->options_length; k++)
                ob_printf(o, " %02x", e->options[k]);
            ob_putc(o, '\n');
        }
    }
    if (verbose && (e->field2 != 0x0101 || e->field48))
        ob_printf(o, "        unknown fields: +2 0x%x, +48 0x%llx\n", e->field2, (unsigned long long)e->field48);
    if (im->kind == CUDW_FATBIN_ELF && !headers)
        ob_printf(o, "        debug sections: %s\n", dbg[0] ? dbg : "none");
}

static int list_job(void *p, size_t k)
{
    lctx *c = p;
    cudw_input *in = c->set.in;
    size_t i = c->set.idx[k];
    const cudw_input_image *im = cudw_input_peek(in, i);
    const cudw_input_container *con = cudw_input_container_get(in, im->container);
    obuf *o = &out_stdout;
    int rc = EXIT_OK;
    /* the first listed image of a member or container heads it */
    const cudw_input_image *prev = k ? cudw_input_peek(in, c->set.idx[k - 1]) : NULL;
    if (!c->json && im->member && (!prev || prev->member != im->member))
        ob_printf(o, " member %s:\n", im->member);
    if (!c->json && con && (!prev || prev->container != im->container))
        container_text(con, o);
    /* an encoded payload is listed, not decoded: it is not an error of the file */
    int opaque = opaque_entry(im);
    /* --headers decodes nothing the headers say; a cubin is its own header.
     * headers == 2: left compressed by the budget, and the line says so */
    int headers = c->headers ? 1 : c->skip_packed && packed(im) ? 2 : 0;
    int skip = opaque || (headers && im->entry);
    cudw_image *img = skip ? NULL : load_or_report(in, i);
    int ok = img != NULL;
    if (!ok && !skip)
        rc = EXIT_BAD_INPUT;
    char dbg[512] = "";
    int code = ok && img->elf ? cudw_has_code(img->elf) : -1;
    if (ok && img->elf)
        debug_names(img->elf, dbg, sizeof dbg);
    size_t size = ok ? img->size : 0;
    cudw_image_close(img);
    if (c->json) {
        json j = *c->tmpl;
        j.out = o;
        j.first[j.depth] = 1;
        image_json(&j, im, ok, opaque, size, dbg, headers, code);
    } else {
        image_text(o, im, ok, opaque, size, dbg, headers, code, c->verbose);
    }
    return rc;
}

static void containers_json(json *j, const cudw_input *in)
{
    json_arr(j, "containers");
    for (size_t i = 0; i < cudw_input_container_count(in); i++) {
        const cudw_input_container *c = cudw_input_container_get(in, i);
        json_obj(j, NULL);
        if (c->member)
            json_str(j, "member", c->member);
        if (c->section)
            json_str(j, "section", c->section);
        else
            json_null(j, "section");
        json_u64(j, "ordinal", c->ordinal);
        json_u64(j, "section_offset", c->section_offset);
        json_u64(j, "file_offset", c->file_offset);
        json_u64(j, "size", c->size);
        json_arr(j, "found_by");
        if (c->found_by & CUDW_FOUND_SECTION)
            json_str(j, NULL, "section");
        if (c->found_by & CUDW_FOUND_SCAN)
            json_str(j, NULL, "scan");
        if (c->found_by & CUDW_FOUND_WRAPPER)
            json_str(j, NULL, "wrapper");
        json_end_arr(j);
        if (c->found_by & CUDW_FOUND_WRAPPER) {
            json_u64(j, "wrapper_version", c->wrapper_version);
            json_u64(j, "wrapper_offset", c->wrapper_offset);
        }
        json_u64(j, "first_image", c->first_image);
        json_u64(j, "images", c->nimages);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static int list_one(const char *path, int as_json, int mode, json *j)
{
    cudw_input *in = open_input(path);
    if (!in)
        return EXIT_BAD_INPUT;
    size_t n = cudw_input_count(in), *idx = malloc((n ? n : 1) * sizeof *idx), k = 0;
    size_t nelf = 0, nptx = 0, nnvvm = 0, npacked = 0;
    uint64_t unpacked = 0; /* what the selected compressed entries unpack to */
    if (!idx) {
        cudw_input_close(in);
        eprintf("%s: %s: out of memory\n", progname, path);
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < n; i++) {
        const cudw_input_image *im = cudw_input_peek(in, i);
        if (!sel_sm || cudw_input_image_is(im, sel_sm, sel_variant)) {
            idx[k++] = i;
            if (packed(im)) {
                npacked++;
                unpacked += im->entry->decompressed_size;
            }
        }
        nelf += im->kind == CUDW_FATBIN_ELF;
        nptx += im->kind == CUDW_FATBIN_PTX;
        nnvvm += im->kind == CUDW_FATBIN_NVVM;
    }
    int type = cudw_input_type(in), rc = EXIT_OK;
    int skip_packed = mode == DECODE_BUDGET && unpacked > LIST_BUDGET;
    const char *tname = type == CUDW_INPUT_CUBIN ? "cubin" : type == CUDW_INPUT_FATBIN ? "fatbin"
                        : type == CUDW_INPUT_ARCHIVE ? "archive" : "host ELF";
    if (sel_sm && n && !k) { /* an error, and nothing listed */
        char sms[256];
        eprintf("%s: %s: no sm_%u%s image (it has %s)\n", progname, path, sel_sm,
                sel_variant == 'a' ? "a" : sel_variant == 'f' ? "f" : "",
                cudw_input_sms(in, CUDW_FATBIN_ELF, sms, sizeof sms));
        free(idx);
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    if (as_json) {
        static int opened;
        if (!opened++)
            ob_putc(&out_stdout, '['); /* the array opens with its first object */
        json_obj(j, NULL);
        json_str(j, "file", path);
        json_str(j, "type", type == CUDW_INPUT_CUBIN ? "cubin" : type == CUDW_INPUT_FATBIN ? "fatbin"
                            : type == CUDW_INPUT_ARCHIVE ? "archive" : "host");
        if (skip_packed)
            json_u64(j, "not_decoded", npacked);
        containers_json(j, in);
        json_arr(j, "images");
    } else {
        ob_printf(&out_stdout, "%s: %s, %zu image%s (%zu ELF, %zu PTX, %zu LTO IR) in %zu container%s\n", path,
                  tname, n, n == 1 ? "" : "s", nelf, nptx, nnvvm, cudw_input_container_count(in),
                  cudw_input_container_count(in) == 1 ? "" : "s");
    }
    if (!n)
        eprintf("%s: %s: note: no CUDA device code (no fatbin container in any section)\n", progname, path);
    if (skip_packed)
        eprintf("%s: %s: note: %zu compressed images (%.1f GB unpacked) not decoded, over list's 256 MiB;"
                " --decode decodes them\n", progname, path, npacked, (double)unpacked / 1e9);
    lctx c = {{in, idx}, as_json, mode == DECODE_NONE, skip_packed, list_verbose, j};
    int saved_jobs = jobs_n;
    if (mode == DECODE_NONE || (skip_packed && npacked == k))
        jobs_n = 1; /* nothing to decode: threads would only wait on each other */
    jobs_sep = as_json ? "," : NULL;
    jobs_reset(); /* the "images" array of this file */
    int r = jobs_run_cost(k, list_job, image_set_cost, &c);
    jobs_n = saved_jobs;
    if (r > rc)
        rc = r;
    if (as_json) {
        if (k)
            j->first[j->depth] = 0;
        json_end_arr(j);
        json_end_obj(j);
    }
    free(idx);
    cudw_input_close(in);
    return rc;
}

static const cli_opt list_table[] = {{"--json", 0, 0, 1}, {"--headers", 0, 0, 2}, {"--decode", 0, 0, 3},
                                     {"--verbose", 'v', 0, 4}, {0}};

int cmd_list(int argc, char **argv)
{
    int as_json = 0, mode = DECODE_BUDGET, nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "list", list_table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: ob_puts(&out_stdout, list_help); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)a.value; break; /* the operands, in order, over argv */
        case 1: as_json = 1; break;
        case 4: list_verbose = 1; break;
        case 2:
        case 3:
            if (mode != DECODE_BUDGET && mode != (id == 2 ? DECODE_NONE : DECODE_ALL)) {
                usage_error("list", "--headers and --decode exclude each other");
                return EXIT_USAGE;
            }
            mode = id == 2 ? DECODE_NONE : DECODE_ALL;
            break;
        }
    }
    if (!nfiles) {
        usage_error("list", "no input file");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    if (as_json)
        json_enter_arr(&j); /* one object per file; "[" comes with the first */
    int rc = EXIT_OK;
    for (int i = 0; i < nfiles; i++)
        if (list_one(argv[i], as_json, mode, &j) != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    if (as_json) {
        if (!j.first[1])
            ob_puts(&out_stdout, "]\n");
        else if (rc == EXIT_OK)
            ob_puts(&out_stdout, "[]\n");
    }
    return rc;
}
