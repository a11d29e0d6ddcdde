/* Block-scaled GEMV, seed 001's NVFP4 GEMV (and MXFP8):
 *   y(M,L) = alpha * sum_k A(m,k,l) SFA(m,k,l) x(k,l) SFB(k,l) + beta * y
 * A is K-major e2m1 (two to a byte) or e4m3, x likewise; one scale per sf_vec elements
 * along K (ue4m3 per 16, ue8m0 per 32), laid out as CuTe and cuBLAS lay them out (below).
 * The body is the K-major GEMV's (a warp per row, a lane a 16-byte vector of A and of x per
 * k-tile): the vectors are converted to f32 (PTX's cvt on sm_100a, the same rounding in bit
 * operations before), multiplied, summed per scale block, and each block's sum multiplied
 * by its two scales, found at the lane's coordinates. */
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"

cute_dtype cute_gemv_sf_dtype(const cute_gemv_config *cfg)
{
    return cfg->dtype == CUTE_E2M1 ? CUTE_UE4M3 : CUTE_UE8M0;
}

/* CuTe's scale-factor layout (Sm1xxBlkScaledConfig's SfKMajorAtom tiled to the shape, K's
 * tiles first) as a function of element coordinates (rows, K, L): tiles of 128 rows by 4
 * scales, 512 bytes each; row r = r0 + 32 r1 of a tile at r0 * 16 + r1 * 4, scale j of the
 * row at + j; every element of a block (sfv of them) the same scale (stride 0). */
static cute_layout sf_layout(cute_alg *a, cute_int rows, cute_int K, cute_int L, int sfv)
{
    cute_int rm = cute_ceil_div(a, rows, cute_i(128)), rk = cute_ceil_div(a, K, cute_i(4 * sfv));
    cute_int row_tiles = cute_mul(a, rk, cute_i(512)), batch = cute_mul(a, row_tiles, rm);
    return cute_layout_fmt(a, "(((32,4),%I),((%d,4),%I),%I):(((16,4),%I),((0,1),512),%I)", rm, sfv, rk, L,
                           row_tiles, batch);
}

/* the one element of t at coordinate crd, as a tensor of one element */
static cute_ssa scale_at(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    cute_tensor at = cute_tensor_domain_offset(c, t, crd);
    at.layout = cute_layout_parse(cute_ctx_alg(c), "(1):(0)");
    return cute_ssa_cvt(c, cute_tensor_load(c, at), CUTE_F32);
}

/* this lane's vector of A and of x at `at`: products summed per scale block, each sum times
 * its scales, added to acc */
static void vector_fma(cute_ctx *c, const gemv_plan *p, cute_thr_copy thr, const gemv_tiles *t,
                       cute_tuple at, cute_tensor sfa, cute_tensor sfb, cute_val acc, const cute_ssa *in)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor tA = cute_partition_S(c, thr, cute_tensor_slice(c, t->gA, at));
    cute_tensor tX = cute_partition_S(c, thr, cute_tensor_slice(c, t->gX[0], at));
    cute_tensor rA = cute_make_fragment_like(c, tA), rX = cute_make_fragment_like(c, tX);
    if (in) cute_copy_if_whole(c, &p->tc.atom, *in, tA, rA), cute_copy_if_whole(c, &p->tc.atom, *in, tX, rX);
    else cute_copy(c, &p->tc.atom, tA, rA), cute_copy(c, &p->tc.atom, tX, rX);
    cute_ssa prod = cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_cvt(c, cute_tensor_load(c, rA), CUTE_F32),
                                   cute_ssa_cvt(c, cute_tensor_load(c, rX), CUTE_F32));
    int vec = p->cfg.vec, per = vec < p->cfg.sf_vec ? vec : p->cfg.sf_vec;
    cute_tensor blocks = cute_make_rmem_tensor_like(c, rA, CUTE_F32);
    cute_tensor_store(c, blocks, prod);
    blocks.layout = cute_layout_fmt(a, "(%d,%d):(1,%d)", per, vec / per, per); /* (block, blocks) */
    cute_tensor crd = cute_partition_S(c, thr, cute_tensor_slice(c, t->cA, at));
    cute_int m = crd.coord.leaf[0], k = crd.coord.leaf[1];
    cute_int last = cute_sub(a, t->kend, cute_i(1)); /* a tail vector past K reads K - 1's */
    for (int j = 0; j < vec / per; j++) {
        cute_int kj = cute_min(a, cute_add(a, k, cute_i((int64_t)j * per)), last);
        cute_val s = cute_ssa_reduce(c, CUTE_OP_ADD, cute_tensor_load(c, CUTE_SLICE(c, blocks, CUTE_ALL, j)));
        cute_val sa = cute_ssa_get(c, scale_at(c, sfa, CUTE_CRD(m, kj, t->l)), 0);
        cute_val sb = cute_ssa_get(c, scale_at(c, sfb, CUTE_CRD(0, kj, t->l)), 0);
        cute_val_assign(c, acc, cute_val_fma(c, s, cute_val_binop(c, CUTE_OP_MUL, sa, sb), acc));
    }
}

