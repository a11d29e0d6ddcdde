/* The Hopper kernel's tiling by shape class, where the caller set none (cutec_gemm's AUTO and
 * `--variant hopper` without tiling options; a tuned entry of the tuning file comes first,
 * lib.c): the first row whose bounds the call's M, N and K meet; no row, the plan's defaults
 * (hopper_plan.c: cooperative 128 x 256, TMA stores piece by piece, 1x1, stages as shared
 * memory holds).  Each row cites its measurement (bench/RESULTS.md, H200, cuBLAS in the same
 * process); scripts/device-hop19.sh measures the candidates. */
#include <stdint.h>

#include "kernels/gemm/gemm_internal.h"

/* Stream-K (`--schedule streamk`: its whole tiles the cooperative kernel's code, the last
 * partial wave and the full wave before it in runs of k-tiles, streamk.c) takes no row here:
 * H200, 2026-11-27 (hop20, two passes), % of cuBLAS in the same process, stream-K 1x1 against
 * the row's kernel: 4096^3 94.2 / 99.4 and 95.2 / 100.75, 8192^3 101.2 / 100.4 and 101.9 /
 * 101.6, 8192x4096x14336 94.2 / 99.2, 2048^3 (no runs) 93.7 / 97.4 (scripts/device-hop20.sh). */
static const struct {
    int64_t k_up_to; /* K at most this */
    int64_t mn_from; /* M N at least this */
    int64_t mn_up_to; /* M N at most this */
    int64_t side_from; /* M and N each at least this */
    cute_gemm_tiling t;
    bool many; /* the many-tiles row (192 x 192 may take its place: fills_192) */
} by_shape[] = {
    /* short K (8 k-tiles of 64 or fewer): a tile's epilogue weighs against its main loop, and
     * ping-pong runs one warpgroup's epilogue under the other's wgmmas.  8192x8192x512, H200,
     * 2026-11-27 13:38 UTC, cuBLAS 641.4 in the same process: ping-pong 658.4 TFLOP/s (102.6%),
     * the cooperative kernel with the whole tile's store 639.5 (99.7%) */
    {512, 0, INT64_MAX, 0, {.schedule = CUTE_GEMM_SCHEDULE_PINGPONG}, false},
    /* K up to 1024 (16 k-tiles): the cooperative kernel, the whole tile's store, no cluster.
     * 8192x8192x1024, H200, 2026-11-27 13:07 UTC (20f2b12), cuBLAS 699.9 in the same process:
     * cooperative 1x1 712.8 TFLOP/s (101.8%), 2x1 709.1, ping-pong 1x1 700.0, 2x1 689.8; session
     * 31 (hop18) likewise, cooperative 1x1 104.4 / 102.1% of cuBLAS.  (Before this row, the 2x1
     * row below would take 8192x8192x1024.) */
    {1024, 0, INT64_MAX, 0, {.c_store = CUTE_GEMM_STORE_TILE}, false},
    /* one wave (M N up to 2048 x 2048: 128 tiles of 128 x 256 or fewer on 132 SMs), longer K:
     * TMA stores from two buffers a warpgroup and 4 stages, not the whole tile and 3 (a block's
     * one tile has no next main loop for the whole tile's stores to run under; its main loop
     * takes the 4th stage).  2048^3, H200, % of cuBLAS in the same process, two buffers against
     * the whole tile: session 31 (hop18) 98.8 / 97.8 and 97.7 / 97.2; 2026-11-27 13:07 UTC
     * 97.8 / 97.1 (660.6 / 655.8 TFLOP/s), 13:37 UTC 97.7 / 97.1 (663.4 / 659.4) */
    {INT64_MAX, 0, 2048 * 2048, 0, {.c_store = CUTE_GEMM_STORE_TMA}, false},
    /* many tiles (1024 of 128 x 256 or more: 8192 x 4096 and up), longer K: clusters of 2
     * along M, B's k-tiles multicast (each SM reads 32 KB of a 48 KB stage from L2), and the
     * whole tile's store.  The card is at its power cap there; a third less traffic from L2 a
     * k-tile is a little less power a flop.  Session 31, hop18's two runs, H200, cuBLAS in the
     * same process, % of cuBLAS 2x1 against 1x1: 8192^3 103.7 / 102.1 and 101.1 / 100.6; the
     * LLM shapes 8192 x {4096 x 14336, 6144 x 4096, 28672 x 4096} 99.3 / 98.8, 98.9 / 99.0,
     * 99.1 / 98.6 and 98.7 / 98.5, 99.0 / 99.0, 99.0 / 98.5.  Fewer tiles lose with it (4096^3
     * 100.8 / 101.1 and 100.6 / 101.1, 2048^3 95.6 / 97.8 and 94.7 / 97.2): the two blocks
     * of a cluster wait for each other's releases.  2026-11-27 13:07 UTC (20f2b12) again, 2x1
     * against 1x1 in TFLOP/s: 8192^3 782.9 / 776.0 (cuBLAS 767.6), 8192x4096x14336 781.4 /
     * 777.6, 8192x6144x4096 765.8 / 763.7; 4096^3 764.4 / 764.9, 2048^3 642.6 / 655.8; 13:37
     * UTC 8192^3 820.9 / 817.6 (cuBLAS 802.5), 4096^3 799.8 / 804.6, 2048^3 639.4 / 658.2.  (Both
     * sides 4096 or more: every shape measured; a thin C would leave a cluster's second block
     * without tiles.) */
    {INT64_MAX, 8192 * 4096, INT64_MAX, 4096, {.c_store = CUTE_GEMM_STORE_TILE, .cluster_m = 2, .cluster_n = 1}, true},
    /* longer K: the whole tile before its TMA stores (one barrier a tile, no wait for a store's
     * read, a stage fewer).  4096^3, session 28's mid pass: 800.0 TFLOP/s = 99.8% of cuBLAS
     * against 790.2 (98.5%) piece by piece, the same process */
    {INT64_MAX, 0, INT64_MAX, 0, {.c_store = CUTE_GEMM_STORE_TILE}, false},
};

