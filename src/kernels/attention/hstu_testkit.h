/* The HSTU tests' runs (hstu_test.c, hstu_jagged_test.c): a table of cases on one backend
 * through one library, and the check that a call was refused with words naming what was
 * wrong. */
#ifndef CUTEC_HSTU_TESTKIT_H
#define CUTEC_HSTU_TESTKIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/hstu.h"
#include "kernels/attention/attention_testbuf.h"

/* one case of a test's table (its own struct) on lib, `backend` naming the run in failures */
typedef void hstu_test_case_fn(cute_hstu_lib *lib, cute_backend *b, const void *kase, const char *backend);

/* each of n cases (size bytes apart) run by run on `backend`, what the calls are ("jagged hstu
 * attention") named in a skip's words.  With CUTEC_HSTU_VARIANT set (the Hopper kernel, read
 * as the library compiles) the interpreter is traced for sm_90a and a GPU runs them only where
 * it is an sm_90 one; without a GPU, or with another, a visible skip. */
static inline void hstu_test_run_on(const char *backend, const char *what, hstu_test_case_fn *run, const void *cases,
                                    size_t size, int n)
{
    char err[512];
    cute_runtime *rt;
    bool hopper = getenv("CUTEC_HSTU_VARIANT") != NULL, interp = !strcmp(backend, "interp");
    if (cute_runtime_new(backend, &rt, err, sizeof err) != CUTE_OK) {
        printf("%s: %s\nno GPU: %s%s ran on the interpreter only\n", backend, err, hopper ? "the Hopper " : "", what);
        SKIP("no GPU");
        return;
    }
    if (hopper && interp) cute_runtime_set_target_arch(rt, "sm_90a");
    if (hopper && !interp && !attn_test_hopper_here(cute_runtime_backend(rt), CUTE_ATTENTION_HOPPER, what)) {
        cute_runtime_free(rt);
        return;
    }
    cute_hstu_lib *lib = cute_hstu_lib_new(rt);
    for (int i = 0; i < n; i++) run(lib, cute_runtime_backend(rt), (const char *)cases + (size_t)i * size, backend);
    cute_hstu_lib_free(lib);
    cute_runtime_free(rt);
}

/* a call that answered s and err: refused (CUTE_ERR_INVALID) with words naming `want` */
static inline void hstu_test_refused(cute_status s, const char *err, const char *want)
{
    CHECK(s == CUTE_ERR_INVALID && strstr(err, want), "refused (%s): status %d, '%s'", want, (int)s, err);
}

#endif
