/* slice and dice by a coordinate with '_'; local_tile and local_partition on layouts. */
#include "layout_internal.h"

/* Walk crd against the subtree of t at pos/leaf, keeping the subtrees that crd pairs with
 * '_' (keep_underscore) or with ints (dice).  Kept subtrees are appended as elements. */
static bool pick(cute_alg *c, const cute_tuple *crd, int cpos, int cleaf, const cute_tuple *t,
                 int pos, int leaf, bool keep_underscore, const cute_tuple **kept, int *pos_out,
                 int *leaf_out, int *n, const char *op)
{
    if (crd->node[cpos] < 0) {
        bool under = cute_is_underscore(crd->leaf[cleaf]);
        if (under == keep_underscore) {
            if (*n == CUTE_MAX_RANK)
                return cute_alg_fail(c, "%s: more than %d kept modes", op, CUTE_MAX_RANK);
            kept[*n] = t;
            pos_out[*n] = pos;
            leaf_out[(*n)++] = leaf;
        }
        return true;
    }
    int r = crd->node[cpos];
    if (t->node[pos] != r) {
        char a[512], b[1024];
        cute_tuple_str(crd, a, sizeof a);
        cute_tuple_str(t, b, sizeof b);
        return cute_alg_fail(c, "%s: coordinate %s does not match shape %s (a tuple of rank %d "
                                "against %s)", op, a, b, r,
                             t->node[pos] < 0 ? "an int" : "a tuple of another rank");
    }
    int cp = cpos + 1, cl = cleaf, p = pos + 1, l = leaf;
    for (int i = 0; i < r; i++) {
        if (!pick(c, crd, cp, cl, t, p, l, keep_underscore, kept, pos_out, leaf_out, n, op))
            return false;
        int nl, cnl;
        cp = tuple_subtree_end(crd, cp, &cnl);
        p = tuple_subtree_end(t, p, &nl);
        cl += cnl;
        l += nl;
    }
    return true;
}

/* the kept modes of L as one flat tuple of elements (a top-level match returns L) */
static cute_layout pick_layout(cute_alg *c, const cute_tuple *crd, const cute_layout *L,
                               bool keep_underscore, const char *op)
{
    if (!layout_inputs_ok(c, op, 1, &L)) return cute_layout_poison();
    if (cute_tuple_is_poison(crd)) {
        cute_alg_fail(c, "%s: poison coordinate", op);
        return cute_layout_poison();
    }
    if (crd->node[0] < 0 && cute_is_underscore(crd->leaf[0]) == keep_underscore) return *L;
    const cute_tuple *kept[CUTE_MAX_RANK];
    int pos[CUTE_MAX_RANK], leaf[CUTE_MAX_RANK], n = 0;
    if (!pick(c, crd, 0, 0, &L->shape, 0, 0, keep_underscore, kept, pos, leaf, &n, op))
        return cute_layout_poison();
    tuple_builder bs, bd;
    tb_init(&bs);
    tb_init(&bd);
    tb_open(&bs, n);
    tb_open(&bd, n);
    for (int i = 0; i < n; i++) {
        tb_subtree(&bs, &L->shape, pos[i], leaf[i]);
        tb_subtree(&bd, &L->stride, pos[i], leaf[i]);
    }
    return layout_of(tb_finish(&bs, c, op), tb_finish(&bd, c, op));
}

cute_layout cute_slice_and_offset(cute_alg *c, const cute_tuple *crd, const cute_layout *L,
                                  cute_tuple *offset)
{
    cute_layout R = pick_layout(c, crd, L, true, "slice");
    if (offset) *offset = cute_layout_offset(c, L, crd);
    return c->failed ? cute_layout_poison() : R;
}

cute_layout cute_slice(cute_alg *c, const cute_tuple *crd, const cute_layout *L)
{
    return cute_slice_and_offset(c, crd, L, NULL);
}

cute_layout cute_dice(cute_alg *c, const cute_tuple *crd, const cute_layout *L)
{
    return pick_layout(c, crd, L, false, "dice");
}

/* dice an int-tuple by a projection: keep the elements paired with ints */
static cute_tuple dice_tuple(cute_alg *c, const cute_tuple *proj, const cute_tuple *t)
{
    if (c->failed || cute_tuple_is_poison(proj) || cute_tuple_is_poison(t))
        return cute_tuple_poison();
    if (proj->node[0] < 0 && !cute_is_underscore(proj->leaf[0])) return *t;
    const cute_tuple *kept[CUTE_MAX_RANK];
    int pos[CUTE_MAX_RANK], leaf[CUTE_MAX_RANK], n = 0;
    if (!pick(c, proj, 0, 0, t, 0, 0, false, kept, pos, leaf, &n, "local_tile projection"))
        return cute_tuple_poison();
    tuple_builder b;
    tb_init(&b);
    tb_open(&b, n);
    for (int i = 0; i < n; i++) tb_subtree(&b, t, pos[i], leaf[i]);
    return tb_finish(&b, c, "dice");
}

