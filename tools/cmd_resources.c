/* cudwarf resources: registers, barriers, shared memory, stack and
 * constant banks per kernel and function, as ptxas -v and cuobjdump
 * -res-usage tell them, from the cubin alone (cudw_resources). */
#include "cli.h"
#include "emit.h"
#include "opts.h"
#include "jobs.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char help_head[] =
    "usage: cudwarf resources [--json] [-C] FILE...\n"
    "\n"
    "Per image, each kernel and device function with the resources the cubin\n"
    "records (what ptxas -v prints when it builds it, and cuobjdump -res-usage):\n"
    "\n"
    "  regs      registers per thread (.nv.info EIATTR_REGCOUNT)\n"
    "  bars      named barriers (kernels)\n"
    "  smem      static __shared__ bytes (kernels; dynamic shared memory is\n"
    "            chosen at launch and is not in the cubin)\n"
    "  stack     stack frame bytes; cumul: with the callees (kernels)\n"
    "  cmem0     constant bank 0 bytes: the launch parameters and what the\n"
    "            driver puts there; params: the parameters' part\n"
    "  maxregs   the register cap it was built under; maxthreads: __launch_bounds__\n"
    "\n"
    "'-' where the cubin does not record a value.  A function ptxas placed inside\n"
    "a kernel (whole-program builds: symbol $KERNEL$FUNCTION) is listed under it:\n"
    "its registers and stack are the kernel's.\n"
    "\n";
static const char help_tail[] =
    "\n"
    "Exit status: 0 success, 1 bad input, 2 usage.\n";

typedef struct ropts {
    int json, demangle;
} ropts;

/* name, demangled with -C; a placed callee "$kernel$callee" shows its
 * callee's name */
static const char *shown(const ropts *o, const char *name, char *buf, size_t n)
{
    const char *tail = name[0] == '$' ? strrchr(name, '$') : NULL;
    if (o->demangle && tail && tail != name && cudw_demangle(tail + 1, buf, n) && strlen(buf) < n - 1)
        return buf;
    if (o->demangle && cudw_demangle(name, buf, n) && strlen(buf) < n - 1)
        return buf;
    return name;
}

static atomic_int bare; /* images without functions: not shown in the text, counted */

/* One function's record, through the emitter (emit.h): JSON under its
 * keys, the text one row of the table `one` heads.  The text's columns
 * follow ptxas -v's order (cmem0 and params before maxregs), JSON's the
 * schema's, so three columns are written once in each style. */
static void func_print(emit *m, const cudw_func_resources *v, size_t i, const ropts *o)
{
    const cudw_func_resources *r = &v[i];
    char d[1024];
    const char *name = shown(o, r->name, d, sizeof d);
    em_obj(m, NULL);
    em_str(m, "name", NULL, 0, r->name);
    if (o->demangle)
        em_str(m, "demangled", NULL, 0, name);
    em_bool(m, "entry", r->entry);
    em_str(m, "placed_in", NULL, 0, r->placed_in ? v[r->placed_in - 1].name : NULL);
    em_u64(m, "code_bytes", NULL, 0, r->code_bytes);
    em_str(m, NULL, "  ", -8, r->placed_in ? "  placed" : r->entry ? "kernel" : "function");
    em_num(m, "registers", " ", 5, r->registers);
    em_num(m, "barriers", " ", 5, r->barriers);
    em_num(m, "shared_bytes", " ", 7, r->shared_bytes);
    em_num(m, "stack_bytes", " ", 7, r->stack_bytes);
    em_num(m, "cumulative_stack_bytes", " ", 7, r->min_stack_bytes);
    em_num(m, NULL, " ", 6, r->const_bytes[0]);
    em_num(m, NULL, " ", 6, r->param_bytes);
    em_num(m, "max_registers", " ", 7, r->max_registers);
    em_num(m, "param_bytes", NULL, 0, r->param_bytes);
    em_obj(m, "constant_banks");
    for (int k = 0; k < CUDW_RES_BANKS; k++) {
        char key[12];
        snprintf(key, sizeof key, "%d", k);
        if (r->const_bytes[k] >= 0)
            em_u64(m, key, NULL, 0, (uint64_t)r->const_bytes[k]);
    }
    em_end_obj(m);
    if (r->max_threads[0]) {
        em_arr(m, "max_threads");
        em_item_u64(m, " ", EM_DEC_W4, r->max_threads[0]);
        em_item_u64(m, ",", EM_DEC, r->max_threads[1]);
        em_item_u64(m, ",", EM_DEC, r->max_threads[2]);
        em_end_arr(m);
    } else {
        em_num(m, "max_threads", " ", 10, -1);
    }
    em_str(m, NULL, "  ", 0, name);
    em_text(m, "\n");
    em_end_obj(m);
}

