/* The Hopper backward, after FlashAttention 3's (TMA, a producer warp, two consumer
 * warpgroups, wgmma SS and RS): two kernels of one shape, after the forward (hopper_fwd.c).
 * A block of three warpgroups holds 128 rows of two resident tensors X1, X2 (loaded once
 * by TMA) and streams 64-row tiles of two others, Y1 and Y2, through a PipelineTmaAsync
 * that one producer thread fills; each consumer warpgroup, 64 resident rows, per tile:
 *
 *   A = X1 Y1^T, B = X2 Y2^T                     wgmma SS
 *   mask A; P = exp2(A scale log2 e - LSE log2 e), dS = P (B - D)      (bwd_step.c)
 *   out0 += dS Y1, and in the dK/dV kernel out1 += P Y2     wgmma RS (P, dS from registers;
 *                                                            Y^T read as an MN-major B)
 *
 *   dQ kernel:    X = (Q, dO) of (128 queries, head, batch); Y = (K, V) of every key tile
 *                 those queries see: A = S, B = dP, out0 = dQ; LSE and D per row
 *   dK/dV kernel: X = (K, V) of (128 keys, KV head, batch); Y = (Q, dO) of every query tile
 *                 of every head of its group that sees those keys: A = S^T, B = dP^T,
 *                 out0 = dK, out1 = dV; LSE and D per column, the band transposed
 *
 * Every sum is one thread's, in a fixed order, so the result is deterministic (the issue's
 * default), at the price of S and dP computed twice (7 products for FlashAttention 3's 5).
 * (The dK/dV kernel's P^T and dS^T through shared memory, its steps overlapped, measured
 * slower than these serial steps: docs/attention.md.)  At head dim 128, with
 * CUTEC_ATTN_BWD_FORM=fused (or fused-atomic), the dK/dV kernel makes dQ's parts too
 * (hopper_bwd_dq.c: 5 products, the blocks' parts added in a fixed order, or in none) and the
 * dQ kernel is not launched. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/attention/attention_bwd.h"

enum { WARPGROUP = 128, CONSUMERS = 2 };
/* the fused dQ's setmaxnreg (roles): the producer warp's loads of each step's LSE and D
 * spilled 32 bytes at 40 (ptxas; none at 56, nor the consumers at 224) */
enum { REGS_WRITER = 56, REGS_CONSUMER = 224 };

/* head dims 96 and 128, where the dK/dV kernel's accumulators (D registers a thread) leave
 * no room to overlap its steps: d128's ways everywhere (serial_steps, staged_lines, the
 * scores in place, the dQ kernel's split_gradients).  At d96, ptxas: overlapped dK/dV steps
 * spill 48 bytes (causal 200), these none, no wait injected (sm_90a, 168 registers a
 * kernel).  (d192 spills with them too: dK/dV 508 bytes, dQ 52; not taken.) */
static bool wide(const attn_plan *p)
{
    return p->d >= 96;
}

/* the kernel's tensors: X1, X2, Y1, Y2 (B, S, heads, D), the LSE and D (B, H, Sq), out0,
 * out1 (X's shape; the dQ kernel's out1 is unused) */
enum { X1, X2, Y1, Y2, LSE, DSUM, OUT0, OUT1, NTENSORS };

/* one block's work */
typedef struct hb_job {
    bool kv;                 /* the dK/dV kernel (else the dQ kernel) */
    bool fused;              /* the dK/dV kernel making dQ's sums too (hopper_bwd_dq.c) */
    bool dq_split;           /* overlapped_steps (the dQ kernel, wide): split_gradients' waits */
    const attn_hop_bwd_plan *hp;
    cute_int b, xh, xt;      /* batch, X's head and 128-row tile */
    cute_int sx, sy;         /* X's rows and Y's */
    cute_int yh0, y_first, y_count, steps; /* Y tiles y_first.. of heads yh0.. (steps of them) */
    attn_band band;          /* of the scores A (X rows, Y columns) */
    cute_val any;            /* whether any X row meets any Y row (else the one step is empty) */
    int line_bar[2];         /* staged_lines: warpgroup w's named barrier (its 128 threads) */
    attn_hbdq_bars dq_bar;   /* fused dQ's */
    bool pdl_mid;            /* PDL, the kernel after pre that a dependent follows: pdl_enter */
} hb_job;

/* The kernel's named barriers (kernels/warp_roles.h): the ping-pong ring's (attn_hop_ring_*,
 * 1 + warpgroup: three, the ring's most), then each of the kernel's own in the order that
 * numbers them 4 to 13, as they were numbered by hand before (the same PTX).  Every form
 * takes them all, so that a barrier's id is the same in each. */
static void take_barriers(cute_ctx *c, hb_job *j)
{
    kernel_bars b = kernel_bars_new();
    kernel_bars_hold(c, &b, 1, 3, "the consumers' ping-pong (attn_hop_ring)");
    attn_hbdq_bars *q = &j->dq_bar;
    q->full[0] = kernel_bar_take(c, &b, "fused dQ: warpgroup 0's half of sdq full");
    q->empty[0] = kernel_bar_take(c, &b, "fused dQ: warpgroup 0's half of sdq empty");
    j->line_bar[0] = kernel_bar_take(c, &b, "staged LSE and D: warpgroup 0's copy");
    j->line_bar[1] = kernel_bar_take(c, &b, "staged LSE and D: warpgroup 1's copy");
    q->full[1] = kernel_bar_take(c, &b, "fused dQ: warpgroup 1's half of sdq full");
    q->empty[1] = kernel_bar_take(c, &b, "fused dQ: warpgroup 1's half of sdq empty");
    q->turn_full = kernel_bar_take(c, &b, "fused dQ: the turn seen");
    q->turn_empty = kernel_bar_take(c, &b, "fused dQ: the turn taken");
    q->count_full = kernel_bar_take(c, &b, "fused dQ: the adds complete");
    q->count_empty = kernel_bar_take(c, &b, "fused dQ: the adds counted in");
}

