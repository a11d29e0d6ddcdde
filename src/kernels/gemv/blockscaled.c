/* Block-scaled GEMV, seed 001's NVFP4 GEMV (and MXFP8):
 *   y(M,L) = alpha * sum_k A(m,k,l) SFA(m,k,l) x(k,l) SFB(k,l) + beta * y
 * A is K-major e2m1 (two to a byte) or e4m3, x likewise; one scale per sf_vec elements
 * along K (ue4m3 per 16, ue8m0 per 32), laid out as CuTe and cuBLAS lay them out (below).
 * The body is the K-major GEMV's walk (gemv_warp_rows).  NVFP4: A and x move as u32 words
 * of 8 e2m1, a warp takes four rows and decodes x once for them; on sm_100a each word
 * becomes four paired f16 values (PTX's cvt.rn.f16x2.e2m1x2) whose products add in paired
 * f16 instructions, before it signed bytes (prmt table lookups) whose products add in dp4a;
 * each block's sum times its two scales found at the lane's coordinates (words_fma).  MXFP8: a warp per row, a lane a 16-byte vector of A
 * and of x per k-tile converted to f32, multiplied, summed per scale block (vector_fma). */
#include <string.h>

#include "cutec/ir.h"
#include "cutec/notation.h"
#include "cutec/sync.h"
#include "kernels/gemv/gemv_internal.h"

cute_dtype cute_gemv_sf_dtype(const cute_gemv_config *cfg)
{
    return cfg->dtype == CUTE_E2M1 ? CUTE_UE4M3 : CUTE_UE8M0;
}

