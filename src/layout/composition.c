/* composition: R = A o B, R(i) == A(B(i)). */
#include "layout_internal.h"

static bool cannot_decide(cute_alg *c, const mode_list *A, cute_int n, cute_int r, int i,
                          const char *who)
{
    cute_layout a = modes_layout(c, A, false, who);
    return cute_alg_fail(c, "%s: cannot decide at trace time how %s:%s divides through mode %d "
                            "of %s, whose modes may merge at launch (a static value or a "
                            "provable divisibility is required)",
                         who, ITXT(n), ITXT(r), i, layout_text(&a, (char[1024]){0}, 1024));
}

/* A (flat, coalesce_x'd) o n:r for a scalar B.  Walks A's modes dividing out the stride r,
 * then taking up to n elements (CuTe composition_impl, every constexpr-if on values).
 *
 * `strict`: A's coalesced form is uncertain (modes that may merge at launch stayed apart).
 * CuTe's weak stride test (r merely below a shape) is then unsound, so each step must prove
 * that r and the shape divide one another, and a failed shape test is a "cannot decide". */
static cute_layout compose_leaf(cute_alg *c, const mode_list *A, cute_int n, cute_int r,
                                bool strict, const char *who)
{
    /* B's stride 0 keeps B; no layout serves both a zero and a non-zero stride */
    if (cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, r, cute_i(0)), who,
                             "the tiler's stride is 0"))
        return layout_of(cute_tuple_int(n), cute_tuple_int(r));
    if (c->failed) return cute_layout_poison();
    int R = A->n;
    bool dyn = !cute_is_static(n) || !cute_is_static(r);
    for (int i = 0; i < R; i++) dyn |= !cute_is_static(A->s[i]) || !cute_is_static(A->d[i]);
    if (R == 1) {
        cute_layout L = layout_of(cute_tuple_int(n), cute_tuple_int(cute_mul(c, r, A->d[0])));
        L.stride.basis[0] = A->b[0];
        return L;
    }
    mode_list out = {0};
    cute_int rest_shape = n, rest_stride = r;
    for (int i = 0; i < R - 1 && !c->failed; i++) {
        cute_int s = A->s[i], abs_stride = cute_abs(c, rest_stride);
        /* Stride divisibility: r divides the shapes it steps over, or ends inside one.
         * Unprovable for dynamic values: assumed, as CuTe does for dynamic ints. */
        cute_truth ok = cute_int_cmp(c, CUTE_CMP_DIVIDES, s, abs_stride);
        if (strict && ok != CUTE_TRUE &&
            cute_int_cmp(c, CUTE_CMP_DIVIDES, abs_stride, s) != CUTE_TRUE)
            return cannot_decide(c, A, n, r, i, who), cute_layout_poison();
        if (ok != CUTE_TRUE) {
            cute_truth lt = cute_int_cmp(c, CUTE_CMP_LT, abs_stride, s);
            /* (s divides r) or (r < s) */
            cute_truth cond = lt == CUTE_TRUE ? CUTE_TRUE : ok == CUTE_FALSE ? lt : CUTE_UNKNOWN;
            if (!cute_assume(c, cond)) {
                cute_layout a = modes_layout(c, A, false, who);
                cute_alg_fail_form(c, dyn, "%s: Stride Divisibility Condition: in %s o %s:%s, stride %s "
                                 "neither divides by nor is below mode %d's shape %s",
                              who, layout_text(&a, (char[1024]){0}, 1024), ITXT(n), ITXT(r),
                              ITXT(abs_stride), i, ITXT(s));
                return cute_layout_poison();
            }
        }
        cute_int next_shape = cute_ceil_div(c, s, abs_stride);
        cute_int next_stride = cute_mul(c, cute_ceil_div(c, abs_stride, s), cute_sgn(c, rest_stride));
        bool skip = cute_decide_or(c, cute_int_cmp(c, CUTE_CMP_EQ, next_shape, cute_i(1)), false) ||
                    cute_decide_or(c, cute_int_cmp(c, CUTE_CMP_EQ, rest_shape, cute_i(1)), false);
        if (!skip) {
            cute_int new_shape = cute_min(c, next_shape, rest_shape);
            cute_truth divides = cute_int_cmp(c, CUTE_CMP_DIVIDES, new_shape, rest_shape);
            /* on an uncertain form even an assumption is unsound: it must be proven */
            if (strict && divides != CUTE_TRUE)
                return cannot_decide(c, A, n, r, i, who), cute_layout_poison();
            if (!cute_assume(c, divides)) {
                cute_layout a = modes_layout(c, A, false, who);
                cute_alg_fail_form(c, dyn, "%s: Shape Divisibility Condition: in %s o %s:%s, the %s "
                                 "remaining elements do not split evenly at mode %d (it takes %s)",
                              who, layout_text(&a, (char[1024]){0}, 1024), ITXT(n), ITXT(r),
                              ITXT(rest_shape), i, ITXT(new_shape));
                return cute_layout_poison();
            }
            modes_push(c, &out, new_shape, cute_mul(c, rest_stride, A->d[i]), A->b[i], who);
            rest_shape = cute_div(c, rest_shape, new_shape);
        }
        rest_stride = next_stride;
    }
    /* What reaches past A's end extends along A's last mode (CuTe's rule).  Where that mode's
     * extent may be 1 at launch, the static algebra coalesces it away and extends along the mode
     * before it instead: the two forms disagree past the end, so which mode extends cannot be
     * decided at trace time. */
    if (!c->failed && dyn &&
        cute_int_cmp(c, CUTE_CMP_EQ, A->s[R - 1], cute_i(1)) != CUTE_FALSE &&
        cute_int_cmp(c, CUTE_CMP_EQ, rest_shape, cute_i(1)) != CUTE_TRUE &&
        cute_int_cmp(c, CUTE_CMP_LT, A->s[R - 1], rest_shape) != CUTE_FALSE) {
        cute_layout a = modes_layout(c, A, false, who);
        cute_alg_fail(c, "%s: cannot decide at trace time where %s o %s:%s extends past the "
                         "end: its last mode's extent %s may be 1 at launch, which would drop "
                         "that mode and extend the one before it (a static extent, or a tiler "
                         "within the layout's size, is required)",
                      who, layout_text(&a, (char[1024]){0}, 1024), ITXT(n), ITXT(r),
                      ITXT(A->s[R - 1]));
        return cute_layout_poison();
    }
    cute_int last_stride = cute_mul(c, rest_stride, A->d[R - 1]);
    if (out.n == 0) {
        cute_layout L = layout_of(cute_tuple_int(rest_shape), cute_tuple_int(last_stride));
        L.stride.basis[0] = A->b[R - 1];
        return c->failed ? cute_layout_poison() : L;
    }
    if (!cute_decide_or(c, cute_int_cmp(c, CUTE_CMP_EQ, rest_shape, cute_i(1)), false))
        modes_push(c, &out, rest_shape, last_stride, A->b[R - 1], who);
    return modes_layout(c, &out, false, who);
}

