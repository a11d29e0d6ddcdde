/* The forward kernel, FlashAttention 2 as CuTe DSL's ampere/flash_attention_v2.py writes it:
 * one block per (128-row Q tile, head, batch; 64 rows at head dim 256), 4 warps of 16 rows of
 * every 64.  Q is loaded
 * once into swizzled shared memory; each K/V tile of the loop is loaded by cp.async into a
 * shared tile of its own, so K of tile n+1 lands while P V of tile n runs and V of tile n
 * while Q K^T of tile n runs:
 *
 *   wait K(n), barrier; issue V(n)     S = Q K(n)^T (ldmatrix, mma.sync)     mask, softmax
 *   wait V(n), barrier; issue K(n+1)   P = S in f16/bf16, in registers      O += P V(n)
 *
 * The barrier before each issue also says every warp is done reading the tile the issue
 * overwrites.  With two stages (kv_stages 2) K(n+1) and V(n+1) are both issued after the
 * one barrier at the top of tile n.  The online softmax (softmax.c) keeps each row's running
 * max and sum in registers, over the whole tile or (block_n 32) two 32-key steps of it; O is
 * divided by the sum once, at the end, and stored with the log-sum-exp. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/attention/attention_internal.h"

static cute_tensor rows_of(cute_ctx *c, cute_tensor t, cute_int b, cute_int h)
{
    return CUTE_SLICE(c, t, b, CUTE_ALL, h, CUTE_ALL);
}

cute_int attn_q_tile(cute_ctx *c, const attn_plan *p, cute_int sq, cute_int x)
{
    cute_alg *a = cute_ctx_alg(c);
    if (!p->cfg.causal) return x;
    /* (0 for a block past a packed sequence's end: fwd_varlen.c) */
    return cute_max(a, cute_i(0), cute_sub(a, cute_ceil_div(a, sq, cute_i(p->bm)), cute_add(a, x, cute_i(1))));
}

cute_tensor attn_lse_tile(cute_ctx *c, const attn_plan *p, cute_tensor mL, cute_int b, cute_int h,
                          cute_int m_block)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor rows = cute_tensor_local_tile(c, CUTE_SLICE(c, mL, b, h, CUTE_ALL),
                                              cute_tuple_fmt(a, "(%lld)", (long long)p->bm), CUTE_CRD(m_block), NULL);
    cute_layout bcast = cute_layout_fmt(a, "(%lld,%lld):(1,0)", (long long)p->bm, (long long)p->d);
    cute_tiler bt = cute_tiler_layout(&bcast);
    return cute_tensor_compose(c, rows, &bt);
}

/* the identity tensors of Q (Sq,D), K (Sk,D) and S (Sq,Sk), tiled as their data */
void attn_coord_tiles(cute_ctx *c, const attn_plan *p, attn_block *t)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple qt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->d);
    cute_tuple kt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bn, (long long)p->d);
    cute_tuple st = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    cute_tensor q = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", t->sq, (long long)p->d));
    cute_tensor k = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", t->sk, (long long)p->d));
    cute_tensor s = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%I)", t->sq, t->sk));
    t->cQ = cute_tensor_local_tile(c, q, qt, CUTE_CRD(t->m_block, 0), NULL);
    t->cK = cute_tensor_local_tile(c, k, kt, CUTE_CRD(CUTE_ALL, 0), NULL);
    t->cS = cute_tensor_local_tile(c, s, st, CUTE_CRD(t->m_block, CUTE_ALL), NULL);
}

attn_block attn_block_tiles(cute_ctx *c, const attn_plan *p, cute_tensor mQ, cute_tensor mK,
                            cute_tensor mV, cute_tensor mO, cute_tensor mL)
{
    attn_seq seq = {cute_block_idx(c, 2), cute_block_idx(c, 2), cute_i(0), cute_i(0), mQ.layout.shape.leaf[1],
                    mK.layout.shape.leaf[1]};
    const cute_tensor m[5] = {mQ, mK, mV, mO, mL};
    return attn_block_tiles_seq(c, p, m, &seq);
}

