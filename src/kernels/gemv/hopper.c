/* The skinny GEMM's many vectors through the Hopper GEMM kernel (the library's choice on sm_90;
 * docs/gemv.md, "Many vectors on the Hopper GEMM").  Y(M,N) = alpha A(M,K) X(K,N) + beta Y is
 * cutec_gemm's C = alpha A B^T + beta C with B = X^T, (N,K) and K-major as X's vectors are: on
 * sm_90, 16-bit A and Y, one batch, 8 to 128 vectors against more than 128 rows, every operand
 * as TMA takes it, the Hopper kernel runs it in tiles of 64 rows of A by 16, 32, 64 or 128 vectors
 * (hopper_auto.c's few_columns: A and X's k-tiles by TMA through a ring of shared memory, wgmma
 * from there; M / 64 tiles fill the card).  The GEMV kernels' tensor-core form reads X through
 * L1 once for every 16 rows (mma.sync's side), four times A's bytes at 64 vectors: 48.8% of the
 * copy at 8192x8192 against this route's 90.1 (H200, session 41's mid pass, bench/RESULTS.md
 * skinny41). */
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemv/gemv_internal.h"

/* o's operands as cutec_gemm's A (M,K), B (N,K) and C (M,N) of one batch */
static void as_gemm(const gemv_operands *o, cute_call_arg g[3])
{
    g[0] = o->A, g[0].ndim = 2;
    g[1] = o->x, g[1].ndim = 2; /* (K,N) as (N,K) */
    g[1].shape[0] = o->x.shape[1], g[1].stride[0] = o->x.stride[1];
    g[1].shape[1] = o->x.shape[0], g[1].stride[1] = o->x.stride[0];
    g[2] = o->y, g[2].ndim = 2;
}

bool gemv_hopper_takes(cute_runtime *rt, const gemv_operands *o)
{
    if (o->A.shape[2] != 1 || o->major != 1) return false;
    cute_call_arg g[3];
    as_gemm(o, g);
    return gemm_few_rows_to_hopper(rt, &g[0], &g[1], &g[2]);
}

cute_status gemv_hopper_call(cute_gemm_lib *gemm, const gemv_operands *o, double alpha, double beta, void *stream,
                             char *err, size_t n)
{
    cute_call_arg g[3];
    as_gemm(o, g);
    return cutec_gemm(gemm, CUTE_GEMM_HOPPER, &g[0], &g[1], &g[2], alpha, beta, stream, err, n);
}
