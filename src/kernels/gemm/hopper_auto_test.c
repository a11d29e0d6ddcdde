/* The Hopper kernel's tiling by shape class (hopper_auto.c): which calls take a row and which
 * keep the plan's defaults, and that every row compiles (the plan takes it) for the classes
 * it is given to.  Host only: the library's use of the rows is tuned_test's (AUTO on the
 * interpreter with an sm_90 target, the result checked against float64). */
#include "check.h"
#include "kernels/gemm/gemm_internal.h"

static cute_gemm_tiling row(cute_dtype d, cute_dtype cd, int64_t m, int64_t n, int64_t k)
{
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = d, .c_dtype = cd, .major = {1, 1, 0}, .align_bytes = 16};
    return gemm_hopper_auto_tiling(&cfg, (int64_t[]){m, n, k});
}

static bool plan_takes(const cute_gemm_config *cfg)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    gemm_plan p;
    bool ok = gemm_plan_hopper(&a, cfg, 90, &p);
    if (!ok) fprintf(stderr, "plan: %s\n", a.error);
    return ok;
}

/* the plan's tile and cluster where the tiling leaves them 0 (cute_gemm_hopper_tile, which
 * `cutec bench tp`'s chunks read too): 128 x 256 1 x 1; ping-pong 128 x 128; fp8 block
 * scales 128 x 128 in 2 x 1 clusters unless a cluster is asked; a field set is kept */
static void default_tiles(void)
{
    static const struct {
        cute_gemm_scale_kind scale;
        cute_gemm_tiling t;
        int64_t bm, bn;
        int cm, cn;
    } want[] = {{CUTE_GEMM_SCALE_NONE, {0}, 128, 256, 1, 1},
                {CUTE_GEMM_SCALE_NONE, {.schedule = CUTE_GEMM_SCHEDULE_PINGPONG}, 128, 128, 1, 1},
                {CUTE_GEMM_SCALE_BLOCK, {0}, 128, 128, 2, 1},
                {CUTE_GEMM_SCALE_BLOCK, {.cluster_n = 2}, 128, 128, 1, 2},
                {CUTE_GEMM_SCALE_NONE, {.bm = 192, .bn = 192, .cluster_n = 2}, 192, 192, 1, 2}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cute_gemm_config cfg = {.dtype = CUTE_BF16, .scale = want[i].scale, .tiling = want[i].t};
        int64_t tile[2];
        int cluster[2];
        cute_gemm_hopper_tile(&cfg, tile, cluster);
        CHECK(tile[0] == want[i].bm && tile[1] == want[i].bn && cluster[0] == want[i].cm && cluster[1] == want[i].cn,
              "default tile %zu: %lldx%lld %dx%d", i, (long long)tile[0], (long long)tile[1], cluster[0], cluster[1]);
    }
}

