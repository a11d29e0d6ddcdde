/* The plan of the Hopper forward (hopper_fwd.c), after FlashAttention 3 and CuTe DSL's
 * hopper/fmha.py: 128-row Q tiles, 64 rows to each of two consumer warpgroups; S = Q K^T by
 * wgmma with both operands in shared memory (SS), O += P V by wgmma with P in registers (RS)
 * and V^T read from V's tile as an MN-major operand; Q, K and V tiles in shared memory laid
 * out by the 128-byte K-major GMMA atom (8 rows of 64 elements: one TMA box of 64 columns
 * fills a (rows, 64) block of it), K and V in `stages` stages each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/kernel_env.h"

enum { MAX_STAGES = 4 };

/* Head dim 64 causal's tile, (Q rows, keys), unless the call asks for its own: issue 18's one
 * forward row behind SDPA (H200, 16x32x2048: 350.0 TFLOP/s against 395.1).
 * scripts/device-attn64c.sh times 192 x 128 and 128 x 64 (--block-m / --block-n) beside it
 * and says which to write here: the one-line flip. */
static const int D64_CAUSAL[2] = {128, 128};

/* The key-tile loop split (hopper_fwd.c's key_tiles: the tiles no mask touches without its
 * branch and code, then the masked ones: causal's diagonal, Sk's partial last tile), {not
 * causal, causal}, unless CUTEC_ATTN_FWD_SPLIT says 0 or 1.  The default since session 35's
 * early mid pass (H200, bench/RESULTS.md attnf6; against the one loop with the 32-bit mask,
 * SDPA beside): d64 16x32x2048 causal 386.4 TFLOP/s against 349.1 (SDPA 391.3), not causal
 * 494.1 against 493.6; d128 8x16x4096 causal 627.6 against 603.5 (SDPA 586.9), not causal
 * 702.4 against 680.3 (SDPA 676.1).  The mid pass (19:25, the split and causal's IEEE
 * finish the default): the one loop (CUTEC_ATTN_FWD_SPLIT=0) d64 causal 348.7 against 388.6
 * (SDPA 393.0), d128 causal 598.1 against 620.2 (SDPA 578.8), not causal 500.1 against 496.2
 * (the default's kernel ran 506.2 in the same pass: noise) and 672.9 against 687.6.
 * (scripts/device-attnf6.sh's "delete" no longer applies: the one loop is d256's default.)
 * Head dim 256 non-causal runs the one loop: session 39's first pass (H200, the lead, 08:01,
 * 2x16x16384, four processes each in turns, SDPA 666-671) timed the split 659.8 / 664.4 /
 * 659.9 / 648.2 TFLOP/s against the one loop's 688.1 / 686.5 / 694.3 / 688.1 (causal the
 * split 679-692 against 627-689: it stays).  d96, d160, d192 and d224 have never been timed
 * either way: they keep the split, as d64 and d128.  {not causal, causal}, by head dim. */
static const bool SPLIT_MASK[2] = {true, true};
static const bool SPLIT_MASK_D256[2] = {false, true};

/* The lean epilogue: 1 / l and log2 l approximate (softmax.c's attn_softmax_finish), and the
 * tile's (Q tile, head, batch) divided once at its start, not again on the way to O's
 * addresses (hopper_fwd.c's tile_at): both shorten the chain from the last P V to the next
 * tile's first turn, which the other warpgroups wait for.  SASS, a Q tile's instructions
 * outside its key-tile loop: d64 85 fewer, d128 84; causal d64 89 and d128 76 fewer, but
 * ptxas then moved their key-tile loop off the uniform datapath (10 and 17 more a key tile;
 * 23 and 27 with the split).  {not causal, causal}, unless CUTEC_ATTN_FWD_FINISH says fast
 * or ieee.  Not causal, the default since session 35's early mid pass (H200, the one loop:
 * d64 16x32x2048 499.1 TFLOP/s against 493.6, d128 8x16x4096 686.1 against 680.3).  Causal
 * it stays IEEE: on the one loop d64 384.6 against 349.1, but on top of the split (the mid
 * pass, 19:25) d64 388.4 against 388.6 and d128 603.8 against 620.2. */
static const bool FAST_FINISH[2] = {true, false};

