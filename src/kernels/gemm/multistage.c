/* GEMM steps 3-5 of seed 000 (CuTe DSL's ampere/tensorop_gemm.py): one kernel body, three
 * plans.  Step 3: a multi-stage cp.async pipeline into swizzled shared memory, FMA.  Step 4:
 * the same body with mma.sync fed by ldmatrix.  Step 5: step 4 with its epilogue through
 * shared memory and 128-bit stores.  The plan (plan_multistage.c) picks the atoms and the
 * layouts; the body below never changes with them — the promise of CuTe.
 *
 * The pipeline keeps `stages` k-tiles in shared memory.  The prologue issues tiles
 * 0 .. stages-2, one cp.async group each.  In k-tile kt the block multiplies stage
 * kt % stages one k-block at a time, reading each k-block's fragments one step ahead of its
 * MMAs (a register double buffer); at k-block 0 it issues tile kt + stages - 1 into the stage
 * read during kt - 1, and before the last k-block it waits for tile kt + 1 (wait_group
 * stages - 2) and meets the block at a barrier, so every warp has finished reading the stage
 * the next iteration overwrites.  Past the last tile the copies' predicates are false:
 * cp.async zero-fills, nothing is read from global memory. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/gemm/gemm_internal.h"

static cute_tensor stage_of(cute_ctx *c, cute_tensor t, cute_int s)
{
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), "(_,_,_,%I)", s));
}

/* k-block kb of stage s of an s2r partition (CPY, M|N, K, stage).  The stage is sliced on
 * its own: its offset is a multiple of the swizzle's period and moves the pointer, so the
 * swizzled addresses of the k-blocks stay the same in every stage (tensor_moved). */
static cute_tensor kblock(cute_ctx *c, cute_tensor t, int64_t kb, cute_int s)
{
    return cute_tensor_slice(c, stage_of(c, t, s), cute_tuple_fmt(cute_ctx_alg(c), "(_,_,%lld)", (long long)kb));
}

/* The global -> shared copies of k-tile kt of A and B into stage s, one cp.async group. */
typedef struct g2s {
    cute_thr_copy tA, tB;
    cute_tensor sA, sB; /* the copies' partitions of the stages (CPY, M|N, K, stage) */
    cute_int k0;        /* the work's first k-tile (stream-K's pieces of a tile; else 0) */
} g2s;

/* One operand's part of a k-tile into its stage: cp.async zero-fills what lies outside the
 * operand; a plain copy (operands too narrowly aligned for cp.async) goes through registers,
 * which copy_if zeroes there, so a stage never keeps an older tile's values at the edges. */
static void g2s_copy(cute_ctx *c, const cute_copy_atom *atom, cute_ssa pred, cute_tensor src,
                     cute_tensor dst)
{
    if (atom->traits.async) {
        cute_copy_if_whole(c, atom, pred, src, dst);
        return;
    }
    cute_tensor r = cute_make_fragment_like(c, src);
    cute_copy_if(c, atom, pred, src, r);
    cute_autovec_copy(c, r, dst);
}

static void issue_ktile(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, const g2s *g,
                        cute_int kt, cute_int s)
{
    g2s_copy(c, &p->copy_a.atom, gemm_ktile_pred(c, g->tA, t->kA, kt, t->shape_a),
             gemm_ktile_src(c, g->tA, t->gA, kt), stage_of(c, g->sA, s));
    g2s_copy(c, &p->copy_b.atom, gemm_ktile_pred(c, g->tB, t->kB, kt, t->shape_b),
             gemm_ktile_src(c, g->tB, t->gB, kt), stage_of(c, g->sB, s));
    cute_cp_async_commit_group(c);
}

/* The shared -> register side: the MMA's fragments and the s2r copies' views of them. */
typedef struct s2r {
    cute_thr_copy xA, xB;
    cute_tensor sA, sB; /* (CPY, M|N, K, stage) */
    cute_tensor rA, rB; /* the same registers as tCrA / tCrB, retiled (CPY, M|N, K) */
} s2r;

static void load_kblock(cute_ctx *c, const gemm_plan *p, const s2r *x, int64_t kb, cute_int s)
{
    cute_tuple at = cute_tuple_fmt(cute_ctx_alg(c), "(_,_,%lld)", (long long)kb);
    cute_copy(c, &p->s2r_a.atom, kblock(c, x->sA, kb, s), cute_tensor_slice(c, x->rA, at));
    cute_copy(c, &p->s2r_b.atom, kblock(c, x->sB, kb, s), cute_tensor_slice(c, x->rB, at));
}

