/* The sm_90 synchronization rows on the GPU: the kernels of sync_testkit.h (a pipeline of
 * mbarriers and bulk copies between a producer and a consumer warp, named barriers, a spin
 * on a shared flag, the other rows) run through the CUDA C backend and give the results
 * sync_test.c checks on the interpreter.  Without a GPU every kernel still goes through the
 * CUDA C backend and NVRTC for sm_90a, and the test skips visibly. */
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "interp/gpu_testkit.h"
#include "interp/sync_testkit.h"

static void compile_only(void)
{
    sk_lines L;
    int line;
    cute_ir_func *k[6] = {sk_pipeline(SK_GOOD, &L), sk_named(false, &line), sk_flag(), sk_rows(), sk_bulk_store(SK_BULK_GOOD, &line),
                          sk_cluster_forms()};
    kt_compiles_sm90a(k, 6);
}

int main(void)
{
    char err[512];
    cute_runtime *rt = NULL;
    compile_only();
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no GPU, sync kernels compiled for sm_90a but not run: %s", err);
        SKIP(why);
        return CHECK_DONE("interp sync_gpu");
    }
    cute_backend gpu = *cute_runtime_backend(rt);
    srand(23);
    sk_pipeline_good(gpu);
    sk_named_good(gpu);
    sk_flag_spin(gpu);
    sk_rows_check(gpu);
    sk_bulk_store_check(gpu);
    sk_cluster_forms_check(gpu);
    printf("sync rows on the GPU: pipeline, named barriers, flag spin, rows, bulk store, cluster forms checked\n");
    cute_runtime_free(rt);
    return CHECK_DONE("interp sync_gpu");
}
