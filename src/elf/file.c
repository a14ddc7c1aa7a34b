/* Opening a device ELF: map it, let libelf check the container, and lay
 * out a section table whose entries point into the map.
 *
 *   ELF header (64 B; 52 in ELF32) ... section bytes ... section header table
 *   cubin specifics: e_machine 190 (EM_CUDA), EI_OSABI 0x41 (0x33 before
 *   CUDA 13), the SM in e_flags (header.c); all sh_addr 0; each function in
 *   its own .text.<name> section.  ELF32 cubins (CUDA 6.5-8, -m32) are read
 *   through libelf's class-neutral GElf views: only the symbol and
 *   relocation records (file.c, reloc.c) have a layout of their own.
 */
#include "internal.h"
#include "cursor.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static cudw_file *file_new(const char *name)
{
    cudw_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->name = strdup(name ? name : "<memory>");
    if (!f->name) {
        free(f);
        return NULL;
    }
    return f;
}

static int load_sections(cudw_file *f)
{
    Elf *elf = f->elf;
    if (elf_kind(elf) != ELF_K_ELF)
        return file_fail(f, CUDW_E_NOT_ELF, NULL, 0, "ELF header", "no ELF magic");
    size_t idlen;
    const char *id = elf_getident(elf, &idlen);
    if (!id || idlen < EI_NIDENT)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, 0, "ELF header", "truncated e_ident");
    if ((id[EI_CLASS] != ELFCLASS64 && id[EI_CLASS] != ELFCLASS32) || id[EI_DATA] != ELFDATA2LSB)
        return file_fail(f, CUDW_E_ELF_CLASS, NULL, EI_CLASS, "ELF header",
                         "class %d data %d; cubins are ELF64 or ELF32, little-endian", id[EI_CLASS], id[EI_DATA]);
    GElf_Ehdr ehv, *eh = gelf_getehdr(elf, &ehv);
    if (!eh)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, 0, "ELF header", "%s", elf_errmsg(-1));
    int is32 = id[EI_CLASS] == ELFCLASS32;
    f->hdr.type = eh->e_type;
    f->hdr.machine = eh->e_machine;
    f->hdr.osabi = (uint8_t)id[EI_OSABI];
    f->hdr.abiversion = (uint8_t)id[EI_ABIVERSION];
    f->hdr.flags = eh->e_flags;
    f->hdr.size = f->map_size;
    header_decode(&f->hdr, (uint8_t)id[EI_CLASS]);

    /* libelf quietly reports no sections when the table lies past the end
     * of the file (a truncated download, a cut fatbin entry): say so. */
    if (!eh->e_shoff && eh->e_shnum)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, is32 ? 0x20 : 0x28, "section header table",
                         "e_shnum %u but e_shoff 0 (no table): an ELF%d header that is not one?", eh->e_shnum,
                         is32 ? 32 : 64);
    if (eh->e_shoff) {
        unsigned shent = is32 ? 40 : 64;
        if (eh->e_shentsize != shent)
            return file_fail(f, CUDW_E_BAD_ELF, NULL, is32 ? 0x2e : 0x3a, "section header table",
                             "e_shentsize %u (expected %u)", eh->e_shentsize, shent);
        uint64_t n = eh->e_shnum ? eh->e_shnum : 1; /* 0: extended count in entry 0 */
        if (eh->e_shoff > f->map_size || n * shent > f->map_size - eh->e_shoff)
            return file_fail(f, CUDW_E_TRUNCATED, NULL, eh->e_shoff, "section header table",
                             "%u entries at 0x%llx run past the end of the file (%zu bytes)", eh->e_shnum,
                             (unsigned long long)eh->e_shoff, f->map_size);
    }
    size_t shnum, shstrndx;
    if (elf_getshdrnum(elf, &shnum) != 0)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, is32 ? 0x30 : 0x3c, "section header table", "%s", elf_errmsg(-1));
    if (shnum == 0)
        return CUDW_OK;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, is32 ? 0x32 : 0x3e, "section header table", "%s", elf_errmsg(-1));
    if (shnum > (1u << 24))
        return file_fail(f, CUDW_E_LIMIT, NULL, is32 ? 0x30 : 0x3c, "section header table", "%zu sections", shnum);
    f->secs = arena_alloc(&f->arena, shnum * sizeof *f->secs);
    f->state = arena_alloc(&f->arena, shnum * sizeof *f->state);
    if (!f->secs || !f->state)
        return file_fail(f, CUDW_E_NOMEM, NULL, 0, "section table", "out of memory");
    for (size_t i = 0; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(elf, i);
        GElf_Shdr shv, *sh = scn ? gelf_getshdr(scn, &shv) : NULL;
        if (!sh)
            return file_fail(f, CUDW_E_BAD_ELF, NULL, eh->e_shoff + i * (is32 ? 40u : 64u), "section header",
                             "section %zu: %s", i, elf_errmsg(-1));
        cudw_section *s = &f->secs[i];
        s->index = (unsigned)i;
        s->type = sh->sh_type;
        s->flags = sh->sh_flags;
        s->addr = sh->sh_addr;
        s->offset = sh->sh_offset;
        s->size = sh->sh_size;
        s->link = sh->sh_link;
        s->info = sh->sh_info;
        s->align = sh->sh_addralign;
        s->entsize = sh->sh_entsize;
        const char *nm = i ? elf_strptr(elf, shstrndx, sh->sh_name) : "";
        if (!nm) {
            char tmp[48];
            snprintf(tmp, sizeof tmp, "<bad name 0x%x>", (unsigned)sh->sh_name);
            char *c = arena_alloc(&f->arena, strlen(tmp) + 1);
            if (!c)
                return file_fail(f, CUDW_E_NOMEM, NULL, 0, "section table", "out of memory");
            memcpy(c, tmp, strlen(tmp) + 1);
            nm = c;
        }
        s->name = nm;
        /* Sections with no file bytes: NOBITS, and .nv_debug.shared, which
         * ptxas writes as 0x7000000a with an sh_offset that may lie past
         * the end of the file (formats.md 6). */
        if (i && s->type != SHT_NOBITS && s->type != SHT_NULL && s->offset <= f->map_size &&
            s->size <= f->map_size - s->offset) {
            s->data = f->map + s->offset;
            s->data_size = s->size;
        }
    }
    f->nsecs = (unsigned)shnum;
    return CUDW_OK;
}