int cute_gemv_sf_align(const cute_gemv_config *cfg)
{
    if (cfg->dtype != CUTE_E2M1) return 1;
    /* the ring copies a scale group of four at once, and so do the scale words */
    return cfg->smem_stages || cfg->scale_words ? 4 : 2;
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
 * (4 blocks of 128 threads), and a warp's bytes of A in flight need the warps.  Six (80
 * registers): on an H200 (session 31) 76.5 / 72.4% of the copy at (4096,7168,8) and
 * (7168,2048,4) where five (96 registers) ran 72.3 / 68.2% in the same run.  A k-tile at a
 * time seven (72 registers, 76 bytes spilled outside its loop against six's 20): 1,792 blocks
 * at (7168,2048,4) are 1.94 rounds of 7 an SM where they were 2.26 of 6 (the last 26% full);
 * H200, fp4_43's mid pass, % of the copy in turns in one process: 79.5 / 77.7 -> 81.2 / 79.6
 * (cfg.min_blocks, CUTEC_GEMV_TRIAL=blocks6: 6); eight (64 registers, 192 bytes spilled) ran
 * 3.85 points below seven in the second pass.  Not sm_100a's cvt body (not measured; at 7 it
 * spills 324 bytes against 176 at 6).  The ring as many as the
 * shared memory of an H100 or H200 holds (228 KB an SM, 1 KB of it a block's), up to 5.  Two or three
 * k-tiles ahead (cfg.ahead) hold a k-tile's registers more each: four (128 registers), for the
 * shapes whose blocks are fewer than that an SM ((7168,16384,1): 3.4); so does cfg.wide (two
 * vectors a row, one ahead: 128 registers) */
#define WORDS_BLOCKS 6
#define WORDS_BLOCKS_TILE 7
#define WORDS_BLOCKS_AHEAD 4
static int words_blocks(const gemv_plan *p)
{
    if (p->cfg.smem_stages) return gemv_ring_blocks(p);
    if (p->cfg.min_blocks) return p->cfg.min_blocks; /* (asked) */
    if (p->cfg.tile_at_a_time && !p->fp4_cvt) return WORDS_BLOCKS_TILE; /* (sm_100a's cvt body: 6) */
    return gemv_ahead(&p->cfg) > 1 || p->cfg.wide ? WORDS_BLOCKS_AHEAD : WORDS_BLOCKS;
}

/* the one element of t at coordinate crd, as a tensor of one element */
static cute_ssa scale_at(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    cute_tensor at = cute_tensor_domain_offset(c, t, crd);
    at.layout = cute_layout_parse(cute_ctx_alg(c), "(1):(0)");
    return cute_ssa_cvt(c, cute_tensor_load(c, at), CUTE_F32);
}

/* the scales of the two blocks of a vector of 32 from element crd on (its k a multiple of
 * 32: the two are scales 2j and 2j+1 of a row's group of four, adjacent bytes at an even
 * offset), raw, as one u16 register by one 16-bit load (a warp's loads of a row's pairs
 * touch 16 scale tiles, 512 bytes apart: one load a pair instead of two halves the lines) */
static cute_tensor scale_pair_load(cute_ctx *c, const cute_copy_atom *pair, cute_tensor t, cute_tuple crd)
{
    cute_tensor at = cute_tensor_domain_offset(c, t, crd);
    at.layout = cute_layout_parse(cute_ctx_alg(c), "(2):(1)");
    at = cute_tensor_recast(c, at, CUTE_U16);
    cute_tensor r = cute_make_fragment_like(c, at);
    cute_copy(c, pair, at, r);
    return r;
}

/* scale i (0 or 1) of a pair v (u16; sf: the scales' dtype), in f32.  cfg.fma_decode
 * (ue4m3): its 7 bits (4 of exponent, 3 of mantissa, bias 7) shifted to the top of an f32's
 * exponent and mantissa, read as an f32 (bias 127, a subnormal one where the exponent is 0:
 * no flush to zero here) and times 2^120: exact, one shift and one AND on the integer ALU,
 * the multiply on the FMA pipe; by cvt: a shift, two ANDs, the byte's cvt.rn.f16x2.e4m3x2
 * (F2FP) and a widening (HADD2.F32) */
static cute_val scale_of_pair(cute_ctx *c, const gemv_plan *p, cute_val v, int i, cute_dtype sf)
{
    if (p->cfg.fma_decode) {
        cute_val w = cute_val_cvt(c, v, CUTE_U32);
        w = cute_val_binop(c, CUTE_OP_SHL, w, cute_val_int(c, CUTE_U32, i ? 12 : 20));
        w = cute_val_binop(c, CUTE_OP_AND, w, cute_val_int(c, CUTE_U32, 0x07F00000));
        cute_val f = cute_val_bitcast(c, w, cute_type_of(CUTE_F32));
        return cute_val_binop(c, CUTE_OP_MUL, f, cute_val_const(c, CUTE_F32, 0x1p120));
    }
    if (i) v = cute_val_binop(c, CUTE_OP_SHR, v, cute_val_int(c, CUTE_U16, 8));
    cute_val byte = cute_val_bitcast(c, cute_val_cvt(c, v, CUTE_U8), cute_type_of(sf));
    return cute_val_cvt(c, byte, CUTE_F32);
}

/* a warp's state: its rows' f32 sums, the scales, and what ends its rows */
typedef struct bs_warp {
    cute_val acc[GEMV_MAX_ROWS];
    cute_tensor sfa, sfb, mY;
    cute_copy_atom pair; /* a scale pair's 16-bit load */
    cute_copy_atom word; /* cfg.scale_words: a scale group's 32-bit load */
    cute_val pick;       /* ... the prmt selector of the lane's pairs (words_pairs) */
    cute_dtype sf;       /* the scales' */
    cute_val lo;         /* the byte decode's table, its low word (table_lo) */
    cute_val alpha, beta;
    const gemv_tiles *tiles;
    gemv_ring ring; /* cfg.smem_stages */
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

/* sm_100a: the 8 e2m1 of a word as four paired f16 values (out[i]: elements 2i and 2i+1,
 * their own values), by cvt.rn.f16x2.e2m1x2 */
static void word_to_pairs_cvt(cute_ctx *c, cute_val w, cute_ssa out[4])
{
    cute_tuple one = cute_tuple_int(cute_i(1));
    cute_ssa h = cute_ssa_words(c, cute_ssa_e2m1_words(c, cute_ssa_scalar(c, w, one)));
    for (int i = 0; i < 4; i++)
        out[i] = cute_ssa_from_words(c, cute_ssa_scalar(c, cute_ssa_get(c, h, i), one), CUTE_F16);
}

/* sm_100a: one vector (4 words: 32 elements, two scale blocks) decoded into 16 paired
 * values, a block's eight in pair[8b .. 8b+7] */
static void decoded_cvt(cute_ctx *c, cute_tensor words, cute_ssa pair[16])
{
    cute_ssa w = cute_tensor_load(c, words);
    for (int j = 0; j < w.n && j < 4; j++) word_to_pairs_cvt(c, cute_ssa_get(c, w, j), pair + 4 * j);
}

/* sm_100a: scale block b's 16 products (f16 pairs chained: each half of the pair adds 8
 * products, multiples of 1/4 below 36, so a half's sum is a multiple of 1/4 below 288: exact
 * in f16), in f32 */
static cute_val block_sum_f16(cute_ctx *c, const cute_ssa da[16], const cute_ssa dx[16], int b)
{
    cute_ssa s = cute_ssa_binop(c, CUTE_OP_MUL, da[8 * b], dx[8 * b]);
    for (int j = 1; j < 8; j++) s = cute_ssa_fma(c, da[8 * b + j], dx[8 * b + j], s);
    return cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_cvt(c, s, CUTE_F32));
}

/* Before sm_100 the products run on the integer units: each e2m1 becomes a signed byte of
 * twice its value (-12 .. 12, exact), four products add in one dp4a, and a scale block's 16
 * in four, exactly in 32 bits.  A nibble's magnitude (its 3 low bits) is an index into a
 * table of 8 bytes, which prmt looks up four at a time (the selector's low 16 bits); with
 * the nibble's sign bit set prmt gives the table byte's sign instead, 0, which splits a word
 * into its positive elements' magnitudes (`pos`, looked up by the word) and its negative
 * ones' (`neg`, by the word with its sign bits flipped): a = pos - neg. */
#define E2M1_X2_LO 0x03020100u /* 0, 0.5, 1, 1.5 times 2 */
#define E2M1_X2_HI 0x0C080604u /* 2, 3, 4, 6 times 2 */

#define U32(v) cute_val_int(c, CUTE_U32, (v))

/* E2M1_X2_LO in a register ptxas cannot rematerialize.  prmt takes one of its table words
 * as an immediate, the other from a register; a constant there ptxas moves in again before
 * each prmt (from a uniform register) and overwrites with the prmt's result: 80 moves of a
 * k-tile's 489 instructions.  Picked by a prmt of its own whose selector carries tid.x in
 * its upper half (which prmt ignores: the constant, exactly), it is a per-thread value
 * that stays in one register. */
static cute_val table_lo(cute_ctx *c)
{
    cute_val tid = cute_int_value(c, cute_thread_idx(c, 0), CUTE_U32);
    cute_val sel = cute_val_binop(c, CUTE_OP_OR, U32(0x3210),
                                  cute_val_binop(c, CUTE_OP_SHL, tid, U32(16)));
    return cute_val_prmt(c, U32(E2M1_X2_LO), U32(0), sel);
}

/* the 8 e2m1 of word w as two halves of four bytes (h = 0: elements 0-3), pos and neg */
typedef struct e2m1_bytes {
    cute_val pos[2], neg[2];
} e2m1_bytes;

/* lo: the table's low word, E2M1_X2_LO (table_lo) */
static e2m1_bytes word_bytes(cute_ctx *c, cute_val w, cute_val lo)
{
    cute_val hi = U32(E2M1_X2_HI);
    cute_val wn = cute_val_binop(c, CUTE_OP_XOR, w, U32(0x88888888u)), sel[2][2] = {{w, wn}};
    sel[1][0] = cute_val_binop(c, CUTE_OP_SHR, w, U32(16));
    sel[1][1] = cute_val_binop(c, CUTE_OP_SHR, wn, U32(16));
    e2m1_bytes e;
    for (int h = 0; h < 2; h++)
        e.pos[h] = cute_val_prmt(c, lo, hi, sel[h][0]), e.neg[h] = cute_val_prmt(c, lo, hi, sel[h][1]);
    return e;
}

/* the signed bytes pos - neg of each byte (one of the two is 0, both below 0x80: biased by
 * 0x80 no byte borrows from the next) */
static cute_val byte_diff(cute_ctx *c, cute_val pos, cute_val neg)
{
    cute_val biased = cute_val_binop(c, CUTE_OP_OR, pos, U32(0x80808080u));
    return cute_val_binop(c, CUTE_OP_XOR, cute_val_binop(c, CUTE_OP_SUB, biased, neg), U32(0x80808080u));
}

/* x's vector as signed bytes, x[j][h] (word j, half h) */
typedef struct x_bytes {
    cute_val x[4][2];
} x_bytes;

static x_bytes vector_x_bytes(cute_ctx *c, cute_tensor words, cute_val lo)
{
    cute_ssa w = cute_tensor_load(c, words);
    x_bytes x;
    for (int j = 0; j < 4; j++) {
        e2m1_bytes e = word_bytes(c, cute_ssa_get(c, w, j), lo);
        for (int h = 0; h < 2; h++) x.x[j][h] = byte_diff(c, e.pos[h], e.neg[h]);
    }
    return x;
}

/* scale block b's 16 products of A's vector `words` and x (4 times their value), in f32: a's
 * pos bytes meet x in one sum, its neg bytes in another, their difference the block's (two
 * chains of dp4a, and no -x to make) */
static cute_val block_sum_i8(cute_ctx *c, cute_ssa a, const x_bytes *x, int b, cute_val lo)
{
    cute_val s = cute_val_int(c, CUTE_I32, 0), t = s;
    for (int j = 2 * b; j < 2 * b + 2; j++) {
        e2m1_bytes e = word_bytes(c, cute_ssa_get(c, a, j), lo);
        for (int h = 0; h < 2; h++)
            s = cute_val_dp4a(c, e.pos[h], x->x[j][h], s), t = cute_val_dp4a(c, e.neg[h], x->x[j][h], t);
    }
    return cute_val_cvt(c, cute_val_binop(c, CUTE_OP_SUB, s, t), CUTE_F32);
}
#undef U32

/* what a lane decodes of x's vector once for its rows: f16 pairs (sm_100a) or bytes */
typedef struct x_vector {
    cute_ssa pairs[16];
    x_bytes bytes;
} x_vector;

/* the two scale blocks' sums of row r's vector `words` times x's */
static void vector_sums(cute_ctx *c, const gemv_plan *p, cute_tensor words, const x_vector *x, cute_val lo,
                        cute_val sum[2])
{
    if (p->fp4_cvt) {
        cute_ssa da[16];
        decoded_cvt(c, words, da);
        for (int b = 0; b < 2; b++) sum[b] = block_sum_f16(c, da, x->pairs, b);
        return;
    }
    cute_ssa a = cute_tensor_load(c, words);
    for (int b = 0; b < 2; b++) sum[b] = block_sum_i8(c, a, &x->bytes, b, lo);
}

#define WORDS_UNROLL 2 /* plan_make's unroll for words: a lane's vectors of a row a k-tile */

/* a lane's registers of one k-tile (words): its vectors of A (its rows) and of x, and
 * their scale pairs, raw (u16) */
typedef struct words_tile {
    cute_tensor rA, rX, sa[GEMV_MAX_ROWS][WORDS_UNROLL], sb[WORDS_UNROLL];
    bool words;                         /* cfg.scale_words (k-tiles ahead): A's scales in sw, not sa */
    cute_tensor sw[GEMV_MAX_ROWS / 2][WORDS_UNROLL]; /* ... rows 2h and 2h+1's: row 2h + (lane & 1)'s group */
} words_tile;

/* the lane's scale pairs of its rows (and x's) over the warp's whole k-tiles, (2, tiles):
 * (1, step) from k-tile 0's: a k-tile is a whole number of the scale layout's 64-element
 * groups, so its pairs lie the same bytes further each k-tile (step: the layout's offset of
 * one k-tile), an address the loop advances instead of dividing k again each k-tile */
typedef struct scale_tiles {
    cute_tensor sa[GEMV_MAX_ROWS], sb[WORDS_UNROLL]; /* (vector u's: cfg.wide) */
    cute_tensor sw[GEMV_MAX_ROWS / 2][WORDS_UNROLL]; /* cfg.scale_words: (4, tiles), row 2h + (lane & 1)'s group */
} scale_tiles;

static scale_tiles scale_tiles_of(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                                  const bs_warp *w, cute_int full)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t tk = p->ktile * 8; /* elements */
    cute_tensor crd = cute_partition_S(c, th->thr, cute_tensor_slice(c, t->cA, CUTE_CRD(CUTE_ALL, CUTE_ALL, 0)));
    scale_tiles s;
    for (int u = 0; u < p->unroll; u++) /* (two vectors a row: cfg.wide) */
        for (int row = 0; row < p->rows; row++) {
            cute_tensor cu = cute_tensor_slice(c, gemv_lane_row(c, p, crd, row), CUTE_CRD(CUTE_ALL, 0, u));
            cute_int m = cu.coord.leaf[0], k = cute_mul(a, cu.coord.leaf[1], cute_i(8));
            if (row == 0) s.sb[u] = gemv_scales_by_tile(c, w->sfb, CUTE_CRD(0, k, t->l), 2, tk, full);
            if (!p->cfg.scale_words) {
                s.sa[row] = gemv_scales_by_tile(c, w->sfa, CUTE_CRD(m, k, t->l), 2, tk, full);
                continue;
            }
            if (row % 2) continue;
            /* the lane's vector is half of a 64-element group (lanes 2i and 2i+1 share one): it
             * loads the group of row + (lane & 1), its neighbour that of the other row */
            cute_int odd = cute_mod(a, cute_lane_idx(c), cute_i(2)),
                     group = cute_mul(a, cute_div(a, k, cute_i(64)), cute_i(64));
            s.sw[row / 2][u] = gemv_scales_by_tile(c, w->sfa, CUTE_CRD(cute_add(a, m, odd), group, t->l), 4, tk, full);
        }
    return s;
}

