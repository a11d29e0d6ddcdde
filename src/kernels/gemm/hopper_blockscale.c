/* The Hopper GEMM's main loop with fp8 block scales (DeepSeek-V3's, DeepGEMM's): A scaled
 * per row and 128 of K, sa (M, K/128); B per 128 x 128 block, sb (N/128, K/128).  A k-tile
 * is 128 of K, one scale block, so each k-tile's wgmma batch goes into accumulators of its
 * own (zeroed first), and once it has retired the thread promotes them into the f32 sum:
 *
 *     acc += part * sa(m, kt) sb(n / 128, kt)          (one FMA an accumulator)
 *
 * which also keeps the tensor core's truncating fp8 sums (14 bits, docs/interpreter.md) to
 * one k-tile's worth.  Two sets of partial accumulators take turns, so a warpgroup issues
 * k-tile kt + 1's batch before it waits for kt's and promotes it (DeepGEMM waits for each
 * batch and leans on the other warpgroup alone): the tensor core has the next batch while the
 * FMAs run, and the stage of kt is released as soon as kt has retired.  Each k-tile's scales
 * are loaded two k-tiles ahead, with the batch of kt - 2, and multiplied at kt's promotion:
 * a thread's accumulators cover two rows (r and r + 8 of CuTe's CLayout_64xN) and, the tile
 * being at most 128 wide and aligned to 128, one block of B, so three loads a k-tile.
 * Registers: 64 accumulators a set at 128 x 128, three sets, and 12 scales within the
 * consumers' 232 (ptxas: 24 bytes spilled, the epilogue's pointers, stored once before the
 * first tile and reloaded in each epilogue; none in the main loop). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/sync.h"
#include "kernels/kernel_env.h"
#include "kernels/gemm/gemm_internal.h"

/* sa's column 0 seen as an (M, N) tensor (constant along N): the scales of each element of
 * C at k-block 0, from the tile's origin */
static cute_tensor broadcast_rows(cute_ctx *c, const gemm_tiles *t, cute_tensor sa)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor col = cute_tensor_slice(c, sa, cute_tuple_parse(a, "(_,0)"));
    col.layout = cute_layout_fmt(a, "(%I,%I):(%I,0)", t->M, t->N, col.layout.stride.leaf[0]);
    return cute_tensor_domain_offset(c, col, t->kC.coord);
}


/* the thread's elements of an (M, N) tensor v at the accumulators (value, 0, 0) `at` */
static cute_tensor mine(cute_ctx *c, const gemm_plan *p, cute_thr_mma thr, cute_tensor v, const char *at)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    cute_tensor part = cute_partition_C(c, thr, cute_tensor_local_tile(c, v, tile, cute_tuple_parse(a, "(0,0)"), NULL));
    return cute_tensor_slice(c, part, cute_tuple_parse(a, at));
}

/* The MMA's waves: its warpgroups take 64 rows each, and in a 256-row tile two waves of
 * them, rows 64 wg and 128 + 64 wg (the tiled MMA repeated over M) */
static int waves(const gemm_plan *p) { return (int)(p->bm / (64 * p->consumers)); }

/* The tile's parts of N with one block of B each: the whole tile where it divides 128; a
 * wider one in parts of gcd(bn, 128) columns (192: three of 64; 160: five of 32; 176: eleven
 * of 16): a tile's
 * origin is a multiple of that width, so a block boundary falls only between parts */
static int part_width(const gemm_plan *p)
{
    int w = (int)p->bn;
    for (int b = 128; b;) {
        int r = w % b;
        w = b, b = r;
    }
    return p->bn > 128 ? w : (int)p->bn;
}
static int parts(const gemm_plan *p) { return (int)(p->bn / part_width(p)); }

/* whether the tile runs the one-partial-set loop (waves_mainloop): two sets of its partials
 * do not fit beside its sums; else two sets take turns (pairs_mainloop) */
static bool one_set(const gemm_plan *p) { return waves(p) > 1 || parts(p) > 1; }

enum { MAX_WAVES = 2, MAX_PARTS = 11 };

/* Where the thread's scales lie at k-block 0, computed once a tile (the tile's origin comes
 * from the scheduler's divisions: inside the k-loop they would be redone every k-tile): the
 * two rows of sa its accumulators cover in each wave (a row past M reads row 0 instead: its
 * accumulators are TMA's zeros and are never stored) and the block of sb of each part of
 * N (a part past N reads the last block instead: its columns are never stored). */
typedef struct scale_at {
    cute_val row[2 * MAX_WAVES], block[MAX_PARTS]; /* pointers */
    cute_tensor sa, sb;                            /* the call's, for their K-block strides */
    int rows, parts;                               /* two a wave; parts(p) */
    bool shared;                                   /* shared_rows(): row[0] the lane's row */
    cute_int lane;
} scale_at;

/* Shared rows (CUTEC_GEMM_BLOCKSCALE_ROWS=shfl, 256-row tiles; opt-in: see the end of this
 * comment; unset or own: each thread loads its own rows' scales, as every other tile does).  A warp's
 * accumulators cover 16 rows of C a wave (lane l rows l / 4 and l / 4 + 8 of them), 32 rows
 * in a 256-row tile's two waves, so lane L loads the scale of the warp's row L % 16 in wave
 * L / 16, one load a k-tile instead of four, and each thread takes its rows' by shuffles from
 * the lanes that loaded them.  One pointer a thread stays live across the k-loop instead of
 * one a row: with one a row (128 sums, 64 partials and the loop in 232 registers) ptxas
 * issues the next k-tile's loads only once the batch's registers are free, after its last
 * wave, and the next k-tile's first product waits for them before its first wgmma; shared,
 * the loads go out under the second wave's batch and that product after the first wgmma
 * (SASS, sm_90a).  H200, 4096x7168x16384, two passes: 256 x 128 1x2 1,211.6 / 1,185.3
 * TFLOP/s against 1,174.1 / 1,144.4, 2x1 1,199.6 / 1,171.7 against 1,156.8 / 1,139.5.  Tiles
 * of one wave lose by it (128 x 160 2x1 1,101.0 against 1,142.4; 128 x 128's two sets 1,076.7
 * against 1,223.3): their shuffles wait for loads issued in the same turn.  Opt-in again
 * since the consumers' 240 registers (below) became the default: with them ptxas issues the
 * loads early without shared rows, and own rows led (final pass, H200, 2026-11-27: 256 x 128
 * 1x2 at 240 registers, own rows 1,235.5 TFLOP/s = 86.2% of cuBLASLt, shared rows 83.4-83.7%). */
