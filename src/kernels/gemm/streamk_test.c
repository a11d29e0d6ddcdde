/* Stream-K in the Hopper GEMM (CUTE_GEMM_SCHEDULE_STREAMK; streamk.c, streamk_fixup.c)
 * against the float64 reference, on fresh gaussian inputs with C poisoned (NaN where beta
 * is 0):
 *  - on the interpreter (2 resident blocks), through the library (its workspace), at small
 *    odd sizes with M, N and K tails: the hybrid with and without whole tiles before the
 *    runs (W = 1 and W = 4, one tile left over), fewer tiles than blocks, runs that would
 *    not pay and no tile left over (every tile whole), K not divisible by the runs, C of f32 (16-byte stores) and 16-bit (TMA
 *    stores), beta, and the fused epilogues (bias by row and by column with GELU, SiLU, ReLU);
 *  - which cases met in the fixup (with no partials added, C wrong exactly where runs were
 *    made: not where they would not pay);
 *  - the flags back at 0 after a call (the next call's finisher trusts them), and the broken
 *    fixups caught: a finisher that does not wait for the flags (it leaves them raised, and
 *    on the next call would read a partial before it is written) and one that adds no
 *    partials (wrong values);
 *  - what it refuses, named: clusters, the dual GEMM;
 *  - on an sm_90 GPU (else skipped, visibly): 4096^3 (3.88 waves of 128 x 256 tiles on 132
 *    SMs: runs), 2048^3 (0.97: whole tiles), odd sizes, an f32 C, a fused epilogue, sampled. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed;
enum { SK = CUTE_GEMM_SCHEDULE_STREAMK };

typedef struct skcase {
    int64_t M, N, K;
    cute_dtype cd;
    double alpha, beta;
    cute_gemm_tiling tile;
    cute_gemm_epilogue ep;
    const char *what;
} skcase;

/* the problem's operands (bf16, K-major; C row-major) and the vector of the epilogue */
typedef struct operands {
    gtk_operand A, B, C, V;
} operands;

static bool make_all(cute_backend *b, const skcase *k, operands *o)
{
    int64_t vlen = k->ep.bias == CUTE_GEMM_BIAS_ROW ? k->M : k->N;
    return gtk_make(b, &o->A, CUTE_BF16, k->M, k->K, 1, 0, false, &seed) &&
           gtk_make(b, &o->B, CUTE_BF16, k->N, k->K, 1, 0, false, &seed) &&
           gtk_make(b, &o->C, k->cd, k->M, k->N, 1, 0, k->beta == 0, &seed) &&
           gtk_make(b, &o->V, k->cd, vlen, 1, 0, 0, false, &seed);
}

