/* The Hopper GEMM (seed 001; CuTe DSL's hopper/dense_gemm.py), warp-specialized and
 * persistent (each block walks tiles of C from the tile scheduler, tile_sched.c):
 *
 *   warpgroup 0, the producer: one elected thread walks the tiles' k-tiles, acquiring a
 *     stage of a PipelineTmaAsync (its empty barrier, then an arrive with the stage's
 *     transaction bytes on its full barrier) and issuing the TMA loads of A's and B's k-tiles
 *     into it, running ahead into the next tile while the consumers finish this one;
 *   warpgroups 1..consumers: each waits for a stage, multiplies its 64 rows of the k-tile
 *     with wgmma straight from the swizzled stage (one batch per k-tile), keeps one batch in
 *     flight (wait_group 1) and releases the stage the batch before read once it retired
 *     (every thread arrives on its empty barrier, or lane 0 of each warp: p->warp_release);
 *     then the epilogue (hopper_store.c: stmatrix and TMA stores; hopper_epilogue.c: the
 *     16-byte stores of an f32 C).
 *
 * In clusters of cluster_m x cluster_n blocks (tile_sched.c), the blocks of a cluster that
 * share B's tile (along M) or A's (along N) each load 1/cluster of it and TMA multicasts it to
 * all of them; their consumers release each stage to every block that filled it (a cluster
 * PipelineTmaAsync), and each producer waits for the last releases before its block exits.
 *
 * The producer gives its registers to the consumers (setmaxnreg 40 / 232).  TMA clips the
 * edge tiles: what lies outside A or B loads as zeros, so the partial k-tile and the partial
 * M and N tiles need no predicates in the main loop.  The plan (hopper_plan.c) picks the
 * tile, the atoms and the stages; nothing below computes an index by hand. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/warp_roles.h"

enum { WARPGROUP = 128, PRODUCER_REGS = 40, CONSUMER_REGS = 232 };
/* 192-row tiles, three consumer warpgroups (hopper_plan.c): 512 threads, launched at 128
 * registers each, 128 x 24 + 384 x 160 = 64,512 of the SM's 65,536 once they split.  (ptxas
 * compiles the consumers at the launch's 128 all the same: a warpgroup's 64 x 192 takes 96
 * accumulators and fits, 64 x 256's 128 do not.) */
enum { THREE_PRODUCER_REGS = 24, THREE_CONSUMER_REGS = 160 };

/* slice the last of `modes` modes of t (its stages) at the state's stage */
static cute_tensor stage(cute_ctx *c, cute_tensor t, int modes, const cute_pipeline_state *s)
{
    cute_int i = cute_int_from_val(c, s->index, 0);
    const char *at = modes == 3 ? "(_,_,%I)" : "(_,_,_,%I)";
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), at, i));
}

/* k-tile kt of a (rows, bk, k) tile of a TMA (coordinate) tensor */
static cute_tensor ktile(cute_ctx *c, cute_tensor t, cute_int kt)
{
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), "(_,_,%I)", kt));
}

static bool clustered(const gemm_plan *p) { return p->cluster_m * p->cluster_n > 1; }

/* the cluster's blocks: (cluster M, cluster N) -> cluster rank */
static cute_layout cluster_layout(cute_alg *a, const gemm_plan *p)
{
    return cute_layout_fmt(a, "(%d,%d):(1,%d)", p->cluster_m, p->cluster_n, p->cluster_m);
}

/* how the producer's loads of A and B go (the stage's barrier set by the caller): multicast
 * to the blocks of the cluster that share the operand, this block loading its share */
static void multicast_opts(cute_ctx *c, const gemm_plan *p, cute_tma_copy_opts *to)
{
    cute_alg *a = cute_ctx_alg(c);
    to[0] = to[1] = (cute_tma_copy_opts){0};
    if (!clustered(p)) return;
    cute_int rank = cute_int_from_val(c, cute_block_idx_in_cluster(c), 0);
    cute_int at[2] = {cute_mod(a, rank, cute_i(p->cluster_m)), cute_div(a, rank, cute_i(p->cluster_m))};
    cute_layout L = cluster_layout(a, p);
    to[0].mask = cute_tma_multicast_mask(c, L, at, 1), to[0].mc_rank = at[1]; /* A: along N */
    to[1].mask = cute_tma_multicast_mask(c, L, at, 0), to[1].mc_rank = at[0]; /* B: along M */
}

/* The call's operands, for the tiles of C each role walks */
typedef struct hopper_args {
    cute_tensor mA, mB, mC, cA, cB, cC;
    cute_tensor mV; /* the fused epilogue's vector (C where it has none) */
    gemm_scales scales; /* fp8's scale tensors (C where the call has none) */
    gemm_sched sched;
    gemm_plan tiles; /* the plan with C's tile: p's, but bn / 2 for the dual GEMM (its MMA's
                        N holds A B0^T's columns beside A B1^T's) */
    gemm_peer peer;  /* the flags between GPUs (cfg.peer_flags) */
    cute_val mapM;   /* the mirror's store map (cfg.peer_mirror) */
    cute_tensor ws, flags; /* stream-K's workspace and flags (C where none) */
} hopper_args;

/* tile (tm, tn)'s operands */
static gemm_tiles tiles_of(cute_ctx *c, const hopper_args *g, cute_int tm, cute_int tn)
{
    return gemm_tiles_at(c, &g->tiles, g->mA, g->mB, g->mC, g->cA, g->cB, g->cC, tm, tn);
}

