/* Stage 1 (src/ptx): each behaviour of the model (enum behaviour in
 * src/stage1/gen.h, docs/ptx-lines.md) on ptxas's own output.  A case is
 * a PTX file and the cubin ptxas 13.0 made from it (tests/fixtures/stage1;
 * their programs are in tests/src/stage1): the model predicts the cubin's
 * line section byte for byte; with the behaviour switched off the
 * prediction differs, and first in the opcodes, not the header.  So each
 * case fails if its behaviour is removed, and names it.  The cases are
 * hand-written PTX of a few .locs (the fixture's comment says what it
 * shows) or nvcc's PTX of a program in tests/src/stage1.
 *
 * Every behaviour has a case but two that no committed cubin shows
 * (B_ENTRY_STATE_LINE, B_MERC_ENTRY_ADVANCE: docs/ptx-lines.md).  Each
 * case is the smallest PTX among the fixtures that show its behaviour;
 * `--survey DIR...` finds them: for each behaviour, how many of the line
 * sections the model gets right in DIR's pairs (X.ptx or X_smNN_MODE.ptx
 * with X*.cubin) it gets wrong without it, and the smallest such pair.
 *
 * `--explain` prints, for each case, the first opcode where ptxas and the
 * model without the behaviour part (docs/ptx-lines.md quotes them).
 *
 *   TEST_FILTER='*B_DELAY*' build/tests/test_stage1
 *   build/tests/test_stage1 --survey tests/fixtures/stage1 build/gen/stage1/sm_90
 *   build/tests/test_stage1 --explain */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "ptx/ptx_handle.h"
#include "stage1/gen.h"

#define FIXDIR "tests/fixtures/stage1/"

typedef struct s1case {
    enum behaviour b;
    const char *name, *ptx, *cubin, *section;
} s1case;

