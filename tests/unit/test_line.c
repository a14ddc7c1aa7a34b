/* Line programs: decode(encode(rows)) == rows on random rows (fixed seeds),
 * the header builder, and the encoder's errors.  Byte-exactness against
 * ptxas is checked on real cubins by tests/tools/reencode. */
#include "testutil.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* An ELF of one .debug_line unit and a .debug_str, opened; its first
 * table.  The caller closes *f and frees *img. */
static const cudw_line_table *open_unit(const void *unit, size_t ulen, const char *strs, size_t slen, uint8_t **img,
                                        cudw_file **f)
{
    tsec secs[] = {
        {.name = ".debug_line", .data = unit, .size = ulen},
        {.name = ".debug_str", .data = strs, .size = slen},
    };
    size_t len;
    *img = telf_build(secs, 2, &len);
    *f = topen(*img, len);
    const cudw_line_table *t;
    uint64_t cur = 0;
    assert_int_equal(cudw_line_table_next(*f, cudw_section_find(*f, ".debug_line"), &cur, &t), CUDW_OK);
    return t;
}

/* Wrap a unit into an ELF with a .debug_str and decode its rows; with
 * sites, each inlined row's call site (cudw_line_callsite, with the
 * sequence kept) goes to sites[n] as its sequence-relative row number. */
static size_t decode(const cudw_line_out *out, const char *strs, size_t strlen_, cudw_line_row *rows, size_t cap,
                     uint64_t *sites)
{
    uint8_t *img;
    cudw_file *f;
    const cudw_line_table *t = open_unit(out->data, out->size, strs, strlen_, &img, &f);
    cudw_line_iter it;
    cudw_line_row r;
    size_t n = 0;
    int rc;
    cudw_line_iter_init(t, &it, sites ? CUDW_LINE_KEEP_SEQUENCE : 0);
    while ((rc = cudw_line_next(&it, &r)) == CUDW_OK) {
        assert_true(n < cap);
        if (sites) {
            const cudw_line_row *site = NULL;
            sites[n] = 0;
            if (r.context) {
                assert_int_equal(cudw_line_callsite(&it, &r, &site), CUDW_OK);
                /* the site's own registers, as its row was emitted */
                assert_int_equal(site->index, r.context);
                assert_int_equal(site->address, rows[n - (r.index - r.context)].address);
                assert_int_equal(site->line, rows[n - (r.index - r.context)].line);
                sites[n] = site->index;
            }
        }
        r.function = NULL; /* points into the image */
        rows[n++] = r;
    }
    cudw_line_iter_free(&it);
    assert_int_equal(rc, CUDW_DONE);
    uint64_t cur = t->end; /* the unit is all of the section */
    assert_int_equal(cudw_line_table_next(f, cudw_section_find(f, ".debug_line"), &cur, &t), CUDW_DONE);
    cudw_close(f);
    free(img);
    return n;
}