/* The tiles joined on the persistent grid (hopper_fwd.c's consume_joined: a tile's last P V
 * and the next tile's S(0) in one turn, one wait; the epilogue beside the next tile's first
 * softmax), {not causal, causal}, unless CUTEC_ATTN_FWD_JOIN says 0 or 1.  Opt-in until
 * scripts/device-attnf7.sh times it: its "decides:" line says whether to write true here. */
static const bool JOIN_TILES[2] = {false, false};

/* The consumer's warpgroup index read from lane 0 by a shuffle (hopper_fwd.c's consume), and
 * the wgmma descriptors built once a stage (the atoms' desc_stage, src/atom/wgmma_emit.c;
 * CUTEC_WGMMA_DESC, when set, decides that part alone): ptxas then knows the warpgroup is
 * the same in every lane of a warp and keeps Q's descriptors on the uniform datapath, where
 * it built them in vector registers and moved each into uniform ones by two R2UR a wgmma.
 * SASS (sm_90a, a consumer warp's unmasked key tile, R2UR): d256 607 (32) -> 551 (9), d128
 * 608 (16) -> 548 (0), causal 524 -> 464, d64 454 -> 420.  {not causal, causal}, unless
 * CUTEC_ATTN_FWD_WGU says 0 or 1.  Head dim 256 non-causal: the default since session 39's
 * mid pass (H200, 2x16x16384, two rounds in turns: 717.6 and 708.0 TFLOP/s against 709.5
 * and 697.3, x1.0133; SDPA 669.4); d128 non-causal measured x0.993 / x1.010 (session 39's
 * final pass: off); head dim 64 non-causal the default since session 42's mid pass (H200,
 * 16x32x2048, two rounds in turns: 517.3 and 514.8 TFLOP/s against 502.3 and 466.8, with
 * idle warpgroups skipped as well 521.9 and 521.8: SKIP_IDLE_D64); the other head dims and
 * the causal ones are untimed. */
static const bool WG_UNIFORM[2] = {false, false};
static const bool WG_UNIFORM_D64[2] = {true, false};
static const bool WG_UNIFORM_D256[2] = {true, false};

/* A consumer warpgroup whose rows all lie past Sq computes nothing, and (not causal) a head's
 * Q tiles rotated on the persistent grid (hopper_fwd.c's idle_tile, hopper_sched.c), by
 * {not causal, causal}, unless CUTEC_ATTN_FWD_SKIP says 0 or 1.  Head dim 64 non-causal
 * (192-row tiles: 11 for 2048 rows, the last one's third warpgroup idle): the default since
 * session 42's mid pass (H200, 16x32x2048 with wgu, two rounds in turns: 521.9 and 521.8
 * TFLOP/s against wgu alone's 517.3 and 514.8, x1.0112; a model said x1.016); untimed at the
 * other head dims (their marks' shapes have no idle warpgroup: 4096 and 16384 rows of 128). */
static const bool SKIP_IDLE_D64[2] = {true, false};

/* the consumer warpgroups down M: warpgroup w computes rows 64 w .. 64 w + 63; stage: the
 * descriptors built once a stage (the atom's desc_stage) */
static bool make_mma(cute_alg *a, cute_dtype d, int64_t n, bool rs, int consumers, bool stage, cute_tiled_mma *out)
{
    char name[64];
    snprintf(name, sizeof name, "SM90_64x%lldx16_F32%s_%s", (long long)n,
             d == CUTE_BF16 ? "BF16BF16" : "F16F16", rs ? "RS" : "SS");
    cute_mma_atom atom;
    if (!cute_mma_atom_named(a, name, &atom)) return false;
    atom.desc_stage = stage;
    cute_layout wgs = cute_layout_fmt(a, "(%d,1,1):(1,0,0)", consumers);
    *out = cute_make_tiled_mma(a, &atom, &wgs, NULL, NULL, NULL);
    return !a->failed;
}

