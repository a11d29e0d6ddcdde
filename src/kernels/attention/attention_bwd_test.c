/* Attention backward (cutec_attention_bwd) against the float64 reference (attn_ref_bwd): on
 * the interpreter at small odd sizes (partial tiles, causal and not, Sq != Sk both ways,
 * grouped- and multi-query, Q, O, dO and dQ in SDPA's transposed memory, head dims 64, 96
 * and 128, f16 and bf16), every element of dQ, dK, dV and delta, the outputs poisoned first; O
 * and the LSE are the reference's (O rounded to the dtype), so the backward is checked on
 * its own.  On a GPU, where there is one, at moderate sizes.  Beside them: the misuses the
 * library refuses and the kernels' register reports (NVRTC, where installed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/attention.h"
#include "cutec/cuda_driver.h"
#include "cutec/nvrtc.h"
#include "kernels/attention/attention_bwd.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/attention/attention_testbuf.h"

static uint64_t seed;
/* the kernels run_case asks the library for (AUTO: the target's) */
static cute_attention_variant wanted;

typedef struct bwd_case {
    int64_t B, Sq, Sk, H, G, D;
    bool causal, sdpa;
    cute_dtype d;
    double scale; /* 0: 1/sqrt(D) */
} bwd_case;

enum { Q, K, V, O, DO, LSE, DQ, DK, DV, DELTA, NBUF };

typedef struct bwd_run {
    const bwd_case *k;
    buf t[NBUF];
    int64_t sq[4], sk[4];
    cute_call_arg arg[NBUF];
    attn_ref_problem p;
    double *lse; /* the reference's, (B,H,Sq) */
} bwd_run;

/* O and the LSE of the reference, O rounded to the dtype, into the run's buffers */
static void forward_by_reference(cute_backend *b, bwd_run *r)
{
    const bwd_case *k = r->k;
    double *o = malloc((size_t)k->D * 2 * sizeof *o), lse;
    r->lse = malloc((size_t)(k->B * k->H * k->Sq) * sizeof *r->lse);
    for (int64_t bb = 0; bb < k->B; bb++)
        for (int64_t i = 0; i < k->Sq; i++)
            for (int64_t h = 0; h < k->H; h++) {
                attn_ref_row(&r->p, bb, i, h, o, o + k->D, &lse);
                int64_t at = bb * r->sq[0] + i * r->sq[1] + h * r->sq[2];
                for (int64_t d = 0; d < k->D; d++) ew_set(k->d, r->t[O].host, at + d, o[d]);
                ((float *)r->t[LSE].host)[(bb * k->H + h) * k->Sq + i] = (float)lse;
                r->lse[(bb * k->H + h) * k->Sq + i] = lse;
            }
    free(o);
    for (int i = O; i <= LSE; i += LSE - O) {
        buf *x = &r->t[i];
        for (size_t e = 0; e < x->n; e++) x->wide[e] = ew_get(x->d, x->host, (int64_t)e);
        b->vt->upload(b->self, &x->dev, 0, x->host, x->n * (size_t)cute_dtype_bytes(x->d));
    }
}