/* rows h of batch b of a (B,S,H,D) tensor from row r0 on */
static cute_tensor seq_rows(cute_ctx *c, cute_tensor t, cute_int b, cute_int h, cute_int r0)
{
    return cute_tensor_domain_offset(c, rows_of(c, t, b, h), CUTE_CRD(r0, 0));
}

attn_block attn_block_tiles_seq(cute_ctx *c, const attn_plan *p, const cute_tensor m[5], const attn_seq *seq)
{
    return attn_block_tiles_at(c, p, m, seq, cute_block_idx(c, 2), cute_block_idx(c, 1),
                               attn_q_tile(c, p, seq->sq, cute_block_idx(c, 0)));
}

attn_block attn_block_tiles_at(cute_ctx *c, const attn_plan *p, const cute_tensor m[5], const attn_seq *seq, cute_int b,
                               cute_int h, cute_int m_block)
{
    cute_alg *a = cute_ctx_alg(c);
    attn_block t;
    t.sq = seq->sq, t.sk = seq->sk;
    t.m_block = m_block;
    /* grouped-query: H / G query heads share a key/value head */
    cute_int hk = cute_div(a, h, cute_div(a, m[0].layout.shape.leaf[2], m[1].layout.shape.leaf[2]));
    t.b = b, t.h = h, t.hk = hk;
    cute_tuple qt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->d);
    cute_tuple kt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bn, (long long)p->d);
    cute_tuple at_m = CUTE_CRD(t.m_block, 0), every = CUTE_CRD(CUTE_ALL, 0);
    t.gQ = cute_tensor_local_tile(c, seq_rows(c, m[0], seq->qb, h, seq->q0), qt, at_m, NULL);
    t.gO = cute_tensor_local_tile(c, seq_rows(c, m[3], seq->qb, h, seq->q0), qt, at_m, NULL);
    t.gK = cute_tensor_local_tile(c, seq_rows(c, m[1], seq->kb, hk, seq->k0), kt, every, NULL);
    t.gV = cute_tensor_local_tile(c, seq_rows(c, m[2], seq->kb, hk, seq->k0), kt, every, NULL);
    attn_coord_tiles(c, p, &t);
    attn_key_range(c, p, t.sk, t.m_block, &t.n_begin, &t.n_end);
    if (p->cfg.lse) /* the LSE (B,H,Sq) of the sequence's rows */
        t.gL = attn_lse_tile(c, p, cute_tensor_domain_offset(c, m[4], CUTE_CRD(0, 0, seq->q0)), seq->qb, h, t.m_block);
    return t;
}

/* tile n of K or V, its rows from `rows` on zero-filled (no global read) */
static void load_kv_rows(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_tensor g, cute_int n,
                         cute_tensor s, cute_int rows)
{
    attn_load_tile(c, p, CUTE_SLICE(c, g, CUTE_ALL, CUTE_ALL, n), CUTE_SLICE(c, t->cK, CUTE_ALL, CUTE_ALL, n),
                   rows, s);
    cute_cp_async_commit_group(c);
}

static void load_kv(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_tensor g, cute_int n,
                    cute_tensor s)
{
    load_kv_rows(c, p, t, g, n, s, t->sk);
}

cute_val attn_needs_mask(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_int n)
{
    return attn_tile_needs_mask(c, p, t->sk, t->m_block, n);
}

/* the shared tiles; with two stages K's and V's (bn, D, 2) (kst, vst) and the stage in use */
typedef struct attn_smem {
    cute_tensor q, k, v, vt; /* vt: V seen as (D, bn), the B operand of P V */
    cute_tensor kst, vst;
} attn_smem;

