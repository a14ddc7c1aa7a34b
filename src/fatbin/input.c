/* The inputs users have: a cubin, a fatbin file, or a host ELF carrying
 * fatbins in .nv_fatbin / __nv_relfatbin.  Each becomes a list of images;
 * ELF images are decompressed and opened only when asked for. */
#include "../internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct blob {
    const uint8_t *data;
    size_t size;
    cudw_fatbin *fb;
} blob;

struct cudw_input {
    int type;
    char *path;
    cudw_file *host;          /* cubin or host ELF */
    const uint8_t *map;       /* fatbin files */
    size_t map_size;
    blob *blobs;              /* one per fatbin section (or the fatbin file) */
    size_t nblobs;
    cudw_input_image *images;
    size_t nimages;
    size_t *image_blob;       /* blob of image i */
    size_t *image_entry;      /* entry of image i in its blob */
    cudw_error err;
};

static int in_fail(cudw_input *in, int code, const char *section, uint64_t off, const char *what,
                   const char *detail)
{
    in->err.code = code;
    in->err.offset = off;
    in->err.what = what;
    snprintf(in->err.section, sizeof in->err.section, "%s", section ? section : "");
    snprintf(in->err.detail, sizeof in->err.detail, "%s", detail);
    return code;
}

static int add_blob(cudw_input *in, const uint8_t *data, size_t size, const char *section)
{
    blob *n = realloc(in->blobs, (in->nblobs + 1) * sizeof *n);
    if (!n)
        return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
    in->blobs = n;
    blob *b = &in->blobs[in->nblobs++];
    b->data = data;
    b->size = size;
    int rc = cudw_fatbin_parse(data, size, in->path, &b->fb);
    if (rc) {
        if (!b->fb)
            return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        in->err = *cudw_fatbin_error(b->fb);
        /* name the host section the fatbin sits in */
        snprintf(in->err.section, sizeof in->err.section, "%s", section ? section : "fatbin");
        return rc;
    }
    return CUDW_OK;
}

static int list_images(cudw_input *in)
{
    size_t total = 0;
    for (size_t b = 0; b < in->nblobs; b++)
        total += cudw_fatbin_count(in->blobs[b].fb);
    in->images = calloc(total ? total : 1, sizeof *in->images);
    in->image_blob = calloc(total ? total : 1, sizeof *in->image_blob);
    in->image_entry = calloc(total ? total : 1, sizeof *in->image_entry);
    if (!in->images || !in->image_blob || !in->image_entry)
        return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
    size_t k = 0;
    for (size_t b = 0; b < in->nblobs; b++) {
        for (size_t i = 0; i < cudw_fatbin_count(in->blobs[b].fb); i++, k++) {
            const cudw_fatbin_entry *e = cudw_fatbin_get(in->blobs[b].fb, i);
            cudw_input_image *im = &in->images[k];
            im->kind = e->kind;
            im->entry = e;
            in->image_blob[k] = b;
            in->image_entry[k] = i;
            char name[64] = "";
            if (e->name)
                snprintf(name, sizeof name, " '%.*s'", (int)(e->name_length < 48 ? e->name_length : 48), e->name);
            /* containers are numbered across all fatbin sections */
            unsigned container = e->container;
            for (size_t pb = 0; pb < b; pb++) {
                size_t c = cudw_fatbin_count(in->blobs[pb].fb);
                if (c)
                    container += cudw_fatbin_get(in->blobs[pb].fb, c - 1)->container + 1;
            }
            char kind[16];
            const char *kn = cudw_fatbin_kind_name(e->kind);
            if (kn)
                snprintf(kind, sizeof kind, "%s", kn);
            else
                snprintf(kind, sizeof kind, "kind %u", (unsigned)e->kind);
            snprintf(im->label, sizeof im->label, "%s[%u.%u: %s sm_%u%s%s]", in->path, container, e->index, kind, e->sm,
                     cudw_fatbin_variant(e->flags), name);
        }
    }
    in->nimages = total;
    return CUDW_OK;
}