static void setup(cute_backend *b, bwd_run *r)
{
    const bwd_case *k = r->k;
    strides(k->Sq, k->H, k->D, k->sdpa, r->sq);
    strides(k->Sk, k->G, k->D, false, r->sk);
    size_t nq = (size_t)(k->B * k->Sq * k->H * k->D), nk = (size_t)(k->B * k->Sk * k->G * k->D);
    size_t n[NBUF] = {nq, nk, nk, nq, nq, (size_t)(k->B * k->H * k->Sq), nq, nk, nk, (size_t)(k->B * k->H * k->Sq)};
    for (int i = 0; i < NBUF; i++)
        make(b, &r->t[i], i == LSE || i == DELTA ? CUTE_F32 : k->d, n[i], !(i == Q || i == K || i == V || i == DO), &seed);
    for (int i = 0; i < NBUF; i++) {
        bool kv = i == K || i == V || i == DK || i == DV;
        if (i == LSE || i == DELTA)
            r->arg[i] = cute_call_tensor(&r->t[i].dev, 0, CUTE_F32, 3, (int64_t[]){k->B, k->H, k->Sq},
                                         (int64_t[]){k->H * k->Sq, k->Sq, 1});
        else
            r->arg[i] = cute_call_tensor(&r->t[i].dev, 0, k->d, 4,
                                         (int64_t[]){k->B, kv ? k->Sk : k->Sq, kv ? k->G : k->H, k->D}, kv ? r->sk : r->sq);
    }
    attn_ref_problem p = {k->B, k->Sq, k->Sk, k->H, k->G, k->D, k->causal, k->scale > 0 ? k->scale : 1 / sqrt((double)k->D),
                          {r->t[Q].wide, {r->sq[0], r->sq[1], r->sq[2], 1}}, {r->t[K].wide, {r->sk[0], r->sk[1], r->sk[2], 1}},
                          {r->t[V].wide, {r->sk[0], r->sk[1], r->sk[2], 1}}};
    r->p = p;
    forward_by_reference(b, r);
}

/* bad elements of one row of D values against the reference's */
static int64_t compare_row(const bwd_run *r, const buf *got, const int64_t at, const double *want, const double *mag,
                           double *worst)
{
    int64_t bad = 0;
    for (int64_t d = 0; d < r->k->D; d++) {
        double g = got->wide[at + d], err = fabs(g - want[d]);
        bad += !attn_ref_close_grad(g, want[d], mag[d], r->k->d == CUTE_BF16);
        if (!(err <= *worst)) *worst = err;
    }
    return bad;
}

/* delta = rowsum(dO O) of the O the kernel was given, within f32 summation */
static int64_t compare_delta(const bwd_run *r)
{
    const bwd_case *k = r->k;
    int64_t bad = 0;
    for (int64_t b = 0; b < k->B; b++)
        for (int64_t i = 0; i < k->Sq; i++)
            for (int64_t h = 0; h < k->H; h++) {
                double want = 0, mag = 0;
                int64_t at = b * r->sq[0] + i * r->sq[1] + h * r->sq[2];
                for (int64_t d = 0; d < k->D; d++) {
                    double x = r->t[DO].wide[at + d] * r->t[O].wide[at + d];
                    want += x, mag += fabs(x);
                }
                double got = r->t[DELTA].wide[(b * k->H + h) * k->Sq + i];
                bad += !(fabs(got - want) <= 1e-5 * mag + 1e-6);
            }
    return bad;
}

static void check_grads(bwd_run *r, const char *what)
{
    const bwd_case *k = r->k;
    attn_ref_given f = {{r->t[DO].wide, {r->sq[0], r->sq[1], r->sq[2], 1}}, {r->t[O].wide, {r->sq[0], r->sq[1], r->sq[2], 1}},
                        r->lse};
    double *w = malloc((size_t)k->D * 4 * sizeof *w), *out[4] = {w, w + k->D, w + 2 * k->D, w + 3 * k->D};
    double wq = 0, wk = 0, wv = 0;
    int64_t bq = 0, bk = 0, bv = 0;
    for (int64_t b = 0; b < k->B; b++) {
        for (int64_t i = 0; i < k->Sq; i++)
            for (int64_t h = 0; h < k->H; h++) {
                attn_ref_dq_row(&r->p, &f, b, i, h, out[0], out[1]);
                bq += compare_row(r, &r->t[DQ], b * r->sq[0] + i * r->sq[1] + h * r->sq[2], out[0], out[1], &wq);
            }
        for (int64_t j = 0; j < k->Sk; j++)
            for (int64_t g = 0; g < k->G; g++) {
                attn_ref_dkv_row(&r->p, &f, b, j, g, out);
                int64_t at = b * r->sk[0] + j * r->sk[1] + g * r->sk[2];
                bk += compare_row(r, &r->t[DK], at, out[0], out[1], &wk);
                bv += compare_row(r, &r->t[DV], at, out[2], out[3], &wv);
            }
    }
    int64_t bd = compare_delta(r);
    printf("  %s: worst |dQ - ref| %.3g, |dK - ref| %.3g, |dV - ref| %.3g\n", what, wq, wk, wv);
    CHECK(bq == 0 && bk == 0 && bv == 0 && bd == 0, "%s: wrong elements: dQ %lld of %zu, dK %lld, dV %lld of %zu, "
          "delta %lld", what, (long long)bq, r->t[DQ].n, (long long)bk, (long long)bv, r->t[DK].n, (long long)bd);
    free(w);
}

