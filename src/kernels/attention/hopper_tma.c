/* The Hopper attention kernels' TMA loads (hopper_fwd.c, hopper_bwd.c): a (rows, D) tile of
 * a (B, S, heads, D) tensor into a shared tile of 128-byte K-major GMMA atoms (hopper_plan.c;
 * 64-byte ones at head dim 96), one box of 64 columns (32) at a time: the swizzle's row, and
 * the stage of a staged shared tile picked by a pipeline's state.  TMA clips each box at the
 * tensor's extents: rows past S load as zeros. */
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"

cute_tensor attn_hop_stage(cute_ctx *c, cute_tensor t, int modes, const cute_pipeline_state *s)
{
    cute_int i = cute_int_from_val(c, s->index, 0);
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), modes == 3 ? "(_,_,%I)" : "(_,_,_,%I)", i));
}

int64_t attn_hop_box_cols(const attn_plan *p)
{
    return p->d % 64 ? 32 : 64;
}

int64_t attn_hop_boxes(const attn_plan *p)
{
    return p->d / attn_hop_box_cols(p);
}

/* each box a (1,rows,1,w) tile of the coordinate tensor and the (rows,w) block of s seen
 * with the global tensor's four modes, completing on bar */
void attn_hop_load_rows(cute_ctx *c, const attn_plan *p, const cute_tma_atom *atom, cute_val map, cute_tensor tma,
                        cute_int b, cute_int tile, cute_int h, cute_tensor s, cute_val bar)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t rows = atom->extent[1], d = p->d, w = attn_hop_box_cols(p);
    cute_tuple box = cute_tuple_fmt(a, "(1,%lld,1,%lld)", (long long)rows, (long long)w);
    cute_tuple block = cute_tuple_fmt(a, "(%lld,%lld)", (long long)rows, (long long)w);
    cute_layout as4 = cute_layout_fmt(a, "(1,%lld,1,%lld):(0,1,0,%lld)", (long long)rows, (long long)w, (long long)rows);
    cute_tiler four = cute_tiler_layout(&as4);
    cute_tuple by_mode = cute_tuple_parse(a, "(1,1,1,1)");
    for (int64_t j = 0; j < d / w; j++) {
        cute_tensor g = cute_tensor_local_tile(c, tma, box, cute_tuple_fmt(a, "(%I,%I,%I,%lld)", b, tile, h,
                                                                           (long long)j), NULL);
        cute_tensor sj = cute_tensor_local_tile(c, s, block, cute_tuple_fmt(a, "(0,%lld)", (long long)j), NULL);
        sj = cute_tensor_compose(c, sj, &four);
        sj.layout = cute_coalesce_profile(a, &sj.layout, &by_mode);
        cute_tma_copy(c, atom, map, g, sj, (cute_tma_copy_opts){.bar = bar});
    }
}

cute_tma_atom attn_hop_box_atom(cute_ctx *c, const attn_plan *p, cute_tensor g, int64_t rows)
{
    int64_t w = attn_hop_box_cols(p);
    cute_layout box = cute_layout_fmt(cute_ctx_alg(c), "(1,%lld,1,%lld):(0,%lld,0,1)", (long long)rows, (long long)w,
                                      (long long)w);
    return cute_make_tma_atom(c, CUTE_TMA_OP_LOAD, g, box, p->smem_q.sw, 1);
}