/* In the many-tiles row: 192 x 192 tiles by three consumer warpgroups in 1x2 clusters (cuBLAS
 * 13.1's own tile and cluster at 8192x28672x4096, by its cuBLASLt log) where their rounds on
 * the card, each 9/8 of a 128 x 256 round's work, take no more than 1% past the 2x1 128 x 256
 * tiles' (132 SMs, 66 cluster slots; what every row here was measured on).  H200, 2026-11-27
 * 22:06 UTC (scripts/device-hop22.sh), % of cuBLAS in the same process, 192 x 192 1x2 against
 * 128 x 256 2x1: 8192x28672x4096 (49 rounds x 9/8 = 55.1 against 55) 100.1, 99.6, 101.6 against
 * 97.9, 99.3 (100.0 in a third process); where the count says worse it was: 8192x6144x4096
 * (11 x 9/8 against 12) 98.0, 99.4 against 99.5, 101.2; 8192^3 (15 against 16) 96.9, 97.3
 * against 101.4, 102.6; 8192x4096x14336 (8 against 8) 90.9, 89.7 against 100.0, 99.1; 4096^3
 * 92.2, 92.5 against 100.7, 100.9.  The flip: by_count_192. */
static const bool by_count_192 = true;
enum { CARD_SMS = 132 };

/* rounds of bm x bn tiles in clusters of cm x cn on CARD_SMS SMs */
static int64_t rounds(const int64_t mnk[3], int64_t bm, int64_t bn, int64_t cm, int64_t cn)
{
    int64_t tm = (mnk[0] + bm - 1) / bm, tn = (mnk[1] + bn - 1) / bn;
    int64_t clusters = (tm + cm - 1) / cm * ((tn + cn - 1) / cn), slots = CARD_SMS / (cm * cn);
    return (clusters + slots - 1) / slots;
}

static bool fills_192(const int64_t mnk[3])
{
    return by_count_192 && rounds(mnk, 192, 192, 1, 2) * 9 * 100 <= rounds(mnk, 128, 256, 2, 1) * 8 * 101;
}

/* the rows were measured on plain 16-bit GEMMs: fp8 (but block_scaled's and per_tensor_fp8's
 * own rows), an f32 C (ping-pong stores it from the accumulators), the dual GEMM and the peer
 * kernels' flags and mirror (cooperative only; hopper_peer.c) keep the plan's defaults */
static bool measured_class(const cute_gemm_config *cfg)
{
    bool sixteen = cfg->dtype == CUTE_BF16 || cfg->dtype == CUTE_F16;
    return sixteen && cute_dtype_bytes(cute_gemm_c_dtype(cfg)) == 2 && !cfg->dual && cfg->scale == CUTE_GEMM_SCALE_NONE &&
           !cfg->peer_flags && !cfg->peer_mirror;
}