/* An image's functions: JSON in the order the cubin has them, the text
 * each kernel followed by what ptxas placed in it, then the other
 * functions */
static void image_print(emit *m, const char *label, unsigned sm, const cudw_func_resources *v, size_t n,
                        const ropts *o)
{
    em_obj(m, NULL);
    int named = label[0] && label[strlen(label) - 1] == ']'; /* a container's image label says its SM */
    em_str(m, "file", "", 0, label);
    em_u64(m, "sm", named ? NULL : " (sm_", EM_DEC, sm);
    em_u64(m, NULL, named ? ": " : "): ", EM_DEC, n);
    em_text(m, n == 1 ? " function\n" : " functions\n");
    em_text(m, "  kind      regs  bars    smem   stack   cumul  cmem0 params maxregs maxthreads  name\n");
    em_arr(m, "kernels");
    for (size_t i = 0; i < n; i++) {
        if (m->j) {
            func_print(m, v, i, o);
            continue;
        }
        if (v[i].placed_in)
            continue;
        func_print(m, v, i, o);
        for (size_t k = 0; k < n; k++)
            if (v[k].placed_in == i + 1)
                func_print(m, v, k, o);
    }
    em_end_arr(m);
    em_end_obj(m);
}

static int one(cudw_file *f, const char *label, void *ctx, json *j)
{
    const ropts *o = ctx;
    cudw_func_resources *v;
    size_t n;
    if (cudw_resources(f, &v, &n) != CUDW_OK) {
        report(f, label);
        return EXIT_BAD_INPUT;
    }
    if (!o->json && !n) /* the text leaves it out and counts it */
        atomic_fetch_add(&bare, 1);
    else
        image_print(&(emit){o->json ? j : NULL, &out_stdout}, label, cudw_header(f)->sm, v, n, o);
    cudw_resources_free(v);
    return EXIT_OK;
}

static const cli_opt table[] = {
    {NULL, 'C', NULL, 2, "demangle names"},
    {"--json", 0, NULL, 1, "one object per image: {\"file\", \"sm\", \"kernels\": [{\"name\",\n"
                           "\"entry\", \"registers\", \"barriers\", \"shared_bytes\", \"stack_bytes\",\n"
                           "\"cumulative_stack_bytes\", ...}]} (docs/json.md); null: not recorded"},
    {"--demangle", 0, NULL, 2, OPT_UNLISTED}, /* -C's long name (correlate lists it), never listed here */
    {0}};

int cmd_resources(int argc, char **argv)
{
    ropts o = {0};
    int nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "resources", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: opt_help(&out_stdout, help_head, table, 12, help_tail); return EXIT_OK;
        case OPT_ERR: return EXIT_USAGE;
        case OPT_POS: argv[nfiles++] = (char *)a.value; break; /* the operands, in order, over argv */
        case 1: o.json = 1; break;
        case 2: o.demangle = 1; break;
        }
    }
    if (!nfiles) {
        usage_error("resources", "no input file");
        return EXIT_USAGE;
    }
    json j;
    json_init(&j, &out_stdout);
    if (!o.json)
        jobs_sep = "\n"; /* a blank line between images */
    int rc = run_images(argv, nfiles, &(image_run){one, &o, &j, o.json, NULL, NULL, NULL});
    if (atomic_load(&bare))
        eprintf("%s: note: %d image%s without functions (no code) not shown\n", progname, atomic_load(&bare),
                atomic_load(&bare) == 1 ? "" : "s");
    return rc;
}
