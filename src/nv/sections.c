/* Section classes: which debug section a name is, and what nvlink does
 * with it.
 *
 * nvlink's classifier tests names in a fixed order.  The first seven use
 * memcmp with a length of strlen(name) + 1, so the terminating NUL takes
 * part: the compare is exact, not a prefix test (the nvlink reconstruction reads it as a
 * prefix test; see docs/spec-disagreements.md).  .nv_debug_ptx_txt is
 * the one prefix match (".nv_debug_ptx_txt.1017007223").  A .nv.merc.
 * name is a Mercury twin only when sh_flags carries 0x10000000, as the
 * Mercury dispatcher requires. */
#include "../internal.h"

#include <stdio.h>

typedef struct class_row {
    const char *name;
    int kind, family, type_id, action;
    int prefix;   /* 1: prefix match */
} class_row;

/* Classifier order (the nvlink reconstruction), then the sections the classifier does not
 * list but nvlink knows by name elsewhere (.nv_debug_info_ptx: DWARF
 * parser; .nv_debug.shared: section filter). */
static const class_row rows[] = {
    {".debug_abbrev", CUDW_SEC_ABBREV, CUDW_FAMILY_DWARF, 3, CUDW_LINK_PARSE, 0},
    {".debug_aranges", CUDW_SEC_ARANGES, CUDW_FAMILY_DWARF, 0, CUDW_LINK_PASS, 0},
    {".debug_frame", CUDW_SEC_FRAME, CUDW_FAMILY_DWARF, 0, CUDW_LINK_CONCAT, 0},
    {".debug_info", CUDW_SEC_INFO, CUDW_FAMILY_DWARF, 1, CUDW_LINK_PARSE, 0},
    {".debug_loc", CUDW_SEC_LOC, CUDW_FAMILY_DWARF, 2, CUDW_LINK_CONCAT, 0},
    {".debug_macinfo", CUDW_SEC_MACINFO, CUDW_FAMILY_DWARF, 0, CUDW_LINK_CONCAT, 0},
    {".debug_pubnames", CUDW_SEC_PUBNAMES, CUDW_FAMILY_DWARF, 0, CUDW_LINK_CONCAT, 0},
    {".debug_pubtypes", CUDW_SEC_PUBTYPES, CUDW_FAMILY_DWARF, 0, CUDW_LINK_CONCAT, 0},
    {".debug_ranges", CUDW_SEC_RANGES, CUDW_FAMILY_DWARF, 0, CUDW_LINK_PASS, 0},
    {".debug_str", CUDW_SEC_STR, CUDW_FAMILY_DWARF, 6, CUDW_LINK_CONCAT, 0},
    {".nv_debug_info_reg_sass", CUDW_SEC_NV_REG_SASS, CUDW_FAMILY_NV, 0, CUDW_LINK_CONCAT, 0},
    {".nv_debug_info_reg_type", CUDW_SEC_NV_REG_TYPE, CUDW_FAMILY_NV, 0, CUDW_LINK_CONCAT, 0},
    {".nv_debug_ptx_txt", CUDW_SEC_NV_PTX_TXT, CUDW_FAMILY_NV, 4, CUDW_LINK_PASS, 1},
    {".debug_line", CUDW_SEC_LINE, CUDW_FAMILY_DWARF, 5, CUDW_LINK_MERGE_LINE, 0},
    {".nv_debug_line_sass", CUDW_SEC_NV_LINE_SASS, CUDW_FAMILY_NV, 0, CUDW_LINK_MERGE_LINE, 0},
    {".nv_debug_info_ptx", CUDW_SEC_NV_INFO_PTX, CUDW_FAMILY_NV, 0, CUDW_LINK_PARSE, 0},
    {".nv_debug.shared", CUDW_SEC_NV_SHARED, CUDW_FAMILY_NV, 0, CUDW_LINK_DROP, 0},
};

#define MERC_PREFIX ".nv.merc."
#define MERC_PREFIX_LEN 9

