/* The symbolic backend: normal forms, facts, evaluation, and soundness against random
 * values (every fact it proves must hold for every value the symbols may take). */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "cutec/notation.h"
#include "cutec/symbolic.h"

static cute_symbolic *S;
static cute_alg C;

static const char *desc(cute_int x)
{
    static char buf[8][256];
    static int k;
    k = (k + 1) % 8;
    cute_symbolic_describe(S, x, buf[k], sizeof buf[k]);
    return buf[k];
}

static void fresh(void)
{
    if (S) cute_symbolic_free(S);
    S = cute_symbolic_new();
    cute_symbolic_bind(S, &C);
}

static cute_truth cmp(cute_cmp k, cute_int a, cute_int b) { return cute_int_cmp(&C, k, a, b); }
static bool same(cute_int a, cute_int b) { return a.v == b.v && a.div == b.div; }

static void test_normal_forms(void)
{
    fresh();
    cute_int M = cute_symbolic_symbol(S, "M", 1, 1), N = cute_symbolic_symbol(S, "N", 1, 1);
    cute_int M16 = cute_mul(&C, M, cute_i(16));
    CHECK_STR(desc(M), "M");
    CHECK_STR(desc(M16), "(M*16)");
    CHECK(M16.div == 16, "div of M*16 is %lld", (long long)M16.div);
    CHECK(same(cute_add(&C, M, M), cute_mul(&C, cute_i(2), M)), "M+M == 2*M as handles");
    cute_int z = cute_sub(&C, M16, cute_mul(&C, cute_i(16), M));
    CHECK(cute_is_const(z, 0), "M*16 - 16*M folds to 0, got %s", desc(z));
    /* (M+N)*(M-N) == M*M - N*N */
    cute_int l = cute_mul(&C, cute_add(&C, M, N), cute_sub(&C, M, N));
    cute_int r = cute_sub(&C, cute_mul(&C, M, M), cute_mul(&C, N, N));
    CHECK(same(l, r), "%s vs %s", desc(l), desc(r));
    CHECK(cmp(CUTE_CMP_EQ, l, r) == CUTE_TRUE, "equal forms are EQ");
    cute_int s = cute_add(&C, M16, cute_i(4));
    CHECK_STR(desc(s), "(M*16 + 4)");
    CHECK(s.div == 4, "div of 16M+4 is %lld", (long long)s.div);
    CHECK_STR(desc(cute_sub(&C, cute_i(0), M)), "(-M)");
    CHECK_STR(desc(cute_mul(&C, M, N)), "(M*N)");
    /* a symbol with a divisor is stored as 16*K': it still prints as K */
    cute_int K = cute_symbolic_symbol(S, "K", 16, 1);
    CHECK_STR(desc(K), "K");
    CHECK(K.div == 16, "K's div");
    cute_int k16 = cute_div(&C, K, cute_i(16));
    CHECK_STR(desc(k16), "(K/16)");
    CHECK(k16.div == 1, "K/16 has div 1");
    CHECK(same(cute_mul(&C, k16, cute_i(16)), K), "(K/16)*16 == K");
    CHECK_STR(desc(cute_mul(&C, K, cute_i(3))), "(K*3)");
    CHECK(cute_mul(&C, K, cute_i(3)).div == 48, "div 48");
    CHECK(cute_symbolic_symbol_index(S, K) == 2, "K is symbol 2");
    CHECK(cute_symbolic_symbol_index(S, k16) == -1, "K/16 is not a symbol");
    CHECK(!C.failed, "%s", C.error);
}

