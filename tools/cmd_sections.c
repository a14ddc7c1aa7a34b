/* cudwarf sections: every section with its debug class, what nvlink does
 * with it, its Mercury twin and whether the two share bytes. */
#include "cli.h"
#include "opts.h"
#include "jobs.h"

#include <string.h>

static const char help_head[] =
    "usage: cudwarf sections [--json] [--debug] FILE...\n"
    "\n"
    "List the sections of each cubin.  For debug sections: the family (DWARF or\n"
    "NVIDIA), nvlink's classifier type id (1-6), what nvlink does with the section\n"
    "when it links (parse, concatenate, merge line table, pass through, drop), the\n"
    "Mercury twin (.nv.merc.* <-> bare name) and whether the twin aliases the same\n"
    "file bytes, and how many relocations are aimed at it.\n"
    "\n";

static const char *type_name(uint32_t t, char *buf, size_t n)
{
    static const char *const std[] = {"NULL", "PROGBITS", "SYMTAB", "STRTAB", "RELA", "HASH",
                                      "DYNAMIC", "NOTE", "NOBITS", "REL", "SHLIB", "DYNSYM"};
    if (t < sizeof std / sizeof std[0])
        return std[t];
    if (t == CUDW_SHT_MERC_RELA)
        return "MERC_RELA";
    if (t == CUDW_SHT_MERC_SYMTAB)
        return "MERC_SYMTAB";
    if (t >= 0x70000000u)
        snprintf(buf, n, "LOPROC+0x%x", t - 0x70000000u);
    else
        snprintf(buf, n, "0x%x", t);
    return buf;
}

static const char *family_name(int fam)
{
    return fam == CUDW_FAMILY_DWARF ? "dwarf" : fam == CUDW_FAMILY_NV ? "nvidia" : "-";
}

/* The width of the text's Family column for an image: "nvidia*" (an NVIDIA
 * section's Mercury twin, sm_100+) takes 7, every other family fits in 6 */
static int family_width(cudw_file *f, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        cudw_secclass c;
        int twin, aliased;
        if (cudw_section_class(f, i, &c, &twin, &aliased) == CUDW_OK && c.family == CUDW_FAMILY_NV && c.mercury)
            return 7;
    }
    return 6;
}

typedef struct sctx {
    int as_json, only_debug;
} sctx;

