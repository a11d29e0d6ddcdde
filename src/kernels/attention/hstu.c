/* HSTU attention (cutec/hstu.h), as CuTe DSL's ampere/hstu_attention.py computes it, on the
 * SM80 forward's plan (plan.c) and pieces (operand.c, band.c, fwd_kernel.c's tiles): one block
 * per (batch, head, 64-row Q tile) in the example's block rasterization (raster_bhq below); a
 * jagged batch one per (sequence, head, Q tile of the longest), on the sequence's rows of the
 * packed tensors (fwd_varlen.c's offsets reader).  4 warps of 16 rows (the forward's 4 warps of
 * 32 spill here at head dim 128; 128 rows of 8 warps with CUTEC_HSTU_BLOCK_M=128), Q resident
 * in swizzled shared memory, K and V tiles of 64 keys by
 * cp.async, each loaded under the other's product:
 *
 *   wait K(n), barrier; issue V(n)     acc = RAB(n) (registers, f32), acc += Q K(n)^T
 *                                      P = silu(acc); causal, diagonal tiles: P = 0 past the query
 *   wait V(n), barrier; issue K(n+1),  P in f16/bf16, in registers as the A operand; O += P V(n)
 *   RAB(n+1) into registers
 *
 * There is no softmax: no row max, no rescale of O, no division at the end; O is converted
 * and stored once.  RAB's tile goes from global memory straight into registers in the
 * accumulator's layout (each thread two neighbouring columns of each n8 atom: 4-byte loads;
 * the edge tiles' rows past Sq and columns past Sk not read), issued before P V of the tile
 * before, where S's f32 registers are free, and added by starting Q K^T's accumulation from
 * it.  RAB is read once (no reuse): 2 GiB at the example's 4 x 4 x 8192^2 (bench/RESULTS.md
 * weighs it against the MMAs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/hstu.h"
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/kernel_env.h"

/* the plan the kernel is traced with: the SM80 forward's, and the sigmoid's form */
typedef struct hstu_plan {
    attn_plan p;
    bool fast, jagged;
} hstu_plan;

/* silu(x) = x sigmoid(x): fast, 0.5 x (1 + tanh.approx(x / 2)) = h + h tanh(h), h = x / 2;
 * else x (1 + 2^(-x log2 e))^-1, the inverse as rsqrt.approx squared (ex2 and rsqrt, two MUFU
 * a score, each within 2^-22; past x < -88 the sum overflows to inf and the result is -0) */
cute_ssa hstu_silu(cute_ctx *c, cute_ssa x, bool fast)
{
    cute_ssa half = cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, 0.5), x.shape);
    cute_ssa one = cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, 1), x.shape);
    cute_ssa minus_log2e = cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, -1.4426950408889634), x.shape);
    if (fast) {
        cute_ssa h = cute_ssa_binop(c, CUTE_OP_MUL, x, half);
        return cute_ssa_fma(c, h, cute_ssa_fast(c, CUTE_OP_TANH, h), h);
    }
    cute_ssa e = cute_ssa_fast(c, CUTE_OP_EXP2, cute_ssa_binop(c, CUTE_OP_MUL, x, minus_log2e));
    cute_ssa r = cute_ssa_fast(c, CUTE_OP_RSQRT, cute_ssa_binop(c, CUTE_OP_ADD, e, one));
    return cute_ssa_binop(c, CUTE_OP_MUL, x, cute_ssa_binop(c, CUTE_OP_MUL, r, r));
}

/* the block's (bm, bn, n) tiles of RAB (B, H, Sq, Sk): its Q tile's rows, every key tile */
static cute_tensor rab_tiles(cute_ctx *c, const attn_plan *p, cute_tensor mR, const attn_block *t)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor rows = CUTE_SLICE(c, mR, t->b, t->h, CUTE_ALL, CUTE_ALL);
    return cute_tensor_local_tile(c, rows, cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn),
                                  CUTE_CRD(t->m_block, CUTE_ALL), NULL);
}

/* what the loop over key tiles carries */
typedef struct hstu_loop {
    cute_tensor q, k, v;  /* the shared tiles */
    attn_operand oq, ok, ovt;
    cute_thr_mma thr;
    cute_tensor acc_s, acc_o, gR;
    cute_tensor rab;      /* RAB's next tile in registers, in the dtype, the accumulator's layout */
} hstu_loop;

/* RAB's tile n into l->rab: a tile inside (Sq, Sk) by plain 4-byte loads; one across
 * either edge with rows past Sq and columns past Sk not read (0) */
