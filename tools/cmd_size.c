/* cudwarf size: where the device bytes of a file go.
 *
 * Every selected image is loaded once (as jobs: -j, the memory budget) and
 * summed into a record: its bytes by class (cudw_image_sizes), its kernels'
 * code (cudw_code_next), hashes of its bytes and of each kernel's code for
 * the duplicates.  The records are then added up three ways:
 *
 *   unpacked  images as they run: ELF bytes by class, PTX text, LTO IR
 *   stored    what the file holds: each entry's header and payload (the
 *             compressed bytes, or the image and its padding to 8), each
 *             container's own header; their sum is the containers' bytes
 *   rows      --by kernel, sm, section (the classes) or container
 *
 * and the first two are reconciled line by line, so the totals add up. */
#include "cli.h"
#include "opts.h"
#include "jobs.h"
#include "size_sets.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char size_help_head[] =
    "usage: cudwarf size [--by=section|kernel|sm|container] [--sort=size|name] [-n N]\n"
    "                    [-C] [--json] [--sm=N] FILE...\n"
    "\n"
    "Where the device bytes of a cubin, fatbin, host ELF or archive go.  The\n"
    "unpacked images are broken down by class (code, constant data, DWARF and\n"
    "NVIDIA debug sections, metadata, symbols, relocations, ELF headers; PTX\n"
    "text; LTO IR) and reconciled with the bytes the file stores (compression,\n"
    "fatbin headers, padding), down to the containers' exact size.  Duplicates:\n"
    "images with the same bytes in several places, and kernels with the same\n"
    "code in several images, with the bytes they waste.\n"
    "\n";

/* ---- one image ---- */

typedef struct kern {
    char *name;
    uint64_t size;
    uint64_t h[2];            /* cudw_dup_hash of its bytes; 0 without */
} kern;


typedef struct irec {
    int loaded;               /* its bytes were read: the class figures are exact */
    uint64_t rows[SIZE_NROWS];     /* unpacked bytes */
    uint64_t unpacked;
    uint64_t stored;          /* image bytes in the file (compressed, or as is) */
    uint64_t header, padding; /* entry header, payload padding */
    int compressed;
    uint64_t h[2];            /* cudw_dup_hash of its bytes; 0 when none were read */
    kern *k;
    size_t nk, ck;
} irec;

typedef struct sctx {
    image_set set;
    irec *rec;                /* by image index */
} sctx;

static int size_job(void *p, size_t k)
{
    sctx *c = p;
    size_t i = c->set.idx[k];
    const cudw_input_image *im = cudw_input_peek(c->set.in, i);
    const cudw_fatbin_entry *e = im->entry;
    irec *r = &c->rec[i];
    int opaque = e && (e->flags & CUDW_FATBIN_ENCODED) && im->kind != CUDW_FATBIN_ELF;
    cudw_image *img = opaque ? NULL : load_or_report(c->set.in, i);
    int rc = img || opaque ? EXIT_OK : EXIT_BAD_INPUT;
    r->compressed = e && (e->flags & (CUDW_FATBIN_ZSTD | CUDW_FATBIN_LZ4));
    if (e) {
        r->header = e->header_size;
        r->stored = e->stored_size;
        if (!r->compressed && img && img->size <= e->payload_size)
            r->stored = img->size; /* the rest is padding */
        r->padding = e->payload_size > r->stored ? e->payload_size - r->stored : 0;
    }
    int slot = im->kind == CUDW_FATBIN_PTX ? ROW_PTX : im->kind == CUDW_FATBIN_NVVM ? ROW_NVVM : ROW_ENTRY_OTHER;
    if (img) {
        r->loaded = 1;
        r->unpacked = img->size;
        cudw_dup_hash(img->data, img->size, r->h);
        if (!e)
            r->stored = img->size; /* a cubin */
        if (img->elf) {
            if (cudw_image_sizes(img->elf, r->rows) != CUDW_OK) {
                eprintf("%s: %s: out of memory\n", progname, im->label);
                rc = EXIT_BAD_INPUT;
            }
            unsigned cur = 0;
            cudw_code_section cs;
            while (cudw_code_next(img->elf, &cur, &cs) == CUDW_OK) {
                kern *nk = keyidx_room(r->k, &r->ck, r->nk, sizeof *nk, 16);
                if (nk)
                    r->k = nk;
                char *name = nk ? strdup(cs.function) : NULL;
                if (!name) {
                    eprintf("%s: %s: out of memory\n", progname, im->label);
                    rc = EXIT_BAD_INPUT;
                    break;
                }
                kern *kk = &r->k[r->nk++];
                *kk = (kern){name, cs.size, {0, 0}};
                if (cs.data)
                    cudw_dup_hash(cs.data, cs.size, kk->h);
            }
        } else {
            r->rows[slot] = img->size;
        }
    } else if (e) { /* not decoded: what the header says */
        r->unpacked = r->compressed ? e->decompressed_size : e->stored_size;
        r->rows[slot] = r->unpacked;
        cudw_dup_hash(e->payload, e->stored_size, r->h);
    }
    cudw_image_close(img);
    return rc;
}

