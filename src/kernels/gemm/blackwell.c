/* The Blackwell GEMM (seed 001; CuTe DSL's blackwell/dense_gemm_persistent.py, one CTA),
 * warp-specialized and persistent (each block walks tiles of C from the tile scheduler,
 * tile_sched.c), six warps:
 *
 *   warp 5, TMA: one elected thread walks the tiles' k-tiles, filling the stages of a
 *     PipelineTmaUmma with A's and B's k-tiles (the Hopper kernel's loads, hopper.c), running
 *     ahead into the next tile;
 *   warp 4, MMA: it allocates the tensor memory; one elected thread waits for each stage,
 *     issues the tile's tcgen05.mma (SM100_MMA_F16BF16_SS, cute_umma_gemm) into one of two
 *     accumulator stages and releases the stage by a tcgen05.commit on its empty barrier;
 *     after a tile's last k-tile it commits the accumulator stage to a PipelineUmmaAsync;
 *   warps 0-3, the epilogue (blackwell_epilogue.c): each waits for the accumulator stage,
 *     reads its 32 lanes (tcgen05.ld, T2R), scales and stores its rows of C, and frees the
 *     stage for the tile after next.
 *
 * NVFP4 (e2m1 A and B, ue4m3 scales, SM100_MMA_MXF4NVF4_SS): A and B travel as their bytes;
 * the TMA warp also loads each k-tile's scales (4 SfKMajorAtoms of A's tile, 4 of B's: the
 * layout of CuTe's tile_atom_to_shape_SF, atoms of 128 rows x 64 of K, K's atoms contiguous)
 * into the stage by TMA (a map of the scale bytes as (256, 2, K's atoms, rows' atoms):
 * gemm_bw_sf_arg), and the MMA thread copies them into tensor memory (S2T, tcgen05.cp
 * .32x128b.warpx4) before the k-tile's MMAs; an atom past K's last is TMA's zeros (as are its
 * A and B).  MXFP8 (e4m3 A and B, ue8m0 scales per 32 of K, SM100_MMA_MXF8F6F4_SS): the same
 * with k-tiles of 128 e4m3 and one atom (128 rows x 4 scales) of A's and of B's scales each;
 * MXFP4 with two.
 *
 * The dual GEMM (SwiGLU): the stage's B holds B0's k-tile of bn / 2 rows then B1's (two TMA
 * maps, the Hopper kernel's loads), one MMA of N = bn puts A B0^T and A B1^T side by side in
 * the accumulator, and the epilogue stores silu(left) * right to C's tile of bn / 2 columns.
 *
 * The CTA pair (p->cta_pair; CuTe DSL's use_2cta_instrs): clusters of 2 along M, the even
 * block the leader.  Each block stages its own 128 rows of A and its half of B's bn rows
 * (CUTE_TMA_OP_LOAD_2SM: the bytes of both counted on the leader's full stage), allocates
 * the pair's columns, and runs the epilogue of its own 128 x bn tile of C; the leader's MMA
 * thread alone issues SM100_MMA_F16BF16_2x1SM_SS of 256 x bn over both blocks' stages and
 * commits to both blocks' barriers (the pair's pipelines, cutec/pipeline.h).  The pair's
 * block-scaled GEMMs (SM100_MMA_MXF4NVF4_2x1SM_SS and friends): each block also loads (TMA, 2SM:
 * onto the leader's full stage) the scales of its own 128 rows of A and of all bn rows of B,
 * and the leader's tcgen05.cp.cta_group::2 copies each block's into its own tensor memory.
 *
 * TMA clips the edge tiles (zeros outside A and B), so the main loop has no predicates; the
 * epilogue predicates its stores.  Verified on the interpreter and compiled by ptxas for
 * sm_100a; no Blackwell has run it (docs/blackwell.md). */
#include <string.h>

#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/umma.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/tmem_columns.h"

