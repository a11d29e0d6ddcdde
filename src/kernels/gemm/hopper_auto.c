/* The Hopper kernel's tiling by shape class, where the caller set none (cutec_gemm's AUTO and
 * `--variant hopper` without tiling options; a tuned entry of the tuning file comes first,
 * lib.c): the first row whose bounds the call's M, N and K meet; no row, the plan's defaults
 * (hopper_plan.c: cooperative 128 x 256, TMA stores piece by piece, 1x1, stages as shared
 * memory holds).  Each row cites its measurement (bench/RESULTS.md, H200, cuBLAS in the same
 * process); scripts/device-hop16.sh measures the candidates. */
#include <stdint.h>

#include "kernels/gemm/gemm_internal.h"

static const struct {
    int64_t k_up_to; /* K at most this */
    int64_t mn_from; /* M N at least this */
    int64_t side_from; /* M and N each at least this */
    cute_gemm_tiling t;
} by_shape[] = {
    /* short K (16 k-tiles of 64 or fewer): a tile's epilogue weighs against its main loop.
     * 8192x8192x1024, session 27's final pass: ping-pong 128 x 128 744.3 TFLOP/s = 102.3% of
     * cuBLAS against the cooperative kernel's 728.7 (100.1%): one warpgroup's epilogue runs
     * under the other's wgmmas */
    {1024, 0, 0, {.schedule = CUTE_GEMM_SCHEDULE_PINGPONG}},
    /* many tiles (1024 of 128 x 256 or more: 8192 x 4096 and up), longer K: clusters of 2
     * along M, B's k-tiles multicast (each SM reads 32 KB of a 48 KB stage from L2), and the
     * whole tile's store.  The card is at its power cap there; a third less traffic from L2 a
     * k-tile is a little less power a flop.  Session 31, hop18's two runs, H200, cuBLAS in the
     * same process, % of cuBLAS 2x1 against 1x1: 8192^3 103.7 / 102.1 and 101.1 / 100.6; the
     * LLM shapes 8192 x {4096 x 14336, 6144 x 4096, 28672 x 4096} 99.3 / 98.8, 98.9 / 99.0,
     * 99.1 / 98.6 and 98.7 / 98.5, 99.0 / 99.0, 99.0 / 98.5.  Fewer tiles lose with it (4096^3
     * 100.8 / 101.1 and 100.6 / 101.1, 2048^3 95.6 / 97.8 and 94.7 / 97.2): the two blocks
     * of a cluster wait for each other's releases.  (Both sides 4096 or more: every shape
     * measured; a thin C would leave a cluster's second block without tiles.) */
    {INT64_MAX, 8192 * 4096, 4096, {.c_store = CUTE_GEMM_STORE_TILE, .cluster_m = 2, .cluster_n = 1}},
    /* longer K: the whole tile before its TMA stores (one barrier a tile, no wait for a store's
     * read, a stage fewer).  4096^3, session 28's mid pass: 800.0 TFLOP/s = 99.8% of cuBLAS
     * against 790.2 (98.5%) piece by piece, the same process */
    {INT64_MAX, 0, 0, {.c_store = CUTE_GEMM_STORE_TILE}},
};

/* the rows were measured on plain 16-bit GEMMs: fp8, an f32 C (ping-pong stores it from the
 * accumulators), the dual GEMM, block scales and the peer kernels' flags and mirror
 * (cooperative only; hopper_peer.c) keep the plan's defaults */
static bool measured_class(const cute_gemm_config *cfg)
{
    bool sixteen = cfg->dtype == CUTE_BF16 || cfg->dtype == CUTE_F16;
    return sixteen && cute_dtype_bytes(cute_gemm_c_dtype(cfg)) == 2 && !cfg->dual && cfg->scale == CUTE_GEMM_SCALE_NONE &&
           !cfg->peer_flags && !cfg->peer_mirror;
}

/* few rows of A (the tokens of a decoding batch against a weight, M = 32 to 128): tiles of
 * 64 rows up to 64, 128 past, 64 columns (N / 64 tiles fill the card).  H200, session 28's
 * final pass, N = K = 8192 against cuBLAS in one process: M = 32 64x64 0.0461 ms (77.6% of
 * cuBLAS; 128x64 0.0729), M = 64 64x64 0.0372 (103.6%; 128x64 0.0691), M = 128 128x64
 * 0.0414 (93.3%; 64x64 0.0519) */
