/* cute_attention_compile: the plan, the argument specs (D static and contiguous, every other
 * stride a multiple of 8 elements so that each row starts 16 bytes aligned) and the host
 * function. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/attention/attention_internal.h"

static void make_specs(const cute_attention_config *cfg, cute_arg_spec specs[6])
{
    char t[160];
    snprintf(t, sizeof t, "(?,?,?,%d):(?{div=8},?{div=8},?{div=8},1)", cfg->head_dim);
    for (int i = 0; i < 4; i++) specs[i] = cute_spec_tensor(cfg->dtype, t, 16);
    specs[4] = cute_spec_float(CUTE_F32);
    specs[5] = cute_spec_tensor(CUTE_F32, "(?,?,?):(?,?,?)", 4);
}

cute_attention_variant attn_variant(cute_runtime *rt, const cute_attention_config *cfg)
{
    if (cfg->variant != CUTE_ATTENTION_AUTO) return cfg->variant;
    return cute_runtime_target_arch(rt) == 90 ? CUTE_ATTENTION_HOPPER : CUTE_ATTENTION_SM80;
}

const cute_fn *cute_attention_compile(cute_runtime *rt, const cute_attention_config *cfg, char *err,
                                      size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    attn_plan *plan = malloc(sizeof *plan);
    bool hopper = attn_variant(rt, cfg) == CUTE_ATTENTION_HOPPER;
    if (!plan || !(hopper ? attn_plan_hopper(&a, cfg, plan) : attn_plan_make(&a, cfg, plan))) {
        snprintf(err, n, "%s", plan ? a.error : "attention: out of memory");
        free(plan);
        return NULL;
    }
    cute_arg_spec specs[6];
    make_specs(cfg, specs);
    char name[80];
    snprintf(name, sizeof name, "attention_fwd%s_%s_d%dx%lld%s%s", hopper ? "_hopper" : "", cute_dtype_name(cfg->dtype),
             cfg->head_dim, (long long)plan->bn, cfg->causal ? "_causal" : "", cfg->lse ? "_lse" : "");
    const cute_fn *f = cute_compile(rt, name, hopper ? attn_hopper_host : attn_fwd_host, plan, cfg->lse ? 6 : 5,
                                    specs, err, n);
    free(plan); /* only needed while tracing */
    return f;
}
