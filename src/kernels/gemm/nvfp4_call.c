/* cutec_gemm_nvfp4: seed 001's NVFP4 block-scaled GEMM through the library, the call checked
 * here (each mistake named) before the Blackwell kernel (blackwell.c) is compiled, once per
 * C dtype and major, and run. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "cutec/gemv.h"
#include "kernels/gemm/gemm_internal.h"

enum { NVF4_VEC = 16 }; /* elements a ue4m3 scale covers */

/* a scale buffer: rank 1, ue4m3, unit stride, the scales of a (rows, K) operand at least */
static cute_status scales_ok(const cute_call_arg *sf, const char *name, int64_t rows, int64_t K, char *err, size_t n)
{
    int64_t want = cute_gemv_sf_count(rows, K, 1, NVF4_VEC);
    if (!sf || sf->kind != CUTE_ARG_TENSOR || !sf->buf || sf->ndim != 1 || sf->dtype != CUTE_UE4M3 ||
        (sf->shape[0] > 1 && sf->stride[0] != 1) || sf->shape[0] < want ||
        ((uint64_t)(uintptr_t)sf->buf->ptr + sf->offset) % 16 || sf->offset + (size_t)sf->shape[0] > sf->buf->bytes)
        return snprintf(err, n, "gemm nvfp4: %s must be a unit-stride rank-1 ue4m3 tensor, 16-byte aligned, of "
                        "at least %" PRId64 " scales (CuTe's layout of a %" PRId64 " x %" PRId64 " operand: "
                        "cute_gemv_sf_count)", name, want, rows, K), CUTE_ERR_INVALID;
    return CUTE_OK;
}

/* A (M,K), B (N,K) e2m1 K-major; C (M,N) f16, bf16 or f32; their scales; K a multiple of 32 */
static cute_status check(const cute_call_arg *A, const cute_call_arg *SFA, const cute_call_arg *B,
                         const cute_call_arg *SFB, const cute_call_arg *C, char *err, size_t n)
{
    if (!C || C->kind != CUTE_ARG_TENSOR || C->ndim != 2 || (C->dtype != CUTE_F16 && C->dtype != CUTE_BF16 &&
                                                             C->dtype != CUTE_F32))
        return snprintf(err, n, "gemm nvfp4: C must be a 2-D f16, bf16 or f32 tensor"), CUTE_ERR_INVALID;
    int cmajor = C->stride[1] == 1 && C->shape[1] > 1 ? 1 : 0;
    cute_status s = A && B ? gemm_tma_operand_ok(A, 'A', CUTE_E2M1, 1, err, n) : CUTE_ERR_INVALID;
    if (s == CUTE_OK) s = gemm_tma_operand_ok(B, 'B', CUTE_E2M1, 1, err, n);
    if (s == CUTE_OK) s = gemm_tma_operand_ok(C, 'C', (cute_dtype)C->dtype, cmajor, err, n);
    if (s != CUTE_OK) return s;
    int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1];
    if (A->shape[0] != M || B->shape[0] != N || B->shape[1] != K || K < 1)
        return snprintf(err, n, "gemm nvfp4: A %" PRId64 "x%" PRId64 ", B %" PRId64 "x%" PRId64 ", C %" PRId64
                        "x%" PRId64 " do not make one product (A (M,K), B (N,K), C (M,N), K >= 1)", A->shape[0],
                        A->shape[1], B->shape[0], B->shape[1], M, N), CUTE_ERR_INVALID;
    s = scales_ok(SFA, "SFA", M, K, err, n);
    return s == CUTE_OK ? scales_ok(SFB, "SFB", N, K, err, n) : s;
}

cute_status cutec_gemm_nvfp4(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, double alpha,
                             double beta, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "gemm nvfp4: no library"), CUTE_ERR_INVALID;
    cute_status s = check(A, SFA, B, SFB, C, err, n);
    if (s != CUTE_OK) return s;
    if (!isfinite(alpha) || !isfinite(beta))
        return snprintf(err, n, "gemm nvfp4: alpha (%g) and beta (%g) must be finite", alpha, beta), CUTE_ERR_INVALID;
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_E2M1, .c_dtype = (cute_dtype)C->dtype,
                            .major = {1, 1, C->stride[1] == 1 && C->shape[1] > 1}, .align_bytes = 16};
    cute_runtime *rt;
    char why[1024];
    const cute_fn *f = gemm_lib_fn(lib, &cfg, &rt, why, sizeof why);
    if (!f) return snprintf(err, n, "gemm nvfp4: %s", why), CUTE_ERR_COMPILE;
    cute_call_arg args[7] = {*A, *B, *C, cute_call_float(alpha), cute_call_float(beta), *SFA, *SFB};
    s = cute_call(f, stream, 7, args, why, sizeof why);
    if (s != CUTE_OK) snprintf(err, n, "gemm nvfp4: %s", why);
    return s;
}