static bool few_rows(const int64_t mnk[3], cute_gemm_tiling *t)
{
    if (mnk[0] < CUTE_GEMM_FEW_ROWS_FROM || mnk[0] > 128 || mnk[1] <= 128) return false;
    *t = (cute_gemm_tiling){.bm = mnk[0] <= 64 ? 64 : 128, .bn = 64, .bk = 64};
    return true;
}

bool gemm_few_rows_to_hopper(cute_runtime *rt, const cute_call_arg *A, const cute_call_arg *B,
                             const cute_call_arg *C)
{
    cute_gemm_config cfg = {.dtype = (cute_dtype)A->dtype, .c_dtype = (cute_dtype)C->dtype};
    cute_gemm_tiling t;
    return cute_runtime_target_arch(rt) == 90 && measured_class(&cfg) &&
           few_rows((int64_t[]){A->shape[0], B->shape[0], A->shape[1]}, &t);
}

/* fp8 block scales (1x128 A, 128x128 B; e4m3 or e5m2, a 16-bit C): 128 x 160 tiles in 2x1
 * clusters where they take less time than 128 x 128 ones by the waves they make on 132 SMs,
 * a 160-wide tile's k-tile costing 160 / 128 / 1.07 of a 128-wide one's, and the call has no
 * amax, output scale or fused epilogue; else 128 x 128 in no cluster.  H200, 4096x7168x16384 (session 31, torch._scaled_mm 1,239 in the same process):
 * 128 x 160 1,113.7 TFLOP/s 1x1, 1,127.5 2x1 (11 waves of 1,440 tiles); 128 x 128 1,021.7 1x1,
 * 1,000.7 2x1 (14 waves of 1,792); session 30's final pass 1,111.7 / 1,122.5 against
 * 1,017-1,025.  From those, 128 x 160's k-tile ran 1.07 times 128 x 128's columns a cycle. */
enum { SMS = 132 };

static int64_t waves(const int64_t mnk[3], int64_t bn)
{
    int64_t tiles = (mnk[0] + 127) / 128 * ((mnk[1] + bn - 1) / bn);
    return (tiles + SMS - 1) / SMS;
}

static bool block_scaled(const cute_gemm_config *cfg, const int64_t mnk[3], cute_gemm_tiling *t)
{
    bool fp8 = cfg->dtype == CUTE_E4M3 || cfg->dtype == CUTE_E5M2;
    if (cfg->scale != CUTE_GEMM_SCALE_BLOCK || !fp8 || cfg->dual || cute_dtype_bytes(cute_gemm_c_dtype(cfg)) != 2)
        return false;
    /* time a wave: bn / 1.07 for 160, 128 for 128 (x 100 in integers); 160's C is not whole
     * 64-column boxes, so it leaves by stores from registers, which take no amax, output
     * scale or fused epilogue (those keep 128) */
    bool stores = !cfg->amax && !cfg->out_scale && !cute_gemm_epilogue_fused(&cfg->epilogue);
    bool wide = stores && mnk[1] > 128 && waves(mnk, 160) * 160 * 100 < waves(mnk, 128) * 128 * 107;
    *t = wide ? (cute_gemm_tiling){.bm = 128, .bn = 160, .cluster_m = 2, .cluster_n = 1}
              : (cute_gemm_tiling){.bm = 128, .bn = 128, .cluster_m = 1, .cluster_n = 1};
    return true;
}

cute_gemm_tiling gemm_hopper_auto_tiling(const cute_gemm_config *cfg, const int64_t mnk[3])
{
    static const cute_gemm_tiling none;
    cute_gemm_tiling blocks;
    if (block_scaled(cfg, mnk, &blocks)) return blocks;
    if (!measured_class(cfg)) return none;
    cute_gemm_tiling few;
    if (few_rows(mnk, &few)) return few;
    for (size_t i = 0; i < sizeof by_shape / sizeof by_shape[0]; i++)
        if (mnk[2] <= by_shape[i].k_up_to && mnk[0] * mnk[1] >= by_shape[i].mn_from &&
            mnk[0] >= by_shape[i].side_from && mnk[1] >= by_shape[i].side_from)
            return by_shape[i].t;
    return none;
}