enum { EPILOGUE_WARPS = 4, MMA_WARP = 4, ACC_STAGES = 2 };

/* what every role sees */
typedef struct bw_kernel {
    const gemm_plan *p;
    gemm_plan tiles;     /* C's tile: p's, but bn / 2 for the dual GEMM */
    gemm_plan loads;     /* the CTA pair's: the tiles one block loads (bn / 2 of B's rows) */
    cute_tensor mA, mB, mC, cA, cB, cC;
    gemm_sched sched;
    gemm_hopper_smem m;  /* the stages and their PipelineTmaUmma */
    cute_pipeline acc;   /* the accumulator stages' PipelineUmmaAsync */
    cute_val taddr;      /* the tensor memory: lane 0, the first column */
    cute_val alpha, beta, mapA, mapB[2]; /* B's map, and the dual GEMM's B1's */
    /* NVFP4, MXFP4 and MXFP8: the scales' TMA maps and their stages (sf_atoms atoms, stages) */
    cute_val mapSFA, mapSFB;
    cute_tensor sSFA, sSFB;
    const gemm_groups *groups; /* the grouped GEMM's (its tiles, its producer), or NULL */
} bw_kernel;

static bool fp4(const gemm_plan *p) { return p->cfg.dtype == CUTE_E2M1; } /* NVFP4 or MXFP4: as bytes */
static bool scaled(const gemm_plan *p) { return p->sf_atoms > 0; } /* NVFP4, MXFP4 or MXFP8 */

gemm_plan gemm_blackwell_tiles(const gemm_plan *p)
{
    gemm_plan t = *p;
    if (p->cfg.dual) t.bn /= 2;
    return t;
}

/* a role's walk over this block's tiles: the tile scheduler's, or the groups' (with a
 * cursor of the role's own) */
typedef struct bw_walk {
    const bw_kernel *k;
    gemm_group_cursor cur;
} bw_walk;

static bw_walk walk_begin(cute_ctx *c, const bw_kernel *k)
{
    bw_walk w = {.k = k};
    if (k->groups) w.cur = gemm_group_cursor_make(c, &k->tiles, k->groups);
    return w;
}

static cute_int walk_count(cute_ctx *c, const bw_walk *w)
{
    return w->k->groups ? gemm_group_mine(c, &w->k->tiles, w->k->groups) : gemm_sched_mine(c, &w->k->sched);
}

/* the w-th tile this block takes, at (tm, tn) (a grouped tile: (0, 0), unused) */
static gemm_tiles tile(cute_ctx *c, bw_walk *wk, cute_int w, cute_int *tm, cute_int *tn)
{
    const bw_kernel *k = wk->k;
    if (k->groups) {
        *tm = *tn = cute_i(0);
        return gemm_group_tile(c, &k->tiles, k->groups, &wk->cur, w);
    }
    gemm_sched_tile(c, &k->sched, w, tm, tn);
    return gemm_tiles_at(c, &k->tiles, k->mA, k->mB, k->mC, k->cA, k->cB, k->cC, *tm, *tn);
}

/* the CTA pair: this block is the odd one (i1 value), or its place as a cute_int */
static cute_int pair_odd(cute_ctx *c)
{
    return cute_int_from_val(c, cute_val_binop(c, CUTE_OP_AND, cute_val_cvt(c, cute_block_idx_in_cluster(c), CUTE_U32),
                                               cute_val_int(c, CUTE_U32, 1)), 0);
}

/* the k-tiles this block loads for C's tile (tm, tn): t's, or for the CTA pair its half of B's */
static gemm_tiles load_tiles(cute_ctx *c, const bw_kernel *k, const gemm_tiles *t, cute_int tm, cute_int tn)
{
    if (!k->p->cta_pair) return *t;
    cute_alg *a = cute_ctx_alg(c);
    cute_int half = cute_add(a, cute_mul(a, tn, cute_i(2)), pair_odd(c));
    return gemm_tiles_at(c, &k->loads, k->mA, k->mB, k->mC, k->cA, k->cB, k->cC, tm, half);
}

