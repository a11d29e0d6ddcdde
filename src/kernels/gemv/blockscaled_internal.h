/* The block-scaled GEMV's parts shared by its k-tile walks (blockscaled.c: a k-tile at a
 * time, or the next one's registers first; ring.c: through a shared-memory ring). */
#ifndef CUTEC_GEMV_BLOCKSCALED_INTERNAL_H
#define CUTEC_GEMV_BLOCKSCALED_INTERNAL_H

#include "kernels/gemv/gemv_internal.h"

#define WORDS_UNROLL 2 /* plan_make's unroll for words: a lane's vectors of a row a k-tile */

/* a warp's ring (ring.c): its stages of A's rows, x and the scale groups, in shared memory */
typedef struct gemv_ring {
    cute_tensor sA;      /* (block rows, k-tile words, stages) u32 */
    cute_tensor sX;      /* ((rows, warps), k-tile words, stages): a warp's x, each row 0 */
    cute_tensor sS;      /* (32 lanes, rows + 1, warps, stages) u32: a lane's scale groups, x's last */
    cute_tensor gSa, gSb; /* A's and x's scales as u32 groups of four (rows, K / 64, L) */
} gemv_ring;

/* a warp's state: its rows' f32 sums, the scales, and what ends its rows */
typedef struct bs_warp {
    cute_val acc[GEMV_MAX_ROWS];
    cute_tensor sfa, sfb, mY;
    cute_copy_atom pair; /* a scale pair's 16-bit load */
    cute_dtype sf;       /* the scales' */
    cute_val lo;         /* the byte decode's table, its low word (table_lo) */
    cute_val alpha, beta;
    const gemv_tiles *tiles;
    gemv_ring ring; /* cfg.smem_stages */
} bs_warp;

/* a lane's registers of one k-tile (words): its vectors of A (its rows) and of x, and
 * their scale pairs, raw (u16) */
typedef struct words_tile {
    cute_tensor rA, rX, sa[GEMV_MAX_ROWS][WORDS_UNROLL], sb[WORDS_UNROLL];
} words_tile;

/* the k-tile's products added to the warp's sums (blockscaled.c) */
void gemv_words_products(cute_ctx *c, const gemv_plan *p, const words_tile *f, bs_warp *w);

/* the ring's shared memory and the scales' group views (sfa, sfb: the raw rank-1 scale
 * buffers, 4-byte aligned) */
gemv_ring gemv_ring_make(cute_ctx *c, const gemv_plan *p, cute_tensor sfa, cute_tensor sfb, cute_int M,
                         cute_int K, cute_int L);
/* a block's bytes of ring */
int64_t gemv_ring_bytes(const gemv_plan *p);
/* the in-bounds warp's `full` whole k-tiles through the ring (a gemv_whole_fn; user: bs_warp) */
void gemv_words_ring(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t, cute_int full,
                     void *user);

#endif
