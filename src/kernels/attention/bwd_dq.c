/* The backward's dQ kernel: one block of 4 warps per (64 query rows, head, batch), Q and dO
 * resident in shared memory, each key tile's K and V loaded by cp.async into one of two
 * stages (tile n + 1's in flight while tile n's products run):
 *
 *   S = Q K^T, dP = dO V^T            (ldmatrix, mma.sync; the forward's operands)
 *   mask S; P = exp2(S scale log2 e - LSE log2 e), dS = P (dP - D)   per row (bwd_step.c)
 *   dQ += dS K                        (dS in registers as the A operand, K^T by ldmatrix.trans)
 *
 * and at the end dQ times the softmax scale.  The tile order, key range and mask tests are
 * the forward's (attn_block_tiles). */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/attention/attention_bwd.h"

typedef struct dq_smem {
    cute_tensor q, dout; /* (64, D) */
    cute_tensor k, v;    /* (64, D, 2): two stages, the next key tile landing while this one is used */
} dq_smem;

static dq_smem dq_tiles(cute_ctx *c, const attn_plan *p)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_composed two = attn_smem_tile(cute_ctx_alg(c), p->cfg.dtype, p->bn, p->d, 2);
    dq_smem s;
    s.q = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, p->smem_kv, 16);
    s.dout = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, p->smem_kv, 16);
    s.k = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, two, 16);
    s.v = cute_smem_alloc_tensor_composed(c, &A, p->cfg.dtype, two, 16);
    return s;
}

/* key tile n's K and V into stage n % 2 (not committed) */
static void issue_kv(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_int n, const dq_smem *s)
{
    cute_int stage = cute_mod(cute_ctx_alg(c), n, cute_i(2));
    cute_tensor cK = CUTE_SLICE(c, t->cK, CUTE_ALL, CUTE_ALL, n);
    attn_load_tile(c, p, CUTE_SLICE(c, t->gK, CUTE_ALL, CUTE_ALL, n), cK, t->sk,
                   CUTE_SLICE(c, s->k, CUTE_ALL, CUTE_ALL, stage));
    attn_load_tile(c, p, CUTE_SLICE(c, t->gV, CUTE_ALL, CUTE_ALL, n), cK, t->sk,
                   CUTE_SLICE(c, s->v, CUTE_ALL, CUTE_ALL, stage));
}

/* K's and V's operands of stage `stage` (K also transposed: the B operand of dS K) */
static void kv_operands(cute_ctx *c, const attn_plan *p, const dq_smem *s, cute_int stage, attn_operand o[3])
{
    cute_tensor k = CUTE_SLICE(c, s->k, CUTE_ALL, CUTE_ALL, stage), v = CUTE_SLICE(c, s->v, CUTE_ALL, CUTE_ALL, stage);
    o[0] = attn_operand_make(c, p, &p->s2r_k, k, false);
    o[1] = attn_operand_make(c, p, &p->s2r_k, v, false);
    o[2] = attn_operand_make(c, p, &p->s2r_v, attn_transposed(c, p, k, p->bn), false);
}

/* one key tile's part of dQ: acc = {dQ, S, dP}, vals = {the rows' LSE (log2 units), D} */
static void key_step(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_int n, const attn_operand *qo,
                     const attn_operand kv[3], cute_tensor acc[3], const cute_val *const vals[2], int rows,
                     cute_val scale_log2)
{
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0));
    attn_gemm_ss(c, p, &qo[0], &kv[0], acc[1]);
    attn_gemm_ss(c, p, &qo[1], &kv[1], acc[2]);
    CUTE_IF(c, attn_needs_mask(c, p, t, n)) {
        attn_mask(c, acc[1], cute_partition_C(c, thr, CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, n)), t->sk,
                  p->cfg.causal);
    }
    attn_bwd_grads(c, acc[1], acc[2], vals[0], vals[1], rows, true, scale_log2);
    attn_gemm_rs(c, p, acc[2], &kv[2], acc[0]);
}