/* the w-th tile this block takes, C's tile (tm, tn), its coordinates computed here, once:
 * left as the scheduler's expressions, their divisions would be emitted at each use -- in
 * the producer's k-tile loop, before every TMA load, and after the consumers' main loop,
 * where the tensor cores wait for the epilogue (its k-tiles alone need none) */
static gemm_tiles tile_at(cute_ctx *c, const hopper_args *g, cute_int w, cute_int *tm, cute_int *tn)
{
    gemm_sched_tile(c, &g->sched, w, tm, tn);
    *tm = cute_int_now(c, *tm), *tn = cute_int_now(c, *tn);
    return tiles_of(c, g, *tm, *tn);
}

static gemm_tiles tile(cute_ctx *c, const gemm_plan *p, const hopper_args *g, cute_int w)
{
    (void)p;
    cute_int tm, tn;
    return tile_at(c, g, w, &tm, &tn);
}

/* the k-tiles of the block's tiles (every tile's: K's) */
static cute_int tile_k_tiles(cute_ctx *c, const hopper_args *g)
{
    return gemm_tiles_at(c, &g->tiles, g->mA, g->mB, g->mC, g->cA, g->cB, g->cC, cute_i(0), cute_i(0)).k_tiles;
}

static gemm_plan tiles_plan(const gemm_plan *p)
{
    gemm_plan t = *p;
    if (p->cfg.dual) t.bn /= 2;
    return t;
}

/* One operand's k-tile (a tile of its TMA coordinate tensor) into its stage, one box of
 * p->box_rows rows at a time: the whole k-tile when K-major, 64 rows a box when M- or
 * N-major (a box spans the swizzle's 128 bytes at most).  The dual GEMM's B: its k-tile of
 * B0 (map) into the stage's first half, the same of B1 (map1) into the second. */
static void load_boxes(cute_ctx *c, const gemm_plan *p, int operand, const cute_val *map, cute_tensor tile,
                       cute_tensor smem, cute_tma_copy_opts to)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t rows = operand ? gemm_block_b_rows(p) : p->bm, box = p->box_rows[operand];
    const cute_tma_atom *atom = operand ? &p->tma_b : &p->tma_a;
    bool dual = operand && p->cfg.dual;
    cute_tuple shape = cute_tuple_fmt(a, "(%lld,%lld)", (long long)box, (long long)p->bk);
    for (int64_t i = 0; i < rows / box; i++) {
        cute_tuple at = cute_tuple_fmt(a, "(%lld,0)", (long long)i);
        cute_tensor src = dual ? tile : cute_tensor_local_tile(c, tile, shape, at, NULL);
        cute_tma_copy(c, atom, map[dual ? i : 0], src, cute_tensor_local_tile(c, smem, shape, at, NULL), to);
    }
}

cute_val gemm_hopper_load_ab(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s,
                             cute_val mapA, const cute_val *mapB, const gemm_tiles *t, cute_int kt, cute_tma_copy_opts *to)
{
    cute_pipeline_producer_acquire(c, &m->pipe, s, (cute_val){0});
    to[0].bar = to[1].bar = cute_pipeline_producer_barrier(c, &m->pipe, s);
    load_boxes(c, p, 0, &mapA, ktile(c, t->kA, kt), stage(c, m->sA, 3, s), to[0]);
    load_boxes(c, p, 1, mapB, ktile(c, t->kB, kt), stage(c, m->sB, 3, s), to[1]);
    return to[0].bar;
}

void gemm_hopper_load_ktile(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s,
                            cute_val mapA, const cute_val *mapB, const gemm_tiles *t, cute_int kt, cute_tma_copy_opts *to)
{
    gemm_hopper_load_ab(c, p, m, s, mapA, mapB, t, kt, to);
    cute_pipeline_producer_commit(c, &m->pipe, s);
    cute_pipeline_state_advance(c, s);
}

/* the producer's first `tiles` of the block's tiles in the scheduler's order, each whole */
static void produce_tiles(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m,
                          cute_val mapA, const cute_val *mapB, cute_int tiles, cute_pipeline_state *s,
                          cute_tma_copy_opts *to)
{
    CUTE_FOR(c, w, cute_i(0), tiles) {
        cute_int tm, tn;
        gemm_tiles t = tile_at(c, g, w, &tm, &tn);
        gemm_peer_wait(c, p, &g->peer, tm, tn); /* its A, B or C may come from another GPU */
        CUTE_FOR(c, kt, cute_i(0), t.k_tiles) gemm_hopper_load_ktile(c, p, m, s, mapA, mapB, &t, kt, to);
    }
}

/* PDL (p->pdl): once this block's producer has issued its last loads (its consumers are in
 * their last main loop), the stream's next grid may start, its blocks taking SMs as this
 * grid's leave and running their prologue until their own wait (hopper_kernel).  The first
 * such instruction of a block counts; a block that never issues it counts when it exits.
 * (p->pdl_early: hopper_kernel issues it instead, right after the wait.) */
static void let_next_grid_in(cute_ctx *c, const gemm_plan *p)
{
    if (p->pdl && !p->pdl_early) cute_griddepcontrol_launch_dependents(c);
}

/* The producer walks the block's tiles and their k-tiles, running ahead of the consumers by
 * as many stages as there are: the next tile's loads overlap this one's epilogue. */
static void producer(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m, cute_val mapA,
                     const cute_val *mapB)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    cute_tma_copy_opts to[2];
    multicast_opts(c, p, to);
    produce_tiles(c, p, g, m, mapA, mapB, gemm_sched_mine(c, &g->sched), &s, to);
    let_next_grid_in(c, p);
    if (clustered(p)) cute_pipeline_producer_tail(c, &m->pipe, &s);
}

