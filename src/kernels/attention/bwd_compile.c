/* cute_attention_bwd_compile: the backward's plan, its argument specs (the forward's: D
 * static and contiguous, every other stride a multiple of 8 elements) and the host function
 * launching its three kernels in order on one stream. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/attention/attention_bwd.h"
#include "kernels/kernel_env.h"

static void bwd_host(cute_ctx *c, const cute_arg *arg)
{
    const attn_plan *p = cute_ctx_user(c);
    attn_bwd_pre_launch(c, p, arg, false);
    attn_bwd_dq_launch(c, p, arg);
    attn_bwd_dkdv_launch(c, p, arg);
}

static void make_specs(const cute_attention_config *cfg, cute_arg_spec specs[ATTN_BWD_NARGS])
{
    char t[160];
    snprintf(t, sizeof t, "(?,?,?,%d):(?{div=8},?{div=8},?{div=8},1)", cfg->head_dim);
    for (int i = 0; i < ATTN_BWD_D; i++) specs[i] = cute_spec_tensor(cfg->dtype, t, 16);
    specs[ATTN_BWD_V].strides_of = 1 + ATTN_BWD_K; /* V addressed with K's offsets (bwd_dq.c) */
    specs[ATTN_BWD_LSE] = specs[ATTN_BWD_D] = cute_spec_tensor(CUTE_F32, "(?,?,?):(?,?,?)", 4);
    specs[ATTN_BWD_SCALE_LOG2] = specs[ATTN_BWD_SCALE] = cute_spec_float(CUTE_F32);
    snprintf(t, sizeof t, "(256,%d,?,?,?):(1,256,%d,?{div=4},?{div=4})", cfg->head_dim / 4, 64 * cfg->head_dim);
    specs[ATTN_BWD_DQACC] = cute_spec_tensor(CUTE_F32, t, 16);
    specs[ATTN_BWD_SEM] = cute_spec_tensor(CUTE_U32, "(?,?,?):(?,?,1)", 4);
}

/* the Hopper kernels' plans (and the SM80 one of the preprocessing kernel), or the SM80 plan */
static bool make_plan(cute_alg *a, cute_runtime *rt, const cute_attention_config *cfg, bool hopper, attn_hop_bwd_plan *hp)
{
    hp->fused_dq = hp->dq_atomic = hp->pdl = false; /* (the SM80 host's pre kernel reads them too) */
    if (!attn_bwd_plan_make(a, cfg, &hp->pre)) return false;
    if (!hopper) return true;
    int arch = cute_runtime_target_arch(rt);
    if (!attn_plan_hopper_bwd(a, cfg, arch, &hp->dq) || !attn_plan_hopper_bwd(a, cfg, arch, &hp->kv)) return false;
    /* (head dim 64: K^T in 32-column halves is no GMMA layout; 96: not built; their two
     * kernels stay) */
    int form = kernel_env_choice(a, "CUTEC_ATTN_BWD_FORM", ATTN_BWD_FORMS, attn_bwd_form_default(cfg->causal));
    /* the kernels after pre as dependent launches, the default since session 40's final pass
     * (H200, 8x16x4096 not causal, in turns: 511.2 / 518.1 TFLOP/s against 508.0 / 510.0;
     * bench/RESULTS.md, attnb40); CUTEC_ATTN_BWD_PDL=0 the plain launches (fused-atomic:
     * post_kernel has no counts to wait on; not taken) */
    hp->pdl = kernel_env_choice(a, "CUTEC_ATTN_BWD_PDL", "0|1", 1) == 1 && form != ATTN_BWD_FORM_ATOMIC;
    if (a->failed) return false;
    if (attn_bwd_fuses(form, cfg->head_dim) && !attn_hbdq_plan(a, hp)) return false;
    hp->dq_atomic = hp->fused_dq && form == ATTN_BWD_FORM_ATOMIC;
    return !a->failed;
}

const cute_fn *cute_attention_bwd_compile(cute_runtime *rt, const cute_attention_config *cfg, char *err, size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    bool hopper = attn_variant(rt, cfg) == CUTE_ATTENTION_HOPPER;
    attn_hop_bwd_plan *plan = malloc(sizeof *plan);
    if (!plan || !make_plan(&a, rt, cfg, hopper, plan)) {
        snprintf(err, n, "%s", plan ? a.error : "attention backward: out of memory");
        free(plan);
        return NULL;
    }
    cute_arg_spec specs[ATTN_BWD_NARGS];
    make_specs(cfg, specs);
    char name[80];
    const char *dq = !hopper || !plan->fused_dq ? "" : plan->dq_atomic ? "_dqatomic" : "_dqfused";
    /* (the lean steps follow the head dim, already in the name: attn_plan_hopper_bwd) */
    snprintf(name, sizeof name, "attention_bwd%s_%s_d%d%s%s%s", hopper ? "_hopper" : "", cute_dtype_name(cfg->dtype),
             cfg->head_dim, cfg->causal ? "_causal" : "", dq, hopper && plan->pdl ? "_pdl" : "");
    /* (the SM80 host reads the user pointer as an attn_plan: hp->pre, the struct's first member) */
    const cute_fn *f = cute_compile(rt, name, hopper ? attn_hop_bwd_host : bwd_host, plan, ATTN_BWD_NARGS, specs, err, n);
    free(plan); /* only needed while tracing */
    return f;
}