/* the next k-tile has landed in shared memory, and the block has met: wait_group(stages - 2)
 * and a barrier (either left out by a broken plan, for the tests of the interpreter) */
static void tile_landed(cute_ctx *c, const gemm_plan *p)
{
    if (!(p->broken & GEMM_BREAK_WAIT)) cute_cp_async_wait_group(c, p->stages - 2);
    if (!(p->broken & GEMM_BREAK_BARRIER)) cute_barrier(c);
}

/* The k-tile loop as CuTe DSL's ampere/tensorop_gemm.py writes it: the next tile's first
 * k-block is read during this tile's last one, so its fragments are live across the loop's
 * back edge (one register per element there: see within_tiles below). */
static void across_tiles(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, const g2s *g,
                         const s2r *x, cute_tensor tCrA, cute_tensor tCrB, cute_tensor tCrC, int64_t kbs)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int S = cute_i(p->stages);
    load_kblock(c, p, x, 0, cute_mod(a, g->k0, S));
    CUTE_FOR(c, kt, g->k0, t->k_tiles) {
        cute_int read = cute_mod(a, kt, S), next = cute_mod(a, cute_add(a, kt, cute_i(1)), S);
        cute_int write = cute_mod(a, cute_add(a, kt, cute_i(p->stages - 1)), S);
        for (int64_t kb = 0; kb < kbs; kb++) { /* unrolled at trace time */
            if (kb == kbs - 1) /* tile kt+1 has landed and every warp is done with kt-1 */
                tile_landed(c, p);
            load_kblock(c, p, x, (kb + 1) % kbs, kb == kbs - 1 ? next : read);
            if (kb == 0) issue_ktile(c, p, t, g, cute_add(a, kt, cute_i(p->stages - 1)), write);
            cute_tuple at = cute_tuple_fmt(a, "(_,_,%lld)", (long long)kb);
            cute_gemm(c, &p->mma, tCrC, cute_tensor_slice(c, tCrA, at), cute_tensor_slice(c, tCrB, at), tCrC);
        }
    }
}

/* The same with the register double buffer inside each tile: k-block 0 is read at the top of
 * the tile, k-block kb+1 during kb's MMAs, and the tile ends at the barrier.  No fragment
 * lives across the loop's back edge, so the compiler keeps each one in the instruction's
 * packed registers (the across-tiles form carries them one element per register, which
 * spills at 16- and 8-bit types).  GEMM_PREFETCH_NONE reads each k-block just before its
 * MMAs instead. */
static void within_tiles(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, const g2s *g,
                         const s2r *x, cute_tensor tCrA, cute_tensor tCrB, cute_tensor tCrC, int64_t kbs)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int S = cute_i(p->stages);
    CUTE_FOR(c, kt, g->k0, t->k_tiles) {
        cute_int read = cute_mod(a, kt, S);
        cute_int write = cute_mod(a, cute_add(a, kt, cute_i(p->stages - 1)), S);
        bool ahead = p->prefetch == GEMM_PREFETCH_WITHIN;
        if (ahead) load_kblock(c, p, x, 0, read);
        for (int64_t kb = 0; kb < kbs; kb++) { /* unrolled at trace time */
            if (!ahead || kb + 1 < kbs) load_kblock(c, p, x, ahead ? kb + 1 : kb, read);
            if (kb == 0) issue_ktile(c, p, t, g, cute_add(a, kt, cute_i(p->stages - 1)), write);
            cute_tuple at = cute_tuple_fmt(a, "(_,_,%lld)", (long long)kb);
            cute_gemm(c, &p->mma, tCrC, cute_tensor_slice(c, tCrA, at), cute_tensor_slice(c, tCrB, at), tCrC);
        }
        /* tile kt+1 has landed, and every warp is done with tile kt before it is overwritten */
        tile_landed(c, p);
    }
}

static void mainloop(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, const g2s *g,
                     const s2r *x, cute_tensor tCrA, cute_tensor tCrB, cute_tensor tCrC)
{
    cute_layout k_mode = cute_get(cute_ctx_alg(c), &tCrA.layout, 2);
    int64_t kbs = cute_size(cute_ctx_alg(c), &k_mode).v;
    cute_cp_async_wait_group(c, p->stages - 2);
    cute_barrier(c);
    if (p->prefetch == GEMM_PREFETCH_ACROSS)
        across_tiles(c, p, t, g, x, tCrA, tCrB, tCrC, kbs);
    else
        within_tiles(c, p, t, g, x, tCrA, tCrB, tCrC, kbs);
    cute_cp_async_wait_group(c, 0); /* the zero-filled groups past the end, before the memory is reused */
    cute_barrier(c);
}

