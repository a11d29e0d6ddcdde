/* The backward's dQ kernel: one block of 4 warps per (64 query rows, head, batch), Q and dO
 * resident in shared memory, each key tile's K and V loaded by cp.async:
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
    cute_tensor q, dout, k, v, kt; /* (64, D); kt: K seen as (D, 64) */
} dq_smem;

static dq_smem dq_tiles(cute_ctx *c, const attn_plan *p)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_dtype d = p->cfg.dtype;
    cute_tensor *all[4];
    dq_smem s;
    all[0] = &s.q, all[1] = &s.dout, all[2] = &s.k, all[3] = &s.v;
    for (int i = 0; i < 4; i++)
        *all[i] = cute_smem_alloc_tensor_swizzled(c, &A, d, p->smem_kv.sw, p->smem_kv.layout, 16);
    s.kt = attn_transposed(c, p, s.k, p->bn);
    return s;
}

static void load_kv(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_int n, const dq_smem *s)
{
    cute_tensor cK = CUTE_SLICE(c, t->cK, CUTE_ALL, CUTE_ALL, n);
    attn_load_tile(c, p, CUTE_SLICE(c, t->gK, CUTE_ALL, CUTE_ALL, n), cK, t->sk, s->k);
    attn_load_tile(c, p, CUTE_SLICE(c, t->gV, CUTE_ALL, CUTE_ALL, n), cK, t->sk, s->v);
    cute_cp_async_commit_group(c);
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
    attn_operand q = attn_operand_make(c, p, &p->s2r_q, s.q, true), dout = attn_operand_make(c, p, &p->s2r_q, s.dout, true);
    attn_operand k = attn_operand_make(c, p, &p->s2r_k, s.k, false), v = attn_operand_make(c, p, &p->s2r_k, s.v, false);
    attn_operand kt = attn_operand_make(c, p, &p->s2r_v, s.kt, false);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0));
    cute_tensor acc_dq = cute_partition_fragment_C(c, thr, t.gQ);
    cute_tensor acc_s = cute_partition_fragment_C(c, thr, CUTE_SLICE(c, t.cS, CUTE_ALL, CUTE_ALL, 0));
    cute_tensor acc_dp = cute_make_fragment_like(c, acc_s);
    cute_clear(c, acc_dq);
    cute_val lse2[8], dsum[8];
    int rows = row_values(c, p, thr, &t, gD, lse2, dsum);
    CUTE_FOR(c, n, cute_i(0), t.n_end) {
        cute_barrier(c); /* every warp is done with the last K and V */
        load_kv(c, p, &t, n, &s);
        cute_cp_async_wait_group(c, 0);
        cute_barrier(c);
        attn_gemm_ss(c, p, &q, &k, acc_s);
        attn_gemm_ss(c, p, &dout, &v, acc_dp);
        CUTE_IF(c, attn_needs_mask(c, p, &t, n)) {
            attn_mask(c, acc_s, cute_partition_C(c, thr, CUTE_SLICE(c, t.cS, CUTE_ALL, CUTE_ALL, n)), t.sk,
                      p->cfg.causal);
        }
        attn_bwd_grads(c, acc_s, acc_dp, lse2, dsum, rows, true, scale_log2);
        attn_gemm_rs(c, p, acc_dp, &kt, acc_dq);
    }
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
