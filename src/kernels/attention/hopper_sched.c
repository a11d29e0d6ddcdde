/* The Hopper forward's persistent grid (hopper_fwd.c): at most `sms` blocks (one an SM:
 * the kernel's shared memory allows no second), block x walking the (Q tile, head, batch)
 * tiles x, x + grid, x + 2 grid, ...  So the producer loads the next tile's Q and first K
 * and V while the consumers finish this one (its last P V and its epilogue), where a block
 * a tile waited for them from its start and left its SM idle through its epilogue.  The
 * order: Q tiles of one head side by side (they read the same K and V: in L2 together),
 * causal the longest (the last Q tile: it sees every key) first.  (Until session 29 the
 * causal order put the longest tiles of every head and batch first: the blocks of a round
 * then read as many heads' K and V, 2 MB a head at 4096 keys d128, past what L2 holds, and
 * the final pass of session 28 measured that grid at 488.7 TFLOP/s against 586.3 a block a
 * tile.  Round robin over a head's tiles longest first still gives each block a mix of
 * lengths: 132 blocks step 4 Q tiles a round through 32.)  Tile-level scheduling only: the
 * tiles are the layouts' business. */
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"

attn_hop_sched attn_hop_sched_make(cute_ctx *c, const attn_plan *p, cute_tensor mQ)
{
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *e = mQ.layout.shape.leaf; /* (B, Sq, H, D) */
    attn_hop_sched s = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0], cute_i(0)};
    s.count = cute_mul(a, cute_mul(a, s.tiles_m, s.heads), s.batch);
    return s;
}

cute_int attn_hop_sched_grid(cute_ctx *c, const attn_plan *p, const attn_hop_sched *s)
{
    return cute_min(cute_ctx_alg(c), s->count, cute_i(p->sms > 0 ? p->sms : 1));
}

cute_int attn_hop_sched_mine(cute_ctx *c, const attn_hop_sched *s)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_ceil_div(a, cute_sub(a, s->count, cute_block_idx(c, 0)), cute_grid_dim(c, 0));
}

void attn_hop_sched_tile(cute_ctx *c, const attn_plan *p, const attn_hop_sched *s, cute_int w, cute_int *m,
                         cute_int *h, cute_int *b)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int idx = cute_add(a, cute_block_idx(c, 0), cute_mul(a, w, cute_grid_dim(c, 0)));
    /* the linear order to (Q tile, head, batch): Q tiles fastest (causal: the last first) */
    cute_layout order = cute_layout_fmt(a, "(%I,%I,%I):(1@0,1@1,1@2)", s->tiles_m, s->heads, s->batch);
    cute_tuple at = cute_layout_eval_basis(a, &order, idx);
    *m = p->cfg.causal ? cute_sub(a, cute_sub(a, s->tiles_m, cute_i(1)), at.leaf[0]) : at.leaf[0];
    *h = at.leaf[1], *b = at.leaf[2];
}
