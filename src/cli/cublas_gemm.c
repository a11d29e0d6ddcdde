/* cute_ref_gemm: cutec's (M,K), (N,K), (M,N) operands, batched or not, mapped onto cuBLAS's
 * column-major product; every dtype but fp8 through cublasGemmStridedBatchedEx. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cli/cublas_internal.h"
#include "kernels/gemm/gemm_ref.h"

/* the cudaDataType_t of a cutec dtype (-1: none) */
static int cuda_type(cute_dtype d)
{
    switch (d) {
    case CUTE_F32: return CUDA_R_32F;
    case CUTE_F64: return CUDA_R_64F;
    case CUTE_F16: return CUDA_R_16F;
    case CUTE_BF16: return CUDA_R_16BF;
    case CUTE_I8: return CUDA_R_8I;
    case CUTE_I32: return CUDA_R_32I;
    case CUTE_TF32: return CUDA_R_32F; /* f32 words, read as tf32 by the compute type */
    case CUTE_E4M3: return CUDA_R_8F_E4M3;
    case CUTE_E5M2: return CUDA_R_8F_E5M2;
    default: return -1;
    }
}

static bool is_fp8(cute_dtype d) { return d == CUTE_E4M3 || d == CUTE_E5M2; }

static bool map_operand(cute_cublas *h, const char *name, const cute_call_arg *x, cm_operand *o)
{
    int m = -1;
    for (int i = 0; i < 2 && m < 0; i++)
        if (x->stride[i] == 1 && x->shape[i] != 1) m = i;
    for (int i = 0; i < 2 && m < 0; i++)
        if (x->shape[i] == 1) m = i;
    if (m < 0) {
        cublas_say(h->err, sizeof h->err, "cuBLAS reference: %s has strides (%lld,%lld): no unit stride",
                   name, (long long)x->stride[0], (long long)x->stride[1]);
        return false;
    }
    int other = 1 - m;
    o->major = m;
    o->rows = x->shape[m] > 1 ? x->shape[m] : 1;
    /* a leading dimension never stepped (or of an empty matrix) is free: the smallest
     * cuBLAS accepts */
    bool stepped = x->shape[other] > 1 && x->shape[m] > 0;
    o->ld = stepped ? x->stride[other] : o->rows;
    if (o->ld < o->rows || o->ld > INT_MAX) {
        cublas_say(h->err, sizeof h->err,
                   "cuBLAS reference: %s's leading dimension %lld is not in [%lld, INT_MAX]", name,
                   (long long)o->ld, (long long)o->rows);
        return false;
    }
    o->lstride = x->ndim == 3 && x->shape[2] > 1 ? x->stride[2] : 0;
    o->ptr = (const char *)x->buf->ptr + x->offset;
    return true;
}

/* x lies inside its buffer */
static bool inside(cute_cublas *h, const char *name, const cute_call_arg *x)
{
    uint64_t last = 0;
    for (int i = 0; i < x->ndim; i++) {
        if (x->shape[i] == 0) return true;
        if (x->stride[i] < 0 && x->shape[i] > 1) {
            cublas_say(h->err, sizeof h->err, "cuBLAS reference: %s has a negative stride", name);
            return false;
        }
        if (x->shape[i] > 1) last += (uint64_t)(x->shape[i] - 1) * (uint64_t)x->stride[i];
    }
    if (x->offset + (last + 1) * (uint64_t)cute_dtype_bytes((cute_dtype)x->dtype) > x->buf->bytes) {
        cublas_say(h->err, sizeof h->err, "cuBLAS reference: %s reaches past its buffer", name);
        return false;
    }
    return true;
}

/* f16 into bf16 or bf16 into f16: pairs of the library that cuBLAS has no kernel for (its
 * 16-bit inputs write their own type or f32) */
static bool cublas_lacks(cute_dtype in, cute_dtype out)
{
    return (in == CUTE_F16 && out == CUTE_BF16) || (in == CUTE_BF16 && out == CUTE_F16);
}

static bool check_dtypes(cute_cublas *h, const cute_call_arg *x[3])
{
    cute_dtype in = (cute_dtype)x[0]->dtype, out = (cute_dtype)x[2]->dtype;
    if (x[1]->dtype == in && cublas_lacks(in, out)) {
        cublas_say(h->err, sizeof h->err, "cuBLAS has no kernel for %s inputs into a %s C (only %s or f32)",
                   cute_dtype_name(in), cute_dtype_name(out), cute_dtype_name(in));
        return false;
    }
    if (x[1]->dtype != in || !gemm_ref_pair_ok(in, out) || cuda_type(in) < 0) {
        cublas_say(h->err, sizeof h->err, "cuBLAS reference: dtypes A %s, B %s, C %s: not a GEMM the "
                   "library knows", cute_dtype_name(in), cute_dtype_name((cute_dtype)x[1]->dtype),
                   cute_dtype_name(out));
        return false;
    }
    return true;
}

