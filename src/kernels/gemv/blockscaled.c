/* Block-scaled GEMV, seed 001's NVFP4 GEMV (and MXFP8):
 *   y(M,L) = alpha * sum_k A(m,k,l) SFA(m,k,l) x(k,l) SFB(k,l) + beta * y
 * A is K-major e2m1 (two to a byte) or e4m3, x likewise; one scale per sf_vec elements
 * along K (ue4m3 per 16, ue8m0 per 32), laid out as CuTe and cuBLAS lay them out (below).
 * The body is the K-major GEMV's (a warp per row, a lane a 16-byte vector of A and of x per
 * k-tile): the vectors are converted to f32, multiplied, summed per scale block, and each
 * block's sum multiplied by its two scales, found at the lane's coordinates.  On sm_100a
 * e2m1 converts with PTX's cvt; before it (no fp4 instructions) A and x move as u32 words
 * and each word's eight nibbles are decoded by bit operations (decode_word). */
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
    return cute_layout_fmt(a, "(((32,4),%I),((%d,4),%I),%I):(((16,4),%I),((0,1),512),%I)", rm, sfv,
                           rk, L, row_tiles, batch);
}

/* the one element of t at coordinate crd, as a tensor of one element */
static cute_ssa scale_at(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    cute_tensor at = cute_tensor_domain_offset(c, t, crd);
    at.layout = cute_layout_parse(cute_ctx_alg(c), "(1):(0)");
    return cute_ssa_cvt(c, cute_tensor_load(c, at), CUTE_F32);
}

/* this lane's fragments of A and of x at `at`, copied in (the elements *in allows, when
 * given), and the coordinate (m, k) of its first element */
typedef struct lane_fragments {
    cute_tensor rA, rX;
    cute_int m, k;
} lane_fragments;

static lane_fragments load_fragments(cute_ctx *c, const gemv_plan *p, cute_thr_copy thr,
                                     const gemv_tiles *t, cute_tuple at, const cute_ssa *in)
{
    cute_tensor tA = cute_partition_S(c, thr, cute_tensor_slice(c, t->gA, at));
    cute_tensor tX = cute_partition_S(c, thr, cute_tensor_slice(c, t->gX[0], at));
    lane_fragments f = {.rA = cute_make_fragment_like(c, tA), .rX = cute_make_fragment_like(c, tX)};
    if (in)
        cute_copy_if_whole(c, &p->tc.atom, *in, tA, f.rA),
            cute_copy_if_whole(c, &p->tc.atom, *in, tX, f.rX);
    else
        cute_copy(c, &p->tc.atom, tA, f.rA), cute_copy(c, &p->tc.atom, tX, f.rX);
    cute_tensor crd = cute_partition_S(c, thr, cute_tensor_slice(c, t->cA, at));
    f.m = crd.coord.leaf[0], f.k = crd.coord.leaf[1];
    return f;
}

/* this lane's vector of A and of x at `at`: products summed per scale block, each sum times
 * its scales, added to acc */
static void vector_fma(cute_ctx *c, const gemv_plan *p, cute_thr_copy thr, const gemv_tiles *t,
                       cute_tuple at, cute_tensor sfa, cute_tensor sfb, cute_val acc,
                       const cute_ssa *in)
{
    cute_alg *a = cute_ctx_alg(c);
    lane_fragments f = load_fragments(c, p, thr, t, at, in);
    cute_ssa prod =
        cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_cvt(c, cute_tensor_load(c, f.rA), CUTE_F32),
                       cute_ssa_cvt(c, cute_tensor_load(c, f.rX), CUTE_F32));
    int vec = p->cfg.vec, per = vec < p->cfg.sf_vec ? vec : p->cfg.sf_vec;
    cute_tensor blocks = cute_make_rmem_tensor_like(c, f.rA, CUTE_F32);
    cute_tensor_store(c, blocks, prod);
    blocks.layout = cute_layout_fmt(a, "(%d,%d):(1,%d)", per, vec / per, per); /* (block, blocks) */
    cute_int m = f.m, k = f.k;
    cute_int last = cute_sub(a, t->kend, cute_i(1)); /* a tail vector past K reads K - 1's */
    for (int j = 0; j < vec / per; j++) {
        cute_int kj = cute_min(a, cute_add(a, k, cute_i((int64_t)j * per)), last);
        cute_val s = cute_ssa_reduce(c, CUTE_OP_ADD,
                                     cute_tensor_load(c, CUTE_SLICE(c, blocks, CUTE_ALL, j)));
        cute_val sa = cute_ssa_get(c, scale_at(c, sfa, CUTE_CRD(m, kj, t->l)), 0);
        cute_val sb = cute_ssa_get(c, scale_at(c, sfb, CUTE_CRD(0, kj, t->l)), 0);
        cute_val_assign(c, acc, cute_val_fma(c, s, cute_val_binop(c, CUTE_OP_MUL, sa, sb), acc));
    }
}

/* The 8 e2m1 of a word, times 2^-14, in the order 0,4,1,5,2,6,3,7.  Each pair of nibbles
 * 16 bits apart (i, i+4) is moved into an f16 pair in one step: the sign to bit 15, the
 * exponent and fraction bits to bits 9-11, so the f16 of exponent field e and fraction m is
 * exactly 2^-14 times the e2m1 of e and m (e = 0 included: both are subnormal-like, m/2).
 * cvt.f32.f16 is exact. */
