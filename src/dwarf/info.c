/* .debug_info and its kin (.nv_debug_info_ptx, .nv.merc.debug_info):
 * unit headers, the DIE walk and attribute values.
 *
 *   32-bit DWARF 2/3 unit header (11 bytes):
 *   +0  u32 unit_length      (0xffffffff = 64-bit DWARF: unsupported)
 *   +4  u16 version          (2 or 3)
 *   +6  u32 debug_abbrev_offset   <- R_CUDA_32 in relocatable cubins
 *   +10 u8  address_size     (4 or 8)
 *   +11 DIEs: ULEB abbrev code, then the values its abbreviation lists;
 *       code 0 ends a sibling chain.
 *
 * Every read is checked against the end of its unit. */
#include "../elf/reloc.h"


int cudw_unit_next(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_unit *u)
{
    uint64_t off = *cursor;
    if (!s->data)
        return s->size ? file_fail(f, CUDW_E_BAD_OFFSET, s, 0, "section",
                                   "sh_offset 0x%llx + sh_size 0x%llx lies outside the file",
                                   (unsigned long long)s->offset, (unsigned long long)s->size)
                       : CUDW_DONE;
    if (off >= s->data_size)
        return CUDW_DONE;
    memset(u, 0, sizeof *u);
    u->file = f;
    u->section = s;
    u->offset = off;
    cur_t c;
    uint64_t len;
    int rc = cur_open(&c, f, s, off, s->data_size, "CU header");
    if (rc)
        return rc;
    if ((rc = cur_unit_length(&c, 0, &len, NULL))) {
        if (rc == CUDW_E_UNSUPPORTED)
            *cursor = s->data_size; /* no way to the next unit */
        return rc;
    }
    u->length = len;
    u->end = off + 4 + len;
    if (len < 7)
        return cur_fail_at(&c, off, CUDW_E_TRUNCATED, "unit length %u is shorter than the 7 header bytes after it",
                           (unsigned)len);
    uint64_t abbrev = 0, asz = 0;
    (void)cur_u16(&c, "version", &u->version); /* the 7 bytes are there */
    u->offset_size = 4;
    if (u->version != 2 && u->version != 3) {
        *cursor = u->end;
        return cur_fail_at(&c, off + 4, CUDW_E_UNSUPPORTED, "DWARF version %u (only 2 and 3 are supported)",
                           u->version);
    }
    (void)cur_field(&c, 4, "debug_abbrev_offset", &abbrev, &u->abbrev_reloc);
    (void)cur_un(&c, 1, "address_size", &asz);
    u->abbrev_offset = abbrev;
    u->addr_size = (uint8_t)asz;
    if (u->addr_size != 4 && u->addr_size != 8) {
        *cursor = u->end;
        return cur_fail_at(&c, off + 10, CUDW_E_UNSUPPORTED, "address size %u (expected 4 or 8)", u->addr_size);
    }
    u->die_offset = off + 11;
    u->abbrev_section = section_companion(f, s, ".debug_abbrev");
    u->str_section = section_companion(f, s, ".debug_str");
    if (!u->abbrev_section)
        return file_fail(f, CUDW_E_NO_ABBREV, s, off, "CU header",
                         "skipping %s section due to missing .debug_abbrev section", s->name);
    rc = cudw_abbrev_table_get(f, u->abbrev_section, u->abbrev_offset, &u->abbrevs);
    if (rc) {
        if (rc == CUDW_E_BAD_OFFSET && f->err.offset == u->abbrev_offset)
            /* say which unit asked for it */
            return file_fail(f, rc, s, off + 6, "CU header",
                             "abbrev offset 0x%llx is past the end of %s (size 0x%llx)",
                             (unsigned long long)u->abbrev_offset, u->abbrev_section->name,
                             (unsigned long long)u->abbrev_section->data_size);
        return rc;
    }
    *cursor = u->end;
    return CUDW_OK;
}

/* Width of DW_FORM_addr and DW_FORM_ref_addr, which depend on the unit
 * (the other fixed widths: abbrev.c's fixed_form_size). */
static unsigned addr_form_size(const cudw_unit *u, uint32_t form)
{
    if (form == CUDW_DW_FORM_addr)
        return u->addr_size;
    return u->version == 2 ? u->addr_size : u->offset_size; /* address-sized in DWARF 2 */
}

