/* The Hopper backward's dQ fused into the dK/dV kernel (hopper_bwd.c), after FlashAttention 3:
 * five tile products a step instead of the two kernels' seven (S and dP are not recomputed
 * by a dQ kernel).  Each step of a dK/dV block (128 keys) meets a 64-query tile; besides
 * dK and dV it makes that tile's share of dQ over its keys,
 *
 *   dQ_part (64, D) = dS (64, 128) K (128, D)      wgmma SS: dS^T written to shared memory
 *                                                  by the consumers (queries contiguous) and
 *                                                  read MN-major, K^T read from K's tile
 *
 * the two consumer warpgroups each D/2 columns.  The part goes to shared memory (sdq, the
 * threads' values in their own order, so that 16-byte stores meet no bank twice) and a
 * writer warp of the producer warpgroup adds it to the chunk of dQ's f32 sums in global
 * memory (a TMA reduce-add; the first contribution stores).
 *
 * Deterministic: the contributions to a chunk are added in one fixed order, the blocks of
 * the higher key tiles first (the order the grid launches them in: hopper_bwd.c numbers key
 * tiles down), each waiting for the chunk's count to reach its rank and counting itself in
 * once its add is complete (FlashAttention 3's deterministic mode, its semaphore; the wait
 * and the count are two other warps' than the writer's, so its step keeps no L2 round
 * trip: attn_hbdq_turns, attn_hbdq_counts).  A block
 * only waits for blocks launched before it, so blocks that run in launch order (the
 * interpreter's one worker) never wait, and on a GPU the wait ends whenever the earlier
 * blocks are resident.  The last kernel (post_kernel) scales the sums into dQ. */
#include <stdio.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/peer.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/attention/attention_bwd.h"

/* the threads at the named barriers (attn_hbdq_bars): a warpgroup's half of sdq, its 128
 * threads and the writer warp; the turn's and the count's, the writer warp and the other
 * (not atomic: the turn's warp waits a step ahead) */
enum { CONSUMERS = 256, HANDOFF = 128 + 32, TURN = 64 };

bool attn_hbdq_plan(cute_alg *a, attn_hop_bwd_plan *hp)
{
    attn_plan *p = &hp->kv;
    cute_dtype d = p->cfg.dtype;
    char name[64];
    snprintf(name, sizeof name, "SM90_64x%lldx16_F32%s_SS", (long long)p->d / 2,
             d == CUTE_BF16 ? "BF16BF16" : "F16F16");
    cute_mma_atom atom;
    if (!cute_mma_atom_named(a, name, &atom)) return false;
    cute_layout along_n = cute_layout_parse(a, "(1,2,1):(0,1,0)");
    atom.desc_stage = p->wg_uniform; /* (the lean steps: attn_plan_hopper_bwd) */
    hp->dq_mma = cute_make_tiled_mma(a, &atom, &along_n, NULL, NULL, NULL);
    cute_composed k_major;
    cute_smem_atom_gmma(a, "Layout_K_SW128_Atom", d, &k_major);
    cute_tuple ds = cute_tuple_fmt(a, "(%lld,%lld,2)", (long long)p->bm, (long long)p->bn);
    hp->smem_ds = cute_smem_layout_staged(a, &k_major, &ds);
    /* K and V, dS^T twice and the f32 dQ tile, then as many Q / dO stages as fit (at most
     * the plan's) */
    int64_t fixed = 2 * p->bm * p->d * 2 + 2 * p->bm * p->bn * 2 + p->bn * p->d * 4;
    int64_t fit = (ATTN_HOP_SMEM_BYTES - fixed) / (2 * p->bn * p->d * 2);
    p->stages = (int)(fit < p->stages ? fit : p->stages);
    if (p->stages < 2) return cute_alg_fail(a, "attention backward hopper: the fused dQ leaves %d stages", p->stages);
    cute_tuple kv = cute_tuple_fmt(a, "(%lld,%lld,%d)", (long long)p->bn, (long long)p->d, p->stages);
    p->smem_kv = cute_smem_layout_staged(a, &k_major, &kv);
    hp->fused_dq = true;
    cute_copy_atom stsm;
    if (!cute_copy_atom_named(a, "SM90_U32x4_STSM_N", d, &stsm)) return false;
    hp->ds_r2s = cute_make_tiled_copy_mma(a, &stsm, &p->mma, CUTE_MMA_C);
    /* post_kernel's store: its 256 threads 16 bytes each, D / piece of them a row */
    long long piece = 16 / cute_dtype_bytes(d), per_row = p->d / piece;
    if (p->d % piece || CONSUMERS % per_row)
        return cute_alg_fail(a, "attention backward hopper: dQ's 16-byte store at head dim %lld (%lld threads a "
                             "row do not divide %d)", (long long)p->d, per_row, CONSUMERS);
    cute_copy_atom wide = cute_copy_atom_universal(a, d, 128);
    cute_layout thr = cute_layout_fmt(a, "(%lld,%lld):(%lld,1)", CONSUMERS / per_row, per_row, per_row);
    cute_layout val = cute_layout_fmt(a, "(1,%lld):(0,1)", piece);
    hp->post_s2g = cute_make_tiled_copy_tv(a, &wide, &thr, &val);
    return !a->failed;
}