#define C(b, ptx, cubin, section) {b, #b, FIXDIR ptx, FIXDIR cubin, section}
static const s1case cases[] = {
    C(B_STAND_IN, "line0ctx_sm90_lineinfo.ptx", "line0ctx_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_ENTRY_REPEAT, "startinl_sm90_lineinfo.rdc.ptx", "startinl_sm90_lineinfo.rdc.O3.cubin", ".debug_line"),
    C(B_ENTRY_ADVANCE, "skipent_sm90_lineinfo.ptx", "skipent_sm90_lineinfo.O3.cubin", ".debug_line"),
    C(B_SAME_LINE_ADVANCE, "twoinst_sm75_lineinfo.ptx", "twoinst_sm75_lineinfo.O0.cubin", ".debug_line"),
    C(B_BACK_IN_CONTEXT, "backctx_sm75_lineinfo.ptx", "backctx_sm75_lineinfo.O0.cubin", ".debug_line"),
    C(B_DELAY, "stair_sm90_lineinfo.ptx", "stair_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_SELECT_QUIETLY, "soft_sm90_lineinfo.ptx", "soft_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_LEAVE_BRANCH, "branch_sm90_lineinfo.ptx", "branch_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_HOLD, "offsetnd_sm90_lineinfo.ptx", "offsetnd_sm90_lineinfo.O2.cubin", ".debug_line"),
    C(B_REVISIT_KEEPS, "offsetnd_sm120_lineinfo.ptx", "offsetnd_sm120_lineinfo.O1.cubin", ".debug_line"),
    C(B_DELAYED_OWN_ROW, "horner_sm100_lineinfo.ptx", "horner_sm100_lineinfo.O2.cubin", ".debug_line"),
    C(B_OWED_CONTEXT_ROWS, "collapse_sm90_lineinfo.ptx", "collapse_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_OWED_GROUP, "dotsum_sm90_lineinfo.ptx", "dotsum_sm90_lineinfo.O2.cubin", ".debug_line"),
    C(B_LATE_SELECT, "templ_sm90_lineinfo.ptx", "templ_sm90_lineinfo.O1.cubin", ".debug_line"),
    C(B_OWED_MOVE, "althdr_sm90_lineinfo.ptx", "althdr_sm90_lineinfo.O1.cubin", ".debug_line"),
    C(B_START_OWED, "startinl_sm90_lineinfo.rdc.ptx", "startinl_sm90_lineinfo.rdc.O3.cubin", ".debug_line"),
    C(B_START_CLAIM, "hashline_sm90_lineinfo.rdc.ptx", "hashline_sm90_lineinfo.rdc.O3.cubin", ".debug_line"),
    C(B_OTHER_FILE_LINE, "lerp_sm90_lineinfo.ptx", "lerp_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_PROVISIONAL_ADVANCE, "rnd3_sm90_lineinfo.ptx", "rnd3_sm90_lineinfo.O2.cubin", ".debug_line"),
    C(B_REPEAT_IF_LONG, "hlnmacro_sm90_lineinfo.ptx", "hlnmacro_sm90_lineinfo.O2.cubin", ".debug_line"),
    C(B_FIRST_ROW_NAMES, "firstrow_sm90_lineinfo.ptx", "firstrow_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_DEAD_0X90, "collapse_sm100_lineinfo.ptx", "collapse_sm100_lineinfo.O0.cubin", ".nv.merc.debug_line"),
    C(B_BACK_TO_WRITTEN, "back_sm90_lineinfo.ptx", "back_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_AT_ROW_STICKY, "collapse_sm100_lineinfo.ptx", "collapse_sm100_lineinfo.O0.cubin", ".nv.merc.debug_line"),
    C(B_TWICE, "walkloop_sm90_lineinfo.ptx", "walkloop_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_TURN, "chainbase_sm90_lineinfo.ptx", "chainbase_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_NAMES_AFTER_DEAD, "horner_sm100_lineinfo.ptx", "horner_sm100_lineinfo.O2.cubin", ".debug_line"),
    C(B_NAME_STAYS, "backctx_sm75_lineinfo.ptx", "backctx_sm75_lineinfo.O0.cubin", ".debug_line"),
    C(B_CONTEXT_FIRST, "warpsum_sm75_lineinfo.ptx", "warpsum_sm75_lineinfo.O0.cubin", ".debug_line"),
    C(B_CONTEXT_FILE, "chain3_sm75_lineinfo.ptx", "chain3_sm75_lineinfo.O2.cubin", ".debug_line"),
    C(B_FILE_FIRST, "line0ctx_sm100_lineinfo.ptx", "line0ctx_sm100_lineinfo.O3.cubin", ".nv.merc.debug_line"),
    C(B_STALE_FILE, "line0ctx_sm90_lineinfo.ptx", "line0ctx_sm90_lineinfo.O0.cubin", ".debug_line"),
    C(B_ENTRY_BELIEF, "hdrfile_sm90_lineinfo.ptx", "hdrfile_sm90_lineinfo.O2.cubin", ".debug_line"),
    C(B_MERGE_DEAD, "offsetnd_sm90_lineinfo.ptx", "offsetnd_sm90_lineinfo.O2.cubin", ".debug_line"),
};

/* Where the prediction with behaviours `off` first differs from the
 * cubin's own section (SIZE_MAX: identical), past the unit_length (4
 * bytes: which says only that the sizes differ). */
static size_t first_diff(cudw_file *f, cudw_ptx *p, const char *section, uint64_t off)
{
    cudw_ptx_prediction pr;
    assert_int_equal(ptx_predict_with(f, p, section, off, &pr), CUDW_OK);
    const cudw_section *s = cudw_section_find(f, section);
    assert_non_null(s);
    const uint8_t *d = s->data;
    size_t n = (size_t)s->data_size, i = 4, m = n < pr.unit.size ? n : pr.unit.size;
    while (i < m && d[i] == pr.unit.data[i])
        i++;
    size_t at = i >= m && n == pr.unit.size && !memcmp(d, pr.unit.data, 4) ? SIZE_MAX : i;
    cudw_ptx_prediction_free(&pr);
    return at;
}

static void behaviour(void **state)
{
    const s1case *c = *state;
    cudw_file *f = NULL;
    cudw_ptx *p = NULL;
    assert_int_equal(cudw_open(&f, c->cubin), CUDW_OK);
    assert_int_equal(cudw_ptx_open(c->ptx, &p), CUDW_OK);
    const cudw_line_table *t;
    uint64_t cur = 0;
    assert_int_equal(cudw_line_table_next(f, cudw_section_find(f, c->section), &cur, &t), CUDW_OK);
    /* the model: ptxas's bytes */
    size_t on_at = first_diff(f, p, c->section, 0);
    if (on_at != SIZE_MAX)
        fail_msg("%s: the prediction differs from ptxas's at offset 0x%zx", c->cubin, on_at);
    /* without the behaviour: different opcodes */
    size_t off_at = first_diff(f, p, c->section, 1ull << c->b);
    if (off_at == SIZE_MAX)
        fail_msg("%s without %s: still ptxas's bytes", c->cubin, c->name);
    if (off_at < t->program_offset - t->offset)
        fail_msg("%s without %s: the header differs (offset 0x%zx)", c->cubin, c->name, off_at);
    /* cudw_ptx_compare (verify --ptx) names an opcode where they part, at
     * or before the first byte that differs */
    cudw_ptx_prediction pr;
    cudw_ptx_diff d;
    assert_int_equal(ptx_predict_with(f, p, c->section, 1ull << c->b, &pr), CUDW_OK);
    assert_int_equal(cudw_ptx_compare(f, &pr, &d), CUDW_OK);
    assert_true(d.has_table && !d.identical && (d.has_own_op || d.has_predicted_op));
    if (d.has_own_op)
        assert_true(d.own_op.offset - t->offset <= off_at);
    cudw_ptx_prediction_free(&pr);
    assert_int_equal(ptx_predict_with(f, p, c->section, 0, &pr), CUDW_OK);
    assert_int_equal(cudw_ptx_compare(f, &pr, &d), CUDW_OK);
    assert_true(d.identical);
    cudw_ptx_prediction_free(&pr);
    cudw_ptx_close(p);
    cudw_close(f);
}

/* --survey: one line section the model gets right. */
typedef struct pair {
    char ptx[1024], cubin[1024];
    const char *section;
    long size; /* of the PTX */
} pair;

/* The PTX a cubin of dir was made from: X.O2.cubin -> X.ptx. */
static int ptx_of(const char *dir, const char *cubin, char *out, size_t cap)
{
    char base[256];
    snprintf(base, sizeof base, "%s", cubin);
    for (int k = 0; k < 2; k++) {
        char *dot = strrchr(base, '.');
        if (!dot)
            return 0;
        *dot = 0;
        struct stat st;
        snprintf(out, cap, "%s/%s.ptx", dir, base);
        if (!stat(out, &st))
            return 1;
    }
    return 0;
}

/* Whether the model predicts section of cubin from ptx (off = 0). */
static int right(const char *ptx, const char *cubin, const char *section, uint64_t off)
{
    cudw_file *f = NULL;
    cudw_ptx *p = NULL;
    int ok = 0;
    if (cudw_open(&f, cubin) == CUDW_OK && cudw_section_find(f, section) && cudw_ptx_open(ptx, &p) == CUDW_OK) {
        cudw_ptx_prediction pr;
        const cudw_section *s = cudw_section_find(f, section);
        if (ptx_predict_with(f, p, section, off, &pr) == CUDW_OK)
            ok = pr.unit.size == s->data_size && !memcmp(pr.unit.data, s->data, pr.unit.size);
        cudw_ptx_prediction_free(&pr);
    }
    cudw_ptx_close(p);
    cudw_close(f);
    return ok;
}

static size_t collect(const char *dir, pair **v, size_t n, size_t *cap)
{
    static const char *const secs[] = {".debug_line", ".nv.merc.debug_line"};
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        char ptx[1024], cubin[1024];
        if (len < 7 || len >= 256 || strcmp(e->d_name + len - 6, ".cubin") || !ptx_of(dir, e->d_name, ptx, sizeof ptx))
            continue;
        snprintf(cubin, sizeof cubin, "%s/%s", dir, e->d_name);
        for (int k = 0; k < 2; k++) {
            if (!right(ptx, cubin, secs[k], 0))
                continue;
            if (n == *cap && !(*v = realloc(*v, (*cap = *cap * 2 + 64) * sizeof **v)))
                abort();
            struct stat st;
            pair *q = &(*v)[n++];
            snprintf(q->ptx, sizeof q->ptx, "%s", ptx);
            snprintf(q->cubin, sizeof q->cubin, "%s", cubin);
            q->section = secs[k];
            q->size = stat(ptx, &st) ? 0 : (long)st.st_size;
        }
    }
    if (d)
        closedir(d);
    return n;
}

static int survey(int argc, char **argv)
{
    pair *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 2; i < argc; i++)
        n = collect(argv[i], &v, n, &cap);
    printf("%zu line sections the model predicts byte for byte\n", n);
    for (int b = 0; b < B_COUNT; b++) {
        size_t broke = 0, best = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            if (!right(v[i].ptx, v[i].cubin, v[i].section, 1ull << b)) {
                broke++;
                if (best == SIZE_MAX || v[i].size < v[best].size)
                    best = i;
            }
        const char *name = NULL;
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            if ((int)cases[i].b == b)
                name = cases[i].name;
        printf("%-3d %-24s %5zu  %s %s\n", b, name ? name : "(no case)", broke,
               best == SIZE_MAX ? "-" : v[best].cubin, best == SIZE_MAX ? "" : v[best].section);
    }
    free(v);
    return 0;
}

/* The opcode layer under stage 1 (line_rows_to_ops): a replaced 0x90 4
 * GiB past the row before it is not 65,537 DW_LNS_fixed_advance_pc
 * opcodes (a fuzzed table asked for 2^40 bytes of them) but an error
 * naming the row; three of them are fine. */
static void replaced_0x90_far(void **state)
{
    (void)state;
    line_wrow far[3] = {{.address = 0, .line = 1, .file = 1},
                        {.address = 1ull << 32, .line = 1, .file = 1, .hidden = 2, .context = 1},
                        {.address = (1ull << 32) + 0x10, .end_sequence = 1}};
    cudw_line_params p = cudw_line_params_nvidia();
    cudw_line_header_in h = {0};
    cudw_line_out out;
    assert_int_equal(line_encode_wrows(&p, &h, far, 3, &out), CUDW_E_ARG);
    assert_int_equal(out.err.offset, 1);
    assert_non_null(strstr(out.err.detail, "DW_LNS_fixed_advance_pc"));
    assert_null(out.data);
    far[1].address = 0x30000;
    far[2].address = 0x30010;
    assert_int_equal(line_encode_wrows(&p, &h, far, 3, &out), CUDW_OK);
    cudw_line_out_free(&out);
}

static void op_text(const cudw_line_op *o, char *buf, size_t n)
{
    const char *name = o->kind == CUDW_LOP_SPECIAL ? NULL : cudw_line_op_name(o->opcode, o->kind == CUDW_LOP_EXTENDED);
    if (o->kind == CUDW_LOP_SPECIAL)
        snprintf(buf, n, "special 0x%02x", o->opcode);
    else if (o->kind == CUDW_LOP_EXTENDED && o->opcode == CUDW_LNE_INLINED_CALL)
        snprintf(buf, n, "0x90 (%llu, %llu)", (unsigned long long)o->u, (unsigned long long)o->u2);
    else if (o->kind == CUDW_LOP_EXTENDED && o->opcode == CUDW_LNE_MERC_ENTRY)
        snprintf(buf, n, "0x92 %llu", (unsigned long long)o->u);
    else if (o->kind == CUDW_LOP_STANDARD && o->opcode == CUDW_DW_LNS_advance_line)
        snprintf(buf, n, "%s %lld", name, (long long)o->s);
    else if (o->kind == CUDW_LOP_STANDARD && (o->opcode == 1 || o->opcode == 6))
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "%s %llu", name ? name : "?", (unsigned long long)o->u);
}

/* --explain: each case's first opcode where ptxas (= the model) and the
 * model without the behaviour part, with the two opcodes before it. */
static int explain(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const s1case *c = &cases[i];
        cudw_file *f = NULL;
        cudw_ptx *p = NULL;
        cudw_ptx_prediction a, b;
        if (cudw_open(&f, c->cubin) || cudw_ptx_open(c->ptx, &p) ||
            ptx_predict_with(f, p, c->section, 0, &a) || ptx_predict_with(f, p, c->section, 1ull << c->b, &b))
            return 1;
        size_t k = 0;
        while (k < a.nops && k < b.nops && a.ops[k].kind == b.ops[k].kind && a.ops[k].opcode == b.ops[k].opcode &&
               a.ops[k].u == b.ops[k].u && a.ops[k].s == b.ops[k].s && a.ops[k].u2 == b.ops[k].u2)
            k++;
        char x[64] = "(end)", y[64] = "(end)", p1[64] = "", p2[64] = "";
        if (k < a.nops)
            op_text(&a.ops[k], x, sizeof x);
        if (k < b.nops)
            op_text(&b.ops[k], y, sizeof y);
        if (k >= 2)
            op_text(&a.ops[k - 2], p1, sizeof p1);
        if (k >= 1)
            op_text(&a.ops[k - 1], p2, sizeof p2);
        printf("%-22s %s %s: opcode %zu after [%s; %s]: ptxas %s, without it %s\n", c->name,
               strrchr(c->cubin, '/') + 1, c->section, k, p1, p2, x, y);
        cudw_ptx_prediction_free(&a);
        cudw_ptx_prediction_free(&b);
        cudw_ptx_close(p);
        cudw_close(f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--explain"))
        return explain();
    if (argc > 1 && !strcmp(argv[1], "--survey"))
        return survey(argc, argv);
    enum { N = sizeof cases / sizeof *cases };
    struct CMUnitTest tests[N + 1];
    for (size_t i = 0; i < N; i++)
        tests[i] = (struct CMUnitTest){.name = cases[i].name, .test_func = behaviour,
                                       .initial_state = (void *)&cases[i]};
    tests[N] = (struct CMUnitTest){.name = "replaced_0x90_far", .test_func = replaced_0x90_far};
    return run_group("stage 1 behaviours", tests);
}