cute_composed attn_hop_tile(cute_alg *a, cute_dtype d, int64_t rows, int64_t D, int stages)
{
    cute_composed atom;
    /* 128-byte swizzled rows of 64 elements, or at head dim 96 three 64-byte ones of 32 */
    cute_smem_atom_gmma(a, D % 64 ? "Layout_K_SW64_Atom" : "Layout_K_SW128_Atom", d, &atom);
    cute_tuple shape = stages ? cute_tuple_fmt(a, "(%lld,%lld,%d)", (long long)rows, (long long)D, stages)
                              : cute_tuple_fmt(a, "(%lld,%lld)", (long long)rows, (long long)D);
    return cute_smem_layout_staged(a, &atom, &shape);
}

/* what both Hopper plans ask of the target and the configuration */
static bool hopper_ok(cute_alg *a, const cute_attention_config *cfg, int arch, const char *what)
{
    if (arch && arch != 90)
        return cute_alg_fail(a, "attention %s: TMA and wgmma need sm_90 (the target is sm_%d)", what, arch);
    if (cfg->dtype != CUTE_F16 && cfg->dtype != CUTE_BF16)
        return cute_alg_fail(a, "attention %s: %s inputs (f16 or bf16)", what, cute_dtype_name(cfg->dtype));
    if (cfg->window || cfg->varlen)
        return cute_alg_fail(a, "attention %s: %s are not taken yet (the SM80 kernel takes them)", what,
                             cfg->window ? "sliding windows" : "packed sequences");
    return true;
}

/* the atoms and shared tiles of a plan whose bm, bn, d and stages are set */
static bool hopper_parts(cute_alg *a, const cute_attention_config *cfg, attn_plan *p)
{
    if (!make_mma(a, cfg->dtype, p->bn, false, p->consumers, p->wg_uniform, &p->mma) ||
        !make_mma(a, cfg->dtype, p->d, true, p->consumers, p->wg_uniform, &p->pv))
        return false;
    p->smem_q = attn_hop_tile(a, cfg->dtype, p->bm, p->d, p->q_stages > 1 ? p->q_stages : 0);
    p->smem_kv = attn_hop_tile(a, cfg->dtype, p->bn, p->d, p->stages);
    return !a->failed;
}

bool attn_plan_hopper_tiles(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg, p->hopper = true;
    if (!hopper_ok(a, cfg, arch, "hopper")) return false;
    if (!attn_hopper_head_dim(cfg->head_dim))
        return cute_alg_fail(a, "attention hopper: head dim %d (a multiple of 32 from 64 to 256)", cfg->head_dim);
    /* 192-row Q tiles at head dim 64 non-causal, three consumer warpgroups (FlashAttention
     * 3's): the softmax, long there beside the GEMMs, of two warpgroups runs while the third's
     * GEMMs do (H200, 16x32x2048: 446.9 TFLOP/s against 387.9 with 128 rows); causal, 128
     * rows (192 x 112 ran 301.0 against 313.9) */
    bool d64c = cfg->head_dim == 64 && cfg->causal;
    int bm = cfg->block_m ? cfg->block_m : d64c ? D64_CAUSAL[0] : cfg->head_dim == 64 ? 192 : 128;
    if (bm != 128 && (bm != 192 || (cfg->head_dim != 64 && cfg->head_dim != 128)))
        return cute_alg_fail(a, "attention hopper: %d query rows a tile at head dim %d (128, or 192 at head dims 64 "
                             "and 128: three warpgroups' accumulators fit their registers there)", bm, cfg->head_dim);
    p->d = cfg->head_dim, p->bm = bm, p->consumers = bm / 64, p->threads = (p->consumers + 1) * 128, p->q_stages = 1;
    /* S's 64 x bn and O's 64 x D accumulators a consumer thread: bn / 2 + D / 2 registers
     * (and P's bn / 4); FlashAttention 3's tiles, but for causal head dim 256 (80 keys spill
     * 20 bytes there: 64), at 192 rows (160 registers a consumer: 144 keys spill 64 bytes
     * non-causal, FlashAttention 3's causal 128 24 bytes: 128 and 112) and at head dim 128
     * non-causal: 160 keys, not 176, so that Q's two stages fit beside two K and V stages on
     * the persistent grid (attn_plan_hopper_stage_q; H200, 2026-11-27 13:35, d128 8x16x4096
     * 680.6 TFLOP/s against 176 keys a block a tile's 669.1, 2x16x16384 714.7 against 683.8;
     * 144 keys 676.9, 128 671.1, 128 a block a tile 667.0; causal, 128 keys: 607.2 against
     * 144's 584.0 and 160's 577.1) */
    int wide = p->d == 256 ? 80 : p->d == 224 ? 96 : p->d == 192 ? 112 : p->d == 128 ? 160 : 128;
    int narrow = p->d == 256 ? 64 : p->d == 224 ? 80 : p->d == 192 || bm == 192 ? 112 : 128;
    /* head dim 128 at 192 rows (three consumer warpgroups at 160 registers: O's 64, S's and P's
     * bn / 2 + bn / 4): 80 keys, no spills (96 spill 72 bytes, 112 240) */
    if (p->d == 128 && bm == 192) wide = narrow = 80;
    p->bn = cfg->block_n ? cfg->block_n : d64c && !cfg->block_m ? D64_CAUSAL[1] : !cfg->causal ? wide : narrow;
    int64_t es = 2, q = p->bm * p->d * es, stage = 2 * p->bn * p->d * es;
    int64_t fit = (ATTN_HOP_SMEM_BYTES - q) / stage;
    p->stages = (int)(fit < MAX_STAGES ? fit : MAX_STAGES);
    if (p->bn < 64 || p->bn > 256 || p->bn % 16 || p->stages < 2)
        return cute_alg_fail(a, "attention hopper: %lld keys a tile at head dim %lld (a multiple of 16, 64 "
                             "to 256, whose K and V tiles fit twice in shared memory beside Q's)",
                             (long long)p->bn, (long long)p->d);
    return true;
}

