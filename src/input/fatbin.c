/* Fatbin containers and their entries.
 *
 *   container: u32 magic 0xBA55ED50 | u16 version 1 | u16 header size 16 |
 *              u64 bytes of entries that follow
 *   entry:     +0  u16 kind (1 PTX, 2 ELF)   +2  u16 0x0101
 *              +4  u32 header size (64, 72, 80, 112, ...)
 *              +8  u64 payload size (padded to 8)
 *              +16 u32 compressed size (0: stored)  +20 u32 options offset
 *              +24 u16 minor, u16 major          +28 u32 SM
 *              +32 u32 name offset, u32 name length (the --ident)
 *              +40 u64 flags (0x1 64-bit, 0x2 debug, 0x10 Linux,
 *                              0x2000 LZ4, 0x8000 zstd)
 *              +48 u64 (0)                        +56 u64 decompressed size
 *              [name] [options: u32 data offset, u32 data length, data]
 *              payload at entry + header size
 * Several containers sit back to back in a host section, 8-aligned and
 * zero-padded between (docs/fatbin.md). */
#include "../internal.h"

#include <lz4.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <zstd.h>

struct cudw_fatbin {
    const uint8_t *blob;
    size_t size;
    char *name;
    cudw_fatbin_entry *entries;
    size_t n, cap;
    uint8_t **images;     /* decompressed buffers, per entry */
    char **texts;         /* per entry: its name and options, copied out of the blob */
    size_t captexts;
    fatbin_con *cons;     /* each container's offset and size in the blob */
    size_t ncon, capcon;
    cudw_error err;
};

static int set_verr(cudw_error *err, int code, uint64_t off, const char *what, const char *fmt, va_list ap)
    CUDW_PRINTF(5, 0);
static int set_verr(cudw_error *err, int code, uint64_t off, const char *what, const char *fmt, va_list ap)
{
    return err_vset(err, code, "fatbin", off, what, fmt, ap);
}

static int set_err(cudw_error *err, int code, uint64_t off, const char *what, const char *fmt, ...) CUDW_PRINTF(5, 6);
static int set_err(cudw_error *err, int code, uint64_t off, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verr(err, code, off, what, fmt, ap);
    va_end(ap);
    return code;
}

static int fb_fail(cudw_fatbin *fb, int code, uint64_t off, const char *what, const char *fmt, ...)
    CUDW_PRINTF(5, 6);
static int fb_fail(cudw_fatbin *fb, int code, uint64_t off, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verr(&fb->err, code, off, what, fmt, ap);
    va_end(ap);
    return code;
}

/* Keeps e, its name and options copied out of the blob: a reader of a
 * 500 MB library gives the blob's pages back as it goes, and must not
 * touch them again to print a name. */
static int add(cudw_fatbin *fb, const cudw_fatbin_entry *e)
{
    /* first 1: a library has 24,000 one-entry containers */
    cudw_fatbin_entry *n = vec_room(fb->entries, &fb->cap, fb->n, sizeof *n, 1);
    if (n)
        fb->entries = n;
    char **t = n ? vec_room(fb->texts, &fb->captexts, fb->n, sizeof *t, 1) : NULL;
    if (!t)
        return fb_fail(fb, CUDW_E_NOMEM, e->offset, "fatbin entry", "out of memory");
    fb->texts = t;
    cudw_fatbin_entry *d = &fb->entries[fb->n];
    *d = *e;
    fb->texts[fb->n] = NULL;
    if (e->name || e->options) {
        char *c = malloc((size_t)e->name_length + 1 + e->options_length);
        if (!c)
            return fb_fail(fb, CUDW_E_NOMEM, e->offset, "fatbin entry", "out of memory");
        if (e->name) {
            memcpy(c, e->name, e->name_length);
            c[e->name_length] = 0;
            d->name = c;
        }
        if (e->options) {
            memcpy(c + e->name_length + 1, e->options, e->options_length);
            d->options = (const uint8_t *)c + e->name_length + 1;
        }
        fb->texts[fb->n] = c;
    }
    fb->n++;
    return CUDW_OK;
}