/* On a GPU: a second call gives the same dQ, dK and dV bit for bit (the order of every sum is
 * fixed, the dQ sums' across blocks too) */
static void same_again(cute_attention_lib *lib, cute_backend *b, bwd_run *r, const char *what)
{
    const bwd_case *k = r->k;
    const cute_call_arg *a = r->arg;
    char err[2048];
    void *first[3];
    for (int i = 0; i < 3; i++) {
        buf *x = &r->t[DQ + i];
        size_t bytes = x->n * (size_t)cute_dtype_bytes(x->d);
        first[i] = malloc(bytes);
        memcpy(first[i], x->host, bytes);
    }
    cute_status s = cutec_attention_bwd(lib, &a[Q], &a[K], &a[V], &a[O], &a[DO], &a[LSE], &a[DQ], &a[DK], &a[DV],
                                        &a[DELTA], k->scale, k->causal, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s (again): %s", what, err);
    for (int i = 0; i < 3 && s == CUTE_OK; i++) {
        buf *x = &r->t[DQ + i];
        fetch(b, x);
        CHECK(!memcmp(first[i], x->host, x->n * (size_t)cute_dtype_bytes(x->d)), "%s: %s differs in a second call",
              what, i == 0 ? "dQ" : i == 1 ? "dK" : "dV");
    }
    for (int i = 0; i < 3; i++) free(first[i]);
}

static void run_case(cute_attention_lib *lib, cute_backend *b, const void *one, const char *backend)
{
    const bwd_case *k = one;
    char what[200], err[2048];
    if (!attn_test_hopper_here(b, wanted, "the Hopper backward")) return;
    cute_attention_lib_set_kernel(lib, wanted, 0);
    const char *form = getenv("CUTEC_ATTN_BWD_FORM"); /* (fused-atomic: dQ's sums in no set order) */
    snprintf(what, sizeof what, "%s%s %s B%lld Sq%lld Sk%lld H%lld G%lld D%lld%s%s%s%s", backend,
             wanted == CUTE_ATTENTION_HOPPER ? " hopper" : "", cute_dtype_name(k->d),
             (long long)k->B, (long long)k->Sq, (long long)k->Sk, (long long)k->H, (long long)k->G, (long long)k->D,
             k->causal ? " causal" : "", k->sdpa ? " sdpa-layout" : "", form ? " form " : "", form ? form : "");
    bwd_run r = {.k = k};
    setup(b, &r);
    const cute_call_arg *a = r.arg;
    cute_status s = cutec_attention_bwd(lib, &a[Q], &a[K], &a[V], &a[O], &a[DO], &a[LSE], &a[DQ], &a[DK], &a[DV],
                                        &a[DELTA], k->scale, k->causal, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    if (s == CUTE_OK) {
        for (int i = DQ; i < NBUF; i++) fetch(b, &r.t[i]);
        check_grads(&r, what);
        if (!strcmp(backend, "cuda") && !(form && !strcmp(form, "fused-atomic"))) same_again(lib, b, &r, what);
    }
    for (int i = 0; i < NBUF; i++) drop(b, &r.t[i]);
    free(r.lse);
}

/* calls the library refuses, each with the message that names the problem */
static void misuse(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    cute_buffer none = {0};
    int64_t st[4] = {2 * 4 * 64, 4 * 64, 64, 1}, s256[4] = {2 * 4 * 256, 4 * 256, 256, 1};
    cute_call_arg q = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 64}, st);
    cute_call_arg q3 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 3, 4, 64}, st);
    cute_call_arg q256 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 256}, s256);
    cute_call_arg l = cute_call_tensor(&none, 0, CUTE_F32, 3, (int64_t[]){1, 4, 2}, (int64_t[]){8, 2, 1});
    cute_call_arg l16 = cute_call_tensor(&none, 0, CUTE_F16, 3, (int64_t[]){1, 4, 2}, (int64_t[]){8, 2, 1});
    static const struct {
        int which;
        const char *says;
    } cases[] = {
        {0, "head dim 256 (a multiple of 32 from 32 to 128)"}, {1, "no lse"}, {2, "dK must be shaped as K (mode 1: 3, K 2)"},
        {3, "delta is not an f32 (B, H, Sq) tensor"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w = cases[i].which;
        const cute_call_arg *Q = w == 0 ? &q256 : &q;
        cute_status s = cutec_attention_bwd(lib, Q, Q, Q, Q, Q, w == 1 ? NULL : &l, Q, w == 2 ? &q3 : Q, Q,
                                            w == 3 ? &l16 : &l, 0, false, NULL, err, sizeof err);
        CHECK(s == CUTE_ERR_INVALID && strstr(err, cases[i].says), "case %d: %s (want \"%s\")", w, err, cases[i].says);
    }
    cute_attention_lib_free(lib);
    cute_runtime_free(rt);
}

