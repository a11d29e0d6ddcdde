/* The plan of the Hopper GEMM (hopper.c), as CuTe DSL's hopper/dense_gemm.py makes it: a
 * 128 x 256 tile of C per block by two consumer warpgroups (64 x 256 each, one wgmma atom
 * SM90_64x256x16 repeated over M), k-tiles of 128 bytes of K (64 16-bit elements: one row
 * of the 128-byte swizzle), as many stages as shared memory holds.
 *
 * Taken: f16 and bf16 inputs (f32 accumulators; C of f16, bf16 or f32), A and B of either
 * major (K-major "TN" the fastest-tested), every pointer and leading dimension 16-byte
 * aligned (what TMA needs), unbatched.
 * The rest is refused here with the reason, and the library's AUTO falls back to the SM80
 * kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/cuda_arch.h"
#include "cutec/notation.h"
#include "cutec/smem_atoms.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/kernel_env.h"

enum { HOPPER_MAX_STAGES = 8 };

static bool takes(cute_alg *a, const cute_gemm_config *cfg, int arch)
{
    if (arch && arch != cute_gemm_variant_arch(CUTE_GEMM_HOPPER))
        return cute_alg_fail(a, "gemm hopper: wgmma and TMA need sm_90 (the target is sm_%d)", arch);
    bool fp8 = cfg->dtype == CUTE_E4M3 || cfg->dtype == CUTE_E5M2;
    if (cfg->dtype != CUTE_BF16 && cfg->dtype != CUTE_F16 && !fp8)
        return cute_alg_fail(a, "gemm hopper: %s inputs (it takes f16, bf16, e4m3 and e5m2)",
                             cute_dtype_name(cfg->dtype));
    if (fp8 && (cfg->major[0] != 1 || cfg->major[1] != 1)) /* wgmma transposes only 16-bit types */
        return cute_alg_fail(a, "gemm hopper: %s operands must be K-major (A %s-major, B %s-major)",
                             cute_dtype_name(cfg->dtype), cfg->major[0] ? "K" : "M", cfg->major[1] ? "K" : "N");
    if (cfg->align_bytes < 16)
        return cute_alg_fail(a, "gemm hopper: TMA needs 16-byte aligned pointers and leading dimensions "
                             "(these are %d-byte aligned)", cfg->align_bytes);
    if (cfg->batched) return cute_alg_fail(a, "gemm hopper: batched operands are not taken yet");
    if (cfg->dual && cfg->major[1] != 1) return cute_alg_fail(a, "gemm hopper: the dual GEMM's B0 and B1 must be K-major");
    if (cfg->scale != CUTE_GEMM_SCALE_NONE && (!fp8 || cfg->dual))
        return cute_alg_fail(a, "gemm hopper: %s scales take e4m3 or e5m2 inputs, not the dual GEMM (%s inputs%s)",
                             cute_gemm_scale_name(cfg->scale), cute_dtype_name(cfg->dtype), cfg->dual ? ", dual" : "");
    return true;
}

static bool power_of_2_upto(int x, int most) { return x >= 1 && x <= most && !(x & (x - 1)); }

/* cooperative (both consumer warpgroups on one tile) or ping-pong (one tile each) */
static bool schedule(cute_alg *a, const cute_gemm_config *cfg, gemm_plan *p)
{
    int s = cfg->tiling.schedule;
    if (s < CUTE_GEMM_SCHEDULE_AUTO || s > CUTE_GEMM_SCHEDULE_STREAMK || s == CUTE_GEMM_SCHEDULE_PERSISTENT)
        return cute_alg_fail(a, "gemm hopper: schedule %d (CUTE_GEMM_SCHEDULE_COOP, _PINGPONG or _STREAMK, 0: the "
                             "library's%s)", s,
                             s == CUTE_GEMM_SCHEDULE_PERSISTENT ? "; PERSISTENT is the SM80 kernels', this one always is" : "");
    p->pingpong = s == CUTE_GEMM_SCHEDULE_PINGPONG;
    p->streamk = s == CUTE_GEMM_SCHEDULE_STREAMK;
    if (p->streamk && (cfg->dual || cfg->scale != CUTE_GEMM_SCALE_NONE || cfg->peer_flags))
        return cute_alg_fail(a, "gemm hopper: stream-K runs plain and fused-epilogue GEMMs (not %s)",
                             cfg->dual ? "the dual GEMM" : cfg->peer_flags ? "flags between GPUs" : "fp8 scales");
    if (p->pingpong && cfg->dual) /* its epilogue's halves of N: untried */
        return cute_alg_fail(a, "gemm hopper: the dual GEMM runs in the cooperative schedule (ping-pong asked)");
    if (p->pingpong && cfg->scale == CUTE_GEMM_SCALE_BLOCK) /* its promotions lean on the other warpgroup's wgmma */
        return cute_alg_fail(a, "gemm hopper: fp8 block scales run in the cooperative schedule (ping-pong asked)");
    return true;
}