static int parse_entry(cudw_fatbin *fb, uint64_t at, uint64_t end, unsigned container, unsigned index,
                       uint64_t *next)
{
    const uint8_t *d = fb->blob, *h = d + at;
    if (end - at < 64)
        return fb_fail(fb, CUDW_E_TRUNCATED, at, "fatbin entry header",
                       "%llu bytes left in the container, an entry header needs 64", (unsigned long long)(end - at));
    cudw_fatbin_entry e = {0};
    e.container = container;
    e.index = index;
    e.offset = at;
    e.header = h;
    e.kind = ld16(h);
    e.field2 = ld16(h + 2);
    e.header_size = ld32(h + 4);
    e.payload_size = ld64(h + 8);
    e.compressed_size = ld32(h + 16);
    e.options_offset = ld32(h + 20);
    e.minor = ld16(h + 24);
    e.major = ld16(h + 26);
    e.sm = ld32(h + 28);
    e.name_length = ld32(h + 36);
    uint32_t name_off = ld32(h + 32);
    e.flags = ld64(h + 40);
    e.field48 = ld64(h + 48);
    e.decompressed_size = ld64(h + 56);
    if (e.header_size < 64 || e.header_size > end - at)
        return fb_fail(fb, CUDW_E_BAD_OFFSET, at + 4, "fatbin entry header",
                       "header size %u (at least 64, at most the %llu bytes left)", e.header_size,
                       (unsigned long long)(end - at));
    if (e.payload_size > end - at - e.header_size)
        return fb_fail(fb, CUDW_E_TRUNCATED, at + 8, "fatbin entry header",
                       "payload of %llu bytes runs past the container's end (%llu bytes left)",
                       (unsigned long long)e.payload_size, (unsigned long long)(end - at - e.header_size));
    if (name_off || e.name_length) {
        if (name_off > e.header_size || e.name_length > e.header_size - name_off)
            return fb_fail(fb, CUDW_E_BAD_OFFSET, at + 32, "fatbin entry header",
                           "name at +%u (%u bytes) lies outside the %u-byte header", name_off, e.name_length,
                           e.header_size);
        const char *nm = (const char *)h + name_off;
        /* the stored length may count padding NULs: keep the text */
        while (e.name_length && nm[e.name_length - 1] == 0)
            e.name_length--;
        e.name = nm;
    }
    if (e.options_offset) {
        if (e.options_offset > e.header_size || e.header_size - e.options_offset < 8)
            return fb_fail(fb, CUDW_E_BAD_OFFSET, at + 20, "fatbin entry header",
                           "options at +%u lie outside the %u-byte header", e.options_offset, e.header_size);
        uint32_t doff = ld32(h + e.options_offset), dlen = ld32(h + e.options_offset + 4);
        if (doff > e.header_size || dlen > e.header_size - doff)
            return fb_fail(fb, CUDW_E_BAD_OFFSET, at + e.options_offset, "fatbin options",
                           "data at +%u (%u bytes) lies outside the %u-byte header", doff, dlen, e.header_size);
        e.options = h + doff;
        e.options_length = dlen;
    }
    e.payload = h + e.header_size;
    e.stored_size = e.payload_size;
    if (e.flags & (CUDW_FATBIN_LZ4 | CUDW_FATBIN_ZSTD)) {
        if (e.compressed_size > e.payload_size)
            return fb_fail(fb, CUDW_E_BAD_OFFSET, at + 16, "fatbin entry header",
                           "compressed size %u exceeds the payload (%llu bytes)", e.compressed_size,
                           (unsigned long long)e.payload_size);
        e.stored_size = e.compressed_size;
    }
    *next = at + e.header_size + e.payload_size;
    return add(fb, &e);
}