/* each kernel's registers and spills from a ptxas report (its lines, in its order) */
static void print_usage(int D, const char *arch, const char *report)
{
    char line[512];
    for (const char *l = report; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), l);
        const char *fn = strstr(line, "entry function"), *sp = strstr(line, "bytes stack frame"), *used = strstr(line, "Used ");
        if (fn) printf("  backward d%d %s: %s\n", D, arch, fn + 15);
        if (sp || used) printf("    %s\n", sp ? sp + 18 : used);
        l = e ? e + 1 : NULL;
    }
}

/* the head dims the Hopper backward takes */
static const int hopper_dims[] = {64, 96, 128};

/* the largest number before `what` in a ptxas report, over its kernels (-1: none) */
static long number_before(const char *text, const char *what)
{
    long most = -1;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what)) {
        const char *n = at;
        while (n > text && n[-1] == ' ') n--;
        while (n > text && n[-1] >= '0' && n[-1] <= '9') n--;
        long v = strtol(n, NULL, 10);
        most = v > most ? v : most;
    }
    return most;
}

/* Compile-only: the ptxas report of the backward's kernels, where NVRTC is installed:
 * printed for the SM80 kernels on sm_80 and sm_90a (d128's dK/dV kernel spills 104 bytes:
 * its dK and dV accumulators are 128 registers a thread); the Hopper kernels (d64, d96 and
 * d128, causal and not) must not spill, nor have ptxas serialize their wgmmas or (the two
 * kernels) inject a wait into a batch */
