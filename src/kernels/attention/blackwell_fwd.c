/* The Blackwell forward (sm_100a), after CuTe DSL's blackwell/fmha.py: one block per (two
 * 128-row Q tiles, head, batch), sixteen warps, warp-specialized:
 *
 *   warpgroup 0 (96 registers a thread): warp 0 loads, one elected thread, the block's Q
 *     once, then K(n) and V(n) of every key tile by TMA into the stages of two
 *     PipelineTmaUmma (the Hopper kernel's boxes, hopper_tma.c); warp 1 allocates the tensor
 *     memory and one elected thread issues, for each Q tile i, O_i += P_i(n-1) V(n-1)
 *     (tcgen05.mma _TS: P_i from tensor memory, V^T read from V's stage as an MN-major B),
 *     then S_i(n) = Q_i K(n)^T (tcgen05.mma _SS into S_i's columns): the MMAs run in issue
 *     order, so S_i(n) overwrites P_i's columns only after P_i V has read them.  While one Q
 *     tile's softmax runs, the other's MMAs do.  Warps 2-3 idle;
 *   warpgroups 1 and 2 (160 registers), the softmax of Q tile 0 and 1: thread r owns row r
 *     of its tile (lane r of tensor memory, SM100_MMA's M = 128 layout).  For each key tile it
 *     reads S's row (tcgen05.ld 32x32b, PART columns at a time, twice: for the row's max, then
 *     for P, so that few scores are held), masks it where needed, moves the row's max and sum,
 *     hands O's factor to the correction through shared memory and stores P's row (f16 /
 *     bf16, two a column) over S's first columns for the MMA.  At the end it stores the LSE
 *     and hands 1 / l over;
 *   warpgroup 3 (96 registers), the correction: thread r rescales row r of both tiles' O in
 *     tensor memory (ld, scale, st) once the last P V is in and before the next, then stores
 *     O / l.  So the softmax never waits for a P V.
 *
 * The handoffs are each Q tile's pipelines (cutec/pipeline.h): S computed (PipelineUmmaAsync,
 * MMA -> softmax), P stored (PipelineAsync, softmax -> MMA), the factor (PipelineAsync,
 * softmax -> correction), P V computed (PipelineUmmaAsync, MMA -> correction), O rescaled
 * (PipelineAsync, correction -> MMA).  Not yet here (docs/catalogue.md): the exp2 emulation,
 * the lazy rescale, the persistent grid.  Verified on the interpreter and compiled by ptxas
 * for sm_100a; no Blackwell has run it (docs/blackwell.md). */
#include <math.h>

#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"
#include "cutec/umma.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/tmem_columns.h"

enum {
    WARPGROUP = 128, LOAD_WARP = 0, MMA_WARP = 1, /* warpgroup 0; then the softmax's, the correction's */
    MAX_Q = 2,                                    /* Q tiles a block */
    CHUNK = 32,                                   /* O's columns a T2R */
    PART = 32,                                    /* S's columns a T2R of the softmax */
    /* registers a thread (setmaxnreg), 128 at launch (512 threads): 96 + 2 x 160 + 96 = 4 x 128.
     * ptxas (CUDA 13) spills nothing so but at head dim 128 causal with 128-key tiles (8 bytes:
     * the plan takes 64 there); 32 columns a part (64 spilled 100 bytes at 128 keys) */
    ISSUE_REGS = 96, SOFTMAX_REGS = 160, FIX_REGS = 96,
};

typedef struct bw_smem {
    cute_tensor q, k, v, vt;  /* (bm,D); (bn,D,stages) each; V's stages seen as (D,bn,stages) */
    cute_pipeline pq, pk, pv; /* TMA -> MMA: Q (one stage), K, V */
    /* each Q tile's handoffs: S computed (MMA -> softmax), P stored over S (softmax -> MMA),
     * the row's factor in stat (softmax -> correction), O += P V computed (MMA -> correction),
     * O rescaled (correction -> MMA) */
    cute_pipeline ps[MAX_Q], pp[MAX_Q], pc[MAX_Q], po[MAX_Q], pr[MAX_Q];
    cute_tensor stat[MAX_Q]; /* (128) f32: each row's factor for O (the last: 1 / l) */
} bw_smem;

