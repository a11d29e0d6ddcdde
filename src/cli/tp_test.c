/* The tensor-parallel GEMM's host side, without GPUs: the row schedule's order (every chunk
 * once a rank, each owned chunk's partial pushed by the other rank at least one GEMM step
 * before the owner needs it), the chunks of C (`--chunk-rows`), the scale model against
 * hand-computed cases and the pieces' tiling. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cli/tp.h"

static void row_order(int J)
{
    int step_of[2][TP_MAX_CHUNKS];
    bool own_of[2][TP_MAX_CHUNKS];
    for (int r = 0; r < 2; r++) {
        for (int j = 0; j < J; j++) step_of[r][j] = -1;
        for (int k = 0; k < J; k++) {
            bool own;
            int j = tp_row_chunk(r, k, J, &own);
            CHECK(j >= 0 && j < J && step_of[r][j] < 0, "J %d rank %d step %d: chunk %d twice or outside", J, r, k, j);
            if (j < 0 || j >= J) continue;
            step_of[r][j] = k, own_of[r][j] = own;
            CHECK(own == (j % 2 == r), "J %d rank %d: chunk %d owned by %d", J, r, j, j % 2);
        }
    }
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < J; j++)
            if (own_of[r][j]) /* the other rank's push of j comes from an earlier step */
                CHECK(step_of[1 - r][j] + (J > 2 ? 2 : 1) <= step_of[r][j], "J %d: chunk %d pushed at step %d, "
                      "needed at %d", J, j, step_of[1 - r][j], step_of[r][j]);
}

static void model(void)
{
    tp_machine mc = {.gpus = 2, .hosts = 1, .tflops = 1, .link_gbs = 100, .link_us = 0, .net_gbs = 10,
                     .net_us = 0, .slowdown = 1};
    /* row, 2 GPUs, M = N = 1000, K = 2000: 2e9 FLOPs a GPU, 2 ms at 1 TFLOP/s; a chunk's
     * all-reduce (2 GPUs: each sends half of it, twice) 0.005 ms at 100 GB/s */
    tp_prediction p = tp_predict(TP_ROW, 1000, 1000, 2000, 4, &mc);
    double gemm = 2.0 * 1000 * 1000 * 2000 / 2 / 1e12 * 1e3, c = 2.0 * 1 * (2e6 / 4 / 2) / 100e6;
    CHECK(fabs(p.gemm_ms - gemm) < 1e-9, "gemm %g, want %g", p.gemm_ms, gemm);
    CHECK(fabs(p.comm_ms - 4 * c) < 1e-9, "all-reduce %g, want %g", p.comm_ms, 4 * c);
    double t = gemm / 4, want = t + 3 * fmax(t, c) + c;
    CHECK(fabs(p.overlapped_ms - want) < 1e-9 && p.chunks == 4, "pipeline %g, want %g", p.overlapped_ms, want);
    CHECK(fabs(p.sequential_ms - gemm - 4 * c) < 1e-9, "sequential %g", p.sequential_ms);
    /* column, 2 GPUs: the own shard, then the other when it has landed */
    p = tp_predict(TP_COLUMN, 1000, 1000, 1000, 0, &mc);
    double g2 = 2.0 * 1e9 / 2 / 1e9, shard = 1000.0 * 1000 * 2 / 2 / 100e6;
    CHECK(fabs(p.overlapped_ms - (fmax(g2 / 2, shard) + g2 / 2)) < 1e-9, "column %g", p.overlapped_ms);
    /* two hosts: the far shard crosses the network, slower than NVLink */
    mc.gpus = 4, mc.hosts = 2;
    tp_prediction far = tp_predict(TP_COLUMN, 1000, 1000, 1000, 0, &mc);
    CHECK(far.comm_ms > p.comm_ms, "the network should cost more: %g vs %g", far.comm_ms, p.comm_ms);
    /* chunks 0: the best pipeline of 2 .. 64 chunks is no worse than 8 */
    mc.gpus = 8, mc.hosts = 1, mc.link_us = 5;
    CHECK(tp_predict(TP_ROW, 8192, 8192, 16384, 0, &mc).overlapped_ms <= tp_predict(TP_ROW, 8192, 8192, 16384, 8, &mc).overlapped_ms,
          "the best chunking");
}