void cute_gemm_hopper_tile(const cute_gemm_config *cfg, int64_t tile[2], int cluster[2])
{
    const cute_gemm_tiling *t = &cfg->tiling;
    bool block = cfg->scale == CUTE_GEMM_SCALE_BLOCK, pingpong = t->schedule == CUTE_GEMM_SCHEDULE_PINGPONG;
    tile[0] = t->bm ? t->bm : 128, tile[1] = t->bn ? t->bn : block || pingpong ? 128 : 256;
    /* block scales' 128 x 128 tiles load 1.5 times the bytes a flop that 128 x 256 ones do:
     * unless a cluster is asked, two blocks along M share B's tile (TMA multicast), which
     * brings it back to 128 x 256's (chosen by that count, not yet by a measurement) */
    int cm = block && !t->cluster_m && !t->cluster_n ? 2 : 1;
    cluster[0] = t->cluster_m ? t->cluster_m : cm, cluster[1] = t->cluster_n ? t->cluster_n : 1;
}

/* The tile asked for (cute_gemm_tiling; zero fields: cute_gemm_hopper_tile's) and the stages.  C's
 * tile goes through shared memory of its own beside the stages (the persistent kernel's
 * producer fills them with the next tile meanwhile), in parts of N where the whole tile
 * would leave fewer than 3 stages (16-bit C: 64 KB, one part, and 3 stages of 48 KB; f32 C:
 * two parts of 64 KB and 3 stages); where no part leaves 2 stages, or N is not whole 64-column
 * blocks, the accumulators go straight to C and the stages take all the memory. */
