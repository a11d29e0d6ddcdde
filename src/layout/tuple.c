/* Int-tuples: construction, modes, and the int-tuple algebra. */
#include <string.h>

#include "tuple_build.h"

/* --- the builder ------------------------------------------------------------------- */

void tb_init(tuple_builder *b)
{
    b->t.nnodes = 0;
    b->t.nleaves = 0;
    b->overflow = false;
}

void tb_open(tuple_builder *b, int n)
{
    if (b->t.nnodes >= CUTE_MAX_NODES || n > CUTE_MAX_RANK) {
        b->overflow = true;
        return;
    }
    b->t.node[b->t.nnodes++] = (int8_t)n;
}

void tb_leaf(tuple_builder *b, cute_int x, cute_basis basis)
{
    if (b->t.nnodes >= CUTE_MAX_NODES || b->t.nleaves >= CUTE_MAX_LEAVES) {
        b->overflow = true;
        return;
    }
    b->t.node[b->t.nnodes++] = -1;
    b->t.basis[b->t.nleaves] = basis;
    b->t.leaf[b->t.nleaves++] = x;
}

void tb_subtree(tuple_builder *b, const cute_tuple *src, int pos, int leaf)
{
    int nleaves, end = tuple_subtree_end(src, pos, &nleaves);
    for (int k = pos; k < end; k++) {
        if (src->node[k] < 0) {
            tb_leaf(b, src->leaf[leaf], src->basis[leaf]);
            leaf++;
        } else {
            tb_open(b, src->node[k]);
        }
    }
}

void tb_tuple(tuple_builder *b, const cute_tuple *src) { tb_subtree(b, src, 0, 0); }

cute_tuple tb_finish(tuple_builder *b, cute_alg *c, const char *op)
{
    if (b->overflow) {
        cute_alg_fail(c, "%s: the result has more than %d leaves or %d nodes (cutec's limit "
                         "for one int-tuple)", op, CUTE_MAX_LEAVES, CUTE_MAX_NODES);
        return cute_tuple_poison();
    }
    return b->t;
}

int tuple_subtree_end(const cute_tuple *t, int pos, int *leaves)
{
    int pending = 1, n = 0;
    while (pending > 0 && pos < t->nnodes) {
        if (t->node[pos] < 0)
            n++;
        else
            pending += t->node[pos];
        pending--;
        pos++;
    }
    if (leaves) *leaves = n;
    return pos;
}

bool tuple_mode_pos(const cute_tuple *t, int i, int *pos, int *leaf)
{
    if (t->nnodes == 0) return false;
    if (t->node[0] < 0) {
        *pos = 0;
        *leaf = 0;
        return i == 0;
    }
    if (i < 0 || i >= t->node[0]) return false;
    int p = 1, l = 0;
    for (int k = 0; k < i; k++) {
        int nl;
        p = tuple_subtree_end(t, p, &nl);
        l += nl;
    }
    *pos = p;
    *leaf = l;
    return true;
}

/* --- construction ------------------------------------------------------------------ */

cute_tuple cute_tuple_poison(void)
{
    cute_tuple t;
    t.nnodes = 0;
    t.nleaves = 0;
    return t;
}

cute_tuple cute_tuple_int(cute_int x)
{
    cute_tuple t;
    t.nnodes = 1;
    t.nleaves = 1;
    t.node[0] = -1;
    t.leaf[0] = x;
    t.basis[0] = 0;
    return t;
}

cute_tuple cute_tuple_of(cute_alg *c, int n, const cute_tuple *elems)
{
    if (c->failed) return cute_tuple_poison();
    tuple_builder b;
    tb_init(&b);
    tb_open(&b, n);
    for (int i = 0; i < n; i++) {
        if (cute_tuple_is_poison(&elems[i])) return cute_tuple_poison();
        tb_tuple(&b, &elems[i]);
    }
    return tb_finish(&b, c, "make_tuple");
}

