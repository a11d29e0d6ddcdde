/* Internal: the plan a forward attention kernel is traced with (plan.c) and the pieces of
 * its body (fwd_kernel.c, softmax.c). */
#ifndef CUTEC_ATTENTION_INTERNAL_H
#define CUTEC_ATTENTION_INTERNAL_H

#include "cutec/attention.h"
#include "cutec/copy.h"
#include "cutec/cuda_arch.h"
#include "cutec/hstu.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/tma_copy.h"
#include "kernels/warp_roles.h"

/* Everything static about one compiled forward kernel. */
typedef struct attn_plan {
    cute_attention_config cfg;
    int64_t bm, bn, d;       /* Q rows per block, K/V rows per tile, head dim */
    int64_t step_n;          /* the SM80 forward's keys a softmax step: bn, or bn / 2 (two steps a
                                tile, the second's scores under the first's softmax) */
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
    int consumers;           /* the forward's consumer warpgroups, bm / 64 (2, or 3 at bm 192) */
    int sms;                 /* the forward's persistent grid: its most blocks (0: a block a tile) */
    bool rescale_lazy;       /* O rescaled lazily (FlashAttention 4's test, softmax.c): the SM80
                                forward's (attn_plan_make); decode's split kernel
                                (attn_plan_sized's plans) rescales every tile */
    int q_stages;            /* the Hopper forward's Q tiles in shared memory: 1, or 2 on the
                                persistent grid with CUTEC_ATTN_FWD_QSTAGES=2 (hopper_plan.c) */
    bool snake;              /* the persistent grid's causal order: a head's Q tiles longest
                                first, every other round's blocks reversed (hopper_sched.c,
                                CUTEC_ATTN_FWD_ORDER=snake) */
    bool split_mask;         /* the Hopper forward's key-tile loop in two: the tiles no mask
                                touches, then those it does (hopper_fwd.c; the default,
                                CUTEC_ATTN_FWD_SPLIT=0 the one loop: hopper_plan.c) */
    bool fast_finish;        /* the Hopper forward's epilogue: 1 / l and log2 l approximate,
                                the tile's (m, h, b) divided once (not causal's default,
                                CUTEC_ATTN_FWD_FINISH=fast|ieee: hopper_plan.c) */
    bool join;               /* the Hopper forward's tiles joined on the persistent grid: a
                                tile's last P V and the next tile's first S in one turn
                                (hopper_fwd.c; CUTEC_ATTN_FWD_JOIN=0|1: hopper_plan.c) */
    bool wg_uniform;         /* the Hopper forward's consumer warpgroup index broadcast from
                                lane 0 and its wgmma descriptors built once a stage, so that
                                ptxas keeps Q's descriptors on the uniform datapath (hopper_fwd.c,
                                the atoms' desc_stage; CUTEC_ATTN_FWD_WGU=0|1: hopper_plan.c);
                                the backward's lean steps likewise at head dims 96 and up
                                (attn_plan_hopper_bwd; its K, V and K^T) */
    int diag;                /* a diagnostic, wrong by design (ATTN_DIAG_*): the Hopper
                                forward's key tiles after the first without their softmax and
                                O's rescale (P = S), or without O's rescale alone, so that a
                                bench times what is left (CUTEC_ATTN_FWD_DIAG: hopper_plan.c);
                                noexp / nosum: the unmasked key tiles' softmax without its
                                exp2s (P = the exponent) or without its row sums */
    bool skip_idle;          /* the Hopper forward: a consumer warpgroup whose 64 rows all lie
                                past Sq (a head's last Q tile) takes its turns and releases
                                its stages but computes nothing (hopper_fwd.c's idle_tile;
                                CUTEC_ATTN_FWD_SKIP=0|1: hopper_plan.c) */
    bool pdl;                /* decode's kernels dependent launches (decode.c;
                                CUTEC_ATTN_DECODE_PDL=0|1): the split kernel under the
                                stream's kernel before it, the combine under the split's */
    cute_tiled_mma pv;
    cute_tma_atom tma_q, tma_k, tma_v;
    /* the Blackwell forward (blackwell_fwd_plan.c): S = Q K^T (tcgen05 _SS) and O += P V (_TS,
     * P in tensor memory); the tensor memory's columns (S, O and P) */
    cute_mma_atom umma_s, umma_o;
    int tmem_columns;
    unsigned broken; /* the Blackwell forward's deliberately broken forms (ATTN_BW_BREAK_*) */
} attn_plan;