static hb_job job_of(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_plan *p, bool kv, const cute_tensor *m)
{
    cute_alg *a = cute_ctx_alg(c);
    hb_job j = {.kv = kv, .fused = kv && hp->fused_dq, .hp = hp, .b = cute_block_idx(c, 2), .xh = cute_block_idx(c, 1)};
    cute_int bx = cute_block_idx(c, 0);
    j.dq_split = !kv && wide(p);
    j.pdl_mid = hp->pdl && (j.fused || !kv);
    if (j.fused) /* the grid (B, key tiles, KV heads): launch's */
        j.b = cute_block_idx(c, 0), bx = cute_block_idx(c, 1), j.xh = cute_block_idx(c, 2);
    const cute_int *ex = m[X1].layout.shape.leaf, *ey = m[Y1].layout.shape.leaf; /* (B, S, heads, D) */
    j.sx = ex[1], j.sy = ey[1];
    attn_band band = attn_cfg_band(&p->cfg);
    j.band = kv ? attn_band_transposed(band) : band;
    /* causal dQ: the last query tiles see the most keys, so they go first (the forward's
     * order); fused dQ: the key tiles down, the order of their turns at dQ's sums (causal, a
     * key tile meets a query tile two steps before the tile below it does, room for the
     * turn; with the key tiles up and the query tiles last first, every key tile met it at
     * the same step and each waited for the one before: the early mid pass of session 35,
     * causal 302.2 TFLOP/s against fused-atomic's 436.1); added in no set order, up (causal:
     * the longest blocks first) */
    bool down = kv ? j.fused && !hp->dq_atomic : p->cfg.causal;
    j.xt = down ? cute_sub(a, cute_ceil_div(a, j.sx, cute_i(p->bm)), cute_add(a, bx, cute_i(1))) : bx;
    cute_int first, end, all = cute_ceil_div(a, j.sy, cute_i(p->bn));
    attn_band_range(c, j.band, p->bm, p->bn, j.sy, j.xt, &first, &end);
    if (j.fused) j.any = cute_int_lt(c, first, end);
    /* at least one tile: where no query sees the block's keys (causal, Sq < Sk), the last
     * query tile, which the mask empties (its queries are all before the keys), so that every
     * block runs the same steps with no branch around them */
    j.y_first = cute_min(a, first, cute_sub(a, all, cute_i(1)));
    j.y_count = cute_max(a, cute_i(1), cute_sub(a, end, j.y_first));
    /* dK/dV: the group's query heads, each in turn; dQ: its KV head only */
    cute_int group = kv ? cute_div(a, ey[2], ex[2]) : cute_i(1);
    j.yh0 = kv ? cute_mul(a, j.xh, group) : cute_div(a, j.xh, cute_div(a, ex[2], ey[2]));
    j.steps = cute_mul(a, group, j.y_count);
    take_barriers(c, &j);
    return j;
}

/* step i's Y head and tile */
static void y_tile_of(cute_ctx *c, const hb_job *j, cute_int i, cute_int *yh, cute_int *yt)
{
    cute_alg *a = cute_ctx_alg(c);
    if (!j->kv) {
        *yh = j->yh0, *yt = cute_add(a, j->y_first, i);
        return;
    }
    *yh = cute_add(a, j->yh0, cute_div(a, i, j->y_count));
    *yt = cute_add(a, j->y_first, cute_mod(a, i, j->y_count));
}

typedef struct hb_smem {
    cute_tensor x1, x2;   /* (128, D) */
    cute_tensor lines;    /* dK/dV, wide: a step's 64 LSE and D, a copy a warpgroup (64, 2, 2);
                           * the fused kernel: a copy a stage of pl (64, 2, stages) */
    cute_pipeline pl;     /* the fused kernel: the producer's warp fills, both warpgroups read */
    attn_hbdq_smem dq;    /* fused dQ's (attn_hbdq_alloc) */
    cute_tensor y1, y2;   /* (64, D, stages) */
    cute_tensor y1t, y2t; /* the same seen as (D, 64, stages): the RS products' B */
    cute_pipeline px, py; /* X (one stage, filled once), Y (Y1 and Y2 of a tile a stage) */
} hb_smem;

static cute_tensor transposed_stages(cute_ctx *c, const attn_plan *p, cute_tensor y)
{
    long long D = p->d, bn = p->bn;
    cute_layout tr = cute_layout_fmt(cute_ctx_alg(c), "(%lld,%lld,%d):(%lld,1,%lld)", D, bn, p->stages, bn, bn * D);
    cute_tiler t = cute_tiler_layout(&tr);
    return cute_tensor_compose(c, y, &t);
}

/* The dK/dV kernel's serial steps (wide: d96, d128) stage each step's 64 LSE and D values in shared
 * memory, FlashAttention 3's way of reading them (it loads them with Q and dO): each thread
 * of a warpgroup loads one before the scores' wait, so that the load's latency hides behind
 * their wgmma, and stores it into its warpgroup's copy after; the gradients read them there,
 * unchecked (0 past the queries already) and the LSE in log2 units, a column's bound check
 * and FMUL gone.  (Each thread had loaded its 16 columns' values from global memory after
 * the wait: an L2 round trip in every step, SASS showed.) */
static bool staged_lines(const attn_plan *p, const hb_job *j)
{
    return j->kv && wide(p);
}

static hb_smem shared_memory(cute_ctx *c, const attn_plan *p, const hb_job *j)
{
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_dtype d = p->cfg.dtype;
    hb_smem m = {0};
    m.x1 = cute_smem_alloc_tensor_composed(c, &al, d, p->smem_q, 16);
    m.x2 = cute_smem_alloc_tensor_composed(c, &al, d, p->smem_q, 16);
    m.y1 = cute_smem_alloc_tensor_composed(c, &al, d, p->smem_kv, 16);
    m.y2 = cute_smem_alloc_tensor_composed(c, &al, d, p->smem_kv, 16);
    m.y1t = transposed_stages(c, p, m.y1), m.y2t = transposed_stages(c, p, m.y2);
    int threads = CONSUMERS * WARPGROUP;
    m.px = cute_pipeline_tma_async_create(c, &al, 1, threads, 2 * p->tma_q.bytes * attn_hop_boxes(p));
    m.py = cute_pipeline_tma_async_create(c, &al, p->stages, threads, 2 * p->tma_k.bytes * attn_hop_boxes(p));
    if (j->fused) attn_hbdq_alloc(c, j->hp, &al, &m.dq);
    int copies = j->fused ? p->stages : CONSUMERS;
    if (staged_lines(p, j))
        m.lines = cute_smem_alloc_tensor(c, &al, CUTE_F32, cute_layout_fmt(cute_ctx_alg(c), "(%lld,2,%d):(1,%lld,%lld)",
                                         (long long)p->bn, copies, (long long)p->bn, 2 * (long long)p->bn), 16);
    if (j->fused) m.pl = cute_pipeline_async_create(c, &al, p->stages, 32, threads);
    return m;
}

/* the TMA maps of X1, X2, Y1, Y2 and the coordinate tensors of X's and Y's shapes */
typedef struct hb_maps {
    cute_val map[4];
    cute_tensor tx, ty;
} hb_maps;

static void producer_lines(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const cute_tensor *mt,
                           cute_pipeline_state *s, cute_int yh, cute_int yt);

