/* The Blackwell forward (sm_100a), after CuTe DSL's blackwell/fmha.py: one block per (two
 * 128-row Q tiles, head, batch), twelve warps, warp-specialized:
 *
 *   warp 0, load: one elected thread loads the block's Q once, then K(n) and V(n) of every
 *     key tile by TMA into the stages of two PipelineTmaUmma (the Hopper kernel's boxes and
 *     shared layouts, hopper_tma.c);
 *   warp 1, MMA: it allocates the tensor memory; one elected thread issues, for each Q tile
 *     i, S_i(n) = Q_i K(n)^T (tcgen05.mma _SS into S_i's columns) and O_i += P_i(n-1) V(n-1)
 *     (tcgen05.mma _TS: P_i from tensor memory, V^T read from V's stage as an MN-major B),
 *     P_i V before S_i: the MMAs run in issue order, so S_i(n) overwrites P_i's columns only
 *     after P_i V has read them.  While one Q tile's softmax runs, the other's MMAs do;
 *   warps 2-3 idle (warpgroup 0 is the roles' own);
 *   warpgroups 1 and 2, the softmax of Q tile 0 and 1, with its correction and epilogue:
 *     thread r owns row r of its tile (lane r of tensor memory, SM100_MMA's M = 128 layout).
 *     For each key tile it reads S's row (tcgen05.ld 32x32b), masks it where needed, moves the
 *     row's max and sum, waits for the last P V, stores P's row (f16 / bf16, two a column) over
 *     S's and rescales O's row in tensor memory (ld, scale, st).  Then O / l and the LSE.
 *
 * The handoffs are each Q tile's pipelines (cutec/pipeline.h): S a PipelineUmmaAsync (the MMA
 * commits, the softmax releases once read), O another (each P V committed, released after
 * the rescale), P a PipelineAsync (the softmax's 128 threads commit, the MMA thread consumes).
 * Not yet here (docs/catalogue.md): a correction warpgroup of its own, the exp2 emulation and
 * lazy rescale, the persistent grid.  Verified on the interpreter and compiled by ptxas for
 * sm_100a; no Blackwell has run it (docs/blackwell.md). */
#include <math.h>

#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"
#include "cutec/umma.h"
#include "kernels/attention/attention_internal.h"

enum {
    WARPGROUP = 128, LOAD_WARP = 0, MMA_WARP = 1, /* warpgroup 0; warpgroups 1.. the softmax */
    MAX_Q = 2,                                    /* Q tiles a block */
    CHUNK = 32,                                   /* O's columns a T2R */
};

