/* cudwarf resources: registers, barriers, shared memory, stack and
 * constant banks per kernel and function, as ptxas -v and cuobjdump
 * -res-usage tell them, from the cubin alone (cudw_resources). */
#include "cli.h"
#include "opts.h"
#include "jobs.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cudwarf resources [--json] [-C] [--sm=N] [-j N] FILE...\n"
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
    "\n"
    "  -C        demangle names\n"
    "  --json    one object per image: {\"file\", \"sm\", \"kernels\": [{\"name\",\n"
    "            \"entry\", \"registers\", \"barriers\", \"shared_bytes\", \"stack_bytes\",\n"
    "            \"cumulative_stack_bytes\", ...}]} (docs/json.md); null: not recorded\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 usage.\n";

typedef struct ropts {
    int json, demangle;
} ropts;

static void num_json(json *j, const char *key, int64_t v)
{
    if (v < 0)
        json_null(j, key);
    else
        json_u64(j, key, (uint64_t)v);
}

static void num_text(obuf *o, int width, int64_t v)
{
    char b[32];
    if (v < 0)
        snprintf(b, sizeof b, "-");
    else
        snprintf(b, sizeof b, "%lld", (long long)v);
    ob_printf(o, " %*s", width, b);
}

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

static void one_json(json *j, const cudw_func_resources *v, size_t i, const ropts *o)
{
    const cudw_func_resources *r = &v[i];
    char d[1024];
    json_obj(j, NULL);
    json_str(j, "name", r->name);
    if (o->demangle)
        json_str(j, "demangled", shown(o, r->name, d, sizeof d));
    json_bool(j, "entry", r->entry);
    json_str(j, "placed_in", r->placed_in ? v[r->placed_in - 1].name : NULL);
    json_u64(j, "code_bytes", r->code_bytes);
    num_json(j, "registers", r->registers);
    num_json(j, "barriers", r->barriers);
    num_json(j, "shared_bytes", r->shared_bytes);
    num_json(j, "stack_bytes", r->stack_bytes);
    num_json(j, "cumulative_stack_bytes", r->min_stack_bytes);
    num_json(j, "max_registers", r->max_registers);
    num_json(j, "param_bytes", r->param_bytes);
    json_obj(j, "constant_banks");
    for (int k = 0; k < CUDW_RES_BANKS; k++)
        if (r->const_bytes[k] >= 0) {
            char key[12];
            snprintf(key, sizeof key, "%d", k);
            json_u64(j, key, (uint64_t)r->const_bytes[k]);
        }
    json_end_obj(j);
    if (r->max_threads[0]) {
        json_arr(j, "max_threads");
        for (int k = 0; k < 3; k++)
            json_u64(j, NULL, r->max_threads[k]);
        json_end_arr(j);
    } else {
        json_null(j, "max_threads");
    }
    json_end_obj(j);
}

static void one_text(obuf *out, const cudw_func_resources *v, size_t i, const ropts *o)
{
    const cudw_func_resources *r = &v[i];
    char d[1024];
    ob_printf(out, "  %-8s", r->placed_in ? "  placed" : r->entry ? "kernel" : "function");
    num_text(out, 5, r->registers);
    num_text(out, 5, r->barriers);
    num_text(out, 7, r->shared_bytes);
    num_text(out, 7, r->stack_bytes);
    num_text(out, 7, r->min_stack_bytes);
    num_text(out, 6, r->const_bytes[0]);
    num_text(out, 6, r->param_bytes);
    num_text(out, 7, r->max_registers);
    if (r->max_threads[0])
        ob_printf(out, " %4u,%u,%u", r->max_threads[0], r->max_threads[1], r->max_threads[2]);
    else
        ob_printf(out, " %10s", "-");
    ob_printf(out, "  %s\n", shown(o, r->name, d, sizeof d));
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
    if (o->json) {
        json_obj(j, NULL);
        json_str(j, "file", label);
        json_u64(j, "sm", cudw_header(f)->sm);
        json_arr(j, "kernels");
        for (size_t i = 0; i < n; i++)
            one_json(j, v, i, o);
        json_end_arr(j);
        json_end_obj(j);
    } else if (!n) {
        atomic_fetch_add(&bare, 1);
    } else {
        obuf *out = &out_stdout;
        ob_printf(out, "%s (sm_%u): %zu function%s\n", label, cudw_header(f)->sm, n, n == 1 ? "" : "s");
        if (n)
            ob_printf(out, "  %-8s %5s %5s %7s %7s %7s %6s %6s %7s %10s  %s\n", "kind", "regs", "bars", "smem",
                      "stack", "cumul", "cmem0", "params", "maxregs", "maxthreads", "name");
        /* each kernel, then what ptxas placed in it; then the other functions */
        for (size_t i = 0; i < n; i++) {
            if (v[i].placed_in)
                continue;
            one_text(out, v, i, o);
            for (size_t k = 0; k < n; k++)
                if (v[k].placed_in == i + 1)
                    one_text(out, v, k, o);
        }
    }
    cudw_resources_free(v);
    return EXIT_OK;
}

int cmd_resources(int argc, char **argv)
{
    static const cli_opt table[] = {{"--json", 0, 0, 1}, {"--demangle", 'C', 0, 2}, {0}};
    ropts o = {0};
    int nfiles = 0;
    cli_args a = {argc, argv, 1, NULL, NULL, 0};
    for (int id; (id = opt_next(&a, "resources", table)) != OPT_END;) {
        switch (id) {
        case OPT_HELP: ob_puts(&out_stdout, help); return EXIT_OK;
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
