/* Tilers: one whole-layout tiler, or a tuple of per-mode tilers. */
#include "layout_internal.h"

/* no tiler: what a failed construction returns */
cute_tiler tiler_poison(void)
{
    cute_tiler T;
    T.nlayouts = 0;
    T.tree = cute_tuple_poison();
    return T;
}

cute_tiler cute_tiler_layout(const cute_layout *L)
{
    cute_tiler T;
    T.nlayouts = 1;
    T.layouts[0] = *L;
    T.from_int[0] = false;
    T.tree = cute_layout_is_poison(L) ? cute_tuple_poison() : cute_tuple_int(cute_i(0));
    return T;
}

cute_tiler cute_tiler_underscore(void)
{
    cute_tiler T;
    T.nlayouts = 0;
    T.tree = cute_tuple_int(cute_underscore());
    return T;
}

cute_tiler cute_tiler_modes(cute_alg *c, int n, const cute_layout *modes)
{
    cute_tiler T = tiler_poison();
    if (c->failed) return T;
    if (n > CUTE_MAX_TILER_LAYOUTS) {
        cute_alg_fail(c, "tiler: %d modes (at most %d)", n, CUTE_MAX_TILER_LAYOUTS);
        return T;
    }
    tuple_builder b;
    tb_init(&b);
    tb_open(&b, n);
    for (int i = 0; i < n; i++) {
        T.layouts[i] = modes[i];
        T.from_int[i] = false;
        tb_leaf(&b, cute_i(i), 0);
    }
    T.nlayouts = n;
    T.tree = tb_finish(&b, c, "tiler");
    return T;
}

/* A shape as a tiler: (4,8) tiles mode 0 by 4:1 and mode 1 by 8:1; nested shapes nest;
 * an int shape n is the whole-layout tiler n:1. */
cute_tiler cute_tiler_shape(cute_alg *c, const cute_tuple *shape)
{
    cute_tiler T = tiler_poison();
    if (c->failed) return T;
    if (cute_tuple_is_poison(shape) || shape->nleaves > CUTE_MAX_TILER_LAYOUTS) {
        cute_alg_fail(c, "tiler: a shape with at most %d leaves is required",
                      CUTE_MAX_TILER_LAYOUTS);
        return T;
    }
    T.tree = *shape;
    for (int i = 0; i < shape->nleaves; i++) {
        if (cute_is_underscore(shape->leaf[i])) continue;
        T.layouts[T.nlayouts] = tiler_int_layout(shape->leaf[i]);
        T.from_int[T.nlayouts] = true;
        T.tree.leaf[i] = cute_i(T.nlayouts++);
    }
    return T;
}

cute_layout tiler_int_layout(cute_int n)
{
    return layout_of(cute_tuple_int(n), cute_tuple_int(cute_i(1)));
}

cute_layout tiler_layout_for_divide(cute_alg *c, const cute_tiler *T, int i)
{
    if (!T->from_int[i]) return T->layouts[i];
    return cute_make_layout(c, T->layouts[i].shape);
}