/* X's tiles, once (one thread) */
static void load_x(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const hb_maps *x)
{
    cute_pipeline_state sx = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
    cute_pipeline_producer_acquire(c, &m->px, &sx, (cute_val){0});
    cute_val bar = cute_pipeline_producer_barrier(c, &m->px, &sx);
    attn_hop_load_rows(c, p, &p->tma_q, x->map[X1], x->tx, j->b, j->xt, j->xh, m->x1, bar);
    attn_hop_load_rows(c, p, &p->tma_q, x->map[X2], x->tx, j->b, j->xt, j->xh, m->x2, bar);
    cute_pipeline_producer_commit(c, &m->px, &sx);
}

/* Y1 and Y2 of head yh's tile yt into state s's stage (one thread) */
static void load_y(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const hb_maps *x,
                   const cute_pipeline_state *s, cute_int yh, cute_int yt)
{
    cute_pipeline_producer_acquire(c, &m->py, s, (cute_val){0});
    cute_val b = cute_pipeline_producer_barrier(c, &m->py, s);
    attn_hop_load_rows(c, p, &p->tma_k, x->map[Y1], x->ty, j->b, yt, yh, attn_hop_stage(c, m->y1, 3, s), b);
    attn_hop_load_rows(c, p, &p->tma_k, x->map[Y2], x->ty, j->b, yt, yh, attn_hop_stage(c, m->y2, 3, s), b);
    cute_pipeline_producer_commit(c, &m->py, s);
}

/* X's tiles once, then Y1 and Y2 of every step: one thread; the fused kernel, the whole warp,
 * one lane the copies and every lane the step's LSE and D (producer_lines), which read D:
 * PDL's wait for pre first (X's copies go before it) */
static void producer(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const hb_maps *x,
                     const cute_tensor *mt)
{
    if (!j->fused) {
        load_x(c, p, j, m, x);
        cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
        CUTE_FOR(c, i, cute_i(0), j->steps) {
            cute_int yh, yt;
            y_tile_of(c, j, i, &yh, &yt);
            load_y(c, p, j, m, x, &s, yh, yt);
            cute_pipeline_state_advance(c, &s);
        }
        return;
    }
    CUTE_IF(c, cute_elect_one(c)) { load_x(c, p, j, m, x); }
    if (j->pdl_mid) cute_griddepcontrol_wait(c);
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    cute_pipeline_state sl = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    CUTE_FOR(c, i, cute_i(0), j->steps) {
        cute_int yh, yt;
        y_tile_of(c, j, i, &yh, &yt);
        CUTE_IF(c, cute_elect_one(c)) { load_y(c, p, j, m, x, &s, yh, yt); }
        cute_pipeline_state_advance(c, &s);
        producer_lines(c, p, j, m, mt, &sl, yh, yt);
    }
}

/* a consumer thread's wgmma views of the shared tiles, its accumulators and registers */
typedef struct hb_frag {
    cute_thr_mma ss, rs;
    cute_tensor sx1, sx2, sy1, sy2, sy1t, sy2t; /* (MMA,M,K); (MMA,N,K,stages) */
    cute_tensor acc_a, acc_b;                   /* (128, 64) of the scores, of their gradient */
    cute_tensor rp, rds;                        /* P and dS in the dtype, laid out as acc_a */
    cute_tensor out[2];                         /* (128, D) */
    attn_hbdq q;                                /* fused dQ */
    bool in_place;                              /* issue_scores: scale-d 0, no zero fill */
    cute_int wg, wtid;                          /* the thread's warpgroup, its index there */
    cute_tensor line, sl, sd;                   /* staged_lines: the thread's element of its
                                                 * warpgroup's copy; the copy's LSE and D
                                                 * partitioned as the scores */
} hb_frag;

/* a (64, 2) copy's LSE and D along every row of the scores ((bm, bn):(0, 1)), partitioned as
 * the thread's scores */
static void copy_views(cute_ctx *c, const attn_plan *p, const hb_frag *f, cute_tensor copy, cute_tensor *sl,
                       cute_tensor *sd)
{
    cute_layout bcast = cute_layout_fmt(cute_ctx_alg(c), "(%lld,%lld):(0,1)", (long long)p->bm, (long long)p->bn);
    cute_tiler bt = cute_tiler_layout(&bcast);
    *sl = cute_partition_C(c, f->ss, cute_tensor_compose(c, CUTE_SLICE(c, copy, CUTE_ALL, 0), &bt));
    *sd = cute_partition_C(c, f->ss, cute_tensor_compose(c, CUTE_SLICE(c, copy, CUTE_ALL, 1), &bt));
}

/* staged_lines: the thread's views of its warpgroup's copy (the fused kernel: the ring's, each
 * step's: ring_step) */
static void lines_of_thread(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, cute_int tid,
                            hb_frag *f)
{
    cute_alg *a = cute_ctx_alg(c);
    long long bn = p->bn;
    f->wg = cute_div(a, tid, cute_i(WARPGROUP)), f->wtid = cute_mod(a, tid, cute_i(WARPGROUP));
    if (j->fused) return;
    cute_tensor copy = CUTE_SLICE(c, m->lines, CUTE_ALL, CUTE_ALL, f->wg); /* (64, 2) */
    f->line = CUTE_SLICE(c, copy, cute_mod(a, f->wtid, cute_i(bn)), cute_div(a, f->wtid, cute_i(bn)));
    copy_views(c, p, f, copy, &f->sl, &f->sd);
}

static hb_frag fragments(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, cute_int tid)
{
    cute_alg *a = cute_ctx_alg(c);
    hb_frag f = {0};
    if (j->fused) f.q = attn_hbdq_consumer(c, j->hp, &m->dq, m->x1, tid, &j->dq_bar);
    f.ss = cute_tiled_mma_slice(&p->mma, tid), f.rs = cute_tiled_mma_slice(&p->pv, tid);
    cute_thr_mma xs = p->wg_uniform ? cute_tiled_mma_slice(&p->mma, attn_hop_uniform_tid(c, tid)) : f.ss;
    f.sx1 = cute_partition_A(c, xs, m->x1), f.sx2 = cute_partition_A(c, xs, m->x2);
    f.sy1 = cute_partition_B(c, f.ss, m->y1), f.sy2 = cute_partition_B(c, f.ss, m->y2);
    f.sy1t = cute_partition_B(c, f.rs, m->y1t), f.sy2t = cute_partition_B(c, f.rs, m->y2t);
    long long bm = p->bm, bn = p->bn, d = p->d;
    cute_tensor scores = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%lld,%lld)", bm, bn));
    cute_tensor rows = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%lld,%lld)", bm, d));
    f.acc_a = cute_partition_fragment_C(c, f.ss, scores);
    f.acc_b = cute_make_fragment_like(c, f.acc_a);
    /* the scores' products overwrite their accumulators in place (scale-d 0 on the first k)
     * in the two kernels, where a zero fill had ptxas inject a warpgroup.wait into the batch
     * (C7517); not where the accumulators, kept live through the step that way, spill (d64
     * causal: 8 bytes; d96 causal without it: ptxas injects the wait) or make ptxas
     * serialize every wgmma (fused dQ, C7512) */
    f.in_place = !j->fused && (wide(p) || !p->cfg.causal);
    if (f.in_place) cute_fill(c, f.acc_a, 0), cute_fill(c, f.acc_b, 0); /* (defined before: issue_scores) */
    /* the RS wgmma's A operands, in their packed words (no per-product packing to fence) */
    f.rp = cute_make_fragment_A(c, &p->pv, f.acc_a);
    f.rds = cute_make_fragment_A(c, &p->pv, f.acc_a);
    f.out[0] = cute_partition_fragment_C(c, f.rs, rows);
    f.out[1] = cute_make_fragment_like(c, f.out[0]);
    if (staged_lines(p, j)) lines_of_thread(c, p, j, m, tid, &f);
    return f;
}