static void load_rab(cute_ctx *c, const attn_plan *p, const attn_block *t, hstu_loop *l, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor g = cute_partition_C(c, l->thr, CUTE_SLICE(c, l->gR, CUTE_ALL, CUTE_ALL, n));
    /* the tile's last row and column inside */
    cute_int row = cute_add(a, cute_mul(a, t->m_block, cute_i(p->bm)), cute_i(p->bm - 1));
    cute_int col = cute_add(a, cute_mul(a, n, cute_i(p->bn)), cute_i(p->bn - 1));
    cute_val inside = cute_val_binop(c, CUTE_OP_AND, cute_int_lt(c, row, t->sq), cute_int_lt(c, col, t->sk));
    CUTE_IF(c, inside) { cute_tensor_store(c, l->rab, cute_tensor_load(c, g)); }
    CUTE_ELSE(c) {
        cute_tensor cs = cute_partition_C(c, l->thr, CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, n));
        cute_ssa in = cute_elem_less(c, cs, cute_tuple_fmt(a, "(%I,%I)", t->sq, t->sk));
        cute_tensor_store(c, l->rab, cute_tensor_load_if(c, g, in, 0));
    }
}

/* key tile n: S = RAB + Q K^T, P = silu(S) masked to 0, O += P V, RAB(n+1) loaded under P V
 * (where S's f32 registers are free: P is in the dtype by then) */
static void tile_step(cute_ctx *c, const hstu_plan *hp, const attn_block *t, hstu_loop *l, cute_int n)
{
    const attn_plan *p = &hp->p;
    cute_alg *a = cute_ctx_alg(c);
    cute_cp_async_wait_group(c, 0); /* K(n) (the first time, Q) has landed */
    cute_barrier(c);
    attn_load_tile(c, p, CUTE_SLICE(c, t->gV, CUTE_ALL, CUTE_ALL, n), CUTE_SLICE(c, t->cK, CUTE_ALL, CUTE_ALL, n),
                   t->sk, l->v);
    cute_cp_async_commit_group(c);
    cute_tensor_store(c, l->acc_s, cute_ssa_cvt(c, cute_tensor_load(c, l->rab), CUTE_F32));
    attn_gemm_ss_acc(c, p, &l->oq, &l->ok, l->acc_s);
    cute_tensor_store(c, l->acc_s, hstu_silu(c, cute_tensor_load(c, l->acc_s), hp->fast));
    /* causal: P = 0 after the query.  Keys past Sk need no mask: K's rows there are
     * zero-filled and RAB's columns unread (0), so S = 0 and silu(0) = 0 */
    if (p->cfg.causal) CUTE_IF(c, attn_needs_mask(c, p, t, n)) {
        cute_tensor cs = cute_partition_C(c, l->thr, CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, n));
        attn_mask_band_fill(c, l->acc_s, cs, t->sk, attn_cfg_band(&p->cfg), 0);
    }
    cute_cp_async_wait_group(c, 0); /* V(n) has landed; every warp is done with K(n) */
    cute_barrier(c);
    cute_int next = cute_add(a, n, cute_i(1));
    CUTE_IF(c, cute_int_lt(c, next, t->n_end)) {
        attn_load_tile(c, p, CUTE_SLICE(c, t->gK, CUTE_ALL, CUTE_ALL, next),
                       CUTE_SLICE(c, t->cK, CUTE_ALL, CUTE_ALL, next), t->sk, l->k);
        cute_cp_async_commit_group(c);
        load_rab(c, p, t, l, next);
    }
    attn_gemm_rs(c, p, l->acc_s, &l->ovt, l->acc_o);
}

/* The grid's order.  Causal: the block rasterization of CuTe DSL's example (its
 * enable_block_rasterization, which it says raises L2's hit rate): the grid (B, H, Q tiles),
 * the batch fastest, so the blocks in flight together share a Q tile index across sequences
 * and heads, i.e. like work (timed in turns against the order below, session 40: +8-10%).
 * Not causal: one head's Q tiles together, sharing its K and V in L2, then the heads, then the
 * batches (the SM80 forward's order; the example's lost 3.7% at d64, tied at d128), all folded
 * into x (Q tiles, H, B) so that no grid dimension limits the batch (y and z stop at 65,535).
 * Either way causal Q tiles run from the sequence's last (the longest) down, as the example's
 * do; non-causal ones from the first (the example reverses them too: like work either way, and
 * the reversed index cost 55 registers at d128 for sm_90a, 228 against 173).  Jagged batches
 * keep the example's order (the kernel does not know the longest sequence's tile count). */