static void round_trip(void **state)
{
    (void)state;
    static const char strs[] = "\0_Z3fooi\0_Z3barv\0";
    const char *dirs[] = {"/src", "/usr/include"};
    cudw_line_file files[] = {{.name = "a.cu", .dir = 1, .mtime = 1735689600, .size = 1368},
                              {.name = "b.cuh", .dir = 2, .mtime = 0, .size = 0},
                              {.name = "c.cuh", .dir = 1, .mtime = 7, .size = 9}};
    enum { MAXR = 4000 };
    cudw_line_row *in = calloc(MAXR, sizeof *in), *out_rows = calloc(MAXR, sizeof *out_rows);
    for (int iter = 0; iter < 300; iter++) {
        size_t n = 0;
        int nseq = 1 + (int)(next() % 4);
        for (int s = 0; s < nseq; s++) {
            uint64_t addr = (next() % 4) * 0x1000, line = 1 + next() % 500;
            size_t first = n, len = 1 + next() % 200;
            for (size_t k = 0; k < len; k++) {
                cudw_line_row *r = &in[n++];
                memset(r, 0, sizeof *r);
                /* mostly one instruction, sometimes none, sometimes far */
                uint64_t pick = next() % 10;
                addr += pick < 6 ? 16 : pick < 8 ? 0 : 16 * (next() % 300);
                int64_t dl = pick < 5 ? (int64_t)(next() % 14) - 5 : (int64_t)(next() % 2001) - 1000;
                if ((int64_t)line + dl < 1)
                    dl = 1 - (int64_t)line;
                line += (uint64_t)dl;
                r->address = addr;
                r->line = line;
                r->file = 1 + next() % 3;
                r->is_stmt = 1;
                if (k && next() % 4 == 0) { /* inlined at an earlier row of this sequence */
                    r->context = 1 + next() % k;
                    r->function_offset = next() % 2 ? 1 : 9;
                }
                r->merc_flag = next() % 16 == 0;
                (void)first;
            }
            cudw_line_row *e = &in[n++];
            memset(e, 0, sizeof *e);
            e->address = addr + 16 * (next() % 8);
            e->end_sequence = 1;
            e->line = line;
        }
        cudw_line_params p = cudw_line_params_nvidia();
        cudw_line_header_in h = {.dirs = dirs, .ndirs = 2, .files = files, .nfiles = 3, .has_str_base = 1};
        cudw_line_out out;
        assert_int_equal(cudw_line_encode(&p, &h, in, n, &out), CUDW_OK);
        size_t m = decode(&out, strs, sizeof strs, out_rows, MAXR, NULL);
        assert_int_equal(m, n);
        /* again keeping sequences: every call site is the row its context
         * names, found though the sequence is only kept from its first
         * inlined row on (the rows before it decoded a second time) */
        uint64_t *sites = calloc(MAXR, sizeof *sites);
        assert_int_equal(decode(&out, strs, sizeof strs, out_rows, MAXR, sites), n);
        for (size_t k = 0; k < n; k++)
            if (!in[k].end_sequence) /* an end row carries the last row's context */
                assert_int_equal(sites[k], in[k].context);
        free(sites);
        for (size_t k = 0; k < n; k++) {
            const cudw_line_row *a = &in[k], *b = &out_rows[k];
            assert_int_equal(a->address, b->address);
            assert_int_equal(a->end_sequence, b->end_sequence);
            if (a->end_sequence)
                continue; /* the registers an end row carries are the last row's */
            assert_int_equal(a->line, b->line);
            assert_int_equal(a->file, b->file);
            assert_int_equal(a->is_stmt, b->is_stmt);
            assert_int_equal(a->context, b->context);
            assert_int_equal(a->function_offset, b->function_offset);
            assert_int_equal(a->merc_flag, b->merc_flag);
        }
        cudw_line_out_free(&out);
    }
    free(in);
    free(out_rows);
}

static void header_from_paths(void **state)
{
    (void)state;
    const char *paths[] = {"/p/src/a.cu", "/usr/include/x.h", "/p/src/b.cuh", "plain.cu"};
    uint64_t mt[] = {1, 2, 3, 4}, sz[] = {10, 20, 30, 40};
    char **dirs;
    size_t nd;
    cudw_line_file *files;
    assert_int_equal(cudw_line_header_from_paths(paths, mt, sz, 4, &dirs, &nd, &files), CUDW_OK);
    assert_int_equal(nd, 2);
    assert_string_equal(dirs[0], "/p/src");
    assert_string_equal(dirs[1], "/usr/include");
    assert_string_equal(files[2].name, "b.cuh");
    assert_int_equal(files[2].dir, 1);
    assert_int_equal(files[1].dir, 2);
    assert_int_equal(files[3].dir, 0);
    assert_int_equal(files[3].size, 40);
    for (size_t i = 0; i < nd; i++)
        free(dirs[i]);
    free(dirs);
    free(files);
}

