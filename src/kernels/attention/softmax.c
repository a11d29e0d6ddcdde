/* The online softmax of FlashAttention 2, in registers: the accumulators of S and O seen as
 * (rows, cols) of the thread, row maxima and sums through the quad of threads that share a
 * row (m16n8k16's C fragment gives a row's 8 columns of an n8 atom to 4 neighbouring
 * lanes), exp2 with the scale folded in log2(e) units, and the causal / sequence-end mask. */
#include <math.h>

#include "cutec/notation.h"
#include "cutec/reduce.h"
#include "kernels/attention/attention_internal.h"

/* the extents of an accumulator's modes: its values (4 vn: vn n8 atoms' C fragments, 1 for
 * mma.sync, N / 8 for a wgmma 64xN), MMA_M and MMA_N */
static void acc_extents(cute_alg *a, const cute_layout *acc, int64_t *vn, int64_t *mm, int64_t *nn)
{
    cute_layout v = cute_get(a, acc, 0), m = cute_get(a, acc, 1), n = cute_get(a, acc, 2);
    *vn = cute_size(a, &v).v / 4, *mm = cute_size(a, &m).v, *nn = cute_size(a, &n).v;
}

/* ((2,MMA_M),(2,vn,MMA_N)) -> the fragment's colexicographic index v0 + 2 v1 + 4 v2 +
 * 4 vn m + 4 vn MMA_M n (v2: the n8 atom within the value mode) */
cute_tensor attn_rowcol(cute_ctx *c, cute_tensor acc)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t vn, mm, nn;
    acc_extents(a, &acc.layout, &vn, &mm, &nn);
    cute_layout rc = cute_layout_fmt(a, "((2,%lld),(2,%lld,%lld)):((2,%lld),(1,4,%lld))", (long long)mm,
                                     (long long)vn, (long long)nn, (long long)(4 * vn), (long long)(4 * vn * mm));
    cute_tiler t = cute_tiler_layout(&rc);
    return cute_tensor_compose(c, acc, &t);
}

/* ((2,2,2),MMA_M,K blocks) -> the C fragment's index: A value (v0,v1,v2) of k block j is C
 * value (v0,v1) of n8 atom 2j + v2.  mma.sync (vn = 1): the atoms are MMA_N's; wgmma (one
 * atom along N: MMA_N = 1): the value mode's */
cute_layout attn_c_as_a(cute_alg *a, const cute_layout *acc)
{
    int64_t vn, mm, nn;
    acc_extents(a, acc, &vn, &mm, &nn);
    if (vn == 1)
        return cute_layout_fmt(a, "((2,2,2),%lld,%lld):((1,2,%lld),4,%lld)", (long long)mm,
                               (long long)(nn / 2), (long long)(4 * mm), (long long)(8 * mm));
    if (nn != 1 || vn % 2) cute_alg_fail(a, "attention: P's accumulators (%lld n8 atoms a value mode, MMA_N "
                                         "%lld) are not a wgmma's", (long long)vn, (long long)nn);
    return cute_layout_fmt(a, "((2,2,2),%lld,%lld):((1,2,4),%lld,8)", (long long)mm, (long long)(vn / 2),
                           (long long)(4 * vn));
}

attn_rows attn_rows_start(cute_ctx *c, int n)
{
    attn_rows r = {.n = n};
    for (int i = 0; i < n; i++) {
        r.m[i] = cute_val_var(c, cute_val_const(c, CUTE_F32, -INFINITY));
        r.l[i] = cute_val_var(c, cute_val_const(c, CUTE_F32, 0));
    }
    return r;
}

/* m scale_log2, or 0 for a row that has seen no key yet (m = -inf: exp2(-inf - 0) = 0
 * where -inf - -inf would be NaN) */
static cute_val scaled_max(cute_ctx *c, cute_val m, cute_val scale_log2)
{
    cute_val none = cute_val_cmp(c, CUTE_OP_EQ, m, cute_val_const(c, CUTE_F32, -INFINITY));
    return cute_val_select(c, none, cute_val_const(c, CUTE_F32, 0),
                           cute_val_binop(c, CUTE_OP_MUL, m, scale_log2));
}