/* The coordinate that picks `coord` in mode `mode` (0 or 1) of a zipped layout Z and keeps
 * the other mode whole: _ for a rank-1 mode, else (_,_,...) to flatten it into the result.
 * A tuple coord shorter than its mode is padded with '_' (those modes are kept too). */
static cute_tuple tile_coord(cute_alg *c, const cute_layout *Z, int mode, const cute_tuple *coord)
{
    cute_tuple other_shape = cute_tuple_get(&Z->shape, 1 - mode);
    cute_tuple mode_shape = cute_tuple_get(&Z->shape, mode);
    int r_other = cute_tuple_rank(&other_shape), r_coord = cute_tuple_rank(&mode_shape);
    cute_tuple under = cute_tuple_int(cute_underscore());
    cute_tuple others = r_other == 1 ? under : cute_tuple_repeat(c, r_other, under);
    cute_tuple crd = *coord;
    if (!cute_tuple_is_int(coord))
        for (int i = cute_tuple_rank(coord); i < r_coord; i++) crd = cute_tuple_append(c, crd, under);
    cute_tuple pair[2] = {mode == 0 ? crd : others, mode == 0 ? others : crd};
    return cute_tuple_of(c, 2, pair);
}

cute_layout cute_local_tile(cute_alg *c, const cute_layout *L, const cute_tuple *tile_shape,
                            const cute_tuple *coord, const cute_tuple *proj, cute_tuple *offset)
{
    if (!layout_inputs_ok(c, "local_tile", 1, &L)) return cute_layout_poison();
    cute_tuple shape = *tile_shape, crd = *coord;
    if (proj) {
        shape = dice_tuple(c, proj, tile_shape);
        crd = dice_tuple(c, proj, coord);
    }
    cute_tiler T = cute_tiler_shape(c, &shape);
    cute_layout Z = cute_zipped_divide(c, L, &T);
    if (c->failed) return cute_layout_poison();
    cute_tuple full = tile_coord(c, &Z, 1, &crd);
    return cute_slice_and_offset(c, &full, &Z, offset);
}

cute_tuple cute_layout_coord_of(cute_alg *c, const cute_layout *L, cute_int idx)
{
    if (!layout_inputs_ok(c, "coord_of", 1, &L)) return cute_tuple_poison();
    cute_tuple crd = L->shape;
    for (int i = 0; i < L->shape.nleaves; i++) {
        cute_int d = L->stride.leaf[i], s = L->shape.leaf[i];
        crd.basis[i] = 0;
        if (cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, d, cute_i(0)), "coord_of",
                                 "a stride is 0")) {
            crd.leaf[i] = cute_i(0);
            continue;
        }
        crd.leaf[i] = cute_mod(c, cute_div(c, idx, d), s);
    }
    return c->failed ? cute_tuple_poison() : crd;
}

cute_layout cute_local_partition(cute_alg *c, const cute_layout *L, const cute_layout *thr,
                                 cute_int idx, cute_tuple *offset)
{
    const cute_layout *in[2] = {L, thr};
    if (!layout_inputs_ok(c, "local_partition", 2, in)) return cute_layout_poison();
    cute_int nthr = cute_size(c, thr);
    if (cute_int_cmp(c, CUTE_CMP_LT, idx, nthr) == CUTE_FALSE ||
        cute_int_cmp(c, CUTE_CMP_LT, idx, cute_i(0)) == CUTE_TRUE) {
        char b[1024];
        cute_alg_fail(c, "local_partition: thread %s is outside the thread layout %s (%s "
                         "threads)", ITXT(idx), layout_text(thr, b, sizeof b), ITXT(nthr));
        return cute_layout_poison();
    }
    /* per top-level mode of thr: its size (the tiler) and idx's coordinate linearized
     * within it (CuTe get_flat_coord) */
    cute_tuple hier = cute_layout_coord_of(c, thr, idx);
    int r = cute_rank(thr);
    cute_tuple sizes[CUTE_MAX_RANK], coords[CUTE_MAX_RANK];
    for (int i = 0; i < r && !c->failed; i++) {
        cute_tuple si = cute_tuple_get(&thr->shape, i), ci = cute_tuple_get(&hier, i);
        cute_tuple compact = cute_tuple_compact_col_major(c, &si);
        sizes[i] = cute_tuple_int(cute_tuple_product(c, &si));
        coords[i] = cute_tuple_int(cute_crd2idx(c, &ci, &si, &compact));
    }
    if (c->failed) return cute_layout_poison();
    bool scalar = cute_tuple_is_int(&thr->shape);
    cute_tuple shape = scalar ? sizes[0] : cute_tuple_of(c, r, sizes);
    cute_tuple crd = scalar ? coords[0] : cute_tuple_of(c, r, coords);
    cute_tiler T = cute_tiler_shape(c, &shape);
    cute_layout Z = cute_zipped_divide(c, L, &T);
    if (c->failed) return cute_layout_poison();
    cute_tuple full = tile_coord(c, &Z, 0, &crd);
    return cute_slice_and_offset(c, &full, &Z, offset);
}
