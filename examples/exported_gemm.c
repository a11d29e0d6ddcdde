/* A GEMM exported ahead of time, run with nothing but the CUDA driver: no cutec, no NVRTC.
 *   cutec export gemm --dtype bf16 --out-dtype f32 --layout tnt --out DIR --name gemm_bf16
 *   cc -std=c11 exported_gemm.c DIR/gemm_bf16.c -IDIR -I$CUDA/include \
 *      -L$CUDA/lib64/stubs -lcuda -lm -o exported_gemm
 *   ./exported_gemm [M N K [nocheck]]
 * C (M,N) f32 row-major = A (M,K) bf16 row-major * B (N,K)^T bf16 (K contiguous), checked
 * element by element against a float64 reference on the host (unless nocheck); then a
 * refused call (a misaligned pointer), the host time of the launcher's checks and the
 * device time per call.  Exit 0 only when every element checked matches. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm_bf16.h"

#define TRY(call)                                                                            \
    do {                                                                                     \
        CUresult r_ = (call);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                            \
            const char *s_ = "?";                                                            \
            cuGetErrorName(r_, &s_);                                                         \
            fprintf(stderr, "%s: %s %s\n", #call, s_, err);                                  \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

static char err[1024];

/* a float rounded to bf16 (nearest even): its bits, and the value they hold */
static uint16_t bf16(float x, float *held)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u += 0x7fff + ((u >> 16) & 1);
    u &= 0xffff0000u;
    memcpy(held, &u, 4);
    return (uint16_t)(u >> 16);
}

/* operands of random bf16 values: bits for the GPU, floats for the reference */
static void fill(uint16_t *bits, float *vals, size_t n)
{
    for (size_t i = 0; i < n; i++) bits[i] = bf16((float)rand() / RAND_MAX * 2 - 1, &vals[i]);
}

/* the elements of C farther from the float64 product than f32 accumulation allows */
static long count_wrong(const float *C, const float *A, const float *B, int M, int N, int K)
{
    long bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double acc = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                acc += (double)A[(size_t)m * K + k] * B[(size_t)n * K + k];
                mag += fabs((double)A[(size_t)m * K + k] * B[(size_t)n * K + k]);
            }
            if (fabs(C[(size_t)m * N + n] - acc) > 1e-5 * mag + 1e-6) bad++;
        }
    return bad;
}

int main(int argc, char **argv)
{
    int M = argc > 3 ? atoi(argv[1]) : 1024, N = argc > 3 ? atoi(argv[2]) : 1024;
    int K = argc > 3 ? atoi(argv[3]) : 1024;
    CUdevice dev;
    CUcontext ctx;
    TRY(cuInit(0));
    TRY(cuDeviceGet(&dev, 0));
    TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
    TRY(cuCtxSetCurrent(ctx));
    gemm_bf16_module mod;
    TRY(gemm_bf16_load(&mod, err, sizeof err));

    size_t na = (size_t)M * K, nb = (size_t)N * K, nc = (size_t)M * N;
    uint16_t *ha = malloc(na * 2), *hb = malloc(nb * 2);
    float *fa = malloc(na * 4), *fb = malloc(nb * 4), *hc = malloc(nc * 4);
    if (!ha || !hb || !fa || !fb || !hc) return fprintf(stderr, "out of memory\n"), 1;
    fill(ha, fa, na), fill(hb, fb, nb);
    CUdeviceptr dA, dB, dC;
    TRY(cuMemAlloc(&dA, na * 2));
    TRY(cuMemAlloc(&dB, nb * 2));
    TRY(cuMemAlloc(&dC, nc * 4));
    TRY(cuMemcpyHtoD(dA, ha, na * 2));
    TRY(cuMemcpyHtoD(dB, hb, nb * 2));
    TRY(cuMemsetD8(dC, 0xff, nc * 4)); /* poisoned: NaN everywhere */

    int64_t sa[2] = {M, K}, sb[2] = {N, K}, sc[2] = {M, N};
    cutec_aot_tensor A = {.data = (void *)dA, .ndim = 2, .dtype = {4, 16, 1}, .shape = sa};
    cutec_aot_tensor B = {.data = (void *)dB, .ndim = 2, .dtype = {4, 16, 1}, .shape = sb};
    cutec_aot_tensor C = {.data = (void *)dC, .ndim = 2, .dtype = {2, 32, 1}, .shape = sc};
    cutec_aot_arg args[5] = {{0, &A, 0, 0}, {0, &B, 0, 0}, {0, &C, 0, 0}, {2, NULL, 0, 1.0},
                             {2, NULL, 0, 0.0}};
    TRY(gemm_bf16_call(&mod, NULL, 5, args, err, sizeof err));
    TRY(cuCtxSynchronize());
    TRY(cuMemcpyDtoH(hc, dC, nc * 4));
    long bad = argc > 4 ? 0 : count_wrong(hc, fa, fb, M, N, K);
    printf("exported bf16 GEMM %dx%dx%d (C f32): %s%ld of %zu wrong\n", M, N, K,
           argc > 4 ? "not checked, " : "", bad, nc);

    A.byte_offset = 2; /* a call the kernel was not compiled for */
    CUresult r = gemm_bf16_call(&mod, NULL, 5, args, err, sizeof err);
    printf("A 2 bytes in: %s\n", r == CUDA_ERROR_INVALID_VALUE ? err : "accepted?");
    A.byte_offset = 0;

    struct timespec h0, h1;
    cutec_aot_plan plan;
    clock_gettime(CLOCK_MONOTONIC, &h0);
    for (int i = 0; i < 100000; i++) gemm_bf16_plan(5, args, &plan, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &h1);
    printf("the launcher's checks and plan: %.3f us per call (host)\n",
           ((h1.tv_sec - h0.tv_sec) * 1e9 + (h1.tv_nsec - h0.tv_nsec)) / 100000 / 1e3);

    CUevent t0, t1;
    float ms = 0;
    int iters = 20;
    TRY(cuEventCreate(&t0, 0));
    TRY(cuEventCreate(&t1, 0));
    TRY(cuEventRecord(t0, NULL));
    for (int i = 0; i < iters; i++) TRY(gemm_bf16_call(&mod, NULL, 5, args, err, sizeof err));
    TRY(cuEventRecord(t1, NULL));
    TRY(cuEventSynchronize(t1));
    TRY(cuEventElapsedTime(&ms, t0, t1));
    printf("%.3f ms per call, %.1f TFLOP/s\n", ms / iters, 2.0 * M * N * K / (ms / iters * 1e9));
    gemm_bf16_unload(&mod);
    cuMemFree(dA), cuMemFree(dB), cuMemFree(dC);
    return bad != 0 || r != CUDA_ERROR_INVALID_VALUE;
}
