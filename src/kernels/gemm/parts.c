/* The pieces every GEMM body is made of: the block's tiles, a k-tile's partition and its
 * bounds predicate, and the epilogue. */
#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

cute_tuple gemm_matrix_shape(cute_ctx *c, cute_tensor t)
{
    return cute_tuple_take(cute_ctx_alg(c), &t.layout.shape, 0, 2);
}

/* a batched operand's matrix l: its first two modes */
static cute_tensor batch(cute_ctx *c, const gemm_plan *p, cute_tensor t, cute_int l)
{
    if (!p->cfg.batched) return t;
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), "(_,_,%I)", l));
}

/* The tile this block computes.  Rasterized (raster f > 1), the grid is (Mt * f, ceil(Nt/f))
 * and block (x, y) takes tile (x / f, x % f + f y): the f blocks of consecutive x share an
 * A tile and walk f columns of B together, so the blocks resident at once reuse A and B
 * from L2 (ampere/tensorop_gemm.py's raster_tile). */
static void tile_coord(cute_ctx *c, const gemm_plan *p, cute_int N, cute_int *tm, cute_int *tn,
                       cute_val *inside)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int x = cute_block_idx(c, 0), y = cute_block_idx(c, 1);
    if (p->raster <= 1) {
        *tm = x, *tn = y;
        *inside = cute_val_int(c, CUTE_I1, 1);
        return;
    }
    cute_int f = cute_i(p->raster);
    *tm = cute_div(a, x, f);
    *tn = cute_add(a, cute_mod(a, x, f), cute_mul(a, y, f));
    *inside = cute_int_lt(c, *tn, cute_ceil_div(a, N, cute_i(p->bn)));
}

gemm_tiles gemm_block_tiles(cute_ctx *c, const gemm_plan *p, cute_tensor mA, cute_tensor mB,
                            cute_tensor mC, cute_tensor cA, cute_tensor cB, cute_tensor cC)
{
    cute_int tm, tn;
    cute_val inside;
    tile_coord(c, p, mC.layout.shape.leaf[1], &tm, &tn, &inside);
    gemm_tiles t = gemm_tiles_at(c, p, mA, mB, mC, cA, cB, cC, tm, tn);
    t.inside = inside;
    return t;
}

gemm_tiles gemm_tiles_at(cute_ctx *c, const gemm_plan *p, cute_tensor mA, cute_tensor mB, cute_tensor mC,
                         cute_tensor cA, cute_tensor cB, cute_tensor cC, cute_int tm, cute_int tn)
{
    cute_alg *a = cute_ctx_alg(c);
    gemm_tiles t;
    t.M = mC.layout.shape.leaf[0];
    t.N = mC.layout.shape.leaf[1];
    t.shape_a = gemm_matrix_shape(c, mA);
    t.shape_b = gemm_matrix_shape(c, mB);
    t.inside = cute_val_int(c, CUTE_I1, 1);
    cute_int l = p->cfg.batched ? cute_block_idx(c, 2) : cute_i(0);
    mA = batch(c, p, mA, l), mB = batch(c, p, mB, l), mC = batch(c, p, mC, l);
    cute_tuple cta = cute_tuple_fmt(a, "(%lld,%lld,%lld)", (long long)p->bm, (long long)p->bn, (long long)p->bk);
    cute_tuple coord = cute_tuple_fmt(a, "(%I,%I,_)", tm, tn);
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

int gemm_vector_bytes(const cute_gemm_config *cfg, cute_dtype d)
{
    int bytes = cfg->align_bytes < 16 ? cfg->align_bytes : 16, esize = cute_dtype_bytes(d);
    return bytes < esize ? esize : bytes; /* an element is aligned to itself */
}

cute_dtype gemm_scalar_dtype(const cute_gemm_config *cfg)
{
    return cfg->dtype == CUTE_F64 || cfg->dtype == CUTE_I8 ? CUTE_F64 : CUTE_F32;
}

/* alpha * acc + beta * C in the scalar type, rounded once to C's dtype; beta == 0 reads no
 * C (BLAS: it may hold anything, NaN included) */
cute_dtype gemm_scale_scalars(cute_ctx *c, const gemm_plan *p, cute_dtype C, cute_val *alpha, cute_val *beta)
{
    cute_dtype s = gemm_scalar_dtype(&p->cfg);
    if (C == CUTE_I32) { /* integral alpha and beta (the library checks): s32 arithmetic,
                          * wrapping like cuBLAS's 32-bit integer compute, in as many registers
                          * as the accumulators */
        s = CUTE_I32;
        *alpha = cute_val_cvt(c, *alpha, s), *beta = cute_val_cvt(c, *beta, s);
    }
    return s;
}

cute_ssa gemm_scale(cute_ctx *c, const gemm_plan *p, cute_ssa acc, cute_val alpha, cute_val beta,
                    cute_tensor C, cute_ssa in)
{
    cute_dtype s = gemm_scale_scalars(c, p, (cute_dtype)C.dtype, &alpha, &beta);
    cute_ssa ax = cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_cvt(c, acc, s), cute_ssa_scalar(c, alpha, acc.shape));
    cute_tensor r = cute_make_rmem_tensor(c, s, cute_make_layout(cute_ctx_alg(c), acc.shape));
    cute_tensor_store(c, r, ax);
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_NE, beta, cute_val_const(c, s, 0.0))) {
        cute_ssa cin = cute_ssa_cvt(c, cute_tensor_load_if(c, C, in, 0.0), s);
        cute_ssa bc = cute_ssa_binop(c, CUTE_OP_MUL, cin, cute_ssa_scalar(c, beta, cin.shape));
        cute_tensor_store(c, r, cute_ssa_binop(c, CUTE_OP_ADD, ax, bc));
    }
    return cute_ssa_cvt(c, cute_tensor_load(c, r), (cute_dtype)C.dtype);
}

