/* The Blackwell forward (blackwell_fwd.c) on the interpreter for sm_100a, against the float64
 * reference: every row of O and the LSE, outputs poisoned first, fresh random inputs, at
 * hostile sizes (Sq and Sk odd and unequal, partial Q and key tiles, a block's second Q tile
 * partly or wholly past Sq, more key tiles than K's and V's two stages, causal and not, grouped-query heads, SDPA's transposed Q and O, f16 and
 * bf16, head dims 64 and 128, 64- and 128-key tiles, large scales whose row maxima jump from
 * tile to tile).  Beside them: AUTO picks the kernel on an sm_100 target only where it takes
 * the configuration, the plan's refusals, two broken kernels the interpreter reports (the
 * softmax reading S before the MMA's commit: the T2R of a cell never written; the MMA never
 * committing a P V: a deadlock, each warp's wait), and ptxas's report for sm_100a (no spills) where
 * NVRTC is installed.  No Blackwell GPU runs any of it.  Not caught here: the MMA adding a P V
 * to O before the correction's rescale (the interpreter checks that O's cells were written, not
 * that the correction's tcgen05.st is ordered before the MMA that accumulates into them). */
#include <math.h>
#include <string.h>

#include "kernels/attention/attention_internal.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/attention/attention_testbuf.h"

static uint64_t seed;

typedef struct bw_case {
    int64_t B, Sq, Sk, H, G, D;
    bool causal, sdpa; /* sdpa: Q and O laid out (B,H,S,D) */
    cute_dtype d;
    double scale; /* 0: 1/sqrt(D) */
    int block_n;  /* 0: the kernel's (128; 64 at head dim 128 causal) */
} bw_case;

/* O and the LSE of every row against the reference; the count of wrong elements */
static int64_t wrong_rows(const bw_case *k, const attn_ref_problem *p, const buf *o, const buf *lse,
                          const int64_t so[4], double *worst)
{
    double want[128], mag[128];
    int64_t bad = 0;
    for (int64_t b = 0; b < k->B; b++)
        for (int64_t i = 0; i < k->Sq; i++)
            for (int64_t h = 0; h < k->H; h++) {
                double l;
                attn_ref_row(p, b, i, h, want, mag, &l);
                for (int64_t d = 0; d < k->D; d++) {
                    double got = ew_get(k->d, o->host, b * so[0] + i * so[1] + h * so[2] + d);
                    bad += !attn_ref_close(got, want[d], mag[d], k->d == CUTE_BF16);
                    if (!(fabs(got - want[d]) <= *worst)) *worst = fabs(got - want[d]);
                }
                double got_l = ((const float *)lse->host)[(b * k->H + h) * k->Sq + i];
                bad += !(fabs(got_l - l) <= 1e-4 * (1 + fabs(l)));
            }
    return bad;
}

static void run_case(cute_attention_lib *lib, cute_backend *b, const void *one, const char *backend)
{
    const bw_case *k = one;
    char what[200], err[2048];
    snprintf(what, sizeof what, "%s blackwell %s B%lld Sq%lld Sk%lld H%lld G%lld D%lld bn %d%s%s scale %g", backend,
             cute_dtype_name(k->d), (long long)k->B, (long long)k->Sq, (long long)k->Sk, (long long)k->H,
             (long long)k->G, (long long)k->D, k->block_n, k->causal ? " causal" : "",
             k->sdpa ? " sdpa-layout" : "", k->scale);
    cute_attention_lib_set_kernel(lib, CUTE_ATTENTION_BLACKWELL, k->block_n);
    attn_fwd_call c;
    cute_status s = attn_fwd_test_call(lib, b, k->B, k->Sq, k->Sk, k->H, k->G, k->D, k->causal, k->sdpa, k->d,
                                       k->scale, &seed, &c, err, sizeof err);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    if (s == CUTE_OK) {
        double worst = 0;
        int64_t bad = wrong_rows(k, &c.p, &c.o, &c.lse, c.sq, &worst);
        printf("  %s: %lld rows checked, worst |O - O_ref| %.3g\n", what, (long long)(k->B * k->Sq * k->H), worst);
        CHECK(bad == 0, "%s: %lld wrong elements of O and the LSE (worst %g)", what, (long long)bad, worst);
    }
    attn_fwd_call_drop(b, &c);
}