static void register_reports(void)
{
    for (int i = 0; i < 2; i++) {
        const char *arch = i ? "sm_90a" : "sm_80";
        cute_attention_config cfg = {.dtype = i ? CUTE_BF16 : CUTE_F16, .head_dim = i ? 128 : 64, .causal = i == 1,
                                     .lse = true, .variant = CUTE_ATTENTION_SM80};
        char *report;
        if (!attn_test_usage(cute_attention_bwd_compile, &cfg, arch, &report)) return;
        print_usage(cfg.head_dim, arch, report);
        free(report);
    }
    for (int i = 0; i < 6; i++) {
        cute_attention_config cfg = {.dtype = i & 1 ? CUTE_F16 : CUTE_BF16, .head_dim = hopper_dims[i / 2],
                                     .causal = (i & 1) != 0, .lse = true, .variant = CUTE_ATTENTION_HOPPER};
        char *report;
        if (!attn_test_usage(cute_attention_bwd_compile, &cfg, "sm_90a", &report)) return;
        print_usage(cfg.head_dim, "sm_90a hopper", report);
        long spill = number_before(report, "bytes spill stores");
        CHECK(spill == 0 && !strstr(report, "serialized"), "hopper backward d%d: %ld bytes spilled or wgmma "
              "serialized:\n%s", cfg.head_dim, spill, report);
        /* the two kernels' scores overwrite their accumulators in place: no warpgroup.wait
         * injected into a batch (C7517; d64 causal zero-fills them, and so does d128 where
         * the default is dQ fused: its report is checked below) */
        bool fused = cfg.head_dim == 128 && attn_bwd_form_default(cfg.causal) != ATTN_BWD_FORM_TWO;
        if (i != 1 && !fused)
            CHECK(!strstr(report, "injected"), "hopper backward d%d: ptxas injected a warpgroup.wait:\n%s",
                  cfg.head_dim, report);
        free(report);
    }
    for (int i = 0; i < 4; i++) { /* d128 with dQ fused (CUTEC_ATTN_BWD_FORM), deterministic and atomic */
        cute_attention_config cfg = {.dtype = i & 1 ? CUTE_F16 : CUTE_BF16, .head_dim = 128, .causal = (i & 1) != 0,
                                     .lse = true, .variant = CUTE_ATTENTION_HOPPER};
        char *report;
        setenv("CUTEC_ATTN_BWD_FORM", i < 2 ? "fused" : "fused-atomic", 1);
        bool made = attn_test_usage(cute_attention_bwd_compile, &cfg, "sm_90a", &report);
        unsetenv("CUTEC_ATTN_BWD_FORM");
        if (!made) return;
        print_usage(cfg.head_dim, i < 2 ? "sm_90a hopper fused" : "sm_90a hopper fused-atomic", report);
        long spill = number_before(report, "bytes spill stores");
        /* (the fused kernel's scores are zero-filled: ptxas injects a wait there, C7517) */
        CHECK(spill == 0 && !strstr(report, "serialized"), "hopper backward d128 fused: %ld bytes spilled or wgmma "
              "serialized:\n%s", spill, report);
        free(report);
    }
}

/* Compile-only (CUDA C, no NVRTC): each product of the Hopper kernels' batches one wgmma
 * chain with no fence inside (attn_test_split_chains), d64, d96 and d128, causal and not */
static void unsplit_chains(void)
{
    for (int i = 0; i < 6; i++) {
        cute_attention_config cfg = {.dtype = i & 1 ? CUTE_F16 : CUTE_BF16, .head_dim = hopper_dims[i / 2],
                                     .causal = (i & 1) != 0, .lse = true, .variant = CUTE_ATTENTION_HOPPER};
        int split = attn_test_split_chains(cute_attention_bwd_compile, &cfg);
        CHECK(split == 0, "hopper backward d%d%s: %d wgmmas fenced inside their batch", cfg.head_dim,
              cfg.causal ? " causal" : "", split);
    }
}

/* On a GPU (each a visible skip without one): the kernels at moderate sizes, every element
 * against float64, a second call the same bits; head dim 128 with dQ fused, deterministic
 * and (no second call) atomic */
