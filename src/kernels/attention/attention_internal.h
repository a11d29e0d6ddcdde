/* Internal: the plan a forward attention kernel is traced with (plan.c) and the pieces of
 * its body (fwd_kernel.c, softmax.c). */
#ifndef CUTEC_ATTENTION_INTERNAL_H
#define CUTEC_ATTENTION_INTERNAL_H

#include "cutec/attention.h"
#include "cutec/copy.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/tma_copy.h"

/* Everything static about one compiled forward kernel. */
typedef struct attn_plan {
    cute_attention_config cfg;
    int64_t bm, bn, d;       /* Q rows per block, K/V rows per tile, head dim */
    int threads;             /* 4 warps, each 16 rows of every 64 (the MMA's M) */
    cute_tiled_mma mma;      /* S = Q K^T and O = P V: mma.sync m16n8k16, f32 accumulation */
    cute_tiled_copy g2s;     /* global -> shared of (rows, D) tiles: 16-byte cp.async */
    cute_tiled_copy s2r_q;   /* ldmatrix of Q (the A operand of S) */
    cute_tiled_copy s2r_k;   /* ldmatrix of K (the B operand of S, K-major) */
    cute_tiled_copy s2r_v;   /* ldmatrix.trans of V^T (the B operand of O, N-major) */
    cute_composed smem_q;    /* (bm, D), swizzled, D contiguous */
    cute_composed smem_kv;   /* (bn, D), likewise: one for K, one for V; Hopper: (bn, D, stages) */
    /* the Hopper kernel (hopper_plan.c, hopper_fwd.c): mma is S = Q K^T by wgmma from shared
     * memory (SS), pv is O += P V by wgmma with P from registers (RS); both tiled over the two
     * consumer warpgroups along M; K and V tiles in `stages` stages of a TMA pipeline each;
     * the TMA atoms are made by the host function from the call's tensors */
    bool hopper;
    int stages;
    cute_tiled_mma pv;
    cute_tma_atom tma_q, tma_k, tma_v;
} attn_plan;

/* the variant cute_attention_compile builds for cfg on rt's target (AUTO resolved) */
cute_attention_variant attn_variant(cute_runtime *rt, const cute_attention_config *cfg);
bool attn_plan_make(cute_alg *a, const cute_attention_config *cfg, attn_plan *p);
bool attn_plan_hopper(cute_alg *a, const cute_attention_config *cfg, attn_plan *p);
/* the host functions: one block per (Q tile, head, batch) running the kernel (fwd_kernel.c,
 * hopper_fwd.c) */
void attn_fwd_host(cute_ctx *c, const cute_arg *arg);
void attn_hopper_host(cute_ctx *c, const cute_arg *arg);

/* This block's tiles of the (B,S,H,D) tensors and their coordinates (fwd_kernel.c). */
typedef struct attn_block {
    cute_tensor gQ, gO, cQ;  /* (bm,D) */
    cute_tensor gK, gV, cK;  /* (bn,D,n) */
    cute_tensor cS;          /* (bm,bn,n): (query row, key column) of S */
    cute_tensor gL;          /* (bm,D): the LSE of each row, broadcast along D */
    cute_int sq, sk, m_block, n_end;
    cute_int b, h, hk;       /* batch, query head, key/value head */
} attn_block;
attn_block attn_block_tiles(cute_ctx *c, const attn_plan *p, cute_tensor mQ, cute_tensor mK,
                            cute_tensor mV, cute_tensor mO, cute_tensor mL);
/* the shared tiles: Q (bm,D), K and V (bn,D[,stages]), and V seen as (D,bn[,stages]), the B
 * operand of P V */
typedef struct attn_smem {
    cute_tensor q, k, v, vt;
} attn_smem;
attn_smem attn_smem_tiles(cute_ctx *c, const attn_plan *p, cute_smem_allocator *A);
/* key tile n of S needs the mask: keys past Sk in it, or (causal) a key after its first query */
cute_val attn_needs_mask(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_int n);

/* A fragment of the MMA's accumulator, ((2,2),MMA_M,MMA_N), viewed as (rows, cols): the
 * thread's 2 MMA_M rows (v1 picks row r or r+8 of an m16 atom) by its 2 MMA_N columns (v0
 * picks column 2t or 2t+1 of an n8 atom); CuTe's convert_layout_acc_rowcol. */
cute_tensor attn_rowcol(cute_ctx *c, cute_tensor acc);
/* The A operand of P V over the accumulator of S (`acc`: its layout): a layout from
 * ((2,2,2),MMA_M,MMA_N/2) to the accumulator's index, value v2 taking the odd n8 atom.  The
 * m16n8k16 C fragment of n8 atoms 2j and 2j+1 is the A fragment of k16 block j (the test
 * checks it with the layouts of the TiledMMA); compose P (acc converted to f16/bf16) with
 * it. */
cute_layout attn_c_as_a(cute_alg *a, const cute_layout *acc);

/* The online softmax of one tile of scores, per row of the thread: the running row max m
 * and the thread's part of the row sum l (f32 variables), O rescaled by exp2(m_old - m_new)
 * (in units of scale log2 e), and S replaced by exp2(S scale_log2 - m_new scale_log2). */
typedef struct attn_rows {
    int n;          /* rows of the thread: 2 MMA_M */
    cute_val m[8], l[8];
} attn_rows;
attn_rows attn_rows_start(cute_ctx *c, int n);
void attn_softmax_tile(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_tensor acc_o,
                       cute_val scale_log2);
/* the same in two steps, as the Hopper kernel overlaps them with P V: S replaced by P, m and
 * l updated, corr[i] the factor O's row i is to be scaled by; then O scaled */
void attn_softmax_scores(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_val scale_log2, cute_val *corr);
void attn_rescale(cute_ctx *c, const attn_rows *r, cute_tensor acc_o, const cute_val *corr);
/* the end: l summed over the quad of threads sharing each row, O divided by it; the
 * log-sum-exp of each row (natural log) into lse[row] */
void attn_softmax_finish(cute_ctx *c, attn_rows *r, cute_tensor acc_o, cute_val scale_log2,
                         cute_val *lse);
/* S = -inf where the key is past Sk or, causal, after the query: coords is the identity
 * tensor of (Sq, Sk) partitioned like acc_s */
void attn_mask(cute_ctx *c, cute_tensor acc_s, cute_tensor coords, cute_int sk, bool causal);

/* O (normalized, in the inputs' dtype) and the LSE of the rows inside Sq, from the
 * accumulators of thread `thr` of the TiledMMA that computed O */
void attn_epilogue(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, const attn_block *t,
                   attn_rows *r, cute_tensor acc_o, cute_val scale_log2);

#endif