static bool tiling(cute_alg *a, const cute_gemm_config *cfg, gemm_plan *p)
{
    const cute_gemm_tiling *t = &cfg->tiling;
    int es = cute_dtype_bytes(cfg->dtype);
    if (!schedule(a, cfg, p)) return false;
    /* block scales: one block of B a tile where N divides 128, two accumulator sets; or 160,
     * 176 or 192 wide in parts of 32, 16 or 64, one set (hopper_blockscale.c) */
    bool block = cfg->scale == CUTE_GEMM_SCALE_BLOCK;
    int64_t tile[2];
    int cluster[2];
    cute_gemm_hopper_tile(cfg, tile, cluster);
    p->bm = tile[0], p->bn = tile[1], p->bk = 128 / es;
    if (block && 128 % p->bn && !((p->bn == 160 || p->bn == 176 || p->bn == 192) && p->bm <= 128))
        return cute_alg_fail(a, "gemm hopper: block scales (one per 128 columns of B) need tiles whose N divides 128, "
                             "or 160, 176 or 192 with bm 128 or less (tile %lldx%lld)", (long long)p->bm, (long long)p->bn);
    /* bm 256: block scales only, two warpgroups each taking two waves of 64 rows (DeepGEMM's
     * BLOCK_M 256: hopper_blockscale.c).  (Plain 256 x 128, cuBLAS's tile at 4096^3 and two LLM
     * shapes, ran 2 to 9 points behind 128 x 256 on an H200, bench/RESULTS.md "hop22".) */
    bool tall = p->bm == 256 && block;
    /* bm 192: three consumer warpgroups of 64 rows, 512 threads at 128 registers, so a
     * warpgroup's accumulators must leave room: bn up to 192 (cuBLAS's 192 x 192 at
     * 8192x28672x4096; 64 x 256's 128 accumulators and operands need 154, ptxas C7602) */
    bool three = p->bm == 192 && !block && !p->pingpong;
    if ((p->bm != 64 && p->bm != 128 && !tall && !three) || p->bn < 16 || p->bn > 256 || p->bn % 16 ||
        (three && p->bn > 192) || (t->bk && t->bk != p->bk))
        return cute_alg_fail(a, "gemm hopper: tile %lldx%lldx%d (bm 64 or 128, 192 cooperative with bn up to 192, 256 "
                             "with block scales; bn a multiple of 16 up to 256, bk %lld)", (long long)p->bm,
                             (long long)p->bn, t->bk, (long long)p->bk);
    if (three && (p->streamk || cfg->dual || cfg->peer_flags || cfg->peer_mirror || cfg->scale != CUTE_GEMM_SCALE_NONE))
        return cute_alg_fail(a, "gemm hopper: 192-row tiles run plain and fused-epilogue 16-bit GEMMs, not %s",
                             p->streamk ? "stream-K" : cfg->dual ? "the dual GEMM"
                                                   : cfg->scale != CUTE_GEMM_SCALE_NONE ? "fp8 scales"
                                                                                        : "the peer kernels");
    if (t->scale_mul < CUTE_GEMM_SCALE_MUL_AUTO || t->scale_mul > CUTE_GEMM_SCALE_MUL_INTERLEAVE)
        return cute_alg_fail(a, "gemm hopper: tiling.scale_mul %d (CUTE_GEMM_SCALE_MUL_AUTO, _PROMOTE, _LOAD, "
                             "_STAGED or _INTERLEAVE)", t->scale_mul);
    if (p->pingpong && p->bm * p->bn > 64 * 256) /* a warpgroup's accumulators: 128 registers a thread */
        return cute_alg_fail(a, "gemm hopper: a ping-pong warpgroup's tile %lldx%lld (at most 64x256 or 128x128: "
                             "each warpgroup holds its whole tile's accumulators)", (long long)p->bm, (long long)p->bn);
    p->cluster_m = cluster[0], p->cluster_n = cluster[1];
    if (!power_of_2_upto(p->cluster_m, 4) || !power_of_2_upto(p->cluster_n, 4) || p->cluster_m * p->cluster_n > 4)
        return cute_alg_fail(a, "gemm hopper: cluster %dx%d (1, 2 or 4 blocks along M and along N, at most 4 in "
                             "all)", t->cluster_m, t->cluster_n);
    if (p->streamk && p->cluster_m * p->cluster_n > 1) /* a unit is one block's run of k-tiles */
        return cute_alg_fail(a, "gemm hopper: stream-K runs without clusters (cluster %dx%d asked)", p->cluster_m,
                             p->cluster_n);
    if (cfg->dual && p->cluster_m * p->cluster_n > 1) /* B's multicast would split B0's and B1's boxes: untried */
        return cute_alg_fail(a, "gemm hopper: the dual GEMM runs without clusters (cluster %dx%d asked)",
                             p->cluster_m, p->cluster_n);
    if (cfg->major[1] == 0 && p->bn % 64)
        return cute_alg_fail(a, "gemm hopper: an N-major B is loaded in boxes of 64 rows: bn %lld must be a "
                             "multiple of 64", (long long)p->bn);
    int64_t stage = (p->bm + p->bn) * p->bk * es,
            room = gemm_smem_room(CUTE_GEMM_HOPPER) - gemm_blockscale_ring_bytes(p);
    /* the TMA-store epilogue's buffers (hopper_store.c), else C's whole tile */
    p->tma_store = gemm_hopper_store_takes(p);
    int64_t c_bytes = p->tma_store ? gemm_hopper_store_bytes(p) : p->bm * p->bn * cute_dtype_bytes(cute_gemm_c_dtype(cfg));
    if (p->pingpong && !p->tma_store) c_bytes = 0; /* C straight from the accumulators */
    /* C's tile in parts of N (whole 64-column blocks) until the stages wanted fit beside one */
    int want = t->stages ? t->stages : 3;
    p->c_parts = 1;
    while (!p->tma_store && (p->bn / (2 * p->c_parts)) % 64 == 0 && (room - c_bytes / p->c_parts) / stage < want)
        p->c_parts *= 2;
    int64_t fit = room / stage, fit_beside_c = (room - c_bytes / p->c_parts) / stage;
    p->smem_epilogue = p->bn % 64 == 0 && (t->stages ? t->stages <= fit_beside_c : fit_beside_c >= 2);
    if (p->pingpong && !p->tma_store) p->smem_epilogue = false; /* a tile of C each in shared memory: untried */
    p->tma_store = p->tma_store && p->smem_epilogue;
    int64_t most = p->smem_epilogue ? fit_beside_c : fit;
    p->stages = t->stages ? t->stages : (int)(most < HOPPER_MAX_STAGES ? most : HOPPER_MAX_STAGES);
    if (p->stages < 2 || p->stages > fit)
        return cute_alg_fail(a, "gemm hopper: %d stages of %lld bytes (2 to %lld fit in shared memory)",
                             p->stages, (long long)stage, (long long)fit);
    return true;
}

