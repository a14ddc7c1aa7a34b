/* The README's example: list the functions of a cubin with their DIE
 * offsets.  Built and run by the tests. */
#include <cudwarf.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    cudw_file *f;
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.cubin\n", argv[0]);
        return 2;
    }
    if (cudw_open(&f, argv[1]) != CUDW_OK) {
        char msg[512];
        if (f) cudw_error_format(cudw_last_error(f), msg, sizeof msg), fprintf(stderr, "%s: %s\n", argv[1], msg);
        cudw_close(f);
        return 1;
    }
    const cudw_section *info = cudw_section_find(f, ".debug_info");
    uint64_t cursor = 0;
    cudw_unit u;
    int rc = CUDW_DONE;
    while (info && (rc = cudw_unit_next(f, info, &cursor, &u)) == CUDW_OK) {
        cudw_die_iter it;
        cudw_die d;
        cudw_die_iter_init(&u, &it);
        while ((rc = cudw_die_next(&it, &d)) == CUDW_OK) {
            const char *name;
            if (d.tag == CUDW_DW_TAG_subprogram && cudw_die_name(&d, &name) == CUDW_OK)
                printf("0x%llx %s\n", (unsigned long long)d.offset, name);
        }
        if (rc < 0)
            break;
    }
    if (rc < 0) {   /* the error is on the handle: section, offset, what */
        char msg[512];
        cudw_error_format(cudw_last_error(f), msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", argv[1], msg);
    }
    cudw_close(f);
    return rc < 0;
}
