/* cutec/layout.h — layouts (shape:stride functions) and the whole CuTe layout algebra.
 *
 * Semantics are CuTe's (include/cute/layout.hpp) with every decision taken on values when
 * they are static, and proven from the backend's facts when they are dynamic.  Each op states
 * its precondition (@pre) and its defining property (@post); the tests check the property.
 *
 * Every call takes the algebra context first.  A failed call records a message naming the op,
 * its inputs and the broken condition in c->error and returns a poison layout; later calls
 * on a failed context, or with poison inputs, return poison too.
 */
#ifndef CUTEC_LAYOUT_H
#define CUTEC_LAYOUT_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/tuple.h"

typedef struct cute_layout {
    cute_tuple shape;
    cute_tuple stride; /* congruent to shape */
} cute_layout;

/* A tiler: one layout that acts on a whole layout (as a function of its 1-D index), or a
 * tuple whose element i acts on mode i (nested tuples recurse), elements being layouts,
 * ints n (= make_layout(n)) or '_' (leave the mode alone).  `tree` holds the structure: a
 * leaf is either '_' or the static index of its layout in layouts[]. */
#define CUTE_MAX_TILER_LAYOUTS 8
typedef struct cute_tiler {
    cute_tuple tree;
    int nlayouts;
    cute_layout layouts[CUTE_MAX_TILER_LAYOUTS];
    /* layouts[i] came from an int n: it is n:1 to composition (CuTe composes an int as
     * n:1) but make_layout(n) to divides and products (1:0 when n == 1) */
    bool from_int[CUTE_MAX_TILER_LAYOUTS];
} cute_tiler;

/* --- construction ------------------------------------------------------------------- */
cute_layout cute_layout_poison(void);
static inline bool cute_layout_is_poison(const cute_layout *L) { return L->shape.nnodes == 0; }
/* compact column-major; size-1 modes get stride 0: (4,1,3) -> (4,1,3):(1,0,4) */
cute_layout cute_make_layout(cute_alg *c, cute_tuple shape);
/* compact row-major (last mode fastest), size-1 modes stride 0 */
cute_layout cute_make_layout_row_major(cute_alg *c, cute_tuple shape);
/* @pre shape and stride congruent */
cute_layout cute_make_layout_stride(cute_alg *c, cute_tuple shape, cute_tuple stride);
/* the modes as one layout: (m0,m1,...); one mode gives the rank-1 tuple (m0) */
cute_layout cute_make_layout_modes(cute_alg *c, int n, const cute_layout *modes);
/* compact, with modes ordered by `order` (congruent to shape; smaller = faster) */
cute_layout cute_make_ordered_layout(cute_alg *c, cute_tuple shape, cute_tuple order);
/* compact, same shape as L, strides ordered like L's; stride-0 modes stay 0 */
cute_layout cute_make_layout_like(cute_alg *c, const cute_layout *L);
/* shape : basis strides (1@0, 1@1, ...): maps a coordinate to itself */
cute_layout cute_make_identity_layout(cute_alg *c, cute_tuple shape);

/* --- queries ------------------------------------------------------------------------ */
int cute_rank(const cute_layout *L);  /* number of top-level modes; 1 for an int shape */
int cute_depth(const cute_layout *L); /* 0 for an int shape */
cute_int cute_size(cute_alg *c, const cute_layout *L);   /* product of the shape */
cute_int cute_cosize(cute_alg *c, const cute_layout *L); /* 1 + sum (s-1)*|d| */
/* L(i): the offset of 1-D index i (colexicographic split, last mode unbounded) */
cute_int cute_layout_eval(cute_alg *c, const cute_layout *L, cute_int i);
/* L(crd) for a coordinate weakly congruent with the shape */
cute_int cute_layout_eval_crd(cute_alg *c, const cute_layout *L, const cute_tuple *crd);
/* for a layout with basis strides: the coordinate L(i), e.g. (2,3) */
cute_tuple cute_layout_eval_basis(cute_alg *c, const cute_layout *L, cute_int i);
/* the same for a coordinate ('_' counts as 0): the offset of a slice of an identity layout */
cute_tuple cute_layout_eval_crd_basis(cute_alg *c, const cute_layout *L, const cute_tuple *crd);
/* L(crd) with '_' as 0, as an int-tuple: an int for integer strides, a coordinate for basis
 * strides.  The offset of a slice. */
cute_tuple cute_layout_offset(cute_alg *c, const cute_layout *L, const cute_tuple *crd);
bool cute_layout_has_basis(const cute_layout *L);
bool cute_layout_equal(cute_alg *c, const cute_layout *a, const cute_layout *b); /* as values */