static int one(cudw_file *f, const char *path, void *vctx, json *j)
{
    const sctx *c_ = vctx;
    int as_json = c_->as_json, only_debug = c_->only_debug;
    const cudw_elf_header *h = cudw_header(f);
    unsigned n = cudw_section_count(f);
    int famw = as_json ? 0 : family_width(f, n);
    if (as_json) {
        json_obj(j, NULL);
        json_str(j, "file", path);
        json_obj(j, "elf");
        json_u64(j, "type", h->type);
        json_u64(j, "machine", h->machine);
        json_u64(j, "sm", h->sm);
        json_u64(j, "flags", h->flags);
        json_u64(j, "layout", h->layout);
        json_u64(j, "virtual_sm", h->virtual_sm);
        json_u64(j, "elf_class", h->elf_class == 1 ? 32 : 64);
        json_u64(j, "address_size", h->address_size);
        json_end_obj(j);
        json_arr(j, "sections");
    } else {
        ob_printf(&out_stdout, "File: %s\n", path);
        ob_printf(&out_stdout, "ELF type %s, machine %u%s, sm_%u, e_flags 0x%08x, %u sections\n",
               h->type == 1 ? "REL" : h->type == 2 ? "EXEC" : "other", h->machine,
               h->machine == 190 ? " (EM_CUDA)" : "", h->sm, h->flags, n);
        if (h->layout != 8 || h->elf_class == 1) { /* what CUDA 13 does not write: say how it was read */
            char d[160];
            cudw_header_flags_describe(h, d, sizeof d);
            ob_printf(&out_stdout, "%s, e_flags: %s\n", h->elf_class == 1 ? "ELF32" : "ELF64", d);
        }
        ob_printf(&out_stdout, "\n");
        ob_printf(&out_stdout, "  [Nr] %-36s %-12s %-8s %-8s %-10s %-*s %-3s %-16s %-5s %s\n", "Name", "Type", "Offset",
               "Size", "Flags", famw, "Family", "Id", "nvlink", "Rels", "Twin");
    }
    int rc = EXIT_OK;
    for (unsigned i = 1; i < n; i++) {
        const cudw_section *s = cudw_section_get(f, i);
        cudw_secclass c;
        int twin = -1, aliased = 0;
        int is_debug = cudw_section_class(f, i, &c, &twin, &aliased) == CUDW_OK;
        if (only_debug && !is_debug)
            continue;
        size_t nrel = 0;
        const cudw_reloc *rels;
        if (is_debug && cudw_relocs(f, i, &rels, &nrel) != CUDW_OK) {
            report(f, path);
            rc = EXIT_BAD_INPUT;
            nrel = 0;
        }
        char tb[32];
        if (as_json) {
            json_obj(j, NULL);
            json_u64(j, "index", i);
            json_str(j, "name", s->name);
            json_u64(j, "type", s->type);
            json_u64(j, "flags", s->flags);
            json_u64(j, "offset", s->offset);
            json_u64(j, "size", s->size);
            json_bool(j, "has_file_data", s->data != NULL);
            if (is_debug) {
                json_obj(j, "class");
                json_str(j, "kind", cudw_kind_name(c.kind));
                json_str(j, "base_name", c.base_name);
                json_str(j, "family", family_name(c.family));
                json_bool(j, "mercury", c.mercury);
                json_u64(j, "type_id", (uint64_t)c.type_id);
                json_str(j, "nvlink", cudw_link_action_name(c.link_action));
                json_end_obj(j);
                if (twin >= 0) {
                    json_u64(j, "twin", (uint64_t)twin);
                    json_bool(j, "aliased", aliased);
                } else {
                    json_null(j, "twin");
                }
                json_u64(j, "relocations", nrel);
            } else {
                json_null(j, "class");
            }
            json_end_obj(j);
        } else {
            char twinbuf[40] = "";
            if (twin >= 0)
                snprintf(twinbuf, sizeof twinbuf, "[%d]%s", twin, aliased ? " aliased" : "");
            char fam[24] = "-", id[8] = "-", rel[16] = "-";
            if (is_debug) {
                snprintf(fam, sizeof fam, "%s%s", family_name(c.family), c.mercury ? "*" : "");
                if (c.type_id)
                    snprintf(id, sizeof id, "%d", c.type_id);
                snprintf(rel, sizeof rel, "%zu", nrel);
            }
            char line[512];
            int len = snprintf(line, sizeof line, "  [%2u] %-36s %-12s %08llx %08llx %-10llx %-*s %-3s %-16s %-5s %s%s", i,
                             s->name, type_name(s->type, tb, sizeof tb), (unsigned long long)s->offset,
                             (unsigned long long)s->size, (unsigned long long)s->flags, famw, fam, id,
                             is_debug ? cudw_link_action_name(c.link_action) : "-", rel, twinbuf,
                             s->data || !s->size ? "" : "  (no file data)");
            if (len > (int)sizeof line - 1)
                len = (int)sizeof line - 1;
            while (len > 0 && line[len - 1] == ' ') /* no padding after the last column */
                len--;
            ob_write(&out_stdout, line, (size_t)len);
            ob_putc(&out_stdout, '\n');
        }
    }
    if (as_json) {
        json_end_arr(j);
        json_end_obj(j);
    } else {
        ob_printf(&out_stdout, "\nFamily: dwarf = standard DWARF, nvidia = NVIDIA debug, * = Mercury twin (sh_flags 0x10000000).\n"
               "Id: nvlink's classifier type (1 info, 2 loc, 3 abbrev, 4 ptx_txt, 5 line, 6 str).\n"
               "Twin: the section on the other side (bare <-> .nv.merc.); aliased = same file bytes.\n");
    }
    return rc;
}

static const cli_opt table[] = {
    {"--debug", 0, NULL, 2, "only debug sections"},
    {"--json", 0, NULL, 1, "one JSON array, one object per image (docs/json.md)"},
    {0}};

int cmd_sections(int argc, char **argv)
{
    int as_json = 0, only_debug = 0, nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "sections", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 12, NULL); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)a.value; break; /* the operands, in order, over argv */
        case 1: as_json = 1; break;
        case 2: only_debug = 1; break;
        }
    }
    if (!nfiles) {
        usage_error("sections", "no input file");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    if (as_json)
        image_array_begin(&j);
    else
        jobs_sep = "\n"; /* a blank line between images */
    sctx c = {as_json, only_debug};
    int rc = EXIT_OK;
    for (int i = 0; i < nfiles; i++) {
        if (for_each_elf(argv[i], one, &c, &j) != EXIT_OK)
            rc = EXIT_BAD_INPUT;
    }
    if (as_json)
        image_array_end(&j, rc);
    return rc;
}