static bool raster_bhq(const attn_plan *p, bool jagged)
{
    return p->cfg.causal || jagged;
}

/* the folded grid's modes, x alone: (Q tiles of `rows` query rows, heads, batches) */
static cute_tuple folded_grid(cute_alg *a, const attn_plan *p, cute_int rows, cute_int heads, cute_int batches)
{
    const cute_tuple modes[3] = {cute_tuple_int(cute_ceil_div(a, rows, cute_i(p->bm))), cute_tuple_int(heads),
                                 cute_tuple_int(batches)};
    return cute_tuple_of(a, 3, modes);
}

/* the block's (batch or sequence, head, Q tile index: block_tiles reads it) in the example's
 * grid (B, H, Q tiles) */
static void bhq_coords(cute_ctx *c, cute_int *b, cute_int *h, cute_int *x)
{
    *b = cute_block_idx(c, 0), *h = cute_block_idx(c, 1), *x = cute_block_idx(c, 2);
}

/* ... in the folded grid of Q's (B, Sq, H, D) */
static void folded_coords(cute_ctx *c, const attn_plan *p, cute_tensor mQ, cute_int *b, cute_int *h, cute_int *x)
{
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *e = mQ.layout.shape.leaf;
    cute_tuple shape = folded_grid(a, p, e[1], e[2], e[0]);
    cute_tuple crd = cute_idx2crd(a, cute_block_idx(c, 0), &shape);
    *x = crd.leaf[0], *h = crd.leaf[1], *b = crd.leaf[2];
}

static cute_launch_cfg hstu_grid(cute_alg *a, const attn_plan *p, bool jagged, cute_int batches, cute_int heads,
                                 cute_int rows)
{
    cute_launch_cfg cfg = {.grid = {batches, heads, cute_ceil_div(a, rows, cute_i(p->bm))}, .block = {cute_i(p->threads)}};
    if (raster_bhq(p, jagged)) return cfg;
    cute_tuple folded = folded_grid(a, p, rows, heads, batches);
    cfg.grid[0] = cute_tuple_product(a, &folded), cfg.grid[1] = cfg.grid[2] = cute_i(1);
    return cfg;
}

cute_launch_cfg hstu_jagged_grid(cute_alg *a, const attn_plan *p, const cute_arg *arg)
{
    cute_int seqs = cute_sub(a, arg[HSTU_OFFSETS].tensor.layout.shape.leaf[0], cute_i(1));
    return hstu_grid(a, p, true, seqs, arg[0].tensor.layout.shape.leaf[2], arg[HSTU_MAX_LEN].i);
}

/* the block's tiles of sequence seq (m: Q, K, V, O, O for the LSE, which HSTU has not):
 * Q tile x (causal: x counted from the sequence's last); a block past its sequence's last
 * tile (jagged: a sequence shorter than the longest) visits no key tile and stores no row */
static attn_block block_tiles(cute_ctx *c, const attn_plan *p, bool jagged, const cute_tensor m[5], const attn_seq *seq,
                              cute_int b, cute_int h, cute_int x)
{
    attn_block t = attn_block_tiles_at(c, p, m, seq, b, h, attn_q_tile(c, p, seq->sq, x));
    if (jagged) attn_block_past_end(c, p, &t, seq->sq, x); /* the dense grid has no block past the last tile */
    return t;
}

static void hstu_body(cute_ctx *c, const hstu_plan *hp, attn_block t, cute_tensor mR)
{
    const attn_plan *p = &hp->p;
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_dtype d = p->cfg.dtype;
    hstu_loop l = {.q = cute_smem_alloc_tensor_composed(c, &A, d, p->smem_q, 16),
                   .k = cute_smem_alloc_tensor_composed(c, &A, d, p->smem_kv, 16),
                   .v = cute_smem_alloc_tensor_composed(c, &A, d, p->smem_kv, 16)};
    l.thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0));
    l.gR = rab_tiles(c, p, mR, &t);
    l.acc_s = cute_partition_fragment_C(c, l.thr, CUTE_SLICE(c, t.cS, CUTE_ALL, CUTE_ALL, 0));
    l.rab = cute_make_rmem_tensor_like(c, l.acc_s, d);
    cute_clear(c, l.rab);
    attn_load_tile(c, p, t.gQ, t.cQ, t.sq, l.q);
    CUTE_IF(c, cute_int_lt(c, t.n_begin, t.n_end)) {
        attn_load_tile(c, p, CUTE_SLICE(c, t.gK, CUTE_ALL, CUTE_ALL, t.n_begin),
                       CUTE_SLICE(c, t.cK, CUTE_ALL, CUTE_ALL, t.n_begin), t.sk, l.k);
        load_rab(c, p, &t, &l, t.n_begin);
    }
    cute_cp_async_commit_group(c);
    l.oq = attn_operand_make(c, p, &p->s2r_q, l.q, true);
    l.ok = attn_operand_make(c, p, &p->s2r_k, l.k, false);
    l.ovt = attn_operand_make(c, p, &p->s2r_v, attn_transposed(c, p, l.v, p->bn), false);
    l.acc_o = cute_partition_fragment_C(c, l.thr, t.gO);
    cute_clear(c, l.acc_o);
    CUTE_FOR(c, n, t.n_begin, t.n_end) { tile_step(c, hp, &t, &l, n); }
    cute_cp_async_wait_group(c, 0); /* a Q tile that sees no key loaded Q all the same */
    attn_store_o(c, p, l.thr, &t, l.acc_o);
}