/* the (128, 64) view of the LSE or D that step (yh, yt) reads: along X's rows (dQ: the
 * block's queries, broadcast along the columns) or Y's (dK/dV: the tile's queries) */
static cute_tensor line_tile(cute_ctx *c, const attn_plan *p, const hb_job *j, cute_tensor mL, cute_int yh,
                             cute_int yt)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t n = j->kv ? p->bn : p->bm;
    cute_tensor line = CUTE_SLICE(c, mL, j->b, j->kv ? yh : j->xh, CUTE_ALL);
    cute_tensor v = cute_tensor_local_tile(c, line, cute_tuple_fmt(a, "(%lld)", (long long)n),
                                           CUTE_CRD(j->kv ? yt : j->xt), NULL);
    cute_layout bcast = cute_layout_fmt(a, j->kv ? "(%lld,%lld):(0,1)" : "(%lld,%lld):(1,0)", (long long)p->bm,
                                        (long long)p->bn);
    cute_tiler bt = cute_tiler_layout(&bcast);
    return cute_tensor_compose(c, v, &bt);
}

/* what step i reads beside its scores, partitioned like them: their coordinates, the LSE
 * and D.  (Partitioned outside the branches that use them: in a branch on a dynamic value
 * the tracer cannot tell which threads run.) */
typedef struct hb_step {
    cute_int yt;
    cute_tensor cs, gl, gd;
} hb_step;

static hb_step step_views(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f, const cute_tensor *m,
                          cute_int i)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int yh;
    hb_step st;
    y_tile_of(c, j, i, &yh, &st.yt);
    cute_tensor ids = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%I)", j->sx, j->sy));
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    st.cs = cute_partition_C(c, f->ss, cute_tensor_local_tile(c, ids, tile, CUTE_CRD(j->xt, st.yt), NULL));
    st.gl = cute_partition_C(c, f->ss, line_tile(c, p, j, m[LSE], yh, st.yt));
    st.gd = cute_partition_C(c, f->ss, line_tile(c, p, j, m[DSUM], yh, st.yt));
    return st;
}

/* the step's scores masked where its tile needs it; *bound: the extent of their coordinates */
static void mask_scores(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f, const hb_step *st,
                        cute_tuple *bound)
{
    CUTE_IF(c, attn_band_needs_mask(c, j->band, p->bm, p->bn, j->sy, j->xt, st->yt)) {
        attn_mask_band(c, f->acc_a, st->cs, j->sy, j->band);
    }
    *bound = cute_tuple_fmt(cute_ctx_alg(c), "(%I,%I)", j->sx, j->sy);
}

/* the step's scores masked, then P and dS in place of them (f32); lean (staged_lines): the LSE
 * (in log2 units) and D read from the warpgroup's copy unchecked (0 past the queries:
 * line_fetch), where a bound check and a scaling a column were half the instructions of a
 * column's two values */
static void gradients(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f, const hb_step *st,
                      cute_val scale_log2, bool lean)
{
    cute_tuple bound;
    mask_scores(c, p, j, f, st, &bound);
    if (!lean) {
        attn_bwd_grads_loading(c, f->acc_a, f->acc_b, st->gl, st->gd, st->cs, bound, !j->kv, scale_log2);
        return;
    }
    attn_bwd_probs_loading(c, f->acc_a, st->gl, NULL, bound, false, scale_log2);
    attn_bwd_dsoft_loading(c, f->acc_a, f->acc_b, st->gd, NULL, bound, false);
}

/* acc += R Y^T: R (registers laid out as the scores' accumulator) as the RS wgmma's A */
static void gemm_rs(cute_ctx *c, const attn_plan *p, const hb_frag *f, cute_tensor r, cute_tensor yt, cute_tensor acc)
{
    cute_layout as_a = attn_c_as_a(cute_ctx_alg(c), &f->acc_a.layout);
    cute_tiler ta = cute_tiler_layout(&as_a);
    cute_gemm(c, &p->pv, acc, cute_tensor_compose(c, r, &ta), yt, acc);
}

/* acc = X Y^T of a stage: in place (f->in_place) or into zeros */
static void scores_product(cute_ctx *c, const attn_plan *p, const hb_frag *f, cute_tensor acc, cute_tensor x,
                           cute_tensor y)
{
    if (f->in_place) {
        cute_gemm_zero(c, &p->mma, acc, x, y);
        return;
    }
    cute_fill(c, acc, 0);
    cute_warpgroup_arrive(c); /* (again: the compiler may set the zeros after the batch's first) */
    cute_gemm(c, &p->mma, acc, x, y, acc);
}

/* issue A = X1 Y1^T and B = X2 Y2^T of the state's stage, once it is full (a batch) */
static void issue_scores(cute_ctx *c, const attn_plan *p, const hb_smem *m, const hb_frag *f,
                         const cute_pipeline_state *s)
{
    cute_pipeline_consumer_wait(c, &m->py, s, (cute_val){0});
    cute_warpgroup_arrive(c);
    scores_product(c, p, f, f->acc_a, f->sx1, attn_hop_stage(c, f->sy1, 4, s));
    scores_product(c, p, f, f->acc_b, f->sx2, attn_hop_stage(c, f->sy2, 4, s));
    cute_warpgroup_commit_batch(c);
}

/* dS (and P) into the registers the products read, freeing the accumulators */
static void convert(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f)
{
    cute_tensor_store(c, f->rds, cute_ssa_cvt(c, cute_tensor_load(c, f->acc_b), p->cfg.dtype));
    if (j->kv) cute_tensor_store(c, f->rp, cute_ssa_cvt(c, cute_tensor_load(c, f->acc_a), p->cfg.dtype));
}

/* issue out0 += dS Y1 (and out1 += P Y2) of the state's stage, and with_dq the fused dQ's
 * part of the oldest staged dS (a batch) */
