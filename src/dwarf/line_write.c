/* Line programs to bytes: the header, and opcode records (cudw_line_op,
 * as cudw_line_op_next yields them) serialised one by one -- the second
 * of the writers' two layers; line_ops.c chooses the opcodes of rows.
 *
 *   header: unit_length(4) version(2) header_length(4) min_inst_length
 *           default_is_stmt line_base line_range opcode_base
 *           standard_opcode_lengths[opcode_base-1] dirs\0...\0
 *           files (name\0 ULEB dir ULEB mtime ULEB size)...\0
 *           [NVIDIA: the .debug_str base word (4), relocated]
 *   opcodes: special (1 byte) | standard (opcode, operands) |
 *            extended (00 ULEB(len) sub-opcode operands[len-1])
 * An opcode decoded from a table comes out as it was stored: its LEB
 * operands at least as long as they were (size), its extended operand
 * bytes (raw) as they were. */
#include "../internal.h"

#include <stdio.h>
#include <stdlib.h>

cudw_line_params cudw_line_params_nvidia(void)
{
    return (cudw_line_params){.version = 2, .addr_size = 8, .min_inst_length = 1, .default_is_stmt = 1,
                              .line_range = 14, .opcode_base = 10, .line_base = -5};
}

static int fail(cudw_line_out *out, int code, uint64_t at, const char *fmt, ...) CUDW_PRINTF(4, 5);
static int fail(cudw_line_out *out, int code, uint64_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(&out->err, code, "<rows>", at, "line row", fmt, ap);
    va_end(ap);
    return code;
}

/* What an encoding that fails has built so far: gone, out as it was. */
static void discard(wbuf *b, cudw_line_out *out)
{
    free(b->p);
    free(out->sites);
    out->sites = NULL;
    out->nsites = 0;
}

static int add_site(cudw_line_out *out, size_t *cap, uint64_t off, const char *sym, int64_t addend, uint8_t w)
{
    cudw_reloc_site *n = vec_room(out->sites, cap, out->nsites, sizeof *n, 16);
    if (!n)
        return -1;
    out->sites = n;
    out->sites[out->nsites++] = (cudw_reloc_site){off, sym, addend, w};
    return 0;
}

/* operands of standard opcode k (index 0 unused) */
static const uint8_t std_lengths[] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

int line_params_check(const cudw_line_params *p, cudw_line_out *out)
{
    if ((p->version != 2 && p->version != 3) || (p->addr_size != 4 && p->addr_size != 8) || p->line_range == 0 ||
        p->opcode_base == 0 || p->min_inst_length == 0)
        return fail(out, CUDW_E_ARG, 0, "bad parameters: version %u, address size %u, line_range %u, "
                    "opcode_base %u, min_inst_length %u", p->version, p->addr_size, p->line_range,
                    p->opcode_base, p->min_inst_length);
    return CUDW_OK;
}

/* The header up to the program (the lengths patched at the end). */
static void header(wbuf *b, const cudw_line_params *p, const cudw_line_header_in *h, cudw_line_out *out,
                   size_t *sitecap)
{
    wb_le(b, 0, 4);
    wb_le(b, p->version, 2);
    wb_le(b, 0, 4);
    wb_byte(b, p->min_inst_length);
    wb_byte(b, p->default_is_stmt);
    wb_byte(b, (uint8_t)p->line_base);
    wb_byte(b, p->line_range);
    wb_byte(b, p->opcode_base);
    for (unsigned k = 1; k < p->opcode_base; k++)
        wb_byte(b, k < sizeof std_lengths ? std_lengths[k] : 0);
    for (size_t k = 0; k < h->ndirs; k++)
        wb_put(b, h->dirs[k], strlen(h->dirs[k]) + 1);
    wb_byte(b, 0);
    for (size_t k = 0; k < h->nfiles; k++) {
        wb_put(b, h->files[k].name, strlen(h->files[k].name) + 1);
        wb_uleb(b, h->files[k].dir);
        wb_uleb(b, h->files[k].mtime);
        wb_uleb(b, h->files[k].size);
    }
    wb_byte(b, 0);
    if (h->has_str_base) {
        if (h->str_base_symbol && add_site(out, sitecap, b->n, h->str_base_symbol, h->str_base, 4))
            b->oom = 1;
        wb_le(b, h->str_base, 4);
    }
}