/* the chunks of C: `--chunk-rows` text, its checks, where each chunk starts, and the model's
 * pipeline of unequal chunks against a hand-computed case */
static void chunks(void)
{
    int64_t rows[TP_MAX_CHUNKS];
    int n = 0;
    char why[256], text[128];
    CHECK(tp_chunks_parse("2048x2,1024x2,512x4", rows, &n, why, sizeof why) && n == 8 && rows[1] == 2048 &&
              rows[2] == 1024 && rows[7] == 512, "halving: %d chunks", n);
    CHECK(tp_chunk_start(rows, 5) == 2 * 2048 + 2 * 1024 + 512, "chunk 5 starts at %lld", (long long)tp_chunk_start(rows, 5));
    tp_chunks_text(rows, n, text, sizeof text);
    CHECK(!strcmp(text, "2048x2,1024x2,512x4"), "as text: %s", text);
    CHECK(tp_chunks_check(rows, n, 8192, 256, why, sizeof why), "8192 rows in 256-row tiles: %s", why);
    CHECK(!tp_chunks_check(rows, n, 8192, 1024, why, sizeof why) && strstr(why, "chunk 4's 512 rows"), "1024-row tiles: %s", why);
    CHECK(!tp_chunks_check(rows, n, 16384, 256, why, sizeof why) && strstr(why, "8192 rows, C 16384"), "M 16384: %s", why);
    /* the default: halving toward the end where M / 16 is whole tiles */
    int64_t h[TP_MAX_CHUNKS];
    int hn = 0;
    CHECK(tp_chunks_halving(8192, 256, h, &hn) && hn == 8, "halving 8192: %d chunks", hn);
    tp_chunks_text(h, hn, text, sizeof text);
    CHECK(!strcmp(text, "2048x2,1024x2,512x4"), "halving 8192: %s", text);
    CHECK(tp_chunks_check(h, hn, 8192, 256, why, sizeof why), "halving 8192: %s", why);
    CHECK(!tp_chunks_halving(8192, 1024, h, &hn) && !tp_chunks_halving(1000, 1, h, &hn), "halving where it is not whole");
    const char *bad[] = {"", "1024x3", "1024,", "0x2", "1024x", "1024y2", "1x65", "99999999999999999999x2"};
    for (int i = 0; i < 8; i++)
        CHECK(!tp_chunks_parse(bad[i], rows, &n, why, sizeof why) && strstr(why, "--chunk-rows"), "\"%s\" taken", bad[i]);
    /* the Hopper plan's 128 x 256 tile: 128 rows of C, 256 where the GEMMs run as C^T = B A^T;
     * a 2x1 cluster doubles the rows along M */
    cute_gemm_tiling t = {.cluster_m = 2, .cluster_n = 1};
    CHECK(tp_tile_rows(&t, false) == 256 && tp_tile_rows(&t, true) == 256, "2x1: %lld / %lld",
          (long long)tp_tile_rows(&t, false), (long long)tp_tile_rows(&t, true));
    t = (cute_gemm_tiling){.bm = 192, .bn = 192, .cluster_n = 2};
    CHECK(tp_tile_rows(&t, false) == 192 && tp_tile_rows(&t, true) == 384, "192 x 192 1x2");
    /* ping-pong's default tile is 128 x 128 (the plan's, through cute_gemm_hopper_tile) */
    t = (cute_gemm_tiling){.schedule = CUTE_GEMM_SCHEDULE_PINGPONG};
    CHECK(tp_tile_rows(&t, false) == 128 && tp_tile_rows(&t, true) == 128, "ping-pong: %lld / %lld",
          (long long)tp_tile_rows(&t, false), (long long)tp_tile_rows(&t, true));
    /* 2 GPUs, M = N = 1000, K = 2000 at 1 TFLOP/s: 2 ms of GEMM a GPU; chunks of 500, 300, 100
     * and 100 rows: GEMMs of 1, 0.6, 0.2, 0.2 ms; a chunk's all-reduce is its bytes (rows x
     * 1000 x 2) at 100 GB/s plus 2 x 1 us (each GPU sends half, twice) */
    tp_machine mc = {.gpus = 2, .hosts = 1, .tflops = 1, .link_gbs = 100, .link_us = 1, .net_gbs = 10, .slowdown = 1};
    int64_t r4[4] = {500, 300, 100, 100};
    double c[4], g[4] = {1, 0.6, 0.2, 0.2}, ended = 0, reduced = 0;
    for (int j = 0; j < 4; j++) c[j] = r4[j] * 1000 * 2 / 100e6 + 2e-3;
    for (int j = 0; j < 4; j++) ended += g[j], reduced = fmax(reduced, ended) + c[j];
    double o = tp_predict_rows(1000, 1000, 2000, 4, r4, &mc);
    CHECK(fabs(o - reduced) < 1e-9 && fabs(o - (2.0 + c[3])) < 1e-9, "unequal chunks %g, want %g", o, reduced);
    int64_t eq[4] = {250, 250, 250, 250};
    double t4 = 0.5, c4 = 250 * 1000 * 2 / 100e6 + 2e-3;
    CHECK(fabs(tp_predict_rows(1000, 1000, 2000, 4, eq, &mc) - (t4 + 3 * fmax(t4, c4) + c4)) < 1e-9, "equal chunks");
}