/* The builder gives the bytes cudw_line_encode gives for the same header
 * and rows: files by path split and numbered as cudw_line_header_from_paths
 * does, explicit directories kept twice when added twice, symbols copied. */
static void builder_matches_encoder(void **state)
{
    (void)state;
    const char *paths[] = {"/p/src/a.cu", "/usr/include/x.h", "/p/src/b.cuh", "plain.cu", "/root.cu"};
    uint64_t mt[] = {1, 2, 3, 4, 5}, sz[] = {10, 20, 30, 40, 50};
    char **dirs;
    size_t nd;
    cudw_line_file *files;
    assert_int_equal(cudw_line_header_from_paths(paths, mt, sz, 5, &dirs, &nd, &files), CUDW_OK);
    char sym[] = "_Z6kernelv";
    cudw_line_row rows[] = {{.address = 0, .symbol = sym, .file = 1, .line = 5, .is_stmt = 1},
                            {.address = 0x10, .symbol = sym, .file = 3, .line = 9, .is_stmt = 1, .context = 1,
                             .function_offset = 0x21},
                            {.address = 0x40, .symbol = sym, .end_sequence = 1}};
    cudw_line_params p = cudw_line_params_nvidia();
    cudw_line_header_in h = {(const char *const *)dirs, nd, files, 5, 1, 0x30, ".debug_str"};
    cudw_line_out want, got;
    assert_int_equal(cudw_line_encode(&p, &h, rows, 3, &want), CUDW_OK);

    cudw_line_builder *b;
    uint64_t num;
    assert_int_equal(cudw_line_builder_open(&b, NULL), CUDW_OK);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(cudw_line_builder_path(b, paths[i], mt[i], sz[i], &num), CUDW_OK);
        assert_int_equal(num, i + 1);
    }
    cudw_line_builder_str_base(b, 0x30, ".debug_str");
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(cudw_line_builder_row(b, &rows[i]), CUDW_OK);
    memset(sym, 'Y', 4); /* the caller's string changes: the builder holds its own copy */
    assert_int_equal(cudw_line_builder_finish(b, &got), CUDW_OK);
    assert_int_equal(got.size, want.size);
    assert_memory_equal(got.data, want.data, want.size);
    assert_int_equal(got.nsites, want.nsites);
    for (size_t i = 0; i < got.nsites; i++) {
        assert_int_equal(got.sites[i].offset, want.sites[i].offset);
        assert_true(!strcmp(got.sites[i].symbol, "_Z6kernelv") || !strcmp(got.sites[i].symbol, ".debug_str"));
    }
    cudw_line_out_free(&got);
    cudw_line_builder_close(b);

    /* explicit directories: a name given twice is two entries */
    assert_int_equal(cudw_line_builder_open(&b, NULL), CUDW_OK);
    assert_int_equal(cudw_line_builder_dir(b, "/d", &num), CUDW_OK);
    assert_int_equal(num, 1);
    assert_int_equal(cudw_line_builder_dir(b, "/d", &num), CUDW_OK);
    assert_int_equal(num, 2);
    assert_int_equal(cudw_line_builder_path(b, "/d/k.cu", 0, 0, &num), CUDW_OK); /* the first /d */
    assert_int_equal(cudw_line_builder_file(b, NULL, 1, 0, 0, &num), CUDW_E_ARG);
    assert_int_equal(cudw_line_builder_error(b)->code, CUDW_E_ARG);
    cudw_line_builder_close(b);
    cudw_line_out_free(&want);
    for (size_t i = 0; i < nd; i++)
        free(dirs[i]);
    free(dirs);
    free(files);
}

static void encoder_errors(void **state)
{
    (void)state;
    cudw_line_row rows[3] = {{.address = 0x20, .line = 1, .file = 1}, {.address = 0x10, .line = 2, .file = 1},
                             {.address = 0x30, .end_sequence = 1}};
    cudw_line_params p = cudw_line_params_nvidia();
    cudw_line_header_in h = {0};
    cudw_line_out out;
    assert_int_equal(cudw_line_encode(&p, &h, rows, 3, &out), CUDW_E_ARG);
    assert_int_equal(out.err.offset, 1);
    assert_null(out.data);
    p.line_range = 0;
    assert_int_equal(cudw_line_encode(&p, &h, rows, 0, &out), CUDW_E_ARG);

}