/* C = alpha acc + beta C on one run of the thread's tile, where `pred` (a predicate fragment
 * of the run's shape) holds */
static void epilogue_part(cute_ctx *c, const gemm_plan *p, cute_tensor acc, cute_tensor tCgC,
                          cute_tensor pred, cute_val alpha, cute_val beta)
{
    cute_ssa in = cute_tensor_load(c, pred);
    if (acc.dtype == tCgC.dtype && acc.dtype == gemm_scalar_dtype(&p->cfg)) {
        cute_axpby_if(c, in, alpha, acc, beta, tCgC);
        return;
    }
    cute_tensor_store_if(c, tCgC, gemm_scale(c, p, cute_tensor_load(c, acc), alpha, beta, tCgC, in), in);
}

/* One run of C at a time (the accumulators of one n for a column-major C, of one m for a
 * row-major one): at most a run's values of C and of its scaled accumulators are live at
 * once, not the tile's.  The whole tile at once spilled 60 bytes in the pipelined SGEMM,
 * and ptxas banked its main loop's FFMA operands worse (bench/RESULTS.md). */
void gemm_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                   cute_tensor acc, cute_val alpha, cute_val beta)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCgC = cute_partition_C(c, thr, t->gC);
    cute_tensor tCkC = cute_partition_C(c, thr, t->kC);
    /* the tile's bounds first, in a predicate fragment (CuTe's tCpC) that each run slices */
    cute_tensor tCpC = cute_make_rmem_tensor(c, CUTE_I1, cute_make_layout(a, acc.layout.shape));
    cute_tensor_store(c, tCpC, cute_elem_less(c, tCkC, cute_tuple_fmt(a, "(%I,%I)", t->M, t->N)));
    int across = p->cfg.major[2] == 0 ? 2 : 1; /* the (V,M,N) mode that is not C's runs */
    cute_layout mode = cute_get(a, &acc.layout, across);
    int64_t runs = cute_size(a, &mode).v;
    const char *fmt = across == 2 ? "(_,_,%lld)" : "(_,%lld,_)";
    for (int64_t j = 0; j < runs && !a->failed; j++) {
        cute_tuple at = cute_tuple_fmt(a, fmt, (long long)j);
        epilogue_part(c, p, cute_tensor_slice(c, acc, at), cute_tensor_slice(c, tCgC, at),
                      cute_tensor_slice(c, tCpC, at), alpha, beta);
    }
}
