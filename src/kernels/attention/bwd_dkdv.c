/* The backward's dK/dV kernel: one block of 4 warps per (64 key rows, key/value head,
 * batch), K and V resident in shared memory; for each query head of its group and each
 * query tile that sees its keys, Q and dO loaded by cp.async into one of two stages (the
 * next tile's in flight while this one's products run) and
 *
 *   S^T = K Q^T, dP^T = V dO^T          (K and V the A operands, Q and dO K-major B)
 *   mask; P^T and dS^T per column (the query's LSE and D; bwd_step.c)
 *   dV += P^T dO, dK += dS^T Q          (P^T, dS^T in registers as A; dO^T, Q^T by ldmatrix.trans)
 *
 * so the sums over a group's heads (grouped-query) are one block's, in order.  At the end dK
 * times the softmax scale. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/attention/attention_bwd.h"

typedef struct kv_block {
    cute_tensor gK, gV, gdK, gdV, cK; /* (bn, D) */
    cute_int b, hk, n_block, sq, sk, group;
    cute_int m_first, m_count; /* the query tiles each head visits */
} kv_block;

static kv_block kv_tiles(cute_ctx *c, const attn_plan *p, const cute_tensor *m)
{
    cute_alg *a = cute_ctx_alg(c);
    kv_block t;
    t.n_block = cute_block_idx(c, 0), t.hk = cute_block_idx(c, 1), t.b = cute_block_idx(c, 2);
    t.sq = m[0].layout.shape.leaf[1], t.sk = m[1].layout.shape.leaf[1];
    t.group = cute_div(a, m[0].layout.shape.leaf[2], m[1].layout.shape.leaf[2]);
    t.gK = attn_bwd_rows_tile(c, p, m[1], t.b, t.hk, t.n_block, p->bn);
    t.gV = attn_bwd_rows_tile(c, p, m[2], t.b, t.hk, t.n_block, p->bn);
    t.gdK = attn_bwd_rows_tile(c, p, m[3], t.b, t.hk, t.n_block, p->bn);
    t.gdV = attn_bwd_rows_tile(c, p, m[4], t.b, t.hk, t.n_block, p->bn);
    cute_tensor id = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", t.sk, (long long)p->d));
    t.cK = cute_tensor_local_tile(c, id, cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bn, (long long)p->d),
                                  CUTE_CRD(t.n_block, 0), NULL);
    /* causal: query i sees key j when j <= i, so the first tile holding a query >= the
     * block's first key */
    cute_int all = cute_ceil_div(a, t.sq, cute_i(p->bm));
    t.m_first = p->cfg.causal ? cute_min(a, all, cute_div(a, cute_mul(a, t.n_block, cute_i(p->bn)), cute_i(p->bm)))
                              : cute_i(0);
    t.m_count = cute_sub(a, all, t.m_first);
    return t;
}

typedef struct kv_smem {
    cute_tensor k, v;     /* (64, D) */
    cute_tensor q, dout;  /* (64, D, 2): two stages, the next tile landing while this one is used */
} kv_smem;

static kv_smem kv_smem_tiles(cute_ctx *c, const attn_plan *p)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_composed two = attn_smem_tile(cute_ctx_alg(c), p->cfg.dtype, p->bm, p->d, 2);
    kv_smem s;
    s.k = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, p->smem_kv, 16);
    s.v = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, p->smem_kv, 16);
    s.q = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, two, 16);
    s.dout = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, two, 16);
    return s;
}

/* step `it` of the block's loop: query head h of the group, query tile mb */
static void step_of(cute_ctx *c, const kv_block *t, cute_int it, cute_int *h, cute_int *mb)
{
    cute_alg *a = cute_ctx_alg(c);
    *h = cute_add(a, cute_mul(a, t->hk, t->group), cute_div(a, it, t->m_count));
    *mb = cute_add(a, t->m_first, cute_mod(a, it, t->m_count));
}

/* one query tile (h, m): its Q and dO into shared memory, and S^T's coordinates (key j,
 * query i) with the (bn, bm) views of the LSE and D along the queries */
typedef struct q_step {
    cute_tensor cS, gL, gD;
} q_step;

