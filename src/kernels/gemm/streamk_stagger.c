/* Staggered stream-K (the SM80 kernel's CUTEC_SM80_STREAMK=stagger; gemm_internal.h says who
 * does what).  Of T tiles of K k-tiles on G = ceil(T / W) blocks (W = ceil(T / resident)),
 * slot c (0 <= c < G) takes the tiles c, c + G, c + 2 G, ... of the scheduler's order, as a
 * data-parallel persistent kernel would, but shifted in time by h_c = c K / G k-tiles: it
 * starts with the head [0, h_c) of its own last tile, keeps that partial in its workspace
 * slot, runs its other tiles whole, and ends with the tail [h_c, K) of the last one, starting
 * from the partial it kept.  So tile u runs from about u K / G to u K / G + K: the tiles in
 * flight at any moment are G neighbours in the scheduler's order (L2 sees one raster band, as
 * with a block a tile; plain stream-K's contiguous runs put them all over C), and their ends,
 * C's stores, fall one every K / G k-tiles instead of all together between rounds.  No tile
 * is shared between blocks: no flags, no waits, and each thread reads back only what it
 * wrote.  With one wave (T <= G) nothing is shifted: every block runs one tile.  Block b takes slot (b % 2) ceil(G / 2) + b / 2, so the two blocks an SM (b and
 * b + 1, or b and b + G / 2, as the hardware places them) are K / 2 (K / 4) apart: one's
 * epilogue runs beside the other's main loop. */
#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

/* a ? x : y on index integers */
static cute_int pick(cute_ctx *c, cute_val a, cute_int x, cute_int y)
{
    cute_val v = cute_val_select(c, a, cute_int_value(c, x, CUTE_I32), cute_int_value(c, y, CUTE_I32));
    return cute_int_from_val(c, v, 0);
}

gemm_stagger gemm_stagger_make(cute_ctx *c, const gemm_sched *s, cute_int k_tiles)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int G = cute_grid_dim(c, 0), me = cute_block_idx(c, 0), two = cute_i(2);
    gemm_stagger k = {.k_tiles = k_tiles, .units = G};
    k.slot = cute_int_now(c, cute_add(a, cute_mul(a, cute_mod(a, me, two), cute_ceil_div(a, G, two)), cute_div(a, me, two)));
    k.tiles = cute_int_now(c, cute_ceil_div(a, cute_sub(a, s->count, k.slot), G));
    /* (one wave: every block one tile, ending together however shifted; none) */
    cute_int waves = cute_min(a, cute_max(a, cute_sub(a, s->count, G), cute_i(0)), cute_i(1));
    k.h = cute_int_now(c, cute_mul(a, cute_div(a, cute_mul(a, k.slot, k_tiles), G), waves));
    /* items 0 (the head; none where h is 0) .. tiles (the tail) */
    k.first = cute_int_now(c, cute_sub(a, cute_i(1), cute_min(a, k.h, cute_i(1))));
    return k;
}

gemm_piece gemm_stagger_piece(cute_ctx *c, const gemm_stagger *k, cute_int i)
{
    cute_alg *a = cute_ctx_alg(c);
    gemm_piece w;
    w.head = cute_int_eq(c, i, cute_i(0));
    cute_val tail = cute_int_eq(c, i, k->tiles);
    /* the head's tile is the last one, as the tail's (item tiles: tiles - 1 naturally) */
    cute_int at = pick(c, w.head, cute_sub(a, k->tiles, cute_i(1)), cute_sub(a, i, cute_i(1)));
    w.tile = cute_add(a, k->slot, cute_mul(a, at, k->units));
    w.k0 = pick(c, tail, k->h, cute_i(0));
    w.k1 = pick(c, w.head, k->h, k->k_tiles);
    w.resume = cute_int_lt(c, cute_i(0), pick(c, tail, k->h, cute_i(0)));
    return w;
}

cute_launch_cfg gemm_stagger_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int waves = cute_ceil_div(a, s->count, cute_i(p->sms > 0 ? p->sms : 1));
    cute_int grid = cute_ceil_div(a, s->count, waves);
    return (cute_launch_cfg){.grid = {grid}, .block = {cute_i(p->threads)}, .smem_bytes = cute_i(0)};
}
