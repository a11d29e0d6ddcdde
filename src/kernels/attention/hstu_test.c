/* HSTU attention (cutec_hstu_attention) against the float64 reference: on the interpreter at
 * small odd sizes (Sq != Sk, partial Q and key tiles, two Q tiles, causal and not, f16 and
 * bf16, head dims 64 and 128, the fast sigmoid, Q, O and V in (B,H,S,D) memory, RAB's rows
 * padded, RAB to +-600 so that 2^(-x log2 e) overflows), every row of O, the outputs poisoned
 * first; on a GPU, where there is one, at moderate sizes; 128-row Q tiles
 * (CUTEC_HSTU_BLOCK_M=128) likewise; the Hopper kernel (CUTEC_HSTU_VARIANT=hopper) likewise,
 * on the GPU where it is an sm_90 one.  Beside them: the misuses the library refuses, and the
 * kernel's register report (no spills) for sm_80 and sm_90a where NVRTC is installed (the
 * jagged kernel's too: its runs are hstu_jagged_test.c's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/hstu.h"
#include "kernels/attention/attention_testbuf.h"
#include "kernels/attention/hstu_ref.h"
#include "kernels/attention/hstu_testkit.h"

static uint64_t seed;

typedef struct hstu_case {
    int64_t B, Sq, Sk, H, D;
    bool causal, fast, sdpa; /* sdpa: Q, O and V live as (B,H,S,D), K as (B,S,H,D) */
    cute_dtype d;
    double rab_scale;        /* RAB's values times this (0: 1): past +-88, where 2^(-x log2 e) overflows */
} hstu_case;

/* RAB (B, H, Sq, Sk) with its rows padded to a multiple of 8 elements */
static void rab_strides(const hstu_case *k, int64_t st[4])
{
    int64_t row = (k->Sk + 7) / 8 * 8;
    st[3] = 1, st[2] = row, st[1] = k->Sq * row, st[0] = k->H * k->Sq * row;
}