/* the forward's head dims: the SM80 kernel takes every multiple of 32 to 256 (its copies move
 * 64-byte pieces of a row, its MMAs 16 columns at a time); the Hopper kernel every one past 32
 * (whole swizzle rows: 64 columns, or 32 where D % 64 == 32), and AUTO gives 32 to the SM80
 * kernel on every card */
#define ATTN_HEAD_DIMS "a multiple of 32 from 32 to 256"
static inline bool attn_head_dim_ok(int64_t d) { return d >= 32 && d <= 256 && d % 32 == 0; }
static inline bool attn_hopper_head_dim(int64_t d) { return attn_head_dim_ok(d) && d >= 64; }
/* the backward's: both kernels hold dK's and dV's f32 (64, D) accumulators in a block of four
 * warps, which past 128 spill (ptxas: 572 bytes at 192, 2.4 KB at 256) */
#define ATTN_BWD_HEAD_DIMS "a multiple of 32 from 32 to 128"
/* the Hopper kernels' shared memory a block: sm_90's opt-in (the architecture's table: 227
 * KB), less room for the barriers and the alignment */
#define ATTN_HOP_SMEM_BYTES (cute_cuda_arch_smem_per_block(90) - 2048)
static inline bool attn_bwd_head_dim_ok(int64_t d) { return attn_head_dim_ok(d) && d <= 128; }
/* the Hopper backward's: 64, 96 and 128, every head dim the Hopper forward takes that a
 * backward takes at all, so AUTO resolves the backward by the forward's rule (attn_variant) */
static inline bool attn_hopper_bwd_head_dim(int64_t d) { return attn_hopper_head_dim(d) && attn_bwd_head_dim_ok(d); }
/* the variant cute_attention_compile builds for cfg on rt's target (AUTO resolved) */
cute_attention_variant attn_variant(cute_runtime *rt, const cute_attention_config *cfg);
bool attn_plan_make(cute_alg *a, const cute_attention_config *cfg, attn_plan *p);
/* the Hopper forward on its persistent grid (p->sms set): two Q stages where asked and they fit */
bool attn_plan_hopper_stage_q(cute_alg *a, attn_plan *p);
/* hopper_plan.c: `extra` bytes more a K and V stage (HSTU's RAB tile): the stages that fit
 * then, at least two; (rows, D[, stages]) of 128-byte K-major GMMA atoms (64-byte at D % 64),
 * atoms down the rows first, so that the (rows, 64) block j (columns 64 j ..) is one TMA box */
bool attn_plan_hopper_extra(cute_alg *a, attn_plan *p, int64_t extra);
cute_composed attn_hop_tile(cute_alg *a, cute_dtype d, int64_t rows, int64_t D, int stages);
/* CuTe's SM80 swizzle atom (128-byte rows of D) tiled over (rows, D), or (rows, D, stages) */
cute_composed attn_smem_tile(cute_alg *a, cute_dtype d, int64_t rows, int64_t D, int stages);
/* the plan with bm-row Q tiles and `warps` warps along M (bm a multiple of 16 warps) */
bool attn_plan_sized(cute_alg *a, const cute_attention_config *cfg, attn_plan *p, int64_t bm, int warps);
/* the host function: one block per (Q tile, head, batch) running the kernel (fwd_kernel.c) */
void attn_fwd_host(cute_ctx *c, const cute_arg *arg);
/* the packed sequences' (fwd_varlen.c): the arguments Q, K, V, O, scale_log2, then these */
enum { ATTN_VARLEN_CU_Q = 5, ATTN_VARLEN_CU_K, ATTN_VARLEN_MAX_SQ, ATTN_VARLEN_LSE, ATTN_VARLEN_NARGS };
void attn_fwd_varlen_host(cute_ctx *c, const cute_arg *arg);
/* packed sequence b's rows: start cu[b] and length cu[b+1] - cu[b] of the i32 offsets cu,
 * each offset clamped into [0, total] (fwd_varlen.c) */
