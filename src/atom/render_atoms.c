/* Pictures of a TiledMMA (C, A to its left, B above it) and of a TiledCopy (source and
 * destination side by side): the atom layer computes the TV layouts, the layout layer's
 * panel renderer draws them (cute_render_panels). */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/notation.h"
#include "cutec/render_atoms.h"

/* "(a,b)" */
static cute_tuple pair(cute_alg *c, int64_t a, int64_t b)
{
    int64_t v[2] = {a, b};
    return cute_tuple_ints(c, 2, v);
}

/* "TiledMMA UniversalFMA<f32>: 256 threads, ThrLayoutVMNK ..., PermutationMNK ..., tile ..."
 * (the atom's name says its types) */
static void mma_title(const cute_tiled_mma *t, const int64_t mnk[3], char *buf, size_t n)
{
    char vmnk[1024], perm[3][1024];
    cute_layout_str(&t->thr_vmnk, vmnk, sizeof vmnk);
    for (int i = 0; i < 3; i++) {
        if (t->perm_given[i])
            cute_tiler_str(&t->perm[i], perm[i], sizeof perm[i]);
        else
            strcpy(perm[i], "_");
    }
    snprintf(buf, n,
             "TiledMMA %s: %lld threads, ThrLayoutVMNK %s, PermutationMNK (%s,%s,%s), "
             "tile (M,N,K) = (%lld,%lld,%lld)",
             t->atom.name, (long long)cute_tiled_mma_threads(t), vmnk, perm[0], perm[1], perm[2],
             (long long)mnk[0], (long long)mnk[1], (long long)mnk[2]);
}

int cute_render_tiled_mma(cute_alg *c, const cute_tiled_mma *t, cute_render_format fmt, FILE *f)
{
    if (c->failed) return -1;
    int64_t mnk[3];
    for (int i = 0; i < 3; i++) mnk[i] = cute_tiled_mma_tile_size(c, t, i).v;
    cute_layout tv_c = cute_tiled_mma_layout_tv(c, t, CUTE_MMA_C);
    cute_layout tv_a = cute_tiled_mma_layout_tv(c, t, CUTE_MMA_A);
    cute_layout tv_b = cute_tiled_mma_layout_tv(c, t, CUTE_MMA_B);
    if (c->failed) return -1;
    char title[8192], hc[128], ha[128], hb[128];
    mma_title(t, mnk, title, sizeof title);
    long long M = mnk[0], N = mnk[1], K = mnk[2];
    snprintf(hc, sizeof hc, "C (M x N = %lld x %lld)", M, N);
    snprintf(ha, sizeof ha, "A (M x K = %lld x %lld)", M, K);
    snprintf(hb, sizeof hb, "B (K x N = %lld x %lld, drawn transposed)", K, N);
    /* CuTe's places: C at (0,0), A at (0,-K-1), B at (-K-1,0); the free row and column
     * between them hold C's indices */
    cute_render_panel p[3] = {
        {.name = "C", .heading = hc, .tv = &tv_c, .tile = pair(c, M, N), .indices = true},
        {.name = "A",
         .heading = ha,
         .tv = &tv_a,
         .tile = pair(c, M, K),
         .shared = true,
         .indices = true,
         .col = -K - 1},
        {.name = "B",
         .heading = hb,
         .tv = &tv_b,
         .tile = pair(c, N, K),
         .transpose = true,
         .shared = true,
         .indices = true,
         .row = -K - 1},
    };
    return cute_render_panels(c, f, fmt, title, p, 3);
}

int cute_render_tiled_copy(cute_alg *c, const cute_tiled_copy *t, cute_render_format fmt, FILE *f)
{
    if (c->failed) return -1;
    cute_tuple tile = cute_tiled_copy_tile_shape(c, t);
    cute_layout tv_s = cute_tiled_copy_layout_tv(c, t, true);
    cute_layout tv_d = cute_tiled_copy_layout_tv(c, t, false);
    if (c->failed) return -1;
    int rank = cute_tuple_rank(&tile);
    if (rank > 2) {
        char buf[256];
        cute_tuple_str(&tile, buf, sizeof buf);
        cute_alg_fail(c, "render: a TiledCopy's tile must be (M,N) or M to be drawn, it is %s",
                      buf);
        return -1;
    }
    char title[8192], tv[1024], shape[256], hs[300], hd[300];
    cute_layout_str(&t->layout_tv, tv, sizeof tv);
    cute_tuple_str(&tile, shape, sizeof shape);
    snprintf(title, sizeof title, "TiledCopy %s of %s: %lld threads, LayoutCopy_TV %s, tile %s",
             t->atom.name, cute_dtype_name((cute_dtype)t->atom.dtype),
             (long long)cute_tiled_copy_threads(t), tv, shape);
    snprintf(hs, sizeof hs, "S (source, tile %s)", shape);
    snprintf(hd, sizeof hd, "D (destination, tile %s)", shape);
    /* D right of S, past a free column and D's own index column */
    int64_t N = rank == 2 ? tile.leaf[1].v : 1;
    cute_render_panel p[2] = {
        {.name = "S", .heading = hs, .tv = &tv_s, .tile = tile, .indices = true},
        {.name = "D", .heading = hd, .tv = &tv_d, .tile = tile, .indices = true, .col = N + 2},
    };
    return cute_render_panels(c, f, fmt, title, p, 2);
}