/* what every role reads */
typedef struct bw_job {
    const attn_plan *p;
    bw_smem m;
    attn_block t;
    cute_val map_q, map_k, map_v;
    cute_tensor tq, tk; /* the TMA coordinate tensors of Q and K (B,S,heads,D) */
    cute_val taddr;     /* the tensor memory: lane 0, its first column */
    cute_val scale_log2;
} bw_job;

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

static cute_val column(cute_ctx *c, cute_val at, int64_t col) { return cute_val_binop(c, CUTE_OP_ADD, at, u32(c, col)); }

/* --- the load warp ---------------------------------------------------------------------- */

/* key tile n of K or V into the state's stage of its pipeline */
static void load_kv(cute_ctx *c, const bw_job *j, const cute_pipeline *pipe, const cute_tma_atom *atom, cute_val map,
                    cute_tensor smem, cute_int n, cute_pipeline_state *s)
{
    cute_pipeline_producer_acquire(c, pipe, s, (cute_val){0});
    attn_hop_load_rows(c, j->p, atom, map, j->tk, j->t.b, n, j->t.hk, attn_hop_stage(c, smem, 3, s),
                       cute_pipeline_producer_barrier(c, pipe, s));
    cute_pipeline_producer_commit(c, pipe, s);
    cute_pipeline_state_advance(c, s);
}

static void load(cute_ctx *c, const bw_job *j)
{
    const attn_plan *p = j->p;
    const bw_smem *m = &j->m;
    cute_pipeline_state sq = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
    cute_pipeline_state sk = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    cute_pipeline_state sv = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages); /* (its own variables) */
    cute_pipeline_producer_acquire(c, &m->pq, &sq, (cute_val){0});
    attn_hop_load_rows(c, p, &p->tma_q, j->map_q, j->tq, j->t.b, j->t.m_block, j->t.h, m->q,
                       cute_pipeline_producer_barrier(c, &m->pq, &sq));
    cute_pipeline_producer_commit(c, &m->pq, &sq);
    CUTE_FOR(c, n, j->t.n_begin, j->t.n_end) {
        load_kv(c, j, &m->pk, &p->tma_k, j->map_k, m->k, n, &sk);
        load_kv(c, j, &m->pv, &p->tma_v, j->map_v, m->v, n, &sv);
    }
}

/* --- the tensor memory ------------------------------------------------------------------ */

/* Q tile i's columns: S (bn), where P (bn / 2: two f16 / bf16 a column) is stored over the
 * scores read; O (D) after every tile's S */
static int64_t s_col(const attn_plan *p, int i) { return i * p->bn; }
static int64_t o_col(const attn_plan *p, int i) { return p->consumers * p->bn + i * p->d; }

/* --- the MMA warp ----------------------------------------------------------------------- */

typedef struct bw_mma_states {
    cute_pipeline_state k, v, s[MAX_Q], o[MAX_Q], p[MAX_Q], r[MAX_Q];
} bw_mma_states;