static void test_simplify(void)
{
    fresh();
    cute_int M = cute_symbolic_symbol(S, "M", 1, 1), N = cute_symbolic_symbol(S, "N", 1, 1);
    cute_int K = cute_symbolic_symbol(S, "K", 16, 1);
    cute_int X = cute_symbolic_symbol(S, "X", 1, CUTE_SYM_NO_BOUND);
    cute_int M16 = cute_mul(&C, M, cute_i(16));
    CHECK(same(cute_ceil_div(&C, M16, cute_i(16)), M), "ceil_div(16M,16) = M");
    CHECK(same(cute_ceil_div(&C, M16, M), cute_i(16)), "ceil_div(16M,M) = 16");
    CHECK(same(cute_div(&C, cute_mul(&C, M, N), N), M), "MN/N = M");
    CHECK_STR(desc(cute_ceil_div(&C, K, cute_i(16))), "(K/16)");
    CHECK_STR(desc(cute_ceil_div(&C, K, cute_i(32))), "ceil_div(K, 32)");
    /* ceil_div(16M + 3, 16) = M + 1 */
    CHECK_STR(desc(cute_ceil_div(&C, cute_add(&C, M16, cute_i(3)), cute_i(16))), "(M + 1)");
    /* (16M + 3) / 16 = M for M >= 1, and % 16 = 3 */
    CHECK(same(cute_div(&C, cute_add(&C, M16, cute_i(3)), cute_i(16)), M), "(16M+3)/16");
    CHECK(cute_is_const(cute_mod(&C, cute_add(&C, M16, cute_i(3)), cute_i(16)), 3), "mod 16");
    CHECK(cute_is_const(cute_mod(&C, M16, cute_i(8)), 0), "16M mod 8");
    CHECK(cute_is_const(cute_mod(&C, cute_mul(&C, M, N), M), 0), "MN mod M");
    /* unknown sign: (16X + 3)/16 stays opaque (truncation differs below 0) */
    cute_int q = cute_div(&C, cute_add(&C, cute_mul(&C, X, cute_i(16)), cute_i(3)), cute_i(16));
    CHECK_STR(desc(q), "((X*16 + 3) / 16)");
    /* ceil_div(1, N) = 1 and ceil_div(16, 16N) = 1 for N >= 1 */
    CHECK(cute_is_const(cute_ceil_div(&C, cute_i(1), N), 1), "ceil_div(1,N)");
    CHECK(cute_is_const(cute_ceil_div(&C, cute_i(16), cute_mul(&C, N, cute_i(16))), 1), "ok");
    CHECK(cute_is_const(cute_ceil_div(&C, cute_i(0), N), 0), "ceil_div(0,N)");
    CHECK_STR(desc(cute_ceil_div(&C, cute_i(16), N)), "ceil_div(16, N)");
    CHECK(cute_is_const(cute_min(&C, cute_i(16), M16), 16), "min(16, 16M)");
    CHECK(same(cute_max(&C, cute_i(16), M16), M16), "max(16, 16M)");
    CHECK(same(cute_min(&C, M, cute_mul(&C, M, N)), M), "min(M, MN) = M");
    cute_int mn = cute_min(&C, M, N), nm = cute_min(&C, N, M);
    CHECK(same(mn, nm), "min is commutative: %s %s", desc(mn), desc(nm));
    CHECK_STR(desc(mn), "min(M, N)");
    cute_int mk = cute_min(&C, cute_mul(&C, K, cute_i(2)), cute_mul(&C, M, cute_i(48)));
    CHECK(mk.div == 16, "min(2K, 48M) has div 16, got %lld", (long long)mk.div);
    CHECK(same(cute_abs(&C, M), M), "abs(M)");
    CHECK(same(cute_abs(&C, cute_sub(&C, cute_i(0), M)), M), "abs(-M)");
    CHECK_STR(desc(cute_abs(&C, X)), "abs(X)");
    CHECK(cute_is_const(cute_sgn(&C, M), 1), "sgn(M)");
    CHECK(cute_is_const(cute_sgn(&C, cute_sub(&C, cute_i(0), M)), -1), "sgn(-M)");
    CHECK_STR(desc(cute_sgn(&C, X)), "sgn(X)");
    CHECK(same(cute_int_op2(&C, CUTE_ISHL, M, cute_i(4)), M16), "M << 4");
    CHECK(same(cute_int_op2(&C, CUTE_ISHR, M16, cute_i(4)), M), "16M >> 4");
    CHECK(cute_is_const(cute_int_op2(&C, CUTE_IXOR, M, M), 0), "M ^ M");
    CHECK(cute_int_op2(&C, CUTE_IAND, K, M16).div == 16, "K & 16M has div 16");
    CHECK(cute_int_op2(&C, CUTE_IXOR, K, cute_mul(&C, M, cute_i(4))).div == 4, "xor div");
    cute_int cm = cute_ceil_div(&C, M, cute_i(16));
    CHECK(cmp(CUTE_CMP_LT, cute_i(0), cm) == CUTE_TRUE, "ceil_div(M,16) >= 1");
    CHECK(!C.failed, "%s", C.error);
    /* a division by a provable zero is an error of the bound context */
    cute_int bad = cute_div(&C, M, cute_sub(&C, M, M));
    CHECK(C.failed && cute_is_const(bad, 0), "M / 0 fails");
    cute_alg_clear(&C);
}