/* a warpgroup's half of the (64, D) f32 tile as the TMA boxes see it: (256, D/8) of the
 * five-mode sums' (256, D/4) chunk, the half w at column D/8 w (32 D values: slot_of) */
static cute_layout box_of(cute_alg *a, int64_t D)
{
    return cute_layout_fmt(a, "(256,%lld,1,1,1):(1,256,0,0,0)", (long long)D / 8);
}

void attn_hbdq_atoms(cute_ctx *c, attn_hop_bwd_plan *hp, cute_tensor acc)
{
    cute_layout box = box_of(cute_ctx_alg(c), hp->kv.d);
    hp->tma_dq_store = cute_make_tma_atom(c, CUTE_TMA_OP_STORE, acc, box, CUTE_SW_NONE, 1);
    hp->tma_dq_add = cute_make_tma_atom(c, CUTE_TMA_OP_REDUCE_ADD, acc, box, CUTE_SW_NONE, 1);
}

void attn_hbdq_alloc(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_smem_allocator *al, attn_hbdq_smem *m)
{
    m->sdst = cute_smem_alloc_tensor_composed(c, al, hp->kv.cfg.dtype, hp->smem_ds, 16);
    long long half = 32 * (long long)hp->kv.d;
    m->sdq = cute_smem_alloc_tensor(c, al, CUTE_F32, cute_layout_fmt(cute_ctx_alg(c), "(%lld,2):(1,%lld)", half, half),
                                    128);
    m->ds = cute_pipeline_async_create(c, al, 2, CONSUMERS, CONSUMERS);
}

static cute_tensor composed(cute_ctx *c, cute_tensor t, cute_layout l)
{
    cute_tiler tl = cute_tiler_layout(&l);
    return cute_tensor_compose(c, t, &tl);
}

/* Where consumer thread tid's dQ values (an accumulator shaped `shape`, value i its i-th in
 * column-major order) live in a (64, D) chunk: warpgroup w's in the chunk's half w (32 D
 * values from 32 D w, so that each warpgroup hands its half over alone), thread t of it its
 * four values i = 4k .. 4k + 3 at 4 t + 512 k there (the 128 threads' 16-byte pieces dense) */
static cute_tensor slot_of(cute_ctx *c, cute_tensor chunk, cute_int tid, cute_tuple shape, int64_t D)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor per = composed(c, chunk, cute_layout_fmt(a, "((4,%lld),(128,2)):((1,512),(4,%lld))", (long long)D / 16,
                                                         32 * (long long)D));
    return composed(c, CUTE_SLICE(c, per, CUTE_ALL, tid), cute_make_layout(a, shape));
}

/* sdq's half w as the TMA boxes' shared tensor */
static cute_tensor half_of(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_tensor sdq, int w)
{
    return composed(c, CUTE_SLICE(c, sdq, CUTE_ALL, w), box_of(cute_ctx_alg(c), hp->kv.d));
}

