/* Compile-only: the tensor-core GEMM library's kernels keep everything in registers.  Each
 * dtype's kernel (tensorop_smem, the library's tiling, A and B K-major: the layout the
 * benchmarks run) is compiled by NVRTC with ptxas's report (cute_fn_code "usage"), which
 * must show no spill stores or loads and no stack frame.  Skipped, visibly, where NVRTC is
 * absent; the kernels known to spill are listed with why, not tested. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "kernels/gemm/gemm_ref.h"

/* the first number after `key` in text (-1: none) */
static long number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* the sum of the numbers before each `what` (e.g. "bytes spill stores") in text */
static long sum_before(const char *text, const char *what)
{
    long sum = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) {
        const char *q = p;
        while (q > text && q[-1] == ' ') q--;
        while (q > text && q[-1] >= '0' && q[-1] <= '9') q--;
        sum += strtol(q, NULL, 10);
    }
    return sum;
}

static void check_kernel(cute_runtime *rt, cute_gemm_variant v, cute_dtype d, const char *arch)
{
    cute_gemm_config cfg = {.variant = v, .dtype = d, .major = {1, 1, 0},
                            .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND};
    const cute_dtype *outs;
    int nouts;
    gemm_ref_out_dtypes(d, &outs, &nouts);
    cfg.c_dtype = outs[0]; /* the default C of the dtype, as the CLI picks it */
    char err[2048], *report = NULL;
    cute_runtime_set_target_arch(rt, arch);
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "%s %s: %s", cute_dtype_name(d), arch, err);
    if (!f) return;
    cute_status s = cute_fn_code(f, "usage", arch, &report, err, sizeof err);
    CHECK(s == CUTE_OK, "%s %s: no ptxas report: %s", cute_dtype_name(d), arch, err);
    if (s == CUTE_OK) {
        long regs = number_after(report, "Used "), stores = sum_before(report, "bytes spill stores"),
             loads = sum_before(report, "bytes spill loads"), stack = sum_before(report, "bytes stack frame");
        printf("  %-13s %-9s %-7s %3ld registers, %ld/%ld bytes spilled, %ld of stack\n", cute_gemm_variant_name(v), cute_dtype_name(d), arch,
               regs, stores, loads, stack);
        CHECK(regs > 0 && strstr(report, "spill stores"), "%s %s: an unreadable report:\n%s", cute_dtype_name(d),
              arch, report);
        CHECK(stores == 0 && loads == 0 && stack == 0, "%s %s spills: %ld bytes stored, %ld loaded, %ld of stack",
              cute_dtype_name(d), arch, stores, loads, stack);
        /* ptxas says so when wgmma's fences are wrong ("... wgmma.mma_async instructions are
         * serialized due to ...") */
        CHECK(!strstr(report, "serialized"), "%s %s: ptxas serializes the wgmma:\n%s", cute_dtype_name(d), arch,
              report);
    }
    free(report);
    cute_fn_free(f);
}

int main(void)
{
    char err[512];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the GEMM kernels' register reports were not made");
        return CHECK_DONE("spill_test");
    }
    cute_nvrtc_close(nv);
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (check_failed) return CHECK_DONE("spill_test");
    static const cute_dtype sm90[] = {CUTE_BF16, CUTE_F16, CUTE_TF32, CUTE_I8, CUTE_F64};
    for (size_t i = 0; i < sizeof sm90 / sizeof sm90[0]; i++) check_kernel(rt, CUTE_GEMM_TENSOROP_SMEM, sm90[i], "sm_90a");
    /* the Hopper kernel: 128 f32 accumulators a consumer thread, within its 168 registers */
    check_kernel(rt, CUTE_GEMM_HOPPER, CUTE_BF16, "sm_90a");
    check_kernel(rt, CUTE_GEMM_HOPPER, CUTE_F16, "sm_90a");
    check_kernel(rt, CUTE_GEMM_TENSOROP_SMEM, CUTE_BF16, "sm_80");
    check_kernel(rt, CUTE_GEMM_TENSOROP_SMEM, CUTE_F64, "sm_80"); /* m8n8k4 DMMA, another tiling */
    SKIP("e4m3/e5m2 on sm_90a: ptxas emulates fp8 mma.sync (F2FP, two HMMA, four FADD) and "
         "spills 68 bytes; s8 with M- or N-major operands (element-wise fragments) spills 8-36");
    cute_runtime_free(rt);
    return CHECK_DONE("spill_test");
}
