/* The tcgen05 DSL tests' helpers (arch_tcgen05_test.c, arch_tmem_ldst_test.c): the refusal
 * check (a kernel traced for sm_100 whose first trouble is `bad` fails with `words`, naming the
 * line of the call in the test file `file`) and NVRTC's sm_100a compile of a kernel's CUDA C. */
#ifndef CUTEC_TRACE_TCGEN05_TESTKIT_H
#define CUTEC_TRACE_TCGEN05_TESTKIT_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cutec/nvrtc.h"
#include "cutec/trace.h"

static inline void tc05_refused(const char *file, void (*bad)(cute_ctx *c, int *line), const char *words)
{
    cute_ctx *c = cute_ctx_new();
    cute_ctx_target_arch(c, 100);
    cute_kernel_begin(c, "bad");
    int line = 0;
    bad(c, &line);
    char at[64];
    snprintf(at, sizeof at, "%s:%d:", file, line);
    CHECK(strstr(cute_ctx_error(c), words) && strstr(cute_ctx_error(c), at), "refused at line %d with \"%s\": %s", line,
          words, cute_ctx_error(c));
    cute_ctx_free(c);
}

/* ptxas takes the CUDA C src for sm_100a (a skip where NVRTC is not installed) */
static inline void tc05_compiles_sm100a(const char *src)
{
    char err[512];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("NVRTC not installed: the sm_100a compile");
        return;
    }
    cute_nvrtc_output o = {0};
    CHECK(cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_100a"}, &o) == CUTE_OK, "ptxas, sm_100a: %s", o.log);
    cute_nvrtc_output_free(&o);
    cute_nvrtc_close(nv);
}

#endif