cute_tuple cute_tuple_ints(cute_alg *c, int n, const int64_t *v)
{
    if (c->failed) return cute_tuple_poison();
    tuple_builder b;
    tb_init(&b);
    tb_open(&b, n);
    for (int i = 0; i < n; i++) tb_leaf(&b, cute_i(v[i]), 0);
    return tb_finish(&b, c, "make_tuple");
}

cute_tuple cute_tuple_repeat(cute_alg *c, int n, cute_tuple x)
{
    if (c->failed || cute_tuple_is_poison(&x)) return cute_tuple_poison();
    tuple_builder b;
    tb_init(&b);
    tb_open(&b, n);
    for (int i = 0; i < n; i++) tb_tuple(&b, &x);
    return tb_finish(&b, c, "repeat");
}

/* --- queries ----------------------------------------------------------------------- */

int cute_tuple_rank(const cute_tuple *t)
{
    if (t->nnodes == 0) return 0;
    return t->node[0] < 0 ? 1 : t->node[0];
}

static int depth_at(const cute_tuple *t, int pos, int *end)
{
    if (t->node[pos] < 0) {
        *end = pos + 1;
        return 0;
    }
    int n = t->node[pos], d = 0, p = pos + 1;
    for (int i = 0; i < n; i++) {
        int di = depth_at(t, p, &p);
        if (di > d) d = di;
    }
    *end = p;
    return d + 1;
}

int cute_tuple_depth(const cute_tuple *t)
{
    if (t->nnodes == 0) return 0;
    int end;
    return depth_at(t, 0, &end);
}

cute_tuple cute_tuple_get(const cute_tuple *t, int i)
{
    int pos, leaf;
    if (!tuple_mode_pos(t, i, &pos, &leaf)) return cute_tuple_poison();
    tuple_builder b;
    tb_init(&b);
    tb_subtree(&b, t, pos, leaf);
    return b.t;
}

int cute_tuple_mode_leaves(const cute_tuple *t, int i, int *first_leaf)
{
    int pos, leaf, n;
    if (!tuple_mode_pos(t, i, &pos, &leaf)) return -1;
    tuple_subtree_end(t, pos, &n);
    *first_leaf = leaf;
    return n;
}

bool cute_tuple_congruent(const cute_tuple *a, const cute_tuple *b)
{
    return a->nnodes == b->nnodes && a->nnodes > 0 &&
           memcmp(a->node, b->node, a->nnodes) == 0;
}

static bool weak_at(const cute_tuple *a, int *pa, const cute_tuple *b, int *pb)
{
    if (a->node[*pa] < 0) { /* a leaf covers b's whole subtree */
        (*pa)++;
        *pb = tuple_subtree_end(b, *pb, NULL);
        return true;
    }
    if (b->node[*pb] != a->node[*pa]) return false;
    int n = a->node[*pa];
    (*pa)++;
    (*pb)++;
    for (int i = 0; i < n; i++)
        if (!weak_at(a, pa, b, pb)) return false;
    return true;
}

bool cute_tuple_weakly_congruent(const cute_tuple *a, const cute_tuple *b)
{
    if (a->nnodes == 0 || b->nnodes == 0) return false;
    int pa = 0, pb = 0;
    return weak_at(a, &pa, b, &pb);
}

bool cute_tuple_equal(cute_alg *c, const cute_tuple *a, const cute_tuple *b)
{
    if (!cute_tuple_congruent(a, b)) return false;
    for (int i = 0; i < a->nleaves; i++) {
        if (a->basis[i] != b->basis[i]) return false;
        if (cute_is_underscore(a->leaf[i]) != cute_is_underscore(b->leaf[i])) return false;
        if (cute_is_underscore(a->leaf[i])) continue;
        if (cute_int_cmp(c, CUTE_CMP_EQ, a->leaf[i], b->leaf[i]) != CUTE_TRUE) return false;
    }
    return true;
}

bool cute_tuple_has_underscore(const cute_tuple *t)
{
    for (int i = 0; i < t->nleaves; i++)
        if (cute_is_underscore(t->leaf[i])) return true;
    return false;
}

bool cute_tuple_is_static(const cute_tuple *t)
{
    for (int i = 0; i < t->nleaves; i++)
        if (cute_is_dynamic(t->leaf[i])) return false;
    return true;
}

