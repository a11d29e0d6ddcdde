/* Block-scaled GEMV, seed 001's NVFP4 GEMV (and MXFP8):
 *   y(M,L) = alpha * sum_k A(m,k,l) SFA(m,k,l) x(k,l) SFB(k,l) + beta * y
 * A is K-major e2m1 (two to a byte) or e4m3, x likewise; one scale per sf_vec elements
 * along K (ue4m3 per 16, ue8m0 per 32), laid out as CuTe and cuBLAS lay them out (below).
 * The body is the K-major GEMV's walk (gemv_warp_rows).  NVFP4: A and x move as u32 words
 * of 8 e2m1, a warp takes four rows and decodes x once for them, each word becomes four
 * paired f16 values (sm_100a: PTX's cvt.rn.f16x2.e2m1x2; before it, bit operations) whose
 * products add in paired f16 instructions, each block's sum times its two scales found at
 * the lane's coordinates (words_fma).  MXFP8: a warp per row, a lane a 16-byte vector of A
 * and of x per k-tile converted to f32, multiplied, summed per scale block (vector_fma). */
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

/* the words body's resident blocks an SM asked of ptxas: left alone it takes 128 registers
 * (4 blocks of 128 threads), and a warp's 64 bytes of A in flight need the warps */
#define BS_WORDS_BLOCKS 5

/* the one element of t at coordinate crd, as a tensor of one element */
static cute_ssa scale_at(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    cute_tensor at = cute_tensor_domain_offset(c, t, crd);
    at.layout = cute_layout_parse(cute_ctx_alg(c), "(1):(0)");
    return cute_ssa_cvt(c, cute_tensor_load(c, at), CUTE_F32);
}

/* the scales of the two blocks of a vector of 32 from element crd on (its k a multiple of
 * 32: the two are scales 2j and 2j+1 of a row's group of four, adjacent bytes), in f32 */
static cute_ssa scale_pair(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    cute_tensor at = cute_tensor_domain_offset(c, t, crd);
    at.layout = cute_layout_parse(cute_ctx_alg(c), "(2):(1)");
    return cute_ssa_cvt(c, cute_tensor_load(c, at), CUTE_F32);
}

/* a warp's state: its rows' f32 sums, the scales, and what ends its rows */
typedef struct bs_warp {
    cute_val acc[GEMV_MAX_ROWS];
    cute_tensor sfa, sfb, mY;
    cute_val alpha, beta;
    const gemv_tiles *tiles;
} bs_warp;

/* this lane's fragments of A (its rows) and of x (once) at `at`, copied in (pred: the
 * vectors inside the bounds), and the coordinates of A's */
typedef struct lane_fragments {
    cute_tensor rA, rX, crd;
} lane_fragments;

static lane_fragments load_fragments(cute_ctx *c, const gemv_plan *p, cute_thr_copy thr,
                                     const gemv_tiles *t, cute_tuple at, bool pred)
{
    lane_fragments f;
    f.crd = cute_partition_S(c, thr, cute_tensor_slice(c, t->cA, at));
    cute_tensor crd0 = gemv_lane_row(c, p, f.crd, 0);
    f.rA = gemv_load_part(c, p, cute_partition_S(c, thr, cute_tensor_slice(c, t->gA, at)),
                          pred ? &f.crd : NULL, t->bound);
    cute_tensor tX = cute_partition_S(c, thr, cute_tensor_slice(c, t->gX[0], at));
    f.rX = gemv_load_part(c, p, gemv_lane_row(c, p, tX, 0), pred ? &crd0 : NULL, t->bound);
    return f;
}

/* sm_100a: this lane's vector of A and of x at `at` (one row, one vector): products summed
 * per scale block, each sum times its scales, added to acc */