/* stream-K's work item: its tile's operands (its k-tiles [w->k0, w->k1) of them) */
static gemm_tiles work_tiles(cute_ctx *c, const hopper_args *g, const gemm_work *w)
{
    cute_int tm, tn;
    gemm_sched_tile_at(c, &g->sched, w->tile, &tm, &tn);
    tm = cute_int_now(c, tm), tn = cute_int_now(c, tn);
    return gemm_tiles_at(c, &g->tiles, g->mA, g->mB, g->mC, g->cA, g->cB, g->cC, tm, tn);
}

/* The stream-K producer: the block's whole tiles as the cooperative kernel's producer loads
 * them (the scheduler's tile w of the block is stream-K's data-parallel item w: no
 * clusters, and the grid is the scheduler's blocks), then the pieces of its run (streamk.c) */
static void producer_streamk(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m,
                             cute_val mapA, const cute_val *mapB)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    cute_tma_copy_opts to[2];
    multicast_opts(c, p, to);
    gemm_streamk sk = gemm_streamk_make(c, &g->sched, tile_k_tiles(c, g)); /* (in each role: not live across setmaxnreg) */
    produce_tiles(c, p, g, m, mapA, mapB, sk.dp_mine, &s, to);
    CUTE_FOR(c, i, sk.dp_mine, sk.items) {
        gemm_work w = gemm_streamk_work(c, &sk, i);
        gemm_tiles t = work_tiles(c, g, &w);
        CUTE_FOR(c, kt, w.k0, w.k1) gemm_hopper_load_ktile(c, p, m, &s, mapA, mapB, &t, kt, to);
    }
    let_next_grid_in(c, p);
}

/* the next full stage, multiplied into the accumulators as one wgmma batch (not waited for);
 * zero: the accumulators start from it (scale-d 0 on its first k-block, the old values unread) */
static void mma_ktile_into(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s,
                           const gemm_hopper_frag *f, bool zero)
{
    if (!(p->broken & GEMM_BREAK_EARLY_READ)) cute_pipeline_consumer_wait(c, &m->pipe, s, (cute_val){0});
    cute_warpgroup_arrive(c);
    cute_tensor sA = stage(c, f->tCsA, 4, s), sB = stage(c, f->tCsB, 4, s);
    if (zero) cute_gemm_zero(c, &p->mma, f->acc, sA, sB);
    else cute_gemm(c, &p->mma, f->acc, sA, sB, f->acc);
    cute_warpgroup_commit_batch(c);
    cute_pipeline_state_advance(c, s);
}

static void mma_ktile(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s,
                      const gemm_hopper_frag *f)
{
    mma_ktile_into(c, p, m, s, f, false);
}

cute_tensor gemm_hopper_stage(cute_ctx *c, cute_tensor t, const cute_pipeline_state *s) { return stage(c, t, 4, s); }

/* the consumer threads of a warpgroup that release a stage: lane 0 of each warp
 * (p->warp_release, without clusters), else all of them (in clusters the pipeline picks a
 * warp's lanes, one a peer block) */
static int stage_releasers(const gemm_plan *p)
{
    return p->warp_release && !clustered(p) ? WARPGROUP / 32 : WARPGROUP;
}

void gemm_hopper_release(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s)
{
    if (p->broken & GEMM_BREAK_RELEASE) { /* (a broken kernel: never) */
    } else if (stage_releasers(p) == WARPGROUP) {
        cute_pipeline_consumer_release(c, &m->pipe, s);
    } else { /* (after the warp's wgmma wait: its reads of the stage are done) */
        CUTE_IF(c, cute_int_eq(c, cute_lane_idx(c), cute_i(0))) cute_pipeline_consumer_release(c, &m->pipe, s);
    }
    cute_pipeline_state_advance(c, s);
}

/* the k-tiles after a first batch the caller issued (stream-K's runs, which start from a
 * partial: in one loop with it, ptxas serialized their wgmmas, C7515) */
static void mainloop_rest(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_int k_tiles,
                          cute_pipeline_state *read, cute_pipeline_state *done, const gemm_hopper_frag *f)
{
    CUTE_FOR(c, kt, cute_i(1), k_tiles) {
        (void)kt;
        mma_ktile(c, p, m, read, f);
        cute_warpgroup_wait(c, 1); /* the batch before this one has retired: its stage is free */
        gemm_hopper_release(c, p, m, done);
    }
}

/* what a tile's main loop does while its first batch runs (mainloop, below): the tile's
 * coordinates computed (into variables read after the loop) and C's first group of loads
 * under beta (gemm_hopper_store_prefetch's arguments) */
typedef struct first_batch {
    cute_int tid;
    const hopper_args *g;
    cute_int tm, tn;         /* the scheduler's coordinates of the tile, computed at k-tile 0 ... */
    cute_val tm_at, tn_at;   /* ... into these variables, */
    cute_int tm_now, tn_now; /* ... read after the loop as these */
    cute_val beta, mapC;
    cute_tensor sC;
    const gemm_c_loads *cl;
} first_batch;

/* the block's w-th tile's first batch (its coordinates' variables declared here) */
static first_batch first_batch_of(cute_ctx *c, const hopper_args *g, cute_int w, cute_int tid, cute_val beta,
                                  cute_val mapC, cute_tensor sC, const gemm_c_loads *cl)
{
    first_batch b = {.tid = tid, .g = g, .beta = beta, .mapC = mapC, .sC = sC, .cl = cl};
    gemm_sched_tile(c, &g->sched, w, &b.tm, &b.tn);
    b.tm_now = cute_int_var(c, b.tm, &b.tm_at), b.tn_now = cute_int_var(c, b.tn, &b.tn_at);
    return b;
}