static bool shared_rows(cute_alg *a)
{
    static const bool by_default = false; /* (fp8h's default until fp8i's final pass) */
    return kernel_env_choice(a, "CUTEC_GEMM_BLOCKSCALE_ROWS", "own|shfl", by_default) == 1;
}

/* the pointers to sa (k-block 0) of thread thr's rows, two a wave (a row past M: row 0) */
static void row_ptrs(cute_ctx *c, const gemm_plan *p, cute_thr_mma thr, const gemm_tiles *t, cute_tensor sa,
                     cute_val *row)
{
    cute_alg *a = cute_ctx_alg(c);
    for (int w = 0; w < waves(p); w++) {
        const char *in_wave = w ? "((0,_,0),1,0)" : "((0,_,0),0,0)";
        cute_tensor rows = mine(c, p, thr, broadcast_rows(c, t, sa), in_wave);
        cute_ssa in = cute_elem_less(c, mine(c, p, thr, t->kC, in_wave), cute_tuple_fmt(a, "(%I,%I)", t->M, t->N));
        for (int i = 0; i < 2; i++)
            row[2 * w + i] = cute_val_select(c, cute_ssa_get(c, in, i), cute_tensor_ptr(c, rows, cute_i(i)),
                                             cute_tensor_ptr(c, sa, cute_i(0)));
    }
}

/* B's scale in a vector register (CUTEC_GEMM_BLOCKSCALE_SB=lane, opt-in, session 36; what
 * turns take unless =uniform).  A tile of 128 columns or fewer lies in one block of B, so sb
 * is one value a k-tile for the whole tile: ptxas sees its address uniform, loads it with a
 * vector LDG and moves it into a uniform register (R2UR) for the products' FMULs; that R2UR
 * waits for the load, and ptxas puts it right after the last wave's wgmmas (SASS, sm_90a,
 * 256 x 128), which would hold the turns' pass behind an L2 round trip.  Taking the block's
 * index from the thread's own lane by a shuffle once a tile makes it a thread's value to
 * ptxas: the load lands in a vector register, no R2UR, and with turns ptxas then issues the
 * next k-tile's five loads at the top of the k-tile, the products a k-tile later.  Without
 * turns it lost (H200, session 36: 256 x 128 1x2 83.9 / 83.2% of cuBLASLt at
 * 4096x7168x16384 against 85.9 / 85.4, 84.6 / 84.6 at 8192^3 against 85.0 / 84.8). */
static bool lane_blocks(cute_alg *a, bool turned)
{
    static const int by_default = 2; /* (unset, past the choices: by lane with turns, else uniform) */
    int asked = kernel_env_choice(a, "CUTEC_GEMM_BLOCKSCALE_SB", "uniform|lane", by_default);
    return asked == 2 ? turned : asked == 1;
}

/* (vector_blocks: lane_blocks()) */
static scale_at scale_at_tile(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                              const gemm_scales *s, bool vector_blocks)
{
    cute_alg *a = cute_ctx_alg(c);
    scale_at at = {.sa = s->sa, .sb = s->sb, .rows = 2 * waves(p), .parts = parts(p),
                   .shared = shared_rows(a) && waves(p) > 1 && !gemm_blockscale_staged(p),
                   .lane = cute_mod(a, tid, cute_i(32))};
    if (!at.shared) row_ptrs(c, p, cute_tiled_mma_slice(&p->mma, tid), t, s->sa, at.row);
    else { /* lane L loads row i = (L % 16) / 8 of wave L / 16 of lane 4 (L % 8) */
        cute_int l = at.lane, src = cute_add(a, cute_sub(a, tid, l), cute_mul(a, cute_i(4), cute_mod(a, l, cute_i(8))));
        cute_val theirs[2 * MAX_WAVES];
        row_ptrs(c, p, cute_tiled_mma_slice(&p->mma, src), t, s->sa, theirs);
        cute_val second = cute_int_lt(c, cute_i(7), cute_mod(a, l, cute_i(16)));
        at.row[0] = cute_val_select(c, second, theirs[1], theirs[0]);
        if (waves(p) > 1)
            at.row[0] = cute_val_select(c, cute_int_lt(c, cute_i(15), l), cute_val_select(c, second, theirs[3], theirs[2]),
                                        at.row[0]);
    }
    /* part j's columns from the tile's origin n0: (n0 + j bn / parts) / 128 is their block */
    cute_tensor blocks = cute_tensor_slice(c, s->sb, cute_tuple_parse(a, "(_,0)"));
    cute_int n0 = t->kC.coord.leaf[1], last = cute_sub(a, blocks.layout.shape.leaf[0], cute_i(1));
    for (int j = 0; j < at.parts; j++) {
        cute_int col = cute_add(a, n0, cute_i(j * p->bn / at.parts));
        cute_int block = cute_min(a, cute_div(a, col, cute_i(128)), last);
        if (vector_blocks) { /* the block from the thread's own lane: not uniform to ptxas */
            cute_val lane = cute_int_value(c, at.lane, CUTE_I32);
            block = cute_int_from_val(c, cute_val_shfl(c, cute_int_value(c, block, CUTE_I32), lane, CUTE_SHFL_IDX), 0);
        }
        at.block[j] = cute_tensor_ptr(c, blocks, block);
    }
    return at;
}

/* the f32 at ptr + kt * (the K-block stride of scales x), as a tensor of one */
static cute_tensor at_kt(cute_ctx *c, cute_val ptr, cute_tensor x, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout along = cute_layout_fmt(a, "(1,%I):(0,%I)", x.layout.shape.leaf[1], x.layout.stride.leaf[1]);
    cute_tensor row = cute_make_tensor(c, ptr, along, 4);
    return cute_tensor_slice(c, row, cute_tuple_fmt(a, "(_,%I)", kt));
}

static cute_val load_kt(cute_ctx *c, cute_val ptr, cute_tensor x, cute_int kt)
{
    return cute_ssa_get(c, cute_tensor_load(c, at_kt(c, ptr, x, kt)), 0);
}

/* A thread's scales of a k-tile, as loaded: sa of its rows (two a wave), r[0 .. rows - 1],
 * and sb of each part's block, r[rows + j]; their products sa sb, prod[i + rows j] */

/* element i of a rank-1 tensor, as a tensor of one */
static cute_tensor one(cute_ctx *c, cute_tensor r, int i)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_tensor_local_tile(c, r, cute_tuple_parse(a, "1"), cute_tuple_fmt(a, "%d", i), NULL);
}

