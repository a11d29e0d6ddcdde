/* Fused GEMM epilogues (cutec/kernels.h, cute_gemm_epilogue): their names, and the TensorSSA
 * a kernel applies to its f32 fragment after alpha and beta.  ReLU is the elementwise
 * library's expression (ew_ops.c); GELU's tanh form and SiLU are here, on the approximate
 * tanh (tanh.approx.f32, relative error about 2^-11), and GELU's erf form on ex2.approx and
 * a fitted polynomial, cheap enough to hide in the GEMM's epilogue. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "kernels/gemm/gemm_internal.h"

static const char *const act_names[CUTE_GEMM_ACT_COUNT] = {"none", "relu", "gelu_tanh", "gelu", "silu"};

const char *cute_gemm_act_name(cute_gemm_act a) { return (unsigned)a < CUTE_GEMM_ACT_COUNT ? act_names[a] : "?"; }

bool cute_gemm_act_parse(const char *name, cute_gemm_act *out)
{
    for (int i = 0; i < CUTE_GEMM_ACT_COUNT; i++)
        if (!strcmp(name, act_names[i])) return *out = (cute_gemm_act)i, true;
    return false;
}

bool cute_gemm_epilogue_fused(const cute_gemm_epilogue *e)
{
    return e && (e->bias != CUTE_GEMM_BIAS_NONE || e->act != CUTE_GEMM_ACT_NONE || e->fn);
}

static cute_ssa k(cute_ctx *c, cute_ssa like, double v) { return cute_ssa_fill(c, (cute_dtype)like.dtype, like.shape, v); }

/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) = h + h t, h = x / 2, t by tanh.approx */
static cute_ssa gelu_tanh(cute_ctx *c, cute_ssa x)
{
    cute_ssa x3 = cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_binop(c, CUTE_OP_MUL, x, x), x);
    cute_ssa in = cute_ssa_fma(c, x3, k(c, x, 0.044715), x);
    cute_ssa t = cute_ssa_fast(c, CUTE_OP_TANH, cute_ssa_binop(c, CUTE_OP_MUL, in, k(c, x, 0.79788456080286535588)));
    cute_ssa h = cute_ssa_binop(c, CUTE_OP_MUL, x, k(c, x, 0.5));
    return cute_ssa_fma(c, h, t, h);
}

/* x sigmoid(x) = h + h tanh(h), h = x / 2: one tanh.approx and an FMA.  The elementwise
 * library's x / (1 + exp(-x)) costs an IEEE division a value: the 8192^3 bf16 GEMM ran 25%
 * slower with it (H100, bench/RESULTS.md) */
cute_ssa gemm_epilogue_silu(cute_ctx *c, cute_ssa x)
{
    cute_ssa h = cute_ssa_binop(c, CUTE_OP_MUL, x, k(c, x, 0.5));
    return cute_ssa_fma(c, h, cute_ssa_fast(c, CUTE_OP_TANH, h), h);
}

/* GELU's erf form x Phi(x) (Phi the normal CDF) = max(x, 0) - |x| Phi(-|x|), with
 * Phi(-u) = 2^P(u), u = min(|x|, 5.5), P a degree-5 polynomial fitted to log2 Phi(-u) on
 * [0, 5.5] (weighted minimax: Phi(-u)'s absolute error at most 2.9e-7); Phi(-5.5) < 2e-8
 * stands for the rest.  One ex2.approx and 8 FMA-pipe operations, where erff took a branch
 * and about 25 (6% of the 8192^3 GEMM, bench/RESULTS.md); within 1e-6 |x| of float64
 * (epilogue_test.c). */
static cute_ssa gelu_erf(cute_ctx *c, cute_ssa x)
{
    static const double p[] = {-1.00000084, -1.15108315, -0.459276662, -0.0525380481, 0.0073872179, -0.000518861746};
    cute_ssa ax = cute_ssa_unop(c, CUTE_OP_ABS, x), u = cute_ssa_binop(c, CUTE_OP_MIN, ax, k(c, x, 5.5));
    cute_ssa P = k(c, x, p[5]);
    for (int i = 4; i >= 0; i--) P = cute_ssa_fma(c, P, u, k(c, x, p[i]));
    cute_ssa tail = cute_ssa_fast(c, CUTE_OP_EXP2, P); /* Phi(-u) */
    cute_ssa pos = cute_ssa_binop(c, CUTE_OP_MAX, x, k(c, x, 0.0));
    return cute_ssa_fma(c, cute_ssa_unop(c, CUTE_OP_NEG, ax), tail, pos);
}

static cute_ssa act(cute_ctx *c, cute_gemm_act a, cute_ssa x)
{
    switch (a) {
    case CUTE_GEMM_ACT_RELU: return cute_ew_op_expr(c, &x, 1, (void *)(intptr_t)CUTE_EW_RELU);
    case CUTE_GEMM_ACT_GELU_ERF: return gelu_erf(c, x);
    case CUTE_GEMM_ACT_GELU_TANH: return gelu_tanh(c, x);
    case CUTE_GEMM_ACT_SILU: return gemm_epilogue_silu(c, x);
    default: return x;
    }
}

cute_ssa gemm_epilogue_apply(cute_ctx *c, const cute_gemm_epilogue *e, cute_ssa x, cute_ssa v)
{
    if (e->bias != CUTE_GEMM_BIAS_NONE) x = cute_ssa_binop(c, CUTE_OP_ADD, x, v);
    x = act(c, e->act, x);
    if (e->fn) x = cute_ssa_cvt(c, e->fn(c, x, v, e->user), CUTE_F32);
    return x;
}

bool gemm_epilogue_valid(const cute_gemm_epilogue *e, char *err, size_t n)
{
    if ((unsigned)e->act < CUTE_GEMM_ACT_COUNT && (unsigned)e->bias <= CUTE_GEMM_BIAS_COL) return true;
    snprintf(err, n, "gemm epilogue: activation %d, bias %d (a cute_gemm_act below %d, a cute_gemm_bias)", (int)e->act,
             (int)e->bias, CUTE_GEMM_ACT_COUNT);
    return false;
}

/* "_epi_<bias><act>[_<fn's name, its identifier characters>]", or "" for none */
void gemm_epilogue_tag(const cute_gemm_epilogue *e, char *out, size_t n)
{
    static const char *const bias[] = {"", "row_", "col_"};
    out[0] = 0;
    if (!cute_gemm_epilogue_fused(e)) return;
    int len = snprintf(out, n, "_epi_%s%s%s", bias[e->bias], act_names[e->act], e->fn ? "_" : "");
    for (const char *s = e->fn && e->name ? e->name : e->fn ? "fn" : ""; *s && len + 1 < (int)n && len < 48; s++)
        if (isalnum((unsigned char)*s) || *s == '_') out[len++] = *s, out[len] = 0;
}