/* ---- one file ---- */

typedef struct sopts {
    const char *by;
    int n, json, demangle;
    int n_given;              /* -n given: it limits the duplicate sets too (else ten) */
} sopts;

typedef struct totals {
    uint64_t rows[SIZE_NROWS], unpacked, stored, saved, grown, headers, padding, container_headers, containers;
    size_t images, loaded, compressed;
} totals;

/* A file's selected images, their records and what size makes of them */
typedef struct sfile {
    const char *path;
    cudw_input *in;
    int type;                 /* CUDW_INPUT_* */
    size_t n, k, *idx;        /* images; the k selected, by index */
    irec *rec;                /* by image index */
    totals t;
    size_t nk;                /* the selected images' kernels */
    size_t ncont;
    uint64_t *chead;          /* each container's own header */
    uint64_t in_file;         /* what the selected entries take in the file */
    rowset rs;                /* --by's rows */
    cudw_dup *di, *dk;        /* images and kernels, hashed */
    size_t *kimage, *kindex;  /* kernel item -> image, kernel in its record */
    dupsets dup_images, dup_kernels;
    int unread;               /* size_job's status: an image could not be read (said) */
    int demangle;             /* -C: the text's kernel names demangled */
    int oom;
} sfile;

/* An image's label; the text's without the file's path the header names
 * ("[.nv_fatbin#424.3: ELF sm_90a]") */
static const char *image_name(void *p, size_t item, int text)
{
    sfile *f = p;
    const char *label = cudw_input_peek(f->in, item)->label;
    size_t n = strlen(f->path);
    return text && !strncmp(label, f->path, n) && label[n] == '[' ? label + n : label;
}

/* "NAME in IMAGE" (the buffer is reused: print it before the next call) */
static const char *kernel_name(void *p, size_t item, int text)
{
    sfile *f = p;
    static char buf[1024];
    const char *name = f->rec[f->kimage[item]].k[f->kindex[item]].name;
    char dem[768];
    size_t need = text && f->demangle ? cudw_demangle(name, dem, sizeof dem) : 0;
    snprintf(buf, sizeof buf, "%s in %s", need && need < sizeof dem ? dem : name, image_name(p, f->kimage[item], text));
    return buf;
}

static int sort_name; /* --sort=name */

/* Open the file, select its images and load them (size_job): EXIT_OK
 * (f->unread says whether every image could be read), or an exit status
 * after a message. */