attn_hbdq attn_hbdq_consumer(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_smem *m, cute_tensor sk,
                             cute_int tid, const attn_hbdq_bars *bar)
{
    cute_alg *a = cute_ctx_alg(c);
    long long D = hp->kv.d, keys = hp->kv.bm, queries = hp->kv.bn;
    cute_tensor sdst = m->sdst, sdq = m->sdq;
    attn_hbdq q = {.sdst = sdst, .ds = m->ds, .ss = cute_tiled_mma_slice(&hp->kv.mma, tid),
                   .wg = cute_div(a, tid, cute_i(128)), .bar = *bar};
    q.staged = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 2);
    q.read = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 2);
    cute_thr_mma t = cute_tiled_mma_slice(&hp->dq_mma, tid);
    /* dS (queries, keys, 2) and K^T (D, keys): the transposes of what is stored */
    cute_tensor sds = composed(c, sdst, cute_layout_fmt(a, "(%lld,%lld,2):(%lld,1,%lld)", queries, keys, keys,
                                                        keys * queries));
    q.ads = cute_partition_A(c, t, sds);
    cute_thr_mma kt = cute_tiled_mma_slice(&hp->dq_mma, attn_hop_uniform_tid(c, tid));
    q.bk = cute_partition_B(c, kt, composed(c, sk, cute_layout_fmt(a, "(%lld,%lld):(%lld,1)", D, keys, keys)));
    q.acc = cute_partition_fragment_C(c, t, cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%lld,%lld)", queries, D)));
    q.slot = slot_of(c, sdq, tid, q.acc.layout.shape, D);
    q.r2s = cute_tiled_copy_slice(&hp->ds_r2s, tid), q.sds_d = cute_partition_D(c, q.r2s, sdst);
    return q;
}

static cute_int stage_of(cute_ctx *c, const cute_pipeline_state *s)
{
    return cute_int_from_val(c, s->index, 0);
}

/* the thread's values v of dS^T (f32) into the next buffer, once its last readers are done */
static void stage(cute_ctx *c, const attn_hop_bwd_plan *hp, attn_hbdq *q, cute_ssa v)
{
    cute_pipeline_producer_acquire(c, &q->ds, &q->staged, (cute_val){0});
    cute_alg *a = cute_ctx_alg(c);
    /* (4 stmatrix.x4 a step for 16 4-byte stores) */
    cute_tensor r = cute_make_rmem_tensor_like(c, cute_partition_C(c, q->ss, cute_tensor_slice(c, q->sdst,
                                               cute_tuple_parse(a, "(_,_,0)"))), hp->kv.cfg.dtype);
    cute_tensor_store(c, r, cute_ssa_cvt(c, v, hp->kv.cfg.dtype));
    cute_tensor dst = cute_tensor_slice(c, q->sds_d, cute_tuple_fmt(a, "(_,_,_,%I)", stage_of(c, &q->staged)));
    cute_copy(c, &hp->ds_r2s.atom, cute_retile_S(c, q->r2s, r), dst);
    cute_fence_proxy_async_shared_cta(c); /* the threads' stores, then wgmma's reads (the async proxy) */
    cute_pipeline_producer_commit(c, &q->ds, &q->staged);
    cute_pipeline_state_advance(c, &q->staged);
}

void attn_hbdq_stage_ds(cute_ctx *c, const attn_hop_bwd_plan *hp, attn_hbdq *q, cute_tensor acc_dst)
{
    stage(c, hp, q, cute_tensor_load(c, acc_dst));
}

void attn_hbdq_stage_zero(cute_ctx *c, const attn_hop_bwd_plan *hp, attn_hbdq *q, cute_tensor acc_dst)
{
    stage(c, hp, q, cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, 0), acc_dst.layout.shape));
}

void attn_hbdq_wait_ds(cute_ctx *c, const attn_hbdq *q)
{
    cute_pipeline_consumer_wait(c, &q->ds, &q->read, (cute_val){0});
}

void attn_hbdq_issue(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq *q)
{
    cute_tensor ds = cute_tensor_slice(c, q->ads, cute_tuple_fmt(cute_ctx_alg(c), "(_,_,_,%I)", stage_of(c, &q->read)));
    /* (a zero fill, not cute_gemm_zero: the accumulator live through the step, with dK's, dV's
     * and the scores', made ptxas serialize every wgmma, C7512) */
    cute_fill(c, q->acc, 0);
    cute_warpgroup_arrive(c); /* (the zeros: the compiler may set them after the batch's first) */
    cute_gemm(c, &hp->dq_mma, q->acc, ds, q->bk, q->acc);
}

