/* The cuBLAS reference (cute_ref_gemm) against a float64 CPU product: every combination of
 * A, B and C majors, f32 and f64, padded leading dimensions and degenerate extents, on
 * fresh random data.  It maps cutec's (M,K), (N,K), (M,N) operands onto cuBLAS's
 * column-major operations; a wrong mapping is a wrong reference for every benchmark, so
 * it is checked element by element.  Needs a GPU and cuBLAS; skips visibly without. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cli/cublas.h"
#include "cutec/kernels.h"
#include "cutec/runtime.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

static uint64_t seed;

typedef struct operand {
    int64_t rows, cols, ld, elems;
    int major;
    void *host;
    cute_devptr dev;
    cute_buffer buf;
} operand;

static size_t bytes_of(const operand *x, cute_dtype d)
{
    return (size_t)(x->elems ? x->elems : 1) * (size_t)cute_dtype_bytes(d);
}

static bool make(cute_cuda *cu, operand *x, cute_dtype d, int64_t rows, int64_t cols, int major,
                 int64_t pad)
{
    memset(x, 0, sizeof *x);
    x->rows = rows, x->cols = cols, x->major = major;
    x->ld = (major == 0 ? rows : cols) + pad;
    x->elems = x->ld * (major == 0 ? cols : rows);
    x->host = malloc(bytes_of(x, d));
    if (!x->host || cute_cuda_alloc(cu, bytes_of(x, d), &x->dev) != CUTE_OK) return false;
    for (int64_t i = 0; i < x->elems; i++) ew_set(d, x->host, i, ew_random(&seed));
    x->buf = (cute_buffer){(void *)(uintptr_t)x->dev, bytes_of(x, d), 0, 0};
    return cute_cuda_copy_htod(cu, x->dev, x->host, bytes_of(x, d)) == CUTE_OK;
}

static void drop(cute_cuda *cu, operand *x)
{
    if (x->dev) cute_cuda_free(cu, x->dev);
    free(x->host);
}

static cute_call_arg arg(const operand *x, cute_dtype d)
{
    return cute_call_tensor(&x->buf, 0, d, 2, (int64_t[]){x->rows, x->cols},
                            (int64_t[]){x->major == 0 ? 1 : x->ld, x->major == 0 ? x->ld : 1});
}

static void product(cute_cuda *cu, cute_cublas *h, cute_dtype d, int64_t M, int64_t N, int64_t K,
                    const int major[3], int64_t pad)
{
    operand A, B, C;
    bool ok = make(cu, &A, d, M, K, major[0], pad) && make(cu, &B, d, N, K, major[1], pad) &&
              make(cu, &C, d, M, N, major[2], pad);
    CHECK(ok, "device memory: %s", cute_cuda_error(cu));
    if (ok) {
        void *c0 = malloc(bytes_of(&C, d));
        memcpy(c0, C.host, bytes_of(&C, d));
        const double alpha = 1.5, beta = -0.5, tol = d == CUTE_F64 ? 1e-12 : 1e-5;
        cute_call_arg a = arg(&A, d), b = arg(&B, d), c = arg(&C, d);
        cute_status s = cute_ref_gemm(h, d, &a, &b, &c, alpha, beta, NULL);
        CHECK(s == CUTE_OK, "cute_ref_gemm: %s", cute_cublas_error(h));
        CHECK(cute_cuda_sync(cu) == CUTE_OK, "%s", cute_cuda_error(cu));
        cute_cuda_copy_dtoh(cu, C.host, C.dev, bytes_of(&C, d));
        gemm_ref_operand rA = {A.host, A.ld, A.major}, rB = {B.host, B.ld, B.major}, rC0 = {c0, C.ld, C.major},
                         rC = {C.host, C.ld, C.major};
        double worst;
        int64_t bad = gemm_ref_check_all(d, &rA, &rB, &rC0, &rC, M, N, K, alpha, beta, tol, &worst);
        CHECK(bad == 0, "cuBLAS %s %lldx%lldx%lld majors A%d B%d C%d pad %lld: %lld wrong (worst %g)",
              cute_dtype_name(d), (long long)M, (long long)N, (long long)K, major[0], major[1],
              major[2], (long long)pad, (long long)bad, worst);
        free(c0);
    }
    drop(cu, &A), drop(cu, &B), drop(cu, &C);
}

/* arguments cuBLAS cannot take are refused, not run */
static void refusals(cute_cuda *cu, cute_cublas *h)
{
    operand A, B, C;
    int major[3] = {0, 0, 0};
    /* A padded, so that a call with other strides still lies in its buffer */
    if (!make(cu, &A, CUTE_F32, 8, 4, major[0], 60) || !make(cu, &B, CUTE_F32, 6, 4, major[1], 0) ||
        !make(cu, &C, CUTE_F32, 8, 6, major[2], 0)) {
        CHECK(false, "device memory: %s", cute_cuda_error(cu));
        return;
    }
    cute_call_arg a = arg(&A, CUTE_F32), b = arg(&B, CUTE_F32), c = arg(&C, CUTE_F32), x;
    x = c, x.shape[1] = 7, b.shape[0] = 7;
    CHECK(cute_ref_gemm(h, CUTE_F32, &a, &b, &x, 1, 0, NULL) == CUTE_ERR_INVALID,
          "C past its buffer: %s", cute_cublas_error(h));
    b.shape[0] = 6;
    x = a, x.stride[0] = 2, x.stride[1] = 16;
    CHECK(cute_ref_gemm(h, CUTE_F32, &x, &b, &c, 1, 0, NULL) == CUTE_ERR_INVALID &&
              strstr(cute_cublas_error(h), "no unit stride"),
          "A without a unit stride: %s", cute_cublas_error(h));
    CHECK(cute_ref_gemm(h, CUTE_F64, &a, &b, &c, 1, 0, NULL) == CUTE_ERR_INVALID,
          "dtype f64 for f32 tensors: %s", cute_cublas_error(h));
    drop(cu, &A), drop(cu, &B), drop(cu, &C);
}