static void decode_word(cute_ctx *c, cute_val w, cute_val out[8])
{
    static const int mag_shift[4] = {9, 5, 1, -3}, sign_shift[4] = {12, 8, 4, 0};
    cute_val mags = cute_val_int(c, CUTE_U32, 0x0E000E00),
             signs = cute_val_int(c, CUTE_U32, 0x80008000);
    for (int i = 0; i < 4; i++) {
        int ms = mag_shift[i], ss = sign_shift[i];
        cute_val m = cute_val_binop(c, ms >= 0 ? CUTE_OP_SHL : CUTE_OP_SHR, w,
                                    cute_val_int(c, CUTE_U32, ms >= 0 ? ms : -ms));
        cute_val sg = cute_val_binop(c, CUTE_OP_SHL, w, cute_val_int(c, CUTE_U32, ss));
        cute_val h = cute_val_binop(c, CUTE_OP_OR, cute_val_binop(c, CUTE_OP_AND, m, mags),
                                    cute_val_binop(c, CUTE_OP_AND, sg, signs));
        cute_val hi = cute_val_binop(c, CUTE_OP_SHR, h, cute_val_int(c, CUTE_U32, 16));
        for (int half = 0; half < 2; half++) {
            cute_val bits = cute_val_cvt(c, half ? hi : h, CUTE_U16); /* the low 16 bits */
            out[2 * i + half] =
                cute_val_cvt(c, cute_val_bitcast(c, bits, cute_type_of(CUTE_F16)), CUTE_F32);
        }
    }
}

/* words: this lane's 4 words of A and of x at `at` decoded, products summed per scale block
 * (sf_vec / 8 words), each sum times its scales (and 2^28, the decode's factor), added to acc */
static void words_fma(cute_ctx *c, const gemv_plan *p, cute_thr_copy thr, const gemv_tiles *t,
                      cute_tuple at, cute_tensor sfa, cute_tensor sfb, cute_val acc,
                      const cute_ssa *in)
{
    cute_alg *a = cute_ctx_alg(c);
    lane_fragments f = load_fragments(c, p, thr, t, at, in);
    cute_ssa wa = cute_tensor_load(c, f.rA), wx = cute_tensor_load(c, f.rX);
    cute_int m = f.m, kw = f.k;
    cute_int last = cute_sub(a, cute_mul(a, t->kend, cute_i(8)), cute_i(1));
    int per = p->cfg.sf_vec / 8; /* words per scale block */
    cute_val two28 = cute_val_const(c, CUTE_F32, 268435456.0);
    for (int b = 0; b < wa.n / per; b++) {
        cute_val s = cute_val_const(c, CUTE_F32, 0.0);
        for (int j = b * per; j < (b + 1) * per; j++) {
            cute_val da[8], dx[8];
            decode_word(c, cute_ssa_get(c, wa, j), da);
            decode_word(c, cute_ssa_get(c, wx, j), dx);
            for (int e = 0; e < 8; e++) s = cute_val_fma(c, da[e], dx[e], s);
        }
        cute_int k = cute_min(a, cute_mul(a, cute_add(a, kw, cute_i(b * per)), cute_i(8)), last);
        cute_val sa = cute_ssa_get(c, scale_at(c, sfa, CUTE_CRD(m, k, t->l)), 0);
        cute_val sb = cute_ssa_get(c, scale_at(c, sfb, CUTE_CRD(0, k, t->l)), 0);
        cute_val scale =
            cute_val_binop(c, CUTE_OP_MUL, cute_val_binop(c, CUTE_OP_MUL, sa, sb), two28);
        cute_val_assign(c, acc, cute_val_fma(c, s, scale, acc));
    }
}

static void blockscaled_kernel(cute_ctx *c, cute_tensor mA, cute_tensor sfa, cute_tensor mX,
                               cute_tensor sfb, cute_tensor mY, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int K = mA.layout.shape.leaf[1]; /* (words: in words) */
    gemv_tiles t = gemv_block_tiles(c, p, mA, mX, cute_max(a, K, cute_i(1)));
    gemv_thread th = gemv_thread_start(c, p, &t, false); /* one f32 sum: below */
    cute_thr_copy thr = th.thr;
    cute_int row = th.first.coord.leaf[0]; /* this warp's row */
    int64_t tk = cute_gemv_k_tile(&p->cfg) / (p->words ? 8 : 1);
    void (*fma)(cute_ctx *, const gemv_plan *, cute_thr_copy, const gemv_tiles *, cute_tuple,
                cute_tensor, cute_tensor, cute_val, const cute_ssa *) =
        p->words ? words_fma : vector_fma;
    CUTE_IF(c, cute_int_lt(c, row, mA.layout.shape.leaf[0])) {
        cute_val acc = cute_val_var(c, cute_val_const(c, CUTE_F32, 0.0));
        cute_int full = cute_div(a, K, cute_i(tk));
        CUTE_FOR(c, kt, cute_i(0), full) {
            fma(c, p, thr, &t, CUTE_CRD(CUTE_ALL, CUTE_ALL, kt), sfa, sfb, acc, NULL);
        }
        CUTE_IF(c, cute_int_lt(c, cute_mul(a, full, cute_i(tk)), K)) {
            cute_tuple at = CUTE_CRD(CUTE_ALL, CUTE_ALL, full);
            cute_ssa in = cute_elem_less(
                c, cute_partition_S(c, thr, cute_tensor_slice(c, t.cA, at)), t.bound);
            fma(c, p, thr, &t, at, sfa, sfb, acc, &in);
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
    cute_tensor mX = arg[2].tensor;
    if (p->words) /* 8 e2m1 to a u32 */
        mA = cute_tensor_recast(c, mA, CUTE_U32), mX = cute_tensor_recast(c, mX, CUTE_U32);
    cute_tensor xb = gemv_broadcast_x(c, mX, M);
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, M, cute_i(p->threads / 32)), cute_i(1), L},
                           .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, blockscaled_kernel, cfg, mA, sfa, xb, sfb, mY, arg[5].f, arg[6].f);
}
