/* Test helpers: a tiny in-memory ELF64 builder so unit tests can hand the
 * library exactly the bytes they mean to test. */
#ifndef CUDW_TESTUTIL_H
#define CUDW_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cudwarf.h"
#include "telf.h"

/* The cases a run takes: those whose name matches TEST_FILTER (cmocka's
 * wildcards, "*line*"), all without it -- `TEST_FILTER='*crlf*'
 * build/tests/test_line`, or tests/run.sh's unit suite with it set. */
static inline void test_filter(void)
{
    const char *f = getenv("TEST_FILTER");
    if (f && *f)
        cmocka_set_test_filter(f);
}
#define run_group(name, tests) (test_filter(), cmocka_run_group_tests_name(name, tests, NULL, NULL))

/* Open bytes that the test keeps; asserts success. */
static inline cudw_file *topen(const uint8_t *b, size_t len)
{
    cudw_file *f = NULL;
    int rc = cudw_open_mem(&f, b, len, "test.cubin");
    if (rc != CUDW_OK) {
        char msg[512];
        cudw_error_format(cudw_last_error(f), msg, sizeof msg);
        fail_msg("open: %s", msg);
    }
    return f;
}

#endif