static void free_all(cute_backend *b, operands *o)
{
    gtk_operand *all[4] = {&o->A, &o->B, &o->C, &o->V};
    for (int i = 0; i < 4; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
}

/* C's elements off the reference (with the epilogue): all of them when few, else sampled */
static int64_t wrong(const skcase *k, const operands *o, const void *got, double *worst)
{
    gemm_ref_problem p = {{o->A.host, o->A.ld, 1}, {o->B.host, o->B.ld, 1}, {o->C.host, o->C.ld, 1}, CUTE_BF16, k->cd,
                          {0, 0, 0}, k->M, k->N, k->K, 1, k->alpha, k->beta};
    double tol = gemm_ref_tolerance(CUTE_BF16, k->cd);
    int64_t total = k->M * k->N, samples = total <= 1 << 16 ? total : 4096, bad = 0;
    bool fused = cute_gemm_epilogue_fused(&k->ep);
    *worst = 0;
    for (int64_t i = 0; i < samples; i++) {
        int64_t e = samples == total ? i : (int64_t)((ew_random(&seed) + 2.0) / 4.0 * (double)total) % total;
        int64_t m = e % k->M, n = e / k->M;
        double mag, ref = gemm_ref_value(&p, m, n, 0, &mag);
        if (fused) {
            double v = k->ep.bias == CUTE_GEMM_BIAS_NONE ? 0 : ew_get(k->cd, o->V.host, k->ep.bias == CUTE_GEMM_BIAS_ROW ? m : n);
            mag += fabs(v), ref = gemm_ref_epilogue(&k->ep, ref, v);
        }
        double err = gemm_ref_error(ew_get(k->cd, got, gemm_ref_at(&p.C0, m, n)), ref, mag);
        if (!(err <= tol)) bad++;
        if (!(err <= *worst)) *worst = err;
    }
    return bad;
}

static int64_t check_c(cute_backend *b, const skcase *k, const operands *o, char *why, size_t n)
{
    size_t bytes = (size_t)(k->M * k->N * cute_dtype_bytes(k->cd));
    void *got = malloc(bytes);
    double worst;
    int64_t bad = -1;
    if (b->vt->download(b->self, got, &o->C.dev, 0, bytes) == CUTE_OK) bad = wrong(k, o, got, &worst);
    if (bad > 0) snprintf(why, n, "%lld wrong, worst relative error %g", (long long)bad, worst);
    free(got);
    return bad;
}

/* the case through the library (its stream-K workspace), checked */
static void through_lib(cute_runtime *rt, const skcase *k)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    operands o;
    char why[4096] = "";
    bool ok = lib && make_all(b, k, &o) && cute_gemm_lib_tiling(lib, &k->tile);
    bool vec = k->ep.bias != CUTE_GEMM_BIAS_NONE;
    cute_call_arg A = gtk_arg(&o.A, CUTE_BF16), B = gtk_arg(&o.B, CUTE_BF16), C = gtk_arg(&o.C, k->cd);
    cute_call_arg V = cute_call_tensor(&o.V.dev, 0, k->cd, 1, &o.V.rows, (int64_t[]){1});
    cute_status s = ok ? cutec_gemm_ex(lib, CUTE_GEMM_HOPPER, &A, &B, &C, k->alpha, k->beta, &k->ep, vec ? &V : NULL,
                                       NULL, why, sizeof why)
                       : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    int64_t bad = s == CUTE_OK ? check_c(b, k, &o, why, sizeof why) : -1;
    CHECK(s == CUTE_OK && bad == 0, "stream-K %s %lldx%lldx%lld -> %s, tile %dx%d: %s %s", k->what, (long long)k->M,
          (long long)k->N, (long long)k->K, cute_dtype_name(k->cd), k->tile.bm, k->tile.bn, cute_status_name(s), why);
    free_all(b, &o);
    cute_gemm_lib_free(lib);
}

/* One direct call of the kernel broken as asked, with a workspace of its own: its status,
 * *bad C's elements off the reference, *raised the flags left up after it */
static cute_status run_broken(cute_runtime *rt, const skcase *k, unsigned how, int64_t *bad, int *raised, char *why,
                              size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = k->cd, .major = {1, 1, 1},
                            .align_bytes = 16, .tiling = k->tile};
    *bad = -1, *raised = -1, why[0] = 0;
    const cute_fn *f = gemm_compile_broken(rt, &cfg, how, why, n);
    if (!f) return CUTE_ERR_COMPILE;
    int blocks = gemm_resident_blocks(rt, 1, 384);
    size_t flags_at, bytes = gemm_streamk_workspace_bytes(&k->tile, blocks, &flags_at);
    operands o;
    gtk_streamk_ws ws = {0};
    bool ok = make_all(b, k, &o) && gtk_streamk_ws_make(b, &ws, bytes, flags_at, blocks);
    cute_call_arg args[8] = {gtk_arg(&o.A, CUTE_BF16), gtk_arg(&o.B, CUTE_BF16), gtk_arg(&o.C, k->cd),
                             cute_call_float(k->alpha), cute_call_float(k->beta),
                             cute_call_tensor(&o.V.dev, 0, k->cd, 1, &o.V.rows, (int64_t[]){1}),
                             cute_call_tensor(&ws.dev, 0, CUTE_F32, 1, (int64_t[]){(int64_t)(flags_at / 4)}, (int64_t[]){1}),
                             gtk_streamk_flags_arg(&ws)};
    cute_status s = ok ? cute_call(f, NULL, 8, args, why, n) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s == CUTE_OK) *bad = check_c(b, k, &o, why, n), *raised = gtk_streamk_raised(b, &ws);
    free_all(b, &o);
    gtk_streamk_ws_free(b, &ws);
    cute_fn_free(f);
    return s;
}

