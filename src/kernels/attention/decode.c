/* The decode path (flash-decoding): one query row a sequence against a long KV cache,
 * memory bound.  The library packs the H / G query heads that share a key/value head into
 * the rows of one Q tile (Q (B,1,H,D) seen as (B, H/G, G, D)), so each K/V tile is read
 * once for its whole group, and splits the keys: a block per (split, KV head, batch) runs
 * the forward's body (attn_fwd_body) over its split's key tiles with one warp and 16-row
 * tiles, writing its normalized O (f32) and LSE to a workspace; a second kernel combines
 * the splits of each row:
 *
 *   LSE = log sum_s exp(LSE_s),   O = sum_s exp(LSE_s - LSE) O_s
 *
 * (in split order, with a running maximum: one pass, deterministic). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutec/notation.h"
#include "cutec/sync.h"
#include "kernels/attention/attention_decode.h"
#include "kernels/kernel_env.h"

/* split x (block x) of KV head hk (y) of batch b (z): rows = the group's query heads */
static attn_block split_tiles(cute_ctx *c, const attn_plan *p, const cute_tensor *m, cute_int chunk)
{
    cute_alg *a = cute_ctx_alg(c);
    attn_block t = {0};
    cute_int split = cute_block_idx(c, 0);
    t.hk = cute_block_idx(c, 1), t.b = cute_block_idx(c, 2), t.h = t.hk, t.m_block = cute_i(0);
    t.sq = m[0].layout.shape.leaf[1], t.sk = m[1].layout.shape.leaf[1];
    cute_tuple qt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->d);
    cute_tuple kt = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bn, (long long)p->d);
    cute_tensor rows[4];
    for (int i = 0; i < 4; i++) rows[i] = CUTE_SLICE(c, m[i], t.b, CUTE_ALL, t.hk, CUTE_ALL);
    t.gQ = cute_tensor_local_tile(c, rows[0], qt, CUTE_CRD(0, 0), NULL);
    t.gK = cute_tensor_local_tile(c, rows[1], kt, CUTE_CRD(CUTE_ALL, 0), NULL);
    t.gV = cute_tensor_local_tile(c, rows[2], kt, CUTE_CRD(CUTE_ALL, 0), NULL);
    t.gO = cute_tensor_local_tile(c, rows[3], qt, CUTE_CRD(0, 0), NULL);
    attn_coord_tiles(c, p, &t);
    t.gL = attn_lse_tile(c, p, m[4], t.b, t.hk, t.m_block);
    t.n_begin = cute_mul(a, split, chunk);
    t.n_end = cute_min(a, cute_ceil_div(a, t.sk, cute_i(p->bn)), cute_add(a, t.n_begin, chunk));
    return t;
}

static void split_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mOs,
                         cute_tensor mLs, cute_int chunk, cute_val scale_log2)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_int split = cute_block_idx(c, 0);
    if (p->pdl) { /* the kernel before may write Q, K, V or read the workspace; the combine waits for us */
        cute_griddepcontrol_wait(c);
        cute_griddepcontrol_launch_dependents(c);
    }
    cute_tensor m[5] = {mQ, mK, mV, CUTE_SLICE(c, mOs, split, CUTE_ALL, CUTE_ALL, CUTE_ALL, CUTE_ALL),
                        CUTE_SLICE(c, mLs, split, CUTE_ALL, CUTE_ALL, CUTE_ALL)};
    attn_block t = split_tiles(c, p, m, chunk);
    attn_fwd_body(c, p, &t, scale_log2);
}

/* (the split's LSE, its O) folded into a running (max, sum, O) of one output element */
typedef struct running {
    cute_val m, sum, o;
} running;

static void fold(cute_ctx *c, running *r, cute_val l, cute_val o)
{
    cute_val log2e = cute_val_const(c, CUTE_F32, 1.4426950408889634);
    cute_val m = cute_val_binop(c, CUTE_OP_MAX, r->m, l);
    /* exp2((m_old - m) log2 e): 0 for the first split (m_old = -inf, m finite) */
    cute_val corr = cute_val_fast(c, CUTE_OP_EXP2, cute_val_binop(c, CUTE_OP_MUL, cute_val_binop(c, CUTE_OP_SUB, r->m, m), log2e));
    cute_val w = cute_val_fast(c, CUTE_OP_EXP2, cute_val_binop(c, CUTE_OP_MUL, cute_val_binop(c, CUTE_OP_SUB, l, m), log2e));
    cute_val_assign(c, r->sum, cute_val_fma(c, r->sum, corr, w));
    cute_val_assign(c, r->o, cute_val_fma(c, r->o, corr, cute_val_binop(c, CUTE_OP_MUL, w, o)));
    cute_val_assign(c, r->m, m);
}

static cute_val load_one(cute_ctx *c, cute_tensor t)
{
    return cute_ssa_get(c, cute_tensor_load(c, t), 0);
}

static void store_one(cute_ctx *c, cute_tensor t, cute_val v)
{
    cute_tensor_store(c, t, cute_ssa_scalar(c, v, t.layout.shape));
}

/* one block per (row, KV head, batch), a thread per element of D; with p->pdl launched
 * while the split kernel runs, each block waiting for that grid's end (its writes seen),
 * then letting the next call's split kernel in (it waits for this grid's end) */
