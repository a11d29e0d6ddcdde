/* The Hopper GEMM's epilogue (hopper.c): C = alpha * acc + beta * C for the consumers'
 * tile, through shared memory (16-byte stores) or, for tiles whose C does not go through it,
 * straight from the accumulators. */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/gemm/gemm_internal.h"

enum { EPILOGUE_BARRIER = 1 }; /* the consumers' named barrier (0 is the block's) */

/* alpha acc + beta C on one piece of the thread's part of the tile (accumulators, their
 * places in C, their coordinates), in C's dtype; beta == 0 reads no C.  The scaling happens
 * in the accumulators themselves: a second fragment beside them would not fit. */
static cute_ssa scaled(cute_ctx *c, cute_tensor acc, cute_tensor gC, cute_ssa in, cute_val alpha, cute_val beta)
{
    cute_ssa v = cute_tensor_load(c, acc);
    cute_tensor_store(c, acc, cute_ssa_binop(c, CUTE_OP_MUL, v, cute_ssa_scalar(c, alpha, v.shape)));
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_NE, beta, cute_val_const(c, CUTE_F32, 0.0))) {
        cute_ssa old = cute_ssa_cvt(c, cute_tensor_load_if(c, gC, in, 0.0), CUTE_F32);
        cute_ssa bc = cute_ssa_binop(c, CUTE_OP_MUL, old, cute_ssa_scalar(c, beta, v.shape));
        cute_tensor_store(c, acc, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, acc), bc));
    }
    return cute_ssa_cvt(c, cute_tensor_load(c, acc), (cute_dtype)gC.dtype);
}

/* C straight from the accumulators (tiles whose C does not go through shared memory), one
 * 8-column block of the wgmma's accumulators at a time (the last sub-mode of CuTe's
 * CLayout_64xN values, (2,2,N/8)), so that the predicates and addresses of a piece live only
 * while its four values are stored. */
static void epilogue_pieces(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                            cute_val alpha, cute_val beta)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCgC = cute_partition_C(c, thr, t->gC), tCkC = cute_partition_C(c, thr, t->kC);
    for (int64_t j = 0; j < p->bn / 8; j++) {
        cute_tuple at = cute_tuple_fmt(a, "((_,_,%lld),_,_)", (long long)j);
        cute_ssa in = cute_elem_less(c, cute_tensor_slice(c, tCkC, at), MN);
        cute_ssa v = scaled(c, cute_tensor_slice(c, acc, at), cute_tensor_slice(c, tCgC, at), in, alpha, beta);
        cute_tensor_store_if(c, cute_tensor_slice(c, tCgC, at), v, in);
    }
}

/* beta C + x on a fragment x of C's dtype, in f32, rounded once more to C's dtype; C read
 * where `in` holds, only when beta != 0 */
static void add_beta_c(cute_ctx *c, cute_tensor x, cute_tensor gC, cute_ssa in, cute_val beta)
{
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_NE, beta, cute_val_const(c, CUTE_F32, 0.0))) {
        cute_ssa old = cute_ssa_cvt(c, cute_tensor_load_if(c, gC, in, 0.0), CUTE_F32);
        cute_ssa bc = cute_ssa_binop(c, CUTE_OP_MUL, old, cute_ssa_scalar(c, beta, old.shape));
        cute_ssa sum = cute_ssa_binop(c, CUTE_OP_ADD, cute_ssa_cvt(c, cute_tensor_load(c, x), CUTE_F32), bc);
        cute_tensor_store(c, x, cute_ssa_cvt(c, sum, (cute_dtype)x.dtype));
    }
}

/* sC back in 16-byte runs of C's unit-stride mode (p->copy_c), beta C added, one 128-bit
 * store a run.  A dynamic loop over the runs' longer rest mode: unrolled whole, ptxas kept
 * every run's global address live from the kernel's start (32 of them for an f32 C: spilled) */
