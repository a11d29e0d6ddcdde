/* The skinny GEMM through the GEMV kernels: C(M,N) = alpha A(M,K) B(N,K)^T + beta C where
 * N (or M) is at most CUTE_GEMV_MAX_VECTORS, or CUTE_GEMV_MAX_MMA_VECTORS for f16 and bf16
 * with 16-byte aligned rows (the tensor-core form, mma.c).  The larger operand is the matrix, streamed
 * once; the rows of the small one are the vectors (each must be contiguous along K), and C
 * (or C transposed) is y.  cutec_gemm's AUTO variant routes such shapes here. */
#include "cutec/gemv.h"

/* a (rows,K[,L]) operand whose rows are contiguous along K */
static bool k_major(const cute_call_arg *t)
{
    return t->stride[1] == 1 || t->shape[1] <= 1;
}

static bool dtypes_taken(const cute_call_arg *A, const cute_call_arg *C)
{
    cute_dtype d = (cute_dtype)A->dtype, c = (cute_dtype)C->dtype;
    bool in = d == CUTE_F32 || d == CUTE_F16 || d == CUTE_BF16 || d == CUTE_E4M3;
    return in && (c == CUTE_F32 || c == CUTE_F16 || c == CUTE_BF16) &&
           (d != CUTE_F32 || c == CUTE_F32);
}

/* the most vectors the GEMV kernels take for these operands: up to CUTE_GEMV_MAX_MMA_VECTORS
 * through the tensor cores (f16, bf16 and f32 whose rows are 16-byte aligned: offset,
 * leading dimension, batch stride and K in whole 16-byte vectors, counted in elements so
 * that no product overflows) */
static int64_t vectors_taken(const cute_call_arg *A, const cute_call_arg *B)
{
    int64_t v = 16 / cute_dtype_bytes((cute_dtype)A->dtype); /* elements a vector */
    bool rows16 = true;
    for (int i = 0; i < 2; i++) {
        const cute_call_arg *t = i ? B : A;
        rows16 = rows16 && t->offset % 16 == 0 && (t->shape[0] <= 1 || t->stride[0] % v == 0) &&
                 (t->ndim < 3 || t->shape[2] <= 1 || t->stride[2] % v == 0) && t->shape[1] % v == 0;
    }
    return rows16 && cute_gemv_mma_for((cute_dtype)A->dtype, CUTE_GEMV_MAX_MMA_VECTORS) ? CUTE_GEMV_MAX_MMA_VECTORS
                                                                                     : CUTE_GEMV_MAX_VECTORS;
}

/* t (rows,K[,L]) as vectors (K,rows[,L]) */
static cute_call_arg as_vectors(const cute_call_arg *t)
{
    cute_call_arg v = *t;
    v.shape[0] = t->shape[1], v.stride[0] = 1;
    v.shape[1] = t->shape[0], v.stride[1] = t->stride[0];
    return v;
}

cute_status cutec_gemm_skinny(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *B,
                              const cute_call_arg *C, double alpha, double beta, void *stream,
                              char *err, size_t n)
{
    if (!A || !B || !C) { /* malformed, not merely a shape it does not take */
        if (err && n) snprintf(err, n, "gemm_skinny: %s is NULL", !A ? "A" : !B ? "B" : "C");
        return CUTE_ERR_INVALID;
    }
    if (A->ndim != B->ndim || A->ndim != C->ndim || A->ndim < 2 || A->ndim > 3 ||
        !dtypes_taken(A, C))
        return CUTE_ERR_UNSUPPORTED;
    int64_t M = A->shape[0], N = B->shape[0], most = vectors_taken(A, B);
    bool b_small = N <= most && N <= M && k_major(B);
    bool a_small = !b_small && M <= most && k_major(A);
    if (!a_small && !b_small) return CUTE_ERR_UNSUPPORTED;
    cute_call_arg X = as_vectors(b_small ? B : A), Y = *C;
    if (a_small) { /* C^T (N,M) = B A^T */
        Y.shape[0] = C->shape[1], Y.stride[0] = C->stride[1];
        Y.shape[1] = C->shape[0], Y.stride[1] = C->stride[0];
    }
    return cutec_gemv_vectors(lib, b_small ? A : B, &X, &Y, alpha, beta, stream, err, n);
}