/* the rows' LSE (log2 units) and D, read once */
static int row_values(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, const attn_block *t, cute_tensor gD,
                      cute_val *lse2, cute_val *dsum)
{
    cute_tuple bound = cute_tuple_fmt(cute_ctx_alg(c), "(%I,%lld)", t->sq, (long long)p->d);
    cute_tensor cq = cute_partition_C(c, thr, t->cQ);
    int n;
    attn_bwd_line_values(c, cute_partition_C(c, thr, t->gL), cq, bound, true, 1.4426950408889634, lse2, &n);
    attn_bwd_line_values(c, cute_partition_C(c, thr, gD), cq, bound, true, 1.0, dsum, &n);
    return n;
}

static void dq_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mdO, cute_tensor mL,
                      cute_tensor mD, cute_tensor mdQ, cute_val scale_log2, cute_val scale)
{
    const attn_plan *p = cute_ctx_user(c);
    attn_block t = attn_block_tiles(c, p, mQ, mK, mV, mdO, mL); /* t.gO: dO's tile */
    cute_tensor gD = attn_lse_tile(c, p, mD, t.b, t.h, t.m_block);
    cute_tensor gdQ = attn_bwd_rows_tile(c, p, mdQ, t.b, t.h, t.m_block, p->bm);
    dq_smem s = dq_tiles(c, p);
    attn_load_tile(c, p, t.gQ, t.cQ, t.sq, s.q);
    attn_load_tile(c, p, t.gO, t.cQ, t.sq, s.dout);
    CUTE_IF(c, cute_int_lt(c, cute_i(0), t.n_end)) { issue_kv(c, p, &t, cute_i(0), &s); }
    cute_cp_async_commit_group(c);
    attn_operand qo[2] = {attn_operand_make(c, p, &p->s2r_q, s.q, true), attn_operand_make(c, p, &p->s2r_q, s.dout, true)};
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0));
    cute_tensor acc[3] = {cute_partition_fragment_C(c, thr, t.gQ), /* dQ, S, dP */
                          cute_partition_fragment_C(c, thr, CUTE_SLICE(c, t.cS, CUTE_ALL, CUTE_ALL, 0)), {0}};
    acc[2] = cute_make_fragment_like(c, acc[1]);
    cute_clear(c, acc[0]);
    cute_val lse2[8], dsum[8];
    const cute_val *const vals[2] = {lse2, dsum};
    int rows = row_values(c, p, thr, &t, gD, lse2, dsum);
    CUTE_FOR(c, n, cute_i(0), t.n_end) {
        cute_int next = cute_add(cute_ctx_alg(c), n, cute_i(1));
        CUTE_IF(c, cute_int_lt(c, next, t.n_end)) { issue_kv(c, p, &t, next, &s); }
        cute_cp_async_commit_group(c); /* (empty at the last tile: the wait below stays one group behind) */
        cute_cp_async_wait_group(c, 1); /* tile n (and, the first time, Q and dO) has landed */
        cute_barrier(c);
        attn_operand kv[3];
        kv_operands(c, p, &s, cute_mod(cute_ctx_alg(c), n, cute_i(2)), kv);
        key_step(c, p, &t, n, qo, kv, acc, vals, rows, scale_log2);
        cute_barrier(c); /* every warp is done with this stage before tile n + 1 refills it */
    }
    cute_cp_async_wait_group(c, 0);
    cute_tensor acc_dq = acc[0];
    attn_bwd_store(c, p, thr, acc_dq, &scale, gdQ, t.cQ, t.sq);
}

void attn_bwd_dq_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *e = arg[ATTN_BWD_Q].tensor.layout.shape.leaf; /* (B, Sq, H, D) */
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0]},
                           .block = {cute_i(p->threads)}};
    cute_tensor mV = arg[ATTN_BWD_V].tensor; /* K's layout: the library checks the strides agree */
    mV.layout = arg[ATTN_BWD_K].tensor.layout;
    CUTE_LAUNCH(c, dq_kernel, cfg, arg[ATTN_BWD_Q].tensor, arg[ATTN_BWD_K].tensor, mV, arg[ATTN_BWD_DO].tensor,
                arg[ATTN_BWD_LSE].tensor, arg[ATTN_BWD_D].tensor, arg[ATTN_BWD_DQ].tensor,
                arg[ATTN_BWD_SCALE_LOG2].f, arg[ATTN_BWD_SCALE].f);
}