/* a tensor of the plan's swizzled layout (the allocator places it as aligned as its swizzle
 * needs) */
static cute_tensor alloc(cute_ctx *c, cute_smem_allocator *a, cute_dtype d, const cute_composed *L)
{
    return cute_smem_alloc_tensor_swizzled(c, a, d, L->sw, L->layout, 16);
}

/* The persistent kernel's memory where C's tile lies over the last stage (plan_multistage.c's
 * persistent_c_tile): one run of every stage, A's and B's stages interleaved (their layouts
 * step a whole stage of both; B's lie a stage of A on), and C from the last stage's start on,
 * past the stages' end where it is longer.  The broken kernel of the interpreter's tests lays C
 * over stage 0 instead, which the next tile's prologue fills during the epilogue. */
static void last_stage_smem(cute_ctx *c, const gemm_plan *p, cute_smem_allocator *smem, cute_tensor *sA,
                            cute_tensor *sB, cute_tensor *sC)
{
    int64_t esize = cute_dtype_bytes(p->cfg.dtype), a_bytes = p->bm * p->bk * esize;
    int64_t sb = (p->bm + p->bn) * p->bk * esize;
    cute_smem_alloc_bytes(c, smem, p->stages * sb, CUTE_SMEM_BASE_ALIGN);
    cute_smem_allocator over_a = cute_smem_allocator_overlay(c, smem), over_b = cute_smem_allocator_overlay(c, smem);
    cute_smem_allocator over_c = cute_smem_allocator_overlay(c, smem);
    *sA = alloc(c, &over_a, p->cfg.dtype, &p->smem_a);
    cute_smem_alloc_bytes(c, &over_b, a_bytes, 1);
    *sB = alloc(c, &over_b, p->cfg.dtype, &p->smem_b);
    if (!(p->broken & GEMM_BREAK_C_OVER_STAGES)) cute_smem_alloc_bytes(c, &over_c, (p->stages - 1) * sb, 1);
    *sC = alloc(c, &over_c, p->smem_c_dtype, &p->smem_c);
}

/* The block's shared memory, laid out at the top level: the A and B stages, and C's tile
 * (step 5) over them (the main loop ends with every read done) or, in the persistent
 * kernel, beside them (the next tile's first k-tiles land there during the epilogue); sC16
 * (not NULL): the stmatrix form's 16-bit tile over the same memory as sC (p->stsm) */
static void block_smem16(cute_ctx *c, const gemm_plan *p, cute_tensor *sA, cute_tensor *sB, cute_tensor *sC,
                         cute_tensor *sC16)
{
    cute_smem_allocator smem = cute_smem_allocator_new(c);
    if (p->c_last) {
        last_stage_smem(c, p, &smem, sA, sB, sC);
        return;
    }
    *sA = alloc(c, &smem, p->cfg.dtype, &p->smem_a), *sB = alloc(c, &smem, p->cfg.dtype, &p->smem_b);
    *sC = *sA;
    if (!p->smem_epilogue) return;
    if (p->persistent && !(p->broken & GEMM_BREAK_C_OVER_STAGES)) {
        *sC = alloc(c, &smem, p->smem_c_dtype, &p->smem_c);
        return;
    }
    cute_smem_allocator over = cute_smem_allocator_overlay(c, &smem);
    *sC = alloc(c, &over, p->smem_c_dtype, &p->smem_c);
    if (p->stsm && sC16) {
        cute_smem_allocator over16 = cute_smem_allocator_overlay(c, &smem);
        *sC16 = alloc(c, &over16, cute_gemm_c_dtype(&p->cfg), &p->smem_c16);
    }
}

static void block_smem(cute_ctx *c, const gemm_plan *p, cute_tensor *sA, cute_tensor *sB, cute_tensor *sC)
{
    block_smem16(c, p, sA, sB, sC, NULL);
}

static g2s g2s_make(cute_ctx *c, const gemm_plan *p, cute_int tid, cute_tensor sA, cute_tensor sB)
{
    cute_thr_copy tA = cute_tiled_copy_slice(&p->copy_a, tid), tB = cute_tiled_copy_slice(&p->copy_b, tid);
    return (g2s){tA, tB, cute_partition_D(c, tA, sA), cute_partition_D(c, tB, sB), cute_i(0)};
}

