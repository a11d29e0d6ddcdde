/* Divides and products: logical_* built from composition and complement, and their
 * zipped/tiled/flat rearrangements. */
#include "layout_internal.h"

typedef cute_layout (*whole_op)(cute_alg *c, const cute_layout *A, const cute_layout *T);

/* A / T = A o (T, complement(T, shape(coalesce(A)))) */
static cute_layout divide_whole(cute_alg *c, const cute_layout *A, const cute_layout *T)
{
    int unknowns;
    cute_layout cA = coalesce_counted(c, A, &unknowns);
    cute_layout rest = cute_complement(c, T, &cA.shape);
    if (unknowns > 0 && !c->failed) {
        /* A's coalesced shape may be one mode at launch, and a tuple cotarget folds
         * differently from its product: both forms must give the same rest */
        cute_tuple whole = cute_tuple_int(cute_size(c, A));
        cute_layout rest1 = cute_complement(c, T, &whole);
        if (!c->failed && !cute_layout_equal(c, &rest, &rest1)) {
            char a[1024], t[1024];
            cute_alg_fail(c, "logical_divide: cannot decide at trace time how much of %s "
                             "lies outside the tile %s (its modes may merge at launch; a "
                             "static value is required)", layout_text(A, a, sizeof a),
                          layout_text(T, t, sizeof t));
            return cute_layout_poison();
        }
    }
    cute_layout both[2] = {*T, rest};
    cute_layout B = cute_make_layout_modes(c, 2, both);
    cute_tiler tB = cute_tiler_layout(&B);
    return composition_named(c, A, &tB, "logical_divide");
}

/* A x T = (A, complement(A, size(A)*cosize(T)) o T) */
static cute_layout product_whole(cute_alg *c, const cute_layout *A, const cute_layout *T)
{
    cute_tuple cot = cute_tuple_int(cute_mul(c, cute_size(c, A), cute_cosize(c, T)));
    unsigned before = c->undecided;
    cute_layout comp = cute_complement(c, A, &cot);
    /* the complement's last mode may have size 1 at launch, and then the static algebra
     * would extend its other modes instead: compose only what holds either way */
    cute_layout both[2] = {*A, compose_form(c, &comp, T, "logical_product", c->undecided > before)};
    return cute_make_layout_modes(c, 2, both);
}

/* Apply `op` by the tiler subtree at pos: a layout leaf acts on the whole of A, '_' keeps
 * A, a tuple acts mode by mode and keeps the modes it does not cover. */
static cute_layout by_mode(cute_alg *c, const cute_layout *A, const cute_tiler *T, int pos,
                           int *leaf, whole_op op, const char *who)
{
    const cute_tuple *t = &T->tree;
    if (t->node[pos] < 0) {
        cute_int x = t->leaf[(*leaf)++];
        if (cute_is_underscore(x)) return *A;
        cute_layout t = tiler_layout_for_divide(c, T, (int)x.v);
        return op(c, A, &t);
    }
    int n = t->node[pos], r = cute_rank(A);
    if (n > r) {
        char a[1024];
        cute_alg_fail(c, "%s: the tiler has %d modes but %s has rank %d", who, n,
                      layout_text(A, a, sizeof a), r);
        return cute_layout_poison();
    }
    cute_layout modes[CUTE_MAX_RANK];
    int p = pos + 1;
    for (int i = 0; i < r && !c->failed; i++) {
        modes[i] = cute_get(c, A, i);
        if (i >= n) continue;
        modes[i] = by_mode(c, &modes[i], T, p, leaf, op, who);
        p = tuple_subtree_end(t, p, NULL);
    }
    if (c->failed) return cute_layout_poison();
    return cute_make_layout_modes(c, r, modes);
}

static cute_layout logical(cute_alg *c, const cute_layout *A, const cute_tiler *T, whole_op op,
                           const char *who)
{
    if (!layout_inputs_ok(c, who, 1, &A) || !tiler_ok(c, T, who)) return cute_layout_poison();
    int leaf = 0;
    return by_mode(c, A, T, 0, &leaf, op, who);
}

/* Gather ((t0,r0),(t1,r1),...,u...) into ((t0,t1,...),(r0,r1,...,u...)) following the
 * tiler: a nested tuple element is zipped first.  modes_out gets (tile, rest). */
static bool zip2_by(cute_alg *c, const cute_layout *L, const cute_tiler *T, int pos,
                    cute_layout *tile, cute_layout *rest, const char *who)
{
    const cute_tuple *t = &T->tree;
    if (t->node[pos] < 0) { /* a layout or '_': L is already (tile, rest) */
        if (cute_rank(L) != 2 || cute_tuple_is_int(&L->shape)) {
            char b[1024];
            return cute_alg_fail(c, "%s: mode %s must have rank 2 to be zipped", who,
                                 layout_text(L, b, sizeof b));
        }
        *tile = cute_get(c, L, 0);
        *rest = cute_get(c, L, 1);
        return !c->failed;
    }
    int n = t->node[pos], r = cute_rank(L);
    cute_layout tiles[CUTE_MAX_RANK], rests[CUTE_MAX_RANK];
    int p = pos + 1;
    for (int i = 0; i < n; i++) {
        cute_layout Li = cute_get(c, L, i);
        if (!zip2_by(c, &Li, T, p, &tiles[i], &rests[i], who)) return false;
        p = tuple_subtree_end(t, p, NULL);
    }
    for (int i = n; i < r; i++) rests[i] = cute_get(c, L, i);
    *tile = cute_make_layout_modes(c, n, tiles);
    *rest = cute_make_layout_modes(c, r, rests);
    return !c->failed;
}