static void combine_kernel(cute_ctx *c, cute_tensor mOs, cute_tensor mLs, cute_tensor mO, cute_tensor mL,
                           cute_int splits)
{
    const attn_plan *p = cute_ctx_user(c);
    if (p->pdl) {
        cute_griddepcontrol_wait(c);
        cute_griddepcontrol_launch_dependents(c);
    }
    cute_int r = cute_block_idx(c, 0), hk = cute_block_idx(c, 1), b = cute_block_idx(c, 2), d = cute_thread_idx(c, 0);
    running run = {cute_val_var(c, cute_val_const(c, CUTE_F32, -INFINITY)), cute_val_var(c, cute_val_const(c, CUTE_F32, 0)),
                   cute_val_var(c, cute_val_const(c, CUTE_F32, 0))};
    CUTE_FOR(c, s, cute_i(0), splits) {
        fold(c, &run, load_one(c, CUTE_SLICE(c, mLs, s, b, hk, r)), load_one(c, CUTE_SLICE(c, mOs, s, b, r, hk, d)));
    }
    cute_val o = cute_val_binop(c, CUTE_OP_DIV, run.o, run.sum);
    store_one(c, CUTE_SLICE(c, mO, b, r, hk, d), cute_val_cvt(c, o, p->cfg.dtype));
    CUTE_IF(c, cute_int_lt(c, d, cute_i(1))) {
        cute_val l2 = cute_val_unop(c, CUTE_OP_LOG2, run.sum);
        store_one(c, CUTE_SLICE(c, mL, b, hk, r),
                  cute_val_fma(c, l2, cute_val_const(c, CUTE_F32, 0.69314718055994531), run.m));
    }
}

static void decode_host(cute_ctx *c, const cute_arg *arg)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *q = arg[ATTN_DEC_Q].tensor.layout.shape.leaf, *k = arg[ATTN_DEC_K].tensor.layout.shape.leaf;
    cute_int chunk = arg[ATTN_DEC_CHUNK].i;
    cute_int splits = cute_ceil_div(a, cute_ceil_div(a, k[1], cute_i(p->bn)), chunk);
    cute_launch_cfg cfg = {.grid = {splits, k[2], k[0]}, .block = {cute_i(p->threads)}, .pdl = p->pdl};
    cute_tensor mV = arg[ATTN_DEC_V].tensor; /* K's layout: the library checks the strides agree */
    mV.layout = arg[ATTN_DEC_K].tensor.layout;
    CUTE_LAUNCH(c, split_kernel, cfg, arg[ATTN_DEC_Q].tensor, arg[ATTN_DEC_K].tensor, mV, arg[ATTN_DEC_OS].tensor,
                arg[ATTN_DEC_LS].tensor, chunk, arg[ATTN_DEC_SCALE_LOG2].f);
    cute_launch_cfg comb = {.grid = {q[1], k[2], k[0]}, .block = {cute_i(p->d)}, .pdl = p->pdl};
    CUTE_LAUNCH(c, combine_kernel, comb, arg[ATTN_DEC_OS].tensor, arg[ATTN_DEC_LS].tensor, arg[ATTN_DEC_O].tensor,
                arg[ATTN_DEC_L].tensor, splits);
}

const cute_fn *cute_attention_decode_compile(cute_runtime *rt, const cute_attention_config *cfg, char *err, size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    attn_plan *plan = malloc(sizeof *plan);
    /* one warp, 16 rows: a group of up to 16 query heads a tile; the splits' LSE always
     * written (the combine weighs them), the call's LSE always too (the library passes a
     * workspace slot when the caller wants none) */
    cute_attention_config c = *cfg;
    c.lse = true;
    /* both kernels dependent launches (CUTEC_ATTN_DECODE_PDL=1), opt-in: a kernel's launch and
     * start, a few microseconds of a call's ~1 ms at 8x32x32768 d128, under the kernel before
     * it (session 42, H200 in turns: x1.0020 mid pass, x1.0019 final, under the 0.5% asked;
     * the combine's alone x1.0008, not kept: bench/RESULTS.md, attnsm42) */
    bool ok = plan && attn_plan_sized(&a, &c, plan, 16, 1);
    if (ok) plan->pdl = kernel_env_choice(&a, "CUTEC_ATTN_DECODE_PDL", "0|1", 0) == 1, ok = !a.failed;
    if (!ok) {
        snprintf(err, n, "%s", plan ? a.error : "attention decode: out of memory");
        free(plan);
        return NULL;
    }
    char t[160];
    snprintf(t, sizeof t, "(?,?,?,%d):(?{div=8},?{div=8},?{div=8},1)", cfg->head_dim);
    cute_arg_spec specs[ATTN_DEC_NARGS];
    for (int i = 0; i < 4; i++) specs[i] = cute_spec_tensor(cfg->dtype, t, 16);
    specs[ATTN_DEC_V].strides_of = 1 + ATTN_DEC_K; /* V addressed with K's offsets */
    specs[ATTN_DEC_L] = cute_spec_tensor(CUTE_F32, "(?,?,?):(?,?,?)", 4);
    specs[ATTN_DEC_OS] = cute_spec_tensor_compact(CUTE_F32, "(?,?,?,?,?)", true, 16);
    specs[ATTN_DEC_LS] = cute_spec_tensor_compact(CUTE_F32, "(?,?,?,?)", true, 4);
    specs[ATTN_DEC_CHUNK] = cute_spec_int("?");
    specs[ATTN_DEC_SCALE_LOG2] = cute_spec_float(CUTE_F32);
    char name[80];
    snprintf(name, sizeof name, "attention_decode_%s_d%d%s", cute_dtype_name(cfg->dtype), cfg->head_dim,
             plan->pdl ? "_pdl" : "");
    const cute_fn *f = cute_compile(rt, name, decode_host, plan, ATTN_DEC_NARGS, specs, err, n);
    free(plan);
    return f;
}
