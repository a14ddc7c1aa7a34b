/* cudw_verify: the walk (walk.c) over every debug section with every
 * check and on past errors, and the relocations aimed at each section.
 * A failing parser's error becomes a finding; the walk then goes on with
 * the next unit, table or entry where the format says where that is. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

static void verify_relocs(walker *w, unsigned target)
{
    const cudw_reloc *r;
    size_t n;
    const cudw_section *s = cudw_section_get(w->f, target);
    if (cudw_relocs(w->f, target, &r, &n) < 0) {
        w_parse_error(w);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].width || r[i].type == CUDW_R_CUDA_UNUSED_CLEAR64 ||
            r[i].type == CUDW_R_MERCURY_UNUSED_CLEAR64 || r[i].type == CUDW_R_CUDA_NONE)
            continue;
        const cudw_section *rs = cudw_section_get(w->f, r[i].reloc_section);
        w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_RELOC, rs, 0, "relocation",
                "type %u (%s) at %s+0x%llx is not one a debug section uses", r[i].type,
                cudw_reloc_type_name(r[i].type) ? cudw_reloc_type_name(r[i].type) : "unknown", s->name,
                (unsigned long long)r[i].offset);
    }
}

/* A relocation or .nv.info section whose sh_link names no symbol table
 * (some CUDA 12.1 cubins): read with the file's one SHT_SYMTAB
 * (cudw_symtab_of), said once per section. */
static void verify_links(walker *w)
{
    cudw_file *f = w->f;
    for (unsigned i = 1; i < f->nsecs; i++) {
        const cudw_section *s = &f->secs[i];
        int rel = s->type == 9 /* SHT_REL */ || s->type == 4 /* SHT_RELA */ || s->type == CUDW_SHT_MERC_RELA;
        if (!rel && s->type != 0x70000000u /* SHT_CUDA_INFO */)
            continue;
        unsigned st = cudw_symtab_of(f, s);
        if (st == s->link)
            continue;
        const cudw_section *l = cudw_section_get(f, s->link);
        if (st)
            w_finding(w, CUDW_FINDING_NOTE, CUDW_E_BAD_RELOC, s, 0, "section header",
                      "sh_link %u names %s, not a symbol table; read with %s, the file's one symbol table",
                      s->link, l ? l->name : "no section", f->secs[st].name);
        else if (rel)
            w_finding(w, CUDW_FINDING_ERROR, CUDW_E_BAD_RELOC, s, 0, "section header",
                      "sh_link %u names %s, not a symbol table, and the file has no one symbol table to use",
                      s->link, l ? l->name : "no section");
    }
}

size_t cudw_verify(cudw_file *f, cudw_finding_fn fn, void *ctx)
{
    walker w = {f, WALK_DEEP | WALK_CHECKS | WALK_ON, fn, ctx, 0, 0};
    memset(&f->err, 0, sizeof f->err);
    verify_links(&w);
    for (unsigned i = 1; i < f->nsecs; i++) {
        cudw_secclass c;
        if (cudw_classify_name(f->secs[i].name, f->secs[i].flags, &c) != CUDW_OK)
            continue;
        if (f->secs[i].data)
            verify_relocs(&w, i);
        walk_one(&w, &f->secs[i]);
    }
    rows_index_free(w.rows);
    return w.errors;
}
