/* The GEMM library from an installed cutec: C = alpha A B^T + beta C in f32 with A (M,K)
 * row-major, B (N,K) column-major and C (M,N) row-major, odd sizes, against a float64
 * reference on the host; then a call whose shapes do not agree, refused with the reason.
 * GPU when there is one, else the interpreter.
 *   cc -std=c11 gemm.c $(pkg-config --cflags --libs cutec) -o gemm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutec/kernels.h"

enum { M = 45, N = 38, K = 29 };

static float A_[M * K], B_[N * K], C_[M * N], out[M * N];

static float uniform(void) { return (float)rand() / RAND_MAX * 2 - 1; }

/* the elements of out that differ from alpha A B^T + beta C (float64) beyond f32 rounding */
static int count_wrong(double alpha, double beta)
{
    int bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double acc = 0;
            for (int k = 0; k < K; k++) acc += (double)A_[m * K + k] * B_[n + k * N];
            double want = alpha * acc + beta * C_[m * N + n];
            bad += fabs(out[m * N + n] - want) > 1e-4 * (1 + fabs(want));
        }
    return bad;
}

int main(void)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(NULL, &rt, err, sizeof err) != CUTE_OK) return printf("%s\n", err), 1;
    cute_backend *b = cute_runtime_backend(rt);
    for (int i = 0; i < M * K; i++) A_[i] = uniform();
    for (int i = 0; i < N * K; i++) B_[i] = uniform();
    for (int i = 0; i < M * N; i++) C_[i] = uniform();
    cute_buffer dA, dB, dC;
    b->vt->alloc(b->self, sizeof A_, &dA), b->vt->alloc(b->self, sizeof B_, &dB);
    b->vt->alloc(b->self, sizeof C_, &dC);
    b->vt->upload(b->self, &dA, 0, A_, sizeof A_), b->vt->upload(b->self, &dB, 0, B_, sizeof B_);
    b->vt->upload(b->self, &dC, 0, C_, sizeof C_);
    cute_call_arg A = cute_call_tensor(&dA, 0, CUTE_F32, 2, (int64_t[]){M, K}, (int64_t[]){K, 1});
    cute_call_arg B = cute_call_tensor(&dB, 0, CUTE_F32, 2, (int64_t[]){N, K}, (int64_t[]){1, N});
    cute_call_arg C = cute_call_tensor(&dC, 0, CUTE_F32, 2, (int64_t[]){M, N}, (int64_t[]){N, 1});

    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_status s = cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, &C, 1.5, -0.5, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK) return printf("gemm: %s\n", err), 1;
    b->vt->download(b->self, out, &dC, 0, sizeof out);
    int bad = count_wrong(1.5, -0.5);
    printf("sgemm %dx%dx%d on %s: %d of %d wrong\n", M, N, K, cute_runtime_backend_name(rt), bad,
           M * N);

    cute_call_arg B2 = B; /* K of B is not K of A */
    B2.shape[1] = K - 1;
    s = cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B2, &C, 1.0, 0.0, NULL, err, sizeof err);
    printf("B of (%d,%d): %s: %s\n", N, K - 1, cute_status_name(s), err);

    cute_gemm_lib_free(lib);
    b->vt->free(b->self, &dA), b->vt->free(b->self, &dB), b->vt->free(b->self, &dC);
    cute_runtime_free(rt);
    return bad != 0 || s != CUTE_ERR_INVALID;
}