static void on_gpu(void)
{
    static const bwd_case moderate[] = {
        {2, 300, 300, 6, 2, 128, true, true, CUTE_BF16, 0},
        {1, 257, 513, 4, 4, 64, false, false, CUTE_F16, 0},
        {1, 400, 200, 8, 1, 64, true, false, CUTE_BF16, 0.05},
        {2, 1000, 1000, 6, 2, 128, false, true, CUTE_BF16, 0},
        {1, 333, 517, 6, 3, 96, true, false, CUTE_BF16, 0},
    };
    static const bwd_case fused[] = { /* (small: a device pass's time limit) */
        {2, 300, 300, 6, 2, 128, true, true, CUTE_BF16, 0},
        {1, 700, 700, 4, 2, 128, false, false, CUTE_BF16, 0},
    };
    wanted = CUTE_ATTENTION_HOPPER;
    ATTN_TEST_ON("cuda", "the attention backward (hopper)", moderate);
    setenv("CUTEC_ATTN_BWD_FORM", "fused", 1);
    ATTN_TEST_ON("cuda", "the attention backward (hopper, dQ fused)", fused);
    setenv("CUTEC_ATTN_BWD_FORM", "fused-atomic", 1);
    ATTN_TEST_ON("cuda", "the attention backward (hopper, dQ fused, added in any order)", fused);
    unsetenv("CUTEC_ATTN_BWD_FORM");
    /* the default forms (fused where not causal, two where causal) as dependent launches,
     * the last kernel under the dK/dV kernel's last wave: on a GPU only they overlap */
    setenv("CUTEC_ATTN_BWD_PDL", "1", 1);
    ATTN_TEST_ON("cuda", "the attention backward (hopper, dependent launches)", fused);
    unsetenv("CUTEC_ATTN_BWD_PDL");
    wanted = CUTE_ATTENTION_SM80;
    ATTN_TEST_ON("cuda", "the attention backward", moderate);
}