/* r[i] = v (r: a thread's rmem f32 tensor) */
static void put(cute_ctx *c, cute_tensor r, int i, cute_val v)
{
    cute_tensor_store(c, one(c, r, i), cute_ssa_scalar(c, v, cute_tuple_parse(cute_ctx_alg(c), "1")));
}

static cute_val get(cute_ctx *c, cute_tensor r, int i) { return cute_ssa_get(c, cute_tensor_load(c, r), i); }

static void multiply(cute_ctx *c, const scale_at *at, cute_tensor r, cute_tensor prod)
{
    for (int j = 0; j < at->parts; j++)
        for (int i = 0; i < at->rows; i++)
            put(c, prod, i + at->rows * j, cute_val_binop(c, CUTE_OP_MUL, get(c, r, i), get(c, r, at->rows + j)));
}

/* k-tile kt's scales into r */
static void load_scales(cute_ctx *c, const scale_at *at, cute_int kt, cute_tensor r)
{
    cute_alg *a = cute_ctx_alg(c);
    for (int j = 0; j < at->parts; j++) put(c, r, at->rows + j, load_kt(c, at->block[j], at->sb, kt));
    if (!at->shared) {
        for (int i = 0; i < at->rows; i++) put(c, r, i, load_kt(c, at->row[i], at->sa, kt));
        return;
    }
    /* row i of wave w (i + 2 w) from lane 16 w + 8 i + lane / 4 (shared_rows) */
    cute_val loaded = load_kt(c, at->row[0], at->sa, kt);
    for (int i = 0; i < at->rows; i++) {
        cute_int from = cute_add(a, cute_i(16 * (i / 2) + 8 * (i % 2)), cute_div(a, at->lane, cute_i(4)));
        put(c, r, i, cute_val_shfl(c, loaded, cute_int_value(c, from, CUTE_I32), CUTE_SHFL_IDX));
    }
}

static cute_tensor make_scales(cute_ctx *c, int n)
{
    return cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(cute_ctx_alg(c), "%d:1", n));
}

/* a wave's fragment ((column pair, row, column group), 1, 1) with its column groups split by
 * part, ((2, 2, (groups a part, parts)), 1, 1), to meet broadcast's view (unchanged in one
 * part) */
static cute_tensor by_part(cute_ctx *c, const gemm_plan *p, cute_tensor frag)
{
    if (parts(p) == 1) return frag;
    int g = part_width(p) / 8;
    cute_layout split = cute_layout_fmt(cute_ctx_alg(c), "((2,2,(%d,%d)),1,1):((1,2,(4,%d)),0,0)", g, parts(p), 4 * g);
    cute_tiler T = cute_tiler_layout(&split);
    return cute_tensor_compose(c, frag, &T);
}

/* wave w's two products in prod (one part) seen over its fragment ((column pair, row, column
 * group), 1, 1): stride 0 but along the rows */
static cute_tensor wave_prod(cute_ctx *c, const gemm_plan *p, cute_tensor prod, int w)
{
    cute_alg *a = cute_ctx_alg(c);
    prod = cute_tensor_local_tile(c, prod, cute_tuple_parse(a, "2"), cute_tuple_fmt(a, "%d", w), NULL);
    prod.layout = cute_layout_fmt(a, "((2,2,%lld),1,1):((0,1,0),0,0)", (long long)(p->bn / 8));
    return prod;
}

/* wave w's products in prod seen over its fragment ((column pair, row, column group), 1, 1):
 * a layout of stride 0 but along the rows (and the parts, 8 column groups each) broadcasts them */
static cute_ssa broadcast(cute_ctx *c, const gemm_plan *p, cute_tensor prod, int w)
{
    cute_alg *a = cute_ctx_alg(c);
    if (parts(p) > 1) { /* (one wave) */
        prod.layout = cute_layout_fmt(a, "((2,2,(%d,%d)),1,1):((0,1,(0,2)),0,0)", part_width(p) / 8, parts(p));
        return cute_tensor_load(c, prod);
    }
    return cute_tensor_load(c, wave_prod(c, p, prod, w));
}

/* One k-tile's product in accumulators of its own and its scales: as loaded, then their
 * products (registers apart from them: the loads of the k-tile two on go into `scale` as
 * soon as the products are taken) */
typedef struct partial {
    cute_tensor acc, scale, prod;
} partial;

/* what both steps see */
typedef struct blockscale_loop {
    const gemm_plan *p;
    const gemm_hopper_smem *m;
    cute_pipeline_state *read, *done;
    const gemm_hopper_frag *f;
    scale_at at;
    cute_int k_tiles;
    bool ahead;        /* the scales of kt + 2 loaded at kt's promotion (else CUTE_GEMM_SCALE_MUL_LOAD:
                          kt's loaded with kt's batch, multiplied at once) */
    bool interleave;     /* CUTE_GEMM_SCALE_MUL_INTERLEAVE: issue_promote */
    int turns;           /* turns(): the one-set loop's batches issued in turn (TURNS_*) */
    cute_val wg;         /* (turns) the thread's warpgroup, 0 or 1, as lane 0 of its warp has it */
    bool staged;         /* gemm_blockscale_staged: */
    cute_tensor stage;   /* the thread's (value, slot) of the ring */
    cute_copy_atom copy; /* cp.async of one f32 */
    cute_int tid;        /* the thread's index among the consumers (the MMA's) */
} blockscale_loop;

/* k-tile kt's scales into r, for kt past the last k-tile the last one's (loaded, unused) */
static void load_ahead(cute_ctx *c, const blockscale_loop *l, cute_int kt, cute_tensor r)
{
    cute_alg *a = cute_ctx_alg(c);
    load_scales(c, &l->at, cute_min(a, kt, cute_sub(a, l->k_tiles, cute_i(1))), r);
}

/* Staged scales (CUTE_GEMM_SCALE_MUL_STAGED).  Loaded into registers, the scales of kt + 2
 * were not waited for at kt + 2: ptxas gives all of a loop's loads one register scoreboard
 * (SB5 in the SASS), and its wait at the first product of a turn waited for every load in
 * flight, the newest issued half a k-tile before, so an L2 round trip stalled the warpgroup
 * before its next batch once every two k-tiles.  cp.async copies each thread's scales into
 * its slots of a ring in shared memory instead, a group a k-tile, RING_SLOTS k-tiles
 * ahead, and cp.async.wait_group RING_SLOTS - 1 waits for exactly the oldest group. */
