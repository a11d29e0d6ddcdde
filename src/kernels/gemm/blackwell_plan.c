/* The plan of the Blackwell GEMM (blackwell.c), as CuTe DSL's blackwell/
 * dense_gemm_persistent.py makes it for one CTA: a 128 x bn tile of C per block (bn 256
 * unless asked, a multiple of 32), one SM100_MMA_F16BF16_SS atom of 128 x bn x 16 issued four
 * times a k-tile of 64 elements (128 bytes: one row of the 128-byte swizzle, as the Hopper
 * kernel's stages), as many stages as shared memory holds, and two accumulator stages of bn
 * columns in tensor memory so that the epilogue of one tile overlaps the MMAs of the next.
 *
 * Taken: f16 and bf16 inputs (f32 accumulators; C of f16, bf16 or f32), A and B of either
 * major, every pointer and leading dimension 16-byte aligned (TMA), unbatched, no fused
 * epilogue, one CTA, or the CTA pair (cluster 2x1: CuTe DSL's use_2cta_instrs; a 256 x bn
 * tile of C a pair, each block staging its 128 rows of A and bn / 2 rows of B, one
 * SM100_MMA_F16BF16_2x1SM_SS of 256 x bn, or for the block-scaled kinds their _2x1SM_SS atom,
 * each block holding its A rows' scales and all of B's); the dual GEMM (SwiGLU)
 * with K-major B0 and B1, its MMA's N holding A B0^T's bn / 2 columns beside A B1^T's.  The rest is refused
 * with the reason, and the library's AUTO falls back to the SM80 kernels. */
#include <stdio.h>
#include <string.h>

#include "cutec/cuda_arch.h"
#include "cutec/umma.h"
#include "kernels/gemm/gemm_internal.h"

enum { BW_MAX_STAGES = 8, BW_THREADS = 192, BW_ACC_STAGES = 2 };

static bool takes(cute_alg *a, const cute_gemm_config *cfg, int arch)
{
    if (arch && arch != cute_gemm_variant_arch(CUTE_GEMM_BLACKWELL))
        return cute_alg_fail(a, "gemm blackwell: tcgen05 and tensor memory need sm_100 (the target is sm_%d)", arch);
    const char *scaled = gemm_bw_scaled_name(cfg);
    if (cfg->dtype != CUTE_BF16 && cfg->dtype != CUTE_F16 && !scaled)
        return cute_alg_fail(a, "gemm blackwell: %s inputs (it takes f16 and bf16, e2m1 with ue4m3 scales: NVFP4, "
                             "and e4m3 with ue8m0 scales: MXFP8)", cute_dtype_name(cfg->dtype));
    if (scaled && (cfg->major[0] != 1 || cfg->major[1] != 1))
        return cute_alg_fail(a, "gemm blackwell: %s's A and B must be K-major", scaled);
    if (cfg->align_bytes < 16)
        return cute_alg_fail(a, "gemm blackwell: TMA needs 16-byte aligned pointers and leading dimensions "
                             "(these are %d-byte aligned)", cfg->align_bytes);
    if (cfg->batched || cute_gemm_epilogue_fused(&cfg->epilogue))
        return cute_alg_fail(a, "gemm blackwell: batched operands and fused epilogues are not taken yet");
    if (cfg->dual && (scaled || cfg->major[1] != 1))
        return cute_alg_fail(a, "gemm blackwell: the dual GEMM takes f16 or bf16 with K-major B0 and B1");
    const cute_gemm_tiling *t = &cfg->tiling;
    bool pair = t->cluster_m == 2 && t->cluster_n <= 1;
    if ((t->cluster_m > 1 || t->cluster_n > 1) && !pair)
        return cute_alg_fail(a, "gemm blackwell: cluster %dx%d: the kernel runs one CTA a tile (1x1) or the CTA pair "
                             "(2x1)", t->cluster_m, t->cluster_n);
    if (pair && cfg->dual)
        return cute_alg_fail(a, "gemm blackwell: the CTA pair (cluster 2x1) does not take the dual GEMM");
    return true;
}

/* NVFP4, MXFP4 and MXFP8: 128 x 128 tiles (one SfKMajorAtom of B's scales a k-block); the 4-bit
 * kinds' k-tiles of 256 e2m1 (128 bytes: A and B go through the kernel as their bytes), each with
 * 4 atoms of SFA and SFB (NVFP4: 4 scales of 16 an atom) or 2 (MXFP4: 4 of 32); MXFP8's of 128
 * e4m3, each with one atom */
