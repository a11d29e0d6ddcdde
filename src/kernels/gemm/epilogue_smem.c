/* GEMM step 5's epilogue (seed 000): a thread's accumulators are scattered over the C tile
 * (lane g of a warp holds rows g and g+8, two columns each), so stores straight from them
 * are 32-bit and uncoalesced.  Through shared memory they are re-read by a TiledCopy whose
 * threads each own 16 consecutive bytes of C's unit-stride mode, and leave with one 128-bit
 * store each.  The shared tile is swizzled so that the MMA-ordered writes and the row-ordered
 * reads both spread over the 32 banks.
 *
 * The tile holds the accumulators as they are (f32, s32, f64), so alpha * acc + beta * C is
 * computed once, rounded once, on the way out.  That side is a dynamic loop over the thread's
 * 16-byte runs: one run's code instead of one per run, which is what NVRTC's compile time
 * grows with (docs/compile_time.md).  A tiling too large for the accumulators over its stages
 * (plan_multistage.c) scales them in the MMA's layout first, C's tile in its own dtype. */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/gemm/gemm_internal.h"

/* alpha acc + beta C in the MMA's layout, into shared memory in C's dtype, one MMA column
 * (mode 2) at a time: each reads its part of C under a branch of its own, so the loads of C
 * are not all in flight beside the accumulators (they spilled, as one branch) */
static void scale_in(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                     cute_val alpha, cute_val beta, cute_tensor sC, cute_tuple MN)
{
    cute_alg *a = cute_ctx_alg(c);
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
}

/* one run of C from shared memory: scaled here if the tile holds the accumulators as they
 * are (C read where in bounds, only when beta != 0), stored with one predicated 128-bit store */
static void store_run(cute_ctx *c, const gemm_plan *p, cute_tuple MN, cute_val alpha, cute_val beta,
                      bool raw, cute_tensor sRun, cute_tensor gC, cute_tensor kC)
{
    cute_tensor r = cute_make_fragment_like(c, sRun);
    cute_autovec_copy(c, sRun, r);
    cute_ssa in = cute_elem_less(c, kC, MN);
    if (raw) {
        cute_ssa v = gemm_scale(c, p, cute_tensor_load(c, r), alpha, beta, gC, in);
        r = cute_make_rmem_tensor(c, (cute_dtype)gC.dtype, cute_make_layout(cute_ctx_alg(c), v.shape));
        cute_tensor_store(c, r, v);
    }
    cute_copy_if(c, &p->copy_c.atom, in, r, gC);
}

void gemm_epilogue_smem(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                        cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor sC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    /* 1. the accumulators into shared memory, in the MMA's layout (a tile of C's dtype where
     * they do not fit: scaled first) */
    bool raw = sC.dtype == acc.dtype;
    if (raw)
        cute_autovec_copy(c, acc, cute_partition_C(c, cute_tiled_mma_slice(&p->mma, tid), sC));
    else
        scale_in(c, p, tid, t, acc, alpha, beta, sC, MN);
    cute_barrier(c);
    /* 2. back in runs of C's unit-stride mode, one run per iteration of one loop (two nested
     * short loops NVVM unrolls): (CPY, RestM, RestN) */
    cute_thr_copy tc = cute_tiled_copy_slice(&p->copy_c, tid);
    cute_tensor tXs = cute_partition_S(c, tc, sC), tXg = cute_partition_D(c, tc, t->gC);
    cute_tensor tXk = cute_partition_D(c, tc, t->kC);
    cute_layout rest_m = cute_get(a, &tXs.layout, 1), rest_n = cute_get(a, &tXs.layout, 2);
    cute_int rm = cute_size(a, &rest_m);
    CUTE_FOR(c, r, cute_i(0), cute_mul(a, rm, cute_size(a, &rest_n))) {
        cute_tuple at = cute_tuple_fmt(a, "(_,%I,%I)", cute_mod(a, r, rm), cute_div(a, r, rm));
        store_run(c, p, MN, alpha, beta, raw, cute_tensor_slice(c, tXs, at), cute_tensor_slice(c, tXg, at),
                  cute_tensor_slice(c, tXk, at));
    }
}
