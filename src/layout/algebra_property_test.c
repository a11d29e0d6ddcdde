/* The static algebra against its defining properties, on many random layouts (generated
 * as the oracle does: tests/layout_gen.h).  CUTEC_SEED=N reproduces a run.
 *
 * Each op is checked only where it succeeded, and each op must succeed on enough of its
 * cases that the check is not vacuous.  CuTe checks only weak forms of some preconditions
 * (see the oracle README, "Preconditions"): on an input it accepts but where the defining
 * property fails, CuTe's answer is garbage too.  So a property failure is a test failure
 * when the input lies in a domain where the property is guaranteed (stated per op), and is
 * otherwise counted and reported as "outside the guaranteed domain". */
#include "check.h"
#include "layout_gen.h"

#define MAXV 16384

static gen G;
static int show_outside = 3; /* print this many off-domain failures per op */
static char ta[512], tb[512];

/* --- evaluation --------------------------------------------------------------------- */

/* all values of L over its domain, by an odometer over the flattened leaves (in the domain
 * every coordinate is in range, so no mode absorbs a remainder) */
static bool values_of(const cute_layout *L, int64_t *v, int64_t *n)
{
    int k = L->shape.nleaves;
    int64_t size = 1, crd[CUTE_MAX_LEAVES] = {0}, off = 0;
    for (int i = 0; i < k; i++) {
        if (!cute_is_static(L->shape.leaf[i]) || !cute_is_static(L->stride.leaf[i]) ||
            L->stride.basis[i])
            return false;
        size *= L->shape.leaf[i].v;
        if (size > MAXV) return false;
    }
    for (int64_t i = 0; i < size; i++) {
        v[i] = off;
        for (int j = 0; j < k; j++) { /* increment the odometer */
            off += L->stride.leaf[j].v;
            if (++crd[j] < L->shape.leaf[j].v) break;
            off -= crd[j] * L->stride.leaf[j].v;
            crd[j] = 0;
        }
    }
    *n = size;
    return true;
}

/* L(i) for any i >= 0 (past the domain: the natural extension) */
static int64_t eval_at(const cute_layout *L, int64_t i)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    return cute_layout_eval(&c, L, cute_i(i)).v;
}

static const char *str(const cute_layout *L)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    cute_layout_str(L, buf[k], sizeof buf[k]);
    return buf[k];
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t size_of(const cute_layout *L)
{
    int64_t s = 1;
    for (int i = 0; i < L->shape.nleaves; i++) s *= L->shape.leaf[i].v;
    return s;
}

static bool injective(const int64_t *v, int64_t n)
{
    static int64_t t[MAXV];
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp64);
    for (int64_t i = 1; i < n; i++)
        if (t[i] == t[i - 1]) return false;
    return true;
}

/* same multiset of values */
static bool same_values(const cute_layout *A, const cute_layout *B)
{
    static int64_t x[MAXV], y[MAXV];
    int64_t nx, ny;
    if (!values_of(A, x, &nx) || !values_of(B, y, &ny)) return true; /* too large: skip */
    if (nx != ny) return false;
    qsort(x, (size_t)nx, sizeof *x, cmp64);
    qsort(y, (size_t)ny, sizeof *y, cmp64);
    return memcmp(x, y, (size_t)nx * sizeof *x) == 0;
}

/* --- bookkeeping ------------------------------------------------------------------- */

typedef struct stats {
    const char *op;
    int cases, ok, errors, checked, outside; /* outside: property failed off its domain */
    int guaranteed;                          /* checked cases inside the guaranteed domain */
    bool dom;                                /* this case is inside it */
} stats;

static void report(const stats *s, double min_ok)
{
    printf("  %-16s %5d cases: %5d ok, %5d errors, %5d checked (%5d in the guaranteed domain), "
           "%3d failed outside it\n", s->op, s->cases, s->ok, s->errors, s->checked,
           s->guaranteed, s->outside);
    CHECK(s->guaranteed >= s->cases / 10, "%s: only %d cases in the guaranteed domain", s->op,
          s->guaranteed);
    CHECK(s->ok >= min_ok * s->cases, "%s: only %d of %d cases succeeded", s->op, s->ok,
          s->cases);
    CHECK(s->checked > 0, "%s: nothing checked", s->op);
}