static void issue_products(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f,
                           const cute_pipeline_state *s, bool with_dq)
{
    cute_warpgroup_arrive(c);
    gemm_rs(c, p, f, f->rds, attn_hop_stage(c, f->sy1t, 4, s), f->out[0]);
    if (j->kv) gemm_rs(c, p, f, f->rp, attn_hop_stage(c, f->sy2t, 4, s), f->out[1]);
    if (with_dq) attn_hbdq_issue(c, j->hp, &f->q);
    cute_warpgroup_commit_batch(c);
}

/* the state's scores issued in the warpgroup's turn (attn_hop_my_turn), on to the next stage */
static void scores_in_turn(cute_ctx *c, const attn_plan *p, const hb_smem *m, const hb_frag *f,
                           cute_pipeline_state *s, cute_val first)
{
    attn_hop_my_turn(c, first);
    issue_scores(c, p, m, f, s);
    attn_hop_your_turn(c, first);
    cute_pipeline_state_advance(c, s);
}

/* a step's products issued in the warpgroup's turn (its dS and P converted first) and
 * retired, its stage released */
static void last_products(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const hb_frag *f,
                          cute_pipeline_state *r, cute_val first)
{
    convert(c, p, j, f);
    attn_hop_my_turn(c, first);
    issue_products(c, p, j, f, r, false);
    attn_hop_your_turn(c, first);
    cute_warpgroup_wait(c, 0);
    cute_pipeline_consumer_release(c, &m->py, r);
    cute_pipeline_state_advance(c, r);
}

/* staged_lines: value w of a step's copy (64, 2): the LSE (in log2 units with staged_lines)
 * of head yh's query tile yt's query w where w < 64, else D of query w - 64 (0 past the
 * queries).  kind 0 (LSE) or 1 (D) where the caller knows which (w then the query;
 * producer_lines: one pointer made, not two and a select), -1 where w says */
static cute_val line_value(cute_ctx *c, const attn_plan *p, const hb_job *j, const cute_tensor *mt, cute_int yh,
                           cute_int yt, cute_int w, int kind)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int q = cute_add(a, cute_mul(a, yt, cute_i(p->bn)), kind < 0 ? cute_mod(a, w, cute_i(p->bn)) : w);
    cute_int at = cute_min(a, q, cute_sub(a, j->sy, cute_i(1)));
    cute_val from, is_lse = {0};
    if (kind < 0) {
        cute_val lse = cute_tensor_ptr(c, CUTE_SLICE(c, mt[LSE], j->b, yh, CUTE_ALL), at);
        cute_val dsum = cute_tensor_ptr(c, CUTE_SLICE(c, mt[DSUM], j->b, yh, CUTE_ALL), at);
        from = cute_val_select(c, cute_int_lt(c, w, cute_i(p->bn)), lse, dsum);
        is_lse = cute_int_lt(c, w, cute_i(p->bn));
    } else {
        from = cute_tensor_ptr(c, CUTE_SLICE(c, mt[kind ? DSUM : LSE], j->b, yh, CUTE_ALL), at);
    }
    cute_ssa v = cute_tensor_load(c, cute_make_tensor(c, from, cute_layout_parse(a, "(1):(0)"), 4));
    cute_val x = cute_ssa_get(c, v, 0);
    cute_val log2e = cute_val_const(c, CUTE_F32, 1.4426950408889634);
    if (staged_lines(p, j) && kind < 0)
        x = cute_val_binop(c, CUTE_OP_MUL, x, cute_val_select(c, is_lse, log2e, cute_val_const(c, CUTE_F32, 1)));
    else if (staged_lines(p, j) && kind == 0)
        x = cute_val_binop(c, CUTE_OP_MUL, x, log2e);
    return cute_val_select(c, cute_int_lt(c, q, j->sy), x, cute_val_const(c, CUTE_F32, 0));
}

/* the value the consumer thread stages for step i: value wtid of its warpgroup's copy */
static cute_val line_fetch(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f, const cute_tensor *mt,
                           cute_int i)
{
    cute_int yh, yt;
    y_tile_of(c, j, i, &yh, &yt);
    return line_value(c, p, j, mt, yh, yt, f->wtid, -1);
}

/* (The fused kernel's LSE and D come from the producer's warp, into a ring beside the Q/dO
 * stages, where the two kernels' dK/dV consumers copy them a warpgroup with two named barriers
 * a step: session 43, 8x16x4096 in turns on an H200, 577.9 / 583.1 / 584.0 TFLOP/s against the
 * consumers' copies' 526.6 / 547.1 / 523.6, x1.092; bench/RESULTS.md, attnb43.)
 * The fused kernel, by the producer's warp: the 64 LSE and D values of head yh's query tile yt
 * into state s's stage of the ring, lane l queries l + 32 k of each, each stored as it comes
 * (the warpgroup's 40 registers spilled even so: REGS_WRITER_LINES) */
static void producer_lines(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const cute_tensor *mt,
                           cute_pipeline_state *s, cute_int yh, cute_int yt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int lane = cute_lane_idx(c);
    cute_pipeline_producer_acquire(c, &m->pl, s, (cute_val){0});
    cute_tensor copy = attn_hop_stage(c, m->lines, 3, s); /* (64, 2): value w at w % 64, w / 64 */
    int per = (int)p->bn / 32; /* a lane's queries (bn: 64, 2) */
    for (int k = 0; k < 2 * per; k++) {
        cute_int qi = cute_add(a, lane, cute_i(32 * (k % per)));
        cute_tensor at = CUTE_SLICE(c, copy, qi, cute_i(k / per));
        cute_tensor_store(c, at, cute_ssa_scalar(c, line_value(c, p, j, mt, yh, yt, qi, k / per), at.layout.shape));
    }
    cute_pipeline_producer_commit(c, &m->pl, s);
    cute_pipeline_state_advance(c, s);
}

/* warpgroup wg's barrier of its 128 threads (j->line_bar) */
static void warpgroup_sync(cute_ctx *c, const hb_job *j, cute_int wg)
{
    CUTE_IF(c, cute_int_eq(c, wg, cute_i(0))) { cute_named_barrier_sync(c, j->line_bar[0], WARPGROUP); }
    CUTE_ELSE(c) { cute_named_barrier_sync(c, j->line_bar[1], WARPGROUP); }
}

/* staged_lines: v into the warpgroup's copy, once its readers of the step before are done */
static void line_stage(cute_ctx *c, const hb_job *j, const hb_frag *f, cute_val v)
{
    warpgroup_sync(c, j, f->wg);
    cute_tensor_store(c, f->line, cute_ssa_scalar(c, v, f->line.layout.shape));
    warpgroup_sync(c, j, f->wg);
}

/* staged_lines: the step's LSE and D (line, this thread's share of them) through its
 * warpgroup's copy in shared memory, where the gradients read them */
static void staged_step(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f, cute_val line,
                        hb_step *st)
{
    if (!staged_lines(p, j)) return;
    line_stage(c, j, f, line);
    st->gl = f->sl, st->gd = f->sd;
}

