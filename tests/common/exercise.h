/* Drive every parser of the library over one opened file: the walk the
 * fuzz targets and the mutation suite share.  Returns the number of
 * errors met; calls check_error(f) on each so callers can assert that an
 * error always names what was decoded.  Never prints. */
#ifndef CUDW_EXERCISE_H
#define CUDW_EXERCISE_H

#include <stdlib.h>
#include <string.h>

#include "cudwarf.h"

typedef void (*exercise_cb)(cudw_file *f, int rc);

static inline int exercise_expr(const uint8_t *e, uint64_t len, uint8_t asz)
{
    uint64_t pos = 0;
    cudw_op o;
    int rc;
    char buf[64];
    while ((rc = cudw_op_next(e, len, asz, &pos, &o)) == CUDW_OK)
        if (o.op == 0x90 || o.op == 0x92)
            cudw_register_name(o.arg[0], buf, sizeof buf);
    return rc < 0;
}

/* One section through the library's walker, deeply (cudw_walk_section):
 * the walk dump and verify use, here under the fuzzers and the mutants. */
static inline int exercise_section(cudw_file *f, const cudw_section *s, exercise_cb cb)
{
    int rc = s ? cudw_walk_section(f, s, CUDW_WALK_DEEP) : CUDW_OK;
    if (rc < 0)
        cb(f, rc);
    return rc < 0;
}

/* Past the walk: each table that walks cleanly is looked up by its first
 * symbol (cudw_line_lookup) and its rows encoded again (cudw_line_encode). */
static inline int exercise_lines(cudw_file *f, const cudw_section *s, exercise_cb cb)
{
    uint64_t cur = 0;
    const cudw_line_table *t;
    int errors = 0;
    while (cudw_line_table_next(f, s, &cur, &t) == CUDW_OK) {
        cudw_line_iter it;
        cudw_line_row r;
        const char *sym = NULL;
        uint64_t off = 0;
        size_t n = 0, cap = 64;
        int rc;
        cudw_line_row *rows = malloc(cap * sizeof *rows);
        cudw_line_iter_init(t, &it, CUDW_LINE_KEEP_SEQUENCE);
        while (rows && (rc = cudw_line_next(&it, &r)) == CUDW_OK) {
            if (!sym && r.symbol) {
                sym = r.symbol;
                off = r.address - r.symbol_value;
            }
            if (n == cap) {
                cudw_line_row *nr = realloc(rows, (cap *= 2) * sizeof *rows);
                if (!nr)
                    break;
                rows = nr;
            }
            rows[n++] = r;
        }
        cudw_line_iter_free(&it);
        if (sym) {
            cudw_line_hit *hit = malloc(sizeof *hit);
            if (hit && cudw_line_lookup(f, s, sym, off, hit) < 0) {
                cb(f, -1);
                errors++;
            }
            free(hit);
        }
        /* encode what was decoded: must not fail unless the rows descend */
        cudw_line_params p = cudw_line_params_nvidia();
        cudw_line_header_in h = {.dirs = t->dirs, .ndirs = t->ndirs, .files = t->files, .nfiles = t->nfiles};
        cudw_line_out out;
        if (rows && cudw_line_encode(&p, &h, rows, n, &out) == CUDW_OK)
            cudw_line_out_free(&out);
        free(rows);
        /* and its opcodes as they were (the fuzzed ones too) */
        size_t nops = 0, capops = 64;
        cudw_line_op *ops = malloc(capops * sizeof *ops), o;
        uint64_t pos = t->program_offset;
        while (ops && cudw_line_op_next(t, &pos, &o) == CUDW_OK) {
            if (nops == capops) {
                cudw_line_op *no = realloc(ops, (capops *= 2) * sizeof *ops);
                if (!no)
                    break;
                ops = no;
            }
            ops[nops++] = o;
        }
        if (ops && cudw_line_encode_ops(&p, &h, ops, nops, &out) == CUDW_OK)
            cudw_line_out_free(&out);
        free(ops);
    }
    return errors;
}

static int exercise_sink(void *ctx, const void *p, size_t n)
{
    (void)p;
    *(uint64_t *)ctx += n;
    return 0;
}

/* The writers: name indexes built from .debug_info, the file stripped, its
 * paths remapped, its keep-debug companion; each output must come out at
 * the size announced. */
