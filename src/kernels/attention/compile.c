/* cute_attention_compile: the plan, the argument specs (D static and contiguous, every other
 * stride a multiple of 8 elements so that each row starts 16 bytes aligned) and the host
 * function. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/attention/attention_internal.h"
#include "kernels/resident.h"

/* the specs and their count: varlen's cu_seqlens (i32, contiguous) and longest query
 * sequence come before the LSE */
static int make_specs(const cute_attention_config *cfg, cute_arg_spec specs[ATTN_VARLEN_NARGS])
{
    char t[160];
    snprintf(t, sizeof t, "(?,?,?,%d):(?{div=8},?{div=8},?{div=8},1)", cfg->head_dim);
    for (int i = 0; i < 4; i++) specs[i] = cute_spec_tensor(cfg->dtype, t, 16);
    specs[2].strides_of = 1 + 1; /* the kernels address V with K's offsets (fwd_kernel.c) */
    specs[4] = cute_spec_float(CUTE_F32);
    cute_arg_spec lse = cute_spec_tensor(CUTE_F32, "(?,?,?):(?,?,?)", 4);
    if (!cfg->varlen) return specs[5] = lse, cfg->lse ? 6 : 5;
    specs[ATTN_VARLEN_CU_Q] = specs[ATTN_VARLEN_CU_K] = cute_spec_tensor(CUTE_I32, "(?):(1)", 4);
    specs[ATTN_VARLEN_MAX_SQ] = cute_spec_int("?");
    specs[ATTN_VARLEN_LSE] = lse;
    return cfg->lse ? ATTN_VARLEN_NARGS : ATTN_VARLEN_LSE;
}

cute_attention_variant attn_variant(cute_runtime *rt, const cute_attention_config *cfg)
{
    if (cfg->variant != CUTE_ATTENTION_AUTO) return cfg->variant;
    if (cute_runtime_target_arch(rt) == 100 && attn_blackwell_takes(cfg)) return CUTE_ATTENTION_BLACKWELL;
    bool hopper = cute_runtime_target_arch(rt) == 90 && !cfg->window && !cfg->varlen &&
                  attn_hopper_head_dim(cfg->head_dim); /* what it takes */
    return hopper ? CUTE_ATTENTION_HOPPER : CUTE_ATTENTION_SM80;
}

const cute_fn *cute_attention_compile(cute_runtime *rt, const cute_attention_config *cfg, char *err,
                                      size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    attn_plan *plan = malloc(sizeof *plan);
    cute_attention_variant v = attn_variant(rt, cfg);
    bool hopper = v == CUTE_ATTENTION_HOPPER, blackwell = v == CUTE_ATTENTION_BLACKWELL;
    int arch = cute_runtime_target_arch(rt);
    if (!plan || !(blackwell ? attn_plan_blackwell(&a, cfg, arch, plan)
                   : hopper  ? attn_plan_hopper(&a, cfg, arch, plan)
                             : attn_plan_make(&a, cfg, plan))) {
        snprintf(err, n, "%s", plan ? a.error : "attention: out of memory");
        free(plan);
        return NULL;
    }
    /* the persistent grid at head dims 64 and 128 (causal tiles in the snake order, Q in two
     * stages: hopper_sched.c, hopper_plan.c); d128 non-causal since the H200 pass of
     * 2026-11-27 13:35, with 160-key tiles (hopper_plan.c); d256 a block a tile */
    bool automatic = cfg->head_dim == 64 || cfg->head_dim == 128;
    bool persistent = cfg->grid == CUTE_ATTENTION_GRID_PERSISTENT || (cfg->grid == CUTE_ATTENTION_GRID_AUTO && automatic);
    if (hopper && persistent) { /* the persistent grid: a block an SM (3 on the interpreter) */
        int resident = kernels_resident_clusters(rt, 1, plan->threads, 1);
        plan->sms = resident > 0 ? resident : 3;
        if (!attn_plan_hopper_stage_q(&a, plan)) {
            snprintf(err, n, "%s", a.error);
            free(plan);
            return NULL;
        }
    }
    cute_arg_spec specs[ATTN_VARLEN_NARGS];
    int nargs = make_specs(cfg, specs);
    char name[192];
    static const char *const diag_names[] = {"", "_diagnosm", "_diagnorsc", "_diagnoexp", "_diagnosum"};
    int len = snprintf(name, sizeof name, "attention_fwd%s_%s_d%dx%lld%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", hopper ? "_hopper" : "",
                       cute_dtype_name(cfg->dtype), cfg->head_dim, (long long)plan->bn,
                       !hopper && plan->step_n < plan->bn ? "_steps32" : "", !hopper && plan->stages > 1 ? "_kv2" : "",
                       plan->rescale_lazy ? "_lazy" : "",
                       plan->bm == 192 ? "_m192" : "",
                       hopper && !plan->sms ? "_tiles" : "", hopper && plan->q_stages > 1 ? "_q2" : "",
                       hopper && plan->sms && plan->snake && cfg->causal ? "_snake" : "",
                       hopper && plan->split_mask ? "_split" : "", hopper && plan->fast_finish ? "_ffin" : "",
                       hopper && plan->sms && plan->join ? "_join" : "", hopper && plan->wg_uniform ? "_wgu" : "",
                       hopper && plan->skip_idle ? "_skip" : "",
                       !hopper ? "" : diag_names[plan->diag],
                       cfg->causal ? "_causal" : "",
                       cfg->lse ? "_lse" : "", cfg->varlen ? "_varlen" : "");
    if (cfg->window)
        snprintf(name + len, sizeof name - (size_t)len, "_w%d_%d", cfg->window_left, cfg->window_right);
    cute_host_fn host = hopper ? attn_hopper_host : cfg->varlen ? attn_fwd_varlen_host : attn_fwd_host;
    if (blackwell) { /* a name of its own: the other kernels' options are not its */
        snprintf(name, sizeof name, "attention_fwd_blackwell_%s_d%dx%lld%s%s", cute_dtype_name(cfg->dtype),
                 cfg->head_dim, (long long)plan->bn, cfg->causal ? "_causal" : "", cfg->lse ? "_lse" : "");
        host = attn_blackwell_host;
    }
    const cute_fn *f = cute_compile(rt, name, host, plan, nargs,
                                    specs, err, n);
    free(plan); /* only needed while tracing */
    return f;
}

const cute_fn *attn_blackwell_compile_broken(cute_runtime *rt, const cute_attention_config *cfg, unsigned broken,
                                             char *err, size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    attn_plan *plan = malloc(sizeof *plan);
    if (!plan || !attn_plan_blackwell(&a, cfg, cute_runtime_target_arch(rt), plan)) {
        snprintf(err, n, "%s", plan ? a.error : "attention: out of memory");
        free(plan);
        return NULL;
    }
    plan->broken = broken;
    cute_arg_spec specs[ATTN_VARLEN_NARGS];
    char name[64];
    snprintf(name, sizeof name, "attention_fwd_blackwell_broken%u", broken);
    const cute_fn *f = cute_compile(rt, name, attn_blackwell_host, plan, make_specs(cfg, specs), specs, err, n);
    free(plan);
    return f;
}