/* The rows of a known ptxas table (tests/fixtures/tiny_sm90_G.cubin,
 * .debug_line) encode to its exact program bytes. */
static void known_program(void **state)
{
    (void)state;
    cudw_line_row rows[] = {
        {.address = 0x0, .file = 1, .line = 3, .is_stmt = 1, .symbol = "_Z11tiny_kernelPii"},
        {.address = 0xe0, .file = 1, .line = 5, .is_stmt = 1, .symbol = "_Z11tiny_kernelPii"},
        {.address = 0x170, .file = 1, .line = 6, .is_stmt = 1, .symbol = "_Z11tiny_kernelPii"},
        {.address = 0x290, .file = 1, .line = 7, .is_stmt = 1, .symbol = "_Z11tiny_kernelPii"},
        {.address = 0x400, .file = 1, .line = 7, .end_sequence = 1, .symbol = "_Z11tiny_kernelPii"},
    };
    static const uint8_t program[] = {0x00, 0x09, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0x01, 0x03, 0x02, 0x01,
                                      0x03, 0x02, 0x02, 0xe0, 0x01, 0x01, 0x03, 0x01, 0x02, 0x90, 0x01, 0x01,
                                      0x03, 0x01, 0x02, 0xa0, 0x02, 0x01, 0x02, 0xf0, 0x02, 0x00, 0x01, 0x01};
    cudw_line_params p = cudw_line_params_nvidia();
    cudw_line_header_in h = {0};
    cudw_line_out out;
    assert_int_equal(cudw_line_encode(&p, &h, rows, 5, &out), CUDW_OK);
    assert_true(out.size > sizeof program);
    assert_memory_equal(out.data + out.size - sizeof program, program, sizeof program);
    assert_int_equal(out.nsites, 1);
    assert_int_equal(out.sites[0].offset, out.size - sizeof program + 3);
    assert_string_equal(out.sites[0].symbol, "_Z11tiny_kernelPii");
    cudw_line_out_free(&out);
}

/* ---- the row decoder's in-line fast paths against the raw opcodes ----
 * cudw_line_next takes the common opcodes in line (special, copy, short
 * advance_pc / advance_line / set_file / set_column, NVIDIA's 0x90) and
 * the rest through cudw_line_op_next.  Random programs mixing both, with
 * random header parameters (opcode_base 4 makes set_file special), odd
 * LEB encodings (padded, long, 0x90 with bytes after its operands) and
 * truncation, must give the rows and the errors of a plain state machine
 * over cudw_line_op_next; cudw_line_table_check the same error. */

static size_t put_uleb(uint8_t *d, uint64_t v, unsigned pad)
{
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v || pad)
            b |= 0x80;
        d[n++] = b;
    } while (v);
    while (pad--) /* redundant continuation bytes: still the same value */
        d[n++] = pad ? 0x80 : 0;
    return n;
}

static size_t put_sleb(uint8_t *d, int64_t v)
{
    size_t n = 0;
    for (;;) {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
            d[n++] = b;
            return n;
        }
        d[n++] = b | 0x80;
    }
}

