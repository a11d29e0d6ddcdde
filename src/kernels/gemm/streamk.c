/* Stream-K's division of the work (the hybrid of CUTLASS's SM90 stream-K scheduler: whole
 * tiles for the full waves, equal runs of k-tiles for the rest; gemm_internal.h says who
 * does what).  Of T tiles of K k-tiles on G blocks (W = T / G full waves, R = T % G tiles
 * left over):
 *   R = 0       every tile whole (no runs; likewise where the runs would not pay, below);
 *   W = 0       every tile in the runs (a block's run: T K / G k-tiles, under one tile);
 *   otherwise   the first (W - 1) G tiles whole, the last G + R in the runs (a block's run:
 *               K + R K / G k-tiles, so a tile spans at most two runs).
 * Run b is [b N / G, (b + 1) N / G) of the runs' N k-tiles (tile t of them: [t K, t K + K)).
 * A block walks its run's tiles last first: the head of its last tile, which it leaves to
 * the block above, is done first, and the tail of its first tile, where it waits for the
 * block below, last -- by then the block below has long finished that tile's head.  The
 * block above waiting on the one below also lets the interpreter, which runs blocks in
 * order, run it. */
#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

/* a ? x : y on index integers */
static cute_int pick(cute_ctx *c, cute_val a, cute_int x, cute_int y)
{
    cute_val v = cute_val_select(c, a, cute_int_value(c, x, CUTE_I32), cute_int_value(c, y, CUTE_I32));
    return cute_int_from_val(c, v, 0);
}

/* 1 where x > 0, else 0 (x >= 0) */
static cute_int positive(cute_alg *a, cute_int x) { return cute_min(a, x, cute_i(1)); }

/* whether the runs pay: they take K - ceil(R K / G) k-tiles off the busiest block (its last
 * whole tile against its share of the R tiles left over), the fixup costs it about
 * FIXUP_K_TILES (a 128 KB slot written by one block and read by another at some 126 GB/s an
 * SM, against a k-tile's 0.7 us at 128 x 256) */
enum { FIXUP_K_TILES = 4 };
static cute_int runs_pay(cute_alg *a, cute_int K, cute_int R, cute_int G)
{
    cute_int saved = cute_sub(a, K, cute_ceil_div(a, cute_mul(a, R, K), G));
    return positive(a, cute_max(a, cute_sub(a, saved, cute_i(FIXUP_K_TILES)), cute_i(0)));
}

/* the division of the work with `runs` of the T tiles in the runs (the last ones) */
static gemm_streamk make(cute_ctx *c, const gemm_sched *s, cute_int k_tiles, cute_int runs)
{
    cute_alg *a = cute_ctx_alg(c);
    gemm_streamk k = {.k_tiles = k_tiles, .units = cute_grid_dim(c, 0)};
    cute_int T = s->count, G = k.units;
    k.dp = cute_int_now(c, cute_sub(a, T, runs));
    k.iters = cute_int_now(c, cute_mul(a, runs, k_tiles));
    cute_int me = cute_block_idx(c, 0);
    k.dp_mine = cute_int_now(c, cute_ceil_div(a, cute_max(a, cute_sub(a, k.dp, me), cute_i(0)), G));
    k.g0 = cute_int_now(c, cute_div(a, cute_mul(a, me, k.iters), G));
    k.g1 = cute_int_now(c, cute_div(a, cute_mul(a, cute_add(a, me, cute_i(1)), k.iters), G));
    /* the tiles the run touches (none for an empty run) */
    cute_int last = cute_div(a, cute_sub(a, cute_max(a, k.g1, cute_i(1)), cute_i(1)), k_tiles);
    cute_int touched = cute_add(a, cute_sub(a, last, cute_div(a, k.g0, k_tiles)), cute_i(1));
    k.items = cute_int_now(c, cute_add(a, k.dp_mine, cute_mul(a, positive(a, cute_sub(a, k.g1, k.g0)), touched)));
    return k;
}

