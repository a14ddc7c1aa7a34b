/* cudwarf list: the containers and images inside fatbins, host ELFs and
 * archives, and the debug sections of each ELF image. */
#include "cli.h"
#include "emit.h"
#include "opts.h"
#include "jobs.h"

#include <stdlib.h>
#include <string.h>

static const char list_help_head[] =
    "usage: cudwarf list [--json] [--headers | --decode] [-v] FILE...\n"
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
    "Before decoding, list adds up the unpacked sizes the entry headers give for\n"
    "a FILE's compressed images (those --sm selects; not the encoded LTO IR of\n"
    "flag 0x10000, never decoded).  At most 256 MiB: every image is decoded.\n"
    "Over that (NVIDIA's libraries: 0.4 to 2.2 GB of zstd): no compressed image\n"
    "is, however small; each is listed as its header says, marked\n"
    "\"not decoded\", a note on stderr says how many, and the listing takes\n"
    "about the time reading the file does.  Uncompressed images are decoded\n"
    "either way.\n"
    "\n";

static const char *compression(const cudw_fatbin_entry *e)
{
    return e->flags & CUDW_FATBIN_ZSTD ? "zstd" : e->flags & CUDW_FATBIN_LZ4 ? "lz4" : "none";
}

static int printable(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if ((p[i] < 0x20 || p[i] > 0x7e) && !(p[i] == 0 && i + 1 == n))
            return 0;
    return 1;
}

/* What list decodes: by default, all or none of a file's compressed images
 * (those --sm selects), decided up front from the unpacked sizes their entry
 * headers give: all when those add up to at most LIST_BUDGET bytes, none
 * when more (list_one), so a small program is listed whole and a library of
 * thousands of images at file-read speed. */
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

/* How a container was found: JSON's found_by names and the wrapper's
 * fields; the text says it in words, and only for a container in a section
 * (a fatbin file's containers are found by walking it). */
static void found_print(emit *m, const cudw_input_container *c)
{
    int say = c->section != NULL;
    const char *sep = say ? "" : NULL;
    em_text(m, say ? "; found by " : "");
    em_arr(m, "found_by");
    if (c->found_by & CUDW_FOUND_SECTION) {
        em_item(m, NULL, "section");
        em_str(m, NULL, sep, 0, "section walk");
        sep = say ? ", " : NULL;
    }
    if (c->found_by & CUDW_FOUND_SCAN) {
        em_item(m, NULL, "scan");
        em_str(m, NULL, sep, 0, "magic scan");
        sep = say ? ", " : NULL;
    }
    if (c->found_by & CUDW_FOUND_WRAPPER)
        em_item(m, NULL, "wrapper");
    em_end_arr(m);
    if (c->found_by & CUDW_FOUND_WRAPPER) {
        em_str(m, NULL, sep, 0, "wrapper v");
        em_u64(m, "wrapper_version", say ? "" : NULL, EM_DEC, c->wrapper_version);
        em_u64(m, "wrapper_offset", say ? " at .nvFatBinSegment+0x" : NULL, EM_HEX, c->wrapper_offset);
    }
}

/* A container, through the emitter (emit.h): JSON's object in the
 * "containers" array, the text's line heading its first listed image. */
static void container_print(emit *m, const cudw_input_container *c)
{
    int sec = c->section != NULL;
    em_obj(m, NULL);
    if (c->member)
        em_str(m, "member", NULL, 0, c->member);
    em_str_or(m, "section", sec ? " container " : NULL, c->section, "");
    em_u64(m, "ordinal", sec ? "#" : " container ", EM_DEC, c->ordinal);
    em_u64(m, "section_offset", ": at 0x", EM_HEX, c->section_offset);
    em_u64(m, "file_offset", sec ? " (file offset 0x" : NULL, EM_HEX, c->file_offset);
    em_text(m, sec ? ")" : "");
    em_u64(m, "size", ", ", EM_DEC, c->size);
    em_u64(m, NULL, " bytes, ", EM_DEC, c->nimages);
    em_text(m, c->nimages == 1 ? " entry" : " entries");
    found_print(m, c);
    em_u64(m, "first_image", NULL, 0, c->first_image);
    em_u64(m, "images", NULL, 0, c->nimages);
    em_text(m, "\n");
    em_end_obj(m);
}

/* An image as list found it, for its printer */
typedef struct listed {
    const cudw_input_image *im;
    int ok;                /* loaded */
    int opaque;            /* an encoded payload: never decoded */
    size_t size;           /* its bytes, when loaded */
    char *dbg;             /* its debug sections, space-separated */
    int headers;           /* not decoded: 1 --headers, 2 over the budget */
    int code;              /* 1 or 0 for a decoded ELF image, -1 when not known */
    int verbose;           /* flag bits and fields whose meaning is not known too */
} listed;