/* the forward's own choices, by its tables unless the environment says otherwise */
static bool forward_choices(cute_alg *a, const cute_attention_config *cfg, attn_plan *p)
{
    /* the persistent grid's causal order (hopper_sched.c): the snake, or across every head
     * with CUTEC_ATTN_FWD_ORDER=across (H200, session 30's mid pass, d128 8x16x4096 with two
     * Q stages: 597.8 TFLOP/s against a block a tile's 583.4; across, 469.2) */
    p->snake = kernel_env_choice(a, "CUTEC_ATTN_FWD_ORDER", "snake|across", 0) == 0;
    const bool *split = cfg->head_dim == 256 ? SPLIT_MASK_D256 : SPLIT_MASK;
    /* (head dim 128's 192-row tiles as head dim 64's: ptxas spills 172 bytes there without) */
    bool rows192 = cfg->head_dim == 64 || p->bm == 192;
    const bool *wgu = cfg->head_dim == 256 ? WG_UNIFORM_D256 : rows192 ? WG_UNIFORM_D64 : WG_UNIFORM;
    bool skip = rows192 && SKIP_IDLE_D64[cfg->causal];
    p->split_mask = kernel_env_choice(a, "CUTEC_ATTN_FWD_SPLIT", "0|1", split[cfg->causal]) == 1;
    p->fast_finish = kernel_env_choice(a, "CUTEC_ATTN_FWD_FINISH", "ieee|fast", FAST_FINISH[cfg->causal]) == 1;
    p->join = kernel_env_choice(a, "CUTEC_ATTN_FWD_JOIN", "0|1", JOIN_TILES[cfg->causal]) == 1;
    p->wg_uniform = kernel_env_choice(a, "CUTEC_ATTN_FWD_WGU", "0|1", wgu[cfg->causal]) == 1;
    /* (not with the tiles joined: consume_joined has no idle form) */
    p->skip_idle = kernel_env_choice(a, "CUTEC_ATTN_FWD_SKIP", "0|1", skip) == 1 && !p->join;
    /* a diagnostic only (wrong outputs): how fast the key-tile loop runs without its softmax,
     * or without O's rescale; or the unmasked tiles' softmax without its exp2s, or its row sums */
    p->diag = kernel_env_diag(a, "CUTEC_ATTN_FWD_DIAG", "none|nosoftmax|norescale|noexp|nosum");
    return !a->failed;
}

bool attn_plan_hopper(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p)
{
    return attn_plan_hopper_tiles(a, cfg, arch, p) && forward_choices(a, cfg, p) && hopper_parts(a, cfg, p);
}