static cute_ssa times(cute_ctx *c, cute_ssa x, cute_val k)
{
    return cute_ssa_binop(c, CUTE_OP_MUL, x, cute_ssa_scalar(c, k, x.shape));
}

void attn_softmax_scores_as(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_val scale_log2, cute_val *corr,
                            attn_p_form form)
{
    cute_tensor S = attn_rowcol(c, acc_s);
    cute_reducer max = cute_reducer_op(CUTE_OP_MAX);
    for (int i = 0; i < r->n; i++) { /* the thread's rows, unrolled */
        cute_tensor srow = CUTE_SLICE(c, S, i, CUTE_ALL);
        cute_ssa s = cute_tensor_load(c, srow);
        cute_val m = cute_ssa_reduce(c, CUTE_OP_MAX, s);
        cute_warp_allreduce(c, &max, &m, 4);
        m = cute_val_binop(c, CUTE_OP_MAX, m, r->m[i]);
        cute_val ms = scaled_max(c, m, scale_log2);
        cute_val neg_ms = cute_val_unop(c, CUTE_OP_NEG, ms);
        /* exp2(m_old scale_log2 - m_new scale_log2): 0 on the first tile (m_old = -inf) */
        corr[i] = cute_val_fast(c, CUTE_OP_EXP2, cute_val_fma(c, r->m[i], scale_log2, neg_ms));
        cute_ssa x = cute_ssa_fma(c, s, cute_ssa_scalar(c, scale_log2, s.shape), cute_ssa_scalar(c, neg_ms, s.shape));
        cute_ssa p = form.no_exp ? x : cute_ssa_fast(c, CUTE_OP_EXP2, x);
        cute_tensor_store(c, srow, p);
        if (!form.no_sum)
            cute_val_assign(c, r->l[i], cute_val_fma(c, r->l[i], corr[i], cute_ssa_reduce(c, CUTE_OP_ADD, p)));
        cute_val_assign(c, r->m[i], m);
    }
}

void attn_softmax_scores(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_val scale_log2, cute_val *corr)
{
    attn_softmax_scores_as(c, r, acc_s, scale_log2, corr, (attn_p_form){0});
}

void attn_rescale(cute_ctx *c, const attn_rows *r, cute_tensor acc_o, const cute_val *corr)
{
    cute_tensor O = attn_rowcol(c, acc_o);
    for (int i = 0; i < r->n; i++) {
        cute_tensor orow = CUTE_SLICE(c, O, i, CUTE_ALL);
        cute_tensor_store(c, orow, times(c, cute_tensor_load(c, orow), corr[i]));
    }
}

void attn_softmax_tile(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_tensor acc_o,
                       cute_val scale_log2)
{
    cute_val corr[8];
    attn_softmax_scores(c, r, acc_s, scale_log2, corr);
    attn_rescale(c, r, acc_o, corr);
}

/* a thread's rows of S: each row's max over its quad (the tile's, not yet the running one) */
static void tile_maxima(cute_ctx *c, const attn_rows *r, cute_tensor S, cute_ssa *s, cute_val *mt)
{
    cute_reducer max = cute_reducer_op(CUTE_OP_MAX);
    for (int i = 0; i < r->n; i++) {
        s[i] = cute_tensor_load(c, CUTE_SLICE(c, S, i, CUTE_ALL));
        mt[i] = cute_ssa_reduce(c, CUTE_OP_MAX, s[i]);
        cute_warp_allreduce(c, &max, &mt[i], 4);
    }
}