int main(void)
{
    seed = check_seed("attention_bwd_test");
    static const bwd_case small[] = {
        {1, 37, 37, 2, 2, 64, false, false, CUTE_BF16, 0},
        {1, 70, 70, 4, 2, 64, true, true, CUTE_F16, 0},
        {2, 37, 70, 2, 1, 128, false, true, CUTE_BF16, 0.2},
        {1, 70, 37, 2, 2, 128, true, false, CUTE_F16, 0},
        {1, 45, 130, 2, 2, 64, true, false, CUTE_BF16, 0},
        /* head dims past 64 and 128 (AUTO runs the SM80 kernels on every card for them) */
        {1, 45, 70, 2, 1, 96, true, false, CUTE_BF16, 0},
        {1, 37, 45, 2, 2, 32, false, false, CUTE_F16, 0},
    };
    /* the Hopper kernels: several tiles on both sides (128 rows resident, 64 streamed),
     * partial ones, key tiles no causal query sees */
    static const bwd_case hopper_small[] = {
        {1, 150, 150, 2, 2, 64, false, false, CUTE_BF16, 0},
        {1, 130, 200, 4, 2, 64, true, true, CUTE_F16, 0},
        {1, 45, 300, 2, 2, 64, true, false, CUTE_BF16, 0},
        {1, 200, 70, 2, 1, 128, true, false, CUTE_BF16, 0.2},
        {2, 70, 150, 2, 2, 128, false, true, CUTE_F16, 0},
    };
    /* head dim 128: three key tiles a query tile, grouped; causal with key tiles no query
     * sees; one key tile */
    static const bwd_case hopper_d128[] = {
        {1, 130, 300, 2, 1, 128, false, false, CUTE_BF16, 0},
        {1, 100, 300, 2, 2, 128, true, true, CUTE_BF16, 0},
        {1, 200, 70, 2, 1, 128, true, false, CUTE_F16, 0.2},
    };
    /* head dim 96 (64-byte swizzled tiles, three TMA boxes a row): odd sizes both ways,
     * causal with key tiles no query sees, grouped */
    static const bwd_case hopper_d96[] = {
        {1, 131, 203, 2, 1, 96, false, false, CUTE_BF16, 0}, /* (grouped 2:1; 4 on 2 until session 40) */
        {1, 75, 301, 2, 2, 96, true, true, CUTE_F16, 0},
        {2, 201, 67, 4, 1, 96, true, false, CUTE_BF16, 0.2},
    };
    misuse();
    on_gpu(); /* first: a device pass with a time limit sees them */
    wanted = CUTE_ATTENTION_SM80;
    ATTN_TEST_ON("interp", "the attention backward", small);
    wanted = CUTE_ATTENTION_HOPPER;
    ATTN_TEST_ON("interp", "the attention backward (hopper)", hopper_small);
    /* (the d128 defaults, fused and two, as dependent launches: CUTEC_ATTN_BWD_PDL; the
     * plain launches at d128 by hopper_small's cases and fused's below) */
    setenv("CUTEC_ATTN_BWD_PDL", "1", 1);
    ATTN_TEST_ON("interp", "the attention backward (hopper, dependent launches)", hopper_d128);
    unsetenv("CUTEC_ATTN_BWD_PDL");
    ATTN_TEST_ON("interp", "the attention backward (hopper)", hopper_d96);
    /* head dim 128 with dQ fused (CUTEC_ATTN_BWD_FORM=fused, read as the library compiles):
     * the hopper_d128 cases (three key tiles adding to each query tile in turn, the first
     * storing, grouped; causal with key tiles no query sees, whose blocks add nothing and are
     * no one's turn; one key tile), odd sizes, two batches */
    static const bwd_case fused_more[] = {
        {2, 70, 150, 2, 1, 128, false, true, CUTE_F16, 0}, /* (grouped 2:1; 4 on 2 until session 40) */
        {1, 333, 270, 2, 1, 128, true, false, CUTE_BF16, 0},
    };
    setenv("CUTEC_ATTN_BWD_FORM", "fused", 1);
    ATTN_TEST_ON("interp", "the attention backward (hopper, dQ fused)", hopper_d128);
    ATTN_TEST_ON("interp", "the attention backward (hopper, dQ fused, odd sizes)", fused_more);
    /* and added in no set order into zeroed sums (fused-atomic): three key tiles adding;
     * query tiles no key tile meets (zero, from the zeroing alone) */
    static const bwd_case fused_atomic[] = {
        {1, 130, 300, 2, 1, 128, false, false, CUTE_BF16, 0},
        {1, 200, 70, 2, 1, 128, true, false, CUTE_F16, 0.2},
    };
    setenv("CUTEC_ATTN_BWD_FORM", "fused-atomic", 1);
    ATTN_TEST_ON("interp", "the attention backward (hopper, dQ fused, added in any order)", fused_atomic);
    unsetenv("CUTEC_ATTN_BWD_FORM");
    /* AUTO on an sm_90a target: the Hopper backward at 96 and 128, resolved by the forward's
     * rule (attn_variant: attn_hopper_bwd_head_dim) */
    static const bwd_case auto_sm90[] = {
        {1, 70, 45, 2, 1, 96, true, false, CUTE_BF16, 0},
        {1, 45, 70, 2, 2, 128, false, false, CUTE_F16, 0},
    };
    setenv("CUTEC_ARCH", "sm_90a", 1);
    cute_runtime *rt90 = NULL;
    char err90[256];
    if (cute_runtime_new("interp", &rt90, err90, sizeof err90) == CUTE_OK) {
        cute_attention_config d96 = {.dtype = CUTE_BF16, .head_dim = 96, .lse = true};
        cute_attention_config d128 = {.dtype = CUTE_BF16, .head_dim = 128, .lse = true};
        CHECK(attn_variant(rt90, &d96) == CUTE_ATTENTION_HOPPER && attn_variant(rt90, &d128) == CUTE_ATTENTION_HOPPER &&
                  attn_hopper_bwd_head_dim(96) && attn_hopper_bwd_head_dim(128),
              "AUTO on sm_90a: the backward at d96 and d128 is Hopper's");
        cute_runtime_free(rt90);
    }
    wanted = CUTE_ATTENTION_AUTO;
    ATTN_TEST_ON("interp", "the attention backward (AUTO on sm_90a)", auto_sm90);
    unsetenv("CUTEC_ARCH");
    unsplit_chains();
    register_reports();
    return CHECK_DONE("attention_bwd_test");
}
