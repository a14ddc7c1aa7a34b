/* The inputs users have: a cubin, a fatbin file, a host ELF carrying
 * fatbins (discover.c finds them), or an "ar" archive of cubins and host
 * objects (a static library).  Each becomes a list of labelled images;
 * an image is decompressed and opened only when asked for, and given back
 * when done with, so memory follows one image, not the file. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fatbin file or fatbin archive member: containers back to back. */
static int fatbin_blob(cudw_input *in, const uint8_t *data, size_t size, const char *owner, const char *member)
{
    cudw_fatbin *fb;
    int rc = cudw_fatbin_parse(data, size, owner, &fb);
    if (rc) {
        if (!fb)
            return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        in->err = *cudw_fatbin_error(fb);
        cudw_fatbin_close(fb);
        return rc;
    }
    size_t from = in->ncons;
    if ((rc = input_split_blob(in, fb, NULL)))
        return rc;
    for (size_t c = from; c < in->ncons; c++) {
        in->cons[c].pub.owner = owner;
        in->cons[c].pub.member = member;
    }
    return input_con_images(in, from);
}

/* Every member that is a cubin, a host ELF or a fatbin; other members
 * (host objects without device code, text) add nothing. */
static int archive_images(cudw_input *in)
{
    ar_member m;
    memset(&m, 0, sizeof m);
    uint64_t pos = 0;
    size_t index = 0;
    int r;
    while ((r = ar_next(in->map, in->map_size, &pos, &m)) == 0) {
        index++;
        /* a name the archive holds twice gets its position too */
        int dup = 0;
        for (size_t i = 0; i < in->nimages && !dup; i++)
            dup = in->images[i].member && !strcmp(in->images[i].member, m.name);
        char *member = input_strdup(in, m.name);
        size_t n = strlen(in->path) + strlen(m.name) + 32;
        char *owner = arena_alloc(&in->names, n);
        if (!member || !owner)
            return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        if (dup)
            snprintf(owner, n, "%s(%s@%zu)", in->path, m.name, index);
        else
            snprintf(owner, n, "%s(%s)", in->path, m.name);
        if (m.size >= 4 && ld32(m.data) == 0xBA55ED50u) {
            int rc = fatbin_blob(in, m.data, m.size, owner, member);
            if (rc)
                return rc;
            continue;
        }
        if (m.size < 4 || memcmp(m.data, "\x7f" "ELF", 4))
            continue;
        cudw_file *f;
        int rc = file_open_mem_any(&f, m.data, m.size, owner);
        cudw_file **nm = vec_room(in->members, &in->capmembers, in->nmembers, sizeof *nm, 16);
        if (!nm) {
            cudw_close(f);
            return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        }
        in->members = nm;
        in->members[in->nmembers++] = f;
        if (rc) {
            if (f)
                in->err = *cudw_last_error(f);
            else
                input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            return rc;
        }
        rc = cudw_header(f)->machine == 190 ? input_cubin_image(in, f, owner, member)
                                             : input_host_containers(in, f, owner, member);
        if (rc)
            return rc;
    }
    if (r < 0)
        return input_fail(in, CUDW_E_BAD_OFFSET, "archive", m.error_offset, "ar member header", "%s", m.error);
    if (!in->nimages)
        return input_fail(in, CUDW_E_NOT_FOUND, NULL, 0, "input",
                          "no CUDA device code in the archive: no member is a cubin, a fatbin or a host object with one");
    return CUDW_OK;
}

static int map_file(cudw_input *in, int fd, const struct stat *st)
{
    void *m = S_ISREG(st->st_mode) && st->st_size ? mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                                                   : MAP_FAILED;
    int e = errno;
    close(fd);
    if (m == MAP_FAILED)
        return input_fail(in, CUDW_E_IO, NULL, 0, "mmap", "%s", strerror(e));
    in->map = in->drop_base = m;
    in->map_size = in->drop_len = (size_t)st->st_size;
    return CUDW_OK;
}

/* PTX opens with .version (after comments at most). */
static int has_version(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i++)
        if (p[i] == '.' && !memcmp(p + i, ".version", 8))
            return 1;
    return 0;
}

/* Printable text throughout (UTF-8 bytes allowed): what a source file is. */
static int is_text(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t' && p[i] != '\r' && p[i] != '\f')
            return 0;
    return n > 0;
}

/* What a file that is neither ELF nor fatbin is, in words a user can act
 * on: LTO IR (nvcc -dlto's .ltoir: NVVM's magic 0x7f4e43ed), PTX text, or
 * neither. */