/* a property failure: a test failure in the guaranteed domain, else counted; either way
 * the case's checking stops (the macro returns from the per-case function) */
#define PROPERTY(st, guaranteed, cond, ...)                                              \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            if (guaranteed) {                                                            \
                CHECK(cond, __VA_ARGS__);                                                \
            } else if ((st)->outside++ < show_outside) {                                 \
                printf("    outside: ");                                                 \
                printf(__VA_ARGS__);                                                     \
                printf("\n");                                                            \
            }                                                                            \
            return;                                                                      \
        }                                                                                \
    } while (0)
static gen_opts opts(bool pow2, int max_leaves, int64_t max_size, bool negative)
{
    return (gen_opts){.max_leaves = max_leaves, .pow2 = pow2, .negative = negative,
                      .max_size = max_size};
}

static bool all_pow2(const cute_layout *L)
{
    for (int i = 0; i < L->shape.nleaves; i++) {
        int64_t s = L->shape.leaf[i].v, d = L->stride.leaf[i].v;
        if (s < 1 || (s & (s - 1)) || d < 0 || (d & (d - 1))) return false;
    }
    return true;
}

/* all powers of two, and the leaves' images {j*d : j < s} occupy disjoint bit ranges:
 * then A o B distributes exactly over B's leaves (composition goes leaf by leaf, which is
 * only right when B's modes do not interfere: A(x + y) == A(x) + A(y)) */
static bool disjoint_pow2(const cute_layout *B)
{
    if (!all_pow2(B)) return false;
    uint64_t used = 0;
    for (int i = 0; i < B->shape.nleaves; i++) {
        int64_t s = B->shape.leaf[i].v, d = B->stride.leaf[i].v;
        if (d == 0 || s == 1) continue;
        uint64_t bits = (uint64_t)(s - 1) * (uint64_t)d; /* s, d powers of two: a bit range */
        if (used & bits) return false;
        used |= bits;
    }
    return true;
}

static bool tiler_pow2(const cute_tiler *T)
{
    for (int i = 0; i < T->nlayouts; i++)
        if (!disjoint_pow2(&T->layouts[i])) return false;
    return true;
}

/* the layout a tiler element stands for in a divide/product (an int n is make_layout(n)) */
static cute_layout tiler_elem(cute_alg *c, const cute_tiler *T, int k)
{
    return T->from_int[k] ? cute_make_layout(c, T->layouts[k].shape) : T->layouts[k];
}

/* R(i) == A(B(i)) for i < size(B), and size(R) == size(B) */
static bool composes(const cute_layout *R, const cute_layout *A, const cute_layout *B)
{
    static int64_t r[MAXV], b[MAXV];
    int64_t nr, nb;
    if (!values_of(B, b, &nb)) return true;
    if (!values_of(R, r, &nr) || nr != nb) return false;
    static int64_t a[MAXV];
    int64_t na;
    bool have_a = values_of(A, a, &na);
    for (int64_t i = 0; i < nb; i++) {
        int64_t x = b[i];
        int64_t want = have_a && x >= 0 && x < na ? a[x] : eval_at(A, x);
        if (r[i] != want) return false;
    }
    return true;
}

/* --- the ops: one random case each ------------------------------------------------- */

/* run op; false (counted as an error) if it failed */
#define RAN(st, c)                                                                       \
    do {                                                                                 \
        (st)->cases++;                                                                   \
        if ((c)->failed) {                                                               \
            (st)->errors++;                                                              \
            return;                                                                      \
        }                                                                                \
        (st)->ok++;                                                                      \
        (st)->dom = true;                                                                \
    } while (0)

/* composition: R(i) == A(B(i)) for i < size(B), size(R) == size(B), R has B's shape tree
 * (a leaf of B may become a tuple); by-mode tilers compose mode i with element i and drop
 * the uncovered modes.  Guaranteed: shapes and strides powers of two (then CuTe's
 * divisibility conditions are exact) and B's leaves on disjoint bits (see disjoint_pow2). */
