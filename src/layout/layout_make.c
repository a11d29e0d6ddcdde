/* Making layouts, and the queries every op uses (size, cosize, eval). */
#include <stdio.h>

#include "cutec/notation.h"
#include "layout_internal.h"

cute_layout cute_layout_poison(void)
{
    cute_layout L;
    L.shape = cute_tuple_poison();
    L.stride = cute_tuple_poison();
    return L;
}

bool layout_inputs_ok(cute_alg *c, const char *op, int n, const cute_layout *const *Ls)
{
    if (c->failed) return false;
    for (int i = 0; i < n; i++) {
        if (cute_layout_is_poison(Ls[i]))
            return cute_alg_fail(c, "%s: input %d is poison (the result of an earlier error)",
                                 op, i + 1);
        if (!cute_tuple_congruent(&Ls[i]->shape, &Ls[i]->stride))
            return cute_alg_fail(c, "%s: input %d has incongruent shape and stride", op, i + 1);
        if (cute_tuple_has_underscore(&Ls[i]->shape) || cute_tuple_has_underscore(&Ls[i]->stride))
            return cute_alg_fail(c, "%s: input %d has '_' in its shape or stride", op, i + 1);
    }
    return true;
}

const char *int_text(const cute_alg *c, cute_int x, char *buf)
{
    if (cute_is_dynamic(x) && c->arith && c->arith->describe &&
        c->arith->describe(c->arith->self, x, buf, 96) > 0)
        return buf;
    cute_int_str(x, buf, 96);
    return buf;
}

const char *layout_text(const cute_layout *L, char *buf, size_t n)
{
    cute_layout_str(L, buf, n);
    return buf;
}

cute_layout layout_of(cute_tuple shape, cute_tuple stride)
{
    cute_layout L = {shape, stride};
    if (cute_tuple_is_poison(&shape) || cute_tuple_is_poison(&stride)) return cute_layout_poison();
    return L;
}

/* a shape or stride given to a make_* op: no poison, no '_', a basis only in strides */
static bool part_ok(cute_alg *c, const char *op, const cute_tuple *t, bool stride)
{
    if (c->failed) return false;
    if (cute_tuple_is_poison(t))
        return cute_alg_fail(c, "%s: the %s is poison (the result of an earlier error)", op,
                             stride ? "stride" : "shape");
    char b[1024];
    if (cute_tuple_has_underscore(t)) {
        cute_tuple_str(t, b, sizeof b);
        return cute_alg_fail(c, "%s: '_' in the %s %s (it is only a coordinate or tiler)", op,
                             stride ? "stride" : "shape", b);
    }
    for (int i = 0; i < t->nleaves && !stride; i++)
        if (t->basis[i]) {
            cute_tuple_str(t, b, sizeof b);
            return cute_alg_fail(c, "%s: a basis ('@') in the shape %s", op, b);
        }
    return true;
}

cute_layout cute_make_layout(cute_alg *c, cute_tuple shape)
{
    if (!part_ok(c, "make_layout", &shape, false)) return cute_layout_poison();
    return layout_of(shape, cute_tuple_compact_col_major(c, &shape));
}

cute_layout cute_make_layout_row_major(cute_alg *c, cute_tuple shape)
{
    if (!part_ok(c, "make_layout_row_major", &shape, false)) return cute_layout_poison();
    cute_tuple stride = shape;
    cute_int cur = cute_i(1);
    for (int i = shape.nleaves - 1; i >= 0; i--) {
        cute_int s = shape.leaf[i];
        bool one = cute_decide_or(c, cute_int_cmp(c, CUTE_CMP_EQ, s, cute_i(1)), false);
        stride.leaf[i] = one ? cute_i(0) : cur;
        stride.basis[i] = 0;
        cur = cute_mul(c, cur, s);
    }
    return c->failed ? cute_layout_poison() : layout_of(shape, stride);
}

