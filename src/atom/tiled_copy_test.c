/* TiledCopy on layouts against CuTe: make_tiled_copy_tv's TV layout and tiler, partition_S
 * of tiles, exact ownership, and retile agreeing with the TiledMMA's own partition. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/copy.h"
#include "cutec/notation.h"

static char buf[4096];

static const char *lay(cute_alg *c, cute_layout L)
{
    if (c->failed) return c->error;
    cute_layout_str(&L, buf, sizeof buf);
    return buf;
}

/* every element of a compact tile is moved by exactly one (thread, value) */
static void ownership(cute_alg *c, const cute_tiled_copy *t, const char *what)
{
    cute_tuple shape = cute_tiled_copy_tile_shape(c, t);
    cute_layout tile = cute_make_layout(c, shape);
    int64_t elems = cute_size(c, &tile).v;
    int *count = calloc((size_t)elems, sizeof *count);
    for (int64_t tid = 0; tid < cute_tiled_copy_threads(t) && !c->failed; tid++) {
        cute_tuple off;
        cute_layout P = cute_tiled_copy_partition(c, t, true, cute_i(tid), &tile, &off);
        int64_t n = cute_size(c, &P).v;
        for (int64_t v = 0; v < n; v++) {
            int64_t at = off.leaf[0].v + cute_layout_eval(c, &P, cute_i(v)).v;
            if (at >= 0 && at < elems) count[at]++;
        }
    }
    int bad = 0;
    for (int64_t i = 0; i < elems; i++) bad += count[i] != 1;
    CHECK(!c->failed && bad == 0, "%s: %d elements not owned exactly once (%s)", what, bad, c->error);
    free(count);
}

int main(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_copy_atom u128 = cute_copy_atom_universal(&c, CUTE_F32, 128);
    CHECK_STR(lay(&c, u128.src_tv), "(1,4):(0,1)");
    /* 32x8 threads (column-major), 4x1 values each: CuTe's classic gmem copy of a 128x8 tile */
    cute_layout thr = cute_layout_parse(&c, "(32,8):(1,32)"), val = cute_layout_parse(&c, "(4,1):(1,0)");
    cute_tiled_copy tc = cute_make_tiled_copy_tv(&c, &u128, &thr, &val);
    CHECK_STR(lay(&c, tc.layout_tv), "(256,4):(4,1)");
    cute_tuple ts = cute_tiled_copy_tile_shape(&c, &tc);
    CHECK(ts.nleaves == 2 && ts.leaf[0].v == 128 && ts.leaf[1].v == 8, "tile 128x8");
    CHECK(cute_tiled_copy_threads(&tc) == 256, "256 threads");
    ownership(&c, &tc, "(32,8) x (4,1)");
    /* a column-major A with M = 1024: thread 33 (m-thread 1, k 1) holds rows 4..7 of column 1 */
    cute_layout gA = cute_layout_parse(&c, "(128,8):(1,1024)");
    cute_tuple off;
    cute_layout p = cute_tiled_copy_partition(&c, &tc, true, cute_i(33), &gA, &off);
    CHECK_STR(lay(&c, p), "((4,1),1,1):((1,0),0,0)");
    CHECK(off.leaf[0].v == 4 + 1024, "thread 33 starts at (4,1): %lld", (long long)off.leaf[0].v);
    /* a whole k-panel (128,32): the rest mode iterates the 4 k-tiles */
    cute_layout gA4 = cute_layout_parse(&c, "(128,32):(1,1024)");
    CHECK_STR(lay(&c, cute_tiled_copy_partition(&c, &tc, true, cute_i(0), &gA4, &off)),
              "((4,1),1,4):((1,0),0,8192)");
    /* row-major threads over a K-major tile: 8 threads along K... (16,16):(16,1) x (1,4) */
    cute_layout thr2 = cute_layout_parse(&c, "(64,4):(4,1)"), val2 = cute_layout_parse(&c, "(1,4):(0,1)");
    cute_tiled_copy tc2 = cute_make_tiled_copy_tv(&c, &u128, &thr2, &val2);
    CHECK_STR(lay(&c, tc2.layout_tv), "((4,64),4):((256,1),64)");
    ownership(&c, &tc2, "(64,4):(4,1) x (1,4)");
    /* the universal atom refuses what it cannot move */
    cute_alg bad;
    cute_alg_init(&bad, NULL);
    cute_copy_atom_universal(&bad, CUTE_F32, 16);
    CHECK(bad.failed && strstr(bad.error, "16 bits"), "16-bit copy of f32 refused: %s", bad.error);
    cute_alg_init(&bad, NULL);
    cute_copy_atom u64 = cute_copy_atom_universal(&bad, CUTE_F64, 128);
    cute_layout t3 = cute_layout_parse(&bad, "(3,1):(1,0)"), v3 = cute_layout_parse(&bad, "(1,1):(0,0)");
    cute_make_tiled_copy_tv(&bad, &u64, &t3, &v3);
    CHECK(bad.failed && strstr(bad.error, "do not divide"), "2-value atom over 1 value refused: %s", bad.error);

    /* make_tiled_copy_C of seed 002's TiledMMA: each thread's 4 consecutive M values of C
     * in one 128-bit atom; retile of the MMA fragment lines up with partition_D */
    cute_mma_atom fma = cute_mma_atom_universal(&c, CUTE_F32);
    cute_layout atoms = cute_layout_parse(&c, "(16,16,1):(16,1,0)");
    cute_tiler perm = cute_tiler_parse(&c, "(16,4):(4,1)");
    cute_tiled_mma mma = cute_make_tiled_mma(&c, &fma, &atoms, &perm, &perm, NULL);
    cute_tiled_copy tcC = cute_make_tiled_copy_mma(&c, &u128, &mma, CUTE_MMA_C);
    CHECK(!c.failed, "make_tiled_copy_C: %s", c.error);
    ownership(&c, &tcC, "tiled copy C");
    cute_layout gC = cute_layout_parse(&c, "(128,128):(1,128)");
    for (int tid = 0; tid < 256 && !c.failed; tid += 37) {
        cute_tuple om, oc;
        cute_layout pm = cute_tiled_mma_partition(&c, &mma, CUTE_MMA_C, cute_i(tid), &gC, &om);
        cute_layout frag = cute_make_layout(&c, pm.shape);
        cute_layout rt = cute_tiled_copy_retile(&c, &tcC, &frag);
        cute_layout pc = cute_tiled_copy_partition(&c, &tcC, false, cute_i(tid), &gC, &oc);
        int64_t n = cute_size(&c, &pc).v, bad_v = 0;
        CHECK(cute_size(&c, &rt).v == n, "retile keeps the %lld values", (long long)n);
        /* value i of the copy's partition is register rt(i) of the MMA fragment */
        for (int64_t i = 0; i < n && !c.failed; i++) {
            int64_t reg = cute_layout_eval(&c, &rt, cute_i(i)).v;
            int64_t via_mma = om.leaf[0].v + cute_layout_eval(&c, &pm, cute_i(reg)).v;
            int64_t via_copy = oc.leaf[0].v + cute_layout_eval(&c, &pc, cute_i(i)).v;
            bad_v += via_mma != via_copy;
        }
        CHECK(bad_v == 0, "thread %d: %lld retiled values land elsewhere (retile %s)", tid,
              (long long)bad_v, lay(&c, rt));
    }
    return CHECK_DONE("tiled_copy_test");
}