/* the first stages - 1 k-tiles of tile t from k-tile k0 (a k-tile kt always in stage
 * kt % stages; stages 0 .. stages - 2 where k0 is 0) */
static void prologue(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, const g2s *g)
{
    cute_alg *a = cute_ctx_alg(c);
    for (int s = 0; s < p->stages - 1; s++) {
        cute_int kt = cute_add(a, g->k0, cute_i(s));
        issue_ktile(c, p, t, g, kt, cute_mod(a, kt, cute_i(p->stages)));
    }
}

/* the MMA's fragments (gC: any tile of C, for the accumulators' shape) and the shared ->
 * register copies' views of them */
typedef struct frags {
    cute_tensor tCrA, tCrB, tCrC;
    s2r x;
} frags;

static frags frags_make(cute_ctx *c, const gemm_plan *p, cute_int tid, cute_tensor sA, cute_tensor sB, cute_tensor gC)
{
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tuple s0 = cute_tuple_parse(cute_ctx_alg(c), "(_,_,0)");
    frags f;
    f.tCrA = cute_partition_fragment_A(c, thr, cute_tensor_slice(c, sA, s0));
    f.tCrB = cute_partition_fragment_B(c, thr, cute_tensor_slice(c, sB, s0));
    f.tCrC = cute_partition_fragment_C(c, thr, gC);
    cute_thr_copy xA = cute_tiled_copy_slice(&p->s2r_a, tid), xB = cute_tiled_copy_slice(&p->s2r_b, tid);
    f.x = (s2r){xA, xB, cute_partition_S(c, xA, sA), cute_partition_S(c, xB, sB),
                cute_retile_D(c, xA, f.tCrA), cute_retile_D(c, xB, f.tCrB)};
    return f;
}

static void epilogue16(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                       cute_val alpha, cute_val beta, cute_tensor sC, cute_tensor sC16)
{
    if (p->smem_epilogue)
        gemm_epilogue_smem(c, p, tid, t, acc, alpha, beta, sC, sC16);
    else
        gemm_epilogue(c, p, tid, t, acc, alpha, beta);
}

static void epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                     cute_val alpha, cute_val beta, cute_tensor sC)
{
    epilogue16(c, p, tid, t, acc, alpha, beta, sC, sC);
}

static void multistage_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC,
                              cute_tensor cA, cute_tensor cB, cute_tensor cC, cute_val alpha,
                              cute_val beta)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_int tid = cute_thread_idx(c, 0);
    /* two blocks of up to 4 warps fit an SM's registers at up to 255 per thread */
    cute_kernel_min_blocks(c, p->threads <= 128 ? 2 : 1);
    if (p->pdl) { /* (plan_multistage.c's dependent_launch) */
        cute_griddepcontrol_wait(c);
        cute_griddepcontrol_launch_dependents(c);
    }
    gemm_tiles t = gemm_block_tiles(c, p, mA, mB, mC, cA, cB, cC);
    cute_tensor sA, sB, sC, sC16;
    block_smem16(c, p, &sA, &sB, &sC, &sC16); /* blocks past the last tile do nothing */
    if (!p->stsm) sC16 = sC;
    CUTE_IF(c, t.inside) {
        g2s g = g2s_make(c, p, tid, sA, sB);
        prologue(c, p, &t, &g);
        frags f = frags_make(c, p, tid, sA, sB, t.gC);
        cute_clear(c, f.tCrC);
        mainloop(c, p, &t, &g, &f.x, f.tCrA, f.tCrB, f.tCrC);
        epilogue16(c, p, tid, &t, f.tCrC, alpha, beta, sC, sC16);
    }
}

/* The persistent kernel (CUTE_GEMM_SCHEDULE_PERSISTENT): the blocks resident at once (one or
 * two an SM: plan_multistage.c's persistent_c_tile) walking tiles of C from the tile
 * scheduler (tile_sched.c).  A block per tile leaves the tensor cores idle from its last MMA
 * to the next block's first: the epilogue, then the next block's prologue waiting for its
 * first k-tile from global memory.  Here the next tile's prologue is issued right after the
 * main loop, into stages 0 .. stages - 2 (every warp is done with them: the main loop ends at
 * a barrier), and its loads land while this tile's epilogue runs through C's shared tile
 * over the last stage (or beside the stages).  The next main loop's first barrier orders the
 * epilogue's reads of that tile before the next epilogue's writes and before the main loop's
 * first k-tile lands in the last stage. */