/* the stage at the state's index of stages t (its last mode): an operand's (rows, bk), or
 * NVFP4's scales */
static cute_tensor stage(cute_ctx *c, cute_tensor t, const cute_pipeline_state *s)
{
    const char *at = cute_rank(&t.layout) == 3 ? "(_,_,%I)" : "(_,%I)";
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), at, cute_int_from_val(c, s->index, 0)));
}

/* NVFP4, MXFP4, MXFP8: k-tile kt's scale atoms of row tile r (the atom's map) into the state's
 * stage of s, completing on bar (the CTA pair's: the leader's) */
static void load_scales(cute_ctx *c, const gemm_plan *p, const cute_tma_atom *atom, cute_val map, cute_tensor s,
                        cute_int r, cute_int kt, const cute_pipeline_state *st, cute_val bar)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout L = cute_layout_fmt(a, "(256,2,%d,1):(1,256,512,0)", p->sf_atoms);
    cute_tensor dst = cute_make_tensor(c, cute_tensor_ptr(c, stage(c, s, st), cute_i(0)), L, 128);
    cute_tma_load(c, atom, map, dst, (cute_int[]){cute_i(0), cute_i(0), cute_mul(a, kt, cute_i(p->sf_atoms)), r}, bar);
}

static void producer(cute_ctx *c, const bw_kernel *k)
{
    const gemm_plan *p = k->p;
    if (k->groups) { /* its maps follow the groups */
        gemm_group_producer(c, p, k->groups, &k->m, k->mapA, k->mapB[0]);
        return;
    }
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    cute_tma_copy_opts to[2];
    memset(to, 0, sizeof to); /* plain loads: one CTA, no multicast */
    bw_walk wk = walk_begin(c, k);
    CUTE_FOR(c, w, cute_i(0), walk_count(c, &wk)) {
        cute_int tm, tn;
        gemm_tiles c_tile = tile(c, &wk, w, &tm, &tn), t = load_tiles(c, k, &c_tile, tm, tn);
        CUTE_FOR(c, kt, cute_i(0), t.k_tiles) {
            cute_val bar = gemm_hopper_load_ab(c, p, &k->m, &s, k->mapA, k->mapB, &t, kt, to);
            if (scaled(p)) { /* this block's A rows' scales, and all of B's tile's (the pair's too) */
                load_scales(c, p, &p->tma_sfa, k->mapSFA, k->sSFA, tm, kt, &s, bar);
                load_scales(c, p, &p->tma_sfb, k->mapSFB, k->sSFB, tn, kt, &s, bar);
            }
            cute_pipeline_producer_commit(c, &k->m.pipe, &s);
            cute_pipeline_state_advance(c, &s);
        }
    }
}

/* the accumulator stage of the state's index: bn columns from the allocation's start */
static cute_val acc_stage(cute_ctx *c, const gemm_plan *p, cute_val taddr, const cute_pipeline_state *s)
{
    cute_val cols = cute_val_binop(c, CUTE_OP_MUL, s->index, cute_val_int(c, CUTE_U32, p->bn));
    return cute_val_binop(c, CUTE_OP_ADD, taddr, cols);
}

