/* TiledMMA partitioning against CuTe: seed 002's SGEMM configuration gives exactly the
 * partitions the seed prints, and every element of a tile is owned by exactly one
 * (thread, value) for C (and by the ThrN threads of its row for A). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/mma.h"
#include "cutec/notation.h"

static char buf[4096];

static const char *lay(cute_alg *c, cute_layout L)
{
    if (c->failed) return c->error;
    cute_layout_str(&L, buf, sizeof buf);
    return buf;
}

/* how many (thread, value) pairs land on each element of a tile of `elems` elements */
static void ownership(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op, const cute_layout *tile,
                      int elems, int want, const char *what)
{
    int *count = calloc((size_t)elems, sizeof *count);
    int64_t nthr = cute_tiled_mma_threads(t);
    for (int64_t tid = 0; tid < nthr && !c->failed; tid++) {
        cute_tuple off;
        cute_layout P = cute_tiled_mma_partition(c, t, op, cute_i(tid), tile, &off);
        int64_t n = cute_size(c, &P).v;
        for (int64_t v = 0; v < n; v++) {
            int64_t at = off.leaf[0].v + cute_layout_eval(c, &P, cute_i(v)).v;
            if (at >= 0 && at < elems) count[at]++;
        }
    }
    int bad = 0;
    for (int i = 0; i < elems; i++) bad += count[i] != want;
    CHECK(!c->failed && bad == 0, "%s: %d elements not owned exactly %d times (%s)", what, bad, want, c->error);
    free(count);
}

int main(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    /* seed 002: UniversalFMA<f32>, atoms (16,16,1):(16,1,0), permutations (16,4):(4,1) */
    cute_mma_atom fma = cute_mma_atom_universal(&c, CUTE_F32);
    cute_layout atoms = cute_layout_parse(&c, "(16,16,1):(16,1,0)");
    cute_tiler perm = cute_tiler_parse(&c, "(16,4):(4,1)");
    cute_tiled_mma t = cute_make_tiled_mma(&c, &fma, &atoms, &perm, &perm, NULL);
    CHECK_STR(lay(&c, t.thr_vmnk), "(1,16,16,1):(0,16,1,0)");
    CHECK(cute_tiled_mma_threads(&t) == 256, "256 threads");
    CHECK(cute_tiled_mma_tile_size(&c, &t, 0).v == 64 && cute_tiled_mma_tile_size(&c, &t, 2).v == 1,
          "tile 64 x 64 x 1");
    /* gC: a 128x128 tile of a row-major C with 128 columns */
    cute_layout gC = cute_layout_parse(&c, "(128,128):(128,1)");
    cute_tuple off;
    cute_layout tCgC = cute_tiled_mma_partition(&c, &t, CUTE_MMA_C, cute_i(17), &gC, &off);
    CHECK_STR(lay(&c, tCgC), "(1,(4,2),(4,2)):(0,(128,8192),(1,64))");
    CHECK(off.leaf[0].v == 4 * 128 + 4, "thread 17 (m 1, n 1) starts at row 4, column 4: %lld",
          (long long)off.leaf[0].v);
    /* gA: a 128x8 k-tile of a column-major A with M = 1024 */
    cute_layout gA = cute_layout_parse(&c, "(128,8):(1,1024)");
    CHECK_STR(lay(&c, cute_tiled_mma_partition(&c, &t, CUTE_MMA_A, cute_i(17), &gA, &off)),
              "(1,(4,2),8):(0,(1,64),1024)");
    CHECK_STR(lay(&c, cute_tiled_mma_thrfrg(&c, &t, CUTE_MMA_C, &gC)),
              "((1,(16,16)),(1,((4,2),(4,2)))):((0,(512,4)),(0,((128,8192),(1,64))))");
    /* ownership over compact tiles */
    cute_layout c128 = cute_layout_parse(&c, "(128,128):(1,128)");
    ownership(&c, &t, CUTE_MMA_C, &c128, 128 * 128, 1, "C 128x128");
    cute_layout a128 = cute_layout_parse(&c, "(128,8):(1,128)");
    ownership(&c, &t, CUTE_MMA_A, &a128, 128 * 8, 16, "A 128x8 (shared by the 16 N-threads)");
    /* another configuration: 8x32 atoms, no permutation, a tile that is one TiledMMA */
    cute_layout atoms2 = cute_layout_parse(&c, "(8,32):(32,1)");
    cute_tiled_mma t2 = cute_make_tiled_mma(&c, &fma, &atoms2, NULL, NULL, NULL);
    cute_layout c2 = cute_layout_parse(&c, "(64,64):(1,64)");
    ownership(&c, &t2, CUTE_MMA_C, &c2, 64 * 64, 1, "C 64x64 with 8x32 atoms");
    CHECK_STR(lay(&c, cute_tiled_mma_partition(&c, &t2, CUTE_MMA_C, cute_i(0), &c2, &off)),
              "(1,8,2):(0,8,2048)");
    return CHECK_DONE("tiled_mma_test");
}