/* the warpgroup's barrier of its half: bar is the halves' empty or full (sync or arrive) */
static void at_half(cute_ctx *c, const attn_hbdq *q, const int bar[2], bool sync)
{
    CUTE_IF(c, cute_int_eq(c, q->wg, cute_i(0))) {
        if (sync) cute_named_barrier_sync(c, bar[0], HANDOFF);
        else cute_named_barrier_arrive(c, bar[0], HANDOFF);
    }
    CUTE_ELSE(c) {
        if (sync) cute_named_barrier_sync(c, bar[1], HANDOFF);
        else cute_named_barrier_arrive(c, bar[1], HANDOFF);
    }
}

/* (only the barriers in the branches: the accumulator's store in one made ptxas wait for
 * the wgmmas on a divergent path and serialize them, C7518) */
void attn_hbdq_handoff(cute_ctx *c, attn_hbdq *q)
{
    cute_pipeline_consumer_release(c, &q->ds, &q->read);
    cute_pipeline_state_advance(c, &q->read);
    at_half(c, q, q->bar.empty, true);
    cute_tensor_store(c, q->slot, cute_tensor_load(c, q->acc));
    cute_fence_proxy_async_shared_cta(c); /* before the writer's TMA reads them */
    at_half(c, q, q->bar.full, false);
}

/* the key tiles [first, end) that meet query tile yt (sk keys): those adding to its chunks */
static void key_tiles(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_int sk, cute_int yt, cute_int *first,
                      cute_int *end)
{
    attn_band_range(c, attn_cfg_band(&hp->kv.cfg), hp->kv.bn, hp->kv.bm, sk, yt, first, end);
}

/* the chunk's turn of key tile xt: the key tiles that meet query tile yt, highest first */
static cute_int rank_of(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int yt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int first, end;
    key_tiles(c, hp, w->sx, yt, &first, &end);
    return cute_sub(a, cute_sub(a, end, cute_i(1)), w->xt);
}

static cute_tensor flags_of(cute_ctx *c, const attn_hbdq_writer *w, cute_int yh)
{
    return CUTE_SLICE(c, w->sem, w->b, yh, CUTE_ALL);
}

/* one thread of the writer's warp, where the warp has a tile to write */
static cute_val elected(cute_ctx *c, const attn_hbdq_writer *w)
{
    return cute_val_binop(c, CUTE_OP_AND, cute_elect_one(c), w->any);
}

/* by one thread (mine): wait for the chunk's turn (not atomic).  No proxy fence after the
 * acquire: the TMA that follows is issued once the spin has read the count (a control
 * dependency), and the add it follows was complete before that count was released
 * (counted_in); a fence.proxy.async here and there cost the writer two memory barriers
 * a step (the second early mid pass of session 35: fused 393.7 TFLOP/s against
 * fused-atomic's 478.0) */
static void await_turn(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int yh, cute_int yt)
{
    cute_grid_flag_wait(c, flags_of(c, w, yh), yt, rank_of(c, hp, w, yt));
}

/* by one thread (mine), in the chunk's turn: half h of sdq stored or added to the chunk (the
 * first in turn stores; atomic: every one adds), then wait until it is read */
static void put_half(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int yh, cute_int yt,
                     int h)
{
    const cute_int at[5] = {cute_i(0), cute_i(hp->kv.d / 8 * h), yt, yh, w->b};
    cute_tensor half = half_of(c, hp, w->sdq, h);
    if (hp->dq_atomic) {
        cute_tma_store(c, &hp->tma_dq_add, w->map_add, half, at);
    } else {
        cute_int rank = rank_of(c, hp, w, yt);
        CUTE_IF(c, cute_int_eq(c, rank, cute_i(0))) { cute_tma_store(c, &hp->tma_dq_store, w->map_store, half, at); }
        CUTE_ELSE(c) { cute_tma_store(c, &hp->tma_dq_add, w->map_add, half, at); }
    }
    cute_tma_store_wait(c, 0, true);
}

/* the writer, step k's parts: the add complete (by mine, the one that added: at most
 * `pending` bulk groups of its later ones still in flight), then handed to the count's warp
 * (attn_hbdq_counts), once it has released step k - 1's */
static void counted_in(cute_ctx *c, const attn_hbdq_writer *w, cute_int k, cute_val mine, int pending)
{
    CUTE_IF(c, mine) { cute_tma_store_wait(c, pending, false); /* (complete: its writes performed) */ }
    CUTE_IF(c, cute_int_lt(c, cute_i(0), k)) { cute_named_barrier_sync(c, w->bar.count_empty, TURN); }
    cute_named_barrier_arrive(c, w->bar.count_full, TURN); /* (orders the adds' completion before the release) */
}