static void not_elf_detail(cudw_input *in, const uint8_t *head, size_t got)
{
    char *d = in->err.detail;
    size_t n = sizeof in->err.detail;
    if (got >= 4 && ld32(head) == 0x7f4e43edu)
        snprintf(d, n, "LTO IR (NVVM IR, magic 0x7f4e43ed, as nvcc -dlto writes it): not decoded; cudwarf reads "
                       "cubins, fatbins, host ELFs and archives");
    else if (has_version(head, got))
        snprintf(d, n, "PTX text, not an ELF file: its line table is read by `cudwarf ptx-lines FILE.ptx`");
    else if (is_text(head, got))
        snprintf(d, n, "a text file, not an ELF file or a fatbin (a CUDA source? `nvcc -cubin -lineinfo` "
                       "builds a cubin of it)");
    else
        snprintf(d, n, "neither an ELF file nor a fatbin (no \\x7fELF, no 0xba55ed50)");
}

int cudw_input_open(cudw_input **out, const char *path)
{
    cudw_input *in = calloc(1, sizeof *in);
    *out = in;
    if (!in)
        return CUDW_E_NOMEM;
    in->drops = input_drops_new();
    if (!(in->path = strdup(path)))
        return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
    uint8_t head[512] = {0}; /* the magics, and enough to tell text (not_elf_detail) */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return input_fail(in, CUDW_E_IO, NULL, 0, "open", "%s", strerror(errno));
    ssize_t got = read(fd, head, sizeof head);
    struct stat st;
    if (got < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return input_fail(in, CUDW_E_IO, NULL, 0, "read", "%s", strerror(e));
    }
    int archive = got >= 8 && ar_is_archive(head, (size_t)got);
    if (got >= 8 && !memcmp(head, "!<thin>\n", 8)) {
        close(fd);
        return input_fail(in, CUDW_E_UNSUPPORTED, NULL, 0, "input", "a thin archive (its members live outside it)");
    }
    if (archive || (got >= 4 && ld32(head) == 0xBA55ED50u)) {
        in->type = archive ? CUDW_INPUT_ARCHIVE : CUDW_INPUT_FATBIN;
        int rc = map_file(in, fd, &st);
        if (rc)
            return rc;
        return archive ? archive_images(in) : fatbin_blob(in, in->map, in->map_size, in->path, NULL);
    }
    close(fd);
    int rc = file_open_any(&in->host, path);
    if (rc) {
        if (in->host)
            in->err = *cudw_last_error(in->host);
        else
            input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        if (rc == CUDW_E_NOT_ELF && st.st_size > 0)
            not_elf_detail(in, head, (size_t)got);
        return rc;
    }
    if (cudw_header(in->host)->machine == 190) {
        in->type = CUDW_INPUT_CUBIN;
        return input_cubin_image(in, in->host, in->path, NULL);
    }
    in->type = CUDW_INPUT_HOST;
    in->drop_base = in->host->map;
    in->drop_len = in->host->map_size;
    return input_host_containers(in, in->host, in->path, NULL);
}

int cudw_input_type(const cudw_input *in) { return in->type; }
const cudw_error *cudw_input_error(const cudw_input *in) { return &in->err; }
size_t cudw_input_count(const cudw_input *in) { return in->nimages; }
size_t cudw_input_container_count(const cudw_input *in) { return in->ncons; }

const cudw_input_image *cudw_input_peek(const cudw_input *in, size_t i)
{
    return i < in->nimages ? &in->images[i] : NULL;
}

const cudw_input_container *cudw_input_container_get(const cudw_input *in, size_t i)
{
    return i < in->ncons ? &in->cons[i].pub : NULL;
}

const cudw_fatbin *cudw_input_fatbin(const cudw_input *in) { return in->ncons ? in->cons[0].fb : NULL; }

/* What cudw_image_close needs beyond the public part. */
typedef struct image_impl {
    cudw_image pub;
    const cudw_input *in;
    uint8_t *owned;           /* the decompressed buffer */
    const uint8_t *payload;   /* stored bytes in our mapping, for input_drop */
    size_t payload_size;
} image_impl;