/* --- the int-tuple algebra -------------------------------------------------------- */

cute_int cute_tuple_product(cute_alg *c, const cute_tuple *t)
{
    cute_int p = cute_i(1);
    for (int i = 0; i < t->nleaves; i++) p = cute_mul(c, p, t->leaf[i]);
    return p;
}

cute_tuple cute_tuple_flatten(const cute_tuple *t)
{
    if (t->nnodes == 0 || cute_tuple_is_int(t)) return *t;
    tuple_builder b;
    tb_init(&b);
    tb_open(&b, t->nleaves);
    for (int i = 0; i < t->nleaves; i++) tb_leaf(&b, t->leaf[i], t->basis[i]);
    return b.t; /* never larger than t */
}

/* the modes of t (an int is one mode) followed by extra, as one tuple */
static cute_tuple splice(cute_alg *c, const cute_tuple *t, int drop_from, int drop_to,
                         const cute_tuple *ins, int ins_at, const char *op)
{
    if (c->failed || cute_tuple_is_poison(t) || (ins && cute_tuple_is_poison(ins)))
        return cute_tuple_poison();
    int r = cute_tuple_rank(t), n = 0;
    for (int i = 0; i < r; i++) n += (i < drop_from || i >= drop_to);
    n += ins != NULL;
    tuple_builder b;
    tb_init(&b);
    tb_open(&b, n);
    for (int i = 0; i <= r; i++) {
        if (ins && i == ins_at) tb_tuple(&b, ins);
        if (i == r || (i >= drop_from && i < drop_to)) continue;
        int pos, leaf;
        tuple_mode_pos(t, i, &pos, &leaf);
        tb_subtree(&b, t, pos, leaf);
    }
    return tb_finish(&b, c, op);
}

cute_tuple cute_tuple_append(cute_alg *c, cute_tuple t, cute_tuple x)
{
    return splice(c, &t, 0, 0, &x, cute_tuple_rank(&t), "append");
}

cute_tuple cute_tuple_prepend(cute_alg *c, cute_tuple t, cute_tuple x)
{
    return splice(c, &t, 0, 0, &x, 0, "prepend");
}

cute_tuple cute_tuple_take(cute_alg *c, const cute_tuple *t, int begin, int end)
{
    int r = cute_tuple_rank(t);
    if (!c->failed && (begin < 0 || end > r || begin > end)) {
        cute_alg_fail(c, "take: modes [%d,%d) out of range for a rank-%d tuple", begin, end, r);
        return cute_tuple_poison();
    }
    cute_tuple res = splice(c, t, 0, begin, NULL, 0, "take");
    if (cute_tuple_is_poison(&res)) return res;
    return splice(c, &res, end - begin, r, NULL, 0, "take");
}

cute_tuple cute_tuple_replace(cute_alg *c, const cute_tuple *t, int i, cute_tuple x)
{
    int r = cute_tuple_rank(t);
    if (!c->failed && (i < 0 || i >= r)) {
        cute_alg_fail(c, "replace: mode %d out of range for a rank-%d tuple", i, r);
        return cute_tuple_poison();
    }
    return splice(c, t, i, i + 1, &x, i, "replace");
}

cute_tuple cute_tuple_cat(cute_alg *c, const cute_tuple *a, const cute_tuple *b)
{
    if (c->failed || cute_tuple_is_poison(a) || cute_tuple_is_poison(b))
        return cute_tuple_poison();
    int ra = cute_tuple_rank(a), rb = cute_tuple_rank(b);
    tuple_builder bd;
    tb_init(&bd);
    tb_open(&bd, ra + rb);
    for (int k = 0; k < 2; k++) {
        const cute_tuple *t = k ? b : a;
        for (int i = 0; i < cute_tuple_rank(t); i++) {
            int pos, leaf;
            tuple_mode_pos(t, i, &pos, &leaf);
            tb_subtree(&bd, t, pos, leaf);
        }
    }
    return tb_finish(&bd, c, "tuple_cat");
}

