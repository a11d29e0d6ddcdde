/* ops_algebra.c — algebra ops with optional or non-layout arguments: coalesce and filter
 * by profile, complement to a cotarget, tile_to_shape, recast. */
#include "layout_ops.h"

LAYOUT_HANDLER(op_coalesce)
{
    (void)op;
    cute_layout L = arg_layout(c, argv[0]);
    if (argc == 1) {
        cute_layout R = cute_coalesce(c, &L);
        return out_layout(c, out, &R);
    }
    cute_tuple profile = arg_tuple(c, argv[1]);
    cute_layout R = cute_coalesce_profile(c, &L, &profile);
    return out_layout(c, out, &R);
}

LAYOUT_HANDLER(op_filter)
{
    (void)op;
    cute_layout L = arg_layout(c, argv[0]);
    if (argc == 1) {
        cute_layout R = cute_filter(c, &L);
        return out_layout(c, out, &R);
    }
    cute_tuple profile = arg_tuple(c, argv[1]);
    cute_layout R = cute_filter_profile(c, &L, &profile);
    return out_layout(c, out, &R);
}

LAYOUT_HANDLER(op_complement)
{
    (void)op;
    cute_layout L = arg_layout(c, argv[0]);
    if (argc == 1) {
        cute_layout R = cute_complement_default(c, &L);
        return out_layout(c, out, &R);
    }
    cute_tuple cotarget = arg_tuple(c, argv[1]);
    cute_layout R = cute_complement(c, &L, &cotarget);
    return out_layout(c, out, &R);
}

LAYOUT_HANDLER(op_tile_to_shape)
{
    (void)op;
    cute_layout block = arg_layout(c, argv[0]);
    cute_tuple shape = arg_tuple(c, argv[1]);
    cute_tuple order = argc > 2 ? arg_tuple(c, argv[2]) : cute_tuple_poison();
    if (c->failed) return false;
    cute_layout R = cute_tile_to_shape(c, &block, &shape, argc > 2 ? &order : NULL);
    return out_layout(c, out, &R);
}

/* bit widths are ints in the library; keep an absurd width from wrapping around */
static int arg_bits(cute_alg *c, const char *text, const char *what)
{
    int64_t v = arg_int(c, text, what);
    if (!c->failed && (v <= 0 || v > (1 << 20)))
        cute_alg_fail(c, "%s %lld: expected a positive bit width", what, (long long)v);
    return (int)v;
}

LAYOUT_HANDLER(op_recast)
{
    (void)op, (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    int old_bits = arg_bits(c, argv[1], "OLDBITS");
    int new_bits = arg_bits(c, argv[2], "NEWBITS");
    if (c->failed) return false;
    cute_layout R = cute_recast(c, &L, old_bits, new_bits);
    return out_layout(c, out, &R);
}