/* a scale pair (u16) or group (u32, `as`) of `tiles` at k-tile kt into a register */
static cute_tensor pair_at(cute_ctx *c, const cute_copy_atom *atom, cute_tensor tiles, cute_int kt, cute_dtype as)
{
    cute_tensor at = cute_tensor_recast(c, cute_tensor_slice(c, tiles, CUTE_CRD(CUTE_ALL, kt)), as);
    cute_tensor r = cute_make_fragment_like(c, at);
    cute_copy(c, atom, at, r);
    return r;
}

/* the k-tile at `at` into registers (pred: the vectors inside the bounds; a tail vector
 * past K reads the last one's scales); st: the scales by k-tile (whole k-tiles, one vector
 * a row), or NULL; once (cfg.diag's scales once): the scales of these registers
 * instead of this k-tile's, or NULL */
static words_tile words_load(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                             const bs_warp *w, cute_tuple at, bool pred, const scale_tiles *st,
                             const words_tile *once)
{
    cute_alg *a = cute_ctx_alg(c);
    lane_fragments f = load_fragments(c, p, th->thr, t, at, pred);
    words_tile r = {.rA = f.rA, .rX = f.rX};
    if (once) {
        memcpy(r.sa, once->sa, sizeof r.sa), memcpy(r.sb, once->sb, sizeof r.sb), memcpy(r.sw, once->sw, sizeof r.sw);
        r.words = once->words;
        return r;
    }
    if (st) {
        cute_int kt = at.leaf[at.nleaves - 1];
        r.words = p->cfg.scale_words;
        for (int u = 0; u < p->unroll; u++) { /* (the pairs one vector a row: cfg.wide takes the words) */
            for (int row = 0; row < p->rows; row++)
                if (!r.words)
                    r.sa[row][u] = pair_at(c, &w->pair, st->sa[row], kt, CUTE_U16);
                else if (row % 2 == 0)
                    r.sw[row / 2][u] = pair_at(c, &w->word, st->sw[row / 2][u], kt, CUTE_U32);
            r.sb[u] = pair_at(c, &w->pair, st->sb[u], kt, CUTE_U16);
        }
        return r;
    }
    cute_int last = cute_sub(a, cute_mul(a, t->kend, cute_i(8)), cute_i(32)); /* last vector */
    for (int u = 0; u < p->unroll; u++)
        for (int row = 0; row < p->rows; row++) {
            cute_tensor cu = cute_tensor_slice(c, gemv_lane_row(c, p, f.crd, row), CUTE_CRD(CUTE_ALL, 0, u));
            cute_int m = cu.coord.leaf[0], k = cute_mul(a, cu.coord.leaf[1], cute_i(8));
            if (pred) k = cute_min(a, k, last);
            r.sa[row][u] = scale_pair_load(c, &w->pair, w->sfa, CUTE_CRD(m, k, t->l));
            if (row == 0) r.sb[u] = scale_pair_load(c, &w->pair, w->sfb, CUTE_CRD(0, k, t->l));
        }
    return r;
}