static bool tiling(cute_alg *a, const cute_gemm_config *cfg, gemm_plan *p)
{
    const cute_gemm_tiling *t = &cfg->tiling;
    const char *scaled = gemm_bw_scaled_name(cfg);
    int es = cute_dtype_bytes(cfg->dtype);
    p->sf_atoms = gemm_bw_nvfp4(cfg) ? 4 : gemm_bw_mxfp4(cfg) ? 2 : scaled ? 1 : 0;
    p->bm = 128, p->bn = t->bn ? t->bn : scaled ? 128 : 256, p->bk = 128 / es;
    if (scaled && p->bn != 128)
        return cute_alg_fail(a, "gemm blackwell: %s tiles are 128 x 128 (bn %d asked)", scaled, t->bn);
    if ((t->bm && t->bm != 128) || p->bn < 32 || p->bn > 256 || p->bn % 32 || (t->bk && t->bk != p->bk))
        return cute_alg_fail(a, "gemm blackwell: tile %dx%dx%d (bm 128, bn a multiple of 32 up to 256, bk %lld)",
                             t->bm, t->bn, t->bk, (long long)p->bk);
    if (cfg->dual && p->bn % 64)
        return cute_alg_fail(a, "gemm blackwell: the dual GEMM's tile holds B0's and B1's halves: bn %lld must be a "
                             "multiple of 64", (long long)p->bn);
    int64_t b_rows = gemm_block_b_rows(p);
    if (cfg->major[1] == 0 && b_rows % 64)
        return cute_alg_fail(a, "gemm blackwell: an N-major B is loaded in boxes of 64 rows: bn %lld must be a "
                             "multiple of %d", (long long)p->bn, p->cta_pair ? 128 : 64);
    int64_t stage = (p->bm + b_rows) * p->bk * es + 2 * p->sf_atoms * GEMM_BW_SF_ATOM;
    int64_t room = gemm_smem_room(CUTE_GEMM_BLACKWELL);
    int64_t fit = room / stage;
    p->stages = t->stages ? t->stages : (int)(fit < BW_MAX_STAGES ? fit : BW_MAX_STAGES);
    if (p->stages < 2 || p->stages > fit)
        return cute_alg_fail(a, "gemm blackwell: %d stages of %lld bytes (2 to %lld fit in shared memory)", p->stages,
                             (long long)stage, (long long)fit);
    p->tmem_columns = 32; /* a power of two, 32 at least */
    while (p->tmem_columns < BW_ACC_STAGES * p->bn + 2 * 4 * p->sf_atoms) p->tmem_columns *= 2;
    return true;
}

bool gemm_plan_blackwell(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (!takes(a, cfg, arch)) return false;
    p->cta_pair = cfg->tiling.cluster_m == 2;
    if (!tiling(a, cfg, p)) return false;
    p->threads = BW_THREADS; /* four epilogue warps, the MMA warp, the TMA warp */
    p->cluster_m = p->cta_pair ? 2 : 1, p->cluster_n = 1;
    bool fp4 = cfg->dtype == CUTE_E2M1;
    const char *family = gemm_bw_nvfp4(cfg) ? "MXF4NVF4" : fp4 ? "MXF4" : gemm_bw_mxfp8(cfg) ? "MXF8F6F4" : "F16BF16";
    char atom[48]; /* the pair's: CuTe's SM100_MMA_*_2x1SM_SS, M 256 over the two blocks */
    snprintf(atom, sizeof atom, "SM100_MMA_%s%s_SS", family, p->cta_pair ? "_2x1SM" : "");
    if (!cute_umma_atom(a, atom, cfg->dtype, (int)p->bm * p->cluster_m, (int)p->bn, &p->umma)) return false;
    cute_dtype staged = fp4 ? CUTE_U8 : cfg->dtype; /* e2m1 staged as its bytes */
    p->smem_a = gemm_tma_stages(a, staged, cfg->major[0], p->bm, p->bk, p->stages, &p->box_rows[0]);
    p->smem_b = gemm_tma_stages(a, staged, cfg->major[1], gemm_block_b_rows(p), p->bk, p->stages, &p->box_rows[1]);
    if (cfg->dual) p->box_rows[1] = p->bn / 2; /* B0's half of the stage, then B1's (hopper.c) */
    p->raster = cfg->tiling.raster ? cfg->tiling.raster : 8;
    return !a->failed;
}
