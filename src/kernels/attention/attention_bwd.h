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
    /* the library's workspace (the Hopper kernels with dQ fused, hopper_bwd_dq.c): dQ's f32
     * sums, (256, D/4, Mt, H, B), each (64-query tile, head, batch) a chunk of 64 D values
     * in the order the consumer threads hold them; and the u32 (B, H, Mt) count of the
     * chunk's contributions so far (Mt = ceil(Sq / 64)) */
    ATTN_BWD_DQACC, ATTN_BWD_SEM,
    ATTN_BWD_NARGS
};

/* The Hopper backward (hopper_bwd.c): the preprocessing kernel above, then a dQ kernel and a
 * dK/dV kernel of TMA, a producer warp, two consumer warpgroups and wgmma (or, fused_dq, the
 * dK/dV kernel making dQ's f32 sums too and a last kernel turning them into dQ).  `pre` comes first:
 * bwd_pre.c's kernel reads the host function's user pointer as its plan. */
typedef struct attn_hop_bwd_plan {
    attn_plan pre;
    attn_plan dq, kv; /* (attn_plan_hopper_bwd; the host function adds their TMA atoms) */
    /* dQ fused into the dK/dV kernel (hopper_bwd_dq.c; else a dQ kernel of its own): per
     * step, dQ's (64 queries, D) share of the block's 128 keys, dS K, by wgmma SS from dS^T
     * written to shared memory, both consumer warpgroups along D (dq_mma); smem_ds: dS^T
     * (128 keys, 64 queries, 2 buffers), queries contiguous; the dQ sums' TMA atoms (the
     * first contribution of a chunk stores, the others add) */
    bool fused_dq;
    bool dq_atomic; /* the fused dQ's parts added in no set order (CUTEC_ATTN_BWD_FORM=
                     * fused-atomic): no turns, the sums zeroed first (nondeterministic,
                     * FlashAttention 3's default) */
    cute_tiled_copy post_s2g; /* the last kernel's dQ tile, shared memory to dQ in rows, 16
                               * bytes a thread (hopper_bwd_dq.c's store_rows) */
    bool pdl;       /* CUTEC_ATTN_BWD_PDL=1 (deterministic forms): each kernel after pre
                     * launched as a programmatic dependent launch, so that it starts under
                     * the last wave of the one before (hopper_bwd.c's pdl_enter, bwd_pre.c,
                     * hopper_bwd_dq.c's post_wait_kernel) */
    cute_tiled_mma dq_mma;
    cute_tiled_copy ds_r2s; /* dS^T's stmatrix (the scores' C layout into smem_ds) */
    cute_composed smem_ds;
    cute_tma_atom tma_dq_store, tma_dq_add;
} attn_hop_bwd_plan;
void attn_hop_bwd_host(cute_ctx *c, const cute_arg *arg);

/* CUTEC_ATTN_BWD_FORM (read when the library compiles, and at each call for the workspace's
 * size): the Hopper backward at head dim 128 as the two kernels, or with dQ fused into the
 * dK/dV kernel, its parts added in a fixed order (deterministic) or in none (atomic) */
enum { ATTN_BWD_FORM_TWO, ATTN_BWD_FORM_FUSED, ATTN_BWD_FORM_ATOMIC };
#define ATTN_BWD_FORMS "two|fused|fused-atomic"
/* the default by causality (deterministic forms only): fused where not causal.  The passes of
 * 2026-11-27 (H200, TFLOP/s fused / two; bench/RESULTS.md, attnb8): 8x16x4096 470.7 / 456.5
 * and 496.4 / 468.5, 2x16x16384 501.4 / 459.1; causal 8x16x4096 415.0 / 429.3 and 416.6 /
 * 434.7, 2x16x16384 464.1 / 449.9 and 466.0 / 458.6 (causal stays two: it lost at 4096).
 * 2026-11-28's (dec-attn): 8x16x4096 498.1 / 479.2, 2x16x16384 fused 503.2 */
static inline int attn_bwd_form_default(bool causal) { return causal ? ATTN_BWD_FORM_TWO : ATTN_BWD_FORM_FUSED; }
/* whether a form fuses dQ into the dK/dV kernel at head dim d (the Hopper kernel's d128 only):
 * the plan and the library's workspace decide it by this one rule */
static inline bool attn_bwd_fuses(int form, int64_t d) { return d == 128 && form != ATTN_BWD_FORM_TWO; }

/* --- the fused dQ (hopper_bwd_dq.c) ----------------------------------------------------- */
/* the fused plan's parts (hp->kv made): dq_mma, smem_ds, and kv's stages cut to what fits
 * beside dS^T and the dQ tile */
bool attn_hbdq_plan(cute_alg *a, attn_hop_bwd_plan *hp);
/* in the host function: the dQ sums' TMA atoms */
void attn_hbdq_atoms(cute_ctx *c, attn_hop_bwd_plan *hp, cute_tensor acc);
/* the launch of the kernel that turns the sums into dQ (times the scale), after the others */
void attn_hbdq_post_launch(cute_ctx *c, const attn_hop_bwd_plan *hp, const cute_arg *arg);
/* dq_atomic: the launch of the kernel that zeroes the sums, before the dK/dV kernel */
void attn_hbdq_zero_launch(cute_ctx *c, const attn_hop_bwd_plan *hp, const cute_arg *arg);