static inline int exercise_writers(cudw_file *f, exercise_cb cb)
{
    int errors = 0;
    for (unsigned i = 1; i < cudw_section_count(f); i++) {
        const cudw_section *s = cudw_section_get(f, i);
        cudw_secclass c;
        if (cudw_classify_name(s->name, s->flags, &c) != CUDW_OK || c.kind != CUDW_SEC_INFO)
            continue;
        for (int kind = CUDW_PUB_NAMES; kind <= CUDW_PUB_TYPES; kind++) {
            cudw_pub_out o;
            int rc = cudw_pub_build(f, s, kind, 0, &o);
            if (rc < 0) {
                cb(f, rc);
                errors++;
            }
            cudw_pub_out_free(&o);
        }
    }
    cudw_strip *st;
    int rc = cudw_strip_run(f, &st);
    if (rc == CUDW_OK) {
        uint64_t n = 0;
        if (cudw_strip_write(st, exercise_sink, &n) != CUDW_OK || n != cudw_strip_size(st))
            abort();
        cudw_strip_close(st);
    } else {
        cb(f, rc);
        errors++;
    }
    /* every absolute path moved: the output comes out at the size announced */
    static const char *const from[] = {"/"}, *const to[] = {"/remapped/"};
    cudw_remap *rm;
    rc = cudw_remap_run(f, from, to, 1, &rm);
    if (rc == CUDW_OK) {
        uint64_t n = 0;
        if (cudw_remap_write(rm, exercise_sink, &n) != CUDW_OK || n != cudw_remap_size(rm))
            abort();
        cudw_remap_close(rm);
    } else {
        cb(f, rc);
        errors++;
    }
    cudw_link_opts o = {.keep_debug = 1};
    cudw_link *l;
    if (cudw_link_run(&f, 1, &o, &l) == CUDW_OK) {
        uint64_t n = 0;
        if (cudw_link_write(l, exercise_sink, &n) != CUDW_OK || n != cudw_link_size(l))
            abort();
    } else if (l && (cudw_link_error(l, NULL)->code >= 0 || !cudw_link_error(l, NULL)->what)) {
        abort(); /* an error must say what it was decoding */
    }
    cudw_link_close(l);
    return errors;
}

static inline void exercise_no_finding(const cudw_finding *fd, void *ctx)
{
    (void)ctx;
    if (!fd->where.what || !fd->where.detail[0])
        abort(); /* a finding must say what and where */
}

/* The symbolizer over f: its whole index, then every function looked up
 * at its start, middle and end, by name and by section address. */
static inline int exercise_symbolizer(cudw_file *f, exercise_cb cb)
{
    cudw_symbolizer *s;
    int errors = 0;
    if (cudw_symbolizer_open_file(&s, f, CUDW_SYM_DEMANGLE | CUDW_SYM_PTX) != CUDW_OK) {
        cudw_symbolizer_close(s);
        return 1;
    }
    if (cudw_symbolizer_prepare(s) < 0) {
        const cudw_error *e = cudw_symbolizer_error(s);
        if (e->code >= 0 || !e->what || !e->what[0])
            abort(); /* an error must say what it was decoding */
        cudw_symbolizer_close(s);
        return 1;
    }
    const cudw_section *st = cudw_section_find(f, ".symtab");
    cudw_sym_frame fr[8];
    cudw_sym_result r;
    for (uint32_t i = 1; st && st->data && i < st->data_size / 24 && i < 4096; i++) {
        cudw_symbol sym;
        if (cudw_symbol_get(f, st->index, i, &sym) != CUDW_OK || sym.type != 2)
            continue;
        uint64_t at[4] = {0, 0x10, sym.size / 2 & ~(uint64_t)15, sym.size ? sym.size - 1 : 0};
        for (int k = 0; k < 4; k++) {
            if (cudw_symbolize(s, sym.name, (size_t)-1, at[k], &r, fr, 8) < 0 ||
                cudw_symbolize_address(s, 0, sym.shndx, sym.value + at[k], &r, fr, 8) < 0) {
                cb(f, -1);
                errors++;
            }
            if (r.found && (r.nframes == 0 || r.nframes > CUDW_MAX_INLINE_DEPTH))
                abort(); /* a found location has a frame, and no more than the bound */
        }
    }
    /* the correlation of its instructions: every one charged once */
    cudw_correlation *c;
    if (cudw_correlate(s, 0, NULL, &c) == CUDW_OK) {
        uint64_t bytes = 0, insn_bytes = 0;
        for (size_t i = 0; i < cudw_corr_line_count(c); i++)
            bytes += cudw_corr_line_get(c, i)->sass_bytes;
        for (size_t i = 0; i < cudw_corr_insn_count(c); i++) {
            size_t n;
            const cudw_corr_insn *in = cudw_corr_insn_get(c, i);
            cudw_corr_frames(c, i, &n);
            insn_bytes += in->size;
            if (in->line >= cudw_corr_line_count(c) || n > CUDW_MAX_INLINE_DEPTH)
                abort(); /* an instruction has its line, and a bounded chain */
        }
        if (bytes != insn_bytes)
            abort(); /* the lines' bytes are the instructions' */
        cudw_correlation_close(c);
    } else {
        const cudw_error *e = cudw_symbolizer_error(s);
        if (e->code >= 0 || !e->what || !e->what[0])
            abort();
        errors++;
    }
    cudw_symbolizer_close(s);
    return errors;
}

static inline int exercise_file(cudw_file *f, exercise_cb cb)
{
    int errors = 0;
    cudw_verify(f, exercise_no_finding, NULL);
    for (unsigned i = 1; i < cudw_section_count(f); i++) {
        const cudw_section *s = cudw_section_get(f, i);
        cudw_secclass c;
        int twin, aliased;
        if (cudw_section_class(f, i, &c, &twin, &aliased) != CUDW_OK)
            continue;
        const cudw_reloc *r;
        size_t n;
        if (cudw_relocs(f, i, &r, &n) < 0) {
            cb(f, -1);
            errors++;
            continue;
        }
        errors += exercise_section(f, s, cb);
        if (c.kind == CUDW_SEC_LINE || c.kind == CUDW_SEC_NV_LINE_SASS)
            errors += exercise_lines(f, s, cb);
    }
    errors += exercise_writers(f, cb);
    errors += exercise_symbolizer(f, cb);
    return errors;
}

#endif