typedef struct walk {
    cute_tensor mA, mB, mC, cA, cB, cC;
    gemm_sched sched;
} walk;

/* x, a tile's coordinate, computed here, once: an index integer is emitted where it is used,
 * and the scheduler's divisions, used in the k-loop, would be redone there every k-tile
 * (NVVM does not hoist a division by a run-time value).  In 32 bits where the index bound
 * keeps every tile index below 2^31 (64-bit ones spilled), and at most hi - 1, which keeps
 * the offsets built on it provably 32-bit where the bound allows. */
static cute_int once(cute_ctx *c, const gemm_plan *p, cute_int x, cute_int hi)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t b = p->cfg.index_bound, tiles = b ? ((b + p->bm - 1) / p->bm) * ((b + p->bn - 1) / p->bn) : INT64_MAX;
    cute_val v = tiles <= INT32_MAX ? cute_int_value(c, x, CUTE_I32) : cute_int_value(c, x, CUTE_I64);
    return cute_min(a, cute_int_from_val(c, v, 0), cute_sub(a, hi, cute_i(1)));
}

static gemm_tiles walk_tile(cute_ctx *c, const gemm_plan *p, const walk *w, cute_int i)
{
    cute_int tm, tn;
    gemm_sched_tile(c, &w->sched, i, &tm, &tn);
    tm = once(c, p, tm, w->sched.tiles_m), tn = once(c, p, tn, w->sched.tiles_n);
    return gemm_tiles_at(c, p, w->mA, w->mB, w->mC, w->cA, w->cB, w->cC, tm, tn);
}

/* tile i - 1's epilogue in round i */
static void epilogue_behind(cute_ctx *c, const gemm_plan *p, const walk *w, cute_int i, cute_int tid,
                            cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor sC)
{
    gemm_tiles t = walk_tile(c, p, w, cute_sub(cute_ctx_alg(c), i, cute_i(1)));
    epilogue(c, p, tid, &t, acc, alpha, beta, sC);
}

static void persistent_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC, cute_tensor cA,
                              cute_tensor cB, cute_tensor cC, cute_val alpha, cute_val beta)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_thread_idx(c, 0);
    cute_kernel_min_blocks(c, p->per_sm > 1 ? p->per_sm : 1);
    walk w = {mA, mB, mC, cA, cB, cC, gemm_sched_make(c, p, mC, p->raster)};
    cute_int mine = gemm_sched_mine(c, &w.sched);
    cute_tensor sA, sB, sC;
    block_smem(c, p, &sA, &sB, &sC);
    g2s g = g2s_make(c, p, tid, sA, sB);
    frags f = frags_make(c, p, tid, sA, sB, walk_tile(c, p, &w, cute_i(0)).gC);
    /* rotated, one copy of each part: round i loads tile i's first k-tiles, writes tile
     * i - 1's C, then multiplies tile i (the accumulators carried over the back edge, given
     * a value before the loop for the epilogue that reads them first in the code) */
    cute_clear(c, f.tCrC);
    CUTE_FOR(c, i, cute_i(0), cute_add(a, mine, cute_i(1))) {
        cute_val more = cute_int_lt(c, i, mine);
        CUTE_IF(c, more) {
            gemm_tiles t = walk_tile(c, p, &w, i);
            prologue(c, p, &t, &g);
        }
        CUTE_IF(c, cute_int_lt(c, cute_i(0), i)) epilogue_behind(c, p, &w, i, tid, f.tCrC, alpha, beta, sC);
        CUTE_IF(c, more) {
            gemm_tiles t = walk_tile(c, p, &w, i);
            cute_clear(c, f.tCrC);
            mainloop(c, p, &t, &g, &f.x, f.tCrA, f.tCrB, f.tCrC);
        }
    }
}

/* The persistent kernel taking its tiles from a counter (CUTEC_GEMM_SM80_PERSISTENT=dynamic):
 * the same rotated rounds, but tile i + 1 is the counter's next value, which thread 0 fetches
 * (an atomic add on flags[0]) before tile i's main loop and every thread reads after it (its
 * barriers order the shared slot's write and reads; two slots taking turns, so a slot is
 * written again only after two main loops).  So the tiles go out in the raster order as the
 * blocks free up, as a block per tile's grid hands them out, not fixed per block: a block on
 * a slow SM takes fewer.  The last block to finish (flags[1] counts them) sets both flags back
 * to zero for the next kernel on the stream, as stream-K leaves its flags. */
