/* GEMV with K-major A (each row contiguous): a warp per row.  A block's step is a tile of
 * (warps rows, 32 x vec x unroll columns); the TiledCopy of (warps, 32) threads by (1, vec)
 * values gives warp w row w and each lane `unroll` 16-byte vectors of it (neighbouring
 * lanes, neighbouring vectors: each load instruction of a warp reads 32 x 16 contiguous
 * bytes).  Each vector x_v enters as a stride-0 view shaped like A, partitioned as A is, so
 * one load of A serves every vector.  Full k-tiles run unpredicated; the split's last,
 * partial one is predicated by a coordinate tensor partitioned like the data.  The lanes'
 * f32 sums meet through shuffles. */
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"

/* acc[v] += A's tile * x_v's tile, elementwise in f32; in: the tail's bounds (NULL: none) */
static void tile_fma(cute_ctx *c, const gemv_plan *p, cute_thr_copy thr, const gemv_tiles *t,
                     cute_tuple at, const cute_tensor *acc, const cute_ssa *in)
{
    cute_tensor tA = cute_partition_S(c, thr, cute_tensor_slice(c, t->gA, at));
    cute_tensor rA = cute_make_fragment_like(c, tA);
    /* vec divides K (the library's choice of vec): no vector straddles the tail */
    if (in)
        cute_copy_if_whole(c, &p->tc.atom, *in, tA, rA);
    else
        cute_copy(c, &p->tc.atom, tA, rA);
    cute_ssa va = cute_ssa_cvt(c, cute_tensor_load(c, rA), CUTE_F32);
    for (int v = 0; v < p->nvec; v++) {
        cute_tensor tX = cute_partition_S(c, thr, cute_tensor_slice(c, t->gX[v], at));
        cute_tensor rX = cute_make_fragment_like(c, tX);
        if (in)
            cute_copy_if_whole(c, &p->tc.atom, *in, tX, rX);
        else
            cute_copy(c, &p->tc.atom, tX, rX);
        cute_ssa vx = cute_ssa_cvt(c, cute_tensor_load(c, rX), CUTE_F32);
        cute_tensor_store(c, acc[v],
                          cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, acc[v]),
                                         cute_ssa_binop(c, CUTE_OP_MUL, va, vx)));
    }
}

/* each vector's sum over the warp, written by lane 0 */
static void finish_row(cute_ctx *c, const gemv_plan *p, const cute_tensor *acc, cute_int row,
                       cute_tensor mY, cute_tensor mW, const gemv_tiles *t, cute_val alpha,
                       cute_val beta)
{
    cute_val sum[CUTE_GEMV_MAX_VECTORS];
    for (int v = 0; v < p->nvec; v++)
        sum[v] = cute_ssa_reduce(c, CUTE_OP_ADD, cute_tensor_load(c, acc[v]));
    gemv_finish_warp(c, p, sum, row, mY, mW, t, alpha, beta);
}

static void rows_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                        cute_int kchunk, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    gemv_tiles t = gemv_block_tiles(c, p, mA, mX, kchunk);
    gemv_thread th = gemv_thread_start(c, p, &t, true);
    cute_int row = th.first.coord.leaf[0]; /* this warp's row */
    int64_t tk = cute_gemv_k_tile(&p->cfg);
    CUTE_IF(c, cute_int_lt(c, row, mA.layout.shape.leaf[0])) {
        cute_int full = cute_div(a, cute_sub(a, t.kend, t.k0), cute_i(tk));
        CUTE_FOR(c, kt, cute_i(0), full) {
            tile_fma(c, p, th.thr, &t, CUTE_CRD(CUTE_ALL, CUTE_ALL, kt), th.acc, NULL);
        }
        CUTE_IF(c, cute_int_lt(c, cute_add(a, t.k0, cute_mul(a, full, cute_i(tk))), t.kend)) {
            cute_tuple at = CUTE_CRD(CUTE_ALL, CUTE_ALL, full);
            cute_ssa in = cute_elem_less(
                c, cute_partition_S(c, th.thr, cute_tensor_slice(c, t.cA, at)), t.bound);
            tile_fma(c, p, th.thr, &t, at, th.acc, &in);
        }
        finish_row(c, p, th.acc, row, mY, mW, &t, alpha, beta);
    }
}

void gemv_rows_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    gemv_host_args g = gemv_host_unpack(c, arg, p->threads / 32); /* a warp per row */
    CUTE_LAUNCH(c, rows_kernel, g.launch, g.mA, g.xb, g.mY, g.mW, g.kchunk, g.alpha, g.beta);
    gemv_reduce_launch(c, p, g.mY, g.mW, g.alpha, g.beta);
}
