/* cutec/layout_sites.h — call sites for the algebra's operations in DSL code.
 *
 * Included by trace.h (unless CUTEC_NO_SITE_MACROS): each operation of int.h, tuple.h,
 * layout.h and notation.h records the caller's file:line on its cute_alg, as the DSL calls
 * do on their context, so a layout or notation error in a kernel or a host function is
 * reported at the line of the operation that failed.  A function-like macro does not expand
 * inside itself: the call inside each is the function.  Generated from the headers' list
 * of operations taking a cute_alg; add a line here with a new operation.
 */
#ifndef CUTEC_LAYOUT_SITES_H
#define CUTEC_LAYOUT_SITES_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/int.h"
#include "cutec/layout.h"
#include "cutec/notation.h"
#include "cutec/trace.h"
#include "cutec/tuple.h"

/* int.h */
#define cute_int_dynamic(a, ...) CUTE__ALG_AT((a), cute_int_dynamic((a), __VA_ARGS__))
#define cute_int_op2(a, ...) CUTE__ALG_AT((a), cute_int_op2((a), __VA_ARGS__))
#define cute_add(a, ...) CUTE__ALG_AT((a), cute_add((a), __VA_ARGS__))
#define cute_sub(a, ...) CUTE__ALG_AT((a), cute_sub((a), __VA_ARGS__))
#define cute_mul(a, ...) CUTE__ALG_AT((a), cute_mul((a), __VA_ARGS__))
#define cute_div(a, ...) CUTE__ALG_AT((a), cute_div((a), __VA_ARGS__))
#define cute_ceil_div(a, ...) CUTE__ALG_AT((a), cute_ceil_div((a), __VA_ARGS__))
#define cute_mod(a, ...) CUTE__ALG_AT((a), cute_mod((a), __VA_ARGS__))
#define cute_min(a, ...) CUTE__ALG_AT((a), cute_min((a), __VA_ARGS__))
#define cute_max(a, ...) CUTE__ALG_AT((a), cute_max((a), __VA_ARGS__))
#define cute_abs(a, ...) CUTE__ALG_AT((a), cute_abs((a), __VA_ARGS__))
#define cute_sgn(a, ...) CUTE__ALG_AT((a), cute_sgn((a), __VA_ARGS__))
#define cute_int_cmp(a, ...) CUTE__ALG_AT((a), cute_int_cmp((a), __VA_ARGS__))
#define cute_decide_or(a, ...) CUTE__ALG_AT((a), cute_decide_or((a), __VA_ARGS__))
#define cute_decide_required(a, ...) CUTE__ALG_AT((a), cute_decide_required((a), __VA_ARGS__))
#define cute_assume(a, ...) CUTE__ALG_AT((a), cute_assume((a), __VA_ARGS__))

/* tuple.h */
#define cute_tuple_of(a, ...) CUTE__ALG_AT((a), cute_tuple_of((a), __VA_ARGS__))
#define cute_tuple_ints(a, ...) CUTE__ALG_AT((a), cute_tuple_ints((a), __VA_ARGS__))
#define cute_tuple_repeat(a, ...) CUTE__ALG_AT((a), cute_tuple_repeat((a), __VA_ARGS__))
#define cute_tuple_equal(a, ...) CUTE__ALG_AT((a), cute_tuple_equal((a), __VA_ARGS__))
#define cute_tuple_product(a, ...) CUTE__ALG_AT((a), cute_tuple_product((a), __VA_ARGS__))
#define cute_tuple_append(a, ...) CUTE__ALG_AT((a), cute_tuple_append((a), __VA_ARGS__))
#define cute_tuple_prepend(a, ...) CUTE__ALG_AT((a), cute_tuple_prepend((a), __VA_ARGS__))
#define cute_tuple_take(a, ...) CUTE__ALG_AT((a), cute_tuple_take((a), __VA_ARGS__))
#define cute_tuple_replace(a, ...) CUTE__ALG_AT((a), cute_tuple_replace((a), __VA_ARGS__))
#define cute_tuple_cat(a, ...) CUTE__ALG_AT((a), cute_tuple_cat((a), __VA_ARGS__))
#define cute_tuple_shape_ceil_div(a, ...) CUTE__ALG_AT((a), cute_tuple_shape_ceil_div((a), __VA_ARGS__))
#define cute_tuple_compact_col_major(a, ...) CUTE__ALG_AT((a), cute_tuple_compact_col_major((a), __VA_ARGS__))
#define cute_idx2crd(a, ...) CUTE__ALG_AT((a), cute_idx2crd((a), __VA_ARGS__))
#define cute_crd2idx(a, ...) CUTE__ALG_AT((a), cute_crd2idx((a), __VA_ARGS__))