/* --- modes -------------------------------------------------------------------------- */
cute_layout cute_get(cute_alg *c, const cute_layout *L, int i);
cute_layout cute_select(cute_alg *c, const cute_layout *L, int n, const int *modes);
cute_layout cute_take(cute_alg *c, const cute_layout *L, int begin, int end);
/* modes [begin,end) grouped into one mode */
cute_layout cute_group_modes(cute_alg *c, const cute_layout *L, int begin, int end);
cute_layout cute_flatten(cute_alg *c, const cute_layout *L);
/* @pre L flat with as many modes as `profile` has leaves; regroups them like profile */
cute_layout cute_unflatten(cute_alg *c, const cute_layout *L, const cute_tuple *profile);
cute_layout cute_append(cute_alg *c, const cute_layout *L, const cute_layout *x);
cute_layout cute_prepend(cute_alg *c, const cute_layout *L, const cute_layout *x);
cute_layout cute_replace(cute_alg *c, const cute_layout *L, int i, const cute_layout *x);
/* append 1:0 modes up to rank n (a rank-1 int layout stays an int when n == 1) */
cute_layout cute_append_to_rank(cute_alg *c, const cute_layout *L, int n);

/* --- the algebra -------------------------------------------------------------------- */
/* @post same function on [0,size): flattened, size-1 modes dropped, mergeable neighbours
 * (s0*d0 == d1) merged; one mode is an int layout; all size-1 gives 1:0 */
cute_layout cute_coalesce(cute_alg *c, const cute_layout *L);
/* coalesce mode i by profile[i] (int leaf: the whole mode); modes past the profile kept */
cute_layout cute_coalesce_profile(cute_alg *c, const cute_layout *L, const cute_tuple *profile);
/* stride-0 modes get shape 1 (same structure) */
cute_layout cute_filter_zeros(cute_alg *c, const cute_layout *L);
/* coalesce(filter_zeros(L)): the image of L with no repeats */
cute_layout cute_filter(cute_alg *c, const cute_layout *L);
cute_layout cute_filter_profile(cute_alg *c, const cute_layout *L, const cute_tuple *profile);

/* A o B.  @pre B's image is divisible through A's shape (CuTe's stride and shape
 * divisibility conditions).  @post R(i) == A(B(i)) for i < size(B); R has B's shape tree
 * (by-mode tilers: mode i of A composed with element i; uncovered modes are dropped). */
cute_layout cute_composition(cute_alg *c, const cute_layout *A, const cute_tiler *B);
cute_layout cute_compose(cute_alg *c, const cute_layout *A, const cute_layout *B);

/* @pre L injective on its non-zero-stride modes.  @post R strictly increasing, R(i) not in
 * the image of L for i > 0, and size(R)*size(filter(L)) covers cotarget. */
cute_layout cute_complement(cute_alg *c, const cute_layout *L, const cute_tuple *cotarget);
cute_layout cute_complement_default(cute_alg *c, const cute_layout *L); /* cosize(filter(L)) */
/* @post L(R(i)) == i for i < size(R), R as large as possible */
cute_layout cute_right_inverse(cute_alg *c, const cute_layout *L);
/* @post R(L(i)) == i for i < size(L) wherever L is injective */
cute_layout cute_left_inverse(cute_alg *c, const cute_layout *L);

/* A o (T, complement(T, shape(coalesce(A)))): ((tile),(rest)) */
cute_layout cute_logical_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T);
cute_layout cute_zipped_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T);
cute_layout cute_tiled_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T);
cute_layout cute_flat_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T);
/* (A, complement(A, size(A)*cosize(T)) o T) */
cute_layout cute_logical_product(cute_alg *c, const cute_layout *A, const cute_tiler *T);
cute_layout cute_zipped_product(cute_alg *c, const cute_layout *A, const cute_tiler *T);
cute_layout cute_tiled_product(cute_alg *c, const cute_layout *A, const cute_tiler *T);
cute_layout cute_flat_product(cute_alg *c, const cute_layout *A, const cute_tiler *T);
/* ((a0,b0),(a1,b1),...): copies of A arranged by B, A's elements contiguous */
cute_layout cute_blocked_product(cute_alg *c, const cute_layout *A, const cute_layout *B);
/* ((b0,a0),(b1,a1),...): A's elements interleaved (raked) across the copies */
cute_layout cute_raked_product(cute_alg *c, const cute_layout *A, const cute_layout *B);
/* replicate `block` to fill `shape` (each mode a multiple of block's), copies ordered by
 * `order` (NULL: column-major) */
cute_layout cute_tile_to_shape(cute_alg *c, const cute_layout *block, const cute_tuple *shape,
                               const cute_tuple *order);

/* the largest layout R with A o R == B o R contiguous from 0 (R = left_inverse of the common
 * contiguous part), and the size of its first (vectorizable) mode */
cute_layout cute_max_common_layout(cute_alg *c, const cute_layout *A, const cute_layout *B);
cute_int cute_max_common_vector(cute_alg *c, const cute_layout *A, const cute_layout *B);

/* reinterpret a layout of m-bit elements as n-bit elements (strides in units of elements) */
cute_layout cute_upcast(cute_alg *c, const cute_layout *L, int64_t n);   /* n old per new */
cute_layout cute_downcast(cute_alg *c, const cute_layout *L, int64_t n); /* n new per old */
cute_layout cute_recast(cute_alg *c, const cute_layout *L, int old_bits, int new_bits);