/* Sections that have a Mercury twin (the nvlink reconstruction's table of 15 mappings);
 * .nv_debug_info_ptx and .nv_debug.shared have none. */
static int has_mercury_twin(int kind)
{
    return kind != CUDW_SEC_NV_INFO_PTX && kind != CUDW_SEC_NV_SHARED && kind != CUDW_SEC_NONE;
}

static const class_row *match(const char *bare)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const class_row *r = &rows[i];
        if (r->prefix ? strncmp(bare, r->name, strlen(r->name)) == 0 : strcmp(bare, r->name) == 0)
            return r;
    }
    return NULL;
}

int cudw_classify_name(const char *name, uint64_t flags, cudw_secclass *out)
{
    memset(out, 0, sizeof *out);
    const class_row *r = match(name);
    int merc = 0;
    if (!r && (flags & CUDW_SHF_MERCURY) && strncmp(name, MERC_PREFIX, MERC_PREFIX_LEN) == 0) {
        /* ".nv.merc.debug_info" -> ".debug_info", ".nv.merc.nv_debug_x" -> ".nv_debug_x" */
        char bare[256];
        size_t len = strlen(name + MERC_PREFIX_LEN);
        if (len + 2 > sizeof bare)
            return CUDW_DONE;
        bare[0] = '.';
        memcpy(bare + 1, name + MERC_PREFIX_LEN, len + 1);
        r = match(bare);
        if (r && !has_mercury_twin(r->kind))
            r = NULL;
        merc = 1;
    }
    if (!r)
        return CUDW_DONE;
    out->kind = r->kind;
    out->family = r->family;
    out->mercury = merc;
    out->type_id = r->type_id;
    out->link_action = r->action;
    out->base_name = r->name;
    return CUDW_OK;
}

int cudw_section_class(cudw_file *f, unsigned index, cudw_secclass *out, int *twin, int *aliased)
{
    const cudw_section *s = cudw_section_get(f, index);
    if (twin)
        *twin = -1;
    if (aliased)
        *aliased = 0;
    if (!s)
        return file_fail(f, CUDW_E_ARG, NULL, 0, "section class", "no section %u", index);
    int rc = cudw_classify_name(s->name, s->flags, out);
    if (rc != CUDW_OK || !has_mercury_twin(out->kind))
        return rc;
    /* The twin's name: swap ".nv.merc." and the leading dot. */
    char other[300];
    if (out->mercury)
        snprintf(other, sizeof other, ".%s", s->name + MERC_PREFIX_LEN);
    else
        snprintf(other, sizeof other, MERC_PREFIX "%s", s->name + 1);
    for (unsigned i = 1; i < f->nsecs; i++) {
        const cudw_section *t = &f->secs[i];
        if (i == index || strcmp(t->name, other) != 0)
            continue;
        if (!out->mercury && !(t->flags & CUDW_SHF_MERCURY))
            continue;
        if (twin)
            *twin = (int)i;
        if (aliased)
            *aliased = t->offset == s->offset && t->size == s->size && s->size != 0 &&
                       s->type != 8 /* SHT_NOBITS */;
        break;
    }
    return CUDW_OK;
}

const char *cudw_kind_name(int kind)
{
    static const char *const names[] = {
        "none", "debug_abbrev", "debug_aranges", "debug_frame", "debug_info", "debug_loc",
        "debug_macinfo", "debug_pubnames", "debug_pubtypes", "debug_ranges", "debug_str",
        "debug_line", "nv_debug_line_sass", "nv_debug_info_reg_sass", "nv_debug_info_reg_type",
        "nv_debug_ptx_txt", "nv_debug_info_ptx", "nv_debug.shared",
    };
    return kind >= 0 && (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "none";
}

const char *cudw_link_action_name(int action)
{
    switch (action) {
    case CUDW_LINK_PARSE: return "parse";
    case CUDW_LINK_CONCAT: return "concatenate";
    case CUDW_LINK_MERGE_LINE: return "merge line table";
    case CUDW_LINK_PASS: return "pass through";
    case CUDW_LINK_DROP: return "drop";
    default: return "none";
    }
}