enum { RING_SLOTS = 3 }; /* k-tile kt's scales in slot kt % 3 */

static cute_int ring_slot(cute_ctx *c, cute_int kt) { return cute_mod(cute_ctx_alg(c), kt, cute_i(RING_SLOTS)); }

/* k-tile kt's scales (past the last k-tile the last one's, unused) into its slot, one group */
static void stage_ahead(cute_ctx *c, const blockscale_loop *l, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor dst = cute_tensor_slice(c, l->stage, cute_tuple_fmt(a, "(_,%I)", ring_slot(c, kt)));
    kt = cute_min(a, kt, cute_sub(a, l->k_tiles, cute_i(1)));
    for (int i = 0; i < l->at.rows + l->at.parts; i++) {
        int j = i - l->at.rows;
        cute_tensor src = j < 0 ? at_kt(c, l->at.row[i], l->at.sa, kt) : at_kt(c, l->at.block[j], l->at.sb, kt);
        cute_copy(c, &l->copy, src, one(c, dst, i));
    }
    cute_cp_async_commit_group(c);
}

/* k-tile kt's scales into r, once their group has landed (the next k-tiles' may still be in
 * flight) */
static void read_staged(cute_ctx *c, const blockscale_loop *l, cute_int kt, cute_tensor r)
{
    cute_cp_async_wait_group(c, RING_SLOTS - 1);
    cute_tensor mine = cute_tensor_slice(c, l->stage, cute_tuple_fmt(cute_ctx_alg(c), "(_,%I)", ring_slot(c, kt)));
    cute_tensor_store(c, r, cute_tensor_load(c, mine));
}

/* the first k-tiles' scales into the ring (staged) */
static void stage_first(cute_ctx *c, const blockscale_loop *l)
{
    for (int i = 0; l->staged && i < RING_SLOTS; i++) stage_ahead(c, l, cute_i(i));
}

/* the next full stage into x's accumulators (zeroed: the tensor core starts them from
 * nothing) as one wgmma batch, not waited for */
static void issue(cute_ctx *c, const blockscale_loop *l, const partial *x, cute_int kt)
{
    cute_pipeline_consumer_wait(c, &l->m->pipe, l->read, (cute_val){0});
    cute_fill(c, x->acc, 0);
    cute_warpgroup_arrive(c);
    cute_gemm(c, &l->p->mma, x->acc, gemm_hopper_stage(c, l->f->tCsA, l->read),
              gemm_hopper_stage(c, l->f->tCsB, l->read), x->acc);
    cute_warpgroup_commit_batch(c);
    cute_pipeline_state_advance(c, l->read);
    if (l->ahead) return;
    load_scales(c, &l->at, kt, x->scale); /* the earlier loop: kt's, multiplied at once */
    multiply(c, &l->at, x->scale, x->prod);
}

/* Once no more than `in_flight` batches remain (x's, k-tile kt, has retired): its stage
 * released, x promoted into the f32 sum, one FMA an accumulator; then the scales of k-tile
 * kt + 2, which x takes next, load into x's.  Why there: ptxas hoists a promotion's multiply
 * to the top of its basic block (from the wait for the stage before), above the next batch;
 * loaded with the k-tile's batch (the earlier loop), the scales (sa's M-major rows are new
 * lines of L2 each k-tile) had only the last promotion's FMAs to land in, and the
 * warpgroup stalled there every k-tile.  Loaded once the products are taken, they have a
 * whole k-tile; loaded into registers of their own and copied later, the copy (hoisted
 * alike) waited for them instead. */
static void promote(cute_ctx *c, const blockscale_loop *l, const partial *x, int in_flight, cute_int kt)
{
    cute_warpgroup_wait(c, in_flight);
    gemm_hopper_release(c, l->p, l->m, l->done);
    if (l->staged) read_staged(c, l, kt, x->scale);
    if (l->ahead) multiply(c, &l->at, x->scale, x->prod);
    cute_ssa sum = cute_ssa_fma(c, cute_tensor_load(c, x->acc), broadcast(c, l->p, x->prod, 0), cute_tensor_load(c, l->f->acc));
    cute_tensor_store(c, l->f->acc, sum);
    if (l->staged) stage_ahead(c, l, cute_add(cute_ctx_alg(c), kt, cute_i(RING_SLOTS)));
    else if (l->ahead) load_ahead(c, l, cute_add(cute_ctx_alg(c), kt, cute_i(2)), x->scale);
}

/* Interleaved (CUTE_GEMM_SCALE_MUL_INTERLEAVE): the promotion of `prev` cut into as many
 * parts as the next batch has wgmmas (four at bk 128), a part after each.  Each wgmma of
 * the next batch is a commit group of its own; the wait for at most one group after the
 * first says prev's batch has retired (its stage released, its products taken), then each
 * wgmma is followed by 16 of prev's 64 FMAs.  The promotion's FFMAs (which stall on dispatch
 * beside the tensor core, bench/RESULTS.md session 29's profiles) then come in short runs
 * between the warp's own wgmmas instead of one run of 64 after them. */

/* part q of n of a 64 x bn fragment ((column pair, row, column group), 1, 1), its column
 * groups cut in n runs: ((2, 2, (G/n, n)), 1, 1) sliced at q */
static cute_tensor part_of(cute_ctx *c, const gemm_plan *p, cute_tensor frag, int q, int n)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t g = p->bn / 8;
    cute_layout split = cute_layout_fmt(a, "((2,2,(%lld,%d)),1,1):((1,2,(4,%lld)),0,0)", (long long)(g / n), n,
                                        (long long)(4 * g / n));
    cute_tiler T = cute_tiler_layout(&split);
    return cute_tensor_slice(c, cute_tensor_compose(c, frag, &T), cute_tuple_fmt(a, "((_,_,(_,%d)),_,_)", q));
}

/* part q of n of prev's promotion: sum += partial * (sa sb), the products broadcast along
 * the columns as broadcast() does */
static void promote_part(cute_ctx *c, const blockscale_loop *l, const partial *prev, int q, int n)
{
    cute_tensor prod = prev->prod;
    prod.layout = cute_layout_fmt(cute_ctx_alg(c), "((2,2,%lld),1,1):((0,1,0),0,0)", (long long)(l->p->bn / 8));
    cute_tensor sum = part_of(c, l->p, l->f->acc, q, n);
    cute_ssa x = cute_ssa_fma(c, cute_tensor_load(c, part_of(c, l->p, prev->acc, q, n)),
                              cute_tensor_load(c, part_of(c, l->p, prod, q, n)), cute_tensor_load(c, sum));
    cute_tensor_store(c, sum, x);
}