/* 3 tiles of 64 x 64 on 2 blocks, 10 k-tiles each: block 0 the first tile whole and the
 * second's head, block 1 the second's tail (the fixup) and the third */
static const skcase split = {136, 40, 600, CUTE_BF16, 1.0, 0.5, {.bm = 64, .bn = 64, .schedule = SK}, {0}, "broken"};

/* whether a case's tiles met in the fixup: with none added, C is wrong exactly then */
static void fixup_or_not(cute_runtime *rt, const skcase *k, bool runs)
{
    char why[4096];
    int64_t bad;
    int raised;
    cute_status s = run_broken(rt, k, GEMM_BREAK_FIXUP_ADD, &bad, &raised, why, sizeof why);
    CHECK(s == CUTE_OK && (bad > 0) == runs, "stream-K %s: %s, with no partials added %lld wrong (%s wanted)", k->what,
          cute_status_name(s), (long long)bad, runs ? "some" : "none");
}

static void broken_all(cute_runtime *rt)
{
    char why[4096];
    int64_t bad;
    int raised;
    cute_status s = run_broken(rt, &split, 0, &bad, &raised, why, sizeof why);
    CHECK(s == CUTE_OK && bad == 0 && raised == 0, "stream-K: the sound kernel leaves %d flags raised (%lld wrong): %s %s",
          raised, (long long)bad, cute_status_name(s), why);
    s = run_broken(rt, &split, GEMM_BREAK_FIXUP_WAIT, &bad, &raised, why, sizeof why);
    printf("a finisher not waiting for the flags: %s, %d flags left raised\n", cute_status_name(s), raised);
    CHECK(s == CUTE_OK && raised > 0, "stream-K: a finisher that does not wait leaves the flags down (%d raised): %s",
          raised, why);
    s = run_broken(rt, &split, GEMM_BREAK_FIXUP_ADD, &bad, &raised, why, sizeof why);
    printf("a finisher adding no partials: %s, %s\n", cute_status_name(s), why);
    CHECK(s == CUTE_OK && bad > 0, "stream-K: a finisher that adds no partials went unseen (%lld wrong)", (long long)bad);
}

/* what stream-K refuses, by name */
static void refused(cute_runtime *rt)
{
    static const struct {
        cute_gemm_tiling t;
        bool dual;
        const char *want;
    } r[] = {
        {{.schedule = SK, .cluster_m = 2, .cluster_n = 1}, false, "stream-K runs without clusters"},
        {{.schedule = SK}, true, "stream-K runs plain and fused-epilogue GEMMs (not the dual GEMM)"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = CUTE_BF16,
                                .major = {1, 1, 1}, .align_bytes = 16, .tiling = r[i].t, .dual = r[i].dual};
        char why[1024] = "";
        const cute_fn *f = cute_gemm_compile(rt, &cfg, why, sizeof why);
        CHECK(!f && strstr(why, r[i].want), "stream-K refusal: wanted \"%s\", got \"%s\"", r[i].want, why);
        cute_fn_free(f);
    }
}

