/* Finding the fatbin containers of a host ELF (docs/fatbin.md).
 *
 * 1. .nv_fatbin and __nv_relfatbin hold containers back to back, 8-byte
 *    aligned, zero-padded between: walked, and anything else there is an
 *    error of the file.
 * 2. Every other section with file bytes is scanned for the magic: NVIDIA's
 *    libraries load thousands of containers themselves, from .ldata
 *    (libcufft: 23,983), .rodata (libcusparse: 34) or .cask_resource
 *    (libcublasLt: 383).  A hit counts only when the whole container checks
 *    out (fatbin_container_check); the magic occurs in .text as plain bytes.
 * 3. .nvFatBinSegment holds the __fatBinC_Wrapper_t records the CUDA
 *    runtime registers (executables and shared objects; in a relocatable
 *    object the pointers are still 0):
 *
 *      +0  u32 magic 0x466243B1   +4  u32 version (1, or 2 with -rdc)
 *      +8  u64 address of a container
 *      +16 u64 version 2: address of a 0-terminated array of addresses of
 *              more containers (__cudaPrelinkedFatbins; often in .bss)
 *
 * A container found more than one way is one container, with every way
 * noted (cudw_input_container.found_by). */
#include "input.h"

#include <stdio.h>
#include <stdlib.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define WRAPPER_MAGIC 0x466243B1u
#define SHT_NOBITS_ 8u
#define SHF_ALLOC_ 2u
#define MAX_PRELINKED 4096   /* entries of a version-2 array followed */
#define DROP_CHUNK (32u << 20)

static int walked_section(const char *name)
{
    return !strcmp(name, ".nv_fatbin") || !strcmp(name, "__nv_relfatbin");
}

/* 1: the section as containers back to back (errors name the section). */
static int walk(cudw_input *in, const cudw_section *s)
{
    cudw_fatbin *fb;
    int rc = cudw_fatbin_parse(s->data, s->data_size, s->name, &fb);
    if (rc) {
        if (!fb)
            return input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory");
        in->err = *cudw_fatbin_error(fb);
        snprintf(in->err.section, sizeof in->err.section, "%s", s->name);
        cudw_fatbin_close(fb);
        return rc;
    }
    input_drop(in, s->data, (size_t)s->data_size); /* the entry headers were read: give the pages back */
    return input_split_blob(in, fb, s);
}

/* A container found alone (scan, wrapper) at offset off of section s. */
static int add_single(cudw_input *in, const cudw_section *s, uint64_t off, size_t size, unsigned how)
{
    cudw_fatbin *fb;
    if (cudw_fatbin_parse(s->data + off, size, s->name, &fb) != CUDW_OK) {
        /* the check passed but an entry's options do not fit: not a
         * container fatbinary wrote, so not one we report */
        int nomem = !fb;
        cudw_fatbin_close(fb);
        return nomem ? input_fail(in, CUDW_E_NOMEM, NULL, 0, "input", "out of memory") : CUDW_OK;
    }
    input_con *k = input_add_con(in, fb, 1, 0, cudw_fatbin_count(fb), 0, size);
    if (!k) {
        cudw_fatbin_close(fb);
        return CUDW_E_NOMEM;
    }
    k->pub.section = s->name;
    k->pub.section_index = s->index;
    k->pub.section_offset = off;
    k->pub.file_offset = s->offset + off;
    k->pub.found_by = how;
    return CUDW_OK;
}

/* 2: every fully valid container in s.  The pages read are given back as
 * the scan goes: a library's sections are hundreds of megabytes. */
static int scan(cudw_input *in, const cudw_section *s)
{
    const uint8_t *d = s->data;
    size_t n = (size_t)s->data_size, pos = 0, dropped = 0;
    while (pos + 16 <= n) {
        /* the magic's second byte, 0xED, is rare in code and data alike
         * (0x50 and 0x55 are push instructions, 0xBA a mov) */
        const uint8_t *ed = memchr(d + pos + 1, 0xED, n - pos - 1);
        if (!ed)
            break;
        if (ed[-1] != 0x50 || (size_t)(ed - d) + 3 > n || ed[1] != 0x55 || ed[2] != 0xBA) {
            pos = (size_t)(ed - d);
            continue;
        }
        const uint8_t *hit = ed - 1;
        size_t at = (size_t)(hit - d), size = fatbin_container_check(hit, n - at);
        if (size) {
            int rc = add_single(in, s, at, size, CUDW_FOUND_SCAN);
            if (rc)
                return rc;
            pos = at + size;
        } else {
            pos = at + 1;
        }
        if (pos - dropped >= DROP_CHUNK) {
            input_drop(in, d + dropped, pos - dropped);
            dropped = pos;
        }
    }
    input_drop(in, d + dropped, n - dropped);
    return CUDW_OK;
}

static int con_cmp(const void *a, const void *b)
{
    const input_con *x = a, *y = b;
    if (x->pub.section_index != y->pub.section_index)
        return x->pub.section_index < y->pub.section_index ? -1 : 1;
    return x->pub.section_offset < y->pub.section_offset ? -1 : x->pub.section_offset > y->pub.section_offset;
}