/* dst's registers = src's (the next k-tile's become this one's) */
static void words_assign(cute_ctx *c, const gemv_plan *p, words_tile *dst, const words_tile *src)
{
    cute_tensor_store(c, dst->rA, cute_tensor_load(c, src->rA));
    cute_tensor_store(c, dst->rX, cute_tensor_load(c, src->rX));
    for (int u = 0; u < p->unroll; u++) {
        for (int r = 0; r < p->rows; r++)
            if (!src->words)
                cute_tensor_store(c, dst->sa[r][u], cute_tensor_load(c, src->sa[r][u]));
            else if (r % 2 == 0)
                cute_tensor_store(c, dst->sw[r / 2][u], cute_tensor_load(c, src->sw[r / 2][u]));
        cute_tensor_store(c, dst->sb[u], cute_tensor_load(c, src->sb[u]));
    }
}

/* cfg.scale_words: the lane's pairs of rows 2h and 2h+1 (*lo, *hi: u16) from its word (row 2h
 * + odd's group, odd = lane & 1) and its neighbour's (the other row's): the pair is bytes
 * 2 odd, 2 odd + 1 of each group, so prmt picks own 0,1 and other 0,1 (odd 0: 0x5410) or other
 * 2,3 and own 2,3 (odd 1: 0x3276), row 2h's pair in the low half (w->pick) */
