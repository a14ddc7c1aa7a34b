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
#include "../internal.h"


int cudw_unit_next(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_unit *u)
{
    uint64_t off = *cursor;
    if (!s->data)
        return s->size ? cudw_fail(f, CUDW_E_BAD_OFFSET, s, 0, "section",
                                   "sh_offset 0x%llx + sh_size 0x%llx lies outside the file",
                                   (unsigned long long)s->offset, (unsigned long long)s->size)
                       : CUDW_DONE;
    if (off >= s->data_size)
        return CUDW_DONE;
    const uint8_t *p = s->data + off;
    uint64_t left = s->data_size - off;
    memset(u, 0, sizeof *u);
    u->file = f;
    u->section = s;
    u->offset = off;
    if (left < 4)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, off, "CU header",
                         "%llu bytes left, a unit length needs 4", (unsigned long long)left);
    uint32_t len = ld32(p);
    if (len >= 0xfffffff0u) {
        *cursor = s->data_size;
        return cudw_fail(f, CUDW_E_UNSUPPORTED, s, off, "CU header",
                         len == 0xffffffffu ? "64-bit DWARF unit (only 32-bit DWARF 2/3 is supported)"
                                            : "reserved unit length 0x%x", len);
    }
    if ((uint64_t)len > left - 4)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, off, "CU header",
                         "unit length 0x%x runs past the end of the section (0x%llx bytes left)", len,
                         (unsigned long long)(left - 4));
    u->length = len;
    u->end = off + 4 + len;
    if (len < 7)
        return cudw_fail(f, CUDW_E_TRUNCATED, s, off, "CU header",
                         "unit length %u is shorter than the 7 header bytes after it", len);
    u->version = ld16(p + 4);
    u->offset_size = 4;
    if (u->version != 2 && u->version != 3) {
        *cursor = u->end;
        return cudw_fail(f, CUDW_E_UNSUPPORTED, s, off + 4, "CU header",
                         "DWARF version %u (only 2 and 3 are supported)", u->version);
    }
    const cudw_reloc *r;
    size_t nr;
    int rc = cudw_relocs(f, s->index, &r, &nr);
    if (rc)
        return rc;
    u->abbrev_offset = ld32(p + 6);
    u->abbrev_reloc = cudw_reloc_at(f, s->index, off + 6);
    if (u->abbrev_reloc && u->abbrev_reloc->width)
        u->abbrev_offset = (uint32_t)u->abbrev_reloc->value;
    u->addr_size = p[10];
    if (u->addr_size != 4 && u->addr_size != 8) {
        *cursor = u->end;
        return cudw_fail(f, CUDW_E_UNSUPPORTED, s, off + 10, "CU header",
                         "address size %u (expected 4 or 8)", u->addr_size);
    }
    u->die_offset = off + 11;
    u->abbrev_section = cudw_section_companion(f, s, ".debug_abbrev");
    u->str_section = cudw_section_companion(f, s, ".debug_str");
    if (!u->abbrev_section)
        return cudw_fail(f, CUDW_E_NO_ABBREV, s, off, "CU header",
                         "skipping %s section due to missing .debug_abbrev section", s->name);
    rc = cudw_abbrev_table_get(f, u->abbrev_section, u->abbrev_offset, &u->abbrevs);
    if (rc) {
        if (rc == CUDW_E_BAD_OFFSET && f->err.offset == u->abbrev_offset)
            /* say which unit asked for it */
            return cudw_fail(f, rc, s, off + 6, "CU header",
                             "abbrev offset 0x%llx is past the end of %s (size 0x%llx)",
                             (unsigned long long)u->abbrev_offset, u->abbrev_section->name,
                             (unsigned long long)u->abbrev_section->data_size);
        return rc;
    }
    *cursor = u->end;
    return CUDW_OK;
}

static int too_short(const cudw_unit *u, uint64_t pos, uint32_t form, uint64_t need)
{
    return cudw_fail(u->file, CUDW_E_TRUNCATED, u->section, pos, "attribute value",
                     "%s needs %llu bytes, the unit ends at 0x%llx",
                     cudw_form_name(form) ? cudw_form_name(form) : "form", (unsigned long long)need,
                     (unsigned long long)u->end);
}

static int leb_err(const cudw_unit *u, uint64_t pos, int rc)
{
    return cudw_fail(u->file, rc, u->section, pos, "attribute value",
                     rc == CUDW_E_TRUNCATED ? "LEB128 runs past the end of the unit"
                                            : "LEB128 value does not fit 64 bits");
}

