/* A TiledMMA's TV layouts against its partitions: (thr, v) of get_layout*_TV is the element
 * thread thr's v-th value lands on when the thread partitions a compact tile of exactly the
 * TiledMMA's size, for every thread and value; and every element is owned exactly as often
 * as it is shared: C by the ThrK threads, A by the ThrN threads, B by the ThrM threads. */
#include <stdlib.h>

#include "check.h"
#include "cutec/mma.h"
#include "cutec/notation.h"

static const char *const names[3] = {"A", "B", "C"};

/* the operand's tile: (M,K), (N,K) or (M,N), compact column-major */
static cute_layout operand_tile(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op,
                                int64_t *rows, int64_t *cols)
{
    static const int modes[3][2] = {{0, 2}, {1, 2}, {0, 1}};
    *rows = cute_tiled_mma_tile_size(c, t, modes[op][0]).v;
    *cols = cute_tiled_mma_tile_size(c, t, modes[op][1]).v;
    int64_t shape[2] = {*rows, *cols};
    return cute_make_layout(c, cute_tuple_ints(c, 2, shape));
}

/* every (thr, v): the TV layout and the partition agree; returns how many values differ */
static int64_t against_partition(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op,
                                 const cute_layout *tv, const cute_layout *tile)
{
    int64_t nthr = cute_tiled_mma_threads(t), bad = 0;
    cute_layout vals = cute_get(c, tv, 1);
    int64_t nval = cute_size(c, &vals).v;
    for (int64_t thr = 0; thr < nthr && !c->failed; thr++) {
        cute_tuple off;
        cute_layout P = cute_tiled_mma_partition(c, t, op, cute_i(thr), tile, &off);
        if (cute_size(c, &P).v != nval) return -1;
        for (int64_t v = 0; v < nval; v++) {
            int64_t want = off.leaf[0].v + cute_layout_eval(c, &P, cute_i(v)).v;
            int64_t got = cute_layout_eval(c, tv, cute_i(thr + v * nthr)).v;
            bad += got != want;
        }
    }
    return bad;
}

/* how many elements of the tile are not owned exactly `want` times */
static int64_t ownership(cute_alg *c, const cute_layout *tv, int64_t elems, int want)
{
    int *count = calloc((size_t)elems, sizeof *count);
    int64_t n = cute_size(c, tv).v, bad = 0;
    for (int64_t i = 0; i < n && !c->failed; i++) {
        int64_t at = cute_layout_eval(c, tv, cute_i(i)).v;
        if (at < 0 || at >= elems)
            bad++;
        else
            count[at]++;
    }
    for (int64_t e = 0; e < elems; e++) bad += count[e] != want;
    free(count);
    return bad;
}

/* in_atom: how many of an atom's threads hold each element of A, B, C (NULL: 1) */
static void check_mma(cute_alg *c, const cute_tiled_mma *t, const int *in_atom, const char *what)
{
    int64_t nthr = cute_tiled_mma_threads(t);
    cute_layout mg = cute_get(c, &t->thr_vmnk, 1), ng = cute_get(c, &t->thr_vmnk, 2),
                kg = cute_get(c, &t->thr_vmnk, 3);
    /* A is shared by the N-threads, B by the M-threads, C by the K-threads */
    int sharers[3] = {(int)cute_size(c, &ng).v, (int)cute_size(c, &mg).v, (int)cute_size(c, &kg).v};
    for (int op = 0; op < 3; op++) {
        if (in_atom) sharers[op] *= in_atom[op];
        int64_t rows, cols;
        cute_layout tile = operand_tile(c, t, (cute_mma_operand)op, &rows, &cols);
        cute_layout tv = cute_tiled_mma_layout_tv(c, t, (cute_mma_operand)op);
        CHECK(!c->failed, "%s %s: %s", what, names[op], c->error);
        if (c->failed) return;
        cute_layout thr_mode = cute_get(c, &tv, 0);
        CHECK(cute_size(c, &thr_mode).v == nthr, "%s %s: the thread mode has every thread", what,
              names[op]);
        CHECK(against_partition(c, t, (cute_mma_operand)op, &tv, &tile) == 0,
              "%s %s: TV layout and partition agree for every (thr, v)", what, names[op]);
        CHECK(ownership(c, &tv, rows * cols, sharers[op]) == 0,
              "%s %s: each element owned exactly %d times", what, names[op], sharers[op]);
    }
}

/* atom tiled by `atoms`, M permuted by perm_m and N by perm_n (NULL: none) */
static cute_tiled_mma tiled(cute_alg *c, const cute_mma_atom *atom, const char *atoms,
                            const char *perm_m, const char *perm_n)
{
    cute_layout al = cute_layout_parse(c, atoms);
    cute_tiler pm = perm_m ? cute_tiler_parse(c, perm_m) : cute_tiler_underscore();
    cute_tiler pn = perm_n ? cute_tiler_parse(c, perm_n) : cute_tiler_underscore();
    return cute_make_tiled_mma(c, atom, &al, perm_m ? &pm : NULL, perm_n ? &pn : NULL, NULL);
}

int main(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_mma_atom fma = cute_mma_atom_universal(&c, CUTE_F32);
    char buf[1024];

    /* seed 002: atoms (16,16,1):(16,1,0), M and N permuted by (16,4):(4,1) */
    cute_tiled_mma t = tiled(&c, &fma, "(16,16,1):(16,1,0)", "(16,4):(4,1)", "(16,4):(4,1)");
    check_mma(&c, &t, NULL, "seed 002");
    cute_layout tvc = cute_tiled_mma_layout_tv(&c, &t, CUTE_MMA_C);
    /* thread 17 is (m 1, n 1): its first value is element (4,4) of the 64x64 tile */
    CHECK(cute_layout_eval(&c, &tvc, cute_i(17)).v == 4 + 4 * 64, "C(T17,V0) is (4,4)");
    /* and its second value is the next row */
    CHECK(cute_layout_eval(&c, &tvc, cute_i(17 + 256)).v == 5 + 4 * 64, "C(T17,V1) is (5,4)");
    cute_layout_str(&tvc, buf, sizeof buf);
    CHECK_STR(buf, "((16,16),(1,(4,4))):((256,4),(0,(1,64)))");

    /* 8x32 atoms, no permutation */
    cute_tiled_mma t2 = tiled(&c, &fma, "(8,32):(32,1)", NULL, NULL);
    check_mma(&c, &t2, NULL, "8x32");

    /* two threads along K: they share C (CuTe would send the second past the tile) */
    cute_tiled_mma t3 = tiled(&c, &fma, "(2,2,2):(1,2,4)", NULL, NULL);
    check_mma(&c, &t3, NULL, "2x2x2");

    /* an atom of two threads (ThrV = 2): a 2x2x1 MMA where thread t holds row t of C and
     * A, and all of B; tiled 2x3 with M permuted */
    cute_mma_atom two = fma;
    two.m = two.n = 2;
    two.thr_id = cute_layout_parse(&c, "2:1");
    two.c_tv = cute_layout_parse(&c, "(2,2):(1,2)");
    two.a_tv = cute_layout_parse(&c, "(2,1):(1,0)");
    two.b_tv = cute_layout_parse(&c, "(2,2):(0,1)");
    cute_tiled_mma t4 = tiled(&c, &two, "(2,3):(3,1)", "(2,2):(2,1)", NULL);
    int both_hold_b[3] = {1, 2, 1};
    check_mma(&c, &t4, both_hold_b, "two-thread atom");
    return CHECK_DONE("tiled_mma_tv_test");
}