/* the fused kernel: the step's LSE and D from state r's stage of the ring, once the producer's
 * warp filled it */
static void ring_step(cute_ctx *c, const attn_plan *p, const hb_smem *m, const hb_frag *f,
                      const cute_pipeline_state *r, hb_step *st)
{
    cute_pipeline_consumer_wait(c, &m->pl, r, (cute_val){0});
    copy_views(c, p, f, attn_hop_stage(c, m->lines, 3, r), &st->gl, &st->gd);
}

/* one step of serial_steps: the scores, P and dS, the fused dQ's dS^T staged, then dV and dK,
 * and with_dq the fused dQ's part of the step before (a step late: the warpgroups need not
 * meet at every step to have both halves of dS^T in), each batch issued as the pipeline's
 * wait lets it (the two warpgroups' batches share the tensor cores as they come; in turns,
 * the forward's ping-pong, measured slower: docs/attention.md) */
static void serial_step(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, hb_frag *f,
                        const cute_tensor *mt, cute_val scale_log2, cute_pipeline_state *s, cute_pipeline_state *r,
                        cute_int i, bool with_dq)
{
    hb_step st = step_views(c, p, j, f, mt, i);
    cute_val line = j->fused ? (cute_val){0} : line_fetch(c, p, j, f, mt, i);
    issue_scores(c, p, m, f, s);
    cute_warpgroup_wait(c, 0);
    if (j->fused)
        ring_step(c, p, m, f, r, &st);
    else
        staged_step(c, p, j, f, line, &st);
    gradients(c, p, j, f, &st, scale_log2, staged_lines(p, j));
    if (j->fused) {
        cute_pipeline_consumer_release(c, &m->pl, r);
        cute_pipeline_state_advance(c, r);
    }
    convert(c, p, j, f);
    if (j->fused) attn_hbdq_stage_ds(c, j->hp, &f->q, f->acc_b);
    if (with_dq) attn_hbdq_wait_ds(c, &f->q);
    issue_products(c, p, j, f, s, with_dq);
    cute_warpgroup_wait(c, 0);
    if (with_dq) attn_hbdq_handoff(c, &f->q);
    cute_pipeline_consumer_release(c, &m->py, s);
    cute_pipeline_state_advance(c, s);
}

/* a product of its own batch: acc = X Y^T of the state's stage (scores) */
static void issue_score(cute_ctx *c, const attn_plan *p, const hb_frag *f, cute_tensor acc, cute_tensor x,
                        cute_tensor y, const cute_pipeline_state *s)
{
    cute_warpgroup_arrive(c);
    scores_product(c, p, f, acc, x, attn_hop_stage(c, y, 4, s));
    cute_warpgroup_commit_batch(c);
}

/* A = X1 Y1^T and B = X2 Y2^T of the state's stage, once it is full, as two batches */
static void issue_scores_apart(cute_ctx *c, const attn_plan *p, const hb_smem *m, const hb_frag *f,
                               const cute_pipeline_state *s)
{
    cute_pipeline_consumer_wait(c, &m->py, s, (cute_val){0});
    issue_score(c, p, f, f->acc_a, f->sx1, f->sy1, s);
    issue_score(c, p, f, f->acc_b, f->sx2, f->sy2, s);
}

/* The dK/dV kernel at head dims 96 and 128 (wide): a warpgroup's steps one after the other,
 * since dK, dV, the next scores and this step's dS and P in flight at once would need more
 * than 240 registers (d96: spills); the two warpgroups issue their batches as the pipeline's
 * waits let them.  (Session 30's split_step, FlashAttention 3's waits inside a step, S^T and
 * dP^T waited for apart and dV issued before dS, measured slower: 433.2 TFLOP/s against
 * 479.2.)  Fused dQ: each step's products carry the step before's dQ part, the first step's
 * that of zeros staged before (no wgmma in a branch, and a first step peeled off the loop
 * would spill), the last part alone after the loop. */
static void serial_steps(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, hb_frag *f,
                         const cute_tensor *mt, cute_val scale_log2)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    cute_pipeline_state r = {0}; /* the fused kernel: the ring's */
    if (j->fused) r = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    if (j->fused) attn_hbdq_stage_zero(c, j->hp, &f->q, f->acc_b);
    CUTE_FOR(c, i, cute_i(0), j->steps) { serial_step(c, p, j, m, f, mt, scale_log2, &s, &r, i, j->fused); }
    if (!j->fused) return;
    attn_hbdq_wait_ds(c, &f->q);
    cute_warpgroup_arrive(c);
    attn_hbdq_issue(c, j->hp, &f->q);
    cute_warpgroup_commit_batch(c);
    cute_warpgroup_wait(c, 0);
    attn_hbdq_handoff(c, &f->q);
}

/* overlapped_steps' gradients with the scores as two batches (j->dq_split, the dQ kernel at
 * head dims 96 and 128): P once S is in (dP's and the step before's products running), dS
 * once dP is (the products running).  The backward at 8x16x4096 took 6.01 ms against 6.35 with one
 * batch (H200, the mid pass of session 30). */
static void split_gradients(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_frag *f, const hb_step *st,
                            cute_val scale_log2)
{
    cute_warpgroup_wait(c, 2);
    cute_tuple bound;
    mask_scores(c, p, j, f, st, &bound);
    attn_bwd_probs_loading(c, f->acc_a, st->gl, &st->cs, bound, !j->kv, scale_log2);
    cute_warpgroup_wait(c, 1);
    attn_bwd_dsoft_loading(c, f->acc_a, f->acc_b, st->gd, &st->cs, bound, !j->kv);
}

/* The steps, overlapped as FlashAttention 3 overlaps a warpgroup's softmax with its GEMMs:
 * once step i's dS and P are in registers, the scores of step i + 1 are issued, then step
 * i's products (in one turn); wait_group 1 says the scores are in, and their gradients (in
 * f32, in the accumulators) are computed while step i's products run; wait_group 0, and step
 * i's stage is released.  The first step's scores and the last step's products are peeled
 * out of the loop (no wgmma in a branch: every block has a step, job_of).  s: the state of
 * the stage the next scores read, r: of the stage the products read. */