static void case_composition(stats *st)
{
    bool p2 = gen_chance(&G, 60);
    gen_opts o = opts(p2, 5, 256, !p2 && gen_chance(&G, 20));
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout A = gen_layout(&G, &o, ta, sizeof ta);
    gen_tiler_text(&G, &A, &o, tb, sizeof tb);
    cute_tiler T = cute_tiler_parse(&c, tb);
    cute_layout R = cute_composition(&c, &A, &T);
    RAN(st, &c);
    bool dom = st->dom = all_pow2(&A) && tiler_pow2(&T);
    if (cute_tuple_is_int(&T.tree)) { /* one layout, whole */
        const cute_layout *B = &T.layouts[0];
        PROPERTY(st, dom, cute_tuple_weakly_congruent(&B->shape, &R.shape),
                 "%s o %s = %s: not B's shape tree", ta, tb, str(&R));
        PROPERTY(st, dom, composes(&R, &A, B), "%s o %s = %s: R(i) != A(B(i))", ta, tb, str(&R));
    } else {
        int m = cute_rank(&R), leaf = 0;
        PROPERTY(st, true, m == T.tree.node[0], "%s o %s = %s: rank %d", ta, tb, str(&R), m);
        for (int i = 0; i < m; i++) {
            cute_int x = T.tree.leaf[leaf++];
            cute_layout Ai = cute_get(&c, &A, i), Ri = cute_get(&c, &R, i);
            if (cute_is_underscore(x)) {
                PROPERTY(st, true, !strcmp(str(&Ai), str(&Ri)), "%s o %s = %s: mode %d", ta, tb,
                         str(&R), i);
                continue;
            }
            PROPERTY(st, dom, composes(&Ri, &Ai, &T.layouts[x.v]),
                     "%s o %s = %s: mode %d: R(i) != A(B(i))", ta, tb, str(&R), i);
        }
    }
    st->checked++;
    st->guaranteed += st->dom;
}

/* filter(L)'s modes sorted by stride divide exactly into each other: the domain where
 * CuTe's complement (which only checks that the integer quotient is non-zero) is exact */
static bool complement_domain(const cute_layout *L)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout F = cute_filter(&c, L);
    int n = F.shape.nleaves;
    int64_t s[CUTE_MAX_LEAVES], d[CUTE_MAX_LEAVES];
    for (int i = 0; i < n; i++) s[i] = F.shape.leaf[i].v, d[i] = F.stride.leaf[i].v;
    for (int i = 0; i < n; i++) /* sort by stride */
        for (int j = i + 1; j < n; j++)
            if (d[j] < d[i]) {
                int64_t x = d[i], y = s[i];
                d[i] = d[j], s[i] = s[j], d[j] = x, s[j] = y;
            }
    int64_t cur = 1;
    for (int i = 0; i < n; i++) {
        if (d[i] == 0) continue;
        if (d[i] < 0 || d[i] % cur != 0) return false;
        cur = d[i] * s[i];
    }
    return true;
}

/* complement(L, cot): strictly increasing; R(i) not in L's image for i >= 1; (filter(L), R)
 * injective with cosize >= cot for an int cot.  Guaranteed where filter(L)'s modes, by stride,
 * divide exactly into each other (CuTe only checks the integer quotient is non-zero). */
