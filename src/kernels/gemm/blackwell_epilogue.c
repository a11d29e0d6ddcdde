/* The Blackwell GEMM's epilogue (blackwell.c): the accumulator tile lies in tensor memory,
 * row m in lane m (SM100_MMA's CLayout (1,(M,N)):(0,(1,M)) over the 128 lanes).  Epilogue
 * warp w may read lanes 32 w .. 32 w + 31 only, so thread tid holds row tid: it reads its
 * row 32 columns at a time (SM100_TMEM_LOAD_32dp32b32x: tcgen05.ld.32x32b.x32, T2R), then
 * stores alpha acc + beta C to those 32 elements of C, predicated at the tile's edges.  The
 * dual GEMM's tile of C is bn / 2 wide: silu of its columns times those bn / 2 further on. */
#include "cutec/notation.h"
#include "cutec/tcgen05.h"
#include "kernels/gemm/gemm_internal.h"

enum { CHUNK = 32 }; /* columns a tcgen05.ld.32x32b.x32 reads */

/* the words of one T2R (as many as g has) as the f32 fragment they are, shaped like C's piece g */
static cute_tensor t2r(cute_ctx *c, cute_val at, cute_tensor g)
{
    cute_val w[CHUNK];
    int n = (int)cute_size(cute_ctx_alg(c), &g.layout).v;
    cute_tmem_load_32dp32b(c, at, n, w);
    cute_tcgen05_wait_ld(c);
    cute_tensor r = cute_make_rmem_tensor_like(c, g, CUTE_F32);
    for (int j = 0; j < n; j++) {
        cute_tensor one = cute_tensor_slice(c, r, cute_tuple_fmt(cute_ctx_alg(c), "%d", j));
        cute_val f = cute_val_bitcast(c, w[j], cute_type_of(CUTE_F32));
        cute_tensor_store(c, one, cute_ssa_scalar(c, f, one.layout.shape));
    }
    return r;
}

/* chunk j of row tid of a (bm, bn) tile: (chunk) */
static cute_tensor row_chunk(cute_ctx *c, cute_tensor tile, cute_int tid, int64_t j, int chunk)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor cols = cute_tensor_local_tile(c, tile, cute_tuple_fmt(a, "(1,%d)", chunk),
                                              cute_tuple_fmt(a, "(%I,%lld)", tid, (long long)j), NULL);
    return cute_tensor_slice(c, cols, cute_tuple_fmt(a, "(0,_)"));
}

void gemm_blackwell_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_val acc,
                             cute_val alpha, cute_val beta)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    /* this warp's lanes: lane field (bits 16 and up) 32 (tid / 32) */
    cute_val lanes = cute_val_binop(c, CUTE_OP_SHL, cute_int_value(c, cute_div(a, tid, cute_i(32)), CUTE_U32),
                                    cute_val_int(c, CUTE_U32, 16 + 5));
    cute_val row = cute_val_binop(c, CUTE_OP_ADD, acc, lanes);
    int64_t cols = p->cfg.dual ? p->bn / 2 : p->bn; /* C's tile */
    /* a column-major C: each of a row's elements is a store of its own, its address and predicate
     * live until it: 8 columns a T2R, where 32 spilled (255 registers) */
    int chunk = p->cfg.major[2] == 0 ? CHUNK / 4 : CHUNK;
    for (int64_t j = 0; j < cols / chunk; j++) {
        cute_tensor g = row_chunk(c, t->gC, tid, j, chunk);
        cute_tensor r = t2r(c, cute_val_binop(c, CUTE_OP_ADD, row, cute_val_int(c, CUTE_U32, j * chunk)), g);
        cute_ssa v = cute_tensor_load(c, r);
        if (p->cfg.dual) { /* silu(A B0^T) times the same columns of A B1^T, bn / 2 further on */
            cute_val up = cute_val_binop(c, CUTE_OP_ADD, row, cute_val_int(c, CUTE_U32, cols + j * chunk));
            v = cute_ssa_binop(c, CUTE_OP_MUL, gemm_epilogue_silu(c, v), cute_tensor_load(c, t2r(c, up, g)));
        }
        cute_ssa in = cute_elem_less(c, row_chunk(c, t->kC, tid, j, chunk), MN);
        cute_tensor_store_if(c, g, gemm_scale(c, p, v, alpha, beta, g, in), in);
    }
}