static void overlapped_steps(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const hb_frag *f,
                             const cute_tensor *mt, cute_val scale_log2, cute_val first)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    cute_pipeline_state r = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    hb_step first_step = step_views(c, p, j, f, mt, cute_i(0));
    scores_in_turn(c, p, m, f, &s, first);
    cute_warpgroup_wait(c, 0);
    gradients(c, p, j, f, &first_step, scale_log2, false);
    CUTE_FOR(c, i, cute_i(1), j->steps) { /* i: the step whose scores are issued */
        hb_step st = step_views(c, p, j, f, mt, i);
        convert(c, p, j, f);
        attn_hop_my_turn(c, first);
        if (j->dq_split)
            issue_scores_apart(c, p, m, f, &s);
        else
            issue_scores(c, p, m, f, &s);
        issue_products(c, p, j, f, &r, false);
        attn_hop_your_turn(c, first);
        cute_pipeline_state_advance(c, &s);
        if (j->dq_split) {
            split_gradients(c, p, j, f, &st, scale_log2);
        } else {
            cute_warpgroup_wait(c, 1);
            gradients(c, p, j, f, &st, scale_log2, false);
        }
        cute_warpgroup_wait(c, 0);
        cute_pipeline_consumer_release(c, &m->py, &r);
        cute_pipeline_state_advance(c, &r);
    }
    last_products(c, p, j, m, f, &r, first);
}

/* tid: the thread's index among the consumers; out0 times the scale (dQ, dK), out1 as is */
static void consumer(cute_ctx *c, const attn_plan *p, const hb_job *j, const hb_smem *m, const cute_tensor *mt,
                     cute_int tid, cute_val scale_log2, cute_val scale)
{
    cute_alg *a = cute_ctx_alg(c);
    hb_frag f = fragments(c, p, j, m, tid);
    cute_fill(c, f.out[0], 0);
    if (j->kv) cute_fill(c, f.out[1], 0);
    cute_pipeline_state sx = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    cute_pipeline_consumer_wait(c, &m->px, &sx, (cute_val){0});
    if (staged_lines(p, j)) {
        serial_steps(c, p, j, m, &f, mt, scale_log2);
    } else {
        cute_val first = attn_hop_pingpong_start(c, tid);
        overlapped_steps(c, p, j, m, &f, mt, scale_log2, first);
        attn_hop_pingpong_end(c, first);
    }
    cute_tensor ids = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", j->sx, (long long)p->d));
    cute_tensor cx = cute_tensor_local_tile(c, ids, cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->d),
                                            CUTE_CRD(j->xt, 0), NULL);
    for (int o = 0; o < (j->kv ? 2 : 1); o++)
        attn_bwd_store(c, p, f.rs, f.out[o], o ? NULL : &scale,
                       attn_bwd_rows_tile(c, p, mt[OUT0 + o], j->b, j->xh, j->xt, p->bm), cx, j->sx);
}

/* what the roles read */
typedef struct hb_roles {
    const attn_plan *p;
    const hb_job *j;
    const hb_smem *m;
    const hb_maps *x;
    const cute_tensor *mt;
    cute_val scale_log2, scale;
    attn_hbdq_writer w; /* fused dQ */
} hb_roles;

/* PDL (attn_hop_bwd_plan.pdl), pre's dependent, the fused dK/dV kernel or the dQ kernel
 * (pdl_mid): every role but the producer waits for pre's end (D, and the counts it zeroes)
 * here; the producer's loads of Q and dO read nothing pre writes, so the first stages fill
 * under pre's last wave (the fused kernel's producer, which loads D with them, waits too,
 * after X's loads: producer()).  Then this kernel lets its own dependent in: post_wait_kernel, or the dK/dV
 * kernel of the two kernels, which reads D without a wait of its own: every block of this
 * grid has seen pre's end before that grid may start. */
static void pdl_enter(cute_ctx *c, const hb_job *j)
{
    if (!j->pdl_mid) return;
    cute_griddepcontrol_wait(c);
    cute_griddepcontrol_launch_dependents(c);
}

static void produce(cute_ctx *c, void *arg, cute_int tid)
{
    const hb_roles *r = arg;
    (void)tid;
    producer(c, r->p, r->j, r->m, r->x, r->mt);
}

static void consume(cute_ctx *c, void *arg, cute_int tid)
{
    const hb_roles *r = arg;
    pdl_enter(c, r->j);
    consumer(c, r->p, r->j, r->m, r->mt, tid, r->scale_log2, r->scale);
}

static void tile_of_step(cute_ctx *c, const void *job, cute_int i, cute_int *yh, cute_int *yt)
{
    y_tile_of(c, job, i, yh, yt);
}

/* attn_hop_roles' split, and with the fused dQ the producer warpgroup's second warp the
 * writer of dQ's sums, its third (in order) the waiter for their turns and its fourth the releaser of
 * their counts */
static void roles(cute_ctx *c, hb_roles *r)
{
    if (!r->j->fused) {
        attn_hop_roles(c, produce, consume, r);
        return;
    }
    cute_int tid = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(WARPGROUP))) {
        /* setmaxnreg.inc takes only what the block's own decs gave back: 128 x (168 - 56) =
         * 256 x (224 - 168); producer
         * 32 with 240 asked 1024 registers more than the launch held, and the consumers waited
         * for them forever (the mid pass of session 28; the interpreter keeps no such pool) */
        cute_setmaxregister_decrease(c, REGS_WRITER);
        cute_int warp = cute_warp_idx(c);
        if (r->j->pdl_mid) {
            CUTE_IF(c, cute_int_lt(c, cute_i(0), warp)) { pdl_enter(c, r->j); }
        }
        CUTE_IF(c, cute_int_eq(c, warp, cute_i(0))) {
            produce(c, r, tid); /* (the whole warp: producer_lines) */
        }
        CUTE_IF(c, cute_int_eq(c, warp, cute_i(1))) {
            attn_hbdq_write(c, r->j->hp, &r->w, r->j->steps, tile_of_step, r->j);
        }
        if (!r->j->hp->dq_atomic) {
            CUTE_IF(c, cute_int_eq(c, warp, cute_i(2))) {
                attn_hbdq_turns(c, r->j->hp, &r->w, r->j->steps, tile_of_step, r->j);
            }
            CUTE_IF(c, cute_int_eq(c, warp, cute_i(3))) {
                attn_hbdq_counts(c, r->j->hp, &r->w, r->j->steps, tile_of_step, r->j);
            }
        }
    }
    CUTE_ELSE(c) {
        cute_setmaxregister_increase(c, REGS_CONSUMER);
        consume(c, r, cute_sub(cute_ctx_alg(c), tid, cute_i(WARPGROUP)));
    }
}

static void body(cute_ctx *c, const attn_hop_bwd_plan *hp, bool kv, const cute_tensor *mt, cute_val scale_log2,
                 cute_val scale, const cute_val *maps, const cute_tensor *sem)
{
    const attn_plan *p = kv ? &hp->kv : &hp->dq;
    cute_kernel_min_blocks(c, 1);
    hb_job j = job_of(c, hp, p, kv, mt);
    hb_smem m = shared_memory(c, p, &j);
    hb_maps x = {{maps[0], maps[1], maps[2], maps[3]}, cute_make_identity_tensor(c, mt[X1].layout.shape),
                 cute_make_identity_tensor(c, mt[Y1].layout.shape)};
    hb_roles r = {.p = p, .j = &j, .m = &m, .x = &x, .mt = mt, .scale_log2 = scale_log2, .scale = scale};
    if (j.fused)
        r.w = (attn_hbdq_writer){.sdq = m.dq.sdq, .sem = *sem, .map_store = maps[4], .map_add = maps[5],
                                 .b = j.b, .xt = j.xt, .sx = j.sx, .any = j.any, .bar = j.dq_bar};
    roles(c, &r);
}

