/* The forward over packed sequences (cfg->varlen): Q and O (1, total_q, H, D), K and V
 * (1, total_k, G, D), the LSE (1, H, total_q); sequence b's query rows are cu_q[b] ..
 * cu_q[b+1] - 1 and its keys cu_k[b] .. cu_k[b+1] - 1.  One block per (Q tile of the
 * longest sequence, head, sequence) runs the forward's body on its sequence's rows
 * (attn_block_tiles_seq); one past its sequence's end visits no key and stores nothing. */
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"

/* rows cu[b] .. cu[b+1] - 1, clamped into [0, total): offsets read on the device are not
 * checked by the library, so no offset reaches outside the packed rows (HSTU's jagged
 * kernel reads its seq_offsets so too) */
void attn_packed_rows(cute_ctx *c, cute_tensor cu, cute_int b, cute_int total, cute_int *start, cute_int *len)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_val v0 = cute_ssa_get(c, cute_tensor_load(c, CUTE_SLICE(c, cu, b)), 0);
    cute_val v1 = cute_ssa_get(c, cute_tensor_load(c, CUTE_SLICE(c, cu, cute_add(a, b, cute_i(1)))), 0);
    cute_int lo = cute_int_from_val(c, v0, INT32_MIN), hi = cute_int_from_val(c, v1, INT32_MIN);
    *start = cute_min(a, cute_max(a, cute_i(0), lo), total);
    *len = cute_sub(a, cute_min(a, cute_max(a, *start, hi), total), *start);
}

static void varlen_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mO, cute_tensor mL,
                          cute_tensor mCuQ, cute_tensor mCuK, cute_val scale_log2)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_int b = cute_block_idx(c, 2);
    attn_seq seq = {cute_i(0), cute_i(0), cute_i(0), cute_i(0), cute_i(0), cute_i(0)};
    attn_packed_rows(c, mCuQ, b, mQ.layout.shape.leaf[1], &seq.q0, &seq.sq);
    attn_packed_rows(c, mCuK, b, mK.layout.shape.leaf[1], &seq.k0, &seq.sk);
    const cute_tensor m[5] = {mQ, mK, mV, mO, mL};
    attn_block t = attn_block_tiles_seq(c, p, m, &seq);
    attn_block_past_end(c, p, &t, seq.sq, cute_block_idx(c, 0));
    attn_fwd_body(c, p, &t, scale_log2);
}

void attn_block_past_end(cute_ctx *c, const attn_plan *p, attn_block *t, cute_int rows, cute_int x)
{
    /* 1 inside, 0 past: min(1, max(0, rows - x bm)).  Its rows count as none (sq 0), since
     * causal's longest-first order gives it Q tile 0, which the sequence's own block
     * computes: with its rows kept it stored zeros over that tile */
    cute_alg *a = cute_ctx_alg(c);
    cute_int rows_left = cute_sub(a, rows, cute_mul(a, x, cute_i(p->bm)));
    cute_int inside = cute_min(a, cute_i(1), cute_max(a, cute_i(0), rows_left));
    t->n_end = cute_add(a, t->n_begin, cute_mul(a, cute_sub(a, t->n_end, t->n_begin), inside));
    t->sq = cute_mul(a, t->sq, inside);
}

void attn_fwd_varlen_host(cute_ctx *c, const cute_arg *arg)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mQ = arg[0].tensor, mL = p->cfg.lse ? arg[ATTN_VARLEN_LSE].tensor : arg[3].tensor;
    cute_int seqs = cute_sub(a, arg[ATTN_VARLEN_CU_Q].tensor.layout.shape.leaf[0], cute_i(1));
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, arg[ATTN_VARLEN_MAX_SQ].i, cute_i(p->bm)), mQ.layout.shape.leaf[2], seqs},
                           .block = {cute_i(p->threads)}};
    cute_tensor mV = arg[2].tensor; /* K's layout, as the fixed-length forward's */
    mV.layout = arg[1].tensor.layout;
    CUTE_LAUNCH(c, varlen_kernel, cfg, mQ, arg[1].tensor, mV, arg[3].tensor, mL, arg[ATTN_VARLEN_CU_Q].tensor,
                arg[ATTN_VARLEN_CU_K].tensor, arg[4].f);
}