int cudw_input_load(const cudw_input *in, size_t i, cudw_image **out)
{
    image_impl *x = calloc(1, sizeof *x);
    *out = x ? &x->pub : NULL;
    if (!x)
        return CUDW_E_NOMEM;
    cudw_image *im = &x->pub;
    x->in = in;
    if (i >= in->nimages) {
        im->err.code = CUDW_E_ARG;
        im->err.what = "input";
        snprintf(im->err.detail, sizeof im->err.detail, "no image %zu (the input has %zu)", i, in->nimages);
        return CUDW_E_ARG;
    }
    const input_where *w = &in->where[i];
    im->info = &in->images[i];
    if (w->con == NO_CON) {
        im->data = w->bytes;
        im->size = w->size;
    } else {
        const cudw_fatbin_entry *e = cudw_fatbin_get(in->cons[w->con].fb, w->entry);
        x->payload = e->header; /* from the header: it was read too */
        x->payload_size = (size_t)(e->payload - e->header) + (size_t)e->stored_size;
        int rc = fatbin_entry_load(e, &x->owned, &im->data, &im->size, &im->err);
        if (rc)
            return rc;
        if (x->owned) { /* the compressed bytes are done with */
            input_drop(in, x->payload, x->payload_size);
            x->payload = NULL;
        }
    }
    if (im->info->kind != CUDW_FATBIN_ELF)
        return CUDW_OK;
    int rc = cudw_open_mem(&im->elf, im->data, im->size, im->info->label);
    if (rc) {
        if (im->elf)
            im->err = *cudw_last_error(im->elf);
        else
            im->err.code = rc;
        return rc;
    }
    return CUDW_OK;
}

void cudw_image_close(cudw_image *im)
{
    if (!im)
        return;
    image_impl *x = (image_impl *)im;
    cudw_close(im->elf);
    free(x->owned);
    if (x->payload)
        input_drop(x->in, x->payload, x->payload_size);
    free(x);
}

int cudw_input_image_get(cudw_input *in, size_t i, const cudw_input_image **out)
{
    if (i >= in->nimages)
        return input_fail(in, CUDW_E_ARG, NULL, 0, "input", "no image %zu (the input has %zu)", i, in->nimages);
    cudw_input_image *info = &in->images[i];
    input_where *w = &in->where[i];
    *out = info;
    if (w->shared) { /* a cubin: the handle opened with the input */
        info->elf = w->shared;
        info->data = w->bytes;
        info->size = w->size;
        return CUDW_OK;
    }
    if (!w->got) {
        cudw_image *im;
        int rc = cudw_input_load(in, i, &im);
        if (rc) {
            if (im)
                in->err = im->err;
            else
                input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
            cudw_image_close(im);
            return rc;
        }
        w->got = im;
    }
    info->elf = w->got->elf;
    info->data = w->got->data;
    info->size = w->got->size;
    return CUDW_OK;
}

void cudw_input_image_release(cudw_input *in, size_t i)
{
    if (i >= in->nimages || !in->where[i].got)
        return;
    cudw_image_close(in->where[i].got);
    in->where[i].got = NULL;
    in->images[i].elf = NULL;
    in->images[i].data = NULL;
    in->images[i].size = 0;
}

int cudw_sm_parse(const char *text, unsigned *sm, char *variant)
{
    const char *p = text;
    if (!strncmp(p, "sm_", 3))
        p += 3;
    else if (!strncmp(p, "compute_", 8))
        p += 8;
    char *end;
    if (*p < '0' || *p > '9')
        return CUDW_E_ARG;
    unsigned long v = strtoul(p, &end, 10);
    if (!v || v > 999 || (*end && ((*end != 'a' && *end != 'f') || end[1])))
        return CUDW_E_ARG;
    *sm = (unsigned)v;
    *variant = *end;
    return CUDW_OK;
}

int cudw_input_image_is(const cudw_input_image *im, unsigned sm, char variant)
{
    if (im->sm != sm)
        return 0;
    return !im->entry || im->variant == variant;
}

void cudw_input_close(cudw_input *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nimages; i++)
        cudw_image_close(in->where[i].got);
    for (size_t i = 0; i < in->nmembers; i++)
        cudw_close(in->members[i]);
    free(in->members);
    for (size_t c = 0; c < in->ncons; c++)
        if (in->cons[c].owns_fb)
            cudw_fatbin_close(in->cons[c].fb);
    free(in->cons);
    free(in->images);
    free(in->where);
    cudw_close(in->host);
    if (in->map)
        munmap((void *)(uintptr_t)in->map, in->map_size);
    arena_free_all(&in->names);
    input_drops_free(in->drops);
    free(in->path);
    free(in);
}

/* the name of 0.1 */
void cudw_image_free(cudw_image *im) { cudw_image_close(im); }
