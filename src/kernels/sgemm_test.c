/* SGEMM step 1 against a float64 CPU reference on fresh random data with a poisoned C: on
 * the interpreter (small) always, on the GPU (larger) where there is one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"

static uint64_t seed;

static void run(cute_runtime *rt, int64_t M, int64_t N, int64_t K, const char *backend)
{
    char err[2048];
    cute_fn *f = cute_sgemm_compile(rt, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (!f) return;
    cute_backend *b = cute_runtime_backend(rt);
    float *A = malloc(sizeof(float) * (size_t)(M * K)), *B = malloc(sizeof(float) * (size_t)(N * K)),
          *C = malloc(sizeof(float) * (size_t)(M * N));
    for (int64_t i = 0; i < M * K; i++) A[i] = (float)ew_random(&seed);
    for (int64_t i = 0; i < N * K; i++) B[i] = (float)ew_random(&seed);
    float *C0 = malloc(sizeof(float) * (size_t)(M * N));
    for (int64_t i = 0; i < M * N; i++) C[i] = C0[i] = (float)ew_random(&seed);
    const double alpha = 1.5, beta = -0.5;
    cute_buffer dA, dB, dC;
    b->vt->alloc(b->self, sizeof(float) * (size_t)(M * K), &dA);
    b->vt->alloc(b->self, sizeof(float) * (size_t)(N * K), &dB);
    b->vt->alloc(b->self, sizeof(float) * (size_t)(M * N), &dC);
    b->vt->upload(b->self, &dA, 0, A, sizeof(float) * (size_t)(M * K));
    b->vt->upload(b->self, &dB, 0, B, sizeof(float) * (size_t)(N * K));
    b->vt->upload(b->self, &dC, 0, C, sizeof(float) * (size_t)(M * N));
    cute_call_arg args[5] = {
        cute_call_tensor(&dA, 0, CUTE_F32, 2, (int64_t[]){M, K}, (int64_t[]){1, M}),
        cute_call_tensor(&dB, 0, CUTE_F32, 2, (int64_t[]){N, K}, (int64_t[]){1, N}),
        cute_call_tensor(&dC, 0, CUTE_F32, 2, (int64_t[]){M, N}, (int64_t[]){1, M}),
        cute_call_float(alpha), cute_call_float(beta)};
    cute_status s = cute_call(f, NULL, 5, args);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s sgemm %lldx%lldx%lld: %s %s", backend, (long long)M, (long long)N,
          (long long)K, cute_fn_error(f), b->vt->error(b->self));
    b->vt->download(b->self, C, &dC, 0, sizeof(float) * (size_t)(M * N));
    int64_t bad = 0;
    double worst = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t m = 0; m < M; m++) {
            double ref = 0, mag = 0;
            for (int64_t k = 0; k < K; k++) {
                ref += (double)A[m + k * M] * B[n + k * N];
                mag += fabs((double)A[m + k * M] * B[n + k * N]);
            }
            ref = alpha * ref + beta * C0[m + n * M];
            mag = fabs(alpha) * mag + fabs(beta * C0[m + n * M]);
            double e = fabs(C[m + n * M] - ref) / (mag > 0 ? mag : 1);
            if (!(e <= 1e-5)) bad++;
            if (e > worst) worst = e;
        }
    CHECK(bad == 0, "%s sgemm %lldx%lldx%lld: %lld wrong (worst relative error %g)", backend,
          (long long)M, (long long)N, (long long)K, (long long)bad, worst);
    /* a call whose A disagrees with its buffer is refused, not run wrong */
    args[0].shape[1] = K + 1000;
    CHECK(cute_call(f, NULL, 5, args) == CUTE_ERR_INVALID, "A past its buffer refused: %s", cute_fn_error(f));
    b->vt->free(b->self, &dA), b->vt->free(b->self, &dB), b->vt->free(b->self, &dC);
    free(A), free(B), free(C), free(C0);
    cute_fn_free(f);
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    printf("sgemm_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK) {
        run(rt, 128, 128, 16, "interp");
        run(rt, 1, 1, 1, "interp");
        run(rt, 131, 67, 13, "interp"); /* primes: tails in M, N and K */
        run(rt, 256, 128, 24, "interp");
        cute_runtime_free(rt);
    }
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        run(rt, 128, 128, 8, "cuda");
        run(rt, 1, 1, 1, "cuda");
        run(rt, 1021, 509, 263, "cuda");
        run(rt, 1024, 768, 520, "cuda");
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: SGEMM step 1 ran on the interpreter only");
    }
    return CHECK_DONE("sgemm_test");
}
