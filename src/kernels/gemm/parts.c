/* The pieces every GEMM body is made of: the block's tiles, a k-tile's partition and its
 * bounds predicate, and the epilogue. */
#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

gemm_tiles gemm_block_tiles(cute_ctx *c, const gemm_plan *p, cute_tensor mA, cute_tensor mB,
                            cute_tensor mC, cute_tensor cA, cute_tensor cB, cute_tensor cC)
{
    cute_alg *a = cute_ctx_alg(c);
    gemm_tiles t;
    t.M = mC.layout.shape.leaf[0];
    t.N = mC.layout.shape.leaf[1];
    t.shape_a = mA.layout.shape;
    t.shape_b = mB.layout.shape;
    cute_int bm = cute_block_idx(c, 0), bn = cute_block_idx(c, 1);
    cute_tuple cta = cute_tuple_fmt(a, "(%lld,%lld,%lld)", (long long)p->bm, (long long)p->bn, (long long)p->bk);
    cute_tuple coord = cute_tuple_fmt(a, "(%I,%I,_)", bm, bn);
    /* seed 002's projections: A takes (M,K), B (N,K), C (M,N) of the (bm,bn,bk) tiler */
    cute_tuple projA = cute_tuple_parse(a, "(1,_,1)"), projB = cute_tuple_parse(a, "(_,1,1)"),
               projC = cute_tuple_parse(a, "(1,1,_)");
    t.gA = cute_tensor_local_tile(c, mA, cta, coord, &projA);
    t.gB = cute_tensor_local_tile(c, mB, cta, coord, &projB);
    t.gC = cute_tensor_local_tile(c, mC, cta, coord, &projC);
    t.kA = cute_tensor_local_tile(c, cA, cta, coord, &projA);
    t.kB = cute_tensor_local_tile(c, cB, cta, coord, &projB);
    t.kC = cute_tensor_local_tile(c, cC, cta, coord, &projC);
    cute_layout k_mode = cute_get(a, &t.gA.layout, 2);
    t.k_tiles = cute_size(a, &k_mode);
    return t;
}

cute_tensor gemm_ktile_src(cute_ctx *c, cute_thr_copy thr, cute_tensor g, cute_int kt)
{
    cute_tuple at = cute_tuple_fmt(cute_ctx_alg(c), "(_,_,%I)", kt);
    return cute_partition_S(c, thr, cute_tensor_slice(c, g, at));
}

cute_ssa gemm_ktile_pred(cute_ctx *c, cute_thr_copy thr, cute_tensor k, cute_int kt,
                         cute_tuple shape)
{
    return cute_elem_less(c, gemm_ktile_src(c, thr, k, kt), shape);
}

void gemm_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                   cute_tensor acc, cute_val alpha, cute_val beta)
{
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCgC = cute_partition_C(c, thr, t->gC);
    cute_tensor tCkC = cute_partition_C(c, thr, t->kC);
    cute_ssa in = cute_elem_less(c, tCkC, cute_tuple_fmt(cute_ctx_alg(c), "(%I,%I)", t->M, t->N));
    cute_axpby_if(c, in, alpha, acc, beta, tCgC);
}