void attn_packed_rows(cute_ctx *c, cute_tensor cu, cute_int b, cute_int total, cute_int *start, cute_int *len);
/* the Blackwell forward's plan and host function (blackwell_fwd_plan.c, blackwell_fwd.c);
 * whether it takes the configuration (AUTO's choice on sm_100) */
bool attn_blackwell_takes(const cute_attention_config *cfg);
bool attn_plan_blackwell(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p);
void attn_blackwell_host(cute_ctx *c, const cute_arg *arg);
/* blackwell_fwd_test's broken kernels, each to be reported by the interpreter: the softmax
 * reading S with no wait for the MMA's commit; the MMA never committing a P V */
enum { ATTN_BW_BREAK_S_WAIT = 1, ATTN_BW_BREAK_PV_COMMIT = 2 };
const cute_fn *attn_blackwell_compile_broken(cute_runtime *rt, const cute_attention_config *cfg, unsigned broken,
                                             char *err, size_t n);
/* the Hopper kernel's plan and host function (hopper_plan.c, hopper_fwd.c) */
/* arch: the compile target (cute_runtime_target_arch; 0 unknown) */
bool attn_plan_hopper(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p);
/* its tiles alone (bm, bn, d, consumers, threads, stages): no atom built, none of the
 * forward's own choices read (CUTEC_ATTN_FWD_*); HSTU's Hopper plan starts from them */
bool attn_plan_hopper_tiles(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p);
void attn_hopper_host(cute_ctx *c, const cute_arg *arg);
/* the Hopper backward's kernels (hopper_bwd.c): 128 resident rows of two tensors (smem_q,
 * tma_q), 64-row tiles of two others streamed in `stages` (smem_kv, tma_k); mma: the scores
 * (SS, N = 64), pv: the gradients' products (RS, N = D) */
bool attn_plan_hopper_bwd(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p);
/* hopper_fwd.c: the forward's shared tiles and pipelines, allocated from al: Q (bm,D), K and
 * V (bn,D,stages) each, V seen as (D,bn,stages) (O's B operand); a PipelineTmaAsync each for
 * Q (q_stages), K and V (stages), every consumer thread releasing */
typedef struct attn_hop_smem {
    cute_tensor q, k, v, vt;
    cute_pipeline pq, pk, pv;
} attn_hop_smem;
attn_hop_smem attn_hop_shared_memory(cute_ctx *c, const attn_plan *p, cute_smem_allocator *al);
/* hopper_tma.c: the stage of a staged shared tile (its last of `modes` modes) at the state's
 * stage; the TMA atom of (rows, D) tiles of a (B, S, heads, D) tensor (boxes (1, rows, 1, 64),
 * into the plan's swizzle); tile `tile` of rows of (batch b, head h) of that tensor's
 * coordinate tensor `tma` into the shared (rows, D) tile s, completing on bar */
cute_tensor attn_hop_stage(cute_ctx *c, cute_tensor t, int modes, const cute_pipeline_state *s);
/* hopper_roles.c: the kernel's roles (kernels/warp_roles.h) with attention's registers: the
 * producer gives its own up (setmaxnreg 24 with 2 consumer warpgroups, 32 with 3), the
 * consumers take the rest (240, 160) */
typedef kernel_warp_role attn_hop_role;
void attn_hop_roles(cute_ctx *c, attn_hop_role *produce, attn_hop_role *consume, void *arg);
void attn_hop_roles_n(cute_ctx *c, int consumers, attn_hop_role *produce, attn_hop_role *consume, void *arg);
/* the consumers' ping-pong (hopper_roles.c), a ring of n warpgroups taking turns: start (tid:
 * the consumer's index; gives the thread's turn handle: its warpgroup's index), then turn
 * before each issue of GEMMs and pass after it, the same number of turns in every
 * warpgroup, then end.  The pingpong functions are the ring of two. */
