/* For the GPU tests of the interpreter's rows (inst_gpu_test.c, sync_gpu_test.c), and the
 * sm_100a ones that no GPU here runs (tcgen05_test.c): their kernels' CUDA C compiled where
 * no GPU is. */
#ifndef CUTEC_GPU_TESTKIT_H
#define CUTEC_GPU_TESTKIT_H

#include "cutec/cuda_c.h"
#include "cutec/nvrtc.h"
#include "interp/interp_testkit.h"

/* the CUDA C of kernels k[0..n) compiles through NVRTC for arch (no GPU needed), and its PTX
 * holds `ptx_must` (NULL: anything); the kernels are freed.  Skips silently without NVRTC
 * (the caller says what it skipped). */
static inline void kt_compiles_for(cute_ir_func **k, int n, const char *arch, const char *ptx_must)
{
    char err[512], *src = NULL;
    cute_nvrtc *nv;
    bool have = cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK;
    cute_status s = have ? cute_cuda_c_emit((const cute_ir_func *const *)k, n, &(cute_cuda_c_opts){.arch = arch},
                                            &src, err, sizeof err)
                         : CUTE_OK;
    CHECK(s == CUTE_OK, "emit: %s", err);
    cute_nvrtc_output o = {0};
    if (have && s == CUTE_OK) {
        CHECK(cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = arch}, &o) == CUTE_OK, "%s: %s", arch, o.log);
        CHECK(!ptx_must || (o.ptx && strstr(o.ptx, ptx_must)), "%s: the PTX holds %s", arch, ptx_must);
    }
    cute_nvrtc_output_free(&o);
    free(src);
    for (int i = 0; i < n; i++) cute_ir_func_free(k[i]);
    if (have) cute_nvrtc_close(nv);
}

static inline void kt_compiles_sm90a(cute_ir_func **k, int n) { kt_compiles_for(k, n, "sm_90a", NULL); }

#endif