static void test_facts(void)
{
    fresh();
    cute_int M = cute_symbolic_symbol(S, "M", 1, 1), N = cute_symbolic_symbol(S, "N", 1, 1);
    cute_int K = cute_symbolic_symbol(S, "K", 16, 1);
    cute_int X = cute_symbolic_symbol(S, "X", 1, CUTE_SYM_NO_BOUND);
    cute_int Z = cute_symbolic_symbol(S, "Z", 1, 0);
    cute_int M16 = cute_mul(&C, M, cute_i(16));
    CHECK(cmp(CUTE_CMP_EQ, M16, cute_i(3)) == CUTE_FALSE, "16M != 3");
    CHECK(cmp(CUTE_CMP_EQ, M16, cute_i(0)) == CUTE_FALSE, "16M != 0 since M >= 1");
    CHECK(cmp(CUTE_CMP_EQ, cute_mul(&C, X, cute_i(16)), cute_i(0)) == CUTE_UNKNOWN, "16X ?= 0");
    CHECK(cmp(CUTE_CMP_EQ, M, N) == CUTE_UNKNOWN, "M ?= N");
    CHECK(cmp(CUTE_CMP_EQ, M, cute_i(1)) == CUTE_UNKNOWN, "M ?= 1");
    CHECK(cmp(CUTE_CMP_EQ, K, cute_i(1)) == CUTE_FALSE, "K (div 16) != 1");
    CHECK(cmp(CUTE_CMP_EQ, cute_add(&C, M16, cute_i(3)), cute_i(0)) == CUTE_FALSE, "16M+3");
    CHECK(cmp(CUTE_CMP_EQ, cute_add(&C, cute_mul(&C, X, cute_i(4)), cute_i(2)), cute_i(0)) ==
              CUTE_FALSE, "4X+2 != 0 whatever X");
    CHECK(cmp(CUTE_CMP_EQ, cute_mul(&C, M, N), cute_i(0)) == CUTE_FALSE, "MN != 0");
    CHECK(cmp(CUTE_CMP_LT, cute_i(0), M) == CUTE_TRUE, "0 < M");
    CHECK(cmp(CUTE_CMP_LT, M, cute_i(0)) == CUTE_FALSE, "M < 0 is false");
    CHECK(cmp(CUTE_CMP_LT, M, cute_i(1)) == CUTE_FALSE, "M < 1 is false");
    CHECK(cmp(CUTE_CMP_LT, cute_i(1), M) == CUTE_UNKNOWN, "1 < M unknown");
    CHECK(cmp(CUTE_CMP_LT, cute_i(15), K) == CUTE_TRUE, "15 < K (K >= 16)");
    CHECK(cmp(CUTE_CMP_LT, M, N) == CUTE_UNKNOWN, "M < N unknown");
    CHECK(cmp(CUTE_CMP_LT, X, cute_i(5)) == CUTE_UNKNOWN, "X < 5 unknown");
    CHECK(cmp(CUTE_CMP_LT, M16, cute_add(&C, cute_mul(&C, M16, N), cute_i(1))) == CUTE_TRUE,
          "16M < 16MN + 1 (factored)");
    CHECK(cmp(CUTE_CMP_LT, cute_mul(&C, Z, N), Z) == CUTE_FALSE, "ZN < Z false for Z>=0,N>=1");
    CHECK(cmp(CUTE_CMP_DIVIDES, cute_i(16), M16) == CUTE_TRUE, "16 | 16M");
    CHECK(cmp(CUTE_CMP_DIVIDES, cute_i(32), M16) == CUTE_UNKNOWN, "32 ?| 16M");
    CHECK(cmp(CUTE_CMP_DIVIDES, cute_i(16), cute_add(&C, M16, cute_i(8))) == CUTE_FALSE, "ok");
    CHECK(cmp(CUTE_CMP_DIVIDES, M, cute_mul(&C, M, N)) == CUTE_TRUE, "M | MN (M >= 1)");
    CHECK(cmp(CUTE_CMP_DIVIDES, X, cute_mul(&C, X, N)) == CUTE_UNKNOWN, "X ?| XN (X may be 0)");
    CHECK(cmp(CUTE_CMP_DIVIDES, M16, cute_i(8)) == CUTE_FALSE, "16M does not divide 8");
    CHECK(cmp(CUTE_CMP_DIVIDES, cute_add(&C, M, cute_i(8)), cute_i(8)) == CUTE_FALSE,
          "M+8 > 8 cannot divide 8");
    CHECK(cmp(CUTE_CMP_DIVIDES, M, cute_i(8)) == CUTE_UNKNOWN, "M ?| 8");
    CHECK(cmp(CUTE_CMP_DIVIDES, cute_add(&C, M, N), cute_mul(&C, cute_add(&C, M, N), cute_i(3)))
              == CUTE_TRUE, "(M+N) | 3(M+N)");
    CHECK(!C.failed, "%s", C.error);
}

