/* GEMM step 2, seed 000: the block's threads copy each k-tile of A and B cooperatively into
 * shared memory (a TiledCopy per operand, global -> registers -> shared), wait at a
 * barrier, then each thread reads its MMA fragments from shared memory one k at a time and
 * multiplies them.  A second barrier keeps the next tile's stores behind every read. */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/gemm/gemm_internal.h"

static void shared_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC,
                          cute_tensor cA, cute_tensor cB, cute_tensor cC, cute_val alpha,
                          cute_val beta)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_dtype d = p->cfg.dtype;
    cute_int tid = cute_thread_idx(c, 0);
    gemm_tiles t = gemm_block_tiles(c, p, mA, mB, mC, cA, cB, cC);
    cute_smem_allocator smem = cute_smem_allocator_new(c);
    cute_tuple first = cute_tuple_parse(a, "(_,_,0)");
    cute_tensor sA = cute_tensor_slice(c, cute_smem_alloc_tensor(c, &smem, d, gemm_smem_layout(a, p, 0, 1), 16), first);
    cute_tensor sB = cute_tensor_slice(c, cute_smem_alloc_tensor(c, &smem, d, gemm_smem_layout(a, p, 1, 1), 16), first);
    /* global -> registers -> shared, by the copy's thread layout */
    cute_thr_copy tA = cute_tiled_copy_slice(&p->copy_a, tid), tB = cute_tiled_copy_slice(&p->copy_b, tid);
    cute_tensor tAsA = cute_partition_D(c, tA, sA), tBsB = cute_partition_D(c, tB, sB);
    cute_tensor tArA = cute_make_fragment_like(c, tAsA), tBrB = cute_make_fragment_like(c, tBsB);
    /* shared -> registers -> FMA, by the MMA's */
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCsA = cute_partition_A(c, thr, sA), tCsB = cute_partition_B(c, thr, sB);
    cute_tensor tCrC = cute_partition_fragment_C(c, thr, t.gC);
    cute_clear(c, tCrC);
    cute_layout k_mode = cute_get(a, &tCsA.layout, 2);
    int64_t kb_count = cute_size(a, &k_mode).v;
    CUTE_FOR(c, kt, cute_i(0), t.k_tiles) {
        cute_copy_if_whole(c, &p->copy_a.atom, gemm_ktile_pred(c, tA, t.kA, kt, t.shape_a), gemm_ktile_src(c, tA, t.gA, kt), tArA);
        cute_copy_if_whole(c, &p->copy_b.atom, gemm_ktile_pred(c, tB, t.kB, kt, t.shape_b), gemm_ktile_src(c, tB, t.gB, kt), tBrB);
        cute_autovec_copy(c, tArA, tAsA);
        cute_autovec_copy(c, tBrB, tBsB);
        cute_barrier(c);
        for (int64_t kb = 0; kb < kb_count; kb++) { /* unrolled at trace time */
            cute_tuple at = cute_tuple_fmt(a, "(_,_,%lld)", (long long)kb);
            cute_tensor kA = cute_tensor_slice(c, tCsA, at), kB = cute_tensor_slice(c, tCsB, at);
            cute_tensor rA = cute_make_fragment_like(c, kA), rB = cute_make_fragment_like(c, kB);
            cute_autovec_copy(c, kA, rA);
            cute_autovec_copy(c, kB, rB);
            cute_gemm(c, &p->mma, tCrC, rA, rB, tCrC);
        }
        cute_barrier(c);
    }
    gemm_epilogue(c, p, tid, &t, tCrC, alpha, beta);
}

GEMM_HOST(gemm_shared_host, shared_kernel)