cute_layout cute_make_layout_stride(cute_alg *c, cute_tuple shape, cute_tuple stride)
{
    if (!part_ok(c, "make_layout", &shape, false) || !part_ok(c, "make_layout", &stride, true))
        return cute_layout_poison();
    if (!cute_tuple_congruent(&shape, &stride)) {
        char s[512], d[512];
        cute_tuple_str(&shape, s, sizeof s);
        cute_tuple_str(&stride, d, sizeof d);
        cute_alg_fail(c, "make_layout: shape %s and stride %s are not congruent", s, d);
        return cute_layout_poison();
    }
    return layout_of(shape, stride);
}

cute_layout cute_make_layout_modes(cute_alg *c, int n, const cute_layout *modes)
{
    if (c->failed) return cute_layout_poison();
    cute_tuple shapes[CUTE_MAX_RANK], strides[CUTE_MAX_RANK];
    if (n > CUTE_MAX_RANK) {
        cute_alg_fail(c, "make_layout: %d modes (at most %d)", n, CUTE_MAX_RANK);
        return cute_layout_poison();
    }
    for (int i = 0; i < n; i++) {
        const cute_layout *m = &modes[i];
        if (!layout_inputs_ok(c, "make_layout", 1, &m)) return cute_layout_poison();
        shapes[i] = modes[i].shape;
        strides[i] = modes[i].stride;
    }
    return layout_of(cute_tuple_of(c, n, shapes), cute_tuple_of(c, n, strides));
}

/* CuTe's compact_order: stride_i = the product of the shapes of the leaves that come
 * strictly before it (before[j][i]); a size-1 leaf gets stride 0.  Tied leaves get the same
 * stride, as in CuTe. */
static cute_tuple compact_order(cute_alg *c, const cute_tuple *shape,
                                bool before[CUTE_MAX_LEAVES][CUTE_MAX_LEAVES])
{
    cute_tuple stride = cute_tuple_fill_like(shape, cute_i(0));
    for (int i = 0; i < shape->nleaves; i++) {
        cute_int s = shape->leaf[i], p = cute_i(1);
        for (int j = 0; j < shape->nleaves; j++)
            if (before[j][i]) p = cute_mul(c, p, shape->leaf[j]);
        bool one = cute_decide_or(c, cute_int_cmp(c, CUTE_CMP_EQ, s, cute_i(1)), false);
        stride.leaf[i] = one ? cute_i(0) : p;
    }
    return stride;
}

cute_layout cute_make_ordered_layout(cute_alg *c, cute_tuple shape, cute_tuple order)
{
    if (!part_ok(c, "make_ordered_layout", &shape, false)) return cute_layout_poison();
    if (cute_tuple_is_poison(&shape) || cute_tuple_is_poison(&order) ||
        !cute_tuple_congruent(&shape, &order) || !cute_tuple_is_static(&order) ||
        cute_tuple_has_underscore(&order)) {
        char s[512], o[512];
        cute_tuple_str(&shape, s, sizeof s);
        cute_tuple_str(&order, o, sizeof o);
        cute_alg_fail(c, "make_ordered_layout: order %s must be static ints congruent with "
                         "shape %s", o, s);
        return cute_layout_poison();
    }
    bool before[CUTE_MAX_LEAVES][CUTE_MAX_LEAVES];
    for (int i = 0; i < shape.nleaves; i++)
        for (int j = 0; j < shape.nleaves; j++) before[j][i] = order.leaf[j].v < order.leaf[i].v;
    cute_tuple stride = compact_order(c, &shape, before);
    return c->failed ? cute_layout_poison() : layout_of(shape, stride);
}

/* the shape with every stride-0 mode made 1 (CuTe's filter_zeros): a base query, which
 * make_layout_like needs and filter (coalesce.c) builds on */
cute_layout cute_filter_zeros(cute_alg *c, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "filter_zeros", 1, &L)) return cute_layout_poison();
    cute_layout R = *L;
    for (int i = 0; i < L->shape.nleaves; i++) {
        /* no layout is the answer for both a zero and a non-zero stride: it must be known */
        if (cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, L->stride.leaf[i], cute_i(0)),
                                 "filter", "a stride is 0"))
            R.shape.leaf[i] = cute_i(1);
    }
    if (c->failed) return cute_layout_poison();
    return R;
}