void attn_hbdq_write(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int steps,
                     attn_hbdq_tile_of *tile_of, const void *job)
{
    cute_alg *a = cute_ctx_alg(c);
    for (int h = 0; h < 2; h++) { /* sdq starts empty; the consumers' part of zeros (serial_steps) dropped */
        cute_named_barrier_arrive(c, w->bar.empty[h], HANDOFF);
        cute_named_barrier_sync(c, w->bar.full[h], HANDOFF);
        cute_named_barrier_arrive(c, w->bar.empty[h], HANDOFF);
    }
    /* Not atomic: each step's parts are counted in a step late, once the next step's adds
     * are issued (its two bulk groups still in flight), the last step's after the loop; the
     * later blocks in turn wait a step longer for each chunk, but only while the grid fills:
     * a block waits only for blocks launched before it.  The writer's two L2 round trips a
     * step (session 35's mid pass: fused 433.2 TFLOP/s against fused-atomic's 478-486) are
     * other warps' now: the turn's acquire the turn's warp's (attn_hbdq_turns, a step ahead,
     * the turn handed over at a named barrier and given back as soon as it is taken), the
     * count's release the count's warp's (attn_hbdq_counts, handed the adds complete). */
    if (!hp->dq_atomic) {
        CUTE_IF(c, cute_int_lt(c, cute_i(0), steps)) { cute_named_barrier_arrive(c, w->bar.turn_empty, TURN); }
    }
    CUTE_FOR(c, i, cute_i(0), steps) {
        cute_int yh, yt;
        tile_of(c, job, i, &yh, &yt);
        cute_val mine = elected(c, w);
        if (!hp->dq_atomic) { /* the turn's warp saw the count; it waits for the next step's now */
            cute_named_barrier_sync(c, w->bar.turn_full, TURN);
            CUTE_IF(c, cute_int_lt(c, cute_add(a, i, cute_i(1)), steps)) {
                cute_named_barrier_arrive(c, w->bar.turn_empty, TURN);
            }
        }
        for (int h = 0; h < 2; h++) { /* each warpgroup's half as it comes, handed back once read */
            cute_named_barrier_sync(c, w->bar.full[h], HANDOFF);
            CUTE_IF(c, mine) { put_half(c, hp, w, yh, yt, h); }
            /* (the consumers' last handoff waits for no arrival) */
            CUTE_IF(c, cute_int_lt(c, cute_add(a, i, cute_i(1)), steps)) {
                cute_named_barrier_arrive(c, w->bar.empty[h], HANDOFF);
            }
        }
        if (!hp->dq_atomic) {
            CUTE_IF(c, cute_int_lt(c, cute_i(0), i)) { counted_in(c, w, cute_sub(a, i, cute_i(1)), mine, 2); }
        }
    }
    if (hp->dq_atomic) { /* the adds complete before the block ends */
        CUTE_IF(c, cute_elect_one(c)) { cute_tma_store_wait(c, 0, false); }
    } else {
        CUTE_IF(c, cute_int_lt(c, cute_i(0), steps)) {
            counted_in(c, w, cute_sub(a, steps, cute_i(1)), elected(c, w), 0);
        }
    }
}

void attn_hbdq_turns(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int steps,
                     attn_hbdq_tile_of *tile_of, const void *job)
{
    CUTE_FOR(c, i, cute_i(0), steps) {
        cute_int yh, yt;
        tile_of(c, job, i, &yh, &yt);
        cute_named_barrier_sync(c, w->bar.turn_empty, TURN); /* the writer took the turn before */
        CUTE_IF(c, elected(c, w)) { await_turn(c, hp, w, yh, yt); }
        cute_named_barrier_arrive(c, w->bar.turn_full, TURN); /* (an arrive orders the acquire before the writer's add) */
    }
}

void attn_hbdq_counts(cute_ctx *c, const attn_hop_bwd_plan *hp, const attn_hbdq_writer *w, cute_int steps,
                      attn_hbdq_tile_of *tile_of, const void *job)
{
    cute_alg *a = cute_ctx_alg(c);
    CUTE_FOR(c, k, cute_i(0), steps) {
        cute_int yh, yt;
        tile_of(c, job, k, &yh, &yt);
        cute_named_barrier_sync(c, w->bar.count_full, TURN); /* step k's adds complete */
        CUTE_IF(c, elected(c, w)) {
            cute_grid_flag_release(c, flags_of(c, w, yh), yt, cute_add(a, rank_of(c, hp, w, yt), cute_i(1)));
        }
        CUTE_IF(c, cute_int_lt(c, cute_add(a, k, cute_i(1)), steps)) {
            cute_named_barrier_arrive(c, w->bar.count_empty, TURN);
        }
    }
}