static void case_complement(stats *st)
{
    static int64_t lv[MAXV], rv[MAXV], bv[MAXV], sl[MAXV];
    gen_opts o = opts(gen_chance(&G, 40), 4, 128, false);
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = gen_layout(&G, &o, ta, sizeof ta);
    cute_layout F = cute_filter(&c, &L);
    int64_t cos = cute_cosize(&c, &F).v;
    int kind = gen_int(&G, 0, 2);
    if (kind == 0)
        snprintf(tb, sizeof tb, "%lld", (long long)cos);
    else if (kind == 1)
        snprintf(tb, sizeof tb, "%d", gen_int(&G, 1, (int)(2 * cos + 8)));
    else
        snprintf(tb, sizeof tb, "(%d,%d)", gen_int(&G, 1, 12), gen_int(&G, 1, 12));
    cute_tuple cot = cute_tuple_parse(&c, tb);
    int64_t want = cute_tuple_product(&c, &cot).v;
    cute_layout R = cute_complement(&c, &L, &cot);
    RAN(st, &c);
    bool dom = st->dom = complement_domain(&L);
    int64_t nl, nr, nb;
    if (!values_of(&L, lv, &nl) || !values_of(&R, rv, &nr)) return;
    for (int64_t i = 1; i < nr; i++)
        PROPERTY(st, dom, rv[i - 1] < rv[i], "complement(%s, %s) = %s: not increasing", ta, tb,
                 str(&R));
    memcpy(sl, lv, (size_t)nl * sizeof *sl);
    qsort(sl, (size_t)nl, sizeof *sl, cmp64);
    for (int64_t i = 1; i < nr; i++)
        PROPERTY(st, dom, !bsearch(&rv[i], sl, (size_t)nl, sizeof *sl, cmp64),
                 "complement(%s, %s) = %s: R(%lld) = %lld is in L's image", ta, tb, str(&R),
                 (long long)i, (long long)rv[i]);
    cute_layout both[2] = {F, R};
    cute_layout B = cute_make_layout_modes(&c, 2, both);
    if (values_of(&B, bv, &nb)) {
        PROPERTY(st, dom, injective(bv, nb), "complement(%s, %s) = %s: (filter(L),R) is not "
                 "injective", ta, tb, str(&R));
        /* an int cotarget is covered; a tuple one is divided mode by mode (README 7) */
        if (kind < 2)
            PROPERTY(st, dom, cute_cosize(&c, &B).v >= want,
                 "complement(%s, %s) = %s: cosize((F,R)) = %lld < %lld", ta, tb, str(&R),
                 (long long)cute_cosize(&c, &B).v, (long long)want);
    }
    st->checked++;
    st->guaranteed += st->dom;
}

/* right_inverse: L(R(i)) == i for i < size(R), for every L */
static void case_right_inverse(stats *st)
{
    static int64_t rv[MAXV];
    gen_opts o = opts(gen_chance(&G, 30), 4, 256, gen_chance(&G, 10));
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = gen_layout(&G, &o, ta, sizeof ta);
    cute_layout R = cute_right_inverse(&c, &L);
    RAN(st, &c);
    int64_t nr;
    if (!values_of(&R, rv, &nr)) return;
    for (int64_t i = 0; i < nr; i++)
        PROPERTY(st, true, rv[i] >= 0 && eval_at(&L, rv[i]) == i,
                 "right_inverse(%s) = %s: L(R(%lld)) = L(%lld) != %lld", ta, str(&R),
                 (long long)i, (long long)rv[i], (long long)i);
    st->checked++;
    st->guaranteed += st->dom;
}

/* left_inverse: R(L(i)) == i for i < size(L) when L is injective (then also
 * L(R(L(i))) == L(i)).  Guaranteed for injective L with non-negative strides. */
static void case_left_inverse(stats *st)
{
    static int64_t lv[MAXV];
    gen_opts o = opts(gen_chance(&G, 30), 4, 256, false);
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = gen_layout(&G, &o, ta, sizeof ta);
    cute_layout R = cute_left_inverse(&c, &L);
    RAN(st, &c);
    int64_t nl;
    if (!values_of(&L, lv, &nl)) return;
    bool inj = st->dom = injective(lv, nl);
    for (int64_t i = 0; i < nl; i++) {
        int64_t back = eval_at(&R, lv[i]);
        PROPERTY(st, inj, back == i, "left_inverse(%s) = %s: R(L(%lld)) = R(%lld) = %lld", ta,
                 str(&R), (long long)i, (long long)lv[i], (long long)back);
    }
    st->checked++;
    st->guaranteed += st->dom;
}

/* divide/product on one (A, tiler) pair: the logical op by its definition, and the
 * zipped/tiled/flat forms as rearrangements of it (same values, same size) */
typedef cute_layout (*tiler_op)(cute_alg *, const cute_layout *, const cute_layout *);

static cute_layout divide_def(cute_alg *c, const cute_layout *A, const cute_layout *T)
{
    cute_layout cA = cute_coalesce(c, A);
    cute_layout both[2] = {*T, cute_complement(c, T, &cA.shape)};
    return cute_make_layout_modes(c, 2, both); /* A / T = A o this */
}

static cute_layout product_def(cute_alg *c, const cute_layout *A, const cute_layout *T)
{
    cute_tuple cot = cute_tuple_int(cute_mul(c, cute_size(c, A), cute_cosize(c, T)));
    return cute_complement(c, A, &cot); /* A x T = (A, this o T) */
}