/* dense: batch b's rows of Q, K, V and O */
static void hstu_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mR, cute_tensor mO)
{
    const hstu_plan *hp = cute_ctx_user(c);
    cute_int b, h, x;
    if (raster_bhq(&hp->p, false))
        bhq_coords(c, &b, &h, &x);
    else
        folded_coords(c, &hp->p, mQ, &b, &h, &x);
    attn_seq seq = {b, b, cute_i(0), cute_i(0), mQ.layout.shape.leaf[1], mK.layout.shape.leaf[1]};
    const cute_tensor m[5] = {mQ, mK, mV, mO, mO};
    hstu_body(c, hp, block_tiles(c, &hp->p, false, m, &seq, b, h, x), mR);
}

attn_block hstu_jagged_tiles(cute_ctx *c, const attn_plan *p, const cute_tensor m[5], cute_tensor mR, cute_tensor mOff,
                             cute_int *start)
{
    cute_int b, h, x, len;
    bhq_coords(c, &b, &h, &x); /* (raster_bhq: a jagged batch's grid is the example's) */
    /* the offsets clamped to the fewest rows of Q, K, V and O (the library checks they are
     * alike; a caller of the compiled function alone may not), and no longer than RAB's (N,
     * N): bad offsets (unchecked on the device) read and write nothing past any of them */
    cute_alg *a = cute_ctx_alg(c);
    cute_int rows = m[0].layout.shape.leaf[1];
    for (int i = 1; i < 4; i++) rows = cute_min(a, rows, m[i].layout.shape.leaf[1]);
    attn_packed_rows(c, mOff, b, rows, start, &len);
    len = cute_min(a, len, cute_min(a, mR.layout.shape.leaf[2], mR.layout.shape.leaf[3]));
    attn_seq seq = {cute_i(0), cute_i(0), *start, *start, len, len};
    return block_tiles(c, p, true, m, &seq, b, h, x);
}

static void hstu_jagged_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mR,
                               cute_tensor mO, cute_tensor mOff)
{
    const cute_tensor m[5] = {mQ, mK, mV, mO, mO};
    const hstu_plan *hp = cute_ctx_user(c);
    cute_int start;
    hstu_body(c, hp, hstu_jagged_tiles(c, &hp->p, m, mR, mOff, &start), mR);
}

static void hstu_host(cute_ctx *c, const cute_arg *arg)
{
    const hstu_plan *hp = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *e = arg[0].tensor.layout.shape.leaf; /* (B, Sq, H, D); jagged (1, T, H, D) */
    /* V keeps its own strides: the forward's V-with-K's-layout saves no register here (within
     * 2 at every configuration) and would trust every caller of the compiled function */
    if (!hp->jagged) {
        CUTE_LAUNCH(c, hstu_kernel, hstu_grid(a, &hp->p, false, e[0], e[2], e[1]), arg[0].tensor, arg[1].tensor, arg[2].tensor,
                    arg[3].tensor, arg[4].tensor);
        return;
    }
    CUTE_LAUNCH(c, hstu_jagged_kernel, hstu_jagged_grid(a, &hp->p, arg), arg[0].tensor,
                arg[1].tensor, arg[2].tensor, arg[3].tensor, arg[4].tensor, arg[HSTU_OFFSETS].tensor);
}