/* S_i = Q_i K^T of the state's K stage into Q tile i's S columns */
static void issue_scores(cute_ctx *c, const bw_job *j, bw_mma_states *st, int i)
{
    const attn_plan *p = j->p;
    const bw_smem *m = &j->m;
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor qi = cute_tensor_local_tile(c, m->q, cute_tuple_fmt(a, "(%d,%lld)", WARPGROUP, (long long)p->d),
                                            cute_tuple_fmt(a, "(%d,0)", i), NULL);
    cute_pipeline_producer_acquire(c, &m->ps[i], &st->s[i], (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    cute_umma_gemm(c, &p->umma_s, column(c, j->taddr, s_col(p, i)), qi, attn_hop_stage(c, m->k, 3, &st->k), u32(c, 0));
    cute_pipeline_producer_commit(c, &m->ps[i], &st->s[i]);
    cute_pipeline_state_advance(c, &st->s[i]);
}

/* O_i += P_i V of the state's V stage (more: u32, 0 for the first key tile: O_i = P_i V), once
 * the softmax stored P_i and (after the first) the correction rescaled O_i */
static void issue_attend(cute_ctx *c, const bw_job *j, bw_mma_states *st, int i, cute_val more)
{
    const attn_plan *p = j->p;
    const bw_smem *m = &j->m;
    cute_val rescaled = cute_val_cmp(c, CUTE_OP_NE, more, u32(c, 0));
    cute_pipeline_consumer_wait(c, &m->pp[i], &st->p[i], (cute_val){0});
    CUTE_IF(c, rescaled) {
        cute_pipeline_consumer_wait(c, &m->pr[i], &st->r[i], (cute_val){0});
        cute_pipeline_consumer_release(c, &m->pr[i], &st->r[i]); /* (the MMA is ordered after the wait) */
        cute_pipeline_state_advance(c, &st->r[i]);
    }
    cute_pipeline_producer_acquire(c, &m->po[i], &st->o[i], (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    cute_umma_gemm_ts(c, &p->umma_o, column(c, j->taddr, o_col(p, i)), column(c, j->taddr, s_col(p, i)),
                      attn_hop_stage(c, m->vt, 3, &st->v), more);
    if (!(p->broken & ATTN_BW_BREAK_PV_COMMIT)) cute_pipeline_producer_commit(c, &m->po[i], &st->o[i]);
    cute_pipeline_consumer_release(c, &m->pp[i], &st->p[i]);
    cute_pipeline_state_advance(c, &st->p[i]);
    cute_pipeline_state_advance(c, &st->o[i]);
}

/* u32: n > first */
static cute_val after(cute_ctx *c, cute_int n, cute_int first)
{
    return cute_val_cvt(c, cute_int_lt(c, first, n), CUTE_U32);
}

/* Key tile n after the first: for each Q tile, P_i V(n-1) then S_i = Q_i K(n)^T.  The MMAs run
 * in issue order: S_i(n) overwrites P_i's columns only after P_i V(n-1) has read them, and
 * while the softmax of one Q tile runs, the other's MMAs do. */
static void mma_tile(cute_ctx *c, const bw_job *j, bw_mma_states *st, cute_int n)
{
    const bw_smem *m = &j->m;
    cute_val more = after(c, cute_sub(cute_ctx_alg(c), n, cute_i(1)), j->t.n_begin);
    cute_pipeline_consumer_wait(c, &m->pk, &st->k, (cute_val){0});
    cute_pipeline_consumer_wait(c, &m->pv, &st->v, (cute_val){0});
    for (int i = 0; i < j->p->consumers; i++) {
        issue_attend(c, j, st, i, more);
        issue_scores(c, j, st, i);
    }
    cute_pipeline_consumer_release(c, &m->pk, &st->k); /* free once the MMAs have read them */
    cute_pipeline_consumer_release(c, &m->pv, &st->v);
    cute_pipeline_state_advance(c, &st->k);
    cute_pipeline_state_advance(c, &st->v);
}

static void mma(cute_ctx *c, const bw_job *j)
{
    const attn_plan *p = j->p;
    const attn_block *t = &j->t;
    const bw_smem *m = &j->m;
    cute_alg *a = cute_ctx_alg(c);
    bw_mma_states st = {.k = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages),
                        .v = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages)};
    for (int i = 0; i < p->consumers; i++) {
        st.s[i] = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
        st.o[i] = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
        st.p[i] = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
        st.r[i] = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    }
    cute_pipeline_state sq = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    cute_pipeline_consumer_wait(c, &m->pq, &sq, (cute_val){0});
    CUTE_IF(c, cute_int_lt(c, t->n_begin, t->n_end)) {
        cute_pipeline_consumer_wait(c, &m->pk, &st.k, (cute_val){0});
        for (int i = 0; i < p->consumers; i++) issue_scores(c, j, &st, i);
        cute_pipeline_consumer_release(c, &m->pk, &st.k);
        cute_pipeline_state_advance(c, &st.k);
        CUTE_FOR(c, n, cute_add(a, t->n_begin, cute_i(1)), t->n_end) { mma_tile(c, j, &st, n); }
        cute_val more = after(c, cute_sub(a, t->n_end, cute_i(1)), t->n_begin);
        cute_pipeline_consumer_wait(c, &m->pv, &st.v, (cute_val){0});
        for (int i = 0; i < p->consumers; i++) issue_attend(c, j, &st, i, more);
        cute_pipeline_consumer_release(c, &m->pv, &st.v);
    }
    cute_pipeline_consumer_release(c, &m->pq, &sq);
}

/* --- the softmax and correction warpgroups ---------------------------------------------- */

/* a thread's row r of Q tile i (the block's row 128 i + r): lane r of tensor memory, (32 (r /
 * 32)) << 16 added to taddr */
typedef struct bw_row {
    int i;
    cute_int r, row;
    cute_val lane;
} bw_row;

static bw_row row_of(cute_ctx *c, const bw_job *j, int i, cute_int r)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_val lanes = cute_val_binop(c, CUTE_OP_SHL, cute_int_value(c, cute_div(a, r, cute_i(32)), CUTE_U32),
                                    u32(c, 16 + 5));
    return (bw_row){i, r, cute_add(a, r, cute_i((int64_t)i * WARPGROUP)), cute_val_binop(c, CUTE_OP_ADD, j->taddr, lanes)};
}

/* the row inside Sq (i1) */
static cute_val row_in(cute_ctx *c, const bw_job *j, const bw_row *w)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_int_lt(c, cute_add(a, cute_mul(a, j->t.m_block, cute_i(j->p->bm)), w->row), j->t.sq);
}