/* the running maxima moved to the tile's mt where larger, l and O's rows scaled to them */
static void move_maxima(cute_ctx *c, attn_rows *r, const cute_val *mt, cute_tensor acc_o, cute_val scale_log2)
{
    cute_tensor O = attn_rowcol(c, acc_o);
    for (int i = 0; i < r->n; i++) {
        cute_val m = cute_val_binop(c, CUTE_OP_MAX, mt[i], r->m[i]);
        cute_val neg_ms = cute_val_unop(c, CUTE_OP_NEG, scaled_max(c, m, scale_log2));
        cute_val corr = cute_val_fast(c, CUTE_OP_EXP2, cute_val_fma(c, r->m[i], scale_log2, neg_ms));
        cute_tensor orow = CUTE_SLICE(c, O, i, CUTE_ALL);
        cute_tensor_store(c, orow, times(c, cute_tensor_load(c, orow), corr));
        cute_val_assign(c, r->l[i], cute_val_binop(c, CUTE_OP_MUL, r->l[i], corr));
        cute_val_assign(c, r->m[i], m);
    }
}

/* FlashAttention 4's lazy rescale: the running max m of a row moves (and O and l with it)
 * only where some row of the warp saw a tile max above m by more than 8 in log2 units
 * (a warp-uniform branch); elsewhere P = exp2(S scale_log2 - m scale_log2) stays within
 * 2^8, and O / l is the same quotient.  On scores of one scale the maxima settle within a
 * few tiles, so most tiles skip O's 4 x MMA_N x MMA_M multiplies and P V's MMAs no longer
 * wait for them.  (A row's first keys always move it: m = -inf.) */
/* whether some row of the warp saw its tile max mt above its running max m by more than 8
 * in log2 units (a warp-uniform i1).  The rows' largest mt - m (NaN where mt = m = -inf: not
 * taken, as max drops it) against 8 in log2 units; at 255 registers ptxas spills a
 * loop-invariant word or three at head dim 128 where the compare takes another form: this
 * one multiplies by scale_log2 (a kernel parameter: no register) where causal, and compares
 * with a loop-invariant 8 / scale_log2 (rsqrt squared, which ptxas recomputes) where not */
static cute_val lazy_need(cute_ctx *c, const attn_rows *r, const cute_val *mt, cute_val scale_log2, bool causal)
{
    cute_val eight = cute_val_const(c, CUTE_F32, 8);
    cute_val gap = cute_val_binop(c, CUTE_OP_SUB, mt[0], r->m[0]);
    for (int i = 1; i < r->n; i++)
        gap = cute_val_binop(c, CUTE_OP_MAX, gap, cute_val_binop(c, CUTE_OP_SUB, mt[i], r->m[i]));
    cute_val rs = cute_val_fast(c, CUTE_OP_RSQRT, scale_log2);
    cute_val need = causal ? cute_val_cmp(c, CUTE_OP_GT, cute_val_binop(c, CUTE_OP_MUL, gap, scale_log2), eight)
                           : cute_val_cmp(c, CUTE_OP_GT, gap, cute_val_binop(c, CUTE_OP_MUL, cute_val_binop(c, CUTE_OP_MUL, rs, rs), eight));
    return cute_val_vote(c, need, CUTE_VOTE_ANY);
}

void attn_softmax_tile_lazy(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_tensor acc_o, cute_val scale_log2,
                            bool causal)
{
    cute_tensor S = attn_rowcol(c, acc_s);
    cute_ssa s[8];
    cute_val mt[8];
    tile_maxima(c, r, S, s, mt);
    CUTE_IF(c, lazy_need(c, r, mt, scale_log2, causal)) { move_maxima(c, r, mt, acc_o, scale_log2); }
    for (int i = 0; i < r->n; i++) {
        cute_val neg_ms = cute_val_unop(c, CUTE_OP_NEG, scaled_max(c, r->m[i], scale_log2));
        cute_ssa p = cute_ssa_fast(c, CUTE_OP_EXP2, cute_ssa_fma(c, s[i], cute_ssa_scalar(c, scale_log2, s[i].shape),
                                                                 cute_ssa_scalar(c, neg_ms, s[i].shape)));
        cute_tensor_store(c, CUTE_SLICE(c, S, i, CUTE_ALL), p);
        cute_val_assign(c, r->l[i], cute_val_binop(c, CUTE_OP_ADD, r->l[i], cute_ssa_reduce(c, CUTE_OP_ADD, p)));
    }
}