/* the tile's operands (at k-tile 0, and after the loop) */
static gemm_tiles first_batch_tiles(cute_ctx *c, const first_batch *b)
{
    return tiles_of(c, b->g, b->tm_now, b->tn_now);
}

/* One tile's main loop: one wgmma batch per k-tile, one batch in flight, each stage
 * released once the batch that read it has retired.  The accumulators zeroed, then one loop
 * over every k-tile, each batch adding to them; at k-tile 0 neither wait nor release (there
 * is no batch before it) and `then` runs (may be NULL) while the batch does, each under a
 * branch on the k-tile.  The PTX backend (the first tier's ptxas) sees each wgmma once
 * (issue 15: docs/compile_time.md).  The loop is hinted CUTE_FOR_PEEL_FIRST: the CUDA C
 * backend (the final tier) writes k-tile 0 apart, its branches folded, and the loop's bound
 * after it: NVRTC's SASS the same, instruction for instruction, as the first k-tile peeled in
 * the trace (the form measured until 2026-11-28: bench/RESULTS.md, peel39).  Ping-pong zeroes
 * by scale-d 0 at k-tile 0, its batch both ways under a branch the copy folds: with a fill,
 * ptxas folded it into the first of its two accumulator sets' wgmmas only, zeroed the other
 * by moves and waited for the first wgmma before the second (C7517 / C7519, every tile); its
 * first tier sees its wgmmas twice.  (The cooperative kernel keeps the fill: with a run-time
 * scale-d the accumulators stayed live through the epilogue into the next tile's loop, a
 * hundred register copies more there.) */
static void mainloop(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_int k_tiles,
                     cute_pipeline_state *read, cute_pipeline_state *done, const gemm_hopper_frag *f,
                     const first_batch *then)
{
    if (!p->pingpong) cute_fill(c, f->acc, 0);
    /* (k_tiles >= 1, as the hint promises: the library runs K = 0 as K = 1 of zeros) */
    CUTE_FOR_STEP(c, kt, cute_i(0), k_tiles, 1, CUTE_FOR_PEEL_FIRST) {
        cute_val first = cute_int_eq(c, kt, cute_i(0));
        if (p->pingpong) {
            CUTE_IF(c, first) mma_ktile_into(c, p, m, read, f, true);
            CUTE_ELSE(c) mma_ktile(c, p, m, read, f);
        } else {
            mma_ktile(c, p, m, read, f);
        }
        if (then) CUTE_IF(c, first) {
            cute_int_assign(c, then->tm_at, then->tm), cute_int_assign(c, then->tn_at, then->tn);
            gemm_tiles t = first_batch_tiles(c, then);
            gemm_hopper_store_prefetch(c, p, then->tid, &t, then->beta, then->mapC, then->sC, then->cl);
        }
        CUTE_IF(c, cute_int_lt(c, cute_i(0), kt)) { /* (the wait too: at k-tile 0 NVRTC's ptxas kept it) */
            cute_warpgroup_wait(c, 1); /* the batch before this one has retired: its stage is free */
            gemm_hopper_release(c, p, m, done);
        }
    }
}

void gemm_hopper_mainloop_issue(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, const gemm_tiles *t,
                                cute_pipeline_state *read, cute_pipeline_state *done, const gemm_hopper_frag *f)
{
    mainloop(c, p, m, t->k_tiles, read, done, f, NULL);
}

void gemm_hopper_mainloop_tail(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *done)
{
    cute_warpgroup_wait(c, 0);
    gemm_hopper_release(c, p, m, done);
}

void gemm_hopper_mainloop(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, const gemm_tiles *t,
                          cute_pipeline_state *read, cute_pipeline_state *done, const gemm_hopper_frag *f)
{
    gemm_hopper_mainloop_issue(c, p, m, t, read, done, f);
    gemm_hopper_mainloop_tail(c, p, m, done);
}

/* the thread's fragments: slices of the stages, and its accumulators of the MMA's whole
 * (bm, bn) tile, zero once (defined before ping-pong's first batches overwrite them: its
 * mainloop's scale-d 0); mma_tid its index among the MMA's threads */
static gemm_hopper_frag fragments(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_int mma_tid)
{
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, mma_tid);
    cute_tensor mn = cute_make_identity_tensor(c, cute_tuple_fmt(cute_ctx_alg(c), "(%lld,%lld)", (long long)p->bm,
                                                                 (long long)p->bn));
    gemm_hopper_frag f = {cute_partition_A(c, thr, m->sA), cute_partition_B(c, thr, m->sB),
                          cute_partition_fragment_C(c, thr, mn)};
    cute_fill(c, f.acc, 0);
    return f;
}

/* a consumer's state made as a producer's waits for the wrong phase (a broken kernel) */
static cute_pipeline_state read_state(cute_ctx *c, const gemm_plan *p)
{
    cute_pipeline_role role = p->broken & GEMM_BREAK_PHASE ? CUTE_PIPELINE_PRODUCER : CUTE_PIPELINE_CONSUMER;
    return cute_make_pipeline_state(c, role, p->stages);
}

/* (cl: C's loads under beta, early where this tile's first group was prefetched) */
static void epilogue(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m, cute_int tid,
                     const gemm_tiles *t, cute_tensor acc, cute_val alpha, cute_val beta, cute_val mapC,
                     const gemm_scales *sc, const gemm_c_loads *cl, bool early)
{
    cute_val maps[2] = {mapC, g->mapM};
    if (p->tma_store) gemm_hopper_store_epilogue(c, p, tid, t, acc, alpha, beta, m->sC, maps, g->mV, sc, cl, early);
    else gemm_hopper_epilogue(c, p, tid, t, acc, alpha, beta, m->sC);
}