static void words_pairs(cute_ctx *c, const bs_warp *w, cute_tensor word, cute_val *lo, cute_val *hi)
{
    cute_val own = cute_ssa_get(c, cute_tensor_load(c, word), 0);
    cute_val other = cute_val_shfl(c, own, cute_val_int(c, CUTE_I32, 1), CUTE_SHFL_XOR);
    cute_val both = cute_val_prmt(c, own, other, w->pick);
    *lo = cute_val_cvt(c, both, CUTE_U16);
    *hi = cute_val_cvt(c, cute_val_binop(c, CUTE_OP_SHR, both, cute_val_int(c, CUTE_U32, 16)), CUTE_U16);
}

/* the k-tile's products: x decoded once for the rows; each scale block's sum times its two
 * scales added to the row's acc (before sm_100 in units of 1/4: the bytes' factor, applied
 * at the end) */
static void words_products(cute_ctx *c, const gemv_plan *p, const words_tile *f, const bs_warp *w)
{
    for (int u = 0; u < p->unroll; u++) {
        cute_tuple vu = CUTE_CRD(CUTE_ALL, 0, u);
        x_vector x;
        if (p->fp4_cvt)
            decoded_cvt(c, cute_tensor_slice(c, f->rX, vu), x.pairs);
        else
            x.bytes = vector_x_bytes(c, cute_tensor_slice(c, f->rX, vu), w->lo);
        cute_val pb = cute_ssa_get(c, cute_tensor_load(c, f->sb[u]), 0);
        cute_val sb[2] = {scale_of_pair(c, p, pb, 0, w->sf), scale_of_pair(c, p, pb, 1, w->sf)};
        cute_val pairs[GEMV_MAX_ROWS]; /* cfg.scale_words: each row's, from the words */
        for (int r = 0; f->words && r < p->rows; r += 2) words_pairs(c, w, f->sw[r / 2][u], &pairs[r], &pairs[r + 1]);
        for (int r = 0; r < p->rows; r++) {
            cute_val sum[2];
            vector_sums(c, p, cute_tensor_slice(c, gemv_lane_row(c, p, f->rA, r), vu), &x, w->lo, sum);
            cute_val pa = f->words ? pairs[r] : cute_ssa_get(c, cute_tensor_load(c, f->sa[r][u]), 0);
            for (int b = 0; b < 2; b++) { /* two blocks of 16 in a vector of 32 */
                cute_val sa = scale_of_pair(c, p, pa, b, w->sf);
                cute_val_assign(c, w->acc[r],
                                cute_val_fma(c, sum[b], cute_val_binop(c, CUTE_OP_MUL, sa, sb[b]), w->acc[r]));
            }
        }
    }
}