static cute_tensor along_queries(cute_ctx *c, const attn_plan *p, cute_tensor mL, const kv_block *t, cute_int h,
                                 cute_int m)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor cols = cute_tensor_local_tile(c, CUTE_SLICE(c, mL, t->b, h, CUTE_ALL),
                                              cute_tuple_fmt(a, "(%lld)", (long long)p->bm), CUTE_CRD(m), NULL);
    cute_layout bcast = cute_layout_fmt(a, "(%lld,%lld):(0,1)", (long long)p->bn, (long long)p->bm);
    cute_tiler bt = cute_tiler_layout(&bcast);
    return cute_tensor_compose(c, cols, &bt);
}

/* step it's Q and dO tiles into stage it % 2 (not committed) */
static void issue_q_tile(cute_ctx *c, const attn_plan *p, const cute_tensor *m, const kv_block *t, cute_int it,
                         const kv_smem *s)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int h, mb, stage = cute_mod(a, it, cute_i(2));
    step_of(c, t, it, &h, &mb);
    cute_tensor idq = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", t->sq, (long long)p->d));
    cute_tensor cQ = cute_tensor_local_tile(c, idq, cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->d),
                                            CUTE_CRD(mb, 0), NULL);
    attn_load_tile(c, p, attn_bwd_rows_tile(c, p, m[0], t->b, h, mb, p->bm), cQ, t->sq,
                   CUTE_SLICE(c, s->q, CUTE_ALL, CUTE_ALL, stage));
    attn_load_tile(c, p, attn_bwd_rows_tile(c, p, m[5], t->b, h, mb, p->bm), cQ, t->sq,
                   CUTE_SLICE(c, s->dout, CUTE_ALL, CUTE_ALL, stage));
}

static q_step step_tiles(cute_ctx *c, const attn_plan *p, const cute_tensor *m, const kv_block *t, cute_int h,
                         cute_int mb)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor ids = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%I)", t->sk, t->sq));
    q_step q = {cute_tensor_local_tile(c, ids, cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bn, (long long)p->bm),
                                       CUTE_CRD(t->n_block, mb), NULL),
                along_queries(c, p, m[6], t, h, mb), along_queries(c, p, m[7], t, h, mb)};
    return q;
}

/* S^T of (key tile, query tile mb) needs the mask: queries past Sq, or (causal) a key after
 * the tile's first query */
static cute_val needs_mask(cute_ctx *c, const attn_plan *p, const kv_block *t, cute_int mb)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int first_q = cute_mul(a, mb, cute_i(p->bm));
    cute_val tail = cute_int_lt(c, t->sq, cute_add(a, first_q, cute_i(p->bm)));
    if (!p->cfg.causal) return tail;
    cute_int last_k = cute_add(a, cute_mul(a, t->n_block, cute_i(p->bn)), cute_i(p->bn - 1));
    return cute_val_binop(c, CUTE_OP_OR, tail, cute_int_lt(c, first_q, last_k));
}

/* the accumulators of one block */
typedef struct kv_acc {
    cute_tensor dk, dv, s, dp; /* (bn, D) twice, (bn, bm) twice */
} kv_acc;

typedef struct kv_ops {
    attn_operand k, v, q, dout, qt, dot;
} kv_ops;

/* K and V's operands, and Q's and dO's of stage `stage` */
static kv_ops kv_operands(cute_ctx *c, const attn_plan *p, const kv_smem *s, cute_int stage)
{
    cute_tensor q = CUTE_SLICE(c, s->q, CUTE_ALL, CUTE_ALL, stage), dout = CUTE_SLICE(c, s->dout, CUTE_ALL, CUTE_ALL, stage);
    kv_ops o = {attn_operand_make(c, p, &p->s2r_q, s->k, true), attn_operand_make(c, p, &p->s2r_q, s->v, true),
                attn_operand_make(c, p, &p->s2r_k, q, false), attn_operand_make(c, p, &p->s2r_k, dout, false),
                attn_operand_make(c, p, &p->s2r_v, attn_transposed(c, p, q, p->bm), false),
                attn_operand_make(c, p, &p->s2r_v, attn_transposed(c, p, dout, p->bm), false)};
    return o;
}

