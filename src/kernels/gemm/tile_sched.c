/* The persistent tile scheduler (CuTe DSL's StaticPersistentTileScheduler, with a grouped
 * raster order): a grid of at most p->sms blocks, block b taking tiles b, b + grid,
 * b + 2 grid, ... of C.  The linear order walks down M in bands of `raster` N-tiles, so the
 * tiles in flight at once (one per SM) share a few A rows and B columns in L2: at 8192^3 with
 * 128 x 256 tiles, 132 tiles in flight read 16.5 A tiles and 8 B tiles (2 and 4 MB each), not
 * 64 A tiles.  This is tile-level scheduling; inside a tile the layouts take over. */
#include "kernels/gemm/gemm_internal.h"

gemm_sched gemm_sched_make(cute_ctx *c, const gemm_plan *p, cute_tensor mC, int raster)
{
    cute_alg *a = cute_ctx_alg(c);
    gemm_sched s = {cute_ceil_div(a, mC.layout.shape.leaf[0], cute_i(p->bm)),
                    cute_ceil_div(a, mC.layout.shape.leaf[1], cute_i(p->bn)), cute_i(0), raster};
    s.count = cute_mul(a, s.tiles_m, s.tiles_n);
    return s;
}

cute_launch_cfg gemm_sched_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s)
{
    cute_int grid = cute_min(cute_ctx_alg(c), s->count, cute_i(p->sms > 0 ? p->sms : 1));
    return (cute_launch_cfg){.grid = {grid}, .block = {cute_i(p->threads)}, .smem_bytes = cute_i(0)};
}

cute_int gemm_sched_mine(cute_ctx *c, const gemm_sched *s)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_ceil_div(a, cute_sub(a, s->count, cute_block_idx(c, 0)), cute_grid_dim(c, 0));
}

void gemm_sched_tile(cute_ctx *c, const gemm_sched *s, cute_int w, cute_int *tm, cute_int *tn)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int idx = cute_add(a, cute_block_idx(c, 0), cute_mul(a, w, cute_grid_dim(c, 0)));
    cute_int f = cute_i(s->raster), band_tiles = cute_mul(a, f, s->tiles_m);
    cute_int first = cute_mul(a, cute_div(a, idx, band_tiles), f), r = cute_mod(a, idx, band_tiles);
    cute_int width = cute_min(a, f, cute_sub(a, s->tiles_n, first)); /* the last band may be narrower */
    *tm = cute_div(a, r, width);
    *tn = cute_add(a, first, cute_mod(a, r, width));
}