/* with flags between GPUs, the flag of the block's w-th tile (its first where w < 0) */
static cute_tensor signal_flag(cute_ctx *c, const gemm_plan *p, const hopper_args *g, cute_int w)
{
    cute_int tm = cute_i(0), tn = cute_i(0);
    if (p->cfg.peer_flags) gemm_sched_tile(c, &g->sched, cute_max(cute_ctx_alg(c), w, cute_i(0)), &tm, &tn);
    return gemm_peer_signal_flag(c, p, &g->peer, tm, tn);
}

/* what the cooperative consumers carry from tile to tile */
typedef struct coop_state {
    gemm_hopper_frag f;
    cute_pipeline_state read, done;
    gemm_scales sc;
    cute_val alpha, beta, mapC;
    gemm_c_loads cl;
} coop_state;

static coop_state coop_begin(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m,
                             cute_int tid, cute_val alpha, cute_val beta, cute_val mapC)
{
    coop_state st = {fragments(c, p, m, tid), read_state(c, p),
                     cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages), g->scales, alpha, beta, mapC,
                     {.bars = m->c_bars}};
    st.alpha = gemm_scales_begin(c, p, &st.sc, alpha);
    st.cl = gemm_hopper_store_loads(c, p, m->c_bars);
    return st;
}

/* after tile w's main loop: the tile before's flag (its stores had this main loop to land),
 * then this one's epilogue */
static void coop_tile_end(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m,
                          cute_int tid, cute_int w, const gemm_tiles *t, cute_tensor before, coop_state *st)
{
    gemm_peer_signal(c, p, &g->peer, tid, cute_int_lt(c, cute_i(0), w), before);
    epilogue(c, p, g, m, tid, t, st->f.acc, st->alpha, st->beta, st->mapC, &st->sc, &st->cl, true);
}

/* the block's first `tiles` tiles in the scheduler's order, each whole: its main loop, then
 * its epilogue (the stores left to land under the next main loop) */
static void coop_tiles(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m, cute_int tid,
                       cute_int tiles, coop_state *st)
{
    cute_alg *a = cute_ctx_alg(c);
    bool blocks = p->cfg.scale == CUTE_GEMM_SCALE_BLOCK;
    CUTE_FOR(c, w, cute_i(0), tiles) {
        if (blocks) { /* (its own main loop: the tile's coordinates first) */
            gemm_tiles t = tile(c, p, g, w);
            gemm_hopper_store_prefetch(c, p, tid, &t, st->beta, st->mapC, m->sC, &st->cl);
            cute_tensor before = signal_flag(c, p, g, cute_sub(a, w, cute_i(1)));
            gemm_hopper_mainloop_blockscaled(c, p, m, &t, &st->read, &st->done, &st->f, tid, &st->sc);
            coop_tile_end(c, p, g, m, tid, w, &t, before, st);
            continue;
        }
        first_batch then = first_batch_of(c, g, w, tid, st->beta, st->mapC, m->sC, &st->cl);
        cute_tensor before = signal_flag(c, p, g, cute_sub(a, w, cute_i(1)));
        mainloop(c, p, m, tile_k_tiles(c, g), &st->read, &st->done, &st->f, &then);
        gemm_tiles t = first_batch_tiles(c, &then);
        gemm_hopper_mainloop_tail(c, p, m, &st->done);
        coop_tile_end(c, p, g, m, tid, w, &t, before, st);
    }
}

/* The cooperative consumers (tid: the thread's index among them): both warpgroups on each
 * of the block's tiles, 64 rows each */
static void consumer(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m, cute_int tid,
                     cute_val alpha, cute_val beta, cute_val mapC)
{
    cute_alg *a = cute_ctx_alg(c);
    coop_state st = coop_begin(c, p, g, m, tid, alpha, beta, mapC);
    coop_tiles(c, p, g, m, tid, gemm_sched_mine(c, &g->sched), &st);
    gemm_hopper_store_drain(c, p, tid);
    cute_int last = cute_sub(a, gemm_sched_mine(c, &g->sched), cute_i(1));
    gemm_peer_signal(c, p, &g->peer, tid, cute_int_lt(c, cute_i(-1), last), signal_flag(c, p, g, last));
    gemm_scales_end(c, p, &st.sc);
}

/* The stream-K consumers (cooperative): the block's whole tiles as the cooperative kernel
 * runs them (the same code: stream-K's data-parallel item w is the scheduler's tile w of the
 * block), then the pieces of its run, each onto zeros or onto the partial of the block below,
 * its partial sums to the workspace or, where it ends its tile, the epilogue */