static void test_eval_and_parse(void)
{
    fresh();
    cute_int M = cute_symbolic_symbol(S, "M", 16, 1), N = cute_symbolic_symbol(S, "N", 1, 0);
    cute_int e = cute_add(&C, cute_mul(&C, M, N), cute_ceil_div(&C, M, cute_i(32)));
    int64_t v, vals[2] = {48, 5};
    CHECK(cute_symbolic_eval(S, e, vals, &v) == 0 && v == 48 * 5 + 2, "eval %s", desc(e));
    int64_t bad[2] = {40, 5};
    CHECK(cute_symbolic_eval(S, e, bad, &v) != 0, "40 is not a multiple of 16");
    CHECK(strstr(cute_symbolic_error(S), "divisor") != NULL, "%s", cute_symbolic_error(S));
    int64_t neg[2] = {16, -1};
    CHECK(cute_symbolic_eval(S, N, neg, &v) != 0, "N = -1 is below its bound");
    /* overflow: never wraps, neither in the normal form nor in evaluation */
    cute_int big = cute_mul(&C, cute_mul(&C, N, cute_i((int64_t)1 << 40)), cute_i((int64_t)1 << 40));
    CHECK(!C.failed, "%s", C.error);
    int64_t one[2] = {16, 1}, zero[2] = {16, 0};
    CHECK(cute_symbolic_eval(S, big, one, &v) != 0, "2^80 overflows: %s", desc(big));
    CHECK(cute_symbolic_eval(S, big, zero, &v) == 0 && v == 0, "0 * 2^80 = 0");
    /* the parser's '?' makes anonymous symbols */
    cute_symbolic_set_make_bound(S, 1);
    cute_layout L = cute_layout_parse(&C, "(16,?{div=4}):(8,?)");
    CHECK(!C.failed, "%s", C.error);
    char buf[256];
    cute_symbolic_layout_str(S, &L, buf, sizeof buf);
    CHECK_STR(buf, "(16,?1):(8,?2)");
    cute_layout_str(&L, buf, sizeof buf);
    CHECK_STR(buf, "(16,?{div=4}):(8,?)");
    CHECK(cute_symbolic_nsymbols(S) == 4, "4 symbols");
    int64_t div, lb;
    CHECK(cute_symbolic_symbol_info(S, 2, NULL, &div, &lb) && div == 4 && lb == 1, "?1");
    int64_t lv[4] = {16, 0, 12, 7};
    cute_layout R = cute_symbolic_substitute(&C, S, &L, lv);
    cute_layout_str(&R, buf, sizeof buf);
    CHECK_STR(buf, "(16,12):(8,7)");
    /* a handle of another backend object is refused, not misread */
    cute_symbolic *other = cute_symbolic_new();
    cute_int y = cute_symbolic_symbol(other, "Y", 1, 0);
    CHECK(cute_symbolic_eval(S, y, lv, &v) != 0, "foreign handle");
    cute_symbolic_free(other);
}