gemm_streamk gemm_streamk_make(cute_ctx *c, const gemm_sched *s, cute_int k_tiles)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int T = s->count, G = cute_grid_dim(c, 0), W = cute_div(a, T, G), R = cute_mod(a, T, G);
    /* (W = 0 keeps whole tiles: runs under a tile would need more than one partial a tile) */
    cute_int runs = cute_mul(a, cute_mul(a, positive(a, R), positive(a, W)), cute_add(a, R, G));
    return make(c, s, k_tiles, cute_mul(a, runs, runs_pay(a, k_tiles, R, G)));
}

/* Every tile in the runs, on at most as many blocks as tiles (gemm_streamk_all_launch_cfg):
 * a run is then a tile or longer, so a tile spans at most two runs (where the tiles divide
 * by the blocks, each run is whole tiles and no block leaves a partial) */
gemm_streamk gemm_streamk_make_all(cute_ctx *c, const gemm_sched *s, cute_int k_tiles)
{
    return make(c, s, k_tiles, s->count);
}

/* the block holding k-tile g of the runs: the last b with b N / G <= g */
static cute_int run_of(cute_alg *a, const gemm_streamk *k, cute_int g)
{
    cute_int n = cute_max(a, k->iters, cute_i(1));
    return cute_sub(a, cute_ceil_div(a, cute_mul(a, cute_add(a, g, cute_i(1)), k->units), n), cute_i(1));
}

/* the block's work item i: a data-parallel tile, then the pieces of its run (last tile first) */
gemm_work gemm_streamk_work(cute_ctx *c, const gemm_streamk *k, cute_int i)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int K = k->k_tiles, me = cute_block_idx(c, 0);
    cute_val dp = cute_int_lt(c, i, k->dp_mine);
    cute_int j = cute_max(a, cute_sub(a, i, k->dp_mine), cute_i(0)); /* the piece, from the run's end */
    cute_int last = cute_div(a, cute_sub(a, cute_max(a, k->g1, cute_i(1)), cute_i(1)), K);
    cute_int t = cute_int_now(c, cute_sub(a, last, j)), base = cute_mul(a, t, K);
    cute_int k0 = cute_sub(a, cute_max(a, k->g0, base), base);
    cute_int k1 = cute_sub(a, cute_min(a, k->g1, cute_add(a, base, K)), base);
    gemm_work w;
    w.tile = pick(c, dp, cute_add(a, me, cute_mul(a, i, k->units)), cute_add(a, k->dp, t));
    w.k0 = pick(c, dp, cute_i(0), k0);
    w.k1 = pick(c, dp, K, k1);
    w.first = pick(c, dp, me, run_of(a, k, base));
    w.partial = cute_int_lt(c, w.k1, K);
    return w;
}

cute_launch_cfg gemm_streamk_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s, cute_int k_tiles)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int grid = cute_min(a, cute_mul(a, s->count, k_tiles), cute_i(p->sms > 0 ? p->sms : 1));
    return (cute_launch_cfg){.grid = {grid}, .block = {cute_i(p->threads)}, .smem_bytes = cute_i(0)};
}

cute_launch_cfg gemm_streamk_all_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s)
{
    cute_int grid = cute_min(cute_ctx_alg(c), s->count, cute_i(p->sms > 0 ? p->sms : 1));
    return (cute_launch_cfg){.grid = {grid}, .block = {cute_i(p->threads)}, .smem_bytes = cute_i(0)};
}

size_t gemm_streamk_workspace_bytes(const cute_gemm_tiling *t, int blocks, size_t *flags_offset)
{
    int64_t slot = (int64_t)(t->bm ? t->bm : 128) * (t->bn ? t->bn : 256);
    return gemm_streamk_workspace_of(slot, 4, blocks, flags_offset);
}

size_t gemm_streamk_workspace_of(int64_t slot_elems, int elem_bytes, int blocks, size_t *flags_offset)
{
    *flags_offset = (size_t)slot_elems * (size_t)elem_bytes * (size_t)blocks;
    return *flags_offset + 4 * (size_t)blocks;
}

cute_dtype gemm_streamk_acc_dtype(cute_dtype in)
{
    return in == CUTE_I8 || in == CUTE_U8 ? CUTE_I32 : in == CUTE_F64 ? CUTE_F64 : CUTE_F32;
}
