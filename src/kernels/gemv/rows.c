/* GEMV with K-major A (each row contiguous): a warp per row.  A block's step is a tile of
 * (warps rows, 32 x vec x unroll columns); the TiledCopy of (warps, 32) threads by (1, vec)
 * values gives warp w row w and each lane `unroll` 16-byte vectors of it (neighbouring
 * lanes, neighbouring vectors: each load instruction of a warp reads 32 x 16 contiguous
 * bytes).  x enters as a stride-0 view shaped like A, (M,K,L):(0,1,ldx), partitioned as A
 * is.  Full k-tiles run unpredicated; the split's last, partial one is predicated by a
 * coordinate tensor partitioned like the data.  The lanes' f32 sums meet through shuffles. */
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"

/* acc += A's tile * x's tile, elementwise in f32; pred: the tail's bounds (NULL: none) */
static void tile_fma(cute_ctx *c, const gemv_plan *p, cute_tensor tA, cute_tensor tX,
                     cute_tensor acc, const cute_ssa *pred)
{
    cute_tensor rA = cute_make_fragment_like(c, tA), rX = cute_make_fragment_like(c, tX);
    if (pred) { /* vec divides K (the library's choice of vec): no vector straddles it */
        cute_copy_if_whole(c, &p->tc.atom, *pred, tA, rA);
        cute_copy_if_whole(c, &p->tc.atom, *pred, tX, rX);
    } else {
        cute_copy(c, &p->tc.atom, tA, rA);
        cute_copy(c, &p->tc.atom, tX, rX);
    }
    cute_ssa va = cute_ssa_cvt(c, cute_tensor_load(c, rA), CUTE_F32);
    cute_ssa vx = cute_ssa_cvt(c, cute_tensor_load(c, rX), CUTE_F32);
    cute_tensor_store(c, acc, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, acc),
                                             cute_ssa_binop(c, CUTE_OP_MUL, va, vx)));
}

/* the sum over the warp's lanes (butterfly: every lane gets it) */
static cute_val warp_sum(cute_ctx *c, cute_val v)
{
    for (int off = 16; off >= 1; off /= 2) {
        cute_val o = cute_val_shfl(c, v, cute_val_int(c, CUTE_I32, off), CUTE_SHFL_XOR);
        v = cute_val_binop(c, CUTE_OP_ADD, v, o);
    }
    return v;
}

static void rows_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY,
                        cute_tensor mW, cute_int kchunk, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int bm = cute_block_idx(c, 0), s = cute_block_idx(c, 1), l = cute_block_idx(c, 2);
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1];
    cute_int k0 = cute_mul(a, s, kchunk), len = cute_min(a, kchunk, cute_sub(a, K, k0));
    cute_tuple origin = CUTE_CRD(0, k0), bound = cute_tuple_fmt(a, "(%I,%I)", M, len);
    /* (TileM, TileK, RestK): this block's row of tiles of this batch's A from k0 on, of x's view, of the coordinates
     * (relative to k0) */
    cute_tensor gA = cute_tensor_local_tile(c, cute_tensor_domain_offset(c, CUTE_SLICE(c, mA, CUTE_ALL, CUTE_ALL, l), origin), p->tile, CUTE_CRD(bm, CUTE_ALL), NULL);
    cute_tensor gX = cute_tensor_local_tile(c, cute_tensor_domain_offset(c, CUTE_SLICE(c, mX, CUTE_ALL, CUTE_ALL, l), origin), p->tile, CUTE_CRD(bm, CUTE_ALL), NULL);
    cute_tensor cA = cute_tensor_local_tile(c, cute_make_identity_tensor(c, bound), p->tile, CUTE_CRD(bm, CUTE_ALL), NULL);
    cute_thr_copy thr = cute_tiled_copy_slice(&p->tc, cute_thread_idx(c, 0));
    cute_tensor first = cute_partition_S(c, thr, CUTE_SLICE(c, cA, CUTE_ALL, CUTE_ALL, 0));
    cute_int row = first.coord.leaf[0]; /* this warp's row */
    int64_t tk = cute_gemv_k_tile(&p->cfg);
    CUTE_IF(c, cute_int_lt(c, row, M)) {
        cute_tensor acc = cute_make_rmem_tensor_like(c, first, CUTE_F32);
        cute_clear(c, acc);
        cute_int full = cute_div(a, len, cute_i(tk));
        CUTE_FOR(c, kt, cute_i(0), full) {
            cute_tuple at = CUTE_CRD(CUTE_ALL, CUTE_ALL, kt);
            tile_fma(c, p, cute_partition_S(c, thr, cute_tensor_slice(c, gA, at)),
                     cute_partition_S(c, thr, cute_tensor_slice(c, gX, at)), acc, NULL);
        }
        CUTE_IF(c, cute_int_lt(c, cute_mul(a, full, cute_i(tk)), len)) {
            cute_tuple at = CUTE_CRD(CUTE_ALL, CUTE_ALL, full);
            cute_ssa in = cute_elem_less(c, cute_partition_S(c, thr, cute_tensor_slice(c, cA, at)), bound);
            tile_fma(c, p, cute_partition_S(c, thr, cute_tensor_slice(c, gA, at)),
                     cute_partition_S(c, thr, cute_tensor_slice(c, gX, at)), acc, &in);
        }
        cute_val sum = warp_sum(c, cute_ssa_reduce(c, CUTE_OP_ADD, cute_tensor_load(c, acc)));
        CUTE_IF(c, cute_int_eq(c, cute_lane_idx(c), cute_i(0))) {
            cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "(1):(1)"));
            cute_tensor_store(c, r, cute_ssa_scalar(c, sum, r.layout.shape));
            gemv_finish(c, p, r, row, mY, mW, l, s, alpha, beta);
        }
    }
}

void gemv_rows_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mA = arg[0].tensor, mY = arg[2].tensor, mW = arg[3].tensor;
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1], L = mA.layout.shape.leaf[2];
    cute_tensor xb = gemv_broadcast_x(c, arg[1].tensor, M);
    cute_int kchunk = arg[4].i;
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, M, cute_i(p->threads / 32)), gemv_splits(c, K, kchunk), L},
                           .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, rows_kernel, cfg, mA, xb, mY, mW, kchunk, arg[5].f, arg[6].f);
    if (p->cfg.split) gemv_reduce_launch(c, mY, mW, arg[5].f, arg[6].f);
}