/* n values of f32 shaped `shape`, from the words of a T2R */
static cute_ssa as_f32(cute_ctx *c, const cute_val *w, int n, cute_tuple shape)
{
    cute_ssa s = cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, 0), shape);
    for (int i = 0; i < n; i++) s.v[i] = cute_val_bitcast(c, w[i], cute_type_of(CUTE_F32)).r;
    return s;
}

/* m scale_log2, or 0 for a row that has seen no key (m = -inf) */
static cute_val scaled(cute_ctx *c, cute_val m, cute_val scale_log2)
{
    cute_val none = cute_val_cmp(c, CUTE_OP_EQ, m, cute_val_const(c, CUTE_F32, -INFINITY));
    return cute_val_select(c, none, cute_val_const(c, CUTE_F32, 0), cute_val_binop(c, CUTE_OP_MUL, m, scale_log2));
}

/* the softmax's: its row, the row's running max m and sum l (f32 variables), its states */
typedef struct bw_soft {
    bw_row w;
    cute_val m, l;
    cute_pipeline_state s, p, f; /* ps, pp, pc */
} bw_soft;

/* part q (PART keys) of S's row of key tile n, masked where the tile needs it, into a (PART)
 * f32 fragment: read twice, for the row's max and for P, so that no more than PART scores
 * are held (the T2R of a whole 128-key row takes 128 registers, a 512-thread block's all) */
static cute_tensor read_scores(cute_ctx *c, const bw_job *j, const bw_soft *r, cute_int n, int q)
{
    const attn_plan *p = j->p;
    cute_alg *a = cute_ctx_alg(c);
    cute_val w[PART];
    cute_tensor row = CUTE_SLICE(c, j->t.cS, r->w.row, CUTE_ALL, n);
    cute_tensor coords = cute_tensor_local_tile(c, row, cute_tuple_fmt(a, "(%d)", PART), cute_tuple_fmt(a, "(%d)", q),
                                                NULL); /* (outside the branch below) */
    cute_tensor rs = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(a, "%d:1", PART));
    cute_tmem_load_32dp32b(c, column(c, r->w.lane, s_col(p, r->w.i) + (int64_t)q * PART), PART, w);
    cute_tcgen05_wait_ld(c);
    cute_tensor_store(c, rs, as_f32(c, w, PART, rs.layout.shape));
    CUTE_IF(c, attn_needs_mask(c, p, &j->t, n)) { attn_mask_band(c, rs, coords, j->t.sk, attn_cfg_band(&p->cfg)); }
    return rs;
}

/* the row's factor k for the correction, through stat */
static void hand_factor(cute_ctx *c, const bw_job *j, bw_soft *r, cute_val k)
{
    const bw_smem *m = &j->m;
    int i = r->w.i;
    cute_tensor at = CUTE_SLICE(c, m->stat[i], r->w.r);
    cute_pipeline_producer_acquire(c, &m->pc[i], &r->f, (cute_val){0});
    cute_tensor_store(c, at, cute_ssa_scalar(c, k, at.layout.shape));
    cute_pipeline_producer_commit(c, &m->pc[i], &r->f);
    cute_pipeline_state_advance(c, &r->f);
}