int cudw_fatbin_parse(const void *blob, size_t size, const char *name, cudw_fatbin **out)
{
    cudw_fatbin *fb = calloc(1, sizeof *fb);
    *out = fb;
    if (!fb)
        return CUDW_E_NOMEM;
    fb->blob = blob;
    fb->size = size;
    fb->name = strdup(name ? name : "<memory>");
    const uint8_t *d = blob;
    uint64_t pos = 0;
    unsigned container = 0;
    int rc;
    while (pos < size) {
        /* zero padding between containers */
        if (d[pos] == 0) {
            pos++;
            continue;
        }
        if (size - pos < 16)
            return fb_fail(fb, CUDW_E_TRUNCATED, pos, "fatbin header", "%zu bytes left, a header needs 16",
                           (size_t)(size - pos));
        if (ld32(d + pos) != 0xBA55ED50u)
            return fb_fail(fb, CUDW_E_NOT_ELF, pos, "fatbin header", "magic 0x%08x (expected 0xba55ed50)",
                           ld32(d + pos));
        uint16_t hsize = ld16(d + pos + 6);
        uint64_t psize = ld64(d + pos + 8);
        if (hsize < 16 || hsize > size - pos)
            return fb_fail(fb, CUDW_E_BAD_OFFSET, pos + 6, "fatbin header", "header size %u", hsize);
        if (psize > size - pos - hsize)
            return fb_fail(fb, CUDW_E_TRUNCATED, pos + 8, "fatbin header",
                           "%llu bytes of entries announced, %llu left", (unsigned long long)psize,
                           (unsigned long long)(size - pos - hsize));
        uint64_t at = pos + hsize, end = at + psize;
        unsigned index = 0;
        fatbin_con *c = vec_room(fb->cons, &fb->capcon, fb->ncon, sizeof *c, 1);
        if (!c)
            return fb_fail(fb, CUDW_E_NOMEM, pos, "fatbin", "out of memory");
        fb->cons = c;
        c[fb->ncon++] = (fatbin_con){pos, end - pos};
        while (at < end) {
            if ((rc = parse_entry(fb, at, end, container, index++, &at)))
                return rc;
        }
        pos = end;
        container++;
    }
    if (fb->n && !(fb->images = calloc(fb->n, sizeof *fb->images)))
        return fb_fail(fb, CUDW_E_NOMEM, 0, "fatbin", "out of memory");
    return CUDW_OK;
}

const cudw_error *cudw_fatbin_error(const cudw_fatbin *fb) { return &fb->err; }

size_t fatbin_containers(const cudw_fatbin *fb, const fatbin_con **cons)
{
    *cons = fb->cons;
    return fb->ncon;
}
size_t cudw_fatbin_count(const cudw_fatbin *fb) { return fb->n; }
const cudw_fatbin_entry *cudw_fatbin_get(const cudw_fatbin *fb, size_t i) { return i < fb->n ? &fb->entries[i] : NULL; }

/* The ELF's own extent: section and program header tables and section
 * bytes; payloads are padded to 8. */
static size_t elf_extent(const uint8_t *p, size_t n)
{
    if (n < 64 || memcmp(p, "\x7f" "ELF", 4) || p[4] != 2)
        return n;
    uint64_t shoff = ld64(p + 40), phoff = ld64(p + 32);
    uint16_t shnum = ld16(p + 60), phnum = ld16(p + 56);
    uint64_t end = 64;
    if (phoff && phoff + (uint64_t)phnum * 56 > end)
        end = phoff + (uint64_t)phnum * 56;
    if (shoff && shoff <= n && shoff + (uint64_t)shnum * 64 <= n) {
        if (shoff + (uint64_t)shnum * 64 > end)
            end = shoff + (uint64_t)shnum * 64;
        for (uint16_t i = 0; i < shnum; i++) {
            const uint8_t *s = p + shoff + (uint64_t)i * 64;
            uint64_t off = ld64(s + 24), sz = ld64(s + 32);
            if (ld32(s + 4) != 8 && off <= n && sz <= n - off && off + sz > end)
                end = off + sz;
        }
    }
    return end < n ? (size_t)end : n;
}