/* An operand's stages, (rows, bk, stages), from CuTe's 128-byte GMMA atoms, and the rows of
 * one TMA box of it.  K-major: Layout_K_SW128_Atom (8 rows of 64 16-bit K) repeated over the
 * stage, each mode coalesced: one stage is one box (rows, 64).  M- or N-major: the box can
 * span only the swizzle's 128 bytes of rows, so Layout_MN_SW128_Atom (64 rows x 8 K) is first
 * repeated over a (64, bk) block, one box, and the blocks over the stage: ((64, rows/64),
 * bk, stages), wgmma's MN-major layout with the blocks LBO apart. */
cute_composed gemm_tma_stages(cute_alg *a, cute_dtype d, int major, int64_t rows, int64_t bk, int stages,
                              int64_t *box_rows)
{
    cute_composed atom;
    cute_tuple shape = cute_tuple_fmt(a, "(%lld,%lld,%d)", (long long)rows, (long long)bk, stages);
    cute_tuple by_mode = cute_tuple_parse(a, "(1,1,1)");
    *box_rows = major == 1 ? rows : 64;
    cute_smem_atom_gmma(a, major == 1 ? "Layout_K_SW128_Atom" : "Layout_MN_SW128_Atom", d, &atom);
    if (major != 1) {
        cute_tuple block = cute_tuple_fmt(a, "(64,%lld)", (long long)bk);
        cute_tuple whole = cute_tuple_parse(a, "(1,1)");
        atom = cute_smem_layout_staged(a, &atom, &block);
        atom.layout = cute_coalesce_profile(a, &atom.layout, &whole);
    }
    cute_composed L = cute_smem_layout_staged(a, &atom, &shape);
    if (major == 1) L.layout = cute_coalesce_profile(a, &L.layout, &by_mode);
    return L;
}

/* --store tile asked where its buffers (a piece each) leave too few stages: refused, not
 * quietly stored from the accumulators */
static bool tile_store_fits(cute_alg *a, const gemm_plan *p)
{
    if (p->tma_store || !gemm_hopper_store_takes(p)) return true; /* (the store's plan names a C it cannot take) */
    int64_t stage = (p->bm + p->bn) * p->bk * cute_dtype_bytes(p->cfg.dtype), c = gemm_hopper_store_bytes(p);
    return cute_alg_fail(a, "gemm hopper: --store tile's buffers (%lld KB) leave room for %lld stages of %lld KB (%d "
                         "asked)", (long long)c / 1024, (long long)((gemm_smem_room(CUTE_GEMM_HOPPER) - c) / stage),
                         (long long)stage / 1024, p->stages);
}

/* Who releases a stage to the producer without clusters (CuTe DSL's persistent Hopper GEMM,
 * hopper/dense_gemm_persistent.py, against the library's; CUTEC_GEMM_HOPPER_RELEASE):
 * "thread", every consumer thread (128 arrivals a warpgroup on the stage's empty barrier), or
 * "warp", lane 0 of each warp once the warp's wgmma wait passed (4 a warpgroup, as CuTe DSL's
 * PipelineTmaAsync).  CUTLASS's one thread a warpgroup is not offered: a warp's wait covers
 * only its own wgmmas' reads (the interpreter reports the next TMA load's race with the other
 * warps' reads).  In clusters the pipeline's own rule holds (a warp's lanes release the peer
 * blocks).  Opt-in until timed: scripts/device-hop21.sh decides, the flip is `by_warp`. */
static bool release(cute_alg *a, gemm_plan *p)
{
    static const bool by_warp = false;
    p->warp_release = kernel_env_choice(a, "CUTEC_GEMM_HOPPER_RELEASE", "thread|warp", by_warp) == 1;
    return !a->failed;
}

/* Programmatic dependent launch (CUTEC_GEMM_PDL=1; 0 the plain launch): the next call's grid
 * may start while this one drains (hopper.c: where it waits, where it lets the next one in);
 * "early" lets the next grid in as soon as this one's wait has passed, not after the
 * producer's last loads (the grid is persistent: every block is resident from the start, so
 * the next grid's blocks can only take SMs that this one leaves or never used).  Opt-in
 * until timed: scripts/device-pdl.sh decides, the flip is `by_default`. */