/* Key tile n: the row's new max m over S's parts; P = exp2(S scale_log2 - m scale_log2) part
 * by part, stored over S's first columns (two f16 / bf16 a column: part q's P over part q / 2's
 * scores, already read) for the MMA, l moved; the factor of O's row (after the first tile) to
 * the correction.  S(n) is complete, so the P V before it has read the last P. */
static void softmax_tile(cute_ctx *c, const bw_job *j, bw_soft *r, cute_int n, bool first)
{
    const attn_plan *p = j->p;
    const bw_smem *m = &j->m;
    int i = r->w.i, parts = (int)(p->bn / PART);
    if (!(p->broken & ATTN_BW_BREAK_S_WAIT)) cute_pipeline_consumer_wait(c, &m->ps[i], &r->s, (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    cute_val mx = r->m;
    for (int q = 0; q < parts; q++)
        mx = cute_val_binop(c, CUTE_OP_MAX, cute_ssa_reduce(c, CUTE_OP_MAX, cute_tensor_load(c, read_scores(c, j, r, n, q))),
                            mx);
    cute_val neg = cute_val_unop(c, CUTE_OP_NEG, scaled(c, mx, j->scale_log2));
    /* exp2(m_old scale_log2 - m_new scale_log2): 0 on the first tile (m_old = -inf) */
    cute_val corr = cute_val_fast(c, CUTE_OP_EXP2, cute_val_fma(c, r->m, j->scale_log2, neg));
    cute_val_assign(c, r->m, mx);
    if (!first) hand_factor(c, j, r, corr);
    cute_val sum = cute_val_const(c, CUTE_F32, 0);
    cute_pipeline_producer_acquire(c, &m->pp[i], &r->p, (cute_val){0});
    for (int q = 0; q < parts; q++) {
        cute_ssa s = cute_tensor_load(c, read_scores(c, j, r, n, q));
        cute_ssa e = cute_ssa_fast(c, CUTE_OP_EXP2, cute_ssa_fma(c, s, cute_ssa_scalar(c, j->scale_log2, s.shape),
                                                                 cute_ssa_scalar(c, neg, s.shape)));
        sum = cute_val_binop(c, CUTE_OP_ADD, sum, cute_ssa_reduce(c, CUTE_OP_ADD, e));
        cute_ssa words = cute_ssa_words(c, cute_ssa_cvt(c, e, p->cfg.dtype)); /* P's part, two a word */
        cute_val w[PART / 2];
        for (int k = 0; k < words.n; k++) w[k] = cute_ssa_get(c, words, k);
        cute_tmem_store(c, CUTE_TMEM_32x32b, words.n, false, column(c, r->w.lane, s_col(p, i) + (int64_t)q * PART / 2), 0,
                        w);
    }
    cute_val_assign(c, r->l, cute_val_fma(c, r->l, corr, sum));
    cute_tcgen05_wait_st(c);
    cute_tcgen05_fence_before_thread_sync(c);
    cute_pipeline_consumer_release(c, &m->ps[i], &r->s);
    cute_pipeline_state_advance(c, &r->s);
    cute_pipeline_producer_commit(c, &m->pp[i], &r->p);
    cute_pipeline_state_advance(c, &r->p);
}

/* the row's LSE, where the row is inside Sq: ln(sum exp(s scale)) = ln2 (m scale_log2 + log2 l) */
static void store_lse(cute_ctx *c, const bw_job *j, const bw_soft *r)
{
    cute_val log2l = cute_val_binop(c, CUTE_OP_ADD, scaled(c, r->m, j->scale_log2), cute_val_unop(c, CUTE_OP_LOG2, r->l));
    cute_val lse = cute_val_binop(c, CUTE_OP_MUL, log2l, cute_val_const(c, CUTE_F32, 0.69314718055994531));
    cute_tensor gl = CUTE_SLICE(c, j->t.gL, r->w.row, 0);
    CUTE_IF(c, row_in(c, j, &r->w)) { cute_tensor_store(c, gl, cute_ssa_scalar(c, lse, gl.layout.shape)); }
}

/* Q tile i's softmax warpgroup; tid: the thread's index in it (its row of the tile).  At the
 * end it hands 1 / l (1 for a row with no key: O = 0 there) to the correction */
static void softmax(cute_ctx *c, const bw_job *j, int i, cute_int tid)
{
    const attn_block *t = &j->t;
    cute_alg *a = cute_ctx_alg(c);
    bw_soft r = {row_of(c, j, i, tid), cute_val_var(c, cute_val_const(c, CUTE_F32, -INFINITY)),
                 cute_val_var(c, cute_val_const(c, CUTE_F32, 0)),
                 cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1),
                 cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1),
                 cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1)};
    CUTE_IF(c, cute_int_lt(c, t->n_begin, t->n_end)) {
        softmax_tile(c, j, &r, t->n_begin, true);
        CUTE_FOR(c, n, cute_add(a, t->n_begin, cute_i(1)), t->n_end) { softmax_tile(c, j, &r, n, false); }
        cute_val zero = cute_val_const(c, CUTE_F32, 0), one = cute_val_const(c, CUTE_F32, 1);
        cute_val some = cute_val_cmp(c, CUTE_OP_GT, r.l, zero);
        hand_factor(c, j, &r, cute_val_select(c, some, cute_val_binop(c, CUTE_OP_DIV, one, r.l), one));
    }
    if (j->p->cfg.lse) store_lse(c, j, &r);
}