/* CuTe: compact_order(filter_zeros(L).shape, L.stride): ordered by the strides themselves,
 * stride-0 modes counting as size 1 (so they stay 0 and take no room) */
cute_layout cute_make_layout_like(cute_alg *c, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "make_layout_like", 1, &L)) return cute_layout_poison();
    if (cute_layout_has_basis(L)) {
        cute_alg_fail(c, "make_layout_like: basis strides (an identity layout) have no order");
        return cute_layout_poison();
    }
    cute_layout Z = cute_filter_zeros(c, L);
    bool before[CUTE_MAX_LEAVES][CUTE_MAX_LEAVES];
    int n = L->shape.nleaves;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            before[j][i] = cute_decide_required(
                c, cute_int_cmp(c, CUTE_CMP_LT, L->stride.leaf[j], L->stride.leaf[i]),
                "make_layout_like", "one stride is below another");
    cute_tuple stride = compact_order(c, &Z.shape, before);
    return c->failed ? cute_layout_poison() : layout_of(L->shape, stride);
}

/* give each leaf under node `pos` the basis of its mode path; returns the next node */
static int basis_walk(const cute_tuple *shape, cute_tuple *stride, int pos, int *leaf,
                      unsigned bits, int depth, bool *too_deep)
{
    if (shape->node[pos] < 0) {
        stride->basis[(*leaf)++] = (cute_basis)(bits | (unsigned)depth);
        return pos + 1;
    }
    int n = shape->node[pos];
    pos++;
    for (int i = 0; i < n; i++) {
        if (depth == 3 || i >= 15) {
            *too_deep = true;
            return tuple_subtree_end(shape, pos - 1, NULL);
        }
        pos = basis_walk(shape, stride, pos, leaf, bits | (unsigned)(i + 1) << (2 + 4 * depth),
                         depth + 1, too_deep);
    }
    return pos;
}

cute_layout cute_make_identity_layout(cute_alg *c, cute_tuple shape)
{
    if (!part_ok(c, "make_identity_layout", &shape, false)) return cute_layout_poison();
    cute_tuple stride = cute_tuple_fill_like(&shape, cute_i(1));
    int leaf = 0;
    bool too_deep = false;
    basis_walk(&shape, &stride, 0, &leaf, 0, 0, &too_deep);
    if (too_deep) {
        cute_alg_fail(c, "make_identity_layout: shape nested deeper than 3 levels or a tuple "
                         "of more than 15 modes");
        return cute_layout_poison();
    }
    return layout_of(shape, stride);
}

int cute_rank(const cute_layout *L) { return cute_tuple_rank(&L->shape); }
int cute_depth(const cute_layout *L) { return cute_tuple_depth(&L->shape); }

cute_int cute_size(cute_alg *c, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "size", 1, &L)) return cute_i(0);
    return cute_tuple_product(c, &L->shape);
}

cute_int cute_cosize(cute_alg *c, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "cosize", 1, &L)) return cute_i(0);
    if (cute_layout_has_basis(L)) {
        cute_alg_fail(c, "cosize: basis strides (an identity layout) have no integer cosize");
        return cute_i(0);
    }
    cute_int r = cute_i(1);
    for (int i = 0; i < L->shape.nleaves; i++) {
        cute_int s1 = cute_sub(c, L->shape.leaf[i], cute_i(1));
        r = cute_add(c, r, cute_mul(c, s1, cute_abs(c, L->stride.leaf[i])));
    }
    return r;
}

bool cute_layout_has_basis(const cute_layout *L)
{
    for (int i = 0; i < L->stride.nleaves; i++)
        if (L->stride.basis[i]) return true;
    return false;
}

cute_int cute_layout_eval(cute_alg *c, const cute_layout *L, cute_int i)
{
    if (!layout_inputs_ok(c, "eval", 1, &L)) return cute_i(0);
    cute_tuple crd = cute_tuple_int(i);
    return cute_crd2idx(c, &crd, &L->shape, &L->stride);
}