static attn_smem smem_tiles(cute_ctx *c, const attn_plan *p)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_dtype d = p->cfg.dtype;
    attn_smem s = {0};
    s.q = cute_smem_alloc_tensor_composed(c, &A, d, p->smem_q, 16);
    s.k = cute_smem_alloc_tensor_composed(c, &A, d, p->smem_kv, 16);
    s.v = cute_smem_alloc_tensor_composed(c, &A, d, p->smem_kv, 16);
    if (p->stages > 1) {
        s.kst = s.k, s.vst = s.v;
        s.k = CUTE_SLICE(c, s.kst, CUTE_ALL, CUTE_ALL, 0);
        s.v = CUTE_SLICE(c, s.vst, CUTE_ALL, CUTE_ALL, 0);
    }
    s.vt = attn_transposed(c, p, s.v, p->bn);
    return s;
}

/* O's rows inside Sq, from thread thr's accumulators, in O's dtype */
void attn_store_o(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, const attn_block *t, cute_tensor acc_o)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_ssa in = cute_elem_less(c, cute_partition_C(c, thr, t->cQ), cute_tuple_fmt(a, "(%I,%lld)", t->sq, (long long)p->d));
    cute_tensor_store_if(c, cute_partition_C(c, thr, t->gO), cute_ssa_cvt(c, cute_tensor_load(c, acc_o), (cute_dtype)t->gO.dtype), in);
}

void attn_epilogue(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, const attn_block *t,
                   attn_rows *r, cute_tensor acc_o, cute_val scale_log2)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_val lse[8];
    attn_softmax_finish(c, r, acc_o, scale_log2, lse, p->fast_finish);
    attn_store_o(c, p, thr, t, acc_o);
    if (!p->cfg.lse) return;
    cute_tensor cO = cute_partition_C(c, thr, t->cQ);
    /* each row's value from the thread holding its column 0 */
    cute_tensor gl = attn_rowcol(c, cute_partition_C(c, thr, t->gL)), cl = attn_rowcol(c, cO);
    cute_layout first = cute_layout_parse(a, "1:0");
    cute_tiler one = cute_tiler_layout(&first);
    for (int i = 0; i < r->n; i++) {
        cute_tensor li = cute_tensor_compose(c, CUTE_SLICE(c, gl, i, CUTE_ALL), &one);
        cute_tensor ci = cute_tensor_compose(c, CUTE_SLICE(c, cl, i, CUTE_ALL), &one);
        cute_ssa here = cute_elem_less(c, ci, cute_tuple_fmt(a, "(%I,1)", t->sq));
        cute_tensor_store_if(c, li, cute_ssa_scalar(c, lse[i], li.layout.shape), here);
    }
}

/* The key tile's softmax steps (p->step_n keys each; one, or two at block_n 32): each
 * step's scores in an accumulator of their own, from its rows of K and columns of V^T */
typedef struct attn_steps {
    int n;
    attn_operand k[2], vt[2];
    cute_tensor acc_s[2];
} attn_steps;

static int64_t step_keys(const attn_plan *p, const attn_steps *st)
{
    return p->bn / st->n;
}

/* the steps' K and V^T operands on the shared tiles s holds now */
static void steps_operands(cute_ctx *c, const attn_plan *p, const attn_smem *s, attn_steps *st)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t w = step_keys(p, st);
    cute_tuple kt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)w, (long long)p->d);
    cute_tuple vt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->d, (long long)w);
    for (int j = 0; j < st->n; j++) {
        st->k[j] = attn_operand_make(c, p, &p->s2r_k, cute_tensor_local_tile(c, s->k, kt, CUTE_CRD(j, 0), NULL),
                                     false);
        st->vt[j] = attn_operand_make(c, p, &p->s2r_v, cute_tensor_local_tile(c, s->vt, vt, CUTE_CRD(0, j), NULL),
                                      false);
    }
}