static gemm_tiles tile_at(cute_ctx *c, const gemm_plan *p, const walk *w, cute_int idx)
{
    cute_int tm, tn;
    gemm_sched_tile_at(c, &w->sched, idx, &tm, &tn);
    tm = once(c, p, tm, w->sched.tiles_m), tn = once(c, p, tn, w->sched.tiles_n);
    return gemm_tiles_at(c, p, w->mA, w->mB, w->mC, w->cA, w->cB, w->cC, tm, tn);
}

/* slot s of the shared pair, read and written as i32 */
static cute_tensor slot_at(cute_ctx *c, cute_tensor slots, cute_val s)
{
    return cute_tensor_slice(c, slots, cute_tuple_fmt(cute_ctx_alg(c), "(_,%I)", cute_int_from_val(c, s, 0)));
}

/* thread 0: the counter's next value into slot s */
static void fetch_tile(cute_ctx *c, cute_int tid, cute_tensor flags, cute_tensor slots, cute_val s)
{
    cute_alg *a = cute_ctx_alg(c);
    CUTE_IF(c, cute_int_eq(c, tid, cute_i(0))) {
        cute_val old = cute_val_atomic(c, cute_tensor_ptr(c, flags, cute_i(0)), cute_val_int(c, CUTE_U32, 1), CUTE_ATOMIC_ADD);
        cute_tensor_store(c, slot_at(c, slots, s),
                          cute_ssa_scalar(c, cute_val_cvt(c, old, CUTE_I32), cute_tuple_parse(a, "(1)")));
    }
}

static cute_val slot_read(cute_ctx *c, cute_tensor slots, cute_val s)
{
    return cute_ssa_get(c, cute_tensor_load(c, slot_at(c, slots, s)), 0);
}

static void dynamic_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC, cute_tensor cA,
                           cute_tensor cB, cute_tensor cC, cute_val alpha, cute_val beta, cute_tensor ws,
                           cute_tensor flags)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    (void)ws;
    cute_int tid = cute_thread_idx(c, 0);
    cute_kernel_min_blocks(c, p->per_sm > 1 ? p->per_sm : 1);
    walk w = {mA, mB, mC, cA, cB, cC, gemm_sched_make(c, p, mC, p->raster)};
    cute_tensor sA, sB, sC;
    block_smem(c, p, &sA, &sB, &sC);
    cute_smem_allocator more = cute_smem_allocator_new(c);
    cute_tensor slots = cute_smem_alloc_tensor(c, &more, CUTE_I32, cute_layout_parse(a, "(1,2):(0,1)"), 16);
    g2s g = g2s_make(c, p, tid, sA, sB);
    frags f = frags_make(c, p, tid, sA, sB, gemm_tiles_at(c, p, mA, mB, mC, cA, cB, cC, cute_i(0), cute_i(0)).gC);
    cute_val zero = cute_val_int(c, CUTE_I32, 0), count = cute_int_value(c, w.sched.count, CUTE_I32);
    fetch_tile(c, tid, flags, slots, zero);
    cute_barrier(c);
    /* cur: this round's tile (count or more: none); prev: the last round's (-1: none) */
    cute_val cur = cute_val_var(c, slot_read(c, slots, zero)), prev = cute_val_var(c, cute_val_int(c, CUTE_I32, -1));
    cute_val s = cute_val_var(c, cute_val_int(c, CUTE_I32, 1)); /* the slot of the next fetch */
    cute_clear(c, f.tCrC);
    CUTE_WHILE(c, cute_val_binop(c, CUTE_OP_OR, cute_val_cmp(c, CUTE_OP_LT, cur, count),
                                 cute_val_cmp(c, CUTE_OP_GE, prev, zero))) {
        cute_val more = cute_val_cmp(c, CUTE_OP_LT, cur, count);
        CUTE_IF(c, more) {
            gemm_tiles t = tile_at(c, p, &w, cute_int_from_val(c, cur, 0));
            prologue(c, p, &t, &g);
        }
        CUTE_IF(c, cute_val_cmp(c, CUTE_OP_GE, prev, zero)) {
            gemm_tiles t = tile_at(c, p, &w, cute_int_from_val(c, prev, 0));
            epilogue(c, p, tid, &t, f.tCrC, alpha, beta, sC);
        }
        cute_val_assign(c, prev, cute_val_select(c, more, cur, cute_val_int(c, CUTE_I32, -1)));
        CUTE_IF(c, more) {
            fetch_tile(c, tid, flags, slots, s); /* read after the main loop's barriers */
            gemm_tiles t = tile_at(c, p, &w, cute_int_from_val(c, cur, 0));
            cute_clear(c, f.tCrC);
            mainloop(c, p, &t, &g, &f.x, f.tCrA, f.tCrB, f.tCrC);
            cute_val_assign(c, cur, slot_read(c, slots, s));
        }
        CUTE_ELSE(c) cute_val_assign(c, cur, count);
        cute_val_assign(c, s, cute_val_binop(c, CUTE_OP_XOR, s, cute_val_int(c, CUTE_I32, 1)));
    }
    CUTE_IF(c, cute_int_eq(c, tid, cute_i(0))) { /* the last block done: both flags back to zero */
        cute_val u0 = cute_val_int(c, CUTE_U32, 0);
        cute_val done = cute_val_atomic(c, cute_tensor_ptr(c, flags, cute_i(1)), cute_val_int(c, CUTE_U32, 1), CUTE_ATOMIC_ADD);
        cute_val last = cute_int_value(c, cute_sub(a, cute_grid_dim(c, 0), cute_i(1)), CUTE_U32);
        CUTE_IF(c, cute_val_cmp(c, CUTE_OP_EQ, done, last)) {
            cute_val_atomic(c, cute_tensor_ptr(c, flags, cute_i(0)), u0, CUTE_ATOMIC_EXCH);
            cute_val_atomic(c, cute_tensor_ptr(c, flags, cute_i(1)), u0, CUTE_ATOMIC_EXCH);
        }
    }
}