/* Fixed-size little-endian field, relocated when a relocation sits on it. */
static uint64_t field(const cudw_unit *u, const uint8_t *p, uint64_t pos, unsigned size,
                      const cudw_reloc **rel)
{
    uint64_t v = size == 1 ? p[0] : size == 2 ? ld16(p) : size == 4 ? ld32(p) : ld64(p);
    if (size >= 4) {
        const cudw_reloc *r = cudw_reloc_at(u->file, u->section->index, pos);
        if (r && r->width) {
            *rel = r;
            v = size == 4 ? (uint32_t)r->value : r->value;
        }
    }
    return v;
}

int cudw_form_read(const cudw_unit *u, uint32_t form, uint64_t *ppos, cudw_attr *a)
{
    const uint8_t *data = u->section->data;
    uint64_t pos = *ppos, end = u->end;
    if (pos > end)
        return too_short(u, pos, form, 1);
    const uint8_t *p = data + pos;
    uint64_t left = end - pos;
    unsigned size = 0;
    int rc;
    a->form = form;
    a->offset = pos;
    a->reloc = NULL;
    a->str = NULL;
    a->block = NULL;
    a->block_len = 0;
    a->s = 0;
    switch (form) {
    case CUDW_DW_FORM_addr:
        size = u->addr_size;
        if (left < size)
            return too_short(u, pos, form, size);
        a->vclass = CUDW_V_ADDRESS;
        a->u = field(u, p, pos, size, &a->reloc);
        break;
    case CUDW_DW_FORM_data1:
    case CUDW_DW_FORM_data2:
    case CUDW_DW_FORM_data4:
    case CUDW_DW_FORM_data8: /* data1/2/4/8 */
        size = form == CUDW_DW_FORM_data1 ? 1 : form == CUDW_DW_FORM_data2 ? 2 : form == CUDW_DW_FORM_data4 ? 4 : 8;
        if (left < size)
            return too_short(u, pos, form, size);
        a->vclass = CUDW_V_UNSIGNED;
        a->u = field(u, p, pos, size, &a->reloc);
        break;
    case CUDW_DW_FORM_flag:
        size = 1;
        if (left < 1)
            return too_short(u, pos, form, 1);
        a->vclass = CUDW_V_FLAG;
        a->u = p[0];
        break;
    case CUDW_DW_FORM_flag_present:
        a->vclass = CUDW_V_FLAG;
        a->u = 1;
        break;
    case CUDW_DW_FORM_sdata: {
        const uint8_t *q = p;
        if ((rc = sleb_read(&q, data + end, &a->s)))
            return leb_err(u, pos, rc);
        size = (unsigned)(q - p);
        a->vclass = CUDW_V_SIGNED;
        a->u = (uint64_t)a->s;
        break;
    }
    case CUDW_DW_FORM_udata: case CUDW_DW_FORM_ref_udata: {
        const uint8_t *q = p;
        if ((rc = uleb_read(&q, data + end, &a->u)))
            return leb_err(u, pos, rc);
        size = (unsigned)(q - p);
        a->vclass = form == CUDW_DW_FORM_udata ? CUDW_V_UNSIGNED : CUDW_V_REF;
        if (form == CUDW_DW_FORM_ref_udata)
            a->u += u->offset;
        break;
    }
    case CUDW_DW_FORM_ref1:
    case CUDW_DW_FORM_ref2:
    case CUDW_DW_FORM_ref4:
    case CUDW_DW_FORM_ref8: /* ref1/2/4/8: unit-relative */
        size = form == CUDW_DW_FORM_ref1 ? 1 : form == CUDW_DW_FORM_ref2 ? 2 : form == CUDW_DW_FORM_ref4 ? 4 : 8;
        if (left < size)
            return too_short(u, pos, form, size);
        a->vclass = CUDW_V_REF;
        a->u = field(u, p, pos, size, &a->reloc) + u->offset;
        break;
    case CUDW_DW_FORM_ref_addr: /* ref_addr: address-sized in DWARF 2, offset-sized from DWARF 3 */
        size = u->version == 2 ? u->addr_size : u->offset_size;
        if (left < size)
            return too_short(u, pos, form, size);
        a->vclass = CUDW_V_REF;
        a->u = field(u, p, pos, size, &a->reloc);
        break;
    case CUDW_DW_FORM_sec_offset:
        size = 4;
        if (left < size)
            return too_short(u, pos, form, size);
        a->vclass = CUDW_V_SECOFFSET;
        a->u = field(u, p, pos, size, &a->reloc);
        break;
    case CUDW_DW_FORM_ref_sig8:
        size = 8;
        if (left < size)
            return too_short(u, pos, form, size);
        a->vclass = CUDW_V_UNSIGNED;
        a->u = ld64(p);
        break;
    case CUDW_DW_FORM_string: {
        const uint8_t *z = memchr(p, 0, left);
        if (!z)
            return cudw_fail(u->file, CUDW_E_TRUNCATED, u->section, pos, "attribute value",
                             "DW_FORM_string has no terminating NUL before the end of the unit (0x%llx)",
                             (unsigned long long)u->end);
        size = (unsigned)(z - p) + 1;
        a->vclass = CUDW_V_STRING;
        a->str = (const char *)p;
        break;
    }
    case CUDW_DW_FORM_strp: {
        size = 4;
        if (left < size)
            return too_short(u, pos, form, size);
        a->vclass = CUDW_V_STRING;
        a->u = field(u, p, pos, size, &a->reloc);
        const cudw_section *str = u->str_section;
        if (!str || !str->data)
            return cudw_fail(u->file, CUDW_E_BAD_OFFSET, u->section, pos, "attribute value",
                             "DW_FORM_strp 0x%llx but the file has no .debug_str", (unsigned long long)a->u);
        if (a->u >= str->data_size || !memchr(str->data + a->u, 0, str->data_size - a->u))
            return cudw_fail(u->file, CUDW_E_BAD_OFFSET, u->section, pos, "attribute value",
                             "DW_FORM_strp 0x%llx is outside %s (size 0x%llx) or unterminated",
                             (unsigned long long)a->u, str->name, (unsigned long long)str->data_size);
        a->str = (const char *)str->data + a->u;
        break;
    }
    case CUDW_DW_FORM_block1:
    case CUDW_DW_FORM_block2:
    case CUDW_DW_FORM_block4:
    case CUDW_DW_FORM_block:
    case CUDW_DW_FORM_exprloc: { /* block1/2/4, block, exprloc */
        uint64_t len, hdr;
        if (form == CUDW_DW_FORM_block1 || form == CUDW_DW_FORM_block2 || form == CUDW_DW_FORM_block4) {
            hdr = form == CUDW_DW_FORM_block1 ? 1 : form == CUDW_DW_FORM_block2 ? 2 : 4;
            if (left < hdr)
                return too_short(u, pos, form, hdr);
            len = hdr == 1 ? p[0] : hdr == 2 ? ld16(p) : ld32(p);
        } else {
            const uint8_t *q = p;
            if ((rc = uleb_read(&q, data + end, &len)))
                return leb_err(u, pos, rc);
            hdr = (uint64_t)(q - p);
        }
        if (len > left - hdr)
            return cudw_fail(u->file, CUDW_E_TRUNCATED, u->section, pos, "attribute value",
                             "%s of %llu bytes runs past the end of the unit (0x%llx)", cudw_form_name(form),
                             (unsigned long long)len, (unsigned long long)u->end);
        a->vclass = CUDW_V_BLOCK;
        a->block = p + hdr;
        a->block_len = len;
        a->u = len;
        a->size = hdr + len;
        *ppos = pos + hdr + len;
        return CUDW_OK;
    }
    default:
        return cudw_fail(u->file, CUDW_E_BAD_FORM, u->section, pos, "attribute value",
                         "unknown form 0x%x", form);
    }
    a->size = size;
    *ppos = pos + size;
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
        const uint8_t *p = u->section->data + *pos, *q = p;
        uint64_t real;
        int rc = uleb_read(&q, u->section->data + u->end, &real);
        if (rc)
            return leb_err(u, *pos, rc);
        if (real == CUDW_DW_FORM_indirect || real > 0xff)
            return cudw_fail(u->file, CUDW_E_BAD_FORM, u->section, *pos, "attribute value",
                             "DW_FORM_indirect names form 0x%llx", (unsigned long long)real);
        *pos += (uint64_t)(q - p);
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
                     (uint64_t)ab->n_ref_addr * (u->version == 2 ? u->addr_size : u->offset_size);
        if (n > u->end - *pos)
            return cudw_fail(u->file, CUDW_E_TRUNCATED, u->section, *pos, "DIE",
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
            return cudw_fail(u->file, rc, u->section, off, "DIE",
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
            return cudw_fail(u->file, CUDW_E_BAD_CODE, u->section, off, "DIE",
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
                return cudw_fail(u->file, CUDW_E_LIMIT, u->section, off, "DIE",
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
        return cudw_fail(u->file, CUDW_E_BAD_OFFSET, u->section, offset, "DIE reference",
                         "0x%llx is outside the unit at 0x%llx (DIEs 0x%llx..0x%llx)", (unsigned long long)offset,
                         (unsigned long long)u->offset, (unsigned long long)u->die_offset,
                         (unsigned long long)u->end);
    const uint8_t *data = u->section->data, *p = data + offset;
    uint64_t code;
    int rc = uleb_read(&p, data + u->end, &code);
    if (rc)
        return cudw_fail(u->file, rc, u->section, offset, "DIE", "abbreviation code runs past the end of the unit");
    const cudw_abbrev *ab = code ? cudw_abbrev_find(u->abbrevs, code) : NULL;
    if (!ab)
        return cudw_fail(u->file, CUDW_E_BAD_CODE, u->section, offset, "DIE reference",
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