static attn_steps steps_make(cute_ctx *c, const attn_plan *p, const attn_smem *s, cute_thr_mma thr,
                             const attn_block *t)
{
    cute_alg *a = cute_ctx_alg(c);
    attn_steps st = {.n = p->step_n && p->step_n < p->bn ? (int)(p->bn / p->step_n) : 1};
    cute_tuple sc = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)step_keys(p, &st));
    cute_tensor scores = CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, 0);
    steps_operands(c, p, s, &st);
    for (int j = 0; j < st.n; j++) {
        st.acc_s[j] = cute_partition_fragment_C(c, thr, cute_tensor_local_tile(c, scores, sc, CUTE_CRD(0, j), NULL));
        cute_clear(c, st.acc_s[j]);
    }
    return st;
}

/* what the loop over key tiles carries */
typedef struct attn_loop {
    attn_smem s;
    attn_operand q;
    attn_steps st;
    cute_thr_mma thr;
    cute_tensor acc_o;
    attn_rows r;
    cute_val scale_log2;
} attn_loop;

/* S of every step of key tile n, masked where the tile needs it */
static void tile_scores(cute_ctx *c, const attn_plan *p, const attn_block *t, attn_loop *l, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple sc = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)step_keys(p, &l->st));
    for (int j = 0; j < l->st.n; j++) attn_gemm_ss(c, p, &l->q, &l->st.k[j], l->st.acc_s[j]);
    CUTE_IF(c, attn_needs_mask(c, p, t, n)) {
        for (int j = 0; j < l->st.n; j++) {
            cute_tensor cs = cute_tensor_local_tile(c, CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, n), sc,
                                                    CUTE_CRD(0, j), NULL);
            attn_mask_band(c, l->st.acc_s[j], cute_partition_C(c, l->thr, cs), t->sk, attn_cfg_band(&p->cfg));
        }
    }
}

/* with two stages: K(n+1) and V(n+1) into the stage tile n - 1 used, a tile ahead; tile n's
 * stage in use */
static void next_stage(cute_ctx *c, const attn_plan *p, const attn_block *t, attn_loop *l, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int next = cute_add(a, n, cute_i(1)), other = cute_mod(a, next, cute_i(2));
    cute_int rows = cute_min(a, t->sk, cute_mul(a, t->n_end, cute_i(p->bn)));
    load_kv_rows(c, p, t, t->gK, next, CUTE_SLICE(c, l->s.kst, CUTE_ALL, CUTE_ALL, other), rows);
    load_kv_rows(c, p, t, t->gV, next, CUTE_SLICE(c, l->s.vst, CUTE_ALL, CUTE_ALL, other), rows);
    cute_int mine = cute_mod(a, n, cute_i(2));
    l->s.k = CUTE_SLICE(c, l->s.kst, CUTE_ALL, CUTE_ALL, mine);
    l->s.v = CUTE_SLICE(c, l->s.vst, CUTE_ALL, CUTE_ALL, mine);
    l->s.vt = attn_transposed(c, p, l->s.v, p->bn);
    steps_operands(c, p, &l->s, &l->st);
}

/* the online softmax of one step's scores: lazy (the SM80 forward's) or FlashAttention 2's
 * (decode's) */
static void softmax(cute_ctx *c, const attn_plan *p, attn_loop *l, cute_tensor acc_s)
{
    if (p->rescale_lazy) attn_softmax_tile_lazy(c, &l->r, acc_s, l->acc_o, l->scale_log2, p->cfg.causal);
    else attn_softmax_tile(c, &l->r, acc_s, l->acc_o, l->scale_log2);
}

/* key tile n: S, the softmax, O += P V.  One stage: V(n) issued once K(n) has landed, K(n+1)
 * (if any) once V(n) has and every warp is done with K(n).  Two: both a tile ahead, one
 * barrier a tile; past the last tile every row of the next lies at or past min(Sk, n_end bn),
 * so its copies only zero-fill shared tiles nobody reads.  With two steps, the second's
 * softmax runs under the first's P V.  (Both are measured slower than one stage of 64-key
 * steps on an H200; so is K(n+1) issued without the branch, which lets ptxas spread the
 * softmax's exps among P V's HMMAs: bench/RESULTS.md, session 29.) */