/* next's batch (k-tile kt + 1) issued wgmma by wgmma with prev's promotion (k-tile kt) in
 * parts between them; then the scales of kt + 2 load into prev's */
static void issue_promote(cute_ctx *c, const blockscale_loop *l, const partial *next, const partial *prev, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_pipeline_consumer_wait(c, &l->m->pipe, l->read, (cute_val){0});
    cute_tensor A = gemm_hopper_stage(c, l->f->tCsA, l->read), B = gemm_hopper_stage(c, l->f->tCsB, l->read);
    cute_layout k_mode = cute_get(a, &A.layout, 2);
    int kb = (int)cute_int_constant_term(a, cute_size(a, &k_mode)); /* the wgmmas of a k-tile */
    int n = (l->p->bn / 8) % kb ? 1 : kb;
    cute_fill(c, next->acc, 0);
    cute_warpgroup_arrive(c);
    for (int s = 0; s < kb; s++) {
        cute_tuple at = cute_tuple_fmt(a, "(_,_,%d)", s);
        cute_gemm(c, &l->p->mma, next->acc, cute_tensor_slice(c, A, at), cute_tensor_slice(c, B, at), next->acc);
        cute_warpgroup_commit_batch(c);
        if (s == 0) {
            cute_warpgroup_wait(c, 1);
            gemm_hopper_release(c, l->p, l->m, l->done);
            multiply(c, &l->at, prev->scale, prev->prod);
        }
        if (s < n) promote_part(c, l, prev, s, n);
    }
    cute_pipeline_state_advance(c, l->read);
    load_ahead(c, l, cute_add(a, kt, cute_i(2)), prev->scale);
}

/* Two partial sums take turns (registers are named at trace time, so the k-loop goes two
 * k-tiles a turn): k-tile kt + 1's batch is issued before kt's promotion, so the tensor core
 * works on the warpgroup's next batch while it promotes the last one.  x[0] holds the even
 * k-tiles, x[1] the odd ones; after the pairs, one k-tile is left in flight (k_tiles odd) or
 * two (even). */
static void pairs_mainloop(cute_ctx *c, const blockscale_loop *l)
{
    cute_alg *a = cute_ctx_alg(c);
    partial x[2];
    for (int i = 0; i < 2; i++) {
        x[i] = (partial){cute_make_fragment_like(c, l->f->acc), make_scales(c, l->at.rows + l->at.parts),
                         make_scales(c, l->at.rows * l->at.parts)};
        if (!l->staged && l->ahead) load_ahead(c, l, cute_i(i), x[i].scale);
    }
    stage_first(c, l);
    cute_fill(c, l->f->acc, 0);
    issue(c, l, &x[0], cute_i(0));
    CUTE_FOR(c, j, cute_i(0), cute_div(a, cute_sub(a, l->k_tiles, cute_i(1)), cute_i(2))) {
        cute_int kt = cute_add(a, cute_mul(a, j, cute_i(2)), cute_i(1));
        if (l->interleave) {
            issue_promote(c, l, &x[1], &x[0], cute_sub(a, kt, cute_i(1)));
            issue_promote(c, l, &x[0], &x[1], kt);
        } else {
            issue(c, l, &x[1], kt);
            promote(c, l, &x[0], 1, cute_sub(a, kt, cute_i(1)));
            issue(c, l, &x[0], cute_add(a, kt, cute_i(1)));
            promote(c, l, &x[1], 1, kt);
        }
    }
    cute_int last = cute_sub(a, l->k_tiles, cute_i(1));
    CUTE_IF(c, cute_int_eq(c, cute_mod(a, l->k_tiles, cute_i(2)), cute_i(0))) {
        issue(c, l, &x[1], last);
        promote(c, l, &x[0], 1, cute_sub(a, last, cute_i(1)));
        promote(c, l, &x[1], 0, last);
    }
    CUTE_ELSE(c) promote(c, l, &x[0], 0, last);
    /* the groups past the last k-tile land before the next tile's go to the same slots */
    if (l->staged) cute_cp_async_wait_all(c);
}

/* t's index w of mode 1 (the MMA's repeats over M), kept as a mode of one: (V, 1, ...) */
static cute_tensor wave_of(cute_ctx *c, cute_tensor t, int w)
{
    cute_alg *a = cute_ctx_alg(c);
    int r = cute_rank(&t.layout);
    cute_tensor s = cute_tensor_slice(c, t, cute_tuple_fmt(a, r == 3 ? "(_,%d,_)" : "(_,%d,_,_)", w));
    cute_layout modes[4] = {cute_get(a, &s.layout, 0), cute_layout_parse(a, "1:0")};
    for (int i = 2; i < r; i++) modes[i] = cute_get(a, &s.layout, i - 1);
    s.layout = cute_make_layout_modes(a, r, modes);
    return s;
}

/* Turns (CUTEC_GEMM_BLOCKSCALE_TURNS=1, session 36, and =late below, the default; the
 * one-set loop with two consumer warpgroups).  Each warpgroup waits for every wave's batch before it promotes it,
 * and nothing but the tensor core's queue couples the two: no barrier between them a k-tile
 * (each waits on the stage's full barrier, the release only holds the producer, the
 * TMA-store epilogue syncs each warpgroup alone).  Issued at about the same time, their
 * batches share the tensor core and retire together, both promote at once and the tensor
 * core idles; a stall on a stage (both waiting for the same TMA) or a tile's start can put
 * them in phase.  Here the batches are issued in turn, warpgroup 0's wave w, then 1's, then
 * 0's next (CUTLASS's ordered barriers, as the ping-pong kernel's MMA turns): 1's batch is
 * queued behind 0's, so 0's retires a batch earlier and it promotes while 1's runs, and the
 * other way round (half a k-tile apart at 256 x 128).  Barrier TURN + i is warpgroup i's
 * turn, 256 threads: the other arrives once its batch is issued.  Within a tile 1 waits
 * before every batch and passes after every batch; 0 passes after every batch and waits
 * before every batch but the tile's first, and once more after its last (turn_end: for 1's
 * last pass, so that 0 cannot pass into the next tile, twice on one barrier, before 1 has
 * taken its last turn of this one; 1 issues its last batch while 0 promotes its own, so the
 * wait is short and 0's epilogue still runs beside 1's last batch).  B's scale goes through
 * a vector register here unless asked otherwise (lane_blocks()): uniform, its R2UR sat
 * between the last wave's wgmmas and the pass.  Measured (H200, session 36's second early
 * pass, % of cuBLASLt, two runs, 256 x 128 1x2): 4096x7168x16384 85.7 / 86.0 against 85.9 /
 * 85.4, 8192^3 87.0 / 86.3 against 85.0 / 84.8; both warpgroups made to meet before every
 * batch instead (in phase: tried, deleted) 78.0-78.5. */