static size_t random_program(uint8_t *d, size_t cap, unsigned opcode_base)
{
    size_t n = 0;
    while (n + 32 < cap) {
        unsigned pick = next() % 16, pad = next() % 4 == 0 ? (unsigned)(next() % 3) : 0;
        uint64_t big = next() % 4 == 0 ? next() % 100000 : next() % 200;
        switch (pick) {
        case 0: case 1: case 2: /* special */
            d[n++] = (uint8_t)(opcode_base + next() % (256 - opcode_base));
            break;
        case 3: d[n++] = 1; break;
        case 4: d[n++] = 2; n += put_uleb(d + n, big, pad); break;
        case 5: case 6: d[n++] = 3; n += put_sleb(d + n, (int64_t)(next() % 20000) - 10000); break;
        case 7: d[n++] = 4; n += put_uleb(d + n, next() % 300, pad); break;
        case 8: d[n++] = 5; n += put_uleb(d + n, next() % 300, pad); break;
        case 9: d[n++] = 6; break;
        case 10: d[n++] = 9; d[n++] = (uint8_t)next(); d[n++] = (uint8_t)next(); break;
        case 11: case 12: { /* 0x90, sometimes with trailing bytes inside its length */
            uint8_t ops[32];
            size_t k = put_uleb(ops, next() % 40, pad);
            k += put_uleb(ops + k, big, 0);
            size_t extra = next() % 3 == 0 ? next() % 3 : 0;
            d[n++] = 0;
            d[n++] = (uint8_t)(1 + k + extra);
            d[n++] = 0x90;
            memcpy(d + n, ops, k);
            n += k;
            while (extra--)
                d[n++] = (uint8_t)next();
            break;
        }
        case 13: d[n++] = 0; d[n++] = 2; d[n++] = 0x91; d[n++] = (uint8_t)(next() % 128); break;
        case 14: d[n++] = 8; break;
        default: d[n++] = 0; d[n++] = 1; d[n++] = 1; break; /* end_sequence */
        }
    }
    return n;
}