static void consumer_streamk(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m,
                             cute_int tid, cute_val alpha, cute_val beta, cute_val mapC)
{
    cute_alg *a = cute_ctx_alg(c);
    coop_state st = coop_begin(c, p, g, m, tid, alpha, beta, mapC); /* (no scales: the plan refuses them here) */
    gemm_streamk sk = gemm_streamk_make(c, &g->sched, tile_k_tiles(c, g));
    coop_tiles(c, p, g, m, tid, sk.dp_mine, &st);
    CUTE_FOR(c, i, sk.dp_mine, sk.items) {
        gemm_work w = gemm_streamk_work(c, &sk, i);
        gemm_streamk_start_from_partial(c, p, g->ws, g->flags, tid, st.f.acc, w.first);
        mma_ktile(c, p, m, &st.read, &st.f);
        gemm_tiles t = work_tiles(c, g, &w); /* (while the first batch runs) */
        mainloop_rest(c, p, m, cute_sub(a, w.k1, w.k0), &st.read, &st.done, &st.f);
        gemm_hopper_mainloop_tail(c, p, m, &st.done);
        CUTE_IF(c, w.partial) gemm_streamk_store_partial(c, p, g->ws, g->flags, tid, st.f.acc);
        /* the tile's end: a loop of one trip or none, not a branch -- under a branch on a
         * run-time value, the trace could not prove which threads reach the epilogue's tiled
         * copies (atom_threads_here) */
        cute_int ends = cute_sub(a, cute_i(1), cute_int_from_val(c, cute_val_cvt(c, w.partial, CUTE_I32), 0));
        CUTE_FOR(c, once, cute_i(0), ends) {
            (void)once;
            epilogue(c, p, g, m, tid, &t, st.f.acc, st.alpha, st.beta, st.mapC, &st.sc, &st.cl, false);
        }
    }
    gemm_hopper_store_drain(c, p, tid);
}

/* The ping-pong turns (CUTLASS's OrderedSequenceBarrier over named barriers): warpgroup wg
 * waits for its turn at barrier `first + wg`, which the other warpgroup passes it by arriving
 * there, 256 threads a turn.  Tile i of the block is warpgroup i % 2's: it waits unless i is
 * the first, and passes unless i is the last, so every wait meets exactly one pass. */
enum { MMA_TURN = 2, EPILOGUE_TURN = 4 }; /* barriers 2, 3 and 4, 5 (1: the epilogue's) */

static void turn_wait(cute_ctx *c, int first, int wg, cute_val when)
{
    CUTE_IF(c, when) cute_named_barrier_sync(c, first + wg, 2 * WARPGROUP);
}

static void turn_pass(cute_ctx *c, int first, int wg, cute_val when)
{
    CUTE_IF(c, when) cute_named_barrier_arrive(c, first + 1 - wg, 2 * WARPGROUP);
}

/* the stages of n tiles of k_tiles k-tiles each, which the other warpgroup reads */
static void skip_tiles(cute_ctx *c, cute_pipeline_state *read, cute_pipeline_state *done, cute_int n, cute_int k_tiles)
{
    cute_val stages = cute_int_value(c, cute_mul(cute_ctx_alg(c), n, k_tiles), CUTE_U32);
    cute_pipeline_state_advance_by(c, read, stages);
    cute_pipeline_state_advance_by(c, done, stages);
}

/* Ping-pong warpgroup wg (tid: the thread's index among the consumers): the block's tiles
 * wg, wg + 2, ..., each whole, its main loop and its epilogue each in its turn; it passes the
 * MMA turn once its last batch is issued (the other's first batches queue behind it), and
 * skips the stages of the other's tiles in its pipeline states. */
static void pingpong_warpgroup(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m,
                               cute_int tid, int wg, cute_val alpha, cute_val beta, cute_val mapC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int mine = gemm_sched_mine(c, &g->sched);
    gemm_hopper_frag f = fragments(c, p, m, cute_sub(a, tid, cute_i(wg * WARPGROUP)));
    cute_pipeline_state read = read_state(c, p);
    cute_pipeline_state done = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    gemm_scales sc = g->scales; /* per tensor (the plan refuses block scales here) */
    alpha = gemm_scales_begin(c, p, &sc, alpha);
    gemm_c_loads cl = gemm_hopper_store_loads(c, p, m->c_bars);
    cute_int kts = tile_k_tiles(c, g);
    skip_tiles(c, &read, &done, cute_i(wg), kts);
    CUTE_FOR(c, j, cute_i(0), cute_ceil_div(a, cute_sub(a, mine, cute_i(wg)), cute_i(2))) {
        cute_int i = cute_add(a, cute_mul(a, j, cute_i(2)), cute_i(wg));
        cute_val not_first = cute_int_lt(c, cute_i(0), i), not_last = cute_int_lt(c, cute_add(a, i, cute_i(1)), mine);
        turn_wait(c, MMA_TURN, wg, not_first);
        first_batch then = first_batch_of(c, g, i, tid, beta, mapC, m->sC, &cl);
        mainloop(c, p, m, kts, &read, &done, &f, &then);
        gemm_tiles t = first_batch_tiles(c, &then);
        if (!(p->broken & GEMM_BREAK_TURN)) turn_pass(c, MMA_TURN, wg, not_last);
        gemm_hopper_mainloop_tail(c, p, m, &done);
        turn_wait(c, EPILOGUE_TURN, wg, not_first);
        epilogue(c, p, g, m, tid, &t, f.acc, alpha, beta, mapC, &sc, &cl, true);
        turn_pass(c, EPILOGUE_TURN, wg, not_last);
        skip_tiles(c, &read, &done, cute_i(1), kts);
    }
    gemm_hopper_store_drain(c, p, tid);
    gemm_scales_end(c, p, &sc);
}

/* the warpgroup as lane 0 of the warp has it (CUTLASS's canonical_warp_group_idx): a value
 * ptxas sees is the same across the warp, so branches on it hold no divergent path (in one,
 * ptxas serialized every wgmma: C7520) */
cute_val gemm_hopper_warpgroup(cute_ctx *c, cute_int tid)
{
    cute_val wg = cute_int_value(c, cute_div(cute_ctx_alg(c), tid, cute_i(WARPGROUP)), CUTE_I32);
    return cute_val_shfl(c, wg, cute_val_int(c, CUTE_I32, 0), CUTE_SHFL_IDX);
}