/* mode (or whole) R of logical_divide/product against its definition */
static void check_logical(stats *st, bool dom, bool divide, const cute_layout *R,
                          const cute_layout *A, const cute_layout *T)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout R0 = cute_get(&c, R, 0), R1 = cute_get(&c, R, 1);
    PROPERTY(st, true, cute_rank(R) == 2, "%s by %s = %s: rank %d", ta, tb, str(R), cute_rank(R));
    if (divide) {
        cute_layout B = divide_def(&c, A, T);
        PROPERTY(st, true, !c.failed, "%s / %s: the definition fails: %s", ta, tb, c.error);
        PROPERTY(st, dom, composes(R, A, &B), "%s / %s = %s: R(i) != A(B(i)), B = %s", ta, tb,
                 str(R), str(&B));
        PROPERTY(st, dom, composes(&R0, A, T), "%s / %s = %s: mode 0 is not A o T", ta, tb,
                 str(R));
    } else {
        cute_layout comp = product_def(&c, A, T);
        PROPERTY(st, true, !c.failed, "%s x %s: the definition fails: %s", ta, tb, c.error);
        PROPERTY(st, true, !strcmp(str(&R0), str(A)), "%s x %s = %s: mode 0 is not A", ta, tb,
                 str(R));
        PROPERTY(st, dom, composes(&R1, &comp, T), "%s x %s = %s: mode 1 is not %s o T", ta,
                 tb, str(R), str(&comp));
        PROPERTY(st, true, size_of(R) == size_of(A) * size_of(T), "%s x %s = %s: size", ta, tb,
                 str(R));
    }
}

static void case_divide_product(stats *st, bool divide)
{
    bool p2 = gen_chance(&G, 60);
    gen_opts o = opts(p2, 4, divide ? 256 : 64, false);
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout A = gen_layout(&G, &o, ta, sizeof ta);
    gen_tiler_text(&G, &A, &o, tb, sizeof tb);
    cute_tiler T = cute_tiler_parse(&c, tb);
    cute_layout R = divide ? cute_logical_divide(&c, &A, &T) : cute_logical_product(&c, &A, &T);
    RAN(st, &c);
    bool dom = st->dom = all_pow2(&A) && tiler_pow2(&T);
    if (cute_tuple_is_int(&T.tree)) {
        cute_layout Tl = tiler_elem(&c, &T, 0);
        check_logical(st, dom, divide, &R, &A, &Tl);
    } else {
        int r = cute_rank(&A), leaf = 0, m = T.tree.node[0];
        PROPERTY(st, true, cute_rank(&R) == r, "%s by %s = %s: rank changed", ta, tb, str(&R));
        for (int i = 0; i < r; i++) {
            cute_layout Ai = cute_get(&c, &A, i), Ri = cute_get(&c, &R, i);
            cute_int x = i < m ? T.tree.leaf[leaf++] : cute_underscore();
            if (cute_is_underscore(x)) {
                PROPERTY(st, true, !strcmp(str(&Ai), str(&Ri)), "%s by %s = %s: mode %d kept",
                         ta, tb, str(&R), i);
                continue;
            }
            cute_layout Ti = tiler_elem(&c, &T, (int)x.v);
            check_logical(st, dom, divide, &Ri, &Ai, &Ti);
        }
    }
    /* zipped / tiled / flat: the same values, rearranged */
    cute_layout (*const ops[2][3])(cute_alg *, const cute_layout *, const cute_tiler *) = {
        {cute_zipped_product, cute_tiled_product, cute_flat_product},
        {cute_zipped_divide, cute_tiled_divide, cute_flat_divide}};
    for (int k = 0; k < 3; k++) {
        cute_layout Z = ops[divide][k](&c, &A, &T);
        /* CuTe's zip needs a rank-2 mode where the tiler has '_' (the oracle README) */
        if (c.failed && cute_tuple_has_underscore(&T.tree)) {
            cute_alg_clear(&c);
            continue;
        }
        PROPERTY(st, true, !c.failed, "%s by %s: form %d fails (%s) where logical succeeded", ta,
                 tb, k, c.error);
        PROPERTY(st, true, same_values(&Z, &R) && size_of(&Z) == size_of(&R),
                 "%s by %s: form %d = %s is not a rearrangement of %s", ta, tb, k, str(&Z),
                 str(&R));
        if (k == 0)
            PROPERTY(st, true, cute_rank(&Z) == 2, "%s by %s: zipped %s is not rank 2", ta, tb,
                     str(&Z));
    }
    st->checked++;
    st->guaranteed += st->dom;
}