/* On the persistent grid Q's tile in two stages where two K and V stages still fit beside
 * them (d128's 160- and 128-key tiles, d64's; not d128 with --block-n 176 nor d256), so that the producer loads the next tile's Q as soon as it has issued this
 * tile's K and V, not once the tile's last S retired (one stage: the next tile's first S
 * waited for Q's load at every tile).  CUTEC_ATTN_FWD_QSTAGES=1 keeps one (H200, session
 * 30's mid pass: d64 16x32x2048 492.0 TFLOP/s with two against 481.4, causal 348.6 against
 * 340.1) */
bool attn_plan_hopper_stage_q(cute_alg *a, attn_plan *p)
{
    int one = kernel_env_choice(a, "CUTEC_ATTN_FWD_QSTAGES", "2|1", 0);
    int64_t es = 2, tile = p->bm * p->d * es, stage = 2 * p->bn * p->d * es, fit = (ATTN_HOP_SMEM_BYTES - 2 * tile) / stage;
    if (a->failed) return false;
    if (!p->sms || one || fit < 2) return true;
    p->q_stages = 2;
    p->stages = (int)(fit < MAX_STAGES ? fit : MAX_STAGES);
    return hopper_parts(a, &p->cfg, p);
}

/* HSTU's Hopper forward (hstu_hopper.c): each stage holds `extra` bytes more than K's and
 * V's tiles (RAB's): as many stages as fit then, at least two */
bool attn_plan_hopper_extra(cute_alg *a, attn_plan *p, int64_t extra)
{
    int64_t es = 2, q = p->bm * p->d * es, stage = 2 * p->bn * p->d * es + extra, fit = (ATTN_HOP_SMEM_BYTES - q) / stage;
    if (fit < 2)
        return cute_alg_fail(a, "attention hopper: %lld keys a tile at head dim %lld with %lld bytes more a stage: "
                             "two stages do not fit", (long long)p->bn, (long long)p->d, (long long)extra);
    p->stages = (int)(fit < MAX_STAGES ? fit : MAX_STAGES);
    return hopper_parts(a, &p->cfg, p);
}

bool attn_plan_hopper_bwd(cute_alg *a, const cute_attention_config *cfg, int arch, attn_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg, p->hopper = true;
    p->cfg.lse = true;
    if (!hopper_ok(a, cfg, arch, "backward hopper")) return false;
    if (!attn_hopper_bwd_head_dim(cfg->head_dim))
        return cute_alg_fail(a, "attention backward hopper: head dim %d (64, 96 or 128)", cfg->head_dim);
    /* a consumer thread holds two 64 x D f32 accumulators (dK and dV: D registers) and two
     * 64 x bn (S and dP: bn / 2 each), P and dS in the dtype (bn / 4 each): bn = 64.  Head
     * dim 96: 64-byte swizzled tiles, three TMA boxes of 32 columns a row (tile_of,
     * hopper_tma.c), the RS wgmma's N 96.  Not 192: dK and dV alone are 192 registers a
     * thread there (ptxas: the dK/dV kernel spills 508 bytes, the dQ kernel 52) */
    p->d = cfg->head_dim, p->bm = 128, p->bn = 64, p->threads = 3 * 128, p->consumers = 2;
    int64_t es = 2, x = 2 * p->bm * p->d * es, stage = 2 * p->bn * p->d * es;
    int64_t fit = (ATTN_HOP_SMEM_BYTES - x) / stage;
    p->stages = (int)(fit < MAX_STAGES ? fit : MAX_STAGES);
    /* the lean steps at head dims 96 and up: the atoms' descriptors built once a stage, the
     * operands each warpgroup offsets partitioned by attn_hop_uniform_tid (hopper_bwd.c,
     * hopper_bwd_dq.c); session 40's final pass (H200, 8x16x4096 not causal, in turns): 508.0 /
     * 510.0 TFLOP/s against the steps before's 479.4 / 481.0, which were deleted (bench/
     * RESULTS.md, attnb40).  Not at 64 (its overlapped steps): causal's dK/dV kernel spills
     * 32 bytes with them */
    p->wg_uniform = cfg->head_dim >= 96;
    return hopper_parts(a, cfg, p);
}