int cudw_form_read(const cudw_unit *u, uint32_t form, uint64_t *ppos, cudw_attr *a)
{
    uint64_t pos = *ppos;
    a->form = form;
    a->offset = pos;
    a->reloc = NULL;
    a->str = NULL;
    a->block = NULL;
    a->block_len = 0;
    a->s = 0;
    if (pos > u->end)
        return file_fail(u->file, CUDW_E_TRUNCATED, u->section, pos, "attribute value",
                         "%s at 0x%llx lies past the end of the unit (0x%llx)",
                         cudw_form_name(form) ? cudw_form_name(form) : "form", (unsigned long long)pos,
                         (unsigned long long)u->end);
    cur_t c = cur_make(u->file, u->section, pos, u->end, "attribute value");
    c.name_of = cudw_form_name; /* errors name the form; looked up only then */
    c.name_arg = form;
    const char *fname = NULL;
    int rc = CUDW_OK;
    /* one case per width: the cursor's reads are in line, each a single
     * bounds check and load (the DIE walk's inner loop) */
    switch (form) {
    case CUDW_DW_FORM_data1:
        rc = cur_un(&c, 1, fname, &a->u);
        a->vclass = CUDW_V_UNSIGNED;
        break;
    case CUDW_DW_FORM_data2:
        rc = cur_un(&c, 2, fname, &a->u);
        a->vclass = CUDW_V_UNSIGNED;
        break;
    case CUDW_DW_FORM_data4:
        rc = cur_field(&c, 4, fname, &a->u, &a->reloc);
        a->vclass = CUDW_V_UNSIGNED;
        break;
    case CUDW_DW_FORM_data8:
        rc = cur_field(&c, 8, fname, &a->u, &a->reloc);
        a->vclass = CUDW_V_UNSIGNED;
        break;
    case CUDW_DW_FORM_flag:
        rc = cur_un(&c, 1, fname, &a->u);
        a->vclass = CUDW_V_FLAG;
        break;
    case CUDW_DW_FORM_ref_sig8:
        rc = cur_un(&c, 8, fname, &a->u);
        a->vclass = CUDW_V_UNSIGNED;
        break;
    case CUDW_DW_FORM_ref1:
    case CUDW_DW_FORM_ref2:
        rc = cur_un(&c, form == CUDW_DW_FORM_ref1 ? 1 : 2, fname, &a->u);
        a->u += u->offset; /* unit-relative */
        a->vclass = CUDW_V_REF;
        break;
    case CUDW_DW_FORM_ref4:
        rc = cur_field(&c, 4, fname, &a->u, &a->reloc);
        a->u += u->offset;
        a->vclass = CUDW_V_REF;
        break;
    case CUDW_DW_FORM_ref8:
        rc = cur_field(&c, 8, fname, &a->u, &a->reloc);
        a->u += u->offset;
        a->vclass = CUDW_V_REF;
        break;
    case CUDW_DW_FORM_addr:
    case CUDW_DW_FORM_ref_addr:
        rc = cur_field(&c, addr_form_size(u, form), fname, &a->u, &a->reloc);
        a->vclass = form == CUDW_DW_FORM_addr ? CUDW_V_ADDRESS : CUDW_V_REF;
        break;
    case CUDW_DW_FORM_sec_offset:
        rc = cur_field(&c, 4, fname, &a->u, &a->reloc);
        a->vclass = CUDW_V_SECOFFSET;
        break;
    case CUDW_DW_FORM_flag_present:
        a->vclass = CUDW_V_FLAG;
        a->u = 1;
        break;
    case CUDW_DW_FORM_sdata:
        if ((rc = cur_sleb(&c, fname, &a->s)))
            return rc;
        a->vclass = CUDW_V_SIGNED;
        a->u = (uint64_t)a->s;
        break;
    case CUDW_DW_FORM_udata:
    case CUDW_DW_FORM_ref_udata:
        if ((rc = cur_uleb(&c, fname, &a->u)))
            return rc;
        a->vclass = form == CUDW_DW_FORM_udata ? CUDW_V_UNSIGNED : CUDW_V_REF;
        if (form == CUDW_DW_FORM_ref_udata)
            a->u += u->offset;
        break;
    case CUDW_DW_FORM_string:
        if ((rc = cur_str(&c, fname, &a->str)))
            return rc;
        a->vclass = CUDW_V_STRING;
        break;
    case CUDW_DW_FORM_strp: {
        if ((rc = cur_field(&c, 4, fname, &a->u, &a->reloc)))
            return rc;
        a->vclass = CUDW_V_STRING;
        const cudw_section *str = u->str_section;
        if (!str || !str->data)
            return cur_fail_at(&c, pos, CUDW_E_BAD_OFFSET, "DW_FORM_strp 0x%llx but the file has no .debug_str",
                               (unsigned long long)a->u);
        if (a->u >= str->data_size || !memchr(str->data + a->u, 0, str->data_size - a->u))
            return cur_fail_at(&c, pos, CUDW_E_BAD_OFFSET, "DW_FORM_strp 0x%llx is outside %s (size 0x%llx) or unterminated",
                               (unsigned long long)a->u, str->name, (unsigned long long)str->data_size);
        a->str = (const char *)str->data + a->u;
        break;
    }
    case CUDW_DW_FORM_block1:
    case CUDW_DW_FORM_block2:
    case CUDW_DW_FORM_block4:
    case CUDW_DW_FORM_block:
    case CUDW_DW_FORM_exprloc: {
        uint64_t len;
        rc = form == CUDW_DW_FORM_block1   ? cur_un(&c, 1, fname, &len)
             : form == CUDW_DW_FORM_block2 ? cur_un(&c, 2, fname, &len)
             : form == CUDW_DW_FORM_block4 ? cur_un(&c, 4, fname, &len)
                                           : cur_uleb(&c, fname, &len);
        if (rc)
            return rc;
        if (len > cur_left(&c))
            return cur_fail_at(&c, pos, CUDW_E_TRUNCATED, "%s of %llu bytes runs past the end of the unit (0x%llx)",
                               cudw_form_name(form), (unsigned long long)len, (unsigned long long)u->end);
        a->vclass = CUDW_V_BLOCK;
        a->block = c.p;
        a->block_len = len;
        a->u = len;
        c.p += len;
        break;
    }
    default:
        return cur_fail(&c, CUDW_E_BAD_FORM, "unknown form 0x%x", form);
    }
    if (rc)
        return rc;
    a->size = (uint32_t)(cur_off(&c) - pos);
    *ppos = cur_off(&c);
    return CUDW_OK;
}

