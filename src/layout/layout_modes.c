/* Selecting, grouping and flattening modes; flat mode lists for the algorithms. */
#include "layout_internal.h"

bool modes_push(cute_alg *c, mode_list *m, cute_int s, cute_int d, cute_basis b, const char *op)
{
    if (m->n == CUTE_MAX_LEAVES)
        return cute_alg_fail(c, "%s: more than %d modes (cutec's limit for one layout)", op,
                             CUTE_MAX_LEAVES);
    m->s[m->n] = s;
    m->d[m->n] = d;
    m->b[m->n] = b;
    m->n++;
    return true;
}

void modes_of(const cute_layout *L, mode_list *m)
{
    m->n = L->shape.nleaves;
    for (int i = 0; i < m->n; i++) {
        m->s[i] = L->shape.leaf[i];
        m->d[i] = L->stride.leaf[i];
        m->b[i] = L->stride.basis[i];
    }
}

cute_layout modes_layout(cute_alg *c, const mode_list *m, bool wrap_one, const char *op)
{
    if (c->failed) return cute_layout_poison();
    if (m->n == 0) return layout_of(cute_tuple_int(cute_i(1)), cute_tuple_int(cute_i(0)));
    if (m->n == 1 && !wrap_one) {
        cute_layout L = layout_of(cute_tuple_int(m->s[0]), cute_tuple_int(m->d[0]));
        L.stride.basis[0] = m->b[0];
        return L;
    }
    tuple_builder bs, bd;
    tb_init(&bs);
    tb_init(&bd);
    tb_open(&bs, m->n);
    tb_open(&bd, m->n);
    for (int i = 0; i < m->n; i++) {
        tb_leaf(&bs, m->s[i], 0);
        tb_leaf(&bd, m->d[i], m->b[i]);
    }
    return layout_of(tb_finish(&bs, c, op), tb_finish(&bd, c, op));
}

cute_layout cute_get(cute_alg *c, const cute_layout *L, int i)
{
    if (!layout_inputs_ok(c, "get", 1, &L)) return cute_layout_poison();
    if (i < 0 || i >= cute_rank(L)) {
        char b[1024];
        cute_alg_fail(c, "get: mode %d out of range for %s (rank %d)", i,
                      layout_text(L, b, sizeof b), cute_rank(L));
        return cute_layout_poison();
    }
    return layout_of(cute_tuple_get(&L->shape, i), cute_tuple_get(&L->stride, i));
}

cute_layout cute_select(cute_alg *c, const cute_layout *L, int n, const int *modes)
{
    if (!layout_inputs_ok(c, "select", 1, &L)) return cute_layout_poison();
    cute_layout m[CUTE_MAX_RANK];
    if (n > CUTE_MAX_RANK) {
        cute_alg_fail(c, "select: %d modes (at most %d)", n, CUTE_MAX_RANK);
        return cute_layout_poison();
    }
    for (int k = 0; k < n; k++) m[k] = cute_get(c, L, modes[k]);
    return cute_make_layout_modes(c, n, m);
}

cute_layout cute_take(cute_alg *c, const cute_layout *L, int begin, int end)
{
    if (!layout_inputs_ok(c, "take", 1, &L)) return cute_layout_poison();
    return layout_of(cute_tuple_take(c, &L->shape, begin, end),
                     cute_tuple_take(c, &L->stride, begin, end));
}

cute_layout cute_group_modes(cute_alg *c, const cute_layout *L, int begin, int end)
{
    if (!layout_inputs_ok(c, "group_modes", 1, &L)) return cute_layout_poison();
    int r = cute_rank(L);
    if (begin < 0 || end > r || begin > end) {
        char b[1024];
        cute_alg_fail(c, "group_modes: [%d,%d) out of range for %s (rank %d)", begin, end,
                      layout_text(L, b, sizeof b), r);
        return cute_layout_poison();
    }
    if (r - (end - begin) + 1 > CUTE_MAX_RANK) {
        cute_alg_fail(c, "group_modes: the result would have more than %d modes", CUTE_MAX_RANK);
        return cute_layout_poison();
    }
    cute_layout m[CUTE_MAX_RANK];
    int n = 0;
    for (int i = 0; i < begin; i++) m[n++] = cute_get(c, L, i);
    m[n++] = cute_take(c, L, begin, end);
    for (int i = end; i < r; i++) m[n++] = cute_get(c, L, i);
    return cute_make_layout_modes(c, n, m);
}