/* The ping-pong consumers (CUTLASS's KernelTmaWarpSpecializedPingpong): each warpgroup
 * computes tiles of its own, their main loops taking turns and so their epilogues, so one's
 * epilogue runs while the other's wgmmas do.  A branch each: the 128 threads of a branch
 * are the ones its MMA tiles (and its turn barriers are constants). */
static void consumer_pingpong(cute_ctx *c, const gemm_plan *p, const hopper_args *g, const gemm_hopper_smem *m,
                              cute_int tid, cute_val alpha, cute_val beta, cute_val mapC)
{
    cute_val wg = gemm_hopper_warpgroup(c, tid);
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_EQ, wg, cute_val_int(c, CUTE_I32, 0)))
        pingpong_warpgroup(c, p, g, m, tid, 0, alpha, beta, mapC);
    CUTE_ELSE(c) pingpong_warpgroup(c, p, g, m, tid, 1, alpha, beta, mapC);
}

/* the stages, C's tile (its own memory: the producer fills the stages with the next tile
 * while the consumers write this one's C) and the pipeline */
gemm_hopper_smem gemm_hopper_shared_memory(cute_ctx *c, const gemm_plan *p)
{
    cute_smem_allocator al = cute_smem_allocator_new(c);
    gemm_hopper_smem m;
    m.sA = cute_smem_alloc_tensor_composed(c, &al, p->cfg.dtype, p->smem_a, 16);
    m.sB = cute_smem_alloc_tensor_composed(c, &al, p->cfg.dtype, p->smem_b, 16);
    m.sC = m.sA;
    if (p->tma_store)
        m.sC = cute_smem_alloc_tensor_swizzled(c, &al, cute_gemm_c_dtype(&p->cfg), p->smem_store.sw, p->smem_store.layout, 16);
    else if (p->smem_epilogue)
        m.sC = cute_smem_alloc_tensor_swizzled(c, &al, cute_gemm_c_dtype(&p->cfg), p->smem_c.sw, p->smem_c.layout, 16);
    m.ring = gemm_blockscale_ring(c, &al, p);
    m.c_bars = p->tma_store ? gemm_hopper_store_barriers(c, &al, p) : (cute_tensor){0};
    int readers = p->pingpong ? 1 : p->consumers; /* the warpgroups that read (and release) a stage */
    int arrivals = readers * stage_releasers(p);   /* ... by their releasing threads */
    int64_t tx = p->tma_a.bytes * (p->bm / p->box_rows[0]) + p->tma_b.bytes * (p->bn / p->box_rows[1]) -
                 (p->broken & GEMM_BREAK_EXPECT_TX ? 16 : 0);
    if (clustered(p))
        m.pipe = cute_pipeline_tma_async_create_cluster(c, &al, p->stages, arrivals, tx,
                                                        cluster_layout(cute_ctx_alg(c), p));
    else
        m.pipe = cute_pipeline_tma_async_create(c, &al, p->stages, arrivals, tx);
    return m;
}

void gemm_hopper_roles(cute_ctx *c, kernel_warp_role *producer, kernel_warp_role *consumer, void *user)
{
    kernel_warp_roles(c, PRODUCER_REGS, CONSUMER_REGS, producer, consumer, user);
}

/* what the roles see */
typedef struct hopper_roles {
    const gemm_plan *p;
    hopper_args g;
    gemm_hopper_smem m;
    cute_val alpha, beta, mapA, mapBs[2], mapC;
} hopper_roles;

static void producer_role(cute_ctx *c, void *user, cute_int tid)
{
    const hopper_roles *r = user;
    (void)tid;
    (r->p->streamk ? producer_streamk : producer)(c, r->p, &r->g, &r->m, r->mapA, r->mapBs);
}

static void consumer_role(cute_ctx *c, void *user, cute_int tid)
{
    const hopper_roles *r = user;
    (r->p->pingpong ? consumer_pingpong : r->p->streamk ? consumer_streamk : consumer)(c, r->p, &r->g, &r->m, tid, r->alpha, r->beta, r->mapC);
}

static void hopper_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC, cute_tensor cA,
                          cute_tensor cB, cute_tensor cC, cute_val alpha, cute_val beta, cute_val mapA,
                          cute_val mapB, cute_val mapC, cute_tensor mV, cute_val mapB1, cute_tensor sa,
                          cute_tensor sb, cute_tensor so, cute_tensor amax, cute_tensor wait, cute_int wait_value,
                          cute_tensor signal, cute_int signal_value, cute_val mapM, cute_tensor ws,
                          cute_tensor flags)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_kernel_min_blocks(c, 1);
    gemm_plan tiles = tiles_plan(p);
    gemm_scales scales = {.sa = sa, .sb = sb, .out = so, .amax = amax};
    gemm_peer peer = {.wait = wait, .signal = signal, .wait_value = wait_value, .signal_value = signal_value};
    hopper_args g = {mA, mB, mC, cA, cB, cC, mV, scales, gemm_sched_make(c, &tiles, mC, p->raster), tiles, peer, mapM,
                     .ws = ws, .flags = flags};
    hopper_roles r = {p, g, gemm_hopper_shared_memory(c, p), alpha, beta, mapA, {mapB, mapB1}, mapC};
    /* PDL: the prologue above (the barriers' init) may overlap the stream's previous grid;
     * every thread waits for that grid's end and its writes here, before any role reads A,
     * B, C or the flags and before any write (the grid may read what it wrote) */
    if (p->pdl) cute_griddepcontrol_wait(c);
    if (p->pdl_early) cute_griddepcontrol_launch_dependents(c);
    int regs = gemm_blockscale_consumer_regs(cute_ctx_alg(c), p); /* (0: the GEMM's 40 / 232) */
    if (regs) kernel_warp_roles(c, 24, regs, producer_role, consumer_role, &r);
    else if (p->consumers == 3) kernel_warp_roles(c, THREE_PRODUCER_REGS, THREE_CONSUMER_REGS, producer_role, consumer_role, &r);
    else gemm_hopper_roles(c, producer_role, consumer_role, &r);
}