cute_val attn_hop_ring_start(cute_ctx *c, cute_int tid, int n);
void attn_hop_ring_turn(cute_ctx *c, cute_val wg, int n);
void attn_hop_ring_pass(cute_ctx *c, cute_val wg, int n);
void attn_hop_ring_end(cute_ctx *c, cute_val wg);
cute_val attn_hop_pingpong_start(cute_ctx *c, cute_int tid);
void attn_hop_my_turn(cute_ctx *c, cute_val first);
void attn_hop_your_turn(cute_ctx *c, cute_val first);
void attn_hop_pingpong_end(cute_ctx *c, cute_val first);
/* hopper_sched.c: the forward's persistent grid, at most p->sms blocks walking the tiles
 * (Q tile, head, batch) of Q's shape: their count; the grid; the block's tiles; its w-th */
typedef struct attn_hop_sched {
    cute_int tiles_m, heads, batch, count;
    bool snake; /* causal with p->snake */
} attn_hop_sched;
attn_hop_sched attn_hop_sched_make(cute_ctx *c, const attn_plan *p, cute_tensor mQ);
cute_int attn_hop_sched_grid(cute_ctx *c, const attn_plan *p, const attn_hop_sched *s);
cute_int attn_hop_sched_mine(cute_ctx *c, const attn_hop_sched *s);
void attn_hop_sched_tile(cute_ctx *c, const attn_plan *p, const attn_hop_sched *s, cute_int w, cute_int *m,
                         cute_int *h, cute_int *b);
/* the columns of one TMA box: the swizzle atom's row (64 elements, or 32 at head dim 96) */
int64_t attn_hop_box_cols(const attn_plan *p);
/* the boxes of a tile's row: a pipeline stage's bytes are this many boxes' (hopper_fwd.c) */
int64_t attn_hop_boxes(const attn_plan *p);
cute_tma_atom attn_hop_box_atom(cute_ctx *c, const attn_plan *p, cute_tensor g, int64_t rows);
void attn_hop_load_rows(cute_ctx *c, const attn_plan *p, const cute_tma_atom *atom, cute_val map, cute_tensor tma,
                        cute_int b, cute_int tile, cute_int h, cute_tensor s, cute_val bar);

/* This block's tiles of the (B,S,H,D) tensors and their coordinates (fwd_kernel.c). */
typedef struct attn_block {
    cute_tensor gQ, gO, cQ;  /* (bm,D) */
    cute_tensor gK, gV, cK;  /* (bn,D,n) */
    cute_tensor cS;          /* (bm,bn,n): (query row, key column) of S */
    cute_tensor gL;          /* (bm,D): the LSE of each row, broadcast along D */
    cute_int sq, sk, m_block, n_end;
    cute_int b, h, hk;       /* batch, query head, key/value head */
    cute_int n_begin;        /* the first key tile visited (0 but in a split: decode.c) */
} attn_block;
attn_block attn_block_tiles(cute_ctx *c, const attn_plan *p, cute_tensor mQ, cute_tensor mK,
                            cute_tensor mV, cute_tensor mO, cute_tensor mL);
/* The block's sequence: its Q and O rows are qb's from row q0 on (sq of them), its K and V
 * rows kb's from k0 (sk): batch b's whole rows, or (varlen) a packed sequence's. */
typedef struct attn_seq {
    cute_int qb, kb, q0, k0, sq, sk;
} attn_seq;
/* the tiles of the sequence seq of m = {Q, K, V, O, LSE}: the block's (its indices: Q tile,
 * head, batch), or (_at) Q tile m_block of head h of batch b */
attn_block attn_block_tiles_seq(cute_ctx *c, const attn_plan *p, const cute_tensor m[5], const attn_seq *seq);
attn_block attn_block_tiles_at(cute_ctx *c, const attn_plan *p, const cute_tensor m[5], const attn_seq *seq, cute_int b,
                               cute_int h, cute_int m_block);
