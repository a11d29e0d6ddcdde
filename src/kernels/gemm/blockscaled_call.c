/* cutec_gemm_nvfp4, _mxfp4 and _mxfp8: the block-scaled GEMMs of the Blackwell kernel through the
 * library (seed 001's NVFP4: e2m1 with a ue4m3 scale per 16 of K; MXFP4: e2m1 with a ue8m0 scale
 * per 32; MXFP8: e4m3 with ue8m0 per 32), the call checked here (each mistake named) before the kernel (blackwell.c) is
 * compiled, once per C dtype and major, and run. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "cutec/gemv.h"
#include "kernels/gemm/gemm_internal.h"

/* one block-scaled kind: its name, A's and B's type, the scales' type, elements a scale covers */
typedef struct scaled_kind {
    const char *name;
    cute_dtype dtype, sf;
    int vec;
} scaled_kind;

static const scaled_kind NVFP4 = {"nvfp4", CUTE_E2M1, CUTE_UE4M3, 16}, MXFP4 = {"mxfp4", CUTE_E2M1, CUTE_UE8M0, 32},
                         MXFP8 = {"mxfp8", CUTE_E4M3, CUTE_UE8M0, 32};

/* a scale buffer: rank 1, the kind's scale type, unit stride, the scales of a (rows, K) operand at least */
static cute_status scales_ok(const scaled_kind *sk, const cute_call_arg *sf, const char *name, int64_t rows,
                             int64_t K, char *err, size_t n)
{
    int64_t want = cute_gemv_sf_count(rows, K, 1, sk->vec);
    if (!sf || sf->kind != CUTE_ARG_TENSOR || !sf->buf || sf->ndim != 1 || sf->dtype != sk->sf ||
        (sf->shape[0] > 1 && sf->stride[0] != 1) || sf->shape[0] < want ||
        ((uint64_t)(uintptr_t)sf->buf->ptr + sf->offset) % 16 || sf->offset + (size_t)sf->shape[0] > sf->buf->bytes)
        return snprintf(err, n, "gemm %s: %s must be a unit-stride rank-1 %s tensor, 16-byte aligned, of at least "
                        "%" PRId64 " scales (CuTe's layout of a %" PRId64 " x %" PRId64 " operand: "
                        "cute_gemv_sf_count)", sk->name, name, cute_dtype_name(sk->sf), want, rows, K),
               CUTE_ERR_INVALID;
    return CUTE_OK;
}

/* A (M,K), B (N,K) of the kind's type, K-major; C (M,N) f16, bf16 or f32; their scales */
static cute_status check(const scaled_kind *sk, const cute_call_arg *A, const cute_call_arg *SFA,
                         const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, char *err, size_t n)
{
    if (!C || C->kind != CUTE_ARG_TENSOR || C->ndim != 2 || (C->dtype != CUTE_F16 && C->dtype != CUTE_BF16 &&
                                                             C->dtype != CUTE_F32))
        return snprintf(err, n, "gemm %s: C must be a 2-D f16, bf16 or f32 tensor", sk->name), CUTE_ERR_INVALID;
    int cmajor = C->stride[1] == 1 && C->shape[1] > 1 ? 1 : 0;
    if (A && A->kind == CUTE_ARG_TENSOR && A->ndim == 2 && A->shape[1] % 32) /* before TMA's rows of 16 bytes */
        return snprintf(err, n, "gemm %s: K (%" PRId64 ") must be a multiple of 32", sk->name, A->shape[1]),
               CUTE_ERR_INVALID;
    cute_status s = A && B ? gemm_tma_operand_ok(A, 'A', sk->dtype, 1, err, n) : CUTE_ERR_INVALID;
    if (s == CUTE_OK) s = gemm_tma_operand_ok(B, 'B', sk->dtype, 1, err, n);
    if (s == CUTE_OK) s = gemm_tma_operand_ok(C, 'C', (cute_dtype)C->dtype, cmajor, err, n);
    if (s != CUTE_OK) return s;
    int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1];
    if (A->shape[0] != M || B->shape[0] != N || B->shape[1] != K || K < 1 || K % 32)
        return snprintf(err, n, "gemm %s: A %" PRId64 "x%" PRId64 ", B %" PRId64 "x%" PRId64 ", C %" PRId64
                        "x%" PRId64 " do not make one product (A (M,K), B (N,K), C (M,N), K a multiple of 32)",
                        sk->name, A->shape[0], A->shape[1], B->shape[0], B->shape[1], M, N), CUTE_ERR_INVALID;
    s = scales_ok(sk, SFA, "SFA", M, K, err, n);
    return s == CUTE_OK ? scales_ok(sk, SFB, "SFB", N, K, err, n) : s;
}