/* A LEB128 of at least `len` bytes (a decoded operand's own length; 0:
 * as short as it goes): the padding bytes carry the sign. */
static void leb_padded(wbuf *b, uint64_t v, int is_signed, size_t len)
{
    uint8_t t[16];
    size_t n = is_signed ? cudw_sleb128_write((int64_t)v, t, 11) : cudw_uleb128_write(v, t, 11);
    if (n < len && len <= sizeof t) {
        uint8_t fill = is_signed && (int64_t)v < 0 ? 0x7f : 0;
        t[n - 1] |= 0x80;
        while (n < len)
            t[n++] = (uint8_t)(fill | 0x80);
        t[n - 1] &= 0x7f;
    }
    wb_put(b, t, n);
}

/* ptxas writes DW_LNS_advance_pc operands with its signed encoder: a value
 * whose last 7-bit group has bit 6 set gets one more byte (96 is e0 00, not
 * 60), which is still a valid ULEB128.  Seen on every table of the corpus. */
static size_t advance_pc_len(uint64_t v)
{
    uint8_t t[11];
    return (int64_t)v < 0 ? cudw_uleb128_write(v, t, sizeof t) : cudw_sleb128_write((int64_t)v, t, sizeof t);
}

static void standard(wbuf *b, const cudw_line_params *p, const cudw_line_op *o)
{
    size_t len = o->size ? o->size - 1 : 0;
    wb_byte(b, o->opcode);
    switch (o->opcode) {
    case CUDW_DW_LNS_advance_pc:
        leb_padded(b, o->u, 0, o->size ? len : advance_pc_len(o->u)); /* as stored, or as ptxas writes it */
        break;
    case CUDW_DW_LNS_advance_line:
        leb_padded(b, (uint64_t)o->s, 1, len);
        break;
    case CUDW_DW_LNS_fixed_advance_pc:
        wb_le(b, o->u, 2);
        break;
    default: { /* set_file, set_column, set_isa, unknown: as many ULEBs as the header says, the first u */
        unsigned k = o->opcode < p->opcode_base && o->opcode < sizeof std_lengths ? std_lengths[o->opcode] : 0;
        for (unsigned i = 0; i < k; i++)
            leb_padded(b, i ? 0 : o->u, 0, i ? 0 : len);
    }
    }
}

/* The operand bytes of an extended opcode not decoded from a table. */
static size_t ext_operands(const cudw_line_op *o, unsigned addr_size, uint8_t *t)
{
    switch (o->opcode) {
    case CUDW_DW_LNE_set_address:
        memset(t, 0, addr_size); /* ptxas's bytes: 0, with a relocation */
        if (!o->symbol)
            for (unsigned i = 0; i < addr_size; i++)
                t[i] = (uint8_t)(o->u >> (8 * i));
        return addr_size;
    case CUDW_LNE_INLINED_CALL: {
        size_t k = cudw_uleb128_write(o->u, t, 10);
        return k + cudw_uleb128_write(o->u2, t + k, 10);
    }
    case CUDW_LNE_MERC_ENTRY:
        t[0] = (uint8_t)o->u;
        return 1;
    case CUDW_LNE_SET_FUNCTION:
    case CUDW_DW_LNE_set_discriminator:
        return cudw_uleb128_write(o->u, t, 10);
    default: /* end_sequence */
        return 0;
    }
}