/* --- soundness: random expression trees, random values --------------------------- */

#define NSYM 4
#define NNODE 24

typedef struct node {
    cute_int_op op;
    int a, b; /* children, or -1 for a leaf */
    int64_t k; /* leaf: constant, or symbol index when sym */
    bool sym;
} node;

static uint64_t rng;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static int64_t rrange(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static const cute_int_op OPS[] = {CUTE_IADD, CUTE_ISUB, CUTE_IMUL, CUTE_IDIV, CUTE_ICEILDIV,
                                  CUTE_IMOD, CUTE_IMIN, CUTE_IMAX, CUTE_IABS, CUTE_ISGN,
                                  CUTE_IXOR, CUTE_IAND, CUTE_ISHL, CUTE_ISHR};

static void soundness(int rounds)
{
    int checked = 0, facts = 0, proven = 0, bad = 0;
    for (int round = 0; round < rounds; round++) {
        fresh();
        int64_t sdiv[NSYM], slb[NSYM];
        cute_int val[NNODE];
        node nd[NNODE];
        for (int i = 0; i < NSYM; i++) {
            static const int64_t divs[] = {1, 1, 2, 4, 16};
            static const int64_t lbs[] = {CUTE_SYM_NO_BOUND, 0, 1, 1, 5};
            sdiv[i] = divs[rnd() % 5];
            slb[i] = lbs[rnd() % 5];
            char name[16];
            snprintf(name, sizeof name, "s%d", i);
            val[i] = cute_symbolic_symbol(S, name, sdiv[i], slb[i]);
            nd[i] = (node){.a = -1, .b = -1, .k = i, .sym = true};
        }
        int n = NSYM;
        for (; n < NNODE - 1 && !C.failed; n++) {
            if (rnd() % 5 == 0) {
                nd[n] = (node){.a = -1, .b = -1, .k = rrange(-6, 20)};
                val[n] = cute_i(nd[n].k);
                continue;
            }
            cute_int_op o = OPS[rnd() % (sizeof OPS / sizeof OPS[0])];
            int a = (int)(rnd() % n), b = (int)(rnd() % n);
            if (o == CUTE_ISHL || o == CUTE_ISHR) { /* a small constant shift */
                nd[n] = (node){.a = -1, .b = -1, .k = rrange(0, 4)};
                val[n] = cute_i(nd[n].k);
                b = n++;
            }
            nd[n] = (node){.op = o, .a = a, .b = b};
            val[n] = cute_int_op2(&C, o, val[a], val[b]);
        }
        if (C.failed) { /* a provable division by zero: fine, but try another */
            cute_alg_clear(&C);
            continue;
        }
        for (int trial = 0; trial < 40; trial++) {
            int64_t sv[NSYM], cv[NNODE];
            bool ok[NNODE];
            for (int i = 0; i < NSYM; i++) {
                int64_t lo = slb[i] == CUTE_SYM_NO_BOUND ? -12 : slb[i];
                int64_t k = rrange(lo, 12 + (lo > 0 ? lo : 0));
                k = k >= 0 ? (k + sdiv[i] - 1) / sdiv[i] : -((-k) / sdiv[i]);
                sv[i] = k * sdiv[i];
                if (sv[i] < lo) sv[i] += sdiv[i];
            }
            cute_alg st;
            cute_alg_init(&st, NULL);
            for (int i = 0; i < n; i++) {
                if (nd[i].a < 0) {
                    cv[i] = nd[i].sym ? sv[nd[i].k] : nd[i].k;
                    ok[i] = true;
                    continue;
                }
                ok[i] = ok[nd[i].a] && ok[nd[i].b] && !st.failed;
                if (!ok[i]) continue;
                cute_int r = cute_int_op2(&st, nd[i].op, cute_i(cv[nd[i].a]), cute_i(cv[nd[i].b]));
                ok[i] = !st.failed && (nd[i].op != CUTE_IMUL || llabs(r.v) < ((int64_t)1 << 40));
                cv[i] = r.v;
                cute_alg_clear(&st);
            }
            for (int i = 0; i < n; i++) {
                if (!ok[i]) continue;
                int64_t got;
                int rc = cute_symbolic_eval(S, val[i], sv, &got);
                checked++;
                if (rc != 0 || got != cv[i]) {
                    if (bad++ < 5)
                        fprintf(stderr, "FAIL node %d = %s: eval %s %lld, want %lld (%s)\n", i,
                                desc(val[i]), rc == 0 ? "ok" : "failed", (long long)got,
                                (long long)cv[i], rc ? cute_symbolic_error(S) : "");
                }
                if (cute_is_dynamic(val[i]) && cv[i] % val[i].div != 0 && bad++ < 5)
                    fprintf(stderr, "FAIL %s = %lld: not a multiple of div %lld\n", desc(val[i]),
                            (long long)cv[i], (long long)val[i].div);
            }
            /* every fact proven must hold */
            for (int q = 0; q < 12; q++) {
                int i = (int)(rnd() % n), j = (int)(rnd() % n);
                if (!ok[i] || !ok[j]) continue;
                int64_t x = cv[i], y = cv[j];
                bool dyn = cute_is_dynamic(val[i]) || cute_is_dynamic(val[j]);
                for (int k = 0; k < 3; k++) {
                    cute_truth t = cute_int_cmp(&C, (cute_cmp)k, val[i], val[j]);
                    bool truth = k == CUTE_CMP_EQ ? x == y
                                 : k == CUTE_CMP_LT ? x < y
                                 : (x != 0 && (x == -1 || y % x == 0));
                    facts += dyn;
                    if (t == CUTE_UNKNOWN) continue;
                    proven += dyn;
                    if ((t == CUTE_TRUE) != truth && bad++ < 5)
                        fprintf(stderr, "FAIL fact %d on %s (=%lld), %s (=%lld): claimed %d\n", k,
                                desc(val[i]), (long long)x, desc(val[j]), (long long)y, (int)t);
                }
            }
        }
    }
    printf("soundness: %d evaluations, %d facts on dynamic values asked, %d proven\n", checked,
           facts, proven);
    CHECK(bad == 0, "%d evaluations or facts contradicted the values (first ones above)", bad);
    CHECK(checked > 1000 && proven > 100, "the random check was not vacuous");
}

int main(void)
{
    const char *seed = getenv("CUTEC_SEED");
    rng = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL);
    if (!rng) rng = 1;
    printf("symbolic_test: CUTEC_SEED=%llu\n", (unsigned long long)rng);
    test_normal_forms();
    test_simplify();
    test_facts();
    test_eval_and_parse();
    soundness(300);
    cute_symbolic_free(S);
    return CHECK_DONE("symbolic_test");
}
