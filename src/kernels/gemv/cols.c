/* GEMV with M-major A (each column contiguous): a thread per vector of rows.  A block's
 * tile is (threads x vec rows, unroll columns); the TiledCopy of threads x 1 by vec x unroll
 * values gives each thread `unroll` 16-byte vectors down its rows.  x enters as a stride-0
 * view shaped like A, (M,K,L):(0,1,ldx), so it is partitioned exactly as A is and each
 * thread reads the x of its columns.  Every step is predicated by a coordinate tensor
 * (rows past M, columns past the split's end). */
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"

/* the sum over the columns of acc (vec rows first, compact): one value per row */
static cute_tensor row_sums(cute_ctx *c, const gemv_plan *p, cute_tensor acc)
{
    cute_alg *a = cute_ctx_alg(c);
    int vec = p->cfg.vec;
    int64_t cols = cute_size(a, &acc.layout).v / vec;
    cute_tensor byrow = acc;
    byrow.layout = cute_layout_fmt(a, "(%d,%lld):(1,%d)", vec, (long long)cols, vec);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(a, "(%d):(1)", vec));
    cute_tensor_store(c, r, cute_tensor_load(c, CUTE_SLICE(c, byrow, CUTE_ALL, 0)));
    for (int64_t j = 1; j < cols; j++)
        cute_tensor_store(c, r, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, r),
                                               cute_tensor_load(c, CUTE_SLICE(c, byrow, CUTE_ALL, j))));
    return r;
}

static void cols_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY,
                        cute_tensor mW, cute_int kchunk, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int bm = cute_block_idx(c, 0), s = cute_block_idx(c, 1), l = cute_block_idx(c, 2);
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1];
    cute_int k0 = cute_mul(a, s, kchunk), kend = cute_min(a, K, cute_add(a, k0, kchunk));
    cute_tuple origin = CUTE_CRD(0, k0), bound = cute_tuple_fmt(a, "(%I,%I)", M, kend);
    /* (TileM, TileK, RestK): this block's row of tiles of this batch's A, of x's view, of the coordinates */
    cute_tensor gA = cute_tensor_local_tile(c, cute_tensor_domain_offset(c, CUTE_SLICE(c, mA, CUTE_ALL, CUTE_ALL, l), origin), p->tile, CUTE_CRD(bm, CUTE_ALL), NULL);
    cute_tensor gX = cute_tensor_local_tile(c, cute_tensor_domain_offset(c, CUTE_SLICE(c, mX, CUTE_ALL, CUTE_ALL, l), origin), p->tile, CUTE_CRD(bm, CUTE_ALL), NULL);
    cute_tensor cA = cute_tensor_local_tile(c, cute_tensor_domain_offset(c, cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%I)", M, K)), origin), p->tile, CUTE_CRD(bm, CUTE_ALL), NULL);
    cute_thr_copy thr = cute_tiled_copy_slice(&p->tc, cute_thread_idx(c, 0));
    cute_copy_atom scalar = cute_copy_atom_autovec(a, p->cfg.dtype);
    cute_tensor first = cute_partition_S(c, thr, CUTE_SLICE(c, cA, CUTE_ALL, CUTE_ALL, 0));
    cute_tensor acc = cute_make_rmem_tensor_like(c, first, CUTE_F32);
    cute_clear(c, acc);
    cute_int steps = cute_ceil_div(a, cute_sub(a, kend, k0), cute_i(p->unroll));
    CUTE_FOR(c, kt, cute_i(0), steps) {
        cute_tuple at = CUTE_CRD(CUTE_ALL, CUTE_ALL, kt);
        cute_tensor tA = cute_partition_S(c, thr, cute_tensor_slice(c, gA, at));
        cute_tensor tX = cute_partition_S(c, thr, cute_tensor_slice(c, gX, at));
        cute_ssa in = cute_elem_less(c, cute_partition_S(c, thr, cute_tensor_slice(c, cA, at)), bound);
        cute_tensor rA = cute_make_fragment_like(c, tA), rX = cute_make_fragment_like(c, tX);
        cute_copy_if_whole(c, &p->tc.atom, in, tA, rA); /* vec divides M: whole vectors */
        cute_copy_if(c, &scalar, in, tX, rX);           /* stride 0 down the rows */
        cute_ssa prod = cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_cvt(c, cute_tensor_load(c, rA), CUTE_F32),
                                       cute_ssa_cvt(c, cute_tensor_load(c, rX), CUTE_F32));
        cute_tensor_store(c, acc, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, acc), prod));
    }
    cute_int m0 = first.coord.leaf[0]; /* this thread's first row */
    gemv_finish(c, p, row_sums(c, p, acc), m0, mY, mW, l, s, alpha, beta);
}

void gemv_cols_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mA = arg[0].tensor, mX = arg[1].tensor, mY = arg[2].tensor, mW = arg[3].tensor;
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1], L = mA.layout.shape.leaf[2];
    cute_tensor xb = gemv_broadcast_x(c, mX, M);
    cute_int kchunk = arg[4].i;
    int64_t rows = (int64_t)p->threads * p->cfg.vec;
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, M, cute_i(rows)), gemv_splits(c, K, kchunk), L},
                           .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, cols_kernel, cfg, mA, xb, mY, mW, kchunk, arg[5].f, arg[6].f);
    if (p->cfg.split) gemv_reduce_launch(c, mY, mW, arg[5].f, arg[6].f);
}