/* Read one attribute value, resolving DW_FORM_indirect (nvlink exits on
 * it; we decode it). */
static int read_value(const cudw_unit *u, const cudw_abbrev_spec *spec, uint64_t *pos, cudw_attr *a)
{
    uint32_t form = spec->form;
    a->name = spec->name;
    a->indirect = 0;
    if (form == CUDW_DW_FORM_indirect) {
        cur_t c = cur_make(u->file, u->section, *pos, u->end, "attribute value");
        uint64_t real;
        int rc = cur_uleb(&c, "DW_FORM_indirect", &real);
        if (rc)
            return rc;
        if (real == CUDW_DW_FORM_indirect || real > 0xff)
            return cur_fail_at(&c, *pos, CUDW_E_BAD_FORM, "DW_FORM_indirect names form 0x%llx",
                               (unsigned long long)real);
        *pos = cur_off(&c);
        form = (uint32_t)real;
        a->indirect = 1;
    }
    return cudw_form_read(u, form, pos, a);
}

void cudw_die_iter_init(const cudw_unit *u, cudw_die_iter *it)
{
    memset(it, 0, sizeof *it);
    it->unit = u;
    it->pos = u->die_offset;
}

static int skip_attrs(const cudw_unit *u, const cudw_abbrev *ab, uint64_t *pos)
{
    if (ab->fixed_size >= 0) {
        uint64_t n = (uint64_t)ab->fixed_size + (uint64_t)ab->n_addr * u->addr_size +
                     (uint64_t)ab->n_ref_addr * addr_form_size(u, CUDW_DW_FORM_ref_addr);
        if (n > u->end - *pos)
            return file_fail(u->file, CUDW_E_TRUNCATED, u->section, *pos, "DIE",
                             "attribute values need %llu bytes, the unit ends at 0x%llx",
                             (unsigned long long)n, (unsigned long long)u->end);
        *pos += n;
        return CUDW_OK;
    }
    cudw_attr a;
    for (uint32_t i = 0; i < ab->nattrs; i++) {
        int rc = read_value(u, &ab->attrs[i], pos, &a);
        if (rc)
            return rc;
    }
    return CUDW_OK;
}