static int open_common(cudw_file *f)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, 0, "libelf", "libelf version mismatch");
    if (f->map_size < 4 || memcmp(f->map, ELFMAG, 4) != 0)
        return file_fail(f, CUDW_E_NOT_ELF, NULL, 0, "ELF header", "no ELF magic (\\x7fELF)");
    size_t need = f->map_size > EI_CLASS && f->map[EI_CLASS] == ELFCLASS32 ? 52 : 64;
    if (f->map_size < need)
        return file_fail(f, CUDW_E_TRUNCATED, NULL, 0, "ELF header",
                         "file has %zu bytes, the ELF header needs %zu", f->map_size, need);
    /* libelf reads the map in place; it does not write to it in this mode. */
    f->elf = elf_memory((char *)(uintptr_t)f->map, f->map_size);
    if (!f->elf)
        return file_fail(f, CUDW_E_BAD_ELF, NULL, 0, "ELF header", "%s", elf_errmsg(-1));
    return load_sections(f);
}

/* cudw_open and cudw_open_mem take device ELFs only; the input layer
 * opens host ELFs through file_open_any / file_open_mem_any. */
static int device_only(cudw_file *f, int rc)
{
    if (rc || f->hdr.machine == 190)
        return rc;
    return file_fail(f, CUDW_E_NOT_CUDA, NULL, 0x12, "ELF header",
                     "e_machine %u, not 190 (EM_CUDA): a host ELF; cudw_input_open reads the device code in one",
                     f->hdr.machine);
}

int cudw_open(cudw_file **out, const char *path)
{
    int rc = file_open_any(out, path);
    return *out ? device_only(*out, rc) : rc;
}

int cudw_open_mem(cudw_file **out, const void *data, size_t size, const char *name)
{
    int rc = file_open_mem_any(out, data, size, name);
    return *out ? device_only(*out, rc) : rc;
}