int cudw_input_open(cudw_input **out, const char *path)
{
    cudw_input *in = calloc(1, sizeof *in);
    *out = in;
    if (!in)
        return CUDW_E_NOMEM;
    in->path = strdup(path);
    if (!in->path)
        return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
    uint8_t head[20] = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return in_fail(in, CUDW_E_IO, NULL, 0, "open", strerror(errno));
    ssize_t got = read(fd, head, sizeof head);
    struct stat st;
    if (got < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return in_fail(in, CUDW_E_IO, NULL, 0, "read", strerror(e));
    }
    if (got >= 4 && ld32(head) == 0xBA55ED50u) {
        in->type = CUDW_INPUT_FATBIN;
        void *m = S_ISREG(st.st_mode) && st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                                                     : MAP_FAILED;
        int e = errno;
        close(fd);
        if (m == MAP_FAILED)
            return in_fail(in, CUDW_E_IO, NULL, 0, "mmap", strerror(e));
        in->map = m;
        in->map_size = (size_t)st.st_size;
        int rc = add_blob(in, in->map, in->map_size, NULL);
        return rc ? rc : list_images(in);
    }
    close(fd);
    int rc = cudw_open(&in->host, path);
    if (rc) {
        if (in->host)
            in->err = *cudw_last_error(in->host);
        else
            in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        if (rc == CUDW_E_NOT_ELF && st.st_size > 0)
            snprintf(in->err.detail, sizeof in->err.detail, "neither an ELF file nor a fatbin (no \\x7fELF, no 0xba55ed50)");
        return rc;
    }
    if (cudw_header(in->host)->machine == 190) {
        in->type = CUDW_INPUT_CUBIN;
        in->images = calloc(1, sizeof *in->images);
        if (!in->images)
            return in_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        snprintf(in->images[0].label, sizeof in->images[0].label, "%s", path);
        in->images[0].kind = CUDW_FATBIN_ELF;
        in->images[0].elf = in->host;
        in->nimages = 1;
        return CUDW_OK;
    }
    in->type = CUDW_INPUT_HOST;
    for (unsigned i = 1; i < cudw_section_count(in->host); i++) {
        const cudw_section *s = cudw_section_get(in->host, i);
        if (strcmp(s->name, ".nv_fatbin") && strcmp(s->name, "__nv_relfatbin"))
            continue;
        if (!s->data)
            return in_fail(in, CUDW_E_BAD_OFFSET, s->name, 0, "section", "no bytes in the file");
        if ((rc = add_blob(in, s->data, s->data_size, s->name)))
            return rc;
    }
    if (!in->nblobs)
        return in_fail(in, CUDW_E_NOT_FOUND, NULL, 0, "input",
                       "no CUDA device code: not a cubin (e_machine 190), no .nv_fatbin or __nv_relfatbin section");
    return list_images(in);
}

int cudw_input_type(const cudw_input *in) { return in->type; }
const cudw_error *cudw_input_error(const cudw_input *in) { return &in->err; }
size_t cudw_input_count(const cudw_input *in) { return in->nimages; }

const cudw_input_image *cudw_input_peek(const cudw_input *in, size_t i)
{
    return i < in->nimages ? &in->images[i] : NULL;
}

const cudw_fatbin *cudw_input_fatbin(const cudw_input *in) { return in->nblobs ? in->blobs[0].fb : NULL; }

int cudw_input_image_get(cudw_input *in, size_t i, const cudw_input_image **out)
{
    if (i >= in->nimages)
        return in_fail(in, CUDW_E_ARG, NULL, 0, "input", "no such image");
    cudw_input_image *im = &in->images[i];
    *out = im;
    if (in->type == CUDW_INPUT_CUBIN) {
        im->data = in->host->map;
        im->size = in->host->map_size;
        return CUDW_OK;
    }
    if (im->data)
        return CUDW_OK;
    cudw_fatbin *fb = in->blobs[in->image_blob[i]].fb;
    int rc = cudw_fatbin_image(fb, in->image_entry[i], &im->data, &im->size);
    if (rc) {
        in->err = *cudw_fatbin_error(fb);
        im->data = NULL;
        return rc;
    }
    if (im->kind == CUDW_FATBIN_ELF) {
        rc = cudw_open_mem(&im->elf, im->data, im->size, im->label);
        if (rc) {
            if (im->elf)
                in->err = *cudw_last_error(im->elf);
            cudw_close(im->elf);
            im->elf = NULL;
            im->data = NULL;
            return rc;
        }
    }
    return CUDW_OK;
}

void cudw_input_close(cudw_input *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nimages; i++)
        if (in->images[i].elf && in->images[i].elf != in->host)
            cudw_close(in->images[i].elf);
    for (size_t b = 0; b < in->nblobs; b++)
        cudw_fatbin_close(in->blobs[b].fb);
    free(in->blobs);
    free(in->images);
    free(in->image_blob);
    free(in->image_entry);
    cudw_close(in->host);
    if (in->map)
        munmap((void *)(uintptr_t)in->map, in->map_size);
    free(in->path);
    free(in);
}