cute_tuple cute_tuple_fill_like(const cute_tuple *like, cute_int x)
{
    cute_tuple t = *like;
    for (int i = 0; i < t.nleaves; i++) {
        t.leaf[i] = x;
        t.basis[i] = 0;
    }
    return t;
}

cute_tuple cute_tuple_shape_ceil_div(cute_alg *c, const cute_tuple *a, cute_int b)
{
    cute_tuple r = *a;
    for (int i = 0; i < a->nleaves; i++) {
        cute_int ai = a->leaf[i];
        r.leaf[i] = cute_ceil_div(c, ai, b);
        b = cute_ceil_div(c, b, ai);
    }
    return c->failed ? cute_tuple_poison() : r;
}

cute_tuple cute_tuple_compact_col_major(cute_alg *c, const cute_tuple *shape)
{
    cute_tuple r = *shape;
    cute_int cur = cute_i(1);
    for (int i = 0; i < shape->nleaves; i++) {
        cute_int s = shape->leaf[i];
        bool one = cute_decide_or(c, cute_int_cmp(c, CUTE_CMP_EQ, s, cute_i(1)), false);
        r.leaf[i] = one ? cute_i(0) : cur;
        r.basis[i] = 0;
        cur = cute_mul(c, cur, s);
    }
    return c->failed ? cute_tuple_poison() : r;
}

/* --- coordinates ------------------------------------------------------------------ */

static void idx2crd_at(cute_alg *c, cute_int idx, const cute_tuple *shape, int pos, int leaf,
                       tuple_builder *b)
{
    if (shape->node[pos] < 0) {
        tb_leaf(b, idx, 0);
        return;
    }
    int n = shape->node[pos], p = pos + 1, l = leaf;
    tb_open(b, n);
    for (int i = 0; i < n; i++) {
        int nl, end = tuple_subtree_end(shape, p, &nl);
        cute_int size = cute_i(1);
        for (int k = 0; k < nl; k++) size = cute_mul(c, size, shape->leaf[l + k]);
        bool last = i == n - 1;
        idx2crd_at(c, last ? idx : cute_mod(c, idx, size), shape, p, l, b);
        if (!last) idx = cute_div(c, idx, size);
        p = end;
        l += nl;
    }
}

cute_tuple cute_idx2crd(cute_alg *c, cute_int idx, const cute_tuple *shape)
{
    if (c->failed || cute_tuple_is_poison(shape)) return cute_tuple_poison();
    tuple_builder b;
    tb_init(&b);
    idx2crd_at(c, idx, shape, 0, 0, &b);
    cute_tuple r = tb_finish(&b, c, "idx2crd");
    return c->failed ? cute_tuple_poison() : r;
}

static cute_int leaf_term(cute_alg *c, cute_int x, const cute_tuple *stride, int leaf)
{
    if (stride->basis[leaf]) {
        cute_alg_fail(c, "crd2idx: stride %d is a basis element (an identity layout): use "
                         "cute_layout_eval_basis", leaf);
        return cute_i(0);
    }
    if (cute_is_underscore(x)) return cute_i(0);
    return cute_mul(c, x, stride->leaf[leaf]);
}