int file_open_any(cudw_file **out, const char *path)
{
    cudw_file *f = file_new(path);
    *out = f;
    if (!f)
        return CUDW_E_NOMEM;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return file_fail(f, CUDW_E_IO, NULL, 0, "open", "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return file_fail(f, CUDW_E_IO, NULL, 0, "stat", "%s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return file_fail(f, CUDW_E_IO, NULL, 0, "open", "not a regular file");
    }
    if (st.st_size == 0) {
        close(fd);
        return file_fail(f, CUDW_E_NOT_ELF, NULL, 0, "ELF header", "empty file");
    }
    /* Private and writable so libelf may never fault on the pages; we do
     * not write to them, so nothing is copied. */
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED)
        return file_fail(f, CUDW_E_IO, NULL, 0, "mmap", "%s", strerror(e));
    f->map = m;
    f->map_size = (size_t)st.st_size;
    f->owns_map = 1;
    return open_common(f);
}

int file_open_mem_any(cudw_file **out, const void *data, size_t size, const char *name)
{
    cudw_file *f = file_new(name);
    *out = f;
    if (!f)
        return CUDW_E_NOMEM;
    if (!data && size)
        return file_fail(f, CUDW_E_ARG, NULL, 0, "open", "NULL data");
    if ((uintptr_t)data % 8) {
        /* libelf hands out headers inside the buffer: an unaligned blob
         * (an ELF inside some container) is copied to aligned memory */
        void *copy = arena_alloc(&f->arena, size ? size : 1);
        if (!copy)
            return file_fail(f, CUDW_E_NOMEM, NULL, 0, "open", "out of memory");
        memcpy(copy, data, size);
        data = copy;
    }
    f->map = data;
    f->map_size = size;
    return open_common(f);
}

int cudw_open_sections(cudw_file **out, const cudw_span *spans, size_t n, const char *name)
{
    cudw_file *f = *out = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(name ? name : "<sections>")) || n >= (1u << 24)) {
        cudw_close(f);
        *out = NULL;
        return CUDW_E_NOMEM;
    }
    /* entry 0 is the null section, as in an ELF file */
    f->secs = arena_alloc(&f->arena, (n + 1) * sizeof *f->secs);
    f->state = arena_alloc(&f->arena, (n + 1) * sizeof *f->state);
    if (!f->secs || !f->state) {
        cudw_close(f);
        *out = NULL;
        return CUDW_E_NOMEM;
    }
    f->secs[0].name = "";
    for (size_t i = 0; i < n; i++) {
        cudw_section *s = &f->secs[i + 1];
        s->index = (unsigned)(i + 1);
        s->type = SHT_PROGBITS;
        s->name = spans[i].name ? spans[i].name : "";
        s->size = s->data_size = spans[i].size;
        s->data = spans[i].data;
    }
    f->nsecs = (unsigned)(n + 1);
    return CUDW_OK;
}

void cudw_close(cudw_file *f)
{
    if (!f)
        return;
    if (f->elf)
        elf_end(f->elf);
    if (f->owns_map)
        munmap((void *)(uintptr_t)f->map, f->map_size);
    free(f->cache);
    hmap_free(&f->cache_idx);
    arena_free_all(&f->arena);
    free(f->name);
    free(f);
}

const char *cudw_file_name(const cudw_file *f) { return f->name; }
const cudw_elf_header *cudw_header(const cudw_file *f) { return &f->hdr; }
unsigned cudw_section_count(const cudw_file *f) { return f->nsecs; }

const cudw_section *cudw_section_get(const cudw_file *f, unsigned index)
{
    return index < f->nsecs ? &f->secs[index] : NULL;
}

const cudw_section *cudw_section_find(const cudw_file *f, const char *name)
{
    for (unsigned i = 1; i < f->nsecs; i++)
        if (strcmp(f->secs[i].name, name) == 0)
            return &f->secs[i];
    return NULL;
}