static int size_load(sfile *f)
{
    if (!(f->in = open_input(f->path)))
        return EXIT_BAD_INPUT;
    f->type = cudw_input_type(f->in);
    f->n = cudw_input_count(f->in);
    f->idx = malloc((f->n ? f->n : 1) * sizeof *f->idx);
    f->rec = calloc(f->n ? f->n : 1, sizeof *f->rec);
    if (!f->idx || !f->rec) {
        eprintf("%s: %s: out of memory\n", progname, f->path);
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < f->n; i++)
        if (image_selected(cudw_input_peek(f->in, i)))
            f->idx[f->k++] = i;
    if (sel_sm && f->n && !f->k) {
        size_t *none = NULL, count = 0;
        int rc = select_images(f->in, f->path, 0, &none, &count); /* its message */
        free(none);
        return rc ? rc : EXIT_BAD_INPUT;
    }
    if (!f->n)
        eprintf("%s: %s: note: no CUDA device code (no fatbin container in any section)\n", progname, f->path);
    f->unread = jobs_run_cost(f->k, size_job, image_set_cost, &(sctx){{f->in, f->idx}, f->rec});
    return EXIT_OK;
}

/* The totals of the selected images, and each container's own header
 * (the containers' bytes less their entries'; not with --sm) */
static void totals_sum(sfile *f)
{
    totals *t = &f->t;
    for (size_t q = 0; q < f->k; q++) {
        const irec *r = &f->rec[f->idx[q]];
        t->images++;
        t->loaded += r->loaded;
        t->compressed += r->compressed;
        for (int c = 0; c < SIZE_NROWS; c++)
            t->rows[c] += r->rows[c];
        t->unpacked += r->unpacked;
        t->stored += r->stored;
        if (r->unpacked >= r->stored)
            t->saved += r->unpacked - r->stored;
        else
            t->grown += r->stored - r->unpacked;
        t->headers += r->header;
        t->padding += r->padding;
        f->nk += r->nk;
    }
    f->ncont = cudw_input_container_count(f->in);
    f->chead = calloc(f->ncont ? f->ncont : 1, sizeof *f->chead);
    f->oom |= !f->chead;
    for (size_t q = 0; q < f->ncont && !sel_sm && f->chead; q++) {
        const cudw_input_container *ct = cudw_input_container_get(f->in, q);
        uint64_t entries = 0;
        for (size_t m = ct->first_image; m < ct->first_image + ct->nimages; m++) {
            const cudw_fatbin_entry *e = cudw_input_peek(f->in, m)->entry;
            entries += e->header_size + e->payload_size;
        }
        t->containers += ct->size;
        f->chead[q] = ct->size - entries;
        t->container_headers += f->chead[q];
    }
    f->in_file = t->unpacked - t->saved + t->grown + t->headers + t->padding + t->container_headers;
}

/* The --by=sm or --by=container row an image adds to */
static void row_key(const sfile *f, const cudw_input_image *im, int by_sm, char *key, size_t n)
{
    const char *v = im->variant == 'a' ? "a" : im->variant == 'f' ? "f" : "";
    if (by_sm && im->kind == CUDW_FATBIN_PTX) {
        snprintf(key, n, "compute_%u%s (PTX)", im->sm, v);
    } else if (by_sm && im->kind == CUDW_FATBIN_NVVM) {
        snprintf(key, n, "sm_%u%s (LTO IR)", im->sm, v);
    } else if (by_sm) {
        snprintf(key, n, "sm_%u%s", im->sm, v);
    } else if (im->container == (size_t)-1) {
        snprintf(key, n, "%s", f->path);
    } else {
        const cudw_input_container *ct = cudw_input_container_get(f->in, im->container);
        if (ct->section)
            snprintf(key, n, "%s[%s#%u]", ct->owner, ct->section, ct->ordinal);
        else
            snprintf(key, n, "%s[%u]", ct->owner, ct->ordinal);
    }
}

/* --by=kernel: each kernel's code summed by name, counting the images
 * that have it (a kernel has two code sections on sm_100+) */
static void rows_by_kernel(sfile *f, size_t image, const irec *r)
{
    for (size_t m = 0; m < r->nk && !f->oom; m++) {
        row *w = row_get(&f->rs, r->k[m].name);
        if (!w) {
            f->oom = 1;
            return;
        }
        w->bytes += r->k[m].size;
        w->count += w->last != image + 1;
        w->last = image + 1;
    }
}

/* --by=sm and --by=container: images' bytes, unpacked and stored; a
 * container's row also has its own header */
