/* The interpreter catches what a broken pipeline gets wrong: the tensor-core GEMM (step 5,
 * bf16, 129x72x200 and 128x256x192) with its main loop's cp.async wait_group left out, and
 * with its barrier left out, must each fail with the interpreter's report naming the
^ * fault, while the unbroken kernel on the same inputs runs clean.  (On a GPU these kernels
 * would give wrong results only sometimes; the interpreter says so every time.) */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/kernels.h"
#include "cutec/numeric.h"
#include "kernels/gemm/gemm_internal.h"

static cute_call_arg operand(cute_backend *b, cute_buffer *buf, cute_dtype d, int64_t rows, int64_t cols)
{
    size_t n = (size_t)(rows * cols), es = (size_t)cute_dtype_bytes(d);
    uint16_t *h = malloc(n * es);
    for (size_t i = 0; i < n * es / 2; i++) h[i] = cute_f32_to_bf16((float)(rand() % 17 - 8) / 4.0f);
    b->vt->alloc(b->self, n * es, buf);
    b->vt->upload(b->self, buf, 0, h, n * es);
    free(h);
    /* K-major A and B, column-major C: (rows, cols) with strides (cols, 1) for A/B */
    int64_t shape[2] = {rows, cols}, stride[2] = {cols, 1};
    return cute_call_tensor(buf, 0, d, 2, shape, stride);
}

/* 0 for a clean run, else the call's status; the message in why */
static cute_status run(cute_runtime *rt, unsigned broken, int64_t M, int64_t N, int64_t K, char *why, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_BF16, .major = {1, 1, 1},
                            .align_bytes = K % 8 ? 2 : 16, .c_dtype = CUTE_BF16};
    if (broken & GEMM_BREAK_C_OVER_STAGES || M == 304) cfg.tiling.schedule = CUTE_GEMM_SCHEDULE_PERSISTENT;
    const cute_fn *f = gemm_compile_broken(rt, &cfg, broken, why, n);
    CHECK(f != NULL, "broken %u compiles: %s", broken, why);
    if (!f) return CUTE_ERR_COMPILE;
    cute_buffer bA, bB, bC;
    cute_call_arg args[5] = {operand(b, &bA, CUTE_BF16, M, K), operand(b, &bB, CUTE_BF16, N, K),
                             operand(b, &bC, CUTE_BF16, M, N), cute_call_float(1.0), cute_call_float(0.0)};
    cute_status s = cute_call(f, NULL, 5, args, why, n);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, n, "%s", b->vt->error(b->self));
    b->vt->free(b->self, &bA), b->vt->free(b->self, &bB), b->vt->free(b->self, &bC);
    cute_fn_free(f);
    return s;
}

int main(void)
{
    srand(7);
    /* the persistent kernels below take the five arguments of the static walk (the counter's
     * walk, CUTEC_GEMM_SM80_PERSISTENT=dynamic, takes the library's stream-K flags too) */
    setenv("CUTEC_GEMM_SM80_PERSISTENT", "static", 1);
    char err[512], why[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter");
        return CHECK_DONE("gemm broken_test");
    }
    /* odd M and N with a K tail, and whole tiles: both more k-tiles than stages, and
     * 16-byte aligned, so the copies are cp.async */
    static const int64_t shapes[][3] = {{129, 72, 200}, {128, 256, 192}};
    for (int i = 0; i < 2; i++) {
        int64_t M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
        why[0] = 0;
        CHECK(run(rt, 0, M, N, K, why, sizeof why) == CUTE_OK, "%lldx%lldx%lld unbroken: %s", (long long)M,
              (long long)N, (long long)K, why);
        why[0] = 0;
        cute_status s = run(rt, GEMM_BREAK_WAIT, M, N, K, why, sizeof why);
        printf("no wait_group: %.300s\n", why);
        CHECK(s != CUTE_OK && strstr(why, "cp.async"), "%lldx%lldx%lld without wait_group: %s (%s)", (long long)M,
              (long long)N, (long long)K, cute_status_name(s), why);
        why[0] = 0;
        s = run(rt, GEMM_BREAK_BARRIER, M, N, K, why, sizeof why);
        printf("no barrier: %.300s\n", why);
        CHECK(s != CUTE_OK && (strstr(why, "race") || strstr(why, "cp.async")), "%lldx%lldx%lld without the barrier: %s (%s)",
              (long long)M, (long long)N, (long long)K, cute_status_name(s), why);
    }
    why[0] = 0;
    CHECK(run(rt, 0, 304, 296, 200, why, sizeof why) == CUTE_OK, "persistent, unbroken: %s", why);
    why[0] = 0;
    cute_status s = run(rt, GEMM_BREAK_C_OVER_STAGES, 304, 296, 200, why, sizeof why);
    printf("persistent, C over the stages: %.300s\n", why);
    CHECK(s != CUTE_OK && (strstr(why, "race") || strstr(why, "cp.async")), "persistent, C over the stages: %s (%s)",
          cute_status_name(s), why);
    cute_runtime_free(rt);
    return CHECK_DONE("gemm broken_test");
}