/* layout.h */
#define cute_make_layout(a, ...) CUTE__ALG_AT((a), cute_make_layout((a), __VA_ARGS__))
#define cute_make_layout_row_major(a, ...) CUTE__ALG_AT((a), cute_make_layout_row_major((a), __VA_ARGS__))
#define cute_make_layout_stride(a, ...) CUTE__ALG_AT((a), cute_make_layout_stride((a), __VA_ARGS__))
#define cute_make_layout_modes(a, ...) CUTE__ALG_AT((a), cute_make_layout_modes((a), __VA_ARGS__))
#define cute_make_ordered_layout(a, ...) CUTE__ALG_AT((a), cute_make_ordered_layout((a), __VA_ARGS__))
#define cute_make_layout_like(a, ...) CUTE__ALG_AT((a), cute_make_layout_like((a), __VA_ARGS__))
#define cute_make_identity_layout(a, ...) CUTE__ALG_AT((a), cute_make_identity_layout((a), __VA_ARGS__))
#define cute_size(a, ...) CUTE__ALG_AT((a), cute_size((a), __VA_ARGS__))
#define cute_cosize(a, ...) CUTE__ALG_AT((a), cute_cosize((a), __VA_ARGS__))
#define cute_layout_eval(a, ...) CUTE__ALG_AT((a), cute_layout_eval((a), __VA_ARGS__))
#define cute_layout_eval_crd(a, ...) CUTE__ALG_AT((a), cute_layout_eval_crd((a), __VA_ARGS__))
#define cute_layout_eval_basis(a, ...) CUTE__ALG_AT((a), cute_layout_eval_basis((a), __VA_ARGS__))
#define cute_layout_eval_crd_basis(a, ...) CUTE__ALG_AT((a), cute_layout_eval_crd_basis((a), __VA_ARGS__))
#define cute_layout_offset(a, ...) CUTE__ALG_AT((a), cute_layout_offset((a), __VA_ARGS__))
#define cute_layout_equal(a, ...) CUTE__ALG_AT((a), cute_layout_equal((a), __VA_ARGS__))
#define cute_get(a, ...) CUTE__ALG_AT((a), cute_get((a), __VA_ARGS__))
#define cute_select(a, ...) CUTE__ALG_AT((a), cute_select((a), __VA_ARGS__))
#define cute_take(a, ...) CUTE__ALG_AT((a), cute_take((a), __VA_ARGS__))
#define cute_group_modes(a, ...) CUTE__ALG_AT((a), cute_group_modes((a), __VA_ARGS__))
#define cute_flatten(a, ...) CUTE__ALG_AT((a), cute_flatten((a), __VA_ARGS__))
#define cute_unflatten(a, ...) CUTE__ALG_AT((a), cute_unflatten((a), __VA_ARGS__))
#define cute_append(a, ...) CUTE__ALG_AT((a), cute_append((a), __VA_ARGS__))
#define cute_prepend(a, ...) CUTE__ALG_AT((a), cute_prepend((a), __VA_ARGS__))
#define cute_replace(a, ...) CUTE__ALG_AT((a), cute_replace((a), __VA_ARGS__))
#define cute_append_to_rank(a, ...) CUTE__ALG_AT((a), cute_append_to_rank((a), __VA_ARGS__))
#define cute_coalesce(a, ...) CUTE__ALG_AT((a), cute_coalesce((a), __VA_ARGS__))
#define cute_coalesce_profile(a, ...) CUTE__ALG_AT((a), cute_coalesce_profile((a), __VA_ARGS__))
#define cute_filter_zeros(a, ...) CUTE__ALG_AT((a), cute_filter_zeros((a), __VA_ARGS__))
#define cute_filter(a, ...) CUTE__ALG_AT((a), cute_filter((a), __VA_ARGS__))
#define cute_filter_profile(a, ...) CUTE__ALG_AT((a), cute_filter_profile((a), __VA_ARGS__))
#define cute_composition(a, ...) CUTE__ALG_AT((a), cute_composition((a), __VA_ARGS__))
#define cute_compose(a, ...) CUTE__ALG_AT((a), cute_compose((a), __VA_ARGS__))
#define cute_complement(a, ...) CUTE__ALG_AT((a), cute_complement((a), __VA_ARGS__))
#define cute_complement_default(a, ...) CUTE__ALG_AT((a), cute_complement_default((a), __VA_ARGS__))
#define cute_right_inverse(a, ...) CUTE__ALG_AT((a), cute_right_inverse((a), __VA_ARGS__))
#define cute_left_inverse(a, ...) CUTE__ALG_AT((a), cute_left_inverse((a), __VA_ARGS__))
#define cute_logical_divide(a, ...) CUTE__ALG_AT((a), cute_logical_divide((a), __VA_ARGS__))
#define cute_zipped_divide(a, ...) CUTE__ALG_AT((a), cute_zipped_divide((a), __VA_ARGS__))
#define cute_tiled_divide(a, ...) CUTE__ALG_AT((a), cute_tiled_divide((a), __VA_ARGS__))
#define cute_flat_divide(a, ...) CUTE__ALG_AT((a), cute_flat_divide((a), __VA_ARGS__))
#define cute_logical_product(a, ...) CUTE__ALG_AT((a), cute_logical_product((a), __VA_ARGS__))
#define cute_zipped_product(a, ...) CUTE__ALG_AT((a), cute_zipped_product((a), __VA_ARGS__))
#define cute_tiled_product(a, ...) CUTE__ALG_AT((a), cute_tiled_product((a), __VA_ARGS__))
#define cute_flat_product(a, ...) CUTE__ALG_AT((a), cute_flat_product((a), __VA_ARGS__))
#define cute_blocked_product(a, ...) CUTE__ALG_AT((a), cute_blocked_product((a), __VA_ARGS__))
#define cute_raked_product(a, ...) CUTE__ALG_AT((a), cute_raked_product((a), __VA_ARGS__))
#define cute_tile_to_shape(a, ...) CUTE__ALG_AT((a), cute_tile_to_shape((a), __VA_ARGS__))
#define cute_max_common_layout(a, ...) CUTE__ALG_AT((a), cute_max_common_layout((a), __VA_ARGS__))
#define cute_max_common_vector(a, ...) CUTE__ALG_AT((a), cute_max_common_vector((a), __VA_ARGS__))
#define cute_upcast(a, ...) CUTE__ALG_AT((a), cute_upcast((a), __VA_ARGS__))
#define cute_downcast(a, ...) CUTE__ALG_AT((a), cute_downcast((a), __VA_ARGS__))
#define cute_recast(a, ...) CUTE__ALG_AT((a), cute_recast((a), __VA_ARGS__))
#define cute_slice_and_offset(a, ...) CUTE__ALG_AT((a), cute_slice_and_offset((a), __VA_ARGS__))
#define cute_slice(a, ...) CUTE__ALG_AT((a), cute_slice((a), __VA_ARGS__))
#define cute_dice(a, ...) CUTE__ALG_AT((a), cute_dice((a), __VA_ARGS__))
#define cute_local_tile(a, ...) CUTE__ALG_AT((a), cute_local_tile((a), __VA_ARGS__))
#define cute_local_partition(a, ...) CUTE__ALG_AT((a), cute_local_partition((a), __VA_ARGS__))
#define cute_make_layout_tv(a, ...) CUTE__ALG_AT((a), cute_make_layout_tv((a), __VA_ARGS__))
#define cute_layout_coord_of(a, ...) CUTE__ALG_AT((a), cute_layout_coord_of((a), __VA_ARGS__))
#define cute_tiler_shape(a, ...) CUTE__ALG_AT((a), cute_tiler_shape((a), __VA_ARGS__))
#define cute_tiler_modes(a, ...) CUTE__ALG_AT((a), cute_tiler_modes((a), __VA_ARGS__))
#define cute_make_composed(a, ...) CUTE__ALG_AT((a), cute_make_composed((a), __VA_ARGS__))
#define cute_composed_eval(a, ...) CUTE__ALG_AT((a), cute_composed_eval((a), __VA_ARGS__))
#define cute_composed_composition(a, ...) CUTE__ALG_AT((a), cute_composed_composition((a), __VA_ARGS__))
#define cute_composed_logical_divide(a, ...) CUTE__ALG_AT((a), cute_composed_logical_divide((a), __VA_ARGS__))
#define cute_composed_zipped_divide(a, ...) CUTE__ALG_AT((a), cute_composed_zipped_divide((a), __VA_ARGS__))
#define cute_composed_logical_product(a, ...) CUTE__ALG_AT((a), cute_composed_logical_product((a), __VA_ARGS__))
#define cute_composed_slice(a, ...) CUTE__ALG_AT((a), cute_composed_slice((a), __VA_ARGS__))
#define cute_composed_tile_to_shape(a, ...) CUTE__ALG_AT((a), cute_composed_tile_to_shape((a), __VA_ARGS__))

/* notation.h */
#define cute_tuple_parse(a, ...) CUTE__ALG_AT((a), cute_tuple_parse((a), __VA_ARGS__))
#define cute_layout_parse(a, ...) CUTE__ALG_AT((a), cute_layout_parse((a), __VA_ARGS__))
#define cute_tiler_parse(a, ...) CUTE__ALG_AT((a), cute_tiler_parse((a), __VA_ARGS__))
#define cute_layout_or_shape_parse(a, ...) CUTE__ALG_AT((a), cute_layout_or_shape_parse((a), __VA_ARGS__))
#define cute_composed_parse(a, ...) CUTE__ALG_AT((a), cute_composed_parse((a), __VA_ARGS__))
#define cute_layout_fmt(a, ...) CUTE__ALG_AT((a), cute_layout_fmt((a), __VA_ARGS__))
#define cute_tuple_fmt(a, ...) CUTE__ALG_AT((a), cute_tuple_fmt((a), __VA_ARGS__))

CUTE_API_END
#endif