typedef struct bw_smem {
    cute_tensor q, k, v, vt;  /* (bm,D); (bn,D,stages) each; V's stages seen as (D,bn,stages) */
    cute_pipeline pq, pk, pv; /* TMA -> MMA: Q (one stage), K, V */
    /* each Q tile's: MMA -> softmax, S computed and O += P V computed; softmax -> MMA, P
     * stored (in S's columns) and O rescaled */
    cute_pipeline ps[MAX_Q], po[MAX_Q], pp[MAX_Q];
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
    cute_pipeline_state k, v, s[MAX_Q], o[MAX_Q], p[MAX_Q];
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
 * the softmax stored P_i and rescaled O_i */
static void issue_attend(cute_ctx *c, const bw_job *j, bw_mma_states *st, int i, cute_val more)
{
    const attn_plan *p = j->p;
    const bw_smem *m = &j->m;
    cute_pipeline_consumer_wait(c, &m->pp[i], &st->p[i], (cute_val){0});
    cute_pipeline_producer_acquire(c, &m->po[i], &st->o[i], (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    cute_umma_gemm_ts(c, &p->umma_o, column(c, j->taddr, o_col(p, i)), column(c, j->taddr, s_col(p, i)),
                      attn_hop_stage(c, m->vt, 3, &st->v), more);
    cute_pipeline_producer_commit(c, &m->po[i], &st->o[i]);
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

/* --- the softmax warps ------------------------------------------------------------------ */

/* a softmax thread's: its Q tile i and row (of the block's bm), the row's running max m and
 * sum l (f32 variables), its lane of tensor memory, its states of tile i's pipelines */
typedef struct bw_row {
    int i;
    cute_int row;
    cute_val m, l;
    cute_val lane; /* taddr with this warp's lanes: (32 (warp % 4)) << 16 */
    cute_pipeline_state s, o, p;
} bw_row;

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

/* S's row of key tile n, masked where the tile needs it, into an (bn) f32 fragment */
static cute_tensor read_scores(cute_ctx *c, const bw_job *j, bw_row *r, cute_int n)
{
    const attn_plan *p = j->p;
    const bw_smem *m = &j->m;
    cute_alg *a = cute_ctx_alg(c);
    cute_val w[256];
    cute_tensor coords = CUTE_SLICE(c, j->t.cS, r->row, CUTE_ALL, n); /* (outside the branch below) */
    cute_tensor rs = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(a, "%lld:1", (long long)p->bn));
    cute_pipeline_consumer_wait(c, &m->ps[r->i], &r->s, (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    cute_tmem_load_32dp32b(c, column(c, r->lane, s_col(p, r->i)), (int)p->bn, w);
    cute_tcgen05_wait_ld(c);
    cute_tcgen05_fence_before_thread_sync(c);
    cute_pipeline_consumer_release(c, &m->ps[r->i], &r->s); /* S read: its columns may take P */
    cute_pipeline_state_advance(c, &r->s);
    cute_tensor_store(c, rs, as_f32(c, w, (int)p->bn, rs.layout.shape));
    CUTE_IF(c, attn_needs_mask(c, p, &j->t, n)) { attn_mask_band(c, rs, coords, j->t.sk, attn_cfg_band(&p->cfg)); }
    return rs;
}

/* O's row times k, CHUNK columns at a time, in tensor memory */
static void rescale_o(cute_ctx *c, const bw_job *j, const bw_row *r, cute_val k)
{
    cute_val w[CHUNK];
    for (int64_t col = 0; col < j->p->d; col += CHUNK) {
        cute_val at = column(c, r->lane, o_col(j->p, r->i) + col);
        cute_tmem_load_32dp32b(c, at, CHUNK, w);
        cute_tcgen05_wait_ld(c);
        for (int i = 0; i < CHUNK; i++) {
            cute_val f = cute_val_bitcast(c, w[i], cute_type_of(CUTE_F32));
            w[i] = cute_val_bitcast(c, cute_val_binop(c, CUTE_OP_MUL, f, k), cute_type_of(CUTE_U32));
        }
        cute_tmem_store(c, CUTE_TMEM_32x32b, CHUNK, false, at, 0, w);
    }
    cute_tcgen05_wait_st(c);
}

/* Key tile n: P = exp2(S scale_log2 - m scale_log2) with the row's new max m, l moved; then
 * (after the first tile) O's row rescaled once the last P V is in, and P stored for the next */
static void softmax_tile(cute_ctx *c, const bw_job *j, bw_row *r, cute_int n, bool first)
{
    const attn_plan *p = j->p;
    const bw_smem *m = &j->m;
    cute_ssa s = cute_tensor_load(c, read_scores(c, j, r, n));
    cute_val mx = cute_val_binop(c, CUTE_OP_MAX, cute_ssa_reduce(c, CUTE_OP_MAX, s), r->m);
    cute_val neg = cute_val_unop(c, CUTE_OP_NEG, scaled(c, mx, j->scale_log2));
    /* exp2(m_old scale_log2 - m_new scale_log2): 0 on the first tile (m_old = -inf) */
    cute_val corr = cute_val_fast(c, CUTE_OP_EXP2, cute_val_fma(c, r->m, j->scale_log2, neg));
    cute_ssa e = cute_ssa_fast(c, CUTE_OP_EXP2, cute_ssa_fma(c, s, cute_ssa_scalar(c, j->scale_log2, s.shape),
                                                             cute_ssa_scalar(c, neg, s.shape)));
    cute_val_assign(c, r->l, cute_val_fma(c, r->l, corr, cute_ssa_reduce(c, CUTE_OP_ADD, e)));
    cute_val_assign(c, r->m, mx);
    cute_ssa words = cute_ssa_words(c, cute_ssa_cvt(c, e, p->cfg.dtype)); /* P's row, two a word */
    if (!first) { /* O += P(n-1) V(n-1) is in: P's columns are free, O's row may be scaled */
        cute_pipeline_consumer_wait(c, &m->po[r->i], &r->o, (cute_val){0});
        cute_tcgen05_fence_after_thread_sync(c);
    }
    cute_val w[128];
    for (int i = 0; i < words.n; i++) w[i] = cute_ssa_get(c, words, i);
    cute_pipeline_producer_acquire(c, &m->pp[r->i], &r->p, (cute_val){0});
    cute_tmem_store(c, CUTE_TMEM_32x32b, words.n, false, column(c, r->lane, s_col(p, r->i)), 0, w);
    if (!first) rescale_o(c, j, r, corr); /* (after P's store: P's registers are free) */
    cute_tcgen05_wait_st(c);
    cute_tcgen05_fence_before_thread_sync(c);
    if (!first) {
        cute_pipeline_consumer_release(c, &m->po[r->i], &r->o);
        cute_pipeline_state_advance(c, &r->o);
    }
    cute_pipeline_producer_commit(c, &m->pp[r->i], &r->p);
    cute_pipeline_state_advance(c, &r->p);
}

/* chunk `col` of row tid of a (bm, D) tile: (CHUNK) */
static cute_tensor row_chunk(cute_ctx *c, cute_tensor tile, cute_int tid, int64_t col)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor cols = cute_tensor_local_tile(c, tile, cute_tuple_fmt(a, "(1,%d)", CHUNK),
                                              cute_tuple_fmt(a, "(%I,%lld)", tid, (long long)(col / CHUNK)), NULL);
    return cute_tensor_slice(c, cols, cute_tuple_fmt(a, "(0,_)"));
}

/* O's row / l (0 for a row with no key) and its LSE, stored where the row is inside Sq; with
 * no key tile (have 0) nothing is read from tensor memory */
static void epilogue(cute_ctx *c, const bw_job *j, bw_row *r, bool have)
{
    const attn_plan *p = j->p;
    const attn_block *t = &j->t;
    cute_alg *a = cute_ctx_alg(c);
    cute_val zero = cute_val_const(c, CUTE_F32, 0), one = cute_val_const(c, CUTE_F32, 1);
    cute_val some = cute_val_cmp(c, CUTE_OP_GT, r->l, zero);
    cute_val inv = cute_val_select(c, some, cute_val_binop(c, CUTE_OP_DIV, one, r->l), one);
    cute_val in = cute_int_lt(c, cute_add(a, cute_mul(a, t->m_block, cute_i(p->bm)), r->row), t->sq);
    if (have) {
        cute_pipeline_consumer_wait(c, &j->m.po[r->i], &r->o, (cute_val){0});
        cute_tcgen05_fence_after_thread_sync(c);
    }
    for (int64_t col = 0; col < p->d; col += CHUNK) {
        cute_tensor g = row_chunk(c, t->gO, r->row, col);
        cute_ssa o = cute_ssa_scalar(c, zero, g.layout.shape);
        if (have) {
            cute_val w[CHUNK];
            cute_tmem_load_32dp32b(c, column(c, r->lane, o_col(p, r->i) + col), CHUNK, w);
            cute_tcgen05_wait_ld(c);
            o = cute_ssa_binop(c, CUTE_OP_MUL, as_f32(c, w, CHUNK, g.layout.shape),
                               cute_ssa_scalar(c, inv, g.layout.shape));
        }
        CUTE_IF(c, in) { cute_tensor_store(c, g, cute_ssa_cvt(c, o, p->cfg.dtype)); }
    }
    if (have) {
        cute_tcgen05_fence_before_thread_sync(c);
        cute_pipeline_consumer_release(c, &j->m.po[r->i], &r->o);
    }
    if (!p->cfg.lse) return;
    /* ln(sum exp(s scale)) = ln2 (m scale_log2 + log2 l) */
    cute_val log2l = cute_val_binop(c, CUTE_OP_ADD, scaled(c, r->m, j->scale_log2), cute_val_unop(c, CUTE_OP_LOG2, r->l));
    cute_val lse = cute_val_binop(c, CUTE_OP_MUL, log2l, cute_val_const(c, CUTE_F32, 0.69314718055994531));
    cute_tensor gl = CUTE_SLICE(c, t->gL, r->row, 0);
    CUTE_IF(c, in) { cute_tensor_store(c, gl, cute_ssa_scalar(c, lse, gl.layout.shape)); }
}

/* Q tile i's softmax warpgroup; tid: the thread's index in it (its row of the tile) */
static void softmax(cute_ctx *c, const bw_job *j, int i, cute_int tid)
{
    const attn_block *t = &j->t;
    cute_alg *a = cute_ctx_alg(c);
    cute_val lanes = cute_val_binop(c, CUTE_OP_SHL, cute_int_value(c, cute_div(a, tid, cute_i(32)), CUTE_U32),
                                    u32(c, 16 + 5));
    bw_row r = {i, cute_add(a, tid, cute_i((int64_t)i * WARPGROUP)),
                cute_val_var(c, cute_val_const(c, CUTE_F32, -INFINITY)), cute_val_var(c, cute_val_const(c, CUTE_F32, 0)),
                cute_val_binop(c, CUTE_OP_ADD, j->taddr, lanes),
                cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1),
                cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1),
                cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1)};
    CUTE_IF(c, cute_int_lt(c, t->n_begin, t->n_end)) {
        softmax_tile(c, j, &r, t->n_begin, true);
        CUTE_FOR(c, n, cute_add(a, t->n_begin, cute_i(1)), t->n_end) { softmax_tile(c, j, &r, n, false); }
        epilogue(c, j, &r, true);
    }
    CUTE_ELSE(c) { epilogue(c, j, &r, false); }
}

/* --- the block -------------------------------------------------------------------------- */

/* the MMA warp allocates the columns; every thread reads their address */
static cute_val tmem_alloc(cute_ctx *c, cute_smem_allocator *al, const attn_plan *p, cute_int warp)
{
    cute_tensor slot = cute_make_tensor(c, cute_smem_alloc_array(c, al, CUTE_U32, 1, 4),
                                        cute_layout_parse(cute_ctx_alg(c), "1:0"), 4);
    CUTE_IF(c, cute_int_eq(c, warp, cute_i(MMA_WARP))) {
        cute_tmem_alloc(c, cute_tensor_ptr(c, slot, cute_i(0)), p->tmem_columns);
        cute_tmem_relinquish_alloc_permit(c);
    }
    cute_tcgen05_fence_before_thread_sync(c);
    cute_barrier(c);
    cute_tcgen05_fence_after_thread_sync(c);
    return cute_ssa_get(c, cute_tensor_load(c, slot), 0);
}

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
    int64_t boxes = p->d / 64; /* a box a 64-column block */
    m->pq = cute_pipeline_tma_umma_create(c, &al, 1, p->tma_q.bytes * boxes);
    m->pk = cute_pipeline_tma_umma_create(c, &al, p->stages, p->tma_k.bytes * boxes);
    m->pv = cute_pipeline_tma_umma_create(c, &al, p->stages, p->tma_v.bytes * boxes);
    for (int i = 0; i < p->consumers; i++) {
        m->ps[i] = cute_pipeline_umma_async_create(c, &al, 1, WARPGROUP);
        m->po[i] = cute_pipeline_umma_async_create(c, &al, 1, WARPGROUP);
        m->pp[i] = cute_pipeline_async_create(c, &al, 1, WARPGROUP, 1);
    }
    j->taddr = tmem_alloc(c, &al, p, warp);
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
    /* (no setmaxnreg: the softmax fits the 168 registers of 384 threads, and the MMA thread's
     * descriptors spill below about 96) */
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(WARPGROUP))) {
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
        cute_int in = cute_sub(a, tid, cute_i(WARPGROUP)); /* the thread's index among the softmax threads */
        cute_int wg = cute_div(a, in, cute_i(WARPGROUP)), row = cute_mod(a, in, cute_i(WARPGROUP));
        for (int i = 0; i < p->consumers; i++)
            CUTE_IF(c, cute_int_eq(c, wg, cute_i(i))) { softmax(c, &j, i, row); }
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