enum { TURN = 6 }; /* 6, 7 (1 and 2: the epilogues', 3: the peer's and stream-K's, 2-5: ping-pong's) */

/* CUTEC_GEMM_BLOCKSCALE_TURNS=late (the default since session 36's mid pass: H200, 256 x 128
 * 1x2, % of cuBLASLt against the loop without turns in the same pass, 4096x7168x16384 86.1 /
 * 85.4 against 84.4 / 84.2, 8192^3 86.3 / 86.2 against 85.6 / 84.8; =0 the loop without
 * turns, =1 turns from the tile's first batch): the turns begin after the tile's first k-tile (its
 * batches as the default issues them), so that at a tile's start warpgroup 0 is not held
 * one batch ahead of 1, whose epilogue of the last tile may still run, but a k-tile and a
 * batch: with F batches free, 1 waits before batch b >= F, 0 before b >= F + 1, both pass
 * after b >= F, and 0 waits after the tile's last if 1 passed at all (the same argument:
 * 0's pass after b + 1 follows its wait for 1's after b, which follows 1's wait for 0's
 * after b). */
enum { TURNS_NONE, TURNS_ALL, TURNS_LATE };

static int turns(cute_alg *a, const gemm_plan *p)
{
    static const int by_default = TURNS_LATE; /* (the mid pass of session 36; TURNS_NONE the loop before) */
    int asked = kernel_env_choice(a, "CUTEC_GEMM_BLOCKSCALE_TURNS", "0|1|late", by_default);
    return p->consumers == 2 ? asked : TURNS_NONE;
}

/* the batches of a tile's start issued free of turns */
static int turns_free(const blockscale_loop *l) { return l->turns == TURNS_LATE ? waves(l->p) : 0; }

/* whether batch (kt, w) is the tile's f-th or later (f > 0) */
static cute_val batch_from(cute_ctx *c, const blockscale_loop *l, cute_int kt, int w, int f)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int b = cute_add(a, cute_mul(a, kt, cute_i(waves(l->p))), cute_i(w));
    return cute_int_lt(c, cute_i(f - 1), b);
}

static cute_val is_wg(cute_ctx *c, const blockscale_loop *l, int wg)
{
    return cute_val_cmp(c, CUTE_OP_EQ, l->wg, cute_val_int(c, CUTE_I32, wg));
}

/* before batch (kt, w): this warpgroup's turn (warpgroup 0: not before its tile's first) */
static void turn_wait(cute_ctx *c, const blockscale_loop *l, cute_int kt, int w)
{
    int f = turns_free(l);
    if (f) {
        CUTE_IF(c, is_wg(c, l, 0)) CUTE_IF(c, batch_from(c, l, kt, w, f + 1)) cute_named_barrier_sync(c, TURN, 256);
        CUTE_ELSE(c) CUTE_IF(c, batch_from(c, l, kt, w, f)) cute_named_barrier_sync(c, TURN + 1, 256);
        return;
    }
    CUTE_IF(c, is_wg(c, l, 0)) {
        if (w > 0) cute_named_barrier_sync(c, TURN, 256);
        else CUTE_IF(c, cute_int_lt(c, cute_i(0), kt)) cute_named_barrier_sync(c, TURN, 256);
    }
    CUTE_ELSE(c) cute_named_barrier_sync(c, TURN + 1, 256);
}

/* after batch (kt, w) is issued: the other's turn */
static void turn_pass(cute_ctx *c, const blockscale_loop *l, cute_int kt, int w)
{
    int f = turns_free(l);
    if (f) {
        CUTE_IF(c, batch_from(c, l, kt, w, f)) {
            CUTE_IF(c, is_wg(c, l, 0)) cute_named_barrier_arrive(c, TURN + 1, 256);
            CUTE_ELSE(c) cute_named_barrier_arrive(c, TURN, 256);
        }
        return;
    }
    CUTE_IF(c, is_wg(c, l, 0)) cute_named_barrier_arrive(c, TURN + 1, 256);
    CUTE_ELSE(c) cute_named_barrier_arrive(c, TURN, 256);
}

/* after the tile's k-loop: warpgroup 0 waits for 1's last pass (late: if 1 passed) */
static void turn_end(cute_ctx *c, const blockscale_loop *l)
{
    int f = turns_free(l);
    if (f) {
        CUTE_IF(c, is_wg(c, l, 0)) CUTE_IF(c, batch_from(c, l, cute_sub(cute_ctx_alg(c), l->k_tiles, cute_i(1)),
                                                         waves(l->p) - 1, f))
            cute_named_barrier_sync(c, TURN, 256);
        return;
    }
    CUTE_IF(c, is_wg(c, l, 0)) cute_named_barrier_sync(c, TURN, 256);
}

/* One k-tile with one partial set (DeepGEMM's loop), for a 256-row tile (BLOCK_M 256) in
 * waves and for a 192-wide one (two partial sets do not fit beside 128 or 96 sums): each
 * wave's batch into the partial set (scale-d 0, so each batch overwrites it in place),
 * waited for, promoted into the wave's sums; the stage released once the last wave's batch
 * has retired.  While a warpgroup waits and promotes, the other's batch keeps the tensor
 * core busy.  Staged: kt's scales read from the ring under the first batch, kt + 2's copied
 * there once the k-tile is promoted; else kt's, loaded a k-tile ago, are multiplied at the
 * top (where ptxas would hoist it anyway), kt + 1's load once they are. */
