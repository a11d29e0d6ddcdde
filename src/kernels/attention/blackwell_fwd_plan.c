/* The plan of the Blackwell forward (blackwell_fwd.c), after CuTe DSL's blackwell/fmha.py:
 * two 128-row Q tiles a block (bm 256, a softmax warpgroup each, a correction warpgroup, the
 * load and MMA warps: 512 threads), 128-key tiles of K and V (64 at head dim 128 causal, or
 * where asked), S = Q K^T by SM100_MMA_F16BF16_SS (128 x bn, both operands in shared memory)
 * into tensor memory, O += P V by SM100_MMA_F16BF16_TS (128 x D: P from tensor memory, V^T
 * read from V's tile as an MN-major B).  Q, K and V lie in shared memory in 128-byte
 * swizzled rows (attn_smem_tile: the layout of the 128-byte K-major GMMA atom, which the MMA
 * descriptors read; one TMA box of 64 columns a (rows, 64) block), K and V in two stages each.
 * Tensor memory: each Q tile's S (bn columns, P stored over it, two f16 / bf16 a column) and
 * O (D): 512 columns at head dim 128, 256 at 64 with 64-key tiles.
 *
 * Taken: f16 and bf16, head dim 64 and 128, causal or not, grouped-query heads, any Sq and
 * Sk.  Refused with the reason: other targets than sm_100, other head dims, sliding windows,
 * packed sequences (the library's AUTO gives those to the SM80 kernel). */
#include <string.h>

#include "cutec/umma.h"
#include "kernels/attention/attention_internal.h"

enum { BW_STAGES = 2, BW_ROWS = 128 }; /* K's and V's stages; a softmax warpgroup's rows */

bool attn_blackwell_takes(const cute_attention_config *cfg)
{
    return (cfg->head_dim == 64 || cfg->head_dim == 128) && !cfg->window && !cfg->varlen;
}

bool attn_plan_blackwell(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (arch && arch != 100)
        return cute_alg_fail(a, "attention blackwell: tcgen05 and tensor memory need sm_100 (the target is sm_%d)",
                             arch);
    if (cfg->dtype != CUTE_F16 && cfg->dtype != CUTE_BF16)
        return cute_alg_fail(a, "attention blackwell: %s inputs (f16 or bf16)", cute_dtype_name(cfg->dtype));
    if (cfg->head_dim != 64 && cfg->head_dim != 128)
        return cute_alg_fail(a, "attention blackwell: head dim %d (64 or 128; the SM80 kernel takes the others)",
                             cfg->head_dim);
    if (cfg->window || cfg->varlen)
        return cute_alg_fail(a, "attention blackwell: %s are not taken yet (the SM80 kernel takes them)",
                             cfg->window ? "sliding windows" : "packed sequences");
    if (cfg->block_n && cfg->block_n != 64 && cfg->block_n != 128)
        return cute_alg_fail(a, "attention blackwell: key tiles of 64 or 128 keys (block_n %d)", cfg->block_n);
    if (cfg->block_m && cfg->block_m != 128)
        return cute_alg_fail(a, "attention blackwell: query tiles of 128 rows (block_m %d)", cfg->block_m);
    p->d = cfg->head_dim;
    p->consumers = 2; /* Q tiles a block, a softmax warpgroup each */
    /* 128-key tiles, but 64 at head dim 128 causal: there 128 spill 8 bytes (ptxas, CUDA 13) */
    int bn = cfg->head_dim == 128 && cfg->causal ? 64 : 128;
    p->bm = BW_ROWS * p->consumers, p->bn = cfg->block_n ? cfg->block_n : bn, p->step_n = p->bn;
    p->threads = 128 * (2 + p->consumers); /* the load and MMA warps' warpgroup, the correction's */
    p->stages = BW_STAGES, p->q_stages = 1;
    p->smem_q = attn_smem_tile(a, cfg->dtype, p->bm, p->d, 1); /* (128-byte swizzled rows: the GMMA atom's layout) */
    p->smem_kv = attn_smem_tile(a, cfg->dtype, p->bn, p->d, p->stages);
    if (!cute_umma_atom(a, "SM100_MMA_F16BF16_SS", cfg->dtype, BW_ROWS, (int)p->bn, &p->umma_s) ||
        !cute_umma_atom(a, "SM100_MMA_F16BF16_TS", cfg->dtype, BW_ROWS, (int)p->d, &p->umma_o))
        return false;
    p->tmem_columns = 32; /* a power of two: each Q tile's S (P over it) and O */
    while (p->tmem_columns < p->consumers * (p->bn + p->d)) p->tmem_columns *= 2;
    return !a->failed;
}