void attn_softmax_finish(cute_ctx *c, attn_rows *r, cute_tensor acc_o, cute_val scale_log2,
                         cute_val *lse, bool fast)
{
    cute_tensor O = attn_rowcol(c, acc_o);
    cute_reducer add = cute_reducer_op(CUTE_OP_ADD);
    cute_val one = cute_val_const(c, CUTE_F32, 1), zero = cute_val_const(c, CUTE_F32, 0);
    for (int i = 0; i < r->n; i++) {
        cute_val l = cute_val_binop(c, CUTE_OP_ADD, r->l[i], zero); /* a value, not the variable */
        cute_warp_allreduce(c, &add, &l, 4);
        cute_val some = cute_val_cmp(c, CUTE_OP_GT, l, zero); /* a row with no key: O = 0 */
        /* fast: log2 l approximate and 1 / l = exp2(-log2 l) (two MUFU; a few ulp where the
         * outputs are f16/bf16 and the LSE is checked to 1e-4): l >= 1 where a row saw a key
         * (its max's exp2(0)), so neither meets a denormal.  IEEE division and log2f are ~70
         * instructions a thread of the Hopper forward's epilogue, with a slow path each */
        cute_val lg = fast ? cute_val_fast(c, CUTE_OP_LOG2, l) : cute_val_unop(c, CUTE_OP_LOG2, l);
        cute_val inv = fast ? cute_val_fast(c, CUTE_OP_EXP2, cute_val_unop(c, CUTE_OP_NEG, lg))
                            : cute_val_binop(c, CUTE_OP_DIV, one, l);
        inv = cute_val_select(c, some, inv, one);
        cute_tensor orow = CUTE_SLICE(c, O, i, CUTE_ALL);
        cute_tensor_store(c, orow, times(c, cute_tensor_load(c, orow), inv));
        /* ln(sum exp(s scale)) = ln2 (m scale_log2 + log2 l) */
        cute_val log2l = cute_val_binop(c, CUTE_OP_ADD, scaled_max(c, r->m[i], scale_log2), lg);
        lse[i] = cute_val_binop(c, CUTE_OP_MUL, log2l, cute_val_const(c, CUTE_F32, 0.69314718055994531));
    }
}

/* the (row, col) of element i of a coordinate tensor */
static void coord_at(cute_ctx *c, cute_tensor coords, int i, cute_int *row, cute_int *col)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple crd = cute_layout_eval_basis(a, &coords.layout, cute_i(i));
    cute_tuple f = cute_tuple_flatten(&crd), base = cute_tuple_flatten(&coords.coord);
    *row = cute_add(a, f.nleaves > 0 ? f.leaf[0] : cute_i(0), base.leaf[0]);
    *col = cute_add(a, f.nleaves > 1 ? f.leaf[1] : cute_i(0), base.leaf[1]);
}

/* A thread's elements sit at static offsets (dr, dc) from its element 0 (row0, col0), so
 * that element i is kept where dc < bound - col0 and lo <= col - row = col0 - row0 + dc - dr
 * <= hi: for each of the thread's few rows dr, dc within [from(dr), to(dr)), two 32-bit
 * limits computed once a tile, and each element is one compare of a limit with the
 * immediate dc (two with a lower bound), then a select.  The tile's 64-bit differences are
 * clamped to [-2^16, 2^30] before they become 32-bit: with |dc|, |dr| < 2^15 every
 * comparison comes out the same (a limit below -2^16 passes or fails every dc - dr alike,
 * one above 2^30 too), and a row's limit (a clamped value plus dr) cannot overflow. */
enum { MASK_OFFSET = 1 << 15, MASK_ROWS = 64 };

/* the i64 v clamped to [-2^16, 2^30], as an i32 */
static cute_val clamp_i32(cute_ctx *c, cute_val v)
{
    v = cute_val_binop(c, CUTE_OP_MAX, v, cute_val_int(c, CUTE_I64, -2 * (int64_t)MASK_OFFSET));
    v = cute_val_binop(c, CUTE_OP_MIN, v, cute_val_int(c, CUTE_I64, (int64_t)1 << 30));
    return cute_val_cvt(c, v, CUTE_I32);
}

