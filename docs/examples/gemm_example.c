/* The GEMM library from C: C = alpha * A * B^T + beta * C with A (M,K), B (N,K), C (M,N),
 * each operand column- or row-major as its strides say.  Small integers, so every backend
 * gives the same exact answer (the interpreter here; the GPU with CUTEC_BACKEND=cuda). */
#include <stdio.h>

#include "cutec/kernels.h"

enum { M = 2, N = 3, K = 4 };

int main(void)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(NULL, &rt, err, sizeof err) != CUTE_OK) {
        printf("no runtime: %s\n", err);
        return 1;
    }
    cute_backend *b = cute_runtime_backend(rt);
    /* A row-major (K contiguous), B column-major as (N,K) (N contiguous), C row-major */
    float a[M * K], bt[N * K], c[M * N];
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++) a[m * K + k] = (float)(m + k);     /* A(m,k) = m + k */
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++) bt[n + k * N] = (float)(n == k);   /* B(n,k) = [n == k] */
    for (int i = 0; i < M * N; i++) c[i] = 100;
    cute_buffer dA, dB, dC;
    b->vt->alloc(b->self, sizeof a, &dA), b->vt->alloc(b->self, sizeof bt, &dB);
    b->vt->alloc(b->self, sizeof c, &dC);
    b->vt->upload(b->self, &dA, 0, a, sizeof a), b->vt->upload(b->self, &dB, 0, bt, sizeof bt);
    b->vt->upload(b->self, &dC, 0, c, sizeof c);
    cute_call_arg A = cute_call_tensor(&dA, 0, CUTE_F32, 2, (int64_t[]){M, K}, (int64_t[]){K, 1});
    cute_call_arg B = cute_call_tensor(&dB, 0, CUTE_F32, 2, (int64_t[]){N, K}, (int64_t[]){1, N});
    cute_call_arg C = cute_call_tensor(&dC, 0, CUTE_F32, 2, (int64_t[]){M, N}, (int64_t[]){N, 1});

    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    /* C = 2 A B^T + 1 C: B^T picks A's first three columns */
    cute_status s = cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, &C, 2.0, 1.0, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK) {
        printf("gemm: %s\n", err);
        return 1;
    }
    b->vt->download(b->self, c, &dC, 0, sizeof c);
    for (int m = 0; m < M; m++)
        printf("C(%d,:) = %g %g %g\n", m, c[m * N], c[m * N + 1], c[m * N + 2]);

    /* a call that does not add up is refused with the reason, before anything runs */
    cute_call_arg B2 = B;
    B2.shape[1] = 3;
    s = cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B2, &C, 1.0, 0.0, NULL, err, sizeof err);
    printf("%s: %s\n", cute_status_name(s), err);

    cute_gemm_lib_free(lib);
    b->vt->free(b->self, &dA), b->vt->free(b->self, &dB), b->vt->free(b->self, &dC);
    cute_runtime_free(rt);
    return 0;
}