/* --- slicing and tiling ------------------------------------------------------------- */
/* the modes paired with '_' in crd, flattened into one tuple; *offset (may be NULL) =
 * L(crd with _ = 0): an int, or for basis strides (identity layouts) a coordinate.
 * local_tile and local_partition give their offsets the same way. */
cute_layout cute_slice_and_offset(cute_alg *c, const cute_tuple *crd, const cute_layout *L,
                                  cute_tuple *offset);
cute_layout cute_slice(cute_alg *c, const cute_tuple *crd, const cute_layout *L);
/* the modes paired with ints in crd (an int against a sub-tuple keeps the whole sub-tuple) */
cute_layout cute_dice(cute_alg *c, const cute_tuple *crd, const cute_layout *L);
/* Tile `coord` of zipped_divide(L, tile_shape) (CuTe local_tile): the tile's modes and
 * the rest modes that coord leaves '_', flattened; *offset = the tile's start.  coord may
 * have fewer modes than the tiler (the rest are '_').  `proj` (may be NULL) first dices
 * tile_shape and coord: modes where proj is '_' are dropped, int leaves kept (CuTe DSL's
 * proj=(1,None,1)). */
cute_layout cute_local_tile(cute_alg *c, const cute_layout *L, const cute_tuple *tile_shape,
                            const cute_tuple *coord, const cute_tuple *proj, cute_tuple *offset);
/* thread `idx`'s share of L when thr_layout's threads split it outer-wise (CuTe
 * local_partition): zipped_divide(L, shape(thr))[(thr.flat_coord(idx), _)] */
cute_layout cute_local_partition(cute_alg *c, const cute_layout *L, const cute_layout *thr,
                                 cute_int idx, cute_tuple *offset);
/* thread layout x value layout -> (tiler, TV layout): CuTe DSL's make_layout_tv.
 * tiler = product_each(shape(raked_product(thr, val))), tv = right_inverse(raked) o
 * (size(thr), size(val)):(1, size(thr)) */
cute_layout cute_make_layout_tv(cute_alg *c, const cute_layout *thr, const cute_layout *val,
                                cute_tuple *tiler);
/* the coordinate crd with L(crd) == idx, found through the strides (CuTe get_hier_coord):
 * crd_i = (idx / d_i) % s_i per leaf */
cute_tuple cute_layout_coord_of(cute_alg *c, const cute_layout *L, cute_int idx);

/* --- tilers ------------------------------------------------------------------------- */
cute_tiler cute_tiler_layout(const cute_layout *L);      /* one layout, whole */
cute_tiler cute_tiler_shape(cute_alg *c, const cute_tuple *shape); /* by mode, int elements */
cute_tiler cute_tiler_modes(cute_alg *c, int n, const cute_layout *modes); /* by mode */
/* '_' as a tiler leaves the layout unchanged */
cute_tiler cute_tiler_underscore(void);

/* --- swizzles and composed layouts -------------------------------------------------- */
typedef struct cute_swizzle {
    int B, M, S; /* x ^ ((x & (((1<<B)-1) << (M+max(0,S)))) >> S); B >= 0, M >= 0, |S| >= B */
} cute_swizzle;
bool cute_swizzle_valid(cute_swizzle sw);
int64_t cute_swizzle_apply(cute_swizzle sw, int64_t x);
/* the swizzle's period: 2^(B+M+|S|), the smallest power of two P with sw(x + P) = sw(x) + P
 * for every x (1 for no swizzle) */
int64_t cute_swizzle_period(cute_swizzle sw);
/* i -> sw(offset + L(i)): CuTe's ComposedLayout<Swizzle, offset, Layout> */
typedef struct cute_composed {
    cute_swizzle sw;
    cute_int offset;
    cute_layout layout;
} cute_composed;
cute_composed cute_make_composed(cute_alg *c, cute_swizzle sw, cute_int offset, const cute_layout *L);
cute_int cute_composed_eval(cute_alg *c, const cute_composed *L, cute_int i);
/* the algebra on the inner layout: (sw o L) o B == sw o (L o B), and likewise for divide,
 * product and slice (slicing moves the offset) */
cute_composed cute_composed_composition(cute_alg *c, const cute_composed *L, const cute_tiler *T);
cute_composed cute_composed_logical_divide(cute_alg *c, const cute_composed *L, const cute_tiler *T);
cute_composed cute_composed_zipped_divide(cute_alg *c, const cute_composed *L, const cute_tiler *T);
cute_composed cute_composed_logical_product(cute_alg *c, const cute_composed *L, const cute_tiler *T);
cute_composed cute_composed_slice(cute_alg *c, const cute_tuple *crd, const cute_composed *L);
cute_composed cute_composed_tile_to_shape(cute_alg *c, const cute_composed *block,
                                          const cute_tuple *shape, const cute_tuple *order);

CUTE_API_END
#endif