static bool dependent_launch(cute_alg *a, gemm_plan *p)
{
    enum { OFF, ON, EARLY };
    static const int by_default = ON; /* (scripts/device-pdl.sh decided, final pass of 2026-11-27) */
    int e = kernel_env_choice(a, "CUTEC_GEMM_PDL", "0|1|early", by_default);
    p->pdl = e != OFF;
    p->pdl_early = e == EARLY;
    return !a->failed;
}

bool gemm_plan_hopper(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (!takes(a, cfg, arch) || !tiling(a, cfg, p) || !release(a, p) || !dependent_launch(a, p))
        return false;
    p->consumers = p->pingpong ? 2 : p->bm == 192 ? 3 : (int)(p->bm / 64 < 2 ? p->bm / 64 : 2);
    p->threads = 128 * (1 + p->consumers); /* a producer warpgroup, then the consumers */
    char name[64];
    if (cute_dtype_bytes(cfg->dtype) == 1) /* 32 of K an instruction */
        snprintf(name, sizeof name, "SM90_64x%lldx32_F32%s_SS_TN", (long long)p->bn,
                 cfg->dtype == CUTE_E4M3 ? "E4M3E4M3" : "E5M2E5M2");
    else
        snprintf(name, sizeof name, "SM90_64x%lldx16_F32%s_SS", (long long)p->bn,
                 cfg->dtype == CUTE_BF16 ? "BF16BF16" : "F16F16");
    cute_mma_atom atom;
    if (!cute_mma_atom_named(a, name, &atom)) return false;
    /* the consumers' warpgroups down M: warpgroup w computes rows 64 w .. 64 w + 63; ping-pong:
     * one warpgroup the whole tile (the atom repeated over M when bm is 128) */
    cute_layout wgs = cute_layout_fmt(a, "(%d,1,1):(1,0,0)", p->pingpong ? 1 : p->consumers);
    p->mma = cute_make_tiled_mma(a, &atom, &wgs, NULL, NULL, NULL);
    p->smem_a = gemm_tma_stages(a, cfg->dtype, cfg->major[0], p->bm, p->bk, p->stages, &p->box_rows[0]);
    p->smem_b = gemm_tma_stages(a, cfg->dtype, cfg->major[1], p->bn, p->bk, p->stages, &p->box_rows[1]);
    if (cfg->dual) p->box_rows[1] = p->bn / 2; /* B0's half of the stage, then B1's (hopper.c) */
    if ((cute_gemm_epilogue_fused(&cfg->epilogue) || cfg->dual) && !p->tma_store)
        return cute_alg_fail(a, "gemm hopper: a fused epilogue%s runs in the TMA-store epilogue (a 16-bit C, tiles of "
                             "whole 64-column blocks, not --store st, stages that fit beside its buffers)",
                             cfg->dual ? " (the dual GEMM's SwiGLU)" : "");
    if (p->bm > 64 * p->consumers && !p->pingpong && !p->tma_store) /* hopper_epilogue.c: a warpgroup 64 rows */
        return cute_alg_fail(a, "gemm hopper: a %lld-row tile runs in the TMA-store epilogue (a 16-bit C, tiles of "
                             "whole 64-column blocks, not --store st)", (long long)p->bm);
    if ((cfg->out_scale || cfg->amax) && !p->tma_store)
        return cute_alg_fail(a, "gemm hopper: an output scale or amax runs in the TMA-store epilogue (a 16-bit C, "
                             "tiles of whole 64-column blocks, not --store st)");
    int asked = cfg->tiling.c_store;
    bool tma_asked = asked == CUTE_GEMM_STORE_TMA || asked == CUTE_GEMM_STORE_TILE;
    if (asked == CUTE_GEMM_STORE_TILE && !tile_store_fits(a, p)) return false;
    if (p->tma_store || tma_asked) gemm_hopper_store_plan(a, p);
    else if (p->smem_epilogue) gemm_plan_c_tile(a, p, 128 * p->consumers, p->bn / p->c_parts);
    /* 8: 16.5 A rows and 8 B columns of 128 x 256 tiles in flight on 132 SMs (--raster F) */
    p->raster = cfg->tiling.raster ? cfg->tiling.raster : 8;
    return !a->failed;
}
