/* coalesce and filter: the same function with the fewest modes. */
#include "cutec/notation.h"
#include "layout_internal.h"

/* Does mode (s0,d0) continue into stride d1?  s0*d0 == d1 with equal bases. */
static cute_truth mergeable(cute_alg *c, cute_int s0, cute_int d0, cute_basis b0, cute_int d1,
                            cute_basis b1)
{
    if (b0 != b1) return CUTE_FALSE;
    return cute_int_cmp(c, CUTE_CMP_EQ, cute_mul(c, s0, d0), d1);
}

/* Coalesce a flat list.  keep_last: never drop the last mode (composition's coalesce_x,
 * which keeps A's natural extension past its domain: only the last stride matters there).
 *
 * Returns the number of structural unknowns: merges that could not be decided, and modes
 * kept although they may have size 1 (they could not be dropped, and nothing merged them
 * away).  Each makes the result differ in form, not in function, from the coalesce of the
 * launch-time values; they are added to c->undecided.  A possibly-1 mode that merges with
 * a mode that is not 1 is no unknown: the merged mode is the same either way. */
int modes_coalesce(cute_alg *c, const mode_list *in, mode_list *out, bool keep_last)
{
    bool maybe_one[CUTE_MAX_LEAVES];
    int unknowns = 0;
    out->n = 0;
    for (int i = 0; i < in->n && !c->failed; i++) {
        bool last = i == in->n - 1;
        cute_truth one = cute_int_cmp(c, CUTE_CMP_EQ, in->s[i], cute_i(1));
        if (one == CUTE_TRUE && !(keep_last && last)) continue;
        int k = out->n - 1;
        cute_truth merge = k >= 0 ? mergeable(c, out->s[k], out->d[k], out->b[k], in->d[i],
                                               in->b[i])
                                  : CUTE_FALSE;
        if (merge == CUTE_TRUE) {
            out->s[k] = cute_mul(c, out->s[k], in->s[i]);
            /* still possibly 1 only if both parts were */
            maybe_one[k] = maybe_one[k] && one == CUTE_UNKNOWN;
            continue;
        }
        unknowns += merge == CUTE_UNKNOWN;
        if (!modes_push(c, out, in->s[i], in->d[i], in->b[i], "coalesce")) break;
        maybe_one[out->n - 1] = one == CUTE_UNKNOWN && !(keep_last && last);
    }
    for (int k = 0; k < out->n; k++) unknowns += maybe_one[k];
    c->undecided += unknowns;
    return unknowns;
}

cute_layout coalesce_counted(cute_alg *c, const cute_layout *L, int *unknowns)
{
    *unknowns = 0;
    if (!layout_inputs_ok(c, "coalesce", 1, &L)) return cute_layout_poison();
    mode_list in, out;
    modes_of(L, &in);
    *unknowns = modes_coalesce(c, &in, &out, false);
    return modes_layout(c, &out, false, "coalesce");
}

cute_layout cute_coalesce(cute_alg *c, const cute_layout *L)
{
    int unknowns;
    return coalesce_counted(c, L, &unknowns);
}