static void interp(void)
{
    cute_runtime *rt = gtk_interp();
    if (!rt) return;
    static const skcase k[] = {
        /* W = 0 (one tile of 128 x 256, 10 k-tiles, the last of 8, on 2 blocks): whole tiles
         * (runs under a tile would need several partials a tile); f32 C */
        {100, 120, 584, CUTE_F32, 1.5, -0.5, {.schedule = SK}, {0}, "fewer tiles than blocks"},
        /* W = 1, R = 1: the split of broken_all, f16, beta */
        {136, 40, 600, CUTE_F16, 1.0, 0.5, {.bm = 64, .bn = 64, .schedule = SK}, {0}, "three tiles in two runs"},
        /* W = 4, R = 1 (9 tiles of 64 x 64): 6 tiles whole, then 3 in the runs of 15 k-tiles */
        {136, 136, 600, CUTE_BF16, 1.0, 0.0, {.bm = 64, .bn = 64, .schedule = SK}, {0}, "whole tiles, then runs"},
        /* runs that would not pay (4 k-tiles: a block's share of 2 saves 2, the fixup costs
         * about 4), and no tile left over: every tile whole */
        {136, 40, 200, CUTE_BF16, -1.0, 0.0, {.bm = 64, .bn = 64, .schedule = SK}, {0}, "runs that do not pay"},
        {136, 200, 72, CUTE_BF16, 1.0, 0.0, {.schedule = SK}, {0}, "no tile left over"},
        /* the fused epilogues (TMA stores): 3 tiles of 64 x 64 (64 x 128 for the row bias) */
        {136, 64, 600, CUTE_BF16, 1.0, 0.0, {.bm = 64, .bn = 64, .schedule = SK},
         {.bias = CUTE_GEMM_BIAS_COL, .act = CUTE_GEMM_ACT_GELU_ERF}, "bias by column and GELU"},
        {136, 120, 600, CUTE_F16, 0.5, 0.0, {.bm = 64, .bn = 128, .schedule = SK},
         {.bias = CUTE_GEMM_BIAS_ROW, .act = CUTE_GEMM_ACT_SILU}, "bias by row and SiLU"},
        {136, 64, 600, CUTE_BF16, 1.0, 0.0, {.bm = 64, .bn = 64, .schedule = SK}, {.act = CUTE_GEMM_ACT_RELU},
         "ReLU"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) through_lib(rt, &k[i]);
    for (int i = 0; i < 5; i++) fixup_or_not(rt, &k[i], i == 1 || i == 2); /* runs in these two only */
    broken_all(rt);
    refused(rt);
    cute_runtime_free(rt);
}

static void gpu(void)
{
    cute_runtime *rt = gtk_sm90();
    if (!rt) {
        SKIP("no sm_90 GPU: stream-K ran on the interpreter only");
        return;
    }
    static const skcase k[] = {
        {4096, 4096, 4096, CUTE_BF16, 1.0, 0.0, {.schedule = SK, .c_store = CUTE_GEMM_STORE_TILE}, {0}, "3.88 waves"},
        {2048, 2048, 2048, CUTE_BF16, 1.0, 0.0, {.schedule = SK, .c_store = CUTE_GEMM_STORE_TILE}, {0}, "0.97 waves"},
        {1921, 1000, 1000, CUTE_F16, 1.0, 0.5, {.schedule = SK}, {0}, "odd sizes, beta"},
        {1021, 1000, 2000, CUTE_BF16, 1.5, -0.5, {.schedule = SK}, {0}, "f32 C"},
        {2048, 4096, 1000, CUTE_BF16, 1.0, 0.0, {.schedule = SK}, {.bias = CUTE_GEMM_BIAS_COL, .act = CUTE_GEMM_ACT_GELU_ERF},
         "bias and GELU"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        skcase c = k[i];
        if (!strcmp(c.what, "f32 C")) c.cd = CUTE_F32;
        through_lib(rt, &c);
    }
    cute_runtime_free(rt);
}

int main(void)
{
    return gtk_main("streamk_test", &seed, interp, gpu);
}