static void waves_ktile(cute_ctx *c, const blockscale_loop *l, const partial *x, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_pipeline_consumer_wait(c, &l->m->pipe, l->read, (cute_val){0});
    cute_tensor A = gemm_hopper_stage(c, l->f->tCsA, l->read), B = gemm_hopper_stage(c, l->f->tCsB, l->read);
    cute_pipeline_state_advance(c, l->read);
    if (!l->staged) {
        multiply(c, &l->at, x->scale, x->prod);
        load_ahead(c, l, cute_add(a, kt, cute_i(1)), x->scale);
    }
    for (int w = 0; w < waves(l->p); w++) {
        if (l->turns) turn_wait(c, l, kt, w);
        cute_warpgroup_arrive(c);
        cute_gemm_zero(c, &l->p->mma, x->acc, wave_of(c, A, w), B);
        cute_warpgroup_commit_batch(c);
        if (l->turns) turn_pass(c, l, kt, w);
        if (l->staged && w == 0) {
            read_staged(c, l, kt, x->scale);
            multiply(c, &l->at, x->scale, x->prod);
        }
        cute_warpgroup_wait(c, 0);
        if (w == waves(l->p) - 1) gemm_hopper_release(c, l->p, l->m, l->done);
        cute_tensor sum = by_part(c, l->p, wave_of(c, l->f->acc, w));
        cute_ssa x_w = cute_ssa_fma(c, cute_tensor_load(c, by_part(c, l->p, x->acc)), broadcast(c, l->p, x->prod, w),
                                    cute_tensor_load(c, sum));
        cute_tensor_store(c, sum, x_w);
    }
    if (l->staged) stage_ahead(c, l, cute_add(a, kt, cute_i(RING_SLOTS)));
}

static void waves_mainloop(cute_ctx *c, const blockscale_loop *l)
{
    partial x = {cute_make_fragment_like(c, wave_of(c, l->f->acc, 0)), make_scales(c, l->at.rows + l->at.parts),
                 make_scales(c, l->at.rows * l->at.parts)};
    cute_fill(c, x.acc, 0); /* (defined before the batches that overwrite them) */
    stage_first(c, l);
    if (!l->staged) load_ahead(c, l, cute_i(0), x.scale);
    cute_fill(c, l->f->acc, 0);
    CUTE_FOR(c, kt, cute_i(0), l->k_tiles) waves_ktile(c, l, &x, kt);
    if (l->turns) turn_end(c, l);
    if (l->staged) cute_cp_async_wait_all(c); /* (as pairs_mainloop's) */
}

/* Halves (CUTEC_GEMM_BLOCKSCALE_HALVES=1, opt-in, session 35; 256 x 128 without staged
 * scales).  In the one-set loop each warpgroup waits for each wave's batch before it promotes
 * it (wait_group 0 twice a k-tile, SASS: WARPGROUP.DEPBAR.LE gsb0, 0x0), its tensor core fed
 * by the other warpgroup alone meanwhile.  Here each wave's batch is cut along N into two
 * 64-wide halves (wgmma 64 x 64 x 32), four sub-batches a k-tile into two partial sets of
 * 32 registers that take turns (the 64 of the one set): sub-batch s + 1 is issued before
 * s is waited for (wait_group 1) and promoted, so a warpgroup's FFMAs run under its own next
 * wgmmas.  The price: A's 64 x 32 is read from shared memory twice a wave (4 KB an
 * instruction of 262,144 flops against 6 KB for 524,288). */
static bool halves(cute_alg *a, const gemm_plan *p)
{
    static const bool by_default = false; /* (the one-line flip; device-fp8i.sh timed it, deleted since) */
    bool asked = kernel_env_choice(a, "CUTEC_GEMM_BLOCKSCALE_HALVES", "0|1", by_default) == 1;
    return asked && waves(p) >= 2 && parts(p) == 1 && p->bn == 128 && !gemm_blockscale_staged(p);
}

/* the MMA of a half: the tile's atom at half its N, over the same warpgroups; A's and each
 * half of B's views of the stages */
typedef struct half_mma {
    cute_tiled_mma mma;
    cute_tensor tCsA, tCsB[2];
} half_mma;

static half_mma make_half_mma(cute_ctx *c, const blockscale_loop *l)
{
    cute_alg *a = cute_ctx_alg(c);
    const gemm_plan *p = l->p;
    char name[64];
    snprintf(name, sizeof name, "SM90_64x%lldx32_F32%s_SS_TN", (long long)(p->bn / 2),
             p->cfg.dtype == CUTE_E4M3 ? "E4M3E4M3" : "E5M2E5M2");
    cute_mma_atom atom;
    cute_mma_atom_named(a, name, &atom);
    cute_layout wgs = cute_layout_fmt(a, "(%d,1,1):(1,0,0)", p->consumers);
    half_mma h = {.mma = cute_make_tiled_mma(a, &atom, &wgs, NULL, NULL, NULL)};
    cute_thr_mma thr = cute_tiled_mma_slice(&h.mma, l->tid);
    h.tCsA = cute_partition_A(c, thr, l->m->sA);
    cute_tuple half = cute_tuple_fmt(a, "(%lld,%lld,%d)", (long long)(p->bn / 2), (long long)p->bk, p->stages);
    for (int j = 0; j < 2; j++)
        h.tCsB[j] = cute_partition_B(c, thr, cute_tensor_local_tile(c, l->m->sB, half, cute_tuple_fmt(a, "(%d,0,0)", j), NULL));
    return h;
}

/* sub-batch s (wave s / 2, half s % 2) from its partial set (((column pair, row, column
 * group), 1, 1), seen as part_of's views are, flat), promoted */
static void promote_half(cute_ctx *c, const blockscale_loop *l, const partial *x, cute_tensor part, int s)
{
    cute_layout flat = cute_layout_fmt(cute_ctx_alg(c), "(2,2,%lld,1,1):(1,2,4,0,0)", (long long)(l->p->bn / 16));
    cute_tiler T = cute_tiler_layout(&flat);
    part = cute_tensor_compose(c, part, &T);
    cute_tensor sum = part_of(c, l->p, wave_of(c, l->f->acc, s / 2), s % 2, 2);
    cute_tensor prod = part_of(c, l->p, wave_prod(c, l->p, x->prod, s / 2), s % 2, 2);
    cute_ssa y = cute_ssa_fma(c, cute_tensor_load(c, part), cute_tensor_load(c, prod), cute_tensor_load(c, sum));
    cute_tensor_store(c, sum, y);
}