static void vector_fma(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                       cute_tuple at, bool pred, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    bs_warp *w = user;
    lane_fragments f = load_fragments(c, p, th->thr, t, at, pred);
    cute_ssa prod =
        cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_cvt(c, cute_tensor_load(c, f.rA), CUTE_F32),
                       cute_ssa_cvt(c, cute_tensor_load(c, f.rX), CUTE_F32));
    int vec = p->cfg.vec, per = vec < p->cfg.sf_vec ? vec : p->cfg.sf_vec;
    cute_tensor blocks = cute_make_rmem_tensor_like(c, f.rA, CUTE_F32);
    cute_tensor_store(c, blocks, prod);
    blocks.layout = cute_layout_fmt(a, "(%d,%d):(1,%d)", per, vec / per, per); /* (block, blocks) */
    cute_int m = f.crd.coord.leaf[0], k = f.crd.coord.leaf[1];
    cute_int last = cute_sub(a, t->kend, cute_i(1)); /* a tail vector past K reads K - 1's */
    for (int j = 0; j < vec / per; j++) {
        cute_int kj = cute_min(a, cute_add(a, k, cute_i((int64_t)j * per)), last);
        cute_val s = cute_ssa_reduce(c, CUTE_OP_ADD,
                                     cute_tensor_load(c, CUTE_SLICE(c, blocks, CUTE_ALL, j)));
        cute_val sa = cute_ssa_get(c, scale_at(c, w->sfa, CUTE_CRD(m, kj, t->l)), 0);
        cute_val sb = cute_ssa_get(c, scale_at(c, w->sfb, CUTE_CRD(0, kj, t->l)), 0);
        cute_val_assign(c, w->acc[0],
                        cute_val_fma(c, s, cute_val_binop(c, CUTE_OP_MUL, sa, sb), w->acc[0]));
    }
}

/* The 8 e2m1 of a word (element 0 in the low nibble) as four paired f16 values (out[i]:
 * nibbles i and i+4, in the low and high half of one word), each 2^-14 times its e2m1.
 * Each pair of nibbles 16 bits apart moves into its word in one step: the sign to bit 15,
 * the exponent and fraction bits to bits 9-11, so the f16 of exponent field e and fraction
 * m is exactly 2^-14 times the e2m1 of e and m (e = 0 included: both are subnormal-like,
 * m/2).  The words stay words: the paired products read them as they are. */
static void word_to_pairs(cute_ctx *c, cute_val w, cute_ssa out[4])
{
    static const int mag_shift[4] = {9, 5, 1, -3}, sign_shift[4] = {12, 8, 4, 0};
#define U32(v) cute_val_int(c, CUTE_U32, (v))
    cute_val mags = U32(0x0E000E00), signs = U32(0x80008000);
    for (int i = 0; i < 4; i++) {
        int ms = mag_shift[i], ss = sign_shift[i];
        cute_val m =
            cute_val_binop(c, ms >= 0 ? CUTE_OP_SHL : CUTE_OP_SHR, w, U32(ms >= 0 ? ms : -ms));
        cute_val sg = ss ? cute_val_binop(c, CUTE_OP_SHL, w, U32(ss)) : w;
        cute_val h = cute_val_binop(c, CUTE_OP_OR, cute_val_binop(c, CUTE_OP_AND, m, mags),
                                    cute_val_binop(c, CUTE_OP_AND, sg, signs));
        out[i] = cute_ssa_from_words(c, cute_ssa_scalar(c, h, cute_tuple_int(cute_i(1))), CUTE_F16);
    }
#undef U32
}

/* sm_100a: the 8 e2m1 of a word as four paired f16 values (out[i]: elements 2i and 2i+1,
 * their own values), by cvt.rn.f16x2.e2m1x2 */
static void word_to_pairs_cvt(cute_ctx *c, cute_val w, cute_ssa out[4])
{
    cute_tuple one = cute_tuple_int(cute_i(1));
    cute_ssa h = cute_ssa_words(c, cute_ssa_e2m1_words(c, cute_ssa_scalar(c, w, one)));
    for (int i = 0; i < 4; i++)
        out[i] = cute_ssa_from_words(c, cute_ssa_scalar(c, cute_ssa_get(c, h, i), one), CUTE_F16);
}

/* one vector (4 words: 32 elements, two scale blocks) decoded into 16 paired values, a
 * block's eight in pair[8b .. 8b+7]; by bit operations (2^-14 times the values) times
 * `scale` (a power of two: exact) when given */
static void decoded(cute_ctx *c, const gemv_plan *p, cute_tensor words, const cute_val *scale,
                    cute_ssa pair[16])
{
    cute_ssa w = cute_tensor_load(c, words);
    for (int j = 0; j < w.n && j < 4; j++)
        (p->fp4_cvt ? word_to_pairs_cvt : word_to_pairs)(c, cute_ssa_get(c, w, j), pair + 4 * j);
    for (int i = 0; scale && !p->fp4_cvt && i < 4 * w.n; i++)
        pair[i] = cute_ssa_binop(c, CUTE_OP_MUL, pair[i], cute_ssa_scalar(c, *scale, pair[i].shape));
}

/* sum of scale block b's 16 products (f16 pairs chained: each half of the pair adds 8
 * products, multiples of 1/4 up to 36 (bit operations: 2^-14 times those), so a half's sum
 * is a multiple of 1/4 below 288, at most 1,152 units of its last place: exact in f16,
 * subnormals included), in f32 */
