/* layout_ops.c — the table of `cutec layout` ops: name, argument counts, usage, meaning,
 * and how to run it.  Adding an op is one row (plus a handler when no generic runner
 * fits). */
#include "layout_ops.h"

#include <string.h>

/* the last column: a generic runner with the library function it calls, or a handler */
#define RUN_L(f) op_run_l, .fn.l = f
#define RUN_LL(f) op_run_ll, .fn.ll = f
#define RUN_LT(f) op_run_lt, .fn.lt = f
#define RUN_LN(f) op_run_ln, .fn.ln = f
#define RUN_S(f) op_run_s, .fn.s = f
#define RUN_L_INT(f) op_run_l_int, .fn.l_int = f
#define RUN_LL_INT(f) op_run_ll_int, .fn.ll_int = f
#define RUN_L_COUNT(f) op_run_l_count, .fn.l_count = f
#define HANDLER(f) f, .fn = {0}

/* clang-format off */
const layout_op layout_ops[] = {
    /* looking at a layout */
    {"show", 1, 3, "L [--svg FILE | --latex FILE]", "notation and grid; picture to FILE", HANDLER(op_show)},
    {"show-tv", 2, 4, "THR VAL [--svg FILE | --latex FILE]", "draw make_layout_tv(THR, VAL)", HANDLER(op_show_tv)},
    {"size", 1, 1, "L", "product of the shape", RUN_L_INT(cute_size)},
    {"cosize", 1, 1, "L", "1 + sum (s-1)*|d|", RUN_L_INT(cute_cosize)},
    {"rank", 1, 1, "L", "number of top-level modes", RUN_L_COUNT(cute_rank)},
    {"depth", 1, 1, "L", "nesting depth (0 for an int shape)", RUN_L_COUNT(cute_depth)},
    {"eval", 1, 2, "L [COORD]", "L(0..size-1), or L(COORD)", HANDLER(op_eval)},
    {"crd2idx", 2, 2, "COORD L", "the offset of a coordinate", HANDLER(op_crd2idx)},
    {"idx2crd", 2, 2, "IDX SHAPE", "colexicographic coordinate of an index", HANDLER(op_idx2crd)},
    {"coord_of", 2, 2, "L IDX", "the coordinate that L maps to IDX", HANDLER(op_coord_of)},
    /* the algebra */
    {"coalesce", 1, 2, "L [PROFILE]", "fewest modes, same function", HANDLER(op_coalesce)},
    {"filter", 1, 2, "L [PROFILE]", "coalesce without stride-0 modes", HANDLER(op_filter)},
    {"filter_zeros", 1, 1, "L", "stride-0 modes get shape 1", RUN_L(cute_filter_zeros)},
    {"composition", 2, 2, "A TILER", "A o TILER", RUN_LT(cute_composition)},
    {"complement", 1, 2, "L [COTARGET]", "what L does not cover, as a layout", HANDLER(op_complement)},
    {"right_inverse", 1, 1, "L", "R with L(R(i)) == i", RUN_L(cute_right_inverse)},
    {"left_inverse", 1, 1, "L", "R with R(L(i)) == i", RUN_L(cute_left_inverse)},
    {"logical_divide", 2, 2, "A TILER", "((tile),(rest))", RUN_LT(cute_logical_divide)},
    {"zipped_divide", 2, 2, "A TILER", "((tiles...),(rests...))", RUN_LT(cute_zipped_divide)},
    {"tiled_divide", 2, 2, "A TILER", "((tiles...),rest...)", RUN_LT(cute_tiled_divide)},
    {"flat_divide", 2, 2, "A TILER", "(tiles...,rest...)", RUN_LT(cute_flat_divide)},
    {"logical_product", 2, 2, "A TILER", "(A, copies of A)", RUN_LT(cute_logical_product)},
    {"zipped_product", 2, 2, "A TILER", "zipped like zipped_divide", RUN_LT(cute_zipped_product)},
    {"tiled_product", 2, 2, "A TILER", "tiled like tiled_divide", RUN_LT(cute_tiled_product)},
    {"flat_product", 2, 2, "A TILER", "flat like flat_divide", RUN_LT(cute_flat_product)},
    {"blocked_product", 2, 2, "A B", "((a0,b0),(a1,b1),...)", RUN_LL(cute_blocked_product)},
    {"raked_product", 2, 2, "A B", "((b0,a0),(b1,a1),...)", RUN_LL(cute_raked_product)},
    {"tile_to_shape", 2, 3, "BLOCK SHAPE [ORDER]", "replicate BLOCK to fill SHAPE", HANDLER(op_tile_to_shape)},
    {"max_common_layout", 2, 2, "A B", "largest R with A o R == B o R contiguous", RUN_LL(cute_max_common_layout)},
    {"max_common_vector", 2, 2, "A B", "size of the common contiguous part", RUN_LL_INT(cute_max_common_vector)},
    {"upcast", 2, 2, "L N", "N old elements per new one", RUN_LN(cute_upcast)},
    {"downcast", 2, 2, "L N", "N new elements per old one", RUN_LN(cute_downcast)},
    {"recast", 3, 3, "L OLDBITS NEWBITS", "reinterpret the element type", HANDLER(op_recast)},
    /* slicing and tiling */
    {"slice", 2, 2, "COORD L", "the modes at '_' in COORD, and the offset", HANDLER(op_slice)},
    {"dice", 2, 2, "COORD L", "the modes at ints in COORD", HANDLER(op_dice)},
    {"local_tile", 3, 4, "L TILESHAPE COORD [PROJ]", "tile COORD of L, and its offset", HANDLER(op_local_tile)},
    {"local_partition", 3, 3, "L THR IDX", "thread IDX's share of L, and its offset", HANDLER(op_local_partition)},
    {"make_layout_tv", 2, 2, "THR VAL", "tiler and (thread,value) layout", HANDLER(op_make_layout_tv)},
    /* making layouts and moving modes */
    {"make_layout", 1, 1, "SHAPE", "compact column-major", RUN_S(cute_make_layout)},
    {"make_layout_row_major", 1, 1, "SHAPE", "compact row-major", RUN_S(cute_make_layout_row_major)},
    {"make_ordered_layout", 2, 2, "SHAPE ORDER", "compact, modes ordered by ORDER", HANDLER(op_make_ordered_layout)},
    {"make_layout_like", 1, 1, "L", "compact, strides ordered like L", RUN_L(cute_make_layout_like)},
    {"make_identity_layout", 1, 1, "SHAPE", "coordinate -> itself", RUN_S(cute_make_identity_layout)},
    {"get", 2, 2, "L I", "mode I", HANDLER(op_get)},
    {"select", 2, -1, "L I...", "modes I..., in that order", HANDLER(op_select)},
    {"group_modes", 3, 3, "L BEGIN END", "modes [BEGIN,END) as one mode", HANDLER(op_group_modes)},
    {"flatten", 1, 1, "L", "the leaves as modes", RUN_L(cute_flatten)},
    {"append", 2, 2, "L X", "X as a last mode", RUN_LL(cute_append)},
    {"prepend", 2, 2, "L X", "X as a first mode", RUN_LL(cute_prepend)},
    /* swizzles */
    {"swizzle", 4, 4, "B M S N", "Swizzle<B,M,S>(0..N-1)", HANDLER(op_swizzle)},
    {"swizzle_layout", 4, 4, "B M S L", "Swizzle<B,M,S>(L(0..size-1))", HANDLER(op_swizzle_layout)},
};
/* clang-format on */

const int layout_nops = (int)(sizeof layout_ops / sizeof layout_ops[0]);

const layout_op *layout_op_find(const char *name)
{
    for (int i = 0; i < layout_nops; i++)
        if (strcmp(layout_ops[i].name, name) == 0) return &layout_ops[i];
    return NULL;
}