/* A line unit: version 2, the given parameters, one file. */
static size_t line_unit(uint8_t *u, const uint8_t *prog, size_t plen, unsigned min_inst, int line_base,
                        unsigned line_range, unsigned opcode_base)
{
    static const uint8_t lengths[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
    uint8_t h[64];
    size_t k = 0;
    h[k++] = (uint8_t)min_inst;
    h[k++] = 1; /* default_is_stmt */
    h[k++] = (uint8_t)line_base;
    h[k++] = (uint8_t)line_range;
    h[k++] = (uint8_t)opcode_base;
    memcpy(h + k, lengths, opcode_base - 1);
    k += opcode_base - 1;
    h[k++] = 0;                        /* no include directories */
    memcpy(h + k, "a.cu\0\0\0\0", 9); /* a.cu, dir 0, mtime 0, size 0; the list's end */
    k += 9;
    uint32_t unit_len = (uint32_t)(2 + 4 + k + plen), hlen = (uint32_t)k;
    memcpy(u, &unit_len, 4);
    u[4] = 2;
    u[5] = 0;
    memcpy(u + 6, &hlen, 4);
    memcpy(u + 10, h, k);
    memcpy(u + 10 + k, prog, plen);
    return 10 + k + plen;
}

/* The opcodes of t (every one decoded) encoded again
 * (cudw_line_encode_ops) are its program's bytes: odd LEBs, unknown
 * extended opcodes and all (the header is the caller's to give). */
static void ops_give_bytes_back(const cudw_line_table *t, const uint8_t *unit, size_t ulen)
{
    cudw_line_op ops[700];
    size_t n = 0;
    uint64_t pos = t->program_offset;
    while (n < 700 && cudw_line_op_next(t, &pos, &ops[n]) == CUDW_OK)
        n++;
    cudw_line_params p = {.version = t->version, .addr_size = 8, .min_inst_length = t->min_inst_length,
                          .default_is_stmt = t->default_is_stmt, .line_range = t->line_range,
                          .opcode_base = t->opcode_base, .line_base = t->line_base};
    cudw_line_header_in h = {0};
    cudw_line_out out;
    assert_int_equal(cudw_line_encode_ops(&p, &h, ops, n, &out), CUDW_OK);
    size_t prog = (size_t)(t->program_offset - t->offset), ours = 10 + 5 + (p.opcode_base - 1) + 2;
    assert_int_equal(out.size - ours, ulen - prog);
    assert_memory_equal(out.data + ours, unit + prog, ulen - prog);
    cudw_line_out_free(&out);
}

static void fast_path_matches_general(void **state)
{
    (void)state;
    static const unsigned bases[] = {10, 13, 4, 2};
    char strs[128] = {0};
    for (int round = 0; round < 400; round++) {
        uint8_t prog[600], unit[700];
        unsigned base = bases[round % 4];
        unsigned min_inst = round % 5 == 0 ? 4 : 1, range = 1 + (unsigned)(next() % 20);
        int lbase = -(int)(next() % 6);
        size_t plen = random_program(prog, sizeof prog, base);
        if (round % 3 == 0) /* cut anywhere: both must fail at the same opcode */
            plen = (size_t)(next() % (plen + 1));
        size_t ulen = line_unit(unit, prog, plen, min_inst, lbase, range, base);
        uint8_t *img;
        cudw_file *f;
        const cudw_line_table *t = open_unit(unit, ulen, strs, sizeof strs, &img, &f);
        /* the plain state machine */
        uint64_t pos = t->program_offset, addr = 0, file = 1, line = 1, col = 0, ctx = 0, fn = 0, nrows = 0;
        int stmt = 1, ref_rc;
        cudw_line_op o;
        cudw_line_iter it;
        cudw_line_row r;
        cudw_line_iter_init(t, &it, 0);
        while ((ref_rc = cudw_line_op_next(t, &pos, &o)) == CUDW_OK) {
            int row = 0, end = 0;
            if (o.kind == CUDW_LOP_SPECIAL) {
                addr += o.addr_adv;
                line += (uint64_t)o.line_adv;
                row = 1;
            } else if (o.kind == CUDW_LOP_STANDARD) {
                switch (o.opcode) {
                case 1: row = 1; break;
                case 2: case 8: addr += o.addr_adv; break;
                case 3: line += (uint64_t)o.s; break;
                case 4: file = o.u; break;
                case 5: col = o.u; break;
                case 6: stmt = !stmt; break;
                case 9: addr += o.u; break;
                default: break;
                }
            } else if (o.opcode == 1) {
                row = end = 1;
            } else if (o.opcode == 0x90) {
                ctx = o.u;
                fn = o.u2;
            } else if (o.opcode == 0x91) {
                fn = o.u;
            }
            if (!row)
                continue;
            assert_int_equal(cudw_line_next(&it, &r), CUDW_OK);
            assert_int_equal(r.op_offset, o.offset);
            assert_int_equal(r.address, addr);
            assert_int_equal(r.file, file);
            assert_int_equal(r.line, line);
            assert_int_equal(r.column, col);
            assert_int_equal(r.is_stmt, stmt);
            assert_int_equal(r.context, ctx);
            assert_int_equal(r.function_offset, fn);
            assert_int_equal(r.end_sequence, end);
            nrows++;
            if (end) {
                addr = col = ctx = fn = 0;
                file = line = 1;
                stmt = 1;
            }
        }
        int rc = cudw_line_next(&it, &r);
        assert_int_equal(rc, ref_rc);
        if (rc < 0) /* the same place and the same complaint */
            assert_int_equal(cudw_last_error(f)->offset, o.offset);
        /* and the checker says so before any row */
        assert_int_equal(cudw_line_table_check(t), rc < 0 ? rc : CUDW_OK);
        if (rc < 0)
            assert_int_equal(cudw_last_error(f)->offset, o.offset);
        if (rc == CUDW_DONE)
            ops_give_bytes_back(t, unit, ulen);
        cudw_line_iter_free(&it);
        cudw_close(f);
        free(img);
        (void)nrows;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(header_from_paths),
        cmocka_unit_test(builder_matches_encoder),
        cmocka_unit_test(encoder_errors),
        cmocka_unit_test(known_program),
        cmocka_unit_test(fast_path_matches_general),
    };
    return run_group("line", tests);
}