static void run_case(cute_hstu_lib *lib, cute_backend *b, const void *kase, const char *backend)
{
    const hstu_case *k = kase;
    int64_t sq[4], sk[4], sv[4], sr[4];
    strides(k->Sq, k->H, k->D, k->sdpa, sq);
    strides(k->Sk, k->H, k->D, false, sk);
    strides(k->Sk, k->H, k->D, k->sdpa, sv);
    rab_strides(k, sr);
    buf q, kk, v, r, o;
    make(b, &q, k->d, (size_t)(k->B * k->Sq * k->H * k->D), false, &seed);
    make(b, &kk, k->d, (size_t)(k->B * k->Sk * k->H * k->D), false, &seed);
    make(b, &v, k->d, (size_t)(k->B * k->Sk * k->H * k->D), false, &seed);
    make(b, &r, k->d, (size_t)(k->B * sr[0]), false, &seed);
    make(b, &o, k->d, (size_t)(k->B * k->Sq * k->H * k->D), true, &seed);
    for (size_t i = 0; k->rab_scale && i < r.n; i++) {
        ew_set(k->d, r.host, (int64_t)i, r.wide[i] * k->rab_scale);
        r.wide[i] = ew_get(k->d, r.host, (int64_t)i);
    }
    b->vt->upload(b->self, &r.dev, 0, r.host, r.n * (size_t)cute_dtype_bytes(k->d));
    cute_call_arg aq = cute_call_tensor(&q.dev, 0, k->d, 4, (int64_t[]){k->B, k->Sq, k->H, k->D}, sq);
    cute_call_arg ak = cute_call_tensor(&kk.dev, 0, k->d, 4, (int64_t[]){k->B, k->Sk, k->H, k->D}, sk);
    cute_call_arg av = cute_call_tensor(&v.dev, 0, k->d, 4, (int64_t[]){k->B, k->Sk, k->H, k->D}, sv);
    cute_call_arg ar = cute_call_tensor(&r.dev, 0, k->d, 4, (int64_t[]){k->B, k->H, k->Sq, k->Sk}, sr);
    cute_call_arg ao = cute_call_tensor(&o.dev, 0, k->d, 4, (int64_t[]){k->B, k->Sq, k->H, k->D}, sq);
    char err[1024];
    cute_status s = cutec_hstu_attention(lib, &aq, &ak, &av, &ar, &ao, k->causal, k->fast, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    char what[160];
    snprintf(what, sizeof what, "%s %s B%lld Sq%lld Sk%lld H%lld D%lld%s%s%s rab x%g", backend,
             cute_dtype_name(k->d), (long long)k->B, (long long)k->Sq, (long long)k->Sk, (long long)k->H,
             (long long)k->D, k->causal ? " causal" : "", k->fast ? " fast" : "", k->sdpa ? " sdpa" : "",
             k->rab_scale ? k->rab_scale : 1);
    CHECK(s == CUTE_OK, "%s: %s", what, err);
    if (s == CUTE_OK) {
        fetch(b, &o);
        hstu_ref_problem p = {k->B, k->Sq, k->Sk, k->H, k->D, k->causal, {q.wide, {sq[0], sq[1], sq[2], 1}},
                              {kk.wide, {sk[0], sk[1], sk[2], 1}}, {v.wide, {sv[0], sv[1], sv[2], 1}},
                              {r.wide, {sr[0], sr[1], sr[2], 1}}, NULL};
        double *want = malloc((size_t)k->D * 3 * sizeof(double)), *mag = want + k->D, worst = 0;
        int64_t bad = 0, rows = k->B * k->Sq * k->H;
        for (int64_t e = 0; e < rows; e++) {
            int64_t bb = e / (k->Sq * k->H), i = e / k->H % k->Sq, h = e % k->H;
            hstu_ref_row(&p, bb, i, h, want, mag);
            for (int64_t d = 0; d < k->D; d++) {
                double got = ew_get(k->d, o.host, bb * sq[0] + i * sq[1] + h * sq[2] + d);
                bad += !hstu_ref_close(got, want[d], mag[d], mag[k->D + d], k->d == CUTE_BF16, k->fast);
                if (!(fabs(got - want[d]) <= worst)) worst = fabs(got - want[d]);
            }
        }
        CHECK(bad == 0, "%s: %lld of %lld elements of O wrong (worst |err| %g)", what, (long long)bad,
              (long long)(rows * k->D), worst);
        free(want);
    }
    buf *all[] = {&q, &kk, &v, &r, &o};
    for (int i = 0; i < 5; i++) drop(b, all[i]);
}

static void run_on(const char *backend, const hstu_case *cases, int n)
{
    hstu_test_run_on(backend, "hstu attention", run_case, cases, sizeof cases[0], n);
}

/* a call that must be refused with words naming `want` */
static void refused(cute_hstu_lib *lib, const cute_call_arg *t[5], bool causal, const char *want)
{
    char err[512] = "";
    hstu_test_refused(cutec_hstu_attention(lib, t[0], t[1], t[2], t[3], t[4], causal, false, NULL, err, sizeof err),
                      err, want);
}

static void misuse(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_hstu_lib *lib = cute_hstu_lib_new(rt);
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer x;
    b->vt->alloc(b->self, 1 << 20, &x);
    int64_t sq[4], sk[4], sr[4] = {2 * 40 * 72, 40 * 72, 72, 1};
    strides(40, 2, 64, false, sq);
    strides(70, 2, 64, false, sk);
    cute_call_arg q = cute_call_tensor(&x, 0, CUTE_F16, 4, (int64_t[]){1, 40, 2, 64}, sq);
    cute_call_arg k = cute_call_tensor(&x, 0, CUTE_F16, 4, (int64_t[]){1, 70, 2, 64}, sk);
    cute_call_arg r = cute_call_tensor(&x, 0, CUTE_F16, 4, (int64_t[]){1, 2, 40, 70}, sr);
    const cute_call_arg *t[5] = {&q, &k, &k, &r, &q};
    cute_call_arg bad = r;
    bad.shape[3] = 69;
    t[3] = &bad, refused(lib, t, false, "RAB is (1, 2, 40, 69) but (B, H, Sq, Sk) is (1, 2, 40, 70)");
    bad = r, bad.dtype = CUTE_BF16;
    refused(lib, t, false, "RAB is bf16, Q f16");
    bad = r, bad.stride[2] = 70;
    refused(lib, t, false, "RAB's stride 2 is 70");
    bad = r, bad.stride[3] = 2;
    refused(lib, t, false, "RAB's keys have stride 2");
    t[3] = NULL, refused(lib, t, false, "RAB is not a (B, H, Sq, Sk) tensor");
    t[3] = &r;
    /* causal asks Sk >= Sq */
    cute_call_arg kshort = cute_call_tensor(&x, 0, CUTE_F16, 4, (int64_t[]){1, 30, 2, 64}, sk);
    cute_call_arg rshort = cute_call_tensor(&x, 0, CUTE_F16, 4, (int64_t[]){1, 2, 40, 30}, sr);
    const cute_call_arg *ts[5] = {&q, &kshort, &kshort, &rshort, &q};
    refused(lib, ts, true, "causal with Sk 30 < Sq 40");
    kshort.shape[1] = rshort.shape[3] = 0;
    refused(lib, ts, false, "Sk = 0");
    cute_call_arg q32 = q, q96 = q, kh = k;
    q32.dtype = CUTE_F32;
    t[0] = &q32, refused(lib, t, false, "Q is f32 (f16 or bf16)");
    int64_t s96[4];
    strides(40, 2, 96, false, s96);
    q96 = cute_call_tensor(&x, 0, CUTE_F16, 4, (int64_t[]){1, 40, 2, 96}, s96);
    cute_call_arg k96 = cute_call_tensor(&x, 0, CUTE_F16, 4, (int64_t[]){1, 70, 2, 96}, s96);
    const cute_call_arg *t96[5] = {&q96, &k96, &k96, &r, &q96};
    refused(lib, t96, false, "head dim 96 (64 or 128)");
    t[0] = &q;
    kh.shape[2] = 1;
    t[1] = &kh, refused(lib, t, false, "must be shaped as Q and V as K");
    t[1] = &k;
    CHECK(cutec_hstu_attention(NULL, &q, &k, &k, &r, &q, false, false, NULL, err, sizeof err) == CUTE_ERR_INVALID &&
              strstr(err, "no library"), "no library: '%s'", err);
    b->vt->free(b->self, &x);
    cute_hstu_lib_free(lib);
    cute_runtime_free(rt);
}

/* the ptxas report of cfg for arch: 0 bytes of spill */
static void no_spills(const cute_hstu_config *cfg, const char *arch)
{
    char err[2048], *report = NULL;
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: a register report was not made");
        return;
    }
    cute_nvrtc_close(nv);
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_runtime_set_target_arch(rt, arch);
    const cute_fn *f = cute_hstu_compile(rt, cfg, err, sizeof err);
    cute_status s = f ? cute_fn_code(f, "usage", arch, &report, err, sizeof err) : CUTE_ERR_COMPILE;
    CHECK(s == CUTE_OK, "hstu d%d %s: %s", cfg->head_dim, arch, err);
    if (s == CUTE_OK) {
        printf("hstu d%d%s %s: %s", cfg->head_dim, cfg->causal ? " causal" : "", arch, report);
        CHECK(strstr(report, " 0 bytes spill stores") && strstr(report, " 0 bytes spill loads"),
              "hstu d%d %s spills: %s", cfg->head_dim, arch, report);
    }
    free(report);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

int main(void)
{
    seed = check_seed("hstu_test");
    static const hstu_case small[] = {
        {1, 77, 100, 2, 64, false, false, true, CUTE_F16, 0},   /* partial Q and key tiles, V unlike K */
        {1, 70, 131, 1, 128, true, false, true, CUTE_BF16, 0},  /* causal, Sk > Sq, three key tiles */
        {1, 130, 135, 1, 64, true, true, false, CUTE_F16, 0},   /* two Q tiles, fast sigmoid */
        {2, 33, 65, 1, 128, false, true, false, CUTE_BF16, 0},  /* fast, two batches */
        {1, 40, 70, 1, 64, true, false, false, CUTE_BF16, 300}, /* |S| to 300: silu's overflow */
        {1, 150, 70, 1, 64, false, false, false, CUTE_BF16, 0}, /* Sq > Sk (not causal) */
    };
    run_on("interp", small, (int)(sizeof small / sizeof small[0]));
    /* 128-row Q tiles of 8 warps (CUTEC_HSTU_BLOCK_M=128, read as the library compiles):
     * causal across two of them, and one at d64 */
    static const hstu_case m128[] = {
        {1, 200, 250, 2, 128, true, false, false, CUTE_BF16, 0},
        {1, 70, 131, 1, 64, false, true, true, CUTE_F16, 0},
    };
    setenv("CUTEC_HSTU_BLOCK_M", "128", 1);
    run_on("interp", m128, (int)(sizeof m128 / sizeof m128[0]));
    no_spills(&(cute_hstu_config){CUTE_F16, 128, true, false, false}, "sm_90a");
    unsetenv("CUTEC_HSTU_BLOCK_M");
    misuse();
    no_spills(&(cute_hstu_config){CUTE_BF16, 128, true, false, false}, "sm_80");
    no_spills(&(cute_hstu_config){CUTE_BF16, 128, true, false, true}, "sm_80"); /* jagged */
    no_spills(&(cute_hstu_config){CUTE_BF16, 128, true, false, false}, "sm_90a");
    static const hstu_case moderate[] = {
        {2, 1000, 1000, 4, 128, true, false, false, CUTE_BF16, 0},
        {3, 777, 1025, 2, 64, false, true, true, CUTE_F16, 0},
        {1, 513, 2000, 2, 128, false, false, false, CUTE_F16, 0},
        {1, 1500, 1531, 3, 64, true, true, false, CUTE_BF16, 0},
        {1, 300, 400, 2, 128, true, false, false, CUTE_BF16, 300}, /* ex2.approx to inf, rsqrt.approx to 0 */
        {2, 700, 300, 2, 128, false, true, true, CUTE_F16, 0},     /* Sq > Sk */
    };
    run_on("cuda", moderate, (int)(sizeof moderate / sizeof moderate[0]));
    /* the Hopper kernel (hstu_hopper.c, CUTEC_HSTU_VARIANT=hopper, read as the library
     * compiles): the same cases, its ptxas reports, the GPU's on an sm_90 one only */
    setenv("CUTEC_HSTU_VARIANT", "hopper", 1);
    run_on("interp", small, (int)(sizeof small / sizeof small[0]));
    static const hstu_case hopper_small[] = {
        {1, 200, 260, 2, 128, true, false, false, CUTE_BF16, 0}, /* two Q tiles, three key tiles */
        {1, 129, 300, 1, 64, false, true, true, CUTE_F16, 0},
    };
    run_on("interp", hopper_small, (int)(sizeof hopper_small / sizeof hopper_small[0]));
    for (int i = 0; i < 4; i++)
        no_spills(&(cute_hstu_config){i & 1 ? CUTE_F16 : CUTE_BF16, i < 2 ? 128 : 64, (i & 1) != 0, i == 2, false},
                  "sm_90a");
    run_on("cuda", moderate, (int)(sizeof moderate / sizeof moderate[0]));
    unsetenv("CUTEC_HSTU_VARIANT");
    return CHECK_DONE("hstu_test");
}