/* A o B for a layout B: each leaf of B composed on its own, assembled in B's tree. */
cute_layout compose_form(cute_alg *c, const cute_layout *A, const cute_layout *B, const char *who,
                         bool uncertain_form)
{
    if (cute_layout_has_basis(B)) {
        cute_alg_fail(c, "%s: the right operand has basis strides (a coordinate layout "
                         "cannot be composed into)", who);
        return cute_layout_poison();
    }
    mode_list flat, ax;
    modes_of(A, &flat);
    bool strict = modes_coalesce(c, &flat, &ax, true) > 0 || uncertain_form;
    if (ax.n == 0) { /* A has no leaves, e.g. ():(): it is no function to compose with */
        char a[1024];
        cute_alg_fail(c, "%s: %s has no modes to compose with", who, layout_text(A, a, sizeof a));
        return cute_layout_poison();
    }
    tuple_builder bs, bd;
    tb_init(&bs);
    tb_init(&bd);
    int leaf = 0;
    for (int k = 0; k < B->shape.nnodes && !c->failed; k++) {
        if (B->shape.node[k] >= 0) {
            tb_open(&bs, B->shape.node[k]);
            tb_open(&bd, B->shape.node[k]);
            continue;
        }
        cute_layout r = compose_leaf(c, &ax, B->shape.leaf[leaf], B->stride.leaf[leaf], strict,
                                     who);
        leaf++;
        if (c->failed) return cute_layout_poison();
        tb_tuple(&bs, &r.shape);
        tb_tuple(&bd, &r.stride);
    }
    if (c->failed) return cute_layout_poison();
    return layout_of(tb_finish(&bs, c, who), tb_finish(&bd, c, who));
}