/* the Q tile a block of Q tile index x computes for a sequence of sq rows: x, or (causal) the
 * longest first (the last Q tile sees every key), so that the short ones fill the end of the
 * grid instead of a long one running alone there; 0 past a packed sequence's end
 * (fwd_kernel.c) */
cute_int attn_q_tile(cute_ctx *c, const attn_plan *p, cute_int sq, cute_int x);
/* a block of Q tile index x past the last tile of its packed sequence of `rows` rows (shorter
 * than the longest the grid is sized for) visits no key tile and stores no row (fwd_varlen.c;
 * the varlen forward's and HSTU's jagged kernels) */
void attn_block_past_end(cute_ctx *c, const attn_plan *p, attn_block *t, cute_int rows, cute_int x);
/* the LSE of the block's rows, (bm):(s) of LSE (B,H,Sq), seen as (bm,D):(s,0): shaped like
 * O, so that O's partition finds each row's value (the backward's D likewise) */
cute_tensor attn_lse_tile(cute_ctx *c, const attn_plan *p, cute_tensor mL, cute_int b, cute_int h,
                          cute_int m_block);
/* the identity tensors of Q (Sq,D), K (Sk,D) and S (Sq,Sk), tiled as their data (cQ, cK, cS
 * of t, from its sq, sk and m_block) */
void attn_coord_tiles(cute_ctx *c, const attn_plan *p, attn_block *t);
/* the kernel after its tiles: Q resident, K and V tiles n_begin..n_end-1 streamed, the
 * online softmax, O and the LSE stored (O in gO's dtype) */
void attn_fwd_body(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_val scale_log2);
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
/* attn_plan.diag's values */
enum { ATTN_DIAG_NONE, ATTN_DIAG_NOSOFTMAX, ATTN_DIAG_NORESCALE, ATTN_DIAG_NOEXP, ATTN_DIAG_NOSUM };

typedef struct attn_rows {
    int n;          /* rows of the thread: 2 MMA_M */
    cute_val m[8], l[8];
} attn_rows;
attn_rows attn_rows_start(cute_ctx *c, int n);
void attn_softmax_tile(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_tensor acc_o,
                       cute_val scale_log2);
/* the same with FlashAttention 4's lazy rescale (the SM80 forward's): m, l and O move only
 * where a row max of the warp grew by more than 8 in log2 units (softmax.c) */
void attn_softmax_tile_lazy(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_tensor acc_o, cute_val scale_log2,
                            bool causal);
/* FlashAttention 2's (every tile's rescale) in two steps, as the Hopper kernel overlaps
 * them with P V: S replaced by P, m and l updated, corr[i] the factor O's row i is to be
 * scaled by; then O scaled */
void attn_softmax_scores(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_val scale_log2, cute_val *corr);
/* the same with the Hopper forward's diagnostics (CUTEC_ATTN_FWD_DIAG=noexp|nosum), each
 * wrong by design: no_exp, P = the exponent (no exp2); no_sum, l left alone (l = l corr + the
 * row's sum of P otherwise, FlashAttention's) */
typedef struct attn_p_form {
    bool no_exp, no_sum;
} attn_p_form;
void attn_softmax_scores_as(cute_ctx *c, attn_rows *r, cute_tensor acc_s, cute_val scale_log2, cute_val *corr,
                            attn_p_form form);
void attn_rescale(cute_ctx *c, const attn_rows *r, cute_tensor acc_o, const cute_val *corr);
/* the end: l summed over the quad of threads sharing each row, O divided by it; the
 * log-sum-exp of each row (natural log) into lse[row]; fast: 1 / l and log2 l approximate
 * (MUFU), not IEEE */
void attn_softmax_finish(cute_ctx *c, attn_rows *r, cute_tensor acc_o, cute_val scale_log2,
                         cute_val *lse, bool fast);
/* S = -inf where the key is past Sk or, causal, after the query: coords is the identity
 * tensor of (Sq, Sk) partitioned like acc_s */