/* The flags by name (JSON's flag_names); the bits whose meaning is not
 * known as "unknown 0x..." when verbose */
static void flags_print(emit *m, uint64_t f, int verbose)
{
    static const struct { uint64_t bit; const char *name; } names[] = {
        {CUDW_FATBIN_64BIT, "64-bit"}, {CUDW_FATBIN_DEBUG, "debug"}, {CUDW_FATBIN_LINUX, "Linux"},
        {CUDW_FATBIN_LZ4, "lz4"}, {CUDW_FATBIN_ZSTD, "zstd"}, {CUDW_FATBIN_ENCODED, "encoded"},
        {CUDW_FATBIN_ARCH_SPECIFIC, "arch-specific (a)"}, {CUDW_FATBIN_FAMILY, "family (f)"},
    };
    const char *sep = " (";
    em_u64(m, "flags", "  flags 0x", EM_HEX, f);
    em_arr(m, "flag_names");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & names[i].bit) {
            em_item(m, sep, names[i].name);
            sep = ", ";
            f &= ~names[i].bit;
        }
    if (f && verbose) {
        char b[32];
        snprintf(b, sizeof b, "unknown 0x%llx", (unsigned long long)f);
        em_item(m, sep, b);
        sep = ", ";
    }
    em_end_arr(m);
    em_text(m, sep[0] == ',' ? ")\n" : " ()\n");
}

/* An entry's header: what it holds and how it is stored.  The text puts
 * the kind before the SM and the offset, the compression before the
 * sizes; JSON the other way round. */
static void entry_head(emit *m, const cudw_input_image *im, int verbose)
{
    const cudw_fatbin_entry *e = im->entry;
    const char *kind = cudw_fatbin_kind_name(e->kind);
    int packed = (e->flags & (CUDW_FATBIN_LZ4 | CUDW_FATBIN_ZSTD)) != 0;
    if (kind)
        em_str(m, NULL, "] ", 0, kind);
    else
        em_u64(m, NULL, "] kind ", EM_DEC, e->kind);
    em_u64(m, "sm", " sm_", EM_DEC, im->sm);
    em_u64(m, "container", NULL, 0, im->container);
    em_u64(m, "index", NULL, 0, e->index);
    em_u64(m, "offset", NULL, 0, im->offset);
    em_str(m, "kind", NULL, 0, e->kind == CUDW_FATBIN_ELF    ? "elf"
                               : e->kind == CUDW_FATBIN_PTX  ? "ptx"
                               : e->kind == CUDW_FATBIN_NVVM ? "nvvm"
                                                             : "unknown");
    em_u64(m, "kind_code", NULL, 0, e->kind);
    em_str(m, "variant", "", 0, cudw_fatbin_variant(e->flags));
    em_u64(m, "major", e->kind == CUDW_FATBIN_PTX ? " ISA " : " version ", EM_DEC, e->major);
    em_u64(m, "minor", ".", EM_DEC, e->minor);
    flags_print(m, e->flags, verbose);
    em_u64(m, NULL, "        at 0x", EM_HEX, im->offset);
    em_u64(m, "header_size", ": header ", EM_DEC, e->header_size);
    em_u64(m, "payload_size", ", payload ", EM_DEC, e->payload_size);
    em_str(m, NULL, ", ", 0, strcmp(compression(e), "none") ? compression(e) : "uncompressed");
    em_u64(m, "compressed_size", packed ? " " : NULL, EM_DEC, e->compressed_size);
    em_u64(m, "decompressed_size", packed ? " -> " : NULL, EM_DEC, e->decompressed_size);
    em_text(m, packed ? " bytes" : "");
    em_str(m, "compression", NULL, 0, compression(e));
}

/* The end of an entry's second line: what decoding found (text only:
 * JSON says it with image_size and has_code after the header fields) */
static void entry_status(emit *m, const listed *s)
{
    if (s->opaque) {
        em_text(m, ", not decoded (flag 0x10000)\n");
    } else if (s->headers) {
        em_text(m, s->headers == 2 ? ", not decoded\n" : "\n");
    } else {
        em_u64(m, NULL, ", image ", EM_DEC, s->ok ? s->size : 0);
        em_text(m, s->code == 0 ? " bytes, no code\n" : " bytes\n");
    }
}

/* An entry's name, options and the header fields whose meaning is not
 * known (the text shows options it cannot print, and those fields, only
 * when verbose) */