static void rows_by_image(sfile *f, const char *by, size_t image, const irec *r)
{
    const cudw_input_image *im = cudw_input_peek(f->in, image);
    char key[96];
    row_key(f, im, !strcmp(by, "sm"), key, sizeof key);
    row *w = row_get(&f->rs, key);
    if (!w) {
        f->oom = 1;
        return;
    }
    w->bytes += r->unpacked;
    w->stored += r->stored + r->header + r->padding;
    w->count++;
    if (!strcmp(by, "container") && im->container != (size_t)-1 && f->chead && !w->last) {
        w->stored += f->chead[im->container]; /* a container row is the whole container */
        w->last = 1;
    }
}

/* The rows of --by: the classes in their order, or the rows summed over
 * the images and sorted */
static void rows_build(sfile *f, const char *by)
{
    if (!strcmp(by, "section")) {
        for (int c = 0; c < SIZE_NROWS && !f->oom; c++) {
            row *r = row_get(&f->rs, size_row_keys[c]);
            if (r)
                r->bytes = f->t.rows[c];
            f->oom |= !r;
        }
        return;
    }
    for (size_t q = 0; q < f->k && !f->oom; q++) {
        if (!strcmp(by, "kernel"))
            rows_by_kernel(f, f->idx[q], &f->rec[f->idx[q]]);
        else
            rows_by_image(f, by, f->idx[q], &f->rec[f->idx[q]]);
    }
    if (!f->oom)
        rows_sort(&f->rs, sort_name);
}

/* The duplicate images (equal bytes) and kernels (equal code) */
static void dups_find(sfile *f)
{
    size_t nk = f->nk ? f->nk : 1, ndi = 0, ndk = 0;
    f->di = malloc((f->k ? f->k : 1) * sizeof *f->di);
    f->dk = malloc(nk * sizeof *f->dk);
    f->kimage = malloc(nk * sizeof *f->kimage);
    f->kindex = malloc(nk * sizeof *f->kindex);
    if (!f->di || !f->dk || !f->kimage || !f->kindex)
        f->oom = 1;
    for (size_t q = 0; q < f->k && !f->oom; q++) {
        const irec *r = &f->rec[f->idx[q]];
        if (r->h[0] || r->h[1])
            f->di[ndi++] = (cudw_dup){{r->h[0], r->h[1]}, r->stored, f->idx[q]};
        for (size_t m = 0; m < r->nk; m++) {
            if (!r->k[m].size)
                continue;
            f->kimage[ndk] = f->idx[q];
            f->kindex[ndk] = m;
            f->dk[ndk] = (cudw_dup){{r->k[m].h[0], r->k[m].h[1]}, r->k[m].size, ndk};
            ndk++;
        }
    }
    if (f->oom)
        return;
    cudw_dup_set *gi = NULL, *gk = NULL;
    uint64_t wi = 0, wk = 0;
    long ni = cudw_dup_sets(f->di, ndi, &gi, &wi), nkk = cudw_dup_sets(f->dk, ndk, &gk, &wk);
    f->dup_images = (dupsets){f->di, gi, ni > 0 ? (size_t)ni : 0, wi, image_name, f};
    f->dup_kernels = (dupsets){f->dk, gk, nkk > 0 ? (size_t)nkk : 0, wk, kernel_name, f};
    f->oom = ni < 0 || nkk < 0;
}

static void sfile_free(sfile *f)
{
    rowset_free(&f->rs);
    free(f->chead);
    free((void *)f->dup_images.g);
    free((void *)f->dup_kernels.g);
    free(f->di);
    free(f->dk);
    free(f->kimage);
    free(f->kindex);
    for (size_t i = 0; f->rec && i < f->n; i++) {
        for (size_t m = 0; m < f->rec[i].nk; m++)
            free(f->rec[i].k[m].name);
        free(f->rec[i].k);
    }
    free(f->rec);
    free(f->idx);
    cudw_input_close(f->in);
}

/* ---- printing, through the emitter (emit.h) ---- */