/* the interpreter compiling for sm_100a */
static void run_cases(const bw_case *cases, int n)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_runtime_set_target_arch(rt, "sm_100a");
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    for (int i = 0; i < n; i++) run_case(lib, cute_runtime_backend(rt), &cases[i], "interp sm_100a");
    cute_attention_lib_free(lib);
    cute_runtime_free(rt);
}

/* AUTO on sm_100 gives the kernel what it takes and the SM80 kernel the rest; the plan
 * refuses what it does not take, naming it */
static void choice_and_refusals(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_runtime_set_target_arch(rt, "sm_100a");
    cute_attention_config d128 = {.dtype = CUTE_BF16, .head_dim = 128, .causal = true};
    cute_attention_config d256 = {.dtype = CUTE_BF16, .head_dim = 256};
    cute_attention_config win = {.dtype = CUTE_F16, .head_dim = 64, .window = true, .window_left = 8};
    CHECK(attn_variant(rt, &d128) == CUTE_ATTENTION_BLACKWELL, "AUTO on sm_100a: not the Blackwell kernel at d128");
    CHECK(attn_variant(rt, &d256) == CUTE_ATTENTION_SM80 && attn_variant(rt, &win) == CUTE_ATTENTION_SM80,
          "AUTO on sm_100a: head dim 256 and windows go to the SM80 kernel");
    cute_runtime_set_target_arch(rt, "sm_90a");
    CHECK(attn_variant(rt, &d128) == CUTE_ATTENTION_HOPPER, "AUTO on sm_90a: the Hopper kernel");
    cute_runtime_free(rt);
    static const struct {
        cute_attention_config cfg;
        int arch;
        const char *says;
    } bad[] = {
        {{.dtype = CUTE_BF16, .head_dim = 128}, 90, "tcgen05 and tensor memory need sm_100 (the target is sm_90)"},
        {{.dtype = CUTE_BF16, .head_dim = 256}, 100, "head dim 256 (64 or 128"},
        {{.dtype = CUTE_F32, .head_dim = 64}, 100, "f32 inputs (f16 or bf16)"},
        {{.dtype = CUTE_BF16, .head_dim = 64, .window = true}, 100, "sliding windows are not taken yet"},
        {{.dtype = CUTE_BF16, .head_dim = 64, .varlen = true}, 100, "packed sequences are not taken yet"},
        {{.dtype = CUTE_BF16, .head_dim = 64, .block_n = 96}, 100, "key tiles of 64 or 128 keys (block_n 96)"},
        {{.dtype = CUTE_BF16, .head_dim = 64, .block_m = 192}, 100, "query tiles of 128 rows (block_m 192)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cute_alg a;
        cute_alg_init(&a, NULL);
        attn_plan p;
        bool ok = attn_plan_blackwell(&a, &bad[i].cfg, bad[i].arch, &p);
        CHECK(!ok && strstr(a.error, bad[i].says), "refusal %zu: %s (want \"%s\")", i, ok ? "planned" : a.error,
              bad[i].says);
    }
}

/* the broken kernels: not OK, the interpreter's report naming each thing in `want` */
static void broken(void)
{
    static const struct {
        unsigned how;
        const char *want[3], *what;
    } b[] = {
        {ATTN_BW_BREAK_S_WAIT, {"tcgen05.ld", "blackwell_fwd.c", "never written"},
         "the softmax reading S before the MMA's commit"},
        {ATTN_BW_BREAK_PV_COMMIT, {"deadlock", "blackwell_fwd.c", "no warp can go on"},
         "the MMA never committing a P V"},
    };
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_runtime_set_target_arch(rt, "sm_100a");
    cute_backend *be = cute_runtime_backend(rt);
    int64_t S = 200, D = 64, st[4];
    strides(S, 1, D, false, st);
    buf x[4], lse;
    for (int i = 0; i < 4; i++) make(be, &x[i], CUTE_BF16, (size_t)(S * D), i == 3, &seed);
    make(be, &lse, CUTE_F32, (size_t)S, true, &seed);
    cute_call_arg args[6];
    for (int i = 0; i < 4; i++) args[i] = cute_call_tensor(&x[i].dev, 0, CUTE_BF16, 4, (int64_t[]){1, S, 1, D}, st);
    args[4] = cute_call_float(0.125 * 1.4426950408889634);
    args[5] = cute_call_tensor(&lse.dev, 0, CUTE_F32, 3, (int64_t[]){1, 1, S}, (int64_t[]){S, S, 1});
    cute_attention_config cfg = {.dtype = CUTE_BF16, .head_dim = (int)D, .lse = true, .variant = CUTE_ATTENTION_BLACKWELL};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        char why[8192];
        const cute_fn *f = attn_blackwell_compile_broken(rt, &cfg, b[i].how, why, sizeof why);
        cute_status s = f ? cute_call(f, NULL, 6, args, why, sizeof why) : CUTE_ERR_COMPILE;
        if (s == CUTE_OK) s = be->vt->sync(be->self, NULL), snprintf(why, sizeof why, "%s", be->vt->error(be->self));
        printf("  %s: %.600s\n", b[i].what, why);
        bool named = f && s != CUTE_OK;
        for (int j = 0; named && j < 3; j++) named = strstr(why, b[i].want[j]) != NULL;
        CHECK(named, "%s: %s, the report wants %s, %s, %s: %s", b[i].what, cute_status_name(s), b[i].want[0],
              b[i].want[1], b[i].want[2], why);
        cute_fn_free(f);
    }
    for (int i = 0; i < 4; i++) drop(be, &x[i]);
    drop(be, &lse);
    cute_runtime_free(rt);
}