const char *cudw_fatbin_variant(uint64_t flags)
{
    return flags & CUDW_FATBIN_ARCH_SPECIFIC ? "a" : flags & CUDW_FATBIN_FAMILY ? "f" : "";
}

const char *cudw_fatbin_kind_name(unsigned kind)
{
    return kind == CUDW_FATBIN_ELF ? "ELF" : kind == CUDW_FATBIN_PTX ? "PTX" : kind == CUDW_FATBIN_NVVM ? "NVVM" : NULL;
}
/* One zstd context per thread, reused: a library's thousands of small
 * images each paid for a context's allocation and initialisation.  The
 * key's destructor frees it when the thread ends. */
static pthread_key_t zstd_key;
static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;
static void zstd_ctx_free(void *p) { ZSTD_freeDCtx(p); }
static void zstd_key_make(void) { (void)pthread_key_create(&zstd_key, zstd_ctx_free); }

static ZSTD_DCtx *zstd_ctx(void)
{
    (void)pthread_once(&zstd_once, zstd_key_make);
    ZSTD_DCtx *dc = pthread_getspecific(zstd_key);
    if (!dc && (dc = ZSTD_createDCtx()) && pthread_setspecific(zstd_key, dc)) {
        ZSTD_freeDCtx(dc);
        dc = NULL;
    }
    return dc;
}


/* One entry's image, decompressed into a buffer of its own (*owned, which
 * the caller frees) or pointing at the payload.  Touches nothing shared:
 * any number of threads may decode entries of one container at once. */
int fatbin_entry_load(const cudw_fatbin_entry *e, uint8_t **owned, const uint8_t **data, size_t *size,
                      cudw_error *err)
{
    const uint8_t *p = e->payload;
    size_t n = (size_t)e->stored_size;
    *owned = NULL;
    if (e->flags & CUDW_FATBIN_ENCODED)
        return set_err(err, CUDW_E_UNSUPPORTED, e->offset + 40, "fatbin entry",
                       "payload encoded beyond its compression (flag 0x10000, as on compressed LTO IR): not decoded");
    if (e->flags & (CUDW_FATBIN_LZ4 | CUDW_FATBIN_ZSTD)) {
        uint64_t want = e->decompressed_size;
        if (want == 0)
            return set_err(err, CUDW_E_BAD_OFFSET, e->offset + 56, "fatbin entry header",
                           "decompressed size 0 for a compressed entry");
        if (want > CUDW_MAX_IMAGE_SIZE)
            return set_err(err, CUDW_E_LIMIT, e->offset + 56, "fatbin entry header",
                           "decompressed size %llu is over cudwarf's limit of %llu bytes", (unsigned long long)want,
                           (unsigned long long)CUDW_MAX_IMAGE_SIZE);
        uint8_t *buf = malloc((size_t)want);
        if (!buf)
            return set_err(err, CUDW_E_NOMEM, e->offset, "fatbin entry", "out of memory");
        size_t got;
        if (e->flags & CUDW_FATBIN_ZSTD) {
            unsigned long long fsize = ZSTD_getFrameContentSize(p, n);
            if (fsize != ZSTD_CONTENTSIZE_UNKNOWN && fsize != ZSTD_CONTENTSIZE_ERROR && fsize != want) {
                free(buf);
                return set_err(err, CUDW_E_BAD_OFFSET, e->offset + 56, "fatbin entry header",
                               "decompressed size %llu, but the zstd frame holds %llu", (unsigned long long)want, fsize);
            }
            ZSTD_DCtx *dc = zstd_ctx();
            got = dc ? ZSTD_decompressDCtx(dc, buf, (size_t)want, p, n) : ZSTD_decompress(buf, (size_t)want, p, n);
            if (ZSTD_isError(got)) {
                free(buf);
                return set_err(err, CUDW_E_BAD_OFFSET, e->offset + e->header_size, "zstd payload", "%s",
                               ZSTD_getErrorName(got));
            }
        } else {
            if (n > INT32_MAX || want > INT32_MAX) {
                free(buf);
                return set_err(err, CUDW_E_LIMIT, e->offset, "LZ4 payload", "larger than 2 GiB");
            }
            int r = LZ4_decompress_safe((const char *)p, (char *)buf, (int)n, (int)want);
            if (r < 0) {
                free(buf);
                return set_err(err, CUDW_E_BAD_OFFSET, e->offset + e->header_size, "LZ4 payload",
                               "malformed LZ4 block (or a decompressed size that lies)");
            }
            got = (size_t)r;
        }
        if (got != want) {
            free(buf);
            return set_err(err, CUDW_E_BAD_OFFSET, e->offset + 56, "fatbin entry header",
                           "decompressed size %llu, but the payload decompresses to %zu bytes",
                           (unsigned long long)want, got);
        }
        *owned = buf;
        p = buf;
        n = (size_t)want;
    }
    if (e->kind == CUDW_FATBIN_ELF)
        n = elf_extent(p, n);
    else if (e->kind == CUDW_FATBIN_PTX) {
        const uint8_t *z = memchr(p, 0, n);
        if (z)
            n = (size_t)(z - p);
    }
    *data = p;
    *size = n;
    return CUDW_OK;
}

