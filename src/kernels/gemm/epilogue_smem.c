/* GEMM step 5's epilogue (seed 000): a thread's accumulators are scattered over the C tile
 * (lane g of a warp holds rows g and g+8, two columns each), so stores straight from them
 * are 32-bit and uncoalesced.  Through shared memory they are re-read by a TiledCopy whose
 * threads each own 16 consecutive bytes of C's unit-stride mode, and leave with one 128-bit
 * store each.  The shared tile is swizzled so that the MMA-ordered writes and the row-ordered
 * reads both spread over the 32 banks. */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/gemm/gemm_internal.h"

void gemm_epilogue_smem(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                        cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor sC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    /* 1. alpha acc + beta C in the MMA's layout, into shared memory, one MMA column (mode 2)
     * at a time: each reads its part of C under a branch of its own, so the loads of C are
     * not all in flight beside the accumulators (they spilled, as one branch) */
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCgC = cute_partition_C(c, thr, t->gC), tCkC = cute_partition_C(c, thr, t->kC);
    cute_tensor tCsC = cute_partition_C(c, thr, sC);
    cute_layout cols = cute_get(a, &acc.layout, 2);
    for (int64_t n = 0; n < cute_size(a, &cols).v && !a->failed; n++) {
        cute_tuple at = cute_tuple_fmt(a, "(_,_,%lld)", (long long)n);
        cute_ssa in = cute_elem_less(c, cute_tensor_slice(c, tCkC, at), MN);
        cute_ssa v = gemm_scale(c, p, cute_tensor_load(c, cute_tensor_slice(c, acc, at)), alpha, beta,
                                cute_tensor_slice(c, tCgC, at), in);
        cute_tensor_store(c, cute_tensor_slice(c, tCsC, at), v);
    }
    cute_barrier(c);
    /* 2. back in 16-byte runs of C's unit-stride mode, and out with one store per run */
    cute_thr_copy tc = cute_tiled_copy_slice(&p->copy_c, tid);
    cute_tensor tXsC = cute_partition_S(c, tc, sC);
    cute_tensor r = cute_make_fragment_like(c, tXsC);
    cute_autovec_copy(c, tXsC, r);
    cute_ssa out = cute_elem_less(c, cute_partition_D(c, tc, t->kC), MN);
    cute_copy_if(c, &p->copy_c.atom, out, r, cute_partition_D(c, tc, t->gC));
}