/* The tile of dQ v (thread t's values in the MMA's C layout) through shared memory to g,
 * whose coordinates are id's, 16 bytes a store in row order.  (Stored from the C layout, 4
 * bytes a store, post_kernel took 160 us against cuDNN's 106 for the same bytes, prof39;
 * the backward at 8x16x4096 485.0 TFLOP/s this way against 473.7 and 482.3: attnb39,
 * bench/RESULTS.md.)  The rows are padded by 16 bytes, so that a warp's C-layout stores (8
 * rows x 4 pairs) and a quarter warp's 16-byte reads (128 bytes of a row) each meet every
 * bank once. */
static void store_rows(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_smem_allocator *al, cute_thr_mma t, cute_ssa v,
                       cute_tensor g, cute_tensor id, cute_int sq)
{
    cute_alg *a = cute_ctx_alg(c);
    long long D = hp->kv.d, rows = hp->kv.bn, piece = 16 / cute_dtype_bytes(hp->kv.cfg.dtype);
    cute_tensor s = cute_smem_alloc_tensor(c, al, hp->kv.cfg.dtype,
                                           cute_layout_fmt(a, "(%lld,%lld):(%lld,1)", rows, D, D + piece), 16);
    cute_tensor_store(c, cute_partition_C(c, t, s), v);
    cute_barrier(c);
    cute_thr_copy thr = cute_tiled_copy_slice(&hp->post_s2g, cute_thread_idx(c, 0));
    cute_tensor src = cute_partition_S(c, thr, s), r = cute_make_rmem_tensor_like(c, src);
    cute_copy(c, &hp->post_s2g.atom, src, r);
    cute_ssa in = cute_elem_less(c, cute_partition_D(c, thr, id), cute_tuple_fmt(a, "(%I,%lld)", sq, D));
    cute_copy_if_whole(c, &hp->post_s2g.atom, in, r, cute_partition_D(c, thr, g));
}

/* v (the thread's sums times the scale), or zeros where not `any`, as dQ's tile yt of head h,
 * batch b, through shared memory from al */
static void post_store(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_smem_allocator *al, cute_thr_mma t, cute_ssa v,
                       cute_val any, cute_tensor mdQ, cute_int b, cute_int h, cute_int yt)
{
    cute_alg *a = cute_ctx_alg(c);
    long long D = hp->kv.d, rows = hp->kv.bn;
    cute_int sq = mdQ.layout.shape.leaf[1];
    cute_tensor ids = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", sq, D));
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", rows, D);
    if (any.r)
        v = cute_ssa_select(c, cute_ssa_scalar(c, any, v.shape), v, cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, 0), v.shape));
    store_rows(c, hp, al, t, cute_ssa_cvt(c, v, hp->kv.cfg.dtype), attn_bwd_rows_tile(c, &hp->kv, mdQ, b, h, yt, rows),
               cute_tensor_local_tile(c, ids, tile, CUTE_CRD(yt, 0), NULL), sq);
}

/* the thread's values of a chunk of the sums (shaped `shape`), times the scale */
static cute_ssa scaled_sums(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_tensor chunk, cute_int tid, cute_tuple shape,
                            cute_val scale)
{
    cute_ssa v = cute_tensor_load(c, slot_of(c, chunk, tid, shape, hp->kv.d));
    return cute_ssa_binop(c, CUTE_OP_MUL, v, cute_ssa_scalar(c, scale, v.shape));
}

/* the thread's slice of the dQ product that made the sums, and the shape of its values of
 * dQ's tile yt (their order in a chunk: slot_of) */
static cute_thr_mma post_thread(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_tensor mdQ, cute_int yt, cute_int tid,
                                cute_tuple *shape)
{
    cute_alg *a = cute_ctx_alg(c);
    long long D = hp->kv.d, rows = hp->kv.bn;
    cute_thr_mma t = cute_tiled_mma_slice(&hp->dq_mma, tid);
    cute_tensor ids = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", mdQ.layout.shape.leaf[1], D));
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", rows, D);
    *shape = cute_partition_C(c, t, cute_tensor_local_tile(c, ids, tile, CUTE_CRD(yt, 0), NULL)).layout.shape;
    return t;
}

