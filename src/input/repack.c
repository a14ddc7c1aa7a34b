/* Rewriting the ELF images of an input (cudw_input_rewrite): a cubin is
 * replaced whole; in a fatbin file or host ELF each container holding a
 * changed image is packed again and put where the old one was.
 *
 *   container:  [16-byte header][entry][entry]...   (fatbin.c draws an entry)
 *   entry:      [header, as it was, sizes updated][payload, padded to 8]
 *
 * A changed ELF entry keeps its compression (zstd, LZ4; stored stays
 * stored): the new image is compressed at the highest level, so it has the
 * best chance of fitting.  Entries of other images are copied as they
 * are.  A fatbin file is its containers back to back (and whatever lies
 * between them, copied): a container may grow.  In a host ELF a container
 * is part of a section the host's code addresses (and of a loadable
 * segment in an executable), so it must fit in its old place; the bytes it
 * no longer needs become zeros, which readers (and the CUDA runtime, which
 * finds each container through its wrapper) skip.  Everything else of the
 * file is streamed from its mapping as it was. */
#include "input.h"

#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

static int rw_fail(cudw_error *err, int code, uint64_t off, const char *what, const char *detail)
{
    memset(err, 0, sizeof *err);
    return err_set(err, code, "fatbin", off, what, "%s", detail);
}

