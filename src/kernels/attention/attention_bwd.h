/* Internal: the attention backward on SM80 instructions (docs/attention.md, "The backward"):
 * three kernels launched by one host function (bwd_compile.c):
 *
 *   bwd_pre.c   D = rowsum(dO O), one value per (b, h, query row), into delta (the caller's)
 *   bwd_dq.c    one block per (64 query rows, head, batch): over the key tiles,
 *               S = Q K^T, dP = dO V^T, P and dS (bwd_step.c), dQ += dS K
 *   bwd_dkdv.c  one block per (64 key rows, key/value head, batch): over the query tiles of
 *               every query head of its group, S^T = K Q^T, dP^T = V dO^T, then
 *               dV += P^T dO and dK += dS^T Q
 *
 * dQ is a separate pass rather than f32 atomics from the dK/dV kernel: every sum is made
 * by one thread in a fixed order (deterministic, as the issue asks) at the price of
 * recomputing S and dP (7 tile products instead of 5). */
#ifndef CUTEC_ATTENTION_BWD_H
#define CUTEC_ATTENTION_BWD_H

#include "kernels/attention/attention_internal.h"

/* the forward's plan with 64-row tiles on both sides of S; head dims 64 and 128 */
bool attn_bwd_plan_make(cute_alg *a, const cute_attention_config *cfg, attn_plan *p);

/* The value of each of the thread's rows (by_row) or columns of an accumulator, times mul:
 * g is a broadcast tensor partitioned like the accumulator (each row's, or column's, value
 * repeated along it), coords its coordinates, bound the extent they must be inside (else 0).
 * *n: how many (the thread's rows or columns). */
void attn_bwd_line_values(cute_ctx *c, cute_tensor g, cute_tensor coords, cute_tuple bound, bool by_row,
                          double mul, cute_val *out, int *n);
/* acc_s = P = exp2(S scale_log2 - lse2) and acc_dp = dS = P (dP - dsum), lse2 (the LSE in
 * log2 units) and dsum (D) per row (by_row) or column of the thread */
void attn_bwd_grads(cute_ctx *c, cute_tensor acc_s, cute_tensor acc_dp, const cute_val *lse2, const cute_val *dsum,
                    int n, bool by_row, cute_val scale_log2);
/* the same with each line's LSE (gl: the LSE in natural log units) and D (gd), broadcast
 * tensors partitioned like the accumulators (coords, bound: as attn_bwd_line_values'), read
 * where the line is computed: a thread with many lines (the columns of a wgmma's C
 * fragment) holds no array of them */
void attn_bwd_grads_loading(cute_ctx *c, cute_tensor acc_s, cute_tensor acc_dp, cute_tensor gl, cute_tensor gd,
                            cute_tensor coords, cute_tuple bound, bool by_row, cute_val scale_log2);
/* attn_bwd_grads_loading in two halves, so that a product can run between them: P alone
 * (acc_s, in place), then dS alone (acc_dp, in place; acc_p holds P); coords NULL: gl and
 * gd are read unchecked (they hold 0 outside the bound: a staged copy), and gl holds the
 * LSE in log2 units already (else in natural log units) */
void attn_bwd_probs_loading(cute_ctx *c, cute_tensor acc_s, cute_tensor gl, const cute_tensor *coords,
                            cute_tuple bound, bool by_row, cute_val scale_log2);
void attn_bwd_dsoft_loading(cute_ctx *c, cute_tensor acc_p, cute_tensor acc_dp, cute_tensor gd,
                            const cute_tensor *coords, cute_tuple bound, bool by_row);
/* an accumulator (times *scale, unless NULL) in the dtype into its (rows, D) tile g, the rows
 * inside `rows` only */
void attn_bwd_store(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, cute_tensor acc, const cute_val *scale,
                    cute_tensor g, cute_tensor coords, cute_int rows);

/* tile `at` of (rows, D) tiles of batch b, head h of a (B, S, heads, D) tensor */
cute_tensor attn_bwd_rows_tile(cute_ctx *c, const attn_plan *p, cute_tensor m, cute_int b, cute_int h, cute_int at,
                               int64_t rows);

/* the compiled function's arguments, in order */
enum {
    ATTN_BWD_Q, ATTN_BWD_K, ATTN_BWD_V, ATTN_BWD_O, ATTN_BWD_DO, ATTN_BWD_LSE, /* inputs */
    ATTN_BWD_DQ, ATTN_BWD_DK, ATTN_BWD_DV,                                      /* outputs */
    ATTN_BWD_D,                           /* workspace (B,H,Sq) f32: rowsum(dO O) */
    ATTN_BWD_SCALE_LOG2, ATTN_BWD_SCALE,  /* f32 */
    ATTN_BWD_NARGS
};

/* The Hopper backward (hopper_bwd.c): the preprocessing kernel above, then a dQ kernel and a
 * dK/dV kernel of TMA, a producer warp, two consumer warpgroups and wgmma.  `pre` comes first:
 * bwd_pre.c's kernel reads the host function's user pointer as its plan. */
typedef struct attn_hop_bwd_plan {
    attn_plan pre;
    attn_plan dq, kv; /* (attn_plan_hopper_bwd; the host function adds their TMA atoms) */
} attn_hop_bwd_plan;
void attn_hop_bwd_host(cute_ctx *c, const cute_arg *arg);

/* the launches of the host function (bwd_pre.c, bwd_dq.c, bwd_dkdv.c), from its arguments */
void attn_bwd_pre_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg);
void attn_bwd_dq_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg);
void attn_bwd_dkdv_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg);

#endif