int main(void)
{
    const char *env = getenv("CUTEC_SEED");
    seed = env ? strtoull(env, NULL, 10) | 1 : (uint64_t)time(NULL) | 1;
    printf("cublas_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_cuda *cu;
    if (cute_cuda_open(NULL, &cu, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no GPU: the cuBLAS reference was not checked (%s)", err);
        SKIP(why);
        return CHECK_DONE("cublas_test");
    }
    cute_cublas *h;
    if (cute_cublas_open(cu, &h, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no cuBLAS: %s", err);
        SKIP(why);
        cute_cuda_close(cu);
        return CHECK_DONE("cublas_test");
    }
    printf("cublas_test: %s, version %d\n", cute_cublas_path(h), cute_cublas_version(h));
    const cute_dtype dts[2] = {CUTE_F32, CUTE_F64};
    for (int d = 0; d < 2; d++)
        for (int mask = 0; mask < 8; mask++) {
            int major[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
            product(cu, h, dts[d], 67, 45, 33, major, 0);
            product(cu, h, dts[d], 130, 70, 300, major, 3);
        }
    /* degenerate extents: size-1 modes, K = 0 (C = beta C) */
    product(cu, h, CUTE_F32, 1, 1, 1, (int[]){1, 0, 1}, 0);
    product(cu, h, CUTE_F32, 1, 9, 5, (int[]){1, 1, 1}, 0);
    product(cu, h, CUTE_F64, 9, 1, 5, (int[]){0, 0, 1}, 2);
    product(cu, h, CUTE_F32, 7, 5, 0, (int[]){0, 1, 0}, 0);
    refusals(cu, h);
    cute_cublas_close(h);
    cute_cuda_close(cu);
    return CHECK_DONE("cublas_test");
}