/* one tile: its k-tiles into accumulator stage `out`, the first overwriting it */
static void mma_tile(cute_ctx *c, const bw_kernel *k, const gemm_tiles *t, cute_pipeline_state *read,
                     const cute_pipeline_state *out)
{
    const gemm_plan *p = k->p;
    cute_val d = acc_stage(c, p, k->taddr, out);
    CUTE_FOR(c, kt, cute_i(0), t->k_tiles) {
        if (!(p->broken & GEMM_BREAK_EARLY_READ)) cute_pipeline_consumer_wait(c, &k->m.pipe, read, (cute_val){0});
        cute_tcgen05_fence_after_thread_sync(c);
        cute_val more = cute_val_cvt(c, cute_int_lt(c, cute_i(0), kt), CUTE_U32); /* accumulate after the first */
        if (scaled(p)) { /* the k-tile's scales into tensor memory, after the accumulators */
            cute_val sfa = cute_val_binop(c, CUTE_OP_ADD, k->taddr, cute_val_int(c, CUTE_U32, ACC_STAGES * p->bn));
            cute_val sfb = cute_val_binop(c, CUTE_OP_ADD, sfa, cute_val_int(c, CUTE_U32, 4 * p->sf_atoms));
            cute_umma_copy_scales(c, sfa, stage(c, k->sSFA, read));
            cute_umma_copy_scales(c, sfb, stage(c, k->sSFB, read));
            cute_umma_gemm_scaled(c, &p->umma, d, stage(c, k->m.sA, read), stage(c, k->m.sB, read), sfa, sfb, more);
        } else {
            cute_umma_gemm(c, &p->umma, d, stage(c, k->m.sA, read), stage(c, k->m.sB, read), more);
        }
        cute_pipeline_consumer_release(c, &k->m.pipe, read); /* free once these MMAs have read it */
        cute_pipeline_state_advance(c, read);
    }
}

static void mma(cute_ctx *c, const bw_kernel *k)
{
    cute_pipeline_state read = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, k->p->stages);
    cute_pipeline_state out = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, ACC_STAGES);
    bw_walk wk = walk_begin(c, k);
    CUTE_FOR(c, w, cute_i(0), walk_count(c, &wk)) {
        cute_int tm, tn;
        gemm_tiles t = tile(c, &wk, w, &tm, &tn);
        cute_pipeline_producer_acquire(c, &k->acc, &out, (cute_val){0}); /* the epilogue freed it */
        cute_tcgen05_fence_after_thread_sync(c);
        mma_tile(c, k, &t, &read, &out);
        if (!(k->p->broken & GEMM_BREAK_ACC_COMMIT)) cute_pipeline_producer_commit(c, &k->acc, &out);
        cute_pipeline_state_advance(c, &out);
    }
}

static void epilogue(cute_ctx *c, const bw_kernel *k)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, ACC_STAGES);
    cute_int tid = cute_thread_idx(c, 0);
    bw_walk wk = walk_begin(c, k);
    CUTE_FOR(c, w, cute_i(0), walk_count(c, &wk)) {
        cute_int tm, tn;
        gemm_tiles t = tile(c, &wk, w, &tm, &tn);
        if (!(k->p->broken & GEMM_BREAK_ACC_WAIT)) cute_pipeline_consumer_wait(c, &k->acc, &s, (cute_val){0});
        cute_tcgen05_fence_after_thread_sync(c);
        gemm_blackwell_epilogue(c, k->p, tid, &t, acc_stage(c, k->p, k->taddr, &s), k->alpha, k->beta);
        cute_tcgen05_fence_before_thread_sync(c);
        cute_pipeline_consumer_release(c, &k->acc, &s);
        cute_pipeline_state_advance(c, &s);
    }
}

/* the block's threads meet (the CTA pair's: both blocks', which share tensor memory and
 * each other's barriers) */
static void meet(cute_ctx *c, const gemm_plan *p)
{
    if (p->cta_pair) cute_cluster_arrive(c), cute_cluster_wait(c);
    else cute_barrier(c);
}