/* words: the lane's k-tile at `at` loaded, then its products (the predicated tiles; and
 * every tile with cfg.tile_at_a_time) */
static void words_fma(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                      cute_tuple at, bool pred, void *user)
{
    bs_warp *w = user;
    gemv_prefetch_warp_rows(c, p, t, at, pred);
    words_tile f = words_load(c, p, th, t, w, at, pred, NULL, NULL);
    words_products(c, p, &f, w);
}

/* words, a warp whose rows are all in A: its `full` whole k-tiles with the next
 * cfg.ahead ones' registers loaded before this one's products.  ptxas, left to itself,
 * spreads a k-tile's loads through its decode (a load or two in flight a warp), and sinks the
 * next k-tile's loads below this one's products; a warp sync after them keeps them above, the
 * loads being weak ones (ld.global, not .nc: compile.c drops __restrict__ for this kernel),
 * which may not cross it.  The k-tiles past the last load the last again (no branch: a branch
 * around the loads let the compiler move them past the products too).  More than one ahead,
 * the loop is unrolled by the registers' rotation (ahead + 1), so that the rotation is
 * renaming, not moves. */
static void words_pipelined(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                            cute_int full, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    bs_warp *w = user;
    int d = gemv_ahead(&p->cfg);
    CUTE_IF(c, cute_int_lt(c, cute_i(0), full))
    {
        if (p->unroll != (p->cfg.wide ? 2 : 1))
            cute_ctx_fail(c, "gemv: the pipelined NVFP4 k-tiles take one vector a row, two if wide (plan)");
        scale_tiles st = scale_tiles_of(c, p, th, t, w, full);
        words_tile buf[CUTE_GEMV_MAX_AHEAD + 1]; /* buf[0] this k-tile's, buf[i] i ahead */
        for (int i = 0; i < d; i++) {
            cute_int kt = i ? cute_min(a, cute_i(i), cute_sub(a, full, cute_i(1))) : cute_i(0);
            buf[i] = words_load(c, p, th, t, w, CUTE_CRD(CUTE_ALL, CUTE_ALL, kt), false, &st,
                                p->cfg.diag == CUTE_GEMV_DIAG_SCALES_ONCE && i ? &buf[0] : NULL);
        }
        CUTE_FOR_STEP(c, kt, cute_i(0), full, 1, d > 1 ? d + 1 : 0)
        {
            /* (the last k-tile, full - 1, as max(full - 1, 0): proven nonnegative, the
             * scales' index divisions become shifts) */
            cute_int last = cute_max(a, cute_sub(a, full, cute_i(1)), cute_i(0));
            cute_int after = cute_min(a, cute_add(a, kt, cute_i(d)), last);
            buf[d] = words_load(c, p, th, t, w, CUTE_CRD(CUTE_ALL, CUTE_ALL, after), false, &st,
                                p->cfg.diag == CUTE_GEMV_DIAG_SCALES_ONCE ? &buf[0] : NULL);
            cute_syncwarp(c); /* keeps the loads above the products (weak loads: compile.c) */
            words_products(c, p, &buf[0], w);
            for (int i = 0; i < d; i++) words_assign(c, p, &buf[i], &buf[i + 1]);
        }
    }
}