/* few columns of B, the same product mirrored (the weight as A, M past 128, and the decoding
 * batch's tokens as B, N = 8 to 128: the skinny GEMM of issue 17 as cutec_gemm and
 * cutec_gemv_vectors get it): tiles of 64 rows of A by 16, 32, 64 or 128 of B (M / 64 tiles fill
 * the card, as N / 64 do above).  H200, 8192xNx8192 bf16 against cuBLAS in one process, % of the
 * copy of A, B and C; session 41's mid pass: N = 64 64x64 0.0358 ms (106.8% of cuBLAS, 93.0% of
 * the copy; the GEMV kernels' mma.sync form 0.0682, 48.8%; in 2x1 clusters 0.0359), N = 128
 * 64x128 0.0397 (96.4%; 85.2 of the copy; the GEMV form 0.1267), N = 32 64x32 0.0352 (102.4%;
 * 64x64 0.0451, the GEMV form 0.0476); its final pass: N = 16 64x16 0.0351 (101.1%) against the
 * GEMV ring's 0.0393, N = 8 0.0346 (102.7%) against 0.0371; N = 128 in 128x64 0.0398, in 64x128
 * 2x1 0.0406 */
static bool few_columns(const int64_t mnk[3], cute_gemm_tiling *t)
{
    if (mnk[1] < CUTE_GEMM_FEW_COLUMNS_FROM || mnk[1] > 128 || mnk[0] <= 128) return false;
    int64_t n = mnk[1];
    *t = (cute_gemm_tiling){.bm = 64, .bn = n <= 16 ? 16 : n <= 32 ? 32 : n <= 64 ? 64 : 128, .bk = 64};
    return true;
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

/* the skinny GEMM's tiles on the Hopper kernel: few rows, or few columns */
static bool few_rows_or_columns(const int64_t mnk[3], cute_gemm_tiling *t)
{
    return few_rows(mnk, t) || few_columns(mnk, t);
}

/* an operand as the Hopper kernel's TMA takes it: rank 2, a mode of unit stride, the start,
 * the other stride and the unit-stride extent 16-byte aligned (it refuses anything else, and
 * then AUTO would go on to the SM80 kernels, not the GEMV kernels that take such a call) */
static bool tma_able(const cute_call_arg *t)
{
    int64_t es = cute_dtype_bytes((cute_dtype)t->dtype);
    int unit = t->stride[1] == 1 ? 1 : t->stride[0] == 1 ? 0 : -1;
    return t->ndim == 2 && unit >= 0 && t->offset % 16 == 0 && t->stride[1 - unit] * es % 16 == 0 &&
           t->shape[unit] * es % 16 == 0;
}

bool gemm_few_rows_to_hopper(cute_runtime *rt, const cute_call_arg *A, const cute_call_arg *B,
                             const cute_call_arg *C)
{
    cute_gemm_config cfg = {.dtype = (cute_dtype)A->dtype, .c_dtype = (cute_dtype)C->dtype};
    cute_gemm_tiling t;
    return cute_runtime_target_arch(rt) == 90 && measured_class(&cfg) && tma_able(A) && tma_able(B) && tma_able(C) &&
           few_rows_or_columns((int64_t[]){A->shape[0], B->shape[0], A->shape[1]}, &t);
}

/* fp8 block scales (1x128 A, 128x128 B; e4m3 or e5m2, a 16-bit C): 128 x 128 tiles, in clusters
 * of 2 along M (B's tile multicast to both) where M has two row tiles or more.  H200, 2026-11-27
 * 13:07 UTC (20f2b12, explicit tiles in one process, torch._scaled_mm 1,236 at the first shape):
 * 4096x7168x16384 128 x 128 1,115.6 TFLOP/s 1x1, 1,142.5 2x1; 128 x 160 1,089.4 / 1,103.1;
 * 4096x4096x16384 128 x 128 1,117.6 / 1,136.9, 128 x 160 993.8 / 999.5; the table's pick then
 * (128 x 160 2x1 at 4096x7168) 1,097.0.  That refutes the rule this replaced (128 x 160 where its
 * waves on 132 SMs take less time, a 160-wide k-tile costing 160 / 128 / 1.07 of a 128-wide
 * one, from session 31's 128 x 160 1,114 / 1,128 against 128 x 128 1,022 / 1,001): the 128 x 128
 * loop has gained since, and 160's fewer waves do not make up for its slower k-tile.  128 wide
 * leaves by the TMA-store epilogue, so amax, an output scale and fused epilogues take the same
 * tile. */
static bool block_scaled(const cute_gemm_config *cfg, const int64_t mnk[3], cute_gemm_tiling *t)
{
    bool fp8 = cfg->dtype == CUTE_E4M3 || cfg->dtype == CUTE_E5M2;
    if (cfg->scale != CUTE_GEMM_SCALE_BLOCK || !fp8 || cfg->dual || cute_dtype_bytes(cute_gemm_c_dtype(cfg)) != 2)
        return false;
    /* 256 x 128 in 1x2 clusters where M has rows for it (the consumers' 240 registers, own rows:
     * H200, 2026-11-27, 4096x7168x16384 1,235.5 TFLOP/s = 86.2% of cuBLASLt against 128 x 128
     * 2x1's 1,177, torch._scaled_mm 1,183; device-fp8i.sh, deleted since); else 128 x 128 in 2x1.
     * (128 x 256 2x1 with A from registers, and 256 x 128 in 2x2 clusters, ran 4-10% behind
     * 256 x 128 1x2 on an H200: bench/RESULTS.md, dec-fp8's section.) */
    if (mnk[0] >= 1024) {
        *t = (cute_gemm_tiling){.bm = 256, .bn = 128, .cluster_m = 1, .cluster_n = mnk[1] > 128 ? 2 : 1};
        return true;
    }
    int cm = mnk[0] > 128 ? 2 : 1; /* (one row tile: the cluster's second block would have none) */
    *t = (cute_gemm_tiling){.bm = 128, .bn = 128, .cluster_m = cm, .cluster_n = 1};
    return true;
}

/* fp8 with per-tensor scales or none (e4m3 or e5m2, a 16-bit C), many tiles (the bf16 row's
 * bounds: M N 8192 x 4096 and up, both sides 4096 or more), K past 1024: C's whole tile before
 * its TMA stores (--store tile: one wait and four barriers a tile, the stores under the next
 * main loop, 3 stages of 48 KB), else the plan's defaults (128 x 256, 1x1, C by TMA piece by
 * piece, 4 stages).  H200, 8192^3, % of cuBLASLt in one process, the whole tile against piece
 * by piece, 128 x 256 1x1 (scripts/device-bs43.sh): 2026-11-28 18:47 UTC 105.8 / 105.0 and
 * 109.6 / 108.8 (the reverse order); 19:05 UTC, three processes in alternating order, 1,544.9
 * / 1,527.4, 1,542.3 / 1,538.8 and 1,559.3 / 1,535.7 TFLOP/s (+1.20, +0.30, +1.60 points).
 * 4096^3 (512 tiles) level there (1,494.2 / 1,499.7, 1,497.3 / 1,497.4, 1,496.4 / 1,496.2),
 * so it keeps the defaults.  Confirmed 19:37 UTC, the library's call against `--store tma`
 * in one process, two processes: 1,565.2 / 1,493.4 (116.6% of torch._scaled_mm's 1,342.6)
 * and 1,557.1 / 1,553.0. */
static bool per_tensor_fp8(const cute_gemm_config *cfg, const int64_t mnk[3], cute_gemm_tiling *t)
{
    bool fp8 = cfg->dtype == CUTE_E4M3 || cfg->dtype == CUTE_E5M2;
    if (!fp8 || cfg->scale == CUTE_GEMM_SCALE_BLOCK || cfg->dual || cfg->peer_flags || cfg->peer_mirror ||
        cute_dtype_bytes(cute_gemm_c_dtype(cfg)) != 2)
        return false;
    if (mnk[2] <= 1024 || mnk[0] * mnk[1] < 8192 * 4096 || mnk[0] < 4096 || mnk[1] < 4096) return false;
    *t = (cute_gemm_tiling){.c_store = CUTE_GEMM_STORE_TILE};
    return true;
}

cute_gemm_tiling gemm_hopper_auto_tiling(const cute_gemm_config *cfg, const int64_t mnk[3])
{
    static const cute_gemm_tiling none;
    cute_gemm_tiling blocks;
    if (block_scaled(cfg, mnk, &blocks) || per_tensor_fp8(cfg, mnk, &blocks)) return blocks;
    if (!measured_class(cfg)) return none;
    cute_gemm_tiling few;
    if (few_rows_or_columns(mnk, &few)) return few;
    for (size_t i = 0; i < sizeof by_shape / sizeof by_shape[0]; i++)
        if (mnk[2] <= by_shape[i].k_up_to && mnk[0] * mnk[1] >= by_shape[i].mn_from &&
            mnk[0] * mnk[1] <= by_shape[i].mn_up_to && mnk[0] >= by_shape[i].side_from && mnk[1] >= by_shape[i].side_from)
            return by_shape[i].many && fills_192(mnk) ? (cute_gemm_tiling){.bm = 192, .bn = 192, .c_store = CUTE_GEMM_STORE_TILE,
                                                                              .cluster_m = 1, .cluster_n = 2}
                                                       : by_shape[i].t;
    return none;
}