static void shared_memory(cute_ctx *c, const gemm_plan *p, bw_kernel *k, cute_int warp)
{
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_dtype staged = fp4(p) ? CUTE_U8 : p->cfg.dtype; /* e2m1 staged as its bytes */
    k->m.sA = cute_smem_alloc_tensor_composed(c, &al, staged, p->smem_a, 16);
    k->m.sB = cute_smem_alloc_tensor_composed(c, &al, staged, p->smem_b, 16);
    k->m.sC = k->m.sA;
    int64_t b_rows = gemm_block_b_rows(p);
    int64_t tx = p->tma_a.bytes * (p->bm / p->box_rows[0]) + p->tma_b.bytes * (b_rows / p->box_rows[1]);
    if (scaled(p)) {
        int ktile = p->sf_atoms * GEMM_BW_SF_ATOM;
        cute_layout L = cute_layout_fmt(cute_ctx_alg(c), "(%d,%d):(1,%d)", ktile, p->stages, ktile);
        k->sSFA = cute_make_tensor(c, cute_smem_alloc_array(c, &al, CUTE_U8, (int64_t)ktile * p->stages, 128), L, 128);
        k->sSFB = cute_make_tensor(c, cute_smem_alloc_array(c, &al, CUTE_U8, (int64_t)ktile * p->stages, 128), L, 128);
        tx += 2 * ktile;
    }
    if (p->cta_pair) { /* the leader's full stages count both blocks' bytes */
        k->m.pipe = cute_pipeline_tma_umma_create_pair(c, &al, p->stages, 2 * tx);
        k->acc = cute_pipeline_umma_async_create_pair(c, &al, ACC_STAGES, 32 * EPILOGUE_WARPS);
    } else {
        k->m.pipe = cute_pipeline_tma_umma_create(c, &al, p->stages, tx);
        k->acc = cute_pipeline_umma_async_create(c, &al, ACC_STAGES, 32 * EPILOGUE_WARPS);
    }
    /* the MMA warp allocates the accumulators' columns (a pair's leader the other block's too) */
    k->taddr = kernels_tmem_columns(c, &al, warp, MMA_WARP, p->tmem_columns, p->cta_pair);
}

/* the warps' roles over the kernel's shared and tensor memory, then the columns freed */
static void run_roles(cute_ctx *c, bw_kernel *k)
{
    const gemm_plan *p = k->p;
    cute_int warp = cute_warp_idx(c);
    shared_memory(c, p, k, warp);
    CUTE_IF(c, cute_int_lt(c, warp, cute_i(EPILOGUE_WARPS))) { epilogue(c, k); }
    CUTE_ELSE(c) {
        CUTE_IF(c, cute_int_eq(c, warp, cute_i(MMA_WARP))) {
            cute_val issuer = cute_elect_one(c); /* the CTA pair's: the leader's alone */
            if (p->cta_pair) issuer = cute_val_binop(c, CUTE_OP_AND, issuer, cute_int_eq(c, pair_odd(c), cute_i(0)));
            CUTE_IF(c, issuer) mma(c, k);
        }
        CUTE_ELSE(c) {
            CUTE_IF(c, cute_elect_one(c)) producer(c, k);
        }
    }
    cute_tcgen05_fence_before_thread_sync(c);
    meet(c, p); /* neither block of a pair frees or exits while the other may use its memory */
    if (!(p->broken & GEMM_BREAK_TMEM_FREE)) CUTE_IF(c, cute_int_eq(c, warp, cute_i(MMA_WARP))) {
            cute_tcgen05_fence_after_thread_sync(c);
            cute_tmem_dealloc(c, k->taddr, p->tmem_columns);
        }
}

static void blackwell_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC, cute_tensor cA,
                             cute_tensor cB, cute_tensor cC, cute_val alpha, cute_val beta, cute_val mapA,
                             cute_val mapB, cute_val mapB1, cute_val mapSFA, cute_val mapSFB)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_kernel_min_blocks(c, 1);
    if (p->cta_pair) cute_tcgen05_cta_group(c, 2);
    bw_kernel k = {.p = p, .tiles = gemm_blackwell_tiles(p), .mA = mA, .mB = mB, .mC = mC, .cA = cA, .cB = cB,
                   .cC = cC, .alpha = alpha, .beta = beta, .mapA = mapA, .mapB = {mapB, mapB1}, .mapSFA = mapSFA,
                   .mapSFB = mapSFB};
    k.loads = k.tiles;
    k.loads.bn = gemm_block_b_rows(p);
    k.sched = gemm_sched_make(c, &k.tiles, mC, p->raster);
    run_roles(c, &k);
}