cute_call_arg gemm_bw_sf_arg(const cute_call_arg *sf, int64_t rows, int64_t K, int vec)
{
    int64_t rm = (rows + 127) / 128, rk = (K + 4 * vec - 1) / (4 * vec);
    return cute_call_tensor(sf->buf, sf->offset, CUTE_U8, 4, (int64_t[]){256, 2, rk, rm},
                            (int64_t[]){1, 256, GEMM_BW_SF_ATOM, GEMM_BW_SF_ATOM * rk});
}

static cute_status scaled_gemm(const scaled_kind *sk, cute_gemm_lib *lib, const cute_call_arg *A,
                               const cute_call_arg *SFA, const cute_call_arg *B, const cute_call_arg *SFB,
                               const cute_call_arg *C, double alpha, double beta, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "gemm %s: no library", sk->name), CUTE_ERR_INVALID;
    cute_status s = check(sk, A, SFA, B, SFB, C, err, n);
    if (s != CUTE_OK) return s;
    if (!isfinite(alpha) || !isfinite(beta))
        return snprintf(err, n, "gemm %s: alpha (%g) and beta (%g) must be finite", sk->name, alpha, beta),
               CUTE_ERR_INVALID;
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = sk->dtype, .c_dtype = (cute_dtype)C->dtype,
                            .major = {1, 1, C->stride[1] == 1 && C->shape[1] > 1}, .align_bytes = 16,
                            .mx_scales = sk->dtype == CUTE_E2M1 && sk->sf == CUTE_UE8M0,
                            .tiling = {.cluster_m = gemm_lib_caller_tiling(lib).cluster_m,
                                       .cluster_n = gemm_lib_caller_tiling(lib).cluster_n}}; /* 2x1: the CTA pair */
    cute_runtime *rt;
    char why[1024];
    const cute_fn *f = gemm_lib_fn(lib, &cfg, &rt, why, sizeof why);
    if (!f) return snprintf(err, n, "gemm %s: %s", sk->name, why), CUTE_ERR_COMPILE;
    int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1];
    cute_call_arg args[7] = {*A, *B, *C, cute_call_float(alpha), cute_call_float(beta),
                             gemm_bw_sf_arg(SFA, M, K, sk->vec), gemm_bw_sf_arg(SFB, N, K, sk->vec)};
    s = cute_call(f, stream, 7, args, why, sizeof why);
    if (s != CUTE_OK) snprintf(err, n, "gemm %s: %s", sk->name, why);
    return s;
}

cute_status cutec_gemm_nvfp4(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, double alpha,
                             double beta, void *stream, char *err, size_t n)
{
    return scaled_gemm(&NVFP4, lib, A, SFA, B, SFB, C, alpha, beta, stream, err, n);
}

cute_status cutec_gemm_mxfp4(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, double alpha,
                             double beta, void *stream, char *err, size_t n)
{
    return scaled_gemm(&MXFP4, lib, A, SFA, B, SFB, C, alpha, beta, stream, err, n);
}

cute_status cutec_gemm_mxfp8(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, double alpha,
                             double beta, void *stream, char *err, size_t n)
{
    return scaled_gemm(&MXFP8, lib, A, SFA, B, SFB, C, alpha, beta, stream, err, n);
}