static void tile_step(cute_ctx *c, const attn_plan *p, const attn_block *t, attn_loop *l, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_cp_async_wait_group(c, 0); /* K(n) (two stages: and V(n); the first time, Q) has landed */
    cute_barrier(c);
    if (p->stages > 1) next_stage(c, p, t, l, n);
    else load_kv(c, p, t, t->gV, n, l->s.v);
    tile_scores(c, p, t, l, n);
    softmax(c, p, l, l->st.acc_s[0]);
    if (p->stages < 2) {
        cute_cp_async_wait_group(c, 0); /* V(n) has landed; every warp is done with K(n) */
        cute_barrier(c);
        cute_int next = cute_add(a, n, cute_i(1));
        CUTE_IF(c, cute_int_lt(c, next, t->n_end)) { load_kv(c, p, t, t->gK, next, l->s.k); }
    }
    for (int j = 0; j < l->st.n; j++) {
        attn_gemm_rs(c, p, l->st.acc_s[j], &l->st.vt[j], l->acc_o);
        if (j + 1 < l->st.n) softmax(c, p, l, l->st.acc_s[j + 1]);
    }
}

void attn_fwd_body(cute_ctx *c, const attn_plan *p, const attn_block *tp, cute_val scale_log2)
{
    cute_alg *a = cute_ctx_alg(c);
    attn_block t = *tp;
    attn_loop l = {.s = smem_tiles(c, p), .scale_log2 = scale_log2};
    attn_load_tile(c, p, t.gQ, t.cQ, t.sq, l.s.q);
    if (p->stages > 1) { /* tile n_begin's K and V into its stage */
        cute_int first = cute_mod(a, t.n_begin, cute_i(2));
        load_kv(c, p, &t, t.gK, t.n_begin, CUTE_SLICE(c, l.s.kst, CUTE_ALL, CUTE_ALL, first));
        load_kv(c, p, &t, t.gV, t.n_begin, CUTE_SLICE(c, l.s.vst, CUTE_ALL, CUTE_ALL, first));
    } else {
        load_kv(c, p, &t, t.gK, t.n_begin, l.s.k);
    }
    l.q = attn_operand_make(c, p, &p->s2r_q, l.s.q, true);
    l.thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0));
    l.acc_o = cute_partition_fragment_C(c, l.thr, t.gO);
    cute_clear(c, l.acc_o);
    l.st = steps_make(c, p, &l.s, l.thr, &t);
    cute_layout rows_mode = cute_get(a, &l.acc_o.layout, 1);
    l.r = attn_rows_start(c, 2 * (int)cute_size(a, &rows_mode).v);
    CUTE_FOR(c, n, t.n_begin, t.n_end) { tile_step(c, p, &t, &l, n); }
    cute_cp_async_wait_group(c, 0); /* a Q tile whose band holds no key loaded Q and K all the same */
    attn_epilogue(c, p, l.thr, &t, &l.r, l.acc_o, scale_log2);
}

static void fwd_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mO,
                       cute_tensor mL, cute_val scale_log2)
{
    const attn_plan *p = cute_ctx_user(c);
    attn_block t = attn_block_tiles(c, p, mQ, mK, mV, mO, mL);
    attn_fwd_body(c, p, &t, scale_log2);
}

void attn_fwd_host(cute_ctx *c, const cute_arg *arg)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mQ = arg[0].tensor, mL = p->cfg.lse ? arg[5].tensor : arg[3].tensor;
    const cute_int *e = mQ.layout.shape.leaf; /* (B, Sq, H, D) */
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0]},
                           .block = {cute_i(p->threads)}};
    /* V with K's layout (the library checks that the strides agree): both tiles' cp.async
     * then share their offsets, 32 fewer registers live across the loop at head dim 128 */
    cute_tensor mV = arg[2].tensor;
    mV.layout = arg[1].tensor.layout;
    CUTE_LAUNCH(c, fwd_kernel, cfg, mQ, arg[1].tensor, mV, arg[3].tensor, mL, arg[4].f);
}