/* Stream-K (CUTE_GEMM_SCHEDULE_STREAMK; streamk.c divides the work, streamk_fixup.c adds the
 * partials): a grid of as many blocks as are resident (p->sms: two an SM for blocks of up to
 * 4 warps), block b one contiguous run of the (tile, k-tile) iterations of every tile in the
 * scheduler's order.  A block per tile ends its tiles in lockstep rounds, every SM writing
 * C at once while no MMA runs; here the runs end together but their tiles' ends fall at
 * different moments, so one block's epilogue runs beside the other blocks' main loops, and
 * the last partial round is spread over every block.  Each work item (a piece of a tile,
 * k-tiles [k0, k1)) starts its accumulators from zeros or from the partial of the block
 * below (which did the tile's head), runs the main loop over its k-tiles, then leaves its
 * partial in its workspace slot (a head) or stores C (the tile's end).  C's shared tile lies
 * over the stages: a barrier after each epilogue before the next item's prologue. */
/* the item's tile of C (place `tile` of the scheduler's order), its main loop over k-tiles
 * [k0, k1) of it: g->k0 and the tiles' k_tiles bounded by K each, which proves the copies'
 * offsets 32-bit where the index bound allows (else ptxas spills their 64-bit ones) */
static gemm_tiles sk_tile(cute_ctx *c, const gemm_plan *p, const walk *w, cute_int tile, cute_int k0, cute_int k1,
                          g2s *g)
{
    cute_alg *a = cute_ctx_alg(c);
    gemm_tiles t = tile_at(c, p, w, tile);
    g->k0 = cute_min(a, k0, t.k_tiles), t.k_tiles = cute_min(a, k1, t.k_tiles);
    return t;
}

/* the item's end: the tile's epilogue unless its sums were partial (kept by the caller), then
 * the barrier before the next item's prologue fills the stages under C's tile */
static void sk_end(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                   cute_val alpha, cute_val beta, cute_tensor sC, cute_val partial)
{
    /* a loop of one trip or none (hopper.c's consumer_streamk says why) */
    cute_int ends = cute_sub(cute_ctx_alg(c), cute_i(1), cute_int_from_val(c, cute_val_cvt(c, partial, CUTE_I32), 0));
    CUTE_FOR(c, one, cute_i(0), ends) {
        (void)one;
        epilogue(c, p, tid, t, acc, alpha, beta, sC);
    }
    cute_barrier(c);
}

/* what either stream-K kernel sets up once: the walk, the copies, the fragments, K in k-tiles */
typedef struct sk_block {
    walk w;
    g2s g;
    frags f;
    cute_tensor sC;
    cute_int tid, k_tiles;
} sk_block;

