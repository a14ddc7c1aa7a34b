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

static const char size_help[] =
    "usage: cudwarf size [--by=section|kernel|sm|container] [--sort=size|name] [-n N]\n"
    "                    [--json] [--sm=N] [-j N] FILE...\n"
    "\n"
    "Where the device bytes of a cubin, fatbin, host ELF or archive go.  The\n"
    "unpacked images are broken down by class (code, constant data, DWARF and\n"
    "NVIDIA debug sections, metadata, symbols, relocations, ELF headers; PTX\n"
    "text; LTO IR) and reconciled with the bytes the file stores (compression,\n"
    "fatbin headers, padding), down to the containers' exact size.  Duplicates:\n"
    "images with the same bytes in several places, and kernels with the same\n"
    "code in several images, with the bytes they waste.\n"
    "\n"
    "  --by=WHAT     the table: section (the classes; default), kernel (code\n"
    "                bytes of each .text.NAME, summed over images), sm, container\n"
    "  --sort=KEY    size (largest first; default) or name\n"
    "  -n N          rows of the table before the rest is summed (default 20;\n"
    "                0: all)\n"
    "  --json        one JSON object per file, every row (docs/json.md)\n"
    "  --sm=N        only the images for sm_N (the containers' totals are then\n"
    "                those images' entries)\n"
    "  -j N          load N images at once (default: every core)\n";

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

/* ---- printing ---- */

typedef struct sopts {
    const char *by;
    int n, json;
} sopts;

typedef struct totals {
    uint64_t rows[SIZE_NROWS], unpacked, stored, saved, grown, headers, padding, container_headers, containers;
    size_t images, loaded, compressed;
} totals;

typedef struct names_ctx {
    cudw_input *in;
    irec *rec;
    size_t *kimage;           /* kernel item -> image */
    size_t *kindex;
} names_ctx;

static const char *image_name(void *p, size_t item)
{
    names_ctx *c = p;
    return cudw_input_peek(c->in, item)->label;
}

/* "NAME in IMAGE" (the buffer is reused: print it before the next call) */
static const char *kernel_name(void *p, size_t item)
{
    names_ctx *c = p;
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s in %s", c->rec[c->kimage[item]].k[c->kindex[item]].name,
             cudw_input_peek(c->in, c->kimage[item])->label);
    return buf;
}

static int sort_name; /* --sort=name */

/* ---- one file ---- */

static int printed; /* JSON objects written */