const cudw_section *section_companion(const cudw_file *f, const cudw_section *from,
                                           const char *bare_name)
{
    if (from && (from->flags & CUDW_SHF_MERCURY) && strncmp(from->name, ".nv.merc.", 9) == 0) {
        char merc[128];
        snprintf(merc, sizeof merc, ".nv.merc.%s", bare_name + 1);
        const cudw_section *s = cudw_section_find(f, merc);
        if (s)
            return s;
    }
    return cudw_section_find(f, bare_name);
}

static int is_symtab(const cudw_section *s)
{
    return s && (s->type == SHT_SYMTAB || s->type == SHT_DYNSYM || s->type == CUDW_SHT_MERC_SYMTAB);
}

/* Elf64_Sym and Elf32_Sym: one order of fields each. */
static unsigned sym_entry_size(const cudw_file *f) { return f->hdr.elf_class == ELFCLASS32 ? 16 : 24; }

size_t cudw_symbol_count(const cudw_file *f, unsigned symtab)
{
    const cudw_section *st = cudw_section_get(f, symtab);
    return is_symtab(st) && st->data ? (size_t)(st->data_size / sym_entry_size(f)) : 0;
}

unsigned cudw_symtab_of(const cudw_file *f, const cudw_section *s)
{
    if (!s)
        return 0;
    if (is_symtab(cudw_section_get(f, s->link)))
        return s->link;
    unsigned found = 0;
    for (unsigned i = 1; i < f->nsecs; i++) {
        if (f->secs[i].type != SHT_SYMTAB)
            continue;
        if (found)
            return 0;
        found = i;
    }
    return found;
}

/*   Elf64_Sym (24 B): st_name u32 | st_info u8 (bind << 4 | type) |
 *                     st_other u8 | st_shndx u16 | st_value u64 | st_size u64
 *   Elf32_Sym (16 B): st_name u32 | st_value u32 | st_size u32 |
 *                     st_info u8 | st_other u8 | st_shndx u16 */
static void sym_decode(const uint8_t *p, int is32, cudw_symbol *out)
{
    const uint8_t *info = is32 ? p + 12 : p + 4;
    out->type = info[0] & 0xf;
    out->bind = info[0] >> 4;
    out->other = info[1];
    out->shndx = ld16(info + 2);
    out->value = is32 ? ld32(p + 4) : ld64(p + 8);
    out->size = is32 ? ld32(p + 8) : ld64(p + 16);
}

int cudw_symbol_get(cudw_file *f, unsigned symtab, uint32_t sym, cudw_symbol *out)
{
    const cudw_section *st = cudw_section_get(f, symtab);
    if (!is_symtab(st))
        return file_fail(f, CUDW_E_BAD_RELOC, st, 0, "symbol table", "section %u is not a symbol table", symtab);
    if (!st->data)
        return file_fail(f, CUDW_E_BAD_ELF, st, 0, "symbol table", "no bytes in the file");
    unsigned esz = sym_entry_size(f);
    uint64_t at = (uint64_t)sym * esz;
    if ((uint64_t)sym >= st->data_size / esz)
        return file_fail(f, CUDW_E_BAD_OFFSET, st, at, "symbol", "symbol %u out of range (table has %llu)", sym,
                         (unsigned long long)(st->data_size / esz));
    const uint8_t *p;
    int rc = cur_record_at(f, st, at, esz, "symbol", esz == 16 ? "Elf32_Sym" : "Elf64_Sym", &p);
    if (rc)
        return rc;
    uint32_t name = ld32(p);
    sym_decode(p, esz == 16, out);
    out->name = "";
    if (out->type == STT_SECTION && out->shndx < f->nsecs) {
        out->name = f->secs[out->shndx].name;
    } else if (name) {
        const cudw_section *str = cudw_section_get(f, st->link);
        /* a table ending in NUL terminates every string in it: no scan */
        if (!str || !str->data || name >= str->data_size ||
            (str->data[str->data_size - 1] && !memchr(str->data + name, 0, str->data_size - name)))
            return file_fail(f, CUDW_E_BAD_OFFSET, st, at, "symbol", "name offset 0x%x outside the string table",
                             name);
        out->name = (const char *)str->data + name;
    }
    return CUDW_OK;
}