/* one query tile's part of dK and dV */
static void q_tile_step(cute_ctx *c, const attn_plan *p, const kv_block *t, const q_step *q, const kv_ops *o,
                        kv_acc *acc, cute_int mb, cute_val scale_log2)
{
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0));
    attn_gemm_ss(c, p, &o->k, &o->q, acc->s);
    attn_gemm_ss(c, p, &o->v, &o->dout, acc->dp);
    cute_tensor cs = cute_partition_C(c, thr, q->cS);
    CUTE_IF(c, needs_mask(c, p, t, mb)) {
        attn_mask_band(c, acc->s, cs, t->sq, (attn_band){.has_lo = p->cfg.causal, .lo = 0});
    }
    cute_tuple bound = cute_tuple_fmt(cute_ctx_alg(c), "(%I,%I)", t->sk, t->sq);
    attn_bwd_grads_loading(c, acc->s, acc->dp, cute_partition_C(c, thr, q->gL), cute_partition_C(c, thr, q->gD), cs,
                           bound, false, scale_log2);
    attn_gemm_rs(c, p, acc->s, &o->dot, acc->dv);
    attn_gemm_rs(c, p, acc->dp, &o->qt, acc->dk);
}

static void dkdv_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mdK, cute_tensor mdV,
                        cute_tensor mdO, cute_tensor mL, cute_tensor mD, cute_val scale_log2, cute_val scale)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    const cute_tensor m[8] = {mQ, mK, mV, mdK, mdV, mdO, mL, mD};
    kv_block t = kv_tiles(c, p, m);
    kv_smem s = kv_smem_tiles(c, p);
    attn_load_tile(c, p, t.gK, t.cK, t.sk, s.k);
    attn_load_tile(c, p, t.gV, t.cK, t.sk, s.v);
    cute_int steps = cute_mul(a, t.group, t.m_count); /* every (head of the group, query tile), in order */
    CUTE_IF(c, cute_int_lt(c, cute_i(0), steps)) { issue_q_tile(c, p, m, &t, cute_i(0), &s); }
    cute_cp_async_commit_group(c);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0));
    kv_acc acc = {cute_partition_fragment_C(c, thr, t.gK), cute_partition_fragment_C(c, thr, t.gV), {0}, {0}};
    cute_tensor st = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bn, (long long)p->bm));
    acc.s = cute_partition_fragment_C(c, thr, st);
    acc.dp = cute_make_fragment_like(c, acc.s);
    cute_clear(c, acc.dk);
    cute_clear(c, acc.dv);
    CUTE_FOR(c, it, cute_i(0), steps) {
        cute_int next = cute_add(a, it, cute_i(1)), h, mb;
        CUTE_IF(c, cute_int_lt(c, next, steps)) { issue_q_tile(c, p, m, &t, next, &s); }
        cute_cp_async_commit_group(c); /* (empty at the last step: the wait below stays one group behind) */
        cute_cp_async_wait_group(c, 1); /* step it's tiles (and, the first time, K and V) have landed */
        cute_barrier(c);
        step_of(c, &t, it, &h, &mb);
        q_step q = step_tiles(c, p, m, &t, h, mb);
        kv_ops o = kv_operands(c, p, &s, cute_mod(a, it, cute_i(2)));
        q_tile_step(c, p, &t, &q, &o, &acc, mb, scale_log2);
        cute_barrier(c); /* every warp is done with this stage before step it + 1 refills it */
    }
    cute_cp_async_wait_group(c, 0); /* a block whose keys no query sees loaded K and V all the same */
    attn_bwd_store(c, p, thr, acc.dk, &scale, t.gdK, t.cK, t.sk);
    attn_bwd_store(c, p, thr, acc.dv, NULL, t.gdV, t.cK, t.sk);
}

void attn_bwd_dkdv_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *e = arg[ATTN_BWD_K].tensor.layout.shape.leaf; /* (B, Sk, G, D) */
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->bn)), e[2], e[0]},
                           .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, dkdv_kernel, cfg, arg[ATTN_BWD_Q].tensor, arg[ATTN_BWD_K].tensor, arg[ATTN_BWD_V].tensor,
                arg[ATTN_BWD_DK].tensor, arg[ATTN_BWD_DV].tensor, arg[ATTN_BWD_DO].tensor, arg[ATTN_BWD_LSE].tensor,
                arg[ATTN_BWD_D].tensor, arg[ATTN_BWD_SCALE_LOG2].f, arg[ATTN_BWD_SCALE].f);
}