/* The section whose memory image holds virtual address va, and where. */
static const cudw_section *at_address(cudw_file *h, uint64_t va, uint64_t *off)
{
    for (unsigned i = 1; i < cudw_section_count(h); i++) {
        const cudw_section *s = cudw_section_get(h, i);
        if ((s->flags & SHF_ALLOC_) && s->type != SHT_NOBITS_ && s->data && s->addr && va >= s->addr &&
            va - s->addr < s->data_size) {
            *off = va - s->addr;
            return s;
        }
    }
    return NULL;
}

/* A wrapper record names va: mark the container there, or add it. */
static int follow(cudw_input *in, cudw_file *h, size_t from, uint64_t va, unsigned version, uint64_t rec)
{
    uint64_t off;
    const cudw_section *s = at_address(h, va, &off);
    if (!s)
        return CUDW_OK;
    input_con key;
    key.pub.section_index = s->index;
    key.pub.section_offset = off;
    input_con *k = in->ncons > from ? bsearch(&key, in->cons + from, in->ncons - from, sizeof key, con_cmp) : NULL;
    if (!k) {
        size_t size = fatbin_container_check(s->data + off, (size_t)(s->data_size - off));
        if (!size)
            return CUDW_OK;
        size_t before = in->ncons;
        int rc = add_single(in, s, off, size, 0);
        if (rc || in->ncons == before)
            return rc;
        k = &in->cons[in->ncons - 1];
        /* keep [from, ncons) sorted for the next search */
        input_con t = *k;
        size_t at = in->ncons - 1;
        while (at > from && con_cmp(&in->cons[at - 1], &t) > 0) {
            in->cons[at] = in->cons[at - 1];
            at--;
        }
        in->cons[at] = t;
        k = &in->cons[at];
    }
    if (!(k->pub.found_by & CUDW_FOUND_WRAPPER)) {
        k->pub.wrapper_version = version;
        k->pub.wrapper_offset = rec;
    }
    k->pub.found_by |= CUDW_FOUND_WRAPPER;
    return CUDW_OK;
}

/* 3: the wrapper records of an executable or shared object. */
static int wrappers(cudw_input *in, cudw_file *h, size_t from)
{
    const cudw_section *seg = cudw_section_find(h, ".nvFatBinSegment");
    if (!seg || !seg->data || cudw_header(h)->type == 1 /* ET_REL: pointers not yet relocated */)
        return CUDW_OK;
    for (uint64_t r = 0; r + 24 <= seg->data_size; r += 24) {
        const uint8_t *p = seg->data + r;
        if (ld32(p) != WRAPPER_MAGIC)
            continue;
        unsigned version = ld32(p + 4);
        int rc = follow(in, h, from, ld64(p + 8), version, r);
        if (rc)
            return rc;
        uint64_t arr_off;
        const cudw_section *arr = version == 2 ? at_address(h, ld64(p + 16), &arr_off) : NULL;
        for (unsigned k = 0; arr && k < MAX_PRELINKED && arr_off + 8 * (k + 1) <= arr->data_size; k++) {
            uint64_t va = ld64(arr->data + arr_off + 8 * k);
            if (!va)
                break;
            if ((rc = follow(in, h, from, va, version, r)))
                return rc;
        }
    }
    return CUDW_OK;
}

int input_host_containers(cudw_input *in, cudw_file *h, const char *owner, const char *member)
{
    size_t from = in->ncons;
    int rc;
    for (unsigned i = 1; i < cudw_section_count(h); i++) {
        const cudw_section *s = cudw_section_get(h, i);
        if (s->type == SHT_NOBITS_ || !s->data || !s->data_size)
            continue;
        if ((rc = walked_section(s->name) ? walk(in, s) : scan(in, s)))
            return rc;
    }
    if (in->ncons > from)
        qsort(in->cons + from, in->ncons - from, sizeof *in->cons, con_cmp);
    if ((rc = wrappers(in, h, from)))
        return rc;
    /* numbered per section; a name two sections share gets the index too */
    for (size_t c = from; c < in->ncons; c++) {
        input_con *k = &in->cons[c];
        k->pub.owner = owner;
        k->pub.member = member;
        k->pub.ordinal = c > from && in->cons[c - 1].pub.section_index == k->pub.section_index
                             ? in->cons[c - 1].pub.ordinal + 1
                             : 0;
        for (unsigned i = 1; i < cudw_section_count(h); i++) {
            const cudw_section *o = cudw_section_get(h, i);
            if (i != k->pub.section_index && !strcmp(o->name, k->pub.section)) {
                char buf[160];
                snprintf(buf, sizeof buf, "%s@%u", k->pub.section, k->pub.section_index);
                if (!(k->pub.section = input_strdup(in, buf)))
                    return CUDW_E_NOMEM;
                break;
            }
        }
    }
    return input_con_images(in, from);
}