/* The file and its images: JSON's first keys, the text's first line */
static void file_head(emit *m, const sfile *f)
{
    int cubin = f->type == CUDW_INPUT_CUBIN;
    const char *type = cubin ? "cubin" : f->type == CUDW_INPUT_FATBIN ? "fatbin"
                       : f->type == CUDW_INPUT_ARCHIVE ? "archive" : NULL;
    struct stat st;
    em_obj(m, NULL);
    em_str(m, "file", "", 0, f->path);
    em_str(m, "type", NULL, 0, type ? type : "host");
    em_str(m, NULL, ": ", 0, type ? type : "host ELF");
    em_u64(m, "images", ", ", EM_DEC, f->t.images);
    em_text(m, f->t.images == 1 ? " image" : " images");
    em_u64(m, "containers", NULL, 0, sel_sm ? 0 : f->ncont);
    if (!cubin) {
        em_u64(m, NULL, " in ", EM_DEC, f->ncont);
        em_text(m, f->ncont == 1 ? " container" : " containers");
    }
    if (!cubin && stat(f->path, &st) == 0) {
        em_commas(m, NULL, " of a ", 0, (uint64_t)st.st_size);
        em_text(m, "-byte file");
    }
    em_text(m, "\n");
}

/* The unpacked images by class (the text shows a class beyond the ELF
 * ones only when there are such bytes) */
static void unpacked_print(emit *m, const sfile *f)
{
    const totals *t = &f->t;
    em_text(m, "\n           bytes      %  unpacked images\n");
    em_obj(m, "unpacked");
    for (int c = 0; c < SIZE_NROWS; c++)
        size_field(m, size_row_keys[c], t->rows[c], t->unpacked,
                   t->rows[c] || c < CUDW_SIZE_NCLASSES ? size_class_title(c) : NULL, 0);
    size_field(m, "total", t->unpacked, t->unpacked,
               f->type == CUDW_INPUT_CUBIN ? "the file" : "the images, unpacked", 0);
    em_end_obj(m);
}

/* The bytes the file stores, from the images unpacked down to the
 * containers' */
static void stored_print(emit *m, const sfile *f)
{
    const totals *t = &f->t;
    char what[96];
    snprintf(what, sizeof what, "saved by compression (%zu of %zu images compressed)", t->compressed, t->images);
    em_text(m, "\n           bytes         stored in the file\n");
    size_field(m, NULL, t->unpacked, 0, "the images, unpacked", 0);
    em_obj(m, "stored");
    size_field(m, "images", t->stored, 0, NULL, 0);
    size_field(m, "saved_by_compression", t->saved, 0, what, 1);
    size_field(m, "grown_by_compression", t->grown, 0, t->grown ? "added by compression (images it made larger)" : NULL,
               0);
    size_field(m, "entry_headers", t->headers, 0, "entry headers", 0);
    size_field(m, "entry_padding", t->padding, 0, "entry padding (payloads end at a multiple of 8)", 0);
    size_field(m, "container_headers", t->container_headers, 0, sel_sm ? NULL : "container headers", 0);
    size_field(m, "total", f->in_file, 0, sel_sm ? "the selected entries" : "the containers", 0);
    em_end_obj(m);
}

/* The whole file.  JSON has every part; the text shows the classes and
 * the stored bytes with --by=section (the stored bytes not for a cubin),
 * the rows otherwise, and nothing of a file without images (the note
 * said why). */
static void file_print(emit *m, const sfile *f, const sopts *s)
{
    int section = !strcmp(s->by, "section"), cubin = f->type == CUDW_INPUT_CUBIN, any = f->t.images > 0;
    file_head(m, f);
    if (m->j || (any && section))
        unpacked_print(m, f);
    if (m->j || (any && section && !cubin))
        stored_print(m, f);
    if (!cubin && !sel_sm)
        em_u64(m, "container_bytes", NULL, 0, f->t.containers);
    em_str(m, "by", NULL, 0, s->by);
    if (m->j || (any && !section))
        size_table_print(m, f->rs.v, f->rs.n, s->by, s->n,
                         !strcmp(s->by, "kernel") ? f->t.rows[CUDW_SIZE_CODE] : f->t.unpacked, s->demangle);
    /* the duplicates of what the view counts: images and kernels by
     * section, kernels by kernel (JSON: both, always) */
    int kernel = !strcmp(s->by, "kernel");
    if (m->j || (any && (section || kernel)))
        em_text(m, "\n");
    if (m->j || (any && section))
        dups_print(m, "images", "duplicate_images", "duplicate_image_bytes", &f->dup_images,
                   s->n_given ? (size_t)s->n : 10);
    if (m->j || (any && (section || kernel)))
        dups_print(m, "kernels", "duplicate_kernels", "duplicate_kernel_bytes", &f->dup_kernels,
                   s->n_given ? (size_t)s->n : 10);
    em_end_obj(m);
}