cute_layout cute_flatten(cute_alg *c, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "flatten", 1, &L)) return cute_layout_poison();
    return layout_of(cute_tuple_flatten(&L->shape), cute_tuple_flatten(&L->stride));
}

/* regroup the flat leaves [*k, ...) like the subtree of profile at pos */
static void unflatten_at(const cute_layout *L, const cute_tuple *profile, int pos, int *k,
                         tuple_builder *bs, tuple_builder *bd)
{
    if (profile->node[pos] < 0) {
        tb_leaf(bs, L->shape.leaf[*k], 0);
        tb_leaf(bd, L->stride.leaf[*k], L->stride.basis[*k]);
        (*k)++;
        return;
    }
    int n = profile->node[pos], p = pos + 1;
    tb_open(bs, n);
    tb_open(bd, n);
    for (int i = 0; i < n; i++) {
        unflatten_at(L, profile, p, k, bs, bd);
        p = tuple_subtree_end(profile, p, NULL);
    }
}

cute_layout cute_unflatten(cute_alg *c, const cute_layout *L, const cute_tuple *profile)
{
    if (!layout_inputs_ok(c, "unflatten", 1, &L)) return cute_layout_poison();
    if (cute_tuple_is_poison(profile) || profile->nleaves != L->shape.nleaves ||
        cute_depth(L) > 1) {
        char b[1024], p[512];
        cute_tuple_str(profile, p, sizeof p);
        cute_alg_fail(c, "unflatten: %s must be flat with one mode per leaf of profile %s",
                      layout_text(L, b, sizeof b), p);
        return cute_layout_poison();
    }
    tuple_builder bs, bd;
    tb_init(&bs);
    tb_init(&bd);
    int k = 0;
    unflatten_at(L, profile, 0, &k, &bs, &bd);
    return layout_of(tb_finish(&bs, c, "unflatten"), tb_finish(&bd, c, "unflatten"));
}

cute_layout cute_append(cute_alg *c, const cute_layout *L, const cute_layout *x)
{
    const cute_layout *in[2] = {L, x};
    if (!layout_inputs_ok(c, "append", 2, in)) return cute_layout_poison();
    return layout_of(cute_tuple_append(c, L->shape, x->shape),
                     cute_tuple_append(c, L->stride, x->stride));
}

cute_layout cute_prepend(cute_alg *c, const cute_layout *L, const cute_layout *x)
{
    const cute_layout *in[2] = {L, x};
    if (!layout_inputs_ok(c, "prepend", 2, in)) return cute_layout_poison();
    return layout_of(cute_tuple_prepend(c, L->shape, x->shape),
                     cute_tuple_prepend(c, L->stride, x->stride));
}

cute_layout cute_replace(cute_alg *c, const cute_layout *L, int i, const cute_layout *x)
{
    const cute_layout *in[2] = {L, x};
    if (!layout_inputs_ok(c, "replace", 2, in)) return cute_layout_poison();
    return layout_of(cute_tuple_replace(c, &L->shape, i, x->shape),
                     cute_tuple_replace(c, &L->stride, i, x->stride));
}

cute_layout cute_append_to_rank(cute_alg *c, const cute_layout *L, int n)
{
    if (!layout_inputs_ok(c, "append", 1, &L)) return cute_layout_poison();
    int r = cute_rank(L);
    if (n <= r) return *L;
    cute_layout one = layout_of(cute_tuple_int(cute_i(1)), cute_tuple_int(cute_i(0)));
    cute_layout R = *L;
    for (int i = r; i < n; i++) R = cute_append(c, &R, &one);
    return R;
}