static int extended(wbuf *b, const cudw_line_params *p, const cudw_line_op *o, cudw_line_out *out, size_t *sitecap)
{
    uint8_t t[24];
    const uint8_t *operands = o->raw ? o->raw : t;
    size_t n = o->raw ? (size_t)o->raw_len : ext_operands(o, p->addr_size, t);
    wb_byte(b, 0);
    leb_padded(b, o->ext_len ? o->ext_len : n + 1, 0, 0);
    wb_byte(b, o->opcode);
    if (o->opcode == CUDW_DW_LNE_set_address && o->symbol &&
        add_site(out, sitecap, b->n, o->symbol, (int64_t)(o->u - o->symbol_value), (uint8_t)n))
        return CUDW_E_NOMEM;
    wb_put(b, operands, n);
    return CUDW_OK;
}

int cudw_line_encode_ops(const cudw_line_params *p, const cudw_line_header_in *h, const cudw_line_op *ops,
                         size_t n, cudw_line_out *out)
{
    memset(out, 0, sizeof *out);
    int rc = line_params_check(p, out);
    if (rc)
        return rc;
    wbuf b = {0};
    size_t sitecap = 0;
    header(&b, p, h, out, &sitecap);
    size_t program = b.n;
    for (size_t i = 0; i < n && !b.oom; i++) {
        const cudw_line_op *o = &ops[i];
        if (o->kind == CUDW_LOP_SPECIAL)
            wb_byte(&b, o->opcode);
        else if (o->kind == CUDW_LOP_STANDARD)
            standard(&b, p, o);
        else if (extended(&b, p, o, out, &sitecap))
            b.oom = 1;
    }
    if (b.oom) {
        discard(&b, out);
        return fail(out, CUDW_E_NOMEM, 0, "out of memory");
    }
    if (b.n - 4 > UINT32_MAX) {
        discard(&b, out);
        return fail(out, CUDW_E_LIMIT, 0, "the unit would exceed 4 GiB");
    }
    wb_patch_le(&b, 0, b.n - 4, 4);
    wb_patch_le(&b, 6, program - 10, 4);
    out->data = b.p;
    out->size = b.n;
    return CUDW_OK;
}

void cudw_line_out_free(cudw_line_out *out)
{
    free(out->data);
    free(out->sites);
    out->data = NULL;
    out->sites = NULL;
    out->size = out->nsites = 0;
}

int cudw_line_header_from_paths(const char *const *paths, const uint64_t *mtimes, const uint64_t *sizes,
                                size_t n, char ***out_dirs, size_t *ndirs, cudw_line_file **out_files)
{
    for (size_t i = 0; i < n; i++)
        if (!paths[i])
            return CUDW_E_ARG; /* the only two failures: a missing path, no memory */
    char **dirs = calloc(n ? n : 1, sizeof *dirs);
    cudw_line_file *files = calloc(n ? n : 1, sizeof *files);
    size_t nd = 0;
    if (!dirs || !files) {
        free(dirs);
        free(files);
        return CUDW_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(paths[i], '/');
        files[i].mtime = mtimes ? mtimes[i] : 0;
        files[i].size = sizes ? sizes[i] : 0;
        files[i].path = paths[i];
        if (!slash || slash == paths[i]) {
            files[i].name = slash ? slash + 1 : paths[i];
            files[i].dir = 0;
            continue;
        }
        files[i].name = slash + 1;
        size_t len = (size_t)(slash - paths[i]), k;
        for (k = 0; k < nd; k++)
            if (strlen(dirs[k]) == len && memcmp(dirs[k], paths[i], len) == 0)
                break;
        if (k == nd) {
            dirs[nd] = malloc(len + 1);
            if (!dirs[nd]) {
                for (size_t j = 0; j < nd; j++)
                    free(dirs[j]);
                free(dirs);
                free(files);
                return CUDW_E_NOMEM;
            }
            memcpy(dirs[nd], paths[i], len);
            dirs[nd][len] = 0;
            nd++;
        }
        files[i].dir = k + 1;
    }
    *out_dirs = dirs;
    *ndirs = nd;
    *out_files = files;
    return CUDW_OK;
}
