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
 * (plan_multistage.c) scales them in the MMA's layout first, C's tile in its own dtype.
 * On sm_90 at beta 0 with a 16-bit C (plan_multistage.c's stsm_c_tile, the default there) the
 * accumulators are scaled and rounded first and written by stmatrix into a tile of C's dtype
 * (half the shared-memory traffic); beta != 0 takes the f32 tile above in the same kernel. */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/gemm/gemm_internal.h"

/* alpha acc + beta C in the MMA's layout, into shared memory in C's dtype, one MMA column
 * (mode 2) at a time: each reads its part of C under a branch of its own, so the loads of C
 * are not all in flight beside the accumulators (they spilled, as one branch) */
static void scale_in(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                     cute_val alpha, cute_val beta, cute_tensor sC, cute_tuple MN, int64_t n0, int64_t n1)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCgC = cute_partition_C(c, thr, t->gC), tCkC = cute_partition_C(c, thr, t->kC);
    cute_tensor tCsC = cute_partition_C(c, thr, sC);
    for (int64_t n = n0; n < n1 && !a->failed; n++) {
        cute_tuple at = cute_tuple_fmt(a, "(_,_,%lld)", (long long)n);
        cute_ssa in = cute_elem_less(c, cute_tensor_slice(c, tCkC, at), MN);
        cute_ssa v = gemm_scale(c, p, cute_tensor_load(c, cute_tensor_slice(c, acc, at)), alpha, beta,
                                cute_tensor_slice(c, tCgC, at), in);
        cute_tensor_store(c, cute_tensor_slice(c, tCsC, at), v);
    }
}

/* one run of C from shared memory: scaled here if the tile holds the accumulators as they
 * are (C read where in bounds, only when beta != 0), stored with one predicated 128-bit store */
static void store_run(cute_ctx *c, const gemm_plan *p, const cute_copy_atom *st, cute_tuple MN, cute_val alpha,
                      cute_val beta, bool raw, cute_tensor sRun, cute_tensor gC, cute_tensor kC)
{
    cute_tensor r = cute_make_fragment_like(c, sRun);
    cute_autovec_copy(c, sRun, r);
    cute_ssa in = cute_elem_less(c, kC, MN);
    if (raw) {
        cute_ssa v = gemm_scale(c, p, cute_tensor_load(c, r), alpha, beta, gC, in);
        r = cute_make_rmem_tensor(c, (cute_dtype)gC.dtype, cute_make_layout(cute_ctx_alg(c), v.shape));
        cute_tensor_store(c, r, v);
    }
    cute_copy_if(c, st, in, r, gC);
}

/* C's shared tile (bm, bn / parts) seen as the whole (bm, bn) tile, part q of N on top of
 * part 0 (a stride-0 mode of the parts): the MMA partitions the whole tile, and the pieces of
 * part q land in the one buffer */
cute_tensor gemm_c_parts_on_top(cute_ctx *c, const gemm_plan *p, cute_tensor sC)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t w = p->bn / p->c_parts;
    cute_layout over = cute_layout_fmt(a, "(%lld,(%lld,%d)):(1,(%lld,0))", (long long)p->bm, (long long)w,
                                       p->c_parts, (long long)p->bm);
    cute_tiler T = cute_tiler_layout(&over);
    sC.layout = cute_composition(a, &sC.layout, &T);
    return sC;
}

/* the accumulators of the MMA's columns n0 .. n1 - 1 (mode 2) into sC (the whole tile's
 * view), as they are or scaled to C's dtype */
static void acc_in(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                   cute_val alpha, cute_val beta, cute_tensor sC, cute_tuple MN, int64_t n0, int64_t n1)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout cols = cute_get(a, &acc.layout, 2);
    cute_tensor tCsC = cute_partition_C(c, cute_tiled_mma_slice(&p->mma, tid), sC);
    if (sC.dtype != acc.dtype) {
        scale_in(c, p, tid, t, acc, alpha, beta, sC, MN, n0, n1);
    } else if (n1 - n0 == cute_size(a, &cols).v) { /* the whole tile: one copy */
        cute_autovec_copy(c, acc, tCsC);
    } else {
        for (int64_t n = n0; n < n1; n++) {
            cute_tuple at = cute_tuple_fmt(a, "(_,_,%lld)", (long long)n);
            cute_autovec_copy(c, cute_tensor_slice(c, acc, at), cute_tensor_slice(c, tCsC, at));
        }
    }
}

/* sC back in runs of C's unit-stride mode onto gC (kC its coordinates), one run per
 * iteration of one loop (two nested short loops NVVM unrolls).  The runs each traced on their
 * own (s8 128x128: ~13 PTX instructions a run against ~30) measured no faster on the H200
 * (bench/RESULTS.md, s15). */