static int size_one(const char *path, const sopts *s, json *j)
{
    cudw_input *in = open_input(path);
    if (!in)
        return EXIT_BAD_INPUT;
    size_t n = cudw_input_count(in), *idx = malloc((n ? n : 1) * sizeof *idx), k = 0;
    irec *rec = calloc(n ? n : 1, sizeof *rec);
    int rc = EXIT_OK;
    if (!idx || !rec) {
        eprintf("%s: %s: out of memory\n", progname, path);
        free(idx);
        free(rec);
        cudw_input_close(in);
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < n; i++)
        if (image_selected(cudw_input_peek(in, i)))
            idx[k++] = i;
    if (sel_sm && n && !k) {
        free(idx);
        rc = select_images(in, path, 0, &idx, &k); /* its message */
        free(idx);
        free(rec);
        cudw_input_close(in);
        return rc ? rc : EXIT_BAD_INPUT;
    }
    if (!n)
        eprintf("%s: %s: note: no CUDA device code (no fatbin container in any section)\n", progname, path);
    sctx c = {{in, idx}, rec};
    rc = jobs_run_cost(k, size_job, image_set_cost, &c);

    /* the totals */
    totals t = {0};
    size_t nk = 0;
    for (size_t q = 0; q < k; q++) {
        const irec *r = &rec[idx[q]];
        t.images++;
        t.loaded += r->loaded;
        t.compressed += r->compressed;
        for (int c2 = 0; c2 < SIZE_NROWS; c2++)
            t.rows[c2] += r->rows[c2];
        t.unpacked += r->unpacked;
        t.stored += r->stored;
        if (r->unpacked >= r->stored)
            t.saved += r->unpacked - r->stored;
        else
            t.grown += r->stored - r->unpacked;
        t.headers += r->header;
        t.padding += r->padding;
        nk += r->nk;
    }
    size_t ncont = cudw_input_container_count(in);
    uint64_t *chead = calloc(ncont ? ncont : 1, sizeof *chead); /* each container's own header */
    for (size_t q = 0; q < ncont && !sel_sm && chead; q++) {
        const cudw_input_container *ct = cudw_input_container_get(in, q);
        uint64_t entries = 0;
        for (size_t m = ct->first_image; m < ct->first_image + ct->nimages; m++) {
            const cudw_fatbin_entry *e = cudw_input_peek(in, m)->entry;
            entries += e->header_size + e->payload_size;
        }
        t.containers += ct->size;
        chead[q] = ct->size - entries;
        t.container_headers += chead[q];
    }
    uint64_t in_file = t.unpacked - t.saved + t.grown + t.headers + t.padding + t.container_headers;
    int type = cudw_input_type(in);

    /* the rows of the table */
    rowset rs = {0};
    int oom = !chead;
    if (!strcmp(s->by, "section")) {
        for (int c2 = 0; c2 < SIZE_NROWS; c2++) {
            row *r = row_get(&rs, size_row_keys[c2]);
            if (!r) {
                oom = 1;
                break;
            }
            r->bytes = t.rows[c2];
        }
    }
    for (size_t q = 0; q < k && !oom && strcmp(s->by, "section"); q++) {
        const cudw_input_image *im = cudw_input_peek(in, idx[q]);
        const irec *r = &rec[idx[q]];
        if (!strcmp(s->by, "kernel")) {
            for (size_t m = 0; m < r->nk && !oom; m++) {
                row *w = row_get(&rs, r->k[m].name);
                if (!w) {
                    oom = 1;
                } else {
                    w->bytes += r->k[m].size;
                    w->count += w->last != idx[q] + 1;
                    w->last = idx[q] + 1;
                }
            }
            continue;
        }
        char key[96];
        if (!strcmp(s->by, "sm")) {
            const char *v = im->variant == 'a' ? "a" : im->variant == 'f' ? "f" : "";
            if (im->kind == CUDW_FATBIN_PTX)
                snprintf(key, sizeof key, "compute_%u%s (PTX)", im->sm, v);
            else if (im->kind == CUDW_FATBIN_NVVM)
                snprintf(key, sizeof key, "sm_%u%s (LTO IR)", im->sm, v);
            else
                snprintf(key, sizeof key, "sm_%u%s", im->sm, v);
        } else if (im->container == (size_t)-1) {
            snprintf(key, sizeof key, "%s", path);
        } else {
            const cudw_input_container *ct = cudw_input_container_get(in, im->container);
            if (ct->section)
                snprintf(key, sizeof key, "%s[%s#%u]", ct->owner, ct->section, ct->ordinal);
            else
                snprintf(key, sizeof key, "%s[%u]", ct->owner, ct->ordinal);
        }
        row *w = row_get(&rs, key);
        if (!w) {
            oom = 1;
            continue;
        }
        w->bytes += r->unpacked;
        w->stored += r->stored + r->header + r->padding;
        w->count++;
        if (!strcmp(s->by, "container") && im->container != (size_t)-1 && chead && !w->last) {
            w->stored += chead[im->container]; /* a container row is the whole container */
            w->last = 1;
        }
    }
    if (!oom && strcmp(s->by, "section")) /* the classes keep their order */
        rows_sort(&rs, sort_name);

    /* duplicates */
    cudw_dup *di = malloc((k ? k : 1) * sizeof *di), *dk = malloc((nk ? nk : 1) * sizeof *dk);
    size_t *kimage = malloc((nk ? nk : 1) * sizeof *kimage), *kindex = malloc((nk ? nk : 1) * sizeof *kindex);
    size_t ndi = 0, ndk = 0;
    long gi = 0, gk = 0;
    cudw_dup_set *grp_i = NULL, *grp_k = NULL;
    uint64_t wi = 0, wk = 0;
    if (!di || !dk || !kimage || !kindex)
        oom = 1;
    for (size_t q = 0; q < k && !oom; q++) {
        const irec *r = &rec[idx[q]];
        if (r->h[0] || r->h[1])
            di[ndi++] = (cudw_dup){{r->h[0], r->h[1]}, r->stored, idx[q]};
        for (size_t m = 0; m < r->nk; m++) {
            if (!r->k[m].size)
                continue;
            kimage[ndk] = idx[q];
            kindex[ndk] = m;
            dk[ndk] = (cudw_dup){{r->k[m].h[0], r->k[m].h[1]}, r->k[m].size, ndk};
            ndk++;
        }
    }
    if (!oom) {
        gi = cudw_dup_sets(di, ndi, &grp_i, &wi);
        gk = cudw_dup_sets(dk, ndk, &grp_k, &wk);
        oom = gi < 0 || gk < 0;
    }
    names_ctx nc = {in, rec, kimage, kindex};

    obuf *o = &out_stdout;
    const char *tname = type == CUDW_INPUT_CUBIN ? "cubin" : type == CUDW_INPUT_FATBIN ? "fatbin"
                        : type == CUDW_INPUT_ARCHIVE ? "archive" : "host ELF";
    if (oom) {
        eprintf("%s: %s: out of memory\n", progname, path);
        rc = EXIT_BAD_INPUT;
    } else if (rc != EXIT_OK) {
        /* an image could not be read (said above): no totals that leave it out */
    } else if (s->json) {
        if (!printed++)
            ob_putc(o, '['); /* the array opens with its first object */
        json_obj(j, NULL);
        json_str(j, "file", path);
        json_str(j, "type", type == CUDW_INPUT_CUBIN ? "cubin" : type == CUDW_INPUT_FATBIN ? "fatbin"
                            : type == CUDW_INPUT_ARCHIVE ? "archive" : "host");
        json_u64(j, "images", t.images);
        json_u64(j, "containers", sel_sm ? 0 : ncont);
        json_obj(j, "unpacked");
        for (int c2 = 0; c2 < SIZE_NROWS; c2++)
            json_u64(j, size_row_keys[c2], t.rows[c2]);
        json_u64(j, "total", t.unpacked);
        json_end_obj(j);
        json_obj(j, "stored");
        json_u64(j, "images", t.stored);
        json_u64(j, "saved_by_compression", t.saved);
        json_u64(j, "grown_by_compression", t.grown);
        json_u64(j, "entry_headers", t.headers);
        json_u64(j, "entry_padding", t.padding);
        json_u64(j, "container_headers", t.container_headers);
        json_u64(j, "total", in_file);
        json_end_obj(j);
        if (type != CUDW_INPUT_CUBIN && !sel_sm)
            json_u64(j, "container_bytes", t.containers);
        json_str(j, "by", s->by);
        json_arr(j, "rows");
        for (size_t q = 0; q < rs.n; q++) {
            json_obj(j, NULL);
            json_str(j, "name", rs.v[q].name);
            json_u64(j, "bytes", rs.v[q].bytes);
            if (strcmp(s->by, "section"))
                json_u64(j, strcmp(s->by, "kernel") ? "images" : "copies", rs.v[q].count);
            if (!strcmp(s->by, "sm") || !strcmp(s->by, "container"))
                json_u64(j, "stored", rs.v[q].stored);
            json_end_obj(j);
        }
        json_end_arr(j);
        dups_json(j, "duplicate_images", di, grp_i, (size_t)gi, image_name, &nc);
        json_u64(j, "duplicate_image_bytes", wi);
        dups_json(j, "duplicate_kernels", dk, grp_k, (size_t)gk, kernel_name, &nc);
        json_u64(j, "duplicate_kernel_bytes", wk);
        json_end_obj(j);
    } else {
        ob_printf(o, "%s: %s, %zu image%s", path, tname, t.images, t.images == 1 ? "" : "s");
        if (type != CUDW_INPUT_CUBIN)
            ob_printf(o, " in %zu container%s", ncont, ncont == 1 ? "" : "s");
        struct stat st;
        if (type != CUDW_INPUT_CUBIN && stat(path, &st) == 0) {
            ob_puts(o, " of a ");
            ob_commas(o, (uint64_t)st.st_size, 0);
            ob_puts(o, "-byte file");
        }
        ob_putc(o, '\n');
        if (!t.images) {
            /* nothing to break down (the note said why) */
        } else if (!strcmp(s->by, "section")) {
            ob_printf(o, "\n%16s%7s  %s\n", "bytes", "%", "unpacked images");
            for (int c2 = 0; c2 < SIZE_NROWS; c2++)
                if (t.rows[c2] || c2 < CUDW_SIZE_NCLASSES)
                    size_line(o, t.rows[c2], t.unpacked, size_class_title(c2), 0);
            size_line(o, t.unpacked, t.unpacked, type == CUDW_INPUT_CUBIN ? "the file" : "the images, unpacked", 0);
            if (type != CUDW_INPUT_CUBIN) {
                ob_printf(o, "\n%16s%7s  %s\n", "bytes", "", "stored in the file");
                size_line(o, t.unpacked, 0, "the images, unpacked", 0);
                char what[96];
                snprintf(what, sizeof what, "saved by compression (%zu of %zu images compressed)", t.compressed,
                         t.images);
                size_line(o, t.saved, 0, what, 1);
                if (t.grown)
                    size_line(o, t.grown, 0, "added by compression (images it made larger)", 0);
                size_line(o, t.headers, 0, "entry headers", 0);
                size_line(o, t.padding, 0, "entry padding (payloads end at a multiple of 8)", 0);
                if (!sel_sm)
                    size_line(o, t.container_headers, 0, "container headers", 0);
                size_line(o, in_file, 0, sel_sm ? "the selected entries" : "the containers", 0);
            }
        } else {
            size_table_text(o, rs.v, rs.n, s->by, s->n, !strcmp(s->by, "kernel") ? t.rows[CUDW_SIZE_CODE] : t.unpacked);
        }
        if (t.images) {
            ob_putc(o, '\n');
            dups_text(o, "images", di, grp_i, (size_t)gi, wi, image_name, &nc);
            dups_text(o, "kernels", dk, grp_k, (size_t)gk, wk, kernel_name, &nc);
        }
    }
    rowset_free(&rs);
    free(chead);
    free(grp_i);
    free(grp_k);
    free(di);
    free(dk);
    free(kimage);
    free(kindex);
    for (size_t i = 0; i < n; i++) {
        for (size_t m = 0; m < rec[i].nk; m++)
            free(rec[i].k[m].name);
        free(rec[i].k);
    }
    free(rec);
    free(idx);
    cudw_input_close(in);
    return rc;
}

int cmd_size(int argc, char **argv)
{
    sopts s = {"section", 20, 0};
    int nfiles = 0;
    static const cli_opt table[] = {{"--json", 0, 0, 1}, {"--by", 0, 1, 2}, {"--sort", 0, 1, 3}, {NULL, 'n', 1, 4}, {0}};
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "size", table)) != OPT_END;) {
        const char *v = a.value;
        char *end;
        long nv;
        switch (id) {
        case OPT_HELP: ob_puts(&out_stdout, size_help); return EXIT_OK;
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
            nv = strtol(v, &end, 10);
            if (*end || end == v || nv < 0 || nv > 1000000000) {
                usage_error("size", "-n takes a number, not '%s'", v);
                return EXIT_USAGE;
            }
            s.n = (int)nv;
            break;
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
