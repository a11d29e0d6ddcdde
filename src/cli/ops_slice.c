/* ops_slice.c — slicing and tiling: slice, dice, local_tile, local_partition,
 * make_layout_tv.  The ops that also yield an offset put it in out->offset. */
#include "layout_ops.h"

static bool out_layout_offset(cute_alg *c, op_out *out, const cute_layout *R, cute_tuple offset)
{
    if (!out_layout(c, out, R)) return false;
    out->has_offset = true;
    out->offset = offset;
    return true;
}

LAYOUT_HANDLER(op_slice)
{
    (void)op, (void)argc;
    cute_tuple crd = arg_tuple(c, argv[0]);
    cute_layout L = arg_layout(c, argv[1]);
    cute_tuple offset;
    if (c->failed) return false;
    cute_layout R = cute_slice_and_offset(c, &crd, &L, &offset);
    return out_layout_offset(c, out, &R, offset);
}

LAYOUT_HANDLER(op_dice)
{
    (void)op, (void)argc;
    cute_tuple crd = arg_tuple(c, argv[0]);
    cute_layout L = arg_layout(c, argv[1]);
    if (c->failed) return false;
    cute_layout R = cute_dice(c, &crd, &L);
    return out_layout(c, out, &R);
}

LAYOUT_HANDLER(op_local_tile)
{
    (void)op;
    cute_layout L = arg_layout(c, argv[0]);
    cute_tuple tile = arg_tuple(c, argv[1]);
    cute_tuple crd = arg_tuple(c, argv[2]);
    cute_tuple proj = argc > 3 ? arg_tuple(c, argv[3]) : cute_tuple_poison();
    cute_tuple offset;
    if (c->failed) return false;
    cute_layout R = cute_local_tile(c, &L, &tile, &crd, argc > 3 ? &proj : NULL, &offset);
    return out_layout_offset(c, out, &R, offset);
}

LAYOUT_HANDLER(op_local_partition)
{
    (void)op, (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    cute_layout thr = arg_layout(c, argv[1]);
    int64_t idx = arg_int(c, argv[2], "IDX");
    cute_tuple offset;
    if (c->failed) return false;
    cute_layout R = cute_local_partition(c, &L, &thr, cute_i(idx), &offset);
    return out_layout_offset(c, out, &R, offset);
}

LAYOUT_HANDLER(op_make_layout_tv)
{
    (void)op, (void)argc;
    cute_layout thr = arg_layout(c, argv[0]);
    cute_layout val = arg_layout(c, argv[1]);
    cute_tuple tiler = cute_tuple_poison();
    if (c->failed) return false;
    cute_layout tv = cute_make_layout_tv(c, &thr, &val, &tiler);
    if (c->failed) return false;
    sb_put(&out->text, "tiler ");
    out_tuple(c, out, &tiler);
    sb_put(&out->text, "\ntv ");
    return out_layout(c, out, &tv);
}