/* the correction's states of Q tile i's pipelines: pc, po, pr */
typedef struct bw_fix {
    cute_pipeline_state f, o, r;
} bw_fix;

/* the next factor of tile i's row (the softmax's hand_factor) */
static cute_val take_factor(cute_ctx *c, const bw_job *j, const bw_row *w, bw_fix *st)
{
    const bw_smem *m = &j->m;
    cute_pipeline_consumer_wait(c, &m->pc[w->i], &st->f, (cute_val){0});
    cute_val k = cute_ssa_get(c, cute_tensor_load(c, CUTE_SLICE(c, m->stat[w->i], w->r)), 0);
    cute_pipeline_consumer_release(c, &m->pc[w->i], &st->f);
    cute_pipeline_state_advance(c, &st->f);
    return k;
}

/* once the last O += P V is in: O's row times its factor, CHUNK columns at a time, in tensor
 * memory; then the MMA may add the next P V */
static void rescale_o(cute_ctx *c, const bw_job *j, const bw_row *w, bw_fix *st)
{
    const bw_smem *m = &j->m;
    cute_val k = take_factor(c, j, w, st), v[CHUNK];
    cute_pipeline_consumer_wait(c, &m->po[w->i], &st->o, (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    for (int64_t col = 0; col < j->p->d; col += CHUNK) {
        cute_val at = column(c, w->lane, o_col(j->p, w->i) + col);
        cute_tmem_load_32dp32b(c, at, CHUNK, v);
        cute_tcgen05_wait_ld(c);
        for (int e = 0; e < CHUNK; e++) {
            cute_val f = cute_val_bitcast(c, v[e], cute_type_of(CUTE_F32));
            v[e] = cute_val_bitcast(c, cute_val_binop(c, CUTE_OP_MUL, f, k), cute_type_of(CUTE_U32));
        }
        cute_tmem_store(c, CUTE_TMEM_32x32b, CHUNK, false, at, 0, v);
    }
    cute_tcgen05_wait_st(c);
    cute_tcgen05_fence_before_thread_sync(c);
    cute_pipeline_consumer_release(c, &m->po[w->i], &st->o);
    cute_pipeline_state_advance(c, &st->o);
    cute_pipeline_producer_acquire(c, &m->pr[w->i], &st->r, (cute_val){0});
    cute_pipeline_producer_commit(c, &m->pr[w->i], &st->r);
    cute_pipeline_state_advance(c, &st->r);
}

/* chunk `col` of row `row` of a (bm, D) tile: (CHUNK) */
static cute_tensor row_chunk(cute_ctx *c, cute_tensor tile, cute_int row, int64_t col)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor cols = cute_tensor_local_tile(c, tile, cute_tuple_fmt(a, "(1,%d)", CHUNK),
                                              cute_tuple_fmt(a, "(%I,%lld)", row, (long long)(col / CHUNK)), NULL);
    return cute_tensor_slice(c, cols, cute_tuple_fmt(a, "(0,_)"));
}

/* O's row times 1 / l, stored where the row is inside Sq; with no key tile (st NULL) zeros,
 * nothing read from tensor memory */
static void epilogue(cute_ctx *c, const bw_job *j, const bw_row *w, bw_fix *st)
{
    const attn_plan *p = j->p;
    cute_val zero = cute_val_const(c, CUTE_F32, 0), inv = zero;
    if (st) {
        inv = take_factor(c, j, w, st);
        cute_pipeline_consumer_wait(c, &j->m.po[w->i], &st->o, (cute_val){0});
        cute_tcgen05_fence_after_thread_sync(c);
    }
    cute_val in = row_in(c, j, w);
    for (int64_t col = 0; col < p->d; col += CHUNK) {
        cute_tensor g = row_chunk(c, j->t.gO, w->row, col);
        cute_ssa o = cute_ssa_scalar(c, zero, g.layout.shape);
        if (st) {
            cute_val v[CHUNK];
            cute_tmem_load_32dp32b(c, column(c, w->lane, o_col(p, w->i) + col), CHUNK, v);
            cute_tcgen05_wait_ld(c);
            o = cute_ssa_binop(c, CUTE_OP_MUL, as_f32(c, v, CHUNK, g.layout.shape), cute_ssa_scalar(c, inv, g.layout.shape));
        }
        CUTE_IF(c, in) { cute_tensor_store(c, g, cute_ssa_cvt(c, o, p->cfg.dtype)); }
    }
    if (st) {
        cute_tcgen05_fence_before_thread_sync(c);
        cute_pipeline_consumer_release(c, &j->m.po[w->i], &st->o);
    }
}

/* The correction warpgroup (fmha.py's): thread r rescales row r of both Q tiles' O in tensor
 * memory between their P V, in the MMA warp's order (key tile n: tile 0, then 1), then stores
 * both tiles' O */
static void correction(cute_ctx *c, const bw_job *j, cute_int r)
{
    const attn_plan *p = j->p;
    const attn_block *t = &j->t;
    cute_alg *a = cute_ctx_alg(c);
    bw_row w[MAX_Q];
    bw_fix st[MAX_Q];
    for (int i = 0; i < p->consumers; i++) {
        w[i] = row_of(c, j, i, r);
        st[i] = (bw_fix){cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1),
                         cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1),
                         cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1)};
    }
    CUTE_IF(c, cute_int_lt(c, t->n_begin, t->n_end)) {
        CUTE_FOR(c, n, cute_add(a, t->n_begin, cute_i(1)), t->n_end) {
            (void)n;
            for (int i = 0; i < p->consumers; i++) rescale_o(c, j, &w[i], &st[i]);
        }
        for (int i = 0; i < p->consumers; i++) epilogue(c, j, &w[i], &st[i]);
    }
    CUTE_ELSE(c) {
        for (int i = 0; i < p->consumers; i++) epilogue(c, j, &w[i], NULL);
    }
}