static void put32(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The new payload of entry e for image bytes img (compressed as e was). */
static int pack_payload(const cudw_fatbin_entry *e, const uint8_t *img, size_t n, wbuf *out, uint64_t *stored,
                        cudw_error *err)
{
    if (e->flags & CUDW_FATBIN_ZSTD) {
        size_t cap = ZSTD_compressBound(n);
        uint8_t *buf = malloc(cap);
        if (!buf)
            return rw_fail(err, CUDW_E_NOMEM, e->offset, "fatbin entry", "out of memory");
        size_t got = ZSTD_compress(buf, cap, img, n, ZSTD_maxCLevel());
        if (ZSTD_isError(got)) {
            free(buf);
            return rw_fail(err, CUDW_E_IO, e->offset, "zstd", ZSTD_getErrorName(got));
        }
        wb_put(out, buf, got);
        free(buf);
        *stored = got;
    } else if (e->flags & CUDW_FATBIN_LZ4) {
        if (n > (size_t)LZ4_MAX_INPUT_SIZE)
            return rw_fail(err, CUDW_E_LIMIT, e->offset, "LZ4", "image too large for an LZ4 block");
        int cap = LZ4_compressBound((int)n);
        char *buf = malloc((size_t)cap);
        if (!buf)
            return rw_fail(err, CUDW_E_NOMEM, e->offset, "fatbin entry", "out of memory");
        int got = LZ4_compress_HC((const char *)img, buf, (int)n, cap, LZ4HC_CLEVEL_MAX);
        if (got <= 0) {
            free(buf);
            return rw_fail(err, CUDW_E_IO, e->offset, "LZ4", "compression failed");
        }
        wb_put(out, buf, (size_t)got);
        free(buf);
        *stored = (uint64_t)got;
    } else {
        wb_put(out, img, n);
        *stored = n;
    }
    static const uint8_t zero[8];
    if (*stored % 8)
        wb_put(out, zero, 8 - *stored % 8);
    return out->oom ? rw_fail(err, CUDW_E_NOMEM, e->offset, "fatbin entry", "out of memory") : CUDW_OK;
}

/* Container c of in packed again into out, its ELF images through fn;
 * *changed when an image changed (out is then the new container, else
 * untouched: an unchanged container costs no copy). */
static int repack(cudw_input *in, size_t c, cudw_rewrite_fn fn, void *ctx, wbuf *out, int *changed,
                  cudw_error *err)
{
    const cudw_input_container *con = cudw_input_container_get(in, c);
    *changed = 0;
    uint8_t **nw = calloc(con->nimages ? con->nimages : 1, sizeof *nw);
    size_t *nn = calloc(con->nimages ? con->nimages : 1, sizeof *nn);
    int rc = nw && nn ? CUDW_OK : rw_fail(err, CUDW_E_NOMEM, con->section_offset, "fatbin container", "out of memory");
    for (size_t k = 0; k < con->nimages && rc == CUDW_OK; k++) { /* the new images first */
        const cudw_input_image *im = cudw_input_peek(in, con->first_image + k);
        if (im->kind != CUDW_FATBIN_ELF)
            continue;
        cudw_image *img;
        if (cudw_input_load(in, con->first_image + k, &img) != CUDW_OK) {
            if (img)
                *err = img->err;
            else
                rw_fail(err, CUDW_E_NOMEM, im->entry->offset, "fatbin entry", "out of memory");
            cudw_image_close(img);
            rc = err->code;
            break;
        }
        rc = fn(ctx, im, img->elf, &nw[k], &nn[k], err);
        cudw_image_close(img);
        *changed |= nw[k] != NULL;
    }
    wbuf entries = {0};
    for (size_t k = 0; k < con->nimages && rc == CUDW_OK && *changed; k++) {
        const cudw_fatbin_entry *e = cudw_input_peek(in, con->first_image + k)->entry;
        if (!nw[k]) { /* as it was */
            wb_put(&entries, e->header, e->header_size);
            wb_put(&entries, e->payload, (size_t)e->payload_size);
            continue;
        }
        size_t at = entries.n;
        wb_put(&entries, e->header, e->header_size);
        uint64_t stored = 0;
        rc = pack_payload(e, nw[k], nn[k], &entries, &stored, err);
        if (rc == CUDW_OK && !entries.oom) {
            uint8_t *h = entries.p + at;
            put64(h + 8, entries.n - at - e->header_size);  /* payload size */
            if (e->flags & (CUDW_FATBIN_ZSTD | CUDW_FATBIN_LZ4)) {
                put32(h + 16, stored);                     /* compressed size */
                put64(h + 56, nn[k]);                      /* decompressed size */
            }
        }
    }
    for (size_t k = 0; nw && k < con->nimages; k++)
        free(nw[k]);
    free(nw);
    free(nn);
    if (rc == CUDW_OK && entries.oom)
        rc = rw_fail(err, CUDW_E_NOMEM, con->section_offset, "fatbin container", "out of memory");
    if (rc == CUDW_OK && *changed) {
        uint8_t h[16];
        put32(h, 0xBA55ED50u);
        h[4] = 1, h[5] = 0, h[6] = 16, h[7] = 0;
        put64(h + 8, entries.n);
        wb_put(out, h, 16);
        wb_put(out, entries.p, entries.n);
        if (out->oom)
            rc = rw_fail(err, CUDW_E_NOMEM, con->section_offset, "fatbin container", "out of memory");
    }
    free(entries.p);
    return rc;
}

/* n bytes of the mapping at p to wfn, 4 MiB at a time, each piece's pages
 * given back once written: a 500 MB library streams through in the memory
 * of one piece. */
static int stream(const cudw_input *in, const uint8_t *p, uint64_t n, cudw_write_fn wfn, void *wctx)
{
    while (n) {
        size_t k = n < ((size_t)4 << 20) ? (size_t)n : (size_t)4 << 20;
        if (wfn(wctx, p, k))
            return CUDW_E_IO;
        input_drop(in, p, k);
        p += k;
        n -= k;
    }
    return CUDW_OK;
}

int cudw_input_rewrite(cudw_input *in, cudw_rewrite_fn fn, void *ctx, cudw_write_fn wfn, void *wctx,
                       cudw_error *err)
{
    memset(err, 0, sizeof *err);
    if (in->type == CUDW_INPUT_ARCHIVE)
        return rw_fail(err, CUDW_E_UNSUPPORTED, 0, "archive",
                       "a static library is not rewritten: rewrite the objects, then make the library again");
    if (in->type == CUDW_INPUT_CUBIN) {
        uint8_t *nw = NULL;
        size_t nn = 0;
        int rc = fn(ctx, cudw_input_peek(in, 0), in->host, &nw, &nn, err);
        if (rc == CUDW_OK)
            rc = wfn(wctx, nw ? nw : in->host->map, nw ? nn : in->host->map_size) ? CUDW_E_IO : CUDW_OK;
        free(nw);
        return rc;
    }
    const uint8_t *map = in->type == CUDW_INPUT_FATBIN ? in->map : in->host->map;
    size_t size = in->type == CUDW_INPUT_FATBIN ? in->map_size : in->host->map_size;
    int host = in->type == CUDW_INPUT_HOST;
    uint64_t at = 0; /* streamed up to here */
    int rc = CUDW_OK;
    static const uint8_t zero[4096];
    /* containers in file order (cudw_input lists them in section order, a
     * section's in order, sections in index order: sort by file offset) */
    size_t nc = cudw_input_container_count(in);
    size_t *order = malloc((nc ? nc : 1) * sizeof *order);
    if (!order)
        return rw_fail(err, CUDW_E_NOMEM, 0, "input", "out of memory");
    for (size_t i = 0; i < nc; i++)
        order[i] = i;
    for (size_t i = 1; i < nc; i++) /* insertion sort: they are nearly in order */
        for (size_t k = i; k > 0 && cudw_input_container_get(in, order[k - 1])->file_offset >
                                        cudw_input_container_get(in, order[k])->file_offset; k--) {
            size_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (size_t q = 0; q < nc && rc == CUDW_OK; q++) {
        const cudw_input_container *con = cudw_input_container_get(in, order[q]);
        wbuf nb = {0};
        int changed;
        rc = repack(in, order[q], fn, ctx, &nb, &changed, err);
        if (rc == CUDW_OK && changed) {
            if (host && nb.n > con->size) {
                char d[200];
                snprintf(d, sizeof d, "%s#%u would grow from %llu to %zu bytes: a host ELF keeps its layout "
                         "(rewrite the objects before linking)", con->section ? con->section : "container",
                         con->ordinal, (unsigned long long)con->size, nb.n);
                rc = rw_fail(err, CUDW_E_UNSUPPORTED, con->file_offset, "fatbin container", d);
            } else if (con->file_offset < at) {
                rc = rw_fail(err, CUDW_E_BAD_OFFSET, con->file_offset, "fatbin container", "overlaps another");
            } else {
                if (stream(in, map + at, con->file_offset - at, wfn, wctx) || wfn(wctx, nb.p, nb.n))
                    rc = CUDW_E_IO;
                at = con->file_offset + con->size;
                for (uint64_t pad = host ? con->size - nb.n : 0; pad && rc == CUDW_OK;) {
                    size_t k = pad < sizeof zero ? (size_t)pad : sizeof zero;
                    if (wfn(wctx, zero, k))
                        rc = CUDW_E_IO;
                    pad -= k;
                }
            }
        }
        free(nb.p);
    }
    free(order);
    if (rc == CUDW_OK && at < size)
        rc = stream(in, map + at, size - at, wfn, wctx);
    if (rc == CUDW_E_IO && !err->code)
        rw_fail(err, CUDW_E_IO, at, "output", "write failed");
    return rc;
}
