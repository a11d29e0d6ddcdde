/* The persistent tile scheduler (CuTe DSL's StaticPersistentTileScheduler, with a grouped
 * raster order), in units of clusters: a grid of at most p->sms blocks in clusters of
 * cluster_m x cluster_n, cluster q taking the clusters' tiles q, q + clusters, q + 2 clusters,
 * ... (a cluster's tile: cluster_m x cluster_n neighbouring tiles of C, block r of the cluster
 * taking the one at (r % cluster_m, r / cluster_m) in it).  The linear order walks down M in
 * bands of `raster` cluster columns, so the tiles in flight at once (one per SM) share a few
 * A rows and B columns in L2: at 8192^3 with 128 x 256 tiles, 132 tiles in flight read 16.5 A
 * tiles and 8 B tiles (2 and 4 MB each), not 64 A tiles.  Every block of a cluster walks as
 * many tiles as the others (they multicast into each other's stages), so where the tiles do
 * not divide by the cluster, a block's tile may lie wholly outside C: it loads TMA's zeros and
 * stores nothing.  This is tile-level scheduling; inside a tile the layouts take over. */
#include "cutec/notation.h"
#include "env/env_choice.h"
#include "kernels/gemm/gemm_internal.h"

static int cluster_size(const gemm_sched *s) { return s->cluster_m * s->cluster_n; }

gemm_sched gemm_sched_make(cute_ctx *c, const gemm_plan *p, cute_tensor mC, int raster)
{
    cute_alg *a = cute_ctx_alg(c);
    int cm = p->cluster_m > 0 ? p->cluster_m : 1, cn = p->cluster_n > 0 ? p->cluster_n : 1;
    gemm_sched s = {cute_ceil_div(a, mC.layout.shape.leaf[0], cute_i(p->bm)),
                    cute_ceil_div(a, mC.layout.shape.leaf[1], cute_i(p->bn)), cute_i(0),
                    raster / cn > 1 ? raster / cn : 1, cm, cn};
    s.count = cute_mul(a, cute_ceil_div(a, s.tiles_m, cute_i(cm)), cute_ceil_div(a, s.tiles_n, cute_i(cn)));
    return s;
}

cute_launch_cfg gemm_sched_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s)
{
    cute_alg *a = cute_ctx_alg(c);
    int n = cluster_size(s), resident = p->sms / n > 0 ? p->sms / n : 1;
    cute_int grid = cute_mul(a, cute_min(a, s->count, cute_i(resident)), cute_i(n));
    cute_launch_cfg cfg = {.grid = {grid}, .block = {cute_i(p->threads)}, .smem_bytes = cute_i(0)};
    if (n > 1) cfg.cluster[0] = cute_i(n);
    return cfg;
}

/* the block's cluster, and the clusters of the grid */
static cute_int cluster_idx(cute_ctx *c, const gemm_sched *s)
{
    return cute_div(cute_ctx_alg(c), cute_block_idx(c, 0), cute_i(cluster_size(s)));
}

static cute_int clusters(cute_ctx *c, const gemm_sched *s)
{
    return cute_div(cute_ctx_alg(c), cute_grid_dim(c, 0), cute_i(cluster_size(s)));
}

cute_int gemm_sched_mine(cute_ctx *c, const gemm_sched *s)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_ceil_div(a, cute_sub(a, s->count, cluster_idx(c, s)), clusters(c, s));
}

/* Tile w of the block: its cluster's tile in the grouped raster, then the block's place in
 * that.  The bands are whole but for the last (narrower where the band does not divide the
 * clusters' N tiles); inside a band the order is a layout of basis strides, C's tile
 * coordinates (tm, tn) of the band's clusters' tiles walked across the band's width first,
 * then down M: (width, tiles_m):(cluster_n@1, cluster_m@0). */
void gemm_sched_tile(cute_ctx *c, const gemm_sched *s, cute_int w, cute_int *tm, cute_int *tn)
{
    cute_alg *a = cute_ctx_alg(c);
    gemm_sched_tile_at(c, s, cute_add(a, cluster_idx(c, s), cute_mul(a, w, clusters(c, s))), tm, tn);
}

/* the cluster's tile at place idx of the order, then the block's place in it */
void gemm_sched_tile_at(cute_ctx *c, const gemm_sched *s, cute_int idx, cute_int *tm, cute_int *tn)
{
    cute_alg *a = cute_ctx_alg(c);
    int cm = s->cluster_m, cn = s->cluster_n;
    cute_int tiles_m = cute_ceil_div(a, s->tiles_m, cute_i(cm)), tiles_n = cute_ceil_div(a, s->tiles_n, cute_i(cn));
    cute_int f = cute_i(s->raster), band_tiles = cute_mul(a, f, tiles_m);
    cute_int first = cute_mul(a, cute_div(a, idx, band_tiles), f); /* the band's first cluster column */
    cute_int width = cute_min(a, f, cute_sub(a, tiles_n, first));
    cute_layout band = cute_layout_fmt(a, "(%I,%I):(%d@1,%d@0)", width, tiles_m, cn, cm);
    cute_tuple at = cute_layout_eval_basis(a, &band, cute_mod(a, idx, band_tiles));
    cute_layout in_cluster = cute_layout_fmt(a, "(%d,%d):(1@0,1@1)", cm, cn); /* rank -> (m, n) */
    cute_tuple r = cute_layout_eval_basis(a, &in_cluster, cute_mod(a, cute_block_idx(c, 0), cute_i(cm * cn)));
    *tm = cute_add(a, at.leaf[0], r.leaf[0]);
    *tn = cute_add(a, cute_add(a, cute_mul(a, first, cute_i(cn)), at.leaf[1]), r.leaf[1]);
}

int gemm_sm80_dynamic(const cute_gemm_config *cfg, char *err, size_t n)
{
    if ((cfg->variant != CUTE_GEMM_TENSOROP && cfg->variant != CUTE_GEMM_TENSOROP_SMEM) ||
        cfg->tiling.schedule != CUTE_GEMM_SCHEDULE_PERSISTENT || cfg->batched)
        return 0;
    return cute_env_choice_err("CUTEC_GEMM_SM80_PERSISTENT", "static|dynamic", 0, err, n);
}