int cudw_fatbin_image(cudw_fatbin *fb, size_t i, const uint8_t **data, size_t *size)
{
    if (i >= fb->n)
        return fb_fail(fb, CUDW_E_ARG, 0, "fatbin entry", "no entry %zu", i);
    const cudw_fatbin_entry *e = &fb->entries[i];
    if (fb->images[i]) { /* decompressed before: the buffer is the handle's */
        size_t n = (size_t)e->decompressed_size;
        *data = fb->images[i];
        *size = e->kind == CUDW_FATBIN_ELF ? elf_extent(fb->images[i], n) : n;
        if (e->kind == CUDW_FATBIN_PTX) {
            const uint8_t *z = memchr(fb->images[i], 0, n);
            if (z)
                *size = (size_t)(z - fb->images[i]);
        }
        return CUDW_OK;
    }
    uint8_t *owned;
    int rc = fatbin_entry_load(e, &owned, data, size, &fb->err);
    if (rc)
        return rc;
    fb->images[i] = owned;
    return CUDW_OK;
}

/* The container at p (avail bytes from there): its size when every part of
 * it is as fatbinary writes it -- version 1, a 16-byte header, entries
 * whose headers (64 bytes or more) and payloads exactly fill it -- else 0.
 * A scan of host sections finds containers by their magic; the magic also
 * occurs as plain bytes (in .text), which this rejects. */
size_t fatbin_container_check(const uint8_t *p, size_t avail)
{
    if (avail < 16 + 64 || ld32(p) != 0xBA55ED50u || ld16(p + 4) != 1 || ld16(p + 6) != 16)
        return 0;
    uint64_t psize = ld64(p + 8);
    if (psize < 64 || psize > avail - 16)
        return 0;
    uint64_t at = 16, end = 16 + psize;
    while (at < end) {
        if (end - at < 64)
            return 0;
        uint32_t hs = ld32(p + at + 4);
        uint64_t pl = ld64(p + at + 8);
        if (hs < 64 || hs > end - at || pl > end - at - hs)
            return 0;
        uint32_t name_off = ld32(p + at + 32), name_len = ld32(p + at + 36);
        if ((name_off || name_len) && (name_off > hs || name_len > hs - name_off))
            return 0;
        at += hs + pl;
    }
    return (size_t)end;
}

void cudw_fatbin_close(cudw_fatbin *fb)
{
    if (!fb)
        return;
    for (size_t i = 0; fb->images && i < fb->n; i++)
        free(fb->images[i]);
    free(fb->images);
    for (size_t i = 0; fb->texts && i < fb->n; i++)
        free(fb->texts[i]);
    free(fb->texts);
    free(fb->cons);
    free(fb->entries);
    free(fb->name);
    free(fb);
}