void attn_mask(cute_ctx *c, cute_tensor acc_s, cute_tensor coords, cute_int sk, bool causal);

/* O's rows inside Sq, from thread thr's accumulators of the TiledMMA, in O's dtype */
void attn_store_o(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, const attn_block *t, cute_tensor acc_o);
/* O (normalized, in the inputs' dtype) and the LSE of the rows inside Sq, from the
 * accumulators of thread `thr` of the TiledMMA that computed O */
void attn_epilogue(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, const attn_block *t,
                   attn_rows *r, cute_tensor acc_o, cute_val scale_log2);
/* The general mask: S = -inf where col >= bound or col - row leaves [lo, hi] (each bound
 * only where has_lo / has_hi).  Causal is hi = 0; the backward's transposed scores S^T
 * (key rows, query columns) are causal with lo = 0. */
typedef struct attn_band {
    bool has_lo, has_hi;
    int64_t lo, hi;
} attn_band;
void attn_mask_band(cute_ctx *c, cute_tensor acc_s, cute_tensor coords, cute_int bound, attn_band band);
/* the same with another value than -inf where masked (HSTU's P: 0) */
void attn_mask_band_fill(cute_ctx *c, cute_tensor acc_s, cute_tensor coords, cute_int bound, attn_band band, double fill);
/* band.c: the band of a configuration (causal, sliding window); the key tiles [begin, end)
 * of Q tile m_block; whether key tile n of it needs the mask (keys past sk, or outside the
 * band) */
attn_band attn_cfg_band(const cute_attention_config *cfg);
void attn_key_range(cute_ctx *c, const attn_plan *p, cute_int sk, cute_int m_block, cute_int *begin, cute_int *end);
cute_val attn_tile_needs_mask(cute_ctx *c, const attn_plan *p, cute_int sk, cute_int m_block, cute_int n);
/* the same for any band and (bm, bn) tiles of a score matrix with sk columns; the band of
 * its transpose (rows and columns swapped: the backward's S^T, key rows, query columns) */
void attn_band_range(cute_ctx *c, attn_band band, int64_t bm, int64_t bn, cute_int sk, cute_int m_block,
                     cute_int *begin, cute_int *end);
cute_val attn_band_needs_mask(cute_ctx *c, attn_band band, int64_t bm, int64_t bn, cute_int sk, cute_int m_block,
                              cute_int n);
attn_band attn_band_transposed(attn_band b);
/* the first key tile from which on every tile needs the mask for Sk or the band's hi (keys
 * past Sk, or past the tile's first row's band); those before it need none for them */
cute_int attn_band_hi_masked(cute_ctx *c, attn_band band, int64_t bm, int64_t bn, cute_int sk, cute_int m_block);

/* operand.c: a shared tile as one MMA operand's fragments, loaded one k-block at a time by
 * the ldmatrix copy s2r (smem: its partition; regs: the fragment; view: regs retiled) */
typedef struct attn_operand {
    const cute_tiled_copy *s2r;
    cute_tensor smem, regs, view;
} attn_operand;
attn_operand attn_operand_make(cute_ctx *c, const attn_plan *p, const cute_tiled_copy *s2r, cute_tensor s,
                               bool a_side);
/* acc = X Y^T (acc cleared first): X the A operand, Y the B operand, both from shared tiles */
void attn_gemm_ss(cute_ctx *c, const attn_plan *p, const attn_operand *x, const attn_operand *y, cute_tensor acc);
/* the same added to acc as it is (HSTU: acc holds RAB's tile) */
void attn_gemm_ss_acc(cute_ctx *c, const attn_plan *p, const attn_operand *x, const attn_operand *y, cute_tensor acc);
/* acc += P Y: P an accumulator of the MMA converted to the dtype in registers and read as
 * the A operand (attn_c_as_a) */
void attn_gemm_rs(cute_ctx *c, const attn_plan *p, cute_tensor acc_p, const attn_operand *y, cute_tensor acc);
/* one (rows, D) tile into shared memory by cp.async, rows past `rows` zero-filled (each
 * 16-byte piece lies in one row: D is whole); id: the tile's identity tensor */