static void entry_more(emit *m, const cudw_fatbin_entry *e, int verbose)
{
    if (e->name) {
        em_strn(m, "name", "        name '", e->name, e->name_length);
        em_text(m, "'\n");
    } else {
        em_null(m, "name");
    }
    uint32_t n = e->options_length;
    if (e->options && printable(e->options, n)) {
        em_strn(m, "options", "        options \"", (const char *)e->options, n && !e->options[n - 1] ? n - 1 : n);
        em_text(m, "\"\n");
    } else if (e->options && verbose) {
        em_u64(m, NULL, "        options (", EM_DEC, n);
        em_text(m, " bytes, meaning unknown):");
        em_hex(m, "options_hex", "", e->options, n);
        em_text(m, "\n");
    }
    int odd = verbose && (e->field2 != 0x0101 || e->field48);
    em_u64(m, "field2", odd ? "        unknown fields: +2 0x" : NULL, EM_HEX, e->field2);
    em_u64(m, "field48", odd ? ", +48 0x" : NULL, EM_HEX, e->field48);
    em_text(m, odd ? "\n" : "");
}

/* An image, through the emitter (emit.h): JSON's object in "images"; the
 * text one line for a cubin, and for a fatbin entry its header's lines.
 * JSON always has the fields whose meaning is not known, the text with
 * --verbose. */
static void image_print(emit *m, const listed *s)
{
    const cudw_input_image *im = s->im;
    const cudw_fatbin_entry *e = im->entry;
    int verbose = s->verbose || m->j;
    em_obj(m, NULL);
    em_str(m, "label", e ? NULL : "  ", 0, im->label);
    em_str(m, "tag", e ? "  [" : NULL, 0, im->tag);
    if (im->member)
        em_str(m, "member", NULL, 0, im->member);
    if (e) {
        entry_head(m, im, verbose);
        entry_status(m, s);
        entry_more(m, e, verbose);
    } else {
        em_u64(m, "sm", ": ELF sm_", EM_DEC, im->sm);
    }
    if (e && s->headers) /* not decoded: neither key */
        ;
    else if (s->opaque)
        em_null(m, "image_size");
    else
        em_u64(m, "image_size", e ? NULL : ", ", EM_DEC, s->ok ? s->size : 0);
    em_text(m, e ? "" : s->code == 0 ? " bytes, no code" : " bytes");
    if (s->code >= 0)
        em_bool(m, "has_code", s->code);
    if (im->kind == CUDW_FATBIN_ELF && !(e && s->headers)) {
        em_text(m, e ? "        debug sections: " : ", debug sections: ");
        em_text(m, s->dbg[0] ? "" : "none");
        em_arr(m, "debug_sections");
        char *save; /* jobs run on several threads: strtok_r */
        const char *sep = "";
        for (char *t = strtok_r(s->dbg, " ", &save); t; t = strtok_r(NULL, " ", &save), sep = " ")
            em_item(m, sep, t);
        em_end_arr(m);
        em_text(m, "\n");
    }
    em_end_obj(m);
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
        container_print(&(emit){NULL, o}, con);
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
    if (ok && img->elf)
        debug_names(img->elf, dbg, sizeof dbg);
    listed s = {im, ok, opaque, ok ? img->size : 0, dbg, headers, ok && img->elf ? cudw_has_code(img->elf) : -1,
               c->verbose};
    cudw_image_close(img);
    json j;
    if (c->json) { /* this job's object in the "images" array */
        j = *c->tmpl;
        j.out = o;
        j.first[j.depth] = 1;
    }
    image_print(&(emit){c->json ? &j : NULL, o}, &s);
    return rc;
}

/* What a file holds: every image by kind, the ones selected (--sm) and
 * the compressed entries among those */
typedef struct tally {
    size_t n, k, *idx;        /* images; the k selected, by index */
    size_t elf, ptx, nvvm;
    size_t packed;            /* selected compressed entries */
    uint64_t unpacked;        /* what they unpack to */
} tally;

/* 0, or -1 out of memory */
static int tally_images(cudw_input *in, tally *t)
{
    t->n = cudw_input_count(in);
    if (!(t->idx = malloc((t->n ? t->n : 1) * sizeof *t->idx)))
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const cudw_input_image *im = cudw_input_peek(in, i);
        if (!sel_sm || cudw_input_image_is(im, sel_sm, sel_variant)) {
            t->idx[t->k++] = i;
            if (packed(im)) {
                t->packed++;
                t->unpacked += im->entry->decompressed_size;
            }
        }
        t->elf += im->kind == CUDW_FATBIN_ELF;
        t->ptx += im->kind == CUDW_FATBIN_PTX;
        t->nvvm += im->kind == CUDW_FATBIN_NVVM;
    }
    return 0;
}

/* A file's head, through the emitter (emit.h): JSON's first keys, every
 * container and the "images" array opened; the text's first line, its
 * images counted by kind (the text heads each container's images with
 * it instead: list_job). */