/* the ring's stage in registers (ring.c): its products */
static void ring_products(cute_ctx *c, const gemv_plan *p, const gemv_ring_tile *f, void *user)
{
    words_tile wt = {.rA = f->rA, .rX = f->rX, .sb[0] = f->pair[p->rows]};
    for (int r = 0; r < p->rows; r++) wt.sa[r][0] = f->pair[r];
    words_products(c, p, &wt, user);
}

/* words, a warp whose rows are all in A: its `full` whole k-tiles through the ring */
static void words_ring(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t, cute_int full,
                       void *user)
{
    bs_warp *w = user;
    if (p->unroll != 1) cute_ctx_fail(c, "gemv: the NVFP4 ring's k-tiles take one vector a row (plan)");
    gemv_ring_walk(c, p, th, t, &w->ring, full, ring_products, w);
}

/* each row's sum over the warp (words before sm_100: over 4, the bytes' factor), lane 0 writing */
static void finish_rows(cute_ctx *c, const gemv_plan *p, cute_int row0, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    bs_warp *w = user;
    for (int r = 0; r < p->rows; r++) {
        cute_val sum = w->acc[r];
        if (p->words && !p->fp4_cvt) /* the bytes held twice each value */
            sum = cute_val_binop(c, CUTE_OP_MUL, sum, cute_val_const(c, CUTE_F32, 0.25));
        gemv_finish_warp(c, p, &sum, cute_add(a, row0, cute_i(r)), w->mY, w->mY, w->tiles, w->alpha, w->beta);
    }
}

