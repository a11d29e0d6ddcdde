/* GEMM step 5's epilogue (seed 000): a thread's accumulators are scattered over the C tile
 * (lane g of a warp holds rows g and g+8, two columns each), so stores straight from them
 * are 32-bit and uncoalesced.  Through shared memory they are re-read by a TiledCopy whose
 * threads each own 16 consecutive bytes of C's unit-stride mode, and leave with one 128-bit
 * store each.  The shared tile is swizzled so that the MMA-ordered writes and the row-ordered
 * reads both spread over the 32 banks.
 *
 * The tile holds the accumulators as they are (f32, s32, f64: it fits over the A/B stages),
 * so alpha * acc + beta * C is computed once, rounded once, on the way out.  That side is a
 * dynamic loop over the thread's 16-byte runs: one run's code instead of one per run, which
 * is what NVRTC's compile time grows with (docs/compile_time.md). */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/gemm/gemm_internal.h"

/* one run of C: its accumulators from shared memory, scaled (C read where in bounds, only
 * when beta != 0), converted, stored with one predicated 128-bit store */
static void store_run(cute_ctx *c, const gemm_plan *p, cute_tuple MN, cute_val alpha, cute_val beta,
                      cute_tensor sAcc, cute_tensor gC, cute_tensor kC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor acc = cute_make_fragment_like(c, sAcc);
    cute_autovec_copy(c, sAcc, acc);
    cute_ssa in = cute_elem_less(c, kC, MN);
    cute_ssa v = gemm_scale(c, p, cute_tensor_load(c, acc), alpha, beta, gC, in);
    cute_tensor out = cute_make_rmem_tensor(c, (cute_dtype)gC.dtype, cute_make_layout(a, v.shape));
    cute_tensor_store(c, out, v);
    cute_copy_if(c, &p->copy_c.atom, in, out, gC);
}

void gemm_epilogue_smem(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                        cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor sAcc)
{
    cute_alg *a = cute_ctx_alg(c);
    /* 1. the accumulators into shared memory, in the MMA's layout */
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_autovec_copy(c, acc, cute_partition_C(c, thr, sAcc));
    cute_barrier(c);
    /* 2. back in runs of C's unit-stride mode, one run per iteration: (CPY, RestM, RestN) */
    cute_thr_copy tc = cute_tiled_copy_slice(&p->copy_c, tid);
    cute_tensor tXs = cute_partition_S(c, tc, sAcc), tXg = cute_partition_D(c, tc, t->gC);
    cute_tensor tXk = cute_partition_D(c, tc, t->kC);
    cute_tuple MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    cute_layout rest_m = cute_get(a, &tXs.layout, 1), rest_n = cute_get(a, &tXs.layout, 2);
    CUTE_FOR(c, i, cute_i(0), cute_i(cute_size(a, &rest_m).v)) {
        CUTE_FOR(c, j, cute_i(0), cute_i(cute_size(a, &rest_n).v)) {
            cute_tuple at = cute_tuple_fmt(a, "(_,%I,%I)", i, j);
            store_run(c, p, MN, alpha, beta, cute_tensor_slice(c, tXs, at), cute_tensor_slice(c, tXg, at),
                      cute_tensor_slice(c, tXk, at));
        }
    }
}