/* the limits of the row dr: keys dc with from <= dc < to (from only with a lower bound) */
typedef struct mask_row {
    int64_t dr;
    cute_val from, to;
} mask_row;

/* the tile's parts of the limits: room = bound - col0, and where the band has them
 * hi + 1 - ahead and lo - ahead (ahead = col0 - row0), clamped to 32 bits */
typedef struct mask_tile {
    attn_band band;
    cute_val room, hi, lo;
    mask_row rows[MASK_ROWS];
    int n;
} mask_tile;

static const mask_row *mask_row_of(cute_ctx *c, mask_tile *m, int64_t dr)
{
    for (int k = 0; k < m->n; k++)
        if (m->rows[k].dr == dr) return &m->rows[k];
    if (m->n == MASK_ROWS) {
        cute_ctx_fail(c, "attention mask: a thread holds more than %d rows of the tile", MASK_ROWS);
        return NULL;
    }
    mask_row *r = &m->rows[m->n++];
    cute_val d = cute_val_int(c, CUTE_I32, dr);
    r->dr = dr, r->to = m->room;
    if (m->band.has_hi) r->to = cute_val_binop(c, CUTE_OP_MIN, r->to, cute_val_binop(c, CUTE_OP_ADD, m->hi, d));
    if (m->band.has_lo) r->from = cute_val_binop(c, CUTE_OP_ADD, m->lo, d);
    return r;
}

void attn_mask_band_fill(cute_ctx *c, cute_tensor acc_s, cute_tensor coords, cute_int bound, attn_band band, double fill)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_ssa s = cute_tensor_load(c, acc_s);
    cute_val ninf = cute_val_const(c, CUTE_F32, fill);
    cute_int row0, col0;
    coord_at(c, coords, 0, &row0, &col0);
    cute_val ahead = cute_int_value(c, cute_sub(a, col0, row0), CUTE_I64);
    mask_tile m = {.band = band, .n = 0};
    m.room = clamp_i32(c, cute_int_value(c, cute_sub(a, bound, col0), CUTE_I64));
    if (band.has_hi) m.hi = clamp_i32(c, cute_val_binop(c, CUTE_OP_SUB, cute_val_int(c, CUTE_I64, band.hi + 1), ahead));
    if (band.has_lo) m.lo = clamp_i32(c, cute_val_binop(c, CUTE_OP_SUB, cute_val_int(c, CUTE_I64, band.lo), ahead));
    for (int i = 0; i < s.n; i++) {
        cute_int row, col;
        coord_at(c, coords, i, &row, &col);
        cute_int dc = cute_sub(a, col, col0), dr = cute_sub(a, row, row0);
        if (!cute_is_static(dc) || !cute_is_static(dr) || dc.v <= -MASK_OFFSET || dc.v >= MASK_OFFSET ||
            dr.v <= -MASK_OFFSET || dr.v >= MASK_OFFSET) {
            cute_ctx_fail(c, "attention mask: a thread's elements are not at small static offsets");
            return;
        }
        const mask_row *r = mask_row_of(c, &m, dr.v);
        if (!r) return;
        cute_val at = cute_val_int(c, CUTE_I32, dc.v);
        cute_val keep = cute_val_cmp(c, CUTE_OP_LT, at, r->to);
        if (band.has_lo) keep = cute_val_binop(c, CUTE_OP_AND, keep, cute_val_cmp(c, CUTE_OP_GE, at, r->from));
        s.v[i] = cute_val_select(c, keep, cute_ssa_get(c, s, i), ninf).r;
    }
    cute_tensor_store(c, acc_s, s);
}

void attn_mask_band(cute_ctx *c, cute_tensor acc_s, cute_tensor coords, cute_int bound, attn_band band)
{
    attn_mask_band_fill(c, acc_s, coords, bound, band, -INFINITY);
}

void attn_mask(cute_ctx *c, cute_tensor acc_s, cute_tensor coords, cute_int sk, bool causal)
{
    attn_mask_band(c, acc_s, coords, sk, (attn_band){.has_hi = causal, .hi = 0});
}