static cute_val block_sum(cute_ctx *c, const cute_ssa da[16], const cute_ssa dx[16], int b)
{
    cute_ssa s = cute_ssa_binop(c, CUTE_OP_MUL, da[8 * b], dx[8 * b]);
    for (int j = 1; j < 8; j++) s = cute_ssa_fma(c, da[8 * b + j], dx[8 * b + j], s);
    return cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_cvt(c, s, CUTE_F32));
}

/* words: the lane's `unroll` vectors of A (each of its rows) and of x at `at`; x decoded
 * once for the rows; each scale block's sum times its two scales added to the row's acc
 * (in units of 2^-14: the decode's factor, applied at the end) */
static void words_fma(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                      cute_tuple at, bool pred, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    bs_warp *w = user;
    lane_fragments f = load_fragments(c, p, th->thr, t, at, pred);
    cute_tensor crd = f.crd;
    /* x decoded to its values (2^14 times the decode), A to 2^-14 times its */
    cute_val two14 = cute_val_const(c, CUTE_F16, 16384.0);
    cute_int last = cute_sub(a, cute_mul(a, t->kend, cute_i(8)), cute_i(32)); /* last vector */
    for (int u = 0; u < p->unroll; u++) {
        cute_tuple vu = CUTE_CRD(CUTE_ALL, 0, u);
        cute_ssa dx[16], da[16];
        decoded(c, p, cute_tensor_slice(c, f.rX, vu), &two14, dx);
        for (int r = 0; r < p->rows; r++) {
            decoded(c, p, cute_tensor_slice(c, gemv_lane_row(c, p, f.rA, r), vu), NULL, da);
            cute_tensor cu = cute_tensor_slice(c, gemv_lane_row(c, p, crd, r), vu);
            cute_int m = cu.coord.leaf[0], kw = cu.coord.leaf[1];
            cute_int k = cute_mul(a, kw, cute_i(8));
            if (pred) k = cute_min(a, k, last); /* a tail vector past K reads the last one's */
            cute_ssa sa = scale_pair(c, w->sfa, CUTE_CRD(m, k, t->l));
            cute_ssa sb = scale_pair(c, w->sfb, CUTE_CRD(0, k, t->l));
            for (int b = 0; b < 2; b++) /* two blocks of 16 in a vector of 32 */
                cute_val_assign(c, w->acc[r],
                                cute_val_fma(c, block_sum(c, da, dx, b),
                                             cute_val_binop(c, CUTE_OP_MUL, cute_ssa_get(c, sa, b),
                                                            cute_ssa_get(c, sb, b)),
                                             w->acc[r]));
        }
    }
}

/* each row's sum over the warp (words: times 2^14, the decode's factor), lane 0 writing */
static void finish_rows(cute_ctx *c, const gemv_plan *p, cute_int row0, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    bs_warp *w = user;
    for (int r = 0; r < p->rows; r++) {
        cute_val sum = w->acc[r];
        if (p->words && !p->fp4_cvt)
            sum = cute_val_binop(c, CUTE_OP_MUL, sum, cute_val_const(c, CUTE_F32, 16384.0));
        gemv_finish_warp(c, p, &sum, cute_add(a, row0, cute_i(r)), w->mY, w->mY, w->tiles, w->alpha,
                         w->beta);
    }
}

static void blockscaled_kernel(cute_ctx *c, cute_tensor mA, cute_tensor sfa, cute_tensor mX,
                               cute_tensor sfb, cute_tensor mY, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    if (p->words) cute_kernel_min_blocks(c, BS_WORDS_BLOCKS);
    cute_int K = mA.layout.shape.leaf[1]; /* (words: in words) */
    gemv_tiles t = gemv_block_tiles(c, p, mA, mX, cute_max(a, K, cute_i(1)));
    gemv_thread th = gemv_thread_start(c, p, &t, false); /* f32 sums: below */
    bs_warp w = {.sfa = sfa, .sfb = sfb, .mY = mY, .alpha = alpha, .beta = beta, .tiles = &t};
    for (int r = 0; r < p->rows; r++) w.acc[r] = cute_val_var(c, cute_val_const(c, CUTE_F32, 0.0));
    gemv_warp_rows(c, p, &th, &t, mA.layout.shape.leaf[0], p->ktile,
                   p->words ? words_fma : vector_fma, finish_rows, &w);
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
    cute_launch_cfg cfg = {
        .grid = {cute_ceil_div(a, M, cute_i(p->threads / 32 * p->rows)), cute_i(1), L},
        .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, blockscaled_kernel, cfg, mA, sfa, xb, sfb, mY, arg[5].f, arg[6].f);
}