/* coalesce the subtree of L under (pos, leaf) by the profile subtree at ppos */
static void coalesce_by(cute_alg *c, const cute_layout *L, int pos, int leaf,
                        const cute_tuple *profile, int ppos, tuple_builder *bs, tuple_builder *bd)
{
    int nleaves;
    tuple_subtree_end(&L->shape, pos, &nleaves);
    if (profile->node[ppos] < 0) { /* an int leaf: coalesce this whole mode */
        mode_list in, out;
        in.n = 0;
        for (int k = 0; k < nleaves; k++)
            modes_push(c, &in, L->shape.leaf[leaf + k], L->stride.leaf[leaf + k],
                       L->stride.basis[leaf + k], "coalesce");
        modes_coalesce(c, &in, &out, false);
        cute_layout m = modes_layout(c, &out, false, "coalesce");
        if (c->failed) return;
        tb_tuple(bs, &m.shape);
        tb_tuple(bd, &m.stride);
        return;
    }
    int pn = profile->node[ppos];
    int rank = L->shape.node[pos] < 0 ? 1 : L->shape.node[pos];
    if (L->shape.node[pos] < 0 || pn > rank) {
        char b[1024], p[512];
        cute_tuple_str(profile, p, sizeof p);
        cute_alg_fail(c, "coalesce: profile %s has more modes than %s", p,
                      layout_text(L, b, sizeof b));
        return;
    }
    tb_open(bs, rank);
    tb_open(bd, rank);
    int p = pos + 1, l = leaf, pp = ppos + 1;
    for (int i = 0; i < rank; i++) {
        int nl, end = tuple_subtree_end(&L->shape, p, &nl);
        if (i < pn) {
            coalesce_by(c, L, p, l, profile, pp, bs, bd);
            pp = tuple_subtree_end(profile, pp, NULL);
        } else { /* past the profile: unchanged */
            tb_subtree(bs, &L->shape, p, l);
            tb_subtree(bd, &L->stride, p, l);
        }
        p = end;
        l += nl;
    }
}

cute_layout cute_coalesce_profile(cute_alg *c, const cute_layout *L, const cute_tuple *profile)
{
    if (!layout_inputs_ok(c, "coalesce", 1, &L)) return cute_layout_poison();
    if (cute_tuple_is_poison(profile)) {
        cute_alg_fail(c, "coalesce: poison profile");
        return cute_layout_poison();
    }
    tuple_builder bs, bd;
    tb_init(&bs);
    tb_init(&bd);
    coalesce_by(c, L, 0, 0, profile, 0, &bs, &bd);
    if (c->failed) return cute_layout_poison();
    return layout_of(tb_finish(&bs, c, "coalesce"), tb_finish(&bd, c, "coalesce"));
}

cute_layout cute_filter(cute_alg *c, const cute_layout *L)
{
    cute_layout Z = cute_filter_zeros(c, L);
    return cute_coalesce(c, &Z);
}

/* mark the leaves of L's subtree at pos that the profile subtree at ppos covers */
static void covered_leaves(const cute_layout *L, int pos, int leaf, const cute_tuple *profile,
                           int ppos, bool *mask)
{
    int nleaves;
    tuple_subtree_end(&L->shape, pos, &nleaves);
    if (profile->node[ppos] < 0 || L->shape.node[pos] < 0) {
        for (int k = 0; k < nleaves; k++) mask[leaf + k] = true;
        return;
    }
    int pn = profile->node[ppos], p = pos + 1, l = leaf, pp = ppos + 1;
    for (int i = 0; i < L->shape.node[pos] && i < pn; i++) {
        int nl, end = tuple_subtree_end(&L->shape, p, &nl);
        covered_leaves(L, p, l, profile, pp, mask);
        pp = tuple_subtree_end(profile, pp, NULL);
        p = end;
        l += nl;
    }
}

/* filter within the profile: stride-0 modes it covers get shape 1, then coalesce by it */
cute_layout cute_filter_profile(cute_alg *c, const cute_layout *L, const cute_tuple *profile)
{
    if (!layout_inputs_ok(c, "filter", 1, &L)) return cute_layout_poison();
    if (cute_tuple_is_poison(profile)) {
        cute_alg_fail(c, "filter: poison profile");
        return cute_layout_poison();
    }
    bool mask[CUTE_MAX_LEAVES] = {0};
    covered_leaves(L, 0, 0, profile, 0, mask);
    cute_layout Z = cute_filter_zeros(c, L);
    for (int i = 0; i < L->shape.nleaves; i++)
        if (!mask[i]) Z.shape.leaf[i] = L->shape.leaf[i];
    return cute_coalesce_profile(c, &Z, profile);
}