static int printed; /* JSON objects written */

static int size_one(const char *path, const sopts *s, json *j)
{
    sfile f = {.path = path, .demangle = s->demangle};
    int rc = size_load(&f);
    if (rc == EXIT_OK) {
        totals_sum(&f);
        rows_build(&f, s->by);
        dups_find(&f);
        if (f.oom) {
            eprintf("%s: %s: out of memory\n", progname, path);
            rc = EXIT_BAD_INPUT;
        } else if (f.unread) { /* an image could not be read (said): no totals that leave it out */
            rc = f.unread;
        } else {
            if (s->json && !printed++)
                ob_putc(&out_stdout, '['); /* the array opens with its first object */
            file_print(&(emit){s->json ? j : NULL, &out_stdout}, &f, s);
        }
    }
    sfile_free(&f);
    return rc;
}

static const cli_opt table[] = {
    {"--by", 0, "=WHAT", 2, "the table: section (the classes; default), kernel (code\n"
                            "bytes of each .text.NAME, summed over images), sm, container"},
    {"--sort", 0, "=KEY", 3, "size (largest first; default) or name"},
    {NULL, 'n', "N", 4, "rows of the table before the rest is summed (default 20;\n"
                        "0: all), and of each duplicates list (default 10)"},
    {NULL, 'C', NULL, 5, "demangle kernel names (JSON: \"demangled\" beside \"name\")"},
    {"--json", 0, NULL, 1, "one JSON object per file, every row (docs/json.md)"},
    {"--sm", 0, "=N", OPT_GLOBAL, "only the images for sm_N (the containers' totals are then\n"
                                  "those images' entries)"},
    {0}};

int cmd_size(int argc, char **argv)
{
    sopts s = {"section", 20, 0};
    int nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "size", table)) != OPT_END;) {
        const char *v = a.value;
        uint64_t nv;
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, size_help_head, table, 16, NULL); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)v; break; /* the operands, in order, over argv */
        case 1: s.json = 1; break;
        case 2:
            if (strcmp(v, "section") && strcmp(v, "kernel") && strcmp(v, "sm") && strcmp(v, "container")) {
                usage_error("size", "--by takes section, kernel, sm or container, not '%s'", v);
                return EXIT_USAGE;
            }
            s.by = v;
            break;
        case 3:
            if (strcmp(v, "size") && strcmp(v, "name")) {
                usage_error("size", "--sort takes size or name, not '%s'", v);
                return EXIT_USAGE;
            }
            sort_name = !strcmp(v, "name");
            break;
        case 4:
            if (opt_number(v, 0, 1000000000, &nv)) {
                usage_error("size", "-n takes a number, not '%s'", v);
                return EXIT_USAGE;
            }
            s.n = (int)nv;
            s.n_given = 1;
            break;
        case 5: s.demangle = 1; break;
        }
    }
    if (!nfiles) {
        usage_error("size", "no input file");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    if (s.json)
        json_enter_arr(&j); /* "[" comes with the first object: a failure prints nothing */
    int rc = EXIT_OK;
    for (int i = 0; i < nfiles; i++)
        if (size_one(argv[i], &s, &j) != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    if (s.json && printed)
        ob_puts(&out_stdout, "]\n");
    else if (s.json && rc == EXIT_OK)
        ob_puts(&out_stdout, "[]\n");
    return rc;
}