static void file_head(emit *m, const char *path, cudw_input *in, const tally *t, int skip_packed)
{
    int type = cudw_input_type(in);
    size_t nc = cudw_input_container_count(in);
    const char *name = type == CUDW_INPUT_CUBIN ? "cubin" : type == CUDW_INPUT_FATBIN ? "fatbin"
                       : type == CUDW_INPUT_ARCHIVE ? "archive" : NULL;
    em_obj(m, NULL);
    em_str(m, "file", "", 0, path);
    em_str(m, "type", NULL, 0, name ? name : "host");
    em_str(m, NULL, ": ", 0, name ? name : "host ELF");
    em_u64(m, NULL, ", ", EM_DEC, t->n);
    em_text(m, t->n == 1 ? " image (" : " images (");
    em_u64(m, NULL, "", EM_DEC, t->elf);
    em_u64(m, NULL, " ELF, ", EM_DEC, t->ptx);
    em_u64(m, NULL, " PTX, ", EM_DEC, t->nvvm);
    em_u64(m, NULL, " LTO IR) in ", EM_DEC, nc);
    em_text(m, nc == 1 ? " container\n" : " containers\n");
    if (skip_packed)
        em_u64(m, "not_decoded", NULL, 0, t->packed);
    em_arr(m, "containers");
    for (size_t i = 0; m->j && i < nc; i++)
        container_print(m, cudw_input_container_get(in, i));
    em_end_arr(m);
    em_arr(m, "images");
}

/* List the selected images, as jobs (list_job): the worst exit status */
static int images_list(cudw_input *in, const tally *t, int as_json, int mode, int skip_packed, json *j)
{
    lctx c = {{in, t->idx}, as_json, mode == DECODE_NONE, skip_packed, list_verbose, j};
    int saved_jobs = jobs_n;
    if (mode == DECODE_NONE || (skip_packed && t->packed == t->k))
        jobs_n = 1; /* nothing to decode: threads would only wait on each other */
    jobs_sep = as_json ? "," : NULL;
    jobs_reset(); /* the "images" array of this file */
    int rc = jobs_run_cost(t->k, list_job, image_set_cost, &c);
    jobs_n = saved_jobs;
    if (as_json && t->k)
        j->first[j->depth] = 0; /* the jobs wrote the array's objects */
    return rc;
}

static int list_one(const char *path, int as_json, int mode, json *j)
{
    cudw_input *in = open_input(path);
    if (!in)
        return EXIT_BAD_INPUT;
    tally t = {0};
    int rc = EXIT_BAD_INPUT;
    if (tally_images(in, &t)) {
        eprintf("%s: %s: out of memory\n", progname, path);
    } else if (sel_sm && t.n && !t.k) { /* an error, and nothing listed */
        char sms[256];
        eprintf("%s: %s: no sm_%u%s image (it has %s)\n", progname, path, sel_sm,
                sel_variant == 'a' ? "a" : sel_variant == 'f' ? "f" : "",
                cudw_input_sms(in, CUDW_FATBIN_ELF, sms, sizeof sms));
    } else {
        int skip_packed = mode == DECODE_BUDGET && t.unpacked > LIST_BUDGET;
        static int opened;
        if (as_json && !opened++)
            ob_putc(&out_stdout, '['); /* the array opens with its first object */
        emit m = {as_json ? j : NULL, &out_stdout};
        file_head(&m, path, in, &t, skip_packed);
        if (!t.n)
            eprintf("%s: %s: note: no CUDA device code (no fatbin container in any section)\n", progname, path);
        if (skip_packed)
            eprintf("%s: %s: note: %zu compressed images (%.1f GB unpacked) not decoded, over list's 256 MiB;"
                    " --decode decodes them\n", progname, path, t.packed, (double)t.unpacked / 1e9);
        rc = images_list(in, &t, as_json, mode, skip_packed, j);
        em_end_arr(&m);
        em_end_obj(&m);
    }
    free(t.idx);
    cudw_input_close(in);
    return rc;
}

static const cli_opt list_table[] = {
    {"--json", 0, NULL, 1, "one JSON object per file (docs/json.md)"},
    {"--decode", 0, NULL, 3, "decode every image, however much: sizes checked, debug\n"
                             "sections named (libcublasLt.so.13: 2.2 GB of zstd, ~0.6 s\n"
                             "on two cores)"},
    {"--headers", 0, NULL, 2, "what the container and entry headers say, decoding no image:\n"
                              "no image size check and no debug sections"},
    {"--verbose", 'v', NULL, 4, "also flag bits, options and header fields whose meaning\n"
                                "is not known (raw; --json always has them)"},
    {0}};

int cmd_list(int argc, char **argv)
{
    int as_json = 0, mode = DECODE_BUDGET, nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "list", list_table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, list_help_head, list_table, 14, NULL); return EXIT_OK;
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
