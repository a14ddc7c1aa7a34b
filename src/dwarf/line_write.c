/* Writing line programs the way ptxas does.
 *
 * Per sequence (rows up to and including an end_sequence row):
 *   00 09 02 <addr 0...>      DW_LNE_set_address, bytes 0 + a relocation site
 *   per row, in this order, each only when it changes:
 *     (00 len 90 ...          here instead of below for a row with ctx_first)
 *     04 ULEB(file)           DW_LNS_set_file (always on a sequence's first row)
 *     00 02 92 01             Mercury: before a function's entry row, and
 *                             00 02 92 00 right after that row
 *     00 len 90 ULEB ULEB     inlined-call context, function-name offset
 *   then the advance:
 *     special opcode          when the address advances (never for 0) and
 *                             0 <= dline - line_base < line_range and the
 *                             opcode fits a byte
 *     03 SLEB(dline)          DW_LNS_advance_line, when dline != 0 or the
 *                             address does not advance (then "03 00")
 *     02 ULEB(daddr)          DW_LNS_advance_pc, when daddr != 0 (written by a
 *                             signed encoder: 96 is e0 00)
 *     01                      DW_LNS_copy
 *   end_sequence row: 02 ULEB(daddr) when daddr != 0, then 00 01 01.
 * The rules are ptxas 13.0's, established by re-encoding every line
 * program of the corpus (docs/line-encoding.md). */
#include "../internal.h"

#include <stdio.h>
#include <stdlib.h>

/* ptxas writes DW_LNS_advance_pc operands with its signed encoder: a value
 * whose last 7-bit group has bit 6 set gets one more byte (96 is e0 00, not
 * 60), which is still a valid ULEB128.  Seen on every table of the corpus. */
static void uleb_signed_style(wbuf *b, uint64_t v)
{
    uint8_t t[11];
    size_t n = cudw_sleb128_write((int64_t)v, t, sizeof t);
    if ((int64_t)v < 0) /* beyond 2^63: plain ULEB */
        n = cudw_uleb128_write(v, t, sizeof t);
    wb_put(b, t, n);
}

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

/* 00 len 90 ULEB(context) ULEB(function name offset) */
static void inlined_call(wbuf *b, uint64_t ctx, uint64_t fn)
{
    uint8_t t[20];
    size_t k = cudw_uleb128_write(ctx, t, 10);
    k += cudw_uleb128_write(fn, t + k, 10);
    wb_byte(b, 0);
    wb_uleb(b, 1 + k);
    wb_byte(b, CUDW_LNE_INLINED_CALL);
    wb_put(b, t, k);
}

/* 00 02 92 v: Mercury's entry flag */
static void merc_entry(wbuf *b, uint8_t v)
{
    wb_byte(b, 0);
    wb_byte(b, 2);
    wb_byte(b, CUDW_LNE_MERC_ENTRY);
    wb_byte(b, v);
}

int line_special_op(const cudw_line_params *p, int64_t dline, uint64_t daddr)
{
    /* in the window, compared without forming dline - line_base: that
     * overflows for an advance near INT64_MAX; never without both advances */
    if (!daddr || !dline || daddr > 255 || dline < p->line_base ||
        dline >= (int64_t)p->line_base + (int64_t)p->line_range)
        return -1;
    uint64_t op = (uint64_t)(dline - p->line_base) + (uint64_t)p->line_range * daddr + p->opcode_base;
    return op <= 255 ? (int)op : -1;
}

/* operands of standard opcode k (index 0 unused) */
static const uint8_t std_lengths[] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