void hstu_arg_specs(const cute_hstu_config *cfg, cute_arg_spec specs[HSTU_JAGGED_NARGS])
{
    char t[160];
    snprintf(t, sizeof t, "(?,?,?,%d):(?{div=8},?{div=8},?{div=8},1)", cfg->head_dim);
    for (int i = 0; i < 5; i++) specs[i] = cute_spec_tensor(cfg->dtype, t, 16);
    specs[3] = cute_spec_tensor(cfg->dtype, "(?,?,?,?):(?{div=8},?{div=8},?{div=8},1)", 16);
    specs[HSTU_OFFSETS] = cute_spec_tensor(CUTE_I32, "(?):(1)", 4);
    specs[HSTU_MAX_LEN] = cute_spec_int("?");
}

/* AUTO's choice on sm_90, by head dim: the Hopper kernel at both (timed faster on an H200 by
 * scripts/device-hstu2.sh's pass; the flip is this line) */
static const bool auto_hopper[2] = {/* d64 */ 1, /* d128 */ 1};
/* and for jagged input (session 39): the Hopper one's jagged form, since it ran on an H200
 * (hstu_jagged_test 33 passed; B=5 lengths 4000,1,8192,0,3000 d128 386.2 / causal 400.1
 * TFLOP/s against the dense SM80 kernel's 171.3 / 189.4 at 4x4x8192); false gives the SM80 one */
static const bool auto_hopper_jagged = true;

/* CUTEC_HSTU_VARIANT's values (cute_hstu_compile refuses any other) */
static const char *const VARIANTS = "auto|sm80|hopper";

bool hstu_takes_hopper(cute_runtime *rt, const cute_hstu_config *cfg)
{
    int v = cute_env_choice_err("CUTEC_HSTU_VARIANT", VARIANTS, 0, NULL, 0);
    if (v == 2) return true;
    if (v == 1) return false;
    return (!cfg->jagged || auto_hopper_jagged) && auto_hopper[cfg->head_dim == 128] &&
           cute_runtime_target_arch(rt) == 90;
}

const cute_fn *cute_hstu_compile(cute_runtime *rt, const cute_hstu_config *cfg, char *err, size_t n)
{
    if (!cfg) return snprintf(err, n, "hstu attention: no configuration"), NULL;
    if (cfg->head_dim != 64 && cfg->head_dim != 128)
        return snprintf(err, n, "hstu attention: head dim %d (64 or 128)", cfg->head_dim), NULL;
    char why[256];
    if (cute_env_choice_err("CUTEC_HSTU_VARIANT", VARIANTS, 0, why, sizeof why) < 0)
        return snprintf(err, n, "hstu attention: %s", why), NULL;
    if (hstu_takes_hopper(rt, cfg)) return hstu_hopper_compile(rt, cfg, err, n);
    cute_alg a;
    cute_alg_init(&a, NULL);
    hstu_plan *hp = malloc(sizeof *hp);
    cute_attention_config ac = {.dtype = cfg->dtype, .head_dim = cfg->head_dim, .causal = cfg->causal};
    /* warps of 16 rows (the forward's 4 warps of 32 spill at head dim 128: 400 bytes) in
     * 64-row Q tiles of 4 warps: the same registers a thread as 128 rows of 8 warps, half the
     * threads, two blocks an SM where 128 rows fit one (one block's barriers are not the whole
     * SM's), K and V read twice as often.  H200, 2026-11-27, bf16: 4x4x8192 d128 172.3 TFLOP/s
     * against 128 rows' 153.5, causal 172.0 against 137.0; 16x4x4096 d64 153.5 against 99.8.
     * CUTEC_HSTU_BLOCK_M=128, read as the library compiles, builds 128 rows */
    bool m64 = kernel_env_choice(&a, "CUTEC_HSTU_BLOCK_M", "64|128", 0) == 0;
    if (!hp || a.failed || !attn_plan_sized(&a, &ac, &hp->p, m64 ? 64 : 128, m64 ? 4 : 8)) {
        snprintf(err, n, "hstu %s", hp ? a.error : "attention: out of memory");
        free(hp);
        return NULL;
    }
    hp->fast = cfg->fast_sigmoid, hp->jagged = cfg->jagged;
    cute_arg_spec specs[HSTU_JAGGED_NARGS];
    hstu_arg_specs(cfg, specs);
    char name[96];
    snprintf(name, sizeof name, "hstu_%s_d%d%s%s%s%s", cute_dtype_name(cfg->dtype), cfg->head_dim,
             cfg->causal ? "_causal" : "", cfg->fast_sigmoid ? "_fastsig" : "", m64 ? "_m64" : "_m128",
             cfg->jagged ? "_jagged" : "");
    const cute_fn *f = cute_compile(rt, name, hstu_host, hp, cfg->jagged ? HSTU_JAGGED_NARGS : 5, specs, err, n);
    free(hp); /* only needed while tracing */
    return f;
}