/* --- the block -------------------------------------------------------------------------- */

static void shared_memory(cute_ctx *c, bw_job *j, cute_int warp)
{
    const attn_plan *p = j->p;
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_dtype d = p->cfg.dtype;
    bw_smem *m = &j->m;
    m->q = cute_smem_alloc_tensor_composed(c, &al, d, p->smem_q, 1024);
    m->k = cute_smem_alloc_tensor_composed(c, &al, d, p->smem_kv, 1024);
    m->v = cute_smem_alloc_tensor_composed(c, &al, d, p->smem_kv, 1024);
    long long D = p->d, bn = p->bn;
    cute_layout tr = cute_layout_fmt(cute_ctx_alg(c), "(%lld,%lld,%d):(%lld,1,%lld)", D, bn, p->stages, bn, bn * D);
    cute_tiler tv = cute_tiler_layout(&tr);
    m->vt = cute_tensor_compose(c, m->v, &tv);
    int64_t boxes = attn_hop_boxes(p); /* a box a 64-column block */
    m->pq = cute_pipeline_tma_umma_create(c, &al, 1, p->tma_q.bytes * boxes);
    m->pk = cute_pipeline_tma_umma_create(c, &al, p->stages, p->tma_k.bytes * boxes);
    m->pv = cute_pipeline_tma_umma_create(c, &al, p->stages, p->tma_v.bytes * boxes);
    for (int i = 0; i < p->consumers; i++) {
        m->ps[i] = cute_pipeline_umma_async_create(c, &al, 1, WARPGROUP);
        m->pp[i] = cute_pipeline_async_create(c, &al, 1, WARPGROUP, 1);
        m->pc[i] = cute_pipeline_async_create(c, &al, 1, WARPGROUP, WARPGROUP);
        m->po[i] = cute_pipeline_umma_async_create(c, &al, 1, WARPGROUP);
        m->pr[i] = cute_pipeline_async_create(c, &al, 1, WARPGROUP, 1);
        m->stat[i] = cute_make_tensor(c, cute_smem_alloc_array(c, &al, CUTE_F32, WARPGROUP, 16),
                                      cute_layout_fmt(cute_ctx_alg(c), "%d:1", WARPGROUP), 4);
    }
    /* the MMA warp allocates the columns */
    j->taddr = kernels_tmem_columns(c, &al, warp, MMA_WARP, p->tmem_columns, false);
}