/* A o T where T is the tiler subtree at (pos, leaf).  Tuple tilers act by mode and drop
 * the modes they do not cover. */
static cute_layout compose_tiler(cute_alg *c, const cute_layout *A, const cute_tiler *T, int pos,
                                 int *leaf, const char *who)
{
    const cute_tuple *t = &T->tree;
    if (t->node[pos] < 0) {
        cute_int x = t->leaf[(*leaf)++];
        if (cute_is_underscore(x)) return *A;
        return compose_form(c, A, &T->layouts[x.v], who, false);
    }
    int n = t->node[pos];
    if (n > cute_rank(A)) {
        char a[1024];
        cute_alg_fail(c, "%s: the tiler has %d modes but %s has rank %d", who, n,
                      layout_text(A, a, sizeof a), cute_rank(A));
        return cute_layout_poison();
    }
    cute_layout modes[CUTE_MAX_RANK];
    int p = pos + 1;
    for (int i = 0; i < n && !c->failed; i++) {
        cute_layout Ai = cute_get(c, A, i);
        modes[i] = compose_tiler(c, &Ai, T, p, leaf, who);
        p = tuple_subtree_end(t, p, NULL);
    }
    if (c->failed) return cute_layout_poison();
    return cute_make_layout_modes(c, n, modes);
}

bool tiler_ok(cute_alg *c, const cute_tiler *T, const char *who)
{
    if (c->failed) return false;
    if (cute_tuple_is_poison(&T->tree))
        return cute_alg_fail(c, "%s: the tiler is poison (the result of an earlier error)", who);
    for (int i = 0; i < T->tree.nleaves; i++) {
        cute_int x = T->tree.leaf[i];
        if (!cute_is_underscore(x) && (!cute_is_static(x) || x.v < 0 || x.v >= T->nlayouts))
            return cute_alg_fail(c, "%s: malformed tiler", who);
    }
    for (int i = 0; i < T->nlayouts; i++) {
        const cute_layout *L = &T->layouts[i];
        if (!layout_inputs_ok(c, who, 1, &L)) return false;
    }
    return true;
}

cute_layout composition_named(cute_alg *c, const cute_layout *A, const cute_tiler *B,
                              const char *who)
{
    if (!layout_inputs_ok(c, who, 1, &A) || !tiler_ok(c, B, who)) return cute_layout_poison();
    int leaf = 0;
    return compose_tiler(c, A, B, 0, &leaf, who);
}

cute_layout cute_composition(cute_alg *c, const cute_layout *A, const cute_tiler *B)
{
    return composition_named(c, A, B, "composition");
}

cute_layout cute_compose(cute_alg *c, const cute_layout *A, const cute_layout *B)
{
    const cute_layout *in[2] = {A, B};
    if (!layout_inputs_ok(c, "composition", 2, in)) return cute_layout_poison();
    return compose_form(c, A, B, "composition", false);
}