/* crd against the subtree at (pos, leaf) of shape/stride; crd at (cpos, cleaf) */
static cute_int crd2idx_at(cute_alg *c, const cute_tuple *crd, int cpos, int cleaf,
                           const cute_tuple *shape, const cute_tuple *stride, int pos, int leaf)
{
    if (c->failed) return cute_i(0);
    if (shape->node[pos] < 0) {
        if (crd->node[cpos] >= 0) {
            cute_alg_fail(c, "crd2idx: coordinate has a tuple where the shape has an int");
            return cute_i(0);
        }
        return leaf_term(c, crd->leaf[cleaf], stride, leaf);
    }
    int n = shape->node[pos], p = pos + 1, l = leaf;
    cute_int sum = cute_i(0);
    if (crd->node[cpos] >= 0) { /* tuple coordinate: mode by mode */
        if (crd->node[cpos] != n) {
            cute_alg_fail(c, "crd2idx: coordinate of rank %d against a shape of rank %d",
                          crd->node[cpos], n);
            return cute_i(0);
        }
        int cp = cpos + 1, cl = cleaf;
        for (int i = 0; i < n; i++) {
            int nl, cnl, cend = tuple_subtree_end(crd, cp, &cnl);
            int end = tuple_subtree_end(shape, p, &nl);
            sum = cute_add(c, sum, crd2idx_at(c, crd, cp, cl, shape, stride, p, l));
            p = end, l += nl, cp = cend, cl += cnl;
        }
        return sum;
    }
    /* an int coordinate against a tuple: split it colexicographically */
    cute_int idx = crd->leaf[cleaf];
    if (cute_is_underscore(idx)) return cute_i(0);
    for (int i = 0; i < n; i++) {
        int nl, end = tuple_subtree_end(shape, p, &nl);
        cute_int size = cute_i(1);
        for (int k = 0; k < nl; k++) size = cute_mul(c, size, shape->leaf[l + k]);
        bool last = i == n - 1;
        cute_tuple sub = cute_tuple_int(last ? idx : cute_mod(c, idx, size));
        sum = cute_add(c, sum, crd2idx_at(c, &sub, 0, 0, shape, stride, p, l));
        if (!last) idx = cute_div(c, idx, size);
        p = end, l += nl;
    }
    return sum;
}

cute_int cute_crd2idx(cute_alg *c, const cute_tuple *crd, const cute_tuple *shape,
                      const cute_tuple *stride)
{
    if (c->failed) return cute_i(0);
    if (cute_tuple_is_poison(crd) || cute_tuple_is_poison(shape) ||
        !cute_tuple_congruent(shape, stride)) {
        cute_alg_fail(c, "crd2idx: malformed or incongruent inputs");
        return cute_i(0);
    }
    return crd2idx_at(c, crd, 0, 0, shape, stride, 0, 0);
}

/* the coordinate of every leaf of shape's subtree at (pos, leaf) for the coordinate crd's
 * subtree at (cpos, cleaf): ints split colexicographically, '_' counts as 0 */
static void leaf_coords_at(cute_alg *c, const cute_tuple *crd, int cpos, int cleaf,
                           const cute_tuple *shape, int pos, int leaf, cute_int *out)
{
    if (c->failed) return;
    int n = shape->node[pos] < 0 ? 0 : shape->node[pos];
    if (crd->node[cpos] >= 0) {
        if (crd->node[cpos] != n || n == 0) {
            cute_alg_fail(c, "coordinate: a tuple of rank %d against a %s", crd->node[cpos],
                          n ? "tuple of another rank" : "single mode");
            return;
        }
        int cp = cpos + 1, cl = cleaf, p = pos + 1, l = leaf;
        for (int i = 0; i < n; i++) {
            leaf_coords_at(c, crd, cp, cl, shape, p, l, out);
            int nl, cnl;
            cp = tuple_subtree_end(crd, cp, &cnl);
            p = tuple_subtree_end(shape, p, &nl);
            cl += cnl, l += nl;
        }
        return;
    }
    cute_int x = crd->leaf[cleaf];
    if (cute_is_underscore(x)) x = cute_i(0);
    /* split x over the subtree like idx2crd, leaf by leaf */
    cute_tuple part;
    {
        tuple_builder b;
        tb_init(&b);
        tb_subtree(&b, shape, pos, leaf);
        part = b.t;
    }
    cute_tuple split = cute_idx2crd(c, x, &part);
    for (int k = 0; k < split.nleaves; k++) out[leaf + k] = split.leaf[k];
}

bool tuple_leaf_coords(cute_alg *c, const cute_tuple *crd, const cute_tuple *shape, cute_int *out)
{
    if (c->failed) return false;
    if (cute_tuple_is_poison(crd) || cute_tuple_is_poison(shape))
        return cute_alg_fail(c, "coordinate: poison input");
    leaf_coords_at(c, crd, 0, 0, shape, 0, 0, out);
    return !c->failed;
}