int main(void)
{
    default_tiles();
    /* K up to 512: ping-pong; up to 1024: the cooperative kernel with the whole tile's store, no
     * cluster (8192x8192x1024 too, though the 2x1 row's bounds take it); past 1024 the rows by
     * tiles; fp8 with an f32 C: the plan's defaults (a 16-bit C of many tiles: per_tensor_fp8's row) */
    static const cute_gemm_tiling none;
    CHECK(row(CUTE_BF16, CUTE_BF16, 8192, 8192, 512).schedule == CUTE_GEMM_SCHEDULE_PINGPONG, "bf16 K 512");
    CHECK(row(CUTE_F16, CUTE_F16, 8192, 8192, 64).schedule == CUTE_GEMM_SCHEDULE_PINGPONG, "f16 K 64");
    cute_gemm_tiling k1024 = row(CUTE_BF16, CUTE_BF16, 8192, 8192, 1024), k513 = row(CUTE_F16, CUTE_F16, 4096, 4096, 513);
    CHECK(k1024.schedule == CUTE_GEMM_SCHEDULE_AUTO && k1024.c_store == CUTE_GEMM_STORE_TILE && k1024.cluster_m == 0,
          "bf16 8192^2 x 1024: cooperative, the whole tile, no cluster (schedule %d, store %d, cluster %d)",
          k1024.schedule, k1024.c_store, k1024.cluster_m);
    CHECK(k513.schedule == CUTE_GEMM_SCHEDULE_AUTO && k513.c_store == CUTE_GEMM_STORE_TILE, "f16 K 513: cooperative");
    cute_gemm_tiling longer = row(CUTE_BF16, CUTE_BF16, 8192, 8192, 1025);
    CHECK(longer.schedule == CUTE_GEMM_SCHEDULE_AUTO && longer.c_store == CUTE_GEMM_STORE_TILE, "K 1025");
    CHECK(row(CUTE_F16, CUTE_BF16, 4096, 4096, 4096).c_store == CUTE_GEMM_STORE_TILE, "f16 -> bf16 4096^3");
    /* one wave (M N up to 2048^2) past K 1024: the two-buffer TMA stores; one more row of C, or
     * K 1024: the whole tile; each compiles */
    cute_gemm_tiling wave = row(CUTE_BF16, CUTE_BF16, 2048, 2048, 2048), small = row(CUTE_F16, CUTE_F16, 1000, 1500, 4096);
    CHECK(wave.c_store == CUTE_GEMM_STORE_TMA && wave.cluster_m == 0 && wave.schedule == CUTE_GEMM_SCHEDULE_AUTO,
          "2048^3: --store tma (store %d)", wave.c_store);
    CHECK(small.c_store == CUTE_GEMM_STORE_TMA, "1000 x 1500 x 4096: --store tma");
    CHECK(row(CUTE_BF16, CUTE_BF16, 2049, 2048, 2048).c_store == CUTE_GEMM_STORE_TILE, "2049 x 2048: the whole tile");
    CHECK(row(CUTE_BF16, CUTE_BF16, 2048, 2048, 1024).c_store == CUTE_GEMM_STORE_TILE, "2048^2 x 1024: the whole tile");
    for (int d = 0; d < 2; d++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = d ? CUTE_F16 : CUTE_BF16, .major = {1, d, d},
                                .align_bytes = 16};
        cfg.tiling = gemm_hopper_auto_tiling(&cfg, (int64_t[]){2048, 2048, 2048});
        CHECK(plan_takes(&cfg), "the one-wave row compiles (%s)", d ? "f16, N-major B, row-major C" : "bf16");
    }
    /* 8192 x 4096 (1024 tiles) and up, K past 1024: clusters of 2 along M; fewer tiles: none */
    CHECK(longer.cluster_m == 2 && longer.cluster_n == 1, "8192^2 x 1025: 2x1");
    cute_gemm_tiling llm = row(CUTE_BF16, CUTE_BF16, 8192, 4096, 14336), sq = row(CUTE_BF16, CUTE_BF16, 4096, 8191, 8192);
    CHECK(llm.cluster_m == 2 && llm.c_store == CUTE_GEMM_STORE_TILE, "8192 x 4096 x 14336: 2x1, the whole tile");
    CHECK(sq.cluster_m == 0 && sq.c_store == CUTE_GEMM_STORE_TILE, "4096 x 8191: no cluster");
    /* 192 x 192 in 1x2 clusters where its rounds fill as well (8192 x 28672: 49 rounds of 9/8
     * against 55); not at 8192^3, 8192 x 6144, 8192 x 4096 */
    cute_gemm_tiling wide = row(CUTE_BF16, CUTE_BF16, 8192, 28672, 4096);
    CHECK(wide.bm == 192 && wide.bn == 192 && wide.cluster_m == 1 && wide.cluster_n == 2 &&
              wide.c_store == CUTE_GEMM_STORE_TILE,
          "8192 x 28672 x 4096: 192 x 192 1x2 (%dx%d, %dx%d)", wide.bm, wide.bn, wide.cluster_m, wide.cluster_n);
    int64_t not192[][2] = {{8192, 8192}, {8192, 6144}, {8192, 4096}};
    for (int i = 0; i < 3; i++)
        CHECK(row(CUTE_BF16, CUTE_BF16, not192[i][0], not192[i][1], 4096).bm == 0, "%lld x %lld: 128 x 256",
              (long long)not192[i][0], (long long)not192[i][1]);
    /* stream-K with the whole tile's store (`--schedule streamk`, a row's alternative that no
     * row takes) compiles for the rows' classes: bf16 / f16, both C majors */
    for (int d = 0; d < 4; d++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = d / 2 ? CUTE_F16 : CUTE_BF16, .major = {1, 1, d % 2},
                                .align_bytes = 16,
                                .tiling = {.schedule = CUTE_GEMM_SCHEDULE_STREAMK, .c_store = CUTE_GEMM_STORE_TILE}};
        CHECK(plan_takes(&cfg), "stream-K compiles (%s, C %s-major)", d / 2 ? "f16" : "bf16", d % 2 ? "row" : "column");
    }
    /* 192 x 192 by three consumer warpgroups (the many-tiles row's where it fills as well), in
     * 1x2 and 2x1 clusters, compiles for that row's classes */
    for (int d = 0; d < 4; d++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = d / 2 ? CUTE_F16 : CUTE_BF16, .major = {1, 1, d % 2},
                                .align_bytes = 16,
                                .tiling = {.bm = 192, .bn = 192, .c_store = CUTE_GEMM_STORE_TILE, .cluster_m = 1 + d % 2,
                                           .cluster_n = 2 - d % 2}};
        CHECK(plan_takes(&cfg), "192 x 192 compiles (%s, C %s-major)", d / 2 ? "f16" : "bf16", d % 2 ? "row" : "column");
    }
    CHECK(row(CUTE_BF16, CUTE_BF16, 1024, 65536, 4096).cluster_m == 0, "1024 x 65536: no cluster (a thin C)");
    cute_gemm_tiling fp8 = row(CUTE_E4M3, CUTE_BF16, 8192, 8192, 4096), f32 = row(CUTE_BF16, CUTE_F32, 8192, 8192, 1024);
    /* fp8 without block scales, many tiles, K past 1024: the whole tile's store; fewer tiles,
     * K 1024, an f32 C: the plan's defaults; each compiles */
    CHECK(fp8.c_store == CUTE_GEMM_STORE_TILE && fp8.bm == 0 && fp8.cluster_m == 0, "e4m3 8192^2 x 4096: the whole tile");
    cute_gemm_tiling fp8_4k = row(CUTE_E4M3, CUTE_BF16, 4096, 4096, 4096), fp8_k1 = row(CUTE_E5M2, CUTE_F16, 8192, 8192, 1024),
                     fp8_f32 = row(CUTE_E4M3, CUTE_F32, 8192, 8192, 8192);
    CHECK(!memcmp(&fp8_4k, &none, sizeof none) && !memcmp(&fp8_k1, &none, sizeof none) &&
              !memcmp(&fp8_f32, &none, sizeof none),
          "e4m3 4096^3, e5m2 K 1024, an f32 C: the plan's defaults");
    for (int s = 0; s < 2; s++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = s ? CUTE_E5M2 : CUTE_E4M3, .c_dtype = CUTE_BF16,
                                .scale = s ? CUTE_GEMM_SCALE_NONE : CUTE_GEMM_SCALE_TENSOR, .major = {1, 1, s},
                                .align_bytes = 16};
        cfg.tiling = gemm_hopper_auto_tiling(&cfg, (int64_t[]){8192, 8192, 8192});
        CHECK(cfg.tiling.c_store == CUTE_GEMM_STORE_TILE && plan_takes(&cfg), "fp8 %s 8192^3: the whole tile compiles",
              s ? "unscaled" : "per-tensor");
    }
    CHECK(!memcmp(&f32, &none, sizeof none), "an f32 C: the plan's defaults");
    cute_gemm_tiling t;
    /* block scales: 256 x 128 in 1x2 clusters where M >= 1024 (at 240 registers: ahead of
     * 128 x 128 2x1 at 4096x7168x16384), else 128 x 128 in 2x1 clusters; with amax too; one
     * row tile of M or N: no cluster along it; an f32 C keeps the plan's defaults; each row
     * compiles */
    int64_t shapes[][3] = {{4096, 7168, 16384}, {4096, 4096, 4096}, {4096, 160, 4096}, {128, 4096, 4096}};
    for (int i = 0; i < 4; i++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = i % 2 ? CUTE_E5M2 : CUTE_E4M3, .c_dtype = CUTE_BF16,
                                .scale = CUTE_GEMM_SCALE_BLOCK, .major = {1, 1, 1}, .align_bytes = 16};
        cfg.tiling = gemm_hopper_auto_tiling(&cfg, shapes[i]);
        bool tall = shapes[i][0] >= 1024;
        int bm = tall ? 256 : 128, cm = tall ? 1 : shapes[i][0] > 128 ? 2 : 1, cn = tall && shapes[i][1] > 128 ? 2 : 1;
        long long m = shapes[i][0], n = shapes[i][1];
        CHECK(cfg.tiling.bm == bm && cfg.tiling.bn == 128 && cfg.tiling.cluster_m == cm && cfg.tiling.cluster_n == cn,
              "block scales %lldx%lld: %dx%d, cluster %dx%d", m, n, cfg.tiling.bm, cfg.tiling.bn, cfg.tiling.cluster_m,
              cfg.tiling.cluster_n);
        CHECK(plan_takes(&cfg), "the block-scale row for %lldx%lld compiles", m, n);
        cfg.amax = true;
        t = gemm_hopper_auto_tiling(&cfg, shapes[i]);
        CHECK(t.bm == bm && t.bn == 128 && t.cluster_m == cm && t.cluster_n == cn, "block scales with amax, %lldx%lld: %dx%d", m, n, t.bm, t.bn);
        cfg.tiling = t;
        CHECK(plan_takes(&cfg), "the block-scale row with amax compiles");
        cfg.c_dtype = CUTE_F32, cfg.amax = false;
        t = gemm_hopper_auto_tiling(&cfg, shapes[i]);
        CHECK(!memcmp(&t, &none, sizeof none), "block scales, an f32 C: the plan's defaults");
    }
    cute_gemm_config dual = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = CUTE_BF16, .dual = true,
                             .major = {1, 1, 0}, .align_bytes = 16};
    t = gemm_hopper_auto_tiling(&dual, (int64_t[]){8192, 8192, 4096});
    CHECK(!memcmp(&t, &none, sizeof none), "the dual GEMM: the plan's defaults");
    /* the peer kernels (cutec_gemm_peer) are cooperative only: K 1024 must not give them ping-pong
     * (peer_gemm_test's two-GPU epochs failed to compile on two H200s before this) */
    cute_gemm_config peer = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = CUTE_BF16, .peer_flags = true,
                             .major = {1, 1, 1}, .align_bytes = 16};
    t = gemm_hopper_auto_tiling(&peer, (int64_t[]){1024, 1024, 1024});
    CHECK(!memcmp(&t, &none, sizeof none), "the peer kernels: the plan's defaults");
    /* few rows of A (32 to 128, N past 128): 64 x 64 tiles up to 64 rows, 128 x 64 past; 31
     * rows, or N of 128, not */
    cute_gemm_tiling few = row(CUTE_BF16, CUTE_BF16, 64, 8192, 8192);
    CHECK(few.bm == 64 && few.bn == 64 && few.bk == 64, "M 64: %dx%dx%d", few.bm, few.bn, few.bk);
    few = row(CUTE_F16, CUTE_F16, 32, 8192, 512);
    CHECK(few.bm == 64 && few.bn == 64 && few.schedule == CUTE_GEMM_SCHEDULE_AUTO, "M 32 (short K): %dx%d", few.bm, few.bn);
    few = row(CUTE_BF16, CUTE_BF16, 65, 4096, 8192);
    CHECK(few.bm == 128 && few.bn == 64, "M 65: %dx%d", few.bm, few.bn);
    CHECK(row(CUTE_BF16, CUTE_BF16, 31, 8192, 8192).bm == 0 && row(CUTE_BF16, CUTE_BF16, 64, 128, 8192).bm == 0 &&
              row(CUTE_BF16, CUTE_BF16, 129, 8192, 8192).bm == 0,
          "M 31, N 128, M 129: not the few-row tiles");
    /* the mirror, few columns of B (8 to 128 against M past 128): 64 rows by 16, 32, 64 or 128 */
    few = row(CUTE_BF16, CUTE_BF16, 8192, 8, 8192);
    CHECK(few.bm == 64 && few.bn == 16, "N 8: %dx%d", few.bm, few.bn);
    few = row(CUTE_BF16, CUTE_BF16, 8192, 17, 8192);
    CHECK(few.bm == 64 && few.bn == 32, "N 17: %dx%d", few.bm, few.bn);
    few = row(CUTE_BF16, CUTE_BF16, 8192, 32, 8192);
    CHECK(few.bm == 64 && few.bn == 32, "N 32: %dx%d", few.bm, few.bn);
    few = row(CUTE_BF16, CUTE_BF16, 8192, 33, 8192);
    CHECK(few.bm == 64 && few.bn == 64, "N 33: %dx%d", few.bm, few.bn);
    few = row(CUTE_BF16, CUTE_BF16, 8192, 64, 8192);
    CHECK(few.bm == 64 && few.bn == 64 && few.bk == 64, "N 64: %dx%dx%d", few.bm, few.bn, few.bk);
    few = row(CUTE_F16, CUTE_F16, 8192, 65, 8192);
    CHECK(few.bm == 64 && few.bn == 128, "N 65: %dx%d", few.bm, few.bn);
    CHECK(row(CUTE_BF16, CUTE_BF16, 8192, 7, 8192).bm == 0 && row(CUTE_BF16, CUTE_BF16, 128, 64, 8192).bm == 0 &&
              row(CUTE_BF16, CUTE_F32, 8192, 64, 8192).bm == 0,
          "N 7, M 128, an f32 C: not the few-column tiles");
    for (int n = 8; n <= 128; n += 8) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 0}, .align_bytes = 16};
        cfg.tiling = gemm_hopper_auto_tiling(&cfg, (int64_t[]){8192, n, 8192});
        CHECK(plan_takes(&cfg), "the few-column tiles for N %d compile", n);
    }
    for (int m = 32; m <= 128; m += 32)
        for (int major = 0; major < 2; major++) {
            cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, major},
                                    .align_bytes = 16};
            cfg.tiling = gemm_hopper_auto_tiling(&cfg, (int64_t[]){m, 8192, 8192});
            CHECK(plan_takes(&cfg), "the few-row tiles for M %d compile", m);
        }
    /* each row's tiling compiles for the class it is given to: bf16 / f16, both C majors */
    int64_t ks[] = {64, 1024, 4096, 8192, 16384};
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = d ? CUTE_F16 : CUTE_BF16,
                                    .major = {1, 1, (int)i % 2}, .align_bytes = 16};
            cfg.tiling = gemm_hopper_auto_tiling(&cfg, (int64_t[]){8192, 8192, ks[i]});
            CHECK(plan_takes(&cfg), "the row for K %lld compiles", (long long)ks[i]);
        }
    return CHECK_DONE("gemm/hopper_auto_test");
}