/* the first box of an operand's (rows, bk, stages) layout: the shared layout of its TMA
 * loads (the whole stage when K-major) */
static cute_layout first_box(cute_alg *a, const gemm_plan *p, int operand)
{
    cute_layout stage = cute_take(a, operand ? &p->smem_b.layout : &p->smem_a.layout, 0, 2);
    cute_tuple shape = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->box_rows[operand], (long long)p->bk);
    cute_tiler box = cute_tiler_shape(a, &shape);
    cute_layout L = cute_composition(a, &stage, &box);
    cute_tuple by_mode = cute_tuple_parse(a, "(1,1)");
    return cute_coalesce_profile(a, &L, &by_mode);
}

void gemm_hopper_atoms(cute_ctx *c, gemm_plan *p, cute_tensor mA, cute_tensor mB)
{
    cute_alg *a = cute_ctx_alg(c);
    /* A is shared by the cluster's blocks along N, B by those along M (the Blackwell CTA pair
     * shares neither: each block loads its own rows, counted on the pair's mbarrier) */
    int share[2] = {p->cta_pair ? 1 : p->cluster_n, p->cta_pair ? 1 : p->cluster_m};
    for (int i = 0; i < 2; i++) {
        cute_tma_op op = p->cta_pair ? CUTE_TMA_OP_LOAD_2SM : share[i] > 1 ? CUTE_TMA_OP_LOAD_MULTICAST : CUTE_TMA_OP_LOAD;
        *(i ? &p->tma_b : &p->tma_a) = cute_make_tma_atom(c, op, i ? mB : mA, first_box(a, p, i),
                                                            i ? p->smem_b.sw : p->smem_a.sw, share[i]);
    }
}

cute_tma_atom gemm_hopper_b1_atom(cute_ctx *c, const gemm_plan *p, cute_tensor mB1)
{
    return cute_make_tma_atom(c, CUTE_TMA_OP_LOAD, mB1, first_box(cute_ctx_alg(c), p, 1), p->smem_b.sw, 1);
}

void gemm_hopper_host(cute_ctx *c, const cute_arg *arg)
{
    gemm_plan *p = cute_ctx_user(c); /* the atoms join the plan: the kernel reads them */
    if (p->cfg.index_bound) cute_index_bound(c, p->cfg.index_bound);
    cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;
    gemm_hopper_atoms(c, p, mA, mB);
    cute_tensor cA = cute_make_identity_tensor(c, gemm_matrix_shape(c, mA));
    cute_tensor cB = cute_make_identity_tensor(c, gemm_matrix_shape(c, mB));
    cute_tensor cC = cute_make_identity_tensor(c, gemm_matrix_shape(c, mC));
    gemm_plan half = tiles_plan(p);
    gemm_sched s = gemm_sched_make(c, &half, mC, p->raster);
    cute_tma_atom b1 = p->tma_b; /* the dual GEMM's B1: B0's box and swizzle, its own map */
    if (p->cfg.dual) b1 = gemm_hopper_b1_atom(c, p, arg[5].tensor);
    /* the mirror: argument 9 where the call has one (hopper_peer.c) */
    cute_tensor mirror = gemm_peer_mirror(c, p, arg);
    if (p->tma_store) gemm_hopper_store_atom(c, p, mC, mirror);
    /* fp8's scales: arguments 6 to 9 where the call has them (C, unused, where not) */
    bool scaled = p->cfg.scale != CUTE_GEMM_SCALE_NONE;
    cute_tensor sc[4] = {mC, mC, mC, mC};
    for (int i = 0; scaled && i < 4; i++) sc[i] = arg[6 + i].tensor;
    /* the flags between GPUs: arguments 5 to 8 where the call has them (C and 0, unused, where not) */
    bool peer = p->cfg.peer_flags;
    cute_tensor wait = peer ? arg[5].tensor : mC, signal = peer ? arg[7].tensor : mC;
    cute_int wait_value = peer ? arg[6].i : cute_i(0), signal_value = peer ? arg[8].i : cute_i(0);
    /* stream-K's workspace and flags: arguments 6 and 7 (C, unused, where not) */
    cute_tensor ws = p->streamk ? arg[6].tensor : mC, flags = p->streamk ? arg[7].tensor : mC;
    cute_launch_cfg launch = gemm_sched_launch_cfg(c, p, &s);
    if (p->streamk) {
        cute_int k = cute_ceil_div(cute_ctx_alg(c), mA.layout.shape.leaf[1], cute_i(p->bk));
        launch = gemm_streamk_launch_cfg(c, p, &s, k);
    }
    launch.pdl = p->pdl; /* (the kernel waits: hopper_kernel) */
    /* (C's store map; A's, unused, where C does not leave by TMA) */
    CUTE_LAUNCH(c, hopper_kernel, launch, mA, mB, mC, cA, cB, cC, arg[3].f, arg[4].f,
                p->tma_a.map, p->tma_b.map, p->tma_store ? p->tma_c.map : p->tma_a.map,
                p->cfg.epilogue.bias || scaled ? arg[5].tensor : mC, b1.map, sc[0], sc[1], sc[2], sc[3], wait,
                wait_value, signal, signal_value, p->cfg.peer_mirror ? p->tma_m.map : p->tma_a.map, ws, flags);
}