/* shared memory (at the kernel's top level, where every thread runs): dS^T's two buffers,
 * a pipeline of them (the 256 consumers fill a buffer, each its half, and all read it) and
 * dQ's tile */
typedef struct attn_hbdq_smem {
    cute_tensor sdst;     /* (128, 64, 2) */
    cute_tensor sdq;      /* (32 D, 2): the (64, D) f32 tile in the chunk's order, warpgroup w's
                           * half w (each a TMA box: hopper_bwd_dq.c's box_of) */
    cute_pipeline ds;
} attn_hbdq_smem;
void attn_hbdq_alloc(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_smem_allocator *al, attn_hbdq_smem *m);
/* the fused dQ's named barriers (hopper_bwd.c takes them with the kernel's others,
 * kernels/warp_roles.h): warpgroup w's half of sdq full and empty (its 128 threads and the
 * writer warp); the writer's and the turn's warp's, a step's turn seen (full) and taken by
 * the writer (empty); the writer's and the count's warp's, a step's adds complete (full) and
 * counted in (empty) */
typedef struct attn_hbdq_bars {
    int full[2], empty[2];
    int turn_full, turn_empty, count_full, count_empty;
} attn_hbdq_bars;
/* a consumer thread's part: the shared tiles, their views as the dQ product's operands, the
 * accumulator, the pipeline's states (the buffer staged next, the buffer read next) */
typedef struct attn_hbdq {
    cute_tensor sdst;     /* dS^T's two buffers */
    cute_pipeline ds;
    cute_pipeline_state staged, read;
    cute_tensor ads, bk;  /* (MMA, M, K, 2): dS from sdst; (MMA, N, K): K^T from the K tile */
    cute_tensor acc;      /* (64, D / 2) f32 a warpgroup */
    cute_tensor slot;     /* the accumulator's values' places in sdq */
    cute_thr_mma ss;      /* the scores' partition (dS^T's accumulator) */
    cute_thr_copy r2s;    /* the thread's stmatrix of dS^T, and its part of sdst */
    cute_tensor sds_d;
    cute_int wg;          /* the thread's warpgroup: its half of sdq */
    attn_hbdq_bars bar;
} attn_hbdq;
/* tid: among the 256 consumer threads; sk: the block's K tile (128, D) */
attn_hbdq attn_hbdq_consumer(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_smem *m, cute_tensor sk,
                             cute_int tid, const attn_hbdq_bars *bar);
/* dS^T (the accumulator, f32) of a step into the next buffer, once its last readers are done;
 * or zeros shaped as it (a step before the first, whose part the writer drops) */
void attn_hbdq_stage_ds(cute_ctx *c, const attn_hop_bwd_plan *hp, attn_hbdq *q, cute_tensor acc_dst);
void attn_hbdq_stage_zero(cute_ctx *c, const attn_hop_bwd_plan *hp, attn_hbdq *q, cute_tensor acc_dst);
/* the oldest staged step's dS: wait until both warpgroups' halves are in; then, in a batch,
 * zero the accumulator, fence, issue dQ = dS K */
void attn_hbdq_wait_ds(cute_ctx *c, const attn_hbdq *q);
void attn_hbdq_issue(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq *q);
/* after the product's wait: the buffer released, the tile into sdq once the writer has read
 * the last one */
void attn_hbdq_handoff(cute_ctx *c, attn_hbdq *q);
/* The writer, one warp: after the consumers' first part (of zeros) is dropped, step by step,
 * as each warpgroup hands its half of the tile over, takes its
 * turn at the chunk (before the first half; not atomic: from attn_hbdq_turns) (query tile yt of head yh: the blocks of the higher key tiles first, as
 * they are launched), stores or adds it, hands sdq back, and counts itself in
 * (not atomic: through attn_hbdq_counts).  xt: the key
 * tile; any: whether the block's keys meet any query (else its one step adds nothing). */
typedef struct attn_hbdq_writer {
    cute_tensor sdq, sem;       /* sdq; the counts of dQ's sums (B, H, Mt) */
    cute_val map_store, map_add;
    cute_int b, xt, sx;         /* batch, key tile, keys */
    cute_val any;
    attn_hbdq_bars bar;
} attn_hbdq_writer;
typedef void attn_hbdq_tile_of(cute_ctx *c, const void *job, cute_int i, cute_int *yh, cute_int *yt);
void attn_hbdq_write(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int steps,
                     attn_hbdq_tile_of *tile_of, const void *job);
/* Not atomic: the turn's warp, beside the writer: waits for each step's turn a step ahead
 * (while the writer adds the step before) and hands it to the writer at a named barrier. */
void attn_hbdq_turns(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int steps,
                     attn_hbdq_tile_of *tile_of, const void *job);
/* Not atomic: the count's warp: releases each step's count (rank + 1) once the writer has
 * handed over its adds complete, so that the release's fence is not on the writer's path. */
void attn_hbdq_counts(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int steps,
                      attn_hbdq_tile_of *tile_of, const void *job);


/* the launches of the host function (bwd_pre.c, bwd_dq.c, bwd_dkdv.c), from its arguments */
/* (counts: the fused dQ's counts of its sums back to zero too; the next kernel, a
 * programmatic dependent launch where attn_hop_bwd_plan.pdl, let in as each block starts) */
void attn_bwd_pre_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg, bool counts);
void attn_bwd_dq_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg);
void attn_bwd_dkdv_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg);

#endif