static void blackwell_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mO,
                             cute_tensor mL, cute_val scale_log2, cute_val map_q, cute_val map_k, cute_val map_v)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_kernel_min_blocks(c, 1);
    bw_job j = {.p = p, .t = attn_block_tiles(c, p, mQ, mK, mV, mO, mL), .map_q = map_q, .map_k = map_k,
                .map_v = map_v, .tq = cute_make_identity_tensor(c, mQ.layout.shape),
                .tk = cute_make_identity_tensor(c, mK.layout.shape), .scale_log2 = scale_log2};
    cute_alg *a = cute_ctx_alg(c);
    cute_int warp = cute_warp_idx(c), tid = cute_thread_idx(c, 0);
    shared_memory(c, &j, warp);
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(WARPGROUP))) {
        cute_setmaxregister_decrease(c, ISSUE_REGS);
        CUTE_IF(c, cute_int_eq(c, warp, cute_i(MMA_WARP))) {
            CUTE_IF(c, cute_elect_one(c)) mma(c, &j);
        }
        CUTE_ELSE(c) {
            CUTE_IF(c, cute_int_eq(c, warp, cute_i(LOAD_WARP))) {
                CUTE_IF(c, cute_elect_one(c)) load(c, &j);
            }
        }
    }
    CUTE_ELSE(c) {
        cute_int wg = cute_sub(a, cute_div(a, tid, cute_i(WARPGROUP)), cute_i(1));
        cute_int row = cute_mod(a, tid, cute_i(WARPGROUP));
        CUTE_IF(c, cute_int_lt(c, wg, cute_i(p->consumers))) {
            cute_setmaxregister_increase(c, SOFTMAX_REGS);
            for (int i = 0; i < p->consumers; i++)
                CUTE_IF(c, cute_int_eq(c, wg, cute_i(i))) { softmax(c, &j, i, row); }
        }
        CUTE_ELSE(c) {
            cute_setmaxregister_decrease(c, FIX_REGS);
            correction(c, &j, row);
        }
    }
    cute_tcgen05_fence_before_thread_sync(c);
    cute_barrier(c);
    CUTE_IF(c, cute_int_eq(c, warp, cute_i(MMA_WARP))) {
        cute_tcgen05_fence_after_thread_sync(c);
        cute_tmem_dealloc(c, j.taddr, p->tmem_columns);
    }
}

void attn_blackwell_host(cute_ctx *c, const cute_arg *arg)
{
    attn_plan *p = cute_ctx_user(c); /* the TMA atoms join the plan: the kernel reads them */
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mQ = arg[0].tensor, mL = p->cfg.lse ? arg[5].tensor : arg[3].tensor;
    p->tma_q = attn_hop_box_atom(c, p, mQ, p->bm);
    p->tma_k = attn_hop_box_atom(c, p, arg[1].tensor, p->bn);
    p->tma_v = attn_hop_box_atom(c, p, arg[2].tensor, p->bn);
    const cute_int *e = mQ.layout.shape.leaf; /* (B, Sq, H, D) */
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0]}, .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, blackwell_kernel, cfg, mQ, arg[1].tensor, arg[2].tensor, arg[3].tensor, mL, arg[4].f,
                p->tma_q.map, p->tma_k.map, p->tma_v.map);
}