void attn_load_tile(cute_ctx *c, const attn_plan *p, cute_tensor g, cute_tensor id, cute_int rows, cute_tensor s);
/* a (rows, D) shared tile seen as (D, rows): the N-major B operand of a product by it */
cute_tensor attn_transposed(cute_ctx *c, const attn_plan *p, cute_tensor s, int64_t rows);

/* HSTU attention: silu(x) of the scores, exact or with tanh.approx (hstu.c); the Hopper
 * kernel (hstu_hopper.c), which cute_hstu_compile builds where hstu_takes_hopper says so:
 * CUTEC_HSTU_VARIANT=hopper, or sm80; unset or auto: AUTO's choice for the target and head dim */
cute_ssa hstu_silu(cute_ctx *c, cute_ssa x, bool fast);
/* the jagged function's arguments after the five tensors */
enum { HSTU_OFFSETS = 5, HSTU_MAX_LEN = 6, HSTU_JAGGED_NARGS = 7 };
/* the compiled function's arguments, both kernels': Q, K, V, RAB, O, and jagged then
 * seq_offsets and the longest length */
void hstu_arg_specs(const cute_hstu_config *cfg, cute_arg_spec specs[HSTU_JAGGED_NARGS]);
bool hstu_takes_hopper(cute_runtime *rt, const cute_hstu_config *cfg);
/* hstu.c's grid, (B, H, Q tiles) (raster_bhq), of a block of p's rows */
/* hopper_roles.c: a consumer's index tid rebuilt from its warpgroup read from lane 0, shifted,
 * or'd with its place in the warpgroup, all unsigned, for the partitions of the wgmma operands
 * in shared memory that each warpgroup offsets (the forward's Q, the backward's K, V and K^T):
 * ptxas then folds tid / 128 back to the shuffled value and builds their descriptors on the
 * uniform datapath, where from tid (in signed 64 bits: the sum's sign unknown) it built them in
 * vector registers, two R2UR a wgmma */
cute_int attn_hop_uniform_tid(cute_ctx *c, cute_int tid);

/* options.c: a sequences' offsets tensor (cu_seqlens, HSTU's seq_offsets): (B + 1) i32,
 * contiguous, B >= 1; err names who and the tensor */
bool attn_offsets_ok(const cute_call_arg *cu, const char *who, const char *name, char *err, size_t n);
/* hstu_grid for a jagged call's arguments: the sequences (offsets - 1), Q's heads, the longest */
cute_launch_cfg hstu_jagged_grid(cute_alg *a, const attn_plan *p, const cute_arg *arg);
/* a jagged block's tiles in hstu_grid: sequence b of the packed m = {Q, K, V, O, O} (rows
 * mOff[b] .. mOff[b+1] - 1, clamped into [0, T] and to RAB's N), t.b = b; *start its first row */
attn_block hstu_jagged_tiles(cute_ctx *c, const attn_plan *p, const cute_tensor m[5], cute_tensor mR, cute_tensor mOff,
                             cute_int *start);
const cute_fn *hstu_hopper_compile(cute_runtime *rt, const cute_hstu_config *cfg, char *err, size_t n);

/* lib.c: the forward's checks of a call (Q, K, V, O, lse, scale), one operand's (rank 4,
 * dtype d, D contiguous, strides multiples of 8), and the library's compiled backward */
bool attn_call_ok(const cute_call_arg *const t[4], const cute_call_arg *lse, double scale, char *err, size_t n);
bool attn_operand_ok(const cute_call_arg *t, const char *name, cute_dtype d, char *err, size_t n);
/* options.c: cute_attention_options' checks against the call's Q, K, V, O */
bool attn_options_ok(const cute_call_arg *const t[4], const cute_attention_options *o, char *err, size_t n);
const cute_fn *attn_lib_bwd_fn(cute_attention_lib *lib, const cute_attention_config *cfg, char *err, size_t n);

#endif