static void halves_ktile(cute_ctx *c, const blockscale_loop *l, const half_mma *h, const partial *x,
                         const cute_tensor set[2], cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_pipeline_consumer_wait(c, &l->m->pipe, l->read, (cute_val){0});
    cute_tensor A = gemm_hopper_stage(c, h->tCsA, l->read);
    cute_tensor B[2] = {gemm_hopper_stage(c, h->tCsB[0], l->read), gemm_hopper_stage(c, h->tCsB[1], l->read)};
    cute_pipeline_state_advance(c, l->read);
    multiply(c, &l->at, x->scale, x->prod);
    load_ahead(c, l, cute_add(a, kt, cute_i(1)), x->scale);
    int n = 2 * waves(l->p);
    for (int s = 0; s <= n; s++) {
        if (s < n) {
            cute_warpgroup_arrive(c);
            cute_gemm_zero(c, &h->mma, set[s % 2], wave_of(c, A, s / 2), B[s % 2]);
            cute_warpgroup_commit_batch(c);
        }
        if (s == 0) continue;
        cute_warpgroup_wait(c, s < n ? 1 : 0);
        if (s == n) gemm_hopper_release(c, l->p, l->m, l->done);
        promote_half(c, l, x, set[(s - 1) % 2], s - 1);
    }
}

static void halves_mainloop(cute_ctx *c, const blockscale_loop *l)
{
    half_mma h = make_half_mma(c, l);
    cute_tensor mn = cute_make_identity_tensor(c, cute_tuple_fmt(cute_ctx_alg(c), "(%lld,%lld)", (long long)l->p->bm,
                                                                 (long long)(l->p->bn / 2)));
    cute_tensor one_wave = wave_of(c, cute_partition_fragment_C(c, cute_tiled_mma_slice(&h.mma, l->tid), mn), 0);
    cute_tensor set[2] = {cute_make_fragment_like(c, one_wave), cute_make_fragment_like(c, one_wave)};
    partial x = {.scale = make_scales(c, l->at.rows + l->at.parts), .prod = make_scales(c, l->at.rows * l->at.parts)};
    for (int i = 0; i < 2; i++) cute_fill(c, set[i], 0); /* (defined before the batches that overwrite them) */
    load_ahead(c, l, cute_i(0), x.scale);
    cute_fill(c, l->f->acc, 0);
    CUTE_FOR(c, kt, cute_i(0), l->k_tiles) halves_ktile(c, l, &h, &x, set, kt);
}

/* The consumers' registers for the one-partial-set loop (CUTEC_GEMM_BLOCKSCALE_REGS=240, the
 * default since the final pass of 2026-11-27: 256 x 128 +1.7 to +1.9 points of cuBLASLt in
 * both clusters; any other value, e.g. 232, the GEMM's split): the producer keeps 24 and the two consumer warpgroups take 240
 * instead of the GEMM's 40 / 232 (24 x 128 + 240 x 256 = 64,512 of the SM's 65,536, as the
 * attention kernels split them).  At 256 x 128 (128 sums, 64 partials, the scales and the
 * loop) the 8 more let ptxas issue the next k-tile's scale loads before the last wave's
 * batch without shared rows (SASS, sm_90a).  A second partial set (wave 0 promoted while
 * wave 1's batch runs) would need 128 + 2 x 64 = 256 and does not fit even at 240.
 * 0: the GEMM's split (hopper.c); device-fp8i.sh decided the default (deleted since). */
int gemm_blockscale_consumer_regs(cute_alg *a, const gemm_plan *p)
{
    static const bool by_default = true; /* (device-fp8i.sh decided, final pass of 2026-11-27) */
    if (p->cfg.scale != CUTE_GEMM_SCALE_BLOCK || !one_set(p) || p->consumers != 2 || p->pingpong) return 0;
    return kernel_env_choice(a, "CUTEC_GEMM_BLOCKSCALE_REGS", "232|240", by_default) == 1 ? 240 : 0;
}

bool gemm_blockscale_staged(const gemm_plan *p)
{
    int mul = p->cfg.tiling.scale_mul;
    return p->cfg.scale == CUTE_GEMM_SCALE_BLOCK && mul == CUTE_GEMM_SCALE_MUL_STAGED;
}

/* the consumers (the cooperative schedule's: block scales run in no other), and a thread's
 * values a k-tile: sa of two rows a wave, sb of each part (p->consumers is not set when the
 * plan counts the ring's bytes) */
static int ring_threads(const gemm_plan *p) { return (int)(128 * (p->bm / 64 < 2 ? p->bm / 64 : 2)); }
static int ring_values(const gemm_plan *p) { return (int)(2 * (p->bm * 128 / ring_threads(p) / 64)) + parts(p); }

int64_t gemm_blockscale_ring_bytes(const gemm_plan *p)
{
    return gemm_blockscale_staged(p) ? 4 * ring_threads(p) * ring_values(p) * RING_SLOTS : 0;
}

/* (thread, value, slot): a warp's 32 threads read and write 32 consecutive words */
cute_tensor gemm_blockscale_ring(cute_ctx *c, cute_smem_allocator *al, const gemm_plan *p)
{
    if (!gemm_blockscale_staged(p)) return (cute_tensor){0};
    int n = ring_threads(p), v = ring_values(p);
    cute_layout ring = cute_layout_fmt(cute_ctx_alg(c), "(%d,%d,%d):(1,%d,%d)", n, v, RING_SLOTS, n, n * v);
    return cute_smem_alloc_tensor(c, al, CUTE_F32, ring, 16);
}

void gemm_hopper_mainloop_blockscaled(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m,
                                      const gemm_tiles *t, cute_pipeline_state *read, cute_pipeline_state *done,
                                      const gemm_hopper_frag *f, cute_int tid, const gemm_scales *s)
{
    cute_alg *a = cute_ctx_alg(c);
    int turned = one_set(p) && !halves(a, p) ? turns(a, p) : TURNS_NONE;
    blockscale_loop l = {.p = p, .m = m, .read = read, .done = done, .f = f,
                         .at = scale_at_tile(c, p, tid, t, s, lane_blocks(a, turned != TURNS_NONE)),
                         .k_tiles = t->k_tiles, .ahead = p->cfg.tiling.scale_mul != CUTE_GEMM_SCALE_MUL_LOAD,
                         .staged = gemm_blockscale_staged(p),
                         .interleave = p->cfg.tiling.scale_mul == CUTE_GEMM_SCALE_MUL_INTERLEAVE, .tid = tid};
    if (l.staged) {
        l.stage = cute_tensor_slice(c, m->ring, cute_tuple_fmt(a, "(%I,_,_)", tid));
        cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEALWAYS<uint32>", CUTE_F32, &l.copy);
    }
    if (halves(a, p)) halves_mainloop(c, &l);
    else if (one_set(p)) {
        l.turns = turned;
        if (l.turns) l.wg = gemm_hopper_warpgroup(c, tid); /* (the turns' branches: no divergent path) */
        waves_mainloop(c, &l);
    }
    else pairs_mainloop(c, &l);
}