/* one block of 256 threads a (query tile, head, batch): dQ = scale x the chunk's sums, zero
 * where nothing was added (a query tile no key tile meets) */
static void post_kernel(cute_ctx *c, cute_tensor mAcc, cute_tensor mSem, cute_tensor mdQ, cute_val scale)
{
    const attn_hop_bwd_plan *hp = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int yt = cute_block_idx(c, 0), h = cute_block_idx(c, 1), b = cute_block_idx(c, 2), tid = cute_thread_idx(c, 0);
    cute_tuple shape;
    cute_thr_mma t = post_thread(c, hp, mdQ, yt, tid, &shape);
    cute_ssa v = scaled_sums(c, hp, CUTE_SLICE(c, mAcc, CUTE_ALL, CUTE_ALL, yt, h, b), tid, shape, scale);
    cute_val any = {0};
    if (!hp->dq_atomic) { /* (atomic: the chunks were zeroed, zero_kernel) */
        cute_tensor count = cute_tensor_local_tile(c, CUTE_SLICE(c, mSem, b, h, CUTE_ALL), cute_tuple_parse(a, "(1)"),
                                                   CUTE_CRD(yt), NULL);
        any = cute_val_cmp(c, CUTE_OP_NE, cute_ssa_get(c, cute_tensor_load(c, count), 0), cute_val_const(c, CUTE_U32, 0));
    }
    cute_smem_allocator al = cute_smem_allocator_new(c);
    post_store(c, hp, &al, t, v, any, mdQ, b, h, yt);
}

/* how many key tiles add to query tile yt's chunks (sk keys): their count when complete */
static cute_int contributions(cute_ctx *c, const attn_hop_bwd_plan *hp, cute_int sk, cute_int yt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int first, end;
    key_tiles(c, hp, sk, yt, &first, &end);
    return cute_max(a, cute_i(0), cute_sub(a, end, first));
}

/* PDL (attn_hop_bwd_plan.pdl): post_kernel launched under the fused dK/dV kernel's last wave,
 * each block going on once its own chunk is complete, not once the whole grid is (a
 * griddepcontrol.wait, which only the last KV head's query heads take).  One thread waits
 * until the chunk's count reaches the number of key
 * tiles that add to it (each released once its add is complete: attn_hbdq_counts), then
 * copies the chunk into shared memory by one bulk copy: in the async proxy the adds were made
 * in, after the acquire, as the next block in turn reads it (await_turn); and not by the
 * read-only path post_kernel's loads take, which a grid still writing the sums rules out.
 * Each thread takes its values there.  The grid is (Mt, B, H), heads last, the order in
 * which the dK/dV grid completes its chunks (its heads go last too), so that the blocks of
 * the chunks completed last do not hold the slots that free first.  sk: K's rows. */