int cudw_die_next(cudw_die_iter *it, cudw_die *d)
{
    const cudw_unit *u = it->unit;
    int rc;
    if (it->pending_abbrev) {
        rc = skip_attrs(u, it->pending_abbrev, &it->pos);
        if (rc)
            return rc;
        it->pending_abbrev = NULL;
    }
    const uint8_t *data = u->section->data, *end = data + u->end;
    while (it->pos < u->end) {
        uint64_t off = it->pos;
        const uint8_t *p = data + off;
        uint64_t code;
        if (*p < 0x80) { /* one-byte codes are the rule */
            code = *p++;
        } else if ((rc = uleb_read(&p, end, &code))) {
            return file_fail(u->file, rc, u->section, off, "DIE",
                             rc == CUDW_E_TRUNCATED ? "abbreviation code runs past the end of the unit"
                                                    : "abbreviation code does not fit 64 bits");
        }
        it->pos = (uint64_t)(p - data);
        if (code == 0) {
            if (it->depth)
                it->depth--;
            continue;
        }
        const cudw_abbrev *ab = cudw_abbrev_find(u->abbrevs, code);
        if (!ab)
            return file_fail(u->file, CUDW_E_BAD_CODE, u->section, off, "DIE",
                             "abbreviation code %llu is not in the table at %s+0x%llx",
                             (unsigned long long)code, u->abbrev_section->name,
                             (unsigned long long)u->abbrev_offset);
        d->unit = u;
        d->offset = off;
        d->depth = it->depth;
        d->code = code;
        d->tag = ab->tag;
        d->has_children = ab->has_children;
        d->abbrev = ab;
        d->attr_offset = it->pos;
        if (ab->has_children) {
            if (it->depth + 1 >= CUDW_MAX_DIE_DEPTH)
                return file_fail(u->file, CUDW_E_LIMIT, u->section, off, "DIE",
                                 "DIEs nest deeper than %d levels", CUDW_MAX_DIE_DEPTH);
            it->depth++;
        }
        it->pending_abbrev = ab;
        return CUDW_OK;
    }
    return CUDW_DONE;
}

int cudw_die_at(const cudw_unit *u, uint64_t offset, cudw_die *d)
{
    if (offset < u->die_offset || offset >= u->end)
        return file_fail(u->file, CUDW_E_BAD_OFFSET, u->section, offset, "DIE reference",
                         "0x%llx is outside the unit at 0x%llx (DIEs 0x%llx..0x%llx)", (unsigned long long)offset,
                         (unsigned long long)u->offset, (unsigned long long)u->die_offset,
                         (unsigned long long)u->end);
    const uint8_t *data = u->section->data, *p = data + offset;
    uint64_t code;
    int rc = uleb_read(&p, data + u->end, &code);
    if (rc)
        return file_fail(u->file, rc, u->section, offset, "DIE", "abbreviation code runs past the end of the unit");
    const cudw_abbrev *ab = code ? cudw_abbrev_find(u->abbrevs, code) : NULL;
    if (!ab)
        return file_fail(u->file, CUDW_E_BAD_CODE, u->section, offset, "DIE reference",
                         "0x%llx names %s", (unsigned long long)offset,
                         code ? "an abbreviation code not in the table" : "a null entry, not a DIE");
    d->unit = u;
    d->offset = offset;
    d->depth = 0; /* not known from here */
    d->code = code;
    d->tag = ab->tag;
    d->has_children = ab->has_children;
    d->abbrev = ab;
    d->attr_offset = (uint64_t)(p - data);
    return CUDW_OK;
}

void cudw_die_iter_resume(cudw_die_iter *it, const cudw_attr_iter *ai)
{
    if (it->pending_abbrev && ai->die && ai->die->abbrev == it->pending_abbrev &&
        ai->index == it->pending_abbrev->nattrs && ai->die->attr_offset <= ai->pos) {
        it->pos = ai->pos;
        it->pending_abbrev = NULL;
    }
}

void cudw_attr_iter_init(const cudw_die *d, cudw_attr_iter *it)
{
    it->die = d;
    it->pos = d->attr_offset;
    it->index = 0;
}

int cudw_attr_next(cudw_attr_iter *it, cudw_attr *a)
{
    const cudw_die *d = it->die;
    if (it->index >= d->abbrev->nattrs)
        return CUDW_DONE;
    int rc = read_value(d->unit, &d->abbrev->attrs[it->index], &it->pos, a);
    if (rc)
        return rc;
    it->index++;
    return CUDW_OK;
}

int cudw_die_attr(const cudw_die *d, uint32_t name, cudw_attr *out)
{
    cudw_attr_iter it;
    cudw_attr_iter_init(d, &it);
    int rc;
    while ((rc = cudw_attr_next(&it, out)) == CUDW_OK)
        if (out->name == name)
            return CUDW_OK;
    return rc;
}

int cudw_die_name(const cudw_die *d, const char **name)
{
    cudw_attr_iter it;
    cudw_attr a;
    int rc;
    const char *plain = NULL, *linkage = NULL;
    *name = NULL;
    cudw_attr_iter_init(d, &it);
    while ((rc = cudw_attr_next(&it, &a)) == CUDW_OK) {
        if (a.vclass != CUDW_V_STRING)
            continue;
        if (a.name == CUDW_DW_AT_MIPS_linkage_name || a.name == CUDW_DW_AT_linkage_name)
            linkage = a.str;
        else if (a.name == CUDW_DW_AT_name)
            plain = a.str;
    }
    if (rc < 0)
        return rc;
    *name = linkage ? linkage : plain;
    return *name ? CUDW_OK : CUDW_DONE;
}
