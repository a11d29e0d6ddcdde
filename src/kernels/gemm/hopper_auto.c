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
    cute_gemm_tiling t;
} by_shape[] = {
    /* short K (16 k-tiles of 64 or fewer): a tile's epilogue weighs against its main loop.
     * 8192x8192x1024, session 27's final pass: ping-pong 128 x 128 744.3 TFLOP/s = 102.3% of
     * cuBLAS against the cooperative kernel's 728.7 (100.1%): one warpgroup's epilogue runs
     * under the other's wgmmas */
    {1024, {.schedule = CUTE_GEMM_SCHEDULE_PINGPONG}},
    /* longer K: the whole tile before its TMA stores (one barrier a tile, no wait for a store's
     * read, a stage fewer).  4096^3, session 28's mid pass: 800.0 TFLOP/s = 99.8% of cuBLAS
     * against 790.2 (98.5%) piece by piece, the same process */
    {INT64_MAX, {.c_store = CUTE_GEMM_STORE_TILE}},
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

cute_gemm_tiling gemm_hopper_auto_tiling(const cute_gemm_config *cfg, const int64_t mnk[3])
{
    static const cute_gemm_tiling none;
    if (!measured_class(cfg)) return none;
    for (size_t i = 0; i < sizeof by_shape / sizeof by_shape[0]; i++)
        if (mnk[2] <= by_shape[i].k_up_to) return by_shape[i].t;
    return none;
}