static void blockscaled_kernel(cute_ctx *c, cute_tensor mA, cute_tensor sfa, cute_tensor mX,
                               cute_tensor sfb, cute_tensor mY, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    if (p->words) cute_kernel_min_blocks(c, words_blocks(p));
    gemv_let_dependents_in(c, p); /* (NVFP4 on sm_90: the previous grid's end first; else nothing) */
    cute_int K = mA.layout.shape.leaf[1]; /* (words: in words) */
    gemv_tiles t = gemv_block_tiles(c, p, mA, mX, cute_max(a, K, cute_i(1)));
    gemv_thread th = gemv_thread_start(c, p, &t, false); /* f32 sums: below */
    bs_warp w = {.sfa = sfa, .sfb = sfb, .mY = mY, .alpha = alpha, .beta = beta, .tiles = &t,
                 .pair = cute_copy_atom_universal(a, CUTE_U16, 16), .sf = (cute_dtype)sfa.dtype};
    for (int r = 0; r < p->rows; r++) w.acc[r] = cute_val_var(c, cute_val_const(c, CUTE_F32, 0.0));
    if (p->words && !p->fp4_cvt) w.lo = table_lo(c);
    if (p->cfg.scale_words) { /* words_pairs: 0x5410, or 0x3276 (0x5410 ^ 0x6666) on odd lanes */
        if (!p->words || p->rows % 2) cute_ctx_fail(c, "gemv: the scale words take NVFP4's words, rows in pairs (plan)");
        w.word = cute_copy_atom_universal(a, CUTE_U32, 32);
        cute_val odd = cute_int_value(c, cute_mod(a, cute_lane_idx(c), cute_i(2)), CUTE_U32);
        w.pick = cute_val_binop(c, CUTE_OP_XOR, cute_val_int(c, CUTE_U32, 0x5410),
                                cute_val_binop(c, CUTE_OP_MUL, odd, cute_val_int(c, CUTE_U32, 0x6666)));
    }
    gemv_walk walk = {.tile = p->words ? words_fma : vector_fma, .end = finish_rows, .user = &w};
    if (p->words && !p->cfg.tile_at_a_time && !p->cfg.l2_prefetch) walk.whole = words_pipelined;
    if (p->cfg.smem_stages) {
        w.ring = gemv_ring_make(c, p, &sfa, &sfb, mA.layout.shape.leaf[0], K, mA.layout.shape.leaf[2]);
        walk.whole = words_ring;
    }
    gemv_warp_rows_by(c, p, &th, &t, mA.layout.shape.leaf[0], p->ktile, &walk);
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
        .block = {cute_i(p->threads)},
        .pdl = p->pdl_self};
    CUTE_LAUNCH(c, blockscaled_kernel, cfg, mA, sfa, xb, sfb, mY, arg[5].f, arg[6].f);
}