/* The grouped GEMM (hopper_grouped.c's walk and producer): C0 the first group's C (unused),
 * rows the groups', ws the blocks' map copies */
static void blackwell_grouped_kernel(cute_ctx *c, cute_tensor C0, cute_tensor rows, cute_tensor ws, cute_int groups,
                                     cute_val alpha, cute_val beta, cute_val mapA, cute_val mapB)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_kernel_min_blocks(c, 1);
    cute_kernel_reaches_buffers(c);
    if (p->cta_pair) {
        cute_ctx_fail(c, "gemm blackwell: the grouped GEMM on the CTA pair (cluster 2x1) is not written; use 1x1");
        return;
    }
    gemm_groups g = {rows, ws, groups};
    bw_kernel k = {.p = p, .tiles = *p, .mC = C0, .alpha = alpha, .beta = beta, .mapA = mapA, .mapB = {mapB, mapB},
                   .groups = &g};
    run_roles(c, &k);
}

void gemm_blackwell_grouped_launch(cute_ctx *c, const gemm_plan *p, cute_launch_cfg cfg, const cute_arg *arg)
{
    CUTE_LAUNCH(c, blackwell_grouped_kernel, cfg, arg[2].tensor, arg[3].tensor, arg[4].tensor, arg[7].i, arg[5].f,
                arg[6].f, p->tma_a.map, p->tma_b.map);
}

void gemm_blackwell_host(cute_ctx *c, const cute_arg *arg)
{
    gemm_plan *p = cute_ctx_user(c); /* the TMA atoms join the plan: the kernel reads them */
    if (p->cfg.index_bound) cute_index_bound(c, p->cfg.index_bound);
    cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;
    if (fp4(p)) mA = cute_tensor_recast(c, mA, CUTE_U8), mB = cute_tensor_recast(c, mB, CUTE_U8); /* as bytes */
    gemm_hopper_atoms(c, p, mA, mB);
    if (scaled(p)) { /* the scales' k-tile boxes: sf_atoms atoms of one 128-row tile */
        cute_layout box = cute_layout_fmt(cute_ctx_alg(c), "(256,2,%d,1):(1,256,512,%d)", p->sf_atoms,
                                          p->sf_atoms * GEMM_BW_SF_ATOM);
        cute_tma_op op = p->cta_pair ? CUTE_TMA_OP_LOAD_2SM : CUTE_TMA_OP_LOAD;
        p->tma_sfa = cute_make_tma_atom(c, op, arg[5].tensor, box, CUTE_SW_NONE, 1);
        p->tma_sfb = cute_make_tma_atom(c, op, arg[6].tensor, box, CUTE_SW_NONE, 1);
    }
    cute_tma_atom b1 = p->cfg.dual ? gemm_hopper_b1_atom(c, p, arg[5].tensor) : p->tma_b;
    cute_tensor cA = cute_make_identity_tensor(c, gemm_matrix_shape(c, mA));
    cute_tensor cB = cute_make_identity_tensor(c, gemm_matrix_shape(c, mB));
    cute_tensor cC = cute_make_identity_tensor(c, gemm_matrix_shape(c, mC));
    gemm_plan tiles = gemm_blackwell_tiles(p);
    gemm_sched s = gemm_sched_make(c, &tiles, mC, p->raster);
    cute_host_opaque none = p->tma_a.map; /* (unused placeholders where there are no scales) */
    CUTE_LAUNCH(c, blackwell_kernel, gemm_sched_launch_cfg(c, p, &s), mA, mB, mC, cA, cB, cC, arg[3].f, arg[4].f,
                p->tma_a.map, p->tma_b.map, b1.map, scaled(p) ? p->tma_sfa.map : none, scaled(p) ? p->tma_sfb.map : none);
}