int cudw_line_encode(const cudw_line_params *p, const cudw_line_header_in *h, const cudw_line_row *rows,
                     size_t n, cudw_line_out *out)
{
    memset(out, 0, sizeof *out);
    if ((p->version != 2 && p->version != 3) || (p->addr_size != 4 && p->addr_size != 8) ||
        p->line_range == 0 || p->opcode_base == 0 || p->min_inst_length == 0)
        return fail(out, CUDW_E_ARG, 0, "bad parameters: version %u, address size %u, line_range %u, "
                    "opcode_base %u, min_inst_length %u", p->version, p->addr_size, p->line_range,
                    p->opcode_base, p->min_inst_length);
    wbuf b = {0};
    size_t sitecap = 0;
    /* header: the lengths are patched at the end */
    wb_le(&b, 0, 4);
    wb_le(&b, p->version, 2);
    wb_le(&b, 0, 4);
    wb_byte(&b, p->min_inst_length);
    wb_byte(&b, p->default_is_stmt);
    wb_byte(&b, (uint8_t)p->line_base);
    wb_byte(&b, p->line_range);
    wb_byte(&b, p->opcode_base);
    for (unsigned k = 1; k < p->opcode_base; k++)
        wb_byte(&b, k < sizeof std_lengths ? std_lengths[k] : 0);
    for (size_t k = 0; k < h->ndirs; k++)
        wb_put(&b, h->dirs[k], strlen(h->dirs[k]) + 1);
    wb_byte(&b, 0);
    for (size_t k = 0; k < h->nfiles; k++) {
        wb_put(&b, h->files[k].name, strlen(h->files[k].name) + 1);
        wb_uleb(&b, h->files[k].dir);
        wb_uleb(&b, h->files[k].mtime);
        wb_uleb(&b, h->files[k].size);
    }
    wb_byte(&b, 0);
    if (h->has_str_base) {
        if (h->str_base_symbol && add_site(out, &sitecap, b.n, h->str_base_symbol, h->str_base, 4))
            b.oom = 1;
        wb_le(&b, h->str_base, 4);
    }
    size_t program = b.n;

    /* the program */
    int start = 1;
    uint64_t addr = 0, line = 1, file = 1, ctx = 0, fn = 0;
    unsigned flag = 0; /* a 0x92 1 is open */
    int prev_hidden = 0;
    int stmt = p->default_is_stmt != 0;
    for (size_t i = 0; i < n && !b.oom; i++) {
        const cudw_line_row *r = &rows[i];
        if (start) {
            wb_byte(&b, 0);
            wb_uleb(&b, 1u + p->addr_size);
            wb_byte(&b, 2);
            if (r->symbol) {
                if (add_site(out, &sitecap, b.n, r->symbol, (int64_t)(r->address - r->symbol_value), p->addr_size))
                    b.oom = 1;
                wb_le(&b, 0, p->addr_size);
            } else {
                wb_le(&b, r->address, p->addr_size);
            }
            addr = r->address;
            line = 1;
            file = UINT64_MAX; /* ptxas opens every sequence with set_file */
            ctx = fn = 0;
            flag = 0;
            stmt = p->default_is_stmt != 0;
            start = 0;
        }
        if (r->address < addr) {
            discard(&b, out);
            return fail(out, CUDW_E_ARG, i, "row %zu: address 0x%llx is below the previous row's 0x%llx "
                        "(a sequence ascends)", i, (unsigned long long)r->address, (unsigned long long)addr);
        }
        uint64_t daddr = (r->address - addr) / p->min_inst_length;
        /* the 0x92 0 of an entry row goes out with the next row, before
         * its set_file -- after it when the row says so (file_first:
         * ptxas, when the entry's next instruction is at another
         * address); an end (never from ptxas, kept so decode(encode)
         * holds) has its set_file first (docs/ptx-lines.md, rule 14) */
        if (flag && !r->end_sequence && !(r->file != file && r->file_first)) {
            merc_entry(&b, 0);
            flag = 0;
        }
        /* a 0x90 ptxas wrote before the set_file (ctx_first, rule 3) */
        if (r->ctx_first && !r->end_sequence && r->hidden != 2 && (r->context != ctx || r->function_offset != fn)) {
            inlined_call(&b, r->context, r->function_offset);
            ctx = r->context;
            fn = r->function_offset;
        }
        if (r->file != file || r->file_again) {
            wb_byte(&b, 4);
            wb_uleb(&b, r->file);
            file = r->file;
        }
        if (flag) {
            merc_entry(&b, 0);
            flag = 0;
        }
        if (r->end_sequence) {
            /* ptxas's end rows only advance the address; other rows handed
             * to us may also change the context or the line (kept, so
             * decode(encode) holds), and a hidden advance right before needs
             * something between it and the end, or it would read as the
             * end's own advance */
            if (r->context != ctx || r->function_offset != fn)
                inlined_call(&b, r->context, r->function_offset);
            int64_t dl = (int64_t)(r->line - line);
            if (dl || (prev_hidden && !daddr)) {
                wb_byte(&b, 3);
                wb_sleb(&b, dl);
            }
            if (daddr) {
                wb_byte(&b, 2);
                uleb_signed_style(&b, daddr);
            }
            wb_byte(&b, 0);
            wb_byte(&b, 1);
            wb_byte(&b, 1);
            start = 1;
            prev_hidden = 0;
            continue;
        }
        if (r->hidden == 2) { /* a 0x90 the next one replaces before any row */
            /* a line it moved to: never from ptxas (its lone 0x90 keeps
             * the line), kept so decode(encode) holds */
            if (r->line != line) {
                wb_byte(&b, 3);
                wb_sleb(&b, (int64_t)(r->line - line));
                line = r->line;
            }
            /* an address it moved to without a lone advance (which would
             * read as a hidden row of its own): DW_LNS_fixed_advance_pc,
             * 64 KiB at a time -- so not across more than 16 MiB, which
             * would take thousands of them (a fuzzed table asked for 2^40
             * bytes of opcodes) */
            if (r->address - addr > (uint64_t)0xffff * 256) {
                discard(&b, out);
                return fail(out, CUDW_E_ARG, i, "row %zu: a replaced 0x90 (hidden 2) %llu bytes past the row "
                            "before it: more than DW_LNS_fixed_advance_pc can carry in 256 opcodes", i,
                            (unsigned long long)(r->address - addr));
            }
            for (uint64_t d = r->address - addr; d; d -= d > 0xffff ? 0xffff : d) {
                wb_byte(&b, 9);
                wb_le(&b, d > 0xffff ? 0xffff : d, 2);
            }
            addr = r->address;
            inlined_call(&b, r->context, r->function_offset);
            ctx = UINT64_MAX; /* the next row writes its 0x90 again, even the same one */
            fn = r->function_offset;
            continue;
        }
        prev_hidden = r->hidden;
        if (r->merc_flag && !r->hidden) { /* Mercury: 0x92 1 before the entry row, 0x92 0 with the next */
            merc_entry(&b, r->merc_flag);
            flag = r->merc_flag;
        }
        if (r->context != ctx || r->function_offset != fn) {
            inlined_call(&b, r->context, r->function_offset);
            ctx = r->context;
            fn = r->function_offset;
        }
        if (r->hidden) { /* an advance no row follows (a same-line entry ptxas did not copy) */
            int64_t hl = (int64_t)(r->line - line);
            if (hl) { /* never from ptxas; keeps decode(encode(rows)) == rows */
                wb_byte(&b, 3);
                wb_sleb(&b, hl);
                line = r->line;
            }
            /* even an advance of 0 (a hidden first row of a sequence): a
             * lone advance_pc is what makes a hidden row */
            wb_byte(&b, 2);
            uleb_signed_style(&b, daddr);
            addr = r->address;
            continue;
        }
        if ((r->is_stmt != 0) != stmt) {
            wb_byte(&b, 6); /* DW_LNS_negate_stmt: ptxas never needs it, rows may */
            stmt = !stmt;
        }
        int64_t dline = (int64_t)(r->line - line);
        int special = line_special_op(p, dline, daddr);
        if (special >= 0) {
            wb_byte(&b, (uint8_t)special);
        } else {
            /* ptxas advances something before every copy: a duplicate row
             * (no address advance, same line) gets "advance_line 0" */
            if (dline || !daddr) {
                wb_byte(&b, 3);
                wb_sleb(&b, dline);
            }
            if (daddr) {
                wb_byte(&b, 2);
                uleb_signed_style(&b, daddr);
            }
            wb_byte(&b, 1);
        }
        addr = r->address;
        line = r->line;
    }
    if (b.oom) {
        discard(&b, out);
        return fail(out, CUDW_E_NOMEM, 0, "out of memory");
    }
    if (b.n - 4 > UINT32_MAX) {
        discard(&b, out);
        return fail(out, CUDW_E_LIMIT, 0, "the unit would exceed 4 GiB");
    }
    uint32_t unit = (uint32_t)(b.n - 4), hlen = (uint32_t)(program - 10);
    memcpy(b.p, &unit, 4);
    memcpy(b.p + 6, &hlen, 4);
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