/* the overlapped GEMMs' tiling: the library's pick for the whole local GEMM (8192^3 bf16 a
 * rank: 2x1 clusters, the whole tile's store), the fused schedule's without the cluster, fp8
 * (hopper_auto.c's per_tensor_fp8 row: the whole tile's store alone), the given options on
 * top, and none without library */
static void pieces(void)
{
    static const cute_gemm_tiling none;
    tp_group g = {.mode = TP_ROW, .n = 2, .m = 8192, .nn = 8192, .k = 16384, .in = CUTE_BF16, .chunks = 8};
    cute_gemm_tiling t = tp_pieces_tiling(&g, true, &none);
    CHECK(t.cluster_m == 2 && t.cluster_n == 1 && t.c_store == CUTE_GEMM_STORE_TILE, "row: cluster %dx%d store %d",
          t.cluster_m, t.cluster_n, t.c_store);
    g.swap = true;
    t = tp_pieces_tiling(&g, true, &none);
    CHECK(t.cluster_m == 2 && t.c_store == CUTE_GEMM_STORE_TILE, "row, C column-major: cluster %dx%d", t.cluster_m,
          t.cluster_n);
    g.fused = g.flags = true;
    t = tp_pieces_tiling(&g, true, &none);
    CHECK(t.cluster_m == 0 && t.cluster_n == 0 && t.c_store == CUTE_GEMM_STORE_TILE, "fused: cluster %dx%d store %d",
          t.cluster_m, t.cluster_n, t.c_store);
    cute_gemm_tiling given = {.cluster_m = 2, .cluster_n = 1, .raster = 4};
    t = tp_pieces_tiling(&g, true, &given);
    CHECK(t.cluster_m == 2 && t.raster == 4 && t.c_store == CUTE_GEMM_STORE_TILE, "fused, --cluster 2x1 --raster 4");
    t = tp_pieces_tiling(&g, false, &none);
    CHECK(!memcmp(&t, &none, sizeof t), "plan: a tiling set");
    t = tp_pieces_tiling(&g, false, &given);
    CHECK(t.cluster_m == 2 && t.raster == 4 && t.c_store == CUTE_GEMM_STORE_AUTO, "plan, --cluster 2x1 --raster 4");
    g.in = CUTE_E4M3, g.fused = false;
    t = tp_pieces_tiling(&g, true, &none);
    CHECK(t.cluster_m == 0 && t.cluster_n == 0 && t.c_store == CUTE_GEMM_STORE_TILE && t.bm == 0,
          "fp8: the whole tile alone (cluster %dx%d store %d)", t.cluster_m, t.cluster_n, t.c_store);
    /* column: the whole local GEMM is (M, N / 2, K) = 8192 x 4096 x 8192, 2x1 there too */
    tp_group c = {.mode = TP_COLUMN, .n = 2, .m = 8192, .nn = 8192, .k = 8192, .in = CUTE_BF16, .chunks = 1};
    t = tp_pieces_tiling(&c, true, &none);
    CHECK(t.cluster_m == 2 && t.c_store == CUTE_GEMM_STORE_TILE, "column: cluster %dx%d", t.cluster_m, t.cluster_n);
}

int main(void)
{
    int js[] = {2, 4, 6, 8, 16, 64};
    for (int i = 0; i < 6; i++) row_order(js[i]);
    model();
    chunks();
    pieces();
    return CHECK_DONE("tp_test");
}