static void runs_out(cute_ctx *c, const gemm_plan *p, const cute_tiled_copy *copy, cute_int tid, cute_tuple MN,
                     cute_val alpha, cute_val beta, bool raw, cute_tensor sC, cute_tensor gC, cute_tensor kC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_thr_copy tc = cute_tiled_copy_slice(copy, tid);
    /* the thread's runs in shared memory, global memory and coordinates, (CPY, RestM, RestN) */
    cute_tensor s = cute_partition_S(c, tc, sC), g = cute_partition_D(c, tc, gC), k = cute_partition_D(c, tc, kC);
    cute_layout rest_m = cute_get(a, &s.layout, 1), rest_n = cute_get(a, &s.layout, 2);
    cute_int rm = cute_size(a, &rest_m), count = cute_mul(a, rm, cute_size(a, &rest_n));
    if (raw) gemm_scale_scalars(c, p, (cute_dtype)gC.dtype, &alpha, &beta); /* once, not every run */
    if (p->diag_nostore) count = cute_min(a, count, cute_i(1));
    CUTE_FOR(c, r, cute_i(0), count) {
        cute_tuple at = cute_tuple_fmt(a, "(_,%I,%I)", cute_mod(a, r, rm), cute_div(a, r, rm));
        store_run(c, p, &copy->atom, MN, alpha, beta, raw, cute_tensor_slice(c, s, at), cute_tensor_slice(c, g, at),
                  cute_tensor_slice(c, k, at));
    }
}

/* beta 0's way through p->smem_c16 (the plan's stsm_c_tile): alpha acc rounded to C's 16-bit
 * dtype in the MMA's layout (gemm_scale with beta 0: no C read), written into sC16 by
 * stmatrix (p->r2s), a barrier, then read back a 128-byte line a phase (p->copy_c16) and
 * stored */
static void stsm_through(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                         cute_val alpha, cute_tensor sC16, cute_tuple MN)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_val zero = cute_val_const(c, CUTE_F32, 0.0); /* (a 16-bit C: f32 scalars) */
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCgC = cute_partition_C(c, thr, t->gC), tCkC = cute_partition_C(c, thr, t->kC);
    cute_tensor out = cute_make_rmem_tensor_like(c, acc, (cute_dtype)sC16.dtype);
    cute_layout cols = cute_get(a, &acc.layout, 2);
    for (int64_t n = 0; n < cute_size(a, &cols).v && !a->failed; n++) {
        cute_tuple at = cute_tuple_fmt(a, "(_,_,%lld)", (long long)n);
        cute_ssa in = cute_elem_less(c, cute_tensor_slice(c, tCkC, at), MN);
        cute_tensor_store(c, cute_tensor_slice(c, out, at),
                          gemm_scale(c, p, cute_tensor_load(c, cute_tensor_slice(c, acc, at)), alpha, zero,
                                     cute_tensor_slice(c, tCgC, at), in));
    }
    cute_thr_copy r = cute_tiled_copy_slice(&p->r2s, tid);
    cute_copy(c, &p->r2s.atom, cute_retile_S(c, r, out), cute_partition_D(c, r, sC16));
    cute_barrier(c);
    runs_out(c, p, &p->copy_c16, tid, MN, alpha, zero, false, sC16, t->gC, t->kC);
}

/* The tile in p->c_parts parts of N where C's shared tile holds one part (the persistent
 * kernel's): each part's accumulators in, a barrier, the part out, and a barrier before the
 * next part overwrites the tile.  A part is whole MMA tiles of N (the plan's), so its
 * accumulators are a range of mode 2. */
static void tile_through(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                         cute_val alpha, cute_val beta, cute_tensor sC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    bool raw = sC.dtype == acc.dtype;
    int parts = p->c_parts > 1 ? p->c_parts : 1;
    cute_layout cols = cute_get(a, &acc.layout, 2);
    int64_t per = cute_size(a, &cols).v / parts;
    cute_tensor whole = parts > 1 ? gemm_c_parts_on_top(c, p, sC) : sC;
    cute_tuple part = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)(p->bn / parts));
    for (int q = 0; q < parts && !a->failed; q++) {
        if (q) cute_barrier(c); /* every thread has read part q - 1 */
        /* 1. the accumulators into shared memory, in the MMA's layout (a tile of C's dtype
         * where they do not fit: scaled first) */
        acc_in(c, p, tid, t, acc, alpha, beta, whole, MN, q * per, (q + 1) * per);
        cute_barrier(c);
        /* 2. back in runs of C's unit-stride mode */
        cute_tuple at = cute_tuple_fmt(a, "(0,%d)", q);
        runs_out(c, p, &p->copy_c, tid, MN, alpha, beta, raw, sC, parts > 1 ? cute_tensor_local_tile(c, t->gC, part, at, NULL) : t->gC,
                 parts > 1 ? cute_tensor_local_tile(c, t->kC, part, at, NULL) : t->kC);
    }
}

void gemm_epilogue_smem(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                        cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor sC, cute_tensor sC16)
{
    if (!p->stsm) {
        tile_through(c, p, tid, t, acc, alpha, beta, sC);
        return;
    }
    cute_tuple MN = cute_tuple_fmt(cute_ctx_alg(c), "(%I,%I)", t->M, t->N);
    /* (beta is the kernel's: every block takes the same way) */
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_EQ, beta, cute_val_const(c, CUTE_F32, 0.0))) {
        stsm_through(c, p, tid, t, acc, alpha, sC16, MN);
    }
    CUTE_ELSE(c) {
        tile_through(c, p, tid, t, acc, alpha, beta, sC);
    }
}
