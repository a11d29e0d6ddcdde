/* Layouts derived for hardware: tile_to_shape, common vectors, recasting between element
 * widths, and thread-value layouts. */
#include "layout_internal.h"

/* (product of mode 0, product of mode 1, ...) */
static cute_tuple product_each(cute_alg *c, const cute_tuple *t)
{
    if (cute_tuple_is_int(t)) return *t;
    int r = cute_tuple_rank(t);
    cute_tuple m[CUTE_MAX_RANK];
    for (int i = 0; i < r; i++) {
        cute_tuple mi = cute_tuple_get(t, i);
        m[i] = cute_tuple_int(cute_tuple_product(c, &mi));
    }
    return cute_tuple_of(c, r, m);
}

cute_layout cute_tile_to_shape(cute_alg *c, const cute_layout *block, const cute_tuple *shape,
                               const cute_tuple *order)
{
    if (!layout_inputs_ok(c, "tile_to_shape", 1, &block)) return cute_layout_poison();
    int R = cute_tuple_rank(shape);
    if (cute_tuple_is_poison(shape) || cute_rank(block) > R) {
        char b[1024], s[512];
        cute_tuple_str(shape, s, sizeof s);
        cute_alg_fail(c, "tile_to_shape: block %s has more modes than the target shape %s",
                      layout_text(block, b, sizeof b), s);
        return cute_layout_poison();
    }
    cute_layout padded = cute_append_to_rank(c, block, R);
    cute_tuple bshape = product_each(c, &padded.shape), tshape = product_each(c, shape);
    cute_tuple reps = tshape;
    for (int i = 0; i < tshape.nleaves && !c->failed; i++) {
        if (cute_int_cmp(c, CUTE_CMP_DIVIDES, bshape.leaf[i], tshape.leaf[i]) == CUTE_FALSE) {
            char b[1024], s[512];
            cute_tuple_str(shape, s, sizeof s);
            cute_alg_fail(c, "tile_to_shape: block %s does not divide the target shape %s "
                             "(mode %d: %s into %s)", layout_text(block, b, sizeof b), s, i,
                          ITXT(bshape.leaf[i]), ITXT(tshape.leaf[i]));
            return cute_layout_poison();
        }
        reps.leaf[i] = cute_ceil_div(c, tshape.leaf[i], bshape.leaf[i]);
    }
    cute_layout arrangement = order ? cute_make_ordered_layout(c, reps, *order)
                                    : cute_make_layout(c, reps);
    cute_layout blocked = cute_blocked_product(c, &padded, &arrangement);
    return cute_coalesce_profile(c, &blocked, &reps);
}

/* coalesce(A o right_inverse(B)), and its contiguous leading mode if there is one */
static bool common_part(cute_alg *c, const cute_layout *A, const cute_layout *B,
                        cute_layout *inv_b, cute_layout *first)
{
    *inv_b = cute_right_inverse(c, B);
    cute_layout AB = cute_compose(c, A, inv_b);
    cute_layout common = cute_coalesce(c, &AB);
    if (c->failed) return false;
    *first = cute_tuple_is_int(&common.shape) ? common : cute_get(c, &common, 0);
    return cute_decide_or(c, cute_int_cmp(c, CUTE_CMP_EQ, first->stride.leaf[0], cute_i(1)),
                          false) && first->stride.basis[0] == 0;
}

cute_layout cute_max_common_layout(cute_alg *c, const cute_layout *A, const cute_layout *B)
{
    const cute_layout *in[2] = {A, B};
    if (!layout_inputs_ok(c, "max_common_layout", 2, in)) return cute_layout_poison();
    cute_layout inv_b, first;
    if (!common_part(c, A, B, &inv_b, &first)) {
        return c->failed ? cute_layout_poison()
                         : layout_of(cute_tuple_int(cute_i(1)), cute_tuple_int(cute_i(0)));
    }
    return cute_compose(c, &inv_b, &first);
}

cute_int cute_max_common_vector(cute_alg *c, const cute_layout *A, const cute_layout *B)
{
    const cute_layout *in[2] = {A, B};
    if (!layout_inputs_ok(c, "max_common_vector", 2, in)) return cute_i(0);
    cute_layout inv_b, first;
    if (!common_part(c, A, B, &inv_b, &first)) return c->failed ? cute_i(0) : cute_i(1);
    return first.shape.leaf[0];
}