static void post_wait_kernel(cute_ctx *c, cute_tensor mAcc, cute_tensor mSem, cute_tensor mdQ, cute_tensor mK,
                             cute_val scale)
{
    const attn_hop_bwd_plan *hp = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    long long D = hp->kv.d, rows = hp->kv.bn;
    cute_int yt = cute_block_idx(c, 0), b = cute_block_idx(c, 1), h = cute_block_idx(c, 2), tid = cute_thread_idx(c, 0);
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_tensor sums = cute_smem_alloc_tensor(c, &al, CUTE_F32, cute_layout_fmt(a, "(256,%lld):(1,256)", D / 4), 128);
    int64_t bytes = rows * D * 4;
    cute_pipeline pipe = cute_pipeline_tma_async_create(c, &al, 1, CONSUMERS, bytes);
    cute_int n = contributions(c, hp, mK.layout.shape.leaf[1], yt);
    cute_pipeline_state fill = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
    /* the query heads of the last KV head, whose chunks the dK/dV grid completes last, wait
     * for its end (griddepcontrol.wait, no polling), so that no block spins on their counts
     * beside the last blocks' turns at them */
    const cute_int *ek = mK.layout.shape.leaf, *eq = mdQ.layout.shape.leaf; /* (B, S, heads, D) */
    cute_val last = cute_int_lt(c, cute_sub(a, eq[2], cute_div(a, eq[2], ek[2])), cute_add(a, h, cute_i(1)));
    CUTE_IF(c, cute_int_eq(c, tid, cute_i(0))) {
        CUTE_IF(c, last) { cute_griddepcontrol_wait(c); }
        CUTE_ELSE(c) { cute_grid_flag_wait(c, CUTE_SLICE(c, mSem, b, h, CUTE_ALL), yt, n); }
        cute_fence_proxy_async(c); /* (the acquire, then the copy's reads in the async proxy) */
        cute_pipeline_producer_acquire(c, &pipe, &fill, (cute_val){0});
        cute_tensor chunk = CUTE_SLICE(c, mAcc, CUTE_ALL, CUTE_ALL, yt, h, b);
        cute_cp_async_bulk_g2s(c, cute_tensor_ptr(c, sums, cute_i(0)), cute_tensor_ptr(c, chunk, cute_i(0)),
                               cute_val_int(c, CUTE_U32, bytes), cute_pipeline_producer_barrier(c, &pipe, &fill));
    }
    cute_pipeline_state use = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    cute_pipeline_consumer_wait(c, &pipe, &use, (cute_val){0});
    cute_tuple shape;
    cute_thr_mma t = post_thread(c, hp, mdQ, yt, tid, &shape);
    cute_ssa v = scaled_sums(c, hp, sums, tid, shape, scale);
    cute_barrier(c); /* every thread's sums read: dQ's tile goes over them */
    cute_smem_allocator over = cute_smem_allocator_overlay(c, &al);
    post_store(c, hp, &over, t, v, cute_int_lt(c, cute_i(0), n), mdQ, b, h, yt);
}

/* the grid of a block of 256 threads a (64-query tile, head, batch) */
static cute_launch_cfg chunks_cfg(cute_ctx *c, const attn_hop_bwd_plan *hp, const cute_arg *arg)
{
    const cute_int *e = arg[ATTN_BWD_Q].tensor.layout.shape.leaf; /* (B, Sq, H, D) */
    return (cute_launch_cfg){.grid = {cute_ceil_div(cute_ctx_alg(c), e[1], cute_i(hp->kv.bn)), e[2], e[0]},
                             .block = {cute_i(CONSUMERS)}};
}

void attn_hbdq_post_launch(cute_ctx *c, const attn_hop_bwd_plan *hp, const cute_arg *arg)
{
    if (hp->pdl) {
        cute_launch_cfg cfg = chunks_cfg(c, hp, arg);
        cute_int heads = cfg.grid[1];
        cfg.grid[1] = cfg.grid[2], cfg.grid[2] = heads, cfg.pdl = true; /* (Mt, B, H) */
        CUTE_LAUNCH(c, post_wait_kernel, cfg, arg[ATTN_BWD_DQACC].tensor, arg[ATTN_BWD_SEM].tensor,
                    arg[ATTN_BWD_DQ].tensor, arg[ATTN_BWD_K].tensor, arg[ATTN_BWD_SCALE].f);
        return;
    }
    CUTE_LAUNCH(c, post_kernel, chunks_cfg(c, hp, arg), arg[ATTN_BWD_DQACC].tensor, arg[ATTN_BWD_SEM].tensor,
                arg[ATTN_BWD_DQ].tensor, arg[ATTN_BWD_SCALE].f);
}

/* CUTEC_ATTN_BWD_FORM=fused-atomic: every chunk of dQ's sums zeroed, each thread its slots */
static void zero_kernel(cute_ctx *c, cute_tensor mAcc)
{
    const attn_hop_bwd_plan *hp = cute_ctx_user(c);
    long long D = hp->kv.d;
    cute_tensor chunk = CUTE_SLICE(c, mAcc, CUTE_ALL, CUTE_ALL, cute_block_idx(c, 0), cute_block_idx(c, 1),
                                   cute_block_idx(c, 2));
    cute_tensor mine = slot_of(c, chunk, cute_thread_idx(c, 0), cute_tuple_fmt(cute_ctx_alg(c), "(%lld)", D / 4), D);
    cute_tensor_store(c, mine, cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, 0), mine.layout.shape));
}

void attn_hbdq_zero_launch(cute_ctx *c, const attn_hop_bwd_plan *hp, const cute_arg *arg)
{
    CUTE_LAUNCH(c, zero_kernel, chunks_cfg(c, hp, arg), arg[ATTN_BWD_DQACC].tensor);
}