static void case_divide(stats *st) { case_divide_product(st, true); }
static void case_product(stats *st) { case_divide_product(st, false); }

/* blocked/raked product: size(A)*size(B), rank max(rank A, rank B), mode i of size
 * size(A_i)*size(B_i) (padded with 1), and the values of logical_product(A, B) */
static void case_blocked_raked(stats *st)
{
    gen_opts o = opts(gen_chance(&G, 60), 3, 32, false);
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout A = gen_layout(&G, &o, ta, sizeof ta), B = gen_layout(&G, &o, tb, sizeof tb);
    bool raked = gen_chance(&G, 50);
    cute_layout R = raked ? cute_raked_product(&c, &A, &B) : cute_blocked_product(&c, &A, &B);
    RAN(st, &c);
    int ra = cute_rank(&A), rb = cute_rank(&B), r = ra > rb ? ra : rb;
    const char *name = raked ? "raked" : "blocked";
    PROPERTY(st, true, cute_rank(&R) == r || (r == 1 && cute_rank(&R) == 1),
             "%s_product(%s, %s) = %s: rank", name, ta, tb, str(&R));
    PROPERTY(st, true, size_of(&R) == size_of(&A) * size_of(&B), "%s_product(%s, %s) = %s: size",
             name, ta, tb, str(&R));
    for (int i = 0; i < r && cute_rank(&R) == r; i++) {
        cute_layout Ai = i < ra ? cute_get(&c, &A, i) : cute_layout_parse(&c, "1:0");
        cute_layout Bi = i < rb ? cute_get(&c, &B, i) : cute_layout_parse(&c, "1:0");
        cute_layout Ri = cute_get(&c, &R, i);
        PROPERTY(st, true, size_of(&Ri) == size_of(&Ai) * size_of(&Bi),
                 "%s_product(%s, %s) = %s: mode %d size", name, ta, tb, str(&R), i);
    }
    cute_tiler T = cute_tiler_layout(&B);
    cute_layout P = cute_logical_product(&c, &A, &T);
    PROPERTY(st, true, !c.failed && same_values(&R, &P),
             "%s_product(%s, %s) = %s: values differ from logical_product %s", name, ta, tb,
             str(&R), str(&P));
    st->checked++;
    st->guaranteed += st->dom;
}

/* coalesce / filter: the same function (filter: the same image), flat, no size-1 modes,
 * no mergeable neighbours; with a profile: the same function */
static void case_coalesce(stats *st)
{
    static int64_t lv[MAXV], rv[MAXV];
    gen_opts o = opts(gen_chance(&G, 30), 6, 512, gen_chance(&G, 20));
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = gen_layout(&G, &o, ta, sizeof ta);
    int kind = gen_int(&G, 0, 2); /* coalesce, coalesce by profile, filter */
    cute_tuple prof = L.shape;
    if (kind == 1) { /* the shape with random subtrees made ints */
        char p[512] = "";
        int leaf = 0;
        gen_coord_text(&G, &L.shape, 0, &leaf, 0, p, sizeof p);
        for (char *q = p; *q; q++)
            if (*q >= '0' && *q <= '9') *q = '1';
        snprintf(tb, sizeof tb, "%s", p);
        prof = cute_tuple_parse(&c, tb);
    }
    cute_layout R = kind == 0   ? cute_coalesce(&c, &L)
                    : kind == 1 ? cute_coalesce_profile(&c, &L, &prof)
                                : cute_filter(&c, &L);
    RAN(st, &c);
    int64_t nl, nr;
    if (!values_of(&L, lv, &nl) || !values_of(&R, rv, &nr)) return;
    if (kind == 2) { /* the same image (filter drops repeats only along stride-0 modes) */
        int64_t ul = 0, ur = 0;
        qsort(lv, (size_t)nl, sizeof *lv, cmp64);
        qsort(rv, (size_t)nr, sizeof *rv, cmp64);
        for (int64_t i = 0; i < nl; i++)
            if (i == 0 || lv[i] != lv[i - 1]) lv[ul++] = lv[i];
        for (int64_t i = 0; i < nr; i++)
            if (i == 0 || rv[i] != rv[i - 1]) rv[ur++] = rv[i];
        PROPERTY(st, true, ul == ur && !memcmp(lv, rv, (size_t)ul * sizeof *lv),
                 "filter(%s) = %s: not the same image", ta, str(&R));
        for (int i = 0; i < R.shape.nleaves; i++)
            PROPERTY(st, true, R.stride.leaf[i].v != 0 || R.shape.leaf[i].v == 1,
                     "filter(%s) = %s: a stride-0 mode is left", ta, str(&R));
    } else {
        PROPERTY(st, true, nl == nr && !memcmp(lv, rv, (size_t)nl * sizeof *lv),
                 "coalesce(%s%s%s) = %s: not the same function", ta, kind ? ", " : "",
                 kind ? tb : "", str(&R));
    }
    if (kind != 1) {
        int k = R.shape.nleaves;
        PROPERTY(st, true, cute_depth(&R) == (k > 1), "coalesce(%s) = %s: not flat", ta, str(&R));
        for (int i = 0; i < k; i++) {
            int64_t s = R.shape.leaf[i].v, d = R.stride.leaf[i].v;
            PROPERTY(st, true, s != 1 || (k == 1 && d == 0), "coalesce(%s) = %s: a size-1 mode",
                     ta, str(&R));
            if (i + 1 < k)
                PROPERTY(st, true, s * d != R.stride.leaf[i + 1].v,
                         "coalesce(%s) = %s: mergeable modes left", ta, str(&R));
        }
    }
    st->checked++;
    st->guaranteed += st->dom;
}

