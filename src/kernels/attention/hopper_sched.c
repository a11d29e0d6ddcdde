/* The Hopper forward's persistent grid (hopper_fwd.c): at most `sms` blocks (one an SM:
 * the kernel's shared memory allows no second), block x walking the (Q tile, head, batch)
 * tiles x, x + grid, x + 2 grid, ...  So the producer loads the next tile's Q and first K
 * and V while the consumers finish this one (its last P V and its epilogue), where a block
 * a tile waited for them from its start and left its SM idle through its epilogue.  The
 * order: Q tiles of one head side by side (they read the same K and V: in L2 together).
 * Causal, a head's longest Q tiles (the last: they see every key) first, and in every odd
 * round the blocks take the round's tiles in reverse (block x its tile grid - 1 - x, "the
 * snake"): a round spans a few heads' tiles of every length, and a block that got a long
 * tile in one round gets a short one in the next, so that the static rounds stay balanced
 * as a block a tile's dynamic order is (a model of 128 heads of 32 Q tiles on 132 SMs, a
 * tile's cost its key tiles plus 2: the last block ends at 640 head by head without the
 * snake, 592 with it).  H200, session 30's mid pass, d128 8x16x4096 causal with two Q
 * stages: 597.8 TFLOP/s against a block a tile's 583.4.  CUTEC_ATTN_FWD_ORDER=across keeps
 * the order before: the longest Q tiles first across every head and batch (balanced, but a
 * round reads 128 heads' K and V, past L2: 469.2 in that run; session 29 tried head by head
 * without the snake: 527.9 against 577.2 a block a tile).  Tile-level scheduling only: the
 * tiles are the layouts' business. */
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"

attn_hop_sched attn_hop_sched_make(cute_ctx *c, const attn_plan *p, cute_tensor mQ)
{
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *e = mQ.layout.shape.leaf; /* (B, Sq, H, D) */
    attn_hop_sched s = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0], cute_i(0), p->snake && p->cfg.causal};
    s.count = cute_mul(a, cute_mul(a, s.tiles_m, s.heads), s.batch);
    return s;
}

cute_int attn_hop_sched_grid(cute_ctx *c, const attn_plan *p, const attn_hop_sched *s)
{
    return cute_min(cute_ctx_alg(c), s->count, cute_i(p->sms > 0 ? p->sms : 1));
}

/* the place of block x in round r: x, or with the snake grid - 1 - x in odd rounds */
static cute_int place(cute_ctx *c, const attn_hop_sched *s, cute_int r)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int x = cute_block_idx(c, 0), g = cute_grid_dim(c, 0);
    if (!s->snake) return x;
    cute_int flip = cute_sub(a, cute_sub(a, g, cute_i(1)), cute_mul(a, x, cute_i(2)));
    return cute_add(a, x, cute_mul(a, cute_mod(a, r, cute_i(2)), flip));
}

/* the full rounds, and one more where the block's place in the partial last is inside it */
cute_int attn_hop_sched_mine(cute_ctx *c, const attn_hop_sched *s)
{
    cute_alg *a = cute_ctx_alg(c);
    if (!s->snake) return cute_ceil_div(a, cute_sub(a, s->count, cute_block_idx(c, 0)), cute_grid_dim(c, 0));
    cute_int g = cute_grid_dim(c, 0), rounds = cute_div(a, s->count, g);
    cute_int rest = cute_sub(a, s->count, cute_mul(a, rounds, g));
    cute_int more = cute_sub(a, rest, place(c, s, rounds)); /* > 0: a tile there */
    return cute_add(a, rounds, cute_min(a, cute_i(1), cute_max(a, cute_i(0), more)));
}

void attn_hop_sched_tile(cute_ctx *c, const attn_plan *p, const attn_hop_sched *s, cute_int w, cute_int *m,
                         cute_int *h, cute_int *b)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int idx = cute_add(a, place(c, s, w), cute_mul(a, w, cute_grid_dim(c, 0)));
    /* the linear order to (Q tile, head, batch): Q tiles fastest, or (causal, but with the
     * snake) slowest */
    bool across = p->cfg.causal && !s->snake;
    cute_layout order = across ? cute_layout_fmt(a, "(%I,%I,%I):(1@1,1@2,1@0)", s->heads, s->batch, s->tiles_m)
                               : cute_layout_fmt(a, "(%I,%I,%I):(1@0,1@1,1@2)", s->tiles_m, s->heads, s->batch);
    cute_tuple at = cute_layout_eval_basis(a, &order, idx);
    *m = p->cfg.causal ? cute_sub(a, cute_sub(a, s->tiles_m, cute_i(1)), at.leaf[0]) : at.leaf[0];
    /* With idle warpgroups skipped (p->skip_idle), not causal: a head's Q tiles rotated by
     * the head's linear index, so that a head's last tile, the short one, falls to another
     * block in each round.  Without it block x gets Q tile x mod tiles_m in every round where
     * the grid is a multiple of tiles_m (d64 16x32x2048: 132 blocks, 11 tiles a head): 12
     * blocks would take every short tile and the others every long one (a model, short =
     * 0.77 of a long: the last block ends at 43 long tiles either way; rotated, at 42.31). */
    if (p->skip_idle && !p->cfg.causal)
        *m = cute_mod(a, cute_add(a, *m, cute_add(a, at.leaf[1], cute_mul(a, at.leaf[2], s->heads))), s->tiles_m);
    *h = at.leaf[1], *b = at.leaf[2];
}