/* ptxas's report for sm_100a: no spills */
static void registers(void)
{
    static const cute_attention_config cfgs[] = {
        {.dtype = CUTE_BF16, .head_dim = 128, .lse = true, .variant = CUTE_ATTENTION_BLACKWELL},
        {.dtype = CUTE_F16, .head_dim = 128, .causal = true, .lse = true, .variant = CUTE_ATTENTION_BLACKWELL},
        {.dtype = CUTE_BF16, .head_dim = 64, .causal = true, .lse = true, .variant = CUTE_ATTENTION_BLACKWELL},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        char *text;
        if (!attn_test_usage(cute_attention_compile, &cfgs[i], "sm_100a", &text)) return;
        const char *used = strstr(text, "Used ");
        long regs = used ? strtol(used + 5, NULL, 10) : -1;
        printf("  %s d%d sm_100a%s: %ld registers\n", cute_dtype_name(cfgs[i].dtype), cfgs[i].head_dim,
               cfgs[i].causal ? " causal" : "", regs);
        CHECK(regs > 0 && strstr(text, " 0 bytes spill stores"), "d%d sm_100a: spills or no report:\n%s",
              cfgs[i].head_dim, text);
        free(text);
    }
}

int main(void)
{
    seed = check_seed("blackwell_fwd_test");
    static const bw_case cases[] = {
        {1, 200, 200, 2, 2, 64, false, false, CUTE_BF16, 0, 0},
        {2, 37, 600, 2, 1, 64, false, true, CUTE_F16, 0.2, 0},  /* 5 key tiles through 2 stages */
        {1, 200, 131, 4, 2, 64, true, false, CUTE_F16, 0, 0},   /* causal, Sk < Sq */
        {1, 131, 333, 2, 2, 128, true, true, CUTE_BF16, 0, 128}, /* causal, Sq < Sk; 128-key tiles */
        {1, 130, 130, 2, 1, 128, false, false, CUTE_BF16, 0, 0},
        {1, 70, 300, 2, 1, 64, false, false, CUTE_BF16, 40, 0}, /* maxima jump by > 128 in log2 units */
        {1, 130, 200, 1, 1, 128, true, false, CUTE_F16, 4, 64},
        {1, 1, 1, 1, 1, 64, false, false, CUTE_BF16, 0, 0},
        {1, 257, 257, 1, 1, 64, true, false, CUTE_BF16, 0, 64},
        {1, 300, 300, 2, 1, 128, true, false, CUTE_BF16, 0, 0}, /* block 1's second Q tile past Sq */
        {2, 520, 90, 1, 1, 64, false, true, CUTE_F16, 0, 64},   /* three blocks a head, one key tile */
    };
    run_cases(cases, (int)(sizeof cases / sizeof cases[0]));
    choice_and_refusals();
    broken();
    registers();
    return CHECK_DONE("blackwell_fwd_test");
}