/* fill the '_' (slice) or int (dice) leaves of crd from the elements of sub, in order;
 * the other leaves: ints as they are (slice) or 0 (dice) */
static bool fill_coord(const cute_tuple *crd, const cute_tuple *sub, bool slice, char *out,
                       size_t n)
{
    char a[512], b[512];
    cute_tuple_str(crd, a, sizeof a);
    cute_tuple_str(sub, b, sizeof b);
    /* the elements of sub as text pieces */
    const char *piece[CUTE_MAX_RANK];
    int plen[CUTE_MAX_RANK], np = 0;
    if (b[0] != '(') {
        piece[0] = b, plen[0] = (int)strlen(b), np = 1;
    } else {
        int depth = 0;
        const char *start = b + 1;
        for (const char *q = b + 1; *q; q++) {
            if (*q == '(') depth++;
            if (*q == ')' && depth-- == 0) {
                if (q > start) piece[np] = start, plen[np++] = (int)(q - start);
                break;
            }
            if (*q == ',' && depth == 0) piece[np] = start, plen[np++] = (int)(q - start), start = q + 1;
        }
    }
    /* replace the kept leaves of crd (a top-level kept leaf is the whole sub) */
    size_t len = 0;
    int k = 0;
    bool whole = crd->node[0] < 0;
    for (const char *q = a; *q && len + 64 < n; q++) {
        bool under = *q == '_';
        bool num = (*q >= '0' && *q <= '9') || *q == '-';
        if (under || num) {
            const char *e = q;
            if (num)
                while (e[1] >= '0' && e[1] <= '9') e++;
            bool kept = slice ? under : num;
            if (kept) {
                if (whole) {
                    len += (size_t)snprintf(out + len, n - len, "%s", b);
                } else {
                    if (k >= np) return false;
                    len += (size_t)snprintf(out + len, n - len, "%.*s", plen[k], piece[k]);
                    k++;
                }
            } else {
                len += (size_t)snprintf(out + len, n - len, "%.*s", slice ? (int)(e - q + 1) : 1,
                                        slice ? q : "0");
            }
            q = e;
            continue;
        }
        out[len++] = *q;
        out[len] = 0;
    }
    return true;
}

/* slice_and_offset: L(crd with R's coordinate in the '_') == offset + R(j) for j < size(R);
 * dice: L(crd with R's coordinate in the ints, 0 in the '_') == R(j) */