static void blockscaled_kernel(cute_ctx *c, cute_tensor mA, cute_tensor sfa, cute_tensor mX,
                               cute_tensor sfb, cute_tensor mY, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int K = mA.layout.shape.leaf[1];
    gemv_tiles t = gemv_block_tiles(c, p, mA, mX, cute_max(a, K, cute_i(1)));
    cute_thr_copy thr = cute_tiled_copy_slice(&p->tc, cute_thread_idx(c, 0));
    cute_tensor first = cute_partition_S(c, thr, CUTE_SLICE(c, t.cA, CUTE_ALL, CUTE_ALL, 0));
    cute_int row = first.coord.leaf[0]; /* this warp's row */
    int64_t tk = cute_gemv_k_tile(&p->cfg);
    CUTE_IF(c, cute_int_lt(c, row, mA.layout.shape.leaf[0])) {
        cute_val acc = cute_val_var(c, cute_val_const(c, CUTE_F32, 0.0));
        cute_int full = cute_div(a, K, cute_i(tk));
        CUTE_FOR(c, kt, cute_i(0), full) {
            vector_fma(c, p, thr, &t, CUTE_CRD(CUTE_ALL, CUTE_ALL, kt), sfa, sfb, acc, NULL);
        }
        CUTE_IF(c, cute_int_lt(c, cute_mul(a, full, cute_i(tk)), K)) {
            cute_tuple at = CUTE_CRD(CUTE_ALL, CUTE_ALL, full);
            cute_ssa in = cute_elem_less(c, cute_partition_S(c, thr, cute_tensor_slice(c, t.cA, at)), t.bound);
            vector_fma(c, p, thr, &t, at, sfa, sfb, acc, &in);
        }
        gemv_finish_warp(c, p, &acc, row, mY, mY, &t, alpha, beta);
    }
}

/* arguments: A (M,K,L), SFA (n), x (K,1,L), SFB (n), y (M,1,L), alpha, beta */
void gemv_blockscaled_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mA = arg[0].tensor, sfa = arg[1].tensor, sfb = arg[3].tensor, mY = arg[4].tensor;
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1], L = mA.layout.shape.leaf[2];
    sfa.layout = sf_layout(a, M, K, L, p->cfg.sf_vec);
    sfb.layout = sf_layout(a, cute_i(1), K, L, p->cfg.sf_vec);
    cute_tensor xb = gemv_broadcast_x(c, arg[2].tensor, M);
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, M, cute_i(p->threads / 32)), cute_i(1), L},
                           .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, blockscaled_kernel, cfg, mA, sfa, xb, sfb, mY, arg[5].f, arg[6].f);
}
