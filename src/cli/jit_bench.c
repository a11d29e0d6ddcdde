/* cutec bench jit: what compiling and calling cost.
 *   first compile  the f16 add's first cute_compile in this process: cold when the disk
 *                  cache is empty, a disk hit when an earlier process filled it
 *   cold compile   the same with CUTEC_NO_CACHE (trace + CUDA C + NVRTC + module load)
 *   call overhead  host time of cute_call (argument checks, launch program, launch) against
 *                  launching a prepared call again (cute_call_launch), batches of 128 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cutec/kernels.h"
#include "cutec/cuda_driver.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const cute_fn *compile_add(cute_runtime *rt, cute_call_arg *args, double *us, char *err, size_t n)
{
    double t0 = now_us();
    const cute_fn *f = cute_ew_compile(rt, "ew_add", cute_ew_op_expr, (void *)(intptr_t)CUTE_EW_ADD, 2, args,
                                 &args[2], NULL, err, n);
    *us = now_us() - t0;
    return f;
}

int cmd_bench_jit(void)
{
    char err[2048];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench jit: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    cute_backend *b = cute_runtime_backend(rt);
    int64_t shape[1] = {4096}, stride[1] = {1};
    cute_buffer x, y, z;
    b->vt->alloc(b->self, 8192, &x), b->vt->alloc(b->self, 8192, &y), b->vt->alloc(b->self, 8192, &z);
    cute_call_arg args[3] = {cute_call_tensor(&x, 0, CUTE_F16, 1, shape, stride),
                             cute_call_tensor(&y, 0, CUTE_F16, 1, shape, stride),
                             cute_call_tensor(&z, 0, CUTE_F16, 1, shape, stride)};
    double first_us, cold_us = -1;
    const cute_fn *f = compile_add(rt, args, &first_us, err, sizeof err);
    if (!f) {
        fprintf(stderr, "cutec bench jit: %s\n", err);
        return CLI_FAIL;
    }
    /* cold: a new runtime that may not use any cache */
    setenv("CUTEC_NO_CACHE", "1", 1);
    cute_runtime *rt2;
    const cute_fn *g = NULL;
    if (cute_runtime_new("cuda", &rt2, err, sizeof err) == CUTE_OK) {
        g = compile_add(rt2, args, &cold_us, err, sizeof err);
        if (!g) cold_us = -1;
        cute_fn_free(g);
        cute_runtime_free(rt2);
    }
    unsetenv("CUTEC_NO_CACHE");
    /* call overhead */
    enum { BATCH = 128, ROUNDS = 41 };
    double call[ROUNDS], replay[ROUNDS];
    cute_call_frame *fr = cute_call_frame_new();
    if (!fr || cute_call_prepare(f, fr, 3, args, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec bench jit: %s\n", fr ? err : "out of memory");
        return CLI_FAIL;
    }
    cute_call(f, NULL, 3, args, err, sizeof err);
    b->vt->sync(b->self, NULL);
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_us();
        for (int i = 0; i < BATCH; i++) cute_call(f, NULL, 3, args, err, sizeof err);
        call[r] = (now_us() - t0) / BATCH;
        b->vt->sync(b->self, NULL);
        t0 = now_us();
        for (int i = 0; i < BATCH; i++) cute_call_launch(f, fr, NULL, err, sizeof err);
        replay[r] = (now_us() - t0) / BATCH;
        b->vt->sync(b->self, NULL);
    }
    qsort(call, ROUNDS, sizeof *call, cmp);
    qsort(replay, ROUNDS, sizeof *replay, cmp);
    printf("first compile (this process): %.2f ms\n", first_us / 1e3);
    if (cold_us > 0) printf("cold compile (CUTEC_NO_CACHE): %.2f ms\n", cold_us / 1e3);
    printf("cute_call: %.3f us per call; backend launch replay: %.3f us; overhead %.3f us (median of %d batches of %d)\n",
           call[ROUNDS / 2], replay[ROUNDS / 2], call[ROUNDS / 2] - replay[ROUNDS / 2], ROUNDS, BATCH);
    cute_call_frame_free(fr);
    cute_fn_free(f);
    b->vt->free(b->self, &x), b->vt->free(b->self, &y), b->vt->free(b->self, &z);
    cute_runtime_free(rt);
    return CLI_OK;
}