static void case_slice_dice(stats *st)
{
    gen_opts o = opts(false, 5, 512, gen_chance(&G, 20));
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = gen_layout(&G, &o, ta, sizeof ta);
    bool slice = gen_chance(&G, 60);
    tb[0] = 0;
    int leaf = 0;
    gen_coord_text(&G, &L.shape, 0, &leaf, 40, tb, sizeof tb);
    cute_tuple crd = cute_tuple_parse(&c, tb);
    cute_tuple offt = cute_tuple_int(cute_i(0));
    cute_layout R = slice ? cute_slice_and_offset(&c, &crd, &L, &offt) : cute_dice(&c, &crd, &L);
    cute_int off = offt.leaf[0];
    RAN(st, &c);
    int64_t n = size_of(&R);
    for (int64_t j = 0; j < n && j < 64; j++) {
        cute_tuple sub = cute_idx2crd(&c, cute_i(j), &R.shape);
        char full[1024];
        PROPERTY(st, true, fill_coord(&crd, &sub, slice, full, sizeof full),
                 "%s(%s, %s) = %s: coordinate", slice ? "slice" : "dice", tb, ta, str(&R));
        cute_tuple fc = cute_tuple_parse(&c, full);
        int64_t want = cute_layout_eval_crd(&c, &L, &fc).v;
        int64_t got = cute_layout_eval(&c, &R, cute_i(j)).v + off.v;
        PROPERTY(st, true, !c.failed && got == want,
                 "%s(%s, %s) = %s (offset %lld): at %lld (full coordinate %s) %lld, want %lld%s",
                 slice ? "slice" : "dice", tb, ta, str(&R), (long long)off.v, (long long)j,
                 full, (long long)got, (long long)want, c.failed ? c.error : "");
    }
    st->checked++;
    st->guaranteed += st->dom;
}

/* idx2crd / crd2idx: crd2idx(idx2crd(i, S), S, compact(S)) == i, every coordinate leaf in
 * range for i < size, and crd2idx(idx2crd(i, S), S, D) == L(i) */
static void case_crd(stats *st)
{
    gen_opts o = opts(false, 6, 4096, gen_chance(&G, 20));
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = gen_layout(&G, &o, ta, sizeof ta);
    cute_tuple compact = cute_tuple_compact_col_major(&c, &L.shape);
    int64_t n = size_of(&L);
    st->cases++;
    st->ok++;
    st->dom = true;
    for (int k = 0; k < 24; k++) {
        int64_t i = gen_int(&G, 0, (int)(n - 1));
        cute_tuple crd = cute_idx2crd(&c, cute_i(i), &L.shape);
        for (int j = 0; j < crd.nleaves; j++)
            PROPERTY(st, true, crd.leaf[j].v >= 0 && crd.leaf[j].v < L.shape.leaf[j].v,
                     "idx2crd(%lld, %s) out of range", (long long)i, ta);
        int64_t back = cute_crd2idx(&c, &crd, &L.shape, &compact).v;
        int64_t val = cute_crd2idx(&c, &crd, &L.shape, &L.stride).v;
        PROPERTY(st, true, !c.failed && back == i && val == eval_at(&L, i),
                 "idx2crd/crd2idx(%lld, %s): back %lld, value %lld", (long long)i, ta,
                 (long long)back, (long long)val);
    }
    st->checked++;
    st->guaranteed += st->dom;
}

static void run(const char *name, void (*one)(stats *), int n, double min_ok)
{
    stats st = {.op = name};
    for (int i = 0; i < n; i++) one(&st);
    report(&st, min_ok);
}

int main(void)
{
    G.s = gen_seed("algebra_property_test");
    const char *scale = getenv("CUTEC_PROPERTY_SCALE");
    int k = scale ? atoi(scale) : 1;
    if (k < 1) k = 1;
    run("composition", case_composition, 9000 * k, 0.5);
    run("complement", case_complement, 6000 * k, 0.5);
    run("right_inverse", case_right_inverse, 6000 * k, 0.8);
    run("left_inverse", case_left_inverse, 6000 * k, 0.5);
    run("logical_divide", case_divide, 6000 * k, 0.4);
    run("logical_product", case_product, 6000 * k, 0.5);
    run("blocked/raked", case_blocked_raked, 4500 * k, 0.5);
    run("coalesce/filter", case_coalesce, 9000 * k, 0.9);
    run("slice/dice", case_slice_dice, 9000 * k, 0.9);
    run("idx2crd/crd2idx", case_crd, 6000 * k, 0.9);
    return CHECK_DONE("algebra_property_test");
}
