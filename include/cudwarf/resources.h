/* Resources per function: what `ptxas -v` and `cuobjdump -res-usage` say,
 * read from the cubin alone (docs/formats.md 8).
 *
 *   .nv.info            records of every function: EIATTR_REGCOUNT (0x2f),
 *                       EIATTR_FRAME_SIZE (0x11), EIATTR_MIN_STACK_SIZE (0x12)
 *   .nv.info.<kernel>   records of one kernel: EIATTR_NUM_BARRIERS (0x4c),
 *                       EIATTR_MAX_THREADS (0x05), EIATTR_MAXREG_COUNT
 *                       (0x1b), EIATTR_CBANK_PARAM_SIZE (0x19)
 *   .nv.shared.<kernel> static __shared__ bytes (in a linked image, after
 *                       the 1 KiB sm_90+ reserve at its start)
 *   .nv.constantN.<kernel>  constant bank N's bytes
 *   .text.<kernel>      before CUDA 13: registers in sh_info bits 24-31,
 *                       barriers in sh_flags bits 20-26
 *
 * A record:   u8 format | u8 attribute | format 4: u16 size, size bytes
 *                                       format 3: u16 value
 *                                       format 2: u8 value, u8 pad
 *                                       format 1: u16 pad
 */
#ifndef CUDWARF_RESOURCES_H
#define CUDWARF_RESOURCES_H

#define CUDW_RES_BANKS 18 /* constant banks 0..17 */

typedef struct cudw_func_resources {
    const char *name;         /* the function symbol (linkage name) */
    unsigned symbol;          /* its index in .symtab */
    unsigned section;         /* its code section */
    uint64_t code_bytes;      /* its symbol's size */
    int entry;                /* 1: a kernel (st_other's STO_CUDA_ENTRY, 0x10) */
    /* -1 where the cubin does not record it */
    int64_t registers;
    int64_t barriers;
    int64_t shared_bytes;     /* static __shared__ */
    int64_t stack_bytes;      /* the stack frame (ptxas -v's "bytes stack frame") */
    int64_t min_stack_bytes;  /* with its callees (ptxas -v's "cumulative stack size") */
    int64_t max_registers;    /* the cap it was built under (--maxrregcount, launch bounds) */
    int64_t param_bytes;      /* its parameters' bytes in constant bank 0 */
    int64_t const_bytes[CUDW_RES_BANKS]; /* .nv.constantN.<name> sizes */
    uint32_t max_threads[3];  /* __launch_bounds__ / .maxntid; 0 0 0: none */
    uint32_t placed_in;       /* 1 + the index of the kernel whose code holds this
                                 function ("$kernel$callee": ptxas's whole-program
                                 placement); 0 for a function of its own */
} cudw_func_resources;

/* The functions of f with their resources, kernels first, each group in
 * symbol-table order; an array the caller frees with cudw_resources_free.
 * Placed callees ("$kernel$callee") are listed with placed_in naming their
 * kernel: their stack is the kernel's (ptxas -v reports them before
 * placement).  CUDW_OK (*n may be 0); CUDW_E_NOMEM; a malformed .nv.info
 * record is an error at its offset. */
int cudw_resources(cudw_file *f, cudw_func_resources **out, size_t *n);
void cudw_resources_free(cudw_func_resources *r);

#endif
