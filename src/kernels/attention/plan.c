/* The plan of the forward kernel, as CuTe DSL's ampere/flash_attention_v2.py builds it:
 * 4 warps tiled along M over mma.sync m16n8k16 (each warp 16 rows of every 64, N doubled to
 * 16 so that one ldmatrix.x4 feeds two n8 atoms), 128-byte-swizzled shared tiles filled by
 * 16-byte cp.async, and ldmatrix for the three operands that come from shared memory (Q, K
 * and, transposed, V). */
#include <stdlib.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"

/* the MMA atom of a dtype: f32 accumulation */
static const char *mma_name(cute_dtype d)
{
    return d == CUTE_BF16 ? "SM80_16x8x16_F32BF16BF16F32_TN" : "SM80_16x8x16_F32F16F16F32_TN";
}

static cute_tiled_mma make_mma(cute_alg *a, const cute_mma_atom *atom, int warps)
{
    cute_layout w = cute_layout_fmt(a, "(%d,1,1):(1,0,0)", warps);
    cute_layout lm = cute_layout_fmt(a, "%lld:1", (long long)(warps * atom->m));
    cute_layout ln = cute_layout_fmt(a, "%lld:1", (long long)(2 * atom->n));
    cute_layout lk = cute_layout_fmt(a, "%lld:1", (long long)atom->k);
    cute_tiler pm = cute_tiler_layout(&lm), pn = cute_tiler_layout(&ln), pk = cute_tiler_layout(&lk);
    return cute_make_tiled_mma(a, atom, &w, &pm, &pn, &pk);
}

/* (rows, D) tiles, D contiguous: 4 threads a row, each a 16-byte cp.async piece of every
 * 64 bytes of the row (the raked product puts a thread's pieces 32 elements apart).  One
 * instruction of a warp then fills 8 rows' 64 contiguous bytes: whole 32-byte sectors of
 * global memory and 4 shared wavefronts for its 512 bytes (a run of D/4 elements a thread,
 * as before, read half of every sector and took 16 wavefronts: ncu, session 29).  A
 * thread's pieces of a row still share one global address register (immediate offsets),
 * its rows are few (a 64-row tile: two), and the 128-byte swizzle moves its pieces only by
 * bit 2 of the chunk: two shared address registers for them all. */
static cute_tiled_copy make_g2s(cute_alg *a, cute_dtype d, int threads)
{
    cute_copy_atom atom;
    cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEGLOBAL<uint128>", d, &atom);
    int64_t per_row = 4, piece = 16 / cute_dtype_bytes(d);
    cute_layout thr = cute_layout_fmt(a, "(%lld,%lld):(%lld,1)", (long long)(threads / per_row),
                                      (long long)per_row, (long long)per_row);
    cute_layout val = cute_layout_fmt(a, "(1,%lld):(0,1)", (long long)piece);
    return cute_make_tiled_copy_tv(a, &atom, &thr, &val);
}

static cute_tiled_copy make_s2r(cute_alg *a, const attn_plan *p, const char *ldsm,
                                cute_mma_operand op)
{
    cute_copy_atom atom;
    cute_copy_atom_named(a, ldsm, p->cfg.dtype, &atom);
    return cute_make_tiled_copy_mma(a, &atom, &p->mma, op);
}

static cute_composed smem_tile(cute_alg *a, cute_dtype d, int64_t rows, int64_t D)
{
    return attn_smem_tile(a, d, rows, D, 1);
}

cute_composed attn_smem_tile(cute_alg *a, cute_dtype d, int64_t rows, int64_t D, int stages)
{
    /* the swizzle atom spans the widest power of two that divides D (a row of 96 elements is
     * three 32-element atoms, 64 bytes swizzled; 128 and 192 are 64-element ones, 128 bytes) */
    cute_composed atom = cute_smem_atom_sm80(a, d, CUTE_MAJOR_K, D & -D, 128);
    cute_tuple shape = stages > 1 ? cute_tuple_fmt(a, "(%lld,%lld,%d)", (long long)rows, (long long)D, stages)
                                  : cute_tuple_fmt(a, "(%lld,%lld)", (long long)rows, (long long)D);
    return cute_smem_layout_staged(a, &atom, &shape);
}

bool attn_plan_make(cute_alg *a, const cute_attention_config *cfg, attn_plan *p)
{
    /* 128 x 64 tiles of S (O's accumulators a thread: D / 2 at 64 and 128, S's 64); at head
     * dim 256, 64 x 64 (each warp 16 rows: O's 128 and S's 32 a thread), as FlashAttention
     * 2's SM80 kernel tiles it */
    if (cfg->block_n && cfg->block_n != 64 && cfg->block_n != 32)
        return cute_alg_fail(a, "attention: the SM80 kernel's key tiles are 64 keys, in softmax steps of 64 or 32 "
                             "(block_n %d)", cfg->block_n);
    if (cfg->block_m)
        return cute_alg_fail(a, "attention: the SM80 kernel's query tiles are its own (block_m %d: the Hopper "
                             "kernel's)", cfg->block_m);
    if (cfg->kv_stages < 0 || cfg->kv_stages > 2)
        return cute_alg_fail(a, "attention: the SM80 kernel's K and V tiles come in 1 or 2 stages (kv_stages %d)",
                             cfg->kv_stages);
    if (!attn_plan_sized(a, cfg, p, cfg->head_dim > 128 ? 64 : 128, 4)) return false;
    p->step_n = cfg->block_n ? cfg->block_n : 64;
    p->rescale_lazy = true; /* (H200, 2026-11-27: 365.0 / 333.5 TFLOP/s against every tile's 362.3 / 325.7) */
    if (cfg->kv_stages == 2) p->stages = 2, p->smem_kv = attn_smem_tile(a, cfg->dtype, p->bn, p->d, 2);
    return !a->failed;
}

bool attn_plan_sized(cute_alg *a, const cute_attention_config *cfg, attn_plan *p, int64_t bm, int warps)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (cfg->dtype != CUTE_F16 && cfg->dtype != CUTE_BF16)
        return cute_alg_fail(a, "attention: %s inputs (f16 or bf16)", cute_dtype_name(cfg->dtype));
    if (!attn_head_dim_ok(cfg->head_dim))
        return cute_alg_fail(a, "attention: head dim %d (%s)", cfg->head_dim, ATTN_HEAD_DIMS);
    if (cfg->window && (cfg->window_left < 0 || cfg->window_right < 0))
        return cute_alg_fail(a, "attention: window (%d, %d): sizes of 0 or more", cfg->window_left,
                             cfg->window_right);
    p->d = cfg->head_dim;
    p->bm = bm, p->bn = 64, p->step_n = 64, p->threads = 32 * warps;
    cute_mma_atom atom;
    if (!cute_mma_atom_named(a, mma_name(cfg->dtype), &atom)) return false;
    p->mma = make_mma(a, &atom, p->threads / 32);
    p->g2s = make_g2s(a, cfg->dtype, p->threads);
    p->s2r_q = make_s2r(a, p, "SM75_U32x4_LDSM_N", CUTE_MMA_A);
    p->s2r_k = make_s2r(a, p, "SM75_U32x4_LDSM_N", CUTE_MMA_B);
    p->s2r_v = make_s2r(a, p, "SM75_U16x8_LDSM_T", CUTE_MMA_B);
    p->smem_q = smem_tile(a, cfg->dtype, p->bm, p->d);
    p->smem_kv = smem_tile(a, cfg->dtype, p->bn, p->d);
    return !a->failed;
}