static void runs_out(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor gC,
                     cute_tensor kC, cute_val beta, cute_tensor sC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_thr_copy tc = cute_tiled_copy_slice(&p->copy_c, tid);
    cute_tensor tXsC = cute_partition_S(c, tc, sC), tXgC = cute_partition_D(c, tc, gC);
    cute_tensor tXkC = cute_partition_D(c, tc, kC);
    cute_layout m1 = cute_get(a, &tXsC.layout, 1), m2 = cute_get(a, &tXsC.layout, 2);
    bool along2 = cute_size(a, &m2).v > cute_size(a, &m1).v;
    cute_tuple MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    CUTE_FOR_STEP(c, i, cute_i(0), cute_size(a, along2 ? &m2 : &m1), 1, 4) {
        cute_tuple at = cute_tuple_fmt(a, along2 ? "(_,_,%I)" : "(_,%I,_)", i);
        cute_tensor s = cute_tensor_slice(c, tXsC, at), g = cute_tensor_slice(c, tXgC, at);
        cute_tensor r = cute_make_fragment_like(c, s);
        cute_autovec_copy(c, s, r);
        cute_ssa out = cute_elem_less(c, cute_tensor_slice(c, tXkC, at), MN);
        add_beta_c(c, r, g, out, beta);
        cute_copy_if(c, &p->copy_c.atom, out, r, g);
    }
}

/* C through shared memory (GEMM step 5's epilogue, epilogue_smem.c): alpha acc, in C's
 * dtype, is written to sC in the MMA's layout (static shared offsets: nothing of C's
 * addresses is computed for it), then read back by p->copy_c in 16-byte runs of C's
 * unit-stride mode, where beta C is added (C read in the same runs) and each run leaves with
 * one 128-bit store.  The consumers meet at a named barrier (the producer, loading the next
 * tile, takes no part) before sC is written, when the previous tile's reads of it are done,
 * and before it is read back.  An f32 C's tile (128 KB) goes in halves of N through a buffer
 * of 64 KB (p->c_parts), leaving 3 stages beside it, not 2 (2 ran at 54-56% of cuBLAS). */
void gemm_hopper_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                          cute_val alpha, cute_val beta, cute_tensor sC)
{
    if (!p->smem_epilogue) { /* (a ping-pong warpgroup's MMA slices its own 128 threads) */
        epilogue_pieces(c, p, p->pingpong ? cute_mod(cute_ctx_alg(c), tid, cute_i(128)) : tid, t, acc, alpha, beta);
        return;
    }
    cute_alg *a = cute_ctx_alg(c);
    int consumers = 128 * p->consumers;
    int64_t pieces = p->bn / 8 / p->c_parts; /* 8-column blocks of the accumulators a part */
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCsC = cute_partition_C(c, thr, gemm_c_parts_on_top(c, p, sC));
    cute_ssa v = cute_tensor_load(c, acc);
    cute_tensor_store(c, acc, cute_ssa_binop(c, CUTE_OP_MUL, v, cute_ssa_scalar(c, alpha, v.shape)));
    cute_tuple part = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)(p->bn / p->c_parts));
    for (int q = 0; q < p->c_parts; q++) {
        cute_named_barrier_sync(c, EPILOGUE_BARRIER, consumers);
        for (int64_t j = q * pieces; j < (q + 1) * pieces; j++) {
            cute_tuple at = cute_tuple_fmt(a, "((_,_,%lld),_,_)", (long long)j);
            cute_ssa x = cute_tensor_load(c, cute_tensor_slice(c, acc, at));
            cute_tensor_store(c, cute_tensor_slice(c, tCsC, at), cute_ssa_cvt(c, x, (cute_dtype)sC.dtype));
        }
        cute_named_barrier_sync(c, EPILOGUE_BARRIER, consumers);
        cute_tuple at = cute_tuple_fmt(a, "(0,%d)", q);
        runs_out(c, p, tid, t, cute_tensor_local_tile(c, t->gC, part, at, NULL),
                 cute_tensor_local_tile(c, t->kC, part, at, NULL), beta, sC);
    }
}