/* n old elements become one: a stride that n divides shrinks by n; a stride d that divides
 * n (a contiguous run) shrinks its mode by n/d and becomes 1.  Each leaf must prove one. */
cute_layout cute_upcast(cute_alg *c, const cute_layout *L, int64_t n)
{
    if (!layout_inputs_ok(c, "upcast", 1, &L)) return cute_layout_poison();
    if (n < 1) {
        cute_alg_fail(c, "upcast: factor %lld must be >= 1", (long long)n);
        return cute_layout_poison();
    }
    cute_layout R = *L;
    cute_int N = cute_i(n);
    for (int i = 0; i < L->shape.nleaves && !c->failed; i++) {
        cute_int s = L->shape.leaf[i], d = L->stride.leaf[i], ad = cute_abs(c, d);
        if (cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, d, cute_i(0)), "upcast",
                                 "a stride is 0"))
            continue;
        cute_truth big = cute_int_cmp(c, CUTE_CMP_DIVIDES, N, ad);   /* n | d */
        cute_truth small = cute_int_cmp(c, CUTE_CMP_DIVIDES, ad, N); /* d | n */
        if (big != CUTE_TRUE && small != CUTE_TRUE) {
            char b[1024];
            cute_alg_fail(c, "upcast: Divisibility condition: in %s, stride %s and the factor "
                             "%lld %s", layout_text(L, b, sizeof b), ITXT(d), (long long)n,
                          big == CUTE_FALSE && small == CUTE_FALSE
                              ? "do not divide one another"
                              : "cannot be shown at trace time to divide one another");
            return cute_layout_poison();
        }
        R.shape.leaf[i] = cute_ceil_div(c, s, cute_ceil_div(c, N, ad));
        R.stride.leaf[i] = cute_mul(c, cute_sgn(c, d), cute_ceil_div(c, ad, N));
    }
    return c->failed ? cute_layout_poison() : R;
}

/* one old element becomes n: a unit stride stretches its shape, others scale */
cute_layout cute_downcast(cute_alg *c, const cute_layout *L, int64_t n)
{
    if (!layout_inputs_ok(c, "downcast", 1, &L)) return cute_layout_poison();
    if (n < 1) {
        cute_alg_fail(c, "downcast: factor %lld must be >= 1", (long long)n);
        return cute_layout_poison();
    }
    cute_layout R = *L;
    for (int i = 0; i < L->shape.nleaves && !c->failed; i++) {
        cute_int d = L->stride.leaf[i];
        bool unit = cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, cute_abs(c, d), cute_i(1)),
                                         "downcast", "a stride is 1 or -1");
        if (unit)
            R.shape.leaf[i] = cute_mul(c, L->shape.leaf[i], cute_i(n));
        else
            R.stride.leaf[i] = cute_mul(c, d, cute_i(n));
    }
    return c->failed ? cute_layout_poison() : R;
}

static int64_t gcd64(int64_t a, int64_t b) { return b ? gcd64(b, a % b) : a; }

cute_layout cute_recast(cute_alg *c, const cute_layout *L, int old_bits, int new_bits)
{
    if (c->failed) return cute_layout_poison();
    if (old_bits < 1 || new_bits < 1) {
        cute_alg_fail(c, "recast: element widths %d and %d bits must be positive", old_bits,
                      new_bits);
        return cute_layout_poison();
    }
    int64_t g = gcd64(old_bits, new_bits), up = new_bits / g, down = old_bits / g;
    cute_layout R = *L;
    if (up > 1) R = cute_upcast(c, &R, up);
    if (down > 1) R = cute_downcast(c, &R, down);
    return R;
}

cute_layout cute_make_layout_tv(cute_alg *c, const cute_layout *thr, const cute_layout *val,
                                cute_tuple *tiler)
{
    const cute_layout *in[2] = {thr, val};
    if (!layout_inputs_ok(c, "make_layout_tv", 2, in)) return cute_layout_poison();
    cute_layout mn = cute_raked_product(c, thr, val);
    cute_tuple tv_shape[2] = {cute_tuple_int(cute_size(c, thr)), cute_tuple_int(cute_size(c, val))};
    cute_layout tv = cute_make_layout(c, cute_tuple_of(c, 2, tv_shape));
    cute_layout inv = cute_right_inverse(c, &mn);
    cute_layout R = cute_compose(c, &inv, &tv);
    if (tiler) *tiler = c->failed ? cute_tuple_poison() : product_each(c, &mn.shape);
    return c->failed ? cute_layout_poison() : R;
}