static sk_block sk_begin(cute_ctx *c, const gemm_plan *p, cute_tensor mA, cute_tensor mB, cute_tensor mC,
                         cute_tensor cA, cute_tensor cB, cute_tensor cC)
{
    sk_block k = {.w = {mA, mB, mC, cA, cB, cC, gemm_sched_make(c, p, mC, p->raster)}, .tid = cute_thread_idx(c, 0)};
    cute_kernel_min_blocks(c, p->streamk_per_sm);
    cute_tensor sA, sB;
    block_smem(c, p, &sA, &sB, &k.sC);
    k.g = g2s_make(c, p, k.tid, sA, sB);
    gemm_tiles t0 = gemm_tiles_at(c, p, mA, mB, mC, cA, cB, cC, cute_i(0), cute_i(0));
    k.f = frags_make(c, p, k.tid, sA, sB, t0.gC);
    k.k_tiles = t0.k_tiles;
    return k;
}

static void streamk_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC, cute_tensor cA,
                           cute_tensor cB, cute_tensor cC, cute_val alpha, cute_val beta, cute_tensor ws,
                           cute_tensor flags)
{
    const gemm_plan *p = cute_ctx_user(c);
    sk_block k = sk_begin(c, p, mA, mB, mC, cA, cB, cC);
    gemm_streamk sk = gemm_streamk_make_all(c, &k.w.sched, k.k_tiles);
    CUTE_FOR(c, i, cute_i(0), sk.items) {
        gemm_work wk = gemm_streamk_work(c, &sk, i);
        gemm_tiles t = sk_tile(c, p, &k.w, wk.tile, wk.k0, wk.k1, &k.g);
        prologue(c, p, &t, &k.g);
        gemm_streamk_start_from_partial(c, p, ws, flags, k.tid, k.f.tCrC, wk.first);
        mainloop(c, p, &t, &k.g, &k.f.x, k.f.tCrA, k.f.tCrB, k.f.tCrC);
        CUTE_IF(c, wk.partial) gemm_streamk_store_partial(c, p, ws, flags, k.tid, k.f.tCrC);
        sk_end(c, p, k.tid, &t, k.f.tCrC, alpha, beta, k.sC, wk.partial);
    }
}

/* the kernels that take the library's stream-K workspace and flags (arguments 6 and 7; 5, the
 * unused vector): stream-K's, and the persistent one whose tiles come from a counter there */
static void flags_host(cute_ctx *c, const cute_arg *arg)
{
    const gemm_plan *p = cute_ctx_user(c);
    if (p->cfg.index_bound) cute_index_bound(c, p->cfg.index_bound);
    cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;
    cute_tensor cA = cute_make_identity_tensor(c, gemm_matrix_shape(c, mA));
    cute_tensor cB = cute_make_identity_tensor(c, gemm_matrix_shape(c, mB));
    cute_tensor cC = cute_make_identity_tensor(c, gemm_matrix_shape(c, mC));
    gemm_sched s = gemm_sched_make(c, p, mC, p->raster);
    if (p->streamk)
        CUTE_LAUNCH(c, streamk_kernel, gemm_streamk_all_launch_cfg(c, p, &s), mA, mB, mC, cA, cB, cC, arg[3].f,
                    arg[4].f, arg[6].tensor, arg[7].tensor);
    else
        CUTE_LAUNCH(c, dynamic_kernel, gemm_sched_launch_cfg(c, p, &s), mA, mB, mC, cA, cB, cC, arg[3].f, arg[4].f,
                    arg[6].tensor, arg[7].tensor);
}

/* the persistent grid: the scheduler's blocks (p->sms: the plan's blocks an SM), times a batch's L */
static cute_launch_cfg persistent_launch(cute_ctx *c, const gemm_plan *p, cute_tensor mC)
{
    gemm_sched s = gemm_sched_make(c, p, mC, p->raster);
    cute_launch_cfg cfg = gemm_sched_launch_cfg(c, p, &s);
    cfg.grid[2] = gemm_launch_cfg(c, p, mC, 0).grid[2];
    return cfg;
}

/* a block a tile's grid, as a programmatic dependent launch where the plan says */
static cute_launch_cfg tiles_launch(cute_ctx *c, const gemm_plan *p, cute_tensor mC)
{
    cute_launch_cfg cfg = gemm_launch_cfg(c, p, mC, 0);
    cfg.pdl = p->pdl;
    return cfg;
}

static GEMM_HOST_LAUNCH(tiles_host, multistage_kernel, tiles_launch(c, p, mC))
static GEMM_HOST_LAUNCH(persistent_host, persistent_kernel, persistent_launch(c, p, mC))

void gemm_multistage_host(cute_ctx *c, const cute_arg *arg)
{
    const gemm_plan *p = cute_ctx_user(c);
    (p->streamk || p->dynamic ? flags_host : p->persistent ? persistent_host : tiles_host)(c, arg);
}