cute_int cute_layout_eval_crd(cute_alg *c, const cute_layout *L, const cute_tuple *crd)
{
    if (!layout_inputs_ok(c, "eval", 1, &L)) return cute_i(0);
    if (!cute_tuple_weakly_congruent(crd, &L->shape)) {
        char a[512], b[1024];
        cute_tuple_str(crd, a, sizeof a);
        cute_alg_fail(c, "eval: coordinate %s does not match the shape of %s", a,
                      layout_text(L, b, sizeof b));
        return cute_i(0);
    }
    return cute_crd2idx(c, crd, &L->shape, &L->stride);
}

/* sum the leaf coordinates times their strides into the coordinate space the bases name */
static cute_tuple basis_sum(cute_alg *c, const cute_layout *L, const cute_int *x)
{
    cute_int acc[CUTE_MAX_RANK][CUTE_MAX_RANK];
    int width[CUTE_MAX_RANK] = {0}, top = 0;
    bool plain = false;
    for (int m = 0; m < CUTE_MAX_RANK; m++)
        for (int j = 0; j < CUTE_MAX_RANK; j++) acc[m][j] = cute_i(0);
    for (int k = 0; k < L->stride.nleaves && !c->failed; k++) {
        cute_basis b = L->stride.basis[k];
        int len = b & 3;
        /* a zero stride (a size-1 mode the algebra made) is zero in every basis */
        if (cute_is_const(L->stride.leaf[k], 0)) continue;
        int m0 = len > 0 ? ((b >> 2) & 15) - 1 : 0, m1 = len > 1 ? ((b >> 6) & 15) - 1 : 0;
        if (len > 2) {
            cute_alg_fail(c, "eval: basis paths deeper than 2 modes are not supported");
            return cute_tuple_poison();
        }
        plain |= len == 0;
        acc[m0][m1] = cute_add(c, acc[m0][m1], cute_mul(c, x[k], L->stride.leaf[k]));
        if (m0 + 1 > top) top = m0 + 1;
        if (len > 1 && m1 + 1 > width[m0]) width[m0] = m1 + 1;
    }
    if (plain && top > 1) {
        cute_alg_fail(c, "eval: a layout mixes plain and basis strides");
        return cute_tuple_poison();
    }
    if (plain) return cute_tuple_int(acc[0][0]);
    cute_tuple modes[CUTE_MAX_RANK];
    for (int m = 0; m < top; m++) {
        cute_tuple inner[CUTE_MAX_RANK];
        for (int j = 0; j < width[m]; j++) inner[j] = cute_tuple_int(acc[m][j]);
        modes[m] = width[m] ? cute_tuple_of(c, width[m], inner) : cute_tuple_int(acc[m][0]);
    }
    return c->failed ? cute_tuple_poison() : cute_tuple_of(c, top, modes);
}

cute_tuple cute_layout_eval_crd_basis(cute_alg *c, const cute_layout *L, const cute_tuple *crd)
{
    if (!layout_inputs_ok(c, "eval", 1, &L)) return cute_tuple_poison();
    cute_int x[CUTE_MAX_LEAVES];
    if (!tuple_leaf_coords(c, crd, &L->shape, x)) return cute_tuple_poison();
    return basis_sum(c, L, x);
}

cute_tuple cute_layout_offset(cute_alg *c, const cute_layout *L, const cute_tuple *crd)
{
    if (cute_layout_has_basis(L)) return cute_layout_eval_crd_basis(c, L, crd);
    if (!layout_inputs_ok(c, "offset", 1, &L)) return cute_tuple_poison();
    cute_int off = cute_crd2idx(c, crd, &L->shape, &L->stride);
    return c->failed ? cute_tuple_poison() : cute_tuple_int(off);
}

cute_tuple cute_layout_eval_basis(cute_alg *c, const cute_layout *L, cute_int idx)
{
    cute_tuple crd = cute_tuple_int(idx);
    return cute_layout_eval_crd_basis(c, L, &crd);
}

bool cute_layout_equal(cute_alg *c, const cute_layout *a, const cute_layout *b)
{
    return cute_tuple_equal(c, &a->shape, &b->shape) && cute_tuple_equal(c, &a->stride, &b->stride);
}