static void dq_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mdO, cute_tensor mK, cute_tensor mV, cute_tensor mL,
                      cute_tensor mD, cute_tensor mdQ, cute_val scale_log2, cute_val scale, cute_val map_q,
                      cute_val map_do, cute_val map_k, cute_val map_v)
{
    const attn_hop_bwd_plan *hp = cute_ctx_user(c);
    const cute_tensor mt[NTENSORS] = {mQ, mdO, mK, mV, mL, mD, mdQ, mdQ};
    const cute_val maps[4] = {map_q, map_do, map_k, map_v};
    body(c, hp, false, mt, scale_log2, scale, maps, NULL);
}

/* V and dO reach it by their TMA maps only (a kernel takes at most 64 parameters) */
static void dkdv_kernel(cute_ctx *c, cute_tensor mK, cute_tensor mQ, cute_tensor mL, cute_tensor mD, cute_tensor mdK,
                        cute_tensor mdV, cute_val scale_log2, cute_val scale, cute_val map_k, cute_val map_v,
                        cute_val map_q, cute_val map_do)
{
    const attn_hop_bwd_plan *hp = cute_ctx_user(c);
    const cute_tensor mt[NTENSORS] = {mK, mK, mQ, mQ, mL, mD, mdK, mdV}; /* (X2, Y2 unread) */
    const cute_val maps[4] = {map_k, map_v, map_q, map_do};
    body(c, hp, true, mt, scale_log2, scale, maps, NULL);
}

/* the dK/dV kernel with dQ fused: mSem, the counts of dQ's sums; map_dq, the sums' TMA map
 * (of the store and of the add) */
static void dkdv_fused_kernel(cute_ctx *c, cute_tensor mK, cute_tensor mQ, cute_tensor mL, cute_tensor mD,
                              cute_tensor mdK, cute_tensor mdV, cute_tensor mSem, cute_val scale_log2, cute_val scale,
                              cute_val map_k, cute_val map_v, cute_val map_q, cute_val map_do, cute_val map_dq)
{
    const attn_hop_bwd_plan *hp = cute_ctx_user(c);
    const cute_tensor mt[NTENSORS] = {mK, mK, mQ, mQ, mL, mD, mdK, mdV}; /* (X2, Y2 unread) */
    const cute_val maps[6] = {map_k, map_v, map_q, map_do, map_dq, map_dq};
    body(c, hp, true, mt, scale_log2, scale, maps, &mSem);
}

/* the launch of one kernel: X1, X2, Y1, Y2 as the call's arguments x[0..3] */
static void launch(cute_ctx *c, attn_hop_bwd_plan *hp, attn_plan *p, const cute_arg *arg, const int x[4], bool kv)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tma_atom at[4];
    for (int i = 0; i < 4; i++) at[i] = attn_hop_box_atom(c, p, arg[x[i]].tensor, i < 2 ? p->bm : p->bn);
    p->tma_q = at[0], p->tma_k = at[2]; /* (X2's and Y2's boxes are X1's and Y1's) */
    const cute_int *e = arg[x[0]].tensor.layout.shape.leaf; /* (B, S, heads, D) */
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0]}, .block = {cute_i(p->threads)},
                           .pdl = hp->pdl}; /* (after pre, or the dQ kernel: pdl_enter) */
    const cute_arg *A = arg;
    if (kv && hp->fused_dq) {
        /* the batch entries' blocks interleave in launch order, so that a head's consecutive
         * key tiles, which add to dQ's sums in turn, start B launches apart as the grid runs,
         * while the blocks in flight stay those of B heads (their Q, dO and sums in L2); a
         * block waits only for blocks of lower index (the higher key tiles: job_of) */
        cfg.grid[0] = e[0], cfg.grid[1] = cute_ceil_div(a, e[1], cute_i(p->bm)), cfg.grid[2] = e[2];
        attn_hbdq_atoms(c, hp, A[ATTN_BWD_DQACC].tensor);
        CUTE_LAUNCH(c, dkdv_fused_kernel, cfg, A[x[0]].tensor, A[x[2]].tensor, A[ATTN_BWD_LSE].tensor,
                    A[ATTN_BWD_D].tensor, A[ATTN_BWD_DK].tensor, A[ATTN_BWD_DV].tensor, A[ATTN_BWD_SEM].tensor,
                    A[ATTN_BWD_SCALE_LOG2].f, A[ATTN_BWD_SCALE].f, at[0].map, at[1].map, at[2].map, at[3].map,
                    hp->tma_dq_store.map);
    } else if (kv)
        CUTE_LAUNCH(c, dkdv_kernel, cfg, A[x[0]].tensor, A[x[2]].tensor, A[ATTN_BWD_LSE].tensor, A[ATTN_BWD_D].tensor,
                    A[ATTN_BWD_DK].tensor, A[ATTN_BWD_DV].tensor, A[ATTN_BWD_SCALE_LOG2].f, A[ATTN_BWD_SCALE].f,
                    at[0].map, at[1].map, at[2].map, at[3].map);
    else
        CUTE_LAUNCH(c, dq_kernel, cfg, A[x[0]].tensor, A[x[1]].tensor, A[x[2]].tensor, A[x[3]].tensor,
                    A[ATTN_BWD_LSE].tensor, A[ATTN_BWD_D].tensor, A[ATTN_BWD_DQ].tensor, A[ATTN_BWD_SCALE_LOG2].f,
                    A[ATTN_BWD_SCALE].f, at[0].map, at[1].map, at[2].map, at[3].map);
}

void attn_hop_bwd_host(cute_ctx *c, const cute_arg *arg)
{
    attn_hop_bwd_plan *hp = cute_ctx_user(c); /* the atoms join the plans: the kernels read them */
    attn_bwd_pre_launch(c, &hp->pre, arg, hp->fused_dq && !hp->dq_atomic);
    if (!hp->fused_dq) launch(c, hp, &hp->dq, arg, (const int[4]){ATTN_BWD_Q, ATTN_BWD_DO, ATTN_BWD_K, ATTN_BWD_V}, false);
    if (hp->fused_dq && hp->dq_atomic) attn_hbdq_zero_launch(c, hp, arg);
    launch(c, hp, &hp->kv, arg, (const int[4]){ATTN_BWD_K, ATTN_BWD_V, ATTN_BWD_Q, ATTN_BWD_DO}, true);
    if (hp->fused_dq) attn_hbdq_post_launch(c, hp, arg);
}