static bool check_args(cute_cublas *h, const cute_call_arg *x[3])
{
    static const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        if (x[i]->kind != CUTE_ARG_TENSOR || (x[i]->ndim != 2 && x[i]->ndim != 3) ||
            x[i]->ndim != x[0]->ndim || !x[i]->buf) {
            cublas_say(h->err, sizeof h->err, "cuBLAS reference: %s is not a rank-%d tensor (2, or 3 "
                       "batched, like A)", names[i], x[0]->ndim);
            return false;
        }
        if (!inside(h, names[i], x[i])) return false;
        for (int m = 0; m < x[i]->ndim; m++)
            if (x[i]->shape[m] > INT_MAX) {
                cublas_say(h->err, sizeof h->err, "cuBLAS reference: %s has an extent past INT_MAX", names[i]);
                return false;
            }
    }
    if (x[0]->shape[1] != x[1]->shape[1] || x[2]->shape[0] != x[0]->shape[0] ||
        x[2]->shape[1] != x[1]->shape[0] ||
        (x[0]->ndim == 3 && (x[1]->shape[2] != x[0]->shape[2] || x[2]->shape[2] != x[0]->shape[2]))) {
        cublas_say(h->err, sizeof h->err, "cuBLAS reference: shapes do not agree (A (M,K,L), B (N,K,L), "
                   "C (M,N,L))");
        return false;
    }
    return check_dtypes(h, x);
}

/* alpha and beta in the compute type: f64, s32 (integers) or f32 */
typedef union scalar {
    double d;
    float f;
    int32_t i;
} scalar;

static int compute_type(cute_dtype in, cute_dtype out, scalar *alpha, scalar *beta, double a, double b)
{
    if (in == CUTE_F64) return alpha->d = a, beta->d = b, COMPUTE_64F;
    if (out == CUTE_I32) return alpha->i = (int32_t)a, beta->i = (int32_t)b, COMPUTE_32I;
    alpha->f = (float)a, beta->f = (float)b;
    return in == CUTE_TF32 ? COMPUTE_32F_FAST_TF32 : COMPUTE_32F;
}

static cute_status gemm_ex(cute_cublas *h, const cm_gemm *g, double alpha, double beta)
{
    int ta = g->a.major == 0 ? OP_N : OP_T; /* a stored m x k: N; stored k x m: T */
    int tb = g->b.major == 0 ? OP_T : OP_N; /* b stored n x k: T; stored k x n: N */
    scalar sa, sb;
    int compute = compute_type(g->in, g->out, &sa, &sb, alpha, beta);
    int tin = cuda_type(g->in);
    cublas_status s = h->GemmStridedBatchedEx(
            h->handle, ta, tb, (int)g->m, (int)g->n, (int)g->k, &sa, g->a.ptr, tin, (int)g->a.ld,
            g->a.lstride, g->b.ptr, tin, (int)g->b.ld, g->b.lstride, &sb, (void *)g->c.ptr,
            cuda_type(g->out), (int)g->c.ld, g->c.lstride, (int)g->l, compute, GEMM_DEFAULT);
    return cublas_failed(h, s, "cublasGemmStridedBatchedEx") ? CUTE_ERR_LAUNCH : CUTE_OK;
}

cute_status cute_ref_gemm(cute_cublas *h, const cute_call_arg *A, const cute_call_arg *B,
                          const cute_call_arg *C, double alpha, double beta, void *stream)
{
    const cute_call_arg *x[3] = {A, B, C};
    if (!check_args(h, x)) return CUTE_ERR_INVALID;
    int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1], L = A->ndim == 3 ? A->shape[2] : 1;
    if (M == 0 || N == 0 || L == 0) return CUTE_OK;
    cm_operand a, b, c;
    if (!map_operand(h, "A", A, &a) || !map_operand(h, "B", B, &b) || !map_operand(h, "C", C, &c))
        return CUTE_ERR_INVALID;
    if (stream != h->stream) {
        if (cublas_failed(h, h->SetStream(h->handle, stream), "cublasSetStream")) return CUTE_ERR_LAUNCH;
        h->stream = stream;
    }
    /* column-major C: C = A B^T as it stands; row-major C: its transpose is column-major,
     * C^T = B A^T, the same product with the roles of A and B swapped */
    cute_dtype in = (cute_dtype)A->dtype, out = (cute_dtype)C->dtype;
    cm_gemm g = c.major == 0 ? (cm_gemm){in, out, M, N, K, L, a, b, c} : (cm_gemm){in, out, N, M, K, L, b, a, c};
    if (is_fp8(in)) return cublaslt_gemm(h, &g, alpha, beta, stream);
    return gemm_ex(h, &g, alpha, beta);
}