static cute_layout zipped(cute_alg *c, const cute_layout *A, const cute_tiler *T, whole_op op,
                          const char *who)
{
    cute_layout L = logical(c, A, T, op, who);
    if (c->failed || cute_tuple_is_int(&T->tree)) return L; /* already (tile, rest) */
    cute_layout both[2];
    if (!zip2_by(c, &L, T, 0, &both[0], &both[1], who)) return cute_layout_poison();
    return cute_make_layout_modes(c, 2, both);
}

/* The modes of mode i of L, as slicing with repeat<rank>(_) keeps them: a rank-1 mode
 * (an int or a one-element tuple) stays whole, otherwise its elements are unpacked. */
static int unpack(cute_alg *c, const cute_layout *L, int i, cute_layout *out)
{
    cute_layout m = cute_get(c, L, i);
    int r = cute_rank(&m);
    if (r == 1) {
        out[0] = m;
        return 1;
    }
    for (int k = 0; k < r; k++) out[k] = cute_get(c, &m, k);
    return r;
}

/* tiled: (tile, rest...) ; flat: (tile..., rest...) */
static cute_layout tiled_or_flat(cute_alg *c, const cute_layout *A, const cute_tiler *T,
                                 whole_op op, bool flat, const char *who)
{
    cute_layout Z = zipped(c, A, T, op, who);
    if (c->failed) return cute_layout_poison();
    cute_layout modes[2 * CUTE_MAX_RANK];
    int n = 0;
    if (flat)
        n += unpack(c, &Z, 0, modes);
    else
        modes[n++] = cute_get(c, &Z, 0);
    n += unpack(c, &Z, 1, modes + n);
    if (n > CUTE_MAX_RANK) {
        cute_alg_fail(c, "%s: result of rank %d is over cutec's limit", who, n);
        return cute_layout_poison();
    }
    return cute_make_layout_modes(c, n, modes);
}

cute_layout cute_logical_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return logical(c, A, T, divide_whole, "logical_divide");
}
cute_layout cute_zipped_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return zipped(c, A, T, divide_whole, "zipped_divide");
}
cute_layout cute_tiled_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return tiled_or_flat(c, A, T, divide_whole, false, "tiled_divide");
}
cute_layout cute_flat_divide(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return tiled_or_flat(c, A, T, divide_whole, true, "flat_divide");
}
cute_layout cute_logical_product(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return logical(c, A, T, product_whole, "logical_product");
}
cute_layout cute_zipped_product(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return zipped(c, A, T, product_whole, "zipped_product");
}
cute_layout cute_tiled_product(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return tiled_or_flat(c, A, T, product_whole, false, "tiled_product");
}
cute_layout cute_flat_product(cute_alg *c, const cute_layout *A, const cute_tiler *T)
{
    return tiled_or_flat(c, A, T, product_whole, true, "flat_product");
}

/* blocked (raked = false): ((a0,b0),(a1,b1),...); raked: ((b0,a0),(b1,a1),...) where
 * (a, b) = logical_product of A and B padded to a common rank with 1:0 modes. */
static cute_layout block_or_rake(cute_alg *c, const cute_layout *A, const cute_layout *B,
                                 bool raked, const char *who)
{
    const cute_layout *in[2] = {A, B};
    if (!layout_inputs_ok(c, who, 2, in)) return cute_layout_poison();
    int R = cute_rank(A) > cute_rank(B) ? cute_rank(A) : cute_rank(B);
    cute_layout pA = cute_append_to_rank(c, A, R), pB = cute_append_to_rank(c, B, R);
    cute_layout r = product_whole(c, &pA, &pB);
    if (c->failed) return cute_layout_poison();
    cute_layout a = cute_get(c, &r, 0), b = cute_get(c, &r, 1);
    cute_layout first = raked ? b : a, second = raked ? a : b;
    /* CuTe's zip: an int first operand pairs with the second whole, ((first, second));
     * a tuple first operand needs a tuple second of the same rank */
    if (cute_tuple_is_int(&first.shape)) {
        cute_layout pair[2] = {first, second};
        cute_layout z = cute_make_layout_modes(c, 2, pair);
        return cute_make_layout_modes(c, 1, &z);
    }
    if (cute_tuple_is_int(&second.shape) || cute_rank(&first) != cute_rank(&second)) {
        char x[1024], y[1024];
        bool dyn = !cute_tuple_is_static(&r.shape) || !cute_tuple_is_static(&r.stride);
        cute_alg_fail_form(c, dyn, "%s: zip: Mismatched Ranks: %s and %s", who,
                      layout_text(&first, x, sizeof x), layout_text(&second, y, sizeof y));
        return cute_layout_poison();
    }
    cute_layout modes[CUTE_MAX_RANK];
    for (int i = 0; i < R; i++) {
        cute_layout pair[2] = {cute_get(c, &first, i), cute_get(c, &second, i)};
        modes[i] = cute_make_layout_modes(c, 2, pair);
    }
    return cute_make_layout_modes(c, R, modes);
}

cute_layout cute_blocked_product(cute_alg *c, const cute_layout *A, const cute_layout *B)
{
    return block_or_rake(c, A, B, false, "blocked_product");
}

cute_layout cute_raked_product(cute_alg *c, const cute_layout *A, const cute_layout *B)
{
    return block_or_rake(c, A, B, true, "raked_product");
}
